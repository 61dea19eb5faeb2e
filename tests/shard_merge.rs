//! `reproduce --shard i/n` then `merge` writes what one machine writes:
//! every experiment's CSV, JSON, Markdown report and figures byte for
//! byte, and the summary's sections, except the wall-clock fields
//! (`experiment::partial`, invariant 2): `wall_seconds` and
//! `ops_per_wall_second` in `ID.json`, and the summary's "Run time" line.
//! A shard missing or found twice is an error naming it and its runs; a
//! shard, or a run file, of another flashix build is refused, named with
//! both build ids.

mod common;
use common::files::files_under;
use common::run_file;
use flashix::experiment::build_id::BUILD_ID;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Quick experiments that still exercise the merge: fdtree-fig3c's
/// bulk-loaded runs on the SSD model, bftl-table2 (its seeds are another
/// experiment's), lat-fig9 (a buffer tree's memory columns, once
/// nondeterministic) and mbtree-fig6 (MB-Tree node sizes; none of them
/// reads the optional genome, so the test runs with or without it).
const EXPERIMENTS: &str = "fdtree-fig3c,bftl-table2,lat-fig9,mbtree-fig6";

fn flashix(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .expect("flashix runs")
}

fn ok(args: &[&str]) -> String {
    let out = flashix(args);
    assert!(
        out.status.success(),
        "flashix {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fails(args: &[&str]) -> String {
    let out = flashix(args);
    assert!(
        !out.status.success(),
        "flashix {} succeeded",
        args.join(" ")
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// A file's bytes without its wall-clock fields.
fn comparable(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !(name.ends_with(".json") || name.ends_with(".md")) {
        return bytes;
    }
    let text = String::from_utf8(bytes).expect("UTF-8 text");
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let wall = ["\"wall_seconds\":", "\"ops_per_wall_second\":", "Run time"]
            .iter()
            .find(|k| t.starts_with(*k));
        out.push_str(wall.map_or(line, |k| k));
    }
    out.into_bytes()
}

/// `reproduce EXPERIMENTS --quick` into `out`, with `more` arguments.
fn reproduce(out: &Path, more: &[&str]) {
    let mut args = vec![
        "reproduce",
        EXPERIMENTS,
        "--quick",
        "--quiet",
        "--jobs",
        "2",
        "--out",
    ];
    args.push(s(out));
    args.extend_from_slice(more);
    ok(&args);
}

#[test]
fn three_shards_merge_byte_identical_to_one_machine() {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let (single, shards, merged) = (
        dir.path().join("single"),
        dir.path().join("shards"),
        dir.path().join("merged"),
    );
    // One summary file name for both, so its links and header agree.
    for out in [&single, &merged] {
        std::fs::create_dir_all(out).unwrap();
    }
    let summary = single.join("SUMMARY.md");
    reproduce(&single, &["--summary", s(&summary)]);
    for spec in ["0/3", "1/3", "2/3"] {
        reproduce(&shards, &["--shard", spec]);
    }
    ok(&[
        "merge",
        s(&shards),
        "--out",
        s(&merged),
        "--summary",
        s(&merged.join("SUMMARY.md")),
    ]);
    let (a, b) = (files_under(&single), files_under(&merged));
    let rel = |root: &Path, v: &[PathBuf]| -> Vec<PathBuf> {
        v.iter()
            .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
            .collect()
    };
    assert_eq!(rel(&single, &a), rel(&merged, &b), "the same files");
    assert!(a.len() >= 4 * 5, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        if x.ends_with("SUMMARY.md") {
            // The summary names its own folder.
            let fix = |p: &Path| {
                String::from_utf8(comparable(p))
                    .unwrap()
                    .replace(s(p.parent().unwrap()), "OUT")
            };
            assert_eq!(fix(x), fix(y), "{}", x.display());
            continue;
        }
        assert!(
            comparable(x) == comparable(y),
            "{} differs from {}",
            x.display(),
            y.display()
        );
    }
    costs_from_shards_and_reports(&shards, &single);
    eprintln!("shard merge test: {:.1} s", started.elapsed().as_secs_f64());
}

/// `flashix costs` writes a line per run: from shard folders, each run
/// file's own `seconds` (every run, FTL and device runs too); from a
/// one-machine output, each report's `wall_seconds`.
fn costs_from_shards_and_reports(shards: &Path, single: &Path) {
    let table = ok(&["costs", s(shards), "--note", "measured here\ntwice"]);
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("# measured here"));
    assert_eq!(lines.next(), Some("# twice"));
    let mut from_table: Vec<(String, u64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            assert_eq!(f[0].len(), 16, "{l}");
            (f[2].to_string(), f[1].parse().expect("microseconds"))
        })
        .collect();
    let mut from_files: Vec<(String, u64)> = files_under(shards)
        .iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("run-"))
        })
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            let us = (v["seconds"].as_f64().expect("seconds") * 1e6).round() as u64;
            (v["experiment"].as_str().unwrap().to_string(), us)
        })
        .collect();
    from_table.sort();
    from_files.sort();
    assert_eq!(
        from_table, from_files,
        "a line a run file, with its seconds"
    );
    let reports = ok(&["costs", s(single)]);
    let timed = reports.lines().count();
    assert!(
        timed > 0 && timed <= from_files.len(),
        "{timed} runs with wall_seconds of {}",
        from_files.len()
    );
}

#[test]
fn a_missing_or_duplicated_shard_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let args = |out: &Path, spec: &str| -> Vec<String> {
        [
            "reproduce",
            "bftl-table2",
            "--quick",
            "--quiet",
            "--out",
            s(out),
            "--shard",
            spec,
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let run = |v: Vec<String>| ok(&v.iter().map(String::as_str).collect::<Vec<_>>());
    run(args(&a, "0/3"));
    run(args(&a, "2/3"));
    let e = fails(&["merge", s(&a), "--out", s(&dir.path().join("m"))]);
    assert!(
        e.contains("shard 1/3 is missing") && e.contains("bftl-table2 run "),
        "{e}"
    );
    run(args(&b, "1/3"));
    run(args(&b, "2/3"));
    let e = fails(&["merge", s(&a), s(&b), "--out", s(&dir.path().join("m"))]);
    assert!(e.contains("shard 2/3 appears twice"), "{e}");
    // Each once: it merges.
    std::fs::remove_dir_all(b.join("shard-2-of-3")).unwrap();
    ok(&["merge", s(&a), s(&b), "--out", s(&dir.path().join("m"))]);
    // A shard that did not finish has no manifest: missing, and said so.
    std::fs::remove_file(b.join("shard-1-of-3").join("shard.json")).unwrap();
    let e = fails(&["merge", s(&a), s(&b), "--out", s(&dir.path().join("m"))]);
    assert!(
        e.contains("shard 1/3 is missing") && e.contains("did not finish"),
        "{e}"
    );
    for bad in ["3/3", "0/0", "x"] {
        let e = fails(&["reproduce", "bftl-table2", "--quick", "--shard", bad]);
        assert!(e.contains("--shard") && e.contains(bad), "{bad}: {e}");
    }
    let e = fails(&["merge", s(dir.path()), "--out", s(&dir.path().join("m2"))]);
    assert!(e.contains("no shard here"), "{e}");
}

#[test]
fn a_shard_of_another_build_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    for spec in ["0/2", "1/2"] {
        ok(&[
            "reproduce",
            "bftl-table2",
            "--quick",
            "--quiet",
            "--out",
            s(&a),
            "--shard",
            spec,
        ]);
    }
    let m = dir.path().join("m");
    let merge = ["merge", s(&a), "--out", s(&m)];
    ok(&merge);
    let other = if BUILD_ID == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    };

    // A manifest of another build: refused, the shard and both ids named.
    let manifest = a.join("shard-1-of-2").join("shard.json");
    let original = std::fs::read(&manifest).unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&original).unwrap();
    assert_eq!(v["format"], "flashix-shard/2");
    assert_eq!(v["build"], BUILD_ID);
    v["build"] = serde_json::json!(other);
    std::fs::write(&manifest, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let e = fails(&merge);
    for name in ["shard-1-of-2", "shard 1/2", other, BUILD_ID] {
        assert!(e.contains(name), "{name} not named: {e}");
    }
    // An older manifest (no build id): refused for its format.
    v["format"] = serde_json::json!("flashix-shard/1");
    v.as_object_mut().unwrap().remove("build");
    std::fs::write(&manifest, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let e = fails(&merge);
    assert!(e.contains("not a flashix-shard/2 manifest"), "{e}");
    std::fs::write(&manifest, &original).unwrap();
    ok(&merge);

    // A run file of another build in a shard of this one: refused, the
    // file and both ids named.
    let run = files_under(&a.join("shard-0-of-2"))
        .into_iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("run-"))
        })
        .expect("shard 0/2 ran a run");
    run_file::rebuild(&run, other);
    let e = fails(&merge);
    for name in [s(&run), other, BUILD_ID] {
        assert!(e.contains(name), "{name} not named: {e}");
    }
}
