//! Bounds on walks that follow pointers read from flash.
//!
//! A page rewritten with a valid checksum can still point anywhere: a leaf's
//! `next` back to an earlier leaf, a child to its own ancestor. Every such
//! walk is bounded by a figure the index knows without trusting the page
//! (the node ids it ever allocated, the height in its superblock), and a
//! walk past that bound is [`NodeError::Corrupt`], never a hang.
//!
//! Neither helper allocates: they sit on the search and update paths.

use crate::node::NodeError;

use super::codec::{Node, NodeId};

/// Counts the steps of a chain (a leaf chain, say) against `limit`, the
/// most nodes the chain can honestly hold.
#[derive(Clone, Copy, Debug)]
pub struct ChainBound {
    what: &'static str,
    limit: u64,
    seen: u64,
}

impl ChainBound {
    /// `what` names the chain and its bound for the error, as in "leaf
    /// chain" / "nodes ever allocated".
    pub fn new(what: &'static str, limit: u64) -> Self {
        ChainBound {
            what,
            limit,
            seen: 0,
        }
    }

    /// Counts a visit of node `id` (at `page`); `Corrupt` once the chain is
    /// longer than the limit, which only a loop can make it.
    pub fn step(&mut self, id: NodeId, page: u64) -> Result<(), NodeError> {
        self.seen += 1;
        if self.seen > self.limit {
            return Err(NodeError::Corrupt {
                page,
                detail: format!(
                    "{} longer than the {} nodes the index ever allocated: a loop (at node {id})",
                    self.what, self.limit
                ),
            });
        }
        Ok(())
    }
}

/// Checks that node `id`, reached by a descent, is at the `level` its
/// parent's level (or the superblock's height) implies. Levels strictly
/// decrease on the way down, so a descent that checks them ends within the
/// tree's height even when a child pointer names an ancestor.
pub fn expect_level(node: &Node, id: NodeId, page: u64, level: u8) -> Result<(), NodeError> {
    if node.level != level {
        return Err(NodeError::Corrupt {
            page,
            detail: format!(
                "node {id} has level {} where the descent expects {level}",
                node.level
            ),
        });
    }
    Ok(())
}
