//! `durability-cost`, the second experiment that reproduces no paper
//! figure: what the durability contract (`docs/FORMAT.md`) costs each
//! index in page writes, against how often it flushes.
//!
//! The papers count their mechanisms only: none of them says what survives
//! a power cut, and the paper experiments here run over the bare FTL
//! (`atomic=false`). On a real file, and over an FTL with `atomic=true`,
//! every index sits on the shadow-paging commit layer
//! (`src/device/shadow.rs`): a flush is an atomic commit that writes the
//! page-map pages that changed since the last commit and two meta pages.
//! Those are `durability_writes`, counted apart from the index's own
//! writes, and their share of the chip's page writes falls as flushes
//! grow apart. Every index is flushed at the end as well, so no commit is
//! left out.

use super::{Axis, Chart, Experiment, Panel, RunKind, Series};

/// Every index once, with its defaults (the B+-tree with an LRU cache).
fn every_index() -> Vec<Series> {
    let one = |name: &'static str, index: &'static str| Series {
        name,
        params: vec![("index", index)],
    };
    vec![
        Series {
            name: "B+-tree (LRU)",
            params: vec![("index", "btree"), ("set.cache", "lru")],
        },
        one("BFTL", "bftl"),
        one("MB-Tree", "mbtree"),
        one("Basic Delta", "basic-delta"),
        one("FlashDB", "flashdb"),
        one("Consolidation", "consolidation"),
        one("FD-tree", "fdtree"),
        one("LSM-tree", "lsm"),
        one("IPL", "ipl"),
    ]
}

pub(super) fn durability_cost() -> Experiment {
    Experiment {
        id: "durability-cost",
        title: "What durability costs: commit writes against the flush interval",
        source: "flashix durability contract (docs/FORMAT.md); no paper measures it",
        paper_ran: "No paper figure: the five papers count their indexes' own page writes and say nothing of what survives a power cut. The paper experiments here run over the bare FTL (atomic=false), so their counts are unchanged by the commit layer; this experiment shows what keeping the contract adds.",
        we_ran: "Every index with its defaults (the B+-tree with an LRU cache) and a 64 KiB budget over the page-mapping FTL with the commit layer (`slc-small`, 1,024 blocks, `atomic=true`); the `mbtree` workload (100,000 inserts of uniform keys, then a search of each; --quick: 10,000); a flush every 100, 1,000 or 10,000 operations and at the end. durability_writes are the commit layer's map and meta pages; durability_share is their part of the chip's page writes (GC copies included).",
        axis: Axis {
            param: "flush_every",
            label: "operations between flushes",
            full: vec!["100", "1000", "10000"],
            quick: vec!["100", "1000"],
            expand: None,
        },
        series: every_index(),
        fixed: vec![
            ("device", "slc-small"),
            ("device.blocks", "1024"),
            ("device.atomic", "true"),
            ("memory", "65536"),
            ("workload", "mbtree"),
            ("ops", "100000"),
            ("final_flush", "true"),
        ],
        quick: vec![("ops", "10000")],
        panels: vec![
            Panel::of("durability_share", "durability writes / chip writes"),
            Panel::of("durability_writes", "durability writes (pages)"),
        ],
        chart: Chart::Bars,
        published: vec![],
        notes: "No published numbers, so no headline row: nothing here counts as a claim or a variant. A commit writes the map pages holding entries that changed (41 entries to a 512-byte map page) and two meta pages, so its cost follows how widely an index's writes spread over the logical space between two flushes, not how many there are: MB-Tree's batch flushes touch leaf pages all over it, a B+-tree with a cache rewrites few.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
