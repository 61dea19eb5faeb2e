//! BFTL's node translation table (Wu et al. 2003 §3.4, Fig. 8) and its
//! sector bookkeeping, held at close to the paper's layout (issue #43):
//!
//! * per node a 4-byte head (where its list starts in one shared arena)
//!   and a 1-byte length (255: the length is kept in [`Ntt::long`], for
//!   the rare list past 254 sectors that a huge batch gives one node
//!   before the commit compacts it back under C);
//! * the lists' 4-byte LBAs in one arena (`Vec<u32>`). A list grows in
//!   place at the arena's end, else moves there and leaves a hole; the
//!   arena is compacted in place once the holes pass an eighth of it;
//! * per sector a 2-byte reference count (how many lists name it: at most
//!   Λ, checked at creation) and the free sectors' 4-byte LBAs.
//!
//! Every `Vec` here grows by an eighth, not by doubling, so what is held
//! stays within about an eighth of what is used; [`Ntt::held_bytes`] and
//! [`SectorRefs::held_bytes`] are what `memory_bytes` charges.
//!
//! LBAs are below [`LBA_LIMIT`] (2^31): the store uses no sector past it,
//! so the top bit of an arena slot is free to mark a list's start while
//! the arena is compacted.

use std::collections::BTreeMap;

use crate::node::NodeId;

/// The store addresses sectors `0..LBA_LIMIT` (a device larger than
/// 2^31 sectors, such as an unbounded file, is used up to there).
pub(in crate::index::bftl) const LBA_LIMIT: u64 = 1 << 31;

/// An arena slot no list uses.
const HOLE: u32 = u32::MAX;
/// While compacting: the slot starts the list of the node in the low bits
/// (node ids are below 2^30, LBAs below 2^31, so neither is ever tagged
/// and a tagged id is never [`HOLE`]).
const TAG: u32 = 1 << 31;
/// A per-node length byte meaning "see `long`".
const LONG: u8 = u8::MAX;

/// Reserves room for `more` elements past `v.len()`, growing by an eighth
/// (at least 16) when full: held stays within about an eighth of used
/// while a push still costs O(1) amortised.
fn grow<T>(v: &mut Vec<T>, more: usize) {
    let need = v.len() + more;
    if need > v.capacity() {
        let step = (v.capacity() / 8).max(16).max(need - v.capacity());
        v.reserve_exact(v.capacity() + step - v.len());
    }
}

/// The node translation table: node id → the LBAs of its sectors.
#[derive(Default)]
pub(in crate::index::bftl) struct Ntt {
    /// Per node: where its list starts in `arena`.
    heads: Vec<u32>,
    /// Per node: its list's length, [`LONG`] when 255 or more.
    lens: Vec<u8>,
    /// The lengths of lists of 255 sectors or more.
    long: BTreeMap<NodeId, u32>,
    /// Every list's LBAs; slots no list uses hold [`HOLE`].
    arena: Vec<u32>,
    /// Slots of `arena` holding [`HOLE`].
    holes: usize,
    /// Σ of the lists' lengths.
    total: usize,
}

impl Ntt {
    /// LBAs over all lists.
    pub(in crate::index::bftl) fn entries(&self) -> usize {
        self.total
    }

    /// The length of node `id`'s list.
    pub(in crate::index::bftl) fn len(&self, id: NodeId) -> usize {
        match self.lens.get(id as usize) {
            None | Some(0) => 0,
            Some(&LONG) => self.long.get(&id).map_or(0, |&n| n as usize),
            Some(&n) => n as usize,
        }
    }

    /// Node `id`'s list: its sectors' LBAs, oldest first.
    pub(in crate::index::bftl) fn list(&self, id: NodeId) -> &[u32] {
        let n = self.len(id);
        if n == 0 {
            return &[];
        }
        let h = self.heads[id as usize] as usize;
        &self.arena[h..h + n]
    }

    /// The longest list (O(nodes): for reports).
    pub(in crate::index::bftl) fn longest(&self) -> usize {
        let short = self
            .lens
            .iter()
            .filter(|&&n| n != LONG)
            .max()
            .map_or(0, |&n| n as usize);
        let long = self.long.values().max().map_or(0, |&n| n as usize);
        short.max(long)
    }

    fn set_len(&mut self, id: NodeId, n: usize) {
        if n >= LONG as usize {
            self.lens[id as usize] = LONG;
            // Invariant: lists are shorter than the sectors below
            // LBA_LIMIT, so the length fits a u32.
            self.long.insert(id, n as u32);
        } else {
            if self.lens[id as usize] == LONG {
                self.long.remove(&id);
            }
            self.lens[id as usize] = n as u8;
        }
    }

    /// Appends `lba` to node `id`'s list unless it ends with it already;
    /// whether it was appended.
    pub(in crate::index::bftl) fn push(&mut self, id: NodeId, lba: u32) -> bool {
        let idx = id as usize;
        if idx >= self.heads.len() {
            let more = idx + 1 - self.heads.len();
            grow(&mut self.heads, more);
            grow(&mut self.lens, more);
            self.heads.resize(idx + 1, 0);
            self.lens.resize(idx + 1, 0);
        }
        let n = self.len(id);
        let h = self.heads[idx] as usize;
        if n > 0 && self.arena[h + n - 1] == lba {
            return false;
        }
        if n == 0 || h + n != self.arena.len() {
            // Not at the arena's end: the list moves there.
            grow(&mut self.arena, n + 1);
            let at = self.arena.len();
            if n > 0 {
                self.arena.extend_from_within(h..h + n);
                self.arena[h..h + n].fill(HOLE);
                self.holes += n;
            }
            // Invariant: the arena holds fewer slots than 2^32 (each live
            // slot names a sector below LBA_LIMIT, compaction bounds the
            // holes).
            self.heads[idx] = at as u32;
        } else {
            grow(&mut self.arena, 1);
        }
        self.arena.push(lba);
        self.set_len(id, n + 1);
        self.total += 1;
        self.maybe_compact();
        true
    }

    /// Empties node `id`'s list.
    pub(in crate::index::bftl) fn clear(&mut self, id: NodeId) {
        let n = self.len(id);
        if n == 0 {
            return;
        }
        let h = self.heads[id as usize] as usize;
        if h + n == self.arena.len() {
            self.arena.truncate(h);
        } else {
            self.arena[h..h + n].fill(HOLE);
            self.holes += n;
        }
        self.set_len(id, 0);
        self.total -= n;
        self.maybe_compact();
    }

    /// Forgets every list.
    pub(in crate::index::bftl) fn reset(&mut self) {
        *self = Ntt::default();
    }

    /// Compacts the arena once the holes pass an eighth of it.
    fn maybe_compact(&mut self) {
        if self.holes > 0 && self.holes * 8 >= self.arena.len() {
            self.compact();
        }
    }

    /// Moves every list to the arena's front, in arena order, without a
    /// second copy: each list's first slot is swapped for its tagged node
    /// id (the LBA kept in the node's head meanwhile), so a walk of the
    /// arena finds whose list starts where.
    fn compact(&mut self) {
        for id in 0..self.heads.len() {
            if self.len(id as NodeId) > 0 {
                let h = self.heads[id] as usize;
                self.heads[id] = self.arena[h];
                self.arena[h] = TAG | id as u32;
            }
        }
        let (mut read, mut write) = (0, 0);
        while read < self.arena.len() {
            let slot = self.arena[read];
            if slot == HOLE {
                read += 1;
                continue;
            }
            // Invariant: a live slot outside a list's first is passed over
            // with its list below; the walk meets only holes and starts.
            let id = slot & !TAG;
            let n = self.len(id);
            self.arena.copy_within(read..read + n, write);
            self.arena[write] = self.heads[id as usize];
            self.heads[id as usize] = write as u32;
            read += n;
            write += n;
        }
        self.arena.truncate(write);
        self.holes = 0;
        let keep = write + write / 8 + 16;
        if self.arena.capacity() > keep {
            self.arena.shrink_to(keep);
        }
    }

    /// Heap bytes the table holds: the heads, the lengths, the long
    /// lengths (a `BTreeMap` entry with its share of a node, about 16
    /// bytes) and the arena.
    pub(in crate::index::bftl) fn held_bytes(&self) -> usize {
        self.heads.capacity() * 4
            + self.lens.capacity()
            + self.long.len() * 16
            + self.arena.capacity() * 4
    }
}

/// Per sector LBA: how many node lists name it, and how many sectors some
/// list names (invariant 2: those are live).
#[derive(Default)]
pub(in crate::index::bftl) struct SectorRefs {
    refs: Vec<u16>,
    live: u64,
}

impl SectorRefs {
    /// Sectors some list names.
    pub(in crate::index::bftl) fn live(&self) -> u64 {
        self.live
    }

    /// How many lists name sector `lba`.
    pub(in crate::index::bftl) fn get(&self, lba: u32) -> u16 {
        self.refs.get(lba as usize).copied().unwrap_or(0)
    }

    /// One more list names `lba`.
    pub(in crate::index::bftl) fn add(&mut self, lba: u32) {
        let i = lba as usize;
        if i >= self.refs.len() {
            let more = i + 1 - self.refs.len();
            grow(&mut self.refs, more);
            self.refs.resize(i + 1, 0);
        }
        if self.refs[i] == 0 {
            self.live += 1;
        }
        // Invariant: at most Λ lists name a sector (one per node with a
        // unit in it), and `BftlStore::new` checked Λ fits a u16.
        self.refs[i] = self.refs[i].saturating_add(1);
    }

    /// One list fewer names `lba`; whether none does now (it is dead).
    pub(in crate::index::bftl) fn remove(&mut self, lba: u32) -> bool {
        match self.refs.get_mut(lba as usize) {
            Some(r) if *r > 0 => {
                *r -= 1;
                if *r == 0 {
                    self.live -= 1;
                }
                *r == 0
            }
            _ => false,
        }
    }

    /// Forgets every count.
    pub(in crate::index::bftl) fn reset(&mut self) {
        *self = SectorRefs::default();
    }

    /// Heap bytes the counts hold.
    pub(in crate::index::bftl) fn held_bytes(&self) -> usize {
        self.refs.capacity() * 2
    }
}

/// Pushes `lba` onto the free list `free`, growing it by an eighth.
pub(in crate::index::bftl) fn push_free(free: &mut Vec<u32>, lba: u32) {
    grow(free, 1);
    free.push(lba);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table agrees with a `Vec` of lists over pushes and clears that
    /// move lists and compact the arena many times.
    #[test]
    fn agrees_with_plain_lists() {
        let mut t = Ntt::default();
        let mut plain: Vec<Vec<u32>> = vec![Vec::new(); 50];
        let mut x = 12345u64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = (x % 50) as NodeId;
            if x.is_multiple_of(7) {
                t.clear(id);
                plain[id as usize].clear();
            } else {
                let lba = if x.is_multiple_of(3) { step / 2 } else { step };
                let pushed = t.push(id, lba);
                let expect = plain[id as usize].last() != Some(&lba);
                assert_eq!(pushed, expect);
                if expect {
                    plain[id as usize].push(lba);
                }
            }
            if step % 97 == 0 {
                for (i, l) in plain.iter().enumerate() {
                    assert_eq!(t.list(i as NodeId), &l[..]);
                }
            }
        }
        assert_eq!(t.entries(), plain.iter().map(Vec::len).sum::<usize>());
        assert!(t.holes * 8 < t.arena.len().max(1) || t.holes == 0);
    }

    /// A list past 254 sectors keeps its length beside the byte.
    #[test]
    fn long_lists() {
        let mut t = Ntt::default();
        for lba in 0..600 {
            t.push(3, lba);
            t.push(1, 10_000 + lba);
        }
        assert_eq!(t.len(3), 600);
        assert_eq!(t.longest(), 600);
        assert_eq!(t.list(1)[599], 10_599);
        t.clear(3);
        assert_eq!(t.len(3), 0);
        assert!(!t.long.contains_key(&3));
        assert_eq!(t.list(1).len(), 600);
    }

    #[test]
    fn sector_refs_count_live_sectors() {
        let mut r = SectorRefs::default();
        r.add(5);
        r.add(5);
        r.add(9);
        assert_eq!(r.live(), 2);
        assert!(!r.remove(5));
        assert!(r.remove(5));
        assert!(!r.remove(5));
        assert_eq!(r.live(), 1);
        assert_eq!(r.get(9), 1);
    }
}
