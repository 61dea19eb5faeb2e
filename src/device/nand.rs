//! A simulated raw NAND chip ([`Flash`]): the physics every other layer is
//! charged against (`bftl.md` §2, `buffered-bplus-tree.md` §2.1).
//!
//! Storage is sparse: a page costs memory only once programmed, and its
//! bytes are dropped again when its block is erased or when the owner calls
//! [`Flash::release`]. A 64 GiB chip therefore costs nothing until written.
//!
//! Invariants:
//! 1. A byte of a page is programmed at most once between two erases of its
//!    block; a program overlapping a programmed range is `NotErased`.
//! 2. A page takes at most `nop` programs between two erases (`NopExceeded`).
//! 3. A block erased more than `endurance` times is bad: every later program
//!    or erase of it is `BadBlock` (reads still work, as on real parts).
//! 4. Every read, program and erase is charged to [`DeviceStats`] by the
//!    [`CostModel`] before it returns `Ok`; a rejected operation charges
//!    nothing.
//!
//! Spare (out-of-band) area: `spare_size` bytes per page (at most
//! [`MAX_SPARE`]), programmed together with the data, so it is neither
//! charged separately nor counted against `nop`; erased spare bytes read 0xFF.

use std::collections::{HashMap, HashSet};

use super::{CostModel, DeviceError, DeviceInfo, DeviceStats, Flash, Geometry, Result, Wear};

/// Largest spare area a simulated page can have.
pub const MAX_SPARE: usize = 32;
/// Largest `nop` the simulator tracks.
pub const MAX_NOP: u8 = 8;

/// One programmed page.
struct PageSlot {
    /// `None` once released: the page is still programmed but its bytes are
    /// gone (the owner promised not to read them).
    data: Option<Box<[u8]>>,
    spare: [u8; MAX_SPARE],
    /// Byte ranges programmed since the last erase, `[start, end)`.
    ranges: [(u32, u32); MAX_NOP as usize],
    programs: u8,
}

/// A simulated NAND chip.
pub struct Nand {
    geometry: Geometry,
    cost: CostModel,
    name: String,
    pages: HashMap<u64, PageSlot>,
    erase_counts: HashMap<u64, u64>,
    bad: HashSet<u64>,
    stats: DeviceStats,
    /// Page buffers of erased pages, reused so that steady-state programs do
    /// not allocate.
    spare_buffers: Vec<Box<[u8]>>,
}

impl std::fmt::Debug for Nand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nand")
            .field("name", &self.name)
            .field("geometry", &self.geometry)
            .field("programmed_pages", &self.pages.len())
            .finish()
    }
}

impl Nand {
    /// A new, fully erased chip. Fails on a geometry that cannot exist.
    pub fn new(name: &str, geometry: Geometry, cost: CostModel) -> Result<Nand> {
        let g = geometry;
        if g.page_size == 0 || g.pages_per_block == 0 || g.blocks == 0 {
            return Err(DeviceError::Config(format!(
                "page_size, pages_per_block and blocks must be positive (got {}, {}, {})",
                g.page_size, g.pages_per_block, g.blocks
            )));
        }
        if g.spare_size as usize > MAX_SPARE {
            return Err(DeviceError::Config(format!(
                "spare_size {} exceeds the simulator's maximum of {MAX_SPARE}",
                g.spare_size
            )));
        }
        if g.nop == 0 || g.nop > MAX_NOP {
            return Err(DeviceError::Config(format!(
                "nop must be between 1 and {MAX_NOP}, got {}",
                g.nop
            )));
        }
        if g.endurance == 0 {
            return Err(DeviceError::Config("endurance must be positive".into()));
        }
        if g.blocks.checked_mul(g.pages_per_block as u64).is_none() {
            return Err(DeviceError::Config("too many pages to address".into()));
        }
        Ok(Nand {
            geometry,
            cost,
            name: name.to_string(),
            pages: HashMap::new(),
            erase_counts: HashMap::new(),
            bad: HashSet::new(),
            stats: DeviceStats::default(),
            spare_buffers: Vec::new(),
        })
    }

    pub fn cost_model(&self) -> CostModel {
        self.cost
    }

    /// Pages currently holding bytes in memory (for checking sparseness).
    pub fn resident_pages(&self) -> usize {
        self.pages.values().filter(|p| p.data.is_some()).count()
    }

    /// Times `block` has been erased.
    pub fn erase_count(&self, block: u64) -> u64 {
        self.erase_counts.get(&block).copied().unwrap_or(0)
    }

    fn check_page(&self, page: u64, offset: usize, len: usize) -> Result<()> {
        let pages = self.geometry.pages();
        if page >= pages {
            return Err(DeviceError::OutOfRange {
                what: "physical page",
                value: page,
                limit: pages,
            });
        }
        let end = offset as u64 + len as u64;
        if end > self.geometry.page_size as u64 {
            return Err(DeviceError::OutOfRange {
                what: "byte range end",
                value: end,
                limit: self.geometry.page_size as u64,
            });
        }
        Ok(())
    }

    fn charge_read(&mut self, bytes: usize) {
        let c = self.cost.read(bytes);
        self.stats.physical_reads += 1;
        self.stats.physical_bytes_read += bytes as u64;
        self.stats.time_us += c.us;
        self.stats.energy_uj += c.uj;
    }

    fn fresh_buffer(&mut self) -> Box<[u8]> {
        match self.spare_buffers.pop() {
            Some(mut b) => {
                b.fill(0xFF);
                b
            }
            None => vec![0xFFu8; self.geometry.page_size as usize].into_boxed_slice(),
        }
    }

    fn recycle(&mut self, buf: Box<[u8]>) {
        // Bounded so that erasing a huge region does not pin memory.
        if self.spare_buffers.len() < 4096 {
            self.spare_buffers.push(buf);
        }
    }
}

impl Flash for Nand {
    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check_page(page, offset, buf.len())?;
        match self.pages.get(&page) {
            Some(slot) => match &slot.data {
                Some(d) => buf.copy_from_slice(&d[offset..offset + buf.len()]),
                // A released page: its owner broke its promise. Zero bytes
                // make any checksum above fail rather than invent data.
                None => buf.fill(0),
            },
            None => buf.fill(0xFF),
        }
        self.charge_read(buf.len());
        Ok(())
    }

    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check_page(page, offset, data.len())?;
        let block = page / self.geometry.pages_per_block as u64;
        if self.bad.contains(&block) {
            return Err(DeviceError::BadBlock { block });
        }
        let (start, end) = (offset as u32, (offset + data.len()) as u32);
        let nop = self.geometry.nop;
        if let Some(slot) = self.pages.get(&page) {
            if slot.programs >= nop {
                return Err(DeviceError::NopExceeded { page, nop });
            }
            let overlaps = slot.ranges[..slot.programs as usize]
                .iter()
                .any(|&(s, e)| start < e && s < end && start < end);
            if overlaps || slot.data.is_none() {
                return Err(DeviceError::NotErased { page });
            }
        }
        if !self.pages.contains_key(&page) {
            let buffer = self.fresh_buffer();
            self.pages.insert(
                page,
                PageSlot {
                    data: Some(buffer),
                    spare: [0xFF; MAX_SPARE],
                    ranges: [(0, 0); MAX_NOP as usize],
                    programs: 0,
                },
            );
        }
        // Invariant: the slot was inserted just above if it was missing.
        let slot = self.pages.get_mut(&page).expect("slot exists");
        if let Some(d) = slot.data.as_mut() {
            d[offset..offset + data.len()].copy_from_slice(data);
        }
        slot.ranges[slot.programs as usize] = (start, end);
        slot.programs += 1;
        let c = self.cost.write(data.len());
        self.stats.physical_writes += 1;
        self.stats.physical_bytes_written += data.len() as u64;
        self.stats.time_us += c.us;
        self.stats.energy_uj += c.uj;
        Ok(())
    }

    fn read_spare(&mut self, page: u64, buf: &mut [u8]) -> Result<()> {
        self.check_page(page, 0, 0)?;
        let n = buf.len().min(self.geometry.spare_size as usize);
        match self.pages.get(&page) {
            Some(slot) => buf[..n].copy_from_slice(&slot.spare[..n]),
            None => buf[..n].fill(0xFF),
        }
        buf[n..].fill(0xFF);
        self.charge_read(n);
        Ok(())
    }

    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()> {
        self.check_page(page, 0, 0)?;
        if data.len() > self.geometry.spare_size as usize {
            return Err(DeviceError::OutOfRange {
                what: "spare bytes",
                value: data.len() as u64,
                limit: self.geometry.spare_size as u64,
            });
        }
        let block = page / self.geometry.pages_per_block as u64;
        if self.bad.contains(&block) {
            return Err(DeviceError::BadBlock { block });
        }
        match self.pages.get_mut(&page) {
            Some(slot) => {
                if slot.spare[..data.len()].iter().any(|&b| b != 0xFF) {
                    return Err(DeviceError::NotErased { page });
                }
                slot.spare[..data.len()].copy_from_slice(data);
            }
            None => {
                // Spare written before data: the page counts as programmed
                // with no data range yet.
                let mut spare = [0xFF; MAX_SPARE];
                spare[..data.len()].copy_from_slice(data);
                let buffer = self.fresh_buffer();
                self.pages.insert(
                    page,
                    PageSlot {
                        data: Some(buffer),
                        spare,
                        ranges: [(0, 0); MAX_NOP as usize],
                        programs: 0,
                    },
                );
            }
        }
        Ok(())
    }

    fn erase(&mut self, block: u64) -> Result<()> {
        if block >= self.geometry.blocks {
            return Err(DeviceError::OutOfRange {
                what: "block",
                value: block,
                limit: self.geometry.blocks,
            });
        }
        if self.bad.contains(&block) {
            return Err(DeviceError::BadBlock { block });
        }
        let ppb = self.geometry.pages_per_block as u64;
        let first = block * ppb;
        for page in first..first + ppb {
            if let Some(slot) = self.pages.remove(&page) {
                if let Some(d) = slot.data {
                    self.recycle(d);
                }
            }
        }
        let count = self.erase_counts.entry(block).or_insert(0);
        *count += 1;
        if *count >= self.geometry.endurance {
            // The erase that reaches the endurance limit still succeeds; the
            // block is worn out from then on.
            self.bad.insert(block);
        }
        let c = self.cost.erase();
        self.stats.erases += 1;
        self.stats.time_us += c.us;
        self.stats.energy_uj += c.uj;
        Ok(())
    }

    fn is_bad(&self, block: u64) -> bool {
        self.bad.contains(&block)
    }

    fn release(&mut self, page: u64) {
        let mut freed = None;
        if let Some(slot) = self.pages.get_mut(&page) {
            freed = slot.data.take();
        }
        if let Some(buf) = freed {
            self.recycle(buf);
        }
    }

    fn stats(&self) -> DeviceStats {
        self.stats
    }

    fn wear(&self) -> Wear {
        let blocks = self.geometry.blocks;
        let total: u64 = self.erase_counts.values().sum();
        let max = self.erase_counts.values().copied().max().unwrap_or(0);
        let min = if (self.erase_counts.len() as u64) < blocks {
            0
        } else {
            self.erase_counts.values().copied().min().unwrap_or(0)
        };
        Wear {
            min,
            mean: total as f64 / blocks as f64,
            max,
        }
    }

    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            kind: "raw".into(),
            name: self.name.clone(),
            page_size: self.geometry.page_size,
            pages_per_block: self.geometry.pages_per_block,
            capacity_pages: self.geometry.pages(),
            o_direct: None,
            notes: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chip() -> Nand {
        let g = Geometry {
            page_size: 512,
            pages_per_block: 4,
            blocks: 4,
            spare_size: 16,
            nop: 2,
            endurance: 3,
        };
        let mut cost = CostModel::FREE;
        cost.read_us = 348.0;
        cost.write_us = 909.0;
        cost.erase_us = 1881.0;
        cost.write_uj = 237.6;
        Nand::new("test", g, cost).unwrap()
    }

    #[test]
    fn erase_before_write_and_nop_are_enforced() {
        let mut n = chip();
        let mut buf = [0u8; 4];
        n.read(0, 0, &mut buf).unwrap();
        assert_eq!(buf, [0xFF; 4]);
        n.program(0, 0, &[1, 2]).unwrap();
        assert!(matches!(
            n.program(0, 1, &[9]),
            Err(DeviceError::NotErased { page: 0 })
        ));
        n.program(0, 2, &[3]).unwrap();
        assert!(matches!(
            n.program(0, 10, &[4]),
            Err(DeviceError::NopExceeded { page: 0, nop: 2 })
        ));
        n.read(0, 0, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 0xFF]);
        n.erase(0).unwrap();
        n.program(0, 0, &[7]).unwrap();
        assert_eq!(n.stats().physical_writes, 3);
        assert_eq!(n.stats().erases, 1);
        assert!((n.stats().time_us - (3.0 * 909.0 + 2.0 * 348.0 + 1881.0)).abs() < 1e-9);
        assert!((n.stats().energy_uj - 3.0 * 237.6).abs() < 1e-9);
    }

    #[test]
    fn wear_out_makes_a_block_bad() {
        let mut n = chip();
        for _ in 0..3 {
            n.erase(1).unwrap();
        }
        assert!(n.is_bad(1));
        assert!(matches!(
            n.erase(1),
            Err(DeviceError::BadBlock { block: 1 })
        ));
        assert!(matches!(
            n.program(4, 0, &[1]),
            Err(DeviceError::BadBlock { block: 1 })
        ));
        let w = n.wear();
        assert_eq!((w.min, w.max), (0, 3));
        assert!((w.mean - 0.75).abs() < 1e-12);
    }

    #[test]
    fn out_of_range_is_an_error() {
        let mut n = chip();
        assert!(n.program(16, 0, &[1]).is_err());
        assert!(n.program(0, 510, &[1, 2, 3]).is_err());
        assert!(n.erase(4).is_err());
    }

    #[test]
    fn a_huge_chip_costs_nothing_until_written() {
        let g = Geometry {
            page_size: 512,
            pages_per_block: 32,
            blocks: 4 << 20, // 64 GiB
            spare_size: 16,
            nop: 4,
            endurance: 100_000,
        };
        let mut n = Nand::new("big", g, CostModel::FREE).unwrap();
        n.program(g.pages() - 1, 0, &[1; 512]).unwrap();
        assert_eq!(n.resident_pages(), 1);
        n.release(g.pages() - 1);
        assert_eq!(n.resident_pages(), 0);
    }
}
