//! Issue #41: a crash between the two copies of a log page or of the
//! commit record, recovery, three acknowledged flushes, then the one copy
//! the crash left damaged: every index reopens with every acknowledged
//! flush (`runner::double_fault`). Before recovery repaired what a crash
//! left single, the damaged log primary lost the three flushes silently.

use flashix::index::kinds::registry;
use flashix::runner::double_fault::double_fault_test;
use flashix::runner::fault::FaultConfig;

#[test]
fn one_damaged_page_after_a_crash_and_recovery_costs_no_acknowledged_flush() {
    let mut failures = Vec::new();
    for info in registry::list() {
        let c = FaultConfig {
            scenarios: 40,
            ..FaultConfig::new(info.name)
        };
        let s = double_fault_test(&c).unwrap_or_else(|e| panic!("{}: {e}", info.name));
        // Both kinds of twin are met, so the test is not vacuous.
        assert!(
            s.log_positions > 0 && s.commit_positions > 0,
            "{}: {} log and {} commit positions",
            info.name,
            s.log_positions,
            s.commit_positions
        );
        let counts = &s.counts;
        assert!(counts.scenarios > 0);
        if counts.failures() > 0 {
            failures.push(format!(
                "{}: {} of {} ({})",
                info.name,
                counts.failures(),
                counts.scenarios,
                counts.examples.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
