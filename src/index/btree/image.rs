//! Inserts that work on a node's encoded image instead of decoding it.
//!
//! With a cache that keeps neither nodes a descent only reads nor updated
//! nodes it did not hold (`mlru` when the victim outranks the node, `none`),
//! an insert decoded every node on its path that the cache missed, put
//! the entry into the leaf's vectors, encoded the leaf again and dropped
//! both: about half of `flashix bench`'s instructions per insert. Here
//! such a node is read into a per-level image buffer and searched in place
//! (as searches already are); a leaf with room takes the entry by a byte
//! move and is sealed and written as that image, byte for byte what
//! encoding the decoded leaf would write. A node is decoded only when the
//! old path would keep or change it as a node: a split reaching it, a full
//! leaf, or anything the header and order checks refuse (decoding then
//! gives exactly the old error, or the old node). A written leaf the cache
//! keeps (`mlru` keeps most of them in `flashix bench`, and reads few of
//! them again) is kept as its image, decoded if the cache is asked for it.
//!
//! The device sees the same reads and writes in the same order, and the
//! cache the same calls and hit and miss counts, as on the decoding path.

use crate::index::Result;
use crate::node::{Node, NodeChange, NodeId};

use super::{BTree, Ins};

/// What an insert through an image did.
pub(super) enum ByImage {
    /// The insert below the node is complete.
    Done(Ins),
    /// The node was read and decoded (it was not cached); the decoding
    /// path takes over with it.
    Decoded(Node),
    /// Neither the cache policy nor the store allow images here: fetch.
    Unavailable,
}

impl BTree {
    /// Inserts `entry` below node `id` at `level` through its image when
    /// its cache policy allows; the caller has found that the cache does
    /// not hold it.
    pub(super) fn insert_by_image(
        &mut self,
        id: NodeId,
        level: u8,
        entry: (u64, u64),
    ) -> Result<ByImage> {
        // A node read and left unchanged must not be admitted (`lru` and
        // `wt-lru` admit reads), and an updated one must be written at once
        // (`lru` keeps it dirty instead).
        debug_assert!(!self.cache.contains(id));
        if self.cache.admits_reads() || !self.cache.writes_through_on_miss() {
            return Ok(ByImage::Unavailable);
        }
        let l = level as usize;
        if self.images.len() <= l {
            self.images.resize_with(l + 1, Vec::new);
        }
        let mut image = std::mem::take(&mut self.images[l]);
        let result = self.insert_in_image(id, level, entry, &mut image);
        self.images[l] = image;
        result
    }

    fn insert_in_image(
        &mut self,
        id: NodeId,
        level: u8,
        entry: (u64, u64),
        image: &mut Vec<u8>,
    ) -> Result<ByImage> {
        // `fetch` counts a miss before it reads, whether the read succeeds
        // or not.
        let (page, sealed) = match self.store.read_image_into(id, image) {
            Ok(Some(read)) => read,
            Ok(None) => return Ok(ByImage::Unavailable),
            Err(e) => {
                self.cache.count_miss();
                return Err(e.into());
            }
        };
        self.cache.count_miss();
        let layout = self.layout;
        // A sealed image is one this tree encoded, so in order.
        let header = layout
            .image_header(image, page, sealed)
            .ok()
            .filter(|&(l, count)| l == level && (sealed || layout.image_sorted(image, l, count)));
        let Some((_, count)) = header else {
            return self.decode_image(image, page, false).map(ByImage::Decoded);
        };
        if level == 0 {
            return match layout.image_leaf_find(image, count, entry) {
                Ok(_) => Ok(ByImage::Done(Ins::Present)),
                Err(pos) if count < layout.leaf_capacity => {
                    layout.image_leaf_insert(image, count, pos, entry);
                    let change = NodeChange::Insert(entry.0, entry.1);
                    self.commit_image(id, image, page, change)?;
                    Ok(ByImage::Done(Ins::Done))
                }
                Err(_) => self.decode_image(image, page, true).map(ByImage::Decoded),
            };
        }
        let (slot, child) = layout.image_child_slot(image, count, entry);
        match self.insert_into(child, level - 1, entry)? {
            Ins::Split(sep, new_child) => {
                let node = self.decode_image(image, page, true)?;
                let ins = self.absorb_split(id, node, false, slot, sep, new_child)?;
                Ok(ByImage::Done(ins))
            }
            other => Ok(ByImage::Done(other)),
        }
    }

    /// Decodes an image read from `page` into a pooled node; `checked`
    /// when its frame was checked already.
    fn decode_image(&mut self, image: &[u8], page: u64, checked: bool) -> Result<Node> {
        let mut node = self.blank(0);
        let decoded = if checked {
            self.layout.decode_checked(image, page, &mut node)
        } else {
            self.layout.decode(image, page, &mut node)
        };
        match decoded {
            Ok(()) => Ok(node),
            Err(e) => {
                self.recycle(node);
                Err(e.into())
            }
        }
    }

    /// `commit` of an updated leaf the cache did not hold, given as its
    /// sealed image (which the cache may take, leaving other bytes).
    fn commit_image(
        &mut self,
        id: NodeId,
        image: &mut Vec<u8>,
        page: u64,
        change: NodeChange,
    ) -> Result<()> {
        if !self.store.write_image(id, image, change)? {
            let node = self.decode_image(image, page, true)?;
            return self.commit(id, node, false, change);
        }
        let mut evicted = std::mem::take(&mut self.evicted);
        let layout = self.layout;
        let done = self
            .cache
            .after_update_miss_image(id, 0, image, &layout, &mut evicted);
        self.evicted = evicted;
        if !done {
            let node = self.decode_image(image, page, true)?;
            let mut evicted = std::mem::take(&mut self.evicted);
            if let Some(n) = self.cache.after_update_miss(id, node, &mut evicted) {
                self.recycle(n);
            }
            self.evicted = evicted;
        }
        self.write_evicted()
    }
}
