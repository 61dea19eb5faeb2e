//! The live set a generator keeps for the requests that read existing
//! entries (searches of live keys, deletes, updates): every live
//! `(key, value)` pair, packed into one 64-bit word where the two fit.
//!
//! Why: at the FD-tree paper's sizes the live set is the largest thing a
//! W-Search or W-Update run holds besides the simulated disk: 16 bytes an
//! entry as a pair of `u64`, 4.8 GB at 3·10^8 entries (issue #46). A
//! word holds `(key − key_min) << value_bits | value`, with `key_bits` the
//! width of the key range and `value_bits = 64 − key_bits`: 8 bytes an
//! entry whenever the key range and the values together fit 64 bits, as
//! they do for every preset with 4-byte keys (32 + 32 bits).
//!
//! Invariant: the set behaves exactly as the deque of pairs it replaces:
//! the same positions, `swap_remove_back`, `pop_front` and `pop_back`, so
//! a generator draws the same entries for every seed. An entry that does
//! not fit the packed form (a key outside the range, as a sequence of
//! keys may give, or a value past `value_bits`) turns the whole set into
//! pairs, once, in order; nothing is ever truncated.

use std::collections::VecDeque;

/// Key ranges at least this wide (in bits) keep pairs from the start: the
/// values would have fewer than 16 bits.
const WIDE_KEYS: u32 = 48;

/// The live entries, in the positions a deque of pairs would hold them.
#[derive(Clone, Debug)]
pub(super) enum LiveEntries {
    /// One word an entry (module docs).
    Packed {
        words: VecDeque<u64>,
        key_min: u64,
        /// The largest `key − key_min` a word holds.
        key_span: u64,
        value_bits: u32,
    },
    /// A pair an entry.
    Wide(VecDeque<(u64, u64)>),
}

impl LiveEntries {
    /// An empty set for keys in `key_min..=key_max`.
    pub(super) fn new(key_min: u64, key_max: u64) -> Self {
        let key_span = key_max.saturating_sub(key_min);
        // At least a bit, so that value_bits < 64 and no shift overflows.
        let key_bits = (u64::BITS - key_span.leading_zeros()).max(1);
        if key_bits >= WIDE_KEYS {
            return LiveEntries::Wide(VecDeque::new());
        }
        LiveEntries::Packed {
            words: VecDeque::new(),
            key_min,
            key_span,
            value_bits: u64::BITS - key_bits,
        }
    }

    /// Bytes an entry takes.
    pub(super) fn entry_bytes(&self) -> usize {
        match self {
            LiveEntries::Packed { .. } => std::mem::size_of::<u64>(),
            LiveEntries::Wide(_) => std::mem::size_of::<(u64, u64)>(),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            LiveEntries::Packed { words, .. } => words.len(),
            LiveEntries::Wide(v) => v.len(),
        }
    }

    /// Room for `more` entries besides those held, taken at once (no
    /// doubling); false if this process cannot allocate it.
    pub(super) fn try_reserve_exact(&mut self, more: usize) -> bool {
        match self {
            LiveEntries::Packed { words, .. } => words.try_reserve_exact(more).is_ok(),
            LiveEntries::Wide(v) => v.try_reserve_exact(more).is_ok(),
        }
    }

    /// Entry `i`, if `i < len`.
    pub(super) fn get(&self, i: usize) -> Option<(u64, u64)> {
        match self {
            LiveEntries::Packed {
                words,
                key_min,
                value_bits,
                ..
            } => words.get(i).map(|&w| unpack(w, *key_min, *value_bits)),
            LiveEntries::Wide(v) => v.get(i).copied(),
        }
    }

    /// `(key, value)` as a word while the set is packed and the pair fits;
    /// else `None`, the set widened first if it was packed.
    fn pack_or_widen(&mut self, key: u64, value: u64) -> Option<u64> {
        let LiveEntries::Packed {
            key_min,
            key_span,
            value_bits,
            ..
        } = self
        else {
            return None;
        };
        let word = pack(key, value, *key_min, *key_span, *value_bits);
        if word.is_none() {
            self.widen();
        }
        word
    }

    pub(super) fn push_back(&mut self, (key, value): (u64, u64)) {
        let word = self.pack_or_widen(key, value);
        match (self, word) {
            (LiveEntries::Packed { words, .. }, Some(w)) => words.push_back(w),
            (LiveEntries::Wide(v), _) => v.push_back((key, value)),
            // Invariant: `pack_or_widen` leaves the set wide when it gives
            // no word.
            (LiveEntries::Packed { .. }, None) => {}
        }
    }

    /// Gives entry `i < len` the value `new`; the entry as it was.
    pub(super) fn replace_value(&mut self, i: usize, new: u64) -> Option<(u64, u64)> {
        let (key, old) = self.get(i)?;
        let word = self.pack_or_widen(key, new);
        match (self, word) {
            (LiveEntries::Packed { words, .. }, Some(w)) => words[i] = w,
            (LiveEntries::Wide(v), _) => v[i].1 = new,
            (LiveEntries::Packed { .. }, None) => {}
        }
        Some((key, old))
    }

    /// Removes entry `i` as `VecDeque::swap_remove_back` does: the last
    /// entry takes its place.
    pub(super) fn swap_remove_back(&mut self, i: usize) -> Option<(u64, u64)> {
        match self {
            LiveEntries::Packed {
                words,
                key_min,
                value_bits,
                ..
            } => words
                .swap_remove_back(i)
                .map(|w| unpack(w, *key_min, *value_bits)),
            LiveEntries::Wide(v) => v.swap_remove_back(i),
        }
    }

    /// Removes the oldest entry (the front) or the newest (the back).
    pub(super) fn pop_end(&mut self, oldest: bool) -> Option<(u64, u64)> {
        match self {
            LiveEntries::Packed {
                words,
                key_min,
                value_bits,
                ..
            } => if oldest {
                words.pop_front()
            } else {
                words.pop_back()
            }
            .map(|w| unpack(w, *key_min, *value_bits)),
            LiveEntries::Wide(v) => {
                if oldest {
                    v.pop_front()
                } else {
                    v.pop_back()
                }
            }
        }
    }

    /// Turns the set into pairs, in order, keeping the room it had.
    fn widen(&mut self) {
        if let LiveEntries::Packed {
            words,
            key_min,
            value_bits,
            ..
        } = self
        {
            let mut wide = VecDeque::with_capacity(words.capacity());
            wide.extend(words.iter().map(|&w| unpack(w, *key_min, *value_bits)));
            *self = LiveEntries::Wide(wide);
        }
    }
}

/// The word of `(key, value)`, if both fit.
fn pack(key: u64, value: u64, key_min: u64, key_span: u64, value_bits: u32) -> Option<u64> {
    let k = key.checked_sub(key_min).filter(|&k| k <= key_span)?;
    // 64 − WIDE_KEYS < value_bits < 64: no shift overflows.
    (value >> value_bits == 0).then(|| (k << value_bits) | value)
}

fn unpack(w: u64, key_min: u64, value_bits: u32) -> (u64, u64) {
    (key_min + (w >> value_bits), w & ((1u64 << value_bits) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packed set and a deque of pairs, driven by the same operations,
    /// hold the same entries in the same positions, across a widening.
    #[test]
    fn packed_set_behaves_as_a_deque_of_pairs() {
        for (key_min, key_max, widen_at) in [
            (0, u32::MAX as u64, None),
            (1_000, 5_000, None),
            (0, 7, Some(3_000)),
            (42, 42, None),
            (0, u64::MAX, None),
        ] {
            let mut packed = LiveEntries::new(key_min, key_max);
            let mut pairs: VecDeque<(u64, u64)> = VecDeque::new();
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let mut step = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            for n in 0..6_000u64 {
                let span = key_max - key_min;
                let key = key_min + step() % span.saturating_add(1).max(1);
                // Past `widen_at`, values too wide to pack.
                let value = if widen_at.is_some_and(|w| n >= w) {
                    u64::MAX - n
                } else {
                    n
                };
                let r = step();
                let len = pairs.len();
                match r % 6 {
                    0..=2 => {
                        packed.push_back((key, value));
                        pairs.push_back((key, value));
                    }
                    3 if len > 0 => {
                        let i = (step() % len as u64) as usize;
                        assert_eq!(packed.swap_remove_back(i), pairs.swap_remove_back(i));
                    }
                    4 if len > 0 => {
                        let old = if r & 8 == 0 {
                            pairs.pop_front()
                        } else {
                            pairs.pop_back()
                        };
                        assert_eq!(packed.pop_end(r & 8 == 0), old);
                    }
                    5 if len > 0 => {
                        let i = (step() % len as u64) as usize;
                        let old = pairs[i];
                        pairs[i].1 = value;
                        assert_eq!(packed.replace_value(i, value), Some(old));
                    }
                    _ => {}
                }
                assert_eq!(packed.len(), pairs.len());
            }
            for (i, e) in pairs.iter().enumerate() {
                assert_eq!(packed.get(i), Some(*e));
            }
            let want = if widen_at.is_some() || key_max == u64::MAX {
                16
            } else {
                8
            };
            assert_eq!(packed.entry_bytes(), want, "{key_min}..={key_max}");
        }
    }
}
