//! The public store (`flashix::Store`, issue #28): map semantics over every
//! index against a `BTreeMap` oracle with full-width keys and values, on a
//! real file, through flushes, reopens and drops without a flush; one
//! on-disk format (a store opens through the command line's device spec,
//! a bare page file is refused by name); read-only opening.

use std::collections::BTreeMap;

use flashix::device::file::FileDevice;
use flashix::device::{DeviceError, DeviceSpec};
use flashix::index::kinds::registry;
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};
use flashix::{Options, Semantics, Store, StoreError};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Put(u64, u64),
    /// `Store::set`: a blind upsert on an index that keeps versions of
    /// keys, `put` on any other.
    Set(u64, u64),
    Delete(u64),
    Get(u64),
    Range(u64, u64),
    Flush,
    /// Drop without flushing, then open again: the last flush.
    Crash,
    /// Close (a flush), then open again.
    Reopen,
}

/// Keys from a small pool that includes both ends of the `u64` range, so
/// that puts replace and deletes find.
fn key() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(1u64 << 63),
        0u64..200,
        any::<u64>(),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), any::<u64>()).prop_map(|(k, v)| Op::Put(k, v)),
        4 => (key(), any::<u64>()).prop_map(|(k, v)| Op::Set(k, v)),
        3 => key().prop_map(Op::Delete),
        3 => key().prop_map(Op::Get),
        1 => (key(), key()).prop_map(|(a, b)| Op::Range(a.min(b), a.max(b))),
        1 => Just(Op::Flush),
        1 => Just(Op::Crash),
        1 => Just(Op::Reopen),
    ]
}

fn options(index: &str) -> Options {
    Options::index(index).memory(256 << 10)
}

fn run(index: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.flashix");
    let opts = options(index);
    let mut store = Some(Store::create(&path, &opts).unwrap());
    let mut model = BTreeMap::new();
    let mut flushed: Option<BTreeMap<u64, u64>> = None;
    for (i, op) in ops.iter().enumerate() {
        let s = store.as_mut().unwrap();
        match *op {
            Op::Put(k, v) => {
                let old = s.put(k, v).unwrap();
                prop_assert_eq!(old, model.insert(k, v), "op {}: put({}, {})", i, k, v);
            }
            Op::Set(k, v) => {
                s.set(k, v).unwrap();
                model.insert(k, v);
            }
            Op::Delete(k) => {
                prop_assert_eq!(s.delete(k).unwrap(), model.remove(&k), "op {}: delete", i);
            }
            Op::Get(k) => {
                prop_assert_eq!(s.get(k).unwrap(), model.get(&k).copied(), "op {}: get", i);
            }
            Op::Range(lo, hi) => {
                let got: Vec<(u64, u64)> = s.range(lo..=hi).unwrap().map(Result::unwrap).collect();
                let want: Vec<(u64, u64)> = model.range(lo..=hi).map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(got, want, "{} op {}: range {}..={}", index, i, lo, hi);
            }
            Op::Flush => {
                s.flush().unwrap();
                flushed = Some(model.clone());
            }
            Op::Crash | Op::Reopen => {
                let s = store.take().unwrap();
                if matches!(op, Op::Reopen) {
                    s.close().unwrap();
                    flushed = Some(model.clone());
                } else {
                    drop(s);
                }
                match &flushed {
                    Some(f) => {
                        model = f.clone();
                        store = Some(Store::open(&path, &opts).unwrap());
                    }
                    None => {
                        // Never flushed: no index, or (an index whose
                        // create commits its empty state) an empty one.
                        model.clear();
                        match Store::open(&path, &opts) {
                            Ok(mut s) => {
                                prop_assert_eq!(s.range(..).unwrap().count(), 0, "{}", index);
                                store = Some(s);
                            }
                            Err(e) => {
                                prop_assert!(
                                    matches!(e, StoreError::Index(IndexError::NoIndex(_))),
                                    "{}: {}",
                                    index,
                                    e
                                );
                                std::fs::remove_file(&path).unwrap();
                                store = Some(Store::create(&path, &opts).unwrap());
                            }
                        }
                    }
                }
            }
        }
    }
    let s = store.as_mut().unwrap();
    let all: Vec<(u64, u64)> = s.range(..).unwrap().map(Result::unwrap).collect();
    let want: Vec<(u64, u64)> = model.iter().map(|(k, v)| (*k, *v)).collect();
    prop_assert_eq!(all, want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn every_index_as_a_map_store_matches_the_oracle(
        ops in proptest::collection::vec(op(), 1..250),
    ) {
        for info in registry::list() {
            run(info.name, &ops)?;
        }
    }
}

#[test]
fn a_large_range_is_read_in_bounded_chunks_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.flashix");
    let mut s = Store::create(&path, &Options::index("lsm")).unwrap();
    // Dense at the bottom, sparse across the whole key space.
    for k in 0..30_000u64 {
        s.put(k, k).unwrap();
        s.put(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 1).unwrap();
    }
    let got: Vec<(u64, u64)> = s.range(..).unwrap().map(Result::unwrap).collect();
    assert!(got.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(got.len(), 59_999); // key 0 twice
    let tail: Vec<u64> = s
        .range((u64::MAX - (1 << 60))..)
        .unwrap()
        .map(|e| e.unwrap().0)
        .collect();
    assert!(tail.iter().all(|&k| k >= u64::MAX - (1 << 60)));
    assert_eq!(s.range(5..5).unwrap().count(), 0);
    assert_eq!(s.range(10..20).unwrap().count(), 10);
    s.close().unwrap();
}

#[test]
fn a_multiset_store_keeps_every_pair_and_a_map_refuses_two_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.flashix");
    let multi = Options::default().semantics(Semantics::Multiset);
    let mut s = Store::create(&path, &multi).unwrap();
    s.insert(42, 1).unwrap();
    s.insert(42, 2).unwrap();
    assert_eq!(s.get_all(42).unwrap(), [1, 2]);
    assert!(matches!(s.put(1, 1), Err(StoreError::Semantics(_))));
    assert!(s.remove(42, 1).unwrap());
    s.insert(42, 3).unwrap();
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    let e = s.get(42).unwrap_err();
    assert!(e.to_string().contains("2 values"), "{e}");
}

#[test]
fn create_refuses_a_file_with_data_and_open_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.flashix");
    assert!(matches!(
        Store::open(&path, &Options::default()),
        Err(StoreError::Missing(_))
    ));
    let mut s = Store::create(&path, &Options::default()).unwrap();
    s.put(1, 2).unwrap();
    s.close().unwrap();
    let before = std::fs::read(&path).unwrap();
    assert!(matches!(
        Store::create(&path, &Options::default()),
        Err(StoreError::Exists(_))
    ));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let mut s = Store::open_or_create(&path, &Options::default()).unwrap();
    assert_eq!(s.get(1).unwrap(), Some(2));
}

#[test]
fn a_file_that_is_not_a_store_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, b"shopping list: flour, eggs\n").unwrap();
    let before = std::fs::read(&path).unwrap();
    let e = Store::open(&path, &Options::default()).unwrap_err();
    assert!(
        matches!(e, StoreError::Device(DeviceError::NotAStore { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("not a flashix store"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // A bare page file (an index straight on a FileDevice, no commit
    // layer) is refused the same way...
    let bare = dir.path().join("bare.img");
    let dev = FileDevice::create(&bare, 4096, 0).unwrap();
    let storage = flashix::device::Storage::Pages(Box::new(dev));
    let mut t = create_index("btree", storage, 1 << 16, Params::new()).unwrap();
    t.insert(1, 1).unwrap();
    t.flush().unwrap();
    drop(t);
    let e = Store::open(&bare, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("not a flashix store"), "{e}");

    // ...and a store read without its commit layer says what it is.
    let store = dir.path().join("s.flashix");
    let mut s = Store::create(&store, &Options::default()).unwrap();
    s.put(1, 1).unwrap();
    s.close().unwrap();
    let dev = FileDevice::open(&store, 4096, 0).unwrap();
    let Err(e) = open_index(
        "btree",
        flashix::device::Storage::Pages(Box::new(dev)),
        1 << 16,
        Params::new(),
    ) else {
        panic!("a store opened without its commit layer");
    };
    assert!(e.to_string().contains("this is a flashix store"), "{e}");
}

#[test]
fn a_store_and_a_file_device_spec_share_one_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.flashix");
    for index in ["btree", "lsm", "fdtree", "bftl"] {
        let _ = std::fs::remove_file(&path);
        // Library -> device spec (what the command line opens).
        let mut s = Store::create(&path, &Options::index(index)).unwrap();
        s.put(u64::MAX, 5).unwrap();
        s.close().unwrap();
        let spec = DeviceSpec::parse(&format!("file:{}", path.display()), &[]).unwrap();
        // The store's memory: an LSM-tree store's C0 is half of it.
        let memory = Options::default().memory;
        let mut t = open_index(index, spec.open_existing().unwrap(), memory, Params::new())
            .unwrap_or_else(|e| panic!("{index}: {e}"));
        let mut v = Vec::new();
        t.get(u64::MAX, &mut v).unwrap();
        assert_eq!(v, [5], "{index}");
        // Device spec -> library.
        t.insert(3, 4).unwrap();
        t.flush().unwrap();
        drop(t);
        let mut s =
            Store::open(&path, &Options::default()).unwrap_or_else(|e| panic!("{index}: {e}"));
        assert_eq!(s.index().name(), index);
        assert_eq!(s.get(3).unwrap(), Some(4));
    }
    // `atomic=false` would be a second format: refused for files.
    let e = DeviceSpec::parse(
        &format!("file:{}", path.display()),
        &[("atomic".into(), "false".into())],
    )
    .unwrap_err();
    assert!(e.to_string().contains("commit layer"), "{e}");
}

#[test]
fn a_read_only_store_answers_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.flashix");
    let mut s = Store::create(&path, &Options::index("latree")).unwrap();
    for k in 0..2_000 {
        s.put(k, k + 1).unwrap();
    }
    s.close().unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let mut a = Store::open_read_only(&path, &Options::default()).unwrap();
    let mut b = Store::open_read_only(&path, &Options::default()).unwrap();
    assert_eq!(a.get(1_999).unwrap(), Some(2_000));
    assert_eq!(b.range(10..13).unwrap().count(), 3);
    // A change and a flush are refused as what they are (issue #41: a put
    // was "invalid index configuration", a flush returned Ok).
    let e = a.put(5, 5).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly(_)), "{e}");
    assert!(e.to_string().contains("read-only"), "{e}");
    assert!(matches!(a.flush(), Err(StoreError::ReadOnly(_))));
    assert!(matches!(a.delete(1), Err(StoreError::ReadOnly(_))));
    // Refused before anything changed: the store still answers.
    assert_eq!(a.get(1_999).unwrap(), Some(2_000));
    a.close().unwrap();
    drop(b);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_store_moves_to_another_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.flashix");
    let mut s = Store::create(&path, &Options::default()).unwrap();
    s.put(1, 10).unwrap();
    let s = std::thread::spawn(move || {
        s.put(2, 20).unwrap();
        s
    })
    .join()
    .unwrap();
    assert_eq!(s.unflushed(), 2);
    s.close().unwrap();
}

#[test]
fn out_of_range_input_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.flashix");
    let narrow = Options::default()
        .set("key_bytes", "4")
        .set("value_bytes", "4");
    let mut s = Store::create(&path, &narrow).unwrap();
    s.put(1, 1).unwrap();
    assert!(matches!(
        s.put(u64::MAX, 1),
        Err(StoreError::Index(IndexError::KeyOutOfRange { .. }))
    ));
    // Not poisoned: a rejected input changes nothing.
    assert_eq!(s.put(1, 2).unwrap(), Some(1));
    s.close().unwrap();
}

/// Found by the oracle test above: two bugs that only full-width keys or a
/// store's life reached. The MB-Tree's leaf header sized its key-interval
/// values by `largest − smallest + 1`, which wrapped to 0 bits for keys 0
/// and `u64::MAX` in one leaf, so every key above the smallest vanished
/// from searches; the FD-tree, reopened after deletes emptied its head,
/// freed pages past its high water, and the next flush named a run past
/// it (Corrupt at the next open).
#[test]
fn regressions_found_by_the_store_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.flashix");
    let mut s = Store::create(&path, &Options::index("mbtree")).unwrap();
    for k in [u64::MAX - 1, 1 << 63, 185, 0, u64::MAX] {
        s.put(k, 1).unwrap();
    }
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.range(..).unwrap().count(), 5);
    assert_eq!(s.get(1 << 63).unwrap(), Some(1));

    let path = dir.path().join("f.flashix");
    let mut s = Store::create(&path, &Options::index("fdtree")).unwrap();
    s.put(5, 0).unwrap();
    s.flush().unwrap();
    s.delete(5).unwrap();
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    s.put(0, 0).unwrap();
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.get(0).unwrap(), Some(0));

    // A 4-byte store read past its keys' width: empty, not a panic.
    let path = dir.path().join("n.flashix");
    let narrow = Options::index("fdtree").set("key_bytes", "4");
    let mut s = Store::create(&path, &narrow).unwrap();
    s.put(7, 7).unwrap();
    assert_eq!(s.range(1 << 40..).unwrap().count(), 0);
    assert_eq!(s.range(..).unwrap().count(), 1);
}

/// The file says how its pages are cut (issue #41): a store opens with the
/// page size its commit record names, whatever the options say; a device
/// opened beneath the store with another size says which.
#[test]
fn a_store_opens_with_the_page_size_its_file_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.flashix");
    let big = Options {
        page_size: 8192,
        ..Options::default()
    };
    let mut s = Store::create(&path, &big).unwrap();
    s.put(1, 1).unwrap();
    s.close().unwrap();
    assert_eq!(
        Store::open(&path, &Options::default())
            .unwrap()
            .get(1)
            .unwrap(),
        Some(1)
    );
    assert_eq!(Store::open(&path, &big).unwrap().get(1).unwrap(), Some(1));
    let ro = Store::open_read_only(&path, &Options::default());
    assert_eq!(ro.unwrap().get(1).unwrap(), Some(1));
    let dev = FileDevice::open(&path, 4096, 0).unwrap();
    let e = flashix::device::Shadow::mount(Box::new(dev)).unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
}

/// A store whose last flushes went to its write-ahead log (issue #29):
/// opened read-only, it replays the log into RAM and answers with it,
/// writing nothing; opened with the log off, it replays it too, and its
/// next flush commits everything.
#[test]
fn a_store_answers_with_its_write_ahead_log_read_only_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.flashix");
    for index in ["btree", "lsm", "latree"] {
        let _ = std::fs::remove_file(&path);
        let mut s = Store::create(&path, &Options::index(index)).unwrap();
        let mut want = BTreeMap::new();
        for k in 0..3_000u64 {
            s.put(k, k + 1).unwrap();
            want.insert(k, k + 1);
        }
        // The first flush checkpoints (there is no log yet); the next ones
        // append to the log.
        s.flush().unwrap();
        for round in 0..4u64 {
            for k in (round..3_000).step_by(7) {
                if k % 2 == 0 {
                    s.delete(k).unwrap();
                    want.remove(&k);
                } else {
                    s.put(k, k * 10 + round).unwrap();
                    want.insert(k, k * 10 + round);
                }
            }
            s.put(u64::MAX - round, round).unwrap();
            want.insert(u64::MAX - round, round);
            s.flush().unwrap();
        }
        drop(s);
        let before = std::fs::read(&path).unwrap();
        let mut ro = Store::open_read_only(&path, &Options::default()).unwrap();
        let got: BTreeMap<u64, u64> = ro.range(..).unwrap().map(Result::unwrap).collect();
        assert_eq!(got, want, "{index}: read-only");
        assert_eq!(ro.get(7).unwrap(), want.get(&7).copied(), "{index}");
        assert_eq!(ro.get(8).unwrap(), None, "{index}");
        assert_eq!(ro.range(u64::MAX - 1..).unwrap().count(), 2, "{index}");
        drop(ro);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{index}: read-only wrote"
        );
        let off = Options {
            log_bytes: 0,
            ..Options::default()
        };
        let mut s = Store::open(&path, &off).unwrap();
        let got: BTreeMap<u64, u64> = s.range(..).unwrap().map(Result::unwrap).collect();
        assert_eq!(got, want, "{index}: replayed with the log off");
        s.put(1, 1).unwrap();
        want.insert(1, 1);
        s.close().unwrap();
        let mut s = Store::open(&path, &Options::default()).unwrap();
        let got: BTreeMap<u64, u64> = s.range(..).unwrap().map(Result::unwrap).collect();
        assert_eq!(got, want, "{index}: after a commit with the log off");
        s.close().unwrap();
    }
}

/// Issue #45: a new map store of an index that orders versions keeps
/// versions of keys (`versions=key`, in its file): `set` writes without
/// reading, the newest version wins through merges, a reopen and the log's
/// replay, and the file is never opened as a multiset.
#[test]
fn a_map_store_of_versions_writes_blind_and_is_never_a_multiset() {
    for index in registry::list()
        .iter()
        .map(|i| i.name)
        .filter(|n| registry::keeps_versions(n))
    {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.flashix");
        // Small memory: versions meet in merges between components.
        let opts = Options::index(index).memory(64 << 10);
        let mut s = Store::create(&path, &opts).unwrap();
        assert!(s.index().versions_by_key(), "{index}");
        let mut model = BTreeMap::new();
        for round in 0..6u64 {
            for k in 0..3_000u64 {
                let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                if (k + round) % 7 == 0 {
                    assert_eq!(s.delete(key).unwrap(), model.remove(&key), "{index}");
                } else {
                    s.set(key, k * 10 + round).unwrap();
                    model.insert(key, k * 10 + round);
                }
            }
            s.flush().unwrap();
        }
        let reads = s.device_stats().logical_reads;
        s.set(12345, 1).unwrap();
        assert_eq!(
            s.device_stats().logical_reads,
            reads,
            "{index}: set read the device"
        );
        model.insert(12345, 1);
        s.close().unwrap();
        let e = Store::open(&path, &opts.clone().semantics(Semantics::Multiset)).unwrap_err();
        assert!(
            matches!(e, StoreError::Semantics(_)) && e.to_string().contains("versions"),
            "{index}: {e}"
        );
        let e = Store::open(&path, &opts.clone().set("versions", "pair")).unwrap_err();
        assert!(e.to_string().contains("versions"), "{index}: {e}");
        let mut s = Store::open(&path, &opts).unwrap();
        for (k, v) in &model {
            assert_eq!(s.get(*k).unwrap(), Some(*v), "{index}: key {k}");
        }
        let all: Vec<(u64, u64)> = s.range(..).unwrap().map(Result::unwrap).collect();
        let want: Vec<(u64, u64)> = model.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(all, want, "{index}");
    }
}
