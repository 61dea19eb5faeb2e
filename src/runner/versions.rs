//! The harnesses' workloads and oracle for an index of *versions of keys*
//! (`versions=key`, `Index::versions_by_key`): a map, whose unit of
//! versioning is the key.
//!
//! The crash, fault, double-fault and damage harnesses (`runner::crash`,
//! `runner::fault`, `runner::double_fault`, `runner::damage`) test an
//! index created with `versions=key` under map semantics: their workloads
//! then write with upserts (`Index::upsert`, blind), many of them of a
//! live key, so that a key's newer version must shadow its older one across
//! flushes, merges and the write-ahead log's replay; deletes name a key's
//! current pair (and, in the crash workload, now and then a pair the key
//! held before, which must change nothing); lookups must answer the one
//! current value. Without `versions=key` the workloads are the papers' set
//! of pairs, op for op what they were before this module existed.
//!
//! The oracle stays a set of (key, value) pairs, which under these
//! workloads never holds two pairs of one key: an upsert of `(k, v)`
//! removes every `(k, *)` and inserts `(k, v)` ([`upsert`]), so a crash's
//! prefix states, a fault's flush images and a damaged image's answers
//! are judged as for a set of pairs.

use std::collections::{BTreeSet, HashMap};

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::index::Params;

/// Whether the index parameters `params` (`K=V`) ask for versions of keys;
/// a malformed list or value is left to the index to refuse (false).
pub fn by_key(params: &[String]) -> bool {
    Params::parse(params.iter().map(String::as_str))
        .and_then(|mut p| p.versions_by_key())
        .unwrap_or(false)
}

/// The oracle of an upsert: every pair of `key` goes, `(key, value)` comes.
pub fn upsert(state: &mut BTreeSet<(u64, u64)>, key: u64, value: u64) {
    let old: Vec<(u64, u64)> = state.range((key, 0)..=(key, u64::MAX)).copied().collect();
    for pair in old {
        state.remove(&pair);
    }
    state.insert((key, value));
}

/// The live keys of a versions workload as it is generated, each with its
/// current value, and the pairs keys held before (stale: a delete of one
/// must find nothing).
#[derive(Default)]
pub(super) struct LiveKeys {
    /// (key, current value), in no order; `at` gives a key's place.
    live: Vec<(u64, u64)>,
    at: HashMap<u64, usize>,
    stale: Vec<(u64, u64)>,
}

impl LiveKeys {
    /// The keys of `pairs` live (a bulk load's or a preload's: no key
    /// repeats).
    pub(super) fn new(pairs: impl Iterator<Item = (u64, u64)>) -> Self {
        let mut keys = LiveKeys::default();
        for (k, v) in pairs {
            keys.set(k, v);
        }
        keys
    }

    /// A seeded choice of a live key's pair.
    pub(super) fn pick(&self, rng: &mut Xoshiro256PlusPlus) -> Option<(u64, u64)> {
        if self.live.is_empty() {
            return None;
        }
        Some(self.live[rng.random_range(0..self.live.len())])
    }

    /// A seeded choice of a pair some key held before.
    pub(super) fn pick_stale(&self, rng: &mut Xoshiro256PlusPlus) -> Option<(u64, u64)> {
        if self.stale.is_empty() {
            return None;
        }
        Some(self.stale[rng.random_range(0..self.stale.len())])
    }

    /// `key` holds `value` from now on (an upsert, or an update of its
    /// current pair).
    pub(super) fn set(&mut self, key: u64, value: u64) {
        match self.at.get(&key) {
            Some(&i) => {
                self.stale.push(self.live[i]);
                self.live[i].1 = value;
            }
            None => {
                self.at.insert(key, self.live.len());
                self.live.push((key, value));
            }
        }
    }

    /// `key` is deleted (its current pair becomes stale).
    pub(super) fn remove(&mut self, key: u64) {
        let Some(i) = self.at.remove(&key) else {
            return;
        };
        self.stale.push(self.live.swap_remove(i));
        if let Some(&(moved, _)) = self.live.get(i) {
            self.at.insert(moved, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn an_upsert_leaves_one_pair_of_its_key() {
        let mut s: BTreeSet<(u64, u64)> = [(1, 1), (2, 5), (2, 7), (3, 3)].into();
        upsert(&mut s, 2, 9);
        assert_eq!(s, [(1, 1), (2, 9), (3, 3)].into());
        upsert(&mut s, 4, 4);
        assert!(s.contains(&(4, 4)) && s.len() == 4);
    }

    #[test]
    fn live_keys_follow_upserts_and_deletes() {
        let mut keys = LiveKeys::new([(10, 0), (20, 0)].into_iter());
        keys.set(10, 1);
        keys.remove(20);
        keys.set(30, 2);
        keys.remove(10);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..20 {
            assert_eq!(keys.pick(&mut rng), Some((30, 2)));
            let stale = keys.pick_stale(&mut rng).unwrap();
            assert!([(10, 0), (20, 0), (10, 1)].contains(&stale), "{stale:?}");
        }
        keys.remove(30);
        assert!(keys.pick(&mut rng).is_none());
    }

    #[test]
    fn the_switch_is_read_from_the_parameters() {
        let p = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(by_key(&p(&["ratio=4", "versions=key"])));
        assert!(!by_key(&p(&["versions=pair"])));
        assert!(!by_key(&p(&[])));
        assert!(!by_key(&p(&["versions=maybe"])));
    }
}
