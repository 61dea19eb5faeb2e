//! `buffer-tree`: Arge's buffer tree as Agrawal et al. 2009 §3.1
//! describes it, the structure the Buffered-B+ tree starts from.
//!
//! §4.1 builds the Buffered-B+ tree by replacing each super-node of the
//! buffer tree with a subtree; run the other way, the buffer tree is this
//! module's tree with one node per "subtree" (`subtree_height` 1, so every
//! node, leaves included, has a buffer), nodes as large as memory allows
//! (super-nodes), buffers of U ≈ M/2 and no adaptive emptying:
//! * inserts collect in the root's tail page (B elements) and go to its
//!   buffer as a page; a buffer that reaches U is emptied — loaded, sorted,
//!   distributed to the children's buffers through a lookup in the node —
//!   and children filled to U are emptied in turn; a leaf's buffer is
//!   inserted into the leaf, whose splits cascade (buffers split with
//!   their nodes);
//! * `lookup=delayed`: a lookup is an element buffered with the inserts
//!   and answered when it reaches the leaves ([`crate::index::Index::
//!   get_later`], [`crate::index::Index::take_answers`]): it sees exactly
//!   the operations before it, because a key's elements keep their order
//!   in every buffer. A key whose pairs span several children sends a part
//!   to each, and the answer is complete when every part is;
//! * `lookup=immediate` (default): `get` scans the nodes and buffers on
//!   the root-to-leaf path at once.
//!
//! Memory M: half is the node cache, which must hold the two super-nodes
//! an emptying works on (the root, through which every entry is routed,
//! and the node it reaches) besides the B+-tree's two working nodes (a
//! node read on a miss and the sibling a split creates) and the
//! data-bound tables when they are in the budget (two super-nodes' room),
//! so a super-node is about M/12 bytes (`node_bytes`, at most the largest
//! node the node format holds; the paper's
//! D = (M − 1)/2 elements is half of M, `docs/DEVIATIONS.md`); the
//! other half holds the scratch and the buffer pool as in `super` (with
//! `lookup=delayed`, an eighth of it for lookups cut across subtrees), and
//! U is M/2 bytes of elements (`max_buffer_bytes`), emptied in chunks. A
//! delayed lookup is an element on flash carrying its ticket, holding no
//! RAM; only one whose key's pairs straddle a separator becomes parts with
//! their ranges in RAM (`super::lookups`), and when those pass their share
//! the buffers on one's path are emptied to the leaves. Node occupancy is the B+-tree's (a = b/2, where
//! the paper's (a, b)-tree allows a = b/4; `docs/DEVIATIONS.md`).
//!
//! On flash it is the Buffered-B+ tree's format (`super`): nodes in the
//! node log or in place, buffers in partitions or slots, and `flush`
//! empties every buffer, answering every delayed lookup, so the durable
//! state is the tree alone, named `buffer-tree` in its superblock.

use crate::index::btree::POOL_NODES;
use crate::index::{EntryFormat, IndexError, Params, Result};
use crate::node::NodeLayout;

/// Super-nodes the node cache keeps between entries of an emptying: the
/// root, through which each entry is routed, and the node it goes to.
const CACHED_SUPER_NODES: usize = 2;
/// Room in the cache's half, in super-nodes, for the data-bound tables
/// that come out of it when they are in the budget (the buffer directory,
/// 16 bytes a buffer and 6 a flash page, and the node table): without it
/// they leave the cache one super-node, and the root and the node an
/// entry goes to evict each other at every entry. With the tables outside
/// the budget the cache holds it too.
const TABLE_ROOM_NODES: usize = 2;

/// Sets the parameters that make the Buffered-B+ tree a buffer tree;
/// returns whether lookups are delayed. The Buffered-B+ tree's own knobs
/// are refused: with them it would not be a buffer tree.
pub(super) fn defaults(params: &mut Params, memory: usize) -> Result<bool> {
    for k in ["adapt", "subtree_height", "node_cache_share"] {
        if params.contains(k) {
            return Err(IndexError::Config(format!(
                "buffer-tree has no `{k}` (it is the Buffered-B+ tree with one node per \
                 subtree and no adaptive emptying; use latree for that)"
            )));
        }
    }
    let delayed = params.switch("lookup", "immediate", "delayed")?;
    params.set("adapt", "off");
    params.set("subtree_height", "1");
    params.set("node_cache_share", "0.5");
    if !["fanout", "node_bytes", "node_pages"]
        .iter()
        .any(|k| params.contains(k))
    {
        // The cache's half holds two cached super-nodes (the root and the
        // leaf an emptying inserts into), the B+-tree's working nodes (a
        // node read on a miss, a split's sibling) and room for the
        // data-bound tables, beside the node log's one-page write buffer
        // and the tree's metadata. Sized for the working nodes alone, the
        // cache would hold none, and every entry of an emptying would read
        // its path's super-nodes again.
        let nodes = CACHED_SUPER_NODES + POOL_NODES + TABLE_ROOM_NODES;
        let node = (memory / 2).saturating_sub(1024) / nodes / 8 * 8;
        let node = largest_node(params.entry_format()?, node.max(64));
        params.set("node_bytes", &node.to_string());
    }
    if !params.contains("max_buffer_bytes") {
        params.set("max_buffer_bytes", &(memory / 2).to_string());
    }
    Ok(delayed)
}

/// The largest node of at most `bytes` that the node format holds: a
/// node counts its entries in 16 bits (about 1 MiB of 8 + 8-byte
/// entries), so past a budget of about 12 MiB the super-node of M/12 is
/// cut to the largest node there is, and the cache holds more than its
/// two. The paper's budgets (kilobytes) never come near.
fn largest_node(format: EntryFormat, bytes: usize) -> usize {
    // A page of 4 KiB is a node in every format; a smaller node that does
    // not fit is too small, which the tree reports.
    const FITS: usize = 4096;
    let fits = |b: usize| NodeLayout::with_node_bytes(format, b).is_ok();
    if bytes <= FITS || fits(bytes) || !fits(FITS) {
        return bytes;
    }
    // Binary search over multiples of 8 between one that fits and `bytes`,
    // too large.
    let (mut lo, mut hi) = (FITS / 8, bytes / 8);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid * 8) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo * 8
}
