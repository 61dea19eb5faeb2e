//! [`WriteBuffer`]: the AS B-tree's **Write Buffer** (Kim et al. 2014 §3.2,
//! Algorithms 2 and 3), a [`NodeStore`] decorator that holds modified
//! nodes in RAM and writes them all at once when it is full.
//!
//! A node the tree writes goes into the buffer as a **WBA** (its NodeID)
//! and **WBD** (its sealed image). A write of a node the buffer holds
//! replaces its WBD in place (Alg. 2, lines 3–9: the buffer acts as a
//! cache); a new node takes the next empty slot (lines 11–14). When the
//! buffer then holds `capacity` nodes (`WBN = MS`, line 15), every node in
//! it is written to the store beneath, in slot order (lines 16–21), and the
//! buffer empties. Reads look in the buffer first (Alg. 3) and only go to
//! the store beneath on a miss.
//!
//! The store beneath decides *where* a flushed node goes: in place for
//! the B+-tree (`btree --set write_buffer=N`, Table 2's "B+-tree with a
//! Write Buffer size of 32"), at the end of the file for the AS B-tree's
//! Sequential Writer ([`crate::index::asbtree`]), so the same buffered
//! nodes become random or sequential requests.
//!
//! Nothing here is on flash: a buffered node is RAM until its flush. The
//! tree's `flush()` writes its metadata through [`NodeStore::store_meta`],
//! which empties the buffer first, so the superblock never names a node
//! the device does not hold.
//!
//! Invariants:
//! 1. The buffer holds at most `capacity − 1` nodes between calls (it is
//!    emptied as soon as it reaches `capacity`), each id once.
//! 2. A buffered image is newer than anything the store beneath holds for
//!    its id; a freed id leaves the buffer before the store frees it.
//! 3. A node is removed from the buffer only once the store beneath has
//!    accepted it, so a failed flush loses nothing (the nodes not yet
//!    written stay buffered, in order).

use std::collections::HashMap;

use crate::device::Storage;
use crate::node::{IndexStats, NodeError};

use super::codec::{Node, NodeId, NodeLayout};
use super::store::{NodeChange, NodeStore, TreeMeta};

/// A write buffer of `capacity` nodes over another node store.
pub struct WriteBuffer {
    inner: Box<dyn NodeStore>,
    layout: NodeLayout,
    /// MS: the most nodes the buffer holds before it is flushed.
    capacity: usize,
    /// WBA: the buffered NodeIDs, in slot order.
    wba: Vec<NodeId>,
    /// WBD: the buffered sealed images, `wba[i]`'s at `wbd[i]`.
    wbd: Vec<Vec<u8>>,
    /// NodeID → slot.
    slot_of: HashMap<NodeId, usize>,
    /// Images no longer buffered, kept for reuse.
    spare: Vec<Vec<u8>>,
    /// A decoded node, for stores that take no images.
    scratch: Node,
    write_hits: u64,
    read_hits: u64,
    /// Node writes and reads asked of the buffer (hits included): with
    /// the hits, Table 2's hit ratios (Kim et al. 2014 §4.1).
    writes: u64,
    reads: u64,
    flushes: u64,
    nodes_flushed: u64,
}

impl WriteBuffer {
    /// RAM of one buffered node: its WBD image and its WBA id.
    fn slot_bytes(&self) -> usize {
        self.layout.node_bytes + std::mem::size_of::<NodeId>()
    }

    /// A buffer of `capacity` (≥ 1) nodes in front of `inner`.
    pub fn new(inner: Box<dyn NodeStore>, capacity: usize) -> Result<Self, NodeError> {
        if capacity == 0 {
            return Err(NodeError::Config(
                "write_buffer must hold at least 1 node".into(),
            ));
        }
        let layout = inner.layout();
        Ok(WriteBuffer {
            inner,
            layout,
            capacity,
            wba: Vec::with_capacity(capacity),
            wbd: Vec::with_capacity(capacity),
            slot_of: HashMap::with_capacity(capacity),
            spare: Vec::new(),
            scratch: Node::default(),
            write_hits: 0,
            read_hits: 0,
            writes: 0,
            reads: 0,
            flushes: 0,
            nodes_flushed: 0,
        })
    }

    /// MS: the most nodes the buffer holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Nodes buffered now.
    pub fn len(&self) -> usize {
        self.wba.len()
    }

    pub fn is_empty(&self) -> bool {
        self.wba.is_empty()
    }

    /// Puts `id`'s sealed image (filled by `fill`) into the buffer (Alg. 2)
    /// and flushes the buffer when it is full.
    fn put(&mut self, id: NodeId, fill: impl FnOnce(&mut Vec<u8>)) -> Result<(), NodeError> {
        self.writes += 1;
        if let Some(&i) = self.slot_of.get(&id) {
            self.write_hits += 1;
            fill(&mut self.wbd[i]);
            return Ok(());
        }
        let mut image = self.spare.pop().unwrap_or_default();
        fill(&mut image);
        self.slot_of.insert(id, self.wba.len());
        self.wba.push(id);
        self.wbd.push(image);
        if self.wba.len() >= self.capacity {
            self.flush_buffer()?;
        }
        Ok(())
    }

    /// Writes every buffered node to the store beneath, in slot order
    /// (Alg. 2, lines 16–21); on an error the nodes not yet written stay
    /// buffered (invariant 3).
    pub fn flush_buffer(&mut self) -> Result<(), NodeError> {
        if self.wba.is_empty() {
            return Ok(());
        }
        self.flushes += 1;
        let mut written = 0;
        let mut result = Ok(());
        let node = &mut self.scratch;
        for (id, image) in self.wba.iter().zip(&self.wbd) {
            let r = match self.inner.write_image(*id, image, NodeChange::Rewrite) {
                Ok(true) => Ok(()),
                Ok(false) => self
                    .layout
                    .decode_checked(image, 0, node)
                    .and_then(|()| self.inner.write_node(*id, node, NodeChange::Rewrite)),
                Err(e) => Err(e),
            };
            if let Err(e) = r {
                result = Err(e);
                break;
            }
            written += 1;
        }
        self.nodes_flushed += written as u64;
        self.wba.drain(..written);
        self.spare.extend(self.wbd.drain(..written));
        self.slot_of.clear();
        for (i, &id) in self.wba.iter().enumerate() {
            self.slot_of.insert(id, i);
        }
        result
    }

    /// The buffered image of `id`, if any (Alg. 3, lines 3–9).
    fn buffered(&mut self, id: NodeId) -> Option<&[u8]> {
        let i = *self.slot_of.get(&id)?;
        self.read_hits += 1;
        self.reads += 1;
        Some(&self.wbd[i])
    }
}

impl NodeStore for WriteBuffer {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        let layout = self.layout;
        match self.buffered(id) {
            // Sealed here from a decoded node or an image the tree checked.
            Some(image) => layout.decode_checked(image, 0, node),
            None => {
                self.reads += 1;
                self.inner.read_node(id, node)
            }
        }
    }

    fn read_image(&mut self, id: NodeId) -> Result<Option<(&[u8], u64)>, NodeError> {
        if self.slot_of.contains_key(&id) {
            let image = self.buffered(id);
            return Ok(image.map(|i| (i, 0)));
        }
        let image = self.inner.read_image(id)?;
        // A store that lends no image is read through `read_node` next:
        // counted there.
        self.reads += u64::from(image.is_some());
        Ok(image)
    }

    fn read_image_into(
        &mut self,
        id: NodeId,
        buf: &mut Vec<u8>,
    ) -> Result<Option<(u64, bool)>, NodeError> {
        if let Some(image) = self.buffered(id) {
            buf.clear();
            buf.extend_from_slice(image);
            return Ok(Some((0, false)));
        }
        let lba = self.inner.read_image_into(id, buf)?;
        self.reads += u64::from(lba.is_some());
        Ok(lba)
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        _change: NodeChange,
    ) -> Result<(), NodeError> {
        let layout = self.layout;
        self.put(id, |image| {
            image.resize(layout.node_bytes, 0);
            layout.encode(node, image);
        })
    }

    fn write_image(
        &mut self,
        id: NodeId,
        image: &[u8],
        _change: NodeChange,
    ) -> Result<bool, NodeError> {
        if image.len() != self.layout.node_bytes {
            return Ok(false);
        }
        self.put(id, |buf| {
            buf.clear();
            buf.extend_from_slice(image);
        })?;
        Ok(true)
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        self.inner.allocate()
    }

    fn can_allocate(&self, n: usize) -> bool {
        self.inner.can_allocate(n)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        if let Some(i) = self.slot_of.remove(&id) {
            self.wba.remove(i);
            self.spare.push(self.wbd.remove(i));
            for (j, &other) in self.wba.iter().enumerate().skip(i) {
                self.slot_of.insert(other, j);
            }
        }
        self.inner.free(id)
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        self.inner.restore_allocation(next_id, free)
    }

    fn next_id(&self) -> NodeId {
        self.inner.next_id()
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        self.inner.load_meta()
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        // The superblock may name only nodes the device holds.
        self.flush_buffer()?;
        self.inner.store_meta(meta)
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        self.flush_buffer()?;
        self.inner.sync()
    }

    fn memory_bytes(&self) -> usize {
        self.wba.len() * self.slot_bytes() + self.inner.memory_bytes()
    }

    fn reserved_bytes(&self) -> usize {
        self.capacity * self.slot_bytes() + self.inner.reserved_bytes()
    }

    fn data_bound_bytes(&self) -> usize {
        self.inner.data_bound_bytes()
    }

    /// A budget that no longer holds the buffer beside the store's tables
    /// (issue #43): the buffer is written out and holds fewer nodes from
    /// now on, as many as `room` leaves, at least one.
    fn shed(&mut self, room: usize) -> Result<(), NodeError> {
        let inner = self.inner.reserved_bytes();
        let fits = (room.saturating_sub(inner) / self.slot_bytes()).max(1);
        if fits < self.capacity {
            self.flush_buffer()?;
            self.capacity = fits;
            self.spare.truncate(fits);
        }
        self.inner
            .shed(room.saturating_sub(self.capacity * self.slot_bytes()))
    }

    fn flash_bytes_used(&self) -> u64 {
        self.inner.flash_bytes_used()
    }

    fn storage(&self) -> &Storage {
        self.inner.storage()
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.inner.into_storage()
    }

    fn report(&self, stats: &mut IndexStats) {
        stats.set("write_buffer_nodes", self.capacity as f64);
        stats.set("write_buffer_write_hits", self.write_hits as f64);
        stats.set("write_buffer_read_hits", self.read_hits as f64);
        stats.set("write_buffer_writes", self.writes as f64);
        stats.set("write_buffer_reads", self.reads as f64);
        stats.set("write_buffer_flushes", self.flushes as f64);
        stats.set("write_buffer_nodes_flushed", self.nodes_flushed as f64);
        self.inner.report(stats);
    }

    fn notes(&self) -> Vec<String> {
        self.inner.notes()
    }

    fn begin_batch(&mut self) {
        self.inner.begin_batch()
    }

    fn end_batch(&mut self) -> Result<(), NodeError> {
        self.inner.end_batch()
    }
}
