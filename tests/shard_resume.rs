//! A shard killed part way and started again keeps the runs it finished
//! (`experiment::partial`: each run's file is written atomically when the
//! run ends, and a restart keeps every file that is whole and is the run
//! this flashix defines): `SIGKILL` once some run files exist, one of them
//! truncated, one edited and a stray temporary file left before the
//! restart; the restart leaves every other file as it was (bytes and
//! mtime), computes the damaged ones again and names them, and the shards
//! merge to the CSVs of a one-machine `--shard 0/1`. A run file another
//! flashix build wrote (its `build` another id, its checksum right) is
//! computed again, named with both ids, and the others kept.

mod common;
use common::files::files_under;
use common::run_file;
use flashix::experiment::build_id::BUILD_ID;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Cheap quick experiments (about 1.3 s of runs for shard 0/2 on two
/// threads) with many short runs, so that a kill falls between runs.
const EXPERIMENTS: &str = "bftl-table2,bftl-fig10,bftl-fig11";

/// Run files that must exist before the kill.
const BEFORE_KILL: usize = 4;

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

fn reproduce_args<'a>(out: &'a Path, spec: &'a str) -> Vec<&'a str> {
    vec![
        "reproduce",
        EXPERIMENTS,
        "--quick",
        "--quiet",
        "--jobs",
        "2",
        "--shard",
        spec,
        "--out",
        s(out),
    ]
}

/// Runs flashix with `args` to success; its stdout and stderr.
fn ok(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .expect("flashix runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "flashix {}: {stderr}", args.join(" "));
    (stdout, stderr)
}

/// The run files under shard folder `dir`.
fn run_files(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("shard.json"))
        .collect()
}

/// Each run file's bytes and modification time.
fn snapshot(files: &[PathBuf]) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    files
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            let mtime = std::fs::metadata(p).unwrap().modified().unwrap();
            (p.clone(), (bytes, mtime))
        })
        .collect()
}

/// Starts shard 0/2 and kills it (`SIGKILL`) once `BEFORE_KILL` run files
/// exist; the run files it left.
fn start_and_kill(out: &Path, shard: &Path) -> Vec<PathBuf> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(reproduce_args(out, "0/2"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("flashix starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while run_files(shard).len() < BEFORE_KILL {
        let finished = child.try_wait().unwrap();
        assert!(
            finished.is_none(),
            "the shard ended ({finished:?}) before {BEFORE_KILL} run files were there"
        );
        assert!(Instant::now() < deadline, "no run files after 120 s");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the shard finished before the kill: pick slower experiments"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    run_files(shard)
}

#[test]
fn a_killed_shard_keeps_its_finished_runs_and_merges_as_one_machine() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let (out, single) = (dir.path().join("out"), dir.path().join("single"));
    let shard = out.join("shard-0-of-2");

    let left = start_and_kill(&out, &shard);
    assert!(
        !shard.join("shard.json").exists(),
        "a killed shard has no manifest"
    );
    for p in &left {
        // Whole, or not there under its name: written under another one
        // and renamed.
        let text = std::fs::read_to_string(p).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(v["format"], "flashix-run/3", "{}", p.display());
    }
    // Damage two of them and leave a temporary file behind, as a kill
    // during a write would.
    let (truncated, edited) = (left[0].clone(), left[1].clone());
    let text = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&edited).unwrap()).unwrap();
    // A metric changed, still valid JSON and still the same run: only the
    // checksum tells.
    let metric = v["metrics"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .find(|m| m.is_number())
        .unwrap();
    *metric = serde_json::json!(metric.as_f64().unwrap() + 1.0);
    std::fs::write(&edited, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let stray = left[2].with_file_name("run-0000.json.tmp");
    std::fs::write(&stray, "{\"format\": \"flashix-ru").unwrap();
    let damaged = [truncated.clone(), edited.clone()];
    let kept: Vec<PathBuf> = left
        .iter()
        .filter(|p| !damaged.contains(p))
        .cloned()
        .collect();
    let before = snapshot(&kept);
    let damaged_bytes = snapshot(&damaged);

    // The restart: the same command.
    let (stdout, stderr) = ok(&reproduce_args(&out, "0/2"));
    for p in damaged.iter().chain([&stray]) {
        assert!(stderr.contains(s(p)), "{} not named: {stderr}", p.display());
    }
    assert!(!stray.exists(), "the temporary file is removed");
    assert_eq!(snapshot(&kept), before, "a kept run file was rewritten");
    let after = snapshot(&damaged);
    for p in &damaged {
        assert_ne!(after[p].0, damaged_bytes[p].0, "{} recomputed", p.display());
    }
    let resumed: usize = stdout
        .lines()
        .filter_map(|l| {
            l.split(", ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert_eq!(resumed, kept.len(), "{stdout}");
    let all = run_files(&shard);
    assert!(all.len() > left.len(), "the restart ran the rest");

    // Started again once finished, it runs nothing and rewrites nothing.
    let finished = snapshot(&all);
    let (stdout, stderr) = ok(&reproduce_args(&out, "0/2"));
    assert_eq!(snapshot(&all), finished, "{stdout}{stderr}");
    assert!(stderr.is_empty(), "{stderr}");

    ok(&reproduce_args(&out, "1/2"));
    ok(&reproduce_args(&single, "0/1"));
    let (m2, m1) = (dir.path().join("m2"), dir.path().join("m1"));
    ok(&["merge", s(&out), "--out", s(&m2)]);
    ok(&["merge", s(&single), "--out", s(&m1)]);
    let csvs = |root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        files_under(root)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .map(|p| {
                (
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    };
    let (a, b) = (csvs(&m1), csvs(&m2));
    assert!(a.len() >= 3 && a.len() == b.len(), "{a:?} {b:?}");
    for ((pa, x), (pb, y)) in a.iter().zip(&b) {
        assert_eq!(pa, pb);
        assert!(x == y, "{} differs", pa.display());
    }
    eprintln!(
        "shard resume test: {:.1} s, {} of {} run files left by the kill",
        started.elapsed().as_secs_f64(),
        left.len(),
        all.len()
    );
}

/// An id no build has: not this one's, and 16 hex digits like it.
fn another_build() -> &'static str {
    if BUILD_ID == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    }
}

#[test]
fn a_run_file_of_another_build_is_computed_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let shard = out.join("shard-0-of-1");
    let args = [
        "reproduce",
        "bftl-table2",
        "--quick",
        "--quiet",
        "--jobs",
        "2",
        "--shard",
        "0/1",
        "--out",
        s(&out),
    ];
    ok(&args);
    let files = run_files(&shard);
    assert!(files.len() >= 3, "{files:?}");
    for p in &files {
        let v = run_file::read(p);
        assert_eq!(v["build"], BUILD_ID, "{}", p.display());
    }
    let other = files[1].clone();
    run_file::rebuild(&other, another_build());
    let kept: Vec<PathBuf> = files.iter().filter(|p| **p != other).cloned().collect();
    let before = snapshot(&kept);

    let (stdout, stderr) = ok(&args);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "only the other build's file: {stderr}");
    for name in [s(&other), another_build(), BUILD_ID] {
        assert!(lines[0].contains(name), "{name} not named: {stderr}");
    }
    assert!(
        stdout.contains(&format!("{} kept from an earlier attempt", kept.len())),
        "{stdout}"
    );
    assert_eq!(snapshot(&kept), before, "a kept run file was rewritten");
    let v = run_file::read(&other);
    assert_eq!(v["build"], BUILD_ID, "recomputed by this build");
    assert_eq!(v["crc32c"].as_u64(), Some(run_file::checksum(&v)));
    assert_eq!(run_files(&shard), files, "the same runs");
}

#[test]
fn the_version_names_the_build_id() {
    let (stdout, _) = ok(&["--version"]);
    assert_eq!(
        stdout,
        format!("flashix {} (build {BUILD_ID})\n", env!("CARGO_PKG_VERSION"))
    );
}
