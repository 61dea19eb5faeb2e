//! The delta schemes of Agrawal et al. 2009 §6.1, each a node-storage
//! layer under the same B+-tree ([`BTree`]) with an LRU node cache in the
//! memory the layer's buffers leave (`wt-lru`: cached copies stay clean and
//! every change reaches the layer as a delta):
//!
//! * `basic-delta` — Basic Delta: deltas of all nodes packed into shared
//!   delta pages written as a log ([`chain::DeltaChainStore`]).
//! * `consolidation` — Consolidation, §6.1's scheme "inspired by the FlashDB
//!   algorithm": Basic Delta plus a per-node cost counter that consolidates
//!   a node's chain into one page when reading it has cost more than the
//!   deltas saved. (FlashDB itself, as Roh et al. 2009 §2.3 describes and
//!   compares against it — BFTL's units with per-node log/disk modes — is
//!   `flashdb`, in [`crate::index::bftl`].)
//! * `ipl` — In-Page Logging: per-node log sectors inside the node's erase
//!   unit, merged when the unit's log area fills ([`ipl::IplStore`]).
//!
//! (BFTL, the fourth scheme of §6.1, is [`crate::index::bftl`].)
//!
//! Parameters: `fanout` or `node_bytes` (default: fanout 16 for
//! `basic-delta` and `consolidation`, the best of §6.1; for `ipl` the largest node
//! whose slot fits one page, for any entry format), `max_deltas` (delta
//! pages or log sectors per node, default 4 as in §6.1), `key_bytes`, `value_bytes`; for `ipl` also
//! `node_pages_per_block`, `log_pages_per_block` (default half of the erase
//! unit each: 16 + 16 on 32-page blocks) and `log_buffers` (default a
//! quarter of what the budget leaves after the node table, in log
//! sectors; a given number is a cap); for all three `tables=in-budget`
//! (the default: the node table is paid from the budget, the node cache
//! and IPL's log buffers share the rest) or `tables=outside` (the node
//! table beside the budget, as Agrawal et al. 2009 §6 measures; a runtime
//! knob). Reopening takes the entry
//! widths and node size from the superblock when they are left out; given
//! ones that contradict it are an [`IndexError::Mismatch`] at open. (IPL's
//! unit split and `max_deltas` are not recorded: reopen with the same.)
//!
//! Memory (issue #43, [`crate::node::budget`]): the node table is the one
//! data-bound structure of each store (`node_table_bytes`, its bytes per
//! entry in [`chain`] and [`ipl`]); everything else is budget-bound and
//! refitted after every operation as the table grows
//! ([`BTree::fit_to_budget`]): the LRU node cache, Basic Delta's and
//! Consolidation's head page, IPL's log buffers (one page each).

pub mod chain;
pub mod ipl;
mod table;

pub use chain::{Consolidation, DeltaChainStore};
pub use ipl::{IplConfig, IplStore};

use crate::device::Storage;
use crate::index::btree::{BTree, BTreeOptions};
use crate::index::{IndexError, Params, Result};
use crate::node::delta::{FIRST_RECORD, RECORD_HEADER};
use crate::node::{CachePolicy, NodeLayout, NodeStore, Tables, TreeMeta};

/// Registry names.
pub const BASIC_DELTA: &str = "basic-delta";
pub const CONSOLIDATION: &str = "consolidation";
pub const IPL: &str = "ipl";

/// Best fanout of Basic Delta and Consolidation in §6.1.
const DELTA_FANOUT: usize = 16;

/// Bytes of the state both stores keep after the tree metadata in their
/// superblock: a page or unit high-water mark (`u32`) and the next record
/// sequence number (`u64`).
pub(crate) const STATE_BYTES: usize = 12;

pub(crate) fn encode_state(high_water: u32, seq: u64) -> [u8; STATE_BYTES] {
    let mut s = [0u8; STATE_BYTES];
    s[..4].copy_from_slice(&high_water.to_le_bytes());
    s[4..].copy_from_slice(&seq.to_le_bytes());
    s
}

/// `state` is exactly [`STATE_BYTES`] long (`TreeMeta::open_superblock`
/// checked it).
pub(crate) fn decode_state(state: &[u8]) -> (u32, u64) {
    let mut h = [0u8; 4];
    h.copy_from_slice(&state[..4]);
    let mut s = [0u8; 8];
    s.copy_from_slice(&state[4..12]);
    (u32::from_le_bytes(h), u64::from_le_bytes(s))
}

/// A superblock written with another node size is refused before the
/// records are read with the wrong one.
pub(crate) fn check_node_size(
    meta: &TreeMeta,
    layout: NodeLayout,
) -> std::result::Result<(), crate::node::NodeError> {
    if meta.node_bytes as usize != layout.node_bytes {
        return Err(crate::node::NodeError::mismatch(
            "node_bytes",
            meta.node_bytes,
            layout.node_bytes,
        ));
    }
    Ok(())
}

/// The note that says where the node table stands against the budget.
pub(crate) fn table_note(bytes: usize, tables: Tables) -> String {
    match tables {
        Tables::InBudget => format!(
            "the {bytes}-byte node table is paid from the memory budget; the node cache and the \
             store's buffers get what it leaves"
        ),
        Tables::Outside => format!(
            "the {bytes}-byte node table is counted in memory but kept outside the budget \
             (tables=outside, as Agrawal et al. 2009 §6)"
        ),
    }
}

/// The node store of `name` and where its node table stands; `read_only`:
/// one whose reads write nothing (Consolidation's reads then consolidate
/// no chain, [`DeltaChainStore`]).
fn store_for(
    name: &'static str,
    storage: Storage,
    memory: usize,
    mut params: Params,
    read_only: bool,
) -> Result<(Box<dyn NodeStore>, Tables)> {
    let opts = BTreeOptions::from_params(&mut params)?;
    let budget = params.budget(memory)?;
    if params.contains("cache") {
        return Err(IndexError::Config(format!(
            "{name} keeps an LRU node cache of its own (wt-lru); it takes no `cache`"
        )));
    }
    let max_deltas: usize = params.get("max_deltas", 4)?;
    let sized = opts.sized();
    let page = storage.page_size();
    if name == IPL {
        let config = IplConfig {
            node_pages_per_block: params.get_opt("node_pages_per_block")?,
            log_pages_per_block: params.get_opt("log_pages_per_block")?,
            max_deltas,
            log_buffers: params.get_opt("log_buffers")?,
            budget,
        };
        params.finish(name)?;
        let layout = if sized {
            opts.layout(page)?
        } else {
            // The largest node whose base record fits one page; derived
            // from the record header alone, so that it holds for every
            // entry format (8 + 8 included).
            let overhead = FIRST_RECORD + RECORD_HEADER;
            opts.capped(NodeLayout::with_node_bytes(
                opts.format,
                page.saturating_sub(overhead),
            )?)?
        };
        let store = IplStore::new(storage, layout, config)?;
        return Ok((Box::new(store), budget.tables));
    }
    params.finish(name)?;
    let layout = if sized {
        opts.layout(page)?
    } else {
        opts.capped(NodeLayout::with_fanout(opts.format, DELTA_FANOUT)?)?
    };
    let policy = if name == CONSOLIDATION {
        Consolidation::counter_for(storage.info().cost, layout.node_bytes, page)
    } else {
        Consolidation::Never
    };
    let mut store = DeltaChainStore::new(storage, layout, max_deltas, policy)?;
    if read_only {
        store.set_read_only();
    }
    store.set_tables(budget.tables);
    Ok((Box::new(store), budget.tables))
}

/// A new, empty index `name` (one of the three) on `storage`.
pub fn create(
    name: &'static str,
    storage: Storage,
    memory: usize,
    params: Params,
) -> Result<BTree> {
    let (store, tables) = store_for(name, storage, memory, params, false)?;
    let mut tree = BTree::create_on(name, store, memory, CachePolicy::WriteThroughLru)?;
    tree.fit_to_budget(tables, 0)?;
    Ok(tree)
}

/// Reopens the index `name` that `flush` left on `storage`; `read_only`:
/// for queries only, so that no read writes (IPL's and Basic Delta's never
/// do; Consolidation's would consolidate).
pub fn open(
    name: &'static str,
    mut storage: Storage,
    memory: usize,
    mut params: Params,
    read_only: bool,
) -> Result<BTree> {
    crate::index::kinds::reopen::tree_params(&mut storage, &mut params, true)?;
    let (store, tables) = store_for(name, storage, memory, params, read_only)?;
    let mut tree = BTree::open_on(name, store, memory, CachePolicy::WriteThroughLru)?;
    tree.fit_to_budget(tables, 0)?;
    Ok(tree)
}
