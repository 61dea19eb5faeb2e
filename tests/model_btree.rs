//! `btree` against the oracle, with every cache policy, small nodes (deep
//! trees: many splits, merges and redistributions), 4+4 and 8+8 entries,
//! on a RAM disk, on the FTL over the simulated chip, on a real file, and
//! with the node log on raw chips.

mod common;

use common::{check, check_on_file, ftl, ops, ram, raw};
use flashix::device::Storage;
use proptest::prelude::*;

fn raw_small() -> Storage {
    // 1 superblock block + 2 halves of 3 blocks: the node log switches
    // halves often under these sequences.
    raw(7)
}

fn raw_bigger() -> Storage {
    raw(41)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn small_nodes_no_cache(ops in ops(400, 64)) {
        check("btree", &["node_bytes=64", "cache=none"], 4096, ram, &ops)?;
    }

    #[test]
    fn small_nodes_lru(ops in ops(400, 64)) {
        check("btree", &["node_bytes=64", "cache=lru"], 64 * 5, ram, &ops)?;
    }

    #[test]
    fn small_nodes_mlru(ops in ops(400, 64)) {
        check("btree", &["node_bytes=64", "cache=mlru"], 64 * 5, ram, &ops)?;
    }

    #[test]
    fn two_byte_keys_and_values(ops in ops(300, 1 << 16)) {
        check("btree", &["fanout=8", "key_bytes=2", "value_bytes=2", "cache=lru"], 2048, ram, &ops)?;
    }

    #[test]
    fn wide_entries_mlru(ops in ops(300, 1 << 40)) {
        check("btree", &["node_bytes=96", "key_bytes=8", "value_bytes=8"], 96 * 4, ram, &ops)?;
    }

    #[test]
    fn capped_leaves_and_cached_top_levels(ops in ops(400, 200)) {
        check("btree", &["fanout=6", "leaf_entries=4", "cached_levels=2", "cache=none"], 4096, ftl, &ops)?;
    }

    #[test]
    fn over_the_ftl(ops in ops(300, 200)) {
        check("btree", &["fanout=4", "cache=mlru"], 2048, ftl, &ops)?;
    }

    #[test]
    fn node_log_on_a_raw_chip(ops in ops(400, 80)) {
        check("btree", &["fanout=4", "cache=lru"], 512 + 64 * 6, raw_small, &ops)?;
    }

    #[test]
    fn node_log_without_cache(ops in ops(300, 80)) {
        check("btree", &["fanout=8", "cache=none"], 1024, raw_small, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Nodes of 784 bytes span pages of the 512-byte log.
    #[test]
    fn node_log_with_nodes_larger_than_a_page(ops in ops(400, 300)) {
        check("btree", &["fanout=64", "cache=lru"], 512 + 784 * 4, raw_bigger, &ops)?;
    }

    /// Nodes of 304 bytes: several per page, none straddling.
    #[test]
    fn node_log_with_several_nodes_a_page(ops in ops(400, 300)) {
        check("btree", &["fanout=24", "cache=none"], 2048, raw_bigger, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(200, 100)) {
        check_on_file("btree", &["node_bytes=128", "cache=lru"], 1024, &ops)?;
    }
}

#[test]
fn many_inserts_and_deletes_keep_the_tree_balanced() {
    let seq = common::churn();
    for cache in ["cache=none", "cache=lru", "cache=mlru"] {
        check("btree", &["node_bytes=64", cache], 640, ram, &seq).unwrap();
    }
}
