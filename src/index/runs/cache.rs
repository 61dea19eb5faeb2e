//! An LRU cache of decoded run pages, by LBA, at most `capacity` pages:
//! the FD-tree's and the LSM-tree's page buffer (`runs::page`).
//!
//! Not the B+-tree's [`crate::node::NodeCache`]: that one holds mutable
//! nodes with write-back, dirty state and level priorities; run pages are
//! immutable once written, so a read-only LRU of shared pages suffices.
//!
//! Why a list in a slab: the cache used to order its pages in a
//! `BTreeMap` of access ticks beside a SipHash `HashMap`, and a search's
//! hit cost two tree updates and a hash; in a 10^7-entry LSM-tree run
//! `get` and `put` took 16% of the time (issue #31). Here recency is a
//! doubly linked list threaded through a slab of slots, so a hit is one
//! hash look-up and four index writes.
//!
//! Invariants:
//! 1. The eviction order is exactly least recently used first, where a
//!    `get` hit and a `put` make a page the most recent: the same order
//!    the tick-ordered map gave, so every hit, miss and device read of a
//!    run is what it was.
//! 2. `index` maps each cached LBA to its slot; a slot is in the list iff
//!    it is in `index`; free slots are in `free` and hold no page.
//!
//! A page evicted that no reader still holds is kept as the `spare`, and
//! the next miss decodes into its vector ([`PageCache::recycled`]) instead
//! of allocating one: at one miss a search, the allocation and its free
//! were 8% of an LSM-tree W-Search run (issue #31). The spare holds no
//! index data (it is overwritten before use), so it is not charged as a
//! cached page, as the reader's page buffer is not.

use std::sync::Arc;

use crate::device::nand::FastMap;

use super::page::Page;

/// No slot: the ends of the recency list.
const NONE: u32 = u32::MAX;

struct Slot {
    lba: u64,
    page: Option<Arc<Page>>,
    /// Toward the most recent end.
    newer: u32,
    /// Toward the least recent end.
    older: u32,
}

/// An LRU cache of decoded run pages (see the module docs).
#[derive(Default)]
pub(crate) struct PageCache {
    capacity: usize,
    index: FastMap<u64, u32>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// The most recently used slot.
    newest: u32,
    /// The least recently used slot: the next to go.
    oldest: u32,
    pub hits: u64,
    pub misses: u64,
    /// The last page evicted, if no reader held it (module docs).
    spare: Option<Arc<Page>>,
}

impl PageCache {
    pub(crate) fn new(capacity: usize) -> Self {
        PageCache {
            capacity,
            newest: NONE,
            oldest: NONE,
            ..PageCache::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// The most pages it holds.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Holds at most `capacity` pages from now on, evicting the least
    /// recently used ones.
    pub(crate) fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        while self.index.len() > capacity && self.evict_oldest() {}
    }

    pub(crate) fn get(&mut self, lba: u64) -> Option<Arc<Page>> {
        let &slot = self.index.get(&lba)?;
        self.unlink(slot);
        self.push_newest(slot);
        self.hits += 1;
        self.slots[slot as usize].page.clone()
    }

    pub(crate) fn put(&mut self, lba: u64, page: Arc<Page>) {
        self.misses += 1;
        if self.capacity == 0 {
            return;
        }
        // Evicts before it looks `lba` up, as the tick-ordered cache did
        // (invariant 1): a full cache drops its oldest page even when
        // `lba` replaces a page it holds.
        while self.index.len() >= self.capacity && self.evict_oldest() {}
        if let Some(&slot) = self.index.get(&lba) {
            self.unlink(slot);
            self.slots[slot as usize].page = Some(page);
            self.push_newest(slot);
            return;
        }
        let slot = match self.free.pop() {
            Some(s) => {
                let x = &mut self.slots[s as usize];
                x.lba = lba;
                x.page = Some(page);
                s
            }
            None => {
                self.slots.push(Slot {
                    lba,
                    page: Some(page),
                    newer: NONE,
                    older: NONE,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(lba, slot);
        self.push_newest(slot);
    }

    /// Forgets pages `start..start + n` (a freed run).
    pub(crate) fn forget(&mut self, start: u64, n: u64) {
        if self.index.is_empty() {
            return;
        }
        for lba in start..start + n {
            if let Some(slot) = self.index.remove(&lba) {
                self.release(slot);
            }
        }
    }

    /// Drops the least recently used page; false if there is none.
    fn evict_oldest(&mut self) -> bool {
        let slot = self.oldest;
        if slot == NONE {
            return false;
        }
        let lba = self.slots[slot as usize].lba;
        self.index.remove(&lba);
        self.release(slot);
        true
    }

    /// Takes `slot` (already out of `index`) off the list and frees it.
    fn release(&mut self, slot: u32) {
        self.unlink(slot);
        if let Some(page) = self.slots[slot as usize].page.take() {
            if Arc::strong_count(&page) == 1 {
                self.spare = Some(page);
            }
        }
        self.free.push(slot);
    }

    /// An empty page to decode a miss into: the spare's vector, with its
    /// capacity, when there is one.
    pub(crate) fn recycled(&mut self) -> Page {
        let mut page = self
            .spare
            .take()
            .and_then(|p| Arc::try_unwrap(p).ok())
            .unwrap_or_default();
        page.entries.clear();
        page
    }

    fn unlink(&mut self, slot: u32) {
        let (newer, older) = {
            let s = &self.slots[slot as usize];
            (s.newer, s.older)
        };
        match newer {
            NONE => self.newest = older,
            n => self.slots[n as usize].older = older,
        }
        match older {
            NONE => self.oldest = newer,
            o => self.slots[o as usize].newer = newer,
        }
    }

    fn push_newest(&mut self, slot: u32) {
        let old_newest = self.newest;
        {
            let s = &mut self.slots[slot as usize];
            s.newer = NONE;
            s.older = old_newest;
        }
        match old_newest {
            NONE => self.oldest = slot,
            n => self.slots[n as usize].newer = slot,
        }
        self.newest = slot;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use proptest::prelude::*;

    use super::*;

    /// The tick-ordered cache this one replaced, kept as the reference
    /// for invariant 1.
    struct Reference {
        capacity: usize,
        tick: u64,
        pages: HashMap<u64, (u64, u64)>,
        by_age: BTreeMap<u64, u64>,
    }

    impl Reference {
        fn evict(&mut self) {
            if let Some((&age, &old)) = self.by_age.iter().next() {
                self.by_age.remove(&age);
                self.pages.remove(&old);
            }
        }
        fn get(&mut self, lba: u64) -> Option<u64> {
            let (age, tag) = self.pages.get_mut(&lba)?;
            self.by_age.remove(age);
            self.tick += 1;
            *age = self.tick;
            self.by_age.insert(self.tick, lba);
            Some(*tag)
        }
        fn put(&mut self, lba: u64, tag: u64) {
            if self.capacity == 0 {
                return;
            }
            while self.pages.len() >= self.capacity && !self.by_age.is_empty() {
                self.evict();
            }
            self.tick += 1;
            self.by_age.insert(self.tick, lba);
            if let Some((age, _)) = self.pages.insert(lba, (self.tick, tag)) {
                self.by_age.remove(&age);
            }
        }
        fn forget(&mut self, start: u64, n: u64) {
            for lba in start..start + n {
                if let Some((age, _)) = self.pages.remove(&lba) {
                    self.by_age.remove(&age);
                }
            }
        }
        fn set_capacity(&mut self, capacity: usize) {
            self.capacity = capacity;
            while self.pages.len() > capacity && !self.by_age.is_empty() {
                self.evict();
            }
        }
    }

    /// A page tagged by its first entry's key, to tell versions apart.
    fn page(tag: u64) -> Arc<Page> {
        Arc::new(Page {
            entries: vec![super::super::page::Entry {
                key: tag,
                value: 0,
                kind: super::super::page::Kind::Index,
            }],
        })
    }

    proptest! {
        #[test]
        fn same_hits_and_evictions_as_the_tick_ordered_cache(
            capacity in 0usize..6,
            ops in proptest::collection::vec((0u8..4, 0u64..10, 1u64..4), 1..200),
        ) {
            let mut new = PageCache::new(capacity);
            let mut old = Reference { capacity, tick: 0, pages: HashMap::new(), by_age: BTreeMap::new() };
            for (i, (op, lba, n)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        let got = new.get(lba).map(|p| p.entries[0].key);
                        prop_assert_eq!(got, old.get(lba));
                    }
                    1 => {
                        new.put(lba, page(i as u64));
                        old.put(lba, i as u64);
                    }
                    2 => {
                        new.forget(lba, n);
                        old.forget(lba, n);
                    }
                    _ => {
                        new.set_capacity(n as usize);
                        old.set_capacity(n as usize);
                    }
                }
                prop_assert_eq!(new.len(), old.pages.len());
            }
        }
    }
}
