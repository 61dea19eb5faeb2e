//! Issue #43: an index's counted memory stays within its budget at every
//! operation boundary, over insert-heavy, mixed and search-heavy
//! workloads: `memory_bytes()` after every operation (what the runner
//! samples), less the data-bound lines (`node::budget`) when the index
//! keeps its tables outside the budget.
#![allow(dead_code)]

use flashix::device::Storage;
use flashix::index::{Index, Params};
use flashix::node::budget::data_bound_bytes;
use flashix::store::create_index;
use flashix::workload::{preset, Op};

/// The three workloads: (name, insert, search, delete, update shares).
pub const WORKLOADS: [(&str, [&str; 4]); 3] = [
    (
        "insert-heavy",
        ["insert=0.9", "search=0.05", "delete=0.05", "update=0"],
    ),
    (
        "mixed",
        ["insert=0.4", "search=0.4", "delete=0.1", "update=0.1"],
    ),
    (
        "search-heavy",
        ["insert=0.1", "search=0.85", "delete=0.05", "update=0"],
    ),
];

/// The budgets the issue names.
pub const BUDGETS: [usize; 3] = [16 << 10, 64 << 10, 1 << 20];

/// What one run counted.
pub struct Peak {
    /// The most `memory_bytes()` less the data-bound lines when outside.
    pub counted: usize,
    /// The most data-bound bytes at any boundary.
    pub data_bound: usize,
    pub notes: Vec<String>,
}

/// One run: `workload` (`preload` inserts, then `ops` operations of its
/// mix, keys uniform in [0, 3,000,000]) on `name` built with `set` and
/// `tables=<tables>` within `memory` bytes.
pub struct Run<'a> {
    pub name: &'a str,
    pub set: &'a [&'a str],
    pub tables: &'a str,
    pub memory: usize,
    pub workload: &'a [&'a str; 4],
    pub preload: u64,
    pub ops: u64,
}

/// The peak of `run` over `storage` at every operation boundary.
pub fn peak(run: &Run, storage: Storage) -> Peak {
    let Run {
        name,
        set,
        tables,
        memory,
        workload,
        preload,
        ops,
    } = *run;
    let mut params: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    params.push(format!("tables={tables}"));
    let params = Params::parse(params.iter().map(String::as_str)).expect("parameters");
    let mut index = create_index(name, storage, memory, params).expect("the index builds");
    let sets: Vec<(String, String)> = workload
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("K=V");
            (k.to_string(), v.to_string())
        })
        .collect();
    let spec = preset::build("insert-uniform", &sets, Some(preload), Some(ops), 7)
        .expect("the workload builds");
    let outside = tables == "outside";
    let mut peak = Peak {
        counted: 0,
        data_bound: 0,
        notes: Vec::new(),
    };
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    let all = spec
        .preload_ops()
        .expect("preload")
        .chain(spec.measured_ops().expect("ops"));
    for op in all {
        match op.expect("an operation") {
            Op::Insert { key, value } => index.insert(key, value).map(|_| ()),
            Op::Delete { key, value } => index.delete(key, value).map(|_| ()),
            Op::Update { key, old, new } => index.update(key, old, new).map(|_| ()),
            Op::Search { key } => index.get(key, &mut out),
            Op::Range { lo, hi } => index.range(lo, hi, &mut pairs),
        }
        .expect("the operation succeeds");
        sample(index.as_ref(), outside, &mut peak);
    }
    index.flush().expect("flush");
    sample(index.as_ref(), outside, &mut peak);
    peak.notes = index.notes();
    peak
}

fn sample(index: &dyn Index, outside: bool, peak: &mut Peak) {
    let data = data_bound_bytes(&index.stats()) as usize;
    let counted = index.memory_bytes() - if outside { data } else { 0 };
    peak.counted = peak.counted.max(counted);
    peak.data_bound = peak.data_bound.max(data);
}

/// Checks `name` at every budget and workload, with its tables in the
/// budget and outside it: the counted peak within the budget, and no note
/// of tables passing it (the data is sized so they fit).
pub fn check_every_budget(
    name: &str,
    set: &[&str],
    storage: impl Fn() -> Storage,
    preload: u64,
    ops: u64,
) {
    for memory in BUDGETS {
        for (what, workload) in &WORKLOADS {
            for tables in ["in-budget", "outside"] {
                let run = Run {
                    name,
                    set,
                    tables,
                    memory,
                    workload,
                    preload,
                    ops,
                };
                let p = peak(&run, storage());
                eprintln!(
                    "{name} {what}, {memory} B, tables={tables}: counted peak {} B, data-bound {} B",
                    p.counted, p.data_bound
                );
                assert!(
                    p.counted <= memory,
                    "{name} {what} at {memory} B (tables={tables}): counted peak {} B passes the budget; notes {:?}",
                    p.counted,
                    p.notes
                );
                assert!(
                    p.notes
                        .iter()
                        .all(|n| !n.contains("data-bound tables need")),
                    "{name} {what} at {memory} B: {:?}",
                    p.notes
                );
            }
        }
    }
}
