//! Immediate lookups and ranges (Agrawal et al. 2009 §5.1 "Lookups"):
//! the walk down the paths a key range takes, with the adaptive policy
//! deciding at each buffer met whether to empty it first; the buffered
//! entries met, deepest (oldest) buffer first; and their merge with the
//! tree's pairs (with versions of keys, `super::versions`, by key).
//! Moved out of `mod.rs` unchanged but for the split of the walk from
//! the scan and the merge by key.

use crate::index::{Index, Result};
use crate::node::NodeId;

use super::adapt::Policy;
use super::buffers::Op;
use super::{Cause, LaTree};

impl LaTree {
    /// Fills `self.found` with the buffered entries for `lo..=hi` on every
    /// path the range takes, deepest buffer first, and `self.base` with the
    /// tree's entries; `adaptive` lets the policy empty buffers on the way
    /// (a lookup), otherwise they are only scanned (a range).
    pub(super) fn collect(&mut self, lo: u64, hi: u64, adaptive: bool) -> Result<()> {
        self.walk_buffers(lo, hi, adaptive)?;
        self.base.clear();
        let mut base = std::mem::take(&mut self.base);
        let r = self.tree.range(lo, hi, &mut base);
        self.base = base;
        r?;
        // Deepest first (invariant 1); the walk met them top-down.
        self.walk.sort_by_key(|&(_, level)| level);
        self.found.clear();
        let walk = std::mem::take(&mut self.walk);
        let mut result = Ok(());
        // Spilled entries (kept in level order) follow the buffers at their
        // level and precede those above.
        let spill = std::mem::take(&mut self.spill);
        let mut next_spilled = 0;
        for &(id, level) in &walk {
            while let Some(&(_, e)) = spill.get(next_spilled).filter(|(l, _)| *l < level) {
                if (lo..=hi).contains(&{ e.key }) {
                    self.found.push(e);
                }
                next_spilled += 1;
            }
            self.counters.buffers_scanned += 1;
            self.counters.entries_scanned += self.bufs.get(id).map_or(0, |b| b.flash_entries());
            let found = &mut self.found;
            result = self.bufs.scan(self.tree.store_mut(), id, |e| {
                if (lo..=hi).contains(&{ e.key }) {
                    found.push(e)
                }
            });
            if result.is_err() {
                break;
            }
        }
        for &(_, e) in &spill[next_spilled.min(spill.len())..] {
            if (lo..=hi).contains(&{ e.key }) {
                self.found.push(e);
            }
        }
        self.spill = spill;
        self.walk = walk;
        result
    }

    /// Fills `self.walk` with the buffers holding entries on every path
    /// `lo..=hi` takes, as met top-down; `adaptive` as in
    /// [`LaTree::collect`].
    pub(super) fn walk_buffers(&mut self, lo: u64, hi: u64, adaptive: bool) -> Result<()> {
        'restart: loop {
            self.walk.clear();
            self.stack.clear();
            let (root, root_level) = self.tree.root();
            self.stack.push((root, root_level));
            while let Some((id, level)) = self.stack.pop() {
                let buffered = id == root || self.buffered_level(level);
                if buffered && self.bufs.entries(id) > 0 {
                    if adaptive {
                        self.counters.buffers_met += 1;
                        self.counters.entries_met += self.bufs.entries(id);
                        if self.decide(id, level) {
                            // Loading it may write other tail pages.
                            let emptied = self
                                .ensure_partitions(0, &[], u8::MAX)
                                .and_then(|_| self.empty(id, Cause::Adapt))
                                .and_then(|()| self.settle());
                            if let Err(e) = emptied {
                                // A full device (or a failed write) reaches
                                // the caller, as at any operation: what the
                                // emptying had taken is spilled, in order,
                                // and the next operation retries it first.
                                self.stuck = true;
                                return Err(e);
                            }
                            continue 'restart;
                        }
                    }
                    self.walk.push((id, level));
                }
                if level >= self.subtree_height {
                    self.kids.clear();
                    self.tree
                        .children_within(id, level, lo, hi, &mut self.kids)?;
                    self.stack
                        .extend(self.kids.iter().rev().map(|&k| (k, level - 1)));
                }
            }
            return Ok(());
        }
    }

    /// Turns `self.base` into the live pairs of `lo..=hi` after
    /// [`LaTree::collect`]: a pair's buffered entries, oldest first
    /// (invariant 1), decide it by the last insert or delete among them;
    /// a pair with none keeps what the tree says. With versions of keys,
    /// the same by key: the last insert's pair replaces the tree's pairs
    /// of its key, the last delete removes them. Reuses its buffers (a
    /// lookup allocates nothing here).
    pub(super) fn merge_found(&mut self) {
        if self.found.is_empty() {
            return;
        }
        let mut order = std::mem::take(&mut self.found_order);
        order.clear();
        order.extend(
            self.found
                .iter()
                .enumerate()
                .map(|(i, e)| (e.pair(), i as u32, e.op)),
        );
        // What one version is of: a pair, or with versions of keys a key.
        let by_key = self.by_key;
        let of = |pair: (u64, u64)| if by_key { (pair.0, 0) } else { pair };
        // (version, arrival): each pair's (key's) entries together, oldest
        // first.
        order.sort_unstable_by_key(|&(pair, at, _)| (of(pair), at));
        let mut live = std::mem::take(&mut self.live);
        live.clear();
        let base = &self.base;
        let (mut b, mut i) = (0, 0);
        while i < order.len() {
            let version = of(order[i].0);
            let mut last = None;
            while i < order.len() && of(order[i].0) == version {
                if !order[i].2.is_lookup() {
                    last = Some((order[i].0, order[i].2));
                }
                i += 1;
            }
            while b < base.len() && of(base[b]) < version {
                live.push(base[b]);
                b += 1;
            }
            let in_tree = b;
            while b < base.len() && of(base[b]) == version {
                b += 1;
            }
            match last {
                Some((pair, Op::Insert)) => live.push(pair),
                Some(_) => {}
                None => live.extend_from_slice(&base[in_tree..b]),
            }
        }
        live.extend_from_slice(&base[b..]);
        std::mem::swap(&mut self.base, &mut live);
        self.live = live;
        self.found_order = order;
    }

    /// Whether the policy empties buffer `id` (at `level`) before this
    /// lookup scans it.
    fn decide(&mut self, id: NodeId, level: u8) -> bool {
        let s = self.bufs.entries(id);
        match self.policy {
            Policy::Off => false,
            Policy::Adapt => {
                let c = self.adapt_costs(level);
                let Some(b) = self.bufs.get_mut(id) else {
                    return false;
                };
                let empty = b.state.adapt_lookup(s, c);
                let held = b.state.counters();
                self.counters.adapt_counters_peak = self.counters.adapt_counters_peak.max(held);
                empty
            }
            Policy::Simple => {
                let read = self.buffer_read_cost(id);
                let empty = self.buffer_empty_cost(id, level, read);
                match self.bufs.get_mut(id) {
                    Some(b) => b.state.simple_lookup(read, empty),
                    None => false,
                }
            }
        }
    }
}
