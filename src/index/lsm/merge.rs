//! The LSM-tree's rolling merges (O'Neil et al. 1996; the module docs of
//! [`super`] describe them): the merge steps that keep every
//! component within its capacity, the trees a pass builds and seals, and
//! the segments each component owns. A step that fails (a full device, an
//! I/O error) is undone, so a merge never loses what it had taken.

use std::collections::HashSet;
use std::ops::Bound;

use crate::index::runs::page::{entry_bytes, level_capacity, Entry, Extents, Kind};
use crate::index::{IndexError, Result};

use super::meta::Segment;
use super::tree::{Pair, Tree};
use super::{entry, missing_tree, Component, LsmTree, Pass, DIR_SLACK};

/// What [`LsmTree::step`] needs to undo a failed step.
struct StepUndo {
    disk_len: usize,
    /// The source and destination components before the step.
    src: Option<Component>,
    dst: Option<Component>,
    /// The destination's builder tree before the step.
    builder: Option<(u32, Tree)>,
    next_tree: u32,
}

impl LsmTree {
    /// Capacity of component `i` (0 = C0) in entries.
    fn capacity(&self, i: usize) -> u64 {
        level_capacity(self.c0_capacity, self.ratio, i)
    }

    /// Runs merge steps until every component is within its capacity.
    pub(super) fn maintain(&mut self) -> Result<()> {
        while self.c0.len() as u64 > self.c0_capacity {
            self.step(0)?;
        }
        let mut i = 0;
        while i < self.disk.len() {
            while self.disk[i].entries > self.capacity(i + 1) {
                self.step(i + 1)?;
            }
            i += 1;
        }
        self.fit_cache();
        Ok(())
    }

    /// Sizes the page cache to what the budget leaves after C0 (at its
    /// capacity), the merge buffers, the partial nodes of the trees being
    /// built and the run directory, so that the count stays within the
    /// budget after every operation (module docs, "Memory").
    pub(super) fn fit_cache(&mut self) {
        let c0 = (self.c0.len() as u64).max(self.c0_capacity) as usize;
        let held = c0 * entry_bytes(self.io.format) + self.held_besides_c0_and_cache();
        let room = self.budget.for_budget_bound(0).saturating_sub(held);
        self.io.cache.set_capacity(room / self.io.page_size);
    }

    /// One step of the rolling merge into `disk[dst]` (from C0 when `dst`
    /// is 0, else from `disk[dst − 1]`). A step that fails (a full device,
    /// an I/O error) is undone: the entries it had taken go back where they
    /// were, so nothing is lost, and the trees it had started are dropped.
    fn step(&mut self, dst: usize) -> Result<()> {
        let undo = StepUndo {
            disk_len: self.disk.len(),
            src: dst.checked_sub(1).and_then(|s| self.disk.get(s).cloned()),
            dst: self.disk.get(dst).cloned(),
            builder: self
                .disk
                .get(dst)
                .and_then(|c| c.pass.as_ref())
                .and_then(|p| p.builder)
                .and_then(|id| self.trees.get(&id).map(|t| (id, t.clone()))),
            next_tree: self.next_tree,
        };
        // The extent allocator is copied only if the step changes it.
        self.step_extents = Some(None);
        let stepped = self.merge_step(dst);
        let extents = self.step_extents.take().flatten();
        match stepped {
            // What is left (ending the pass, freeing trees no component
            // names) takes nothing out, and is not undone.
            Ok(true) => self.free_unreferenced(),
            Ok(false) => self.end_pass(dst),
            Err(e) => {
                self.undo_step(dst, undo, extents);
                Err(e)
            }
        }
    }

    /// Puts back what a failed step changed ([`LsmTree::step`]).
    fn undo_step(&mut self, dst: usize, undo: StepUndo, extents: Option<Extents>) {
        if dst == 0 {
            // The step took `batch` out of C0.
            for e in &self.batch {
                self.c0.insert((e.key, e.value), e.kind != Kind::Filter);
            }
        }
        self.disk.truncate(undo.disk_len);
        if let (Some(src), Some(c)) = (undo.src, dst.checked_sub(1)) {
            self.disk[c] = src;
        }
        if let Some(d) = undo.dst {
            self.disk[dst] = d;
        }
        self.trees.retain(|&id, _| id < undo.next_tree);
        if let Some((id, t)) = undo.builder {
            self.trees.insert(id, t);
        }
        self.next_tree = undo.next_tree;
        if let Some(e) = extents {
            self.extents = e;
        }
    }

    /// Inside a step, keeps the extent allocator as it was before the
    /// step's first change to it (for [`LsmTree::undo_step`]).
    fn before_extents_change(&mut self) {
        if let Some(None) = self.step_extents {
            self.step_extents = Some(Some(self.extents.clone()));
        }
    }

    /// The step itself; `Ok(false)` when the source has nothing left past
    /// the cursor (the pass is to end). `self.batch` holds what it took.
    fn merge_step(&mut self, dst: usize) -> Result<bool> {
        if self.disk.len() <= dst {
            self.disk.push(Component::default());
        }
        self.dirty = true;
        let cursor = self.disk[dst].pass.get_or_insert_with(Pass::default).cursor;
        let mut batch = std::mem::take(&mut self.batch);
        batch.clear();
        let high = if dst == 0 {
            let from = cursor.map_or(Bound::Unbounded, Bound::Excluded);
            let per = self.io.per_page;
            batch.extend(
                self.c0
                    .range((from, Bound::Unbounded))
                    .take(per)
                    .map(|(&p, &present)| entry(p, present)),
            );
            for e in &batch {
                self.c0.remove(&(e.key, e.value));
            }
            self.c0_dirty = true;
            Ok(batch.last().map(|e| self.step_end(e)))
        } else {
            self.take_emptying_leaf(dst - 1, cursor, &mut batch)
        };
        let high = match high {
            Ok(Some(high)) => high,
            Ok(None) => {
                self.batch = batch;
                return Ok(false);
            }
            Err(e) => {
                self.batch = batch;
                return Err(e);
            }
        };
        let mut older = std::mem::take(&mut self.older);
        older.clear();
        let mut low = cursor;
        let merged = self.merge_batch(dst, cursor, high, &batch, &mut older, &mut low);
        // Kept for the next step, and for undoing this one.
        self.batch = batch;
        self.older = older;
        merged?;
        let pass = self.disk[dst].pass.get_or_insert_with(Pass::default);
        if let Some(id) = pass.builder {
            if Some(high) > low {
                self.add_segment(dst, id, low, high);
            }
        }
        let c = &mut self.disk[dst];
        c.steps += 1;
        if let Some(p) = c.pass.as_mut() {
            p.cursor = Some(high);
        }
        Ok(true)
    }

    /// Merges `batch` with the entries of `disk[dst]` in `(cursor, high]`
    /// into the pass's trees, reading those one leaf at a time into
    /// `older` (a merge buffer of one leaf, whatever the ratio of the two
    /// components).
    fn merge_batch(
        &mut self,
        dst: usize,
        cursor: Option<Pair>,
        high: Pair,
        batch: &[Entry],
        older: &mut Vec<Entry>,
        low: &mut Option<Pair>,
    ) -> Result<()> {
        // The destination's segments in the range, before `cut` gives the
        // range up (their trees stay until the step has ended).
        let mut ranges = std::mem::take(&mut self.ranges);
        ranges.clear();
        ranges.extend(
            self.disk[dst]
                .segments
                .iter()
                .filter(|s| Some(s.high) > cursor && s.low < Some(high))
                .copied(),
        );
        self.cut(dst, cursor, high);
        let merged = self.merge_ranges(dst, cursor, high, &ranges, batch, older, low);
        self.ranges = ranges;
        merged
    }

    /// [`Self::merge_batch`] over the destination's `ranges`.
    #[allow(clippy::too_many_arguments)]
    fn merge_ranges(
        &mut self,
        dst: usize,
        cursor: Option<Pair>,
        high: Pair,
        ranges: &[Segment],
        batch: &[Entry],
        older: &mut Vec<Entry>,
        low: &mut Option<Pair>,
    ) -> Result<()> {
        // With versions of keys, two entries of one key are two versions.
        let by_key = self.by_key;
        let pair = |e: &Entry| (e.key, if by_key { 0 } else { e.value });
        let mut i = 0;
        for s in ranges {
            // A segment's tree is sealed (a pass's trees own only ranges
            // at or below its cursor): the copy holds no partial nodes.
            let t = self
                .trees
                .get(&s.tree)
                .cloned()
                .ok_or_else(|| missing_tree(s.tree))?;
            let bounds = (s.low.max(cursor), s.high.min(high));
            let mut next = self.io.first_leaf(&t, bounds.0)?;
            while let Some(n) = next {
                older.clear();
                next = self.io.scan_leaf(&t, n, bounds, false, older)?;
                let c = &mut self.disk[dst];
                c.entries = c.entries.saturating_sub(older.len() as u64);
                // The newer version of a pair (of a key) wins.
                for b in older.iter() {
                    while let Some(a) = batch.get(i).filter(|a| pair(a) < pair(b)) {
                        self.emit_merged(dst, *a, low)?;
                        i += 1;
                    }
                    match batch.get(i).filter(|a| pair(a) == pair(b)) {
                        Some(a) => {
                            i += 1;
                            self.emit_merged(dst, *a, low)?;
                        }
                        None => self.emit_merged(dst, *b, low)?,
                    }
                }
            }
        }
        for a in &batch[i..] {
            self.emit_merged(dst, *a, low)?;
        }
        Ok(())
    }

    /// Emits a merged entry, dropping a delete entry that reaches the
    /// bottom component (nothing older is left for it to shadow).
    fn emit_merged(&mut self, dst: usize, e: Entry, low: &mut Option<Pair>) -> Result<()> {
        if dst + 1 == self.disk.len() && e.kind == Kind::Filter {
            self.dropped_filters += 1;
            return Ok(());
        }
        self.emit(dst, e, low)
    }

    /// Takes from `disk[src]` the entries past `cursor` in the first leaf
    /// that has any (the emptying block), and gives their range up; the
    /// range's last pair, or `None` when nothing is left past `cursor`.
    fn take_emptying_leaf(
        &mut self,
        src: usize,
        cursor: Option<Pair>,
        batch: &mut Vec<Entry>,
    ) -> Result<Option<Pair>> {
        let Some(s) = self.disk[src]
            .segments
            .iter()
            .find(|s| Some(s.high) > cursor)
            .copied()
        else {
            if cursor.is_none() && self.disk[src].entries > 0 {
                return Err(IndexError::Corrupt {
                    page: 0,
                    detail: format!(
                        "LSM-tree component C{} counts {} entries but has no segment",
                        src + 1,
                        self.disk[src].entries
                    ),
                });
            }
            return Ok(None);
        };
        let t = self
            .trees
            .get(&s.tree)
            .ok_or_else(|| missing_tree(s.tree))?;
        self.io
            .scan(t, s.low.max(cursor), s.high, false, true, batch)?;
        let high = batch.last().map_or(s.high, |e| self.step_end(e));
        self.cut(src, cursor, high);
        let c = &mut self.disk[src];
        c.entries = c.entries.saturating_sub(batch.len() as u64);
        Ok(Some(high))
    }

    /// Where a step whose last entry taken is `e` ends: at `e`, or with
    /// versions of keys at `e`'s key's last pair, so that a step never
    /// splits a key's versions (module doc, "Versions of keys").
    fn step_end(&self, e: &Entry) -> Pair {
        (e.key, if self.by_key { u64::MAX } else { e.value })
    }

    /// Writes `e` into the tree the pass into `disk[dst]` builds; when
    /// that tree's extent is full, seals it (its range ends at the last
    /// pair it took) and goes on in a new one.
    fn emit(&mut self, dst: usize, e: Entry, low: &mut Option<Pair>) -> Result<()> {
        let mut id = self.builder(dst)?;
        if !self.trees[&id].can_push() {
            let last = self.disk[dst].pass.as_ref().and_then(|p| p.last_pushed);
            if let Some(last) = last.filter(|&l| Some(l) > *low) {
                self.add_segment(dst, id, *low, last);
                *low = Some(last);
            }
            if let Some(p) = self.disk[dst].pass.as_mut() {
                p.builder = None;
            }
            self.seal(id)?;
            id = self.builder(dst)?;
        }
        // Invariant: `builder` returned the id of a tree it holds.
        let t = self.trees.get_mut(&id).expect("the builder's tree exists");
        self.io.push(t, e)?;
        let c = &mut self.disk[dst];
        c.entries += 1;
        if let Some(p) = c.pass.as_mut() {
            p.last_pushed = Some((e.key, e.value));
        }
        Ok(())
    }

    /// The tree the pass into `disk[dst]` fills, allocated when needed:
    /// room for the source and the destination together, and a quarter
    /// more for what arrives during the pass.
    fn builder(&mut self, dst: usize) -> Result<u32> {
        let pass = self.disk[dst].pass.get_or_insert_with(Pass::default);
        if let Some(id) = pass.builder {
            return Ok(id);
        }
        let src = if dst == 0 {
            self.c0_capacity
        } else {
            self.disk[dst - 1].entries
        };
        self.before_extents_change();
        let per = self.io.per_page as u64;
        let want = (src + self.disk[dst].entries) * 5 / 4;
        let leaf_pages = want
            .div_ceil(per)
            .min(self.extent_pages.unwrap_or(u64::MAX))
            .max(2);
        let leaves = self.alloc_up_to(leaf_pages)?;
        let tree = self.with_directory(leaves)?;
        let id = self.next_tree;
        self.next_tree += 1;
        self.trees.insert(id, tree);
        if let Some(p) = self.disk[dst].pass.as_mut() {
            p.builder = Some(id);
        }
        Ok(id)
    }

    /// A tree to build in the leaf extent `(start, pages)` and a directory
    /// extent sized for it; on failure the leaf extent is given back.
    pub(super) fn with_directory(&mut self, (leaf_start, leaf_pages): (u64, u64)) -> Result<Tree> {
        let span = self.io.span;
        let dir_pages = leaf_pages / (self.io.per_page as u64 - 1) + DIR_SLACK;
        match self.extents.alloc(dir_pages * span) {
            Ok(dir_start) => Ok(Tree::building(
                (leaf_start, leaf_pages),
                (dir_start, dir_pages),
            )),
            Err(e) => {
                self.extents.release(leaf_start, leaf_pages * span);
                Err(e)
            }
        }
    }

    /// An extent of `pages` run pages, or the largest power-of-two share
    /// of it (at least two pages) that free space allows.
    fn alloc_up_to(&mut self, mut pages: u64) -> Result<(u64, u64)> {
        loop {
            match self.extents.alloc(pages * self.io.span) {
                Ok(start) => return Ok((start, pages)),
                Err(e) if pages <= 2 => return Err(e),
                Err(_) => pages = (pages / 2).max(2),
            }
        }
    }

    /// Seals tree `id` and returns the rest of its extents.
    pub(super) fn seal(&mut self, id: u32) -> Result<()> {
        self.before_extents_change();
        let span = self.io.span;
        let t = self.trees.get_mut(&id).ok_or_else(|| missing_tree(id))?;
        self.io.seal(t)?;
        self.extents.release(
            t.leaf_start + t.leaves * span,
            (t.leaf_reserved - t.leaves) * span,
        );
        self.extents.release(
            t.dir_start + t.dirs * span,
            (t.dir_reserved - t.dirs) * span,
        );
        t.leaf_reserved = t.leaves;
        t.dir_reserved = t.dirs;
        Ok(())
    }

    fn end_pass(&mut self, dst: usize) -> Result<()> {
        let c = &mut self.disk[dst];
        let builder = c.pass.take().and_then(|p| p.builder);
        c.passes += 1;
        if let Some(id) = builder {
            self.seal(id)?;
        }
        self.free_unreferenced()
    }

    /// Removes the pairs in `(after, upto]` from `disk[c]`'s segments.
    fn cut(&mut self, c: usize, after: Option<Pair>, upto: Pair) {
        let segments = &mut self.disk[c].segments;
        let mut out = Vec::with_capacity(segments.len() + 1);
        for s in segments.drain(..) {
            if Some(s.high) <= after || s.low >= Some(upto) {
                out.push(s);
                continue;
            }
            if let Some(a) = after.filter(|&a| s.low < Some(a)) {
                out.push(Segment { high: a, ..s });
            }
            if s.high > upto {
                out.push(Segment {
                    low: Some(upto),
                    ..s
                });
            }
        }
        *segments = out;
    }

    /// Gives `disk[c]` the range `(low, high]` of `tree`.
    fn add_segment(&mut self, c: usize, tree: u32, low: Option<Pair>, high: Pair) {
        let segments = &mut self.disk[c].segments;
        let at = segments.partition_point(|s| s.high < high);
        if at > 0 {
            let prev = &mut segments[at - 1];
            if prev.tree == tree && Some(prev.high) == low {
                prev.high = high;
                return;
            }
        }
        segments.insert(at, Segment { tree, low, high });
    }

    /// Frees every tree no segment, pass or C0 snapshot names.
    pub(super) fn free_unreferenced(&mut self) -> Result<()> {
        let mut live: HashSet<u32> = self.c0_tree.into_iter().collect();
        for c in &self.disk {
            live.extend(c.segments.iter().map(|s| s.tree));
            live.extend(c.pass.as_ref().and_then(|p| p.builder));
        }
        let dead: Vec<u32> = self
            .trees
            .keys()
            .copied()
            .filter(|id| !live.contains(id))
            .collect();
        for id in dead {
            self.free_tree(id)?;
        }
        Ok(())
    }

    pub(super) fn free_tree(&mut self, id: u32) -> Result<()> {
        let Some(t) = self.trees.remove(&id) else {
            return Ok(());
        };
        let span = self.io.span;
        for (start, pages) in [
            (t.leaf_start, t.leaf_reserved),
            (t.dir_start, t.dir_reserved),
        ] {
            let n = pages * span;
            self.io.forget(start, n);
            for lba in start..start + n {
                self.io.dev().trim(lba)?;
            }
            self.extents.release(start, n);
        }
        Ok(())
    }
}
