//! `flashix crashtest` and `flashix damagetest`: the harnesses of
//! [`crate::runner::crash`] and [`crate::runner::damage`] for users, one
//! summary line per index and device, non-zero exit on any failure.

use crate::device::profile::Target;
use crate::device::DeviceSpec;
use crate::index::kinds::registry;
use crate::runner::crash::{check_count, crash_test, CrashConfig};
use crate::runner::damage::{self, damage_test};
use crate::runner::double_fault::double_fault_test;
use crate::runner::fault::FaultConfig;
use crate::runner::versions;

use super::args::{CrashCommandArgs, CrashtestArgs, DamagetestArgs};
use super::{memory, pairs, refuse_to_clobber_path, CliResult};

/// Chip size of the default devices: 256 blocks of 16 KiB (4 MiB), small
/// enough that the FTL collects garbage within a crash workload.
const DEFAULT_BLOCKS: &str = "256";

/// What both commands read from their arguments: memory, index names and
/// device overrides (a 256-block chip unless a size is given).
struct Plan {
    memory: usize,
    names: Vec<String>,
    sets: Vec<(String, String)>,
}

fn plan(a: &CrashtestArgs) -> CliResult<Plan> {
    if a.flush_every == 0 {
        return Err("--flush-every must be at least 1".into());
    }
    check_count("--ops", a.ops as u64)?;
    check_count("--bulk-load", a.bulk_load)?;
    let names = index_names(&a.index, &a.set)?;
    let mut sets = pairs(&a.device_set, "--device-set")?;
    if !sets.iter().any(|(k, _)| k == "blocks" || k == "capacity") {
        sets.push(("blocks".into(), DEFAULT_BLOCKS.into()));
    }
    Ok(Plan {
        memory: memory(&a.memory)?,
        names,
        sets,
    })
}

/// The indexes a harness command tests: `--index NAME`, or for `all`
/// every index; with `--set versions=key` (`runner::versions`) every one
/// that keeps versions of keys, and a named one that keeps none is an
/// error.
pub(super) fn index_names(index: &str, set: &[String]) -> CliResult<Vec<String>> {
    let by_key = versions::by_key(set);
    if index != "all" {
        if by_key && !registry::keeps_versions(index) {
            return Err(format!(
                "--set versions=key: {index} does not keep versions of keys (those that do: {})",
                keeping_versions().join(", ")
            )
            .into());
        }
        return Ok(vec![index.to_string()]);
    }
    if by_key {
        return Ok(keeping_versions());
    }
    Ok(registry::list()
        .iter()
        .map(|i| i.name.to_string())
        .collect())
}

/// With `--set versions=key`, how many scenarios met an upsert replacing
/// a flushed value, for a summary line (the test is not vacuous); else
/// nothing.
pub(super) fn replaced(set: &[String], scenarios: u64) -> String {
    if versions::by_key(set) {
        format!("; {scenarios} replaced a flushed value by an upsert")
    } else {
        String::new()
    }
}

/// Every index that keeps versions of keys (`registry::keeps_versions`).
fn keeping_versions() -> Vec<String> {
    registry::list()
        .iter()
        .filter(|i| registry::keeps_versions(i.name))
        .map(|i| i.name.to_string())
        .collect()
}

impl Plan {
    fn config(&self, a: &CrashtestArgs, name: &str, device: &str) -> CliResult<CrashConfig> {
        Ok(CrashConfig {
            index: name.to_string(),
            params: a.set.clone(),
            memory: self.memory,
            device: {
                let mut spec = DeviceSpec::parse(device, &self.sets)?;
                // The harness checks the contract, which an FTL keeps through
                // the commit layer; `--device-set atomic=false` tests the
                // bare FTL (the paper experiments' setting).
                if spec.target == Target::Ftl && !self.sets.iter().any(|(k, _)| k == "atomic") {
                    spec.atomic = true;
                }
                spec
            },
            ops: a.ops,
            keys: (a.ops as u64 / 2).max(1),
            flush_every: a.flush_every,
            seed: a.seed,
            bulk_load: a.bulk_load,
        })
    }
}

pub fn crashtest(c: CrashCommandArgs) -> CliResult<()> {
    if c.double_fault {
        return double_faults(&c.test);
    }
    let a = c.test;
    let plan = plan(&a)?;
    // (device, whether an index that cannot run on it is an error)
    let devices: Vec<(String, bool)> = match &a.device {
        Some(d) => vec![(d.clone(), true)],
        None => {
            let file = std::env::temp_dir().join(format!("flashix-crash-{}", std::process::id()));
            vec![
                ("slc-small".into(), true),
                ("raw:slc-small".into(), false),
                (format!("file:{}", file.display()), true),
            ]
        }
    };
    // A scenario's panic is counted and reported; the default hook would
    // print each one as well.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = 0u64;
    let mut total = 0u64;
    let mut not_run = 0u64;
    let mut lines = Vec::new();
    for name in &plan.names {
        for (device, required) in &devices {
            let config = plan.config(&a, name, device)?;
            let kind = device.split(':').next().unwrap_or(device);
            match crash_test(&config, a.scenarios) {
                Ok(s) => {
                    total += s.scenarios;
                    failed += s.failures();
                    lines.push(format!(
                        "crashtest {name} ({kind}): {} scenarios, {} lost, {} wrong, {} panics \
                         (cut points over {} writes{})",
                        s.scenarios,
                        s.lost,
                        s.wrong,
                        s.panics,
                        s.writes,
                        replaced(&a.set, s.replaced)
                    ));
                    for e in &s.examples {
                        lines.push(format!("  {e}"));
                    }
                }
                Err(e) if !required => {
                    lines.push(format!("crashtest {name} ({kind}): not run: {e}"));
                }
                Err(e) => {
                    not_run += 1;
                    lines.push(format!("crashtest {name} ({kind}): cannot run: {e}"));
                }
            }
            println!("{}", lines.join("\n"));
            lines.clear();
        }
    }
    std::panic::set_hook(hook);
    outcome(
        "crashtest",
        failed,
        total,
        not_run,
        "index and device pairs",
    )
}

/// `crashtest --double-fault` (`runner::double_fault`): one line per index.
fn double_faults(a: &CrashtestArgs) -> CliResult<()> {
    let plan = plan(a)?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut failed, mut total, mut not_run) = (0, 0, 0);
    for name in &plan.names {
        let c = FaultConfig {
            params: a.set.clone(),
            memory: plan.memory,
            ops: a.ops,
            flush_every: a.flush_every,
            seed: a.seed,
            scenarios: a.scenarios,
            ..FaultConfig::new(name)
        };
        match double_fault_test(&c) {
            Ok(d) => {
                let s = &d.counts;
                total += s.scenarios;
                failed += s.failures();
                println!(
                    "crashtest --double-fault {name}: {} scenarios ({} log-page and {} commit-record cut points{}), {} lost, {} wrong, {} panics",
                    s.scenarios,
                    d.log_positions,
                    d.commit_positions,
                    replaced(&a.set, s.replaced),
                    s.lost,
                    s.wrong,
                    s.panics
                );
                for e in &s.examples {
                    println!("  {e}");
                }
            }
            Err(e) => {
                not_run += 1;
                println!("crashtest --double-fault {name}: cannot run: {e}");
            }
        }
    }
    std::panic::set_hook(hook);
    outcome(
        "crashtest --double-fault",
        failed,
        total,
        not_run,
        "indexes",
    )
}

/// The exit of a harness command (`crashtest`, `faulttest`): an error
/// naming the broken scenarios and the `units` that could not run, if any.
pub(super) fn outcome(
    command: &str,
    failed: u64,
    total: u64,
    not_run: u64,
    units: &str,
) -> CliResult<()> {
    if failed == 0 && not_run == 0 {
        return Ok(());
    }
    let mut why = Vec::new();
    if failed > 0 {
        why.push(format!(
            "{failed} of {total} scenarios broke the durability contract"
        ));
    }
    if not_run > 0 {
        why.push(format!("{not_run} {units} could not run"));
    }
    Err(format!("{command}: {}", why.join("; ")).into())
}

/// `flashix damagetest` (module doc); on the FTL only by default, since the
/// damage is laid over the logical pages the device reports as used. On
/// `file:PATH` the image is built at PATH, which must hold no data unless
/// `--overwrite` says so, and damaged in copies beside it
/// ([`damage::scratch_path`]).
pub fn damagetest(d: DamagetestArgs) -> CliResult<()> {
    let a = d.test;
    let plan = plan(&a)?;
    let device = a.device.clone().unwrap_or_else(|| "slc-small".into());
    if let Target::File(path) = DeviceSpec::parse(&device, &plan.sets)?.target {
        let choices =
            "`--overwrite` replaces it with damagetest's image (the damaged copies go beside it)";
        refuse_to_clobber_path(&path, d.overwrite, choices)?;
        refuse_to_clobber_path(&damage::scratch_path(&path), d.overwrite, choices)?;
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut failed, mut not_run) = (0u64, 0u64);
    for name in &plan.names {
        let config = plan.config(&a, name, &device)?;
        match damage_test(&config) {
            Ok(s) => {
                failed += s.failures();
                let kinds: Vec<String> = s
                    .kinds
                    .iter()
                    .map(|(k, c)| {
                        format!("{k} {}/{}/{}/{}", c.exact, c.detected, c.wrong, c.panics)
                    })
                    .collect();
                println!(
                    "damagetest {name}: {} pages; exact/detected/wrong/panics: {}",
                    s.pages,
                    kinds.join(", ")
                );
                for e in &s.examples {
                    println!("  {e}");
                }
            }
            Err(e) => {
                not_run += 1;
                println!("damagetest {name}: cannot run: {e}");
            }
        }
    }
    std::panic::set_hook(hook);
    if failed > 0 || not_run > 0 {
        return Err(format!(
            "damagetest: {failed} damaged images gave a wrong answer or panicked; \
             {not_run} indexes could not run"
        )
        .into());
    }
    Ok(())
}
