//! `flashix reproduce all --quick` writes every output of every experiment,
//! and each parses: CSV with one row per run, JSON, PNG, SVG, Markdown with
//! the published-vs-measured table, and the RESULTS.md summary.

use std::process::Command;

use flashix::experiment::experiments;

/// Fields of a CSV line; a quoted field may hold commas (series names do).
fn csv_fields(line: &str) -> usize {
    let mut quoted = false;
    1 + line
        .chars()
        .filter(|&c| {
            if c == '"' {
                quoted = !quoted;
            }
            c == ',' && !quoted
        })
        .count()
}

#[test]
fn reproduce_all_quick_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "reproduce",
            "all",
            "--quick",
            "--quiet",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for exp in experiments() {
        if let Some(missing) = exp.missing_input() {
            // `reproduce all` skips it and says why (CI installs the genome).
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(&format!("skipping {}", exp.id)),
                "{missing}"
            );
            continue;
        }
        let folder = dir.path().join(exp.id);
        let read = |ext: &str| std::fs::read(folder.join(format!("{}.{ext}", exp.id))).unwrap();
        let csv = String::from_utf8(read("csv")).unwrap();
        let runs = exp.runs(true).len();
        assert_eq!(
            csv.lines().count(),
            runs + 1,
            "{}: header + one row per run",
            exp.id
        );
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        for line in csv.lines().skip(1) {
            assert_eq!(csv_fields(line), header.len(), "{}: {line}", exp.id);
        }
        for panel in &exp.panels {
            assert!(
                header.contains(&panel.metric),
                "{}: {} not in CSV",
                exp.id,
                panel.metric
            );
        }
        let json: serde_json::Value = serde_json::from_slice(&read("json")).unwrap();
        assert_eq!(json.as_array().unwrap().len(), runs);
        assert_eq!(&read("png")[..8], b"\x89PNG\r\n\x1a\n");
        assert!(String::from_utf8(read("svg")).unwrap().contains("<svg"));
        let md = String::from_utf8(read("md")).unwrap();
        if exp.published.is_empty() {
            // No published numbers: the report shows the measurements.
            assert!(md.contains("## Measured") && md.contains(exp.panels[0].label));
        } else {
            assert!(md.contains("Published vs measured") && md.contains("measured / published"));
        }
        for p in &exp.published {
            assert!(md.contains(p.name), "{}: {}", exp.id, p.name);
        }
    }
    // Every experiment has its section, a skipped one with why and how to
    // get its input (the genome is optional: FLASHIX_GENOME=/missing runs
    // as a machine without it).
    let summary = std::fs::read_to_string(dir.path().join("RESULTS.md")).unwrap();
    for exp in experiments() {
        let start = summary
            .find(&format!("## {}:", exp.id))
            .unwrap_or_else(|| panic!("no section for {}", exp.id));
        let section = &summary[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        match exp.missing_input() {
            Some(missing) => assert!(
                section.contains("**Not run here.**")
                    && section.contains(&missing)
                    && section.contains("kleborate-examples")
                    && section.contains(&format!("flashix reproduce {}", exp.id)),
                "{section}"
            ),
            None => {
                let table = if exp.published.is_empty() {
                    format!("| {} \\ ", exp.panels[0].label)
                } else {
                    "| headline |".to_string()
                };
                assert!(
                    section.contains(&table) && section.contains(&format!("![{}]", exp.id)),
                    "{section}"
                )
            }
        }
    }
}

#[test]
fn an_unknown_experiment_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["reproduce", "fig99"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown experiment `fig99`") && err.contains("mbtree-fig6"),
        "{err}"
    );
}

/// A figure that cannot be drawn (here its PNG's path is a folder) is a
/// warning naming the file: the data and the report are written and the
/// command succeeds.
#[test]
fn a_figure_that_cannot_be_drawn_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ftl-wa");
    let png = folder.join("ftl-wa.png");
    std::fs::create_dir_all(&png).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["reproduce", "ftl-wa", "--quick", "--quiet", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("warning: could not draw {}: ", png.display())),
        "{err}"
    );
    for ext in ["csv", "json", "md"] {
        let text = std::fs::read_to_string(folder.join(format!("ftl-wa.{ext}"))).unwrap();
        assert!(!text.is_empty(), "{ext}");
    }
}
