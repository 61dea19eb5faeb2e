//! How a tree's logical nodes reach the device: the [`NodeStore`] trait, and
//! [`PageNodeStore`], which writes every node in place at a fixed logical
//! address over any [`BlockDevice`] (the "B-tree over FTL" of Wu et al. 2003 §2
//! and the B-Tree of Roh et al. 2009 §6).
//!
//! Later indexes keep the same B+-tree ([`crate::index::btree`]) and swap the
//! store: BFTL's node translation table of index units, the delta schemes'
//! base node + delta pages, the Buffered-B+ tree's node log. Those need to
//! know *what changed* in a node, so [`NodeStore::write_node`] carries a
//! [`NodeChange`]; an in-place store ignores it.
//!
//! On-flash format of `PageNodeStore`:
//! * logical page 0: the superblock, a page frame of kind `Superblock`
//!   whose payload is [`TreeMeta`] (layout in its docs);
//! * node `id` occupies `node_pages` consecutive logical pages starting at
//!   `1 + id × node_pages`; its image (see [`super::codec`]) is written
//!   zero-padded to whole pages, so the FTL never has to read-modify-write,
//!   and read back as just the node's bytes.
//!
//! Invariants:
//! 1. Ids below `next_id` are either live nodes or on the free list; freed
//!    nodes' pages are trimmed.
//! 2. The free list is not persisted: the tree rebuilds it on open by
//!    walking from the root (every id below `next_id` that is unreachable
//!    is free), which costs one read per node and is charged to the open.

use crate::device::{BlockDevice, DeviceError, Storage};
use crate::node::{EntryFormat, NodeError};

use super::codec::{Node, NodeId, NodeLayout, NO_NODE};
use super::page::{self, PageKind, FRAME_HEADER};
use super::top_levels::TopLevels;

/// What a write changes in a node, for stores that log changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeChange {
    /// One entry (or separator) added.
    Insert(u64, u64),
    /// One entry (or separator) removed.
    Delete(u64, u64),
    /// Anything else: a split, merge, redistribution, new node, or several
    /// changes accumulated in a cache.
    Rewrite,
}

/// The tree's persistent metadata, kept in the superblock.
///
/// Superblock payload, little-endian:
///
/// | bytes | field |
/// |---|---|
/// | 0..8 | magic `b"FLASHIX\0"` |
/// | 8..23 | index name, UTF-8, zero-padded |
/// | 23 | flags of the index (0 unless it says otherwise: the Buffered-B+ tree's bit 0 is `versions=key`) |
/// | 24 | key bytes |
/// | 25 | value bytes |
/// | 26 | height (levels; 1 = the root is a leaf) |
/// | 27 | most entries a leaf holds, when capped below what fits (0: as many as fit) |
/// | 28..32 | node bytes |
/// | 32..36 | root node id |
/// | 36..40 | next unallocated node id |
/// | 40..48 | entries |
/// | 48..56 | generation (incremented by every store) |
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeMeta {
    pub index: String,
    pub format: EntryFormat,
    pub node_bytes: u32,
    pub root: NodeId,
    pub height: u8,
    /// Most entries a leaf holds, when capped below what its bytes hold
    /// (`leaf_entries`); 0 when not capped.
    pub leaf_entries: u8,
    pub next_id: NodeId,
    pub entries: u64,
    pub generation: u64,
    /// The index's own flags (byte 23, where a name of 16 bytes would end:
    /// every name is shorter); 0 in a file written before it had any.
    pub flags: u8,
}

/// Bytes of the index name in [`TreeMeta`].
const NAME_BYTES: usize = 15;

const META_MAGIC: [u8; 8] = *b"FLASHIX\0";
/// Bytes of an encoded [`TreeMeta`].
pub(crate) const META_BYTES: usize = 56;

impl TreeMeta {
    pub(crate) fn encode(&self, out: &mut [u8]) {
        out[..META_BYTES].fill(0);
        out[0..8].copy_from_slice(&META_MAGIC);
        let name = self.index.as_bytes();
        let n = name.len().min(NAME_BYTES);
        out[8..8 + n].copy_from_slice(&name[..n]);
        out[8 + NAME_BYTES] = self.flags;
        out[24] = self.format.key_bytes;
        out[25] = self.format.value_bytes;
        out[26] = self.height;
        out[27] = self.leaf_entries;
        out[28..32].copy_from_slice(&self.node_bytes.to_le_bytes());
        out[32..36].copy_from_slice(&self.root.to_le_bytes());
        out[36..40].copy_from_slice(&self.next_id.to_le_bytes());
        out[40..48].copy_from_slice(&self.entries.to_le_bytes());
        out[48..56].copy_from_slice(&self.generation.to_le_bytes());
    }

    /// Seals a superblock frame in `buf`: the metadata followed by a
    /// store's own `state` bytes; returns the frame's length.
    pub(crate) fn seal_superblock(&self, state: &[u8], buf: &mut [u8]) -> usize {
        self.encode(&mut buf[FRAME_HEADER..]);
        let at = FRAME_HEADER + META_BYTES;
        buf[at..at + state.len()].copy_from_slice(state);
        page::seal(buf, PageKind::Superblock, META_BYTES + state.len());
        at + state.len()
    }

    /// Opens a superblock frame read from `page` whose store state is
    /// `state_len` bytes: `None` when the page is empty.
    pub(crate) fn open_superblock(
        frame: &[u8],
        page: u64,
        state_len: usize,
    ) -> Result<Option<(TreeMeta, &[u8])>, NodeError> {
        let Some(p) = page::open(frame, PageKind::Superblock, page)? else {
            return Ok(None);
        };
        if p.len() < META_BYTES + state_len {
            return Err(NodeError::Corrupt {
                page,
                detail: "superblock too short for the store's state".into(),
            });
        }
        let meta = TreeMeta::decode(&p[..META_BYTES])?;
        Ok(Some((meta, &p[META_BYTES..META_BYTES + state_len])))
    }

    /// The node layout the image was written with: its node size and, when
    /// recorded, its leaf cap.
    pub(crate) fn layout(&self) -> Result<NodeLayout, NodeError> {
        let layout = NodeLayout::with_node_bytes(self.format, self.node_bytes as usize)?;
        match self.leaf_entries {
            0 => Ok(layout),
            n => layout.with_leaf_entries(n as usize),
        }
    }

    pub(crate) fn decode(p: &[u8]) -> Result<TreeMeta, NodeError> {
        let corrupt = |detail: &str| NodeError::Corrupt {
            page: 0,
            detail: format!("superblock: {detail}"),
        };
        if p.len() < META_BYTES || p[0..8] != META_MAGIC {
            return Err(corrupt("bad magic or length"));
        }
        let name_end = p[8..8 + NAME_BYTES]
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NAME_BYTES);
        let index = std::str::from_utf8(&p[8..8 + name_end])
            .map_err(|_| corrupt("index name is not UTF-8"))?
            .to_string();
        let format = EntryFormat::new(p[24], p[25]).map_err(|_| corrupt("bad entry widths"))?;
        let u32_at = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&p[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let meta = TreeMeta {
            index,
            format,
            height: p[26],
            leaf_entries: p[27],
            node_bytes: u32_at(28),
            root: u32_at(32),
            next_id: u32_at(36),
            entries: u64_at(40),
            generation: u64_at(48),
            flags: p[8 + NAME_BYTES],
        };
        if meta.height == 0 || meta.root == NO_NODE || meta.root >= meta.next_id {
            return Err(corrupt("root or height out of range"));
        }
        Ok(meta)
    }
}

/// A node's encoded image as [`NodeStore::read_image_sealed`] lends it:
/// the bytes, the page they came from, and whether the device vouches they
/// are the frame the store sealed.
pub type SealedImage<'a> = (&'a [u8], u64, bool);

/// Storage of a tree's logical nodes.
pub trait NodeStore: Send {
    /// The node layout this store reads and writes.
    fn layout(&self) -> NodeLayout;
    /// Reads node `id` into `node` (reusing its memory).
    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError>;
    /// Reads node `id`'s encoded image, checked by its frame only, with the
    /// page it came from, for searches that need not decode it; `None` when
    /// the store keeps nodes in another form (BFTL's index units).
    fn read_image(&mut self, _id: NodeId) -> Result<Option<(&[u8], u64)>, NodeError> {
        Ok(None)
    }
    /// [`read_image`](Self::read_image), and whether the image is a frame
    /// this store sealed, unchanged since on the device
    /// ([`BlockDevice::read_sealed`]): its checksum and its entry order
    /// then hold without being checked again. `false` by default.
    fn read_image_sealed(&mut self, id: NodeId) -> Result<Option<SealedImage<'_>>, NodeError> {
        Ok(self
            .read_image(id)?
            .map(|(image, page)| (image, page, false)))
    }
    /// Reads node `id`'s encoded image into `buf` (resized to the node's
    /// bytes), checked by nothing yet, and returns the page it came from
    /// and whether it is sealed as [`Self::read_image_sealed`] says; `None`
    /// when the store keeps nodes in another form or holds this one
    /// decoded. A descent that may need a node again after its children
    /// (an insert whose child splits) keeps one image per level this way.
    fn read_image_into(
        &mut self,
        _id: NodeId,
        _buf: &mut Vec<u8>,
    ) -> Result<Option<(u64, bool)>, NodeError> {
        Ok(None)
    }
    /// Writes node `id`; `change` says what changed since its last write.
    fn write_node(&mut self, id: NodeId, node: &Node, change: NodeChange) -> Result<(), NodeError>;
    /// Records the insert of `entry` into leaf `id` without reading the
    /// leaf, where the store logs changes and knows the leaf has room
    /// (FlashDB's log mode with `log_insert_reads_leaf=false`): `true` when
    /// recorded; `false`, having done nothing, when the caller must insert
    /// through the node as usual.
    fn append_to_leaf(&mut self, _id: NodeId, _entry: (u64, u64)) -> Result<bool, NodeError> {
        Ok(false)
    }
    /// Whether the store keeps each [`NodeChange`] as its own record (a
    /// delta log) rather than rewriting the node: a tree then sends it one
    /// change a write, never several folded into a `Rewrite` (an update in
    /// place is a delete and an insert, `btree::update`).
    fn records_each_change(&self) -> bool {
        false
    }
    /// Writes node `id` given as the sealed image [`NodeLayout::encode`]
    /// writes for it (`node_bytes` long), as `write_node` would; `false`,
    /// having written nothing, when the store needs the decoded node.
    fn write_image(
        &mut self,
        _id: NodeId,
        _image: &[u8],
        _change: NodeChange,
    ) -> Result<bool, NodeError> {
        Ok(false)
    }
    /// A fresh node id.
    fn allocate(&mut self) -> Result<NodeId, NodeError>;
    /// Whether `n` more nodes can be allocated (no I/O).
    fn can_allocate(&self, n: usize) -> bool;
    /// Gives node `id` back.
    fn free(&mut self, id: NodeId) -> Result<(), NodeError>;
    /// Sets allocation state found on open (invariant 2).
    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>);
    /// The next id [`allocate`](Self::allocate) would hand out fresh.
    fn next_id(&self) -> NodeId;
    /// Reads the metadata record; `None` when the storage holds none.
    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError>;
    /// Writes the metadata record.
    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError>;
    /// Makes every write durable.
    fn sync(&mut self) -> Result<(), NodeError>;
    /// RAM the store holds (free list, tables), at flash widths.
    fn memory_bytes(&self) -> usize;
    /// RAM the store needs whatever the tree's size (a write buffer), which
    /// a node cache must leave free within the budget.
    fn reserved_bytes(&self) -> usize {
        self.memory_bytes()
    }
    /// Bytes of the store's data-bound tables (`node::budget`: one entry
    /// per node or sector, growing with the data), counted in
    /// `memory_bytes` too. O(1): a tree fitting its cache to the budget
    /// asks after every operation.
    fn data_bound_bytes(&self) -> usize {
        0
    }
    /// `(data_bound_bytes(), reserved_bytes())`: what a tree fitting its
    /// cache asks after every operation, in one call through the store's
    /// `dyn` (two calls were a tenth of a lookup's own instructions).
    fn footprint(&self) -> (usize, usize) {
        (self.data_bound_bytes(), self.reserved_bytes())
    }
    /// Shrinks the store's optional budget-bound structures (cached top
    /// levels, a write buffer's capacity) until `reserved_bytes` is at most
    /// `room`, as far as its minimum working set allows: the tree's cache
    /// is already empty. Stores with nothing optional do nothing.
    fn shed(&mut self, _room: usize) -> Result<(), NodeError> {
        Ok(())
    }
    /// Flash space occupied by live nodes and metadata.
    fn flash_bytes_used(&self) -> u64;
    fn storage(&self) -> &Storage;
    /// The storage, for an index that keeps more than nodes on it (the
    /// Buffered-B+ tree's buffers) in space the store does not use; `None`
    /// from stores that do not share their storage.
    fn storage_mut(&mut self) -> Option<&mut Storage> {
        None
    }
    /// The first logical page of node slot `id`, for an index that keeps
    /// other pages in slots it allocates from the store (the Buffered-B+
    /// tree's buffer pages on a logical-page device); `None` from stores
    /// without fixed slots.
    fn slot_lba(&self, _id: NodeId) -> Option<u64> {
        None
    }
    /// The erase blocks of a raw chip the store leaves unused (after a node
    /// log's halves), for an index that keeps more than nodes on the chip;
    /// `None` from stores on logical pages.
    fn spare_blocks(&self) -> Option<std::ops::Range<u64>> {
        None
    }
    fn into_storage(self: Box<Self>) -> Storage;
    /// Adds the store's own counters to the index's stats.
    fn report(&self, _stats: &mut crate::node::IndexStats) {}
    /// Facts for the report (see [`crate::index::Index::notes`]).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The index starts applying a batch of changes (BFTL builds each
    /// node's logical view once per commit from here on).
    fn begin_batch(&mut self) {}
    /// The index finished applying a batch of changes (BFTL commits its
    /// delta pool here); in-place stores have nothing to do.
    fn end_batch(&mut self) -> Result<(), NodeError> {
        Ok(())
    }
}

/// The ids below `next_id` that no path from `root` (a tree of `height`
/// levels) reaches, in decreasing order: a tree's free list, rebuilt on open
/// (invariant 2). `children(id, level, out)` appends the children of the
/// internal node `id` at `level`; leaves are never read.
pub(crate) fn unreachable_ids(
    next_id: NodeId,
    root: NodeId,
    height: u8,
    mut children: impl FnMut(NodeId, u8, &mut Vec<NodeId>) -> Result<(), NodeError>,
) -> Result<Vec<NodeId>, NodeError> {
    let next = next_id as usize;
    let mut reachable = vec![false; next];
    let mut stack = vec![(root, height.saturating_sub(1))];
    let mut kids = Vec::new();
    while let Some((id, level)) = stack.pop() {
        let slot = reachable
            .get_mut(id as usize)
            .ok_or_else(|| NodeError::Corrupt {
                page: 0,
                detail: format!("node id {id} beyond next id {next}"),
            })?;
        if *slot {
            return Err(NodeError::Corrupt {
                page: 0,
                detail: format!("node {id} is reachable twice"),
            });
        }
        *slot = true;
        if level > 0 {
            kids.clear();
            children(id, level, &mut kids)?;
            stack.extend(kids.iter().map(|&c| (c, level - 1)));
        }
    }
    Ok((0..next_id)
        .filter(|&i| !reachable[i as usize])
        .rev()
        .collect())
}

/// Node ids: the next fresh id and the freed ones, shared by every store.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdAllocator {
    pub(crate) next_id: NodeId,
    pub(crate) free: Vec<NodeId>,
}

impl IdAllocator {
    /// Ids from `next_id` on are fresh; none is free yet (a reopened store,
    /// before the tree rebuilds its free list).
    pub(crate) fn starting_at(next_id: NodeId) -> Self {
        IdAllocator {
            next_id,
            free: Vec::new(),
        }
    }

    /// A freed id, else a fresh one if `fresh_ok(id)` accepts it.
    pub(crate) fn allocate(
        &mut self,
        fresh_ok: impl FnOnce(NodeId) -> Result<(), NodeError>,
    ) -> Result<NodeId, NodeError> {
        if let Some(id) = self.free.pop() {
            return Ok(id);
        }
        let id = self.next_id;
        if id == NO_NODE {
            return Err(NodeError::Device(DeviceError::Full {
                detail: "every node id is in use".into(),
            }));
        }
        fresh_ok(id)?;
        self.next_id += 1;
        Ok(id)
    }

    /// Whether `n` ids can be handed out when `fresh_room` fresh ones fit.
    pub(crate) fn can_allocate(&self, n: usize, fresh_room: u64) -> bool {
        let id_room = (NO_NODE - self.next_id) as u64;
        self.free.len() as u64 + fresh_room.min(id_room) >= n as u64
    }

    /// Live ids (allocated and not freed).
    pub(crate) fn live(&self) -> u64 {
        self.next_id as u64 - self.free.len() as u64
    }
}

/// In-place node storage over a logical-page device.
pub struct PageNodeStore {
    storage: Storage,
    layout: NodeLayout,
    page_size: usize,
    node_pages: u64,
    capacity_pages: u64,
    image: Vec<u8>,
    ids: IdAllocator,
    /// The top levels kept decoded (`cached_levels`, Wu et al. 2003 §5.1);
    /// writes go through to the device.
    hot: TopLevels,
}

impl PageNodeStore {
    /// Keeps the top `levels` levels of the tree decoded in RAM
    /// ([`TopLevels`]): their reads cost no device reads.
    pub fn with_top_levels(mut self, levels: u8) -> Self {
        self.hot = TopLevels::new(levels);
        self
    }

    /// A store of nodes of `layout` on `storage`, which must be a
    /// logical-page device.
    pub fn new(storage: Storage, layout: NodeLayout) -> Result<Self, NodeError> {
        let (page_size, capacity_pages) = match &storage {
            Storage::Pages(d) => (d.page_size(), d.capacity_pages()),
            Storage::Raw(_) => {
                return Err(NodeError::Config(
                    "this index writes nodes in place and needs a logical-page device \
                     (an FTL profile or file:PATH), not raw:"
                        .into(),
                ))
            }
        };
        if page_size < FRAME_HEADER + META_BYTES {
            return Err(NodeError::Config(format!(
                "page size {page_size} is too small for the superblock"
            )));
        }
        let node_pages = layout.node_bytes.div_ceil(page_size) as u64;
        Ok(PageNodeStore {
            storage,
            layout,
            page_size,
            node_pages,
            capacity_pages,
            image: vec![0u8; node_pages as usize * page_size],
            ids: IdAllocator::default(),
            hot: TopLevels::new(0),
        })
    }

    fn dev(&mut self) -> &mut dyn BlockDevice {
        match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `new` refuses raw storage.
            Storage::Raw(_) => unreachable!("PageNodeStore is built only on Storage::Pages"),
        }
    }

    fn lba(&self, id: NodeId) -> u64 {
        node_lba(id, self.node_pages)
    }

    /// Reads node `id`'s image into `self.image`; returns its first LBA
    /// and whether the device vouches it is the sealed frame written there.
    #[inline(always)]
    fn load_image(&mut self, id: NodeId) -> Result<(u64, bool), NodeError> {
        let reach = self.reach();
        load_into(&mut self.storage, reach, id, &mut self.image)
    }

    /// Reads node `id`'s image into `image` (at least `node_pages` pages
    /// long when a node spans pages), as [`load_into`] does.
    #[inline(always)]
    fn load_into(&mut self, id: NodeId, image: &mut [u8]) -> Result<(u64, bool), NodeError> {
        let reach = self.reach();
        load_into(&mut self.storage, reach, id, image)
    }

    /// What a node read needs of the store besides its storage.
    fn reach(&self) -> Reach {
        Reach {
            next_id: self.ids.next_id,
            page_size: self.page_size,
            node_pages: self.node_pages,
            node_bytes: self.layout.node_bytes,
        }
    }

    /// Writes `self.image` (node `id`'s image, zero-padded to whole pages).
    fn store_image(&mut self, id: NodeId) -> Result<(), NodeError> {
        let lba = self.lba(id);
        let ps = self.page_size;
        let image = std::mem::take(&mut self.image);
        let len = self.node_pages as usize * ps;
        let result = if self.node_pages == 1 {
            // A node's sealed frame, zero-padded to the page.
            self.dev().write_sealed(lba, &image[..len])
        } else {
            self.dev().write_span(lba, &image[..len])
        };
        self.image = image;
        Ok(result?)
    }
}

/// The first logical page of node `id` when a node spans `node_pages`.
fn node_lba(id: NodeId, node_pages: u64) -> u64 {
    1 + id as u64 * node_pages
}

/// A [`PageNodeStore`]'s geometry and fresh-id bound: what a node read
/// checks and computes, apart from the storage it reads, so that a read
/// borrows the storage and the store's own image buffer side by side
/// (taking the buffer out and putting it back, and the call the shared
/// reader was, cost a fifth of a node read's instructions outside the
/// device).
#[derive(Clone, Copy)]
struct Reach {
    next_id: NodeId,
    page_size: usize,
    node_pages: u64,
    node_bytes: usize,
}

/// Reads node `id`'s image from `storage` into `image` (at least
/// `node_pages` pages long when a node spans pages); returns its first LBA
/// and whether the device vouches it is the sealed frame the store wrote
/// there (a node of one page: every image the store writes is sealed).
#[inline(always)]
fn load_into(
    storage: &mut Storage,
    reach: Reach,
    id: NodeId,
    image: &mut [u8],
) -> Result<(u64, bool), NodeError> {
    let lba = node_lba(id, reach.node_pages);
    if id >= reach.next_id {
        return Err(never_allocated(id, lba, reach.next_id));
    }
    let dev = match storage {
        Storage::Pages(d) => d.as_mut(),
        // Invariant: `PageNodeStore::new` refuses raw storage.
        Storage::Raw(_) => unreachable!("PageNodeStore is built only on Storage::Pages"),
    };
    let (ps, nb) = (reach.page_size, reach.node_bytes);
    if nb <= ps {
        let sealed = dev.read_sealed(lba, &mut image[..nb])?;
        return Ok((lba, sealed));
    }
    // One read of the node's pages (one request where the device
    // serves a span as one).
    let len = reach.node_pages as usize * ps;
    dev.read_span(lba, &mut image[..len])?;
    Ok((lba, false))
}

#[cold]
#[inline(never)]
fn never_allocated(id: NodeId, lba: u64, next_id: NodeId) -> NodeError {
    NodeError::Corrupt {
        page: lba,
        detail: format!("node id {id} was never allocated (next id {next_id})"),
    }
}

impl NodeStore for PageNodeStore {
    fn layout(&self) -> NodeLayout {
        self.layout
    }

    fn read_node(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        if let Some(n) = self.hot.get(id) {
            node.clone_from(n);
            return Ok(());
        }
        let (lba, sealed) = self.load_image(id)?;
        let nb = self.layout.node_bytes;
        if sealed {
            self.layout.decode_checked(&self.image[..nb], lba, node)?;
        } else {
            self.layout.decode(&self.image[..nb], lba, node)?;
        }
        self.hot.remember(id, node);
        Ok(())
    }

    fn read_image(&mut self, id: NodeId) -> Result<Option<(&[u8], u64)>, NodeError> {
        Ok(self
            .read_image_sealed(id)?
            .map(|(image, page, _)| (image, page)))
    }

    fn read_image_sealed(&mut self, id: NodeId) -> Result<Option<SealedImage<'_>>, NodeError> {
        if self.hot.get(id).is_some() {
            // Kept decoded: the tree reads it through `read_node`.
            return Ok(None);
        }
        let (lba, sealed) = self.load_image(id)?;
        Ok(Some((&self.image[..self.layout.node_bytes], lba, sealed)))
    }

    fn read_image_into(
        &mut self,
        id: NodeId,
        buf: &mut Vec<u8>,
    ) -> Result<Option<(u64, bool)>, NodeError> {
        if self.hot.levels() > 0 || self.node_pages > 1 {
            // `read_node` keeps the top levels decoded as it reads them;
            // nodes spanning pages are read page by page there.
            return Ok(None);
        }
        buf.resize(self.layout.node_bytes, 0);
        Ok(Some(self.load_into(id, buf)?))
    }

    fn write_node(
        &mut self,
        id: NodeId,
        node: &Node,
        _change: NodeChange,
    ) -> Result<(), NodeError> {
        self.hot.remember(id, node);
        let mut image = std::mem::take(&mut self.image);
        self.layout.encode(node, &mut image);
        image[self.layout.node_bytes..].fill(0);
        self.image = image;
        self.store_image(id)
    }

    fn write_image(
        &mut self,
        id: NodeId,
        image: &[u8],
        _change: NodeChange,
    ) -> Result<bool, NodeError> {
        let nb = self.layout.node_bytes;
        if self.hot.levels() > 0 || image.len() != nb {
            // The top levels keep decoded copies of what is written.
            return Ok(false);
        }
        if nb == self.page_size {
            // One whole page: straight to the device, as `store_image`
            // would send it.
            let lba = self.lba(id);
            self.dev().write_sealed(lba, image)?;
            return Ok(true);
        }
        self.image[..nb].copy_from_slice(image);
        self.image[nb..].fill(0);
        self.store_image(id)?;
        Ok(true)
    }

    fn allocate(&mut self) -> Result<NodeId, NodeError> {
        let (capacity, node_pages) = (self.capacity_pages, self.node_pages);
        self.ids.allocate(|id| {
            let end = 1 + (id as u64 + 1) * node_pages;
            if end > capacity {
                return Err(NodeError::Device(DeviceError::Full {
                    detail: format!(
                        "node {id} would need logical pages up to {end}; the device has {capacity}"
                    ),
                }));
            }
            Ok(())
        })
    }

    fn can_allocate(&self, n: usize) -> bool {
        let pages_left = self
            .capacity_pages
            .saturating_sub(self.lba(self.ids.next_id));
        // Asked before every insert: a node of one page (the usual case)
        // skips the 64-bit division, which gives the same quotient.
        let fresh_room = if self.node_pages == 1 {
            pages_left
        } else {
            pages_left / self.node_pages
        };
        self.ids.can_allocate(n, fresh_room)
    }

    fn free(&mut self, id: NodeId) -> Result<(), NodeError> {
        self.hot.forget(id);
        let lba = self.lba(id);
        for i in 0..self.node_pages {
            self.dev().trim(lba + i)?;
        }
        self.ids.free.push(id);
        Ok(())
    }

    fn restore_allocation(&mut self, next_id: NodeId, free: Vec<NodeId>) {
        self.ids = IdAllocator { next_id, free };
    }

    fn next_id(&self) -> NodeId {
        self.ids.next_id
    }

    fn footprint(&self) -> (usize, usize) {
        // No data-bound tables; the reserve is `memory_bytes`, as the
        // defaults answer.
        (0, self.memory_bytes())
    }

    fn load_meta(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let mut buf = vec![0u8; self.page_size];
        self.dev().read(0, 0, &mut buf)?;
        match page::open(&buf, PageKind::Superblock, 0)? {
            None => Ok(None),
            Some(payload) => Ok(Some(TreeMeta::decode(payload)?)),
        }
    }

    fn store_meta(&mut self, meta: &TreeMeta) -> Result<(), NodeError> {
        let mut buf = vec![0u8; self.page_size];
        meta.encode(&mut buf[FRAME_HEADER..]);
        page::seal(&mut buf, PageKind::Superblock, META_BYTES);
        self.dev().write(0, 0, &buf)?;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), NodeError> {
        Ok(self.dev().sync()?)
    }

    fn report(&self, stats: &mut crate::node::IndexStats) {
        if self.hot.levels() > 0 {
            stats.set("cached_levels", self.hot.levels() as f64);
            stats.set("cached_nodes", self.hot.len() as f64);
        }
    }

    fn memory_bytes(&self) -> usize {
        self.ids.free.len() * std::mem::size_of::<NodeId>()
            + self.hot.len() * self.layout.node_bytes
    }

    fn flash_bytes_used(&self) -> u64 {
        (1 + self.ids.live() * self.node_pages) * self.page_size as u64
    }

    fn storage(&self) -> &Storage {
        &self.storage
    }

    fn storage_mut(&mut self) -> Option<&mut Storage> {
        Some(&mut self.storage)
    }

    fn slot_lba(&self, id: NodeId) -> Option<u64> {
        Some(self.lba(id))
    }

    fn into_storage(self: Box<Self>) -> Storage {
        self.storage
    }
}
