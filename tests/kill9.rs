//! `kill -9` during a run on a file, in its own test binary: a child
//! process forked while another test thread holds a file's lock shares
//! that lock until it execs, which would make those tests see the file
//! "in use" (test binaries run one after another).

use flashix::index::kinds::registry;

fn indexes() -> Vec<&'static str> {
    registry::list().iter().map(|i| i.name).collect()
}

/// `kill -9` of a `run --flush-every 100` on a file, at two moments, for
/// every index: the file reopens to the state of one of the flushes (an
/// insert-only workload, so a multiple of 100 entries), or, if no flush
/// completed yet, to no index at all; never to anything else.
#[test]
fn kill_9_during_a_run_reopens_at_a_flush() {
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_flashix");
    let dir = std::env::temp_dir().join(format!("flashix-kill9-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("scan.txt");
    std::fs::write(&trace, "R 0 100000000\n").unwrap();
    for name in indexes() {
        for delay_ms in [150u64, 600] {
            let db = dir.join(format!("{name}.db"));
            let _ = std::fs::remove_file(&db);
            let dev = format!("file:{}", db.display());
            let mut child = Command::new(bin)
                .args([
                    "run",
                    "--index",
                    name,
                    "--device",
                    &dev,
                    "--flush-every",
                    "100",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(delay_ms));
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            if !db.exists() {
                // Killed before it made the file (a slow start on a busy
                // machine): nothing was flushed, and there is nothing to open.
                continue;
            }
            let out = Command::new(bin)
                .args(["replay", "--index", name, "--device", &dev, "--open"])
                .args(["--trace", trace.to_str().unwrap(), "--print-results"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                assert!(
                    text.contains("no index"),
                    "{name} after {delay_ms} ms: reopen failed: {text}"
                );
                continue;
            }
            let line = text.lines().find(|l| l.starts_with("R 0 ")).unwrap();
            let entries = line.split(' ').filter(|w| w.contains(':')).count() - 1;
            assert_eq!(
                entries % 100,
                0,
                "{name} after {delay_ms} ms: {entries} entries"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
