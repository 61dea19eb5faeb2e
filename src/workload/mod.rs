//! Workloads: operations, generators, presets, trace files.

/// One index operation, as a workload or trace produces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert { key: u64, value: u64 },
    Delete { key: u64, value: u64 },
    Update { key: u64, old: u64, new: u64 },
    Search { key: u64 },
    Range { lo: u64, hi: u64 },
}
