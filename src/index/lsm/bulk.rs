//! Bulk loading of the LSM-tree: the sorted input becomes one B+-tree,
//! built bottom-up with its leaves at consecutive LBAs (as a rolling merge
//! builds one, §3 of O'Neil et al.), owned whole by the bottom component
//! `Cb`, where `b` is the fewest components whose bottom capacity
//! `c0 · ratio^b` holds the input; C1 … C(b−1) start empty and fill from C0
//! by rolling merges as the measured work inserts. That is the tree a
//! merge of everything into the bottom component would have left,
//! written without the merges.
//!
//! The tree's extents are reserved for the input's size before the first
//! page is written; a failed load releases them and installs nothing.

use super::meta::Segment;
use super::{entry, Component, LsmTree};
use crate::index::bulk::BulkInput;
use crate::index::runs::page::bottom_level;
use crate::index::{IndexError, Result};

impl LsmTree {
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
        let leaf_pages = n.div_ceil(per);
        let leaf_start = self.extents.alloc(leaf_pages * span)?;
        let mut tree = self.with_directory((leaf_start, leaf_pages))?;
        let (dir_start, dir_pages) = (tree.dir_start, tree.dir_reserved);
        let mut last = None;
        let mut written = Ok(());
        for pair in input.by_ref() {
            if !tree.can_push() {
                written = Err(IndexError::BulkLoad(
                    "the input outgrew the extent its size reserved".into(),
                ));
                break;
            }
            if self.by_key && last.is_some_and(|(k, _)| k == pair.0) {
                written = Err(IndexError::BulkLoad(format!(
                    "key {} repeats: an LSM-tree of versions of keys holds one value a key",
                    pair.0
                )));
                break;
            }
            written = self.io.push(&mut tree, entry(pair, true));
            if written.is_err() {
                break;
            }
            last = Some(pair);
        }
        let checked = written.and_then(|()| input.finish());
        let (Ok(_), Some(high)) = (&checked, last) else {
            self.extents.release(leaf_start, leaf_pages * span);
            self.extents.release(dir_start, dir_pages * span);
            return checked.and(Err(IndexError::BulkLoad("the input was empty".into())));
        };
        let id = self.next_tree;
        self.next_tree += 1;
        self.trees.insert(id, tree);
        if let Err(e) = self.seal(id) {
            self.trees.remove(&id);
            self.extents.release(leaf_start, leaf_pages * span);
            self.extents.release(dir_start, dir_pages * span);
            return Err(e);
        }
        self.disk = vec![Component::default(); bottom];
        let c = &mut self.disk[bottom - 1];
        c.entries = n;
        c.segments.push(Segment {
            tree: id,
            low: None,
            high,
        });
        self.dirty = true;
        self.fit_cache();
        Ok(())
    }
}
