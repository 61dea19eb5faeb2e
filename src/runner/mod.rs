//! Runs workloads on indexes and reports what the device did.
//!
//! [`run`] executes a preload and a measured phase on one index. Around
//! every measured operation it snapshots the device counters and charges
//! the difference to that operation's type, so work an operation triggers
//! (a split, a buffer flush, garbage collection) counts for it. With
//! `verify`, every answer is checked against an in-memory oracle
//! (`BTreeSet<(key, value)>`); the first disagreement stops the run with
//! [`RunError::Mismatch`]. With a result sink, every search and range
//! answer is printed in trace order (`replay --print-results`).
//!
//! With `final_flush`, the index is flushed once after the last operation,
//! and with `flush_every` after every N measured operations; that work is
//! the `flush` row of `by_op` (one count per flush), so what an index
//! leaves buffered is charged, and indexes compare at the same durability
//! point (everything on the device).
//!
//! Invariants:
//! 1. Σ `by_op` device work (the `flush` row included) + `preload` =
//!    `device_stats`.
//! 2. Output buffers are reused across operations: a run allocates nothing
//!    per operation except what the index itself does.

mod charge;
mod counted;
pub mod crash;
pub mod damage;
pub mod double_fault;
pub mod fault;
mod memory;
pub(crate) mod progress;
pub mod report;
pub mod staged;
pub mod versions;

pub use report::{DeviceReport, IndexDescription, Latency, OpCost, Report};

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::device::{ChargedStats, RunWear};
use crate::index::{Index, IndexError};
use crate::workload::{Op, OpKind, WorkloadError, WorkloadSpec};
use charge::{Accum, KindRun};
use memory::MemoryPeak;
use progress::Progress;

/// Errors of a run.
#[non_exhaustive]
#[derive(Debug)]
pub enum RunError {
    /// The index failed on operation `op_number` (1-based; preload first).
    Index {
        op_number: u64,
        op: Op,
        source: IndexError,
    },
    Workload(WorkloadError),
    /// A flush (`RunOptions::flush_every`, `final_flush`, `preload_flush`) after operation
    /// `after_op` failed.
    Flush {
        after_op: u64,
        source: IndexError,
    },
    /// The index answered differently from the oracle.
    Mismatch {
        op_number: u64,
        op: Op,
        expected: String,
        got: String,
    },
    /// Writing printed results failed.
    Output(std::io::Error),
    /// Building the index from the preload with `Index::bulk_load`
    /// (`RunOptions::bulk_load`) failed.
    BulkLoad {
        source: IndexError,
    },
    /// Reopening a preloaded image (`staged`) failed.
    Reopen {
        source: IndexError,
    },
    /// The index's counted memory passed `RunOptions::memory_limit` after
    /// operation `op_number`: the run stopped there. `tables`: the bytes
    /// of its data-bound tables then (`node::budget`), which tell a budget
    /// the tables alone pass from one the caches and buffers pass.
    OverBudget {
        op_number: u64,
        bytes: u64,
        limit: u64,
        tables: u64,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Index {
                op_number,
                op,
                source,
            } => write!(f, "operation {op_number} (`{op}`): {source}"),
            RunError::Workload(e) => write!(f, "{e}"),
            RunError::Flush { after_op, source } => {
                write!(f, "the flush after operation {after_op}: {source}")
            }
            RunError::Mismatch {
                op_number,
                op,
                expected,
                got,
            } => write!(
                f,
                "wrong answer at operation {op_number} (`{op}`): expected {expected}, got {got}"
            ),
            RunError::Output(e) => write!(f, "writing results: {e}"),
            RunError::BulkLoad { source } => write!(f, "bulk-loading the preload: {source}"),
            RunError::Reopen { source } => write!(f, "reopening the preloaded index: {source}"),
            RunError::OverBudget {
                op_number,
                bytes,
                limit,
                tables,
            } => {
                write!(
                    f,
                    "the index held {bytes} B of memory after operation {op_number}, over the limit of {limit} B"
                )?;
                if *tables > *limit {
                    write!(
                        f,
                        " (its data-bound tables alone held {tables} B: this data needs a budget of at least that)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Index { source, .. } => Some(source),
            RunError::Workload(e) => Some(e),
            RunError::Flush { source, .. } => Some(source),
            RunError::Output(e) => Some(e),
            RunError::BulkLoad { source } | RunError::Reopen { source } => Some(source),
            RunError::Mismatch { .. } | RunError::OverBudget { .. } => None,
        }
    }
}

impl From<WorkloadError> for RunError {
    fn from(e: WorkloadError) -> Self {
        RunError::Workload(e)
    }
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Check every answer against the oracle.
    pub verify: bool,
    /// Never show a progress bar.
    pub quiet: bool,
    /// Expected operations (preload + measured), for the progress bar.
    pub expected_ops: Option<u64>,
    /// Report fields the runner cannot know.
    pub index: IndexDescription,
    pub workload: String,
    pub seed: u64,
    pub memory_budget: u64,
    /// Flush the index after the last operation, charged to the `flush` row.
    pub final_flush: bool,
    /// Flush once after the preload, as part of the setup (not charged to
    /// the measured operations): the measured phase starts from an index
    /// at rest, as a paper that measures an existing index does.
    pub preload_flush: bool,
    /// Build the index from the preload with [`Index::bulk_load`] instead
    /// of inserting it operation by operation: the preload must be inserts
    /// in ascending order (`preload_sorted=true` generates them so). The
    /// [`Index::steady_state_inserts`] share of it, spread evenly over the
    /// keys, is inserted after the load in random order.
    pub bulk_load: bool,
    /// Flush the index after every N measured operations, charged to the
    /// `flush` row (the preload is setup and is not interrupted).
    pub flush_every: Option<u64>,
    /// Stop with [`RunError::OverBudget`] as soon as the index's counted
    /// memory (`Index::memory_bytes`, checked after every operation, the
    /// preload's included) passes this many bytes: a configuration that
    /// cannot stay within a budget need not finish (`flashix advise`).
    pub memory_limit: Option<u64>,
    /// The budget keeps the data-bound tables outside it (the index runs
    /// with `tables=outside`, as Agrawal et al. 2009 §6 keeps the node
    /// table out): track the peak of the memory less the data-bound lines
    /// ([`crate::node::DATA_BOUND_LINES`], read from the index's stats
    /// after every operation), report it as
    /// `Report::memory_peak_unnamed_bytes`, and hold `memory_limit` against
    /// it instead of the whole count. Only data-bound lines are excluded:
    /// a budget-bound line an index reports apart (scratch, frame slack,
    /// delayed lookups) stays in what the budget holds.
    pub exclude_named: bool,
    /// Entries the index already holds when the run starts (a reopened
    /// preload, `staged`): the oracle starts from them with `verify`.
    pub known_entries: Option<Arc<BTreeSet<(u64, u64)>>>,
}

/// Runs the preload, then the measured operations, on `index`.
pub fn run(
    index: &mut dyn Index,
    preload: &mut dyn Iterator<Item = Result<Op, WorkloadError>>,
    ops: &mut dyn Iterator<Item = Result<Op, WorkloadError>>,
    options: &RunOptions,
    results: Option<&mut dyn Write>,
) -> Result<Report, RunError> {
    let wall = Instant::now();
    let start_stats = index.storage().stats();
    let mut checker = Checker {
        oracle: options.verify.then(|| {
            options
                .known_entries
                .as_deref()
                .cloned()
                .unwrap_or_default()
        }),
        values: Vec::new(),
        entries: Vec::new(),
        expected: Vec::new(),
        deferred: HashMap::new(),
        answers: Vec::new(),
        defers: index.defers_lookups(),
    };
    let mut op_number = 0u64;
    let mut memory = MemoryPeak::new(index, options);
    let mut progress = Progress::new(options);
    let mut results = results;

    let mut preload_ops = 0u64;
    if options.bulk_load {
        preload_ops = bulk_load(index, preload, checker.oracle.as_mut(), options.seed)?;
        op_number = preload_ops;
        memory.check(index, options, op_number)?;
    } else {
        let plain = checker.oracle.is_none() && !checker.defers;
        for op in preload {
            let op = op?;
            op_number += 1;
            preload_ops += 1;
            if plain {
                checker.apply_plain(index, op, op_number)?;
            } else {
                checker.apply(index, op, op_number, None)?;
                checker.collect_answers(index, None)?;
            }
            memory.check(index, options, op_number)?;
            progress.tick(op_number);
        }
    }
    if options.preload_flush {
        index.flush().map_err(|source| RunError::Flush {
            after_op: op_number,
            source,
        })?;
        checker.collect_answers(index, None)?;
    }
    let after_preload = index.storage().stats();
    let wear_after_preload = index.storage().wear();
    let preload_index_stats = index.stats();

    // By `OpKind as usize` (declaration order, which is also `OpKind`'s
    // `Ord`, so reports list kinds as an ordered map would).
    let mut accums: [Option<Accum>; OpKind::ALL.len()] = Default::default();
    let mut flushes = Accum::new();
    // Nothing to check, print or collect: `Checker::apply_plain`.
    let plain = checker.oracle.is_none() && results.is_none() && !checker.defers;
    let flush_every = options.flush_every.filter(|&n| n > 0);
    let first = after_preload.charged();
    // The measured operations: the number of the last and the counters
    // after it. What changes every operation is the closure's own, not
    // captured, so that it can stay in registers across the index's calls.
    let mut measured = |index: &mut dyn Index| -> Result<(u64, ChargedStats), RunError> {
        let (plain, flush_every, mut op_number) = (plain, flush_every, op_number);
        // Counters before and after each operation: buffers whose roles swap.
        let (mut snapshot_a, mut snapshot_b) = (first, ChargedStats::default());
        let (mut before, mut after) = (&mut snapshot_a, &mut snapshot_b);
        let mut run = KindRun::default();
        for (op, measured_ops) in ops.zip(1u64..) {
            let op = op?;
            op_number += 1;
            if plain {
                checker.apply_plain(index, op, op_number)?;
            } else {
                checker.apply(index, op, op_number, results.as_deref_mut())?;
                checker.collect_answers(index, results.as_deref_mut())?;
            }
            index.storage().charged_stats(after);
            let kind = op.kind() as usize;
            run.enter(kind, before, &mut accums);
            accums[kind]
                .get_or_insert_with(Accum::new)
                .add_times(after, before);
            std::mem::swap(&mut before, &mut after);
            if flush_every.is_some_and(|n| measured_ops.is_multiple_of(n)) {
                run.end(before, &mut accums);
                charged_flush(index, op_number, &mut flushes, before)?;
                checker.collect_answers(index, results.as_deref_mut())?;
            }
            memory.check(index, options, op_number)?;
            progress.tick(op_number);
        }
        run.end(before, &mut accums);
        Ok((op_number, *before))
    };
    // Through a guard, the loop calls the index it wraps: one `dyn` call an
    // operation, not two, and the guard's test once, not every operation.
    // The guard must see the index's error to poison the index as the
    // failed call would have.
    let mut outcome = None;
    index.run_inner(&mut |inner, poison| {
        let result = measured(inner);
        if let Err(RunError::Index { source, .. } | RunError::Flush { source, .. }) = &result {
            poison(source);
        }
        outcome = Some(result);
    });
    let (op_number, mut counters) = match outcome {
        Some(result) => result?,
        None => measured(index)?,
    };
    if options.final_flush {
        charged_flush(index, op_number, &mut flushes, &mut counters)?;
        checker.collect_answers(index, results)?;
        // A flush empties every buffer: no delayed lookup is left waiting.
        if let Some((&ticket, d)) = checker.deferred.iter().min_by_key(|(_, d)| d.op_number) {
            return Err(RunError::Mismatch {
                op_number: d.op_number,
                op: Op::Search { key: d.key },
                expected: "an answer by the final flush".into(),
                got: format!("none (ticket {ticket})"),
            });
        }
    }
    for a in accums.iter_mut().flatten() {
        a.settle();
    }
    flushes.settle();
    let flush_cost = (flushes.count > 0).then(|| flushes.cost());
    progress.finish();
    let end = index.storage().stats();
    let measured = end.delta(&after_preload);
    let wall_seconds = wall.elapsed().as_secs_f64();
    let wear = index.storage().wear();
    let measured_ops = kinds(&accums).map(|(_, a)| a.count).sum();
    let run_wear = match (&wear_after_preload, &wear) {
        (Some(before), Some(after)) => Some(RunWear::between(before, after, measured_ops)),
        _ => None,
    };
    Ok(Report {
        index: options.index.clone(),
        device: index.storage().info(),
        format: Some(index.format()),
        memory_budget_bytes: options.memory_budget,
        workload: options.workload.clone(),
        seed: options.seed,
        verified: options.verify,
        ops: kinds(&accums)
            .map(|(k, a)| (k.name().to_string(), a.count))
            .collect(),
        preload_ops,
        device_stats: DeviceReport::new(&end.delta(&start_stats), wear),
        wear: run_wear,
        preload: DeviceReport::new(&after_preload.delta(&start_stats), None),
        by_op: kinds(&accums)
            .map(|(k, a)| (k.name().to_string(), a.cost()))
            .chain(flush_cost.map(|c| ("flush".to_string(), c)))
            .collect(),
        time_us: measured.time_us,
        energy_uj: measured.energy_uj,
        memory_peak_bytes: memory.peak,
        memory_peak_unnamed_bytes: options.exclude_named.then_some(memory.unnamed_peak),
        memory_tables_need_bytes: memory.tables_need(options),
        memory_budget_bound_excess_bytes: memory.excess,
        memory_final_bytes: index.memory_bytes() as u64,
        flash_bytes_used: index.flash_bytes_used(),
        index_stats: index.stats(),
        preload_index_stats,
        index_notes: index.notes(),
        wall_seconds,
        ops_per_wall_second: if wall_seconds > 0.0 {
            op_number as f64 / wall_seconds
        } else {
            0.0
        },
    })
}

/// The kinds that ran, in `OpKind` order, with their accumulators.
fn kinds(accums: &[Option<Accum>]) -> impl Iterator<Item = (OpKind, &Accum)> {
    OpKind::ALL
        .iter()
        .zip(accums)
        .filter_map(|(k, a)| a.as_ref().map(|a| (*k, a)))
}

/// Flushes `index` after operation `after_op`, charging the device work
/// since `counters` to `flushes`; leaves the counters after it there.
fn charged_flush(
    index: &mut dyn Index,
    after_op: u64,
    flushes: &mut Accum,
    counters: &mut ChargedStats,
) -> Result<(), RunError> {
    index
        .flush()
        .map_err(|source| RunError::Flush { after_op, source })?;
    let mut after = ChargedStats::default();
    index.storage().charged_stats(&mut after);
    flushes.add(&after, counters);
    *counters = after;
    Ok(())
}

/// The oracle and the reused answer buffers.
struct Checker {
    oracle: Option<BTreeSet<(u64, u64)>>,
    values: Vec<u64>,
    entries: Vec<(u64, u64)>,
    expected: Vec<u64>,
    /// Delayed lookups by ticket, with what the oracle held when each was
    /// issued: an index that batches lookups answers later, and the answer
    /// must be what `get` would have returned then.
    deferred: HashMap<u64, Deferred>,
    answers: Vec<(u64, Vec<u64>)>,
    /// `Index::defers_lookups`, read once: fixed for an index's life (an
    /// option it is built with, or a store opened read-only).
    defers: bool,
}

struct Deferred {
    op_number: u64,
    key: u64,
    expected: Option<Vec<u64>>,
}

impl Checker {
    /// [`Checker::apply`] without oracle, result sink or delayed lookups:
    /// the same call and error, all `apply` does then, in the run's loop.
    #[inline]
    fn apply_plain(
        &mut self,
        index: &mut dyn Index,
        op: Op,
        op_number: u64,
    ) -> Result<(), RunError> {
        let done = match op {
            Op::Insert { key, value } => index.insert(key, value),
            Op::Delete { key, value } => index.delete(key, value).map(drop),
            Op::Update { key, old, new } => index.update(key, old, new).map(drop),
            Op::Search { key } => index.get(key, &mut self.values),
            Op::Range { lo, hi } => index.range(lo, hi, &mut self.entries),
        };
        done.map_err(|source| RunError::Index {
            op_number,
            op,
            source,
        })
    }

    /// Applies `op` to `index`, checks the answer, prints it if asked.
    fn apply(
        &mut self,
        index: &mut dyn Index,
        op: Op,
        op_number: u64,
        results: Option<&mut (dyn Write + '_)>,
    ) -> Result<(), RunError> {
        let Checker {
            oracle,
            values,
            entries,
            expected,
            deferred,
            defers,
            ..
        } = self;
        let fail = |source: IndexError| RunError::Index {
            op_number,
            op,
            source,
        };
        let mismatch = |expected: String, got: String| RunError::Mismatch {
            op_number,
            op,
            expected,
            got,
        };
        match op {
            Op::Insert { key, value } => {
                index.insert(key, value).map_err(fail)?;
                if let Some(o) = oracle {
                    o.insert((key, value));
                }
            }
            Op::Delete { key, value } => {
                let found = index.delete(key, value).map_err(fail)?;
                if let Some(o) = oracle {
                    let want = o.remove(&(key, value));
                    if want != found {
                        return Err(mismatch(want.to_string(), found.to_string()));
                    }
                }
            }
            Op::Update { key, old, new } => {
                let found = index.update(key, old, new).map_err(fail)?;
                if let Some(o) = oracle {
                    let want = o.remove(&(key, old));
                    o.insert((key, new));
                    if want != found {
                        return Err(mismatch(
                            format!("old entry present = {want}"),
                            found.to_string(),
                        ));
                    }
                }
            }
            Op::Search { key } if *defers => {
                let ticket = index.get_later(key).map_err(fail)?;
                let expected = oracle
                    .as_ref()
                    .map(|o| o.range((key, 0)..=(key, u64::MAX)).map(|e| e.1).collect());
                deferred.insert(
                    ticket,
                    Deferred {
                        op_number,
                        key,
                        expected,
                    },
                );
            }
            Op::Search { key } => {
                index.get(key, values).map_err(fail)?;
                if let Some(o) = oracle {
                    expected.clear();
                    expected.extend(o.range((key, 0)..=(key, u64::MAX)).map(|e| e.1));
                    if expected != values {
                        return Err(mismatch(format!("{expected:?}"), format!("{values:?}")));
                    }
                }
                if let Some(out) = results {
                    write!(out, "S {key}:").map_err(RunError::Output)?;
                    for v in values.iter() {
                        write!(out, " {v}").map_err(RunError::Output)?;
                    }
                    writeln!(out).map_err(RunError::Output)?;
                }
            }
            Op::Range { lo, hi } => {
                index.range(lo, hi, entries).map_err(fail)?;
                if let Some(o) = oracle {
                    let ok = o
                        .range((lo, 0)..=(hi, u64::MAX))
                        .copied()
                        .eq(entries.iter().copied());
                    if !ok {
                        let want: Vec<(u64, u64)> =
                            o.range((lo, 0)..=(hi, u64::MAX)).copied().collect();
                        return Err(mismatch(format!("{want:?}"), format!("{entries:?}")));
                    }
                }
                if let Some(out) = results {
                    write!(out, "R {lo} {hi}:").map_err(RunError::Output)?;
                    for (k, v) in entries.iter() {
                        write!(out, " {k}:{v}").map_err(RunError::Output)?;
                    }
                    writeln!(out).map_err(RunError::Output)?;
                }
            }
        }
        Ok(())
    }
}

impl Checker {
    /// Checks the delayed lookups `index` answered since the last call
    /// against what the oracle held when each was issued, and prints them
    /// (`S key: values`, in the order they are answered).
    fn collect_answers(
        &mut self,
        index: &mut dyn Index,
        results: Option<&mut (dyn Write + '_)>,
    ) -> Result<(), RunError> {
        if !self.defers {
            return Ok(());
        }
        index.take_answers(&mut self.answers);
        let mut results = results;
        for (ticket, got) in self.answers.drain(..) {
            let Some(d) = self.deferred.remove(&ticket) else {
                return Err(RunError::Mismatch {
                    op_number: 0,
                    op: Op::Search { key: 0 },
                    expected: "answers to lookups issued".into(),
                    got: format!("an answer for unknown ticket {ticket}"),
                });
            };
            if let Some(want) = &d.expected {
                if *want != got {
                    return Err(RunError::Mismatch {
                        op_number: d.op_number,
                        op: Op::Search { key: d.key },
                        expected: format!("{want:?}"),
                        got: format!("{got:?}"),
                    });
                }
            }
            if let Some(out) = results.as_deref_mut() {
                write!(out, "S {}:", d.key).map_err(RunError::Output)?;
                for v in &got {
                    write!(out, " {v}").map_err(RunError::Output)?;
                }
                writeln!(out).map_err(RunError::Output)?;
            }
        }
        Ok(())
    }
}

/// The preload's inserts as the (key, value) pairs of a bulk load, entered
/// in the oracle as they pass; the first operation that is not an insert
/// (or fails to generate) ends them and is kept as the run's error. Every
/// `total / upper`-th pair (exactly `upper` of them, spread evenly over the
/// key space) is set aside instead, to be inserted after the load.
struct PreloadPairs<'a> {
    ops: &'a mut dyn Iterator<Item = Result<Op, WorkloadError>>,
    oracle: Option<&'a mut BTreeSet<(u64, u64)>>,
    total: u64,
    upper: u64,
    taken: u64,
    set_aside: Vec<(u64, u64)>,
    failure: Option<RunError>,
}

impl PreloadPairs<'_> {
    /// Whether pair `i` (0-based) is set aside.
    fn aside(&self, i: u64) -> bool {
        let (i, u, n) = (i as u128, self.upper as u128, self.total.max(1) as u128);
        (i + 1) * u / n > i * u / n
    }
}

impl Iterator for PreloadPairs<'_> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        while self.failure.is_none() {
            match self.ops.next()? {
                Ok(Op::Insert { key, value }) => {
                    let aside = self.aside(self.taken);
                    self.taken += 1;
                    if let Some(o) = self.oracle.as_deref_mut() {
                        o.insert((key, value));
                    }
                    if aside {
                        self.set_aside.push((key, value));
                    } else {
                        return Some((key, value));
                    }
                }
                Ok(op) => {
                    self.failure = Some(RunError::Workload(WorkloadError::Config(format!(
                        "a bulk-loaded preload holds only inserts, but its operation {} is `{op}`",
                        self.taken + 1
                    ))));
                }
                Err(e) => self.failure = Some(e.into()),
            }
        }
        None
    }

    /// Exact when the preload's is: what remains, less what is still to
    /// be set aside.
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.ops.size_hint() {
            (lo, Some(hi)) if lo == hi => {
                let left_aside = (self.upper as usize).saturating_sub(self.set_aside.len());
                let n = lo.saturating_sub(left_aside);
                (n, Some(n))
            }
            _ => (0, None),
        }
    }
}

/// Builds `index` from the preload: [`Index::bulk_load`] for all but the
/// entries that bring it to its steady state
/// ([`Index::steady_state_inserts`]), which are then inserted in random
/// order. Returns the number of entries.
fn bulk_load(
    index: &mut dyn Index,
    preload: &mut dyn Iterator<Item = Result<Op, WorkloadError>>,
    oracle: Option<&mut BTreeSet<(u64, u64)>>,
    seed: u64,
) -> Result<u64, RunError> {
    let total = match preload.size_hint() {
        (lo, Some(hi)) if lo == hi => hi as u64,
        _ => 0,
    };
    let mut pairs = PreloadPairs {
        ops: preload,
        oracle,
        total,
        upper: index.steady_state_inserts(total).min(total),
        taken: 0,
        set_aside: Vec::new(),
        failure: None,
    };
    let loaded = index.bulk_load(&mut pairs);
    if let Some(f) = pairs.failure {
        return Err(f);
    }
    loaded.map_err(|source| RunError::BulkLoad { source })?;
    let mut upper = pairs.set_aside;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xB01C_10AD);
    upper.shuffle(&mut rng);
    let loaded_ops = pairs.taken - upper.len() as u64;
    for (i, (key, value)) in upper.into_iter().enumerate() {
        index.insert(key, value).map_err(|source| RunError::Index {
            op_number: loaded_ops + i as u64 + 1,
            op: Op::Insert { key, value },
            source,
        })?;
    }
    Ok(pairs.taken)
}

/// `spec`'s keys must fit the index's entry format.
pub(crate) fn check_keys(index: &dyn Index, spec: &WorkloadSpec) -> Result<(), RunError> {
    let format = index.format();
    if spec.key_max > format.max_key() {
        return Err(RunError::Workload(WorkloadError::Config(format!(
            "workload keys reach {} but {}-byte keys hold at most {}; lower key_max or set key_bytes=8",
            spec.key_max,
            format.key_bytes,
            format.max_key()
        ))));
    }
    Ok(())
}

/// Runs a synthetic workload on `index`: its preload, then its measured
/// operations, continuing from the preload's live set. Checks first that
/// the workload's keys fit the index's entry format.
pub fn run_workload(
    index: &mut dyn Index,
    spec: &WorkloadSpec,
    mut options: RunOptions,
    results: Option<&mut dyn Write>,
) -> Result<Report, RunError> {
    check_keys(index, spec)?;
    let format = index.format();
    options.workload = spec.describe();
    options.seed = spec.seed;
    options.expected_ops = Some(spec.preload + spec.ops * if spec.search_after { 2 } else { 1 });
    // The measured phase continues from the preload's final state (live
    // set, value counter), from the preload's own generator.
    let (mut pre, mut measured) = crate::workload::phases::phases(spec, format.max_value())?;
    run(index, &mut pre, &mut measured, &options, results)
}

#[cfg(test)]
mod guard_tests;
