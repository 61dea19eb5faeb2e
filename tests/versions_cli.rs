//! Issue #45 on the command line: a file of versions of keys (a map
//! store, `versions=key`) is never written as a set of pairs — `run
//! --open` and `replay --open` refuse it, naming what it holds, and leave
//! it byte-identical, while `--read-only` still answers from it — and the
//! harness commands test versions of keys with `--set versions=key`.

use std::process::{Command, Output};

use flashix::index::kinds::registry;
use flashix::{Options, Store};

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .expect("run flashix")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_and_replay_refuse_to_write_pairs_into_a_file_of_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.flashix");
    let mut s = Store::create(&path, &Options::index("lsm")).unwrap();
    assert!(
        s.index().versions_by_key(),
        "a map store of lsm keeps versions"
    );
    s.set(7, 70).unwrap();
    s.set(7, 71).unwrap();
    s.close().unwrap();
    let before = std::fs::read(&path).unwrap();
    let device = format!("file:{}", path.display());
    let trace = dir.path().join("t.trace");
    std::fs::write(&trace, "I 7 72\nS 7\n").unwrap();
    let trace = trace.display().to_string();
    for args in [
        vec![
            "run", "--open", "--device", &device, "--ops", "10", "--quiet",
        ],
        vec!["run", "--open", "--index", "lsm", "--device", &device],
        vec!["replay", "--open", "--device", &device, "--trace", &trace],
    ] {
        // The store's own budget (`Options`), which its C0 needs.
        let args = [&args[..], &["--memory", "4MiB"]].concat();
        let out = flashix(&args);
        let (_, err) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("holds versions of keys") && err.contains("--read-only"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{args:?} wrote");
    }
    // Reading it is no harm: the one value of key 7.
    let queries = dir.path().join("q.trace");
    std::fs::write(&queries, "S 7\n").unwrap();
    let queries = queries.display().to_string();
    let out = flashix(&[
        "replay",
        "--read-only",
        "--memory",
        "4MiB",
        "--device",
        &device,
        "--trace",
        &queries,
    ]);
    let (out_text, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(out_text, "S 7: 71\n");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn the_harness_commands_test_versions_of_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}", dir.path().join("c.db").display());
    let out = flashix(&[
        "crashtest",
        "--index",
        "all",
        "--set",
        "versions=key",
        "--device",
        &file,
        "--scenarios",
        "20",
        "--ops",
        "300",
        "--memory",
        "32KiB",
    ]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{stdout}{err}");
    // `all` is every index that keeps versions, and no other.
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("crashtest "))
        .collect();
    let keeping = registry::list()
        .iter()
        .filter(|i| registry::keeps_versions(i.name))
        .count();
    assert_eq!(lines.len(), keeping, "{stdout}");
    for l in &lines {
        let name = l.split_whitespace().nth(1).unwrap_or_default();
        assert!(registry::keeps_versions(name), "{l}");
    }
    assert!(
        lines.iter().all(|l| l.contains("0 lost, 0 wrong, 0 panics")
            && l.contains("replaced a flushed value by an upsert")),
        "{stdout}"
    );
    let out = flashix(&[
        "faulttest",
        "--index",
        "lsm",
        "--set",
        "versions=key",
        "--scenarios",
        "20",
        "--ops",
        "200",
    ]);
    let (stdout, err) = text(&out);
    assert!(out.status.success(), "{stdout}{err}");
    assert!(
        stdout.contains("replaced a flushed value by an upsert"),
        "{stdout}"
    );
    // An index that keeps no versions is named.
    for command in ["crashtest", "faulttest"] {
        let out = flashix(&[command, "--index", "btree", "--set", "versions=key"]);
        let (_, err) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(
            err.contains("btree does not keep versions of keys") && err.contains("lsm"),
            "{command}: {err}"
        );
    }
}
