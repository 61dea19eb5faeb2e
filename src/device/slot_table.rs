//! Where the simulated chip keeps each page's bytes: per block, a table of
//! slab slots, one per page.
//!
//! A page read had to find its slot through the block's record (program
//! counts, spare areas) and then a table of its own allocation: two
//! dependent cache misses before the page itself, on every read, in a
//! chip of tens of thousands of written blocks (`flashix bench` spent 12%
//! of its time in `Nand::read` outside the page copy). Here a block's
//! table number sits in a directory of 4-byte entries (128 KiB for the
//! 32,000 blocks of a 10^6-insert bench, so it stays in cache) and the
//! tables lie back to back in one pool: one likely miss before the page.
//!
//! Invariants:
//! 1. A block has a table exactly while some page of it holds a slot
//!    (`resident` of the table is positive); a freed table is all
//!    `NO_SLOT` and is reused before the pool grows.
//! 2. `resident[t]` is the number of entries of table `t` that are not
//!    `NO_SLOT`.

/// No slab slot: the page is erased or was released.
pub(crate) const NO_SLOT: u32 = u32::MAX;
const NO_TABLE: u32 = u32::MAX;
/// Blocks per directory chunk (allocated when a block in it first gets a
/// table, so a huge chip costs nothing until written).
const DIR_CHUNK: usize = 1024;

#[derive(Clone)]
pub(crate) struct SlotTables {
    ppb: usize,
    dir: Vec<Option<Box<[u32]>>>,
    pool: Vec<u32>,
    resident: Vec<u32>,
    free: Vec<u32>,
    /// The block [`Self::set`] last gave a slot in and its table (until
    /// that table is dropped): a chip is filled a block at a time, so a
    /// program finds its table here without the directory's two look-ups.
    last_set: (u64, u32),
}

impl SlotTables {
    pub fn new(pages_per_block: usize) -> Self {
        SlotTables {
            ppb: pages_per_block,
            dir: Vec::new(),
            pool: Vec::new(),
            resident: Vec::new(),
            free: Vec::new(),
            last_set: (u64::MAX, NO_TABLE),
        }
    }

    #[inline(always)]
    fn table(&self, block: u64) -> u32 {
        let b = block as usize;
        match self.dir.get(b / DIR_CHUNK) {
            Some(Some(chunk)) => chunk[b % DIR_CHUNK],
            _ => NO_TABLE,
        }
    }

    /// The slot of page `i` of `block`, or `NO_SLOT`.
    #[inline]
    pub fn get(&self, block: u64, i: usize) -> u32 {
        match self.table(block) {
            NO_TABLE => NO_SLOT,
            t => self
                .pool
                .get(t as usize * self.ppb + i)
                .copied()
                .unwrap_or(NO_SLOT),
        }
    }

    /// Gives page `i` of `block` the slot `slot` if it has none; whether
    /// it took it.
    #[inline(always)]
    pub fn set(&mut self, block: u64, i: usize, slot: u32) -> bool {
        // `last_set` holds `block`'s table while it has one (dropping a
        // table forgets it), so it is the directory's answer.
        let t = match self.last_set {
            (b, t) if b == block => t,
            _ => {
                let t = match self.table(block) {
                    NO_TABLE => self.new_table(block),
                    t => t,
                };
                self.last_set = (block, t);
                t
            }
        };
        let entry = &mut self.pool[t as usize * self.ppb + i];
        if *entry != NO_SLOT {
            return false;
        }
        *entry = slot;
        self.resident[t as usize] += 1;
        true
    }

    /// Gives `block` a table (once a block between erases, out of line so
    /// that [`Self::set`] inlines).
    #[cold]
    #[inline(never)]
    fn new_table(&mut self, block: u64) -> u32 {
        let b = block as usize;
        if self.dir.len() <= b / DIR_CHUNK {
            self.dir.resize_with(b / DIR_CHUNK + 1, || None);
        }
        let chunk = self.dir[b / DIR_CHUNK]
            .get_or_insert_with(|| vec![NO_TABLE; DIR_CHUNK].into_boxed_slice());
        let t = match self.free.pop() {
            Some(t) => t,
            None => {
                self.pool.resize(self.pool.len() + self.ppb, NO_SLOT);
                self.resident.push(0);
                (self.resident.len() - 1) as u32
            }
        };
        chunk[b % DIR_CHUNK] = t;
        t
    }

    /// Takes page `i` of `block`'s slot away (`NO_SLOT` if it had none),
    /// dropping the block's table when it was the last. Always inlined
    /// into the chip's release, once a page write.
    #[inline(always)]
    pub fn take(&mut self, block: u64, i: usize) -> u32 {
        let t = self.table(block);
        if t == NO_TABLE || i >= self.ppb {
            return NO_SLOT;
        }
        let slot = std::mem::replace(&mut self.pool[t as usize * self.ppb + i], NO_SLOT);
        if slot != NO_SLOT {
            self.resident[t as usize] -= 1;
            if self.resident[t as usize] == 0 {
                self.drop_table(block, t);
            }
        }
        slot
    }

    /// Takes every slot of `block` away, passing each to `freed` in page
    /// order.
    pub fn take_all(&mut self, block: u64, mut freed: impl FnMut(u32)) {
        let t = self.table(block);
        if t == NO_TABLE {
            return;
        }
        let table = &mut self.pool[t as usize * self.ppb..(t as usize + 1) * self.ppb];
        table
            .iter()
            .filter(|&&s| s != NO_SLOT)
            .for_each(|&s| freed(s));
        table.fill(NO_SLOT);
        self.resident[t as usize] = 0;
        self.drop_table(block, t);
    }

    #[cold]
    #[inline(never)]
    fn drop_table(&mut self, block: u64, t: u32) {
        if self.last_set.0 == block {
            self.last_set = (u64::MAX, NO_TABLE);
        }
        let b = block as usize;
        if let Some(Some(chunk)) = self.dir.get_mut(b / DIR_CHUNK) {
            chunk[b % DIR_CHUNK] = NO_TABLE;
        }
        self.free.push(t);
    }
}
