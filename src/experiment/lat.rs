//! The experiments of the Buffered-B+ tree (Lazy-Adaptive tree) paper
//! (Agrawal et al. 2009):
//!
//! * `lat-fig6` (§6.1, Fig. 6): the delta schemes (Basic Delta, BFTL, IPL,
//!   Consolidation) against a tuned B+-tree, energy per operation.
//! * `lat-fig6-fanout` (§6.1): the best fanout of each scheme, which Fig. 6
//!   uses.
//! * `lat-fig12b` (§6.3.6, Fig. 12(b)): B+-tree fanout on byte-level flash.
//!
//! Every claim row runs the paper's node layout (§6.3.6: "each key-pointer
//! pair occupies 6 bytes and each node has a header of 4 bytes",
//! S(f) = 6f + 4; [`PAPER_NODES`]); our own node (12f + 16 bytes with
//! 4 + 4-byte entries) stays as variant rows where it moves a verdict.

use super::run_params::TABLES_OUTSIDE;
use super::{Axis, Chart, Experiment, Measure, Panel, Published, RowKind, RunKind, Series};

/// §6.3.6's node and entries: the simulation-only paper node format
/// (`node::paper`, S(f) = 6f + 4 bytes) and 6-byte key-pointer pairs
/// (2-byte keys: the `lat` keys are 1..10,000; 4-byte pointers).
pub(super) const PAPER_NODES: [(&str, &str); 2] =
    [("set.node_format", "paper"), ("set.key_bytes", "2")];

/// Our own node (a 16-byte checksummed frame, an 8-byte header, 4-byte
/// child ids and (key, value) separators: 12f + 16 bytes) with 4 + 4-byte
/// entries: the setting before the paper's node format, kept as variants.
pub(super) const OUR_NODES: [(&str, &str); 2] =
    [("set.node_format", "flashix"), ("set.key_bytes", "4")];

/// The five schemes of Agrawal et al. 2009 §6.1, Fig. 6, with the
/// given fanouts (`None`: the experiment's axis sets it).
fn lat_fig6_series(fanouts: Option<[&'static str; 3]>) -> Vec<Series> {
    let with = |mut p: Vec<(&'static str, &'static str)>, f: Option<&'static str>| {
        if let Some(f) = f {
            p.push(("set.fanout", f));
        }
        p
    };
    let [btree, delta, ipl] = match fanouts {
        Some([b, d, i]) => [Some(b), Some(d), Some(i)],
        None => [None, None, None],
    };
    vec![
        Series {
            name: "B+-tree",
            params: with(
                vec![
                    ("index", "btree"),
                    ("device", "raw:toshiba-byte"),
                    ("set.cache", "lru"),
                ],
                btree,
            ),
        },
        Series {
            name: "Basic Delta",
            params: with(vec![("index", "basic-delta")], delta),
        },
        Series {
            name: "BFTL",
            params: with(
                vec![
                    ("index", "bftl"),
                    ("set.reservation_buffer", "60"),
                    ("set.cache", "wt-lru"),
                    ("set.cached_levels", "0"),
                ],
                delta,
            ),
        },
        Series {
            name: "IPL",
            params: with(vec![("index", "ipl"), ("device", "raw:toshiba-byte")], ipl),
        },
        Series {
            name: "Consolidation",
            params: with(vec![("index", "consolidation")], delta),
        },
    ]
}

const LAT_FIG6_WE_RAN: &str = "On the Toshiba part with byte-level costs (`toshiba-byte`, 8,192 blocks = 128 MiB, nop = 1), 64 KiB of memory per index for caches and buffers (`tables=outside`: node tables and BFTL's node translation table, the data-bound tables, stand beside the budget as §6 keeps the node table out, and are named in the Memory line); nodes in the paper's layout (`node_format=paper`: S(f) = 6f + 4 bytes, §6.3.6, a simulation-only format) and 6-byte key-pointer pairs (`key_bytes=2`): `btree` in the node log of §5.2 on the raw chip with an LRU cache; `ipl` on the raw chip (erase blocks of 16 node pages + 16 log pages, a quarter of the memory as log buffers, the rest node cache); `basic-delta`, `consolidation` and `bftl` (reservation buffer 60, the rest of the memory an LRU node cache as §6.1 says) over the page-mapping FTL on the same part, since they write a log of logical pages. The `lat` workload: 50,000-key preload, then inserts and lookups at ratio q until 200,000 inserts (--quick: 5,000 and 10,000); keys i.i.d. uniform in 1..10,000 (repeated keys are distinct entries); energy per measured operation. Every run ends with a flush charged as its own row; the headline is the paper's accounting (the flush row left out), the durable number beside it. The Buffered-B+ tree (`latree` at its defaults: fanout 16, subtree height 2, Adapt-Simple, 25% node cache, on the raw chip) runs beside them for the abstract's \"upto 20x\". The `our node` series run the five schemes at q = 25% in our own node format (12f + 16 bytes, 4 + 4-byte entries), the setting before.";

/// lat-fig6's schemes as the paper ran them, with the two variants that
/// move our misses (see the experiment's notes), and in our own node
/// format.
const FIG6_AS_PAPER: &[&str] = &["B+-tree", "Basic Delta", "BFTL", "IPL", "Consolidation"];
const FIG6_VARIANTS: &[&str] = &[
    "B+-tree",
    "Basic Delta",
    "BFTL, C = 2",
    "IPL, fanout 16",
    "Consolidation",
];
const FIG6_OUR_NODES: &[&str] = &[
    "B+-tree, our node",
    "Basic Delta, our node",
    "BFTL, our node",
    "IPL, our node",
    "Consolidation, our node",
];
/// Fig. 6's lookup-to-insert ratios.
const FIG6_QS: &[&str] = &["0.01", "0.25", "0.5", "1", "1.5", "2"];

pub(super) fn lat_fig6() -> Experiment {
    let ranked = |name, series, value, among| Published {
        name,
        source: "Agrawal et al. 2009 §6.1, Fig. 6 (ordering in the text)",
        value,
        unit: "rank",
        measured: Measure::Rank {
            series,
            x: "0.25",
            metric: "energy_uj_per_op",
            among,
        },
        kind: RowKind::Claim,
    };
    let rank = |name, series, value| ranked(name, series, value, FIG6_AS_PAPER);
    let variant = |name, series, value| ranked(name, series, value, FIG6_VARIANTS).variant();
    let ours = |name, series, value| ranked(name, series, value, FIG6_OUR_NODES).variant();
    let mut series = lat_fig6_series(Some(["8", "16", "84"]));
    let old: Vec<Series> = series
        .iter()
        .zip(FIG6_OUR_NODES)
        .map(|(s, &name)| {
            let mut s = s.clone();
            s.name = name;
            s.params.extend_from_slice(&OUR_NODES);
            s
        })
        .collect();
    series.push(Series {
        name: "BFTL, C = 2",
        params: vec![
            ("index", "bftl"),
            ("set.reservation_buffer", "60"),
            ("set.cache", "wt-lru"),
            ("set.cached_levels", "0"),
            ("set.fanout", "16"),
            ("set.compaction_c", "2"),
        ],
    });
    series.push(Series {
        name: "Buffered-B+ tree",
        params: vec![("index", "latree"), ("device", "raw:toshiba-byte")],
    });
    series.push(Series {
        name: "IPL, fanout 16",
        params: vec![
            ("index", "ipl"),
            ("device", "raw:toshiba-byte"),
            ("set.fanout", "16"),
        ],
    });
    series.extend(old);
    Experiment {
        id: "lat-fig6",
        title: "Delta schemes vs a tuned B+-tree: energy per operation",
        source: "Agrawal et al. 2009 §6.1, Fig. 6",
        paper_ran: "Basic Delta, BFTL, IPL and Consolidation below a B+-tree, each at its best fanout (16 for the delta schemes, 84 for IPL), against a B+-tree of fanout 8 in a node log; nodes of 6f + 4 bytes (§6.3.6); the Toshiba 1 Gb small-block NAND with byte-level costs (Table 1); 64 KB of memory; a 50,000-key tree, then lookups and insertions at lookup-to-insert ratio q from 1% to 200% until 200,000 insertions; keys i.i.d. uniform in 1..10,000; energy per operation.",
        we_ran: LAT_FIG6_WE_RAN,
        axis: Axis {
            param: "workload.search",
            label: "lookup-to-insert ratio q",
            full: FIG6_QS.to_vec(),
            quick: vec!["0.01", "0.25", "2"],
            expand: None,
        },
        series,
        fixed: {
            let mut f = vec![
                ("device", "toshiba-byte"),
                ("device.blocks", "8192"),
                ("memory", "65536"),
                TABLES_OUTSIDE,
                ("workload", "lat"),
                ("preload", "50000"),
                ("inserts", "200000"),
            ];
            f.extend_from_slice(&PAPER_NODES);
            f
        },
        quick: vec![("preload", "5000"), ("inserts", "10000")],
        panels: vec![
            Panel::of("energy_uj_per_op", "energy per operation (microjoules)"),
            Panel::of("page_reads", "flash page reads"),
            Panel::of("page_writes", "flash page writes"),
        ],
        chart: Chart::Lines,
        published: vec![
            // "The results show that a B+ tree with optimal fanout does
            // better than all the delta-based techniques" as q goes from
            // 1% to 200%: one claim, checked at every point.
            Published {
                name: "B+-tree: rank by energy among the five (1 = least), every q from 1% to 200%",
                source: "Agrawal et al. 2009 §6.1, Fig. 6",
                value: 1.0,
                unit: "rank",
                measured: Measure::Each {
                    xs: FIG6_QS,
                    inner: Box::new(Measure::Rank {
                        series: "B+-tree",
                        x: "0.25",
                        metric: "energy_uj_per_op",
                        among: FIG6_AS_PAPER,
                    }),
                },
                kind: RowKind::Claim,
            },
            rank("Consolidation: rank at q = 25% (best of the delta schemes)", "Consolidation", 2.0),
            rank("BFTL: rank (better than IPL and Basic Delta)", "BFTL", 3.0),
            rank("IPL: rank (better than Basic Delta)", "IPL", 4.0),
            rank("Basic Delta: rank (the worst)", "Basic Delta", 5.0),
            variant("with BFTL at C = 2 and IPL at fanout 16: B+-tree's rank", "B+-tree", 1.0),
            variant("... Consolidation's rank", "Consolidation", 2.0),
            variant("... BFTL's rank (C = 2)", "BFTL, C = 2", 3.0),
            variant("... IPL's rank (fanout 16)", "IPL, fanout 16", 4.0),
            variant("... Basic Delta's rank", "Basic Delta", 5.0),
            ours("our node format (12f + 16 bytes, 4 + 4-byte entries): B+-tree's rank", "B+-tree, our node", 1.0),
            ours("... Consolidation's rank", "Consolidation, our node", 2.0),
            ours("... BFTL's rank", "BFTL, our node", 3.0),
            ours("... IPL's rank", "IPL, our node", 4.0),
            ours("... Basic Delta's rank", "Basic Delta, our node", 5.0),
            Published {
                name: "Basic Delta (the worst delta scheme, §6.1) / Buffered-B+ tree, energy at q = 1% (abstract: \"upto 20x\" better than the alternatives)",
                source: "Agrawal et al. 2009 abstract, §1",
                value: 20.0,
                unit: "x",
                measured: Measure::CellRatio {
                    a: "Basic Delta",
                    b: "Buffered-B+ tree",
                    x: "0.01",
                    metric: "energy_uj_per_op",
                },
                kind: RowKind::Claim,
            },
        ],
        notes: "Fig. 6 prints no numbers; the text orders the schemes (B+-tree best at every q, then Consolidation, BFTL, IPL, Basic Delta worst), which the ranks encode at q = 25%. The claim rows run the paper's node layout (S(f) = 6f + 4, so IPL's fanout-84 node is 508 bytes and fits one page as in the paper); the `our node` rows rerun the five at q = 25% in our own format (12f + 16 bytes with 4 + 4-byte entries: IPL's fanout-84 node is 1,024 bytes and takes a 3-page slot), the setting before, and show what the node layout does to the order. The delta schemes over the FTL pay whole-page programs, while the node log and IPL on the raw chip program only the bytes they hold. Our delta records carry the child pointer of a separator and an operation byte (5 + 6 + 4 bytes with the paper's 6-byte entries), while BFTL's index units are the 24 bytes Wu et al. 2003 §4 needs for Λ = 20, and BFTL rewrites a split node as fanout − 1 units and compacts any node whose list passes C = 3; §6.1 does not say how its BFTL sized units or C. A rank that misses names its runs here: the C = 2 / fanout 16 rows rank the five with BFTL at C = 2 (compaction writes traded for shorter lists to read) and IPL at fanout 16 (fewer merges of its erase units) in place of the paper's settings, and the `our node` rows the node layout; which of them moves a miss is in their rows.",
        kind: RunKind::Index,
        axis_for: FIG6_OUR_NODES
            .iter()
            .map(|&n| (n, vec!["0.25"], vec!["0.25"]))
            .collect(),
    }
}

/// The claim that `series`' lowest energy per operation is at fanout
/// `value` (the sweep's argument of the minimum).
fn lowest_energy_fanout(
    name: &'static str,
    source: &'static str,
    series: &'static str,
    value: f64,
) -> Published {
    Published {
        name,
        source,
        value,
        unit: "",
        measured: Measure::ArgMin {
            series,
            metric: "energy_uj_per_op",
        },
        kind: RowKind::Claim,
    }
}

pub(super) fn lat_fig6_fanout() -> Experiment {
    let best =
        |name, series, value| lowest_energy_fanout(name, "Agrawal et al. 2009 §6.1", series, value);
    let mut fixed = vec![
        ("device", "toshiba-byte"),
        ("device.blocks", "8192"),
        ("memory", "65536"),
        TABLES_OUTSIDE,
        ("workload", "lat"),
        ("workload.search", "0.25"),
        ("preload", "50000"),
        ("inserts", "200000"),
    ];
    fixed.extend_from_slice(&PAPER_NODES);
    Experiment {
        id: "lat-fig6-fanout",
        title: "Delta schemes vs a B+-tree: the best fanout of each",
        source: "Agrawal et al. 2009 §6.1 (the fanouts Fig. 6 uses)",
        paper_ran: "Each scheme's fanout chosen as the one with the lowest cost (§6.1: 8 for the B+-tree, 16 for Basic Delta, BFTL and Consolidation, 84 for IPL); nodes of 6f + 4 bytes (§6.3.6); the setting of Fig. 6.",
        we_ran: "As lat-fig6 at q = 25% (the paper's node layout, 6f + 4 bytes), sweeping the fanout: 4 to 64 for the B+-tree, BFTL and the schemes whose base nodes must fit one page with their record header (Basic Delta, Consolidation: fanout 79 at most), and 8 to 128 for IPL, whose node slots may span pages.",
        axis: Axis {
            param: "set.fanout",
            label: "fanout",
            full: vec!["4", "8", "12", "16", "24", "32", "48", "64"],
            quick: vec!["4", "16", "64"],
            expand: None,
        },
        series: lat_fig6_series(None),
        fixed,
        quick: vec![("preload", "5000"), ("inserts", "10000")],
        panels: vec![Panel::of("energy_uj_per_op", "energy per operation (microjoules)")],
        chart: Chart::Lines,
        published: vec![
            best("B+-tree: best fanout", "B+-tree", 8.0),
            best("Basic Delta: best fanout", "Basic Delta", 16.0),
            best("BFTL: best fanout", "BFTL", 16.0),
            best("Consolidation: best fanout", "Consolidation", 16.0),
            best("IPL: best fanout", "IPL", 84.0),
        ],
        notes: "In the paper's node layout a fanout-84 node is 508 bytes, one 512-byte page, as §6.1 has it for IPL; a larger IPL node spans pages. A base record of Basic Delta and Consolidation (5 bytes of record header before the node, 24 of page header) fits a page up to fanout 79. A larger node takes a larger slot in IPL's erase units, so fewer nodes share an erase unit's node pages and units fill and merge sooner; lat-fig6's `IPL, fanout 16` series runs IPL at a small fanout beside the paper's 84.",
        kind: RunKind::Index,
        axis_for: vec![(
            "IPL",
            vec!["8", "16", "24", "38", "64", "84", "128"],
            vec!["8", "38", "84"],
        )],
    }
}

pub(super) fn lat_fig12b() -> Experiment {
    let best = |name, series, value| {
        lowest_energy_fanout(
            name,
            "Agrawal et al. 2009 §6.3.6, Fig. 12(b)",
            series,
            value,
        )
    };
    let mut fixed = vec![
        ("index", "btree"),
        ("device", "raw:toshiba-byte"),
        ("device.blocks", "8192"),
        ("memory", "65536"),
        TABLES_OUTSIDE,
        ("workload", "lat"),
        ("preload", "50000"),
        ("ops", "250000"),
    ];
    fixed.extend_from_slice(&PAPER_NODES);
    let with = |name,
                mut params: Vec<(&'static str, &'static str)>,
                extra: &[(&'static str, &'static str)]| {
        params.extend_from_slice(extra);
        Series { name, params }
    };
    Experiment {
        id: "lat-fig12b",
        title: "B+-tree fanout on byte-level flash: energy per operation",
        source: "Agrawal et al. 2009 §6.3.6, Fig. 12(b)",
        paper_ran: "A B+-tree with nodes packed into a log on the Toshiba small-block NAND (byte-level costs, Table 1), fanout 4 to 64, node size 6f + 4 bytes, 64 KB of memory for its LRU node cache; a 50,000-key tree, then 200,000 insertions mixed with lookups at a lookup-to-insert ratio of 25%, keys i.i.d. uniform in 1..10,000; energy per operation. The Buffered-B+ tree the same.",
        we_ran: "`btree` on `raw:toshiba-byte` (1,024 Mbit: 8,192 blocks), which stores nodes in the node log of §5.2 (packed, out of place, one program per page), cache=lru, 64 KiB budget (the node table excluded, as in the paper, and reported as node_table_bytes); nodes in the paper's layout (`node_format=paper`, S(f) = 6f + 4 bytes, a simulation-only format) with 6-byte key-pointer pairs (`key_bytes=2`); the `lat` workload (50,000-entry preload, 250,000 operations with lookups at 25% of inserts; --quick: 5,000 and 25,000); energy per measured operation. The Buffered-B+ tree (`latree` at its defaults but the fanout, which the axis sets) runs the same axis. The `our node` series run our own node format (12f + 16 bytes with 4 + 4-byte entries, nodes above 508 bytes spanning two log pages), the setting before; the `distinct keys` series draws keys from 1..10^9 (4-byte keys). Every run ends with a flush charged as its own row; the headline is the paper's accounting (the flush row left out), the durable number beside it.",
        axis: Axis {
            param: "set.fanout",
            label: "fanout",
            full: vec!["4", "6", "8", "10", "12", "16", "24", "32", "48", "64"],
            quick: vec!["4", "8", "16", "32", "64"],
            expand: None,
        },
        series: vec![
            with("B+-tree", vec![("set.cache", "lru")], &[]),
            with(
                "B+-tree, distinct keys",
                vec![("set.cache", "lru"), ("workload.key_max", "1000000000"), ("set.key_bytes", "4")],
                &[],
            ),
            with("Buffered-B+ tree", vec![("index", "latree"), ("final_flush", "true")], &[]),
            with("B+-tree, our node", vec![("set.cache", "lru")], &OUR_NODES),
            with(
                "Buffered-B+ tree, our node",
                vec![("index", "latree"), ("final_flush", "true")],
                &OUR_NODES,
            ),
        ],
        fixed,
        quick: vec![("preload", "5000"), ("ops", "25000")],
        panels: vec![
            Panel::of("energy_uj_per_op", "energy per operation (microjoules)"),
            Panel::of("page_reads", "flash page reads"),
        ],
        chart: Chart::Lines,
        published: vec![
            best("B+-tree: fanout with the lowest energy per operation", "B+-tree", 8.0),
            best("Buffered-B+ tree: fanout with the lowest energy per operation", "Buffered-B+ tree", 16.0),
            best(
                "B+-tree with distinct keys (a lookup reads one leaf, as §6.3.6's analysis assumes)",
                "B+-tree, distinct keys",
                8.0,
            )
            .variant(),
            best("B+-tree in our node format (12f + 16 bytes): best fanout", "B+-tree, our node", 8.0).variant(),
            best(
                "Buffered-B+ tree in our node format: best fanout",
                "Buffered-B+ tree, our node",
                16.0,
            )
            .variant(),
        ],
        notes: "§6.3.6's analysis minimises C(f)/log f with C(f) = 4.07 + 0.105·S(f) and S(f) = 6f + 4, which puts the optimum at f = 8; the claim rows run that node size. Our own node (12f + 16 bytes, the `our node` rows) doubles S(f), and the same analysis then puts the optimum lower, near f = 6. The analysis assumes a lookup reads one leaf; in the `lat` workload 250,000 entries share 10,000 keys, so a lookup returns about 25 values spread over several leaves and larger leaves pay off; the `distinct keys` row draws keys from 1..10^9, nearly all distinct, as the analysis assumes. Fig. 12(b) also draws the Buffered-B+ tree, whose optimum the text puts at 16: a lower fanout means more subtrees and more buffer emptyings. Measured (`flashix reproduce lat-fig12b --out /tmp/lat-full`, full scale, 2026-12-06, paper's accounting): the B+-tree's minimum at fanout 8 is a near tie with 10 (43.42 and 43.42 µJ an operation; 48.0 at 16); in our node format it is 73.8 µJ at 8 against 77.0 at 6 and 77.1 at 10. The Buffered-B+ tree's energy falls from 51.2 µJ at fanout 16 to 43.1 at 24 and 41.1 at 32 and rises again at 48 (51.3): in the paper's layout a node of fanout 32 is 196 bytes, so fewer, larger subtrees take fewer emptyings for about the bytes our fanout-16 node took; in our format its minimum is at 24 (61.0 against 64.2 at 16).",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
