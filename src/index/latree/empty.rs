//! Emptying a buffer (Agrawal et al. 2009 §5.1 "Buffer Emptying"),
//! and keeping buffers with their subtree roots when the tree changes
//! shape (§5.1: "In case the subtree has a non-empty buffer, its buffer is
//! also split").
//!
//! An emptying sets the buffer aside (under an id no node has, so that the
//! shape changes it causes never touch it) and drains it in **chunks**:
//! as many entries as the emptying's scratch holds (whole flash pages in
//! order, the tail last; [`super::LaTree`] sizes the scratch from the
//! budget), each chunk sorted stably by key and either
//! * routed through the subtree to the buffer of the subtree below (a
//!   non-leaf subtree), or
//! * applied to the tree in order (a leaf subtree): inserts and deletes of
//!   the B+-tree, whose splits may cascade to the root.
//!
//! Chunks go in arrival order, so a key's entries still reach the tree,
//! or the buffers below, in the order of their operations. The paper
//! loads and sorts the head of the buffer and merges the rest on the fly,
//! the whole buffer in one sorted pass (its U = 3M/4 is set so a buffer
//! fits in memory); here a buffer larger than the scratch is applied in
//! several sorted passes, each page still read once (`docs/DEVIATIONS.md`).
//! Entries are routed from the tree's root, through the node cache, so a
//! node split by an emptying started inside another never misroutes an
//! entry.
//!
//! Shape changes ([`ShapeChange`]) at a buffered level move buffer entries
//! with the keys that moved: a split sends the entries from the separator
//! on to the new node; a redistribution re-splits the two siblings'
//! entries at the new separator; a merge appends the right sibling's
//! entries to the left's; a new root takes the old root's buffer when the
//! old root is not at a buffered level, and a collapsed root's entries go
//! to its child (after the child's own, being newer). A buffer touched so
//! is read and rewritten, its policy state restarted: it is set aside and
//! streamed a page at a time, never loaded whole.
//!
//! A failure (a full device) spills what the chunk had not passed on and
//! then the rest of the buffer set aside, in order (the spill, RAM beyond
//! the budget, `super`). A read that fails leaves the buffer set aside
//! as it was: back with its node on the first chunk, else spilled too.

use crate::index::{Index, Result};
use crate::node::NodeId;

use super::buffers::{Elem, Front, Op};

use super::lookups::Span;
use super::{Cause, LaTree};
use crate::index::btree::ShapeChange;

impl LaTree {
    /// Empties buffer `id` (nothing when it has none).
    pub(super) fn empty(&mut self, id: NodeId, cause: Cause) -> Result<()> {
        self.drain_spill()?;
        let Some(level) = self.bufs.get(id).map(|b| b.level) else {
            return Ok(());
        };
        self.counters.count_empty(cause, self.bufs.entries(id));
        let how = match self.child_level(level) {
            None => Drain::Apply,
            Some(below) => Drain::Distribute(below),
        };
        let aside = self.set_aside(id, level);
        self.drain(aside, id, level, how)
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
        if self.bufs.get(id).is_none() {
            return Ok(());
        }
        self.counters
            .count_empty(Cause::Space, self.bufs.entries(id));
        let aside = self.set_aside(id, level);
        self.drain(aside, id, level, Drain::Apply)
    }

    /// Moves buffer `id` (at `level`) to an id no node has, so that shape
    /// changes while it drains leave it alone; returns that id.
    fn set_aside(&mut self, id: NodeId, level: u8) -> NodeId {
        let mut aside = ASIDE;
        while self.bufs.get(aside).is_some() {
            aside -= 1;
        }
        self.bufs.rename(id, aside, level);
        aside
    }

    /// Drains buffer `from` (set aside from node `node`, at `level`) chunk
    /// by chunk, passing each on as `how` says.
    fn drain(&mut self, from: NodeId, node: NodeId, level: u8, how: Drain) -> Result<()> {
        let sorted = matches!(how, Drain::Apply | Drain::Distribute(_));
        let (mut chunk, max) = if sorted {
            (std::mem::take(&mut self.loaded), self.chunk_entries)
        } else {
            (std::mem::take(&mut self.moving), self.bufs.per_page())
        };
        // An emptying inside another (making space) needs its own chunk.
        if chunk.capacity() < max {
            chunk.reserve_exact(max);
        }
        let mut first = true;
        let result = loop {
            chunk.clear();
            let front = match self
                .bufs
                .take_front(self.tree.store_mut(), from, &mut chunk, max)
            {
                Ok(f) => f,
                Err(e) => {
                    // Nothing taken: back to its node, or (the tree has
                    // changed since the first chunk) into the spill.
                    if first && self.bufs.get(node).is_none() {
                        self.bufs.rename(from, node, level);
                    } else {
                        self.spill_rest(from, level);
                    }
                    break Err(e);
                }
            };
            first = false;
            if sorted {
                // Stable, by key: a key's entries keep the order of their
                // operations (a delayed lookup sees exactly those before it).
                chunk.sort_by_key(|e| e.key);
                self.keep_newest(&mut chunk);
            }
            if let Err(e) = self.deal(&chunk, level, how) {
                self.spill_rest(from, level);
                break Err(e);
            }
            if !matches!(front, Front::More) {
                break Ok(());
            }
        };
        chunk.clear();
        if sorted {
            self.loaded = chunk;
        } else {
            self.moving = chunk;
        }
        result
    }

    /// Passes a chunk taken from a buffer at `level` on as `how` says; what
    /// a failure leaves is spilled.
    fn deal(&mut self, elems: &[Elem], level: u8, how: Drain) -> Result<()> {
        match how {
            Drain::Apply => self.apply(elems, level),
            Drain::Distribute(below) => self.distribute(elems, level, below),
            Drain::Split(pair, sep) => self.deal_split(elems, level, pair, sep),
            Drain::Into(to) => {
                for (n, &e) in elems.iter().enumerate() {
                    if let Err(err) = self.push(to, level, e) {
                        self.spill(level, &elems[n..]);
                        return Err(err);
                    }
                }
                Ok(())
            }
        }
    }

    /// After a failure, the rest of buffer `from` (set aside at `level`)
    /// joins the spill, after what the failing chunk left there. A read
    /// that fails leaves it set aside.
    fn spill_rest(&mut self, from: NodeId, level: u8) {
        let mut rest = Vec::new();
        if self
            .bufs
            .take_front(self.tree.store_mut(), from, &mut rest, usize::MAX)
            .is_ok()
        {
            self.spill(level, &rest);
        }
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
            Op::Insert | Op::Delete if self.by_key => self.apply_version(e, found)?,
            Op::Insert => self.tree.insert(e.key, e.value)?,
            Op::Delete => {
                self.tree.delete(e.key, e.value)?;
            }
            Op::Lookup | Op::LookupPart => {
                if let Some((lo, hi)) = self.delayed_lookups.span(e) {
                    self.tree.range(e.key, e.key, found)?;
                    values.clear();
                    values.extend(
                        found
                            .iter()
                            .filter(|&&p| p >= lo && hi.is_none_or(|h| p < h))
                            .map(|p| p.1),
                    );
                    // An answered part is gone: applying it again does nothing.
                    self.delayed_lookups.answer(e, values);
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
        // Scratch sized with the chunk (an emptying inside this one, to
        // make room, takes its own).
        let mut routes = std::mem::take(&mut self.routes);
        let mut targets = std::mem::take(&mut self.targets);
        let result = self.distribute_routed(elems, below, done, &mut routes, &mut targets);
        routes.clear();
        targets.clear();
        self.routes = routes;
        self.targets = targets;
        result
    }

    fn distribute_routed(
        &mut self,
        elems: &[Elem],
        below: u8,
        done: &mut usize,
        routes: &mut Vec<NodeId>,
        targets: &mut Vec<NodeId>,
    ) -> Result<()> {
        let mut below_spans = Vec::new();
        let mut spans = Vec::new();
        let mut parts = Vec::new();
        // Each entry's target, found once: appends change no node, so the
        // routes hold unless making room empties a buffer into the tree.
        routes.clear();
        self.route_all(elems, below, routes)?;
        if self.bufs.free_partitions().is_some() {
            targets.clear();
            targets.extend_from_slice(routes);
            targets.sort_unstable();
            targets.dedup();
            let need = targets
                .iter()
                .filter(|&&t| !self.bufs.holds_partition(t))
                .count();
            // The targets themselves are not emptied to make room.
            if self.ensure_partitions(need as u64, targets, below + 1)? {
                routes.clear();
                self.route_all(elems, below, routes)?;
            }
        }
        for (&e, &target) in elems.iter().zip(routes.iter()) {
            if e.op.is_lookup() {
                // One part per subtree the key's pairs may lie in.
                self.spans_below(e.key, below, &mut below_spans)?;
                spans.clear();
                spans.extend(below_spans.iter().map(|&(_, s)| s));
                parts.clear();
                let op = self.delayed_lookups.cut(e, &spans, &mut parts);
                // Cut, the lookup is passed on (what fails is spilled).
                *done += 1;
                self.push_parts(Elem { op, ..e }, &parts, below, |i| below_spans[i].0)?;
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
            let t = self.route(self.routing(e), level)?;
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

    /// Pushes the pieces of delayed lookup `e` (its op what the cut made
    /// of it), each `(i, ticket or part)` to buffer
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
            let pushed = if e.op.is_lookup() {
                // The part is cut again by the nodes at its level now.
                match self.spans_below(e.key, level, &mut spans) {
                    Err(err) => Err(err),
                    Ok(()) => {
                        cut_spans.clear();
                        cut_spans.extend(spans.iter().map(|&(_, s)| s));
                        parts.clear();
                        let op = self.delayed_lookups.cut(e, &cut_spans, &mut parts);
                        consumed = true;
                        self.push_parts(Elem { op, ..e }, &parts, level, |i| spans[i].0)
                    }
                }
            } else {
                self.route(self.routing(&e), level)
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
        // Set aside first: `pair` is among `from`.
        let mut aside = [None; 2];
        for (slot, &id) in aside.iter_mut().zip(from) {
            if self.bufs.get(id).is_some() {
                *slot = Some((self.set_aside(id, level), id));
            }
        }
        self.counters.buffer_splits += 1;
        for (k, &(a, id)) in aside.iter().flatten().enumerate() {
            if let Err(err) = self.drain(a, id, level, Drain::Split(pair, sep)) {
                // The other buffer's entries follow what this one spilled.
                for &(b, _) in aside.iter().flatten().skip(k + 1) {
                    self.spill_rest(b, level);
                }
                return Err(err);
            }
        }
        Ok(())
    }

    /// Deals a chunk of a buffer being split to `pair` by `sep`.
    fn deal_split(
        &mut self,
        elems: &[Elem],
        level: u8,
        pair: (NodeId, NodeId),
        sep: (u64, u64),
    ) -> Result<()> {
        for (n, &e) in elems.iter().enumerate() {
            if e.op.is_lookup() {
                // A part whose pairs now lie on both sides becomes two;
                // the spill (routed again when drained) keeps it whole.
                let sides = [((0, 0), Some(sep)), (sep, None)];
                let mut cut = Vec::new();
                let op = self.delayed_lookups.cut(e, &sides, &mut cut);
                let side = |i| if i == 0 { pair.0 } else { pair.1 };
                if let Err(err) = self.push_parts(Elem { op, ..e }, &cut, level, side) {
                    self.spill(level, &elems[n + 1..]);
                    return Err(err);
                }
                continue;
            }
            let to = if self.routing(&e) < sep {
                pair.0
            } else {
                pair.1
            };
            if let Err(err) = self.push(to, level, e) {
                self.spill(level, &elems[n..]);
                return Err(err);
            }
        }
        Ok(())
    }

    /// Appends every entry of buffer `from` to buffer `to` at `level`.
    fn move_all(&mut self, from: NodeId, to: NodeId, level: u8) -> Result<()> {
        let aside = self.set_aside(from, level);
        self.counters.buffer_splits += 1;
        self.drain(aside, from, level, Drain::Into(to))
    }
}

/// Ids of buffers set aside while they drain, counting down from here:
/// node ids count up from 0 and never come near.
const ASIDE: NodeId = NodeId::MAX;

/// Where a buffer's entries go as it drains.
#[derive(Clone, Copy, Debug)]
enum Drain {
    /// Into the tree (a leaf subtree's emptying).
    Apply,
    /// Into the buffers at this level below (a non-leaf subtree's).
    Distribute(u8),
    /// To two buffers by a separator (a buffer split with its node).
    Split((NodeId, NodeId), (u64, u64)),
    /// To one buffer (a merge, a collapsed root).
    Into(NodeId),
}
