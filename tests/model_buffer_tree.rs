//! `buffer-tree` against the oracle: immediate lookups through the shared
//! harness (RAM disk, raw chip, FTL, real file, reopen), and delayed
//! lookups through `get_later` / `take_answers`, each answer compared with
//! what the oracle held when the lookup was issued and every lookup
//! answered by the next flush.

mod common;

use std::collections::{BTreeSet, HashMap};

use common::{check, check_on_file, ftl, ops, ram, raw, ModelOp};
use flashix::device::Storage;
use flashix::index::{Index, Params};
use flashix::store::{create_index, open_index};
use proptest::prelude::*;

fn p(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}

/// Small super-nodes and buffers, so that buffers empty through several
/// levels and leaves split with their buffers.
const SMALL: [&str; 2] = ["node_bytes=256", "max_buffer_bytes=300"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn immediate_lookups_on_a_ram_disk(ops in ops(500, 150)) {
        check("buffer-tree", &SMALL, 4096, ram, &ops)?;
    }

    #[test]
    fn immediate_lookups_on_a_raw_chip(ops in ops(400, 150)) {
        check("buffer-tree", &["node_bytes=600", "max_buffer_bytes=400", "log_blocks=8", "partition_blocks=1"], 8192, || raw(64), &ops)?;
    }

    #[test]
    fn defaults_over_the_ftl(ops in ops(400, 300)) {
        check("buffer-tree", &[], 16384, ftl, &ops)?;
    }

    #[test]
    fn delayed_lookups_on_a_ram_disk(ops in ops(500, 100)) {
        check_delayed(&["node_bytes=256", "max_buffer_bytes=300", "lookup=delayed"], 4096, ram, &ops)?;
    }

    #[test]
    fn delayed_lookups_of_few_keys_with_many_values(ops in ops(500, 5)) {
        check_delayed(&["node_bytes=200", "max_buffer_bytes=200", "lookup=delayed"], 4096, ram, &ops)?;
    }

    #[test]
    fn delayed_lookups_on_a_raw_chip(ops in ops(400, 150)) {
        check_delayed(&["node_bytes=600", "max_buffer_bytes=400", "log_blocks=8", "partition_blocks=1", "lookup=delayed"], 8192, || raw(64), &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn on_a_real_file(ops in ops(200, 150)) {
        check_on_file("buffer-tree", &["node_bytes=1024", "max_buffer_bytes=600"], 16384, &ops)?;
    }
}

/// Runs `ops` with every `Get` delayed: each answer must equal the oracle's
/// values at the time of the lookup, and none may be missing after a flush.
fn check_delayed(
    set: &[&str],
    memory: usize,
    storage: impl Fn() -> Storage,
    ops: &[ModelOp],
) -> Result<(), TestCaseError> {
    let fail = |e: flashix::index::IndexError| TestCaseError::fail(e.to_string());
    let mut index: Box<dyn Index> =
        create_index("buffer-tree", storage(), memory, p(set)).map_err(fail)?;
    prop_assert!(index.defers_lookups());
    let mut model: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut waiting: HashMap<u64, (usize, Vec<u64>)> = HashMap::new();
    let mut answers = Vec::new();
    let mut collect = |index: &mut Box<dyn Index>,
                       waiting: &mut HashMap<u64, (usize, Vec<u64>)>|
     -> Result<(), TestCaseError> {
        answers.clear();
        index.take_answers(&mut answers);
        for (ticket, got) in answers.drain(..) {
            let Some((op, want)) = waiting.remove(&ticket) else {
                return Err(TestCaseError::fail(format!("unknown ticket {ticket}")));
            };
            prop_assert_eq!(&got, &want, "lookup of op {}", op);
        }
        Ok(())
    };
    for (i, op) in ops.iter().enumerate() {
        let ctx = format!("op {i}: {op:?}");
        match *op {
            ModelOp::Insert(k, v) => {
                index.insert(k, v).map_err(fail)?;
                model.insert((k, v));
            }
            ModelOp::Delete(k, v) => {
                let got = index.delete(k, v).map_err(fail)?;
                prop_assert_eq!(got, model.remove(&(k, v)), "{}", ctx);
            }
            ModelOp::Update(k, o, n) => {
                let got = index.update(k, o, n).map_err(fail)?;
                prop_assert_eq!(got, model.remove(&(k, o)), "{}", ctx);
                model.insert((k, n));
            }
            ModelOp::Get(k) => {
                let ticket = index.get_later(k).map_err(fail)?;
                let want: Vec<u64> = model.range((k, 0)..=(k, u64::MAX)).map(|e| e.1).collect();
                prop_assert!(
                    waiting.insert(ticket, (i, want)).is_none(),
                    "ticket {} reused while pending",
                    ticket
                );
            }
            ModelOp::Range(lo, hi) => {
                let mut got = Vec::new();
                index.range(lo, hi, &mut got).map_err(fail)?;
                let want: Vec<(u64, u64)> =
                    model.range((lo, 0)..=(hi, u64::MAX)).copied().collect();
                prop_assert_eq!(got, want, "{}", ctx);
            }
            ModelOp::Flush | ModelOp::Reopen => {
                index.flush().map_err(fail)?;
                collect(&mut index, &mut waiting)?;
                prop_assert!(
                    waiting.is_empty(),
                    "{}: {} lookups unanswered after a flush",
                    ctx,
                    waiting.len()
                );
                if matches!(op, ModelOp::Reopen) {
                    let s = index.into_storage();
                    index = open_index("buffer-tree", s, memory, p(set)).map_err(fail)?;
                }
            }
        }
        collect(&mut index, &mut waiting)?;
    }
    index.flush().map_err(fail)?;
    collect(&mut index, &mut waiting)?;
    prop_assert!(
        waiting.is_empty(),
        "{} lookups unanswered at the end",
        waiting.len()
    );
    Ok(())
}

/// Delayed lookups are batched: with lookups among the inserts they cost
/// far fewer page reads than immediate ones, which scan the path's
/// super-nodes and buffers (§6.2, Fig. 7).
#[test]
fn delayed_lookups_read_far_less_than_immediate_ones() {
    let reads = |lookup: &str| {
        let mut t = create_index("buffer-tree", raw(2048), 64 << 10, p(&[lookup])).unwrap();
        let mut got = Vec::new();
        for i in 0..20_000u64 {
            t.insert(i * 7919 % 10_000, i).unwrap();
            if i % 20 == 0 {
                if t.defers_lookups() {
                    t.get_later(i % 10_000).unwrap();
                } else {
                    t.get(i % 10_000, &mut got).unwrap();
                }
            }
        }
        t.flush().unwrap();
        t.storage().stats().physical_reads
    };
    let (delayed, immediate) = (reads("lookup=delayed"), reads("lookup=immediate"));
    assert!(
        delayed * 5 < immediate,
        "delayed {delayed}, immediate {immediate}"
    );
}

/// The node cache keeps the super-nodes an emptying works on (the root
/// and the node each entry reaches) with the tables in the budget: sized
/// for the B+-tree's working nodes alone it held none, and every entry
/// of an emptying read its path's super-nodes again (issue #43).
#[test]
fn emptyings_find_their_super_nodes_in_the_cache() {
    let mut t = create_index("buffer-tree", raw(2048), 64 << 10, p(&[])).unwrap();
    for i in 0..20_000u64 {
        t.insert(i * 7919 % 10_000, i).unwrap();
    }
    t.flush().unwrap();
    let s = t.stats();
    let (hits, misses) = (s.get("cache_hits").unwrap(), s.get("cache_misses").unwrap());
    assert!(hits > 4.0 * misses, "{s:?}");
}

#[test]
fn the_buffered_b_plus_tree_has_no_delayed_lookups() {
    let mut t = create_index("latree", ram(), 16384, p(&[])).unwrap();
    assert!(!t.defers_lookups());
    assert!(t.get_later(1).is_err());
    for bad in [
        &["adapt=simple"][..],
        &["subtree_height=2"],
        &["lookup=soon"],
    ] {
        assert!(
            create_index("buffer-tree", ram(), 16384, p(bad)).is_err(),
            "{bad:?}"
        );
    }
}

/// The runner checks delayed answers against the oracle as of each lookup
/// (`run --verify`), and every lookup is answered by the final flush.
#[test]
fn the_runner_verifies_delayed_answers() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args([
            "run",
            "--index",
            "buffer-tree",
            "--set",
            "lookup=delayed",
            "--device",
            "raw:toshiba-byte",
            "--memory",
            "16KiB",
            "--workload",
            "lat",
            "--workload-set",
            "search=0.2",
            "--preload",
            "2000",
            "--ops",
            "6000",
            "--verify",
            "--quiet",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("every answer verified"), "{stdout}");
    assert!(stdout.contains("search"), "{stdout}");
}

/// Issue #43: two runs of one seeded experiment with delayed lookups, in
/// separate processes, report the same memory figures (the delayed
/// lookups' RAM is a function of the run, not of a hasher or a clock).
#[test]
fn delayed_lookup_memory_is_the_same_in_two_runs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = |n: usize| {
        let json = dir.path().join(format!("run{n}.json"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_flashix"))
            .args(["run", "--index", "buffer-tree", "--set", "lookup=delayed"])
            .args([
                "--device",
                "raw:toshiba-byte",
                "--device-set",
                "blocks=1024",
            ])
            .args([
                "--memory",
                "64KiB",
                "--workload",
                "lat",
                "--preload",
                "5000",
            ])
            .args(["--ops", "20000", "--workload-set", "search=1", "--json"])
            .arg(&json)
            .output()
            .expect("flashix runs");
        assert!(status.status.success(), "{status:?}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("the report"))
                .expect("JSON");
        (
            report["memory_peak_bytes"].clone(),
            report["memory_final_bytes"].clone(),
            report["index_stats"]["delayed_lookup_bytes"].clone(),
            report["index_stats"]["empties_lookups"].clone(),
        )
    };
    let first = run(1);
    assert!(first.0.as_u64().is_some_and(|b| b > 0), "{first:?}");
    assert_eq!(first, run(2));
}

/// At a budget past ~12 MiB the super-node of M/12 would pass the node
/// format's 65,535 entries: it is cut to the largest node there is, and the
/// tree works (it refused to build before, issue #45).
#[test]
fn a_large_budget_takes_the_largest_node_there_is() {
    for memory in [16usize << 20, 64 << 20] {
        let set = Params::parse(["key_bytes=8", "value_bytes=8"]).unwrap();
        let mut t = create_index("buffer-tree", ram(), memory, set).unwrap();
        for k in 0..1000u64 {
            t.insert(k * 7919, k).unwrap();
        }
        let mut got = Vec::new();
        t.get(7919 * 3, &mut got).unwrap();
        assert_eq!(got, [3], "{memory}");
        let node = t.stats().get("node_bytes").unwrap_or(0.0);
        assert!(node <= (16 * 65_535 + 64) as f64, "{memory}: node {node}");
    }
}
