//! A long trace is advised on a prefix: its first [`DEFAULT_PREFIX`]
//! operations (or `--prefix N`'s), or exactly `--ops N`. The
//! per-operation figures are then the prefix's, and stand for the whole
//! trace only as far as two things hold, which the output checks and
//! states:
//!
//! * **The mix.** The whole trace is read once (checked line by line, an
//!   error naming its line) and cut into up to [`MIX_WINDOWS`] equal
//!   windows of at least [`MIX_WINDOW_MIN`] operations; the share of each
//!   kind of operation in the prefix is set beside its share in each
//!   window. Where one differs by more than [`MIX_TOLERANCE`], the
//!   extrapolation is doubtful: the trace changes character after the
//!   prefix, or within it (a trace in phases, such as `lat-phases`, whose
//!   overall shares a prefix may match by chance).
//! * **The size.** An index grows over a trace, and its cost per operation
//!   and its memory with it, so advice on a prefix can differ from advice
//!   on the whole trace even where the mix holds. The check (`advise`
//!   runs it): advice on the prefix's first half must name the same
//!   index. Where it does not, the costs are still changing with the
//!   index's size: a prefix of `--prefix` or the default is then doubled
//!   (and checked against the one before) until two agree or the whole
//!   trace runs; an exact `--ops N` is kept and flagged UNSTABLE.
//!
//! The trace's kinds are kept one byte an operation while it is checked
//! (100 MB for 10^8 operations).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::workload::{OpKind, TraceReader};

use super::super::args::WorkloadArgs;
use super::super::CliResult;

/// Operations of a trace above which `advise` takes a prefix by default.
pub const LONG_TRACE: u64 = 2_000_000;

/// The prefix taken of a long trace.
pub const DEFAULT_PREFIX: u64 = 1_000_000;

/// The largest difference of an operation kind's share between the prefix
/// and a window of the trace that the output does not flag.
pub const MIX_TOLERANCE: f64 = 0.05;

/// The most windows the trace is cut into for the mix check.
pub const MIX_WINDOWS: u64 = 8;

/// The fewest operations in a window: a share over fewer is mostly noise
/// (over 10,000 operations a share of one half varies by about 0.5 points).
pub const MIX_WINDOW_MIN: u64 = 10_000;

/// The check of a prefix against its first half (module doc).
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Operations of the first half.
    pub half: u64,
    /// What advice on the first half recommends (`None`: nothing fits).
    pub half_label: Option<String>,
    pub half_index: Option<String>,
    /// Whether it names the index advice on the prefix names.
    pub stable: bool,
}

/// The prefix advised on and how its mix compares with the trace's.
#[derive(Clone, Debug, Serialize)]
pub struct Prefix {
    /// Operations advised on (the whole trace where a doubling reached it).
    pub taken: u64,
    pub total: u64,
    /// Share of each operation kind, in the prefix and in the whole trace.
    pub prefix_mix: BTreeMap<String, f64>,
    pub total_mix: BTreeMap<String, f64>,
    /// The largest difference between the prefix's share of a kind and
    /// that kind's share in the whole trace or one of its windows.
    pub largest_gap: f64,
    /// Windows the trace was cut into.
    pub windows: u64,
    /// The prefix first asked for, where doubling went beyond it.
    pub started_at: Option<u64>,
    /// Whether the prefix doubles while the check fails.
    pub extends: bool,
    pub check: Option<Check>,
}

impl Prefix {
    /// Whether the mix of the prefix is within [`MIX_TOLERANCE`] of every
    /// window's.
    pub fn representative(&self) -> bool {
        self.largest_gap <= MIX_TOLERANCE
    }

    /// Whether the prefix is the whole trace (a doubling reached it).
    pub fn whole(&self) -> bool {
        self.taken >= self.total
    }
}

/// A trace's operation kinds, in order.
pub struct TraceKinds {
    kinds: Vec<u8>,
}

impl std::fmt::Debug for TraceKinds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TraceKinds({} operations)", self.kinds.len())
    }
}

fn kind_index(k: OpKind) -> u8 {
    OpKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u8
}

impl TraceKinds {
    /// Reads the trace at `path`, an error naming its first bad line.
    pub fn read(path: &std::path::Path) -> CliResult<TraceKinds> {
        let mut kinds = Vec::new();
        for op in TraceReader::open(path)? {
            kinds.push(kind_index(op?.kind()));
        }
        Ok(TraceKinds { kinds })
    }

    pub fn total(&self) -> u64 {
        self.kinds.len() as u64
    }

    /// The share of each kind among operations `lo..hi`.
    fn shares(&self, lo: usize, hi: usize) -> [f64; 5] {
        let mut counts = [0u64; 5];
        for &k in &self.kinds[lo..hi] {
            counts[k as usize] += 1;
        }
        let n = (hi - lo).max(1) as f64;
        counts.map(|c| c as f64 / n)
    }

    /// The prefix of the first `taken` operations, its mix checked against
    /// the whole trace's and each window's.
    pub fn prefix(&self, taken: u64, extends: bool) -> Prefix {
        let total = self.total();
        let taken = taken.min(total);
        let head = self.shares(0, taken as usize);
        let whole = self.shares(0, total as usize);
        let windows = (total / MIX_WINDOW_MIN).clamp(1, MIX_WINDOWS);
        let gap = |other: &[f64; 5]| {
            head.iter()
                .zip(other)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
        };
        let mut largest_gap = gap(&whole);
        for w in 0..windows {
            let lo = (total * w / windows) as usize;
            let hi = (total * (w + 1) / windows) as usize;
            largest_gap = largest_gap.max(gap(&self.shares(lo, hi)));
        }
        let named = |shares: [f64; 5], present: &dyn Fn(usize) -> bool| {
            OpKind::ALL
                .iter()
                .enumerate()
                .filter(|&(i, _)| present(i))
                .map(|(i, k)| (k.name().to_string(), shares[i]))
                .collect::<BTreeMap<String, f64>>()
        };
        // A kind appears in a mix where the trace has it at all.
        let present = |i: usize| whole[i] > 0.0;
        Prefix {
            taken,
            total,
            prefix_mix: named(head, &present),
            total_mix: named(whole, &present),
            largest_gap,
            windows,
            started_at: None,
            extends,
            check: None,
        }
    }
}

/// For a trace workload: reads the whole trace (an error names the bad
/// line) and chooses the prefix: `--ops N` exactly, or `start`
/// (`--prefix N`) or the default one of a long trace, which extend while
/// the check fails. Sets `w.ops` to the prefix. `None` when the whole trace
/// runs from the start, or for a preset.
pub fn prefix(w: &mut WorkloadArgs, start: Option<u64>) -> CliResult<Option<(TraceKinds, Prefix)>> {
    let Some(path) = &w.trace else {
        if start.is_some() {
            return Err("--prefix takes a prefix of a trace (--trace FILE)".into());
        }
        return Ok(None);
    };
    if start.is_some() && w.ops.is_some() {
        return Err("--ops N advises on exactly N operations, --prefix N starts a prefix that doubles until its advice holds: give one".into());
    }
    if start == Some(0) || w.ops == Some(0) {
        return Err("a prefix of 0 operations advises on nothing".into());
    }
    let kinds = TraceKinds::read(path)?;
    let total = kinds.total();
    let (taken, extends) = match (w.ops, start) {
        (Some(n), _) => (n, false),
        (None, Some(n)) => (n, true),
        (None, None) if total > LONG_TRACE => (DEFAULT_PREFIX, true),
        (None, None) => (total, false),
    };
    if taken >= total {
        return Ok(None);
    }
    w.ops = Some(taken);
    let p = kinds.prefix(taken, extends);
    Ok(Some((kinds, p)))
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
        let (_, p) = prefix(&mut w, None).unwrap().unwrap();
        assert_eq!((p.taken, p.total, w.ops), (50, 100, Some(50)));
        // Against the whole trace: 100% inserts against 60%. One window
        // (fewer than MIX_WINDOW_MIN operations).
        assert!((p.largest_gap - 0.4).abs() < 1e-12, "{p:?}");
        assert!(!p.representative() && !p.extends);
        let mut whole = args(&path, None);
        assert!(prefix(&mut whole, None).unwrap().is_none());
        assert_eq!(whole.ops, None);
        assert!(prefix(&mut args(&path, Some(10)), Some(10)).is_err());
        assert!(prefix(&mut args(&path, None), Some(0)).is_err());
        let (_, p) = prefix(&mut args(&path, None), Some(20)).unwrap().unwrap();
        assert!(p.extends && p.taken == 20);
        std::fs::write(&path, "I 1 1\nX 2\n").unwrap();
        let e = prefix(&mut args(&path, None), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(":2:"), "{e}");
    }

    #[test]
    fn a_trace_in_phases_is_doubtful_though_its_shares_match() {
        // Three phases of 10,000: 10% searches, 90%, 10%; the first
        // 15,000 operations hold 36.7% searches and the whole trace
        // 36.7% too, but the middle windows are 90% searches.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.trace");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut k = 0;
        for share in [10, 90, 10] {
            for i in 0..10_000 {
                if i % 100 < share {
                    writeln!(f, "S {k}").unwrap();
                } else {
                    writeln!(f, "I {k} {k}").unwrap();
                }
                k += 1;
            }
        }
        drop(f);
        let kinds = TraceKinds::read(&path).unwrap();
        let p = kinds.prefix(15_000, false);
        let gap_to_whole = (p.prefix_mix["search"] - p.total_mix["search"]).abs();
        assert!(gap_to_whole < 0.01, "{p:?}");
        assert_eq!(p.windows, 3);
        assert!(!p.representative(), "{p:?}");
        // A steady mix over the same length is not flagged.
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for k in 0..30_000 {
            if k % 3 == 0 {
                writeln!(f, "S {k}").unwrap();
            } else {
                writeln!(f, "I {k} {k}").unwrap();
            }
        }
        drop(f);
        let p = TraceKinds::read(&path).unwrap().prefix(15_000, false);
        assert!(p.representative(), "{p:?}");
    }
}
