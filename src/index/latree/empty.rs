//! Emptying a buffer (`buffered-bplus-tree.md` §5.1 "Buffer Emptying"),
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
            None => self.apply(&loaded),
            Some(below) => self.distribute(&loaded, below),
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
                self.apply(&loaded)
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
        self.loaded = loaded;
        result
    }

    /// A leaf subtree's emptying: every entry applied to the tree, in
    /// order; a delayed lookup's part is answered with the key's pairs in
    /// its span ([`super::lookups`]).
    fn apply(&mut self, elems: &[Elem]) -> Result<()> {
        let mut found = Vec::new();
        let mut values = Vec::new();
        for e in elems {
            match e.op {
                Op::Insert => self.tree.insert(e.key, e.value)?,
                Op::Delete => {
                    self.tree.delete(e.key, e.value)?;
                }
                Op::Lookup => {
                    if let Some((lo, hi)) = self.delayed_lookups.span(e.value) {
                        self.tree.range(e.key, e.key, &mut found)?;
                        values.clear();
                        values.extend(
                            found
                                .iter()
                                .filter(|&&p| p >= lo && hi.is_none_or(|h| p < h))
                                .map(|p| p.1),
                        );
                        self.delayed_lookups.answer(e.value, &values);
                    }
                }
            }
            self.bufs.loaded_consumed(1);
            self.follow_shapes()?;
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

    /// A non-leaf subtree's emptying: every entry to the buffer of the
    /// subtree root at `below` on its path.
    fn distribute(&mut self, elems: &[Elem], below: u8) -> Result<()> {
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
                for &(i, part) in &parts {
                    let elem = Elem { value: part, ..e };
                    self.push(below_spans[i].0, below, elem)?;
                }
                continue;
            }
            self.push(target, below, e)?;
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
    pub(super) fn follow_shapes(&mut self) -> Result<()> {
        let mut shapes = std::mem::take(&mut self.shapes);
        shapes.clear();
        self.tree.take_shapes(&mut shapes);
        let mut result = Ok(());
        for &change in &shapes {
            result = self.follow(change);
            if result.is_err() {
                break;
            }
        }
        self.shapes = shapes;
        result
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
            self.bufs.take(self.tree.store_mut(), id, &mut elems)?;
        }
        self.counters.buffer_splits += 1;
        for e in elems {
            if e.op == Op::Lookup {
                // A part whose pairs now lie on both sides becomes two.
                let sides = [((0, 0), Some(sep)), (sep, None)];
                let mut cut = Vec::new();
                self.delayed_lookups.cut(e.value, &sides, &mut cut);
                for (i, part) in cut {
                    let to = if i == 0 { pair.0 } else { pair.1 };
                    self.push(to, level, Elem { value: part, ..e })?;
                }
                continue;
            }
            let to = if e.pair() < sep { pair.0 } else { pair.1 };
            self.push(to, level, e)?;
        }
        Ok(())
    }

    /// Appends every entry of buffer `from` to buffer `to` at `level`.
    fn move_all(&mut self, from: NodeId, to: NodeId, level: u8) -> Result<()> {
        let mut elems = Vec::new();
        self.bufs.take(self.tree.store_mut(), from, &mut elems)?;
        self.counters.buffer_splits += 1;
        for e in elems {
            self.push(to, level, e)?;
        }
        Ok(())
    }
}
