//! A long trace is advised on a prefix: its first [`DEFAULT_PREFIX`]
//! operations unless `--ops N` says how many. The per-operation figures
//! are then the prefix's, and stand for the whole trace only as far as the
//! trace keeps the prefix's character; so the whole trace is read once
//! (checked line by line, an error naming its line) and the share of each
//! kind of operation in the prefix is set beside its share in the whole.
//! Where a share differs by more than [`MIX_TOLERANCE`], the output says
//! the extrapolation is doubtful (a trace whose phases change, such as
//! `lat-phases`, is one).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::workload::TraceReader;

use super::super::args::WorkloadArgs;
use super::super::CliResult;

/// Operations of a trace above which `advise` takes a prefix by default.
pub const LONG_TRACE: u64 = 2_000_000;

/// The prefix taken of a long trace.
pub const DEFAULT_PREFIX: u64 = 1_000_000;

/// The largest difference of an operation kind's share between prefix and
/// whole trace that the output does not flag.
pub const MIX_TOLERANCE: f64 = 0.05;

/// The prefix advised on and how its mix compares with the whole trace's.
#[derive(Clone, Debug, Serialize)]
pub struct Prefix {
    pub taken: u64,
    pub total: u64,
    /// Share of each operation kind, in the prefix and in the whole trace.
    pub prefix_mix: BTreeMap<String, f64>,
    pub total_mix: BTreeMap<String, f64>,
    /// The largest difference between the two shares of a kind.
    pub largest_gap: f64,
}

impl Prefix {
    /// Whether the mix of the prefix is within [`MIX_TOLERANCE`] of the
    /// whole trace's.
    pub fn representative(&self) -> bool {
        self.largest_gap <= MIX_TOLERANCE
    }
}

fn shares(counts: &BTreeMap<String, u64>) -> BTreeMap<String, f64> {
    let n = counts.values().sum::<u64>().max(1) as f64;
    counts
        .iter()
        .map(|(k, c)| (k.clone(), *c as f64 / n))
        .collect()
}

/// For a trace workload: reads the whole trace (an error names the bad
/// line), chooses the prefix (sets `w.ops` when it takes one by default)
/// and returns it; `None` when the whole trace runs, or for a preset.
pub fn prefix(w: &mut WorkloadArgs) -> CliResult<Option<Prefix>> {
    let Some(path) = &w.trace else {
        return Ok(None);
    };
    let mut total = 0u64;
    let (mut whole, mut head) = (BTreeMap::new(), BTreeMap::new());
    for op in TraceReader::open(path)? {
        let kind = op?.kind().name().to_string();
        total += 1;
        *whole.entry(kind.clone()).or_insert(0u64) += 1;
        // Counted up to the asked prefix, or the default one.
        if total <= w.ops.unwrap_or(DEFAULT_PREFIX) {
            *head.entry(kind).or_insert(0u64) += 1;
        }
    }
    let taken = match w.ops {
        Some(n) => n.min(total),
        None if total > LONG_TRACE => DEFAULT_PREFIX,
        None => total,
    };
    if taken >= total {
        return Ok(None);
    }
    w.ops = Some(taken);
    let (prefix_mix, total_mix) = (shares(&head), shares(&whole));
    let largest_gap = total_mix
        .keys()
        .chain(prefix_mix.keys())
        .map(|k| {
            (prefix_mix.get(k).copied().unwrap_or(0.0) - total_mix.get(k).copied().unwrap_or(0.0))
                .abs()
        })
        .fold(0.0, f64::max);
    Ok(Some(Prefix {
        taken,
        total,
        prefix_mix,
        total_mix,
        largest_gap,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn args(path: &std::path::Path, ops: Option<u64>) -> WorkloadArgs {
        WorkloadArgs {
            workload: None,
            workload_set: vec![],
            trace: Some(path.to_path_buf()),
            preload: None,
            ops,
            seed: 42,
        }
    }

    #[test]
    fn a_prefix_compares_its_mix_with_the_whole_trace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let mut f = std::fs::File::create(&path).unwrap();
        // 60 inserts, then 40 searches: a prefix of 50 is all inserts.
        for i in 0..60 {
            writeln!(f, "I {i} {i}").unwrap();
        }
        for i in 0..40 {
            writeln!(f, "S {i}").unwrap();
        }
        drop(f);
        let mut w = args(&path, Some(50));
        let p = prefix(&mut w).unwrap().unwrap();
        assert_eq!((p.taken, p.total, w.ops), (50, 100, Some(50)));
        assert!((p.largest_gap - 0.4).abs() < 1e-12, "{p:?}");
        assert!(!p.representative());
        let mut whole = args(&path, None);
        assert!(prefix(&mut whole).unwrap().is_none());
        assert_eq!(whole.ops, None);
        std::fs::write(&path, "I 1 1\nX 2\n").unwrap();
        let e = prefix(&mut args(&path, None)).unwrap_err().to_string();
        assert!(e.contains(":2:"), "{e}");
    }
}
