//! Reading a node's committed state back from its sectors (Wu et al. 2003
//! §3.2: a node's logical view is the replay of its index units): the hot
//! path of every BFTL search and update, kept apart from the writing side
//! in [`super`].

use crate::device::Storage;
use crate::node::page::{self, PageKind};
use crate::node::{EntryFormat, NodeError};
use crate::node::{Node, NodeId, NodeLayout};

use super::unit::{self, unit_bytes, Unit, HEADER, ID_MASK};
use super::{BftlStore, NODE_PAGE_HEADER};

impl BftlStore {
    /// Reads sector `lba`: an index-unit sector's units (only node
    /// `only`'s, where given) are appended to `out`; a node page (FlashDB)
    /// is decoded into `page_node` and its sequence number and node
    /// returned.
    ///
    /// Why `only`: a 2 KB sector holds up to 80 units of many nodes, and a
    /// node read replays only its own (invariant 1), so decoding the others
    /// is wasted (reading nodes was 40% of a 10^7-entry W-Update run, issue
    /// #31). A unit of another node is then not checked here; it is when
    /// its own node is read, and the frame's checksum covers the sector
    /// either way.
    pub(super) fn read_sector(
        &mut self,
        lba: u64,
        only: Option<NodeId>,
        out: &mut Vec<(Unit, u32)>,
        page_node: &mut Node,
    ) -> Result<Option<(u32, NodeId)>, NodeError> {
        // The device's own copy where it lends one (a simulated disk in
        // RAM), else a copy in the reused buffer.
        let dev = match &mut self.storage {
            Storage::Pages(d) => d.as_mut(),
            // Invariant: `new` accepts only logical-page storage.
            Storage::Raw(_) => unreachable!("BftlStore is built only on Storage::Pages"),
        };
        if let Some(sector) = dev.read_in_place(lba)? {
            return parse_sector(self.format, &self.layout, sector, lba, only, out, page_node);
        }
        let mut buf = std::mem::take(&mut self.buf);
        let r = self.dev().read(lba, 0, &mut buf);
        let result = r
            .map_err(NodeError::from)
            .and_then(|_| parse_sector(self.format, &self.layout, &buf, lba, only, out, page_node));
        self.buf = buf;
        result
    }

    /// The committed state of node `id` (its list's sectors, replayed).
    pub(super) fn read_committed(&mut self, id: NodeId, node: &mut Node) -> Result<(), NodeError> {
        // The list and the units in reused buffers: a node read is the
        // hottest path of a BFTL run.
        let mut list = std::mem::take(&mut self.list_scratch);
        list.clear();
        list.extend_from_slice(self.ntt.list(id));
        let mut units = std::mem::take(&mut self.unit_scratch);
        units.clear();
        let r = self.replay_sectors(id, &list, &mut units, node);
        self.list_scratch = list;
        self.unit_scratch = units;
        r
    }

    /// [`Self::read_committed`] over `list`, node `id`'s sectors.
    fn replay_sectors(
        &mut self,
        id: NodeId,
        list: &[u32],
        units: &mut Vec<(Unit, u32)>,
        node: &mut Node,
    ) -> Result<(), NodeError> {
        let first = *list.first().ok_or_else(|| NodeError::Corrupt {
            page: 0,
            detail: format!("node {id} has no index units"),
        })?;
        node.clear(0);
        if list.len() > 1 {
            let dev = self.dev();
            for &lba in list {
                dev.prefetch(lba.into());
            }
        }
        for (i, &lba) in list.iter().enumerate() {
            let lba = u64::from(lba);
            if let Some((_, owner)) = self.read_sector(lba, Some(id), units, node)? {
                // A node page starts its node's list (invariant 4).
                if owner != id || i != 0 {
                    return Err(NodeError::Corrupt {
                        page: lba,
                        detail: format!(
                            "node page of node {owner} at position {i} of node {id}'s list"
                        ),
                    });
                }
            }
        }
        unit::replay(node, id, units.iter().map(|&(u, _)| u), first.into())
    }
}

/// The units of sector image `buf` (read from `lba`; only node `only`'s,
/// where given) appended to `out`, or a node page decoded into
/// `page_node` (see [`BftlStore::read_sector`]).
fn parse_sector(
    format: EntryFormat,
    layout: &NodeLayout,
    buf: &[u8],
    lba: u64,
    only: Option<NodeId>,
    out: &mut Vec<(Unit, u32)>,
    page_node: &mut Node,
) -> Result<Option<(u32, NodeId)>, NodeError> {
    let (kind, payload) = page::open_any(buf, lba)?.ok_or_else(|| NodeError::Corrupt {
        page: lba,
        detail: "the node translation table names an empty sector".into(),
    })?;
    if kind == PageKind::NodePage {
        if payload.len() < NODE_PAGE_HEADER {
            return Err(NodeError::Corrupt {
                page: lba,
                detail: "node page shorter than its header".into(),
            });
        }
        let seq = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
        let id = u32::from_le_bytes([payload[4], payload[5], payload[6], payload[7]]);
        layout.decode_payload(&payload[NODE_PAGE_HEADER..], lba, page_node)?;
        return Ok(Some((seq, id)));
    }
    if kind != PageKind::IndexUnits {
        return Err(NodeError::Corrupt {
            page: lba,
            detail: format!("page kind {kind:?} where index units were expected"),
        });
    }
    if payload.len() < HEADER {
        return Err(NodeError::Corrupt {
            page: lba,
            detail: "index-unit sector shorter than its header".into(),
        });
    }
    let seq = u32::from_le_bytes([payload[4], payload[5], payload[6], payload[7]]);
    let count = u16::from_le_bytes([payload[8], payload[9]]) as usize;
    let ub = unit_bytes(format);
    if HEADER + count * ub > payload.len() {
        return Err(NodeError::Corrupt {
            page: lba,
            detail: format!("{count} index units do not fit the sector"),
        });
    }
    let tag_at = ub - 4;
    out.reserve(count);
    // One load a tag, over the units' own slice (no index arithmetic
    // or bounds check a unit): the scan is most of a sector's parse. A
    // unit's last 4 bytes are its tag (`tag_at = ub - 4`), so the chunk is
    // always there.
    for b in payload[HEADER..HEADER + count * ub].chunks_exact(ub) {
        if let Some(id) = only {
            let tag = b[tag_at..]
                .first_chunk::<4>()
                .map_or(0, |t| u32::from_le_bytes(*t));
            if tag & ID_MASK != id {
                continue;
            }
        }
        unit::decode_into(format, b, lba, seq, out)?;
    }
    Ok(None)
}
