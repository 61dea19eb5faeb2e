//! What a run reports and how the parent shows it: the `RESULT` line a
//! child prints (named measurements, `key=value`), and the Markdown table
//! of min–max over rounds that the parent prints from those lines.

use std::collections::BTreeMap;

use crate::args::Args;
use crate::workload::Workload;

/// One run's measurements by name (`inserts_per_s`, `peak_rss_kib`, ...).
pub type Run = BTreeMap<String, f64>;

const RESULT: &str = "RESULT ";

/// The line a child prints: `RESULT k=v k=v ...`, in name order.
pub fn result_line(run: &Run) -> String {
    let fields: Vec<String> = run.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{RESULT}{}", fields.join(" "))
}

/// Finds the `RESULT` line in a child's output; returns it without its
/// prefix (for the log) and parsed.
pub fn parse_result(stdout: &str) -> Option<(&str, Run)> {
    let line = stdout.lines().find_map(|l| l.strip_prefix(RESULT))?;
    let run = line
        .split(' ')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap_or(f64::NAN)))
        .collect();
    Some((line, run))
}

fn range(runs: &[Run], key: &str, scale: f64, decimals: usize) -> String {
    let vals: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.get(key))
        .map(|v| v * scale)
        .collect();
    if vals.is_empty() {
        return "–".into();
    }
    let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let fmt = |v: f64| {
        if decimals == 0 {
            group(v.round() as u64)
        } else {
            format!("{v:.decimals$}")
        }
    };
    if fmt(lo) == fmt(hi) {
        fmt(lo)
    } else {
        format!("{}–{}", fmt(lo), fmt(hi))
    }
}

/// 1234567 → "1,234,567".
pub fn group(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn per(runs: &[Run], num: &str, den: &str) -> Vec<Run> {
    runs.iter()
        .map(|r| {
            let mut m = BTreeMap::new();
            if let (Some(a), Some(b)) = (r.get(num), r.get(den)) {
                m.insert("v".to_string(), a / b);
            }
            m
        })
        .collect()
}

/// `bytes` in MiB (to a tenth where not whole).
fn size(bytes: usize) -> String {
    let mib = bytes as f64 / (1 << 20) as f64;
    if bytes.is_multiple_of(1 << 20) {
        format!("{mib} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
}

/// Prints the table: its header (the workload, n, the memory and what it
/// limits), one row per engine in `a.engines`' order (an engine that did
/// not finish marked †, with no figures), then the notes and each engine
/// that failed or ran past the limit, with why.
pub fn print_table(
    a: &Args,
    results: &BTreeMap<String, Vec<Run>>,
    failed: &BTreeMap<String, String>,
) {
    let n = a.n as f64;
    println!(
        "\nworkload {}, n = {} (data {} = {:.2}× the memory), a durable commit every {} operations, min–max over {} round(s)",
        a.workload.name(),
        group(a.n),
        size(16 * a.n as usize),
        16.0 * n / a.memory as f64,
        a.commit_every,
        a.rounds
    );
    println!(
        "memory {} per engine: its own cache and buffers (flashix's budget); \
         \"beyond memory\" means beyond each engine's own cache: the OS page cache \
         is not limited (LMDB has no cache of its own and reads through it)\n",
        size(a.memory)
    );
    match a.workload {
        Workload::InsertLookup => {
            println!("| engine | inserts/s | lookups/s | p99 insert (µs) | p99 lookup (µs) | bytes written / insert | space amp. | peak RSS (MiB) |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        }
        Workload::YcsbA => {
            println!("| engine | load inserts/s | mixed ops/s | p99 op (µs) | bytes written / update | space amp. | peak RSS (MiB) |");
            println!("|---|---:|---:|---:|---:|---:|---:|");
        }
    }
    for engine in &a.engines {
        let Some(runs) = results.get(engine) else {
            if failed.contains_key(engine) {
                let cols = match a.workload {
                    Workload::InsertLookup => 7,
                    Workload::YcsbA => 6,
                };
                println!("| {engine} † |{}", " – |".repeat(cols));
            }
            continue;
        };
        let mut label = engine.clone();
        if engine == "sled" {
            label.push_str(" ‡");
        }
        if failed.contains_key(engine) {
            // Finished some rounds, not all.
            label.push_str(" †");
        }
        if runs
            .iter()
            .any(|r| r.get("misses").copied().unwrap_or(0.0) > 0.0)
        {
            label.push_str(" (MISSES)");
        }
        let rss = range(runs, "peak_rss_kib", 1.0 / 1024.0, 0);
        let amp = range(runs, "space_amp", 1.0, 2);
        match a.workload {
            Workload::InsertLookup => println!(
                "| {label} | {} | {} | {} | {} | {} | {amp} | {rss} |",
                range(runs, "inserts_per_s", 1.0, 0),
                range(runs, "lookups_per_s", 1.0, 0),
                range(runs, "insert_p99_us", 1.0, 0),
                range(runs, "lookup_p99_us", 1.0, 1),
                range(runs, "insert_write_bytes", 1.0 / n, 0),
            ),
            Workload::YcsbA => println!(
                "| {label} | {} | {} | {} | {} | {amp} | {rss} |",
                range(runs, "inserts_per_s", 1.0, 0),
                range(runs, "ops_per_s", 1.0, 0),
                range(runs, "op_p99_us", 1.0, 0),
                range(&per(runs, "update_write_bytes", "updates"), "v", 1.0, 0),
            ),
        }
    }
    if results.contains_key("sled") {
        println!(
            "\n‡ sled's `flush` is sync_file_range, not fsync: not durable on a machine crash."
        );
    }
    for (engine, why) in failed {
        println!("\n† {engine}: {why}");
    }
}
