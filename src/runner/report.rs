//! The JSON report of a run, and its human summary.
//!
//! Every count comes from the device layer: `device_stats` is the device's
//! own counters over the whole run (preload included), `preload` the part
//! spent preloading, and `by_op` the measured phase split by the operation
//! type that caused each piece of device work (deferred work, such as a
//! buffer flush an insert triggers, is charged to that insert); work left
//! buffered at the end is the `flush` row when the run flushes.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::device::{DeviceInfo, DeviceStats, RunWear, Wear};
use crate::index::{EntryFormat, IndexStats};
use crate::node::DATA_BOUND_LINES;

/// Latency percentiles of one operation type, µs of device time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// Device work charged to one operation type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OpCost {
    pub count: u64,
    /// Physical page reads (chip reads, GC included).
    pub page_reads: u64,
    /// Physical page writes (chip programs, GC copies included).
    pub page_writes: u64,
    pub logical_reads: u64,
    pub logical_writes: u64,
    pub erases: u64,
    pub gc_copies: u64,
    /// Pages the commit layer wrote for itself (map pages, commit records):
    /// what durability costs, apart from the index's writes.
    pub durability_writes: u64,
    pub time_us: f64,
    /// The part of `time_us` the device spent reading, and writing (the
    /// rest: erases, syncs).
    pub read_time_us: f64,
    pub write_time_us: f64,
    pub energy_uj: f64,
    pub page_reads_per_op: f64,
    pub page_writes_per_op: f64,
    pub time_us_per_op: f64,
    pub energy_uj_per_op: f64,
    pub latency_us: Latency,
}

/// Device counters as reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeviceReport {
    pub logical_reads: u64,
    pub logical_writes: u64,
    pub logical_trims: u64,
    pub physical_reads: u64,
    pub physical_writes: u64,
    pub erases: u64,
    pub gc_copies: u64,
    /// Pages the commit layer wrote for itself (`src/device/shadow.rs`).
    pub durability_writes: u64,
    /// Pages the commit layer read for itself (the map at open, the rest of
    /// a partly written page).
    pub durability_reads: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub physical_bytes_read: u64,
    pub physical_bytes_written: u64,
    pub write_amplification: f64,
    pub time_us: f64,
    pub read_time_us: f64,
    pub write_time_us: f64,
    pub energy_uj: f64,
    pub wear: Option<Wear>,
}

impl DeviceReport {
    pub fn new(s: &DeviceStats, wear: Option<Wear>) -> Self {
        DeviceReport {
            logical_reads: s.logical_reads,
            logical_writes: s.logical_writes,
            logical_trims: s.logical_trims,
            physical_reads: s.physical_reads,
            physical_writes: s.physical_writes,
            erases: s.erases,
            gc_copies: s.gc_copies,
            durability_writes: s.durability_writes,
            durability_reads: s.durability_reads,
            bytes_read: s.bytes_read,
            bytes_written: s.bytes_written,
            physical_bytes_read: s.physical_bytes_read,
            physical_bytes_written: s.physical_bytes_written,
            write_amplification: s.write_amplification(),
            time_us: s.time_us,
            read_time_us: s.read_time_us,
            write_time_us: s.write_time_us,
            energy_uj: s.energy_uj,
            wear,
        }
    }
}

/// Which index, with which parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IndexDescription {
    pub name: String,
    pub params: BTreeMap<String, String>,
}

/// One run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    pub index: IndexDescription,
    pub device: DeviceInfo,
    pub format: Option<EntryFormat>,
    pub memory_budget_bytes: u64,
    pub workload: String,
    pub seed: u64,
    pub verified: bool,
    /// Measured operations per type.
    pub ops: BTreeMap<String, u64>,
    pub preload_ops: u64,
    /// The whole run, preload included.
    pub device_stats: DeviceReport,
    /// The preload phase alone.
    pub preload: DeviceReport,
    /// What the measured phase (its final flush included) did to the
    /// chip's blocks, where the device has a simulated chip: the rates a
    /// lifetime projection rests on (`device::wear`).
    pub wear: Option<RunWear>,
    /// The measured phase, by operation type; `flush` is the final flush
    /// where the run made one (`RunOptions::final_flush`).
    pub by_op: BTreeMap<String, OpCost>,
    /// Device time and energy of the measured phase.
    pub time_us: f64,
    pub energy_uj: f64,
    pub memory_peak_bytes: u64,
    /// The peak of the counted memory less the data-bound lines
    /// (`node::DATA_BOUND_LINES`), where the budget keeps the tables
    /// outside it and the run tracked it (`RunOptions::exclude_named`):
    /// what the budget holds then.
    pub memory_peak_unnamed_bytes: Option<u64>,
    /// Where the data-bound tables alone passed a budget they are paid
    /// from: their largest size in the run, the smallest budget this data
    /// needs. `None` where they fit (or stand outside the budget).
    pub memory_tables_need_bytes: Option<u64>,
    /// The most the budget-bound structures (caches, buffers, scratch,
    /// ...) held beyond what the budget left them (the budget less the
    /// tables in it, or all of it with the tables outside), over the run:
    /// 0 when the index kept within its budget.
    pub memory_budget_bound_excess_bytes: u64,
    pub memory_final_bytes: u64,
    pub flash_bytes_used: u64,
    pub index_stats: IndexStats,
    /// The index's statistics at the end of the preload: with
    /// `index_stats`, what its counters did in the measured phase.
    pub preload_index_stats: IndexStats,
    /// What the index says a reader must know about this run.
    pub index_notes: Vec<String>,
    pub wall_seconds: f64,
    /// Operations (preload included) per wall-clock second.
    pub ops_per_wall_second: f64,
}

impl Report {
    /// Measured operations in total.
    pub fn measured_ops(&self) -> u64 {
        self.ops.values().sum()
    }

    /// Every operation of the run: the preload's and the measured ones.
    pub fn total_ops(&self) -> u64 {
        self.preload_ops + self.measured_ops()
    }

    /// The peak the budget holds: the whole count, or with the tables
    /// outside the budget the count less the data-bound lines.
    pub fn memory_counted_bytes(&self) -> u64 {
        self.memory_peak_unnamed_bytes
            .unwrap_or(self.memory_peak_bytes)
    }

    /// Whether the peak the budget holds exceeded the budget (`--memory`):
    /// such a run is not a comparison at that budget (`compare`'s ranking
    /// leaves it out). A budget of 0 is no budget.
    pub fn memory_over_budget(&self) -> bool {
        self.memory_budget_bytes > 0 && self.memory_counted_bytes() > self.memory_budget_bytes
    }

    /// The data-bound lines the index reports (index stats at the end of
    /// the run, `node::DATA_BOUND_LINES`): the tables that grow with the
    /// data, inside `memory_peak_bytes`.
    pub fn data_bound_lines(&self) -> Vec<(&'static str, f64)> {
        DATA_BOUND_LINES
            .iter()
            .filter_map(|&k| self.index_stats.get(k).filter(|v| *v > 0.0).map(|v| (k, v)))
            .collect()
    }

    /// What the memory of the run came to beside its budget, in words:
    /// the tables kept outside it, the budget this data needs where the
    /// tables alone passed it, and what went over. Empty within a budget
    /// that holds the tables.
    pub fn memory_remarks(&self) -> Vec<String> {
        let mut out = Vec::new();
        let budget = self.memory_budget_bytes;
        let lines: Vec<String> = self
            .data_bound_lines()
            .iter()
            .map(|(k, v)| format!("{k} {v:.0} B"))
            .collect();
        if let Some(besides) = self.memory_peak_unnamed_bytes {
            out.push(format!(
                "data-bound tables outside the budget: peak {besides} B besides them{}",
                if lines.is_empty() {
                    String::new()
                } else {
                    format!(" ({} at the end)", lines.join(", "))
                }
            ));
        }
        if let Some(need) = self.memory_tables_need_bytes {
            out.push(format!(
                "the data-bound tables alone reached {need} B, more than the {budget} B budget: \
                 this data needs a budget of at least {need} B"
            ));
        }
        if self.memory_over_budget() {
            let counted = self.memory_counted_bytes();
            let mut line = format!(
                "OVER BUDGET: counted peak {counted} B{} exceeds the {budget} B budget by {} B",
                if self.memory_peak_unnamed_bytes.is_some() {
                    " besides the data-bound tables"
                } else {
                    ""
                },
                counted - budget
            );
            if self.memory_budget_bound_excess_bytes > 0 {
                line.push_str(&format!(
                    "; caches, buffers and scratch held up to {} B more than the budget left them",
                    self.memory_budget_bound_excess_bytes
                ));
            }
            if self.memory_peak_unnamed_bytes.is_none() && !lines.is_empty() {
                line.push_str(&format!(
                    " (data-bound lines inside the count: {} at the end)",
                    lines.join(", ")
                ));
            }
            out.push(line);
        }
        out
    }

    /// A human summary: one row per operation type, then totals. With the
    /// `cli` feature only (the table is comfy-table's).
    #[cfg(feature = "cli")]
    pub fn summary_table(&self) -> String {
        use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
        let mut t = Table::new();
        t.load_style(UTF8_FULL_CONDENSED);
        t.set_header(vec![
            "op",
            "count",
            "page reads",
            "page writes",
            "erases",
            "time (ms)",
            "energy (mJ)",
            "p50 µs",
            "p99 µs",
        ]);
        // The final flush last: it comes after every operation.
        let rows = self
            .by_op
            .iter()
            .filter(|(n, _)| n.as_str() != "flush")
            .chain(self.by_op.iter().filter(|(n, _)| n.as_str() == "flush"));
        for (name, c) in rows {
            t.add_row(vec![
                name.clone(),
                c.count.to_string(),
                c.page_reads.to_string(),
                c.page_writes.to_string(),
                c.erases.to_string(),
                format!("{:.1}", c.time_us / 1e3),
                format!("{:.1}", c.energy_uj / 1e3),
                format!("{:.0}", c.latency_us.p50),
                format!("{:.0}", c.latency_us.p99),
            ]);
        }
        let d = &self.device_stats;
        let mut out = format!(
            "{} on {} ({}), workload {}\n{t}\n",
            self.index.name, self.device.name, self.device.kind, self.workload
        );
        out.push_str(&format!(
            "whole run: {} physical reads, {} physical writes, {} erases, {} GC copies, write amplification {:.2}\n",
            d.physical_reads, d.physical_writes, d.erases, d.gc_copies, d.write_amplification
        ));
        if let (Some(w), Some(chip)) = (&self.wear, &d.wear) {
            let busiest = match w.busiest_block {
                Some(b) => format!("block {b}, {} erases", w.busiest_erases),
                None => "none erased".into(),
            };
            out.push_str(&format!(
                "wear: {} erases in the measured operations ({:.4} an operation), per block min/mean/max \
                 {}/{:.3}/{} (busiest: {busiest}); the chip's {} blocks at the end, preconditioning included: \
                 {}/{:.3}/{} (endurance {})\n",
                w.erases,
                w.erases_per_op,
                w.per_block.min,
                w.per_block.mean,
                w.per_block.max,
                chip.blocks,
                chip.min,
                chip.mean,
                chip.max,
                chip.endurance
            ));
        }
        out.push_str(&format!(
            "memory: peak {} B, final {} B (budget {} B); flash used {} B; {:.2} s wall, {:.0} ops/s{}\n",
            self.memory_peak_bytes,
            self.memory_final_bytes,
            self.memory_budget_bytes,
            self.flash_bytes_used,
            self.wall_seconds,
            self.ops_per_wall_second,
            if self.verified { "; every answer verified" } else { "" }
        ));
        for remark in self.memory_remarks() {
            out.push_str(&remark);
            out.push('\n');
        }
        for note in &self.index_notes {
            out.push_str(&format!("note: {note}\n"));
        }
        out
    }
}
