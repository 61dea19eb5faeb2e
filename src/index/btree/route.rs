//! What an index built over the B+-tree needs beyond `Index`: the root,
//! one routing step at a time through the node cache, the children a key
//! range reaches (with the separators around each), the node store, and a
//! record of the tree's shape changes. The Buffered-B+ tree
//! ([`crate::index::latree`]) keeps a buffer per subtree root with these;
//! the walks check every node's level as a descent does.

use crate::index::Result;
use crate::node::walk::expect_level;
use crate::node::{Node, NodeId, NodeStore};

use super::{leaf_above_leaf_level, BTree};

/// A change of the tree's shape, recorded for an index that keeps state
/// per node above the leaves (the Buffered-B+ tree's buffers, which must
/// follow their subtree roots through splits, merges, redistributions and
/// root changes). Levels count from the leaves (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeChange {
    /// `left` at `level` split; `right` (new) holds the entries from `sep`.
    Split {
        level: u8,
        left: NodeId,
        right: NodeId,
        sep: (u64, u64),
    },
    /// `right` at `level` was merged into its left sibling `left` and freed.
    Merge {
        level: u8,
        left: NodeId,
        right: NodeId,
    },
    /// Siblings `left` and `right` at `level` redistributed their entries;
    /// `right` now starts at `sep`.
    Redistribute {
        level: u8,
        left: NodeId,
        right: NodeId,
        sep: (u64, u64),
    },
    /// The root `old` split and `new`, one level up, became the root.
    Grow { old: NodeId, new: NodeId },
    /// The root `old` was left with one child, `new`, which became the root.
    Collapse { old: NodeId, new: NodeId },
}

impl BTree {
    /// The root's id and level (the leaves are level 0).
    pub fn root(&self) -> (NodeId, u8) {
        (self.meta.root, self.meta.height.saturating_sub(1))
    }

    /// Starts (or stops) recording [`ShapeChange`]s.
    pub fn record_shapes(&mut self, on: bool) {
        self.shapes = on.then(Vec::new);
    }

    /// Moves the shape changes recorded since the last call into `out`.
    pub fn take_shapes(&mut self, out: &mut Vec<ShapeChange>) {
        if let Some(shapes) = &mut self.shapes {
            out.append(shapes);
        }
    }

    /// Takes internal node `id` (at `level` > 0) out of the cache or reads
    /// it, checking its level: (node, cached, dirty), as `fetch`.
    fn fetch_internal(&mut self, id: NodeId, level: u8) -> Result<(Node, bool, bool)> {
        let (node, cached, dirty) = self.fetch(id)?;
        let wrong = match expect_level(&node, id, id as u64, level) {
            Err(e) => Some(e.into()),
            Ok(()) if node.is_leaf() => Some(leaf_above_leaf_level(id)),
            Ok(()) => None,
        };
        match wrong {
            Some(e) => {
                self.release(id, node, cached, dirty)?;
                Err(e)
            }
            None => Ok((node, cached, dirty)),
        }
    }

    /// The child of internal node `id` (at `level` > 0) whose subtree holds
    /// `entry`, read through the cache like a search step.
    pub fn child_toward(&mut self, id: NodeId, level: u8, entry: (u64, u64)) -> Result<NodeId> {
        let (node, cached, dirty) = self.fetch_internal(id, level)?;
        let child = node.children[node.child_slot(entry)];
        self.release(id, node, cached, dirty)?;
        Ok(child)
    }

    /// Inserts `entry` by appending it to its leaf unread, where the node
    /// store can ([`NodeStore::append_to_leaf`]: FlashDB's log mode): the
    /// internal nodes on the way are read as a search reads them. `false`,
    /// with nothing inserted, when the store cannot (or the leaf is the
    /// root, or in the node cache): insert as usual then.
    pub fn append_insert(&mut self, key: u64, value: u64) -> Result<bool> {
        self.layout.format.check(key, value)?;
        let (mut id, mut level) = self.root();
        if level == 0 {
            return Ok(false);
        }
        while level > 0 {
            id = self.child_toward(id, level, (key, value))?;
            level -= 1;
        }
        if self.cache.contains(id) || !self.store.append_to_leaf(id, (key, value))? {
            return Ok(false);
        }
        self.meta.entries += 1;
        Ok(true)
    }

    /// Appends to `out` the children of internal node `id` (at `level` >
    /// 0) whose subtrees may hold keys in `lo..=hi`.
    pub fn children_within(
        &mut self,
        id: NodeId,
        level: u8,
        lo: u64,
        hi: u64,
        out: &mut Vec<NodeId>,
    ) -> Result<()> {
        let (node, cached, dirty) = self.fetch_internal(id, level)?;
        let first = node.child_slot((lo, 0));
        let last = node.child_slot((hi, u64::MAX));
        out.extend_from_slice(&node.children[first..=last]);
        self.release(id, node, cached, dirty)
    }

    /// As [`BTree::children_within`], each child with the separators
    /// around it in `id` (`None` at the node's edges).
    #[allow(clippy::type_complexity)]
    pub fn children_with_bounds(
        &mut self,
        id: NodeId,
        level: u8,
        lo: u64,
        hi: u64,
        out: &mut Vec<(NodeId, Option<(u64, u64)>, Option<(u64, u64)>)>,
    ) -> Result<()> {
        let (node, cached, dirty) = self.fetch_internal(id, level)?;
        let first = node.child_slot((lo, 0));
        let last = node.child_slot((hi, u64::MAX));
        for i in first..=last {
            let left = i.checked_sub(1).map(|j| node.entries[j]);
            out.push((node.children[i], left, node.entries.get(i).copied()));
        }
        self.release(id, node, cached, dirty)
    }

    /// The node store (an index that keeps more than nodes on the same
    /// storage reaches the device through it).
    pub fn store_mut(&mut self) -> &mut dyn NodeStore {
        self.store.as_mut()
    }

    /// The node store, read-only.
    pub fn store(&self) -> &dyn NodeStore {
        self.store.as_ref()
    }
}
