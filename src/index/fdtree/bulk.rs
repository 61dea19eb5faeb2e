//! Bulk loading of the FD-tree: the sorted input becomes one sorted run,
//! written sequentially as the bottom level L(l−1), where l is the fewest
//! levels whose bottom capacity ‖L0‖·k^(l−1) holds the input; the levels
//! above are then rebuilt from its external fences, exactly as §II-C
//! leaves them after a merge cascade into the bottom level (L1 … L(l−2)
//! hold fences only, the head tree holds L1's fences and no entries).
//! That is the FD-tree a merge of everything into its last level would
//! have produced, written without the merges.
//!
//! With versions of keys (`versions=key`) a repeated key is refused: a
//! level holds one entry a key.
//!
//! The run's extent is reserved for the input's size before the first page
//! is written; a failed load releases it and installs nothing.

use super::{FdTree, Kind, RunMeta, RunWriter};
use crate::index::bulk::BulkInput;
use crate::index::runs::page::{bottom_level, Entry};
use crate::index::{IndexError, Result};

impl FdTree {
    pub(super) fn bulk_load_sorted(
        &mut self,
        entries: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<()> {
        let empty = self.head.is_empty() && self.levels.is_empty();
        let Some(mut input) = BulkInput::start(empty, super::NAME, self.format, entries)? else {
            return Ok(());
        };
        let n = input.expected();
        let bottom = bottom_level(self.head_capacity, self.k, n);
        let (format, page_size, span) = (self.format, self.page_size, self.span);
        let reserve = RunWriter::pages_for(format, page_size, n) * span;
        let start = self.extents.alloc(reserve)?;
        let mut out = RunWriter::new(format, page_size, bottom as u8, start, false);
        let by_key = self.by_key;
        let written = {
            let dev = self.dev();
            let mut r = Ok(());
            let mut last = None;
            for (key, value) in input.by_ref() {
                if by_key && last == Some(key) {
                    r = Err(IndexError::BulkLoad(format!(
                        "key {key} repeats: an FD-tree of versions of keys holds one value a key"
                    )));
                    break;
                }
                last = Some(key);
                let e = Entry {
                    key,
                    value,
                    kind: Kind::Index,
                };
                r = out.push(dev, e);
                if r.is_err() {
                    break;
                }
            }
            r.and_then(|()| out.finish(dev))
        };
        let (run, keys) = match written.and_then(|w| input.finish().map(|_| w)) {
            Ok(w) => w,
            Err(e) => {
                self.extents.release(start, reserve);
                return Err(e);
            }
        };
        self.extents
            .release(start + run.pages * span, reserve - run.pages * span);
        self.levels = vec![RunMeta::default(); bottom];
        self.levels[bottom - 1] = run;
        self.rebuild_above(bottom, keys)
    }
}
