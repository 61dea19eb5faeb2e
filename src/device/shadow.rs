//! [`Shadow`]: shadow paging with a checksummed page map, an atomic commit
//! at every `sync()`, beneath any index on a logical-page device.
//!
//! The durability contract of `docs/FORMAT.md` asks that a crash at any
//! moment opens to the state of the last completed `flush()`, and that a
//! damaged, misplaced or stale page is `Corrupt`. Rather than six
//! recovery schemes, one per index, this layer gives both to every index on
//! an FTL or a file, as LMDB's copy-on-write commit and ZFS's block
//! pointers do:
//!
//! * every logical page the index writes goes to a physical page of the
//!   device beneath that the last commit does not reference (a *shadow*);
//!   a page written twice between commits is overwritten in place, since
//!   no commit refers to it yet;
//! * the page map (logical page → physical page and the CRC-32C of its
//!   content) is a copy-on-write radix tree of map pages; `sync()` writes
//!   the changed map pages, then the meta record naming the new root with
//!   a generation number, to physical page 0 and then to page 1;
//! * opening takes the valid meta record with the highest generation and
//!   loads the map. What was written after it is unreferenced, so a power
//!   cut or a failed run loses exactly the work since the last `sync()`;
//! * every read is checked against the checksum the map holds for the
//!   page, so a page that was zeroed, trimmed, torn, overwritten by another
//!   page or reverted to an older version is `Corrupt`, never data.
//!
//! A write-ahead log (the `log` submodule, issue #29; on files and in a
//! `Store`) lets a flush between commits be one append and one sync:
//! the store layer (`store::logged`) writes its operations there and
//! replays them at open, and a commit, its checkpoint, empties the log.
//!
//! Physical pages superseded by a commit are reused (and trimmed on the
//! device beneath where that reclaims something: an FTL's, not a file's,
//! [`BlockDevice::trim_reclaims`]) only after both meta copies name the new
//! commit, so the
//! previous commit stays whole while either copy might still be the newest
//! valid one.
//!
//! On-flash format (physical pages of the device beneath; integers
//! little-endian):
//! * pages 0 and 1: the meta record, the same in both after a commit:
//!   `"FXSHADOW" | version u32 = 3 | page size u32 | generation u64 |
//!   logical capacity u64 | high water u64 | logical length u64 |
//!   root page u64 | root CRC u32 | levels u32 | log primary u64 | log
//!   mirror u64 | second log primary u64 | second log mirror u64 |
//!   CRC-32C of the 96 bytes before it u32` (version 2, still read, has
//!   no second log slot and its checksum at byte 80; version 1 no log
//!   fields and its checksum at byte 64). A read-write open that finds
//!   the two copies differing (a crash between them) rewrites the older
//!   one from the newer (issue #41). Neither copy valid means a device never committed,
//!   if both pages are zeros or torn records; a meta page holding anything
//!   else is another format, refused at mount as
//!   [`DeviceError::NotAStore`] (one on-disk format: a file is a store
//!   only through this layer).
//! * map page: `"FXMP" | level u16 | reserved u16 | index u64` then
//!   `(page u64, CRC u32)` entries (page 0 = unmapped). Level-0 map page
//!   `j` maps logical pages `j·E ..`, a level-`k` page points at level
//!   `k − 1` pages; the tree has a fixed height for the capacity, so a walk
//!   cannot loop.
//!
//! Costs: each index write is one write beneath; a partial write of a page
//! reads the rest of it first; a partial read reads the whole page to check
//! it. A commit writes the changed map pages (and their ancestors) and two
//! meta pages: those are [`DeviceStats::durability_writes`], apart from the
//! index's own writes. The map in RAM costs 16 bytes per logical page
//! written (device memory, like an FTL's mapping table; not the index's).
//!
//! Failures (issue #28): a failed write, sync or commit never costs the
//! last commit, and a retried `sync()` finishes the same commit (a map
//! page leaves `dirty` only once written). From the first meta write on,
//! the commit being written counts as possibly durable (a write that
//! reports an error may have landed): its pages stop being fresh, so none
//! is overwritten in place, and the previous commit's pages stay reserved
//! until both copies name a newer one. Opening allocates nothing by a
//! meta record's claims beyond the medium's extent, and
//! `discard_uncommitted` goes back to the last commit (an index reopened
//! over the device forgets a half-done operation). Running out of
//! physical pages is `Full`, possibly in the middle of an index's
//! operation: the index guard (`store::guard`) then refuses every call
//! until the index is reopened, at the last commit, which stays intact.
//!
//! Invariants:
//! 1. No physical page referenced by a commit that is, or may be, the
//!    newest on the medium is written before a newer one is durable in
//!    both meta copies.
//! 2. `entries[l].fresh` exactly when page `l`'s physical page was taken
//!    since the last commit attempt reached its meta write (so no commit
//!    references it).
//! 3. Every physical page below `high_water` is meta, referenced by the
//!    current map, pending release, in the current epoch's log (written,
//!    or the slot reserved for its next page), or free; never two of
//!    these.

use std::collections::BTreeSet;

use super::crc;
use super::{BlockDevice, CommitLog, DeviceError, DeviceInfo, DeviceStats, Result, Wear};

mod log;
mod map_size;
use log::{Log, LogSlot};
use map_size::{levels_for, map_pages, offered_capacity};

/// The write-ahead log's bound on files and in a [`crate::Store`] (`log`):
/// 32 MiB of log pages, about 1.9 million inserts of 8 + 8-byte entries,
/// between checkpoints. A checkpoint writes at most the index's memory
/// budget of dirty structure and the map pages it changed, so at the
/// budgets an embedded store runs with (a few MiB) it costs a few percent
/// of the log it empties; replaying a full log at open takes seconds
/// (`docs/PERFORMANCE.md`).
pub const DEFAULT_LOG_BYTES: u64 = 32 << 20;

/// The first bytes of a commit record (and of every store file).
pub(crate) const META_MAGIC: &[u8; 8] = b"FXSHADOW";
const MAP_MAGIC: &[u8; 4] = b"FXMP";
/// Version 2 names the first page of the commit's log, version 3 (issue
/// #41) the slot after it too (versions 1 and 2 are still read).
const META_VERSION: u32 = 3;
/// Bytes a meta record's checksum covers, by version.
fn meta_covered(version: u32) -> Option<usize> {
    match version {
        1 => Some(64),
        2 => Some(80),
        3 => Some(96),
        _ => None,
    }
}
const MAP_HEADER: usize = 16;
const ENTRY_BYTES: usize = 12;
/// Physical pages 0 and 1 hold the meta record.
const FIRST_DATA: u64 = 2;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// Physical page; 0 = unmapped (page 0 is a meta page).
    page: u64,
    crc: u32,
    /// Taken since the last commit (invariant 2).
    fresh: bool,
}

/// What a valid meta record says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Meta {
    generation: u64,
    capacity: u64,
    high_water: u64,
    logical_len: u64,
    root: Slot,
    levels: u32,
    /// Where the log of this commit's epoch starts (`log`); none in a
    /// version-1 record or with the log off.
    log_head: LogSlot,
    /// The slot of the log's second page (version 3; none before).
    log_after: LogSlot,
}

/// Shadow paging over a logical-page device (module doc).
pub struct Shadow {
    inner: Box<dyn BlockDevice>,
    page_size: usize,
    capacity: u64,
    /// Map entries per map page.
    per_map_page: u64,
    levels: u32,
    generation: u64,
    /// The map as the index sees it now; pages past its end are unmapped.
    entries: Vec<Slot>,
    /// `tree[k][j]`: where map page `j` of level `k` lives.
    tree: Vec<Vec<Slot>>,
    /// Map pages changed since the last commit, per level.
    dirty: Vec<BTreeSet<u64>>,
    fresh_lbas: Vec<u64>,
    free: BTreeSet<u64>,
    /// Superseded pages the last commit still references.
    pending_release: Vec<u64>,
    high_water: u64,
    /// Something changed since the last commit.
    changed: bool,
    own: DeviceStats,
    page_buf: Vec<u8>,
    /// The write-ahead log of the current epoch (`log`).
    log: Log,
    /// The next epoch's first two log slots, taken by a commit being
    /// written and kept until it completes (a retry names the same).
    reserved_head: Option<(LogSlot, LogSlot)>,
    /// What the last load found a crash left single (a commit-record copy,
    /// a log page's copy) and rewrote, or, read-only, would rewrite.
    repairs: Repairs,
}

/// What recovery repaired (module doc of `log`: repair).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Log page copies rewritten from the other copy.
    pub log_pages: u64,
    /// Commit-record copies rewritten from the newer one.
    pub commit_records: u64,
    /// Read-only: nothing was written, these are what a read-write open
    /// would rewrite.
    pub pending: bool,
}

impl std::fmt::Debug for Shadow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shadow")
            .field("generation", &self.generation)
            .field("capacity", &self.capacity)
            .field("high_water", &self.high_water)
            .finish()
    }
}

fn corrupt(page: u64, detail: String) -> DeviceError {
    DeviceError::Corrupt { page, detail }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

impl Shadow {
    /// Opens the layer on `inner`: the last commit if there is one, else an
    /// empty device; no write-ahead log (every flush commits), though one
    /// the last commit left is still read back.
    pub fn mount(inner: Box<dyn BlockDevice>) -> Result<Shadow> {
        Self::mount_logged(inner, 0)
    }

    /// As [`Shadow::mount`], with a write-ahead log (`log`) that the index
    /// layer checkpoints once it holds `log_bytes`; 0: none.
    pub fn mount_logged(inner: Box<dyn BlockDevice>, log_bytes: u64) -> Result<Shadow> {
        let page_size = inner.page_size();
        if page_size < 128 {
            return Err(DeviceError::Config(format!(
                "shadow paging needs pages of at least 128 bytes, not {page_size}"
            )));
        }
        let per_map_page = ((page_size - MAP_HEADER) / ENTRY_BYTES) as u64;
        let physical = inner.capacity_pages();
        let capacity = offered_capacity(physical, per_map_page);
        if capacity == 0 {
            return Err(DeviceError::Config(format!(
                "a device of {physical} pages has no room for shadow paging"
            )));
        }
        let mut s = Shadow {
            inner,
            page_size,
            capacity,
            per_map_page,
            levels: levels_for(capacity, per_map_page),
            generation: 0,
            entries: Vec::new(),
            tree: Vec::new(),
            dirty: Vec::new(),
            fresh_lbas: Vec::new(),
            free: BTreeSet::new(),
            pending_release: Vec::new(),
            high_water: FIRST_DATA,
            changed: false,
            own: DeviceStats::default(),
            page_buf: vec![0u8; page_size],
            log: Log {
                bound: log_bytes,
                ..Log::default()
            },
            reserved_head: None,
            repairs: Repairs::default(),
        };
        s.load_last_commit()?;
        Ok(s)
    }

    /// Sets the layer to the newest valid commit on the device (or to an
    /// empty device), forgetting everything since.
    fn load_last_commit(&mut self) -> Result<()> {
        let physical = self.inner.capacity_pages();
        // Recovery reads what reached the medium, not what a failed sync
        // left in the page cache (`device::file`, invariant 6).
        self.inner.forget_cached()?;
        let mut newest: Option<(Meta, u64)> = None;
        let mut foreign = None;
        let mut copies = [Vec::new(), Vec::new()];
        for slot in 0..2u64 {
            self.inner.read(slot, 0, &mut self.page_buf)?;
            self.own.durability_reads += 1;
            copies[slot as usize] = self.page_buf.clone();
            if let Some(m) = Self::parse_meta(&self.page_buf, self.page_size) {
                if newest.is_none_or(|(n, _)| m.generation > n.generation) {
                    newest = Some((m, slot));
                }
            } else if !self.page_buf.starts_with(META_MAGIC)
                && self.page_buf.iter().any(|&b| b != 0)
            {
                foreign.get_or_insert(slot);
            } else if slot == 0 && self.page_buf.starts_with(META_MAGIC) {
                // A whole record of another page size (its checksum holds
                // over its own 64 bytes): opened with the wrong size.
                let size = u32_at(&self.page_buf, 12) as usize;
                let whole = meta_covered(u32_at(&self.page_buf, 8)).is_some_and(|n| {
                    n + 4 <= self.page_buf.len()
                        && u32_at(&self.page_buf, n) == crc::crc32c(&self.page_buf[..n])
                });
                if size != self.page_size && whole {
                    return Err(DeviceError::Config(format!(
                        "the store's pages are {size} bytes, not {}: open it with that page size",
                        self.page_size
                    )));
                }
            }
        }
        // A meta page is only ever zeros, a record, or a torn record (whose
        // first half, with the magic, landed): anything else there is
        // another format. Without a valid record to say otherwise, the
        // medium is refused rather than read (or overwritten) as an empty
        // store.
        if let (None, Some(slot)) = (newest, foreign) {
            return Err(DeviceError::NotAStore {
                detail: format!(
                    "page {slot} holds neither a commit record (\"FXSHADOW\") nor zeros; a file made without the commit layer (FileDevice on its own, `atomic=false`) or by another program"
                ),
            });
        }
        self.generation = 0;
        self.entries.clear();
        self.tree.clear();
        self.fresh_lbas.clear();
        self.free.clear();
        self.pending_release.clear();
        self.high_water = FIRST_DATA;
        self.changed = false;
        self.reserved_head = None;
        self.repairs = Repairs::default();
        self.read_log(LogSlot::default(), LogSlot::default(), 0, physical, None)?;
        if let Some((meta, _)) = newest {
            self.load(meta, physical)?;
        }
        self.dirty = vec![BTreeSet::new(); self.levels as usize];
        self.tree.resize(self.levels as usize, Vec::new());
        // A crash between the two copies of the commit record leaves one:
        // the other is rewritten, so one damaged copy later costs nothing
        // (issue #41), as are the log pages a crash left in one copy.
        let stale_copy = newest.and_then(|(_, good)| {
            let other = 1 - good;
            (copies[other as usize] != copies[good as usize]).then_some((other, good))
        });
        self.repair(stale_copy, &copies)
    }

    /// Rewrites what the load found single (`stale_copy`: the commit-record
    /// copy to rewrite and the one to take; the log's repairs), then syncs;
    /// a read-only device is left as it is and the repairs are reported.
    fn repair(&mut self, stale_copy: Option<(u64, u64)>, copies: &[Vec<u8>; 2]) -> Result<()> {
        let log_pages = self.log.repairs.len() as u64;
        let commit_records = u64::from(stale_copy.is_some());
        if log_pages + commit_records == 0 {
            return Ok(());
        }
        if self.inner.read_only() {
            self.log.repairs.clear();
            self.repairs = Repairs {
                log_pages,
                commit_records,
                pending: true,
            };
            ::log::warn!(
                "flashix: recovery found {log_pages} log page copies and {commit_records} commit record copies that a crash left single; opened read-only, they are left as they are (a read-write open rewrites them)"
            );
            return Ok(());
        }
        self.repair_log()?;
        if let Some((to, from)) = stale_copy {
            self.inner.write(to, 0, &copies[from as usize])?;
            self.own.durability_writes += 1;
        }
        self.inner.sync()?;
        self.repairs = Repairs {
            log_pages,
            commit_records,
            pending: false,
        };
        Ok(())
    }

    /// What the last load (the mount, or a reopen over the device) found a
    /// crash left single and rewrote, or would rewrite on a read-only device.
    pub fn repairs(&self) -> &Repairs {
        &self.repairs
    }

    /// The page size the commit record at the start of a medium names,
    /// if `head` (the medium's first bytes, at least 100) holds a whole
    /// one: the file, not the caller, says how its pages are cut.
    pub fn recorded_page_size(head: &[u8]) -> Option<usize> {
        if head.len() < 16 || !head.starts_with(META_MAGIC) {
            return None;
        }
        let covered = meta_covered(u32_at(head, 8))?;
        let whole =
            covered + 4 <= head.len() && u32_at(head, covered) == crc::crc32c(&head[..covered]);
        let size = u32_at(head, 12) as usize;
        (whole && size >= 128).then_some(size)
    }

    /// The device beneath (for reports and tests).
    pub fn inner(&self) -> &dyn BlockDevice {
        self.inner.as_ref()
    }

    /// The generation of the last commit (0: never committed).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn parse_meta(b: &[u8], page_size: usize) -> Option<Meta> {
        let version = u32_at(b, 8);
        let covered = meta_covered(version)?;
        if &b[0..8] != META_MAGIC
            || u32_at(b, 12) as usize != page_size
            || u32_at(b, covered) != crc::crc32c(&b[..covered])
        {
            return None;
        }
        let slot = |at: usize| LogSlot {
            primary: u64_at(b, at),
            mirror: u64_at(b, at + 8),
        };
        let log_head = if version >= 2 {
            slot(64)
        } else {
            LogSlot::default()
        };
        let log_after = if version >= 3 {
            slot(80)
        } else {
            LogSlot::default()
        };
        Some(Meta {
            generation: u64_at(b, 16),
            capacity: u64_at(b, 24),
            high_water: u64_at(b, 32),
            logical_len: u64_at(b, 40),
            root: Slot {
                page: u64_at(b, 48),
                crc: u32_at(b, 56),
                fresh: false,
            },
            levels: u32_at(b, 60),
            log_head,
            log_after,
        })
    }

    fn encode_meta(&self, root: Slot, (log_head, log_after): (LogSlot, LogSlot)) -> Vec<u8> {
        let mut b = vec![0u8; self.page_size];
        b[0..8].copy_from_slice(META_MAGIC);
        b[8..12].copy_from_slice(&META_VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(self.page_size as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.generation.to_le_bytes());
        b[24..32].copy_from_slice(&self.capacity.to_le_bytes());
        b[32..40].copy_from_slice(&self.high_water.to_le_bytes());
        b[40..48].copy_from_slice(&(self.entries.len() as u64).to_le_bytes());
        b[48..56].copy_from_slice(&root.page.to_le_bytes());
        b[56..60].copy_from_slice(&root.crc.to_le_bytes());
        b[60..64].copy_from_slice(&self.levels.to_le_bytes());
        b[64..72].copy_from_slice(&log_head.primary.to_le_bytes());
        b[72..80].copy_from_slice(&log_head.mirror.to_le_bytes());
        b[80..88].copy_from_slice(&log_after.primary.to_le_bytes());
        b[88..96].copy_from_slice(&log_after.mirror.to_le_bytes());
        let crc = crc::crc32c(&b[..96]);
        b[96..100].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Loads the map of the commit `meta` names and rebuilds the free set.
    fn load(&mut self, meta: Meta, physical: u64) -> Result<()> {
        if meta.capacity != self.capacity
            || meta.levels != levels_for(meta.capacity, self.per_map_page)
            || meta.high_water > physical
            || meta.high_water < FIRST_DATA
            || meta.logical_len > meta.capacity
            || !(meta.log_head.is_none() || log::slot_fits(meta.log_head, physical))
            || !(meta.log_after.is_none() || log::slot_fits(meta.log_after, physical))
        {
            return Err(DeviceError::Config(format!(
                "the device's commit record (capacity {}, {} levels, high water {}) does not fit this device of {physical} pages: opened with another size?",
                meta.capacity, meta.levels, meta.high_water
            )));
        }
        // Nothing is sized by the record's claims beyond what the medium
        // holds (issue #28: a forged length made a file's open allocate by
        // its nominal 2^32 pages): pages past the extent hold nothing, so
        // no entry may name one (`claim` checks) and the high water stops
        // there (a page taken whose write failed can leave it past the
        // file's end, legitimately).
        let extent = self
            .inner
            .extent_pages()
            .unwrap_or(physical)
            .clamp(FIRST_DATA, physical);
        self.generation = meta.generation;
        self.high_water = meta.high_water.min(extent);
        self.tree = vec![Vec::new(); self.levels as usize];
        // Grown to the highest page mapped, not to the recorded length.
        self.entries = Vec::new();
        let mut used = vec![false; self.high_water as usize];
        used[0] = true;
        used[1] = true;
        let top = self.levels as usize - 1;
        if meta.root.page != 0 {
            self.claim(&mut used, meta.root, u64::MAX)?;
        }
        self.tree[top] = vec![meta.root];
        // Level by level from the root: a fixed height bounds the walk.
        for level in (0..=top).rev() {
            for j in 0..self.tree[level].len() as u64 {
                let at = self.tree[level][j as usize];
                if at.page == 0 {
                    continue;
                }
                let children = self.read_map_page(at, level as u16, j)?;
                for (i, child) in children.into_iter().enumerate() {
                    let n = j * self.per_map_page + i as u64;
                    if child.page == 0 {
                        continue;
                    }
                    self.claim(&mut used, child, n)?;
                    if level == 0 {
                        if n >= meta.logical_len {
                            return Err(corrupt(
                                at.page,
                                format!("map entry for page {n} beyond the logical length"),
                            ));
                        }
                        if self.entries.len() <= n as usize {
                            self.entries.resize(n as usize + 1, Slot::default());
                        }
                        self.entries[n as usize] = child;
                    } else {
                        let below = &mut self.tree[level - 1];
                        if below.len() <= n as usize {
                            below.resize(n as usize + 1, Slot::default());
                        }
                        below[n as usize] = child;
                    }
                }
            }
        }
        // The log of this commit's epoch: its pages, and the slot the
        // next append goes to, which may lie past the high water (taken
        // after the commit) and, in a store written before issue #41, past
        // the file's end (never written; since, every slot is inside the
        // file's durable length before it is named: `log`, invariant 3).
        let medium = self.inner.extent_pages();
        self.read_log(
            meta.log_head,
            meta.log_after,
            meta.generation,
            physical,
            medium,
        )?;
        let log_pages = self.log.pages.clone();
        if let Some(&top) = log_pages.iter().max() {
            if top >= self.high_water {
                self.high_water = top + 1;
                used.resize(self.high_water as usize, false);
            }
        }
        for page in log_pages {
            let slot = Slot {
                page,
                crc: 0,
                fresh: false,
            };
            self.claim(&mut used, slot, u64::MAX)?;
        }
        self.free = (FIRST_DATA..self.high_water)
            .filter(|&p| !used[p as usize])
            .collect();
        Ok(())
    }

    /// Marks `slot`'s page used; a page claimed twice or past the high
    /// water is a damaged map.
    fn claim(&self, used: &mut [bool], slot: Slot, lba: u64) -> Result<()> {
        match used.get_mut(slot.page as usize) {
            Some(u) if !*u => {
                *u = true;
                Ok(())
            }
            _ => Err(corrupt(
                slot.page,
                format!("map entry (for {lba}) names a page that is out of range or used twice"),
            )),
        }
    }

    fn read_map_page(&mut self, at: Slot, level: u16, index: u64) -> Result<Vec<Slot>> {
        self.inner.read(at.page, 0, &mut self.page_buf)?;
        self.own.durability_reads += 1;
        let b = &self.page_buf;
        if crc::crc32c(b) != at.crc
            || &b[0..4] != MAP_MAGIC
            || u16::from_le_bytes([b[4], b[5]]) != level
            || u64_at(b, 8) != index
        {
            return Err(corrupt(
                at.page,
                format!("map page {index} of level {level} does not match its checksum or header"),
            ));
        }
        Ok((0..self.per_map_page as usize)
            .map(|i| {
                let o = MAP_HEADER + i * ENTRY_BYTES;
                Slot {
                    page: u64_at(b, o),
                    crc: u32_at(b, o + 8),
                    fresh: false,
                }
            })
            .collect())
    }

    fn take_page(&mut self) -> Result<u64> {
        if let Some(p) = self.free.pop_first() {
            return Ok(p);
        }
        if self.high_water < self.inner.capacity_pages() {
            self.high_water += 1;
            return Ok(self.high_water - 1);
        }
        // The caller may be half-way through an operation: the index guard
        // (`store::guard`) refuses every later call until it is reopened,
        // at the last commit, which this leaves intact.
        Err(DeviceError::Full {
            detail: "no physical page left for a shadow copy (the last commit is intact)".into(),
        })
    }

    /// Writes `data` over `old`'s page if no commit references it (fresh),
    /// else to a page taken for it, given back if the write fails; the
    /// superseded page then waits for release (invariant 1). Returns the
    /// page written.
    fn write_shadow(&mut self, old: Slot, data: &[u8]) -> Result<u64> {
        if old.fresh {
            self.inner.write(old.page, 0, data)?;
            return Ok(old.page);
        }
        let page = self.take_page()?;
        if let Err(e) = self.inner.write(page, 0, data) {
            self.free.insert(page);
            return Err(e);
        }
        if old.page != 0 {
            self.pending_release.push(old.page);
        }
        Ok(page)
    }

    /// Gives back a page no commit references.
    fn drop_fresh(&mut self, page: u64) -> Result<()> {
        self.free.insert(page);
        if self.inner.trim_reclaims() {
            self.inner.trim(page)?;
        }
        Ok(())
    }

    fn check(&self, lba: u64, offset: usize, len: usize) -> Result<()> {
        super::check_access(
            "logical page",
            lba,
            self.capacity,
            offset,
            len,
            self.page_size,
        )
    }

    /// Reads page `lba` whole into `page_buf`, checked against its map entry.
    fn read_checked(&mut self, lba: u64) -> Result<bool> {
        let mut buf = std::mem::take(&mut self.page_buf);
        let read = self.read_checked_into(lba, &mut buf);
        self.page_buf = buf;
        read
    }

    /// [`Self::read_checked`] into `out` (a whole page): a full-page read
    /// goes straight to its caller's buffer.
    fn read_checked_into(&mut self, lba: u64, out: &mut [u8]) -> Result<bool> {
        let Some(slot) = self
            .entries
            .get(lba as usize)
            .copied()
            .filter(|s| s.page != 0)
        else {
            out.fill(0);
            return Ok(false);
        };
        self.inner.read(slot.page, 0, out)?;
        let crc = crc::crc32c(out);
        if crc != slot.crc {
            return Err(corrupt(
                lba,
                format!(
                    "content (at page {} beneath) does not match the checksum of its last write \
                     ({crc:#010x} against {:#010x}): damaged, misplaced or stale",
                    slot.page, slot.crc
                ),
            ));
        }
        Ok(true)
    }

    /// Writes the changed map pages, then the meta record to both copies.
    /// A failure anywhere leaves what is still to do in place, so a retry
    /// finishes the same commit (issue #28): a map page leaves `dirty` only
    /// once written, and from the first meta write on the new commit's pages
    /// count as referenced (that write may land even if it reports an
    /// error), while the pages the previous commit references stay reserved
    /// until both copies name a newer one.
    fn commit(&mut self) -> Result<()> {
        let per = self.per_map_page;
        for level in 0..self.levels as usize {
            let dirty: Vec<u64> = self.dirty[level].iter().copied().collect();
            for j in dirty {
                let mut b = vec![0u8; self.page_size];
                b[0..4].copy_from_slice(MAP_MAGIC);
                b[4..6].copy_from_slice(&(level as u16).to_le_bytes());
                b[8..16].copy_from_slice(&j.to_le_bytes());
                let source: &[Slot] = if level == 0 {
                    &self.entries
                } else {
                    &self.tree[level - 1]
                };
                let from = (j * per) as usize;
                for (i, s) in source.iter().skip(from).take(per as usize).enumerate() {
                    let o = MAP_HEADER + i * ENTRY_BYTES;
                    b[o..o + 8].copy_from_slice(&s.page.to_le_bytes());
                    b[o + 8..o + 12].copy_from_slice(&s.crc.to_le_bytes());
                }
                let old = self.tree[level]
                    .get(j as usize)
                    .copied()
                    .unwrap_or_default();
                let page = self.write_shadow(old, &b)?;
                self.own.durability_writes += 1;
                self.dirty[level].remove(&j);
                let row = &mut self.tree[level];
                if row.len() <= j as usize {
                    row.resize(j as usize + 1, Slot::default());
                }
                row[j as usize] = Slot {
                    page,
                    crc: crc::crc32c(&b),
                    fresh: true,
                };
                if level + 1 < self.levels as usize {
                    self.dirty[level + 1].insert(j / per);
                }
            }
        }
        let top = self.levels as usize - 1;
        let root = self.tree[top].first().copied().unwrap_or_default();
        let log_head = self.reserve_log_head()?;
        self.inner.sync()?;
        self.generation += 1;
        let meta = self.encode_meta(root, log_head);
        // Invariant 1: from here on this commit may be on the medium, so
        // nothing it references is written in place any more; a retry
        // writes a newer generation naming the same pages.
        self.settle_fresh();
        for copy in 0..2 {
            self.inner.write(copy, 0, &meta)?;
            self.own.durability_writes += 1;
            self.inner.sync()?;
        }
        // Both copies name this commit: what only older ones referenced is
        // free. Trimming it is housekeeping: a failed trim leaves an
        // unreferenced page whose content no map names (every read is
        // checked against the map's checksum), so it is not an error of
        // the commit, which is already durable.
        // A file gains nothing from it (`trim_reclaims`): the page is
        // reused from `free`, and every read of it is checked against the
        // map, which names it only after it is written again.
        let trim = self.inner.trim_reclaims();
        // The old epoch's log is in the commit now (`log`, invariant 1).
        let old_log = std::mem::take(&mut self.log.pages);
        self.pending_release.extend(old_log);
        self.start_epoch(log_head.0, log_head.1);
        for page in std::mem::take(&mut self.pending_release) {
            self.free.insert(page);
            if trim {
                let _ = self.inner.trim(page);
            }
        }
        self.changed = false;
        Ok(())
    }

    /// Marks every page taken since the last commit as referenced by the
    /// one being written (invariant 2).
    fn settle_fresh(&mut self) {
        for lba in std::mem::take(&mut self.fresh_lbas) {
            if let Some(s) = self.entries.get_mut(lba as usize) {
                s.fresh = false;
            }
        }
        for row in &mut self.tree {
            for slot in row.iter_mut() {
                slot.fresh = false;
            }
        }
    }
}

impl BlockDevice for Shadow {
    fn page_size(&self) -> usize {
        self.page_size
    }
    /// `read_checked`: every page read is checked against its map entry's
    /// checksum.
    fn verifies_reads(&self) -> bool {
        true
    }
    fn capacity_pages(&self) -> u64 {
        self.capacity
    }
    fn pages_per_block(&self) -> u32 {
        self.inner.pages_per_block()
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba, offset, buf.len())?;
        self.own.logical_reads += 1;
        self.own.bytes_read += buf.len() as u64;
        if offset == 0 && buf.len() == self.page_size {
            self.read_checked_into(lba, buf)?;
            return Ok(());
        }
        self.read_checked(lba)?;
        buf.copy_from_slice(&self.page_buf[offset..offset + buf.len()]);
        Ok(())
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba, offset, data.len())?;
        self.own.logical_writes += 1;
        self.own.bytes_written += data.len() as u64;
        if data.len() == self.page_size {
            self.page_buf.copy_from_slice(data);
        } else {
            if self.read_checked(lba)? {
                self.own.durability_reads += 1;
            }
            self.page_buf[offset..offset + data.len()].copy_from_slice(data);
        }
        let at = lba as usize;
        if self.entries.len() <= at {
            self.entries.resize(at + 1, Slot::default());
        }
        let old = self.entries[at];
        let data = std::mem::take(&mut self.page_buf);
        let written = self.write_shadow(old, &data);
        self.page_buf = data;
        let page = written?;
        if !old.fresh {
            self.fresh_lbas.push(lba);
        }
        self.entries[at] = Slot {
            page,
            crc: crc::crc32c(&self.page_buf),
            fresh: true,
        };
        self.dirty[0].insert(lba / self.per_map_page);
        self.changed = true;
        Ok(())
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, 0)?;
        self.own.logical_trims += 1;
        let Some(old) = self.entries.get(lba as usize).copied() else {
            return Ok(());
        };
        if old.page == 0 {
            return Ok(());
        }
        self.entries[lba as usize] = Slot::default();
        if old.fresh {
            self.drop_fresh(old.page)?;
        } else {
            self.pending_release.push(old.page);
        }
        self.dirty[0].insert(lba / self.per_map_page);
        self.changed = true;
        Ok(())
    }
    /// The log, where it is on or a commit left one to replay.
    fn commit_log(&mut self) -> Option<&mut dyn CommitLog> {
        if self.log.bound > 0 || !self.log.head.is_none() {
            Some(self)
        } else {
            None
        }
    }
    /// Back to the last commit. Every page written since is unreferenced by
    /// it, so nothing beneath changes; the map in RAM is read again.
    fn discard_uncommitted(&mut self) -> Result<()> {
        if self.changed || self.log.touched {
            self.load_last_commit()?;
        }
        Ok(())
    }
    /// The commit point (module doc).
    fn sync(&mut self) -> Result<()> {
        // A log not empty, or a log wanted where the last commit started
        // none, also asks for a commit: a checkpoint.
        let log_due = self.log.written > 0 || (self.log.bound > 0 && self.log.head.is_none());
        if self.changed || self.generation == 0 || log_due {
            self.commit()
        } else {
            self.inner.sync()
        }
    }
    fn stats(&self) -> DeviceStats {
        let mut s = self.inner.stats();
        s.logical_reads = self.own.logical_reads;
        s.logical_writes = self.own.logical_writes;
        s.logical_trims = self.own.logical_trims;
        s.bytes_read = self.own.bytes_read;
        s.bytes_written = self.own.bytes_written;
        s.durability_writes += self.own.durability_writes;
        s.durability_reads += self.own.durability_reads;
        s
    }
    fn wear(&self) -> Option<Wear> {
        self.inner.wear()
    }
    fn info(&self) -> DeviceInfo {
        let mut i = self.inner.info();
        // What a device sized to the work must offer: the logical pages the
        // index reached plus the layer's reserve, or the pages used beneath
        // (shadows included), whichever is more.
        let reached = self.entries.len() as u64;
        let logical_reach =
            reached + FIRST_DATA + 2 * map_pages(reached, self.per_map_page, self.levels);
        i.footprint_pages = Some(i.footprint_pages.unwrap_or(0).max(logical_reach));
        i.capacity_pages = self.capacity;
        i.notes.push(format!(
            "shadow paging: atomic commit at every flush, checksummed page map of {} levels (generation {})",
            self.levels, self.generation
        ));
        let r = &self.repairs;
        if r.log_pages + r.commit_records > 0 {
            i.notes.push(format!(
                "recovery found {} log page copies and {} commit record copies that a crash left single: {}",
                r.log_pages,
                r.commit_records,
                if r.pending {
                    "opened read-only, left as they are (a read-write open rewrites them)"
                } else {
                    "rewritten"
                }
            ));
        }
        if self.log.bound > 0 {
            i.notes.push(format!(
                "write-ahead log: a flush appends the operations since the last one (two copies, one sync); a checkpoint commits at {} bytes of log",
                self.log.bound
            ));
        }
        i
    }
}

#[cfg(test)]
mod tests;
