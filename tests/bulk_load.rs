//! `Index::bulk_load` against the oracle: every index built from a random
//! sorted preload (its own bottom-up loader for the B+-tree, BFTL, the
//! FD-tree and the LSM-tree; inserts one by one for the rest), then random
//! operations with flushes and reopens; on a RAM disk, the FTL, the SSD
//! model and a real file. Bad input: entries out of order and a non-empty
//! index are refused, and the index is left as it was.

mod common;

use std::collections::BTreeSet;

use common::{check_loaded, check_loaded_on_file, ftl, ops, ram, ModelOp};
use flashix::device::DeviceSpec;
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};
use proptest::prelude::*;

/// A set of up to `max` pairs over `keys` keys (so keys repeat).
fn preload(max: usize, keys: u64) -> impl Strategy<Value = BTreeSet<(u64, u64)>> {
    proptest::collection::btree_set((0..keys, 0..8u64), 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn btree(pre in preload(3000, 2000), ops in ops(300, 2000)) {
        check_loaded("btree", &[], 4096, ram, &pre, &ops)?;
        check_loaded("btree", &["fanout=4"], 2048, ftl, &pre, &ops)?;
    }

    #[test]
    fn bftl(pre in preload(2000, 1000), ops in ops(300, 1000)) {
        check_loaded("bftl", &[], 8192, ftl, &pre, &ops)?;
        check_loaded("flashdb", &[], 8192, ftl, &pre, &ops)?;
    }

    #[test]
    fn fdtree(pre in preload(3000, 2000), ops in ops(300, 2000)) {
        check_loaded("fdtree", &["head_bytes=600", "k=3"], 4096, ram, &pre, &ops)?;
        check_loaded("fdtree", &[], 1 << 16, ftl, &pre, &ops)?;
    }

    #[test]
    fn lsm(pre in preload(3000, 2000), ops in ops(300, 2000)) {
        check_loaded("lsm", &["c0_bytes=600", "ratio=3"], 4096, ram, &pre, &ops)?;
        check_loaded("lsm", &[], 1 << 16, ftl, &pre, &ops)?;
    }

    #[test]
    fn indexes_without_a_loader_insert(pre in preload(500, 300), ops in ops(100, 300)) {
        check_loaded("mbtree", &[], 4096, ftl, &pre, &ops)?;
        check_loaded("ipl", &[], 8192, ftl, &pre, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(pre in preload(3000, 2000), ops in ops(200, 2000)) {
        check_loaded_on_file("btree", &[], 1 << 14, &pre, &ops)?;
        check_loaded_on_file("fdtree", &["head_bytes=4096", "k=4"], 1 << 16, &pre, &ops)?;
        check_loaded_on_file("lsm", &["c0_bytes=4096", "ratio=4"], 1 << 16, &pre, &ops)?;
    }

    #[test]
    fn on_the_ssd_model(pre in preload(3000, 2000), ops in ops(200, 2000)) {
        let ssd = || DeviceSpec::parse("samsung-ssd32", &[("page_size".into(), "2048".into())]).unwrap().build().unwrap();
        check_loaded("btree", &[], 1 << 14, ssd, &pre, &ops)?;
        check_loaded("bftl", &["node_bytes=2048"], 1 << 14, ssd, &pre, &ops)?;
        check_loaded("fdtree", &[], 1 << 18, ssd, &pre, &ops)?;
        check_loaded("lsm", &[], 1 << 18, ssd, &pre, &ops)?;
    }
}

/// A large load: many levels in every index, then every entry is found
/// after a reopen.
#[test]
fn a_deep_load_survives_reopen() {
    let pre: BTreeSet<(u64, u64)> = (0..60_000u64).map(|i| (i * 3 / 2, i % 3)).collect();
    let ops = vec![ModelOp::Reopen, ModelOp::Range(0, 200_000)];
    for (name, set) in [
        ("btree", vec![]),
        ("bftl", vec![]),
        ("fdtree", vec!["head_bytes=2048", "k=4"]),
        ("lsm", vec!["c0_bytes=2048", "ratio=4"]),
    ] {
        let big = || {
            DeviceSpec::parse("slc-small", &[("blocks".into(), "4096".into())])
                .unwrap()
                .build()
                .unwrap()
        };
        check_loaded(name, &set, 1 << 16, big, &pre, &ops).unwrap();
    }
}

fn fresh(name: &str) -> Box<dyn flashix::index::Index> {
    create_index(name, ftl(), 1 << 16, Params::default()).unwrap()
}

#[test]
fn entries_out_of_order_are_refused_and_leave_the_index_empty() {
    for name in ["btree", "bftl", "fdtree", "lsm", "mbtree"] {
        let mut index = fresh(name);
        let bad = [(1u64, 0u64), (5, 0), (3, 0)];
        let err = index.bulk_load(&mut bad.iter().copied()).unwrap_err();
        assert!(matches!(err, IndexError::BulkLoad(_)), "{name}: {err}");
        let mut all = Vec::new();
        index.range(0, u64::MAX, &mut all).unwrap();
        if name != "mbtree" {
            // The loaders install nothing; inserting one by one keeps what
            // came before the bad entry, as inserts do.
            assert!(all.is_empty(), "{name}: {all:?}");
        }
        index.insert(7, 7).unwrap();
        index.flush().unwrap();
        let storage = index.into_storage();
        let mut index = open_index(name, storage, 1 << 16, Params::default()).unwrap();
        let mut values = Vec::new();
        index.get(7, &mut values).unwrap();
        assert_eq!(values, vec![7], "{name}");
    }
}

#[test]
fn a_non_empty_index_is_refused() {
    for name in ["btree", "bftl", "fdtree", "lsm"] {
        let mut index = fresh(name);
        index.insert(1, 1).unwrap();
        let err = index
            .bulk_load(&mut [(2u64, 2u64)].iter().copied())
            .unwrap_err();
        assert!(matches!(err, IndexError::BulkLoad(_)), "{name}: {err}");
        let mut all = Vec::new();
        index.range(0, u64::MAX, &mut all).unwrap();
        assert_eq!(all, vec![(1, 1)], "{name}");
    }
}

#[test]
fn keys_out_of_range_are_refused() {
    for name in ["btree", "fdtree", "lsm"] {
        let mut index = fresh(name);
        let err = index
            .bulk_load(&mut [(1u64, 0u64), (1 << 40, 0)].iter().copied())
            .unwrap_err();
        assert!(
            matches!(err, IndexError::KeyOutOfRange { .. }),
            "{name}: {err}"
        );
    }
}

/// The durability contract holds through a bulk load: power cut at write
/// after write of the loader, its flush and the workload after it, every
/// reopen finds a state the contract allows (`runner::crash`).
#[test]
fn crashes_during_and_after_a_bulk_load_keep_the_contract() {
    use flashix::runner::crash::{crash_test, CrashConfig};
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}", dir.path().join("bulk.db").display());
    for index in ["btree", "bftl", "fdtree", "lsm"] {
        for (device, scenarios) in [("slc-small", 60), (file.as_str(), 20)] {
            let mut device = DeviceSpec::parse(device, &[("blocks".into(), "512".into())]).unwrap();
            device.atomic = true;
            let c = CrashConfig {
                index: index.into(),
                params: vec![],
                // A file's 4 KiB pages leave the LSM-tree's working set
                // (20.5 KB) no room in 16 KiB.
                memory: if device.geometry.page_size > 512 {
                    32 << 10
                } else {
                    16 << 10
                },
                device,
                ops: 200,
                keys: 4000,
                flush_every: 40,
                seed: 11,
                bulk_load: 1500,
            };
            let s = crash_test(&c, scenarios).unwrap();
            assert_eq!(s.failures(), 0, "{index}: {s:?}");
        }
    }
}

/// A load larger than the device fails with the device's own error (not
/// a complaint about the input); the index is then poisoned
/// (`store::guard`): nothing half-loaded is answered.
#[test]
fn a_load_that_fills_the_device_says_so() {
    for name in ["btree", "bftl", "fdtree", "lsm"] {
        let small = DeviceSpec::parse("slc-small", &[("blocks".into(), "24".into())])
            .unwrap()
            .build()
            .unwrap();
        let mut index = create_index(name, small, 1 << 14, Params::default()).unwrap();
        let mut entries = (0..200_000u64).map(|k| (k, 0));
        let err = index.bulk_load(&mut entries).unwrap_err();
        assert!(matches!(err, IndexError::Device(_)), "{name}: {err}");
        let mut all = Vec::new();
        match index.range(0, u64::MAX, &mut all) {
            Err(IndexError::Poisoned { first }) => {
                assert!(first.contains("full"), "{name}: {first}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}
