//! The list of experiments, and how their runs execute. The definitions
//! live one file per paper (`mbtree.rs`, `bftl.rs`, `lat.rs`, `fdtree.rs`,
//! `ssd.rs`), and the
//! FTL's own check in `ftl.rs`, and what durability costs in
//! `durability.rs`.

use crate::device::DeviceSpec;
use crate::index::Params as IndexParams;
use crate::runner::{self, IndexDescription, OpCost, Report, RunOptions};
use crate::store::create_index;
use crate::workload::preset;

use super::bftl::{bftl_fig10, bftl_fig11, bftl_fig12, bftl_table2};
use super::durability::durability_cost;
use super::ftl::{ftl_overwrite_run, ftl_wa};
pub use super::ftl::{model_valid_fraction, model_write_amplification};
use super::lat::{lat_fig12b, lat_fig6, lat_fig6_fanout};
use super::mbtree::{
    mbtree_fig15, mbtree_fig16_17, mbtree_fig18, mbtree_fig6, mbtree_fig7_14, mbtree_variants,
};
use super::run_params::{
    get, number, prefixed, ScratchFile, MATCH_FLASHDB, MBTREE_FLASHDB, SCRATCH,
};
use super::{Experiment, Metrics, Params, RunKind, SweepRun};

/// Every experiment.
pub fn experiments() -> Vec<Experiment> {
    vec![
        mbtree_fig6(),
        lat_fig12b(),
        bftl_fig10(),
        bftl_fig11(),
        bftl_fig12(),
        bftl_table2(),
        lat_fig6(),
        lat_fig6_fanout(),
        super::lat_buffered::lat_fig7(),
        super::lat_buffered::lat_fig8(),
        super::lat_buffered::lat_fig9(),
        super::lat_buffered::lat_fig9c(),
        super::lat_memory::lat_fig10a(),
        super::lat_memory::lat_fig10b(),
        super::lat_memory::lat_fig11(),
        super::lat_memory::lat_fig12a(),
        mbtree_fig7_14(),
        mbtree_fig15(),
        mbtree_fig16_17(),
        mbtree_fig18(),
        mbtree_variants(),
        ftl_wa(),
        super::ssd::ssd_table1(),
        super::fdtree::fdtree_fig3a(),
        super::fdtree::fdtree_fig3b(),
        super::fdtree::fdtree_fig3c(),
        super::asbtree::asbtree_fig9(),
        super::asbtree::asbtree_fig10(),
        super::asbtree::asbtree_fig10_8k(),
        super::asbtree::asbtree_fig11(),
        super::asbtree::asbtree_fig12(),
        super::asbtree::asbtree_table2(),
        super::asbtree::asbtree_table3(),
        super::asbtree_cache::asbtree_fig13_14(),
        super::asbtree_table4::asbtree_table4(),
        super::asbtree::asbtree_disk(),
        durability_cost(),
    ]
}

/// Experiments `reproduce ID` runs but `reproduce all` does not: sweeps
/// beyond what the papers' figures need, too large for one machine's
/// routine run (fdtree-fig3c to 1.5·10^8, 3·10^8 and 10^9 entries).
pub fn opt_in_experiments() -> Vec<Experiment> {
    use super::fdtree::{fdtree_fig3c_scale, SCALE_1E9, SCALE_3E8, SCALE_LOCAL};
    vec![
        fdtree_fig3c_scale(SCALE_LOCAL),
        fdtree_fig3c_scale(SCALE_3E8),
        fdtree_fig3c_scale(SCALE_1E9),
    ]
}

/// Every experiment's id in the order of the summary (RESULTS.md): the
/// opt-in ones right after the experiment they extend.
pub fn summary_order() -> Vec<&'static str> {
    let mut order: Vec<&'static str> = experiments().iter().map(|e| e.id).collect();
    let opt_in: Vec<&'static str> = opt_in_experiments().iter().map(|e| e.id).collect();
    let at = order
        .iter()
        .position(|id| *id == "fdtree-fig3c")
        .map_or(order.len(), |i| i + 1);
    order.splice(at..at, opt_in);
    order
}

/// Executes one run of `exp`.
pub fn execute(exp: &Experiment, run: &SweepRun) -> Result<(Metrics, serde_json::Value), String> {
    match exp.kind {
        RunKind::Index => index_run(&run.params, run.seed),
        RunKind::FtlOverwrite => ftl_overwrite_run(&run.params, run.seed),
        RunKind::DeviceBench => super::ssd::device_bench_run(&run.params, run.seed),
    }
}

/// The device of a run: `text` with the run's `device.` parameters. A
/// scratch file (deleted after the run, never opened again) may go without
/// the commit layer (`device.atomic=false`), and then bypasses the page
/// cache, so that an experiment measures the index's own requests on the
/// disk (asbtree-disk); a file a user names may not (`DeviceSpec::parse`
/// refuses it: one on-disk format).
fn device_spec(text: &str, params: &Params, scratch: bool) -> Result<DeviceSpec, String> {
    let mut sets = prefixed(params, "device.");
    let bare = scratch && sets.iter().any(|(k, v)| k == "atomic" && v == "false");
    if bare {
        sets.retain(|(k, _)| k != "atomic");
    }
    let mut device = DeviceSpec::parse(text, &sets).map_err(|e| e.to_string())?;
    if bare {
        // The disk's own requests: past the page cache too (O_DIRECT).
        device.atomic = false;
        device.direct = true;
        device.log_bytes = 0;
    }
    Ok(device)
}

fn index_run(params: &Params, seed: u64) -> Result<(Metrics, serde_json::Value), String> {
    let device_text = get(params, "device")?;
    let scratch = device_text.contains(SCRATCH).then(ScratchFile::new);
    let device_text = match &scratch {
        Some(f) => device_text.replace(&format!("file:{SCRATCH}"), &f.device()),
        None => device_text.to_string(),
    };
    let device = device_spec(&device_text, params, scratch.is_some())?;
    let sets = prefixed(params, "set.");
    let mut index_params = IndexParams::new();
    for (k, v) in &sets {
        index_params.set(k, v);
    }
    let name = get(params, "index")?;
    let workload = super::genome::local_workload(get(params, "workload")?)?;
    let (memory, matched) = if params.get("memory").map(String::as_str) == Some(MATCH_FLASHDB) {
        // Roh et al. 2009 §6: B-Tree(LRU) and MB-Tree get the memory FlashDB
        // occupied on the same workload.
        let m = flashdb_memory(params, seed)?;
        (m, Some(m))
    } else {
        (number(params, "memory")?, None)
    };
    let storage = device.build().map_err(|e| e.to_string())?;
    let mut index = create_index(name, storage, memory, index_params).map_err(|e| e.to_string())?;
    let mut ops = params
        .get("ops")
        .map(|v| v.parse::<u64>())
        .transpose()
        .map_err(|_| "ops is not a number")?;
    if params.contains_key("inserts") {
        // "The workload size was adjusted for each q such that a total of
        // 200 thousand insertions took place" (Agrawal et al. 2009 §6).
        let inserts: f64 = number(params, "inserts")?;
        let search: f64 = number(params, "workload.search")?;
        let insert: f64 = params.get("workload.insert").map_or(Ok(1.0), |v| {
            v.parse().map_err(|_| "workload.insert is not a number")
        })?;
        ops = Some((inserts * (insert + search) / insert).round() as u64);
    }
    let preload = params
        .get("preload")
        .map(|v| v.parse::<u64>())
        .transpose()
        .map_err(|_| "preload is not a number")?;
    let spec = preset::build(
        &workload,
        &prefixed(params, "workload."),
        preload,
        ops,
        seed,
    )
    .map_err(|e| e.to_string())?;
    let flush_every = params
        .get("flush_every")
        .map(|v| v.parse::<u64>())
        .transpose()
        .map_err(|_| "flush_every is not a number")?;
    let options = RunOptions {
        quiet: true,
        index: IndexDescription {
            name: name.to_string(),
            params: sets.into_iter().collect(),
        },
        memory_budget: memory as u64,
        flush_every,
        // Every run ends durable, its final flush charged as the `flush`
        // row: the durable accounting. The paper's accounting leaves that
        // row out (`report_metrics`' `paper.` metrics).
        final_flush: params.get("final_flush").map(String::as_str) != Some("false"),
        preload_flush: params.get("preload_flush").map(String::as_str) == Some("true"),
        bulk_load: params.get("bulk_load").map(String::as_str) == Some("true"),
        // A paper that keeps its tables outside the budget (`tables=outside`,
        // the LA paper's §6): the budget holds the rest.
        exclude_named: params.get("set.tables").map(String::as_str) == Some("outside"),
        ..RunOptions::default()
    };
    let report =
        runner::run_workload(index.as_mut(), &spec, options, None).map_err(|e| e.to_string())?;
    let json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
    let mut metrics = report_metrics(&report);
    if let Some(m) = matched {
        metrics.insert("matched_memory_bytes".into(), m as f64);
    }
    Ok((metrics, json))
}

/// Runs FlashDB on the same device and workload as `params` and returns
/// the peak memory it occupied.
fn flashdb_memory(params: &Params, seed: u64) -> Result<usize, String> {
    let mut p: Params = params
        .iter()
        .filter(|(k, _)| !k.starts_with("set."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in MBTREE_FLASHDB {
        p.insert(k.to_string(), v.to_string());
    }
    let (m, _) = index_run(&p, seed)?;
    m.get("memory_peak_bytes")
        .map(|&b| b as usize)
        .ok_or_else(|| "the FlashDB run reported no memory".to_string())
}

/// The flat metrics of a run report.
pub fn report_metrics(r: &Report) -> Metrics {
    let mut m = Metrics::new();
    let (mut reads, mut writes, mut energy, mut time, mut count) = (0u64, 0u64, 0.0, 0.0, 0u64);
    for (op, c) in &r.by_op {
        m.insert(format!("{op}.count"), c.count as f64);
        m.insert(format!("{op}.page_reads"), c.page_reads as f64);
        m.insert(format!("{op}.page_writes"), c.page_writes as f64);
        m.insert(format!("{op}.erases"), c.erases as f64);
        m.insert(format!("{op}.time_us"), c.time_us);
        m.insert(format!("{op}.read_time_s"), c.read_time_us / 1e6);
        m.insert(format!("{op}.write_time_s"), c.write_time_us / 1e6);
        m.insert(format!("{op}.energy_uj"), c.energy_uj);
        m.insert(format!("{op}.time_us_per_op"), c.time_us_per_op);
        m.insert(format!("{op}.energy_uj_per_op"), c.energy_uj_per_op);
        reads += c.page_reads;
        writes += c.page_writes;
        energy += c.energy_uj;
        time += c.time_us;
        count += c.count;
    }
    let n = count.max(1) as f64;
    m.insert(
        "read_time_s".into(),
        r.by_op.values().map(|c| c.read_time_us).sum::<f64>() / 1e6,
    );
    m.insert(
        "write_time_s".into(),
        r.by_op.values().map(|c| c.write_time_us).sum::<f64>() / 1e6,
    );
    m.insert("time_s".into(), time / 1e6);
    m.insert("page_reads".into(), reads as f64);
    m.insert("page_writes".into(), writes as f64);
    m.insert("energy_uj_per_op".into(), energy / n);
    m.insert("time_us_per_op".into(), time / n);
    m.insert("erases".into(), r.device_stats.erases as f64);
    // Erases charged to the measured operations (not the preload).
    let op_erases: u64 = r.by_op.values().map(|c| c.erases).sum();
    m.insert("ops_erases".into(), op_erases as f64);
    m.insert(
        "write_amplification".into(),
        r.device_stats.write_amplification,
    );
    m.insert("memory_peak_bytes".into(), r.memory_peak_bytes as f64);
    m.insert("memory_budget_bytes".into(), r.memory_budget_bytes as f64);
    m.insert(
        "memory_budget_bound_excess_bytes".into(),
        r.memory_budget_bound_excess_bytes as f64,
    );
    if let Some(b) = r.memory_peak_unnamed_bytes {
        m.insert("memory_peak_besides_tables_bytes".into(), b as f64);
    }
    if let Some(n) = r.memory_tables_need_bytes {
        m.insert("memory_tables_need_bytes".into(), n as f64);
    }
    let d = &r.device_stats;
    m.insert("durability_writes".into(), d.durability_writes as f64);
    m.insert(
        "durability_share".into(),
        d.durability_writes as f64 / d.physical_writes.max(1) as f64,
    );
    m.insert("energy_j".into(), r.device_stats.energy_uj / 1e6);
    m.insert("measured_energy_j".into(), r.energy_uj / 1e6);
    m.insert("flash_bytes_used".into(), r.flash_bytes_used as f64);
    m.insert(
        "flash_mib".into(),
        r.flash_bytes_used as f64 / (1 << 20) as f64,
    );
    for (k, v) in &r.index_stats.0 {
        m.insert(format!("index.{k}"), *v);
    }
    // The counters' growth over the measured operations (a paper's ratio
    // over its measured phase, such as Kim et al. 2014 §4.1's write buffer
    // hit ratios), where a counter moved.
    for (k, v) in &r.index_stats.0 {
        if let Some(before) = r.preload_index_stats.get(k).filter(|b| b != v) {
            m.insert(format!("index_ops.{k}"), v - before);
        }
    }
    insert_accountings(&mut m, r);
    m
}

/// The operation types whose work a buffer defers to a flush.
const WRITE_OPS: [&str; 3] = ["insert", "update", "delete"];

/// The two accountings of a run with a `flush` row (what its flushes
/// cost: the final one, and any inside the run):
///
/// * the paper's, `paper.X` for each total X: the measured phase without
///   the `flush` row, which is what the papers measured (costs over the
///   workload with no durable state at its end);
/// * the durable one, `durable.OP.X` for each write operation type: OP's
///   own cost plus the flushes' cost split over the write operations in
///   proportion to their counts (a flush empties what they buffered; a
///   search leaves nothing to flush). The totals X are already durable.
///
/// A run with no `flush` row has one accounting and gets neither.
fn insert_accountings(m: &mut Metrics, r: &Report) {
    let Some(flush) = r.by_op.get("flush") else {
        return;
    };
    let kept = || r.by_op.iter().filter(|(op, _)| op.as_str() != "flush");
    let count: u64 = kept().map(|(_, c)| c.count).sum();
    let n = count.max(1) as f64;
    let sum = |f: &dyn Fn(&OpCost) -> f64| kept().map(|(_, c)| f(c)).sum::<f64>();
    m.insert("paper.page_reads".into(), sum(&|c| c.page_reads as f64));
    m.insert("paper.page_writes".into(), sum(&|c| c.page_writes as f64));
    m.insert("paper.time_s".into(), sum(&|c| c.time_us) / 1e6);
    m.insert("paper.read_time_s".into(), sum(&|c| c.read_time_us) / 1e6);
    m.insert("paper.write_time_s".into(), sum(&|c| c.write_time_us) / 1e6);
    m.insert("paper.time_us_per_op".into(), sum(&|c| c.time_us) / n);
    m.insert("paper.energy_uj_per_op".into(), sum(&|c| c.energy_uj) / n);
    m.insert("paper.ops_erases".into(), sum(&|c| c.erases as f64));
    m.insert(
        "paper.erases".into(),
        r.device_stats.erases.saturating_sub(flush.erases) as f64,
    );
    m.insert(
        "paper.energy_j".into(),
        (r.device_stats.energy_uj - flush.energy_uj) / 1e6,
    );
    m.insert(
        "paper.measured_energy_j".into(),
        (r.energy_uj - flush.energy_uj) / 1e6,
    );
    let writes: u64 = WRITE_OPS
        .iter()
        .filter_map(|op| r.by_op.get(*op))
        .map(|c| c.count)
        .sum();
    if writes == 0 {
        return;
    }
    for op in WRITE_OPS {
        let Some(c) = r.by_op.get(op) else { continue };
        let share = c.count as f64 / writes as f64;
        let both = |own: f64, flushed: f64| own + share * flushed;
        let per_op = c.count.max(1) as f64;
        let time_us = both(c.time_us, flush.time_us);
        let energy_uj = both(c.energy_uj, flush.energy_uj);
        for (k, v) in [
            (
                "page_reads",
                both(c.page_reads as f64, flush.page_reads as f64),
            ),
            (
                "page_writes",
                both(c.page_writes as f64, flush.page_writes as f64),
            ),
            ("erases", both(c.erases as f64, flush.erases as f64)),
            ("time_us", time_us),
            ("energy_uj", energy_uj),
            (
                "read_time_s",
                both(c.read_time_us, flush.read_time_us) / 1e6,
            ),
            (
                "write_time_s",
                both(c.write_time_us, flush.write_time_us) / 1e6,
            ),
            ("time_us_per_op", time_us / per_op),
            ("energy_uj_per_op", energy_uj / per_op),
        ] {
            m.insert(format!("durable.{op}.{k}"), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_definition_is_well_formed() {
        let mut ids = std::collections::BTreeSet::new();
        for e in experiments() {
            assert!(ids.insert(e.id), "duplicate id {}", e.id);
            for quick in [false, true] {
                let runs = e.runs(quick);
                let per_series = |name: &str| match e.axis_for.iter().find(|a| a.0 == name) {
                    Some((_, full, small)) => {
                        if quick {
                            small.len()
                        } else {
                            full.len()
                        }
                    }
                    None if quick => e.axis.quick.len(),
                    None => e.axis.full.len(),
                };
                assert_eq!(
                    runs.len(),
                    e.series.iter().map(|s| per_series(s.name)).sum::<usize>()
                );
                for r in &runs {
                    // Every swept configuration builds its device (and,
                    // for index runs, its index and workload).
                    // A run's own file stands in the temporary folder (ssd-table1's
                    // runner places its file there too).
                    let scratch = ScratchFile::new();
                    let text = match r.params["device"].as_str() {
                        super::super::ssd::TEMP_FILE => scratch.device(),
                        d => d.replace(&format!("file:{SCRATCH}"), &scratch.device()),
                    };
                    let device = device_spec(&text, &r.params, true)
                        .unwrap_or_else(|err| panic!("{}: {err}", e.id));
                    let storage = device.build().unwrap();
                    if e.kind == RunKind::Index {
                        let mut p = IndexParams::new();
                        for (k, v) in prefixed(&r.params, "set.") {
                            p.set(&k, &v);
                        }
                        let memory: usize = match r.params["memory"].as_str() {
                            MATCH_FLASHDB => 65536,
                            m => m.parse().unwrap(),
                        };
                        create_index(&r.params["index"], storage, memory, p)
                            .unwrap_or_else(|err| panic!("{} {:?}: {err}", e.id, r.params));
                        if let Ok(workload) =
                            super::super::genome::local_workload(&r.params["workload"])
                        {
                            preset::build(
                                &workload,
                                &prefixed(&r.params, "workload."),
                                Some(0),
                                Some(1000),
                                1,
                            )
                            .unwrap();
                        }
                    }
                }
            }
            for p in &e.published {
                for series in p.measured.series() {
                    assert!(
                        e.series.iter().any(|s| s.name == series),
                        "{}: {}",
                        e.id,
                        p.name
                    )
                }
            }
        }
    }

    /// The paper's accounting leaves out exactly the flush row, and the
    /// durable one charges it to the write operations by their counts.
    #[test]
    fn the_two_accountings_differ_by_the_flush_row() {
        let params: Params = [
            ("index", "latree"),
            ("device", "slc-small"),
            ("memory", "65536"),
            ("workload", "lat"),
            ("preload", "2000"),
            ("ops", "4000"),
            ("workload.search", "0.25"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (m, _) = index_run(&params, 7).unwrap();
        let flushed = m["flush.page_writes"];
        // The Buffered-B+ tree leaves entries in its buffers: the flush writes.
        assert!(flushed > 0.0, "{m:?}");
        assert_eq!(m["paper.page_writes"] + flushed, m["page_writes"]);
        assert_eq!(
            m["paper.page_reads"] + m["flush.page_reads"],
            m["page_reads"]
        );
        // Only inserts write: they carry the whole flush; searches none.
        assert_eq!(
            m["durable.insert.page_writes"],
            m["insert.page_writes"] + flushed
        );
        assert!(!m.contains_key("durable.search.page_writes"));
        // Without the flush there is one accounting.
        let mut unflushed = params.clone();
        unflushed.insert("final_flush".into(), "false".into());
        let (m, _) = index_run(&unflushed, 7).unwrap();
        assert!(!m.contains_key("flush.page_writes") && !m.contains_key("paper.page_writes"));
    }
}
