//! What keeps an [`IplStore`]'s newest superblock true until the next one
//! (`ipl.rs`, "Durability"): writing superblocks, recording a node's
//! durable version at its first change, copying kept versions out of a
//! merged unit, giving them up when the device is full, and merging the
//! units open found tainted.

use crate::node::NodeError;
use crate::node::{Node, NodeId, TreeMeta};

use super::super::encode_state;
use super::{
    full, IplStore, Place, UnitState, FIRST_UNIT, GIVEN_UP, NOWHERE, NO_PLACE, SUPERBLOCK_BYTES,
};

impl IplStore {
    // ---- superblocks ------------------------------------------------------

    /// Appends a superblock describing `meta` with sequence bound `bound`
    /// and `reserved` units; switches to the other superblock unit when this
    /// one is full (it holds only older superblocks).
    pub(super) fn write_superblock(
        &mut self,
        meta: &TreeMeta,
        bound: u64,
        reserved: u32,
    ) -> Result<(), NodeError> {
        // Units 1 and 2 take turns once unit 0 is full (unit 0 keeps the
        // first superblock, where every open probes the layout).
        let (page, erase) = self.superblocks.take_page();
        if let Some(unit) = erase {
            self.erase(unit)?;
        }
        let mut buf = [0u8; SUPERBLOCK_BYTES];
        let len = self
            .superblocks
            .seal(meta, &encode_state(reserved, bound), &mut buf);
        self.program(page, &buf[..len])
    }

    // ---- the durable state -------------------------------------------------

    /// Invariant 5.
    pub(super) fn is_clean(&self, id: NodeId) -> bool {
        self.durable.as_ref().is_some_and(|d| id < d.meta.next_id) && !self.saved.contains_key(&id)
    }

    /// Records where node `id`'s durable version is, before its first
    /// change since the newest superblock.
    pub(super) fn diverge(&mut self, id: NodeId) {
        let Some(d) = &self.durable else {
            return;
        };
        if id >= d.meta.next_id || self.saved.contains_key(&id) {
            return;
        }
        let place = self
            .places
            .get(id as usize)
            .filter(|p| p.unit != NOWHERE)
            .cloned();
        if let Some(p) = &place {
            self.units[p.unit as usize].kept.push(id);
            self.saved_bytes += p.table_bytes();
        }
        self.saved.insert(id, place);
    }

    /// Keeps no durable version apart any more (the node table shrinks).
    pub(super) fn forget_saved(&mut self) {
        self.saved.clear();
        self.saved_bytes = 0;
    }

    /// Slots of unit `u` holding a current or a kept durable version (one
    /// slot can be both).
    pub(super) fn occupied(&self, u: u32) -> usize {
        let s = &self.units[u as usize];
        let shared = s
            .kept
            .iter()
            .filter(|&&id| {
                let saved = self.saved.get(&id).and_then(|p| p.as_ref());
                let current = self.places.get(id as usize);
                matches!((saved, current), (Some(a), Some(b)) if a.unit == b.unit && a.slot == b.slot)
            })
            .count();
        s.live.len() + s.kept.len() - shared
    }

    /// Out of room for both versions of what changed since the newest
    /// superblock: writes a superblock saying its state is no longer on
    /// flash (open then fails as `Corrupt`, rather than open a mix), and
    /// keeps no durable version apart until the next flush. Whether that
    /// gave any slot back.
    pub(super) fn give_up_durable(&mut self) -> Result<bool, NodeError> {
        if !self.saved.values().any(Option::is_some) {
            return Ok(false);
        }
        let Some(d) = self.durable.take() else {
            return Ok(false);
        };
        if let Err(e) = self.write_superblock(&d.meta, GIVEN_UP, self.reserved) {
            self.durable = Some(d);
            return Err(e);
        }
        self.counters.durable_given_up += 1;
        self.forget_saved();
        for s in &mut self.units {
            s.kept.clear();
        }
        self.erase_closed()?;
        Ok(true)
    }

    /// Merges the units open found tainted, before anything is written.
    pub(super) fn recover(&mut self) -> Result<(), NodeError> {
        while let Some(&u) = self.tainted.last() {
            let s = &self.units[u as usize];
            if s.live.is_empty() && s.kept.is_empty() {
                self.erase(u)?;
                self.units[u as usize] = UnitState::default();
                self.free_units.push(u);
            } else {
                self.merge(u)?;
                if !self.units[u as usize].kept.is_empty() {
                    // Still on flash: its ignored records must not be
                    // followed by new ones.
                    return Err(full("no node slot is left to recover an IPL erase unit"));
                }
            }
            self.tainted.pop();
        }
        Ok(())
    }

    /// Erases the closed units that hold nothing any more.
    pub(super) fn erase_closed(&mut self) -> Result<(), NodeError> {
        for u in FIRST_UNIT..self.units.len() as u32 {
            let s = &self.units[u as usize];
            // A tainted unit is `recover`'s to erase.
            if s.closed && s.live.is_empty() && s.kept.is_empty() && !self.tainted.contains(&u) {
                self.erase(u)?;
                self.units[u as usize] = UnitState::default();
                self.free_units.push(u);
            }
        }
        Ok(())
    }

    // ---- merges ----------------------------------------------------------

    /// Whether durable versions merged out of `from` may go to unit `u`
    /// (already in use: a free one is taken only through `pop_free_unit`).
    pub(super) fn takes_copies(&self, u: u32, from: u32) -> bool {
        u != from && self.has_room(u) && !self.free_units.contains(&u)
    }

    /// Fresh slots in the units durable versions merged out of `from` may
    /// go to, besides the merge's own fresh unit.
    pub(super) fn room_for_copies(&self, from: u32, target: u32) -> usize {
        (FIRST_UNIT..self.units.len() as u32)
            .filter(|&u| u != target && self.takes_copies(u, from))
            .map(|u| (self.slots - self.units[u as usize].next_slot) as usize)
            .sum()
    }

    /// Copies node `id`'s durable version, kept in `from`, into `target` or
    /// another unit with a fresh slot, with its own number; `false` when no
    /// unit has one.
    pub(super) fn move_durable(
        &mut self,
        id: NodeId,
        from: u32,
        target: u32,
        node: &mut Node,
    ) -> Result<bool, NodeError> {
        let dest = if self.has_room(target) {
            target
        } else if let Some(u) =
            (FIRST_UNIT..self.units.len() as u32).find(|&u| self.takes_copies(u, from))
        {
            u
        } else if self.free_unit_count() > 1 {
            match self.pop_free_unit()? {
                Some(u) => u,
                None => return Ok(false),
            }
        } else {
            return Ok(false);
        };
        let mut place = match self.saved.get_mut(&id) {
            Some(Some(p)) if p.unit == from => std::mem::replace(p, NO_PLACE),
            // Invariant 2: a kept node has its durable version here.
            _ => return Ok(true),
        };
        // Out of the table while it moves; back in as whichever place it
        // ends in.
        self.saved_bytes -= place.table_bytes();
        let logs = std::mem::take(&mut place.logs);
        let copied = self
            .read_at(id, place.unit, place.slot, &logs, node)
            .and_then(|seq| self.program_slot(dest, id, node, Some(seq)));
        let new_place = match copied {
            Ok(slot) => Place {
                unit: dest,
                slot,
                logs: Vec::new(),
            },
            Err(e) => {
                place.logs = logs;
                self.saved_bytes += place.table_bytes();
                self.saved.insert(id, Some(place));
                return Err(e);
            }
        };
        self.saved_bytes += new_place.table_bytes();
        self.saved.insert(id, Some(new_place));
        self.units[dest as usize].kept.push(id);
        self.counters.durable_copies += 1;
        Ok(true)
    }
}
