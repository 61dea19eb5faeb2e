//! `latree`: the Buffered-B+ tree, or Lazy-Adaptive tree, of
//! Agrawal et al. 2009 §4–5 (section numbers below are that paper's).
//!
//! A B+-tree of fanout F (`fanout`, default 16; [`crate::index::btree`],
//! its node code, cache and split logic) divided into subtrees of height h
//! (`subtree_height`, default 2): a node at a level `l` with
//! `l mod h = h − 1` (the leaves are level 0), and the root, is a subtree
//! root and has a **buffer** (§4.1, Fig. 5).
//!
//! * **Insert** (§5.1): a buffer entry goes into the root's buffer.
//! * **Emptying** (`latree::empty`): when a buffer holds U entries (`max_buffer_bytes`,
//!   default 3M/4 as §5.1 sets it, over the entry size), or its flash
//!   partition fills, or the adaptive policy says so at a lookup, or a raw
//!   chip runs short of partitions (`LaTree::ensure_partitions`), it is
//!   loaded, sorted and either routed through its subtree into the buffers
//!   of the subtrees below or, for a leaf subtree, applied to the leaves
//!   with splits that cascade (buffer splits included). A buffer filled by
//!   an emptying is emptied in turn (highest level first).
//! * **Immediate lookup** (§5.1): down the tree as a B+-tree search, and
//!   at each subtree root on the way its buffer is scanned, unless the
//!   policy (`latree::adapt`: `adapt=adapt|simple|off`, default `simple`, the
//!   paper's implementation) empties it first. The answer is the leaves'
//!   entries with the buffered operations on the path applied, deepest
//!   (oldest) buffer first, each in arrival order.
//! * **Delete** (the paper omits deletions; the buffer tree it builds on
//!   handles them as insertions): a lookup of the pair, then a delete
//!   entry in the root's buffer when the pair is present. `update` is
//!   delete + insert.
//! * **Range** scans the buffers of every subtree the range reaches, with
//!   no adaptive emptying (`latree::search`, with the lookups).
//! * **Versions of keys** (`versions=key`, a map store's tree; recorded in
//!   the superblock's flags): an insert or upsert is a key's newest
//!   version, appended to the root's buffer without a read; entries are
//!   routed by key, emptyings keep each key's newest entry, a delete is an
//!   entry of the key that ends at the leaves, and a lookup stops at the
//!   first buffer on its path that holds the key (`latree::versions`).
//!
//! Flash layer (§5.2): nodes are packed into the node log with two halves
//! and copying garbage collection on a raw chip ([`LogNodeStore`], whose
//! `log_blocks` default here is a quarter of the chip per half, so that the
//! other half holds buffer partitions), or written in place on a
//! logical-page device ([`PageNodeStore`]). Buffers: `latree::buffers`.
//!
//! Memory (§5.3; issue #43). `tables=outside` keeps the data-bound
//! tables beside the budget, as §6 keeps the node table; `tables=in-budget`
//! (the default) sizes everything below from the whole budget at open
//! and, as the tables grow, shrinks the node cache by what they hold
//! (`BTree::fit_to_budget`, refitted at the end of every operation); the
//! pool and the scratch stay as sized. When the tables leave no node
//! cache, the run says so with the budget this data needs.
//! * **Budget-bound** (sized from the budget, never grown with the data):
//!   the B+-tree's node cache, a share `node_cache_share` (default 0.25;
//!   `cache=lru` by default: "an LRU eviction policy") that includes the
//!   node store's write buffer (a page) and 64 bytes of metadata; of the
//!   rest, one page buffer, the scratch (`latree::memory`: the emptying's
//!   chunk, a quarter of what is left, 25 bytes an entry; a lookup's
//!   vectors, a thirty-second; a page of entries for a moved buffer; with
//!   `lookup=delayed`, an eighth for lookups cut across subtrees) and the
//!   buffer pool, the remainder, an arena of slots of ~32 bytes of entries
//!   and a 4-byte link each (`latree::pool`): a tail page holds what it
//!   has, ~10.3 bytes an entry of 9. Stats: `node_cache_budget`,
//!   `buffer_pool_bytes`, `buffer_pool_used_bytes`, `scratch_bytes`,
//!   `delayed_lookup_bytes`.
//! * **Data-bound** (one entry per node or buffer, named lines of
//!   `node::budget::DATA_BOUND_LINES`): the node table on the node log
//!   (`node_table_bytes`, 4 bytes a node id, `node::log_store`), the buffer
//!   directory (`buffer_directory_bytes`: 16 bytes a buffer and 6 a flash
//!   page) and ADAPT's counters (`adapt_counter_bytes`, 8 bytes a
//!   counter).
//! * **Beyond the budget, on a full device only**: the spill
//!   (`spill_bytes`, below).
//!
//! `memory_bytes` counts all of them between operations. The paper pins
//! the subtree being emptied in the node cache; here its nodes stay in the
//! LRU cache while the emptying uses them, and every entry is routed from
//! the root (see `docs/DEVIATIONS.md`).
//!
//! Durability (`docs/FORMAT.md`): `flush` empties every buffer, top down,
//! into the tree, then flushes the tree: the durable state is the B+-tree
//! alone, with its superblock naming the index `latree`, and reopening
//! starts with empty buffers. Work left buffered at the end of a run is
//! therefore charged to the final flush, never free. Buffer pages are
//! scratch: nothing reads them after a crash.
//!
//! A full device: an emptying or a buffer move that finds no room keeps
//! the entries it had taken out, in order, in the **spill** (RAM beyond
//! the budget, at most what that one operation had taken out, counted in
//! the memory figure),
//! and the shape changes it had not followed; lookups read the spill with
//! the buffers, and the next operation first puts it back into the
//! buffers and retries the emptying, taking nothing new while that fails.
//! The operation that met the full device returns `Full` and may already
//! be buffered; every one that returned `Ok` is kept.
//!
//! Invariants:
//! 1. For every pair, its buffered entries lie in the buffers on its
//!    root-to-leaf path, older ones deeper; within a buffer, in the order
//!    of the operations. With versions of keys the same holds for every
//!    key, on the path of `(key, 0)`.
//! 2. Only subtree roots (and the root) have buffers; a buffer belongs to
//!    the node whose subtree holds its entries' keys.
//! 3. Between operations no buffer is queued for emptying, unless an
//!    operation failed (`stuck`).
//! 4. Spilled entries belong after the buffers at their level and before
//!    those above (they share no pair with the buffers at their level);
//!    the spill is kept in level order.

mod adapt;
mod buffer_tree;
mod buffers;
mod counters;
mod empty;
mod lookups;
mod memory;
mod pool;
mod search;
mod space;
mod versions;

pub use adapt::Policy;

use crate::device::Storage;
use crate::index::btree::{BTree, BTreeOptions};
use crate::index::kinds::reopen::{agree_versions, tree_params};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};
use crate::node::{Budget, LogNodeStore, NodeId, NodeStore, PageNodeStore, Tables};

use adapt::{IoCosts, PolicyState};
use buffers::{Buffers, Elem, Op, PoolUnit};
use lookups::Delayed;
use memory::Scratch;

/// Name in the registry.
pub const NAME: &str = "latree";
/// The buffer tree's name in the registry.
pub const BUFFER_TREE: &str = "buffer-tree";
/// Free partitions kept beyond what an operation is known to need: a
/// buffer split or a frame evicted from the pool may take one.
const PARTITION_RESERVE: u64 = 8;
/// The superblock's flag (`TreeMeta::flags`, bit 0) of a tree of versions
/// of keys (`versions=key`); no other bit is in use.
const FLAG_VERSIONS_BY_KEY: u8 = 1;

/// Why a buffer was emptied.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cause {
    /// It reached U entries.
    Full,
    /// Its flash partition filled.
    Partition,
    /// The adaptive policy, at a lookup.
    Adapt,
    /// `flush`.
    Flush,
    /// The raw chip ran short of free buffer partitions.
    Space,
    /// Delayed lookups cut across subtrees passed their share of RAM.
    Lookups,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    empties_full: u64,
    empties_partition: u64,
    empties_adapt: u64,
    empties_flush: u64,
    empties_space: u64,
    empties_lookups: u64,
    entries_emptied: u64,
    buffer_splits: u64,
    lookups: u64,
    buffers_scanned: u64,
    entries_scanned: u64,
    adapt_counters_peak: usize,
    /// Sum over lookups of the entries in the buffers they met (for the
    /// mean buffer size a lookup sees, lat-fig9(b)).
    entries_met: u64,
    buffers_met: u64,
}

impl Counters {
    fn count_empty(&mut self, cause: Cause, entries: u64) {
        match cause {
            Cause::Full => self.empties_full += 1,
            Cause::Partition => self.empties_partition += 1,
            Cause::Adapt => self.empties_adapt += 1,
            Cause::Flush => self.empties_flush += 1,
            Cause::Space => self.empties_space += 1,
            Cause::Lookups => self.empties_lookups += 1,
        }
        self.entries_emptied += entries;
    }
}

/// The parameters of the Buffered-B+ tree beyond the B+-tree's.
#[derive(Clone, Copy, Debug)]
struct LaOptions {
    subtree_height: u8,
    policy: Policy,
    node_cache_share: f64,
    partition_blocks: u64,
    max_buffer_bytes: Option<usize>,
    pool_unit: PoolUnit,
    /// `versions=key` (module doc, "Versions of keys").
    versions_by_key: bool,
}

impl LaOptions {
    fn from_params(params: &mut Params) -> Result<Self> {
        let subtree_height: u8 = params.get("subtree_height", 2)?;
        if !(1..=16).contains(&subtree_height) {
            return Err(IndexError::Config(format!(
                "subtree_height={subtree_height}: expected 1 to 16"
            )));
        }
        let policy = params
            .get("adapt", "simple".to_string())?
            .parse::<Policy>()
            .map_err(IndexError::Config)?;
        let node_cache_share: f64 = params.get("node_cache_share", 0.25)?;
        if !(node_cache_share > 0.0 && node_cache_share < 1.0) {
            return Err(IndexError::Config(format!(
                "node_cache_share={node_cache_share}: expected a share strictly between 0 and 1"
            )));
        }
        Ok(LaOptions {
            subtree_height,
            policy,
            node_cache_share,
            partition_blocks: params.get("partition_blocks", 2)?,
            max_buffer_bytes: params.get_opt("max_buffer_bytes")?,
            pool_unit: params
                .get("buffer_pool", "entries".to_string())?
                .parse::<PoolUnit>()
                .map_err(IndexError::Config)?,
            versions_by_key: params.versions_by_key()?,
        })
    }
}

/// The B+-tree options with this index's defaults: fanout 16 unless a node
/// size is given, an LRU node cache.
fn tree_options(params: &mut Params) -> Result<BTreeOptions> {
    if !["fanout", "node_bytes", "node_pages"]
        .iter()
        .any(|k| params.contains(k))
    {
        params.set("fanout", "16");
    }
    if !params.contains("cache") {
        params.set("cache", "lru");
    }
    BTreeOptions::from_params(params)
}

/// Whether the image whose superblock carries `flags` keeps versions of
/// keys; `given`, the `versions` parameter if the caller passed one, must
/// agree (`kinds::reopen::agree_versions`).
fn versions_of_image(flags: u8, given: Option<String>, delayed: bool) -> Result<bool> {
    if flags & !FLAG_VERSIONS_BY_KEY != 0 {
        return Err(IndexError::Corrupt {
            page: 0,
            detail: format!("Buffered-B+ tree superblock: unknown flags {flags:#04x}"),
        });
    }
    let mut p = Params::new();
    if let Some(v) = given {
        p.set("versions", &v);
    }
    agree_versions(&mut p, flags & FLAG_VERSIONS_BY_KEY != 0)?;
    let by_key = p.versions_by_key()?;
    no_delayed_versions(delayed, by_key)?;
    Ok(by_key)
}

/// The buffer tree's delayed lookups are cut by pairs and answered by the
/// leaves' pairs; a tree of versions of keys (a map store's) answers its
/// lookups at once, and refuses them.
fn no_delayed_versions(delayed: bool, by_key: bool) -> Result<()> {
    if delayed && by_key {
        return Err(IndexError::Config(
            "lookup=delayed with versions=key: a tree of versions of keys answers its lookups at once"
                .into(),
        ));
    }
    Ok(())
}

/// Blocks per node-log half on a raw chip of `blocks`: a quarter each,
/// the other half of the chip for buffer partitions.
fn default_log_blocks(blocks: u64) -> u64 {
    (blocks.saturating_sub(3) / 4).max(1)
}

/// The Buffered-B+ tree (and, configured as §3.1's buffer tree, the
/// buffer tree).
pub struct LaTree {
    name: &'static str,
    /// Lookups batched with the inserts (the buffer tree's delayed mode).
    delayed: bool,
    /// The delayed lookups in flight.
    delayed_lookups: Delayed,
    tree: BTree,
    bufs: Buffers<PolicyState>,
    policy: Policy,
    subtree_height: u8,
    /// U: the most entries a buffer holds before it is emptied.
    max_entries: u64,
    costs: IoCosts,
    format: EntryFormat,
    budget: Budget,
    node_memory: usize,
    /// What the scratch vectors may keep between operations (`Scratch`).
    scratch: Scratch,
    shapes: Vec<crate::index::btree::ShapeChange>,
    /// An emptying's chunk (`chunk_entries`, allocated once).
    loaded: Vec<Elem>,
    /// Entries an emptying takes from its buffer at a time.
    chunk_entries: usize,
    /// A buffer moved with its node, a page at a time (allocated once).
    moving: Vec<Elem>,
    /// The chunk's routes and their distinct targets (allocated once).
    routes: Vec<NodeId>,
    targets: Vec<NodeId>,
    walk: Vec<(NodeId, u8)>,
    stack: Vec<(NodeId, u8)>,
    kids: Vec<NodeId>,
    found: Vec<Elem>,
    base: Vec<(u64, u64)>,
    /// Entries an emptying or a buffer move had taken out when the device
    /// ran out of room (`empty::spill`), each with the level of the
    /// buffers it belongs to, in order; RAM beyond the budget until
    /// [`LaTree::drain_spill`] puts them back into those buffers.
    spill: Vec<(u8, Elem)>,
    /// Shape changes not yet followed when the device ran out of room.
    pending_shapes: Vec<crate::index::btree::ShapeChange>,
    /// An operation failed (a full device): the next one retries what
    /// it left before taking anything new.
    stuck: bool,
    /// Scratch of [`LaTree::merge_found`]: `found` as (pair, arrival, op).
    found_order: Vec<((u64, u64), u32, Op)>,
    /// Scratch of [`LaTree::merge_found`]: the live pairs being built.
    live: Vec<(u64, u64)>,
    counters: Counters,
    /// Inside [`LaTree::ensure_partitions`] (its emptyings do not recurse
    /// into it).
    making_space: bool,
    /// `versions=key` (module doc, "Versions of keys").
    by_key: bool,
}

impl LaTree {
    /// A new, empty Buffered-B+ tree on `storage`.
    pub fn create(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::build(NAME, storage, memory, params, false)
    }

    /// Reopens the Buffered-B+ tree `flush` left on `storage` (its buffers
    /// empty).
    pub fn open(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::build(NAME, storage, memory, params, true)
    }

    /// A new, empty buffer tree (§3.1) on `storage`: see `latree::buffer_tree`.
    pub fn create_buffer_tree(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::build(BUFFER_TREE, storage, memory, params, false)
    }

    /// Reopens a buffer tree.
    pub fn open_buffer_tree(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::build(BUFFER_TREE, storage, memory, params, true)
    }

    fn build(
        name: &'static str,
        mut storage: Storage,
        memory: usize,
        mut params: Params,
        open: bool,
    ) -> Result<Self> {
        if open {
            tree_params(&mut storage, &mut params, true)?;
        }
        let delayed = if name == BUFFER_TREE {
            buffer_tree::defaults(&mut params, memory)?
        } else {
            false
        };
        let budget = params.budget(memory)?;
        // Checked against the image once the tree is open.
        let versions = params.raw("versions");
        let mut la = LaOptions::from_params(&mut params)?;
        no_delayed_versions(delayed, la.versions_by_key)?;
        let opts = tree_options(&mut params)?;
        params.finish(name)?;
        let layout = opts.layout(storage.page_size())?;
        // Sized before any table is held: with `tables=in-budget` the
        // tables then grow into the budget (`docs/DEVIATIONS.md`).
        let node_memory = (budget.for_budget_bound(0) as f64 * la.node_cache_share) as usize;
        let store: Box<dyn NodeStore> = match storage {
            Storage::Raw(ref chip) => {
                let blocks = chip.geometry().blocks;
                let log_blocks = match opts.log_blocks {
                    0 => default_log_blocks(blocks),
                    n => n,
                };
                Box::new(LogNodeStore::new(storage, layout, log_blocks)?)
            }
            Storage::Pages(_) => Box::new(PageNodeStore::new(storage, layout)?),
        };
        let tree = if open {
            let tree = BTree::open_on(name, store, node_memory, opts.cache)?;
            la.versions_by_key = versions_of_image(tree.flags(), versions, delayed)?;
            tree
        } else {
            let mut tree = BTree::create_on(name, store, node_memory, opts.cache)?;
            if la.versions_by_key {
                // Recorded at once: an empty file of versions never
                // reopens as pairs.
                tree.set_flags(FLAG_VERSIONS_BY_KEY);
                tree.flush()?;
            }
            tree
        };
        let mut t = Self::assemble(tree, budget, node_memory, la, delayed)?;
        t.name = name;
        Ok(t)
    }

    fn assemble(
        mut tree: BTree,
        budget: Budget,
        node_memory: usize,
        la: LaOptions,
        delayed: bool,
    ) -> Result<Self> {
        let memory = budget.total;
        let format = tree.layout().format;
        let costs = IoCosts::of(tree.storage());
        let elem_bytes = format.key_bytes as usize + format.value_bytes as usize + 1;
        let page_size = tree.storage().page_size();
        let rest = budget.for_budget_bound(0).saturating_sub(node_memory);
        let least = Buffers::<PolicyState>::min_pool_bytes(page_size, elem_bytes, la.pool_unit);
        // The scratch's shares are of what the page buffer and the smallest
        // pool leave.
        let scratch = Scratch::of(
            rest.saturating_sub(page_size + least),
            page_size,
            elem_bytes,
            delayed,
        );
        let pool = rest.saturating_sub(scratch.bytes() + page_size);
        let bufs = Buffers::new(
            tree.store(),
            format,
            pool,
            la.pool_unit,
            la.partition_blocks,
        )
        .map_err(|e| match e {
            IndexError::BudgetTooSmall { what, .. } => IndexError::BudgetTooSmall {
                needed: node_memory
                    + scratch.bytes()
                    + page_size
                    + least,
                given: memory,
                what: format!(
                    "{what}, beside the node cache ({node_memory} B), the emptying's and lookups' scratch and a page buffer"
                ),
            },
            e => e,
        })?;
        if budget.tables == Tables::InBudget {
            // The tables grow into the budget: the node cache makes room
            // for them (the pool and scratch stay as sized).
            tree.fit_to_budget(Tables::InBudget, memory.saturating_sub(node_memory))?;
        }
        let max_bytes = la.max_buffer_bytes.unwrap_or(memory * 3 / 4);
        let max_entries = (max_bytes / bufs.elem_bytes()).max(1) as u64;
        tree.record_shapes(true);
        Ok(LaTree {
            name: NAME,
            delayed,
            delayed_lookups: Delayed::new(format.max_value()),
            tree,
            bufs,
            policy: la.policy,
            subtree_height: la.subtree_height,
            max_entries,
            costs,
            format,
            budget,
            node_memory,
            scratch,
            shapes: Vec::new(),
            loaded: Vec::with_capacity(scratch.chunk_entries),
            chunk_entries: scratch.chunk_entries,
            moving: Vec::with_capacity(scratch.page_entries),
            routes: Vec::with_capacity(scratch.chunk_entries),
            targets: Vec::with_capacity(scratch.chunk_entries),
            walk: Vec::new(),
            stack: Vec::new(),
            kids: Vec::new(),
            found: Vec::new(),
            base: Vec::new(),
            spill: Vec::new(),
            pending_shapes: Vec::new(),
            stuck: false,
            found_order: Vec::new(),
            live: Vec::new(),
            counters: Counters::default(),
            making_space: false,
            by_key: la.versions_by_key,
        })
    }

    /// Whether nodes at `level` are subtree roots.
    fn buffered_level(&self, level: u8) -> bool {
        level % self.subtree_height == self.subtree_height - 1
    }

    /// The level of the subtree roots below a subtree root at `level`;
    /// `None` for a leaf subtree.
    fn child_level(&self, level: u8) -> Option<u8> {
        let h = self.subtree_height;
        (level >= h).then(|| (level - h) / h * h + (h - 1))
    }

    /// Empties queued buffers, highest level first (invariant 3).
    fn settle(&mut self) -> Result<()> {
        while let Some(id) = self.bufs.overfull() {
            let cause = if self.bufs.entries(id) >= self.max_entries {
                Cause::Full
            } else {
                Cause::Partition
            };
            self.empty(id, cause)?;
        }
        Ok(())
    }

    /// On a raw chip, frees partitions until `need` and a reserve are free:
    /// buffers holding partitions below level `below`, other than those in
    /// `keep` (about to receive entries), lowest level first, are emptied
    /// (a leaf subtree's) or flushed down to the leaves with every buffer
    /// below them (one higher up: [`LaTree::flush_subtree`]), which takes
    /// no partition. An emptying in progress passes its own level as
    /// `below`: the buffers above it hold newer entries than those it is
    /// moving, and must not reach the leaves first.
    /// Returns whether it emptied anything (the tree may have changed).
    fn ensure_partitions(&mut self, need: u64, keep: &[NodeId], below: u8) -> Result<bool> {
        if self.making_space {
            return Ok(false);
        }
        self.making_space = true;
        let result = self.make_space(need, keep, below);
        self.making_space = false;
        result
    }

    fn make_space(&mut self, need: u64, keep: &[NodeId], below: u8) -> Result<bool> {
        let mut emptied = false;
        while let Some(free) = self.bufs.free_partitions() {
            // Any tail page in the pool may be evicted on the way.
            let need = need + self.bufs.frames_without_partition();
            if free >= need + PARTITION_RESERVE {
                break;
            }
            // The lowest buffers first: a leaf subtree's emptying takes no
            // partition; one higher up is flushed down to the leaves.
            let victim = self
                .bufs
                .all()
                .filter(|&(id, level, n)| {
                    n > 0 && level < below && self.bufs.holds_partition(id) && !keep.contains(&id)
                })
                .min_by_key(|&(id, level, n)| (level, std::cmp::Reverse(n), id));
            let Some((id, level, _)) = victim else {
                break;
            };
            if self.child_level(level).is_none() {
                self.empty(id, Cause::Space)?;
            } else {
                self.flush_subtree(id, level)?;
            }
            emptied = true;
        }
        Ok(emptied)
    }

    /// Appends an operation to the root's buffer and settles.
    /// `flush`: every buffer emptied into the tree, then the tree's flush.
    fn flush_all(&mut self) -> Result<()> {
        // What a full device left spilled goes back into buffers first.
        self.drain_spill()?;
        // Top down, so every emptying moves entries toward the leaves once.
        while let Some((id, _, _)) = self
            .bufs
            .all()
            .max_by_key(|&(id, level, _)| (level, std::cmp::Reverse(id)))
        {
            self.empty(id, Cause::Flush)?;
            self.settle()?;
        }
        // Every delayed lookup is answered: their tables' room goes back.
        self.delayed_lookups.shrink();
        self.tree.flush()?;
        self.fit_tables()
    }

    /// Refits the node cache to the buffer directory and ADAPT's counters
    /// as they stand now (with `tables=in-budget`; the node table the tree
    /// fits itself). At the end of every operation.
    fn fit_tables(&mut self) -> Result<()> {
        let (dir, state) = self.bufs.directory_bytes();
        self.tree.fit_tables_beside(dir + state)
    }

    /// After the device ran out of room, the unfinished emptyings are
    /// retried first, and nothing new is taken while they fail.
    fn buffer_op(&mut self, e: Elem) -> Result<()> {
        if self.stuck {
            self.drain_spill()?;
            self.settle()?;
            self.stuck = false;
        }
        let result = self.ensure_partitions(1, &[], u8::MAX).and_then(|_| {
            let (root, level) = self.tree.root();
            self.push_newest(root, level, e)?;
            self.settle()?;
            self.fit_lookups()?;
            self.trim_scratch();
            self.fit_tables()
        });
        if result.is_err() {
            self.stuck = true;
        }
        result
    }
}

impl Index for LaTree {
    fn name(&self) -> &'static str {
        self.name
    }

    fn format(&self) -> EntryFormat {
        self.format
    }

    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.format.check(key, value)?;
        self.buffer_op(Elem {
            key,
            value,
            op: Op::Insert,
        })
    }

    fn versions_by_key(&self) -> bool {
        self.by_key
    }

    /// With versions of keys, an insert: the key's newest version, read
    /// from nowhere (`latree::versions`).
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        if !self.by_key {
            return Err(IndexError::Config(format!(
                "a {} of pairs (versions=pair) has no blind upsert",
                self.name
            )));
        }
        self.insert(key, value)
    }

    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        if self.by_key {
            self.format.check(key, old)?;
            self.counters.lookups += 1;
            return self.update_version(key, old, new);
        }
        self.format.check(key, new)?;
        let found = self.delete(key, old)?;
        self.insert(key, new)?;
        Ok(found)
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.bulk_load_entries(entries)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.format.check(key, value)?;
        self.counters.lookups += 1;
        if self.by_key {
            return self.delete_version(key, value);
        }
        self.collect(key, key, true)?;
        self.merge_found();
        let present = self.base.binary_search(&(key, value)).is_ok();
        self.buffer_delete_if(key, value, present)
    }

    fn defers_lookups(&self) -> bool {
        self.delayed
    }

    fn get_later(&mut self, key: u64) -> Result<u64> {
        self.format.check_key(key)?;
        if !self.delayed {
            return Err(IndexError::Config(format!(
                "{} answers lookups at once (lookup=delayed batches them)",
                self.name
            )));
        }
        self.counters.lookups += 1;
        let (ticket, value, op) = self.delayed_lookups.issue(key);
        self.buffer_op(Elem { key, value, op })?;
        Ok(ticket)
    }

    fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        self.delayed_lookups.take_answers(out);
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        self.format.check_key(key)?;
        self.counters.lookups += 1;
        if self.by_key {
            self.get_version(key, out)?;
        } else {
            self.collect(key, key, true)?;
            self.merge_found();
            out.extend(self.base.iter().map(|&(_, v)| v));
        }
        self.trim_scratch();
        self.fit_tables()
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        out.clear();
        if lo > hi {
            return Ok(());
        }
        let hi = hi.min(self.format.max_key());
        if lo > hi {
            return Ok(());
        }
        self.collect(lo, hi, false)?;
        self.merge_found();
        out.extend_from_slice(&self.base);
        self.trim_scratch();
        self.fit_tables()
    }

    fn flush(&mut self) -> Result<()> {
        let result = self.flush_all();
        if result.is_err() {
            self.stuck = true;
        }
        result
    }

    fn data_bound_bytes(&self) -> u64 {
        let (dir, state) = self.bufs.directory_bytes();
        self.tree.data_bound_bytes() + (dir + state) as u64
    }

    fn memory_bytes(&self) -> usize {
        let (dir, state) = self.bufs.directory_bytes();
        self.tree.memory_bytes()
            + self.bufs.pool_memory()
            + self.spill.capacity() * size_of::<(u8, Elem)>()
            + dir
            + state
            + self.delayed_lookups.memory_bytes()
            + self.scratch_bytes()
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.tree.notes();
        let (dir, state) = self.bufs.directory_bytes();
        notes.push(format!(
            "Buffered-B+ tree: fanout {}, subtree height {}, adapt={}, U = {} entries; node cache {} B and buffer pool {} B of the {} B budget; the memory figure counts the buffer directory ({dir} B now), as it counts the node table; both are named index stats (buffer_directory_bytes, node_table_bytes) for an experiment that keeps them outside the budget as §6 keeps the node table",
            self.tree.layout().fanout,
            self.subtree_height,
            self.policy.name(),
            self.max_entries,
            self.node_memory,
            self.bufs.pool_memory(),
            self.budget.total
        ));
        if self.policy == Policy::Adapt {
            notes.push(format!(
                "ADAPT's counters: {} at most in one buffer ({state} B in all now), counted in the memory figure and named as adapt_counter_bytes",
                self.counters.adapt_counters_peak
            ));
        }
        notes
    }

    fn stats(&self) -> IndexStats {
        let mut s = self.tree.stats();
        let c = &self.counters;
        let b = &self.bufs.counters;
        let (dir, state) = self.bufs.directory_bytes();
        for (name, v) in [
            ("subtree_height", self.subtree_height as f64),
            ("max_buffer_entries", self.max_entries as f64),
            ("buffers", self.bufs.all().count() as f64),
            ("buffered_entries", self.bufs.total_entries() as f64),
            ("spilled_entries", self.spill.len() as f64),
            ("empties_full", c.empties_full as f64),
            ("empties_partition", c.empties_partition as f64),
            ("empties_adapt", c.empties_adapt as f64),
            ("empties_flush", c.empties_flush as f64),
            ("empties_space", c.empties_space as f64),
            ("empties_lookups", c.empties_lookups as f64),
            ("entries_emptied", c.entries_emptied as f64),
            ("buffer_splits", c.buffer_splits as f64),
            ("lookups", c.lookups as f64),
            ("buffers_scanned", c.buffers_scanned as f64),
            ("buffer_entries_scanned", c.entries_scanned as f64),
            (
                "mean_buffer_entries_met",
                if c.buffers_met == 0 {
                    0.0
                } else {
                    c.entries_met as f64 / c.buffers_met as f64
                },
            ),
            ("buffer_pages_written", b.pages_written as f64),
            ("buffer_pages_read", b.pages_read as f64),
            (
                "buffer_entries_per_page",
                b.entries_written as f64 / b.pages_written.max(1) as f64,
            ),
            ("buffer_pool_evictions", b.pool_evictions as f64),
            ("buffer_partitions_taken", b.partitions_taken as f64),
            ("buffer_partition_erases", b.partition_erases as f64),
            ("buffer_directory_bytes", dir as f64),
            ("adapt_counter_bytes", state as f64),
            ("adapt_counters_peak", c.adapt_counters_peak as f64),
            ("node_cache_budget", self.node_memory as f64),
            ("pending_lookups", self.delayed_lookups.pending() as f64),
            ("pending_lookup_parts", self.delayed_lookups.parts() as f64),
            (
                "delayed_lookup_bytes",
                self.delayed_lookups.memory_bytes() as f64,
            ),
            ("scratch_bytes", self.scratch_bytes() as f64),
            ("buffer_pool_bytes", self.bufs.pool_memory() as f64),
            ("buffer_pool_used_bytes", self.bufs.pool_used() as f64),
            (
                "spill_bytes",
                (self.spill.capacity() * size_of::<(u8, Elem)>()) as f64,
            ),
        ] {
            s.set(name, v);
        }
        // Where buffer pages go: the leaf subtrees' buffers and those above
        // them, the root's included (lat-fig8's breakdown).
        let mut classes = [counters::LevelCounts::default(); 2];
        for (level, at) in b.by_level.iter().enumerate() {
            let class = usize::from(self.child_level(level as u8).is_none());
            classes[class].appended += at.appended;
            classes[class].written += at.written;
            classes[class].pages += at.pages;
        }
        for (class, at) in ["upper", "leaf_subtrees"].iter().zip(classes) {
            s.set(
                &format!("buffer_entries_appended_{class}"),
                at.appended as f64,
            );
            s.set(
                &format!("buffer_entries_written_{class}"),
                at.written as f64,
            );
            s.set(&format!("buffer_pages_written_{class}"), at.pages as f64);
        }
        s.set("memory_budget", self.budget.total as f64);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        self.tree.flash_bytes_used() + self.bufs.flash_bytes()
    }

    fn storage(&self) -> &Storage {
        self.tree.storage()
    }

    fn into_storage(self: Box<Self>) -> Storage {
        Box::new(self.tree).into_storage()
    }
}
