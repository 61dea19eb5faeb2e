//! The one model-based harness for every index (CONVENTIONS "Tests"): a
//! random sequence of [`ModelOp`]s runs against the index and against a
//! `BTreeSet<(key, value)>`, and every answer must agree. `Reopen` flushes,
//! drops the index, and opens it again from the same storage.
#![allow(dead_code)]

pub mod budget;
pub mod files;
pub mod run_file;

use std::collections::BTreeSet;

use flashix::device::file::FileDevice;
use flashix::device::ram::RamDisk;
use flashix::device::{DeviceSpec, Storage};
use flashix::index::{Index, Params};
use flashix::store::{create_index, open_index};
use proptest::prelude::*;

#[derive(Clone, Debug)]
pub enum ModelOp {
    Insert(u64, u64),
    Delete(u64, u64),
    Update(u64, u64, u64),
    Get(u64),
    Range(u64, u64),
    Flush,
    Reopen,
}

/// Operations over a small key and value space, so that duplicates,
/// deletes of present entries and collisions are frequent.
pub fn ops(max_len: usize, keys: u64) -> impl Strategy<Value = Vec<ModelOp>> {
    let vals = 8u64;
    let op = prop_oneof![
        8 => (0..keys, 0..vals).prop_map(|(k, v)| ModelOp::Insert(k, v)),
        4 => (0..keys, 0..vals).prop_map(|(k, v)| ModelOp::Delete(k, v)),
        2 => (0..keys, 0..vals, 0..vals).prop_map(|(k, o, n)| ModelOp::Update(k, o, n)),
        3 => (0..keys).prop_map(ModelOp::Get),
        2 => (0..keys, 0..keys / 4 + 1).prop_map(|(lo, len)| ModelOp::Range(lo, lo + len)),
        1 => Just(ModelOp::Flush),
        1 => Just(ModelOp::Reopen),
    ];
    proptest::collection::vec(op, 1..max_len)
}

fn params(pairs: &[&str]) -> Params {
    Params::parse(pairs.iter().copied()).expect("test parameters are well formed")
}

/// Runs `ops` on index `name` built on `storage()` and checks every answer.
pub fn check(
    name: &str,
    set: &[&str],
    memory: usize,
    storage: impl Fn() -> Storage,
    ops: &[ModelOp],
) -> Result<(), TestCaseError> {
    check_loaded(name, set, memory, storage, &BTreeSet::new(), ops)
}

/// [`check`] on an index first built from `preload` with `bulk_load`.
pub fn check_loaded(
    name: &str,
    set: &[&str],
    memory: usize,
    storage: impl Fn() -> Storage,
    preload: &BTreeSet<(u64, u64)>,
    ops: &[ModelOp],
) -> Result<(), TestCaseError> {
    let mut index: Box<dyn Index> = create_index(name, storage(), memory, params(set))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    if !preload.is_empty() {
        index
            .bulk_load(&mut preload.iter().copied())
            .map_err(|e| TestCaseError::fail(format!("bulk load: {e}")))?;
    }
    let mut model: BTreeSet<(u64, u64)> = preload.clone();
    let mut values = Vec::new();
    let mut entries = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let ctx = format!("op {i}: {op:?}");
        match *op {
            ModelOp::Insert(k, v) => {
                index
                    .insert(k, v)
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                model.insert((k, v));
            }
            ModelOp::Delete(k, v) => {
                let got = index
                    .delete(k, v)
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                prop_assert_eq!(got, model.remove(&(k, v)), "{}", ctx);
            }
            ModelOp::Update(k, o, n) => {
                let got = index
                    .update(k, o, n)
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                prop_assert_eq!(got, model.remove(&(k, o)), "{}", ctx);
                model.insert((k, n));
            }
            ModelOp::Get(k) => {
                index
                    .get(k, &mut values)
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                let want: Vec<u64> = model.range((k, 0)..=(k, u64::MAX)).map(|e| e.1).collect();
                prop_assert_eq!(&values, &want, "{}", ctx);
            }
            ModelOp::Range(lo, hi) => {
                index
                    .range(lo, hi, &mut entries)
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                let want: Vec<(u64, u64)> =
                    model.range((lo, 0)..=(hi, u64::MAX)).copied().collect();
                prop_assert_eq!(&entries, &want, "{}", ctx);
            }
            ModelOp::Flush => {
                index
                    .flush()
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
            }
            ModelOp::Reopen => {
                index
                    .flush()
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
                let storage = index.into_storage();
                index = open_index(name, storage, memory, params(set))
                    .map_err(|e| TestCaseError::fail(format!("{ctx}: reopen: {e}")))?;
            }
        }
    }
    // Everything is there at the end, in order.
    index
        .range(0, u64::MAX, &mut entries)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let want: Vec<(u64, u64)> = model.iter().copied().collect();
    prop_assert_eq!(entries, want, "final full scan");
    Ok(())
}

/// A RAM disk of 512-byte pages.
pub fn ram() -> Storage {
    Storage::Pages(Box::new(RamDisk::new(512, 1 << 20)))
}

/// The FTL over a 256-block (4 MiB) `slc-small` chip.
pub fn ftl() -> Storage {
    small_ftl(256)
}

/// A raw `toshiba-byte` chip of `blocks` blocks.
pub fn raw(blocks: u64) -> Storage {
    device("raw:toshiba-byte", blocks)
}

/// Device `spec` with a chip of `blocks` blocks.
fn device(spec: &str, blocks: u64) -> Storage {
    let sets = vec![("blocks".to_string(), blocks.to_string())];
    DeviceSpec::parse(spec, &sets).unwrap().build().unwrap()
}

/// Runs `ops` on index `name` over a fresh real file (created once; the
/// harness reopens it through `into_storage`).
pub fn check_on_file(
    name: &str,
    set: &[&str],
    memory: usize,
    ops: &[ModelOp],
) -> Result<(), TestCaseError> {
    check_loaded_on_file(name, set, memory, &BTreeSet::new(), ops)
}

/// [`check_on_file`] on an index first built from `preload` by `bulk_load`.
pub fn check_loaded_on_file(
    name: &str,
    set: &[&str],
    memory: usize,
    preload: &BTreeSet<(u64, u64)>,
    ops: &[ModelOp],
) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join(format!("{name}.db"));
    let storage = || Storage::Pages(Box::new(FileDevice::create(&path, 4096, 0).unwrap()));
    check_loaded(name, set, memory, storage, preload, ops)
}

/// 3,000 inserts, a reopen, 2,500 deletes of them, a range and a reopen:
/// deep trees, many merges, and reopening after both.
pub fn churn() -> Vec<ModelOp> {
    let mut seq = Vec::new();
    for i in 0..3000u64 {
        seq.push(ModelOp::Insert(i * 7 % 1009, i % 5));
    }
    seq.push(ModelOp::Reopen);
    for i in 0..2500u64 {
        seq.push(ModelOp::Delete(i * 7 % 1009, i % 5));
    }
    seq.push(ModelOp::Range(0, 2000));
    seq.push(ModelOp::Reopen);
    seq
}

/// The FTL over a `blocks`-block `slc-small` chip (small: to fill it).
pub fn small_ftl(blocks: u64) -> Storage {
    device("slc-small", blocks)
}

/// Inserts scattered pairs into `t` until an insert fails; returns the
/// error and how many were accepted.
pub fn fill_until_full(t: &mut dyn Index) -> (flashix::index::IndexError, usize) {
    let pair = |i: u64| (i * 7919 % 100_003, i % 5);
    let mut accepted = 0;
    let err = loop {
        let (k, v) = pair(accepted as u64);
        match t.insert(k, v) {
            Ok(()) => accepted += 1,
            Err(e) => break e,
        }
        assert!(accepted < 3_000_000, "{}: never filled", t.name());
    };
    (err, accepted)
}

/// After a call failed with `Full`, every call is refused with `Poisoned`
/// naming it (`store::guard`): nothing half-changed is answered or
/// flushed. An error names the call that was not refused.
pub fn refuses_everything_after_full(t: &mut dyn Index) -> Result<(), String> {
    use flashix::index::IndexError;
    let mut values = Vec::new();
    let mut pairs = Vec::new();
    let results = [
        ("insert", t.insert(2_000_000, 1).map(drop)),
        ("delete", t.delete(7919, 1).map(drop)),
        ("get", t.get(7919, &mut values)),
        ("range", t.range(0, u64::MAX, &mut pairs)),
        ("flush", t.flush()),
    ];
    for (call, r) in results {
        match r {
            Err(IndexError::Poisoned { first }) if first.contains("full") => {}
            other => return Err(format!("{call} after Full: {other:?}")),
        }
    }
    Ok(())
}

/// Index `name` (parameters `set`) on a small device under the commit
/// layer, as a file with a size (issue #28, finding 4), filled with a
/// flush every 100 inserts: after the `Full` every call is refused, and
/// the device mounted again opens at the last successful flush (or at the
/// one that failed, which may have committed), every entry readable.
pub fn reopens_at_last_flush_when_full(
    name: &str,
    set: &[&str],
    memory: usize,
) -> Result<(), String> {
    use flashix::device::fault::SharedDevice;
    use flashix::device::ram::RamDisk;
    use flashix::device::shadow::Shadow;
    use flashix::device::DeviceError;
    use flashix::index::{IndexError, Params};
    let params = || Params::parse(set.iter().copied()).unwrap();
    let pair = |i: u64| (i * 7919 % 100_003, i % 5);
    let ram = SharedDevice::new(Box::new(RamDisk::new(512, 2_000)));
    let disk = Shadow::mount(Box::new(ram.clone())).map_err(|e| e.to_string())?;
    let mut t = create_index(name, Storage::Pages(Box::new(disk)), memory, params())
        .map_err(|e| format!("create: {e}"))?;
    let mut accepted: Vec<(u64, u64)> = Vec::new();
    let mut images: Vec<Vec<(u64, u64)>> = vec![Vec::new()];
    let mut i = 0;
    let err = loop {
        if let Err(e) = t.insert(pair(i).0, pair(i).1) {
            break e;
        }
        accepted.push(pair(i));
        if accepted.len().is_multiple_of(100) {
            let mut now = accepted.clone();
            now.sort_unstable();
            now.dedup();
            match t.flush() {
                Ok(()) => images = vec![now],
                Err(e) => {
                    images.push(now);
                    break e;
                }
            }
        }
        i += 1;
        if i > 1_000_000 {
            return Err("never filled".into());
        }
    };
    if !matches!(err, IndexError::Device(DeviceError::Full { .. })) {
        return Err(format!("filling: {err}"));
    }
    refuses_everything_after_full(t.as_mut())?;
    // Reopening is mounting the device again, as opening a file does:
    // what was written since the last commit is gone.
    drop(t);
    let disk = Shadow::mount(Box::new(ram)).map_err(|e| format!("remount: {e}"))?;
    let mut t = open_index(name, Storage::Pages(Box::new(disk)), memory, params())
        .map_err(|e| format!("reopen: {e}"))?;
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out)
        .map_err(|e| format!("scan after the reopen: {e}"))?;
    if !images.contains(&out) {
        return Err(format!(
            "reopened with {} entries where the last flush held {}",
            out.len(),
            images[0].len()
        ));
    }
    Ok(())
}
