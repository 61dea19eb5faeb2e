//! The FTL's garbage-collection candidates: its sealed blocks, bucketed by
//! valid-page count.
//!
//! Once the FTL keeps these buckets (from its first garbage collection
//! on; before that it only counts valid pages, see [`super::ftl`]), every
//! host write invalidates the page it replaces, and so moves one sealed
//! block from bucket `v` to `v − 1`. An ordered set of
//! `(valid, block)` pairs costs two O(log n) tree updates per write, which
//! was the FTL's largest cost in `flashix bench`; here it is an unlink and a
//! link of an intrusive list. The ordering that greedy victim selection
//! needs (fewest valid pages, then the lowest block number) is recovered
//! when garbage collection asks for a victim: the lowest non-empty bucket
//! is found by a scan over at most `pages_per_block + 1` buckets, and its
//! lowest block by a walk of that bucket. Collections are rare next to
//! writes (one per `pages_per_block · (1 − u)` writes at utilisation `u`),
//! so the order is paid for where it is used.
//!
//! Invariants:
//! 1. A block is on at most one bucket's list, the one of the valid count
//!    it was last inserted or moved with.
//! 2. `next`/`prev` of a block on no list are `NIL`.

const NIL: u64 = u64::MAX;

/// Sealed blocks by valid-page count.
#[derive(Clone, Debug, Default)]
pub(crate) struct SealedBlocks {
    /// First block of each bucket (index: valid pages), or `NIL`.
    heads: Vec<u64>,
    /// Per block: neighbours on its bucket's list.
    next: Vec<u64>,
    prev: Vec<u64>,
}

impl SealedBlocks {
    /// Buckets for blocks of `pages_per_block` pages (valid counts
    /// `0..=pages_per_block`).
    pub fn new(pages_per_block: u64) -> Self {
        SealedBlocks {
            heads: vec![NIL; pages_per_block as usize + 1],
            next: Vec::new(),
            prev: Vec::new(),
        }
    }

    /// Adds `block`, which holds `valid` pages (and is on no list).
    pub fn insert(&mut self, block: u64, valid: u32) {
        let b = block as usize;
        if self.next.len() <= b {
            self.next.resize(b + 1, NIL);
            self.prev.resize(b + 1, NIL);
        }
        let v = valid as usize;
        if self.heads.len() <= v {
            self.heads.resize(v + 1, NIL);
        }
        let head = self.heads[v];
        self.next[b] = head;
        self.prev[b] = NIL;
        if head != NIL {
            self.prev[head as usize] = block;
        }
        self.heads[v] = block;
    }

    /// Removes `block`, inserted with `valid` pages.
    pub fn remove(&mut self, block: u64, valid: u32) {
        let b = block as usize;
        let (next, prev) = (self.next[b], self.prev[b]);
        if prev == NIL {
            self.heads[valid as usize] = next;
        } else {
            self.next[prev as usize] = next;
        }
        if next != NIL {
            self.prev[next as usize] = prev;
        }
        self.next[b] = NIL;
        self.prev[b] = NIL;
    }

    /// Moves `block` from the bucket of `from` valid pages to that of `to`.
    pub fn reclassify(&mut self, block: u64, from: u32, to: u32) {
        self.remove(block, from);
        self.insert(block, to);
    }

    /// Greedy's victim: among the blocks with the fewest valid pages, the
    /// lowest-numbered.
    pub fn fewest_valid(&self) -> Option<u64> {
        let v = self.heads.iter().position(|&h| h != NIL)?;
        self.bucket(v).min()
    }

    /// Every block with its valid count, in increasing valid count (within
    /// a count, in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        (0..self.heads.len()).flat_map(move |v| self.bucket(v).map(move |b| (v as u32, b)))
    }

    /// Whether `block` is on the list of `valid` pages.
    #[cfg(test)]
    pub fn contains(&self, block: u64, valid: u32) -> bool {
        self.bucket(valid as usize).any(|b| b == block)
    }

    fn bucket(&self, valid: usize) -> impl Iterator<Item = u64> + '_ {
        let mut at = self.heads.get(valid).copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            if at == NIL {
                return None;
            }
            let b = at;
            at = self.next[b as usize];
            Some(b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Against the ordered set it replaces: same members, same greedy
        /// victim, iteration in valid-count order.
        #[test]
        fn matches_an_ordered_set(ops in proptest::collection::vec((0u64..40, 0u32..=16, 0u8..3), 1..400)) {
            let mut sealed = SealedBlocks::new(16);
            let mut model: BTreeSet<(u32, u64)> = BTreeSet::new();
            let mut valid_of = std::collections::HashMap::new();
            for (block, valid, op) in ops {
                match (valid_of.get(&block).copied(), op) {
                    (None, _) => {
                        sealed.insert(block, valid);
                        model.insert((valid, block));
                        valid_of.insert(block, valid);
                    }
                    (Some(old), 0) => {
                        sealed.remove(block, old);
                        model.remove(&(old, block));
                        valid_of.remove(&block);
                    }
                    (Some(old), _) => {
                        sealed.reclassify(block, old, valid);
                        model.remove(&(old, block));
                        model.insert((valid, block));
                        valid_of.insert(block, valid);
                    }
                }
                prop_assert_eq!(sealed.fewest_valid(), model.iter().next().map(|&(_, b)| b));
                let mut listed: Vec<(u32, u64)> = sealed.iter().collect();
                prop_assert!(listed.windows(2).all(|w| w[0].0 <= w[1].0));
                listed.sort_unstable();
                prop_assert_eq!(listed, model.iter().copied().collect::<Vec<_>>());
            }
        }
    }
}
