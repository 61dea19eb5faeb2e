//! `asbtree`: the Always Sequential B-tree of Kim, Roh, Lee and Park
//! (Kim et al. 2014 §3).
//!
//! Five parts, as Fig. 4 draws them:
//! * the **Legacy B+-tree**: the shared [`BTree`] (same search, insert,
//!   split, delete and merge as `btree`), whose nodes are addressed by
//!   NodeID, never by LBA;
//! * the **Write Buffer** (§3.2, Algs. 2–3): [`WriteBuffer`] of
//!   `write_buffer` nodes (WBA/WBD) in front of the store, flushed whole
//!   when full;
//! * the **Sequential Writer** (§3.1, Alg. 1), the **Address Mapping
//!   Table** (§3.3) and the **Node Validation Manager** (§3.4):
//!   [`SequentialStore`], which appends every written node at the end of
//!   the file, maps NodeID → LBA in RAM (rebuilt at open by scanning
//!   every record), and recycles a subfile of `subfile_bytes` once fewer
//!   than `threshold` of its nodes are valid;
//! * the **buffer cache** of §4.1 (Figs. 13–14): an LRU node cache of
//!   `cache_nodes` nodes, write-through (`wt-lru`): a modified node goes to
//!   the Write Buffer at once, as §3.2 has it, and the cache keeps a clean
//!   copy for reads.
//!
//! Parameters: `fanout=N` (F: a node of N entries, its record 12 bytes
//! more) or `node_bytes=N` / `node_pages=N` (the record's size, header
//! included, so a node of N bytes is ⌈N / page⌉ device requests and holds
//! N − 12 bytes of entries; default one device page), `write_buffer=N`
//! (nodes; default the paper's largest, 32, or what half the budget holds
//! if less), `cache_nodes=N` (default: what the budget leaves after the
//! write buffer; an experiment comparing with the B+-tree gives the
//! B+-tree the same write buffer, so both caches get the same share), `cache=wt-lru|lru|none`, `subfile_bytes`
//! (default 1,024 node records, or an eighth of the device when that is
//! smaller; §3.4's 64 MB, which the paper experiments pass), `threshold=0.05` (T), `nvm=true|false`, `leaf_entries`,
//! `key_bytes`, `value_bytes`, `tables=in-budget|outside` (below).
//!
//! Memory (`memory_bytes`, issue #43's two kinds, `node::budget`):
//! * data-bound: the **Address Mapping Table**, 4 bytes a NodeID ever
//!   allocated (an LBA, the array indexed by NodeID: §3.3, Fig. 6), reported
//!   as `address_mapping_table_bytes`;
//! * budget-bound: the buffer cache's node images, the Write Buffer's
//!   nodes (capacity × (node + 4 bytes)), the free id list (4 bytes an id)
//!   and the tree's metadata (64 bytes), as §4.2 budgets "640 KB buffer
//!   cache ... 256 KB write buffer".
//!
//! `tables=in-budget` (the default) pays the table from the budget first:
//! after every operation the cache holds what the table, the Write Buffer
//! and the metadata leave (`BTree::fit_to_budget`), and when even an empty
//! cache leaves too little the Write Buffer is written out and shrinks
//! (down to one node); past that the notes name the budget this data
//! needs. `tables=outside` keeps the table beside the budget, as §4.2
//! does; the budget-bound part then has the whole budget.
//!
//! On-flash format: [`store`] (and `docs/FORMAT.md`). Durability: `flush`
//! writes the Write Buffer's nodes, then the superblock naming the root and
//! the next record's sequence number, then syncs; on a file or an FTL with
//! `atomic=true` the commit layer beneath keeps the durability contract.
//!
//! Deviations (`docs/DEVIATIONS.md`): records carry a 12-byte header (node
//! id and sequence number) so the table can be rebuilt by a scan, inside
//! the stated node size (an 8 KB node holds 12 bytes fewer entries than
//! the B+-tree's); subfiles
//! are fixed ranges of one device rather than separate files; a subfile is
//! also recycled, whatever its valid share, when the device would
//! otherwise be full.

pub mod store;

pub use store::{SequentialStore, SubfileOptions};

use crate::device::Storage;
use crate::index::btree::{BTree, BTreeOptions};
use crate::index::{IndexError, Params, Result};
use crate::node::{CachePolicy, NodeLayout, NodeStore, Tables, WriteBuffer};

/// Name in the registry.
pub const NAME: &str = "asbtree";
/// The default subfile in node records. §3.4's subfiles are 64 MB (8,192
/// of §4.1's 8 KB nodes); the experiments pass that size. A file holds
/// about three times the tree's nodes plus a subfile or two before a
/// subfile falls below T, so smaller subfiles keep the file closer to the
/// tree's size at the same share of moved nodes; the default takes 1,024
/// records, or an eighth of the device when that is less.
const DEFAULT_SUBFILE_RECORDS: u64 = 1024;
/// §4.1's largest Write Buffer ("varied from 1 to 32").
const DEFAULT_WRITE_BUFFER: usize = 32;

struct AsOptions {
    tree: BTreeOptions,
    write_buffer: Option<usize>,
    cache_nodes: Option<usize>,
    subfile_bytes: Option<u64>,
    nvm: bool,
    threshold: f64,
    /// Whether the Address Mapping Table is paid from the budget.
    tables: Tables,
}

fn options(params: &mut Params) -> Result<AsOptions> {
    let cache_given = params.raw("cache");
    let mut tree = BTreeOptions::from_params(params)?;
    tree.cache = match cache_given {
        Some(c) => c.parse::<CachePolicy>().map_err(IndexError::Config)?,
        None => CachePolicy::WriteThroughLru,
    };
    if tree.cache == CachePolicy::ModifiedLru {
        return Err(IndexError::Config(
            "asbtree's buffer cache is LRU (Kim et al. 2014 §4.1): cache=wt-lru, lru or none"
                .into(),
        ));
    }
    let o = AsOptions {
        tree,
        write_buffer: params.get_opt("write_buffer")?,
        cache_nodes: params.get_opt("cache_nodes")?,
        subfile_bytes: params.get_opt("subfile_bytes")?,
        nvm: params.get("nvm", true)?,
        threshold: params.get("threshold", 0.05)?,
        // Only where the tables stand: the memory is `assemble`'s.
        tables: params.budget(0)?.tables,
    };
    params.finish(NAME)?;
    Ok(o)
}

/// The subfile size given, else [`DEFAULT_SUBFILE_RECORDS`] records or an
/// eighth of the device when that is less.
fn subfile_options(o: &AsOptions, storage: &Storage, layout: &NodeLayout) -> SubfileOptions {
    let device_bytes = match storage {
        Storage::Pages(d) => d.capacity_pages().saturating_sub(1) * d.page_size() as u64,
        Storage::Raw(_) => 0,
    };
    let page = storage.page_size() as u64;
    let record = SequentialStore::record_bytes(layout).div_ceil(page as usize) as u64 * page;
    SubfileOptions {
        subfile_bytes: o
            .subfile_bytes
            .unwrap_or((DEFAULT_SUBFILE_RECORDS * record).min(device_bytes / 8)),
        nvm: o.nvm,
        threshold: o.threshold,
    }
}

/// The node layout. A node size stated in bytes (`node_bytes`, or
/// `node_pages` device pages, by default one page) is the whole record, its
/// 12-byte header inside it, so a node of N bytes occupies ⌈N / page⌉
/// device requests and holds the entries of N − 12 bytes (issue #27:
/// "sizes as stated"). A `fanout` F sizes the node for F entries; its
/// record is that node plus the header.
fn layout(o: &AsOptions, page_size: usize) -> Result<NodeLayout> {
    let stated = match (o.tree.fanout, o.tree.node_bytes, o.tree.node_pages) {
        (None, Some(b), None) => b,
        (None, None, Some(p)) if p > 0 => p.saturating_mul(page_size),
        (None, None, None) => page_size,
        // A fanout, or sizes given twice or as zero pages: the shared
        // options decide (and report the conflict).
        _ => return o.tree.layout(page_size),
    };
    let bytes = stated.checked_sub(store::RECORD_HEADER).ok_or_else(|| {
        IndexError::Config(format!(
            "node_bytes {stated} leaves no room for the {}-byte record header",
            store::RECORD_HEADER
        ))
    })?;
    o.tree
        .capped(NodeLayout::with_node_bytes(o.tree.format, bytes)?)
}

/// The Write Buffer's nodes: as given, else the paper's largest (32) or
/// as many as half the budget holds, at least one.
fn write_buffer_nodes(o: &AsOptions, layout: &NodeLayout, memory: usize) -> usize {
    o.write_buffer.unwrap_or_else(|| {
        DEFAULT_WRITE_BUFFER
            .min(memory / 2 / layout.node_bytes)
            .max(1)
    })
}

/// The tree over `store` behind its Write Buffer, new or (`reopen`) the one
/// `flush` left; the buffer cache holds `cache_nodes` nodes when given
/// (`BTree::limit_cache` checks them against the budget), none for 0.
fn assemble(o: &AsOptions, store: SequentialStore, memory: usize, reopen: bool) -> Result<BTree> {
    let layout = store.layout();
    let wb = WriteBuffer::new(Box::new(store), write_buffer_nodes(o, &layout, memory))?;
    let policy = match o.cache_nodes {
        Some(0) => CachePolicy::None,
        _ => o.tree.cache,
    };
    let mut tree = if reopen {
        BTree::open_on(NAME, Box::new(wb), memory, policy)?
    } else {
        BTree::create_on(NAME, Box::new(wb), memory, policy)?
    };
    tree.limit_cache(o.cache_nodes)?;
    tree.fit_to_budget(o.tables, 0)?;
    Ok(tree)
}

/// A new, empty AS B-tree on `storage`.
pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<BTree> {
    let o = options(&mut params)?;
    let layout = layout(&o, storage.page_size())?;
    let sub = subfile_options(&o, &storage, &layout);
    assemble(
        &o,
        SequentialStore::create(storage, layout, sub)?,
        memory,
        false,
    )
}

/// Reopens the AS B-tree `flush` left on `storage`, rebuilding the Address
/// Mapping Table by scanning every record (§3.3).
pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<BTree> {
    // The superblock records the node's own bytes (the record less its
    // header); `layout` would take that for a record size and shrink it
    // again, so with no size given the image's layout stands as it is.
    let size_given = ["node_bytes", "node_pages", "fanout"]
        .iter()
        .any(|k| params.contains(k));
    crate::index::kinds::reopen::tree_params(&mut storage, &mut params, false)?;
    let o = options(&mut params)?;
    let asked = layout(&o, storage.page_size())?;
    let sub = subfile_options(&o, &storage, &asked);
    let store = SequentialStore::open(storage, sub, o.subfile_bytes.is_some())?;
    if size_given {
        crate::index::kinds::reopen::agree_layout(&store.layout(), &asked)?;
    }
    assemble(&o, store, memory, true)
}
