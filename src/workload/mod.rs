//! Workloads: the operations an index is driven with.
//!
//! * [`Op`]: one index operation.
//! * [`generator`]: seeded synthetic workloads: key distributions (uniform,
//!   ascending, BFTL's `rs` mix, Zipf), operation mixes, a preload phase.
//! * [`preset`]: named workloads from the papers, overridable with
//!   `--workload-set K=V`.
//! * [`trace`]: trace files, streamed line by line in constant memory.
//! * [`dna`]: the MB-Tree paper's DNA workload from any FASTA file
//!   (`--workload dna:FILE`).
//!
//! Invariants:
//! 1. The same spec and seed give the same operations on every run and
//!    platform (xoshiro256++, no global RNG).
//! 2. Deletes and updates a generator emits target live entries; inserted
//!    values are unique, so repeated keys are distinct entries.

pub mod dna;
pub mod generator;
mod live;
pub mod phases;
pub mod preset;
pub mod trace;

pub use generator::{Generator, KeyDist, Mix, WorkloadSpec};
pub use preset::{presets, Preset};
pub use trace::{TraceReader, TraceWriter};

use std::fmt;
use std::path::PathBuf;

/// One index operation, as a workload or trace produces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert { key: u64, value: u64 },
    Delete { key: u64, value: u64 },
    Update { key: u64, old: u64, new: u64 },
    Search { key: u64 },
    Range { lo: u64, hi: u64 },
}

/// Operation types, for per-type accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    Insert,
    Delete,
    Update,
    Search,
    Range,
}

impl OpKind {
    pub const ALL: [OpKind; 5] = [
        OpKind::Insert,
        OpKind::Delete,
        OpKind::Update,
        OpKind::Search,
        OpKind::Range,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            OpKind::Insert => "insert",
            OpKind::Delete => "delete",
            OpKind::Update => "update",
            OpKind::Search => "search",
            OpKind::Range => "range",
        }
    }
}

impl Op {
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Insert { .. } => OpKind::Insert,
            Op::Delete { .. } => OpKind::Delete,
            Op::Update { .. } => OpKind::Update,
            Op::Search { .. } => OpKind::Search,
            Op::Range { .. } => OpKind::Range,
        }
    }
}

impl fmt::Display for Op {
    /// The trace-file form of the operation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Op::Insert { key, value } => write!(f, "I {key} {value}"),
            Op::Delete { key, value } => write!(f, "D {key} {value}"),
            Op::Update { key, old, new } => write!(f, "U {key} {old} {new}"),
            Op::Search { key } => write!(f, "S {key}"),
            Op::Range { lo, hi } => write!(f, "R {lo} {hi}"),
        }
    }
}

/// Errors of the workload layer.
#[non_exhaustive]
#[derive(Debug)]
pub enum WorkloadError {
    /// Reading or writing a trace failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A malformed trace line.
    Parse {
        path: PathBuf,
        line: u64,
        message: String,
    },
    /// A workload that cannot be generated (unknown preset or key, bad value).
    Config(String),
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            WorkloadError::Parse {
                path,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            WorkloadError::Config(m) => write!(f, "invalid workload: {m}"),
        }
    }
}

impl std::error::Error for WorkloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WorkloadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
