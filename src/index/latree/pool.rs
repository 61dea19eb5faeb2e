//! The buffer pool's RAM (Agrawal et al. 2009 §5.3): the tail pages of
//! the buffers, held in one arena of **slots** of a few entries each, so
//! that a tail page holds the entries it has, not a whole page (issue #43:
//! a tail page of three entries took a 512-byte page buffer, 0.3–5.7 MB of
//! "frame slack" at the LA paper's setting).
//!
//! The arena is allocated once, at the size the pool's budget allows, and
//! never grows: the pool's RAM is exactly its budget (`memory_bytes`), and
//! appending an entry allocates nothing. A tail page is a chain of slots
//! (each slot's successor in `next`, 4 bytes a slot); the free slots are
//! chained the same way. A slot holds [`SLOT_TARGET`] bytes of entries
//! (at least one entry), so a tail page wastes at most one slot's unused
//! part — charged to the pool, whose budget includes it.
//!
//! Invariants:
//! 1. Every slot is in exactly one chain: the free chain or one tail's.
//! 2. `free` counts the free chain.

/// Bytes of entries a slot aims at: small against a page, so a tail of a
/// few entries takes little more than its entries.
pub const SLOT_TARGET: usize = 32;
/// The end of a chain.
pub const NONE: u32 = u32::MAX;
/// Bytes of a slot's link.
const LINK_BYTES: usize = 4;

/// A tail page in the pool: its first slot, the slot its next entry goes
/// to, how many entries it holds, and how many at the front of the first
/// slot a draining took already.
#[derive(Clone, Copy, Debug)]
pub struct Tail {
    first: u32,
    cursor: u32,
    pub count: usize,
    skip: usize,
}

/// The arena of slots.
pub struct Pool {
    elem_bytes: usize,
    slot_entries: usize,
    data: Vec<u8>,
    next: Vec<u32>,
    free_head: u32,
    free: usize,
}

impl Pool {
    /// A pool of `bytes` for entries of `elem_bytes` (0 slots when `bytes`
    /// is too small for one).
    pub fn new(bytes: usize, elem_bytes: usize) -> Pool {
        let slot_entries = (SLOT_TARGET / elem_bytes).max(1);
        let slot_bytes = slot_entries * elem_bytes;
        let slots = bytes / (slot_bytes + LINK_BYTES);
        let next: Vec<u32> = (1..=slots as u32)
            .map(|s| if s as usize == slots { NONE } else { s })
            .collect();
        Pool {
            elem_bytes,
            slot_entries,
            data: vec![0u8; slots * slot_bytes],
            next,
            free_head: if slots == 0 { NONE } else { 0 },
            free: slots,
        }
    }

    /// Bytes of entries a slot holds.
    pub fn slot_bytes(&self) -> usize {
        self.slot_entries * self.elem_bytes
    }

    /// RAM the pool holds: its arena and links.
    pub fn memory_bytes(&self) -> usize {
        self.data.len() + self.next.len() * LINK_BYTES
    }

    /// Slots in all.
    pub fn slots(&self) -> usize {
        self.next.len()
    }

    /// Slots not holding a tail's entries.
    pub fn free_slots(&self) -> usize {
        self.free
    }

    /// RAM the tails take now (their slots and links).
    pub fn used_bytes(&self) -> usize {
        (self.slots() - self.free) * (self.slot_entries * self.elem_bytes + LINK_BYTES)
    }

    /// Slots a tail of `entries` entries takes.
    pub fn slots_for(&self, entries: usize) -> usize {
        entries.div_ceil(self.slot_entries).max(1)
    }

    fn pop_free(&mut self) -> Option<u32> {
        let s = self.free_head;
        if s == NONE {
            return None;
        }
        self.free_head = self.next[s as usize];
        self.next[s as usize] = NONE;
        self.free -= 1;
        Some(s)
    }

    /// A new, empty tail of `slots` chained slots (all of a page with
    /// `buffer_pool=pages`); `None` when too few are free.
    pub fn new_tail(&mut self, slots: usize) -> Option<Tail> {
        if slots > self.free {
            return None;
        }
        // Invariant 2: `free` slots are in the chain.
        let first = self.pop_free()?;
        let mut last = first;
        for _ in 1..slots {
            let s = self.pop_free()?;
            self.next[last as usize] = s;
            last = s;
        }
        Some(Tail {
            first,
            cursor: first,
            count: 0,
            skip: 0,
        })
    }

    /// Whether appending to `t` needs a free slot.
    pub fn needs_slot(&self, t: &Tail) -> bool {
        let at = t.skip + t.count;
        at > 0 && at.is_multiple_of(self.slot_entries) && self.next[t.cursor as usize] == NONE
    }

    /// Appends the entry `bytes` (`elem_bytes` long) to `t`; `false` when
    /// it needs a slot and none is free.
    pub fn push(&mut self, t: &mut Tail, bytes: &[u8]) -> bool {
        let at = t.skip + t.count;
        if at > 0 && at.is_multiple_of(self.slot_entries) {
            let next = self.next[t.cursor as usize];
            let s = if next != NONE {
                next
            } else {
                let Some(s) = self.pop_free() else {
                    return false;
                };
                self.next[t.cursor as usize] = s;
                s
            };
            t.cursor = s;
        }
        let at = t.cursor as usize * self.slot_entries * self.elem_bytes
            + (at % self.slot_entries) * self.elem_bytes;
        self.data[at..at + self.elem_bytes].copy_from_slice(bytes);
        t.count += 1;
        true
    }

    /// Passes the bytes of `t`'s entries to `f`, a slot's worth at a time,
    /// in order.
    pub fn for_each_run(&self, t: &Tail, mut f: impl FnMut(&[u8], usize)) {
        self.runs(t, |at, n| f(&self.data[at..at + n * self.elem_bytes], n));
    }

    /// The last of `t`'s entries for which `matches` holds, to overwrite
    /// in place (a blind upsert replacing its key's entry in a tail page).
    pub fn last_match_mut(
        &mut self,
        t: &Tail,
        matches: impl Fn(&[u8]) -> bool,
    ) -> Option<&mut [u8]> {
        let e = self.elem_bytes;
        let mut last = None;
        self.runs(t, |at, n| {
            for i in 0..n {
                let from = at + i * e;
                if matches(&self.data[from..from + e]) {
                    last = Some(from);
                }
            }
        });
        last.map(|from| &mut self.data[from..from + e])
    }

    /// Calls `f` with the byte offset and the entry count of each run of
    /// `t`'s entries in one slot, in order.
    fn runs(&self, t: &Tail, mut f: impl FnMut(usize, usize)) {
        let mut s = t.first;
        let mut left = t.count;
        let mut skip = t.skip;
        while left > 0 && s != NONE {
            let n = left.min(self.slot_entries - skip);
            f((s as usize * self.slot_entries + skip) * self.elem_bytes, n);
            left -= n;
            skip = 0;
            s = self.next[s as usize];
        }
    }

    /// Drops the first `k` of `t`'s entries (a draining took them),
    /// freeing the slots they leave; `t` keeps at least its cursor slot.
    pub fn drop_front(&mut self, t: &mut Tail, k: usize) {
        let k = k.min(t.count);
        t.skip += k;
        t.count -= k;
        while t.skip >= self.slot_entries && t.first != t.cursor {
            let s = t.first;
            t.first = self.next[s as usize];
            self.next[s as usize] = self.free_head;
            self.free_head = s;
            self.free += 1;
            t.skip -= self.slot_entries;
        }
    }

    /// Returns `t`'s slots to the free chain.
    pub fn free_tail(&mut self, t: Tail) {
        let mut s = t.first;
        while s != NONE {
            let next = self.next[s as usize];
            self.next[s as usize] = self.free_head;
            self.free_head = s;
            self.free += 1;
            s = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_take_slots_as_they_grow_and_give_them_back() {
        let mut p = Pool::new(4 * (30 + 4), 10);
        assert_eq!((p.slots(), p.free_slots()), (4, 4));
        assert_eq!(p.memory_bytes(), 4 * 34);
        let mut a = p.new_tail(1).unwrap();
        for i in 0..7u8 {
            assert!(p.push(&mut a, &[i; 10]));
        }
        // 7 entries of 3 a slot: 3 slots.
        assert_eq!(p.free_slots(), 1);
        let mut b = p.new_tail(1).unwrap();
        for i in 0..3u8 {
            assert!(p.push(&mut b, &[i; 10]));
        }
        assert!(p.needs_slot(&b));
        assert!(!p.push(&mut b, &[9; 10]));
        let mut seen = Vec::new();
        p.for_each_run(&a, |bytes, n| {
            seen.extend((0..n).map(|i| bytes[i * 10]));
        });
        assert_eq!(seen, (0..7).collect::<Vec<u8>>());
        p.free_tail(a);
        assert_eq!(p.free_slots(), 3);
        assert!(p.new_tail(4).is_none());
        let mut whole = p.new_tail(3).unwrap();
        for i in 0..8u8 {
            assert!(p.push(&mut whole, &[i; 10]));
        }
        // A draining takes four: the first slot goes back.
        p.drop_front(&mut whole, 4);
        assert_eq!((whole.count, p.free_slots()), (4, 1));
        let mut left = Vec::new();
        p.for_each_run(&whole, |bytes, n| {
            left.extend((0..n).map(|i| bytes[i * 10]))
        });
        assert_eq!(left, vec![4, 5, 6, 7]);
        p.free_tail(whole);
        p.free_tail(b);
        assert_eq!(p.free_slots(), 4);
    }
}
