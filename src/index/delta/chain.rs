//! [`DeltaChainStore`]: the node storage of **Basic Delta** and
//! **Consolidation** (Agrawal et al. 2009 §6.1), over a logical-page
//! device (an FTL or a file).
//!
//! Every node is a **base node** plus a list of at most `max_deltas`
//! **delta pages** (§6.1: "we limit the number of delta pages associated
//! with each node to four"). Base images and deltas are records
//! ([`crate::node::delta`]) appended to one head page in RAM, which is
//! written to the next free logical page when full, so "deltas from
//! different nodes [are packed] into a single delta page that is written out
//! to the flash as a log" (Basic Delta) and base nodes are "written out as a
//! log" too. The in-memory **node table** maps each node to its base (page
//! and offset) and its delta pages.
//!
//! * A change that would need a delta page beyond `max_deltas` writes the
//!   node as a new base instead (its chain is consolidated).
//! * **Consolidation** (FlashDB, Roh et al. 2009 §2.3) keeps a counter C per
//!   node: `+NodeWriteCost` for every new delta, `−PageReadCost × i` for
//!   every read of a chain of `i` delta pages; when C < 0 the node is
//!   consolidated into one base and C restarts at 0. The costs come from the
//!   device's cost model (energy, else time; unit costs on a real file).
//! * While a node's base is still in the head page, a change re-encodes it
//!   there instead of adding a delta (the page is still RAM).
//! * A store opened read-only ([`DeltaChainStore::set_read_only`]) never
//!   consolidates on a read: a consolidation writes the node's base and
//!   trims its old pages, and a read-only store may write nothing. Its
//!   reads replay each chain as it is, as Basic Delta's do; the counters
//!   stay as they were (nothing could act on them).
//!
//! Reading a node reads its base image alone (the image is a checksummed
//! frame) and each delta page whole (the page's checksum covers its
//! records), then replays the node's deltas in page order.
//!
//! On-flash format: logical page 0 holds the superblock ([`TreeMeta`], then
//! the high-water page `u32` and the next page sequence `u64`); pages
//! `1 .. high-water` are record pages or trimmed. On open the node table is
//! rebuilt by reading those pages in sequence order (a node's last base and
//! the delta pages after it).
//!
//! Memory (issue #43, [`crate::node::budget`]):
//! * **data-bound**, the node table, reported as `node_table_bytes`: per
//!   node with a base 6 bytes (its base page `u32` and offset `u16`), 4 a
//!   delta page it names, and for Consolidation 4 for its counter C (an
//!   `f32` in the paper's layout; FlashDB and §6.1 keep one per node in
//!   RAM, so it grows with the nodes, not with the budget); per logical
//!   page used 2 bytes of reference count, 4 per free page and 4 per
//!   freed node id (the free lists grow with what the data freed). Kept
//!   as counts that change with the table, so it is O(1) to ask. In RAM
//!   it is laid out close to that (`table.rs`): an 8-byte head and
//!   `max_deltas` 4-byte slots a node, and Consolidation's counter.
//! * **budget-bound**: the head page (one page, the minimum working set)
//!   and the tree's LRU node cache, which gets what the budget leaves
//!   after the table (`tables=in-budget`, the default) or after nothing
//!   (`tables=outside`, as §6 does: "We exclude the memory usage of the
//!   Node Table"), refitted after every operation
//!   (`BTree::fit_to_budget`). A table that alone passes the budget
//!   leaves the tree no cache, and the notes say what budget the data
//!   needs.
//!
//! Limit: a base record must fit one page (`node_bytes` ≤ page − 29 bytes).
//!
//! Invariants:
//! 1. `refs[p]` is the number of nodes whose chain names page `p`; a page
//!    no chain names is trimmed and its number reused.
//! 2. A chain's delta pages are distinct, in log order, after its base, and
//!    number at most `max_deltas` after every operation.
//! 3. `HEAD` in a chain means the head page in RAM; every node with a record
//!    there is in `head_nodes`.

use crate::device::{BlockDevice, CostModel, DeviceError, Storage};
use crate::node::delta::{self, Delta, Record, FIRST_RECORD};
use crate::node::page::FRAME_HEADER;
use crate::node::store::{IdAllocator, META_BYTES};
use crate::node::{IndexStats, NodeError, Tables};

use super::table::{ChainTable, NOWHERE};
use super::{decode_state, encode_state, STATE_BYTES};
use crate::node::{Node, NodeChange, NodeId, NodeLayout, NodeStore, TreeMeta};

const HEAD: u32 = u32::MAX;

/// When a chain is consolidated besides the `max_deltas` bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Consolidation {
    /// Basic Delta: never.
    Never,
    /// FlashDB's counter: `+node_write_cost` a delta, `−page_read_cost × i`
    /// a read; consolidate when negative.
    Counter {
        node_write_cost: f64,
        page_read_cost: f64,
    },
}

impl Consolidation {
    /// The counter with costs from the device's model: a node write against
    /// a page read, in energy (time when the model has no energy); unit
    /// costs when the device has no model (a real file).
    pub fn counter_for(cost: Option<CostModel>, node_bytes: usize, page_size: usize) -> Self {
        let (r, w) = CostModel::read_write_weights(cost, page_size, node_bytes);
        Consolidation::Counter {
            node_write_cost: w,
            page_read_cost: r,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    base_writes: u64,
    deltas_written: u64,
    pages_written: u64,
    bound_consolidations: u64,
    counter_consolidations: u64,
    chain_reads: u64,
    delta_page_reads: u64,
}

/// Base nodes and delta pages in a log of logical pages.
pub struct DeltaChainStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    capacity: u32,
    max_deltas: usize,
    policy: Consolidation,
    chains: ChainTable,
    /// A chain's delta pages copied out while its pages are released or
    /// read (`max_deltas` long, reused).
    chain_pages: Vec<u32>,
    /// Ids whose rebuilt chain named more than `max_deltas` pages: stale
    /// records of freed ids (dropped by `restore_allocation`); a read of
    /// one is `Corrupt`.
    overflowed: Vec<NodeId>,
    refs: Vec<u16>,
    free_pages: Vec<u32>,
    high_water: u32,
    head: Vec<u8>,
    head_used: usize,
    head_nodes: Vec<NodeId>,
    seq: u64,
    ids: IdAllocator,
    page_buf: Vec<u8>,
    image: Vec<u8>,
    counters: Counters,
    /// Opened for queries only: reads consolidate nothing (module doc).
    read_only: bool,
    /// Chains with a base, and delta page references in them: the node
    /// table's size, kept as it changes so that the tree can fit its
    /// cache after every operation without a scan.
    live_chains: usize,
    delta_refs: usize,
    tables: Tables,
}

impl DeltaChainStore {
    /// A store on a logical-page device.
    pub fn new(
        storage: Storage,
        layout: NodeLayout,
        max_deltas: usize,
        policy: Consolidation,
    ) -> Result<Self, NodeError> {
        let (page_size, capacity) =
            match &storage {
                Storage::Pages(d) => (d.page_size(), d.capacity_pages()),
                Storage::Raw(_) => return Err(NodeError::Config(
                    "the delta schemes write a log of logical pages and need an FTL profile or \
                     file:PATH, not raw: (IPL runs on raw chips)"
                        .into(),
                )),
            };
        let most = page_size.saturating_sub(FIRST_RECORD + delta::RECORD_HEADER);
        if layout.node_bytes > most || page_size > u16::MAX as usize {
            return Err(NodeError::Config(format!(
                "a {}-byte node does not fit a {page_size}-byte page with its record header; \
                 the delta schemes need node_bytes <= {most}",
                layout.node_bytes
            )));
        }
        if page_size < FRAME_HEADER + META_BYTES + STATE_BYTES {
            return Err(NodeError::Config(format!(
                "page size {page_size} is too small for the superblock"
            )));
        }
        if max_deltas == 0 || max_deltas > 64 {
            return Err(NodeError::Config(format!(
                "max_deltas must be 1..=64, got {max_deltas}"
            )));
        }
        let mut head = vec![0u8; page_size];
        let head_used = delta::start_page(&mut head, 0);
        Ok(DeltaChainStore {
            storage,
            layout,
            page_size,
            capacity: capacity.min(NOWHERE as u64) as u32,
            max_deltas,
            policy,
            chains: ChainTable::new(max_deltas, policy != Consolidation::Never),
            chain_pages: Vec::with_capacity(max_deltas),
            overflowed: Vec::new(),
            refs: Vec::new(),
            free_pages: Vec::new(),
            high_water: 1,
            head,
            head_used,
            head_nodes: Vec::new(),
            seq: 0,
            ids: IdAllocator::default(),
            page_buf: vec![0u8; page_size],
            image: vec![0u8; layout.node_bytes],
            counters: Counters::default(),
            read_only: false,
            live_chains: 0,
            delta_refs: 0,
            tables: Tables::InBudget,
        })
    }

    /// For queries only: from now on no read consolidates (module doc).
    /// Set before the first read: opening a tree reads nodes.
    pub fn set_read_only(&mut self) {
        self.read_only = true;
    }

    /// Whether the node table is paid from the budget, for the notes
    /// (the tree fits its cache to it, `BTree::fit_to_budget`).
    pub fn set_tables(&mut self, tables: Tables) {
        self.tables = tables;
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `new` refuses raw storage.
            Storage::Raw(_) => unreachable!("DeltaChainStore is built only on Storage::Pages"),
        }
    }

    /// Bytes of RAM the node table takes at its layout (module docs):
    /// the chains, the page reference counts, the free pages and the free
    /// node ids. O(1): the counts are kept as the table changes.
    pub fn node_table_bytes(&self) -> usize {
        let per_counter = match self.policy {
            Consolidation::Never => 0,
            Consolidation::Counter { .. } => 4,
        };
        self.live_chains * (6 + per_counter)
            + 4 * self.delta_refs
            + 2 * self.refs.len()
            + 4 * self.free_pages.len()
            + 4 * self.ids.free.len()
    }

    /// Takes node `id`'s chain out of the table (and of its size),
    /// leaving its old base and its delta pages in `chain_pages`: the
    /// base, `NOWHERE` when it had none.
    fn take_chain(&mut self, id: NodeId) -> u32 {
        let base = self.chains.base(id);
        self.chain_pages.clear();
        self.chain_pages.extend_from_slice(self.chains.deltas(id));
        if base != NOWHERE {
            self.live_chains -= 1;
        }
        self.delta_refs -= self.chain_pages.len();
        self.chains.reset(id);
        base
    }

    /// Counts the whole table again (after a rebuild).
    fn recount(&mut self) {
        self.live_chains = self.chains.live().count();
        self.delta_refs = self
            .chains
            .live()
            .map(|id| self.chains.deltas(id).len())
            .sum();
    }

    fn free_page_count(&self) -> u64 {
        self.free_pages.len() as u64 + (self.capacity - self.high_water) as u64
    }

    fn take_page(&mut self) -> Result<u32, NodeError> {
        if let Some(p) = self.free_pages.pop() {
            return Ok(p);
        }
        if self.high_water >= self.capacity {
            return Err(NodeError::Device(DeviceError::Full {
                detail: format!(
                    "every one of the {} logical pages holds live node records",
                    self.capacity
                ),
            }));
        }
        self.high_water += 1;
        Ok(self.high_water - 1)
    }

    /// Drops one reference to page `p` (invariant 1).
    fn unref(&mut self, p: u32) -> Result<(), NodeError> {
        if p == HEAD || p == NOWHERE {
            return Ok(());
        }
        let r = &mut self.refs[p as usize];
        *r = r.saturating_sub(1);
        if *r == 0 {
            self.dev().trim(p as u64)?;
            self.free_pages.push(p);
        }
        Ok(())
    }

    /// Forgets node `id`'s chain, releasing its pages.
    fn drop_chain(&mut self, id: NodeId) -> Result<(), NodeError> {
        if id as usize >= self.chains.len() {
            return Ok(());
        }
        let base = self.take_chain(id);
        self.unref(base)?;
        let pages = std::mem::take(&mut self.chain_pages);
        let mut r = Ok(());
        for &p in &pages {
            if p != base && r.is_ok() {
                r = self.unref(p);
            }
        }
        self.chain_pages = pages;
        r
    }

    /// Writes the head page and renames `HEAD` in the chains of its nodes.
    fn program_head(&mut self) -> Result<(), NodeError> {
        if self.head_used == FIRST_RECORD {
            return Ok(());
        }
        let p = self.take_page()?;
        let used = self.head_used;
        delta::seal_page(&mut self.head, used);
        let head = std::mem::take(&mut self.head);
        let written = self.dev().write(p as u64, 0, &head);
        self.head = head;
        if let Err(e) = written {
            self.free_pages.push(p);
            return Err(e.into());
        }
        self.counters.pages_written += 1;
        if self.refs.len() <= p as usize {
            self.refs.resize(p as usize + 1, 0);
        }
        let mut nodes = std::mem::take(&mut self.head_nodes);
        nodes.sort_unstable();
        nodes.dedup();
        for &id in &nodes {
            let mut named = false;
            if self.chains.base(id) == HEAD {
                let at = self.chains.base_at(id);
                self.chains.set_base(id, p, at);
                named = true;
            }
            for d in self
                .chains
                .deltas_mut(id)
                .iter_mut()
                .filter(|d| **d == HEAD)
            {
                *d = p;
                named = true;
            }
            if named {
                self.refs[p as usize] += 1;
            }
        }
        nodes.clear();
        self.head_nodes = nodes;
        self.seq += 1;
        let seq = self.seq;
        self.head_used = delta::start_page(&mut self.head, seq);
        if self.refs[p as usize] == 0 {
            // Every record in it was superseded while it was in RAM.
            self.dev().trim(p as u64)?;
            self.free_pages.push(p);
        }
        Ok(())
    }

    /// Makes room for `need` bytes in the head page.
    fn head_room(&mut self, need: usize) -> Result<(), NodeError> {
        if !self.head_fits(need) {
            self.program_head()?;
        }
        Ok(())
    }

    /// Whether `need` more bytes fit the head page.
    fn head_fits(&self, need: usize) -> bool {
        self.page_size - self.head_used >= need
    }

    /// Writes `node` as node `id`'s new base (consolidating its chain).
    fn write_base(&mut self, id: NodeId, node: &Node) -> Result<(), NodeError> {
        let bytes = delta::base_record_bytes(self.layout);
        if self.chains.base(id) == HEAD {
            // Still in RAM: re-encode in place.
            let at = self.chains.base_at(id) as usize;
            delta::put_base(&mut self.head[at..at + bytes], id, node, self.layout);
            let mut old = std::mem::take(&mut self.chain_pages);
            old.clear();
            old.extend_from_slice(self.chains.deltas(id));
            self.chains.clear_deltas(id);
            self.delta_refs -= old.len();
            let mut r = Ok(());
            for &p in &old {
                if r.is_ok() {
                    r = self.unref(p);
                }
            }
            self.chain_pages = old;
            r?;
            self.chains.set_counter(id, 0.0);
            return Ok(());
        }
        self.head_room(bytes)?;
        self.drop_chain(id)?;
        let at = self.head_used;
        delta::put_base(&mut self.head[at..at + bytes], id, node, self.layout);
        self.head_used += bytes;
        self.chains.ensure(id);
        self.chains.set_base(id, HEAD, at as u16);
        self.chains.set_counter(id, 0.0);
        // `drop_chain` left it without a base.
        self.live_chains += 1;
        self.head_nodes.push(id);
        self.counters.base_writes += 1;
        Ok(())
    }

    /// Adds `d` to node `id`'s chain, or consolidates the chain when a new
    /// delta page would pass `max_deltas`.
    fn write_delta(&mut self, id: NodeId, node: &Node, d: Delta) -> Result<(), NodeError> {
        let bytes = delta::delta_record_bytes(self.layout.format);
        let base = self.chains.base(id);
        if base == NOWHERE || base == HEAD {
            return self.write_base(id, node);
        }
        self.head_room(bytes)?;
        let chain = self.chains.deltas(id);
        if chain.last() != Some(&HEAD) && chain.len() >= self.max_deltas {
            self.counters.bound_consolidations += 1;
            return self.write_base(id, node);
        }
        let at = self.head_used;
        let format = self.layout.format;
        delta::put_delta(&mut self.head[at..at + bytes], id, &d, format);
        self.head_used += bytes;
        self.counters.deltas_written += 1;
        let add = match self.policy {
            Consolidation::Never => 0.0,
            Consolidation::Counter {
                node_write_cost, ..
            } => node_write_cost,
        };
        self.chains.set_counter(id, self.chains.counter(id) + add);
        if self.chains.deltas(id).last() != Some(&HEAD) {
            // Room: a chain at `max_deltas` was consolidated above.
            let pushed = self.chains.push_delta(id, HEAD);
            debug_assert!(pushed);
            self.delta_refs += 1;
            self.head_nodes.push(id);
        }
        Ok(())
    }

    /// Replays the records of node `id` found in `page` (checked bytes)
    /// onto `node`, after byte `from`.
    fn replay(
        layout: NodeLayout,
        id: NodeId,
        page: &[u8],
        page_no: u64,
        from: usize,
        node: &mut Node,
    ) -> Result<(), NodeError> {
        delta::for_each_record(page, layout, page_no, |rid, r| match r {
            Record::Delta(d) if rid == id => d.apply(node, layout, page_no),
            Record::Base { at, .. } if rid == id && at > from => Err(NodeError::Corrupt {
                page: page_no,
                detail: format!("node {id}: a base record inside its delta page"),
            }),
            _ => Ok(()),
        })
    }

    /// Reads node `id`'s base image into `self.image`; returns its page.
    fn load_base(&mut self, id: NodeId) -> Result<u64, NodeError> {
        if self.overflowed.contains(&id) {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("node {id}: more delta pages than max_deltas"),
            });
        }
        let (base, at) = match self.chains.base(id) {
            NOWHERE => {
                return Err(NodeError::Corrupt {
                    page: 0,
                    detail: format!("node {id} is not in the node table"),
                })
            }
            base => (
                base,
                self.chains.base_at(id) as usize + delta::RECORD_HEADER,
            ),
        };
        let nb = self.layout.node_bytes;
        if base == HEAD {
            self.image.copy_from_slice(&self.head[at..at + nb]);
            return Ok(0);
        }
        let mut image = std::mem::take(&mut self.image);
        let r = self.dev().read(base as u64, at, &mut image);
        self.image = image;
        r?;
        Ok(base as u64)
    }
}

impl NodeStore for DeltaChainStore {
    /// Each change is its own delta (index unit).
    fn records_each_change(&self) -> bool {
        true
    }

    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        let page_no = self.load_base(id)?;
        self.layout.decode(&self.image, page_no, node)?;
        self.counters.chain_reads += 1;
        let mut deltas = std::mem::take(&mut self.chain_pages);
        deltas.clear();
        deltas.extend_from_slice(self.chains.deltas(id));
        let mut result = Ok(());
        for &p in &deltas {
            let layout = self.layout;
            if p == HEAD {
                let used = self.head_used;
                result = Self::replay(layout, id, &self.head[..used], 0, 0, node);
            } else {
                let mut buf = std::mem::take(&mut self.page_buf);
                result = self.dev().read(p as u64, 0, &mut buf).map_err(Into::into);
                if result.is_ok() {
                    self.counters.delta_page_reads += 1;
                    result = match delta::open_page(&buf, p as u64) {
                        Ok(Some((_, body))) => Self::replay(layout, id, body, p as u64, 0, node),
                        Ok(None) => Err(NodeError::Corrupt {
                            page: p as u64,
                            detail: format!("node {id}: its delta page is empty"),
                        }),
                        Err(e) => Err(e),
                    };
                }
                self.page_buf = buf;
            }
            if result.is_err() {
                break;
            }
        }
        let chain_len = deltas.len();
        self.chain_pages = deltas;
        result?;
        if self.read_only {
            // Nothing may be written: the chain answers as it is.
            return Ok(());
        }
        if let Consolidation::Counter { page_read_cost, .. } = self.policy {
            // A read never fails for want of room (issue #28: a full image
            // could not be scanned): the consolidation it triggers waits,
            // its counter still negative, until a page is free.
            let room =
                self.head_fits(delta::base_record_bytes(self.layout)) || self.free_page_count() > 0;
            let c = self.chains.counter(id) - page_read_cost * chain_len as f64;
            self.chains.set_counter(id, c);
            if c < 0.0 && chain_len > 0 && room {
                self.counters.counter_consolidations += 1;
                self.write_base(id, node)?;
            }
        }
        Ok(())
    }

    fn read_image(&mut self, id: NodeId) -> Result<Option<(&[u8], u64)>, NodeError> {
        if id as usize >= self.chains.len() || !self.chains.deltas(id).is_empty() {
            return Ok(None);
        }
        let page_no = self.load_base(id)?;
        self.counters.chain_reads += 1;
        Ok(Some((&self.image, page_no)))
    }

    fn write_node(&mut self, id: NodeId, node: &Node, change: NodeChange) -> Result<(), NodeError> {
        match Delta::from_change(id, node, change)? {
            Some(d) => self.write_delta(id, node, d),
            None => self.write_base(id, node),
        }
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        self.ids.allocate(|_| Ok(()))
    }

    fn can_allocate(&self, n: usize) -> bool {
        // A split writes up to two bases a level; each head page holds at
        // least one, and the current batch may need the head written too.
        self.free_page_count() > 2 * n as u64 + 2 && self.ids.can_allocate(n, u32::MAX as u64)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        self.drop_chain(id)?;
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        for &id in &free {
            self.overflowed.retain(|&o| o != id);
            if (id as usize) < self.chains.len() {
                let base = self.take_chain(id);
                for &p in std::iter::once(&base).chain(&self.chain_pages) {
                    if let Some(r) = self.refs.get_mut(p as usize) {
                        *r = r.saturating_sub(1);
                    }
                }
            }
        }
        // Pages no chain names are reused; they are overwritten before
        // anything reads them.
        self.free_pages = (1..self.high_water)
            .filter(|&p| self.refs.get(p as usize).is_none_or(|&r| r == 0))
            .rev()
            .collect();
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let mut buf = std::mem::take(&mut self.page_buf);
        let r = self.dev().read(0, 0, &mut buf);
        self.page_buf = buf;
        r?;
        let Some((meta, state)) = TreeMeta::open_superblock(&self.page_buf, 0, STATE_BYTES)? else {
            return Ok(None);
        };
        let (high_water, seq) = decode_state(state);
        super::check_node_size(&meta, self.layout)?;
        if high_water == 0 || high_water > self.capacity {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("high-water page {high_water} out of range"),
            });
        }
        self.high_water = high_water;
        self.seq = seq;
        self.head_used = delta::start_page(&mut self.head, seq);
        self.rebuild(meta.next_id)?;
        self.ids = IdAllocator::starting_at(meta.next_id);
        Ok(Some(meta))
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        // The superblock names the high-water page: the head must be on
        // flash first.
        self.program_head()?;
        let mut buf = vec![0u8; self.page_size];
        meta.seal_superblock(&encode_state(self.high_water, self.seq), &mut buf);
        self.dev().write(0, 0, &buf)?;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        Ok(self.dev().sync()?)
    }

    fn memory_bytes(&self) -> usize {
        self.reserved_bytes() + self.data_bound_bytes()
    }

    /// The node table (module docs), Consolidation's counters included.
    fn data_bound_bytes(&self) -> usize {
        self.node_table_bytes()
    }

    fn reserved_bytes(&self) -> usize {
        self.page_size
    }

    fn flash_bytes_used(&self) -> u64 {
        let live = (self.high_water as u64 - 1) - self.free_pages.len() as u64;
        (1 + live + u64::from(self.head_used > FIRST_RECORD)) * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn notes(&self) -> Vec<String> {
        vec![super::table_note(self.node_table_bytes(), self.tables)]
    }

    fn report(&self, s: &mut IndexStats) {
        let c = &self.counters;
        s.set("node_table_bytes", self.node_table_bytes() as f64);
        s.set("base_writes", c.base_writes as f64);
        s.set("deltas_written", c.deltas_written as f64);
        s.set("record_pages_written", c.pages_written as f64);
        s.set("consolidations_bound", c.bound_consolidations as f64);
        s.set("consolidations_counter", c.counter_consolidations as f64);
        s.set("chain_reads", c.chain_reads as f64);
        s.set("delta_page_reads", c.delta_page_reads as f64);
        let live = self.chains.live().count();
        if live > 0 {
            let lens = self.chains.live().map(|id| self.chains.deltas(id).len());
            let (total, longest) = lens.fold((0, 0), |(t, m), n| (t + n, m.max(n)));
            s.set("avg_delta_pages", total as f64 / live as f64);
            s.set("max_delta_pages", longest as f64);
        }
    }
}

impl DeltaChainStore {
    /// Rebuilds the node table from pages `1 .. high_water` in sequence
    /// order: a node's chain is its last base and the pages after it that
    /// hold its deltas.
    fn rebuild(&mut self, next_id: NodeId) -> Result<(), NodeError> {
        self.chains.clear();
        self.overflowed.clear();
        self.refs = vec![0; self.high_water as usize];
        let mut order = Vec::new();
        let mut buf = std::mem::take(&mut self.page_buf);
        let mut result = Ok(());
        for p in 1..self.high_water {
            if let Err(e) = self.dev().read(p as u64, 0, &mut buf) {
                result = Err(e.into());
                break;
            }
            match delta::open_page(&buf, p as u64) {
                Ok(Some((seq, _))) => order.push((seq, p)),
                Ok(None) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        order.sort_unstable();
        let layout = self.layout;
        for &(_, p) in &order {
            if result.is_err() {
                break;
            }
            if let Err(e) = self.dev().read(p as u64, 0, &mut buf) {
                result = Err(e.into());
                break;
            }
            let body = match delta::open_page(&buf, p as u64) {
                Ok(Some((_, body))) => body,
                Ok(None) => continue,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let chains = &mut self.chains;
            let overflowed = &mut self.overflowed;
            result = delta::for_each_record(body, layout, p as u64, |id, r| {
                if id >= next_id {
                    return Err(NodeError::Corrupt {
                        page: p as u64,
                        detail: format!("record of node {id} beyond next id {next_id}"),
                    });
                }
                chains.ensure(id);
                match r {
                    Record::Base { at, .. } => {
                        chains.set_base(id, p, at as u16);
                        chains.clear_deltas(id);
                        overflowed.retain(|&o| o != id);
                    }
                    Record::Delta(_) => {
                        let base = chains.base(id);
                        if base != NOWHERE
                            && base != p
                            && chains.deltas(id).last() != Some(&p)
                            && !chains.push_delta(id, p)
                            && !overflowed.contains(&id)
                        {
                            // A freed id's stale records (a live chain
                            // never passes it, invariant 2).
                            overflowed.push(id);
                        }
                    }
                }
                Ok(())
            });
        }
        self.page_buf = buf;
        result?;
        self.recount();
        for id in self.chains.live() {
            self.refs[self.chains.base(id) as usize] += 1;
            for &p in self.chains.deltas(id) {
                self.refs[p as usize] += 1;
            }
        }
        Ok(())
    }
}
