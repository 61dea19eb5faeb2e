//! A simulated raw NAND chip ([`Flash`]): the physics every other layer is
//! charged against (Wu et al. 2003 §2, Agrawal et al. 2009 §2.1).
//!
//! Storage is sparse and sized by what is written, not by the chip:
//!
//! * Blocks live in a two-level directory (chunks of `DIR_CHUNK` blocks,
//!   allocated when a block in them is first programmed), indexed directly,
//!   so a page access costs no hashing. A 64 GiB chip costs nothing until
//!   written.
//! * A programmed block keeps, per page, its program count (1 byte), its
//!   spare area in the compact encoding of `device::spare` (about 4 bytes
//!   for an FTL's 16), and while any of its pages holds data, a slot number
//!   (4 bytes, in `device::slot_table`, where a read finds it without
//!   touching the block's other records).
//! * Page bytes live in a slab of fixed-size chunks (no allocation per
//!   page) only until their block is erased or the owner calls
//!   [`Flash::release`]; freed slots are reused, so steady-state programs
//!   allocate nothing. Chunks are 2 MiB, aligned and offered to the kernel
//!   as transparent huge pages: page reads land at random in the slab
//!   (12 MiB at 10^6 `flashix bench` inserts), and with 4 KiB pages most
//!   of them also missed the TLB (the copy out of the slab, a quarter of
//!   the bench's time, took 15% fewer samples on huge pages, 2026-11-25).
//!
//! The FTL's page program goes through [`Flash::program_page_and_spare`]:
//! data and spare in one pass, the page located and its block's record
//! fetched once (they were located three times and fetched three times, a
//! fifth of a page write). Page and slot numbers are split by a shift
//! where the divisor is a power of two (`device::divisor`), and a whole
//! page's charges are worked out once (`page_read`, `page_write`, the
//! same arithmetic as [`CostModel`] gives, so the same values).
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
//! 5. A block has a slot table exactly while one of its pages holds a slab
//!    slot (`device::slot_table`).
//!
//! Spare (out-of-band) area: `spare_size` bytes per page (at most
//! [`MAX_SPARE`]), programmed together with the data, so it is neither
//! charged separately nor counted against `nop`; erased spare bytes read 0xFF.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::cost::Charge;
use super::divisor::Divisor;
use super::slab::Slab;
use super::slot_table::{SlotTables, NO_SLOT};
/// Largest spare area a simulated page can have (kept beside the spare
/// encoding, named here as before).
pub use super::spare::MAX_SPARE;
use super::spare::{block_entry, put_spare, Base, BlockData, DIR_CHUNK};
use super::{CostModel, DeviceError, DeviceInfo, DeviceStats, Flash, Geometry, Result, Wear};

/// Largest `nop` the simulator tracks.
pub const MAX_NOP: u8 = 8;

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
type FastSet<K> = HashSet<K, BuildHasherDefault<BlockHasher>>;

/// A simulated NAND chip.
#[derive(Clone)]
pub struct Nand {
    geometry: Geometry,
    /// Divides a page number by the pages per block.
    block_of: Divisor,
    cost: CostModel,
    /// `cost`'s charges for reading and programming a whole page, worked
    /// out once (the same arithmetic, so the same values, as
    /// [`CostModel::read`] and [`CostModel::write`] give each time).
    page_read: Charge,
    page_write: Charge,
    name: String,
    /// Directory chunks of `DIR_CHUNK` blocks, allocated on first use.
    dir: Vec<Option<Box<[BlockData]>>>,
    /// Byte ranges `[start, end)` of pages programmed partially, by page; a
    /// programmed page with no entry was programmed whole.
    partial: FastMap<u64, Vec<(u32, u32)>>,
    slab: Slab,
    /// The block whose spare areas were last appended to, and its page 0's
    /// words (an FTL fills one block at a time).
    spare_base: (u64, Base),
    /// Each page's slab slot.
    slots: SlotTables,
    erase_counts: FastMap<u64, u64>,
    /// Worn-out blocks; looked up on every program, so empty is checked
    /// first and the hash is the cheap one.
    bad: FastSet<u64>,
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
        let page_size = g.page_size as usize;
        Ok(Nand {
            geometry,
            block_of: Divisor::new(g.pages_per_block as u64),
            cost,
            page_read: cost.read(page_size),
            page_write: cost.write(page_size),
            name: name.to_string(),
            dir: Vec::new(),
            partial: FastMap::default(),
            slab: Slab::new(page_size),
            spare_base: (u64::MAX, None),
            slots: SlotTables::new(g.pages_per_block as usize),
            erase_counts: FastMap::default(),
            bad: FastSet::default(),
            stats: DeviceStats::default(),
        })
    }

    pub fn cost_model(&self) -> CostModel {
        self.cost
    }

    /// Pages currently holding bytes in memory (for checking sparseness).
    pub fn resident_pages(&self) -> usize {
        self.slab.resident()
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

    #[inline]
    fn locate(&self, page: u64) -> (u64, usize) {
        self.block_of.split(page)
    }

    /// [`Flash::read`]; whether the bytes are those a sealed program gave
    /// the page (its slot's mark; a page programmed since, released or
    /// erased has no such mark).
    /// Inlined into the FTL's page read, the simulator's commonest call
    /// (a call and its saved registers were a tenth of a page read).
    #[inline(always)]
    fn read_at(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<(bool, u32)> {
        self.check_page(page, offset, buf.len())?;
        let (block, i) = self.locate(page);
        // A page with a slot has been programmed, so the block's record
        // (another cache miss) is looked at only for a page without one.
        let slot = self.slots.get(block, i);
        let sealed = match slot {
            NO_SLOT => {
                self.read_without_slot(block, i, buf);
                false
            }
            slot => {
                let copy = self.slab.copier();
                copy.copy(buf, &self.slab.page(slot)[offset..offset + buf.len()]);
                self.slab.is_sealed(slot)
            }
        };
        self.charge_read(buf.len());
        Ok((sealed, slot))
    }

    /// [`Flash::read_sealed_hinted`] past a hint that did not hold: the
    /// full read, which leaves the page's slot (or `NO_SLOT`) in `hint`.
    #[inline(never)]
    fn read_and_hint(&mut self, page: u64, hint: &mut u32, buf: &mut [u8]) -> Result<bool> {
        let (sealed, slot) = self.read_at(page, 0, buf)?;
        *hint = slot;
        Ok(sealed)
    }

    /// The bytes of page `i` of `block`, which holds no slot.
    #[cold]
    #[inline(never)]
    fn read_without_slot(&self, block: u64, i: usize, buf: &mut [u8]) {
        if self.block(block).is_some_and(|b| b.programs(i) > 0) {
            // A released page: its owner broke its promise. Zero bytes
            // make any checksum above fail rather than invent data.
            buf.fill(0);
        } else {
            buf.fill(0xFF);
        }
    }

    /// [`Flash::program`]; `sealed` marks the page's slot as holding a
    /// sealed frame (only a whole-page program can).
    fn program_at(&mut self, page: u64, offset: usize, data: &[u8], sealed: bool) -> Result<()> {
        self.check_page(page, offset, data.len())?;
        self.program_located(page, offset, data, sealed, None)
    }

    /// [`Self::program_at`] past its range check, then, given `spare`,
    /// [`Flash::program_spare`] of it as a call of its own would after
    /// the data program: [`Flash::program_page_and_spare`] in one pass,
    /// the page located and its block's record fetched once, and its slot
    /// left in the hint given with the spare. Out of line (an FTL's write
    /// takes it once a block).
    #[inline(never)]
    fn program_located(
        &mut self,
        page: u64,
        offset: usize,
        data: &[u8],
        sealed: bool,
        spare: Option<(&[u8], &mut u32)>,
    ) -> Result<()> {
        let (block, i) = self.locate(page);
        if self.is_bad(block) {
            return Err(DeviceError::BadBlock { block });
        }
        let (start, end) = (offset as u32, (offset + data.len()) as u32);
        let page_bytes = self.geometry.page_size as usize;
        let whole = offset == 0 && data.len() == page_bytes;
        let nop = self.geometry.nop;
        let ppb = self.geometry.pages_per_block as usize;
        // Made here if new: a program fails below only on a page already
        // programmed, whose block has its record, so a failure leaves the
        // same state as before.
        let b = block_entry(&mut self.dir, block, ppb, spare.is_some());
        let programs = b.spares.head()[i];
        let mut slot = NO_SLOT;
        if programs > 0 {
            if programs >= nop {
                return Err(DeviceError::NopExceeded { page, nop });
            }
            // Only a programmed page can hold a slot (invariant 5).
            slot = self.slots.get(block, i);
            let overlaps = match self.partial.get(&page) {
                // Programmed whole: every byte is taken.
                None => true,
                Some(ranges) => whole || ranges.iter().any(|&(s, e)| start < e && s < end),
            };
            if overlaps || slot == NO_SLOT {
                return Err(DeviceError::NotErased { page });
            }
        }
        if slot == NO_SLOT {
            slot = self.slab.fresh(whole, page, sealed && whole);
        }
        let copy = self.slab.copier();
        copy.copy(
            &mut self.slab.page_mut(slot)[offset..offset + data.len()],
            data,
        );
        self.slab.set_sealed(slot, sealed && whole);
        if !whole {
            self.partial.entry(page).or_default().push((start, end));
        }
        self.slots.set(block, i, slot);
        b.spares.head_mut()[i] += 1;
        b.has_partial |= !whole;
        let c = if whole {
            self.page_write
        } else {
            self.cost.write(data.len())
        };
        self.stats.physical_writes += 1;
        self.stats.physical_bytes_written += data.len() as u64;
        self.stats.time_us += c.us;
        self.stats.write_time_us += c.us;
        self.stats.energy_uj += c.uj;
        let Some((spare, hint)) = spare else {
            return Ok(());
        };
        *hint = slot;
        // The checks `program_spare` would make next: its range check and
        // the bad block passed with the data's.
        let ss = self.geometry.spare_size as usize;
        if spare.len() > ss {
            return Err(spare_too_long(spare.len(), ss));
        }
        put_spare(b, &mut self.spare_base, block, i, page, ss, ppb, spare)
    }

    /// [`Self::program_located`] of a whole page and a whole spare area
    /// into the erased page right after the last one whose spare was
    /// stored, in the block whose spares were last appended to (page 0's
    /// words kept in `spare_base`), on a chip with no bad block: an FTL's
    /// every page program but a block's first. Each condition is checked
    /// before anything changes, and `false` (nothing changed) sends any
    /// other program down the general path. Where they hold, that path
    /// passes every check (not bad, an erased page, a spare within the
    /// area and erased, since it lies past the stored ones) and does what
    /// is done here, in the same order, with the same charge; this one
    /// skips its branches, the record's second look-up and the general
    /// spare encoding (a third of a page write).
    #[inline(always)]
    fn program_next_page(
        &mut self,
        page: u64,
        data: &[u8],
        spare: &[u8],
        sealed: bool,
        hint: &mut u32,
    ) -> bool {
        let (block, i) = self.locate(page);
        let g = &self.geometry;
        let (base_block, Some(base)) = &self.spare_base else {
            return false;
        };
        if *base_block != block
            || data.len() != g.page_size as usize
            || spare.len() != g.spare_size as usize
            || !self.bad.is_empty()
        {
            return false;
        }
        let ppb = g.pages_per_block as usize;
        let b = block as usize;
        let Some(Some(chunk)) = self.dir.get_mut(b / DIR_CHUNK) else {
            return false;
        };
        let Some(record) = chunk.get_mut(b % DIR_CHUNK) else {
            return false;
        };
        let spares = &mut record.spares;
        if i != spares.pages() || i == 0 {
            return false;
        }
        let Some(programs) = spares.head_mut().get_mut(i) else {
            return false;
        };
        if *programs != 0 {
            return false;
        }
        *programs = 1;
        let slot = self.slab.fresh(true, page, sealed);
        let copy = self.slab.copier();
        copy.copy(self.slab.page_mut(slot), data);
        self.slots.set(block, i, slot);
        let c = self.page_write;
        self.stats.physical_writes += 1;
        self.stats.physical_bytes_written += data.len() as u64;
        self.stats.time_us += c.us;
        self.stats.write_time_us += c.us;
        self.stats.energy_uj += c.uj;
        *hint = slot;
        spares.append_next(spare, base);
        if i + 1 == ppb {
            // As `put_spare`: the block's record is complete.
            spares.shrink();
        }
        true
    }

    /// Always inlined: a page read's charge, once called out of line by
    /// the compiler's choice, in a build where the read around it was not.
    #[inline(always)]
    fn charge_read(&mut self, bytes: usize) {
        let c = if bytes == self.geometry.page_size as usize {
            self.page_read
        } else {
            self.cost.read(bytes)
        };
        self.stats.physical_reads += 1;
        self.stats.physical_bytes_read += bytes as u64;
        self.stats.time_us += c.us;
        self.stats.read_time_us += c.us;
        self.stats.energy_uj += c.uj;
    }

    /// The block's data, if its directory chunk exists.
    fn block(&self, block: u64) -> Option<&BlockData> {
        let b = block as usize;
        self.dir
            .get(b / DIR_CHUNK)?
            .as_ref()
            .map(|chunk| &chunk[b % DIR_CHUNK])
    }
}

fn spare_too_long(len: usize, ss: usize) -> DeviceError {
    DeviceError::OutOfRange {
        what: "spare bytes",
        value: len as u64,
        limit: ss as u64,
    }
}

impl Flash for Nand {
    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn read(&mut self, page: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.read_at(page, offset, buf).map(|_| ())
    }

    fn read_sealed(&mut self, page: u64, buf: &mut [u8]) -> Result<bool> {
        self.read_at(page, 0, buf).map(|(sealed, _)| sealed)
    }

    /// The hint is a slab slot: when the slab says it holds `page`, the
    /// slot tables would give that slot (the slab's invariant), so the
    /// read goes straight to the bytes; the page is programmed, so in
    /// range, and only the length is left to check. Otherwise the full
    /// read, which leaves the page's slot in `hint`.
    /// Always inlined into the FTL's page read: left to the compiler, it
    /// was inlined in one build and called in the next (a call and its
    /// saved registers are about 20 instructions of a read's 120).
    #[inline(always)]
    fn read_sealed_hinted(&mut self, page: u64, hint: &mut u32, buf: &mut [u8]) -> Result<bool> {
        let slot = *hint;
        if let Some(sealed) = self.slab.owned_sealed(slot, page) {
            // A slab page is `page_size` bytes: within it is within the page.
            if let Some(bytes) = self.slab.page(slot).get(..buf.len()) {
                self.slab.copier().copy(buf, bytes);
                self.charge_read(buf.len());
                return Ok(sealed);
            }
        }
        self.read_and_hint(page, hint, buf)
    }

    fn program(&mut self, page: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.program_at(page, offset, data, false)
    }

    fn program_sealed(&mut self, page: u64, data: &[u8]) -> Result<()> {
        self.program_at(page, 0, data, true)
    }

    fn read_spare(&mut self, page: u64, buf: &mut [u8]) -> Result<()> {
        self.check_page(page, 0, 0)?;
        let ss = self.geometry.spare_size as usize;
        let n = buf.len().min(ss);
        let (block, i) = self.locate(page);
        let mut spare = [0xFFu8; MAX_SPARE];
        if let Some(b) = self.block(block) {
            b.spares.read(i, &mut spare[..ss]);
        }
        buf[..n].copy_from_slice(&spare[..n]);
        buf[n..].fill(0xFF);
        self.charge_read(n);
        Ok(())
    }

    /// The one-pass program first, before the range check: where its
    /// conditions hold, that check passes (the page lies in a block whose
    /// spares were stored, so in range, and the data are a whole page),
    /// and where they do not, nothing has changed and the general path
    /// checks first, as before. Always inlined into the FTL's page write
    /// (a call, its arguments and saved registers were 40 instructions).
    #[inline(always)]
    fn program_page_and_spare(
        &mut self,
        page: u64,
        data: &[u8],
        spare: &[u8],
        sealed: bool,
        hint: &mut u32,
    ) -> Result<()> {
        if self.program_next_page(page, data, spare, sealed, hint) {
            return Ok(());
        }
        self.check_page(page, 0, data.len())?;
        self.program_located(page, 0, data, sealed, Some((spare, hint)))
    }

    fn program_spare(&mut self, page: u64, data: &[u8]) -> Result<()> {
        self.check_page(page, 0, 0)?;
        let ss = self.geometry.spare_size as usize;
        if data.len() > ss {
            return Err(spare_too_long(data.len(), ss));
        }
        let (block, i) = self.locate(page);
        if self.is_bad(block) {
            return Err(DeviceError::BadBlock { block });
        }
        let ppb = self.geometry.pages_per_block as usize;
        let b = block_entry(&mut self.dir, block, ppb, true);
        put_spare(b, &mut self.spare_base, block, i, page, ss, ppb, data)
    }

    fn erase(&mut self, block: u64) -> Result<()> {
        if block >= self.geometry.blocks {
            return Err(DeviceError::OutOfRange {
                what: "block",
                value: block,
                limit: self.geometry.blocks,
            });
        }
        if self.is_bad(block) {
            return Err(DeviceError::BadBlock { block });
        }
        let b = block as usize;
        if self.spare_base.0 == block {
            self.spare_base = (u64::MAX, None);
        }
        let taken = match self.dir.get_mut(b / DIR_CHUNK) {
            Some(Some(chunk)) => std::mem::take(&mut chunk[b % DIR_CHUNK]),
            _ => BlockData::default(),
        };
        let slab = &mut self.slab;
        self.slots.take_all(block, |slot| slab.free_slot(slot));
        if taken.has_partial {
            let ppb = self.geometry.pages_per_block as u64;
            for page in block * ppb..(block + 1) * ppb {
                self.partial.remove(&page);
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
        !self.bad.is_empty() && self.bad.contains(&block)
    }

    /// Always inlined into the FTL's invalidation, once a page write.
    #[inline(always)]
    fn release(&mut self, page: u64) {
        let (block, i) = self.locate(page);
        let slot = self.slots.take(block, i);
        if slot != NO_SLOT {
            self.slab.free_slot(slot);
        }
    }

    fn stats(&self) -> DeviceStats {
        self.stats
    }

    fn try_clone_box(&self) -> Option<Box<dyn Flash>> {
        Some(Box::new(self.clone()))
    }

    fn try_clone_same(&self) -> Option<Self> {
        Some(self.clone())
    }

    fn wear(&self) -> Wear {
        Wear::from_counts(
            self.geometry.blocks,
            self.geometry.endurance,
            self.erase_counts.iter().map(|(&b, &c)| (b, c)).collect(),
        )
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

    /// A page vouches for its bytes only while they are those a sealed
    /// program gave it, and reads the same bytes and charges the same
    /// either way.
    #[test]
    fn only_a_sealed_page_unchanged_since_reads_sealed() {
        let mut n = chip();
        let data = vec![7u8; 512];
        let mut buf = vec![0u8; 512];
        n.program_sealed(0, &data).unwrap();
        assert!(n.read_sealed(0, &mut buf).unwrap());
        assert_eq!(buf, data);
        let before = n.stats();
        n.read(0, 0, &mut buf).unwrap();
        let plain = n.stats();
        assert!(n.read_sealed(0, &mut buf).unwrap());
        assert_eq!(plain.delta(&before), n.stats().delta(&plain));
        // A plain program, a partial one, an erased page, a released one.
        n.program(1, 0, &data).unwrap();
        assert!(!n.read_sealed(1, &mut buf).unwrap());
        n.program(2, 0, &data[..100]).unwrap();
        n.program(2, 100, &data[..100]).unwrap();
        assert!(!n.read_sealed(2, &mut buf).unwrap());
        assert!(!n.read_sealed(3, &mut buf).unwrap());
        assert_eq!(buf, vec![0xFF; 512]);
        n.release(0);
        assert!(!n.read_sealed(0, &mut buf).unwrap());
        // The released slot, programmed again plain, is not vouched for.
        n.program(4, 0, &data).unwrap();
        assert!(!n.read_sealed(4, &mut buf).unwrap());
        n.program_sealed(5, &data).unwrap();
        n.erase(1).unwrap();
        assert!(!n.read_sealed(5, &mut buf).unwrap());
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

    /// The chip's rules on plain per-page state, as the chip kept it before
    /// its storage became compact: what every operation must agree with.
    #[derive(Clone, Default)]
    struct PlainPage {
        programs: u8,
        /// `None`: programmed whole (or never).
        ranges: Option<Vec<(usize, usize)>>,
        released: bool,
        data: Vec<u8>,
        spare: Vec<u8>,
    }

    #[derive(Debug, Clone)]
    enum ChipOp {
        Program(u64, usize, usize, u8),
        /// A whole page through the FTL's call, which leaves a hint; with
        /// a whole spare area or none.
        ProgramSealed(u64, u8, bool),
        /// [`ChipOp::ProgramSealed`] with a spare area into a block's
        /// lowest erased page (its last page when none is): an FTL
        /// filling a block.
        FillNext(u64, u8),
        ProgramSpare(u64, usize, u8),
        Read(u64),
        ReadSpare(u64),
        Erase(u64),
        Release(u64),
    }

    /// The operations (drawn as before the spare-carrying programs were
    /// added, so that the kept seeds give the cases they were kept for).
    fn chip_op() -> impl proptest::strategy::Strategy<Value = ChipOp> {
        use proptest::prelude::*;
        prop_oneof![
            3 => (0u64..12, 0usize..16, 1usize..17, any::<u8>())
                .prop_map(|(p, o, l, b)| ChipOp::Program(p, o, l.min(16 - o), b)),
            1 => (0u64..12, any::<u8>()).prop_map(|(p, b)| ChipOp::Program(p, 0, 16, b)),
            1 => (0u64..12, any::<u8>()).prop_map(|(p, b)| ChipOp::ProgramSealed(p, b, false)),
            2 => (0u64..12, 0usize..6, any::<u8>()).prop_map(|(p, l, b)| ChipOp::ProgramSpare(p, l, b)),
            2 => (0u64..12).prop_map(ChipOp::Read),
            2 => (0u64..12).prop_map(ChipOp::ReadSpare),
            1 => (0u64..3).prop_map(ChipOp::Erase),
            2 => (0u64..12).prop_map(ChipOp::Release),
        ]
    }

    /// [`chip_op`]'s operations and programs with a whole spare area,
    /// blocks filled in order among them (the chip's one-pass program).
    fn ftl_chip_op() -> impl proptest::strategy::Strategy<Value = ChipOp> {
        // Named, not a second glob: each glob import of a module multiplies
        // the paths `tests/architecture`'s reader follows for a name.
        use proptest::prelude::{any, prop_oneof, Strategy};
        prop_oneof![
            4 => chip_op(),
            1 => (0u64..12, any::<u8>()).prop_map(|(p, b)| ChipOp::ProgramSealed(p, b, true)),
            3 => (0u64..3, any::<u8>()).prop_map(|(k, b)| ChipOp::FillNext(k, b)),
        ]
    }

    proptest::proptest! {
        #[test]
        fn compact_storage_behaves_as_plain_pages(ops in proptest::collection::vec(chip_op(), 0..120)) {
            behaves_as_plain_pages(ops)?;
        }

        #[test]
        fn blocks_filled_with_spares_behave_as_plain_pages(ops in proptest::collection::vec(ftl_chip_op(), 0..120)) {
            behaves_as_plain_pages(ops)?;
        }
    }

    /// The chip against plain per-page state, operation by operation.
    #[rustfmt::skip]
    fn behaves_as_plain_pages(ops: Vec<ChipOp>) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
        // 5 spare bytes: one partial word in the compact encoding.
        let g = Geometry { page_size: 16, pages_per_block: 4, blocks: 3, spare_size: 5, nop: 3, endurance: 4 };
        let mut n = Nand::new("model", g, CostModel::FREE).unwrap();
        let fresh = PlainPage { data: vec![0xFF; 16], spare: vec![0xFF; 5], ..PlainPage::default() };
        let mut pages = vec![fresh.clone(); 12];
        let mut erases = [0u64; 3];
        let mut hints = [u32::MAX; 12];
        for op in ops {
            let op = match op {
                ChipOp::FillNext(block, b) => {
                    let page = (block * 4..block * 4 + 4)
                        .find(|&p| pages[p as usize].programs == 0)
                        .unwrap_or(block * 4 + 3);
                    ChipOp::ProgramSealed(page, b, true)
                }
                op => op,
            };
            let (op, sealed_program) = match op {
                ChipOp::ProgramSealed(p, b, spare) => (ChipOp::Program(p, 0, 16, b), Some(spare)),
                op => (op, None),
            };
            match op {
                ChipOp::ProgramSealed(..) | ChipOp::FillNext(..) => unreachable!("made a Program above"),
                ChipOp::Program(page, off, len, b) => {
                    let data: Vec<u8> = (0..len as u8).map(|i| b.wrapping_add(i)).collect();
                    let spare: Vec<u8> = (0..5u8).map(|i| b ^ i.wrapping_mul(37)).collect();
                    let with_spare = sealed_program == Some(true);
                    let got = match sealed_program {
                        // An empty spare program leaves the spare erased.
                        Some(s) => n.program_page_and_spare(
                            page,
                            &data,
                            if s { &spare } else { &[] },
                            true,
                            &mut hints[page as usize],
                        ),
                        None => n.program(page, off, &data),
                    };
                    let p = &mut pages[page as usize];
                    let whole = off == 0 && len == 16;
                    let want = if erases[(page / 4) as usize] >= 4 {
                        Err("bad")
                    } else if p.programs >= 3 {
                        Err("nop")
                    } else if p.programs > 0
                        && (p.released
                            || p.ranges.as_ref().is_none_or(|r| whole || r.iter().any(|&(s, e)| off < e && s < off + len)))
                    {
                        Err("not erased")
                    } else {
                        p.data[off..off + len].copy_from_slice(&data);
                        p.programs += 1;
                        if whole {
                            p.ranges = None;
                        } else {
                            p.ranges.get_or_insert_with(Vec::new).push((off, off + len));
                        }
                        // The spare is programmed after the data, whose
                        // program stays if the spare's then fails.
                        if !with_spare {
                            Ok(())
                        } else if p.spare.iter().any(|&x| x != 0xFF) {
                            Err("not erased")
                        } else {
                            p.spare.copy_from_slice(&spare);
                            Ok(())
                        }
                    };
                    let got = got.map_err(|e| match e {
                        DeviceError::BadBlock { .. } => "bad",
                        DeviceError::NopExceeded { .. } => "nop",
                        DeviceError::NotErased { .. } => "not erased",
                        _ => "other",
                    });
                    proptest::prop_assert_eq!(got, want);
                }
                ChipOp::ProgramSpare(page, len, b) => {
                    let data = vec![b; len];
                    let got = n.program_spare(page, &data).map_err(|e| match e {
                        DeviceError::OutOfRange { .. } => "range",
                        DeviceError::BadBlock { .. } => "bad",
                        DeviceError::NotErased { .. } => "not erased",
                        _ => "other",
                    });
                    let p = &mut pages[page as usize];
                    let want = if len > 5 {
                        Err("range")
                    } else if erases[(page / 4) as usize] >= 4 {
                        Err("bad")
                    } else if p.spare[..len].iter().any(|&x| x != 0xFF) {
                        Err("not erased")
                    } else {
                        p.spare[..len].copy_from_slice(&data);
                        Ok(())
                    };
                    proptest::prop_assert_eq!(got, want);
                }
                ChipOp::Read(page) => {
                    let mut buf = [0u8; 16];
                    n.read(page, 0, &mut buf).unwrap();
                    let p = &pages[page as usize];
                    let want = if p.programs == 0 {
                        vec![0xFF; 16]
                    } else if p.released {
                        vec![0; 16]
                    } else {
                        p.data.clone()
                    };
                    proptest::prop_assert_eq!(buf.to_vec(), want);
                    // Through a hint (the one this page was left, another
                    // page's, none): the bytes, answer and charge of the
                    // plain read, whatever the hint.
                    let at = page as usize;
                    for (which, hint) in [(at, hints[at]), (12, hints[(at + 1) % 12]), (12, u32::MAX)] {
                        let mut plain = [0u8; 16];
                        let before = n.stats();
                        let sealed = n.read_sealed(page, &mut plain).unwrap();
                        let plain_charge = n.stats().time_us - before.time_us;
                        let mut hinted = [0u8; 16];
                        let mut h = hint;
                        let before = n.stats();
                        let hinted_sealed = n.read_sealed_hinted(page, &mut h, &mut hinted).unwrap();
                        proptest::prop_assert_eq!(n.stats().time_us - before.time_us, plain_charge);
                        proptest::prop_assert_eq!(n.stats().physical_reads, before.physical_reads + 1);
                        proptest::prop_assert_eq!(hinted, plain);
                        proptest::prop_assert_eq!(hinted_sealed, sealed);
                        if which < 12 {
                            hints[which] = h;
                        }
                    }
                }
                ChipOp::ReadSpare(page) => {
                    let mut buf = [0u8; 7];
                    n.read_spare(page, &mut buf).unwrap();
                    let mut want = pages[page as usize].spare.clone();
                    want.extend([0xFF, 0xFF]);
                    proptest::prop_assert_eq!(buf.to_vec(), want);
                }
                ChipOp::Erase(block) => {
                    let got = n.erase(block).is_ok();
                    proptest::prop_assert_eq!(got, erases[block as usize] < 4);
                    if got {
                        erases[block as usize] += 1;
                        for p in &mut pages[(block * 4) as usize..(block * 4 + 4) as usize] {
                            *p = fresh.clone();
                        }
                    }
                }
                ChipOp::Release(page) => {
                    n.release(page);
                    let p = &mut pages[page as usize];
                    if p.programs > 0 {
                        p.released = true;
                    }
                }
            }
            let resident = pages.iter().filter(|p| p.programs > 0 && !p.released).count();
            proptest::prop_assert_eq!(n.resident_pages(), resident);
        }
        Ok(())
    }
}
