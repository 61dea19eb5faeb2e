//! The commit layer's write-ahead log (issue #29): a `flush()` of an index
//! on a file becomes one append of the operations since the last flush and
//! one `fdatasync`, rather than a commit of the index's dirty structure
//! (the LSM-tree's whole in-memory component, a B+-tree's dirty nodes, the
//! page map's changed pages and two meta records, three syncs).
//!
//! What the log holds is the store layer's business (`store::logged`
//! encodes operations and replays them); this module keeps pages of bytes
//! between two commits, in *batches*: every page but the last of a batch
//! is written without a sync, the last is marked as the batch's end and
//! synced, and opening reads back only complete batches, in order. A
//! commit (the layer's `sync`) starts a new, empty log, since what the old
//! one held is then in the committed pages: the *epoch* of a log is the
//! generation of the commit it follows.
//!
//! On-flash format (a physical page of the device beneath, integers
//! little-endian), version 2: `"FXLG" | version u8 = 2 | flags u8 (1: ends
//! a batch, 2: starts one) | used u16 | generation u64 | sequence u64 |
//! session u64 | previous CRC u32 | CRC-32C u32 of the page with this
//! field zero | next primary u64 | next mirror u64 | after-next primary
//! u64 | after-next mirror u64 | 8 reserved bytes` (80 bytes), then `used`
//! bytes of records, then zeros. Version 1 (issue #29; still read) has a
//! 64-byte header without the after-next slot and the start flag. The
//! commit record names the epoch's first two slots; every page names the
//! slot after the one it names next, chosen (and reserved) before the page
//! is written, so that at any time the two slots after the last page
//! written are known and reserved.
//!
//! Why each field:
//! * **Two copies** (a primary and a mirror page, written one after the
//!   other before the batch's sync): a flushed batch is durable, and one
//!   damaged page must cost nothing (rule 3 of `docs/FORMAT.md`: damage is
//!   `Corrupt` or exact, never a silently lost flush). A damaged page of a
//!   chain cannot be told from the torn end of a crashed flush, so instead
//!   the other copy is read. A torn append has both copies unsynced; the
//!   batch it belongs to was not acknowledged and is dropped whole.
//! * **Repair** (issue #41): a crash can leave one copy of a page of a
//!   complete batch (the primary landed, the mirror did not), and then one
//!   damaged page would lose every later flush. Opening reads both copies
//!   of every page and, read-write, rewrites the copy that does not match
//!   the one it took (a read-only open writes nothing and reports what it
//!   would repair), so after any sequence of crashes and recoveries every
//!   page of the log is in two copies again before anything is appended.
//! * **Generation and sequence**: a page of an older epoch, or of another
//!   place in this one (a stale or misplaced page), does not continue the
//!   chain.
//! * **Previous CRC** and **session**: after a crash, the pages of the
//!   batch that never completed stay on the medium, and the next session
//!   appends from the end of the last complete batch, reusing free pages
//!   the dead batch may occupy. Each page's checksum covers the checksum
//!   of the page before it, and a session number drawn at random when the
//!   layer is loaded makes two sessions' pages differ even for the same
//!   records, so a dead batch's pages never chain onto a live one (SQLite's
//!   WAL salts its frames for the same reason).
//! * **The after-next slot and the start flag** (issue #41) tell a crash's
//!   torn end from a log page lost in both copies. Where the walk stops (no
//!   copy continues the chain), the page before named the slot after the
//!   missing one; a page there of this epoch and the next sequence number
//!   starts a walk past the gap (its own chain checked from there). A batch
//!   that starts past the gap (its first page flagged) and ends there was
//!   written after the batch holding the missing page was acknowledged (a
//!   batch is written only after the one before it is synced), so the
//!   missing page was durable: `Corrupt`. A crash leaves at most the batch
//!   in flight past the end of the last complete one, and past a gap in it
//!   no page starts a batch. Only damage to both copies of a page of the
//!   newest batch still reads as a torn end.
//! * **Extent** (issue #41): every slot is inside the file's durable length
//!   before a page names it (`BlockDevice::ensure_extent`: a file grows a
//!   chunk ahead and syncs), so where the walk stops at a slot past the end
//!   of the medium, or the slot after it is past the end, the file was cut
//!   short: `Corrupt`, never the older state a crash would have left.
//!   Version-1 pages and version-2 commit records name no after-next slot
//!   and had no such guarantee: past them the walk stops as before.
//!
//! Invariants:
//! 1. The log's pages (written, and the two reserved slots the next
//!    appends go to) are neither free nor in the map; they are released
//!    with the pages the previous commit referenced, once both meta copies
//!    name a newer commit (the layer's invariant 1).
//! 2. A page is only ever written at the slot the chain names next, so
//!    the chain read back is a prefix of what was appended.
//! 3. Every slot a page or commit record names lies inside the medium's
//!    durable extent before that page or record is written.

use super::{corrupt, u32_at, u64_at, Result, Shadow, FIRST_DATA};
use crate::device::{CommitLog, DeviceError};

const LOG_MAGIC: &[u8; 4] = b"FXLG";
const LOG_VERSION: u8 = 2;
/// Bytes of a log page's header (version 2).
pub(super) const LOG_HEADER: usize = 80;
/// Bytes of a version-1 page's header.
const LOG_HEADER_V1: usize = 64;
const BATCH_END: u8 = 1;
const BATCH_START: u8 = 2;
const CRC_AT: usize = 36;

/// Where one log page goes: two physical pages, the same content in both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LogSlot {
    pub primary: u64,
    pub mirror: u64,
}

impl LogSlot {
    pub fn is_none(&self) -> bool {
        self.primary == 0
    }

    /// Whether a page of the slot lies at or past `extent` pages.
    fn past(&self, extent: Option<u64>) -> bool {
        extent.is_some_and(|e| self.primary >= e || self.mirror >= e)
    }
}

/// One copy of a log page to rewrite from the other (module doc: repair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Repair {
    pub to: u64,
    pub from: u64,
}

/// The log of the current epoch, in RAM.
#[derive(Debug, Default)]
pub(super) struct Log {
    /// Log bytes after which the index layer checkpoints; 0: no log.
    pub bound: u64,
    /// Where the epoch's first page goes (from the commit record); none
    /// when the last commit started no log.
    pub head: LogSlot,
    /// Where the next page goes (reserved).
    pub next: LogSlot,
    /// Where the page after it goes (reserved); none after a version-1
    /// page or record, until the next append reserves it.
    pub after: LogSlot,
    pub sequence: u64,
    pub previous_crc: u32,
    pub session: u64,
    /// Pages written of a batch not yet ended (the next page does not
    /// start a batch).
    pub batch_open: bool,
    /// Physical pages of this epoch (written and reserved, both copies).
    pub pages: Vec<u64>,
    /// Bytes appended this epoch (whole pages, one copy).
    pub written: u64,
    /// Records of complete batches found at the last load.
    pub recovered: Vec<u8>,
    /// Copies of complete batches' pages found not matching the copy read
    /// at the last load (module doc: repair).
    pub repairs: Vec<Repair>,
    /// Appended to, or its recovered records taken, since the last load
    /// or commit: the state in RAM is no longer what a load would give.
    pub touched: bool,
}

/// A session number nobody else drew (module doc): the process's random
/// hash keys, the clock and a counter.
pub(super) fn session_number() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static DRAWN: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(DRAWN.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

/// A log page's checksum: the whole page with the checksum field zero.
fn page_crc(b: &[u8]) -> u32 {
    let crc = crate::device::crc::crc32c(&b[..CRC_AT]);
    let crc = crc32c::crc32c_append(crc, &[0u8; 4]);
    crc32c::crc32c_append(crc, &b[CRC_AT + 4..])
}

/// What a valid page says.
struct Page {
    end: bool,
    start: bool,
    /// Where its records start.
    header: usize,
    used: usize,
    next: LogSlot,
    /// The slot after `next` (version 2); `None` in a version-1 page.
    after: Option<LogSlot>,
    crc: u32,
}

/// `b` as the page `sequence` of epoch `generation` after a page whose
/// checksum was `previous_crc` (not checked where `None`: the first page
/// past a gap), or `None`.
fn parse(b: &[u8], generation: u64, sequence: u64, previous_crc: Option<u32>) -> Option<Page> {
    let header = match b[4] {
        1 => LOG_HEADER_V1,
        2 => LOG_HEADER,
        _ => return None,
    };
    let used = u16::from_le_bytes([b[6], b[7]]) as usize;
    if &b[0..4] != LOG_MAGIC
        || used > b.len() - header
        || u64_at(b, 8) != generation
        || u64_at(b, 16) != sequence
        || previous_crc.is_some_and(|c| u32_at(b, 32) != c)
    {
        return None;
    }
    let crc = u32_at(b, CRC_AT);
    if crc != page_crc(b) {
        return None;
    }
    let slot = |at: usize| LogSlot {
        primary: u64_at(b, at),
        mirror: u64_at(b, at + 8),
    };
    Some(Page {
        end: b[5] & BATCH_END != 0,
        start: header == LOG_HEADER && b[5] & BATCH_START != 0,
        header,
        used,
        next: slot(40),
        after: (header == LOG_HEADER).then(|| slot(56)),
        crc,
    })
}

/// Where a walk over the log is: the slot it reads next, the one after
/// it (if named), and what the page there must carry.
#[derive(Clone, Copy)]
struct Cursor {
    at: LogSlot,
    after: LogSlot,
    sequence: u64,
    previous_crc: Option<u32>,
    /// Whether whoever named `at` and `after` made them durable first
    /// (invariant 3: a version-2 page or a version-3 commit record).
    extended: bool,
}

impl Shadow {
    /// The record bytes of a log page.
    fn log_payload(&self) -> usize {
        self.page_size - LOG_HEADER
    }

    /// Reads both copies of the log page at `c.at`: the one that continues
    /// the chain (the primary first), left in `page_buf`, and the repair
    /// the other copy needs if it differs; `None` if neither continues it.
    fn read_copies(
        &mut self,
        c: &Cursor,
        generation: u64,
        other: &mut Vec<u8>,
    ) -> Result<Option<(Page, Option<Repair>)>> {
        self.inner.read(c.at.primary, 0, &mut self.page_buf)?;
        self.inner.read(c.at.mirror, 0, other)?;
        self.own.durability_reads += 2;
        if let Some(p) = parse(&self.page_buf, generation, c.sequence, c.previous_crc) {
            let repair = (self.page_buf != *other).then_some(Repair {
                to: c.at.mirror,
                from: c.at.primary,
            });
            return Ok(Some((p, repair)));
        }
        if let Some(p) = parse(other, generation, c.sequence, c.previous_crc) {
            std::mem::swap(&mut self.page_buf, other);
            return Ok(Some((
                p,
                Some(Repair {
                    to: c.at.primary,
                    from: c.at.mirror,
                }),
            )));
        }
        Ok(None)
    }

    /// Reads the log of the commit `generation` from `head` (and `after`,
    /// the slot after it, where the record names one): every complete
    /// batch's records and pages, and where the next pages go. `physical`
    /// bounds the walk (a loop or a page out of range in a valid page is
    /// damage that passed a checksum: `Corrupt`), and `extent` (the pages
    /// the medium holds) tells a cut file from a crash (module doc).
    pub(super) fn read_log(
        &mut self,
        head: LogSlot,
        after: LogSlot,
        generation: u64,
        physical: u64,
        extent: Option<u64>,
    ) -> Result<()> {
        let mut log = Log {
            bound: self.log.bound,
            head,
            next: head,
            after,
            session: session_number(),
            ..Log::default()
        };
        if head.is_none() {
            self.log = log;
            return Ok(());
        }
        let mut c = Cursor {
            at: head,
            after,
            sequence: 0,
            previous_crc: Some(0),
            extended: !after.is_none(),
        };
        let mut other = vec![0u8; self.page_size];
        let (mut batch, mut batch_pages, mut batch_repairs) = (Vec::new(), Vec::new(), Vec::new());
        loop {
            if c.extended && c.at.past(extent) {
                return Err(cut_short(c.sequence, c.at, extent));
            }
            let Some((p, repair)) = self.read_copies(&c, generation, &mut other)? else {
                // The end of the chain: a crash's torn end, unless a whole
                // batch follows the gap (module doc).
                if c.extended && !c.after.is_none() {
                    if c.after.past(extent) {
                        return Err(cut_short(c.sequence + 1, c.after, extent));
                    }
                    self.batch_past_gap(&c, generation, physical, &mut other)?;
                }
                break;
            };
            batch.extend_from_slice(&self.page_buf[p.header..p.header + p.used]);
            batch_pages.extend([c.at.primary, c.at.mirror]);
            batch_repairs.extend(repair);
            let named_fit =
                slot_fits(p.next, physical) && p.after.is_none_or(|a| slot_fits(a, physical));
            if !named_fit || c.sequence >= physical {
                return Err(corrupt(
                    c.at.primary,
                    format!(
                        "log page {} names the next at pages {} and {}, outside the device",
                        c.sequence, p.next.primary, p.next.mirror
                    ),
                ));
            }
            c = Cursor {
                at: p.next,
                after: p.after.unwrap_or_default(),
                sequence: c.sequence + 1,
                previous_crc: Some(p.crc),
                extended: p.after.is_some(),
            };
            if p.end {
                log.recovered.append(&mut batch);
                log.pages.append(&mut batch_pages);
                log.repairs.append(&mut batch_repairs);
                log.written = c.sequence * self.page_size as u64;
                log.next = c.at;
                log.after = c.after;
                log.sequence = c.sequence;
                log.previous_crc = p.crc;
            }
        }
        log.pages.extend([log.next.primary, log.next.mirror]);
        if !log.after.is_none() {
            log.pages.extend([log.after.primary, log.after.mirror]);
        }
        self.log = log;
        Ok(())
    }

    /// Past a page missing in both copies (`c.at`): `Corrupt` if a whole
    /// batch, first page flagged and last page ending it, follows from
    /// the slot after it (module doc).
    fn batch_past_gap(
        &mut self,
        gap: &Cursor,
        generation: u64,
        physical: u64,
        other: &mut Vec<u8>,
    ) -> Result<()> {
        let mut c = Cursor {
            at: gap.after,
            after: LogSlot::default(),
            sequence: gap.sequence + 1,
            previous_crc: None,
            extended: true,
        };
        let mut started = None;
        while c.sequence <= physical {
            let Some((p, _)) = self.read_copies(&c, generation, other)? else {
                return Ok(());
            };
            if p.start {
                started = Some(c.sequence);
            }
            if let (true, Some(first)) = (p.end, started) {
                return Err(corrupt(
                    gap.at.primary,
                    format!(
                        "log page {} is missing in both copies (physical pages {} and {}), but the complete batch of log pages {first}..={} follows it: damage, not the torn end of a crash",
                        gap.sequence, gap.at.primary, gap.at.mirror, c.sequence
                    ),
                ));
            }
            if !slot_fits(p.next, physical) {
                return Ok(());
            }
            c.at = p.next;
            c.sequence += 1;
            c.previous_crc = Some(p.crc);
        }
        Ok(())
    }

    /// A new epoch's first two slots, reserved for the commit being
    /// written (kept across a retried commit); none with the log off.
    pub(super) fn reserve_log_head(&mut self) -> Result<(LogSlot, LogSlot)> {
        if self.log.bound == 0 {
            return Ok(Default::default());
        }
        if let Some(head) = self.reserved_head {
            return Ok(head);
        }
        let head = self.take_slot()?;
        let after = match self.take_slot() {
            Ok(after) => after,
            Err(e) => {
                self.free.extend([head.primary, head.mirror]);
                return Err(e);
            }
        };
        self.reserved_head = Some((head, after));
        Ok((head, after))
    }

    /// Two pages for a log slot, inside the medium's durable extent
    /// (invariant 3).
    fn take_slot(&mut self) -> Result<LogSlot> {
        let primary = self.take_page()?;
        let mirror = match self.take_page() {
            Ok(mirror) => mirror,
            Err(e) => {
                self.free.insert(primary);
                return Err(e);
            }
        };
        if let Err(e) = self.inner.ensure_extent(primary.max(mirror) + 1) {
            self.free.extend([primary, mirror]);
            return Err(e);
        }
        Ok(LogSlot { primary, mirror })
    }

    /// After a commit naming `head` and `after` is durable in both copies:
    /// the old epoch's pages are free (the caller releases
    /// `pending_release`), and the log starts empty.
    pub(super) fn start_epoch(&mut self, head: LogSlot, after: LogSlot) {
        self.reserved_head = None;
        self.log = Log {
            bound: self.log.bound,
            head,
            next: head,
            after,
            session: self.log.session,
            pages: if head.is_none() {
                Vec::new()
            } else {
                vec![head.primary, head.mirror, after.primary, after.mirror]
            },
            ..Log::default()
        };
    }

    /// Rewrites the copies the last load found not matching (module doc:
    /// repair), then syncs; the count rewritten.
    pub(super) fn repair_log(&mut self) -> Result<u64> {
        let repairs = std::mem::take(&mut self.log.repairs);
        for r in &repairs {
            self.inner.read(r.from, 0, &mut self.page_buf)?;
            self.own.durability_reads += 1;
            let page = std::mem::take(&mut self.page_buf);
            let written = self.inner.write(r.to, 0, &page);
            self.page_buf = page;
            written?;
            self.own.durability_writes += 1;
        }
        Ok(repairs.len() as u64)
    }
}

/// The error of a log that names a slot past the end of the medium.
fn cut_short(sequence: u64, slot: LogSlot, extent: Option<u64>) -> DeviceError {
    corrupt(
        slot.primary.max(slot.mirror),
        format!(
            "log page {sequence} lies at physical pages {} and {}, past the end of the medium ({} pages): the file was cut short",
            slot.primary,
            slot.mirror,
            extent.unwrap_or(0)
        ),
    )
}

/// Whether both pages of `slot` can hold log pages on a device of
/// `physical` pages.
pub(super) fn slot_fits(slot: LogSlot, physical: u64) -> bool {
    let fits = |p: u64| (FIRST_DATA..physical).contains(&p);
    fits(slot.primary) && fits(slot.mirror) && slot.primary != slot.mirror
}

impl CommitLog for Shadow {
    fn payload_bytes(&self) -> usize {
        self.log_payload()
    }

    /// The configured bound, or less on a device short of pages: a quarter
    /// of what is free (the log takes two pages a page), so that the
    /// checkpoint the bound triggers still finds room.
    fn bound_bytes(&self) -> u64 {
        if self.log.bound == 0 {
            return 0;
        }
        let free =
            self.free.len() as u64 + self.inner.capacity_pages().saturating_sub(self.high_water);
        self.log
            .bound
            .min(free / 4 * self.page_size as u64)
            .max(self.page_size as u64)
    }

    fn len_bytes(&self) -> u64 {
        self.log.written
    }

    fn ready(&self) -> bool {
        self.log.bound > 0 && !self.log.head.is_none()
    }

    fn append(&mut self, records: &[u8], end: bool) -> Result<()> {
        if !self.ready() {
            return Err(DeviceError::Config(
                "the commit log is not ready: the last commit started none".into(),
            ));
        }
        if records.len() > self.log_payload() {
            return Err(DeviceError::OutOfRange {
                what: "log records",
                value: records.len() as u64,
                limit: self.log_payload() as u64,
            });
        }
        self.log.touched = true;
        if self.log.after.is_none() {
            // After a version-1 page: the slot after the next one is taken
            // now (invariant 1: reserved until the epoch ends).
            let after = self.take_slot()?;
            self.log.pages.extend([after.primary, after.mirror]);
            self.log.after = after;
        }
        let (at, next) = (self.log.next, self.log.after);
        let after = self.take_slot()?;
        self.log.pages.extend([after.primary, after.mirror]);
        let generation = self.generation;
        let b = &mut self.page_buf;
        b.fill(0);
        b[0..4].copy_from_slice(LOG_MAGIC);
        b[4] = LOG_VERSION;
        b[5] = if end { BATCH_END } else { 0 } | if self.log.batch_open { 0 } else { BATCH_START };
        b[6..8].copy_from_slice(&(records.len() as u16).to_le_bytes());
        b[8..16].copy_from_slice(&generation.to_le_bytes());
        b[16..24].copy_from_slice(&self.log.sequence.to_le_bytes());
        b[24..32].copy_from_slice(&self.log.session.to_le_bytes());
        b[32..36].copy_from_slice(&self.log.previous_crc.to_le_bytes());
        b[40..48].copy_from_slice(&next.primary.to_le_bytes());
        b[48..56].copy_from_slice(&next.mirror.to_le_bytes());
        b[56..64].copy_from_slice(&after.primary.to_le_bytes());
        b[64..72].copy_from_slice(&after.mirror.to_le_bytes());
        b[LOG_HEADER..LOG_HEADER + records.len()].copy_from_slice(records);
        let crc = page_crc(b);
        b[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        let page = std::mem::take(&mut self.page_buf);
        let written = self
            .inner
            .write(at.primary, 0, &page)
            .and_then(|()| self.inner.write(at.mirror, 0, &page));
        self.page_buf = page;
        written?;
        self.own.durability_writes += 2;
        if end {
            self.inner.sync()?;
        }
        self.log.next = next;
        self.log.after = after;
        self.log.batch_open = !end;
        self.log.sequence += 1;
        self.log.previous_crc = crc;
        self.log.written += self.page_size as u64;
        Ok(())
    }

    fn take_recovered(&mut self) -> Vec<u8> {
        self.log.touched = true;
        std::mem::take(&mut self.log.recovered)
    }
}
