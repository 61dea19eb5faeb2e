//! Partial results of a sharded `reproduce` and their merge: the on-disk
//! format a shard writes and `flashix merge` reads.
//!
//! `flashix reproduce SEL --shard i/n --out OUT` writes one folder,
//! `OUT/shard-i-of-n/` (so the shards of a job array may share one `OUT`):
//!
//! ```text
//! OUT/shard-i-of-n/ID/run-NNNN.json   one per run of experiment ID this shard ran
//! OUT/shard-i-of-n/shard.json         the manifest, written last: the shard finished
//! ```
//!
//! A run file (`"format": "flashix-run/1"`) holds `experiment` (its id),
//! `run` (its position in the experiment's sweep, from 0), `of` (the
//! sweep's length), `series`, `x`, `seed`, `params`, `metrics` (numbers;
//! a non-finite one as the string `"NaN"`, `"inf"` or `"-inf"`), `report`
//! (the run's full report, as in `ID.json`), `seconds` (the run's wall
//! time) and `estimated_cost` (the cost model's estimate of it, µs). That is everything the single-machine writer
//! ([`super::output::write_all`]) reads of a run.
//!
//! The manifest (`"format": "flashix-shard/1"`) holds `shard` and `shards`
//! (i and n), `selection` (the experiment argument as given: `all` or ids),
//! `experiments` (the ids it resolved to, in order), `quick`, `jobs`,
//! `runs` (per experiment, the sweep positions this shard ran), `skipped`
//! (per experiment not run here, why: a missing input) and `seconds` (per
//! experiment, this shard's wall time on it).
//!
//! Invariants:
//! 1. The runs a shard owns follow from (experiments, quick, n) alone
//!    ([`plan`]): the cost model over every run of every selected
//!    experiment, then [`super::shard::assign`]. A merge recomputes the
//!    plan and refuses a manifest that disagrees with it (another flashix
//!    version or other definitions), a shard found twice, and a shard
//!    missing, naming the shard and its runs.
//! 2. The merged results are each experiment's runs in sweep order, with
//!    exactly the series, x, seed, parameters, metrics and report the run
//!    produced: the outputs written from them are byte-identical to a
//!    single-machine run's, except the wall-clock fields, which differ
//!    between any two runs (sharded or not): `report.wall_seconds` and
//!    `report.ops_per_wall_second` in `ID.json`, the time metrics of runs
//!    on a real file (`asbtree-disk`, `ssd-table1`'s file rows), and the
//!    "Run time" line of a summary (in a merge: the slowest shard's time
//!    on the experiment, on the threads of every shard that ran part of it).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::shard::{assign, estimated_cost, ShardSpec};
use super::{Experiment, Metrics, RunOutcome, SweepRun};

const RUN_FORMAT: &str = "flashix-run/1";
const SHARD_FORMAT: &str = "flashix-shard/1";
const MANIFEST: &str = "shard.json";

/// For each experiment, the shard of each of its runs (invariant 1): one
/// assignment over every run of every experiment, so that a long
/// experiment's runs spread over the shards and short ones fill the gaps.
pub fn plan(experiments: &[Experiment], quick: bool, shards: usize) -> Vec<Vec<usize>> {
    let runs: Vec<Vec<SweepRun>> = experiments.iter().map(|e| e.runs(quick)).collect();
    let costs: Vec<u64> = experiments
        .iter()
        .zip(&runs)
        .flat_map(|(e, rs)| rs.iter().map(|r| estimated_cost(e.kind, &r.params)))
        .collect();
    let mut flat = assign(&costs, shards).into_iter();
    runs.iter()
        .map(|rs| flat.by_ref().take(rs.len()).collect())
        .collect()
}

/// The folder of shard `spec` under `out`.
pub fn shard_dir(out: &Path, spec: ShardSpec) -> PathBuf {
    out.join(format!("shard-{}-of-{}", spec.index, spec.count))
}

/// What a shard's manifest records.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub shard: usize,
    pub shards: usize,
    pub selection: String,
    pub experiments: Vec<String>,
    pub quick: bool,
    pub jobs: usize,
    pub runs: BTreeMap<String, Vec<usize>>,
    pub skipped: BTreeMap<String, String>,
    pub seconds: BTreeMap<String, f64>,
}

impl Manifest {
    /// An empty manifest of shard `spec`.
    pub fn new(spec: ShardSpec, selection: &str, experiments: &[Experiment], quick: bool) -> Self {
        Manifest {
            format: SHARD_FORMAT.into(),
            shard: spec.index,
            shards: spec.count,
            selection: selection.into(),
            experiments: experiments.iter().map(|e| e.id.to_string()).collect(),
            quick,
            ..Manifest::default()
        }
    }

    fn spec(&self) -> ShardSpec {
        ShardSpec {
            index: self.shard,
            count: self.shards,
        }
    }

    /// Writes the manifest into `dir`: last, so that it marks a shard that
    /// finished.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST);
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

fn metric_value(v: f64) -> Value {
    match serde_json::Number::from_f64(v) {
        Some(n) => Value::Number(n),
        None if v.is_nan() => json!("NaN"),
        None if v > 0.0 => json!("inf"),
        None => json!("-inf"),
    }
}

fn metric_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// Writes run `index` (of `of`) of experiment `exp` into shard folder `dir`.
pub fn write_run(
    dir: &Path,
    exp: &Experiment,
    index: usize,
    of: usize,
    r: &RunOutcome,
) -> Result<(), String> {
    let id = exp.id;
    let folder = dir.join(id);
    fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let metrics: serde_json::Map<String, Value> = r
        .metrics
        .iter()
        .map(|(k, v)| (k.clone(), metric_value(*v)))
        .collect();
    let record = json!({
        "format": RUN_FORMAT,
        "experiment": id,
        "run": index,
        "of": of,
        "series": r.run.series,
        "x": r.run.x,
        "seed": r.run.seed,
        "params": r.run.params,
        "metrics": metrics,
        "report": r.report,
        "seconds": r.seconds,
        "estimated_cost": estimated_cost(exp.kind, &r.run.params),
    });
    let path = run_path(dir, id, index);
    let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn run_path(dir: &Path, id: &str, index: usize) -> PathBuf {
    dir.join(id).join(format!("run-{index:04}.json"))
}

/// Reads run `index` of `exp` from shard folder `dir`, checking it is the
/// run the definitions expect (`expected`).
fn read_run(
    dir: &Path,
    exp: &Experiment,
    index: usize,
    expected: &SweepRun,
) -> Result<RunOutcome, String> {
    let path = run_path(dir, exp.id, index);
    let bad = |why: String| format!("{}: {why}", path.display());
    let text = fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if v["format"] != RUN_FORMAT {
        return Err(bad(format!("not a {RUN_FORMAT} run file")));
    }
    let run = SweepRun {
        series: v["series"].as_str().unwrap_or_default().to_string(),
        x: v["x"].as_str().unwrap_or_default().to_string(),
        params: serde_json::from_value(v["params"].clone()).map_err(|e| bad(e.to_string()))?,
        seed: v["seed"].as_u64().unwrap_or_default(),
    };
    if v["experiment"] != exp.id || v["run"].as_u64() != Some(index as u64) || run != *expected {
        return Err(bad(format!(
            "is not run {index} of {} as this flashix defines it (series {}, x {}): \
             shards and merge must be the same flashix version",
            exp.id, expected.series, expected.x
        )));
    }
    let mut metrics = Metrics::new();
    for (k, m) in v["metrics"].as_object().into_iter().flatten() {
        let m = metric_of(m).ok_or_else(|| bad(format!("metric {k} is not a number")))?;
        metrics.insert(k.clone(), m);
    }
    Ok(RunOutcome {
        run,
        metrics,
        report: v["report"].clone(),
        seconds: v["seconds"].as_f64().unwrap_or_default(),
    })
}

/// One experiment of a merge: its results in sweep order, or why it was not
/// run; the slowest shard's seconds on it and the threads that ran it.
pub struct Merged {
    pub experiment: Experiment,
    pub results: Result<Vec<RunOutcome>, String>,
    pub seconds: f64,
    pub jobs: usize,
}

/// What `merge` found: the selection and scale the shards ran, and each
/// experiment merged.
pub struct Merge {
    pub selection: String,
    pub quick: bool,
    pub experiments: Vec<Merged>,
}

/// The shard folders under each of `dirs`: the folder itself if it holds a
/// manifest, else its `shard-*` subfolders.
fn shard_folders(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for dir in dirs {
        if dir.join(MANIFEST).is_file() {
            found.push(dir.clone());
            continue;
        }
        let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut here: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("shard-"))
            })
            .collect();
        if here.is_empty() {
            return Err(format!(
                "{}: no shard here (neither {MANIFEST} nor shard-I-of-N folders written by `reproduce --shard`)",
                dir.display()
            ));
        }
        here.sort();
        found.extend(here);
    }
    Ok(found)
}

fn read_manifest(dir: &Path) -> Result<Option<Manifest>, String> {
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Ok(None);
    }
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if m.format != SHARD_FORMAT || m.shards == 0 || m.shard >= m.shards {
        return Err(format!("{}: not a {SHARD_FORMAT} manifest", path.display()));
    }
    Ok(Some(m))
}

/// Names up to eight runs (and how many more).
fn name_runs(runs: &[(String, usize, String, String)]) -> String {
    let mut names: Vec<String> = runs
        .iter()
        .take(8)
        .map(|(id, i, s, x)| format!("{id} run {i} ({s}, x = {x})"))
        .collect();
    if runs.len() > 8 {
        names.push(format!("and {} more", runs.len() - 8));
    }
    names.join("; ")
}

/// Reads every shard under `dirs` and merges them (invariants 1 and 2).
pub fn merge(dirs: &[PathBuf]) -> Result<Merge, String> {
    let folders = shard_folders(dirs)?;
    let mut manifests: Vec<(PathBuf, Manifest)> = Vec::new();
    let mut unfinished: Vec<PathBuf> = Vec::new();
    for f in folders {
        match read_manifest(&f)? {
            Some(m) => manifests.push((f, m)),
            None => unfinished.push(f),
        }
    }
    let Some((first_dir, first)) = manifests.first().cloned() else {
        return Err(format!(
            "no finished shard (no {MANIFEST}) in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let n = first.shards;
    let mut by_shard: Vec<Option<(PathBuf, Manifest)>> = vec![None; n];
    for (dir, m) in manifests {
        if (m.shards, &m.experiments, m.quick) != (n, &first.experiments, first.quick) {
            return Err(format!(
                "{} (shard {}) and {} (shard {}) are not shards of one job: they differ in the \
                 number of shards, the experiments or --quick",
                first_dir.display(),
                first.spec(),
                dir.display(),
                m.spec()
            ));
        }
        if let Some((other, _)) = &by_shard[m.shard] {
            return Err(format!(
                "shard {} appears twice: {} and {}",
                m.spec(),
                other.display(),
                dir.display()
            ));
        }
        let i = m.shard;
        by_shard[i] = Some((dir, m));
    }
    let experiments = first
        .experiments
        .iter()
        .map(|id| super::find(id))
        .collect::<Result<Vec<_>, _>>()?;
    let plan = plan(&experiments, first.quick, n);
    let all_runs: Vec<Vec<SweepRun>> = experiments.iter().map(|e| e.runs(first.quick)).collect();
    let owned = |s: usize| -> Vec<(String, usize, String, String)> {
        let mut v = Vec::new();
        for ((e, shards), runs) in experiments.iter().zip(&plan).zip(&all_runs) {
            for (i, (_, r)) in shards
                .iter()
                .zip(runs)
                .enumerate()
                .filter(|(_, (&o, _))| o == s)
            {
                v.push((e.id.to_string(), i, r.series.clone(), r.x.clone()));
            }
        }
        v
    };
    for (s, slot) in by_shard.iter().enumerate() {
        let spec = ShardSpec { index: s, count: n };
        let Some((dir, m)) = slot else {
            let unfinished = unfinished
                .iter()
                .find(|d| d.ends_with(format!("shard-{s}-of-{n}")))
                .map(|d| {
                    format!(
                        " ({} has no {MANIFEST}: the shard did not finish)",
                        d.display()
                    )
                })
                .unwrap_or_default();
            return Err(format!(
                "shard {spec} is missing{unfinished}; its runs: {}",
                name_runs(&owned(s))
            ));
        };
        for (e, shards) in experiments.iter().zip(&plan) {
            let mine: Vec<usize> = (0..shards.len()).filter(|&i| shards[i] == s).collect();
            let listed = m.runs.get(e.id).cloned().unwrap_or_default();
            if listed != mine && !m.skipped.contains_key(e.id) {
                return Err(format!(
                    "{}: shard {spec} ran runs {listed:?} of {}, where this flashix assigns it {mine:?}: \
                     shards and merge must be the same flashix version",
                    dir.display(),
                    e.id
                ));
            }
        }
    }
    let shards: Vec<(PathBuf, Manifest)> = by_shard.into_iter().flatten().collect();
    let mut merged = Vec::new();
    for ((exp, owner), runs) in experiments.into_iter().zip(&plan).zip(all_runs) {
        let skipped = shards
            .iter()
            .find_map(|(_, m)| m.skipped.get(exp.id).cloned());
        let ran_it: Vec<&Manifest> = shards
            .iter()
            .map(|(_, m)| m)
            .filter(|m| m.runs.get(exp.id).is_some_and(|r| !r.is_empty()))
            .collect();
        let seconds = ran_it
            .iter()
            .filter_map(|m| m.seconds.get(exp.id).copied())
            .fold(0.0, f64::max);
        let jobs = ran_it.iter().map(|m| m.jobs).sum();
        let results = match skipped {
            Some(why) => Err(why),
            None => Ok(runs
                .iter()
                .enumerate()
                .map(|(i, r)| read_run(&shards[owner[i]].0, &exp, i, r))
                .collect::<Result<Vec<_>, _>>()?),
        };
        merged.push(Merged {
            experiment: exp,
            results,
            seconds,
            jobs,
        });
    }
    Ok(Merge {
        selection: first.selection,
        quick: first.quick,
        experiments: merged,
    })
}
