//! The node cache's id index, apart from the cache's bookkeeping (which
//! holds it) for the file's length: it is only a map from node id to
//! record.

use crate::node::codec::NodeId;

/// An empty table entry's id, and a record field naming nothing.
pub(super) const NIL: u32 = u32::MAX;

/// Node id → slot: an open-addressing table (linear probing, deletion by
/// backward shift) of `(id, slot)` pairs, at most a quarter full, so it is as
/// large as the cache, not the id space: ids are dense from 0 in every
/// tree, and an array indexed by id holds 4 bytes for every node of the
/// tree whatever the cache holds (16 KiB for the first 4,096 ids, beside a
/// 16 KiB cache; issue #43).
pub(super) struct IdIndex {
    /// `(id, slot)`, `(NIL, _)` when empty; a power of two long, never
    /// empty (so a look-up needs no check first). The tests read its size.
    pub(super) table: Vec<(u32, u32)>,
    /// 64 less the table length's bits: the hash's shift.
    shift: u32,
    len: usize,
}

// Every function here is `#[inline]`, so this module makes no code unit of
// its own: the crate's code units (and so its inlining) are those of the
// cache in one file.
impl Default for IdIndex {
    #[inline]
    fn default() -> Self {
        let mut index = IdIndex {
            table: Vec::new(),
            shift: 64,
            len: 0,
        };
        index.grow();
        index
    }
}

/// The first position to probe for `id` in a table of `64 - shift` bits
/// (Fibonacci hashing).
#[inline(always)]
fn home(id: u32, shift: u32) -> usize {
    ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

impl IdIndex {
    /// The first position to probe for `id`.
    #[inline]
    fn home(&self, id: u32) -> usize {
        home(id, self.shift)
    }

    /// Where `id` is, or the empty position that ends its probe (`NIL`
    /// itself, never stored, ends at its home: absent).
    #[inline]
    fn find(&self, id: u32) -> (usize, bool) {
        let mask = self.table.len() - 1;
        // The mask keeps the home as it is (the shift leaves fewer bits),
        // and lets the compiler drop the bounds check of its load.
        let mut p = self.home(id) & mask;
        loop {
            match self.table[p].0 {
                NIL => return (p, false),
                k if k == id => return (p, true),
                _ => p = (p + 1) & mask,
            }
        }
    }

    /// `find`'s answer, tested once a probe (with `find`'s flag, the
    /// compiler tested each probe's key twice).
    #[inline]
    pub(super) fn get(&self, id: NodeId) -> Option<u32> {
        let mask = self.table.len() - 1;
        // The mask keeps the home as it is (the shift leaves fewer bits),
        // and lets the compiler drop the bounds check of its load.
        let mut p = self.home(id) & mask;
        loop {
            let (k, slot) = self.table[p];
            if k == NIL {
                return None;
            }
            if k == id {
                return Some(slot);
            }
            p = (p + 1) & mask;
        }
    }

    /// Maps `id` to `slot`; the slot it was mapped to before, if any.
    /// Inlined into `place`, on every insert's leaf.
    #[inline(always)]
    pub(super) fn insert(&mut self, id: NodeId, slot: u32) -> Option<u32> {
        // At most a quarter full: most lookups are of nodes the cache does
        // not hold (every leaf an operation reaches), and a miss probes to
        // the end of its run, which at half full took several steps.
        if (self.len + 1) * 4 > self.table.len() {
            self.grow();
        }
        let (p, found) = self.find(id);
        let before = found.then_some(self.table[p].1);
        if !found {
            self.len += 1;
        }
        self.table[p] = (id, slot);
        before
    }

    /// Doubles the table (8 positions at first) and rehashes.
    #[cold]
    #[inline]
    fn grow(&mut self) {
        let size = (self.table.len() * 2).max(8);
        let old = std::mem::replace(&mut self.table, vec![(NIL, 0); size]);
        self.shift = 64 - size.trailing_zeros();
        for (id, slot) in old.into_iter().filter(|e| e.0 != NIL) {
            let (p, _) = self.find(id);
            self.table[p] = (id, slot);
        }
    }

    #[inline]
    pub(super) fn remove(&mut self, id: NodeId) {
        self.remove_unless(id, |_| false);
    }

    /// Removes `id` unless `keep` holds for its slot.
    #[inline(always)]
    pub(super) fn remove_unless(&mut self, id: NodeId, keep: impl Fn(u32) -> bool) {
        let (mut hole, found) = self.find(id);
        let shift = self.shift;
        // On the slice, each entry read once: its bounds and the shift
        // stay in registers across the stores.
        let table = &mut self.table[..];
        if !found || keep(table[hole].1) {
            return;
        }
        self.len -= 1;
        // Backward shift: move up every later entry of the run whose home
        // is not between the hole and it, so no probe meets a false end.
        let mask = table.len() - 1;
        let mut p = (hole + 1) & mask;
        loop {
            let e = table[p];
            if e.0 == NIL {
                break;
            }
            let home = home(e.0, shift);
            if (p.wrapping_sub(home) & mask) >= (p.wrapping_sub(hole) & mask) {
                table[hole] = e;
                hole = p;
            }
            p = (p + 1) & mask;
        }
        table[hole] = (NIL, 0);
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }
}
