//! The AS B-tree paper's experiments (Kim et al. 2014 §4), on the `x25e`
//! SSD model (Table 1's X25-E curves, 4 KiB pages; a node on consecutive
//! pages one request, `span_request=true`, as one Direct I/O read or write
//! of §4's 8 KB node is; the old one request a page kept as variants):
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
//! * `asbtree-fig13-14` (`asbtree_cache.rs`): inserts and searches
//!   against the LRU buffer cache's size;
//! * `asbtree-table4` (`asbtree_table4.rs`, §4.2, Table 4):
//!   1,000,000 operations after 500,000 records, insert/search from 10/90
//!   to 90/10, 896 KB per index: BFTL, FD-tree (k = 128), LA-tree, AS
//!   B-tree, with the B+-tree and MB-Tree as extra series and the
//!   `tpcc-index` mix as an extra column.
//!
//! Keys and values are 8 bytes, so that a node of fanout 256 is the
//! paper's 8 KB (two 4 KiB pages, one request; fanouts 64 and 128 fit one
//! page). Keys
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
pub(super) const PAPER_SUBFILE: &str = "67108864";

/// One request a 4 KiB page, a node on two pages two requests: the SSD
/// model's setting before issue #44, kept for variant runs.
const PER_PAGE: &[(&str, &str)] = &[("device.span_request", "false")];

/// The X25-E's random requests timed as Table 2 measured them, where
/// Table 1 (IOMeter, 32 requests outstanding) times them otherwise: the
/// AS B-tree's 56 s of reads for 100,000 inserts of three node reads each
/// (a tree of height 3, §3.2) is 187 µs an 8 KB random read (43.9 MB/s,
/// Table 1: 192), the B+-tree's 10 s of writes for about one node write
/// an insert 100 µs an 8 KB random write (81.9 MB/s, Table 1: 22); Table
/// 1's random curves scaled by those factors (0.229 and 3.72) at every
/// size. The sequential curves stay Table 1's (the AS B-tree's 5 s of
/// sequential writes is 50 µs an 8 KB write, 164 MB/s; Table 1: 188).
/// A variant of the drive, derived from the paper's own measurements:
/// with one request outstanding (the indexes issue one at a time) reads
/// wait for the flash and writes are absorbed by the drive's cache.
pub(super) const TABLE2_REQUEST_TIMES: &[(&str, &str)] = &[
    ("device.rr_4k", "34.06"),
    ("device.rr_8k", "43.89"),
    ("device.rr_16k", "51.89"),
    ("device.rr_32k", "58.51"),
    ("device.rw_4k", "78.20"),
    ("device.rw_8k", "81.92"),
    ("device.rw_16k", "119.16"),
    ("device.rw_32k", "148.95"),
];

/// §4.1's setting: `x25e`, 400,000 records then 100,000 operations of one
/// kind (`mix`), 1 MiB per index (a 32-node write buffer and the two
/// nodes a split holds; no buffer cache, §4.1 adds one only in Figs.
/// 13–14).
pub(super) fn fixed_41(mix: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut f = vec![
        ("device", "x25e"),
        ("device.span_request", "true"),
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

pub(super) const QUICK_41: &[(&str, &str)] = &[("preload", "20000"), ("ops", "5000")];

pub(super) const INSERTS: &[(&str, &str)] = &[];
const SEARCHES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.search", "1")];
const UPDATES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.update", "1")];
const DELETES: &[(&str, &str)] = &[("workload.insert", "0"), ("workload.delete", "1")];

const WE_RAN_41: &str = "The `x25e` SSD model (Kim et al. 2014 Table 1, 4 KiB pages, a node on consecutive pages one request: `span_request=true`); 400,000 records, then 100,000 operations (--quick: 20,000 and 5,000), keys uniform 32-bit, 8-byte keys and values (a fanout-256 node is 8 KiB); 1 MiB per index with no buffer cache (the AS B-tree's `cache_nodes=0`, the B+-tree's `cache=none`, BFTL's `cache=none`); a flush after the last operation, charged as its own row; time per operation over all rows.";

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

pub(super) fn row(source: &'static str, name: &'static str, value: f64, m: Measure) -> Published {
    Published {
        name,
        source,
        value,
        unit: "x",
        measured: m,
        kind: RowKind::Claim,
    }
}

pub(super) use super::{below_one as below, cell_ratio as ratio};

/// `metric` of `series` at `x` over its `reference` in the same run.
fn quotient(
    series: &'static str,
    x: &'static str,
    metric: &'static str,
    reference: &'static str,
) -> Measure {
    let cell = |metric| Box::new(Measure::Cell { series, x, metric });
    Measure::Quotient(cell(metric), cell(reference))
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

/// The §4.1 series at the old setting, one request a 4 KiB page.
const AS32_PP: &str = "AS B-tree, write buffer 32, one request a page";
const BP32_PP: &str = "B+-tree, write buffer 32, one request a page";
const BFTL_PP: &str = "BFTL, one request a page";

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
            series.push(variant(asb(AS32, "32"), AS32_PP, PER_PAGE));
            series.push(variant(bplus(BP32, "32"), BP32_PP, PER_PAGE));
            series.push(variant(bftl(), BFTL_PP, PER_PAGE));
            series
        },
        vec![
            row(S41, "B+-tree / AS B-tree, insert time, F = 256, write buffer 32 (\"21% performance improvement\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, insert time, F = 256 (\"57% faster than BFTL\")", faster(0.57), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "AS B-tree, write buffer 32 / write buffer 1, insert time, F = 256 (\"enhanced as ... the Write Buffer sizes increased\")", 1.0, below(ratio(AS32, AS1, "256", "time_us_per_op"))),
            row(S41, "AS B-tree (write buffer 32), insert time at F = 256 / at F = 64 (\"enhanced as F ... increased\")", 1.0, below(Measure::AcrossX { series: AS32, x_a: "256", x_b: "64", metric: "time_us_per_op" })),
            row(S41, "AS B-tree (write buffer 32), insert time at F = 256 / at F = 64, one request a 4 KiB page (the old setting: a node two requests)", 1.0, below(Measure::AcrossX { series: AS32_PP, x_a: "256", x_b: "64", metric: "time_us_per_op" })).variant(),
            row(S41, "B+-tree / AS B-tree, insert time, F = 256, write buffer 32, one request a 4 KiB page (the old setting)", faster(0.21), ratio(BP32_PP, AS32_PP, "256", "time_us_per_op")).variant(),
            row(S41, "BFTL / AS B-tree, insert time, F = 256, one request a 4 KiB page (the old setting)", faster(0.57), ratio(BFTL_PP, AS32_PP, "256", "time_us_per_op")).variant(),
        ],
        "The paper's percentages are (B - A) / B, so 21% faster is a ratio of 1.27 and 57% one of 2.33 (module doc). Our time is the SSD model's service time per request at the X25-E's queue-depth-32 rates (random write 21 MB/s against sequential 158 MB/s at 4 KB); the paper's is wall time on the drive with its CPU work. A node on consecutive pages is one request (`span_request=true`: one Direct I/O read or write of a whole node; issue #44): F = 64's 1,288-byte node one 4 KiB request, F = 256's 5,128-byte node one 8 KiB request. The AS B-tree's writes are one sequential run per write buffer flush; the B+-tree writes each flushed node in place, at random, and an 8 KiB random write costs 1.9x two 4 KiB requests (a random and a sequential one) in the model, so the B+-tree's lead over the paper's 1.27 grew with the one-request node. F: an 8 KiB random read costs 0.88x two 4 KiB requests but 1.55x one, so three levels of 8 KiB nodes still cost more than four of 4 KiB, and F = 256 stays slower than F = 64 (the paper's direction reversed: 1.26 at full scale on 2026-12-06, `flashix reproduce asbtree-fig9 --out /tmp/asb-full`; 1.46 at the old setting, one request a 4 KiB page, the variant rows). In that run the B+-tree takes 2.84x the AS B-tree's time (1.80 at the old setting) and BFTL 1.61x (1.39). Before issue #44 a variant with 8 KiB device pages moved this row, but only by charging F = 64's 1,288-byte node as an 8 KiB request: that is not the paper's setup, and with the node one request no run of the model we found moves it. Write buffer: our model keeps reads and writes in separate sequential runs, so an AS B-tree with a one-node buffer still appends sequentially and buffering gains little; the paper's point, reads between writes breaking the drive's sequential writes, is not in the model. BFTL / AS B-tree: BFTL's index units sit in single 4 KiB sectors, so a one-request node makes the AS B-tree's reads cheaper and not BFTL's; the paper's 2.33 is not reached (asbtree-table4's variant on the drive as Table 2 timed it, random reads dearer than random writes, shows how much the drive's read-write balance decides BFTL's time); its deletes and updates are in asbtree-fig12 and asbtree-fig11.",
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
            Published {
                unit: "sectors",
                ..row(S41, "BFTL, sectors read a node read from flash in the searches, F = 256 (\"an average of 1.49 sectors to produce a node\")", 1.49, quotient("BFTL", "256", "index_ops.sectors_read_for_nodes", "index_ops.node_reads_from_sectors"))
            },
        ],
        "Searches change nothing, so the write buffer is idle and the AS B-tree is the B+-tree reading its nodes through the address mapping table: three levels of two-page nodes, each one 8 KiB request (`span_request=true`), the AS B-tree's nodes in write order, the B+-tree's in allocation order (issue #15's bound: within 1.1x). BFTL reads a node's index units from up to C = 3 sectors of 4 KiB, each its own request: the page-read row compares pages (a node of the trees is two pages), the sectors row counts the sectors a node read from flash took over the measured searches (`sectors_read_for_nodes` / `node_reads_from_sectors`): our BFTL compacts at C = 3 as §4.1 says, and with fanout-256 nodes a node's units fill more than one sector, so it reads more sectors a node than the paper's 1.49 (2.67 at full scale, 2026-12-06, `flashix reproduce asbtree-fig10 --out /tmp/asb-full`; BFTL 1.34x the AS B-tree's pages, published 1.37).",
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
            ("device.span_request", "true"),
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
            row(S41, "AS B-tree / B+-tree, search time, 8 KB nodes, 896 KB split alike (a 32-node write buffer each) (\"nearly the same elapsed time\"; issue #27: within 1.1x)", 1.0, ratio(AS32, BP32, "8192", "time_us_per_op")).variant(),
            row(S41, "AS B-tree (32-node write buffer) / B+-tree with all 896 KB a cache, search time, 8 KB nodes (\"nearly the same\", the split varied)", 1.0, ratio(AS32, BP_ALL_CACHE, "8192", "time_us_per_op")).variant(),
            row(S41, "AS B-tree / B+-tree, page reads of the searches, 8 KB nodes, 896 KB split alike (two 4 KiB requests a node for both)", 1.0, ratio(AS32, BP32, "8192", "page_reads")).variant(),
        ],
        notes: "An 8,192-byte node is one 8 KiB request for both trees (`span_request=true`; issue #44, before two 4 KiB requests): the AS B-tree's 12-byte record header is inside the node (its node holds 12 bytes fewer entries), where it used to spill into a third page (issue #27). With the same 32-node write buffer both trees keep the same cache (80 and 79 nodes of 8 KiB) and the buffer sits idle during the searches for both: a search reads about one leaf of a three-level tree whose upper levels the cache holds. With all 896 KiB a cache the B+-tree holds 111 nodes: the unequal split is worth little. The rows are variants: §4.1's claim at §4.2's memory and at 4, 8 and 16 KiB nodes (asbtree-fig10 has it at §4.1's setting).",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

/// The series of Figs. 11 and 12: the AS B-tree with write buffers of 32
/// and 1, the B+-tree with 32, BFTL, and the last two at the old setting
/// (one request a 4 KiB page) as variants.
fn update_delete_series() -> Vec<Series> {
    vec![
        asb(AS32, "32"),
        asb(AS1, "1"),
        bplus(BP32, "32"),
        bftl(),
        variant(bplus(BP32, "32"), BP32_PP, PER_PAGE),
        variant(bftl(), BFTL_PP, PER_PAGE),
    ]
}

pub(super) fn asbtree_fig11() -> Experiment {
    op_experiment(
        "asbtree-fig11",
        "AS B-tree, B+-tree and BFTL: updates against the fanout and the write buffer",
        "Kim et al. 2014 §4.1, Fig. 11",
        PAPER_41,
        UPDATES,
        update_delete_series(),
        vec![
            row(S41, "B+-tree / AS B-tree, update time, F = 256, write buffer 32 (\"21% better performance\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, update time, F = 256 (\"32% faster performance compared to that of BFTL\")", faster(0.32), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "B+-tree (write buffer 32) / BFTL, update time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(BP32, "BFTL", "256", "time_us_per_op"))),
            row(S41, "B+-tree (write buffer 32) / BFTL, update time, F = 256, one request a 4 KiB page (the old setting: a node two requests)", 1.0, below(ratio(BP32_PP, BFTL_PP, "256", "time_us_per_op"))).variant(),
            row(S41, "AS B-tree (write buffer 1) / BFTL, update time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(AS1, "BFTL", "256", "time_us_per_op"))),
        ],
        "An update changes a record in its leaf: one descent and one leaf write for the B+-tree and the AS B-tree (Kim et al. 2014 §4.1: \"the number of inserted index records ... did not increase as it did for an insert operation, the algorithm of the update operation is similar to that of an insert operation\"; `btree::update`), a delete and an insert record for BFTL's reservation buffer. At full scale (2026-12-06, `flashix reproduce asbtree-fig11`) B+-tree / AS B-tree is 2.83 (published 1.27) and BFTL / AS B-tree 2.80 (published 1.47): with a node one 8 KiB request (`span_request=true`, as the paper's Direct I/O writes a whole node) each node the B+-tree writes back in place is one random 8 KiB write, which the X25-E model charges 1.9x two 4 KiB requests (a random one and a sequential one, asbtree-fig9), while BFTL writes 4 KiB sectors. So the B+-tree with a 32-node write buffer takes 1.009x BFTL's time, a near tie on the wrong side of \"BFTL had the longest elapsed time\"; the run that shows it: at the old setting, one request a 4 KiB page (the variant row), it takes 0.74x BFTL's time, BFTL the slowest as published. The AS B-tree with a one-node buffer takes 0.36x BFTL's time. Before updates were done in place (each a delete, then an insert: two descents, two leaf writes) the B+-tree took 1.03x BFTL's time at the old setting.",
    )
}

pub(super) fn asbtree_fig12() -> Experiment {
    op_experiment(
        "asbtree-fig12",
        "AS B-tree, B+-tree and BFTL: deletes against the fanout and the write buffer",
        "Kim et al. 2014 §4.1, Fig. 12",
        PAPER_41,
        DELETES,
        update_delete_series(),
        vec![
            row(S41, "B+-tree / AS B-tree, delete time, F = 256, write buffer 32 (\"21% better performance\")", faster(0.21), ratio(BP32, AS32, "256", "time_us_per_op")),
            row(S41, "BFTL / AS B-tree, delete time, F = 256 (\"57% faster performance than that of BFTL\")", faster(0.57), ratio("BFTL", AS32, "256", "time_us_per_op")),
            row(S41, "B+-tree (write buffer 32) / BFTL, delete time, F = 256 (\"BFTL had the longest elapsed time\")", 1.0, below(ratio(BP32, "BFTL", "256", "time_us_per_op"))),
            row(S41, "B+-tree (write buffer 32) / BFTL, delete time, F = 256, one request a 4 KiB page (the old setting: a node two requests)", 1.0, below(ratio(BP32_PP, BFTL_PP, "256", "time_us_per_op"))).variant(),
        ],
        "Deletes pick live entries uniformly; 100,000 of the 400,000 leave the tree three-quarters full, so few merges happen. At full scale (2026-12-06, `flashix reproduce asbtree-fig12`) B+-tree / AS B-tree is 2.87 (published 1.27) and BFTL / AS B-tree 2.60 (published 2.33, within 1.5x). With a node one 8 KiB request (`span_request=true`) the B+-tree's in-place node writes are random 8 KiB writes, 1.9x two 4 KiB requests in the X25-E model (asbtree-fig9), and it takes 1.10x BFTL's time, BFTL no longer the slowest; the run that shows it: at the old setting, one request a 4 KiB page (the variant row), the B+-tree takes 0.81x BFTL's time, as published.",
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
            hit_ratio("AS B-tree, Write Buffer hit ratio of the node reads in the inserts (\"1.1% for the read operations\")", 0.011, "index_ops.write_buffer_read_hits", "index_ops.write_buffer_reads"),
            hit_ratio("AS B-tree, Write Buffer hit ratio of the node writes in the inserts (\"0.6% for the write operations\")", 0.006, "index_ops.write_buffer_write_hits", "index_ops.write_buffer_writes"),
            row("Kim et al. 2014 §4.1, Table 2", "B+-tree / AS B-tree, page reads of the inserts (the read time's device work, a breakdown: the paper's 17% against it)", 68.0 / 56.0, ratio(BP32, AS32, "256", "page_reads")).variant(),
        ],
        notes: "Reads: both trees read the same nodes (the page-read row: the device work of the reads, a breakdown of the read-time row): the paper explains its 17% faster reads by \"the algorithm and implementation for determining where the modified node should be placed\", CPU work of its B+-tree, which a model that charges the device's requests (and would charge two trees that descend the same nodes the same CPU for their key comparisons) cannot show; the disk run, asbtree-disk, measures real hardware. Writes: where the Sequential Writer acts: the B+-tree's flushed nodes are random 8 KiB writes at the X25-E's 22 MB/s, the AS B-tree's sequential runs at 188 MB/s (Table 1, 32 requests outstanding), a wider gap than the paper measured through a file system with one request at a time (Table 2's own times put an 8 KiB random write at 100 µs: asbtree-table4's variant). Hit ratios: the Write Buffer's hits over the node reads and writes asked of it in the measured inserts (`index_ops.write_buffer_*`, the preload left out); 0.5% of the reads and 0.8% of the writes at full scale (2026-12-06, `flashix reproduce asbtree-table2 --out /tmp/asb-full`; published 1.1% and 0.6%), where the B+-tree's write time is 8.1x the AS B-tree's and its read time 0.98x; at --quick the tree is small and the buffer holds a large part of it.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

/// A Write Buffer hit ratio of the AS B-tree's inserts at F = 256 (Kim et
/// al. 2014 §4.1, beside Table 2): `hits` over `all` in the measured phase.
fn hit_ratio(name: &'static str, value: f64, hits: &'static str, all: &'static str) -> Published {
    Published {
        unit: "",
        ..row(
            "Kim et al. 2014 §4.1 (with Table 2)",
            name,
            value,
            quotient(AS32, "256", hits, all),
        )
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
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree / B+-tree, file size, the 400,000 records bulk-loaded", 70.0 / 22.4, ratio(AS32_BULK, BP32_BULK, "256", "flash_mib")).variant(),
            row("Kim et al. 2014 §4.1, Table 3", "AS B-tree without / with the Node Validation Manager, file size, the 400,000 records bulk-loaded", 642.0 / 70.0, ratio(NO_NVM_BULK, AS32_BULK, "256", "flash_mib")).variant(),
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
            row(source, "B+-tree / AS B-tree, insert time, measured on this disk (the X25-E: \"21%\")", faster(0.21), ratio(BP32, AS32, "insert", "time_us_per_op")).variant(),
            row(source, "B+-tree / AS B-tree, write time of the inserts, measured on this disk (the X25-E: \"50%\", Table 2)", 2.0, ratio(BP32, AS32, "insert", "write_time_s")).variant(),
            row(source, "AS B-tree / B+-tree, search time, measured on this disk (the X25-E: \"nearly the same\")", 1.0, ratio(AS32, BP32, "search", "time_us_per_op")).variant(),
        ],
        notes: "The published figures are the X25-E's; this disk is a virtual one whose sequential and random 8 KiB writes differ little (221 against 199 MB/s at queue depth 1, MACHINE-NOTES), so the Sequential Writer has little to gain here: the rows say how far this machine is from the paper's SSD, and `compare --predict x25e` puts the model's prediction beside such a measurement for any trace. Measured times vary from run to run with the host.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
