//! [`LogNodeStore`]: tree nodes packed into pages of a **node log** on a raw
//! chip (Agrawal et al. 2009 §5.2, "Node layout on flash"): several
//! small nodes share a page, every node write goes out of place to the head
//! of the log, and an in-memory **node table** maps each node to its current
//! place. The log is split into two halves; when the active half fills up,
//! the valid nodes are copied to the other half and the full half is erased.
//!
//! The paper's Toshiba part "does not allow any page rewrites", so the head
//! page is assembled in a one-page RAM write buffer and programmed once,
//! with just the bytes it holds, when the next node does not fit (or on
//! flush). A node still in that buffer is read from RAM.
//!
//! On-flash format (raw chip):
//! * blocks 0, 1 and 2: the superblock log (`node::superblock_log`).
//!   Each flush programs a superblock whose store state is the active half
//!   (`u8`), the number of log pages written in it (`u64`: the durable
//!   head, below) and `log_blocks` (`u64`); the valid one with the highest
//!   counter wins.
//! * blocks `3 .. 3 + H` and `3 + H .. 3 + 2H`: the two halves of the node
//!   log (`H = log_blocks`). The log is a stream of records
//!   `node id (u32) | node image (node_bytes)` over consecutive pages. A
//!   record that fits a page never straddles one (the rest of the page is
//!   left erased); a larger record runs on into the next pages, so a node
//!   may be larger than a page. An id of `0xFFFF_FFFF` (erased
//!   bytes) means the rest of that page was never written (a flush
//!   programmed a partial page).
//!
//! Durability (the contract in `docs/FORMAT.md`). The newest superblock
//! names the active half and its *durable head*: the newest record of each
//! node among the pages before it is the node as of that flush. Nothing
//! before the durable head is overwritten or erased until a newer
//! superblock names another place for the same state:
//! * a node's first change (or free) after a flush records where its
//!   durable version is (`durable_moved`), because the node table then
//!   points past it;
//! * a switch of halves first copies the durable version of every node of
//!   the flushed state, writes a superblock naming the new half (same tree
//!   metadata, a higher counter), and only then copies what changed since
//!   and erases the full half, last block first;
//! * open checks that nothing was programmed after the durable head and
//!   that the other half is erased (its first page reads erased: programs
//!   start there and erases end there, so the programmed blocks of a half
//!   are always a prefix of it). Otherwise a crash left pages the
//!   log must not program again, and open **recovers**: it erases the
//!   other half, copies the durable state into it, writes a superblock
//!   naming it and erases the old half. A cut during recovery leaves the
//!   same check failing, so the next open recovers again.
//!
//! The paper's node log has no flushes: it keeps the node table in RAM.
//! The copies of durable versions are what durability costs here,
//! reported as `node_log_durable_copies` (none in a run without flushes
//! but the one `create` writes), with the superblocks a switch writes
//! (`node_log_switch_superblocks`) and open's recoveries
//! (`node_log_recoveries`).
//!
//! Memory: the write buffer (one page, budget-bound: the cache above
//! leaves room for it, `NodeStore::reserved_bytes`) and the node table
//! (data-bound: 4 bytes a node id, as in the paper, a freed id's entry
//! included, since the free list is a list of the table's free entries;
//! and the durable locations of the nodes changed since the last flush,
//! 12 bytes each) count in `memory_bytes`. The node table is also its own
//! index stat, `node_table_bytes` (one of `node::budget::DATA_BOUND_LINES`),
//! because the paper excludes it from the budget (§6: "We exclude the
//! memory usage of the Node Table") and an experiment that follows it
//! subtracts that line. Issue #43: the free list used to count apart from
//! the table, budget-bound in name but sized by the data; and the durable
//! locations leave the table at a flush, so a report that subtracted the
//! table *at the end of a run* from the peak found the B+-tree 12 bytes
//! over its budget in every lat-* series (the one node changed since
//! create's flush); the runner subtracts the table at each operation.
//!
//! Invariants:
//! 1. `table[id]` is the newest copy of node `id`; older copies are garbage,
//!    except the durable versions (above).
//! 2. Only pages before `head_page` of the active half hold records;
//!    the other half is erased (except during a switch or a recovery).
//! 3. Every page is programmed once between erases (nop = 1 suffices).
//! 4. `durable_moved` holds, for every node of the flushed state whose
//!    table entry no longer points before the durable head, where its
//!    durable version is.

use std::collections::HashMap;

use crate::device::{Flash, Storage};
use crate::node::NodeError;

use super::codec::{Node, NodeId, NodeLayout};
use super::store::{IdAllocator, NodeChange, NodeStore, TreeMeta};
use super::superblock_log::{superblock_bytes, SuperblockLog, SUPERBLOCK_UNITS};

/// Bytes of the node id before each image in a log page.
pub const RECORD_ID: usize = 4;
const NOWHERE: u64 = u64::MAX;
/// The store's state in a superblock: active half, head page, log blocks.
const STATE_BYTES: usize = 1 + 8 + 8;
const SUPERBLOCK_BYTES: usize = superblock_bytes(STATE_BYTES);
/// The first block of the node log's halves.
const FIRST_BLOCK: u64 = SUPERBLOCK_UNITS as u64;

/// Nodes packed into a two-half log on a raw chip.
pub struct LogNodeStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    pages_per_block: u64,
    log_blocks: u64,
    /// Whether `log_blocks` was given (else an image's value is taken).
    log_blocks_given: bool,
    /// Which half receives writes (0 or 1).
    active: u8,
    /// Next log page (index within the active half) to program.
    head_page: u64,
    /// The page being assembled.
    head: Vec<u8>,
    head_used: usize,
    /// Node id → (absolute page << 16 | offset of the image), or NOWHERE.
    table: Vec<u64>,
    ids: IdAllocator,
    /// Image read back (or being copied by a switch of halves).
    image: Vec<u8>,
    /// Image being written: separate, because writing it may trigger a
    /// switch of halves that reads other nodes through `image`.
    out_image: Vec<u8>,
    superblocks: SuperblockLog,
    /// The tree metadata of the newest superblock (`None` before the first).
    durable_meta: Option<TreeMeta>,
    /// Pages of the active half before this hold the durable state.
    durable_head: u64,
    /// Invariant 4: node → its durable version's place.
    durable_moved: HashMap<NodeId, u64>,
    switches: u64,
    durable_copies: u64,
    switch_superblocks: u64,
    recoveries: u64,
}

impl LogNodeStore {
    /// A store on a raw chip; `log_blocks` per half (0: as many as fit, or
    /// as many as the image on the chip has).
    pub fn new(storage: Storage, layout: NodeLayout, log_blocks: u64) -> Result<Self, NodeError> {
        let geometry =
            match &storage {
                Storage::Raw(f) => f.geometry(),
                Storage::Pages(_) => return Err(NodeError::Config(
                    "the node log manages erase blocks itself and needs a raw chip (raw:PROFILE)"
                        .into(),
                )),
            };
        let page_size = geometry.page_size as usize;
        if layout.node_bytes > u16::MAX as usize {
            return Err(NodeError::Config(format!(
                "a {}-byte node is too large for the node log",
                layout.node_bytes
            )));
        }
        if page_size < SUPERBLOCK_BYTES {
            return Err(NodeError::Config(format!(
                "page size {page_size} is too small for the superblock"
            )));
        }
        let log_blocks_given = log_blocks != 0;
        let log_blocks = Self::check_log_blocks(geometry.blocks, log_blocks)?;
        Ok(LogNodeStore {
            storage,
            layout,
            page_size,
            pages_per_block: geometry.pages_per_block as u64,
            log_blocks,
            log_blocks_given,
            active: 0,
            head_page: 0,
            head: vec![0xFF; page_size],
            head_used: 0,
            table: Vec::new(),
            ids: IdAllocator::default(),
            image: vec![0u8; layout.node_bytes],
            out_image: vec![0u8; layout.node_bytes],
            superblocks: SuperblockLog::new(geometry.pages_per_block as u64),
            durable_meta: None,
            durable_head: 0,
            durable_moved: HashMap::new(),
            switches: 0,
            durable_copies: 0,
            switch_superblocks: 0,
            recoveries: 0,
        })
    }

    /// Blocks per half on a chip of `blocks` (0: as many as fit).
    fn check_log_blocks(blocks: u64, log_blocks: u64) -> Result<u64, NodeError> {
        let most = blocks.saturating_sub(FIRST_BLOCK) / 2;
        let log_blocks = if log_blocks == 0 { most } else { log_blocks };
        if log_blocks == 0 || log_blocks > most {
            return Err(NodeError::Config(format!(
                "the node log needs {FIRST_BLOCK} blocks for superblocks and 2 x {} for its \
                 halves; the chip has {blocks}",
                log_blocks.max(1)
            )));
        }
        Ok(log_blocks)
    }

    fn chip(&mut self) -> &mut dyn Flash {
        match &mut self.storage {
            Storage::Raw(f) => f.as_mut(),
            // Invariant: `new` accepts only raw storage.
            Storage::Pages(_) => unreachable!("LogNodeStore is built only on Storage::Raw"),
        }
    }

    fn half_pages(&self) -> u64 {
        self.log_blocks * self.pages_per_block
    }

    fn half_start(&self, half: u8) -> u64 {
        (FIRST_BLOCK + half as u64 * self.log_blocks) * self.pages_per_block
    }

    fn head_abs(&self) -> u64 {
        self.half_start(self.active) + self.head_page
    }

    /// Bytes of RAM the node table takes at 4 bytes a node id (the paper's
    /// figure; a freed id is a free entry of the table, whose free list
    /// the entries can thread), and the durable places of nodes changed
    /// since the flush: data-bound, reported apart from the budget.
    pub fn node_table_bytes(&self) -> usize {
        (self.ids.live() as usize + self.ids.free.len()) * 4 + self.durable_moved.len() * 12
    }

    /// Programs the assembled head page (just the bytes it holds) and
    /// moves the head to the next page.
    fn program_head(&mut self) -> Result<(), NodeError> {
        if self.head_used == 0 {
            return Ok(());
        }
        let page = self.head_abs();
        let used = self.head_used;
        let head = std::mem::take(&mut self.head);
        let r = self.chip().program(page, 0, &head[..used]);
        self.head = head;
        r?;
        self.head.fill(0xFF);
        self.head_used = 0;
        self.head_page += 1;
        Ok(())
    }

    /// Bytes left in the active half from the head on.
    fn room(&self) -> usize {
        (self.half_pages() - self.head_page) as usize * self.page_size - self.head_used
    }

    /// Starts a new page when a record of `need` bytes that fits a page
    /// would straddle one (so such a node costs one read, as in the paper),
    /// or when not even its id fits.
    fn pad(&mut self, need: usize) -> Result<(), NodeError> {
        let left = self.page_size - self.head_used;
        if self.head_used > 0 && (left < RECORD_ID || (need <= self.page_size && left < need)) {
            self.program_head()?;
        }
        Ok(())
    }

    /// Makes the head ready for a record of `need` bytes (see `pad`); the
    /// whole record must fit the active half, or the log switches halves
    /// (never while `copying`).
    fn make_room(&mut self, need: usize, copying: bool) -> Result<(), NodeError> {
        self.pad(need)?;
        if self.room() >= need {
            return Ok(());
        }
        let full = |what: &str| {
            NodeError::Device(crate::device::DeviceError::Full {
                detail: format!("the valid nodes {what} one half of the node log"),
            })
        };
        if copying {
            return Err(full("do not fit"));
        }
        self.program_head()?;
        self.switch_halves()?;
        self.pad(need)?;
        // The copies must leave a page free, or the log would switch back
        // and forth (see `can_allocate`).
        if self.room() < need + self.page_size {
            return Err(full("fill"));
        }
        Ok(())
    }

    /// Whether `loc` lies before the durable head of the active half.
    fn is_durable(&self, loc: u64) -> bool {
        let start = self.half_start(self.active);
        loc != NOWHERE && (loc >> 16) >= start && (loc >> 16) < start + self.durable_head
    }

    /// Invariant 4, before node `id`'s table entry moves.
    fn keep_durable(&mut self, id: NodeId) {
        if let Some(&loc) = self.table.get(id as usize) {
            if self.is_durable(loc) {
                self.durable_moved.entry(id).or_insert(loc);
            }
        }
    }

    /// Appends node `id`: from `image` when `copying` (a switch of halves,
    /// which never switches again), else from `out_image`. The image may
    /// run on into the next pages; the id never straddles a page.
    fn append(&mut self, id: NodeId, copying: bool) -> Result<(), NodeError> {
        let nb = self.layout.node_bytes;
        self.make_room(RECORD_ID + nb, copying)?;
        if !copying {
            // After `make_room`: a switch of halves moves the durable state.
            self.keep_durable(id);
        }
        let at = self.head_used;
        self.head[at..at + RECORD_ID].copy_from_slice(&id.to_le_bytes());
        self.head_used += RECORD_ID;
        if self.head_used == self.page_size {
            self.program_head()?;
        }
        let loc = (self.head_abs() << 16) | self.head_used as u64;
        let mut source = std::mem::take(if copying {
            &mut self.image
        } else {
            &mut self.out_image
        });
        let mut done = 0;
        let mut result = Ok(());
        while done < nb {
            let n = (nb - done).min(self.page_size - self.head_used);
            let at = self.head_used;
            self.head[at..at + n].copy_from_slice(&source[done..done + n]);
            self.head_used += n;
            done += n;
            if self.head_used == self.page_size && done < nb {
                result = self.program_head();
                if result.is_err() {
                    break;
                }
            }
        }
        std::mem::swap(
            if copying {
                &mut self.image
            } else {
                &mut self.out_image
            },
            &mut source,
        );
        result?;
        let idx = id as usize;
        if self.table.len() <= idx {
            self.table.resize(idx + 1, NOWHERE);
        }
        self.table[idx] = loc;
        Ok(())
    }

    /// Reads node `id`'s current image into `self.image`; returns the page
    /// it starts on.
    fn load_image(&mut self, id: NodeId) -> Result<u64, NodeError> {
        let loc = self.table.get(id as usize).copied().unwrap_or(NOWHERE);
        if loc == NOWHERE {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("node {id} is not in the node table"),
            });
        }
        self.load_image_at(loc)
    }

    /// Reads the image at `loc` into `self.image`; returns its first page.
    fn load_image_at(&mut self, loc: u64) -> Result<u64, NodeError> {
        let (first, mut offset) = (loc >> 16, (loc & 0xFFFF) as usize);
        let nb = self.layout.node_bytes;
        let mut image = std::mem::take(&mut self.image);
        let (mut page, mut done) = (first, 0);
        let mut result = Ok(());
        while done < nb {
            let n = (nb - done).min(self.page_size - offset);
            if page == self.head_abs() && self.head_used > 0 {
                image[done..done + n].copy_from_slice(&self.head[offset..offset + n]);
            } else {
                result = self.chip().read(page, offset, &mut image[done..done + n]);
                if result.is_err() {
                    break;
                }
            }
            done += n;
            page += 1;
            offset = 0;
        }
        self.image = image;
        result?;
        Ok(first)
    }

    /// Copies `(id, place)` records into the active half; a node whose
    /// table entry is elsewhere keeps it (a durable version is copied for
    /// the flushed state only).
    fn copy_records(&mut self, records: &[(NodeId, u64)]) -> Result<(), NodeError> {
        for &(id, loc) in records {
            let current = self.table.get(id as usize).copied().unwrap_or(NOWHERE);
            self.load_image_at(loc)?;
            self.append(id, true)?;
            if current != loc {
                self.table[id as usize] = current;
                self.durable_copies += 1;
            }
        }
        Ok(())
    }

    /// Erases a half, last block first, so that a half whose first page
    /// reads erased is erased all through (erases are atomic).
    fn erase_half(&mut self, half: u8) -> Result<(), NodeError> {
        let first = FIRST_BLOCK + half as u64 * self.log_blocks;
        for b in (0..self.log_blocks).rev() {
            self.chip().erase(first + b)?;
        }
        Ok(())
    }

    /// Copies every valid node to the other half, then erases this one:
    /// the durable state first and a superblock naming its new place, then
    /// what changed since the flush (see the module doc).
    fn switch_halves(&mut self) -> Result<(), NodeError> {
        let old = self.active;
        let old_start = self.half_start(old);
        let half = self.half_pages();
        let mut records: Vec<(NodeId, u64)> = Vec::new();
        if let Some(meta) = self.durable_meta.clone() {
            records.extend(self.durable_moved.iter().map(|(&id, &loc)| (id, loc)));
            for (id, &loc) in self.table.iter().enumerate() {
                if self.is_durable(loc) && !self.durable_moved.contains_key(&(id as NodeId)) {
                    records.push((id as NodeId, loc));
                }
            }
            records.sort_unstable_by_key(|&(_, loc)| loc);
            self.active = 1 - old;
            self.head_page = 0;
            self.copy_records(&records)?;
            self.program_head()?;
            self.write_superblock(&meta)?;
            self.switch_superblocks += 1;
        } else {
            self.active = 1 - old;
            self.head_page = 0;
        }
        self.switches += 1;
        records.clear();
        for (id, &loc) in self.table.iter().enumerate() {
            if loc != NOWHERE && (loc >> 16) >= old_start && (loc >> 16) < old_start + half {
                records.push((id as NodeId, loc));
            }
        }
        self.copy_records(&records)?;
        self.erase_half(old)
    }

    /// Appends a superblock of `meta` naming the active half and its head
    /// (everything before the head must be on flash): from now on that is
    /// the durable state.
    fn write_superblock(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        let (page, erase) = self.superblocks.take_page();
        if let Some(unit) = erase {
            self.chip().erase(unit as u64)?;
        }
        let mut state = [0u8; STATE_BYTES];
        state[0] = self.active;
        state[1..9].copy_from_slice(&self.head_page.to_le_bytes());
        state[9..17].copy_from_slice(&self.log_blocks.to_le_bytes());
        let mut buf = [0u8; SUPERBLOCK_BYTES];
        let len = self.superblocks.seal(meta, &state, &mut buf);
        self.chip().program(page, 0, &buf[..len])?;
        self.durable_head = self.head_page;
        self.durable_moved.clear();
        if self.durable_meta.as_ref() != Some(meta) {
            self.durable_meta = Some(meta.clone());
        }
        Ok(())
    }

    /// Rebuilds the node table by scanning the active half (invariant 2).
    fn rebuild_table(&mut self) -> Result<(), NodeError> {
        self.table.clear();
        let record = RECORD_ID + self.layout.node_bytes;
        let start = self.half_start(self.active);
        let mut id_bytes = [0u8; RECORD_ID];
        let (mut p, mut at) = (0u64, 0usize);
        while p < self.head_page {
            if self.page_size - at < RECORD_ID {
                (p, at) = (p + 1, 0);
                continue;
            }
            self.chip().read(start + p, at, &mut id_bytes)?;
            let id = u32::from_le_bytes(id_bytes);
            if id == u32::MAX {
                // Erased: the rest of this page was never written.
                (p, at) = (p + 1, 0);
                continue;
            }
            let (image_page, image_at) = if at + RECORD_ID == self.page_size {
                (p + 1, 0)
            } else {
                (p, at + RECORD_ID)
            };
            if id < self.ids.next_id {
                let idx = id as usize;
                if self.table.len() <= idx {
                    self.table.resize(idx + 1, NOWHERE);
                }
                self.table[idx] = ((start + image_page) << 16) | image_at as u64;
            }
            let end = at + record;
            (p, at) = (p + (end / self.page_size) as u64, end % self.page_size);
        }
        Ok(())
    }

    /// Whether `page` reads erased (all 0xFF): a program always starts a
    /// page with a record's id, which a torn program keeps.
    fn reads_erased(&mut self, page: u64, buf: &mut [u8]) -> Result<bool, NodeError> {
        self.chip().read(page, 0, buf)?;
        Ok(buf.iter().all(|&b| b == 0xFF))
    }

    /// Whether a crash left nothing the log would program again: no page
    /// after the durable head, and the other half erased.
    fn is_clean(&mut self, buf: &mut [u8]) -> Result<bool, NodeError> {
        if self.head_page < self.half_pages() && !self.reads_erased(self.head_abs(), buf)? {
            return Ok(false);
        }
        let other = self.half_start(1 - self.active);
        self.reads_erased(other, buf)
    }

    /// Erases what a crash may have left programmed in `half`, whose blocks
    /// before `from` are programmed: the programmed blocks of a half are
    /// always a prefix of it (writes run forward from its first page and
    /// erases backward from its last block), so the first block from
    /// `from` on whose first page reads erased ends them.
    fn erase_programmed(&mut self, half: u8, from: u64, buf: &mut [u8]) -> Result<(), NodeError> {
        let start = self.half_start(half);
        let mut end = from;
        while end < self.log_blocks
            && !self.reads_erased(start + end * self.pages_per_block, buf)?
        {
            end += 1;
        }
        let first = FIRST_BLOCK + half as u64 * self.log_blocks;
        for b in (0..end).rev() {
            self.chip().erase(first + b)?;
        }
        Ok(())
    }

    /// Moves the durable state (the table just rebuilt) into the other
    /// half after erasing it, names it in a superblock and erases the old
    /// half: the log is then as a flush leaves it.
    fn recover(&mut self, meta: &TreeMeta, buf: &mut [u8]) -> Result<(), NodeError> {
        let old = self.active;
        self.erase_programmed(1 - old, 0, buf)?;
        let durable_blocks = self.head_page.div_ceil(self.pages_per_block);
        self.active = 1 - old;
        self.head_page = 0;
        let records: Vec<(NodeId, u64)> = (0..self.table.len())
            .filter(|&id| self.table[id] != NOWHERE)
            .map(|id| (id as NodeId, self.table[id]))
            .collect();
        self.copy_records(&records)?;
        self.program_head()?;
        self.write_superblock(meta)?;
        self.erase_programmed(old, durable_blocks, buf)?;
        self.recoveries += 1;
        Ok(())
    }
}

impl NodeStore for LogNodeStore {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        let page = self.load_image(id)?;
        self.layout.decode(&self.image, page, node)
    }

    fn read_image(&mut self, id: NodeId) -> Result<Option<(&[u8], u64)>, NodeError> {
        let page = self.load_image(id)?;
        Ok(Some((&self.image, page)))
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        _change: NodeChange,
    ) -> Result<(), NodeError> {
        self.layout.encode(node, &mut self.out_image);
        self.append(id, false)
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        self.ids.allocate(|_| Ok(()))
    }

    fn can_allocate(&self, n: usize) -> bool {
        // After a switch of halves the live nodes, and the durable versions
        // of those changed since the flush, must leave at least one free
        // page, or the log would switch back and forth forever.
        let need = RECORD_ID + self.layout.node_bytes;
        let room = if need <= self.page_size {
            (self.half_pages() - 1) * (self.page_size / need) as u64
        } else {
            // Straddling records pad at most RECORD_ID - 1 bytes a page.
            (self.half_pages() - 1) * (self.page_size - RECORD_ID) as u64 / need as u64
        };
        let fresh_room = room.saturating_sub(self.ids.live() + self.durable_moved.len() as u64);
        fresh_room >= n as u64 && self.ids.can_allocate(n, fresh_room)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        self.keep_durable(id);
        if let Some(loc) = self.table.get_mut(id as usize) {
            *loc = NOWHERE;
        }
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        for &id in &free {
            if let Some(loc) = self.table.get_mut(id as usize) {
                *loc = NOWHERE;
            }
        }
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let (ppb, page_size) = (self.pages_per_block, self.page_size);
        let chip = self.chip();
        let (log, newest) = SuperblockLog::scan(ppb, page_size, STATE_BYTES, |p, buf| {
            chip.read(p, 0, buf).map_err(NodeError::from)
        })?;
        let Some(newest) = newest else {
            return Ok(None);
        };
        // Invariant: the scan returns exactly STATE_BYTES of state, so the
        // slices below are 8 bytes long.
        let s = &newest.state;
        let active = s[0];
        let head = u64::from_le_bytes(s[1..9].try_into().expect("8 bytes"));
        let log_blocks = u64::from_le_bytes(s[9..17].try_into().expect("8 bytes"));
        if log_blocks != self.log_blocks {
            if self.log_blocks_given {
                return Err(NodeError::Mismatch {
                    parameter: "log_blocks".into(),
                    image: log_blocks.to_string(),
                    given: self.log_blocks.to_string(),
                });
            }
            let blocks = match &self.storage {
                Storage::Raw(f) => f.geometry().blocks,
                Storage::Pages(_) => 0,
            };
            self.log_blocks =
                Self::check_log_blocks(blocks, log_blocks).map_err(|_| NodeError::Corrupt {
                    page: newest.page,
                    detail: format!("superblock: {log_blocks} log blocks do not fit the chip"),
                })?;
        }
        if active > 1 || head > self.half_pages() {
            return Err(NodeError::Corrupt {
                page: newest.page,
                detail: "node log state out of range".into(),
            });
        }
        let meta = newest.meta;
        self.superblocks = log;
        self.active = active;
        self.head_page = head;
        self.durable_head = head;
        self.durable_moved.clear();
        self.durable_meta = Some(meta.clone());
        self.ids = IdAllocator::starting_at(meta.next_id);
        self.rebuild_table()?;
        let mut buf = vec![0u8; self.page_size];
        if !self.is_clean(&mut buf)? {
            self.recover(&meta, &mut buf)?;
        }
        Ok(Some(meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        // The superblock names the head: everything before it must be on flash.
        self.program_head()?;
        self.write_superblock(meta)
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.page_size + self.node_table_bytes()
    }

    fn reserved_bytes(&self) -> usize {
        self.page_size
    }

    /// The node table (`node_table_bytes`): one entry a node, data-bound.
    fn data_bound_bytes(&self) -> usize {
        self.node_table_bytes()
    }

    fn flash_bytes_used(&self) -> u64 {
        (FIRST_BLOCK * self.pages_per_block + self.head_page + u64::from(self.head_used > 0))
            * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn storage_mut(&mut self) -> Option<&mut Storage> {
        Some(&mut self.storage)
    }

    fn spare_blocks(&self) -> Option<std::ops::Range<u64>> {
        let end = match &self.storage {
            Storage::Raw(f) => f.geometry().blocks,
            Storage::Pages(_) => return None,
        };
        Some(FIRST_BLOCK + 2 * self.log_blocks..end)
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn report(&self, stats: &mut crate::node::IndexStats) {
        stats.set("node_table_bytes", self.node_table_bytes() as f64);
        stats.set("node_log_switches", self.switches as f64);
        stats.set("node_log_head_page", self.head_page as f64);
        stats.set("node_log_durable_copies", self.durable_copies as f64);
        stats.set(
            "node_log_switch_superblocks",
            self.switch_superblocks as f64,
        );
        stats.set("node_log_recoveries", self.recoveries as f64);
    }
}
