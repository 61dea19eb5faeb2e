//! A page rewritten with a valid checksum whose leaf `next` points back to
//! an earlier leaf makes a loop; a range scan over it must end with
//! `Corrupt`, not run forever. Each scenario runs in a thread so that a
//! hang fails the test instead of hanging the suite.

use std::collections::BTreeSet;
use std::sync::mpsc;
use std::time::Duration;

use flashix::device::ram::RamDisk;
use flashix::device::{BlockDevice, Storage};
use flashix::index::{IndexError, Params};
use flashix::node::page::{self, PageKind, FRAME_HEADER};
use flashix::store::{create_index, open_index};

const PAGE: usize = 512;
const NO_NODE: u32 = u32::MAX;

fn p(pairs: &[&str]) -> Params {
    Params::parse(pairs.iter().copied()).unwrap()
}

/// Runs `scenario` in a thread and fails if it takes longer than a minute.
fn within_a_minute(scenario: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(scenario());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(r) => r.unwrap(),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the scan did not end: a loop is a hang"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the scenario panicked"),
    }
}

/// The leaves found at `lbas`, as (lba, node id, next id): a leaf is a frame
/// of `kind` whose payload passes `is_leaf`; its next id is at `next_at`.
fn leaves(
    dev: &mut dyn BlockDevice,
    lbas: impl Iterator<Item = (u64, u32)>,
    kind: PageKind,
    is_leaf: impl Fn(&[u8]) -> bool,
    next_at: usize,
) -> Vec<(u64, u32, u32)> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; PAGE];
    for (lba, id) in lbas {
        dev.read(lba, 0, &mut buf).unwrap();
        let Ok(Some(payload)) = page::open(&buf, kind, lba) else {
            continue;
        };
        if is_leaf(payload) {
            let n = &payload[next_at..next_at + 4];
            out.push((lba, id, u32::from_le_bytes([n[0], n[1], n[2], n[3]])));
        }
    }
    out
}

/// Points the last leaf of the chain back at its first and re-seals the
/// page, so that the checksum is valid and only the walk bound can tell.
fn close_the_chain(
    dev: &mut dyn BlockDevice,
    leaves: &[(u64, u32, u32)],
    kind: PageKind,
    next_at: usize,
) {
    assert!(leaves.len() >= 3, "the image must have several leaves");
    let named: BTreeSet<u32> = leaves.iter().map(|l| l.2).collect();
    let head = leaves
        .iter()
        .find(|l| !named.contains(&l.1))
        .expect("a chain has a first leaf")
        .1;
    let tail = leaves
        .iter()
        .find(|l| l.2 == NO_NODE)
        .expect("a chain has a last leaf")
        .0;
    let mut buf = vec![0u8; PAGE];
    dev.read(tail, 0, &mut buf).unwrap();
    let len = page::open(&buf, kind, tail).unwrap().unwrap().len();
    let at = FRAME_HEADER + next_at;
    buf[at..at + 4].copy_from_slice(&head.to_le_bytes());
    page::seal(&mut buf, kind, len);
    dev.write(tail, 0, &buf).unwrap();
}

fn expect_loop_corrupt(r: flashix::index::Result<()>) -> Result<(), String> {
    match r {
        Err(IndexError::Corrupt { detail, .. }) if detail.contains("leaf chain") => Ok(()),
        other => Err(format!("expected a Corrupt leaf chain, got {other:?}")),
    }
}

fn btree_loop(cache: &'static str) {
    within_a_minute(move || {
        let storage = Storage::Pages(Box::new(RamDisk::new(PAGE, 1 << 16)));
        let mut t = create_index("btree", storage, 4096, p(&[cache])).unwrap();
        for i in 0..500 {
            t.insert(i, i).unwrap();
        }
        t.flush().unwrap();
        let Storage::Pages(mut dev) = t.into_storage() else {
            unreachable!("built on pages")
        };
        // One page per node: node `id` is at logical page 1 + id.
        let found = leaves(
            dev.as_mut(),
            (1..200).map(|lba| (lba, lba as u32 - 1)),
            PageKind::TreeNode,
            |payload| payload[0] == 0,
            4,
        );
        close_the_chain(dev.as_mut(), &found, PageKind::TreeNode, 4);
        let mut t = open_index("btree", Storage::Pages(dev), 4096, p(&[cache])).unwrap();
        let mut out = Vec::new();
        expect_loop_corrupt(t.range(0, u64::MAX, &mut out))
    });
}

#[test]
fn a_btree_leaf_loop_is_corrupt_without_a_cache() {
    btree_loop("cache=none");
}

#[test]
fn a_btree_leaf_loop_is_corrupt_through_the_cache() {
    btree_loop("cache=lru");
}

#[test]
fn an_mbtree_leaf_loop_is_corrupt() {
    within_a_minute(|| {
        let storage = Storage::Pages(Box::new(RamDisk::new(PAGE, 1 << 20)));
        let mut t = create_index("mbtree", storage, 600, p(&[])).unwrap();
        for i in 0..2000 {
            t.insert(i, i).unwrap();
        }
        t.flush().unwrap();
        let Storage::Pages(mut dev) = t.into_storage() else {
            unreachable!("built on pages")
        };
        // Node `n` starts at page 1 + n·17 (max_leaf_pages 16); a leaf
        // node's first page is its header, whose next id is at byte 8.
        let region = 17u64;
        let found = leaves(
            dev.as_mut(),
            (0..400u32).map(|n| (1 + n as u64 * region, n)),
            PageKind::LeafHeader,
            |_| true,
            8,
        );
        close_the_chain(dev.as_mut(), &found, PageKind::LeafHeader, 8);
        let mut t = open_index("mbtree", Storage::Pages(dev), 600, p(&[])).unwrap();
        let mut out = Vec::new();
        expect_loop_corrupt(t.range(0, u64::MAX, &mut out))
    });
}

#[test]
fn a_basic_delta_leaf_loop_is_corrupt() {
    use flashix::index::EntryFormat;
    use flashix::node::delta::{for_each_record, open_page, seal_page, Record};
    use flashix::node::NodeLayout;
    within_a_minute(|| {
        let storage = Storage::Pages(Box::new(RamDisk::new(PAGE, 1 << 16)));
        let mut t = create_index("basic-delta", storage, 8192, p(&[])).unwrap();
        for i in 0..500 {
            t.insert(i, i).unwrap();
        }
        t.flush().unwrap();
        let Storage::Pages(mut dev) = t.into_storage() else {
            unreachable!("built on pages")
        };
        // The default layout (fanout 16). A node's newest base record holds
        // its `next` (deltas never change it).
        let layout = NodeLayout::with_fanout(EntryFormat::default(), 16).unwrap();
        let mut newest: std::collections::BTreeMap<u32, (u64, u64, usize, u8, u32)> =
            Default::default();
        let mut buf = vec![0u8; PAGE];
        for lba in 1..2000u64 {
            dev.read(lba, 0, &mut buf).unwrap();
            let Ok(Some((seq, page))) = open_page(&buf, lba) else {
                continue;
            };
            for_each_record(page, layout, lba, |id, r| {
                if let Record::Base { image, at } = r {
                    let h = &image[FRAME_HEADER..];
                    let next = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
                    if newest.get(&id).is_none_or(|n| n.0 < seq) {
                        newest.insert(id, (seq, lba, at, h[0], next));
                    }
                }
                Ok(())
            })
            .unwrap();
        }
        let leaves: Vec<_> = newest.iter().filter(|(_, n)| n.3 == 0).collect();
        assert!(leaves.len() >= 3, "the image must have several leaves");
        let named: BTreeSet<u32> = leaves.iter().map(|(_, n)| n.4).collect();
        let head = *leaves.iter().find(|(id, _)| !named.contains(id)).unwrap().0;
        let &(_, lba, at, _, _) = leaves.iter().find(|(_, n)| n.4 == NO_NODE).unwrap().1;
        dev.read(lba, 0, &mut buf).unwrap();
        let used = open_page(&buf, lba).unwrap().unwrap().1.len();
        // `at` is the record's offset; the image follows its 5-byte header.
        let image = &mut buf[at + 5..at + 5 + layout.node_bytes];
        let len = page::open(image, PageKind::TreeNode, lba)
            .unwrap()
            .unwrap()
            .len();
        image[FRAME_HEADER + 4..FRAME_HEADER + 8].copy_from_slice(&head.to_le_bytes());
        page::seal(image, PageKind::TreeNode, len);
        seal_page(&mut buf, used);
        dev.write(lba, 0, &buf).unwrap();
        let mut t = open_index("basic-delta", Storage::Pages(dev), 8192, p(&[])).unwrap();
        let mut out = Vec::new();
        expect_loop_corrupt(t.range(0, u64::MAX, &mut out))
    });
}
