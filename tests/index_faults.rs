//! Every index through the library when its device fails once (issue #28):
//! `flashix::runner::fault` (its module doc has the scenarios and the
//! verdicts) over every index, on a small workload from an empty device and
//! on indexes of over 1,000 pages preloaded in bulk. Before the guard
//! (`store::guard`) and the commit layer's fixes, 1,405 of 12,000 small
//! scenarios failed: a write error inside an operation left the index wrong
//! in RAM and a later successful flush saved it, and a retried commit did
//! not write what the failed one had not.
//!
//! `FLASHIX_FAULT_SCENARIOS` sets the small workload's scenarios per index
//! (default 1,000), `FLASHIX_FAULT_PRELOADED_SCENARIOS` the preloaded ones'
//! (default 200).

use flashix::index::kinds::registry;
use flashix::runner::fault::{run_faults, FaultConfig, FaultSummary};

/// Entries bulk-loaded: the densest indexes (the FD-tree's and the
/// LSM-tree's packed runs, the buffer tree) need about 55,000 for 1,000
/// pages of 512 bytes.
const PRELOAD: u64 = 60_000;

fn scenarios(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `config` on every index; panics naming every failure.
fn every_index(config: impl Fn(&str) -> FaultConfig) -> Vec<FaultSummary> {
    let mut summaries = Vec::new();
    let mut failures = Vec::new();
    for info in registry::list() {
        let c = config(info.name);
        let s = run_faults(&c).unwrap_or_else(|e| panic!("{}: {e}", info.name));
        assert_eq!(s.scenarios, c.scenarios, "{s:?}");
        assert_eq!(s.survived + s.refused + s.failures(), s.scenarios, "{s:?}");
        if s.failures() > 0 {
            failures.push(format!(
                "{}: {} lost, {} wrong, {} panics of {}; {:#?}",
                info.name, s.lost, s.wrong, s.panics, s.scenarios, s.examples
            ));
        }
        summaries.push(s);
    }
    assert!(failures.is_empty(), "{failures:#?}");
    summaries
}

#[test]
fn every_index_keeps_its_last_flush_through_a_failed_write_or_sync() {
    let per_index = scenarios("FLASHIX_FAULT_SCENARIOS", 1000);
    let summaries = every_index(|name| FaultConfig {
        seed: 11,
        scenarios: per_index,
        ..FaultConfig::new(name)
    });
    for s in &summaries {
        // The fault reached the caller in every scenario: the positions lie
        // within the clean run's writes and syncs.
        assert_eq!(s.errors_seen, s.scenarios, "{s:?}");
        assert!(s.writes > 0 && s.syncs > 0, "{s:?}");
    }
}

#[test]
fn indexes_of_over_1000_pages_keep_their_last_flush_through_a_failed_write_or_sync() {
    let per_index = scenarios("FLASHIX_FAULT_PRELOADED_SCENARIOS", 200);
    let summaries = every_index(|name| FaultConfig {
        seed: 12,
        scenarios: per_index,
        preload: PRELOAD,
        ..FaultConfig::new(name)
    });
    for s in &summaries {
        assert!(s.preload_pages > 1000, "{}: {s:?}", s.index);
        assert_eq!(s.errors_seen, s.scenarios, "{s:?}");
        // A preloaded index was flushed: nothing is refused for want of one.
        assert_eq!(s.refused, 0, "{s:?}");
    }
}
