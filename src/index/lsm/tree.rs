//! One B+-tree of an LSM-tree component, as O'Neil et al. build it: leaves
//! packed full and written in key order at consecutive pages of one extent
//! (the "filling" multi-page blocks of a rolling merge), directory nodes
//! built bottom-up as the leaves below them fill, in a second extent.
//!
//! A tree is *building* while a rolling merge fills it: the last leaf and
//! the last directory node of each level are still in RAM (`partial`), and
//! a search descends from those in-RAM nodes through the written ones. At
//! the end of a pass, when its extent runs out, and at a flush, the tree is
//! *sealed*: its partial nodes are written from the leaf up, and the one
//! page of the highest level becomes its root.
//!
//! Pages are run pages ([`crate::index::runs::page`]): a leaf has level 0 and
//! its leaf number; a directory node has its height (1 above the leaves)
//! and its number in the directory extent, and holds one external fence
//! per child — the child's last key and its number. Leaf entries are index
//! entries (a pair) and filter entries (O'Neil's delete node entries).
//!
//! Invariants:
//! 1. Leaves `0..leaves` hold the tree's entries in (key, value) order, then
//!    the partial leaf while building.
//! 2. Every written page has exactly one fence, in a written directory node
//!    or in the partial node of the level above (the root excepted).

use std::sync::Arc;

use crate::device::{BlockDevice, Storage};
use crate::index::runs::page::{self as run_page, encode, per_page, Entry, Kind, Page};
use crate::index::runs::PageCache;
use crate::index::{EntryFormat, IndexError, Result};

/// A (key, value) pair; the order of entries in a tree.
pub(super) type Pair = (u64, u64);

/// A tree's pages and size.
#[derive(Clone, Debug, Default)]
pub(super) struct Tree {
    /// First LBA of the leaf extent, and its size in run pages.
    pub leaf_start: u64,
    pub leaf_reserved: u64,
    /// First LBA of the directory extent, and its size in run pages.
    pub dir_start: u64,
    pub dir_reserved: u64,
    /// Leaves and directory nodes written.
    pub leaves: u64,
    pub dirs: u64,
    /// (height, number) of the root once sealed; `None` for a sealed tree
    /// without entries.
    pub root: Option<(u8, u64)>,
    /// Entries written or pending.
    pub entries: u64,
    pub building: Option<Building>,
}

/// The in-RAM part of a tree being built.
#[derive(Clone, Debug, Default)]
pub(super) struct Building {
    /// `partial[0]`: the leaf being filled; `partial[j]`: the directory
    /// node of height `j` being filled (fences into height `j − 1`).
    partial: Vec<Vec<Entry>>,
    /// Pages written at each height, and the number of the last one.
    written: Vec<u64>,
    last: Vec<u64>,
}

impl Tree {
    /// An empty tree to build in the given extents.
    pub(super) fn building(leaf: (u64, u64), dir: (u64, u64)) -> Tree {
        Tree {
            leaf_start: leaf.0,
            leaf_reserved: leaf.1,
            dir_start: dir.0,
            dir_reserved: dir.1,
            building: Some(Building {
                partial: vec![Vec::new()],
                written: vec![0],
                last: vec![0],
            }),
            ..Tree::default()
        }
    }

    /// Whether another entry fits: a free leaf slot remains for the page
    /// the partial leaf becomes.
    pub(super) fn can_push(&self) -> bool {
        self.leaves < self.leaf_reserved
    }

    /// Entries held in RAM (the partial nodes).
    pub(super) fn partial_entries(&self) -> usize {
        self.building
            .as_ref()
            .map_or(0, |b| b.partial.iter().map(Vec::len).sum())
    }
}

/// Where the entries at or after a key begin in a tree.
enum Loc {
    Leaf(u64),
    /// In the partial leaf (or past the end) of a tree being built.
    Partial,
    End,
}

/// The device, page codec and page cache every tree reads through.
pub(super) struct PageIo {
    pub storage: Storage,
    pub format: EntryFormat,
    /// Bytes of a run page, and the device pages it spans.
    pub page_size: usize,
    pub span: u64,
    pub per_page: usize,
    pub cache: PageCache,
    buf: Vec<u8>,
    /// The device checks what it reads (`BlockDevice::verifies_reads`),
    /// asked once: the answer is the device's kind, which never changes.
    verified: bool,
    /// The last page a merge read past the cache: a rolling merge's
    /// emptying block, which the next step starts in again.
    emptying: Option<(u64, Arc<Page>)>,
}

impl PageIo {
    pub(super) fn new(
        storage: Storage,
        format: EntryFormat,
        page_size: usize,
        span: u64,
        cache_pages: usize,
    ) -> Self {
        let verified = match &storage {
            Storage::Pages(d) => d.verifies_reads(),
            Storage::Raw(_) => false,
        };
        PageIo {
            verified,
            storage,
            format,
            page_size,
            span,
            per_page: per_page(format, page_size),
            cache: PageCache::new(cache_pages),
            buf: vec![0u8; page_size],
            emptying: None,
        }
    }

    pub(super) fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `LsmTree::build` accepts only logical-page storage.
            Storage::Raw(_) => unreachable!("the LSM-tree is built only on Storage::Pages"),
        }
    }

    /// Forgets every page read from LBAs `start..start + n` (a freed
    /// tree's, which later trees may write again): the cached ones and the
    /// merge's last page.
    pub(super) fn forget(&mut self, start: u64, n: u64) {
        self.cache.forget(start, n);
        if self
            .emptying
            .as_ref()
            .is_some_and(|(lba, _)| (start..start + n).contains(lba))
        {
            self.emptying = None;
        }
    }

    /// Page `number` at `level` of `t`; searches go through the LRU cache,
    /// merges (`cached = false`) past it.
    fn page(&mut self, t: &Tree, level: u8, number: u64, cached: bool) -> Result<Arc<Page>> {
        let (start, count) = if level == 0 {
            (t.leaf_start, t.leaves)
        } else {
            (t.dir_start, t.dirs)
        };
        if number >= count {
            return Err(IndexError::Corrupt {
                page: start,
                detail: format!(
                    "an LSM-tree fence names page {number} of {count} at height {level}"
                ),
            });
        }
        let lba = start + number * self.span;
        if cached {
            if let Some(p) = self.cache.get(lba) {
                return Ok(p);
            }
        } else if let Some((at, p)) = &self.emptying {
            if *at == lba {
                return Ok(p.clone());
            }
        }
        // Into the vector of a page no longer used (the cache's spare, or
        // the merge's previous page), not a new one.
        let mut page = if cached {
            self.cache.recycled()
        } else {
            let previous = self
                .emptying
                .take()
                .and_then(|(_, p)| Arc::try_unwrap(p).ok());
            previous.unwrap_or_default()
        };
        let mut buf = std::mem::take(&mut self.buf);
        let at = (self.format, level, number);
        let decoded = run_page::read_entries(self.dev(), lba, &mut buf, at, &mut page.entries);
        self.buf = buf;
        decoded?;
        let p = Arc::new(page);
        if cached {
            self.cache.put(lba, p.clone());
        } else {
            self.emptying = Some((lba, p.clone()));
        }
        Ok(p)
    }

    /// Descends from page `number` at height `h` to the leaf where keys at
    /// or after `key` begin.
    fn descend(&mut self, t: &Tree, mut h: u8, mut number: u64, key: u64) -> Result<Loc> {
        while h > 0 {
            let p = self.page(t, h, number, true)?;
            let i = p.entries.partition_point(|e| e.key < key);
            match p.entries.get(i) {
                Some(e) if e.kind == Kind::External => number = e.value,
                Some(_) => {
                    return Err(IndexError::Corrupt {
                        page: t.dir_start + number * self.span,
                        detail: "an LSM-tree directory node holds a non-fence entry".into(),
                    })
                }
                None => return Ok(Loc::End),
            }
            h -= 1;
        }
        Ok(Loc::Leaf(number))
    }

    fn locate(&mut self, t: &Tree, key: u64) -> Result<Loc> {
        if let Some(b) = &t.building {
            for j in (1..b.partial.len()).rev() {
                let i = b.partial[j].partition_point(|e| e.key < key);
                if let Some(e) = b.partial[j].get(i) {
                    return self.descend(t, j as u8 - 1, e.value, key);
                }
            }
            return Ok(Loc::Partial);
        }
        match t.root {
            None => Ok(Loc::End),
            Some((h, number)) => self.descend(t, h, number, key),
        }
    }

    /// With versions of keys, a point lookup: the entry of `key` in `t`
    /// (at most one), from the cache where it holds the leaf, else found
    /// in the leaf's bytes read past the cache (`find_key_in_leaf`), which
    /// a map store's lookups, never an experiment's, take: a leaf read so
    /// is neither decoded nor cached, and the cache keeps the directory.
    pub(super) fn find_key(&mut self, t: &Tree, key: u64) -> Result<Option<Entry>> {
        let n = match self.locate(t, key)? {
            Loc::Leaf(n) if n < t.leaves => n,
            Loc::End => return Ok(None),
            Loc::Leaf(_) | Loc::Partial => {
                let partial = t.building.as_ref().map_or(&[][..], |b| &b.partial[0][..]);
                let i = partial.partition_point(|e| e.key < key);
                return Ok(partial.get(i).filter(|e| e.key == key).copied());
            }
        };
        let lba = t.leaf_start + n * self.span;
        if let Some(p) = self.cache.get(lba) {
            let i = p.entries.partition_point(|e| e.key < key);
            return Ok(p.entries.get(i).filter(|e| e.key == key).copied());
        }
        let mut buf = std::mem::take(&mut self.buf);
        let verified = self.verified;
        let found = run_page::read_page(self.dev(), lba, &mut buf)
            .and_then(|()| run_page::find_key_in_leaf(self.format, &buf, (lba, verified), n, key));
        self.buf = buf;
        found
    }

    /// Appends to `out` the entries of `t` whose pair is in `(after,
    /// upto]`, in order. With `one_leaf`, stops at the end of the first
    /// leaf that gave an entry (a rolling merge's step).
    pub(super) fn scan(
        &mut self,
        t: &Tree,
        after: Option<Pair>,
        upto: Pair,
        cached: bool,
        one_leaf: bool,
        out: &mut Vec<Entry>,
    ) -> Result<()> {
        let mut next = self.first_leaf(t, after)?;
        while let Some(n) = next {
            let got = out.len();
            next = self.scan_leaf(t, n, (after, upto), cached, out)?;
            if one_leaf && out.len() > got {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The leaf where the pairs past `after` begin (`t.leaves`: the
    /// partial leaf of a tree being built); `None` when `t` has none.
    pub(super) fn first_leaf(&mut self, t: &Tree, after: Option<Pair>) -> Result<Option<u64>> {
        // The first key a pair past `after` can have.
        let key = match after {
            None => 0,
            Some((k, u64::MAX)) => k.saturating_add(1),
            Some((k, _)) => k,
        };
        Ok(match self.locate(t, key)? {
            Loc::Leaf(n) => Some(n),
            Loc::Partial => Some(t.leaves),
            Loc::End => None,
        })
    }

    /// Appends to `out` the entries of leaf `n` of `t` whose pair is in
    /// `(after, upto]`; the leaf to read next, `None` when the scan is
    /// done. A merge reads the destination's range this way, one leaf at a
    /// time, so that its buffer holds one leaf, not the range.
    pub(super) fn scan_leaf(
        &mut self,
        t: &Tree,
        n: u64,
        (after, upto): (Option<Pair>, Pair),
        cached: bool,
        out: &mut Vec<Entry>,
    ) -> Result<Option<u64>> {
        let page;
        let entries: &[Entry] = if n < t.leaves {
            page = self.page(t, 0, n, cached)?;
            &page.entries
        } else if let Some(b) = &t.building {
            &b.partial[0]
        } else {
            return Ok(None);
        };
        let from = match after {
            Some(a) => entries.partition_point(|e| (e.key, e.value) <= a),
            None => 0,
        };
        for e in &entries[from..] {
            if (e.key, e.value) > upto {
                return Ok(None);
            }
            if e.kind.is_fence() {
                return Err(IndexError::Corrupt {
                    page: t.leaf_start + n * self.span,
                    detail: "an LSM-tree leaf holds a fence".into(),
                });
            }
            out.push(*e);
        }
        Ok((n < t.leaves).then_some(n + 1))
    }

    /// Entries of the decoded page a merge keeps between steps (its
    /// emptying block), at their capacity.
    pub(super) fn emptying_entries(&self) -> usize {
        self.emptying
            .as_ref()
            .map_or(0, |(_, p)| p.entries.capacity())
    }

    /// Appends `e` (in pair order) to the tree being built; writes pages as
    /// they fill. The caller checks [`Tree::can_push`] first.
    pub(super) fn push(&mut self, t: &mut Tree, e: Entry) -> Result<()> {
        let b = building(t)?;
        b.partial[0].push(e);
        let full = b.partial[0].len() >= self.per_page;
        t.entries += 1;
        if full {
            self.write_level(t, 0)?;
        }
        Ok(())
    }

    /// Writes the partial node of height `j` and adds its fence to the
    /// height above, writing that one too when it fills.
    fn write_level(&mut self, t: &mut Tree, j: usize) -> Result<()> {
        let (number, lba) = if j == 0 {
            if t.leaves >= t.leaf_reserved {
                return Err(no_room("leaf", t.leaf_start));
            }
            t.leaves += 1;
            (t.leaves - 1, t.leaf_start + (t.leaves - 1) * self.span)
        } else {
            if t.dirs >= t.dir_reserved {
                return Err(no_room("directory", t.dir_start));
            }
            t.dirs += 1;
            (t.dirs - 1, t.dir_start + (t.dirs - 1) * self.span)
        };
        let b = building(t)?;
        let last_key = b.partial[j].last().map_or(0, |e| e.key);
        encode(self.format, &b.partial[j], j as u8, number, &mut self.buf);
        b.partial[j].clear();
        b.written[j] += 1;
        b.last[j] = number;
        if b.partial.len() == j + 1 {
            b.partial.push(Vec::new());
            b.written.push(0);
            b.last.push(0);
        }
        b.partial[j + 1].push(Entry {
            key: last_key,
            value: number,
            kind: Kind::External,
        });
        let full = b.partial[j + 1].len() >= self.per_page;
        let mut buf = std::mem::take(&mut self.buf);
        let w = run_page::write_page(self.dev(), lba, &buf);
        std::mem::swap(&mut self.buf, &mut buf);
        w?;
        if full {
            self.write_level(t, j + 1)?;
        }
        Ok(())
    }

    /// Writes the partial nodes from the leaf up and sets the root.
    pub(super) fn seal(&mut self, t: &mut Tree) -> Result<()> {
        let mut j = 0;
        loop {
            let b = building(t)?;
            if b.partial.get(j).is_some_and(|p| !p.is_empty()) {
                self.write_level(t, j)?;
            }
            let b = building(t)?;
            match b.written[j] {
                0 => {
                    t.root = None;
                    break;
                }
                1 => {
                    t.root = Some((j as u8, b.last[j]));
                    break;
                }
                _ => j += 1,
            }
        }
        t.building = None;
        Ok(())
    }
}

fn building(t: &mut Tree) -> Result<&mut Building> {
    t.building.as_mut().ok_or_else(|| IndexError::Corrupt {
        page: t.leaf_start,
        detail: "an LSM-tree tree written to after it was sealed".into(),
    })
}

fn no_room(what: &str, at: u64) -> IndexError {
    IndexError::Corrupt {
        page: at,
        detail: format!("an LSM-tree {what} extent overflowed its reservation"),
    }
}
