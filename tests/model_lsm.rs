//! `lsm` against the oracle: a small C0 and a small size ratio, so that
//! rolling merges run through several components at once, passes end and
//! start again, trees fill their extents and are sealed mid-pass, and
//! delete entries meet the entries they shadow; on a RAM disk, the FTL, an
//! SSD model and a real file, with reopen.

mod common;

use common::{check, check_on_file, ftl, ops, ram};
use flashix::device::DeviceSpec;
use flashix::index::Params;
use flashix::store::create_index;
use proptest::prelude::*;

const SMALL: [&str; 2] = ["c0_bytes=600", "ratio=3"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_c0_many_components(ops in ops(600, 64)) {
        check("lsm", &SMALL, 4096, ram, &ops)?;
    }

    #[test]
    fn many_duplicates_of_few_keys(ops in ops(600, 8)) {
        check("lsm", &SMALL, 4096, ram, &ops)?;
    }

    #[test]
    fn defaults_over_the_ftl(ops in ops(400, 1000)) {
        check("lsm", &[], 1 << 16, ftl, &ops)?;
    }

    #[test]
    fn pages_of_several_device_pages(ops in ops(400, 300)) {
        check("lsm", &["page_bytes=2048", "c0_bytes=4096", "ratio=8"], 1 << 14, ram, &ops)?;
        check("lsm", &["page_bytes=1024", "c0_bytes=2048", "ratio=4"], 1 << 14, ftl, &ops)?;
    }

    #[test]
    fn wide_entries(ops in ops(400, 1 << 40)) {
        check("lsm", &["c0_bytes=1200", "ratio=4", "key_bytes=8", "value_bytes=8"], 8192, ram, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(300, 200)) {
        check_on_file("lsm", &["c0_bytes=8192", "ratio=4"], 1 << 16, &ops)?;
    }

    #[test]
    fn on_the_ssd_model(ops in ops(300, 200)) {
        let ssd = || DeviceSpec::parse("samsung-ssd32", &[("page_size".into(), "512".into())]).unwrap().build().unwrap();
        check("lsm", &SMALL, 4096, ssd, &ops)?;
    }
}

#[test]
fn many_inserts_and_deletes_with_reopen() {
    check("lsm", &SMALL, 4096, ram, &common::churn()).unwrap();
}

/// Inserts reach the components by rolling merges: far fewer page writes
/// than inserts, and every component within its capacity between
/// operations (O'Neil et al. §3).
#[test]
fn rolling_merges_keep_components_within_capacity() {
    let mut t = create_index("lsm", ram(), 4096, Params::parse(SMALL).unwrap()).unwrap();
    for i in 0..20_000u64 {
        t.insert(i * 7919 % 1_000_003, i).unwrap();
    }
    let s = t.stats();
    let components = s.get("components").unwrap() as usize;
    assert!(components >= 5, "{s:?}");
    let mut cap = s.get("c0_capacity").unwrap();
    for i in 1..components {
        cap *= 3.0;
        let n = s.get(&format!("c{i}_entries")).unwrap();
        assert!(n <= cap, "C{i}: {n} entries over {cap}: {s:?}");
        assert!(s.get(&format!("merge_steps_into_c{i}")).unwrap() > 0.0);
    }
    let w = t.storage().stats().logical_writes;
    assert!(w < 20_000, "{w} page writes for 20,000 inserts");
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 20_000);
}

#[test]
fn a_delete_entry_shadows_and_then_meets_its_entry() {
    let mut t = create_index("lsm", ram(), 4096, Params::parse(SMALL).unwrap()).unwrap();
    for i in 0..2000u64 {
        t.insert(i, i).unwrap();
    }
    for i in 0..1000u64 {
        assert!(t.delete(i, i).unwrap());
        assert!(!t.delete(i, i).unwrap());
    }
    let mut out = Vec::new();
    t.range(0, 1999, &mut out).unwrap();
    assert_eq!(out, (1000..2000).map(|i| (i, i)).collect::<Vec<_>>());
    // Uniform keys, as rolling merges expect: passes end and start again.
    for i in 0..20_000u64 {
        t.insert(10_000 + i * 7919 % 1_000_003, i).unwrap();
    }
    assert!(
        t.stats().get("dropped_delete_entries").unwrap() > 0.0,
        "{:?}",
        t.stats()
    );
    t.range(0, 1999, &mut out).unwrap();
    assert_eq!(out, (1000..2000).map(|i| (i, i)).collect::<Vec<_>>());
}

#[test]
fn bad_parameters_are_clear_errors() {
    let p = |s: &[&str]| Params::parse(s.iter().copied()).unwrap();
    assert!(create_index("lsm", ram(), 4096, p(&["ratio=1"])).is_err());
    assert!(create_index("lsm", ram(), 4096, p(&["c0_bytes=100"])).is_err());
    assert!(create_index("lsm", ram(), 1000, p(&[])).is_err());
    assert!(create_index("lsm", common::raw(64), 1 << 16, p(&[])).is_err());
    assert!(create_index("lsm", ram(), 4096, p(&["fanout=3"])).is_err());
    assert!(create_index("lsm", ram(), 1 << 16, p(&["page_bytes=700"])).is_err());
    assert!(create_index("lsm", ram(), 1 << 16, p(&["page_bytes=256"])).is_err());
}

/// Issue #43: C0, the merge buffers and the page cache share the budget,
/// so the count stays within it after every operation, at 16 KiB, 64 KiB
/// and 1 MiB, inserting, mixed and searching; the same with
/// `tables=outside` (the LSM-tree has no data-bound table).
#[test]
fn memory_stays_within_the_budget() {
    let peaks = common::budget::stays_within_budget("lsm", &[], common::ftl, 6_000);
    // The budget is used, not left idle: the cache takes what is left.
    assert!(peaks[1] > 60 << 10, "{peaks:?}");
    common::budget::stays_within_budget("lsm", &["tables=outside", "ratio=4"], ram, 3_000);
}
