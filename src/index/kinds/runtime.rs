//! Which parameters of each index are *runtime knobs*: read at every open
//! and recorded nowhere on flash (caches, buffers, emptying and compaction
//! policies), as against the *structural* ones its superblock records (node
//! size, the FD-tree's k and head, the LSM-tree's ratio and C0, entry
//! widths), which a reopen must repeat or leave out
//! ([`crate::index::IndexError::Mismatch`]).
//!
//! An index built with one set of runtime knobs and reopened with another
//! is a valid index of the second kind: that is what lets `flashix advise`
//! build one preloaded image for every configuration that differs only in
//! runtime knobs, and `flashix run --preload-reopen` rebuild the same image
//! (`runner::staged`). `tests/runtime_params.rs` reopens every index with
//! every knob listed here changed, so the list cannot claim a structural
//! parameter.

/// The runtime parameters of index `name` (none for an unknown name).
pub fn runtime_params(name: &str) -> &'static [&'static str] {
    match name {
        "btree" => &[
            "cache",
            "cache_nodes",
            "cached_levels",
            "write_buffer",
            "tables",
        ],
        "bftl" => &[
            "reservation_buffer",
            "compaction_c",
            "cached_levels",
            "cache",
            "cache_nodes",
            "tables",
        ],
        crate::index::bftl::FLASHDB => &[
            "reservation_buffer",
            "compaction_c",
            "cached_levels",
            "cache",
            "cache_nodes",
            "tables",
            "log_insert_reads_leaf",
        ],
        crate::index::mbtree::NAME => &["lru_share", "tables"],
        crate::index::latree::NAME => &["adapt", "node_cache_share", "max_buffer_bytes", "tables"],
        crate::index::latree::BUFFER_TREE => &["max_buffer_bytes", "tables"],
        crate::index::asbtree::NAME => &["write_buffer", "cache", "cache_nodes", "tables"],
        crate::index::lsm::NAME | crate::index::fdtree::NAME => &["tables"],
        crate::index::delta::BASIC_DELTA
        | crate::index::delta::CONSOLIDATION
        | crate::index::delta::IPL => &["tables"],
        _ => &[],
    }
}

/// `params` (`K=V`) without the runtime ones of index `name`: the
/// parameters a preloaded image shared by several configurations is built
/// with (the runtime knobs at their defaults).
pub fn structural(name: &str, params: &[String]) -> Vec<String> {
    let runtime = runtime_params(name);
    params
        .iter()
        .filter(|p| {
            let key = p.split_once('=').map_or(p.as_str(), |(k, _)| k.trim());
            !runtime.contains(&key)
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structural_keeps_what_the_superblock_records() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            structural("btree", &p(&["cache=lru", "fanout=8", "cache_nodes=4"])),
            p(&["fanout=8"])
        );
        assert_eq!(structural("fdtree", &p(&["k=8"])), p(&["k=8"]));
        assert!(runtime_params("nope").is_empty());
    }
}
