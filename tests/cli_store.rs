//! The command line never destroys a store by accident (issue #28): `run`
//! and `replay` on a `file:` device that holds data refuse, leaving it
//! byte-identical, unless asked to `--open` it or to `--overwrite` it.

use std::process::{Command, Output};

fn flashix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(args)
        .output()
        .expect("run flashix")
}

#[test]
fn run_and_replay_refuse_a_file_that_holds_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let device = format!("file:{}", path.display());
    let first = flashix(&[
        "run", "--index", "btree", "--device", &device, "--ops", "300", "--quiet",
    ]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = std::fs::read(&path).unwrap();
    assert!(!before.is_empty());
    let trace = dir.path().join("t.trace");
    std::fs::write(&trace, "I 1 1\nS 1\n").unwrap();
    let trace = trace.display().to_string();
    for args in [
        vec![
            "run", "--index", "btree", "--device", &device, "--ops", "10", "--quiet",
        ],
        vec![
            "replay", "--index", "btree", "--device", &device, "--trace", &trace,
        ],
    ] {
        let out = flashix(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            err.contains("--open") && err.contains("--overwrite"),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{args:?} changed the file"
        );
    }
    // Asked to, each does its work; asked for both, it refuses.
    for flag in ["--open", "--overwrite"] {
        let out = flashix(&[
            "run", flag, "--index", "btree", "--device", &device, "--ops", "10", "--quiet",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{flag}: {err}");
    }
    let both = flashix(&[
        "run",
        "--open",
        "--overwrite",
        "--index",
        "btree",
        "--device",
        &device,
    ]);
    assert!(!both.status.success());
}
