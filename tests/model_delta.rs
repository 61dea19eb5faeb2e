//! The delta schemes (`basic-delta`, `consolidation`, `ipl`) against the oracle:
//! small nodes, few delta pages per node and small memories, so that
//! consolidations, merges and evictions of log buffers are frequent; on a
//! RAM disk, the FTL, a real file and (IPL) a raw chip, with reopen.

mod common;

use common::{check, check_on_file, ftl, ops, ram, raw};
use flashix::index::Params;
use flashix::store::{create_index, open_index};
use proptest::prelude::*;

const SCHEMES: [&str; 3] = ["basic-delta", "consolidation", "ipl"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn small_nodes_on_a_ram_disk(ops in ops(400, 64)) {
        for name in SCHEMES {
            check(name, &["fanout=4", "max_deltas=2"], 4096, ram, &ops)?;
        }
    }

    #[test]
    fn paper_settings_over_the_ftl(ops in ops(400, 300)) {
        check("basic-delta", &["fanout=16"], 8192, ftl, &ops)?;
        check("consolidation", &["fanout=16"], 8192, ftl, &ops)?;
        check("ipl", &[], 8192, ftl, &ops)?;
    }

    #[test]
    fn ipl_on_a_raw_chip(ops in ops(400, 300)) {
        check("ipl", &["fanout=8", "log_buffers=2"], 8192, || raw(64), &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(300, 1 << 40)) {
        for name in SCHEMES {
            check(name, &["fanout=6", "key_bytes=8", "value_bytes=8"], 4096, ram, &ops)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(120, 100)) {
        for name in SCHEMES {
            check_on_file(name, &["fanout=8", "max_deltas=3"], 16384, &ops)?;
        }
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    let seq = common::churn();
    for name in SCHEMES {
        check(name, &["fanout=5", "max_deltas=2"], 4096, ram, &seq).unwrap();
        check(name, &["fanout=8"], 8192, ftl, &seq).unwrap();
    }
    check(
        "ipl",
        &["fanout=5", "log_buffers=1"],
        8192,
        || raw(64),
        &seq,
    )
    .unwrap();
}

fn stat(t: &dyn flashix::index::Index, name: &str) -> f64 {
    t.stats()
        .get(name)
        .unwrap_or_else(|| panic!("no stat {name}: {:?}", t.stats()))
}

#[test]
fn basic_delta_never_keeps_more_than_max_deltas_pages_per_node() {
    let params = Params::parse(["fanout=16", "max_deltas=2"]).unwrap();
    let mut t = create_index("basic-delta", ftl(), 4096, params).unwrap();
    for i in 0..5000u64 {
        t.insert(i * 7919 % 10_007, i).unwrap();
        if i % 50 == 0 {
            assert!(
                stat(&*t, "max_delta_pages") <= 2.0,
                "op {i}: {:?}",
                t.stats()
            );
        }
    }
    assert_eq!(stat(&*t, "max_delta_pages"), 2.0);
    // Records are packed: a page holds 28 deltas or two 213-byte bases.
    assert!(
        stat(&*t, "record_pages_written") * 2.0
            < stat(&*t, "deltas_written") + stat(&*t, "base_writes"),
        "{:?}",
        t.stats()
    );
    assert!(stat(&*t, "consolidations_bound") > 0.0);
    assert_eq!(stat(&*t, "consolidations_counter"), 0.0);
}

#[test]
fn consolidation_switches_modes_with_the_read_write_mix() {
    // A write-heavy phase builds delta chains; a read-heavy phase on the
    // same keys makes reading them cost more than the deltas saved, so the
    // counter consolidates them and later reads touch one page a node.
    let params = || Params::parse(["fanout=16"]).unwrap();
    let mut t = create_index("consolidation", ftl(), 2048, params()).unwrap();
    for i in 0..3000u64 {
        t.insert(i * 7919 % 10_007, i).unwrap();
    }
    let chains_after_writes = stat(&*t, "avg_delta_pages");
    let consolidated_by_writes = stat(&*t, "consolidations_counter");
    assert!(chains_after_writes > 0.5, "{:?}", t.stats());
    let mut out = Vec::new();
    for round in 0..20u64 {
        for i in 0..300u64 {
            t.get((i * 7919 + round) % 10_007, &mut out).unwrap();
        }
    }
    assert!(
        stat(&*t, "consolidations_counter") > consolidated_by_writes + 100.0,
        "{:?}",
        t.stats()
    );
    assert!(
        stat(&*t, "avg_delta_pages") < chains_after_writes / 2.0,
        "{:?}",
        t.stats()
    );
    // A write-heavy phase on the same nodes switches them back to logging
    // deltas: chains grow again and the counter leaves them alone.
    let consolidated_by_reads = stat(&*t, "consolidations_counter");
    let chains_after_reads = stat(&*t, "avg_delta_pages");
    let deltas_before = stat(&*t, "deltas_written");
    for i in 3000..6000u64 {
        t.insert(i * 7919 % 10_007, i).unwrap();
    }
    assert!(
        stat(&*t, "avg_delta_pages") > chains_after_reads,
        "{:?}",
        t.stats()
    );
    let new_deltas = stat(&*t, "deltas_written") - deltas_before;
    let new_consolidations = stat(&*t, "consolidations_counter") - consolidated_by_reads;
    assert!(new_deltas > 3.0 * new_consolidations, "{:?}", t.stats());
    // Basic Delta under the same phases keeps its chains.
    let mut b = create_index("basic-delta", ftl(), 2048, params()).unwrap();
    for i in 0..3000u64 {
        b.insert(i * 7919 % 10_007, i).unwrap();
    }
    for round in 0..20u64 {
        for i in 0..300u64 {
            b.get((i * 7919 + round) % 10_007, &mut out).unwrap();
        }
    }
    assert_eq!(stat(&*b, "consolidations_counter"), 0.0);
    assert!(stat(&*b, "avg_delta_pages") > stat(&*t, "avg_delta_pages"));
}

#[test]
fn ipl_merges_a_unit_when_its_log_area_fills() {
    // 8 node pages + 8 log pages per 16-page unit, one log buffer: every
    // insert into another leaf writes a log sector, so log areas fill.
    let params = Params::parse([
        "fanout=8",
        "node_pages_per_block=8",
        "log_pages_per_block=8",
        "log_buffers=1",
    ])
    .unwrap();
    let mut t = create_index("ipl", ram(), 8192, params).unwrap();
    let before = t.storage().stats();
    for i in 0..2000u64 {
        t.insert(i * 7919 % 10_007, i).unwrap();
    }
    let merges = stat(&*t, "ipl_merges");
    assert!(merges > 0.0, "{:?}", t.stats());
    assert!(stat(&*t, "log_sectors_written") > 8.0 * merges);
    // Over a RAM disk a merge "erases" by trimming the unit's pages.
    let d = t.storage().stats().delta(&before);
    assert!(d.logical_trims >= 16 * merges as u64, "{d:?}");
    let mut out = Vec::new();
    t.get(7919, &mut out).unwrap();
    assert_eq!(out, vec![1]);
}

#[test]
fn ipl_on_a_raw_chip_erases_blocks_and_survives_reopen() {
    let set = ["fanout=8", "log_buffers=2"];
    let mut t = create_index("ipl", raw(64), 8192, Params::parse(set).unwrap()).unwrap();
    for i in 0..3000u64 {
        t.insert(i * 31 % 4001, i).unwrap();
    }
    assert!(t.storage().stats().erases > 0);
    t.flush().unwrap();
    let storage = t.into_storage();
    let mut t = open_index("ipl", storage, 8192, Params::parse(set).unwrap()).unwrap();
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 3000);
}

#[test]
fn reopening_with_another_node_size_is_refused() {
    for name in SCHEMES {
        let mut t = create_index(name, ftl(), 8192, Params::parse(["fanout=8"]).unwrap()).unwrap();
        t.insert(1, 1).unwrap();
        t.flush().unwrap();
        let s = t.into_storage();
        let err = open_index(name, s, 8192, Params::parse(["fanout=12"]).unwrap())
            .err()
            .expect("another node size must be refused");
        assert!(
            matches!(&err, flashix::index::IndexError::Mismatch { parameter, .. } if parameter == "node_bytes"),
            "{name}: {err}"
        );
    }
}

#[test]
fn bad_configurations_are_refused() {
    let p = |s: &[&str]| Params::parse(s.iter().copied()).unwrap();
    assert!(create_index("basic-delta", raw(64), 8192, p(&[])).is_err());
    assert!(create_index("basic-delta", ftl(), 8192, p(&["fanout=60"])).is_err());
    assert!(create_index("consolidation", ftl(), 8192, p(&["max_deltas=0"])).is_err());
    assert!(create_index("ipl", raw(64), 8192, p(&["node_pages_per_block=8"])).is_err());
    assert!(create_index("ipl", ftl(), 8192, p(&["cache=lru"])).is_err());
}

#[test]
fn a_full_device_is_a_clean_error_that_loses_nothing() {
    use flashix::device::{ram::RamDisk, Storage};
    use flashix::index::IndexError;
    let small = || Storage::Pages(Box::new(RamDisk::new(512, 96)));
    for (name, storage) in [
        ("basic-delta", small()),
        ("consolidation", small()),
        ("ipl", Storage::Pages(Box::new(RamDisk::new(512, 32 * 6)))),
        ("ipl", raw(6)),
    ] {
        let mut t =
            create_index(name, storage, 4096, Params::parse(["fanout=8"]).unwrap()).unwrap();
        let mut inserted = Vec::new();
        let mut full = false;
        for i in 0..100_000u64 {
            let e = (i * 7919 % 100_003, i);
            match t.insert(e.0, e.1) {
                Ok(()) => inserted.push(e),
                Err(IndexError::Device(flashix::device::DeviceError::Full { .. })) => {
                    full = true;
                    break;
                }
                Err(other) => panic!("{name}: op {i}: {other}"),
            }
        }
        assert!(full, "{name}: the device never filled");
        assert!(inserted.len() > 50, "{name}: {}", inserted.len());
        // From then on every call is refused (`store::guard`); reopened
        // over the commit layer, each holds its last flush
        // (`tests/full_device.rs`).
        common::refuses_everything_after_full(t.as_mut()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Issue #43: the counted memory of Basic Delta, Consolidation and IPL
/// within 16 KiB, 64 KiB and 1 MiB over insert-heavy, mixed and
/// search-heavy workloads, with the node table in the budget (the node
/// cache and IPL's log buffers shrink as it grows) and outside it.
#[test]
fn counted_memory_stays_within_every_budget() {
    for name in ["basic-delta", "consolidation", "ipl"] {
        common::budget::check_every_budget(name, &[], common::ftl, 1_000, 2_000);
    }
}
