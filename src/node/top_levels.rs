//! The top levels of a tree kept decoded in RAM, as Wu et al. 2003 §5.1 runs
//! its B-trees: "a small amount of B-Tree nodes in the top levels were
//! cached in RAM so that these 'hot' nodes could be accessed efficiently".
//! A store that keeps them serves reads of those nodes without touching
//! the device; writes still go to the device (write-through), so the
//! cached copies never hold anything the device lacks.
//!
//! Invariants:
//! 1. `nodes` holds exactly the nodes seen (read or written) at the top
//!    `levels` levels of the tallest tree seen, each as last seen.
//! 2. When the tree grows a level, the nodes that fall out of the top
//!    `levels` are dropped.

use std::collections::BTreeMap;

use super::codec::{Node, NodeId};

/// Decoded nodes of a tree's top levels.
#[derive(Debug, Default)]
pub struct TopLevels {
    levels: u8,
    /// The highest level seen (the root's).
    top: u8,
    nodes: BTreeMap<NodeId, Node>,
}

impl TopLevels {
    /// Keeps the top `levels` levels (0: none).
    pub fn new(levels: u8) -> Self {
        TopLevels {
            levels,
            top: 0,
            nodes: BTreeMap::new(),
        }
    }

    /// Levels kept.
    pub fn levels(&self) -> u8 {
        self.levels
    }

    /// Whether nodes at `level` are kept.
    pub fn holds(&self, level: u8) -> bool {
        self.levels > 0 && level + self.levels > self.top
    }

    /// The kept copy of node `id`.
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(&id)
    }

    /// Keeps (or drops) `node` as last seen (invariants 1 and 2).
    pub fn remember(&mut self, id: NodeId, node: &Node) {
        if node.level > self.top {
            self.top = node.level;
            let (top, keep) = (self.top, self.levels);
            self.nodes.retain(|_, n| n.level + keep > top);
        }
        if self.holds(node.level) {
            match self.nodes.get_mut(&id) {
                Some(n) => n.clone_from(node),
                None => {
                    self.nodes.insert(id, node.clone());
                }
            }
        } else {
            self.nodes.remove(&id);
        }
    }

    /// Drops node `id` (freed).
    pub fn forget(&mut self, id: NodeId) {
        self.nodes.remove(&id);
    }

    /// Nodes kept.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is kept.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(level: u8) -> Node {
        let mut n = Node::default();
        n.clear(level);
        n
    }

    #[test]
    fn keeps_the_top_levels_as_the_tree_grows() {
        let mut t = TopLevels::new(2);
        t.remember(1, &node(0));
        assert!(t.get(1).is_some(), "a root leaf is the top level");
        t.remember(2, &node(1));
        assert!(t.get(1).is_some() && t.get(2).is_some());
        t.remember(3, &node(2));
        assert!(t.get(1).is_none(), "leaves fell out of the top two levels");
        assert!(t.get(2).is_some() && t.get(3).is_some());
        t.remember(4, &node(0));
        assert!(t.get(4).is_none());
        t.forget(3);
        assert_eq!(t.len(), 1);
        assert!(!TopLevels::new(0).holds(5));
    }
}
