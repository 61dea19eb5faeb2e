//! `latree` (the Buffered-B+ tree) against the oracle, with each emptying
//! policy (`adapt`, `simple`, `off`): small fanouts, subtree heights 1 to
//! 3, small buffer limits and pools, so that buffers empty through several
//! levels, fill their partitions, split and merge with their subtree roots
//! and follow the root when it grows or collapses; on a raw chip (its node
//! log and buffer partitions), a RAM disk, the FTL and a real file, with
//! flushes and reopens.

mod common;

use common::{check, check_on_file, ftl, ops, ram, raw};
use flashix::index::Params;
use flashix::store::create_index;
use proptest::prelude::*;

const POLICIES: [&str; 3] = ["adapt=adapt", "adapt=simple", "adapt=off"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn small_buffers_deep_trees_on_a_ram_disk(ops in ops(500, 120)) {
        for p in POLICIES {
            check("latree", &["fanout=4", "subtree_height=2", "max_buffer_bytes=200", p], 4096, ram, &ops)?;
        }
    }

    #[test]
    fn every_level_buffered(ops in ops(400, 80)) {
        for p in POLICIES {
            check("latree", &["fanout=4", "subtree_height=1", "max_buffer_bytes=120", p], 4096, ram, &ops)?;
        }
    }

    #[test]
    fn three_level_subtrees(ops in ops(500, 200)) {
        check("latree", &["fanout=4", "subtree_height=3", "max_buffer_bytes=300", "adapt=adapt"], 4096, ram, &ops)?;
        check("latree", &["fanout=4", "subtree_height=3", "max_buffer_bytes=300", "adapt=off"], 4096, ram, &ops)?;
    }

    #[test]
    fn whole_page_frames_in_the_pool(ops in ops(400, 150)) {
        check("latree", &["fanout=4", "max_buffer_bytes=250", "buffer_pool=pages"], 4096, ram, &ops)?;
        check("latree", &["fanout=6", "buffer_pool=pages", "log_blocks=8", "partition_blocks=1"], 8192, || raw(64), &ops)?;
    }

    #[test]
    fn many_duplicates_of_few_keys(ops in ops(500, 6)) {
        check("latree", &["fanout=4", "max_buffer_bytes=150", "adapt=simple"], 4096, ram, &ops)?;
    }

    #[test]
    fn on_a_raw_chip(ops in ops(400, 200)) {
        for p in POLICIES {
            check("latree", &["fanout=6", "max_buffer_bytes=400", "log_blocks=8", "partition_blocks=1", p], 8192, || raw(64), &ops)?;
        }
    }

    #[test]
    fn paper_settings_over_the_ftl(ops in ops(400, 300)) {
        check("latree", &[], 16384, ftl, &ops)?;
        check("latree", &["adapt=adapt"], 8192, ftl, &ops)?;
    }

    #[test]
    fn two_byte_keys(ops in ops(300, 60_000)) {
        check("latree", &["fanout=5", "max_buffer_bytes=300", "key_bytes=2"], 4096, ram, &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(300, 1 << 40)) {
        check("latree", &["fanout=5", "max_buffer_bytes=300", "key_bytes=8", "value_bytes=8"], 4096, ram, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(200, 150)) {
        for p in POLICIES {
            check_on_file("latree", &["fanout=6", "max_buffer_bytes=300", p], 16384, &ops)?;
        }
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    let seq = common::churn();
    for p in POLICIES {
        check(
            "latree",
            &["fanout=4", "max_buffer_bytes=300", p],
            4096,
            ram,
            &seq,
        )
        .unwrap();
        check("latree", &["fanout=8", p], 8192, ftl, &seq).unwrap();
        check(
            "latree",
            &["fanout=8", "log_blocks=16", p],
            8192,
            || raw(128),
            &seq,
        )
        .unwrap();
    }
}

fn p(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}

/// Write-intensive work stays in the buffers: far fewer page writes than
/// inserts, where the B+-tree writes about one node per insert (§6.3.3).
#[test]
fn buffering_saves_page_writes_over_the_btree() {
    let run = |name: &str, set: &[&str]| {
        let mut t = create_index(name, raw(1024), 64 << 10, p(set)).unwrap();
        for i in 0..20_000u64 {
            t.insert(i * 7919 % 10_000 + 1, i).unwrap();
        }
        t.flush().unwrap();
        let mut got = Vec::new();
        for k in (1..10_000).step_by(997) {
            t.get(k, &mut got).unwrap();
            let want: Vec<u64> = (0..20_000u64)
                .filter(|i| i * 7919 % 10_000 + 1 == k)
                .collect();
            assert_eq!(got, want, "{name} key {k}");
        }
        (t.storage().stats().physical_writes, t.stats())
    };
    let (bt, _) = run("btree", &["fanout=8", "cache=lru"]);
    let (la, s) = run("latree", &[]);
    assert!(la * 2 < bt, "latree {la} page writes, btree {bt}: {s:?}");
    // Buffers emptied during the run, not only at the final flush.
    let during = s.get("empties_full").unwrap() + s.get("empties_partition").unwrap();
    assert!(during > 0.0, "{s:?}");
}

/// A lookup-heavy workload makes the adaptive policies empty buffers at
/// lookups; with `adapt=off` lookups never empty one.
#[test]
fn lookups_drive_adaptive_emptying() {
    for (policy, expect) in [
        ("adapt=adapt", true),
        ("adapt=simple", true),
        ("adapt=off", false),
    ] {
        let mut t = create_index("latree", raw(1024), 16 << 10, p(&[policy])).unwrap();
        let mut got = Vec::new();
        for i in 0..6_000u64 {
            t.insert(i * 7919 % 5_000, i).unwrap();
            for j in 0..3 {
                t.get((i * 31 + j * 977) % 5_000, &mut got).unwrap();
            }
        }
        let s = t.stats();
        let adaptive = s.get("empties_adapt").unwrap();
        assert_eq!(adaptive > 0.0, expect, "{policy}: {s:?}");
    }
}

/// The breakdown of buffer pages by where they go (the leaf subtrees'
/// buffers and those above) accounts for every page and entry written,
/// and no class writes more entries than were appended to it.
#[test]
fn buffer_writes_by_class_add_up() {
    for set in [
        &["fanout=4", "subtree_height=2"][..],
        &["fanout=4", "subtree_height=1"],
    ] {
        let mut t = create_index("latree", raw(1024), 16 << 10, p(set)).unwrap();
        let mut got = Vec::new();
        for i in 0..20_000u64 {
            t.insert(i * 7919 % 9_001, i).unwrap();
            if i % 10 == 0 {
                t.get(i * 31 % 9_001, &mut got).unwrap();
            }
        }
        t.flush().unwrap();
        let s = t.stats();
        let g = |k: &str| s.get(k).unwrap_or_else(|| panic!("{k} missing: {s:?}"));
        let (upper, leaf) = ("upper", "leaf_subtrees");
        assert!(g("buffer_pages_written") > 0.0, "{set:?}: {s:?}");
        assert_eq!(
            g(&format!("buffer_pages_written_{upper}"))
                + g(&format!("buffer_pages_written_{leaf}")),
            g("buffer_pages_written"),
            "{set:?}"
        );
        for class in [upper, leaf] {
            let written = g(&format!("buffer_entries_written_{class}"));
            assert!(
                written <= g(&format!("buffer_entries_appended_{class}")),
                "{set:?} {class}"
            );
        }
        // Every insert enters the root's buffer; a flush or a lack of
        // partitions may take entries to the leaves past the buffers below.
        let appended = g(&format!("buffer_entries_appended_{upper}"))
            + g(&format!("buffer_entries_appended_{leaf}"));
        assert!(appended >= 20_000.0, "{set:?}: {s:?}");
        assert!(
            g(&format!("buffer_entries_appended_{leaf}")) > 0.0,
            "{set:?}"
        );
        assert!(
            g(&format!("buffer_entries_appended_{upper}")) > 0.0,
            "{set:?}"
        );
    }
}

/// Invalid parameters are clear errors.
#[test]
fn bad_parameters_are_errors() {
    for set in [
        &["adapt=sometimes"][..],
        &["subtree_height=0"],
        &["node_cache_share=1.5"],
        &["partition_blocks=0"],
    ] {
        let e = create_index("latree", raw(256), 16 << 10, p(set));
        assert!(e.is_err(), "{set:?} was accepted");
    }
    // Two pages of memory cannot hold a node cache and a pool.
    assert!(create_index("latree", ram(), 600, p(&[])).is_err());
}

/// A chip with few buffer partitions for many subtrees: buffers are
/// emptied (or flushed down with the buffers below them) to make room,
/// and every answer stays right.
#[test]
fn few_partitions_for_many_buffers() {
    use common::ModelOp;
    let mut seq = Vec::new();
    for i in 0..6_000u64 {
        seq.push(ModelOp::Insert(i * 7919 % 3_001, i % 7));
        if i % 4 == 0 {
            seq.push(ModelOp::Get(i * 31 % 3_001));
        }
        if i % 9 == 0 {
            seq.push(ModelOp::Delete(i * 13 % 3_001, i % 7));
        }
        if i % 1_500 == 0 {
            seq.push(ModelOp::Reopen);
        }
    }
    for p in POLICIES {
        let set = ["fanout=4", "log_blocks=14", "partition_blocks=1", p];
        check("latree", &set, 16384, || raw(64), &seq).unwrap();
        let mut t = create_index("latree", raw(64), 16384, super_p(&set)).unwrap();
        let mut got = Vec::new();
        for op in &seq {
            match *op {
                ModelOp::Insert(k, v) => t.insert(k, v).unwrap(),
                ModelOp::Get(k) => t.get(k, &mut got).unwrap(),
                ModelOp::Delete(k, v) => {
                    t.delete(k, v).unwrap();
                }
                _ => {}
            }
        }
        // The adaptive policies keep many small buffers, each holding a
        // partition: room is made for them.
        let s = t.stats();
        if p != "adapt=off" {
            assert!(s.get("empties_space").unwrap() > 0.0, "{p}: {s:?}");
        }
    }
}

fn super_p(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}
