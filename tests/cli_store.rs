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
    let load = write_trace(dir.path(), "load.trace", "I 1 10\nI 2 20\nI 2 21\n");
    replay_into("btree", &device, &load);
    let before = std::fs::read(&path).unwrap();
    // Read-only on disk too: a writer could not even open it.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let queries = write_trace(dir.path(), "q.trace", "S 2\nS 3\nR 1 2\n");
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
    let load = write_trace(dir.path(), "load.trace", "I 1 10\nI 2 20\nD 1 10\nI 7 70\n");
    replay_into("fdtree", &device, &load);
    let mut s = Store::open(&cli_made, &Options::default()).unwrap();
    assert_eq!(s.index().name(), "fdtree");
    let all: Vec<(u64, u64)> = s.range(..).unwrap().map(Result::unwrap).collect();
    assert_eq!(all, [(2, 20), (7, 70)]);
}

/// `compare` and `damagetest` on a `file:` device that holds data — a
/// user's text file or a flashix store — refuse, naming `--overwrite`, and
/// leave it byte-identical (issue #41, point 3); `advise` never writes it;
/// damagetest builds its image at a new path and damages only copies
/// beside it, none left after.
#[test]
fn compare_and_damagetest_refuse_a_file_that_holds_data() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes, not a store\n").unwrap();
    let store = dir.path().join("store.db");
    let device = format!("file:{}", store.display());
    let made = flashix(&[
        "run", "--index", "btree", "--device", &device, "--ops", "300", "--quiet",
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let out_dir = dir.path().join("out");
    let out_dir = out_dir.to_str().unwrap();
    for path in [&notes, &store] {
        let before = std::fs::read(path).unwrap();
        let device = format!("file:{}", path.display());
        for args in [
            vec![
                "compare",
                "--indexes",
                "btree",
                "--ops",
                "100",
                "--quiet",
                "--device",
                &device,
                "--out",
                out_dir,
            ],
            vec![
                "damagetest",
                "--index",
                "btree",
                "--ops",
                "100",
                "--device",
                &device,
            ],
        ] {
            let out = flashix(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains("--overwrite") && err.contains("left untouched"),
                "{args:?}: {err}"
            );
            assert_eq!(std::fs::read(path).unwrap(), before, "{args:?} changed it");
        }
    }
    // advise runs each configuration on a scratch file beside the user's,
    // which it never writes.
    let before = std::fs::read(&notes).unwrap();
    let advise = [
        "advise",
        "--indexes",
        "btree",
        "--ops",
        "300",
        "--quiet",
        "--device",
        &format!("file:{}", notes.display()),
        "--out",
        out_dir,
    ];
    let out = flashix(&advise);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&notes).unwrap(), before);
    // A scratch file in damagetest's way is refused as well.
    let fresh = dir.path().join("fresh.db");
    let scratch = dir.path().join("fresh.db.damaged");
    std::fs::write(&scratch, "mine\n").unwrap();
    let device = format!("file:{}", fresh.display());
    let damage = [
        "damagetest",
        "--index",
        "btree",
        "--ops",
        "200",
        "--device",
        &device,
    ];
    let out = flashix(&damage);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("fresh.db.damaged"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&scratch).unwrap(), b"mine\n");
    assert!(!fresh.exists());
    std::fs::remove_file(&scratch).unwrap();
    let out = flashix(&damage);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fresh.exists() && !scratch.exists());
    // Asked to, both replace what the path holds.
    let out = flashix(&[
        "compare",
        "--indexes",
        "btree",
        "--ops",
        "100",
        "--quiet",
        "--device",
        &format!("file:{}", notes.display()),
        "--out",
        out_dir,
        "--overwrite",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_ne!(std::fs::read(&notes).unwrap(), b"my notes, not a store\n");
    let mut again = damage.to_vec();
    again.push("--overwrite");
    let out = flashix(&again);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The file says which index it holds (issue #41, point 9): `--open` and
/// `--read-only` need no `--index`, and one that names another kind is an
/// error naming both; `run --open` with no work asked for opens the store,
/// reports it and leaves it byte-identical.
#[test]
fn the_file_says_which_index_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.flashix");
    let device = format!("file:{}", path.display());
    let load = write_trace(dir.path(), "load.trace", "I 1 10\nI 2 20\n");
    replay_into("lsm", &device, &load);
    let before = std::fs::read(&path).unwrap();
    let queries = write_trace(dir.path(), "q.trace", "S 1\nS 2\n");

    let out = flashix(&[
        "replay",
        "--read-only",
        "--device",
        &device,
        "--trace",
        &queries,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "S 1: 10\nS 2: 20\n");
    for args in [
        vec![
            "replay",
            "--read-only",
            "--index",
            "btree",
            "--device",
            &device,
            "--trace",
            &queries,
        ],
        vec!["run", "--open", "--index", "btree", "--device", &device],
    ] {
        let out = flashix(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("holds a lsm index, not btree"),
            "{args:?}: {err}"
        );
    }
    for flag in ["--open", "--read-only"] {
        let out = flashix(&["run", flag, "--device", &device]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("opened the lsm index") && text.contains("nothing is written"),
            "{flag}: {text}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{flag} wrote");
    }
    // Work asked for is done, on the index the file holds.
    let out = flashix(&[
        "run", "--open", "--device", &device, "--ops", "5", "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("lsm"));
    // Creating one, the name is needed.
    let new = format!("file:{}", dir.path().join("new.db").display());
    let out = flashix(&["run", "--device", &new, "--ops", "5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--index NAME is required"),
        "{}",
        stderr(&out)
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `text` to `dir/name`; its path.
fn write_trace(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Makes a store of `index` at `device` from the trace at `load`.
fn replay_into(index: &str, device: &str, load: &str) {
    let made = flashix(&[
        "replay", "--index", index, "--device", device, "--trace", load,
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
}
