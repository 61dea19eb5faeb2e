//! The memory-budget check of issue #43, one helper for every index: at
//! 16 KiB, 64 KiB and 1 MiB, over an insert-heavy, a mixed and a
//! search-heavy workload, the counted memory (`memory_bytes`, what the
//! runner samples) stays within the budget after every operation and the
//! final flush — less the data-bound lines
//! (`flashix::node::DATA_BOUND_LINES`) when the index is given
//! `tables=outside`. With the tables in the budget (the default) the whole
//! count stays within it, as long as the tables alone leave the index its
//! minimum working set.
#![allow(dead_code)]

use flashix::device::Storage;
use flashix::index::{Index, Params};
use flashix::node::budget::data_bound_bytes;
use flashix::store::create_index;
use flashix::workload::{preset, Op};

/// The budgets the issue names.
pub const BUDGETS: [usize; 3] = [16 << 10, 64 << 10, 1 << 20];

/// The three workloads: their mixes of operations, keys uniform in
/// [0, 3,000,000].
pub const WORKLOADS: [(&str, [&str; 5]); 3] = [
    (
        "insert-heavy",
        [
            "insert=0.85",
            "search=0.1",
            "delete=0.05",
            "update=0",
            "range=0",
        ],
    ),
    (
        "mixed",
        [
            "insert=0.4",
            "search=0.3",
            "delete=0.1",
            "update=0.1",
            "range=0.1",
        ],
    ),
    (
        "search-heavy",
        [
            "insert=0.1",
            "search=0.8",
            "delete=0.05",
            "update=0",
            "range=0.05",
        ],
    ),
];

/// What one run counted.
pub struct Peak {
    /// The most `memory_bytes()` less the data-bound lines when outside.
    pub counted: usize,
    /// The most data-bound bytes at any boundary.
    pub data_bound: usize,
    /// The first boundary whose count passed the budget.
    pub first_over: Option<String>,
    pub notes: Vec<String>,
}

/// One run: `workload` (`preload` inserts, then `ops` operations of its
/// mix) on `name` built with `set` and `tables=<tables>` within `memory`
/// bytes.
pub struct Run<'a> {
    pub name: &'a str,
    pub set: &'a [&'a str],
    pub tables: &'a str,
    pub memory: usize,
    pub workload: &'a [&'a str; 5],
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
    let mut index = create_index(name, storage, memory, params)
        .unwrap_or_else(|e| panic!("{name} at {memory} B: {e}"));
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
        first_over: None,
        notes: Vec::new(),
    };
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    let all = spec
        .preload_ops()
        .expect("preload")
        .chain(spec.measured_ops().expect("ops"));
    for (i, op) in all.enumerate() {
        match op.expect("an operation") {
            Op::Insert { key, value } => index.insert(key, value).map(|_| ()),
            Op::Delete { key, value } => index.delete(key, value).map(|_| ()),
            Op::Update { key, old, new } => index.update(key, old, new).map(|_| ()),
            Op::Search { key } => index.get(key, &mut out),
            Op::Range { lo, hi } => index.range(lo, hi, &mut pairs),
        }
        .expect("the operation succeeds");
        sample(index.as_ref(), outside, memory, &mut peak, || {
            format!("operation {i}")
        });
    }
    index.flush().expect("flush");
    sample(index.as_ref(), outside, memory, &mut peak, || {
        "the flush".into()
    });
    peak.notes = index.notes();
    peak
}

fn sample(
    index: &dyn Index,
    outside: bool,
    memory: usize,
    peak: &mut Peak,
    at: impl Fn() -> String,
) {
    let data = data_bound_bytes(&index.stats()) as usize;
    let counted = index.memory_bytes()
        - if outside {
            data.min(index.memory_bytes())
        } else {
            0
        };
    if counted > memory && peak.first_over.is_none() {
        peak.first_over = Some(format!("{}: {counted} B; stats {:?}", at(), index.stats()));
    }
    peak.counted = peak.counted.max(counted);
    peak.data_bound = peak.data_bound.max(data);
}

/// Runs every one of [`WORKLOADS`] at every one of [`BUDGETS`] on a fresh
/// `storage()`, with `tables` given, and fails at a run whose count passed
/// the budget, or (`tables_fit`) whose notes say the tables alone passed
/// it. Returns the highest count at each budget.
fn check(
    name: &str,
    set: &[&str],
    tables: &str,
    storage: &impl Fn() -> Storage,
    preload: u64,
    ops: u64,
    tables_fit: bool,
) -> Vec<usize> {
    let mut peaks = Vec::new();
    for memory in BUDGETS {
        let mut most = 0;
        for (what, workload) in &WORKLOADS {
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
                "{name} {set:?} {what}, {memory} B, tables={tables}: counted peak {} B, \
                 data-bound {} B",
                p.counted, p.data_bound
            );
            assert!(
                p.first_over.is_none(),
                "{name} {set:?} {what} at {memory} B (tables={tables}) passed the budget after {}; \
                 notes {:?}",
                p.first_over.unwrap_or_default(),
                p.notes
            );
            assert!(
                !tables_fit
                    || p.notes
                        .iter()
                        .all(|n| !n.contains("data-bound tables need")),
                "{name} {what} at {memory} B: {:?}",
                p.notes
            );
            most = most.max(p.counted);
        }
        peaks.push(most);
    }
    peaks
}

/// The check for an index given `set` (`tables=outside` among them keeps
/// the data-bound lines outside), after a preload of 4,000 inserts.
/// Returns the highest count seen at each budget.
pub fn stays_within_budget(
    name: &str,
    set: &[&str],
    storage: impl Fn() -> Storage,
    ops: u64,
) -> Vec<usize> {
    let tables = if set.contains(&"tables=outside") {
        "outside"
    } else {
        "in-budget"
    };
    let rest: Vec<&str> = set
        .iter()
        .copied()
        .filter(|p| !p.starts_with("tables="))
        .collect();
    check(name, &rest, tables, &storage, 4_000, ops, false)
}

/// Checks `name` at every budget and workload, with its tables in the
/// budget and outside it: the counted peak within the budget, and no note
/// of tables passing it (the data is sized so that they fit).
pub fn check_every_budget(
    name: &str,
    set: &[&str],
    storage: impl Fn() -> Storage,
    preload: u64,
    ops: u64,
) {
    for tables in ["in-budget", "outside"] {
        check(name, set, tables, &storage, preload, ops, true);
    }
}
