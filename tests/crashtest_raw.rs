//! The stores that manage a raw chip's erase blocks themselves, IPL and the
//! B+-tree's node log, keep the durability contract at every power cut
//! (`src/runner/crash.rs`): cut at every early write and at seeded random
//! ones, torn and not, the reopened chip holds the state of the last
//! completed flush followed by a prefix of the operations after it. The
//! workloads are checked to reach every kind of write each store makes:
//! IPL's merges, closed units and reserved units; the node log's switches
//! of halves, copies of durable versions and superblock unit turns.

use std::collections::BTreeSet;

use flashix::device::fault::{FaultPlan, FaultyFlash, SharedChip};
use flashix::device::{DeviceError, DeviceSpec, Nand, Storage};
use flashix::index::{IndexError, Params};
use flashix::runner::crash::{crash_test, judge, workload, CrashConfig, CrashOp, Verdict};
use flashix::store::{create_index, open_index};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn config(
    index: &str,
    device: &str,
    params: &[&str],
    ops: usize,
    flush_every: usize,
    seed: u64,
) -> CrashConfig {
    let (device, blocks) = device.split_once('@').unwrap_or((device, ""));
    let sets: Vec<(String, String)> = if blocks.is_empty() {
        Vec::new()
    } else {
        vec![("blocks".into(), blocks.into())]
    };
    CrashConfig {
        index: index.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        memory: 16 << 10,
        device: DeviceSpec::parse(device, &sets).unwrap(),
        ops,
        keys: (ops as u64 / 2).max(1),
        flush_every,
        seed,
        bulk_load: 0,
    }
}

/// The index's counters after the uncut workload.
fn uncut_stats(c: &CrashConfig) -> flashix::index::IndexStats {
    let nand = Nand::new(&c.device.name, c.device.geometry, c.device.cost).unwrap();
    let params = Params::parse(c.params.iter().map(String::as_str)).unwrap();
    let mut index = create_index(&c.index, Storage::Raw(Box::new(nand)), c.memory, params).unwrap();
    for op in workload(c) {
        op.run_on(index.as_mut()).unwrap();
    }
    index.stats()
}

fn stat(s: &flashix::index::IndexStats, name: &str) -> f64 {
    s.get(name).unwrap_or_else(|| panic!("no stat {name}"))
}

fn no_failures(c: &CrashConfig, scenarios: u64) {
    let s = crash_test(c, scenarios).unwrap();
    assert_eq!(s.scenarios, scenarios);
    assert_eq!(
        s.failures(),
        0,
        "{} lost, {} wrong, {} panics over {} writes: {:?}",
        s.lost,
        s.wrong,
        s.panics,
        s.writes,
        s.examples
    );
}

#[test]
fn the_default_workload_survives_every_cut() {
    // `flashix crashtest --index ipl`'s defaults: 1,000 operations, a flush
    // every 50.
    let c = config("ipl", "raw:slc-small", &[], 1000, 50, 42);
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_merges") > 0.0, "{s:?}");
    no_failures(&c, 1000);
}

#[test]
fn frequent_merges_survive_every_cut() {
    // One log sector a node and one log buffer: nearly every change to
    // another node merges a unit, between flushes and across them.
    let c = config(
        "ipl",
        "raw:slc-small",
        &["max_deltas=1", "log_buffers=1", "fanout=8"],
        600,
        7,
        3,
    );
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_merges") > 50.0, "{s:?}");
    assert!(stat(&s, "ipl_durable_copies") > 0.0, "{s:?}");
    no_failures(&c, 1000);
}

#[test]
fn a_flush_after_every_operation_on_the_byte_level_part() {
    // Superblocks fill their units and move on to the next (page 0 stays).
    let c = config("ipl", "raw:toshiba-byte", &["max_deltas=2"], 300, 1, 5);
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_merges") > 0.0, "{s:?}");
    no_failures(&c, 500);
}

#[test]
fn units_closed_and_reclaimed_on_a_small_chip_survive_every_cut() {
    // Eight blocks: three for superblocks, one in reserve, four for nodes;
    // long stretches between flushes leave durable versions no slot, so
    // merged units are closed, and full units are reclaimed.
    let c = config(
        "ipl",
        "raw:slc-small@8",
        &[
            "fanout=8",
            "node_pages_per_block=24",
            "log_pages_per_block=8",
            "log_buffers=8",
            "max_deltas=8",
        ],
        800,
        200,
        3,
    );
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_units_closed") > 0.0, "{s:?}");
    assert!(stat(&s, "ipl_reclaim_merges") > 0.0, "{s:?}");
    no_failures(&c, 1000);
}

/// A random data operation on `live` (values numbered from `next`).
fn random_op(live: &BTreeSet<(u64, u64)>, rng: &mut Xoshiro256PlusPlus, next: &mut u64) -> CrashOp {
    *next += 1;
    let roll = rng.random_range(0..10u32);
    if live.is_empty() || roll < 6 {
        return CrashOp::Insert(rng.random_range(0..300), *next);
    }
    let &(k, v) = live
        .iter()
        .nth(rng.random_range(0..live.len()))
        .expect("live is not empty");
    if roll < 8 {
        CrashOp::Delete(k, v)
    } else {
        CrashOp::Update(k, v, *next)
    }
}

#[test]
fn ipl_power_cuts_in_a_row_on_one_chip() {
    // Each session opens what the last cut left (merging the units holding
    // what the cut left unflushed), works on, and is cut again.
    power_cuts_in_a_row("ipl", &["fanout=8", "max_deltas=2", "log_buffers=2"], &[]);
}

#[test]
fn node_log_power_cuts_in_a_row_on_one_chip() {
    // Each session opens what the last cut left (recovering into the other
    // half when the cut left pages after the durable head), works on, and
    // is cut again; a small log switches halves within a session.
    power_cuts_in_a_row(
        "btree",
        &["fanout=8", "cache=lru", "log_blocks=2"],
        &[("blocks", "8")],
    );
}

#[test]
fn latree_power_cuts_in_a_row_on_one_chip() {
    // Buffers are scratch after a cut (flush empties them into the tree),
    // and their partitions are erased before reuse; the node log switches
    // halves within a session.
    power_cuts_in_a_row(
        "latree",
        &[
            "fanout=6",
            "log_blocks=2",
            "partition_blocks=1",
            "max_buffer_bytes=200",
        ],
        &[("blocks", "16")],
    );
}

/// Chains of sessions on one chip, each cut at a random write: every
/// reopen holds the last flush's state and a prefix of what followed.
fn power_cuts_in_a_row(index: &str, set: &[&str], device_sets: &[(&str, &str)]) {
    let params = || Params::parse(set.iter().copied()).unwrap();
    let sets: Vec<(String, String)> = device_sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let memory = 8 << 10;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut value = 0u64;
    let mut reopened = 0;
    for chain in 0..1000 {
        let profile = ["raw:slc-small", "raw:toshiba-byte"][chain % 2];
        let spec = DeviceSpec::parse(profile, &sets).unwrap();
        let every = rng.random_range(3..40);
        let chip = SharedChip::new(Nand::new(&spec.name, spec.geometry, spec.cost).unwrap());
        let mut state: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut flushed = false;
        for session in 0..5 {
            let plan = FaultPlan {
                power_cut_after: Some(rng.random_range(0..300)),
                tear_last: rng.random_range(0..2u32) == 1,
                ..FaultPlan::default()
            };
            let storage = Storage::Raw(Box::new(FaultyFlash::new(chip.clone(), plan)));
            let made = if session == 0 {
                create_index(index, storage, memory, params())
            } else {
                open_index(index, storage, memory, params())
            };
            let mut durable = state.clone();
            let mut live = state.clone();
            let mut after = Vec::new();
            if let Ok(mut index) = made {
                for i in 1..=400 {
                    let op = if i % every == 0 {
                        CrashOp::Flush
                    } else {
                        random_op(&live, &mut rng, &mut value)
                    };
                    let done = op.run_on(index.as_mut());
                    op.apply(&mut live);
                    after.push(op);
                    if let Err(e) = done {
                        // Only the cut (or a full chip) stops a session: a
                        // reopened store writes on where the cut left it.
                        let cut = matches!(
                            e,
                            IndexError::Device(DeviceError::PowerLost | DeviceError::Full { .. })
                        );
                        assert!(cut, "chain {chain} session {session}: {e}");
                        break;
                    }
                    if op == CrashOp::Flush {
                        durable = live.clone();
                        after.clear();
                        flushed = true;
                    }
                }
            }
            let storage = Storage::Raw(Box::new(chip.clone()));
            let mut index = match open_index(index, storage, memory, params()) {
                Ok(index) => index,
                Err(e) => {
                    assert!(!flushed, "chain {chain} session {session}: reopen: {e}");
                    break;
                }
            };
            let mut entries = Vec::new();
            index.range(0, u64::MAX, &mut entries).unwrap();
            let found: BTreeSet<(u64, u64)> = entries.into_iter().collect();
            assert_eq!(
                judge(&durable, &after, &found),
                Verdict::Survived,
                "chain {chain} session {session}"
            );
            state = found;
            reopened += 1;
        }
    }
    assert!(reopened > 4000, "{reopened}");
}

#[test]
fn node_log_default_workload_survives_every_cut() {
    // `flashix crashtest --index btree --device raw:slc-small`'s defaults.
    let c = config("btree", "raw:slc-small@256", &[], 1000, 50, 42);
    no_failures(&c, 1000);
}

#[test]
fn node_log_switches_survive_every_cut() {
    // Two blocks a half on an eight-block chip: the log switches halves
    // many times between flushes and across them, copying durable
    // versions, and the superblocks turn over their units.
    for (every, seed) in [(7, 3), (40, 8), (150, 21)] {
        let c = config(
            "btree",
            "raw:slc-small@8",
            &["fanout=8", "cache=none", "log_blocks=2"],
            800,
            every,
            seed,
        );
        let s = uncut_stats(&c);
        assert!(stat(&s, "node_log_switches") >= 3.0, "{s:?}");
        assert!(stat(&s, "node_log_durable_copies") > 0.0, "{s:?}");
        no_failures(&c, 1000);
    }
}
