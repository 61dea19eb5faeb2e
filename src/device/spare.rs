//! The spare (out-of-band) areas of one simulated erase block, stored
//! compactly: a chip that is written but never erased (a 64 GiB chip under
//! the FTL never collects garbage) keeps the spare area of every page it
//! ever programmed, so at `spare_size` bytes a page they were the largest
//! part of the simulator's memory (16 B of the 35 B a 10^7-insert
//! `flashix bench` kept per page written).
//!
//! Format. The block's bytes start with a *head* of a fixed length that
//! the chip keeps its per-page program counts in (one allocation a block,
//! not two), then the spare records. A spare area of `spare_size` bytes is
//! read as `W = ⌈spare_size / 8⌉` little-endian 64-bit words (the last one
//! padded with zero bytes). The block's first `pages` pages each have a
//! record of `W` LEB128 varints; pages at and above `pages` have erased
//! (0xFF) spares.
//!
//! | record | word `j` holds |
//! |---|---|
//! | page 0 | the word itself, unsigned |
//! | page k ≥ 1 | zigzag(word_k[j] − word_0[j]), wrapping |
//!
//! Deltas from page 0 keep what an FTL writes small (its sequence numbers
//! rise by one a page, its logical page numbers stay below the capacity:
//! about 4 bytes for a 16-byte spare) while appending a page needs only
//! page 0's record.
//!
//! The chip's record of a block (`BlockData`: the head, the spares, a
//! flag), the directory it lives in and the program of a spare area into
//! it are here too, beside the encoding they use, so that `nand.rs`
//! keeps to the chip's rules.
//!
//! Invariants:
//! 1. The encoding is lossless: [`BlockSpares::read`] gives back exactly the
//!    bytes [`BlockSpares::write`] stored, for every page, in any order of
//!    writes (a property test checks it against plain arrays).
//! 2. `bytes` holds the head, then exactly `pages · W` varints; it is
//!    empty only for a block untouched since its erase.

use super::DeviceError;

/// Largest spare area a simulated page can have.
pub const MAX_SPARE: usize = 32;

/// Largest spare area, in 64-bit words.
pub(crate) const MAX_WORDS: usize = 4;

/// Page 0's words of a block, which every append encodes against: a chip
/// filling a block keeps them between appends ([`BlockSpares::write_with_base`])
/// instead of decoding them again each time.
pub(crate) type Base = Option<[u64; MAX_WORDS]>;

/// A head of bytes, then the encoded spare areas, of one block.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockSpares {
    bytes: Vec<u8>,
    head: u32,
    pages: u32,
}

fn words_of(spare: &[u8], out: &mut [u64; MAX_WORDS]) -> usize {
    let n = spare.len().div_ceil(8);
    let mut words = spare.chunks_exact(8);
    for (w, c) in out.iter_mut().zip(words.by_ref()) {
        // A fixed 8-byte copy: a variable-length one is a `memcpy` call.
        *w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    }
    let part = words.remainder();
    if !part.is_empty() {
        let mut b = [0u8; 8];
        b[..part.len()].copy_from_slice(part);
        out[spare.len() / 8] = u64::from_le_bytes(b);
    }
    n
}

fn erased_words(spare_size: usize, out: &mut [u64; MAX_WORDS]) -> usize {
    let ff = [0xFFu8; MAX_WORDS * 8];
    words_of(&ff[..spare_size], out)
}

/// Writes `v` as a varint at `out[at..]` (room for 10 bytes); returns the
/// end.
#[inline(always)]
fn put_varint(out: &mut [u8], mut at: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        out[at] = v as u8 | 0x80;
        at += 1;
        v >>= 7;
    }
    out[at] = v as u8;
    at + 1
}

/// The varint at `*at`, advancing `*at`; 0 past the end (never for bytes
/// this module wrote).
fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        if shift < 64 {
            v |= ((b & 0x7F) as u64) << shift;
        }
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    v
}

fn zigzag(d: u64) -> u64 {
    let d = d as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    ((z >> 1) as i64 ^ -((z & 1) as i64)) as u64
}

impl BlockSpares {
    /// An erased block's, with a zeroed head of `head` bytes.
    pub fn new(head: usize) -> Self {
        BlockSpares {
            bytes: vec![0; head],
            head: head as u32,
            pages: 0,
        }
    }

    /// [`Self::new`], with room for `records` bytes of spare records
    /// after the head: a block an FTL fills, whose every page gets a
    /// spare, then takes no reallocation until [`Self::shrink`] (the
    /// appends' own reservations had cost three a block).
    pub fn with_room(head: usize, records: usize) -> Self {
        let mut bytes = Vec::with_capacity(head + records);
        bytes.resize(head, 0);
        BlockSpares {
            bytes,
            head: head as u32,
            pages: 0,
        }
    }

    /// Whether this is the state of a block untouched since its erase
    /// (`Default`), with no head.
    #[inline]
    pub fn is_untouched(&self) -> bool {
        self.bytes.is_empty()
    }

    #[inline]
    pub fn head(&self) -> &[u8] {
        &self.bytes[..self.head as usize]
    }

    #[inline]
    pub fn head_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.head as usize]
    }

    /// Memory held, for reports and tests.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
    }

    /// Gives back unused capacity (the block will take no more appends).
    pub fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
    }

    #[inline(always)]
    fn append(&mut self, words: &[u64], base: &[u64]) {
        // The record is built on the stack and added in one copy.
        let mut record = [0u8; MAX_WORDS * 10];
        let mut len = 0;
        if self.pages == 0 {
            for &w in words {
                len = put_varint(&mut record, len, w);
            }
        } else {
            for (&w, &b) in words.iter().zip(base) {
                len = put_varint(&mut record, len, zigzag(w.wrapping_sub(b)));
            }
        }
        self.make_room(len);
        self.bytes.extend_from_slice(&record[..len]);
        self.pages += 1;
    }

    /// Room for the next record, of `len` bytes, made as [`Self::append`]
    /// makes it (so the block's memory is the same whichever append
    /// stored it).
    #[inline(always)]
    fn make_room(&mut self, len: usize) {
        // Grown by a few records at a time, not doubled: blocks are many
        // and long lived, and glibc cannot reuse the halves doubling leaves
        // behind. (A record at a time reallocated on nearly every append.)
        // The first delta record reserves room for as many more as the
        // head has pages (the head is one byte a page when the chip keeps
        // its program counts there), most often the block's whole record:
        // a reallocation every four pages was a fifth of a page program.
        let want = if self.pages == 1 {
            len * (self.head as usize).saturating_sub(1).max(4)
        } else {
            len
        };
        if self.bytes.capacity() - self.bytes.len() < want {
            self.bytes
                .reserve_exact(if self.pages == 1 { want } else { len * 4 });
        }
    }

    /// [`Self::write_with_base`] of the page right after the last stored
    /// one (`pages > 0`), given page 0's words: what a chip's page
    /// program does for an FTL filling a block. A spare area of two words
    /// (an FTL's 16 bytes) takes [`Self::append_words`]; any other, the
    /// general append.
    #[inline(always)]
    pub fn append_next(&mut self, spare: &[u8], base: &[u64; MAX_WORDS]) {
        if let Ok(s) = <&[u8; 16]>::try_from(spare) {
            let [a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7] = *s;
            let words = [
                u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
                u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
            ];
            self.append_words::<2, 20>(&words, &[base[0], base[1]]);
            return;
        }
        let mut words = [0u64; MAX_WORDS];
        let n = words_of(spare, &mut words);
        self.append(&words[..n], &base[..n]);
    }

    /// [`Self::append`] of a delta record (`pages > 0`) of `N` words, at
    /// most `R = 10·N` bytes: the same bytes and the same room made, the
    /// words' count known when compiled, and the record copied in as `R`
    /// bytes and cut back to its length where the room is there (a copy
    /// of a length known when compiled is a few moves; one of a length
    /// known only at run time, a call of `memcpy`).
    #[inline(always)]
    fn append_words<const N: usize, const R: usize>(&mut self, words: &[u64; N], base: &[u64; N]) {
        let mut record = [0u8; R];
        let mut len = 0;
        for (&w, &b) in words.iter().zip(base) {
            len = put_varint(&mut record, len, zigzag(w.wrapping_sub(b)));
        }
        let at = self.bytes.len();
        // Room for `R` bytes, past the second record (whose room is made
        // for the block's rest): `make_room` would reserve nothing, as
        // `len <= R`, so it is not asked.
        let room = self.pages != 1 && self.bytes.capacity() - at >= R;
        if !room {
            self.make_room(len);
        }
        if room || self.bytes.capacity() - at >= R {
            // Within the capacity: no reallocation, so the same memory.
            self.bytes.extend_from_slice(&record);
            self.bytes.truncate(at + len);
        } else {
            self.bytes.extend_from_slice(&record[..len]);
        }
        self.pages += 1;
    }

    /// Words of page `i < pages`.
    fn decode(&self, i: usize, n: usize, out: &mut [u64; MAX_WORDS]) {
        let mut at = self.head as usize;
        for w in out.iter_mut().take(n) {
            *w = get_varint(&self.bytes, &mut at);
        }
        if i == 0 {
            return;
        }
        // Skip the records of pages 1..i: a varint ends at a byte < 0x80.
        let mut skip = (i - 1) * n;
        while skip > 0 {
            match self.bytes.get(at) {
                Some(&b) => {
                    at += 1;
                    if b < 0x80 {
                        skip -= 1;
                    }
                }
                None => break,
            }
        }
        for w in out.iter_mut().take(n) {
            *w = w.wrapping_add(unzigzag(get_varint(&self.bytes, &mut at)));
        }
    }

    /// Copies page `i`'s spare area (`out.len()` = spare size) into `out`.
    pub fn read(&self, i: usize, out: &mut [u8]) {
        if i >= self.pages as usize {
            out.fill(0xFF);
            return;
        }
        let mut words = [0u64; MAX_WORDS];
        let n = out.len().div_ceil(8);
        self.decode(i, n, &mut words);
        for (j, chunk) in out.chunks_mut(8).enumerate() {
            chunk.copy_from_slice(&words[j].to_le_bytes()[..chunk.len()]);
        }
    }

    /// Pages with a stored record (every page at or above has an erased
    /// spare).
    #[inline]
    pub fn pages(&self) -> usize {
        self.pages as usize
    }

    /// Stores `spare` (the whole spare area, `spare_size` bytes) as page
    /// `i`'s. Appending (`i` at or past every stored page) costs one
    /// record per page; rewriting an earlier page re-encodes the block.
    #[cfg(test)]
    pub fn write(&mut self, i: usize, spare: &[u8]) {
        self.write_with_base(i, spare, &mut None)
    }

    /// [`Self::write`], given page 0's words in `base` when the caller
    /// kept them from its last write to this block (`None`: decode them),
    /// and leaving them there for its next.
    pub fn write_with_base(&mut self, i: usize, spare: &[u8], base: &mut Base) {
        if let (Some(b), true) = (*base, i == self.pages as usize && self.pages > 0) {
            // The next page of a block being filled, page 0's words at
            // hand: the general case below without its branches (an FTL's
            // every page program but a block's first).
            self.append_next(spare, &b);
            return;
        }
        let mut words = [0u64; MAX_WORDS];
        let n = words_of(spare, &mut words);
        let ss = spare.len();
        let mut erased = [0u64; MAX_WORDS];
        if i >= self.pages as usize {
            if i > self.pages as usize {
                erased_words(ss, &mut erased);
            }
            let b = match *base {
                Some(b) if self.pages > 0 => b,
                _ if self.pages > 0 => {
                    let mut b = [0u64; MAX_WORDS];
                    self.decode(0, n, &mut b);
                    b
                }
                // Page 0 is the first record appended: the erased filler
                // when there is one, else this page.
                _ if i > 0 => erased,
                _ => words,
            };
            while (self.pages as usize) < i {
                self.append(&erased[..n], &b[..n]);
            }
            self.append(&words[..n], &b[..n]);
            *base = Some(b);
            return;
        }
        // Page 0 may change below.
        *base = None;
        let pages = self.pages as usize;
        let mut all = Vec::with_capacity(pages);
        for p in 0..pages {
            let mut w = [0u64; MAX_WORDS];
            self.decode(p, n, &mut w);
            all.push(w);
        }
        all[i] = words;
        self.bytes.truncate(self.head as usize);
        self.pages = 0;
        let base = all[0];
        for w in &all {
            self.append(&w[..n], &base[..n]);
        }
    }
}

/// Blocks per directory chunk.
pub(super) const DIR_CHUNK: usize = 1024;
/// Bytes a page reserved for the spare records of a block an FTL fills
/// (about 4 for an FTL's 16-byte spare, page 0's more).
const SPARE_RECORD_ROOM: usize = 5;

/// The pages of one block; `Default` while the block is untouched since
/// its last erase.
#[derive(Clone, Default)]
pub(super) struct BlockData {
    /// Head: programs since the last erase, per page (0 = erased); then
    /// the spare areas.
    pub(super) spares: BlockSpares,
    /// Some page has byte ranges in `Nand::partial`.
    pub(super) has_partial: bool,
}

impl BlockData {
    pub(super) fn programs(&self, i: usize) -> u8 {
        if self.spares.is_untouched() {
            return 0;
        }
        self.spares.head().get(i).copied().unwrap_or(0)
    }
}

/// `block`'s record in `dir`, its directory chunk allocated and its
/// program counts (`ppb` of them) sized. A function of the directory
/// alone, so that a program can hold the record while it updates the
/// chip's other tables.
#[inline(always)]
pub(super) fn block_entry(
    dir: &mut Vec<Option<Box<[BlockData]>>>,
    block: u64,
    ppb: usize,
    spares: bool,
) -> &mut BlockData {
    let b = block as usize;
    if dir.len() <= b / DIR_CHUNK {
        grow_dir(dir, b / DIR_CHUNK);
    }
    let chunk = dir[b / DIR_CHUNK].get_or_insert_with(new_dir_chunk);
    let data = &mut chunk[b % DIR_CHUNK];
    if data.spares.is_untouched() {
        // A block first touched by a program with a spare area (an FTL's)
        // is made with room for a spare record a page, at about what an
        // FTL's records take; any other with its head alone.
        data.spares = if spares {
            BlockSpares::with_room(ppb, ppb * SPARE_RECORD_ROOM)
        } else {
            BlockSpares::new(ppb)
        };
    }
    data
}

// Out of line (once in `DIR_CHUNK` blocks), so that [`block_entry`] stays
// small enough to inline.
#[cold]
#[inline(never)]
fn grow_dir(dir: &mut Vec<Option<Box<[BlockData]>>>, c: usize) {
    dir.resize_with(c + 1, || None);
}

#[cold]
#[inline(never)]
fn new_dir_chunk() -> Box<[BlockData]> {
    (0..DIR_CHUNK).map(|_| BlockData::default()).collect()
}

/// Programs `data` into the spare area of page `i` (`page` on the chip)
/// of `block`, whose record is `b`; `spare_base` is the chip's
/// `Nand::spare_base`. The checks past the range and bad-block ones.
#[allow(clippy::too_many_arguments)]
pub(super) fn put_spare(
    b: &mut BlockData,
    spare_base: &mut (u64, Base),
    block: u64,
    i: usize,
    page: u64,
    ss: usize,
    ppb: usize,
    data: &[u8],
) -> Result<(), DeviceError> {
    let mut base = match *spare_base {
        (b, base) if b == block => base,
        _ => None,
    };
    let mut spare = [0xFFu8; MAX_SPARE];
    let whole = if i >= b.spares.pages() && data.len() == ss {
        // Past the stored records (erased spares), the whole area: what an
        // FTL's every page program is, stored as given.
        data
    } else {
        // Pages past the stored records have erased spares.
        if i < b.spares.pages() {
            b.spares.read(i, &mut spare[..ss]);
            if spare[..data.len()].iter().any(|&x| x != 0xFF) {
                return Err(DeviceError::NotErased { page });
            }
        }
        spare[..data.len()].copy_from_slice(data);
        &spare[..ss]
    };
    b.spares.write_with_base(i, whole, &mut base);
    if i + 1 == ppb {
        // The last page: an FTL fills blocks in order, so this block's
        // record is complete.
        b.spares.shrink();
    }
    *spare_base = (block, base);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_ftl_block_costs_about_four_bytes_a_page() {
        let mut s = BlockSpares::new(32);
        for i in 0..32u64 {
            let mut spare = [0u8; 16];
            spare[0..8].copy_from_slice(&((i * 7919) % 200_000).to_le_bytes());
            spare[8..16].copy_from_slice(&(5_000_000 + i).to_le_bytes());
            s.write(i as usize, &spare);
        }
        s.shrink();
        assert!(s.heap_bytes() <= 32 + 32 * 5, "{}", s.heap_bytes());
        let mut out = [0u8; 16];
        s.read(31, &mut out);
        assert_eq!(
            u64::from_le_bytes(out[8..16].try_into().unwrap()),
            5_000_031
        );
    }

    proptest! {
        /// A block filled in page order with page 0's words kept (a
        /// chip's appends, `append_next`) holds the same bytes in the same
        /// capacity as one written without them (the general append).
        #[test]
        fn appends_with_a_base_store_what_plain_writes_store(
            spare_size in prop_oneof![Just(16usize), 0usize..=32],
            pages in 1usize..40,
            head in 0usize..40,
            seed in any::<u64>(),
            spread in 0u32..64,
        ) {
            let mut plain = BlockSpares::new(head);
            let mut kept = BlockSpares::new(head);
            let mut base = None;
            let mut x = seed;
            for i in 0..pages {
                let mut v = vec![0u8; spare_size];
                for b in v.iter_mut() {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    *b = (x >> 56) as u8;
                }
                if spread < 60 {
                    // Values near each other, as an FTL writes them.
                    for (k, b) in v.iter_mut().enumerate() {
                        if k % 8 >= (spread as usize % 8).max(1) {
                            *b = 0;
                        }
                    }
                }
                plain.write(i, &v);
                kept.write_with_base(i, &v, &mut base);
                prop_assert_eq!(&plain.bytes, &kept.bytes, "page {}", i);
                prop_assert_eq!(plain.bytes.capacity(), kept.bytes.capacity(), "page {}", i);
            }
        }

        #[test]
        fn matches_plain_arrays(
            spare_size in 0usize..=32,
            writes in proptest::collection::vec((0usize..40, any::<[u8; 32]>(), any::<bool>()), 0..60),
        ) {
            let mut plain = vec![vec![0xFFu8; spare_size]; 40];
            let mut s = BlockSpares::new(3);
            for (page, bytes, small) in writes {
                let mut v = bytes[..spare_size].to_vec();
                if small {
                    // Values near each other, as an FTL writes them.
                    for b in v.iter_mut().skip(2) {
                        *b = 0;
                    }
                }
                s.write(page, &v);
                plain[page] = v;
                for (p, want) in plain.iter().enumerate() {
                    let mut got = vec![0u8; spare_size];
                    s.read(p, &mut got);
                    prop_assert_eq!(&got, want, "page {}", p);
                }
            }
        }
    }
}
