//! The Buffered-B+ tree and the buffer tree, in the settings
//! `full_device.rs` does not run, on a device that fills: the call that
//! finds no room is a clear `Full` error, every later call is refused, and
//! on a device under the commit layer the image mounted again is the last
//! successful flush.

mod common;

use common::{
    fill_until_full, raw, refuses_everything_after_full, reopens_at_last_flush_when_full, small_ftl,
};
use flashix::device::{DeviceError, Storage};
use flashix::index::{IndexError, Params};
use flashix::store::create_index;

fn p(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}

fn fill(name: &str, set: &[&str], storage: Storage, memory: usize) {
    let mut t = create_index(name, storage, memory, p(set)).unwrap();
    let (err, _) = fill_until_full(t.as_mut());
    assert!(
        matches!(err, IndexError::Device(DeviceError::Full { .. })),
        "{name} {set:?}: {err}"
    );
    refuses_everything_after_full(t.as_mut()).unwrap_or_else(|e| panic!("{name} {set:?}: {e}"));
    reopens_at_last_flush_when_full(name, set, memory)
        .unwrap_or_else(|e| panic!("{name} {set:?}: {e}"));
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
