//! BFTL's index units (Wu et al. 2003 §3.2): their encoding in a sector, the
//! replay that rebuilds a node's logical view from them, the units that
//! write a node whole, and the commit policy's FIRST-FIT packing (§3.3).
//! The sector layout is drawn in [`super::store`] and `docs/FORMAT.md`.

use crate::node::page::FRAME_HEADER;
use crate::node::{EntryFormat, NodeError};
use crate::node::{Node, NodeId, NO_NODE};

/// Bytes of a sector's header after the page frame.
pub(super) const HEADER: usize = 10;
/// Node identifiers take the low 30 bits of a unit's tag.
pub(super) const ID_MASK: u32 = (1 << 30) - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Insert = 0,
    Delete = 1,
    Reset = 2,
    /// A reset and the node's first entry in one unit.
    ResetInsert = 3,
}

impl Op {
    /// Whether the unit starts its node afresh (invariant 1).
    pub(super) fn resets(self) -> bool {
        matches!(self, Op::Reset | Op::ResetInsert)
    }
}

/// One index unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) node: NodeId,
    pub(super) op: Op,
    pub(super) key: u64,
    pub(super) value: u64,
    /// `parent_node`; a reset-insert unit keeps the node's level here.
    pub(super) parent: u32,
    pub(super) left: u32,
    pub(super) right: u32,
}

/// Bytes of one encoded unit.
pub fn unit_bytes(format: EntryFormat) -> usize {
    format.entry_bytes() + 16
}

/// Units per sector (Λ) for sectors of `sector_size` bytes.
pub fn lambda(format: EntryFormat, sector_size: usize) -> usize {
    (sector_size.saturating_sub(FRAME_HEADER + HEADER)) / unit_bytes(format)
}

/// Writes `u` into `out` (`unit_bytes` long).
pub(super) fn encode(f: EntryFormat, u: &Unit, out: &mut [u8]) {
    let (kb, vb) = (f.key_bytes as usize, f.value_bytes as usize);
    f.put_key(out, u.key);
    f.put_value(&mut out[kb..], u.value);
    let at = kb + vb;
    out[at..at + 4].copy_from_slice(&u.parent.to_le_bytes());
    out[at + 4..at + 8].copy_from_slice(&u.left.to_le_bytes());
    out[at + 8..at + 12].copy_from_slice(&u.right.to_le_bytes());
    let tag = (u.node & ID_MASK) | ((u.op as u32) << 30);
    out[at + 12..at + 16].copy_from_slice(&tag.to_le_bytes());
}

/// Reads one unit from `b`; `page` names the sector in errors.
///
/// Into `out` (reserved first) rather than returned in a `Result`: the
/// unit built field by field on the stack and then copied whole stalled
/// every store-to-load forward, which was a fifth of a BFTL node read.
#[inline(always)]
pub(super) fn decode_into(
    f: EntryFormat,
    b: &[u8],
    page: u64,
    seq: u32,
    out: &mut Vec<(Unit, u32)>,
) -> Result<(), NodeError> {
    let (kb, vb) = (f.key_bytes as usize, f.value_bytes as usize);
    let at = kb + vb;
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let tag = u32_at(at + 12);
    let op = match tag >> 30 {
        0 => Op::Insert,
        1 => Op::Delete,
        2 => Op::Reset,
        _ => Op::ResetInsert,
    };
    let parent = u32_at(at);
    if op == Op::ResetInsert && parent > u8::MAX as u32 {
        return Err(NodeError::Corrupt {
            page,
            detail: format!("reset-insert unit with level {parent}"),
        });
    }
    out.push((
        Unit {
            node: tag & ID_MASK,
            op,
            key: f.read_key(b),
            value: f.read_value(&b[kb..]),
            parent,
            left: u32_at(at + 4),
            right: u32_at(at + 8),
        },
        seq,
    ));
    Ok(())
}

/// Replays `units` of node `id` into `node` (invariant 1).
///
/// Two passes over `units` (the first finds the last reset) instead of
/// collecting node `id`'s units into a vector: a node read is BFTL's
/// hottest path, and the allocation was 5% of a 10^7-entry run.
pub(super) fn replay(
    node: &mut Node,
    id: NodeId,
    units: impl Iterator<Item = Unit> + Clone,
    page: u64,
) -> Result<(), NodeError> {
    let corrupt = |detail: &str| NodeError::Corrupt {
        page,
        detail: format!("node {id}: {detail}"),
    };
    let mine = units.filter(|u| u.node == id);
    // Units before the last reset are stale (invariant 1). A plain loop:
    // `enumerate().filter().last()` carried each unit through the stack.
    let (mut from, mut i) = (0, 0);
    for u in mine.clone() {
        if u.op.resets() {
            from = i;
        }
        i += 1;
    }
    for u in mine.skip(from) {
        match u.op {
            Op::Reset => {
                node.clear(u.key as u8);
                node.next = u.right;
                if u.key > 0 {
                    node.children.push(u.left);
                }
            }
            Op::ResetInsert => {
                // The level is checked at decode (it fits a u8).
                node.clear(u.parent as u8);
                node.entries.push((u.key, u.value));
                if node.is_leaf() {
                    node.next = u.right;
                } else {
                    node.children.push(u.left);
                    node.children.push(u.right);
                }
            }
            Op::Insert => {
                let e = (u.key, u.value);
                // A node written whole (a split, a compaction) replays its
                // entries in key order: append them without a search.
                if node.entries.last().is_none_or(|&last| last < e) {
                    node.entries.push(e);
                    if !node.is_leaf() {
                        node.children.push(u.right);
                    }
                    continue;
                }
                match node.entries.binary_search(&e) {
                    Ok(_) => {}
                    Err(pos) => {
                        node.entries.insert(pos, e);
                        if !node.is_leaf() {
                            node.children.insert(pos + 1, u.right);
                        }
                    }
                }
            }
            Op::Delete => {
                let e = (u.key, u.value);
                match node.entries.binary_search(&e) {
                    Ok(pos) => {
                        node.entries.remove(pos);
                        if !node.is_leaf() {
                            node.children.remove(pos + 1);
                        }
                    }
                    Err(_) => return Err(corrupt("a delete unit for an absent entry")),
                }
            }
        }
    }
    Ok(())
}

/// Whether `node`'s whole image starts with a reset-insert unit rather
/// than a reset unit of its own.
fn resets_with_first_entry(node: &Node) -> bool {
    !node.entries.is_empty() && (node.is_leaf() || node.next == NO_NODE)
}

/// The units that rebuild `node` from nothing: one unit per entry, the
/// first of which also resets the node (so a node of Λ entries takes
/// one sector, and a compacted node leaves its list one sector long).
/// An empty node, or an internal one with a right link, takes a reset
/// unit of its own first.
pub(super) fn full_units(id: NodeId, node: &Node, out: &mut Vec<Unit>) {
    let unit = |op, key, value, parent, left, right| Unit {
        node: id,
        op,
        key,
        value,
        parent,
        left,
        right,
    };
    let first_child = node.children.first().copied().unwrap_or(NO_NODE);
    let combined = resets_with_first_entry(node);
    if !combined {
        out.push(unit(
            Op::Reset,
            node.level as u64,
            0,
            NO_NODE,
            first_child,
            node.next,
        ));
    }
    for (i, &(key, value)) in node.entries.iter().enumerate() {
        let right = if node.is_leaf() {
            NO_NODE
        } else {
            node.children[i + 1]
        };
        if i == 0 && combined {
            let right = if node.is_leaf() { node.next } else { right };
            out.push(unit(
                Op::ResetInsert,
                key,
                value,
                node.level as u32,
                first_child,
                right,
            ));
        } else {
            out.push(unit(Op::Insert, key, value, NO_NODE, NO_NODE, right));
        }
    }
}

/// Drops the units of a batch that a later reset of the same node in the
/// batch supersedes (invariant 1: they would be stale the moment they are
/// written). `pool` is grouped by node, each node's units in order.
pub(super) fn drop_superseded(pool: &mut Vec<Unit>) {
    let mut keep = vec![true; pool.len()];
    let mut start = 0;
    while start < pool.len() {
        let node = pool[start].node;
        let end = start + pool[start..].iter().take_while(|u| u.node == node).count();
        if let Some(last) = pool[start..end].iter().rposition(|u| u.op.resets()) {
            keep[start..start + last].fill(false);
        }
        start = end;
    }
    let mut i = 0;
    pool.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// FIRST-FIT (§3.3) of the per-node sets of `pool` (units grouped by node,
/// in order) into sectors of `lambda` units: each set goes whole into the
/// first sector with room, else into a new one. A set larger than a sector
/// fills whole sectors first, and its rest may only join a sector opened
/// after them, because a node's units are replayed in sector order.
pub(super) fn first_fit(pool: &[Unit], lambda: usize) -> Vec<Vec<Unit>> {
    let mut sectors: Vec<Vec<Unit>> = Vec::new();
    let mut start = 0;
    while start < pool.len() {
        let node = pool[start].node;
        let end = start + pool[start..].iter().take_while(|u| u.node == node).count();
        let mut set = &pool[start..end];
        let mut first_candidate = 0;
        while set.len() > lambda {
            sectors.push(set[..lambda].to_vec());
            set = &set[lambda..];
            first_candidate = sectors.len();
        }
        match sectors[first_candidate..]
            .iter_mut()
            .find(|s| s.len() + set.len() <= lambda)
        {
            Some(s) => s.extend_from_slice(set),
            None => sectors.push(set.to_vec()),
        }
        start = end;
    }
    sectors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(node: NodeId, n: usize) -> Vec<Unit> {
        (0..n as u64)
            .map(|k| Unit {
                node,
                op: Op::Insert,
                key: k,
                value: k,
                parent: NO_NODE,
                left: NO_NODE,
                right: NO_NODE,
            })
            .collect()
    }

    #[test]
    fn first_fit_keeps_sets_whole_and_fills_the_first_sector_with_room() {
        // Sets of 12, 5, 9, 3 and 25 units, Λ = 20.
        let mut pool = Vec::new();
        for (node, n) in [(1, 12), (2, 5), (3, 9), (4, 3), (5, 25)] {
            pool.extend(set(node, n));
        }
        let sectors = first_fit(&pool, 20);
        let shape: Vec<Vec<(NodeId, usize)>> = sectors
            .iter()
            .map(|s| {
                let mut runs: Vec<(NodeId, usize)> = Vec::new();
                for u in s {
                    match runs.last_mut() {
                        Some(r) if r.0 == u.node => r.1 += 1,
                        _ => runs.push((u.node, 1)),
                    }
                }
                runs
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                vec![(1, 12), (2, 5), (4, 3)],
                vec![(3, 9)],
                vec![(5, 20)],
                vec![(5, 5)],
            ]
        );
        // Within a set, units keep their order across sectors.
        assert_eq!(sectors[3][0].key, 20);
    }
}
