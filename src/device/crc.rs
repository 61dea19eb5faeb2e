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
//! The one `unsafe` call is the SSE 4.2 entry, made only after the CPU was
//! seen to have it.

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
            return x86::append(crc, &[], &[], data, shift_table());
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
            return x86::append(0, &[], &[], data, shift_table());
        }
    }
    crc32c::crc32c(data)
}

/// CRC-32C of `head` (8 bytes), then `mid` (4 bytes), then `data`: a page
/// frame's checksum (its header around the CRC field, then its payload),
/// equal to the crate's over the three joined. One call instead of three:
/// the crate's entry (a CPU check and a single-stream loop for short
/// inputs) cost more than the 12 header bytes themselves, twice a frame.
pub fn crc32c_frame(head: &[u8; 8], mid: &[u8; 4], data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("sse4.2") {
            return x86::append(0, head, mid, data, shift_table());
        }
    }
    crc32c::crc32c_append(crc32c::crc32c_append(crc32c::crc32c(head), mid), data)
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

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{shift, ShiftTable, BLOCK, CHUNK};
    use std::arch::x86_64::{_mm_crc32_u32, _mm_crc32_u64, _mm_crc32_u8};

    fn word(b: &[u8]) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        u64::from_le_bytes(w)
    }

    /// The CRC of `head`, `mid` (each whole words of 8 and 4 bytes, or
    /// empty) and `data` continued from `crc`. The caller has checked that
    /// the CPU has SSE 4.2.
    #[allow(unsafe_code)]
    pub(super) fn append(crc: u32, head: &[u8], mid: &[u8], data: &[u8], t: &ShiftTable) -> u32 {
        // SAFETY: the callers call this only after
        // `is_x86_feature_detected!("sse4.2")` returned true, which is all
        // `run` needs (it reads memory only through safe slices).
        unsafe { run(crc, head, mid, data, t) }
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
        let head = *b"FX\x02\x01\x10\x00\x00\x00";
        let mid = [0u8, 1, 2, 3];
        for len in 0..data.len() {
            let mut joined = head.to_vec();
            joined.extend_from_slice(&mid);
            joined.extend_from_slice(&data[..len]);
            assert_eq!(
                crc32c_frame(&head, &mid, &data[..len]),
                crc32c::crc32c(&joined),
                "len {len}"
            );
        }
    }

    proptest! {
        #[test]
        fn matches_the_crate(crc in any::<u32>(), data in proptest::collection::vec(any::<u8>(), 0..1500)) {
            prop_assert_eq!(crc32c_append(crc, &data), crc32c::crc32c_append(crc, &data));
        }
    }
}
