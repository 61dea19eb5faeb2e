//! Whole-page copies in and out of the simulated chip's slab
//! (`device::slab`): every page read and every page program copies one.
//! Through `copy_from_slice` a 512-byte page (`flashix bench`'s) is a call
//! of `memcpy`, its size dispatch and its loop, about 75 instructions; the
//! compiler inlines a copy of a length known when compiled only up to 256
//! bytes without AVX-512. Where the CPU has AVX, a 512-byte copy here is
//! sixteen 32-byte loads and sixteen stores, about 35 instructions with
//! the call. The bytes copied are the same either way; any other length,
//! or a CPU without AVX, takes `copy_from_slice`.
//!
//! The `unsafe` is the call of the AVX entry, made only after the CPU was
//! seen to have AVX, and its unaligned loads and stores, each within the
//! two 512-byte arrays.

/// Bytes of the page size copied by AVX moves.
const AVX_PAGE: usize = 512;

/// How pages are copied on this CPU, found once (a chip's slab keeps it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PageCopy {
    /// The CPU has AVX (and the OS saves its registers).
    avx: bool,
}

impl PageCopy {
    /// This CPU's way.
    pub fn detect() -> PageCopy {
        #[cfg(target_arch = "x86_64")]
        let avx = std::arch::is_x86_feature_detected!("avx");
        #[cfg(not(target_arch = "x86_64"))]
        let avx = false;
        PageCopy { avx }
    }

    /// `dst.copy_from_slice(src)`: the same bytes, and the same panic on
    /// slices of different lengths.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub fn copy(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx {
            if let (Ok(d), Ok(s)) = (
                <&mut [u8; AVX_PAGE]>::try_from(&mut *dst),
                <&[u8; AVX_PAGE]>::try_from(src),
            ) {
                // SAFETY: `avx` is private and set only by `detect`, where
                // `is_x86_feature_detected!` found AVX: all `copy512` needs.
                unsafe { x86::copy512(d, s) };
                return;
            }
        }
        dst.copy_from_slice(src);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_storeu_si256};

    use super::AVX_PAGE;

    /// Copies `src` into `dst`: sixteen 32-byte loads, then sixteen
    /// stores, written out (a loop the compiler may turn back into a call
    /// of `memcpy`).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn copy512(dst: &mut [u8; AVX_PAGE], src: &[u8; AVX_PAGE]) {
        let s = src.as_ptr() as *const __m256i;
        let d = dst.as_mut_ptr() as *mut __m256i;
        macro_rules! lanes {
            ($($k:literal)*) => {
                // SAFETY: lane `k < 16` is bytes `32k..32k + 32` of the 512
                // of `src` and of `dst` (which `&mut` makes this function's
                // alone); unaligned loads and stores take any address.
                let v = [$(unsafe { _mm256_loadu_si256(s.add($k)) }),*];
                $(unsafe { _mm256_storeu_si256(d.add($k), v[$k]) };)*
            };
        }
        lanes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length around a page, both ways, gives `copy_from_slice`'s
    /// bytes.
    #[test]
    fn copies_as_copy_from_slice() {
        let c = PageCopy::detect();
        for len in [0, 1, 31, 32, 256, 511, 512, 513, 1024, 4096] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut dst = vec![0xEEu8; len];
            c.copy(&mut dst, &src);
            assert_eq!(dst, src, "length {len}");
            let plain = PageCopy { avx: false };
            let mut again = vec![0u8; len];
            plain.copy(&mut again, &src);
            assert_eq!(again, src);
        }
    }
}
