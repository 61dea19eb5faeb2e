//! Every index on a device that fills (the FTL over a small chip, and a
//! raw chip where the index runs on one): the insert that finds no room is
//! a clear `Full` error; every entry accepted before it is still there,
//! the failed one at most added, and later inserts fail without taking
//! anything new. (The Buffered-B+ tree and the buffer tree have their own,
//! longer test: `full_device_latree.rs`.)

mod common;

use common::{fill_until_full, holds_what_was_accepted, raw, small_ftl};
use flashix::device::DeviceError;
use flashix::index::{registry, Index, IndexError, Params};

fn fill(name: &str, dev: &str, mut t: Box<dyn Index>) -> Result<(), String> {
    let mut f = fill_until_full(t.as_mut());
    if !matches!(f.err, IndexError::Device(DeviceError::Full { .. })) {
        return Err(format!("{name} on {dev}: {}", f.err));
    }
    for i in 0..20 {
        if t.insert(2_000_000 + i, 1).is_ok() {
            f.accepted.push((2_000_000 + i, 1));
        }
    }
    f.accepted.sort_unstable();
    holds_what_was_accepted(t.as_mut(), &f.accepted, f.failed)
        .map_err(|e| format!("{name} on {dev}: {e} after {}", f.err))
}

#[test]
fn every_index_keeps_what_it_accepted_when_the_device_fills() {
    let none = || Params::parse(std::iter::empty::<&str>()).unwrap();
    let mut failures = Vec::new();
    for info in registry::list() {
        if matches!(info.name, "latree" | "buffer-tree") {
            continue;
        }
        let t = registry::create(info.name, small_ftl(16), 16 << 10, none())
            .unwrap_or_else(|e| panic!("{}: {e}", info.name));
        failures.extend(fill(info.name, "the FTL", t).err());
        if let Ok(t) = registry::create(info.name, raw(64), 16 << 10, none()) {
            failures.extend(fill(info.name, "a raw chip", t).err());
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
