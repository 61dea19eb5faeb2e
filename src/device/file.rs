//! [`FileDevice`]: the logical-page interface on a real file, so an index
//! chosen in simulation can be used for real. On its own it is the bare
//! page file; a store is a file device under the commit layer
//! (`device::shadow`), the one on-disk format (`DeviceSpec`, `Store`).
//!
//! Pages are read and written with `pread`/`pwrite` at `lba × page_size`,
//! through the page cache by default: durability comes from `fdatasync` at
//! every `sync` (the commit layer syncs data and map pages before its
//! commit record, then each copy of the record), as redb, LMDB and fjall
//! do. With `direct` (`--device-set direct=true`, for measuring the disk
//! itself) and a page size that is a multiple of 4,096 bytes the file
//! bypasses the page cache, so counts and times are the disk's: on Linux
//! it is opened with `O_DIRECT`, on macOS (which has no `O_DIRECT`) it gets
//! `F_NOCACHE` by `fcntl` after opening. Buffers, offsets and lengths are
//! 4,096-aligned (what `O_DIRECT` requires), and a partial-page write
//! becomes a read-modify-write of the whole page. If the filesystem
//! refuses the bypass (`EINVAL` at open) the device falls back to buffered
//! I/O and says so in [`DeviceInfo::notes`] and `o_direct: Some(false)`.
//!
//! A trimmed page is punched out of the file (`fallocate` with
//! `FALLOC_FL_PUNCH_HOLE`, on Linux): it reads as zeros and costs no data
//! write. Where the filesystem or the platform cannot punch, the page is
//! overwritten with zeros instead (one page write, counted as one).
//! Either way the trim's time is charged to the device time.
//!
//! Platforms: Linux and macOS as above; other Unix systems use buffered I/O
//! (the page cache sits between the index and the disk, said in the notes);
//! elsewhere opening a file device is refused with a
//! [`DeviceError::Config`] saying so, since the device needs positioned I/O
//! (`pread`/`pwrite`).
//!
//! Invariants:
//! 1. Bytes never written, or trimmed, read as zeros (sparse file, reads
//!    past the end, punched holes).
//! 2. `sync` is `fdatasync`; after a failed sync every call returns
//!    [`DeviceError::Poisoned`] until the file is reopened, because the
//!    kernel may have dropped the dirty pages it could not write.
//! 3. Counters are what was really issued; `time_us` is measured wall time
//!    of every I/O call, trims and syncs included; energy is not known (0).
//! 4. One writer per file: an open device holds the file's exclusive
//!    advisory lock (`flock`); opening or creating a file whose lock is
//!    held waits up to [`LOCK_WAIT`] for it, then is
//!    [`DeviceError::Busy`] and leaves the file untouched. The wait is
//!    SQLite's busy timeout, for the same reason: a lock belongs to the
//!    open file description, and a child process that another thread
//!    forks holds a copy of the descriptor until it calls `exec`, so a
//!    store closed and reopened at once can find its own lock still held
//!    for that moment (close-on-exec does not close the window; issue #41).
//! 5. Pages `0..durable_pages` are in the file's length as the disk holds
//!    it (the length at the last successful sync): the commit layer names
//!    a page only below it ([`BlockDevice::ensure_extent`] syncs first if
//!    it must), so a page named past the end of the file means the file
//!    was cut short. Once a layer above has asked for an extent (a bare
//!    page file stays as long as what was written), every sync first
//!    sets the length ahead of the highest page written, by what the file
//!    grew since the sync before (at least a chunk), and `ensure_extent`
//!    sets it two chunks past what it is asked (a chunk: 1/8 of the ask,
//!    at least 64 pages): the flushes' own syncs make the pages the next
//!    flush takes durable, and `ensure_extent` syncs on its own only when
//!    the file outgrows that within one flush. `durable_pages` is 0 at
//!    open (the length read then may not be durable yet), so the first
//!    call syncs. The length set ahead is a hole (no blocks) at the end.
//! 6. After a failed sync, Linux may mark the pages it could not write
//!    clean: they read back from the page cache but never reach the disk.
//!    [`BlockDevice::forget_cached`] drops the file's clean cached pages
//!    (`posix_fadvise(POSIX_FADV_DONTNEED)`), which the commit layer does
//!    before it reads a commit at open, so recovery reads what the disk
//!    holds (PostgreSQL's answer to the same kernel behaviour is to treat a
//!    failed fsync as a crash and recover from its log: here the device
//!    is poisoned (invariant 2), and the reopen recovers from the medium).
//! 7. Without O_DIRECT, on Linux, a whole-page read copies the page from a
//!    read-only shared mapping of the file (`mmap`), which shows what the
//!    page cache holds, as `pread` does, without a system call each read
//!    (issue #45: the call was a third of a point lookup's time beyond
//!    memory). The mapping covers the file's length when it was made and
//!    is remade when a read passes it; the file only grows while open
//!    (trims punch holes, which read as zeros), and `forget_cached` drops
//!    the mapping before the page cache. Another process that cut the file
//!    short while this one has it open, past its lock, would end this one
//!    with `SIGBUS` rather than a `Corrupt` read: a crash, which loses
//!    nothing flushed.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Result, Wear};

const ALIGN: usize = 4096;
/// How long opening waits for a file's lock (invariant 4).
pub const LOCK_WAIT: Duration = Duration::from_secs(2);
/// The least a file is extended by ahead of what it must hold (invariant 5).
const EXTENT_CHUNK_PAGES: u64 = 64;
/// Logical pages of a file device with no size limit given.
const UNLIMITED_PAGES: u64 = 1 << 32;

/// A page buffer whose usable slice starts on a 4,096-byte boundary.
struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    fn new(len: usize) -> Self {
        let raw = vec![0u8; len + ALIGN];
        // Pointer-to-integer only to find the aligned start inside `raw`.
        let addr = raw.as_ptr() as usize;
        let start = (ALIGN - addr % ALIGN) % ALIGN;
        AlignedBuf { raw, start, len }
    }
    fn as_slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

/// A real file as a logical-page device.
pub struct FileDevice {
    file: File,
    path: PathBuf,
    page_size: usize,
    capacity: u64,
    direct: bool,
    notes: Vec<String>,
    buf: AlignedBuf,
    stats: DeviceStats,
    poisoned: bool,
    /// Opened for reading only: every write or trim is refused.
    read_only: bool,
    /// Whether a trim can punch a hole (false once the filesystem said it
    /// cannot; then trims write zeros).
    punch: bool,
    /// Pages the file's length durably holds (invariant 5).
    durable_pages: u64,
    /// One past the highest page written, now and at the last sync: how
    /// fast the file grows between syncs (invariant 5).
    written_end: u64,
    written_end_at_sync: u64,
    /// Whether a layer above names pages by the durable length (it called
    /// `ensure_extent`): only then do syncs set the length ahead, so a
    /// bare page file is as long as what was written.
    extends: bool,
    /// The file mapped for reading (invariant 7); empty until a read
    /// needs it, and after `forget_cached`.
    mapping: platform::Mapping,
}

/// How [`FileDevice::open_with`] opens the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Create,
    Open,
    ReadOnly,
}

impl std::fmt::Debug for FileDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileDevice")
            .field("path", &self.path)
            .field("page_size", &self.page_size)
            .field("o_direct", &self.direct)
            .finish()
    }
}

impl FileDevice {
    /// Creates (or truncates) the file, with buffered I/O. `max_pages` 0
    /// means no limit.
    pub fn create(path: &Path, page_size: usize, max_pages: u64) -> Result<Self> {
        Self::open_with(path, page_size, max_pages, Mode::Create, false)
    }

    /// [`FileDevice::create`] bypassing the page cache where it can
    /// (module doc): counts and times are the disk's.
    pub fn create_direct(path: &Path, page_size: usize, max_pages: u64) -> Result<Self> {
        Self::open_with(path, page_size, max_pages, Mode::Create, true)
    }

    /// Opens an existing file for reading only, under a shared lock: other
    /// readers may open it too, a writer may not (and a writer's file
    /// cannot be opened so). Writes and trims are refused; nothing changes
    /// the file, which may be read-only on disk.
    pub fn open_read_only(path: &Path, page_size: usize, max_pages: u64) -> Result<Self> {
        Self::open_existing(path, page_size, max_pages, Mode::ReadOnly, false)
    }

    /// Opens an existing file without truncating it, with buffered I/O.
    pub fn open(path: &Path, page_size: usize, max_pages: u64) -> Result<Self> {
        Self::open_existing(path, page_size, max_pages, Mode::Open, false)
    }

    /// [`FileDevice::open`] bypassing the page cache where it can.
    pub fn open_direct(path: &Path, page_size: usize, max_pages: u64) -> Result<Self> {
        Self::open_existing(path, page_size, max_pages, Mode::Open, true)
    }

    fn open_existing(
        path: &Path,
        page_size: usize,
        max_pages: u64,
        mode: Mode,
        direct: bool,
    ) -> Result<Self> {
        if !path.exists() {
            return Err(DeviceError::Config(format!(
                "{} does not exist",
                path.display()
            )));
        }
        Self::open_with(path, page_size, max_pages, mode, direct)
    }

    fn open_with(
        path: &Path,
        page_size: usize,
        max_pages: u64,
        mode: Mode,
        direct: bool,
    ) -> Result<Self> {
        let truncate = mode == Mode::Create;
        let read_only = mode == Mode::ReadOnly;
        if page_size == 0 {
            return Err(DeviceError::Config("page_size must be positive".into()));
        }
        let mut notes = Vec::new();
        let mut opts = OpenOptions::new();
        // Truncation waits for the lock (below): truncating at open would
        // destroy an index another process is using before we learn of it.
        opts.read(true)
            .write(!read_only)
            .create(truncate)
            .truncate(false);
        let (file, direct) = if !direct {
            notes.push(
                "buffered I/O through the page cache, durable at each sync (fdatasync); direct=true bypasses it".into(),
            );
            (platform::open(&opts, path)?, false)
        } else if page_size.is_multiple_of(ALIGN) {
            platform::open_uncached(&opts, path, &mut notes)?
        } else {
            notes.push(format!(
                "page size {page_size} is not a multiple of {ALIGN}: O_DIRECT needs aligned I/O, using buffered I/O"
            ));
            (platform::open(&opts, path)?, false)
        };
        lock(&file, path, read_only)?;
        if truncate {
            file.set_len(0).map_err(|e| io_at(e, path))?;
        }
        Ok(FileDevice {
            file,
            path: path.to_path_buf(),
            page_size,
            capacity: if max_pages == 0 {
                UNLIMITED_PAGES
            } else {
                max_pages
            },
            direct,
            notes,
            buf: AlignedBuf::new(page_size),
            stats: DeviceStats::default(),
            poisoned: false,
            read_only,
            punch: true,
            durable_pages: 0,
            written_end: 0,
            written_end_at_sync: 0,
            extends: false,
            mapping: platform::Mapping::default(),
        })
    }

    fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(DeviceError::ReadOnly {
                path: self.path.display().to_string(),
            });
        }
        Ok(())
    }

    /// Whether the page cache is bypassed (`O_DIRECT` on Linux,
    /// `F_NOCACHE` on macOS).
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    fn check(&self, lba: u64, offset: usize, len: usize) -> Result<()> {
        if self.poisoned {
            return Err(DeviceError::Poisoned);
        }
        super::check_access(
            "logical page",
            lba,
            self.capacity,
            offset,
            len,
            self.page_size,
        )
    }

    /// Reads a whole page into the aligned buffer, zero-filling past EOF.
    fn read_page(&mut self, lba: u64) -> Result<()> {
        read_whole_page(&self.file, &self.path, lba, self.buf.as_mut())?;
        self.stats.physical_reads += 1;
        self.stats.physical_bytes_read += self.page_size as u64;
        Ok(())
    }

    /// [`Self::read_page`] into `out` (a page) rather than the aligned
    /// buffer: without O_DIRECT only. A page inside the file's mapping is
    /// copied from it (invariant 7); the mapping grows to the file's
    /// length when a read passes it.
    fn read_page_into(&mut self, lba: u64, out: &mut [u8]) -> Result<()> {
        let pos = lba * self.page_size as u64;
        let mut copied = self.mapping.copy(pos, out);
        if !copied && pos >= self.mapping.len() {
            let len = self
                .file
                .metadata()
                .map_err(|e| io_at(e, &self.path))?
                .len();
            if len >= pos + self.page_size as u64 {
                self.mapping = platform::Mapping::of(&self.file, len);
                copied = self.mapping.copy(pos, out);
            }
        }
        if !copied {
            read_whole_page(&self.file, &self.path, lba, out)?;
        }
        self.stats.physical_reads += 1;
        self.stats.physical_bytes_read += self.page_size as u64;
        Ok(())
    }

    /// The file's length in whole pages (a partial last page is not held).
    fn len_pages(&self) -> Result<u64> {
        let len = self
            .file
            .metadata()
            .map_err(|e| io_at(e, &self.path))?
            .len();
        Ok(len / self.page_size as u64)
    }

    /// `fdatasync`, after which the length the file had is durable
    /// (invariant 5); a failure poisons the device (invariant 2). The
    /// length is set ahead of the highest page written first, by
    /// what the file grew since the last sync (at least a chunk), so that
    /// the pages the next flush takes are already inside it.
    fn sync_length(&mut self) -> Result<()> {
        let grown = self.written_end.saturating_sub(self.written_end_at_sync);
        let ahead = self
            .written_end
            .saturating_add(grown.max(EXTENT_CHUNK_PAGES))
            .min(self.capacity);
        let mut len = self.len_pages()?;
        if self.extends && len < ahead {
            self.file
                .set_len(ahead * self.page_size as u64)
                .map_err(|e| io_at(e, &self.path))?;
            len = ahead;
        }
        if let Err(e) = self.file.sync_data() {
            self.poisoned = true;
            return Err(io_at(e, &self.path));
        }
        self.durable_pages = self.durable_pages.max(len);
        self.written_end_at_sync = self.written_end;
        Ok(())
    }

    fn write_page(&mut self, lba: u64) -> Result<()> {
        let pos = lba * self.page_size as u64;
        platform::write_all_at(&self.file, self.buf.as_slice(), pos)
            .map_err(|e| io_at(e, &self.path))?;
        self.written_end = self.written_end.max(lba + 1);
        self.stats.physical_writes += 1;
        self.stats.physical_bytes_written += self.page_size as u64;
        Ok(())
    }
}

/// Takes the file's advisory lock (`flock`): exclusive for a writer,
/// shared for a reader, waiting up to [`LOCK_WAIT`] for a holder to let go
/// (invariant 4). It belongs to this open file and goes with it when the
/// device is dropped or the process dies, so a crash never leaves a stale
/// lock behind.
fn lock(file: &File, path: &Path, shared: bool) -> Result<()> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let taken = if shared {
            file.try_lock_shared()
        } else {
            file.try_lock()
        };
        match taken {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {
                let waited = start.elapsed();
                if waited >= LOCK_WAIT {
                    return Err(DeviceError::Busy {
                        path: path.display().to_string(),
                        waited_ms: waited.as_millis() as u64,
                    });
                }
                std::thread::sleep(pause.min(LOCK_WAIT - waited));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_at(e, path)),
        }
    }
}

/// Opening without the page cache, and positioned I/O, per platform.
mod platform {
    use std::fs::{File, OpenOptions};
    use std::path::Path;

    use super::{io_at, Result};

    /// Opens the file; `Ok((file, true))` when the page cache is bypassed,
    /// `(file, false)` with a note saying why not.
    #[cfg(target_os = "linux")]
    pub fn open_uncached(
        opts: &OpenOptions,
        path: &Path,
        notes: &mut Vec<String>,
    ) -> Result<(File, bool)> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut d = opts.clone();
        d.custom_flags(libc::O_DIRECT);
        match d.open(path) {
            Ok(f) => Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                notes.push("O_DIRECT refused by the filesystem; using buffered I/O".into());
                Ok((open(opts, path)?, false))
            }
            Err(e) => Err(io_at(e, path)),
        }
    }

    /// macOS has no `O_DIRECT`; `F_NOCACHE` on the open file is its way of
    /// keeping reads and writes out of the unified buffer cache.
    #[cfg(target_os = "macos")]
    pub fn open_uncached(
        opts: &OpenOptions,
        path: &Path,
        notes: &mut Vec<String>,
    ) -> Result<(File, bool)> {
        use std::os::fd::AsRawFd;
        let file = open(opts, path)?;
        #[allow(unsafe_code)]
        // SAFETY: the descriptor belongs to `file`, which is open for the
        // whole call; F_NOCACHE takes an int and touches no memory of ours.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_NOCACHE, 1) };
        if rc == -1 {
            notes.push(format!(
                "F_NOCACHE refused ({}); using buffered I/O",
                std::io::Error::last_os_error()
            ));
            return Ok((file, false));
        }
        Ok((file, true))
    }

    /// Other systems: buffered I/O, said in the notes.
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    pub fn open_uncached(
        opts: &OpenOptions,
        path: &Path,
        notes: &mut Vec<String>,
    ) -> Result<(File, bool)> {
        notes.push(format!(
            "no O_DIRECT on {}: using buffered I/O (the page cache serves repeated reads)",
            std::env::consts::OS
        ));
        Ok((open(opts, path)?, false))
    }

    /// Punches `len` bytes at `pos` out of the file, keeping its length:
    /// `Ok(true)` when done (they read as zeros), `Ok(false)` when the
    /// filesystem cannot punch holes.
    #[cfg(target_os = "linux")]
    pub fn punch_hole(file: &File, pos: u64, len: u64) -> std::io::Result<bool> {
        use std::os::fd::AsRawFd;
        let (Ok(pos), Ok(len)) = (libc::off_t::try_from(pos), libc::off_t::try_from(len)) else {
            return Ok(false);
        };
        loop {
            #[allow(unsafe_code)]
            // SAFETY: the descriptor belongs to `file`, open for the whole
            // call; fallocate takes integers and touches no memory of ours.
            let rc = unsafe {
                libc::fallocate(
                    file.as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    pos,
                    len,
                )
            };
            if rc == 0 {
                return Ok(true);
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => return Ok(false),
                _ => return Err(e),
            }
        }
    }

    /// Drops the file's clean pages from the page cache (invariant 6).
    #[cfg(target_os = "linux")]
    pub fn forget_cached(file: &File) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        #[allow(unsafe_code)]
        // SAFETY: the descriptor belongs to `file`, open for the whole
        // call; posix_fadvise takes integers and touches no memory of ours.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::from_raw_os_error(rc))
        }
    }

    /// A read-only shared mapping of a file (invariant 7); empty when the
    /// file is empty or the kernel refused it (reads then use `pread`).
    #[cfg(target_os = "linux")]
    #[derive(Default)]
    pub struct Mapping {
        at: Option<std::ptr::NonNull<u8>>,
        len: u64,
    }

    // SAFETY: the mapping is owned by one `Mapping` (unmapped once, in
    // `drop`) and only read through `copy`, which takes `&self`; nothing
    // ties it to the thread that made it.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    unsafe impl Send for Mapping {}

    #[cfg(target_os = "linux")]
    impl Mapping {
        /// The first `len` bytes of `file`, mapped read-only and shared.
        pub fn of(file: &File, len: u64) -> Mapping {
            use std::os::fd::AsRawFd;
            let Ok(n) = usize::try_from(len) else {
                return Mapping::default();
            };
            if n == 0 {
                return Mapping::default();
            }
            #[allow(unsafe_code)]
            // SAFETY: a new mapping chosen by the kernel (null hint), of a
            // descriptor open for the call; it aliases no Rust memory.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    n,
                    libc::PROT_READ,
                    libc::MAP_SHARED,
                    file.as_raw_fd(),
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                return Mapping::default();
            }
            Mapping {
                at: std::ptr::NonNull::new(p.cast::<u8>()),
                len,
            }
        }

        /// Bytes mapped.
        pub fn len(&self) -> u64 {
            if self.at.is_some() {
                self.len
            } else {
                0
            }
        }

        /// Copies the bytes at `pos` into `out` if the mapping holds them.
        pub fn copy(&self, pos: u64, out: &mut [u8]) -> bool {
            let Some(at) = self.at else {
                return false;
            };
            let end = pos.checked_add(out.len() as u64);
            if end.is_none_or(|e| e > self.len) {
                return false;
            }
            #[allow(unsafe_code)]
            // SAFETY: `pos..pos + out.len()` lies inside the mapping
            // (checked above; `pos` fits a usize since the mapping's length
            // does), which stays mapped while `self` lives; the copy goes
            // through raw pointers, so no reference to the shared pages
            // (which the kernel may change) is ever made, and `out` is a
            // distinct buffer of ours.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    at.as_ptr().add(pos as usize),
                    out.as_mut_ptr(),
                    out.len(),
                );
            }
            true
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for Mapping {
        fn drop(&mut self) {
            if let Some(at) = self.at {
                #[allow(unsafe_code)]
                // SAFETY: the mapping `of` made, unmapped once, here.
                unsafe {
                    libc::munmap(at.as_ptr().cast(), self.len as usize);
                }
            }
        }
    }

    /// Elsewhere reads use `pread`: an empty mapping.
    #[cfg(not(target_os = "linux"))]
    #[derive(Default)]
    pub struct Mapping;

    #[cfg(not(target_os = "linux"))]
    impl Mapping {
        pub fn of(_file: &File, _len: u64) -> Mapping {
            Mapping
        }
        pub fn len(&self) -> u64 {
            0
        }
        pub fn copy(&self, _pos: u64, _out: &mut [u8]) -> bool {
            false
        }
    }

    /// Elsewhere the page cache cannot be dropped this way (the module doc
    /// says what that leaves).
    #[cfg(not(target_os = "linux"))]
    pub fn forget_cached(_file: &File) -> std::io::Result<()> {
        Ok(())
    }

    /// No hole punching here: trims write zeros.
    #[cfg(not(target_os = "linux"))]
    pub fn punch_hole(_file: &File, _pos: u64, _len: u64) -> std::io::Result<bool> {
        Ok(false)
    }

    #[cfg(unix)]
    pub fn open(opts: &OpenOptions, path: &Path) -> Result<File> {
        opts.open(path).map_err(|e| io_at(e, path))
    }

    /// Without `pread`/`pwrite` the device is refused at open, before it
    /// touches the file.
    #[cfg(not(unix))]
    pub fn open(_opts: &OpenOptions, path: &Path) -> Result<File> {
        Err(super::DeviceError::Config(format!(
            "{}: file devices need a Unix system (Linux or macOS) for positioned I/O; this is {}",
            path.display(),
            std::env::consts::OS
        )))
    }

    #[cfg(unix)]
    pub fn read_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(file, buf, pos)
    }

    #[cfg(unix)]
    pub fn write_all_at(file: &File, buf: &[u8], pos: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::write_all_at(file, buf, pos)
    }

    // Never reached: `open` refuses, so no device exists to call these.
    #[cfg(not(unix))]
    pub fn read_at(_file: &File, _buf: &mut [u8], _pos: u64) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::Unsupported.into())
    }

    #[cfg(not(unix))]
    pub fn write_all_at(_file: &File, _buf: &[u8], _pos: u64) -> std::io::Result<()> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// Reads page `lba` of `file` into `out` (a page), zeros past the end of
/// the file.
fn read_whole_page(file: &File, path: &Path, lba: u64, out: &mut [u8]) -> Result<()> {
    let pos = lba * out.len() as u64;
    let mut done = 0;
    while done < out.len() {
        let n = match platform::read_at(file, &mut out[done..], pos + done as u64) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_at(e, path)),
        };
        if n == 0 {
            break;
        }
        done += n;
    }
    out[done..].fill(0);
    Ok(())
}

fn io_at(e: std::io::Error, path: &Path) -> DeviceError {
    DeviceError::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {e}", path.display()),
    ))
}

impl BlockDevice for FileDevice {
    fn page_size(&self) -> usize {
        self.page_size
    }

    fn capacity_pages(&self) -> u64 {
        self.capacity
    }

    fn extent_pages(&self) -> Option<u64> {
        // Unknown length: no bound to check against (the capacity holds).
        self.file
            .metadata()
            .ok()
            .map(|m| m.len().div_ceil(self.page_size as u64))
    }

    fn pages_per_block(&self) -> u32 {
        1
    }

    fn trim_reclaims(&self) -> bool {
        false
    }

    fn read_only(&self) -> bool {
        self.read_only
    }

    /// Invariant 5. The length is set a chunk ahead of what is asked, and
    /// a sync (this one, or the next flush's) makes it durable, so a log
    /// that grows steadily meets the durable length's end only when it
    /// outruns a chunk within one flush: then it syncs here.
    fn ensure_extent(&mut self, pages: u64) -> Result<()> {
        if pages <= self.durable_pages {
            return Ok(());
        }
        self.check(pages.saturating_sub(1), 0, 0)?;
        self.check_writable()?;
        self.extends = true;
        let t = Instant::now();
        let page = self.page_size as u64;
        let chunk = (pages / 8).max(EXTENT_CHUNK_PAGES);
        let len = self.len_pages()?;
        if len < pages.saturating_add(chunk).min(self.capacity) {
            let target = pages.saturating_add(2 * chunk).min(self.capacity);
            self.file
                .set_len(target * page)
                .map_err(|e| io_at(e, &self.path))?;
        }
        // Past the durable length: the length set must be durable before
        // the page that names one of these pages is written.
        self.sync_length()?;
        self.stats.time_us += t.elapsed().as_secs_f64() * 1e6;
        Ok(())
    }

    /// Invariant 6.
    fn forget_cached(&mut self) -> Result<()> {
        if self.direct {
            return Ok(());
        }
        // Mapped pages stay cached: the mapping goes first.
        self.mapping = platform::Mapping::default();
        platform::forget_cached(&self.file).map_err(|e| io_at(e, &self.path))
    }

    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba, offset, buf.len())?;
        let t = Instant::now();
        if !self.direct && offset == 0 && buf.len() == self.page_size {
            // A whole page needs no aligned buffer without O_DIRECT: read
            // into the caller's, not through a copy (issue #45).
            self.read_page_into(lba, buf)?;
        } else {
            self.read_page(lba)?;
            buf.copy_from_slice(&self.buf.as_slice()[offset..offset + buf.len()]);
        }
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        let us = t.elapsed().as_secs_f64() * 1e6;
        self.stats.time_us += us;
        self.stats.read_time_us += us;
        Ok(())
    }

    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba, offset, data.len())?;
        self.check_writable()?;
        let t = Instant::now();
        if offset != 0 || data.len() != self.page_size {
            // Whole-page I/O keeps O_DIRECT's alignment rules and makes the
            // unwritten part of the page read back as before.
            self.read_page(lba)?;
        }
        self.buf.as_mut()[offset..offset + data.len()].copy_from_slice(data);
        self.write_page(lba)?;
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        let us = t.elapsed().as_secs_f64() * 1e6;
        self.stats.time_us += us;
        self.stats.write_time_us += us;
        Ok(())
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, 0)?;
        self.check_writable()?;
        let t = Instant::now();
        let pos = lba * self.page_size as u64;
        let punched = self.punch
            && match platform::punch_hole(&self.file, pos, self.page_size as u64) {
                Ok(done) => done,
                Err(e) => return Err(io_at(e, &self.path)),
            };
        if !punched {
            // Invariant 1 without a hole: the page is overwritten.
            self.punch = false;
            self.buf.as_mut().fill(0);
            self.write_page(lba)?;
        }
        self.stats.logical_trims += 1;
        self.stats.time_us += t.elapsed().as_secs_f64() * 1e6;
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        if self.poisoned {
            return Err(DeviceError::Poisoned);
        }
        if self.read_only {
            // Nothing was written: nothing to make durable.
            return Ok(());
        }
        let t = Instant::now();
        self.sync_length()?;
        self.stats.time_us += t.elapsed().as_secs_f64() * 1e6;
        Ok(())
    }

    fn stats(&self) -> DeviceStats {
        self.stats
    }

    fn wear(&self) -> Option<Wear> {
        None
    }

    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            kind: "file".into(),
            name: self.path.display().to_string(),
            page_size: self.page_size as u32,
            pages_per_block: 1,
            capacity_pages: self.capacity,
            o_direct: Some(self.direct),
            // The file's length: every page up to the highest one written.
            footprint_pages: self
                .file
                .metadata()
                .ok()
                .map(|m| m.len().div_ceil(self.page_size as u64)),
            mapped_pages: None,
            notes: self.notes.clone(),
            cost: None,
        }
    }
}
