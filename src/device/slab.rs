//! The simulated chip's page bytes (`device::nand`): a slab of fixed-size
//! chunks, so a program allocates nothing once slots are being reused.
//! Chunks are 2 MiB, aligned and offered to the kernel as transparent huge
//! pages (why: `device::nand`'s module doc). In a file of its own to keep
//! `nand.rs` within the line limit.
//!
//! Invariant: a slot's `owner` is page `p` exactly while the chip's slot
//! tables (`device::slot_table`) give page `p` that slot; a free slot's is
//! `NO_OWNER`. A slot is handed out only by [`Slab::fresh`] and given back
//! only by [`Slab::free_slot`], which keep it so.

use super::page_copy::PageCopy;

/// `Mark::owner` of a free slot.
const NO_OWNER: u64 = u64::MAX;

/// Bytes per slab chunk (at least one page).
const SLAB_CHUNK_BYTES: usize = 2 * 1024 * 1024;

/// A slab chunk of `SLAB_CHUNK_BYTES` (or a page, if larger), on huge
/// pages where the system gives them.
struct Chunk {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl Chunk {
    fn new(len: usize) -> Chunk {
        const HUGE: usize = 2 * 1024 * 1024;
        let mut buf = vec![0u8; len + HUGE];
        let at = buf.as_ptr().align_offset(HUGE).min(HUGE);
        #[cfg(target_os = "linux")]
        #[allow(unsafe_code)]
        // SAFETY: the range lies inside `buf`, which stays allocated (and
        // is never moved) as long as the chunk; MADV_HUGEPAGE only changes
        // how the kernel backs it, never its contents.
        unsafe {
            libc::madvise(
                buf.as_mut_ptr().add(at) as *mut libc::c_void,
                len,
                libc::MADV_HUGEPAGE,
            );
        }
        buf[at..at + len].fill(0xFF);
        Chunk { buf, at, len }
    }
}

impl Clone for Chunk {
    /// A new chunk (aligned and advised as [`Chunk::new`] makes one) with
    /// the same bytes.
    fn clone(&self) -> Chunk {
        let mut c = Chunk::new(self.len);
        c[0..self.len].copy_from_slice(&self[0..self.len]);
        c
    }
}

impl std::ops::Index<std::ops::Range<usize>> for Chunk {
    type Output = [u8];
    fn index(&self, r: std::ops::Range<usize>) -> &[u8] {
        &self.buf[self.at..self.at + self.len][r]
    }
}

impl std::ops::IndexMut<std::ops::Range<usize>> for Chunk {
    fn index_mut(&mut self, r: std::ops::Range<usize>) -> &mut [u8] {
        &mut self.buf[self.at..self.at + self.len][r]
    }
}

/// Page buffers in chunks of `per_chunk` pages, a power of two: a slot
/// splits into its chunk and its page there by a shift and a mask, with
/// no test of the divisor on each access (a chunk of pages of a size that
/// is not a power of two keeps at least half its 2 MiB).
#[derive(Clone)]
pub(crate) struct Slab {
    page_size: usize,
    per_chunk: usize,
    /// `log2(per_chunk)`.
    chunk_shift: u32,
    chunks: Vec<Chunk>,
    len: u32,
    /// Slots free for reuse ([`Slab::free_slot`]).
    free: Vec<u32>,
    /// Each slot's page on the chip and sealed mark ([`Mark`]).
    marks: Vec<Mark>,
    /// How pages are copied in and out on this CPU.
    copy: PageCopy,
}

/// A slot's owner and sealed mark, side by side: a hinted read checks the
/// owner and reads the mark with one bounds check and from one cache line,
/// and a program sets the mark by one store (a bit array beside the
/// owners cost its own bounds check, shift and mask each way).
#[derive(Clone, Copy)]
struct Mark {
    /// The slot's page on the chip, or `NO_OWNER` while it is free: what
    /// lets a read trust a slot its caller remembered
    /// ([`Flash::read_sealed_hinted`](super::Flash::read_sealed_hinted))
    /// without the chip's table of slots by page, a cache miss of its own
    /// before the page's.
    owner: u64,
    /// Programmed whole by [`Flash::program_sealed`] (cleared by any other
    /// program of the slot; a freed slot's mark is stale until the program
    /// that reuses it).
    sealed: bool,
}

impl Slab {
    /// An empty slab of pages of `page_size` bytes.
    pub fn new(page_size: usize) -> Slab {
        let fit = (SLAB_CHUNK_BYTES / page_size).max(1);
        let per_chunk = 1usize << fit.ilog2();
        Slab {
            page_size,
            per_chunk,
            chunk_shift: per_chunk.ilog2(),
            chunks: Vec::new(),
            len: 0,
            free: Vec::new(),
            marks: Vec::new(),
            copy: PageCopy::detect(),
        }
    }

    /// Where slot `slot`'s bytes start in its chunk's buffer: one range
    /// check of the buffer on each access, not one of the aligned part
    /// and another of the page in it.
    #[inline(always)]
    fn place(&self, slot: u32) -> (usize, usize) {
        let (c, i) = (
            slot as usize >> self.chunk_shift,
            slot as usize & (self.per_chunk - 1),
        );
        (c, self.chunks[c].at + i * self.page_size)
    }

    #[inline(always)]
    pub fn page(&self, slot: u32) -> &[u8] {
        let (c, at) = self.place(slot);
        &self.chunks[c].buf[at..at + self.page_size]
    }

    #[inline(always)]
    pub fn page_mut(&mut self, slot: u32) -> &mut [u8] {
        let (c, at) = self.place(slot);
        &mut self.chunks[c].buf[at..at + self.page_size]
    }

    /// How to copy a page in or out ([`PageCopy::copy`]).
    #[inline(always)]
    pub fn copier(&self) -> PageCopy {
        self.copy
    }

    /// A slot for page `page` of the chip, holding an erased (0xFF) page,
    /// or, when the caller programs all of it (`whole`), any bytes; marked
    /// `sealed` ([`Self::set_sealed`]) in the same store as its owner.
    #[inline(always)]
    pub fn fresh(&mut self, whole: bool, page: u64, sealed: bool) -> u32 {
        let mark = Mark {
            owner: page,
            sealed,
        };
        if let Some(i) = self.free.pop() {
            if !whole {
                self.page_mut(i).fill(0xFF);
            }
            self.marks[i as usize] = mark;
            return i;
        }
        self.grow(mark)
    }

    /// [`Self::fresh`] with no slot free: a new one at the end, and a new
    /// chunk for it when the last is full (out of line: a slot is new
    /// once, and reused from then on).
    #[inline(never)]
    fn grow(&mut self, mark: Mark) -> u32 {
        let i = self.len;
        if i as usize == self.chunks.len() * self.per_chunk {
            self.chunks
                .push(Chunk::new(self.per_chunk * self.page_size));
        }
        self.len += 1;
        self.marks.push(mark);
        i
    }

    /// Gives slot `slot` back (its page was released or erased).
    #[inline]
    pub fn free_slot(&mut self, slot: u32) {
        self.marks[slot as usize].owner = NO_OWNER;
        self.free.push(slot);
    }

    /// Whether slot `slot` holds a page programmed whole and sealed, if it
    /// exists and holds page `page`'s bytes: [`Self::owns`] and
    /// [`Self::is_sealed`] in one look-up.
    #[inline(always)]
    pub fn owned_sealed(&self, slot: u32, page: u64) -> Option<bool> {
        match self.marks.get(slot as usize) {
            Some(m) if m.owner == page => Some(m.sealed),
            _ => None,
        }
    }

    /// Whether slot `slot` holds a page programmed whole and sealed.
    #[inline]
    pub fn is_sealed(&self, slot: u32) -> bool {
        self.marks.get(slot as usize).is_some_and(|m| m.sealed)
    }

    /// Marks slot `slot` (just programmed) sealed or not.
    #[inline(always)]
    pub fn set_sealed(&mut self, slot: u32, sealed: bool) {
        self.marks[slot as usize].sealed = sealed;
    }

    pub fn resident(&self) -> usize {
        self.len as usize - self.free.len()
    }
}
