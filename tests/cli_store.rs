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

/// One on-disk format: a store the library made answers through the
/// command line (and is refused there without `--open`/`--overwrite`,
/// untouched), and a file the command line made opens as a `Store`.
#[test]
fn library_and_command_line_open_each_others_stores() {
    use flashix::{Options, Store};
    let dir = tempfile::tempdir().unwrap();
    let lib_made = dir.path().join("lib.flashix");
    let mut s = Store::create(&lib_made, &Options::index("lsm")).unwrap();
    s.put(1 << 40, 5_555).unwrap();
    s.put(3, 4_444).unwrap();
    s.close().unwrap();
    let before = std::fs::read(&lib_made).unwrap();
    let device = format!("file:{}", lib_made.display());
    let queries = dir.path().join("q.trace");
    std::fs::write(&queries, "S 1099511627776\nS 3\n").unwrap();
    let queries = queries.display().to_string();
    let out = flashix(&[
        "replay",
        "--read-only",
        "--index",
        "lsm",
        "--memory",
        "4MiB",
        "--device",
        &device,
        "--trace",
        &queries,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("5555") && text.contains("4444"), "{text}");
    let refused = flashix(&[
        "run", "--index", "lsm", "--device", &device, "--ops", "10", "--quiet",
    ]);
    assert!(!refused.status.success());
    assert_eq!(std::fs::read(&lib_made).unwrap(), before);

    let cli_made = dir.path().join("cli.flashix");
    let device = format!("file:{}", cli_made.display());
    let load = dir.path().join("load.trace");
    std::fs::write(&load, "I 1 10\nI 2 20\nD 1 10\nI 7 70\n").unwrap();
    let load = load.display().to_string();
    let made = flashix(&[
        "replay", "--index", "fdtree", "--device", &device, "--trace", &load,
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let mut s = Store::open(&cli_made, &Options::default()).unwrap();
    assert_eq!(s.index().name(), "fdtree");
    let all: Vec<(u64, u64)> = s.range(..).unwrap().map(Result::unwrap).collect();
    assert_eq!(all, [(2, 20), (7, 70)]);
}
