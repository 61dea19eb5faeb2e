//! Every decoder of an on-flash format, fed arbitrary bytes, returns a value
//! or an error: never a panic, never a hang. Two kinds of input per
//! decoder: raw random pages (mostly stopped by the frame checksum), and
//! random payloads sealed in a valid frame of the right kind, so the bytes
//! reach the format's own parsing. `cargo test` runs a few thousand cases
//! per decoder; the long run is
//! `PROPTEST_CASES=1000000 cargo test --release --test decoder_fuzz`.

use flashix::index::mbtree::lnh::Lnh;
use flashix::index::EntryFormat;
use flashix::node::delta::{for_each_record, open_page, Record};
use flashix::node::page::{self, PageKind, FRAME_HEADER};
use flashix::node::{Node, NodeLayout};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

/// A page of `size` bytes: either raw `bytes`, or `bytes` as the payload of
/// a valid frame of `kind`.
fn page_of(size: usize, bytes: &[u8], sealed: bool, kind: PageKind) -> Vec<u8> {
    let mut p = vec![0u8; size];
    if sealed {
        let len = bytes.len().min(size - FRAME_HEADER);
        p[FRAME_HEADER..FRAME_HEADER + len].copy_from_slice(&bytes[..len]);
        page::seal(&mut p, kind, len);
    } else {
        let len = bytes.len().min(size);
        p[..len].copy_from_slice(&bytes[..len]);
    }
    p
}

/// Layouts the indexes use: 4+4 and 8+8 entries, sector and page nodes.
fn layouts() -> Vec<NodeLayout> {
    let mut v = Vec::new();
    for (k, val) in [(4u8, 4u8), (8, 8)] {
        for bytes in [208usize, 512, 4096] {
            let f = EntryFormat::new(k, val).unwrap();
            if let Ok(l) = NodeLayout::with_node_bytes(f, bytes) {
                v.push(l);
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The B+-tree node codec: full decode, and the search paths that read
    /// encoded images in place.
    #[test]
    fn node_images(bytes in prop::collection::vec(any::<u8>(), 0..4200), sealed: bool, target: (u64, u64), hi: u64) {
        let mut node = Node::default();
        for layout in layouts() {
            let image = page_of(layout.node_bytes, &bytes, sealed, PageKind::TreeNode);
            let _ = layout.decode(&image, 7, &mut node);
            let _ = layout.image_child(&image, 7, false, target);
            let _ = layout.image_scan(&image, 7, false, target, hi, &mut |_, _| {});
        }
    }

    /// Node record pages of the delta schemes: the page, each record, and
    /// each delta applied to a node.
    #[test]
    fn record_pages(bytes in prop::collection::vec(any::<u8>(), 0..4200), sealed: bool) {
        for layout in layouts() {
            for size in [512usize, 4096] {
                let frame = page_of(size, &bytes, sealed, PageKind::NodeRecords);
                let Ok(Some((_, records))) = open_page(&frame, 3) else { continue };
                let mut node = Node::default();
                let _ = for_each_record(records, layout, 3, |_, r| {
                    match r {
                        Record::Base { image, .. } => {
                            let _ = layout.decode(image, 3, &mut node);
                        }
                        Record::Delta(d) => {
                            let _ = d.apply(&mut node, layout, 3);
                        }
                    }
                    Ok(())
                });
            }
        }
    }

    /// MB-Tree's leaf node header (bit-packed OIDs and KIVs, optional FEI)
    /// and the page lookups made from it.
    #[test]
    fn leaf_node_headers(bytes in prop::collection::vec(any::<u8>(), 0..4200), sealed: bool, slots in 1usize..600, lo: u64, hi: u64) {
        let mut h = Lnh::default();
        let mut pages = Vec::new();
        for size in [512usize, 2048, 4096] {
            let frame = page_of(size, &bytes, sealed, PageKind::LeafHeader);
            if h.decode_into(&frame, 5, slots).is_ok() {
                h.pages_for(lo.min(hi), hi.max(lo), &mut pages);
            }
        }
    }

    /// The frame itself, for every kind.
    #[test]
    fn frames(bytes in prop::collection::vec(any::<u8>(), 0..4200)) {
        for kind in [PageKind::Superblock, PageKind::TreeNode, PageKind::IndexUnits, PageKind::NodeRecords, PageKind::LeafHeader] {
            let _ = page::open(&bytes, kind, 1);
        }
    }
}
