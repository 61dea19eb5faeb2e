//! Counts from the user are checked before anything is allocated for them
//! (issue #41, point 5): a count past a test's limit, or one whose memory
//! this process cannot have, is one line on stderr and exit status 1 —
//! never a panic (101) or an abort (134) with no message — and the
//! runner's harnesses return it as an error.

use std::process::{Command, Output};

const MAX: &str = "18446744073709551615";

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .expect("run flashix")
}

/// `flashix ARGS` under an address-space limit of about 4 GB, as a shell's
/// `ulimit -v` sets it.
fn flashix_in_4gb(args: &[&str]) -> Output {
    let command = format!(
        "ulimit -v 4000000 && exec \"$0\" {}",
        args.iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Command::new("sh")
        .args(["-c", &command, env!("CARGO_BIN_EXE_flashix")])
        .output()
        .expect("run sh")
}

/// `out` ended with exit status 1 and exactly one line on stderr holding
/// every one of `needles`.
fn one_line_error(what: &[&str], out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{what:?}: no `{needle}` in {err}");
    }
}

#[test]
fn test_counts_past_the_limit_are_one_line_errors() {
    for command in ["crashtest", "damagetest", "faulttest"] {
        for ops in [MAX, "100000000"] {
            let args = [command, "--index", "btree", "--ops", ops];
            one_line_error(&args, &flashix(&args), &["--ops", ops, "10000000"]);
        }
    }
    for (command, flag) in [
        ("crashtest", "--bulk-load"),
        ("damagetest", "--bulk-load"),
        ("faulttest", "--preload"),
    ] {
        let args = [command, "--index", "btree", flag, MAX];
        one_line_error(&args, &flashix(&args), &[flag, "10000000"]);
    }
}

/// A workload that keeps its live entries reserves room for them once:
/// a count no process can hold is an error naming it.
#[test]
fn a_live_set_too_large_to_hold_is_an_error() {
    let run = [
        "run",
        "--index",
        "btree",
        "--workload",
        "w-update",
        "--preload",
        MAX,
        "--ops",
        "1",
        "--quiet",
    ];
    let gen = ["trace", "gen", "--workload", "ycsb-a", "--preload", MAX];
    for args in [&run[..], &gen[..]] {
        one_line_error(args, &flashix(args), &[MAX, "live entries"]);
    }
}

/// Under a 4 GB address space, counts that once aborted allocating a
/// gigabyte or more are errors too.
#[test]
fn counts_under_an_address_space_limit() {
    let crash = ["crashtest", "--index", "btree", "--ops", "100000000"];
    one_line_error(&crash, &flashix_in_4gb(&crash), &["10000000"]);
    let fault = ["faulttest", "--index", "btree", "--ops", "100000000"];
    one_line_error(&fault, &flashix_in_4gb(&fault), &["10000000"]);
    let run = [
        "run",
        "--index",
        "btree",
        "--workload",
        "w-update",
        "--preload",
        "1000000000",
        "--ops",
        "1",
        "--quiet",
    ];
    one_line_error(
        &run,
        &flashix_in_4gb(&run),
        &["1000000001", "more than this process can allocate"],
    );
}

/// The harnesses behind `crashtest`, `damagetest` and `faulttest` refuse
/// the same counts with an error, before building a workload.
#[test]
fn the_harnesses_return_an_error_for_a_count_past_the_limit() {
    use flashix::device::DeviceSpec;
    use flashix::runner::crash::{crash_test, CrashConfig, MAX_OPS};
    use flashix::runner::damage::damage_test;
    use flashix::runner::fault::{run_faults, FaultConfig};
    let crash = CrashConfig {
        index: "btree".into(),
        params: vec![],
        memory: 16 << 10,
        device: DeviceSpec::parse("slc-small", &[]).unwrap(),
        ops: usize::MAX,
        keys: 1000,
        flush_every: 50,
        seed: 1,
        bulk_load: 0,
    };
    let bulk = CrashConfig {
        ops: 10,
        bulk_load: MAX_OPS + 1,
        ..crash.clone()
    };
    for c in [&crash, &bulk] {
        for e in [crash_test(c, 1).unwrap_err(), damage_test(c).unwrap_err()] {
            assert!(e.contains(&MAX_OPS.to_string()), "{e}");
        }
    }
    for c in [
        FaultConfig {
            ops: usize::MAX,
            ..FaultConfig::new("btree")
        },
        FaultConfig {
            preload: u64::MAX,
            ..FaultConfig::new("btree")
        },
    ] {
        let e = run_faults(&c).unwrap_err();
        assert!(e.contains(&MAX_OPS.to_string()), "{e}");
    }
}

#[test]
fn bench_rounds_out_of_range_are_one_line_errors() {
    for rounds in ["0", "101"] {
        let args = ["bench", "--quiet", "--ops", "10", "--rounds", rounds];
        one_line_error(&args, &flashix(&args), &["--rounds", rounds, "1 to 100"]);
    }
}
