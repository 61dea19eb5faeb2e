//! What every engine is given: the seeded key stream, the value each key
//! holds at each version, and the operations of the two workloads. One
//! module so that every engine sees the very same operations in the very
//! same order, whatever it is.

use crate::error::Res;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Workload {
    /// n random inserts, then n lookups of them in random order.
    InsertLookup,
    /// n random inserts, then n operations: 50% reads, 50% updates of
    /// inserted keys, uniformly chosen.
    YcsbA,
}

impl Workload {
    pub fn parse(s: &str) -> Res<Workload> {
        match s {
            "insert-lookup" => Ok(Workload::InsertLookup),
            "ycsb-a" => Ok(Workload::YcsbA),
            _ => Err(format!("unknown workload {s:?}").into()),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Workload::InsertLookup => "insert-lookup",
            Workload::YcsbA => "ycsb-a",
        }
    }
}

/// One operation of a write batch; a `Get` carries the value it expects.
#[derive(Clone, Copy)]
pub enum Op {
    Put(u64, u64),
    Get(u64, u64),
}

/// SplitMix64: the seeded key stream, the same for every engine.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed.wrapping_mul(0x1234_5678_9abc_def1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

pub fn value_of(key: u64, version: u64) -> u64 {
    key.rotate_left(17) ^ version
}

/// The load phase: every key inserted with its first value.
pub fn inserts(keys: &[u64]) -> Vec<Op> {
    keys.iter().map(|&k| Op::Put(k, value_of(k, 0))).collect()
}

/// insert-lookup's second phase: the inserted keys, with the values they
/// hold, in a random order (Fisher–Yates).
pub fn lookup_order(keys: &[u64], rng: &mut SplitMix) -> Vec<(u64, u64)> {
    let mut order: Vec<(u64, u64)> = keys.iter().map(|&k| (k, value_of(k, 0))).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// ycsb-a's second phase: `keys.len()` operations, each a read or an
/// update of a uniformly chosen key; also returns how many are updates.
pub fn ycsb_a(keys: &[u64], rng: &mut SplitMix) -> (Vec<Op>, u64) {
    let n = keys.len();
    // The latest value of every key, by index into `keys`.
    let mut version = vec![0u64; n];
    let mut updates = 0u64;
    let ops = (0..n)
        .map(|_| {
            let i = rng.below(n as u64) as usize;
            let k = keys[i];
            if rng.next() & 1 == 0 {
                Op::Get(k, value_of(k, version[i]))
            } else {
                version[i] += 1;
                updates += 1;
                Op::Put(k, value_of(k, version[i]))
            }
        })
        .collect();
    (ops, updates)
}
