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
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    let n = prefix.map(|p| p.to_string());
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
    if let Some(n) = &n {
        args.extend(["--ops", n]);
    }
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

/// For every preset whose first half keeps the mix of the whole trace,
/// advice on that half recommends the index advice on the whole trace
/// does (20,000 operations, the first 10,000).
///
/// It does not hold for every preset at this size: `lat`, `lat-phases`,
/// `w-update` and `tpcc-index` recommend another index on the half (the
/// half's pick is not even on the whole trace's front for the last three;
/// for `w-update` it goes over the budget on the whole trace). The per-
/// operation costs and the memory of a growing index depend on its size,
/// which a prefix halves. docs/DEVIATIONS.md ("advise") has the figures.
#[test]
#[ignore = "does not hold for lat, lat-phases, w-update, tpcc-index at 20,000 operations (docs/DEVIATIONS.md, advise)"]
fn advice_on_a_prefix_agrees_with_the_whole_trace_for_the_presets() {
    let dir = tempfile::tempdir().unwrap();
    let mut disagree = Vec::new();
    for preset in flashix::workload::presets() {
        let (path, n) = trace(dir.path(), preset.name, 20_000);
        let (_, half) = advise(&path, Some(n / 2));
        if half["trace_prefix"]["largest_gap"].as_f64().unwrap() > 0.05 {
            continue;
        }
        let (_, whole) = advise(&path, None);
        let (h, w) = (
            &half["recommendation"]["index"],
            &whole["recommendation"]["index"],
        );
        if h != w {
            disagree.push(format!(
                "{}: {h} on the half, {w} on the whole",
                preset.name
            ));
        }
    }
    assert!(disagree.is_empty(), "{disagree:#?}");
}
