//! `bftl`: BFTL, the B-tree layer over an FTL of Wu, Chang and Kuo
//! (Wu et al. 2003 §3).
//!
//! Inserts and deletes first become **dirty records** in the **reservation
//! buffer** (deletes as invalidation records). When it holds
//! `reservation_buffer` records (default 60, §5), every record is applied to
//! the logical B-tree (the same [`BTree`] code as `btree`, with no node
//! cache), whose node changes become index units in [`BftlStore`]; the batch
//! is then committed by the commit policy and the node translation table,
//! which compacts a node whose sector list grows past `compaction_c`
//! (default 3). Searches look in the reservation buffer first, then in the
//! tree (§3.4, Fig. 9).
//!
//! Parameters: `fanout` or `node_bytes` (the logical B-tree's node; by
//! default §4's: fanout Λ + 1, Λ the index units a sector holds, so 21
//! with 4 + 4-byte entries in 512-byte sectors), `leaf_entries` (default
//! `fanout − 1`, as §4's nodes hold), `reservation_buffer`, `compaction_c`, `cached_levels`
//! (default 2: the top two levels of the tree stay in RAM, §5.1's "small
//! amount of B-Tree nodes in the top levels"), `cache=none|wt-lru` (default
//! `none`; `wt-lru` gives the memory the reservation buffer leaves to an
//! LRU node cache of clean copies, as Agrawal et al. 2009 §6.1 runs
//! BFTL: "whenever memory is not being used by the reserve buffer or delta
//! pool, it is used by the node cache"; `cache_nodes=N` caps it at N
//! nodes), `key_bytes`, `value_bytes`, `tables=in-budget|outside`
//! (below), `deletes=checked|blind` (default
//! `checked`: a delete first looks the pair up, in the buffer and then in
//! the tree, so that it answers exactly; `blind` is §3.1's "record
//! deletions are handled by adding invalidation records to the reservation
//! buffer": no lookup, the answer is always `true`, and an invalidation
//! record for an absent pair deletes nothing when it is applied; only for
//! workloads that delete present pairs, as Wu et al. 2003 §5.3's),
//! `commit_order=arrival|key` (default `arrival`: a commit applies the
//! records in arrival order; `key` applies them sorted by key, stably, so
//! each leaf's records come together and its view is used while it is
//! held: §3.3's "better analysis of dirty records ... to reduce updates of
//! leaf nodes"; records of one key keep their order, so the content is the
//! same).
//!
//! Memory (issue #43's two kinds, `node::budget`; all counted in
//! `memory_bytes` and so in the runner's peak):
//! * data-bound, growing with the data: the **node translation table**
//!   (§3.4, Fig. 8) as held (`bftl::store::ntt`): close to the paper's
//!   layout of a 4-byte entry per node and a 4-byte LBA per listed sector
//!   (at most 4·(C + 1) bytes a node between batches, what Roh et al. 2009
//!   Fig. 7 measures), plus a length byte per node, the LBA arena's holes
//!   and spare room (each within an eighth), a 2-byte reference count per
//!   sector used and the free sectors' 4-byte LBAs, reported as
//!   `node_translation_table_bytes`; FlashDB's **mode table**, 4 bytes a
//!   node (`bftl::modes`), reported as `mode_table_bytes`;
//! * budget-bound: the **reservation buffer** (capacity × (entry + 1
//!   flag byte), fixed: the minimum working set with one sector's worth
//!   of index units), the batch's **pool of index units** (twice a unit's
//!   40 bytes in RAM: the pool and its packed copy), the cached top levels
//!   (whole nodes), the free id list (4 bytes an id), the **commit views**
//!   (`bftl::views`) and a `wt-lru` node cache.
//!
//! With `tables=in-budget` (the default) the tables are paid from the
//! budget first, and the budget-bound structures share what they leave,
//! shrinking as they grow: the pool holds as many units as that leaves (a
//! batch past it is committed in parts, `early_commits`), the views what
//! the pool, the cached levels and the node cache leave (a batch that
//! touches more nodes drops the least recently used views and re-reads
//! those nodes), and the node cache what the rest leaves, refitted after
//! every operation (`BTree::fit_to_budget`); when even an empty cache
//! leaves too little, the cached top levels go (`cached_levels_shed`).
//! Where the tables alone pass the budget the notes say so, with the
//! smallest budget this data needs, and the run goes on with the minimum
//! working set. `tables=outside` keeps the tables beside the budget, the
//! budget-bound structures then sharing all of it. The views are charged
//! at the most a batch has held (bounded by what the budget leaves), since
//! the runner samples between operations and a commit happens inside one.
//! Stats: `commit_view_peak_bytes`, `commit_view_budget_bytes`,
//! `commit_views_dropped`, `early_commits`, `cached_levels_shed`,
//! `node_translation_table_bytes`, `mode_table_bytes`.
//!
//! **FlashDB** (`flashdb`, Roh et al. 2009 §2.3) is this index with the node
//! store's self-tuning log/disk node modes (`bftl::modes`); its default node is
//! one page (fanout 40 and 60 entries a leaf with 4 + 4-byte entries in
//! 512-byte sectors), every other parameter as BFTL's, and one of its own:
//! `log_insert_reads_leaf=true|false` (default `true`: an insert reads the
//! leaf it goes into, as BFTL's does; `false`: an insert into a log-mode
//! leaf with room appends its index unit without reading the leaf, see
//! `bftl::modes`).
//!
//! Invariants:
//! 1. The index's content is the tree's entries with the buffer's records
//!    applied in arrival order.
//! 2. With `deletes=checked` an invalidation record is buffered only for a
//!    pair that is present, so `delete` answers exactly; with `blind` it
//!    answers `true`, and applying an absent pair's record changes nothing.

mod modes;
pub mod store;
mod unit;
mod views;

pub use store::BftlStore;

use crate::device::Storage;
use crate::index::btree::{BTree, BTreeOptions};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};
use crate::node::{Budget, CachePolicy, NodeLayout};

/// Name in the registry.
pub const NAME: &str = "bftl";
/// FlashDB (Roh et al. 2009 §2.3): BFTL whose nodes switch between log and
/// disk mode (`bftl::modes`).
pub const FLASHDB: &str = "flashdb";

/// BFTL.
pub struct Bftl {
    /// [`NAME`] or [`FLASHDB`].
    name: &'static str,
    tree: BTree,
    /// Dirty records: (key, value, insertion?), in arrival order.
    reservation_buffer: Vec<(u64, u64, bool)>,
    capacity: usize,
    flushes: u64,
    scratch: Vec<(u64, u64)>,
    /// `deletes=blind`: a delete buffers its invalidation record unlooked.
    blind_deletes: bool,
    /// `commit_order=key`: a commit applies its records sorted by key.
    key_order: bool,
    /// FlashDB's `log_insert_reads_leaf=false`: an insert into a log-mode
    /// leaf with room appends its unit unread (`bftl::modes`).
    append_log_inserts: bool,
}

struct BftlOptions {
    layout_of: BTreeOptions,
    capacity: usize,
    compaction_c: usize,
    cached_levels: u8,
    cache: CachePolicy,
    /// `cache_nodes=N`: the `wt-lru` cache's size in nodes (default: what
    /// the budget leaves).
    cache_nodes: Option<usize>,
    blind_deletes: bool,
    key_order: bool,
    /// FlashDB only: `log_insert_reads_leaf` (default `true`).
    log_insert_reads_leaf: bool,
    /// `memory` and `tables=in-budget|outside`.
    budget: Budget,
}

fn options(name: &str, params: &mut Params, memory: usize) -> Result<BftlOptions> {
    let layout_of = BTreeOptions::from_params(params)?;
    let cache = params
        .get("cache", "none".to_string())?
        .parse::<CachePolicy>()
        .map_err(IndexError::Config)?;
    if !matches!(cache, CachePolicy::None | CachePolicy::WriteThroughLru) {
        return Err(IndexError::Config(
            "{name} turns every node change into index units, so its node cache must be              `none` (Wu et al. 2003) or `wt-lru` (clean copies, Agrawal et al. 2009 §6.1)"
                .into(),
        ));
    }
    let capacity: usize = params.get("reservation_buffer", 60)?;
    let compaction_c: usize = params.get("compaction_c", 3)?;
    let cached_levels: u8 = params.get("cached_levels", 2)?;
    let cache_nodes: Option<usize> = params.get_opt("cache_nodes")?;
    let blind_deletes = params.switch("deletes", "checked", "blind")?;
    let key_order = params.switch("commit_order", "arrival", "key")?;
    let log_insert_reads_leaf = if name == FLASHDB {
        params.get("log_insert_reads_leaf", true)?
    } else {
        true
    };
    let budget = params.budget(memory)?;
    params.finish(name)?;
    if capacity == 0 {
        return Err(IndexError::Config(
            "reservation_buffer must hold at least one record".into(),
        ));
    }
    Ok(BftlOptions {
        layout_of,
        capacity,
        compaction_c,
        cached_levels,
        cache,
        cache_nodes,
        blind_deletes,
        key_order,
        log_insert_reads_leaf,
        budget,
    })
}

impl Bftl {
    /// The logical B-tree's node layout. A new BFTL follows §4, where "a
    /// B-Tree node fits in a sector" and a node holds `fanout − 1` entries,
    /// the Λ units a sector holds: with no size given the fanout is Λ + 1,
    /// and leaves hold `fanout − 1` entries unless `leaf_entries` says
    /// otherwise (so a compacted node takes one sector, and C = 3 allows
    /// two touches before the next compaction). An image on open keeps the
    /// layout its superblock records.
    ///
    /// A new FlashDB's node is by default the largest that fits a sector
    /// with its node-page header: a disk-mode node "operates as does an
    /// original B-Tree node" of one page (Roh et al. 2009 §2.3), with no leaf
    /// cap.
    fn layout(
        name: &str,
        o: &BftlOptions,
        storage: &Storage,
        creating: bool,
    ) -> Result<NodeLayout> {
        let page_size = storage.page_size();
        let mut opts = o.layout_of;
        if creating && name == FLASHDB {
            if !opts.sized() {
                let bytes = page_size.saturating_sub(store::NODE_PAGE_HEADER);
                return opts.capped(NodeLayout::with_node_bytes(opts.format, bytes)?);
            }
        } else if creating {
            if !opts.sized() {
                opts.fanout = Some(store::lambda(opts.format, page_size) + 1);
            }
            if opts.leaf_entries.is_none() {
                let base = opts.layout(page_size)?;
                let entries = (base.fanout - 1).min(base.leaf_capacity);
                // The superblock records a cap of at most 255 entries.
                if entries <= u8::MAX as usize {
                    opts.leaf_entries = Some(entries);
                }
            }
        }
        opts.layout(page_size)
    }

    /// Bytes of a reservation buffer of `capacity` records of `format`.
    fn reservation_bytes(capacity: usize, format: EntryFormat) -> usize {
        capacity * (format.entry_bytes() + 1)
    }

    /// Checks the budget holds the reservation buffer; returns what is
    /// left for the tree (its node cache, when there is one).
    fn check_budget(o: &BftlOptions, memory: usize) -> Result<usize> {
        let needed = Self::reservation_bytes(o.capacity, o.layout_of.format);
        if memory < needed {
            return Err(IndexError::BudgetTooSmall {
                needed,
                given: memory,
                what: format!("a reservation buffer of {} records", o.capacity),
            });
        }
        Ok(memory - needed)
    }

    /// A new, empty BFTL on `storage`.
    pub fn create(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::create_named(NAME, storage, memory, params)
    }

    /// A new, empty BFTL ([`NAME`]) or FlashDB ([`FLASHDB`]) on `storage`.
    pub fn create_named(
        name: &'static str,
        storage: Storage,
        memory: usize,
        mut params: Params,
    ) -> Result<Self> {
        let (o, store, tree_memory) = Self::store(name, storage, memory, &mut params, true)?;
        // By default the tree keeps no node cache: nodes are read through
        // the node translation table, as in the paper.
        let tree = BTree::create_on(name, Box::new(store), tree_memory, o.cache)?;
        Self::assemble(name, tree, &o)
    }

    /// Reopens the BFTL `flush` left on `storage` (the node translation
    /// table is rebuilt by scanning the sectors).
    pub fn open(storage: Storage, memory: usize, params: Params) -> Result<Self> {
        Self::open_named(NAME, storage, memory, params, false)
    }

    /// Reopens a BFTL or FlashDB; FlashDB's nodes start in log mode.
    /// `read_only`: for queries only, so that no read writes (FlashDB's
    /// nodes then stay in log mode, `bftl::modes`).
    pub fn open_named(
        name: &'static str,
        mut storage: Storage,
        memory: usize,
        mut params: Params,
        read_only: bool,
    ) -> Result<Self> {
        // A device with no superblock holds no index: say so before the
        // layout checks, which would otherwise judge default parameters.
        if !crate::index::kinds::reopen::tree_params(&mut storage, &mut params, true)? {
            return Err(IndexError::NoIndex(format!(
                "the device holds no {name} superblock"
            )));
        }
        let (o, mut store, tree_memory) = Self::store(name, storage, memory, &mut params, false)?;
        if read_only {
            store.set_read_only();
        }
        let tree = BTree::open_on(name, Box::new(store), tree_memory, o.cache)?;
        Self::assemble(name, tree, &o)
    }

    /// The options, the node store and the memory left for the tree.
    fn store(
        name: &str,
        storage: Storage,
        memory: usize,
        params: &mut Params,
        creating: bool,
    ) -> Result<(BftlOptions, BftlStore, usize)> {
        let o = options(name, params, memory)?;
        let tree_memory = Self::check_budget(&o, memory)?;
        let layout = Self::layout(name, &o, &storage, creating)?;
        // The store's tables and batch views share what the reservation
        // buffer leaves, less the tree's own, with the node cache: a
        // `wt-lru` cache takes all the tables leave unless `cache_nodes`
        // caps it.
        let cache_bytes = match (o.cache, o.cache_nodes) {
            (CachePolicy::None, _) => 0,
            (_, Some(n)) => n.saturating_mul(layout.node_bytes),
            (_, None) => tree_memory,
        };
        let shared = Budget::new(
            tree_memory.saturating_sub(BTree::held_beside_cache(layout)),
            o.budget.tables,
        );
        let mut store = BftlStore::new(
            storage,
            layout,
            o.compaction_c,
            o.cached_levels,
            name == FLASHDB,
            shared,
            cache_bytes,
        )?;
        if !o.log_insert_reads_leaf {
            // Only FlashDB reads the parameter, and its store has modes.
            store.append_log_inserts();
        }
        Ok((o, store, tree_memory))
    }

    /// The index around `tree`, its node cache capped by `cache_nodes`
    /// and fitted to what the data-bound tables leave of the budget.
    fn assemble(name: &'static str, mut tree: BTree, o: &BftlOptions) -> Result<Self> {
        tree.limit_cache(o.cache_nodes)?;
        let beside = Self::reservation_bytes(o.capacity, o.layout_of.format);
        tree.fit_to_budget(o.budget.tables, beside)?;
        Ok(Bftl {
            name,
            tree,
            reservation_buffer: Vec::with_capacity(o.capacity),
            capacity: o.capacity,
            flushes: 0,
            scratch: Vec::new(),
            blind_deletes: o.blind_deletes,
            key_order: o.key_order,
            append_log_inserts: !o.log_insert_reads_leaf,
        })
    }

    /// Applies every dirty record to the tree and commits the index units.
    fn flush_reservation_buffer(&mut self) -> Result<()> {
        if self.reservation_buffer.is_empty() {
            return Ok(());
        }
        let mut records = std::mem::take(&mut self.reservation_buffer);
        if self.key_order {
            // Stable: a key's records keep their arrival order.
            records.sort_by_key(|r| r.0);
        }
        let mut result = Ok(());
        self.tree.begin_batch();
        for &(k, v, insert) in &records {
            result = if insert && self.append_log_inserts {
                match self.tree.append_insert(k, v) {
                    Ok(true) => Ok(()),
                    Ok(false) => self.tree.insert(k, v),
                    Err(e) => Err(e),
                }
            } else if insert {
                self.tree.insert(k, v)
            } else {
                self.tree.delete(k, v).map(|_| ())
            };
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            records.clear();
            result = self.tree.end_batch();
            self.flushes += 1;
        }
        // On error the records stay buffered: nothing is lost.
        self.reservation_buffer = records;
        result
    }

    fn record(&mut self, key: u64, value: u64, insert: bool) -> Result<()> {
        // Full only after a commit failed (a full device): retried first,
        // and nothing new is taken while it fails.
        if self.reservation_buffer.len() >= self.capacity {
            self.flush_reservation_buffer()?;
        }
        self.reservation_buffer.push((key, value, insert));
        if self.reservation_buffer.len() >= self.capacity {
            self.flush_reservation_buffer()?;
        }
        Ok(())
    }

    /// Whether the pair is present: the buffer's last record for it, else
    /// the tree.
    fn present(&mut self, key: u64, value: u64) -> Result<bool> {
        if let Some(&(_, _, insert)) = self
            .reservation_buffer
            .iter()
            .rev()
            .find(|r| r.0 == key && r.1 == value)
        {
            return Ok(insert);
        }
        let mut values = Vec::new();
        self.tree.get(key, &mut values)?;
        Ok(values.binary_search(&value).is_ok())
    }

    /// Applies the buffered records with keys in `lo..=hi` to `entries`
    /// (sorted), in arrival order.
    fn overlay(&self, lo: u64, hi: u64, entries: &mut Vec<(u64, u64)>) {
        for &(k, v, insert) in &self.reservation_buffer {
            if k < lo || k > hi {
                continue;
            }
            match (entries.binary_search(&(k, v)), insert) {
                (Err(pos), true) => entries.insert(pos, (k, v)),
                (Ok(pos), false) => {
                    entries.remove(pos);
                }
                _ => {}
            }
        }
    }
}

impl Index for Bftl {
    fn name(&self) -> &'static str {
        self.name
    }

    fn format(&self) -> EntryFormat {
        self.tree.format()
    }

    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.format().check(key, value)?;
        self.record(key, value, true)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.format().check(key, value)?;
        if !self.blind_deletes && !self.present(key, value)? {
            return Ok(false);
        }
        self.record(key, value, false)?;
        Ok(true)
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.format().check_key(key)?;
        let mut entries = std::mem::take(&mut self.scratch);
        let r = self.tree.range(key, key, &mut entries);
        if r.is_ok() {
            self.overlay(key, key, &mut entries);
            out.clear();
            out.extend(entries.iter().map(|e| e.1));
        }
        self.scratch = entries;
        r
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        self.tree.range(lo, hi, out)?;
        self.overlay(lo, hi, out);
        Ok(())
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        // The tree refuses a load unless it is empty; so must the buffer.
        crate::index::bulk::require_empty(self.reservation_buffer.is_empty(), self.name)?;
        self.tree.bulk_load(entries)
    }

    /// C inserts a leaf: a bulk-loaded node lies in one or two adjacent
    /// sectors, where BFTL's commits spread a node's units over up to C
    /// sectors scattered over the device (§3.3); about C random inserts
    /// a leaf bring the node translation table to that state.
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        let c = self.tree.stats().get("compaction_c").unwrap_or(0.0) as u64;
        (c * self.tree.bulk_leaves(entries)).min(entries)
    }

    fn flush(&mut self) -> Result<()> {
        self.flush_reservation_buffer()?;
        self.tree.flush()
    }

    fn memory_bytes(&self) -> usize {
        Self::reservation_bytes(self.capacity, self.format()) + self.tree.memory_bytes()
    }

    fn data_bound_bytes(&self) -> u64 {
        self.tree.data_bound_bytes()
    }

    fn stats(&self) -> IndexStats {
        let mut s = self.tree.stats();
        s.set("reservation_buffer", self.capacity as f64);
        s.set(
            "reservation_buffer_records",
            self.reservation_buffer.len() as f64,
        );
        s.set("reservation_buffer_flushes", self.flushes as f64);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        self.tree.flash_bytes_used()
    }

    fn notes(&self) -> Vec<String> {
        self.tree.notes()
    }

    fn storage(&self) -> &Storage {
        self.tree.storage()
    }

    fn into_storage(self: Box<Self>) -> Storage {
        Box::new(self.tree).into_storage()
    }
}
