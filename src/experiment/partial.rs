//! Partial results of a sharded `reproduce` and their merge: the on-disk
//! format a shard writes and `flashix merge` reads.
//!
//! `flashix reproduce SEL --shard i/n --out OUT` writes one folder,
//! `OUT/shard-i-of-n/` (so the shards of a job array may share one `OUT`):
//!
//! ```text
//! OUT/shard-i-of-n/ID/run-NNNN.json   one per run of experiment ID this shard ran,
//!                                     written when the run ends
//! OUT/shard-i-of-n/shard.json         the manifest, written last: the shard finished
//! OUT/shard-i-of-n/**/NAME.tmp        NAME while it is written (renamed when whole)
//! ```
//!
//! A run file (`"format": "flashix-run/3"`) holds `build` (the
//! [`BUILD_ID`] of the flashix that computed it), `experiment` (its id),
//! `run` (its position in the experiment's sweep, from 0), `of` (the
//! sweep's length), `series`, `x`, `seed`, `params`, `metrics` (numbers;
//! a non-finite one as the string `"NaN"`, `"inf"` or `"-inf"`), `report`
//! (the run's full report, as in `ID.json`), `seconds` (the run's wall
//! time), `estimated_cost` (the cost model's estimate of it, µs) and
//! `crc32c`: the CRC-32C of the compact JSON of every other field (keys
//! sorted, floats in their shortest round-trip text, so that the record
//! read back gives the same bytes). That is everything the single-machine
//! writer ([`super::output::write_all`]) reads of a run, and `build`,
//! which no output shows (the merged files stay those of one machine).
//! `flashix-run/1` (without `crc32c`, written all at once after the last
//! run) and `flashix-run/2` (without `build`) are not read: such a file is
//! another build's; a merge refuses it and a restart computes its run
//! again.
//!
//! The manifest (`"format": "flashix-shard/2"`) holds `build` (as a run
//! file's), `shard` and `shards` (i and n), `selection` (the experiment
//! argument as given: `all` or ids), `experiments` (the ids it resolved to,
//! in order), `quick`, `jobs`, `runs` (per experiment, the sweep positions
//! this shard owns), `skipped` (per experiment not run here, why: a missing
//! input) and `seconds` (per experiment: the recorded `seconds` of its
//! runs, those computed by the attempt that finished the shard and those
//! kept from earlier ones, divided by `jobs`: their time as if the shard's
//! threads had run them side by side; a shard runs all its runs through one
//! pool, so no wall time is one experiment's own). Only a summary's "Run
//! time" line reads it.
//!
//! Invariants:
//! 1. The runs a shard owns follow from (experiments, quick, n) alone
//!    ([`plan`]): the cost model over every run of every selected
//!    experiment, then [`super::shard::assign`]. A merge recomputes the
//!    plan and refuses a manifest that disagrees with it (another flashix
//!    version or other definitions), a shard found twice, and a shard
//!    missing, naming the shard and its runs. It refuses, too, a manifest
//!    or run file whose `build` is not its own [`BUILD_ID`], naming it and
//!    both ids: a job's shards and merge are one flashix build.
//! 2. The merged results are each experiment's runs in sweep order, with
//!    exactly the series, x, seed, parameters, metrics and report the run
//!    produced: the outputs written from them are byte-identical to a
//!    single-machine run's, except the wall-clock fields, which differ
//!    between any two runs (sharded or not): `report.wall_seconds` and
//!    `report.ops_per_wall_second` in `ID.json`, the time metrics of runs
//!    on a real file (`asbtree-disk`, `ssd-table1`'s file rows), and the
//!    "Run time" line of a summary (in a merge: the slowest shard's time
//!    on the experiment, on the threads of every shard that ran part of it).
//! 3. A file under its final name is whole: every file is written under
//!    a temporary name, synced, renamed, and its folder synced
//!    (`write_atomic`). A run's file is written as soon as the run ends
//!    (by the thread collecting the sweep's results,
//!    [`super::sweep::run_sweep_each`]), so a shard killed or pre-empted
//!    loses only the runs that were running; a folder without a manifest
//!    is a shard not finished.
//! 4. A restart (the same command, the same `OUT`) keeps a run file, and
//!    leaves it untouched, when it parses, is `flashix-run/3`, its
//!    `crc32c` matches, its `build` is this binary's [`BUILD_ID`], and its
//!    `experiment`, `run`, `of`, `series`, `x`, `seed` and `params` are
//!    those this flashix defines for that position ([`resume`], the checks
//!    a merge makes). A run's result is a function of that definition and
//!    the code that computes it alone, so a kept run merges to the bytes
//!    its recomputation would give (invariant 2). Anything else is not
//!    trusted and computed again: a run file missing, truncated, edited,
//!    of another format or computed by another build (a `git pull` and
//!    `cargo build` between the attempts), each named on stderr (another
//!    build's with both ids), and temporary files (removed). The build id
//!    covers the sources, not the toolchain or the build's flags
//!    ([`super::build_id`]). One process at a time a shard folder.

use std::collections::BTreeMap;
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::build_id::BUILD_ID;
use super::shard::{assign, estimated_cost, ShardSpec};
use super::{Experiment, Metrics, RunOutcome, SweepRun};
use crate::device::crc::crc32c;

const RUN_FORMAT: &str = "flashix-run/3";
/// The run record's field holding the CRC-32C of the rest ([`checksum`]).
const CHECKSUM: &str = "crc32c";
/// Appended to a file's name while it is written (`write_atomic`).
const TEMPORARY: &str = ".tmp";
const SHARD_FORMAT: &str = "flashix-shard/2";
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
    /// The [`BUILD_ID`] of the flashix that wrote it. A default when
    /// absent, so that an older manifest is refused for its format, not
    /// for a missing field.
    #[serde(default)]
    pub build: String,
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
            build: BUILD_ID.into(),
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

    /// Writes the manifest into `dir`, atomically: last, so that it marks a
    /// shard that finished.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomic(&dir.join(MANIFEST), text.as_bytes())
    }
}

/// Makes shard folder `dir` ready for an attempt at its runs: creates it,
/// and removes the manifest an earlier attempt left (it would mark this one
/// finished while it runs). The run files stay for [`resume`] to check.
pub fn start(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for stale in [dir.join(MANIFEST), temporary(&dir.join(MANIFEST))] {
        match fs::remove_file(&stale) {
            Err(e) if e.kind() != ErrorKind::NotFound => {
                return Err(format!("{}: {e}", stale.display()))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The temporary name `path` is written under before its rename.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(TEMPORARY);
    path.with_file_name(name)
}

/// Writes `bytes` to `path` so that `path` holds either its old content or
/// all of `bytes`, after a kill or a crash alike: into a temporary file
/// beside it, synced, renamed over `path`, then the folder synced (so the
/// rename itself is on the disk).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temporary(path);
    let written = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
        fs::File::open(folder.unwrap_or(Path::new(".")))?.sync_all()
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

/// The CRC-32C a run record carries (field [`CHECKSUM`]) of the rest of
/// it: its compact JSON, keys sorted (serde_json's map), floats in their
/// shortest round-trip text, so a record read back gives the same bytes.
fn checksum(rest: &Value) -> Result<u32, String> {
    let text = serde_json::to_vec(rest).map_err(|e| e.to_string())?;
    Ok(crc32c(&text))
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

/// Writes run `index` (of `of`) of experiment `exp` into shard folder `dir`,
/// atomically (`write_atomic`), with its checksum.
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
    let mut record = json!({
        "format": RUN_FORMAT,
        "build": BUILD_ID,
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
    let crc = checksum(&record)?;
    record[CHECKSUM] = json!(crc);
    let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
    write_atomic(&run_path(dir, id, index), text.as_bytes())
}

fn run_path(dir: &Path, id: &str, index: usize) -> PathBuf {
    dir.join(id).join(format!("run-{index:04}.json"))
}

/// Reads run `index` of `exp` from shard folder `dir`, checking it is whole
/// (its checksum) and is the run the definitions expect (`all`: the
/// experiment's sweep).
fn read_run(
    dir: &Path,
    exp: &Experiment,
    index: usize,
    all: &[SweepRun],
) -> Result<RunOutcome, String> {
    let path = run_path(dir, exp.id, index);
    let bad = |why: String| format!("{}: {why}", path.display());
    let text = fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if v["format"] != RUN_FORMAT {
        return Err(bad(format!(
            "not a {RUN_FORMAT} run file (shards and merge must be the same flashix version)"
        )));
    }
    let recorded = v.as_object_mut().and_then(|o| o.remove(CHECKSUM));
    if recorded.as_ref().and_then(Value::as_u64) != Some(u64::from(checksum(&v)?)) {
        return Err(bad(format!(
            "its {CHECKSUM} does not match its content: the file was changed after it was written"
        )));
    }
    if v["build"] != BUILD_ID {
        return Err(bad(another_build(v["build"].as_str().unwrap_or_default())));
    }
    let run = SweepRun {
        series: v["series"].as_str().unwrap_or_default().to_string(),
        x: v["x"].as_str().unwrap_or_default().to_string(),
        params: serde_json::from_value(v["params"].clone()).map_err(|e| bad(e.to_string()))?,
        seed: v["seed"].as_u64().unwrap_or_default(),
    };
    let expected = all.get(index);
    if v["experiment"] != exp.id
        || v["run"].as_u64() != Some(index as u64)
        || v["of"].as_u64() != Some(all.len() as u64)
        || Some(&run) != expected
    {
        let (series, x) = expected.map_or(("-", "-"), |r| (r.series.as_str(), r.x.as_str()));
        return Err(bad(format!(
            "is not run {index} of {} as this flashix defines it (series {series}, x {x}): \
             shards and merge must be the same flashix version",
            exp.id
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

/// What a restarted shard found of one experiment's runs ([`resume`]).
#[derive(Debug, Default)]
pub struct Found {
    /// The runs to keep, by position in the sweep: whole, and the runs this
    /// flashix defines there; with each one's recorded seconds.
    pub kept: BTreeMap<usize, f64>,
    /// Each file not trusted and why, by name: a run file damaged or not
    /// this flashix's run (left to be recomputed and replaced), or a
    /// temporary file a kill left mid-write (removed).
    pub distrusted: Vec<String>,
}

/// Checks what an earlier attempt of shard folder `dir` left of
/// experiment `exp`'s runs `mine` (positions in its sweep `all`): which
/// run files to keep, which to recompute. Removes temporary files.
pub fn resume(
    dir: &Path,
    exp: &Experiment,
    mine: &[usize],
    all: &[SweepRun],
) -> Result<Found, String> {
    let folder = dir.join(exp.id);
    let mut found = Found::default();
    let entries = match fs::read_dir(&folder) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(found),
        entries => entries.map_err(|e| format!("{}: {e}", folder.display()))?,
    };
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", folder.display()))?
            .path();
        if path.to_string_lossy().ends_with(TEMPORARY) {
            fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            found.distrusted.push(format!(
                "{}: a file left mid-write by an attempt stopped: removed",
                path.display()
            ));
        }
    }
    for &i in mine {
        if !run_path(dir, exp.id, i).exists() {
            continue;
        }
        match read_run(dir, exp, i, all) {
            Ok(run) => {
                found.kept.insert(i, run.seconds);
            }
            Err(why) => found
                .distrusted
                .push(format!("{why}; the run is computed again")),
        }
    }
    Ok(found)
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

/// Whether `dir` is a shard folder or holds one (a `shard-*` folder), as
/// `--shard` writes them: what [`merge`] reads.
pub fn holds_shards(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
        || fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(|e| e.ok())
                .any(|e| e.path().is_dir() && e.file_name().to_string_lossy().starts_with("shard-"))
        })
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

/// Why a file whose `build` is `theirs` is not this flashix's: both ids.
fn another_build(theirs: &str) -> String {
    let theirs = if theirs.is_empty() { "(none)" } else { theirs };
    format!("computed by flashix build {theirs}, not by this one (build {BUILD_ID})")
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
    if let Some((dir, m)) = manifests.iter().find(|(_, m)| m.build != BUILD_ID) {
        return Err(format!(
            "{} (shard {}): {}: merge with the build that ran the shards, or run the shard \
             again with this one",
            dir.display(),
            m.spec(),
            another_build(&m.build)
        ));
    }
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
            None => Ok((0..runs.len())
                .map(|i| read_run(&shards[owner[i]].0, &exp, i, &runs))
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
