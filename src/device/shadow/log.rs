//! The commit layer's write-ahead log (issue #29): a `flush()` of an index
//! on a file becomes one append of the operations since the last flush and
//! one `fdatasync`, rather than a commit of the index's dirty structure
//! (the LSM-tree's whole in-memory component, a B+-tree's dirty nodes, the
//! page map's changed pages and two meta records, three syncs).
//!
//! What the log holds is the index layer's business (`index::logged`
//! encodes operations and replays them); this module keeps pages of bytes
//! between two commits, in *batches*: every page but the last of a batch
//! is written without a sync, the last is marked as the batch's end and
//! synced, and opening reads back only complete batches, in order. A
//! commit (the layer's `sync`) starts a new, empty log, since what the old
//! one held is then in the committed pages: the *epoch* of a log is the
//! generation of the commit it follows.
//!
//! On-flash format (a physical page of the device beneath, integers
//! little-endian): `"FXLG" | version u8 = 1 | flags u8 (1: ends a batch) |
//! used u16 | generation u64 | sequence u64 | session u64 | previous CRC
//! u32 | CRC-32C u32 of the page with this field zero | next primary u64 |
//! next mirror u64 | 8 reserved bytes` (64 bytes), then `used` bytes of
//! records, then zeros. The commit record names the first page of its
//! epoch; every page names where the next one goes, chosen (and reserved)
//! before the page is written.
//!
//! Why each field:
//! * **Two copies** (a primary and a mirror page, written one after the
//!   other before the batch's sync): a flushed batch is durable, and one
//!   damaged page must cost nothing (rule 3 of `docs/FORMAT.md`: damage is
//!   `Corrupt` or exact, never a silently lost flush). A damaged page of a
//!   chain cannot be told from the torn end of a crashed flush, so instead
//!   the other copy is read. A torn append has both copies unsynced; the
//!   batch it belongs to was not acknowledged and is dropped whole.
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
//!
//! Invariants:
//! 1. The log's pages (written, and the reserved slot the next append
//!    goes to) are neither free nor in the map; they are released with the
//!    pages the previous commit referenced, once both meta copies name a
//!    newer commit (the layer's invariant 1).
//! 2. A page is only ever written at the slot the chain names next, so
//!    the chain read back is a prefix of what was appended.

use super::{corrupt, u32_at, u64_at, Result, Shadow, FIRST_DATA};
use crate::device::{CommitLog, DeviceError};

const LOG_MAGIC: &[u8; 4] = b"FXLG";
const LOG_VERSION: u8 = 1;
/// Bytes of a log page's header.
pub(super) const LOG_HEADER: usize = 64;
const BATCH_END: u8 = 1;
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
    pub sequence: u64,
    pub previous_crc: u32,
    pub session: u64,
    /// Physical pages of this epoch (written and reserved, both copies).
    pub pages: Vec<u64>,
    /// Bytes appended this epoch (whole pages, one copy).
    pub written: u64,
    /// Records of complete batches found at the last load.
    pub recovered: Vec<u8>,
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
    let crc = crc32c::crc32c(&b[..CRC_AT]);
    let crc = crc32c::crc32c_append(crc, &[0u8; 4]);
    crc32c::crc32c_append(crc, &b[CRC_AT + 4..])
}

/// What a valid page says.
struct Page {
    end: bool,
    used: usize,
    next: LogSlot,
    crc: u32,
}

/// `b` as the page `sequence` of epoch `generation` after a page whose
/// checksum was `previous_crc`, or `None`.
fn parse(b: &[u8], generation: u64, sequence: u64, previous_crc: u32) -> Option<Page> {
    let used = u16::from_le_bytes([b[6], b[7]]) as usize;
    if &b[0..4] != LOG_MAGIC
        || b[4] != LOG_VERSION
        || used > b.len() - LOG_HEADER
        || u64_at(b, 8) != generation
        || u64_at(b, 16) != sequence
        || u32_at(b, 32) != previous_crc
    {
        return None;
    }
    let crc = u32_at(b, CRC_AT);
    if crc != page_crc(b) {
        return None;
    }
    Some(Page {
        end: b[5] & BATCH_END != 0,
        used,
        next: LogSlot {
            primary: u64_at(b, 40),
            mirror: u64_at(b, 48),
        },
        crc,
    })
}

impl Shadow {
    /// The record bytes of a log page.
    fn log_payload(&self) -> usize {
        self.page_size - LOG_HEADER
    }

    /// Reads the log of the commit `generation` from `head`: every
    /// complete batch's records and pages, and where the next page goes.
    /// `physical` bounds the walk (a loop or a page out of range in a
    /// valid page is damage that passed a checksum: `Corrupt`).
    pub(super) fn read_log(&mut self, head: LogSlot, generation: u64, physical: u64) -> Result<()> {
        let mut log = Log {
            bound: self.log.bound,
            head,
            next: head,
            session: session_number(),
            ..Log::default()
        };
        if head.is_none() {
            self.log = log;
            return Ok(());
        }
        let (mut at, mut sequence, mut previous_crc) = (head, 0u64, 0u32);
        let (mut batch, mut batch_pages) = (Vec::new(), Vec::new());
        loop {
            let mut found = None;
            for page in [at.primary, at.mirror] {
                self.inner.read(page, 0, &mut self.page_buf)?;
                self.own.durability_reads += 1;
                if let Some(p) = parse(&self.page_buf, generation, sequence, previous_crc) {
                    found = Some(p);
                    break;
                }
            }
            let Some(p) = found else { break };
            batch.extend_from_slice(&self.page_buf[LOG_HEADER..LOG_HEADER + p.used]);
            batch_pages.extend([at.primary, at.mirror]);
            sequence += 1;
            previous_crc = p.crc;
            if !slot_fits(p.next, physical) || sequence > physical {
                return Err(corrupt(
                    at.primary,
                    format!(
                        "log page {} names the next at pages {} and {}, outside the device",
                        sequence - 1,
                        p.next.primary,
                        p.next.mirror
                    ),
                ));
            }
            if p.end {
                log.recovered.append(&mut batch);
                log.pages.append(&mut batch_pages);
                log.written = sequence * self.page_size as u64;
                log.next = p.next;
                log.sequence = sequence;
                log.previous_crc = previous_crc;
            }
            at = p.next;
        }
        log.pages.extend([log.next.primary, log.next.mirror]);
        self.log = log;
        Ok(())
    }

    /// A new epoch's first slot, reserved for the commit being written
    /// (kept across a retried commit); none with the log off.
    pub(super) fn reserve_log_head(&mut self) -> Result<LogSlot> {
        if self.log.bound == 0 {
            return Ok(LogSlot::default());
        }
        if let Some(head) = self.reserved_head {
            return Ok(head);
        }
        let head = self.take_slot()?;
        self.reserved_head = Some(head);
        Ok(head)
    }

    /// Two pages for a log slot.
    fn take_slot(&mut self) -> Result<LogSlot> {
        let primary = self.take_page()?;
        match self.take_page() {
            Ok(mirror) => Ok(LogSlot { primary, mirror }),
            Err(e) => {
                self.free.insert(primary);
                Err(e)
            }
        }
    }

    /// After a commit naming `head` is durable in both copies: the old
    /// epoch's pages are free (the caller releases `pending_release`), and
    /// the log starts empty.
    pub(super) fn start_epoch(&mut self, head: LogSlot) {
        self.reserved_head = None;
        self.log = Log {
            bound: self.log.bound,
            head,
            next: head,
            session: self.log.session,
            pages: if head.is_none() {
                Vec::new()
            } else {
                vec![head.primary, head.mirror]
            },
            ..Log::default()
        };
    }
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
        let at = self.log.next;
        let next = self.take_slot()?;
        self.log.pages.extend([next.primary, next.mirror]);
        let generation = self.generation;
        let b = &mut self.page_buf;
        b.fill(0);
        b[0..4].copy_from_slice(LOG_MAGIC);
        b[4] = LOG_VERSION;
        b[5] = if end { BATCH_END } else { 0 };
        b[6..8].copy_from_slice(&(records.len() as u16).to_le_bytes());
        b[8..16].copy_from_slice(&generation.to_le_bytes());
        b[16..24].copy_from_slice(&self.log.sequence.to_le_bytes());
        b[24..32].copy_from_slice(&self.log.session.to_le_bytes());
        b[32..36].copy_from_slice(&self.log.previous_crc.to_le_bytes());
        b[40..48].copy_from_slice(&next.primary.to_le_bytes());
        b[48..56].copy_from_slice(&next.mirror.to_le_bytes());
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
