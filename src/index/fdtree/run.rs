//! FD-tree's sorted runs (Li et al. 2009 §II-A): where a run lies, and the
//! writer that lays a run out page by page, adding internal fences. The
//! page codec, extents and page cache are shared with the LSM-tree
//! ([`crate::index::runs::page`], which gives the page format).
//!
//! Invariants of a run:
//! 1. Entries ascend by key; with the same key, index and filter entries
//!    (by value) come before fences (§II-A: "external fences follow index
//!    entries"); the last-fence, where present, is the run's last entry.
//! 2. A run that has a level below it ends with a last-fence, so a search
//!    always finds a fence at or after its key.
//! 3. An internal fence is a page's last entry and points where the next
//!    external fence of the run points.

use crate::device::BlockDevice;
use crate::index::{EntryFormat, IndexError};

use crate::index::runs::page::encode;
pub(super) use crate::index::runs::page::{
    entry_bytes, per_page, read_entries, span, write_page, Entry, Extents, Kind, Page,
};
pub(super) use crate::index::runs::PageCache;

/// Where a run lies and how big it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RunMeta {
    pub start: u64,
    pub pages: u64,
    /// Entries of every kind.
    pub entries: u64,
    /// Index and filter entries (the rest are fences).
    pub pairs: u64,
}

/// Lays out a run page by page at consecutive LBAs (sequential writes),
/// adding internal fences (§II-A) when the run has a level below it.
pub(super) struct RunWriter {
    format: EntryFormat,
    level: u8,
    start: u64,
    per_page: usize,
    /// Whether the run has a level below (fences, a last-fence).
    fenced: bool,
    /// The page being filled.
    current: Vec<Entry>,
    /// Emptied page vectors, reused so that a merge does not allocate
    /// (and regrow) one per page it writes.
    spare: Vec<Vec<Entry>>,
    /// Full pages waiting for the pid of their internal fence (the pid of
    /// the next external fence, not yet seen).
    pending: Vec<Vec<Entry>>,
    written: u64,
    entries: u64,
    pairs: u64,
    /// Key of the last entry of each page written, for the fences of the
    /// level above.
    pub last_keys: Vec<u64>,
    buf: Vec<u8>,
}

impl RunWriter {
    pub(super) fn new(
        format: EntryFormat,
        page_size: usize,
        level: u8,
        start: u64,
        fenced: bool,
    ) -> Self {
        RunWriter {
            format,
            level,
            start,
            per_page: per_page(format, page_size),
            fenced,
            current: Vec::new(),
            spare: Vec::new(),
            pending: Vec::new(),
            written: 0,
            entries: 0,
            pairs: 0,
            last_keys: Vec::new(),
            buf: vec![0u8; page_size],
        }
    }

    /// Appends `e` (in run order); writes pages as they fill.
    pub(super) fn push(&mut self, dev: &mut dyn BlockDevice, e: Entry) -> Result<(), IndexError> {
        if e.kind == Kind::Internal {
            // Internal fences are the writer's own.
            return Ok(());
        }
        if matches!(e.kind, Kind::External | Kind::Last) {
            // Every page waiting for a pid gets this fence's.
            for mut p in std::mem::take(&mut self.pending) {
                if let Some(f) = p.last_mut() {
                    f.value = e.value;
                }
                self.write(dev, &p)?;
                self.recycle(p);
            }
        }
        let room = if self.fenced && !e.kind.is_fence() {
            // Keep the last slot for an internal fence.
            self.per_page - 1
        } else {
            self.per_page
        };
        if self.current.len() >= room {
            let fresh = self
                .spare
                .pop()
                .unwrap_or_else(|| Vec::with_capacity(self.per_page));
            let mut full = std::mem::replace(&mut self.current, fresh);
            let ends_with_fence = full.last().is_some_and(|x| x.kind.is_fence());
            if self.fenced && !ends_with_fence {
                let key = full.last().map_or(0, |x| x.key);
                full.push(Entry {
                    key,
                    value: 0,
                    kind: Kind::Internal,
                });
                self.entries += 1;
                self.pending.push(full);
            } else if self.pending.is_empty() {
                self.write(dev, &full)?;
                self.recycle(full);
            } else {
                self.pending.push(full);
            }
        }
        self.current.push(e);
        self.entries += 1;
        if !e.kind.is_fence() {
            self.pairs += 1;
        }
        Ok(())
    }

    /// Keeps a written page's vector for a later page.
    fn recycle(&mut self, mut page: Vec<Entry>) {
        page.clear();
        self.spare.push(page);
    }

    fn write(&mut self, dev: &mut dyn BlockDevice, entries: &[Entry]) -> Result<(), IndexError> {
        let number = self.written;
        encode(self.format, entries, self.level, number, &mut self.buf);
        let lba = self.start + number * span(dev, self.buf.len());
        write_page(dev, lba, &self.buf)?;
        self.last_keys.push(entries.last().map_or(0, |e| e.key));
        self.written += 1;
        Ok(())
    }

    /// Writes what is left; the run's extent and size.
    pub(super) fn finish(
        mut self,
        dev: &mut dyn BlockDevice,
    ) -> Result<(RunMeta, Vec<u64>), IndexError> {
        // A fenced run ends with its last-fence, which flushed `pending`.
        for p in std::mem::take(&mut self.pending) {
            self.write(dev, &p)?;
        }
        if !self.current.is_empty() {
            let c = std::mem::take(&mut self.current);
            self.write(dev, &c)?;
        }
        Ok((
            RunMeta {
                start: self.start,
                pages: self.written,
                entries: self.entries,
                pairs: self.pairs,
            },
            self.last_keys,
        ))
    }

    /// Pages a run of `entries` entries may take (internal fences
    /// included), for allocating its extent.
    pub(super) fn pages_for(format: EntryFormat, page_size: usize, entries: u64) -> u64 {
        let per = per_page(format, page_size).max(2) as u64 - 1;
        entries.div_ceil(per).max(1)
    }
}
