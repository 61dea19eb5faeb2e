//! The headline rows of `mbtree-fig7-14` (Roh et al. 2009 §6.2, Figs.
//! 7-14) and the variant series they read: one row a statement of §6.2,
//! a statement checked over the sweep as one row (`Measure::Each`), and
//! the runs that move or decompose its misses as variant rows.

use super::run_params::FLASHDB_BUDGET;
use super::{below, Measure, Published, RowKind, Series};

/// The sweep of Figs. 7-14 (entries inserted), for the statements that
/// hold "while all the indexes showed a linear increase": over every point.
pub(super) const SWEEP: [&str; 10] = [
    "100000", "200000", "300000", "400000", "500000", "600000", "700000", "800000", "900000",
    "1000000",
];

/// The five indexes of §6.2 on each workload, as `Measure::Rank` ranks them.
const DNA: [&str; 5] = [
    "MB-Tree (DNA)",
    "B-Tree(LRU) (DNA)",
    "B-Tree (DNA)",
    "FlashDB (DNA)",
    "BFTL (DNA)",
];
const SYN: [&str; 5] = [
    "MB-Tree (synthetic)",
    "B-Tree(LRU) (synthetic)",
    "B-Tree (synthetic)",
    "FlashDB (synthetic)",
    "BFTL (synthetic)",
];

/// FlashDB whose log-mode inserts append without reading the leaf
/// (`log_insert_reads_leaf=false`).
const UNREAD: &str = "FlashDB, log-mode inserts unread (DNA)";
/// The same with every internal level in RAM (`cached_levels=3`): what is
/// left is the reading of the leaves' lists that compactions do.
const UNREAD_CACHED: &str = "FlashDB, log-mode inserts unread, three cached levels (DNA)";
/// The five indexes with FlashDB replaced by [`UNREAD`] or [`UNREAD_CACHED`].
const DNA_UNREAD: [&str; 5] = [
    "MB-Tree (DNA)",
    "B-Tree(LRU) (DNA)",
    "B-Tree (DNA)",
    UNREAD,
    "BFTL (DNA)",
];
const DNA_UNREAD_CACHED: [&str; 5] = [
    "MB-Tree (DNA)",
    "B-Tree(LRU) (DNA)",
    "B-Tree (DNA)",
    UNREAD_CACHED,
    "BFTL (DNA)",
];

/// The variant series: each changes one parameter of FlashDB or BFTL
/// that the paper states (C = 3) or leaves open (their cached top levels,
/// whether a log-mode insert reads its leaf).
pub(super) fn variant_series(dna: &'static str) -> Vec<Series> {
    let flashdb = |name, set: (&'static str, &'static str)| Series {
        name,
        params: vec![
            ("index", "flashdb"),
            ("memory", FLASHDB_BUDGET),
            set,
            ("workload", dna),
        ],
    };
    let mut series = vec![
        // Lists of at most two sectors.
        flashdb("FlashDB, C = 2 (DNA)", ("set.compaction_c", "2")),
        // The top-level caching both keep from Wu et al. 2003 §5.1.
        flashdb(
            "FlashDB, one cached level (DNA)",
            ("set.cached_levels", "1"),
        ),
        Series {
            name: "BFTL, no cached levels (DNA)",
            params: vec![
                ("index", "bftl"),
                ("memory", "65536"),
                ("set.cached_levels", "0"),
                ("workload", dna),
            ],
        },
        flashdb(UNREAD, ("set.log_insert_reads_leaf", "false")),
    ];
    let mut cached = flashdb(UNREAD_CACHED, ("set.log_insert_reads_leaf", "false"));
    cached.params.push(("set.cached_levels", "3"));
    series.push(cached);
    series
}

/// `metric` of the MB-Tree on the genome over that of `b`, averaged over
/// the sweep.
fn of_mbtree(b: &'static str, metric: &'static str) -> Measure {
    Measure::MeanCellRatio {
        a: "MB-Tree (DNA)",
        b,
        metric,
    }
}

fn ratio(name: &'static str, source: &'static str, value: f64, m: Measure) -> Published {
    Published {
        name,
        source,
        value,
        unit: "ratio",
        measured: m,
        kind: RowKind::Claim,
    }
}

/// A rank §6.2 states, checked at every point of the sweep.
fn rank(
    name: &'static str,
    source: &'static str,
    value: f64,
    series: &'static str,
    metric: &'static str,
    among: &'static [&'static str],
) -> Published {
    Published {
        name,
        source,
        value,
        unit: "rank",
        measured: Measure::Each {
            xs: &SWEEP,
            inner: Box::new(Measure::Rank {
                series,
                x: SWEEP[0],
                metric,
                among,
            }),
        },
        kind: RowKind::Claim,
    }
}

const W: &str = "Roh et al. 2009 §6.2, Figs. 11-12";
const R: &str = "Roh et al. 2009 §6.2, Figs. 9-10";
const S: &str = "Roh et al. 2009 §6.2, Figs. 13-14";
const IR: &str = "insert.page_reads";
const IW: &str = "insert.page_writes";
const SR: &str = "search.page_reads";

/// The rows of `mbtree-fig7-14`.
pub(super) fn published() -> Vec<Published> {
    let mut rows = real_ratios();
    rows.extend(synthetic_ratios());
    rows.extend(ranks());
    rows.extend(real_against_synthetic());
    rows.extend(fig7_fig8());
    rows.extend(variants());
    rows
}

/// The ratios §6.2 gives "for real workloads" (inserts) and for the
/// searches.
fn real_ratios() -> Vec<Published> {
    [
        (
            "MB-Tree / FlashDB, insert page writes (real)",
            W,
            0.16,
            "FlashDB (DNA)",
            IW,
        ),
        (
            "MB-Tree / B-Tree(LRU), insert page writes (real)",
            W,
            0.09,
            "B-Tree(LRU) (DNA)",
            IW,
        ),
        (
            "MB-Tree / B-Tree, insert page writes (real)",
            W,
            0.07,
            "B-Tree (DNA)",
            IW,
        ),
        (
            "MB-Tree / BFTL, insert page writes (real)",
            W,
            0.14,
            "BFTL (DNA)",
            IW,
        ),
        (
            "MB-Tree / FlashDB, insert page reads (real)",
            R,
            0.40,
            "FlashDB (DNA)",
            IR,
        ),
        (
            "MB-Tree / B-Tree(LRU), insert page reads (real)",
            R,
            0.21,
            "B-Tree(LRU) (DNA)",
            IR,
        ),
        (
            "MB-Tree / B-Tree, insert page reads (real)",
            R,
            0.05,
            "B-Tree (DNA)",
            IR,
        ),
        (
            "MB-Tree / BFTL, insert page reads (real)",
            R,
            0.02,
            "BFTL (DNA)",
            IR,
        ),
        (
            "MB-Tree / FlashDB, search page reads",
            S,
            0.94,
            "FlashDB (DNA)",
            SR,
        ),
        (
            "MB-Tree / B-Tree(LRU), search page reads",
            S,
            1.91,
            "B-Tree(LRU) (DNA)",
            SR,
        ),
        (
            "MB-Tree / B-Tree, search page reads",
            S,
            0.48,
            "B-Tree (DNA)",
            SR,
        ),
        (
            "MB-Tree / BFTL, search page reads",
            S,
            0.20,
            "BFTL (DNA)",
            SR,
        ),
    ]
    .into_iter()
    .map(|(name, source, value, b, metric)| ratio(name, source, value, of_mbtree(b, metric)))
    .collect()
}

/// The same ratios on the synthetic keys. The search ratios follow "There
/// is no significant difference between the results of synthetic and real
/// workload experiments" with no workload named: claims. The insert ratios
/// are given "For real workloads" and "With real workloads": checked on the
/// synthetic keys they are variants.
fn synthetic_ratios() -> Vec<Published> {
    let syn = "Roh et al. 2009 §6.2, Figs. 9, 11 (the ratios given for real workloads)";
    let syn_search = "Roh et al. 2009 §6.2, Fig. 13 (\"no significant difference\")";
    [
        (
            "MB-Tree / FlashDB, insert page writes (synthetic)",
            0.16,
            "FlashDB (synthetic)",
            IW,
        ),
        (
            "MB-Tree / B-Tree(LRU), insert page writes (synthetic)",
            0.09,
            "B-Tree(LRU) (synthetic)",
            IW,
        ),
        (
            "MB-Tree / B-Tree, insert page writes (synthetic)",
            0.07,
            "B-Tree (synthetic)",
            IW,
        ),
        (
            "MB-Tree / BFTL, insert page writes (synthetic)",
            0.14,
            "BFTL (synthetic)",
            IW,
        ),
        (
            "MB-Tree / FlashDB, insert page reads (synthetic)",
            0.40,
            "FlashDB (synthetic)",
            IR,
        ),
        (
            "MB-Tree / B-Tree(LRU), insert page reads (synthetic)",
            0.21,
            "B-Tree(LRU) (synthetic)",
            IR,
        ),
        (
            "MB-Tree / B-Tree, insert page reads (synthetic)",
            0.05,
            "B-Tree (synthetic)",
            IR,
        ),
        (
            "MB-Tree / BFTL, insert page reads (synthetic)",
            0.02,
            "BFTL (synthetic)",
            IR,
        ),
        (
            "MB-Tree / FlashDB, search page reads (synthetic)",
            0.94,
            "FlashDB (synthetic)",
            SR,
        ),
        (
            "MB-Tree / B-Tree(LRU), search page reads (synthetic)",
            1.91,
            "B-Tree(LRU) (synthetic)",
            SR,
        ),
        (
            "MB-Tree / B-Tree, search page reads (synthetic)",
            0.48,
            "B-Tree (synthetic)",
            SR,
        ),
        (
            "MB-Tree / BFTL, search page reads (synthetic)",
            0.20,
            "BFTL (synthetic)",
            SR,
        ),
    ]
    .into_iter()
    .map(|(name, value, b, metric)| {
        let m = Measure::MeanCellRatio {
            a: "MB-Tree (synthetic)",
            b,
            metric,
        };
        if metric == SR {
            ratio(name, syn_search, value, m)
        } else {
            ratio(name, syn, value, m).variant()
        }
    })
    .collect()
}

/// The orders §6.2 states "for both real and synthetic workloads", over
/// the sweep of each figure: one row a place of the order.
fn ranks() -> Vec<Published> {
    const RD: &[&str] = &DNA;
    const RS: &[&str] = &SYN;
    vec![
        rank(
            "insert page reads, real: MB-Tree's rank (the smallest)",
            R,
            1.0,
            "MB-Tree (DNA)",
            IR,
            RD,
        ),
        rank(
            "insert page reads, real: FlashDB's rank",
            R,
            2.0,
            "FlashDB (DNA)",
            IR,
            RD,
        ),
        rank(
            "insert page reads, real: B-Tree(LRU)'s rank",
            R,
            3.0,
            "B-Tree(LRU) (DNA)",
            IR,
            RD,
        ),
        rank(
            "insert page reads, real: B-Tree's rank",
            R,
            4.0,
            "B-Tree (DNA)",
            IR,
            RD,
        ),
        rank(
            "insert page reads, real: BFTL's rank",
            R,
            5.0,
            "BFTL (DNA)",
            IR,
            RD,
        ),
        rank(
            "insert page reads, synthetic: MB-Tree's rank (the smallest)",
            R,
            1.0,
            "MB-Tree (synthetic)",
            IR,
            RS,
        ),
        rank(
            "insert page reads, synthetic: FlashDB's rank",
            R,
            2.0,
            "FlashDB (synthetic)",
            IR,
            RS,
        ),
        rank(
            "insert page reads, synthetic: B-Tree(LRU)'s rank",
            R,
            3.0,
            "B-Tree(LRU) (synthetic)",
            IR,
            RS,
        ),
        rank(
            "insert page reads, synthetic: B-Tree's rank",
            R,
            4.0,
            "B-Tree (synthetic)",
            IR,
            RS,
        ),
        rank(
            "insert page reads, synthetic: BFTL's rank",
            R,
            5.0,
            "BFTL (synthetic)",
            IR,
            RS,
        ),
        rank(
            "insert page writes, real: MB-Tree's rank (the smallest)",
            W,
            1.0,
            "MB-Tree (DNA)",
            IW,
            RD,
        ),
        rank(
            "insert page writes, real: FlashDB's rank",
            W,
            2.0,
            "FlashDB (DNA)",
            IW,
            RD,
        ),
        rank(
            "insert page writes, real: BFTL's rank",
            W,
            3.0,
            "BFTL (DNA)",
            IW,
            RD,
        ),
        rank(
            "insert page writes, real: B-Tree(LRU)'s rank",
            W,
            4.0,
            "B-Tree(LRU) (DNA)",
            IW,
            RD,
        ),
        rank(
            "insert page writes, real: B-Tree's rank",
            W,
            5.0,
            "B-Tree (DNA)",
            IW,
            RD,
        ),
        rank(
            "insert page writes, synthetic: MB-Tree's rank (the smallest)",
            W,
            1.0,
            "MB-Tree (synthetic)",
            IW,
            RS,
        ),
        rank(
            "insert page writes, synthetic: FlashDB's rank",
            W,
            2.0,
            "FlashDB (synthetic)",
            IW,
            RS,
        ),
        rank(
            "insert page writes, synthetic: BFTL's rank",
            W,
            3.0,
            "BFTL (synthetic)",
            IW,
            RS,
        ),
        rank(
            "insert page writes, synthetic: B-Tree(LRU)'s rank",
            W,
            4.0,
            "B-Tree(LRU) (synthetic)",
            IW,
            RS,
        ),
        rank(
            "insert page writes, synthetic: B-Tree's rank",
            W,
            5.0,
            "B-Tree (synthetic)",
            IW,
            RS,
        ),
    ]
}

/// §6.2 on the two workloads: page reads show "no significant
/// difference" (Figs. 9-10, 13-14: a real / synthetic ratio of 1, within
/// the factor), and "the page-writes of the MB-Tree, flashDB, B-Tree
/// (LRU), and BFTL slightly decreased" on the real one (Figs. 11-12; the
/// B-Tree, with no write-back buffer, is not named). No variant series
/// runs synthetic keys, so only the five main indexes are compared.
fn real_against_synthetic() -> Vec<Published> {
    let same = "Roh et al. 2009 §6.2 (\"no significant difference\" between synthetic and real), Figs. 9-10, 13-14";
    let fewer =
        "Roh et al. 2009 §6.2 (real workloads' page-writes \"slightly decreased\"), Figs. 11-12";
    let mut rows: Vec<Published> = [
        (
            "MB-Tree insert page reads, real / synthetic",
            "MB-Tree (DNA)",
            "MB-Tree (synthetic)",
            IR,
        ),
        (
            "FlashDB insert page reads, real / synthetic",
            "FlashDB (DNA)",
            "FlashDB (synthetic)",
            IR,
        ),
        (
            "B-Tree(LRU) insert page reads, real / synthetic",
            "B-Tree(LRU) (DNA)",
            "B-Tree(LRU) (synthetic)",
            IR,
        ),
        (
            "B-Tree insert page reads, real / synthetic",
            "B-Tree (DNA)",
            "B-Tree (synthetic)",
            IR,
        ),
        (
            "BFTL insert page reads, real / synthetic",
            "BFTL (DNA)",
            "BFTL (synthetic)",
            IR,
        ),
        (
            "MB-Tree search page reads, real / synthetic",
            "MB-Tree (DNA)",
            "MB-Tree (synthetic)",
            SR,
        ),
        (
            "FlashDB search page reads, real / synthetic",
            "FlashDB (DNA)",
            "FlashDB (synthetic)",
            SR,
        ),
        (
            "B-Tree(LRU) search page reads, real / synthetic",
            "B-Tree(LRU) (DNA)",
            "B-Tree(LRU) (synthetic)",
            SR,
        ),
        (
            "B-Tree search page reads, real / synthetic",
            "B-Tree (DNA)",
            "B-Tree (synthetic)",
            SR,
        ),
        (
            "BFTL search page reads, real / synthetic",
            "BFTL (DNA)",
            "BFTL (synthetic)",
            SR,
        ),
    ]
    .into_iter()
    .map(|(name, a, b, metric)| ratio(name, same, 1.0, Measure::MeanCellRatio { a, b, metric }))
    .collect();
    rows.extend(
        [
            (
                "MB-Tree insert page writes, real / synthetic (\"slightly decreased\")",
                "MB-Tree (DNA)",
                "MB-Tree (synthetic)",
            ),
            (
                "FlashDB insert page writes, real / synthetic",
                "FlashDB (DNA)",
                "FlashDB (synthetic)",
            ),
            (
                "B-Tree(LRU) insert page writes, real / synthetic",
                "B-Tree(LRU) (DNA)",
                "B-Tree(LRU) (synthetic)",
            ),
            (
                "BFTL insert page writes, real / synthetic",
                "BFTL (DNA)",
                "BFTL (synthetic)",
            ),
        ]
        .into_iter()
        .map(|(name, a, b)| below(name, fewer, Measure::MeanCellRatio { a, b, metric: IW })),
    );
    // "None of B-Tree variants proposed for reducing page-writes on flash
    // memory showed superior performance to the B-Tree (LRU) with respect
    // to search operations" (the MB-Tree's is its 1.91 row).
    let none = "Roh et al. 2009 §6.2 (\"None of B-Tree variants ... superior ... to the B-Tree (LRU)\" in searches), Figs. 13-14";
    rows.extend(
        [
            (
                "B-Tree(LRU) / FlashDB, search page reads (real)",
                "B-Tree(LRU) (DNA)",
                "FlashDB (DNA)",
            ),
            (
                "B-Tree(LRU) / BFTL, search page reads (real)",
                "B-Tree(LRU) (DNA)",
                "BFTL (DNA)",
            ),
            (
                "B-Tree(LRU) / FlashDB, search page reads (synthetic)",
                "B-Tree(LRU) (synthetic)",
                "FlashDB (synthetic)",
            ),
            (
                "B-Tree(LRU) / BFTL, search page reads (synthetic)",
                "B-Tree(LRU) (synthetic)",
                "BFTL (synthetic)",
            ),
        ]
        .into_iter()
        .map(|(name, a, b)| below(name, none, Measure::MeanCellRatio { a, b, metric: SR })),
    );
    rows
}

/// Fig. 7's memory and Fig. 8's leaf node sizes.
fn fig7_fig8() -> Vec<Published> {
    let fig8 = "Roh et al. 2009 §6.2, Fig. 8";
    let mean = |name, value, series, metric| Published {
        name,
        source: fig8,
        value,
        unit: "pages",
        measured: Measure::Mean { series, metric },
        kind: RowKind::Claim,
    };
    let leaf = "index.leaf_size_avg";
    vec![
        Published {
            name: "FlashDB memory at 200,000 entries (real)",
            source: "Roh et al. 2009 §6.3 (\"the maximum main memory space 60 kbytes\"), Fig. 7",
            value: 61_440.0,
            unit: "bytes",
            measured: Measure::Cell {
                series: "FlashDB (DNA)",
                x: "200000",
                metric: "memory_peak_bytes",
            },
            kind: RowKind::Claim,
        },
        ratio(
            "BFTL memory / FlashDB memory (real)",
            "Roh et al. 2009 §6.2, Fig. 7",
            1.75,
            Measure::MeanCellRatio {
                a: "BFTL (DNA)",
                b: "FlashDB (DNA)",
                metric: "memory_peak_bytes",
            },
        ),
        mean("MB-Tree leaf node size, synthetic", 8.01, "MB-Tree (synthetic)", leaf),
        mean("its standard deviation, synthetic", 0.62, "MB-Tree (synthetic)", "index.leaf_size_std"),
        mean("MB-Tree leaf node size, real", 7.23, "MB-Tree (DNA)", leaf),
        mean("its standard deviation, real", 1.06, "MB-Tree (DNA)", "index.leaf_size_std"),
        below(
            "MB-Tree leaf node size, real / synthetic (\"one page smaller\")",
            "Roh et al. 2009 §6.2, Fig. 8 (real: \"one page smaller than the synthetic workloads\")",
            Measure::MeanCellRatio {
                a: "MB-Tree (DNA)",
                b: "MB-Tree (synthetic)",
                metric: leaf,
            },
        ),
        ratio(
            "MB-Tree leaf node size at 1,000,000 / at 100,000 entries, real (\"not significantly affected\")",
            "Roh et al. 2009 §6.2, Fig. 8",
            1.0,
            Measure::AcrossX {
                series: "MB-Tree (DNA)",
                x_a: "1000000",
                x_b: "100000",
                metric: leaf,
            },
        ),
        ratio(
            "the same, synthetic",
            "Roh et al. 2009 §6.2, Fig. 8",
            1.0,
            Measure::AcrossX {
                series: "MB-Tree (synthetic)",
                x_a: "1000000",
                x_b: "100000",
                metric: leaf,
            },
        ),
    ]
}

/// The claims that miss, rerun with one parameter changed: FlashDB at
/// C = 2, with one cached level, with log-mode inserts that do not read
/// their leaf (and with every internal level cached besides); BFTL with
/// no cached level.
fn variants() -> Vec<Published> {
    const RU: &[&str] = &DNA_UNREAD;
    const RUC: &[&str] = &DNA_UNREAD_CACHED;
    let c2 = "FlashDB, C = 2 (DNA)";
    let bftl0 = "BFTL, no cached levels (DNA)";
    let unread = "Roh et al. 2009 §6.2, Figs. 9-10 (log mode \"logs update-requests as does a BFTL node\", §2.3)";
    [
        ratio("MB-Tree / FlashDB at C = 2, insert page writes (real)", W, 0.16, of_mbtree(c2, IW)),
        ratio("MB-Tree / FlashDB at C = 2, insert page reads (real)", R, 0.40, of_mbtree(c2, IR)),
        ratio("MB-Tree / FlashDB at C = 2, search page reads", S, 0.94, of_mbtree(c2, SR)),
        ratio(
            "MB-Tree / FlashDB with one cached level, search page reads",
            S,
            0.94,
            of_mbtree("FlashDB, one cached level (DNA)", SR),
        ),
        ratio("MB-Tree / BFTL with no cached level, insert page reads (real)", R, 0.02, of_mbtree(bftl0, IR)),
        ratio("MB-Tree / BFTL with no cached level, search page reads", S, 0.20, of_mbtree(bftl0, SR)),
        ratio("MB-Tree / FlashDB with log-mode inserts unread, insert page reads (real)", unread, 0.40, of_mbtree(UNREAD, IR)),
        ratio("MB-Tree / FlashDB with log-mode inserts unread, search page reads", S, 0.94, of_mbtree(UNREAD, SR)),
        rank("insert page reads, real: FlashDB's rank, log-mode inserts unread", unread, 2.0, UNREAD, IR, RU),
        ratio(
            "MB-Tree / FlashDB with log-mode inserts unread and three cached levels, insert page reads (real)",
            unread,
            0.40,
            of_mbtree(UNREAD_CACHED, IR),
        ),
        rank(
            "insert page reads, real: FlashDB's rank, log-mode inserts unread, three cached levels",
            unread,
            2.0,
            UNREAD_CACHED,
            IR,
            RUC,
        ),
    ]
    .into_iter()
    .map(Published::variant)
    .collect()
}
