//! Division by a constant chosen at run time.

/// Division by a number fixed when a device is made (pages per block):
/// a shift and a mask when it is a power of two
/// (every profile's), since a 64-bit division is tens of cycles and the
/// FTL and the chip each split every page number they are given.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    n: u64,
    /// `log2(n)` when `n` is a power of two, else `u32::MAX`.
    shift: u32,
}

impl Divisor {
    pub fn new(n: u64) -> Divisor {
        Divisor {
            n,
            shift: if n.is_power_of_two() {
                n.trailing_zeros()
            } else {
                u32::MAX
            },
        }
    }

    /// `(x / n, x % n)`.
    #[inline]
    pub fn split(self, x: u64) -> (u64, usize) {
        if self.shift != u32::MAX {
            (x >> self.shift, (x & (self.n - 1)) as usize)
        } else {
            (x / self.n, (x % self.n) as usize)
        }
    }
}
