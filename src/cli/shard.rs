//! `reproduce --shard i/n` and `merge`: one machine's share of a sweep, and
//! the single-machine outputs from every share (the format and its
//! invariants: [`crate::experiment::partial`]; the balance:
//! [`crate::experiment::shard`]).

use std::path::Path;

use crate::experiment::partial::{self, Manifest};
use crate::experiment::shard::{estimated_cost, ShardSpec};
use crate::experiment::{self, measured_costs, output, Experiment};

use super::args::{CostsArgs, MergeArgs, ReproduceArgs};
use super::CliResult;

/// Runs shard `spec` of the runs of `chosen` into `OUT/shard-I-of-N/`:
/// each run's file as soon as the run ends, the manifest last. A run whose
/// file an earlier attempt left whole is kept, not run again
/// ([`partial::resume`]); a file not trusted is named on stderr and its run
/// recomputed.
///
/// The shard's runs go through one pool, costliest first, whatever their
/// experiment: a pool per experiment left a thread idle at the end of each
/// experiment while its last run finished (on 2 threads, `reproduce all
/// --shard 0/4` took 1,094 s of wall time for 1,794 s of runs; its
/// `fdtree-fig3a` alone 434 s, one 434-s run beside an idle thread).
pub(super) fn reproduce_shard(
    a: &ReproduceArgs,
    spec: ShardSpec,
    chosen: Vec<Experiment>,
    jobs: usize,
) -> CliResult<()> {
    let plan = partial::plan(&chosen, a.quick, spec.count);
    if a.plan {
        print_plan(&chosen, &plan, a.quick, spec.count);
        return Ok(());
    }
    let dir = partial::shard_dir(&a.out, spec);
    partial::start(&dir)?;
    let mut manifest = Manifest::new(spec, &a.id, &chosen, a.quick);
    manifest.jobs = jobs;
    let mut owned: Vec<Owned> = Vec::new();
    // The runs to compute, from every experiment: (which of `owned`, the
    // position in its sweep), the runs and their estimated costs.
    let mut todo: Vec<(usize, usize)> = Vec::new();
    let mut runs = Vec::new();
    let mut costs = Vec::new();
    for (exp, owner) in chosen.iter().zip(&plan) {
        if let Some(missing) = exp.missing_input() {
            if a.id == "all" {
                eprintln!("skipping {}: {missing}", exp.id);
                manifest.skipped.insert(exp.id.to_string(), missing);
                continue;
            }
            return Err(format!("{}: {missing}", exp.id).into());
        }
        let all = exp.runs(a.quick);
        let of = all.len();
        let mine: Vec<usize> = (0..of).filter(|&i| owner[i] == spec.index).collect();
        let found = partial::resume(&dir, exp, &mine, &all)?;
        for why in &found.distrusted {
            eprintln!("not trusted: {why}");
        }
        let these: Vec<(usize, _)> = mine
            .iter()
            .filter(|i| !found.kept.contains_key(i))
            .map(|&i| (i, all[i].clone()))
            .collect();
        let (positions, exp_runs): (Vec<usize>, Vec<_>) = these.into_iter().unzip();
        costs.extend(experiment::shard::estimated_costs(exp.kind, &exp_runs));
        todo.extend(positions.into_iter().map(|i| (owned.len(), i)));
        runs.extend(exp_runs);
        owned.push(Owned {
            exp,
            of,
            mine,
            kept: found.kept.len(),
            kept_seconds: found.kept.values().sum(),
        });
    }
    let mut computed = vec![0.0f64; owned.len()];
    experiment::run_sweep_each(
        runs,
        &costs,
        jobs,
        a.quiet,
        &format!("shard {spec}"),
        |k, run| {
            let exp = owned[todo[k].0].exp;
            experiment::defs::execute(exp, run).map_err(|e| format!("{}: {e}", exp.id))
        },
        |k, r| {
            let (which, position) = todo[k];
            let o = &owned[which];
            computed[which] += r.seconds;
            partial::write_run(&dir, o.exp, position, o.of, r)
        },
    )?;
    for (o, seconds) in owned.into_iter().zip(computed) {
        // Its runs' time spread over the shard's threads, those kept from
        // an earlier attempt included (the manifest's `seconds`,
        // partial.rs): one pool runs every experiment, so no wall time is
        // an experiment's own.
        manifest.seconds.insert(
            o.exp.id.to_string(),
            (seconds + o.kept_seconds) / jobs.max(1) as f64,
        );
        let resumed = match o.kept {
            0 => String::new(),
            n => format!(", {n} kept from an earlier attempt"),
        };
        println!(
            "{}: {} of {} runs (shard {spec}{resumed}) -> {}",
            o.exp.id,
            o.mine.len(),
            o.of,
            dir.join(o.exp.id).display()
        );
        manifest.runs.insert(o.exp.id.to_string(), o.mine);
    }
    manifest.write(&dir)?;
    println!("shard {spec}: {}", dir.display());
    Ok(())
}

/// One experiment of a shard: its sweep's length, the positions the shard
/// owns, and what an earlier attempt left of them.
struct Owned<'a> {
    exp: &'a Experiment,
    of: usize,
    mine: Vec<usize>,
    /// Runs kept from an earlier attempt, and their recorded seconds.
    kept: usize,
    kept_seconds: f64,
}

/// `--plan`: every run's shard and estimated cost, then each shard's total.
fn print_plan(chosen: &[Experiment], plan: &[Vec<usize>], quick: bool, shards: usize) {
    let mut total = vec![0u64; shards];
    println!("shard\texperiment\trun\tseries\tx\testimated_us");
    for (exp, owner) in chosen.iter().zip(plan) {
        for (i, (run, &s)) in exp.runs(quick).iter().zip(owner).enumerate() {
            let cost = estimated_cost(exp.kind, &run.params);
            total[s] += cost;
            println!("{s}\t{}\t{i}\t{}\t{}\t{cost}", exp.id, run.series, run.x);
        }
    }
    for (s, t) in total.iter().enumerate() {
        println!("# shard {s}/{shards}: {:.1} s estimated", *t as f64 / 1e6);
    }
}

/// Merges the shards under `a.dirs` and writes what `reproduce` would have.
pub(super) fn merge(a: MergeArgs) -> CliResult<()> {
    let merged = partial::merge(&a.dirs)?;
    let all = merged.selection == "all";
    let mut done = Vec::new();
    for m in merged.experiments {
        let outcome = match m.results {
            Ok(results) => {
                let folder =
                    super::write_experiment(&m.experiment, &results, &a.out, merged.quick)?;
                Ok(output::Ran {
                    results,
                    folder,
                    seconds: m.seconds,
                    jobs: m.jobs,
                    quick: merged.quick,
                })
            }
            Err(missing) => {
                eprintln!("not run by the shards: {}: {missing}", m.experiment.id);
                Err(missing)
            }
        };
        done.push((m.experiment, outcome));
    }
    let summary: Option<&Path> = a.summary.as_deref();
    super::write_summary(all, &a.out, summary, merged.quick, &done)?;
    super::print_summary_path(all, &a.out, summary);
    Ok(())
}

/// `flashix costs DIR...`: the measured-cost table
/// ([`measured_costs`]) from each folder's shards (every run's `seconds`:
/// the time its shard's thread spent on it, set-up and report included,
/// every kind of run) or, for a `reproduce` or `merge` output without
/// shards, its reports' `wall_seconds`.
pub(super) fn costs(a: CostsArgs) -> CliResult<()> {
    let mut out = measured_costs::head(&a.note);
    for dir in &a.dirs {
        if !partial::holds_shards(dir) {
            out.push_str(&measured_costs::lines_from_reports(dir)?);
            continue;
        }
        let merged = partial::merge(std::slice::from_ref(dir))?;
        for m in &merged.experiments {
            // An experiment a shard skipped (a missing input) has no times.
            let Ok(runs) = &m.results else { continue };
            for r in runs {
                out.push_str(&measured_costs::line(
                    &r.run.params,
                    r.seconds,
                    m.experiment.id,
                    &r.run.series,
                    &r.run.x,
                ));
            }
        }
    }
    print!("{out}");
    Ok(())
}
