//! The Buffered-B+ tree and the buffer tree on a device that fills: the
//! insert that finds no room is a clear `Full` error, and every entry
//! accepted before it is still answered.

mod common;

use common::{fill_until_full, holds_what_was_accepted, raw, small_ftl};
use flashix::device::{DeviceError, Storage};
use flashix::index::{registry, IndexError, Params};

fn p(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}

fn fill(name: &str, set: &[&str], storage: Storage, memory: usize) {
    let mut t = registry::create(name, storage, memory, p(set)).unwrap();
    let mut f = fill_until_full(t.as_mut());
    assert!(
        matches!(f.err, IndexError::Device(DeviceError::Full { .. })),
        "{name} {set:?}: {}",
        f.err
    );
    holds_what_was_accepted(t.as_mut(), &f.accepted, f.failed)
        .unwrap_or_else(|e| panic!("{name} {set:?}: {e} after {}", f.err));
    // Lookups still answer (an emptying they would start finds no room
    // and they scan instead), and later writes fail without taking more.
    let mut got = Vec::new();
    for &(k, v) in f.accepted.iter().step_by(97) {
        t.get(k, &mut got).unwrap();
        assert!(
            got.contains(&v),
            "{name} {set:?}: get({k}) = {got:?} lacks {v}"
        );
    }
    for i in 0..50 {
        let (k, v) = (i * 31 + 1_000_000, 1);
        if t.insert(k, v).is_ok() {
            f.accepted.push((k, v));
        }
    }
    f.accepted.sort_unstable();
    holds_what_was_accepted(t.as_mut(), &f.accepted, f.failed)
        .unwrap_or_else(|e| panic!("{name} {set:?} after more inserts: {e}"));
}

#[test]
fn latree_fills_a_raw_chip() {
    for a in ["adapt=simple", "adapt=off"] {
        fill("latree", &[a], raw(64), 16 << 10);
    }
}

#[test]
fn latree_fills_an_ftl() {
    fill("latree", &[], small_ftl(16), 16 << 10);
}

#[test]
fn latree_with_adapt_fills_both() {
    fill("latree", &["adapt=adapt"], raw(64), 16 << 10);
    fill(
        "latree",
        &["adapt=adapt", "fanout=4"],
        small_ftl(16),
        16 << 10,
    );
}

#[test]
fn buffer_tree_fills_a_raw_chip_and_an_ftl() {
    for mode in ["lookup=immediate", "lookup=delayed"] {
        fill("buffer-tree", &[mode], raw(64), 16 << 10);
        fill("buffer-tree", &[mode], small_ftl(16), 16 << 10);
    }
}

/// Inserts and deletes until the device fills: the tree then holds exactly
/// what the operations that succeeded leave, with or without the effect of
/// the one that failed, and lookups agree with it.
fn fill_mixed(name: &str, set: &[&str], storage: Storage) {
    use std::collections::BTreeSet;
    let mut t = registry::create(name, storage, 16 << 10, p(set)).unwrap();
    let mut oracle = BTreeSet::new();
    let mut live: Vec<(u64, u64)> = Vec::new();
    let mut i = 0u64;
    let (failed, err) = loop {
        i += 1;
        assert!(i < 2_000_000, "{name} {set:?}: never filled");
        if i.is_multiple_of(3) && !live.is_empty() {
            let at = (i as usize * 7) % live.len();
            let pair = live.swap_remove(at);
            match t.delete(pair.0, pair.1) {
                Ok(found) => {
                    assert!(found, "{name} {set:?}: {pair:?} not found");
                    oracle.remove(&pair);
                }
                Err(e) => break ((false, pair), e),
            }
        } else {
            let pair = (i * 7919 % 20_011, i % 3);
            match t.insert(pair.0, pair.1) {
                Ok(()) => {
                    if oracle.insert(pair) {
                        live.push(pair);
                    }
                }
                Err(e) => break ((true, pair), e),
            }
        }
    };
    assert!(
        matches!(err, IndexError::Device(DeviceError::Full { .. })),
        "{name} {set:?}: {err}"
    );
    let mut other = oracle.clone();
    if failed.0 {
        other.insert(failed.1);
    } else {
        other.remove(&failed.1);
    }
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    let got: BTreeSet<_> = out.into_iter().collect();
    assert!(
        got == oracle || got == other,
        "{name} {set:?}: the tree differs from the operations that succeeded"
    );
    let mut values = Vec::new();
    for k in (0..20_011).step_by(13) {
        t.get(k, &mut values).unwrap();
        let want: Vec<u64> = got.range((k, 0)..=(k, u64::MAX)).map(|&(_, v)| v).collect();
        assert_eq!(values, want, "{name} {set:?}: get({k})");
    }
}

#[test]
fn inserts_and_deletes_until_full() {
    for a in ["adapt=simple", "adapt=adapt", "adapt=off"] {
        fill_mixed("latree", &[a], raw(48));
        fill_mixed("latree", &[a, "fanout=4"], small_ftl(12));
    }
    fill_mixed("buffer-tree", &["lookup=immediate"], raw(48));
    fill_mixed("buffer-tree", &["lookup=delayed"], small_ftl(12));
}
