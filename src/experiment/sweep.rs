//! Runs the runs of a sweep in parallel, deterministically.
//!
//! Each run gets a seed from a stable hash (FNV-1a, written out so it never
//! changes with the standard library) of the experiment id and its sorted
//! parameters. Threads take runs from a shared counter and send each result
//! to the calling thread, which stores it by run index, so the output order
//! is the sweep order; it can also keep each result the moment it arrives
//! ([`run_sweep_each`]: a shard's run files, `super::partial`).
//!
//! Runs start costliest first (by the cost model's estimate,
//! `shard::estimated_cost`), longest processing time first: in sweep order
//! a 10^8-entry run could start last and leave one thread working alone at
//! the end (issue #31). Which thread runs what changes nothing a run
//! computes, only when it finishes.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

#[cfg(feature = "cli")]
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Metrics, Params};
#[cfg(not(feature = "cli"))]
use crate::runner::progress::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRun {
    pub series: String,
    pub x: String,
    pub params: Params,
    pub seed: u64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub run: SweepRun,
    pub metrics: Metrics,
    /// The full run report (JSON).
    pub report: serde_json::Value,
    /// The run's wall time (not in any output a single machine writes; a
    /// shard records it, so that the cost model can be checked).
    pub seconds: f64,
}

/// What executing one run gives: its metrics and its full report.
pub type Executed = Result<(Metrics, serde_json::Value), String>;

/// FNV-1a over the id and the sorted `key=value` pairs.
pub fn stable_seed(id: &str, params: &Params) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(id.as_bytes());
    for (k, v) in params {
        eat(b"\0");
        eat(k.as_bytes());
        eat(b"=");
        eat(v.as_bytes());
    }
    h
}

/// `f` of every item, on up to `jobs` threads taking items from a shared
/// counter, starting them in descending order of `costs` (ties in item
/// order; an empty `costs`: item order); the results come back in the
/// items' order, whatever order the threads finished in. A progress bar
/// titled `title` counts them on a terminal unless `quiet`. `None` marks an
/// item without a result, which only a panic in `f` could leave (and
/// `std::thread::scope` passes a panic on to the caller).
pub fn parallel_map<T, R, F>(
    items: &[T],
    costs: &[u64],
    jobs: usize,
    quiet: bool,
    title: &str,
    f: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    parallel_map_each(items, costs, jobs, quiet, title, f, |_, _| true)
}

/// [`parallel_map`], handing each result to `done` (with its item's index)
/// as soon as it exists, in the order the threads finish: `done` runs on
/// the calling thread, which collects the results, so it may write files
/// without a lock. Once `done` returns false the threads start no further
/// item (the ones already started finish and are collected); items never
/// started are `None`.
pub fn parallel_map_each<T, R, F, D>(
    items: &[T],
    costs: &[u64],
    jobs: usize,
    quiet: bool,
    title: &str,
    f: F,
    mut done: D,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
    D: FnMut(usize, &R) -> bool,
{
    let n = items.len();
    let mut order: Vec<usize> = (0..n).collect();
    if costs.len() == n {
        // Stable: equal costs keep the sweep's order.
        order.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut slots: Vec<Option<R>> = (0..n).map(|_| None).collect();
    let bar = if quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} runs ({elapsed})")
        {
            b.set_style(style.progress_chars("=> "));
        }
        b.set_prefix(title.to_string());
        b
    };
    let jobs = jobs.clamp(1, n.max(1));
    std::thread::scope(|scope| {
        let (sender, finished) = mpsc::channel::<(usize, R)>();
        for _ in 0..jobs {
            let sender = sender.clone();
            let (next, stop, order, f) = (&next, &stop, &order, &f);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                let i = order[k];
                // The receiver outlives every sender: it is this scope's.
                if sender.send((i, f(&items[i]))).is_err() {
                    break;
                }
            });
        }
        // The workers hold the only senders left: the loop ends when the
        // last one has finished (or panicked).
        drop(sender);
        for (i, result) in finished {
            if !done(i, &result) {
                stop.store(true, Ordering::Relaxed);
            }
            slots[i] = Some(result);
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    slots
}

/// Runs every run with `execute` on up to `jobs` threads, costliest first
/// by `costs` (one estimate a run; empty: in sweep order). A failed run
/// fails the sweep with an error naming its parameters.
pub fn run_sweep<F>(
    runs: Vec<SweepRun>,
    costs: &[u64],
    jobs: usize,
    quiet: bool,
    title: &str,
    execute: F,
) -> Result<Vec<RunOutcome>, String>
where
    F: Fn(&SweepRun) -> Executed + Sync,
{
    run_sweep_each(
        runs,
        costs,
        jobs,
        quiet,
        title,
        |_, run| execute(run),
        |_, _| Ok(()),
    )
}

/// [`run_sweep`], with `execute` told each run's position in `runs` (a
/// shard's runs come from several experiments), handing each run that
/// succeeded to `finished` (with its position) as soon as it ends, on the calling thread, in the
/// order the runs finish: a shard writes each run's file there, so a kill
/// loses only the runs still running. The other runs go on after a run
/// failed (each that succeeds still reaches `finished`); the first error
/// of `finished` stops the sweep (runs already started end, no other
/// starts, none reaches `finished` any more) and is returned.
pub fn run_sweep_each<F, D>(
    runs: Vec<SweepRun>,
    costs: &[u64],
    jobs: usize,
    quiet: bool,
    title: &str,
    execute: F,
    mut finished: D,
) -> Result<Vec<RunOutcome>, String>
where
    F: Fn(usize, &SweepRun) -> Executed + Sync,
    D: FnMut(usize, &RunOutcome) -> Result<(), String>,
{
    let mut failed_to_keep: Option<String> = None;
    let positioned: Vec<(usize, &SweepRun)> = runs.iter().enumerate().collect();
    let results = parallel_map_each(
        &positioned,
        costs,
        jobs,
        quiet,
        title,
        |&(k, run)| {
            let started = std::time::Instant::now();
            let executed = execute(k, run);
            let seconds = started.elapsed().as_secs_f64();
            executed.map(|(metrics, report)| RunOutcome {
                run: run.clone(),
                metrics,
                report,
                seconds,
            })
        },
        |i, result| {
            if let (Ok(outcome), None) = (result, &failed_to_keep) {
                failed_to_keep = finished(i, outcome).err();
            }
            failed_to_keep.is_none()
        },
    );
    if let Some(e) = failed_to_keep {
        return Err(e);
    }
    let mut out = Vec::with_capacity(runs.len());
    for (run, result) in runs.into_iter().zip(results) {
        match result {
            Some(Ok(outcome)) => out.push(outcome),
            Some(Err(e)) => {
                let params: Vec<String> =
                    run.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                return Err(format!(
                    "run {} (series {}, x {}) failed: {e}",
                    params.join(" "),
                    run.series,
                    run.x
                ));
            }
            None => {
                return Err(format!(
                    "run of series {} at {} did not finish",
                    run.series, run.x
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn run(x: &str) -> SweepRun {
        let mut params = Params::new();
        params.insert("x".into(), x.into());
        SweepRun {
            series: "s".into(),
            x: x.into(),
            seed: stable_seed("t", &params),
            params,
        }
    }

    #[test]
    fn parallel_results_come_back_in_sweep_order() {
        let runs: Vec<SweepRun> = (0..20).map(|i| run(&i.to_string())).collect();
        let out = run_sweep(runs, &[], 4, true, "t", |r| {
            let x: f64 = r.x.parse().map_err(|_| "x".to_string())?;
            std::thread::sleep(std::time::Duration::from_millis((20 - x as u64) % 7));
            Ok((
                Metrics::from([("y".to_string(), 2.0 * x)]),
                serde_json::Value::Null,
            ))
        })
        .unwrap();
        let ys: Vec<f64> = out.iter().map(|o| o.metrics["y"]).collect();
        assert_eq!(ys, (0..20).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
    }

    #[test]
    fn costliest_start_first_and_results_keep_the_sweep_order() {
        let started = Mutex::new(Vec::new());
        let items: Vec<u64> = (0..6).collect();
        let costs = [5, 60, 5, 90, 1, 60];
        let out = parallel_map(&items, &costs, 1, true, "t", |&i| {
            started.lock().unwrap().push(i);
            i * 10
        });
        assert_eq!(started.into_inner().unwrap(), vec![3, 1, 5, 0, 2, 4]);
        let got: Vec<u64> = out.into_iter().map(Option::unwrap).collect();
        assert_eq!(got, vec![0, 10, 20, 30, 40, 50]);
    }

    #[test]
    fn seeds_are_stable_and_failures_name_their_parameters() {
        assert_eq!(run("3").seed, run("3").seed);
        assert_ne!(run("3").seed, run("4").seed);
        // Pinned: the seed must not change between releases.
        assert_eq!(stable_seed("", &Params::new()), 0xcbf2_9ce4_8422_2325);
        let e = run_sweep(vec![run("1"), run("2")], &[], 2, true, "t", |r| {
            if r.x == "2" {
                Err("boom".into())
            } else {
                Ok((Metrics::new(), serde_json::Value::Null))
            }
        })
        .unwrap_err();
        assert!(e.contains("x=2") && e.contains("boom"), "{e}");
    }

    #[test]
    fn each_run_is_handed_over_as_it_finishes_and_a_refusal_stops_the_sweep() {
        // Run 0 waits until runs 1 and 2 were handed over (the other
        // thread runs them), so they must arrive before it.
        let runs: Vec<SweepRun> = (0..3).map(|i| run(&i.to_string())).collect();
        let handed = AtomicUsize::new(0);
        let execute = |k: usize, r: &SweepRun| {
            assert_eq!(r.x, k.to_string(), "execute is told the run's position");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while r.x == "0" && handed.load(Ordering::SeqCst) < 2 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "runs 1 and 2 never arrived"
                );
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok((Metrics::new(), serde_json::Value::Null))
        };
        let mut seen = Vec::new();
        let out = run_sweep_each(runs.clone(), &[], 2, true, "t", execute, |i, o| {
            assert_eq!(o.run, runs[i]);
            seen.push(i);
            handed.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(seen, vec![1, 2, 0]);
        // One thread: refusing run 0 stops the sweep long before its
        // thousand 1-ms runs ran (the thread learns of it in microseconds),
        // and the refusal is the sweep's error.
        let many: Vec<SweepRun> = (0..1000).map(|i| run(&i.to_string())).collect();
        let started = AtomicUsize::new(0);
        let e = run_sweep_each(
            many,
            &[],
            1,
            true,
            "t",
            |_, _| {
                started.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(1));
                Ok((Metrics::new(), serde_json::Value::Null))
            },
            |_, _| Err("disk full".into()),
        )
        .unwrap_err();
        assert_eq!(e, "disk full");
        assert!(started.into_inner() < 1000);
    }
}
