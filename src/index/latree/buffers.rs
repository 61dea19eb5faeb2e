//! The Buffered-B+ tree's buffers (Agrawal et al. 2009 §5.2 "Buffer
//! layout on flash" and §5.3 "Memory Allocation"): one buffer per subtree
//! root, its pages on flash written log-like, its tail page in the
//! **buffer pool** in RAM.
//!
//! * **Buffer entries** are `key | value | op` (the entry format's widths
//!   and one byte: 1 insert, 2 delete, 3 a delayed lookup with its ticket,
//!   4 a part of one with the part's id). A
//!   buffer's entries are in arrival order; an emptying sorts them stably
//!   by key, so for any key the order of its entries in any buffer is the
//!   order of the operations (the tree needs no timestamps). With
//!   versions of keys (`super::versions`) the same holds of a key's
//!   entries, and a tail page holds at most one entry a key.
//! * **Pages.** A buffer page is a checksummed frame
//!   ([`crate::node::page`], kind `BufferPage`) whose payload is the owning
//!   node's id (`u32`) and the entries. The directory keeps each page's
//!   entry count, so a read fetches the frame header and exactly the bytes
//!   the entries fill: one access, whose cost on a byte-level chip is the
//!   fixed cost plus those bytes. (The paper reads the count from the page
//!   first and then the entries; see `docs/DEVIATIONS.md`.)
//! * **Where pages go** ([`super::space`]): on a raw chip, a partition of
//!   `partition_blocks` erase blocks per buffer (default 2, "a couple of
//!   erase blocks"), its pages programmed in order, each once, with just
//!   the bytes it holds, and erased when the buffer is emptied; a buffer
//!   whose partition fills takes another and is emptied at the next safe
//!   point ("the buffer can also be emptied and erased when the partition
//!   becomes full"); when too few partitions are free, buffers are emptied
//!   to make room first (`super::LaTree::ensure_partitions`). On a
//!   logical-page device, pages fill node-store slots.
//! * **Buffer pool** ([`super::pool`]): each buffer's tail page, in RAM,
//!   held in an arena of small slots, so that a tail page takes the entries
//!   it holds (and at most one slot's unused part), not a page buffer.
//!   With `buffer_pool=entries` (default) a tail page takes slots as its
//!   entries arrive (§5.2's page holds its entry count and its entries; the
//!   count is in the directory here); the frame header and owner id of our
//!   page format are added when the page is sealed and written, in the one
//!   page buffer the buffers share. With `buffer_pool=pages` a tail page
//!   takes a whole page's slots from its first entry. A new entry or tail
//!   page that finds no free slot evicts the page holding the most entries
//!   ("highest packed"), which is written to flash. §5.3 does not say how a
//!   tail page is allocated; with whole pages, 96 of them for the ~1,400
//!   buffers of §6's tree leave 4.1 entries a page at q = 25%
//!   (`docs/DEVIATIONS.md`).
//! * **Draining** ([`Buffers::take_front`]): an emptying takes a buffer's
//!   entries from the front, whole flash pages and then the tail, as many
//!   as its chunk holds; the buffer keeps the rest (and its space) until
//!   the last chunk is taken.
//!
//! Buffers are never part of the durable state: `flush` empties every
//! buffer into the tree first (`super`), so after a crash the buffer space
//! holds nothing anyone reads, and a partition is erased before it is used
//! again (the first use of a partition after create or open erases it).
//!
//! Invariants:
//! 1. A buffer's entries are its flash pages from `front` on (the first
//!    less its `front_taken` entries), in `pages` order, then its tail's
//!    entries (the pages before `front` were taken by a draining and are
//!    released with the buffer).
//! 2. Every tail in the pool belongs to exactly one buffer; `tails` counts
//!    them.
//! 3. `overfull_queue` names buffers in the directory, each at its level.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use crate::device::nand::FastMap;
use crate::index::{EntryFormat, IndexError, Result};
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::{NodeId, NodeStore};

pub use super::counters::{BufferCounters, COUNTED_LEVELS};
use super::pool::{Pool, Tail};
use super::space::{Held, Space};

/// Bytes of the owning node's id at the start of a page's payload.
const OWNER_BYTES: usize = 4;
/// The widest buffer entry: an 8-byte key, an 8-byte value, the op.
const MAX_ELEM: usize = 17;

/// What a buffer entry does when it reaches the leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert,
    Delete,
    /// A delayed lookup of the key (the buffer tree's batched lookups)
    /// for all its pairs; the value is its ticket.
    Lookup,
    /// A part of a delayed lookup cut across subtrees; the value is the
    /// part's id (`super::lookups`).
    LookupPart,
}

impl Op {
    /// A delayed lookup's element, whole or a part.
    pub fn is_lookup(self) -> bool {
        matches!(self, Op::Lookup | Op::LookupPart)
    }
}

/// One buffer entry (packed: 17 bytes in an emptying's chunk, where it
/// would take 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Elem {
    pub key: u64,
    pub value: u64,
    pub op: Op,
}

impl Elem {
    pub fn pair(&self) -> (u64, u64) {
        (self.key, self.value)
    }
}

/// A buffer page on flash: its address (a physical page on a raw chip, a
/// node-store slot otherwise) and how many entries it holds.
#[derive(Clone, Copy, Debug)]
struct FlashPage {
    addr: u64,
    count: u16,
    /// The node whose buffer wrote it (named in the page; a buffer that
    /// moved to a new root keeps its pages).
    writer: NodeId,
}

/// The state a buffer keeps besides its entries; the caller's (the
/// adaptive policy's counters).
pub trait BufferState: Default {
    /// Bytes of RAM the state takes (reported, not budgeted).
    fn bytes(&self) -> usize;
}

/// One subtree root's buffer.
pub struct Buffer<S> {
    /// The level of the node it belongs to.
    pub level: u8,
    pages: Vec<FlashPage>,
    /// Pages before this were taken by a draining, and the entries of
    /// this one (invariant 1).
    front: usize,
    front_taken: u16,
    /// Raw chip: the partitions it holds.
    held: Held,
    /// Entries in the pages from `front` on.
    flash_entries: u64,
    tail: Option<Tail>,
    pub state: S,
}

impl<S: BufferState> Buffer<S> {
    fn new(level: u8) -> Self {
        Buffer {
            level,
            pages: Vec::new(),
            front: 0,
            front_taken: 0,
            held: Held::default(),
            flash_entries: 0,
            tail: None,
            state: S::default(),
        }
    }

    /// Entries on flash (what a lookup must read).
    pub fn flash_entries(&self) -> u64 {
        self.flash_entries
    }

    /// Flash pages it holds (not yet taken).
    pub fn flash_pages(&self) -> usize {
        self.pages.len() - self.front
    }
}

/// How the buffer pool counts a tail page against its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolUnit {
    /// The slots its entries fill so far: a page grows as entries arrive,
    /// as a mote's allocator would hold it.
    Entries,
    /// A whole page's slots from its first entry.
    Pages,
}

impl std::str::FromStr for PoolUnit {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "entries" => Ok(PoolUnit::Entries),
            "pages" => Ok(PoolUnit::Pages),
            _ => Err(format!("buffer_pool={s}: expected entries or pages")),
        }
    }
}

/// What [`Buffers::take_front`] left of a buffer.
pub enum Front<S> {
    /// It has no buffer.
    Absent,
    /// Entries remain.
    More,
    /// That was the last of it: the buffer is gone, with the policy's
    /// state.
    Last(S),
}

/// Every buffer, the space their pages use and the pool of tail pages.
pub struct Buffers<S> {
    format: EntryFormat,
    elem_bytes: usize,
    /// Entries a page holds.
    per_page: usize,
    space: Space,
    /// Node ids are ours, small integers: no need for SipHash here.
    dir: FastMap<NodeId, Buffer<S>>,
    /// The buffers queued for emptying (too large, or their partition
    /// filled) as (level, Reverse(node)): the last is the next to empty,
    /// so finding it does not walk every buffer.
    overfull_queue: BTreeSet<(u8, Reverse<NodeId>)>,
    pool: Pool,
    pool_unit: PoolUnit,
    /// Buffers with a tail in the pool.
    tails: usize,
    /// The one page buffer: a page being read, or a tail being sealed.
    page_buf: Vec<u8>,
    pub counters: BufferCounters,
}

impl<S: BufferState> Buffers<S> {
    /// Buffers for entries of `format` on the node store's storage, with a
    /// pool of `pool_bytes` (its arena and links) beside one page buffer;
    /// `partition_blocks` applies to raw chips.
    pub fn new(
        store: &dyn NodeStore,
        format: EntryFormat,
        pool_bytes: usize,
        pool_unit: PoolUnit,
        partition_blocks: u64,
    ) -> Result<Self> {
        let storage = store.storage();
        let page_size = storage.page_size();
        let elem_bytes = format.key_bytes as usize + format.value_bytes as usize + 1;
        let per_page = page_size.saturating_sub(FRAME_HEADER + OWNER_BYTES) / elem_bytes;
        if per_page == 0 {
            return Err(IndexError::Config(format!(
                "a {page_size}-byte page holds no {elem_bytes}-byte buffer entry"
            )));
        }
        let per_page = per_page.min(u16::MAX as usize);
        let pool = Pool::new(pool_bytes, elem_bytes);
        let least = Self::min_pool_bytes(page_size, elem_bytes, pool_unit);
        if pool.memory_bytes() < least {
            return Err(IndexError::BudgetTooSmall {
                needed: least,
                given: pool_bytes,
                what: "the buffer pool's share: one tail page".into(),
            });
        }
        let space = Space::new(store, partition_blocks)?;
        Ok(Buffers {
            format,
            elem_bytes,
            per_page,
            space,
            dir: FastMap::default(),
            overfull_queue: BTreeSet::new(),
            pool,
            pool_unit,
            tails: 0,
            page_buf: vec![0u8; page_size],
            counters: BufferCounters::default(),
        })
    }

    /// The smallest pool for entries of `elem_bytes` on pages of
    /// `page_size`: one whole tail page with `buffer_pool=pages`, a
    /// quarter of one otherwise (tail pages are then written before they
    /// fill).
    pub fn min_pool_bytes(page_size: usize, elem_bytes: usize, unit: PoolUnit) -> usize {
        let per_page = page_size.saturating_sub(FRAME_HEADER + OWNER_BYTES) / elem_bytes.max(1);
        let entries = match unit {
            PoolUnit::Pages => per_page,
            PoolUnit::Entries => per_page.div_ceil(4),
        };
        let p = Pool::new(0, elem_bytes.max(1));
        // A slot's bytes and link, times the slots of those entries.
        p.slots_for(entries) * (p.slot_bytes() + 4)
    }

    /// Bytes of one buffer entry on flash.
    pub fn elem_bytes(&self) -> usize {
        self.elem_bytes
    }

    /// Entries a buffer page holds.
    pub fn per_page(&self) -> usize {
        self.per_page
    }

    pub fn get(&self, id: NodeId) -> Option<&Buffer<S>> {
        self.dir.get(&id)
    }

    pub fn get_mut(&mut self, id: NodeId) -> Option<&mut Buffer<S>> {
        self.dir.get_mut(&id)
    }

    /// Entries in buffer `id` (0 without one).
    pub fn entries(&self, id: NodeId) -> u64 {
        self.dir.get(&id).map_or(0, Self::entries_of)
    }

    fn entries_of(b: &Buffer<S>) -> u64 {
        b.flash_entries + b.tail.map_or(0, |t| t.count as u64)
    }

    /// The buffers, as (node, level, entries).
    pub fn all(&self) -> impl Iterator<Item = (NodeId, u8, u64)> + '_ {
        self.dir
            .iter()
            .map(|(&id, b)| (id, b.level, Self::entries_of(b)))
    }

    /// Buffers queued for emptying, highest level first.
    pub fn overfull(&self) -> Option<NodeId> {
        self.overfull_queue.last().map(|&(_, Reverse(id))| id)
    }

    /// Queues buffer `id` for emptying at the next safe point.
    pub fn mark_overfull(&mut self, id: NodeId) {
        if let Some(b) = self.dir.get(&id) {
            self.overfull_queue.insert((b.level, Reverse(id)));
        }
    }

    /// Buffered entries in all.
    pub fn total_entries(&self) -> u64 {
        self.dir.values().map(Self::entries_of).sum()
    }

    /// Partitions not held by any buffer; `None` where pages take node
    /// slots (no partitions to run out of).
    pub fn free_partitions(&self) -> Option<u64> {
        self.space.free_partitions()
    }

    /// Buffers whose tail page would need a partition if evicted now.
    pub fn frames_without_partition(&self) -> u64 {
        if let Some(free) = self.space.free_partitions() {
            // Enough free for every tail: no need to look.
            if free >= self.tails as u64 + 64 {
                return self.tails as u64;
            }
        }
        self.dir
            .values()
            .filter(|b| b.tail.is_some() && b.held.is_empty())
            .count() as u64
    }

    /// Whether buffer `id` holds a partition.
    pub fn holds_partition(&self, id: NodeId) -> bool {
        self.dir.get(&id).is_some_and(|b| !b.held.is_empty())
    }

    /// Flash bytes buffer pages hold on a raw chip (on logical pages they
    /// are node-store slots, which the store counts).
    pub fn flash_bytes(&self) -> u64 {
        if !self.space.is_raw() {
            return 0;
        }
        self.dir.values().map(|b| b.pages.len() as u64).sum::<u64>() * self.page_buf.len() as u64
    }

    /// RAM of the pool (its whole arena: the budget it was given) and the
    /// page buffer, in the memory figure.
    pub fn pool_memory(&self) -> usize {
        self.pool.memory_bytes() + self.page_buf.len()
    }

    /// RAM the tail pages fill now.
    pub fn pool_used(&self) -> usize {
        self.pool.used_bytes()
    }

    /// RAM of the directory: per buffer its node, level and counts, per
    /// flash page its place and count, and the policy's state (counted in
    /// the memory figure and named apart as index stats).
    pub fn directory_bytes(&self) -> (usize, usize) {
        let table = self.dir.values().map(|b| 16 + 6 * b.pages.len()).sum();
        let state = self.dir.values().map(|b| b.state.bytes()).sum();
        (table, state)
    }

    /// Slots a new tail takes.
    fn new_tail_slots(&self) -> usize {
        match self.pool_unit {
            PoolUnit::Pages => self.pool.slots_for(self.per_page),
            PoolUnit::Entries => 1,
        }
    }

    /// Appends `e` to buffer `id` (created at `level` if it has none);
    /// returns the buffer's entries.
    pub fn append(
        &mut self,
        store: &mut dyn NodeStore,
        id: NodeId,
        level: u8,
        e: Elem,
    ) -> Result<u64> {
        let mut bytes = [0u8; MAX_ELEM];
        self.encode(e, &mut bytes);
        loop {
            let tail = self.dir.get(&id).and_then(|b| b.tail);
            match tail {
                // A new tail page: the full one goes to flash.
                Some(t) if t.count >= self.per_page => self.write_tail(store, id)?,
                Some(t) if self.pool.needs_slot(&t) && self.pool.free_slots() == 0 => {
                    self.evict(store)?
                }
                Some(mut t) => {
                    let pushed = self.pool.push(&mut t, &bytes[..self.elem_bytes]);
                    debug_assert!(pushed, "a slot was free");
                    if let Some(b) = self.dir.get_mut(&id) {
                        b.tail = Some(t);
                    }
                    break;
                }
                None if self.pool.free_slots() < self.new_tail_slots() => self.evict(store)?,
                None => {
                    let t = self.pool.new_tail(self.new_tail_slots());
                    self.dir
                        .entry(id)
                        .or_insert_with(|| Buffer::new(level))
                        .tail = t;
                    self.tails += 1;
                }
            }
        }
        let at = self.dir.get(&id).map_or(level, |b| b.level);
        self.counters.by_level[(at as usize).min(COUNTED_LEVELS - 1)].appended += 1;
        Ok(self.entries(id))
    }

    /// Writes the most packed tail page to flash ("highest packed", §5.3).
    fn evict(&mut self, store: &mut dyn NodeStore) -> Result<()> {
        let victim = self
            .dir
            .iter()
            .filter_map(|(&id, b)| b.tail.map(|t| (id, t.count)))
            .max_by_key(|&(id, count)| (count, Reverse(id)));
        let Some((id, _)) = victim else {
            // `new` checked that the pool holds a page: unreachable.
            return Err(IndexError::Config(
                "the buffer pool holds no tail page to evict".into(),
            ));
        };
        self.counters.pool_evictions += 1;
        self.write_tail(store, id)
    }

    /// Writes buffer `id`'s tail page as its next flash page and frees its
    /// slots (kept when the write fails).
    fn write_tail(&mut self, store: &mut dyn NodeStore, id: NodeId) -> Result<()> {
        let Some(t) = self.dir.get(&id).and_then(|b| b.tail) else {
            return Ok(());
        };
        let count = t.count;
        let payload = OWNER_BYTES + count * self.elem_bytes;
        let len = FRAME_HEADER + payload;
        let addr = self.next_page(store, id)?;
        let mut buf = std::mem::take(&mut self.page_buf);
        buf[FRAME_HEADER..FRAME_HEADER + OWNER_BYTES].copy_from_slice(&id.to_le_bytes());
        let mut at = FRAME_HEADER + OWNER_BYTES;
        self.pool.for_each_run(&t, |bytes, _| {
            buf[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        });
        page::seal(&mut buf, PageKind::BufferPage, payload);
        let written = self.space.write(store, addr, &mut buf, len);
        self.page_buf = buf;
        written?;
        self.counters.pages_written += 1;
        self.counters.entries_written += count as u64;
        self.pool.free_tail(t);
        self.tails -= 1;
        // Invariant 2: the tail's owner has a buffer.
        let b = self.dir.get_mut(&id).expect("a tail's owner has a buffer");
        b.pages.push(FlashPage {
            addr,
            count: count as u16,
            writer: id,
        });
        b.flash_entries += count as u64;
        b.tail = None;
        let at = &mut self.counters.by_level[(b.level as usize).min(COUNTED_LEVELS - 1)];
        at.written += count as u64;
        at.pages += 1;
        Ok(())
    }

    /// The address the next page of buffer `owner` goes to.
    fn next_page(&mut self, store: &mut dyn NodeStore, owner: NodeId) -> Result<u64> {
        // Invariant 2: a tail's owner has a buffer.
        let b = self
            .dir
            .get_mut(&owner)
            .expect("a tail's owner has a buffer");
        let (addr, filled) = self
            .space
            .next_page(store, &mut b.held, &mut self.counters)?;
        if filled {
            // The partition filled: empty at the next safe point.
            self.mark_overfull(owner);
        }
        Ok(addr)
    }

    /// Reads buffer page `p`, passing each entry to `f`.
    fn read_page(
        &mut self,
        store: &mut dyn NodeStore,
        p: FlashPage,
        mut f: impl FnMut(Elem),
    ) -> Result<()> {
        let payload = OWNER_BYTES + p.count as usize * self.elem_bytes;
        let len = FRAME_HEADER + payload;
        let mut buf = std::mem::take(&mut self.page_buf);
        let at = match self.space.read(store, p.addr, &mut buf[..len]) {
            Ok(at) => at,
            Err(e) => {
                self.page_buf = buf;
                return Err(e);
            }
        };
        self.counters.pages_read += 1;
        let result = decode_page(
            &buf[..len],
            at,
            p.writer,
            p.count as usize,
            self.format,
            &mut f,
        );
        self.page_buf = buf;
        result
    }

    /// Passes the entries of buffer `id`'s tail to `f`, in order.
    fn decode_tail(&self, id: NodeId, f: &mut impl FnMut(Elem)) {
        if let Some(t) = self.dir.get(&id).and_then(|b| b.tail) {
            self.pool
                .for_each_run(&t, |bytes, n| decode_entries(bytes, n, self.format, f));
        }
    }

    /// Passes every entry of buffer `id` in order (invariant 1) to `f`,
    /// reading its flash pages; entries of the tail page cost nothing.
    pub fn scan(
        &mut self,
        store: &mut dyn NodeStore,
        id: NodeId,
        mut f: impl FnMut(Elem),
    ) -> Result<()> {
        let Some(b) = self.dir.get_mut(&id) else {
            return Ok(());
        };
        // Lent out while its pages are read (reading changes no buffer).
        let pages = std::mem::take(&mut b.pages);
        let (front, skip) = (b.front, b.front_taken as usize);
        let mut read = Ok(());
        for (k, &p) in pages[front..].iter().enumerate() {
            let mut i = 0;
            let skip = if k == 0 { skip } else { 0 };
            read = self.read_page(store, p, |e| {
                if i >= skip {
                    f(e)
                }
                i += 1;
            });
            if read.is_err() {
                break;
            }
        }
        if let Some(b) = self.dir.get_mut(&id) {
            b.pages = pages;
        }
        read?;
        self.decode_tail(id, &mut f);
        Ok(())
    }

    /// The newest entry of `key` in buffer `id` (versions of keys,
    /// `super` module doc): its tail page first, in RAM, then its flash
    /// pages from the newest back, stopping at the first that holds one.
    pub fn newest_of(
        &mut self,
        store: &mut dyn NodeStore,
        id: NodeId,
        key: u64,
    ) -> Result<Option<Elem>> {
        let mut found = None;
        self.decode_tail(id, &mut |e| {
            if e.key == key {
                found = Some(e);
            }
        });
        if found.is_some() {
            return Ok(found);
        }
        let Some(b) = self.dir.get_mut(&id) else {
            return Ok(None);
        };
        // Lent out while its pages are read (reading changes no buffer).
        let pages = std::mem::take(&mut b.pages);
        let (front, skip) = (b.front, b.front_taken as usize);
        let mut read = Ok(());
        for (k, &p) in pages.iter().enumerate().skip(front).rev() {
            let skip = if k == front { skip } else { 0 };
            let mut i = 0;
            read = self.read_page(store, p, |e| {
                if i >= skip && e.key == key {
                    found = Some(e);
                }
                i += 1;
            });
            if read.is_err() || found.is_some() {
                break;
            }
        }
        if let Some(b) = self.dir.get_mut(&id) {
            b.pages = pages;
        }
        read.map(|()| found)
    }

    /// With versions of keys: overwrites the entry of `e`'s key in buffer
    /// `id`'s tail page with `e`, when the tail holds one (at most one,
    /// so the tail holds one entry per key); `false` when it holds none.
    pub fn replace_in_tail(&mut self, id: NodeId, e: Elem) -> bool {
        let Some(t) = self.dir.get(&id).and_then(|b| b.tail) else {
            return false;
        };
        let mut bytes = [0u8; MAX_ELEM];
        self.encode(e, &mut bytes);
        let kb = self.format.key_bytes as usize;
        let key = &bytes[..kb];
        match self.pool.last_match_mut(&t, |entry| &entry[..kb] == key) {
            Some(entry) => {
                entry.copy_from_slice(&bytes[..self.elem_bytes]);
                true
            }
            None => false,
        }
    }

    /// Takes entries from the front of buffer `id` (invariant 1) into
    /// `out`: whole flash pages, then the tail, while they fit in `max`
    /// entries; a page or tail larger than `max` alone is taken `max` at a
    /// time. The last take removes the
    /// buffer and frees its space. A read that fails takes nothing.
    pub fn take_front(
        &mut self,
        store: &mut dyn NodeStore,
        id: NodeId,
        out: &mut Vec<Elem>,
        max: usize,
    ) -> Result<Front<S>> {
        let max = max.max(1);
        let Some(b) = self.dir.get_mut(&id) else {
            return Ok(Front::Absent);
        };
        let start = out.len();
        let pages = std::mem::take(&mut b.pages);
        let (mut front, mut skip) = (b.front, b.front_taken as usize);
        let mut taken = 0u64;
        let mut read = Ok(());
        while let Some(&p) = pages.get(front) {
            let n = out.len() - start;
            let left = p.count as usize - skip;
            // A part of a page only when nothing else fits.
            let take = if n + left <= max {
                left
            } else if n == 0 {
                max
            } else {
                break;
            };
            let mut i = 0;
            read = self.read_page(store, p, |e| {
                if i >= skip && i < skip + take {
                    out.push(e);
                }
                i += 1;
            });
            if read.is_err() {
                break;
            }
            taken += take as u64;
            if take == left {
                front += 1;
                skip = 0;
            } else {
                skip += take;
                break;
            }
        }
        let exhausted = front == pages.len();
        // Invariant: `id` was present above, and reading removes no buffer.
        let b = self.dir.get_mut(&id).expect("present");
        b.pages = pages;
        if let Err(e) = read {
            out.truncate(start);
            return Err(e);
        }
        b.front = front;
        b.front_taken = skip as u16;
        b.flash_entries -= taken;
        let tail = b.tail;
        if !exhausted {
            return Ok(Front::More);
        }
        if let Some(mut t) = tail {
            let n = out.len() - start;
            if n + t.count > max {
                if n == 0 {
                    // Larger than a chunk: its front part.
                    let mut i = 0;
                    self.pool.for_each_run(&t, |bytes, k| {
                        decode_entries(bytes, k, self.format, &mut |e| {
                            if i < max {
                                out.push(e);
                            }
                            i += 1;
                        })
                    });
                    self.pool.drop_front(&mut t, max);
                    if let Some(b) = self.dir.get_mut(&id) {
                        b.tail = Some(t);
                    }
                }
                return Ok(Front::More);
            }
            self.decode_tail(id, &mut |e| out.push(e));
            self.pool.free_tail(t);
            self.tails -= 1;
        }
        // Invariant: checked present above, and nothing between removes it.
        let b = self.dir.remove(&id).expect("present");
        self.overfull_queue.remove(&(b.level, Reverse(id)));
        self.release(store, &b)?;
        Ok(Front::Last(b.state))
    }

    /// Encodes `e` as a buffer entry into `out` (`elem_bytes` long).
    fn encode(&self, e: Elem, out: &mut [u8]) {
        let kb = self.format.key_bytes as usize;
        let vb = self.format.value_bytes as usize;
        out[..kb].copy_from_slice(&e.key.to_le_bytes()[..kb]);
        out[kb..kb + vb].copy_from_slice(&e.value.to_le_bytes()[..vb]);
        out[kb + vb] = match e.op {
            Op::Insert => 1,
            Op::Delete => 2,
            Op::Lookup => 3,
            Op::LookupPart => 4,
        };
    }

    /// Frees the space of a buffer taken out of the directory.
    fn release(&mut self, store: &mut dyn NodeStore, b: &Buffer<S>) -> Result<()> {
        let pages = b.pages.iter().map(|p| p.addr);
        self.space
            .release(store, &b.held, pages, &mut self.counters)
    }

    /// Moves buffer `from` to node `to` (which has none), now at `level`:
    /// a root's buffer following the root, or a buffer set aside while it
    /// drains. Its pages stay where they are (the directory remembers who
    /// wrote each).
    pub fn rename(&mut self, from: NodeId, to: NodeId, level: u8) {
        if let Some(mut b) = self.dir.remove(&from) {
            debug_assert!(!self.dir.contains_key(&to));
            if self.overfull_queue.remove(&(b.level, Reverse(from))) {
                self.overfull_queue.insert((level, Reverse(to)));
            }
            b.level = level;
            self.dir.insert(to, b);
        }
    }
}

/// Checks a buffer page read from `addr` and passes its `count` entries on.
fn decode_page(
    frame: &[u8],
    addr: u64,
    owner: NodeId,
    count: usize,
    format: EntryFormat,
    f: &mut impl FnMut(Elem),
) -> Result<()> {
    let corrupt = |detail: String| IndexError::Corrupt { page: addr, detail };
    let payload = page::open(frame, PageKind::BufferPage, addr)?
        .ok_or_else(|| corrupt("a buffer page reads empty".into()))?;
    let elem = format.key_bytes as usize + format.value_bytes as usize + 1;
    if payload.len() != OWNER_BYTES + count * elem {
        return Err(corrupt(format!(
            "a buffer page holds {} bytes where {count} entries take {}",
            payload.len(),
            OWNER_BYTES + count * elem
        )));
    }
    let named = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
    if named != owner {
        return Err(corrupt(format!(
            "a page of node {owner}'s buffer names node {named}"
        )));
    }
    let entries = &payload[OWNER_BYTES..];
    // Checked whole before any entry is passed on.
    for i in 0..count {
        let op = entries[(i + 1) * elem - 1];
        if !(1..=4).contains(&op) {
            return Err(corrupt(format!("a buffer entry has operation {op}")));
        }
    }
    let mut bad = None;
    decode_entries(entries, count, format, &mut |e| {
        if bad.is_none() && format.check(e.key, e.value).is_err() {
            bad = Some(e);
        }
    });
    if let Some(e) = bad {
        let (key, value) = e.pair();
        return Err(corrupt(format!(
            "a buffer entry ({key}, {value}) is out of range"
        )));
    }
    decode_entries(entries, count, format, f);
    Ok(())
}

/// Decodes `count` entries (a page's operation bytes are checked by
/// `decode_page` first; a tail page's were written here).
fn decode_entries(bytes: &[u8], count: usize, format: EntryFormat, f: &mut impl FnMut(Elem)) {
    let kb = format.key_bytes as usize;
    let vb = format.value_bytes as usize;
    let elem = kb + vb + 1;
    for i in 0..count {
        let s = &bytes[i * elem..(i + 1) * elem];
        let mut k = [0u8; 8];
        let mut v = [0u8; 8];
        k[..kb].copy_from_slice(&s[..kb]);
        v[..vb].copy_from_slice(&s[kb..kb + vb]);
        f(Elem {
            key: u64::from_le_bytes(k),
            value: u64::from_le_bytes(v),
            op: match s[kb + vb] {
                2 => Op::Delete,
                3 => Op::Lookup,
                4 => Op::LookupPart,
                _ => Op::Insert,
            },
        });
    }
}
