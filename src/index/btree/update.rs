//! An update in place: `update(key, old, new)` as one descent that
//! rewrites the leaf holding `(key, old)` once, as a B+-tree updates a
//! record (Kim et al. 2014 §4.1 runs "update operations" on the B+-tree and
//! the AS B-tree; Li et al. 2009 §III's W-Search and W-Update mixes hold
//! updates too). The trait's default — a delete, then an insert — descends
//! twice and may write the leaf twice.
//!
//! The update stays in one leaf when both pairs route to it: at every
//! internal node on the way down `(key, old)` and `(key, new)` take the
//! same child. The leaf's count does not change (one pair out, one in), so
//! no split, merge or redistribution follows and no separator moves.
//! Everything else — `old` absent, `new` already present, the two pairs in
//! different subtrees (a key whose values straddle a separator), or a
//! node store that records each change as its own entry rather than
//! rewriting nodes (the delta schemes' logs) — takes the default path, so
//! the result is always exactly what delete-then-insert gives.
//!
//! Invariant (the tree's 3): every node taken out of the cache on the way
//! down is put back or committed before this returns, even on error.

use crate::index::{IndexError, Result};
use crate::node::walk::expect_level;
use crate::node::{NodeChange, NodeId};

use super::{leaf_above_leaf_level, BTree};

/// What the one-descent attempt did.
pub(super) enum InPlace {
    /// The leaf was rewritten with `new` in place of `old`.
    Done,
    /// Nothing changed; take the delete-then-insert path.
    Declined,
}

impl BTree {
    /// Replaces `(key, old)` by `(key, new)` in one descent when both pairs
    /// belong to the same leaf and the change is a pure swap (module doc).
    pub(super) fn update_in_place(&mut self, key: u64, old: u64, new: u64) -> Result<InPlace> {
        if old == new || self.store.records_each_change() {
            return Ok(InPlace::Declined);
        }
        let (a, b) = ((key, old), (key, new));
        let (mut id, mut level): (NodeId, u8) = self.root();
        while level > 0 {
            let (node, cached, dirty) = self.fetch(id)?;
            let wrong = match expect_level(&node, id, id as u64, level) {
                Err(e) => Some(e.into()),
                Ok(()) if node.is_leaf() => Some(leaf_above_leaf_level(id)),
                Ok(()) => None,
            };
            if let Some(e) = wrong {
                self.release(id, node, cached, dirty)?;
                return Err(e);
            }
            let slot = node.child_slot(a);
            let same = slot == node.child_slot(b);
            let child = node.children[slot];
            self.release(id, node, cached, dirty)?;
            if !same {
                return Ok(InPlace::Declined);
            }
            id = child;
            level -= 1;
        }
        let (mut node, cached, dirty) = self.fetch(id)?;
        let wrong = match expect_level(&node, id, id as u64, 0) {
            Err(e) => Some(e.into()),
            Ok(()) if !node.is_leaf() => Some(IndexError::Corrupt {
                page: id as u64,
                detail: format!("node {id} at the leaf level has children"),
            }),
            Ok(()) => None,
        };
        if let Some(e) = wrong {
            self.release(id, node, cached, dirty)?;
            return Err(e);
        }
        let (Ok(from), Err(to)) = (
            node.entries.binary_search(&a),
            node.entries.binary_search(&b),
        ) else {
            self.release(id, node, cached, dirty)?;
            return Ok(InPlace::Declined);
        };
        // `to` counts `a` among the entries before `b` when `a < b`; with
        // `a` gone the slot is one less.
        node.entries.remove(from);
        let to = if from < to { to - 1 } else { to };
        node.entries.insert(to, b);
        self.commit(id, node, cached, NodeChange::Rewrite)?;
        Ok(InPlace::Done)
    }
}
