//! [`SequentialStore`]: the AS B-tree's **Sequential Writer** (§3.1,
//! Alg. 1), **Address Mapping Table** (§3.3) and **Node Validation
//! Manager** (§3.4), as a [`NodeStore`] the shared B+-tree writes through.
//!
//! *Sequential Writer.* A node is never overwritten: every write of node
//! `id` appends a new record at the end of the file and points
//! `address_mapping_table[id]` at it (Alg. 1, lines 4–6). Behind the
//! [`crate::node::WriteBuffer`] the buffered nodes thus reach the device as
//! one run of consecutive LBAs.
//!
//! *Subfiles.* The file is a sequence of subfiles of `subfile_bytes`
//! (64 MB in the paper), each a fixed range of logical pages: subfile slot
//! `s` holds records `0 .. subfile_records` at pages
//! `1 + s·subfile_pages + r·record_pages`. Appends fill the *active*
//! subfile; when it is full the lowest free slot becomes the next one (the
//! paper's next file descriptor).
//!
//! *Node Validation Manager.* Each subfile counts its valid nodes (those
//! the mapping table points into it). When a full subfile's count falls
//! below `threshold` (T = 5%) of the nodes it holds, its valid nodes are
//! read and re-written at the end of the newest subfile, the mapping table
//! follows them, and the subfile is deleted: its pages are trimmed and its
//! slot is free again (§3.4). With `nvm=false` (Table 3's "without the
//! Node Validation Manager") subfiles are never recycled by count.
//!
//! *Running out of space* (beyond the paper, which never fills its SSD):
//! one subfile slot is kept in reserve. When only that slot is free and the
//! active subfile is full, it becomes active and the full subfile with the
//! fewest valid nodes is recycled into it at once, whatever its share; the
//! device is `Full` only when every full subfile is entirely valid.
//!
//! *Address Mapping Table at open* (§3.3: "created by reading all of the
//! nodes"): open reads every record of every subfile slot below the high
//! water mark the superblock records, and maps each node id to its record
//! with the highest sequence number. Records numbered at or past the
//! superblock's sequence number were written after the last flush and are
//! ignored; the tree's walk from the root then frees the ids it cannot
//! reach (their records stop counting as valid).
//!
//! On-flash format (logical pages, integers little-endian):
//! * page 0: the superblock, a frame of kind `Superblock` holding
//!   [`TreeMeta`] then the store's state: next sequence number (`u64`),
//!   pages per subfile (`u64`), pages per record (`u64`), subfile slots
//!   ever used (`u64`, the high water mark of the scan);
//! * a node record: a frame of kind `SequentialNode` (10) spanning
//!   `record_pages` pages, whose payload is the node id (`u32`), the
//!   record's sequence number (`u64`), then the tree-node payload of
//!   [`crate::node::codec`]; zero-padded to whole pages.
//!
//! Invariants:
//! 1. `address_mapping_table[id]` is the record of node `id` with the
//!    highest sequence number, for every live id; freed ids map nowhere.
//! 2. `subfiles[s].valid` is the number of live ids mapped into slot `s`;
//!    the records of a slot are a prefix `0 .. written` of its positions.
//! 3. Sequence numbers grow by one per record written, and a record moved
//!    by recycling gets a new one, so the newest copy always wins a scan.
//! 4. A slot is trimmed before it is used again, so a scan never finds an
//!    older subfile's records in a reused slot (on a device whose trim
//!    does not zero, older records lose on sequence number anyway).

use crate::device::{BlockDevice, DeviceError, Storage};
use crate::index::IndexError;
use crate::node::codec::{NodeId, NodeLayout};
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::store::{IdAllocator, META_BYTES};
use crate::node::{IndexStats, NodeError};
use crate::node::{Node, NodeChange, NodeStore, TreeMeta};

/// The node id and sequence number before a record's node payload.
pub const RECORD_HEADER: usize = 12;
/// Bytes of the store's state after the superblock's [`TreeMeta`].
const STATE_BYTES: usize = 32;
/// A record read back: its node id, sequence number and node payload.
type Record<'a> = (NodeId, u64, &'a [u8]);

/// "Mapped nowhere" in the address mapping table.
const NO_LBA: u32 = u32::MAX;
/// Bytes of an address mapping table entry: a 4-byte LBA, indexed by
/// NodeID (§3.3, Fig. 6). The device's slots are capped so that every
/// record's LBA fits (2^32 pages: 2 TiB of 512-byte pages).
pub const MAPPING_ENTRY_BYTES: usize = 4;

/// One subfile slot.
#[derive(Clone, Copy, Debug, Default)]
struct Subfile {
    in_use: bool,
    /// Records appended so far (a prefix of the slot, invariant 2).
    written: u64,
    /// Live node ids the mapping table points into this slot.
    valid: u64,
}

/// How subfiles are sized and recycled.
#[derive(Clone, Copy, Debug)]
pub struct SubfileOptions {
    /// Bytes per subfile; rounded down to whole records.
    pub subfile_bytes: u64,
    /// Whether the Node Validation Manager recycles subfiles.
    pub nvm: bool,
    /// T: the valid share below which a full subfile is recycled.
    pub threshold: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    records_written: u64,
    subfiles_opened: u64,
    subfiles_recycled: u64,
    subfiles_reclaimed_when_full: u64,
    nodes_moved: u64,
    records_scanned: u64,
}

/// Node storage appended at the end of a file of subfiles.
pub struct SequentialStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    record_pages: u64,
    subfile_records: u64,
    subfile_pages: u64,
    /// The slots opened so far; more are added up to `max_slots` (a file
    /// may offer an almost unbounded capacity).
    subfiles: Vec<Subfile>,
    max_slots: u64,
    /// Slots below this were used at some time (what open scans).
    high_water: u64,
    active: Option<usize>,
    /// NodeID → LBA of its newest record (§3.3), 4 bytes an entry.
    address_mapping_table: Vec<u32>,
    ids: IdAllocator,
    /// The next record's sequence number.
    seq: u64,
    opts: SubfileOptions,
    /// Full subfiles whose valid share fell below T, to recycle.
    recycle_queue: Vec<usize>,
    /// The slot being recycled, never chosen again meanwhile.
    recycling: Option<usize>,
    buf: Vec<u8>,
    move_buf: Vec<u8>,
    counters: Counters,
}

impl SequentialStore {
    /// Bytes of a record holding a node of `layout`.
    pub fn record_bytes(layout: &NodeLayout) -> usize {
        layout.node_bytes + RECORD_HEADER
    }

    /// A new, empty store on `storage` (a logical-page device).
    pub fn create(
        storage: Storage,
        layout: NodeLayout,
        opts: SubfileOptions,
    ) -> Result<Self, NodeError> {
        let page_size = storage.page_size();
        let record_pages = Self::record_bytes(&layout).div_ceil(page_size) as u64;
        let subfile_records = opts.subfile_bytes / (record_pages * page_size as u64);
        Self::assemble(storage, layout, opts, record_pages, subfile_records)
    }

    fn assemble(
        storage: Storage,
        layout: NodeLayout,
        opts: SubfileOptions,
        record_pages: u64,
        subfile_records: u64,
    ) -> Result<Self, NodeError> {
        let capacity = match &storage {
            Storage::Pages(d) => d.capacity_pages(),
            Storage::Raw(_) => {
                return Err(NodeError::Config(
                    "asbtree appends nodes to a file of logical pages: use an FTL or SSD \
                     profile or file:PATH, not raw:"
                        .into(),
                ))
            }
        };
        let page_size = storage.page_size();
        if page_size < FRAME_HEADER + META_BYTES + STATE_BYTES {
            return Err(NodeError::Config(format!(
                "page size {page_size} is too small for the superblock"
            )));
        }
        if !(opts.threshold > 0.0 && opts.threshold < 1.0) {
            return Err(NodeError::Config(format!(
                "threshold must be a share between 0 and 1 (the paper's T = 0.05), got {}",
                opts.threshold
            )));
        }
        if subfile_records < 2 {
            return Err(NodeError::Config(format!(
                "subfile_bytes {} holds fewer than 2 node records of {} bytes",
                opts.subfile_bytes,
                record_pages * page_size as u64
            )));
        }
        let subfile_pages = subfile_records * record_pages;
        // Every LBA below NO_LBA, so the table's 4-byte entries hold it.
        let slots =
            (capacity.saturating_sub(1) / subfile_pages).min((NO_LBA as u64 - 1) / subfile_pages);
        if slots < 3 {
            return Err(NodeError::Config(format!(
                "the device holds {slots} subfiles of {} bytes; the AS B-tree needs at least 3 \
                 (an active one, a full one and one in reserve): give a smaller subfile_bytes",
                subfile_pages * page_size as u64
            )));
        }
        Ok(SequentialStore {
            storage,
            layout,
            page_size,
            record_pages,
            subfile_records,
            subfile_pages,
            subfiles: Vec::new(),
            max_slots: slots,
            high_water: 0,
            active: None,
            address_mapping_table: Vec::new(),
            ids: IdAllocator::default(),
            seq: 0,
            opts,
            recycle_queue: Vec::new(),
            recycling: None,
            buf: vec![0u8; (record_pages as usize) * page_size],
            move_buf: vec![0u8; (record_pages as usize) * page_size],
            counters: Counters::default(),
        })
    }

    /// Reopens the store `flush` left on `storage`: reads the superblock,
    /// then rebuilds the Address Mapping Table by scanning every record
    /// (§3.3). `threshold` and `nvm` are not recorded (they only steer
    /// later recycling); the subfile size is, and a different
    /// `subfile_bytes` given is a `Mismatch`.
    pub fn open(
        mut storage: Storage,
        opts: SubfileOptions,
        subfile_given: bool,
    ) -> Result<Self, IndexError> {
        let page_size = storage.page_size();
        let mut buf = vec![0u8; page_size];
        match &mut storage {
            Storage::Pages(d) => d.read(0, 0, &mut buf)?,
            Storage::Raw(_) => {
                return Err(IndexError::Config(
                    "asbtree needs a logical-page device, not raw:".into(),
                ))
            }
        }
        let (meta, state) = TreeMeta::open_superblock(&buf, 0, STATE_BYTES)?
            .ok_or_else(|| IndexError::NoIndex("the device holds no superblock".into()))?;
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&state[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let (seq, subfile_pages, record_pages, high_water) =
            (u64_at(0), u64_at(8), u64_at(16), u64_at(24));
        let layout = meta.layout()?;
        let expected_pages = Self::record_bytes(&layout).div_ceil(page_size) as u64;
        if record_pages != expected_pages || subfile_pages == 0 || subfile_pages % record_pages != 0
        {
            return Err(IndexError::Corrupt {
                page: 0,
                detail: format!(
                    "superblock: {record_pages} pages a record and {subfile_pages} a subfile \
                     do not fit nodes of {} bytes",
                    meta.node_bytes
                ),
            });
        }
        let image_bytes = subfile_pages * page_size as u64;
        if subfile_given
            && opts.subfile_bytes / (record_pages * page_size as u64) * record_pages
                != subfile_pages
        {
            return Err(crate::index::kinds::reopen::mismatch(
                "subfile_bytes",
                image_bytes,
                opts.subfile_bytes,
            ));
        }
        let opts = SubfileOptions {
            subfile_bytes: image_bytes,
            ..opts
        };
        let mut store = Self::assemble(
            storage,
            layout,
            opts,
            record_pages,
            subfile_pages / record_pages,
        )?;
        if high_water > store.max_slots {
            return Err(IndexError::Corrupt {
                page: 0,
                detail: format!(
                    "superblock: {high_water} subfiles used on a device of {}",
                    store.max_slots
                ),
            });
        }
        store.subfiles = vec![Subfile::default(); high_water as usize];
        store.seq = seq;
        store.high_water = high_water;
        store.ids = IdAllocator::starting_at(meta.next_id);
        store.scan(meta.next_id)?;
        Ok(store)
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `assemble` refuses raw storage.
            Storage::Raw(_) => unreachable!("SequentialStore is built only on Storage::Pages"),
        }
    }

    fn record_lba(&self, slot: usize, record: u64) -> u64 {
        1 + slot as u64 * self.subfile_pages + record * self.record_pages
    }

    fn slot_of(&self, lba: u64) -> usize {
        ((lba - 1) / self.subfile_pages) as usize
    }

    /// Reads the record at `lba` into `buf`: one read of its pages, as
    /// Alg. 1 reads a node (line 2).
    fn read_record(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), NodeError> {
        let len = self.record_pages as usize * self.page_size;
        self.dev().read_span(lba, &mut buf[..len])?;
        Ok(())
    }

    /// The (id, sequence number, node payload) of a record read from
    /// `lba`; `None` when the record is empty.
    fn open_record(buf: &[u8], lba: u64) -> Result<Option<Record<'_>>, NodeError> {
        let Some(payload) = page::open(buf, PageKind::SequentialNode, lba)? else {
            return Ok(None);
        };
        if payload.len() < RECORD_HEADER {
            return Err(NodeError::Corrupt {
                page: lba,
                detail: "node record shorter than its header".into(),
            });
        }
        let id = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
        let mut s = [0u8; 8];
        s.copy_from_slice(&payload[4..12]);
        Ok(Some((id, u64::from_le_bytes(s), &payload[RECORD_HEADER..])))
    }

    /// Rebuilds the mapping table and the subfiles' counts from every
    /// record below the high water mark (§3.3).
    fn scan(&mut self, next_id: NodeId) -> Result<(), NodeError> {
        let mut best: Vec<(u64, u32)> = vec![(0, NO_LBA); next_id as usize];
        let mut newest: Option<(u64, usize)> = None;
        let mut buf = std::mem::take(&mut self.buf);
        let result = (|| {
            for slot in 0..self.high_water as usize {
                for r in 0..self.subfile_records {
                    let lba = self.record_lba(slot, r);
                    self.read_record(lba, &mut buf)?;
                    self.counters.records_scanned += 1;
                    let Some((id, seq, _)) = Self::open_record(&buf, lba)? else {
                        break;
                    };
                    if seq >= self.seq {
                        // Written after the last flush: not part of the
                        // flushed state, and neither is what follows it.
                        break;
                    }
                    let Some(b) = best.get_mut(id as usize) else {
                        return Err(NodeError::Corrupt {
                            page: lba,
                            detail: format!(
                                "record of node {id}, beyond the next id {next_id}, \
                                 written before the last flush"
                            ),
                        });
                    };
                    if b.1 == NO_LBA || seq > b.0 {
                        // Below NO_LBA: the slots are capped (`assemble`).
                        *b = (seq, lba as u32);
                    }
                    self.subfiles[slot].in_use = true;
                    self.subfiles[slot].written = r + 1;
                    if newest.is_none_or(|(s, _)| seq > s) {
                        newest = Some((seq, slot));
                    }
                }
            }
            Ok(())
        })();
        self.buf = buf;
        result?;
        self.address_mapping_table = best.iter().map(|&(_, lba)| lba).collect();
        for &lba in &self.address_mapping_table {
            if lba != NO_LBA {
                let s = self.slot_of(lba as u64);
                self.subfiles[s].valid += 1;
            }
        }
        self.active = newest
            .map(|(_, slot)| slot)
            .filter(|&s| self.subfiles[s].written < self.subfile_records);
        Ok(())
    }

    /// Makes room for one record in the active subfile: opens the lowest
    /// free slot, or, when only the reserve is left, opens it and reclaims
    /// the emptiest full subfile into it.
    fn ensure_active_room(&mut self) -> Result<(), NodeError> {
        if let Some(a) = self.active {
            if self.subfiles[a].written < self.subfile_records {
                return Ok(());
            }
            self.active = None;
            self.queue_if_sparse(a);
        }
        let lowest_free = self.subfiles.iter().position(|s| !s.in_use);
        let free = self.subfiles.iter().filter(|s| !s.in_use).count() as u64
            + (self.max_slots - self.subfiles.len() as u64);
        let slot = lowest_free.unwrap_or(self.subfiles.len());
        if free == 0 {
            return Err(self.full());
        }
        if free >= 2 {
            self.activate(slot);
            return Ok(());
        }
        // Only the reserve is free: reclaim the emptiest full subfile.
        let victim = self
            .subfiles
            .iter()
            .enumerate()
            .filter(|&(i, s)| {
                s.in_use && s.written == self.subfile_records && Some(i) != self.recycling
            })
            .min_by_key(|(_, s)| s.valid)
            .filter(|(_, s)| s.valid < self.subfile_records)
            .map(|(i, _)| i);
        let Some(victim) = victim else {
            return Err(self.full());
        };
        self.activate(slot);
        self.counters.subfiles_reclaimed_when_full += 1;
        self.recycle(victim)
    }

    fn full(&self) -> NodeError {
        NodeError::Device(DeviceError::Full {
            detail: format!(
                "every one of the {} subfiles of {} bytes holds only valid nodes",
                self.max_slots,
                self.subfile_pages * self.page_size as u64
            ),
        })
    }

    fn activate(&mut self, slot: usize) {
        if slot == self.subfiles.len() {
            self.subfiles.push(Subfile::default());
        }
        self.subfiles[slot] = Subfile {
            in_use: true,
            written: 0,
            valid: 0,
        };
        self.active = Some(slot);
        self.high_water = self.high_water.max(slot as u64 + 1);
        self.counters.subfiles_opened += 1;
    }

    /// Queues full subfile `slot` for recycling when its valid share is
    /// below T (§3.4).
    fn queue_if_sparse(&mut self, slot: usize) {
        if self.is_sparse(slot) && !self.recycle_queue.contains(&slot) {
            self.recycle_queue.push(slot);
        }
    }

    /// Whether `slot` is a full subfile, not in use for appends or being
    /// recycled, whose valid share is below T (and the NVM is on).
    fn is_sparse(&self, slot: usize) -> bool {
        let s = self.subfiles[slot];
        self.opts.nvm
            && s.in_use
            && s.written == self.subfile_records
            && Some(slot) != self.active
            && Some(slot) != self.recycling
            && (s.valid as f64) < self.opts.threshold * self.subfile_records as f64
    }

    /// Appends the record sealed from `buf` (payload from
    /// `FRAME_HEADER + RECORD_HEADER` on, `node_len` bytes) as node `id`'s
    /// newest (Alg. 1).
    fn append(&mut self, id: NodeId, buf: &mut [u8], node_len: usize) -> Result<(), NodeError> {
        self.ensure_active_room()?;
        // Invariant: `ensure_active_room` succeeded, so a slot is active.
        let slot = self
            .active
            .expect("a subfile is active after ensure_active_room");
        let lba = self.record_lba(slot, self.subfiles[slot].written);
        buf[FRAME_HEADER..FRAME_HEADER + 4].copy_from_slice(&id.to_le_bytes());
        buf[FRAME_HEADER + 4..FRAME_HEADER + 12].copy_from_slice(&self.seq.to_le_bytes());
        let record_bytes = FRAME_HEADER + RECORD_HEADER + node_len;
        buf[record_bytes..].fill(0);
        page::seal(buf, PageKind::SequentialNode, RECORD_HEADER + node_len);
        let len = self.record_pages as usize * self.page_size;
        self.dev().write_span(lba, &buf[..len])?;
        self.seq += 1;
        self.counters.records_written += 1;
        self.subfiles[slot].written += 1;
        self.subfiles[slot].valid += 1;
        let i = id as usize;
        if self.address_mapping_table.len() <= i {
            self.address_mapping_table.resize(i + 1, NO_LBA);
        }
        // Below NO_LBA: the slots are capped (`assemble`).
        let old = std::mem::replace(&mut self.address_mapping_table[i], lba as u32);
        if old != NO_LBA {
            self.invalidate(old as u64);
        }
        Ok(())
    }

    /// The record at `old` is no longer its node's newest.
    fn invalidate(&mut self, old: u64) {
        let s = self.slot_of(old);
        self.subfiles[s].valid = self.subfiles[s].valid.saturating_sub(1);
        self.queue_if_sparse(s);
    }

    /// Moves every valid node of `slot` to the end of the newest subfile,
    /// then deletes (trims) the subfile (§3.4).
    fn recycle(&mut self, slot: usize) -> Result<(), NodeError> {
        let outer = self.recycling.replace(slot);
        let result = self.move_valid(slot);
        self.recycling = outer;
        result?;
        let pages = self.subfiles[slot].written * self.record_pages;
        let first = self.record_lba(slot, 0);
        for p in 0..pages {
            self.dev().trim(first + p)?;
        }
        self.subfiles[slot] = Subfile::default();
        self.counters.subfiles_recycled += 1;
        Ok(())
    }

    fn move_valid(&mut self, slot: usize) -> Result<(), NodeError> {
        let (lo, hi) = (self.record_lba(slot, 0), self.record_lba(slot + 1, 0));
        let mut buf = std::mem::take(&mut self.move_buf);
        if buf.is_empty() {
            // A reclaim nested in another recycling (whose buffer this is).
            buf = vec![0u8; self.record_pages as usize * self.page_size];
        }
        let mut result = Ok(());
        for id in 0..self.address_mapping_table.len() {
            let lba = self.address_mapping_table[id];
            if lba == NO_LBA {
                continue;
            }
            let lba = lba as u64;
            if lba < lo || lba >= hi {
                continue;
            }
            result = self.read_record(lba, &mut buf).and_then(|()| {
                let len = match Self::open_record(&buf, lba)? {
                    Some((rid, _, node)) if rid as usize == id => node.len(),
                    _ => {
                        return Err(NodeError::Corrupt {
                            page: lba,
                            detail: format!("the mapping table's record of node {id} is not its"),
                        })
                    }
                };
                self.append(id as NodeId, &mut buf, len)
            });
            if result.is_err() {
                break;
            }
            self.counters.nodes_moved += 1;
        }
        self.move_buf = buf;
        result
    }

    /// Recycles the subfiles queued below T.
    fn run_recycles(&mut self) -> Result<(), NodeError> {
        while let Some(slot) = self.recycle_queue.pop() {
            // Queued earlier: recycled or reused since, it may no longer be
            // below T.
            if self.is_sparse(slot) {
                self.recycle(slot)?;
            }
        }
        Ok(())
    }

    /// Seals node payload already at `buf[FRAME_HEADER + RECORD_HEADER..]`
    /// as node `id`'s record and appends it, then recycles what fell below T.
    fn write_prepared(&mut self, id: NodeId, node_len: usize) -> Result<(), NodeError> {
        if id >= self.ids.next_id {
            return Err(NodeError::Config(format!(
                "node {id} was never allocated (next id {})",
                self.ids.next_id
            )));
        }
        let mut buf = std::mem::take(&mut self.buf);
        let r = self.append(id, &mut buf, node_len);
        self.buf = buf;
        r?;
        self.run_recycles()
    }

    /// Stats for the report.
    fn live_slots(&self) -> usize {
        self.subfiles.iter().filter(|s| s.in_use).count()
    }
}

impl NodeStore for SequentialStore {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        let lba = match self.address_mapping_table.get(id as usize) {
            Some(&l) if l != NO_LBA && id < self.ids.next_id => l as u64,
            _ => {
                return Err(NodeError::Corrupt {
                    page: 0,
                    detail: format!("node {id} has no record in the address mapping table"),
                })
            }
        };
        let mut buf = std::mem::take(&mut self.buf);
        let result =
            self.read_record(lba, &mut buf)
                .and_then(|()| match Self::open_record(&buf, lba)? {
                    Some((rid, seq, payload)) if rid == id && seq < self.seq => {
                        self.layout.decode_payload(payload, lba, node)
                    }
                    Some((rid, seq, _)) => Err(NodeError::Corrupt {
                        page: lba,
                        detail: format!(
                            "record of node {rid} (sequence {seq}) where node {id}'s was mapped"
                        ),
                    }),
                    None => Err(NodeError::Corrupt {
                        page: lba,
                        detail: format!("node {id}'s record is empty"),
                    }),
                });
        self.buf = buf;
        result
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        _change: NodeChange,
    ) -> Result<(), NodeError> {
        let at = FRAME_HEADER + RECORD_HEADER;
        let len = self.layout.encode_payload(
            node,
            &mut self.buf[at..at + self.layout.node_bytes - FRAME_HEADER],
        );
        self.write_prepared(id, len)
    }

    fn write_image(
        &mut self,
        id: NodeId,
        image: &[u8],
        _change: NodeChange,
    ) -> Result<bool, NodeError> {
        if image.len() < FRAME_HEADER {
            return Ok(false);
        }
        let len = u32::from_le_bytes([image[4], image[5], image[6], image[7]]) as usize;
        if FRAME_HEADER + len > image.len() || len > self.layout.node_bytes - FRAME_HEADER {
            return Ok(false);
        }
        let at = FRAME_HEADER + RECORD_HEADER;
        self.buf[at..at + len].copy_from_slice(&image[FRAME_HEADER..FRAME_HEADER + len]);
        self.write_prepared(id, len)?;
        Ok(true)
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        if !self.can_allocate(1) {
            return Err(self.full());
        }
        let id = self.ids.allocate(|_| Ok(()))?;
        if self.address_mapping_table.len() <= id as usize {
            self.address_mapping_table.resize(id as usize + 1, NO_LBA);
        }
        Ok(id)
    }

    fn can_allocate(&self, n: usize) -> bool {
        // Live nodes must leave a subfile in reserve and room to append.
        let total = self.max_slots.saturating_mul(self.subfile_records);
        let room = total.saturating_sub(2 * self.subfile_records + self.ids.live());
        self.ids.can_allocate(n, room)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        if let Some(lba) = self.address_mapping_table.get_mut(id as usize) {
            let old = std::mem::replace(lba, NO_LBA);
            if old != NO_LBA {
                self.invalidate(old as u64);
            }
        }
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        for &id in &free {
            if let Some(lba) = self.address_mapping_table.get_mut(id as usize) {
                let old = std::mem::replace(lba, NO_LBA);
                if old != NO_LBA {
                    let s = self.slot_of(old as u64);
                    self.subfiles[s].valid = self.subfiles[s].valid.saturating_sub(1);
                }
            }
        }
        self.address_mapping_table.resize(next_id as usize, NO_LBA);
        self.ids = IdAllocator { next_id, free };
        for s in 0..self.subfiles.len() {
            self.queue_if_sparse(s);
        }
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let mut buf = vec![0u8; self.page_size];
        self.dev().read(0, 0, &mut buf)?;
        Ok(TreeMeta::open_superblock(&buf, 0, STATE_BYTES)?.map(|(meta, _)| meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        let mut state = [0u8; STATE_BYTES];
        state[0..8].copy_from_slice(&self.seq.to_le_bytes());
        state[8..16].copy_from_slice(&self.subfile_pages.to_le_bytes());
        state[16..24].copy_from_slice(&self.record_pages.to_le_bytes());
        state[24..32].copy_from_slice(&self.high_water.to_le_bytes());
        let mut buf = vec![0u8; self.page_size];
        meta.seal_superblock(&state, &mut buf);
        self.dev().write(0, 0, &buf)?;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        Ok(self.dev().sync()?)
    }

    /// The Address Mapping Table and the free id list.
    fn memory_bytes(&self) -> usize {
        self.data_bound_bytes() + self.reserved_bytes()
    }

    /// The Address Mapping Table: an entry per NodeID ever allocated
    /// (freed ones map nowhere until reused).
    fn data_bound_bytes(&self) -> usize {
        self.address_mapping_table.len() * MAPPING_ENTRY_BYTES
    }

    /// The free id list.
    fn reserved_bytes(&self) -> usize {
        self.ids.free.len() * std::mem::size_of::<NodeId>()
    }

    fn flash_bytes_used(&self) -> u64 {
        let records: u64 = self.subfiles.iter().map(|s| s.written).sum();
        (1 + records * self.record_pages) * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn report(&self, stats: &mut IndexStats) {
        let c = self.counters;
        stats.set("records_written", c.records_written as f64);
        stats.set("subfiles_opened", c.subfiles_opened as f64);
        stats.set("subfiles_recycled", c.subfiles_recycled as f64);
        stats.set(
            "subfiles_reclaimed_when_full",
            c.subfiles_reclaimed_when_full as f64,
        );
        stats.set("subfiles_live", self.live_slots() as f64);
        stats.set("nodes_moved_by_nvm", c.nodes_moved as f64);
        stats.set("records_scanned_at_open", c.records_scanned as f64);
        stats.set("subfile_records", self.subfile_records as f64);
        stats.set("record_pages", self.record_pages as f64);
        stats.set("record_bytes", Self::record_bytes(&self.layout) as f64);
        stats.set(
            "address_mapping_table_bytes",
            self.data_bound_bytes() as f64,
        );
    }
}
