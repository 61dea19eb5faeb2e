//! `mbtree`: the MB-Tree of Kim, Whang and Song (Roh et al. 2009 §4).
//!
//! * **Batch Processing Buffer** (§4.2): inserts and deletes become task
//!   entries (TEs: an entry and a flag I/D; an update is D then I) kept
//!   sorted by key, then creation time. On input an identical TE is not
//!   stored, and a D whose entry matches a stored TE removes that TE and is
//!   not stored (§4.2.2). Searches look in the BPB first (Algorithm 5).
//! * **Unique Path Search** (§4.2.4, Algorithm 1): when the BPB is full, one
//!   path is walked from the root, at each level into the child whose key
//!   range holds the most TEs; the TEs of the leaf reached are the FTES,
//!   applied deletes first, then inserts, and removed from the BPB. Only the
//!   nodes of that one path are held (`ups.rs`).
//! * **Leaf nodes** ([`leaf`]): a Leaf Node Header page ([`lnh`]) followed
//!   by L leaf pages; inserts go into free slots by best fit, rewritten
//!   pages are sorted locally, the header is rebuilt (Algorithm 2) and a
//!   search reads the header and then only the pages of the key's KIV
//!   interval (Algorithm 3; `search.rs`).
//! * **Splits and leaf size** (§4.5): a full leaf node is split evenly (into
//!   more than two when one FTES overfills even two); at a split the leaf
//!   size grows by a page when space usage was above 70% and the KIV
//!   interval was 1, and shrinks by a page when the interval was above 1.
//! * **Modified LRU buffer** (§4.7): the shared [`NodeCache`] with the `mlru`
//!   policy holds internal nodes, in `lru_share` of the memory (default
//!   40%, §6); the rest is the BPB.
//!
//! * **Versions of keys** (`versions=key`, a map store's MB-Tree; off in
//!   every paper experiment): the BPB holds one TE per key, the key's
//!   newest version, so an upsert reads nothing; a flush's TE replaces
//!   the key's entries in its leaf; a lookup stops at the BPB when it
//!   holds the key (`versions.rs`).
//!
//! Variants (§5.3, §6.4): `lnh=false` (fixed `leaf_pages`, entries sorted
//! across the pages, binary search over pages), `kiv=false` (uncompacted
//! OIDs, pseudo-binary search), `fei=true` (Free Entry Indicator: deletes
//! flip header bits).
//!
//! Parameters: `lru_share`, `lnh`, `kiv`, `fei`, `leaf_pages` (the fixed
//! size without the LNH, the starting size with it; default 4),
//! `max_leaf_pages` (default 16), `versions` (`pair`, the default, or
//! `key`), `key_bytes`, `value_bytes`. Reopening
//! (`open.rs`) takes every one the superblock records from it when left out
//! and refuses one that contradicts it.
//!
//! On-flash format (logical pages): page 0 is the superblock
//! ([`TreeMeta`], then the variant flags — bit 0 `lnh`, 1 `kiv`, 2 `fei`,
//! 3 versions of keys —, the leaf sizes and the count of
//! leaf nodes of each size). Node `n` owns pages `1 + n·R .. 1 + (n+1)·R`,
//! `R = 1 + max_leaf_pages`: an internal node is a one-page node image
//! ([`crate::node::codec`]) in its first page; a leaf node is its header in
//! the first page and its leaf pages after it, contiguous as §4.1 draws
//! them (pages a node does not use are never written, or trimmed when it
//! shrinks).
//!
//! Memory: `memory_bytes` = the cached internal nodes at a page each + the
//! BPB's capacity in TEs (`Bpb::te_bytes`: the entry packed in one word
//! where it fits, 9 bytes a TE for 4 + 4-byte entries, else 17) + 64 bytes
//! of metadata; the nodes of the one path a flush or search holds are
//! transient. The BPB is the paper's fixed buffer, a sorted array
//! allocated whole at creation (`bpb.rs`), so its charge is what it holds
//! from the first operation on.
//!
//! Deviations (also in `docs/DEVIATIONS.md`): a KIV is the largest key of
//! its interval (as §4.4.1 says; Algorithm 2's step 7 names the first); a
//! leaf node emptied by deletes stays in the tree (the paper describes no
//! merge); `delete` searches the tree when the BPB cannot tell whether the
//! pair is there, since the `Index` trait answers exactly.
//!
//! Invariants:
//! 1. The index's content is the tree's entries with the BPB's TEs applied
//!    in (entry, creation) order (with versions of keys: each TE replacing
//!    its key's entries; the BPB and every leaf hold at most one of a key).
//! 2. Internal nodes are B+-tree nodes over (key, value) separators; every
//!    leaf node's entries lie in its parent's range for it.
//! 3. The BPB holds at most `bpb_capacity` TEs after every operation.
//!
//! Walks over pointers read from flash are bounded ([`crate::node::walk`]):
//! descents check each internal node's level against the height, and a
//! leaf chain longer than the node ids ever allocated is `Corrupt`.

mod bpb;
pub mod leaf;
pub mod lnh;
mod open;
mod search;
mod ups;
mod versions;

use crate::device::{BlockDevice, DeviceError, Storage};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};
use crate::node::page::FRAME_HEADER;
use crate::node::store::{IdAllocator, META_BYTES};
use crate::node::walk::{expect_level, ChainBound};
use crate::node::{CachePolicy, Evicted, Node, NodeCache, NodeId, NodeLayout, TreeMeta, NO_NODE};

use bpb::Bpb;
use leaf::{decode_page, encode_page, slots_per_page, Leaf};
use lnh::Lnh;

/// Name in the registry.
pub const NAME: &str = "mbtree";
const META_MEMORY: usize = 64;

/// The variant and sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MbOptions {
    pub format: EntryFormat,
    pub lru_share: f64,
    pub lnh: bool,
    pub kiv: bool,
    pub fei: bool,
    pub leaf_pages: u8,
    pub max_leaf_pages: u8,
    /// `versions=key` (module doc, "Versions of keys").
    pub versions_by_key: bool,
}

impl MbOptions {
    pub fn from_params(params: &mut Params) -> Result<Self> {
        let format = params.entry_format()?;
        let o = MbOptions {
            format,
            lru_share: params.get("lru_share", 0.4f64)?,
            lnh: params.get("lnh", true)?,
            kiv: params.get("kiv", true)?,
            fei: params.get("fei", false)?,
            leaf_pages: params.get("leaf_pages", 4u8)?,
            max_leaf_pages: params.get("max_leaf_pages", 16u8)?,
            versions_by_key: params.versions_by_key()?,
        };
        // Every structure the MB-Tree keeps in RAM (the LRU buffer, the
        // batch processing buffer) is budget-bound: `tables` is accepted
        // (`node::budget`) and changes nothing.
        params.budget(0)?;
        params.finish(NAME)?;
        if !(0.0..1.0).contains(&o.lru_share) {
            return Err(IndexError::Config(format!(
                "lru_share must be in [0, 1) (the rest is the BPB), got {}",
                o.lru_share
            )));
        }
        if o.max_leaf_pages == 0 || o.max_leaf_pages > 64 {
            return Err(IndexError::Config("max_leaf_pages must be 1..=64".into()));
        }
        if o.leaf_pages == 0 || o.leaf_pages > o.max_leaf_pages {
            return Err(IndexError::Config(format!(
                "leaf_pages must be 1..={} (max_leaf_pages)",
                o.max_leaf_pages
            )));
        }
        if !o.lnh && (o.fei || !o.kiv) {
            return Err(IndexError::Config(
                "kiv=false and fei=true change the leaf node header; they need lnh=true".into(),
            ));
        }
        Ok(o)
    }

    /// The superblock's flag byte: bits 0-2 `lnh`, `kiv`, `fei`; bit 3
    /// versions of keys (0 in every file written before it existed: pairs).
    fn flags(&self) -> u8 {
        u8::from(self.lnh)
            | u8::from(self.kiv) << 1
            | u8::from(self.fei) << 2
            | u8::from(self.versions_by_key) << 3
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    flushes: u64,
    ftes_total: u64,
    leaf_splits: u64,
    internal_splits: u64,
    grows: u64,
    shrinks: u64,
}

/// The MB-Tree.
pub struct MbTree {
    storage: Storage,
    opts: MbOptions,
    page_size: usize,
    slots: usize,
    layout: NodeLayout,
    region: u64,
    capacity_pages: u64,
    meta: TreeMeta,
    ids: IdAllocator,
    cache: NodeCache,
    evicted: Vec<Evicted>,
    /// Task entries (`bpb.rs`).
    bpb: Bpb,
    bpb_capacity: usize,
    /// Leaf nodes of each size (index = leaf pages).
    leaf_sizes: Vec<u64>,
    page_buf: Vec<u8>,
    /// Reused by searches: a decoded header, a page's entries, page ids,
    /// a search's results.
    header_buf: Lnh,
    entries_buf: Vec<(u64, u64)>,
    pages_buf: Vec<u8>,
    get_buf: Vec<(u64, u64)>,
    budget: usize,
    counters: Counters,
}

/// A node of the path a flush walks: (id, node, was cached, dirty, child
/// slot taken).
type PathNode = (NodeId, Node, bool, bool, usize);

impl MbTree {
    fn check_storage(storage: &Storage) -> Result<(usize, u64)> {
        match storage {
            Storage::Pages(d) => Ok((d.page_size(), d.capacity_pages())),
            Storage::Raw(_) => Err(IndexError::Config(
                "mbtree writes leaf nodes in place and needs an FTL profile or file:PATH, not raw:"
                    .into(),
            )),
        }
    }

    fn assemble(storage: Storage, memory: usize, opts: MbOptions) -> Result<Self> {
        let (page_size, capacity_pages) = Self::check_storage(&storage)?;
        let meta = TreeMeta {
            index: NAME.to_string(),
            format: opts.format,
            node_bytes: page_size as u32,
            root: 0,
            height: 1,
            leaf_entries: 0,
            next_id: 0,
            entries: 0,
            generation: 0,
            flags: 0,
        };
        let layout = NodeLayout::with_node_bytes(opts.format, page_size)?;
        let slots = slots_per_page(page_size, opts.format);
        if slots < 2 {
            return Err(IndexError::Config(format!(
                "a {page_size}-byte page holds fewer than two entries"
            )));
        }
        let lru = (memory as f64 * opts.lru_share) as usize;
        let te = Bpb::te_bytes(opts.format);
        let bpb_capacity = memory.saturating_sub(lru + META_MEMORY) / te;
        if bpb_capacity == 0 {
            return Err(IndexError::BudgetTooSmall {
                needed: lru + META_MEMORY + te,
                given: memory,
                what: "one task entry in the BPB beside the LRU buffer's share".into(),
            });
        }
        Ok(MbTree {
            storage,
            opts,
            page_size,
            slots,
            layout,
            region: 1 + opts.max_leaf_pages as u64,
            capacity_pages,
            meta,
            ids: IdAllocator::default(),
            cache: NodeCache::new(CachePolicy::ModifiedLru, lru / page_size),
            evicted: Vec::new(),
            bpb: Bpb::with_capacity(bpb_capacity, opts.format),
            bpb_capacity,
            leaf_sizes: vec![0; opts.max_leaf_pages as usize + 1],
            page_buf: vec![0u8; page_size],
            header_buf: Lnh::default(),
            entries_buf: Vec::new(),
            pages_buf: Vec::new(),
            get_buf: Vec::new(),
            budget: memory,
            counters: Counters::default(),
        })
    }

    /// A new, empty MB-Tree on `storage`.
    pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let opts = MbOptions::from_params(&mut params)?;
        let mut t = Self::assemble(storage, memory, opts)?;
        let root = t.allocate()?;
        t.meta.root = root;
        let size = t.opts.leaf_pages as usize;
        let leaf = Leaf::empty(size, t.opts.fei);
        t.write_leaf(root, &leaf)?;
        t.leaf_sizes[size] += 1;
        t.store_meta()?;
        Ok(t)
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `assemble` refuses raw storage.
            Storage::Raw(_) => unreachable!("MbTree is built only on Storage::Pages"),
        }
    }

    fn base(&self, id: NodeId) -> u64 {
        1 + id as u64 * self.region
    }

    fn allocate(&mut self) -> Result<NodeId> {
        let (region, capacity) = (self.region, self.capacity_pages);
        let id = self.ids.allocate(|id| {
            let end = 1 + (id as u64 + 1) * region;
            if end > capacity {
                return Err(crate::node::NodeError::Device(DeviceError::Full {
                    detail: format!(
                        "node {id} would need logical pages up to {end}; the device has {capacity}"
                    ),
                }));
            }
            Ok(())
        })?;
        self.meta.next_id = self.ids.next_id;
        Ok(id)
    }

    fn can_allocate(&self, n: usize) -> bool {
        let fresh = self
            .capacity_pages
            .saturating_sub(self.base(self.ids.next_id))
            / self.region;
        self.ids.can_allocate(n, fresh)
    }

    fn store_meta(&mut self) -> Result<()> {
        self.meta.generation += 1;
        let mut state = vec![
            self.opts.flags(),
            self.opts.leaf_pages,
            self.opts.max_leaf_pages,
        ];
        for &c in &self.leaf_sizes {
            state.extend_from_slice(&(c.min(u32::MAX as u64) as u32).to_le_bytes());
        }
        let mut buf = vec![0u8; self.page_size];
        if FRAME_HEADER + META_BYTES + state.len() > self.page_size {
            return Err(IndexError::Config(
                "max_leaf_pages is too large for the superblock page".into(),
            ));
        }
        self.meta.seal_superblock(&state, &mut buf);
        self.dev().write(0, 0, &buf)?;
        Ok(())
    }

    // ---- internal nodes --------------------------------------------------

    fn read_internal(&mut self, id: NodeId) -> Result<Node> {
        let lba = self.base(id);
        let mut buf = std::mem::take(&mut self.page_buf);
        let r = self.dev().read(lba, 0, &mut buf);
        let mut node = Node::default();
        let r = r
            .map_err(IndexError::from)
            .and_then(|()| Ok(self.layout.decode(&buf, lba, &mut node)?));
        self.page_buf = buf;
        r?;
        Ok(node)
    }

    fn write_internal(&mut self, id: NodeId, node: &Node) -> Result<()> {
        let lba = self.base(id);
        let mut buf = std::mem::take(&mut self.page_buf);
        self.layout.encode(node, &mut buf);
        let r = self.dev().write(lba, 0, &buf);
        self.page_buf = buf;
        Ok(r?)
    }

    /// Node `id` from the cache or flash: (node, cached, dirty).
    fn fetch(&mut self, id: NodeId) -> Result<(Node, bool, bool)> {
        if let Some((node, dirty)) = self.cache.take(id) {
            return Ok((node, true, dirty));
        }
        Ok((self.read_internal(id)?, false, false))
    }

    /// A node only read goes back (the mlru policy refreshes it if cached
    /// and never inserts it).
    fn release(&mut self, id: NodeId, node: Node, cached: bool, dirty: bool) -> Result<()> {
        let mut ev = std::mem::take(&mut self.evicted);
        self.cache.after_read(id, node, cached, dirty, &mut ev);
        self.evicted = ev;
        self.write_evicted()
    }

    /// An updated node: kept dirty if cached, else written and offered to
    /// the cache (§4.7).
    fn commit(&mut self, id: NodeId, node: Node, cached: bool) -> Result<()> {
        let mut ev = std::mem::take(&mut self.evicted);
        if cached {
            self.cache.after_update_hit(id, node, &mut ev);
        } else {
            let written = self.write_internal(id, &node);
            if written.is_ok() {
                self.cache.after_update_miss(id, node, &mut ev);
            }
            self.evicted = ev;
            written?;
            return self.write_evicted();
        }
        self.evicted = ev;
        self.write_evicted()
    }

    fn write_evicted(&mut self) -> Result<()> {
        let mut result = Ok(());
        while let Some(e) = self.evicted.pop() {
            if e.dirty && result.is_ok() {
                result = self.write_internal(e.id, &e.node);
            }
        }
        result
    }

    // ---- leaf nodes ------------------------------------------------------

    fn read_page(&mut self, lba: u64, out: &mut Vec<(u64, u64)>) -> Result<NodeId> {
        let mut buf = std::mem::take(&mut self.page_buf);
        let r = self.dev().read(lba, 0, &mut buf);
        let r = r
            .map_err(IndexError::from)
            .and_then(|()| decode_page(&buf, lba, self.opts.format, self.slots, out));
        self.page_buf = buf;
        r
    }

    /// Reads leaf `id`'s header into a reused [`Lnh`] (give it back in
    /// `self.header_buf` when done).
    fn read_header(&mut self, id: NodeId) -> Result<Lnh> {
        let lba = self.base(id);
        let mut buf = std::mem::take(&mut self.page_buf);
        let mut h = std::mem::take(&mut self.header_buf);
        let r = self.dev().read(lba, 0, &mut buf);
        let r = r
            .map_err(IndexError::from)
            .and_then(|()| h.decode_into(&buf, lba, self.slots));
        self.page_buf = buf;
        r?;
        if h.pages > self.opts.max_leaf_pages {
            return Err(IndexError::Corrupt {
                page: lba,
                detail: format!("a leaf node of {} pages", h.pages),
            });
        }
        Ok(h)
    }

    /// Reads a whole leaf node (header and every leaf page, §4.9's
    /// `C_r · L` of a flush).
    fn read_leaf(&mut self, id: NodeId) -> Result<Leaf> {
        let base = self.base(id);
        let (pages, next, interval, fei) = if self.opts.lnh {
            let h = self.read_header(id)?;
            (h.pages as usize, h.next, h.interval, h.fei)
        } else {
            (self.opts.leaf_pages as usize, NO_NODE, 0, Vec::new())
        };
        let mut leaf = Leaf::empty(pages, self.opts.fei);
        leaf.next = next;
        leaf.interval = interval;
        leaf.dirty = vec![false; pages];
        for p in 0..pages {
            let mut entries = Vec::new();
            let n = self.read_page(base + 1 + p as u64, &mut entries)?;
            if !self.opts.lnh && p == 0 {
                leaf.next = n;
            }
            if self.opts.fei {
                leaf.live[p] = (0..entries.len())
                    .map(|s| fei.get(p * self.slots + s).copied().unwrap_or(false))
                    .collect();
            }
            leaf.pages[p] = entries;
        }
        Ok(leaf)
    }

    /// Writes a leaf node's changed pages and (with the LNH) its header.
    fn write_leaf(&mut self, id: NodeId, leaf: &Leaf) -> Result<()> {
        let base = self.base(id);
        let header = if self.opts.lnh {
            Some(
                leaf.header(self.page_size, self.opts.kiv, self.slots)
                    .ok_or_else(|| IndexError::Config("leaf node header overflow".into()))?,
            )
        } else {
            None
        };
        let mut buf = std::mem::take(&mut self.page_buf);
        let format = self.opts.format;
        let mut result = Ok(());
        for p in 0..leaf.pages.len() {
            if !leaf.dirty[p] {
                continue;
            }
            let next = if !self.opts.lnh && p == 0 {
                leaf.next
            } else {
                NO_NODE
            };
            encode_page(&mut buf, next, &leaf.pages[p], format);
            result = self.dev().write(base + 1 + p as u64, 0, &buf);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            if let Some(h) = header {
                h.encode(&mut buf);
                result = self.dev().write(base, 0, &buf);
            }
        }
        self.page_buf = buf;
        Ok(result?)
    }

    // ---- the BPB -----------------------------------------------------------

    /// The newest TE of `(key, value)`: Some(true) insert, Some(false)
    /// delete.
    fn newest_te(&self, key: u64, value: u64) -> Option<bool> {
        self.bpb.newest((key, value))
    }

    /// §4.2.2: stores a TE unless it is redundant.
    fn put_te(&mut self, key: u64, value: u64, insert: bool) {
        if self.newest_te(key, value) == Some(insert) {
            // Identical to a stored TE.
            return;
        }
        self.bpb.push((key, value), insert);
    }

    /// Applies the BPB's TEs in `lo ..= hi` to `out` (sorted).
    fn overlay(&self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) {
        for (e, insert) in self.bpb.with_keys(lo, hi) {
            match (out.binary_search(&e), insert) {
                (Err(pos), true) => out.insert(pos, e),
                (Ok(pos), false) => {
                    out.remove(pos);
                }
                _ => {}
            }
        }
    }

    /// The tree's entries with keys in `lo ..= hi` (without the BPB).
    fn tree_range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        out.clear();
        let target = (lo, 0);
        let mut id = self.meta.root;
        for level in (1..self.meta.height).rev() {
            let (node, cached, dirty) = self.fetch(id)?;
            if let Err(e) = expect_level(&node, id, self.base(id), level) {
                self.release(id, node, cached, dirty)?;
                return Err(e.into());
            }
            // Every entry with key `lo` is at or after (lo, 0).
            let child = node.children[node.child_slot(target)];
            self.release(id, node, cached, dirty)?;
            id = child;
        }
        // A `next` rewritten to point back would loop: no chain has more
        // leaf nodes than node ids were ever handed out.
        let mut chain = ChainBound::new("leaf chain", self.ids.next_id as u64);
        while id != NO_NODE {
            chain.step(id, self.base(id))?;
            id = self.scan_leaf(id, lo, hi, out)?;
        }
        Ok(())
    }

    /// Mean and standard deviation of the leaf-node size, in pages.
    fn leaf_size_stats(&self) -> (f64, f64) {
        let n: u64 = self.leaf_sizes.iter().sum();
        if n == 0 {
            return (0.0, 0.0);
        }
        let mean = self
            .leaf_sizes
            .iter()
            .enumerate()
            .map(|(s, &c)| s as f64 * c as f64)
            .sum::<f64>()
            / n as f64;
        let var = self
            .leaf_sizes
            .iter()
            .enumerate()
            .map(|(s, &c)| c as f64 * (s as f64 - mean).powi(2))
            .sum::<f64>()
            / n as f64;
        (mean, var.sqrt())
    }
}

impl Index for MbTree {
    fn name(&self) -> &'static str {
        NAME
    }

    fn format(&self) -> EntryFormat {
        self.opts.format
    }

    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.format().check(key, value)?;
        if self.opts.versions_by_key {
            return self.upsert_key(key, value);
        }
        if self.newest_te(key, value) == Some(true) {
            return Ok(());
        }
        self.put_te(key, value, true);
        if let Err(e) = self.make_room() {
            // The insert fails whole: its TE goes (unless a flush already
            // applied it), everything else stays.
            self.bpb.remove_newest((key, value), true);
            return Err(e);
        }
        Ok(())
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.format().check(key, value)?;
        if self.opts.versions_by_key {
            return self.delete_key(key, value);
        }
        let newest = self.newest_te(key, value);
        if newest == Some(false) {
            return Ok(false);
        }
        let mut found = Vec::new();
        self.tree_range(key, key, &mut found)?;
        let in_tree = found.binary_search(&(key, value)).is_ok();
        match newest {
            Some(true) => {
                // §4.2.2: the D cancels the stored I and is not stored ...
                self.bpb.remove_newest((key, value), true);
                // ... unless the tree holds the pair too.
                if in_tree && self.newest_te(key, value).is_none() {
                    self.put_te(key, value, false);
                }
            }
            _ if in_tree => self.put_te(key, value, false),
            _ => return Ok(false),
        }
        self.make_room()?;
        Ok(true)
    }

    fn versions_by_key(&self) -> bool {
        self.opts.versions_by_key
    }

    /// With versions of keys, an insert: the key's newest version, in the
    /// BPB without a read (module doc, "Versions of keys").
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        if !self.opts.versions_by_key {
            return Err(IndexError::Config(
                "an MB-Tree of pairs (versions=pair) has no blind upsert".into(),
            ));
        }
        self.format().check(key, value)?;
        self.upsert_key(key, value)
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.load_one_by_one(entries)
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.format().check_key(key)?;
        if self.opts.versions_by_key && self.get_from_bpb(key, out) {
            return Ok(());
        }
        let mut entries = std::mem::take(&mut self.get_buf);
        let r = self.tree_range(key, key, &mut entries);
        if r.is_ok() {
            // With versions of keys the BPB holds no TE of `key` here.
            if !self.opts.versions_by_key {
                self.overlay(key, key, &mut entries);
            }
            out.clear();
            out.extend(entries.iter().map(|e| e.1));
        }
        self.get_buf = entries;
        r
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        self.tree_range(lo, hi, out)?;
        if self.opts.versions_by_key {
            self.overlay_by_key(lo, hi, out);
        } else {
            self.overlay(lo, hi, out);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        while !self.bpb.is_empty() {
            self.flush_ftes()?;
        }
        let dirty: Vec<NodeId> = self.cache.dirty_nodes().map(|(id, _)| id).collect();
        for id in dirty {
            if let Some((node, _)) = self.cache.take(id) {
                let written = self.write_internal(id, &node);
                let mut ev = std::mem::take(&mut self.evicted);
                self.cache
                    .after_read(id, node, true, written.is_err(), &mut ev);
                self.evicted = ev;
                written?;
            }
        }
        self.write_evicted()?;
        self.store_meta()?;
        Ok(self.dev().sync()?)
    }

    fn memory_bytes(&self) -> usize {
        self.cache.len() * self.page_size
            + self.bpb_capacity * Bpb::te_bytes(self.opts.format)
            + 4 * self.ids.free.len()
            + META_MEMORY
    }

    fn stats(&self) -> IndexStats {
        let mut s = IndexStats::default();
        let (avg, std) = self.leaf_size_stats();
        s.set("leaf_size_avg", avg);
        s.set("leaf_size_std", std);
        s.set("leaf_nodes", self.leaf_sizes.iter().sum::<u64>() as f64);
        s.set("height", self.meta.height as f64);
        s.set("entries", self.meta.entries as f64);
        s.set("bpb_capacity", self.bpb_capacity as f64);
        s.set("bpb_entries", self.bpb.len() as f64);
        s.set("bpb_flushes", self.counters.flushes as f64);
        if self.counters.flushes > 0 {
            s.set(
                "avg_ftes",
                self.counters.ftes_total as f64 / self.counters.flushes as f64,
            );
        }
        s.set("leaf_splits", self.counters.leaf_splits as f64);
        s.set("internal_splits", self.counters.internal_splits as f64);
        s.set("leaf_grows", self.counters.grows as f64);
        s.set("leaf_shrinks", self.counters.shrinks as f64);
        s.set("slots_per_page", self.slots as f64);
        s.set("fanout", self.layout.fanout as f64);
        s.set("cache_capacity_nodes", self.cache.capacity() as f64);
        s.set("cache_nodes", self.cache.len() as f64);
        s.set("cache_hits", self.cache.hits as f64);
        s.set("cache_misses", self.cache.misses as f64);
        s.set("memory_budget", self.budget as f64);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        let leaf_pages: u64 = self
            .leaf_sizes
            .iter()
            .enumerate()
            .map(|(s, &c)| c * (s as u64 + u64::from(self.opts.lnh)))
            .sum();
        let leaves: u64 = self.leaf_sizes.iter().sum();
        let internal = self.ids.live().saturating_sub(leaves);
        (1 + leaf_pages + internal) * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }

    fn notes(&self) -> Vec<String> {
        vec![format!(
            "MB-Tree: BPB of {} task entries, modified LRU buffer of {} internal nodes ({:.0}% of the memory)",
            self.bpb_capacity,
            self.cache.capacity(),
            self.opts.lru_share * 100.0
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ram::RamDisk;

    fn tree(set: &[&str], memory: usize) -> MbTree {
        let storage = Storage::Pages(Box::new(RamDisk::new(512, 1 << 16)));
        MbTree::create(storage, memory, Params::parse(set.iter().copied()).unwrap()).unwrap()
    }

    #[test]
    fn bpb_redundancy_elimination() {
        let mut t = tree(&[], 4096);
        t.put_te(5, 1, true);
        t.put_te(5, 1, true);
        assert_eq!(t.bpb.len(), 1, "an identical TE is not stored");
        // A D matching a stored I removes it and is not stored (the pair is
        // not in the tree).
        assert!(t.delete(5, 1).unwrap());
        assert!(t.bpb.is_empty());
        assert!(!t.delete(5, 1).unwrap());
        // Sorted by key, then creation time.
        t.put_te(9, 1, true);
        t.put_te(2, 7, true);
        t.put_te(2, 3, true);
        let keys: Vec<(u64, u64)> = t.bpb.all().into_iter().map(|(e, _)| e).collect();
        assert_eq!(keys, vec![(2, 3), (2, 7), (9, 1)]);
        // An update is D then I: both stay, and a search sees the new pair.
        t.flush().unwrap();
        assert!(t.update(2, 3, 4).unwrap());
        let flags: Vec<bool> = t.bpb.all().into_iter().map(|(_, i)| i).collect();
        assert_eq!(flags, vec![false, true]);
        let mut out = Vec::new();
        t.get(2, &mut out).unwrap();
        assert_eq!(out, vec![4, 7]);
    }

    #[test]
    fn unique_path_search_takes_the_leaf_with_the_most_task_entries() {
        // One-page leaves of 61 entries: 1,000 entries make many leaves.
        let mut t = tree(&["leaf_pages=1", "max_leaf_pages=1"], 4096);
        for k in 0..1000u64 {
            t.insert(k, k).unwrap();
        }
        t.flush().unwrap();
        assert!(t.meta.height >= 2);
        // TEs: 3 under key 100, 7 under key 400, 2 under key 900.
        for (key, n) in [(100u64, 3u64), (400, 7), (900, 2)] {
            for i in 0..n {
                t.put_te(key, 5000 + i, true);
            }
        }
        let flushes = t.counters.flushes;
        t.flush_ftes().unwrap();
        let left: Vec<u64> = t.bpb.all().into_iter().map(|(e, _)| e.0).collect();
        assert_eq!(left, vec![100, 100, 100, 900, 900]);
        let mut out = Vec::new();
        t.tree_range(400, 400, &mut out).unwrap();
        assert_eq!(out.len(), 1 + 7, "the FTES reached the leaf of key 400");
        assert_eq!(t.counters.flushes, flushes + 1);
    }
}
