//! The lifetime projection against a hand computation on a small chip
//! (issue #30, point 2): erases counted block by block, the busiest block
//! deciding, the daily rate dividing; and `run --ops-per-day` printing it.

use std::process::Command;

use flashix::device::{BlockDevice, CostModel, Flash, Ftl, FtlConfig, Geometry, Nand, RunWear};

/// A chip of 6 blocks of 4 pages; the FTL keeps 2 blocks in reserve and one
/// active, so with no over-provisioning it offers (6 − 3) × 4 = 12 pages.
fn chip() -> Ftl<Nand> {
    let g = Geometry {
        page_size: 16,
        pages_per_block: 4,
        blocks: 6,
        spare_size: 16,
        nop: 1,
        endurance: 1000,
    };
    let nand = Nand::new("tiny", g, CostModel::FREE).unwrap();
    Ftl::new(
        nand,
        FtlConfig {
            overprovision: 0.0,
            ..FtlConfig::default()
        },
    )
    .unwrap()
}

/// Writes LBAs 1, 2, 3 once (cold data), then LBA 0 `hot` times.
///
/// By hand, writes numbered from 1: writes 1–4 fill block 0 (LBAs 1, 2, 3
/// and the first LBA 0), which keeps 3 valid pages for good; writes 5–16
/// fill blocks 1, 2, 3 (each left with nothing valid once LBA 0 moves on).
/// At write 17 only the 2 reserve blocks are free, so garbage collection
/// runs before it and at every fourth write after (21, 25, ...): the
/// victim is the lowest-numbered block with the fewest valid pages (0),
/// erased without a copy and reused at once. At write 17 the candidates
/// with 0 valid are blocks 1 and 2 (LBA 0 is on block 3): block 1. At 21,
/// blocks 2 and 3: block 2. At 25, blocks 1 and 3 (LBA 0 is on block 2):
/// block 1; at 29, blocks 2 and 3: block 2; and so on: blocks 1 and 2
/// take turns, block 3 is never erased again, block 0 (cold) never, and
/// blocks 4 and 5 stay the reserve. With `3 + hot` writes the collections
/// number ⌊(3 + hot − 17) / 4⌋ + 1.
fn hammer(ftl: &mut Ftl<Nand>, hot: u64) {
    let page = [0xABu8; 16];
    for lba in 1..=3 {
        ftl.write(lba, 0, &page).unwrap();
    }
    for _ in 0..hot {
        ftl.write(0, 0, &page).unwrap();
    }
}

#[test]
fn the_busiest_block_and_the_daily_rate_give_the_lifetime_by_hand() {
    let mut ftl = chip();
    let before = ftl.flash().wear();
    // 3 + 94 = 97 writes: ⌊(97 − 17) / 4⌋ + 1 = 21 collections, 11 of
    // block 1 and 10 of block 2.
    hammer(&mut ftl, 94);
    let after = ftl.flash().wear();
    assert_eq!(after.erased, vec![(1, 11), (2, 10)], "erases by block");
    assert_eq!(ftl.stats().erases, 21);
    assert_eq!(ftl.stats().gc_copies, 0, "every victim held nothing valid");
    let run = RunWear::between(&before, &after, 97);
    assert_eq!(
        (run.busiest_block, run.busiest_erases, run.erases),
        (Some(1), 11, 21)
    );
    // Block 1 reaches its 1,000 erases after 1,000 / 11 of these runs of
    // 97 operations: 8,818.18 operations; at 97 operations a day, 90.909
    // days. Spread over all 6 blocks the 21 erases would last
    // 1,000 × 6 / 21 = 285.714 days.
    let ops = run.ops_to_wear_out().unwrap();
    assert!((ops - 1000.0 * 97.0 / 11.0).abs() < 1e-9, "{ops}");
    let l = run.lifetime(97.0);
    assert!((l.days.unwrap() - 1000.0 / 11.0).abs() < 1e-9, "{l:?}");
    assert!(
        (l.days_even_wear.unwrap() - 6000.0 / 21.0).abs() < 1e-9,
        "{l:?}"
    );
    assert_eq!(l.basis_erases, 11);
    // Twice the rate, half the days.
    assert!((run.lifetime(194.0).days.unwrap() - 500.0 / 11.0).abs() < 1e-9);
    // The chip's own snapshot: min 0 (blocks never erased), max 11, mean
    // 21 / 6, and a histogram of one bucket per count up to 11.
    assert_eq!((after.min, after.max), (0, 11));
    assert!((after.mean - 3.5).abs() < 1e-12);
    assert_eq!(after.histogram.width, 1);
    assert_eq!(after.histogram.blocks[0], 4);
    assert_eq!(after.histogram.blocks[10], 1);
    assert_eq!(after.histogram.blocks[11], 1);
}

#[test]
fn a_copy_of_the_chip_wears_on_its_own() {
    let mut ftl = chip();
    hammer(&mut ftl, 30);
    let mut copy = ftl.try_clone_same().unwrap();
    assert_eq!(copy.flash().wear(), ftl.flash().wear());
    assert_eq!(copy.stats(), ftl.stats());
    hammer(&mut copy, 64);
    assert!(copy.flash().wear().total() > ftl.flash().wear().total());
    let mut buf = [0u8; 16];
    ftl.read(2, 0, &mut buf).unwrap();
    assert_eq!(buf, [0xAB; 16], "the original still reads its data");
}

/// Runs the command line with `args`, which must succeed; its stdout with
/// wrapped lines joined.
fn flashix(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).replace("\n  ", " ")
}

/// `run --ops-per-day` prints the projection the JSON's wear gives.
#[test]
fn run_prints_the_lifetime_at_a_daily_rate() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let text = flashix(&[
        "run",
        "--index",
        "btree",
        "--set",
        "cache=none",
        "--workload",
        "insert-uniform",
        "--ops",
        "20000",
        "--device-set",
        "endurance=1000",
        "--occupancy",
        "0.8",
        "--ops-per-day",
        "5000",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ]);
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let w = &r["wear"];
    let (ops, busiest) = (
        w["ops"].as_f64().unwrap(),
        w["busiest_erases"].as_f64().unwrap(),
    );
    assert!(
        busiest > 0.0,
        "a cacheless B+-tree on a full chip erases: {w}"
    );
    let days = 1000.0 * ops / busiest / 5000.0;
    let years = days / 365.25;
    let shown = if years >= 9.95 {
        format!("{years:.0} y")
    } else if years >= 0.995 {
        format!("{years:.1} y")
    } else {
        format!("{days:.0} d")
    };
    assert!(
        text.contains(&format!(
            "lifetime at 5,000 operations a day: {shown} until the busiest block wears out"
        )),
        "{shown}: {text}"
    );
    assert!(
        text.contains("endurance 1,000 erases a block (--device-set endurance)"),
        "{text}"
    );
    assert!(text.contains("the FTL does no wear leveling"), "{text}");
}

/// `compare --ops-per-day` gives each index its projection, and says that
/// an SSD model shows no erase blocks to project from.
#[test]
fn compare_prints_each_indexs_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let run = |device: &str| {
        flashix(&[
            "compare",
            "--indexes",
            "btree:cache=none,mbtree",
            "--workload",
            "insert-uniform",
            "--ops",
            "20000",
            "--device",
            device,
            "--ops-per-day",
            "1000",
            "--quiet",
            "--out",
            out_dir,
        ])
    };
    let text = run("slc-small");
    assert!(
        text.contains("Lifetime at 1,000 operations a day until the busiest block wears out"),
        "{text}"
    );
    assert!(
        text.contains("btree:cache=none ") && text.contains(", mbtree "),
        "{text}"
    );
    let ssd = run("x25e");
    assert!(
        ssd.contains("not projected: x25e does not show its erase blocks"),
        "{ssd}"
    );
}
