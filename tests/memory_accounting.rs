//! `Index::memory_bytes` against the heap an index actually holds (issue
//! #27 point 1, "Memory, honestly").
//!
//! A counting global allocator tracks the live heap of this test binary.
//! Each index is built on a file device, whose RAM does not grow with the
//! pages written (a fixed page buffer; the pages live in the file), so the
//! live heap growth from just before `create_index` is the index's own:
//! its struct, caches, buffers, tables, maps, spills, directories. A mixed
//! workload (inserts, deletes, searches and, where the index defers them,
//! delayed lookups) drives every structure to its peak; the peak of the
//! count is compared with the peak of the held bytes.
//!
//! Tolerance: the count is a model at on-flash widths (16 B an entry with
//! the 8-byte keys and values used here, where a `Vec<(u64, u64)>` holds
//! 16 B an entry but a `BTreeMap` about twice that with its node slack), so
//! it must lie in `[low × held, HIGH × held + SLACK]`, with `HIGH` = 1.25,
//! `SLACK` = 64 KiB (the index struct, parameter strings, constant headers
//! and allocator rounding) and `low` per index: `LOW_ARRAYS` = 0.75 where
//! RAM is held in arrays (node caches, page buffers, pools), `LOW_MAPS` =
//! 0.55 where a large part is modelled narrower than Rust holds it (a
//! `BTreeMap`: C0 of the LSM-tree, the FD-tree's head, the MB-Tree's task
//! buffer; the delta schemes' node table at the paper's 6 + 4 bytes a node
//! and delta page, held as a 40-byte `Chain` and a `Vec` of deltas).
//! The lower bound is what catches a structure left out of the count: at
//! this scale each growing structure is a large part of the heap (the
//! LA-tree's pool slack and emptying scratch were 0.41× and 0.33×).
//!
//! Tests share the global counter, so they run one at a time (`LOCK`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;

use flashix::device::file::FileDevice;
use flashix::device::Storage;
use flashix::index::Params;
use flashix::store::create_index;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; the counter is bookkeeping only.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static LOCK: Mutex<()> = Mutex::new(());

const LOW_ARRAYS: f64 = 0.75;
const LOW_MAPS: f64 = 0.55;
const HIGH: f64 = 1.25;
const SLACK: f64 = 64.0 * 1024.0;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// A deterministic key stream (no allocation).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

struct Peaks {
    counted: usize,
    held: isize,
}

/// Runs `ops` operations on `name` with `memory` bytes and `set`, sampling
/// the count and the held heap after every operation; returns the peaks.
fn drive(name: &str, set: &[&str], memory: usize, ops: u64, keys: u64) -> Peaks {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("dev");
    let dev = FileDevice::create(&path, 4096, 1 << 20).expect("a file device");
    let storage = Storage::Pages(Box::new(dev));
    let params =
        Params::parse(WIDE.iter().chain(set).copied()).expect("test parameters are well formed");
    let mut out: Vec<u64> = Vec::with_capacity(1024);
    let mut answers: Vec<(u64, Vec<u64>)> = Vec::with_capacity(1 << 16);
    let mut inserted: Vec<(u64, u64)> = Vec::with_capacity(ops as usize);
    let mut rng = Lcg(0x5eed ^ ops);
    // `out`, `answers` and `inserted` stay within the capacity reserved
    // here, so nothing of the driver is in `live() - base`.
    let base = live();
    let mut index = create_index(name, storage, memory, params).expect("the index builds");
    let defers = index.defers_lookups();
    let mut peaks = Peaks {
        counted: index.memory_bytes(),
        held: live() - base,
    };
    for i in 0..ops {
        let r = rng.next() % 100;
        let key = rng.next() % keys;
        if r < 70 || inserted.is_empty() {
            index.insert(key, i).expect("insert");
            inserted.push((key, i));
        } else if r < 80 {
            let (k, v) = inserted[(rng.next() as usize) % inserted.len()];
            index.delete(k, v).expect("delete");
        } else if r < 90 && defers {
            index.get_later(key).expect("get_later");
        } else {
            index.get(key, &mut out).expect("get");
        }
        if defers {
            index.take_answers(&mut answers);
            answers.clear();
        }
        peaks.held = peaks.held.max(live() - base);
        peaks.counted = peaks.counted.max(index.memory_bytes());
    }
    assert_eq!(
        index.data_bound_bytes(),
        flashix::node::budget::data_bound_bytes(&index.stats()),
        "{name}: data_bound_bytes is not the stats' data-bound lines"
    );
    assert!(out.capacity() <= 1024, "the search output grew");
    assert!(answers.capacity() <= 1 << 16, "the answer list grew");
    peaks
}

fn check(name: &str, set: &[&str], low: f64, memory: usize, ops: u64, keys: u64) {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let p = drive(name, set, memory, ops, keys);
    let held = p.held.max(0) as f64;
    let counted = p.counted as f64;
    eprintln!(
        "{name} {set:?} memory {memory}: counted peak {} B, held peak {} B ({:.2}×)",
        p.counted,
        p.held,
        counted / held.max(1.0)
    );
    assert!(
        counted >= low * held,
        "{name}: counted {counted} B is below {low} × the {held} B held"
    );
    assert!(
        counted <= HIGH * held + SLACK,
        "{name}: counted {counted} B is above {HIGH} × the {held} B held + {SLACK}"
    );
}

const MEM: usize = 1 << 20;

/// 8-byte keys and values: the on-flash width of an entry (16 B) is then
/// the width of the `(u64, u64)` an index holds it as in RAM, so the count
/// and the heap measure the same bytes.
const WIDE: [&str; 2] = ["key_bytes=8", "value_bytes=8"];

#[test]
fn btree() {
    check("btree", &[], LOW_ARRAYS, MEM, 40_000, 1 << 30);
}

#[test]
fn btree_write_buffer() {
    check(
        "btree",
        &["write_buffer=32"],
        LOW_ARRAYS,
        MEM,
        40_000,
        1 << 30,
    );
}

#[test]
fn lsm() {
    check("lsm", &[], LOW_MAPS, MEM, 40_000, 1 << 30);
}

#[test]
fn mbtree() {
    check("mbtree", &[], LOW_MAPS, MEM, 40_000, 1 << 30);
}

#[test]
fn fdtree() {
    check("fdtree", &[], LOW_MAPS, MEM, 40_000, 1 << 30);
}

#[test]
fn basic_delta() {
    check("basic-delta", &[], LOW_MAPS, MEM, 40_000, 1 << 30);
}

#[test]
fn consolidation() {
    check("consolidation", &[], LOW_MAPS, MEM, 40_000, 1 << 30);
}

#[test]
fn ipl() {
    check("ipl", &[], LOW_ARRAYS, MEM, 40_000, 1 << 30);
}

#[test]
fn latree() {
    check("latree", &[], LOW_ARRAYS, MEM, 40_000, 1 << 30);
}

#[test]
fn buffer_tree() {
    check("buffer-tree", &[], LOW_ARRAYS, MEM, 40_000, 1 << 30);
}

#[test]
fn buffer_tree_delayed_lookups() {
    check(
        "buffer-tree",
        &["lookup=delayed"],
        LOW_ARRAYS,
        MEM,
        40_000,
        1 << 30,
    );
}

/// Issue #43: at 16 KiB, 64 KiB and 1 MiB, over an insert-heavy, a mixed
/// and a search-heavy workload, the Buffered-B+ tree (Adapt-Simple and
/// ADAPT) and the buffer tree (immediate and delayed lookups), with their
/// data-bound tables outside the budget as the LA paper keeps its node
/// table (§6), hold at most the budget besides those tables after every
/// operation and the final flush (delayed answers taken, as the runner
/// does). On the LA paper's raw Toshiba part, keys 1..10,000; `at_1mib`
/// is added at 1 MiB (the node log holds nodes of up to 64 KiB, less than
/// the buffer tree's default super-node there).
fn within_budget(name: &str, set: &[&str], at_1mib: &[&str]) {
    use flashix::device::DeviceSpec;
    use flashix::node::budget::data_bound_bytes;
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // Inserts and searches in percent; the rest deletes.
    for (mix, (ins, search)) in [
        ("insert-heavy", (90, 10)),
        ("mixed", (60, 30)),
        ("search-heavy", (20, 75)),
    ] {
        for memory in [16 << 10, 64 << 10, 1 << 20] {
            let sets = vec![("blocks".to_string(), "1024".to_string())];
            let storage = DeviceSpec::parse("raw:toshiba-byte", &sets)
                .and_then(|d| d.build())
                .expect("a raw chip");
            let big = if memory == 1 << 20 { at_1mib } else { &[] };
            let params = Params::parse(set.iter().chain(big).copied().chain(["tables=outside"]))
                .expect("test parameters are well formed");
            let mut index = create_index(name, storage, memory, params).expect("the index builds");
            let defers = index.defers_lookups();
            let (mut out, mut answers, mut live) = (Vec::new(), Vec::new(), Vec::new());
            let mut rng = Lcg(memory as u64 ^ ins);
            let mut worst = 0usize;
            for i in 0..12_000u64 {
                let r = rng.next() % 100;
                let key = rng.next() % 10_000 + 1;
                if r < ins || live.is_empty() {
                    index.insert(key, i).expect("insert");
                    live.push((key, i));
                } else if r < ins + search {
                    if defers {
                        index.get_later(key).expect("get_later");
                    } else {
                        index.get(key, &mut out).expect("get");
                    }
                } else {
                    let (k, v) = live.swap_remove((rng.next() as usize) % live.len());
                    index.delete(k, v).expect("delete");
                }
                if i == 11_999 {
                    index.flush().expect("flush");
                }
                index.take_answers(&mut answers);
                answers.clear();
                let tables = data_bound_bytes(&index.stats());
                assert_eq!(
                    index.data_bound_bytes(),
                    tables,
                    "{name}: data_bound_bytes is not the stats' data-bound lines"
                );
                let held = index.memory_bytes() - tables as usize;
                worst = worst.max(held);
            }
            eprintln!("{name} {set:?} {mix} at {memory} B: at most {worst} B besides the tables");
            assert!(
                worst <= memory,
                "{name} {set:?} {mix} at {memory} B: {worst} B besides the data-bound tables"
            );
        }
    }
}

#[test]
fn latree_within_its_budget() {
    within_budget("latree", &[], &[]);
}

#[test]
fn latree_adapt_within_its_budget() {
    within_budget("latree", &["adapt=adapt"], &[]);
}

#[test]
fn buffer_tree_within_its_budget() {
    within_budget("buffer-tree", &[], &["node_bytes=60000"]);
}

#[test]
fn buffer_tree_delayed_within_its_budget() {
    within_budget("buffer-tree", &["lookup=delayed"], &["node_bytes=60000"]);
}
