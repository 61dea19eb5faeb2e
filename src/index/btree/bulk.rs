//! Bottom-up bulk loading of the B+-tree (and so of BFTL, whose logical
//! tree is this one): the classic sort-based build. The sorted input fills
//! leaves left to right; each finished node passes its smallest entry and
//! its id to a node being filled one level up; every node is written once,
//! through the node store, as it is finished.
//!
//! **Fill.** Nodes are filled to [`FILL`] = ln 2 ≈ 69% of their capacity,
//! the utilisation a B+-tree built by random inserts settles at (Yao; the
//! "typically 70%" Li et al. 2009 §II-D cites), so a bulk-loaded tree has the
//! node count and height of the tree the random-insert preload would have
//! built, and its first inserts do not all split. The node counts per level
//! are planned from the input's size, with entries spread evenly, so no node
//! is below the half-full minimum (invariant 2 of the tree).
//!
//! **Ids.** Every node gets a fresh id; a leaf's `next` is allocated when
//! the leaf is finished. The empty root the tree had is freed only when the
//! new tree is installed, so a failed bulk load leaves the empty tree in
//! place (the nodes it wrote are unreferenced).

use super::BTree;
use crate::index::bulk::BulkInput;
use crate::index::Result;
use crate::node::{Node, NodeChange, NodeId};

/// The share of a node's capacity a bulk load fills.
pub(super) const FILL: f64 = std::f64::consts::LN_2;

/// Nodes written between two store batches (BFTL commits its index units
/// at the end of a batch).
const NODES_PER_BATCH: u64 = 64;

/// How `items` are spread over the nodes of one level.
#[derive(Clone, Copy, Debug)]
struct Plan {
    nodes: u64,
    base: u64,
    extra: u64,
}

impl Plan {
    /// `items` over nodes of `target` items, kept within
    /// `min..=capacity` per node (a single node, the root, may hold fewer).
    fn new(items: u64, capacity: u64, min: u64, target: u64) -> Plan {
        let fewest = items.div_ceil(capacity).max(1);
        let most = items.checked_div(min).unwrap_or(items).max(1);
        let nodes = items
            .div_ceil(target.max(1))
            .clamp(fewest, most.max(fewest));
        Plan {
            nodes,
            base: items / nodes,
            extra: items % nodes,
        }
    }

    /// Items node `i` holds.
    fn size(&self, i: u64) -> u64 {
        self.base + u64::from(i < self.extra)
    }
}

/// One level being built: the node being filled, its id once known, and
/// how many of the level's nodes are finished.
struct Level {
    plan: Plan,
    node: Node,
    /// A leaf's id, allocated ahead so the previous leaf can point to it.
    id: Option<NodeId>,
    /// The smallest entry under the node being filled.
    low: Option<(u64, u64)>,
    done: u64,
}

impl BTree {
    pub(super) fn bulk_load_sorted(
        &mut self,
        entries: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<()> {
        let empty = self.meta.entries == 0 && self.meta.height <= 1;
        let Some(mut input) = BulkInput::start(empty, self.name, self.layout.format, entries)?
        else {
            return Ok(());
        };
        let n = input.expected();
        let mut levels = self.plan_levels(n);
        let height = levels.len();
        self.store.begin_batch();
        let built = self.fill_levels(&mut input, &mut levels);
        let batch = self.store.end_batch();
        for l in levels {
            self.recycle(l.node);
        }
        // A bad entry explains an early end better than the levels it left
        // unfinished; a device error explains it better than the input
        // cut short.
        if let Some(e) = input.take_error() {
            return Err(e);
        }
        let root = built?;
        batch?;
        let taken = input.finish()?;
        let old_root = self.meta.root;
        if let Some(n) = self.cache.discard(old_root) {
            self.recycle(n);
        }
        self.store.free(old_root)?;
        self.meta.root = root;
        self.meta.height = height as u8;
        self.meta.entries = taken;
        Ok(())
    }

    /// The leaves a bulk load of `n` entries writes.
    pub(crate) fn bulk_leaves(&self, n: u64) -> u64 {
        self.plans(n).first().map_or(0, |p| p.nodes)
    }

    fn plans(&self, n: u64) -> Vec<Plan> {
        let leaf_cap = self.layout.leaf_capacity as u64;
        let fanout = self.layout.fanout as u64;
        let mut plans = vec![Plan::new(
            n,
            leaf_cap,
            self.min_leaf() as u64,
            (leaf_cap as f64 * FILL) as u64,
        )];
        while let Some(below) = plans.last().filter(|p| p.nodes > 1).copied() {
            plans.push(Plan::new(
                below.nodes,
                fanout,
                self.min_children() as u64,
                (fanout as f64 * FILL) as u64,
            ));
        }
        plans
    }

    fn plan_levels(&mut self, n: u64) -> Vec<Level> {
        let plans = self.plans(n);
        plans
            .into_iter()
            .enumerate()
            .map(|(h, plan)| Level {
                plan,
                node: self.blank(h as u8),
                id: None,
                low: None,
                done: 0,
            })
            .collect()
    }

    /// Streams the input into the levels; returns the root's id.
    fn fill_levels(&mut self, input: &mut BulkInput<'_>, levels: &mut [Level]) -> Result<NodeId> {
        let mut written = 0u64;
        for e in input.by_ref() {
            let leaf = &mut levels[0];
            if leaf.node.entries.is_empty() {
                leaf.low = Some(e);
            }
            leaf.node.entries.push(e);
            if leaf.node.entries.len() as u64 == leaf.plan.size(leaf.done) {
                self.finish_node(levels, 0, &mut written)?;
            }
        }
        // Invariant: with the planned sizes summing to the input's size,
        // the last entry finished every level's last node, the root last.
        let top = levels.len() - 1;
        levels[top]
            .id
            .filter(|_| levels[top].done == 1)
            .ok_or_else(|| crate::index::IndexError::BulkLoad("the input ended early".into()))
    }

    /// Writes level `h`'s full node and hands it to the level above.
    fn finish_node(&mut self, levels: &mut [Level], h: usize, written: &mut u64) -> Result<()> {
        let last_of_level = levels[h].done + 1 == levels[h].plan.nodes;
        let id = match levels[h].id.take() {
            Some(id) => id,
            None => self.store.allocate()?,
        };
        if h == 0 && !last_of_level {
            let next = self.store.allocate()?;
            levels[0].node.next = next;
            levels[0].id = Some(next);
        }
        self.store
            .write_node(id, &levels[h].node, NodeChange::Rewrite)?;
        *written += 1;
        if written.is_multiple_of(NODES_PER_BATCH) {
            self.store.end_batch()?;
            self.store.begin_batch();
        }
        let level = levels[h].node.level;
        levels[h].node.clear(level);
        levels[h].done += 1;
        let low = levels[h].low.take();
        if h + 1 == levels.len() {
            // The root: keep its id for the caller.
            levels[h].id = Some(id);
            return Ok(());
        }
        let up = &mut levels[h + 1];
        if up.node.children.is_empty() {
            up.low = low;
        } else if let Some(sep) = low {
            up.node.entries.push(sep);
        }
        up.node.children.push(id);
        if up.node.children.len() as u64 == up.plan.size(up.done) {
            self.finish_node(levels, h + 1, written)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Plan;

    #[test]
    fn plans_keep_nodes_between_half_and_full() {
        for items in [
            1u64, 2, 100, 127, 128, 200, 255, 256, 300, 10_000, 1_000_003,
        ] {
            let p = Plan::new(items, 255, 127, 176);
            let total: u64 = (0..p.nodes).map(|i| p.size(i)).sum();
            assert_eq!(total, items);
            for i in 0..p.nodes {
                assert!(p.size(i) <= 255, "{items}: node {i} over capacity");
                if p.nodes > 1 {
                    assert!(p.size(i) >= 127, "{items}: node {i} underfull");
                }
            }
        }
    }
}
