//! Running `advise`'s configurations: in parallel (`--jobs`), each on a
//! new device, with the preloaded image shared where it can be.
//!
//! With a preload, every configuration runs in the two stages of
//! `runner::staged` (`super::super::job`): the preload is built by the
//! configuration's structural parameters alone and reopened with all of
//! them. Configurations with the same structural parameters on the same
//! device (the same cold data, `cli::sizing`) would build the same image,
//! so it is built once per such group and copied for each
//! (`Preloaded::try_clone`: the simulated device with its counters and
//! wear); a device that cannot be copied (a file, the commit layer) builds
//! it again for each. Results come back in the configurations' order
//! whatever the threads did, so a run is deterministic.
//!
//! A configuration whose counted memory passes the budget is stopped at
//! that operation (`RunOptions::memory_limit`) and marked over budget, so
//! the indexes that cannot fit cost little time.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::device::DeviceSpec;
use crate::experiment::sweep::parallel_map;
use crate::index::IndexError;
use crate::runner::staged::Preloaded;
use crate::runner::{Report, RunError, RunOptions};

use super::super::args::{IndexArgs, WorkloadArgs};
use super::super::compare::label;
use super::super::job::{self, preload_config};
use super::super::CliResult;
use super::grid::Candidate;

/// What became of one configuration.
#[derive(Clone, Debug)]
pub enum Outcome {
    Ran(Box<Report>),
    /// Its counted memory passed the budget (`bytes` after operation
    /// `op`; op 0: at creation), or the budget cannot hold it at all.
    /// `tables`: its data-bound tables then (`node::budget`), where known.
    OverBudget {
        bytes: u64,
        op: u64,
        tables: u64,
    },
    /// It failed; the error.
    Failed(String),
}

/// How the configurations of one phase run.
pub struct Phase<'a> {
    pub memory: usize,
    pub workload: &'a WorkloadArgs,
    pub jobs: usize,
    pub quiet: bool,
    /// Share preloaded images among configurations that can.
    pub share: bool,
    /// Whether runs go in two stages (the workload has a preload).
    pub staged: bool,
    /// The options of `cfg`'s run.
    pub options: &'a (dyn Fn(&IndexArgs) -> RunOptions + Sync),
    /// The device `label` runs on.
    pub device: &'a (dyn Fn(&str) -> DeviceSpec + Sync),
    pub title: &'a str,
}

/// What sharing preloaded images did in one phase.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Sharing {
    /// Images built, and the configurations they served (the one that
    /// took each image and those that got a copy).
    pub images: usize,
    pub served: usize,
    /// Configurations that built their own image: their device cannot be
    /// copied (a file, the commit layer).
    pub built_own: usize,
    /// Wall seconds spent building images.
    pub build_seconds: f64,
    /// Wall seconds copying images took.
    pub copy_seconds: f64,
    /// Wall seconds the copies saved: each image's build time for every
    /// copy made, less the time the copies took.
    pub saved_seconds: f64,
}

/// An error as an outcome: over budget when the run stopped there or the
/// index refused the budget, else failed.
fn outcome_of(e: &(dyn std::error::Error + 'static)) -> Outcome {
    if let Some(RunError::OverBudget {
        op_number,
        bytes,
        tables,
        ..
    }) = e.downcast_ref::<RunError>()
    {
        return Outcome::OverBudget {
            bytes: *bytes,
            op: *op_number,
            tables: *tables,
        };
    }
    let budget = |e: &IndexError| match e {
        IndexError::BudgetTooSmall { needed, .. } => Some(*needed as u64),
        _ => None,
    };
    let refused = e.downcast_ref::<IndexError>().and_then(budget).or_else(|| {
        match e.downcast_ref::<RunError>() {
            Some(RunError::Reopen { source }) => budget(source),
            _ => None,
        }
    });
    match refused {
        Some(bytes) => Outcome::OverBudget {
            bytes,
            op: 0,
            tables: 0,
        },
        None => Outcome::Failed(e.to_string()),
    }
}

fn settle(r: CliResult<Report>) -> Outcome {
    match r {
        Ok(report) => Outcome::Ran(Box::new(report)),
        Err(e) => outcome_of(e.as_ref()),
    }
}

/// One group's image: built once, handed out as copies, the last member
/// taking it.
struct Image {
    built: Option<Result<Preloaded, Outcome>>,
    members_left: usize,
    /// Copies made (each saved a build).
    copies: usize,
    seconds: f64,
    copy_seconds: f64,
}

/// Runs `cands` (module doc); the outcomes in their order.
pub fn run_all(phase: &Phase, cands: &[Candidate]) -> (Vec<Outcome>, Sharing) {
    if !phase.staged {
        let outcomes = parallel_map(cands, &[], phase.jobs, phase.quiet, phase.title, |c| {
            let spec = (phase.device)(&c.label);
            settle(job::run_config(
                &c.cfg,
                &spec,
                phase.memory,
                phase.workload,
                (phase.options)(&c.cfg),
                false,
            ))
        });
        return (unwrap_all(outcomes), Sharing::default());
    }
    // Groups by what builds the image: structural parameters and device.
    let mut group_of = Vec::with_capacity(cands.len());
    let mut groups: BTreeMap<(String, u64), usize> = BTreeMap::new();
    let mut firsts: Vec<usize> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        let key = if phase.share {
            (
                label(&preload_config(&c.cfg)),
                (phase.device)(&c.label).cold_pages,
            )
        } else {
            (c.label.clone(), i as u64)
        };
        let g = *groups.entry(key).or_insert_with(|| {
            firsts.push(i);
            firsts.len() - 1
        });
        group_of.push(g);
    }
    let built = parallel_map(&firsts, &[], phase.jobs, phase.quiet, phase.title, |&i| {
        let c = &cands[i];
        let started = Instant::now();
        let image = job::preload(
            &c.cfg,
            &(phase.device)(&c.label),
            phase.memory,
            phase.workload,
            &(phase.options)(&c.cfg),
        )
        .map_err(|e| outcome_of(e.as_ref()));
        (image, started.elapsed().as_secs_f64())
    });
    let mut sharing = Sharing::default();
    let images: Vec<Mutex<Image>> = built
        .into_iter()
        .enumerate()
        .map(|(g, b)| {
            let (image, seconds) = b.unwrap_or((Err(Outcome::Failed("not built".into())), 0.0));
            let members = group_of.iter().filter(|&&x| x == g).count();
            sharing.images += 1;
            sharing.build_seconds += seconds;
            Mutex::new(Image {
                built: Some(image),
                members_left: members,
                copies: 0,
                seconds,
                copy_seconds: 0.0,
            })
        })
        .collect();
    let indices: Vec<usize> = (0..cands.len()).collect();
    let built_own = AtomicUsize::new(0);
    let outcomes = parallel_map(&indices, &[], phase.jobs, phase.quiet, phase.title, |&i| {
        let c = &cands[i];
        let copy = {
            let mut img = images[group_of[i]]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            img.members_left -= 1;
            let last = img.members_left == 0;
            match img.built.as_ref() {
                Some(Err(o)) => Err(o.clone()),
                Some(Ok(_)) if last => Ok(img.built.take().and_then(Result::ok)),
                Some(Ok(p)) => {
                    let started = Instant::now();
                    let copy = p.try_clone();
                    img.copies += copy.is_some() as usize;
                    img.copy_seconds += started.elapsed().as_secs_f64();
                    Ok(copy)
                }
                None => Ok(None),
            }
        };
        let spec = (phase.device)(&c.label);
        let options = (phase.options)(&c.cfg);
        match copy {
            Err(o) => o,
            Ok(Some(image)) => settle(job::measure(
                image,
                &c.cfg,
                phase.memory,
                phase.workload,
                &options,
            )),
            // The device cannot be copied: this one builds its own.
            Ok(None) => {
                built_own.fetch_add(1, Ordering::Relaxed);
                settle(job::run_config(
                    &c.cfg,
                    &spec,
                    phase.memory,
                    phase.workload,
                    options,
                    true,
                ))
            }
        }
    });
    sharing.built_own = built_own.into_inner();
    for img in &images {
        let img = img.lock().unwrap_or_else(|e| e.into_inner());
        sharing.copy_seconds += img.copy_seconds;
        sharing.served += img.copies + img.built.is_none() as usize;
        sharing.saved_seconds += img.seconds * img.copies as f64 - img.copy_seconds;
    }
    (unwrap_all(outcomes), sharing)
}

fn unwrap_all(v: Vec<Option<Outcome>>) -> Vec<Outcome> {
    v.into_iter()
        .map(|o| o.unwrap_or_else(|| Outcome::Failed("did not finish".into())))
        .collect()
}
