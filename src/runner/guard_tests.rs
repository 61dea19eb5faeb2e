//! A measured loop run on the index a guard wraps (`Index::run_inner`)
//! must leave the guard as its failed call would have: poisoned by an
//! error that may have half-changed the index, not by a rejected input.

use super::*;
use crate::device::{DeviceSpec, Storage};
use crate::index::{EntryFormat, IndexStats, Params};
use crate::store::guard::Guarded;

/// A B+-tree whose `nth` call of `insert`, `get` or `flush` fails with
/// `error()`.
struct Failing {
    inner: Box<dyn Index>,
    calls: u64,
    nth: u64,
    error: fn() -> IndexError,
}

impl Failing {
    fn call(&mut self) -> crate::index::Result<()> {
        self.calls += 1;
        if self.calls == self.nth {
            return Err((self.error)());
        }
        Ok(())
    }
}

impl Index for Failing {
    fn name(&self) -> &'static str {
        "failing"
    }
    fn format(&self) -> EntryFormat {
        self.inner.format()
    }
    fn insert(&mut self, key: u64, value: u64) -> crate::index::Result<()> {
        self.call()?;
        self.inner.insert(key, value)
    }
    fn delete(&mut self, key: u64, value: u64) -> crate::index::Result<bool> {
        self.inner.delete(key, value)
    }
    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> crate::index::Result<()> {
        self.call()?;
        self.inner.get(key, out)
    }
    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> crate::index::Result<()> {
        self.inner.range(lo, hi, out)
    }
    fn flush(&mut self) -> crate::index::Result<()> {
        self.call()?;
        self.inner.flush()
    }
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
    fn stats(&self) -> IndexStats {
        self.inner.stats()
    }
    fn flash_bytes_used(&self) -> u64 {
        self.inner.flash_bytes_used()
    }
    fn storage(&self) -> &Storage {
        self.inner.storage()
    }
    fn into_storage(self: Box<Self>) -> Storage {
        self.inner.into_storage()
    }
}

fn guarded(nth: u64, error: fn() -> IndexError, read_only: bool) -> Guarded {
    let storage = DeviceSpec::parse("slc-small", &[])
        .unwrap()
        .build()
        .unwrap();
    let inner = crate::store::create_index("btree", storage, 1 << 16, Params::default());
    let failing = Box::new(Failing {
        inner: inner.unwrap(),
        calls: 0,
        nth,
        error,
    });
    if read_only {
        Guarded::read_only(failing)
    } else {
        Guarded::new(failing)
    }
}

fn run_on(index: &mut Guarded, flush_every: Option<u64>) -> Result<Report, RunError> {
    let ops = (1..=6u64).map(|k| Ok(Op::Insert { key: k, value: k }));
    let options = RunOptions {
        quiet: true,
        flush_every,
        ..RunOptions::default()
    };
    run(
        index,
        &mut std::iter::empty::<Result<Op, WorkloadError>>(),
        &mut ops.chain((1..=3).map(|k| Ok(Op::Search { key: k }))),
        &options,
        None,
    )
}

fn corrupt() -> IndexError {
    IndexError::Corrupt {
        page: 7,
        detail: "test".into(),
    }
}

fn out_of_range() -> IndexError {
    IndexError::KeyOutOfRange { key: 1, max: 0 }
}

/// A run through a guard calls the index it wraps, and the guard still
/// poisons (or not) by the error that stopped it, as the failed call
/// through the guard would have, with the run's error unchanged.
#[test]
fn a_run_through_a_guard_poisons_as_its_calls_would() {
    let mut g = guarded(3, corrupt, false);
    let e = run_on(&mut g, None).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Index {
                op_number: 3,
                source: IndexError::Corrupt { page: 7, .. },
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        g.get(1, &mut Vec::new()),
        Err(IndexError::Poisoned { .. })
    ));

    let mut g = guarded(8, corrupt, false);
    let e = run_on(&mut g, None).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Index {
                op_number: 8,
                op: Op::Search { key: 2 },
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(g.insert(9, 9), Err(IndexError::Poisoned { .. })));

    let mut g = guarded(3, out_of_range, false);
    let e = run_on(&mut g, None).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Index {
                op_number: 3,
                source: IndexError::KeyOutOfRange { .. },
                ..
            }
        ),
        "{e}"
    );
    g.get(1, &mut Vec::new()).unwrap();

    // The third call is the flush after operation 2.
    let mut g = guarded(3, corrupt, false);
    let e = run_on(&mut g, Some(2)).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Flush {
                after_op: 2,
                source: IndexError::Corrupt { .. }
            }
        ),
        "{e}"
    );
    assert!(matches!(
        g.get(1, &mut Vec::new()),
        Err(IndexError::Poisoned { .. })
    ));

    // Poisoned before the run: the first operation is refused.
    let e = run_on(&mut g, None).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Index {
                op_number: 1,
                source: IndexError::Poisoned { .. },
                ..
            }
        ),
        "{e}"
    );

    // Read-only: the first insert is refused, and nothing poisoned.
    let mut g = guarded(0, corrupt, true);
    let e = run_on(&mut g, None).unwrap_err();
    assert!(
        matches!(
            e,
            RunError::Index {
                op_number: 1,
                source: IndexError::ReadOnly(_),
                ..
            }
        ),
        "{e}"
    );
    g.get(1, &mut Vec::new()).unwrap();

    // No error: the run's report, every operation counted.
    let mut g = guarded(0, corrupt, false);
    let r = run_on(&mut g, Some(4)).unwrap();
    assert_eq!(r.ops.values().sum::<u64>(), 9);
    assert_eq!(
        r.memory_peak_bytes,
        r.memory_peak_bytes.max(g.memory_bytes() as u64)
    );
}
