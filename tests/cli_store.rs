//! The command line never destroys a store by accident (issue #28): `run`
//! and `replay` on a `file:` device that holds data refuse, leaving it
//! byte-identical, unless asked to `--open` it or to `--overwrite` it; and
//! `--read-only` answers from a store without changing a byte of it, even
//! a file that is read-only on disk.

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

#[test]
fn read_only_answers_and_leaves_the_file_byte_identical() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let device = format!("file:{}", path.display());
    let load = dir.path().join("load.trace");
    std::fs::write(&load, "I 1 10\nI 2 20\nI 2 21\n").unwrap();
    let load = load.display().to_string();
    let made = flashix(&[
        "replay", "--index", "btree", "--device", &device, "--trace", &load,
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let before = std::fs::read(&path).unwrap();
    // Read-only on disk too: a writer could not even open it.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let queries = dir.path().join("q.trace");
    std::fs::write(&queries, "S 2\nS 3\nR 1 2\n").unwrap();
    let queries = queries.display().to_string();
    let read_only = |trace: &str| {
        flashix(&[
            "replay",
            "--read-only",
            "--index",
            "btree",
            "--device",
            &device,
            "--trace",
            trace,
        ])
    };
    let out = read_only(&queries);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("20") && text.contains("21") && text.contains("10"),
        "{text}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // An insert is refused, and the file still unchanged.
    let out = read_only(&load);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
