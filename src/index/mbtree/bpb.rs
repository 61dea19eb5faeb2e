//! The Batch Processing Buffer (Roh et al. 2009 §4.2.1): a fixed array of
//! task entries, sorted by entry and then creation time, allocated whole
//! when the tree is built, so what the index counts for it (its capacity
//! times [`Bpb::te_bytes`]) is what it holds. A TE is an entry and the
//! flag I/D, kept as two parallel arrays: the entries packed into one
//! 8-byte word where key and value fit in it together (the MB-Tree
//! experiments' 4 + 4-byte entries: 9 bytes a TE, the entry's width on
//! flash and the flag), else as two words (17 bytes a TE). No creation
//! time is stored, since a TE goes in after every TE of the same entry
//! and the array's order is then the creation order. (§4.2.2's rules
//! leave at most a D then an I of one entry.)
//!
//! Inserting into and removing from a sorted array moves the TEs after the
//! position, as the paper's buffer does; the array never reallocates while
//! the BPB holds at most its capacity and the one TE that starts a flush.

use std::ops::Range;

use crate::index::EntryFormat;

/// The entries of the TEs, in one of two layouts (module doc). Packing
/// keeps the order: the key in the high bits, the value in the low
/// `value_bits`.
#[derive(Debug)]
enum Entries {
    Packed { words: Vec<u64>, value_bits: u32 },
    Wide(Vec<(u64, u64)>),
}

impl Entries {
    fn len(&self) -> usize {
        match self {
            Entries::Packed { words, .. } => words.len(),
            Entries::Wide(v) => v.len(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Entries::Packed { words, .. } => words.capacity(),
            Entries::Wide(v) => v.capacity(),
        }
    }

    fn reserve_exact(&mut self, n: usize) {
        match self {
            Entries::Packed { words, .. } => words.reserve_exact(n),
            Entries::Wide(v) => v.reserve_exact(n),
        }
    }

    fn get(&self, i: usize) -> (u64, u64) {
        match self {
            Entries::Packed { words, value_bits } => unpack(words[i], *value_bits),
            Entries::Wide(v) => v[i],
        }
    }

    /// The first position whose entry does not satisfy `below` (entries
    /// that do come first).
    fn partition_point(&self, below: impl Fn((u64, u64)) -> bool) -> usize {
        match self {
            Entries::Packed { words, value_bits } => {
                words.partition_point(|&w| below(unpack(w, *value_bits)))
            }
            Entries::Wide(v) => v.partition_point(|&e| below(e)),
        }
    }

    fn insert(&mut self, at: usize, e: (u64, u64)) {
        match self {
            Entries::Packed { words, value_bits } => words.insert(at, (e.0 << *value_bits) | e.1),
            Entries::Wide(v) => v.insert(at, e),
        }
    }

    fn remove(&mut self, span: Range<usize>) {
        match self {
            Entries::Packed { words, .. } => {
                words.drain(span);
            }
            Entries::Wide(v) => {
                v.drain(span);
            }
        }
    }
}

fn unpack(word: u64, value_bits: u32) -> (u64, u64) {
    (word >> value_bits, word & ((1u64 << value_bits) - 1))
}

/// The BPB's task entries.
#[derive(Debug)]
pub(super) struct Bpb {
    /// The entry (key, value) of each TE, ascending; TEs of one entry in
    /// creation order.
    entries: Entries,
    /// Whether each TE is an insert (I) or a delete (D).
    inserts: Vec<bool>,
}

impl Bpb {
    /// Bytes a TE holds in RAM for entries of `format`: the entry's word or
    /// two and the flag.
    pub(super) fn te_bytes(format: EntryFormat) -> usize {
        if packs(format) {
            size_of::<u64>() + size_of::<bool>()
        } else {
            2 * size_of::<u64>() + size_of::<bool>()
        }
    }

    /// An empty BPB for entries of `format` with room for `capacity` TEs
    /// and the one that starts a flush (invariant 3 of `mod.rs`: the BPB
    /// passes its capacity only inside an operation).
    pub(super) fn with_capacity(capacity: usize, format: EntryFormat) -> Self {
        let entries = if packs(format) {
            Entries::Packed {
                words: Vec::with_capacity(capacity + 1),
                value_bits: 8 * u32::from(format.value_bytes),
            }
        } else {
            Entries::Wide(Vec::with_capacity(capacity + 1))
        };
        Bpb {
            entries,
            inserts: Vec::with_capacity(capacity + 1),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    /// Where a new TE of `entry` goes: after every TE at or below it.
    fn after(&self, entry: (u64, u64)) -> usize {
        self.entries.partition_point(|e| e <= entry)
    }

    /// The flag of the newest TE of `entry` (true: I), if any.
    pub(super) fn newest(&self, entry: (u64, u64)) -> Option<bool> {
        let end = self.after(entry);
        (end > 0 && self.entries.get(end - 1) == entry).then(|| self.inserts[end - 1])
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
        self.remove(at..at + 1);
        true
    }

    /// Positions of the TEs whose entries are at or above `lo` and below
    /// `hi` (no bound: to the end).
    pub(super) fn span(&self, lo: (u64, u64), hi: Option<(u64, u64)>) -> Range<usize> {
        let start = self.entries.partition_point(|e| e < lo);
        let end = hi.map_or(self.entries.len(), |h| {
            self.entries.partition_point(|e| e < h)
        });
        start..end.max(start)
    }

    /// Positions of the TEs whose keys lie in `lo ..= hi`.
    pub(super) fn with_keys(&self, lo: u64, hi: u64) -> Range<usize> {
        let start = self.entries.partition_point(|(k, _)| k < lo);
        let end = self.entries.partition_point(|(k, _)| k <= hi);
        start..end.max(start)
    }

    /// The TEs at `span`, in order: (entry, I?).
    pub(super) fn at(&self, span: Range<usize>) -> impl Iterator<Item = ((u64, u64), bool)> + '_ {
        span.map(|i| (self.entries.get(i), self.inserts[i]))
    }

    /// Drops the TEs at `span` (an applied FTES).
    pub(super) fn remove(&mut self, span: Range<usize>) {
        self.entries.remove(span.clone());
        self.inserts.drain(span);
    }
}

/// Whether `format`'s key and value fit one word together.
fn packs(format: EntryFormat) -> bool {
    format.key_bytes as usize + format.value_bytes as usize <= size_of::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tes_stay_sorted_by_entry_then_creation_and_never_reallocate() {
        for format in [
            EntryFormat::new(4, 4).unwrap(),
            EntryFormat::new(8, 8).unwrap(),
        ] {
            check_layout(format);
        }
    }

    fn check_layout(format: EntryFormat) {
        let mut b = Bpb::with_capacity(4, format);
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
