//! Versions of keys (`versions=key`, a map store's MB-Tree: the `store`
//! module). The paper's MB-Tree holds a set of pairs, and its BPB orders
//! task entries by entry and creation (§4.2.2). With `versions=key`,
//! recorded in the superblock's flags (bit 3; a file written before it
//! existed reads as pairs, and `kinds::reopen::agree_versions` refuses the
//! other setting at open), the unit of versioning is the key instead:
//!
//! * the BPB holds at most one TE per key, the key's newest version: an
//!   insert or upsert replaces the key's TE in place (or adds one), so an
//!   upsert reads nothing (`Index::upsert`);
//! * a delete of `(key, value)` whose newest version holds `value` turns
//!   the key's TE into a D, or adds a D when the newest version is in the
//!   tree;
//! * at a flush (Unique Path Search, `ups.rs`) each FTES entry replaces
//!   whatever the leaf holds for its key, and a D removes it; so a leaf
//!   holds at most one entry per key, and leaves split between keys, with
//!   separators `(key, 0)`: every pair of a key routes to the one leaf that
//!   holds the key;
//! * a lookup stops at the BPB when it holds the key; a range overlays the
//!   BPB's TEs by key on the leaves' entries.
//!
//! Bulk load inserts one by one and refuses a repeated key.

use super::*;
use crate::index::bulk::BulkInput;

impl MbTree {
    /// The key's newest version is `(key, value)`: replaces the key's TE,
    /// or adds one (flushing FTESs when the BPB is full).
    pub(super) fn upsert_key(&mut self, key: u64, value: u64) -> Result<()> {
        if let Some(at) = self.bpb.of_key(key) {
            self.bpb.replace(at, (key, value), true);
            return Ok(());
        }
        self.add_te(key, value, true)
    }

    /// Adds the TE of a key the BPB has none of; a failed flush takes it
    /// back out (unless a flush already applied it), everything else stays.
    fn add_te(&mut self, key: u64, value: u64, insert: bool) -> Result<()> {
        self.bpb.push((key, value), insert);
        if let Err(e) = self.make_room() {
            self.bpb.remove_newest((key, value), insert);
            return Err(e);
        }
        Ok(())
    }

    /// `delete(key, value)`: when the key's newest version holds `value`,
    /// a D of the key takes its place (module doc).
    pub(super) fn delete_key(&mut self, key: u64, value: u64) -> Result<bool> {
        if let Some(at) = self.bpb.of_key(key) {
            if self.bpb.te(at) != ((key, value), true) {
                return Ok(false);
            }
            // The D goes where the I was: it removes the key from its
            // leaf, or nothing when the leaf never had it.
            self.bpb.replace(at, (key, value), false);
            return Ok(true);
        }
        let mut found = std::mem::take(&mut self.get_buf);
        let r = self.tree_range(key, key, &mut found);
        let in_tree = found.contains(&(key, value));
        self.get_buf = found;
        r?;
        if !in_tree {
            return Ok(false);
        }
        self.add_te(key, value, false)?;
        Ok(true)
    }

    /// A lookup of `key` the BPB answers: `out` holds the value of its I
    /// (nothing for a D); false, and `out` untouched, when the BPB has no
    /// TE of `key`.
    pub(super) fn get_from_bpb(&self, key: u64, out: &mut Vec<u64>) -> bool {
        let Some(at) = self.bpb.of_key(key) else {
            return false;
        };
        let ((_, value), insert) = self.bpb.te(at);
        out.clear();
        if insert {
            out.push(value);
        }
        true
    }

    /// Applies the BPB's TEs of keys in `lo ..= hi` to the tree's entries
    /// `out` (sorted): each TE shadows every entry of its key.
    pub(super) fn overlay_by_key(&self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) {
        let mut tes = self.bpb.with_keys(lo, hi).peekable();
        if tes.peek().is_none() {
            return;
        }
        let tree = std::mem::take(out);
        let mut at = 0;
        for ((key, value), insert) in tes {
            while tree.get(at).is_some_and(|e| e.0 < key) {
                out.push(tree[at]);
                at += 1;
            }
            while tree.get(at).is_some_and(|e| e.0 == key) {
                at += 1;
            }
            if insert {
                out.push((key, value));
            }
        }
        out.extend_from_slice(&tree[at..]);
    }

    /// `Index::bulk_load`: one insert at a time (the MB-Tree has no bulk
    /// loader); with versions of keys a repeated key is refused.
    pub(super) fn load_one_by_one(
        &mut self,
        entries: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<()> {
        let mut input = BulkInput::new(self.format(), entries);
        let mut last = None;
        for (key, value) in input.by_ref() {
            if self.opts.versions_by_key && last == Some(key) {
                return Err(IndexError::BulkLoad(format!(
                    "key {key} repeats: an MB-Tree of versions of keys holds one value a key"
                )));
            }
            last = Some(key);
            self.insert(key, value)?;
        }
        input.finish().map(drop)
    }
}
