//! The parent: runs every (engine, round) in a fresh child process (this
//! binary with `--one ENGINE`), so each run's bytes written and peak RSS
//! are its own, interleaving the engines round by round; ends a run past
//! `--timeout` and drops its engine; gathers each child's `RESULT` line
//! and hands them to the report.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::args::Args;
use crate::error::Res;
use crate::report::{self, Run};

/// Runs `engine` as a child in `dir` with `seed`; `None` if it ran past
/// `a.timeout` (it is killed).
fn spawn(a: &Args, exe: &Path, engine: &str, dir: &Path, seed: u64) -> Res<Option<Output>> {
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
    let mut timed_out = false;
    while child.try_wait()?.is_none() {
        if t.elapsed().as_secs() >= a.timeout {
            child.kill()?;
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output()?;
    Ok((!timed_out).then_some(output))
}

/// Runs the bench and prints its table.
pub fn parent(a: &Args) -> Res<()> {
    let base = match &a.dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            tempfile::Builder::new().prefix("peers-").tempdir_in(d)?
        }
        // /var/tmp: on disk where /tmp is a tmpfs.
        None => tempfile::Builder::new()
            .prefix("peers-")
            .tempdir_in("/var/tmp")?,
    };
    eprintln!(
        "peers: n={} memory={} rounds={} commit-every={} workload={} dir={}",
        a.n,
        a.memory,
        a.rounds,
        a.commit_every,
        a.workload.name(),
        base.path().display()
    );
    let exe = std::env::current_exe()?;
    let mut results: BTreeMap<String, Vec<Run>> = BTreeMap::new();
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    for round in 0..a.rounds {
        for engine in &a.engines {
            if failed.contains_key(engine) {
                continue;
            }
            let dir = base.path().join(format!("{engine}-{round}"));
            let t = Instant::now();
            let output = spawn(a, &exe, engine, &dir, round as u64 + 1)?;
            let _ = std::fs::remove_dir_all(&dir);
            // A run past the time limit was ended, and its engine is dropped.
            let Some(output) = output else {
                let why = format!("not run: over the {} s limit at n = {}", a.timeout, a.n);
                eprintln!("round {} {engine}: {why}", round + 1);
                failed.insert(engine.clone(), why);
                continue;
            };
            let stdout = String::from_utf8_lossy(&output.stdout);
            match report::parse_result(&stdout).filter(|_| output.status.success()) {
                Some((line, run)) => {
                    eprintln!(
                        "round {} {engine}: {:.1} s: {line}",
                        round + 1,
                        t.elapsed().as_secs_f64()
                    );
                    results.entry(engine.clone()).or_default().push(run);
                }
                None => {
                    let err = String::from_utf8_lossy(&output.stderr);
                    let why = format!("failed: {}", err.lines().last().unwrap_or("no output"));
                    eprintln!("round {} {engine}: {why}", round + 1);
                    failed.insert(engine.clone(), why);
                }
            }
        }
    }
    report::print_table(a, &results, &failed);
    Ok(())
}
