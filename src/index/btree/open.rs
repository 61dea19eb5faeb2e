//! Building a [`BTree`]: its options (`BTreeOptions`: node size, leaf
//! cap, cache, node-log size; `cached_levels`), a new tree on a store, and
//! reopening one from the superblock `flush` wrote, with the checks that
//! the parameters agree with the image. Moved out of `mod.rs` unchanged.

use crate::device::Storage;
use crate::index::kinds::reopen::mismatch;
use crate::index::{EntryFormat, IndexError, Params, Result};
use crate::node::log_store::RECORD_ID as LOG_RECORD_ID;
use crate::node::{
    CachePolicy, LogNodeStore, NodeCache, NodeChange, NodeLayout, NodeStore, PageNodeStore,
    TreeMeta, WriteBuffer,
};

use super::{pool_nodes, BTree, Counters, META_MEMORY, NAME};

/// Node size and cache choice parsed from parameters.
#[derive(Clone, Copy, Debug)]
pub struct BTreeOptions {
    pub format: EntryFormat,
    /// `None` means "one device page".
    pub node_bytes: Option<usize>,
    pub fanout: Option<usize>,
    pub node_pages: Option<usize>,
    /// Most entries a leaf holds, below what its bytes hold.
    pub leaf_entries: Option<usize>,
    pub cache: CachePolicy,
    /// Blocks per half of the node log on a raw chip (0: as many as fit).
    pub log_blocks: u64,
}

impl BTreeOptions {
    /// Reads `node_bytes`, `node_pages`, `fanout`, `cache`, `key_bytes`,
    /// `value_bytes`; the caller calls `params.finish`.
    pub fn from_params(params: &mut Params) -> Result<Self> {
        let format = params.entry_format()?;
        let cache = params
            .get("cache", "mlru".to_string())?
            .parse::<CachePolicy>()
            .map_err(IndexError::Config)?;
        Ok(BTreeOptions {
            format,
            node_bytes: params.get_opt("node_bytes")?,
            node_pages: params.get_opt("node_pages")?,
            fanout: params.get_opt("fanout")?,
            leaf_entries: params.get_opt("leaf_entries")?,
            cache,
            log_blocks: params.get("log_blocks", 0u64)?,
        })
    }

    /// The node layout on a device of `page_size`-byte pages.
    pub fn layout(&self, page_size: usize) -> Result<NodeLayout> {
        self.capped(self.uncapped_layout(page_size)?)
    }

    /// The layout in a node log of `page_size`-byte pages: one node per log
    /// page by default (a page less the record's id).
    fn log_layout(&self, page_size: usize) -> Result<NodeLayout> {
        if self.sized() {
            return self.layout(page_size);
        }
        self.capped(NodeLayout::with_node_bytes(
            self.format,
            page_size - LOG_RECORD_ID,
        )?)
    }

    /// `layout` with leaves capped at `leaf_entries` when given (stores
    /// that pick their own default node size apply it too).
    pub fn capped(&self, layout: NodeLayout) -> Result<NodeLayout> {
        match self.leaf_entries {
            Some(n) => Ok(layout.with_leaf_entries(n)?),
            None => Ok(layout),
        }
    }

    fn uncapped_layout(&self, page_size: usize) -> Result<NodeLayout> {
        if let Some(f) = self.fanout {
            return Ok(NodeLayout::with_fanout(self.format, f)?);
        }
        let bytes = match (self.node_bytes, self.node_pages) {
            (Some(_), Some(_)) => {
                return Err(IndexError::Config(
                    "give node_bytes or node_pages, not both".into(),
                ))
            }
            (Some(b), None) => b,
            (None, Some(p)) if p > 0 => p * page_size,
            (None, Some(_)) => {
                return Err(IndexError::Config("node_pages must be positive".into()))
            }
            (None, None) => page_size,
        };
        Ok(NodeLayout::with_node_bytes(self.format, bytes)?)
    }

    /// Whether the caller asked for a node size at all.
    pub(crate) fn sized(&self) -> bool {
        self.fanout.is_some() || self.node_bytes.is_some() || self.node_pages.is_some()
    }
}

/// `cached_levels=N`: the top N levels kept decoded in RAM, read for free
/// and written through (Wu et al. 2003 §5.1's cached "hot" nodes), on logical
/// pages only.
fn top_levels(params: &mut Params, storage: &Storage) -> Result<u8> {
    let levels: u8 = params.get("cached_levels", 0)?;
    if levels > 0 && matches!(storage, Storage::Raw(_)) {
        return Err(IndexError::Config(
            "cached_levels keeps nodes stored in place: use an FTL profile or file:PATH".into(),
        ));
    }
    Ok(levels)
}

/// `write_buffer=N`: the AS B-tree's Write Buffer of N nodes in front of
/// the in-place store (Kim et al. 2014 Table 2 compares the two trees with
/// the same buffer); 0, the default, writes nodes as the tree commits them.
fn write_buffer(params: &mut Params) -> Result<usize> {
    params.get("write_buffer", 0)
}

fn buffered(store: Box<dyn NodeStore>, nodes: usize) -> Result<Box<dyn NodeStore>> {
    if nodes == 0 {
        return Ok(store);
    }
    Ok(Box::new(WriteBuffer::new(store, nodes)?))
}

impl BTree {
    /// Caps the node cache at `nodes` (`cache_nodes=N`: a cache of so many
    /// nodes, as Kim et al. 2014 Figs. 13–14 size theirs); more than the
    /// budget leaves for the cache is `BudgetTooSmall`. Only a cache that
    /// holds nothing yet is replaced, so no dirty node is ever dropped:
    /// call it right after `create_on` or `open_on`.
    pub fn limit_cache(&mut self, nodes: Option<usize>) -> Result<()> {
        let Some(nodes) = nodes else {
            return Ok(());
        };
        if nodes > 0 && self.cache.policy() == CachePolicy::None {
            return Err(IndexError::Config(format!(
                "cache_nodes={nodes} needs a node cache, and cache=none has none"
            )));
        }
        if nodes > self.cache.capacity() {
            let node = self.layout.node_bytes;
            return Err(IndexError::BudgetTooSmall {
                needed: self.budget + (nodes - self.cache.capacity()) * node,
                given: self.budget,
                what: format!("a node cache of {nodes} nodes of {node} bytes beside the rest"),
            });
        }
        if self.cache.is_empty() && nodes < self.cache.capacity() {
            self.cache = NodeCache::new(self.cache.policy(), nodes);
        }
        Ok(())
    }

    /// A new, empty tree on `storage`.
    pub fn create(storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        let opts = BTreeOptions::from_params(&mut params)?;
        let cached_levels = top_levels(&mut params, &storage)?;
        let write_buffer = write_buffer(&mut params)?;
        let cache_nodes: Option<usize> = params.get_opt("cache_nodes")?;
        let tables = params.budget(memory)?.tables;
        params.finish(NAME)?;
        let layout = match &storage {
            Storage::Raw(_) => opts.log_layout(storage.page_size())?,
            Storage::Pages(_) => opts.layout(storage.page_size())?,
        };
        let store: Box<dyn NodeStore> = match storage {
            Storage::Pages(_) => {
                Box::new(PageNodeStore::new(storage, layout)?.with_top_levels(cached_levels))
            }
            Storage::Raw(_) => Box::new(LogNodeStore::new(storage, layout, opts.log_blocks)?),
        };
        let mut tree = Self::create_on(NAME, buffered(store, write_buffer)?, memory, opts.cache)?;
        tree.limit_cache(cache_nodes)?;
        tree.fit_to_budget(tables, 0)?;
        Ok(tree)
    }

    /// Reopens the tree `flush` left on `storage`.
    pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        crate::index::kinds::reopen::tree_params(&mut storage, &mut params, true)?;
        let opts = BTreeOptions::from_params(&mut params)?;
        let cached_levels = top_levels(&mut params, &storage)?;
        let write_buffer = write_buffer(&mut params)?;
        let cache_nodes: Option<usize> = params.get_opt("cache_nodes")?;
        let tables = params.budget(memory)?.tables;
        params.finish(NAME)?;
        let mut tree = Self::open_store(storage, memory, opts, cached_levels, write_buffer)?;
        tree.limit_cache(cache_nodes)?;
        tree.fit_to_budget(tables, 0)?;
        Ok(tree)
    }

    fn open_store(
        storage: Storage,
        memory: usize,
        opts: BTreeOptions,
        cached_levels: u8,
        write_buffer: usize,
    ) -> Result<Self> {
        if let Storage::Raw(_) = storage {
            // The node log's superblock carries the layout too, but the log
            // must know the node size to scan: take it from the parameters.
            let layout = opts.log_layout(storage.page_size())?;
            let store = LogNodeStore::new(storage, layout, opts.log_blocks)?;
            let store = buffered(Box::new(store), write_buffer)?;
            return Self::open_on(NAME, store, memory, opts.cache);
        }
        // The real layout comes from the superblock; this one only reads it.
        let probe = NodeLayout::with_node_bytes(opts.format, storage.page_size().max(64))?;
        let mut store = PageNodeStore::new(storage, probe)?;
        let meta = store
            .load_meta()?
            .ok_or_else(|| IndexError::NoIndex("the device holds no superblock".into()))?;
        let layout = meta.layout()?;
        let asked = opts.layout(store.storage().page_size())?;
        crate::index::kinds::reopen::agree_layout(&layout, &asked)?;
        let store = PageNodeStore::new(Box::new(store).into_storage(), layout)?
            .with_top_levels(cached_levels);
        Self::open_on(
            NAME,
            buffered(Box::new(store), write_buffer)?,
            memory,
            opts.cache,
        )
    }

    /// The flags the index over this tree keeps in its superblock
    /// (`TreeMeta::flags`; 0 for the B+-tree itself).
    pub fn flags(&self) -> u8 {
        self.meta.flags
    }

    /// Sets those flags; the next `flush` writes them.
    pub fn set_flags(&mut self, flags: u8) {
        self.meta.flags = flags;
    }

    /// A new tree over any node store (BFTL, delta schemes, ... pass theirs).
    pub fn create_on(
        name: &'static str,
        mut store: Box<dyn NodeStore>,
        memory: usize,
        cache: CachePolicy,
    ) -> Result<Self> {
        let layout = store.layout();
        let cache = Self::cache_for(layout, memory, store.reserved_bytes(), cache)?;
        let root = store.allocate()?;
        let meta = TreeMeta {
            index: name.to_string(),
            format: layout.format,
            node_bytes: layout.node_bytes as u32,
            root,
            height: 1,
            leaf_entries: layout.leaf_entries_cap(),
            next_id: store.next_id(),
            entries: 0,
            generation: 0,
            flags: 0,
        };
        let mut tree = BTree::assemble(name, store, cache, layout, meta, memory);
        let leaf = tree.blank(0);
        tree.store.write_node(root, &leaf, NodeChange::Rewrite)?;
        tree.recycle(leaf);
        tree.store.store_meta(&tree.meta)?;
        Ok(tree)
    }

    /// Reopens a tree from any node store whose metadata `flush` wrote.
    pub fn open_on(
        name: &'static str,
        mut store: Box<dyn NodeStore>,
        memory: usize,
        cache: CachePolicy,
    ) -> Result<Self> {
        let meta = store
            .load_meta()?
            .ok_or_else(|| IndexError::NoIndex("the device holds no superblock".into()))?;
        if meta.index != name {
            return Err(IndexError::NoIndex(format!(
                "the device holds a `{}` index, not `{name}`",
                meta.index
            )));
        }
        let layout = store.layout();
        // Every store reads nodes with the layout it was given: one that
        // contradicts the superblock would misread every node.
        for (parameter, image, given) in [
            (
                "key_bytes",
                meta.format.key_bytes as usize,
                layout.format.key_bytes as usize,
            ),
            (
                "value_bytes",
                meta.format.value_bytes as usize,
                layout.format.value_bytes as usize,
            ),
            ("node_bytes", meta.node_bytes as usize, layout.node_bytes),
            (
                "leaf_entries",
                meta.leaf_entries as usize,
                layout.leaf_entries_cap() as usize,
            ),
        ] {
            if image != given {
                return Err(mismatch(parameter, image, given));
            }
        }
        let cache = Self::cache_for(layout, memory, store.reserved_bytes(), cache)?;
        store.restore_allocation(meta.next_id, Vec::new());
        let mut tree = BTree::assemble(name, store, cache, layout, meta, memory);
        tree.rebuild_free_list()?;
        Ok(tree)
    }

    /// The cache that fits `memory` beside what the store itself holds
    /// (`reserved`: a node log's write buffer, say).
    fn cache_for(
        layout: NodeLayout,
        memory: usize,
        reserved: usize,
        policy: CachePolicy,
    ) -> Result<NodeCache> {
        let needed = 2 * layout.node_bytes + reserved;
        if memory < needed {
            return Err(IndexError::BudgetTooSmall {
                needed,
                given: memory,
                what: format!(
                    "two {}-byte node images (a node and its split sibling) and {reserved} bytes of the node store",
                    layout.node_bytes
                ),
            });
        }
        let nodes = memory.saturating_sub(META_MEMORY + reserved) / layout.node_bytes;
        Ok(NodeCache::new(
            policy,
            nodes.saturating_sub(pool_nodes(nodes)),
        ))
    }

    fn assemble(
        name: &'static str,
        store: Box<dyn NodeStore>,
        cache: NodeCache,
        layout: NodeLayout,
        meta: TreeMeta,
        budget: usize,
    ) -> Self {
        let nodes = budget.saturating_sub(META_MEMORY + store.reserved_bytes()) / layout.node_bytes;
        BTree {
            name,
            pool_cap: pool_nodes(nodes),
            store,
            cache,
            layout,
            meta,
            budget,
            pool: Vec::new(),
            images: Vec::new(),
            evicted: Vec::new(),
            scratch_entries: Vec::new(),
            scratch_children: Vec::new(),
            counters: Counters::default(),
            shapes: None,
            fit: None,
        }
    }

    /// Invariant 2 of the store: every id below `next_id` not reachable
    /// from the root is free. Only internal nodes are read.
    fn rebuild_free_list(&mut self) -> Result<()> {
        let mut node = self.blank(0);
        let store = &mut self.store;
        let free = crate::node::store::unreachable_ids(
            self.meta.next_id,
            self.meta.root,
            self.meta.height,
            |id, level, children| {
                store.read_node(id, &mut node)?;
                if node.level != level {
                    return Err(crate::node::NodeError::Corrupt {
                        page: 0,
                        detail: format!(
                            "node {id} has level {} where {level} was expected",
                            node.level
                        ),
                    });
                }
                children.extend_from_slice(&node.children);
                Ok(())
            },
        );
        self.recycle(node);
        self.store.restore_allocation(self.meta.next_id, free?);
        Ok(())
    }
}
