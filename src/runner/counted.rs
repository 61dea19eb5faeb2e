//! A block device that counts the writes and syncs reaching it, as
//! [`crate::device::fault::FaultyDevice`] counts them, so that a clean run
//! gives the range of positions a fault test fails (`runner::fault`), and
//! that can record every write's page and content (the double-fault
//! runner's clean run, `runner::double_fault`, finds the writes with a
//! twin in it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::device::fault::SharedDevice;
use crate::device::{BlockDevice, DeviceInfo, DeviceStats, Wear};

/// Writes as (page, content), in order.
pub(super) type Writes = Vec<(u64, Vec<u8>)>;

/// Writes and syncs that reach a device (atomics: the counts are read
/// after the device moved into the stack).
#[derive(Default)]
pub(super) struct Counts {
    writes: AtomicU64,
    syncs: AtomicU64,
    /// Every write, page and content, in order, where asked for
    /// ([`Counted::recording`]; the double-fault runner's clean run).
    pub(super) recorded: std::sync::Mutex<Option<Writes>>,
}

/// A device that counts its writes and syncs (module doc).
pub(super) struct Counted {
    inner: SharedDevice,
    pub(super) counts: Arc<Counts>,
}

impl Counts {
    /// Writes and syncs so far.
    pub(super) fn load(&self) -> (u64, u64) {
        (
            self.writes.load(Ordering::Relaxed),
            self.syncs.load(Ordering::Relaxed),
        )
    }
}

impl Counted {
    pub(super) fn new(inner: SharedDevice) -> Self {
        Counted {
            inner,
            counts: Arc::default(),
        }
    }

    /// A counter that also keeps every write's page and content.
    pub(super) fn recording(inner: SharedDevice) -> Self {
        let c = Self::new(inner);
        if let Ok(mut r) = c.counts.recorded.lock() {
            *r = Some(Vec::new());
        }
        c
    }
}

impl BlockDevice for Counted {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn capacity_pages(&self) -> u64 {
        self.inner.capacity_pages()
    }
    fn extent_pages(&self) -> Option<u64> {
        self.inner.extent_pages()
    }
    fn ensure_extent(&mut self, pages: u64) -> crate::device::Result<()> {
        self.inner.ensure_extent(pages)
    }
    fn forget_cached(&mut self) -> crate::device::Result<()> {
        self.inner.forget_cached()
    }
    fn read_only(&self) -> bool {
        self.inner.read_only()
    }
    fn discard_uncommitted(&mut self) -> crate::device::Result<()> {
        self.inner.discard_uncommitted()
    }
    fn trim_reclaims(&self) -> bool {
        self.inner.trim_reclaims()
    }
    fn pages_per_block(&self) -> u32 {
        self.inner.pages_per_block()
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> crate::device::Result<()> {
        self.inner.read(lba, offset, buf)
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> crate::device::Result<()> {
        self.counts.writes.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut r) = self.counts.recorded.lock() {
            if let Some(writes) = r.as_mut() {
                writes.push((lba, data.to_vec()));
            }
        }
        self.inner.write(lba, offset, data)
    }
    fn trim(&mut self, lba: u64) -> crate::device::Result<()> {
        self.inner.trim(lba)
    }
    fn sync(&mut self) -> crate::device::Result<()> {
        self.counts.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync()
    }
    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }
    fn wear(&self) -> Option<Wear> {
        self.inner.wear()
    }
    fn info(&self) -> DeviceInfo {
        self.inner.info()
    }
}
