//! What the runner charges an operation with: the device's counters
//! between two snapshots, summed by kind ([`Accum`]), the integer ones once
//! a run of one kind ([`KindRun`]), the floats operation by operation in
//! the order the operations ran, so that every sum is the one charging
//! each operation alone gives, to the bit.

use hdrhistogram::Histogram;

use super::report::{Latency, OpCost};
use crate::device::ChargedStats;

pub(super) struct Accum {
    stats: ChargedStats,
    pub(super) count: u64,
    hist: Histogram<u64>,
    /// Latencies not yet in `hist`, as (the bits of the time in µs, times),
    /// in the slot a hash of the bits picks or the one beside it:
    /// operations of a kind take few distinct times (sums of the cost
    /// model's fixed charges), and recording one into the histogram each
    /// time was a tenth of the runner's work per operation. Keyed by the
    /// time itself, a repeated one is counted without being rounded to
    /// tenths: it is rounded when recorded, to the value it would have had
    /// then. `record_n(v, n)` counts exactly what `n` × `record(v)` do, in
    /// any order; [`Accum::settle`] empties it.
    pending: [(u64, u64); PENDING],
}

/// A power of two.
const PENDING: usize = 32;

/// The slot of a time's bits in `Accum::pending` (its neighbour, `^ 1`, is
/// the other one it may take): the top bits of a multiplicative hash,
/// which every bit of the time moves (a time's low bits are often zero).
#[inline(always)]
fn slot(bits: u64) -> usize {
    (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PENDING.trailing_zeros())) as usize
}

/// The histogram's value of a time in µs: tenths of a microsecond, which
/// keep sub-µs byte-level costs visible.
fn tenths(time_us: f64) -> u64 {
    round_to_u64(time_us * 10.0)
}

/// `x.max(0.0).round() as u64`, without the library call `round` is on
/// x86_64's baseline: below 2^52 the fraction `x − ⌊x⌋` is exact, so
/// rounding half away from zero is a compare; above, every double is an
/// integer. Below 2^52 (and not below 0) the conversions through `i64`
/// are exact and single instructions, where those of `u64` are not.
#[inline]
fn round_to_u64(x: f64) -> u64 {
    let x = x.max(0.0);
    if x < 4_503_599_627_370_496.0 {
        let t = x as i64;
        (t + (x - t as f64 >= 0.5) as i64) as u64
    } else {
        x as u64
    }
}

impl Accum {
    pub(super) fn new() -> Self {
        Accum {
            stats: ChargedStats::default(),
            count: 0,
            // Invariant: 3 significant figures is a valid precision.
            hist: Histogram::new(3).expect("valid histogram precision"),
            pending: [(0, 0); PENDING],
        }
    }

    /// Moves the pending latencies into the histogram.
    pub(super) fn settle(&mut self) {
        for (bits, n) in std::mem::replace(&mut self.pending, [(0, 0); PENDING]) {
            if n > 0 {
                let _ = self.hist.record_n(tenths(f64::from_bits(bits)), n);
            }
        }
    }

    /// Charges one operation (or flush): what the device did between
    /// `before` and `after`. The same subtractions `DeviceStats::delta`
    /// makes, of only the fields kept, and no delta built.
    pub(super) fn add(&mut self, after: &ChargedStats, before: &ChargedStats) {
        self.add_counts(after, before);
        self.add_times(after, before);
    }

    /// Charges the integer counters of what the device did between
    /// `before` and `after`: one operation's, or a [`KindRun`]'s.
    #[inline(always)]
    fn add_counts(&mut self, after: &ChargedStats, before: &ChargedStats) {
        let s = &mut self.stats;
        s.logical_reads += after.logical_reads - before.logical_reads;
        s.logical_writes += after.logical_writes - before.logical_writes;
        s.physical_reads += after.physical_reads - before.physical_reads;
        s.physical_writes += after.physical_writes - before.physical_writes;
        s.erases += after.erases - before.erases;
        s.gc_copies += after.gc_copies - before.gc_copies;
        s.durability_writes += after.durability_writes - before.durability_writes;
    }

    /// Charges one operation's times and energy, its latency, and counts
    /// it: what runs once an operation.
    #[inline(always)]
    pub(super) fn add_times(&mut self, after: &ChargedStats, before: &ChargedStats) {
        let s = &mut self.stats;
        let time_us = after.time_us - before.time_us;
        s.time_us += time_us;
        s.read_time_us += after.read_time_us - before.read_time_us;
        s.write_time_us += after.write_time_us - before.write_time_us;
        s.energy_uj += after.energy_uj - before.energy_uj;
        self.count += 1;
        let bits = time_us.to_bits();
        let p = &mut self.pending[slot(bits)];
        if p.0 == bits {
            p.1 += 1;
        } else if p.1 == 0 {
            *p = (bits, 1);
        } else {
            self.pend_beside(bits);
        }
    }

    /// Counts a time whose slot holds another: in the slot beside it,
    /// which first records what it holds of another time.
    #[inline(never)]
    fn pend_beside(&mut self, bits: u64) {
        let p = &mut self.pending[slot(bits) ^ 1];
        if p.0 == bits {
            p.1 += 1;
            return;
        }
        if p.1 > 0 {
            let _ = self.hist.record_n(tenths(f64::from_bits(p.0)), p.1);
        }
        *p = (bits, 1);
    }

    pub(super) fn cost(&self) -> OpCost {
        debug_assert!(self.pending.iter().all(|p| p.1 == 0), "settle first");
        let n = self.count.max(1) as f64;
        let s = &self.stats;
        let q = |p: f64| self.hist.value_at_quantile(p) as f64 / 10.0;
        OpCost {
            count: self.count,
            page_reads: s.physical_reads,
            page_writes: s.physical_writes,
            logical_reads: s.logical_reads,
            logical_writes: s.logical_writes,
            erases: s.erases,
            gc_copies: s.gc_copies,
            durability_writes: s.durability_writes,
            time_us: s.time_us,
            read_time_us: s.read_time_us,
            write_time_us: s.write_time_us,
            energy_uj: s.energy_uj,
            page_reads_per_op: s.physical_reads as f64 / n,
            page_writes_per_op: s.physical_writes as f64 / n,
            time_us_per_op: s.time_us / n,
            energy_uj_per_op: s.energy_uj / n,
            latency_us: Latency {
                p50: q(0.5),
                p99: q(0.99),
                max: self.hist.max() as f64 / 10.0,
            },
        }
    }
}

/// The measured operations since the kind last changed (or the last
/// flush): their integer counters are charged as one difference when the
/// run ends, exactly the sum of their own (integer differences telescope).
/// Times and energy are floats, whose sum depends on the order of the
/// additions: they are charged operation by operation (`Accum::add_times`).
#[derive(Default)]
pub(super) struct KindRun {
    kind: Option<usize>,
    /// The counters when the run began.
    start: ChargedStats,
}

impl KindRun {
    /// Makes an operation of `kind`, which began at counters `before`,
    /// part of the run, first ending a run of another kind there.
    #[inline(always)]
    pub(super) fn enter(
        &mut self,
        kind: usize,
        before: &ChargedStats,
        accums: &mut [Option<Accum>],
    ) {
        if self.kind != Some(kind) {
            self.end(before, accums);
            self.kind = Some(kind);
            self.start = *before;
        }
    }

    /// Ends the run at counters `end`, charging it to its kind. Out of
    /// line: it runs when the kind changes, and in line the compiler kept
    /// the run's start in registers, negated again every operation.
    #[inline(never)]
    pub(super) fn end(&mut self, end: &ChargedStats, accums: &mut [Option<Accum>]) {
        if let Some(a) = self.kind.take().and_then(|k| accums[k].as_mut()) {
            a.add_counts(end, &self.start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_u64_is_round() {
        let edges = [
            0.0,
            -0.0,
            -3.5,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9_007_199_254_740_993.0,
            1e30,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut x = 1u64;
        let randoms = (0..100_000).map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 20) as f64
        });
        for v in edges.into_iter().chain(randoms) {
            assert_eq!(round_to_u64(v), v.max(0.0).round() as u64, "{v}");
        }
    }

    /// Charging a run's integer counters at its end (and at flushes) sums
    /// to what charging each operation did.
    #[test]
    fn kind_runs_charge_what_each_operation_would() {
        let mut x = 7u64;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) % m
        };
        let (mut by_op, mut by_run): ([Option<Accum>; 3], [Option<Accum>; 3]) = Default::default();
        let mut run = KindRun::default();
        let mut before = ChargedStats::default();
        for _ in 0..5_000 {
            let kind = next(3) as usize;
            let mut after = before;
            after.logical_reads += next(3);
            after.physical_writes += next(5);
            after.time_us += next(2_000) as f64 * 0.1;
            by_op[kind]
                .get_or_insert_with(Accum::new)
                .add(&after, &before);
            run.enter(kind, &before, &mut by_run);
            by_run[kind]
                .get_or_insert_with(Accum::new)
                .add_times(&after, &before);
            before = after;
            if next(50) == 0 {
                // A flush: its own work, charged to neither.
                run.end(&before, &mut by_run);
                before.physical_writes += next(9);
            }
        }
        run.end(&before, &mut by_run);
        for (a, b) in by_op.iter_mut().zip(&mut by_run) {
            let (a, b) = (a.as_mut().unwrap(), b.as_mut().unwrap());
            a.settle();
            b.settle();
            assert_eq!((a.stats, a.count, &a.hist), (b.stats, b.count, &b.hist));
        }
    }

    #[test]
    fn pending_latencies_give_the_histogram_of_single_records() {
        let mut a = Accum::new();
        let mut h = Histogram::<u64>::new(3).unwrap();
        for i in 0..10_000u64 {
            let d = ChargedStats {
                time_us: ((i * 7919) % 37) as f64 * 34.8,
                ..ChargedStats::default()
            };
            a.add(&d, &ChargedStats::default());
            h.record(round_to_u64(d.time_us * 10.0)).unwrap();
        }
        a.settle();
        assert_eq!(a.hist, h);
        // Many more distinct times than slots, some equal in tenths.
        let mut a = Accum::new();
        let mut h = Histogram::<u64>::new(3).unwrap();
        for i in 0..20_000u64 {
            let d = ChargedStats {
                time_us: (i.wrapping_mul(2_654_435_761) % 997) as f64 * 0.037,
                ..ChargedStats::default()
            };
            a.add(&d, &ChargedStats::default());
            h.record(round_to_u64(d.time_us * 10.0)).unwrap();
        }
        a.settle();
        assert_eq!(a.hist, h);
    }
}
