//! Versions of keys (`versions=key`, a map store's FD-tree: the `store`
//! module). The paper's entries are pairs, and a search returns
//! every pair of a key. With `versions=key`, recorded in the superblock,
//! the unit of versioning is the key instead: the head tree holds at most
//! one entry per key (an insert or upsert replaces the key's entry there,
//! reading nothing from the device: `Index::upsert`), a merge that meets
//! two entries of one key keeps the newer level's and drops the older
//! (`fdtree::merge`), so every level holds at most one entry per key, and
//! a lookup stops at the first level that holds the key — the head, then
//! L1, … — whose entry is the answer: an index entry its value, a filter
//! entry (a tombstone of the key) none. A delete of the key's newest
//! version writes a filter entry of the key into the head (or just drops
//! the head's entry when no level below holds the key); a merge into the
//! bottom level drops filter entries, which have nothing left to shadow.
//! A range returns the newest version of each key. A bulk load refuses a
//! repeated key. A file of versions is never read as pairs: the flag is
//! checked at open (`kinds::reopen::agree_versions`).
//!
//! A merge takes two whole levels (§II-C), so it never splits a key's
//! versions. The head's entry of a key is a pair with count +1 (an index entry: the
//! key's value) or −1 (a filter entry: the key deleted); the levels hold
//! such entries one a key, so a search needs no counting across levels,
//! only the first level's answer.

use super::FdTree;
use crate::index::Result;

impl FdTree {
    /// With versions of keys, `delete(key, value)`: when the key's newest
    /// version holds `value`, a filter entry of the key takes its place in
    /// the head, or the head's entry just goes when no level below holds
    /// the key.
    pub(super) fn delete_key(&mut self, key: u64, value: u64) -> Result<bool> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let r = self.collect(key, key, false, &mut found);
        // Level by level, one entry a level: the first is the newest.
        let newest = found.first().copied();
        let in_head = self.head.range((key, 0)..=(key, u64::MAX)).next().is_some();
        let below = found.len() > usize::from(in_head);
        self.found = found;
        r?;
        if newest != Some(((key, value), 1)) {
            return Ok(false);
        }
        self.set_version(key, below.then_some((value, -1)))?;
        Ok(true)
    }

    /// With versions of keys, makes `version` (a value and +1 for an index
    /// entry or −1 for a filter entry; `None`: nothing) the head's entry of
    /// `key`, in place of the one it held.
    pub(super) fn set_version(&mut self, key: u64, version: Option<(u64, i64)>) -> Result<()> {
        self.change_head(|t| {
            if let Some((&p, &c)) = t.head.range((key, 0)..=(key, u64::MAX)).next() {
                t.head.remove(&p);
                t.head_entries -= c.unsigned_abs();
            }
            if let Some((value, count)) = version {
                t.head.insert((key, value), count);
                t.head_entries += count.unsigned_abs();
            }
        })
    }

    /// With versions of keys, `update(key, old, new)`: whether the key's
    /// newest version holds `old` (a lookup), then an upsert of `new`.
    pub(super) fn update_key(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.search(key, key)?;
        let found = self.found.first() == Some(&((key, old), 1));
        self.set_version(key, Some((new, 1)))?;
        Ok(found)
    }
}
