//! Measured run times: the first term of the cost model
//! ([`super::shard::estimated_cost`]).
//!
//! A formula from a run's parameters ranks runs well but misses single
//! runs by large factors (`fdtree-fig3a`'s 64 KiB-head FD-tree at 10⁸, 72 s
//! estimated and 769 s measured; `docs/CLUSTER.md` has the counts). A
//! sweep's runs are the same from one release to the next, so the best
//! estimate of a run's time is its time the last time it ran: this table
//! holds, for each run of the committed sweeps, its time in microseconds as
//! measured, keyed by a hash of its parameters. Runs the table does not
//! hold (a new or changed run, `--quick` scale) fall back to the formula.
//!
//! The table (`measured_costs.tsv`, compiled in) has one line a run:
//!
//! ```text
//! KEY<TAB>MICROS<TAB>EXPERIMENT<TAB>SERIES<TAB>X
//! ```
//!
//! `KEY` is [`key`] of the run's parameters in 16 hex digits; the last
//! three fields only say which run it was, for a reader. `#` lines are
//! comments (where and when it was measured). `flashix costs DIR...`
//! writes it from the run files of a `reproduce --shard` output (each
//! run's `seconds`: all its thread's time on it, the workload's reading,
//! preload and report included), or from the `ID.json` files of a
//! `reproduce` or `merge` output (each report's `wall_seconds`: its
//! measured pass only, up to 5× less for a run whose workload is costly to
//! read, such as `mbtree-fig7-14`'s genome runs).
//!
//! Invariants:
//! 1. A lookup depends on the run's parameters only (not on the experiment
//!    id: `fdtree-fig3c-15e7`'s cells up to 10⁸ are `fdtree-fig3c`'s runs),
//!    and is an integer: every shard of a job array computes the same
//!    plan ([`super::shard`] invariant 1).
//! 2. Two runs with the same parameters do the same work (the seed comes
//!    from the parameters, [`super::sweep::stable_seed`]); where the table
//!    holds a key twice, the larger time counts.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use super::Params;

const TABLE: &str = include_str!("measured_costs.tsv");

/// The table's key of a run: FNV-1a over its sorted `key=value` pairs.
pub fn key(params: &Params) -> u64 {
    super::sweep::stable_seed("", params)
}

fn table() -> &'static HashMap<u64, u64> {
    static PARSED: OnceLock<HashMap<u64, u64>> = OnceLock::new();
    PARSED.get_or_init(|| parse(TABLE))
}

fn parse(text: &str) -> HashMap<u64, u64> {
    let mut map = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.split('\t');
        let (Some(k), Some(us)) = (fields.next(), fields.next()) else {
            continue;
        };
        if let (Ok(k), Ok(us)) = (u64::from_str_radix(k, 16), us.parse::<u64>()) {
            let e = map.entry(k).or_insert(us);
            *e = (*e).max(us);
        }
    }
    map
}

/// The run's measured wall time in µs, if the table holds it.
pub fn measured_us(params: &Params) -> Option<u64> {
    table().get(&key(params)).copied()
}

/// The table's head: `note` as comment lines.
pub fn head(note: &str) -> String {
    note.lines().map(|line| format!("# {line}\n")).collect()
}

/// One line of the table: a run of experiment `id` with `params` took
/// `seconds`.
pub fn line(params: &Params, seconds: f64, id: &str, series: &str, x: &str) -> String {
    let field = |s: &str| s.replace(['\t', '\n'], " ");
    format!(
        "{:016x}\t{}\t{id}\t{}\t{}\n",
        key(params),
        (seconds * 1e6).round() as u64,
        field(series),
        field(x)
    )
}

/// The table's lines from one `reproduce` or `merge` output folder's
/// `ID.json` files: every run whose report has `wall_seconds`,
/// experiments by name (the table opens with [`head`]).
///
/// A report's `wall_seconds` is the run's measured pass only; a shard's
/// run files record the whole time its thread spent on the run (the
/// workload read, the preload, the report), which is what a shard plan
/// balances: `flashix costs` reads those where it is given shard folders
/// (`src/cli/shard.rs`), and these reports only where it is not.
pub fn lines_from_reports(dir: &Path) -> Result<String, String> {
    let mut out = String::new();
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    ids.sort();
    for id in ids {
        let path = dir.join(&id).join(format!("{id}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let runs: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for run in runs {
            let Some(seconds) = run["report"]["wall_seconds"].as_f64() else {
                continue;
            };
            let params: Params = serde_json::from_value(run["params"].clone())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let field = |k: &str| run[k].as_str().unwrap_or_default().to_string();
            out.push_str(&line(&params, seconds, &id, &field("series"), &field("x")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let exp = dir.path().join("e1");
        std::fs::create_dir(&exp).unwrap();
        let p = |ops: &str| -> Params {
            [("index", "btree"), ("ops", ops)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let runs = serde_json::json!([
            {"series": "a", "x": "1", "params": p("10"), "report": {"wall_seconds": 1.5}},
            {"series": "a", "x": "2", "params": p("20"), "report": {}},
            {"series": "b", "x": "1", "params": p("10"), "report": {"wall_seconds": 2.0}},
        ]);
        std::fs::write(exp.join("e1.json"), runs.to_string()).unwrap();
        let text = head("measured here") + &lines_from_reports(dir.path()).unwrap();
        assert!(text.starts_with("# measured here\n"));
        let t = parse(&text);
        // The same parameters twice: the larger time; no time: no entry.
        assert_eq!(t.get(&key(&p("10"))), Some(&2_000_000));
        assert_eq!(t.get(&key(&p("20"))), None);
        assert_eq!(t.len(), 1);
    }
}
