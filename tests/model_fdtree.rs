//! `fdtree` against the oracle: a small head tree and a small size ratio,
//! so that merges cascade through several levels, fences and internal
//! fences are exercised, and filter entries meet their phantoms; on a RAM
//! disk, the FTL, an SSD model and a real file, with reopen.

mod common;

use common::{check, check_on_file, ftl, ops, ram};
use flashix::device::DeviceSpec;
use flashix::index::Params;
use flashix::store::create_index;
use proptest::prelude::*;

const SMALL: [&str; 2] = ["head_bytes=600", "k=3"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_head_many_levels(ops in ops(600, 64)) {
        check("fdtree", &SMALL, 4096, ram, &ops)?;
    }

    #[test]
    fn many_duplicates_of_few_keys(ops in ops(600, 8)) {
        check("fdtree", &SMALL, 4096, ram, &ops)?;
    }

    #[test]
    fn defaults_over_the_ftl(ops in ops(400, 1000)) {
        check("fdtree", &[], 1 << 16, ftl, &ops)?;
    }

    #[test]
    fn run_pages_of_several_device_pages(ops in ops(400, 300)) {
        check("fdtree", &["page_bytes=2048", "head_bytes=4096", "k=8"], 1 << 14, ram, &ops)?;
        check("fdtree", &["page_bytes=1024", "head_bytes=2048", "k=4"], 1 << 14, ftl, &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(400, 1 << 40)) {
        check("fdtree", &["head_bytes=1200", "k=4", "key_bytes=8", "value_bytes=8"], 8192, ram, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(300, 200)) {
        check_on_file("fdtree", &["head_bytes=8192", "k=4"], 1 << 16, &ops)?;
    }

    #[test]
    fn on_the_ssd_model(ops in ops(300, 200)) {
        let ssd = || DeviceSpec::parse("samsung-ssd32", &[("page_size".into(), "512".into())]).unwrap().build().unwrap();
        check("fdtree", &SMALL, 4096, ssd, &ops)?;
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    check("fdtree", &SMALL, 4096, ram, &common::churn()).unwrap();
}

/// Inserts go to the head tree and reach the runs by merges: far fewer
/// page writes than inserts, each merge written sequentially, and levels
/// within their capacities (Li et al. 2009 §II-C).
#[test]
fn merges_cascade_and_keep_levels_within_capacity() {
    let mut t = create_index("fdtree", ram(), 4096, Params::parse(SMALL).unwrap()).unwrap();
    for i in 0..20_000u64 {
        t.insert(i * 7919 % 1_000_003, i).unwrap();
    }
    let s = t.stats();
    let levels = s.get("levels").unwrap() as usize;
    assert!(levels >= 5, "{s:?}");
    let head = s.get("head_capacity").unwrap();
    let mut cap = head;
    for i in 1..levels {
        cap *= 3.0;
        let n = s.get(&format!("level{i}_entries")).unwrap();
        assert!(n <= cap, "level {i}: {n} entries over {cap}: {s:?}");
    }
    let w = t.storage().stats().logical_writes;
    assert!(w < 20_000, "{w} page writes for 20,000 inserts");
    assert!(s.get("fences").unwrap() > 0.0);
}

#[test]
fn a_delete_meets_its_phantom_in_a_merge() {
    let mut t = create_index("fdtree", ram(), 4096, Params::parse(SMALL).unwrap()).unwrap();
    for i in 0..2000u64 {
        t.insert(i, i).unwrap();
    }
    for i in 0..1000u64 {
        assert!(t.delete(i, i).unwrap());
        assert!(!t.delete(i, i).unwrap());
    }
    for i in 0..3000u64 {
        t.insert(10_000 + i, i).unwrap();
    }
    assert!(t.stats().get("annihilated_pairs").unwrap() > 0.0);
    let mut out = Vec::new();
    t.range(0, 1999, &mut out).unwrap();
    assert_eq!(out, (1000..2000).map(|i| (i, i)).collect::<Vec<_>>());
}

#[test]
fn bad_parameters_are_clear_errors() {
    let p = |s: &[&str]| Params::parse(s.iter().copied()).unwrap();
    assert!(create_index("fdtree", ram(), 4096, p(&["k=60"])).is_err());
    assert!(create_index("fdtree", ram(), 4096, p(&["head_bytes=100"])).is_err());
    assert!(create_index("fdtree", ram(), 1000, p(&[])).is_err());
    assert!(create_index("fdtree", common::raw(64), 1 << 16, p(&[])).is_err());
    assert!(create_index("fdtree", ram(), 4096, p(&["fanout=3"])).is_err());
    assert!(create_index("fdtree", ram(), 1 << 16, p(&["page_bytes=700"])).is_err());
    assert!(create_index("fdtree", ram(), 1 << 16, p(&["page_bytes=256"])).is_err());
}

/// Issue #43: the head and the page cache share the budget, so the count
/// stays within it after every operation, at 16 KiB, 64 KiB and 1 MiB,
/// inserting, mixed and searching; the same with `tables=outside` (the
/// FD-tree has no data-bound table).
#[test]
fn memory_stays_within_the_budget() {
    let peaks = common::budget::stays_within_budget("fdtree", &[], common::ftl, 6_000);
    assert!(peaks[1] > 48 << 10, "{peaks:?}");
    common::budget::stays_within_budget("fdtree", &["tables=outside", "k=4"], common::ram, 3_000);
}
