//! Bulk loading of the LSM-tree: the sorted input becomes one B+-tree,
//! built bottom-up with its leaves at consecutive LBAs (as a rolling merge
//! builds one, §3 of O'Neil et al.), owned whole by the bottom component
//! `Cb`, where `b` is the fewest components whose bottom capacity
//! `c0 · ratio^b` holds the input; C1 … C(b−1) start empty and fill from C0
//! by rolling merges as the measured work inserts. That is the tree a
//! merge of everything into the bottom component would have left,
//! written without the merges.
//!
//! **Laid-out components** (`layout_above`, default [`LAYOUT_ABOVE`]): a
//! load of more entries, with C2 or more between C1 and the bottom, gives
//! each of C2 … C(b−1) its capacity `c0 · ratioⁱ` of the input, an evenly
//! spread share (every m-th entry in key order), each as its own tree, and
//! the bottom the rest; [`Index::steady_state_inserts`] then leaves only
//! C0's and C1's capacities to random inserts. Why: the runner brings the
//! LSM-tree to its steady state, every component above the bottom at
//! capacity, by inserting their capacities in random order after the load
//! (`runner::bulk_load`); from 1.82·10⁸ entries at ratio 112 that is C2's
//! 1.83·10⁸ entries through rolling merges, each pass of C1 rewriting C2
//! (about 10¹⁰ entries moved: hours of simulation before the first
//! measured request). The components the inserts would have left are
//! those sizes with their keys spread uniformly, which the layout writes
//! in one pass; C1 still fills by rolling merges, as at 10⁸. At and below
//! [`LAYOUT_ABOVE`] nothing changes (the committed results' runs), and
//! `layout_above` can force either path at any size (the check that both
//! give the same shapes: `tests/fig3c_scale.rs`; docs/DEVIATIONS.md).
//!
//! The trees' extents are reserved for their sizes before the first page
//! is written; a failed load releases them and installs nothing.
//!
//! [`Index::steady_state_inserts`]: crate::index::Index::steady_state_inserts

use super::meta::Segment;
use super::tree::{Pair, Tree};
use super::{entry, Component, LsmTree};
use crate::index::bulk::BulkInput;
use crate::index::runs::page::{bottom_level, level_capacity};
use crate::index::{IndexError, Result};

/// Loads of more entries lay out C2 … C(b−1) (module docs): the largest
/// size with committed results stays on the rolling path.
pub(crate) const LAYOUT_ABOVE: u64 = 100_000_000;

/// One tree the load writes: the component (1-based) that will own it,
/// the entries it takes, and, for a component above the bottom, the share
/// of the candidates it picks (evenly spread).
struct Share {
    component: usize,
    entries: u64,
    /// Candidates seen, and how many there are (entries no deeper laid-out
    /// component took).
    seen: u64,
    of: u64,
    tree: Option<Tree>,
    high: Option<Pair>,
}

impl Share {
    /// Whether the next candidate is this share's: `entries` of `of`
    /// candidates, evenly spread (one in every `of / entries`).
    fn takes_next(&mut self) -> bool {
        let (i, u, n) = (
            self.seen as u128,
            self.entries as u128,
            self.of.max(1) as u128,
        );
        self.seen += 1;
        (i + 1) * u / n > i * u / n
    }
}

impl LsmTree {
    /// The capacities random inserts fill after a laid-out load of
    /// `entries` in all: C0's and C1's (C0's alone with one disk component).
    pub(super) fn rolling_capacity(&self, entries: u64) -> u64 {
        let levels = bottom_level(self.c0_capacity, self.ratio, entries).min(2);
        (0..levels)
            .map(|i| level_capacity(self.c0_capacity, self.ratio, i))
            .sum::<u64>()
            .min(entries)
    }

    /// Whether a bulk load of `n` entries lays out the components between
    /// C1 and the bottom (module docs).
    pub(super) fn lays_out(&self, n: u64) -> bool {
        n > self.layout_above && bottom_level(self.c0_capacity, self.ratio, n) >= 3
    }

    /// The trees a load of `n` entries into `bottom` components writes:
    /// C(b−1) … C2 at capacity where laid out (leaving the bottom at least
    /// one entry), then the bottom with the rest.
    fn shares(&self, n: u64, bottom: usize) -> Vec<Share> {
        let mut out = Vec::new();
        let mut left = n;
        if self.lays_out(n) {
            for c in (2..bottom).rev() {
                let entries = level_capacity(self.c0_capacity, self.ratio, c).min(left - 1);
                if entries > 0 {
                    out.push(Share {
                        component: c,
                        entries,
                        seen: 0,
                        of: left,
                        tree: None,
                        high: None,
                    });
                    left -= entries;
                }
            }
        }
        out.push(Share {
            component: bottom,
            entries: left,
            seen: 0,
            of: left,
            tree: None,
            high: None,
        });
        out
    }

    /// Returns the extents of every tree in `shares` (a failed load).
    fn release_shares(&mut self, shares: &[Share]) {
        let span = self.io.span;
        for t in shares.iter().filter_map(|s| s.tree.as_ref()) {
            self.extents.release(t.leaf_start, t.leaf_reserved * span);
            self.extents.release(t.dir_start, t.dir_reserved * span);
        }
    }

    pub(super) fn bulk_load_sorted(
        &mut self,
        entries: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<()> {
        let empty = self.c0.is_empty() && self.disk.iter().all(|c| c.segments.is_empty());
        let Some(mut input) = BulkInput::start(empty, super::NAME, self.io.format, entries)? else {
            return Ok(());
        };
        let n = input.expected();
        let bottom = bottom_level(self.c0_capacity, self.ratio, n);
        let per = self.io.per_page as u64;
        let span = self.io.span;
        let mut shares = self.shares(n, bottom);
        for i in 0..shares.len() {
            let leaf_pages = shares[i].entries.div_ceil(per);
            let tree = self
                .extents
                .alloc(leaf_pages * span)
                .and_then(|leaf_start| self.with_directory((leaf_start, leaf_pages)));
            match tree {
                Ok(t) => shares[i].tree = Some(t),
                Err(e) => {
                    self.release_shares(&shares);
                    return Err(e);
                }
            }
        }
        let mut last = None;
        let mut written = Ok(());
        for pair in input.by_ref() {
            // The deepest laid-out component picks first; the bottom takes
            // what none picked.
            let last_share = shares.len() - 1;
            let at = (0..last_share)
                .find(|&i| shares[i].takes_next())
                .unwrap_or(last_share);
            let share = &mut shares[at];
            // Invariant: every share got its tree above.
            let Some(tree) = share.tree.as_mut().filter(|t| t.can_push()) else {
                written = Err(IndexError::BulkLoad(
                    "the input outgrew the extent its size reserved".into(),
                ));
                break;
            };
            if self.by_key && last.is_some_and(|(k, _)| k == pair.0) {
                written = Err(IndexError::BulkLoad(format!(
                    "key {} repeats: an LSM-tree of versions of keys holds one value a key",
                    pair.0
                )));
                break;
            }
            written = self.io.push(tree, entry(pair, true));
            if written.is_err() {
                break;
            }
            share.high = Some(pair);
            last = Some(pair);
        }
        let checked = written.and_then(|()| input.finish());
        if checked.is_err() || shares.iter().any(|s| s.high.is_none()) {
            self.release_shares(&shares);
            return checked.and(Err(IndexError::BulkLoad("the input was empty".into())));
        }
        let first_id = self.next_tree;
        let mut installed = Vec::with_capacity(shares.len());
        for s in &mut shares {
            let (Some(tree), Some(high)) = (s.tree.take(), s.high) else {
                continue;
            };
            let id = self.next_tree;
            self.next_tree += 1;
            self.trees.insert(id, tree);
            installed.push((id, s.component, s.entries, high));
        }
        for &(id, ..) in &installed {
            if let Err(e) = self.seal(id) {
                // A sealed tree holds only what it wrote; the others their
                // whole reservation.
                for &(id, ..) in &installed {
                    if let Some(t) = self.trees.remove(&id) {
                        self.extents.release(t.leaf_start, t.leaf_reserved * span);
                        self.extents.release(t.dir_start, t.dir_reserved * span);
                    }
                }
                self.next_tree = first_id;
                return Err(e);
            }
        }
        self.disk = vec![Component::default(); bottom];
        for (id, component, entries, high) in installed {
            let c = &mut self.disk[component - 1];
            c.entries = entries;
            c.segments.push(Segment {
                tree: id,
                low: None,
                high,
            });
        }
        self.dirty = true;
        self.fit_cache();
        Ok(())
    }
}
