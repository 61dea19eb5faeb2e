//! Emptying a buffer (Agrawal et al. 2009 §5.1 "Buffer Emptying"),
//! and keeping buffers with their subtree roots when the tree changes
//! shape (§5.1: "In case the subtree has a non-empty buffer, its buffer is
//! also split").
//!
//! An emptying loads the buffer (its flash pages and tail), sorts it
//! stably by (key, value) and either
//! * routes every entry through the subtree to the buffer of the subtree
//!   below (a non-leaf subtree), or
//! * applies every entry to the tree in order (a leaf subtree): inserts and
//!   deletes of the B+-tree, whose splits may cascade to the root.
//!
//! The paper loads the head of the buffer and merges the rest on the fly;
//! here the whole buffer is read once and sorted in RAM, the same pages
//! read (`docs/DEVIATIONS.md`). Entries are routed from the tree's root,
//! through the node cache, so a node split by an emptying started inside
//! another never misroutes an entry.
//!
//! Shape changes ([`ShapeChange`]) at a buffered level move buffer entries
//! with the keys that moved: a split sends the entries from the separator
//! on to the new node; a redistribution re-splits the two siblings'
//! entries at the new separator; a merge appends the right sibling's
//! entries to the left's; a new root takes the old root's buffer when the
//! old root is not at a buffered level, and a collapsed root's entries go
//! to its child (after the child's own, being newer). A buffer touched so
//! is read and rewritten, its policy state restarted.

use crate::index::{Index, Result};
use crate::node::NodeId;

use super::buffers::{Elem, Op};

use super::lookups::Span;
use super::{Cause, LaTree};
use crate::index::btree::ShapeChange;

impl LaTree {
    /// Empties buffer `id` (nothing when it has none).
    pub(super) fn empty(&mut self, id: NodeId, cause: Cause) -> Result<()> {
        self.drain_spill()?;
        let mut loaded = std::mem::take(&mut self.loaded);
        loaded.clear();
        let taken = self.bufs.take(self.tree.store_mut(), id, &mut loaded);
        let level = match taken {
            Ok(Some((level, _))) => level,
            Ok(None) => {
                self.loaded = loaded;
                return Ok(());
            }
            Err(e) => {
                self.loaded = loaded;
                return Err(e);
            }
        };
        self.counters.count_empty(cause, loaded.len() as u64);
        // Stable, by key: a key's entries keep the order of their
        // operations (a delayed lookup sees exactly those before it).
        loaded.sort_by_key(|e| e.key);
        let result = match self.child_level(level) {
            None => self.apply(&loaded, level),
            Some(below) => self.distribute(&loaded, level, below),
        };
        self.loaded = loaded;
        result
    }

    /// Empties buffer `id` at `level` and every buffer below it into the
    /// leaves, deepest first, so that each pair's older entries reach the
    /// tree before its newer ones; `id`'s own entries are then applied
    /// directly, not routed into the buffers below. Takes no partition
    /// (the space of last resort, [`LaTree::ensure_partitions`]).
    pub(super) fn flush_subtree(&mut self, id: NodeId, level: u8) -> Result<()> {
        self.drain_spill()?;
        if let Some(below) = self.child_level(level) {
            let mut nodes = vec![id];
            let mut next = Vec::new();
            for l in ((below + 1)..=level).rev() {
                next.clear();
                for &n in &nodes {
                    self.tree.children_within(n, l, 0, u64::MAX, &mut next)?;
                }
                std::mem::swap(&mut nodes, &mut next);
            }
            for n in nodes {
                if self.bufs.get(n).is_some() {
                    self.flush_subtree(n, below)?;
                }
            }
        }
        let mut loaded = std::mem::take(&mut self.loaded);
        loaded.clear();
        let taken = self.bufs.take(self.tree.store_mut(), id, &mut loaded);
        let result = match taken {
            Ok(Some(_)) => {
                self.counters.count_empty(Cause::Space, loaded.len() as u64);
                loaded.sort_by_key(|e| e.key);
                self.apply(&loaded, level)
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
        self.loaded = loaded;
        result
    }

    /// A leaf subtree's emptying: every entry applied to the tree, in
    /// order; a delayed lookup's part is answered with the key's pairs in
    /// its span ([`super::lookups`]). A failure leaves the entries not
    /// applied in the spill, at `level`, the level of their buffer.
    fn apply(&mut self, elems: &[Elem], level: u8) -> Result<()> {
        let mut found = Vec::new();
        let mut values = Vec::new();
        for (i, e) in elems.iter().enumerate() {
            if let Err(err) = self.apply_one(e, &mut found, &mut values) {
                self.spill(level, &elems[i..]);
                return Err(err);
            }
            self.bufs.loaded_consumed(1);
            if let Err(err) = self.follow_shapes() {
                self.spill(level, &elems[i + 1..]);
                return Err(err);
            }
        }
        Ok(())
    }

    /// One entry applied to the tree (nothing changed when it fails).
    fn apply_one(
        &mut self,
        e: &Elem,
        found: &mut Vec<(u64, u64)>,
        values: &mut Vec<u64>,
    ) -> Result<()> {
        match e.op {
            Op::Insert => self.tree.insert(e.key, e.value)?,
            Op::Delete => {
                self.tree.delete(e.key, e.value)?;
            }
            Op::Lookup => {
                if let Some((lo, hi)) = self.delayed_lookups.span(e.value) {
                    self.tree.range(e.key, e.key, found)?;
                    values.clear();
                    values.extend(
                        found
                            .iter()
                            .filter(|&&p| p >= lo && hi.is_none_or(|h| p < h))
                            .map(|p| p.1),
                    );
                    // An answered part is gone: applying it again does nothing.
                    self.delayed_lookups.answer(e.value, values);
                }
            }
        }
        Ok(())
    }

    /// The nodes at `level` whose subtrees may hold pairs of `key`, with
    /// the pairs each covers.
    fn spans_below(&mut self, key: u64, level: u8, out: &mut Vec<(NodeId, Span)>) -> Result<()> {
        let (root, top) = self.tree.root();
        out.clear();
        out.push((root, ((0, 0), None)));
        let mut kids = Vec::new();
        let mut next = Vec::new();
        for l in ((level + 1)..=top).rev() {
            next.clear();
            for &(n, (lo, hi)) in out.iter() {
                kids.clear();
                self.tree.children_with_bounds(n, l, key, key, &mut kids)?;
                next.extend(
                    kids.iter()
                        .map(|&(c, left, right)| (c, (left.unwrap_or(lo), right.or(hi)))),
                );
            }
            std::mem::swap(out, &mut next);
        }
        Ok(())
    }

    /// A non-leaf subtree's emptying (of a buffer at `level`): every entry
    /// to the buffer of the subtree root at `below` on its path. A failure
    /// leaves the entries not passed on in the spill, at `level`.
    fn distribute(&mut self, elems: &[Elem], level: u8, below: u8) -> Result<()> {
        let mut done = 0;
        let result = self.distribute_from(elems, below, &mut done);
        if result.is_err() {
            self.spill(level, &elems[done..]);
        }
        result
    }

    /// [`LaTree::distribute`]; `done` counts the entries passed on.
    fn distribute_from(&mut self, elems: &[Elem], below: u8, done: &mut usize) -> Result<()> {
        let mut below_spans = Vec::new();
        let mut spans = Vec::new();
        let mut parts = Vec::new();
        // Each entry's target, found once: appends change no node, so the
        // routes hold unless making room empties a buffer into the tree.
        let mut routes = Vec::with_capacity(elems.len());
        self.route_all(elems, below, &mut routes)?;
        if self.bufs.free_partitions().is_some() {
            let mut targets = routes.clone();
            targets.sort_unstable();
            targets.dedup();
            let need = targets
                .iter()
                .filter(|&&t| !self.bufs.holds_partition(t))
                .count();
            // The targets themselves are not emptied to make room.
            if self.ensure_partitions(need as u64, &targets, below + 1)? {
                routes.clear();
                self.route_all(elems, below, &mut routes)?;
            }
        }
        for (&e, &target) in elems.iter().zip(&routes) {
            if e.op == Op::Lookup {
                // One part per subtree the key's pairs may lie in.
                self.spans_below(e.key, below, &mut below_spans)?;
                spans.clear();
                spans.extend(below_spans.iter().map(|&(_, s)| s));
                parts.clear();
                self.delayed_lookups.cut(e.value, &spans, &mut parts);
                // Cut, the lookup is passed on (what fails is spilled).
                *done += 1;
                self.push_parts(e, &parts, below, |i| below_spans[i].0)?;
                continue;
            }
            self.push(target, below, e)?;
            *done += 1;
        }
        Ok(())
    }

    /// The node at `level` on the path of each entry (of a lookup, of its
    /// first pair; its parts are routed by span).
    fn route_all(&mut self, elems: &[Elem], level: u8, out: &mut Vec<NodeId>) -> Result<()> {
        for e in elems {
            let t = self.route(e.pair(), level)?;
            out.push(t);
        }
        Ok(())
    }

    /// The node at `level` on the path to `entry`.
    pub(super) fn route(&mut self, entry: (u64, u64), level: u8) -> Result<NodeId> {
        let (mut id, mut at) = self.tree.root();
        while at > level {
            id = self.tree.child_toward(id, at, entry)?;
            at -= 1;
        }
        Ok(id)
    }

    /// Appends `e` to buffer `id` at `level`, queueing it for emptying
    /// once it holds U entries.
    pub(super) fn push(&mut self, id: NodeId, level: u8, e: Elem) -> Result<()> {
        let n = self.bufs.append(self.tree.store_mut(), id, level, e)?;
        if n >= self.max_entries {
            self.bufs.mark_overfull(id);
        }
        Ok(())
    }

    /// Moves buffer entries after the shape changes the tree recorded.
    /// Those a failure leaves are followed first next time (a change that
    /// failed has spilled what it held).
    pub(super) fn follow_shapes(&mut self) -> Result<()> {
        let mut shapes = std::mem::take(&mut self.shapes);
        shapes.clear();
        shapes.append(&mut self.pending_shapes);
        self.tree.take_shapes(&mut shapes);
        let mut result = Ok(());
        for (n, &change) in shapes.iter().enumerate() {
            result = self.follow(change);
            if result.is_err() {
                self.pending_shapes.extend_from_slice(&shapes[n + 1..]);
                break;
            }
        }
        self.shapes = shapes;
        result
    }

    /// Keeps `elems`, taken out of buffers at `level`, in RAM (the spill,
    /// in level order): they follow the buffers at that level and precede
    /// those above, for lookups, until [`LaTree::drain_spill`].
    pub(super) fn spill(&mut self, level: u8, elems: &[Elem]) {
        self.spill_parts(level, elems);
        self.bufs.loaded_consumed(elems.len());
    }

    /// Where entries spilled from a buffer at `level` go back: that level
    /// if it still holds buffers, else the next buffered level above (the
    /// root's, when the root has grown past it or the tree shrunk below).
    fn holding_level(&self, level: u8) -> u8 {
        let (_, top) = self.tree.root();
        if level >= top {
            return top;
        }
        (level..top)
            .find(|&l| self.buffered_level(l))
            .unwrap_or(top)
    }

    /// [`LaTree::spill`] for entries not taken from a loaded buffer (the
    /// new parts of a delayed lookup, cut for buffers at `level`).
    fn spill_parts(&mut self, level: u8, elems: &[Elem]) {
        if elems.is_empty() {
            return;
        }
        self.spill.extend(elems.iter().map(|&e| (level, e)));
        // Stable: each level keeps its entries' order.
        self.spill.sort_by_key(|&(l, _)| l);
    }

    /// Pushes the parts of delayed lookup `e`, each `(i, part)` to buffer
    /// `target(i)` at `level`; the parts a failure leaves are spilled.
    fn push_parts(
        &mut self,
        e: Elem,
        parts: &[(usize, u64)],
        level: u8,
        target: impl Fn(usize) -> NodeId,
    ) -> Result<()> {
        for (k, &(i, part)) in parts.iter().enumerate() {
            if let Err(err) = self.push(target(i), level, Elem { value: part, ..e }) {
                let rest: Vec<Elem> = parts[k..]
                    .iter()
                    .map(|&(_, p)| Elem { value: p, ..e })
                    .collect();
                self.spill_parts(level, &rest);
                return Err(err);
            }
        }
        Ok(())
    }

    /// Puts the spilled entries back into the buffers of their level, in
    /// order, routed by the tree as it is now; what does not fit stays.
    pub(super) fn drain_spill(&mut self) -> Result<()> {
        if !self.pending_shapes.is_empty() {
            self.follow_shapes()?;
        }
        if self.spill.is_empty() {
            return Ok(());
        }
        let spill = std::mem::take(&mut self.spill);
        let mut spans = Vec::new();
        let mut cut_spans = Vec::new();
        let mut parts = Vec::new();
        for (n, &(spilled_at, e)) in spill.iter().enumerate() {
            let level = self.holding_level(spilled_at);
            // Whether the entry itself is consumed (a lookup's part is, once
            // cut: what is not pushed is spilled as new parts).
            let mut consumed = false;
            let pushed = if e.op == Op::Lookup {
                // The part is cut again by the nodes at its level now.
                match self.spans_below(e.key, level, &mut spans) {
                    Err(err) => Err(err),
                    Ok(()) => {
                        cut_spans.clear();
                        cut_spans.extend(spans.iter().map(|&(_, s)| s));
                        parts.clear();
                        self.delayed_lookups.cut(e.value, &cut_spans, &mut parts);
                        consumed = true;
                        self.push_parts(e, &parts, level, |i| spans[i].0)
                    }
                }
            } else {
                self.route(e.pair(), level)
                    .and_then(|t| self.push(t, level, e))
            };
            if let Err(err) = pushed {
                let rest = &spill[n + usize::from(consumed)..];
                let rest: Vec<(u8, Elem)> = rest
                    .iter()
                    .map(|&(l, e)| (self.holding_level(l), e))
                    .collect();
                self.spill.extend(rest);
                self.spill.sort_by_key(|&(l, _)| l);
                return Err(err);
            }
        }
        Ok(())
    }

    fn follow(&mut self, change: ShapeChange) -> Result<()> {
        match change {
            ShapeChange::Split {
                level,
                left,
                right,
                sep,
            } if self.buffered_level(level) && self.bufs.get(left).is_some() => {
                self.resplit(&[left], (left, right), level, sep)
            }
            ShapeChange::Redistribute {
                level,
                left,
                right,
                sep,
            } if self.buffered_level(level)
                && (self.bufs.get(left).is_some() || self.bufs.get(right).is_some()) =>
            {
                self.resplit(&[left, right], (left, right), level, sep)
            }
            ShapeChange::Merge { level, left, right }
                if self.buffered_level(level) && self.bufs.get(right).is_some() =>
            {
                self.move_all(right, left, level)
            }
            ShapeChange::Grow { old, new } => {
                if let Some(b) = self.bufs.get(old) {
                    let level = b.level;
                    if !self.buffered_level(level) {
                        self.bufs.rename(old, new, level + 1);
                    }
                }
                Ok(())
            }
            ShapeChange::Collapse { old, new } => {
                let Some(b) = self.bufs.get(old) else {
                    return Ok(());
                };
                let level = b.level.saturating_sub(1);
                if self.buffered_level(level) && self.bufs.get(new).is_some() {
                    self.move_all(old, new, level)
                } else {
                    self.bufs.rename(old, new, level);
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    /// Takes the buffers of `from` (in order) and deals their entries to
    /// `pair.0` (below `sep`) and `pair.1` (from `sep` on).
    fn resplit(
        &mut self,
        from: &[NodeId],
        pair: (NodeId, NodeId),
        level: u8,
        sep: (u64, u64),
    ) -> Result<()> {
        let mut elems = Vec::new();
        for &id in from {
            if let Err(err) = self.bufs.take(self.tree.store_mut(), id, &mut elems) {
                self.spill(level, &elems);
                return Err(err);
            }
        }
        self.counters.buffer_splits += 1;
        for (n, &e) in elems.iter().enumerate() {
            if e.op == Op::Lookup {
                // A part whose pairs now lie on both sides becomes two;
                // the spill (routed again when drained) keeps it whole.
                let sides = [((0, 0), Some(sep)), (sep, None)];
                let mut cut = Vec::new();
                self.delayed_lookups.cut(e.value, &sides, &mut cut);
                let side = |i| if i == 0 { pair.0 } else { pair.1 };
                if let Err(err) = self.push_parts(e, &cut, level, side) {
                    self.spill(level, &elems[n + 1..]);
                    return Err(err);
                }
                continue;
            }
            let to = if e.pair() < sep { pair.0 } else { pair.1 };
            if let Err(err) = self.push(to, level, e) {
                self.spill(level, &elems[n..]);
                return Err(err);
            }
        }
        Ok(())
    }

    /// Appends every entry of buffer `from` to buffer `to` at `level`.
    fn move_all(&mut self, from: NodeId, to: NodeId, level: u8) -> Result<()> {
        let mut elems = Vec::new();
        self.bufs.take(self.tree.store_mut(), from, &mut elems)?;
        self.counters.buffer_splits += 1;
        for (n, &e) in elems.iter().enumerate() {
            if let Err(err) = self.push(to, level, e) {
                self.spill(level, &elems[n..]);
                return Err(err);
            }
        }
        Ok(())
    }
}
