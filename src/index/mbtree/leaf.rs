//! MB-Tree leaf nodes in RAM and on flash (Roh et al. 2009 §4.1, §4.3, §4.5):
//! a leaf node is a Leaf Node Header page followed by `L` leaf pages; new
//! entries go into free slots by **best fit**, each rewritten leaf page is
//! sorted locally, and the header is rebuilt by [`Lnh::build`].
//!
//! Without the LNH (`lnh=false`, §6.4) a leaf node is `L` pages holding its
//! entries sorted across pages, like a multi-page B-tree node: an insert
//! rewrites every page from the first one it changes, and a search
//! binary-searches the pages.
//!
//! Leaf page layout (a page frame of kind `LeafPage`; payload,
//! little-endian): the next leaf node id (`u32`, used on page 0 without the
//! LNH), the entry count (`u16`), then the entries sorted by (key, value)
//! at the entry format's widths.

use crate::index::{EntryFormat, IndexError};
use crate::node::page::{self, PageKind, FRAME_HEADER};
use crate::node::{NodeId, NO_NODE};

use super::lnh::Lnh;

/// Bytes of a leaf page's header inside its frame payload.
pub const PAGE_HEADER: usize = 6;

/// Entries a leaf page holds.
pub fn slots_per_page(page_size: usize, format: EntryFormat) -> usize {
    page_size.saturating_sub(FRAME_HEADER + PAGE_HEADER) / format.entry_bytes()
}

/// A leaf node read into RAM.
#[derive(Clone, Debug, Default)]
pub struct Leaf {
    /// Per leaf page, its physical entries in page order (sorted locally).
    pub pages: Vec<Vec<(u64, u64)>>,
    /// Per leaf page and slot: live? Only with the FEI; empty otherwise.
    pub live: Vec<Vec<bool>>,
    pub next: NodeId,
    /// Pages rewritten since the leaf was read.
    pub dirty: Vec<bool>,
    /// The KIV interval of the header read (0 without one).
    pub interval: u16,
}

impl Leaf {
    /// A fresh leaf of `pages` empty pages.
    pub fn empty(pages: usize, fei: bool) -> Leaf {
        Leaf {
            pages: vec![Vec::new(); pages],
            live: if fei {
                vec![Vec::new(); pages]
            } else {
                Vec::new()
            },
            next: NO_NODE,
            dirty: vec![true; pages],
            interval: 1,
        }
    }

    fn fei(&self) -> bool {
        !self.live.is_empty()
    }

    fn is_live(&self, p: usize, s: usize) -> bool {
        !self.fei() || self.live[p][s]
    }

    /// Live entries.
    pub fn len(&self) -> usize {
        (0..self.pages.len()).map(|p| self.live_in(p)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn live_in(&self, p: usize) -> usize {
        if self.fei() {
            self.live[p].iter().filter(|&&l| l).count()
        } else {
            self.pages[p].len()
        }
    }

    /// Every live entry with its page, sorted by entry.
    pub fn sorted(&self) -> Vec<((u64, u64), u8)> {
        let mut all = Vec::with_capacity(self.len());
        for (p, page) in self.pages.iter().enumerate() {
            for (s, &e) in page.iter().enumerate() {
                if self.is_live(p, s) {
                    all.push((e, p as u8));
                }
            }
        }
        all.sort_unstable();
        all
    }

    /// Whether the live entry `e` is here.
    pub fn contains(&self, e: (u64, u64)) -> bool {
        self.pages
            .iter()
            .enumerate()
            .any(|(p, page)| page.binary_search(&e).is_ok_and(|s| self.is_live(p, s)))
    }

    /// Deletes the live entry `e`: with the FEI by clearing its bit (the
    /// page is not rewritten), else by rewriting its page. Whether it was
    /// there.
    pub fn delete(&mut self, e: (u64, u64)) -> bool {
        for p in 0..self.pages.len() {
            if let Ok(s) = self.pages[p].binary_search(&e) {
                if !self.is_live(p, s) {
                    continue;
                }
                if self.fei() {
                    self.live[p][s] = false;
                } else {
                    self.pages[p].remove(s);
                    self.dirty[p] = true;
                }
                return true;
            }
        }
        false
    }

    /// Versions of keys: deletes every live entry of `key` but
    /// `(key, keep)` (kept once, when `keep` is given and present), as
    /// [`Leaf::delete`] does. (Entries deleted, whether one was kept.)
    pub fn delete_key(&mut self, key: u64, keep: Option<u64>) -> (u64, bool) {
        let (mut deleted, mut kept) = (0, false);
        for p in 0..self.pages.len() {
            let mut s = self.pages[p].partition_point(|e| e.0 < key);
            while self.pages[p].get(s).is_some_and(|e| e.0 == key) {
                if !self.is_live(p, s) {
                    s += 1;
                    continue;
                }
                if !kept && keep == Some(self.pages[p][s].1) {
                    kept = true;
                    s += 1;
                    continue;
                }
                if self.fei() {
                    self.live[p][s] = false;
                    s += 1;
                } else {
                    self.pages[p].remove(s);
                    self.dirty[p] = true;
                }
                deleted += 1;
            }
        }
        (deleted, kept)
    }

    /// Best-fit placement (§4.3) of `new` (sorted) into pages of `slots`
    /// entries: repeatedly the page whose free slots are nearest the number
    /// left to place; each page written gets its entries sorted locally (and
    /// loses the slots the FEI marked free). The caller checked the room.
    pub fn place_best_fit(&mut self, new: &[(u64, u64)], slots: usize) {
        let mut rest = new;
        while !rest.is_empty() {
            let best = (0..self.pages.len())
                .map(|p| (slots - self.live_in(p), p))
                .filter(|&(free, _)| free > 0)
                .min_by_key(|&(free, p)| (free.abs_diff(rest.len()), p));
            let Some((free, p)) = best else { break };
            let n = free.min(rest.len());
            if self.fei() {
                let live = std::mem::take(&mut self.live[p]);
                let page = std::mem::take(&mut self.pages[p]);
                self.pages[p] = page
                    .into_iter()
                    .zip(live)
                    .filter(|&(_, l)| l)
                    .map(|(e, _)| e)
                    .collect();
            }
            self.pages[p].extend_from_slice(&rest[..n]);
            self.pages[p].sort_unstable();
            if self.fei() {
                self.live[p] = vec![true; self.pages[p].len()];
            }
            self.dirty[p] = true;
            rest = &rest[n..];
        }
    }

    /// Lays `entries` (sorted) out in page order, `slots` a page, marking
    /// the pages whose content changed (the no-LNH layout, and new nodes).
    pub fn lay_out_sorted(&mut self, entries: &[(u64, u64)], slots: usize) {
        let mut chunks = entries.chunks(slots.max(1));
        for p in 0..self.pages.len() {
            let chunk = chunks.next().unwrap_or(&[]);
            if self.pages[p] != chunk {
                self.pages[p].clear();
                self.pages[p].extend_from_slice(chunk);
                self.dirty[p] = true;
            }
            if self.fei() {
                self.live[p] = vec![true; self.pages[p].len()];
            }
        }
    }

    /// The header describing this leaf, or `None` when it cannot fit a page.
    pub fn header(&self, page_size: usize, kiv: bool, slots: usize) -> Option<Lnh> {
        let sorted = self.sorted();
        let keys: Vec<u64> = sorted.iter().map(|e| e.0 .0).collect();
        let page_of: Vec<u8> = sorted.iter().map(|e| e.1).collect();
        let fei = self.fei().then(|| {
            let mut bits = vec![false; self.pages.len() * slots];
            for (p, live) in self.live.iter().enumerate() {
                for (s, &l) in live.iter().enumerate() {
                    bits[p * slots + s] = l;
                }
            }
            bits
        });
        Lnh::build(
            page_size,
            self.pages.len() as u8,
            self.next,
            &keys,
            &page_of,
            kiv,
            fei,
        )
    }
}

/// Encodes leaf page `entries` (sorted) with `next` into a whole page.
pub fn encode_page(out: &mut [u8], next: NodeId, entries: &[(u64, u64)], format: EntryFormat) {
    out.fill(0);
    let p = &mut out[FRAME_HEADER..];
    p[0..4].copy_from_slice(&next.to_le_bytes());
    p[4..6].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    let (kb, e) = (format.key_bytes as usize, format.entry_bytes());
    let mut at = PAGE_HEADER;
    for &(k, v) in entries {
        format.put_key(&mut p[at..], k);
        format.put_value(&mut p[at + kb..], v);
        at += e;
    }
    page::seal(out, PageKind::LeafPage, at);
}

/// Decodes a leaf page read from `page_no` into `entries`; returns its next
/// leaf id. An empty (never written) page is an empty leaf page.
pub fn decode_page(
    frame: &[u8],
    page_no: u64,
    format: EntryFormat,
    slots: usize,
    entries: &mut Vec<(u64, u64)>,
) -> Result<NodeId, IndexError> {
    entries.clear();
    let Some(p) = page::open(frame, PageKind::LeafPage, page_no)? else {
        return Ok(NO_NODE);
    };
    let corrupt = |d: &str| IndexError::Corrupt {
        page: page_no,
        detail: format!("leaf page: {d}"),
    };
    if p.len() < PAGE_HEADER {
        return Err(corrupt("shorter than its header"));
    }
    let next = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
    let n = u16::from_le_bytes([p[4], p[5]]) as usize;
    let (kb, e) = (format.key_bytes as usize, format.entry_bytes());
    if n > slots || PAGE_HEADER + n * e > p.len() {
        return Err(corrupt("entry count beyond the page"));
    }
    let mut at = PAGE_HEADER;
    for _ in 0..n {
        let entry = (format.read_key(&p[at..]), format.read_value(&p[at + kb..]));
        if entries.last().is_some_and(|&last| last >= entry) {
            return Err(corrupt("entries out of order"));
        }
        entries.push(entry);
        at += e;
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_picks_the_page_whose_free_slots_are_nearest() {
        // The paper's Fig. 5: 5-slot pages with 3 and 2 free slots, 4 new
        // entries: LP1 (3 free) takes 3, then LP2 takes the last.
        let mut leaf = Leaf::empty(2, false);
        leaf.pages[0] = vec![(1, 0), (2, 0)];
        leaf.pages[1] = vec![(3, 0), (4, 0), (5, 0)];
        leaf.dirty = vec![false, false];
        leaf.place_best_fit(&[(10, 0), (11, 0), (12, 0), (13, 0)], 5);
        assert_eq!(
            leaf.pages[0],
            vec![(1, 0), (2, 0), (10, 0), (11, 0), (12, 0)]
        );
        assert_eq!(leaf.pages[1], vec![(3, 0), (4, 0), (5, 0), (13, 0)]);
        // An exact fit wins over a larger page.
        let mut leaf = Leaf::empty(3, false);
        leaf.pages[0] = vec![];
        leaf.pages[1] = vec![(1, 0), (2, 0), (3, 0)];
        leaf.pages[2] = vec![(4, 0)];
        leaf.dirty = vec![false; 3];
        leaf.place_best_fit(&[(7, 0), (8, 0)], 5);
        assert_eq!(leaf.dirty, vec![false, true, false]);
    }

    #[test]
    fn fei_deletes_flip_bits_without_rewriting_pages() {
        let mut leaf = Leaf::empty(1, true);
        leaf.lay_out_sorted(&[(1, 1), (2, 2), (3, 3)], 4);
        leaf.dirty = vec![false];
        assert!(leaf.delete((2, 2)));
        assert!(!leaf.dirty[0]);
        assert!(!leaf.contains((2, 2)));
        assert_eq!(leaf.len(), 2);
        // Placing into the page rewrites it without the freed slot.
        leaf.place_best_fit(&[(9, 9)], 4);
        assert_eq!(leaf.pages[0], vec![(1, 1), (3, 3), (9, 9)]);
    }

    #[test]
    fn pages_round_trip() {
        let f = EntryFormat::new(4, 4).unwrap();
        let mut buf = vec![0u8; 512];
        encode_page(&mut buf, 9, &[(1, 2), (3, 4)], f);
        let mut out = Vec::new();
        let slots = slots_per_page(512, f);
        assert_eq!(slots, 61);
        assert_eq!(decode_page(&buf, 0, f, slots, &mut out).unwrap(), 9);
        assert_eq!(out, vec![(1, 2), (3, 4)]);
    }
}
