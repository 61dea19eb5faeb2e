//! `mbtree` and its variants against the oracle: small BPBs so that flushes
//! (Unique Path Search), leaf splits and leaf-size changes are frequent;
//! duplicate keys, deletes, updates, ranges and reopen after `flush()`; on a
//! RAM disk, the FTL and a real file.

mod common;

use common::{check, check_on_file, ftl, ops, ram};
use flashix::index::Params;
use flashix::store::create_index;
use proptest::prelude::*;

const VARIANTS: [&[&str]; 5] = [
    &[],
    &["lnh=false", "leaf_pages=3"],
    &["kiv=false"],
    &["fei=true"],
    &["kiv=false", "fei=true", "leaf_pages=2"],
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_variant_on_a_ram_disk(ops in ops(400, 200)) {
        for v in VARIANTS {
            check("mbtree", v, 600, ram, &ops)?;
        }
    }

    #[test]
    fn over_the_ftl_with_the_paper_share(ops in ops(400, 3_000_000)) {
        check("mbtree", &[], 4096, ftl, &ops)?;
        check("mbtree", &["leaf_pages=1", "max_leaf_pages=3"], 2048, ftl, &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(300, 1 << 40)) {
        check("mbtree", &["key_bytes=8", "value_bytes=8"], 1024, ram, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(150, 1000)) {
        check_on_file("mbtree", &[], 2048, &ops)?;
        check_on_file("mbtree", &["lnh=false"], 2048, &ops)?;
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    let seq = common::churn();
    for v in VARIANTS {
        check("mbtree", v, 1024, ram, &seq).unwrap();
    }
    check("mbtree", &[], 4096, ftl, &seq).unwrap();
}

#[test]
fn leaf_size_adapts_and_is_reported() {
    let params = Params::parse(["leaf_pages=1"]).unwrap();
    let mut t = create_index("mbtree", ftl(), 20 * 1024, params).unwrap();
    for i in 0..60_000u64 {
        t.insert(i * 2_654_435_761 % 3_000_001, i).unwrap();
    }
    let s = t.stats();
    // Started at one page; dense headers with an interval of 1 grow it.
    assert!(s.get("leaf_grows").unwrap() > 0.0, "{s:?}");
    assert!(s.get("leaf_size_avg").unwrap() > 1.5, "{s:?}");
    assert!(s.get("leaf_size_std").unwrap() >= 0.0);
    // Flushes carry many task entries each.
    assert!(s.get("avg_ftes").unwrap() > 2.0, "{s:?}");
}

#[test]
fn a_search_reads_the_header_and_one_leaf_page() {
    let params = Params::parse(Vec::<&str>::new()).unwrap();
    let mut t = create_index("mbtree", ftl(), 20 * 1024, params).unwrap();
    for i in 0..30_000u64 {
        t.insert(i * 2_654_435_761 % 3_000_001, i).unwrap();
    }
    t.flush().unwrap();
    let height = t.stats().get("height").unwrap() as u64;
    let mut out = Vec::new();
    let before = t.storage().stats();
    let probes = 200u64;
    for i in 0..probes {
        t.get(i * 97 * 2_654_435_761 % 3_000_001, &mut out).unwrap();
    }
    let reads = t.storage().stats().delta(&before).logical_reads;
    // Internal nodes (at most height - 1, fewer when cached) + LNH + about
    // one leaf page (§4.8).
    assert!(
        reads <= probes * (height + 1) + probes / 4,
        "{reads} reads, height {height}"
    );
}

#[test]
fn one_flush_can_split_the_root_leaf_into_more_nodes_than_a_root_holds() {
    // A BPB of 6,600 TEs and one-page leaves of 61 entries: the first flush
    // sends 5,000 entries to the root leaf, which splits into 82 leaves,
    // more than one internal node's 41 children.
    let seq: Vec<common::ModelOp> = (0..5000u64)
        .map(|i| common::ModelOp::Insert(i * 7919 % 100_003, i))
        .chain([common::ModelOp::Reopen, common::ModelOp::Range(0, 50_000)])
        .collect();
    check(
        "mbtree",
        &["leaf_pages=1", "max_leaf_pages=1"],
        100_000,
        ram,
        &seq,
    )
    .unwrap();
}
