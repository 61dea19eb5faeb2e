//! Every index on a device that fills (the FTL over a small chip, and a
//! raw chip where the index runs on one): the insert that finds no room is
//! a clear `Full` error; every entry accepted before it is still there,
//! the failed one at most added, and later inserts fail without taking
//! anything new. (The Buffered-B+ tree and the buffer tree have their own,
//! longer test: `full_device_latree.rs`.)

mod common;

use flashix::device::{DeviceError, DeviceSpec, Storage};
use flashix::index::{registry, Index, IndexError, Params};

fn small_ftl() -> Storage {
    let sets = vec![("blocks".to_string(), "16".to_string())];
    DeviceSpec::parse("slc-small", &sets)
        .unwrap()
        .build()
        .unwrap()
}

fn fill(name: &str, dev: &str, mut t: Box<dyn Index>) -> Result<(), String> {
    let pair = |i: u64| (i * 7919 % 100_003, i % 5);
    let mut accepted = Vec::new();
    let err = loop {
        let (k, v) = pair(accepted.len() as u64);
        match t.insert(k, v) {
            Ok(()) => accepted.push((k, v)),
            Err(e) => break e,
        }
        assert!(accepted.len() < 3_000_000, "{name} on {dev}: never filled");
    };
    if !matches!(err, IndexError::Device(DeviceError::Full { .. })) {
        return Err(format!("{name} on {dev}: {err}"));
    }
    let failed = pair(accepted.len() as u64);
    for i in 0..20 {
        let _ = t
            .insert(2_000_000 + i, 1)
            .map(|()| accepted.push((2_000_000 + i, 1)));
    }
    accepted.sort_unstable();
    accepted.dedup();
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    let missing = accepted
        .iter()
        .filter(|p| out.binary_search(p).is_err())
        .count();
    if missing > 0 {
        return Err(format!(
            "{name} on {dev}: {missing} of {} entries lost after {err}",
            accepted.len()
        ));
    }
    let extra: Vec<_> = out
        .iter()
        .filter(|p| accepted.binary_search(p).is_err())
        .collect();
    if !(extra.is_empty() || extra == vec![&failed]) {
        return Err(format!(
            "{name} on {dev}: {} entries whose insert failed are there",
            extra.len()
        ));
    }
    Ok(())
}

#[test]
fn every_index_keeps_what_it_accepted_when_the_device_fills() {
    let none = || Params::parse(std::iter::empty::<&str>()).unwrap();
    let mut failures = Vec::new();
    for info in registry::list() {
        if matches!(info.name, "latree" | "buffer-tree") {
            continue;
        }
        let t = registry::create(info.name, small_ftl(), 16 << 10, none())
            .unwrap_or_else(|e| panic!("{}: {e}", info.name));
        failures.extend(fill(info.name, "the FTL", t).err());
        if let Ok(t) = registry::create(info.name, common::raw(64), 16 << 10, none()) {
            failures.extend(fill(info.name, "a raw chip", t).err());
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
