//! Fitting the tree's node cache to what the budget leaves as the node
//! store's data-bound tables grow (issue #43, [`crate::node::budget`]).
//!
//! An index whose store keeps a data-bound table (BFTL's node translation
//! table, the AS B-tree's address mapping table) calls
//! [`BTree::fit_to_budget`] once built. From then on, after every
//! operation whose end finds the table or the store's budget-bound part
//! changed, the cache is resized to what the budget leaves after the
//! tables (when they are in it), the tree's metadata and the store's
//! budget-bound part (`NodeStore::reserved_bytes`), never past the size it
//! was built with. When even an empty cache leaves too little, the store
//! sheds what it can (`NodeStore::shed`); what still passes the budget is
//! said in the notes, with the smallest budget this data needs. A tree
//! that never calls it keeps its cache as built.

use super::{BTree, META_MEMORY};
use crate::index::Result;
use crate::node::{Budget, Tables};

/// How the tree fits its cache, once asked to.
pub(super) struct Fit {
    tables: Tables,
    /// The most nodes the cache may hold: its capacity when fitting began
    /// (what the budget or `cache_nodes` gave it).
    limit: usize,
    /// Bytes the index holds beside the tree, out of its budget (BFTL's
    /// reservation buffer): for the note's smallest budget.
    beside: usize,
    /// The most data-bound bytes, and the smallest whole budget, seen when
    /// the tree passed its budget even with its minimum working set.
    passed: Option<(usize, usize)>,
    /// Data-bound bytes the index holds outside the tree (the Buffered-B+
    /// tree's buffer directory and ADAPT's counters), set by the index
    /// after each of its operations: the cache makes room for them too.
    tables_beside: usize,
    /// The (data-bound, reserved) bytes the cache was last fitted to.
    last: Option<(usize, usize)>,
    /// Inside a batch (`BTree::begin_batch`): the index's operation is
    /// not over, so nothing is fitted until `end_batch`.
    pub(super) in_batch: bool,
}

impl BTree {
    /// Keeps the node cache within what the budget leaves beside the
    /// store's data-bound tables (`tables`: whether they are paid from the
    /// budget) from now on, starting now. `beside`: bytes the index holds
    /// out of the same budget outside the tree, for the notes.
    pub fn fit_to_budget(&mut self, tables: Tables, beside: usize) -> Result<()> {
        self.fit = Some(Fit {
            tables,
            limit: self.cache.capacity(),
            beside,
            tables_beside: 0,
            passed: None,
            last: None,
            in_batch: false,
        });
        self.fit_cache()
    }

    /// Resizes the cache (and has the store shed) to fit the budget, if
    /// the tables or the store's reserve changed since the last fit.
    /// Between operations only (no node out of the cache). It runs after
    /// every operation, and most find nothing changed: that test is in
    /// line, the fit itself out of line.
    #[inline]
    pub(super) fn fit_cache(&mut self) -> Result<()> {
        let Some(fit) = self.fit.as_ref().filter(|f| !f.in_batch) else {
            return Ok(());
        };
        let (data, reserved) = self.store.footprint();
        let data = data + fit.tables_beside;
        if fit.last == Some((data, reserved)) {
            return Ok(());
        }
        self.refit(data, reserved)
    }

    /// [`BTree::fit_cache`] to `data` data-bound bytes beside a store
    /// reserving `reserved`, which changed since the last fit.
    #[inline(never)]
    fn refit(&mut self, data: usize, mut reserved: usize) -> Result<()> {
        let Some(fit) = self.fit.as_ref() else {
            return Ok(());
        };
        let (tables, limit) = (fit.tables, fit.limit);
        // The nodes kept for reuse are charged like the metadata: the
        // cache and the store share what is left after both.
        let pool = self.pool_cap * self.layout.node_bytes;
        let room = Budget::new(self.budget, tables)
            .for_budget_bound(data)
            .saturating_sub(META_MEMORY + pool);
        if reserved > room {
            self.store.shed(room)?;
            reserved = self.store.reserved_bytes();
        }
        let nodes = (room.saturating_sub(reserved) / self.layout.node_bytes).min(limit);
        if nodes != self.cache.capacity() {
            let mut evicted = std::mem::take(&mut self.evicted);
            self.cache.set_capacity(nodes, &mut evicted);
            self.evicted = evicted;
            self.write_evicted()?;
        }
        let reserved = self.store.reserved_bytes();
        if let Some(fit) = &mut self.fit {
            if reserved > room {
                let counted = if tables == Tables::InBudget { data } else { 0 };
                let needed = counted + META_MEMORY + pool + reserved + fit.beside;
                let (d, n) = fit.passed.unwrap_or((0, 0));
                fit.passed = Some((d.max(data), n.max(needed)));
            }
            fit.last = Some((data, reserved));
        }
        Ok(())
    }

    /// Tells the fit the data-bound bytes the index holds outside the
    /// tree now (`bytes`) and refits the cache to them. Between the
    /// index's operations only; without [`BTree::fit_to_budget`], nothing.
    pub fn fit_tables_beside(&mut self, bytes: usize) -> Result<()> {
        match &mut self.fit {
            Some(fit) if fit.tables_beside != bytes => fit.tables_beside = bytes,
            _ => return Ok(()),
        }
        self.fit_cache()
    }

    /// The note for a budget the tree passed with its minimum working set.
    pub(super) fn fit_note(&self) -> Option<String> {
        let fit = self.fit.as_ref()?;
        let (data, needed) = fit.passed?;
        let budget = self.budget + fit.beside;
        Some(match fit.tables {
            Tables::InBudget => format!(
                "data-bound tables need {data} B, more than the {budget} B budget leaves: this \
                 data needs a budget of at least {needed} B; the run went on with the minimum \
                 working set (no node cache)"
            ),
            Tables::Outside => format!(
                "the minimum working set needs {needed} B beside the data-bound tables \
                 ({data} B, outside the budget), more than the {budget} B budget"
            ),
        })
    }
}
