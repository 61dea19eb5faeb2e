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
//! **Two sorted runs in the one array.** Inserting each TE at its place
//! in one sorted array moves every TE after it: with the hundreds of
//! thousands of TEs a budget of megabytes holds, that memmove was nearly
//! all of an insert's time (issue #45: 70% of a `peers` run). So the
//! array is a *settled* run (positions `0..settled`) followed by a short
//! *recent* run (`settled..len`), each sorted by entry and then creation:
//! a new TE goes into the recent run (moving at most its few TEs), and
//! when that run passes `recent_max` (√capacity) it is merged into the
//! settled one in place by rotations (no extra memory: O(settled +
//! recent²) moves, once every `recent_max` TEs). A recent TE is newer
//! than every settled TE of its entry, so the two runs merged (settled
//! first on a tie) are exactly the paper's one sorted array: every
//! answer, and the flush that settles both runs first ([`Bpb::settle`]),
//! is the same as with one array, and so are the device's counts.
//!
//! With versions of keys (`versions=key`, `mod.rs`) the BPB holds at most
//! one TE per key ([`Bpb::of_key`], [`Bpb::replace`]); the order is the
//! same.
//!
//! Removing a span moves the TEs after it, as the paper's buffer does; the
//! array never reallocates while the BPB holds at most its capacity and
//! the one TE that starts a flush.

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

    /// The first position in `within` whose entry does not satisfy
    /// `below` (entries that do come first there).
    fn partition_point(&self, within: Range<usize>, below: impl Fn((u64, u64)) -> bool) -> usize {
        let start = within.start;
        start
            + match self {
                Entries::Packed { words, value_bits } => {
                    words[within].partition_point(|&w| below(unpack(w, *value_bits)))
                }
                Entries::Wide(v) => v[within].partition_point(|&e| below(e)),
            }
    }

    fn set(&mut self, at: usize, e: (u64, u64)) {
        match self {
            Entries::Packed { words, value_bits } => words[at] = pack(e, *value_bits),
            Entries::Wide(v) => v[at] = e,
        }
    }

    fn rotate_left(&mut self, span: Range<usize>, by: usize) {
        match self {
            Entries::Packed { words, .. } => words[span].rotate_left(by),
            Entries::Wide(v) => v[span].rotate_left(by),
        }
    }

    fn insert(&mut self, at: usize, e: (u64, u64)) {
        match self {
            Entries::Packed { words, value_bits } => words.insert(at, pack(e, *value_bits)),
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

fn pack(e: (u64, u64), value_bits: u32) -> u64 {
    (e.0 << value_bits) | e.1
}

fn unpack(word: u64, value_bits: u32) -> (u64, u64) {
    (word >> value_bits, word & ((1u64 << value_bits) - 1))
}

/// The BPB's task entries.
#[derive(Debug)]
pub(super) struct Bpb {
    /// The entry (key, value) of each TE: the settled run, then the recent
    /// run, each ascending with the TEs of one entry in creation order
    /// (module doc).
    entries: Entries,
    /// Whether each TE is an insert (I) or a delete (D).
    inserts: Vec<bool>,
    /// Where the recent run starts.
    settled: usize,
    /// The recent run's length that merges it into the settled run.
    recent_max: usize,
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
            settled: 0,
            // √capacity balances a merge's moves (the settled run, once
            // every `recent_max` TEs) against an insert's (the recent run).
            recent_max: capacity.isqrt().max(16),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    fn settled_run(&self) -> Range<usize> {
        0..self.settled
    }

    fn recent_run(&self) -> Range<usize> {
        self.settled..self.len()
    }

    /// The position of the newest TE of `entry`, if any: in the recent
    /// run, else in the settled one.
    fn newest_at(&self, entry: (u64, u64)) -> Option<usize> {
        [self.recent_run(), self.settled_run()]
            .into_iter()
            .find_map(|run| {
                let end = self.entries.partition_point(run.clone(), |e| e <= entry);
                (end > run.start && self.entries.get(end - 1) == entry).then(|| end - 1)
            })
    }

    /// The flag of the newest TE of `entry` (true: I), if any.
    pub(super) fn newest(&self, entry: (u64, u64)) -> Option<bool> {
        self.newest_at(entry).map(|at| self.inserts[at])
    }

    /// With versions of keys (at most one TE a key): the position of the
    /// TE of `key`, if any.
    pub(super) fn of_key(&self, key: u64) -> Option<usize> {
        [self.recent_run(), self.settled_run()]
            .into_iter()
            .find_map(|run| {
                let at = self.entries.partition_point(run.clone(), |e| e.0 < key);
                (at < run.end && self.entries.get(at).0 == key).then_some(at)
            })
    }

    /// The TE at position `at` (from [`Bpb::of_key`]): (entry, I?).
    pub(super) fn te(&self, at: usize) -> ((u64, u64), bool) {
        (self.entries.get(at), self.inserts[at])
    }

    /// Replaces the TE at `at` by one of an entry of the same key, when no
    /// other TE has that key (versions of keys): its place in the order
    /// stays the same.
    pub(super) fn replace(&mut self, at: usize, entry: (u64, u64), insert: bool) {
        debug_assert_eq!(self.entries.get(at).0, entry.0);
        self.entries.set(at, entry);
        self.inserts[at] = insert;
    }

    /// Stores a TE as the newest of its entry.
    pub(super) fn push(&mut self, entry: (u64, u64), insert: bool) {
        if self.entries.len() == self.entries.capacity() {
            // Only after a flush failed and left the TE that started it:
            // one more, not a doubling.
            self.entries.reserve_exact(1);
            self.inserts.reserve_exact(1);
        }
        let at = self
            .entries
            .partition_point(self.recent_run(), |e| e <= entry);
        self.entries.insert(at, entry);
        self.inserts.insert(at, insert);
        if self.len() - self.settled > self.recent_max {
            self.settle();
        }
    }

    /// Removes the newest TE of `entry` when its flag is `insert`; whether
    /// it did.
    pub(super) fn remove_newest(&mut self, entry: (u64, u64), insert: bool) -> bool {
        match self.newest_at(entry) {
            Some(at) if self.inserts[at] == insert => {
                self.remove_at(at);
                true
            }
            _ => false,
        }
    }

    /// Removes the TE at `at`.
    pub(super) fn remove_at(&mut self, at: usize) {
        self.entries.remove(at..at + 1);
        self.inserts.remove(at);
        if at < self.settled {
            self.settled -= 1;
        }
    }

    /// Merges the recent run into the settled one, in place: from the back,
    /// each recent TE and the settled TEs above it trade places by one
    /// rotation (a recent TE goes after the settled TEs of its entry, being
    /// newer).
    pub(super) fn settle(&mut self) {
        let mut high = self.settled;
        let mut left = self.len() - self.settled;
        while left > 0 {
            // Settled TEs `0..high`, then the recent TEs still to place,
            // `high..high + left`, then the merged tail.
            let last = self.entries.get(high + left - 1);
            let to = self.entries.partition_point(0..high, |e| e <= last);
            if to < high {
                let span = to..high + left;
                self.entries.rotate_left(span.clone(), high - to);
                self.inserts[span].rotate_left(high - to);
            }
            high = to;
            left -= 1;
        }
        self.settled = self.len();
    }

    /// Positions of the TEs whose entries are at or above `lo` and below
    /// `hi` (no bound: to the end), in the settled BPB.
    pub(super) fn span(&self, lo: (u64, u64), hi: Option<(u64, u64)>) -> Range<usize> {
        debug_assert_eq!(self.settled, self.len(), "settle first");
        let all = 0..self.len();
        let start = self.entries.partition_point(all.clone(), |e| e < lo);
        let end = hi.map_or(self.entries.len(), |h| {
            self.entries.partition_point(all, |e| e < h)
        });
        start..end.max(start)
    }

    /// Where in `span` (of the settled BPB) the TEs below `bound` end.
    pub(super) fn below(&self, span: Range<usize>, bound: (u64, u64)) -> usize {
        debug_assert_eq!(self.settled, self.len(), "settle first");
        self.entries.partition_point(span, |e| e < bound)
    }

    /// The TEs whose keys lie in `lo ..= hi`, in order (both runs merged):
    /// (entry, I?).
    pub(super) fn with_keys(
        &self,
        lo: u64,
        hi: u64,
    ) -> impl Iterator<Item = ((u64, u64), bool)> + '_ {
        let keys = |run: Range<usize>| {
            let start = self.entries.partition_point(run.clone(), |(k, _)| k < lo);
            let end = self
                .entries
                .partition_point(start..run.end, |(k, _)| k <= hi);
            start..end
        };
        let (mut old, mut new) = (keys(self.settled_run()), keys(self.recent_run()));
        std::iter::from_fn(move || {
            let take_new = match (old.clone().next(), new.clone().next()) {
                (None, None) => return None,
                (Some(o), Some(n)) => self.entries.get(n) < self.entries.get(o),
                (o, _) => o.is_none(),
            };
            let at = if take_new { new.next() } else { old.next() }?;
            Some(self.te(at))
        })
    }

    /// Every TE, in order (both runs merged).
    #[cfg(test)]
    pub(super) fn all(&self) -> Vec<((u64, u64), bool)> {
        self.with_keys(0, u64::MAX).collect()
    }

    /// The TEs at `span` of the settled BPB, in order: (entry, I?).
    pub(super) fn at(&self, span: Range<usize>) -> impl Iterator<Item = ((u64, u64), bool)> + '_ {
        debug_assert_eq!(self.settled, self.len(), "settle first");
        span.map(|i| self.te(i))
    }

    /// Drops the TEs at `span` of the settled BPB (an applied FTES).
    pub(super) fn remove(&mut self, span: Range<usize>) {
        debug_assert_eq!(self.settled, self.len(), "settle first");
        self.settled -= span.len();
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
        assert_eq!(
            b.all(),
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
        b.settle();
        assert_eq!(b.span((2, 4), Some((9, 0))), 1..3);
        assert_eq!(b.span((3, 0), None), 2..4);
        assert_eq!(b.below(0..4, (5, 0)), 2);
        let keys = |b: &Bpb, lo, hi| b.with_keys(lo, hi).map(|(e, _)| e).collect::<Vec<_>>();
        assert_eq!(keys(&b, 2, 5), vec![(2, 3), (2, 7), (5, 0)]);
        assert_eq!(keys(&b, 6, 8), vec![]);
        b.remove(0..2);
        assert_eq!(keys(&b, 0, u64::MAX), vec![(5, 0), (9, 1)]);
    }

    /// The settled and recent runs answer as the one sorted array of the
    /// paper: a model of (entry, creation) pairs under pushes, removals,
    /// replacements and settles, with a tiny recent run so merges are many.
    #[test]
    fn two_runs_answer_as_one_sorted_array() {
        let format = EntryFormat::new(4, 4).unwrap();
        let mut b = Bpb::with_capacity(400, format);
        b.recent_max = 5;
        let mut model: Vec<((u64, u64), u64, bool)> = Vec::new();
        let mut x = 7u64;
        for time in 0..3000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let entry = ((x >> 33) % 40, (x >> 20) % 3);
            match x % 11 {
                0..=6 if model.len() < 300 => {
                    let insert = x.is_multiple_of(2);
                    b.push(entry, insert);
                    model.push((entry, time, insert));
                }
                7 | 8 => {
                    let insert = x % 4 < 2;
                    let newest = model.iter().rposition(|t| t.0 == entry);
                    let want = newest.is_some_and(|i| model[i].2 == insert);
                    assert_eq!(b.remove_newest(entry, insert), want);
                    if want {
                        model.remove(newest.unwrap());
                    }
                }
                9 => b.settle(),
                _ => {
                    b.settle();
                    let span = b.span((entry.0, 0), Some((entry.0 + 5, 0)));
                    let n = span.len();
                    b.remove(span);
                    let from = model.iter().filter(|t| t.0 < (entry.0, 0)).count();
                    let mut sorted = model.clone();
                    sorted.sort_by_key(|t| (t.0, t.1));
                    sorted.drain(from..from + n);
                    model = sorted;
                }
            }
            model.sort_by_key(|t| (t.0, t.1));
            let want: Vec<_> = model.iter().map(|t| (t.0, t.2)).collect();
            assert_eq!(b.all(), want, "step {time}");
            assert_eq!(
                b.newest(entry),
                model.iter().rev().find(|t| t.0 == entry).map(|t| t.2)
            );
        }
    }

    #[test]
    fn one_te_a_key_is_replaced_in_place() {
        let mut b = Bpb::with_capacity(64, EntryFormat::new(8, 8).unwrap());
        for k in [5u64, 1, 9] {
            b.push((k, 100 + k), true);
        }
        b.settle();
        b.push((3, 0), true);
        let at = b.of_key(9).unwrap();
        b.replace(at, (9, 1), false);
        let at = b.of_key(3).unwrap();
        assert_eq!(b.te(at), ((3, 0), true));
        b.replace(at, (3, u64::MAX), true);
        assert_eq!(b.of_key(4), None);
        assert_eq!(
            b.all(),
            vec![
                ((1, 101), true),
                ((3, u64::MAX), true),
                ((5, 105), true),
                ((9, 1), false)
            ]
        );
    }
}
