//! Plugging in a device of your own: implement `BlockDevice` (pages that
//! can be read, written, trimmed and synced) and a store runs on it with
//! the same format and durability contract as on a file. Here the device
//! is RAM that keeps only what was synced: a "power cut" drops every write
//! since the last sync, as a disk cache would, and the store still opens
//! at its last flush.
//!
//! Run: `cargo run --release --example custom_device`

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use flashix::device::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Wear};
use flashix::{Options, Store};

const PAGE: usize = 4096;

/// What survives a power cut: the pages as of the last sync.
type Durable = Arc<Mutex<HashMap<u64, Vec<u8>>>>;

/// Pages in RAM, written back to `durable` at every sync.
struct VolatileRam {
    durable: Durable,
    /// Pages written since the last sync (`None`: trimmed).
    cache: HashMap<u64, Option<Vec<u8>>>,
    pages: u64,
    stats: DeviceStats,
}

impl VolatileRam {
    fn new(durable: Durable, pages: u64) -> Self {
        VolatileRam {
            durable,
            cache: HashMap::new(),
            pages,
            stats: DeviceStats::default(),
        }
    }

    fn check(&self, lba: u64, offset: usize, len: usize) -> Result<(), DeviceError> {
        if lba >= self.pages || offset + len > PAGE {
            return Err(DeviceError::Config(format!(
                "page {lba} bytes {offset}..{} are outside the device",
                offset + len
            )));
        }
        Ok(())
    }

    fn page(&self, lba: u64) -> Vec<u8> {
        match self.cache.get(&lba) {
            Some(Some(p)) => p.clone(),
            Some(None) => vec![0; PAGE],
            None => self
                .durable
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&lba)
                .cloned()
                .unwrap_or_else(|| vec![0; PAGE]),
        }
    }
}

impl BlockDevice for VolatileRam {
    fn page_size(&self) -> usize {
        PAGE
    }
    fn capacity_pages(&self) -> u64 {
        self.pages
    }
    fn pages_per_block(&self) -> u32 {
        1
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<(), DeviceError> {
        self.check(lba, offset, buf.len())?;
        buf.copy_from_slice(&self.page(lba)[offset..offset + buf.len()]);
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        Ok(())
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<(), DeviceError> {
        self.check(lba, offset, data.len())?;
        let mut page = self.page(lba);
        page[offset..offset + data.len()].copy_from_slice(data);
        self.cache.insert(lba, Some(page));
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        Ok(())
    }
    fn trim(&mut self, lba: u64) -> Result<(), DeviceError> {
        self.check(lba, 0, 0)?;
        self.cache.insert(lba, None);
        self.stats.logical_trims += 1;
        Ok(())
    }
    fn sync(&mut self) -> Result<(), DeviceError> {
        let mut durable = self.durable.lock().unwrap_or_else(|e| e.into_inner());
        for (lba, page) in self.cache.drain() {
            match page {
                Some(p) => durable.insert(lba, p),
                None => durable.remove(&lba),
            };
        }
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
            kind: "volatile-ram".into(),
            name: "example".into(),
            page_size: PAGE as u32,
            pages_per_block: 1,
            capacity_pages: self.pages,
            ..DeviceInfo::default()
        }
    }
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let durable = Durable::default();
    let options = Options::index("lsm").memory(256 << 10);
    let device = VolatileRam::new(durable.clone(), 1 << 16);
    let mut store = Store::create_on_device(Box::new(device), &options)?;
    for k in 0..10_000u64 {
        store.put(k, k + 1)?;
    }
    store.flush()?;
    for k in 10_000..12_000u64 {
        store.put(k, 0)?; // never flushed
    }
    // The power goes: the store's RAM and the device's unsynced writes are
    // gone. (A drop without close logs a warning through `log`.)
    drop(store);

    let device = VolatileRam::new(durable, 1 << 16);
    let mut store = Store::open_on_device(Box::new(device), &options)?;
    assert_eq!(store.get(9_999)?, Some(10_000));
    assert_eq!(store.get(10_000)?, None);
    let n = store.range(..)?.count();
    assert_eq!(n, 10_000);
    println!("after the power cut: {n} entries, the last flush exactly");
    Ok(())
}
