//! The memory budget of an index, split by kind (issue #43).
//!
//! Every structure an index keeps in RAM is one of two kinds:
//!
//! - **data-bound**: a table with one entry per node, sector or buffer that
//!   the paper's design keeps in RAM (node tables, BFTL's node translation
//!   table, FlashDB's mode table, the AS B-tree's address mapping table,
//!   the Buffered-B+ tree's buffer directory and ADAPT's counters). It
//!   grows with the data, laid out as compactly as the paper's structure,
//!   and is reported as a named index stat (one of [`DATA_BOUND_LINES`]).
//! - **budget-bound**: everything else (caches, write and reservation
//!   buffers, buffer pools and their frames, merge buffers, emptying
//!   scratch, spills, delayed lookups, commit views, log buffers). It is
//!   sized from the budget, so that it never passes what the budget leaves.
//!
//! By default (`tables=in-budget`) the data-bound tables are paid out of
//! the budget first and the budget-bound structures share the rest, which
//! shrinks as the tables grow: the whole count stays within the budget at
//! every point of a run, as long as the tables alone fit. An experiment
//! that follows a paper keeping a table outside its budget (the LA
//! paper's node table, Agrawal et al. 2009 §6) passes `tables=outside`:
//! the budget-bound structures then have the whole budget, and the tables
//! are named lines beside it.

use crate::node::IndexStats;

/// The index stats that name data-bound tables (bytes each). A runner
/// excludes exactly these from a budget that keeps tables outside it,
/// never a budget-bound line.
pub const DATA_BOUND_LINES: [&str; 6] = [
    "node_table_bytes",
    "node_translation_table_bytes",
    "mode_table_bytes",
    "address_mapping_table_bytes",
    "buffer_directory_bytes",
    "adapt_counter_bytes",
];

/// Bytes of every data-bound line `stats` reports.
pub fn data_bound_bytes(stats: &IndexStats) -> u64 {
    DATA_BOUND_LINES
        .iter()
        .filter_map(|k| stats.get(k))
        .sum::<f64>() as u64
}

/// Whether an index pays its data-bound tables out of its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tables {
    /// The default: tables first, the rest for budget-bound structures.
    #[default]
    InBudget,
    /// The tables beside the budget (a paper that excludes them, §6).
    Outside,
}

impl Tables {
    /// Parses the parameter value `in-budget` or `outside`.
    pub fn parse(text: &str) -> Option<Tables> {
        match text {
            "in-budget" => Some(Tables::InBudget),
            "outside" => Some(Tables::Outside),
            _ => None,
        }
    }
}

/// An index's budget: `total` bytes, and where its tables stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub total: usize,
    pub tables: Tables,
}

impl Budget {
    pub fn new(total: usize, tables: Tables) -> Budget {
        Budget { total, tables }
    }

    /// What the budget-bound structures may hold while the data-bound
    /// tables hold `data_bound` bytes: the budget less the tables when
    /// they are in it (0 when they alone pass it), the whole budget when
    /// they are outside.
    pub fn for_budget_bound(&self, data_bound: usize) -> usize {
        match self.tables {
            Tables::InBudget => self.total.saturating_sub(data_bound),
            Tables::Outside => self.total,
        }
    }

    /// Whether `data_bound` bytes of tables alone pass a budget they are
    /// paid from (the run then says so, with the budget this data needs).
    pub fn tables_pass(&self, data_bound: usize) -> bool {
        self.tables == Tables::InBudget && data_bound > self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_in_the_budget_leave_the_rest_outside_leave_all() {
        let b = Budget::new(1000, Tables::InBudget);
        assert_eq!(b.for_budget_bound(300), 700);
        assert_eq!(b.for_budget_bound(1200), 0);
        assert!(b.tables_pass(1200) && !b.tables_pass(1000));
        let o = Budget::new(1000, Tables::Outside);
        assert_eq!(o.for_budget_bound(1200), 1000);
        assert!(!o.tables_pass(1200));
        assert_eq!(Tables::parse("outside"), Some(Tables::Outside));
        assert_eq!(Tables::parse("in-budget"), Some(Tables::InBudget));
        assert_eq!(Tables::parse("inside"), None);
        let mut s = IndexStats::default();
        s.set("node_table_bytes", 100.0);
        s.set("scratch_bytes", 50.0);
        s.set("mode_table_bytes", 8.0);
        assert_eq!(data_bound_bytes(&s), 108);
    }
}
