//! The **Leaf Node Header** (Roh et al. 2009 §4.4, Algorithms 2 and 3): one
//! page that records, in key order, which leaf page holds each entry of a
//! leaf node, so that a search reads the header and then only the leaf
//! pages its key can be on.
//!
//! * **OIDs**: the leaf-page id of each entry in key order, `⌈log₂ L⌉` bits
//!   each; with compaction (the default) consecutive equal OIDs are merged
//!   into one (Algorithm 2 step 3); without KIVs (`kiv=false`, §5.3.1) they
//!   are kept one per entry so a pseudo-binary search can name the page of
//!   the entry of any rank.
//! * **KIVs**: for each interval of `interval` OIDs, the largest key of its
//!   entries, stored as the difference from the node's smallest key in
//!   `K` bits, `K` the bits of (largest − smallest) (Algorithm 2 step 5;
//!   `⌈log₂(d + 1)⌉`, which also holds for d a power of two). The interval
//!   is the smallest that lets OIDs, KIVs (and the FEI) fit the page (step 6).
//! * **FEI** (`fei=true`, §5.3.2): one bit per leaf-page slot, set when the
//!   slot holds a live entry, so a delete clears a bit instead of rewriting
//!   its leaf page.
//! * **Disjoint intervals** (flag bit 3): no key repeats across an interval
//!   boundary, so a search for a key equal to its interval's KIV reads that
//!   interval only (Algorithm 3's one interval); without the bit (a key of
//!   repeated entries straddles a boundary, or a header written before the
//!   bit existed) it reads on into the next interval, where the key may go
//!   on. Readers that ignore the bit stay correct.
//!
//! Page layout (a page frame of kind `LeafHeader`; payload, little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0 | L, leaf pages |
//! | 1 | flags: bit 0 KIVs, bit 1 compacted OIDs, bit 2 FEI, bit 3 disjoint intervals |
//! | 2..4 | OID count |
//! | 4..6 | interval (OIDs per KIV; 0 without KIVs) |
//! | 6 | K, bits per KIV |
//! | 7 | reserved |
//! | 8..12 | next leaf node id (`u32::MAX`: none) |
//! | 12..14 | live entries |
//! | 14..22 | smallest key |
//! | 22.. | bit stream: OIDs, then KIVs, then the FEI (L × slots bits) |

use crate::index::IndexError;
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::NodeId;

const HEADER: usize = 22;
const FLAG_KIV: u8 = 1;
const FLAG_COMPACT: u8 = 2;
const FLAG_FEI: u8 = 4;
const FLAG_DISJOINT: u8 = 8;

/// Bits needed to tell `n` values apart (0 for one value).
pub fn bits_for(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// Bits of the difference `d` between two keys (0 for d = 0): what a KIV
/// takes. `bits_for(d + 1)` as Algorithm 2 writes it, without the
/// overflow at d = 2^64 − 1 (keys 0 and `u64::MAX` in one leaf node, where
/// the wrapped sum gave KIVs of 0 bits and every key above the smallest
/// vanished from searches).
fn bits_of_difference(d: u64) -> u32 {
    64 - d.leading_zeros()
}

/// Bits of a header page's stream (after the frame and the fixed fields).
pub fn stream_bits(page_size: usize) -> usize {
    page_size.saturating_sub(FRAME_HEADER + HEADER) * 8
}

/// A decoded Leaf Node Header.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lnh {
    pub pages: u8,
    pub next: NodeId,
    pub entries: u16,
    pub small: u64,
    pub kiv: bool,
    pub compact: bool,
    /// Leaf-page id per OID (per run when compacted).
    pub oids: Vec<u8>,
    /// OIDs per KIV (0 without KIVs).
    pub interval: u16,
    /// Largest key of each interval.
    pub kivs: Vec<u64>,
    /// Per slot (`page × slots + slot`): live? Empty without the FEI.
    pub fei: Vec<bool>,
    /// Every interval's keys are below the next interval's (no key repeats
    /// across a boundary).
    pub disjoint: bool,
}

/// Bit writer/reader over a byte slice.
struct Bits<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Bits<'_> {
    fn put(&mut self, value: u64, bits: u32) {
        for b in (0..bits).rev() {
            let bit = (value >> b) & 1;
            let (byte, off) = (self.at / 8, 7 - self.at % 8);
            if bit == 1 {
                self.buf[byte] |= 1 << off;
            } else {
                self.buf[byte] &= !(1 << off);
            }
            self.at += 1;
        }
    }
}

fn get_bits(buf: &[u8], at: &mut usize, bits: u32) -> u64 {
    let mut v = 0u64;
    for _ in 0..bits {
        let (byte, off) = (*at / 8, 7 - *at % 8);
        v = (v << 1) | ((buf[byte] >> off) & 1) as u64;
        *at += 1;
    }
    v
}

impl Lnh {
    /// Algorithm 2: the header of a leaf node of `pages` leaf pages whose
    /// live entries, in key order, sit on `page_of` (one leaf-page id per
    /// entry) with keys `keys`; `fei` is the slot bitmap when the FEI is on.
    /// `None` when OIDs and KIVs cannot fit a page of `page_size` bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        page_size: usize,
        pages: u8,
        next: NodeId,
        keys: &[u64],
        page_of: &[u8],
        kiv: bool,
        fei: Option<Vec<bool>>,
    ) -> Option<Lnh> {
        debug_assert_eq!(keys.len(), page_of.len());
        let compact = kiv;
        let mut oids = Vec::new();
        // The first and last key of each OID run, for the KIVs.
        let (mut run_min, mut run_max) = (Vec::new(), Vec::new());
        for (i, &p) in page_of.iter().enumerate() {
            if compact && oids.last() == Some(&p) && i > 0 {
                *run_max.last_mut()? = keys[i];
            } else {
                oids.push(p);
                run_min.push(keys[i]);
                run_max.push(keys[i]);
            }
        }
        let small = keys.first().copied().unwrap_or(0);
        let large = keys.last().copied().unwrap_or(0);
        let k = bits_of_difference(large - small);
        let b = bits_for(pages as u64);
        let fei_bits = fei.as_ref().map_or(0, Vec::len);
        let space = (page_size.checked_sub(FRAME_HEADER + HEADER)? * 8) as u64;
        let fixed = oids.len() as u64 * b as u64 + fei_bits as u64;
        if fixed > space || oids.len() > u16::MAX as usize || keys.len() > u16::MAX as usize {
            return None;
        }
        let (interval, kivs, disjoint) = if kiv && !oids.is_empty() {
            let cnt = oids.len() as u64;
            // The smallest interval whose KIVs fit beside the OIDs.
            let interval = (1..=cnt).find(|&i| fixed + cnt.div_ceil(i) * k as u64 <= space)?;
            let kivs = run_max
                .chunks(interval as usize)
                .map(|c| *c.last().expect("chunks are never empty"))
                .collect();
            // Interval j ends with run j·iv − 1 and the next starts with run
            // j·iv.
            let iv = interval as usize;
            let disjoint = (iv..run_min.len())
                .step_by(iv)
                .all(|r| run_max[r - 1] < run_min[r]);
            (interval as u16, kivs, disjoint)
        } else {
            (0, Vec::new(), false)
        };
        Some(Lnh {
            pages,
            next,
            entries: keys.len() as u16,
            small,
            kiv,
            compact,
            oids,
            interval,
            kivs,
            fei: fei.unwrap_or_default(),
            disjoint,
        })
    }

    /// Bits per KIV.
    fn kiv_bits(&self) -> u32 {
        let large = self.kivs.iter().copied().max().unwrap_or(self.small);
        bits_of_difference(large - self.small)
    }

    /// Encodes the header into a whole page and seals it.
    pub fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        let p = &mut out[FRAME_HEADER..];
        p[0] = self.pages;
        p[1] = (if self.kiv { FLAG_KIV } else { 0 })
            | (if self.compact { FLAG_COMPACT } else { 0 })
            | (if self.fei.is_empty() { 0 } else { FLAG_FEI })
            | (if self.disjoint { FLAG_DISJOINT } else { 0 });
        p[2..4].copy_from_slice(&(self.oids.len() as u16).to_le_bytes());
        p[4..6].copy_from_slice(&self.interval.to_le_bytes());
        let k = self.kiv_bits();
        p[6] = k as u8;
        p[8..12].copy_from_slice(&self.next.to_le_bytes());
        p[12..14].copy_from_slice(&self.entries.to_le_bytes());
        p[14..22].copy_from_slice(&self.small.to_le_bytes());
        let b = bits_for(self.pages as u64);
        let mut w = Bits {
            buf: &mut p[HEADER..],
            at: 0,
        };
        for &o in &self.oids {
            w.put(o as u64, b);
        }
        for &kv in &self.kivs {
            w.put(kv - self.small, k);
        }
        for &f in &self.fei {
            w.put(f as u64, 1);
        }
        let used = HEADER + w.at.div_ceil(8);
        page::seal(out, PageKind::LeafHeader, used);
    }

    /// Decodes a header read from `page_no`; `slots` per leaf page sizes the
    /// FEI.
    pub fn decode(frame: &[u8], page_no: u64, slots: usize) -> Result<Lnh, IndexError> {
        let mut h = Lnh::default();
        h.decode_into(frame, page_no, slots)?;
        Ok(h)
    }

    /// [`Lnh::decode`] into `self`, reusing its memory (a search decodes a
    /// header per leaf it visits).
    pub fn decode_into(
        &mut self,
        frame: &[u8],
        page_no: u64,
        slots: usize,
    ) -> Result<(), IndexError> {
        let corrupt = |d: &str| IndexError::Corrupt {
            page: page_no,
            detail: format!("leaf node header: {d}"),
        };
        let p = page::open(frame, PageKind::LeafHeader, page_no)?
            .ok_or_else(|| corrupt("empty page"))?;
        if p.len() < HEADER {
            return Err(corrupt("shorter than its header"));
        }
        let pages = p[0];
        let flags = p[1];
        let cnt = u16::from_le_bytes([p[2], p[3]]) as usize;
        let interval = u16::from_le_bytes([p[4], p[5]]);
        let k = p[6] as u32;
        let next = u32::from_le_bytes([p[8], p[9], p[10], p[11]]);
        let entries = u16::from_le_bytes([p[12], p[13]]);
        let mut s = [0u8; 8];
        s.copy_from_slice(&p[14..22]);
        let small = u64::from_le_bytes(s);
        let kiv = flags & FLAG_KIV != 0;
        let fei_on = flags & FLAG_FEI != 0;
        if pages == 0 || k > 64 || (kiv && cnt > 0 && interval == 0) {
            return Err(corrupt("fields out of range"));
        }
        let b = bits_for(pages as u64);
        let n_kivs = if kiv && cnt > 0 {
            cnt.div_ceil(interval as usize)
        } else {
            0
        };
        let fei_bits = if fei_on { pages as usize * slots } else { 0 };
        let need = cnt * b as usize + n_kivs * k as usize + fei_bits;
        let stream = &p[HEADER..];
        if need > stream.len() * 8 {
            return Err(corrupt("bit stream longer than the page"));
        }
        let mut at = 0;
        self.oids.clear();
        for _ in 0..cnt {
            let o = get_bits(stream, &mut at, b);
            if o >= pages as u64 {
                return Err(corrupt("OID beyond the leaf pages"));
            }
            self.oids.push(o as u8);
        }
        self.kivs.clear();
        self.kivs
            .extend((0..n_kivs).map(|_| small.wrapping_add(get_bits(stream, &mut at, k))));
        self.fei.clear();
        self.fei
            .extend((0..fei_bits).map(|_| get_bits(stream, &mut at, 1) == 1));
        self.pages = pages;
        self.next = next;
        self.entries = entries;
        self.small = small;
        self.kiv = kiv;
        self.compact = flags & FLAG_COMPACT != 0;
        self.disjoint = flags & FLAG_DISJOINT != 0;
        self.interval = interval;
        Ok(())
    }

    /// Algorithm 3: the leaf pages that may hold entries with key `key`
    /// (every interval whose key range can contain it, since repeated keys
    /// may straddle intervals), in key order, without repeats. Without KIVs
    /// every page named by an OID.
    pub fn pages_for(&self, lo: u64, hi: u64, out: &mut Vec<u8>) {
        out.clear();
        let add = |o: u8, out: &mut Vec<u8>| {
            if !out.contains(&o) {
                out.push(o);
            }
        };
        if !self.kiv || self.interval == 0 {
            for &o in &self.oids {
                add(o, out);
            }
            return;
        }
        let iv = self.interval as usize;
        // The first interval whose largest key reaches `lo`...
        let first = self.kivs.partition_point(|&k| k < lo);
        for (i, &kmax) in self.kivs.iter().enumerate().skip(first) {
            for &o in &self.oids[i * iv..((i + 1) * iv).min(self.oids.len())] {
                add(o, out);
            }
            // ...through the first whose largest key passes `hi` (or
            // reaches it, when no key goes on into the next interval).
            if kmax > hi || (self.disjoint && kmax == hi) {
                break;
            }
        }
    }

    /// The largest key recorded (the last KIV), if any.
    pub fn largest(&self) -> Option<u64> {
        self.kivs.last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trip_and_interval_search(
            mut entries in proptest::collection::vec(
                (prop_oneof![0u64..50_000, Just(0), Just(u64::MAX), any::<u64>()], 0u8..8),
                1..400,
            ),
            page_size in prop_oneof![Just(512usize), Just(2048), Just(4096)],
            kiv in any::<bool>(),
            probe in prop_oneof![0u64..50_000, Just(u64::MAX)],
        ) {
            entries.sort();
            let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
            let page_of: Vec<u8> = entries.iter().map(|e| e.1).collect();
            // 400 three-bit OIDs and one KIV always fit half a kilobyte.
            let h = Lnh::build(page_size, 8, 7, &keys, &page_of, kiv, None).unwrap();
            let mut page = vec![0u8; page_size];
            h.encode(&mut page);
            let back = Lnh::decode(&page, 1, 61).unwrap();
            prop_assert_eq!(&back, &h);
            // Every page holding the probe key is named by the search.
            let mut named = Vec::new();
            back.pages_for(probe, probe, &mut named);
            for e in entries.iter().filter(|e| e.0 == probe) {
                prop_assert!(named.contains(&e.1), "{:?} not in {:?}", e, named);
            }
        }
    }

    #[test]
    fn compaction_merges_runs_and_keeps_the_interval_at_one() {
        let keys: Vec<u64> = (100..160).collect();
        let page_of: Vec<u8> = keys.iter().map(|k| ((k - 100) / 20) as u8).collect();
        let h = Lnh::build(512, 4, 1, &keys, &page_of, true, None).unwrap();
        assert_eq!(h.oids, vec![0, 1, 2]);
        assert_eq!(h.interval, 1);
        assert_eq!(h.kivs, vec![119, 139, 159]);
        let mut pages = Vec::new();
        h.pages_for(125, 125, &mut pages);
        assert_eq!(pages, vec![1]);
        // Without KIVs, one OID per entry.
        let h = Lnh::build(512, 4, 1, &keys, &page_of, false, None).unwrap();
        assert_eq!(h.oids.len(), 60);
    }

    #[test]
    fn a_key_at_a_kiv_reads_the_next_interval_only_when_it_repeats_there() {
        // Runs: page 0 holds 10..=19, page 1 holds 20..=29.
        let keys: Vec<u64> = (10..30).collect();
        let page_of: Vec<u8> = keys.iter().map(|k| ((k - 10) / 10) as u8).collect();
        let h = Lnh::build(512, 2, 1, &keys, &page_of, true, None).unwrap();
        assert!(h.disjoint);
        let mut page = vec![0u8; 512];
        h.encode(&mut page);
        let back = Lnh::decode(&page, 0, 61).unwrap();
        let mut pages = Vec::new();
        back.pages_for(19, 19, &mut pages);
        assert_eq!(pages, vec![0], "19 is page 0's KIV and not on page 1");
        // Key 19 repeated on page 1: it straddles the boundary.
        let mut keys = keys;
        keys.insert(10, 19);
        let mut page_of = page_of;
        page_of.insert(10, 1);
        let h = Lnh::build(512, 2, 1, &keys, &page_of, true, None).unwrap();
        assert!(!h.disjoint);
        h.pages_for(19, 19, &mut pages);
        assert_eq!(pages, vec![0, 1]);
        // A header without the bit (as written before it existed) reads on.
        let mut old = back;
        old.disjoint = false;
        old.pages_for(19, 19, &mut pages);
        assert_eq!(pages, vec![0, 1]);
    }

    #[test]
    fn the_interval_grows_when_kivs_do_not_fit() {
        // 600 entries alternating between 2 pages: 600 OIDs of 1 bit and
        // 20-bit KIVs cannot all fit 512 bytes at interval 1.
        let keys: Vec<u64> = (0..600).map(|i| i * 1000).collect();
        let page_of: Vec<u8> = (0..600).map(|i| (i % 2) as u8).collect();
        let h = Lnh::build(512, 2, 1, &keys, &page_of, true, None).unwrap();
        assert!(h.interval > 1, "{}", h.interval);
        let mut page = vec![0u8; 512];
        h.encode(&mut page);
        assert_eq!(Lnh::decode(&page, 0, 61).unwrap(), h);
    }
}
