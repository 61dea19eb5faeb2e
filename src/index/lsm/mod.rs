//! `lsm`: the log-structured merge-tree of O'Neil, Cheng, Gawlick and
//! O'Neil (Acta Informatica 33(4), 1996), the write-optimised baseline
//! Li et al. 2009 §III compares against.
//!
//! * **C0** lives in memory (a sorted map standing in for the paper's AVL
//!   tree) and takes every insert and delete.
//! * **C1 … Ck** are B+-trees on flash (`lsm::tree`) with leaves packed full;
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
//!   The steps, passes and the trees they build are `lsm::merge`.
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
//! * **Versions of keys** (`versions=key`, a map store's LSM-tree: the
//!   `store` module). The paper's entries are pairs, and a search returns
//!   every pair of a key. With `versions=key`, recorded in the
//!   superblock, the unit of versioning is the key instead: C0 holds at
//!   most one entry per key (an insert or upsert replaces the key's entry
//!   there), a merge step that meets two entries of one key keeps the
//!   newer (the source's) and drops the older, so every component holds
//!   at most one entry per key, and a lookup stops at the first component
//!   that holds the key — C0, then C1, … — whose entry (a value or a
//!   delete entry) is the answer. An upsert therefore reads nothing
//!   (`Index::upsert`). Merge steps end on a key boundary (a step's range
//!   is `(cursor, (k, u64::MAX)]`), so no component ever holds two
//!   versions of a key. A file of versions is never read as pairs: the
//!   flag is checked at open (`kinds::reopen::agree_versions`).
//!
//! Parameters: `ratio` (default half the entries a page holds, the FD-tree's
//! default k, so the two compare at one size ratio), `c0_bytes` (default
//! the FD-tree's head: one erase block, or 128 KiB without erase units, at
//! most half the memory), `page_bytes` (a multiple of the device's page),
//! `extent_bytes` (the most a tree a pass builds reserves at once; by
//! default the whole pass, source and destination and a quarter more, so
//! a pass is one tree; a store on a file sets it, `registry::store_defaults`,
//! so that a pass is a chain of trees each freed as soon as the next pass
//! has swept it, and the file stays near the data's size instead of
//! holding a whole old and a whole new component),
//! `layout_above` (default 10^8 entries: a bulk load of more lays out the
//! components between C1 and the bottom at capacity instead of leaving
//! them to the steady state's random inserts, `lsm::bulk`; not recorded on
//! flash, it only shapes a bulk load),
//! `key_bytes`, `value_bytes`, and `tables` (accepted for every index,
//! `node::budget`; the LSM-tree keeps no data-bound table, so it changes
//! nothing).
//!
//! Memory (`memory_bytes`, at on-flash entry widths: `key_bytes +
//! value_bytes + 1` bytes an entry). Every structure is budget-bound; none
//! is data-bound (no table with an entry per page or tree grows with the
//! data: the run directory has an entry per tree and segment, a few per
//! component). The budget pays, in this order:
//! * C0, at its capacity (`c0_bytes`) whether full or not;
//! * the merge buffers O'Neil et al.'s rolling merge keeps: the entries a
//!   step takes from the source (one leaf, or a leaf's worth of C0), the
//!   emptying block it reads them from, and one leaf of the destination,
//!   which a step reads and merges leaf by leaf (not the whole range the
//!   step covers, which grows with the ratio of the two components) — a
//!   page of entries each, kept between steps;
//! * the filling blocks: the partial nodes of each tree a pass is building;
//! * the run directory (the trees and segments the state record names);
//! * the LRU page cache, which gets what is left, in whole pages, resized
//!   after every operation (`fit_cache`), so the count never passes the
//!   budget at an operation boundary. A budget that cannot hold C0, the
//!   merge buffers, a filling leaf and a cached page is
//!   `IndexError::BudgetTooSmall`.
//!
//! On-flash format (`lsm::meta`, `docs/FORMAT.md`): the superblock at page 0,
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
mod merge;
pub(crate) mod meta;
mod tree;

use std::collections::BTreeMap;

use crate::device::Storage;
use crate::index::runs::page::{
    capacity_above_bottom, entry_bytes, Entry, Extents, Geometry, Kind,
};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};
use crate::node::Budget;

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

/// The LSM-tree.
pub struct LsmTree {
    io: PageIo,
    device_page: usize,
    ratio: u64,
    /// C0's capacity in entries.
    c0_capacity: u64,
    /// C0: each pair with `true` for an entry, `false` for a delete entry.
    c0: BTreeMap<Pair, bool>,
    /// `versions=key` (module doc, "Versions of keys").
    by_key: bool,
    /// `extent_bytes` in run pages: the most a pass's tree reserves.
    extent_pages: Option<u64>,
    /// `layout_above`: a bulk load of more entries lays out C2 … C(b−1)
    /// at capacity (`lsm::bulk`).
    layout_above: u64,
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
    /// The memory budget (no data-bound tables: `tables` changes nothing).
    budget: Budget,
    dropped_filters: u64,
    /// During a step: the extent allocator before the step changed it
    /// (`Some(None)` while it has not).
    step_extents: Option<Option<Extents>>,
    /// The merge buffers, one leaf each, reused by every step and search:
    /// the entries a step takes from the source, and the leaf of the
    /// destination it merges them with.
    batch: Vec<Entry>,
    older: Vec<Entry>,
    /// The destination's segments a step reads.
    ranges: Vec<Segment>,
    found: Vec<(Pair, bool, usize)>,
}

struct Options {
    format: EntryFormat,
    budget: Budget,
    ratio: Option<u64>,
    c0_bytes: Option<usize>,
    page_bytes: Option<usize>,
    extent_bytes: Option<usize>,
    layout_above: u64,
    versions_by_key: bool,
}

fn options(params: &mut Params, memory: usize) -> Result<Options> {
    let format = EntryFormat::new(params.get("key_bytes", 4)?, params.get("value_bytes", 4)?)?;
    let ratio = params.get_opt("ratio")?;
    let c0_bytes = params.get_opt("c0_bytes")?;
    let page_bytes = params.get_opt("page_bytes")?;
    let extent_bytes = params.get_opt("extent_bytes")?;
    let layout_above = params.get("layout_above", bulk::LAYOUT_ABOVE)?;
    let versions_by_key = params.versions_by_key()?;
    let budget = params.budget(memory)?;
    params.finish(NAME)?;
    Ok(Options {
        format,
        budget,
        ratio,
        c0_bytes,
        page_bytes,
        extent_bytes,
        layout_above,
        versions_by_key,
    })
}

fn entry(p: Pair, present: bool) -> Entry {
    Entry {
        key: p.0,
        value: p.1,
        kind: if present { Kind::Index } else { Kind::Filter },
    }
}

/// Bytes a step needs besides C0: the two merge buffers and the emptying
/// block (a page of entries each), the filling leaf of one pass and one
/// cached page. Less, and a step cannot run.
fn working_set(page_size: usize, per_page: u64, format: EntryFormat) -> usize {
    3 * per_page as usize * entry_bytes(format) + 2 * page_size
}

/// The last pair before `(key, 0)`.
fn before(key: u64) -> Option<Pair> {
    key.checked_sub(1).map(|k| (k, u64::MAX))
}

impl LsmTree {
    fn build(storage: Storage, memory: usize, o: Options) -> Result<LsmTree> {
        let Options {
            format,
            budget,
            ratio,
            c0_bytes,
            page_bytes,
            extent_bytes,
            layout_above,
            versions_by_key,
        } = o;
        let g = Geometry::of(
            &storage,
            format,
            page_bytes,
            c0_bytes,
            memory,
            ("LSM-tree", "c0_bytes"),
            (
                "the merge buffers (three pages of entries), a filling leaf and a cached page",
                working_set,
            ),
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
        let per = g.per_page as usize;
        let mut t = LsmTree {
            io: PageIo::new(storage, format, page_size, span, cache_pages),
            device_page,
            ratio,
            c0_capacity,
            c0: BTreeMap::new(),
            by_key: versions_by_key,
            extent_pages: extent_bytes.map(|b| (b / page_size).max(2) as u64),
            layout_above,
            c0_tree: None,
            dirty: true,
            c0_dirty: true,
            disk: Vec::new(),
            trees: BTreeMap::new(),
            next_tree: 0,
            extents: Extents::new(1, capacity),
            state_extent: (0, 0),
            budget,
            dropped_filters: 0,
            step_extents: None,
            batch: Vec::with_capacity(per),
            older: Vec::with_capacity(per),
            ranges: Vec::new(),
            found: Vec::new(),
        };
        t.fit_cache();
        Ok(t)
    }

    /// A new, empty LSM-tree on `storage`.
    pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let o = options(&mut params, memory)?;
        let mut t = Self::build(storage, memory, o)?;
        t.flush()?;
        Ok(t)
    }

    /// Reopens the LSM-tree `flush` left on `storage`.
    pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let sb = meta::read(&mut storage)?;
        sb.agree(&mut params)?;
        let o = options(&mut params, memory)?;
        let mut t = Self::build(storage, memory, o)?;
        t.load(sb)?;
        t.fit_cache();
        Ok(t)
    }

    /// Fills `found` with the newest version of every pair with a key in
    /// `lo..=hi` (invariant 2): (pair, present, component).
    /// With versions of keys, the newest version of every key, and a
    /// lookup of one key stops at the first component that holds it.
    fn search(&mut self, lo: u64, hi: u64) -> Result<()> {
        self.collect(lo, hi, self.by_key && lo == hi)?;
        if self.by_key {
            self.found.dedup_by_key(|e| e.0 .0);
        } else {
            self.found.dedup_by_key(|e| e.0);
        }
        Ok(())
    }

    /// Fills `found` with every version of every pair with a key in
    /// `lo..=hi`, by pair and then newest first (with versions of keys:
    /// by key, then newest first); `first_only`: none from components
    /// past the first that has any.
    fn collect(&mut self, lo: u64, hi: u64, first_only: bool) -> Result<()> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        if first_only {
            // One key: one descent of C0 to its first pair, not two.
            found.extend(
                self.c0
                    .range((lo, 0)..)
                    .next()
                    .filter(|(p, _)| p.0 == lo)
                    .map(|(&p, &present)| (p, present, 0)),
            );
        } else {
            found.extend(
                self.c0
                    .range((lo, 0)..=(hi, u64::MAX))
                    .map(|(&p, &present)| (p, present, 0)),
            );
        }
        let mut scratch = std::mem::take(&mut self.older);
        let mut r = Ok(());
        'components: for (ci, c) in self.disk.iter().enumerate() {
            if first_only && !found.is_empty() {
                break;
            }
            // Segments are disjoint and ascend (invariant 1): the first that
            // can hold `lo` by binary search, then on until past `hi`.
            let first = c.segments.partition_point(|s| s.high < (lo, 0));
            for s in &c.segments[first..] {
                if s.low >= Some((hi, u64::MAX)) {
                    break;
                }
                let Some(t) = self.trees.get(&s.tree) else {
                    r = Err(missing_tree(s.tree));
                    break 'components;
                };
                if first_only {
                    // One key, at most one version a component.
                    match self.io.find_key(t, lo) {
                        Ok(Some(e))
                            if s.low < Some((e.key, e.value)) && (e.key, e.value) <= s.high =>
                        {
                            found.push(((e.key, e.value), e.kind == Kind::Index, ci + 1));
                            break;
                        }
                        Ok(_) => continue,
                        Err(e) => {
                            r = Err(e);
                            break 'components;
                        }
                    }
                }
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
        // A range may have taken more than a leaf's worth: the merge
        // buffer goes back to one leaf (its charge in the budget).
        if scratch.capacity() > self.io.per_page {
            scratch.clear();
            scratch.shrink_to(self.io.per_page);
        }
        self.older = scratch;
        if self.by_key {
            found.sort_unstable_by_key(|e| (e.0 .0, e.2));
        } else {
            found.sort_unstable_by_key(|e| (e.0, e.2));
        }
        self.found = found;
        r
    }

    /// With versions of keys: drops C0's entry of `key` (at most one).
    fn remove_key_from_c0(&mut self, key: u64) {
        if let Some((&p, _)) = self.c0.range((key, 0)..=(key, u64::MAX)).next() {
            self.c0.remove(&p);
        }
    }

    /// With versions of keys, `delete(key, value)`: when the key's newest
    /// version holds `value`, a delete entry of the key takes its place
    /// in C0 (dropped when it reaches the bottom component), or C0's entry
    /// just goes when no component below holds the key.
    fn delete_key(&mut self, key: u64, value: u64) -> Result<bool> {
        self.collect(key, key, false)?;
        let Some(&((_, v), true, component)) = self.found.first() else {
            return Ok(false);
        };
        if v != value {
            return Ok(false);
        }
        let below = component != 0 || self.found.len() > 1;
        self.remove_key_from_c0(key);
        if below {
            self.c0.insert((key, value), false);
        }
        self.c0_dirty = true;
        self.dirty = true;
        self.maintain()?;
        Ok(true)
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

    /// Bytes held besides C0 and the page cache: the partial nodes of
    /// the trees being built, the merge buffers (at their capacity, which
    /// they keep between steps), the emptying block and the run directory
    /// (the trees and segments the state record names, and a step's copy).
    fn held_besides_c0_and_cache(&self) -> usize {
        let partial: usize = self.trees.values().map(Tree::partial_entries).sum();
        let merge = self.batch.capacity() + self.older.capacity() + self.io.emptying_entries();
        let segments: usize = self.disk.iter().map(|c| c.segments.len()).sum();
        let directory = self.trees.len() * std::mem::size_of::<(u32, Tree)>()
            + (segments + self.ranges.capacity()) * std::mem::size_of::<Segment>();
        (partial + merge) * entry_bytes(self.io.format) + directory
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
        if self.by_key {
            self.remove_key_from_c0(key);
        }
        self.c0.insert((key, value), true);
        self.c0_dirty = true;
        self.dirty = true;
        self.maintain()
    }

    fn versions_by_key(&self) -> bool {
        self.by_key
    }

    /// With versions of keys, an insert: the key's newest version.
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        if !self.by_key {
            return Err(IndexError::Config(
                "an LSM-tree of pairs (versions=pair) has no blind upsert".into(),
            ));
        }
        self.insert(key, value)
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.bulk_load_sorted(entries)
    }

    /// The capacity of every component above the bottom one, C0 included:
    /// rolling merges run whenever a component passes its capacity, so in
    /// steady state each stays at it. Where the bulk load lays out C2 …
    /// C(b−1) at capacity (`layout_above`, `lsm::bulk`), C0 and C1 only.
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        let rolling = self.rolling_capacity(entries);
        if self.lays_out(entries - rolling) {
            return rolling;
        }
        capacity_above_bottom(self.c0_capacity, self.ratio, entries, 1)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.io.format.check(key, value)?;
        if self.c0.len() as u64 > self.c0_capacity {
            self.maintain()?;
        }
        if self.by_key {
            return self.delete_key(key, value);
        }
        self.collect(key, key, false)?;
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
        // Keys past the entry format's width are never stored, and a
        // range wholly past it is empty (not a reversed range below).
        let hi = hi.min(self.io.format.max_key());
        if lo > hi {
            return Ok(());
        }
        self.search(lo, hi)?;
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
            versions_by_key: self.by_key,
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
        self.fit_cache();
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.c0.len() * entry_bytes(self.io.format)
            + self.held_besides_c0_and_cache()
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
        s.set("cache_pages", self.io.cache.capacity() as f64);
        s.set("cache_hits", self.io.cache.hits as f64);
        s.set("cache_misses", self.io.cache.misses as f64);
        s.set("memory_budget", self.budget.total as f64);
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
