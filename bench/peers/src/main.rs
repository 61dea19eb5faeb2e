//! The peers bench (issue #29): flashix's indexes on `file:` against
//! embedded key-value engines (redb, LMDB through heed, fjall, sled) on the
//! same workloads, each committing durably every `--commit-every`
//! operations.
//!
//! Each (engine, round) runs in a fresh child process (this binary with
//! `--one ENGINE`), so `/proc/self/io` write_bytes and the peak RSS
//! (VmHWM) are that run's alone; the parent interleaves the engines over
//! the rounds and prints a Markdown table of min–max over rounds.
//!
//! The layout: `engines/` (one module per engine, behind one trait),
//! `workload` (the keys and operations every engine is given), `run` (one
//! measured run, in the child), `harness` (the parent: spawning the
//! children), `report` (the `RESULT` line and the table), `args`.
//!
//! Run: `cargo run --release -p peers -- --n 1000000 --rounds 3`

mod args;
mod engines;
mod error;
mod harness;
mod report;
mod run;
mod workload;

fn main() {
    let result = args::parse().and_then(|a| match a.one.clone() {
        Some(engine) => run::child(&a, &engine),
        None => harness::parent(&a),
    });
    if let Err(e) = result {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}
