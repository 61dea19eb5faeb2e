//! Node caches for tree indexes, with a byte budget.
//!
//! Three policies (`--set cache=none|lru|mlru`):
//!
//! * `none`: nothing is kept; every access reads, every update writes.
//! * `lru`: classic write-back LRU. Searches and updates both bring nodes
//!   in; updates make them dirty; a dirty node is written when evicted or
//!   flushed.
//! * `mlru`: the MB-Tree paper's modified LRU buffer (Roh et al. 2009 §4.7).
//!   Eviction priority is first the node level (the lowest level, closest to
//!   the leaves, goes first), then age (the least recently accessed). Only
//!   updates insert nodes: an updated node already buffered is changed in
//!   memory with no page write; an updated node not buffered is written to
//!   flash and then inserted clean, unless it has lower priority than the
//!   victim it would replace, in which case nothing is inserted. A search
//!   only refreshes the access time of a buffered node and never inserts.
//!
//! The cache does no I/O: its methods push what must be written into the
//! caller's [`Evicted`] list (reused, so a steady state allocates nothing)
//! and hand back nodes they refuse, so policies are tested without a device
//! and the caller (which owns the node store) does the writes.
//!
//! Slots and nodes are kept apart: a slot is the bookkeeping of a resident
//! node (id, list links, dirtiness; its number fixes the order
//! [`NodeCache::dirty_nodes`] writes in), and its record names the node's
//! place in an arena that never moves (the same number: one place a
//! record, so no free list of places is kept beside the free records). A
//! node taken out and put back (an insert's
//! descent through the cached upper levels) usually comes back to another
//! slot, since slots are reused last-freed first; [`NodeCache::pin`] and
//! [`NodeCache::unpin`] do exactly the slot bookkeeping of
//! [`NodeCache::take`] and [`NodeCache::after_read`] while the node stays
//! in its arena place, so nothing of the node is moved.
//!
//! A slot's number is a label apart from its place in the slab (its
//! record): labels are handed out and freed exactly as slot numbers were
//! (a freed one first, last freed first), and only the order of
//! [`NodeCache::dirty_nodes`] reads them. So a pin frees the label, but
//! the record stays in the id index (marked pinned, so it reads as absent),
//! and an unpin takes a label: no id index update on an insert's descent
//! through the cached levels (issue #46; they were most of its cost).
//!
//! A pinned record also stays where it is on its recency list, where the
//! victim search passes over it, so the lists less the pinned records are
//! those a take would leave. An unpin moves it to the newest end, where
//! `after_read` would have linked it: the same lists.
//!
//! Invariants:
//! 1. `len() ≤ capacity()` after every call.
//! 2. Every resident node is in `index` and on exactly one recency list
//!    (its level's for `mlru`, list 0 for `lru`); so is every pinned
//!    record (on the list it was on when pinned, also when it lost its id
//!    to a `place`); freed records are on no list. A pinned record the id
//!    index names is counted in `pinned`, and `len()` is the index's
//!    length less it. The victim is never a pinned record.
//! 3. Record `i`'s arena place `nodes[i]` holds the node of its resident
//!    slot or [`Pin`], and an empty node when the record is free, a
//!    sentinel, or an encoded slot.

use super::codec::{Node, NodeId, NodeLayout};

mod id_index;
use id_index::{IdIndex, NIL};

/// Which cache policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachePolicy {
    None,
    Lru,
    ModifiedLru,
    /// LRU whose cached copies stay clean: every update also goes to the
    /// node store at once, as a change (the delta schemes of
    /// Agrawal et al. 2009 §6.1 turn it into a delta; the store's own
    /// buffers decide when it reaches flash).
    WriteThroughLru,
}

impl std::str::FromStr for CachePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(CachePolicy::None),
            "lru" => Ok(CachePolicy::Lru),
            "mlru" => Ok(CachePolicy::ModifiedLru),
            "wt-lru" => Ok(CachePolicy::WriteThroughLru),
            _ => Err(format!(
                "unknown cache policy `{s}`: use none, lru, mlru or wt-lru"
            )),
        }
    }
}

impl CachePolicy {
    pub fn name(&self) -> &'static str {
        match self {
            CachePolicy::None => "none",
            CachePolicy::Lru => "lru",
            CachePolicy::ModifiedLru => "mlru",
            CachePolicy::WriteThroughLru => "wt-lru",
        }
    }
}

/// A slot's bookkeeping (24 bytes, aligned to 32 so a record is found by
/// a shift and never straddles a cache line; its image, touched only when it is
/// admitted, decoded or dropped, is kept apart in `NodeCache::images`), or
/// a recency list's sentinel.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct Slot {
    id: NodeId,
    /// The slot number of the module doc: fixes the order
    /// [`NodeCache::dirty_nodes`] writes in.
    label: u32,
    /// The sentinel record of the recency list the slot is on: of the
    /// node level for `mlru`, of level 0 for `lru` (which ignores levels).
    list: u32,
    /// Neighbours on that list, towards the most (`newer`) and least
    /// (`older`) recently used end; the list's sentinel past either end.
    /// A sentinel's `older` is its list's newest slot and its `newer` the
    /// oldest (itself both when the list is empty), so a link or unlink
    /// stores without testing for an end.
    newer: u32,
    older: u32,
    /// Out for an operation ([`NodeCache::pin`]): its label freed, read as
    /// absent, passed over by the victim search.
    pinned: bool,
    /// Pinned, and a `place` of its id since took the id index's entry.
    lost: bool,
    /// The node was admitted as its sealed image (in `images`) and not
    /// decoded since (its arena place is empty then; such a node is clean).
    encoded: bool,
    dirty: bool,
}

impl Slot {
    /// The sentinel of an empty list, as record `i`.
    fn sentinel(i: u32) -> Slot {
        Slot {
            id: NIL,
            label: NIL,
            list: i,
            newer: i,
            older: i,
            pinned: false,
            lost: false,
            encoded: false,
            dirty: false,
        }
    }
}

/// Takes slot `i` off its list; the record as it was (read once, so a
/// caller needs no second read of it).
#[inline(always)]
fn unlink(slab: &mut [Slot], i: u32) -> Slot {
    let s = slab[i as usize];
    slab[s.newer as usize].older = s.older;
    slab[s.older as usize].newer = s.newer;
    s
}

/// Links slot `i` (on no list) at the newest end of its list.
#[inline(always)]
fn link_newest(slab: &mut [Slot], i: u32) {
    link_newest_on(slab, i, slab[i as usize].list);
}

/// [`link_newest`] with the slot's list at hand.
#[inline(always)]
fn link_newest_on(slab: &mut [Slot], i: u32, list: u32) {
    let head = slab[list as usize].older;
    let s = &mut slab[i as usize];
    s.newer = list;
    s.older = head;
    slab[head as usize].newer = i;
    slab[list as usize].older = i;
}

/// Moves slot `i` (on its list) to the newest end of it: `unlink` then
/// `link_newest`, skipped for the newest slot, where it would leave the
/// list as it is. That test costs three instructions and spares about
/// twenty where it holds: a root always (every search's first touch, every
/// insert's evicting unpin), often the next level down.
#[inline(always)]
fn move_to_newest(slab: &mut [Slot], i: u32) {
    let s = slab[i as usize];
    let newest = slab[s.list as usize].older;
    if newest != i {
        // `unlink` then `link_newest_on`, with the record and the
        // newest slot read already (unlinking `i` does not change
        // which slot is newest, as `i` is not).
        slab[s.newer as usize].older = s.older;
        slab[s.older as usize].newer = s.newer;
        let r = &mut slab[i as usize];
        r.newer = s.list;
        r.older = newest;
        slab[newest as usize].newer = i;
        slab[s.list as usize].older = i;
    }
}

/// A cached node taken out for an operation by [`NodeCache::pin`] and
/// left in place; give it back with [`NodeCache::unpin`] or take it for
/// good with [`NodeCache::unpin_take`].
#[derive(Debug)]
#[must_use]
pub struct Pin {
    id: NodeId,
    dirty: bool,
    /// The pinned slot's record (and so its node's arena place).
    record: u32,
}

impl Pin {
    /// The pinned node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }
}

/// A node pushed out of the cache; write it if `dirty`.
#[derive(Debug)]
pub struct Evicted {
    pub id: NodeId,
    pub node: Node,
    pub dirty: bool,
}

/// A node cache: a slab of slots, an id index, and one circular doubly
/// linked recency list per priority level, closed by a sentinel record, so
/// every operation is O(1) and a list move has no branch (the lowest
/// non-empty level is found by a scan over at most the tree's height).
pub struct NodeCache {
    policy: CachePolicy,
    capacity: usize,
    /// The slots and the lists' sentinels, by record.
    slab: Vec<Slot>,
    /// By record: the sealed image of an encoded slot, else empty (with no
    /// capacity).
    images: Vec<Vec<u8>>,
    free_records: Vec<u32>,
    /// Freed labels, the last freed on top; `labels` were ever handed out.
    free_labels: Vec<u32>,
    labels: u32,
    /// Pinned records the id index names (invariant 2).
    pinned: usize,
    /// The nodes, by record (invariant 3).
    nodes: Vec<Node>,
    index: IdIndex,
    /// One image buffer of a decoded or vacated slot, handed to the next
    /// caller of `insert_image` (so admitting images allocates nothing).
    spare_image: Vec<u8>,
    /// Per list: its sentinel record.
    lists: Vec<u32>,
    /// How to decode the images of encoded slots (set by the first one).
    layout: Option<NodeLayout>,
    pub hits: u64,
    pub misses: u64,
}

impl NodeCache {
    /// A cache holding at most `capacity` nodes.
    pub fn new(policy: CachePolicy, capacity: usize) -> Self {
        let capacity = if policy == CachePolicy::None {
            0
        } else {
            capacity
        };
        NodeCache {
            policy,
            capacity,
            slab: Vec::new(),
            images: Vec::new(),
            free_records: Vec::new(),
            free_labels: Vec::new(),
            labels: 0,
            pinned: 0,
            nodes: Vec::new(),
            index: IdIndex::default(),
            spare_image: Vec::new(),
            lists: Vec::new(),
            layout: None,
            hits: 0,
            misses: 0,
        }
    }

    /// Holds at most `capacity` nodes from now on (none under `none`); the
    /// oldest are evicted into `evicted` (dirty ones for the caller to
    /// write) until the cache fits. Between operations only: no node may
    /// be out of the cache.
    pub fn set_capacity(&mut self, capacity: usize, evicted: &mut Vec<Evicted>) {
        if self.policy != CachePolicy::None {
            self.capacity = capacity;
            self.evict_to(0, evicted);
        }
    }

    pub fn policy(&self) -> CachePolicy {
        self.policy
    }
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.index.len() - self.pinned
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record of resident node `id` (not a pinned one).
    #[inline]
    fn resident(&self, id: NodeId) -> Option<u32> {
        self.index
            .get(id)
            .filter(|&i| !self.slab[i as usize].pinned)
    }

    /// A free label, the last freed first (as slot numbers were reused).
    #[inline]
    fn take_label(&mut self) -> u32 {
        self.free_labels.pop().unwrap_or_else(|| {
            self.labels += 1;
            self.labels - 1
        })
    }

    /// [`move_to_newest`] in the slab.
    #[inline]
    fn move_to_newest(&mut self, i: u32) {
        // On the slice: its bounds stay in registers across the stores.
        move_to_newest(&mut self.slab[..], i);
    }

    /// Removes slot `i` from the cache, keeping its node in the arena: the
    /// record as it was (its id, arena place, dirtiness, encoding).
    #[inline(always)]
    fn vacate(&mut self, i: u32) -> Slot {
        let s = self.vacate_keeping_label(i);
        self.free_labels.push(s.label);
        s
    }

    /// [`Self::vacate`] but for its label, the caller's to free or reuse.
    #[inline(always)]
    fn vacate_keeping_label(&mut self, i: u32) -> Slot {
        let slab = &mut self.slab[..];
        let s = unlink(slab, i);
        // A decoded slot is not encoded already: the same store either way.
        slab[i as usize].encoded = false;
        self.free_records.push(i);
        // Only the id's entry for this record: a vacated record is never
        // pinned, so (invariant 2) the index names it under its id, and
        // the entry of a pinned record that lost the id (the one other
        // record its id could name) is kept, as before.
        self.index.remove_unless(s.id, |j| j != i);
        if s.encoded {
            // A decoded slot's image is empty already (`images`).
            self.release_image(i);
        }
        s
    }

    /// Takes the image buffer of slot `i` (decoded or vacated, so its bytes
    /// are no longer needed) into the one spare, or frees it: a cached node
    /// holds an image only while it is encoded (issue #43: a slot kept its
    /// buffer beside the decoded node, twice the node's count).
    fn release_image(&mut self, i: u32) {
        let image = std::mem::take(&mut self.images[i as usize]);
        if self.spare_image.capacity() == 0 {
            self.spare_image = image;
        }
    }

    /// Moves the node out of record `i`'s arena place, leaving it empty.
    fn take_node(&mut self, i: u32) -> Node {
        std::mem::take(&mut self.nodes[i as usize])
    }

    /// Removes slot `i` from the cache and hands back its contents (an
    /// encoded node comes back empty: it is clean and was never decoded).
    fn remove_slot(&mut self, i: u32) -> (NodeId, Node, bool) {
        let s = self.vacate(i);
        (s.id, self.take_node(i), s.dirty)
    }

    /// Decodes slot `i` in place if it holds an image; false when that
    /// fails (never for an image this cache was given sealed by the layout;
    /// the slot is then dropped, as if it had not been cached).
    #[inline]
    fn decoded(&mut self, i: u32) -> bool {
        // Inlined for the common case, a slot already decoded: searches
        // and inserts ask once per cached level.
        !self.slab[i as usize].encoded || self.decode_slot(i)
    }

    /// [`Self::decoded`] of a slot holding an image.
    #[cold]
    fn decode_slot(&mut self, i: u32) -> bool {
        let s = &mut self.slab[i as usize];
        let node = &mut self.nodes[i as usize];
        let ok = match &self.layout {
            Some(layout) => layout
                .decode_checked(&self.images[i as usize], s.id as u64, node)
                .is_ok(),
            None => false,
        };
        if ok {
            s.encoded = false;
            self.release_image(i);
        } else {
            self.remove_slot(i);
        }
        ok
    }

    /// Takes a node out for use; give it back with `after_read` or
    /// `after_update_hit`. Counts a hit or miss.
    pub fn take(&mut self, id: NodeId) -> Option<(Node, bool)> {
        match self.resident(id) {
            Some(i) if self.decoded(i) => {
                self.hits += 1;
                let (_, node, dirty) = self.remove_slot(i);
                Some((node, dirty))
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    /// A read of a resident node in place: counts a hit and makes the node
    /// the newest of its list, exactly what `take` then `after_read` do for
    /// a cached node, without moving the node out and back (searches call
    /// this once per level, so it is on the hot path).
    #[inline(always)]
    pub fn touch(&mut self, id: NodeId) -> Option<&Node> {
        let i = self.resident(id)?;
        if !self.decoded(i) {
            return None;
        }
        // The newest of its list already (a root always is): moving it to
        // the newest end would change nothing.
        self.move_to_newest(i);
        self.hits += 1;
        Some(&self.nodes[i as usize])
    }

    /// [`Self::take`] for a cached node that will most likely come back
    /// unchanged: the same bookkeeping (a hit; the slot freed; the node not
    /// counted), but the node stays where it is. `None` (a miss counted)
    /// when it is not cached.
    pub fn pin(&mut self, id: NodeId) -> Option<Pin> {
        self.pin_cached(id).unwrap_or_else(|| {
            self.misses += 1;
            None
        })
    }

    /// [`Self::contains`] then [`Self::pin`] in one look-up: `None` (no
    /// miss counted) when `id` is not cached.
    #[inline(always)]
    pub fn pin_cached(&mut self, id: NodeId) -> Option<Option<Pin>> {
        let i = self.resident(id)?;
        Some(match i {
            i if self.decoded(i) => {
                self.hits += 1;
                // `vacate` but for the record, which stays in the id index
                // and on its list, where `victim` passes over it (a
                // decoded slot holds no image to release).
                self.pinned += 1;
                let s = &mut self.slab[i as usize];
                s.pinned = true;
                self.free_labels.push(s.label);
                Some(Pin {
                    id,
                    dirty: s.dirty,
                    record: i,
                })
            }
            _ => {
                self.misses += 1;
                None
            }
        })
    }

    /// The pinned node.
    pub fn pinned(&self, pin: &Pin) -> &Node {
        &self.nodes[pin.record as usize]
    }

    /// Gives a pinned node back unchanged: exactly [`Self::after_read`] of
    /// a node that was cached.
    ///
    /// The record is still on its list, where it was when pinned; `after_read`
    /// would link it at the newest end, and the lists' order of the other
    /// records is the same with it or without it, so moving it there gives
    /// the same lists. Its list is that of its level still: the node did not
    /// change, and while pinned no other call gets at it.
    #[inline]
    pub fn unpin(&mut self, pin: Pin, evicted: &mut Vec<Evicted>) {
        // Inlined into the tree's descent for the common case, room
        // already there (two unpins in three); the other is out of line.
        if self.len() + 1 > self.capacity {
            return self.unpin_evicting(pin, evicted);
        }
        self.unpin_with_room(pin)
    }

    /// [`Self::unpin`] of a node that needs a victim out first: `evict_to`
    /// before the record leaves its pin, so it cannot be the victim.
    #[inline(never)]
    fn unpin_evicting(&mut self, pin: Pin, evicted: &mut Vec<Evicted>) {
        // `evict_while_full`'s first round (its test on `len` held: we
        // are here). Its victim's label would be freed, then taken at
        // once by `unpin_with_room`'s `take_label` (the last freed comes
        // first) when the loop ends there and the record did not lose its
        // id: then it goes to the record directly, the same label.
        if !self.is_empty() {
            if let Some((_, i)) = self.victim() {
                let label = self.evict(i, evicted);
                let record = pin.record;
                if self.len() < self.capacity && !self.slab[record as usize].lost {
                    let lost = self.unpin_record(&pin);
                    debug_assert!(!lost);
                    return self.relabel(record, label);
                }
                self.free_labels.push(label);
            }
        }
        self.evict_while_full(1, evicted);
        self.unpin_with_room(pin)
    }

    /// [`Self::unpin`] once there is room for the node.
    #[inline(always)]
    fn unpin_with_room(&mut self, pin: Pin) {
        let i = pin.record;
        if self.slab[i as usize].lost {
            let lost = self.unpin_record(&pin);
            debug_assert!(lost);
            return self.place_unpinned(&pin);
        }
        // `unpin_record` of a record that kept its id, then `relabel`: the
        // same stores, the cache's own fields first, then the slab's
        // through one slice.
        let label = self.take_label();
        self.pinned -= 1;
        let slab = &mut self.slab[..];
        let s = &mut slab[i as usize];
        debug_assert_eq!(s.dirty, pin.dirty);
        s.pinned = false;
        s.label = label;
        move_to_newest(slab, i);
    }

    /// An unpinned record, resident again, takes `label` and goes to the
    /// newest end of its list.
    #[inline(always)]
    fn relabel(&mut self, i: u32, label: u32) {
        self.slab[i as usize].label = label;
        self.move_to_newest(i);
    }

    /// [`Self::unpin`] of a record that lost its id: only `place` while it
    /// was out took the id over (a tree whose nodes name each other), so
    /// place it again, as `after_read` would.
    #[cold]
    #[inline(never)]
    fn place_unpinned(&mut self, pin: &Pin) {
        // Out of the freed record's place first: `place` may hand that
        // record out again.
        let node = self.take_node(pin.record);
        let i = self.place(pin.id, node.level, pin.dirty);
        self.nodes[i as usize] = node;
    }

    /// Ends the pin of `pin`'s record and takes it off its list: true when
    /// the id index no longer names it (the record is then freed), false
    /// when it is resident again (its label still to take, and to be
    /// linked again unless taken for good).
    #[inline]
    fn unpin_record(&mut self, pin: &Pin) -> bool {
        let i = pin.record;
        let s = &mut self.slab[i as usize];
        s.pinned = false;
        if std::mem::take(&mut s.lost) {
            unlink(&mut self.slab, i);
            self.free_records.push(i);
            true
        } else {
            self.pinned -= 1;
            false
        }
    }

    /// Takes a pinned node out for good, as [`Self::take`] would have:
    /// (node, dirty).
    pub fn unpin_take(&mut self, pin: Pin) -> (Node, bool) {
        if !self.unpin_record(&pin) {
            unlink(&mut self.slab, pin.record);
            self.index.remove(pin.id);
            self.free_records.push(pin.record);
        }
        (self.take_node(pin.record), pin.dirty)
    }

    /// The sentinel of the recency list of a node of `level`: its level's
    /// for `mlru`, level 0's for the others.
    #[inline]
    fn list_of(&mut self, level: u8) -> u32 {
        let list = match self.policy {
            CachePolicy::ModifiedLru => level as usize,
            _ => 0,
        };
        match self.lists.get(list) {
            Some(&sentinel) => sentinel,
            None => self.add_lists(list + 1),
        }
    }

    /// Empty lists up to `lists` of them, each a new sentinel record.
    #[cold]
    #[inline(never)]
    /// The last one's sentinel comes back.
    fn add_lists(&mut self, lists: usize) -> u32 {
        while self.lists.len() < lists {
            let i = self.slab.len() as u32;
            self.slab.push(Slot::sentinel(i));
            self.images.push(Vec::new());
            self.nodes.push(Node::default());
            self.lists.push(i);
        }
        self.lists[lists - 1]
    }

    /// Puts a node on the newest end of its list.
    #[inline(never)]
    fn insert(&mut self, id: NodeId, node: Node, dirty: bool) {
        let level = node.level;
        let i = self.place(id, level, dirty);
        self.nodes[i as usize] = node;
    }

    /// Puts node `id` of `level`, given as its sealed image, on the newest
    /// end of its list, clean (its arena place holds an empty node until it
    /// is decoded). The image is taken by exchanging buffers, not copied:
    /// `image` comes back holding the slot's old buffer.
    fn insert_image(&mut self, id: NodeId, level: u8, image: &mut Vec<u8>) {
        let i = self.place(id, level, false);
        // A free record's place holds an empty node already (invariant 3).
        self.slab[i as usize].encoded = true;
        std::mem::swap(&mut self.images[i as usize], image);
        if image.capacity() == 0 {
            std::mem::swap(image, &mut self.spare_image);
        }
    }

    /// A slot for node `id` (a freed one first, as before images: the slot
    /// order is the order `dirty_nodes` writes in), linked newest; its
    /// arena place and image are the caller's to fill. Inlined: a leaf's
    /// image placed after its write (`insert_image`) is on every insert.
    #[inline(always)]
    fn place(&mut self, id: NodeId, level: u8, dirty: bool) -> u32 {
        let list = self.list_of(level);
        let label = self.take_label();
        let i = match self.free_records.pop() {
            Some(i) => i,
            None => {
                self.slab.push(Slot {
                    id,
                    label,
                    list,
                    newer: NIL,
                    older: NIL,
                    pinned: false,
                    lost: false,
                    encoded: false,
                    dirty,
                });
                self.images.push(Vec::new());
                self.nodes.push(Node::default());
                (self.slab.len() - 1) as u32
            }
        };
        let s = &mut self.slab[i as usize];
        s.id = id;
        s.label = label;
        s.encoded = false;
        s.dirty = dirty;
        s.list = list;
        link_newest(&mut self.slab, i);
        if let Some(old) = self.index.insert(id, i) {
            let o = &mut self.slab[old as usize];
            if o.pinned && old != i {
                // The pinned record loses the id (see `unpin`).
                o.lost = true;
                self.pinned -= 1;
            }
        }
        i
    }

    /// The eviction victim: the oldest node of the lowest non-empty list,
    /// pinned records passed over (they are out of the cache; a list of
    /// pinned records only is empty).
    fn victim(&self) -> Option<(u8, u32)> {
        for (level, &list) in self.lists.iter().enumerate() {
            let mut i = self.slab[list as usize].newer;
            while i != list {
                let s = &self.slab[i as usize];
                if !s.pinned {
                    return Some((level as u8, i));
                }
                i = s.newer;
            }
        }
        None
    }

    /// Evicts until `room_for` more nodes fit.
    #[inline]
    fn evict_to(&mut self, room_for: usize, out: &mut Vec<Evicted>) {
        // Inlined for the common case, room already there: of the nodes
        // an insert's descent gives back, two in three evict nothing
        // (`flashix bench`: 185,480 evicting unpins in 200,000 inserts).
        if self.len() + room_for > self.capacity {
            self.evict_some(room_for, out);
        }
    }

    #[inline(never)]
    fn evict_some(&mut self, room_for: usize, out: &mut Vec<Evicted>) {
        self.evict_while_full(room_for, out);
    }

    /// [`Self::evict_some`]'s loop, inlined where an insert's descent
    /// evicts (`unpin_evicting`).
    #[inline(always)]
    fn evict_while_full(&mut self, room_for: usize, out: &mut Vec<Evicted>) {
        while !self.is_empty() && self.len() + room_for > self.capacity {
            let Some((_, i)) = self.victim() else { break };
            let label = self.evict(i, out);
            self.free_labels.push(label);
        }
    }

    /// Evicts victim `i` (its node into `out` unless encoded) and hands
    /// back its label, not yet freed.
    #[inline(always)]
    fn evict(&mut self, i: u32, out: &mut Vec<Evicted>) -> u32 {
        let s = self.vacate_keeping_label(i);
        // An encoded victim is clean, and its arena place holds an empty
        // node: nothing to write or recycle.
        if !s.encoded {
            let node = self.take_node(i);
            out.push(Evicted {
                id: s.id,
                node,
                dirty: s.dirty,
            });
        }
        s.label
    }

    /// A node taken for a search (or traversal) goes back: refreshed if it
    /// was cached; for a miss, `lru` admits it clean, `mlru` and `none`
    /// refuse it (handed back as `Some`).
    pub fn after_read(
        &mut self,
        id: NodeId,
        node: Node,
        was_cached: bool,
        dirty: bool,
        evicted: &mut Vec<Evicted>,
    ) -> Option<Node> {
        if was_cached {
            // Nodes out for an operation are not counted while out; make
            // room again so invariant 1 holds after they come back.
            self.evict_to(1, evicted);
            self.insert(id, node, dirty);
            return None;
        }
        if self.admits_reads() {
            self.evict_to(1, evicted);
            self.insert(id, node, false);
            return None;
        }
        Some(node)
    }

    /// An updated node that was cached: it stays, dirty, no write (it may
    /// push out others, see `after_read`); clean for `wt-lru`, whose caller
    /// has written the change already.
    pub fn after_update_hit(&mut self, id: NodeId, node: Node, evicted: &mut Vec<Evicted>) {
        self.evict_to(1, evicted);
        let dirty = !self.writes_through_on_hit();
        self.insert(id, node, dirty);
    }

    /// Whether an update of a cached node must also be written now
    /// (`wt-lru`).
    pub fn writes_through_on_hit(&self) -> bool {
        self.policy == CachePolicy::WriteThroughLru
    }

    /// Whether a node read by a search that missed would be admitted
    /// (`lru` and `wt-lru`).
    pub fn admits_reads(&self) -> bool {
        matches!(self.policy, CachePolicy::Lru | CachePolicy::WriteThroughLru) && self.capacity > 0
    }

    /// Counts a miss served without the cache (a search reading an image).
    pub fn count_miss(&mut self) {
        self.misses += 1;
    }

    /// Whether an updated node that was not cached must be written now
    /// (`none`, `mlru`) or may be kept dirty (`lru`).
    pub fn writes_through_on_miss(&self) -> bool {
        self.policy != CachePolicy::Lru || self.capacity == 0
    }

    /// An updated node that was not cached. For `lru` it is admitted dirty;
    /// for `mlru` the caller has already written it and it is admitted clean
    /// if its priority beats the victim's; `none` refuses. A refused node is
    /// handed back as `Some`.
    pub fn after_update_miss(
        &mut self,
        id: NodeId,
        node: Node,
        evicted: &mut Vec<Evicted>,
    ) -> Option<Node> {
        if self.capacity == 0 {
            return Some(node);
        }
        match self.policy {
            CachePolicy::None => Some(node),
            CachePolicy::Lru | CachePolicy::WriteThroughLru => {
                let dirty = self.policy == CachePolicy::Lru;
                self.evict_to(1, evicted);
                self.insert(id, node, dirty);
                None
            }
            CachePolicy::ModifiedLru => {
                if self.len() >= self.capacity {
                    if let Some((victim_level, _)) = self.victim() {
                        // The new node is the most recent; it loses only on
                        // level (§4.7: "if the inserted node has the lower
                        // priority ... nothing happens").
                        if node.level < victim_level {
                            return Some(node);
                        }
                    }
                }
                self.evict_to(1, evicted);
                self.insert(id, node, false);
                None
            }
        }
    }

    /// Whether [`Self::after_update_miss`] would keep an updated node of
    /// `level` (so a caller that updated it as an image must decode it).
    pub fn keeps_update_miss(&self, level: u8) -> bool {
        if self.capacity == 0 {
            return false;
        }
        match self.policy {
            CachePolicy::None => false,
            CachePolicy::Lru | CachePolicy::WriteThroughLru => true,
            CachePolicy::ModifiedLru => {
                self.len() < self.capacity
                    || self
                        .victim()
                        .is_none_or(|(victim_level, _)| level >= victim_level)
            }
        }
    }

    /// [`Self::after_update_miss`] for a node given as its sealed image
    /// (`layout` decodes it if it is ever read from the cache), for the
    /// policies that write such a node at once and keep it clean (`mlru`,
    /// `none`): `true` when done (kept or refused), `false` for the
    /// others, which need the decoded node (`image` is then untouched; a
    /// kept image is taken, `image` left holding other bytes).
    ///
    /// Inlined into the tree's commit of a leaf image, its one caller, on
    /// every insert: its own frame and the policy's dispatch took about
    /// eight instructions an insert.
    #[inline(always)]
    pub fn after_update_miss_image(
        &mut self,
        id: NodeId,
        level: u8,
        image: &mut Vec<u8>,
        layout: &NodeLayout,
        evicted: &mut Vec<Evicted>,
    ) -> bool {
        match self.policy {
            CachePolicy::None => true,
            CachePolicy::ModifiedLru => {
                if self.keeps_update_miss(level) {
                    // One layout a tree: the first one stays.
                    self.layout.get_or_insert(*layout);
                    self.evict_to(1, evicted);
                    self.insert_image(id, level, image);
                }
                true
            }
            CachePolicy::Lru | CachePolicy::WriteThroughLru => self.capacity == 0,
        }
    }

    /// Drops a node (freed by a merge) without writing it.
    pub fn discard(&mut self, id: NodeId) -> Option<Node> {
        let i = self.resident(id)?;
        Some(self.remove_slot(i).1)
    }

    /// Every dirty node, marked clean, for the caller to write (flush).
    pub fn dirty_nodes(&mut self) -> impl Iterator<Item = (NodeId, &Node)> {
        let mut dirty: Vec<(u32, u32)> = (0..self.slab.len() as u32)
            .filter(|&i| {
                let s = &self.slab[i as usize];
                s.dirty && !s.pinned && self.index.get(s.id) == Some(i)
            })
            .map(|i| (self.slab[i as usize].label, i))
            .collect();
        // By label: the order of slot numbers.
        dirty.sort_unstable();
        for &(_, i) in &dirty {
            self.slab[i as usize].dirty = false;
        }
        let (slab, nodes) = (&self.slab, &self.nodes);
        dirty.into_iter().map(move |(_, i)| {
            let s = &slab[i as usize];
            (s.id, &nodes[i as usize])
        })
    }

    /// Whether node `id` is cached.
    pub fn contains(&self, id: NodeId) -> bool {
        self.resident(id).is_some()
    }
}

#[cfg(test)]
mod tests;
