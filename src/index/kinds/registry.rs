//! Every index by name: create one on a storage, reopen one, list them.
//! Each later index adds one line to [`list`] and one arm to [`create_bare`] and
//! [`open_bare`].

use crate::device::Storage;

use crate::index::bftl::Bftl;
use crate::index::btree::BTree;
use crate::index::delta;
use crate::index::fdtree::FdTree;
use crate::index::latree::LaTree;
use crate::index::lsm::LsmTree;
use crate::index::mbtree::MbTree;
use crate::index::{Index, IndexError, Params, Result};

/// What `flashix list` shows of an index.
#[derive(Clone, Debug)]
pub struct IndexInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static str,
}

/// Whether index `name` can keep versions of keys (`versions=key`: the
/// newest entry of a key shadows the older ones, `Index::upsert` writes
/// blind): the indexes whose structure orders versions. A new map store of
/// one is created so (`store` module doc).
pub fn keeps_versions(name: &str) -> bool {
    matches!(
        name,
        crate::index::lsm::NAME
            | crate::index::fdtree::NAME
            | crate::index::latree::NAME
            | crate::index::latree::BUFFER_TREE
            | crate::index::mbtree::NAME
    )
}

/// Parameters a store (`crate::store`) gives index `name` with `memory`
/// bytes unless its options set them: each write-optimised index sized
/// for a file from its budget, as its paper sizes it for flash (the paper
/// experiments never take these). `new`: the store is being created (a
/// parameter its file records is given only then; one it does not record
/// is given at every open).
/// * LSM-tree: C0 of half the budget (`c0_bytes`; O'Neil et al. size C0
///   from the memory there is, and on a file a larger C0 means fewer
///   merge passes per insert), and passes built as trees of at most a
///   quarter of the budget each (`extent_bytes`, at least 1 MiB), so the
///   file stays near the data's size (`lsm` module doc).
/// * FD-tree: a head tree of half the budget (`head_bytes`; the paper's
///   head is one erase block of its SSD, and on a file the head's size sets
///   how often a merge rewrites the level below).
/// * LA-tree (Buffered-B+ tree): nodes of one page of the file
///   (`node_bytes`). Its default fanout of 16 is the paper's for a mote's
///   flash chip, where a node fills a 512-byte page; on a file of 4 KiB
///   pages such a node (about 330 bytes) takes a whole page, so the tree
///   is six levels high and its file 31 times its data (issue #45).
pub fn store_defaults(
    name: &str,
    memory: usize,
    page_size: usize,
    new: bool,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if name == crate::index::lsm::NAME {
        if new {
            out.push(("c0_bytes", (memory / 2).to_string()));
        }
        out.push(("extent_bytes", (memory / 4).max(1 << 20).to_string()));
    }
    if name == crate::index::fdtree::NAME && new {
        out.push(("head_bytes", (memory / 2).to_string()));
    }
    if name == crate::index::latree::NAME && new {
        out.push(("node_bytes", page_size.to_string()));
    }
    out
}

/// Every index flashix has.
pub fn list() -> Vec<IndexInfo> {
    vec![
        IndexInfo {
            name: "btree",
            description: "B+-tree baseline: in-place nodes over an FTL or file, or a node log on raw:; node cache none/lru/mlru (Roh et al. 2009 §4.7)",
            params: "node_bytes=N | node_pages=N | fanout=N, leaf_entries=N, cache=none|lru|mlru, cached_levels=0, write_buffer=0 (nodes), cache_nodes=N (default: what the budget leaves), key_bytes=2|4|8, value_bytes=2|4|8, log_blocks=N",
        },
        IndexInfo {
            name: "bftl",
            description: "BFTL: reservation buffer, index units, first-fit commit policy, node translation table with compaction (Wu et al. 2003 §3)",
            params: "fanout=N | node_bytes=N (default: fanout = units per sector + 1), leaf_entries=fanout-1, reservation_buffer=60, compaction_c=3, cached_levels=2, cache=none|wt-lru, cache_nodes=N (wt-lru), deletes=checked|blind, commit_order=arrival|key, key_bytes=2|4|8, value_bytes=2|4|8",
        },
        IndexInfo {
            name: crate::index::mbtree::NAME,
            description: "MB-Tree: batch processing buffer with Unique Path Search, leaf nodes of an LNH (OIDs, KIVs) and L leaf pages with best-fit placement, adaptive leaf size, modified LRU buffer (Roh et al. 2009 §4)",
            params: "lru_share=0.4, lnh=true|false, kiv=true|false, fei=true|false, leaf_pages=4, max_leaf_pages=16, key_bytes=2|4|8, value_bytes=2|4|8, versions=pair|key (key: a map of versions of keys, blind upserts; a map store sets it)",
        },
        IndexInfo {
            name: delta::BASIC_DELTA,
            description: "Basic Delta: base node + up to max_deltas shared delta pages per node, written as a log, LRU node cache (Agrawal et al. 2009 §6.1)",
            params: "fanout=16 | node_bytes=N, max_deltas=4, key_bytes=2|4|8, value_bytes=2|4|8",
        },
        IndexInfo {
            name: crate::index::bftl::FLASHDB,
            description: "FlashDB: BFTL's reservation buffer, index units and node translation table, each node switching online between log mode and disk mode (Roh et al. 2009 §2.3)",
            params: "as bftl: fanout=N | node_bytes=N, leaf_entries=fanout-1, reservation_buffer=60, compaction_c=3, cached_levels=2, cache=none|wt-lru, log_insert_reads_leaf=true|false, key_bytes=2|4|8, value_bytes=2|4|8",
        },
        IndexInfo {
            name: delta::CONSOLIDATION,
            description: "Consolidation: Basic Delta whose per-node cost counter consolidates read-heavy chains, FlashDB's idea as Agrawal et al. 2009 §6.1 runs it",
            params: "fanout=16 | node_bytes=N, max_deltas=4, key_bytes=2|4|8, value_bytes=2|4|8",
        },
        IndexInfo {
            name: crate::index::fdtree::NAME,
            description: "FD-tree: a head tree over sorted runs of ratio k with fractional cascading (fences), merges, logarithmic deletion with filter entries (Li et al. 2009 §II)",
            params: "k=f/2 (f: entries a page holds), head_bytes=one erase block (128 KiB without erase units; at most half the memory), page_bytes=device page (or a multiple), key_bytes=2|4|8, value_bytes=2|4|8, versions=pair|key (key: a map of versions of keys, blind upserts; a map store sets it)",
        },
        IndexInfo {
            name: crate::index::lsm::NAME,
            description: "LSM-tree: C0 in memory over B+-tree components of ratio r built bottom-up by rolling merges with sequential writes; a search looks in every component (O'Neil et al., the baseline of Li et al. 2009 §III)",
            params: "ratio=f/2 (f: entries a page holds), c0_bytes=one erase block (128 KiB without erase units; at most half the memory; a store: half the memory), page_bytes=device page (or a multiple), extent_bytes=the pass (a store: a quarter of the memory), key_bytes=2|4|8, value_bytes=2|4|8, versions=pair|key (key: a map of versions of keys, blind upserts; a map store sets it)",
        },
        IndexInfo {
            name: crate::index::latree::BUFFER_TREE,
            description: "Buffer tree (Arge) as Agrawal et al. 2009 §3.1 runs it: super-nodes of about M/4 bytes, each with a buffer of M/2 emptied to the children when full; lookups immediate (scan the path's nodes and buffers) or delayed (batched with the inserts, answered at the leaves)",
            params: "lookup=immediate|delayed, node_bytes=M/4, max_buffer_bytes=M/2, buffer_pool=entries|pages, partition_blocks=2, log_blocks=N (raw:), cache=lru, key_bytes=2|4|8, value_bytes=2|4|8, versions=pair|key (key: a map of versions of keys, blind upserts; a map store sets it)",
        },
        IndexInfo {
            name: crate::index::latree::NAME,
            description: "Buffered-B+ tree (Lazy-Adaptive tree): a B+-tree in subtrees of height h with a buffer at each subtree root, emptied through the subtree; adaptive emptying at lookups by ADAPT or Adapt-Simple; nodes in a node log on raw:, buffers in their own partitions (Agrawal et al. 2009 §4-5)",
            params: "fanout=16 | node_bytes=N, subtree_height=2, adapt=simple|adapt|off, node_cache_share=0.25, max_buffer_bytes=3M/4, buffer_pool=entries|pages, partition_blocks=2, log_blocks=N (raw:), cache=lru, key_bytes=2|4|8, value_bytes=2|4|8, versions=pair|key (key: a map of versions of keys, blind upserts; a map store sets it)",
        },
        IndexInfo {
            name: crate::index::asbtree::NAME,
            description: "AS B-tree: a B+-tree whose modified nodes collect in a write buffer and are appended at the end of the file (sequential LBAs) through a NodeID -> LBA address mapping table; a node validation manager recycles subfiles with few valid nodes (Kim et al. 2014 §3)",
            params: "fanout=N | node_bytes=N (default: a record of one page), write_buffer=32, cache_nodes=N (default: what the budget leaves), cache=wt-lru|lru|none, subfile_bytes=1024 records (paper: 64 MiB), threshold=0.05, nvm=true|false, key_bytes=2|4|8, value_bytes=2|4|8",
        },
        IndexInfo {
            name: delta::IPL,
            description: "IPL: node pages and per-node log sectors in each erase unit, merged when the log area fills (Agrawal et al. 2009 §6.1); raw: chips, or aligned page groups over an FTL or file",
            params: "fanout=N | node_bytes=N (default: one page), max_deltas=4, node_pages_per_block, log_pages_per_block, log_buffers, key_bytes=2|4|8, value_bytes=2|4|8",
        },
    ]
}

/// The indexes whose superblock at page 0 is their own rather than the
/// tree metadata every B+-tree-shaped index writes: its magic and name.
const OWN_SUPERBLOCKS: &[(&[u8], &str)] = &[
    (
        crate::index::fdtree::superblock::MAGIC,
        crate::index::fdtree::NAME,
    ),
    (crate::index::lsm::meta::MAGIC, crate::index::lsm::NAME),
];

fn unknown(name: &str) -> IndexError {
    let names: Vec<&str> = list().iter().map(|i| i.name).collect();
    IndexError::Config(format!(
        "unknown index `{name}`; known: {}",
        names.join(", ")
    ))
}

/// The kind of the index a flush left on logical pages (its registry
/// name, which every index's superblock at page 0 records); `None` when
/// the storage holds no superblock there. Reads page 0.
pub fn stored_kind(storage: &mut Storage) -> Result<Option<String>> {
    let Some(kind) = super::reopen::stored_kind(storage, OWN_SUPERBLOCKS)? else {
        return Ok(None);
    };
    if list().iter().any(|i| i.name == kind) {
        Ok(Some(kind))
    } else {
        Err(IndexError::Corrupt {
            page: 0,
            detail: format!("the superblock names an unknown index `{kind}`"),
        })
    }
}

/// The device kind under `storage` (`file`, `raw`, `ftl`, `ram`, ...).
fn storage_kind(storage: &Storage) -> String {
    match storage {
        Storage::Pages(d) => d.info().kind,
        Storage::Raw(f) => f.info().kind,
    }
}

/// A new, empty index `name` on `storage`, bare: no write-ahead log
/// and no poison guard. What an application opens is wrapped in both
/// (`crate::store::create_index`); a paper's experiment on a simulated
/// device may run it bare, as the paper ran it.
pub fn create_bare(
    name: &str,
    storage: Storage,
    memory: usize,
    params: Params,
) -> Result<Box<dyn Index>> {
    if params.paper_nodes() {
        if storage_kind(&storage) == "file" {
            return Err(IndexError::Config(
                "node_format=paper is a simulation-only node layout (node::paper): \
                 it is never written to a file; use a simulated device or node_format=flashix"
                    .into(),
            ));
        }
        // The images of this thread's earlier paper-format indexes go.
        crate::node::paper::clear_thread();
    }
    match name {
        "btree" => Ok(Box::new(BTree::create(storage, memory, params)?)),
        "bftl" => Ok(Box::new(Bftl::create(storage, memory, params)?)),
        crate::index::fdtree::NAME => Ok(Box::new(FdTree::create(storage, memory, params)?)),
        crate::index::lsm::NAME => Ok(Box::new(LsmTree::create(storage, memory, params)?)),
        crate::index::latree::NAME => Ok(Box::new(LaTree::create(storage, memory, params)?)),
        crate::index::latree::BUFFER_TREE => Ok(Box::new(LaTree::create_buffer_tree(
            storage, memory, params,
        )?)),
        crate::index::mbtree::NAME => Ok(Box::new(MbTree::create(storage, memory, params)?)),
        crate::index::asbtree::NAME => Ok(Box::new(crate::index::asbtree::create(
            storage, memory, params,
        )?)),
        delta::BASIC_DELTA => Ok(Box::new(delta::create(
            delta::BASIC_DELTA,
            storage,
            memory,
            params,
        )?)),
        crate::index::bftl::FLASHDB => Ok(Box::new(Bftl::create_named(
            crate::index::bftl::FLASHDB,
            storage,
            memory,
            params,
        )?)),
        delta::CONSOLIDATION => Ok(Box::new(delta::create(
            delta::CONSOLIDATION,
            storage,
            memory,
            params,
        )?)),
        delta::IPL => Ok(Box::new(delta::create(
            delta::IPL,
            storage,
            memory,
            params,
        )?)),
        _ => Err(unknown(name)),
    }
}

/// Reopens the index `name` that `flush` left on `storage`, bare (see
/// [`create_bare`]): it neither drops what was not committed nor replays
/// a write-ahead log (`crate::store::open_index` does both).
///
/// `read_only`: the index must answer without writing. Only Consolidation
/// and FlashDB have reads that reorganise (a consolidation, a mode
/// switch), so only their openers take it; every other index's reads
/// write nothing (`tests/read_only_indexes.rs` reads each one read-only),
/// and the buffer tree's delayed lookups, answered by a buffer emptying,
/// are turned into immediate ones by the guard (`store::guard`).
pub fn open_bare(
    name: &str,
    storage: Storage,
    memory: usize,
    params: Params,
    read_only: bool,
) -> Result<Box<dyn Index>> {
    if params.paper_nodes() {
        return Err(IndexError::Config(
            "node_format=paper is a simulation-only node layout (node::paper): \
             an index in it lives only as long as the run that made it and cannot be reopened"
                .into(),
        ));
    }
    match name {
        "btree" => Ok(Box::new(BTree::open(storage, memory, params)?)),
        "bftl" => Ok(Box::new(Bftl::open(storage, memory, params)?)),
        crate::index::fdtree::NAME => Ok(Box::new(FdTree::open(storage, memory, params)?)),
        crate::index::lsm::NAME => Ok(Box::new(LsmTree::open(storage, memory, params)?)),
        crate::index::latree::NAME => Ok(Box::new(LaTree::open(storage, memory, params)?)),
        crate::index::latree::BUFFER_TREE => {
            Ok(Box::new(LaTree::open_buffer_tree(storage, memory, params)?))
        }
        crate::index::mbtree::NAME => Ok(Box::new(MbTree::open(storage, memory, params)?)),
        crate::index::asbtree::NAME => Ok(Box::new(crate::index::asbtree::open(
            storage, memory, params,
        )?)),
        delta::BASIC_DELTA => Ok(Box::new(delta::open(
            delta::BASIC_DELTA,
            storage,
            memory,
            params,
            read_only,
        )?)),
        crate::index::bftl::FLASHDB => Ok(Box::new(Bftl::open_named(
            crate::index::bftl::FLASHDB,
            storage,
            memory,
            params,
            read_only,
        )?)),
        delta::CONSOLIDATION => Ok(Box::new(delta::open(
            delta::CONSOLIDATION,
            storage,
            memory,
            params,
            read_only,
        )?)),
        delta::IPL => Ok(Box::new(delta::open(
            delta::IPL,
            storage,
            memory,
            params,
            read_only,
        )?)),
        _ => Err(unknown(name)),
    }
}
