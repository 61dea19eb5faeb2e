//! A logical-page device held in RAM with no cost model: the simplest
//! [`BlockDevice`], for unit tests of the layers above, and the page store
//! under the SSD model (`device::ssd`), where every experiment's pages live.
//!
//! Pages are held in chunks of `CHUNK_PAGES` consecutive LBAs, found by a
//! direct table indexed by `lba / CHUNK_PAGES`, so capacity costs nothing
//! until written (a chunk is allocated on its first write, zeroed) and a
//! page look-up is one table read, not a hash probe and a pointer to a
//! page of its own (issue #31: at 10^8 entries the look-up of a cold page
//! was 10% of a BFTL run, each probe a cache miss before the page's own).
//! The indexes take LBAs densely from their allocators, so chunks fill; a
//! caller writing one page in every 64 would pay a chunk a page. The table
//! grows to the highest chunk written: 8 bytes for each 64 LBAs below it.
//!
//! Invariant: a page never written, or trimmed, reads as zeros (a trim
//! zeroes it; a chunk none of whose pages is present is freed).

use super::{BlockDevice, DeviceInfo, DeviceStats, Result, Wear};

/// Consecutive LBAs a chunk holds: 128 KiB of 2 KB pages.
const CHUNK_PAGES: u64 = 64;

/// [`CHUNK_PAGES`] pages, and which of them were written since their last
/// trim (bit i: page i).
#[derive(Clone, Debug)]
struct Chunk {
    present: u64,
    data: Box<[u8]>,
}

/// An in-memory logical-page device.
#[derive(Clone, Debug)]
pub struct RamDisk {
    page_size: usize,
    capacity_pages: u64,
    /// Chunk `lba / CHUNK_PAGES` at that index; `None` until written.
    chunks: Vec<Option<Box<Chunk>>>,
    stats: DeviceStats,
    /// Pages [`BlockDevice::ensure_extent`] asked to hold: the disk's
    /// length reaches at least this far, as a file extended ahead does.
    extended: u64,
}

impl RamDisk {
    pub fn new(page_size: usize, capacity_pages: u64) -> Self {
        RamDisk {
            page_size,
            capacity_pages,
            chunks: Vec::new(),
            stats: DeviceStats::default(),
            extended: 0,
        }
    }

    /// Whether page `lba`'s chunk is held (so [`RamDisk::page`] lends it).
    pub(super) fn holds(&self, lba: u64) -> bool {
        matches!(self.chunks.get((lba / CHUNK_PAGES) as usize), Some(Some(_)))
    }

    /// Page `lba` in place, if its chunk is held (zeros if never written).
    pub(super) fn page(&self, lba: u64) -> Option<&[u8]> {
        let chunk = self.chunks.get((lba / CHUNK_PAGES) as usize)?.as_ref()?;
        let at = (lba % CHUNK_PAGES) as usize * self.page_size;
        chunk.data.get(at..at + self.page_size)
    }

    /// Checks and counts a read of page `lba` whole, as `read` does.
    pub(super) fn count_read(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, self.page_size)?;
        self.stats.logical_reads += 1;
        self.stats.bytes_read += self.page_size as u64;
        Ok(())
    }

    fn check(&self, lba: u64, offset: usize, len: usize) -> Result<()> {
        super::check_access(
            "logical page",
            lba,
            self.capacity_pages,
            offset,
            len,
            self.page_size,
        )
    }
}

impl BlockDevice for RamDisk {
    fn try_clone_box(&self) -> Option<Box<dyn BlockDevice>> {
        Some(Box::new(self.clone()))
    }
    fn try_clone_same(&self) -> Option<Self> {
        Some(self.clone())
    }
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn capacity_pages(&self) -> u64 {
        self.capacity_pages
    }
    /// Up to the highest page written, as a file's length.
    fn extent_pages(&self) -> Option<u64> {
        let highest = self.chunks.iter().enumerate().rev().find_map(|(c, chunk)| {
            let present = chunk.as_ref().map_or(0, |ch| ch.present);
            (present != 0).then(|| c as u64 * CHUNK_PAGES + u64::from(63 - present.leading_zeros()))
        });
        Some(highest.map_or(0, |p| p + 1).max(self.extended))
    }
    fn ensure_extent(&mut self, pages: u64) -> Result<()> {
        self.check(pages.saturating_sub(1), 0, 0)?;
        self.extended = self.extended.max(pages);
        Ok(())
    }
    fn pages_per_block(&self) -> u32 {
        1
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba, offset, buf.len())?;
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        match self.chunks.get((lba / CHUNK_PAGES) as usize) {
            Some(Some(chunk)) => {
                let at = (lba % CHUNK_PAGES) as usize * self.page_size + offset;
                buf.copy_from_slice(&chunk.data[at..at + buf.len()]);
            }
            _ => buf.fill(0),
        }
        Ok(())
    }
    fn prefetch(&self, lba: u64) {
        if let Some(page) = self.page(lba) {
            prefetch_page(page);
        }
    }
    fn read_in_place(&mut self, lba: u64) -> Result<Option<&[u8]>> {
        if !self.holds(lba) {
            return Ok(None);
        }
        self.count_read(lba)?;
        Ok(self.page(lba))
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba, offset, data.len())?;
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        let c = (lba / CHUNK_PAGES) as usize;
        if self.chunks.len() <= c {
            self.chunks.resize_with(c + 1, || None);
        }
        let bytes = CHUNK_PAGES as usize * self.page_size;
        let chunk = self.chunks[c].get_or_insert_with(|| {
            Box::new(Chunk {
                present: 0,
                data: vec![0u8; bytes].into_boxed_slice(),
            })
        });
        let slot = lba % CHUNK_PAGES;
        let at = slot as usize * self.page_size + offset;
        chunk.data[at..at + data.len()].copy_from_slice(data);
        chunk.present |= 1 << slot;
        Ok(())
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, 0)?;
        self.stats.logical_trims += 1;
        let c = (lba / CHUNK_PAGES) as usize;
        let size = self.page_size;
        if let Some(slot) = self.chunks.get_mut(c) {
            if let Some(chunk) = slot {
                let i = lba % CHUNK_PAGES;
                chunk.present &= !(1 << i);
                if chunk.present == 0 {
                    *slot = None;
                } else {
                    let at = i as usize * size;
                    chunk.data[at..at + size].fill(0);
                }
            }
        }
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
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
            kind: "ram".into(),
            name: "ram".into(),
            page_size: self.page_size as u32,
            pages_per_block: 1,
            capacity_pages: self.capacity_pages,
            o_direct: None,
            footprint_pages: None,
            mapped_pages: None,
            notes: vec![],
            cost: None,
        }
    }
}

/// Asks the CPU to load the first cache lines of `page` (the frame's
/// header and the start of its payload; the hardware's stream prefetcher
/// follows the rest once they are read in order).
#[allow(unsafe_code)]
fn prefetch_page(page: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in page.chunks(64).take(2) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of every x86-64 CPU, and a prefetch of a
        // valid address (a live slice) reads nothing the program sees.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = page;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Reads, extent and zeros of unwritten and trimmed pages agree with
        /// a map of whole pages, across chunk boundaries.
        #[test]
        fn matches_a_map_of_pages(ops in prop::collection::vec((0u8..3, 0u64..300, any::<u8>()), 1..200)) {
            const PAGE: usize = 16;
            let mut disk = RamDisk::new(PAGE, 300);
            let mut model: std::collections::BTreeMap<u64, Vec<u8>> = Default::default();
            let mut buf = [0u8; PAGE];
            for (kind, lba, byte) in ops {
                match kind {
                    0 => {
                        disk.write(lba, 3, &[byte; 5]).unwrap();
                        let page = model.entry(lba).or_insert_with(|| vec![0; PAGE]);
                        page[3..8].fill(byte);
                    }
                    1 => {
                        disk.trim(lba).unwrap();
                        model.remove(&lba);
                    }
                    _ => {
                        disk.read(lba, 0, &mut buf).unwrap();
                        let want = model.get(&lba).cloned().unwrap_or_else(|| vec![0; PAGE]);
                        prop_assert_eq!(&buf[..], &want[..]);
                    }
                }
                let extent = model.keys().next_back().map_or(0, |&p| p + 1);
                prop_assert_eq!(disk.extent_pages(), Some(extent));
            }
            // Chunks with no page left are freed.
            let live = disk.chunks.iter().flatten().count() as u64;
            let chunks: std::collections::BTreeSet<u64> = model.keys().map(|l| l / CHUNK_PAGES).collect();
            prop_assert_eq!(live, chunks.len() as u64);
        }
    }

    #[test]
    fn out_of_range_is_refused() {
        let mut disk = RamDisk::new(16, 10);
        assert!(disk.write(10, 0, &[1]).is_err());
        assert!(disk.read(10, 0, &mut [0u8; 16]).is_err());
        assert!(disk.trim(10).is_err());
    }
}
