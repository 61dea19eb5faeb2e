//! CRC-32C of page frames and of the commit layer's pages, three streams
//! at a time. It lives on the device floor, the lowest that checksums
//! (`device::shadow`), and the node floor's frames use it from here.
//!
//! Every node read and write checksums a frame of about a page (496 bytes
//! of a 512-byte node), 2.3 times per operation in `flashix bench`, where
//! it was 14% of the wall time. The `crc32c` crate interleaves three
//! hardware CRC streams only for inputs of 768 bytes and more; below that
//! it runs one stream, whose every `crc32` instruction waits for the
//! previous one (3 cycles of latency, 1 of throughput). Here inputs of at
//! least [`CHUNK`] bytes are cut into chunks of three 64-byte blocks run
//! side by side and joined by shifting the running CRC over a block with a
//! table, as the crate does for its long chunks; shorter tails run one
//! stream in the same function. A frame's 12 header bytes go through the
//! same call ([`crc32c_frame`]): through the crate they were two more calls,
//! each with its own CPU check and single-stream setup, 7% of `flashix
//! bench`'s instructions with the tails. Other CPUs use the crate. The
//! value is the crate's, bit for bit (tests compare them), so the on-flash
//! format is unchanged. A 496-byte frame took 47 ns with the crate and 30
//! ns with the streams alone (2026-11-24, this project's machine; 64-byte
//! blocks beat 40 and 80).
//!
//! Where the CPU also has carry-less multiplication (PCLMULQDQ), the
//! streams run over three blocks as long as the input allows (a 496-byte
//! payload: three of 160 bytes, 16 bytes left) and are joined by one
//! multiplication each ([`clmul`]), not four table look-ups: fewer
//! combines and a shorter single-stream tail, 188 → about 120 instructions
//! a frame (issue #46). The value is the same polynomial arithmetic, so the
//! same bits; the tests compare both kernels with each other and the crate
//! at every length.
//!
//! The `unsafe` calls are the SSE 4.2 (and PCLMULQDQ) entries, made only
//! after the CPU was seen to have them.

use std::sync::OnceLock;

/// Bytes of one of the three blocks of a chunk.
const BLOCK: usize = 64;
/// Bytes of a chunk: three blocks.
const CHUNK: usize = 3 * BLOCK;

/// CRC-32C (Castagnoli) of `data` continued from `crc`, equal to
/// `crc32c::crc32c_append(crc, data)`: the streams alone, which the tests
/// check against the crate at every length and start.
#[cfg(test)]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            return x86::append(crc, data);
        }
    }
    crc32c::crc32c_append(crc, data)
}

/// CRC-32C of `data`, equal to `crc32c::crc32c(data)`: the commit
/// layer's checksum of every page it writes and reads (`device::shadow`),
/// through the same three streams as a frame's (issue #45: the crate's
/// call was a third of a point lookup's instructions on a file).
pub fn crc32c(data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            return x86::append(0, data);
        }
    }
    crc32c::crc32c(data)
}

/// CRC-32C of a page frame's `header` without its checksum field (bytes
/// 0..8, then 12..16), then `data`: equal to the crate's over the three
/// joined. One call, the header's two words fed from the header itself:
/// through the crate they were two more calls, each with its own CPU check
/// and single-stream setup, and copied out they were a third of a frame's
/// checksum besides the streams.
#[inline]
pub fn crc32c_frame(header: &[u8; 16], data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            return x86::frame(header, data);
        }
    }
    let crc = crc32c::crc32c(&header[0..8]);
    crc32c::crc32c_append(crc32c::crc32c_append(crc, &header[12..16]), data)
}

/// A frame's first 24 bytes as three little-endian words: the header's
/// bytes 0..8 (the length in the high half), 8..16 (the checksum in the
/// low half) and the data's first word.
#[inline(always)]
pub fn frame_words(f: &[u8; 24]) -> [u64; 3] {
    let (a, rest) = f.split_first_chunk::<8>().expect("24 hold 8");
    let (b, c) = rest.split_first_chunk::<8>().expect("16 hold 8");
    let c = c.first_chunk::<8>().expect("8 hold 8");
    [
        u64::from_le_bytes(*a),
        u64::from_le_bytes(*b),
        u64::from_le_bytes(*c),
    ]
}

/// The checksum [`crc32c_frame`] gives `frame` (its header's fields
/// written, its checksum field aside) over `len` bytes of data, worked out
/// from the frame its data came from by inserting the word at data offset
/// `at`: `old` are that frame's first 24 bytes as three little-endian
/// words ([`frame_words`]: its header, with its checksum, and its data's
/// first word; its data was this one without the inserted word, with that
/// first word). Only the words on the shorter
/// side of the insert are read (the CRC is linear: the differences in the
/// header and first word, the inserted word and the old checksum carried
/// over the rest give the new one), about a quarter of a leaf's. The same
/// value as the whole computation when the old checksum is the old frame's
/// true one: the caller's to vouch. `None` (compute it whole) unless the
/// CPU multiplies carry-less, the lengths are whole words with `8 <= at`,
/// `at + 8 <= len`, the frame holds the data, and the data is at most
/// `8 * 2 * MAX_BLOCK_WORDS` bytes.
#[inline(always)]
pub fn crc32c_frame_inserted(old: [u64; 3], frame: &[u8], len: usize, at: usize) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        if (len | at).is_multiple_of(8)
            && at >= 8
            && at + 8 <= len
            && len <= 8 * 2 * MAX_BLOCK_WORDS
            && std::arch::is_x86_feature_detected!("sse4.2")
            && x86::has_clmul()
        {
            let data = frame.get(16..16 + len)?;
            let header = frame.first_chunk::<16>()?;
            // SAFETY: SSE 4.2 and PCLMULQDQ were both seen just above, all
            // `inserted` needs (it reads memory only through safe slices).
            #[allow(unsafe_code)]
            return Some(unsafe { x86::inserted(old, header, data, at / 8) });
        }
    }
    let _ = (old, frame, len, at);
    None
}

/// `T[k][b]`: the CRC state `b << 8k` carried over `BLOCK` zero bytes (the
/// state is linear in its bits, so a state is shifted by XORing four
/// entries).
type ShiftTable = [[u32; 256]; 4];

fn shift_table() -> &'static ShiftTable {
    static TABLE: OnceLock<Box<ShiftTable>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([[0u32; 256]; 4]);
        for (k, row) in t.iter_mut().enumerate() {
            for (b, entry) in row.iter_mut().enumerate() {
                let mut state = (b as u32) << (8 * k);
                // The raw (reflected, not inverted) register over zero bits.
                for _ in 0..BLOCK * 8 {
                    state = if state & 1 == 1 {
                        (state >> 1) ^ 0x82F6_3B78
                    } else {
                        state >> 1
                    };
                }
                *entry = state;
            }
        }
        t
    })
}

fn shift(t: &ShiftTable, state: u64) -> u64 {
    let s = state as u32;
    (t[0][(s & 0xFF) as usize]
        ^ t[1][((s >> 8) & 0xFF) as usize]
        ^ t[2][((s >> 16) & 0xFF) as usize]
        ^ t[3][(s >> 24) as usize]) as u64
}

/// Words of the longest block of a three-stream round of [`x86::clmul_streams`]
/// (512 bytes).
const MAX_BLOCK_WORDS: usize = 64;
/// Words of the shortest block worth three streams and a join (blocks
/// are whole runs of four words).
const MIN_BLOCK_WORDS: usize = 4;

/// `SHIFT[w]`: the constant whose carry-less product with a CRC state,
/// reduced by one `crc32` of the product's low 64 bits, is that state
/// carried over `w` zero words (the raw register over `64w` zero bits
/// from `x^0`, less the 33 bits the product and the `crc32` add).
static SHIFT: [u64; 2 * MAX_BLOCK_WORDS + 1] = shift_constants();

const fn zero_bits(mut state: u32, bits: usize) -> u32 {
    let mut i = 0;
    while i < bits {
        state = if state & 1 == 1 {
            (state >> 1) ^ 0x82F6_3B78
        } else {
            state >> 1
        };
        i += 1;
    }
    state
}

const fn shift_constants() -> [u64; 2 * MAX_BLOCK_WORDS + 1] {
    let mut k = [0u64; 2 * MAX_BLOCK_WORDS + 1];
    // `x^0` is the register's top bit; one word is 64 − 33 bits past it.
    let mut state = zero_bits(0x8000_0000, 31);
    let mut w = 1;
    while w < k.len() {
        k[w] = state as u64;
        state = zero_bits(state, 64);
        w += 1;
    }
    k
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{
        shift, shift_table, ShiftTable, BLOCK, CHUNK, MAX_BLOCK_WORDS, MIN_BLOCK_WORDS, SHIFT,
    };
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_crc32_u32, _mm_crc32_u64, _mm_crc32_u8, _mm_cvtsi128_si64,
        _mm_cvtsi64_si128,
    };

    fn word(b: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        u64::from_le_bytes(w)
    }

    /// Whether the CPU multiplies carry-less (checked once by the standard
    /// library, then a load).
    pub(super) fn has_clmul() -> bool {
        std::arch::is_x86_feature_detected!("pclmulqdq")
    }

    /// The CRC of `data` continued from `crc`. The caller has checked that
    /// the CPU has SSE 4.2.
    #[allow(unsafe_code)]
    pub(super) fn append(crc: u32, data: &[u8]) -> u32 {
        if has_clmul() {
            // SAFETY: the callers call this only after
            // `is_x86_feature_detected!("sse4.2")` returned true, and
            // `has_clmul` saw PCLMULQDQ: all `clmul_append` needs (it reads
            // memory only through safe slices).
            return unsafe { clmul_run(crc, None, data) };
        }
        table_append(crc, data)
    }

    /// [`append`] through the 64-byte blocks and shift table, the kernel
    /// of CPUs without PCLMULQDQ (and the tests' reference).
    #[allow(unsafe_code)]
    pub(super) fn table_append(crc: u32, data: &[u8]) -> u32 {
        // SAFETY: as in `append`: SSE 4.2 was seen, all `run` needs.
        unsafe { run(crc, &[], &[], data, shift_table()) }
    }

    /// A frame's CRC (`super::crc32c_frame`). The caller has checked that
    /// the CPU has SSE 4.2.
    #[allow(unsafe_code)]
    pub(super) fn frame(header: &[u8; 16], data: &[u8]) -> u32 {
        if has_clmul() {
            // SAFETY: as in `append`.
            return unsafe { clmul_run(0, Some(header), data) };
        }
        // SAFETY: as in `table_append`.
        unsafe { run(0, &header[0..8], &header[12..16], data, shift_table()) }
    }

    /// The CRC of `header`'s bytes 0..8 and 12..16 (a frame's header
    /// around its checksum field), when given, then of `data`, continued
    /// from `crc`: one function for both entries, so that a frame's
    /// checksum is one call below `seal`.
    #[allow(unsafe_code)]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    unsafe fn clmul_run(crc: u32, header: Option<&[u8; 16]>, data: &[u8]) -> u32 {
        let mut c = !crc as u64;
        if let Some(header) = header {
            let (head, rest) = header.split_first_chunk::<8>().expect("16 bytes hold 8");
            let mid = rest.last_chunk::<4>().expect("8 bytes hold 4");
            c = _mm_crc32_u64(c, u64::from_le_bytes(*head));
            c = _mm_crc32_u32(c as u32, u32::from_le_bytes(*mid)) as u64;
        }
        !clmul_streams(c, data)
    }

    /// `state` carried over `words` zero words, for any `words` up to
    /// `2 * MAX_BLOCK_WORDS` (`SHIFT[0]` is no shift's constant).
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    fn carry(state: u64, words: usize) -> u64 {
        if words == 0 {
            state
        } else {
            clmul(state, words)
        }
    }

    /// [`super::crc32c_frame_inserted`] once its conditions hold, for the
    /// word inserted at `data`'s word `k`. In raw registers (`C(s, M)`: the
    /// register after `M` from `s`; `<<w`: carried over `w` zero words,
    /// linear, with `C(s, M) = (s <<|M|) ^ C(0, M)`): the old message is
    /// `A B`, the new `A' E B`, where `A'` differs from `A` only in its
    /// first 20 bytes (the header's 12 and the first data word) by `D`, `p`
    /// words of `A` follow those, `E` is the inserted word and `B` its `b`
    /// words after. With `R` the old register, either
    /// - from the front, `S = C(init, A')` and
    ///   `R' = ((C(S, E) ^ S) <<b) ^ R ^ (C(0, D) <<(p + b))`; or
    /// - from the back, `Y = C(C(0, E), B)`, `X = Y ^ (C(0, E) <<b)` (which
    ///   is `C(0, B)`) and `R' = ((R ^ X) <<1) ^ (C(0, D) <<(p + b + 1)) ^ Y`,
    ///
    /// whichever reads fewer words.
    #[allow(unsafe_code)]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    pub(super) unsafe fn inserted(old: [u64; 3], header: &[u8; 16], data: &[u8], k: usize) -> u32 {
        let (words, _) = data.as_chunks::<8>();
        let (front, rest) = words.split_at(k);
        let Some((e, back)) = rest.split_first() else {
            return 0;
        };
        let (p, b) = (k - 1, back.len());
        let e = u64::from_le_bytes(*e);
        let [old_head, old_sum, old_first] = old;
        let (old_crc, old_mid) = (old_sum as u32, (old_sum >> 32) as u32);
        let (head, _) = header.split_first_chunk::<8>().expect("16 hold 8");
        let head = u64::from_le_bytes(*head);
        let mid = u32::from_le_bytes(*header.last_chunk::<4>().expect("16 hold 4"));
        let first = front.first().map_or(0, |w| u64::from_le_bytes(*w));
        let d = _mm_crc32_u64(0, old_head ^ head);
        let d = _mm_crc32_u32(d as u32, old_mid ^ mid) as u64;
        let d = _mm_crc32_u64(d, old_first ^ first);
        let r = !old_crc as u64;
        let c = if k <= b {
            let mut s = _mm_crc32_u64(!0u32 as u64, head);
            s = _mm_crc32_u32(s as u32, mid) as u64;
            for w in front {
                s = _mm_crc32_u64(s, u64::from_le_bytes(*w));
            }
            carry(_mm_crc32_u64(s, e) ^ s, b) ^ r ^ carry(d, p + b)
        } else {
            let ce = _mm_crc32_u64(0, e);
            let mut y = ce;
            for w in back {
                y = _mm_crc32_u64(y, u64::from_le_bytes(*w));
            }
            let x = y ^ carry(ce, b);
            _mm_crc32_u64(r ^ x, 0) ^ carry(d, p + b + 1) ^ y
        };
        !(c as u32)
    }

    /// `state` (raw, not inverted) carried over `words` zero words.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    fn clmul(state: u64, words: usize) -> u64 {
        let product = _mm_clmulepi64_si128(
            _mm_cvtsi64_si128(state as i64),
            _mm_cvtsi64_si128(SHIFT[words] as i64),
            0,
        );
        _mm_crc32_u64(0, _mm_cvtsi128_si64(product) as u64)
    }

    /// The raw register after `data`, from `c0`: rounds of three blocks of
    /// equal length (at most `MAX_BLOCK_WORDS` words), the first block's
    /// register carried over the other two and the second's over the third
    /// (`crc(A‖B‖C) = A·x^{2b} + B·x^{b} + C`), then the words and bytes
    /// left in one stream.
    #[inline]
    #[target_feature(enable = "sse4.2,pclmulqdq")]
    fn clmul_streams(mut c0: u64, data: &[u8]) -> u32 {
        let (mut words, bytes) = data.as_chunks::<8>();
        while words.len() >= 3 * MIN_BLOCK_WORDS {
            // Whole runs of four words a block: the loop below then has no
            // remainder, and a step is twelve `crc32`s and one jump.
            let b = (words.len() / 3).min(MAX_BLOCK_WORDS) & !3;
            let (a, rest) = words.split_at(b);
            let (m, rest) = rest.split_at(b);
            let (z, rest) = rest.split_at(b);
            let (mut c1, mut c2) = (0u64, 0u64);
            let runs = a.as_chunks::<4>().0.iter();
            for ((ra, rm), rz) in runs.zip(m.as_chunks::<4>().0).zip(z.as_chunks::<4>().0) {
                for i in 0..4 {
                    c0 = _mm_crc32_u64(c0, u64::from_le_bytes(ra[i]));
                    c1 = _mm_crc32_u64(c1, u64::from_le_bytes(rm[i]));
                    c2 = _mm_crc32_u64(c2, u64::from_le_bytes(rz[i]));
                }
            }
            c0 = clmul(c0, 2 * b) ^ clmul(c1, b) ^ c2;
            words = rest;
        }
        for w in words {
            c0 = _mm_crc32_u64(c0, u64::from_le_bytes(*w));
        }
        let mut c = c0 as u32;
        for &b in bytes {
            c = _mm_crc32_u8(c, b);
        }
        c
    }

    #[allow(unsafe_code)]
    #[target_feature(enable = "sse4.2")]
    unsafe fn run(crc: u32, head: &[u8], mid: &[u8], data: &[u8], t: &ShiftTable) -> u32 {
        let mut c0 = !crc as u64;
        for w in head.chunks_exact(8) {
            c0 = _mm_crc32_u64(c0, word(w));
        }
        for w in mid.chunks_exact(4) {
            c0 = _mm_crc32_u32(c0 as u32, u32::from_le_bytes([w[0], w[1], w[2], w[3]])) as u64;
        }
        let mut chunks = data.chunks_exact(CHUNK);
        for chunk in chunks.by_ref() {
            let (a, rest) = chunk.split_at(BLOCK);
            let (b, c) = rest.split_at(BLOCK);
            let (mut c1, mut c2) = (0u64, 0u64);
            let words = a
                .chunks_exact(8)
                .zip(b.chunks_exact(8))
                .zip(c.chunks_exact(8));
            for ((wa, wb), wc) in words {
                c0 = _mm_crc32_u64(c0, word(wa));
                c1 = _mm_crc32_u64(c1, word(wb));
                c2 = _mm_crc32_u64(c2, word(wc));
            }
            c0 = shift(t, c0) ^ c1;
            c0 = shift(t, c0) ^ c2;
        }
        let mut words = chunks.remainder().chunks_exact(8);
        for w in words.by_ref() {
            c0 = _mm_crc32_u64(c0, word(w));
        }
        let mut c = c0 as u32;
        for &b in words.remainder() {
            c = _mm_crc32_u8(c, b);
        }
        !c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_length_matches_the_crate() {
        let data: Vec<u8> = (0..2000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in 0..data.len() {
            for start in [0usize, 1, 7] {
                let d = &data[start..(start + len).min(data.len())];
                assert_eq!(
                    crc32c_append(0x1234_5678, d),
                    crc32c::crc32c_append(0x1234_5678, d),
                    "len {len} start {start}"
                );
            }
        }
    }

    #[test]
    fn frames_match_the_crate() {
        let data: Vec<u8> = (0..600u32).map(|i| (i * 37 + 11) as u8).collect();
        let header = *b"FX\x02\x01\x10\x00\x00\x00\xAA\xBB\xCC\xDD\x00\x01\x02\x03";
        for len in 0..data.len() {
            let mut joined = header[0..8].to_vec();
            joined.extend_from_slice(&header[12..16]);
            joined.extend_from_slice(&data[..len]);
            assert_eq!(
                crc32c_frame(&header, &data[..len]),
                crc32c::crc32c(&joined),
                "len {len}"
            );
        }
    }

    /// The multiplying kernel against the table kernel (the one before it)
    /// on random bytes of every length up to three rounds of the longest
    /// blocks and more, from random starts.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn both_kernels_agree_at_every_length() {
        if !std::arch::is_x86_feature_detected!("sse4.2") {
            return;
        }
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let data: Vec<u8> = (0..5000).map(|_| next() as u8).collect();
        for len in 0..4000 {
            let start = (next() % 8) as usize;
            let crc = next() as u32;
            let d = &data[start..start + len];
            let want = x86::table_append(crc, d);
            assert_eq!(x86::append(crc, d), want, "len {len}");
            assert_eq!(want, crc32c::crc32c_append(crc, d), "len {len}");
        }
    }

    /// A frame's checksum after a word is inserted, worked out from the old
    /// one, against the whole computation: every length up to the table's
    /// longest, every insert position, random headers (the old and new
    /// differing anywhere but the checksum field) and first words.
    #[test]
    fn an_inserted_word_gives_the_whole_checksum() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for words in 2..=2 * MAX_BLOCK_WORDS + 1 {
            let data: Vec<u8> = (0..words * 8).map(|_| next() as u8).collect();
            for k in 0..words {
                let at = k * 8;
                let mut old_header = [0u8; 16];
                let mut header = [0u8; 16];
                old_header.iter_mut().for_each(|b| *b = next() as u8);
                header.iter_mut().for_each(|b| *b = next() as u8);
                let old_head = next();
                let mut old = data[..at].to_vec();
                old.extend_from_slice(&data[at + 8..]);
                if at > 0 {
                    old[..8].copy_from_slice(&old_head.to_le_bytes());
                }
                let mut was = [0u8; 24];
                was[..16].copy_from_slice(&old_header);
                was[8..12].copy_from_slice(&crc32c_frame(&old_header, &old).to_le_bytes());
                was[16..].copy_from_slice(old.get(..8).unwrap_or(&[0; 8]));
                let mut frame = header.to_vec();
                frame.extend_from_slice(&data);
                let got = crc32c_frame_inserted(frame_words(&was), &frame, data.len(), at);
                let usable = at >= 8 && words <= 2 * MAX_BLOCK_WORDS;
                #[cfg(target_arch = "x86_64")]
                let usable = usable
                    && std::arch::is_x86_feature_detected!("sse4.2")
                    && std::arch::is_x86_feature_detected!("pclmulqdq");
                #[cfg(not(target_arch = "x86_64"))]
                let usable = usable && false;
                if usable {
                    assert_eq!(
                        got,
                        Some(crc32c_frame(&header, &data)),
                        "words {words} at {at}"
                    );
                } else {
                    assert_eq!(got, None, "words {words} at {at}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn matches_the_crate(crc in any::<u32>(), data in proptest::collection::vec(any::<u8>(), 0..1500)) {
            prop_assert_eq!(crc32c_append(crc, &data), crc32c::crc32c_append(crc, &data));
        }
    }
}
