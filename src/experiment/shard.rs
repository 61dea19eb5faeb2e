//! Shards: a deterministic 1/n of a sweep's runs for one machine of a job
//! array (`flashix reproduce ID|all --shard i/n`), balanced by estimated
//! cost, not by count.
//!
//! Two parts, kept apart so that other sweeps (the advisor's grids) can
//! shard the same way:
//!
//! * [`assign`] is generic: a list of estimated costs in, a shard per item
//!   out. It knows nothing of experiments.
//! * [`estimated_cost`] is the cost model of an experiment run, from its
//!   parameters only.
//!
//! # The cost model
//!
//! A run's cost is an estimate of its wall time in microseconds:
//!
//! ```text
//! index run:  FIXED + ops × op + preload × (BULK if bulk-loaded, else op)
//!             op = per_op(index) × device(device) × (preload + ops)^(1/4)
//!             (× 2 when its memory is "what FlashDB occupied": FlashDB runs first)
//! FTL run:    FIXED + pages(device.blocks × 64) × overwrites_per_page × FTL_PER_WRITE
//! device run: FIXED + requests × (DISK_REQUEST on a file, SIM_REQUEST on a model)
//! ```
//!
//! `ops` is the measured operation count (derived from `inserts` and the
//! mix where an experiment fixes the inserts). `per_op` (one weight per
//! index), `device` (the raw chip 0.58, the FTL 1, the SSD model 1.32, a
//! real file 208: there the disk sets the pace) and the exponent 1/4 (an
//! operation costs more in a larger index) come from a least-squares fit of
//! log(time per operation) to the 999 index runs of `docs/results`
//! (2026-11-25, full scale), weighted by the square root of each run's
//! time. `docs/CLUSTER.md` states how well the model predicts measured run
//! times, at full and at quick scale.
//!
//! Invariants:
//! 1. Every shard of a job array computes the same assignment: costs are
//!    integers computed with integer arithmetic from the run's parameter
//!    strings (no floating point, whose last bits may differ between
//!    machines' maths libraries), and [`assign`] breaks every tie by
//!    position.
//! 2. Every item goes to exactly one shard; `n = 1` gives every item to
//!    shard 0.

use std::fmt;
use std::str::FromStr;

use super::{Params, RunKind};

/// `--shard i/n`: this machine runs shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: usize,
    pub count: usize,
}

impl FromStr for ShardSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        // clap names the flag and the value; the reason is ours.
        let bad = |why: &str| why.to_string();
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, such as 0/3 (shard I of N, counted from 0)"))?;
        let parse = |t: &str, what: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| bad(&format!("{what} `{t}` is not a whole number")))
        };
        let (index, count) = (parse(i, "I")?, parse(n, "N")?);
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index >= count {
            return Err(bad(&format!(
                "I counts from 0, so shard I of {count} is 0 to {}",
                count - 1
            )));
        }
        Ok(ShardSpec { index, count })
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard of each item: longest processing time first (the costliest
/// item goes to the least-loaded shard, ties to the lower shard; equal
/// costs in item order). Its largest shard is at most 4/3 of the best
/// possible split's (Graham's bound), and within one item's cost of the
/// mean.
pub fn assign(costs: &[u64], shards: usize) -> Vec<usize> {
    let shards = shards.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0u128; shards];
    let mut out = vec![0; costs.len()];
    for item in order {
        // `min_by_key` returns the first of equal minima: the lower shard.
        let (s, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(_, l)| **l)
            .unwrap_or((0, &0));
        out[item] = s;
        load[s] += costs[item] as u128;
    }
    out
}

/// A fixed cost per run (device and index set-up, the report), µs.
const FIXED: u64 = 20_000;
/// Bulk-loading one preloaded entry (sorted, written once), ns.
const BULK_NS: u64 = 300;
/// One page overwrite on the simulated FTL, ns.
const FTL_PER_WRITE_NS: u64 = 400;
/// One request of `ssd-table1` on a model and on this machine's disk, ns.
const SIM_REQUEST_NS: u64 = 1_000;
const DISK_REQUEST_NS: u64 = 200_000;

/// An operation's time per fourth root of the entries the run handles, ns
/// (fitted to `docs/results`: see the module doc).
fn per_op_ns(index: &str) -> u64 {
    match index {
        "btree" => 150,
        "lsm" => 265,
        "asbtree" | "flashdb" => 360,
        "mbtree" => 665,
        "bftl" | "ipl" | "latree" => 870,
        "basic-delta" | "consolidation" => 1_070,
        "fdtree" => 1_590,
        "buffer-tree" => 4_630,
        _ => 1_000,
    }
}

/// The device's factor on an operation's time, in percent: the raw chip
/// (no FTL) is cheaper than the FTL, the SSD model dearer, a real file a
/// disk request.
fn device_percent(device: &str) -> u64 {
    if device.starts_with("file:") {
        20_800
    } else if device.starts_with("raw:") {
        58
    } else if crate::device::ssd::ssd_profiles()
        .iter()
        .any(|p| p.name == device)
    {
        132
    } else {
        100
    }
}

/// A whole number parameter, 0 when absent or not a number.
fn count(params: &Params, key: &str) -> u64 {
    params
        .get(key)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0)
}

/// The measured operations of an index run: `ops`, or, where an experiment
/// fixes the inserts, the operations the mix needs for them (the same
/// rounding as the run, in integers: inserts × (insert + search) / insert
/// with the shares as whole percentages).
fn measured_ops(params: &Params) -> u64 {
    if !params.contains_key("inserts") {
        return count(params, "ops");
    }
    let percent = |key: &str, default: u64| {
        params
            .get(key)
            .and_then(|v| fixed_point_percent(v))
            .unwrap_or(default)
    };
    let insert = percent("workload.insert", 100).max(1);
    let search = percent("workload.search", 0);
    count(params, "inserts").saturating_mul(insert + search) / insert
}

/// A share such as `0.25` or `1` in whole hundredths, without floating
/// point (invariant 1).
fn fixed_point_percent(text: &str) -> Option<u64> {
    let text = text.trim();
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut digits = frac.chars().chain(std::iter::repeat('0')).take(2);
    let mut hundredths = 0u64;
    for d in digits.by_ref() {
        hundredths = hundredths * 10 + d.to_digit(10)? as u64;
    }
    Some(whole * 100 + hundredths)
}

/// [`estimated_cost`] of each of `runs`, in order.
pub fn estimated_costs(kind: RunKind, runs: &[super::sweep::SweepRun]) -> Vec<u64> {
    runs.iter()
        .map(|r| estimated_cost(kind, &r.params))
        .collect()
}

/// The estimated wall time of a run in µs (the module doc's model).
pub fn estimated_cost(kind: RunKind, params: &Params) -> u64 {
    if let Some(us) = super::measured_costs::measured_us(params) {
        return us.max(1);
    }
    match kind {
        RunKind::Index => {
            let index = params.get("index").map_or("", String::as_str);
            let device = params.get("device").map_or("", String::as_str);
            let (preload, ops) = (count(params, "preload"), measured_ops(params));
            // Larger indexes cost more per operation: deeper trees, more
            // misses; the fit gives the fourth root of the entries.
            let root = (preload + ops).max(1).isqrt().isqrt();
            let per_op = per_op_ns(index) * root * device_percent(device) / 100;
            let bulk = params.get("bulk_load").map(String::as_str) == Some("true");
            let preload_ns = if bulk {
                preload * BULK_NS
            } else {
                preload * per_op
            };
            let ns = ops * per_op + preload_ns;
            let runs = if params.get("memory").map(String::as_str)
                == Some(super::run_params::MATCH_FLASHDB)
            {
                2
            } else {
                1
            };
            (FIXED + ns / 1_000) * runs
        }
        RunKind::FtlOverwrite => {
            let pages = count(params, "device.blocks").max(1) * 64;
            FIXED + pages * count(params, "overwrites_per_page") * FTL_PER_WRITE_NS / 1_000
        }
        RunKind::DeviceBench => {
            let on_disk = params.get("device").is_some_and(|d| d.starts_with("file:"));
            let per = if on_disk {
                DISK_REQUEST_NS
            } else {
                SIM_REQUEST_NS
            };
            FIXED + count(params, "requests") * per / 1_000
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_or_say_why_not() {
        assert_eq!(
            "1/3".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 1, count: 3 })
        );
        for (bad, says) in [
            ("3/3", "0 to 2"),
            ("0/0", "at least 1"),
            ("x", "expected I/N"),
            ("a/3", "`a` is not a whole number"),
            ("1/-3", "not a whole number"),
            ("", "expected I/N"),
        ] {
            let e = bad.parse::<ShardSpec>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn assignment_balances_cost_not_count() {
        // One run as costly as the nine others together: alone on its shard.
        let costs = [90, 10, 10, 10, 10, 10, 10, 10, 10, 10];
        let a = assign(&costs, 2);
        assert_eq!(a[0], 0);
        assert!(a[1..].iter().all(|&s| s == 1), "{a:?}");
        // Every item once; deterministic; n = 1 is everything on shard 0.
        assert_eq!(assign(&costs, 2), a);
        assert!(assign(&costs, 1).iter().all(|&s| s == 0));
        let a = assign(&[5; 7], 3);
        assert_eq!(a, vec![0, 1, 2, 0, 1, 2, 0]);
        assert!(assign(&[], 4).is_empty());
    }

    #[test]
    fn shares_are_read_in_hundredths() {
        assert_eq!(fixed_point_percent("0.25"), Some(25));
        assert_eq!(fixed_point_percent("1"), Some(100));
        assert_eq!(fixed_point_percent(".5"), Some(50));
        assert_eq!(fixed_point_percent("0.999"), Some(99));
        assert_eq!(fixed_point_percent("x"), None);
    }

    #[test]
    fn costs_grow_with_the_work() {
        let p = |pairs: &[(&str, &str)]| -> Params {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let small = p(&[("index", "btree"), ("ops", "1000"), ("device", "slc-small")]);
        let large = p(&[
            ("index", "btree"),
            ("ops", "100000"),
            ("device", "slc-small"),
        ]);
        let disk = p(&[("index", "btree"), ("ops", "1000"), ("device", "file:x")]);
        let c = |p: &Params| estimated_cost(RunKind::Index, p);
        assert!(c(&small) < c(&large) && c(&small) < c(&disk));
        let bulk = p(&[
            ("index", "fdtree"),
            ("preload", "1000000"),
            ("bulk_load", "true"),
        ]);
        let inserted = p(&[("index", "fdtree"), ("preload", "1000000")]);
        assert!(c(&bulk) < c(&inserted));
        // Inserts with a 50/50 mix: twice the operations.
        let mix = p(&[
            ("index", "btree"),
            ("inserts", "1000"),
            ("workload.insert", "0.5"),
            ("workload.search", "0.5"),
        ]);
        assert_eq!(measured_ops(&mix), 2000);
    }
}
