//! The Buffered-B+ tree paper's experiments on memory and flash type
//! (Agrawal et al. 2009 §6.3.2, §6.3.4, §6.3.5), on the setting and helpers
//! of `lat_buffered.rs`:
//!
//! * `lat-fig10a` / `lat-fig10b` (§6.3.2): memory from 8 KB to 1 MB, and
//!   the lookup ratio at 8 KB;
//! * `lat-fig11` (§6.3.4): response time on the Samsung large-block part;
//! * `lat-fig12a` (§6.3.5): the node cache's share of memory.

use super::lat::{OUR_NODES, PAPER_NODES};
use super::lat_buffered::{
    at, below, btree, each, latree, latree_adapt, q_axis, ratio, row, setting, variant, LARGE_1GB,
    MEMORY_256K, QUICK, SMALL_BLOCK,
};
use super::run_params::TABLES_OUTSIDE;
use super::{Axis, Chart, Experiment, Measure, Panel, RunKind};

const FIG10A: &str = "Agrawal et al. 2009 §6.3.2, Fig. 10(a)";
const FIG10A_MEMORY: &[&str] = &["8192", "16384", "65536", "262144", "1048576"];

pub(super) fn lat_fig10a() -> Experiment {
    let mut fixed = vec![
        ("device", "raw:toshiba-byte"),
        ("device.blocks", "65536"),
        TABLES_OUTSIDE,
        ("workload", "lat"),
        ("workload.search", "0.05"),
        ("preload", "200000"),
        ("inserts", "1000000"),
        ("final_flush", "true"),
    ];
    fixed.extend_from_slice(&PAPER_NODES);
    Experiment {
        id: "lat-fig10a",
        title: "Buffered-B+ tree vs the tuned B+-tree from 8 KB to 1 MB of memory (write-intensive)",
        source: FIG10A,
        paper_ran: "Memory from 8 KB to 1 MB (node table excluded), lookup-to-insert ratio 5%, a 200,000-key tree and 1 million insertions; Toshiba NAND; energy per operation.",
        we_ran: "As lat-fig9 at q = 5% (the paper's node layout, 6-byte key-pointer pairs), with a 200,000-entry tree and 1,000,000 inserts (--quick: 20,000 and 50,000) on a 65,536-block (1 GiB) `raw:toshiba-byte`, so that the Buffered-B+ tree's buffer partitions do not run short; memory per index on the axis. The `our node` series run our own node format with 4 + 4-byte entries, the setting before.",
        axis: Axis {
            param: "memory",
            label: "memory (bytes)",
            full: FIG10A_MEMORY.to_vec(),
            quick: vec!["8192", "65536", "1048576"],
            expand: None,
        },
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, our node", &OUR_NODES),
            variant(latree(), "Buffered-B+ tree, our node", &OUR_NODES),
        ],
        fixed,
        quick: vec![("preload", "20000"), ("inserts", "50000")],
        panels: vec![Panel::of("energy_uj_per_op", "energy per operation (microjoules)")],
        chart: Chart::Lines,
        published: vec![
            row(
                FIG10A,
                "B+-tree / Buffered-B+ tree, energy, every memory size (\"out-performs the B+ tree ... by 2.5 - 4x across the spectrum of memory constraints\")",
                3.25,
                "x",
                each(FIG10A_MEMORY, ratio("B+-tree", "Buffered-B+ tree", "8192", "energy_uj_per_op")),
            ),
            row(
                FIG10A,
                "... our node format, every memory size",
                3.25,
                "x",
                each(FIG10A_MEMORY, ratio("B+-tree, our node", "Buffered-B+ tree, our node", "8192", "energy_uj_per_op")),
            )
            .variant(),
        ],
        notes: "The text gives 2.5x to 4x across the memory range; the row compares each memory point with the middle of that range (within 1.5x of 3.25 is 2.17x to 4.9x). The buffer pool packs its pages better with more memory, so the ratio grows with memory. At q = 5% a lookup meets leaf-subtree buffers whose pages are part full, and the emptyings those lookups trigger each read a whole subtree; lat-fig9's 256 KiB rows show what a fuller pool does at 64 KiB's setting. The `our node` row is the setting before the paper's node format.",
        kind: RunKind::Index,
        axis_for: at(&["B+-tree, our node", "Buffered-B+ tree, our node"], &["8192", "65536", "1048576"]),
    }
}

const FIG10B: &str = "Agrawal et al. 2009 §6.3.2, Fig. 10(b)";

pub(super) fn lat_fig10b() -> Experiment {
    let mut fixed = setting();
    fixed.retain(|(k, _)| *k != "memory");
    fixed.push(("memory", "8192"));
    Experiment {
        id: "lat-fig10b",
        title: "Buffered-B+ tree vs the tuned B+-tree at 8 KB across the lookup ratio",
        source: FIG10B,
        paper_ran: "8 KB of memory, lookup-to-insert ratio swept; Toshiba NAND, the setting of Fig. 9(a); \"as shown in the figure\", a B+-tree of fanout 16 beside the optimized B+-tree of fanout 8.",
        we_ran: "As lat-fig9 with 8 KiB per index (the paper's node layout, 6-byte key-pointer pairs). `B+-tree, fanout 16` is the B+-tree with the Buffered-B+ tree's fanout and all 8 KiB as node cache.",
        axis: q_axis(vec!["0.01", "0.1", "0.25", "0.5", "0.75", "1", "2"]),
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, fanout 16", &[("set.fanout", "16")]),
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
                FIG10B,
                "Buffered-B+ tree / B+-tree, energy, every q below 60% (\"better than the optimized B+ tree when the lookup-to-insert-ratio is less than 60%\")",
                1.0,
                "x",
                each(&["0.01", "0.1", "0.25", "0.5"], below(ratio("Buffered-B+ tree", "B+-tree", "0.01", "energy_uj_per_op"))),
            ),
            row(
                FIG10B,
                "Buffered-B+ tree / B+-tree, energy, every q above 60% (\"about 5-10% worse\")",
                1.075,
                "x",
                each(&["0.75", "1", "2"], ratio("Buffered-B+ tree", "B+-tree", "0.75", "energy_uj_per_op")),
            ),
            row(
                FIG10B,
                "(Buffered-B+ tree / B+-tree of fanout 16) / (B+-tree of fanout 16 / fanout 8), energy, every q above 60% (\"this difference in fanout accounts for much of the difference\": below 1 when fanout is more than half the gap, in log terms)",
                1.0,
                "x",
                each(
                    &["0.75", "1", "2"],
                    below(Measure::Quotient(
                        Box::new(ratio("Buffered-B+ tree", "B+-tree, fanout 16", "0.75", "energy_uj_per_op")),
                        Box::new(ratio("B+-tree, fanout 16", "B+-tree", "0.75", "energy_uj_per_op")),
                    )),
                ),
            ),
            row(
                FIG10B,
                "Buffered-B+ tree / B+-tree, energy at q = 25%, a second seed",
                1.0,
                "x",
                below(ratio("Buffered-B+ tree, seed 2", "B+-tree, seed 2", "0.25", "energy_uj_per_op")),
            )
            .variant(),
            row(
                FIG10B,
                "Buffered-B+ tree / B+-tree, energy, both with 32 KiB, at q = 10%, 25% and 50%",
                1.0,
                "x",
                each(&["0.1", "0.25", "0.5"], below(ratio("Buffered-B+ tree, 32 KiB", "B+-tree, 32 KiB", "0.1", "energy_uj_per_op"))),
            )
            .variant(),
        ],
        notes: "The paper puts the crossover near 60% lookups and the Buffered-B+ tree 5-10% behind above it, mostly from its fanout of 16 against the B+-tree's 8, and less from its smaller node cache. The fanout row checks the first cause with the B+-tree of fanout 16 the text draws: read-intensive, the Buffered-B+ tree keeps small buffers and is close to that tree. At 8 KiB our Buffered-B+ tree's node cache is 2 KiB and its buffer pool 6 KiB for about 1,000 leaf-subtree buffers, so buffer pages go to flash nearly empty. Where \"better below 60%\" misses, the 32 KiB rows are the run that moves it (a pool four times larger packs its pages fuller), and the seed 2 row reruns q = 25% with another workload seed, so a miss there is not seed noise.",
        kind: RunKind::Index,
        axis_for: {
            let mut a = at(&["B+-tree, seed 2", "Buffered-B+ tree, seed 2"], &["0.25"]);
            a.extend(at(&["B+-tree, 32 KiB", "Buffered-B+ tree, 32 KiB"], &["0.1", "0.25", "0.5"]));
            a.extend(at(&["B+-tree, fanout 16"], &["0.75", "1", "2"]));
            a
        },
    }
}

const FIG11: &str = "Agrawal et al. 2009 §6.3.4, Fig. 11";

/// As many erase blocks as lat-fig9's small-block part: the variant that
/// gives the Buffered-B+ tree as many buffer partitions as there.
const BLOCKS_8192: (&str, &str) = ("device.blocks", "8192");

pub(super) fn lat_fig11() -> Experiment {
    let mut fixed = setting();
    fixed.retain(|(k, _)| !k.starts_with("device"));
    fixed.push(("device", "raw:samsung-large"));
    // Table 1's 1 Gb part: 2,048 blocks of 16 x 4 KiB pages.
    fixed.push(LARGE_1GB);
    let gain = |b: &'static str, l: &'static str| ratio(b, l, "0.01", "time_us_per_op");
    Experiment {
        id: "lat-fig11",
        title: "Buffered-B+ tree vs the tuned B+-tree on large-block flash: response time",
        source: FIG11,
        paper_ran: "The Samsung 1 Gb large-block NAND (4 KB pages, 64 KB erase blocks, Table 1; no energy figures, so response time), 64 KB of memory, the setting of Fig. 9(a).",
        we_ran: "As lat-fig9 (the paper's node layout, 6-byte key-pointer pairs) on `raw:samsung-large` with Table 1's 1 Gb (2,048 blocks of 16 x 4 KiB pages), time per operation; the small-block series run lat-fig9's Toshiba part. The B+-tree keeps fanout 8 and the Buffered-B+ tree 16, the fanouts the paper tunes on the small-block part. The `8,192 blocks` series give the large-block part as many erase blocks as the small-block one (512 MiB), so the Buffered-B+ tree gets as many buffer partitions.",
        axis: q_axis(vec!["0.01", "0.05", "0.1", "0.25", "0.5", "1", "2"]),
        series: vec![
            btree(),
            latree(),
            variant(btree(), "B+-tree, small-block", &SMALL_BLOCK),
            variant(latree(), "Buffered-B+ tree, small-block", &SMALL_BLOCK),
            variant(btree(), "B+-tree, 256 KiB", &[MEMORY_256K]),
            variant(latree(), "Buffered-B+ tree, 256 KiB", &[MEMORY_256K]),
            variant(btree(), "B+-tree, 8,192 blocks", &[BLOCKS_8192]),
            variant(latree(), "Buffered-B+ tree, 8,192 blocks", &[BLOCKS_8192]),
        ],
        fixed,
        quick: QUICK.to_vec(),
        panels: vec![Panel::of("time_us_per_op", "time per operation (microseconds)")],
        chart: Chart::Lines,
        published: vec![
            row(
                FIG11,
                "B+-tree / Buffered-B+ tree, time at q = 1% (\"gains of upto 15x for a write-intensive workload\")",
                15.0,
                "x",
                gain("B+-tree", "Buffered-B+ tree"),
            ),
            row(
                FIG11,
                "gain (B+-tree / Buffered-B+ tree, time) on small-block flash / the same on large-block, q = 1% (\"performs even better for the large block flash\")",
                1.0,
                "x",
                below(Measure::Quotient(
                    Box::new(gain("B+-tree, small-block", "Buffered-B+ tree, small-block")),
                    Box::new(gain("B+-tree", "Buffered-B+ tree")),
                )),
            ),
            row(
                FIG11,
                "B+-tree / Buffered-B+ tree, time at q = 1%, both with 256 KiB",
                15.0,
                "x",
                gain("B+-tree, 256 KiB", "Buffered-B+ tree, 256 KiB"),
            )
            .variant(),
            row(
                FIG11,
                "B+-tree / Buffered-B+ tree, time at q = 1%, a large-block part of 8,192 blocks",
                15.0,
                "x",
                gain("B+-tree, 8,192 blocks", "Buffered-B+ tree, 8,192 blocks"),
            )
            .variant(),
            row(
                FIG11,
                "gain on small-block flash / gain on a large-block part of 8,192 blocks, q = 1%",
                1.0,
                "x",
                below(Measure::Quotient(
                    Box::new(gain("B+-tree, small-block", "Buffered-B+ tree, small-block")),
                    Box::new(gain("B+-tree, 8,192 blocks", "Buffered-B+ tree, 8,192 blocks")),
                )),
            )
            .variant(),
        ],
        notes: "The text reports gains up to 15x when write-intensive on this part, from its larger gap between read and write fixed costs. The chip's size sets how many buffers hold a flash partition: half the blocks, two a partition. On Table 1's 1 Gb (2,048 blocks) that is 512 partitions for about 1,000 leaf-subtree buffers, so the Buffered-B+ tree also empties buffers because the chip ran short (the empties_space stat), which the paper's simulator, with partitions of \"a couple of erase blocks\" and no word of running short, does not describe. Where \"even better for the large block flash\" misses, the `8,192 blocks` rows are the run that moves it: as many blocks as the small-block part, so no buffer is emptied for space. The rest of the gap to 15x: our B+-tree packs many of its small nodes into each 4 KiB log page before programming it, so it writes few pages and its time is node reads at 25 µs fixed each.",
        kind: RunKind::Index,
        axis_for: at(
            &[
                "B+-tree, 256 KiB",
                "Buffered-B+ tree, 256 KiB",
                "B+-tree, small-block",
                "Buffered-B+ tree, small-block",
                "B+-tree, 8,192 blocks",
                "Buffered-B+ tree, 8,192 blocks",
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
        we_ran: "As lat-fig9 at q = 25% (the paper's node layout, 6-byte key-pointer pairs), sweeping node_cache_share.",
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
        notes: "The paper finds the minimum with about 75% of the memory in the buffer pool, the 25% node cache it then uses everywhere. ADAPT runs beside Adapt-Simple with no row of its own.",
        kind: RunKind::Index,
        axis_for: vec![],
    }
}
