//! A page-mapping flash translation layer ([`BlockDevice`] over a [`Flash`]
//! chip): the "FTL" that BFTL sits on (Wu et al. 2003 §2, Fig. 5) and that the
//! B+-tree baselines write through in place.
//!
//! Every logical write goes out of place to the next free page of the active
//! block; the previous physical copy becomes invalid. When free blocks run
//! short, garbage collection picks a victim block, copies its valid pages and
//! erases it. Victim selection is **greedy** (fewest valid pages, as in the
//! BFTL paper's experiments) or **cost-benefit** (Kawaguchi et al. 1995:
//! maximise `age · (1 − u) / 2u`).
//!
//! On-flash format: the data area of a physical page holds the logical page's
//! bytes unchanged. Its spare area holds
//!
//! | bytes | field |
//! |---|---|
//! | 0..8  | logical page number (LBA), little-endian `u64` |
//! | 8..16 | write sequence number, little-endian `u64`, strictly increasing |
//!
//! so [`Ftl::mount`] can rebuild the mapping after the RAM tables are lost:
//! for every LBA the copy with the highest sequence number wins.
//!
//! Invariants:
//! 1. `l2p[lba]` is the only valid physical copy of `lba`. Once garbage
//!    collection has begun (`gc_tables`), `p2l` maps it back and a block's
//!    `p2l` table exists exactly when its `valid` count is positive.
//! 2. A block's `valid` count equals the number of physical pages in it that
//!    some `l2p` entry points to.
//! 3. At least `RESERVE_BLOCKS` free blocks exist whenever a host write asks
//!    for a page, so garbage collection always has room to copy into.
//! 4. Logical capacity ≤ (blocks − RESERVE_BLOCKS − 1) · pages_per_block, so
//!    a full logical space still leaves invalid pages for GC to reclaim: a
//!    full device is reported as [`DeviceError::Full`], never a hang.
//!
//! Memory grows with what is written: the mapping tables grow to the highest
//! LBA and the highest block used, never to the device size up front, and
//! the reverse map is kept only for blocks holding valid pages (a chip that
//! never collects garbage would otherwise keep 8 bytes for every page ever
//! written). A page read passes the chip a hint kept per LBA (4 bytes,
//! grown to the highest LBA read or written): where the chip put or last
//! found the page, which spares it a table look-up (a cache miss before
//! the page's own) when the chip confirms it still holds (`Nand`'s slab).
//!
//! Garbage collection's own tables, the reverse map and the sealed blocks
//! by valid count (`SealedBlocks`), are built from `l2p` and the block
//! records when the first collection needs a victim, and kept up to date
//! from then on (`gc_tables`). Before that, a write only counts the page it
//! invalidates: on a chip that never fills (`flashix bench`'s 64 GiB) the
//! two tables were two to six scattered cache lines a write (the reverse
//! map alone 8 MiB at 10^6 inserts) for nothing. Building them later gives
//! the same victims: greedy takes the lowest block of the fewest valid
//! pages and cost-benefit breaks ties the same way, whatever order the
//! buckets were filled in.

use std::collections::VecDeque;

use super::divisor::Divisor;
use super::sealed::SealedBlocks;
use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Flash, Geometry, Result, Wear};

const UNMAPPED: u64 = u64::MAX;
/// Free blocks kept back for garbage collection to copy into.
pub const RESERVE_BLOCKS: u64 = 2;
const SPARE_BYTES: usize = 16;

/// Victim selection of garbage collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcPolicy {
    /// The block with the fewest valid pages.
    Greedy,
    /// Kawaguchi's cost-benefit: the largest `age · (1 − u) / 2u`.
    CostBenefit,
}

impl std::str::FromStr for GcPolicy {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "greedy" => Ok(GcPolicy::Greedy),
            "cost-benefit" | "cb" => Ok(GcPolicy::CostBenefit),
            _ => Err(format!(
                "unknown gc policy `{s}`: use greedy or cost-benefit"
            )),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    Free,
    Active,
    Sealed,
    Bad,
}

#[derive(Clone, Copy, Debug)]
struct BlockMeta {
    valid: u32,
    state: BlockState,
    /// Sequence number of the last page programmed into the block (its age
    /// for cost-benefit).
    last_seq: u64,
}

/// FTL configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FtlConfig {
    /// Fraction of the physical space hidden from the host (0 ≤ op < 1).
    pub overprovision: f64,
    pub gc: GcPolicy,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            overprovision: 0.07,
            gc: GcPolicy::Greedy,
        }
    }
}

/// Logical pages an FTL of `config` offers over a chip of geometry `g`
/// (invariant 4: the reserve and one active block are never offered).
pub fn logical_capacity(g: &Geometry, config: &FtlConfig) -> u64 {
    let usable = g.blocks.saturating_sub(RESERVE_BLOCKS + 1);
    ((usable * g.pages_per_block as u64) as f64 * (1.0 - config.overprovision)).floor() as u64
}

/// A page-mapping FTL over a chip.
pub struct Ftl<F: Flash> {
    flash: F,
    config: FtlConfig,
    page_size: usize,
    ppb: u64,
    /// Splits a physical page number into block and page.
    block_of: Divisor,
    blocks: u64,
    capacity: u64,
    l2p: Vec<u64>,
    /// Per LBA: where the chip put or last found its page
    /// ([`Flash::read_sealed_hinted`]), grown to the highest LBA read or
    /// written. A hint is the chip's to check, so it is never invalidated
    /// here.
    read_hints: Vec<u32>,
    /// Per block: the LBA of each page, or `UNMAPPED` (invariant 1).
    p2l: Vec<Option<Box<[u64]>>>,
    meta: Vec<BlockMeta>,
    /// Erased blocks ready for use (blocks never used lie above `meta.len()`).
    free: VecDeque<u64>,
    /// Sealed blocks by valid pages: garbage collection's candidates.
    sealed: SealedBlocks,
    /// Whether `p2l` and `sealed` are kept (from the first collection on).
    gc_tables: bool,
    active: Option<(u64, u64)>,
    seq: u64,
    stats: DeviceStats,
    page_buf: Vec<u8>,
    gc_buf: Vec<u8>,
    mapped: u64,
}

impl<F: Flash> std::fmt::Debug for Ftl<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ftl")
            .field("capacity_pages", &self.capacity)
            .field("mapped", &self.mapped)
            .finish()
    }
}

impl<F: Flash> Ftl<F> {
    /// A new FTL over an erased chip.
    pub fn new(flash: F, config: FtlConfig) -> Result<Self> {
        let g = flash.geometry();
        if !(0.0..1.0).contains(&config.overprovision) {
            return Err(DeviceError::Config(format!(
                "overprovision must be in [0, 1), got {}",
                config.overprovision
            )));
        }
        if (g.spare_size as usize) < SPARE_BYTES {
            return Err(DeviceError::Config(format!(
                "the FTL needs {SPARE_BYTES} spare bytes per page, the chip has {}",
                g.spare_size
            )));
        }
        let capacity = logical_capacity(&g, &config);
        if capacity == 0 {
            return Err(DeviceError::Config(format!(
                "{} blocks leave no logical space: the FTL keeps {} blocks for garbage collection",
                g.blocks,
                RESERVE_BLOCKS + 1
            )));
        }
        Ok(Ftl {
            page_size: g.page_size as usize,
            ppb: g.pages_per_block as u64,
            block_of: Divisor::new(g.pages_per_block as u64),
            blocks: g.blocks,
            capacity,
            flash,
            config,
            l2p: Vec::new(),
            read_hints: Vec::new(),
            p2l: Vec::new(),
            meta: Vec::new(),
            free: VecDeque::new(),
            sealed: SealedBlocks::new(g.pages_per_block as u64),
            gc_tables: false,
            active: None,
            seq: 0,
            stats: DeviceStats::default(),
            page_buf: vec![0u8; g.page_size as usize],
            gc_buf: vec![0u8; g.page_size as usize],
            mapped: 0,
        })
    }

    /// Rebuilds the FTL from a chip that an FTL wrote before, by scanning
    /// the spare areas (newest sequence number wins). Scanning is charged
    /// as spare reads.
    pub fn mount(flash: F, config: FtlConfig) -> Result<Self> {
        let mut ftl = Ftl::new(flash, config)?;
        let mut spare = [0u8; SPARE_BYTES];
        let mut newest: Vec<(u64, u64)> = Vec::new(); // lba -> (seq, ppa)
        let mut used_blocks = 0u64;
        for block in 0..ftl.blocks {
            let first = block * ftl.ppb;
            ftl.flash.read_spare(first, &mut spare)?;
            // Blocks are filled from page 0, so a block whose first page is
            // erased holds nothing; erased blocks may lie below used ones
            // (GC frees them), so the scan goes to the last block.
            if spare.iter().any(|&b| b != 0xFF) || ftl.torn(first)? {
                used_blocks = block + 1;
            }
        }
        ftl.grow_blocks(used_blocks);
        for block in 0..used_blocks {
            let mut programmed = 0u64;
            for i in 0..ftl.ppb {
                let ppa = block * ftl.ppb + i;
                ftl.flash.read_spare(ppa, &mut spare)?;
                if spare.iter().all(|&b| b == 0xFF) {
                    // A program the power cut short leaves data without its
                    // spare record: no mapping, but the page cannot take
                    // another program before an erase.
                    if ftl.torn(ppa)? {
                        programmed = i + 1;
                    }
                    break;
                }
                programmed = i + 1;
                // Invariant: both ranges are 8 bytes of the 16-byte spare.
                let lba = u64::from_le_bytes(spare[0..8].try_into().expect("8 bytes"));
                let seq = u64::from_le_bytes(spare[8..16].try_into().expect("8 bytes"));
                if lba >= ftl.capacity {
                    return Err(DeviceError::Corrupt {
                        page: ppa,
                        detail: format!(
                            "spare area names LBA {lba} beyond capacity {}",
                            ftl.capacity
                        ),
                    });
                }
                ftl.seq = ftl.seq.max(seq + 1);
                let idx = lba as usize;
                if newest.len() <= idx {
                    newest.resize(idx + 1, (0, UNMAPPED));
                }
                if newest[idx].1 == UNMAPPED || newest[idx].0 < seq {
                    newest[idx] = (seq, ppa);
                }
                ftl.meta[block as usize].last_seq = ftl.meta[block as usize].last_seq.max(seq);
            }
            let m = &mut ftl.meta[block as usize];
            if ftl.flash.is_bad(block) {
                m.state = BlockState::Bad;
            } else if programmed == 0 {
                m.state = BlockState::Free;
                ftl.free.push_back(block);
            } else {
                // Provisionally active so that `map` below does not touch the
                // sealed set; sealed once its valid count is final.
                m.state = BlockState::Active;
            }
        }
        for (lba, &(_, ppa)) in newest.iter().enumerate() {
            if ppa != UNMAPPED {
                ftl.map(lba as u64, ppa);
            }
        }
        for block in 0..used_blocks {
            let m = &mut ftl.meta[block as usize];
            if m.state == BlockState::Active {
                // A partly written block is sealed too: its erased tail is
                // reclaimed by the next erase. (The sealed set is built when
                // garbage collection first needs it.)
                m.state = BlockState::Sealed;
            }
        }
        Ok(ftl)
    }

    /// Whether `ppa`, whose spare is erased, holds programmed data bytes (a
    /// torn program). Read only where a scan stops, once per block.
    fn torn(&mut self, ppa: u64) -> Result<bool> {
        let mut data = vec![0u8; self.flash.geometry().page_size as usize];
        self.flash.read(ppa, 0, &mut data)?;
        Ok(data.iter().any(|&b| b != 0xFF))
    }

    /// The chip underneath.
    pub fn flash(&self) -> &F {
        &self.flash
    }

    /// Gives the chip back (to mount it again, as after a power cut).
    pub fn into_flash(self) -> F {
        self.flash
    }

    /// Logical pages currently mapped.
    pub fn mapped_pages(&self) -> u64 {
        self.mapped
    }

    /// The physical page holding the valid copy of `lba`, if it is mapped:
    /// lets a test follow data through garbage collection.
    pub fn physical_page(&self, lba: u64) -> Option<u64> {
        Some(self.l2p_get(lba)).filter(|&p| p != UNMAPPED)
    }

    fn grow_blocks(&mut self, upto: u64) {
        while (self.meta.len() as u64) < upto {
            self.meta.push(BlockMeta {
                valid: 0,
                state: BlockState::Free,
                last_seq: 0,
            });
        }
        if (self.p2l.len() as u64) < upto {
            self.p2l.resize_with(upto as usize, || None);
        }
    }

    fn free_blocks(&self) -> u64 {
        self.free.len() as u64 + (self.blocks - self.meta.len() as u64)
    }

    fn take_free_block(&mut self) -> Option<u64> {
        if let Some(b) = self.free.pop_front() {
            return Some(b);
        }
        let next = self.meta.len() as u64;
        if next < self.blocks {
            self.grow_blocks(next + 1);
            return Some(next);
        }
        None
    }

    fn l2p_get(&self, lba: u64) -> u64 {
        self.l2p.get(lba as usize).copied().unwrap_or(UNMAPPED)
    }

    /// Points `lba` at `ppa`, invalidating the previous copy.
    fn map(&mut self, lba: u64, ppa: u64) {
        let block = self.block_of.split(ppa).0;
        self.map_in(lba, ppa, block, None);
    }

    /// [`Self::map`], given `ppa`'s block, and given `seq`, the block's
    /// `last_seq` set too. The new entry is stored before the old copy is
    /// invalidated, which reads no `l2p` entry. A program's `last_seq` is
    /// set here, with `valid`, in one look-up of the block's record, not
    /// before the invalidation in one of its own: nothing between reads
    /// `last_seq` (only garbage collection's choice of a victim does).
    #[inline(always)]
    fn map_in(&mut self, lba: u64, ppa: u64, block: u64, seq: Option<u64>) {
        let idx = lba as usize;
        if self.l2p.len() <= idx {
            self.l2p.resize(idx + 1, UNMAPPED);
        }
        let old = std::mem::replace(&mut self.l2p[idx], ppa);
        if old != UNMAPPED {
            self.invalidate(old);
        } else {
            self.mapped += 1;
        }
        let m = &mut self.meta[block as usize];
        if let Some(seq) = seq {
            m.last_seq = seq;
        }
        m.valid += 1;
        if self.gc_tables {
            if m.state == BlockState::Sealed {
                self.sealed.reclassify(block, m.valid - 1, m.valid);
            }
            self.p2l_set(ppa, lba);
        }
    }

    fn p2l_set(&mut self, ppa: u64, lba: u64) {
        let ppb = self.ppb as usize;
        let (block, i) = self.block_of.split(ppa);
        self.p2l[block as usize].get_or_insert_with(|| vec![UNMAPPED; ppb].into_boxed_slice())[i] =
            lba;
    }

    /// Always inlined, with the chip's release, into the write that
    /// invalidates the copy (one call of each a write).
    #[inline(always)]
    fn invalidate(&mut self, ppa: u64) {
        let (block, i) = self.block_of.split(ppa);
        let m = &mut self.meta[block as usize];
        m.valid -= 1;
        if self.gc_tables {
            if m.state == BlockState::Sealed {
                self.sealed.reclassify(block, m.valid + 1, m.valid);
            }
            if m.valid == 0 {
                self.p2l[block as usize] = None;
            } else if let Some(table) = self.p2l[block as usize].as_mut() {
                table[i] = UNMAPPED;
            }
        }
        self.flash.release(ppa);
    }

    /// Builds garbage collection's tables from the mapping and the block
    /// records (see the module docs), once.
    fn build_gc_tables(&mut self) {
        if self.gc_tables {
            return;
        }
        self.gc_tables = true;
        for lba in 0..self.l2p.len() {
            let ppa = self.l2p[lba];
            if ppa != UNMAPPED {
                self.p2l_set(ppa, lba as u64);
            }
        }
        for (block, m) in self.meta.iter().enumerate() {
            if m.state == BlockState::Sealed {
                self.sealed.insert(block as u64, m.valid);
            }
        }
    }

    /// The LBA whose valid copy `ppa` holds, or `UNMAPPED`.
    fn p2l_get(&self, ppa: u64) -> u64 {
        let (block, i) = self.block_of.split(ppa);
        self.p2l
            .get(block as usize)
            .and_then(|t| t.as_ref())
            .map_or(UNMAPPED, |t| t[i])
    }

    /// The next physical page to program, and its block (known here, so
    /// not split out of the page again). Host writes keep the reserve
    /// (invariant 3) by collecting garbage first; GC copies may use it.
    #[inline]
    fn next_page(&mut self, for_gc: bool) -> Result<(u64, u64)> {
        // The common case, a page left in the active block, without the
        // call: 31 of 32 writes of `flashix bench`.
        match self.next_active_page() {
            Some(ppa) => Ok(ppa),
            None => self.next_page_new_block(for_gc),
        }
    }

    /// The active block's next free page, taken, and the block, if it has
    /// one.
    #[inline(always)]
    fn next_active_page(&mut self) -> Option<(u64, u64)> {
        let (block, next) = self.active?;
        (next < self.ppb).then(|| {
            self.active = Some((block, next + 1));
            (block * self.ppb + next, block)
        })
    }

    /// [`Self::next_page`] when the active block is full or there is none.
    #[inline(never)]
    fn next_page_new_block(&mut self, for_gc: bool) -> Result<(u64, u64)> {
        loop {
            if let Some(next) = self.next_active_page() {
                return Ok(next);
            }
            if let Some((block, _)) = self.active {
                let m = &mut self.meta[block as usize];
                m.state = BlockState::Sealed;
                if self.gc_tables {
                    self.sealed.insert(block, m.valid);
                }
                self.active = None;
            }
            if !for_gc && self.free_blocks() <= RESERVE_BLOCKS {
                // GC copies may open a new active block; look again before
                // taking one, or that block would be lost unsealed.
                self.collect_garbage()?;
                continue;
            }
            let block = self.take_free_block().ok_or_else(|| DeviceError::Full {
                detail: "no erased block is left for garbage collection to copy into".into(),
            })?;
            self.meta[block as usize].state = BlockState::Active;
            self.active = Some((block, 0));
        }
    }

    fn pick_victim(&self) -> Option<u64> {
        match self.config.gc {
            GcPolicy::Greedy => self.sealed.fewest_valid(),
            GcPolicy::CostBenefit => {
                let now = self.seq as f64;
                // The best score; ties go to the lowest (valid, block), the
                // order the candidates had when they were an ordered set.
                let mut best: Option<(f64, u32, u64)> = None;
                for (valid, block) in self.sealed.iter() {
                    let u = valid as f64 / self.ppb as f64;
                    let age = now - self.meta[block as usize].last_seq as f64 + 1.0;
                    let score = if valid == 0 {
                        f64::INFINITY
                    } else {
                        age * (1.0 - u) / (2.0 * u)
                    };
                    if best.is_none_or(|(s, v, b)| {
                        score > s || (score == s && (valid, block) < (v, b))
                    }) {
                        best = Some((score, valid, block));
                    }
                }
                best.map(|(_, _, b)| b)
            }
        }
    }

    /// Reclaims one block: copies its valid pages and erases it.
    fn collect_garbage(&mut self) -> Result<()> {
        self.build_gc_tables();
        let victim = self.pick_victim().ok_or_else(|| DeviceError::Full {
            detail: "no block can be reclaimed".into(),
        })?;
        let valid = self.meta[victim as usize].valid;
        if valid as u64 >= self.ppb {
            return Err(DeviceError::Full {
                detail: "every block holds only valid pages".into(),
            });
        }
        self.sealed.remove(victim, valid);
        self.meta[victim as usize].state = BlockState::Free; // not a candidate while copied
        let first = victim * self.ppb;
        // Its own buffer: a host write holds `page_buf` while GC runs.
        let mut buf = std::mem::take(&mut self.gc_buf);
        for ppa in first..first + self.ppb {
            let lba = self.p2l_get(ppa);
            if lba == UNMAPPED {
                continue;
            }
            let copied = self
                .flash
                .read(ppa, 0, &mut buf)
                .and_then(|_| self.program_copy(lba, &buf));
            if let Err(e) = copied {
                self.gc_buf = buf;
                return Err(e);
            }
            self.stats.gc_copies += 1;
        }
        self.gc_buf = buf;
        self.flash.erase(victim)?;
        let m = &mut self.meta[victim as usize];
        m.valid = 0;
        m.last_seq = 0;
        if self.flash.is_bad(victim) {
            m.state = BlockState::Bad;
        } else {
            m.state = BlockState::Free;
            self.free.push_back(victim);
        }
        Ok(())
    }

    fn program_copy(&mut self, lba: u64, data: &[u8]) -> Result<()> {
        let next = self.next_page(true)?;
        self.program_at(next, lba, data, false)
    }

    /// Programs `data` (a whole page) at `next`, a page and its block
    /// ([`Self::next_page`]), for `lba`; `sealed` as
    /// [`Flash::program_sealed`] says. Always inlined: a page write is
    /// then one call from the node store down to the page copy.
    #[inline(always)]
    fn program_at(&mut self, next: (u64, u64), lba: u64, data: &[u8], sealed: bool) -> Result<()> {
        let (ppa, block) = next;
        let mut spare = [0u8; SPARE_BYTES];
        spare[0..8].copy_from_slice(&lba.to_le_bytes());
        spare[8..16].copy_from_slice(&self.seq.to_le_bytes());
        let hint = hint_of(&mut self.read_hints, lba);
        self.flash
            .program_page_and_spare(ppa, data, &spare, sealed, hint)?;
        let seq = self.seq;
        self.seq += 1;
        self.map_in(lba, ppa, block, Some(seq));
        Ok(())
    }

    fn check(&self, lba: u64, offset: usize, len: usize) -> Result<()> {
        super::check_access(
            "logical page",
            lba,
            self.capacity,
            offset,
            len,
            self.page_size,
        )
    }
}

/// `lba`'s entry in the read hints, which grow to cover it (no hint yet:
/// `u32::MAX`).
#[inline]
fn hint_of(hints: &mut Vec<u32>, lba: u64) -> &mut u32 {
    let at = lba as usize;
    if at < hints.len() {
        // One range check: the index's is known to pass.
        return &mut hints[at];
    }
    grow_hints(hints, at);
    &mut hints[at]
}

/// Out of line: it runs when the highest LBA so far is first used.
#[cold]
#[inline(never)]
fn grow_hints(hints: &mut Vec<u32>, at: usize) {
    hints.resize(at + 1, u32::MAX);
}

impl<F: Flash> BlockDevice for Ftl<F> {
    fn try_clone_box(&self) -> Option<Box<dyn BlockDevice>> {
        Some(Box::new(self.try_clone_same()?))
    }

    /// The tables copied and the chip copied by its own
    /// [`Flash::try_clone_same`].
    fn try_clone_same(&self) -> Option<Self> {
        Some(Ftl {
            flash: self.flash.try_clone_same()?,
            config: self.config,
            page_size: self.page_size,
            ppb: self.ppb,
            block_of: self.block_of,
            blocks: self.blocks,
            capacity: self.capacity,
            l2p: self.l2p.clone(),
            read_hints: self.read_hints.clone(),
            p2l: self.p2l.clone(),
            meta: self.meta.clone(),
            free: self.free.clone(),
            sealed: self.sealed.clone(),
            gc_tables: self.gc_tables,
            active: self.active,
            seq: self.seq,
            stats: self.stats,
            page_buf: self.page_buf.clone(),
            gc_buf: self.gc_buf.clone(),
            mapped: self.mapped,
        })
    }

    fn page_size(&self) -> usize {
        self.page_size
    }

    fn capacity_pages(&self) -> u64 {
        self.capacity
    }

    fn pages_per_block(&self) -> u32 {
        self.ppb as u32
    }

    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(lba, offset, buf.len())?;
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        let ppa = self.l2p_get(lba);
        if ppa == UNMAPPED {
            buf.fill(0);
            return Ok(());
        }
        self.flash.read(ppa, offset, buf)
    }

    fn read_sealed(&mut self, lba: u64, buf: &mut [u8]) -> Result<bool> {
        self.check(lba, 0, buf.len())?;
        self.stats.logical_reads += 1;
        self.stats.bytes_read += buf.len() as u64;
        let ppa = self.l2p_get(lba);
        if ppa == UNMAPPED {
            buf.fill(0);
            return Ok(false);
        }
        // `lba` is mapped: the table grows no further than `l2p`.
        let hint = hint_of(&mut self.read_hints, lba);
        self.flash.read_sealed_hinted(ppa, hint, buf)
    }

    fn write_sealed(&mut self, lba: u64, data: &[u8]) -> Result<()> {
        if data.len() != self.page_size {
            return self.write(lba, 0, data);
        }
        self.check(lba, 0, data.len())?;
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        let next = self.next_page(false)?;
        self.program_at(next, lba, data, true)
    }

    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.check(lba, offset, data.len())?;
        self.stats.logical_writes += 1;
        self.stats.bytes_written += data.len() as u64;
        if offset == 0 && data.len() == self.page_size {
            // A whole page goes to the chip as it is, not through `page_buf`.
            let next = self.next_page(false)?;
            return self.program_at(next, lba, data, false);
        }
        let mut page = std::mem::take(&mut self.page_buf);
        let result = (|| {
            // Read-modify-write: the chip cannot update part of a
            // programmed page in place.
            let old = self.l2p_get(lba);
            if old == UNMAPPED {
                page.fill(0);
            } else {
                self.flash.read(old, 0, &mut page)?;
            }
            page[offset..offset + data.len()].copy_from_slice(data);
            let next = self.next_page(false)?;
            self.program_at(next, lba, &page, false)
        })();
        self.page_buf = page;
        result
    }

    fn trim(&mut self, lba: u64) -> Result<()> {
        self.check(lba, 0, 0)?;
        self.stats.logical_trims += 1;
        let ppa = self.l2p_get(lba);
        if ppa != UNMAPPED {
            self.invalidate(ppa);
            self.l2p[lba as usize] = UNMAPPED;
            self.mapped -= 1;
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    fn stats(&self) -> DeviceStats {
        let mut s = self.flash.stats();
        s.logical_reads = self.stats.logical_reads;
        s.logical_writes = self.stats.logical_writes;
        s.logical_trims = self.stats.logical_trims;
        s.bytes_read = self.stats.bytes_read;
        s.bytes_written = self.stats.bytes_written;
        s.gc_copies = self.stats.gc_copies;
        s
    }

    fn wear(&self) -> Option<Wear> {
        Some(self.flash.wear())
    }

    fn info(&self) -> DeviceInfo {
        let mut info = self.flash.info();
        info.kind = "ftl".into();
        info.capacity_pages = self.capacity;
        // `map` grows `l2p` to exactly the highest LBA written.
        info.footprint_pages = Some(self.l2p.len() as u64);
        info.mapped_pages = Some(self.mapped);
        info.notes.push(format!(
            "page-mapping FTL, {} GC, over-provisioning {:.0}%",
            match self.config.gc {
                GcPolicy::Greedy => "greedy",
                GcPolicy::CostBenefit => "cost-benefit",
            },
            self.config.overprovision * 100.0
        ));
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{cost::CostModel, Geometry, Nand};

    #[test]
    fn valid_counts_and_sealed_set_match_the_mapping_through_gc() {
        let g = Geometry {
            page_size: 512,
            pages_per_block: 32,
            blocks: 16,
            spare_size: 16,
            nop: 4,
            endurance: 100_000,
        };
        let mut ftl = Ftl::new(
            Nand::new("t", g, CostModel::FREE).unwrap(),
            FtlConfig {
                overprovision: 0.0,
                gc: GcPolicy::Greedy,
            },
        )
        .unwrap();
        let data = vec![0u8; 512];
        let live = ftl.capacity * 95 / 100;
        for i in 0..20_000u64 {
            let lba = if i < live { i } else { (i * 7919) % live };
            ftl.write(lba, 0, &data).unwrap_or_else(|e| {
                panic!(
                    "write {i}: {e}; {:?}",
                    ftl.meta
                        .iter()
                        .map(|m| (m.valid, m.state))
                        .collect::<Vec<_>>()
                )
            });
            let mut counts = vec![0u32; ftl.meta.len()];
            for &p in ftl.l2p.iter().filter(|&&p| p != UNMAPPED) {
                counts[(p / ftl.ppb) as usize] += 1;
            }
            for (b, m) in ftl.meta.iter().enumerate() {
                assert_eq!(m.valid, counts[b], "block {b} after write {i}");
                if ftl.gc_tables && m.state == BlockState::Sealed {
                    assert!(ftl.sealed.contains(b as u64, m.valid), "sealed set {b} {i}");
                }
            }
            if !ftl.gc_tables {
                // Built by the first collection, from these counts.
                assert_eq!(ftl.sealed.iter().count(), 0);
                continue;
            }
            for (lba, &p) in ftl.l2p.iter().enumerate() {
                if p != UNMAPPED {
                    assert_eq!(ftl.p2l_get(p), lba as u64, "p2l of {p} after {i}");
                }
            }
            for (b, t) in ftl.p2l.iter().enumerate() {
                assert_eq!(
                    t.is_some(),
                    ftl.meta[b].valid > 0,
                    "p2l table {b} after {i}"
                );
            }
            assert_eq!(
                ftl.sealed.iter().count(),
                ftl.meta
                    .iter()
                    .filter(|m| m.state == BlockState::Sealed)
                    .count(),
                "sealed len after {i}"
            );
        }
        assert!(ftl.gc_tables, "the writes reach garbage collection");
    }
}
