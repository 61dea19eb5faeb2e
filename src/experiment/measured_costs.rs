//! Measured run times: the first term of the cost model
//! ([`super::shard::estimated_cost`]).
//!
//! A formula from a run's parameters ranks runs well but misses single
//! runs by large factors (`docs/CLUSTER.md`: 193 of 1,081 full-scale runs
//! within 1.5× of their time; `fdtree-fig3a`'s 64 KiB-head FD-tree at 10⁸,
//! 72 s estimated and 769 s measured). A sweep's runs are the same from one
//! release to the next, so the best estimate of a run's time is its time
//! the last time it ran: this table holds, for each run of the committed
//! sweeps, its wall time in microseconds as measured, keyed by a hash of
//! its parameters. Runs the table does not hold (a new or changed run,
//! `--quick` scale) fall back to the formula.
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
//! writes it from the `ID.json` files of a `reproduce` or `merge` output.
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

/// The table from the `ID.json` files under `dirs` (each a `reproduce` or
/// `merge` output folder): every run whose report has `wall_seconds`, in
/// the folders' order, experiments by name. `note` opens it as a comment.
pub fn table_from(dirs: &[impl AsRef<Path>], note: &str) -> Result<String, String> {
    let mut out = String::new();
    for line in note.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    for dir in dirs {
        let dir = dir.as_ref();
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
                let field = |k: &str| run[k].as_str().unwrap_or_default().replace('\t', " ");
                out.push_str(&format!(
                    "{:016x}\t{}\t{id}\t{}\t{}\n",
                    key(&params),
                    (seconds * 1e6).round() as u64,
                    field("series"),
                    field("x")
                ));
            }
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
        let text = table_from(&[dir.path()], "measured here").unwrap();
        assert!(text.starts_with("# measured here\n"));
        let t = parse(&text);
        // The same parameters twice: the larger time; no time: no entry.
        assert_eq!(t.get(&key(&p("10"))), Some(&2_000_000));
        assert_eq!(t.get(&key(&p("20"))), None);
        assert_eq!(t.len(), 1);
    }
}
