//! Every index on a device that fills (`docs/FORMAT.md` rule 6): the call
//! that finds no room is a clear `Full` error; from then on every call is
//! refused with `Poisoned` naming it (`store::guard`), since an operation
//! the device stopped half-way may have left the index half-changed; and
//! the device mounted again opens at the last successful flush. (The
//! Buffered-B+ tree and the buffer tree, in their other settings:
//! `full_device_latree.rs`.)

mod common;

use common::{
    fill_until_full, raw, refuses_everything_after_full, reopens_at_last_flush_when_full, small_ftl,
};
use flashix::device::DeviceError;
use flashix::index::kinds::registry;
use flashix::index::{Index, IndexError, Params};
use flashix::store::create_index;

fn fill(name: &str, dev: &str, mut t: Box<dyn Index>) -> Result<(), String> {
    let (err, accepted) = fill_until_full(t.as_mut());
    if !matches!(err, IndexError::Device(DeviceError::Full { .. })) {
        return Err(format!("{name} on {dev}: {err}"));
    }
    if accepted < 100 {
        return Err(format!("{name} on {dev}: full after {accepted} inserts"));
    }
    refuses_everything_after_full(t.as_mut()).map_err(|e| format!("{name} on {dev}: {e}"))
}

#[test]
fn every_index_refuses_every_call_once_the_device_is_full() {
    let none = || Params::parse(std::iter::empty::<&str>()).unwrap();
    let mut failures = Vec::new();
    for info in registry::list() {
        let t = create_index(info.name, small_ftl(16), 16 << 10, none())
            .unwrap_or_else(|e| panic!("{}: {e}", info.name));
        failures.extend(fill(info.name, "the FTL", t).err());
        if let Ok(t) = create_index(info.name, raw(64), 16 << 10, none()) {
            failures.extend(fill(info.name, "a raw chip", t).err());
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Issue #28, finding 4: a full file, the caller carrying on after `Full`,
/// became unreadable; finding 5: a full Consolidation image could not be
/// scanned (its reads consolidate chains, which needs a page).
#[test]
fn every_index_on_a_full_committed_device_reopens_at_its_last_flush() {
    let failures: Vec<String> = registry::list()
        .iter()
        .filter_map(|info| {
            reopens_at_last_flush_when_full(info.name, &[], 16 << 10)
                .err()
                .map(|e| format!("{}: {e}", info.name))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
