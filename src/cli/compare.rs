//! `flashix compare`: every listed index on one device, one workload and
//! one memory budget, then a table, a ranking and a bar chart.
//!
//! Every index runs to the same durability point: the runner flushes it
//! after the last operation and charges that work as its `flush` row, so an
//! index that keeps work buffered (MB-Tree's batch buffer, BFTL's
//! reservation buffer) pays for it. The default device is sized to the work
//! and preconditioned with cold data to `--occupancy` ([`super::sizing`]),
//! so garbage collection shows in the counts.
//!
//! The default table is the compact one, within 120 columns: the chip's
//! page reads and writes (garbage collection's copies included), writes
//! per operation, erases, write amplification, simulated time, energy and
//! peak memory. `--wide` gives every column: writes as the index asked for
//! them (`writes (index)`), as the commit layer added them for durability
//! (`durability writes`: its map and meta pages, on a file or with
//! `--device-set atomic=true`), as garbage collection added them (`GC
//! copies`), live data and wall time. `compare.json` has everything.
//!
//! With `--predict PROFILE` on a file, every index also runs on the
//! simulated device `PROFILE` and a second table compares the two times
//! ([`super::predict`]).
//!
//! The ranking ([`super::ranking`]) follows the table: by simulated time
//! and by energy, and the Pareto set with the price of each choice.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, Table};

use crate::experiment;
use crate::index::kinds::registry;
use crate::runner::{Report, RunOptions};

use super::args::{CompareArgs, IndexArgs, WorkloadArgs};
use super::format::{bytes_text, count, decimal, group, memory_text, per_op, wrap, writes_per_op};
use super::ranking::{ranking, within_budget};
use super::sizing;
use super::{
    build_traced, describe, device, execute, lifetime, memory, predict, refuse_to_clobber,
    write_json, CliResult,
};

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

/// `w`, or the main job's workload where it names none: the `mbtree`
/// preset with 100,000 inserts (then a search of each).
pub(super) fn main_job_workload(w: &WorkloadArgs) -> WorkloadArgs {
    let mut workload = w.clone();
    if workload.workload.is_none() && workload.trace.is_none() {
        workload.workload = Some("mbtree".into());
        workload.ops.get_or_insert(100_000);
    }
    workload
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
    let occupancy = sizing::parse_occupancy(&a.occupancy)?;
    let fill = sizing::check_fit(a.fill, occupancy)?;
    let workload = main_job_workload(&a.workload);
    let (spec, sized) = sizing::size_to_work(
        &spec, &configs, &workload, mem, fill, occupancy, None, false,
    )?;
    let ops_per_day = lifetime::check_rate(a.ops_per_day)?;
    let model = a
        .predict
        .as_deref()
        .map(|p| predict::model_spec(&spec, p).map(|m| (p, m)))
        .transpose()?;
    refuse_to_clobber(
        &spec,
        a.overwrite,
        "`--overwrite` replaces it (compare creates every index on it in turn)",
    )?;
    let mut predictions = Vec::new();
    let mut reports = Vec::new();
    for (name, cfg) in &configs {
        let trace = a.io_trace.as_ref().map(|p| {
            let mut s = p.clone().into_os_string();
            s.push(format!("-{name}.trace"));
            std::path::PathBuf::from(s)
        });
        let run_spec = match &sized {
            Some(s) => s.spec_for(&spec, name),
            None => spec.clone(),
        };
        let mut index = build_traced(cfg, &run_spec, mem, trace.as_deref())?;
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
            let mut sim = build_traced(cfg, m, mem, None)?;
            let predicted = execute(sim.as_mut(), &workload, options, None)
                .map_err(|e| format!("{name} on {profile}: {e}"))?;
            predictions.push(predict::predict(name, profile, &report, &predicted));
        }
        reports.push((name.clone(), report));
    }
    // The data first, then the chart, then the report on stdout: a chart
    // that cannot be drawn costs no result, and neither does a reader that
    // stops early (`| head`, which ends the process at the next print).
    let dir = &a.out;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !predictions.is_empty() {
        write_json(&dir.join("prediction.json"), &predictions)?;
    }
    let all: Vec<&Report> = reports.iter().map(|(_, r)| r).collect();
    write_json(&dir.join("compare.json"), &all)?;
    let names: Vec<String> = reports.iter().map(|(n, _)| n.clone()).collect();
    let groups: Vec<(String, Vec<f64>)> = CHART
        .iter()
        .map(|c| {
            (
                c.name.to_string(),
                reports.iter().map(|(_, r)| (c.value)(r)).collect(),
            )
        })
        .collect();
    let stem = dir.join("compare");
    // The budget on the memory panel; what passed it grey in every panel.
    let marks = experiment::plot::BarMarks {
        limit: Some((
            CHART_MEMORY.to_string(),
            mem as f64 / 1024.0,
            format!("budget {}", bytes_text(mem as u64)),
        )),
        greyed: reports
            .iter()
            .map(|(_, r)| !within_budget(r, mem as u64))
            .collect(),
    };
    let drawn = match experiment::plot::write_bar_chart(
        &stem,
        "flashix compare",
        &names,
        &groups,
        &marks,
    ) {
        Ok(_) => true,
        Err(e) => {
            // ChartError names the file it could not write.
            eprintln!("warning: could not draw {e}");
            false
        }
    };
    if let Some((_, first)) = reports.first() {
        println!(
            "{}",
            sizing::device_line(&spec, first.device.capacity_pages, sized.as_ref())
        );
        println!(
            "{}",
            wrap(&format!(
                "memory budget {} ({} B) per index; workload {}; every index flushed at the end",
                bytes_text(mem as u64),
                group(mem as u64),
                first.workload
            ))
        );
    }
    if a.wide {
        println!("{}", wide_table(&reports, mem as u64));
    } else {
        println!("{}", compact_table(&reports, mem as u64));
    }
    println!("{}", ranking(&reports, mem as u64));
    if let Some(rate) = ops_per_day {
        println!("{}", lifetime::projections(&reports, &spec, rate));
    }
    if !predictions.is_empty() {
        println!("{}", predict::table(&predictions));
    }
    if drawn {
        eprintln!("reports and chart written to {}", dir.display());
    } else {
        eprintln!("reports written to {}", dir.display());
    }
    Ok(())
}

/// A column of a table (and a group of the chart).
struct Column {
    name: &'static str,
    value: fn(&Report) -> f64,
    text: fn(f64) -> String,
}

fn two(v: f64) -> String {
    format!("{v:.2}")
}

/// The compact table: what a choice between indexes turns on.
const COMPACT: [Column; 8] = [
    Column {
        name: "page reads",
        value: |r| r.device_stats.physical_reads as f64,
        text: count,
    },
    Column {
        name: "page writes",
        value: |r| r.device_stats.physical_writes as f64,
        text: count,
    },
    Column {
        name: "writes/op",
        value: writes_per_op,
        text: per_op,
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
        name: "sim. time",
        value: |r| r.device_stats.time_us / 1e6,
        text: |v| format!("{} s", decimal(v)),
    },
    Column {
        name: "energy",
        value: |r| r.device_stats.energy_uj / 1e6,
        text: |v| format!("{} J", decimal(v)),
    },
    Column {
        name: "memory",
        value: |r| r.memory_peak_bytes as f64,
        text: memory_text,
    },
];

/// The columns of `--wide`. Writes come three ways: what the index asked
/// for, what garbage collection copied, and what the chip programmed.
const WIDE: [Column; 12] = [
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

/// The groups of the chart: properties of an index on the device. Not
/// wall time, which is this machine's simulation speed.
const CHART: [Column; 8] = [
    Column {
        name: "page reads (chip)",
        value: |r| r.device_stats.physical_reads as f64,
        text: count,
    },
    Column {
        name: "page writes (chip)",
        value: |r| r.device_stats.physical_writes as f64,
        text: count,
    },
    Column {
        name: "GC copies",
        value: |r| r.device_stats.gc_copies as f64,
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
        text: two,
    },
    Column {
        name: "sim. time (s)",
        value: |r| r.device_stats.time_us / 1e6,
        text: two,
    },
    Column {
        name: "energy (J)",
        value: |r| r.device_stats.energy_uj / 1e6,
        text: two,
    },
    Column {
        name: CHART_MEMORY,
        value: |r| r.memory_peak_bytes as f64 / 1024.0,
        text: two,
    },
];

/// The chart's memory group, on whose panel the budget is drawn.
const CHART_MEMORY: &str = "memory (KiB)";

/// The cells of a table: a header row, then one row per index over
/// `columns`. The best (lowest) value of each column among the indexes
/// within `budget` is marked `*`; an index over it is marked `!` in its
/// memory column and never `*`: it does not compete at this budget.
fn cells(reports: &[(String, Report)], columns: &[Column], budget: u64) -> Vec<Vec<String>> {
    let mut header = vec!["index".to_string()];
    header.extend(columns.iter().map(|c| c.name.to_string()));
    let within: Vec<bool> = reports
        .iter()
        .map(|(_, r)| within_budget(r, budget))
        .collect();
    let best: Vec<f64> = columns
        .iter()
        .map(|c| {
            reports
                .iter()
                .zip(&within)
                .filter(|(_, w)| **w)
                .map(|((_, r), _)| (c.value)(r))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let mut rows = vec![header];
    for ((name, r), &inside) in reports.iter().zip(&within) {
        let mut row = vec![name.clone()];
        for (c, b) in columns.iter().zip(&best) {
            let v = (c.value)(r);
            let mark = if !inside && c.name.starts_with("memory") {
                " !"
            } else if inside && reports.len() > 1 && v <= *b {
                " *"
            } else {
                ""
            };
            row.push(format!("{}{mark}", (c.text)(v)));
        }
        rows.push(row);
    }
    rows
}

/// The legend of the marks, for the line under a table.
fn marks_legend(reports: &[(String, Report)], budget: u64) -> String {
    if reports.iter().all(|(_, r)| within_budget(r, budget)) {
        "* best (lowest) in its column".into()
    } else {
        format!(
            "* best (lowest) in its column among the indexes within the memory budget ({}); \
             ! over it: not marked, not ranked",
            bytes_text(budget)
        )
    }
}

/// `rows` (the first the header) as a bordered table.
fn boxed(rows: Vec<Vec<String>>) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    let mut rows = rows.into_iter();
    let columns = match rows.next() {
        Some(header) => {
            let n = header.len();
            t.set_header(header);
            n
        }
        None => 0,
    };
    for row in rows {
        t.add_row(row);
    }
    for i in 1..columns {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// `rows` (the first the header) as columns two spaces apart, the header
/// underlined, the first column left-aligned and the others right-aligned:
/// twelve characters narrower than [`boxed`] over nine columns.
pub(super) fn plain(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |row: &[String]| {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
                if i == 0 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        cells.join("  ").trim_end().to_string()
    };
    let mut out = Vec::with_capacity(rows.len() + 1);
    if let Some(header) = rows.first() {
        out.push(line(header));
        let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        out.push(rule.join("  "));
    }
    out.extend(rows.iter().skip(1).map(|r| line(r)));
    out.join("\n")
}

/// The default table (module doc), with its legend, within
/// [`format::WIDTH`] columns.
pub fn compact_table(reports: &[(String, Report)], budget: u64) -> String {
    let ops = reports.first().map(|(_, r)| {
        let mut kinds: Vec<String> = r
            .ops
            .iter()
            .map(|(k, n)| format!("{} {k}", group(*n)))
            .collect();
        if r.preload_ops > 0 {
            kinds.insert(0, format!("{} preload", group(r.preload_ops)));
        }
        kinds.join(" + ")
    });
    format!(
        "{}\n{}",
        plain(&cells(reports, &COMPACT, budget)),
        wrap(&format!(
            "{}. Page reads and writes are the chip's over the whole run, \
             garbage collection's copies{} and the final flush included; writes/op = page writes per \
             operation (here {}); write amp. = page writes per page the index wrote. \
             --wide shows every column.",
            marks_legend(reports, budget),
            if reports.iter().any(|(_, r)| r.device_stats.durability_writes > 0) {
                ", the commit layer's durability writes"
            } else {
                ""
            },
            ops.unwrap_or_default()
        ))
    )
}

/// Every column (`--wide`), as the table was before the compact one.
pub fn wide_table(reports: &[(String, Report)], budget: u64) -> String {
    format!(
        "{}\n{}; counts are the device's over the whole run \
         (preload and final flush included); writes (chip) = writes (index) + durability writes \
         + GC copies",
        boxed(cells(reports, &WIDE, budget)),
        marks_legend(reports, budget)
    )
}

#[cfg(test)]
mod tests {
    use super::super::ranking::tests::{named, report};
    use super::*;

    #[test]
    fn the_compact_table_fits_120_columns_at_ten_million_operations() {
        let mut big = report(98_765_432, 269_700.0, 76_700.0, 65_088);
        big.device_stats.physical_reads = 772_469_500;
        big.device_stats.erases = 3_086_419;
        big.device_stats.write_amplification = 1.234;
        let mut fast = report(1_000_000, 8_997.0, 2_512.0, 64);
        fast.device_stats.physical_reads = 18_138_200;
        let reports = named(&[("btree:cache=none", big), ("lsm", fast)]);
        let text = compact_table(&reports, 1 << 20);
        for line in text.lines() {
            assert!(
                line.chars().count() <= super::super::format::WIDTH,
                "{}: {line}",
                line.chars().count()
            );
        }
        for cell in [
            "772,469,500",
            "18,138,200 *",
            "269,700 s",
            "8,997 s *",
            "76,700 J",
            "63.6 KiB",
            "64 B *",
            "395,062",
        ] {
            assert!(text.contains(cell), "{cell}: {text}");
        }
    }

    /// One screen names one winner: a configuration over the budget is
    /// never marked best, however fast, and its memory says it is over.
    #[test]
    fn only_configurations_within_the_budget_are_marked_best() {
        let reports = named(&[
            ("latree", report(10, 1.0, 1.0, 255_828)),
            ("lsm", report(500, 2.0, 3.0, 60_000)),
            ("btree", report(900, 5.0, 2.0, 64)),
        ]);
        let text = compact_table(&reports, 65_536);
        let row = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("no row {name}: {text}"))
                .to_string()
        };
        assert!(!row("latree").contains('*'), "{text}");
        assert!(row("latree").contains("249.8 KiB !"), "{text}");
        assert!(row("lsm").contains("500 *"), "fewest writes within: {text}");
        assert!(row("btree").contains("64 B *"), "{text}");
        assert!(text.contains("! over it: not marked, not ranked"), "{text}");
        // Within a budget that holds them all, the marks are the plain ones.
        let all = compact_table(&reports, 1 << 20);
        assert!(
            all.lines()
                .any(|l| l.starts_with("latree") && l.contains("10 *")),
            "{all}"
        );
        assert!(!all.contains('!'), "{all}");
    }

    #[test]
    fn numbers_keep_four_digits_and_group_thousands() {
        assert_eq!(decimal(0.012_34), "0.0123");
        assert_eq!(decimal(1.5), "1.500");
        assert_eq!(decimal(90.054), "90.05");
        assert_eq!(decimal(361.97), "362.0");
        assert_eq!(decimal(2696.7), "2,697");
        assert_eq!(memory_text(65_088.0), "63.6 KiB");
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
