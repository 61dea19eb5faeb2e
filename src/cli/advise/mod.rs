//! `flashix advise` (issue #30): for this workload, this memory budget and
//! this flash, which index, configured how, and how long the flash lasts.
//!
//! 1. **Candidates** ([`grid`]): every index that runs on the device, over
//!    the parameters its paper says matter.
//! 2. **Sizing.** On a simulated FTL chip whose size was not chosen, every
//!    configuration runs once on the sparse chip for its footprint, and the
//!    chip is sized and preconditioned as `compare` does it
//!    (`cli::sizing`: the largest footprint at `--occupancy`, 0.8 by
//!    default). Raw chips, SSD models and files keep their size.
//! 3. **Runs** ([`exec`]): every configuration on its own device, in
//!    parallel, the preloaded image shared among configurations that would
//!    build the same one; a configuration whose counted memory passes the
//!    budget is stopped there and left out.
//! 4. **Choice** ([`front`]): the Pareto front over time, energy and page
//!    writes per operation, memory and wear (the projected lifetime), and
//!    the recommendation: `--optimize M`'s best, or the front's balanced
//!    member; with the `flashix run` command that reproduces its numbers
//!    (`--preload-reopen` for the two stages, `--device-set blocks=N
//!    --cold-pages C` for the sized, preconditioned chip) and how it
//!    compares with the best B+-tree.
//!
//! Every figure is the device layer's, measured over the workload's
//! measured operations (a preload is setup); none is a published number.
//! A long trace is advised on a prefix ([`trace`]): the per-operation
//! figures are the prefix's, and two checks say whether they stand for the
//! whole trace: the prefix's mix of operations against each window of the
//! trace's, and advice on the prefix's first half (a second pass) against
//! advice on the prefix. A prefix that fails the second is doubled (a
//! third pass, the one before it now its half) until two agree or the
//! whole trace runs, unless `--ops N` fixed it.

mod exec;
mod front;
mod grid;
mod output;
mod trace;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::device::profile::Target;
use crate::device::DeviceSpec;
use crate::index::kinds::registry;
use crate::runner::{Report, RunOptions};

use super::args::{AdviseArgs, IndexArgs, WorkloadArgs};
use super::{
    describe, device, job, lifetime, memory, refuse_to_clobber_path, sizing, workload_spec,
    CliResult,
};
use exec::{Outcome, Phase};
use front::{Objective, Point};
use grid::Candidate;

/// One configuration and what became of it.
pub struct Row {
    pub cand: Candidate,
    pub outcome: Outcome,
    /// Its measures, where it ran.
    pub point: Option<Point>,
    /// Memory as the budget counts it (`--exclude-node-tables` leaves the
    /// data-bound lines out): what the printed `run` command reports.
    pub counted_memory: u64,
    /// Within the budget and the lifetime constraint.
    pub eligible: bool,
    /// Why not, where it ran but is not eligible.
    pub excluded: Option<String>,
}

/// The measures of a run (`front` module doc).
fn point(label: &str, cfg: &IndexArgs, r: &Report, memory: u64) -> Point {
    let ops = r.measured_ops().max(1) as f64;
    let writes: u64 = r.by_op.values().map(|c| c.page_writes).sum();
    let reads: u64 = r.by_op.values().map(|c| c.page_reads).sum();
    Point {
        label: label.to_string(),
        index: cfg.index.clone(),
        time_us: r.time_us / ops,
        energy_uj: r.energy_uj / ops,
        writes: writes as f64 / ops,
        page_io: (reads + writes) as f64 / ops,
        memory: memory as f64,
        wear: r
            .wear
            .as_ref()
            .map(|w| w.busiest_erases as f64 / w.ops.max(1) as f64),
    }
}

/// The file configuration `label` runs on beside the user's `path`
/// (removed after the runs).
fn scratch_file(path: &Path, label: &str) -> PathBuf {
    let tag: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".advise-{tag}"));
    PathBuf::from(name)
}

/// The index names of `--indexes`, checked.
fn chosen_indexes(list: &str) -> CliResult<Vec<String>> {
    let known: Vec<&str> = registry::list().iter().map(|i| i.name).collect();
    list.split(',')
        .map(|n| {
            let n = n.trim();
            if known.contains(&n) {
                Ok(n.to_string())
            } else {
                Err(format!(
                    "--indexes: unknown index `{n}`; known: {}",
                    known.join(", ")
                )
                .into())
            }
        })
        .collect()
}

/// What a finished advice holds, for the output.
pub struct Advice {
    pub spec: DeviceSpec,
    pub sizing: Option<sizing::Sizing>,
    pub memory: u64,
    pub workload: String,
    pub rows: Vec<Row>,
    pub objective: Objective,
    pub rate: Option<f64>,
    pub years: Option<f64>,
    /// Indices into `rows`: the front, the recommendation, the best
    /// B+-tree.
    pub front: Vec<usize>,
    pub pick: Option<usize>,
    pub best_btree: Option<usize>,
    /// The best configuration of each other index (`Choice::others`).
    pub others: Vec<(usize, f64, bool)>,
    pub prefix: Option<trace::Prefix>,
    pub staged: bool,
    pub timing: output::Timing,
}

pub fn advise(a: AdviseArgs) -> CliResult<()> {
    let started = Instant::now();
    let spec = device(&a.device)?;
    let mem = memory(&a.memory)?;
    let objective = match &a.optimize {
        Some(o) => o.parse::<Objective>()?,
        None => Objective::Balanced,
    };
    let rate = lifetime::check_rate(a.ops_per_day)?;
    if let Some(y) = a.years {
        if !(y.is_finite() && y > 0.0) {
            return Err(format!("--years must be a positive number, got {y}").into());
        }
    }
    let occupancy = sizing::parse_occupancy(&a.occupancy)?;
    let fill = sizing::check_fit(a.fill, occupancy)?;
    let mut workload = super::compare::main_job_workload(&a.workload);
    if a.bulk_load {
        if workload.trace.is_some() {
            return Err(
                "--bulk-load builds the index from a generated preload; a trace has none".into(),
            );
        }
        workload.workload_set.push("preload_sorted=true".into());
    }
    let mut prefix = trace::prefix(&mut workload, a.prefix)?;
    let described = match &workload.trace {
        Some(p) => format!("trace {}", p.display()),
        None => workload_spec(&workload, "mbtree")?.describe(),
    };
    let mut cands = grid::candidates(&spec, mem);
    if let Some(list) = &a.indexes {
        let chosen = chosen_indexes(list)?;
        cands.retain(|c| chosen.contains(&c.cfg.index));
    }
    // The tables outside the budget: every configuration runs with
    // `tables=outside` (its label unchanged; the printed command says it
    // with `--exclude-node-tables`, `output::command`).
    for c in &mut cands {
        super::tables_outside(&mut c.cfg.set, a.exclude_node_tables)?;
    }
    if cands.is_empty() {
        return Err(format!("no index of --indexes runs on {}", spec.name).into());
    }
    if let Target::File(path) = &spec.target {
        // The user's file is never written; each configuration's scratch
        // file beside it must not be one of the user's either.
        for c in &cands {
            refuse_to_clobber_path(
                &scratch_file(path, &c.label),
                false,
                "advise runs each configuration on a scratch file of that name; move it",
            )?;
        }
    }
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let mut timing = output::Timing {
        jobs,
        ..output::Timing::default()
    };
    let setup = Setup {
        a: &a,
        spec: &spec,
        mem,
        cands: &cands,
        jobs,
        occupancy,
        fill,
        objective,
        rate,
    };
    let mut pass = setup.pass(&workload)?;
    let mut runs = pass.runs;
    if let Some((kinds, p)) = prefix.as_mut() {
        // The check (`trace` module doc): advice on the first half.
        let check_started = Instant::now();
        let mut half_workload = workload.clone();
        half_workload.ops = Some(p.taken / 2);
        let mut half = setup.pass(&half_workload)?;
        runs += half.runs;
        loop {
            p.check = Some(pass.check_against(&half, p.taken / 2));
            let stable = p.check.as_ref().is_some_and(|c| c.stable);
            if stable || !p.extends || p.whole() {
                break;
            }
            let next = p.taken.saturating_mul(2).min(p.total);
            let started_at = p.started_at.unwrap_or(p.taken);
            *p = kinds.prefix(next, true);
            p.started_at = Some(started_at);
            workload.ops = Some(next);
            half = std::mem::replace(&mut pass, setup.pass(&workload)?);
            runs += pass.runs;
        }
        timing.check_seconds = check_started.elapsed().as_secs_f64();
    }
    timing.wall_seconds = started.elapsed().as_secs_f64();
    timing.runs = runs;
    timing.sizing = pass.sizing_timing.take();
    timing.measuring = std::mem::take(&mut pass.measuring_timing);
    let advice = Advice {
        spec: pass.run_spec,
        sizing: pass.sized,
        memory: mem as u64,
        workload: described,
        rows: pass.rows,
        objective,
        rate,
        years: a.years,
        front: pass.choice.front,
        pick: pass.choice.pick,
        best_btree: pass.choice.best_btree,
        others: pass.choice.others,
        prefix: prefix.map(|(_, p)| p),
        staged: pass.staged,
        timing,
    };
    output::write(&advice, &a, &workload)
}

/// What every pass of an advice shares: the arguments, the device, the
/// budget and the candidates.
struct Setup<'a> {
    a: &'a AdviseArgs,
    spec: &'a DeviceSpec,
    mem: usize,
    cands: &'a [Candidate],
    jobs: usize,
    occupancy: Option<f64>,
    fill: f64,
    objective: Objective,
    rate: Option<f64>,
}

/// One pass: every candidate sized and run over one workload, and the
/// choice among them.
struct Pass {
    run_spec: DeviceSpec,
    sized: Option<sizing::Sizing>,
    rows: Vec<Row>,
    choice: Choice,
    /// Whether the runs were staged (`job::staged`).
    staged: bool,
    /// Runs made, and the sizing and measured phases' wall seconds and
    /// sharing.
    runs: usize,
    sizing_timing: Option<(f64, exec::Sharing)>,
    measuring_timing: (f64, exec::Sharing),
}

impl Pass {
    /// The recommendation's label and index.
    fn picked(&self) -> (Option<String>, Option<String>) {
        match self.choice.pick {
            Some(i) => (
                Some(self.rows[i].cand.label.clone()),
                Some(self.rows[i].cand.cfg.index.clone()),
            ),
            None => (None, None),
        }
    }

    /// The indexes this pass cannot tell apart from its pick: the pick's,
    /// and the runner-up's where the two are a near tie.
    fn tied_indexes(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .choice
            .pick
            .iter()
            .map(|&i| self.rows[i].cand.cfg.index.as_str())
            .collect();
        for &(i, _, tie) in &self.choice.others {
            if tie {
                v.push(&self.rows[i].cand.cfg.index);
            }
        }
        v
    }

    /// This pass checked against `half`, its first `half_ops` operations:
    /// stable where the two name the same index, or one names the other's
    /// near tie.
    fn check_against(&self, half: &Pass, half_ops: u64) -> trace::Check {
        let (half_label, half_index) = half.picked();
        let ours = self.picked().1;
        let stable = match (&ours, &half_index) {
            (Some(o), Some(h)) => {
                o == h
                    || self.tied_indexes().contains(&h.as_str())
                    || half.tied_indexes().contains(&o.as_str())
            }
            (o, h) => o == h,
        };
        trace::Check {
            half: half_ops,
            stable,
            half_label,
            half_index,
        }
    }
}

impl Setup<'_> {
    /// Sizing (on a sizable chip), the measured runs and the choice, over
    /// `workload`.
    fn pass(&self, workload: &WorkloadArgs) -> CliResult<Pass> {
        let mut runs = 0;
        let mut sizing_timing = None;
        let (a, spec, mem, cands) = (self.a, self.spec, self.mem, self.cands);
        let staged = job::staged(workload, true)?;
        let options = |cfg: &IndexArgs| RunOptions {
            quiet: true,
            index: describe(cfg),
            memory_budget: mem as u64,
            final_flush: true,
            memory_limit: Some(mem as u64),
            exclude_named: a.exclude_node_tables,
            verify: a.verify,
            bulk_load: a.bulk_load,
            preload_flush: a.bulk_load,
            ..RunOptions::default()
        };
        // Sizing: every configuration once on the sparse chip.
        let mut outcomes: Vec<Option<Outcome>> = vec![None; cands.len()];
        // Every sizing run is on the sparse chip.
        let sparse = |_: &str| spec.clone();
        let phase = |device, title| Phase {
            memory: mem,
            workload,
            jobs: self.jobs,
            quiet: a.quiet,
            share: !a.no_shared_preload,
            staged,
            options: &options,
            device,
            title,
        };
        let (run_spec, sized) = if sizing::sizable(spec, self.occupancy) {
            let phase_started = Instant::now();
            let (first, sharing) = exec::run_all(&phase(&sparse, "advise: sizing"), cands);
            runs += cands.len();
            let mut footprints = Vec::new();
            for (i, (c, o)) in cands.iter().zip(first).enumerate() {
                match &o {
                    Outcome::Ran(r) => match r.device.footprint_pages {
                        Some(p) => footprints.push((c.label.clone(), p.max(1))),
                        None => outcomes[i] = Some(Outcome::Failed("no footprint".into())),
                    },
                    _ => outcomes[i] = Some(o),
                }
            }
            sizing_timing = Some((phase_started.elapsed().as_secs_f64(), sharing));
            sizing::sized_from(spec, footprints, self.fill, self.occupancy)?
        } else {
            (spec.clone(), None)
        };
        // The runs that count, on the sized chip.
        let survivors: Vec<usize> = (0..cands.len())
            .filter(|&i| outcomes[i].is_none())
            .collect();
        let measured: Vec<Candidate> = survivors.iter().map(|&i| cands[i].clone()).collect();
        let device_for = |label: &str| match (&sized, &run_spec.target) {
            (Some(s), _) => s.spec_for(&run_spec, label),
            // Runs in parallel cannot share one file, and the user's file
            // is not advise's to write: each configuration gets its own
            // beside it.
            (None, Target::File(path)) => {
                let mut s = run_spec.clone();
                s.target = Target::File(scratch_file(path, label));
                s
            }
            (None, _) => run_spec.clone(),
        };
        let phase_started = Instant::now();
        let (second, sharing) = exec::run_all(&phase(&device_for, "advise"), &measured);
        runs += measured.len();
        let measuring_timing = (phase_started.elapsed().as_secs_f64(), sharing);
        for (i, o) in survivors.into_iter().zip(second) {
            outcomes[i] = Some(o);
        }
        if let Target::File(path) = &run_spec.target {
            for c in cands {
                let _ = std::fs::remove_file(scratch_file(path, &c.label));
            }
        }
        let rows = rows_of(cands.to_vec(), outcomes, mem as u64, self.rate, a.years);
        let choice = choose(&rows, self.objective);
        Ok(Pass {
            run_spec,
            sized,
            rows,
            choice,
            staged,
            runs,
            sizing_timing,
            measuring_timing,
        })
    }
}

/// The rows of `cands` and their outcomes, with measures and eligibility.
fn rows_of(
    cands: Vec<Candidate>,
    outcomes: Vec<Option<Outcome>>,
    budget: u64,
    rate: Option<f64>,
    years: Option<f64>,
) -> Vec<Row> {
    cands
        .into_iter()
        .zip(outcomes)
        .map(|(cand, o)| {
            let outcome = o.unwrap_or_else(|| Outcome::Failed("did not run".into()));
            let (point, counted, excluded) = match &outcome {
                Outcome::Ran(r) => {
                    // The budget's count: the peak, or with
                    // `--exclude-node-tables` the peak besides the
                    // data-bound tables.
                    let counted = r.memory_counted_bytes();
                    let p = point(&cand.label, &cand.cfg, r, counted);
                    let short = match (rate, years, &r.wear) {
                        (Some(rate), Some(y), Some(w)) => {
                            w.lifetime(rate).years().filter(|&got| got < y).map(|got| {
                                format!("lifetime {} < {y} years", lifetime::years_text(Some(got)))
                            })
                        }
                        _ => None,
                    };
                    let over = (counted > budget).then(|| {
                        format!(
                            "memory {} over the budget",
                            super::format::memory_text(counted as f64)
                        )
                    });
                    (Some(p), counted, over.or(short))
                }
                _ => (None, 0, None),
            };
            Row {
                eligible: point.is_some() && excluded.is_none(),
                cand,
                outcome,
                point,
                counted_memory: counted,
                excluded,
            }
        })
        .collect()
}

/// The choice, as row indices (`front` module doc).
pub struct Choice {
    pub front: Vec<usize>,
    pub pick: Option<usize>,
    pub best_btree: Option<usize>,
    /// The best configuration of each other index, best first, its score
    /// over the pick's, and whether the two are a near tie
    /// (`front::others`).
    pub others: Vec<(usize, f64, bool)>,
}

/// The front, the recommendation, the best B+-tree and the runner-up.
fn choose(rows: &[Row], objective: Objective) -> Choice {
    let eligible: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].eligible).collect();
    let points: Vec<&Point> = eligible
        .iter()
        .filter_map(|&i| rows[i].point.as_ref())
        .collect();
    let Some((pick, front)) = front::choose(&points, objective) else {
        return Choice {
            front: Vec::new(),
            pick: None,
            best_btree: None,
            others: Vec::new(),
        };
    };
    let others = front::others(&points, pick, objective)
        .into_iter()
        .map(|(i, r, tie)| (eligible[i], r, tie))
        .collect();
    let btrees: Vec<usize> = eligible
        .iter()
        .copied()
        .filter(|&i| rows[i].cand.cfg.index == "btree")
        .collect();
    let btree_points: Vec<&Point> = btrees
        .iter()
        .filter_map(|&i| rows[i].point.as_ref())
        .collect();
    let best_btree = front::choose(&btree_points, objective).map(|(b, _)| btrees[b]);
    Choice {
        front: front.into_iter().map(|i| eligible[i]).collect(),
        pick: Some(eligible[pick]),
        best_btree,
        others,
    }
}
