//! Deltas and record pages, shared by the delta schemes of
//! Agrawal et al. 2009 §6.1 (Basic Delta, Consolidation, IPL).
//!
//! A **delta** describes one high-level change to a B+-tree node, as §6.1
//! puts it: "insertion of a new key-pointer pair or updation of a child
//! pointer". Inserting a separator carries the child it points to, so a
//! node is rebuilt exactly by replaying its deltas on its base image.
//!
//! A **record page** is a page frame ([`super::page`]) of kind
//! `NodeRecords` whose payload is a sequence number (`u64`, increasing over
//! the store's life; the newest copy of a node wins on a rescan) followed by
//! records, each starting with the node id (`u32`) and a kind byte:
//!
//! | kind | rest of the record |
//! |---|---|
//! | 0 base | the node image (`node_bytes`, itself a checksummed frame, see [`super::codec`]) |
//! | 1 insert | key, value (entry widths), child id (`u32`, `u32::MAX` in leaves) |
//! | 2 delete | key, value, child id |
//!
//! Invariant: replaying a node's records in page order from its last base
//! gives its current content.

use crate::node::{EntryFormat, NodeError};

use super::codec::{Node, NodeId, NodeLayout, NO_NODE};
use super::page::{self, PageKind, FRAME_HEADER};
use super::store::NodeChange;

/// Bytes of the record header (node id + kind).
pub const RECORD_HEADER: usize = 5;
/// Bytes of the page header inside the frame payload (the sequence number).
pub const PAGE_HEADER: usize = 8;
/// Where the first record of a record page starts.
pub const FIRST_RECORD: usize = FRAME_HEADER + PAGE_HEADER;

const KIND_BASE: u8 = 0;
const KIND_INSERT: u8 = 1;
const KIND_DELETE: u8 = 2;

/// Bytes of a base record of `layout`.
pub fn base_record_bytes(layout: NodeLayout) -> usize {
    RECORD_HEADER + layout.node_bytes
}

/// Bytes of a delta record in `format`.
pub fn delta_record_bytes(format: EntryFormat) -> usize {
    RECORD_HEADER + format.entry_bytes() + 4
}

/// One change to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delta {
    pub insert: bool,
    pub key: u64,
    pub value: u64,
    /// The child right of an inserted or deleted separator; `NO_NODE` in a
    /// leaf.
    pub child: NodeId,
}

impl Delta {
    /// The delta a tree's [`NodeChange`] makes to `node` (the node after the
    /// change); `None` for a rewrite, which needs a base image.
    pub fn from_change(
        id: NodeId,
        node: &Node,
        change: NodeChange,
    ) -> Result<Option<Delta>, NodeError> {
        let (insert, key, value) = match change {
            NodeChange::Insert(k, v) => (true, k, v),
            NodeChange::Delete(k, v) => (false, k, v),
            NodeChange::Rewrite => return Ok(None),
        };
        if !insert && !node.is_leaf() {
            // The tree rewrites internal nodes that lose a separator (merges);
            // a child-less internal delete would not replay.
            return Ok(None);
        }
        let child = if insert && !node.is_leaf() {
            let pos =
                node.entries
                    .binary_search(&(key, value))
                    .map_err(|_| NodeError::Corrupt {
                        page: 0,
                        detail: format!("node {id}: the inserted separator is not in the node"),
                    })?;
            node.children[pos + 1]
        } else {
            NO_NODE
        };
        Ok(Some(Delta {
            insert,
            key,
            value,
            child,
        }))
    }

    /// Applies the delta to `node`; a delta that does not fit the node
    /// (read from `page`) is `Corrupt`.
    pub fn apply(&self, node: &mut Node, layout: NodeLayout, page: u64) -> Result<(), NodeError> {
        let corrupt = |detail: &str| NodeError::Corrupt {
            page,
            detail: format!("delta ({}, {}): {detail}", self.key, self.value),
        };
        let entry = (self.key, self.value);
        match (self.insert, node.is_leaf()) {
            (true, true) => {
                let pos = node
                    .entries
                    .binary_search(&entry)
                    .err()
                    .ok_or_else(|| corrupt("inserts an entry the node holds"))?;
                if node.entries.len() >= layout.leaf_capacity {
                    return Err(corrupt("overfills the leaf"));
                }
                node.entries.insert(pos, entry);
            }
            (false, true) => {
                let pos = node
                    .entries
                    .binary_search(&entry)
                    .map_err(|_| corrupt("deletes an entry the node lacks"))?;
                node.entries.remove(pos);
            }
            (true, false) => {
                let pos = node
                    .entries
                    .binary_search(&entry)
                    .err()
                    .ok_or_else(|| corrupt("inserts a separator the node holds"))?;
                if node.children.len() >= layout.fanout || node.children.is_empty() {
                    return Err(corrupt("does not fit the internal node"));
                }
                node.entries.insert(pos, entry);
                node.children.insert(pos + 1, self.child);
            }
            (false, false) => return Err(corrupt("deletes from an internal node")),
        }
        Ok(())
    }
}

/// One record read from a record page.
#[derive(Clone, Copy, Debug)]
pub enum Record<'a> {
    /// A base image (`node_bytes`), at this byte offset of the page.
    Base {
        image: &'a [u8],
        at: usize,
    },
    Delta(Delta),
}

/// Encodes a base record of `id` into `out` (exactly
/// [`base_record_bytes`] long).
pub fn put_base(out: &mut [u8], id: NodeId, node: &Node, layout: NodeLayout) {
    out[0..4].copy_from_slice(&id.to_le_bytes());
    out[4] = KIND_BASE;
    layout.encode(
        node,
        &mut out[RECORD_HEADER..RECORD_HEADER + layout.node_bytes],
    );
}

/// Encodes a delta record of `id` into `out` (exactly
/// [`delta_record_bytes`] long).
pub fn put_delta(out: &mut [u8], id: NodeId, d: &Delta, format: EntryFormat) {
    out[0..4].copy_from_slice(&id.to_le_bytes());
    out[4] = if d.insert { KIND_INSERT } else { KIND_DELETE };
    let kb = format.key_bytes as usize;
    let e = format.entry_bytes();
    format.put_key(&mut out[RECORD_HEADER..], d.key);
    format.put_value(&mut out[RECORD_HEADER + kb..], d.value);
    out[RECORD_HEADER + e..RECORD_HEADER + e + 4].copy_from_slice(&d.child.to_le_bytes());
}

/// Starts a record page in `page` (whole page) with sequence `seq`; returns
/// where records begin.
pub fn start_page(page: &mut [u8], seq: u64) -> usize {
    page.fill(0xFF);
    page[FRAME_HEADER..FIRST_RECORD].copy_from_slice(&seq.to_le_bytes());
    FIRST_RECORD
}

/// Seals a record page whose records end at `used`.
pub fn seal_page(page: &mut [u8], used: usize) {
    page::seal(page, PageKind::NodeRecords, used - FRAME_HEADER);
}

/// A record page read back: its sequence number and the bytes up to the end
/// of its records; `None` for an empty (erased or trimmed) page.
pub fn open_page(frame: &[u8], page_no: u64) -> Result<Option<(u64, &[u8])>, NodeError> {
    let Some(payload) = page::open(frame, PageKind::NodeRecords, page_no)? else {
        return Ok(None);
    };
    if payload.len() < PAGE_HEADER {
        return Err(NodeError::Corrupt {
            page: page_no,
            detail: "record page shorter than its header".into(),
        });
    }
    let mut s = [0u8; 8];
    s.copy_from_slice(&payload[..PAGE_HEADER]);
    Ok(Some((
        u64::from_le_bytes(s),
        &frame[..FRAME_HEADER + payload.len()],
    )))
}

/// Visits the records of a checked page (`page` as [`open_page`] returned
/// it, starting at the frame): `f(node id, record)`.
pub fn for_each_record(
    page: &[u8],
    layout: NodeLayout,
    page_no: u64,
    mut f: impl FnMut(NodeId, Record<'_>) -> Result<(), NodeError>,
) -> Result<(), NodeError> {
    let format = layout.format;
    let (kb, e) = (format.key_bytes as usize, format.entry_bytes());
    let corrupt = |detail: String| NodeError::Corrupt {
        page: page_no,
        detail,
    };
    let mut at = FIRST_RECORD;
    while at < page.len() {
        if page.len() - at < RECORD_HEADER {
            return Err(corrupt(format!("truncated record at byte {at}")));
        }
        let id = u32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]]);
        let kind = page[at + 4];
        let body = at + RECORD_HEADER;
        match kind {
            KIND_BASE => {
                let end = body + layout.node_bytes;
                if end > page.len() {
                    return Err(corrupt(format!("truncated base record at byte {at}")));
                }
                f(
                    id,
                    Record::Base {
                        image: &page[body..end],
                        at,
                    },
                )?;
                at = end;
            }
            KIND_INSERT | KIND_DELETE => {
                let end = body + e + 4;
                if end > page.len() {
                    return Err(corrupt(format!("truncated delta record at byte {at}")));
                }
                let c = &page[body + e..end];
                f(
                    id,
                    Record::Delta(Delta {
                        insert: kind == KIND_INSERT,
                        key: format.read_key(&page[body..]),
                        value: format.read_value(&page[body + kb..]),
                        child: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    }),
                )?;
                at = end;
            }
            k => return Err(corrupt(format!("unknown record kind {k} at byte {at}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> NodeLayout {
        NodeLayout::with_fanout(EntryFormat::new(4, 4).unwrap(), 8).unwrap()
    }

    #[test]
    fn records_round_trip_and_replay() {
        let l = layout();
        let mut base = Node::default();
        base.clear(0);
        base.entries.extend([(1, 1), (5, 5)]);
        let mut page = vec![0u8; 512];
        let mut at = start_page(&mut page, 42);
        put_base(&mut page[at..], 7, &base, l);
        at += base_record_bytes(l);
        let d = Delta {
            insert: true,
            key: 3,
            value: 9,
            child: NO_NODE,
        };
        put_delta(&mut page[at..], 7, &d, l.format);
        at += delta_record_bytes(l.format);
        let gone = Delta {
            insert: false,
            key: 5,
            value: 5,
            child: NO_NODE,
        };
        put_delta(&mut page[at..], 7, &gone, l.format);
        at += delta_record_bytes(l.format);
        seal_page(&mut page, at);
        let (seq, body) = open_page(&page, 3).unwrap().unwrap();
        assert_eq!(seq, 42);
        let mut node = Node::default();
        for_each_record(body, l, 3, |id, r| {
            assert_eq!(id, 7);
            match r {
                Record::Base { image, .. } => l.decode(image, 3, &mut node),
                Record::Delta(d) => d.apply(&mut node, l, 3),
            }
        })
        .unwrap();
        assert_eq!(node.entries, vec![(1, 1), (3, 9)]);
        // A flipped bit in a record is caught by the page checksum.
        page[FIRST_RECORD + 2] ^= 1;
        assert!(open_page(&page, 3).is_err());
    }

    #[test]
    fn separator_deltas_carry_their_child() {
        let l = layout();
        let mut node = Node::default();
        node.clear(1);
        node.children.extend([10, 20]);
        node.entries.push((50, 0));
        let mut after = node.clone();
        after.entries.insert(0, (30, 0));
        after.children.insert(1, 15);
        let d = Delta::from_change(1, &after, NodeChange::Insert(30, 0))
            .unwrap()
            .unwrap();
        assert_eq!(d.child, 15);
        d.apply(&mut node, l, 0).unwrap();
        assert_eq!(node, after);
        // Replaying it twice is detected, not silently duplicated.
        assert!(d.apply(&mut node, l, 0).is_err());
    }
}
