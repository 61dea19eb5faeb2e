//! The AS B-tree paper's experiments (Kim et al. 2014 §4), on the `x25e`
//! SSD model (Table 1's X25-E curves; every request one 4 KiB page, as
//! Direct I/O issues them):
//!
//! * `asbtree-fig9` … `asbtree-fig12` (§4.1, Figs. 9–12): 100,000 inserts,
//!   searches, updates or deletes after 400,000 records, F from 64 to 256,
//!   the AS B-tree with write buffers of 1, 8 and 32 nodes, the B+-tree
//!   with the same write buffer (as Table 2 compares them) and BFTL
//!   (reservation buffer F, C = 3);
//! * `asbtree-fig10-8k`: Fig. 10's "nearly the same" searches at the
//!   paper's 8 KB node and §4.2's 896 KB, both trees with the same split
//!   of it between a 32-node write buffer and a cache (issue #27), and the
//!   B+-tree with all of it a cache;
//! * `asbtree-table2`: the read and write time of those inserts;
//! * `asbtree-table3`: the file each index leaves, and the AS B-tree's
//!   without the Node Validation Manager;
//! * `asbtree-fig13-14`: inserts and searches against the LRU buffer
//!   cache's size;
//! * `asbtree-table4` (§4.2, Table 4): 1,000,000 operations after 500,000
//!   records, insert/search from 10/90 to 90/10, 896 KB per index: BFTL,
//!   FD-tree (k = 128), LA-tree, AS B-tree, with the B+-tree and MB-Tree as
//!   extra series and the `tpcc-index` mix as an extra column.
//!
//! Keys and values are 8 bytes, so that a node of fanout 256 is the
//! paper's 8 KB (two 4 KiB pages; fanouts 64 and 128 fit one page). Keys
//! are uniform 32-bit integers, as §4 says ("random integer values ...
//! with uniform distribution"). Every run ends with a flush, charged as its
//! own row, so a write buffer's last nodes are never free.
//!
//! The paper's percentages ("21% faster", Table 2's "Improvement") are
//! (B − A) / B; a row states them as the ratio B / A = 1 / (1 − p).

use super::{
    Axis, Chart, Experiment, Measure, Panel, Published, RowKind, RunKind, Series, AXIS_VALUE,
};

const S41: &str = "Kim et al. 2014 §4.1";
/// §3.4's subfiles: 64 MB.
const PAPER_SUBFILE: &str = "67108864";

/// §4.1's setting: `x25e`, 400,000 records then 100,000 operations of one
/// kind (`mix`), 1 MiB per index (a 32-node write buffer and the two
/// nodes a split holds; no buffer cache, §4.1 adds one only in Figs.
/// 13–14).
fn fixed_41(mix: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut f = vec![
        ("device", "x25e"),
        ("memory", "1048576"),
        ("workload", "insert-uniform"),
        ("workload.key_max", "4294967295"),
        ("preload", "400000"),
        ("ops", "100000"),
        ("final_flush", "true"),
        ("set.key_bytes", "8"),
        ("set.value_bytes", "8"),
    ];
    f.extend_from_slice(mix);
    f
}

const QUICK_41: &[(&str, &str)] = &[("preload", "20000"), ("ops", "5000")];

const INSERTS: &[(&str, &str)] = &[];
const SEARCHES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.search", "1")];
const UPDATES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.update", "1")];
const DELETES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.delete", "1")];

const WE_RAN_41: &str = "The `x25e` SSD model (Kim et al. 2014 Table 1, one 4 KiB request per page); 400,000 records, then 100,000 operations (--quick: 20,000 and 5,000), keys uniform 32-bit, 8-byte keys and values (a fanout-256 node is 8 KiB); 1 MiB per index with no buffer cache (the AS B-tree's `cache_nodes=0`, the B+-tree's `cache=none`, BFTL's `cache=none`); a flush after the last operation, charged as its own row; time per operation over all rows.";

fn asb(name: &'static str, write_buffer: &'static str) -> Series {
    Series {
        name,
        params: vec![
            ("index", "asbtree"),
            ("set.write_buffer", write_buffer),
            ("set.cache_nodes", "0"),
            ("set.subfile_bytes", PAPER_SUBFILE),
        ],
    }
}

fn bplus(name: &'static str, write_buffer: &'static str) -> Series {
    Series {
        name,
        params: vec![
            ("index", "btree"),
            ("set.cache", "none"),
            ("set.write_buffer", write_buffer),
        ],
    }
}

/// BFTL as §4.1 configures it: a reservation buffer of F index units and
/// compaction at C = 3, no node cache.
fn bftl() -> Series {
    Series {
        name: "BFTL",
        params: vec![
            ("index", "bftl"),
            ("set.reservation_buffer", AXIS_VALUE),
            ("set.compaction_c", "3"),
            ("set.cache", "none"),
            ("set.cached_levels", "0"),
        ],
    }
}

fn f_axis() -> Axis {
    Axis {
        param: "set.fanout",
        label: "fanout F",
        full: vec!["64", "128", "256"],
        quick: vec!["64", "256"],
        expand: None,
    }
}

fn row(source: &'static str, name: &'static str, value: f64, m: Measure) -> Published {
    Published {
        name,
        source,
        value,
        unit: "x",
        measured: m,
        kind: RowKind::Claim,
    }
}

fn ratio(a: &'static str, b: &'static str, x: &'static str, metric: &'static str) -> Measure {
    Measure::CellRatio { a, b, x, metric }
}

fn below(m: Measure) -> Measure {
    Measure::Below(Box::new(m))
}

/// "p faster": B / A = 1 / (1 − p).
fn faster(p: f64) -> f64 {
    1.0 / (1.0 - p)
}

const AS32: &str = "AS B-tree, write buffer 32";
const AS8: &str = "AS B-tree, write buffer 8";
const AS1: &str = "AS B-tree, write buffer 1";
const BP32: &str = "B+-tree, write buffer 32";
const BP1: &str = "B+-tree, write buffer 1";

/// `s` renamed, with extra parameters: a variant run.
fn variant(mut s: Series, name: &'static str, extra: &[(&'static str, &'static str)]) -> Series {
    s.name = name;
    s.params.extend_from_slice(extra);
    s
}

/// The X25-E serving each 8 KiB node as one request (an 8 KiB device page)
/// where the model otherwise issues one 4 KiB request per page: §4's Direct
/// I/O reads and writes whole nodes.
const PAGE_8K: &[(&str, &str)] = &[("device.page_size", "8192")];
const AS32_8K: &str = "AS B-tree, write buffer 32, 8 KiB requests";
const BP32_8K: &str = "B+-tree, write buffer 32, 8 KiB requests";
const BFTL_8K: &str = "BFTL, 8 KiB requests";

fn all_series() -> Vec<Series> {
    vec![
        asb(AS32, "32"),
        asb(AS8, "8"),
        asb(AS1, "1"),
        bplus(BP32, "32"),
        bplus(BP1, "1"),
        bftl(),
    ]
}

#[allow(clippy::too_many_arguments)]
fn op_experiment(
    id: &'static str,
    title: &'static str,
    source: &'static str,
    paper_ran: &'static str,
    mix: &'static [(&'static str, &'static str)],
    series: Vec<Series>,
    published: Vec<Published>,
    notes: &'static str,
) -> Experiment {
    Experiment {
        id,
        title,
        source,
        paper_ran,
        we_ran: WE_RAN_41,
        axis: f_axis(),
        series,
        fixed: fixed_41(mix),
        quick: QUICK_41.to_vec(),
        panels: vec![
            Panel::of("time_us_per_op", "time per operation (microseconds)"),
            Panel::of("page_reads", "page reads"),
            Panel::of("page_writes", "page writes"),
        ],
        chart: Chart::Lines,
        published,
        notes,
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

const PAPER_41: &str = "Intel X25-E, Direct I/O; 400,000 records then 100,000 operations of one kind, uniform random integer keys; F from 64 to 256 and write buffers of 1 to 32 nodes; the B+-tree with the same write buffer; BFTL with a reservation buffer of F and C = 3; elapsed time.";

pub(super) fn asbtree_fig9() -> Experiment {
    op_experiment(
        "asbtree-fig9",
        "AS B-tree, B+-tree and BFTL: inserts against the fanout and the write buffer",
        "Kim et al. 2014 §4.1, Fig. 9",
        PAPER_41,
        INSERTS,
        {
            let mut series = all_series();
            series.push(variant(asb(AS32, "32"), AS32_8K, PAGE_8K));
            series.push(variant(bplus(BP32, "32"), BP32_8K, PAGE_8K));
            series.push(variant(bftl(), BFTL_8K, PAGE_8K));
            series
        },
        vec![
            row(S41, "B+-tree / AS B-tree, insert time, F = 256, write buffer 32 (\"21% performance improvement\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, insert time, F = 256 (\"57% faster than BFTL\")", faster(0.57), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "AS B-tree, write buffer 32 / write buffer 1, insert time, F = 256 (\"enhanced as ... the Write Buffer sizes increased\")", 1.0, below(ratio(AS32, AS1, "256", "time_us_per_op"))),
            row(S41, "AS B-tree (write buffer 32), insert time at F = 256 / at F = 64 (\"enhanced as F ... increased\")", 1.0, below(Measure::AcrossX { series: AS32, x_a: "256", x_b: "64", metric: "time_us_per_op" })),
            row(S41, "AS B-tree (write buffer 32), insert time at F = 256 / at F = 64, a node one 8 KiB request", 1.0, below(Measure::AcrossX { series: AS32_8K, x_a: "256", x_b: "64", metric: "time_us_per_op" })),
            row(S41, "B+-tree / AS B-tree, insert time, F = 256, write buffer 32, a node one 8 KiB request", faster(0.21), ratio(BP32_8K, AS32_8K, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, insert time, F = 256, a node (and a sector) one 8 KiB request", faster(0.57), ratio(BFTL_8K, AS32_8K, "256", "time_us_per_op")),
        ],
        "The paper's percentages are (B - A) / B, so 21% faster is a ratio of 1.27 and 57% one of 2.33 (module doc). Our time is the SSD model's service time per request at the X25-E's queue-depth-32 rates (random write 21 MB/s against sequential 158 MB/s at 4 KB); the paper's is wall time on the drive with its CPU work. The AS B-tree's writes are one sequential run per write buffer flush; the B+-tree writes each flushed node in place, at random: at F = 256 the B+-tree takes 1.80x the AS B-tree's time (within 1.5x of 1.27). F: our F = 64 node is 1,288 bytes, one 4 KiB request, and F = 256's 5,128 bytes two requests, so in the model a larger F costs more per level than its lower tree saves; moved by a run: with each node one 8 KiB request (`device.page_size=8192`, as Direct I/O reads a whole 8 KB node), F = 256 is faster than F = 64 (0.80), as published. Write buffer: our model keeps reads and writes in separate sequential runs, so an AS B-tree with a one-node buffer still appends sequentially and buffering gains little (0.997); the paper's point, reads between writes breaking the drive's sequential writes, is not in the model. BFTL: 1.39x the AS B-tree's time (published 2.33), 1.34 with 8 KiB requests: not moved by a run we found; its deletes (fig12: 2.25, published 2.33) are within 1.5x of the paper's, its updates (fig11: 2.44, published 1.47) 1.66x above it.",
    )
}

pub(super) fn asbtree_fig10() -> Experiment {
    op_experiment(
        "asbtree-fig10",
        "AS B-tree, B+-tree and BFTL: searches against the fanout",
        "Kim et al. 2014 §4.1, Fig. 10",
        PAPER_41,
        SEARCHES,
        vec![asb(AS32, "32"), bplus(BP32, "32"), bftl()],
        vec![
            row(S41, "AS B-tree / B+-tree, search time, F = 256 (\"nearly the same elapsed time\"; issue #15: within 1.1x)", 1.0, ratio(AS32, BP32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, page reads of the searches, F = 256 (\"37% more read operations\")", 1.37, ratio("BFTL", AS32, "256", "page_reads")),
            row(S41, "AS B-tree / BFTL, search time, F = 256 (\"a shorter time than BFTL\")", 1.0, below(ratio(AS32, "BFTL", "256", "time_us_per_op"))),
        ],
        "Searches change nothing, so the write buffer is idle and the AS B-tree is the B+-tree reading its nodes through the address mapping table: 146.5 against 145.7 microseconds a search (1.005, within issue #15's 1.1x), six 4 KiB reads each (three levels of two-page nodes), the AS B-tree's nodes in write order, the B+-tree's in allocation order. BFTL reads a node's index units from up to C = 3 sectors: 1.34x the pages (the paper measured 1.37x and 1.49 sectors a node).",
    )
}

/// The B+-tree of `asbtree-fig10-8k` with no write buffer: all of the
/// budget its cache.
const BP_ALL_CACHE: &str = "B+-tree, no write buffer (all 896 KiB a cache)";

/// §4.1's "nearly the same" search claim at the paper's own sizes: an
/// 8 KB node (two 4 KiB requests, the AS B-tree's record header inside
/// it) and §4.2's 896 KB, split the same way for both trees (issue #27):
/// a 32-node write buffer, the rest an LRU cache; and, varied, the
/// B+-tree with the whole budget a cache.
pub(super) fn asbtree_fig10_8k() -> Experiment {
    let sized = |name, index: &'static str, extra: &[(&'static str, &'static str)]| {
        let mut params = vec![("index", index)];
        params.extend_from_slice(extra);
        Series { name, params }
    };
    Experiment {
        id: "asbtree-fig10-8k",
        title: "AS B-tree and B+-tree searches at the paper's 8 KB node and 896 KB, the same memory split",
        source: "Kim et al. 2014 §4.1, Fig. 10 (8 KB nodes, §4.2's 896 KB)",
        paper_ran: "Intel X25-E, Direct I/O; 400,000 records then 100,000 searches, uniform random integer keys; 8 KB nodes; AS B-tree and B+-tree with the same write buffer (Table 2); \"nearly the same elapsed time\".",
        we_ran: "The `x25e` model; 400,000 records then 100,000 searches (--quick: 100,000 and 5,000), keys uniform 32-bit, 8-byte keys and values; `node_bytes` 8,192 (the AS B-tree's 12-byte record header inside it: two 4 KiB requests a node for both trees; 4,096 and 16,384 at full scale as well); 896 KiB per index: a 32-node write buffer and a write-through LRU cache of what is left, for both trees (a write-back cache would carry the preload's dirty nodes into the searches as random writes, which the AS B-tree's write-through cache never does), and the B+-tree with no write buffer, the whole budget a cache; a flush at the end, charged as its own row.",
        axis: Axis {
            param: "set.node_bytes",
            label: "node size (bytes)",
            full: vec!["4096", "8192", "16384"],
            quick: vec!["8192"],
            expand: None,
        },
        series: vec![
            sized(AS32, "asbtree", &[("set.write_buffer", "32"), ("set.subfile_bytes", PAPER_SUBFILE)]),
            sized(BP32, "btree", &[("set.write_buffer", "32"), ("set.cache", "wt-lru")]),
            sized(BP_ALL_CACHE, "btree", &[("set.cache", "wt-lru")]),
        ],
        fixed: vec![
            ("device", "x25e"),
            ("memory", "917504"),
            ("workload", "insert-uniform"),
            ("workload.key_max", "4294967295"),
            ("workload.insert", "0"),
            ("workload.search", "1"),
            ("preload", "400000"),
            ("ops", "100000"),
            ("final_flush", "true"),
            ("set.key_bytes", "8"),
            ("set.value_bytes", "8"),
        ],
        quick: vec![("preload", "100000"), ("ops", "5000")],
        panels: vec![
            Panel::of("time_us_per_op", "time per search (microseconds)"),
            Panel::of("page_reads", "page reads"),
        ],
        chart: Chart::Bars,
        published: vec![
            row(S41, "AS B-tree / B+-tree, search time, 8 KB nodes, 896 KB split alike (a 32-node write buffer each) (\"nearly the same elapsed time\"; issue #27: within 1.1x)", 1.0, ratio(AS32, BP32, "8192", "time_us_per_op")),
            row(S41, "AS B-tree (32-node write buffer) / B+-tree with all 896 KB a cache, search time, 8 KB nodes (\"nearly the same\", the split varied)", 1.0, ratio(AS32, BP_ALL_CACHE, "8192", "time_us_per_op")),
            row(S41, "AS B-tree / B+-tree, page reads of the searches, 8 KB nodes, 896 KB split alike (two 4 KiB requests a node for both)", 1.0, ratio(AS32, BP32, "8192", "page_reads")),
        ],
        notes: "An 8,192-byte node is two 4 KiB requests for both trees: the AS B-tree's 12-byte record header is inside the node (its node holds 12 bytes fewer entries), where it used to spill into a third request (issue #27: 5.71 s against 3.82 s). With the same 32-node write buffer both trees keep the same cache (80 and 79 nodes of 8 KiB) and the buffer sits idle during the searches for both: 44.91 against 44.00 microseconds a search (1.021), 1.84 and 1.81 page reads a search (one leaf of a three-level tree whose upper levels the cache holds). With all 896 KiB a cache the B+-tree holds 111 nodes and searches in 43.86 (AS B-tree / it 1.024): the unequal split is worth 0.3% here (the B+-tree's 44.00 against 43.86). At 4 KiB and 16 KiB nodes: 1.004 and 0.960 with the same split, 1.012 and 1.019 against the all-cache B+-tree.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

pub(super) fn asbtree_fig11() -> Experiment {
    op_experiment(
        "asbtree-fig11",
        "AS B-tree, B+-tree and BFTL: updates against the fanout and the write buffer",
        "Kim et al. 2014 §4.1, Fig. 11",
        PAPER_41,
        UPDATES,
        vec![asb(AS32, "32"), asb(AS1, "1"), bplus(BP32, "32"), bftl()],
        vec![
            row(S41, "B+-tree / AS B-tree, update time, F = 256, write buffer 32 (\"21% better performance\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, update time, F = 256 (\"32% faster performance compared to that of BFTL\")", faster(0.32), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "B+-tree (write buffer 32) / BFTL, update time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(BP32, "BFTL", "256", "time_us_per_op"))),
            row(S41, "AS B-tree (write buffer 1) / BFTL, update time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(AS1, "BFTL", "256", "time_us_per_op"))),
        ],
        "An update changes a record in its leaf: one descent and one leaf write for the B+-tree and the AS B-tree (Kim et al. 2014 §4.1: \"the number of inserted index records ... did not increase as it did for an insert operation, the algorithm of the update operation is similar to that of an insert operation\"; `btree::update`), a delete and an insert record for BFTL's reservation buffer. At full scale (2026-11-27) the B+-tree with a 32-node write buffer takes 0.74x BFTL's time (BFTL the slowest, as published), the AS B-tree with a one-node buffer 0.41x; B+-tree / AS B-tree 1.80 (published 1.27, within 1.5x), BFTL / AS B-tree 2.44 (published 1.47: 1.66x, outside). Before updates were done in place (each a delete, then an insert: two descents, two leaf writes) the B+-tree took 1.03x BFTL's time, the paper's direction reversed.",
    )
}

pub(super) fn asbtree_fig12() -> Experiment {
    op_experiment(
        "asbtree-fig12",
        "AS B-tree, B+-tree and BFTL: deletes against the fanout and the write buffer",
        "Kim et al. 2014 §4.1, Fig. 12",
        PAPER_41,
        DELETES,
        vec![asb(AS32, "32"), asb(AS1, "1"), bplus(BP32, "32"), bftl()],
        vec![
            row(S41, "B+-tree / AS B-tree, delete time, F = 256, write buffer 32 (\"21% better performance\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, delete time, F = 256 (\"57% faster performance than that of BFTL\")", faster(0.57), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "B+-tree (write buffer 32) / BFTL, delete time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(BP32, "BFTL", "256", "time_us_per_op"))),
        ],
        "Deletes pick live entries uniformly; 100,000 of the 400,000 leave the tree three-quarters full, so few merges happen. B+-tree / AS B-tree 1.82 (published 1.27, within 1.5x), BFTL / AS B-tree 2.25 (published 2.33, within); BFTL is the slowest (the B+-tree takes 0.81x its time).",
    )
}

pub(super) fn asbtree_table2() -> Experiment {
    Experiment {
        id: "asbtree-table2",
        title: "Insert time split into reads and writes: AS B-tree and B+-tree, F = 256, write buffer 32",
        source: "Kim et al. 2014 §4.1, Table 2",
        paper_ran: "The inserts of Fig. 9 at F = 256 with a 32-node write buffer for both trees; the time spent reading and writing measured apart (AS B-tree 56 s + 5 s, B+-tree 68 s + 10 s).",
        we_ran: "As asbtree-fig9 at F = 256, write buffer 32; the model's read and write service time of all rows (the final flush included).",
        axis: Axis {
            param: "set.fanout",
            label: "fanout F",
            full: vec!["256"],
            quick: vec!["256"],
            expand: None,
        },
        series: vec![asb(AS32, "32"), bplus(BP32, "32")],
        fixed: fixed_41(INSERTS),
        quick: QUICK_41.to_vec(),
        panels: vec![
            Panel::of("read_time_s", "read time (s)"),
            Panel::of("write_time_s", "write time (s)"),
        ],
        chart: Chart::Bars,
        published: vec![
            row("Kim et al. 2014 §4.1, Table 2", "B+-tree / AS B-tree, read time of the inserts (\"17%\")", 68.0 / 56.0, ratio(BP32, AS32, "256", "read_time_s")),
            row("Kim et al. 2014 §4.1, Table 2", "B+-tree / AS B-tree, write time of the inserts (\"50%\")", 10.0 / 5.0, ratio(BP32, AS32, "256", "write_time_s")),
            row("Kim et al. 2014 §4.1, Table 2", "B+-tree / AS B-tree, insert time (\"21%\")", 78.0 / 61.0, ratio(BP32, AS32, "256", "time_s")),
        ],
        notes: "Reads: both trees read the same nodes (6.1 and 6.0 page reads an insert, 14.8 s against 14.5 s): the paper explains its 17% faster reads by a simpler placement algorithm, CPU work the model does not charge, and no run of the model moves it (the disk run, asbtree-disk, measures it on real hardware). Writes: where the Sequential Writer acts: the B+-tree's flushed nodes are random 4 KiB writes at the X25-E's 21 MB/s (22.0 s), the AS B-tree's sequential runs at 158 MB/s (5.5 s), 4.0x where the paper measured 2x through a file system; the 8 KiB-request variant of asbtree-fig9 keeps the gap (2.84x in total time).",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

pub(super) fn asbtree_table3() -> Experiment {
    Experiment {
        id: "asbtree-table3",
        title: "The file each index leaves after the inserts (AS B-tree with and without the Node Validation Manager)",
        source: "Kim et al. 2014 §4.1, Table 3",
        paper_ran: "File sizes after the insert experiment: B+-tree 22.4 MB, BFTL 1,615 MB, AS B-tree 70 MB, and 642 MB without the Node Validation Manager.",
        we_ran: "As asbtree-fig9 at F = 256 (write buffer 32), the AS B-tree also with `nvm=false`; the bytes each index occupies on the device at the end (`flash_bytes_used`: for the AS B-tree its subfiles not yet deleted, for the others their live pages), in MiB.",
        axis: Axis {
            param: "set.fanout",
            label: "fanout F",
            full: vec!["256"],
            quick: vec!["256"],
            expand: None,
        },
        series: vec![
            bplus(BP32, "32"),
            bftl(),
            asb(AS32, "32"),
            no_nvm(),
            variant(bplus(BP32, "32"), BP32_BULK, BULK),
            variant(asb(AS32, "32"), AS32_BULK, BULK),
            variant(no_nvm(), NO_NVM_BULK, BULK),
        ],
        fixed: fixed_41(INSERTS),
        quick: QUICK_41.to_vec(),
        panels: vec![Panel::of("flash_mib", "file size (MiB)")],
        chart: Chart::Bars,
        published: vec![
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree / B+-tree, file size (70 MB / 22.4 MB)", 70.0 / 22.4, ratio(AS32, BP32, "256", "flash_mib")),
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree without / with the Node Validation Manager, file size (642 MB / 70 MB)", 642.0 / 70.0, ratio(NO_NVM, AS32, "256", "flash_mib")),
            row("Kim et al. 2014 §4.1, Table 3", "BFTL / B+-tree, file size (1,615 MB / 22.4 MB)", 1615.0 / 22.4, ratio("BFTL", BP32, "256", "flash_mib")),
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree / B+-tree, file size, the 400,000 records bulk-loaded", 70.0 / 22.4, ratio(AS32_BULK, BP32_BULK, "256", "flash_mib")),
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree without / with the Node Validation Manager, file size, the 400,000 records bulk-loaded", 642.0 / 70.0, ratio(NO_NVM_BULK, AS32_BULK, "256", "flash_mib")),
        ],
        notes: "Sizes are compared with the B+-tree's (and the AS B-tree's with its Node Validation Manager), since our entries and nodes are not the paper's bytes. With the 400,000 records inserted one by one before the 100,000 measured inserts, the AS B-tree without the manager keeps every one of about 480,000 node records (3.7 GiB, 106x its file with the manager); the paper's 642 MB is about 78,000 of its 8 KB nodes, the 100,000 inserts' worth, which suggests its 400,000 records were loaded otherwise. Moved by a run: with the 400,000 records bulk-loaded (each node written once, in key order), 13.3x without / with the manager (published 9.2) and 4.2x the B+-tree's file (published 3.1), both within 1.5x. With 64 MiB subfiles and T = 5%, a subfile is recycled once almost every node in it has been rewritten elsewhere. BFTL: our store reuses a sector once none of its index units is live, so its file stays 1.36x the B+-tree's; the paper's 1,615 MB (72x) is a BFTL that never reclaims sectors, which ours has no setting for.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

const NO_NVM: &str = "AS B-tree, no Node Validation Manager";
const BP32_BULK: &str = "B+-tree, write buffer 32, bulk-loaded";
const AS32_BULK: &str = "AS B-tree, write buffer 32, bulk-loaded";
const NO_NVM_BULK: &str = "AS B-tree, no Node Validation Manager, bulk-loaded";
/// The 400,000 records written bottom-up by the bulk loader (in key order,
/// each node once) before the 100,000 inserts, rather than inserted.
const BULK: &[(&str, &str)] = &[("bulk_load", "true"), ("workload.preload_sorted", "true")];

fn no_nvm() -> Series {
    variant(asb(AS32, "32"), NO_NVM, &[("set.nvm", "false")])
}

/// Memory for a cache of `x` nodes of 8 KiB beside a 32-node write buffer
/// and the two nodes a split holds, with 16 KiB for everything else.
fn cache_memory(x: &str, _quick: bool) -> Vec<(&'static str, String)> {
    let nodes: u64 = x.parse().unwrap_or(0);
    vec![("memory", ((32 + 2 + nodes) * 8192 + 16384).to_string())]
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
    let bftl_cache: &[(&str, &str)] = &[
        ("set.reservation_buffer", "256"),
        ("set.compaction_c", "3"),
        ("set.cache", "wt-lru"),
        ("set.cache_nodes", AXIS_VALUE),
    ];
    let mut fixed = fixed_41(INSERTS);
    fixed.push(("set.fanout", "256"));
    Experiment {
        id: "asbtree-fig13-14",
        title: "Inserts (Fig. 13) and searches (Fig. 14) against the LRU buffer cache's size",
        source: "Kim et al. 2014 §4.1, Figs. 13-14",
        paper_ran: "F = 256, 8 KB nodes, 100,000 inserts (Fig. 13) or searches (Fig. 14) with an LRU buffer cache of a growing number of nodes; AS B-tree, B+-tree and BFTL.",
        we_ran: "As asbtree-fig9 at F = 256 with a 32-node write buffer, and memory for the write buffer, two split nodes, 16 KiB of the rest and x cache nodes of 8 KiB: each index's LRU cache holds x nodes (`cache_nodes`: the AS B-tree's and BFTL's write-through, the B+-tree's write-back into its write buffer).",
        axis: Axis {
            param: "cache_nodes",
            label: "LRU buffer cache (nodes)",
            full: vec!["0", "10", "20", "40", "80", "160"],
            quick: vec!["0", "40"],
            expand: Some(cache_memory),
        },
        series: vec![
            insert("AS B-tree, inserts", "asbtree", asb_cache),
            insert("B+-tree, inserts", "btree", bp_cache),
            insert("BFTL, inserts", "bftl", bftl_cache),
            search("AS B-tree, searches", "asbtree", asb_cache),
            search("B+-tree, searches", "btree", bp_cache),
            search("BFTL, searches", "bftl", bftl_cache),
        ],
        fixed,
        quick: QUICK_41.to_vec(),
        panels: vec![Panel::of("time_us_per_op", "time per operation (microseconds)")],
        chart: Chart::Lines,
        published: vec![
            row("Kim et al. 2014 §4.1, Fig. 13", "AS B-tree, insert time with 160 cache nodes / with none (\"each index structure achieved improved performance\")", 1.0, below(Measure::AcrossX { series: "AS B-tree, inserts", x_a: "160", x_b: "0", metric: "time_us_per_op" })),
            row("Kim et al. 2014 §4.1, Fig. 13", "AS B-tree over B+-tree, how much a 160-node cache speeds inserts (\"improved at a similar rate\")", 1.0, Measure::Quotient(
                Box::new(Measure::AcrossX { series: "AS B-tree, inserts", x_a: "160", x_b: "0", metric: "time_us_per_op" }),
                Box::new(Measure::AcrossX { series: "B+-tree, inserts", x_a: "160", x_b: "0", metric: "time_us_per_op" }),
            )),
            row("Kim et al. 2014 §4.1, Fig. 14", "AS B-tree, search time with 160 cache nodes / with none (\"also improved\")", 1.0, below(Measure::AcrossX { series: "AS B-tree, searches", x_a: "160", x_b: "0", metric: "time_us_per_op" })),
            row("Kim et al. 2014 §4.1, Fig. 14", "AS B-tree / B+-tree, search time with 80 cache nodes", 1.0, ratio("AS B-tree, searches", "B+-tree, searches", "80", "time_us_per_op")),
        ],
        notes: "The figures print no numbers; the rows check that a cache helps each index and at a similar rate, and that the AS B-tree's searches keep pace with the B+-tree's. A cache of x nodes holds x of the tree's 1,900 to 2,100 nodes of 5,128 bytes: the upper levels first. From no cache to 160 nodes the AS B-tree's inserts go from 202 to 102 microseconds (0.50) and the B+-tree's from 364 to 249 (0.68; its cache is write-back, so it also absorbs rewrites), the searches from 147 to 45 and from 146 to 45; at 80 nodes the two trees search at the same speed (0.997). BFTL keeps its top two levels in RAM by default (`cached_levels=2`, Wu et al. 2003 §5.1), so a cache of up to 160 of its 2,200 to 2,800 leaves helps it little (inserts 304 to 287, searches 69 to 64 microseconds).",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

/// Table 4's columns: insert/search shares, and the `tpcc-index` mix.
fn mix(x: &str, _quick: bool) -> Vec<(&'static str, String)> {
    if x == "tpcc" {
        return vec![
            ("workload", "tpcc-index".into()),
            ("workload.key_max", "4294967295".into()),
        ];
    }
    let (i, s) = x.split_once('/').unwrap_or(("50", "50"));
    let share = |v: &str| (v.parse::<f64>().unwrap_or(50.0) / 100.0).to_string();
    vec![
        ("workload", "insert-uniform".into()),
        ("workload.key_max", "4294967295".into()),
        ("workload.insert", share(i)),
        ("workload.search", share(s)),
    ]
}

pub(super) fn asbtree_table4() -> Experiment {
    let source = "Kim et al. 2014 §4.2, Table 4";
    let s = |name, params: Vec<(&'static str, &'static str)>| Series { name, params };
    let t = |name: &'static str, a: &'static str, b: &'static str, x: &'static str, value: f64| {
        row(source, name, value, ratio(a, b, x, "time_us_per_op"))
    };
    let rank = |name: &'static str, x: &'static str, value: f64| Published {
        name,
        source,
        value,
        unit: "rank",
        measured: Measure::Rank {
            series: "AS B-tree",
            x,
            metric: "time_us_per_op",
            among: &["BFTL", "FD-tree", "LA-tree", "AS B-tree"],
        },
        kind: RowKind::Claim,
    };
    let across = |name: &'static str, series: &'static str, value: f64| {
        row(
            source,
            name,
            value,
            Measure::AcrossX {
                series,
                x_a: "10/90",
                x_b: "90/10",
                metric: "time_us_per_op",
            },
        )
    };
    Experiment {
        id: "asbtree-table4",
        title: "Five indexes over insert/search mixes: BFTL, FD-tree, LA-tree, AS B-tree (and the B+-tree and MB-Tree)",
        source,
        paper_ran: "Intel X25-E; 500,000 records, then 1,000,000 inserts and searches from 10/90 to 90/10; 8 KB nodes and fanout 256; 896 KB of memory per index (AS B-tree: a 640 KB cache of 80 nodes and a 256 KB write buffer of 30 nodes); BFTL as in §4.1, FD-tree with k = 128, LA-tree as its paper configures it; elapsed seconds (BFTL 1,127 ... 543, FD-tree 446 ... 280, LA-tree 259 ... 71, AS B-tree 247 ... 322).",
        we_ran: "The `x25e` model, 500,000 records then 1,000,000 operations (--quick: 20,000 and 20,000), uniform 32-bit keys, 8-byte keys and values, 896 KiB per index; the `tpcc-index` mix (72% search, 24% insert, 3% range, 1% delete, §4.2) as an extra column; a flush at the end, charged as its own row. AS B-tree: §4.2's 8 KB nodes (`node_bytes=8192`, two 4 KiB requests, its record header inside; with 8 + 8-byte entries that is about 510 entries where the paper says fanout 256), an 80-node cache and a 30-node write buffer, §4.2's 640 KB + 256 KB (fanout-256 nodes of 5,128 bytes left a third of the budget unused); B+-tree: 8 KB nodes, the same 30-node write buffer, an LRU cache of the rest; BFTL: fanout 256, reservation buffer 256, C = 3, no level kept in RAM and no node cache, as §4.1 runs it (§4.2: \"The BFTL parameter configuration followed its settings in Section 4.1\"), its 896 KiB holding the reservation buffer, the node translation table and the commit views; a variant keeps BFTL's top two levels in RAM (Wu et al. 2003 §5.1's default); FD-tree: k = 128, 8 KiB pages; LA-tree: its paper's fanout 16 and subtree height 2 (a fanout-256 subtree of height 2 would not fit 896 KiB); MB-Tree at its defaults.",
        axis: Axis {
            param: "mix",
            label: "insert/search (%)",
            full: vec!["10/90", "30/70", "50/50", "70/30", "90/10", "tpcc"],
            quick: vec!["10/90", "90/10"],
            expand: Some(mix),
        },
        series: vec![
            s("BFTL", vec![("index", "bftl"), ("set.fanout", "256"), ("set.reservation_buffer", "256"), ("set.compaction_c", "3"), ("set.cached_levels", "0"), ("set.cache", "none")]),
            s("FD-tree", vec![("index", "fdtree"), ("set.k", "128"), ("set.page_bytes", "8192")]),
            s("LA-tree", vec![("index", "latree")]),
            s("AS B-tree", vec![("index", "asbtree"), ("set.node_bytes", "8192"), ("set.cache_nodes", "80"), ("set.write_buffer", "30"), ("set.subfile_bytes", PAPER_SUBFILE)]),
            s("B+-tree", vec![("index", "btree"), ("set.node_bytes", "8192"), ("set.cache", "lru"), ("set.write_buffer", "30")]),
            s("MB-Tree", vec![("index", "mbtree")]),
            s(LA_4K, vec![("index", "latree"), ("set.node_bytes", "4096")]),
            s(FD_SMALL_HEAD, vec![("index", "fdtree"), ("set.k", "128"), ("set.page_bytes", "8192"), ("set.head_bytes", "16384")]),
            s(BFTL_CACHED, vec![("index", "bftl"), ("set.fanout", "256"), ("set.reservation_buffer", "256"), ("set.compaction_c", "3"), ("set.cached_levels", "2")]),
            s(LA_1K, vec![("index", "latree"), ("set.node_bytes", "1024")]),
            s(LA_2K, vec![("index", "latree"), ("set.node_bytes", "2048")]),
            s(LA_8K, vec![("index", "latree"), ("set.node_bytes", "8192")]),
        ],
        fixed: vec![
            ("device", "x25e"),
            ("memory", "917504"),
            ("preload", "500000"),
            ("ops", "1000000"),
            ("final_flush", "true"),
            ("set.key_bytes", "8"),
            ("set.value_bytes", "8"),
        ],
        quick: vec![("preload", "20000"), ("ops", "20000")],
        panels: vec![Panel::of("time_s", "elapsed time (s)")],
        chart: Chart::Bars,
        published: vec![
            t("BFTL / AS B-tree, time at 10/90", "BFTL", "AS B-tree", "10/90", 1127.0 / 247.0),
            t("BFTL / AS B-tree, time at 30/70", "BFTL", "AS B-tree", "30/70", 981.0 / 276.0),
            t("FD-tree / AS B-tree, time at 10/90", "FD-tree", "AS B-tree", "10/90", 446.0 / 247.0),
            t("FD-tree / AS B-tree, time at 30/70", "FD-tree", "AS B-tree", "30/70", 432.0 / 276.0),
            t("LA-tree / AS B-tree, time at 10/90", "LA-tree", "AS B-tree", "10/90", 259.0 / 247.0),
            t("LA-tree / AS B-tree, time at 30/70", "LA-tree", "AS B-tree", "30/70", 273.0 / 276.0),
            across("AS B-tree, time at 10/90 / at 90/10 (\"gradually reduced\" as searches grow)", "AS B-tree", 247.0 / 322.0),
            across("BFTL, time at 10/90 / at 90/10 (\"increased with increasing search-ratio\")", "BFTL", 1127.0 / 543.0),
            across("FD-tree, time at 10/90 / at 90/10", "FD-tree", 446.0 / 280.0),
            across("LA-tree, time at 10/90 / at 90/10", "LA-tree", 259.0 / 71.0),
            t("LA-tree with 4 KiB nodes / AS B-tree, time at 10/90", LA_4K, "AS B-tree", "10/90", 259.0 / 247.0),
            t("LA-tree with 4 KiB nodes / AS B-tree, time at 30/70", LA_4K, "AS B-tree", "30/70", 273.0 / 276.0),
            t("FD-tree with a 16 KiB head tree / AS B-tree, time at 10/90", FD_SMALL_HEAD, "AS B-tree", "10/90", 446.0 / 247.0),
            t("FD-tree with a 16 KiB head tree / AS B-tree, time at 30/70", FD_SMALL_HEAD, "AS B-tree", "30/70", 432.0 / 276.0),
            t("BFTL with its top two levels in RAM (Wu et al. 2003 §5.1; not §4.1's setting) / AS B-tree, time at 10/90", BFTL_CACHED, "AS B-tree", "10/90", 1127.0 / 247.0),
            across("BFTL with its top two levels in RAM, time at 10/90 / at 90/10", BFTL_CACHED, 1127.0 / 543.0),
            rank("AS B-tree's rank by time among BFTL, FD-tree, LA-tree and AS B-tree at 10/90 (\"nearly the best in the search-oriented workloads\"; Table 4: first)", "10/90", 1.0),
            rank("AS B-tree's rank by time among BFTL, FD-tree, LA-tree and AS B-tree at 30/70 (\"nearly the best\"; Table 4: second, 276 s against the LA-tree's 273 s)", "30/70", 2.0),
            t("BFTL / AS B-tree, time with the TPC-C index mix (\"nearly the best ... in OLTP workloads\", from 30/70: 3.55x)", "BFTL", "AS B-tree", "tpcc", 981.0 / 276.0),
            t("FD-tree / AS B-tree, time with the TPC-C index mix (\"nearly the best ... in OLTP workloads\", from 30/70: 1.57x)", "FD-tree", "AS B-tree", "tpcc", 432.0 / 276.0),
            t("LA-tree / AS B-tree, time with the TPC-C index mix (\"nearly the best ... in OLTP workloads\", from 30/70: 0.99x)", "LA-tree", "AS B-tree", "tpcc", 273.0 / 276.0),
            t("LA-tree with 1 KiB nodes / AS B-tree, time at 10/90 (the LA-tree's node size, unstated: sensitivity)", LA_1K, "AS B-tree", "10/90", 259.0 / 247.0),
            t("LA-tree with 2 KiB nodes / AS B-tree, time at 10/90 (the LA-tree's node size, unstated: sensitivity)", LA_2K, "AS B-tree", "10/90", 259.0 / 247.0),
            t("LA-tree with 8 KiB nodes (as every other index here) / AS B-tree, time at 10/90 (the LA-tree's node size, unstated: sensitivity)", LA_8K, "AS B-tree", "10/90", 259.0 / 247.0),
            t("LA-tree with 1 KiB nodes / AS B-tree, time at 30/70 (the LA-tree's node size, unstated: sensitivity)", LA_1K, "AS B-tree", "30/70", 273.0 / 276.0),
            t("LA-tree with 2 KiB nodes / AS B-tree, time at 30/70 (the LA-tree's node size, unstated: sensitivity)", LA_2K, "AS B-tree", "30/70", 273.0 / 276.0),
            t("LA-tree with 8 KiB nodes (as every other index here) / AS B-tree, time at 30/70 (the LA-tree's node size, unstated: sensitivity)", LA_8K, "AS B-tree", "30/70", 273.0 / 276.0),
        ],
        notes: "The rows are the pairwise claims at 10/90 and 30/70 (the text: AS B-tree 3.55-4.56x faster than BFTL, 1.57-1.81x than FD-tree, 0.99-1.05x than LA-tree) and how each index's time moves from 10/90 to 90/10, from Table 4's seconds. Time is the model's I/O time (the paper's includes CPU work); the paper's LA-tree times come from replaying its simulator's I/O trace on the drive, ours from the model. Figures below: full scale, 2026-11-27, every series replaying the same operations at a point. BFTL runs as §4.1 configures it (§4.2: \"The BFTL parameter configuration followed its settings in Section 4.1\"): no cached levels and no node cache, its 896 KiB holding the reservation buffer, the node translation table and the commit views. It takes 4.37x and 3.73x the AS B-tree's time at 10/90 and 30/70 (published 4.56 and 3.55), 3.79x with the TPC-C mix; but its time falls as searches grow (0.75 from 10/90 to 90/10, published 2.08): its searches read at most C = 3 sectors a level, which cannot make a search 2.5 inserts as Table 4 solved per operation implies (docs/DEVIATIONS.md). The variant with its top two levels in RAM (Wu et al. 2003 §5.1's default, which this table used before) makes searches cheap: 1.74x the AS B-tree at 10/90, and 0.33 across the mix. FD-tree: ours is faster than the AS B-tree (0.80x and 0.56x its time, 0.62x with TPC-C): with its head tree in RAM and k = 128 the 1.5 million entries fit one level below the head, so a search reads about one 8 KiB run page, about what the AS B-tree reads for a leaf; moved by a run: with a 16 KiB head tree (§4.2: the FD-tree \"degrades considerably with the limited amount of main memory\") it takes 1.26x the AS B-tree's time at 10/90 (the paper's direction) and 0.84x at 30/70. LA-tree: at its paper's fanout 16 each of our 328-byte nodes takes a 4 KiB page of its own on a logical-page device, so a lookup reads a page per level of a deep tree: 1.70x and 1.51x the AS B-tree's time (published 1.05 and 0.99); the node-size rows (§4.2 does not give it) bracket the paper's near-equality: 0.96x at 10/90 with 1 KiB nodes, 0.86x with 2 KiB, 0.75x with 4 KiB, 1.18x with 8 KiB, and 0.67-1.18x at 30/70 (1.51 at 328 bytes), so the direction at 30/70 depends on a size the paper does not state (docs/DEVIATIONS.md). The LA-tree's time moves little with the mix (1.25, published 3.65). The AS B-tree's own time grows with the insert share as Table 4's does (0.53 from 10/90 to 90/10, published 0.77). \"Nearly the best\" (search-heavy mixes and, by the paper's inference from 30/70, the TPC-C mix): the rank rows read Table 4's order at 10/90 (first) and 30/70 (second, 3 s behind the LA-tree); ours is second at both, behind the FD-tree.",
        kind: RunKind::Index,
        axis_for: vec![
            (LA_4K, vec!["10/90", "30/70"], vec!["10/90"]),
            (FD_SMALL_HEAD, vec!["10/90", "30/70"], vec!["10/90"]),
            (BFTL_CACHED, vec!["10/90", "30/70", "90/10"], vec!["10/90", "90/10"]),
            (LA_1K, vec!["10/90", "30/70"], vec!["10/90"]),
            (LA_2K, vec!["10/90", "30/70"], vec!["10/90"]),
            (LA_8K, vec!["10/90", "30/70"], vec!["10/90"]),
        ],
    }
}

/// Table 4's variant runs: the LA-tree with one-page nodes (our default
/// fanout-16 node takes a 4 KiB page of its own on a logical-page
/// device), the FD-tree with less memory for its head tree (§4.2: "the
/// performance of the FD-tree degrades considerably with the limited
/// amount of main memory"), and BFTL with its top two levels in RAM
/// (Wu et al. 2003 §5.1's default; Table 4's own BFTL runs as §4.1 configures it,
/// with none).
const LA_4K: &str = "LA-tree, 4 KiB nodes";
const FD_SMALL_HEAD: &str = "FD-tree, 16 KiB head tree";
const BFTL_CACHED: &str = "BFTL, top two levels cached";
/// The LA-tree's node size across the plausible range (§4.2 does not
/// give it): with the 328-byte default and `LA_4K`, 1 to 8 KiB.
const LA_1K: &str = "LA-tree, 1 KiB nodes";
const LA_2K: &str = "LA-tree, 2 KiB nodes";
const LA_8K: &str = "LA-tree, 8 KiB nodes";

/// `asbtree-disk`'s operations: inserts or searches.
fn op_kind(x: &str, _quick: bool) -> Vec<(&'static str, String)> {
    match x {
        "search" => vec![
            ("workload.insert", "0".into()),
            ("workload.search", "1".into()),
        ],
        _ => vec![],
    }
}

pub(super) fn asbtree_disk() -> Experiment {
    let source = "Kim et al. 2014 §4.1, Figs. 9-10, on this machine's disk";
    Experiment {
        id: "asbtree-disk",
        title: "AS B-tree and B+-tree (write buffer 32, F = 256) on this machine's disk: inserts and searches",
        source,
        paper_ran: "Intel X25-E through ext2 with Direct I/O; 400,000 records, then 100,000 inserts or searches; F = 256, write buffer 32.",
        we_ran: "A real file on this machine's disk (`file:`, O_DIRECT where the filesystem has it, 4 KiB pages, `atomic=false` so that the index's own requests reach the disk in its order, without the commit layer); 100,000 records, then 50,000 inserts or searches (--quick: 20,000 and 5,000), keys uniform 32-bit, 8-byte keys and values, 1 MiB per index, no buffer cache; a flush at the end, charged as its own row. Times are the disk's measured I/O time, not a model: reported as measured here, not as the paper's SSD.",
        axis: Axis {
            param: "op",
            label: "operation",
            full: vec!["insert", "search"],
            quick: vec!["insert", "search"],
            expand: Some(op_kind),
        },
        series: vec![asb(AS32, "32"), bplus(BP32, "32")],
        fixed: vec![
            ("device", "file:{scratch}"),
            ("device.atomic", "false"),
            ("memory", "1048576"),
            ("workload", "insert-uniform"),
            ("workload.key_max", "4294967295"),
            ("preload", "100000"),
            ("ops", "50000"),
            ("final_flush", "true"),
            ("set.key_bytes", "8"),
            ("set.value_bytes", "8"),
            ("set.fanout", "256"),
        ],
        quick: QUICK_41.to_vec(),
        panels: vec![
            Panel::of("time_us_per_op", "measured I/O time per operation (microseconds)"),
            Panel::of("read_time_s", "read time (s)"),
            Panel::of("write_time_s", "write time (s)"),
        ],
        chart: Chart::Bars,
        published: vec![
            row(source, "B+-tree / AS B-tree, insert time, measured on this disk (the X25-E: \"21%\")", faster(0.21), ratio(BP32, AS32, "insert", "time_us_per_op")),
            row(source, "B+-tree / AS B-tree, write time of the inserts, measured on this disk (the X25-E: \"50%\", Table 2)", 2.0, ratio(BP32, AS32, "insert", "write_time_s")),
            row(source, "AS B-tree / B+-tree, search time, measured on this disk (the X25-E: \"nearly the same\")", 1.0, ratio(AS32, BP32, "search", "time_us_per_op")),
        ],
        notes: "The published figures are the X25-E's; this disk is a virtual one whose sequential and random 8 KiB writes differ little (221 against 199 MB/s at queue depth 1, MACHINE-NOTES), so the Sequential Writer has little to gain here: the rows say how far this machine is from the paper's SSD, and `compare --predict x25e` puts the model's prediction beside such a measurement for any trace. Measured times vary from run to run with the host.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
