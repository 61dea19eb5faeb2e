//! Opening an [`IplStore`]: the newest valid superblock, then the node
//! table of exactly the state it describes, rebuilt by scanning every unit
//! it reserves (`ipl.rs`, "Durability").
//!
//! What open accepts, and what it refuses as `Corrupt`:
//! * a superblock page that fails its checks is skipped (a torn program
//!   or damage); the valid one with the highest counter wins;
//! * a slot or log sector numbered at or above the bound was written after
//!   that superblock: ignored, and its unit is tainted;
//! * a slot or log sector that fails its checksum is a torn program only as
//!   the last written entry of its area (nothing after it is ever written
//!   before the unit is erased): ignored, and its unit is tainted;
//!   anywhere else it is damage, `Corrupt`;
//! * a valid record page below the bound must hold one base record (a slot)
//!   or deltas of one node (a log sector), of a node below the durable
//!   `next_id`.

use crate::device::Storage;
use crate::node::delta::{self, Record};
use crate::node::store::IdAllocator;
use crate::node::NodeError;
use crate::node::{NodeId, NodeLayout, TreeMeta};

use super::super::{check_node_size, decode_state};
use super::{Durable, IplStore, UnitState, FIRST_UNIT, GIVEN_UP, NOWHERE, STATE_BYTES};
use crate::node::superblock_log::SuperblockLog;

/// What a slot or a log sector holds, as open sees it.
enum Seen {
    Empty,
    /// Fails its checksum.
    Torn,
    /// Numbered at or above the bound: written after the superblock.
    Later(u64),
    /// Records of one node, numbered below the bound.
    Record(u64, NodeId),
}

/// The entries of one area (slots or log sectors) of a unit, in the order
/// they are written.
struct Area {
    /// Where a hole is damage: on a raw chip, where only an erase of the
    /// whole unit empties a page (over logical pages a trim is not
    /// persisted by every device, and may come back undone in part).
    holes_are_damage: bool,
    hole: Option<u64>,
    torn: Option<u64>,
}

impl Area {
    fn new(holes_are_damage: bool) -> Self {
        Area {
            holes_are_damage,
            hole: None,
            torn: None,
        }
    }

    /// Whether the entry at `page` holds something; `Corrupt` when it
    /// follows a torn entry (a torn program is the last one written) or,
    /// where that is damage, a hole.
    fn admit(&mut self, page: u64, seen: &Seen) -> Result<bool, NodeError> {
        if let Seen::Empty = seen {
            self.hole.get_or_insert(page);
            return Ok(false);
        }
        if let Some(p) = self.torn {
            return Err(corrupt(
                p,
                "a page failing its checksum before a written one (not a torn program)".into(),
            ));
        }
        if let Some(p) = self.hole.filter(|_| self.holes_are_damage) {
            return Err(corrupt(p, "an empty page before a written one".into()));
        }
        if let Seen::Torn = seen {
            self.torn = Some(page);
        }
        Ok(true)
    }
}

/// The newest valid superblock.
struct Found {
    meta: TreeMeta,
    reserved: u32,
    bound: u64,
    page: u64,
}

fn corrupt(page: u64, detail: String) -> NodeError {
    NodeError::Corrupt { page, detail }
}

/// Classifies a record page read from `page`: a slot (`base`) or a log
/// sector.
fn classify(
    frame: &[u8],
    page: u64,
    bound: u64,
    layout: NodeLayout,
    base: bool,
    raw: bool,
) -> Result<Seen, NodeError> {
    let (seq, body) = match delta::open_page(frame, page) {
        Ok(None) => return Ok(Seen::Empty),
        // A torn program on a raw chip leaves the end of what it programmed
        // erased; a page damaged otherwise is not taken for one.
        Err(e) if raw && frame.last() != Some(&0xFF) => return Err(e),
        Err(_) => return Ok(Seen::Torn),
        Ok(Some(opened)) => opened,
    };
    if seq >= bound {
        return Ok(Seen::Later(seq));
    }
    let mut owner: Option<NodeId> = None;
    delta::for_each_record(body, layout, page, |id, r| {
        let fits = match r {
            Record::Base { .. } => base && owner.is_none(),
            Record::Delta(_) => !base && owner.is_none_or(|o| o == id),
        };
        if !fits {
            return Err(corrupt(
                page,
                if base {
                    "a node slot holds other than one base record".into()
                } else {
                    "a log sector holds other than deltas of one node".into()
                },
            ));
        }
        owner = Some(id);
        Ok(())
    })?;
    owner
        .map(|id| Seen::Record(seq, id))
        .ok_or_else(|| corrupt(page, "a record page without records".into()))
}

impl IplStore {
    /// Places every node at its newest version below the bound. A version
    /// is a base and the log sectors after it in its unit, and is as new as
    /// its newest record: a base copied with its number (`ipl.rs`,
    /// "Durability") may stand in two units, and only the copy the node
    /// went on from has log sectors after it.
    fn choose_bases(
        &mut self,
        next_id: NodeId,
        bases: &[(NodeId, u64, u32, u16)],
        mut logs: Vec<(NodeId, u32, u64, u16)>,
    ) -> Result<(), NodeError> {
        logs.sort_unstable();
        // (version, base seq, unit, slot) of each node's chosen base.
        let mut best: Vec<(u64, u64, u32, u16)> = vec![(0, 0, NOWHERE, 0); next_id as usize];
        for &(id, seq, unit, slot) in bases {
            let end = logs.partition_point(|l| (l.0, l.1) <= (id, unit));
            let version = match end.checked_sub(1).map(|i| logs[i]) {
                Some((i, u, newest, _)) if i == id && u == unit => newest.max(seq),
                _ => seq,
            };
            let b = &mut best[id as usize];
            // The log sectors of a unit count for each base of the node
            // there; the newest base is the one they follow. A full tie is
            // one version twice (the first scanned stays).
            if b.2 == NOWHERE || (b.0, b.1) < (version, seq) {
                *b = (version, seq, unit, slot);
            }
        }
        for (id, &(_, _, unit, slot)) in best.iter().enumerate() {
            if unit != NOWHERE {
                self.place(id as NodeId, unit, slot);
            }
        }
        for (id, unit, seq, log) in logs {
            let (_, base_seq, base_unit, _) = best[id as usize];
            if seq <= base_seq && base_unit != NOWHERE {
                continue;
            }
            if base_unit != unit {
                // A log sector follows its node's base into no other unit,
                // and is erased with it: that base is missing.
                return Err(corrupt(
                    self.log_page(unit, log),
                    format!("node {id}: a log sector newer than every base of the node"),
                ));
            }
            self.places[id as usize].logs.push(log);
            self.current_bytes += 2;
        }
        Ok(())
    }

    fn is_raw(&self) -> bool {
        matches!(self.storage, Storage::Raw(_))
    }

    /// `load_meta`: the newest superblock's state, or `None` when there is
    /// no valid superblock.
    pub(super) fn open_durable(&mut self) -> Result<Option<TreeMeta>, NodeError> {
        let Some(found) = self.find_superblock()? else {
            return Ok(None);
        };
        check_node_size(&found.meta, self.layout)?;
        if found.reserved < FIRST_UNIT || found.reserved > self.unit_count {
            return Err(corrupt(
                found.page,
                format!("IPL units reserved {} out of range", found.reserved),
            ));
        }
        if found.bound == GIVEN_UP {
            return Err(corrupt(
                found.page,
                "IPL gave up the state of the last flush for room (the device filled before the \
                 next flush), and the power went before that flush"
                    .into(),
            ));
        }
        self.reserved = found.reserved;
        self.rebuild(found.meta.next_id, found.bound)?;
        self.ids = IdAllocator::starting_at(found.meta.next_id);
        self.durable = Some(Durable {
            meta: found.meta.clone(),
            bound: found.bound,
        });
        Ok(Some(found.meta))
    }

    /// Scans the superblock units; sets where the next superblock goes.
    fn find_superblock(&mut self) -> Result<Option<Found>, NodeError> {
        let (unit_pages, page_size) = (self.unit_pages, self.page_size);
        let (log, newest) = SuperblockLog::scan(unit_pages, page_size, STATE_BYTES, |p, buf| {
            self.read_page(p, 0, buf)
        })?;
        self.superblocks = log;
        Ok(newest.map(|n| {
            let (reserved, bound) = decode_state(&n.state);
            Found {
                meta: n.meta,
                reserved,
                bound,
                page: n.page,
            }
        }))
    }

    fn see_slot(&mut self, unit: u32, slot: u16, bound: u64) -> Result<Seen, NodeError> {
        let first = self.slot_page(unit, slot);
        let used = self.slot_bytes();
        let ps = self.page_size;
        let mut buf = std::mem::take(&mut self.slot_buf);
        let mut result = Ok(());
        for i in 0..self.node_pages as usize {
            let end = used.min((i + 1) * ps);
            result = self.read_page(first + i as u64, 0, &mut buf[i * ps..end]);
            if result.is_err() {
                break;
            }
        }
        let (layout, raw) = (self.layout, self.is_raw());
        let seen = result.and_then(|()| classify(&buf[..used], first, bound, layout, true, raw));
        self.slot_buf = buf;
        seen
    }

    fn see_log(&mut self, page: u64, bound: u64) -> Result<Seen, NodeError> {
        let mut buf = std::mem::take(&mut self.page_buf);
        let (layout, raw) = (self.layout, self.is_raw());
        let seen = self
            .read_page(page, 0, &mut buf)
            .and_then(|()| classify(&buf, page, bound, layout, false, raw));
        self.page_buf = buf;
        seen
    }

    /// Rebuilds the node table of the state bounded by `bound` from the
    /// units `FIRST_UNIT .. reserved`, and lists the tainted units.
    fn rebuild(&mut self, next_id: NodeId, bound: u64) -> Result<(), NodeError> {
        // (id, seq, unit, slot) of every base below the bound.
        let mut bases: Vec<(NodeId, u64, u32, u16)> = Vec::new();
        // (id, unit, seq, log) of every log sector below the bound.
        let mut logs: Vec<(NodeId, u32, u64, u16)> = Vec::new();
        let mut newest = 0u64;
        self.units.clear();
        self.units
            .resize(self.reserved as usize, UnitState::default());
        self.places.clear();
        self.current_bytes = 0;
        self.forget_saved();
        for b in self.buffers.drain(..) {
            self.spare_lists.push(b.deltas);
        }
        self.tainted.clear();
        let mut used_end = FIRST_UNIT;
        let raw = self.is_raw();
        for unit in FIRST_UNIT..self.reserved {
            let mut state = UnitState::default();
            let mut tainted = false;
            let mut area = Area::new(raw);
            for slot in 0..self.slots {
                let page = self.slot_page(unit, slot);
                let seen = self.see_slot(unit, slot, bound)?;
                if !area.admit(page, &seen)? {
                    continue;
                }
                state.next_slot = slot + 1;
                match seen {
                    Seen::Empty => {}
                    Seen::Torn => tainted = true,
                    Seen::Later(seq) => {
                        newest = newest.max(seq);
                        tainted = true;
                    }
                    Seen::Record(seq, id) => {
                        newest = newest.max(seq);
                        if id >= next_id {
                            return Err(corrupt(
                                page,
                                format!("node {id} beyond next id {next_id}"),
                            ));
                        }
                        bases.push((id, seq, unit, slot));
                    }
                }
            }
            let mut area = Area::new(raw);
            for log in 0..self.log_pages {
                let page = self.log_page(unit, log);
                let seen = self.see_log(page, bound)?;
                if !area.admit(page, &seen)? {
                    continue;
                }
                state.log_used = log + 1;
                match seen {
                    Seen::Empty => {}
                    Seen::Torn => tainted = true,
                    Seen::Later(seq) => {
                        newest = newest.max(seq);
                        tainted = true;
                    }
                    Seen::Record(seq, id) => {
                        newest = newest.max(seq);
                        if id >= next_id {
                            return Err(corrupt(
                                page,
                                format!("node {id} beyond next id {next_id}"),
                            ));
                        }
                        logs.push((id, unit, seq, log));
                    }
                }
            }
            if tainted {
                // Nothing new goes after what open ignored.
                state.closed = true;
                self.tainted.push(unit);
            }
            if state.next_slot > 0 || state.log_used > 0 {
                used_end = unit + 1;
            }
            self.units[unit as usize] = state;
        }
        // Units past the last one written are erased: fresh again.
        self.units.truncate(used_end as usize);
        self.choose_bases(next_id, &bases, logs)?;
        self.free_units = (FIRST_UNIT..self.units.len() as u32)
            .rev()
            .filter(|&u| {
                let s = &self.units[u as usize];
                s.next_slot == 0 && s.log_used == 0
            })
            .collect();
        self.alloc_unit = NOWHERE;
        self.seq = (newest + 1).max(bound);
        Ok(())
    }
}
