//! `asbtree-fig13-14` (Kim et al. 2014 §4.1, Figs. 13–14): inserts and
//! searches against the size of an LRU buffer cache, for the AS B-tree,
//! the B+-tree and BFTL at §4.1's setting ([`super::asbtree`]'s).

use super::asbtree::{below, fixed_41, row, INSERTS, PAPER_SUBFILE, QUICK_41};
use super::{Axis, Chart, Experiment, Measure, Panel, Published, RunKind, Series, AXIS_VALUE};

const FIG13: &str = "Kim et al. 2014 §4.1, Fig. 13";
const FIG14: &str = "Kim et al. 2014 §4.1, Fig. 14";

const AS_I: &str = "AS B-tree, inserts";
const BP_I: &str = "B+-tree, inserts";
const BFTL_I: &str = "BFTL, inserts";
const AS_S: &str = "AS B-tree, searches";
const BP_S: &str = "B+-tree, searches";
const BFTL_S: &str = "BFTL, searches";
/// BFTL with its top two levels in RAM (`cached_levels=2`, Wu et al. 2003
/// §5.1's default): the setting this experiment had before §4.1's
/// `cached_levels=0` (issue #44).
const BFTL2_I: &str = "BFTL, top two levels cached, inserts";
const BFTL2_S: &str = "BFTL, top two levels cached, searches";

/// Memory for a cache of `x` nodes of 8 KiB beside a 32-node write buffer
/// and the two nodes a split holds, with 16 KiB for everything else.
fn cache_memory(x: &str, _quick: bool) -> Vec<(&'static str, String)> {
    let nodes: u64 = x.parse().unwrap_or(0);
    vec![("memory", ((32 + 2 + nodes) * 8192 + 16384).to_string())]
}

/// `series`' time with 160 cache nodes over its time with none.
fn gain(series: &'static str) -> Measure {
    Measure::AcrossX {
        series,
        x_a: "160",
        x_b: "0",
        metric: "time_us_per_op",
    }
}

/// How much more a 160-node cache speeds `a` than `b` ("a similar rate": 1).
fn similar(a: &'static str, b: &'static str) -> Measure {
    Measure::Quotient(Box::new(gain(a)), Box::new(gain(b)))
}

fn published() -> Vec<Published> {
    vec![
        row(FIG13, "AS B-tree, insert time with 160 cache nodes / with none (\"each index structure achieved improved performance\")", 1.0, below(gain(AS_I))),
        row(FIG13, "B+-tree, insert time with 160 cache nodes / with none (\"each index structure achieved improved performance\")", 1.0, below(gain(BP_I))),
        row(FIG13, "BFTL, insert time with 160 cache nodes / with none (\"each index structure achieved improved performance\")", 1.0, below(gain(BFTL_I))),
        row(FIG13, "AS B-tree over B+-tree, how much a 160-node cache speeds inserts (\"improved at a similar rate\")", 1.0, similar(AS_I, BP_I)),
        row(FIG13, "AS B-tree over BFTL, how much a 160-node cache speeds inserts (\"improved at a similar rate\")", 1.0, similar(AS_I, BFTL_I)),
        row(FIG14, "AS B-tree, search time with 160 cache nodes / with none (\"also improved\")", 1.0, below(gain(AS_S))),
        row(FIG14, "B+-tree, search time with 160 cache nodes / with none (\"also improved\")", 1.0, below(gain(BP_S))),
        row(FIG14, "BFTL, search time with 160 cache nodes / with none (\"also improved\")", 1.0, below(gain(BFTL_S))),
        row(FIG14, "AS B-tree over B+-tree, how much a 160-node cache speeds searches (\"improved at a rate similar\")", 1.0, similar(AS_S, BP_S)),
        row(FIG14, "AS B-tree over BFTL, how much a 160-node cache speeds searches (\"improved at a rate similar\")", 1.0, similar(AS_S, BFTL_S)),
        row(FIG14, "AS B-tree / B+-tree, search time with 80 cache nodes (§4.2: \"almost the same search performance as B+-tree\")", 1.0, super::asbtree::ratio(AS_S, BP_S, "80", "time_us_per_op")),
        row(FIG13, "AS B-tree over BFTL with its top two levels in RAM (not §4.1's setting), how much a 160-node cache speeds inserts", 1.0, similar(AS_I, BFTL2_I)).variant(),
        row(FIG14, "AS B-tree over BFTL with its top two levels in RAM (not §4.1's setting), how much a 160-node cache speeds searches", 1.0, similar(AS_S, BFTL2_S)).variant(),
    ]
}

pub(super) fn asbtree_fig13_14() -> Experiment {
    let insert = |name, index: &'static str, extra: &[(&'static str, &'static str)]| {
        let mut params = vec![("index", index)];
        params.extend_from_slice(extra);
        Series { name, params }
    };
    let search = |name, index: &'static str, extra: &[(&'static str, &'static str)]| {
        let mut params = vec![
            ("index", index),
            ("workload.insert", "0"),
            ("workload.search", "1"),
        ];
        params.extend_from_slice(extra);
        Series { name, params }
    };
    let asb_cache: &[(&str, &str)] = &[
        ("set.write_buffer", "32"),
        ("set.cache_nodes", AXIS_VALUE),
        ("set.subfile_bytes", PAPER_SUBFILE),
    ];
    let bp_cache: &[(&str, &str)] = &[
        ("set.write_buffer", "32"),
        ("set.cache", "lru"),
        ("set.cache_nodes", AXIS_VALUE),
    ];
    // §4.1's BFTL: no level kept in RAM, as in Figs. 9-12.
    let bftl_cache: &[(&str, &str)] = &[
        ("set.reservation_buffer", "256"),
        ("set.compaction_c", "3"),
        ("set.cache", "wt-lru"),
        ("set.cache_nodes", AXIS_VALUE),
        ("set.cached_levels", "0"),
    ];
    let bftl2_cache: &[(&str, &str)] = &[
        ("set.reservation_buffer", "256"),
        ("set.compaction_c", "3"),
        ("set.cache", "wt-lru"),
        ("set.cache_nodes", AXIS_VALUE),
        ("set.cached_levels", "2"),
    ];
    let mut fixed = fixed_41(INSERTS);
    fixed.push(("set.fanout", "256"));
    Experiment {
        id: "asbtree-fig13-14",
        title: "Inserts (Fig. 13) and searches (Fig. 14) against the LRU buffer cache's size",
        source: "Kim et al. 2014 §4.1, Figs. 13-14",
        paper_ran: "F = 256, 8 KB nodes, 100,000 inserts (Fig. 13) or searches (Fig. 14) with an LRU buffer cache of a growing number of nodes; AS B-tree, B+-tree and BFTL (§4.1's BFTL: reservation buffer F, C = 3).",
        we_ran: "As asbtree-fig9 at F = 256 with a 32-node write buffer (a node one request), and memory for the write buffer, two split nodes, 16 KiB of the rest and x cache nodes of 8 KiB: each index's LRU cache holds x nodes (`cache_nodes`: the AS B-tree's and BFTL's write-through, the B+-tree's write-back into its write buffer); BFTL with no level kept in RAM, as in every other §4.1 experiment (`cached_levels=0`), and as a variant with its top two levels in RAM (`cached_levels=2`, this experiment's setting before issue #44).",
        axis: Axis {
            param: "cache_nodes",
            label: "LRU buffer cache (nodes)",
            full: vec!["0", "10", "20", "40", "80", "160"],
            quick: vec!["0", "160"],
            expand: Some(cache_memory),
        },
        series: vec![
            insert(AS_I, "asbtree", asb_cache),
            insert(BP_I, "btree", bp_cache),
            insert(BFTL_I, "bftl", bftl_cache),
            search(AS_S, "asbtree", asb_cache),
            search(BP_S, "btree", bp_cache),
            search(BFTL_S, "bftl", bftl_cache),
            insert(BFTL2_I, "bftl", bftl2_cache),
            search(BFTL2_S, "bftl", bftl2_cache),
        ],
        fixed,
        quick: QUICK_41.to_vec(),
        panels: vec![Panel::of("time_us_per_op", "time per operation (microseconds)")],
        chart: Chart::Lines,
        published: published(),
        notes: NOTES,
        kind: RunKind::Index,
        axis_for: vec![(BFTL2_I, vec!["0", "160"], vec!["0", "160"]), (BFTL2_S, vec!["0", "160"], vec!["0", "160"])],
    }
}

const NOTES: &str = "The figures print no numbers; the rows check that a cache helps each index (Fig. 13: \"each index structure achieved improved performance\"), at a similar rate (how much more a 160-node cache speeds the AS B-tree than another index: 1 is the same rate), and that the AS B-tree's searches keep pace with the B+-tree's. A cache of x nodes holds x of the tree's 1,900 to 2,100 nodes of 5,128 bytes (one request each): the upper levels first. The B+-tree's cache is write-back (it also absorbs rewrites), the AS B-tree's and BFTL's write-through. BFTL now runs as every other §4.1 experiment runs it, with no level kept in RAM (`cached_levels=0`; issue #44): a cache then holds its upper levels as it holds the AS B-tree's. At full scale (2026-12-06, `flashix reproduce asbtree-fig13-14 --out /tmp/asb-full`), from no cache to 160 nodes, inserts: AS B-tree 175 to 87 microseconds (0.50), B+-tree 497 to 384 (0.77), BFTL 454 to 285 (0.63); searches: 128 to 40 (0.31), 128 to 40 (0.31), 168 to 65 (0.39); at 80 nodes the two trees search alike (0.99). The variant rows keep this experiment's old setting, BFTL's top two levels in RAM (`cached_levels=2`, Wu et al. 2003 §5.1's default): below 160 cache nodes the budget does not hold those levels beside BFTL's tables and they are shed (`cached_levels_shed`), so that setting ran as no cached level up to 80 nodes and gives about the same rates (inserts 454 to 288, searches 168 to 65). --quick holds the whole tree in 160 nodes, so some ratios there divide by 0.";
