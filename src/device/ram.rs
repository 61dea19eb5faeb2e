//! A logical-page device held in RAM with no cost model: the simplest
//! [`BlockDevice`], for unit tests of the layers above. Pages are stored
//! sparsely, so capacity costs nothing until written.

use super::nand::FastMap;
use super::{BlockDevice, DeviceInfo, DeviceStats, Result, Wear};

/// An in-memory logical-page device.
#[derive(Clone, Debug)]
pub struct RamDisk {
    page_size: usize,
    capacity_pages: u64,
    /// By LBA; multiply-shift hashed (`nand::FastMap`): the LBAs are the
    /// simulator's own, and SipHash was most of a page look-up.
    pages: FastMap<u64, Box<[u8]>>,
    stats: DeviceStats,
}

impl RamDisk {
    pub fn new(page_size: usize, capacity_pages: u64) -> Self {
        RamDisk {
            page_size,
            capacity_pages,
            pages: FastMap::default(),
            stats: DeviceStats::default(),
        }
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
        Some(self.pages.keys().max().map_or(0, |&p| p + 1))
    }
    fn pages_per_block(&self) -> u32 {
        1
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba, offset, buf.len())?;
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        match self.pages.get(&lba) {
            Some(p) => buf.copy_from_slice(&p[offset..offset + buf.len()]),
            None => buf.fill(0),
        }
        Ok(())
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba, offset, data.len())?;
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        let size = self.page_size;
        let page = self
            .pages
            .entry(lba)
            .or_insert_with(|| vec![0u8; size].into_boxed_slice());
        page[offset..offset + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, 0)?;
        self.stats.logical_trims += 1;
        self.pages.remove(&lba);
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
