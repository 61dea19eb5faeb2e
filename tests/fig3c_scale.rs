//! The opt-in scale experiments (`fdtree-fig3c-15e7`, `fdtree-fig3c-3e8`,
//! `fdtree-fig3c-1e9`) are fdtree-fig3c's own runs beyond its sizes: at the
//! sizes they share, every cell equals fig3c's (same parameters, same
//! seeds), and `reproduce all` leaves them out. Above 10^8 the LSM-tree's
//! preload lays out the components between C1 and the bottom
//! (`layout_above`): forced at a small size, it gives the shapes and
//! measured counts the rolling path gives.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use flashix::experiment::{experiments, opt_in_experiments};

/// The fields of a CSV line (a quoted field may hold commas).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Each row of `id`'s CSV by (series, x), as column → value.
fn cells(dir: &Path, id: &str) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let csv = std::fs::read_to_string(dir.join(id).join(format!("{id}.csv"))).unwrap();
    let mut lines = csv.lines();
    let header = fields(lines.next().unwrap());
    lines
        .map(|l| {
            let row: BTreeMap<String, String> = header.iter().cloned().zip(fields(l)).collect();
            ((row["series"].clone(), row["x"].clone()), row)
        })
        .collect()
}

#[test]
fn scale_runs_are_fig3c_runs_and_stay_out_of_all() {
    let ids: Vec<&str> = opt_in_experiments().iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        ["fdtree-fig3c-15e7", "fdtree-fig3c-3e8", "fdtree-fig3c-1e9"]
    );
    assert!(
        experiments().iter().all(|e| !ids.contains(&e.id)),
        "not in `all`"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "reproduce",
            "fdtree-fig3c,fdtree-fig3c-15e7,fdtree-fig3c-3e8,fdtree-fig3c-1e9",
        ])
        .args(["--quick", "--quiet", "--jobs", "2", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fig3c = cells(dir.path(), "fdtree-fig3c");
    for id in ids {
        let mut scale = cells(dir.path(), id);
        // 3e8's sensitivity series, at the larger quick size only: not
        // fig3c's runs.
        let head = |s: &str| s.starts_with("FD-tree, 256 KiB head");
        let sensitivity = scale.keys().filter(|(s, _)| head(s)).count();
        assert_eq!(sensitivity, if id.ends_with("3e8") { 2 } else { 0 }, "{id}");
        scale.retain(|(s, _), _| !head(s));
        // The eight Samsung series at both quick sizes.
        assert_eq!(scale.len(), 16, "{id}");
        for (at, row) in &scale {
            let theirs = fig3c
                .get(at)
                .unwrap_or_else(|| panic!("{id}: {at:?} not in fig3c"));
            let mut differ: Vec<&String> = row
                .iter()
                .filter(|(k, v)| theirs.get(*k).is_some_and(|w| w != *v))
                .map(|(k, _)| k)
                .collect();
            differ.retain(|k| !k.contains("wall"));
            assert!(differ.is_empty(), "{id} {at:?}: {differ:?}");
            assert_eq!(
                row["time_us_per_op"], theirs["time_us_per_op"],
                "{id} {at:?}"
            );
        }
    }
}

/// One `flashix run` of the LSM-tree (ratio 10, a 4 KiB C0: C2 holds
/// 45,500 entries, so 200,000 have three disk components) with
/// `layout_above` at `layout_above`: the JSON report.
fn lsm_run(mix: &str, layout_above: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "run",
            "--index",
            "lsm",
            "--set",
            "ratio=10",
            "--set",
            "c0_bytes=4096",
        ])
        .args(["--set", &format!("layout_above={layout_above}")])
        .args([
            "--device",
            "samsung-ssd32",
            "--device-set",
            "page_size=2048",
        ])
        .args(["--memory", "1MiB", "--workload", mix])
        .args(["--workload-set", "key_max=4294967295", "--bulk-load"])
        .args(["--preload", "200000", "--ops", "40000", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// Above `layout_above` the LSM-tree's bulk load lays C2 out at capacity
/// and leaves only C0 and C1 to random inserts, where the rolling path
/// inserts C2's capacity too: forced at a size where both run, the
/// components after the preload and the measured counts agree. Shapes:
/// the same number of components, each within 1% (C0, which holds a
/// page's worth, within 30%); page reads, page writes and time per
/// request within 10%. The layout's preload writes less than half the
/// pages, the point of it.
#[test]
fn laid_out_lsm_components_match_the_rolling_steady_state() {
    let stat = |r: &serde_json::Value, block: &str, k: &str| r[block][k].as_f64().unwrap_or(-1.0);
    let per_op = |r: &serde_json::Value, what: &str| {
        let by_op = r["by_op"].as_object().unwrap();
        let total: f64 = by_op.values().map(|o| o[what].as_f64().unwrap()).sum();
        let n: f64 = by_op
            .iter()
            .filter(|(k, _)| *k != "flush")
            .map(|(_, o)| o["count"].as_f64().unwrap())
            .sum();
        total / n
    };
    for mix in ["w-search", "w-update"] {
        let rolling = lsm_run(mix, "1000000000");
        let laid = lsm_run(mix, "0");
        let components = stat(&rolling, "preload_index_stats", "components");
        assert_eq!(components, 4.0, "{mix}: C0 and three disk components");
        assert_eq!(components, stat(&laid, "preload_index_stats", "components"));
        for (c, tolerance) in [("c0", 0.3), ("c1", 0.01), ("c2", 0.01), ("c3", 0.01)] {
            let k = format!("{c}_entries");
            let (a, b) = (
                stat(&rolling, "preload_index_stats", &k),
                stat(&laid, "preload_index_stats", &k),
            );
            assert!(
                (a - b).abs() <= tolerance * a,
                "{mix} {k}: rolling {a}, laid out {b}"
            );
        }
        for what in ["page_reads", "page_writes", "time_us"] {
            let (a, b) = (per_op(&rolling, what), per_op(&laid, what));
            assert!(
                (a - b).abs() <= 0.1 * a,
                "{mix} {what} a request: rolling {a}, laid out {b}"
            );
        }
        let writes = |r: &serde_json::Value| stat(r, "preload", "physical_writes");
        assert!(
            2.0 * writes(&laid) < writes(&rolling),
            "{mix}: the layout's preload writes {} pages, the rolling one {}",
            writes(&laid),
            writes(&rolling)
        );
    }
}
