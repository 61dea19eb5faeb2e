//! Pages of sorted entries, shared by the indexes that write immutable
//! sorted runs (the FD-tree's runs, Li et al. 2009 §II-A, and the LSM-tree's
//! components, O'Neil et al.): the entry and page codec, multi-page I/O,
//! the extent allocator that keeps a run contiguous (so writing it is
//! sequential), and an LRU cache of decoded pages.
//!
//! On-flash format of a run page: a page frame of kind
//! [`PageKind::RunPage`] whose payload is
//!
//! | bytes | field |
//! |---|---|
//! | 0 | level |
//! | 1 | reserved (0) |
//! | 2..4 | entry count (`u16`) |
//! | 4..8 | page number within the run (`u32`) |
//! | 8.. | entries, each `key_bytes + value_bytes + 1` bytes: key, value, type |
//!
//! Types: 0 index entry, 1 filter entry (a deletion: the FD-tree's filter
//! entry, §II-D, the LSM-tree's delete node entry), 2 internal fence, 3
//! external fence, 4 the last external fence of a run (its key stands for
//! +∞). A fence's value is the page number, in the level below, that a
//! search goes to (its `pid`). What a level and a page number mean is the
//! owning index's (`docs/FORMAT.md`); a page whose level or number is not
//! the one its reader expects is `Corrupt`.

use std::collections::BTreeMap;

use crate::device::{BlockDevice, DeviceError, Storage};
use crate::index::{EntryFormat, IndexError};
use crate::node::page::{self, PageKind, FRAME_HEADER};

/// Bytes of a run page's header after the frame.
pub(crate) const PAGE_HEADER: usize = 8;

/// The role of an entry (§II-A, §II-D).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Index = 0,
    Filter = 1,
    Internal = 2,
    External = 3,
    Last = 4,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            0 => Kind::Index,
            1 => Kind::Filter,
            2 => Kind::Internal,
            3 => Kind::External,
            4 => Kind::Last,
            _ => return None,
        })
    }

    pub(crate) fn is_fence(self) -> bool {
        matches!(self, Kind::Internal | Kind::External | Kind::Last)
    }

    /// +1 for an index entry, −1 for a filter entry.
    pub(crate) fn count(self) -> i64 {
        match self {
            Kind::Index => 1,
            Kind::Filter => -1,
            _ => 0,
        }
    }
}

/// One entry of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: u64,
    /// The record id, or a fence's pid.
    pub value: u64,
    pub kind: Kind,
}

impl Entry {
    /// Whether a search for `key` stops here and follows `value` down.
    pub(crate) fn covers(&self, key: u64) -> bool {
        self.kind == Kind::Last || (self.kind.is_fence() && self.key >= key)
    }
}

/// Bytes of one encoded entry.
pub(crate) fn entry_bytes(f: EntryFormat) -> usize {
    f.entry_bytes() + 1
}

/// Entries a page holds.
pub(crate) fn per_page(f: EntryFormat, page_size: usize) -> usize {
    page_size.saturating_sub(FRAME_HEADER + PAGE_HEADER) / entry_bytes(f)
}

/// A decoded run page.
#[derive(Clone, Debug, Default)]
pub(crate) struct Page {
    pub entries: Vec<Entry>,
}

impl Page {
    /// Index of the first entry whose key is at least `key`.
    pub(crate) fn lower_bound(&self, key: u64) -> usize {
        self.entries
            .partition_point(|e| e.kind != Kind::Last && e.key < key)
    }
}

/// The entries' bytes of run page `lba`, once its frame (checksum
/// included) and its header (`level`, page `number`, a count that fits)
/// are checked.
fn checked_body(
    f: EntryFormat,
    buf: &[u8],
    (lba, verified): (u64, bool),
    level: u8,
    number: u64,
) -> Result<&[u8], IndexError> {
    let corrupt = |detail: String| IndexError::Corrupt { page: lba, detail };
    let payload = page::open_read(buf, PageKind::RunPage, lba, verified)?
        .ok_or_else(|| corrupt("a run names an empty page".into()))?;
    if payload.len() < PAGE_HEADER {
        return Err(corrupt("run page shorter than its header".into()));
    }
    let count = u16::from_le_bytes([payload[2], payload[3]]) as usize;
    let at = u32::from_le_bytes([payload[4], payload[5], payload[6], payload[7]]) as u64;
    if payload[0] != level || at != number {
        return Err(corrupt(format!(
            "run page of level {} page {at} where level {level} page {number} was expected",
            payload[0]
        )));
    }
    let eb = entry_bytes(f);
    payload
        .get(PAGE_HEADER..PAGE_HEADER + count * eb)
        .ok_or_else(|| corrupt(format!("{count} entries do not fit the page")))
}

/// The first entry of leaf page `lba` (level 0, page `number`) whose key
/// is `key`, found by binary search in the page's bytes without decoding
/// the others: a point lookup's leaf (issue #45; decoding the whole leaf
/// was most of a lookup's instructions). Entries are in (key, value)
/// order; a fence or an unknown type byte met is `Corrupt`. `verified`:
/// read from a device that checked the page (`page::open_read`).
pub(crate) fn find_key_in_leaf(
    f: EntryFormat,
    buf: &[u8],
    (lba, verified): (u64, bool),
    number: u64,
    key: u64,
) -> Result<Option<Entry>, IndexError> {
    let body = checked_body(f, buf, (lba, verified), 0, number)?;
    let eb = entry_bytes(f);
    let kb = f.key_bytes as usize;
    let count = body.len() / eb;
    let key_at = |i: usize| f.read_key(&body[i * eb..]);
    let (mut lo, mut hi) = (0, count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if key_at(mid) < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == count || key_at(lo) != key {
        return Ok(None);
    }
    let e = &body[lo * eb..(lo + 1) * eb];
    match Kind::from_u8(e[eb - 1]) {
        Some(kind) if !kind.is_fence() => Ok(Some(Entry {
            key,
            value: f.read_value(&e[kb..]),
            kind,
        })),
        _ => Err(IndexError::Corrupt {
            page: lba,
            detail: format!("a leaf holds an entry of type {}", e[eb - 1]),
        }),
    }
}

/// Decodes run page `lba` (expected at `level`, page `number`) into
/// `entries` (cleared first): readers reuse one vector page after page (a
/// merge's scan, the page cache's spare).
/// `verified`: read from a device that checked the page
/// (`page::open_read`).
fn decode_into(
    f: EntryFormat,
    buf: &[u8],
    (lba, verified): (u64, bool),
    level: u8,
    number: u64,
    entries: &mut Vec<Entry>,
) -> Result<(), IndexError> {
    entries.clear();
    let corrupt = |detail: String| IndexError::Corrupt { page: lba, detail };
    let body = checked_body(f, buf, (lba, verified), level, number)?;
    let eb = entry_bytes(f);
    entries.reserve(body.len() / eb);
    // 4 + 4-byte entries (every experiment's) through a loop the compiler
    // sees the widths of: decoding was the largest cost of an LSM-tree
    // search and of an FD-tree merge (issue #31).
    let pushed = if f.key_bytes == 4 && f.value_bytes == 4 {
        push_entries::<9>(body, entries, |e| {
            (
                u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as u64,
                u32::from_le_bytes([e[4], e[5], e[6], e[7]]) as u64,
            )
        })
    } else if f.key_bytes == 8 && f.value_bytes == 8 {
        // A store's full-width entries (issue #45: decoding a leaf was
        // most of a point lookup's instructions on a file).
        push_entries::<17>(body, entries, |e| {
            let (k, v) = (&e[..8], &e[8..16]);
            (
                u64::from_le_bytes(k.try_into().unwrap_or_default()),
                u64::from_le_bytes(v.try_into().unwrap_or_default()),
            )
        })
    } else {
        let kb = f.key_bytes as usize;
        push_entries_of(eb, body, entries, |e| {
            (f.read_key(e), f.read_value(&e[kb..]))
        })
    };
    pushed.map_err(|b| corrupt(format!("entry type {b}")))
}

/// Appends the entries of `body` (`EB`-byte entries: key and value as
/// `pair` reads them, then the type byte); the first unknown type byte
/// is the error.
fn push_entries<const EB: usize>(
    body: &[u8],
    entries: &mut Vec<Entry>,
    pair: impl Fn(&[u8]) -> (u64, u64),
) -> Result<(), u8> {
    push_entries_of(EB, body, entries, pair)
}

#[inline(always)]
fn push_entries_of(
    eb: usize,
    body: &[u8],
    entries: &mut Vec<Entry>,
    pair: impl Fn(&[u8]) -> (u64, u64),
) -> Result<(), u8> {
    for e in body.chunks_exact(eb) {
        let kind = Kind::from_u8(e[eb - 1]).ok_or(e[eb - 1])?;
        let (key, value) = pair(e);
        entries.push(Entry { key, value, kind });
    }
    Ok(())
}

/// Device pages one run page of `buf.len()` bytes spans.
pub(crate) fn span(dev: &dyn BlockDevice, run_page_bytes: usize) -> u64 {
    (run_page_bytes / dev.page_size()).max(1) as u64
}

/// Writes the run page image `buf` at `lba` (as many device pages as it
/// spans, in one call: one sequential run of writes, or one request where
/// the device serves a span as one).
pub(crate) fn write_page(
    dev: &mut dyn BlockDevice,
    lba: u64,
    buf: &[u8],
) -> Result<(), IndexError> {
    dev.write_span(lba, buf)?;
    Ok(())
}

/// Reads the run page image at `lba` into `buf`.
pub(crate) fn read_page(
    dev: &mut dyn BlockDevice,
    lba: u64,
    buf: &mut [u8],
) -> Result<(), IndexError> {
    dev.read_span(lba, buf)?;
    Ok(())
}

/// Reads run page `lba` (expected at `level`, page `number`) and decodes
/// it into `entries`: from the device's own copy where it lends one and
/// the run page is one device page (`buf.len()`), else through `buf`.
pub(crate) fn read_entries(
    dev: &mut dyn BlockDevice,
    lba: u64,
    buf: &mut [u8],
    (f, level, number): (EntryFormat, u8, u64),
    entries: &mut Vec<Entry>,
) -> Result<(), IndexError> {
    let verified = dev.verifies_reads();
    if buf.len() == dev.page_size() {
        if let Some(image) = dev.read_in_place(lba)? {
            return decode_into(f, image, (lba, verified), level, number, entries);
        }
    }
    read_page(dev, lba, buf)?;
    decode_into(f, buf, (lba, verified), level, number, entries)
}

/// Encodes `entries` as page `number` of a run of `level` into `buf`.
pub(crate) fn encode(f: EntryFormat, entries: &[Entry], level: u8, number: u64, buf: &mut [u8]) {
    buf.fill(0);
    let p = &mut buf[FRAME_HEADER..];
    p[0] = level;
    p[2..4].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    p[4..8].copy_from_slice(&(number as u32).to_le_bytes());
    let eb = entry_bytes(f);
    let kb = f.key_bytes as usize;
    for (i, e) in entries.iter().enumerate() {
        let at = PAGE_HEADER + i * eb;
        f.put_key(&mut p[at..], e.key);
        f.put_value(&mut p[at + kb..], e.value);
        p[at + eb - 1] = e.kind as u8;
    }
    page::seal(buf, PageKind::RunPage, PAGE_HEADER + entries.len() * eb);
}

/// The in-memory buffer (the FD-tree's head tree, the LSM-tree's C0) on a
/// device without erase units.
const DEFAULT_BUFFER_BYTES: usize = 128 << 10;

/// The bytes an index needs besides its buffer to run a step, from the
/// page size, the entries a page holds and the entry format.
pub(crate) type WorkingSet = fn(usize, u64, EntryFormat) -> usize;

/// How an index of sorted runs lays itself out on a device: checked and
/// sized once, the same way for the FD-tree and the LSM-tree, so the two
/// compare at one page size and one in-memory buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub device_page: usize,
    pub capacity: u64,
    /// Bytes of a run page (`page_bytes`) and the device pages it spans.
    pub page_size: usize,
    pub span: u64,
    /// Entries a run page holds (f).
    pub per_page: u64,
    /// The in-memory buffer's capacity in entries.
    pub buffer_entries: u64,
    /// Pages of the memory budget left for the page cache.
    pub cache_pages: usize,
}

impl Geometry {
    /// Checks `storage` and sizes the run pages (`page_bytes`, default the
    /// device page) and the in-memory buffer (`buffer_bytes`, default one
    /// erase block, or 128 KiB without erase units, at most half the
    /// memory and at most what the working set leaves). `working_set`
    /// gives, from the page size and f, the bytes the index needs besides
    /// the buffer to run a step (two cached pages for the FD-tree; the
    /// merge buffers besides for the LSM-tree): the default buffer leaves
    /// them room, so any budget that holds a page of buffer and the
    /// working set opens with the defaults. `index` and `buffer` name the
    /// index and its buffer parameter in errors; `working` names the
    /// working set.
    pub(crate) fn of(
        storage: &Storage,
        format: EntryFormat,
        page_bytes: Option<usize>,
        buffer_bytes: Option<usize>,
        memory: usize,
        (index, buffer): (&str, &str),
        (working, working_set): (&str, WorkingSet),
    ) -> Result<Geometry, IndexError> {
        let Storage::Pages(d) = storage else {
            return Err(IndexError::Config(format!(
                "the {index} writes runs of logical pages: use an FTL profile, an SSD model or file:PATH, not raw:"
            )));
        };
        let (device_page, capacity) = (d.page_size(), d.capacity_pages());
        let erase_block = d.pages_per_block() as usize * device_page;
        let page_size = page_bytes.unwrap_or(device_page);
        if page_size < device_page || !page_size.is_multiple_of(device_page) {
            return Err(IndexError::Config(format!(
                "page_bytes = {page_size} must be a multiple of the device's {device_page}-byte page"
            )));
        }
        let f = per_page(format, page_size) as u64;
        if f < 4 {
            return Err(IndexError::Config(format!(
                "a {page_size}-byte page holds {f} {index} entries; at least 4 are needed"
            )));
        }
        let working_bytes = working_set(page_size, f, format);
        let page_of_entries = f as usize * entry_bytes(format);
        let buffer_bytes = buffer_bytes.unwrap_or_else(|| {
            let block = if erase_block > device_page {
                erase_block
            } else {
                DEFAULT_BUFFER_BYTES
            };
            block
                .min(memory / 2)
                .min(memory.saturating_sub(working_bytes))
                .max(page_of_entries)
        });
        let buffer_entries = (buffer_bytes / entry_bytes(format)) as u64;
        if buffer_entries < f {
            return Err(IndexError::Config(format!(
                "{buffer} = {buffer_bytes} holds fewer entries than one page ({f}); it must hold at least a page"
            )));
        }
        let needed = buffer_bytes + working_bytes;
        if memory < needed {
            return Err(IndexError::BudgetTooSmall {
                needed,
                given: memory,
                what: format!("{buffer} = {buffer_bytes} and {working}"),
            });
        }
        Ok(Geometry {
            device_page,
            capacity,
            page_size,
            span: (page_size / device_page) as u64,
            per_page: f,
            buffer_entries,
            cache_pages: (memory - buffer_bytes) / page_size,
        })
    }
}

/// Entries level `i` holds when level 0 holds `base` and each level
/// `ratio` times the one above.
pub(crate) fn level_capacity(base: u64, ratio: u64, i: usize) -> u64 {
    (0..i).fold(base, |c, _| c.saturating_mul(ratio))
}

/// The bottom level of a leveled index (level 0 of `base` entries, each
/// level below `ratio` times the one above) holding `n` entries: the
/// fewest levels whose bottom capacity holds them (at least level 1).
pub(crate) fn bottom_level(base: u64, ratio: u64, n: u64) -> usize {
    let mut bottom = 1;
    while level_capacity(base, ratio, bottom) < n {
        bottom += 1;
    }
    bottom
}

/// The capacities of the levels above that bottom level, level 0
/// included, summed, each divided by `divisor` (at most `n`).
pub(crate) fn capacity_above_bottom(base: u64, ratio: u64, n: u64, divisor: u64) -> u64 {
    (0..bottom_level(base, ratio, n))
        .map(|i| level_capacity(base, ratio, i) / divisor.max(1))
        .sum::<u64>()
        .min(n)
}

/// First-fit extents of LBAs for runs: runs are contiguous, so a merge
/// writes sequentially.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extents {
    /// Free extents by start: start → length.
    free: BTreeMap<u64, u64>,
    /// Next LBA never allocated.
    pub high_water: u64,
    capacity: u64,
}

impl Extents {
    pub(crate) fn new(first: u64, capacity: u64) -> Self {
        Extents {
            free: BTreeMap::new(),
            high_water: first,
            capacity,
        }
    }

    /// `n` contiguous LBAs.
    pub(crate) fn alloc(&mut self, n: u64) -> Result<u64, IndexError> {
        if let Some((&start, &len)) = self.free.iter().find(|(_, &len)| len >= n) {
            self.free.remove(&start);
            if len > n {
                self.free.insert(start + n, len - n);
            }
            return Ok(start);
        }
        if self.high_water + n > self.capacity {
            return Err(IndexError::Device(DeviceError::Full {
                detail: format!(
                    "the run needs {n} contiguous pages past page {} of {}",
                    self.high_water, self.capacity
                ),
            }));
        }
        self.high_water += n;
        Ok(self.high_water - n)
    }

    /// Returns `n` LBAs from `start`, merging neighbours.
    pub(crate) fn release(&mut self, mut start: u64, mut n: u64) {
        if n == 0 {
            return;
        }
        if let Some((&s, &len)) = self.free.range(..start).next_back() {
            if s + len == start {
                self.free.remove(&s);
                start = s;
                n += len;
            }
        }
        if let Some(&len) = self.free.get(&(start + n)) {
            self.free.remove(&(start + n));
            n += len;
        }
        if start + n == self.high_water {
            self.high_water = start;
        } else {
            self.free.insert(start, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_reuse_and_coalesce() {
        let mut x = Extents::new(1, 100);
        let a = x.alloc(10).unwrap();
        let b = x.alloc(10).unwrap();
        let c = x.alloc(10).unwrap();
        assert_eq!((a, b, c), (1, 11, 21));
        x.release(a, 10);
        x.release(b, 10);
        assert_eq!(x.alloc(15).unwrap(), 1);
        x.release(c, 10);
        assert!(x.alloc(80).is_err() || x.high_water <= 100);
        assert!(x.alloc(1000).is_err());
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes decode to a page or `Corrupt`, never a panic.
        #[test]
        fn run_pages_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 512), valid in any::<bool>()) {
            let f = EntryFormat::new(4, 4).unwrap();
            if valid {
                // A well-formed frame around garbage entries.
                let len = bytes.len() - FRAME_HEADER;
                page::seal(&mut bytes, PageKind::RunPage, len.min(PAGE_HEADER + 54 * 9));
            }
            let _ = decode_into(f, &bytes, (7, false), bytes[FRAME_HEADER], 0, &mut Vec::new());
        }

        /// Every entry format decodes what `encode` wrote (4 + 4-byte
        /// entries through their own loop, the others the general one),
        /// and an unknown type byte is `Corrupt`.
        #[test]
        fn decode_reads_what_encode_wrote(
            widths in prop::sample::select(vec![(4u8, 4u8), (8, 8), (4, 8), (8, 4), (2, 4)]),
            raw in proptest::collection::vec((any::<u64>(), any::<u64>(), 0u8..5), 0..40),
            bad in any::<prop::sample::Index>(),
        ) {
            let f = EntryFormat::new(widths.0, widths.1).unwrap();
            let entries: Vec<Entry> = raw
                .iter()
                .map(|&(k, v, t)| Entry {
                    key: k & f.max_key(),
                    value: v & f.max_value(),
                    kind: Kind::from_u8(t).unwrap(),
                })
                .collect();
            let mut buf = vec![0u8; 1024];
            encode(f, &entries, 3, 9, &mut buf);
            let mut got = vec![Entry { key: 1, value: 1, kind: Kind::Index }];
            decode_into(f, &buf, (5, false), 3, 9, &mut got).unwrap();
            prop_assert_eq!(&got, &entries);
            if !entries.is_empty() {
                let eb = entry_bytes(f);
                let at = FRAME_HEADER + PAGE_HEADER + bad.index(entries.len()) * eb + eb - 1;
                buf[at] = 9;
                let len = PAGE_HEADER + entries.len() * eb;
                page::seal(&mut buf, PageKind::RunPage, len);
                let r = decode_into(f, &buf, (5, false), 3, 9, &mut got);
                prop_assert!(matches!(r, Err(IndexError::Corrupt { .. })), "{:?}", r);
            }
        }
    }
}
