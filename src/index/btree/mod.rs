//! `btree`: the B+-tree baseline every paper compares against — "B-tree
//! over FTL" in Wu et al. 2003 §5, "B-Tree" and "B-Tree(LRU)" in Roh et al. 2009 §6,
//! the tuned B+-tree of Agrawal et al. 2009 §6.
//!
//! Entries are ordered by (key, value), so repeated keys are distinct
//! entries and a pair is unique. Nodes are written in place through a
//! [`NodeStore`] ([`PageNodeStore`](crate::node::PageNodeStore) here; later indexes keep this tree and
//! swap the store). A [`NodeCache`] with policy `none`, `lru` or `mlru`
//! (Roh et al. 2009 §4.7) sits in front of the store. Deletion is real:
//! an underfull node borrows from a sibling (redistribution) or merges with
//! it, and a root left with one child is collapsed.
//!
//! Parameters: `node_bytes=N` or `node_pages=N` (default one device page),
//! `fanout=N` (the smallest node holding N children; overrides the size),
//! `cache=none|lru|mlru` (default `mlru`), `cache_nodes=N` (a cache of N
//! nodes rather than what the budget leaves), `write_buffer=N` (the AS
//! B-tree's Write Buffer, [`crate::node::WriteBuffer`], in front of the
//! store; default 0, none), `key_bytes`, `value_bytes`, `log_blocks=N`
//! (raw chips only).
//!
//! Storage: on a logical-page device (FTL, file) nodes are written in place
//! ([`PageNodeStore`](crate::node::PageNodeStore)); on a raw chip (`raw:PROFILE`) they are packed into
//! the node log of Agrawal et al. 2009 §5.2 ([`LogNodeStore`](crate::node::LogNodeStore)), the
//! layout that paper's tuned B+-tree uses.
//!
//! Reopening takes the entry widths and node size from the superblock when
//! the parameters leave them out; given ones that contradict it are an
//! [`IndexError::Mismatch`] at open.
//!
//! Memory: the cache holds what the budget leaves after 64 bytes of
//! metadata and what the node store holds (a node log's one-page write
//! buffer), in whole node images. The smallest budget accepted is two node
//! images, the working set of a split (a node and its new sibling), plus
//! the store's part; the root-to-leaf path an operation holds is transient
//! and not counted between operations. `memory_bytes()` = cached nodes at
//! their image size + the emptied nodes kept for reuse (at most two, left
//! out of the cache's share) + the store's buffers and free list + the
//! metadata;
//! the store's part is its write buffer (`write_buffer=N`, whole node
//! images), its decoded top levels (`cached_levels`), and on the node log
//! the node table, which is also its own index stat, `node_table_bytes`
//! (Agrawal et al. 2009 §6 keeps it outside the budget).
//! Freed node ids (after merges) grow the free list beyond the budget by
//! 4 bytes each; the report shows it.
//!
//! Invariants (besides those of [`crate::node::codec`]):
//! 1. Every leaf is at level 0 and every root-to-leaf path has `height`
//!    nodes; leaves are chained by `next` in key order.
//! 2. Non-root leaves hold ≥ ⌊leaf_capacity/2⌋ entries; non-root internal
//!    nodes ≥ ⌊fanout/2⌋ children; an internal root has ≥ 2 children.
//! 3. A node taken out of the cache during an operation is put back (or
//!    committed) before the operation returns, even on error, so dirty
//!    nodes are never dropped.
//! 4. Before an insert changes anything, the store can allocate a node for
//!    every level that might split, so a full device fails cleanly.
//!
//! Walks over pointers read from flash are bounded ([`crate::node::walk`]):
//! a descent checks each node's level against the height, and a leaf chain
//! longer than the nodes ever allocated (`next id`) is a loop, reported as
//! `Corrupt`.

mod bulk;
mod fit;
mod image;
mod open;
mod route;
mod update;

use image::ByImage;

pub use open::BTreeOptions;
pub use route::ShapeChange;

use crate::device::Storage;
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Result};
use crate::node::walk::{expect_level, ChainBound};
use crate::node::{
    Evicted, Node, NodeCache, NodeChange, NodeId, NodeLayout, NodeStore, Pin, TreeMeta, NO_NODE,
};

/// Name in the registry.
pub const NAME: &str = "btree";
const META_MEMORY: usize = 64;
/// The most emptied nodes kept for reuse between operations: a read on a
/// cache miss takes one and an eviction gives one back, so two cover the
/// steady state (a node and a split sibling) without an allocation an
/// operation. Counted, and left out of the cache's share of the budget.
pub const POOL_NODES: usize = 2;

/// Nodes kept for reuse when `nodes` node images fit the budget beside
/// the metadata and the store: [`POOL_NODES`], fewer at the smallest
/// budgets.
fn pool_nodes(nodes: usize) -> usize {
    nodes.min(POOL_NODES)
}

/// What an insert below a node did.
enum Ins {
    Present,
    Done,
    Split((u64, u64), NodeId),
}

/// What a delete below a node did; an underfull node comes back to the
/// parent uncommitted, with its `cached` flag.
enum Del {
    NotFound,
    Done,
    Underflow(Node, bool),
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    splits: u64,
    merges: u64,
    redistributions: u64,
}

/// The B+-tree.
pub struct BTree {
    name: &'static str,
    store: Box<dyn NodeStore>,
    cache: NodeCache,
    layout: NodeLayout,
    meta: TreeMeta,
    budget: usize,
    /// Emptied nodes kept for reuse, at most `pool_cap` (counted).
    pool: Vec<Node>,
    pool_cap: usize,
    /// One node image per level, for inserts that descend through images.
    images: Vec<Vec<u8>>,
    evicted: Vec<Evicted>,
    scratch_entries: Vec<(u64, u64)>,
    scratch_children: Vec<NodeId>,
    counters: Counters,
    /// Shape changes since the last [`BTree::take_shapes`], when recorded.
    shapes: Option<Vec<ShapeChange>>,
    /// Fitting the cache to the budget beside the store's data-bound
    /// tables, once [`BTree::fit_to_budget`] asked for it.
    fit: Option<fit::Fit>,
}

impl BTree {
    /// Tells the node store a batch of changes begins.
    pub fn begin_batch(&mut self) {
        if let Some(fit) = &mut self.fit {
            fit.in_batch = true;
        }
        self.store.begin_batch()
    }

    /// Tells the node store a batch of changes is complete (BFTL commits
    /// its index units then).
    pub fn end_batch(&mut self) -> Result<()> {
        if let Some(fit) = &mut self.fit {
            fit.in_batch = false;
        }
        self.store.end_batch()?;
        self.fit_cache()
    }

    /// The most bytes the tree charges beside its node cache and its
    /// store (its metadata and the nodes kept for reuse), for a store that
    /// sizes its own budget-bound part from the same budget.
    pub fn held_beside_cache(layout: NodeLayout) -> usize {
        META_MEMORY + POOL_NODES * layout.node_bytes
    }

    /// The node layout in use.
    pub fn layout(&self) -> NodeLayout {
        self.layout
    }

    /// Entries in the tree.
    pub fn len(&self) -> u64 {
        self.meta.entries
    }

    pub fn is_empty(&self) -> bool {
        self.meta.entries == 0
    }

    // ---- node plumbing -------------------------------------------------

    fn blank(&mut self, level: u8) -> Node {
        let mut n = self.pool.pop().unwrap_or_default();
        n.clear(level);
        n
    }

    fn recycle(&mut self, node: Node) {
        if self.pool.len() < self.pool_cap {
            self.pool.push(node);
        }
    }

    /// Takes node `id` out of the cache, or reads it: (node, cached, dirty).
    fn fetch(&mut self, id: NodeId) -> Result<(Node, bool, bool)> {
        if let Some((node, dirty)) = self.cache.take(id) {
            return Ok((node, true, dirty));
        }
        self.read_stored(id).map(|node| (node, false, false))
    }

    /// Reads node `id` from the store (the cache missed it).
    fn read_stored(&mut self, id: NodeId) -> Result<Node> {
        let mut node = self.blank(0);
        match self.store.read_node(id, &mut node) {
            Ok(()) => Ok(node),
            Err(e) => {
                self.recycle(node);
                Err(e.into())
            }
        }
    }

    /// Puts back a pinned node that was only traversed: `release` of a
    /// cached node.
    fn unpin(&mut self, pin: Pin) -> Result<()> {
        self.cache.unpin(pin, &mut self.evicted);
        self.write_evicted()
    }

    /// Puts back a node that was only read (or traversed).
    fn release(&mut self, id: NodeId, node: Node, cached: bool, dirty: bool) -> Result<()> {
        let mut evicted = std::mem::take(&mut self.evicted);
        if let Some(n) = self.cache.after_read(id, node, cached, dirty, &mut evicted) {
            self.recycle(n);
        }
        self.evicted = evicted;
        self.write_evicted()
    }

    /// Stores an updated node according to the cache policy.
    fn commit(&mut self, id: NodeId, node: Node, cached: bool, change: NodeChange) -> Result<()> {
        if cached && self.cache.writes_through_on_hit() {
            // The cached copy is clean, so when the store refuses the change
            // the copy is dropped and the store's version stays the truth.
            if let Err(e) = self.store.write_node(id, &node, change) {
                self.recycle(node);
                return Err(e.into());
            }
            let mut evicted = std::mem::take(&mut self.evicted);
            self.cache.after_update_hit(id, node, &mut evicted);
            self.evicted = evicted;
            return self.write_evicted();
        }
        if cached {
            let mut evicted = std::mem::take(&mut self.evicted);
            self.cache.after_update_hit(id, node, &mut evicted);
            self.evicted = evicted;
            return self.write_evicted();
        }
        if self.cache.writes_through_on_miss() {
            if let Err(e) = self.store.write_node(id, &node, change) {
                self.recycle(node);
                return Err(e.into());
            }
        }
        let mut evicted = std::mem::take(&mut self.evicted);
        if let Some(n) = self.cache.after_update_miss(id, node, &mut evicted) {
            self.recycle(n);
        }
        self.evicted = evicted;
        self.write_evicted()
    }

    #[inline]
    fn write_evicted(&mut self) -> Result<()> {
        // Inlined for the common case, nothing evicted.
        if self.evicted.is_empty() {
            return Ok(());
        }
        self.write_each_evicted()
    }

    fn write_each_evicted(&mut self) -> Result<()> {
        let mut result = Ok(());
        while let Some(e) = self.evicted.pop() {
            if e.dirty && result.is_ok() {
                result = self.store.write_node(e.id, &e.node, NodeChange::Rewrite);
            }
            self.recycle(e.node);
        }
        Ok(result?)
    }

    /// Passes `result` on with `node`; on error puts `node` back first
    /// (invariant 3: never drop a node taken out of the cache).
    fn keep_on_error<T>(
        &mut self,
        result: Result<T>,
        id: NodeId,
        node: Node,
        cached: bool,
        dirty: bool,
    ) -> Result<(T, Node)> {
        match result {
            Ok(v) => Ok((v, node)),
            Err(e) => {
                let _ = self.release(id, node, cached, dirty);
                Err(e)
            }
        }
    }

    /// Frees a node (after a merge or root collapse).
    fn discard(&mut self, id: NodeId) -> Result<()> {
        if let Some(n) = self.cache.discard(id) {
            self.recycle(n);
        }
        Ok(self.store.free(id)?)
    }

    // ---- insert ----------------------------------------------------------

    fn insert_into(&mut self, id: NodeId, level: u8, entry: (u64, u64)) -> Result<Ins> {
        if let Some(pinned) = self.cache.pin_cached(id) {
            // What `fetch` does with a cached node, with the node left in
            // the cache's arena while the descent below it runs.
            return match pinned {
                Some(pin) if level > 0 => self.insert_pinned(pin, level, entry),
                Some(pin) => {
                    let (node, dirty) = self.cache.unpin_take(pin);
                    self.insert_into_node(id, level, entry, node, true, dirty)
                }
                None => {
                    let node = self.read_stored(id)?;
                    self.insert_into_node(id, level, entry, node, false, false)
                }
            };
        }
        let (node, cached, dirty) = match self.insert_by_image(id, level, entry)? {
            ByImage::Done(ins) => return Ok(ins),
            ByImage::Decoded(node) => (node, false, false),
            ByImage::Unavailable => self.fetch(id)?,
        };
        self.insert_into_node(id, level, entry, node, cached, dirty)
    }

    /// `insert_into_node` for a cached internal node, pinned: taken out
    /// for good only when a split below reaches it.
    fn insert_pinned(&mut self, pin: Pin, level: u8, entry: (u64, u64)) -> Result<Ins> {
        let id = pin.id();
        let node = self.cache.pinned(&pin);
        // Levels bound the recursion even if a child names an ancestor.
        if let Err(e) = expect_level(node, id, id as u64, level) {
            self.unpin(pin)?;
            return Err(e.into());
        }
        let slot = node.child_slot(entry);
        let child = node.children[slot];
        match self.insert_into(child, level - 1, entry) {
            Err(e) => {
                let _ = self.unpin(pin);
                Err(e)
            }
            Ok(Ins::Split(sep, new_child)) => {
                let (node, _) = self.cache.unpin_take(pin);
                self.absorb_split(id, node, true, slot, sep, new_child)
            }
            Ok(other) => {
                self.unpin(pin)?;
                Ok(other)
            }
        }
    }

    /// `insert_into` once node `id` is in hand (taken from the cache, or
    /// read: `cached`, `dirty` as `fetch` says).
    fn insert_into_node(
        &mut self,
        id: NodeId,
        level: u8,
        entry: (u64, u64),
        mut node: Node,
        cached: bool,
        dirty: bool,
    ) -> Result<Ins> {
        // Levels bound the recursion even if a child names an ancestor.
        if let Err(e) = expect_level(&node, id, id as u64, level) {
            self.release(id, node, cached, dirty)?;
            return Err(e.into());
        }
        if node.is_leaf() {
            let pos = match node.entries.binary_search(&entry) {
                Ok(_) => {
                    self.release(id, node, cached, dirty)?;
                    return Ok(Ins::Present);
                }
                Err(pos) => pos,
            };
            node.entries.insert(pos, entry);
            if node.entries.len() <= self.layout.leaf_capacity {
                self.commit(id, node, cached, NodeChange::Insert(entry.0, entry.1))?;
                return Ok(Ins::Done);
            }
            let new_id = match self.store.allocate() {
                Ok(i) => i,
                Err(e) => {
                    node.entries.remove(pos);
                    self.release(id, node, cached, dirty)?;
                    return Err(e.into());
                }
            };
            let mut right = self.blank(0);
            let mid = node.entries.len() / 2;
            right.entries.extend(node.entries.drain(mid..));
            right.next = node.next;
            node.next = new_id;
            let sep = right.entries[0];
            return self.finish_split((id, node, cached), (new_id, right), sep);
        }
        let slot = node.child_slot(entry);
        let child = node.children[slot];
        let below = self.insert_into(child, level - 1, entry);
        let (below, node) = self.keep_on_error(below, id, node, cached, dirty)?;
        match below {
            Ins::Split(sep, new_child) => self.absorb_split(id, node, cached, slot, sep, new_child),
            other => {
                self.release(id, node, cached, dirty)?;
                Ok(other)
            }
        }
    }

    /// Adds the separator and new child a split below `slot` sends up to
    /// the internal node `id`, splitting it in turn when it overflows.
    fn absorb_split(
        &mut self,
        id: NodeId,
        mut node: Node,
        cached: bool,
        slot: usize,
        sep: (u64, u64),
        new_child: NodeId,
    ) -> Result<Ins> {
        node.entries.insert(slot, sep);
        node.children.insert(slot + 1, new_child);
        if node.children.len() <= self.layout.fanout {
            self.commit(id, node, cached, NodeChange::Insert(sep.0, sep.1))?;
            return Ok(Ins::Done);
        }
        // Invariant 4 guaranteed this allocation.
        let new_id = self.store.allocate()?;
        let mut right = self.blank(node.level);
        let up = node.split_internal(&mut right).ok_or_else(|| {
            IndexError::Config("internal split of a node without separators".into())
        })?;
        self.finish_split((id, node, cached), (new_id, right), up)
    }

    /// Commits both halves of a split; `sep` goes up to the parent.
    fn finish_split(
        &mut self,
        left: (NodeId, Node, bool),
        right: (NodeId, Node),
        sep: (u64, u64),
    ) -> Result<Ins> {
        self.counters.splits += 1;
        if let Some(shapes) = &mut self.shapes {
            shapes.push(ShapeChange::Split {
                level: left.1.level,
                left: left.0,
                right: right.0,
                sep,
            });
        }
        self.commit(left.0, left.1, left.2, NodeChange::Rewrite)?;
        self.commit(right.0, right.1, false, NodeChange::Rewrite)?;
        Ok(Ins::Split(sep, right.0))
    }

    /// Ends a merge whose entries are already in `left`: drops the
    /// separator and the right child from `parent`, commits `left`, frees
    /// the right node.
    fn finish_merge(
        &mut self,
        parent: &mut Node,
        left_slot: usize,
        left: (NodeId, Node, bool),
        right: (NodeId, Node),
    ) -> Result<()> {
        parent.entries.remove(left_slot);
        parent.children.remove(left_slot + 1);
        self.counters.merges += 1;
        if let Some(shapes) = &mut self.shapes {
            shapes.push(ShapeChange::Merge {
                level: left.1.level,
                left: left.0,
                right: right.0,
            });
        }
        self.commit(left.0, left.1, left.2, NodeChange::Rewrite)?;
        self.recycle(right.1);
        self.discard(right.0)
    }

    // ---- delete ----------------------------------------------------------

    fn min_leaf(&self) -> usize {
        (self.layout.leaf_capacity / 2).max(1)
    }

    fn min_children(&self) -> usize {
        (self.layout.fanout / 2).max(2)
    }

    fn delete_from(&mut self, id: NodeId, level: u8, entry: (u64, u64)) -> Result<Del> {
        let (mut node, cached, dirty) = self.fetch(id)?;
        if let Err(e) = expect_level(&node, id, id as u64, level) {
            self.release(id, node, cached, dirty)?;
            return Err(e.into());
        }
        if node.is_leaf() {
            let Ok(pos) = node.entries.binary_search(&entry) else {
                self.release(id, node, cached, dirty)?;
                return Ok(Del::NotFound);
            };
            node.entries.remove(pos);
            if node.entries.len() >= self.min_leaf() {
                self.commit(id, node, cached, NodeChange::Delete(entry.0, entry.1))?;
                return Ok(Del::Done);
            }
            return Ok(Del::Underflow(node, cached));
        }
        let slot = node.child_slot(entry);
        let child = node.children[slot];
        let below = self.delete_from(child, level - 1, entry);
        let (below, mut node) = self.keep_on_error(below, id, node, cached, dirty)?;
        match below {
            Del::NotFound | Del::Done => {
                self.release(id, node, cached, dirty)?;
                Ok(below)
            }
            Del::Underflow(child_node, c_cached) => {
                if let Err(e) = self.fix_underflow(&mut node, slot, child_node, c_cached) {
                    let _ = self.release(id, node, cached, dirty);
                    return Err(e);
                }
                if node.children.len() >= self.min_children() {
                    self.commit(id, node, cached, NodeChange::Rewrite)?;
                    Ok(Del::Done)
                } else {
                    Ok(Del::Underflow(node, cached))
                }
            }
        }
    }

    /// Redistributes with, or merges into, a sibling of the underfull child
    /// at `slot` of `parent`; commits child and sibling (the parent is the
    /// caller's).
    fn fix_underflow(
        &mut self,
        parent: &mut Node,
        slot: usize,
        child: Node,
        c_cached: bool,
    ) -> Result<()> {
        let child_id = parent.children[slot];
        let (left_slot, child_is_left) = if slot > 0 {
            (slot - 1, false)
        } else {
            (slot, true)
        };
        let sibling_id = if child_is_left {
            parent.children[slot + 1]
        } else {
            parent.children[slot - 1]
        };
        let (sibling, s_cached, _) = match self.fetch(sibling_id) {
            Ok(s) => s,
            Err(e) => {
                // Keep the child's change rather than lose it.
                let _ = self.commit(child_id, child, c_cached, NodeChange::Rewrite);
                return Err(e);
            }
        };
        let ((left_id, mut left, l_cached), (right_id, mut right, r_cached)) = if child_is_left {
            ((child_id, child, c_cached), (sibling_id, sibling, s_cached))
        } else {
            ((sibling_id, sibling, s_cached), (child_id, child, c_cached))
        };
        let leaf = left.is_leaf();
        if leaf {
            let total = left.entries.len() + right.entries.len();
            if total <= self.layout.leaf_capacity {
                left.entries.append(&mut right.entries);
                left.next = right.next;
                return self.finish_merge(
                    parent,
                    left_slot,
                    (left_id, left, l_cached),
                    (right_id, right),
                );
            }
            let mut all = std::mem::take(&mut self.scratch_entries);
            all.clear();
            all.append(&mut left.entries);
            all.append(&mut right.entries);
            let n_left = total / 2;
            left.entries.extend_from_slice(&all[..n_left]);
            right.entries.extend_from_slice(&all[n_left..]);
            parent.entries[left_slot] = right.entries[0];
            self.scratch_entries = all;
        } else {
            let total = left.children.len() + right.children.len();
            let sep = parent.entries[left_slot];
            if total <= self.layout.fanout {
                left.entries.push(sep);
                left.entries.append(&mut right.entries);
                left.children.append(&mut right.children);
                return self.finish_merge(
                    parent,
                    left_slot,
                    (left_id, left, l_cached),
                    (right_id, right),
                );
            }
            let mut seps = std::mem::take(&mut self.scratch_entries);
            let mut kids = std::mem::take(&mut self.scratch_children);
            seps.clear();
            kids.clear();
            seps.append(&mut left.entries);
            seps.push(sep);
            seps.append(&mut right.entries);
            kids.append(&mut left.children);
            kids.append(&mut right.children);
            let n_left = total / 2;
            left.children.extend_from_slice(&kids[..n_left]);
            left.entries.extend_from_slice(&seps[..n_left - 1]);
            parent.entries[left_slot] = seps[n_left - 1];
            right.children.extend_from_slice(&kids[n_left..]);
            right.entries.extend_from_slice(&seps[n_left..]);
            self.scratch_entries = seps;
            self.scratch_children = kids;
        }
        self.counters.redistributions += 1;
        if let Some(shapes) = &mut self.shapes {
            shapes.push(ShapeChange::Redistribute {
                level: left.level,
                left: left_id,
                right: right_id,
                sep: parent.entries[left_slot],
            });
        }
        self.commit(left_id, left, l_cached, NodeChange::Rewrite)?;
        self.commit(right_id, right, r_cached, NodeChange::Rewrite)
    }

    // ---- search ----------------------------------------------------------

    /// Whether a search can read node `id` as an undecoded image: the cache
    /// would not keep it. The caller's `touch` has just missed, so `id` is
    /// not cached (a slot that failed to decode was dropped).
    fn search_reads_image(&self, id: NodeId) -> bool {
        debug_assert!(!self.cache.contains(id));
        !self.cache.admits_reads()
    }

    /// Calls `f` for every entry with key in `lo..=hi`, in order. Nodes the
    /// cache neither holds nor would keep are searched in their encoded
    /// image, without decoding.
    fn scan(&mut self, lo: u64, hi: u64, mut f: impl FnMut(u64, u64)) -> Result<()> {
        if lo > hi {
            return Ok(());
        }
        let target = (lo, 0);
        let mut id = self.meta.root;
        // Invariant 1: the leaves are `height - 1` steps below the root, so
        // the descent never reads a leaf it would read again below.
        for _ in 1..self.meta.height {
            if let Some(node) = self.cache.touch(id) {
                if node.is_leaf() {
                    return Err(leaf_above_leaf_level(id));
                }
                id = node.children[node.child_slot(target)];
                continue;
            }
            if self.search_reads_image(id) {
                if let Some((image, page, sealed)) = self.store.read_image_sealed(id)? {
                    self.cache.count_miss();
                    id = self.layout.image_child(image, page, sealed, target)?.1;
                    continue;
                }
            }
            let (node, cached, dirty) = self.fetch(id)?;
            if node.is_leaf() {
                self.release(id, node, cached, dirty)?;
                return Err(leaf_above_leaf_level(id));
            }
            let child = node.children[node.child_slot(target)];
            self.release(id, node, cached, dirty)?;
            id = child;
        }
        // A loop in the leaf chain (a `next` rewritten to point back) would
        // make this walk endless: no chain has more leaves than nodes exist.
        let mut chain = ChainBound::new("leaf chain", self.store.next_id() as u64);
        while id != NO_NODE {
            chain.step(id, id as u64)?;
            if let Some(node) = self.cache.touch(id) {
                if !node.is_leaf() {
                    return Err(internal_at_leaf_level(id));
                }
                let (done, next) = scan_leaf(node, target, hi, &mut f);
                if done {
                    break;
                }
                id = next;
                continue;
            }
            if self.search_reads_image(id) {
                if let Some((image, page, sealed)) = self.store.read_image_sealed(id)? {
                    self.cache.count_miss();
                    let (done, next) = self
                        .layout
                        .image_scan(image, page, sealed, target, hi, &mut f)?;
                    if done {
                        break;
                    }
                    id = next;
                    continue;
                }
            }
            let (node, cached, dirty) = self.fetch(id)?;
            if !node.is_leaf() {
                self.release(id, node, cached, dirty)?;
                return Err(internal_at_leaf_level(id));
            }
            let (done, next) = scan_leaf(&node, target, hi, &mut f);
            self.release(id, node, cached, dirty)?;
            if done {
                break;
            }
            id = next;
        }
        Ok(())
    }
}

/// Calls `f` for the entries of `leaf` from `target` up to key `hi`;
/// whether the scan is done, and the next leaf.
fn scan_leaf(
    leaf: &Node,
    target: (u64, u64),
    hi: u64,
    f: &mut impl FnMut(u64, u64),
) -> (bool, NodeId) {
    let start = leaf.entries.partition_point(|e| *e < target);
    for &(k, v) in &leaf.entries[start..] {
        if k > hi {
            return (true, leaf.next);
        }
        f(k, v);
    }
    (false, leaf.next)
}

fn leaf_above_leaf_level(id: NodeId) -> IndexError {
    IndexError::Corrupt {
        page: id as u64,
        detail: "a leaf above the leaf level".into(),
    }
}

fn internal_at_leaf_level(id: NodeId) -> IndexError {
    IndexError::Corrupt {
        page: id as u64,
        detail: "an internal node at the leaf level".into(),
    }
}

impl Index for BTree {
    fn name(&self) -> &'static str {
        self.name
    }

    fn format(&self) -> EntryFormat {
        self.layout.format
    }

    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.layout.format.check(key, value)?;
        self.ensure_room()?;
        let top = self.meta.height.saturating_sub(1);
        match self.insert_into(self.meta.root, top, (key, value))? {
            Ins::Present => {}
            Ins::Done => self.meta.entries += 1,
            Ins::Split(sep, new_id) => {
                self.meta.entries += 1;
                let root_id = self.store.allocate()?;
                let mut root = self.blank(self.meta.height);
                root.children.push(self.meta.root);
                root.children.push(new_id);
                root.entries.push(sep);
                self.commit(root_id, root, false, NodeChange::Rewrite)?;
                if let Some(shapes) = &mut self.shapes {
                    shapes.push(ShapeChange::Grow {
                        old: self.meta.root,
                        new: root_id,
                    });
                }
                self.meta.root = root_id;
                self.meta.height += 1;
            }
        }
        self.fit_cache()
    }

    /// One descent when it can (`btree::update`), else delete then insert.
    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.layout.format.check(key, old)?;
        self.layout.format.check(key, new)?;
        if let update::InPlace::Done = self.update_in_place(key, old, new)? {
            return Ok(true);
        }
        let found = self.delete(key, old)?;
        self.insert(key, new)?;
        Ok(found)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        let found = self.delete_entry(key, value)?;
        self.fit_cache()?;
        Ok(found)
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        self.layout.format.check_key(key)?;
        self.scan(key, key, |_, v| out.push(v))?;
        self.fit_cache()
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        out.clear();
        let max = self.layout.format.max_key();
        self.scan(lo.min(max), hi.min(max), |k, v| out.push((k, v)))?;
        self.fit_cache()
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.bulk_load_sorted(entries)?;
        self.fit_cache()
    }

    fn flush(&mut self) -> Result<()> {
        let mut dirty = std::mem::take(&mut self.scratch_children);
        dirty.clear();
        dirty.extend(self.cache.dirty_nodes().map(|(id, _)| id));
        for &id in &dirty {
            if let Some((node, _)) = self.cache.take(id) {
                let written = self.store.write_node(id, &node, NodeChange::Rewrite);
                let mut ev = std::mem::take(&mut self.evicted);
                if let Some(n) = self
                    .cache
                    .after_read(id, node, true, written.is_err(), &mut ev)
                {
                    self.recycle(n);
                }
                self.evicted = ev;
                written?;
            }
        }
        self.scratch_children = dirty;
        self.meta.next_id = self.store.next_id();
        self.meta.generation += 1;
        self.store.store_meta(&self.meta)?;
        self.store.sync()?;
        self.fit_cache()
    }

    fn memory_bytes(&self) -> usize {
        (self.cache.len() + self.pool.len()) * self.layout.node_bytes
            + self.store.memory_bytes()
            + META_MEMORY
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.store.notes();
        notes.extend(self.fit_note());
        notes
    }

    fn data_bound_bytes(&self) -> u64 {
        self.store.data_bound_bytes() as u64
    }

    fn stats(&self) -> IndexStats {
        let mut s = IndexStats::default();
        s.set("height", self.meta.height as f64);
        s.set("entries", self.meta.entries as f64);
        s.set("node_bytes", self.layout.node_bytes as f64);
        s.set("leaf_capacity", self.layout.leaf_capacity as f64);
        s.set("fanout", self.layout.fanout as f64);
        s.set("splits", self.counters.splits as f64);
        s.set("merges", self.counters.merges as f64);
        s.set("redistributions", self.counters.redistributions as f64);
        s.set("cache_capacity_nodes", self.cache.capacity() as f64);
        s.set("cache_nodes", self.cache.len() as f64);
        s.set("cache_hits", self.cache.hits as f64);
        s.set("cache_misses", self.cache.misses as f64);
        s.set("memory_budget", self.budget as f64);
        self.store.report(&mut s);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        self.store.flash_bytes_used()
    }

    fn storage(&self) -> &Storage {
        self.store.storage()
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.store.into_storage()
    }
}

impl BTree {
    /// Deletes the pair, if present: `Index::delete` before the cache is
    /// fitted to the budget.
    fn delete_entry(&mut self, key: u64, value: u64) -> Result<bool> {
        self.layout.format.check(key, value)?;
        let root = self.meta.root;
        let top = self.meta.height.saturating_sub(1);
        match self.delete_from(root, top, (key, value))? {
            Del::NotFound => Ok(false),
            Del::Done => {
                self.meta.entries -= 1;
                Ok(true)
            }
            Del::Underflow(node, cached) => {
                self.meta.entries -= 1;
                if !node.is_leaf() && node.children.len() == 1 {
                    let child = node.children[0];
                    self.recycle(node);
                    self.discard(root)?;
                    if let Some(shapes) = &mut self.shapes {
                        shapes.push(ShapeChange::Collapse {
                            old: root,
                            new: child,
                        });
                    }
                    self.meta.root = child;
                    self.meta.height -= 1;
                } else {
                    self.commit(root, node, cached, NodeChange::Rewrite)?;
                }
                Ok(true)
            }
        }
    }

    /// Invariant 4: the store must be able to give `height + 1` nodes.
    fn ensure_room(&mut self) -> Result<()> {
        let need = self.meta.height as usize + 1;
        if self.store.can_allocate(need) {
            Ok(())
        } else {
            Err(IndexError::Device(crate::device::DeviceError::Full {
                detail: format!(
                    "the node store has no room for the {need} nodes an insert may need"
                ),
            }))
        }
    }
}
