//! A run in two stages, so that one preloaded image can serve many
//! configurations of an index: the preload is inserted (or bulk-loaded)
//! and flushed by one configuration, its storage is kept, and each
//! configuration reopens a copy of it and runs the measured operations.
//!
//! `flashix advise` builds the image once per index and structural
//! parameters (`index::kinds::runtime`: the runtime knobs at their defaults) and
//! copies it for every configuration that differs only in runtime knobs
//! ([`Preloaded::try_clone`], which copies the simulated device with its
//! counters and wear); `flashix run --preload-reopen` does the same two
//! stages for one configuration, so its report is the one `advise` made.
//!
//! Invariants:
//! 1. The report is the one [`super::run`] gives for the measured stage,
//!    with the preload's counters added: `device_stats` spans the preload,
//!    the reopen and the measured stage; `preload` the preload and the
//!    reopen (both setup, not charged to an operation); `by_op` and the
//!    measured time and energy the measured stage alone. Σ `by_op` +
//!    `preload` = `device_stats` still holds.
//! 2. Memory figures (`memory_peak_bytes`) are the measured stage's, the
//!    reopened configuration's own; the preload was built by another.
//! 3. A copy is independent of the image: running one configuration
//!    changes no other's device.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use crate::device::{DeviceStats, Storage};
use crate::index::{Index, IndexError};
use crate::workload::{Op, WorkloadSpec};

use super::{check_keys, run, DeviceReport, Report, RunError, RunOptions};

/// A flushed preloaded image and what it took to build.
pub struct Preloaded {
    storage: Storage,
    /// The device's counters before the preload.
    start: DeviceStats,
    preload_ops: u64,
    /// The entries the image holds, where the run verifies answers.
    known: Option<Arc<BTreeSet<(u64, u64)>>>,
    /// Wall time the preload and its flush took.
    pub wall_seconds: f64,
}

impl Preloaded {
    /// Runs `spec`'s preload on `index` (a bulk load with
    /// `options.bulk_load`), flushes it, and keeps its storage.
    pub fn build(
        mut index: Box<dyn Index>,
        spec: &WorkloadSpec,
        options: &RunOptions,
    ) -> Result<Preloaded, RunError> {
        check_keys(index.as_ref(), spec)?;
        let wall = Instant::now();
        let start = index.storage().stats();
        let max_value = index.format().max_value();
        let options = RunOptions {
            final_flush: false,
            preload_flush: true,
            flush_every: None,
            ..options.clone()
        };
        let mut pre = spec
            .preload_ops()?
            .with_max_value(max_value)
            .counting_live();
        let report = run(
            index.as_mut(),
            &mut pre,
            &mut std::iter::empty(),
            &options,
            None,
        )?;
        let known = if options.verify {
            let mut set = BTreeSet::new();
            for op in spec.preload_ops()?.with_max_value(max_value) {
                if let Op::Insert { key, value } = op? {
                    set.insert((key, value));
                }
            }
            Some(Arc::new(set))
        } else {
            None
        };
        Ok(Preloaded {
            storage: index.into_storage(),
            start,
            preload_ops: report.preload_ops,
            known,
            wall_seconds: wall.elapsed().as_secs_f64(),
        })
    }

    /// A copy of the image (its device copied, counters and wear
    /// included), where the device can be copied.
    pub fn try_clone(&self) -> Option<Preloaded> {
        Some(Preloaded {
            storage: self.storage.try_clone()?,
            start: self.start,
            preload_ops: self.preload_ops,
            known: self.known.clone(),
            wall_seconds: self.wall_seconds,
        })
    }

    /// Reopens the image with `open` and runs `spec`'s measured
    /// operations on it (invariant 1).
    pub fn measure(
        self,
        open: impl FnOnce(Storage) -> Result<Box<dyn Index>, IndexError>,
        spec: &WorkloadSpec,
        options: &RunOptions,
    ) -> Result<Report, RunError> {
        let mut index = open(self.storage).map_err(|source| RunError::Reopen { source })?;
        let reopened = index.storage().stats();
        let mut ahead = spec
            .preload_ops()?
            .with_max_value(index.format().max_value());
        ahead.by_ref().for_each(drop);
        let mut measured = ahead.continue_with(spec)?;
        let options = RunOptions {
            workload: spec.describe(),
            seed: spec.seed,
            expected_ops: Some(spec.ops * if spec.search_after { 2 } else { 1 }),
            bulk_load: false,
            preload_flush: false,
            known_entries: self.known.clone(),
            ..options.clone()
        };
        let mut report = run(
            index.as_mut(),
            &mut std::iter::empty(),
            &mut measured,
            &options,
            None,
        )?;
        let end = index.storage().stats();
        let wear = report.device_stats.wear.take();
        report.device_stats = DeviceReport::new(&end.delta(&self.start), wear);
        report.preload = DeviceReport::new(&reopened.delta(&self.start), None);
        report.preload_ops = self.preload_ops;
        Ok(report)
    }
}
