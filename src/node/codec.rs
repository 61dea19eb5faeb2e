//! B+-tree node images, shared by every tree-shaped index (the `btree`
//! baseline now; BFTL, MB-Tree, AS B-tree and the Buffered-B+ tree reuse the
//! in-memory [`Node`] and the layout arithmetic).
//!
//! A node image is a page frame ([`super::page`], kind `TreeNode`) whose
//! payload is:
//!
//! | bytes | field |
//! |---|---|
//! | 0 | level (0 = leaf) |
//! | 1 | reserved |
//! | 2..4 | count, little-endian `u16`: entries (leaf) or children (internal) |
//! | 4..8 | next leaf id, little-endian `u32` (`u32::MAX` = none; leaves only) |
//! | 8.. | leaf: `count` × (key, value) at the entry format's widths |
//! |     | internal: `count` × child id (`u32`), then `count − 1` separator (key, value) pairs |
//!
//! Integers are little-endian at the widths of the [`EntryFormat`].
//!
//! Invariants of a decoded node:
//! 1. Leaf entries are strictly increasing in (key, value) order.
//! 2. An internal node with `n` children has `n − 1` separators; every entry
//!    `e` under child `i` satisfies `sep[i−1] ≤ e < sep[i]`.
//! 3. `count` never exceeds the layout's capacity; a larger count read back
//!    is `Corrupt`.

use crate::node::{crc, EntryFormat, NodeError};

use super::page::{self, PageKind, FRAME_HEADER};
use super::paper::{self, NodeFormat, Payload};

/// Identifier of a logical tree node.
pub type NodeId = u32;
/// "No node" in links.
pub const NO_NODE: NodeId = u32::MAX;
/// Bytes of the node header inside the frame payload.
pub const NODE_HEADER: usize = 8;
const CHILD_BYTES: usize = 4;

/// A decoded node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// 0 for a leaf.
    pub level: u8,
    /// Leaf: the entries. Internal: the separators.
    pub entries: Vec<(u64, u64)>,
    /// Internal only: child ids, one more than separators.
    pub children: Vec<NodeId>,
    /// Leaf only: the next leaf in key order.
    pub next: NodeId,
}

impl Node {
    pub fn is_leaf(&self) -> bool {
        self.level == 0
    }

    /// Empties the node for reuse without giving back its memory.
    pub fn clear(&mut self, level: u8) {
        self.level = level;
        self.entries.clear();
        self.children.clear();
        self.next = NO_NODE;
    }

    /// Splits an overfull internal node: the upper half of its children and
    /// separators move to `right` (cleared first), and the separator between
    /// the halves, which goes up to the parent, is returned (`None` for a
    /// node without separators).
    pub fn split_internal(&mut self, right: &mut Node) -> Option<(u64, u64)> {
        right.clear(self.level);
        let mid = self.children.len() / 2;
        right.children.extend(self.children.drain(mid..));
        right.entries.extend(self.entries.drain(mid..));
        self.entries.pop()
    }

    /// Splits an internal node of more than `max` children into the fewest
    /// nodes of at most `max`, evenly (a batch can add many separators at
    /// once): the first part stays in `self`; the others come back, each
    /// with the separator that goes up to the parent before it.
    pub fn split_internal_even(&mut self, max: usize) -> Vec<((u64, u64), Node)> {
        let n = self.children.len();
        let parts = n.div_ceil(max.max(2));
        if parts <= 1 {
            return Vec::new();
        }
        let per = n.div_ceil(parts);
        let children = std::mem::take(&mut self.children);
        let entries = std::mem::take(&mut self.entries);
        let mut out = Vec::with_capacity(parts - 1);
        for start in (0..n).step_by(per) {
            let end = (start + per).min(n);
            let mut part = Node::default();
            part.clear(self.level);
            part.children.extend_from_slice(&children[start..end]);
            part.entries.extend_from_slice(&entries[start..end - 1]);
            if start == 0 {
                self.children = part.children;
                self.entries = part.entries;
            } else {
                out.push((entries[start - 1], part));
            }
        }
        out
    }

    /// Index of the child whose range holds `entry` (invariant 2): a search on
    /// keys (a compare a step), then those of key `entry.0` `<= entry`; for
    /// sorted separators (decoding checks) `partition_point(|s| *s <= entry)`.
    #[inline]
    pub fn child_slot(&self, entry: (u64, u64)) -> usize {
        let mut slot = self.entries.partition_point(|s| s.0 < entry.0);
        while self.entries.get(slot).is_some_and(|s| *s <= entry) {
            slot += 1;
        }
        slot
    }
}

/// How many of `0..n` satisfy `below`, which holds for a prefix: a binary
/// search that picks each half with a select, not a branch.
#[inline(always)]
fn select_search(n: usize, below: impl Fn(usize) -> bool) -> usize {
    if n == 0 {
        return 0;
    }
    let (mut base, mut size) = (0usize, n);
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        // The hint makes it a conditional move: the plain `if` compiled
        // to a branch, which random keys mispredict about half the time.
        base = std::hint::select_unpredictable(below(mid), mid, base);
        size -= half;
    }
    base + below(base) as usize
}

/// How many of the packed entries `words` (sorted) satisfy `below`, which
/// holds for a prefix: the search of [`select_search`] on a shrinking
/// window of the slice. A step keeps the window's lower part or moves to
/// its upper part, both `len − len/2` long, exactly as `base` and `size`
/// move there; the compiler sees both in bounds, so a step has no bounds
/// check, and the answer is where the last window starts (plus its entry
/// if below).
#[inline(always)]
fn packed_count_below(words: &[[u8; 8]], below: impl Fn(&[u8; 8]) -> bool) -> usize {
    let mut window = words;
    while window.len() > 1 {
        let (lower, upper) = window.split_at(window.len() / 2);
        let kept = &window[..upper.len()];
        let _ = lower;
        window = std::hint::select_unpredictable(below(&upper[0]), upper, kept);
    }
    let base = (window.as_ptr() as usize - words.as_ptr() as usize) / 8;
    match window.first() {
        Some(w) => base + below(w) as usize,
        None => 0,
    }
}

/// Why a node image read from `page` is refused after its frame passed:
/// the frame was empty (`None`), or its node header is short or does not
/// fit its payload. Out of line: node reads are hot, their errors are not.
#[cold]
#[inline(never)]
fn corrupt_image(page: u64, payload: Option<&[u8]>) -> NodeError {
    let detail = match payload {
        None => "a node pointer names an empty page".to_string(),
        Some(p) if p.len() < NODE_HEADER => "node payload shorter than its header".to_string(),
        Some(p) => format!(
            "node header (level {}, count {}) does not fit its payload",
            p[0],
            u16::from_le_bytes([p[2], p[3]])
        ),
    };
    NodeError::Corrupt { page, detail }
}

/// A 4 + 4-byte entry's bytes as one integer ordered as its (key, value)
/// pair ([`EntryFormat::packed`], inlined for the loops that compare many).
#[inline(always)]
fn packed_word(c: &[u8]) -> u64 {
    u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]).rotate_left(32)
}

/// Sizes and capacities of nodes for one format and node size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeLayout {
    pub format: EntryFormat,
    /// Bytes of one node image (frame header included).
    pub node_bytes: usize,
    /// Most entries a leaf holds.
    pub leaf_capacity: usize,
    /// Most children an internal node holds (the fanout).
    pub fanout: usize,
}

impl NodeLayout {
    /// The layout of nodes of `node_bytes` bytes.
    pub fn with_node_bytes(format: EntryFormat, node_bytes: usize) -> Result<Self, NodeError> {
        if format.node_format == NodeFormat::Paper {
            return Self::paper(format, node_bytes);
        }
        let e = format.entry_bytes();
        let overhead = FRAME_HEADER + NODE_HEADER;
        let leaf_capacity = node_bytes.saturating_sub(overhead) / e;
        let fanout = (node_bytes.saturating_sub(overhead) + e) / (CHILD_BYTES + e);
        if leaf_capacity < 3 || fanout < 3 {
            return Err(NodeError::Config(format!(
                "a node of {node_bytes} bytes holds {leaf_capacity} entries and {fanout} children; \
                 at least 3 of each are needed ({overhead} bytes of header, {e} per entry)"
            )));
        }
        if leaf_capacity > u16::MAX as usize || fanout > u16::MAX as usize {
            return Err(NodeError::Config(format!(
                "a node of {node_bytes} bytes is too large"
            )));
        }
        Ok(NodeLayout {
            format,
            node_bytes,
            leaf_capacity,
            fanout,
        })
    }

    /// A paper-format layout (`node::paper`): `node_bytes` = 6f + 4 holds
    /// `f` children or `f` entries.
    fn paper(format: EntryFormat, node_bytes: usize) -> Result<Self, NodeError> {
        let f = paper::paper_fanout(node_bytes);
        if f < 4 || FRAME_HEADER + paper::HANDLE_PAYLOAD > node_bytes {
            return Err(NodeError::Config(format!(
                "a paper-format node of {node_bytes} bytes has fanout {f}; at least 4 is needed \
                 (6 bytes a key-pointer pair, 4 of header)"
            )));
        }
        if f > u16::MAX as usize {
            return Err(NodeError::Config(format!(
                "a node of {node_bytes} bytes is too large"
            )));
        }
        Ok(NodeLayout {
            format,
            node_bytes,
            leaf_capacity: f,
            fanout: f,
        })
    }

    /// The layout in which a paper-format node's full payload is encoded
    /// (our own format, with this layout's capacities); `self` in our
    /// format.
    fn full(&self) -> NodeLayout {
        if self.format.node_format == NodeFormat::Flashix {
            return *self;
        }
        let format = self.format.with_node_format(NodeFormat::Flashix);
        let e = format.entry_bytes();
        let body = (self.leaf_capacity * e).max(self.fanout * CHILD_BYTES + (self.fanout - 1) * e);
        NodeLayout {
            format,
            node_bytes: FRAME_HEADER + NODE_HEADER + body,
            leaf_capacity: self.leaf_capacity,
            fanout: self.fanout,
        }
    }

    /// The node payload of a frame's `payload` (read from `page`): itself,
    /// or a paper-format image's full payload.
    fn resolve<'a>(&self, payload: &'a [u8], page: u64) -> Result<Payload<'a>, NodeError> {
        match self.format.node_format {
            NodeFormat::Flashix => Ok(Payload::Borrowed(payload)),
            NodeFormat::Paper => paper::resolve(payload, page).map(Payload::Shared),
        }
    }

    /// The node payload of an image whose frame was checked: where the
    /// in-image searches below read. Invariant: a paper-format image was
    /// resolved by [`Self::image_header`] on this thread just before, and
    /// the registry keeps it (it is dropped only when a new index is
    /// created), so an image that does not resolve here reads as a node
    /// with nothing in it.
    ///
    /// `f` is given the payload: our own format's borrowed in line, a
    /// paper-format image's resolved out of line (carrying the [`Payload`]
    /// enum and its reference count through each search cost a fifth of
    /// a leaf search).
    #[inline(always)]
    fn with_body<R>(&self, image: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
        let payload = image.get(FRAME_HEADER..).unwrap_or(&[]);
        // One call of `f`, which is then inlined.
        let resolved;
        let payload = if self.format.node_format == NodeFormat::Flashix {
            payload
        } else {
            resolved = self.resolve_body(payload);
            &*resolved
        };
        f(payload)
    }

    #[inline(never)]
    fn resolve_body<'a>(&self, payload: &'a [u8]) -> Payload<'a> {
        self.resolve(payload, 0).unwrap_or(Payload::Borrowed(&[]))
    }

    /// This layout with leaves capped at `entries` (at least 3, at most
    /// what a leaf's bytes hold): a leaf splits when it would pass it.
    pub fn with_leaf_entries(mut self, entries: usize) -> Result<Self, NodeError> {
        let fits = Self::with_node_bytes(self.format, self.node_bytes)?.leaf_capacity;
        if entries < 3 || entries > fits || entries > u8::MAX as usize {
            return Err(NodeError::Config(format!(
                "leaf_entries must be 3 to {}, got {entries}",
                fits.min(u8::MAX as usize)
            )));
        }
        self.leaf_capacity = entries;
        Ok(self)
    }

    /// The leaf cap a superblock records: 0 when leaves hold as many
    /// entries as fit.
    pub fn leaf_entries_cap(&self) -> u8 {
        match Self::with_node_bytes(self.format, self.node_bytes) {
            // Invariant: `with_leaf_entries` keeps a cap at most u8::MAX.
            Ok(full) if full.leaf_capacity > self.leaf_capacity => self.leaf_capacity as u8,
            _ => 0,
        }
    }

    /// The smallest layout whose internal nodes hold `fanout` children.
    pub fn with_fanout(format: EntryFormat, fanout: usize) -> Result<Self, NodeError> {
        if fanout < 3 {
            return Err(NodeError::Config(format!(
                "fanout must be at least 3, got {fanout}"
            )));
        }
        if format.node_format == NodeFormat::Paper {
            return Self::with_node_bytes(format, paper::paper_node_bytes(fanout));
        }
        let e = format.entry_bytes();
        let bytes = FRAME_HEADER + NODE_HEADER + fanout * CHILD_BYTES + (fanout - 1) * e;
        Self::with_node_bytes(format, bytes)
    }

    /// Encodes `node` into `out[..node_bytes]` (zero-padded), sealed.
    pub fn encode(&self, node: &Node, out: &mut [u8]) {
        let len = self.encode_payload(node, &mut out[FRAME_HEADER..self.node_bytes]);
        page::seal(&mut out[..self.node_bytes], PageKind::TreeNode, len);
    }

    /// Writes `node`'s payload (header and body, the rest of `payload`
    /// zeroed) and returns its length. `payload` holds at least
    /// `node_bytes − FRAME_HEADER` bytes. Other page kinds embed it.
    pub fn encode_payload(&self, node: &Node, payload: &mut [u8]) -> usize {
        if self.format.node_format == NodeFormat::Paper {
            let full = self.full();
            let mut body = vec![0u8; full.node_bytes - FRAME_HEADER];
            let len = full.encode_payload(node, &mut body);
            let at = paper::register(&body[..len], payload);
            payload[at..self.node_bytes - FRAME_HEADER].fill(0);
            return at;
        }
        let f = self.format;
        let (kb, vb) = (f.key_bytes as usize, f.value_bytes as usize);
        let count = if node.is_leaf() {
            node.entries.len()
        } else {
            node.children.len()
        };
        payload[0] = node.level;
        payload[1] = 0;
        payload[2..4].copy_from_slice(&(count as u16).to_le_bytes());
        payload[4..8].copy_from_slice(&node.next.to_le_bytes());
        let mut at = NODE_HEADER;
        if !node.is_leaf() {
            let n = node.children.len() * CHILD_BYTES;
            let out = &mut payload[at..at + n];
            for (o, &c) in out.chunks_exact_mut(CHILD_BYTES).zip(&node.children) {
                o.copy_from_slice(&c.to_le_bytes());
            }
            at += n;
        }
        // As in decoding, the widths are tested once for the whole slice.
        let n = node.entries.len() * (kb + vb);
        let out = &mut payload[at..at + n];
        match (kb, vb) {
            (4, 4) => {
                for (o, &(k, v)) in out.chunks_exact_mut(8).zip(&node.entries) {
                    o.copy_from_slice(&((k & 0xFFFF_FFFF) | (v << 32)).to_le_bytes());
                }
            }
            _ => {
                for (o, &(k, v)) in out.chunks_exact_mut(kb + vb).zip(&node.entries) {
                    f.put_key(o, k);
                    f.put_value(&mut o[kb..], v);
                }
            }
        }
        at += n;
        payload[at..].fill(0);
        at
    }

    /// Checks the frame of an image read from `page` and returns its node
    /// payload, its level and its count (the header of invariant 3).
    /// Inlined into each image search, whose answer it otherwise returned
    /// through memory; `f` is given them, as [`Self::with_body`] gives a
    /// payload.
    #[inline(always)]
    fn with_image_payload<R>(
        &self,
        image: &[u8],
        page: u64,
        sealed: bool,
        f: impl FnOnce(&[u8], u8, usize) -> Result<R, NodeError>,
    ) -> Result<R, NodeError> {
        let Some(framed) = page::open_read(image, PageKind::TreeNode, page, sealed)? else {
            return Err(corrupt_image(page, None));
        };
        // One call of `f`, which is then inlined.
        let resolved;
        let payload = if self.format.node_format == NodeFormat::Flashix {
            framed
        } else {
            resolved = self.resolve(framed, page)?;
            &*resolved
        };
        let (level, count) = self.node_header(payload, page)?;
        f(payload, level, count)
    }

    /// The level and count of a node `payload` read from `page`, checked
    /// against invariant 3 and the payload's length.
    #[inline(always)]
    fn node_header(&self, payload: &[u8], page: u64) -> Result<(u8, usize), NodeError> {
        if payload.len() >= NODE_HEADER {
            let level = payload[0];
            let count = u16::from_le_bytes([payload[2], payload[3]]) as usize;
            let e = self.format.entry_bytes();
            let need = if level == 0 {
                (count <= self.leaf_capacity).then_some(NODE_HEADER + count * e)
            } else {
                (count >= 2 && count <= self.fanout)
                    .then(|| NODE_HEADER + count * CHILD_BYTES + (count - 1) * e)
            };
            if need.is_some_and(|n| n <= payload.len()) {
                return Ok((level, count));
            }
        }
        Err(corrupt_image(page, Some(payload)))
    }

    /// Checks the frame and header of an image read from `page` (as a
    /// decode would, short of the entry order): its level and count. A
    /// `sealed` image (one its device vouches is the frame its store sealed,
    /// `NodeStore::read_image_sealed`) skips the checksum, which cannot fail.
    pub fn image_header(
        &self,
        image: &[u8],
        page: u64,
        sealed: bool,
    ) -> Result<(u8, usize), NodeError> {
        self.with_image_payload(image, page, sealed, |_, level, count| Ok((level, count)))
    }

    /// Whether the entries (leaf) or separators (internal node) of an image
    /// whose header [`Self::image_header`] accepted are strictly increasing,
    /// the last check [`Self::decode`] makes.
    pub fn image_sorted(&self, image: &[u8], level: u8, count: usize) -> bool {
        let (at, n) = if level == 0 {
            (NODE_HEADER, count)
        } else {
            (NODE_HEADER + count * CHILD_BYTES, count - 1)
        };
        self.with_body(image, |payload| self.body_sorted(payload, at, n))
    }

    /// [`Self::image_sorted`] of the `n` entries at `payload[at..]`.
    #[inline(always)]
    fn body_sorted(&self, payload: &[u8], at: usize, n: usize) -> bool {
        let e = self.format.entry_bytes();
        let Some(body) = payload.get(at..at + n * e) else {
            return false;
        };
        if self.format.packed().is_some() {
            // One integer compare an entry instead of a tuple's two (the
            // packing of `EntryFormat::packed`, inlined), and no branch an
            // entry: every insert checks a whole leaf this way.
            // Each entry against the next, without a branch an entry.
            let mut sorted = true;
            let mut previous = match body.get(..8) {
                Some(first) => packed_word(first),
                None => return true,
            };
            for c in body[8..].chunks_exact(8) {
                let x = packed_word(c);
                sorted &= previous < x;
                previous = x;
            }
            return sorted;
        }
        let mut previous: Option<(u64, u64)> = None;
        for chunk in body.chunks_exact(e) {
            let entry = self.entry_at(chunk, 0);
            if previous.is_some_and(|p| p >= entry) {
                return false;
            }
            previous = Some(entry);
        }
        true
    }

    /// In an internal node's image that [`Self::image_header`] accepted
    /// (with `count` children): the slot of the child whose range holds
    /// `target`, and that child, as [`Node::child_slot`] finds them.
    pub fn image_child_slot(
        &self,
        image: &[u8],
        count: usize,
        target: (u64, u64),
    ) -> (usize, NodeId) {
        self.with_body(image, |payload| {
            self.body_child_slot(payload, count, target)
        })
    }

    #[inline(always)]
    fn body_child_slot(&self, payload: &[u8], count: usize, target: (u64, u64)) -> (usize, NodeId) {
        let seps = NODE_HEADER + count * CHILD_BYTES;
        if payload.len() < seps + (count - 1) * self.format.entry_bytes() {
            // Only an image the invariant of `body` rules out.
            return (0, NO_NODE);
        }
        let lo = self.count_below(payload, seps, count - 1, target, true, false);
        let c = NODE_HEADER + lo * CHILD_BYTES;
        let child =
            u32::from_le_bytes([payload[c], payload[c + 1], payload[c + 2], payload[c + 3]]);
        (lo, child)
    }

    /// How many of the `n` sorted entries at `payload[at..]` are below
    /// `target` (or equal to it, with `or_equal`). A binary search whose
    /// steps depend on the data only through a select, not a branch: on
    /// random keys the branchy form mispredicted about half its steps, three
    /// or four searches an operation. The packed case is inlined into each
    /// image search (a call, its register saves and the format tests were
    /// half of a 127-instruction search); other widths take
    /// [`Self::count_below_wide`]. `by_key` lets a target `(key, 0)` be
    /// searched on keys alone (a scan's; the caller's constant `false`
    /// leaves no test in the other searches).
    #[inline(always)]
    fn count_below(
        &self,
        payload: &[u8],
        at: usize,
        n: usize,
        target: (u64, u64),
        or_equal: bool,
        by_key: bool,
    ) -> usize {
        if self.format.key_bytes == 4
            && self.format.value_bytes == 4
            && target.0 <= u32::MAX as u64
            && target.1 <= u32::MAX as u64
        {
            // 4 + 4-byte entries as one integer each (key high, as
            // `EntryFormat::packed` packs them), compared with the target
            // packed the same way; `+ or_equal` turns "below or equal" into
            // "below the next integer".
            let Some(t) = ((target.0 << 32) | target.1).checked_add(or_equal as u64) else {
                // Every entry is at most the largest pair.
                return n;
            };
            // The entries as 8-byte arrays, sliced once: a step of the
            // search is then one load and one compare.
            let Some(body) = payload.get(at..at + n * 8) else {
                // Only an image the callers' length checks rule out.
                return 0;
            };
            let words = body.as_chunks::<8>().0;
            if by_key && !or_equal && target.1 == 0 {
                // A search's target (key, 0): an entry is below it exactly
                // when its key is, so the key half (the low four bytes) is
                // compared alone, without the rotate.
                let key = target.0;
                let below =
                    |w: &[u8; 8]| (u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64) < key;
                return packed_count_below(words, below);
            }
            return packed_count_below(words, |w| u64::from_le_bytes(*w).rotate_left(32) < t);
        }
        self.count_below_wide(payload, at, n, target, or_equal)
    }

    /// [`Self::count_below`] of entries that are not 4 + 4 bytes, or of a
    /// target wider than them.
    #[inline(never)]
    fn count_below_wide(
        &self,
        payload: &[u8],
        at: usize,
        n: usize,
        target: (u64, u64),
        or_equal: bool,
    ) -> usize {
        let e = self.format.entry_bytes();
        let below = |i: usize| {
            let x = self.entry_at(payload, at + i * e);
            x < target || (or_equal && x == target)
        };
        select_search(n, below)
    }

    /// In a leaf's image that [`Self::image_header`] accepted (with `count`
    /// entries, sorted): where `entry` is, or where it would go, as
    /// `binary_search` on the decoded entries answers.
    pub fn image_leaf_find(
        &self,
        image: &[u8],
        count: usize,
        entry: (u64, u64),
    ) -> Result<usize, usize> {
        self.with_body(image, |payload| self.body_leaf_find(payload, count, entry))
    }

    #[inline(always)]
    fn body_leaf_find(
        &self,
        payload: &[u8],
        count: usize,
        entry: (u64, u64),
    ) -> Result<usize, usize> {
        let e = self.format.entry_bytes();
        if payload.len() < NODE_HEADER + count * e {
            // Only an image the invariant of `with_body` rules out.
            return Err(0);
        }
        let lo = self.count_below(payload, NODE_HEADER, count, entry, false, false);
        if lo < count && self.entry_is(payload, NODE_HEADER + lo * e, entry) {
            Ok(lo)
        } else {
            Err(lo)
        }
    }

    /// Whether the entry at `payload[at..]` is `entry`: a 4 + 4-byte one
    /// read as one word (key low), as `decode_payload` reads it, without
    /// `entry_at`'s width tests.
    #[inline(always)]
    fn entry_is(&self, payload: &[u8], at: usize, entry: (u64, u64)) -> bool {
        if self.format.packed().is_some() {
            if let Some(c) = payload.get(at..at + 8) {
                let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                return (w & 0xFFFF_FFFF, w >> 32) == entry;
            }
        }
        self.entry_at(payload, at) == entry
    }

    /// Inserts `entry` at `pos` into a leaf's image of `count` entries with
    /// room for one more, and seals it: the bytes [`Self::encode`] writes
    /// for the decoded leaf with the entry inserted (the reserved bytes and
    /// everything past the entries zeroed as it zeroes them). The image's
    /// frame must have passed [`Self::image_header`] (its checksum checked,
    /// or its device vouching it sealed): the new checksum is carried over
    /// from the old one.
    pub fn image_leaf_insert(&self, image: &mut [u8], count: usize, pos: usize, entry: (u64, u64)) {
        if self.format.node_format == NodeFormat::Paper {
            // The content lives in the registry: a new image for the leaf
            // with the entry inserted.
            let mut node = Node::default();
            if self.decode_checked(image, 0, &mut node).is_ok() && pos <= node.entries.len() {
                node.entries.insert(pos, entry);
                self.encode(&node, image);
            }
            return;
        }
        let f = self.format;
        let e = f.entry_bytes();
        let kb = f.key_bytes as usize;
        let start = FRAME_HEADER + NODE_HEADER;
        let at = start + pos * e;
        let end = start + count * e;
        // The old frame, for carrying its checksum over (the caller's
        // `image_header` checked it, or the device vouched it sealed).
        let old = image
            .first_chunk::<{ FRAME_HEADER + NODE_HEADER }>()
            .map(crc::frame_words);
        image.copy_within(at..end, at + e);
        if f.packed().is_some() {
            // One word, as `encode_payload` writes a 4 + 4-byte entry.
            let w = (entry.0 & 0xFFFF_FFFF) | (entry.1 << 32);
            image[at..at + 8].copy_from_slice(&w.to_le_bytes());
        } else {
            f.put_key(&mut image[at..], entry.0);
            f.put_value(&mut image[at + kb..], entry.1);
        }
        let len = NODE_HEADER + (count + 1) * e;
        let payload = &mut image[FRAME_HEADER..self.node_bytes];
        payload[1] = 0;
        payload[2..4].copy_from_slice(&((count + 1) as u16).to_le_bytes());
        payload[len..].fill(0);
        let frame = &mut image[..self.node_bytes];
        match old {
            // The old payload was exactly the header and entries this one
            // holds without the new entry, so the checksum carries over.
            // (The length is the first word's high half.)
            Some(old) if e == 8 && (old[0] >> 32) as usize == NODE_HEADER + count * e => {
                let inserted = NODE_HEADER + pos * e;
                page::reseal_inserted(frame, PageKind::TreeNode, len, old, inserted);
            }
            _ => page::seal(frame, PageKind::TreeNode, len),
        }
    }

    fn entry_at(&self, payload: &[u8], at: usize) -> (u64, u64) {
        let kb = self.format.key_bytes as usize;
        (
            self.format.read_key(&payload[at..]),
            self.format.read_value(&payload[at + kb..]),
        )
    }

    /// Without decoding the node: the child of the internal node `image`
    /// whose range holds `target` (binary search over the encoded
    /// separators), and the node's level; `sealed` as
    /// [`Self::image_header`] takes it.
    pub fn image_child(
        &self,
        image: &[u8],
        page: u64,
        sealed: bool,
        target: (u64, u64),
    ) -> Result<(u8, NodeId), NodeError> {
        self.with_image_payload(image, page, sealed, |payload, level, count| {
            if level == 0 {
                return Err(NodeError::Corrupt {
                    page,
                    detail: "a leaf above the leaf level".into(),
                });
            }
            let seps = NODE_HEADER + count * CHILD_BYTES;
            let lo = self.count_below(payload, seps, count - 1, target, true, false);
            let c = NODE_HEADER + lo * CHILD_BYTES;
            Ok((
                level,
                u32::from_le_bytes([payload[c], payload[c + 1], payload[c + 2], payload[c + 3]]),
            ))
        })
    }

    /// Without decoding the leaf `image`: calls `f` for its entries from the
    /// first one ≥ `target` while their key is ≤ `hi`; returns whether the
    /// scan ended inside this leaf, and the next leaf; `sealed` as
    /// [`Self::image_header`] takes it.
    pub fn image_scan(
        &self,
        image: &[u8],
        page: u64,
        sealed: bool,
        target: (u64, u64),
        hi: u64,
        f: &mut impl FnMut(u64, u64),
    ) -> Result<(bool, NodeId), NodeError> {
        self.with_image_payload(image, page, sealed, |payload, level, count| {
            if level != 0 {
                return Err(NodeError::Corrupt {
                    page,
                    detail: "an internal node at the leaf level".into(),
                });
            }
            let e = self.format.entry_bytes();
            // A scan's target is (key, 0): its search may compare keys alone.
            let lo = self.count_below(payload, NODE_HEADER, count, target, false, true);
            // In bounds: `node_header` checked the entries fit the payload.
            let from = payload
                .get(NODE_HEADER + lo * e..NODE_HEADER + count * e)
                .unwrap_or(&[]);
            if self.format.packed().is_some() {
                // 4 + 4-byte entries read as one word each (key low), as
                // `decode_payload` reads them: no width test an entry.
                for c in from.as_chunks::<8>().0 {
                    let w = u64::from_le_bytes(*c);
                    let (k, v) = (w & 0xFFFF_FFFF, w >> 32);
                    if k > hi {
                        return Ok((true, NO_NODE));
                    }
                    f(k, v);
                }
            } else {
                for c in from.chunks_exact(e) {
                    let (k, v) = self.entry_at(c, 0);
                    if k > hi {
                        return Ok((true, NO_NODE));
                    }
                    f(k, v);
                }
            }
            let next = u32::from_le_bytes([payload[4], payload[5], payload[6], payload[7]]);
            Ok((false, next))
        })
    }

    /// Decodes an image whose frame was checked (by
    /// [`Self::image_header`], or sealed here) into `node`, without
    /// checking its checksum again.
    pub fn decode_checked(
        &self,
        image: &[u8],
        page: u64,
        node: &mut Node,
    ) -> Result<(), NodeError> {
        let payload = image.get(4..8).and_then(|l| {
            let len = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
            image.get(FRAME_HEADER..FRAME_HEADER + len)
        });
        match payload {
            Some(payload) => self.decode_payload(payload, page, node),
            None => self.decode(image, page, node),
        }
    }

    /// Decodes the image read from `page` into `node` (reusing its memory).
    pub fn decode(&self, image: &[u8], page: u64, node: &mut Node) -> Result<(), NodeError> {
        let payload =
            page::open(image, PageKind::TreeNode, page)?.ok_or_else(|| NodeError::Corrupt {
                page,
                detail: "a node pointer names an empty page".into(),
            })?;
        self.decode_payload(payload, page, node)
    }

    /// Decodes a payload [`Self::encode_payload`] wrote (its frame already
    /// checked) into `node`.
    pub fn decode_payload(
        &self,
        payload: &[u8],
        page: u64,
        node: &mut Node,
    ) -> Result<(), NodeError> {
        if self.format.node_format == NodeFormat::Paper {
            let full = paper::resolve(payload, page)?;
            return self.full().decode_payload(&full, page, node);
        }
        let corrupt = |detail: String| NodeError::Corrupt { page, detail };
        if payload.len() < NODE_HEADER {
            return Err(corrupt("node payload shorter than its header".into()));
        }
        let level = payload[0];
        let count = u16::from_le_bytes([payload[2], payload[3]]) as usize;
        let next = u32::from_le_bytes([payload[4], payload[5], payload[6], payload[7]]);
        let f = self.format;
        let e = f.entry_bytes();
        let kb = f.key_bytes as usize;
        node.clear(level);
        node.next = next;
        let mut at = NODE_HEADER;
        let entries = if level == 0 {
            if count > self.leaf_capacity {
                return Err(corrupt(format!(
                    "leaf count {count} exceeds capacity {}",
                    self.leaf_capacity
                )));
            }
            count
        } else {
            if count < 2 || count > self.fanout {
                return Err(corrupt(format!(
                    "internal node with {count} children (fanout {})",
                    self.fanout
                )));
            }
            let children = payload
                .get(at..at + count * CHILD_BYTES)
                .ok_or_else(|| corrupt("node payload too short for its children".into()))?;
            node.children.extend(
                children
                    .chunks_exact(CHILD_BYTES)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            at += count * CHILD_BYTES;
            count - 1
        };
        let body = payload
            .get(at..at + entries * e)
            .ok_or_else(|| corrupt("node payload too short for its entries".into()))?;
        // Whole-slice passes (a decode per node read was a tenth of `flashix
        // bench`): the widths are tested once, not per entry, and `extend`
        // of an exact-size iterator writes without a capacity check each.
        match (f.key_bytes, f.value_bytes) {
            (4, 4) => node.entries.extend(body.chunks_exact(8).map(|c| {
                let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                (w & 0xFFFF_FFFF, w >> 32)
            })),
            _ => node.entries.extend(
                body.chunks_exact(e)
                    .map(|c| (f.read_key(c), f.read_value(&c[kb..]))),
            ),
        }
        if node.entries.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt("node entries out of order".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
