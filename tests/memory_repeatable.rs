//! The memory figures of a seeded experiment are a function of the run
//! (issue #43): two processes reproducing the same experiment write the
//! same memory columns. `lat-fig7` runs the delayed buffer tree, whose
//! waiting lookups (`delayed_lookup_bytes`) once differed between runs;
//! the two processes use different `--jobs`, so neither the thread count
//! nor the order runs finish in moves a figure.

use std::path::Path;
use std::process::Command;

/// The fields of a CSV line; a quoted field may hold commas (series
/// names do).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().expect("one field at least").push(c),
        }
    }
    out
}

/// `reproduce lat-fig7 --quick` into `out` with `jobs` threads; its CSV.
fn reproduce(out: &Path, jobs: &str) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "reproduce",
            "lat-fig7",
            "--quick",
            "--quiet",
            "--jobs",
            jobs,
            "--out",
        ])
        .arg(out)
        .output()
        .expect("flashix runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(out.join("lat-fig7").join("lat-fig7.csv")).expect("the CSV")
}

/// A column of memory: the counted peak, the budget, the excess, the
/// tables' need, and every byte count an index reports (its tables,
/// scratch, frame slack, delayed lookups).
fn is_memory(column: &str) -> bool {
    column.starts_with("memory") || (column.starts_with("index.") && column.ends_with("_bytes"))
}

#[test]
fn two_processes_give_the_same_memory_figures() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (first, second) = (reproduce(a.path(), "2"), reproduce(b.path(), "1"));
    let (first, second): (Vec<&str>, Vec<&str>) =
        (first.lines().collect(), second.lines().collect());
    assert_eq!(first.first(), second.first(), "the same columns");
    assert_eq!(first.len(), second.len(), "the same runs");
    let header = fields(first[0]);
    let memory: Vec<usize> = (0..header.len())
        .filter(|&i| is_memory(&header[i]))
        .collect();
    for name in ["memory_peak_bytes", "index.delayed_lookup_bytes"] {
        assert!(
            memory.iter().any(|&i| header[i] == name),
            "{name} is a column: {header:?}"
        );
    }
    let mut differ = Vec::new();
    for (x, y) in first.iter().zip(&second).skip(1) {
        let (x, y) = (fields(x), fields(y));
        // Series, axis value and seed name the run.
        assert_eq!(x[..3], y[..3], "the runs in the same order");
        for &i in &memory {
            if x[i] != y[i] {
                differ.push(format!(
                    "{} at {}: {} {} against {}",
                    x[0], x[1], header[i], x[i], y[i]
                ));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "memory figures differ between two processes:\n{}",
        differ.join("\n")
    );
}
