//! [`LogNodeStore`]: tree nodes packed into pages of a **node log** on a raw
//! chip (`buffered-bplus-tree.md` §5.2, "Node layout on flash"): several
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
//! * block 0: superblock log. Each flush programs the next page of block 0
//!   with a page frame of kind `Superblock` whose payload is a
//!   [`TreeMeta`] (56 bytes) followed by the active half (`u8`) and the
//!   number of log pages written in it (`u64`); the frame with the highest
//!   generation wins. When block 0 is full it is erased first.
//! * blocks `1 .. 1 + H` and `1 + H .. 1 + 2H`: the two halves of the node
//!   log (`H = log_blocks`). The log is a stream of records
//!   `node id (u32) | node image (node_bytes)` over consecutive pages. A
//!   record that fits a page never straddles one (the rest of the page is
//!   left erased); a larger record runs on into the next pages, so a node
//!   may be larger than a page. An id of `0xFFFF_FFFF` (erased
//!   bytes) means the rest of that page was never written (a flush
//!   programmed a partial page).
//!
//! Memory: the write buffer (one page) and the free id list count in
//! `memory_bytes`; the node table (4 bytes a node, as in the paper) is
//! reported separately as `node_table_bytes`, because the paper excludes it
//! from the budget (§6: "We exclude the memory usage of the Node Table").
//!
//! Invariants:
//! 1. `table[id]` is the newest copy of node `id`; older copies are garbage.
//! 2. Only pages before `head_page` of the active half hold records;
//!    the other half is erased (except during a switch).
//! 3. Every page is programmed once between erases (nop = 1 suffices).

use crate::device::{Flash, Storage};
use crate::index::IndexError;

use super::codec::{Node, NodeId, NodeLayout};
use super::page::{self, PageKind, FRAME_HEADER};
use super::store::{IdAllocator, NodeChange, NodeStore, TreeMeta, META_BYTES};

/// Bytes of the node id before each image in a log page.
pub const RECORD_ID: usize = 4;
const NOWHERE: u64 = u64::MAX;
const SUPER_BYTES: usize = META_BYTES + 9;

/// Nodes packed into a two-half log on a raw chip.
pub struct LogNodeStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    pages_per_block: u64,
    log_blocks: u64,
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
    /// Next page of block 0 for a superblock.
    meta_next: u64,
    generation_seen: u64,
    switches: u64,
}

impl LogNodeStore {
    /// A store on a raw chip; `log_blocks` per half (0: as many as fit).
    pub fn new(storage: Storage, layout: NodeLayout, log_blocks: u64) -> Result<Self, IndexError> {
        let geometry =
            match &storage {
                Storage::Raw(f) => f.geometry(),
                Storage::Pages(_) => return Err(IndexError::Config(
                    "the node log manages erase blocks itself and needs a raw chip (raw:PROFILE)"
                        .into(),
                )),
            };
        let page_size = geometry.page_size as usize;
        if layout.node_bytes > u16::MAX as usize {
            return Err(IndexError::Config(format!(
                "a {}-byte node is too large for the node log",
                layout.node_bytes
            )));
        }
        if page_size < FRAME_HEADER + SUPER_BYTES {
            return Err(IndexError::Config(format!(
                "page size {page_size} is too small for the superblock"
            )));
        }
        let most = geometry.blocks.saturating_sub(1) / 2;
        let log_blocks = if log_blocks == 0 { most } else { log_blocks };
        if log_blocks == 0 || log_blocks > most {
            return Err(IndexError::Config(format!(
                "the node log needs 1 + 2 x {log_blocks} blocks; the chip has {}",
                geometry.blocks
            )));
        }
        Ok(LogNodeStore {
            storage,
            layout,
            page_size,
            pages_per_block: geometry.pages_per_block as u64,
            log_blocks,
            active: 0,
            head_page: 0,
            head: vec![0xFF; page_size],
            head_used: 0,
            table: Vec::new(),
            ids: IdAllocator::default(),
            image: vec![0u8; layout.node_bytes],
            out_image: vec![0u8; layout.node_bytes],
            meta_next: 0,
            generation_seen: 0,
            switches: 0,
        })
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
        (1 + half as u64 * self.log_blocks) * self.pages_per_block
    }

    fn head_abs(&self) -> u64 {
        self.half_start(self.active) + self.head_page
    }

    /// Bytes of RAM the node table takes at 4 bytes a node (the paper's
    /// figure), reported apart from the budget.
    pub fn node_table_bytes(&self) -> usize {
        self.ids.live() as usize * 4
    }

    /// Programs the assembled head page (just the bytes it holds) and
    /// moves the head to the next page.
    fn program_head(&mut self) -> Result<(), IndexError> {
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
    fn pad(&mut self, need: usize) -> Result<(), IndexError> {
        let left = self.page_size - self.head_used;
        if self.head_used > 0 && (left < RECORD_ID || (need <= self.page_size && left < need)) {
            self.program_head()?;
        }
        Ok(())
    }

    /// Makes the head ready for a record of `need` bytes (see `pad`); the
    /// whole record must fit the active half, or the log switches halves
    /// (never while `copying`).
    fn make_room(&mut self, need: usize, copying: bool) -> Result<(), IndexError> {
        self.pad(need)?;
        if self.room() >= need {
            return Ok(());
        }
        let full = |what: &str| {
            IndexError::Device(crate::device::DeviceError::Full {
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

    /// Appends node `id`: from `image` when `copying` (a switch of halves,
    /// which never switches again), else from `out_image`. The image may
    /// run on into the next pages; the id never straddles a page.
    fn append(&mut self, id: NodeId, copying: bool) -> Result<(), IndexError> {
        let nb = self.layout.node_bytes;
        self.make_room(RECORD_ID + nb, copying)?;
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
    fn load_image(&mut self, id: NodeId) -> Result<u64, IndexError> {
        let loc = self.table.get(id as usize).copied().unwrap_or(NOWHERE);
        if loc == NOWHERE {
            return Err(IndexError::Corrupt {
                page: 0,
                detail: format!("node {id} is not in the node table"),
            });
        }
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

    /// Copies every valid node to the other half, then erases this one.
    fn switch_halves(&mut self) -> Result<(), IndexError> {
        let old = self.active;
        let old_start = self.half_start(old);
        self.active = 1 - old;
        self.head_page = 0;
        self.switches += 1;
        let half = self.half_pages();
        for id in 0..self.table.len() as NodeId {
            let loc = self.table[id as usize];
            if loc == NOWHERE || (loc >> 16) < old_start || (loc >> 16) >= old_start + half {
                continue;
            }
            self.load_image(id)?;
            self.append(id, true)?;
        }
        for b in 0..self.log_blocks {
            let block = 1 + old as u64 * self.log_blocks + b;
            self.chip().erase(block)?;
        }
        Ok(())
    }

    /// Rebuilds the node table by scanning the active half (invariant 2).
    fn rebuild_table(&mut self) -> Result<(), IndexError> {
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
}

impl NodeStore for LogNodeStore {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), IndexError> {
        let page = self.load_image(id)?;
        self.layout.decode(&self.image, page, node)
    }

    fn read_image(&mut self, id: NodeId) -> Result<Option<(&[u8], u64)>, IndexError> {
        let page = self.load_image(id)?;
        Ok(Some((&self.image, page)))
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        _change: NodeChange,
    ) -> Result<(), IndexError> {
        self.layout.encode(node, &mut self.out_image);
        self.append(id, false)
    }

    fn allocate(&mut self) -> Result<NodeId, IndexError> {
        self.ids.allocate(|_| Ok(()))
    }

    fn can_allocate(&self, n: usize) -> bool {
        // After a switch of halves the live nodes must leave at least one
        // free page, or the log would switch back and forth forever.
        let need = RECORD_ID + self.layout.node_bytes;
        let room = if need <= self.page_size {
            (self.half_pages() - 1) * (self.page_size / need) as u64
        } else {
            // Straddling records pad at most RECORD_ID - 1 bytes a page.
            (self.half_pages() - 1) * (self.page_size - RECORD_ID) as u64 / need as u64
        };
        let fresh_room = room.saturating_sub(self.ids.live());
        fresh_room >= n as u64 && self.ids.can_allocate(n, fresh_room)
    }

    fn free(&mut self, id: NodeId) -> Result<(), IndexError> {
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

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, IndexError> {
        let mut best: Option<(TreeMeta, u8, u64, u64)> = None;
        let mut buf = vec![0u8; self.page_size];
        for p in 0..self.pages_per_block {
            self.chip().read(p, 0, &mut buf)?;
            let Some(payload) = page::open(&buf, PageKind::Superblock, p)? else {
                break;
            };
            if payload.len() < SUPER_BYTES {
                return Err(IndexError::Corrupt {
                    page: p,
                    detail: "superblock too short for the node log state".into(),
                });
            }
            let meta = TreeMeta::decode(&payload[..META_BYTES])?;
            let active = payload[META_BYTES];
            let mut h = [0u8; 8];
            h.copy_from_slice(&payload[META_BYTES + 1..META_BYTES + 9]);
            let head = u64::from_le_bytes(h);
            if best
                .as_ref()
                .is_none_or(|b| meta.generation > b.0.generation)
            {
                best = Some((meta, active, head, p));
            }
        }
        let Some((meta, active, head, page)) = best else {
            return Ok(None);
        };
        if active > 1 || head > self.half_pages() {
            return Err(IndexError::Corrupt {
                page,
                detail: "node log state out of range".into(),
            });
        }
        self.active = active;
        self.head_page = head;
        self.generation_seen = meta.generation;
        self.ids = IdAllocator::starting_at(meta.next_id);
        self.meta_next = page + 1;
        self.rebuild_table()?;
        Ok(Some(meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), IndexError> {
        // The superblock names the head: everything before it must be on flash.
        self.program_head()?;
        if self.meta_next >= self.pages_per_block {
            self.chip().erase(0)?;
            self.meta_next = 0;
        }
        let mut buf = vec![0u8; FRAME_HEADER + SUPER_BYTES];
        meta.encode(&mut buf[FRAME_HEADER..]);
        buf[FRAME_HEADER + META_BYTES] = self.active;
        buf[FRAME_HEADER + META_BYTES + 1..].copy_from_slice(&self.head_page.to_le_bytes());
        page::seal(&mut buf, PageKind::Superblock, SUPER_BYTES);
        let page = self.meta_next;
        self.chip().program(page, 0, &buf)?;
        self.meta_next += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), IndexError> {
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.page_size + self.ids.free.len() * std::mem::size_of::<NodeId>()
    }

    fn reserved_bytes(&self) -> usize {
        self.page_size
    }

    fn flash_bytes_used(&self) -> u64 {
        (self.pages_per_block + self.head_page + u64::from(self.head_used > 0))
            * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn report(&self, stats: &mut crate::index::IndexStats) {
        stats.set("node_table_bytes", self.node_table_bytes() as f64);
        stats.set("node_log_switches", self.switches as f64);
        stats.set("node_log_head_page", self.head_page as f64);
    }
}
