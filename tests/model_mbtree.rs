//! `mbtree` and its variants against the oracle: small BPBs so that flushes
//! (Unique Path Search), leaf splits and leaf-size changes are frequent;
//! duplicate keys, deletes, updates, ranges and reopen after `flush()`; on a
//! RAM disk, the FTL and a real file. With versions of keys
//! (`versions=key`), against a map: blind upserts of repeated keys, a
//! lookup that stops at the BPB, the flag recorded in the file.

mod common;

use std::collections::BTreeMap;

use common::{check, check_on_file, ftl, ops, ram};
use flashix::device::file::FileDevice;
use flashix::device::Storage;
use flashix::index::{Index, IndexError, Params};
use flashix::store::{create_index, open_index};
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

// ---- versions of keys (`versions=key`, issue #45) -------------------------

/// An operation on an MB-Tree of versions of keys; the oracle is a map.
#[derive(Clone, Debug)]
enum VersionOp {
    /// `Index::upsert`: blind.
    Upsert(u64, u64),
    /// `Index::insert`, which is an upsert here.
    Insert(u64, u64),
    /// `Index::delete`: true when the key's value is this one.
    Delete(u64, u64),
    Update(u64, u64, u64),
    Get(u64),
    Range(u64, u64),
    Flush,
    /// Flush, drop, open the file again (without `versions`: the file says).
    Reopen,
}

/// Few keys and values, so that keys repeat, deletes hit and miss.
fn version_ops(max_len: usize, keys: u64) -> impl Strategy<Value = Vec<VersionOp>> {
    let vals = 6u64;
    let op = prop_oneof![
        6 => (0..keys, 0..vals).prop_map(|(k, v)| VersionOp::Upsert(k, v)),
        2 => (0..keys, 0..vals).prop_map(|(k, v)| VersionOp::Insert(k, v)),
        4 => (0..keys, 0..vals).prop_map(|(k, v)| VersionOp::Delete(k, v)),
        1 => (0..keys, 0..vals, 0..vals).prop_map(|(k, o, n)| VersionOp::Update(k, o, n)),
        3 => (0..keys).prop_map(VersionOp::Get),
        1 => (0..keys, 0..keys / 3 + 1).prop_map(|(lo, len)| VersionOp::Range(lo, lo + len)),
        1 => Just(VersionOp::Flush),
        1 => Just(VersionOp::Reopen),
    ];
    proptest::collection::vec(op, 1..max_len)
}

fn versions_params(set: &[&str], with_versions: bool) -> Params {
    let mut all = set.to_vec();
    if with_versions {
        all.push("versions=key");
    }
    Params::parse(all).unwrap()
}

/// Runs `ops` on an MB-Tree of versions of keys on a real file of
/// 512-byte pages (leaf splits are frequent) with `memory` bytes (a BPB
/// of a few dozen TEs: many flushes), against a `BTreeMap`.
fn check_versions(set: &[&str], memory: usize, ops: &[VersionOp]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("versions.db");
    let file = FileDevice::create(&path, 512, 0).unwrap();
    let storage = Storage::Pages(Box::new(file));
    let fail = |ctx: &str, e: IndexError| TestCaseError::fail(format!("{ctx}: {e}"));
    let mut t = create_index("mbtree", storage, memory, versions_params(set, true))
        .map_err(|e| fail("create", e))?;
    prop_assert!(t.versions_by_key());
    let mut model: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut values, mut entries) = (Vec::new(), Vec::new());
    for (i, op) in ops.iter().enumerate() {
        let ctx = format!("op {i}: {op:?}");
        match *op {
            VersionOp::Upsert(k, v) => {
                t.upsert(k, v).map_err(|e| fail(&ctx, e))?;
                model.insert(k, v);
            }
            VersionOp::Insert(k, v) => {
                t.insert(k, v).map_err(|e| fail(&ctx, e))?;
                model.insert(k, v);
            }
            VersionOp::Delete(k, v) => {
                let want = model.get(&k) == Some(&v);
                if want {
                    model.remove(&k);
                }
                prop_assert_eq!(t.delete(k, v).map_err(|e| fail(&ctx, e))?, want, "{}", ctx);
            }
            VersionOp::Update(k, old, new) => {
                let want = model.insert(k, new) == Some(old);
                let got = t.update(k, old, new).map_err(|e| fail(&ctx, e))?;
                prop_assert_eq!(got, want, "{}", ctx);
            }
            VersionOp::Get(k) => {
                t.get(k, &mut values).map_err(|e| fail(&ctx, e))?;
                let want: Vec<u64> = model.get(&k).copied().into_iter().collect();
                prop_assert_eq!(&values, &want, "{}", ctx);
            }
            VersionOp::Range(lo, hi) => {
                t.range(lo, hi, &mut entries).map_err(|e| fail(&ctx, e))?;
                let want: Vec<(u64, u64)> = model.range(lo..=hi).map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(&entries, &want, "{}", ctx);
            }
            VersionOp::Flush => t.flush().map_err(|e| fail(&ctx, e))?,
            VersionOp::Reopen => {
                t.flush().map_err(|e| fail(&ctx, e))?;
                drop(t);
                let file = FileDevice::open(&path, 512, 0).unwrap();
                let storage = Storage::Pages(Box::new(file));
                t = open_index("mbtree", storage, memory, versions_params(set, false))
                    .map_err(|e| fail(&ctx, e))?;
                prop_assert!(t.versions_by_key(), "{}: the file says versions=key", ctx);
            }
        }
    }
    t.range(0, u64::MAX, &mut entries)
        .map_err(|e| fail("final scan", e))?;
    let want: Vec<(u64, u64)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    prop_assert_eq!(entries, want, "final full scan");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Repeated keys, deletes, lookups and ranges through BPB flushes,
    /// leaf splits (one- and two-page leaves) and reopening the file.
    #[test]
    fn versions_of_keys_match_a_map_on_a_real_file(ops in version_ops(500, 150)) {
        check_versions(&["leaf_pages=1", "max_leaf_pages=2"], 1200, &ops)?;
        check_versions(&["key_bytes=8", "value_bytes=8"], 1500, &ops)?;
    }

    #[test]
    fn versions_of_keys_in_every_variant(ops in version_ops(300, 400)) {
        for v in VARIANTS {
            check_versions(v, 900, &ops)?;
        }
    }
}

fn mbtree_on_ram(set: &[&str]) -> Box<dyn Index> {
    create_index(
        "mbtree",
        ram(),
        4096,
        Params::parse(set.iter().copied()).unwrap(),
    )
    .unwrap()
}

#[test]
fn an_upsert_reads_nothing_and_a_lookup_stops_at_the_bpb() {
    let mut t = mbtree_on_ram(&["versions=key"]);
    for k in 0..5_000u64 {
        t.upsert(k * 7 % 5_003, k).unwrap();
    }
    t.flush().unwrap();
    assert!(t.stats().get("bpb_flushes").unwrap() > 10.0);
    let before = t.storage().stats();
    for k in 0..100u64 {
        t.upsert(k * 13, 1_000 + k).unwrap();
    }
    let mut out = Vec::new();
    for k in 0..100u64 {
        t.get(k * 13, &mut out).unwrap();
        assert_eq!(out, vec![1_000 + k]);
    }
    assert_eq!(t.storage().stats().delta(&before).logical_reads, 0);
    // A delete of the BPB's version needs no read either; one of an older
    // value is refused.
    assert!(!t.delete(13, 1).unwrap());
    assert!(t.delete(13, 1_001).unwrap());
    assert_eq!(t.storage().stats().delta(&before).logical_reads, 0);
    t.get(13, &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn a_file_of_versions_never_opens_as_pairs_nor_the_reverse() {
    let reopen = |set: &[&str], again: &[&str]| {
        let mut t = mbtree_on_ram(set);
        t.insert(1, 2).unwrap();
        t.flush().unwrap();
        let storage = t.into_storage();
        open_index(
            "mbtree",
            storage,
            4096,
            Params::parse(again.iter().copied()).unwrap(),
        )
    };
    let e = reopen(&["versions=key"], &["versions=pair"]).err().unwrap();
    assert!(e.to_string().contains("versions"), "{e}");
    let e = reopen(&[], &["versions=key"]).err().unwrap();
    assert!(e.to_string().contains("versions"), "{e}");
    assert!(reopen(&["versions=key"], &[]).unwrap().versions_by_key());
    assert!(!reopen(&[], &[]).unwrap().versions_by_key());
    // A set of pairs has no blind upsert.
    let mut t = mbtree_on_ram(&[]);
    assert!(matches!(t.upsert(1, 1), Err(IndexError::Config(_))));
    let e = create_index(
        "mbtree",
        ram(),
        4096,
        Params::parse(["versions=maybe"]).unwrap(),
    );
    assert!(e.is_err());
}

#[test]
fn bulk_load_of_versions_refuses_a_repeated_key() {
    let mut t = mbtree_on_ram(&["versions=key"]);
    let e = t
        .bulk_load(&mut [(1u64, 1u64), (2, 1), (2, 5)].into_iter())
        .unwrap_err();
    assert!(matches!(e, IndexError::BulkLoad(_)), "{e}");
    let mut t = mbtree_on_ram(&["versions=key"]);
    t.bulk_load(&mut (0..1_000u64).map(|k| (k, k + 1))).unwrap();
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out, (0..1_000u64).map(|k| (k, k + 1)).collect::<Vec<_>>());
    // Pairs may repeat a key.
    let mut t = mbtree_on_ram(&[]);
    t.bulk_load(&mut [(2u64, 1u64), (2, 5)].into_iter())
        .unwrap();
}
