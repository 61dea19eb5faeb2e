//! `fdtree`: the FD-tree of Li, He, Luo and Yi (Li et al. 2009 §II), a tree
//! index for flash disks built with the logarithmic method and fractional
//! cascading.
//!
//! Levels L0 … L(l−1). L0, the *head tree*, takes every update; each lower
//! level Li is a *sorted run* in contiguous pages (`fdtree::run`), k times the
//! capacity of the level above (`‖Li‖ = kⁱ·‖L0‖`). A level holds index
//! entries (key, rid, type) and *fences* (key, type, pid): one external
//! fence per page of the level below (the key of that page's last entry),
//! and internal fences where the entries between two external fences span
//! pages (§II-A).
//!
//! * **Search** (§II-B): a lookup in the head tree gives the first fence at
//!   or after the key; at each level a binary search in the fence's page
//!   finds the first match, the scan collects every match and stops at the
//!   next fence at or after the key, whose pid is the page to read in the
//!   level below. A range search descends with its low end and scans each
//!   level from there.
//! * **Insert and merge** (§II-C): an insert goes into the head tree; when a
//!   level passes its capacity it is merged into the next by one sequential
//!   scan of both, written as a new run in contiguous pages, and the levels
//!   above are rebuilt from the new run's external fences; merges cascade.
//! * **Delete and update** (§II-D): a delete searches for the entry and
//!   inserts a *filter entry*; the entry it deletes becomes a *phantom*,
//!   and both vanish when a merge brings them together. An entry still in
//!   the head tree is deleted there directly. Update is delete + insert.
//!
//! **The head tree** holds at most `head_bytes` of entries and fences.
//! The default follows §II-A's rule, "the head tree fits into one erase
//! block", for a head that is a B+-tree: the erase block's run pages,
//! each filled to ln 2 of the entries it holds (the utilisation random
//! inserts leave in a B+-tree, §II-B's "typically ... 70%"), capped at
//! half the memory budget. The erase block is the device's, or
//! [`ERASE_BLOCK_PAGES`] of its pages on a device that exposes none (an
//! SSD model): a large-block NAND chip's block, 128 KiB of the 2 KB pages
//! of §III's disk, so a head of about 88 KiB of entries there. The
//! paper keeps it as a B+-tree on flash that its LRU buffer holds whole
//! ("likely to reside in the main memory"); here it lives in RAM as a
//! sorted map and is written out as a level-0 run at each flush, so its
//! random writes never reach the device between flushes in either. The
//! rest of the memory budget is an LRU cache of run pages (§III: "an LRU
//! buffer manager ... for caching recently accessed disk pages"); a merge
//! reads its inputs past the cache.
//!
//! Memory (`memory_bytes`, at on-flash entry widths: `key_bytes +
//! value_bytes + 1` bytes an entry). Every structure is budget-bound;
//! none is data-bound (the levels' metadata is a few words a level), so
//! `tables` (accepted for every index, `node::budget`) changes nothing.
//! The head's entries and its fences are held to `head_bytes` between
//! operations, and the LRU cache of run pages gets the rest of the budget
//! in whole pages: the count stays within the budget at every operation
//! boundary. A merge's readers and writer (a decoded page each, the new
//! run's last keys, a copy of the head's pairs) live only during the
//! insert that merges and are not counted; nothing stays of them between
//! operations. Nothing is a named excluded line; the sorted map's own node
//! slack is not counted (the model is the paper's packed head),
//! `tests/memory_accounting.rs` bounds it.
//!
//! **Duplicates.** An insert does not search (§II-C), so inserting a pair
//! already present adds a second index entry; a pair is present when its
//! index entries outnumber its filter entries, and a delete adds as many
//! filter entries as it finds index entries, so the index stays a set.
//!
//! **Versions of keys** (`versions=key`, a map store's FD-tree, recorded
//! in the superblock): the unit of versioning is the key instead of the
//! pair; the head holds one entry a key, an upsert reads nothing, merges
//! keep a key's newer entry, and a lookup stops at the first level that
//! holds the key (`fdtree::versions`).
//!
//! Parameters: `k` (size ratio; default half the entries a page holds, as
//! §III sets it, and below `f − 1`), `head_bytes`, `page_bytes` (a run
//! page: default the device's page, else a multiple of it, read and written
//! as that many consecutive device pages), `key_bytes`, `value_bytes`, and
//! `steady_state` (default `true`: a bulk load leaves the levels above the
//! bottom half full, as an FD-tree built by inserts holds them on average
//! over a merge cycle; `false` leaves them as the loader writes them,
//! fences only, the FD-tree right after a merge into its bottom level;
//! not recorded on flash, it only shapes a bulk load), `versions=pair|key`.
//!
//! On-flash format: the superblock at page 0 (`fdtree::superblock`), then runs
//! (`docs/FORMAT.md`). Durability: `flush` writes the head tree as a
//! level-0 run and then the superblock naming every run; over the commit
//! layer that is atomic, and runs that a merge frees are reused only
//! afterwards in the layer's view.
//!
//! Invariants:
//! 1. A pair's presence is its net count (index − filter entries) over L0
//!    and every run being positive; with versions of keys, a key's value
//!    is its entry in the first level holding one, and no level holds two
//!    entries of a key.
//! 2. Every level with a level below holds one external fence per page of
//!    the level below, the last as the run's last-fence.
//! 3. After a merge cascade every level is within its capacity.

mod bulk;
mod merge;
mod run;
pub(crate) mod superblock;
mod versions;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::device::{BlockDevice, Storage};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Params, Result};

use crate::index::runs::page::{capacity_above_bottom, level_capacity, Geometry};
use merge::{emit, fences_for, merge_into, Item, RunReader, Source, Versions};
use run::{entry_bytes, per_page, Entry, Extents, Kind, Page, PageCache, RunMeta, RunWriter};
use superblock::Superblock;

/// Name in the registry.
pub const NAME: &str = "fdtree";

/// The FD-tree.
pub struct FdTree {
    storage: Storage,
    format: EntryFormat,
    /// Bytes of a run page (`page_bytes`).
    page_size: usize,
    /// Device pages a run page spans.
    span: u64,
    /// Bytes of a device page (the superblock's).
    device_page: usize,
    k: u64,
    /// ‖L0‖ in entries.
    head_capacity: u64,
    /// Whether a bulk load is brought to the steady state (`steady_state`).
    steady_state: bool,
    /// `versions=key` (module doc, "Versions of keys").
    by_key: bool,
    /// L0's pairs with their net counts (with versions of keys, one pair
    /// a key, counting +1 or −1).
    head: BTreeMap<(u64, u64), i64>,
    /// Σ |count| over `head`.
    head_entries: u64,
    /// L0's external fences, one per page of L1.
    head_fences: Vec<Entry>,
    /// Whether the head changed since the last flush.
    head_dirty: bool,
    /// The head as the last flush wrote it (a level-0 run).
    head_run: RunMeta,
    /// L1, L2, … (index 0 is L1).
    levels: Vec<RunMeta>,
    extents: Extents,
    cache: PageCache,
    cache_pages: usize,
    memory_budget: usize,
    /// Merges into each level (index 0: into L1).
    merges: Vec<u64>,
    /// A search's (pair, count) entries, reused by every search.
    found: Vec<((u64, u64), i64)>,
    /// A run page read from the device, reused by every cache miss.
    page_buf: Vec<u8>,
    annihilated: u64,
}

/// Pages of the erase block assumed on a device that exposes none: a
/// large-block NAND chip's (64 pages of 2 KiB, 128 KiB).
pub const ERASE_BLOCK_PAGES: usize = 64;

/// The fill of the B+-tree the default head is sized as (ln 2, the
/// utilisation random inserts leave).
const HEAD_FILL: f64 = std::f64::consts::LN_2;

struct Options {
    format: EntryFormat,
    k: Option<u64>,
    head_bytes: Option<usize>,
    page_bytes: Option<usize>,
    steady_state: bool,
    versions_by_key: bool,
}

fn options(params: &mut Params) -> Result<Options> {
    let format = EntryFormat::new(params.get("key_bytes", 4)?, params.get("value_bytes", 4)?)?;
    let k = params.get_opt("k")?;
    let head_bytes = params.get_opt("head_bytes")?;
    let page_bytes = params.get_opt("page_bytes")?;
    let steady_state = params.get("steady_state", true)?;
    let versions_by_key = params.versions_by_key()?;
    // The FD-tree keeps no data-bound table: `tables` changes nothing.
    params.budget(0)?;
    params.finish(NAME)?;
    Ok(Options {
        format,
        k,
        head_bytes,
        page_bytes,
        steady_state,
        versions_by_key,
    })
}

/// The default head (§II-A: one erase block, as a B+-tree of run pages at
/// [`HEAD_FILL`]) in bytes of entries, at most half of `memory`; `None`
/// on storage other than logical pages (which `Geometry::of` rejects).
fn default_head_bytes(
    storage: &Storage,
    format: EntryFormat,
    page_bytes: Option<usize>,
    memory: usize,
) -> Option<usize> {
    let Storage::Pages(d) = storage else {
        return None;
    };
    let page = page_bytes.unwrap_or(d.page_size());
    let block = d.pages_per_block() as usize;
    Some(head_bytes_for(format, d.page_size(), block, page, memory))
}

/// The default head in bytes of entries on a device of `device_page`-byte
/// pages and `block_pages` pages an erase block (1 or 0: none exposed,
/// [`ERASE_BLOCK_PAGES`] assumed), with run pages of `page_bytes`, at most
/// half of `memory`.
pub fn head_bytes_for(
    format: EntryFormat,
    device_page: usize,
    block_pages: usize,
    page_bytes: usize,
    memory: usize,
) -> usize {
    let block_pages = if block_pages > 1 {
        block_pages
    } else {
        ERASE_BLOCK_PAGES
    };
    let nodes = (block_pages * device_page / page_bytes.max(1)).max(1);
    let entries = (nodes * per_page(format, page_bytes)) as f64 * HEAD_FILL;
    (entries as usize * entry_bytes(format)).min(memory / 2)
}

/// Entries (f) a run page of `page_bytes` holds, fences included.
pub fn entries_per_page(format: EntryFormat, page_bytes: usize) -> usize {
    per_page(format, page_bytes)
}

/// Bytes of one entry in a run page and in the head's budget.
pub fn entry_size(format: EntryFormat) -> usize {
    entry_bytes(format)
}

/// k = f / 2 (§III: the paper's "f = k/2" read the way §II-A's k < f − 1
/// allows) for run pages of `page_bytes` holding `format`'s entries.
pub fn default_k(format: EntryFormat, page_bytes: usize) -> u64 {
    (per_page(format, page_bytes) as u64 / 2).max(2)
}

impl FdTree {
    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `build` accepts only logical-page storage.
            Storage::Raw(_) => unreachable!("FdTree is built only on Storage::Pages"),
        }
    }

    /// Checks the storage and sizes the head and cache.
    fn build(storage: Storage, memory: usize, o: Options) -> Result<FdTree> {
        let Options {
            format,
            k,
            head_bytes,
            page_bytes,
            steady_state,
            versions_by_key,
        } = o;
        let head_bytes =
            head_bytes.or_else(|| default_head_bytes(&storage, format, page_bytes, memory));
        let g = Geometry::of(
            &storage,
            format,
            page_bytes,
            head_bytes,
            memory,
            ("FD-tree", "head_bytes"),
            ("two cached pages", |page_size, _, _| 2 * page_size),
        )?;
        let f = g.per_page;
        let k = k.unwrap_or_else(|| default_k(format, g.page_size));
        if k >= f - 1 {
            return Err(IndexError::Config(format!(
                "k = {k} must be below f − 1 = {} (Li et al. 2009 §II-A: fewer fences than entries)",
                f - 1
            )));
        }
        let (device_page, capacity, page_size, span) =
            (g.device_page, g.capacity, g.page_size, g.span);
        let head_capacity = g.buffer_entries;
        let cache_pages = g.cache_pages;
        Ok(FdTree {
            storage,
            format,
            page_size,
            span,
            device_page,
            k,
            head_capacity,
            steady_state,
            by_key: versions_by_key,
            head: BTreeMap::new(),
            head_entries: 0,
            head_fences: Vec::new(),
            head_dirty: true,
            head_run: RunMeta::default(),
            levels: Vec::new(),
            extents: Extents::new(1, capacity),
            cache: PageCache::new(cache_pages),
            cache_pages,
            memory_budget: memory,
            merges: Vec::new(),
            annihilated: 0,
            found: Vec::new(),
            page_buf: vec![0u8; page_size],
        })
    }

    /// A new, empty FD-tree on `storage`.
    pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let o = options(&mut params)?;
        let mut t = Self::build(storage, memory, o)?;
        t.flush()?;
        Ok(t)
    }

    /// Reopens the FD-tree `flush` left on `storage`.
    pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let sb = superblock::read(&mut storage)?;
        sb.agree(&mut params)?;
        let o = options(&mut params)?;
        let mut t = Self::build(storage, memory, o)?;
        t.load(sb)?;
        Ok(t)
    }

    /// Capacity of level `i` (0 = the head) in entries.
    fn capacity(&self, i: usize) -> u64 {
        level_capacity(self.head_capacity, self.k, i)
    }

    /// A run page through the cache.
    fn page(&mut self, level: usize, run: RunMeta, number: u64) -> Result<Arc<Page>> {
        if number >= run.pages {
            return Err(IndexError::Corrupt {
                page: run.start,
                detail: format!("a fence names page {number} of a {}-page run", run.pages),
            });
        }
        let lba = run.start + number * self.span;
        if let Some(p) = self.cache.get(lba) {
            return Ok(p);
        }
        // Into the cache's spare page, not a new one.
        let mut page = self.cache.recycled();
        let mut buf = std::mem::take(&mut self.page_buf);
        let at = (self.format, level as u8, number);
        let decoded = run::read_entries(self.dev(), lba, &mut buf, at, &mut page.entries);
        self.page_buf = buf;
        decoded?;
        let p = Arc::new(page);
        self.cache.put(lba, p.clone());
        Ok(p)
    }

    /// Adds to `found` every pair of the head with a key in `lo..=hi`, and
    /// returns the L1 page a search for `lo` goes to.
    fn search_head(&self, lo: u64, hi: u64, found: &mut Vec<((u64, u64), i64)>) -> Option<u64> {
        found.extend(
            self.head
                .range((lo, 0)..=(hi, u64::MAX))
                .map(|(&p, &c)| (p, c)),
        );
        self.head_fences
            .iter()
            .find(|f| f.covers(lo))
            .map(|f| f.value)
    }

    /// Scans level `level` (1-based) from page `start` (§II-B): adds the
    /// pairs with keys in `lo..=hi` to `found`, and returns the page of the
    /// level below that a search for `lo` goes to.
    fn scan_level(
        &mut self,
        level: usize,
        start: u64,
        lo: u64,
        hi: u64,
        found: &mut Vec<((u64, u64), i64)>,
    ) -> Result<Option<u64>> {
        let run = self.levels[level - 1];
        let has_lower = level < self.levels.len();
        let mut next = None;
        let mut number = start;
        let mut first = true;
        'pages: while number < run.pages {
            let page = self.page(level, run, number)?;
            let from = if first { page.lower_bound(lo) } else { 0 };
            first = false;
            for e in &page.entries[from..] {
                if e.kind.is_fence() {
                    if next.is_none() && e.covers(lo) {
                        next = Some(e.value);
                    }
                    if e.kind == Kind::Last || e.key > hi {
                        break 'pages;
                    }
                } else if e.key > hi {
                    if next.is_some() || !has_lower {
                        break 'pages;
                    }
                } else if e.key >= lo {
                    found.push(((e.key, e.value), e.kind.count()));
                }
            }
            number += 1;
        }
        if has_lower && next.is_none() {
            return Err(IndexError::Corrupt {
                page: run.start + number.min(run.pages.saturating_sub(1)),
                detail: format!("level {level} has no fence at or after key {lo}"),
            });
        }
        Ok(next)
    }

    /// Fills `found` with the net count of every pair with a key in
    /// `lo..=hi` (invariant 1), in pair order, one entry a pair. With
    /// versions of keys, the newest entry of every key (count +1 or −1),
    /// and a lookup of one key stops at the first level that holds it.
    fn search(&mut self, lo: u64, hi: u64) -> Result<()> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let r = self.collect(lo, hi, self.by_key && lo == hi, &mut found);
        if self.by_key {
            // `collect` adds level by level, newest first; a stable sort
            // keeps that order among a key's versions.
            found.sort_by_key(|e| e.0 .0);
            found.dedup_by_key(|e| e.0 .0);
        } else {
            found.sort_unstable_by_key(|e| e.0);
            found.dedup_by(|later, first| {
                if later.0 == first.0 {
                    first.1 += later.1;
                    true
                } else {
                    false
                }
            });
        }
        self.found = found;
        r
    }

    /// Adds to `found` the entries with keys in `lo..=hi` of the head and
    /// then of each level down (§II-B); `first_only`: none from the levels
    /// past the first that has any.
    fn collect(
        &mut self,
        lo: u64,
        hi: u64,
        first_only: bool,
        found: &mut Vec<((u64, u64), i64)>,
    ) -> Result<()> {
        let mut next = self.search_head(lo, hi, found);
        for level in 1..=self.levels.len() {
            if first_only && !found.is_empty() {
                break;
            }
            let start = next.ok_or_else(|| IndexError::Corrupt {
                page: 0,
                detail: format!("no fence leads into level {level}"),
            })?;
            next = self.scan_level(level, start, lo, hi, found)?;
        }
        Ok(())
    }

    fn add_to_head(&mut self, key: u64, value: u64, delta: i64) -> Result<()> {
        self.change_head(|t| {
            let c = t.head.entry((key, value)).or_insert(0);
            let before = c.unsigned_abs();
            *c += delta;
            let after = c.unsigned_abs();
            if *c == 0 {
                t.head.remove(&(key, value));
            }
            t.head_entries = t.head_entries + after - before;
        })
    }

    /// Applies `change` to the head, merging it down when it passes its
    /// capacity.
    fn change_head(&mut self, change: impl FnOnce(&mut Self)) -> Result<()> {
        // Over its capacity only after a merge failed (a full device): the
        // merge is retried first, and nothing new is taken while it fails.
        if self.head_entries + self.head_fences.len() as u64 > self.head_capacity {
            self.merge_cascade()?;
        }
        change(self);
        self.head_dirty = true;
        if self.head_entries + self.head_fences.len() as u64 > self.head_capacity {
            self.merge_cascade()?;
        }
        Ok(())
    }

    /// Merges L0 into L1, then every level past its capacity into the next
    /// (§II-C).
    fn merge_cascade(&mut self) -> Result<()> {
        self.merge_level(0)?;
        let mut i = 1;
        while i <= self.levels.len() && self.levels[i - 1].entries > self.capacity(i) {
            self.merge_level(i)?;
            i += 1;
        }
        Ok(())
    }

    /// Merges level `src` (0 = the head) into level `src + 1`, then
    /// rebuilds the levels above from the new run's fences.
    fn merge_level(&mut self, src: usize) -> Result<()> {
        let dst = src + 1;
        let exists = self.levels.len() >= dst;
        let fenced = self.levels.len() > dst;
        let (format, page_size) = (self.format, self.page_size);
        let src_entries = if src == 0 {
            self.head_entries
        } else {
            self.levels[src - 1].entries
        };
        let dst_run = if exists {
            self.levels[dst - 1]
        } else {
            RunMeta::default()
        };
        let reserve = RunWriter::pages_for(format, page_size, src_entries + dst_run.entries);
        let start = self.extents.alloc(reserve * self.span)?;
        let mut newer = if src == 0 {
            let items: Vec<Item> = self
                .head
                .iter()
                .map(|(&(key, value), &count)| Item::Pair { key, value, count })
                .collect();
            Source::Head(items.into_iter())
        } else {
            Source::run(
                RunReader::new(format, page_size, src as u8, self.levels[src - 1]),
                false,
            )
        };
        let mut older = if exists {
            Source::run(RunReader::new(format, page_size, dst as u8, dst_run), true)
        } else {
            Source::Empty
        };
        let mut out = RunWriter::new(format, page_size, dst as u8, start, fenced);
        let versions = if self.by_key {
            Versions::Keys { bottom: !fenced }
        } else {
            Versions::Pairs
        };
        let dev = match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `build` accepts only logical-page storage.
            Storage::Raw(_) => unreachable!("FdTree is built only on Storage::Pages"),
        };
        self.annihilated += merge_into(dev, &mut newer, &mut older, &mut out, versions)?;
        let (new_dst, keys) = out.finish(dev)?;
        self.extents
            .release(start + new_dst.pages, reserve - new_dst.pages);
        if self.merges.len() < dst {
            self.merges.resize(dst, 0);
        }
        self.merges[dst - 1] += 1;
        // Replace the destination, then rebuild every level above it.
        if exists {
            self.free_run(dst_run)?;
            self.levels[dst - 1] = new_dst;
        } else {
            self.levels.push(new_dst);
        }
        self.rebuild_above(dst, keys)?;
        if src == 0 {
            self.head.clear();
            self.head_entries = 0;
        }
        self.head_dirty = true;
        self.drop_empty_levels()
    }

    /// Removes the levels when the bottom one is left without a pair (every
    /// one annihilated). Only a merge into the bottom level can empty it,
    /// and such a merge leaves every level above it with fences only, so
    /// then no level holds a pair and all of them go.
    fn drop_empty_levels(&mut self) -> Result<()> {
        if self.levels.last().is_none_or(|l| l.pairs != 0) {
            return Ok(());
        }
        if self.levels.iter().any(|l| l.pairs > 0) {
            return Err(IndexError::Corrupt {
                page: 0,
                detail: "an empty bottom level below a level that holds entries".into(),
            });
        }
        for l in std::mem::take(&mut self.levels) {
            self.free_run(l)?;
        }
        self.head_fences.clear();
        self.head_dirty = true;
        Ok(())
    }

    /// Rebuilds the fence-only levels above level `level`, whose pages end
    /// with `keys`, and the head's fences (§II-C: "the new levels Lj
    /// (0 ≤ j < i) are rebuilt with the external fences constructed from
    /// the newly generated Li").
    fn rebuild_above(&mut self, level: usize, mut keys: Vec<u64>) -> Result<()> {
        let (format, page_size) = (self.format, self.page_size);
        for l in (1..level).rev() {
            let fences = fences_for(&keys);
            let pages = RunWriter::pages_for(format, page_size, fences.len() as u64);
            let start = self.extents.alloc(pages * self.span)?;
            let mut w = RunWriter::new(format, page_size, l as u8, start, true);
            let dev = self.dev();
            for f in fences {
                emit(dev, &mut w, Item::Fence(f))?;
            }
            let (meta, k) = w.finish(self.dev())?;
            self.extents.release(
                start + meta.pages * self.span,
                (pages - meta.pages) * self.span,
            );
            let old = std::mem::replace(&mut self.levels[l - 1], meta);
            self.free_run(old)?;
            keys = k;
        }
        self.head_fences = fences_for(&keys);
        self.head_dirty = true;
        Ok(())
    }

    /// Returns a run's pages to the allocator and trims them.
    fn free_run(&mut self, run: RunMeta) -> Result<()> {
        let n = run.pages * self.span;
        self.cache.forget(run.start, n);
        for lba in run.start..run.start + n {
            self.dev().trim(lba)?;
        }
        self.extents.release(run.start, n);
        Ok(())
    }

    /// Writes the head tree as a level-0 run.
    fn write_head(&mut self) -> Result<RunMeta> {
        let (format, page_size) = (self.format, self.page_size);
        let total = self.head_entries + self.head_fences.len() as u64;
        let pages = RunWriter::pages_for(format, page_size, total);
        let start = self.extents.alloc(pages * self.span)?;
        let items: Vec<Item> = self
            .head
            .iter()
            .map(|(&(key, value), &count)| Item::Pair { key, value, count })
            .collect();
        let mut pairs = Source::Head(items.into_iter());
        let fences: Vec<Item> = self.head_fences.iter().map(|&f| Item::Fence(f)).collect();
        let mut fences = Source::Head(fences.into_iter());
        // The head's run has no internal fences: a search reads it whole.
        let mut w = RunWriter::new(format, page_size, 0, start, false);
        let dev = self.dev();
        // Pairs and fences: no two entries of one key meet.
        merge_into(dev, &mut pairs, &mut fences, &mut w, Versions::Pairs)?;
        let (meta, _) = w.finish(self.dev())?;
        self.extents.release(
            start + meta.pages * self.span,
            (pages - meta.pages) * self.span,
        );
        Ok(meta)
    }

    /// Reads the runs a superblock names.
    fn load(&mut self, sb: Superblock) -> Result<()> {
        let capacity = self.extents_capacity();
        sb.check(capacity, self.span)?;
        self.levels = sb.levels.clone();
        self.head_run = sb.head;
        self.extents = Extents::new(1, capacity);
        self.extents.high_water = sb.high_water;
        let mut live: Vec<RunMeta> = sb.levels.clone();
        live.push(sb.head);
        live.sort_by_key(|r| r.start);
        let mut at = 1;
        // An empty run (a head emptied by deletes) names no pages: its
        // start may lie past the high water, and a gap up to it would free
        // pages the allocator then hands out without raising the high
        // water, so that the next superblock named a run past it (Corrupt
        // at the next open).
        for r in live.iter().filter(|r| r.pages > 0) {
            if r.start > at {
                self.extents.release(at, r.start - at);
            }
            at = at.max(r.start + r.pages * self.span);
        }
        if sb.high_water > at {
            self.extents.release(at, sb.high_water - at);
        }
        let mut reader = RunReader::new(self.format, self.page_size, 0, sb.head);
        while let Some(e) = reader.next_entry(self.dev())? {
            if e.kind.is_fence() {
                self.head_fences.push(e);
            } else {
                *self.head.entry((e.key, e.value)).or_insert(0) += e.kind.count();
            }
        }
        self.head.retain(|_, c| *c != 0);
        self.head_entries = self.head.values().map(|c| c.unsigned_abs()).sum();
        if !self.levels.is_empty() && self.head_fences.is_empty() {
            return Err(IndexError::Corrupt {
                page: sb.head.start,
                detail: "the head tree has no fences into level 1".into(),
            });
        }
        self.merges = vec![0; self.levels.len()];
        self.head_dirty = false;
        Ok(())
    }

    fn extents_capacity(&self) -> u64 {
        match &self.storage {
            Storage::Pages(d) => d.capacity_pages(),
            Storage::Raw(_) => 0,
        }
    }
}

impl Index for FdTree {
    fn name(&self) -> &'static str {
        NAME
    }

    fn format(&self) -> EntryFormat {
        self.format
    }

    /// With versions of keys, an upsert.
    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.format.check(key, value)?;
        if self.by_key {
            return self.set_version(key, Some((value, 1)));
        }
        self.add_to_head(key, value, 1)
    }

    /// `delete` then `insert`; with versions of keys, whether the key's
    /// newest version holds `old`, then an upsert of `new`.
    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.format.check(key, new)?;
        if !self.by_key {
            let found = self.delete(key, old)?;
            self.insert(key, new)?;
            return Ok(found);
        }
        self.format.check(key, old)?;
        self.update_key(key, old, new)
    }

    fn versions_by_key(&self) -> bool {
        self.by_key
    }

    /// With versions of keys, the key's newest version; reads nothing.
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        if !self.by_key {
            return Err(IndexError::Config(
                "an FD-tree of pairs (versions=pair) has no blind upsert".into(),
            ));
        }
        self.insert(key, value)
    }

    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.bulk_load_sorted(entries)
    }

    /// Half the capacity of every level above the bottom one, the head
    /// included: each fills from empty to its capacity and is then merged
    /// into the level below (§II-C), so over a merge cycle it holds half.
    /// None with `steady_state=false`: the loaded tree, fences only above
    /// the bottom, is kept as it is.
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        if !self.steady_state {
            return 0;
        }
        capacity_above_bottom(self.head_capacity, self.k, entries, 2)
    }

    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.format.check(key, value)?;
        if self.by_key {
            return self.delete_key(key, value);
        }
        self.search(key, key)?;
        let c = self
            .found
            .binary_search_by_key(&(key, value), |e| e.0)
            .map_or(0, |i| self.found[i].1);
        if c <= 0 {
            return Ok(false);
        }
        // One filter entry per index entry found (or their removal from
        // the head, where they are).
        self.add_to_head(key, value, -c)?;
        Ok(true)
    }

    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.format.check_key(key)?;
        self.search(key, key)?;
        out.clear();
        out.extend(self.found.iter().filter(|e| e.1 > 0).map(|e| e.0 .1));
        Ok(())
    }

    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        out.clear();
        // Keys past the entry format's width are never stored, and a
        // range wholly past it is empty (not a reversed range below).
        let hi = hi.min(self.format.max_key());
        if lo > hi {
            return Ok(());
        }
        self.search(lo, hi)?;
        out.extend(self.found.iter().filter(|e| e.1 > 0).map(|e| e.0));
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.head_dirty {
            let old = self.head_run;
            self.head_run = self.write_head()?;
            if old.pages > 0 {
                self.free_run(old)?;
            }
            self.head_dirty = false;
        }
        let sb = Superblock {
            format: self.format,
            page_size: self.page_size as u32,
            k: self.k,
            head_capacity: self.head_capacity,
            versions_by_key: self.by_key,
            high_water: self.extents.high_water,
            head: self.head_run,
            levels: self.levels.clone(),
        };
        let device_page = self.device_page;
        superblock::write(self.dev(), &sb, device_page)?;
        self.dev().sync()?;
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        (self.head_entries as usize + self.head_fences.len()) * entry_bytes(self.format)
            + self.cache.len() * self.page_size
    }

    fn stats(&self) -> IndexStats {
        let mut s = IndexStats::default();
        s.set("k", self.k as f64);
        s.set(
            "entries_per_page",
            per_page(self.format, self.page_size) as f64,
        );
        s.set("head_capacity", self.head_capacity as f64);
        s.set("head_entries", self.head_entries as f64);
        s.set("head_fences", self.head_fences.len() as f64);
        s.set("levels", (self.levels.len() + 1) as f64);
        let mut fences = self.head_fences.len() as u64;
        for (i, l) in self.levels.iter().enumerate() {
            s.set(&format!("level{}_entries", i + 1), l.entries as f64);
            s.set(&format!("level{}_pages", i + 1), l.pages as f64);
            s.set(
                &format!("merges_into_level{}", i + 1),
                self.merges.get(i).copied().unwrap_or(0) as f64,
            );
            fences += l.entries - l.pairs;
        }
        s.set("fences", fences as f64);
        s.set("annihilated_pairs", self.annihilated as f64);
        s.set("cache_pages", self.cache_pages as f64);
        s.set("cache_hits", self.cache.hits as f64);
        s.set("cache_misses", self.cache.misses as f64);
        s.set("memory_budget", self.memory_budget as f64);
        s
    }

    fn flash_bytes_used(&self) -> u64 {
        let pages: u64 = self.head_run.pages + self.levels.iter().map(|l| l.pages).sum::<u64>();
        pages * self.page_size as u64 + self.device_page as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ram::RamDisk;

    fn small() -> FdTree {
        let storage = Storage::Pages(Box::new(RamDisk::new(512, 1 << 16)));
        let p = Params::parse(["head_bytes=600", "k=3"]).unwrap();
        FdTree::create(storage, 4096, p).unwrap()
    }

    /// The default head is §II-A's erase block as B+-tree nodes at ln 2
    /// fill: 64 pages × 224 entries × 0.693 = 9,936 entries on a 2 KiB
    /// device without erase units; a device's own block replaces the 64;
    /// half the memory caps it.
    #[test]
    fn the_default_head_is_an_erase_block_at_btree_fill() {
        let storage = Storage::Pages(Box::new(RamDisk::new(2048, 1 << 16)));
        let t = FdTree::create(storage, 8 << 20, Params::new()).unwrap();
        assert_eq!(t.head_capacity, 9_936);
        assert_eq!(t.k, 112);
        let format = EntryFormat::new(4, 4).unwrap();
        assert_eq!(head_bytes_for(format, 2048, 128, 2048, 8 << 20), 19_873 * 9);
        assert_eq!(head_bytes_for(format, 2048, 1, 2048, 40_000), 20_000);
    }

    /// `steady_state=false` keeps a bulk load as the loader writes it.
    #[test]
    fn steady_state_false_leaves_the_upper_levels_empty() {
        let mk = |p: &[&str]| {
            let storage = Storage::Pages(Box::new(RamDisk::new(2048, 1 << 16)));
            FdTree::create(storage, 8 << 20, Params::parse(p.iter().copied()).unwrap()).unwrap()
        };
        assert!(mk(&[]).steady_state_inserts(10_000_000) > 500_000);
        assert_eq!(
            mk(&["steady_state=false"]).steady_state_inserts(10_000_000),
            0
        );
    }

    /// A merge that annihilates every pair of the bottom level leaves no
    /// level behind, and the index answers, grows and reopens as usual.
    #[test]
    fn a_level_emptied_by_its_filters_is_dropped() {
        let mut t = small();
        for i in 0..67u64 {
            t.insert(i, i).unwrap();
        }
        assert_eq!(t.levels.len(), 1);
        for i in 0..67u64 {
            assert!(t.delete(i, i).unwrap());
        }
        // The last filters wait in the head; merge them into the bottom.
        assert!(t.head_entries > 0);
        t.merge_cascade().unwrap();
        assert!(t.levels.is_empty(), "{:?}", t.levels);
        assert!(t.head_fences.is_empty());
        let mut out = Vec::new();
        t.range(0, u64::MAX, &mut out).unwrap();
        assert!(out.is_empty());
        for i in 0..200u64 {
            t.insert(i, i + 1).unwrap();
        }
        t.flush().unwrap();
        let storage = Box::new(t).into_storage();
        let p = Params::parse(["head_bytes=600", "k=3"]).unwrap();
        let mut t = FdTree::open(storage, 4096, p).unwrap();
        t.range(0, u64::MAX, &mut out).unwrap();
        assert_eq!(out, (0..200).map(|i| (i, i + 1)).collect::<Vec<_>>());
    }
}
