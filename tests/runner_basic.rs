//! The runner: device cost is charged to the operation type that caused it,
//! verification catches wrong answers, and printed results have the exact
//! `replay --print-results` form.

use flashix::device::{DeviceSpec, Storage};
use flashix::index::{EntryFormat, Index, IndexStats, Params, Result as IndexResult};
use flashix::runner::{run, RunError, RunOptions};
use flashix::store::create_index;
use flashix::workload::preset;
use flashix::workload::{Op, WorkloadError};

fn ftl() -> Storage {
    DeviceSpec::parse("slc-small", &[])
        .unwrap()
        .build()
        .unwrap()
}

fn btree(cache: &str) -> Box<dyn Index> {
    let params = Params::parse([cache]).unwrap();
    create_index("btree", ftl(), 20_000, params).unwrap()
}

fn ops(v: Vec<Op>) -> impl Iterator<Item = Result<Op, WorkloadError>> {
    v.into_iter().map(Ok)
}

#[test]
fn cost_is_charged_to_the_operation_that_caused_it() {
    let mut t = btree("cache=none");
    let spec = preset::build("mbtree", &[], Some(0), Some(2_000), 7).unwrap();
    let opts = RunOptions {
        verify: true,
        quiet: true,
        ..RunOptions::default()
    };
    let mut pre = spec.preload_ops().unwrap();
    let mut measured = spec.measured_ops().unwrap();
    let r = run(t.as_mut(), &mut pre, &mut measured, &opts, None).unwrap();
    let ins = &r.by_op["insert"];
    let search = &r.by_op["search"];
    assert_eq!((ins.count, search.count), (2_000, 2_000));
    // Without a cache every insert writes at least its leaf; searches never write.
    assert!(ins.page_writes >= 2_000, "{}", ins.page_writes);
    assert_eq!(search.page_writes, 0);
    assert!(search.page_reads >= 2_000);
    // slc-small charges 909 µs per program and 348 µs per read.
    let expect =
        ins.page_writes as f64 * 909.0 + ins.page_reads as f64 * 348.0 + ins.erases as f64 * 1881.0;
    assert!((ins.time_us - expect).abs() < 1e-3 * expect);
    assert_eq!(
        r.device_stats.physical_writes,
        ins.page_writes + search.page_writes + r.preload.physical_writes
    );
    assert!(r.verified && r.memory_peak_bytes > 0 && r.flash_bytes_used > 0);
    assert!(ins.latency_us.p50 >= 909.0 && ins.latency_us.max >= ins.latency_us.p99);
    let json = serde_json::to_value(&r).unwrap();
    for field in [
        "device_stats",
        "by_op",
        "memory_peak_bytes",
        "index_stats",
        "ops_per_wall_second",
    ] {
        assert!(json.get(field).is_some(), "{field}");
    }
    assert!(json["device_stats"].get("write_amplification").is_some());
}

/// What an index leaves buffered at the end is charged: the final flush is
/// its own `flush` row, and every row with the preload adds up to the run.
#[test]
fn the_final_flush_is_charged_as_its_own_row() {
    let spec = preset::build("mbtree", &[], Some(500), Some(3_000), 11).unwrap();
    let run_with = |final_flush: bool| {
        // MB-Tree keeps inserts in its batch buffer until a flush.
        let mut t = create_index("mbtree", ftl(), 20_000, Params::new()).unwrap();
        let opts = RunOptions {
            quiet: true,
            final_flush,
            ..RunOptions::default()
        };
        let mut pre = spec.preload_ops().unwrap();
        let mut measured = spec.measured_ops().unwrap();
        run(t.as_mut(), &mut pre, &mut measured, &opts, None).unwrap()
    };
    let unflushed = run_with(false);
    assert!(!unflushed.by_op.contains_key("flush"));
    let r = run_with(true);
    let flush = &r.by_op["flush"];
    assert_eq!(flush.count, 1);
    assert!(flush.page_writes > 0, "the batch buffer was written");
    assert_eq!(
        r.device_stats.physical_writes,
        unflushed.device_stats.physical_writes + flush.page_writes
    );
    let sum = |f: fn(&flashix::runner::OpCost) -> u64| r.by_op.values().map(f).sum::<u64>();
    assert_eq!(
        r.device_stats.physical_writes,
        sum(|c| c.page_writes) + r.preload.physical_writes
    );
    assert_eq!(
        r.device_stats.physical_reads,
        sum(|c| c.page_reads) + r.preload.physical_reads
    );
    assert_eq!(
        r.ops.get("flush"),
        None,
        "a flush is not a measured operation"
    );
}

/// `preload_flush`: what the preload left buffered is written before the
/// measured phase and charged to the preload, so a measured phase of
/// searches starts from an index at rest and writes nothing.
#[test]
fn a_preload_flush_leaves_the_measured_phase_at_rest() {
    let spec = preset::build("mbtree", &[], Some(3_000), Some(0), 5).unwrap();
    let searches = |preload_flush: bool| {
        // A write-back cache of 20 KB holds dirty nodes after the preload.
        let mut t = btree("cache=lru");
        let opts = RunOptions {
            quiet: true,
            preload_flush,
            ..RunOptions::default()
        };
        let mut pre = spec.preload_ops().unwrap();
        let mut measured = ops((0..3_000u64).map(|k| Op::Search { key: k * 997 }).collect());
        run(t.as_mut(), &mut pre, &mut measured, &opts, None).unwrap()
    };
    let dirty = searches(false);
    assert!(dirty.by_op["search"].page_writes > 0, "evicted dirty nodes");
    let at_rest = searches(true);
    assert_eq!(at_rest.by_op["search"].page_writes, 0);
    assert!(at_rest.preload.physical_writes > dirty.preload.physical_writes);
}

/// `bulk_load`: a sorted preload builds each index through its loader, the
/// oracle learns the preload, and the measured mix (searches, deletes and
/// updates of preloaded entries) is verified; every loader writes fewer
/// pages than inserting the preload in random order. A preload out
/// of order is refused with the loader's error.
#[test]
fn a_bulk_loaded_preload_is_verified() {
    for index in ["btree", "bftl", "fdtree", "lsm"] {
        let build = |sorted: bool, bulk: bool| {
            let set = [("preload_sorted".to_string(), sorted.to_string())];
            let spec = preset::build("w-update", &set, Some(20_000), Some(3_000), 3).unwrap();
            let mut t = create_index(index, ftl(), 1 << 16, Params::default()).unwrap();
            let opts = RunOptions {
                verify: true,
                quiet: true,
                bulk_load: bulk,
                ..RunOptions::default()
            };
            let mut ahead = spec.preload_ops().unwrap();
            ahead.by_ref().for_each(drop);
            let mut measured = ahead.continue_with(&spec).unwrap();
            let mut pre = spec.preload_ops().unwrap();
            run(t.as_mut(), &mut pre, &mut measured, &opts, None)
        };
        let loaded = build(true, true).unwrap();
        assert_eq!(loaded.preload_ops, 20_000, "{index}");
        assert!(loaded.ops.values().sum::<u64>() == 3_000, "{index}");
        let inserted = build(false, false).unwrap();
        assert!(
            loaded.preload.physical_writes < inserted.preload.physical_writes,
            "{index}: loaded {} writes, inserted {}",
            loaded.preload.physical_writes,
            inserted.preload.physical_writes
        );
        match build(false, true) {
            Err(RunError::BulkLoad { .. }) => {}
            other => panic!(
                "{index}: an unsorted preload gave {:?}",
                other.map(|r| r.preload_ops)
            ),
        }
    }
}

/// A bulk-loaded preload leaves the FD-tree's upper levels half full and
/// the LSM-tree's upper components at capacity (their steady state), with
/// the rest in the bottom level, and no entry lost.
#[test]
fn a_bulk_loaded_preload_starts_from_the_steady_state() {
    let spec = preset::build(
        "insert-uniform",
        &[("preload_sorted".to_string(), "true".to_string())],
        Some(200_000),
        Some(0),
        4,
    )
    .unwrap();
    let opts = RunOptions {
        verify: true,
        quiet: true,
        bulk_load: true,
        ..RunOptions::default()
    };
    let big = || {
        DeviceSpec::parse("slc-small", &[("blocks".into(), "8192".into())])
            .unwrap()
            .build()
            .unwrap()
    };
    // ‖L0‖ = 4096 / 9 = 455 entries, k = 8: L1 holds up to 3,640, L2 29,120,
    // L3 232,960, so 200,000 entries have L3 at the bottom.
    let load = |index: &str, set: [&str; 2]| {
        let set = Params::parse(set).unwrap();
        let mut t = create_index(index, big(), 1 << 16, set).unwrap();
        let mut pre = spec.preload_ops().unwrap();
        run(t.as_mut(), &mut pre, &mut std::iter::empty(), &opts, None)
            .unwrap()
            .index_stats
    };
    let st = &load("fdtree", ["head_bytes=4096", "k=8"]);
    assert_eq!(st.get("levels"), Some(4.0));
    let half = |cap: f64| cap / 2.0;
    let l1 = st.get("level1_entries").unwrap();
    let l2 = st.get("level2_entries").unwrap();
    // What the inserts leave above the bottom, fences included, is within
    // a head's worth of half of each level.
    assert!(
        (l1 + l2 + st.get("head_entries").unwrap() - half(455.0 + 3640.0 + 29120.0)).abs()
            < 5_000.0,
        "{st:?}"
    );
    assert!(st.get("level3_entries").unwrap() > 150_000.0, "{st:?}");

    let st = &load("lsm", ["c0_bytes=4096", "ratio=8"]);
    assert_eq!(st.get("components"), Some(4.0));
    // C1 and C2 at (about) their capacities of 3,640 and 29,120.
    let c1 = st.get("c1_entries").unwrap();
    let c2 = st.get("c2_entries").unwrap();
    assert!(c1 > 2_000.0 && c1 <= 3_640.0 + 455.0, "{st:?}");
    assert!(c2 > 20_000.0 && c2 <= 29_120.0 + 3_640.0, "{st:?}");
}

/// An index that silently drops every third insert.
struct Lossy {
    inner: Box<dyn Index>,
    n: u64,
}

impl Index for Lossy {
    fn name(&self) -> &'static str {
        "lossy"
    }
    fn format(&self) -> EntryFormat {
        self.inner.format()
    }
    fn insert(&mut self, key: u64, value: u64) -> IndexResult<()> {
        self.n += 1;
        if self.n.is_multiple_of(3) {
            return Ok(());
        }
        self.inner.insert(key, value)
    }
    fn delete(&mut self, key: u64, value: u64) -> IndexResult<bool> {
        self.inner.delete(key, value)
    }
    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> IndexResult<()> {
        self.inner.get(key, out)
    }
    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> IndexResult<()> {
        self.inner.range(lo, hi, out)
    }
    fn flush(&mut self) -> IndexResult<()> {
        self.inner.flush()
    }
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
    fn stats(&self) -> IndexStats {
        self.inner.stats()
    }
    fn flash_bytes_used(&self) -> u64 {
        self.inner.flash_bytes_used()
    }
    fn storage(&self) -> &Storage {
        self.inner.storage()
    }
    fn into_storage(self: Box<Self>) -> Storage {
        self.inner.into_storage()
    }
}

#[test]
fn verification_catches_a_wrong_answer() {
    let mut lossy = Lossy {
        inner: btree("cache=mlru"),
        n: 0,
    };
    let opts = RunOptions {
        verify: true,
        quiet: true,
        ..RunOptions::default()
    };
    let v = vec![
        Op::Insert { key: 1, value: 1 },
        Op::Insert { key: 2, value: 2 },
        Op::Insert { key: 3, value: 3 },
        Op::Search { key: 3 },
    ];
    let err = run(
        &mut lossy,
        &mut std::iter::empty(),
        &mut ops(v),
        &opts,
        None,
    )
    .unwrap_err();
    match err {
        RunError::Mismatch { op_number, .. } => assert_eq!(op_number, 4),
        other => panic!("{other}"),
    }
}

#[test]
fn printed_results_have_the_replay_form() {
    let mut t = btree("cache=lru");
    let v = vec![
        Op::Insert { key: 5, value: 9 },
        Op::Insert { key: 5, value: 1 },
        Op::Insert { key: 7, value: 2 },
        Op::Search { key: 5 },
        Op::Search { key: 6 },
        Op::Range { lo: 4, hi: 7 },
        Op::Delete { key: 5, value: 9 },
        Op::Range { lo: 8, hi: 9 },
        Op::Update {
            key: 7,
            old: 2,
            new: 3,
        },
        Op::Search { key: 7 },
    ];
    let mut out = Vec::new();
    let opts = RunOptions {
        verify: true,
        quiet: true,
        ..RunOptions::default()
    };
    run(
        t.as_mut(),
        &mut std::iter::empty(),
        &mut ops(v),
        &opts,
        Some(&mut out),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "S 5: 1 9\nS 6:\nR 4 7: 5:1 5:9 7:2\nR 8 9:\nS 7: 3\n"
    );
}

#[test]
fn an_index_error_names_the_operation() {
    let mut t = btree("cache=none");
    let v = vec![
        Op::Insert { key: 1, value: 1 },
        Op::Insert {
            key: 1 << 33,
            value: 1,
        },
    ];
    let opts = RunOptions::default();
    let e = run(
        t.as_mut(),
        &mut std::iter::empty(),
        &mut ops(v),
        &opts,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("operation 2") && e.contains("does not fit"),
        "{e}"
    );
}
