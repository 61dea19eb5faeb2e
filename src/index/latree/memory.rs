//! What the Buffered-B+ tree holds in RAM besides its node cache and
//! buffer pool (issue #43): the scratch of emptyings and lookups, sized
//! from the budget and reused, never grown with the data.
//!
//! * The emptying's **chunk**: a quarter of what the budget leaves beside
//!   the node cache, at 17 bytes an entry in RAM (`Elem`) with 8 bytes of
//!   routes and targets (8 entries at least); a buffer larger than it is
//!   drained in several chunks (`super::empty`), and a page larger than a
//!   chunk is read once for each chunk it feeds (the smallest budgets).
//! * A **page of entries** (at most a chunk) through which a buffer that
//!   moves with its node (a split, a merge) streams.
//! * A **lookup's vectors** (its buffered entries, the tree's pairs, the
//!   merge, the walk, which emptyings use too): a thirty-second, at least
//!   512 bytes; an answer or an emptying that outgrows them (a long range,
//!   a key with many pairs, a wide subtree) gives the excess back after the
//!   operation.

use super::buffers::{Elem, Op};
use super::{Cause, LaTree};
use crate::index::Result;
use crate::node::page::FRAME_HEADER;
use crate::node::NodeId;

/// Shares of what the budget leaves beside the node cache: a quarter for
/// the emptying's chunk, a thirty-second for a lookup's vectors.
const CHUNK_SHARE: usize = 4;
const LOOKUP_SHARE: usize = 32;
/// The delayed lookups' share (`lookup=delayed`): an eighth.
const DELAYED_SHARE: usize = 8;
/// The smallest chunk, for the smallest budgets.
const MIN_CHUNK: usize = 8;
/// The least a lookup's vectors are given: a subtree's walk and a node's
/// children (fanout 16, subtree height 2) need about this much, and less
/// would be given back and taken again at every operation.
const MIN_LOOKUP_BYTES: usize = 512;

/// What the scratch vectors may hold between operations, sized from the
/// budget left beside the node cache.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scratch {
    /// The emptying's chunk (with its routes and targets: 25 bytes an
    /// entry), never less than `MIN_CHUNK`.
    pub chunk_entries: usize,
    /// A buffer page's entries, at most a chunk (a moved buffer streams
    /// through them).
    pub page_entries: usize,
    /// A lookup's vectors (its buffered entries, the tree's pairs, the
    /// merge, the path).
    pub lookup_bytes: usize,
    /// Delayed lookups cut across subtrees (`lookup=delayed` only).
    pub delayed_bytes: usize,
}

impl Scratch {
    pub fn of(rest: usize, page_size: usize, elem_bytes: usize, delayed: bool) -> Scratch {
        let per_page = (page_size.saturating_sub(FRAME_HEADER + 4) / elem_bytes).max(1);
        let per_entry = size_of::<Elem>() + 2 * size_of::<NodeId>();
        let chunk_entries = (rest / CHUNK_SHARE / per_entry).max(MIN_CHUNK);
        Scratch {
            chunk_entries,
            page_entries: per_page.min(chunk_entries),
            lookup_bytes: (rest / LOOKUP_SHARE).max(MIN_LOOKUP_BYTES),
            delayed_bytes: if delayed { rest / DELAYED_SHARE } else { 0 },
        }
    }

    /// The bytes it may hold in all.
    pub fn bytes(&self) -> usize {
        self.chunk_entries * (size_of::<Elem>() + 2 * size_of::<NodeId>())
            + self.page_entries * size_of::<Elem>()
            + self.lookup_bytes
            + self.delayed_bytes
    }
}

impl LaTree {
    /// RAM the scratch vectors keep between operations, at their in-RAM
    /// widths and capacities: the emptying's chunk and routes, the page a
    /// moved buffer streams through, and a lookup's vectors (kept within
    /// `Scratch::lookup_bytes` by [`LaTree::trim_scratch`]).
    pub(super) fn scratch_bytes(&self) -> usize {
        (self.loaded.capacity() + self.moving.capacity()) * size_of::<Elem>()
            + (self.routes.capacity() + self.targets.capacity()) * size_of::<NodeId>()
            + self.lookup_scratch_bytes()
    }

    fn lookup_scratch_bytes(&self) -> usize {
        self.found.capacity() * size_of::<Elem>()
            + (self.base.capacity() + self.live.capacity()) * size_of::<(u64, u64)>()
            + self.found_order.capacity() * size_of::<((u64, u64), u32, Op)>()
            + (self.walk.capacity() + self.stack.capacity()) * size_of::<(NodeId, u8)>()
            + self.kids.capacity() * size_of::<NodeId>()
    }

    /// After a lookup, range or delete whose answer outgrew the lookup
    /// scratch (a long range, a key with many pairs): gives the excess
    /// back, so the scratch stays within its share of the budget (the
    /// usual lookup allocates nothing).
    pub(super) fn trim_scratch(&mut self) {
        if self.lookup_scratch_bytes() <= self.scratch.lookup_bytes {
            return;
        }
        // Seven vectors, an equal share each.
        let share = self.scratch.lookup_bytes / 7;
        fn trim<T>(v: &mut Vec<T>, bytes: usize) {
            v.clear();
            v.shrink_to(bytes / size_of::<T>().max(1));
        }
        trim(&mut self.found, share);
        trim(&mut self.base, share);
        trim(&mut self.live, share);
        trim(&mut self.found_order, share);
        trim(&mut self.walk, share);
        trim(&mut self.stack, share);
        trim(&mut self.kids, share);
    }

    /// Keeps the delayed lookups cut across subtrees (the only ones that
    /// hold RAM in flight, `super::lookups`) within their share: past it,
    /// the buffers on the path of one of them are emptied, top down, to
    /// the leaves, which answers it and every lookup on that path, until
    /// they hold half their share; then their tables give the rest back.
    pub(super) fn fit_lookups(&mut self) -> Result<()> {
        let share = self.scratch.delayed_bytes;
        if !self.delayed || self.delayed_lookups.memory_bytes() <= share {
            return Ok(());
        }
        while self.delayed_lookups.held_bytes() > share / 2 {
            let before = self.delayed_lookups.parts();
            let Some(pair) = self.delayed_lookups.some_part() else {
                break;
            };
            let (mut id, mut level) = self.tree.root();
            loop {
                if self.bufs.entries(id) > 0 {
                    self.empty(id, Cause::Lookups)?;
                    self.settle()?;
                }
                let Some(below) = self.child_level(level) else {
                    break;
                };
                id = self.route(pair, below)?;
                level = below;
            }
            if self.delayed_lookups.parts() >= before
                && self.delayed_lookups.some_part() == Some(pair)
            {
                // Not on that path after all: nothing more to do here.
                break;
            }
        }
        self.delayed_lookups.shrink();
        Ok(())
    }
}
