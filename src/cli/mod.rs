//! The command line: `list`, `run`, `replay`, `trace gen`, `compare`,
//! `bench`, `reproduce` (`--shard`, and `merge`: [`experiment::shard`], [`experiment::partial`]) (grammar in [`args`]). Every error reaches `main` as one line.

mod advise;
pub mod args;
mod bench;
mod compare;
mod crashtest;
mod faulttest;
pub mod format;
pub mod job;
pub mod lifetime;
mod predict;
mod ranking;
mod shard;
pub mod size;
pub mod sizing;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use clap::Parser;

use crate::device::iotrace::IoTrace;
use crate::device::profile::profiles;
use crate::device::profile::Target;
use crate::device::{DeviceSpec, Storage};
use crate::experiment::{self, output};
use crate::index::kinds::registry;
use crate::index::{Index, Params};
use crate::runner::{self, IndexDescription, Report, RunOptions};
use crate::store::{create_index, open_index, open_index_read_only};
use crate::workload::{preset, presets, TraceReader, TraceWriter, WorkloadSpec};

use args::{
    Cli, Command, DeviceArgs, IndexArgs, IndexChoice, ReplayArgs, ReproduceArgs, RunArgs,
    TraceCommand, WorkloadArgs,
};

type CliResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Runs the command line.
pub fn main() -> CliResult<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::List => list(),
        Command::Run(a) => run_cmd(a),
        Command::Replay(a) => replay(a),
        Command::Trace(TraceCommand::Gen(a)) => {
            if a.workload.trace.is_some() {
                return Err("trace gen writes a trace; it takes --workload, not --trace".into());
            }
            trace_gen(&a.workload)
        }
        Command::Compare(a) => compare::compare(a),
        Command::Advise(a) => advise::advise(a),
        Command::Bench(a) => bench::bench(a),
        Command::Reproduce(a) => reproduce(a),
        Command::Crashtest(a) => crashtest::crashtest(a),
        Command::Damagetest(a) => crashtest::damagetest(a),
        Command::Faulttest(a) => faulttest::faulttest(a),
        Command::Merge(a) => shard::merge(a),
        Command::Costs(a) => shard::costs(a),
    }
}

/// Splits `K=V` arguments.
fn pairs(items: &[String], flag: &str) -> CliResult<Vec<(String, String)>> {
    items
        .iter()
        .map(|s| {
            s.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("{flag} `{s}` is not of the form KEY=VALUE").into())
        })
        .collect()
}

fn memory(text: &str) -> CliResult<usize> {
    Ok(size::parse_size_as(text).map_err(|e| format!("--memory: {e}"))?)
}

fn list() -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "Indexes (--index NAME, parameters with --set K=V):")?;
    for i in registry::list() {
        writeln!(
            out,
            "  {:<16} {}\n  {:<16} parameters: {}",
            i.name, i.description, "", i.params
        )?;
    }
    writeln!(out, "\nDevice profiles (--device NAME | raw:NAME | file:PATH, overrides with --device-set K=V):")?;
    for p in profiles() {
        writeln!(
            out,
            "  {:<16} {}\n  {:<16} endurance {} erases a block: {}",
            p.name,
            p.description,
            "",
            format::group(p.geometry.endurance),
            p.endurance_source
        )?;
    }
    for p in crate::device::ssd::ssd_profiles() {
        writeln!(out, "  {:<16} {}", p.name, p.description)?;
    }
    writeln!(
        out,
        "\nWorkload presets (--workload NAME, overrides with --workload-set K=V):"
    )?;
    for p in presets() {
        writeln!(out, "  {:<16} {}", p.name, p.description)?;
    }
    writeln!(
        out,
        "  {:<16} 16-base substrings of the DNA in a FASTA file (plain, .gz, .xz) as 32-bit keys, in sequence order, then a search of each (Roh et al. 2009 §6)",
        "dna:FILE"
    )?;
    writeln!(
        out,
        "\nPapers (cited by first author and year, with the paper's own section, table or figure):"
    )?;
    for p in &crate::experiment::papers::PAPERS {
        writeln!(
            out,
            "  {:<20} {}: {}",
            p.cite,
            p.structure,
            p.reference_plain()
        )?;
    }
    writeln!(out, "\nExperiments (flashix reproduce ID | all):")?;
    for e in crate::experiment::experiments() {
        writeln!(out, "  {:<16} {} ({})", e.id, e.title, e.source)?;
    }
    writeln!(
        out,
        "\nOpt-in experiments (flashix reproduce ID; not in `all`):"
    )?;
    for e in crate::experiment::opt_in_experiments() {
        writeln!(out, "  {:<16} {} ({})", e.id, e.title, e.source)?;
    }
    Ok(())
}

fn device(d: &DeviceArgs) -> CliResult<DeviceSpec> {
    Ok(DeviceSpec::parse(
        &d.device,
        &pairs(&d.device_set, "--device-set")?,
    )?)
}

fn index_params(i: &IndexArgs) -> CliResult<Params> {
    Ok(Params::parse(i.set.iter().map(String::as_str))?)
}

/// `--exclude-node-tables` (`run`, `advise`): the budget keeps the
/// data-bound tables outside it, as Agrawal et al. 2009 §6 keeps the node
/// table out (`node::budget`). The index is given `tables=outside` (added
/// to `set`), so its caches and buffers get the whole budget, and the run
/// holds the budget against the count less the data-bound lines
/// (`RunOptions::exclude_named`). Returns whether the tables stand outside:
/// with the flag, or where `set` gives `tables=outside` itself.
fn tables_outside(set: &mut Vec<String>, flag: bool) -> CliResult<bool> {
    let given = set
        .iter()
        .rev()
        .find_map(|s| s.strip_prefix("tables="))
        .map(str::to_string);
    match (flag, given) {
        (true, Some(v)) if v != "outside" => Err(format!(
            "--exclude-node-tables keeps the data-bound tables outside the budget, but --set tables={v} \
             puts them in it: give one of the two"
        )
        .into()),
        (true, None) => {
            set.push("tables=outside".into());
            Ok(true)
        }
        (_, Some(v)) => Ok(v == "outside"),
        (false, None) => Ok(false),
    }
}

/// Warns on stderr where the data-bound tables of an index as opened
/// already pass a budget they are paid from: the run says at its start
/// what budget this data needs (its report says it again, with the
/// tables' peak over the run).
fn warn_tables_pass(index: &dyn Index, memory: usize, outside: bool) {
    let tables = crate::node::budget::data_bound_bytes(&index.stats());
    if !outside && tables > memory as u64 {
        eprintln!(
            "{}",
            format::wrap(&format!(
                "note: the data-bound tables of the index as opened hold {tables} B, more than the {memory} B \
                 budget: this data needs a budget of at least {tables} B (--exclude-node-tables keeps them \
                 outside it)"
            ))
        );
    }
}

fn describe(i: &IndexArgs) -> IndexDescription {
    IndexDescription {
        name: i.index.clone(),
        params: i
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn workload_spec(w: &WorkloadArgs, default: &str) -> CliResult<WorkloadSpec> {
    let name = w.workload.as_deref().unwrap_or(default);
    Ok(preset::build(
        name,
        &pairs(&w.workload_set, "--workload-set")?,
        w.preload,
        w.ops,
        w.seed,
    )?)
}

/// Runs a preset or a trace on a built index.
fn execute(
    index: &mut dyn Index,
    w: &WorkloadArgs,
    mut options: RunOptions,
    results: Option<&mut dyn Write>,
) -> CliResult<Report> {
    if let Some(path) = &w.trace {
        if w.preload.is_some() || !w.workload_set.is_empty() {
            return Err("--preload and --workload-set apply to presets, not to --trace".into());
        }
        options.workload = format!("trace {}", path.display());
        let reader = TraceReader::open(path)?;
        let mut ops: Box<dyn Iterator<Item = _>> = match w.ops {
            Some(n) => Box::new(reader.take(n as usize)),
            None => Box::new(reader),
        };
        return Ok(runner::run(
            index,
            &mut std::iter::empty(),
            &mut ops,
            &options,
            results,
        )?);
    }
    let spec = workload_spec(w, "insert-uniform")?;
    Ok(runner::run_workload(index, &spec, options, results)?)
}

/// What `run` and `replay` offer for a file that holds data.
const OPEN_OR_OVERWRITE: &str = "`--open` works on the index in it, `--overwrite` replaces it";

/// A new index on a `file:` device that already holds data would truncate
/// it: a user's store (or any file) gone with exit status 0 (issue #28).
/// Refused, the file untouched, unless the caller asked to replace it;
/// `choices` says what the command offers instead. Every command that
/// writes at a `file:PATH` it names checks here first.
fn refuse_to_clobber(spec: &DeviceSpec, overwrite: bool, choices: &str) -> CliResult<()> {
    let Target::File(path) = &spec.target else {
        return Ok(());
    };
    refuse_to_clobber_path(path, overwrite, choices)
}

/// [`refuse_to_clobber`] for a path the command writes (a device's file,
/// or a scratch file beside it).
fn refuse_to_clobber_path(path: &Path, overwrite: bool, choices: &str) -> CliResult<()> {
    if overwrite {
        return Ok(());
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(format!("{} is a directory, not a file", path.display()).into()),
        Ok(m) if m.len() > 0 => Err(format!(
            "{} already holds {} bytes and is left untouched: {choices}",
            path.display(),
            m.len()
        )
        .into()),
        _ => Ok(()),
    }
}

/// A new index `i` on a new device of `spec`.
fn build_index(i: &IndexArgs, spec: &DeviceSpec, memory: usize) -> CliResult<Box<dyn Index>> {
    build_traced(i, spec, memory, None)
}

/// How `run` and `replay` get their index.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// A new index (a file is created or replaced).
    Create,
    /// The index a file holds.
    Open,
    /// The index a file holds, for reading only.
    ReadOnly,
}

impl Opening {
    fn of(open: bool, read_only: bool) -> Opening {
        match (open, read_only) {
            (_, true) => Opening::ReadOnly,
            (true, false) => Opening::Open,
            (false, false) => Opening::Create,
        }
    }
}

/// The storage of `spec` as `opening` asks for it, every device request
/// written to `io_trace` if given.
fn storage(spec: &DeviceSpec, opening: Opening, io_trace: Option<&Path>) -> CliResult<Storage> {
    let storage = match opening {
        Opening::Create => spec.build()?,
        Opening::Open => spec.open_existing()?,
        Opening::ReadOnly => spec.open_read_only()?,
    };
    let Some(path) = io_trace else {
        return Ok(storage);
    };
    match storage {
        Storage::Pages(dev) => Ok(Storage::Pages(Box::new(IoTrace::new(dev, path)?))),
        Storage::Raw(_) => Err("--io-trace records logical-page requests; a raw: chip has none (use an FTL profile, an SSD model or file:PATH)".into()),
    }
}

/// [`build_index`], with every device request written to `io_trace`.
fn build_traced(
    i: &IndexArgs,
    spec: &DeviceSpec,
    memory: usize,
    io_trace: Option<&Path>,
) -> CliResult<Box<dyn Index>> {
    let params = index_params(i)?;
    let storage = storage(spec, Opening::Create, io_trace)?;
    Ok(create_index(&i.index, storage, memory, params)?)
}

/// The index `run` or `replay` creates: `--index` names it.
fn to_create(i: &IndexChoice) -> CliResult<IndexArgs> {
    let index = i.index.clone().ok_or(
        "--index NAME is required to create an index (`flashix list` names them); \
         --open and --read-only read it from the file",
    )?;
    Ok(IndexArgs {
        index,
        set: i.set.clone(),
    })
}

/// The index a `file:` device holds, opened as `opening` says, and the
/// configuration it was opened as. The file says which index it holds
/// ([`registry::stored_kind`], as `Store::open` reads it): `--index` may
/// be left out, and one given that names another is an error naming
/// both; parameters left out are read from the file too (`index::kinds::reopen`).
fn open_stored(
    i: &IndexChoice,
    spec: &DeviceSpec,
    memory: usize,
    opening: Opening,
    io_trace: Option<&Path>,
) -> CliResult<(Box<dyn Index>, IndexArgs)> {
    let Target::File(path) = &spec.target else {
        return Err(format!(
            "--open and --read-only work on the index a file:PATH holds; `{}` is simulated and starts empty",
            spec.name
        )
        .into());
    };
    let mut storage = storage(spec, opening, io_trace)?;
    let kind = registry::stored_kind(&mut storage)
        .map_err(|e| format!("{}: {e}", spec.name))?
        .ok_or_else(|| {
            format!(
                "{} holds no flushed index (a store never flushed holds nothing)",
                path.display()
            )
        })?;
    if let Some(asked) = i.index.as_deref().filter(|asked| *asked != kind) {
        return Err(format!(
            "{} holds a {kind} index, not {asked}: leave out --index, or give --index {kind}",
            spec.name
        )
        .into());
    }
    let cfg = IndexArgs {
        index: kind,
        set: i.set.clone(),
    };
    let params = index_params(&cfg)?;
    let index = match opening {
        Opening::ReadOnly => open_index_read_only(&cfg.index, storage, memory, params)?,
        _ => open_index(&cfg.index, storage, memory, params)?,
    };
    // `run` and `replay` write a set of pairs (a second value of a key is
    // a second pair); in a map of versions of keys it would replace the
    // first, and the store would answer what the operations never said.
    if opening == Opening::Open && index.versions_by_key() {
        return Err(format!(
            "{} holds versions of keys (a map store, `versions=key`): run and replay write a \
             set of pairs, which it cannot hold; --read-only answers lookups from it, and the \
             library's Store writes it",
            path.display()
        )
        .into());
    }
    Ok((index, cfg))
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> CliResult<()> {
    let f = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = BufWriter::new(f);
    serde_json::to_writer_pretty(&mut w, value)?;
    writeln!(w)?;
    w.flush()?;
    Ok(())
}

/// Whether `w` asks for any work: a preset, a trace, a count or a
/// preset's setting.
fn asks_for_work(w: &WorkloadArgs) -> bool {
    w.workload.is_some()
        || w.trace.is_some()
        || w.ops.is_some()
        || w.preload.is_some()
        || !w.workload_set.is_empty()
}

fn run_cmd(mut a: RunArgs) -> CliResult<()> {
    if a.bulk_load {
        if a.workload.trace.is_some() {
            return Err("--bulk-load builds the index from a generated preload; a trace gives its operations one by one".into());
        }
        a.workload.workload_set.push("preload_sorted=true".into());
    }
    let spec = device(&a.device)?;
    let mem = memory(&a.memory)?;
    let occupancy = match &a.occupancy {
        Some(o) => sizing::parse_occupancy(o)?,
        None => None,
    };
    let fill = sizing::check_fit(a.fill, occupancy)?;
    let ops_per_day = lifetime::check_rate(a.ops_per_day)?;
    if a.cold_pages.is_some() && (spec.target != Target::Ftl || !spec.explicit_size) {
        return Err("--cold-pages preconditions a simulated FTL chip of a chosen size: give an FTL profile and --device-set blocks=N".into());
    }
    let opening = Opening::of(a.open, a.read_only);
    let outside = tables_outside(&mut a.index.set, a.exclude_node_tables)?;
    // A store the user opens gets only the work the user asks for: with
    // none, it is opened, reported and left as it was (nothing flushed).
    let idle = opening != Opening::Create && !asks_for_work(&a.workload);
    let (cfg, opened) = match opening {
        Opening::Create => (to_create(&a.index)?, None),
        _ => {
            let (index, cfg) = open_stored(&a.index, &spec, mem, opening, a.io_trace.as_deref())?;
            warn_tables_pass(index.as_ref(), mem, outside);
            (cfg, Some(index))
        }
    };
    let configs = [(compare::label(&cfg), cfg.clone())];
    let (spec, sized) = sizing::size_to_work(
        &spec,
        &configs,
        &a.workload,
        mem,
        fill,
        occupancy,
        a.flush_every,
        a.preload_reopen,
    )?;
    let mut run_spec = match &sized {
        Some(s) => s.spec_for(&spec, &configs[0].0),
        None => spec.clone(),
    };
    if let Some(cold) = a.cold_pages {
        run_spec.cold_pages = cold;
    }
    if opening == Opening::Create {
        refuse_to_clobber(&run_spec, a.overwrite, OPEN_OR_OVERWRITE)?;
    }
    let options = RunOptions {
        verify: a.verify,
        quiet: a.quiet,
        index: describe(&cfg),
        memory_budget: mem as u64,
        // Charged as the `flush` row; a file device keeps the index for
        // later runs (`--open`). Read-only, or opened for nothing, nothing
        // is written.
        final_flush: !a.read_only && !idle,
        flush_every: a.flush_every,
        bulk_load: a.bulk_load,
        preload_flush: a.bulk_load,
        exclude_named: outside,
        ..RunOptions::default()
    };
    let report = if job::staged(&a.workload, a.preload_reopen)? {
        job::run_config(&cfg, &run_spec, mem, &a.workload, options, true)
    } else {
        let index = match opened {
            Some(index) => Ok(index),
            None => build_traced(&cfg, &run_spec, mem, a.io_trace.as_deref()),
        };
        index.and_then(|mut index| {
            if idle {
                as_opened(index.as_mut(), options)
            } else {
                execute(index.as_mut(), &a.workload, options, None)
            }
        })
    }
    .map_err(|e| format!("{e}{}", sizing::full_hint(&e, sized.as_ref())))?;
    println!(
        "{}",
        sizing::device_line(&spec, report.device.capacity_pages, sized.as_ref())
    );
    if idle {
        println!(
            "opened the {} index {} holds; no operations asked for (--ops, --workload, --preload or --trace), so none run and nothing is written",
            cfg.index, spec.name
        );
    }
    if let Some(cold) = a.cold_pages {
        println!(
            "{}",
            format::wrap(&format!(
                "cold data: {} pages at logical pages the index does not address, aged by random overwrites of \
                 itself, before the index runs (--cold-pages; counts exclude it)",
                format::group(cold)
            ))
        );
    }
    print!("{}", report.summary_table());
    if let Some(rate) = ops_per_day {
        println!("{}", lifetime::projection(&report, &run_spec, rate));
    }
    if let Some(path) = &a.json {
        write_json(path, &report)?;
    }
    Ok(())
}

/// The report of an index opened for no work: no operation, no flush.
fn as_opened(index: &mut dyn Index, options: RunOptions) -> CliResult<Report> {
    let options = RunOptions {
        workload: "none (the index as opened)".into(),
        final_flush: false,
        ..options
    };
    let (mut preload, mut ops) = (std::iter::empty(), std::iter::empty());
    Ok(runner::run(index, &mut preload, &mut ops, &options, None)?)
}

fn replay(a: ReplayArgs) -> CliResult<()> {
    let spec = device(&a.device)?;
    let mem = memory(&a.memory)?;
    let opening = Opening::of(a.open, a.read_only);
    let (mut index, cfg) = match opening {
        Opening::Create => {
            let cfg = to_create(&a.index)?;
            refuse_to_clobber(&spec, a.overwrite, OPEN_OR_OVERWRITE)?;
            let index = build_traced(&cfg, &spec, mem, a.io_trace.as_deref())?;
            (index, cfg)
        }
        _ => open_stored(&a.index, &spec, mem, opening, a.io_trace.as_deref())?,
    };
    let w = WorkloadArgs {
        workload: None,
        workload_set: vec![],
        trace: Some(a.trace.clone()),
        preload: None,
        ops: None,
        seed: 0,
    };
    let options = RunOptions {
        quiet: true,
        index: describe(&cfg),
        memory_budget: mem as u64,
        // A file device keeps what the trace did (`replay --open` reads it);
        // read-only, nothing is written.
        final_flush: !a.read_only,
        flush_every: a.flush_every,
        ..RunOptions::default()
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    execute(index.as_mut(), &w, options, Some(&mut out))?;
    out.flush()?;
    Ok(())
}

fn trace_gen(w: &WorkloadArgs) -> CliResult<()> {
    let spec = workload_spec(w, "insert-uniform")?;
    let stdout = std::io::stdout();
    let mut out = TraceWriter::new(BufWriter::new(stdout.lock()));
    out.comment(&format!(
        "flashix trace gen, seed {}\n{}",
        spec.seed,
        spec.describe()
    ))?;
    let mut pre = spec.preload_ops()?;
    for op in pre.by_ref() {
        out.write(&op?)?;
    }
    for op in pre.continue_with(&spec)? {
        out.write(&op?)?;
    }
    out.finish()?;
    Ok(())
}

fn reproduce(a: ReproduceArgs) -> CliResult<()> {
    let chosen = if a.id == "all" {
        experiment::experiments()
    } else {
        a.id.split(',')
            .map(|id| experiment::find(id.trim()))
            .collect::<Result<Vec<_>, _>>()?
    };
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if let Some(spec) = a.shard {
        return shard::reproduce_shard(&a, spec, chosen, jobs);
    }
    let mut done = Vec::new();
    for exp in chosen {
        if let Some(missing) = exp.missing_input() {
            if a.id == "all" {
                eprintln!("skipping {}: {missing}", exp.id);
                done.push((exp, Err(missing)));
                continue;
            }
            return Err(format!("{}: {missing}", exp.id).into());
        }
        let runs = exp.runs(a.quick);
        let started = std::time::Instant::now();
        let costs = experiment::shard::estimated_costs(exp.kind, &runs);
        let results = experiment::run_sweep(runs, &costs, jobs, a.quiet, exp.id, |run| {
            experiment::defs::execute(&exp, run)
        })?;
        let seconds = started.elapsed().as_secs_f64();
        let folder = write_experiment(&exp, &results, &a.out, a.quick)?;
        done.push((
            exp,
            Ok(output::Ran {
                results,
                folder,
                seconds,
                jobs,
                quick: a.quick,
            }),
        ));
        // The summary after every experiment, so that a long run stopped
        // part way keeps what it finished.
        write_summary(a.id == "all", &a.out, a.summary.as_deref(), a.quick, &done)?;
    }
    print_summary_path(a.id == "all", &a.out, a.summary.as_deref());
    Ok(())
}

/// Says where the summary went, if one was written.
fn print_summary_path(all: bool, out: &Path, summary: Option<&Path>) {
    if all || summary.is_some() {
        let summary = summary.map_or_else(|| out.join("RESULTS.md"), Path::to_path_buf);
        let updated = if all { "" } else { " (sections updated)" };
        println!("summary: {}{updated}", summary.display());
    }
}

/// Writes an experiment's outputs (CSV, JSON, report, figure) into
/// `out/ID/` and prints its published-vs-measured lines: what `reproduce`
/// and `merge` do with an experiment's results.
fn write_experiment(
    exp: &experiment::Experiment,
    results: &[experiment::RunOutcome],
    out: &Path,
    quick: bool,
) -> CliResult<std::path::PathBuf> {
    let folder = output::write_all(exp, results, out, quick)?;
    println!("{}: {} runs -> {}", exp.id, results.len(), folder.display());
    for c in output::comparisons(exp, results) {
        // A claim checked at several points: the range of its numbers.
        let measured = match (c.measured_range(), &c.unmeasured) {
            (Some((lo, hi)), _) if lo != hi => format!("{lo:.3}-{hi:.3} {}", c.unit),
            (Some((m, _)), _) => format!("{m:.3} {}", c.unit),
            (None, Some(why)) => format!("- ({why})"),
            (None, None) => "-".into(),
        };
        let verdict = match (c.direction_holds(), c.within()) {
            (Some(d), _) => {
                format!("; direction {}", if d { "holds" } else { "DOES NOT hold" })
            }
            (None, Some(w)) => format!("; {} 1.5x", if w { "within" } else { "NOT within" }),
            (None, None) => String::new(),
        };
        let published = match c.claim {
            output::Claim::Below => "< 1".to_string(),
            _ => format!("{:.3}", c.published),
        };
        let durable = c
            .durable
            .map(|d| format!(" (durable: {d:.3})"))
            .unwrap_or_default();
        println!(
            "  {}: published {published} {}, measured {measured}{durable}{verdict}",
            c.name, c.unit
        );
    }
    Ok(folder)
}

/// Writes `reproduce`'s summary of the experiments in `done`: the whole of
/// it for `all`, else their sections of `--summary` (if given).
fn write_summary(
    all: bool,
    out: &Path,
    summary: Option<&Path>,
    quick: bool,
    done: &[(experiment::Experiment, output::Outcome)],
) -> CliResult<()> {
    if all {
        let summary = summary.map_or_else(|| out.join("RESULTS.md"), Path::to_path_buf);
        std::fs::write(
            &summary,
            experiment::summary::results_md(done, out, &summary, quick),
        )
        .map_err(|e| format!("{}: {e}", summary.display()))?;
    } else if let Some(summary) = summary {
        // Regenerate these experiments' sections of an existing summary.
        let existing = std::fs::read_to_string(summary).unwrap_or_default();
        let order = experiment::summary_order();
        std::fs::write(
            summary,
            experiment::summary::update_results_md(&existing, done, summary, &order),
        )
        .map_err(|e| format!("{}: {e}", summary.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tables_outside;

    /// `--exclude-node-tables` gives the index `tables=outside`; a set that
    /// says so itself counts the same; one that says otherwise is refused.
    #[test]
    fn the_flag_and_the_parameter_keep_the_tables_outside_together() {
        let mut set = vec!["cache=lru".to_string()];
        assert!(tables_outside(&mut set, true).unwrap());
        assert_eq!(set, ["cache=lru", "tables=outside"]);
        // Applied twice (a second pass of advise), nothing is added.
        assert!(tables_outside(&mut set, true).unwrap());
        assert_eq!(set.len(), 2);
        let mut given = vec!["tables=outside".to_string()];
        assert!(tables_outside(&mut given, false).unwrap());
        let mut inside = vec!["tables=in-budget".to_string()];
        assert!(!tables_outside(&mut inside, false).unwrap());
        let e = tables_outside(&mut inside, true).unwrap_err().to_string();
        assert!(e.contains("--set tables=in-budget"), "{e}");
        let mut none = Vec::new();
        assert!(!tables_outside(&mut none, false).unwrap() && none.is_empty());
    }
}
