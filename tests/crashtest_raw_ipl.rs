//! IPL on a raw chip keeps the durability contract at every power cut
//! (`src/runner/crash.rs`): cut at every early write and at seeded random
//! ones, torn and not, the reopened chip holds the state of the last
//! completed flush followed by a prefix of the operations after it. The
//! workloads are checked to merge erase units, close units and reserve
//! fresh ones, so that the cuts land in every kind of write IPL makes.

use flashix::device::{DeviceSpec, Nand, Storage};
use flashix::index::{registry, Params};
use flashix::runner::crash::{crash_test, workload, CrashConfig};

fn config(device: &str, params: &[&str], ops: usize, flush_every: usize, seed: u64) -> CrashConfig {
    let (device, blocks) = device.split_once('@').unwrap_or((device, ""));
    let sets: Vec<(String, String)> = if blocks.is_empty() {
        Vec::new()
    } else {
        vec![("blocks".into(), blocks.into())]
    };
    CrashConfig {
        index: "ipl".into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        memory: 16 << 10,
        device: DeviceSpec::parse(device, &sets).unwrap(),
        ops,
        keys: (ops as u64 / 2).max(1),
        flush_every,
        seed,
    }
}

/// IPL's counters after the uncut workload.
fn uncut_stats(c: &CrashConfig) -> flashix::index::IndexStats {
    let nand = Nand::new(&c.device.name, c.device.geometry, c.device.cost).unwrap();
    let params = Params::parse(c.params.iter().map(String::as_str)).unwrap();
    let mut index =
        registry::create("ipl", Storage::Raw(Box::new(nand)), c.memory, params).unwrap();
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
    let c = config("raw:slc-small", &[], 1000, 50, 42);
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_merges") > 0.0, "{s:?}");
    no_failures(&c, 1000);
}

#[test]
fn frequent_merges_survive_every_cut() {
    // One log sector a node and one log buffer: nearly every change to
    // another node merges a unit, between flushes and across them.
    let c = config(
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
    let c = config("raw:toshiba-byte", &["max_deltas=2"], 300, 1, 5);
    let s = uncut_stats(&c);
    assert!(stat(&s, "ipl_merges") > 0.0, "{s:?}");
    no_failures(&c, 500);
}
