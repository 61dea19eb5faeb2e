//! The command line: bad input is one clear error line and a non-zero exit,
//! never a panic; the documented forms work.

use std::io::Write;
use std::process::{Command, Output};

use flashix::index::kinds::registry;

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .unwrap()
}

fn fails_with(args: &[&str], needle: &str) {
    let out = flashix(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(err.contains(needle), "{args:?}: stderr was {err}");
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
}

/// Runs `compare` with `args` into a temporary folder; it must succeed.
/// Returns its stdout, its `compare.json` and the folder (kept alive).
fn compare_run(args: &[&str]) -> (String, serde_json::Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend(["--out", dir.path().to_str().unwrap()]);
    let out = flashix(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json =
        serde_json::from_slice(&std::fs::read(dir.path().join("compare.json")).unwrap()).unwrap();
    (String::from_utf8(out.stdout).unwrap(), json, dir)
}

fn trace(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn malformed_trace_names_the_line() {
    let t = trace("I 1 2\n# ok\nI 3\n");
    let p = t.path().to_str().unwrap();
    fails_with(
        &["run", "--index", "btree", "--trace", p, "--quiet"],
        ":3: expected 2 numbers after I, got 1",
    );
    fails_with(
        &[
            "replay",
            "--trace",
            p,
            "--index",
            "btree",
            "--print-results",
        ],
        ":3:",
    );
}

#[test]
fn keys_too_wide_unknown_names_and_small_budgets() {
    let t = trace("I 4294967296 1\n");
    let p = t.path().to_str().unwrap();
    fails_with(
        &["run", "--index", "btree", "--trace", p],
        "does not fit the entry format",
    );
    fails_with(
        &["run", "--index", "bree", "--ops", "10"],
        "unknown index `bree`",
    );
    fails_with(
        &[
            "run", "--index", "btree", "--device", "slc-tiny", "--ops", "10",
        ],
        "unknown device profile",
    );
    fails_with(
        &["run", "--index", "btree", "--memory", "100", "--ops", "10"],
        "too small",
    );
    fails_with(
        &["run", "--index", "btree", "--memory", "lots", "--ops", "10"],
        "--memory",
    );
    fails_with(
        &[
            "run",
            "--index",
            "btree",
            "--set",
            "cache=fifo",
            "--ops",
            "10",
        ],
        "fifo",
    );
    fails_with(
        &[
            "run",
            "--index",
            "btree",
            "--device-set",
            "colour=red",
            "--ops",
            "10",
        ],
        "colour",
    );
    fails_with(
        &["run", "--index", "btree", "--workload", "nope"],
        "unknown workload preset",
    );
    fails_with(
        &[
            "run",
            "--index",
            "btree",
            "--workload-set",
            "key_max=99999999999",
            "--ops",
            "5",
        ],
        "key_max",
    );
    fails_with(
        &[
            "run",
            "--index",
            "btree",
            "--device",
            "raw:slc-small",
            "--set",
            "node_bytes=70000",
            "--ops",
            "5",
        ],
        "too large for the node log",
    );
}

#[test]
fn replay_prints_exactly_the_lookup_results() {
    let t = trace("I 5 9\nI 5 1\nI 7 2\nS 5\nS 6\nR 4 7\nD 5 9\nU 7 2 3\nS 7\n");
    let p = t.path().to_str().unwrap();
    let base = [
        "replay",
        "--trace",
        p,
        "--index",
        "btree",
        "--device",
        "slc-small",
    ];
    // Printing is the default; `--print-results` (once required) is
    // still accepted and changes nothing.
    for extra in [&[][..], &["--print-results"][..]] {
        let out = flashix(&[&base[..], extra].concat());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "S 5: 1 9\nS 6:\nR 4 7: 5:1 5:9 7:2\nS 7: 3\n",
            "{extra:?}"
        );
    }
}

/// `--device` names every device family and every profile `flashix list`
/// shows, wherever it is taken; every `--memory` states its units.
#[test]
fn help_names_every_device_and_the_size_units() {
    use flashix::device::{profile::profiles, ssd::ssd_profiles};
    let names: Vec<&str> = profiles()
        .iter()
        .map(|p| p.name)
        .chain(ssd_profiles().iter().map(|p| p.name))
        .chain(["raw:PROFILE", "file:PATH"])
        .collect();
    for cmd in ["run", "replay", "compare"] {
        let out = flashix(&[cmd, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        for name in &names {
            assert!(
                help.contains(name),
                "`{cmd} --help` does not name {name}:\n{help}"
            );
        }
    }
    for cmd in ["run", "replay", "bench", "crashtest"] {
        let out = flashix(&[cmd, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.contains("1,024-based") && help.contains("1,000-based"),
            "{cmd}:\n{help}"
        );
    }
}

#[test]
fn device_sizes_take_units() {
    let t = trace("I 5 9\nS 5\n");
    let p = t.path().to_str().unwrap();
    let out = flashix(&[
        "replay",
        "--trace",
        p,
        "--index",
        "btree",
        "--device-set",
        "capacity=1MiB",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "S 5: 9\n");
    fails_with(
        &[
            "replay",
            "--trace",
            p,
            "--index",
            "btree",
            "--device-set",
            "capacity=1 furlong",
        ],
        "device parameter `capacity`: `1 furlong` is not a size",
    );
}

#[test]
fn trace_gen_round_trips_through_run_with_verification() {
    let out = flashix(&[
        "trace",
        "gen",
        "--workload",
        "tpcc-index",
        "--preload",
        "500",
        "--ops",
        "2000",
        "--seed",
        "3",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 2500);
    let t = trace(&text);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--set",
        "cache=lru",
        "--trace",
        t.path().to_str().unwrap(),
        "--verify",
        "--json",
        json.to_str().unwrap(),
        "--memory",
        "8KiB",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let counted: u64 = report["ops"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        counted, 2500,
        "a trace has no preload phase: every line is measured"
    );
    assert_eq!(report["verified"], true);
}

#[test]
fn a_file_device_keeps_the_index_for_a_later_run() {
    let dir = tempfile::tempdir().unwrap();
    let dev = format!("file:{}", dir.path().join("idx.db").display());
    let load = trace("I 1 10\nI 2 20\nI 2 21\n");
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--device",
        &dev,
        "--trace",
        load.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let query = trace("S 2\nR 0 9\n");
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--device",
        &dev,
        "--open",
        "--trace",
        query.path().to_str().unwrap(),
        "--verify",
    ]);
    // The oracle of the second run starts empty, so verification flags
    // exactly the entries the reopened index still holds.
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("wrong answer") && err.contains("expected [], got [20, 21]"),
        "{err}"
    );
}

#[test]
fn btree_on_a_raw_chip_uses_the_node_log() {
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--device",
        "raw:toshiba-byte",
        "--set",
        "fanout=8",
        "--workload",
        "lat",
        "--preload",
        "1000",
        "--ops",
        "3000",
        "--verify",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("every answer verified"));
}

#[test]
fn compare_and_list_run() {
    let (text, json, dir) = compare_run(&["--ops", "2000", "--quiet"]);
    // Every index has its row (the B+-tree one per cache).
    let indexes: Vec<&str> = registry::list().iter().map(|i| i.name).collect();
    for row in indexes.iter().filter(|&&n| n != "btree").chain(&[
        "btree:cache=none",
        "btree:cache=lru",
        "btree:cache=mlru",
        "page writes",
        "*",
    ]) {
        assert!(text.contains(row), "{text}");
    }
    for file in ["compare.json", "compare.png", "compare.svg"] {
        assert!(dir.path().join(file).exists(), "{file}");
    }
    // The B+-tree once per cache, then every other index.
    assert_eq!(json.as_array().unwrap().len(), indexes.len() + 2);
    // `list` gives in full each paper the sources cite by first author and
    // year, and cites none by a file name.
    let list = String::from_utf8(flashix(&["list"]).stdout).unwrap();
    assert!(list.contains("toshiba-byte"));
    for p in &flashix::experiment::papers::PAPERS {
        let venue = p.venue.replace('*', "");
        for part in [p.cite, p.structure, p.authors, p.title, &venue] {
            assert!(list.contains(part), "{part}");
        }
    }
    let files = [
        "bftl",
        "mb-tree",
        "fd-tree",
        "as-btree",
        "buffered-bplus-tree",
    ];
    for file in files.map(|f| format!("{f}.md")) {
        assert!(!list.contains(&file), "{file}");
    }
}

/// The main job as the README runs it: on the device sized to the work
/// and preconditioned to 80% occupancy, every index that overwrites pages
/// erases blocks and copies pages in garbage collection; every index pays
/// for its final flush; the output names the device and the occupancy,
/// ends with the ranking and fits 120 columns.
#[test]
fn the_main_job_shows_garbage_collection_and_a_ranking() {
    let (text, json, _dir) = compare_run(&["--quiet"]);
    for line in text.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    for needle in [
        "logical (",
        "over-provisioning",
        "sized to the work",
        "occupancy 80%",
        "--occupancy",
        "page writes",
        "write amp.",
        "Ranking of the ",
        "\n  by sim. time: 1. ",
        "\n  by energy: 1. ",
        "\n  Pareto set over (sim. time, energy, page writes, memory)",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    let reports = json.as_array().unwrap();
    let mut overwriting = 0;
    for r in reports {
        let name = format!("{}{:?}", r["index"]["name"], r["index"]["params"]);
        assert_eq!(r["by_op"]["flush"]["count"], 1, "{name}: final flush");
        let footprint = r["device"]["footprint_pages"].as_u64().unwrap();
        assert!(
            footprint <= r["device"]["capacity_pages"].as_u64().unwrap(),
            "{name}"
        );
        assert!(
            r["device"]["notes"].to_string().contains("preconditioned"),
            "{name}: {}",
            r["device"]
        );
        let overwrites = ["basic-delta", "consolidation", "flashdb"]
            .iter()
            .any(|n| r["index"]["name"] == *n)
            || (r["index"]["name"] == "btree" && r["index"]["params"]["cache"] == "none");
        if overwrites {
            overwriting += 1;
            let d = &r["device_stats"];
            assert!(d["erases"].as_u64().unwrap() > 0, "{name}: {d}");
            assert!(d["gc_copies"].as_u64().unwrap() > 0, "{name}: {d}");
            assert!(
                d["write_amplification"].as_f64().unwrap() > 1.0,
                "{name}: {d}"
            );
        }
    }
    assert_eq!(overwriting, 4);
}

/// Preconditioning on a reduced run of the four indexes that overwrite
/// pages: each erases blocks and copies pages, and copies more than on
/// the empty chip of `--occupancy none`.
#[test]
fn preconditioning_makes_the_overwriting_indexes_collect_garbage() {
    let gc = |occupancy: &str| {
        let (text, json, _dir) = compare_run(&[
            "--quiet",
            "--indexes",
            "btree:cache=none,basic-delta,consolidation,flashdb",
            "--ops",
            "20000",
            "--occupancy",
            occupancy,
        ]);
        let rows: Vec<(u64, u64, f64)> = json
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let d = &r["device_stats"];
                (
                    d["erases"].as_u64().unwrap(),
                    d["gc_copies"].as_u64().unwrap(),
                    d["write_amplification"].as_f64().unwrap(),
                )
            })
            .collect();
        (text, rows)
    };
    let (text, full) = gc("0.8");
    assert!(text.contains("occupancy 80%"), "{text}");
    let (empty_text, empty) = gc("none");
    assert!(
        !empty_text.contains("occupancy") && empty_text.contains("--fill 0.9"),
        "{empty_text}"
    );
    assert_eq!(full.len(), 4);
    for (i, ((erases, copies, wa), (_, empty_copies, _))) in full.iter().zip(&empty).enumerate() {
        assert!(*erases > 0 && *wa > 1.0, "row {i}: {full:?}");
        assert!(copies > empty_copies, "row {i}: {full:?} against {empty:?}");
    }
    fails_with(
        &["compare", "--quiet", "--ops", "10", "--fill", "0.5"],
        "--occupancy none --fill",
    );
    fails_with(
        &["compare", "--quiet", "--ops", "10", "--occupancy", "1.5"],
        "--occupancy must be in (0, 1)",
    );
}

/// A reader that stops early (`flashix compare | head -1`) ends the
/// program quietly: the default SIGPIPE ends it (or it ends by itself),
/// never a panic. Stdout is closed before the program writes anything.
#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for args in [
        vec!["list"],
        vec![
            "compare",
            "--quiet",
            "--ops",
            "300",
            "--indexes",
            "btree,lsm",
            "--out",
            out,
        ],
        vec!["bench", "--quiet", "--ops", "2000"],
        vec![
            "reproduce",
            "bftl-fig10",
            "--quick",
            "--quiet",
            "--jobs",
            "1",
            "--out",
            out,
        ],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_flashix"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let result = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("internal error"),
            "{args:?}: {err}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert!(
                result.status.success() || result.status.signal() == Some(libc::SIGPIPE),
                "{args:?}: {:?} {err}",
                result.status
            );
        }
    }
}

/// The default output of a small comparison fits 120 columns; `--wide`
/// gives every column.
#[test]
fn compare_fits_120_columns_and_wide_has_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let base = ["compare", "--quiet", "--ops", "3000", "--out", out_dir];
    let out = flashix(&base);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success() && text.contains("Pareto set"),
        "{text}"
    );
    for line in text.lines() {
        assert!(
            line.chars().count() <= 120,
            "{}: {line}",
            line.chars().count()
        );
    }
    let mut wide = base.to_vec();
    wide.push("--wide");
    let out = flashix(&wide);
    let text = String::from_utf8(out.stdout).unwrap();
    for column in [
        "writes (index)",
        "GC copies",
        "durability writes",
        "live (KiB)",
        "wall (s)",
    ] {
        assert!(text.contains(column), "{column}: {text}");
    }
}

/// Over the commit layer the wide table charges its map and meta pages as
/// their own column, and the chip's writes are the sum of the three columns.
#[test]
fn compare_counts_durability_writes_apart() {
    let (text, json, _dir) = compare_run(&[
        "--quiet",
        "--indexes",
        "btree:cache=lru,mbtree",
        "--ops",
        "3000",
        "--device-set",
        "atomic=true",
        "--wide",
    ]);
    assert!(text.contains("durability writes"), "{text}");
    for r in json.as_array().unwrap() {
        let d = &r["device_stats"];
        let n = |k: &str| d[k].as_u64().unwrap();
        assert!(n("durability_writes") > 0, "{d}");
        assert_eq!(
            n("physical_writes"),
            n("logical_writes") + n("durability_writes") + n("gc_copies"),
            "{d}"
        );
        assert_eq!(
            r["by_op"]["flush"]["durability_writes"].as_u64().unwrap(),
            n("durability_writes"),
            "one commit, at the final flush: {r}"
        );
    }
}

/// `compare --predict x25e` on a file: the same requests run on the model,
/// and each index's predicted time is beside the time the disk took.
#[test]
fn compare_predicts_a_file_run_with_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("idx.db");
    let file = format!("file:{}", db.display());
    let out = flashix(&[
        "compare",
        "--quiet",
        "--indexes",
        "btree:cache=lru,lsm",
        "--ops",
        "2000",
        "--device",
        &file,
        "--predict",
        "x25e",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("predicted by x25e"), "{text}");
    let rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("prediction.json")).unwrap())
            .unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        let f = |k: &str| r[k].as_f64().unwrap();
        assert_eq!(r["same_requests"], true, "{r}");
        assert!(f("measured_s") > 0.0 && f("predicted_s") > 0.0, "{r}");
        assert!(
            (f("error") - (f("predicted_s") - f("measured_s")) / f("measured_s")).abs() < 1e-9,
            "{r}"
        );
        // The model's time is its reads and writes, nothing else.
        assert!(
            (f("predicted_read_s") + f("predicted_write_s") - f("predicted_s")).abs() < 1e-9,
            "{r}"
        );
    }
    fails_with(
        &[
            "compare",
            "--quiet",
            "--indexes",
            "btree",
            "--ops",
            "10",
            "--predict",
            "x25e",
        ],
        "--predict compares a model with a real disk",
    );
    fails_with(
        &[
            "compare",
            "--quiet",
            "--indexes",
            "btree",
            "--ops",
            "10",
            "--device",
            &file,
            "--predict",
            "raw:slc-small",
        ],
        "--predict takes a simulated device",
    );
}

/// `run` sizes the FTL device to the work unless the user chose a size,
/// and refuses a fill that is no share.
#[test]
fn run_sizes_the_device_unless_a_size_is_given() {
    let base = ["run", "--index", "btree", "--ops", "5000", "--quiet"];
    let sized = flashix(&base);
    let text = String::from_utf8_lossy(&sized.stdout);
    assert!(
        sized.status.success() && text.contains("sized to the work"),
        "{text}"
    );
    assert!(text.contains("flush"), "the final flush row: {text}");
    let mut chosen = base.to_vec();
    chosen.extend(["--device-set", "blocks=512"]);
    let out = flashix(&chosen);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !text.contains("sized to the work"),
        "{text}"
    );
    assert!(text.contains("on a chip of 512 blocks"), "{text}");
    let mut bad = base.to_vec();
    bad.extend(["--fill", "1.5"]);
    fails_with(&bad, "--fill must be in (0, 1]");
    // No cold data unless asked for; --occupancy preconditions as compare
    // does.
    assert!(!text.contains("occupancy"), "{text}");
    let mut aged = base.to_vec();
    aged.extend(["--occupancy", "0.8"]);
    let out = flashix(&aged);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("occupancy 80%"),
        "{text}"
    );
}

/// A file index written by `replay` (flushed at its end) is read back by
/// `replay --open`, for every index that runs on pages; `--flush-every`
/// flushes on the way, each flush its own count in the `flush` row; a
/// second writer on the same file is refused while the first holds it.
#[test]
fn replay_keeps_a_file_index_and_replay_open_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut inserts = String::new();
    let mut queries = String::new();
    for k in 0..300u64 {
        inserts.push_str(&format!("I {} {}\n", k * 7 % 1000, k));
        queries.push_str(&format!("S {}\n", k * 7 % 1000));
    }
    let (inserts, queries) = (trace(&inserts), trace(&queries));
    for index in registry::list().iter().map(|i| i.name) {
        let db = dir.path().join(format!("{index}.db"));
        let device = format!("file:{}", db.display());
        let base = ["--index", index, "--device", &device];
        let mut write = vec!["replay", "--print-results", "--trace"];
        write.push(inserts.path().to_str().unwrap());
        write.extend(base);
        let out = flashix(&write);
        assert!(
            out.status.success(),
            "{index}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut read = vec!["replay", "--open", "--print-results", "--trace"];
        read.push(queries.path().to_str().unwrap());
        read.extend(base);
        let out = flashix(&read);
        assert!(
            out.status.success(),
            "{index}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let answers = String::from_utf8(out.stdout).unwrap();
        for (k, line) in answers.lines().enumerate() {
            assert_eq!(line, format!("S {}: {k}", k as u64 * 7 % 1000), "{index}");
        }
        assert_eq!(answers.lines().count(), 300, "{index}");
    }
    let db = dir.path().join("every.db");
    let device = format!("file:{}", db.display());
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--device",
        &device,
        "--trace",
        inserts.path().to_str().unwrap(),
        "--flush-every",
        "100",
        "--quiet",
        "--json",
        dir.path().join("every.json").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("every.json")).unwrap()).unwrap();
    // After operations 100, 200 and 300, then the final flush.
    assert_eq!(report["by_op"]["flush"]["count"], 4, "{}", report["by_op"]);
    fails_with(
        &[
            "run",
            "--index",
            "btree",
            "--device",
            &device,
            "--ops",
            "1",
            "--flush-every",
            "0",
        ],
        "--flush-every",
    );
}

/// One writer per file, across processes: while one `run` holds the file,
/// a second fails with a clear error and destroys nothing.
#[test]
fn a_second_process_on_a_file_in_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("busy.db");
    let device = format!("file:{}", db.display());
    let holder = flashix::device::file::FileDevice::create(&db, 4096, 0).unwrap();
    fails_with(
        &[
            "run", "--index", "btree", "--device", &device, "--ops", "10", "--quiet",
        ],
        "in use",
    );
    fails_with(
        &[
            "run", "--open", "--index", "btree", "--device", &device, "--ops", "10", "--quiet",
        ],
        "in use",
    );
    drop(holder);
}

#[test]
fn dna_workload_from_a_fasta_file_and_a_clear_error_for_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let fasta = dir.path().join("tiny.fa");
    let mut text = String::from(">tiny test genome\n");
    // A deterministic 3,000-base sequence, 60 bases a line, with an N run.
    let mut x = 12345u32;
    for i in 0..3000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        text.push(if (1000..1010).contains(&i) {
            'N'
        } else {
            b"ACGT"[(x >> 16) as usize % 4] as char
        });
        if i % 60 == 59 {
            text.push('\n');
        }
    }
    std::fs::write(&fasta, text).unwrap();
    let workload = format!("dna:{}", fasta.display());
    let out = flashix(&[
        "run",
        "--index",
        "mbtree",
        "--workload",
        &workload,
        "--ops",
        "2000",
        "--memory",
        "4KiB",
        "--verify",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Named by its content (first record's accession, the file's
    // CRC-32C), not by its file name or path.
    assert!(
        text.contains("dna:tiny#") && text.contains("\"tiny test genome\""),
        "the report names the sequence: {text}"
    );
    assert!(!text.contains("tiny.fa"), "{text}");
    assert!(text.contains("every answer verified"), "{text}");
    // More keys than the file holds: an error, not a wrap-around.
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--workload",
        &workload,
        "--ops",
        "5000",
        "--quiet",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("16-base substrings"));
    // Not FASTA.
    let bad = dir.path().join("not.fa");
    std::fs::write(&bad, "I 1 2\nS 1\n").unwrap();
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--workload",
        &format!("dna:{}", bad.display()),
        "--quiet",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a FASTA file") && err.contains("not.fa:1"),
        "{err}"
    );
}

/// `--io-trace` writes one DiskSim line per device request: the run's reads
/// and writes and those of creating the index, each with five fields.
#[test]
fn io_trace_writes_one_disksim_line_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("io.trace");
    let json = dir.path().join("r.json");
    let out = flashix(&[
        "run",
        "--index",
        "btree",
        "--device",
        "samsung-ssd32",
        "--set",
        "cache=none",
        "--ops",
        "500",
        "--quiet",
        "--io-trace",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let d = &report["device_stats"];
    let requests = d["logical_reads"].as_u64().unwrap() + d["logical_writes"].as_u64().unwrap();
    // Plus the few requests of creating the index, before the measured run.
    let lines = text.lines().count() as u64;
    assert!(
        requests <= lines && lines <= requests + 8,
        "{lines} lines, {requests} requests"
    );
    let mut last = 0.0;
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 5, "{line}");
        let t: f64 = f[0].parse().unwrap();
        assert!(t >= last, "arrival times go forward: {line}");
        last = t;
        assert!(f[4] == "0" || f[4] == "1");
    }
}
