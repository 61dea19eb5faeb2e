//! `lsm`: the log-structured merge-tree of O'Neil, Cheng, Gawlick and
//! O'Neil (Acta Informatica 33(4), 1996), the write-optimised baseline
//! `fd-tree.md` §III compares against.
//!
//! * **C0** lives in memory (a sorted map standing in for the paper's AVL
//!   tree) and takes every insert and delete.
//! * **C1 … Ck** are B+-trees on flash ([`tree`]) with leaves packed full;
//!   component `Ci` is meant to hold `ratio` times `Ci−1` (`c0_bytes` of
//!   entries for C0).
//! * **Rolling merges.** Between each pair of adjacent components a merge
//!   cursor circulates through the key space. A *step* of the merge from
//!   `Ci−1` into `Ci` takes the entries of `Ci−1` past the cursor — one
//!   leaf of them (the emptying block), or one leaf's worth of C0 — reads
//!   the entries of `Ci` in the same key range, merges the two, and writes
//!   the result into the tree the pass is building for `Ci`, whose leaves
//!   follow one another in one extent (sequential writes) and whose
//!   directory nodes are written as they fill (bottom-up). The merged
//!   range then belongs to the new tree; `Ci−1` and the trees `Ci` held
//!   before give it up. When the cursor has passed the last entry of
//!   `Ci−1`, the pass ends and the next starts from the first key. Merges
//!   are paced by the inserts, as in the paper: whenever C0 passes its
//!   capacity, steps run until it is back within it, and whenever `Ci`
//!   passes `c0 · ratioⁱ`, steps from `Ci` into `Ci+1` run (adding a
//!   component at the bottom when the last one overflows).
//! * A component is therefore a list of *segments* — key ranges `(low,
//!   high]` of pairs, each naming the tree that holds them — which are
//!   disjoint and in key order. A tree whose every range has been merged
//!   away is freed; a pass frees the trees it has swept when it ends.
//! * **Deletes** insert a delete node entry (a filter entry) into C0 that
//!   shadows older versions of the pair in lower components; a merge keeps
//!   the newer of two versions of a pair and drops filter entries when it
//!   writes into the bottom component. Every version of a pair in `Ci` is
//!   newer than any in `Ci+1`, so a search takes the first version it
//!   meets, looking in C0 and then in every component.
//! * **Search** looks in every component (§III: "a single search on
//!   LSM-tree requires searching on multiple B+-tree components"): in each,
//!   the segment covering the key, then the tree's root-to-leaf path
//!   through an LRU cache of pages.
//!
//! Parameters: `ratio` (default half the entries a page holds, the FD-tree's
//! default k, so the two compare at one size ratio), `c0_bytes` (default
//! the FD-tree's head: one erase block, or 128 KiB without erase units, at
//! most half the memory), `page_bytes` (a multiple of the device's page),
//! `key_bytes`, `value_bytes`. The rest of the memory budget is the page
//! cache.
//!
//! On-flash format ([`meta`], `docs/FORMAT.md`): the superblock at page 0,
//! trees of run pages, and a state record naming the trees, segments and
//! cursors. Durability: `flush` seals every tree being built (its partial
//! nodes are written; the pass goes on into a new tree), writes C0 as a
//! tree, then the state record and the superblock; over the commit layer
//! that is atomic.
//!
//! Invariants:
//! 1. Within a component segments are disjoint and sorted; during a pass
//!    into `Ci`, the pass's trees own exactly the ranges at or below its
//!    cursor that `Ci` has not given up.
//! 2. For every pair, its versions in C0, C1, … are newest first.
//! 3. A component's `entries` is the number of entries its segments hold.

mod bulk;
mod meta;
mod tree;

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;

use crate::device::Storage;
use crate::index::run_page::{
    capacity_above_bottom, entry_bytes, level_capacity, Entry, Extents, Geometry, Kind,
};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};

use meta::{ComponentState, Segment, State, Superblock, TreeState};
use tree::{PageIo, Pair, Tree};

/// Name in the registry.
pub const NAME: &str = "lsm";

/// Directory pages reserved beyond one per `f − 1` leaves: one partial
/// node per height, for trees up to this height.
const DIR_SLACK: u64 = 16;

/// A rolling merge under way into a component.
#[derive(Clone, Debug, Default)]
struct Pass {
    /// The last pair the pass has merged; `None` before its first step.
    cursor: Option<Pair>,
    /// The tree the pass is filling.
    builder: Option<u32>,
    /// The last pair written into `builder`.
    last_pushed: Option<Pair>,
}

#[derive(Clone, Debug, Default)]
struct Component {
    entries: u64,
    pass: Option<Pass>,
    segments: Vec<Segment>,
    steps: u64,
    passes: u64,
}

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

/// The LSM-tree.
pub struct LsmTree {
    io: PageIo,
    device_page: usize,
    ratio: u64,
    /// C0's capacity in entries.
    c0_capacity: u64,
    /// C0: each pair with `true` for an entry, `false` for a delete entry.
    c0: BTreeMap<Pair, bool>,
    /// C0 as the last flush wrote it.
    c0_tree: Option<u32>,
    /// Whether anything changed since the last flush.
    dirty: bool,
    c0_dirty: bool,
    /// C1, C2, … (index 0 is C1).
    disk: Vec<Component>,
    trees: BTreeMap<u32, Tree>,
    next_tree: u32,
    extents: Extents,
    /// The state record the last flush wrote: first LBA and pages.
    state_extent: (u64, u64),
    memory_budget: usize,
    cache_pages: usize,
    dropped_filters: u64,
    /// During a step: the extent allocator before the step changed it
    /// (`Some(None)` while it has not).
    step_extents: Option<Option<Extents>>,
    /// Buffers reused by every step and search.
    batch: Vec<Entry>,
    older: Vec<Entry>,
    found: Vec<(Pair, bool, usize)>,
}

struct Options {
    format: EntryFormat,
    ratio: Option<u64>,
    c0_bytes: Option<usize>,
    page_bytes: Option<usize>,
}

fn options(params: &mut Params) -> Result<Options> {
    let format = EntryFormat::new(params.get("key_bytes", 4)?, params.get("value_bytes", 4)?)?;
    let ratio = params.get_opt("ratio")?;
    let c0_bytes = params.get_opt("c0_bytes")?;
    let page_bytes = params.get_opt("page_bytes")?;
    params.finish(NAME)?;
    Ok(Options {
        format,
        ratio,
        c0_bytes,
        page_bytes,
    })
}

fn entry(p: Pair, present: bool) -> Entry {
    Entry {
        key: p.0,
        value: p.1,
        kind: if present { Kind::Index } else { Kind::Filter },
    }
}

/// The last pair before `(key, 0)`.
fn before(key: u64) -> Option<Pair> {
    key.checked_sub(1).map(|k| (k, u64::MAX))
}

impl LsmTree {
    fn build(storage: Storage, memory: usize, o: Options) -> Result<LsmTree> {
        let Options {
            format,
            ratio,
            c0_bytes,
            page_bytes,
        } = o;
        let g = Geometry::of(
            &storage, format, page_bytes, c0_bytes, memory, "LSM-tree", "c0_bytes",
        )?;
        let f = g.per_page;
        let ratio = ratio.unwrap_or(f / 2);
        if ratio < 2 {
            return Err(IndexError::Config(format!(
                "ratio = {ratio}: each component must be at least twice the one above"
            )));
        }
        let (device_page, capacity, page_size, span) =
            (g.device_page, g.capacity, g.page_size, g.span);
        let (c0_capacity, cache_pages) = (g.buffer_entries, g.cache_pages);
        Ok(LsmTree {
            io: PageIo::new(storage, format, page_size, span, cache_pages),
            device_page,
            ratio,
            c0_capacity,
            c0: BTreeMap::new(),
            c0_tree: None,
            dirty: true,
            c0_dirty: true,
            disk: Vec::new(),
            trees: BTreeMap::new(),
            next_tree: 0,
            extents: Extents::new(1, capacity),
            state_extent: (0, 0),
            memory_budget: memory,
            cache_pages,
            dropped_filters: 0,
            step_extents: None,
            batch: Vec::new(),
            older: Vec::new(),
            found: Vec::new(),
        })
    }

    /// A new, empty LSM-tree on `storage`.
    pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let o = options(&mut params)?;
        let mut t = Self::build(storage, memory, o)?;
        t.flush()?;
        Ok(t)
    }

    /// Reopens the LSM-tree `flush` left on `storage`.
    pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let sb = meta::read(&mut storage)?;
        sb.agree(&mut params)?;
        let o = options(&mut params)?;
        let mut t = Self::build(storage, memory, o)?;
        t.load(sb)?;
        Ok(t)
    }

    /// Capacity of component `i` (0 = C0) in entries.
    fn capacity(&self, i: usize) -> u64 {
        level_capacity(self.c0_capacity, self.ratio, i)
    }

    /// Runs merge steps until every component is within its capacity.
    fn maintain(&mut self) -> Result<()> {
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

    /// Shrinks the page cache by the pages the partial nodes of the trees
    /// being filled take, so that memory stays within the budget.
    fn fit_cache(&mut self) {
        let partial: usize = self.trees.values().map(Tree::partial_entries).sum();
        let bytes = partial * entry_bytes(self.io.format);
        let taken = bytes.div_ceil(self.io.page_size);
        self.io
            .cache
            .set_capacity(self.cache_pages.saturating_sub(taken));
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
            Ok(batch.last().map(|e| (e.key, e.value)))
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
    /// (read into `older`) into the pass's trees.
    fn merge_batch(
        &mut self,
        dst: usize,
        cursor: Option<Pair>,
        high: Pair,
        batch: &[Entry],
        older: &mut Vec<Entry>,
        low: &mut Option<Pair>,
    ) -> Result<()> {
        // The entries of the destination in the same range.
        for s in &self.disk[dst].segments {
            if Some(s.high) <= cursor || s.low >= Some(high) {
                continue;
            }
            let t = self
                .trees
                .get(&s.tree)
                .ok_or_else(|| missing_tree(s.tree))?;
            self.io
                .scan(t, s.low.max(cursor), s.high.min(high), false, false, older)?;
        }
        self.cut(dst, cursor, high);
        self.disk[dst].entries = self.disk[dst].entries.saturating_sub(older.len() as u64);
        // Merge: the newer version of a pair wins.
        let bottom = dst + 1 == self.disk.len();
        let (mut i, mut j) = (0, 0);
        while i < batch.len() || j < older.len() {
            let e = match (batch.get(i), older.get(j)) {
                (Some(a), Some(b)) if (a.key, a.value) == (b.key, b.value) => {
                    i += 1;
                    j += 1;
                    *a
                }
                (Some(a), Some(b)) if (a.key, a.value) < (b.key, b.value) => {
                    i += 1;
                    *a
                }
                (Some(a), None) => {
                    i += 1;
                    *a
                }
                (_, Some(b)) => {
                    j += 1;
                    *b
                }
                (None, None) => break,
            };
            if bottom && e.kind == Kind::Filter {
                self.dropped_filters += 1;
                continue;
            }
            self.emit(dst, e, low)?;
        }
        Ok(())
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
        let high = batch.last().map_or(s.high, |e| (e.key, e.value));
        self.cut(src, cursor, high);
        let c = &mut self.disk[src];
        c.entries = c.entries.saturating_sub(batch.len() as u64);
        Ok(Some(high))
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
        let leaf_pages = want.div_ceil(per).max(2);
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
    fn with_directory(&mut self, (leaf_start, leaf_pages): (u64, u64)) -> Result<Tree> {
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
    fn seal(&mut self, id: u32) -> Result<()> {
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
    fn free_unreferenced(&mut self) -> Result<()> {
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

    fn free_tree(&mut self, id: u32) -> Result<()> {
        let Some(t) = self.trees.remove(&id) else {
            return Ok(());
        };
        let span = self.io.span;
        for (start, pages) in [
            (t.leaf_start, t.leaf_reserved),
            (t.dir_start, t.dir_reserved),
        ] {
            let n = pages * span;
            self.io.cache.forget(start, n);
            for lba in start..start + n {
                self.io.dev().trim(lba)?;
            }
            self.extents.release(start, n);
        }
        Ok(())
    }

    /// Fills `found` with the newest version of every pair with a key in
    /// `lo..=hi` (invariant 2): (pair, present, component).
    fn search(&mut self, lo: u64, hi: u64) -> Result<()> {
        self.collect(lo, hi)?;
        self.found.dedup_by_key(|e| e.0);
        Ok(())
    }

    /// Fills `found` with every version of every pair with a key in
    /// `lo..=hi`, by pair and then newest first.
    fn collect(&mut self, lo: u64, hi: u64) -> Result<()> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        found.extend(
            self.c0
                .range((lo, 0)..=(hi, u64::MAX))
                .map(|(&p, &present)| (p, present, 0)),
        );
        let mut scratch = std::mem::take(&mut self.older);
        let mut r = Ok(());
        'components: for (ci, c) in self.disk.iter().enumerate() {
            for s in &c.segments {
                if s.high < (lo, 0) || s.low >= Some((hi, u64::MAX)) {
                    continue;
                }
                let Some(t) = self.trees.get(&s.tree) else {
                    r = Err(missing_tree(s.tree));
                    break 'components;
                };
                scratch.clear();
                r = self.io.scan(
                    t,
                    s.low.max(before(lo)),
                    s.high.min((hi, u64::MAX)),
                    true,
                    false,
                    &mut scratch,
                );
                if r.is_err() {
                    break 'components;
                }
                found.extend(
                    scratch
                        .iter()
                        .map(|e| ((e.key, e.value), e.kind == Kind::Index, ci + 1)),
                );
            }
        }
        self.older = scratch;
        found.sort_unstable_by_key(|e| (e.0, e.2));
        self.found = found;
        r
    }

    /// Writes C0 as a tree (the flush's snapshot of it).
    fn write_c0(&mut self) -> Result<Option<u32>> {
        if self.c0.is_empty() {
            return Ok(None);
        }
        let per = self.io.per_page as u64;
        let pages = (self.c0.len() as u64).div_ceil(per);
        let span = self.io.span;
        let leaf_start = self.extents.alloc(pages * span)?;
        let mut t = self.with_directory((leaf_start, pages))?;
        let id = self.next_tree;
        self.next_tree += 1;
        for (&p, &present) in &self.c0 {
            self.io.push(&mut t, entry(p, present))?;
        }
        self.trees.insert(id, t);
        self.seal(id)?;
        Ok(Some(id))
    }

    /// Reads the state a superblock names.
    fn load(&mut self, sb: Superblock) -> Result<()> {
        let capacity = self.extents_capacity();
        if sb.high_water > capacity {
            return Err(IndexError::Corrupt {
                page: 0,
                detail: format!(
                    "LSM-tree superblock: high-water mark {} past the device's {capacity} pages",
                    sb.high_water
                ),
            });
        }
        let per = meta::state_per_page(self.device_page) as u64;
        let state_pages = sb.state_len.div_ceil(per);
        let state = meta::read_state(self.io.dev(), sb.state_start, sb.state_len)?;
        let span = self.io.span;
        let mut live = vec![(sb.state_start, state_pages)];
        for ts in &state.trees {
            let t = ts.tree();
            for (start, n) in [(t.leaf_start, t.leaves), (t.dir_start, t.dirs)] {
                let end = n.checked_mul(span).and_then(|n| start.checked_add(n));
                if n > 0 && (start == 0 || end.is_none_or(|e| e > sb.high_water)) {
                    return Err(IndexError::Corrupt {
                        page: 0,
                        detail: format!(
                            "an LSM-tree tree of {n} pages at page {start} outside 1..{}",
                            sb.high_water
                        ),
                    });
                }
                live.push((start, n * span));
            }
            if self.trees.insert(ts.id, t).is_some() {
                return Err(IndexError::Corrupt {
                    page: sb.state_start,
                    detail: format!("LSM-tree tree {} named twice", ts.id),
                });
            }
        }
        self.next_tree = self.trees.keys().next_back().map_or(0, |&m| m + 1);
        self.extents = Extents::new(1, capacity);
        self.extents.high_water = sb.high_water;
        live.sort_unstable();
        let mut at = 1;
        for &(start, n) in &live {
            if n == 0 {
                continue;
            }
            if start < at {
                return Err(IndexError::Corrupt {
                    page: start,
                    detail: "two LSM-tree extents overlap".into(),
                });
            }
            if start > at {
                self.extents.release(at, start - at);
            }
            at = start + n;
        }
        if sb.high_water > at {
            self.extents.release(at, sb.high_water - at);
        }
        self.state_extent = (sb.state_start, state_pages);
        for cs in state.components {
            let ComponentState {
                entries,
                pass,
                cursor,
                segments,
            } = cs;
            let ordered = segments.windows(2).all(|w| Some(w[0].high) <= w[1].low)
                && segments.iter().all(|s| s.low < Some(s.high));
            if !ordered || segments.iter().any(|s| !self.trees.contains_key(&s.tree)) {
                return Err(IndexError::Corrupt {
                    page: sb.state_start,
                    detail: "LSM-tree segments out of order or naming no tree".into(),
                });
            }
            self.disk.push(Component {
                entries,
                pass: pass.then_some(Pass {
                    cursor,
                    ..Pass::default()
                }),
                segments,
                ..Component::default()
            });
        }
        if let Some(id) = state.c0_tree {
            let t = self.trees.get(&id).ok_or_else(|| missing_tree(id))?;
            let mut all = Vec::new();
            self.io
                .scan(t, None, (u64::MAX, u64::MAX), false, false, &mut all)?;
            self.c0 = all
                .iter()
                .map(|e| ((e.key, e.value), e.kind == Kind::Index))
                .collect();
        }
        self.c0_tree = state.c0_tree;
        self.dirty = false;
        self.c0_dirty = false;
        Ok(())
    }

    fn extents_capacity(&self) -> u64 {
        match &self.io.storage {
            Storage::Pages(d) => d.capacity_pages(),
            Storage::Raw(_) => 0,
        }
    }

    fn state(&self) -> State {
        State {
            trees: self
                .trees
                .iter()
                .map(|(&id, t)| TreeState::of(id, t))
                .collect(),
            c0_tree: self.c0_tree,
            components: self
                .disk
                .iter()
                .map(|c| ComponentState {
                    entries: c.entries,
                    pass: c.pass.is_some(),
                    cursor: c.pass.as_ref().and_then(|p| p.cursor),
                    segments: c.segments.clone(),
                })
                .collect(),
        }
    }
}

fn missing_tree(id: u32) -> IndexError {
    IndexError::Corrupt {
        page: 0,
        detail: format!("an LSM-tree segment names tree {id}, which does not exist"),
    }
}

impl Index for LsmTree {
    fn name(&self) -> &'static str {
        NAME
    }

    fn format(&self) -> EntryFormat {
        self.io.format
    }

    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.io.format.check(key, value)?;
        // After a failed step (a full device) C0 is over its capacity: the
        // merge is retried first, and nothing new is taken while it fails.
        if self.c0.len() as u64 > self.c0_capacity {
            self.maintain()?;
        }
        self.c0.insert((key, value), true);
        self.c0_dirty = true;
        self.dirty = true;
        self.maintain()
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.bulk_load_sorted(entries)
    }

    /// The capacity of every component above the bottom one, C0 included:
    /// rolling merges run whenever a component passes its capacity, so in
    /// steady state each stays at it.
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        capacity_above_bottom(self.c0_capacity, self.ratio, entries, 1)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.io.format.check(key, value)?;
        if self.c0.len() as u64 > self.c0_capacity {
            self.maintain()?;
        }
        self.collect(key, key)?;
        let pair = (key, value);
        let at = self.found.partition_point(|e| e.0 < pair);
        let versions = &self.found[at..];
        let newest = versions.first().filter(|e| e.0 == pair).copied();
        let Some((_, true, component)) = newest else {
            return Ok(false);
        };
        // An entry still in C0 goes, unless the next version below it is
        // an entry that would then show through.
        let shadows = component != 0 || versions.get(1).is_some_and(|e| e.0 == pair && e.1);
        if shadows {
            self.c0.insert(pair, false);
        } else {
            self.c0.remove(&pair);
        }
        self.c0_dirty = true;
        self.dirty = true;
        self.maintain()?;
        Ok(true)
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.io.format.check_key(key)?;
        self.search(key, key)?;
        out.clear();
        out.extend(self.found.iter().filter(|e| e.1).map(|e| e.0 .1));
        Ok(())
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        out.clear();
        if lo > hi {
            return Ok(());
        }
        self.search(lo, hi.min(self.io.format.max_key()))?;
        out.extend(self.found.iter().filter(|e| e.1).map(|e| e.0));
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.dirty {
            self.io.dev().sync()?;
            return Ok(());
        }
        for dst in 0..self.disk.len() {
            let builder = self.disk[dst].pass.as_mut().and_then(|p| p.builder.take());
            if let Some(id) = builder {
                self.seal(id)?;
            }
        }
        self.free_unreferenced()?;
        let old_c0 = if self.c0_dirty {
            let old = self.c0_tree;
            self.c0_tree = self.write_c0()?;
            self.c0_dirty = false;
            old
        } else {
            None
        };
        let bytes = self.state().encode();
        let pages = (bytes.len() as u64)
            .div_ceil(meta::state_per_page(self.device_page) as u64)
            .max(1);
        let start = self.extents.alloc(pages)?;
        meta::write_state(self.io.dev(), start, &bytes)?;
        let sb = Superblock {
            format: self.io.format,
            page_size: self.io.page_size as u32,
            ratio: self.ratio,
            c0_capacity: self.c0_capacity,
            high_water: self.extents.high_water,
            state_start: start,
            state_len: bytes.len() as u64,
        };
        meta::write(self.io.dev(), &sb)?;
        self.io.dev().sync()?;
        // What the new state replaced.
        let (old_start, old_pages) = std::mem::replace(&mut self.state_extent, (start, pages));
        for lba in old_start..old_start + old_pages {
            self.io.dev().trim(lba)?;
        }
        self.extents.release(old_start, old_pages);
        if let Some(id) = old_c0 {
            self.free_tree(id)?;
        }
        self.dirty = false;
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        let partial: usize = self.trees.values().map(Tree::partial_entries).sum();
        (self.c0.len() + partial) * entry_bytes(self.io.format)
            + self.io.cache.len() * self.io.page_size
    }

    fn stats(&self) -> IndexStats {
        let mut s = IndexStats::default();
        s.set("ratio", self.ratio as f64);
        s.set("entries_per_page", self.io.per_page as f64);
        s.set("c0_capacity", self.c0_capacity as f64);
        s.set("c0_entries", self.c0.len() as f64);
        s.set("components", (self.disk.len() + 1) as f64);
        for (i, c) in self.disk.iter().enumerate() {
            s.set(&format!("c{}_entries", i + 1), c.entries as f64);
            s.set(&format!("c{}_segments", i + 1), c.segments.len() as f64);
            s.set(&format!("merge_steps_into_c{}", i + 1), c.steps as f64);
            s.set(&format!("passes_into_c{}", i + 1), c.passes as f64);
        }
        s.set("trees", self.trees.len() as f64);
        s.set("dropped_delete_entries", self.dropped_filters as f64);
        s.set("cache_pages", self.cache_pages as f64);
        s.set("cache_hits", self.io.cache.hits as f64);
        s.set("cache_misses", self.io.cache.misses as f64);
        s.set("memory_budget", self.memory_budget as f64);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        let pages: u64 = self.trees.values().map(|t| t.leaves + t.dirs).sum();
        pages * self.io.page_size as u64 + (self.state_extent.1 + 1) * self.device_page as u64
    }

    fn storage(&self) -> &Storage {
        &self.io.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.io.storage
    }
}
