//! `bftl` and `flashdb` (BFTL with FlashDB's node modes) against the
//! oracle: small nodes, small reservation buffers and a small compaction
//! bound, so that splits, merges, batches, compactions and mode switches
//! are frequent; on a RAM disk, the FTL and a real file, with reopen.

mod common;

use common::{check, check_on_file, ftl, ops, ram};
use flashix::index::Params;
use flashix::store::create_index;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_tree_small_buffer(ops in ops(400, 64)) {
        check("bftl", &["fanout=4", "reservation_buffer=5", "compaction_c=2"], 4096, ram, &ops)?;
    }

    #[test]
    fn paper_defaults_over_the_ftl(ops in ops(400, 300)) {
        check("bftl", &["fanout=21"], 8192, ftl, &ops)?;
    }

    #[test]
    fn with_an_lru_node_cache(ops in ops(400, 300)) {
        check("bftl", &["fanout=6", "reservation_buffer=9", "cache=wt-lru", "cached_levels=0"], 4096, ram, &ops)?;
        check("bftl", &["fanout=16", "cache=wt-lru"], 8192, ftl, &ops)?;
    }

    #[test]
    fn flashdb_small_tree_small_buffer(ops in ops(400, 64)) {
        check("flashdb", &["fanout=4", "reservation_buffer=3", "compaction_c=2", "cached_levels=0"], 4096, ram, &ops)?;
        check("flashdb", &["cached_levels=1"], 8192, ftl, &ops)?;
    }

    #[test]
    fn flashdb_log_inserts_unread(ops in ops(400, 64)) {
        check("flashdb", &["fanout=4", "reservation_buffer=3", "compaction_c=2", "cached_levels=0", "log_insert_reads_leaf=false"], 4096, ram, &ops)?;
        check("flashdb", &["log_insert_reads_leaf=false", "cached_levels=1"], 8192, ftl, &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(300, 1 << 40)) {
        check("bftl", &["fanout=6", "reservation_buffer=7", "key_bytes=8", "value_bytes=8"], 4096, ram, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(200, 100)) {
        check_on_file("bftl", &["fanout=8", "reservation_buffer=10"], 8192, &ops)?;
        check_on_file("flashdb", &["fanout=6", "reservation_buffer=4", "cached_levels=0"], 8192, &ops)?;
        check_on_file("flashdb", &["fanout=6", "reservation_buffer=4", "cached_levels=0", "log_insert_reads_leaf=false"], 8192, &ops)?;
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    let seq = common::churn();
    check(
        "bftl",
        &["fanout=5", "reservation_buffer=13", "compaction_c=3"],
        4096,
        ram,
        &seq,
    )
    .unwrap();
}

#[test]
fn lambda_is_20_with_512_byte_sectors_and_batches_pack_sectors() {
    let params = Params::parse(["fanout=21"]).unwrap();
    let mut t = create_index("bftl", ftl(), 8192, params).unwrap();
    assert_eq!(t.stats().get("lambda"), Some(20.0));
    // 60 ascending inserts into one leaf: one batch, 60 index units, so at
    // most ⌈(60 + split units) / 20⌉ sectors rather than 60 node writes.
    let before = t.storage().stats();
    for i in 0..60u64 {
        t.insert(i, i).unwrap();
    }
    let d = t.storage().stats().delta(&before);
    let s = t.stats();
    assert_eq!(s.get("reservation_buffer_flushes"), Some(1.0));
    assert!(d.logical_writes < 15, "{d:?} {s:?}");
    assert!(s.get("compactions").unwrap() >= 0.0);
}

#[test]
fn compaction_bounds_the_lists() {
    let params = Params::parse(["fanout=21", "reservation_buffer=10", "compaction_c=3"]).unwrap();
    let mut t = create_index("bftl", ftl(), 8192, params).unwrap();
    for i in 0..4000u64 {
        t.insert(i * 7919 % 100_003, i).unwrap();
    }
    let s = t.stats();
    assert!(s.get("compactions").unwrap() > 0.0, "{s:?}");
    // Every list holds at most C sectors after a commit: reads per node ≤ C.
    let nodes = s.get("splits").unwrap() + 1.0;
    assert!(
        s.get("ntt_entries").unwrap() <= 3.0 * (nodes + s.get("height").unwrap()),
        "{s:?}"
    );
}

#[test]
fn no_sector_list_is_longer_than_c_after_any_operation() {
    for c in [1usize, 2, 3, 5] {
        let set = [
            "fanout=8".to_string(),
            "reservation_buffer=7".to_string(),
            format!("compaction_c={c}"),
        ];
        let mut t = create_index(
            "bftl",
            ram(),
            8192,
            Params::parse(set.iter().map(String::as_str)).unwrap(),
        )
        .unwrap();
        for i in 0..3000u64 {
            let k = i * 7919 % 1009;
            if i % 4 == 3 {
                t.delete(k, i - 1).unwrap();
            } else {
                t.insert(k, i).unwrap();
            }
            let longest = t.stats().get("ntt_longest_list").unwrap();
            assert!(
                longest <= c as f64,
                "C = {c}, op {i}: a list of {longest} sectors"
            );
        }
        assert!(t.stats().get("compactions").unwrap() > 0.0);
    }
}

#[test]
fn a_node_cache_must_be_write_through() {
    for cache in ["cache=lru", "cache=mlru"] {
        assert!(create_index("bftl", ram(), 8192, Params::parse([cache]).unwrap()).is_err());
    }
    assert!(create_index(
        "bftl",
        ram(),
        8192,
        Params::parse(["cache=wt-lru"]).unwrap()
    )
    .is_ok());
}

/// FlashDB's modes: a phase of searches moves read nodes to disk mode
/// (their lists shrink to their image, so a search reads fewer sectors
/// than BFTL's), and a phase of inserts moves leaves back to log mode.
#[test]
fn flashdb_switches_modes_with_the_workload() {
    let params =
        || Params::parse(["fanout=21", "reservation_buffer=20", "cached_levels=0"]).unwrap();
    let mut reads = Vec::new();
    for name in ["bftl", "flashdb"] {
        let mut t = create_index(name, ftl(), 1 << 20, params()).unwrap();
        for i in 0..6000u64 {
            t.insert(i * 7919 % 100_003, i).unwrap();
        }
        t.flush().unwrap();
        let mut out = Vec::new();
        let before = t.storage().stats();
        for round in 0..3u64 {
            for i in (round..6000).step_by(7) {
                t.get(i * 7919 % 100_003, &mut out).unwrap();
                assert_eq!(out, vec![i], "{name}: key of insert {i}");
            }
        }
        reads.push(t.storage().stats().delta(&before).logical_reads);
        let s = t.stats();
        if name == "flashdb" {
            assert!(s.get("disk_mode_nodes").unwrap() > 0.0, "{s:?}");
            let to_disk = s.get("switches_to_disk").unwrap();
            for i in 0..6000u64 {
                t.insert(i * 7919 % 100_003 + 1, i).unwrap();
            }
            let s = t.stats();
            assert!(s.get("switches_to_log").unwrap() > 0.0, "{s:?}");
            assert!(s.get("switches_to_disk").unwrap() >= to_disk);
        } else {
            assert_eq!(s.get("disk_mode_nodes"), None);
        }
    }
    assert!(
        reads[1] < reads[0],
        "searches read {reads:?} sectors (bftl, flashdb)"
    );
}

/// `log_insert_reads_leaf=false`: FlashDB's log-mode inserts append their
/// index units without reading the leaf, so the same inserts read fewer
/// sectors, write the same units and leave the same content; BFTL, which
/// has no node modes, refuses the parameter.
#[test]
fn flashdb_log_inserts_unread_read_fewer_sectors() {
    let mut reads = Vec::new();
    let mut contents = Vec::new();
    for unread in ["true", "false"] {
        let set = [
            "fanout=21".to_string(),
            "cached_levels=0".to_string(),
            format!("log_insert_reads_leaf={unread}"),
        ];
        let params = Params::parse(set.iter().map(String::as_str)).unwrap();
        let mut t = create_index("flashdb", ftl(), 1 << 20, params).unwrap();
        let before = t.storage().stats();
        for i in 0..6000u64 {
            t.insert(i * 7919 % 100_003, i).unwrap();
        }
        t.flush().unwrap();
        reads.push(t.storage().stats().delta(&before).logical_reads);
        let mut all = Vec::new();
        t.range(0, u64::MAX, &mut all).unwrap();
        assert_eq!(all.len(), 6000, "log_insert_reads_leaf={unread}");
        assert_eq!(t.stats().get("entries"), Some(6000.0));
        contents.push(all);
    }
    assert_eq!(contents[0], contents[1]);
    assert!(
        reads[1] < reads[0],
        "inserts read {reads:?} sectors (reading the leaf, not)"
    );
    let refused = create_index(
        "bftl",
        ram(),
        8192,
        Params::parse(["log_insert_reads_leaf=false"]).unwrap(),
    );
    assert!(refused.is_err());
}

/// `deletes=blind` (Wu et al. 2003 §3.1): a delete only appends an invalidation
/// record, reading nothing until the buffer fills; a present pair is gone
/// after the commit, and an absent pair's record ("true", unlooked) leaves
/// the content unchanged.
#[test]
fn blind_deletes_read_nothing_and_keep_the_content() {
    let params = Params::parse(["fanout=21", "reservation_buffer=10", "deletes=blind"]).unwrap();
    let mut t = create_index("bftl", ftl(), 8192, params).unwrap();
    for i in 0..2_000u64 {
        t.insert(i * 7 % 2_003, i).unwrap();
    }
    t.flush().unwrap();
    let before = t.storage().stats();
    // Nine deletes: the buffer of ten does not fill, so no commit.
    for i in 0..9u64 {
        assert!(t.delete(i * 7 % 2_003, i).unwrap());
    }
    let d = t.storage().stats().delta(&before);
    assert_eq!(d.logical_reads, 0, "{d:?}");
    // An absent pair: answered `true` unlooked, and removes nothing.
    assert!(t.delete(5, 999_999).unwrap());
    t.flush().unwrap();
    let mut out = Vec::new();
    for i in 0..2_000u64 {
        t.get(i * 7 % 2_003, &mut out).unwrap();
        let want: Vec<u64> = if i < 9 { vec![] } else { vec![i] };
        assert_eq!(out, want, "key {}", i * 7 % 2_003);
    }
    // The checked default looks the pair up and answers exactly.
    let params = Params::parse(["fanout=21", "reservation_buffer=10"]).unwrap();
    let mut c = create_index("bftl", ftl(), 8192, params).unwrap();
    c.insert(1, 1).unwrap();
    assert!(!c.delete(1, 2).unwrap());
    assert!(c.delete(1, 1).unwrap());
    assert!(Params::parse(["deletes=maybe"])
        .map(|p| create_index("bftl", ftl(), 8192, p).is_err())
        .unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// `commit_order=key` applies a commit's records sorted by key; a key's
    /// records keep their order, so the content is the oracle's.
    #[test]
    fn commits_in_key_order(ops in ops(400, 64)) {
        check("bftl", &["fanout=4", "reservation_buffer=9", "compaction_c=2", "commit_order=key"], 4096, ram, &ops)?;
        check("bftl", &["fanout=21", "commit_order=key"], 8192, ftl, &ops)?;
    }
}

/// Issue #43: BFTL's and FlashDB's counted memory within 16 KiB, 64 KiB and
/// 1 MiB over insert-heavy, mixed and search-heavy workloads, with the
/// node translation table and the mode table in the budget and outside
/// it; with an uncapped `wt-lru` node cache, which takes what the rest
/// leaves.
#[test]
fn counted_memory_stays_within_every_budget() {
    common::budget::check_every_budget("bftl", &[], ftl, 1_000, 2_000);
    common::budget::check_every_budget("bftl", &["cache=wt-lru"], ftl, 1_000, 2_000);
    common::budget::check_every_budget("flashdb", &[], ftl, 1_000, 2_000);
}
