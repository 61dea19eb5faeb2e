//! Every parameter `index::kinds::runtime` calls a runtime knob can change when an
//! index is reopened (no `Mismatch`), and the reopened index still holds
//! and takes entries: what lets `advise` share one preloaded image among
//! configurations that differ only in them. A structural parameter
//! changed at reopen is refused, so the list cannot hide one.

use flashix::device::{DeviceSpec, Storage};
use flashix::index::kinds::{registry, runtime};
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};

const MEMORY: usize = 1 << 16;

fn p(v: &[String]) -> Params {
    Params::parse(v.iter().map(String::as_str)).unwrap()
}

/// A flushed image of `name` on `device` holding 3,000 entries.
fn image(name: &str, device: &str) -> Storage {
    let spec = DeviceSpec::parse(device, &[("blocks".into(), "2048".into())]).unwrap();
    let mut t = create_index(name, spec.build().unwrap(), MEMORY, Params::new()).unwrap();
    for i in 0..3000u64 {
        t.insert((i * 7919) % 100_000, i).unwrap();
    }
    t.flush().unwrap();
    t.into_storage()
}

/// Parameters setting `key` of index `name` to a value other than its
/// default (BFTL's node cache is off by default: its size needs it on).
fn changed(name: &str, key: &str) -> Vec<String> {
    let bftl = name == "bftl" || name == "flashdb";
    match key {
        "cache" if bftl => vec!["cache=wt-lru".into()],
        "cache_nodes" if bftl => vec!["cache=wt-lru".into(), "cache_nodes=8".into()],
        _ => vec![format!("{key}={}", other_value(key))],
    }
}

/// A value of `key` other than the indexes' default.
fn other_value(key: &str) -> &'static str {
    match key {
        "cache" => "none",
        "cache_nodes" => "8",
        "cached_levels" => "1",
        "write_buffer" => "4",
        "reservation_buffer" => "30",
        "compaction_c" => "5",
        "lru_share" => "0.6",
        "adapt" => "adapt",
        "node_cache_share" => "0.5",
        "max_buffer_bytes" => "8192",
        "tables" => "outside",
        "log_insert_reads_leaf" => "false",
        other => panic!("no test value for `{other}`"),
    }
}

#[test]
fn every_runtime_knob_changes_at_reopen() {
    for info in registry::list() {
        let name = info.name;
        let device = if name == "ipl" {
            "raw:slc-small"
        } else {
            "slc-small"
        };
        for key in runtime::runtime_params(name) {
            let set = changed(name, key);
            let storage = image(name, device);
            let mut t = open_index(name, storage, MEMORY, p(&set))
                .unwrap_or_else(|e| panic!("{name} reopened with {set:?}: {e}"));
            for i in 3000..3500u64 {
                t.insert((i * 7919) % 100_000, i).unwrap();
            }
            t.flush().unwrap();
            let mut all = Vec::new();
            t.range(0, u64::MAX, &mut all).unwrap();
            assert_eq!(all.len(), 3500, "{name} with {set:?}");
        }
    }
}

#[test]
fn a_structural_parameter_changed_at_reopen_is_refused() {
    for (name, set) in [("btree", "fanout=8"), ("fdtree", "k=3"), ("lsm", "ratio=3")] {
        let e = open_index(
            name,
            image(name, "slc-small"),
            MEMORY,
            p(&[set.to_string()]),
        )
        .err()
        .unwrap_or_else(|| panic!("{name} reopened with {set}"));
        assert!(matches!(e, IndexError::Mismatch { .. }), "{name}: {e}");
        assert!(runtime::structural(name, &[set.to_string()]).len() == 1);
    }
}
