//! Flushing the batch processing buffer (Roh et al. 2009 Algorithm 1, §4.3,
//! §4.5): Unique Path Search picks the FTES and the one root-to-leaf path it
//! needs, its operations are applied to the leaf node (best-fit placement,
//! adaptive leaf size at splits), and splits travel back up the path. Split
//! out of `mod.rs` by topic; the invariants are in `mod.rs`.

use super::*;

impl MbTree {
    /// One BPB flush: Unique Path Search for the FTES, then its operations
    /// on the leaf reached.
    pub(super) fn flush_ftes(&mut self) -> Result<()> {
        if self.bpb.is_empty() {
            return Ok(());
        }
        // Positions below are in the one sorted array (`bpb.rs`).
        self.bpb.settle();
        let mut path: Vec<PathNode> = Vec::new();
        let (mut lo, mut hi): ((u64, u64), Option<(u64, u64)>) = ((0, 0), None);
        let mut id = self.meta.root;
        let mut counts = Vec::new();
        for level in (1..self.meta.height).rev() {
            let fetched = self.fetch(id).and_then(|(node, cached, dirty)| {
                match expect_level(&node, id, self.base(id), level) {
                    Ok(()) => Ok((node, cached, dirty)),
                    Err(e) => self.release(id, node, cached, dirty).and(Err(e.into())),
                }
            });
            let (node, cached, dirty) = match fetched {
                Ok(n) => n,
                Err(e) => {
                    self.put_back(path);
                    return Err(e);
                }
            };
            // The TEs of child j are those from separator j - 1 up to
            // separator j (`Node::child_slot`): a binary search a
            // separator, not a look at every TE of the node's range.
            let span = self.bpb.span(lo, hi);
            let mut from = span.start;
            counts.clear();
            for sep in &node.entries {
                let to = self.bpb.below(from..span.end, *sep);
                counts.push(to - from);
                from = to;
            }
            counts.push(span.end - from);
            // One count a child (a damaged node may disagree).
            counts.resize(node.children.len(), 0);
            // The first child with the most TEs.
            let best = (0..counts.len())
                .max_by_key(|&j| (counts[j], std::cmp::Reverse(j)))
                .unwrap_or(0);
            if best > 0 {
                lo = node.entries[best - 1];
            }
            if best < node.entries.len() {
                hi = Some(node.entries[best]);
            }
            let child = node.children[best];
            path.push((id, node, cached, dirty, best));
            id = child;
        }
        let span = self.bpb.span(lo, hi);
        let ftes: Vec<((u64, u64), bool)> = self.bpb.at(span.clone()).collect();
        match self.apply_ftes(id, &ftes, &mut path) {
            Ok(()) => {
                // Applied: the FTES leaves the BPB (the leaf's TEs are
                // contiguous, and nothing else touched the BPB).
                self.bpb.remove(span);
                self.counters.flushes += 1;
                self.counters.ftes_total += ftes.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Nothing of the FTES reached the leaf: it stays buffered.
                self.put_back(path);
                Err(e)
            }
        }
    }

    /// Returns the path's nodes to the cache unchanged (after an error).
    fn put_back(&mut self, path: Vec<PathNode>) {
        for (id, node, cached, dirty, _) in path {
            let _ = self.release(id, node, cached, dirty);
        }
    }

    /// Applies an FTES to leaf `id` (deletes first, §4.2.3), splitting it
    /// when it overflows, and updates the path above.
    fn apply_ftes(
        &mut self,
        id: NodeId,
        ftes: &[((u64, u64), bool)],
        path: &mut Vec<PathNode>,
    ) -> Result<()> {
        let mut leaf = self.read_leaf(id)?;
        let size = leaf.pages.len();
        let before = leaf.len();
        let mut deleted = 0u64;
        let new = if self.opts.versions_by_key {
            // Each TE replaces the key's entries (`versions.rs`); one TE a
            // key, in key order, so `new` is sorted.
            let mut new = Vec::new();
            for &(e, insert) in ftes {
                let (gone, kept) = leaf.delete_key(e.0, insert.then_some(e.1));
                deleted += gone;
                if insert && !kept {
                    new.push(e);
                }
            }
            new
        } else {
            for &(e, insert) in ftes {
                if !insert && leaf.delete(e) {
                    deleted += 1;
                }
            }
            let mut new: Vec<(u64, u64)> = ftes
                .iter()
                .filter(|(_, insert)| *insert)
                .map(|&(e, _)| e)
                .filter(|&e| !leaf.contains(e))
                .collect();
            new.sort_unstable();
            new.dedup();
            new
        };
        let room = size * self.slots;
        let fits = leaf.len() + new.len() <= room && {
            if self.opts.lnh {
                let mut trial = leaf.clone();
                trial.place_best_fit(&new, self.slots);
                let ok = trial
                    .header(self.page_size, self.opts.kiv, self.slots)
                    .is_some();
                if ok {
                    leaf = trial;
                }
                ok
            } else {
                let mut all = leaf.sorted().into_iter().map(|e| e.0).collect::<Vec<_>>();
                all.extend_from_slice(&new);
                all.sort_unstable();
                leaf.lay_out_sorted(&all, self.slots);
                true
            }
        };
        let separators = if fits {
            self.write_leaf(id, &leaf)?;
            Vec::new()
        } else {
            let usage = before as f64 / room as f64;
            self.split_leaf(id, leaf, &new, usage)?
        };
        self.meta.entries = self.meta.entries + new.len() as u64 - deleted;
        self.update_path(path, separators)
    }

    /// §4.5: splits leaf `id` evenly (into as many nodes as the entries
    /// need), choosing the new leaf size; returns the separators and new
    /// nodes for the parent.
    fn split_leaf(
        &mut self,
        id: NodeId,
        leaf: Leaf,
        new: &[(u64, u64)],
        usage: f64,
    ) -> Result<Vec<((u64, u64), NodeId)>> {
        let old_size = leaf.pages.len();
        // Without KIVs there is no interval; the size may grow while a full
        // node's uncompacted OIDs (and FEI) still fit the header.
        let interval = if self.opts.lnh && !self.opts.kiv {
            if self.kivless_fits(old_size + 1) {
                1
            } else if self.kivless_fits(old_size) {
                u16::MAX
            } else {
                2
            }
        } else {
            leaf.interval
        };
        let size = if self.opts.lnh {
            if interval == u16::MAX {
                old_size
            } else if interval > 1 {
                self.counters.shrinks += 1;
                old_size.saturating_sub(1).max(1)
            } else if usage > 0.7 && interval <= 1 && old_size < self.opts.max_leaf_pages as usize {
                self.counters.grows += 1;
                old_size + 1
            } else {
                old_size
            }
        } else {
            old_size
        };
        let mut all: Vec<(u64, u64)> = leaf.sorted().into_iter().map(|e| e.0).collect();
        all.extend_from_slice(new);
        all.sort_unstable();
        let cap = size * self.slots;
        let mut want = all.len().div_ceil(cap).max(2);
        // More parts while one part's header would not fit its page.
        let per = loop {
            let per = all.len().div_ceil(want);
            let mut probe = Leaf::empty(size, self.opts.fei);
            probe.lay_out_sorted(&all[..per], self.slots);
            if !self.opts.lnh
                || probe
                    .header(self.page_size, self.opts.kiv, self.slots)
                    .is_some()
                || per == 1
            {
                break per;
            }
            want += 1;
        };
        let parts = all.len().div_ceil(per);
        // Room for the new leaves and the internal nodes they may split
        // (generously: a part each, and a new root level).
        let need = 2 * parts + self.meta.height as usize + 1;
        if !self.can_allocate(need) {
            return Err(IndexError::Device(DeviceError::Full {
                detail: format!("no room for the {need} nodes a leaf split may need"),
            }));
        }
        let mut ids = vec![id];
        for _ in 1..parts {
            ids.push(self.allocate()?);
        }
        let mut seps = Vec::new();
        for (i, chunk) in all.chunks(per).enumerate() {
            let mut part = Leaf::empty(size, self.opts.fei);
            part.lay_out_sorted(chunk, self.slots);
            part.dirty = vec![true; size];
            part.next = ids.get(i + 1).copied().unwrap_or(leaf.next);
            self.write_leaf(ids[i], &part)?;
            if i > 0 {
                // With versions of keys a leaf holds one entry a key, and
                // `(key, 0)` routes every pair of the key here.
                let sep = if self.opts.versions_by_key {
                    (chunk[0].0, 0)
                } else {
                    chunk[0]
                };
                seps.push((sep, ids[i]));
            }
        }
        // Pages the first node no longer uses.
        let base = self.base(id);
        for p in size..old_size {
            self.dev().trim(base + 1 + p as u64)?;
        }
        self.leaf_sizes[old_size] = self.leaf_sizes[old_size].saturating_sub(1);
        self.leaf_sizes[size] += parts as u64;
        self.counters.leaf_splits += 1;
        Ok(seps)
    }

    /// Whether a full leaf of `size` pages has room in its header for one
    /// uncompacted OID per entry (and the FEI): the `kiv=false` variant's
    /// limit on the leaf size.
    fn kivless_fits(&self, size: usize) -> bool {
        let bits = size * self.slots * lnh::bits_for(size as u64) as usize
            + if self.opts.fei { size * self.slots } else { 0 };
        size <= self.opts.max_leaf_pages as usize && bits <= lnh::stream_bits(self.page_size)
    }

    /// Inserts `seps` into the path's nodes bottom up, splitting internal
    /// nodes that overflow and growing a new root when the old one splits.
    fn update_path(
        &mut self,
        path: &mut Vec<PathNode>,
        mut seps: Vec<((u64, u64), NodeId)>,
    ) -> Result<()> {
        while let Some((id, mut node, cached, dirty, _slot)) = path.pop() {
            if seps.is_empty() {
                self.release(id, node, cached, dirty)?;
                continue;
            }
            for &(sep, child) in &seps {
                let pos = node.entries.partition_point(|s| *s < sep);
                node.entries.insert(pos, sep);
                node.children.insert(pos + 1, child);
            }
            seps.clear();
            self.split_overfull(&mut node, &mut seps)?;
            self.commit(id, node, cached)?;
        }
        while !seps.is_empty() {
            // The root split: a new root above it (which may split again
            // when one flush split the old root into many nodes).
            let new_root = self.allocate()?;
            let mut root = Node::default();
            root.clear(self.meta.height);
            root.children.push(self.meta.root);
            for (sep, child) in seps.drain(..) {
                root.entries.push(sep);
                root.children.push(child);
            }
            self.split_overfull(&mut root, &mut seps)?;
            self.commit(new_root, root, false)?;
            self.meta.root = new_root;
            self.meta.height += 1;
        }
        Ok(())
    }

    /// Splits an internal node holding more children than the fanout,
    /// writing the new parts and adding their separators to `seps`.
    fn split_overfull(
        &mut self,
        node: &mut Node,
        seps: &mut Vec<((u64, u64), NodeId)>,
    ) -> Result<()> {
        for (up, part) in node.split_internal_even(self.layout.fanout) {
            let part_id = self.allocate()?;
            self.commit(part_id, part, false)?;
            seps.push((up, part_id));
            self.counters.internal_splits += 1;
        }
        Ok(())
    }

    /// Flushes FTESs until the BPB has room (invariant 3).
    pub(super) fn make_room(&mut self) -> Result<()> {
        while self.bpb.len() > self.bpb_capacity {
            self.flush_ftes()?;
        }
        Ok(())
    }
}
