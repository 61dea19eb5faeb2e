//! The Buffered-B+ tree's buffers (Agrawal et al. 2009 §5.2 "Buffer
//! layout on flash" and §5.3 "Memory Allocation"): one buffer per subtree
//! root, its pages on flash written log-like, its tail page in the
//! **buffer pool** in RAM.
//!
//! * **Buffer entries** are `key | value | op` (the entry format's widths
//!   and one byte: 1 insert, 2 delete, 3 a delayed lookup's part). A
//!   buffer's entries are in arrival order; an emptying sorts them stably
//!   by key, so for any key the order of its entries in any buffer is the
//!   order of the operations (the tree needs no timestamps).
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
//! * **Buffer pool** (`pool_bytes`): each buffer's tail page. With
//!   `buffer_pool=entries` (default) a tail page counts what the paper's
//!   page holds (§5.2: its entry count, [`COUNT_BYTES`], and its entries);
//!   the frame header and owner id of our page format are added when the
//!   page is sealed and written, so they take no pool memory. With
//!   `buffer_pool=pages` a tail page takes a whole page from its first
//!   entry. A new entry or tail page, or a buffer loaded for emptying, that
//!   does not fit evicts the page holding the most entries ("highest
//!   packed"), which is written to flash. §5.3 does not say how a tail page
//!   is allocated; with whole pages, 96 of them for the ~1,400 buffers of
//!   §6's tree leave 4.1 entries a page at q = 25% (`docs/DEVIATIONS.md`).
//!
//! Buffers are never part of the durable state: `flush` empties every
//! buffer into the tree first (`super`), so after a crash the buffer space
//! holds nothing anyone reads, and a partition is erased before it is used
//! again (the first use of a partition after create or open erases it).
//!
//! Invariants:
//! 1. A buffer's entries are its flash pages in `pages` order, then its
//!    tail frame's entries.
//! 2. Every frame belongs to exactly one buffer and is its `tail`.
//! 3. `overfull_queue` names buffers in the directory, each at its level.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use crate::device::nand::FastMap;
use crate::index::{EntryFormat, IndexError, Result};
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::{NodeId, NodeStore};

pub use super::counters::{BufferCounters, COUNTED_LEVELS};
use super::space::{Held, Space};

/// Bytes of the owning node's id at the start of a page's payload.
const OWNER_BYTES: usize = 4;
/// What a tail page in the pool takes besides its entries: the count of
/// entries, the per-page metadata of §5.2 ("we store metadata in each
/// buffer page that tells how many buffer entries are in the page"). The
/// frame header and owner id are written only when the page is sealed.
const COUNT_BYTES: usize = 2;

/// What a buffer entry does when it reaches the leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert,
    Delete,
    /// A delayed lookup of the key (the buffer tree's batched lookups);
    /// the value is its ticket.
    Lookup,
}

/// One buffer entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Raw chip: the partitions it holds.
    held: Held,
    flash_entries: u64,
    tail: Option<usize>,
    pub state: S,
}

impl<S: BufferState> Buffer<S> {
    fn new(level: u8) -> Self {
        Buffer {
            level,
            pages: Vec::new(),
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

    /// Flash pages it holds.
    pub fn flash_pages(&self) -> usize {
        self.pages.len()
    }
}

struct Frame {
    owner: NodeId,
    count: usize,
    bytes: Vec<u8>,
}

/// How the buffer pool counts a tail page against its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolUnit {
    /// The bytes the page holds so far (its entry count and entries; the
    /// frame header is added when it is written): a page grows as entries
    /// arrive, as a mote's allocator would hold it.
    Entries,
    /// A whole page frame from its first entry.
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

/// Every buffer, the space their pages use and the pool of tail pages.
pub struct Buffers<S> {
    format: EntryFormat,
    elem_bytes: usize,
    page_size: usize,
    /// Entries a page holds.
    per_page: usize,
    space: Space,
    /// Node ids are ours, small integers: no need for SipHash here.
    dir: FastMap<NodeId, Buffer<S>>,
    /// The buffers queued for emptying (too large, or their partition
    /// filled) as (level, Reverse(node)): the last is the next to empty,
    /// so finding it does not walk every buffer.
    overfull_queue: BTreeSet<(u8, Reverse<NodeId>)>,
    frames: Vec<Option<Frame>>,
    /// Page buffers of dropped frames, for reuse.
    spare_bytes: Vec<Vec<u8>>,
    /// Indexes of `frames` that hold none.
    free_slots: Vec<usize>,
    frames_in_use: usize,
    pool_bytes: usize,
    pool_unit: PoolUnit,
    /// What the tail pages take of the pool now.
    pool_used: usize,
    /// Bytes of a buffer loaded for emptying still in RAM.
    loading_bytes: usize,
    read_buf: Vec<u8>,
    pub counters: BufferCounters,
}

impl<S: BufferState> Buffers<S> {
    /// Buffers for entries of `format` on the node store's storage, with a
    /// pool of `pool_bytes`; `partition_blocks` applies to raw chips.
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
        if pool_bytes < page_size {
            return Err(IndexError::BudgetTooSmall {
                needed: page_size,
                given: pool_bytes,
                what: "the buffer pool's share: one tail page".into(),
            });
        }
        let space = Space::new(store, partition_blocks)?;
        Ok(Buffers {
            format,
            elem_bytes,
            page_size,
            per_page,
            space,
            dir: FastMap::default(),
            overfull_queue: BTreeSet::new(),
            frames: Vec::new(),
            spare_bytes: Vec::new(),
            free_slots: Vec::new(),
            frames_in_use: 0,
            pool_bytes,
            pool_unit,
            pool_used: 0,
            loading_bytes: 0,
            read_buf: vec![0u8; page_size],
            counters: BufferCounters::default(),
        })
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
        self.dir.get(&id).map_or(0, |b| self.entries_of(b))
    }

    fn entries_of(&self, b: &Buffer<S>) -> u64 {
        b.flash_entries + b.tail.map_or(0, |f| self.frame(f).count as u64)
    }

    fn frame(&self, f: usize) -> &Frame {
        // Invariant 2: a buffer's tail names a live frame.
        self.frames[f].as_ref().expect("a tail names a live frame")
    }

    /// The buffers, as (node, level, entries).
    pub fn all(&self) -> impl Iterator<Item = (NodeId, u8, u64)> + '_ {
        self.dir
            .iter()
            .map(|(&id, b)| (id, b.level, self.entries_of(b)))
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
        self.dir.values().map(|b| self.entries_of(b)).sum()
    }

    /// Partitions not held by any buffer; `None` where pages take node
    /// slots (no partitions to run out of).
    pub fn free_partitions(&self) -> Option<u64> {
        self.space.free_partitions()
    }

    /// Buffers whose tail page would need a partition if evicted now.
    pub fn frames_without_partition(&self) -> u64 {
        if let Some(free) = self.space.free_partitions() {
            // Enough free for every frame: no need to look.
            if free >= self.frames_in_use as u64 + 64 {
                return self.frames_in_use as u64;
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
        self.dir.values().map(|b| b.pages.len() as u64).sum::<u64>() * self.page_size as u64
    }

    /// RAM of the pool's tail pages (in the memory figure).
    pub fn pool_memory(&self) -> usize {
        self.pool_used
    }

    /// RAM the pool's page buffers hold beyond what the pool charges: every
    /// live frame and every kept spare holds a whole page buffer, where
    /// `buffer_pool=entries` charges a frame by its entries.
    pub fn frame_slack_bytes(&self) -> usize {
        ((self.frames_in_use + self.spare_bytes.len()) * self.page_size)
            .saturating_sub(self.pool_used)
    }

    /// What a frame holding `count` entries takes of the pool.
    fn frame_cost(&self, count: usize) -> usize {
        match self.pool_unit {
            PoolUnit::Pages => self.page_size,
            PoolUnit::Entries => COUNT_BYTES + count * self.elem_bytes,
        }
    }

    /// RAM of the directory: per buffer its node, level and counts, per
    /// flash page its place and count, and the policy's state (counted in
    /// the memory figure and named apart as index stats).
    pub fn directory_bytes(&self) -> (usize, usize) {
        let table = self.dir.values().map(|b| 16 + 6 * b.pages.len()).sum();
        let state = self.dir.values().map(|b| b.state.bytes()).sum();
        (table, state)
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
        if self.pool_unit == PoolUnit::Entries {
            // The entry's bytes first: that may evict this buffer's tail.
            self.make_room(store, self.elem_bytes)?;
        }
        let tail = self.dir.get(&id).and_then(|b| b.tail);
        let frame = match tail {
            Some(f) if self.frame(f).count < self.per_page => f,
            full => {
                if let Some(f) = full {
                    // A new tail page: the full one goes to flash.
                    self.write_frame(store, f)?;
                }
                self.make_room(store, self.frame_cost(0))?;
                let f = self.new_frame(id);
                self.dir
                    .entry(id)
                    .or_insert_with(|| Buffer::new(level))
                    .tail = Some(f);
                f
            }
        };
        self.put(frame, e);
        let at = self.dir.get(&id).map_or(level, |b| b.level);
        self.counters.by_level[(at as usize).min(COUNTED_LEVELS - 1)].appended += 1;
        self.loading_bytes = self.loading_bytes.saturating_sub(self.elem_bytes);
        Ok(self.entries(id))
    }

    fn new_frame(&mut self, owner: NodeId) -> usize {
        let bytes = self
            .spare_bytes
            .pop()
            .unwrap_or_else(|| vec![0u8; self.page_size]);
        let frame = Some(Frame {
            owner,
            count: 0,
            bytes,
        });
        self.frames_in_use += 1;
        self.pool_used += self.frame_cost(0);
        match self.free_slots.pop() {
            Some(i) => {
                self.frames[i] = frame;
                i
            }
            None => {
                self.frames.push(frame);
                self.frames.len() - 1
            }
        }
    }

    fn drop_frame(&mut self, f: usize) {
        if let Some(fr) = self.frames[f].take() {
            self.frames_in_use -= 1;
            self.pool_used -= self.frame_cost(fr.count);
            self.spare_bytes.push(fr.bytes);
            self.free_slots.push(f);
        }
    }

    /// Evicts the most packed frames until the pool is within its budget
    /// (after an emptying, which may run over while it holds a buffer).
    pub fn fit_pool(&mut self, store: &mut dyn NodeStore) -> Result<()> {
        self.make_room(store, 0)
    }

    /// Evicts the most packed frames until `extra` more bytes fit the pool
    /// beside a buffer being loaded. With nothing left to evict the pool
    /// runs over for the moment (the loaded buffer shrinks as it goes).
    fn make_room(&mut self, store: &mut dyn NodeStore, extra: usize) -> Result<()> {
        while self.pool_memory() + self.loading_bytes + extra > self.pool_bytes {
            let victim = self
                .frames
                .iter()
                .enumerate()
                .filter_map(|(i, f)| f.as_ref().map(|f| (i, f.count)))
                .max_by_key(|&(i, count)| (count, std::cmp::Reverse(i)));
            let Some((f, _)) = victim else {
                return Ok(());
            };
            self.counters.pool_evictions += 1;
            self.write_frame(store, f)?;
        }
        Ok(())
    }

    /// Writes frame `f` as its owner's next flash page and frees it.
    fn write_frame(&mut self, store: &mut dyn NodeStore, f: usize) -> Result<()> {
        let (owner, count) = {
            let fr = self.frame(f);
            (fr.owner, fr.count)
        };
        let payload = OWNER_BYTES + count * self.elem_bytes;
        let len = FRAME_HEADER + payload;
        let addr = self.next_page(store, owner)?;
        {
            // Invariant 2: `f` is live.
            let fr = self.frames[f].as_mut().expect("live frame");
            fr.bytes[FRAME_HEADER..FRAME_HEADER + OWNER_BYTES]
                .copy_from_slice(&owner.to_le_bytes());
            page::seal(&mut fr.bytes, PageKind::BufferPage, payload);
        }
        // Invariant 2: `f` is still live (nothing above dropped a frame).
        let fr = self.frames[f].as_mut().expect("live frame");
        self.space.write(store, addr, &mut fr.bytes, len)?;
        self.counters.pages_written += 1;
        self.counters.entries_written += count as u64;
        // Invariant 2: the frame's owner has a buffer.
        let b = self
            .dir
            .get_mut(&owner)
            .expect("a frame's owner has a buffer");
        b.pages.push(FlashPage {
            addr,
            count: count as u16,
            writer: owner,
        });
        b.flash_entries += count as u64;
        let at = &mut self.counters.by_level[(b.level as usize).min(COUNTED_LEVELS - 1)];
        at.written += count as u64;
        at.pages += 1;
        b.tail = None;
        self.drop_frame(f);
        Ok(())
    }

    /// The address the next page of buffer `owner` goes to.
    fn next_page(&mut self, store: &mut dyn NodeStore, owner: NodeId) -> Result<u64> {
        // Invariant 2: a frame's owner has a buffer.
        let b = self
            .dir
            .get_mut(&owner)
            .expect("a frame's owner has a buffer");
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
        let mut buf = std::mem::take(&mut self.read_buf);
        let at = match self.space.read(store, p.addr, &mut buf[..len]) {
            Ok(at) => at,
            Err(e) => {
                self.read_buf = buf;
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
        self.read_buf = buf;
        result
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
        let tail = b.tail;
        let mut read = Ok(());
        for &p in &pages {
            read = self.read_page(store, p, &mut f);
            if read.is_err() {
                break;
            }
        }
        if let Some(b) = self.dir.get_mut(&id) {
            b.pages = pages;
        }
        read?;
        if let Some(t) = tail {
            let fr = self.frame(t);
            decode_entries(
                &fr.bytes[FRAME_HEADER + OWNER_BYTES..],
                fr.count,
                self.format,
                &mut f,
            );
        }
        Ok(())
    }

    /// Takes buffer `id` out: its entries in order are appended to `out`
    /// (read from flash), its frame and space are freed; returns the level
    /// and the policy state. Room is made in the pool for what is loaded,
    /// which stays counted until appended elsewhere ([`Buffers::append`]).
    pub fn take(
        &mut self,
        store: &mut dyn NodeStore,
        id: NodeId,
        out: &mut Vec<Elem>,
    ) -> Result<Option<(u8, S)>> {
        let Some(b) = self.dir.get(&id) else {
            return Ok(None);
        };
        let flash_bytes = b.flash_entries as usize * self.elem_bytes;
        let start = out.len();
        // The tail's entries come last (invariant 1) but leave the pool first.
        let mut tail_elems = Vec::new();
        if let Some(t) = b.tail {
            let fr = self.frame(t);
            decode_entries(
                &fr.bytes[FRAME_HEADER + OWNER_BYTES..],
                fr.count,
                self.format,
                &mut |e| tail_elems.push(e),
            );
            self.drop_frame(t);
            if let Some(b) = self.dir.get_mut(&id) {
                b.tail = None;
            }
        }
        let loading = flash_bytes + tail_elems.len() * self.elem_bytes;
        self.loading_bytes += loading;
        let loaded = self
            .make_room(store, 0)
            .and_then(|()| self.scan(store, id, |e| out.push(e)));
        if let Err(e) = loaded {
            // Nothing is taken: the buffer gets its tail back (in RAM, the
            // pool may run over) and keeps its pages.
            out.truncate(start);
            self.loading_bytes = self.loading_bytes.saturating_sub(loading);
            self.restore_tail(id, &tail_elems);
            return Err(e);
        }
        out.extend(tail_elems);
        debug_assert!(out.len() >= start);
        // Invariant: checked present above, and nothing between removes it.
        let b = self.dir.remove(&id).expect("present");
        self.overfull_queue.remove(&(b.level, Reverse(id)));
        self.release(store, &b)?;
        Ok(Some((b.level, b.state)))
    }

    /// Gives buffer `id` (which has no tail) a tail frame holding `elems`,
    /// evicting nothing: what a failed [`Buffers::take`] had removed.
    fn restore_tail(&mut self, id: NodeId, elems: &[Elem]) {
        if elems.is_empty() {
            return;
        }
        let f = self.new_frame(id);
        for e in elems {
            self.put(f, *e);
        }
        if let Some(b) = self.dir.get_mut(&id) {
            b.tail = Some(f);
        }
    }

    /// Writes `e` as the next entry of frame `f` (which has room).
    fn put(&mut self, f: usize, e: Elem) {
        let elem_bytes = self.elem_bytes;
        let kb = self.format.key_bytes as usize;
        let vb = self.format.value_bytes as usize;
        // Invariant 2: `f` is live.
        let fr = self.frames[f].as_mut().expect("live frame");
        let at = FRAME_HEADER + OWNER_BYTES + fr.count * elem_bytes;
        let slot = &mut fr.bytes[at..at + elem_bytes];
        slot[..kb].copy_from_slice(&e.key.to_le_bytes()[..kb]);
        slot[kb..kb + vb].copy_from_slice(&e.value.to_le_bytes()[..vb]);
        slot[kb + vb] = match e.op {
            Op::Insert => 1,
            Op::Delete => 2,
            Op::Lookup => 3,
        };
        fr.count += 1;
        if self.pool_unit == PoolUnit::Entries {
            self.pool_used += elem_bytes;
        }
    }

    /// Forgets what a loaded buffer still holds in RAM (an emptying that
    /// applied its entries to the tree rather than to other buffers).
    pub fn loaded_consumed(&mut self, elems: usize) {
        self.loading_bytes = self.loading_bytes.saturating_sub(elems * self.elem_bytes);
    }

    /// Frees the space of a buffer taken out of the directory.
    fn release(&mut self, store: &mut dyn NodeStore, b: &Buffer<S>) -> Result<()> {
        let pages = b.pages.iter().map(|p| p.addr);
        self.space
            .release(store, &b.held, pages, &mut self.counters)
    }

    /// Moves buffer `from` to node `to` (which has none), now at `level`:
    /// a root's buffer following the root. Its pages stay where they are
    /// (the directory remembers who wrote each).
    pub fn rename(&mut self, from: NodeId, to: NodeId, level: u8) {
        if let Some(mut b) = self.dir.remove(&from) {
            debug_assert!(!self.dir.contains_key(&to));
            if self.overfull_queue.remove(&(b.level, Reverse(from))) {
                self.overfull_queue.insert((level, Reverse(to)));
            }
            b.level = level;
            if let Some(t) = b.tail {
                if let Some(fr) = self.frames[t].as_mut() {
                    fr.owner = to;
                }
            }
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
        if !(1..=3).contains(&op) {
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
        return Err(corrupt(format!(
            "a buffer entry ({}, {}) is out of range",
            e.key, e.value
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
                _ => Op::Insert,
            },
        });
    }
}
