//! The opt-in scale experiments (`fdtree-fig3c-15e7`, `fdtree-fig3c-1e9`)
//! are fdtree-fig3c's own runs beyond its sizes: at the sizes they share,
//! every cell equals fig3c's (same parameters, same seeds), and `reproduce
//! all` leaves them out.

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
    assert_eq!(ids, ["fdtree-fig3c-15e7", "fdtree-fig3c-1e9"]);
    assert!(
        experiments().iter().all(|e| !ids.contains(&e.id)),
        "not in `all`"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "reproduce",
            "fdtree-fig3c,fdtree-fig3c-15e7,fdtree-fig3c-1e9",
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
        let scale = cells(dir.path(), id);
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
