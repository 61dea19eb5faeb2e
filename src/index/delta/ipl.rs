//! [`IplStore`]: In-Page Logging (Lee & Moon, SIGMOD 2007, as
//! Agrawal et al. 2009 §6.1 implements it under a B+-tree).
//!
//! Every erase unit is split statically into `node_pages_per_block` node
//! pages and `log_pages_per_block` log pages (default 16 + 16, "since these
//! settings worked best"). A node lives in a slot of the node area of one
//! unit; its changes are kept as deltas in an in-memory **log buffer**, and
//! when the buffer is evicted (or fills a log sector) it is written to the
//! next free **log sector** of the node's own unit, which holds only that
//! node's deltas ("each node gets its own dedicated delta page"). A node
//! has at most `max_deltas` log sectors. When the unit's log area is full,
//! or the node already has `max_deltas` sectors, the unit is **merged**:
//! every live node in it is read with its deltas applied and rewritten into
//! a fresh unit, and the old unit is erased.
//!
//! A node rewritten as a whole (a split, a merge of B+-tree nodes, a new
//! node) goes to a fresh slot — its own unit's if one is left — and its old
//! slot and log sectors become garbage, reclaimed when that unit is merged.
//! When no unit has a fresh slot, the unit with the most garbage is merged.
//! One erased unit is always kept in reserve for merges.
//!
//! Erase units: on a raw chip (`raw:PROFILE`) they are the chip's blocks
//! (`node_pages_per_block + log_pages_per_block` must equal its pages per
//! block; by default they split it in half). Over an FTL or a file they are
//! aligned groups of that many logical pages, and "erasing" one trims its
//! pages; the FTL underneath places pages as it likes, so IPL's locality is
//! only logical there (the report's device notes say which it was).
//!
//! Unit state (slots and log sectors used, live nodes) is held only for the
//! units used so far, grown as fresh ones are taken (lowest first, after
//! those freed by merges): a file's 2^32-page logical device costs nothing
//! until written. [`IplStore::unit_table_len`] reports how many.
//!
//! Memory (issue #43, [`crate::node::budget`]):
//! * **data-bound**, the node table (`node_table_bytes`): 6 bytes a node
//!   (its unit `u32` and slot `u16`), 2 a log sector it has, as much again
//!   for each durable version kept apart until the next superblock
//!   (`saved`), and 4 a freed node id. Kept as counts that change with the
//!   table (O(1) to ask). Paid from the budget by default; `tables=outside`
//!   keeps it beside the budget, as the paper's §6 does.
//! * **budget-bound**: the log buffers, one page each, at most a quarter
//!   of what the budget leaves after the node table (or `log_buffers` as
//!   given, never more than all it leaves), at least one; refitted after
//!   every change, writing the least recently updated ones past the
//!   limit. The tree's LRU node cache gets the rest
//!   (`BTree::fit_to_budget`). The least recently updated buffer is also
//!   written first when another is needed. The buffers are a fixed area:
//!   as many as the limit allows are allocated (a log sector's worth of
//!   deltas each, about a page), in use or spare, so what is charged is
//!   what is held.
//!
//! Not counted: the unit table (a few bytes and the lists of live and kept
//! nodes per erase unit used) and the page-sized I/O scratch.
//!
//! On-flash format (page numbers within the unit space):
//! * units 0, 1 and 2: the superblock log. A superblock is a page frame of
//!   kind `Superblock` holding [`TreeMeta`], then the units reserved `R`
//!   (`u32`: no record is in a unit from `R` on), the sequence bound `S`
//!   (`u64`: the records of the state it describes are numbered below it;
//!   0 says that state was given up, below) and the superblock counter
//!   (`u64`); the valid one with the highest counter wins. Superblocks
//!   fill unit 0 page by page, then unit 1, then 2, then 1 again, ...: the
//!   unit taken next is erased first, and it never holds the newest one.
//!   Unit 0 is never erased, so its first page keeps the first superblock,
//!   where every open reads the layout (`crate::index::kinds::reopen`).
//! * units 3 ..: node units. A node slot (`⌈(29 + node_bytes) / page⌉`
//!   pages) is a record page ([`crate::node::delta`]) with one base
//!   record; a log sector (one page) is a record page with delta records of
//!   one node. Both carry a sequence number.
//!
//! Durability (the contract of `docs/FORMAT.md`). A flush writes every log
//! buffer, then a superblock whose bound `S` is the next sequence number.
//! Open (`ipl/recovery.rs`) rebuilds exactly that state: a node is its base
//! with the highest number below `S` and the log sectors of the same unit
//! numbered between that base and `S`; everything numbered `S` or more is
//! ignored, and so is a page failing its checksum as the last written entry
//! of its area (a torn program). Until the next superblock, what the newest
//! one describes therefore stays on flash (`ipl/durable.rs`):
//! * A node's **durable version** is the one the newest superblock
//!   describes. Its first change after it (a buffered delta, a rewrite, a
//!   free) records where that version is (`saved`); the unit holding it
//!   lists the node as **kept**.
//! * A merge copies a node unchanged since the superblock (**clean**) with
//!   the number of its newest record: the copy *is* that durable version,
//!   as valid to open as the original. It copies a changed node's current
//!   version with a new number, and each kept durable version with its own
//!   old number (into the fresh unit, else a unit in use with a fresh slot,
//!   else a second fresh unit while one stays in reserve). Only then is the
//!   old unit erased. Should a kept version find no slot, the unit is
//!   **closed** instead: nothing new goes there, and it is erased after the
//!   next superblock.
//! * A fresh unit is taken only below `R`; reaching `R` first writes a
//!   superblock repeating the newest state with a larger `R`, so open scans
//!   every unit a record of that state can be in.
//! * Records open ignored stay on flash; the units holding them
//!   (**tainted**) take nothing new and are merged and erased before the
//!   store writes anything else, so they never surface under a later bound
//!   (sequence numbers go on above every one seen).
//! * A device too full to keep both versions of what changed since the
//!   newest superblock **gives that state up**: a superblock with bound 0
//!   says so, and until the next flush a power cut opens as `Corrupt` (lost,
//!   never a mix); from then on merges keep nothing apart, as before.
//!
//! Invariants:
//! 1. Every page is programmed at most once between erases of its unit
//!    (slots, log sectors and superblock pages are handed out in order,
//!    counted as used before they are programmed; open counts a torn or
//!    ignored page as used).
//! 2. `units[u].live` lists exactly the nodes whose current version is in
//!    unit `u`, `units[u].kept` those whose durable version (in `saved`) is
//!    there; units from `units.len()` on were never used and are erased; no
//!    unit from `reserved` on is used, and the newest superblock records
//!    `reserved` (while one describes a state).
//! 3. At least one unit is erased and free after every operation.
//! 4. A node's deltas are, in order: its log sectors, then its log buffer.
//! 5. A node not in `saved` whose id is below the durable `next_id` is
//!    clean: its current place holds exactly its durable version. A durable
//!    version is erased only after a superblock no longer needs it.
//! 6. A page numbered at or above the newest superblock's bound lies in a
//!    tainted unit or was written since the store was opened or created.

mod durable;
mod logs;
mod read;
mod recovery;

use std::collections::HashMap;

use crate::device::{DeviceError, Storage};
use crate::node::delta::{self, Delta, FIRST_RECORD};
use crate::node::store::IdAllocator;
use crate::node::superblock_log::{superblock_bytes, SuperblockLog, SUPERBLOCK_UNITS};
use crate::node::{Budget, IndexStats, NodeError};
use crate::node::{Node, NodeChange, NodeId, NodeLayout, NodeStore, TreeMeta};

use super::STATE_BYTES;

const NOWHERE: u32 = u32::MAX;
/// Units 0, 1 and 2 hold the superblock log ([`SuperblockLog`]).
const FIRST_UNIT: u32 = SUPERBLOCK_UNITS;
/// A superblock whose state is the shared part (units reserved, sequence
/// bound); the log appends its counter.
const SUPERBLOCK_BYTES: usize = superblock_bytes(STATE_BYTES);
/// The sequence bound of a superblock whose state was given up for room.
const GIVEN_UP: u64 = 0;
/// Fresh units reserved beyond the one asked for (at least; a quarter more
/// as the store grows), so that reserving costs few superblocks.
const RESERVE_AHEAD: u32 = 8;

/// Geometry parameters of IPL.
#[derive(Clone, Copy, Debug)]
pub struct IplConfig {
    /// `None`: half of the erase unit.
    pub node_pages_per_block: Option<u64>,
    pub log_pages_per_block: Option<u64>,
    pub max_deltas: usize,
    /// `None`: a quarter of what the budget leaves after the node table,
    /// in log sectors.
    pub log_buffers: Option<usize>,
    /// The budget, and whether the node table is paid from it.
    pub budget: Budget,
}

#[derive(Clone, Debug, Default)]
struct UnitState {
    next_slot: u16,
    log_used: u16,
    live: Vec<NodeId>,
    /// Nodes whose durable version (`saved`) has its base here.
    kept: Vec<NodeId>,
    /// Takes no new slot or log sector: merged out while it still held
    /// durable versions, or tainted at open.
    closed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    unit: u32,
    slot: u16,
    logs: Vec<u16>,
}

impl Place {
    /// Bytes of this entry in the node table's layout (module docs).
    fn table_bytes(&self) -> usize {
        6 + 2 * self.logs.len()
    }
}

const NO_PLACE: Place = Place {
    unit: NOWHERE,
    slot: 0,
    logs: Vec::new(),
};

/// What the newest superblock on flash describes.
#[derive(Clone, Debug)]
struct Durable {
    meta: TreeMeta,
    /// Its records are numbered below this.
    bound: u64,
}

struct LogBuffer {
    id: NodeId,
    deltas: Vec<Delta>,
    tick: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    merges: u64,
    reclaim_merges: u64,
    base_writes: u64,
    log_sectors_written: u64,
    log_sector_reads: u64,
    /// Slots written to keep a durable version that is no longer current.
    durable_copies: u64,
    /// Units closed by a merge because a durable version found no slot.
    units_closed: u64,
    /// Superblocks written to reserve fresh units.
    reservations: u64,
    /// Times the last flush's state was given up for room.
    durable_given_up: u64,
}

/// Nodes and their in-page logs in erase units.
pub struct IplStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    unit_pages: u64,
    node_area: u64,
    log_pages: u16,
    node_pages: u64,
    slots: u16,
    /// Erase units the device holds (the superblock units included).
    unit_count: u32,
    /// State of units `0 .. units.len()` (the first two are the superblock
    /// units and stay default): grown on first use, so that a huge logical
    /// device (a file's 2^32 pages) costs nothing up front; units at and
    /// beyond `units.len()` are erased and free.
    units: Vec<UnitState>,
    /// Units below `units.len()` freed by a merge (popped before fresh ones).
    free_units: Vec<u32>,
    /// Units the newest superblock lets hold records (invariant 2).
    reserved: u32,
    alloc_unit: u32,
    places: Vec<Place>,
    /// Durable versions of the nodes changed since the newest superblock
    /// (`None`: it describes no such node); invariant 5.
    saved: HashMap<NodeId, Option<Place>>,
    durable: Option<Durable>,
    /// Units holding records open ignored, to merge before any write.
    tainted: Vec<u32>,
    buffers: Vec<LogBuffer>,
    /// Log buffers allowed now (`fit_log_buffers`).
    max_buffers: usize,
    /// `log_buffers` as given, a cap; `None`: a share of the budget.
    buffers_given: Option<usize>,
    budget: Budget,
    /// Node table bytes of the current places and of the durable versions
    /// kept apart (`saved`), kept as they change (O(1) to ask).
    current_bytes: usize,
    saved_bytes: usize,
    max_deltas: usize,
    log_capacity: usize,
    tick: u64,
    seq: u64,
    ids: IdAllocator,
    /// Where the next superblock goes.
    superblocks: SuperblockLog,
    slot_buf: Vec<u8>,
    page_buf: Vec<u8>,
    /// A whole page for programs of fewer bytes over logical pages.
    pad_buf: Vec<u8>,
    /// Delta lists of written log buffers, reused by the next ones.
    spare_lists: Vec<Vec<Delta>>,
    scratch: Node,
    counters: Counters,
}

fn full(detail: &str) -> NodeError {
    NodeError::Device(DeviceError::Full {
        detail: detail.into(),
    })
}

impl IplStore {
    /// A store on any storage; `config.budget` sizes the log buffers.
    pub fn new(storage: Storage, layout: NodeLayout, config: IplConfig) -> Result<Self, NodeError> {
        let page_size = storage.page_size();
        let (device_unit, capacity, raw) = match &storage {
            Storage::Raw(f) => {
                let g = f.geometry();
                (g.pages_per_block as u64, g.pages(), true)
            }
            Storage::Pages(d) => (d.pages_per_block() as u64, d.capacity_pages(), false),
        };
        let half = if device_unit >= 4 {
            device_unit / 2
        } else {
            16
        };
        let npb = config.node_pages_per_block.unwrap_or(half);
        let lpb = config.log_pages_per_block.unwrap_or(half);
        let unit_pages = npb + lpb;
        if npb == 0 || lpb == 0 || lpb > u16::MAX as u64 {
            return Err(NodeError::Config(format!(
                "IPL needs node and log pages in every erase unit, got {npb} + {lpb}"
            )));
        }
        if raw && unit_pages != device_unit {
            return Err(NodeError::Config(format!(
                "on a raw chip IPL's erase unit is a block of {device_unit} pages; \
                 node_pages_per_block + log_pages_per_block = {unit_pages}"
            )));
        }
        let node_pages =
            (FIRST_RECORD + delta::base_record_bytes(layout)).div_ceil(page_size) as u64;
        let slots = npb / node_pages;
        if slots == 0 || slots > u16::MAX as u64 {
            return Err(NodeError::Config(format!(
                "a {}-byte node needs {node_pages} pages; {npb} node pages per block hold none",
                layout.node_bytes
            )));
        }
        let log_capacity =
            page_size.saturating_sub(FIRST_RECORD) / delta::delta_record_bytes(layout.format);
        if log_capacity == 0 || page_size < SUPERBLOCK_BYTES {
            return Err(NodeError::Config(format!(
                "a {page_size}-byte page holds no log sector or superblock"
            )));
        }
        let units = (capacity / unit_pages).min(NOWHERE as u64 - 1) as u32;
        if units < FIRST_UNIT + 3 {
            return Err(NodeError::Config(format!(
                "IPL needs at least 6 erase units of {unit_pages} pages (three for superblocks, \
                 a reserve, two for nodes); the device has {units}"
            )));
        }
        if !(1..=64).contains(&config.max_deltas) {
            return Err(NodeError::Config(format!(
                "max_deltas must be 1..=64, got {}",
                config.max_deltas
            )));
        }
        let mut s = IplStore {
            storage,
            layout,
            page_size,
            unit_pages,
            node_area: npb,
            log_pages: lpb as u16,
            node_pages,
            slots: slots as u16,
            unit_count: units,
            units: vec![UnitState::default(); FIRST_UNIT as usize],
            free_units: Vec::new(),
            reserved: FIRST_UNIT,
            alloc_unit: NOWHERE,
            places: Vec::new(),
            saved: HashMap::new(),
            durable: None,
            tainted: Vec::new(),
            buffers: Vec::new(),
            max_buffers: 1,
            buffers_given: config.log_buffers,
            budget: config.budget,
            current_bytes: 0,
            saved_bytes: 0,
            max_deltas: config.max_deltas,
            log_capacity,
            tick: 0,
            seq: 1,
            ids: IdAllocator::default(),
            superblocks: SuperblockLog::new(unit_pages),
            slot_buf: vec![0u8; node_pages as usize * page_size],
            page_buf: vec![0u8; page_size],
            pad_buf: vec![0xFFu8; page_size],
            spare_lists: Vec::new(),
            scratch: Node::default(),
            counters: Counters::default(),
        };
        s.max_buffers = s.buffer_limit();
        s.size_spares();
        Ok(s)
    }

    // ---- the unit space ----------------------------------------------------

    fn read_page(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<(), NodeError> {
        match &mut self.storage {
            Storage::Raw(f) => f.read(page, offset, buf)?,
            Storage::Pages(d) => d.read(page, offset, buf)?,
        }
        Ok(())
    }

    /// Programs `data` at the start of `page`; over logical pages the page
    /// is written whole (so the FTL never reads to merge).
    fn program(&mut self, page: u64, data: &[u8]) -> Result<(), NodeError> {
        match &mut self.storage {
            Storage::Raw(f) => f.program(page, 0, data)?,
            Storage::Pages(d) => {
                if data.len() == self.page_size {
                    d.write(page, 0, data)?
                } else {
                    let full = &mut self.pad_buf;
                    full[..data.len()].copy_from_slice(data);
                    full[data.len()..].fill(0xFF);
                    d.write(page, 0, full)?
                }
            }
        }
        Ok(())
    }

    fn erase(&mut self, unit: u32) -> Result<(), NodeError> {
        let first = unit as u64 * self.unit_pages;
        match &mut self.storage {
            Storage::Raw(f) => f.erase(unit as u64)?,
            Storage::Pages(d) => {
                for p in first..first + self.unit_pages {
                    d.trim(p)?;
                }
            }
        }
        Ok(())
    }

    fn slot_page(&self, unit: u32, slot: u16) -> u64 {
        unit as u64 * self.unit_pages + slot as u64 * self.node_pages
    }

    fn log_page(&self, unit: u32, log: u16) -> u64 {
        unit as u64 * self.unit_pages + self.node_area + log as u64
    }

    fn slot_bytes(&self) -> usize {
        FIRST_RECORD + delta::base_record_bytes(self.layout)
    }

    /// Node units whose state is held in RAM: those used so far, not the
    /// device's.
    pub fn unit_table_len(&self) -> usize {
        self.units.len() - FIRST_UNIT as usize
    }

    /// Free units: the freed ones and those never used.
    fn free_unit_count(&self) -> usize {
        self.free_units.len() + (self.unit_count as usize - self.units.len())
    }

    /// A free unit: the last one freed, else the lowest never used (the
    /// order a full free list of every unit would give). A fresh unit at
    /// or beyond `reserved` is first reserved by a superblock (invariant 2).
    fn pop_free_unit(&mut self) -> Result<Option<u32>, NodeError> {
        if let Some(u) = self.free_units.pop() {
            return Ok(Some(u));
        }
        let u = self.units.len() as u32;
        if u >= self.unit_count {
            return Ok(None);
        }
        if u >= self.reserved {
            let ahead = RESERVE_AHEAD.max(u / 4);
            let reserved = u
                .saturating_add(1)
                .saturating_add(ahead)
                .min(self.unit_count);
            if let Some(d) = self.durable.take() {
                let written = self.write_superblock(&d.meta, d.bound, reserved);
                self.durable = Some(d);
                written?;
                self.counters.reservations += 1;
            }
            self.reserved = reserved;
        }
        self.units.push(UnitState::default());
        Ok(Some(u))
    }

    /// Bytes of RAM the node table takes (module docs): 4 + 2 bytes a
    /// node, 2 a log sector, as much again for each durable version kept
    /// apart, and 4 a freed node id. O(1).
    pub fn node_table_bytes(&self) -> usize {
        self.current_bytes + self.saved_bytes + 4 * self.ids.free.len()
    }

    // ---- slots ------------------------------------------------------------

    /// Writes `node` into the next fresh slot of `unit`, numbered `keep`
    /// (a copy of the version that number names) or a new number.
    fn program_slot(
        &mut self,
        unit: u32,
        id: NodeId,
        node: &Node,
        keep: Option<u64>,
    ) -> Result<u16, NodeError> {
        let slot = self.units[unit as usize].next_slot;
        // Used from now on, programmed or not (invariant 1).
        self.units[unit as usize].next_slot += 1;
        let seq = keep.unwrap_or_else(|| {
            self.seq += 1;
            self.seq - 1
        });
        let used = self.slot_bytes();
        let mut buf = std::mem::take(&mut self.slot_buf);
        let at = delta::start_page(&mut buf, seq);
        delta::put_base(&mut buf[at..used], id, node, self.layout);
        delta::seal_page(&mut buf, used);
        let first = self.slot_page(unit, slot);
        let ps = self.page_size;
        let mut result = Ok(());
        for i in 0..self.node_pages as usize {
            let end = used.min((i + 1) * ps);
            result = self.program(first + i as u64, &buf[i * ps..end]);
            if result.is_err() {
                break;
            }
        }
        self.slot_buf = buf;
        result?;
        self.counters.base_writes += 1;
        Ok(slot)
    }

    fn has_room(&self, u: u32) -> bool {
        u != NOWHERE && {
            let s = &self.units[u as usize];
            !s.closed && s.next_slot < self.slots
        }
    }

    /// A unit with a fresh slot: `prefer`'s, the allocation unit's, a free
    /// unit (keeping one in reserve), or one reclaimed by merging the unit
    /// with the most garbage.
    fn unit_with_room(&mut self, prefer: u32) -> Result<u32, NodeError> {
        if self.has_room(prefer) {
            return Ok(prefer);
        }
        loop {
            if self.has_room(self.alloc_unit) {
                return Ok(self.alloc_unit);
            }
            if self.free_unit_count() > 1 {
                if let Some(u) = self.pop_free_unit()? {
                    self.alloc_unit = u;
                    return Ok(u);
                }
            }
            // Free units have no slot written, so they never look dead; one
            // pass over the units used so far finds the victim.
            let victim = (FIRST_UNIT..self.units.len() as u32)
                .map(|u| {
                    (
                        self.units[u as usize].next_slot as usize - self.occupied(u),
                        u,
                    )
                })
                .filter(|&(dead, _)| dead > 0)
                .max();
            if let Some((_, victim)) = victim {
                self.counters.reclaim_merges += 1;
                let target = self.merge(victim)?;
                self.alloc_unit = target;
                if self.has_room(target) {
                    return Ok(target);
                }
            }
            // At most once until the next superblock: it keeps nothing
            // apart afterwards.
            if !self.give_up_durable()? {
                return Err(full(&if victim.is_some() {
                    "merging freed no node slot".to_string()
                } else {
                    format!(
                        "every node slot of the {} IPL erase units holds a live node",
                        self.unit_count - FIRST_UNIT
                    )
                }));
            }
        }
    }

    /// Removes node `id` from its current place (its slot and log sectors
    /// become garbage, unless they hold its durable version) and drops its
    /// log buffer.
    fn forget(&mut self, id: NodeId) {
        self.drop_buffer(id);
        let Some(p) = self.places.get_mut(id as usize) else {
            return;
        };
        let old = std::mem::replace(p, NO_PLACE);
        if old.unit != NOWHERE {
            self.current_bytes -= old.table_bytes();
            let live = &mut self.units[old.unit as usize].live;
            if let Some(i) = live.iter().position(|&x| x == id) {
                live.swap_remove(i);
            }
        }
        let mut logs = old.logs;
        logs.clear();
        self.places[id as usize].logs = logs;
    }

    /// Makes slot `slot` of `unit` node `id`'s current place.
    fn place(&mut self, id: NodeId, unit: u32, slot: u16) {
        let i = id as usize;
        if self.places.len() <= i {
            self.places.resize(i + 1, NO_PLACE);
        }
        let p = &mut self.places[i];
        let old = if p.unit != NOWHERE {
            p.table_bytes()
        } else {
            0
        };
        p.unit = unit;
        p.slot = slot;
        p.logs.clear();
        self.current_bytes = self.current_bytes - old + NO_PLACE.table_bytes();
        self.units[unit as usize].live.push(id);
    }

    /// Writes `node` whole into a fresh slot.
    fn write_base(&mut self, id: NodeId, node: &Node) -> Result<(), NodeError> {
        let prefer = self.places.get(id as usize).map_or(NOWHERE, |p| p.unit);
        // A reclaiming merge may move the node: only after it is its
        // durable place known, and its old place given up.
        let unit = self.unit_with_room(prefer)?;
        self.diverge(id);
        let slot = self.program_slot(unit, id, node, None)?;
        self.forget(id);
        self.place(id, unit, slot);
        Ok(())
    }

    /// Merges `unit`: every current version in it, with its deltas, into a
    /// fresh unit (invariant 3 guarantees one), then every durable version
    /// kept there; erases `unit`, or closes it if a durable version found
    /// no slot. Returns the new unit.
    fn merge(&mut self, unit: u32) -> Result<u32, NodeError> {
        let free = self.free_unit_count();
        if free == 0 {
            return Err(full("no erased unit is left for an IPL merge"));
        }
        let s = &self.units[unit as usize];
        let overflow = (s.live.len() + s.kept.len()).saturating_sub(self.slots as usize);
        // Closing `unit` would leave no erased unit (invariant 3).
        if free == 1 && overflow > self.room_for_copies(unit, NOWHERE) {
            if !self.give_up_durable()? {
                return Err(full(
                    "no room to keep both the durable and the current versions of an IPL \
                     erase unit",
                ));
            }
            if self.free_units.contains(&unit) {
                // It held only durable versions: given up, and erased.
                return self
                    .pop_free_unit()?
                    .ok_or_else(|| full("no erased unit is left for an IPL merge"));
            }
        }
        let target = self
            .pop_free_unit()?
            .ok_or_else(|| full("no erased unit is left for an IPL merge"))?;
        self.counters.merges += 1;
        let mut node = std::mem::take(&mut self.scratch);
        let mut live = std::mem::take(&mut self.units[unit as usize].live);
        live.sort_unstable();
        let mut moved = 0;
        let mut result = Ok(());
        for &id in &live {
            result = self.move_current(id, target, &mut node);
            if result.is_err() {
                break;
            }
            moved += 1;
        }
        // Nodes not yet moved stay where they were.
        self.units[unit as usize]
            .live
            .extend_from_slice(&live[moved..]);
        let mut kept = std::mem::take(&mut self.units[unit as usize].kept);
        kept.sort_unstable();
        let mut moved = 0;
        if result.is_ok() {
            for &id in &kept {
                match self.move_durable(id, unit, target, &mut node) {
                    Ok(true) => moved += 1,
                    Ok(false) => break,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
        }
        self.units[unit as usize]
            .kept
            .extend_from_slice(&kept[moved..]);
        self.scratch = node;
        result?;
        if self.alloc_unit == unit {
            self.alloc_unit = target;
        }
        if self.units[unit as usize].kept.is_empty() {
            self.erase(unit)?;
            self.units[unit as usize] = UnitState::default();
            self.free_units.push(unit);
        } else {
            self.units[unit as usize].closed = true;
            self.counters.units_closed += 1;
        }
        Ok(target)
    }

    /// Moves node `id`'s current version into `target`: a clean node keeps
    /// its number (the copy is its durable version too).
    fn move_current(&mut self, id: NodeId, target: u32, node: &mut Node) -> Result<(), NodeError> {
        let clean = self.is_clean(id);
        let seq = self.read_current(id, node)?;
        let slot = self.program_slot(target, id, node, clean.then_some(seq))?;
        self.drop_buffer(id);
        self.place(id, target, slot);
        Ok(())
    }
}

impl NodeStore for IplStore {
    /// Each change is its own delta (index unit).
    fn records_each_change(&self) -> bool {
        true
    }

    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        self.read_current(id, node).map(|_| ())
    }

    fn write_node(&mut self, id: NodeId, node: &Node, change: NodeChange) -> Result<(), NodeError> {
        self.recover()?;
        let placed = self
            .places
            .get(id as usize)
            .is_some_and(|p| p.unit != NOWHERE);
        match Delta::from_change(id, node, change)? {
            Some(d) if placed => {
                self.diverge(id);
                self.log_delta(id, d)?;
            }
            _ => self.write_base(id, node)?,
        }
        // The change may have grown the node table.
        self.fit_log_buffers()
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        self.ids.allocate(|_| Ok(()))
    }

    fn can_allocate(&self, n: usize) -> bool {
        // Slots outside the superblock units and the reserve, less the live
        // nodes; a split also moves the node it splits, so ask for two a
        // level.
        let total = (self.unit_count - FIRST_UNIT - 1) as u64 * self.slots as u64;
        total.saturating_sub(self.ids.live()) >= 2 * n as u64 + 2
            && self.ids.can_allocate(n, u32::MAX as u64)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        self.diverge(id);
        self.forget(id);
        self.ids.free.push(id);
        self.fit_log_buffers()
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        // At open: the free nodes are in no durable version either.
        for &id in &free {
            self.forget(id);
        }
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        self.open_durable()
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        self.recover()?;
        // The superblock comes after every buffered delta is on flash.
        self.flush_all_buffers()?;
        let bound = self.seq;
        self.write_superblock(meta, bound, self.reserved)?;
        self.durable = Some(Durable {
            meta: meta.clone(),
            bound,
        });
        // Every current version is durable now: nothing is kept apart, and
        // closed units hold only garbage.
        self.forget_saved();
        for s in &mut self.units {
            s.kept.clear();
        }
        self.erase_closed()?;
        // The table shrank: the log buffers may take more.
        self.fit_log_buffers()
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        match &mut self.storage {
            Storage::Pages(d) => d.sync()?,
            Storage::Raw(_) => {}
        }
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.reserved_bytes() + self.data_bound_bytes()
    }

    fn data_bound_bytes(&self) -> usize {
        self.node_table_bytes()
    }

    /// Writes log buffers until what they reserve fits `room`, keeping
    /// one (the minimum working set); the limit stays there until the
    /// next change refits it.
    fn shed(&mut self, room: usize) -> Result<(), NodeError> {
        self.max_buffers = self.max_buffers.min(room / self.page_size).max(1);
        let r = self.flush_buffers_past(self.max_buffers);
        self.size_spares();
        r
    }

    fn reserved_bytes(&self) -> usize {
        self.max_buffers * self.page_size
    }

    fn flash_bytes_used(&self) -> u64 {
        let used_units = self.units.len() as u64 - self.free_units.len() as u64;
        used_units * self.unit_pages * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = vec![
            format!(
                "IPL erase units of {} node pages + {} log pages ({} node slots of {} page(s) \
                 each)",
                self.node_area, self.log_pages, self.slots, self.node_pages
            ),
            super::table_note(self.node_table_bytes(), self.budget.tables),
        ];
        if let Storage::Pages(_) = self.storage {
            notes.push(format!(
                "over logical pages IPL treats aligned groups of {} pages as its erase units and \
                 erases one by trimming its pages; the device underneath places pages itself",
                self.unit_pages
            ));
        }
        notes
    }

    fn report(&self, s: &mut IndexStats) {
        let c = &self.counters;
        s.set("node_table_bytes", self.node_table_bytes() as f64);
        s.set("ipl_merges", c.merges as f64);
        s.set("ipl_reclaim_merges", c.reclaim_merges as f64);
        s.set("ipl_durable_copies", c.durable_copies as f64);
        s.set("ipl_units_closed", c.units_closed as f64);
        s.set("ipl_reservations", c.reservations as f64);
        s.set("ipl_durable_given_up", c.durable_given_up as f64);
        s.set("base_writes", c.base_writes as f64);
        s.set("log_sectors_written", c.log_sectors_written as f64);
        s.set("log_sector_reads", c.log_sector_reads as f64);
        s.set("log_buffers", self.max_buffers as f64);
        s.set("node_slots_per_unit", self.slots as f64);
        s.set("unit_pages", self.unit_pages as f64);
    }
}
