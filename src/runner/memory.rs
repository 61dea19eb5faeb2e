//! The runner's count of an index's memory (`RunOptions::memory_limit`,
//! `exclude_named`): the peak after every operation and flush, and its
//! parts by kind (`node::budget`). The data-bound part is
//! `Index::data_bound_bytes`, never a whole `stats` (which may walk a
//! table), as it is read after every operation.

use super::{RunError, RunOptions};
use crate::index::Index;
use crate::node::budget::{Budget, Tables};

/// The peaks of an index's counted memory, whole and by kind
/// (`node::budget`). The data-bound tables are read from the index's stats
/// after every operation where the budget keeps them outside
/// (`RunOptions::exclude_named`), else only while the count passes the
/// budget: the tables are part of the count, so they alone can pass the
/// budget only then, and a run within its budget reads no stats.
pub(super) struct MemoryPeak {
    pub(super) peak: u64,
    /// The peak of the count less the data-bound lines (tracked with
    /// `exclude_named`).
    pub(super) unnamed_peak: u64,
    /// The largest data-bound tables read.
    tables_peak: u64,
    /// The most the budget-bound structures held beyond what the budget
    /// left them (`Budget::for_budget_bound`).
    pub(super) excess: u64,
    /// Neither `exclude_named` nor a `memory_limit`: a count within the
    /// budget changes nothing but the peak ([`MemoryPeak::check`]).
    peak_only: bool,
    /// The count above which the budget is passed (`u64::MAX`: no budget).
    over_above: u64,
}

impl MemoryPeak {
    pub(super) fn new(index: &dyn Index, options: &RunOptions) -> MemoryPeak {
        let mut m = MemoryPeak {
            peak: 0,
            unnamed_peak: 0,
            tables_peak: 0,
            excess: 0,
            peak_only: !options.exclude_named && options.memory_limit.is_none(),
            over_above: match options.memory_budget {
                0 => u64::MAX,
                budget => budget,
            },
        };
        m.measure(index.memory_bytes() as u64, index, options);
        m
    }

    fn budget(options: &RunOptions) -> Budget {
        let tables = if options.exclude_named {
            Tables::Outside
        } else {
            Tables::InBudget
        };
        Budget::new(options.memory_budget as usize, tables)
    }

    /// Takes `now`, the index's count, into the peaks.
    fn measure(&mut self, now: u64, index: &dyn Index, options: &RunOptions) {
        self.peak = self.peak.max(now);
        let budgeted = options.memory_budget > 0;
        let over = budgeted && now > options.memory_budget;
        if !(options.exclude_named || over) {
            return;
        }
        let tables = index.data_bound_bytes();
        self.tables_peak = self.tables_peak.max(tables);
        let besides = now.saturating_sub(tables);
        if options.exclude_named {
            self.unnamed_peak = self.unnamed_peak.max(besides);
        }
        if budgeted {
            let left = Self::budget(options).for_budget_bound(tables as usize) as u64;
            self.excess = self.excess.max(besides.saturating_sub(left));
        }
    }

    /// The smallest budget the run's data needs, where its data-bound
    /// tables alone passed a budget they are paid from.
    pub(super) fn tables_need(&self, options: &RunOptions) -> Option<u64> {
        Self::budget(options)
            .tables_pass(self.tables_peak as usize)
            .then_some(self.tables_peak)
    }

    /// Measures, then [`RunError::OverBudget`] when the peak the limit
    /// holds passed `options.memory_limit`. Runs after every operation:
    /// in line, only the common case, a count within the budget with
    /// nothing but the peak to keep, where `measure` would return after
    /// the peak and no limit can be passed.
    #[inline]
    pub(super) fn check(
        &mut self,
        index: &dyn Index,
        options: &RunOptions,
        op_number: u64,
    ) -> Result<(), RunError> {
        let now = index.memory_bytes() as u64;
        if self.peak_only && now <= self.over_above {
            self.peak = self.peak.max(now);
            return Ok(());
        }
        self.check_all(now, index, options, op_number)
    }

    #[inline(never)]
    fn check_all(
        &mut self,
        now: u64,
        index: &dyn Index,
        options: &RunOptions,
        op_number: u64,
    ) -> Result<(), RunError> {
        self.measure(now, index, options);
        let held = if options.exclude_named {
            self.unnamed_peak
        } else {
            self.peak
        };
        match options.memory_limit {
            Some(limit) if held > limit => Err(RunError::OverBudget {
                op_number,
                bytes: held,
                limit,
                tables: index.data_bound_bytes(),
            }),
            _ => Ok(()),
        }
    }
}
