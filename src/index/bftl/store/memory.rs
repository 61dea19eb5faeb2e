//! The RAM side of BFTL's store (issue #43, `node::budget`): what its
//! data-bound tables cost at the paper's layout, and how its budget-bound
//! structures (the batch's pool of index units, the commit views) are sized
//! from what the tables, the node cache and the working set leave.

use super::super::unit::Unit;
use super::super::views;
use super::BftlStore;
use crate::node::{Node, NodeError, NodeId, NodeStore};

impl BftlStore {
    /// How many views the budget leaves room for beside the data-bound
    /// tables (when they are in it), the node cache and the store's
    /// working set.
    pub(super) fn view_limit(&self) -> usize {
        self.budget
            .for_budget_bound(self.data_bound_bytes())
            .saturating_sub(self.cache_bytes + self.working_memory())
            / views::view_bytes(&self.layout)
    }

    /// The node translation table as held (`store::ntt`): close to the
    /// paper's layout (§3.4, Fig. 8: a 4-byte entry per node and a 4-byte
    /// LBA per listed sector, what Roh et al. 2009 Fig. 7 measures), plus a
    /// length byte per node, the arena's holes and spare room (each within
    /// an eighth), and the sectors' 2-byte reference counts and the free
    /// list's 4-byte LBAs. Data-bound: O(N·C) for N nodes.
    pub(super) fn ntt_bytes(&self) -> usize {
        self.ntt.held_bytes() + self.refs.held_bytes() + self.free_lbas.capacity() * 4
    }

    /// Budget-bound RAM besides the views: the free id list, the cached
    /// top-level nodes and the batch's pending units.
    pub(super) fn working_memory(&self) -> usize {
        self.ids.free.len() * 4 + self.hot.len() * self.layout.node_bytes + self.pool_memory()
    }

    /// Adds the units of one change to the batch's pool; `copy`: the
    /// changed node's id and what it now is, for its RAM copies (`None`
    /// when it has none: FlashDB's unread log-mode append). A pool that would pass what the budget leaves it
    /// is committed first, so a batch may take more than one commit; a
    /// change's units are never split between two (a reset and the units
    /// after it stay together). `taken`: the scratch units' capacity when
    /// `units` is the scratch, taken out of the store meanwhile.
    ///
    /// The node's RAM copies (its batch view, a cached top-level node) take
    /// the change only after that commit: the commit writes a node whole
    /// from them (a compaction, FlashDB's node page), and such an image
    /// holding a change whose units come after it in the list replays that
    /// change twice, a delete then finding its entry absent (`Corrupt`).
    pub(super) fn pend(
        &mut self,
        copy: Option<(NodeId, &Node)>,
        units: &[Unit],
        taken: usize,
    ) -> Result<(), NodeError> {
        let limit = self.pool_limit(taken);
        if !self.pool.is_empty() && self.pool.len() + units.len() > limit {
            self.commit()?;
            self.early_commits += 1;
        }
        if let Some((id, node)) = copy {
            self.hot.remember(id, node);
            self.keep_view(id, node);
        }
        let need = self.pool.len() + units.len();
        if need > self.pool.capacity() {
            // Grown by doubling up to the limit, not past it.
            let grown = (2 * self.pool.capacity()).clamp(16, limit.max(need));
            self.pool.reserve_exact(grown.max(need) - self.pool.len());
        }
        self.pool.extend_from_slice(units);
        // The pool's growth leaves the views less.
        let limit = self.view_limit();
        self.views.trim(limit);
        Ok(())
    }

    /// Units the pool may hold: what the budget leaves beside the tables,
    /// the free list, the cached top levels and the scratch units, at
    /// twice a unit's RAM (`pool_memory`); at least a sector's (Λ), the
    /// minimum working set.
    pub(super) fn pool_limit(&self, taken: usize) -> usize {
        let unit = std::mem::size_of::<Unit>();
        let room = self
            .budget
            .for_budget_bound(self.data_bound_bytes())
            .saturating_sub(
                self.ids.free.len() * 4
                    + self.hot.len() * self.layout.node_bytes
                    + 2 * self.scratch.capacity().max(taken) * unit,
            );
        (room / (2 * unit)).max(self.lambda)
    }

    /// RAM of the batch's pending units (the pool, whose allocation is
    /// kept between commits) and of their packed copy while a commit
    /// writes them (about as large: FIRST-FIT copies every unit once).
    pub(super) fn pool_memory(&self) -> usize {
        2 * (self.pool.capacity() + self.scratch.capacity()) * std::mem::size_of::<Unit>()
    }

    /// RAM the batch views take: the views of the batch and the spare
    /// nodes kept for the next (`bftl::views`), at a full node's each.
    pub(super) fn view_memory(&self) -> usize {
        self.views.held() * views::view_bytes(&self.layout)
    }

    /// Node translation table entries (LBAs over all lists).
    pub fn ntt_entries(&self) -> usize {
        self.ntt.entries()
    }
}
