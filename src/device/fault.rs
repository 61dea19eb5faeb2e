//! Fault injection as decorators around any device (`CONVENTIONS.md`:
//! decorators, not flags): power cut after the N-th write, a torn last
//! write, and bit flips on read. Crash tests of later issues wrap a chip or
//! a file in these and reopen what survives.
//!
//! Semantics, identical for [`FaultyFlash`] (counting programs) and
//! [`FaultyDevice`] (counting logical writes):
//! 1. With `power_cut_after = Some(n)`, writes `1..=n` succeed. Write `n+1`
//!    and everything after it (writes, erases, trims, syncs) fail with
//!    [`DeviceError::PowerLost`], and nothing of them persists...
//! 2. ...except that with `tear_last = true` write `n+1` is **torn**: only
//!    the first half of its bytes reaches the medium before the power goes.
//! 3. A bit flip corrupts the data returned by one read (the `k`-th read,
//!    bit `b`), or every read independently with probability `p` (seeded,
//!    so reproducible); the stored data is not changed.
//! 4. A *transient* error, the device staying up: with
//!    `fail_write = Some(n)` write `n` (counted as rule 1 counts) returns
//!    [`FaultPlan::fail_kind`]'s error (an I/O error as EIO, or `Full` as
//!    ENOSPC); with `fail_lands` its data reaches the medium all the same
//!    (an error reported after the write, or a write whose first part
//!    landed), otherwise none of it does; with `fail_short` (which wins
//!    over `fail_lands`) only its first half of bytes does, as a short
//!    write reports an error after the device took part of it. With
//!    `fail_sync = Some(n)` the `n`-th sync returns that error (what was
//!    written before it stays written, as this device has no volatile
//!    cache). Every other call succeeds: a caller may retry.
//! 5. With `reorder_unsynced` ([`FaultyDevice`] only) the device has a
//!    volatile write cache, as a disk and the kernel's page cache have:
//!    a write is held (and read back) until the next sync writes the held
//!    writes through, in order. When the power is cut, each held write
//!    reaches the medium or not (a seeded coin), in a shuffled order, and
//!    the write that met the cut is torn in among them if `tear_last`:
//!    any subset of what was written since the last sync, in any order,
//!    as a real power cut may leave it.
//! 6. With `failed_sync_cleans` as well ([`FaultyDevice`] only), a sync
//!    that fails (rule 4) does what Linux does after a failed `fsync`:
//!    the held writes are marked clean without reaching the medium. Reads
//!    still return them (from the cache), a later sync does not write
//!    them, a power cut loses them, and [`BlockDevice::forget_cached`]
//!    drops them, as `posix_fadvise(DONTNEED)` drops clean cached pages;
//!    a later write of the page supersedes its cleaned copy (issue #41).

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Flash, Geometry, Result, Wear};

/// What to inject.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultPlan {
    /// Writes that succeed before the power is cut.
    pub power_cut_after: Option<u64>,
    /// Tear the write that meets the power cut (rule 2).
    pub tear_last: bool,
    /// Flip bit `.1` (counted over the bytes returned) of read number `.0`
    /// (1-based).
    pub flip_read: Option<(u64, usize)>,
    /// Flip one random bit of each read with this probability.
    pub flip_probability: f64,
    pub seed: u64,
    /// The write (1-based) that fails with `fail_kind` (rule 4).
    pub fail_write: Option<u64>,
    /// Whether that write's data reaches the medium anyway.
    pub fail_lands: bool,
    /// Whether only the first half of that write's bytes reaches the medium
    /// (a short write; wins over `fail_lands`).
    pub fail_short: bool,
    /// The sync (1-based) that fails with `fail_kind`.
    pub fail_sync: Option<u64>,
    /// The error of a transient failure.
    pub fail_kind: FailKind,
    /// Hold writes until a sync; a power cut keeps a shuffled subset
    /// (rule 5).
    pub reorder_unsynced: bool,
    /// A failed sync marks the held writes clean without writing them, as
    /// Linux does after a failed `fsync` (rule 6; with `reorder_unsynced`).
    pub failed_sync_cleans: bool,
}

/// The error a transient failure returns (rule 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailKind {
    /// An I/O error (EIO).
    #[default]
    Io,
    /// No space (ENOSPC).
    Full,
}

impl FailKind {
    fn error(self, what: &str) -> DeviceError {
        match self {
            FailKind::Io => DeviceError::Io(std::io::Error::other(format!(
                "injected I/O error on {what}"
            ))),
            FailKind::Full => DeviceError::Full {
                detail: format!("injected: no space on {what}"),
            },
        }
    }
}

/// Shared bookkeeping of both decorators.
#[derive(Debug)]
struct Injector {
    plan: FaultPlan,
    writes: u64,
    reads: u64,
    syncs: u64,
    powered: bool,
    rng: Xoshiro256PlusPlus,
    flips: u64,
}

enum WriteFate {
    Full,
    Torn,
    Lost,
    /// Rule 4: an error, the data landed, half landed (`short`) or not.
    Failed {
        lands: bool,
        short: bool,
    },
}

impl Injector {
    fn new(plan: FaultPlan) -> Self {
        let rng = Xoshiro256PlusPlus::seed_from_u64(plan.seed);
        Injector {
            plan,
            writes: 0,
            reads: 0,
            syncs: 0,
            powered: true,
            rng,
            flips: 0,
        }
    }

    fn check_power(&self) -> Result<()> {
        if self.powered {
            Ok(())
        } else {
            Err(DeviceError::PowerLost)
        }
    }

    fn next_write(&mut self) -> WriteFate {
        if !self.powered {
            return WriteFate::Lost;
        }
        self.writes += 1;
        match self.plan.power_cut_after {
            Some(n) if self.writes > n => {
                self.powered = false;
                if self.plan.tear_last {
                    WriteFate::Torn
                } else {
                    WriteFate::Lost
                }
            }
            _ if self.plan.fail_write == Some(self.writes) => WriteFate::Failed {
                lands: self.plan.fail_lands,
                short: self.plan.fail_short,
            },
            _ => WriteFate::Full,
        }
    }

    /// Rule 4 for syncs, after the power check.
    fn sync(&mut self) -> Result<()> {
        self.check_power()?;
        self.syncs += 1;
        if self.plan.fail_sync == Some(self.syncs) {
            return Err(self.plan.fail_kind.error("sync"));
        }
        Ok(())
    }

    /// Performs one write through `write` according to the plan: whole,
    /// torn (its first half only, then `PowerLost`), or not at all.
    fn write(&mut self, data: &[u8], mut write: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        match self.next_write() {
            WriteFate::Full => write(data),
            WriteFate::Torn => {
                let half = data.len() / 2;
                if half > 0 {
                    write(&data[..half])?;
                }
                Err(DeviceError::PowerLost)
            }
            WriteFate::Lost => Err(DeviceError::PowerLost),
            WriteFate::Failed { lands, short } => {
                let half = data.len() / 2;
                if short {
                    if half > 0 {
                        write(&data[..half])?;
                    }
                } else if lands {
                    write(data)?;
                }
                Err(self.plan.fail_kind.error("write"))
            }
        }
    }

    fn after_read(&mut self, buf: &mut [u8]) {
        self.reads += 1;
        if buf.is_empty() {
            return;
        }
        let bits = buf.len() * 8;
        if let Some((k, bit)) = self.plan.flip_read {
            if k == self.reads {
                let bit = bit % bits;
                buf[bit / 8] ^= 1 << (bit % 8);
                self.flips += 1;
            }
        }
        if self.plan.flip_probability > 0.0 && self.rng.random::<f64>() < self.plan.flip_probability
        {
            let bit = self.rng.random_range(0..bits);
            buf[bit / 8] ^= 1 << (bit % 8);
            self.flips += 1;
        }
    }
}

/// A raw chip with injected faults.
#[derive(Debug)]
pub struct FaultyFlash<F: Flash> {
    inner: F,
    inj: Injector,
}

impl<F: Flash> FaultyFlash<F> {
    pub fn new(inner: F, plan: FaultPlan) -> Self {
        FaultyFlash {
            inner,
            inj: Injector::new(plan),
        }
    }
    /// Whether the power is still on.
    pub fn powered(&self) -> bool {
        self.inj.powered
    }
    /// Bits flipped so far.
    pub fn flips(&self) -> u64 {
        self.inj.flips
    }
    /// The chip as the power cut left it (to mount again).
    pub fn into_inner(self) -> F {
        self.inner
    }
}

impl<F: Flash> Flash for FaultyFlash<F> {
    fn geometry(&self) -> Geometry {
        self.inner.geometry()
    }
    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.inj.check_power()?;
        self.inner.read(page, offset, buf)?;
        self.inj.after_read(buf);
        Ok(())
    }
    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()> {
        let inner = &mut self.inner;
        self.inj
            .write(data, |bytes| inner.program(page, offset, bytes))
    }
    fn read_spare(&mut self, page: u64, buf: &mut [u8]) -> Result<()> {
        self.inj.check_power()?;
        self.inner.read_spare(page, buf)
    }
    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()> {
        // The spare area goes with the data program: lost with it.
        self.inj.check_power()?;
        self.inner.program_spare(page, data)
    }
    fn erase(&mut self, block: u64) -> Result<()> {
        self.inj.check_power()?;
        self.inner.erase(block)
    }
    fn is_bad(&self, block: u64) -> bool {
        self.inner.is_bad(block)
    }
    fn release(&mut self, page: u64) {
        self.inner.release(page)
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn wear(&self) -> Wear {
        self.inner.wear()
    }
    fn info(&self) -> DeviceInfo {
        let mut i = self.inner.info();
        i.notes
            .push(format!("fault injection: {:?}", self.inj.plan));
        i
    }
}

/// A logical-page device with injected faults.
pub struct FaultyDevice<D: BlockDevice> {
    inner: D,
    inj: Injector,
    /// Rule 5: writes since the last sync, as (page, its whole content
    /// after the write), oldest first.
    held: Vec<(u64, Vec<u8>)>,
    /// Rule 6: writes a failed sync marked clean without writing them.
    cleaned: Vec<(u64, Vec<u8>)>,
}

impl<D: BlockDevice> FaultyDevice<D> {
    pub fn new(inner: D, plan: FaultPlan) -> Self {
        FaultyDevice {
            inner,
            inj: Injector::new(plan),
            held: Vec::new(),
            cleaned: Vec::new(),
        }
    }

    /// Page `lba` as a read sees it: the newest held write, else the
    /// medium.
    fn read_through(&mut self, lba: u64, page: &mut [u8]) -> Result<()> {
        let cached = self.held.iter().rev().chain(self.cleaned.iter().rev());
        match cached.into_iter().find(|(l, _)| *l == lba) {
            Some((_, held)) => page.copy_from_slice(held),
            None => self.inner.read(lba, 0, page)?,
        }
        Ok(())
    }

    /// Rule 5's write: held, or at the cut a shuffled subset of the held
    /// writes (and the torn one) reaches the medium.
    fn write_held(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        let was_powered = self.inj.powered;
        let fate = self.inj.next_write();
        let mut page = vec![0u8; self.inner.page_size()];
        match fate {
            WriteFate::Full | WriteFate::Failed { lands: true, .. } => {
                self.read_through(lba, &mut page)?;
                page[offset..offset + data.len()].copy_from_slice(data);
                self.cleaned.retain(|(l, _)| *l != lba);
                self.held.push((lba, page));
                match fate {
                    WriteFate::Full => Ok(()),
                    _ => Err(self.inj.plan.fail_kind.error("write")),
                }
            }
            WriteFate::Failed { short, .. } => {
                if short {
                    self.read_through(lba, &mut page)?;
                    let half = data.len() / 2;
                    page[offset..offset + half].copy_from_slice(&data[..half]);
                    self.cleaned.retain(|(l, _)| *l != lba);
                    self.held.push((lba, page));
                }
                Err(self.inj.plan.fail_kind.error("write"))
            }
            WriteFate::Torn | WriteFate::Lost => {
                if was_powered {
                    let mut landing: Vec<(u64, Vec<u8>)> = std::mem::take(&mut self.held)
                        .into_iter()
                        .filter(|_| self.inj.rng.random::<bool>())
                        .collect();
                    if matches!(fate, WriteFate::Torn) {
                        self.read_through(lba, &mut page)?;
                        let half = data.len() / 2;
                        page[offset..offset + half].copy_from_slice(&data[..half]);
                        landing.push((lba, page));
                    }
                    for i in (1..landing.len()).rev() {
                        let j = self.inj.rng.random_range(0..=i);
                        landing.swap(i, j);
                    }
                    for (l, content) in landing {
                        self.inner.write(l, 0, &content)?;
                    }
                }
                Err(DeviceError::PowerLost)
            }
        }
    }
    pub fn powered(&self) -> bool {
        self.inj.powered
    }
    pub fn flips(&self) -> u64 {
        self.inj.flips
    }
    pub fn into_inner(self) -> D {
        self.inner
    }
}

impl<D: BlockDevice> BlockDevice for FaultyDevice<D> {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn capacity_pages(&self) -> u64 {
        self.inner.capacity_pages()
    }
    fn extent_pages(&self) -> Option<u64> {
        self.inner.extent_pages()
    }
    fn ensure_extent(&mut self, pages: u64) -> Result<()> {
        self.inj.check_power()?;
        self.inner.ensure_extent(pages)
    }
    fn forget_cached(&mut self) -> Result<()> {
        self.inj.check_power()?;
        self.cleaned.clear();
        self.inner.forget_cached()
    }
    fn read_only(&self) -> bool {
        self.inner.read_only()
    }
    fn discard_uncommitted(&mut self) -> Result<()> {
        self.inner.discard_uncommitted()
    }
    fn trim_reclaims(&self) -> bool {
        self.inner.trim_reclaims()
    }
    fn pages_per_block(&self) -> u32 {
        self.inner.pages_per_block()
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.inj.check_power()?;
        let cached = |(l, _): &(u64, Vec<u8>)| *l == lba;
        if self.held.iter().any(cached) || self.cleaned.iter().any(cached) {
            super::check_access(
                "page",
                lba,
                self.capacity_pages(),
                offset,
                buf.len(),
                self.page_size(),
            )?;
            let mut page = vec![0u8; self.inner.page_size()];
            self.read_through(lba, &mut page)?;
            buf.copy_from_slice(&page[offset..offset + buf.len()]);
        } else {
            self.inner.read(lba, offset, buf)?;
        }
        self.inj.after_read(buf);
        Ok(())
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        if self.inj.plan.reorder_unsynced {
            super::check_access(
                "page",
                lba,
                self.capacity_pages(),
                offset,
                data.len(),
                self.page_size(),
            )?;
            return self.write_held(lba, offset, data);
        }
        let inner = &mut self.inner;
        self.inj
            .write(data, |bytes| inner.write(lba, offset, bytes))
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.inj.check_power()?;
        // A trim supersedes what was held for the page.
        self.held.retain(|(l, _)| *l != lba);
        self.cleaned.retain(|(l, _)| *l != lba);
        self.inner.trim(lba)
    }
    fn sync(&mut self) -> Result<()> {
        if let Err(e) = self.inj.sync() {
            if self.inj.powered && self.inj.plan.failed_sync_cleans {
                // Rule 6: what the failed sync could not write is clean now.
                let held = std::mem::take(&mut self.held);
                self.cleaned.extend(held);
            }
            return Err(e);
        }
        for (lba, page) in std::mem::take(&mut self.held) {
            self.inner.write(lba, 0, &page)?;
        }
        self.inner.sync()
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn wear(&self) -> Option<Wear> {
        self.inner.wear()
    }
    fn info(&self) -> DeviceInfo {
        let mut i = self.inner.info();
        i.notes
            .push(format!("fault injection: {:?}", self.inj.plan));
        i
    }
}

/// The shared chip or device: a test that caught a panic holding it goes on
/// with what the chip holds, as a chip outlives the program that crashed.
fn shared<T: ?Sized>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A chip that outlives the devices built on it, as a real chip outlives a
/// power cut: clones share one chip, so a crash test can drop an FTL (its
/// RAM tables lost) and mount a new one over what was programmed.
#[derive(Debug)]
pub struct SharedChip<F: Flash>(pub std::sync::Arc<std::sync::Mutex<F>>);

// Not derived: a derive would ask `F: Clone`, and a clone shares the chip.
impl<F: Flash> Clone for SharedChip<F> {
    fn clone(&self) -> Self {
        SharedChip(self.0.clone())
    }
}

impl<F: Flash> SharedChip<F> {
    pub fn new(chip: F) -> Self {
        SharedChip(std::sync::Arc::new(std::sync::Mutex::new(chip)))
    }
}

impl<F: Flash> Flash for SharedChip<F> {
    fn geometry(&self) -> Geometry {
        shared(&self.0).geometry()
    }
    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        shared(&self.0).read(page, offset, buf)
    }
    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()> {
        shared(&self.0).program(page, offset, data)
    }
    fn read_spare(&mut self, page: u64, buf: &mut [u8]) -> Result<()> {
        shared(&self.0).read_spare(page, buf)
    }
    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()> {
        shared(&self.0).program_spare(page, data)
    }
    fn erase(&mut self, block: u64) -> Result<()> {
        shared(&self.0).erase(block)
    }
    fn is_bad(&self, block: u64) -> bool {
        shared(&self.0).is_bad(block)
    }
    fn release(&mut self, page: u64) {
        shared(&self.0).release(page)
    }
    fn stats(&self) -> DeviceStats {
        shared(&self.0).stats()
    }
    fn wear(&self) -> Wear {
        shared(&self.0).wear()
    }
    fn info(&self) -> DeviceInfo {
        shared(&self.0).info()
    }
}

/// A logical-page device shared between handles, as [`SharedChip`] is for
/// chips: a damage test keeps one handle to read and rewrite the pages
/// beneath a layer (the shadow-paging commit layer) that owns the other.
pub struct SharedDevice(pub std::sync::Arc<std::sync::Mutex<Box<dyn BlockDevice>>>);

impl Clone for SharedDevice {
    fn clone(&self) -> Self {
        SharedDevice(self.0.clone())
    }
}

impl SharedDevice {
    pub fn new(dev: Box<dyn BlockDevice>) -> Self {
        SharedDevice(std::sync::Arc::new(std::sync::Mutex::new(dev)))
    }
}

impl BlockDevice for SharedDevice {
    fn page_size(&self) -> usize {
        shared(&self.0).page_size()
    }
    fn verifies_reads(&self) -> bool {
        shared(&self.0).verifies_reads()
    }
    fn capacity_pages(&self) -> u64 {
        shared(&self.0).capacity_pages()
    }
    fn extent_pages(&self) -> Option<u64> {
        shared(&self.0).extent_pages()
    }
    fn ensure_extent(&mut self, pages: u64) -> Result<()> {
        shared(&self.0).ensure_extent(pages)
    }
    fn forget_cached(&mut self) -> Result<()> {
        shared(&self.0).forget_cached()
    }
    fn read_only(&self) -> bool {
        shared(&self.0).read_only()
    }
    fn discard_uncommitted(&mut self) -> Result<()> {
        shared(&self.0).discard_uncommitted()
    }
    fn trim_reclaims(&self) -> bool {
        shared(&self.0).trim_reclaims()
    }
    fn pages_per_block(&self) -> u32 {
        shared(&self.0).pages_per_block()
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        shared(&self.0).read(lba, offset, buf)
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        shared(&self.0).write(lba, offset, data)
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        shared(&self.0).trim(lba)
    }
    fn sync(&mut self) -> Result<()> {
        shared(&self.0).sync()
    }
    fn stats(&self) -> DeviceStats {
        shared(&self.0).stats()
    }
    fn wear(&self) -> Option<Wear> {
        shared(&self.0).wear()
    }
    fn info(&self) -> DeviceInfo {
        shared(&self.0).info()
    }
}
