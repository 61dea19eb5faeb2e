//! The logical views of the nodes a BFTL batch touches (Wu et al. 2003 §3.3–3.4),
//! bounded by the memory budget.
//!
//! While a batch of dirty records is applied, each node read or written
//! keeps its logical view here, so a node the batch touches many times is
//! built from its sectors once per commit and a compaction right after the
//! commit needs no second read. With a reservation buffer of b records a
//! batch touches up to b leaves and their parents: at Kim et al. 2014 §4.1's
//! setting (b = 256, 8 KiB nodes) over a MiB, more than the budget.
//!
//! So the views take only what the budget leaves after every other
//! structure the store holds (the node translation table, FlashDB's mode
//! table, the cached top levels): `limit` views of `view_bytes` each. A
//! batch that needs more drops its least recently used view; a node whose
//! view was dropped is rebuilt from its sectors and the batch's pending
//! units when it is needed again (one more read of its list).
//!
//! Memory: a batch's views are kept between batches as spare nodes (their
//! entries' room kept) for the next batch to fill, as many as the most a
//! batch has held, fewer when the budget leaves less: the runner samples
//! memory between operations, and a commit needs that RAM each time the
//! reservation buffer fills, so what is charged between operations is
//! what the next commit's views will take, and is held.
//!
//! Invariant: outside a batch no view is held; inside one at most
//! `limit` (as computed when a view is added).

use std::collections::BTreeMap;

use crate::node::{Node, NodeId};

/// Bytes one view takes beyond its entries and children: the `Node`
/// value and its map entry.
const VIEW_OVERHEAD: usize = 64;

/// A batch's views, least recently used dropped first.
#[derive(Default)]
pub(super) struct CommitViews {
    /// Node → (view, last use); `None` outside a batch.
    views: Option<BTreeMap<NodeId, (Node, u64)>>,
    /// Nodes of views of past batches, reused by the next (module doc).
    spare: Vec<Node>,
    clock: u64,
    /// The most views one batch held.
    pub(super) most: usize,
    /// Views dropped to stay within the budget, over the index's life.
    pub(super) dropped: u64,
}

impl CommitViews {
    pub(super) fn begin(&mut self) {
        self.views = Some(BTreeMap::new());
    }

    /// Ends the batch; its views' nodes are kept as spares, at most
    /// `limit` in all.
    pub(super) fn end(&mut self, limit: usize) {
        if let Some(views) = self.views.take() {
            self.spare.extend(views.into_values().map(|v| v.0));
        }
        self.spare.truncate(limit);
    }

    pub(super) fn get(&self, id: NodeId) -> Option<&Node> {
        self.views.as_ref().and_then(|v| v.get(&id)).map(|v| &v.0)
    }

    pub(super) fn remove(&mut self, id: NodeId) {
        if let Some(v) = self.views.as_mut().and_then(|v| v.remove(&id)) {
            self.spare.push(v.0);
        }
    }

    /// View nodes held now: the batch's views and the spares.
    pub(super) fn held(&self) -> usize {
        self.views.as_ref().map_or(0, BTreeMap::len) + self.spare.len()
    }

    /// Drops the least recently used views until at most `limit` are held
    /// (the budget left them less room: the batch's pool grew), and the
    /// spares past what that leaves.
    pub(super) fn trim(&mut self, limit: usize) {
        let Some(views) = &mut self.views else {
            self.spare.truncate(limit);
            return;
        };
        while views.len() > limit {
            let Some(oldest) = views.iter().min_by_key(|(_, v)| v.1).map(|(&k, _)| k) else {
                return;
            };
            views.remove(&oldest);
            self.dropped += 1;
        }
        self.spare.truncate(limit - views.len());
    }

    /// Keeps `node` as node `id`'s view, holding at most `limit` views.
    pub(super) fn keep(&mut self, id: NodeId, node: &Node, limit: usize) {
        let Some(views) = &mut self.views else {
            return;
        };
        self.clock += 1;
        if let Some(v) = views.get_mut(&id) {
            v.0.clone_from(node);
            v.1 = self.clock;
            return;
        }
        // Room for this one; with `limit` 0, no view is kept.
        self.trim(limit.saturating_sub(1));
        if limit == 0 {
            return;
        }
        let Some(views) = &mut self.views else {
            return;
        };
        let mut view = self.spare.pop().unwrap_or_default();
        view.clone_from(node);
        views.insert(id, (view, self.clock));
        self.most = self.most.max(views.len());
    }
}

/// Bytes one view of a node of `layout` can hold in RAM: a leaf's entries
/// (16 bytes each in a `Node`, one more than a full leaf before its split)
/// or an internal node's separators and children (4 bytes each), and the
/// view's overhead.
pub(super) fn view_bytes(layout: &crate::node::NodeLayout) -> usize {
    let leaf = (layout.leaf_capacity + 1) * 16;
    let internal = layout.fanout * 16 + (layout.fanout + 1) * 4;
    leaf.max(internal) + VIEW_OVERHEAD
}
