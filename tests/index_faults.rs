//! Every index through the library when its device fails once (issue #28,
//! findings 1-4): a seeded run of inserts, deletes and lookups with a flush
//! every 40 operations, over the commit layer on a RAM disk (a file's
//! stack, without the file), where one write or one sync fails with an I/O
//! error or `Full`, its data landing or not. The caller retries the failed
//! call, then goes on with more operations, a flush among them, and the
//! power goes at a later point. Mounted again, the index must open and hold
//! exactly the entries of its last successful flush (or of a flush that
//! returned an error, which may have committed): every flushed operation
//! present, nothing extra. Before the guard (`index::guard`) and the commit
//! layer's fixes, a write error inside an operation left the index wrong
//! in RAM and a later successful flush saved it (finding 3), and a retried
//! commit did not write what the failed one had not (finding 1).
//!
//! `FLASHIX_FAULT_SCENARIOS` sets the scenarios per index (default 1,000).

use std::collections::BTreeSet;

use flashix::device::fault::{FailKind, FaultPlan, FaultyDevice, SharedDevice};
use flashix::device::ram::RamDisk;
use flashix::device::shadow::Shadow;
use flashix::device::{BlockDevice, Storage};
use flashix::index::{registry, Index, Params};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const OPS: usize = 600;
const FLUSH_EVERY: usize = 40;
const MEMORY: usize = 16 << 10;

#[derive(Clone, Copy, Debug)]
enum Op {
    Insert(u64, u64),
    Delete(u64, u64),
    Get(u64),
    Flush,
}

fn workload(seed: u64) -> Vec<Op> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut live: Vec<(u64, u64)> = Vec::new();
    let mut ops = Vec::new();
    for i in 0..OPS {
        if i % FLUSH_EVERY == FLUSH_EVERY - 1 {
            ops.push(Op::Flush);
            continue;
        }
        let x = rng.random_range(0..10);
        if x < 2 && !live.is_empty() {
            let at = rng.random_range(0..live.len());
            let (k, v) = live.swap_remove(at);
            ops.push(Op::Delete(k, v));
        } else if x < 3 {
            ops.push(Op::Get(rng.random_range(0..5_000)));
        } else {
            let pair = (rng.random_range(0..5_000), rng.random_range(0..1_000));
            live.push(pair);
            ops.push(Op::Insert(pair.0, pair.1));
        }
    }
    ops
}

fn none() -> Params {
    Params::parse(std::iter::empty::<&str>()).unwrap()
}

fn scan(t: &mut dyn Index) -> Result<BTreeSet<(u64, u64)>, String> {
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out)
        .map_err(|e| format!("scan: {e}"))?;
    Ok(out.into_iter().collect())
}

/// Writes and syncs of a clean run of `ops` on `name`.
fn clean_counts(name: &str, ops: &[Op]) -> (u64, u64) {
    let ram = SharedDevice::new(Box::new(RamDisk::new(512, 1 << 16)));
    let disk = Shadow::mount(Box::new(ram.clone())).unwrap();
    let mut t = registry::create(name, Storage::Pages(Box::new(disk)), MEMORY, none()).unwrap();
    let mut out = Vec::new();
    let mut syncs = 1; // create's
    for op in ops {
        match *op {
            Op::Insert(k, v) => t.insert(k, v).unwrap(),
            Op::Delete(k, v) => drop(t.delete(k, v).unwrap()),
            Op::Get(k) => t.get(k, &mut out).unwrap(),
            Op::Flush => {
                t.flush().unwrap();
                syncs += 1;
            }
        }
    }
    drop(t);
    (ram.stats().logical_writes, syncs)
}

/// One scenario; an error says what went wrong.
fn scenario(name: &str, ops: &[Op], plan: FaultPlan, crash_after: usize) -> Result<(), String> {
    let ram = SharedDevice::new(Box::new(RamDisk::new(512, 1 << 16)));
    let faulty = FaultyDevice::new(ram.clone(), plan);
    let disk = Shadow::mount(Box::new(faulty)).map_err(|e| e.to_string())?;
    let Ok(mut t) = registry::create(name, Storage::Pages(Box::new(disk)), MEMORY, none()) else {
        // The fault met the creation: nothing was acknowledged.
        return Ok(());
    };
    let mut live = BTreeSet::new();
    // The images a remount may show: the last flush that returned Ok, and
    // the flushes since that returned an error.
    let mut images = vec![BTreeSet::new()];
    let mut failed_at = None;
    let mut flushed_ok = false;
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        if failed_at.is_some_and(|f| i > f + crash_after) {
            break;
        }
        let r = match *op {
            Op::Insert(k, v) => t.insert(k, v).map(|()| {
                live.insert((k, v));
            }),
            Op::Delete(k, v) => t.delete(k, v).map(|found| {
                if found {
                    live.remove(&(k, v));
                }
            }),
            Op::Get(k) => {
                let r = t.get(k, &mut out);
                let want: Vec<u64> = live.range((k, 0)..=(k, u64::MAX)).map(|p| p.1).collect();
                // An answer, unlike the image after a crash, must be exact.
                if r.is_ok() && out != want {
                    return Err(format!(
                        "op {i}: get({k}) = {out:?}, the model has {want:?}"
                    ));
                }
                r
            }
            Op::Flush => match t.flush() {
                Ok(()) => {
                    images = vec![live.clone()];
                    flushed_ok = true;
                    Ok(())
                }
                Err(e) => {
                    images.push(live.clone());
                    Err(e)
                }
            },
        };
        if r.is_err() {
            failed_at.get_or_insert(i);
            // The caller retries with a flush; whatever it says, it goes on.
            if t.flush().is_ok() {
                images = vec![live.clone()];
                flushed_ok = true;
            } else {
                images.push(live.clone());
            }
        }
    }
    // The power goes: the device is mounted again.
    drop(t);
    let disk = Shadow::mount(Box::new(ram)).map_err(|e| format!("remount: {e}"))?;
    let mut t = match registry::open(name, Storage::Pages(Box::new(disk)), MEMORY, none()) {
        Ok(t) => t,
        // Nothing ever committed (creating an index commits nothing until
        // its first flush): no index is the image of no flush.
        Err(flashix::index::IndexError::NoIndex(_)) if !flushed_ok => return Ok(()),
        Err(e) => return Err(format!("reopen: {e}")),
    };
    let got = scan(t.as_mut())?;
    if images.contains(&got) {
        Ok(())
    } else {
        let last = &images[0];
        Err(format!(
            "reopened with {} entries ({} missing, {} extra against the last Ok flush of {})",
            got.len(),
            last.difference(&got).count(),
            got.difference(last).count(),
            last.len()
        ))
    }
}

#[test]
fn every_index_keeps_its_last_flush_through_a_failed_write_or_sync() {
    let per_index: usize = std::env::var("FLASHIX_FAULT_SCENARIOS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let ops = workload(11);
    let mut failures = Vec::new();
    let mut total = 0;
    for info in registry::list() {
        let name = info.name;
        let (writes, syncs) = clean_counts(name, &ops);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(writes);
        for s in 0..per_index {
            let kind = if s % 2 == 0 {
                FailKind::Io
            } else {
                FailKind::Full
            };
            let plan = if s % 5 == 4 {
                FaultPlan {
                    fail_sync: Some(rng.random_range(1..=syncs)),
                    fail_kind: kind,
                    ..FaultPlan::default()
                }
            } else {
                FaultPlan {
                    fail_write: Some(rng.random_range(1..=writes)),
                    fail_lands: s % 3 == 0,
                    fail_kind: kind,
                    ..FaultPlan::default()
                }
            };
            let crash_after = [0, 7, OPS][s % 3];
            total += 1;
            if let Err(e) = scenario(name, &ops, plan.clone(), crash_after) {
                failures.push(format!("{name}: {plan:?}, crash +{crash_after}: {e}"));
            }
        }
    }
    assert!(total >= per_index * registry::list().len(), "{total}");
    assert!(
        failures.is_empty(),
        "{} of {total} scenarios failed; the first ones: {:#?}",
        failures.len(),
        &failures[..failures.len().min(8)]
    );
}
