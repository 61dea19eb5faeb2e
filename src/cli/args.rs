//! Command-line grammar (clap derive). The forms in the README are a
//! contract with scripts: keep them stable, add options freely.
//!
//! Every size (`--memory`, `--device-set capacity=`) is bytes or a number
//! with a unit, parsed by [`crate::device::size`]: `KiB`, `K` (and `MiB`,
//! `M`, `GiB`, `G`) are powers of 1,024; `KB`, `MB`, `GB` powers of 1,000.
//! Each size flag's help says so.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// `flashix --version`: the package's version and the build id
/// ([`crate::experiment::build_id`]) a shard's files carry, so a user can
/// tell two builds apart. `concat!` takes literals only, hence the
/// variable `build.rs` sets rather than the constant: the same text
/// (`tests/shard_resume.rs` compares them).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (build ",
    env!("FLASHIX_BUILD_ID"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "flashix",
    version = VERSION,
    about = "Flash-aware index structures over simulated NAND, an FTL and real files",
    propagate_version = true,
    // Help wraps to the terminal (clap's `wrap_help`), up to 100 columns.
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List indexes, device profiles, workload presets and experiments.
    List,
    /// Run a workload (preset or trace) on one index and report what the
    /// device did.
    Run(RunArgs),
    /// Replay a trace and print every lookup result.
    Replay(ReplayArgs),
    /// Trace files.
    #[command(subcommand)]
    Trace(TraceCommand),
    /// Every listed index on the same device, workload and memory budget.
    Compare(CompareArgs),
    /// Which index, configured how, for this workload, memory and device,
    /// and how long the flash lasts: every index over the parameters its
    /// paper says matter, the Pareto front, a recommendation and the
    /// `flashix run` command that reproduces it.
    Advise(AdviseArgs),
    /// How fast the simulation runs: random inserts then searches on
    /// `btree` over the simulated FTL and on Rust's in-memory BTreeMap, in
    /// this process, with both rates, their ratio and the peak memory.
    Bench(BenchArgs),
    /// Reproduce a paper experiment (or `all`): CSV, JSON, figure and a
    /// published-vs-measured report.
    Reproduce(ReproduceArgs),
    /// Cut the power at every write of a seeded workload, reopen, and check
    /// the durability contract; exits non-zero on any failure.
    Crashtest(CrashCommandArgs),
    /// Damage one page of a flushed image at a time (zeroed, erased,
    /// trimmed, swapped, stale, random), reopen, and check that every answer
    /// is exact or an error; exits non-zero on a wrong answer or a panic.
    Damagetest(DamagetestArgs),
    /// Fail one write or sync (EIO, ENOSPC, a short write) of a seeded
    /// workload, retry, go on, crash, reopen, and check the index holds its
    /// last flush; exits non-zero on any failure.
    Faulttest(FaulttestArgs),
    /// Combine the shards of `reproduce --shard` into each experiment's
    /// CSV, JSON, figure and report, as one machine would have written them.
    Merge(MergeArgs),
    /// Print the table of measured run times the shard plan estimates
    /// from (`src/experiment/measured_costs.tsv`): from the run files of
    /// `reproduce --shard` outputs, or the `ID.json` files of `reproduce` or
    /// `merge` outputs.
    Costs(CostsArgs),
}

#[derive(Debug, Args)]
pub struct CostsArgs {
    /// Output folders of `reproduce --shard` (its shards: every run's own
    /// time) or of `reproduce` and `merge` (each holding ID/ID.json).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A comment for the table's head: where and when the times were
    /// measured, with the command.
    #[arg(long, default_value = "")]
    pub note: String,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard folders (`OUT/shard-I-of-N`), or folders holding them (the
    /// `--out` every shard wrote into).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder; each experiment writes into OUT/ID/.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Where to write the RESULTS.md summary, as `reproduce` does: for
    /// shards of `all`, the whole of it (default OUT/RESULTS.md); else
    /// these experiments' sections of this file.
    #[arg(long)]
    pub summary: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct FaulttestArgs {
    /// Index name, or `all`.
    #[arg(long, default_value = "all")]
    pub index: String,
    /// Index parameter, KEY=VALUE (repeatable). `versions=key` tests
    /// indexes of versions of keys with a map's workload (upserts,
    /// deletes of a key's current pair, lookups); with `--index all`,
    /// every index that keeps them.
    #[arg(long = "set", value_name = "K=V")]
    pub set: Vec<String>,
    /// Scenarios per index.
    #[arg(long, default_value_t = 1000)]
    pub scenarios: u64,
    /// Data operations of the workload (at most 10,000,000: the workload
    /// and its oracle are held in memory).
    #[arg(long, default_value_t = 600)]
    pub ops: usize,
    /// A flush after every N data operations.
    #[arg(long, default_value_t = 40)]
    pub flush_every: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Bulk-load N entries and flush them once; every scenario starts from
    /// a copy of that image (indexes of thousands of pages stay cheap; at
    /// most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub preload: u64,
    /// Memory budget of the index: bytes, or a number with a unit: KiB,
    /// MiB, GiB (or K, M, G) are 1,024-based; KB, MB, GB 1,000-based.
    #[arg(long, default_value = "16KiB")]
    pub memory: String,
    /// The commit layer's write-ahead log bound (a size; 0: no log, every
    /// flush commits): small, so that checkpoints come every few flushes.
    #[arg(long, default_value = "4KiB")]
    pub log_bytes: String,
}

#[derive(Debug, Args)]
pub struct CrashtestArgs {
    /// Index name, or `all`.
    #[arg(long)]
    pub index: String,
    /// Index parameter, KEY=VALUE (repeatable). `versions=key` tests
    /// indexes of versions of keys with a map's workload (upserts, many of
    /// a live key, deletes and updates of a key's current pair); with
    /// `--index all`, every index that keeps them.
    #[arg(long = "set", value_name = "K=V")]
    pub set: Vec<String>,
    /// `PROFILE` (FTL), `raw:PROFILE`, an SSD model (`x25e`,
    /// `samsung-ssd32`, `intel-extreme`) or `file:PATH` (crashtest: its
    /// scenario files are PATH.N, removed after, and PATH is never
    /// touched; damagetest: the flushed image is built at PATH, see
    /// `--overwrite`). Default: for crashtest the FTL on `slc-small`, the
    /// raw chip where the index runs on one, and a file in the temporary
    /// folder; for damagetest the FTL on `slc-small`.
    #[arg(long)]
    pub device: Option<String>,
    /// Device parameter, KEY=VALUE (repeatable), as for `run`; sizes take
    /// units (`capacity=64KiB`).
    #[arg(long = "device-set", value_name = "K=V")]
    pub device_set: Vec<String>,
    /// Scenarios per index and device.
    #[arg(long, default_value_t = 1000)]
    pub scenarios: u64,
    /// Data operations of the workload (at most 10,000,000: the workload
    /// and its oracle are held in memory).
    #[arg(long, default_value_t = 1000)]
    pub ops: usize,
    /// A flush after every N data operations.
    #[arg(long, default_value_t = 50)]
    pub flush_every: usize,
    /// Memory budget of the index (small, so that nodes go to the device
    /// between flushes): bytes, or a number with a unit: KiB, MiB, GiB (or K,
    /// M, G) are 1,024-based; KB, MB, GB 1,000-based (64KiB = 65,536 B, 64KB =
    /// 64,000 B).
    #[arg(long, default_value = "16KiB")]
    pub memory: String,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Bulk-load N entries (`Index::bulk_load`) and flush them before the
    /// workload, so cuts fall in the loader's writes too (at most
    /// 10,000,000).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub bulk_load: u64,
}

#[derive(Debug, Args)]
pub struct CrashCommandArgs {
    #[command(flatten)]
    pub test: CrashtestArgs,
    /// Cut the power between the two copies of a log page or of the commit
    /// record, recover, make three acknowledged flushes, then damage the
    /// one copy the crash left (issue #41): every flush must survive. Runs
    /// in RAM under the commit layer (a file's stack without the file), at
    /// up to `--scenarios` such cut points an index; `--device` and
    /// `--bulk-load` do not apply.
    #[arg(long)]
    pub double_fault: bool,
}

#[derive(Debug, Args)]
pub struct DamagetestArgs {
    #[command(flatten)]
    pub test: CrashtestArgs,
    /// With `--device file:PATH`, where the flushed image is built (each
    /// damaged copy goes to PATH.damaged beside it, removed after): replace
    /// what PATH holds. Without it, a file that holds data is refused,
    /// untouched.
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Experiment id (see `flashix list`), several separated by commas, or `all`.
    pub id: String,
    /// Reduced sizes (seconds instead of minutes).
    #[arg(long)]
    pub quick: bool,
    /// Output folder; each experiment writes into OUT/ID/.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Parallel runs (default: number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where `all` writes its RESULTS.md summary (default OUT/RESULTS.md);
    /// with experiment ids, their sections of this summary are replaced
    /// (or inserted) and the rest is kept.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Run only shard I of N (counted from 0) of the runs, balanced by
    /// estimated cost, into OUT/shard-I-of-N/; `flashix merge` combines
    /// the N shards (docs/CLUSTER.md).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::experiment::shard::ShardSpec>,
    /// With `--shard`: run nothing; print every run's shard and estimated
    /// cost (tab-separated) and each shard's total, to check the balance
    /// before submitting a job array.
    #[arg(long, requires = "shard")]
    pub plan: bool,
    #[arg(long)]
    pub quiet: bool,
}

/// An index configuration: its name and parameters (`KEY=VALUE`).
#[derive(Debug, Clone)]
pub struct IndexArgs {
    pub index: String,
    pub set: Vec<String>,
}

/// The index of `run` and `replay`: named, or read from the file.
#[derive(Debug, Args, Clone)]
pub struct IndexChoice {
    /// Index name (see `flashix list`): required to create an index. With
    /// `--open` or `--read-only` the file says which index it holds; a
    /// name given must be that one.
    #[arg(long)]
    pub index: Option<String>,
    /// Index parameter, KEY=VALUE (repeatable), e.g. `--set node_bytes=512`.
    /// Opening a file, one its index records must match it, and one left
    /// out is read from the file.
    #[arg(long = "set", value_name = "K=V")]
    pub set: Vec<String>,
}

/// Device choice and overrides.
#[derive(Debug, Args, Clone)]
pub struct DeviceArgs {
    /// The device (`flashix list` describes each): an FTL profile
    /// (`slc-small`, `slc-large`, `mlc`, `toshiba-byte`, `samsung-large`: a
    /// page-mapping FTL over that simulated NAND chip), `raw:PROFILE` (the
    /// chip itself, for indexes that manage erase blocks), an SSD model
    /// (`x25e`, `samsung-ssd32`, `intel-extreme`: a timing model of a real
    /// SSD) or `file:PATH` (a real file). `run` and `compare` size an FTL
    /// device without `blocks=` or `capacity=` to the work (see `--fill`).
    #[arg(long, default_value = "slc-small")]
    pub device: String,
    /// Device parameter, KEY=VALUE (repeatable): capacity, page_size,
    /// pages_per_block, blocks, overprovision, gc, nop, endurance,
    /// spare_size, atomic and every cost field; on a file direct=true
    /// (O_DIRECT: bypass the page cache); on an SSD model capacity,
    /// page_size, blocks, atomic, streams and curve points (`rw_4KiB=30`).
    /// Sizes are bytes or take a unit as `--memory` does
    /// (`capacity=64KiB`).
    #[arg(long = "device-set", value_name = "K=V")]
    pub device_set: Vec<String>,
}

/// A workload: a preset with overrides, or a trace file.
#[derive(Debug, Args, Clone)]
pub struct WorkloadArgs {
    /// Workload preset (see `flashix list`).
    #[arg(long, conflicts_with = "trace")]
    pub workload: Option<String>,
    /// Workload parameter, KEY=VALUE (repeatable).
    #[arg(long = "workload-set", value_name = "K=V")]
    pub workload_set: Vec<String>,
    /// Trace file (`I k v`, `D k v`, `U k old new`, `S k`, `R lo hi`).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Entries inserted before the measured operations.
    #[arg(long)]
    pub preload: Option<u64>,
    /// Measured operations.
    #[arg(long)]
    pub ops: Option<u64>,
    /// Seed of the workload generator.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub index: IndexChoice,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Memory budget of the index: bytes, or a number with a unit: KiB, MiB,
    /// GiB (or K, M, G) are 1,024-based; KB, MB, GB 1,000-based (64KiB = 65,536
    /// B, 64KB = 64,000 B).
    #[arg(long, default_value = "64KiB")]
    pub memory: String,
    /// Sizing of an FTL device without `blocks=`/`capacity=`: the largest
    /// index footprint (measured by a first run) fills this share of the
    /// logical capacity [default: 0.9].
    #[arg(long)]
    pub fill: Option<f64>,
    /// Precondition the FTL device as `compare` does: before the index
    /// runs, cold data fills this share of the logical space together with
    /// the index's footprint (a share in (0, 1) such as 0.8, or 80%), and
    /// the chip is sized at it instead of at `--fill` [default: none, an
    /// empty chip].
    #[arg(long, value_name = "SHARE")]
    pub occupancy: Option<String>,
    /// Check every answer against an in-memory oracle.
    #[arg(long)]
    pub verify: bool,
    /// Count memory as Agrawal et al. 2009 §6 does: the data-bound tables
    /// (node tables, the node translation table, the buffer directory and
    /// the like, one entry per node, sector or buffer) outside the budget.
    /// The index is given `tables=outside`, so its caches and buffers get
    /// the whole budget, and the budget holds the peak less those tables;
    /// caches, buffers and scratch stay in it (as `advise
    /// --exclude-node-tables`).
    #[arg(long)]
    pub exclude_node_tables: bool,
    /// Write the full JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Flush the index after every N operations (default: at the end
    /// only); each flush is charged to the `flush` row.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub flush_every: Option<u64>,
    /// Open the index a `file:PATH` device holds instead of creating one
    /// (the file names its index: `--index` may be left out). Only the work
    /// asked for runs: with no `--ops`, `--workload`, `--preload` or
    /// `--trace`, the store is opened and reported, and nothing is written.
    #[arg(long)]
    pub open: bool,
    /// Replace what a `file:PATH` device holds with a new index (without
    /// it, or `--open`, a file that holds data is refused, untouched).
    #[arg(long, conflicts_with = "open")]
    pub overwrite: bool,
    /// Open the index on a `file:PATH` device for queries only (the file
    /// names its index): nothing is written (no final flush; an insert is
    /// an error), the file stays byte-identical, and other readers may
    /// share it.
    #[arg(long, conflicts_with_all = ["overwrite", "bulk_load", "flush_every"])]
    pub read_only: bool,
    /// Build the index from the preload with its bulk loader (the preload
    /// is generated in key order) and flush it, as setup, before the
    /// measured operations: how an index of 10^8 entries is built.
    #[arg(long, conflicts_with = "open")]
    pub bulk_load: bool,
    /// Write every device request the index makes to FILE as a DiskSim
    /// ASCII trace (time in ms, device, 512-byte sector, sectors, 1 read /
    /// 0 write).
    #[arg(long, value_name = "FILE")]
    pub io_trace: Option<PathBuf>,
    /// Build the preload with the index's structural parameters alone (its
    /// runtime knobs, such as the cache, at their defaults), flush it, and
    /// reopen the index with every parameter before the measured
    /// operations: how `advise` runs each configuration, sharing one
    /// preloaded image among those that differ only in runtime knobs.
    #[arg(long, conflicts_with_all = ["open", "read_only", "io_trace"])]
    pub preload_reopen: bool,
    /// Print how long the chip lasts at N operations a day, from the
    /// measured operations' wear.
    #[arg(long, value_name = "N")]
    pub ops_per_day: Option<f64>,
    /// Precondition the FTL chip (of `--device-set blocks=N`) with exactly
    /// this many pages of cold data, as `--occupancy` would, without the
    /// sizing run: the device an `advise` command names.
    #[arg(long, value_name = "PAGES", conflicts_with_all = ["occupancy", "fill"])]
    pub cold_pages: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Trace file to replay.
    #[arg(long)]
    pub trace: PathBuf,
    #[command(flatten)]
    pub index: IndexChoice,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Memory budget of the index: bytes, or a number with a unit: KiB, MiB,
    /// GiB (or K, M, G) are 1,024-based; KB, MB, GB 1,000-based (64KiB = 65,536
    /// B, 64KB = 64,000 B).
    #[arg(long, default_value = "64KiB")]
    pub memory: String,
    /// Accepted and ignored, for scripts written when it was required:
    /// replay always prints one line per `S` and `R` op.
    #[arg(long)]
    pub print_results: bool,
    /// Answer the trace on an index already on the device (`file:PATH`)
    /// instead of creating one.
    #[arg(long)]
    pub open: bool,
    /// Replace what a `file:PATH` device holds with a new index (without
    /// it, or `--open`, a file that holds data is refused, untouched).
    #[arg(long, conflicts_with = "open")]
    pub overwrite: bool,
    /// Answer the trace on the index on a `file:PATH` device without
    /// writing anything (no final flush; an insert is an error): the file
    /// stays byte-identical, and other readers may share it.
    #[arg(long, conflicts_with_all = ["overwrite", "flush_every"])]
    pub read_only: bool,
    /// Flush the index after every N operations (default: at the end
    /// only); each flush is charged to the `flush` row.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub flush_every: Option<u64>,
    /// Write every device request to FILE as a DiskSim ASCII trace.
    #[arg(long, value_name = "FILE")]
    pub io_trace: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Write a generated workload as a trace to stdout (preload first).
    Gen(TraceGenArgs),
}

#[derive(Debug, Args)]
pub struct TraceGenArgs {
    /// The workload (a preset; `--trace` makes no sense here).
    #[command(flatten)]
    pub workload: WorkloadArgs,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Comma-separated index configurations (`btree:cache=lru`), or `all`.
    #[arg(long, default_value = "all")]
    pub indexes: String,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Memory budget of every index.
    #[arg(long, default_value = "64KiB")]
    pub memory: String,
    /// Precondition the simulated FTL chip before each index runs, as SSD
    /// simulators do (MQSim's initial occupancy): cold data, written at
    /// logical pages the index does not address and aged by random
    /// overwrites of itself, fills this share of the
    /// logical space together with the index's footprint, so garbage
    /// collection has to copy pages as on a device in use. The chip is sized
    /// so that the largest footprint alone is this share (unless
    /// `--device-set blocks=N` chooses it). Counts exclude the fill. A share
    /// in (0, 1) such as 0.8, or 80%; `none` (or 0): an empty chip sized by
    /// `--fill`.
    #[arg(long, value_name = "SHARE", default_value = "0.8")]
    pub occupancy: String,
    /// With `--occupancy none`: size the FTL chip so that the largest
    /// index footprint (measured by a first run) fills this share of the
    /// logical capacity [default: 0.9].
    #[arg(long)]
    pub fill: Option<f64>,
    /// Print every column of the table (writes as the index asked for them,
    /// GC copies, durability writes, live data, wall time), not the
    /// compact table of 120 columns; compare.json has them all either way.
    #[arg(long)]
    pub wide: bool,
    /// Directory for the JSON reports and the bar chart.
    #[arg(long, default_value = "results/compare")]
    pub out: PathBuf,
    /// Check every answer against an in-memory oracle.
    #[arg(long)]
    pub verify: bool,
    /// With `--device file:PATH`: replace what PATH holds (every index is
    /// created on it in turn; the last one stays). Without it, a file that
    /// holds data is refused, untouched.
    #[arg(long)]
    pub overwrite: bool,
    /// Write each index's device requests as a DiskSim ASCII trace to
    /// FILE-LABEL.trace (LABEL the index configuration).
    #[arg(long, value_name = "FILE")]
    pub io_trace: Option<PathBuf>,
    /// With `--device file:PATH`: run every index again on this simulated
    /// device (an SSD model such as `x25e`, or an FTL profile) and print
    /// the model's predicted I/O time beside the time the file took, with
    /// the error (the prediction check).
    #[arg(long, value_name = "PROFILE")]
    pub predict: Option<String>,
    /// Print how long the chip lasts at N operations a day with each
    /// index, from the measured operations' wear.
    #[arg(long, value_name = "N")]
    pub ops_per_day: Option<f64>,
    /// No progress bar on stderr while the indexes run (the report on
    /// stdout is the same).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The workload: a preset (`--workload`, default `mbtree` with 100,000
    /// operations, as `compare`), a trace (`--trace`; a long one is advised
    /// on a prefix, see `--prefix` and `--ops`) or `dna:FILE`.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Memory budget of every configuration: bytes, or a number with a
    /// unit: KiB, MiB, GiB (or K, M, G) are 1,024-based; KB, MB, GB
    /// 1,000-based.
    #[arg(long, default_value = "64KiB")]
    pub memory: String,
    /// Recommend the configuration with the least time, energy or page
    /// writes per operation, or the longest lifetime (default: the
    /// balanced member of the Pareto front).
    #[arg(long, value_name = "time|energy|writes|lifetime")]
    pub optimize: Option<String>,
    /// Project the flash's lifetime at N operations a day.
    #[arg(long, value_name = "N")]
    pub ops_per_day: Option<f64>,
    /// Leave out configurations whose projected lifetime at
    /// `--ops-per-day` is under Y years.
    #[arg(long, value_name = "Y", requires = "ops_per_day")]
    pub years: Option<f64>,
    /// Parallel runs (default: number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Write the front, every configuration's measures and the
    /// recommendation (`index`, `params`, `command`) here as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Directory for the chart (advise.png, advise.svg) and advise.json.
    #[arg(long, default_value = "results/advise")]
    pub out: PathBuf,
    /// Preconditioning of a simulated FTL chip, as `compare` does it.
    #[arg(long, value_name = "SHARE", default_value = "0.8")]
    pub occupancy: String,
    /// With `--occupancy none`: the share of the chip the largest
    /// footprint fills [default: 0.9].
    #[arg(long)]
    pub fill: Option<f64>,
    /// Build the preload with each index's bulk loader (in key order).
    #[arg(long)]
    pub bulk_load: bool,
    /// Count memory as Agrawal et al. 2009 §6 does: the data-bound tables
    /// (node tables, the node translation table, the buffer directory and
    /// the like) outside the budget, every configuration run with
    /// `tables=outside` (as `run --exclude-node-tables`); caches, buffers
    /// and scratch stay in it.
    #[arg(long)]
    pub exclude_node_tables: bool,
    /// Advise on the first N operations of the trace, doubling them while
    /// advice on the first half names another index (default for a trace
    /// over 2,000,000 operations: 1,000,000); `--ops N` takes exactly N.
    #[arg(long, value_name = "N")]
    pub prefix: Option<u64>,
    /// Try only these indexes (comma-separated names).
    #[arg(long)]
    pub indexes: Option<String>,
    /// Build every configuration's preload itself instead of copying one
    /// image among those that share it (to measure what sharing saves).
    #[arg(long)]
    pub no_shared_preload: bool,
    /// Print every configuration within the budget, not only the front.
    #[arg(long)]
    pub all: bool,
    /// Check every answer against an in-memory oracle.
    #[arg(long)]
    pub verify: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Random inserts (then as many searches of the inserted keys), on
    /// each side.
    #[arg(long, default_value_t = 1_000_000)]
    pub ops: u64,
    /// Memory budget of flashix's B+-tree (its modified LRU node cache): bytes,
    /// or a number with a unit: KiB, MiB, GiB (or K, M, G) are 1,024-based; KB,
    /// MB, GB 1,000-based (64KiB = 65,536 B, 64KB = 64,000 B).
    #[arg(long, default_value = "64KiB")]
    pub memory: String,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Write the JSON report here: the flashix run's report, with
    /// `btreemap`, `ratio_flashix_to_btreemap`, `peak_rss_bytes` and
    /// `rss_limit_bytes`.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Runs both passes this many times, alternately (1 to 100). The report
    /// adds each round's times, the median of the rounds' ratios, and the
    /// ratio of each side's fastest pass: on a machine whose speed drifts
    /// from one minute to the next, one round's ratio says little.
    #[arg(long, default_value_t = 1)]
    pub rounds: u32,
}
