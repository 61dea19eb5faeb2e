//! Preconditioning: a logical-page device filled with cold valid data
//! before an index runs on it, as SSD simulators do (MQSim's
//! `Initial_Occupancy_Percentage`, SSDsim's aged-device option) and SSD
//! benchmarks require (SNIA's PTS fills the drive before measuring).
//!
//! An empty chip hides garbage collection: with most blocks free, every
//! victim holds nothing but pages the index already rewrote, so a victim is
//! erased without copying a page and write amplification is 1. A device in
//! use is mostly full of data nobody is rewriting now (other files, older
//! tables); that cold data takes blocks from the free pool, and garbage
//! collection has to work inside what is left.
//!
//! [`Preconditioned`] writes `cold` pages, sequentially and whole, at the
//! top of the logical space (LBAs `capacity − cold .. capacity`) before
//! the index is built, and offers the index only the pages below them, so
//! the index can neither read nor overwrite nor trim cold data. Its
//! counters start from the state after the fill: a report charges the
//! index's own work only (preconditioning is not the index's cost), while
//! garbage collection that copies cold pages, because they share a victim
//! block with the index's pages, is charged, as on a real device.
//!
//! Written sequentially on an erased chip the cold pages would fill whole
//! blocks of their own, all valid, which greedy collection never picks: the
//! cold data would only take free space away, and a victim would still
//! hold little but the index's own stale pages (write amplification
//! 1.002–1.03 on `compare`'s default run). A device in use is aged: its
//! cold data was itself rewritten at some point, so its blocks hold stale
//! pages among valid ones and the free space is scattered across them.
//! So after the sequential fill the cold range is aged, as SNIA's PTS
//! preconditions a drive with random writes after the sequential fill:
//! [`AGING_PASSES`] × `cold` overwrites of cold pages chosen uniformly at
//! random (a fixed seed, so every index of a comparison starts from the
//! same device). Garbage collection during the aging is the aging's, not
//! the index's: the counters start after it. The chip's erase counts
//! (wear) do include it, as a used chip's would.

use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Result, Wear};

/// A device whose top `cold` logical pages hold cold data (module doc).
pub struct Preconditioned<D: BlockDevice> {
    inner: D,
    /// Logical pages the index may address: `0..exposed`.
    exposed: u64,
    cold: u64,
    /// The inner device's counters after the fill.
    baseline: DeviceStats,
    /// One more than the highest LBA the index wrote.
    footprint: u64,
}

/// Random overwrites of the cold range after the sequential fill, in
/// multiples of its size (module doc). One pass leaves about e⁻¹ of the
/// cold range's first copies in place and the rest scattered across
/// blocks that also hold stale pages.
pub const AGING_PASSES: u64 = 1;

/// Seed of the aging's page choice: fixed, so that every index of one
/// comparison gets the same aged device.
const AGING_SEED: u64 = 0x5EED_C01D_DA7A_0001;

/// What cold page `lba` holds: its LBA, then a fixed byte, so that a test
/// (or a reader of a dump) can tell a cold page from any other.
pub fn cold_page(lba: u64, page_size: usize) -> Vec<u8> {
    let mut page = vec![0xC5u8; page_size];
    let n = page_size.min(8);
    page[..n].copy_from_slice(&lba.to_le_bytes()[..n]);
    page
}

impl<D: BlockDevice> Preconditioned<D> {
    /// Fills the top `cold` pages of `inner` (module doc). At least one
    /// page must stay for the index.
    pub fn new(mut inner: D, cold: u64) -> Result<Self> {
        let capacity = inner.capacity_pages();
        if cold >= capacity {
            return Err(DeviceError::Config(format!(
                "preconditioning with {cold} cold pages leaves no room on a device of {capacity} pages"
            )));
        }
        let exposed = capacity - cold;
        let page_size = inner.page_size();
        for lba in exposed..capacity {
            inner.write(lba, 0, &cold_page(lba, page_size))?;
        }
        // splitmix64: a fixed, dependency-free sequence of page choices.
        let mut state = AGING_SEED;
        for _ in 0..cold * AGING_PASSES {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let lba = exposed + z % cold;
            inner.write(lba, 0, &cold_page(lba, page_size))?;
        }
        inner.sync()?;
        let baseline = inner.stats();
        Ok(Preconditioned {
            inner,
            exposed,
            cold,
            baseline,
            footprint: 0,
        })
    }

    /// Pages of cold data.
    pub fn cold_pages(&self) -> u64 {
        self.cold
    }

    /// The device underneath (its counters include the fill).
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The device underneath, to read cold pages back (tests).
    pub fn inner_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    fn check(&self, lba: u64) -> Result<()> {
        if lba >= self.exposed {
            return Err(DeviceError::OutOfRange {
                what: "logical page",
                value: lba,
                limit: self.exposed,
            });
        }
        Ok(())
    }
}

impl<D: BlockDevice> BlockDevice for Preconditioned<D> {
    fn try_clone_box(&self) -> Option<Box<dyn BlockDevice>> {
        Some(Box::new(self.try_clone_same()?))
    }

    fn try_clone_same(&self) -> Option<Self> {
        Some(Preconditioned {
            inner: self.inner.try_clone_same()?,
            exposed: self.exposed,
            cold: self.cold,
            baseline: self.baseline,
            footprint: self.footprint,
        })
    }

    fn page_size(&self) -> usize {
        self.inner.page_size()
    }

    fn capacity_pages(&self) -> u64 {
        self.exposed
    }

    fn pages_per_block(&self) -> u32 {
        self.inner.pages_per_block()
    }

    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba)?;
        self.inner.read(lba, offset, buf)
    }

    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba)?;
        self.inner.write(lba, offset, data)?;
        self.footprint = self.footprint.max(lba + 1);
        Ok(())
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba)?;
        self.inner.trim(lba)
    }

    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }

    fn stats(&self) -> DeviceStats {
        self.inner.stats().delta(&self.baseline)
    }

    /// The chip's erase counts, the aging's included (module doc).
    fn wear(&self) -> Option<Wear> {
        self.inner.wear()
    }

    fn info(&self) -> DeviceInfo {
        let mut info = self.inner.info();
        info.capacity_pages = self.exposed;
        info.footprint_pages = Some(self.footprint);
        info.mapped_pages = info.mapped_pages.map(|m| m.saturating_sub(self.cold));
        info.notes.push(format!(
            "preconditioned: {} pages of cold data at logical pages {}..{}, not the index's to \
             address; counters start after the fill",
            self.cold,
            self.exposed,
            self.exposed + self.cold
        ));
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{cost::CostModel, Ftl, FtlConfig, Geometry, Nand};

    fn ftl(blocks: u64) -> Ftl<Nand> {
        let g = Geometry {
            page_size: 512,
            pages_per_block: 32,
            blocks,
            spare_size: 16,
            nop: 4,
            endurance: 100_000,
        };
        let cost = CostModel {
            read_us: 10.0,
            write_us: 100.0,
            erase_us: 1000.0,
            ..CostModel::FREE
        };
        Ftl::new(Nand::new("t", g, cost).unwrap(), FtlConfig::default()).unwrap()
    }

    #[test]
    fn cold_pages_stay_out_of_the_index_s_reach_and_counters() {
        let mut dev = Preconditioned::new(ftl(16), 100).unwrap();
        let capacity = dev.inner().capacity_pages();
        assert_eq!(dev.capacity_pages(), capacity - 100);
        // The fill is not the index's cost.
        assert_eq!(dev.stats(), DeviceStats::default());
        // The sequential fill and one aging pass of random overwrites.
        assert!(dev.inner().stats().logical_writes == 100 * (1 + AGING_PASSES));
        let top = dev.capacity_pages();
        let mut buf = vec![0u8; 512];
        assert!(matches!(
            dev.read(top, 0, &mut buf),
            Err(DeviceError::OutOfRange { .. })
        ));
        assert!(dev.write(top, 0, &buf).is_err());
        assert!(dev.trim(top + 99).is_err());
        dev.write(3, 0, &[7u8; 512]).unwrap();
        dev.read(3, 0, &mut buf).unwrap();
        assert_eq!(buf, vec![7u8; 512]);
        let s = dev.stats();
        assert_eq!(
            (s.logical_writes, s.physical_writes, s.logical_reads),
            (1, 1, 1)
        );
        assert!((s.time_us - 110.0).abs() < 1e-9, "{s:?}");
        let info = dev.info();
        assert_eq!(info.capacity_pages, top);
        assert_eq!(info.footprint_pages, Some(4));
        assert_eq!(info.mapped_pages, Some(1));
        assert!(BlockDevice::wear(&dev).is_some());
        assert!(Preconditioned::new(ftl(16), capacity).is_err());
    }

    /// Aged cold pages share blocks with stale copies, so garbage
    /// collection under the index's writes picks some of their blocks and
    /// copies the cold pages still valid there (charged to the index, as on
    /// a used device); every cold page reads back unchanged.
    #[test]
    fn garbage_collection_copies_aged_cold_pages_and_keeps_them() {
        let cold = 150;
        let mut dev = Preconditioned::new(ftl(12), cold).unwrap();
        let top = dev.capacity_pages();
        let before: Vec<Option<u64>> = (top..top + cold)
            .map(|l| dev.inner().physical_page(l))
            .collect();
        assert!(before.iter().all(Option::is_some));
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..20_000u32 {
            // xorshift: random rewrites of the index's pages.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            dev.write(x % top, 0, &[i as u8; 512]).unwrap();
        }
        let s = dev.stats();
        assert!(s.erases > 0 && s.gc_copies > 0, "{s:?}");
        assert!(s.write_amplification() > 1.0, "{s:?}");
        assert_eq!(s.logical_writes, 20_000);
        let moved = (top..top + cold)
            .zip(&before)
            .filter(|(l, b)| dev.inner().physical_page(*l) != **b)
            .count();
        assert!(moved > 0, "no cold page was copied");
        let mut buf = vec![0u8; 512];
        for lba in top..top + cold {
            dev.inner_mut().read(lba, 0, &mut buf).unwrap();
            assert_eq!(buf, cold_page(lba, 512), "cold page {lba}");
        }
    }
}
