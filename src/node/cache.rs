//! Node caches for tree indexes, with a byte budget.
//!
//! Three policies (`--set cache=none|lru|mlru`):
//!
//! * `none`: nothing is kept; every access reads, every update writes.
//! * `lru`: classic write-back LRU. Searches and updates both bring nodes
//!   in; updates make them dirty; a dirty node is written when evicted or
//!   flushed.
//! * `mlru`: the MB-Tree paper's modified LRU buffer (`mb-tree.md` §4.7).
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
//! Invariants:
//! 1. `len() ≤ capacity()` after every call.
//! 2. `order` holds exactly one key per resident node, matching its
//!    current level and tick.

use std::collections::BTreeSet;

use crate::device::nand::FastMap;

use super::codec::{Node, NodeId};

/// Which cache policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachePolicy {
    None,
    Lru,
    ModifiedLru,
}

impl std::str::FromStr for CachePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(CachePolicy::None),
            "lru" => Ok(CachePolicy::Lru),
            "mlru" => Ok(CachePolicy::ModifiedLru),
            _ => Err(format!("unknown cache policy `{s}`: use none, lru or mlru")),
        }
    }
}

impl CachePolicy {
    pub fn name(&self) -> &'static str {
        match self {
            CachePolicy::None => "none",
            CachePolicy::Lru => "lru",
            CachePolicy::ModifiedLru => "mlru",
        }
    }
}

struct Slot {
    node: Node,
    dirty: bool,
    tick: u64,
}

/// A node pushed out of the cache; write it if `dirty`.
#[derive(Debug)]
pub struct Evicted {
    pub id: NodeId,
    pub node: Node,
    pub dirty: bool,
}

/// A node cache.
pub struct NodeCache {
    policy: CachePolicy,
    capacity: usize,
    slots: FastMap<NodeId, Slot>,
    /// Eviction order: smallest first.
    order: BTreeSet<(u8, u64, NodeId)>,
    tick: u64,
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
            slots: FastMap::default(),
            order: BTreeSet::new(),
            tick: 0,
            hits: 0,
            misses: 0,
        }
    }

    pub fn policy(&self) -> CachePolicy {
        self.policy
    }
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn key(&self, id: NodeId, level: u8, tick: u64) -> (u8, u64, NodeId) {
        match self.policy {
            CachePolicy::ModifiedLru => (level, tick, id),
            // Plain LRU ignores the level.
            _ => (0, tick, id),
        }
    }

    /// Takes a node out for use; put it back with [`put_back`](Self::put_back)
    /// or [`after_update_hit`](Self::after_update_hit). Counts a hit or miss.
    pub fn take(&mut self, id: NodeId) -> Option<(Node, bool)> {
        match self.slots.remove(&id) {
            Some(slot) => {
                let k = self.key(id, slot.node.level, slot.tick);
                self.order.remove(&k);
                self.hits += 1;
                Some((slot.node, slot.dirty))
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    fn insert(&mut self, id: NodeId, node: Node, dirty: bool) {
        self.tick += 1;
        let k = self.key(id, node.level, self.tick);
        self.order.insert(k);
        self.slots.insert(
            id,
            Slot {
                node,
                dirty,
                tick: self.tick,
            },
        );
    }

    fn evict_to(&mut self, room_for: usize, out: &mut Vec<Evicted>) {
        while !self.slots.is_empty() && self.slots.len() + room_for > self.capacity {
            let Some(&k) = self.order.iter().next() else {
                break;
            };
            self.order.remove(&k);
            if let Some(slot) = self.slots.remove(&k.2) {
                out.push(Evicted {
                    id: k.2,
                    node: slot.node,
                    dirty: slot.dirty,
                });
            }
        }
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
        match self.policy {
            CachePolicy::Lru if self.capacity > 0 => {
                self.evict_to(1, evicted);
                self.insert(id, node, false);
                None
            }
            _ => Some(node),
        }
    }

    /// An updated node that was cached: it stays, dirty, no write (it may
    /// push out others, see `after_read`).
    pub fn after_update_hit(&mut self, id: NodeId, node: Node, evicted: &mut Vec<Evicted>) {
        self.evict_to(1, evicted);
        self.insert(id, node, true);
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
            CachePolicy::Lru => {
                self.evict_to(1, evicted);
                self.insert(id, node, true);
                None
            }
            CachePolicy::ModifiedLru => {
                if self.slots.len() >= self.capacity {
                    if let Some(&(victim_level, _, _)) = self.order.iter().next() {
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

    /// Drops a node (freed by a merge) without writing it.
    pub fn discard(&mut self, id: NodeId) -> Option<Node> {
        let slot = self.slots.remove(&id)?;
        let k = self.key(id, slot.node.level, slot.tick);
        self.order.remove(&k);
        Some(slot.node)
    }

    /// Every dirty node, marked clean, for the caller to write (flush).
    pub fn dirty_nodes(&mut self) -> impl Iterator<Item = (NodeId, &Node)> {
        self.slots
            .iter_mut()
            .filter(|(_, s)| s.dirty)
            .map(|(id, s)| {
                s.dirty = false;
                (*id, &s.node)
            })
    }

    /// Ids of cached nodes, for checks.
    pub fn contains(&self, id: NodeId) -> bool {
        self.slots.contains_key(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(level: u8) -> Node {
        Node {
            level,
            ..Node::default()
        }
    }

    fn ids(ev: &mut Vec<Evicted>) -> Vec<NodeId> {
        ev.drain(..).map(|e| e.id).collect()
    }

    #[test]
    fn mlru_evicts_lowest_level_then_oldest_and_searches_do_not_insert() {
        let mut ev = Vec::new();
        let mut c = NodeCache::new(CachePolicy::ModifiedLru, 3);
        assert!(c.after_update_miss(1, node(2), &mut ev).is_none());
        assert!(c.after_update_miss(2, node(0), &mut ev).is_none());
        assert!(c.after_update_miss(3, node(0), &mut ev).is_none());
        assert!(ev.is_empty());
        // A search miss never inserts.
        assert!(c.after_read(9, node(0), false, false, &mut ev).is_some());
        assert!(!c.contains(9));
        // A search hit refreshes node 2, so node 3 is now the oldest leaf.
        let (n, d) = c.take(2).unwrap();
        assert!(c.after_read(2, n, true, d, &mut ev).is_none());
        assert!(c.after_update_miss(4, node(1), &mut ev).is_none());
        assert_eq!(ids(&mut ev), vec![3]);
        // Levels {2, 0, 1}: a new leaf beats the old leaf (newer).
        assert!(c.after_update_miss(5, node(0), &mut ev).is_none());
        assert_eq!(ids(&mut ev), vec![2]);
        // Evict leaf 5 for a level-1 node; then only internal nodes remain
        // and a leaf is refused.
        assert!(c.after_update_miss(6, node(1), &mut ev).is_none());
        assert_eq!(ids(&mut ev), vec![5]);
        assert!(c.after_update_miss(7, node(0), &mut ev).is_some());
        assert!(ev.is_empty());
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn lru_is_write_back_and_admits_reads() {
        let mut ev = Vec::new();
        let mut c = NodeCache::new(CachePolicy::Lru, 2);
        assert!(!c.writes_through_on_miss());
        assert!(c.after_update_miss(1, node(0), &mut ev).is_none());
        assert!(c.after_read(2, node(0), false, false, &mut ev).is_none());
        assert!(c.after_read(3, node(0), false, false, &mut ev).is_none());
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].id, 1);
        assert!(ev[0].dirty, "a dirty victim must be written");
        assert_eq!(c.dirty_nodes().count(), 0);
    }

    #[test]
    fn none_keeps_nothing() {
        let mut ev = Vec::new();
        let mut c = NodeCache::new(CachePolicy::None, 100);
        assert_eq!(c.capacity(), 0);
        assert!(c.after_update_miss(1, node(0), &mut ev).is_some());
        assert!(c.after_read(1, node(0), false, false, &mut ev).is_some());
    }
}
