//! `flashix advise` as a user meets it: the command it prints reproduces
//! the recommendation's numbers exactly; sharing a preloaded image changes
//! no figure; the JSON holds what scripts need; the table fits 120
//! columns; bad input is one clear error.

use std::process::{Command, Output};

use serde_json::Value;

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `advise` with `args`; its stdout and JSON.
fn advise(args: &[&str]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    let out_dir = dir.path().join("out");
    let mut all = vec!["advise", "--quiet"];
    all.extend_from_slice(args);
    all.extend([
        "--json",
        json.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let out = flashix(&all);
    assert!(
        out.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out_dir.join("advise.png").exists() && out_dir.join("advise.svg").exists());
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), v)
}

/// A small job with a preload on a sized, preconditioned FTL chip: every
/// part of the command (`--preload-reopen`, `--device-set blocks=`,
/// `--cold-pages`) is exercised.
const JOB: [&str; 10] = [
    "--workload",
    "lat",
    "--preload",
    "3000",
    "--ops",
    "8000",
    "--device",
    "slc-small",
    "--memory",
    "32KiB",
];

#[test]
fn the_printed_command_reproduces_the_recommendation() {
    let (text, v) = advise(&JOB);
    reproduces(
        &text,
        &v,
        &[
            "--preload-reopen",
            "--device-set blocks=",
            "--cold-pages",
            "--memory 32768",
        ],
    );
}

/// The LA paper's setting, small: with `--exclude-node-tables` the printed
/// command carries the flag, and the memory the advice states is what the
/// command counts (the peak besides the data-bound tables), within the
/// budget (issue #43).
#[test]
fn the_command_keeps_the_tables_outside_as_the_advice_did() {
    let job = [
        "--workload",
        "lat",
        "--preload",
        "3000",
        "--ops",
        "8000",
        "--device",
        "raw:toshiba-byte",
        "--device-set",
        "blocks=8192",
        "--memory",
        "64KiB",
        "--indexes",
        "btree,latree,buffer-tree",
        "--exclude-node-tables",
    ];
    let (text, v) = advise(&job);
    let (r, stdout) = reproduces(&text, &v, &["--exclude-node-tables", "--memory 65536"]);
    let counted = r["memory_peak_unnamed_bytes"].as_f64().unwrap();
    assert!(counted <= 65_536.0, "{counted} B");
    assert!(
        stdout.contains(&format!("peak {counted} B besides them")),
        "the run says what it counts: {stdout}"
    );
}

/// Runs the recommendation's printed command, which must hold every
/// part of `parts`, and checks it gives every measure of the advice, the
/// memory as the budget counted it; the run's report and stdout.
fn reproduces(text: &str, v: &Value, parts: &[&str]) -> (Value, String) {
    let rec = &v["recommendation"];
    let command = rec["command"].as_str().unwrap();
    assert!(text.contains(command), "the command is printed: {text}");
    for part in parts {
        assert!(command.contains(part), "{part}: {command}");
    }
    let index = rec["index"].as_str().unwrap();
    assert!(
        command.starts_with(&format!("flashix run --index {index} ")),
        "{command}"
    );
    for (k, val) in rec["params"].as_object().unwrap() {
        let val = val.as_str().unwrap();
        // `--exclude-node-tables` gives `tables=outside`.
        if !(k == "tables" && val == "outside" && command.contains("--exclude-node-tables")) {
            assert!(
                command.contains(&format!("--set {k}={val}")),
                "{k}: {command}"
            );
        }
    }
    // Run it (no word needs quoting here) and compare every measure.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut args: Vec<&str> = command.split(' ').skip(1).collect();
    args.extend(["--quiet", "--json", json.to_str().unwrap()]);
    let out = flashix(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ops: f64 = r["ops"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_f64().unwrap())
        .sum();
    let writes: f64 = r["by_op"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c["page_writes"].as_f64().unwrap())
        .sum();
    let m = &rec["measures"];
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
    assert!(same(
        m["time_us"].as_f64().unwrap(),
        r["time_us"].as_f64().unwrap() / ops
    ));
    assert!(same(
        m["energy_uj"].as_f64().unwrap(),
        r["energy_uj"].as_f64().unwrap() / ops
    ));
    assert!(same(m["writes"].as_f64().unwrap(), writes / ops));
    // The memory as the budget counts it: the peak, or the peak besides
    // the data-bound tables where they stand outside the budget.
    let counted = r["memory_peak_unnamed_bytes"]
        .as_f64()
        .or(r["memory_peak_bytes"].as_f64())
        .unwrap();
    assert_eq!(m["memory"].as_f64().unwrap(), counted);
    (r, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Copying one preloaded image for every configuration that shares it
/// gives the same numbers as building each one's own.
#[test]
fn sharing_the_preload_changes_no_figure() {
    let (shared_text, shared) = advise(&JOB);
    let mut alone_args = JOB.to_vec();
    alone_args.push("--no-shared-preload");
    let (_, alone) = advise(&alone_args);
    assert!(
        shared_text.contains("preloaded images served"),
        "{shared_text}"
    );
    let (a, b) = (
        shared["configurations"].as_array().unwrap(),
        alone["configurations"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x["label"], y["label"]);
        assert_eq!(x["status"], y["status"], "{}", x["label"]);
        assert_eq!(x["measures"], y["measures"], "{}", x["label"]);
        assert_eq!(x["wear"], y["wear"], "{}", x["label"]);
    }
    let images = |v: &Value| v["timing"]["measuring"][1]["images"].as_u64().unwrap();
    assert!(
        images(&shared) < images(&alone),
        "fewer images built when shared"
    );
}

#[test]
fn the_json_and_the_table_hold_what_they_promise() {
    let (text, v) = advise(&[
        "--workload",
        "insert-uniform",
        "--ops",
        "4000",
        "--ops-per-day",
        "10000",
    ]);
    let rec = &v["recommendation"];
    for key in ["index", "params", "command", "reason", "measures"] {
        assert!(!rec[key].is_null(), "recommendation.{key}: {rec}");
    }
    let front = v["front"].as_array().unwrap();
    assert!(!front.is_empty());
    assert!(front.iter().any(|e| e["label"] == rec["label"]));
    let configs = v["configurations"].as_array().unwrap();
    let ran = configs.iter().find(|c| c["status"] == "ran").unwrap();
    assert!(
        ran["wear"]["per_block"]["histogram"]["blocks"].is_array(),
        "{ran}"
    );
    assert!(ran["chip_wear"]["histogram"]["width"].as_u64().unwrap() >= 1);
    assert_eq!(v["endurance"].as_u64(), Some(1_000_000));
    assert!(v["endurance_source"]
        .as_str()
        .unwrap()
        .contains("Wu et al. 2003"));
    // The table and every line but the command fit 120 columns.
    for line in text.lines().filter(|l| !l.starts_with("  flashix run")) {
        assert!(
            line.chars().count() <= 120,
            "{}: {line}",
            line.chars().count()
        );
    }
    assert!(text.contains("Recommended: "), "{text}");
    assert!(text.contains("Against the best B+-tree"), "{text}");
    assert!(
        text.contains("lifetime at 10,000 operations a day"),
        "{text}"
    );
}

fn fails_with(args: &[&str], needle: &str) {
    let out = flashix(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    fails_with(
        &["advise", "--optimize", "speed", "--out", out],
        "unknown objective `speed`",
    );
    fails_with(
        &["advise", "--indexes", "btree,nope", "--out", out],
        "unknown index `nope`",
    );
    fails_with(&["advise", "--years", "5", "--out", out], "--ops-per-day");
    fails_with(&["advise", "--memory", "lots", "--out", out], "--memory");
    fails_with(
        &["advise", "--workload", "nope", "--out", out],
        "unknown workload preset",
    );
    fails_with(
        &[
            "advise", "--ops", "500", "--memory", "1", "--quiet", "--out", out,
        ],
        "no configuration of the",
    );
    let trace = dir.path().join("bad.trace");
    std::fs::write(&trace, "I 1 1\nI 2 2\nQ 3\n").unwrap();
    fails_with(
        &["advise", "--trace", trace.to_str().unwrap(), "--out", out],
        "bad.trace:3:",
    );
}
