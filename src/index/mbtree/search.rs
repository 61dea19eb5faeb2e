//! How MB-Tree reads a leaf node for a query (Roh et al. 2009 §4.4): with the
//! leaf node header, only the pages of the key interval the KIVs name;
//! without KIVs, a pseudo-binary search over the uncompacted OIDs; without
//! the header (`lnh=false`), a binary search over sorted pages. Split out of
//! `mod.rs` by topic; the on-flash format is in `mod.rs` and `leaf.rs`.

use super::*;

impl MbTree {
    /// Adds the live entries of leaf `id` in `lo ..= hi` (by key) to `out`;
    /// returns the next leaf to look at, if the range may go on there.
    pub(super) fn scan_leaf(
        &mut self,
        id: NodeId,
        lo: u64,
        hi: u64,
        out: &mut Vec<(u64, u64)>,
    ) -> Result<NodeId> {
        let base = self.base(id);
        let start = out.len();
        let (next, largest) = if self.opts.lnh {
            let h = self.read_header(id)?;
            let found = if self.opts.kiv {
                let mut entries = std::mem::take(&mut self.entries_buf);
                let mut pages = std::mem::take(&mut self.pages_buf);
                h.pages_for(lo, hi, &mut pages);
                let mut r = Ok(());
                for &p in &pages {
                    r = self
                        .read_page(base + 1 + p as u64, &mut entries)
                        .map(|_| ());
                    if r.is_err() {
                        break;
                    }
                    let off = p as usize * self.slots;
                    for (s, &e) in entries.iter().enumerate() {
                        let live = !self.opts.fei || h.fei.get(off + s).copied().unwrap_or(false);
                        if live && e.0 >= lo && e.0 <= hi {
                            out.push(e);
                        }
                    }
                }
                self.entries_buf = entries;
                self.pages_buf = pages;
                r.map(|()| h.largest())
            } else {
                self.pseudo_binary_scan(id, &h, lo, hi, out)
            };
            let next = h.next;
            self.header_buf = h;
            (next, found?)
        } else {
            self.scan_sorted_pages(id, lo, hi, out)?
        };
        out[start..].sort_unstable();
        let go_on = match largest {
            Some(k) => k <= hi,
            None => true,
        };
        Ok(if go_on { next } else { NO_NODE })
    }

    /// §5.3.1: without KIVs, a binary search over the ranks of the entries,
    /// whose pages the uncompacted OIDs name; each page is read once.
    fn pseudo_binary_scan(
        &mut self,
        id: NodeId,
        h: &Lnh,
        lo: u64,
        hi: u64,
        out: &mut Vec<(u64, u64)>,
    ) -> Result<Option<u64>> {
        let base = self.base(id);
        let mut pages: Vec<Option<Vec<(u64, u64)>>> = vec![None; h.pages as usize];
        let n = h.oids.len();
        // Live entries of page p in key order.
        let mut entry_at = |t: &mut Self, rank: usize| -> Result<(u64, u64)> {
            let p = h.oids[rank] as usize;
            let within = h.oids[..rank].iter().filter(|&&o| o as usize == p).count();
            if pages[p].is_none() {
                let mut e = Vec::new();
                t.read_page(base + 1 + p as u64, &mut e)?;
                if t.opts.fei {
                    let off = p * t.slots;
                    e = e
                        .into_iter()
                        .enumerate()
                        .filter(|(s, _)| h.fei.get(off + s).copied().unwrap_or(false))
                        .map(|(_, e)| e)
                        .collect();
                }
                pages[p] = Some(e);
            }
            pages[p]
                .as_ref()
                .and_then(|e| e.get(within).copied())
                .ok_or_else(|| IndexError::Corrupt {
                    page: base,
                    detail: "an OID names more entries than its page holds".into(),
                })
        };
        let (mut a, mut b) = (0, n);
        while a < b {
            let mid = (a + b) / 2;
            if entry_at(self, mid)?.0 < lo {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        let mut largest = None;
        let mut r = a;
        while r < n {
            let e = entry_at(self, r)?;
            if e.0 > hi {
                largest = Some(e.0);
                break;
            }
            out.push(e);
            r += 1;
        }
        if r == n && n > 0 {
            largest = Some(entry_at(self, n - 1)?.0);
        }
        Ok(largest)
    }

    /// Without the LNH: binary search over the leaf's sorted pages, then
    /// the pages from there on while they hold keys in range.
    fn scan_sorted_pages(
        &mut self,
        id: NodeId,
        lo: u64,
        hi: u64,
        out: &mut Vec<(u64, u64)>,
    ) -> Result<(NodeId, Option<u64>)> {
        let base = self.base(id);
        let pages = self.opts.leaf_pages as usize;
        let mut seen: Vec<Option<Vec<(u64, u64)>>> = vec![None; pages];
        let mut next = NO_NODE;
        let mut page = |t: &mut Self, p: usize| -> Result<Vec<(u64, u64)>> {
            if seen[p].is_none() {
                let mut e = Vec::new();
                let n = t.read_page(base + 1 + p as u64, &mut e)?;
                if p == 0 {
                    next = n;
                }
                seen[p] = Some(e);
            }
            Ok(seen[p].clone().unwrap_or_default())
        };
        // The next-leaf link lives on page 0.
        page(self, 0)?;
        let (mut a, mut b) = (0, pages);
        while a < b {
            let mid = (a + b) / 2;
            let e = page(self, mid)?;
            match e.last() {
                Some(last) if last.0 < lo => a = mid + 1,
                _ => b = mid,
            }
        }
        let mut largest = None;
        for p in a..pages {
            let e = page(self, p)?;
            if e.is_empty() {
                break;
            }
            out.extend(e.iter().filter(|x| x.0 >= lo && x.0 <= hi));
            let last = e.last().map(|x| x.0);
            largest = last;
            if last.is_some_and(|k| k > hi) {
                break;
            }
        }
        Ok((next, largest))
    }
}
