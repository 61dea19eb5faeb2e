//! The Batch Processing Buffer (Roh et al. 2009 §4.2.1): a fixed array of
//! task entries, sorted by entry and then creation time, allocated whole
//! when the tree is built, so what the index counts for it (its capacity
//! in TEs, entry and flag) is what it holds. A TE is an entry and the flag
//! I/D, kept as two parallel arrays (16 + 1 bytes a TE): no creation time
//! is stored, since a TE goes in after every TE of the same entry and the
//! array's order is then the creation order. (§4.2.2's rules leave at most
//! a D then an I of one entry.)
//!
//! Inserting into and removing from a sorted array moves the TEs after the
//! position, as the paper's buffer does; the array never reallocates while
//! the BPB holds at most its capacity and the one TE that starts a flush.

use std::ops::Range;

/// The BPB's task entries.
#[derive(Debug, Default)]
pub(super) struct Bpb {
    /// The entry (key, value) of each TE, ascending; TEs of one entry in
    /// creation order.
    entries: Vec<(u64, u64)>,
    /// Whether each TE is an insert (I) or a delete (D).
    inserts: Vec<bool>,
}

impl Bpb {
    /// An empty BPB with room for `capacity` TEs and the one that starts a
    /// flush (invariant 3 of `mod.rs`: the BPB passes its capacity only
    /// inside an operation).
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Bpb {
            entries: Vec::with_capacity(capacity + 1),
            inserts: Vec::with_capacity(capacity + 1),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where a new TE of `entry` goes: after every TE at or below it.
    fn after(&self, entry: (u64, u64)) -> usize {
        self.entries.partition_point(|&e| e <= entry)
    }

    /// The flag of the newest TE of `entry` (true: I), if any.
    pub(super) fn newest(&self, entry: (u64, u64)) -> Option<bool> {
        let end = self.after(entry);
        (end > 0 && self.entries[end - 1] == entry).then(|| self.inserts[end - 1])
    }

    /// Stores a TE as the newest of its entry.
    pub(super) fn push(&mut self, entry: (u64, u64), insert: bool) {
        if self.entries.len() == self.entries.capacity() {
            // Only after a flush failed and left the TE that started it:
            // one more, not a doubling.
            self.entries.reserve_exact(1);
            self.inserts.reserve_exact(1);
        }
        let at = self.after(entry);
        self.entries.insert(at, entry);
        self.inserts.insert(at, insert);
    }

    /// Removes the newest TE of `entry` when its flag is `insert`; whether
    /// it did.
    pub(super) fn remove_newest(&mut self, entry: (u64, u64), insert: bool) -> bool {
        if self.newest(entry) != Some(insert) {
            return false;
        }
        let at = self.after(entry) - 1;
        self.entries.remove(at);
        self.inserts.remove(at);
        true
    }

    /// Positions of the TEs whose entries are at or above `lo` and below
    /// `hi` (no bound: to the end).
    pub(super) fn span(&self, lo: (u64, u64), hi: Option<(u64, u64)>) -> Range<usize> {
        let start = self.entries.partition_point(|&e| e < lo);
        let end = hi.map_or(self.entries.len(), |h| {
            self.entries.partition_point(|&e| e < h)
        });
        start..end.max(start)
    }

    /// Positions of the TEs whose keys lie in `lo ..= hi`.
    pub(super) fn with_keys(&self, lo: u64, hi: u64) -> Range<usize> {
        let start = self.entries.partition_point(|&(k, _)| k < lo);
        let end = self.entries.partition_point(|&(k, _)| k <= hi);
        start..end.max(start)
    }

    /// The TEs at `span`, in order: (entry, I?).
    pub(super) fn at(&self, span: Range<usize>) -> impl Iterator<Item = ((u64, u64), bool)> + '_ {
        self.entries[span.clone()]
            .iter()
            .copied()
            .zip(self.inserts[span].iter().copied())
    }

    /// Drops the TEs at `span` (an applied FTES).
    pub(super) fn remove(&mut self, span: Range<usize>) {
        self.entries.drain(span.clone());
        self.inserts.drain(span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tes_stay_sorted_by_entry_then_creation_and_never_reallocate() {
        let mut b = Bpb::with_capacity(4);
        let cap = b.entries.capacity();
        b.push((9, 1), true);
        b.push((2, 7), false);
        b.push((2, 7), true);
        b.push((2, 3), true);
        b.push((5, 0), true);
        assert_eq!(b.entries.capacity(), cap, "capacity + 1 TEs fit");
        let all: Vec<_> = b.at(0..b.len()).collect();
        assert_eq!(
            all,
            vec![
                ((2, 3), true),
                ((2, 7), false),
                ((2, 7), true),
                ((5, 0), true),
                ((9, 1), true)
            ]
        );
        assert_eq!(b.newest((2, 7)), Some(true));
        assert_eq!(b.newest((2, 8)), None);
        assert!(!b.remove_newest((2, 7), false), "the newest is the I");
        assert!(b.remove_newest((2, 7), true));
        assert_eq!(b.newest((2, 7)), Some(false));
        assert_eq!(b.span((2, 4), Some((9, 0))), 1..3);
        assert_eq!(b.span((3, 0), None), 2..4);
        assert_eq!(b.with_keys(2, 5), 0..3);
        assert_eq!(b.with_keys(6, 8), 3..3);
        b.remove(0..2);
        let left: Vec<_> = b.at(0..b.len()).map(|(e, _)| e).collect();
        assert_eq!(left, vec![(5, 0), (9, 1)]);
    }
}
