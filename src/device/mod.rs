//! The device layer: what an index stores its pages on.
//!
//! Two small traits carry the physics:
//!
//! * [`Flash`] is a raw NAND chip. Its rules (enforced by [`nand::Nand`]):
//!   1. a page may be programmed only when its block has been erased since the
//!      page was last programmed, and at most `nop` times (non-overlapping
//!      partial programs) per erase;
//!   2. erasing works on whole blocks and wears them: past `endurance` erases
//!      a block is bad and every program or erase of it fails;
//!   3. reads and programs may address a byte range inside one page, and are
//!      charged by the [`cost::CostModel`]: a fixed part per operation plus a
//!      per-byte part for the bytes moved;
//!   4. on power loss, a program in progress may leave its page torn; nothing
//!      later persists.
//! * [`BlockDevice`] is a logical-page device with overwrite allowed (an FTL
//!   over a chip, or a real file). Reading a page that was never written (or
//!   was trimmed) yields zero bytes.
//!
//! Every device keeps [`DeviceStats`] that can be snapshotted and diffed, so
//! the runner can charge each index operation with exactly the device work it
//! caused (`after.delta(&before)`).
//!
//! [`Storage`] is what an index is built on: either a logical-page device or,
//! for indexes that manage erase blocks themselves (IPL), a raw chip.

pub mod cost;
pub(crate) mod crc;
mod divisor;
mod error;
pub mod fault;
pub mod file;
pub mod ftl;
pub mod iotrace;
pub mod nand;
mod page_copy;
pub mod precondition;
pub mod profile;
pub mod ram;
mod sealed;
pub mod shadow;
pub mod size;
mod slab;
mod slot_table;
mod spare;
pub mod ssd;
pub mod wear;

pub use cost::CostModel;
pub use error::DeviceError;
pub use ftl::{logical_capacity, Ftl, FtlConfig, GcPolicy, RESERVE_BLOCKS};
pub use nand::Nand;
pub use precondition::Preconditioned;
pub use profile::DeviceSpec;
pub use shadow::Shadow;
pub use ssd::Ssd;
pub use wear::{Lifetime, RunWear, Wear};

use serde::Serialize;

/// Result of a device operation.
pub type Result<T> = std::result::Result<T, DeviceError>;

/// Shape of a raw NAND chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    /// Bytes per page (data area, without the spare area).
    pub page_size: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Erase blocks on the chip.
    pub blocks: u64,
    /// Bytes of spare (out-of-band) area per page, used by FTLs for metadata.
    pub spare_size: u32,
    /// Partial programs allowed per page between two erases.
    pub nop: u8,
    /// Erases a block survives; past this the block is bad.
    pub endurance: u64,
}

impl Geometry {
    /// Total pages on the chip.
    pub fn pages(&self) -> u64 {
        self.blocks * self.pages_per_block as u64
    }
    /// Total data bytes on the chip.
    pub fn bytes(&self) -> u64 {
        self.pages() * self.page_size as u64
    }
}

/// Counters every device keeps. Logical counters are what the layer above
/// asked for; physical ones are what the chip did. Time and energy are the
/// cost model's charge for the physical work (wall time for a real file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DeviceStats {
    /// Page reads asked for by the layer above (a partial read counts once).
    pub logical_reads: u64,
    /// Page writes asked for by the layer above (a partial write counts once).
    pub logical_writes: u64,
    /// Pages trimmed by the layer above.
    pub logical_trims: u64,
    /// Bytes the layer above asked to read.
    pub bytes_read: u64,
    /// Bytes the layer above asked to write.
    pub bytes_written: u64,
    /// Page reads done by the chip (including garbage-collection reads).
    pub physical_reads: u64,
    /// Page programs done by the chip (including garbage-collection copies).
    pub physical_writes: u64,
    /// Bytes moved by chip reads.
    pub physical_bytes_read: u64,
    /// Bytes moved by chip programs.
    pub physical_bytes_written: u64,
    /// Block erases.
    pub erases: u64,
    /// Valid pages copied by garbage collection.
    pub gc_copies: u64,
    /// Simulated (or, for a real file, measured) time in microseconds.
    pub time_us: f64,
    /// The part of `time_us` spent reading (page reads, GC reads included).
    pub read_time_us: f64,
    /// The part of `time_us` spent writing (programs, GC copies included);
    /// the rest is erases and syncs.
    pub write_time_us: f64,
    /// Simulated energy in microjoules (0 for a real file).
    pub energy_uj: f64,
    /// Pages a durability layer ([`shadow::Shadow`]) wrote for itself: map
    /// pages and commit records, apart from the index's own writes (they
    /// are in the physical counts too).
    pub durability_writes: u64,
    /// Pages a durability layer read for itself: the map at open, the rest
    /// of a page before a partial write.
    pub durability_reads: u64,
}

impl DeviceStats {
    /// What happened between `earlier` and `self`.
    pub fn delta(&self, earlier: &DeviceStats) -> DeviceStats {
        DeviceStats {
            logical_reads: self.logical_reads - earlier.logical_reads,
            logical_writes: self.logical_writes - earlier.logical_writes,
            logical_trims: self.logical_trims - earlier.logical_trims,
            bytes_read: self.bytes_read - earlier.bytes_read,
            bytes_written: self.bytes_written - earlier.bytes_written,
            physical_reads: self.physical_reads - earlier.physical_reads,
            physical_writes: self.physical_writes - earlier.physical_writes,
            physical_bytes_read: self.physical_bytes_read - earlier.physical_bytes_read,
            physical_bytes_written: self.physical_bytes_written - earlier.physical_bytes_written,
            erases: self.erases - earlier.erases,
            gc_copies: self.gc_copies - earlier.gc_copies,
            time_us: self.time_us - earlier.time_us,
            read_time_us: self.read_time_us - earlier.read_time_us,
            write_time_us: self.write_time_us - earlier.write_time_us,
            energy_uj: self.energy_uj - earlier.energy_uj,
            durability_writes: self.durability_writes - earlier.durability_writes,
            durability_reads: self.durability_reads - earlier.durability_reads,
        }
    }

    /// The fields an operation is charged with ([`ChargedStats`]).
    #[inline]
    pub fn charged(&self) -> ChargedStats {
        ChargedStats {
            logical_reads: self.logical_reads,
            logical_writes: self.logical_writes,
            physical_reads: self.physical_reads,
            physical_writes: self.physical_writes,
            erases: self.erases,
            gc_copies: self.gc_copies,
            durability_writes: self.durability_writes,
            time_us: self.time_us,
            read_time_us: self.read_time_us,
            write_time_us: self.write_time_us,
            energy_uj: self.energy_uj,
        }
    }

    /// Physical page writes per logical page write (1.0 when nothing was
    /// written).
    pub fn write_amplification(&self) -> f64 {
        if self.logical_writes == 0 {
            1.0
        } else {
            self.physical_writes as f64 / self.logical_writes as f64
        }
    }
}

/// The [`DeviceStats`] fields the runner charges each operation with (its
/// `by_op` rows), read after every operation: 88 bytes where the whole
/// stats are 136, and a device may read them without building the rest
/// ([`BlockDevice::charged_stats`]). The values are the stats' own, so the
/// charges are the same numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChargedStats {
    pub logical_reads: u64,
    pub logical_writes: u64,
    pub physical_reads: u64,
    pub physical_writes: u64,
    pub erases: u64,
    pub gc_copies: u64,
    pub durability_writes: u64,
    pub time_us: f64,
    pub read_time_us: f64,
    pub write_time_us: f64,
    pub energy_uj: f64,
}

/// How a device describes itself in reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeviceInfo {
    /// `ftl`, `raw`, `file`, `ram`, ...
    pub kind: String,
    /// Profile name or path.
    pub name: String,
    pub page_size: u32,
    /// Pages per erase unit (1 where the device has none, such as a file).
    pub pages_per_block: u32,
    /// Logical capacity in pages.
    pub capacity_pages: u64,
    /// For a real file: whether the page cache is bypassed (O_DIRECT on
    /// Linux, F_NOCACHE on macOS).
    pub o_direct: Option<bool>,
    /// Logical pages up to and including the highest one ever written: the
    /// logical space the index needed (where the device tracks it). The
    /// command line sizes its default device by it.
    pub footprint_pages: Option<u64>,
    /// Logical pages holding data now (written and not trimmed), where the
    /// device tracks it: what garbage collection must keep.
    pub mapped_pages: Option<u64>,
    /// Anything else worth reporting (over-provisioning, GC policy, fallback
    /// reasons).
    pub notes: Vec<String>,
    /// The chip's cost model, where the device simulates one (indexes that
    /// weigh reads against writes, such as FlashDB's consolidation, use it).
    pub cost: Option<cost::CostModel>,
}

/// A raw NAND chip: erase-before-write, partial programs up to `nop`, wear.
pub trait Flash: Send + 'static {
    fn geometry(&self) -> Geometry;
    /// Reads `buf.len()` bytes at `offset` inside physical page `page`.
    /// An erased page reads as 0xFF bytes.
    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()>;
    /// Programs `data` at `offset` inside `page` (rules 1-2 in the module doc).
    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()>;
    /// [`Flash::program`] of a whole page holding a frame its writer
    /// sealed (`node::page`): the same checks, counts and time. A chip held
    /// in RAM remembers it, until the page is programmed again, released or
    /// erased, for [`Flash::read_sealed`].
    fn program_sealed(&mut self, page: u64, data: &[u8]) -> Result<()> {
        self.program(page, 0, data)
    }
    /// [`Flash::program_sealed`] (when `sealed`, else [`Flash::program`]
    /// from offset 0) of a whole page, then [`Flash::program_spare`] of
    /// `spare`: the same checks in the same order, counts, time and
    /// bytes (a data program that succeeded stays when the spare program
    /// then fails). What an FTL does for every page it writes; a chip in
    /// RAM may do both in one pass (the page located and its block's
    /// record fetched once). A chip that takes hints
    /// ([`Flash::read_sealed_hinted`]) leaves the page's in `hint`;
    /// by default it is left as it is.
    fn program_page_and_spare(
        &mut self,
        page: u64,
        data: &[u8],
        spare: &[u8],
        sealed: bool,
        hint: &mut u32,
    ) -> Result<()> {
        let _ = hint;
        if sealed {
            self.program_sealed(page, data)?;
        } else {
            self.program(page, 0, data)?;
        }
        self.program_spare(page, spare)
    }
    /// [`Flash::read`] from the start of `page` (the same checks, counts
    /// and time); `true` when the bytes are exactly those a
    /// [`Flash::program_sealed`] gave the page, unchanged since. `false`
    /// by default: a chip that cannot vouch for its bytes (or a wrapper
    /// that injects faults) never does.
    fn read_sealed(&mut self, page: u64, buf: &mut [u8]) -> Result<bool> {
        self.read(page, 0, buf).map(|()| false)
    }
    /// [`Flash::read_sealed`], given `hint`: a number this chip left there
    /// at an earlier read of `page` (or anything else, such as `u32::MAX`,
    /// before the first), which it may use to find the page's bytes sooner
    /// and may update for the next read. The same checks, counts, time,
    /// bytes and answer whatever `hint` holds: a chip trusts a hint only
    /// after checking it. An FTL keeps one a logical page. By default the
    /// hint is ignored.
    fn read_sealed_hinted(&mut self, page: u64, hint: &mut u32, buf: &mut [u8]) -> Result<bool> {
        let _ = hint;
        self.read_sealed(page, buf)
    }
    /// Reads the spare (out-of-band) area of `page`; charged as a read of the
    /// spare bytes (an FTL does this only when it scans the chip at mount).
    fn read_spare(&mut self, page: u64, buf: &mut [u8]) -> Result<()>;
    /// Programs the spare area of `page`; done together with the data
    /// program, so it is not charged separately and does not count against
    /// `nop`.
    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()>;
    /// Erases `block`, wearing it.
    fn erase(&mut self, block: u64) -> Result<()>;
    /// Whether `block` has worn out.
    fn is_bad(&self, block: u64) -> bool;
    /// Simulator-only: the owner promises never to read `page` again before
    /// its block is erased, so the simulator may drop the bytes it holds. The
    /// page stays programmed (it still cannot be re-programmed). Charges
    /// nothing; an FTL calls it when it invalidates a page so that a long run
    /// does not keep dead pages in memory.
    fn release(&mut self, page: u64);
    fn stats(&self) -> DeviceStats;
    fn wear(&self) -> Wear;
    fn info(&self) -> DeviceInfo;
    /// A copy of the chip as it is now (every page, erase count and
    /// counter), where the chip can be copied: one preloaded image then
    /// serves many runs (`flashix advise`). `None` by default.
    fn try_clone_box(&self) -> Option<Box<dyn Flash>> {
        None
    }
    /// [`Flash::try_clone_box`] as the same type, for a layer generic over
    /// its chip (the FTL).
    fn try_clone_same(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// A logical-page device with overwrite allowed.
pub trait BlockDevice: Send + 'static {
    /// Bytes per logical page.
    fn page_size(&self) -> usize;
    /// Logical pages addressable (`0..capacity_pages()`).
    fn capacity_pages(&self) -> u64;
    /// Pages per erase unit underneath (1 when there is none). Indexes that
    /// place data by erase block (IPL) align to it.
    fn pages_per_block(&self) -> u32;
    /// Reads `buf.len()` bytes at `offset` inside logical page `lba`.
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()>;
    /// Reads logical page `lba` whole as [`BlockDevice::read`] would (the
    /// same checks, counts and time), lending the device's own copy of
    /// the page instead of copying it out; `None` where the device has no
    /// copy to lend (then nothing was read or counted, and the caller
    /// reads into its buffer). Devices held in RAM lend: the copy of a
    /// cold page was a fifth of a simulated BFTL run (issue #31).
    fn read_in_place(&mut self, lba: u64) -> Result<Option<&[u8]>> {
        let _ = lba;
        Ok(None)
    }
    /// Whether every page this device returns was checked against the
    /// checksum of its last write (the commit layer, `device::shadow`): a
    /// damaged, misplaced or stale page is then an error here, and a
    /// reader need not check a checksum of its own over the page again.
    fn verifies_reads(&self) -> bool {
        false
    }
    /// A hint that page `lba` will be read soon: a device held in RAM
    /// asks the CPU to start loading it, so that the reads of a BFTL
    /// node's several sectors wait for memory together, not one after
    /// another. Changes nothing else (no count, no time).
    fn prefetch(&self, lba: u64) {
        let _ = lba;
    }
    /// Writes `data` at `offset` inside logical page `lba`; bytes of the page
    /// outside that range keep their contents.
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()>;
    /// [`BlockDevice::write`] of a whole page holding a frame the caller
    /// sealed (`node::page`), with the same checks, counts and time: a
    /// simulated device remembers it for [`BlockDevice::read_sealed`].
    fn write_sealed(&mut self, lba: u64, data: &[u8]) -> Result<()> {
        self.write(lba, 0, data)
    }
    /// [`BlockDevice::read`] of `buf.len()` bytes from the start of page
    /// `lba`, with the same checks, counts and time; `true` when they are
    /// exactly what a [`BlockDevice::write_sealed`] wrote there, unchanged
    /// since (a simulated chip in RAM knows), so the frame's checksum and
    /// the order its writer kept hold without being checked again. `false`
    /// by default, and from every wrapper that does not pass it on (fault
    /// injection, tracing): the reader then checks everything.
    fn read_sealed(&mut self, lba: u64, buf: &mut [u8]) -> Result<bool> {
        self.read(lba, 0, buf).map(|()| false)
    }
    /// Reads `buf` from consecutive logical pages from `lba` on, a page's
    /// bytes per chunk (the last may be shorter): what one read call of
    /// the layer above asks for, such as a node spanning pages. Counted
    /// page by page as [`BlockDevice::read`]; a device that times requests
    /// may serve the span as one ([`ssd`]'s `span_request`). By default,
    /// one read per page.
    fn read_span(&mut self, lba: u64, buf: &mut [u8]) -> Result<()> {
        let ps = self.page_size();
        for (i, chunk) in buf.chunks_mut(ps).enumerate() {
            self.read(lba + i as u64, 0, chunk)?;
        }
        Ok(())
    }
    /// Writes `data` to consecutive logical pages from `lba` on, as
    /// [`BlockDevice::read_span`] reads them. By default, one write per
    /// page.
    fn write_span(&mut self, lba: u64, data: &[u8]) -> Result<()> {
        let ps = self.page_size();
        for (i, chunk) in data.chunks(ps).enumerate() {
            self.write(lba + i as u64, 0, chunk)?;
        }
        Ok(())
    }
    /// Tells the device the page's contents are no longer needed.
    fn trim(&mut self, lba: u64) -> Result<()>;
    /// Makes every completed write durable.
    fn sync(&mut self) -> Result<()>;
    fn stats(&self) -> DeviceStats;
    /// Sets `out` to `self.stats().charged()`, exactly: read after every
    /// operation, into the caller's buffer (a returned value was copied
    /// again). The default builds the whole stats; inlined into a device
    /// whose `stats` is simple (the FTL over a chip in RAM), the fields
    /// not kept are never read.
    fn charged_stats(&self, out: &mut ChargedStats) {
        *out = self.stats().charged();
    }
    /// Erase counts, where the device has a chip underneath.
    fn wear(&self) -> Option<Wear>;
    fn info(&self) -> DeviceInfo;
    /// Pages the medium holds now where that is less than the capacity
    /// (a file: its length, every page up to the highest written); `None`
    /// where every page of the capacity exists. What a stored record claims
    /// is checked against it before anything is sized by the claim.
    fn extent_pages(&self) -> Option<u64> {
        None
    }
    /// Makes the medium hold pages `0..pages` durably before anything
    /// durable names one of them (issue #41): a file too short is extended,
    /// a chunk ahead, and synced, so that a page the commit layer's log
    /// names past the file's end means the file was cut short, never that
    /// a crash lost an extension. At most one sync per chunk, none where
    /// the medium is long enough; a no-op where every page of the capacity
    /// exists (the default).
    fn ensure_extent(&mut self, pages: u64) -> Result<()> {
        let _ = pages;
        Ok(())
    }
    /// Drops what the operating system keeps of the medium and would serve
    /// instead of it, so that the next reads see what reached the medium
    /// (issue #41): after a failed `fsync`, Linux may mark the pages it
    /// could not write clean, and a reopen would read them from the page
    /// cache as if they were durable. A file drops its clean cached pages
    /// (`posix_fadvise(DONTNEED)`); a no-op elsewhere (the default).
    fn forget_cached(&mut self) -> Result<()> {
        Ok(())
    }
    /// Whether every write is refused (a file opened read-only): a layer
    /// that would repair what it reads then only reports it.
    fn read_only(&self) -> bool {
        false
    }
    /// Forgets every write since the last commit, where the device commits
    /// (the commit layer): opening an index reads its last durable state,
    /// even over the very device a failed operation was half-way through.
    /// A no-op elsewhere.
    fn discard_uncommitted(&mut self) -> Result<()> {
        Ok(())
    }
    /// Whether trimming a page lets the device reclaim something: an
    /// FTL's garbage collection skips a trimmed page (fewer copies, less
    /// wear). A file answers `false`: its trim punches a hole, which costs
    /// a filesystem transaction and gains nothing a layer that reuses its
    /// freed pages (the commit layer) needs, so that layer leaves them
    /// alone.
    fn trim_reclaims(&self) -> bool {
        true
    }
    /// A copy of the device as it is now, where it can be copied (the
    /// simulated ones): see [`Flash::try_clone_box`]. `None` by default:
    /// a file, or a layer that does not say how to copy itself.
    fn try_clone_box(&self) -> Option<Box<dyn BlockDevice>> {
        None
    }
    /// [`BlockDevice::try_clone_box`] as the same type, for a layer
    /// generic over the device under it.
    fn try_clone_same(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// The write-ahead log of the commit layer ([`shadow`]'s log, issue
    /// #29), where the device has one in use: a layer that wraps another
    /// device passes its log on.
    fn commit_log(&mut self) -> Option<&mut dyn CommitLog> {
        None
    }
}

/// The commit layer's write-ahead log, as the index layer sees it
/// (`store::logged` writes and replays the records; `device::shadow`'s
/// `log` module has the format): pages of records between two commits, grouped in
/// batches, a batch durable as a whole once [`CommitLog::append`] ends it.
/// A commit (`sync` of the layer) empties the log: what it held is then in
/// the committed pages.
pub trait CommitLog {
    /// Record bytes one log page holds.
    fn payload_bytes(&self) -> usize;
    /// Log bytes (whole pages, one copy) after which the index layer
    /// checkpoints; 0: no log, every flush commits.
    fn bound_bytes(&self) -> u64;
    /// Log bytes written since the last commit (whole pages, one copy).
    fn len_bytes(&self) -> u64;
    /// Whether a page may be appended now: the last commit started a log
    /// (a device never committed, or committed with the log off, has none
    /// until its next commit).
    fn ready(&self) -> bool;
    /// Writes `records` (at most `payload_bytes()`) as the next page of
    /// the open batch; `end` closes the batch and syncs, after which the
    /// batch survives any crash.
    fn append(&mut self, records: &[u8], end: bool) -> Result<()>;
    /// The records of the complete batches found when the layer was last
    /// loaded, in order (empty after the first call).
    fn take_recovered(&mut self) -> Vec<u8>;
}

/// Checks that `len` bytes at `offset` of page `lba` (a `what`: logical or
/// physical page) lie inside a device of `capacity` pages of `page_size`
/// bytes; shared by every device.
pub(crate) fn check_access(
    what: &'static str,
    lba: u64,
    capacity: u64,
    offset: usize,
    len: usize,
    page_size: usize,
) -> Result<()> {
    if lba >= capacity {
        return Err(DeviceError::OutOfRange {
            what,
            value: lba,
            limit: capacity,
        });
    }
    let end = offset as u64 + len as u64;
    if end > page_size as u64 {
        return Err(DeviceError::OutOfRange {
            what: "byte range end",
            value: end,
            limit: page_size as u64,
        });
    }
    Ok(())
}

/// What an index is built on.
pub enum Storage {
    /// A logical-page device (FTL over a chip, real file, RAM disk).
    Pages(Box<dyn BlockDevice>),
    /// A raw chip, for indexes that manage erase blocks themselves.
    Raw(Box<dyn Flash>),
}

impl Storage {
    /// [`BlockDevice::discard_uncommitted`] of a logical-page device; a raw
    /// chip recovers by its own scan when an index opens on it.
    pub fn discard_uncommitted(&mut self) -> Result<()> {
        match self {
            Storage::Pages(d) => d.discard_uncommitted(),
            Storage::Raw(_) => Ok(()),
        }
    }
    /// A copy of the storage as it is now, where its device can be copied
    /// ([`BlockDevice::try_clone_box`], [`Flash::try_clone_box`]).
    pub fn try_clone(&self) -> Option<Storage> {
        match self {
            Storage::Pages(d) => d.try_clone_box().map(Storage::Pages),
            Storage::Raw(f) => f.try_clone_box().map(Storage::Raw),
        }
    }
    pub fn stats(&self) -> DeviceStats {
        match self {
            Storage::Pages(d) => d.stats(),
            Storage::Raw(f) => f.stats(),
        }
    }
    /// Sets `out` to `self.stats().charged()`
    /// ([`BlockDevice::charged_stats`]).
    #[inline]
    pub fn charged_stats(&self, out: &mut ChargedStats) {
        match self {
            Storage::Pages(d) => d.charged_stats(out),
            Storage::Raw(f) => *out = f.stats().charged(),
        }
    }
    pub fn wear(&self) -> Option<Wear> {
        match self {
            Storage::Pages(d) => d.wear(),
            Storage::Raw(f) => Some(f.wear()),
        }
    }
    pub fn info(&self) -> DeviceInfo {
        match self {
            Storage::Pages(d) => d.info(),
            Storage::Raw(f) => f.info(),
        }
    }
    pub fn page_size(&self) -> usize {
        match self {
            Storage::Pages(d) => d.page_size(),
            Storage::Raw(f) => f.geometry().page_size as usize,
        }
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Storage").field(&self.info()).finish()
    }
}
