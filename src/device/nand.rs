//! A simulated raw NAND chip ([`Flash`]): the physics every other layer is
//! charged against (`bftl.md` §2, `buffered-bplus-tree.md` §2.1).
//!
//! Storage is sparse: a block costs memory only once programmed (about 21
//! bytes of bookkeeping per page), and a page's bytes live in a reusable
//! slab only until its block is erased or the owner calls
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
use std::hash::{BuildHasherDefault, Hasher};

use super::{CostModel, DeviceError, DeviceInfo, DeviceStats, Flash, Geometry, Result, Wear};

/// Largest spare area a simulated page can have.
pub const MAX_SPARE: usize = 32;
/// Largest `nop` the simulator tracks.
pub const MAX_NOP: u8 = 8;
const NO_SLOT: u32 = u32::MAX;

/// Multiply-shift hashing of block numbers: the simulator's maps are keyed
/// by small integers it chose itself, so SipHash's DoS resistance buys
/// nothing and costs a hash per page operation.
#[derive(Default, Clone, Copy)]
pub(crate) struct BlockHasher(u64);

impl Hasher for BlockHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<BlockHasher>>;

/// The pages of one block that has been programmed since its last erase.
/// Per page: a slot in the page slab (4 bytes), its spare area and its
/// program count; byte ranges only for partially programmed pages.
struct BlockData {
    /// Index into `Nand::slab`, or `NO_SLOT` (erased, or released).
    slots: Vec<u32>,
    /// `pages_per_block × spare_size` bytes, erased = 0xFF.
    spare: Vec<u8>,
    /// Programs since the last erase (0 = erased).
    programs: Vec<u8>,
    /// Byte ranges `[start, end)` of pages programmed partially; a page with
    /// programs but no entry was programmed whole.
    partial: HashMap<u32, Vec<(u32, u32)>>,
}

/// A simulated NAND chip.
pub struct Nand {
    geometry: Geometry,
    cost: CostModel,
    name: String,
    blocks: FastMap<u64, BlockData>,
    /// Page buffers; `slab_free` lists the unused ones, so steady-state
    /// programs allocate nothing.
    slab: Vec<Box<[u8]>>,
    slab_free: Vec<u32>,
    erase_counts: FastMap<u64, u64>,
    bad: HashSet<u64>,
    stats: DeviceStats,
}

impl std::fmt::Debug for Nand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nand")
            .field("name", &self.name)
            .field("geometry", &self.geometry)
            .field("resident_pages", &self.resident_pages())
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
            blocks: FastMap::default(),
            slab: Vec::new(),
            slab_free: Vec::new(),
            erase_counts: FastMap::default(),
            bad: HashSet::new(),
            stats: DeviceStats::default(),
        })
    }

    pub fn cost_model(&self) -> CostModel {
        self.cost
    }

    /// Pages currently holding bytes in memory (for checking sparseness).
    pub fn resident_pages(&self) -> usize {
        self.slab.len() - self.slab_free.len()
    }

    /// Times `block` has been erased.
    pub fn erase_count(&self, block: u64) -> u64 {
        self.erase_counts.get(&block).copied().unwrap_or(0)
    }

    fn check_page(&self, page: u64, offset: usize, len: usize) -> Result<()> {
        let g = &self.geometry;
        super::check_access(
            "physical page",
            page,
            g.pages(),
            offset,
            len,
            g.page_size as usize,
        )
    }

    fn locate(&self, page: u64) -> (u64, usize) {
        let ppb = self.geometry.pages_per_block as u64;
        (page / ppb, (page % ppb) as usize)
    }

    fn charge_read(&mut self, bytes: usize) {
        let c = self.cost.read(bytes);
        self.stats.physical_reads += 1;
        self.stats.physical_bytes_read += bytes as u64;
        self.stats.time_us += c.us;
        self.stats.energy_uj += c.uj;
    }

    /// A slab slot holding an erased (0xFF) page.
    fn fresh_slot(&mut self) -> u32 {
        match self.slab_free.pop() {
            Some(i) => {
                self.slab[i as usize].fill(0xFF);
                i
            }
            None => {
                self.slab
                    .push(vec![0xFFu8; self.geometry.page_size as usize].into_boxed_slice());
                (self.slab.len() - 1) as u32
            }
        }
    }

    fn block_mut(&mut self, block: u64) -> &mut BlockData {
        let ppb = self.geometry.pages_per_block as usize;
        let spare = self.geometry.spare_size as usize;
        self.blocks.entry(block).or_insert_with(|| BlockData {
            slots: vec![NO_SLOT; ppb],
            spare: vec![0xFF; ppb * spare],
            programs: vec![0; ppb],
            partial: HashMap::new(),
        })
    }
}

impl Flash for Nand {
    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check_page(page, offset, buf.len())?;
        let (block, i) = self.locate(page);
        match self.blocks.get(&block) {
            Some(b) if b.programs[i] > 0 => match b.slots[i] {
                // A released page: its owner broke its promise. Zero bytes
                // make any checksum above fail rather than invent data.
                NO_SLOT => buf.fill(0),
                slot => buf.copy_from_slice(&self.slab[slot as usize][offset..offset + buf.len()]),
            },
            _ => buf.fill(0xFF),
        }
        self.charge_read(buf.len());
        Ok(())
    }

    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check_page(page, offset, data.len())?;
        let (block, i) = self.locate(page);
        if self.bad.contains(&block) {
            return Err(DeviceError::BadBlock { block });
        }
        let (start, end) = (offset as u32, (offset + data.len()) as u32);
        let whole = offset == 0 && data.len() == self.geometry.page_size as usize;
        let nop = self.geometry.nop;
        if let Some(b) = self.blocks.get(&block) {
            let programs = b.programs[i];
            if programs >= nop {
                return Err(DeviceError::NopExceeded { page, nop });
            }
            if programs > 0 {
                let overlaps = match b.partial.get(&(i as u32)) {
                    // Programmed whole: every byte is taken.
                    None => true,
                    Some(ranges) => whole || ranges.iter().any(|&(s, e)| start < e && s < end),
                };
                if overlaps || b.slots[i] == NO_SLOT {
                    return Err(DeviceError::NotErased { page });
                }
            }
        }
        let fresh = self
            .blocks
            .get(&block)
            .is_none_or(|b| b.slots[i] == NO_SLOT);
        let slot = if fresh {
            self.fresh_slot()
        } else {
            self.blocks[&block].slots[i]
        };
        self.slab[slot as usize][offset..offset + data.len()].copy_from_slice(data);
        let b = self.block_mut(block);
        b.slots[i] = slot;
        b.programs[i] += 1;
        if !whole {
            b.partial.entry(i as u32).or_default().push((start, end));
        }
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
        let (block, i) = self.locate(page);
        let ss = self.geometry.spare_size as usize;
        match self.blocks.get(&block) {
            Some(b) => buf[..n].copy_from_slice(&b.spare[i * ss..i * ss + n]),
            None => buf[..n].fill(0xFF),
        }
        buf[n..].fill(0xFF);
        self.charge_read(n);
        Ok(())
    }

    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()> {
        self.check_page(page, 0, 0)?;
        let ss = self.geometry.spare_size as usize;
        if data.len() > ss {
            return Err(DeviceError::OutOfRange {
                what: "spare bytes",
                value: data.len() as u64,
                limit: ss as u64,
            });
        }
        let (block, i) = self.locate(page);
        if self.bad.contains(&block) {
            return Err(DeviceError::BadBlock { block });
        }
        let b = self.block_mut(block);
        let area = &mut b.spare[i * ss..i * ss + data.len()];
        if area.iter().any(|&x| x != 0xFF) {
            return Err(DeviceError::NotErased { page });
        }
        area.copy_from_slice(data);
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
        if let Some(b) = self.blocks.remove(&block) {
            self.slab_free
                .extend(b.slots.into_iter().filter(|&s| s != NO_SLOT));
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
        let (block, i) = self.locate(page);
        if let Some(b) = self.blocks.get_mut(&block) {
            let slot = std::mem::replace(&mut b.slots[i], NO_SLOT);
            if slot != NO_SLOT {
                self.slab_free.push(slot);
            }
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
            footprint_pages: None,
            mapped_pages: None,
            notes: vec![],
            cost: Some(self.cost),
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
