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
//! children), `report` (the `RESULT` line and the table), `scale` (the
//! scaling run's CSV and plot), `args`.
//!
//! Run: `cargo run --release -p peers -- --n 1000000 --rounds 3`; a
//! scaling run: `-- --scale 1000000,4000000 --memory 16MiB --out scale`.

mod args;
mod engines;
mod error;
mod harness;
mod report;
mod run;
mod scale;
mod workload;

fn main() {
    let result = args::parse().and_then(|a| match a.one.clone() {
        Some(engine) => run::child(&a, &engine),
        None if !a.plot.is_empty() => scale::replot(&a.plot, &a.out.with_extension("svg")),
        None => harness::parent(&a),
    });
    if let Err(e) = result {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}
