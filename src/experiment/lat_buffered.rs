//! The Buffered-B+ tree paper's experiments on the buffered structures
//! (Agrawal et al. 2009 §6.2–6.3; `lat.rs` holds §6.1's delta schemes
//! and the B+-tree fanout of Fig. 12(b)):
//!
//! * `lat-fig7` (§6.2, Fig. 7): the tuned B+-tree against the buffer tree
//!   with delayed and with immediate lookups;
//! * `lat-fig8` (§6.3.3, Fig. 8): flash pages written;
//! * `lat-fig9` (§6.3.1, Fig. 9(a)–(b)): energy across the lookup ratio, and
//!   the buffer sizes the adaptive policies keep, Adapt-Simple beside ADAPT;
//! * `lat-fig10a` / `lat-fig10b` (§6.3.2): memory from 8 KB to 1 MB, and
//!   the lookup ratio at 8 KB;
//! * `lat-fig11` (§6.3.4): response time on the Samsung large-block part;
//! * `lat-fig12a` (§6.3.5): the node cache's share of memory.
//!
//! Every run ends with a flush, charged as its own row: what a buffered
//! index leaves in its buffers is emptied then, never free. Headlines are
//! judged in the paper's accounting (the workload's operations, the flush
//! row left out, as §6 measured), with the durable number (the flush
//! charged) beside them.

use super::run_params::TABLES_OUTSIDE;
use super::{Axis, Chart, Experiment, Measure, Panel, Published, RunKind, Series};

/// §6's setting: the Toshiba part with byte-level costs, 64 KB, the `lat`
/// workload (keys i.i.d. uniform in 1..10,000, a 50,000-key tree, then
/// 200,000 insertions with lookups at ratio q), a flush at the end.
fn setting() -> Vec<(&'static str, &'static str)> {
    vec![
        ("device", "raw:toshiba-byte"),
        ("device.blocks", "8192"),
        ("memory", "65536"),
        TABLES_OUTSIDE,
        ("workload", "lat"),
        ("preload", "50000"),
        ("inserts", "200000"),
        ("final_flush", "true"),
    ]
}

const QUICK: &[(&str, &str)] = &[("preload", "5000"), ("inserts", "20000")];

const WE_RAN: &str = "`raw:toshiba-byte` (8,192 blocks = 128 MiB, byte-level costs, nop = 1), 64 KiB per index for caches, buffers and scratch (`tables=outside`: node tables, the buffer directory and ADAPT's counters, the data-bound tables, stand beside the budget as §6 keeps the node table out, and are named in the Memory line); the `lat` workload: a 50,000-entry tree, then inserts and lookups at lookup-to-insert ratio q until 200,000 inserts (--quick: 5,000 and 20,000), keys i.i.d. uniform in 1..10,000; a flush after the last operation (it empties every buffer), charged as its own row. Each headline is the paper's accounting (energy per operation of the workload's operations, the flush row left out, as §6 measured), with the durable number (the flush charged) beside it. The tuned B+-tree is `btree` fanout 8 with an LRU cache in the node log; the Buffered-B+ tree is `latree` at its defaults (fanout 16, subtree height 2, Adapt-Simple, 25% node cache); the buffer tree is `buffer-tree` (super-nodes of 16 KiB, buffers of 32 KiB).";

fn btree() -> Series {
    Series {
        name: "B+-tree",
        params: vec![
            ("index", "btree"),
            ("set.fanout", "8"),
            ("set.cache", "lru"),
        ],
    }
}

fn buffer_tree(name: &'static str, lookup: &'static str) -> Series {
    Series {
        name,
        params: vec![("index", "buffer-tree"), ("set.lookup", lookup)],
    }
}

fn latree() -> Series {
    Series {
        name: "Buffered-B+ tree",
        params: vec![("index", "latree")],
    }
}

fn latree_adapt() -> Series {
    Series {
        name: "Buffered-B+ tree, ADAPT",
        params: vec![("index", "latree"), ("set.adapt", "adapt")],
    }
}

/// The paper's entry size (§6.3.6: "each key-pointer pair occupies 6
/// bytes"): 2-byte keys (the `lat` keys are 1..10,000) and 4-byte values,
/// where our default entry is 4 + 4. A buffer entry is then 7 bytes, a
/// fanout-16 node 170 (the paper's 100) and a fanout-8 node 90 (52).
const PAPER_ENTRIES: (&str, &str) = ("set.key_bytes", "2");

/// Four times §6's 64 KB: the buffer pool then holds the tail pages of the
/// ~1,000 leaf-subtree buffers the paper's pool holds with its smaller
/// entries and nodes (the variant that moves the misses below).
const MEMORY_256K: (&str, &str) = ("memory", "262144");

/// The node cache held at 64 KB's 16 KiB while the buffer pool grows to
/// 112 KiB: the run that isolates the pool as what sets the Buffered-B+
/// tree's pages written (lat-fig8).
const POOL_112K: [(&str, &str); 2] = [("memory", "131072"), ("set.node_cache_share", "0.125")];

/// §6's Toshiba small-block part (lat-fig9's device), for lat-fig11's
/// runs beside the large-block part.
const SMALL_BLOCK: [(&str, &str); 2] = [("device", "raw:toshiba-byte"), ("device.blocks", "8192")];

/// Table 1's 1 Gb large-block part: 2,048 blocks of 64 KiB (lat-fig11's
/// variant; its default has lat-fig9's 8,192 blocks).
const LARGE_1GB: (&str, &str) = ("device.blocks", "2048");

/// `base` renamed, with `extra` parameters: a variant run of a series.
fn variant(mut base: Series, name: &'static str, extra: &[(&'static str, &'static str)]) -> Series {
    base.name = name;
    base.params.extend_from_slice(extra);
    base
}

/// Variant series run at a few lookup ratios only (`axis_for`).
fn at(
    names: &[&'static str],
    xs: &[&'static str],
) -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    names
        .iter()
        .map(|&n| {
            (
                n,
                xs.to_vec(),
                xs.iter().copied().filter(|&x| x != "2").collect(),
            )
        })
        .collect()
}

fn q_axis(full: Vec<&'static str>) -> Axis {
    Axis {
        param: "workload.search",
        label: "lookup-to-insert ratio q",
        full,
        quick: vec!["0.01", "0.25", "1"],
        expand: None,
    }
}

fn row(
    source: &'static str,
    name: &'static str,
    value: f64,
    unit: &'static str,
    measured: Measure,
) -> Published {
    Published {
        name,
        source,
        value,
        unit,
        measured,
    }
}

fn ratio(a: &'static str, b: &'static str, x: &'static str, metric: &'static str) -> Measure {
    Measure::CellRatio { a, b, x, metric }
}

fn below(m: Measure) -> Measure {
    Measure::Below(Box::new(m))
}

/// One `below` row of `a` / `b` per point `(x, name)` of a sweep: a claim
/// the text makes for the whole sweep ("consistently", "even at") is
/// checked at every point.
fn below_at(
    source: &'static str,
    a: &'static str,
    b: &'static str,
    metric: &'static str,
    points: &[(&'static str, &'static str)],
) -> Vec<Published> {
    points
        .iter()
        .map(|&(x, name)| row(source, name, 1.0, "x", below(ratio(a, b, x, metric))))
        .collect()
}

pub(super) fn lat_fig7() -> Experiment {
    Experiment {
        id: "lat-fig7",
        title: "Buffer tree with delayed and immediate lookups vs a tuned B+-tree",
        source: "Agrawal et al. 2009 §6.2, Fig. 7",
        paper_ran: "The B+-tree at its best fanout (8) against the buffer tree with lookups batched with the insertions (delayed) and with lookups answered at once by scanning the path's nodes and buffers (immediate); Toshiba small-block NAND, 64 KB, 50,000-key tree, 200,000 insertions, lookup-to-insert ratio from 1% up; energy per operation.",
        we_ran: WE_RAN,
        axis: q_axis(vec!["0.01", "0.05", "0.1", "0.25", "0.5", "1"]),
        series: vec![
            btree(),
            buffer_tree("Buffer tree, delayed", "delayed"),
            buffer_tree("Buffer tree, immediate", "immediate"),
            variant(btree(), "B+-tree, 256 KiB", &[MEMORY_256K]),
            variant(
                buffer_tree("Buffer tree, immediate", "immediate"),
                "Buffer tree, immediate, 256 KiB",
                &[MEMORY_256K],
            ),
        ],
        fixed: setting(),
        quick: QUICK.to_vec(),
        panels: vec![
            Panel::of("energy_uj_per_op", "energy per operation (microjoules)"),
            Panel::of("page_reads", "flash page reads"),
        ],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.2, Fig. 7",
                "B+-tree / buffer tree (delayed), energy, mean over q (\"about 5x better\")",
                5.0,
                "x",
                Measure::MeanCellRatio { a: "B+-tree", b: "Buffer tree, delayed", metric: "energy_uj_per_op" },
            ),
            row(
                "Agrawal et al. 2009 §6.2, Fig. 7",
                "B+-tree / buffer tree (immediate) at q = 1% (\"considerably worse ... even for ... 1%\")",
                1.0,
                "x",
                below(ratio("B+-tree", "Buffer tree, immediate", "0.01", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.2, Fig. 7",
                "buffer tree (immediate): energy at q = 100% / at q = 1% (\"rises very rapidly\")",
                1.0,
                "x",
                below(Measure::AcrossX { series: "Buffer tree, immediate", x_a: "0.01", x_b: "1", metric: "energy_uj_per_op" }),
            ),
            row(
                "Agrawal et al. 2009 §6.2, Fig. 7",
                "B+-tree / buffer tree (immediate) at q = 1%, both with 256 KiB (the run that moves the row above)",
                1.0,
                "x",
                below(ratio("B+-tree, 256 KiB", "Buffer tree, immediate, 256 KiB", "0.01", "energy_uj_per_op")),
            ),
        ]
        .into_iter()
        .chain(below_at(
            "Agrawal et al. 2009 §6.2, Fig. 7",
            "B+-tree",
            "Buffer tree, immediate",
            "energy_uj_per_op",
            &[
                ("0.05", "B+-tree / buffer tree (immediate) at q = 5% (worse than the B+-tree from 1% up)"),
                ("0.1", "... at q = 10%"),
                ("0.25", "... at q = 25%"),
                ("0.5", "... at q = 50%"),
                ("1", "... at q = 100%"),
            ],
        ))
        .collect(),
        notes: "Fig. 7 prints no numbers; the text gives \"about 5x\" for the delayed buffer tree over the B+-tree and says the immediate one is worse than the B+-tree already at 1% and rises fast. Our buffer tree's super-nodes are a quarter of memory (the node cache must hold a node and its split sibling), half the paper's D = (M - 1)/2 elements, so an immediate lookup scans half the node bytes the paper's would; delayed lookups gain most when lookups are rare and lose their edge as they grow, since every lookup is an element written and read through every level. Moved by a run: with 256 KiB per index (the 256 KiB series, q up to 10%) the immediate buffer tree's buffers and super-nodes are four times larger and it is worse than the B+-tree at 1% as published; at 64 KiB its path holds so few bytes that a 1% share of lookups costs less than the B+-tree's leaf writes.",
        kind: RunKind::Index,
        axis_for: at(&["B+-tree, 256 KiB", "Buffer tree, immediate, 256 KiB"], &["0.01", "0.05", "0.1"]),
    }
}

pub(super) fn lat_fig8() -> Experiment {
    Experiment {
        id: "lat-fig8",
        title: "Flash pages written: B+-tree, buffer tree and Buffered-B+ tree",
        source: "Agrawal et al. 2009 §6.3.3, Fig. 8",
        paper_ran: "Pages written to flash by the three indexes in the setting of Fig. 9(a) (Toshiba NAND, 64 KB, uniform keys), across the lookup-to-insert ratio.",
        we_ran: WE_RAN,
        axis: q_axis(vec!["0.01", "0.05", "0.1", "0.25", "0.5", "1", "2"]),
        series: vec![
            btree(),
            buffer_tree("Buffer tree, delayed", "delayed"),
            latree(),
            variant(btree(), "B+-tree, 6-byte entries", &[PAPER_ENTRIES]),
            variant(latree(), "Buffered-B+ tree, 6-byte entries", &[PAPER_ENTRIES]),
            variant(btree(), "B+-tree, 256 KiB", &[MEMORY_256K]),
            variant(latree(), "Buffered-B+ tree, 256 KiB", &[MEMORY_256K]),
            variant(btree(), "B+-tree, seed 2", &[("replica", "2")]),
            variant(latree(), "Buffered-B+ tree, seed 2", &[("replica", "2")]),
            variant(latree(), "Buffered-B+ tree, 112 KiB pool", &POOL_112K),
        ],
        fixed: setting(),
        quick: QUICK.to_vec(),
        panels: vec![Panel::of("page_writes", "flash pages written")],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree / Buffered-B+ tree, pages written at q = 1% (\"3.5x fewer ... for write-intensive workloads\")",
                3.5,
                "x",
                ratio("B+-tree", "Buffered-B+ tree", "0.01", "page_writes"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "Buffered-B+ tree / B+-tree, pages written at q = 200% (\"consistently better\")",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree", "B+-tree", "2", "page_writes")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree / Buffered-B+ tree, pages written at q = 25% (issue #14: at least 2x)",
                2.0,
                "x",
                ratio("B+-tree", "Buffered-B+ tree", "0.25", "page_writes"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree / Buffered-B+ tree, pages written at q = 1%, the paper's 6-byte entries",
                3.5,
                "x",
                ratio("B+-tree, 6-byte entries", "Buffered-B+ tree, 6-byte entries", "0.01", "page_writes"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree / Buffered-B+ tree, pages written at q = 25%, 256 KiB (issue #14: at least 2x)",
                2.0,
                "x",
                ratio("B+-tree, 256 KiB", "Buffered-B+ tree, 256 KiB", "0.25", "page_writes"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "Buffered-B+ tree / B+-tree, pages written at q = 200%, 256 KiB (\"consistently better\")",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, 256 KiB", "B+-tree, 256 KiB", "2", "page_writes")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree / Buffered-B+ tree, pages written at q = 25%, a second seed (issue #14: at least 2x)",
                2.0,
                "x",
                ratio("B+-tree, seed 2", "Buffered-B+ tree, seed 2", "0.25", "page_writes"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.3, Fig. 8",
                "B+-tree (64 KiB) / Buffered-B+ tree with its 16 KiB node cache and a 112 KiB buffer pool, pages written at q = 25% (issue #14: at least 2x)",
                2.0,
                "x",
                ratio("B+-tree", "Buffered-B+ tree, 112 KiB pool", "0.25", "page_writes"),
            ),
        ]
        .into_iter()
        .chain(below_at(
            "Agrawal et al. 2009 §6.3.3, Fig. 8",
            "Buffered-B+ tree",
            "B+-tree",
            "page_writes",
            &[
                ("0.01", "Buffered-B+ tree / B+-tree, pages written at q = 1% (\"consistently better\", every point)"),
                ("0.05", "... at q = 5%"),
                ("0.1", "... at q = 10%"),
                ("0.25", "... at q = 25%"),
                ("0.5", "... at q = 50%"),
                ("1", "... at q = 100%"),
            ],
        ))
        .collect(),
        notes: "Fig. 8 prints no numbers; the text gives 3.5x fewer pages written than the B+-tree for write-intensive work and \"consistently better\". The 2x rows at q = 25% are issue #14's target, not a number of the paper. The headline's pages written leave out the final flush (the paper's accounting); the durable column charges it, and it empties every buffer (about 12% of the Buffered-B+ tree's pages at q = 25%, which is why the durable ratios are lower). At q = 25% with 64 KiB, half of what the Buffered-B+ tree writes is buffer pages, and their packing is set by how many tail pages the 48 KiB buffer pool holds for the ~1,200 buffers (1,190 hold entries at the final flush), nearly all of them leaf-subtree buffers: the highest-packed page goes to flash with about 22 entries of the 54 a page holds (43 with the 112 KiB pool, 53 with 256 KiB), and most entries reach flash in every buffer on their path: of the ~447,000 entries appended to the root's and the level-3 buffers, ~369,000 went to flash at 26 a page, and of the ~250,000 appended to leaf-subtree buffers, ~228,000 at 18 a page (the buffer_entries_appended_*, buffer_entries_written_* and buffer_pages_written_* stats; 46 and 39 a page with the 112 KiB pool, 53 and 51 with 256 KiB). The paper's 6-byte entries (our 9-byte buffer entries become 7, the nodes 178 and 98 bytes) do not move the ratio: the B+-tree's nodes shrink as much. At 64 KiB the Buffered-B+ tree writes fewer pages than the B+-tree at every q, but only by 7% at q = 200% (1% with the flush charged), and the issue's 2x at q = 25% is not met; a second seed gives the same ratio. Moved by runs: holding the node cache at 16 KiB and growing only the buffer pool to 112 KiB (the 112 KiB pool series) brings q = 25% to 2.44x (1.98x with the flush charged), the pool alone; 256 KiB per index takes it to 2.73x and q = 200% to 2.0x (1.7x with the flush charged). The other settings of the paper that we reproduce match its tuning (the energy minimum at a 25% node cache, lat-fig12a; fanout optima 8 and 16, lat-fig12b), so the gap is in how many entries a 64 KB pool holds per buffer, not in the policies.",
        kind: RunKind::Index,
        axis_for: {
            let mut a = at(
                &["B+-tree, 6-byte entries", "Buffered-B+ tree, 6-byte entries", "B+-tree, 256 KiB", "Buffered-B+ tree, 256 KiB"],
                &["0.01", "0.25", "2"],
            );
            a.extend(at(&["B+-tree, seed 2", "Buffered-B+ tree, seed 2"], &["0.25"]));
            a.extend(at(&["Buffered-B+ tree, 112 KiB pool"], &["0.01", "0.25", "2"]));
            a
        },
    }
}

pub(super) fn lat_fig9() -> Experiment {
    Experiment {
        id: "lat-fig9",
        title: "Buffered-B+ tree across the lookup ratio: energy and the buffer sizes it keeps",
        source: "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
        paper_ran: "Fig. 9(a): energy per operation of the B+-tree, the buffer tree and the Buffered-B+ tree (Adapt-Simple) as the workload goes from write- to read-intensive; Fig. 9(b): the buffer size the Buffered-B+ tree keeps as lookups ramp up; Toshiba NAND, 64 KB, uniform keys. Fig. 9(c) runs an image-sensor trace that is not available.",
        we_ran: WE_RAN,
        axis: q_axis(vec!["0.01", "0.05", "0.1", "0.25", "0.5", "1", "2"]),
        series: vec![
            btree(),
            buffer_tree("Buffer tree, delayed", "delayed"),
            latree(),
            latree_adapt(),
            variant(btree(), "B+-tree, 6-byte entries", &[PAPER_ENTRIES]),
            variant(latree(), "Buffered-B+ tree, 6-byte entries", &[PAPER_ENTRIES]),
            variant(
                buffer_tree("Buffer tree, delayed", "delayed"),
                "Buffer tree, delayed, 256 KiB",
                &[MEMORY_256K],
            ),
            variant(latree(), "Buffered-B+ tree, 256 KiB", &[MEMORY_256K]),
            variant(btree(), "B+-tree, 6-byte entries, 256 KiB", &[PAPER_ENTRIES, MEMORY_256K]),
            variant(latree(), "Buffered-B+ tree, 6-byte entries, 256 KiB", &[PAPER_ENTRIES, MEMORY_256K]),
        ],
        fixed: setting(),
        quick: QUICK.to_vec(),
        panels: vec![
            Panel::of("energy_uj_per_op", "energy per operation (microjoules)"),
            Panel::of("index.mean_buffer_entries_met", "entries in a buffer a lookup meets (mean)"),
        ],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / buffer tree (delayed), energy at q = 1% (\"works as well as the Buffer tree\")",
                1.0,
                "x",
                ratio("Buffered-B+ tree", "Buffer tree, delayed", "0.01", "energy_uj_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 200% (\"better than a B+ tree even in a read-intensive regime\")",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree", "B+-tree", "2", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "B+-tree / Buffered-B+ tree, energy at q = 1% (Fig. 9(c): \"about 4x better ... for write intensive\")",
                4.0,
                "x",
                ratio("B+-tree", "Buffered-B+ tree", "0.01", "energy_uj_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "buffer size a lookup meets, q = 200% / q = 1% (Fig. 9(b): \"reduces their size rapidly\")",
                1.0,
                "x",
                below(Measure::AcrossX { series: "Buffered-B+ tree", x_a: "2", x_b: "0.01", metric: "index.mean_buffer_entries_met" }),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / buffer tree (delayed), energy at q = 1%, both with 256 KiB",
                1.0,
                "x",
                ratio("Buffered-B+ tree, 256 KiB", "Buffer tree, delayed, 256 KiB", "0.01", "energy_uj_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 200%, the paper's 6-byte entries and 256 KiB",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, 6-byte entries, 256 KiB", "B+-tree, 6-byte entries, 256 KiB", "2", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "B+-tree / Buffered-B+ tree, energy at q = 1%, the paper's 6-byte entries",
                4.0,
                "x",
                ratio("B+-tree, 6-byte entries", "Buffered-B+ tree, 6-byte entries", "0.01", "energy_uj_per_op"),
            ),
        ]
        .into_iter()
        .chain(below_at(
            "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
            "Buffered-B+ tree",
            "B+-tree",
            "energy_uj_per_op",
            &[
                ("0.05", "Buffered-B+ tree / B+-tree, energy at q = 5% (\"always able to amortize insertion costs\": better at every point)"),
                ("0.1", "... at q = 10%"),
                ("0.25", "... at q = 25%"),
                ("0.5", "... at q = 50%"),
                ("1", "... at q = 100%"),
            ],
        ))
        .chain([
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 100%, with ADAPT (§4.3, the algorithm Adapt-Simple approximates)",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, ADAPT", "B+-tree", "1", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.1, Fig. 9(a)-(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 100%, the paper's 6-byte entries and 256 KiB",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, 6-byte entries, 256 KiB", "B+-tree, 6-byte entries, 256 KiB", "1", "energy_uj_per_op")),
            ),
        ])
        .collect(),
        notes: "The 4x row is Fig. 9(c)'s figure for the sensor trace, which the text calls very similar to Fig. 9(a) (lat-fig9c runs our phase-shifting stand-in). ADAPT runs beside Adapt-Simple (the paper's implementation) to show how close the simple rule gets; ADAPT's counters are reported (adapt_counter_bytes), outside the 64 KiB. Read-intensive, the Buffered-B+ tree is the B+-tree with a fanout-16 node of 208 bytes (the B+-tree's fanout-8 node is 112) and a 16 KiB node cache (the B+-tree's is 64 KiB). Moved by runs: the paper's 6-byte entries raise the write-intensive ratio (4.50x against 4.25x); with 256 KiB the Buffered-B+ tree comes within 1.2x of the buffer tree's energy at q = 1% (its pool then holds more of the ~1,000 leaf-subtree buffers' tail pages, so its buffer pages go out fuller); with both, it is better than the B+-tree at q = 200% as published (and at q = 100%: 0.88 at full scale). ADAPT, which empties the buffers lookups meet sooner (13 entries met at q = 100% against Adapt-Simple's 20), is better than the B+-tree at q = 100% (0.96) but not at 200% (1.03). In the paper's accounting at full scale the write-intensive ratio is 4.25x (3.25x with the flush charged) and q = 200% gives 1.10 (1.11): the lookups there cost 138.3 µJ against the B+-tree's 99.3 although they read fewer pages (5.0 against 5.7 a lookup), since 0.90 of them a lookup are buffer pages holding about 16 entries, 0.05 a lookup is an emptying that reads a whole subtree and erases a buffer partition, and the fanout-16 nodes are 208 bytes against 112. Between q = 1% and 10% our Buffered-B+ tree's energy more than doubles (16.3 to 37.0 µJ), where the paper's stays about 4x below the B+-tree's: each lookup scans buffer pages holding about 25 entries of the 56 a page holds.",
        kind: RunKind::Index,
        axis_for: {
            let mut a = at(&["B+-tree, 6-byte entries", "Buffered-B+ tree, 6-byte entries"], &["0.01", "0.25", "2"]);
            a.extend(at(&["Buffer tree, delayed, 256 KiB", "Buffered-B+ tree, 256 KiB"], &["0.01", "0.25"]));
            a.extend(at(&["B+-tree, 6-byte entries, 256 KiB", "Buffered-B+ tree, 6-byte entries, 256 KiB"], &["0.25", "1", "2"]));
            a
        },
    }
}

pub(super) fn lat_fig10a() -> Experiment {
    Experiment {
        id: "lat-fig10a",
        title: "Buffered-B+ tree vs the tuned B+-tree from 8 KB to 1 MB of memory (write-intensive)",
        source: "Agrawal et al. 2009 §6.3.2, Fig. 10(a)",
        paper_ran: "Memory from 8 KB to 1 MB (node table excluded), lookup-to-insert ratio 5%, a 200,000-key tree and 1 million insertions; Toshiba NAND; energy per operation.",
        we_ran: "As lat-fig9 at q = 5%, with a 200,000-entry tree and 1,000,000 inserts (--quick: 20,000 and 50,000) on a 65,536-block (1 GiB) `raw:toshiba-byte`, so that the Buffered-B+ tree's buffer partitions do not run short; memory per index on the axis.",
        axis: Axis {
            param: "memory",
            label: "memory (bytes)",
            full: vec!["8192", "16384", "65536", "262144", "1048576"],
            quick: vec!["8192", "65536", "1048576"],
            expand: None,
        },
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, 6-byte entries", &[PAPER_ENTRIES]),
            variant(latree(), "Buffered-B+ tree, 6-byte entries", &[PAPER_ENTRIES]),
        ],
        fixed: vec![
            ("device", "raw:toshiba-byte"),
            ("device.blocks", "65536"),
            TABLES_OUTSIDE,
            ("workload", "lat"),
            ("workload.search", "0.05"),
            ("preload", "200000"),
            ("inserts", "1000000"),
            ("final_flush", "true"),
        ],
        quick: vec![("preload", "20000"), ("inserts", "50000")],
        panels: vec![Panel::of("energy_uj_per_op", "energy per operation (microjoules)")],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(a)",
                "B+-tree / Buffered-B+ tree, energy, mean over memory (\"2.5 - 4x\")",
                3.25,
                "x",
                Measure::MeanCellRatio { a: "B+-tree", b: "Buffered-B+ tree", metric: "energy_uj_per_op" },
            ),
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(a)",
                "B+-tree / Buffered-B+ tree, energy, mean over memory, the paper's 6-byte entries",
                3.25,
                "x",
                Measure::MeanCellRatio {
                    a: "B+-tree, 6-byte entries",
                    b: "Buffered-B+ tree, 6-byte entries",
                    metric: "energy_uj_per_op",
                },
            ),
        ]
        .into_iter()
        .chain(
            [
                ("8192", "B+-tree / Buffered-B+ tree, energy at 8 KiB (\"2.5 - 4x across the spectrum\", every point)"),
                ("16384", "... at 16 KiB"),
                ("65536", "... at 64 KiB"),
                ("262144", "... at 256 KiB"),
                ("1048576", "... at 1 MiB"),
            ]
            .into_iter()
            .map(|(x, name)| {
                row(
                    "Agrawal et al. 2009 §6.3.2, Fig. 10(a)",
                    name,
                    3.25,
                    "x",
                    ratio("B+-tree", "Buffered-B+ tree", x, "energy_uj_per_op"),
                )
            }),
        )
        .collect(),
        notes: "The text gives 2.5x to 4x across the memory range; the rows compare the mean over our memory points with the middle of that range. In the paper's accounting (full scale) the ratio grows with memory, 1.80x at 8 KiB, 1.84x at 16 KiB, 2.02x at 64 KiB, 2.29x at 256 KiB and 2.16x at 1 MiB (mean 2.02x; 1.89x with the flush charged): every point is short of 2.5x, and only the 256 KiB one is within 1.5x of the middle of the range (the buffer pool packs its pages better with more memory); the paper's 6-byte entries (2-byte keys, the second row) pack more entries into the same memory but move the mean little, since the B+-tree's nodes shrink too. At q = 5% a lookup meets leaf-subtree buffers of about 80 entries whose pages hold about 26 each (lat-fig9), and the emptyings those lookups trigger each read a whole subtree: that is where the paper's 2.5-4x is lost.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

pub(super) fn lat_fig10b() -> Experiment {
    let mut fixed = setting();
    fixed.retain(|(k, _)| *k != "memory");
    fixed.push(("memory", "8192"));
    Experiment {
        id: "lat-fig10b",
        title: "Buffered-B+ tree vs the tuned B+-tree at 8 KB across the lookup ratio",
        source: "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
        paper_ran: "8 KB of memory, lookup-to-insert ratio swept; Toshiba NAND, the setting of Fig. 9(a).",
        we_ran: "As lat-fig9 with 8 KiB per index.",
        axis: q_axis(vec!["0.01", "0.1", "0.25", "0.5", "0.75", "1", "2"]),
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, seed 2", &[("replica", "2")]),
            variant(latree(), "Buffered-B+ tree, seed 2", &[("replica", "2")]),
            variant(btree(), "B+-tree, 32 KiB", &[("memory", "32768")]),
            variant(latree(), "Buffered-B+ tree, 32 KiB", &[("memory", "32768")]),
        ],
        fixed,
        quick: QUICK.to_vec(),
        panels: vec![Panel::of("energy_uj_per_op", "energy per operation (microjoules)")],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 25% (\"better ... when the lookup-to-insert-ratio is less than 60%\")",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree", "B+-tree", "0.25", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 200% (\"about 5-10% worse\")",
                1.075,
                "x",
                ratio("Buffered-B+ tree", "B+-tree", "2", "energy_uj_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 25%, a second seed",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, seed 2", "B+-tree, seed 2", "0.25", "energy_uj_per_op")),
            ),
            row(
                "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
                "Buffered-B+ tree / B+-tree, energy at q = 25%, both with 32 KiB",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, 32 KiB", "B+-tree, 32 KiB", "0.25", "energy_uj_per_op")),
            ),
        ]
        .into_iter()
        .chain(below_at(
            "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
            "Buffered-B+ tree",
            "B+-tree",
            "energy_uj_per_op",
            &[
                ("0.01", "Buffered-B+ tree / B+-tree, energy at q = 1% (better below 60%, every point)"),
                ("0.1", "... at q = 10%"),
                ("0.5", "... at q = 50%"),
            ],
        ))
        .chain(below_at(
            "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
            "Buffered-B+ tree, 32 KiB",
            "B+-tree, 32 KiB",
            "energy_uj_per_op",
            &[("0.5", "Buffered-B+ tree / B+-tree, energy at q = 50%, both with 32 KiB (the run that moves the row at q = 50%)")],
        ))
        .chain(
            [
                ("0.75", "Buffered-B+ tree / B+-tree, energy at q = 75% (\"about 5-10% worse\" above 60%, every point)"),
                ("1", "... at q = 100%"),
            ]
            .into_iter()
            .map(|(x, name)| {
                row(
                    "Agrawal et al. 2009 §6.3.2, Fig. 10(b)",
                    name,
                    1.075,
                    "x",
                    ratio("Buffered-B+ tree", "B+-tree", x, "energy_uj_per_op"),
                )
            }),
        )
        .collect(),
        notes: "The paper puts the crossover near 60% lookups and the Buffered-B+ tree 5-10% behind above it, from its fanout of 16 against the B+-tree's 8 and its smaller node cache. At 8 KiB our Buffered-B+ tree's node cache is 2 KiB, seven 208-byte nodes with the node log's write buffer. In the paper's accounting (full scale) the ratio is 0.29 at q = 1%, 0.63 at 10%, 0.90 at 25%, 1.12 at 50%, 1.22 at 75%, 1.27 at 100% and 1.34 at 200%. Our crossover is between q = 25% and 50%, not near 60%: at 8 KiB the buffer pool is 6 KiB for about 1,000 leaf-subtree buffers, so buffer pages go to flash with about 6 entries each. The seed 2 series reruns q = 25% with another workload seed (the `replica` parameter changes only the seed) and gives the same ratio, so the miss is not seed noise. Moved by a run: with 32 KiB the crossover moves past 50% (0.96 at q = 50%; 13 entries a buffer page at q = 25%), and with lat-fig9's 64 KiB it is between 50% and 100%, near the paper's 60%; at 8 KiB no other setting we tried moved it (6-byte entries, node cache shares, ADAPT, fanout 32).",
        kind: RunKind::Index,
        axis_for: {
            let mut a = at(&["B+-tree, seed 2", "Buffered-B+ tree, seed 2"], &["0.25"]);
            a.extend(at(&["B+-tree, 32 KiB", "Buffered-B+ tree, 32 KiB"], &["0.1", "0.25", "0.5"]));
            a
        },
    }
}

pub(super) fn lat_fig11() -> Experiment {
    let mut fixed = setting();
    fixed.retain(|(k, _)| !k.starts_with("device"));
    fixed.push(("device", "raw:samsung-large"));
    // As many erase blocks as lat-fig9's small-block part, so the buffers
    // get as many partitions (half the chip, two blocks each: 2,048). Table
    // 1's 1 Gb (2,048 blocks of 64 KiB) leaves 512 partitions for ~1,000
    // leaf-subtree buffers, and the chip running short empties buffers
    // that the paper's simulator never had to (empties_space; the 1 Gb
    // series shows it).
    fixed.push(("device.blocks", "8192"));
    Experiment {
        id: "lat-fig11",
        title: "Buffered-B+ tree vs the tuned B+-tree on large-block flash: response time",
        source: "Agrawal et al. 2009 §6.3.4, Fig. 11",
        paper_ran: "The Samsung large-block NAND (4 KB pages, Table 1; no energy figures, so response time), 64 KB of memory, the setting of Fig. 9(a).",
        we_ran: "As lat-fig9 on `raw:samsung-large` (8,192 blocks of 16 x 4 KiB pages = 512 MiB: as many blocks as lat-fig9's part, so as many buffer partitions; the `1 Gb part` series run Table 1's 2,048 blocks), time per operation. The B+-tree keeps fanout 8 and the Buffered-B+ tree 16, the fanouts the paper tunes on the small-block part.",
        axis: q_axis(vec!["0.01", "0.05", "0.1", "0.25", "0.5", "1", "2"]),
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, 256 KiB", &[MEMORY_256K]),
            variant(latree(), "Buffered-B+ tree, 256 KiB", &[MEMORY_256K]),
            variant(btree(), "B+-tree, small-block", &SMALL_BLOCK),
            variant(latree(), "Buffered-B+ tree, small-block", &SMALL_BLOCK),
            variant(btree(), "B+-tree, 1 Gb part", &[LARGE_1GB]),
            variant(latree(), "Buffered-B+ tree, 1 Gb part", &[LARGE_1GB]),
        ],
        fixed,
        quick: QUICK.to_vec(),
        panels: vec![Panel::of("time_us_per_op", "time per operation (microseconds)")],
        chart: Chart::Lines,
        published: vec![
            row(
                "Agrawal et al. 2009 §6.3.4, Fig. 11",
                "B+-tree / Buffered-B+ tree, time at q = 1% (\"gains of upto 15x for a write-intensive workload\")",
                15.0,
                "x",
                ratio("B+-tree", "Buffered-B+ tree", "0.01", "time_us_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.4, Fig. 11",
                "B+-tree / Buffered-B+ tree, time at q = 1%, both with 256 KiB",
                15.0,
                "x",
                ratio("B+-tree, 256 KiB", "Buffered-B+ tree, 256 KiB", "0.01", "time_us_per_op"),
            ),
            row(
                "Agrawal et al. 2009 §6.3.4, Fig. 11",
                "gain (B+-tree / Buffered-B+ tree, time) on small-block flash / the same on large-block, q = 1% (\"performs even better for the large block flash\")",
                1.0,
                "x",
                below(Measure::Quotient(
                    Box::new(ratio("B+-tree, small-block", "Buffered-B+ tree, small-block", "0.01", "time_us_per_op")),
                    Box::new(ratio("B+-tree", "Buffered-B+ tree", "0.01", "time_us_per_op")),
                )),
            ),
            row(
                "Agrawal et al. 2009 §6.3.4, Fig. 11",
                "B+-tree / Buffered-B+ tree, time at q = 1%, on Table 1's 1 Gb part (2,048 blocks: buffer partitions run short)",
                15.0,
                "x",
                ratio("B+-tree, 1 Gb part", "Buffered-B+ tree, 1 Gb part", "0.01", "time_us_per_op"),
            ),
        ],
        notes: "The text reports gains up to 15x when write-intensive on this part, from its larger gap between read and write fixed costs. The chip's size sets how many buffers hold a flash partition: half the blocks, two a partition. On Table 1's 1 Gb (2,048 blocks, the 1 Gb part series) that is 512 partitions for about 1,000 leaf-subtree buffers, and the Buffered-B+ tree empties buffers because the chip ran short (8,580 such emptyings at q = 1% at full scale, none on the small-block part's 2,048 partitions): 39.0 µs an operation and a gain of 2.50x, below the small-block part's 4.37x. With lat-fig9's 8,192 blocks (the default here, 512 MiB) no buffer is emptied for space, the Buffered-B+ tree takes 17.2 µs an operation and the gain is 5.66x, above the small-block gain as the text says; 256 KiB takes it to 5.8x. The rest of the gap to 15x: our B+-tree packs 36 of its 112-byte nodes into each 4 KiB log page before programming it, so it writes few pages (about 7,800 in a run) and its time is node reads (592,000 of them at 25 µs fixed each).",
        kind: RunKind::Index,
        axis_for: at(
            &[
                "B+-tree, 256 KiB",
                "Buffered-B+ tree, 256 KiB",
                "B+-tree, small-block",
                "Buffered-B+ tree, small-block",
                "B+-tree, 1 Gb part",
                "Buffered-B+ tree, 1 Gb part",
            ],
            &["0.01", "0.25"],
        ),
    }
}

pub(super) fn lat_fig12a() -> Experiment {
    let mut fixed = setting();
    fixed.push(("workload.search", "0.25"));
    fixed.push(("index", "latree"));
    Experiment {
        id: "lat-fig12a",
        title: "Buffered-B+ tree: the node cache's share of memory",
        source: "Agrawal et al. 2009 §6.3.5, Fig. 12(a)",
        paper_ran: "64 KB split between the node cache and the buffer pool, lookup-to-insert ratio 25%; Toshiba NAND.",
        we_ran: "As lat-fig9 at q = 25%, sweeping node_cache_share.",
        axis: Axis {
            param: "set.node_cache_share",
            label: "node cache share of memory",
            full: vec!["0.1", "0.25", "0.4", "0.5", "0.6", "0.75", "0.9"],
            quick: vec!["0.1", "0.25", "0.75"],
            expand: None,
        },
        series: vec![latree(), latree_adapt()],
        fixed,
        quick: QUICK.to_vec(),
        panels: vec![Panel::of("energy_uj_per_op", "energy per operation (microjoules)")],
        chart: Chart::Lines,
        published: vec![row(
                "Agrawal et al. 2009 §6.3.5, Fig. 12(a)",
            "node cache share with the lowest energy (\"the minimum ... around 75%\" to the buffer pool)",
            0.25,
            "",
            Measure::ArgMin { series: "Buffered-B+ tree", metric: "energy_uj_per_op" },
        )],
        notes: "The paper finds the minimum with about 75% of the memory in the buffer pool, the 25% node cache it then uses everywhere.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}

fn phase(series: &'static str, from: &'static str, to: &'static str) -> Measure {
    Measure::Segment {
        series,
        x_from: from,
        x_to: to,
        metric: "measured_energy_j",
    }
}

pub(super) fn lat_fig9c() -> Experiment {
    let mut fixed = setting();
    fixed.retain(|(k, _)| !matches!(*k, "workload" | "inserts"));
    fixed.push(("workload", "lat-phases"));
    fixed.push(("workload.phase_ops", "100000"));
    let source = "Agrawal et al. 2009 §6.3.1, Fig. 9(c)";
    let phase_ratio = |name, from, to| {
        row(
            source,
            name,
            if from == "100000" { 1.2 } else { 4.0 },
            "x",
            Measure::Quotient(
                Box::new(phase("B+-tree", from, to)),
                Box::new(phase("Buffered-B+ tree", from, to)),
            ),
        )
    };
    let phase_ratio_256k = |name, from, to| {
        row(
            source,
            name,
            if from == "100000" { 1.2 } else { 4.0 },
            "x",
            Measure::Quotient(
                Box::new(phase("B+-tree, 6-byte entries, 256 KiB", from, to)),
                Box::new(phase("Buffered-B+ tree, 6-byte entries, 256 KiB", from, to)),
            ),
        )
    };
    Experiment {
        id: "lat-fig9c",
        title: "A workload that shifts from write- to read-intensive and back",
        source,
        paper_ran: "An image-sensor trace (visual terms of 200 images from a camera sensor network) on the B+-tree, the buffer tree and the Buffered-B+ tree, 64 KB, Toshiba NAND: \"about 4x better than the B+ tree for write intensive workloads and about 20% better for read intensive workloads\".",
        we_ran: "The trace is not available; the `lat-phases` preset stands in for it: the `lat` keys, then 100,000 operations with lookups at 5% of inserts, 100,000 at 200%, and 100,000 at 5% again. The axis runs the first 100,000, 200,000 and 300,000 operations, each run ending with its own charged flush; a phase's energy is what the longer run adds. In the paper's accounting (the headline) each run's flush is left out, so a phase is the energy of its own operations; the durable column charges each run's flush, so a phase there also carries the change in what the flush costs. The seed leaves out `ops`, the axis, and the phases have a fixed length (`phase_ops`), so the three runs replay one stream of operations, each a prefix of the next: a phase is exactly the operations the longer run adds. Setting otherwise as lat-fig9.",
        axis: Axis {
            param: "ops",
            label: "operations run (phases of 100,000: write-, read-, write-intensive)",
            full: vec!["100000", "200000", "300000"],
            quick: vec!["100000", "200000"],
            expand: None,
        },
        series: vec![
            btree(),
            buffer_tree("Buffer tree, delayed", "delayed"),
            latree(),
            latree_adapt(),
            variant(btree(), "B+-tree, 6-byte entries, 256 KiB", &[PAPER_ENTRIES, MEMORY_256K]),
            variant(latree(), "Buffered-B+ tree, 6-byte entries, 256 KiB", &[PAPER_ENTRIES, MEMORY_256K]),
        ],
        fixed,
        quick: vec![("preload", "5000")],
        panels: vec![
            Panel::of("energy_uj_per_op", "energy per operation so far (microjoules)"),
            Panel::of("index.mean_buffer_entries_met", "entries in a buffer a lookup meets (mean)"),
        ],
        chart: Chart::Lines,
        published: vec![
            row(
                source,
                "B+-tree / Buffered-B+ tree, energy of the first, write-intensive phase (\"about 4x better\")",
                4.0,
                "x",
                ratio("B+-tree", "Buffered-B+ tree", "100000", "energy_uj_per_op"),
            ),
            phase_ratio(
                "B+-tree / Buffered-B+ tree, energy of the read-intensive phase (\"about 20% better\")",
                "100000",
                "200000",
            ),
            phase_ratio(
                "B+-tree / Buffered-B+ tree, energy of the last, write-intensive phase (\"about 4x better\")",
                "200000",
                "300000",
            ),
            row(
                source,
                "B+-tree / Buffered-B+ tree, first phase, the paper's 6-byte entries and 256 KiB",
                4.0,
                "x",
                ratio("B+-tree, 6-byte entries, 256 KiB", "Buffered-B+ tree, 6-byte entries, 256 KiB", "100000", "energy_uj_per_op"),
            ),
            phase_ratio_256k(
                "B+-tree / Buffered-B+ tree, read-intensive phase, the paper's 6-byte entries and 256 KiB",
                "100000",
                "200000",
            ),
            phase_ratio_256k(
                "B+-tree / Buffered-B+ tree, last phase, the paper's 6-byte entries and 256 KiB",
                "200000",
                "300000",
            ),
        ],
        notes: "A phase's energy is the difference between two runs of different lengths; the headline leaves each run's final flush out (the paper's accounting), the durable column keeps both. The paper's trace is temporally correlated in ways uniform keys are not (§6.3.1 notes that caching then helps the B+-tree). The last three rows rerun the B+-tree and the Buffered-B+ tree with the paper's 6-byte entries and 256 KiB, the settings that move lat-fig8's and lat-fig9's misses: they raise the last phase's ratio (2.2x to 2.9x) but not the first's, and the read-intensive phase stays behind the B+-tree, as lat-fig9 is at q = 200% with 6-byte entries alone.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
