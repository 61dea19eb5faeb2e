//! Fault testing: one failed write or sync (EIO, ENOSPC, or a short write)
//! somewhere in a seeded workload, the caller recovering as the contract
//! tells it to, then a crash; the store reopened must hold its last flush.
//!
//! The contract is rules 6 and 7 of `docs/FORMAT.md`: an error has one
//! meaning, the store is at its last flush. After any error but a rejected
//! input the index refuses every call (`Poisoned`) until it is reopened,
//! and reopening lands at the last successful `flush`, or, when the failed
//! call was a `flush`, at that flush's image (a commit whose sync failed
//! may have landed). A full device is such an error too.
//!
//! One scenario, all in RAM: a RAM disk under a fault decorator
//! ([`FaultyDevice`], one transient failure) under the commit layer
//! ([`Shadow`]), the stack of a file without the file. The index is created
//! on it (or, with a preload, reopened from a flushed image of
//! `preload` bulk-loaded entries), then runs the workload: inserts (70%),
//! deletes of live entries (20%) and lookups (10%), a flush after every
//! `flush_every` of them. When a call fails, the caller retries with a
//! `flush`; if that fails too (the guard refuses it), the caller reopens
//! the index in place (`Index::into_storage`, then `store::open_index`, which
//! drops what was not committed) and goes on from what it finds there.
//! Then the power goes, 0 or 7 operations after the failure or at the end
//! of the workload, and the RAM disk is mounted again with no faults.
//!
//! With `versions=key` in the parameters (an index of versions of keys,
//! `runner::versions`) the workload is a map's: upserts (70%, three in
//! seven of a live key), deletes of a live key's current pair (20%) and
//! lookups (10%).
//!
//! The oracle is a set of (key, value) pairs, exact for every lookup; the
//! images a reopen may show are the last successful flush's and those of
//! the flushes since that ran and failed. Verdicts:
//! * `survived`: every reopen (in place, and after the crash) showed one of
//!   those images and every lookup answered exactly;
//! * `refused`: a clean error that leaves the store at its last flush: no
//!   flush had completed (the fault met the creation or the first flush),
//!   and the reopen after the crash finds no index;
//! * `lost`: a reopen or its scan failed after a flush had completed, or
//!   entries every allowed image holds are missing;
//! * `wrong`: anything else (an entry no allowed image holds, a lookup that
//!   answered wrongly);
//! * `panicked`.
//!
//! How scenarios are chosen: a clean run of the workload on the same stack
//! counts its device writes W and syncs S (those beneath the commit layer,
//! its map pages and commit records included). Every fifth scenario fails a
//! sync, the others a write; the positions are stratified over `1..=W`
//! (resp. `1..=S`), one seeded draw per stratum, so that with at least W
//! write scenarios every write position fails once. The error alternates
//! between EIO and ENOSPC (`FailKind::Io`, `FailKind::Full`); a failed
//! write's data lands whole, lands half (a short write), or does not land,
//! in turn; the crash comes 0 or 7 operations after the first failure or
//! at the end, in turn (the three rotations are out of step, so every
//! combination occurs). Everything follows from `seed`.
//!
//! With a preload, the flushed image of the bulk-loaded index is built once
//! and every scenario starts from a copy, so a scenario costs its workload
//! alone; the workload's keys overlap the preloaded ones (those are the
//! even keys below twice the preload, values `i mod 1000`), so its deletes
//! and lookups reach them too.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::counted::Counted;
use super::crash::{check_count, panic_message};
use super::versions::{self, LiveKeys};
use crate::device::fault::{FailKind, FaultPlan, FaultyDevice, SharedDevice};
use crate::device::ram::RamDisk;
use crate::device::shadow::Shadow;
use crate::device::{BlockDevice, Storage};
use crate::index::{Index, IndexError, Params};
use crate::store::{create_index, open_index};

/// Keys of the workload are drawn below this (or below twice the preload,
/// if more), values below [`VALUES`].
const MIN_KEYS: u64 = 5_000;
const VALUES: u64 = 1_000;
/// Logical pages of the RAM disk at least (it is sparse: size costs
/// nothing until written).
const MIN_CAPACITY: u64 = 1 << 16;

/// A fault test of one index.
#[derive(Clone, Debug)]
pub struct FaultConfig {
    pub index: String,
    /// Index parameters as `K=V`.
    pub params: Vec<String>,
    pub memory: usize,
    /// Data operations of the workload (flushes come on top).
    pub ops: usize,
    pub flush_every: usize,
    pub seed: u64,
    pub scenarios: u64,
    /// Entries bulk-loaded (`Index::bulk_load`) and flushed before the
    /// workload, once; every scenario starts from that image. 0: none, the
    /// index is created by each scenario (the fault may meet its creation).
    pub preload: u64,
    /// Bytes per page of the RAM disk.
    pub page_size: usize,
    /// The commit layer's write-ahead log bound (`store::logged`), as on a
    /// file; 0: no log, every flush commits.
    pub log_bytes: u64,
}

impl FaultConfig {
    /// The defaults of `flashix faulttest` and `tests/index_faults.rs`:
    /// 600 operations with a flush every 40, 16 KiB of memory (small, so
    /// that nodes go to the device between flushes), 512-byte pages, a
    /// write-ahead log of 8 pages (a checkpoint every few flushes, so
    /// that faults meet log appends, checkpoints and replays alike).
    pub fn new(index: &str) -> Self {
        FaultConfig {
            index: index.to_string(),
            params: Vec::new(),
            memory: 16 << 10,
            ops: 600,
            flush_every: 40,
            seed: 42,
            scenarios: 1000,
            preload: 0,
            page_size: 512,
            log_bytes: 8 * 512,
        }
    }

    /// Keys of the workload are drawn from `0..keys()`.
    pub fn keys(&self) -> u64 {
        MIN_KEYS.max(self.preload.saturating_mul(2))
    }

    /// The preloaded entries, ascending.
    pub fn preloaded(&self) -> impl Iterator<Item = (u64, u64)> {
        (0..self.preload).map(|i| (2 * i, i % VALUES))
    }

    fn params(&self) -> Result<Params, String> {
        Params::parse(self.params.iter().map(String::as_str)).map_err(|e| e.to_string())
    }
}

/// One operation of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultOp {
    Insert(u64, u64),
    /// `Index::upsert` (versions of keys, `runner::versions`).
    Upsert(u64, u64),
    Delete(u64, u64),
    Get(u64),
    Flush,
}

/// The seeded workload (module doc): deletes name entries the workload or
/// the preload made live. With `versions=key` in the parameters, a map's
/// (`key_op`). The counts are the caller's to check ([`check_count`]).
pub fn workload(c: &FaultConfig) -> Vec<FaultOp> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.seed);
    let keys = c.keys();
    let mut live: Vec<(u64, u64)> = c.preloaded().collect();
    let mut by_key = versions::by_key(&c.params).then(|| LiveKeys::new(live.drain(..)));
    let every = c.flush_every.max(1);
    let mut ops = Vec::with_capacity(c.ops.min(1 << 20));
    for i in 0..c.ops {
        ops.push(match by_key.as_mut() {
            Some(live) => key_op(live, &mut rng, keys),
            None => pair_op(&mut live, &mut rng, keys),
        });
        if (i + 1) % every == 0 {
            ops.push(FaultOp::Flush);
        }
    }
    ops
}

/// An operation on a set of pairs: an insert (70%), a delete of a live
/// entry (20%), a lookup (10%).
fn pair_op(live: &mut Vec<(u64, u64)>, rng: &mut Xoshiro256PlusPlus, keys: u64) -> FaultOp {
    let roll = rng.random_range(0..10u32);
    if roll < 2 && !live.is_empty() {
        let at = rng.random_range(0..live.len());
        let (k, v) = live.swap_remove(at);
        FaultOp::Delete(k, v)
    } else if roll < 3 {
        FaultOp::Get(rng.random_range(0..keys))
    } else {
        let pair = (rng.random_range(0..keys), rng.random_range(0..VALUES));
        live.push(pair);
        FaultOp::Insert(pair.0, pair.1)
    }
}

/// An operation on a map of versions of keys: a delete of a live key's
/// current pair (20%), a lookup (10%), an upsert of a live key (30%: a
/// replacement) or of a key drawn from `0..keys` (40%).
fn key_op(live: &mut LiveKeys, rng: &mut Xoshiro256PlusPlus, keys: u64) -> FaultOp {
    let roll = rng.random_range(0..10u32);
    let value = rng.random_range(0..VALUES);
    match (roll, live.pick(rng)) {
        (0 | 1, Some((k, v))) => {
            live.remove(k);
            FaultOp::Delete(k, v)
        }
        (2, _) => FaultOp::Get(rng.random_range(0..keys)),
        (3..=5, Some((k, _))) => {
            live.set(k, value);
            FaultOp::Upsert(k, value)
        }
        _ => {
            let k = rng.random_range(0..keys);
            live.set(k, value);
            FaultOp::Upsert(k, value)
        }
    }
}

/// What one scenario found (module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Survived,
    Refused,
    Lost(String),
    Wrong(String),
    Panicked(String),
}

/// Counts over the scenarios of one index, with the first few failures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultSummary {
    pub index: String,
    pub scenarios: u64,
    pub survived: u64,
    pub refused: u64,
    pub lost: u64,
    pub wrong: u64,
    pub panics: u64,
    /// Scenarios in which some call returned an error (the injected fault
    /// reached the caller; in the others it fell on nothing that failed).
    pub errors_seen: u64,
    /// Scenarios in which the caller reopened the index in place.
    pub reopened: u64,
    /// Scenarios in which an upsert replaced a key's value that the last
    /// flush (or reopen) held, before the crash (`runner::versions`; 0
    /// for a set of pairs).
    pub replaced: u64,
    /// Device writes and syncs of the clean run (the range of positions).
    pub writes: u64,
    pub syncs: u64,
    /// Pages of the device (beneath the commit layer) that hold data after
    /// the preload's flush; 0 without a preload.
    pub preload_pages: u64,
    /// The pages the preloaded index says it occupies
    /// (`Index::flash_bytes_used` over the page size).
    pub preload_index_pages: u64,
    pub examples: Vec<String>,
}

impl FaultSummary {
    /// Scenarios that broke the contract.
    pub fn failures(&self) -> u64 {
        self.lost + self.wrong + self.panics
    }
}

/// Runs `c.scenarios` scenarios on `c.index` (module doc). An error means
/// the test could not run (an unknown index, bad parameters, a clean run
/// or a preload that fails).
pub fn run_faults(c: &FaultConfig) -> Result<FaultSummary, String> {
    let ctx = match catch_unwind(AssertUnwindSafe(|| Context::new(c))) {
        Ok(ctx) => ctx?,
        Err(p) => return Err(format!("preparing panicked: {}", panic_message(p.as_ref()))),
    };
    let (writes, syncs) = match catch_unwind(AssertUnwindSafe(|| ctx.clean_counts())) {
        Ok(counts) => counts?,
        Err(p) => {
            return Err(format!(
                "the clean run panicked: {}",
                panic_message(p.as_ref())
            ))
        }
    };
    let mut s = FaultSummary {
        index: c.index.clone(),
        writes,
        syncs,
        preload_pages: ctx.base.as_ref().map_or(0, |b| b.pages_with_data),
        preload_index_pages: ctx.base.as_ref().map_or(0, |b| b.index_pages),
        ..FaultSummary::default()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.seed ^ 0x6a09_e667_f3bc_c908);
    let sync_scenarios = c.scenarios / 5;
    let write_scenarios = c.scenarios - sync_scenarios;
    let (write_step, sync_step) = (coprime_step(write_scenarios), coprime_step(sync_scenarios));
    let (mut w, mut y) = (0u64, 0u64);
    for n in 0..c.scenarios {
        let fail_kind = if n % 2 == 0 {
            FailKind::Io
        } else {
            FailKind::Full
        };
        let plan = if n % 5 == 4 {
            // Strata in a scrambled order, so that the scenarios at one
            // position differ in kind and crash point.
            let stratum =
                (u128::from(y) * u128::from(sync_step) % u128::from(sync_scenarios.max(1))) as u64;
            y += 1;
            FaultPlan {
                fail_sync: Some(stratified(stratum, sync_scenarios, syncs, &mut rng)),
                fail_kind,
                ..FaultPlan::default()
            }
        } else {
            let stratum = (u128::from(w) * u128::from(write_step)
                % u128::from(write_scenarios.max(1))) as u64;
            w += 1;
            let landing = (n / 5) % 3;
            FaultPlan {
                fail_write: Some(stratified(stratum, write_scenarios, writes, &mut rng)),
                fail_lands: landing == 0,
                fail_short: landing == 1,
                fail_kind,
                ..FaultPlan::default()
            }
        };
        let crash_after = [0, 7, usize::MAX][(n % 3) as usize];
        let outcome =
            match catch_unwind(AssertUnwindSafe(|| ctx.scenario(plan.clone(), crash_after))) {
                Ok(Ok(outcome)) => outcome,
                Ok(Err(e)) => Outcome::new(Verdict::Lost(format!("setup: {e}"))),
                Err(p) => Outcome::new(Verdict::Panicked(panic_message(p.as_ref()))),
            };
        s.scenarios += 1;
        s.errors_seen += u64::from(outcome.error_seen);
        s.reopened += u64::from(outcome.reopened);
        s.replaced += u64::from(outcome.replaced);
        let detail = match outcome.verdict {
            Verdict::Survived => {
                s.survived += 1;
                continue;
            }
            Verdict::Refused => {
                s.refused += 1;
                continue;
            }
            Verdict::Lost(d) => {
                s.lost += 1;
                format!("lost: {d}")
            }
            Verdict::Wrong(d) => {
                s.wrong += 1;
                format!("wrong: {d}")
            }
            Verdict::Panicked(d) => {
                s.panics += 1;
                format!("panic: {d}")
            }
        };
        if s.examples.len() < 5 {
            let crash = match crash_after {
                usize::MAX => "at the end".to_string(),
                k => format!("{k} ops after the failure"),
            };
            s.examples
                .push(format!("{} (crash {crash}): {detail}", describe(&plan)));
        }
    }
    Ok(s)
}

/// A step about 0.618 `n` that is coprime with `n`: `j · step mod n` visits
/// every `j < n` once, neighbours far apart.
fn coprime_step(n: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut step = (n as f64 * 0.618) as u64;
    while step < n && gcd(step, n) != 1 {
        step += 1;
    }
    step.clamp(1, n.max(1))
}

/// Position `j` of `n` spread over `1..=total`: the `j`-th of `n` equal
/// strata, a seeded draw inside it, so `n >= total` covers every position.
fn stratified(j: u64, n: u64, total: u64, rng: &mut Xoshiro256PlusPlus) -> u64 {
    let total = total.max(1);
    let n = n.max(1);
    let lo = (u128::from(j) * u128::from(total) / u128::from(n)) as u64;
    let hi = (u128::from(j + 1) * u128::from(total) / u128::from(n)) as u64;
    let at = if hi > lo {
        rng.random_range(lo..hi)
    } else {
        lo
    };
    at.min(total - 1) + 1
}

/// A plan in a failure's description.
fn describe(p: &FaultPlan) -> String {
    let kind = match p.fail_kind {
        FailKind::Io => "EIO",
        FailKind::Full => "ENOSPC",
    };
    match (p.fail_write, p.fail_sync) {
        (Some(w), _) => {
            let landing = if p.fail_short {
                "half landed"
            } else if p.fail_lands {
                "landed"
            } else {
                "not landed"
            };
            format!("{kind} on write {w} ({landing})")
        }
        (None, Some(s)) => format!("{kind} on sync {s}"),
        (None, None) => "no fault".into(),
    }
}

/// The flushed image of the preloaded index: the pages that hold data.
struct Base {
    pages: Vec<(u64, Box<[u8]>)>,
    pages_with_data: u64,
    index_pages: u64,
    /// The oracle after the preload.
    entries: BTreeSet<(u64, u64)>,
}

/// What a scenario needs, built once per index.
struct Context<'a> {
    c: &'a FaultConfig,
    params: Params,
    ops: Vec<FaultOp>,
    capacity: u64,
    base: Option<Base>,
}

/// A scenario's verdict and what the caller went through.
struct Outcome {
    verdict: Verdict,
    error_seen: bool,
    reopened: bool,
    /// An upsert replaced a flushed value (`FaultSummary::replaced`).
    replaced: bool,
}

impl Outcome {
    fn new(verdict: Verdict) -> Self {
        Outcome {
            verdict,
            error_seen: false,
            reopened: false,
            replaced: false,
        }
    }
}

impl<'a> Context<'a> {
    fn new(c: &'a FaultConfig) -> Result<Self, String> {
        if c.page_size == 0 {
            return Err("the page size must be at least 1 byte".into());
        }
        check_count("ops", c.ops as u64)?;
        check_count("preload", c.preload)?;
        let params = c.params()?;
        // Room for the preload several times over (shadow copies, half
        // full nodes); sparse, so the slack costs nothing.
        let capacity =
            MIN_CAPACITY.max((c.preload.saturating_mul(64) / c.page_size as u64).saturating_mul(4));
        let mut ctx = Context {
            c,
            params,
            ops: workload(c),
            capacity,
            base: None,
        };
        if c.preload > 0 {
            ctx.base = Some(ctx.preload()?);
        }
        Ok(ctx)
    }

    fn ram(&self) -> RamDisk {
        RamDisk::new(self.c.page_size, self.capacity)
    }

    /// Creates the index, bulk-loads and flushes it, and keeps the image.
    fn preload(&self) -> Result<Base, String> {
        let ram = SharedDevice::new(Box::new(self.ram()));
        let storage = self.mount(ram.clone())?;
        let mut index = create_index(&self.c.index, storage, self.c.memory, self.params.clone())
            .map_err(|e| e.to_string())?;
        index
            .bulk_load(&mut self.c.preloaded())
            .map_err(|e| format!("preload: {e}"))?;
        index.flush().map_err(|e| format!("preload flush: {e}"))?;
        let index_pages = index.flash_bytes_used() / self.c.page_size as u64;
        drop(index);
        let mut dev = ram;
        let extent = dev.extent_pages().ok_or("the RAM disk reports no extent")?;
        let mut pages = Vec::new();
        let mut buf = vec![0u8; self.c.page_size];
        for lba in 0..extent {
            dev.read(lba, 0, &mut buf)
                .map_err(|e| format!("copying the preload's image: {e}"))?;
            // A page never written reads as zeros: only the last is kept
            // as such, so that the copy has the same extent.
            if buf.iter().any(|&b| b != 0) || lba + 1 == extent {
                pages.push((lba, buf.clone().into_boxed_slice()));
            }
        }
        let pages_with_data = pages
            .iter()
            .filter(|(_, p)| p.iter().any(|&b| b != 0))
            .count() as u64;
        Ok(Base {
            pages,
            pages_with_data,
            index_pages,
            entries: self.c.preloaded().collect(),
        })
    }

    /// A fresh device: empty, or a copy of the preload's image.
    fn device(&self) -> Result<SharedDevice, String> {
        let mut ram = self.ram();
        if let Some(base) = &self.base {
            for (lba, page) in &base.pages {
                ram.write(*lba, 0, page)
                    .map_err(|e| format!("restoring the preload's image: {e}"))?;
            }
        }
        Ok(SharedDevice::new(Box::new(ram)))
    }

    /// The index on `storage`: created, or opened from the preload.
    fn start(&self, storage: Storage) -> Result<Box<dyn Index>, IndexError> {
        let (name, memory, params) = (&self.c.index, self.c.memory, self.params.clone());
        if self.base.is_some() {
            open_index(name, storage, memory, params)
        } else {
            create_index(name, storage, memory, params)
        }
    }

    fn initial(&self) -> BTreeSet<(u64, u64)> {
        self.base
            .as_ref()
            .map_or_else(BTreeSet::new, |b| b.entries.clone())
    }

    /// Writes and syncs beneath the commit layer in a run without faults,
    /// which must answer every lookup exactly.
    fn clean_counts(&self) -> Result<(u64, u64), String> {
        let counted = Counted::new(self.device()?);
        let counts = counted.counts.clone();
        let mut index = self
            .start(self.mount(counted)?)
            .map_err(|e| format!("without faults: {e}"))?;
        let mut live = self.initial();
        let mut out = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            let r = match *op {
                FaultOp::Insert(k, v) => index.insert(k, v).map(|()| {
                    live.insert((k, v));
                }),
                FaultOp::Delete(k, v) => index.delete(k, v).map(|_| {
                    live.remove(&(k, v));
                }),
                FaultOp::Upsert(k, v) => index
                    .upsert(k, v)
                    .map(|()| versions::upsert(&mut live, k, v)),
                FaultOp::Get(k) => index.get(k, &mut out),
                FaultOp::Flush => index.flush(),
            };
            r.map_err(|e| format!("the workload fails without faults: op {i}: {e}"))?;
            if let FaultOp::Get(k) = *op {
                check_get(k, &out, &live).map_err(|e| format!("without faults, op {i}: {e}"))?;
            }
        }
        drop(index);
        Ok(counts.load())
    }

    /// One scenario (module doc); an error is a failure to set it up.
    fn scenario(&self, plan: FaultPlan, crash_after: usize) -> Result<Outcome, String> {
        let ram = self.device()?;
        let faulty = SharedDevice::new(Box::new(FaultyDevice::new(ram.clone(), plan)));
        let mut run = Run {
            live: self.initial(),
            since_flush: Vec::new(),
            last_flush: None,
            failed_flushes: Vec::new(),
            flushed: self.base.is_some(),
            outcome: Outcome::new(Verdict::Survived),
        };
        let mut index = match self.start(self.mount(faulty)?) {
            Ok(index) => Some(index),
            Err(_) => {
                // The fault met the creation (or the opening): nothing was
                // acknowledged, and the caller has no index to go on with.
                run.outcome.error_seen = true;
                None
            }
        };
        let mut failed_at: Option<usize> = None;
        let mut out = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            if failed_at.is_some_and(|f| i > f.saturating_add(crash_after)) {
                break;
            }
            let Some(t) = index.as_mut() else { break };
            let r = match *op {
                FaultOp::Insert(k, v) => t.insert(k, v).map(|()| run.insert((k, v))),
                FaultOp::Delete(k, v) => t.delete(k, v).map(|_| run.remove((k, v))),
                FaultOp::Upsert(k, v) => t.upsert(k, v).map(|()| run.upsert(k, v)),
                FaultOp::Get(k) => {
                    let r = t.get(k, &mut out);
                    // An answer, unlike the image after a crash, must be exact.
                    if r.is_ok() {
                        if let Err(e) = check_get(k, &out, &run.live) {
                            return Ok(run.finish(Verdict::Wrong(format!("op {i}: {e}"))));
                        }
                    }
                    r
                }
                FaultOp::Flush => run.flush(t.as_mut()),
            };
            if r.is_ok() {
                continue;
            }
            failed_at.get_or_insert(i);
            run.outcome.error_seen = true;
            // The caller retries with a flush; refused, it reopens the
            // index where it is and goes on from what it finds.
            if run.flush(t.as_mut()).is_ok() {
                continue;
            }
            let Some(t) = index.take() else { break };
            match self.reopen(t.into_storage(), &mut run) {
                Ok(Some(t)) => index = Some(t),
                Ok(None) => break,
                Err(v) => return Ok(run.finish(v)),
            }
        }
        // The power goes; the device is mounted again, with no faults.
        drop(index);
        let verdict = match open_index(
            &self.c.index,
            self.mount(ram)?,
            self.c.memory,
            self.params.clone(),
        ) {
            Ok(mut t) => match run.judge(t.as_mut()) {
                Ok(()) => Verdict::Survived,
                Err(v) => v,
            },
            Err(IndexError::NoIndex(_)) if !run.flushed => Verdict::Refused,
            Err(e) => Verdict::Lost(format!("reopen after the crash: {e}")),
        };
        Ok(run.finish(verdict))
    }

    /// Reopens the index in place after a refused retry: `Ok(None)` when
    /// there is none yet (nothing was flushed), so the caller stops.
    fn reopen(&self, storage: Storage, run: &mut Run) -> Result<Option<Box<dyn Index>>, Verdict> {
        match open_index(&self.c.index, storage, self.c.memory, self.params.clone()) {
            Ok(mut t) => {
                run.outcome.reopened = true;
                run.judge(t.as_mut())
                    .map_err(|v| prefix(v, "reopened in place: "))?;
                Ok(Some(t))
            }
            Err(IndexError::NoIndex(_)) if !run.flushed => Ok(None),
            Err(e) => Err(Verdict::Lost(format!("reopen in place: {e}"))),
        }
    }
}

/// What the caller knows during a scenario.
struct Run {
    /// The oracle: what the index holds now.
    live: BTreeSet<(u64, u64)>,
    /// Changes to `live` since the last successful flush (the pair, and
    /// whether it was inserted or removed), to undo: an index of thousands
    /// of pages flushes every 40 operations, and a copy of its oracle at
    /// each flush would cost more than the scenario.
    since_flush: Vec<((u64, u64), bool)>,
    /// The last successful flush's image, once `live` no longer leads back
    /// to it through `since_flush` (after a reopen in place).
    last_flush: Option<BTreeSet<(u64, u64)>>,
    /// Images of the flushes since it that ran and failed.
    failed_flushes: Vec<BTreeSet<(u64, u64)>>,
    /// Whether a flush (or the preload's) completed.
    flushed: bool,
    outcome: Outcome,
}

impl Run {
    fn insert(&mut self, pair: (u64, u64)) {
        if self.live.insert(pair) {
            self.since_flush.push((pair, true));
        }
    }

    fn remove(&mut self, pair: (u64, u64)) {
        if self.live.remove(&pair) {
            self.since_flush.push((pair, false));
        }
    }

    /// An upsert, as the oracle sees it (`versions::upsert`); notes one
    /// that replaced a value the last flush (or reopen) held.
    fn upsert(&mut self, key: u64, value: u64) {
        let old: Vec<(u64, u64)> = self
            .live
            .range((key, 0)..=(key, u64::MAX))
            .copied()
            .collect();
        for pair in old {
            self.outcome.replaced |= !self.since_flush.contains(&(pair, true));
            self.remove(pair);
        }
        self.insert((key, value));
    }

    /// A flush, as the oracle sees it: one that ran and failed may have
    /// committed; one the guard refused ran not at all.
    fn flush(&mut self, t: &mut dyn Index) -> Result<(), IndexError> {
        match t.flush() {
            Ok(()) => {
                self.since_flush.clear();
                self.last_flush = None;
                self.failed_flushes.clear();
                self.flushed = true;
                Ok(())
            }
            Err(e) => {
                if !matches!(e, IndexError::Poisoned { .. })
                    && !self.failed_flushes.contains(&self.live)
                {
                    self.failed_flushes.push(self.live.clone());
                }
                Err(e)
            }
        }
    }

    /// What a reopen may show: the last successful flush's image first,
    /// then the failed flushes'.
    fn images(&self) -> Vec<BTreeSet<(u64, u64)>> {
        let last = match &self.last_flush {
            Some(image) => image.clone(),
            None => {
                let mut image = self.live.clone();
                for &(pair, inserted) in self.since_flush.iter().rev() {
                    if inserted {
                        image.remove(&pair);
                    } else {
                        image.insert(pair);
                    }
                }
                image
            }
        };
        let mut all = vec![last];
        all.extend(self.failed_flushes.iter().cloned());
        all
    }

    /// Scans a reopened index: one of the allowed images, which becomes the
    /// oracle, or the verdict.
    fn judge(&mut self, t: &mut dyn Index) -> Result<(), Verdict> {
        let mut entries = Vec::new();
        t.range(0, u64::MAX, &mut entries)
            .map_err(|e| Verdict::Lost(format!("full scan: {e}")))?;
        let found: BTreeSet<(u64, u64)> = entries.into_iter().collect();
        let mut images = self.images();
        judge(&images, &found)?;
        // The images stay what they were until the next flush; `live`
        // starts again from what was found. `images` is never empty: the
        // last flush's comes first.
        self.last_flush = Some(images.swap_remove(0));
        self.since_flush.clear();
        self.live = found;
        Ok(())
    }

    fn finish(self, verdict: Verdict) -> Outcome {
        Outcome {
            verdict,
            ..self.outcome
        }
    }
}

/// Whether `found` is one of `images` (the first the last successful
/// flush's): `lost` when it lacks entries all of them hold, else `wrong`.
pub fn judge(images: &[BTreeSet<(u64, u64)>], found: &BTreeSet<(u64, u64)>) -> Result<(), Verdict> {
    if images.iter().any(|i| i == found) {
        return Ok(());
    }
    let Some((last, others)) = images.split_first() else {
        return Err(Verdict::Wrong(format!(
            "{} entries where no image is allowed",
            found.len()
        )));
    };
    let missing = last
        .iter()
        .filter(|e| !found.contains(e) && others.iter().all(|i| i.contains(e)))
        .count();
    let text = format!(
        "{} entries: {} missing, {} extra against the last flush's {} ({} allowed images)",
        found.len(),
        last.difference(found).count(),
        found.difference(last).count(),
        last.len(),
        images.len()
    );
    Err(if missing > 0 {
        Verdict::Lost(text)
    } else {
        Verdict::Wrong(text)
    })
}

fn prefix(v: Verdict, p: &str) -> Verdict {
    match v {
        Verdict::Lost(d) => Verdict::Lost(format!("{p}{d}")),
        Verdict::Wrong(d) => Verdict::Wrong(format!("{p}{d}")),
        other => other,
    }
}

/// Whether `got` is what the oracle holds under `key`.
fn check_get(key: u64, got: &[u64], live: &BTreeSet<(u64, u64)>) -> Result<(), String> {
    let want: Vec<u64> = live
        .range((key, 0)..=(key, u64::MAX))
        .map(|p| p.1)
        .collect();
    if got == want.as_slice() {
        Ok(())
    } else {
        Err(format!("get({key}) = {got:?}, the oracle has {want:?}"))
    }
}

impl Context<'_> {
    /// `dev` under the commit layer, with the configured log.
    fn mount(&self, dev: impl BlockDevice + 'static) -> Result<Storage, String> {
        Shadow::mount_logged(Box::new(dev), self.c.log_bytes)
            .map(|s| Storage::Pages(Box::new(s)))
            .map_err(|e| format!("commit layer: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(entries: &[(u64, u64)]) -> BTreeSet<(u64, u64)> {
        entries.iter().copied().collect()
    }

    #[test]
    fn an_image_outside_the_allowed_ones_is_lost_or_wrong() {
        let flushed = set(&[(1, 1), (2, 2)]);
        let failed = set(&[(2, 2), (3, 3)]);
        let images = [flushed.clone(), failed.clone()];
        assert_eq!(judge(&images, &flushed), Ok(()));
        assert_eq!(judge(&images, &failed), Ok(()));
        // (2, 2) is in every allowed image.
        assert!(matches!(
            judge(&images, &set(&[(1, 1)])),
            Err(Verdict::Lost(_))
        ));
        // A mix of the two, or an invented entry.
        assert!(matches!(
            judge(&images, &set(&[(1, 1), (2, 2), (3, 3)])),
            Err(Verdict::Wrong(_))
        ));
        assert!(matches!(
            judge(&[flushed], &set(&[(1, 1), (2, 2), (9, 9)])),
            Err(Verdict::Wrong(_))
        ));
    }

    #[test]
    fn positions_cover_every_write_when_scenarios_suffice() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let got: BTreeSet<u64> = (0..40).map(|j| stratified(j, 40, 37, &mut rng)).collect();
        assert_eq!(got, (1..=37).collect());
        // Fewer scenarios: one per stratum, all in range.
        let few: Vec<u64> = (0..10).map(|j| stratified(j, 10, 1000, &mut rng)).collect();
        for (j, p) in few.iter().enumerate() {
            assert!(
                (j as u64 * 100 + 1..=j as u64 * 100 + 100).contains(p),
                "{few:?}"
            );
        }
        assert_eq!(stratified(0, 0, 0, &mut rng), 1);
        // The scrambled order visits every stratum once.
        for n in [1, 2, 3, 10, 160, 800, 1000] {
            let step = coprime_step(n);
            let seen: BTreeSet<u64> = (0..n).map(|j| j * step % n).collect();
            assert_eq!(seen.len() as u64, n, "{n}");
        }
    }

    #[test]
    fn a_short_write_lands_its_first_half() {
        let ram = SharedDevice::new(Box::new(RamDisk::new(8, 4)));
        let plan = FaultPlan {
            fail_write: Some(2),
            fail_short: true,
            fail_lands: true,
            ..FaultPlan::default()
        };
        let mut dev = FaultyDevice::new(ram.clone(), plan);
        dev.write(0, 0, &[1; 8]).unwrap();
        assert!(dev.write(1, 0, &[2; 8]).is_err());
        dev.write(2, 0, &[3; 8]).unwrap();
        let mut ram = ram;
        let mut page = [0u8; 8];
        ram.read(1, 0, &mut page).unwrap();
        assert_eq!(page, [2, 2, 2, 2, 0, 0, 0, 0]);
    }

    #[test]
    fn the_workload_is_seeded_and_reaches_the_preload() {
        let mut c = FaultConfig::new("btree");
        c.preload = 3000;
        let a = workload(&c);
        assert_eq!(a, workload(&c));
        assert_eq!(a.iter().filter(|o| **o == FaultOp::Flush).count(), 15);
        let preloaded: BTreeSet<(u64, u64)> = c.preloaded().collect();
        assert!(a
            .iter()
            .any(|o| matches!(o, FaultOp::Delete(k, v) if preloaded.contains(&(*k, *v)))));
    }

    #[test]
    fn a_small_run_keeps_the_contract() {
        let mut c = FaultConfig::new("btree");
        c.ops = 120;
        c.scenarios = 25;
        let s = run_faults(&c).unwrap();
        assert_eq!(s.scenarios, 25);
        assert_eq!(s.survived + s.refused + s.failures(), 25);
        assert_eq!(s.failures(), 0, "{:#?}", s.examples);
        assert!(s.writes > 0 && s.syncs > 0, "{s:?}");
    }
}
