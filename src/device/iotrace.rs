//! `--io-trace FILE`: every request an index makes of a logical-page
//! device, written as a DiskSim ASCII trace so that a run can drive an
//! external disk or SSD simulator.
//!
//! One line per read or write, in the order issued:
//!
//! ```text
//! arrival_ms  devno  blkno  bcount  flags
//! 0.000000    0      2048   8       1
//! ```
//!
//! * `arrival_ms`: the device's simulated time (its `time_us`, in ms) when
//!   the request was issued — the sum of the service times before it, so
//!   requests arrive back to back as the index issued them (one at a time);
//! * `devno`: 0;
//! * `blkno`: the first 512-byte sector (`lba × page_size / 512`, plus the
//!   offset within the page);
//! * `bcount`: the sectors moved, rounded up;
//! * `flags`: 1 for a read, 0 for a write (DiskSim's `DISKSIM_READ` bit).
//!
//! MQSim's trace format has the same five fields with the arrival time in
//! nanoseconds: multiply the first column by 10⁶. Trims, syncs and erases
//! are not requests in either format and are not written.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Result, Wear};

/// A logical-page device that logs its requests.
pub struct IoTrace {
    inner: Box<dyn BlockDevice>,
    out: BufWriter<File>,
}

impl IoTrace {
    /// Traces `inner` into a new file at `path`.
    pub fn new(inner: Box<dyn BlockDevice>, path: &Path) -> Result<IoTrace> {
        let f = File::create(path)
            .map_err(|e| DeviceError::Config(format!("--io-trace {}: {e}", path.display())))?;
        Ok(IoTrace {
            inner,
            out: BufWriter::new(f),
        })
    }

    fn log(&mut self, lba: u64, offset: usize, len: usize, read: bool) -> Result<()> {
        let at_ms = self.inner.stats().time_us / 1000.0;
        let byte = lba * self.inner.page_size() as u64 + offset as u64;
        let sectors = (len as u64).div_ceil(512).max(1);
        writeln!(
            self.out,
            "{at_ms:.6} 0 {} {sectors} {}",
            byte / 512,
            u8::from(read)
        )
        .map_err(DeviceError::Io)
    }
}

impl BlockDevice for IoTrace {
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
        self.inner.ensure_extent(pages)
    }
    fn forget_cached(&mut self) -> Result<()> {
        self.inner.forget_cached()
    }
    fn read_only(&self) -> bool {
        self.inner.read_only()
    }
    fn discard_uncommitted(&mut self) -> Result<()> {
        self.inner.discard_uncommitted()
    }
    fn commit_log(&mut self) -> Option<&mut dyn super::CommitLog> {
        self.inner.commit_log()
    }
    fn trim_reclaims(&self) -> bool {
        self.inner.trim_reclaims()
    }
    fn pages_per_block(&self) -> u32 {
        self.inner.pages_per_block()
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.log(lba, offset, buf.len(), true)?;
        self.inner.read(lba, offset, buf)
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.log(lba, offset, data.len(), false)?;
        self.inner.write(lba, offset, data)
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.inner.trim(lba)
    }
    fn sync(&mut self) -> Result<()> {
        self.out.flush().map_err(DeviceError::Io)?;
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

impl Drop for IoTrace {
    fn drop(&mut self) {
        // A failure here has no caller to report to; `sync` reports it.
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::ram::RamDisk;

    #[test]
    fn each_request_is_one_disksim_line() {
        let dir = std::env::temp_dir().join(format!("flashix-iotrace-{}", std::process::id()));
        let mut t = IoTrace::new(Box::new(RamDisk::new(4096, 100)), &dir).unwrap();
        t.write(3, 0, &[1u8; 4096]).unwrap();
        let mut buf = [0u8; 100];
        t.read(3, 1024, &mut buf).unwrap();
        t.trim(3).unwrap();
        t.sync().unwrap();
        let text = std::fs::read_to_string(&dir).unwrap();
        std::fs::remove_file(&dir).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, ["0.000000 0 24 8 0", "0.000000 0 26 1 1"]);
    }
}
