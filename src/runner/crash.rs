//! Crash testing: cut the power at every write of a seeded workload, reopen
//! what survives, and check it against the durability contract of
//! `docs/FORMAT.md`:
//!
//! 1. after `flush()` returns, every operation before it survives;
//! 2. a power cut at any moment (a torn last write included) opens to the
//!    state after some prefix of the operations that includes everything up
//!    to the last completed flush: never a mix, never an older state, never
//!    a panic.
//!
//! One scenario: build the index on a fresh device whose writes pass
//! through a fault decorator (`src/device/fault.rs`), run the workload
//! (inserts, deletes and updates of a seeded mix, a flush every
//! `flush_every` operations) until write `cut_after + 1` fails with the
//! power gone (torn or not), then reopen with no faults, as a machine
//! rebooting would: over an FTL the chip survives and the FTL is mounted
//! from its spare areas (its RAM tables are lost); a raw chip is reopened
//! as it is; a file is reopened from its path. The reopened content, read
//! by a full range scan, must equal the oracle after the last completed
//! flush followed by some prefix of the operations after it (the one in
//! flight included).
//!
//! With `versions=key` in the parameters (an index of versions of keys,
//! `runner::versions`) the workload is a map's (upserts, many of a live
//! key, deletes and updates of a key's current pair, deletes of a pair it
//! held before), and a reopened index's lookup of every key must answer
//! what its full scan found.
//!
//! Verdicts: `survived`; `lost` (the reopen or the scan failed, or entries
//! the last flush made durable are missing); `wrong` (any other state: an
//! entry no prefix holds, a mix); `panicked`. A cut before the first flush
//! completes promises nothing but "no panic".
//!
//! Cut points: the uncut run's write count W is measured first; the first
//! half of the scenarios cut at writes 1, 2, 3, ... in order (every early
//! point, where superblocks and first splits are written), the rest at
//! seeded random points in 1..=W; odd scenarios tear the write that meets
//! the cut. On a file, scenarios 2 and 3 of every 4 also give the device a
//! volatile write cache (`device::fault`, rule 5): what was written since
//! the last sync reaches the file as a seeded random subset in a shuffled
//! order, as a disk's cache and the kernel's page cache may leave it,
//! rather than in the order written up to the cut.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::versions::{self, LiveKeys};
use crate::device::fault::{FaultPlan, FaultyDevice, FaultyFlash, SharedChip};
use crate::device::file::FileDevice;
use crate::device::profile::Target;
use crate::device::{DeviceSpec, Ftl, Nand, Shadow, Storage};
use crate::index::{Index, IndexError, Params};
use crate::store::{create_index, open_index};

/// One operation of a crash workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashOp {
    Insert(u64, u64),
    Delete(u64, u64),
    Update(u64, u64, u64),
    /// `Index::upsert` (an index of versions of keys, `runner::versions`):
    /// the key holds the value from now on, whatever it held.
    Upsert(u64, u64),
    /// `Index::bulk_load` of `count` entries (key `i · stride`, value 0)
    /// into the empty index.
    BulkLoad {
        count: u64,
        stride: u64,
    },
    Flush,
}

impl CrashOp {
    /// Applies a data operation to the oracle (a flush changes nothing).
    pub fn apply(&self, state: &mut BTreeSet<(u64, u64)>) {
        match *self {
            CrashOp::Insert(k, v) => {
                state.insert((k, v));
            }
            CrashOp::Delete(k, v) => {
                state.remove(&(k, v));
            }
            CrashOp::Update(k, old, new) => {
                if state.remove(&(k, old)) {
                    state.insert((k, new));
                }
            }
            CrashOp::Upsert(k, v) => versions::upsert(state, k, v),
            CrashOp::BulkLoad { count, stride } => {
                state.extend((0..count).map(|i| (i * stride, 0)));
            }
            CrashOp::Flush => {}
        }
    }

    /// Performs the operation on `index`.
    pub fn run_on(&self, index: &mut dyn Index) -> Result<(), IndexError> {
        match *self {
            CrashOp::Insert(k, v) => index.insert(k, v),
            CrashOp::Delete(k, v) => index.delete(k, v).map(|_| ()),
            CrashOp::Update(k, o, n) => index.update(k, o, n).map(|_| ()),
            CrashOp::Upsert(k, v) => index.upsert(k, v),
            CrashOp::BulkLoad { count, stride } => {
                index.bulk_load(&mut (0..count).map(|i| (i * stride, 0)))
            }
            CrashOp::Flush => index.flush(),
        }
    }
}

/// The most data operations, or bulk-loaded entries, a crash, damage or
/// fault test takes: it holds its workload and the oracle's states in
/// memory. At 10^7 (btree, 2026-12-06) `crashtest`, `damagetest` and
/// `faulttest --ops` peaked at 0.4 GB and `faulttest --preload` at
/// 1.2 GB, within a 4 GB address space. Larger counts are an error before
/// anything is allocated.
pub const MAX_OPS: u64 = 10_000_000;

/// Checks a count of operations or entries (`what`, as the caller names
/// it) against [`MAX_OPS`].
pub fn check_count(what: &str, n: u64) -> Result<(), String> {
    if n <= MAX_OPS {
        return Ok(());
    }
    Err(format!(
        "{what} is {n}, more than the {MAX_OPS} a crash, damage or fault test takes \
         (it holds the workload and its oracle in memory)"
    ))
}

/// A crash test: index, device and workload.
#[derive(Clone, Debug)]
pub struct CrashConfig {
    pub index: String,
    /// Index parameters as `K=V`.
    pub params: Vec<String>,
    pub memory: usize,
    /// An FTL or raw profile, or a file (a fresh file per scenario at
    /// `PATH.N`).
    pub device: DeviceSpec,
    /// Data operations of the workload (flushes come on top).
    pub ops: usize,
    /// Keys are drawn from `0..keys`.
    pub keys: u64,
    pub flush_every: usize,
    pub seed: u64,
    /// Entries bulk-loaded (`Index::bulk_load`) and flushed before the
    /// workload; its deletes and updates reach them too. 0: none.
    pub bulk_load: u64,
}

impl CrashConfig {
    /// Checks the counts ([`check_count`]) before a workload is built.
    pub fn check(&self) -> Result<(), String> {
        check_count("ops", self.ops as u64)?;
        check_count("bulk_load", self.bulk_load)
    }
}

/// What one scenario found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Survived,
    Lost(String),
    Wrong(String),
    Panicked(String),
}

/// The seeded workload: a bulk load and a flush when `bulk_load` asks,
/// then inserts (60%), deletes and updates of live entries (20% each), a
/// flush after every `flush_every` data operations. With `versions=key`
/// in the parameters, the data operations are a map's instead
/// (`key_op`). The counts are the caller's to check
/// ([`CrashConfig::check`]).
pub fn workload(c: &CrashConfig) -> Vec<CrashOp> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.seed);
    let mut live: Vec<(u64, u64)> = Vec::new();
    let flushes = c.ops / c.flush_every.max(1);
    let mut ops = Vec::with_capacity(c.ops.saturating_add(flushes).min(MAX_OPS as usize) + 2);
    if let Some(stride) = c.keys.checked_div(c.bulk_load) {
        let stride = stride.max(1);
        ops.push(CrashOp::BulkLoad {
            count: c.bulk_load,
            stride,
        });
        ops.push(CrashOp::Flush);
        live.extend((0..c.bulk_load).map(|i| (i * stride, 0)));
    }
    let mut keys = versions::by_key(&c.params).then(|| LiveKeys::new(live.drain(..)));
    // Values are the operation's number from 1: unique, so an entry names
    // the operation that wrote it.
    for (i, next_value) in (0..c.ops).zip(1u64..) {
        let op = match keys.as_mut() {
            Some(keys) => key_op(keys, &mut rng, c.keys, next_value),
            None => pair_op(&mut live, &mut rng, c.keys, next_value),
        };
        ops.push(op);
        if (i + 1) % c.flush_every.max(1) == 0 {
            ops.push(CrashOp::Flush);
        }
    }
    ops
}

/// A data operation on a set of pairs (`live`) writing `value`.
fn pair_op(
    live: &mut Vec<(u64, u64)>,
    rng: &mut Xoshiro256PlusPlus,
    keys: u64,
    value: u64,
) -> CrashOp {
    let roll = rng.random_range(0..10u32);
    if live.is_empty() || roll < 6 {
        let k = rng.random_range(0..keys.max(1));
        live.push((k, value));
        CrashOp::Insert(k, value)
    } else {
        let at = rng.random_range(0..live.len());
        let (k, v) = live.swap_remove(at);
        if roll < 8 {
            CrashOp::Delete(k, v)
        } else {
            live.push((k, value));
            CrashOp::Update(k, v, value)
        }
    }
}

/// A data operation on a map of versions of keys writing `value`: an
/// upsert of a key drawn from `0..keys` (40%) or of a live key (25%: a
/// replacement), a delete of a live key's current pair (15%), an update of
/// it (10%), or a delete of a pair some key held before, which must
/// change nothing (10%; a current pair while there is none). About 5/8 of
/// the keys are live in the long run, so the map outgrows a buffer of
/// the index and merges meet versions.
fn key_op(keys: &mut LiveKeys, rng: &mut Xoshiro256PlusPlus, range: u64, value: u64) -> CrashOp {
    let roll = rng.random_range(0..20u32);
    let Some((k, v)) = keys.pick(rng).filter(|_| roll >= 8) else {
        let k = rng.random_range(0..range.max(1));
        keys.set(k, value);
        return CrashOp::Upsert(k, value);
    };
    if let Some((k, v)) = (roll >= 18).then(|| keys.pick_stale(rng)).flatten() {
        return CrashOp::Delete(k, v);
    }
    match roll {
        8..=12 => {
            keys.set(k, value);
            CrashOp::Upsert(k, value)
        }
        13 | 14 => {
            keys.set(k, value);
            CrashOp::Update(k, v, value)
        }
        _ => {
            keys.remove(k);
            CrashOp::Delete(k, v)
        }
    }
}

/// Judges a reopened content (rule 2 of the module doc): `durable` is the
/// oracle at the last completed flush, `after` the operations after it up
/// to and including the one in flight when the power went.
pub fn judge(
    durable: &BTreeSet<(u64, u64)>,
    after: &[CrashOp],
    found: &BTreeSet<(u64, u64)>,
) -> Verdict {
    let mut state = durable.clone();
    if state == *found {
        return Verdict::Survived;
    }
    for op in after {
        op.apply(&mut state);
        if state == *found {
            return Verdict::Survived;
        }
    }
    // Entries the flush made durable that no later operation removed (an
    // upsert removes every pair of its key).
    let mut removed: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut upserted: BTreeSet<u64> = BTreeSet::new();
    for op in after {
        match *op {
            CrashOp::Delete(k, v) | CrashOp::Update(k, v, _) => {
                removed.insert((k, v));
            }
            CrashOp::Upsert(k, _) => {
                upserted.insert(k);
            }
            _ => {}
        }
    }
    let missing = durable
        .iter()
        .filter(|e| !removed.contains(e) && !upserted.contains(&e.0) && !found.contains(e))
        .count();
    if missing > 0 {
        Verdict::Lost(format!(
            "{missing} of {} flushed entries missing ({} found)",
            durable.len(),
            found.len()
        ))
    } else {
        Verdict::Wrong(format!(
            "{} entries match the state after no prefix of the operations ({} after the last flush)",
            found.len(),
            after.len()
        ))
    }
}

pub(super) fn params(c: &CrashConfig) -> Result<Params, String> {
    Params::parse(c.params.iter().map(String::as_str)).map_err(|e| e.to_string())
}

/// A device whose writes are cut by `plan`, and how to reopen it after.
enum Rig {
    Chip(SharedChip<Nand>),
    File(PathBuf),
}

impl Rig {
    fn new(c: &CrashConfig, scenario: u64) -> Result<Rig, String> {
        match &c.device.target {
            Target::Ftl | Target::Raw => {
                let nand = Nand::new(&c.device.name, c.device.geometry, c.device.cost)
                    .map_err(|e| e.to_string())?;
                Ok(Rig::Chip(SharedChip::new(nand)))
            }
            Target::Ssd => Err(
                "crashtest cuts the power of a chip or a file; the SSD model keeps its pages in RAM: use file:PATH or an FTL profile".into(),
            ),
            Target::File(path) => {
                let mut p = path.clone().into_os_string();
                p.push(format!(".{scenario}"));
                Ok(Rig::File(p.into()))
            }
        }
    }

    /// The faulty device the workload runs on (beneath the commit layer
    /// when the spec asks for it).
    fn faulty(&self, c: &CrashConfig, plan: FaultPlan) -> Result<Storage, String> {
        atomic(c, self.faulty_plain(c, plan)?)
    }

    fn faulty_plain(&self, c: &CrashConfig, plan: FaultPlan) -> Result<Storage, String> {
        match self {
            Rig::Chip(chip) => {
                let flash = FaultyFlash::new(chip.clone(), plan);
                match c.device.target {
                    Target::Raw => Ok(Storage::Raw(Box::new(flash))),
                    _ => Ok(Storage::Pages(Box::new(
                        Ftl::new(flash, c.device.ftl).map_err(|e| e.to_string())?,
                    ))),
                }
            }
            Rig::File(path) => {
                let dev = FileDevice::create(
                    path,
                    c.device.geometry.page_size as usize,
                    c.device.file_pages,
                )
                .map_err(|e| e.to_string())?;
                Ok(Storage::Pages(Box::new(FaultyDevice::new(dev, plan))))
            }
        }
    }

    /// The same medium after the reboot, with no faults.
    fn reboot(&self, c: &CrashConfig) -> Result<Storage, String> {
        atomic(c, self.reboot_plain(c)?)
    }

    fn reboot_plain(&self, c: &CrashConfig) -> Result<Storage, String> {
        match self {
            Rig::Chip(chip) => match c.device.target {
                Target::Raw => Ok(Storage::Raw(Box::new(chip.clone()))),
                _ => Ok(Storage::Pages(Box::new(
                    Ftl::mount(chip.clone(), c.device.ftl)
                        .map_err(|e| format!("FTL mount: {e}"))?,
                ))),
            },
            Rig::File(path) => Ok(Storage::Pages(Box::new(
                FileDevice::open(
                    path,
                    c.device.geometry.page_size as usize,
                    c.device.file_pages,
                )
                .map_err(|e| e.to_string())?,
            ))),
        }
    }
}

/// `storage` under the shadow-paging commit layer if `c.device` asks for it.
pub(super) fn atomic(c: &CrashConfig, storage: Storage) -> Result<Storage, String> {
    match storage {
        Storage::Pages(dev) if c.device.atomic => Ok(Storage::Pages(Box::new(
            Shadow::mount_logged(dev, c.device.log_bytes)
                .map_err(|e| format!("commit layer: {e}"))?,
        ))),
        s => Ok(s),
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        if let Rig::File(path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// What a workload run until the power went leaves to judge.
pub(super) struct Cut {
    /// The oracle at the last completed flush.
    pub durable: BTreeSet<(u64, u64)>,
    /// The operations after it, the failed one included.
    pub after: Vec<CrashOp>,
    /// Whether any flush completed.
    pub flushed: bool,
    /// Whether an upsert replaced a key's value that a completed flush
    /// held (`runner::versions`: a newer version that must shadow a
    /// durable one).
    pub replaced: bool,
}

/// Runs `ops` until the first error.
pub(super) fn run_until_cut(index: &mut dyn Index, ops: &[CrashOp]) -> Cut {
    let mut cut = Cut {
        durable: BTreeSet::new(),
        after: Vec::new(),
        flushed: false,
        replaced: false,
    };
    let mut live = BTreeSet::new();
    for op in ops {
        let done = op.run_on(index);
        if let (CrashOp::Upsert(k, _), Ok(())) = (op, &done) {
            cut.replaced |= cut.durable.range((*k, 0)..=(*k, u64::MAX)).next().is_some();
        }
        op.apply(&mut live);
        cut.after.push(*op);
        if done.is_err() {
            break;
        }
        if *op == CrashOp::Flush {
            cut.durable = live.clone();
            cut.after.clear();
            cut.flushed = true;
        }
    }
    cut
}

/// Device writes the uncut workload makes (what a cut point counts).
pub fn uncut_writes(c: &CrashConfig) -> Result<u64, String> {
    c.check()?;
    let rig = Rig::new(c, u64::MAX)?;
    let storage = rig.faulty(c, FaultPlan::default())?;
    let mut index =
        create_index(&c.index, storage, c.memory, params(c)?).map_err(|e| e.to_string())?;
    for op in workload(c) {
        op.run_on(index.as_mut())
            .map_err(|e| format!("the uncut workload fails: {e}"))?;
    }
    let s = index.storage().stats();
    Ok(match c.device.target {
        // The decorator sits under the FTL on the chip: it counts programs.
        Target::Ftl | Target::Raw => s.physical_writes,
        // Beneath the commit layer its own writes count too.
        Target::File(_) | Target::Ssd => s.logical_writes + s.durability_writes,
    })
}

/// One scenario: power cut after `cut_after` writes, torn or not; and
/// whether an upsert replaced a flushed key's value before the cut
/// (`Cut::replaced`). With versions of keys, a lookup of every key the
/// reopened index holds must answer what its scan found, as the lookup
/// stops at the newest component holding the key where the scan merges
/// them all.
pub fn scenario(c: &CrashConfig, number: u64, cut_after: u64, tear: bool) -> (Verdict, bool) {
    if let Err(e) = c.check() {
        return (Verdict::Lost(format!("setup: {e}")), false);
    }
    let ops = workload(c);
    let mut replaced = false;
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Verdict, String> {
        let rig = Rig::new(c, number)?;
        let plan = FaultPlan {
            power_cut_after: Some(cut_after),
            tear_last: tear,
            reorder_unsynced: matches!(rig, Rig::File(_)) && number % 4 >= 2,
            seed: c.seed ^ number,
            ..FaultPlan::default()
        };
        let storage = rig.faulty(c, plan)?;
        let cut = match create_index(&c.index, storage, c.memory, params(c)?) {
            Ok(mut index) => run_until_cut(index.as_mut(), &ops),
            // The cut came while the empty index was being created.
            Err(_) => Cut {
                durable: BTreeSet::new(),
                after: Vec::new(),
                flushed: false,
                replaced: false,
            },
        };
        replaced = cut.replaced;
        let storage = rig.reboot(c)?;
        let mut index = match open_index(&c.index, storage, c.memory, params(c)?) {
            Ok(index) => index,
            Err(_) if !cut.flushed => return Ok(Verdict::Survived),
            Err(e) => return Ok(Verdict::Lost(format!("reopen: {e}"))),
        };
        let mut entries = Vec::new();
        if let Err(e) = index.range(0, u64::MAX, &mut entries) {
            return Ok(if cut.flushed {
                Verdict::Lost(format!("full scan: {e}"))
            } else {
                Verdict::Survived
            });
        }
        let found: BTreeSet<(u64, u64)> = entries.into_iter().collect();
        Ok(match judge(&cut.durable, &cut.after, &found) {
            Verdict::Survived if index.versions_by_key() => lookups(index.as_mut(), &found),
            v => v,
        })
    }));
    let verdict = match outcome {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => Verdict::Lost(format!("setup: {e}")),
        Err(p) => Verdict::Panicked(panic_message(p.as_ref())),
    };
    (verdict, replaced)
}

/// Whether a lookup of every key of `found` (a full scan's answer)
/// answers its values.
fn lookups(index: &mut dyn Index, found: &BTreeSet<(u64, u64)>) -> Verdict {
    let keys: BTreeSet<u64> = found.iter().map(|e| e.0).collect();
    let mut values = Vec::new();
    for k in keys {
        if let Err(e) = index.get(k, &mut values) {
            return Verdict::Lost(format!("lookup of key {k}: {e}"));
        }
        let want: Vec<u64> = found.range((k, 0)..=(k, u64::MAX)).map(|e| e.1).collect();
        if values != want {
            return Verdict::Wrong(format!(
                "key {k}: the lookup answers {values:?}, the scan {want:?}"
            ));
        }
    }
    Verdict::Survived
}

/// The message a caught panic carried.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// Counts over scenarios, with the first few failures described.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashSummary {
    pub scenarios: u64,
    pub survived: u64,
    pub lost: u64,
    pub wrong: u64,
    pub panics: u64,
    /// The uncut workload's device writes (the range of cut points).
    pub writes: u64,
    /// Scenarios in which an upsert replaced a key's value that a
    /// completed flush held, before the cut (`runner::versions`; 0 for a
    /// set of pairs).
    pub replaced: u64,
    pub examples: Vec<String>,
}

impl CrashSummary {
    pub fn failures(&self) -> u64 {
        self.lost + self.wrong + self.panics
    }

    /// Counts a scenario's verdict; a failure's description (`None` for a
    /// survivor).
    pub fn count(&mut self, v: Verdict) -> Option<String> {
        self.scenarios += 1;
        match v {
            Verdict::Survived => {
                self.survived += 1;
                None
            }
            Verdict::Lost(d) => {
                self.lost += 1;
                Some(format!("lost: {d}"))
            }
            Verdict::Wrong(d) => {
                self.wrong += 1;
                Some(format!("wrong: {d}"))
            }
            Verdict::Panicked(d) => {
                self.panics += 1;
                Some(format!("panic: {d}"))
            }
        }
    }
}

/// Runs `scenarios` scenarios (module doc: cut points).
pub fn crash_test(c: &CrashConfig, scenarios: u64) -> Result<CrashSummary, String> {
    let writes = uncut_writes(c)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut s = CrashSummary {
        writes,
        ..CrashSummary::default()
    };
    for i in 0..scenarios {
        let tear = i % 2 == 1;
        let cut_after = if i < scenarios / 2 && i / 2 < writes {
            i / 2
        } else {
            rng.random_range(0..writes.max(1))
        };
        let (verdict, replaced) = scenario(c, i, cut_after, tear);
        s.replaced += u64::from(replaced);
        let Some(detail) = s.count(verdict) else {
            continue;
        };
        if s.examples.len() < 3 {
            let reordered = matches!(c.device.target, Target::File(_)) && i % 4 >= 2;
            s.examples.push(format!(
                "scenario {i}: cut after write {cut_after}{}{}: {detail}",
                if tear { " (torn)" } else { "" },
                if reordered {
                    " (unsynced writes reordered)"
                } else {
                    ""
                }
            ));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(entries: &[(u64, u64)]) -> BTreeSet<(u64, u64)> {
        entries.iter().copied().collect()
    }

    #[test]
    fn a_prefix_state_survives_and_anything_else_is_named() {
        let durable = set(&[(1, 1), (2, 2)]);
        let after = [
            CrashOp::Insert(3, 3),
            CrashOp::Delete(1, 1),
            CrashOp::Update(2, 2, 4),
        ];
        for ok in [
            set(&[(1, 1), (2, 2)]),
            set(&[(1, 1), (2, 2), (3, 3)]),
            set(&[(2, 2), (3, 3)]),
            set(&[(2, 4), (3, 3)]),
        ] {
            assert_eq!(judge(&durable, &after, &ok), Verdict::Survived, "{ok:?}");
        }
        // A flushed entry no later operation removed is gone.
        assert!(matches!(
            judge(&durable, &after[..1], &set(&[(1, 1), (3, 3)])),
            Verdict::Lost(_)
        ));
        assert!(matches!(judge(&durable, &[], &set(&[])), Verdict::Lost(_)));
        // A mix: the delete of (1, 1) without the insert of (3, 3) before it.
        assert!(matches!(
            judge(&durable, &after, &set(&[(2, 2)])),
            Verdict::Wrong(_)
        ));
        // A resurrected or invented entry.
        assert!(matches!(
            judge(&durable, &after, &set(&[(1, 1), (2, 2), (9, 9)])),
            Verdict::Wrong(_)
        ));
    }

    #[test]
    fn the_workload_is_seeded_and_flushes_on_schedule() {
        let c = CrashConfig {
            index: "btree".into(),
            params: vec![],
            memory: 4096,
            device: DeviceSpec::parse("slc-small", &[]).unwrap(),
            ops: 100,
            keys: 50,
            flush_every: 10,
            seed: 3,
            bulk_load: 0,
        };
        let a = workload(&c);
        assert_eq!(a, workload(&c));
        assert_eq!(a.iter().filter(|o| **o == CrashOp::Flush).count(), 10);
        assert_eq!(a.len(), 110);
        // Deletes and updates name live entries.
        let mut live = BTreeSet::new();
        for op in &a {
            match *op {
                CrashOp::Delete(k, v) | CrashOp::Update(k, v, _) => assert!(live.contains(&(k, v))),
                _ => {}
            }
            op.apply(&mut live);
        }
    }
}
