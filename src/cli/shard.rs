//! `reproduce --shard i/n` and `merge`: one machine's share of a sweep, and
//! the single-machine outputs from every share (the format and its
//! invariants: [`crate::experiment::partial`]; the balance:
//! [`crate::experiment::shard`]).

use std::path::Path;

use crate::experiment::partial::{self, Manifest};
use crate::experiment::shard::{estimated_cost, ShardSpec};
use crate::experiment::{self, output, Experiment};

use super::args::{MergeArgs, ReproduceArgs};
use super::CliResult;

/// Runs shard `spec` of the runs of `chosen` into `OUT/shard-I-of-N/`:
/// each run's file as soon as the run ends, the manifest last. A run whose
/// file an earlier attempt left whole is kept, not run again
/// ([`partial::resume`]); a file not trusted is named on stderr and its run
/// recomputed.
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
    for (exp, owner) in chosen.iter().zip(&plan) {
        if let Some(missing) = exp.missing_input() {
            if a.id == "all" {
                eprintln!("skipping {}: {missing}", exp.id);
                manifest.skipped.insert(exp.id.to_string(), missing);
                continue;
            }
            return Err(format!("{}: {missing}", exp.id).into());
        }
        let started = std::time::Instant::now();
        let all = exp.runs(a.quick);
        let of = all.len();
        let mine: Vec<usize> = (0..of).filter(|&i| owner[i] == spec.index).collect();
        let found = partial::resume(&dir, exp, &mine, &all)?;
        for why in &found.distrusted {
            eprintln!("not trusted: {why}");
        }
        let (todo, runs): (Vec<usize>, Vec<_>) = mine
            .iter()
            .filter(|i| !found.kept.contains_key(i))
            .map(|&i| (i, all[i].clone()))
            .unzip();
        let costs = experiment::shard::estimated_costs(exp.kind, &runs);
        experiment::run_sweep_each(
            runs,
            &costs,
            jobs,
            a.quiet,
            exp.id,
            |run| experiment::defs::execute(exp, run),
            |k, r| partial::write_run(&dir, exp, todo[k], of, r),
        )?;
        // This attempt's time, plus the kept runs' own spread over this
        // attempt's threads (the manifest's `seconds`, partial.rs).
        let kept: f64 = found.kept.values().sum::<f64>() / jobs.max(1) as f64;
        manifest
            .seconds
            .insert(exp.id.to_string(), started.elapsed().as_secs_f64() + kept);
        let resumed = match found.kept.len() {
            0 => String::new(),
            n => format!(", {n} kept from an earlier attempt"),
        };
        println!(
            "{}: {} of {of} runs (shard {spec}{resumed}) -> {}",
            exp.id,
            mine.len(),
            dir.join(exp.id).display()
        );
        manifest.runs.insert(exp.id.to_string(), mine);
    }
    manifest.write(&dir)?;
    println!("shard {spec}: {}", dir.display());
    Ok(())
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
