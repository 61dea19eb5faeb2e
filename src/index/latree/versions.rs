//! Versions of keys (`versions=key`, a map store's Buffered-B+ tree or
//! buffer tree: the `store` module; issue #45).
//!
//! The paper's tree holds a set of pairs, and a buffered insert or delete
//! is of a pair. With `versions=key`, recorded in the superblock
//! (`TreeMeta::flags`, bit 0; a file without it holds pairs), the unit of
//! versioning is the key: the newest entry of a key (an insert, or a
//! delete entry of the key) shadows every older one, whatever their
//! values, so the tree holds at most one value a key and an upsert reads
//! nothing ([`crate::index::Index::upsert`]):
//!
//! * **Routing by key.** A key's entries are routed by `(key, 0)`, not by
//!   their pair (`LaTree::routing`), at an emptying, a buffer split and
//!   a spill's return alike, so all of them travel the same root-to-leaf
//!   path of buffers, older ones deeper and, within a buffer, in arrival
//!   order (the module's invariant 1, of keys).
//! * **An upsert** appends to the root's buffer; when the root's tail page,
//!   in RAM, already holds an entry of the key, the new one overwrites it
//!   there (it is that key's newest entry in the buffer), so a tail page
//!   holds at most one entry a key. Nothing is read.
//! * **An emptying** sorts each chunk stably by key and keeps only the
//!   last (newest) entry of each key; the chunks go in arrival order, so a
//!   key's newer entries still follow its older ones below.
//! * **At the leaves** an insert replaces whatever pair of its key the
//!   tree holds, and a delete entry removes it: the delete entries of keys
//!   end there.
//! * **A lookup** walks its path top-down and stops at the first buffer
//!   holding the key (the tail page first, then the flash pages from the
//!   newest back), whose newest entry is the answer; only a key no buffer
//!   holds is read from the leaves. A range applies each key's newest
//!   buffered entry to the tree's pairs (`LaTree::merge_found`).
//! * **Bulk load** refuses a key that repeats.
//!
//! The buffer tree's delayed lookups are answered by pairs and are refused
//! with `versions=key`.

use crate::index::bulk::BulkInput;
use crate::index::{Index, IndexError, Result};
use crate::node::NodeId;

use super::buffers::{Elem, Op};
use super::LaTree;

impl LaTree {
    /// The pair that routes `e` through the tree: its own, or with versions
    /// of keys its key's first, so that a key's entries never part.
    pub(super) fn routing(&self, e: &Elem) -> (u64, u64) {
        if self.by_key {
            (e.key, 0)
        } else {
            e.pair()
        }
    }

    /// Appends `e` to buffer `id` at `level`, the root's; with versions of
    /// keys it overwrites its key's entry in the tail page when there is
    /// one.
    pub(super) fn push_newest(&mut self, id: NodeId, level: u8, e: Elem) -> Result<()> {
        if self.by_key && self.bufs.replace_in_tail(id, e) {
            return Ok(());
        }
        self.push(id, level, e)
    }

    /// With versions of keys, keeps the last (newest) entry of each key
    /// of a chunk sorted stably by key; any other chunk stays as it is.
    pub(super) fn keep_newest(&self, chunk: &mut Vec<Elem>) {
        if !self.by_key {
            return;
        }
        let mut kept = 0;
        for i in 0..chunk.len() {
            if chunk.get(i + 1).is_none_or(|next| next.key != chunk[i].key) {
                chunk[kept] = chunk[i];
                kept += 1;
            }
        }
        chunk.truncate(kept);
    }

    /// With versions of keys, applies `e` to the leaves: the key's pairs
    /// in the tree give way to `e`'s (an insert) or go (a delete entry).
    /// Applying it again changes nothing, so an entry spilled after a
    /// failure halfway is safely applied again.
    pub(super) fn apply_version(&mut self, e: &Elem, found: &mut Vec<(u64, u64)>) -> Result<()> {
        self.tree.range(e.key, e.key, found)?;
        let mut present = false;
        for &(k, v) in found.iter() {
            if e.op == Op::Insert && v == e.value {
                present = true;
            } else {
                self.tree.delete(k, v)?;
            }
        }
        if e.op == Op::Insert && !present {
            self.tree.insert(e.key, e.value)?;
        }
        Ok(())
    }

    /// The value of `key`'s newest version (`None`: absent or deleted):
    /// the first buffer on its path, top-down, that holds the key decides
    /// (module doc); the leaves only when none does. A lookup: the policy
    /// may empty buffers on the way.
    pub(super) fn newest_value(&mut self, key: u64) -> Result<Option<u64>> {
        self.walk_buffers(key, key, true)?;
        // Newest first: the highest level first.
        self.walk
            .sort_by_key(|&(_, level)| std::cmp::Reverse(level));
        if let Some(e) = self.newest_buffered(key)? {
            return Ok((e.op == Op::Insert).then_some(e.value));
        }
        self.base.clear();
        let mut base = std::mem::take(&mut self.base);
        let r = self.tree.range(key, key, &mut base);
        let value = base.first().map(|&(_, v)| v);
        self.base = base;
        r.map(|()| value)
    }

    /// The newest buffered entry of `key` in the buffers of `self.walk`
    /// (highest level first) and the spill, which follows the buffers at
    /// its level and precedes those above (the module's invariant 4).
    fn newest_buffered(&mut self, key: u64) -> Result<Option<Elem>> {
        let walk = std::mem::take(&mut self.walk);
        // The spill is in level order: from its end, newest first.
        let mut spilled = self.spill.len();
        let mut newest = |above: u8, spill: &[(u8, Elem)]| {
            while spilled > 0 && spill[spilled - 1].0 >= above {
                spilled -= 1;
                if spill[spilled].1.key == key {
                    return Some(spill[spilled].1);
                }
            }
            None
        };
        let mut result = Ok(None);
        for &(id, level) in &walk {
            if let Some(e) = newest(level, &self.spill) {
                result = Ok(Some(e));
                break;
            }
            self.counters.buffers_scanned += 1;
            self.counters.entries_scanned += self.bufs.get(id).map_or(0, |b| b.flash_entries());
            result = self.bufs.newest_of(self.tree.store_mut(), id, key);
            if !matches!(result, Ok(None)) {
                break;
            }
        }
        if matches!(result, Ok(None)) {
            result = Ok(newest(0, &self.spill));
        }
        self.walk = walk;
        result
    }

    /// `get` with versions of keys: at most one value.
    pub(super) fn get_version(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        out.extend(self.newest_value(key)?);
        Ok(())
    }

    /// `delete(key, value)` with versions of keys: a delete entry of the
    /// key when its newest version holds `value`.
    pub(super) fn delete_version(&mut self, key: u64, value: u64) -> Result<bool> {
        let present = self.newest_value(key)? == Some(value);
        self.buffer_delete_if(key, value, present)
    }

    /// After a delete's lookup: buffers the delete entry if the entry was
    /// `present`, else only refits the tables the lookup may have grown;
    /// returns `present`.
    pub(super) fn buffer_delete_if(&mut self, key: u64, value: u64, present: bool) -> Result<bool> {
        self.trim_scratch();
        if present {
            self.buffer_op(Elem {
                key,
                value,
                op: Op::Delete,
            })?;
        } else {
            self.fit_tables()?;
        }
        Ok(present)
    }

    /// `update(key, old, new)` with versions of keys: `new` becomes the
    /// key's newest version (a blind upsert); returns whether the newest
    /// held `old` (that alone reads).
    pub(super) fn update_version(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.format.check(key, new)?;
        let found = self.newest_value(key)? == Some(old);
        self.trim_scratch();
        self.upsert(key, new)?;
        Ok(found)
    }

    /// `bulk_load` as the trait's default (inserted one by one), refusing
    /// a key that repeats when the tree keeps versions of keys.
    pub(super) fn bulk_load_entries(
        &mut self,
        entries: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<()> {
        let mut input = BulkInput::new(self.format, entries);
        let mut last = None;
        for (key, value) in input.by_ref() {
            if self.by_key && last == Some(key) {
                return Err(IndexError::BulkLoad(format!(
                    "key {key} repeats: a tree of versions of keys holds one value a key"
                )));
            }
            last = Some(key);
            self.insert(key, value)?;
        }
        input.finish().map(drop)
    }
}
