//! BFTL's node storage (Wu et al. 2003 §3.2–3.4): every change to a logical
//! B-tree node becomes an **index unit**; the units of a batch are
//! partitioned by node and packed into sectors by the **commit policy**
//! (FIRST-FIT over the per-node sets, §3.3); the **node translation table**
//! maps each node to the list of sectors holding its units, and a node whose
//! list grows past **C** is **compacted** into the fewest sectors (§3.4).
//!
//! On-flash format (logical sectors of the FTL):
//! * sector 0: the superblock ([`TreeMeta`] in a page frame).
//! * every other written sector: a page frame of kind
//!   [`PageKind::IndexUnits`] whose payload is
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | batch timestamp (`u32`) |
//! | 4..8 | sector sequence number (`u32`, increasing over the log's life) |
//! | 8..10 | unit count (`u16`) |
//! | 10..  | units, each `key_bytes + value_bytes + 16` bytes |
//!
//! An index unit (24 bytes with 4 + 4-byte entries, so Λ = 20 units fit a
//! 512-byte sector, as in §4):
//!
//! | field | bytes | meaning |
//! |---|---|---|
//! | `primary_key` | key_bytes | the entry's key (a separator's key in an internal node; the level in a reset unit) |
//! | `data_ptr` | value_bytes | the entry's value (the record pointer) |
//! | `parent_node` | 4 | the node's parent when known, else `u32::MAX` |
//! | `left_ptr` | 4 | reset unit: the first child (internal) |
//! | `right_ptr` | 4 | the child right of a separator; reset unit: the next leaf |
//! | identifier + `op_flag` | 4 | node id in the low 30 bits, the operation in the top 2 (0 insert, 1 delete, 2 reset) |
//!
//! A *reset* unit starts a node's state afresh (splits, merges and
//! compactions write one, then one insert unit per entry: the
//! `fanout − 1` units of a split node that §4 counts).
//!
//! Invariants:
//! 1. Replaying a node's units in list order (sector order, then position
//!    in the sector) gives its current content; units before its last reset
//!    are stale.
//! 2. A sector is live while some node's list names it; a sector no list
//!    names is trimmed and its LBA reused.
//! 3. Units not yet committed (the batch's delta pool) are replayed after
//!    the committed ones when a node is read.
//! 4. FlashDB only: a *node page* (page kind 7: sequence number, node id,
//!    then a B+-tree node image) holds a node whole and starts its list,
//!    as a reset unit does; it is only ever the first sector of a list.
//!    See `bftl::modes` for when a node is written so.

use crate::device::{BlockDevice, DeviceError, Storage};
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::store::{IdAllocator, META_BYTES};
use crate::node::top_levels::TopLevels;
use crate::node::{Budget, EntryFormat, IndexStats, NodeError};
use crate::node::{Node, NodeChange, NodeId, NodeLayout, NodeStore, TreeMeta, NO_NODE};

mod memory;
mod ntt;
mod read;
#[cfg(test)]
mod tests;

use ntt::{push_free, Ntt, SectorRefs, LBA_LIMIT};

use super::modes::{SelfTuning, Switch};
use super::views::{self, CommitViews};
/// Bytes of a node page's header after the page frame: the sector
/// sequence number and the node id.
pub const NODE_PAGE_HEADER: usize = 8;

use super::unit::{self, drop_superseded, first_fit, Op, Unit, HEADER, ID_MASK};
pub use super::unit::{lambda, unit_bytes};

/// BFTL's node store.
pub struct BftlStore {
    storage: Storage,
    layout: NodeLayout,
    format: EntryFormat,
    sector_size: usize,
    lambda: usize,
    compaction_c: usize,
    /// Node translation table: node id → LBAs holding its units.
    ntt: Ntt,
    /// Per sector LBA: how many node lists name it.
    refs: SectorRefs,
    /// Sectors below `next_lba` no list names, to reuse.
    free_lbas: Vec<u32>,
    next_lba: u64,
    /// The batch's units, in generation order.
    pool: Vec<Unit>,
    timestamp: u32,
    sector_seq: u32,
    ids: IdAllocator,
    buf: Vec<u8>,
    scratch: Vec<Unit>,
    /// Reused by [`Self::read_committed`]: a node's sector list, and the
    /// units read from it (the list also by `compact_with`, for the
    /// sectors it releases).
    list_scratch: Vec<u32>,
    unit_scratch: Vec<(Unit, u32)>,
    /// §5.1: "a small amount of B-Tree nodes in the top levels were cached
    /// in RAM". Their changes still become index units; reads of them cost
    /// no sector reads.
    hot: TopLevels,
    /// While a batch is applied: the logical views of the nodes it read or
    /// wrote, so that a node the batch touches many times is read from its
    /// sectors once per commit (§3.3 partitions a batch's units by node:
    /// each node is visited once), as many as the budget leaves room
    /// for (`bftl::views`). Kept as spare nodes for the next batch after
    /// the commit.
    views: CommitViews,
    /// The budget the store and the tree's node cache share (the index's
    /// less the reservation buffer and the tree's metadata), and whether
    /// the data-bound tables are paid from it.
    budget: Budget,
    /// Of that, the most the tree's node cache may take (`cache_nodes`
    /// images, all of it for an uncapped `wt-lru` cache, none without a
    /// cache): the batch views get what the cache, the tables and the
    /// store's working set leave.
    cache_bytes: usize,
    /// The cached top levels were dropped to fit the budget (`shed`).
    hot_shed: bool,
    /// FlashDB's per-node log/disk modes (`None`: BFTL, every node logs).
    modes: Option<SelfTuning>,
    /// A reused node for FlashDB's node pages.
    page_node: Node,
    /// Opened for queries only: a read switches no node's mode (a switch
    /// to disk mode writes the node page; `bftl::modes`).
    read_only: bool,
    pub(crate) node_pages_written: u64,
    pub(crate) compactions: u64,
    /// Commits of part of a batch whose units passed the pool's budget.
    pub(crate) early_commits: u64,
    pub(crate) sectors_committed: u64,
    /// Nodes read back from their sectors, and the sectors those reads
    /// took (Kim et al. 2014 §4.1: "an average of 1.49 sectors to produce
    /// a node").
    node_reads_from_sectors: u64,
    sectors_read_for_nodes: u64,
    pub(crate) units_committed: u64,
}

impl BftlStore {
    pub fn new(
        storage: Storage,
        layout: NodeLayout,
        compaction_c: usize,
        cached_levels: u8,
        self_tuning: bool,
        budget: Budget,
        cache_bytes: usize,
    ) -> Result<Self, NodeError> {
        let sector_size =
            match &storage {
                Storage::Pages(d) => d.page_size(),
                Storage::Raw(_) => return Err(NodeError::Config(
                    "BFTL sits on an FTL's logical sectors: use a profile or file:PATH, not raw:"
                        .into(),
                )),
            };
        let lambda = lambda(layout.format, sector_size);
        if lambda == 0 {
            return Err(NodeError::Config(format!(
                "a {sector_size}-byte sector holds no index unit"
            )));
        }
        if lambda > u16::MAX as usize {
            // The per-sector reference counts are 2 bytes (`store::ntt`).
            return Err(NodeError::Config(format!(
                "a {sector_size}-byte sector holds {lambda} index units, more than BFTL's {} a sector",
                u16::MAX
            )));
        }
        if compaction_c == 0 {
            return Err(NodeError::Config("compaction_c must be at least 1".into()));
        }
        if sector_size < FRAME_HEADER + META_BYTES {
            return Err(NodeError::Config(format!(
                "sector size {sector_size} is too small for the superblock"
            )));
        }
        let modes = self_tuning
            .then(|| SelfTuning::new(storage.info().cost, sector_size, lambda, compaction_c));
        if self_tuning && layout.node_bytes + NODE_PAGE_HEADER > sector_size {
            return Err(NodeError::Config(format!(
                "a FlashDB node of {} bytes and its {NODE_PAGE_HEADER}-byte header do not fit a {sector_size}-byte sector",
                layout.node_bytes
            )));
        }
        Ok(BftlStore {
            modes,
            page_node: Node::default(),
            read_only: false,
            node_pages_written: 0,
            storage,
            layout,
            format: layout.format,
            sector_size,
            lambda,
            compaction_c,
            ntt: Ntt::default(),
            refs: SectorRefs::default(),
            free_lbas: Vec::new(),
            next_lba: 1,
            pool: Vec::new(),
            timestamp: 0,
            sector_seq: 0,
            ids: IdAllocator::default(),
            buf: vec![0u8; sector_size],
            scratch: Vec::new(),
            list_scratch: Vec::new(),
            unit_scratch: Vec::new(),
            hot: TopLevels::new(cached_levels),
            views: CommitViews::default(),
            budget,
            cache_bytes,
            hot_shed: false,
            compactions: 0,
            early_commits: 0,
            sectors_committed: 0,
            node_reads_from_sectors: 0,
            sectors_read_for_nodes: 0,
            units_committed: 0,
        })
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `new` accepts only logical-page storage.
            Storage::Raw(_) => unreachable!("BftlStore is built only on Storage::Pages"),
        }
    }

    /// For queries only: from now on no read switches a node's mode, so
    /// no read writes. Set before the first read: opening a tree reads
    /// nodes.
    pub fn set_read_only(&mut self) {
        self.read_only = true;
    }

    /// FlashDB with `log_insert_reads_leaf=false`: an insert into a
    /// log-mode leaf with room appends its unit unread
    /// ([`NodeStore::append_to_leaf`]; `bftl::modes`). `false` for BFTL,
    /// which has no node modes.
    pub fn append_log_inserts(&mut self) -> bool {
        self.modes.as_mut().map(SelfTuning::count_entries).is_some()
    }

    /// Λ: index units per sector.
    pub fn lambda(&self) -> usize {
        self.lambda
    }

    /// Keeps the batch's logical view of `node` (see `views`), within
    /// what the budget leaves; the hot top levels have their own copy.
    fn keep_view(&mut self, id: NodeId, node: &Node) {
        if self.hot.holds(node.level) {
            return;
        }
        let limit = self.view_limit();
        self.views.keep(id, node, limit);
    }

    /// FlashDB: writes `node` whole as node `id`'s page, which starts its
    /// list afresh (the older sectors of the list become stale).
    fn write_node_page(&mut self, id: NodeId, node: &Node) -> Result<(), NodeError> {
        let lba = self.alloc_lba()?;
        let mut buf = std::mem::take(&mut self.buf);
        buf.fill(0);
        buf[FRAME_HEADER..FRAME_HEADER + 4].copy_from_slice(&self.sector_seq.to_le_bytes());
        buf[FRAME_HEADER + 4..FRAME_HEADER + 8].copy_from_slice(&id.to_le_bytes());
        let body = FRAME_HEADER + NODE_PAGE_HEADER;
        // `new` checked that a node fits a sector after this header.
        let len = self.layout.encode_payload(
            node,
            &mut buf[body..NODE_PAGE_HEADER + self.layout.node_bytes],
        );
        page::seal(&mut buf, PageKind::NodePage, NODE_PAGE_HEADER + len);
        let r = self.dev().write(lba.into(), 0, &buf);
        self.buf = buf;
        r?;
        self.sector_seq = self.sector_seq.wrapping_add(1);
        self.sectors_committed += 1;
        self.node_pages_written += 1;
        // The old sectors are released in list order (the order the free
        // list reuses them in); the new one is no list's yet.
        let r = self.release_list(id, None);
        self.ntt.clear(id);
        self.ntt.push(id, lba);
        self.refs.add(lba);
        r
    }

    /// Sectors the store may use: the device's, up to [`LBA_LIMIT`].
    fn sector_limit(&self) -> u64 {
        match &self.storage {
            Storage::Pages(d) => d.capacity_pages().min(LBA_LIMIT),
            Storage::Raw(_) => 0,
        }
    }

    fn alloc_lba(&mut self) -> Result<u32, NodeError> {
        if let Some(l) = self.free_lbas.pop() {
            return Ok(l);
        }
        let cap = self.sector_limit();
        if self.next_lba >= cap {
            return Err(NodeError::Device(DeviceError::Full {
                detail: format!("BFTL has used all {cap} sectors"),
            }));
        }
        self.next_lba += 1;
        // Below `sector_limit`, so below 2^31.
        Ok((self.next_lba - 1) as u32)
    }

    fn release_lba(&mut self, lba: u32) -> Result<(), NodeError> {
        if self.refs.remove(lba) {
            self.dev().trim(lba.into())?;
            push_free(&mut self.free_lbas, lba);
        }
        Ok(())
    }

    /// Releases every sector of node `id`'s list but `except`, in list
    /// order; the list itself is left for the caller to clear.
    fn release_list(&mut self, id: NodeId, except: Option<u32>) -> Result<(), NodeError> {
        for i in 0..self.ntt.len(id) {
            let l = self.ntt.list(id)[i];
            if Some(l) != except {
                self.release_lba(l)?;
            }
        }
        Ok(())
    }

    /// Writes `sector` (units) to a new LBA and lists it for every node
    /// it holds.
    fn write_sector(&mut self, units: &[Unit]) -> Result<u32, NodeError> {
        let lba = self.alloc_lba()?;
        let ub = unit_bytes(self.format);
        let mut buf = std::mem::take(&mut self.buf);
        buf.fill(0);
        let p = &mut buf[FRAME_HEADER..];
        p[0..4].copy_from_slice(&self.timestamp.to_le_bytes());
        p[4..8].copy_from_slice(&self.sector_seq.to_le_bytes());
        p[8..10].copy_from_slice(&(units.len() as u16).to_le_bytes());
        for (i, u) in units.iter().enumerate() {
            let at = FRAME_HEADER + HEADER + i * ub;
            unit::encode(self.format, u, &mut buf[at..at + ub]);
        }
        page::seal(&mut buf, PageKind::IndexUnits, HEADER + units.len() * ub);
        let r = self.dev().write(lba.into(), 0, &buf);
        self.buf = buf;
        r?;
        self.sector_seq = self.sector_seq.wrapping_add(1);
        self.sectors_committed += 1;
        self.units_committed += units.len() as u64;
        for u in units {
            if u.op.resets() {
                // The node starts afresh here: its older sectors are stale.
                let r = self.release_list(u.node, Some(lba));
                self.ntt.clear(u.node);
                r?;
            }
            if self.ntt.push(u.node, lba) {
                self.refs.add(lba);
            }
        }
        Ok(lba)
    }

    /// The commit policy (§3.3): partition the pool by node, pack the sets
    /// FIRST-FIT into sectors of Λ units (a set larger than Λ fills whole
    /// sectors first), write them, then compact every node whose list grew
    /// past C (§3.4).
    pub fn commit(&mut self) -> Result<(), NodeError> {
        if self.pool.is_empty() {
            return Ok(());
        }
        let mut pool = std::mem::take(&mut self.pool);
        // Stable: a node's units keep their order.
        pool.sort_by_key(|u| u.node);
        drop_superseded(&mut pool);
        // Each touched node, the units the batch changed it by, and whether
        // FlashDB writes it whole instead.
        let mut touched: Vec<(NodeId, usize, bool)> = Vec::new();
        for u in &pool {
            match touched.last_mut() {
                Some(t) if t.0 == u.node => t.1 += 1,
                _ => touched.push((u.node, 1, u.op.resets())),
            }
        }
        if let Some(modes) = &self.modes {
            for t in &mut touched {
                // Disk mode, or rewritten whole by the tree (a split, a
                // merge): one node page.
                t.2 = t.2 || modes.is_disk(t.0);
            }
            // A node whose view the bounded batch dropped is rebuilt from
            // its sectors and its pending units, one at a time.
            let mut page_node = std::mem::take(&mut self.page_node);
            let mut rebuilt = Ok(());
            for t in &touched {
                if t.2 && self.view(t.0).is_none() {
                    rebuilt = self
                        .rebuild(t.0, &pool, &mut page_node)
                        .and_then(|_| self.write_node_page(t.0, &page_node));
                    if rebuilt.is_err() {
                        break;
                    }
                }
            }
            self.page_node = page_node;
            if let Err(e) = rebuilt {
                // Nothing is lost: the units stay pending for a retry.
                self.pool = pool;
                return Err(e);
            }
            pool.retain(|u| {
                touched
                    .binary_search_by_key(&u.node, |t| t.0)
                    .map_or(true, |i| !touched[i].2)
            });
        } else {
            for t in &mut touched {
                t.2 = false;
            }
        }
        let sectors = first_fit(&pool, self.lambda);
        self.timestamp = self.timestamp.wrapping_add(1);
        for s in &sectors {
            self.write_sector(s)?;
        }
        let mut page_node = std::mem::take(&mut self.page_node);
        let result = self.finish_commit(&touched, &mut page_node);
        self.page_node = page_node;
        result?;
        pool.clear();
        self.pool = pool;
        // Tables that grew leave the pool less: give back what it held
        // beyond that (rare: only when the limit fell).
        let limit = self.pool_limit(0);
        if self.pool.capacity() > limit {
            self.pool.shrink_to(limit);
        }
        Ok(())
    }

    /// The rest of a commit once the unit sectors are written: FlashDB's
    /// node pages, compactions of lists past C, and FlashDB's accounting.
    fn finish_commit(
        &mut self,
        touched: &[(NodeId, usize, bool)],
        page_node: &mut Node,
    ) -> Result<(), NodeError> {
        for &(id, units, whole) in touched {
            if whole {
                // Invariant: `whole` is set only for nodes with a view.
                if let Some(n) = self.view(id) {
                    page_node.clone_from(n);
                    self.write_node_page(id, page_node)?;
                }
            }
            let compacted = self.ntt.len(id) > self.compaction_c;
            if compacted {
                self.compact(id)?;
            }
            if whole && !self.modes.as_ref().is_some_and(|m| m.is_disk(id)) {
                // A log-mode node the tree rewrote whole costs the same in
                // either mode: nothing to account.
                continue;
            }
            let switch = self
                .modes
                .as_mut()
                .map_or(Switch::Stay, |m| m.on_commit(id, units, compacted));
            if switch == Switch::ToDisk && self.ntt.len(id) > 1 {
                self.compact(id)?;
            }
        }
        Ok(())
    }

    /// The batch's logical view of node `id`, or the RAM copy of a cached
    /// top-level node.
    fn view(&self, id: NodeId) -> Option<&Node> {
        self.views.get(id).or_else(|| self.hot.get(id))
    }

    /// FlashDB: a leaf read or written whole tells its entry count, kept
    /// for log-mode inserts that append unread (`bftl::modes`).
    fn learn_entries(&mut self, id: NodeId, node: &Node) {
        if let Some(m) = self.modes.as_mut().filter(|_| node.is_leaf()) {
            m.set_entries(id, node.entries.len());
        }
    }

    /// The longest sector list of any node (at most C between batches).
    pub fn longest_list(&self) -> usize {
        self.ntt.longest()
    }

    /// Gathers node `id`'s units and rewrites them into the fewest sectors.
    /// A node the batch visited has its logical view in RAM already (its
    /// units were collected to build it, and the commit just wrote what the
    /// batch changed): the compaction writes that view without reading the
    /// sectors again.
    fn compact(&mut self, id: NodeId) -> Result<(), NodeError> {
        let mut node = Node::default();
        match self.view(id) {
            Some(n) => node.clone_from(n),
            None => self.read_committed(id, &mut node)?,
        }
        self.compact_with(id, &node)
    }

    /// Rewrites node `id`, whose committed state is `node`, into the
    /// fewest sectors and releases its old list.
    fn compact_with(&mut self, id: NodeId, node: &Node) -> Result<(), NodeError> {
        if self.modes.is_some() {
            self.compactions += 1;
            return self.write_node_page(id, node);
        }
        // The old sectors are released once the new ones are written, in
        // list order (the order the free list reuses them in).
        let mut old = std::mem::take(&mut self.list_scratch);
        old.clear();
        old.extend_from_slice(self.ntt.list(id));
        self.ntt.clear(id);
        let mut units = std::mem::take(&mut self.scratch);
        units.clear();
        unit::full_units(id, node, &mut units);
        let result = (|| {
            for chunk in units.chunks(self.lambda) {
                self.write_sector(chunk)?;
            }
            for &lba in &old {
                self.release_lba(lba)?;
            }
            Ok(())
        })();
        self.scratch = units;
        self.list_scratch = old;
        self.compactions += 1;
        result
    }

    /// Node `id`'s logical view from its committed sectors and `pool`'s
    /// pending units (for a node whose batch view was dropped).
    fn rebuild(&mut self, id: NodeId, pool: &[Unit], node: &mut Node) -> Result<(), NodeError> {
        let reset = pool.iter().any(|u| u.node == id && u.op.resets());
        if !reset && self.ntt.len(id) > 0 {
            self.read_committed(id, node)?;
        } else {
            node.clear(0);
        }
        unit::replay(node, id, pool.iter().copied(), 0)
    }
}

impl NodeStore for BftlStore {
    /// Each change is its own delta (index unit).
    fn records_each_change(&self) -> bool {
        true
    }

    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        if let Some(n) = self.hot.get(id) {
            node.clone_from(n);
            return Ok(());
        }
        if let Some(n) = self.views.get(id) {
            node.clone_from(n);
            return Ok(());
        }
        let committed = self.ntt.len(id) > 0;
        // A pending reset makes the committed units stale: skip reading them.
        let reset_pending = self.pool.iter().any(|u| u.node == id && u.op.resets());
        let mut read_from_flash = None;
        if committed && !reset_pending {
            read_from_flash = Some(self.ntt.len(id));
            self.node_reads_from_sectors += 1;
            self.sectors_read_for_nodes += self.ntt.len(id) as u64;
            self.read_committed(id, node)?;
        } else {
            node.clear(0);
        }
        let pending = self.pool.iter().any(|u| u.node == id);
        // Read-only: no mode switch, and no accounting toward one.
        if let Some(list) = read_from_flash.filter(|_| !self.read_only) {
            // FlashDB's node page is one sector.
            let switch = self
                .modes
                .as_mut()
                .map_or(Switch::Stay, |m| m.on_read(id, list));
            // Translating to disk mode writes the node page now; a node
            // with changes pending is written whole by the commit instead.
            if switch == Switch::ToDisk && !pending && list > 1 {
                self.compact_with(id, node)?;
            }
        }
        if !committed && !pending {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("node {id} has no index units"),
            });
        }
        if pending {
            let pool = std::mem::take(&mut self.pool);
            let r = unit::replay(node, id, pool.iter().copied(), 0);
            self.pool = pool;
            r?;
        }
        self.learn_entries(id, node);
        self.hot.remember(id, node);
        self.keep_view(id, node);
        Ok(())
    }

    fn write_node(&mut self, id: NodeId, node: &Node, change: NodeChange) -> Result<(), NodeError> {
        self.learn_entries(id, node);
        match change {
            NodeChange::Insert(key, value) => {
                let right = if node.is_leaf() {
                    NO_NODE
                } else {
                    let pos = node.entries.binary_search(&(key, value)).map_err(|_| {
                        NodeError::Corrupt {
                            page: 0,
                            detail: format!("node {id}: inserted separator not found"),
                        }
                    })?;
                    node.children[pos + 1]
                };
                self.pend(
                    Some((id, node)),
                    &[Unit {
                        node: id,
                        op: Op::Insert,
                        key,
                        value,
                        parent: NO_NODE,
                        left: NO_NODE,
                        right,
                    }],
                    0,
                )
            }
            NodeChange::Delete(key, value) => self.pend(
                Some((id, node)),
                &[Unit {
                    node: id,
                    op: Op::Delete,
                    key,
                    value,
                    parent: NO_NODE,
                    left: NO_NODE,
                    right: NO_NODE,
                }],
                0,
            ),
            NodeChange::Rewrite => {
                let mut units = std::mem::take(&mut self.scratch);
                units.clear();
                unit::full_units(id, node, &mut units);
                let r = self.pend(Some((id, node)), &units, units.capacity());
                self.scratch = units;
                r
            }
        }
    }

    /// An insert unit for a log-mode leaf whose count says it has room,
    /// with no view or RAM copy to keep in step (those are free to read
    /// and the tree inserts through them).
    fn append_to_leaf(&mut self, id: NodeId, entry: (u64, u64)) -> Result<bool, NodeError> {
        let Some(modes) = self.modes.as_ref().filter(|m| m.counts_entries()) else {
            return Ok(false);
        };
        let room = modes
            .entries(id)
            .filter(|&n| n < self.layout.leaf_capacity && !modes.is_disk(id));
        let Some(n) = room.filter(|_| !self.read_only && self.view(id).is_none()) else {
            return Ok(false);
        };
        self.pend(
            None,
            &[Unit {
                node: id,
                op: Op::Insert,
                key: entry.0,
                value: entry.1,
                parent: NO_NODE,
                left: NO_NODE,
                right: NO_NODE,
            }],
            0,
        )?;
        if let Some(m) = &mut self.modes {
            m.set_entries(id, n + 1);
        }
        Ok(true)
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        self.ids.allocate(|id| {
            if id > ID_MASK {
                return Err(NodeError::Device(DeviceError::Full {
                    detail: "BFTL's 30-bit node identifiers are exhausted".into(),
                }));
            }
            Ok(())
        })
    }

    fn can_allocate(&self, n: usize) -> bool {
        let cap = self.sector_limit();
        // Room for a batch's sectors is checked when they are written; keep
        // a margin of free sectors for the commit of the current batch.
        let free = cap.saturating_sub(self.next_lba) + self.free_lbas.len() as u64;
        free > 2 * n as u64 + 2
            && self
                .ids
                .can_allocate(n, (ID_MASK - self.ids.next_id) as u64)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        self.hot.forget(id);
        if let Some(m) = &mut self.modes {
            m.forget(id);
        }
        self.views.remove(id);
        self.pool.retain(|u| u.node != id);
        let r = self.release_list(id, None);
        self.ntt.clear(id);
        r?;
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        let mut dead = Vec::new();
        for &id in &free {
            for &lba in self.ntt.list(id) {
                if self.refs.remove(lba) {
                    dead.push(lba);
                }
            }
            self.ntt.clear(id);
        }
        // Sectors no list names any more are reused, in LBA order; they are
        // overwritten before anything reads them, so no trim is needed here.
        dead.sort_unstable();
        for l in dead {
            push_free(&mut self.free_lbas, l);
        }
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    /// Reads the superblock and rebuilds the node translation table by
    /// scanning every sector (§3.4: "re-built by scanning the flash
    /// memory"), in sector-sequence order.
    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let mut buf = vec![0u8; self.sector_size];
        self.dev().read(0, 0, &mut buf)?;
        let Some(payload) = page::open(&buf, PageKind::Superblock, 0)? else {
            return Ok(None);
        };
        let meta = TreeMeta::decode(&payload[..META_BYTES.min(payload.len())])?;
        let mut tail = [0u8; 8];
        tail.copy_from_slice(payload.get(META_BYTES..META_BYTES + 8).ok_or_else(|| {
            NodeError::Corrupt {
                page: 0,
                detail: "BFTL superblock too short".into(),
            }
        })?);
        let used = u64::from_le_bytes(tail);
        // The scan below reads every sector in use: bound it by the device,
        // not by a count a corrupt superblock could make endless.
        let capacity = self.sector_limit();
        if used > capacity {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("BFTL superblock: {used} sectors in use on a device of {capacity}"),
            });
        }
        self.next_lba = used.max(1);
        let mut sectors: Vec<(u32, u64, Vec<Unit>)> = Vec::new();
        let mut page_node = Node::default();
        for lba in 1..self.next_lba {
            let mut units = Vec::new();
            let mut b = vec![0u8; self.sector_size];
            self.dev().read(lba, 0, &mut b)?;
            if page::open_any(&b, lba)?.is_none() {
                // Below `sector_limit`, so below 2^31.
                push_free(&mut self.free_lbas, lba as u32);
                continue;
            }
            if let Some((seq, id)) = self.read_sector(lba, None, &mut units, &mut page_node)? {
                // A node page restarts its node's list, as a reset unit does.
                let reset = Unit {
                    node: id,
                    op: Op::Reset,
                    key: 0,
                    value: 0,
                    parent: NO_NODE,
                    left: NO_NODE,
                    right: NO_NODE,
                };
                sectors.push((seq, lba, vec![reset]));
                continue;
            }
            let seq = units.first().map(|u| u.1).unwrap_or(0);
            sectors.push((seq, lba, units.into_iter().map(|(u, _)| u).collect()));
        }
        sectors.sort_by_key(|s| s.0);
        self.sector_seq = sectors.last().map(|s| s.0.wrapping_add(1)).unwrap_or(0);
        self.ntt.reset();
        self.refs.reset();
        for (_, lba, units) in &sectors {
            let lba = *lba as u32;
            for u in units {
                if u.node >= meta.next_id {
                    continue;
                }
                if u.op.resets() {
                    for &l in self.ntt.list(u.node) {
                        self.refs.remove(l);
                    }
                    self.ntt.clear(u.node);
                }
                if self.ntt.push(u.node, lba) {
                    self.refs.add(lba);
                }
            }
        }
        // The sectors read whole that no list names, in LBA order.
        let mut dead: Vec<u32> = sectors
            .iter()
            .map(|s| s.1 as u32)
            .filter(|&l| self.refs.get(l) == 0)
            .collect();
        dead.sort_unstable();
        for l in dead {
            self.dev().trim(l.into())?;
            push_free(&mut self.free_lbas, l);
        }
        self.ids = IdAllocator::starting_at(meta.next_id);
        Ok(Some(meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        self.commit()?;
        let mut buf = vec![0u8; self.sector_size];
        meta.encode(&mut buf[FRAME_HEADER..]);
        buf[FRAME_HEADER + META_BYTES..FRAME_HEADER + META_BYTES + 8]
            .copy_from_slice(&self.next_lba.to_le_bytes());
        page::seal(&mut buf, PageKind::Superblock, META_BYTES + 8);
        self.dev().write(0, 0, &buf)?;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        Ok(self.dev().sync()?)
    }

    /// The data-bound tables, the working set and the batch views.
    fn memory_bytes(&self) -> usize {
        self.data_bound_bytes() + self.reserved_bytes()
    }

    /// The node translation table and FlashDB's mode table.
    fn data_bound_bytes(&self) -> usize {
        self.ntt_bytes() + self.modes.as_ref().map_or(0, SelfTuning::memory_bytes)
    }

    /// The budget-bound part: the working set and the views, which the
    /// tree's node cache leaves room for.
    fn reserved_bytes(&self) -> usize {
        self.working_memory() + self.view_memory()
    }

    /// The pool gives back what it holds past its limit (the tables or the
    /// free list grew since it was sized), and the cached top levels go
    /// (§5.1 keeps them for speed) when even an empty node cache leaves too
    /// little for them.
    fn shed(&mut self, room: usize) -> Result<(), NodeError> {
        let limit = self.pool_limit(0);
        if self.pool.capacity() > limit {
            self.pool.shrink_to(limit);
        }
        let views = self.view_limit();
        self.views.trim(views);
        if self.reserved_bytes() > room && !self.hot.is_empty() {
            self.hot = TopLevels::new(0);
            self.hot_shed = true;
        }
        Ok(())
    }

    fn flash_bytes_used(&self) -> u64 {
        (1 + self.refs.live()) * self.sector_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn report(&self, stats: &mut IndexStats) {
        stats.set("lambda", self.lambda as f64);
        stats.set("compaction_c", self.compaction_c as f64);
        stats.set("compactions", self.compactions as f64);
        stats.set("early_commits", self.early_commits as f64);
        if let Some(m) = &self.modes {
            stats.set("disk_mode_nodes", m.disk_nodes() as f64);
            stats.set("switches_to_disk", m.switches_to_disk as f64);
            stats.set("switches_to_log", m.switches_to_log as f64);
            stats.set("mode_table_bytes", m.memory_bytes() as f64);
            stats.set("node_pages_written", self.node_pages_written as f64);
        }
        stats.set(
            "commit_view_peak_bytes",
            (self.views.most * views::view_bytes(&self.layout)) as f64,
        );
        stats.set(
            "commit_view_budget_bytes",
            (self.view_limit() * views::view_bytes(&self.layout)) as f64,
        );
        stats.set("cached_levels_shed", u8::from(self.hot_shed) as f64);
        stats.set("commit_views_dropped", self.views.dropped as f64);
        stats.set("cached_levels", self.hot.levels() as f64);
        stats.set("cached_nodes", self.hot.len() as f64);
        stats.set("sectors_committed", self.sectors_committed as f64);
        stats.set(
            "node_reads_from_sectors",
            self.node_reads_from_sectors as f64,
        );
        stats.set("sectors_read_for_nodes", self.sectors_read_for_nodes as f64);
        stats.set("units_committed", self.units_committed as f64);
        stats.set("ntt_entries", self.ntt_entries() as f64);
        stats.set("ntt_longest_list", self.longest_list() as f64);
        stats.set("node_translation_table_bytes", self.ntt_bytes() as f64);
    }

    fn begin_batch(&mut self) {
        self.views.begin();
    }

    fn end_batch(&mut self) -> Result<(), NodeError> {
        let r = self.commit();
        let limit = self.view_limit();
        self.views.end(limit);
        r
    }
}
