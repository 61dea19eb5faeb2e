//! `flashix bench`: how fast the simulation runs, beside a yardstick.
//!
//! flashix's B+-tree over the simulated FTL and Rust's in-memory
//! `BTreeMap` run the same inserts and searches (one generator, same seed,
//! same order) in this process, and the report gives both rates and their
//! ratio. The ratio is what charging every page access to a simulated
//! device costs on this machine; there is no speed target to pass or fail,
//! since a rate depends on the machine. The peak memory stays checked
//! against its limit: that is a property of the simulation (its sparse
//! chip), not of the machine.
//!
//! `--rounds N` runs both passes N times, alternately, each flashix pass
//! on a new index: the same operations and, the simulation being
//! deterministic, the same device counts (checked: a round that counts
//! otherwise is an error). The report adds each round's times, the median
//! of the rounds' ratios and the ratio of each side's fastest pass. On a
//! shared machine one binary's pass took from 0.94 s to 1.93 s within half
//! an hour (docs/PERFORMANCE.md, "Seventh pass"), so one round's ratio says
//! more about the machine's minute than about the simulator.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use serde::Serialize;

use super::args::{BenchArgs, IndexArgs, WorkloadArgs};
use super::format::group;
use super::{build_index, describe, execute, memory, workload_spec, write_json, CliResult};
use crate::device::DeviceSpec;
use crate::index::EntryFormat;
use crate::runner::{Report, RunOptions};
use crate::workload::Op;

/// Most rounds `--rounds` takes (each is a whole run of both passes).
const MAX_ROUNDS: u32 = 100;

/// Both passes of the first round, the memory reading between them, and
/// every round's times.
struct Bench {
    ops: u64,
    memory: usize,
    seed: u64,
    flashix: Report,
    map: MapRun,
    /// Peak resident set after the first flashix pass, before any map's.
    peak_rss: Option<u64>,
    /// Every round's wall times, the first included.
    rounds: Vec<Round>,
}

/// One round's wall times.
#[derive(Clone, Copy, Debug, Serialize)]
struct Round {
    flashix_wall_seconds: f64,
    btreemap_wall_seconds: f64,
    ratio_flashix_to_btreemap: f64,
}

/// The `BTreeMap` pass.
#[derive(Debug, Serialize)]
struct MapRun {
    ops: u64,
    wall_seconds: f64,
    ops_per_wall_second: f64,
}

/// The JSON report: the flashix run's report (its fields at the top level,
/// as before the yardstick) with the map's run and the memory check.
#[derive(Serialize)]
struct BenchJson<'a> {
    #[serde(flatten)]
    flashix: &'a Report,
    btreemap: &'a MapRun,
    /// The first round's.
    ratio_flashix_to_btreemap: f64,
    peak_rss_bytes: Option<u64>,
    rss_limit_bytes: u64,
    rounds: &'a [Round],
    ratio_median: f64,
    ratio_of_fastest: f64,
}

impl<'a> BenchJson<'a> {
    fn of(b: &'a Bench) -> Self {
        BenchJson {
            flashix: &b.flashix,
            btreemap: &b.map,
            ratio_flashix_to_btreemap: b.ratio(),
            peak_rss_bytes: b.peak_rss,
            rss_limit_bytes: b.rss_limit(),
            rounds: &b.rounds,
            ratio_median: b.median_ratio(),
            ratio_of_fastest: b.ratio_of_fastest(),
        }
    }
}

pub(super) fn bench(a: BenchArgs) -> CliResult<()> {
    let b = measure_rounds(a.ops, memory(&a.memory)?, a.seed, a.quiet, a.rounds)?;
    print!("{}", render(&b));
    if let Some(path) = &a.json {
        write_json(path, &BenchJson::of(&b))?;
    }
    Ok(())
}

/// `rounds` rounds of both passes; the first round's reports, every
/// round's times.
fn measure_rounds(ops: u64, mem: usize, seed: u64, quiet: bool, rounds: u32) -> CliResult<Bench> {
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        return Err(format!("bench: --rounds {rounds} is out of range: 1 to {MAX_ROUNDS}").into());
    }
    let mut b = measure(ops, mem, seed, quiet)?;
    for round in 2..=rounds {
        let next = measure(ops, mem, seed, true)?;
        let (first, d) = (&b.flashix.device_stats, &next.flashix.device_stats);
        let counts =
            |d: &crate::runner::DeviceReport| (d.physical_reads, d.physical_writes, d.erases);
        if counts(first) != counts(d) || b.flashix.total_ops() != next.flashix.total_ops() {
            return Err(format!(
                "bench: round {round} counted {:?} page reads, writes and erases, round 1 {:?}: \
                 the simulation must repeat itself exactly",
                counts(d),
                counts(first)
            )
            .into());
        }
        b.rounds.extend(next.rounds);
    }
    Ok(b)
}

/// The workload both sides run: `ops` uniform 32-bit keys, then a search
/// of each.
fn workload(ops: u64, seed: u64) -> WorkloadArgs {
    WorkloadArgs {
        workload: Some("mbtree".into()),
        workload_set: vec!["key_max=4294967295".into()],
        trace: None,
        preload: Some(0),
        ops: Some(ops),
        seed,
    }
}

fn measure(ops: u64, mem: usize, seed: u64, quiet: bool) -> CliResult<Bench> {
    let spec = DeviceSpec::parse("slc-small", &[])?;
    let i = IndexArgs {
        index: "btree".into(),
        set: vec!["node_bytes=512".into(), "cache=mlru".into()],
    };
    let w = workload(ops, seed);
    let mut index = build_index(&i, &spec, mem)?;
    let format = index.format();
    let options = RunOptions {
        quiet,
        index: describe(&i),
        memory_budget: mem as u64,
        ..RunOptions::default()
    };
    let flashix = execute(index.as_mut(), &w, options, None)?;
    // Read before the map holds its entries: the limit is the simulation's.
    let peak_rss = peak_rss();
    drop(index);
    let map = map_pass(&w, format)?;
    let flashix_ops = flashix.total_ops();
    if flashix_ops != map.ops {
        return Err(format!(
            "bench: flashix ran {flashix_ops} operations but BTreeMap {}; they must run the same",
            map.ops
        )
        .into());
    }
    let round = Round {
        flashix_wall_seconds: flashix.wall_seconds,
        btreemap_wall_seconds: map.wall_seconds,
        ratio_flashix_to_btreemap: ratio(flashix.ops_per_wall_second, map.ops_per_wall_second),
    };
    Ok(Bench {
        ops,
        memory: mem,
        seed,
        flashix,
        map,
        peak_rss,
        rounds: vec![round],
    })
}

/// Runs the workload's operations on a `BTreeMap`, generated as
/// `runner::run_workload` generates them for the index (values wrapped to
/// the index's entry format), so both see the same keys in the same order.
/// The clock includes generating them, as the runner's does.
fn map_pass(w: &WorkloadArgs, format: EntryFormat) -> CliResult<MapRun> {
    let spec = workload_spec(w, "mbtree")?;
    let start = Instant::now();
    let mut map: BTreeMap<u64, u64> = BTreeMap::new();
    let mut range_out: Vec<(u64, u64)> = Vec::new();
    let mut pre = spec.preload_ops()?.with_max_value(format.max_value());
    let mut count = 0u64;
    for op in pre.by_ref() {
        apply(&mut map, op?, &mut range_out);
        count += 1;
    }
    for op in pre.continue_with(&spec)? {
        apply(&mut map, op?, &mut range_out);
        count += 1;
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    black_box(&map);
    Ok(MapRun {
        ops: count,
        wall_seconds,
        ops_per_wall_second: rate(count, wall_seconds),
    })
}

/// One operation on the map, with the index's meaning of each kind as
/// near as a map with one value a key allows.
fn apply(map: &mut BTreeMap<u64, u64>, op: Op, range_out: &mut Vec<(u64, u64)>) {
    match op {
        Op::Insert { key, value } => {
            map.insert(key, value);
        }
        Op::Delete { key, value } => {
            if map.get(&key) == Some(&value) {
                map.remove(&key);
            }
        }
        Op::Update { key, old, new } => {
            if let Some(v) = map.get_mut(&key).filter(|v| **v == old) {
                *v = new;
            }
        }
        Op::Search { key } => {
            black_box(map.get(&key));
        }
        Op::Range { lo, hi } => {
            range_out.clear();
            range_out.extend(map.range(lo..=hi).map(|(k, v)| (*k, *v)));
            black_box(&range_out);
        }
    }
}

fn rate(ops: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        ops as f64 / seconds
    } else {
        0.0
    }
}

/// flashix's rate over the map's (0 when the map's is 0).
fn ratio(flashix_rate: f64, map_rate: f64) -> f64 {
    if map_rate > 0.0 {
        flashix_rate / map_rate
    } else {
        0.0
    }
}

impl Bench {
    /// The first round's ratio.
    fn ratio(&self) -> f64 {
        ratio(
            self.flashix.ops_per_wall_second,
            self.map.ops_per_wall_second,
        )
    }

    /// The median of the rounds' ratios (the mean of the middle two for an
    /// even count).
    fn median_ratio(&self) -> f64 {
        let mut r: Vec<f64> = self
            .rounds
            .iter()
            .map(|r| r.ratio_flashix_to_btreemap)
            .collect();
        r.sort_by(f64::total_cmp);
        match r.len() {
            0 => 0.0,
            n if n % 2 == 1 => r[n / 2],
            n => (r[n / 2 - 1] + r[n / 2]) / 2.0,
        }
    }

    /// The map's fastest pass over flashix's fastest (both sides ran the
    /// same operations in every round, so times compare as rates).
    fn ratio_of_fastest(&self) -> f64 {
        let fastest =
            |f: fn(&Round) -> f64| self.rounds.iter().map(f).fold(f64::INFINITY, f64::min);
        let (flashix, map) = (
            fastest(|r| r.flashix_wall_seconds),
            fastest(|r| r.btreemap_wall_seconds),
        );
        if flashix > 0.0 && flashix.is_finite() {
            map / flashix
        } else {
            0.0
        }
    }

    /// Peak memory the simulation may use: 1.5 × the flash the index
    /// uses (the sparse chip holds what is written, plus its bookkeeping)
    /// + 64 MiB for the program, the cache and the workload generator.
    fn rss_limit(&self) -> u64 {
        self.flashix.flash_bytes_used * 3 / 2 + (64 << 20)
    }
}

/// The report, every line under 120 columns.
fn render(b: &Bench) -> String {
    let f = &b.flashix;
    let d = &f.device_stats;
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let mut out = format!(
        "bench: {} inserts of uniform random 32-bit keys, then a search of each (seed {}), in this process\n",
        group(b.ops),
        b.seed
    );
    out.push_str(&format!(
        "  flashix   btree (4+4 B entries, 512 B nodes, {} modified-LRU node cache) on the simulated FTL\n",
        size_text(b.memory as u64)
    ));
    out.push_str(
        "            over slc-small NAND: every page read, write and erase counted, timed and charged\n",
    );
    out.push_str("  BTreeMap  Rust's std::collections::BTreeMap<u64, u64> in memory: no device, nothing counted\n");
    out.push_str("  Both rates include generating the operations.\n\n");
    out.push_str(&format!(
        "  {:<10}{:>12}{:>10}{:>14}\n",
        "", "operations", "wall s", "ops/s"
    ));
    for (name, ops, seconds, rate) in [
        (
            "flashix",
            f.total_ops(),
            f.wall_seconds,
            f.ops_per_wall_second,
        ),
        (
            "BTreeMap",
            b.map.ops,
            b.map.wall_seconds,
            b.map.ops_per_wall_second,
        ),
    ] {
        out.push_str(&format!(
            "  {name:<10}{:>12}{seconds:>10.2}{:>14}\n",
            group(ops),
            group(rate.round() as u64)
        ));
    }
    out.push_str(&format!("  ratio flashix / BTreeMap: {:.2}\n\n", b.ratio()));
    if b.rounds.len() > 1 {
        out.push_str(&format!(
            "  {} rounds, alternately   flashix s  BTreeMap s   ratio\n",
            b.rounds.len()
        ));
        for (i, r) in b.rounds.iter().enumerate() {
            out.push_str(&format!(
                "    round {:<17}{:>10.2}{:>12.2}{:>8.2}\n",
                i + 1,
                r.flashix_wall_seconds,
                r.btreemap_wall_seconds,
                r.ratio_flashix_to_btreemap
            ));
        }
        out.push_str(&format!(
            "  median ratio {:.2}; ratio of the fastest passes {:.2}\n\n",
            b.median_ratio(),
            b.ratio_of_fastest()
        ));
    }
    out.push_str(&format!(
        "  flashix's device: {} page reads, {} page writes, {} erases; {} s simulated\n",
        group(d.physical_reads),
        group(d.physical_writes),
        group(d.erases),
        tenths(f.time_us / 1e6)
    ));
    let limit = b.rss_limit();
    match b.peak_rss {
        Some(r) => out.push_str(&format!(
            "  peak RSS {:.1} MiB (before BTreeMap ran); limit 1.5 x flash used ({:.1} MiB) + 64 MiB = {:.1} MiB: {}\n",
            mib(r),
            mib(f.flash_bytes_used),
            mib(limit),
            if r <= limit { "within" } else { "EXCEEDED" }
        )),
        None => out.push_str("  peak RSS: not available on this system\n"),
    }
    out
}

/// Peak resident set size of this process (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `65536` as `64 KiB`, `1000` as `1,000 B`.
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", group(b >> 20)),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", group(b >> 10)),
        b => format!("{} B", group(b)),
    }
}

/// `2151.46` as `2,151.5`.
fn tenths(x: f64) -> String {
    let t = (x * 10.0).round() as u64;
    format!("{}.{}", group(t / 10), t % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_run_the_same_operations_and_the_report_fits_120_columns() {
        let b = measure(3_000, 64 << 10, 7, true).unwrap();
        assert_eq!(b.map.ops, 6_000);
        assert_eq!(b.flashix.ops["insert"] + b.flashix.ops["search"], 6_000);
        assert!(b.flashix.ops_per_wall_second > 0.0 && b.map.ops_per_wall_second > 0.0);
        assert!(b.flashix.device_stats.physical_writes > 0);
        let text = render(&b);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 120,
                "{} columns: {line}",
                line.chars().count()
            );
        }
        assert!(text.contains("ratio flashix / BTreeMap: "), "{text}");
        assert!(
            !text.contains("target") && !text.contains("NOT met"),
            "{text}"
        );
        assert!(!text.contains("rounds, alternately"), "{text}");
        let json = serde_json::to_value(BenchJson::of(&b)).unwrap();
        // The run report's fields stay where scripts found them.
        for field in ["ops_per_wall_second", "device_stats", "by_op", "btreemap"] {
            assert!(json.get(field).is_some(), "{field}");
        }
        assert_eq!(json["btreemap"]["ops"], 6_000);
    }

    #[test]
    fn rounds_repeat_both_passes_and_report_each() {
        let b = measure_rounds(2_000, 64 << 10, 7, true, 3).unwrap();
        assert_eq!(b.rounds.len(), 3);
        assert_eq!(b.rounds[0].flashix_wall_seconds, b.flashix.wall_seconds);
        assert_eq!(b.rounds[0].btreemap_wall_seconds, b.map.wall_seconds);
        let text = render(&b);
        assert!(text.contains("3 rounds, alternately"), "{text}");
        assert!(text.contains("    round 3 "), "{text}");
        assert!(text.contains("median ratio "), "{text}");
        let json = serde_json::to_value(BenchJson::of(&b)).unwrap();
        assert_eq!(json["rounds"].as_array().map(Vec::len), Some(3));
        for n in [0, MAX_ROUNDS + 1] {
            let e = measure_rounds(10, 64 << 10, 7, true, n).err().unwrap();
            assert!(e.to_string().contains("out of range"), "{e}");
        }
    }

    #[test]
    fn the_median_and_the_fastest_passes() {
        let round = |f: f64, m: f64| Round {
            flashix_wall_seconds: f,
            btreemap_wall_seconds: m,
            ratio_flashix_to_btreemap: m / f,
        };
        let mut b = measure(10, 64 << 10, 7, true).unwrap();
        b.rounds = vec![round(2.0, 1.0), round(1.0, 0.9), round(1.6, 0.8)];
        // Ratios 0.5, 0.9 and 0.5: median 0.5; fastest passes 0.8 / 1.0.
        assert_eq!(b.median_ratio(), 0.5);
        assert_eq!(b.ratio_of_fastest(), 0.8);
        b.rounds.pop();
        assert_eq!(b.median_ratio(), (0.5 + 0.9) / 2.0);
    }

    #[test]
    fn the_map_gives_each_kind_its_meaning() {
        let mut m = BTreeMap::new();
        let mut out = Vec::new();
        apply(&mut m, Op::Insert { key: 1, value: 10 }, &mut out);
        apply(&mut m, Op::Insert { key: 2, value: 20 }, &mut out);
        apply(
            &mut m,
            Op::Update {
                key: 1,
                old: 99,
                new: 11,
            },
            &mut out,
        );
        apply(
            &mut m,
            Op::Update {
                key: 2,
                old: 20,
                new: 21,
            },
            &mut out,
        );
        // The update of key 1 named the wrong old value: 1 keeps 10.
        apply(&mut m, Op::Delete { key: 1, value: 11 }, &mut out);
        assert_eq!(m.get(&1), Some(&10));
        apply(&mut m, Op::Delete { key: 1, value: 10 }, &mut out);
        apply(&mut m, Op::Range { lo: 0, hi: 5 }, &mut out);
        assert_eq!(out, vec![(2, 21)]);
        assert_eq!(size_text(65536), "64 KiB");
        assert_eq!(size_text(20_000), "20,000 B");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(
            (tenths(2151.46), tenths(9.96)),
            ("2,151.5".into(), "10.0".into())
        );
    }
}
