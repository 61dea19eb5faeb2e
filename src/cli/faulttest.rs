//! `flashix faulttest`: the harness of [`crate::runner::fault`] for users,
//! one summary line per index, non-zero exit on any failure.

use std::time::Instant;

use crate::runner::crash::check_count;
use crate::runner::fault::{run_faults, FaultConfig};

use super::args::FaulttestArgs;
use super::{memory, CliResult};

pub fn faulttest(a: FaulttestArgs) -> CliResult<()> {
    if a.flush_every == 0 {
        return Err("--flush-every must be at least 1".into());
    }
    check_count("--ops", a.ops as u64)?;
    check_count("--preload", a.preload)?;
    let memory = memory(&a.memory)?;
    let log_bytes =
        crate::device::size::parse_size(&a.log_bytes).map_err(|e| format!("--log-bytes: {e}"))?;
    let names = super::crashtest::index_names(&a.index, &a.set)?;
    // A scenario's panic is counted and reported; the default hook would
    // print each one as well.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut failed, mut total, mut not_run) = (0u64, 0u64, 0u64);
    for name in &names {
        let config = FaultConfig {
            params: a.set.clone(),
            memory,
            ops: a.ops,
            flush_every: a.flush_every,
            seed: a.seed,
            scenarios: a.scenarios,
            preload: a.preload,
            log_bytes,
            ..FaultConfig::new(name)
        };
        let started = Instant::now();
        match run_faults(&config) {
            Ok(s) => {
                total += s.scenarios;
                failed += s.failures();
                let preload = if a.preload > 0 {
                    format!(
                        "; preload {} pages, {} by the index",
                        s.preload_pages, s.preload_index_pages
                    )
                } else {
                    String::new()
                };
                println!(
                    "faulttest {name}: {} scenarios, {} survived, {} refused, {} lost, {} wrong, \
                     {} panics ({} saw an error, {} reopened in place{}; faults over {} writes \
                     and {} syncs{preload}; {:.1} s)",
                    s.scenarios,
                    s.survived,
                    s.refused,
                    s.lost,
                    s.wrong,
                    s.panics,
                    s.errors_seen,
                    s.reopened,
                    super::crashtest::replaced(&a.set, s.replaced),
                    s.writes,
                    s.syncs,
                    started.elapsed().as_secs_f64()
                );
                for e in &s.examples {
                    println!("  {e}");
                }
            }
            Err(e) => {
                not_run += 1;
                println!("faulttest {name}: cannot run: {e}");
            }
        }
    }
    std::panic::set_hook(hook);
    super::crashtest::outcome("faulttest", failed, total, not_run, "indexes")
}
