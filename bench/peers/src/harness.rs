//! The parent: runs every (engine, round) in a fresh child process (this
//! binary with `--one ENGINE`), so each run's bytes written and peak RSS
//! are its own, interleaving the engines round by round; echoes each
//! child's progress lines; ends a run past `--timeout` and drops its
//! engine, naming the phase it was in; gathers each child's `RESULT` line
//! and hands them to the report. With `--scale`, it does this at every n
//! in turn (an engine dropped at one n is not run at a larger one, and the
//! others go on), writes every run to a CSV as it ends and the plot at the
//! end (`scale`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::args::Args;
use crate::error::Res;
use crate::report::{self, Run};
use crate::run::PROGRESS;
use crate::scale::{self, Row};

/// How one child ended.
struct Child {
    /// `None`: ended past the time limit.
    status: Option<ExitStatus>,
    stdout: String,
    /// Its last progress line, and its last other line on stderr.
    last_progress: Option<String>,
    last_error: Option<String>,
}

/// Runs `engine` as a child in `dir` with `seed`, echoing its progress
/// lines; kills it past `a.timeout` seconds.
fn spawn(a: &Args, exe: &Path, engine: &str, dir: &Path, seed: u64) -> Res<Child> {
    let t = Instant::now();
    let mut child = Command::new(exe)
        .args(["--one", engine])
        .args(["--n", &a.n.to_string()])
        .args(["--commit-every", &a.commit_every.to_string()])
        .args(["--workload", a.workload.name()])
        .args(["--seed", &seed.to_string()])
        .args(["--log-bytes", &a.log_bytes.to_string()])
        .args(["--memory", &a.memory.to_string()])
        .args(
            a.params
                .iter()
                .flat_map(|(k, v)| ["--set".to_string(), format!("{k}={v}")]),
        )
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Read on threads: a child blocked on a full pipe would never end.
    let stderr = child.stderr.take().ok_or("no stderr pipe")?;
    let name = engine.to_string();
    let err_reader = std::thread::spawn(move || {
        let (mut progress, mut error) = (None, None);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            match line.strip_prefix(PROGRESS) {
                Some(p) => {
                    eprintln!("  {name}: {p}");
                    progress = Some(p.to_string());
                }
                None => error = Some(line),
            }
        }
        (progress, error)
    });
    let mut stdout_pipe = child.stdout.take().ok_or("no stdout pipe")?;
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout_pipe.read_to_string(&mut s);
        s
    });
    let mut status = None;
    loop {
        if let Some(s) = child.try_wait()? {
            status = Some(s);
            break;
        }
        if t.elapsed().as_secs() >= a.timeout {
            child.kill()?;
            child.wait()?;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (last_progress, last_error) = err_reader.join().map_err(|_| "stderr reader panicked")?;
    let stdout = out_reader.join().map_err(|_| "stdout reader panicked")?;
    Ok(Child {
        status,
        stdout,
        last_progress,
        last_error,
    })
}

/// What the rounds at one n gave: each engine's runs, and each engine that
/// failed or ran past the limit, with why.
pub struct Outcome {
    pub results: BTreeMap<String, Vec<Run>>,
    pub failed: BTreeMap<String, String>,
}

/// What sees every run as it ends: (engine, round from 0, its
/// measurements or `None` where it failed or ran past the limit).
type OnRun<'a> = &'a mut dyn FnMut(&str, u32, Option<&Run>) -> Res<()>;

/// Runs `a.rounds` rounds of every engine of `a.engines` not in `skip` at
/// `a.n`, in fresh directories under `base`; `on_run` sees every run as it
/// ends (`None`: it failed or ran past the limit).
fn rounds(a: &Args, base: &Path, skip: &BTreeMap<String, String>, on_run: OnRun) -> Res<Outcome> {
    let exe = std::env::current_exe()?;
    let mut out = Outcome {
        results: BTreeMap::new(),
        failed: skip.clone(),
    };
    for round in 0..a.rounds {
        for engine in &a.engines {
            if out.failed.contains_key(engine) {
                continue;
            }
            let dir = base.join(format!("{engine}-{}-{round}", a.n));
            let t = Instant::now();
            let child = spawn(a, &exe, engine, &dir, round as u64 + 1)?;
            let _ = std::fs::remove_dir_all(&dir);
            let parsed = report::parse_result(&child.stdout);
            let why = match (child.status, parsed) {
                (None, _) => format!(
                    "not finished within the {} s limit at n = {} (last progress: {}); not run again",
                    a.timeout,
                    report::group(a.n),
                    child.last_progress.as_deref().unwrap_or("none")
                ),
                (Some(s), Some((line, run))) if s.success() => {
                    eprintln!(
                        "round {} {engine}: {:.1} s: {line}",
                        round + 1,
                        t.elapsed().as_secs_f64()
                    );
                    on_run(engine, round, Some(&run))?;
                    out.results.entry(engine.clone()).or_default().push(run);
                    continue;
                }
                (Some(_), _) => format!(
                    "failed at n = {}: {}",
                    report::group(a.n),
                    child.last_error.as_deref().unwrap_or("no output")
                ),
            };
            eprintln!("round {} {engine}: {why}", round + 1);
            on_run(engine, round, None)?;
            out.failed.insert(engine.clone(), why);
        }
    }
    Ok(out)
}

/// A fresh run directory under `--dir` or /var/tmp (on disk where /tmp is
/// a tmpfs).
fn base_dir(a: &Args) -> Res<tempfile::TempDir> {
    let parent = match &a.dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => "/var/tmp".into(),
    };
    Ok(tempfile::Builder::new()
        .prefix("peers-")
        .tempdir_in(parent)?)
}

/// Runs the bench and prints its table; with `--scale`, at every n, then
/// writes the CSV and the plot.
pub fn parent(a: &Args) -> Res<()> {
    let base = base_dir(a)?;
    let sizes = if a.scale.is_empty() {
        vec![a.n]
    } else {
        a.scale.clone()
    };
    eprintln!(
        "peers: n={} memory={} rounds={} commit-every={} workload={} timeout={} s dir={}",
        sizes
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        a.memory,
        a.rounds,
        a.commit_every,
        a.workload.name(),
        a.timeout,
        base.path().display()
    );
    let mut rows: Vec<Row> = Vec::new();
    // Engines dropped at a smaller n, with why: not run at a larger one.
    let mut dropped: BTreeMap<String, String> = BTreeMap::new();
    for &n in &sizes {
        let mut at = a.clone();
        at.n = n;
        let outcome = rounds(&at, base.path(), &dropped, &mut |engine, round, run| {
            if a.scale.is_empty() {
                return Ok(());
            }
            rows.push(Row::new(engine, n, a.memory, round + 1, run));
            scale::write_csv(&a.out.with_extension("csv"), &rows)
        })?;
        report::print_table(&at, &outcome.results, &outcome.failed);
        for (engine, why) in outcome.failed {
            dropped.entry(engine).or_insert(why);
        }
    }
    if !a.scale.is_empty() {
        let svg = a.out.with_extension("svg");
        scale::plot(&rows, &svg)?;
        eprintln!(
            "peers: wrote {}, {} and {}",
            a.out.with_extension("csv").display(),
            svg.display(),
            svg.with_extension("png").display()
        );
    }
    Ok(())
}
