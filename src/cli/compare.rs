//! `flashix compare`: every listed index on one device, one workload and
//! one memory budget, then a table, a bar chart and a ranking.
//!
//! Every index runs to the same durability point: the runner flushes it
//! after the last operation and charges that work as its `flush` row, so an
//! index that keeps work buffered (MB-Tree's batch buffer, BFTL's
//! reservation buffer) pays for it. The default device is sized to the work
//! ([`super::sizing`]), so garbage collection shows in the counts: writes
//! are given as the index asked for them (`writes (index)`), as the commit
//! layer added them for durability (`durability writes`: its map and meta
//! pages, on a file or with `--device-set atomic=true`), as garbage
//! collection added them (`GC copies`) and as the chip programmed them
//! (`writes (chip)`, the sum), beside erases and write amplification.
//!
//! With `--predict PROFILE` on a file, every index also runs on the
//! simulated device `PROFILE` and a second table compares the two times
//! ([`super::predict`]).
//!
//! The ranking is read off the table: for page writes (chip), simulated
//! time and energy, the best index among those whose peak memory stayed
//! within the budget, and its factor over the best B+-tree configuration on
//! that measure.

use std::fmt::Write as _;

use crate::experiment;
use crate::index::registry;
use crate::runner::{Report, RunOptions};

use super::args::{CompareArgs, IndexArgs};
use super::sizing::{self, bytes_text, group};
use super::{build_traced, describe, device, execute, memory, predict, write_json, CliResult};

/// Index configurations of `compare`: `NAME[:K=V[;K=V...]]`, comma-separated.
fn compare_configs(list: &str) -> CliResult<Vec<IndexArgs>> {
    if list == "all" {
        // Every index with its defaults; the B+-tree once per node cache.
        let mut all: Vec<IndexArgs> = ["cache=none", "cache=lru", "cache=mlru"]
            .iter()
            .map(|c| IndexArgs {
                index: "btree".into(),
                set: vec![c.to_string()],
            })
            .collect();
        all.extend(
            registry::list()
                .iter()
                .filter(|i| i.name != "btree")
                .map(|i| IndexArgs {
                    index: i.name.to_string(),
                    set: vec![],
                }),
        );
        return Ok(all);
    }
    list.split(',')
        .map(|item| {
            let (name, sets) = item.split_once(':').unwrap_or((item, ""));
            if name.is_empty() {
                return Err("--indexes: an empty index name".into());
            }
            Ok(IndexArgs {
                index: name.to_string(),
                set: sets
                    .split(';')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            })
        })
        .collect()
}

/// How a configuration is named in the table: `btree:cache=lru`.
pub fn label(i: &IndexArgs) -> String {
    if i.set.is_empty() {
        i.index.clone()
    } else {
        format!("{}:{}", i.index, i.set.join(";"))
    }
}

pub fn compare(a: CompareArgs) -> CliResult<()> {
    let configs: Vec<(String, IndexArgs)> = compare_configs(&a.indexes)?
        .into_iter()
        .map(|c| (label(&c), c))
        .collect();
    let spec = device(&a.device)?;
    let mem = memory(&a.memory)?;
    let fill = sizing::check_fill(a.fill)?;
    let mut workload = a.workload.clone();
    if workload.workload.is_none() && workload.trace.is_none() {
        workload.workload = Some("mbtree".into());
        workload.ops.get_or_insert(100_000);
    }
    let (spec, sized) = sizing::size_to_work(&spec, &configs, &workload, mem, fill, None)?;
    let model = a
        .predict
        .as_deref()
        .map(|p| predict::model_spec(&spec, p).map(|m| (p, m)))
        .transpose()?;
    let mut predictions = Vec::new();
    let mut reports = Vec::new();
    for (name, cfg) in &configs {
        let trace = a.io_trace.as_ref().map(|p| {
            let mut s = p.clone().into_os_string();
            s.push(format!("-{name}.trace"));
            std::path::PathBuf::from(s)
        });
        let mut index = build_traced(cfg, &spec, mem, false, trace.as_deref())?;
        let options = RunOptions {
            verify: a.verify,
            quiet: a.quiet,
            index: describe(cfg),
            memory_budget: mem as u64,
            final_flush: true,
            ..RunOptions::default()
        };
        let report = execute(index.as_mut(), &workload, options.clone(), None)
            .map_err(|e| format!("{name}: {e}{}", sizing::full_hint(&e, sized.as_ref())))?;
        drop(index);
        if let Some((profile, m)) = &model {
            let mut sim = build_traced(cfg, m, mem, false, None)?;
            let predicted = execute(sim.as_mut(), &workload, options, None)
                .map_err(|e| format!("{name} on {profile}: {e}"))?;
            predictions.push(predict::predict(name, profile, &report, &predicted));
        }
        reports.push((name.clone(), report));
    }
    if let Some((_, first)) = reports.first() {
        println!(
            "{}",
            sizing::device_line(&spec, first.device.capacity_pages, sized.as_ref())
        );
        println!(
            "memory budget {} B per index; workload {}; every index flushed at the end",
            group(mem as u64),
            first.workload
        );
    }
    println!("{}", compare_table(&reports));
    println!("{}", ranking(&reports, mem as u64));
    if !predictions.is_empty() {
        println!("{}", predict::table(&predictions));
    }
    let dir = &a.out;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !predictions.is_empty() {
        write_json(&dir.join("prediction.json"), &predictions)?;
    }
    let all: Vec<&Report> = reports.iter().map(|(_, r)| r).collect();
    write_json(&dir.join("compare.json"), &all)?;
    let names: Vec<String> = reports.iter().map(|(n, _)| n.clone()).collect();
    let groups: Vec<(String, Vec<f64>)> = COLUMNS
        .iter()
        .map(|c| {
            (
                c.name.to_string(),
                reports.iter().map(|(_, r)| (c.value)(r)).collect(),
            )
        })
        .collect();
    experiment::plot::write_bar_chart(&dir.join("compare"), "flashix compare", &names, &groups)?;
    eprintln!("reports and chart written to {}", dir.display());
    Ok(())
}

/// A column of the table (and a group of the chart).
struct Column {
    name: &'static str,
    value: fn(&Report) -> f64,
    text: fn(f64) -> String,
}

fn count(v: f64) -> String {
    group(v.max(0.0).round() as u64)
}

fn two(v: f64) -> String {
    format!("{v:.2}")
}

/// The columns of `compare`. Writes come three ways: what the index asked
/// for, what garbage collection copied, and what the chip programmed.
const COLUMNS: [Column; 12] = [
    Column {
        name: "reads (chip)",
        value: |r| r.device_stats.physical_reads as f64,
        text: count,
    },
    Column {
        name: "writes (index)",
        value: |r| r.device_stats.logical_writes as f64,
        text: count,
    },
    Column {
        name: "GC copies",
        value: |r| r.device_stats.gc_copies as f64,
        text: count,
    },
    Column {
        // Map and meta pages of the commit layer (`--device-set
        // atomic=true`, and every file): what durability costs.
        name: "durability writes",
        value: |r| r.device_stats.durability_writes as f64,
        text: count,
    },
    Column {
        name: "writes (chip)",
        value: |r| r.device_stats.physical_writes as f64,
        text: count,
    },
    Column {
        name: "erases",
        value: |r| r.device_stats.erases as f64,
        text: count,
    },
    Column {
        name: "write amp.",
        value: |r| r.device_stats.write_amplification,
        // Three places: a few hundred GC copies among 10^5 writes show.
        text: |v| format!("{v:.3}"),
    },
    Column {
        name: "sim. time (s)",
        value: |r| r.device_stats.time_us / 1e6,
        text: two,
    },
    Column {
        name: "energy (joule)",
        value: |r| r.device_stats.energy_uj / 1e6,
        text: |v| format!("{v:.3}"),
    },
    Column {
        name: "memory (B)",
        value: |r| r.memory_peak_bytes as f64,
        text: count,
    },
    Column {
        name: "live (KiB)",
        value: |r| r.flash_bytes_used as f64 / 1024.0,
        text: count,
    },
    Column {
        name: "wall (s)",
        value: |r| r.wall_seconds,
        text: two,
    },
];

/// One row per index; the best (lowest) value of each column marked `*`.
pub fn compare_table(reports: &[(String, Report)]) -> String {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    let mut header = vec!["index".to_string()];
    header.extend(COLUMNS.iter().map(|c| c.name.to_string()));
    t.set_header(header);
    let best: Vec<f64> = COLUMNS
        .iter()
        .map(|c| {
            reports
                .iter()
                .map(|(_, r)| (c.value)(r))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    for (name, r) in reports {
        let mut row = vec![name.clone()];
        for (c, b) in COLUMNS.iter().zip(&best) {
            let v = (c.value)(r);
            let mark = if reports.len() > 1 && v <= *b {
                " *"
            } else {
                ""
            };
            row.push(format!("{}{mark}", (c.text)(v)));
        }
        t.add_row(row);
    }
    for i in 1..=COLUMNS.len() {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    format!(
        "{t}\n* best (lowest) in its column; counts are the device's over the whole run \
         (preload and final flush included); writes (chip) = writes (index) + durability writes \
         + GC copies"
    )
}

/// The measures the ranking names: table column, what less of it is.
const RANKED: [(&str, &str); 3] = [
    ("writes (chip)", "fewer page writes"),
    ("sim. time (s)", "less simulated time"),
    ("energy (joule)", "less energy"),
];

fn is_btree(label: &str) -> bool {
    label == "btree" || label.starts_with("btree:")
}

/// One line per ranked measure (module doc), from the measured reports.
pub fn ranking(reports: &[(String, Report)], budget: u64) -> String {
    let within: Vec<&(String, Report)> = reports
        .iter()
        .filter(|(_, r)| r.memory_peak_bytes <= budget)
        .collect();
    let over: Vec<String> = reports
        .iter()
        .filter(|(_, r)| r.memory_peak_bytes > budget)
        .map(|(n, r)| format!("{n} ({})", bytes_text(r.memory_peak_bytes)))
        .collect();
    let mut out = format!("Ranking within the memory budget ({}):", bytes_text(budget));
    if !over.is_empty() {
        let _ = write!(
            out,
            " left out for peak memory over it: {}.",
            over.join(", ")
        );
    }
    if within.is_empty() {
        out.push_str("\n  no index stayed within the budget");
        return out;
    }
    for (column, less) in RANKED {
        // Invariant: every RANKED name is a column of COLUMNS.
        let c = COLUMNS
            .iter()
            .find(|c| c.name == column)
            .expect("ranked measures are table columns");
        let best = |btree: Option<bool>| {
            within
                .iter()
                .filter(|x| btree.is_none_or(|b| is_btree(&x.0) == b))
                .min_by(|a, b| (c.value)(&a.1).total_cmp(&(c.value)(&b.1)))
                .map(|x| (x.0.as_str(), (c.value)(&x.1)))
        };
        // Invariant: `within` is not empty.
        let (winner, v) = best(None).expect("within is not empty");
        let _ = write!(out, "\n  {column}: {winner} wins with {}", (c.text)(v));
        let reference = if is_btree(winner) {
            best(Some(false)).map(|(n, w)| (format!("the best other index, {n}"), w, true))
        } else {
            best(Some(true)).map(|(n, w)| (format!("the best B+-tree, {n}"), w, false))
        };
        match reference {
            Some((who, w, _)) if v <= 0.0 || w <= 0.0 => {
                let _ = write!(out, " ({who}: {})", (c.text)(w));
            }
            Some((who, w, true)) => {
                let _ = write!(
                    out,
                    " (a B+-tree); {who}, needs {:.2}x more ({})",
                    w / v,
                    (c.text)(w)
                );
            }
            Some((who, w, false)) => {
                let _ = write!(out, ", {:.2}x {less} than {who} ({})", w / v, (c.text)(w));
            }
            None => out.push_str(" (no other index to compare with within the budget)"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::DeviceReport;

    fn report(writes: u64, time_s: f64, energy_j: f64, memory: u64) -> Report {
        Report {
            device_stats: DeviceReport {
                physical_writes: writes,
                time_us: time_s * 1e6,
                energy_uj: energy_j * 1e6,
                ..DeviceReport::default()
            },
            memory_peak_bytes: memory,
            ..Report::default()
        }
    }

    #[test]
    fn the_ranking_names_the_winner_within_the_budget_and_its_factor_over_the_btree() {
        let reports = vec![
            ("btree:cache=none".to_string(), report(1000, 10.0, 4.0, 64)),
            ("btree:cache=lru".to_string(), report(800, 8.0, 2.0, 900)),
            ("mbtree".to_string(), report(100, 9.0, 3.0, 1000)),
            // The fewest writes of all, but over the budget.
            ("flashdb".to_string(), report(50, 1.0, 1.0, 5000)),
        ];
        let text = ranking(&reports, 1024);
        assert!(
            text.contains("left out for peak memory over it: flashdb"),
            "{text}"
        );
        assert!(
            text.contains("writes (chip): mbtree wins with 100, 8.00x fewer page writes than the best B+-tree, btree:cache=lru (800)"),
            "{text}"
        );
        assert!(
            text.contains("sim. time (s): btree:cache=lru wins with 8.00 (a B+-tree); the best other index, mbtree, needs 1.12x more (9.00)"),
            "{text}"
        );
        assert!(
            text.contains("energy (joule): btree:cache=lru wins"),
            "{text}"
        );
        let none = ranking(&reports, 10);
        assert!(none.contains("no index stayed within the budget"), "{none}");
    }

    #[test]
    fn configurations_parse() {
        let c = compare_configs("btree:cache=lru;node_bytes=512,mbtree").unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(label(&c[0]), "btree:cache=lru;node_bytes=512");
        assert_eq!(label(&c[1]), "mbtree");
        assert!(compare_configs(":x=1").is_err());
        assert!(compare_configs("all").unwrap().len() >= 3);
    }
}
