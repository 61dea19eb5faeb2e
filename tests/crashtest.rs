//! `flashix crashtest`: one summary line per index and device whose counts
//! add up, an exit status that says whether any scenario broke the
//! durability contract, and clear errors for what cannot run.

use std::process::Command;

fn crashtest(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .arg("crashtest")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The numbers of a `crashtest NAME (DEVICE): N scenarios, L lost, W wrong,
/// P panics (...)` line.
fn counts(line: &str) -> [u64; 4] {
    let nums: Vec<u64> = line
        .split(": ")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .take(4)
        .collect();
    [nums[0], nums[1], nums[2], nums[3]]
}

#[test]
fn summaries_add_up_and_the_exit_status_follows_the_failures() {
    for (index, device) in [
        ("btree", "slc-small"),
        ("ipl", "raw:slc-small"),
        ("mbtree", "slc-small"),
    ] {
        let (ok, out, err) = crashtest(&[
            "--index",
            index,
            "--device",
            device,
            "--scenarios",
            "40",
            "--ops",
            "200",
        ]);
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("crashtest {index} (")))
            .unwrap_or_else(|| panic!("{index}: no summary in {out}{err}"));
        let [n, lost, wrong, panics] = counts(line);
        assert_eq!(n, 40, "{line}");
        assert!(lost + wrong + panics <= n, "{line}");
        let failures = lost + wrong + panics;
        assert_eq!(ok, failures == 0, "{line}\n{err}");
        if failures > 0 {
            assert!(err.contains("broke the durability contract"), "{err}");
            // Each failure kind found is illustrated.
            assert!(out.contains("  cut after write "), "{out}");
        }
    }
}

#[test]
fn what_cannot_run_is_a_clear_error() {
    let (ok, out, err) = crashtest(&[
        "--index",
        "nope",
        "--device",
        "slc-small",
        "--scenarios",
        "2",
    ]);
    assert!(
        !ok && out.contains("cannot run") && out.contains("unknown index"),
        "{out}{err}"
    );
    let (ok, _, err) = crashtest(&["--index", "btree", "--flush-every", "0"]);
    assert!(!ok && err.contains("--flush-every"), "{err}");
}

/// `damagetest`: one line per index with the six kinds of damage, counts
/// covering every damaged page, and an exit status that follows the wrong
/// answers and panics.
#[test]
fn damagetest_counts_every_damaged_page_and_exits_on_wrong_answers() {
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(["damagetest", "--index", "btree", "--ops", "200"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("damagetest btree: "))
        .unwrap_or_else(|| panic!("{text}{err}"));
    let pages: u64 = line["damagetest btree: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(pages > 0, "{line}");
    let mut bad = 0;
    for kind in ["zero", "ff", "trim", "swap", "stale", "random"] {
        let counts: Vec<u64> = line
            .split(&format!(" {kind} "))
            .nth(1)
            .unwrap_or_else(|| panic!("{kind} missing: {line}"))
            .split([',', ' '])
            .next()
            .unwrap()
            .split('/')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(counts.len(), 4, "{line}");
        // At most every page once per kind (a damage that leaves a page as
        // it was is skipped); every kind but stale damages something.
        let sum: u64 = counts.iter().sum();
        assert!(
            sum <= pages && (kind == "stale" || sum > 0),
            "{kind}: {line}"
        );
        bad += counts[2] + counts[3];
    }
    assert_eq!(out.status.success(), bad == 0, "{line}\n{err}");
}
