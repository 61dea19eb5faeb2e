//! A long trace is advised on a prefix (issue #30, point 1): the prefix is
//! stated, its mix of operations set beside the whole trace's, and a
//! prefix whose mix differs is flagged; advice on a prefix is compared with
//! advice on the whole trace, preset by preset.

use std::process::{Command, Output};

use serde_json::Value;

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .unwrap()
}

/// A trace of `preset`'s measured operations (no preload), `ops` long.
fn trace(dir: &std::path::Path, preset: &str, ops: u64) -> (std::path::PathBuf, u64) {
    let out = flashix(&[
        "trace",
        "gen",
        "--workload",
        preset,
        "--preload",
        "0",
        "--ops",
        &ops.to_string(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.join(format!("{preset}.trace"));
    std::fs::write(&path, &out.stdout).unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count() as u64;
    (path, lines)
}

/// `advise` on `trace`, on its first `prefix` operations if given: stdout
/// and JSON.
fn advise(trace: &std::path::Path, prefix: Option<u64>) -> (String, Value) {
    match prefix {
        Some(n) => advise_with(trace, &["--ops", &n.to_string()]),
        None => advise_with(trace, &[]),
    }
}

/// `advise` on `trace` with `extra` arguments: stdout and JSON.
fn advise_with(trace: &std::path::Path, extra: &[&str]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    let mut args = vec![
        "advise",
        "--quiet",
        "--trace",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = flashix(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), v)
}

/// The `mbtree` preset inserts, then searches every key: its first half
/// is all inserts, and the output says the prefix does not stand for the
/// trace. `insert-uniform` keeps one mix: its prefix is stated, not
/// flagged, and the index it recommends is the whole trace's.
#[test]
fn a_prefix_is_stated_and_a_changing_mix_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let (phased, n) = trace(dir.path(), "mbtree", 4_000);
    let (text, v) = advise(&phased, Some(n / 2));
    let p = &v["trace_prefix"];
    assert_eq!(
        (p["taken"].as_u64(), p["total"].as_u64()),
        (Some(n / 2), Some(n))
    );
    assert!(
        (p["largest_gap"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{p}"
    );
    assert!(text.contains("DOUBTFUL"), "{text}");
    let (steady, n) = trace(dir.path(), "insert-uniform", 20_000);
    let (text, half) = advise(&steady, Some(n / 2));
    let text = text.replace("\n  ", " ");
    assert_eq!(n, 20_000);
    assert!(
        text.contains("advised on the first 10,000 of the trace's 20,000 operations"),
        "{text}"
    );
    assert!(!text.contains("DOUBTFUL"), "{text}");
    let (_, whole) = advise(&steady, None);
    assert!(whole["trace_prefix"].is_null());
    assert_eq!(
        half["recommendation"]["index"],
        whole["recommendation"]["index"]
    );
}

/// The extrapolation, checked for the presets: advice on the first half
/// of a 100,000-operation trace of each either names the index advice on
/// the whole trace names (or one of the two passes calls the other's pick
/// a near tie of its own, which its measurement does not rank), or says
/// why it may not (its mix is
/// DOUBTFUL against a window of the trace, or its own first half names
/// another index: UNSTABLE). Unflagged advice is never wrong here, and the checks
/// flag no more than half the presets, so they do not pass by doubting
/// everything. An UNSTABLE half given as `--prefix` doubles to the whole
/// trace (`lat-phases` optimising time, where no preset's half is
/// UNSTABLE by the balanced choice).
///
/// Traces start from an empty index (no preload), so the index grows
/// through each; at 20,000 operations, where the indexes hardly pass the
/// 64 KiB budget, `tpcc-index`'s first half and its first quarter both
/// name the FD-tree and the whole trace the LSM-tree (docs/ADVISE.md).
#[test]
fn advice_on_a_prefix_agrees_with_the_whole_trace_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let presets = flashix::workload::presets();
    let (mut wrong, mut flagged) = (Vec::new(), Vec::new());
    for preset in &presets {
        let (path, n) = trace(dir.path(), preset.name, 100_000);
        let (_, half) = advise(&path, Some(n / 2));
        let p = &half["trace_prefix"];
        let doubtful = p["largest_gap"].as_f64().unwrap() > 0.05;
        let stable = p["check"]["stable"].as_bool().unwrap();
        assert_eq!(p["check"]["half"].as_u64(), Some(n / 2 / 2), "{p}");
        if doubtful || !stable {
            flagged.push(preset.name);
            continue;
        }
        let (_, whole) = advise(&path, None);
        // Each pass's pick, and the indexes it cannot rank against it: the
        // two agree where either names the other's pick among its own (the
        // tool's own check, `check_against`, is as symmetric).
        let tied = |v: &Value| {
            let mut t = vec![v["recommendation"]["index"].clone()];
            t.extend(
                v["others"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|o| o["near_tie"].as_bool() == Some(true))
                    .map(|o| o["index"].clone()),
            );
            t
        };
        let (h, w) = (tied(&half), tied(&whole));
        if !h.contains(&w[0]) && !w.contains(&h[0]) {
            wrong.push(format!(
                "{}: {h:?} on the half, {w:?} on the whole",
                preset.name
            ));
        }
    }
    assert!(wrong.is_empty(), "unflagged and wrong: {wrong:#?}");
    assert!(
        flagged.len() * 2 <= presets.len(),
        "flagged {} of {}: {flagged:?}",
        flagged.len(),
        presets.len()
    );
    // Doubling: an UNSTABLE prefix doubles to the whole trace, checked
    // against its half. Since the indexes keep their budgets (issue #43) no
    // preset's half need be UNSTABLE at this length by the balanced choice;
    // by time, `lat-phases`' first half names another index on its first
    // quarter (write-heavy) than on the whole half (the reads begin).
    let (path, n) = trace(dir.path(), "lat-phases", 100_000);
    let (_, v) = advise_with(
        &path,
        &["--prefix", &(n / 2).to_string(), "--optimize", "time"],
    );
    let p = &v["trace_prefix"];
    assert_eq!(p["started_at"].as_u64(), Some(n / 2), "{p}");
    assert_eq!(
        (p["taken"].as_u64(), p["total"].as_u64()),
        (Some(n), Some(n)),
        "{p}"
    );
    assert_eq!(p["check"]["half"].as_u64(), Some(n / 2), "{p}");
}
