//! Running one index configuration on a new device: plainly (preload and
//! measured operations on one index, as `run` always did), or in the two
//! stages of [`crate::runner::staged`] (`run --preload-reopen`, and every run of
//! `advise` whose workload has a preload): the preload built by the
//! configuration's structural parameters alone (`index::kinds::runtime`), flushed,
//! and reopened with all of them. The sizing runs before `run` go the same
//! way as the run itself, so a device sized for `advise` is the one `run`
//! sizes.

use crate::device::DeviceSpec;
use crate::index::kinds::runtime;
use crate::index::Index;
use crate::runner::staged::Preloaded;
use crate::runner::{Report, RunOptions};
use crate::store::open_index;

use super::args::{IndexArgs, WorkloadArgs};
use super::{build_index, execute, index_params, workload_spec, CliResult};

/// Whether `w` runs in two stages with `preload_reopen`: a preset with a
/// preload (a trace has none).
pub fn staged(w: &WorkloadArgs, preload_reopen: bool) -> CliResult<bool> {
    if !preload_reopen || w.trace.is_some() {
        return Ok(false);
    }
    Ok(workload_spec(w, "insert-uniform")?.preload > 0)
}

/// The configuration a shared preload is built with: `cfg` without its
/// runtime parameters.
pub fn preload_config(cfg: &IndexArgs) -> IndexArgs {
    IndexArgs {
        index: cfg.index.clone(),
        set: runtime::structural(&cfg.index, &cfg.set),
    }
}

/// The preload of `w` built by `cfg`'s [`preload_config`] on a new device
/// of `spec`, flushed.
pub fn preload(
    cfg: &IndexArgs,
    spec: &DeviceSpec,
    memory: usize,
    w: &WorkloadArgs,
    options: &RunOptions,
) -> CliResult<Preloaded> {
    let index = build_index(&preload_config(cfg), spec, memory)?;
    Ok(Preloaded::build(
        index,
        &workload_spec(w, "insert-uniform")?,
        options,
    )?)
}

/// `cfg` reopened on `image` and run on `w`'s measured operations.
pub fn measure(
    image: Preloaded,
    cfg: &IndexArgs,
    memory: usize,
    w: &WorkloadArgs,
    options: &RunOptions,
) -> CliResult<Report> {
    let params = index_params(cfg)?;
    let open = |storage| -> crate::index::Result<Box<dyn Index>> {
        open_index(&cfg.index, storage, memory, params)
    };
    Ok(image.measure(open, &workload_spec(w, "insert-uniform")?, options)?)
}

/// Runs `cfg` on a new device of `spec`: in two stages where
/// [`staged`] says so, else plainly.
pub fn run_config(
    cfg: &IndexArgs,
    spec: &DeviceSpec,
    memory: usize,
    w: &WorkloadArgs,
    options: RunOptions,
    preload_reopen: bool,
) -> CliResult<Report> {
    if staged(w, preload_reopen)? {
        let image = preload(cfg, spec, memory, w, &options)?;
        return measure(image, cfg, memory, w, &options);
    }
    let mut index = build_index(cfg, spec, memory)?;
    execute(index.as_mut(), w, options, None)
}
