//! Double faults (issue #41): a crash that leaves one copy of something the
//! commit layer writes twice, recovery, acknowledged flushes, then one
//! damaged page, the copy the crash left. The contract (`docs/FORMAT.md`,
//! rules 1–3) says one damaged page costs no acknowledged flush; before
//! recovery repaired what a crash left single, this sequence lost every
//! flush after the crash (a log page's primary damaged, its mirror never
//! written, so the log ended there) or opened at the commit before (copy 0
//! of the commit record damaged, copy 1 never written).
//!
//! One scenario, all in RAM (the stack of a file without the file: a RAM
//! disk under a power-cut decorator under the commit layer with its
//! write-ahead log):
//!
//! 1. the seeded crash workload (`runner::crash`) runs until the power is
//!    cut right after a write that has a twin: a log page's primary (its
//!    mirror is the next write) or copy 0 of a commit record (copy 1 is);
//! 2. the medium is mounted again and the index reopened (recovery), and
//!    what it holds must be the last flush plus a prefix of what came
//!    after (`crash::judge`);
//! 3. three acknowledged flushes follow, of inserts and a delete (with
//!    `versions=key`, `runner::versions`: upserts, one of them of a key
//!    the round before flushed);
//! 4. the index is dropped, the page the crash left single is zeroed, and
//!    the medium is mounted again: a full scan must give exactly the state
//!    after the third flush.
//!
//! Positions: a clean run of the workload over a recording counter (the
//! fault runner's) beneath the commit layer lists every write with a
//! twin; the scenarios take them evenly, up to the number asked for. The configuration is a fault
//! test's (`runner::fault::FaultConfig`: index, memory, pages, log and
//! workload size; no preload). Verdicts as `runner::crash`'s.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::counted::Counted;
use super::crash::{
    judge, panic_message, run_until_cut, workload, CrashConfig, CrashOp, CrashSummary, Verdict,
};
use super::fault::FaultConfig;
use crate::device::fault::{FaultPlan, FaultyDevice, SharedDevice};
use crate::device::ram::RamDisk;
use crate::device::shadow::Shadow;
use crate::device::Storage;
use crate::device::{BlockDevice, DeviceSpec};
use crate::index::{Index, IndexError, Params};
use crate::store::{create_index, open_index};

/// Logical pages of the RAM disk (sparse: size costs nothing until written).
const CAPACITY: u64 = 1 << 16;

/// The crash workload a double-fault test of `c` runs (`c` is a fault
/// test's configuration: the same index, memory, pages, log and workload
/// size; a double fault starts from an empty store, so no preload).
fn crash_config(c: &FaultConfig) -> Result<CrashConfig, String> {
    if c.preload > 0 {
        return Err("double faults start from an empty store: no preload".into());
    }
    Ok(CrashConfig {
        index: c.index.clone(),
        params: c.params.clone(),
        memory: c.memory,
        device: DeviceSpec::parse("slc-small", &[]).map_err(|e| e.to_string())?,
        ops: c.ops,
        keys: (c.ops as u64).max(64) * 4,
        flush_every: c.flush_every,
        seed: c.seed,
        bulk_load: 0,
    })
}

/// Which write has a twin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twin {
    /// A log page's primary (the mirror comes next).
    LogPrimary,
    /// Copy 0 of a commit record (copy 1 comes next).
    CommitCopy,
}

/// What the test found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DoubleFaultSummary {
    /// Scenarios by verdict (`writes`: the clean run's writes beneath the
    /// commit layer), with the first failures described.
    pub counts: CrashSummary,
    /// Positions found in the clean run, by kind.
    pub log_positions: u64,
    pub commit_positions: u64,
}

/// Writes (1-based positions) that have a twin, and the page each wrote.
fn twins(writes: &[(u64, Vec<u8>)]) -> Vec<(u64, u64, Twin)> {
    let mut found = Vec::new();
    for (i, pair) in writes.windows(2).enumerate() {
        let ((lba, data), (next_lba, next)) = (&pair[0], &pair[1]);
        if data.starts_with(b"FXLG") && data == next && lba != next_lba {
            found.push((i as u64 + 1, *lba, Twin::LogPrimary));
        } else if *lba == 0 && *next_lba == 1 && data.starts_with(b"FXSHADOW") && data == next {
            found.push((i as u64 + 1, 0, Twin::CommitCopy));
        }
    }
    found
}

/// Runs the test (module doc).
pub fn double_fault_test(c: &FaultConfig) -> Result<DoubleFaultSummary, String> {
    if c.page_size < 128 || c.ops == 0 || c.flush_every == 0 {
        return Err(
            "double faults need pages of at least 128 bytes, operations and flushes".into(),
        );
    }
    let cc = crash_config(c)?;
    let params = Params::parse(c.params.iter().map(String::as_str)).map_err(|e| e.to_string())?;
    let ops = workload(&cc);
    // The clean run, recorded.
    let ram = SharedDevice::new(Box::new(RamDisk::new(c.page_size, CAPACITY)));
    let recorder = Counted::recording(ram);
    let counts = recorder.counts.clone();
    let storage = mount(Box::new(recorder), c.log_bytes)?;
    let mut index =
        create_index(&c.index, storage, c.memory, params.clone()).map_err(|e| e.to_string())?;
    for op in &ops {
        op.run_on(index.as_mut())
            .map_err(|e| format!("the clean workload fails: {e}"))?;
    }
    drop(index);
    let writes = counts
        .recorded
        .lock()
        .map(|mut r| r.take().unwrap_or_default())
        .unwrap_or_default();
    let (recorded, total) = (twins(&writes), writes.len() as u64);
    let count = |kind| recorded.iter().filter(|t| t.2 == kind).count() as u64;
    let mut s = DoubleFaultSummary {
        log_positions: count(Twin::LogPrimary),
        commit_positions: count(Twin::CommitCopy),
        counts: CrashSummary {
            writes: total,
            ..CrashSummary::default()
        },
    };
    let n = recorded.len() as u64;
    let take = c.scenarios.min(n);
    for j in 0..take {
        let (cut, page, twin) = recorded[(j * n / take.max(1)) as usize];
        let mut replaced = false;
        let run = || scenario(c, &params, &ops, (cut, page), &mut replaced);
        let v = match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => Verdict::Lost(format!("setup: {e}")),
            Err(p) => Verdict::Panicked(panic_message(p.as_ref())),
        };
        s.counts.replaced += u64::from(replaced);
        if let Some(detail) = s.counts.count(v) {
            if s.counts.examples.len() < 3 {
                s.counts.examples.push(format!(
                    "cut after write {cut} ({twin:?} at page {page}), then page {page} zeroed: {detail}"
                ));
            }
        }
    }
    Ok(s)
}

fn mount(dev: Box<dyn BlockDevice>, log_bytes: u64) -> Result<Storage, String> {
    Ok(Storage::Pages(Box::new(
        Shadow::mount_logged(dev, log_bytes).map_err(|e| format!("commit layer: {e}"))?,
    )))
}

/// Every entry of `index`.
fn scan(index: &mut dyn Index) -> Result<BTreeSet<(u64, u64)>, String> {
    let mut entries = Vec::new();
    index
        .range(0, u64::MAX, &mut entries)
        .map_err(|e| format!("full scan: {e}"))?;
    Ok(entries.into_iter().collect())
}

/// One scenario (module doc, steps 1–4): the power cut after write `cut`,
/// which left `single_page` single; `replaced`: whether an upsert before
/// the cut replaced a flushed key's value (`crash::Cut::replaced`).
fn scenario(
    c: &FaultConfig,
    params: &Params,
    ops: &[CrashOp],
    (cut, single_page): (u64, u64),
    replaced: &mut bool,
) -> Result<Verdict, String> {
    let ram = SharedDevice::new(Box::new(RamDisk::new(c.page_size, CAPACITY)));
    let plan = FaultPlan {
        power_cut_after: Some(cut),
        ..FaultPlan::default()
    };
    let faulty = FaultyDevice::new(ram.clone(), plan);
    let (durable, after) = match create_index(
        &c.index,
        mount(Box::new(faulty), c.log_bytes)?,
        c.memory,
        params.clone(),
    ) {
        Ok(mut index) => {
            let cut = run_until_cut(index.as_mut(), ops);
            *replaced = cut.replaced;
            (cut.durable, cut.after)
        }
        // The cut met the creation's own commit: nothing was promised.
        Err(_) => (BTreeSet::new(), Vec::new()),
    };
    // 2. Recovery; a store whose creation the cut met may hold no index,
    // and is then created anew over what the crash left, as
    // `Store::open_or_create` does.
    let reopened = open_index(
        &c.index,
        mount(Box::new(ram.clone()), c.log_bytes)?,
        c.memory,
        params.clone(),
    );
    let mut index = match reopened {
        Ok(index) => index,
        Err(IndexError::NoIndex(_)) if durable.is_empty() && after.is_empty() => create_index(
            &c.index,
            mount(Box::new(ram.clone()), c.log_bytes)?,
            c.memory,
            params.clone(),
        )
        .map_err(|e| format!("creating anew after the crash: {e}"))?,
        Err(e) => return Ok(Verdict::Lost(format!("reopen after the crash: {e}"))),
    };
    let mut oracle = match scan(index.as_mut()) {
        Ok(found) => found,
        Err(e) => return Ok(Verdict::Lost(e)),
    };
    match judge(&durable, &after, &oracle) {
        Verdict::Survived => {}
        v => return Ok(v),
    }
    // 3. Three acknowledged flushes; with versions of keys, of upserts,
    // one of them of a key the round before flushed.
    let by_key = index.versions_by_key();
    for round in 0..3u64 {
        let mut writes: Vec<CrashOp> = (0..5u64)
            .map(|i| {
                let key = 1_000_000 + round * 100 + i;
                if by_key {
                    CrashOp::Upsert(key, round)
                } else {
                    CrashOp::Insert(key, round)
                }
            })
            .collect();
        if by_key && round > 0 {
            writes.push(CrashOp::Upsert(1_000_000 + (round - 1) * 100, 10 + round));
        }
        for op in writes {
            op.run_on(index.as_mut())
                .map_err(|e| format!("{op:?} after recovery: {e}"))?;
            op.apply(&mut oracle);
        }
        if let Some(&(k, v)) = oracle.iter().next() {
            index
                .delete(k, v)
                .map_err(|e| format!("delete after recovery: {e}"))?;
            oracle.remove(&(k, v));
        }
        index
            .flush()
            .map_err(|e| format!("flush after recovery: {e}"))?;
    }
    drop(index);
    // 4. The copy the crash left single, damaged.
    let mut dev = ram.clone();
    dev.write(single_page, 0, &vec![0u8; c.page_size])
        .map_err(|e| e.to_string())?;
    let mut index = match open_index(
        &c.index,
        mount(Box::new(ram), c.log_bytes)?,
        c.memory,
        params.clone(),
    ) {
        Ok(index) => index,
        Err(e) => return Ok(Verdict::Lost(format!("reopen after the damage: {e}"))),
    };
    let found = match scan(index.as_mut()) {
        Ok(found) => found,
        Err(e) => return Ok(Verdict::Lost(e)),
    };
    Ok(judge(&oracle, &[], &found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twins_are_a_log_primary_and_copy_zero_of_a_commit() {
        let log = b"FXLG....".to_vec();
        let meta = b"FXSHADOW".to_vec();
        let writes = vec![
            (5, vec![1u8; 8]),
            (7, log.clone()),
            (8, log.clone()),
            (0, meta.clone()),
            (1, meta.clone()),
            (9, log.clone()),
            (9, log),
        ];
        assert_eq!(
            twins(&writes),
            [(2, 7, Twin::LogPrimary), (4, 0, Twin::CommitCopy)]
        );
    }
}
