//! Exact device costs of `btree` operations in small deterministic cases
//! (CONVENTIONS: pin counts so that a change that adds I/O fails loudly).

use flashix::device::{DeviceSpec, Storage};
use flashix::index::Params;
use flashix::store::create_index;

fn ftl() -> Storage {
    DeviceSpec::parse("slc-small", &[])
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn an_uncached_search_reads_one_page_per_level() {
    let params = Params::parse(["cache=none"]).unwrap();
    let mut t = create_index("btree", ftl(), 4096, params).unwrap();
    for i in 0..5000u64 {
        t.insert(i * 3, i).unwrap();
    }
    let height = t.stats().get("height").unwrap() as u64;
    assert!(height >= 3);
    let mut out = Vec::new();
    let before = t.storage().stats();
    t.get(3000, &mut out).unwrap();
    let d = t.storage().stats().delta(&before);
    assert_eq!(out, vec![1000]);
    assert_eq!((d.physical_reads, d.physical_writes), (height, 0));
}

#[test]
fn an_uncached_insert_without_split_reads_the_path_and_writes_the_leaf() {
    let params = Params::parse(["cache=none"]).unwrap();
    let mut t = create_index("btree", ftl(), 4096, params).unwrap();
    for i in 0..5000u64 {
        t.insert(i * 3, i).unwrap();
    }
    let height = t.stats().get("height").unwrap() as u64;
    let splits = t.stats().get("splits").unwrap();
    let before = t.storage().stats();
    t.insert(3001, 7).unwrap();
    let d = t.storage().stats().delta(&before);
    // Ascending inserts leave leaves half full, so this one cannot split.
    assert_eq!(t.stats().get("splits").unwrap(), splits);
    assert_eq!((d.physical_reads, d.physical_writes), (height, 1));
    // Inserting a present pair reads the path and writes nothing.
    let before = t.storage().stats();
    t.insert(3001, 7).unwrap();
    let d = t.storage().stats().delta(&before);
    assert_eq!((d.physical_reads, d.physical_writes), (height, 0));
}

/// `cached_levels=2` keeps the top two levels decoded (Wu et al. 2003 §5.1):
/// an uncached search then reads one page per level below them, and an
/// insert still writes its leaf through; `leaf_entries` caps the leaves.
#[test]
fn cached_top_levels_cost_no_reads_and_leaves_hold_their_cap() {
    let params = Params::parse([
        "cache=none",
        "cached_levels=2",
        "fanout=21",
        "leaf_entries=20",
    ])
    .unwrap();
    let mut t = create_index("btree", ftl(), 4096, params).unwrap();
    for i in 0..5000u64 {
        t.insert(i * 3, i).unwrap();
    }
    let s = t.stats();
    let height = s.get("height").unwrap() as u64;
    assert!(height >= 3, "{s:?}");
    assert_eq!(s.get("leaf_capacity"), Some(20.0));
    assert!(s.get("cached_nodes").unwrap() >= 2.0, "{s:?}");
    let mut out = Vec::new();
    let before = t.storage().stats();
    // Not the first key of a leaf, whose search would also read the leaf
    // before it (the descent looks for its lowest value).
    t.get(3003, &mut out).unwrap();
    let d = t.storage().stats().delta(&before);
    assert_eq!(out, vec![1001]);
    assert_eq!(
        (d.physical_reads, d.physical_writes),
        (height - 2, 0),
        "{s:?}"
    );
}

/// An update whose two pairs fall in one leaf is one descent and one leaf
/// write (`btree::update`), not a delete's descent and an insert's.
#[test]
fn an_uncached_update_in_one_leaf_reads_the_path_once_and_writes_the_leaf_once() {
    let params = Params::parse(["cache=none"]).unwrap();
    let mut t = create_index("btree", ftl(), 4096, params).unwrap();
    for i in 0..5000u64 {
        t.insert(i * 3, i).unwrap();
    }
    let height = t.stats().get("height").unwrap() as u64;
    let before = t.storage().stats();
    assert!(t.update(3003, 1001, 9).unwrap());
    let d = t.storage().stats().delta(&before);
    assert_eq!((d.physical_reads, d.physical_writes), (height, 1));
    let mut out = Vec::new();
    t.get(3003, &mut out).unwrap();
    assert_eq!(out, vec![9]);
    // An absent old pair changes nothing in place: the new pair is still
    // inserted, as delete-then-insert does.
    assert!(!t.update(3003, 1001, 10).unwrap());
    t.get(3003, &mut out).unwrap();
    assert_eq!(out, vec![9, 10]);
}

/// One key with values across many leaves: an update moving a value past
/// the leaves' separators takes the delete-then-insert path, and every
/// answer matches a model.
#[test]
fn updates_of_a_key_spread_over_leaves_match_a_model() {
    let params = Params::parse(["cache=none", "fanout=8"]).unwrap();
    let mut t = create_index("btree", ftl(), 4096, params).unwrap();
    let mut model = std::collections::BTreeSet::new();
    for v in 0..400u64 {
        t.insert(7, v * 2).unwrap();
        model.insert((7u64, v * 2));
    }
    assert!(t.stats().get("height").unwrap() >= 3.0);
    let mut x = 12345u64;
    for _ in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let old = (x >> 33) % 800;
        let new = (x >> 13) % 800;
        let found = t.update(7, old, new).unwrap();
        let expect = model.remove(&(7, old));
        model.insert((7, new));
        assert_eq!(found, expect, "update(7, {old}, {new})");
    }
    let mut out = Vec::new();
    t.get(7, &mut out).unwrap();
    let want: Vec<u64> = model.iter().map(|&(_, v)| v).collect();
    assert_eq!(out, want);
}
