//! `flashix faulttest`: the summary line of `runner::fault` and an exit
//! status that follows the failures.

use std::process::Command;

#[test]
fn faulttest_prints_a_summary_per_index_and_exits_zero_when_all_hold() {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["faulttest", "--index", "btree", "--scenarios", "20"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("faulttest btree: "))
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    assert!(
        line.contains("20 scenarios") && line.contains(" 0 lost, 0 wrong, 0 panics"),
        "{line}"
    );
}

#[test]
fn faulttest_names_what_cannot_run() {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["faulttest", "--index", "nope", "--scenarios", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("cannot run") && stdout.contains("unknown index"),
        "{stdout}"
    );
    assert!(
        stderr.contains("could not run") && !stderr.contains("panicked"),
        "{stderr}"
    );
}
