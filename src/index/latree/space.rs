//! Where buffer pages go (Agrawal et al. 2009 §5.2, "Buffer layout
//! on flash"; the format is in [`super::buffers`]):
//!
//! * on a raw chip, **partitions** of `partition_blocks` erase blocks from
//!   the blocks the node log leaves free, one buffer each, its pages
//!   programmed in order; a freed partition has the blocks it programmed
//!   erased; a partition of unknown state (after create or open) is erased
//!   before its first page;
//! * on a logical-page device, **node-store slots** (a fresh node id gives
//!   `node_pages` logical pages, taken in order by any buffer), each page
//!   written whole so an FTL never merges it; a slot is freed (trimmed)
//!   once none of its pages is live.
//!
//! Invariant: a partition is in the free list, or held by exactly one
//! buffer (its [`Held`]), never both; a free partition is erased or marked
//! unclean.

use std::collections::HashMap;

use crate::device::{DeviceError, Storage};
use crate::index::{IndexError, Result};
use crate::node::{NodeId, NodeStore};

use super::counters::BufferCounters;

/// The partitions a buffer holds on a raw chip, and the pages it used in
/// the last one.
#[derive(Clone, Debug, Default)]
pub struct Held {
    partitions: Vec<u64>,
    used_in_last: u64,
}

impl Held {
    pub fn is_empty(&self) -> bool {
        self.partitions.is_empty()
    }
}

/// Where buffer pages live.
pub enum Space {
    Raw {
        first_block: u64,
        partition_blocks: u64,
        pages_per_block: u64,
        /// Partitions not held by a buffer.
        free: Vec<u64>,
        /// Whether each partition is known to be erased.
        clean: Vec<bool>,
        partitions: u64,
    },
    /// A page's address is `slot × node_pages + page`.
    Slots {
        node_pages: u64,
        /// The slot taking pages, and how many it has given.
        open: Option<(NodeId, u64)>,
        /// Live pages per slot.
        live: HashMap<NodeId, u64>,
    },
}

fn disagree() -> IndexError {
    IndexError::Config("the buffer space does not match the storage".into())
}

impl Space {
    /// The space the node store leaves on its storage.
    pub fn new(store: &dyn NodeStore, partition_blocks: u64) -> Result<Self> {
        match store.storage() {
            Storage::Raw(chip) => {
                let g = chip.geometry();
                let blocks = store.spare_blocks().ok_or_else(|| {
                    IndexError::Config("the node store leaves no blocks for buffers".into())
                })?;
                if partition_blocks == 0 {
                    return Err(IndexError::Config(
                        "partition_blocks must be at least 1".into(),
                    ));
                }
                let partitions = (blocks.end - blocks.start) / partition_blocks;
                if partitions == 0 {
                    return Err(IndexError::Config(format!(
                        "no room for a {partition_blocks}-block buffer partition: the node log \
                         leaves blocks {}..{} (set a smaller log_blocks or partition_blocks)",
                        blocks.start, blocks.end
                    )));
                }
                Ok(Space::Raw {
                    first_block: blocks.start,
                    partition_blocks,
                    pages_per_block: g.pages_per_block as u64,
                    free: (0..partitions).rev().collect(),
                    clean: vec![false; partitions as usize],
                    partitions,
                })
            }
            Storage::Pages(_) => {
                let (Some(a), Some(b)) = (store.slot_lba(0), store.slot_lba(1)) else {
                    return Err(IndexError::Config(
                        "the node store has no slots for buffer pages".into(),
                    ));
                };
                Ok(Space::Slots {
                    node_pages: (b - a).max(1),
                    open: None,
                    live: HashMap::new(),
                })
            }
        }
    }

    /// Partitions not held by any buffer; `None` where pages take node
    /// slots (no partitions to run out of).
    pub fn free_partitions(&self) -> Option<u64> {
        match self {
            Space::Raw { free, .. } => Some(free.len() as u64),
            Space::Slots { .. } => None,
        }
    }

    pub fn is_raw(&self) -> bool {
        matches!(self, Space::Raw { .. })
    }

    /// The address of the next page of a buffer holding `held`, and
    /// whether it had to take a partition while already holding a full one
    /// (the buffer is then to be emptied at the next safe point, §5.2).
    pub fn next_page(
        &mut self,
        store: &mut dyn NodeStore,
        held: &mut Held,
        counters: &mut BufferCounters,
    ) -> Result<(u64, bool)> {
        match self {
            Space::Raw {
                first_block,
                partition_blocks,
                pages_per_block,
                free,
                clean,
                partitions,
            } => {
                let per_partition = *partition_blocks * *pages_per_block;
                let mut filled = false;
                if held.partitions.is_empty() || held.used_in_last == per_partition {
                    let Some(p) = free.pop() else {
                        return Err(IndexError::Device(DeviceError::Full {
                            detail: format!(
                                "all {partitions} buffer partitions of {partition_blocks} blocks are \
                                 held by buffers (a larger chip, or smaller log_blocks or \
                                 partition_blocks, makes more)"
                            ),
                        }));
                    };
                    let first = *first_block + p * *partition_blocks;
                    if !clean[p as usize] {
                        let Some(Storage::Raw(chip)) = store.storage_mut() else {
                            return Err(disagree());
                        };
                        for blk in first..first + *partition_blocks {
                            chip.erase(blk)?;
                        }
                        counters.partition_erases += 1;
                    }
                    clean[p as usize] = false;
                    counters.partitions_taken += 1;
                    filled = !held.partitions.is_empty();
                    held.partitions.push(p);
                    held.used_in_last = 0;
                }
                // Invariant: the branch above left a partition with room.
                let p = *held.partitions.last().expect("a partition");
                let page =
                    (*first_block + p * *partition_blocks) * *pages_per_block + held.used_in_last;
                held.used_in_last += 1;
                Ok((page, filled))
            }
            Space::Slots {
                node_pages,
                open,
                live,
            } => {
                let (slot, used) = match *open {
                    Some((slot, used)) if used < *node_pages => (slot, used),
                    _ => (store.allocate()?, 0),
                };
                *open = Some((slot, used + 1));
                *live.entry(slot).or_insert(0) += 1;
                Ok((slot as u64 * *node_pages + used, false))
            }
        }
    }

    /// The device page of address `addr` (a physical page, or a slot's).
    fn device_page(&self, store: &dyn NodeStore, addr: u64) -> Result<u64> {
        match self {
            Space::Raw { .. } => Ok(addr),
            Space::Slots { node_pages, .. } => store
                .slot_lba((addr / node_pages) as NodeId)
                .map(|lba| lba + addr % node_pages)
                .ok_or_else(|| IndexError::Config("the node store has no slots".into())),
        }
    }

    /// Writes the first `len` bytes of `page` (a whole page buffer) at
    /// `addr`: a raw chip programs just those bytes; a logical page is
    /// written whole, zero after them, so an FTL never merges old bytes in.
    pub fn write(
        &self,
        store: &mut dyn NodeStore,
        addr: u64,
        page: &mut [u8],
        len: usize,
    ) -> Result<u64> {
        let at = self.device_page(store, addr)?;
        match store.storage_mut() {
            Some(Storage::Raw(chip)) if self.is_raw() => chip.program(at, 0, &page[..len])?,
            Some(Storage::Pages(dev)) if !self.is_raw() => {
                page[len..].fill(0);
                dev.write(at, 0, page)?
            }
            _ => return Err(disagree()),
        }
        Ok(at)
    }

    /// Reads `buf.len()` bytes of the page at `addr`; returns its device
    /// page (for errors).
    pub fn read(&self, store: &mut dyn NodeStore, addr: u64, buf: &mut [u8]) -> Result<u64> {
        let at = self.device_page(store, addr)?;
        match store.storage_mut() {
            Some(Storage::Raw(chip)) if self.is_raw() => chip.read(at, 0, buf)?,
            Some(Storage::Pages(dev)) if !self.is_raw() => dev.read(at, 0, buf)?,
            _ => return Err(disagree()),
        }
        Ok(at)
    }

    /// Frees what a buffer held: its partitions (erasing the blocks they
    /// programmed; the rest are still erased) or its pages' slots.
    pub fn release(
        &mut self,
        store: &mut dyn NodeStore,
        held: &Held,
        pages: impl Iterator<Item = u64>,
        counters: &mut BufferCounters,
    ) -> Result<()> {
        match self {
            Space::Raw {
                first_block,
                partition_blocks,
                pages_per_block,
                free,
                clean,
                ..
            } => {
                let ppb = *pages_per_block;
                let last = held.partitions.len().saturating_sub(1);
                for (i, &p) in held.partitions.iter().enumerate() {
                    let first = *first_block + p * *partition_blocks;
                    let used = if i == last {
                        held.used_in_last
                    } else {
                        *partition_blocks * ppb
                    };
                    let Some(Storage::Raw(chip)) = store.storage_mut() else {
                        return Err(disagree());
                    };
                    let mut erased = Ok(());
                    for blk in first..first + used.div_ceil(ppb) {
                        erased = erased.and(chip.erase(blk));
                    }
                    counters.partition_erases += 1;
                    clean[p as usize] = erased.is_ok();
                    free.push(p);
                    erased?;
                }
            }
            Space::Slots {
                node_pages,
                open,
                live,
            } => {
                for addr in pages {
                    let slot = (addr / *node_pages) as NodeId;
                    let n = live.entry(slot).or_insert(1);
                    *n -= 1;
                    if *n == 0 {
                        live.remove(&slot);
                        if open.is_some_and(|(o, _)| o == slot) {
                            *open = None;
                        }
                        store.free(slot)?;
                    }
                }
            }
        }
        Ok(())
    }
}
