//! The log buffers of an [`IplStore`]: one per node being changed, each a
//! log sector's worth of deltas, written to a log sector of the node's
//! unit when evicted or full. They are a fixed area sized by the budget
//! (module doc of `ipl.rs`): the buffers held, in use or spare, are the
//! ones charged.

use crate::node::delta::{self, Delta};
use crate::node::{NodeError, NodeId};

use super::{IplStore, LogBuffer, NOWHERE};

impl IplStore {
    /// Log buffers the budget allows beside the node table now: a quarter
    /// of what it leaves (or `log_buffers` as given), never more than all
    /// of it, at least one (the minimum working set).
    pub(super) fn buffer_limit(&self) -> usize {
        let left = self.budget.for_budget_bound(self.node_table_bytes()) / self.page_size;
        self.buffers_given.unwrap_or(left / 4).min(left).max(1)
    }

    /// Resizes the log buffers to what the budget leaves beside the node
    /// table, writing the least recently updated ones past the new limit.
    pub(super) fn fit_log_buffers(&mut self) -> Result<(), NodeError> {
        self.max_buffers = self.buffer_limit();
        let r = self.flush_buffers_past(self.max_buffers);
        self.size_spares();
        r
    }

    /// Allocates or frees spare log buffers so that the buffers held, in
    /// use or spare, are the `max_buffers` charged (`reserved_bytes`): the
    /// log buffers are a fixed area sized by the budget, each a log
    /// sector's worth of deltas (about a page) from its creation.
    pub(super) fn size_spares(&mut self) {
        let want = self.max_buffers.saturating_sub(self.buffers.len());
        self.spare_lists.truncate(want);
        self.spare_lists.shrink_to(want);
        while self.spare_lists.len() < want {
            self.spare_lists.push(Vec::with_capacity(self.log_capacity));
        }
    }

    /// Drops node `id`'s log buffer, if any, keeping its memory as a spare.
    pub(super) fn drop_buffer(&mut self, id: NodeId) {
        if let Some(b) = self.buffers.iter().position(|b| b.id == id) {
            // In order: the buffers' order decides which a flush writes
            // first.
            let dropped = self.buffers.remove(b);
            self.spare_lists.push(dropped.deltas);
        }
    }

    /// Writes the least recently updated log buffers until `limit` are left.
    pub(super) fn flush_buffers_past(&mut self, limit: usize) -> Result<(), NodeError> {
        while self.buffers.len() > limit {
            let oldest = (0..self.buffers.len())
                .min_by_key(|&i| self.buffers[i].tick)
                .unwrap_or(0);
            self.flush_buffer(oldest)?;
        }
        Ok(())
    }

    /// Writes log buffer `b` to a log sector of its node's unit, merging the
    /// unit first when its log area or the node's sector list is full.
    pub(super) fn flush_buffer(&mut self, b: usize) -> Result<(), NodeError> {
        let id = self.buffers[b].id;
        let (unit, logs) = match self.places.get(id as usize) {
            Some(p) if p.unit != NOWHERE => (p.unit, p.logs.len()),
            _ => {
                let dropped = self.buffers.swap_remove(b);
                self.spare_lists.push(dropped.deltas);
                return Ok(());
            }
        };
        if logs >= self.max_deltas || self.units[unit as usize].log_used >= self.log_pages {
            // The merge rewrites the node with its buffered deltas.
            return self.merge(unit).map(|_| ());
        }
        let log = self.units[unit as usize].log_used;
        // Used from now on, programmed or not (invariant 1).
        self.units[unit as usize].log_used += 1;
        let mut page = std::mem::take(&mut self.page_buf);
        let mut at = delta::start_page(&mut page, self.seq);
        self.seq += 1;
        let bytes = delta::delta_record_bytes(self.layout.format);
        for d in &self.buffers[b].deltas {
            delta::put_delta(&mut page[at..at + bytes], id, d, self.layout.format);
            at += bytes;
        }
        delta::seal_page(&mut page, at);
        let r = self.program(self.log_page(unit, log), &page[..at]);
        self.page_buf = page;
        r?;
        self.counters.log_sectors_written += 1;
        self.places[id as usize].logs.push(log);
        self.current_bytes += 2;
        let written = self.buffers.swap_remove(b);
        self.spare_lists.push(written.deltas);
        Ok(())
    }

    /// Adds `d` to node `id`'s log buffer.
    pub(super) fn log_delta(&mut self, id: NodeId, d: Delta) -> Result<(), NodeError> {
        self.tick += 1;
        let b = match self.buffers.iter().position(|b| b.id == id) {
            Some(b) => b,
            None => {
                self.flush_buffers_past(self.max_buffers - 1)?;
                let mut deltas = self
                    .spare_lists
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(self.log_capacity));
                deltas.clear();
                self.buffers.push(LogBuffer {
                    id,
                    deltas,
                    tick: 0,
                });
                self.buffers.len() - 1
            }
        };
        let buffer = &mut self.buffers[b];
        buffer.deltas.push(d);
        buffer.tick = self.tick;
        if buffer.deltas.len() >= self.log_capacity {
            self.flush_buffer(b)?;
        }
        Ok(())
    }

    pub(super) fn flush_all_buffers(&mut self) -> Result<(), NodeError> {
        while !self.buffers.is_empty() {
            self.flush_buffer(self.buffers.len() - 1)?;
        }
        Ok(())
    }
}
