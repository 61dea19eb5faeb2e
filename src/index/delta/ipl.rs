//! [`IplStore`]: In-Page Logging (Lee & Moon, SIGMOD 2007, as
//! `buffered-bplus-tree.md` §6.1 implements it under a B+-tree).
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
//! Log buffers: at most `log_buffers` nodes have one (default: a quarter of
//! the memory budget in log sectors, at least one); the least recently
//! updated is written first when another is needed. They are the store's
//! reserved memory; the node cache gets the rest.
//!
//! On-flash format (page numbers within the unit space):
//! * unit 0: a log of superblocks, each a page frame of kind `Superblock`
//!   holding [`TreeMeta`], the units in use (`u32`) and the next sequence
//!   number (`u64`); the highest generation wins; the unit is erased when
//!   full.
//! * a node slot (`⌈(29 + node_bytes) / page⌉` pages): a record page
//!   ([`crate::node::delta`]) with one base record;
//! * a log sector (one page): a record page with delta records of one node.
//!
//! On open the node table is rebuilt by scanning the units in use: a node's
//! place is its base with the highest sequence number, and its log sectors
//! are those of the same unit written after it.
//!
//! Invariants:
//! 1. Every page is programmed at most once between erases of its unit
//!    (slots and log sectors are handed out in order).
//! 2. `units[u].live` lists exactly the nodes placed in unit `u`; units
//!    from `units.len()` on were never used and are erased.
//! 3. At least one unit is erased and free after every operation.
//! 4. A node's deltas are, in order: its log sectors, then its log buffer.

use crate::device::{DeviceError, Storage};
use crate::index::{IndexError, IndexStats};
use crate::node::delta::{self, Delta, Record, FIRST_RECORD};
use crate::node::page::FRAME_HEADER;
use crate::node::store::{IdAllocator, META_BYTES};
use crate::node::{Node, NodeChange, NodeId, NodeLayout, NodeStore, TreeMeta};

use super::{check_node_size, decode_state, encode_state, STATE_BYTES};

const NOWHERE: u32 = u32::MAX;

/// Geometry parameters of IPL.
#[derive(Clone, Copy, Debug)]
pub struct IplConfig {
    /// `None`: half of the erase unit.
    pub node_pages_per_block: Option<u64>,
    pub log_pages_per_block: Option<u64>,
    pub max_deltas: usize,
    /// `None`: a quarter of the budget in log sectors.
    pub log_buffers: Option<usize>,
}

#[derive(Clone, Debug, Default)]
struct UnitState {
    next_slot: u16,
    log_used: u16,
    live: Vec<NodeId>,
}

#[derive(Clone, Debug)]
struct Place {
    unit: u32,
    slot: u16,
    logs: Vec<u16>,
}

const NO_PLACE: Place = Place {
    unit: NOWHERE,
    slot: 0,
    logs: Vec::new(),
};

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
    /// Erase units the device holds (unit 0 included).
    unit_count: u32,
    /// State of units `0 .. units.len()`: grown on first use, so that a
    /// huge logical device (a file's 2^32 pages) costs nothing up front;
    /// units at and beyond `units.len()` are erased and free.
    units: Vec<UnitState>,
    /// Units below `units.len()` freed by a merge (popped before fresh ones).
    free_units: Vec<u32>,
    high_water: u32,
    alloc_unit: u32,
    places: Vec<Place>,
    buffers: Vec<LogBuffer>,
    max_buffers: usize,
    max_deltas: usize,
    log_capacity: usize,
    tick: u64,
    seq: u64,
    ids: IdAllocator,
    meta_next: u64,
    slot_buf: Vec<u8>,
    page_buf: Vec<u8>,
    /// A whole page for programs of fewer bytes over logical pages.
    pad_buf: Vec<u8>,
    /// Delta lists of written log buffers, reused by the next ones.
    spare_lists: Vec<Vec<Delta>>,
    scratch: Node,
    counters: Counters,
}

impl IplStore {
    /// A store on any storage; `memory` sizes the default log buffers.
    pub fn new(
        storage: Storage,
        layout: NodeLayout,
        config: IplConfig,
        memory: usize,
    ) -> Result<Self, IndexError> {
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
            return Err(IndexError::Config(format!(
                "IPL needs node and log pages in every erase unit, got {npb} + {lpb}"
            )));
        }
        if raw && unit_pages != device_unit {
            return Err(IndexError::Config(format!(
                "on a raw chip IPL's erase unit is a block of {device_unit} pages; \
                 node_pages_per_block + log_pages_per_block = {unit_pages}"
            )));
        }
        let node_pages =
            (FIRST_RECORD + delta::base_record_bytes(layout)).div_ceil(page_size) as u64;
        let slots = npb / node_pages;
        if slots == 0 || slots > u16::MAX as u64 {
            return Err(IndexError::Config(format!(
                "a {}-byte node needs {node_pages} pages; {npb} node pages per block hold none",
                layout.node_bytes
            )));
        }
        let log_capacity =
            page_size.saturating_sub(FIRST_RECORD) / delta::delta_record_bytes(layout.format);
        if log_capacity == 0 || page_size < FRAME_HEADER + META_BYTES + STATE_BYTES {
            return Err(IndexError::Config(format!(
                "a {page_size}-byte page holds no log sector or superblock"
            )));
        }
        let units = (capacity / unit_pages).min(NOWHERE as u64 - 1) as u32;
        if units < 4 {
            return Err(IndexError::Config(format!(
                "IPL needs at least 4 erase units of {unit_pages} pages (superblock, reserve, \
                 two for nodes); the device has {units}"
            )));
        }
        let max_buffers = config.log_buffers.unwrap_or(memory / 4 / page_size).max(1);
        if !(1..=64).contains(&config.max_deltas) {
            return Err(IndexError::Config(format!(
                "max_deltas must be 1..=64, got {}",
                config.max_deltas
            )));
        }
        let s = IplStore {
            storage,
            layout,
            page_size,
            unit_pages,
            node_area: npb,
            log_pages: lpb as u16,
            node_pages,
            slots: slots as u16,
            unit_count: units,
            units: vec![UnitState::default()],
            free_units: Vec::new(),
            high_water: 1,
            alloc_unit: NOWHERE,
            places: Vec::new(),
            buffers: Vec::new(),
            max_buffers,
            max_deltas: config.max_deltas,
            log_capacity,
            tick: 0,
            seq: 1,
            ids: IdAllocator::default(),
            meta_next: 0,
            slot_buf: vec![0u8; node_pages as usize * page_size],
            page_buf: vec![0u8; page_size],
            pad_buf: vec![0xFFu8; page_size],
            spare_lists: Vec::new(),
            scratch: Node::default(),
            counters: Counters::default(),
        };
        Ok(s)
    }

    // ---- the unit space ----------------------------------------------------

    fn read_page(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<(), IndexError> {
        match &mut self.storage {
            Storage::Raw(f) => f.read(page, offset, buf)?,
            Storage::Pages(d) => d.read(page, offset, buf)?,
        }
        Ok(())
    }

    /// Programs `data` at the start of `page`; over logical pages the page
    /// is written whole (so the FTL never reads to merge).
    fn program(&mut self, page: u64, data: &[u8]) -> Result<(), IndexError> {
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

    fn erase(&mut self, unit: u32) -> Result<(), IndexError> {
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

    /// Bytes of RAM the node table takes (4 + 2 bytes a node, 2 a log
    /// sector).
    /// Erase units whose state is held in RAM: those used so far, not the
    /// device's.
    pub fn unit_table_len(&self) -> usize {
        self.units.len()
    }

    /// Free units: the freed ones and those never used.
    fn free_unit_count(&self) -> usize {
        self.free_units.len() + (self.unit_count as usize - self.units.len())
    }

    /// A free unit: the last one freed, else the lowest never used (the
    /// order a full free list of every unit would give).
    fn pop_free_unit(&mut self) -> Option<u32> {
        if let Some(u) = self.free_units.pop() {
            return Some(u);
        }
        let u = self.units.len() as u32;
        if u >= self.unit_count {
            return None;
        }
        self.units.push(UnitState::default());
        Some(u)
    }

    pub fn node_table_bytes(&self) -> usize {
        self.places
            .iter()
            .filter(|p| p.unit != NOWHERE)
            .map(|p| 6 + 2 * p.logs.len())
            .sum()
    }

    // ---- slots ------------------------------------------------------------

    /// Writes `node` into the next fresh slot of `unit`.
    fn program_slot(&mut self, unit: u32, id: NodeId, node: &Node) -> Result<u16, IndexError> {
        let slot = self.units[unit as usize].next_slot;
        let used = self.slot_bytes();
        let mut buf = std::mem::take(&mut self.slot_buf);
        let at = delta::start_page(&mut buf, self.seq);
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
        self.seq += 1;
        self.counters.base_writes += 1;
        let u = &mut self.units[unit as usize];
        u.next_slot += 1;
        u.live.push(id);
        self.high_water = self.high_water.max(unit + 1);
        Ok(slot)
    }

    /// A unit with a fresh slot: `prefer`'s, the allocation unit's, a free
    /// unit (keeping one in reserve), or one reclaimed by merging the unit
    /// with the most garbage.
    fn unit_with_room(&mut self, prefer: u32) -> Result<u32, IndexError> {
        let has_room = |s: &Self, u: u32| u != NOWHERE && s.units[u as usize].next_slot < s.slots;
        if has_room(self, prefer) {
            return Ok(prefer);
        }
        if has_room(self, self.alloc_unit) {
            return Ok(self.alloc_unit);
        }
        if self.free_unit_count() > 1 {
            if let Some(u) = self.pop_free_unit() {
                self.alloc_unit = u;
                return Ok(u);
            }
        }
        // Free units have no slot written, so they never look dead; one pass
        // over the units used so far finds the victim.
        let victim = (1..self.units.len() as u32)
            .map(|u| {
                let s = &self.units[u as usize];
                (s.next_slot as usize - s.live.len(), u)
            })
            .filter(|&(dead, _)| dead > 0)
            .max();
        let Some((_, victim)) = victim else {
            return Err(IndexError::Device(DeviceError::Full {
                detail: format!(
                    "every node slot of the {} IPL erase units holds a live node",
                    self.unit_count - 1
                ),
            }));
        };
        self.counters.reclaim_merges += 1;
        let target = self.merge(victim)?;
        self.alloc_unit = target;
        if has_room(self, target) {
            Ok(target)
        } else {
            Err(IndexError::Device(DeviceError::Full {
                detail: "merging freed no node slot".into(),
            }))
        }
    }

    /// Removes node `id` from its place (its slot and log sectors become
    /// garbage) and drops its log buffer.
    fn unplace(&mut self, id: NodeId) {
        self.buffers.retain(|b| b.id != id);
        let Some(p) = self.places.get_mut(id as usize) else {
            return;
        };
        let old = std::mem::replace(p, NO_PLACE);
        if old.unit != NOWHERE {
            let live = &mut self.units[old.unit as usize].live;
            if let Some(i) = live.iter().position(|&x| x == id) {
                live.swap_remove(i);
            }
        }
        let mut logs = old.logs;
        logs.clear();
        self.places[id as usize].logs = logs;
    }

    fn place(&mut self, id: NodeId, unit: u32, slot: u16) {
        let i = id as usize;
        if self.places.len() <= i {
            self.places.resize(i + 1, NO_PLACE);
        }
        let p = &mut self.places[i];
        p.unit = unit;
        p.slot = slot;
        p.logs.clear();
    }

    /// Writes `node` whole into a fresh slot.
    fn write_base(&mut self, id: NodeId, node: &Node) -> Result<(), IndexError> {
        let prefer = self.places.get(id as usize).map_or(NOWHERE, |p| p.unit);
        let unit = self.unit_with_room(prefer)?;
        // Only now forget the old place: a reclaiming merge above may have
        // moved it, and must not lose it if no room was found.
        self.unplace(id);
        let slot = self.program_slot(unit, id, node)?;
        self.place(id, unit, slot);
        Ok(())
    }

    /// Merges `unit`: every live node, with its deltas, into a fresh unit
    /// (invariant 3 guarantees one); erases `unit`. Returns the new unit.
    fn merge(&mut self, unit: u32) -> Result<u32, IndexError> {
        let target = self.pop_free_unit().ok_or_else(|| {
            IndexError::Device(DeviceError::Full {
                detail: "no erased unit is left for an IPL merge".into(),
            })
        })?;
        self.counters.merges += 1;
        let mut live = std::mem::take(&mut self.units[unit as usize].live);
        live.sort_unstable();
        let mut node = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        for &id in &live {
            result = self.read_full(id, &mut node).and_then(|()| {
                let slot = self.program_slot(target, id, &node)?;
                self.buffers.retain(|b| b.id != id);
                self.place(id, target, slot);
                Ok(())
            });
            if result.is_err() {
                break;
            }
        }
        self.scratch = node;
        if let Err(e) = result {
            // Nodes not yet moved stay where they were.
            let moved: Vec<NodeId> = self.units[target as usize].live.clone();
            self.units[unit as usize].live =
                live.into_iter().filter(|i| !moved.contains(i)).collect();
            return Err(e);
        }
        self.erase(unit)?;
        self.units[unit as usize] = UnitState::default();
        self.free_units.push(unit);
        if self.alloc_unit == unit {
            self.alloc_unit = target;
        }
        Ok(target)
    }

    // ---- logs ---------------------------------------------------------------

    /// Writes log buffer `b` to a log sector of its node's unit, merging the
    /// unit first when its log area or the node's sector list is full.
    fn flush_buffer(&mut self, b: usize) -> Result<(), IndexError> {
        let id = self.buffers[b].id;
        let (unit, logs) = match self.places.get(id as usize) {
            Some(p) if p.unit != NOWHERE => (p.unit, p.logs.len()),
            _ => {
                self.buffers.swap_remove(b);
                return Ok(());
            }
        };
        if logs >= self.max_deltas || self.units[unit as usize].log_used >= self.log_pages {
            // The merge rewrites the node with its buffered deltas.
            return self.merge(unit).map(|_| ());
        }
        let log = self.units[unit as usize].log_used;
        let mut page = std::mem::take(&mut self.page_buf);
        let mut at = delta::start_page(&mut page, self.seq);
        let bytes = delta::delta_record_bytes(self.layout.format);
        for d in &self.buffers[b].deltas {
            delta::put_delta(&mut page[at..at + bytes], id, d, self.layout.format);
            at += bytes;
        }
        delta::seal_page(&mut page, at);
        let r = self.program(self.log_page(unit, log), &page[..at]);
        self.page_buf = page;
        r?;
        self.seq += 1;
        self.counters.log_sectors_written += 1;
        self.units[unit as usize].log_used += 1;
        self.places[id as usize].logs.push(log);
        let written = self.buffers.swap_remove(b);
        self.spare_lists.push(written.deltas);
        Ok(())
    }

    /// Adds `d` to node `id`'s log buffer.
    fn log_delta(&mut self, id: NodeId, d: Delta) -> Result<(), IndexError> {
        self.tick += 1;
        let b = match self.buffers.iter().position(|b| b.id == id) {
            Some(b) => b,
            None => {
                if self.buffers.len() >= self.max_buffers {
                    let oldest = (0..self.buffers.len())
                        .min_by_key(|&i| self.buffers[i].tick)
                        .unwrap_or(0);
                    self.flush_buffer(oldest)?;
                }
                let mut deltas = self
                    .spare_lists
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(self.log_capacity));
                deltas.clear();
                self.buffers.push(LogBuffer {
                    id,
                    deltas,
                    tick: 0,
                });
                self.buffers.len() - 1
            }
        };
        let buffer = &mut self.buffers[b];
        buffer.deltas.push(d);
        buffer.tick = self.tick;
        if buffer.deltas.len() >= self.log_capacity {
            self.flush_buffer(b)?;
        }
        Ok(())
    }

    /// Reads node `id`: its slot, its log sectors, its log buffer.
    fn read_full(&mut self, id: NodeId, node: &mut Node) -> Result<(), IndexError> {
        let (unit, slot) = match self.places.get(id as usize) {
            Some(p) if p.unit != NOWHERE => (p.unit, p.slot),
            _ => {
                return Err(IndexError::Corrupt {
                    page: 0,
                    detail: format!("node {id} is not in the node table"),
                })
            }
        };
        let first = self.slot_page(unit, slot);
        let used = self.slot_bytes();
        let ps = self.page_size;
        let mut buf = std::mem::take(&mut self.slot_buf);
        let mut result = Ok(());
        for i in 0..self.node_pages as usize {
            let end = used.min((i + 1) * ps);
            result = self.read_page(first + i as u64, 0, &mut buf[i * ps..end]);
            if result.is_err() {
                break;
            }
        }
        let layout = self.layout;
        let result = result.and_then(|()| {
            let (_, body) =
                delta::open_page(&buf[..used], first)?.ok_or_else(|| IndexError::Corrupt {
                    page: first,
                    detail: format!("node {id}: its slot is empty"),
                })?;
            let mut found = false;
            delta::for_each_record(body, layout, first, |rid, r| match r {
                Record::Base { image, .. } if rid == id => {
                    found = true;
                    layout.decode(image, first, node)
                }
                _ => Err(IndexError::Corrupt {
                    page: first,
                    detail: format!("node {id}: its slot holds another record"),
                }),
            })?;
            if found {
                Ok(())
            } else {
                Err(IndexError::Corrupt {
                    page: first,
                    detail: format!("node {id}: no base in its slot"),
                })
            }
        });
        self.slot_buf = buf;
        result?;
        let logs = std::mem::take(&mut self.places[id as usize].logs);
        let mut result = Ok(());
        for &log in &logs {
            let p = self.log_page(unit, log);
            let mut page = std::mem::take(&mut self.page_buf);
            result = self.read_page(p, 0, &mut page).and_then(|()| {
                let (_, body) = delta::open_page(&page, p)?.ok_or_else(|| IndexError::Corrupt {
                    page: p,
                    detail: format!("node {id}: its log sector is empty"),
                })?;
                delta::for_each_record(body, layout, p, |rid, r| match r {
                    Record::Delta(d) if rid == id => d.apply(node, layout, p),
                    _ => Err(IndexError::Corrupt {
                        page: p,
                        detail: format!("node {id}: its log sector holds another record"),
                    }),
                })
            });
            self.page_buf = page;
            self.counters.log_sector_reads += 1;
            if result.is_err() {
                break;
            }
        }
        self.places[id as usize].logs = logs;
        result?;
        if let Some(b) = self.buffers.iter().find(|b| b.id == id) {
            for d in &b.deltas {
                d.apply(node, layout, 0)?;
            }
        }
        Ok(())
    }

    /// Rebuilds the node table by scanning the units in use.
    fn rebuild(&mut self, next_id: NodeId) -> Result<(), IndexError> {
        let used = self.slot_bytes();
        let ps = self.page_size;
        let layout = self.layout;
        // (seq, unit, slot) of each node's newest base; (unit, id, seq, log).
        let mut best: Vec<(u64, u32, u16)> = vec![(0, NOWHERE, 0); next_id as usize];
        let mut logs: Vec<(u32, NodeId, u64, u16)> = Vec::new();
        self.units.clear();
        self.units
            .resize(self.high_water as usize, UnitState::default());
        for unit in 1..self.high_water {
            let mut state = UnitState::default();
            for slot in 0..self.slots {
                let first = self.slot_page(unit, slot);
                let mut buf = std::mem::take(&mut self.slot_buf);
                let mut r = Ok(());
                for i in 0..self.node_pages as usize {
                    let end = used.min((i + 1) * ps);
                    r = self.read_page(first + i as u64, 0, &mut buf[i * ps..end]);
                    if r.is_err() {
                        break;
                    }
                }
                let r = r.and_then(|()| {
                    let Some((seq, body)) = delta::open_page(&buf[..used], first)? else {
                        return Ok(None);
                    };
                    let mut id = None;
                    delta::for_each_record(body, layout, first, |rid, rec| {
                        if let Record::Base { .. } = rec {
                            id = Some(rid);
                        }
                        Ok(())
                    })?;
                    Ok(id.map(|id| (seq, id)))
                });
                self.slot_buf = buf;
                if let Some((seq, id)) = r? {
                    state.next_slot = slot + 1;
                    if id >= next_id {
                        return Err(IndexError::Corrupt {
                            page: first,
                            detail: format!("node {id} beyond next id {next_id}"),
                        });
                    }
                    if best[id as usize].1 == NOWHERE || best[id as usize].0 < seq {
                        best[id as usize] = (seq, unit, slot);
                    }
                }
            }
            for log in 0..self.log_pages {
                let p = self.log_page(unit, log);
                let mut page = std::mem::take(&mut self.page_buf);
                let r = self.read_page(p, 0, &mut page).and_then(|()| {
                    let Some((seq, body)) = delta::open_page(&page, p)? else {
                        return Ok(None);
                    };
                    let mut id = None;
                    delta::for_each_record(body, layout, p, |rid, _| {
                        id = Some(rid);
                        Ok(())
                    })?;
                    Ok(id.map(|id| (seq, id)))
                });
                self.page_buf = page;
                match r? {
                    Some((seq, id)) => {
                        logs.push((unit, id, seq, log));
                        state.log_used = log + 1;
                    }
                    None => break,
                }
            }
            self.units[unit as usize] = state;
        }
        self.places.clear();
        for (id, &(_, unit, slot)) in best.iter().enumerate() {
            if unit != NOWHERE {
                self.place(id as NodeId, unit, slot);
                self.units[unit as usize].live.push(id as NodeId);
            }
        }
        logs.sort_unstable_by_key(|l| l.2);
        for (unit, id, seq, log) in logs {
            let b = best.get(id as usize).copied().unwrap_or((0, NOWHERE, 0));
            if b.1 == unit && seq > b.0 {
                self.places[id as usize].logs.push(log);
            }
        }
        self.free_units = (1..self.units.len() as u32)
            .rev()
            .filter(|&u| {
                let s = &self.units[u as usize];
                s.next_slot == 0 && s.log_used == 0
            })
            .collect();
        self.alloc_unit = NOWHERE;
        Ok(())
    }

    fn flush_all_buffers(&mut self) -> Result<(), IndexError> {
        while !self.buffers.is_empty() {
            self.flush_buffer(self.buffers.len() - 1)?;
        }
        Ok(())
    }
}

impl NodeStore for IplStore {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), IndexError> {
        self.read_full(id, node)
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        change: NodeChange,
    ) -> Result<(), IndexError> {
        let placed = self
            .places
            .get(id as usize)
            .is_some_and(|p| p.unit != NOWHERE);
        match Delta::from_change(id, node, change)? {
            Some(d) if placed => self.log_delta(id, d),
            _ => self.write_base(id, node),
        }
    }

    fn allocate(&mut self) -> Result<NodeId, IndexError> {
        self.ids.allocate(|_| Ok(()))
    }

    fn can_allocate(&self, n: usize) -> bool {
        // Slots outside the superblock unit and the reserve, less the live
        // nodes; a split also moves the node it splits, so ask for two a
        // level.
        let total = (self.unit_count as u64 - 2) * self.slots as u64;
        total.saturating_sub(self.ids.live()) >= 2 * n as u64 + 2
            && self.ids.can_allocate(n, u32::MAX as u64)
    }

    fn free(&mut self, id: NodeId) -> Result<(), IndexError> {
        self.unplace(id);
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        for &id in &free {
            self.unplace(id);
        }
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, IndexError> {
        let mut best: Option<(TreeMeta, u32, u64, u64)> = None;
        let mut buf = std::mem::take(&mut self.page_buf);
        let mut result = Ok(());
        for p in 0..self.unit_pages {
            if let Err(e) = self.read_page(p, 0, &mut buf) {
                result = Err(e);
                break;
            }
            let (meta, hw, seq) = match TreeMeta::open_superblock(&buf, p, STATE_BYTES) {
                Ok(Some((meta, state))) => {
                    let (hw, seq) = decode_state(state);
                    (meta, hw, seq)
                }
                Ok(None) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if best
                .as_ref()
                .is_none_or(|b| meta.generation > b.0.generation)
            {
                best = Some((meta, hw, seq, p));
            }
        }
        self.page_buf = buf;
        result?;
        let Some((meta, hw, seq, page)) = best else {
            return Ok(None);
        };
        check_node_size(&meta, self.layout)?;
        if hw == 0 || hw > self.unit_count {
            return Err(IndexError::Corrupt {
                page,
                detail: format!("IPL units in use {hw} out of range"),
            });
        }
        self.high_water = hw;
        self.seq = seq;
        self.meta_next = page + 1;
        self.rebuild(meta.next_id)?;
        self.ids = IdAllocator::starting_at(meta.next_id);
        Ok(Some(meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), IndexError> {
        // The superblock comes after every buffered delta is on flash.
        self.flush_all_buffers()?;
        if self.meta_next >= self.unit_pages {
            self.erase(0)?;
            self.meta_next = 0;
        }
        let mut buf = vec![0u8; FRAME_HEADER + META_BYTES + STATE_BYTES];
        meta.seal_superblock(&encode_state(self.high_water, self.seq), &mut buf);
        let p = self.meta_next;
        self.program(p, &buf)?;
        self.meta_next += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), IndexError> {
        match &mut self.storage {
            Storage::Pages(d) => d.sync()?,
            Storage::Raw(_) => {}
        }
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.reserved_bytes() + self.node_table_bytes() + 4 * self.ids.free.len()
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
        let mut notes =
            vec![format!(
            "IPL erase units of {} node pages + {} log pages ({} node slots of {} page(s) each); \
             the {}-byte node table is outside the memory budget (buffered-bplus-tree.md §6)",
            self.node_area, self.log_pages, self.slots, self.node_pages, self.node_table_bytes()
        )];
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
        s.set("base_writes", c.base_writes as f64);
        s.set("log_sectors_written", c.log_sectors_written as f64);
        s.set("log_sector_reads", c.log_sector_reads as f64);
        s.set("log_buffers", self.max_buffers as f64);
        s.set("node_slots_per_unit", self.slots as f64);
        s.set("unit_pages", self.unit_pages as f64);
    }
}
