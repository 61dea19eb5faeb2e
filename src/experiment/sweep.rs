//! Runs the runs of a sweep in parallel, deterministically.
//!
//! Each run gets a seed from a stable hash (FNV-1a, written out so it never
//! changes with the standard library) of the experiment id and its sorted
//! parameters. Threads take runs from a shared counter; results are stored
//! by run index, so the output order is the sweep order.
//!
//! Runs start costliest first (by the cost model's estimate,
//! `shard::estimated_cost`), longest processing time first: in sweep order
//! a 10^8-entry run could start last and leave one thread working alone at
//! the end (issue #31). Which thread runs what changes nothing a run
//! computes, only when it finishes.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// A run's result and its wall time in seconds.
type Timed = (Executed, f64);

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
    let n = items.len();
    let mut order: Vec<usize> = (0..n).collect();
    if costs.len() == n {
        // Stable: equal costs keep the sweep's order.
        order.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
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
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                let i = order[k];
                let result = f(&items[i]);
                // A poisoned slot only means another item panicked; keep ours.
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
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
    let results = parallel_map(&runs, costs, jobs, quiet, title, |run| {
        let started = std::time::Instant::now();
        let result: Timed = (execute(run), started.elapsed().as_secs_f64());
        result
    });
    let mut out = Vec::with_capacity(runs.len());
    for (run, result) in runs.into_iter().zip(results) {
        match result {
            Some((Ok((metrics, report)), seconds)) => out.push(RunOutcome {
                run,
                metrics,
                report,
                seconds,
            }),
            Some((Err(e), _)) => {
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
}
