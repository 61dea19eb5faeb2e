//! Wear: how many times each erase block of a chip has been erased, what
//! a run added, and how long the chip lasts at that rate.
//!
//! A NAND block survives a limited number of program/erase cycles, its
//! *endurance* (Wu et al. 2003 §2.1: "a block of a typical NAND flash memory could
//! be erased for 1 million (10^6) times"; Roh et al. 2009 §1: "about
//! 10,000–1,000,000"); past it the block is bad ([`super::Flash`], rule 2).
//! Each chip profile states its endurance and where the figure comes from
//! (`super::profile`).
//!
//! * [`Wear`] is a snapshot of a chip: every block's erase count (the
//!   blocks never erased have none), with min / mean / max and a
//!   [`Histogram`] for reports. Only [`super::Nand`] makes one; every layer
//!   above forwards it.
//! * [`RunWear`] is what a phase of a run did, from two snapshots of the
//!   same chip: the erases of each block between them, over the operations
//!   of the phase.
//! * [`Lifetime`] projects a [`RunWear`] at a daily operation rate, from a
//!   new chip.
//!
//! **Who decides the lifetime.** A chip is worn out when its first block
//! is, so the block erased most often in the measured phase decides:
//! `days = endurance / (busiest block's erases per operation × operations
//! per day)`. That is the honest figure only because nothing here levels
//! wear: the FTL (`super::ftl`) collects garbage greedily (the block with
//! the fewest valid pages) and reuses erased blocks first in, first out,
//! so a block whose data stays valid is never erased and the few blocks
//! that hold short-lived data cycle through the free list again and again;
//! on a raw chip each index places its own data and none moves cold data
//! either. The even-wear figure (every erase spread over every block of
//! the chip: `endurance × blocks / (erases per operation × operations per
//! day)`) is reported beside it as what perfect wear leveling would reach,
//! never as the projection.
//!
//! Invariants:
//! 1. `Wear::erased` lists each block at most once, ascending, with a
//!    positive count; `min`, `mean`, `max` and `histogram` are computed
//!    from it and `blocks`.
//! 2. A histogram's buckets cover `0..=max` in equal widths, and their
//!    block counts sum to `blocks`.
//! 3. `RunWear::between(a, b)` counts `b`'s erases less `a`'s, block by
//!    block; a block cannot lose erases, so a later snapshot of the same
//!    chip never gives a negative count (a count that would is taken as 0).

use serde::Serialize;

/// Most buckets a [`Histogram`] has.
pub const HISTOGRAM_BUCKETS: u64 = 16;

/// Blocks by erase count, in buckets of equal width from 0 to the most.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Histogram {
    /// Erase counts per bucket: bucket `i` holds `i·width ..= (i+1)·width − 1`.
    pub width: u64,
    /// Blocks in each bucket.
    pub blocks: Vec<u64>,
}

impl Histogram {
    /// The histogram of `counts` (erase count per block listed) over
    /// `blocks` blocks, the unlisted ones at 0.
    fn of(counts: impl Iterator<Item = u64> + Clone, blocks: u64, max: u64) -> Histogram {
        let width = (max + 1).div_ceil(HISTOGRAM_BUCKETS).max(1);
        let mut buckets = vec![0u64; (max / width + 1) as usize];
        let mut listed = 0u64;
        for c in counts {
            buckets[(c / width) as usize] += 1;
            listed += 1;
        }
        buckets[0] += blocks.saturating_sub(listed);
        Histogram {
            width,
            blocks: buckets,
        }
    }
}

/// Erase counts over the blocks of a chip (invariant 1).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Wear {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
    /// Blocks of the chip.
    pub blocks: u64,
    /// Erases a block survives.
    pub endurance: u64,
    pub histogram: Histogram,
    /// `(block, erases)` of every block erased at least once, ascending by
    /// block: what [`RunWear::between`] diffs. Not in reports (a chip has
    /// thousands of blocks; the histogram says how they spread).
    #[serde(skip)]
    pub erased: Vec<(u64, u64)>,
}

impl Wear {
    /// The wear of a chip of `blocks` blocks whose erased blocks have the
    /// counts in `erased` (any order; zero counts are dropped).
    pub fn from_counts(blocks: u64, endurance: u64, mut erased: Vec<(u64, u64)>) -> Wear {
        erased.retain(|&(_, c)| c > 0);
        erased.sort_unstable();
        let total: u64 = erased.iter().map(|e| e.1).sum();
        let max = erased.iter().map(|e| e.1).max().unwrap_or(0);
        let min = if (erased.len() as u64) < blocks {
            0
        } else {
            erased.iter().map(|e| e.1).min().unwrap_or(0)
        };
        Wear {
            min,
            mean: if blocks == 0 {
                0.0
            } else {
                total as f64 / blocks as f64
            },
            max,
            blocks,
            endurance,
            histogram: Histogram::of(erased.iter().map(|e| e.1), blocks, max),
            erased,
        }
    }

    /// Erases of every block together.
    pub fn total(&self) -> u64 {
        self.erased.iter().map(|e| e.1).sum()
    }
}

/// The wear one phase of a run added (module doc).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunWear {
    /// Operations of the phase (the rates are per one of them).
    pub ops: u64,
    /// Block erases in the phase.
    pub erases: u64,
    pub erases_per_op: f64,
    /// Blocks of the chip and the erases each survives.
    pub blocks: u64,
    pub endurance: u64,
    /// The block erased most in the phase and its erases (`None`: no
    /// erase at all).
    pub busiest_block: Option<u64>,
    pub busiest_erases: u64,
    /// Erases per block in the phase: min, mean, max and histogram over
    /// every block of the chip.
    pub per_block: Wear,
}

impl RunWear {
    /// What happened to the chip between snapshots `before` and `after`
    /// over `ops` operations (invariant 3).
    pub fn between(before: &Wear, after: &Wear, ops: u64) -> RunWear {
        let mut delta = Vec::with_capacity(after.erased.len());
        let mut earlier = before.erased.iter().peekable();
        for &(block, count) in &after.erased {
            while earlier.peek().is_some_and(|e| e.0 < block) {
                earlier.next();
            }
            let was = match earlier.peek() {
                Some(&&(b, c)) if b == block => c,
                _ => 0,
            };
            delta.push((block, count.saturating_sub(was)));
        }
        let per_block = Wear::from_counts(after.blocks, after.endurance, delta);
        // The lowest-numbered of the busiest, so the report is stable.
        let busiest = per_block
            .erased
            .iter()
            .filter(|e| e.1 == per_block.max)
            .map(|e| e.0)
            .next();
        let erases = per_block.total();
        RunWear {
            ops,
            erases,
            erases_per_op: erases as f64 / ops.max(1) as f64,
            blocks: after.blocks,
            endurance: after.endurance,
            busiest_block: busiest,
            busiest_erases: per_block.max,
            per_block,
        }
    }

    /// Operations until the busiest block reaches the endurance, at the
    /// phase's rate; `None` when the phase erased nothing (wear does not
    /// limit it).
    pub fn ops_to_wear_out(&self) -> Option<f64> {
        (self.busiest_erases > 0)
            .then(|| self.endurance as f64 * self.ops as f64 / self.busiest_erases as f64)
    }

    /// [`Self::ops_to_wear_out`] with every erase spread evenly over every
    /// block: what perfect wear leveling would reach.
    pub fn ops_to_wear_out_evenly(&self) -> Option<f64> {
        (self.erases > 0).then(|| {
            self.endurance as f64 * self.blocks as f64 * self.ops as f64 / self.erases as f64
        })
    }

    /// The projection at `ops_per_day` operations a day.
    pub fn lifetime(&self, ops_per_day: f64) -> Lifetime {
        let days = |ops: Option<f64>| ops.map(|o| o / ops_per_day);
        Lifetime {
            ops_per_day,
            days: days(self.ops_to_wear_out()),
            days_even_wear: days(self.ops_to_wear_out_evenly()),
            basis_erases: self.busiest_erases,
        }
    }
}

/// Days until the chip wears out at a daily operation rate (module doc).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Lifetime {
    pub ops_per_day: f64,
    /// Until the busiest block reaches its endurance; `None`: the run
    /// erased no block, so wear sets no limit at this workload.
    pub days: Option<f64>,
    /// With every erase spread evenly (what wear leveling could reach).
    pub days_even_wear: Option<f64>,
    /// The busiest block's erases the projection rests on: a handful make
    /// it rough, and a longer run tightens it.
    pub basis_erases: u64,
}

/// Days in a year, for years of lifetime.
pub const DAYS_PER_YEAR: f64 = 365.25;

impl Lifetime {
    pub fn years(&self) -> Option<f64> {
        self.days.map(|d| d / DAYS_PER_YEAR)
    }

    pub fn years_even_wear(&self) -> Option<f64> {
        self.days_even_wear.map(|d| d / DAYS_PER_YEAR)
    }
}

/// What a device of report kind `kind` does about wear, for the lines
/// that print a projection.
pub fn leveling_note(kind: &str) -> &'static str {
    match kind {
        "ftl" => "the FTL does no wear leveling (greedy garbage collection, erased blocks reused first in, first out: a block whose data stays valid is never erased), so the busiest block decides",
        "raw" => "on a raw chip the index places its own data and none levels wear, so the busiest block decides",
        _ => "this device does not show its erase blocks",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wear_and_its_histogram_cover_every_block() {
        let w = Wear::from_counts(10, 100, vec![(3, 5), (1, 2), (7, 0), (9, 40)]);
        assert_eq!(w.erased, vec![(1, 2), (3, 5), (9, 40)]);
        assert_eq!((w.min, w.max, w.total()), (0, 40, 47));
        assert!((w.mean - 4.7).abs() < 1e-12);
        // 0..=40 in 16 buckets: width 3 (⌈41/16⌉), 14 buckets.
        assert_eq!(w.histogram.width, 3);
        assert_eq!(w.histogram.blocks.len(), 14);
        assert_eq!(w.histogram.blocks.iter().sum::<u64>(), 10);
        assert_eq!(w.histogram.blocks[0], 8, "seven at 0 and the one at 2");
        assert_eq!(w.histogram.blocks[1], 1, "5");
        assert_eq!(w.histogram.blocks[13], 1, "40");
        let all = Wear::from_counts(2, 100, vec![(0, 3), (1, 4)]);
        assert_eq!(
            (all.min, all.histogram.width, all.histogram.blocks.len()),
            (3, 1, 5)
        );
        let none = Wear::from_counts(4, 100, vec![]);
        assert_eq!((none.max, none.histogram.blocks.clone()), (0, vec![4]));
    }

    #[test]
    fn a_run_counts_each_blocks_own_erases_and_the_busiest_decides() {
        let before = Wear::from_counts(8, 1000, vec![(0, 50), (2, 1)]);
        let after = Wear::from_counts(8, 1000, vec![(0, 52), (2, 11), (5, 4)]);
        let run = RunWear::between(&before, &after, 200);
        assert_eq!(run.erases, 2 + 10 + 4);
        assert_eq!((run.busiest_block, run.busiest_erases), (Some(2), 10));
        // The busiest block reaches 1,000 erases after 1000 × 200 / 10
        // operations; even wear spreads 16 erases over 8 blocks.
        assert_eq!(run.ops_to_wear_out(), Some(20_000.0));
        assert_eq!(
            run.ops_to_wear_out_evenly(),
            Some(1000.0 * 8.0 * 200.0 / 16.0)
        );
        let l = run.lifetime(100.0);
        assert_eq!(l.days, Some(200.0));
        assert_eq!(l.days_even_wear, Some(1000.0));
        let idle = RunWear::between(&after, &after, 200);
        assert_eq!((idle.erases, idle.busiest_block), (0, None));
        assert_eq!(idle.lifetime(100.0).days, None);
    }
}
