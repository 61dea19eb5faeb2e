//! The durability contract (`docs/FORMAT.md`) for every index over the
//! shadow-paging commit layer: power cuts at every write (torn and not) of
//! a seeded workload with periodic flushes reopen to a prefix state that
//! holds every flush (1,000 scenarios per index on an FTL, 200 on a real
//! file), and damaged pages of a flushed image are `Corrupt` or exact,
//! never a wrong answer. `flashix crashtest` / `damagetest` run more.

use flashix::device::DeviceSpec;
use flashix::index::kinds::registry;
use flashix::runner::crash::{crash_test, CrashConfig};
use flashix::runner::damage::damage_test;

fn config(index: &str, device: &str, sets: &[(&str, &str)], seed: u64) -> CrashConfig {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    CrashConfig {
        index: index.into(),
        params: vec![],
        memory: memory(device),
        device: DeviceSpec::parse(device, &sets).unwrap(),
        ops: 600,
        keys: 300,
        flush_every: 40,
        seed,
        bulk_load: 0,
    }
}

/// 16 KiB, or 32 KiB on a file, whose 4 KiB pages leave the LSM-tree's
/// working set (three pages of merge buffers, a filling leaf and a cached
/// page: 20.5 KB) no room in 16 KiB.
fn memory(device: &str) -> usize {
    if device.starts_with("file:") {
        32 * 1024
    } else {
        16 * 1024
    }
}

fn indexes() -> Vec<&'static str> {
    registry::list().iter().map(|i| i.name).collect()
}

/// Runs `f` for every index, two at a time (CI has two cores).
fn each_index(f: impl Fn(&str) -> String + Sync) {
    let names = indexes();
    let failures: Vec<String> = std::thread::scope(|s| {
        names
            .chunks(names.len().div_ceil(2))
            .map(|chunk| s.spawn(|| chunk.iter().map(|n| f(n)).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .filter(|m| !m.is_empty())
            .collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_index_survives_power_cuts_over_an_ftl() {
    each_index(|name| {
        let c = config(
            name,
            "slc-small",
            &[("atomic", "true"), ("blocks", "64")],
            11,
        );
        let s = crash_test(&c, 1000).unwrap();
        assert_eq!(s.scenarios, 1000);
        assert!(s.writes > 100, "{name}: only {} writes", s.writes);
        if s.failures() > 0 {
            format!("{name} (FTL): {s:?}")
        } else {
            String::new()
        }
    });
}

#[test]
fn every_index_survives_power_cuts_on_a_file() {
    let dir = std::env::temp_dir().join(format!("flashix-durability-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    each_index(|name| {
        let path = dir.join(format!("{name}.db"));
        let c = config(name, &format!("file:{}", path.display()), &[], 12);
        assert!(c.device.atomic, "files are atomic by default");
        let s = crash_test(&c, 200).unwrap();
        if s.failures() > 0 {
            format!("{name} (file): {s:?}")
        } else {
            String::new()
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_pages_are_never_a_wrong_answer() {
    each_index(|name| {
        let mut c = config(
            name,
            "slc-small",
            &[("atomic", "true"), ("blocks", "64")],
            13,
        );
        c.ops = 300;
        let s = damage_test(&c).unwrap();
        let detected: u64 = s.kinds.iter().map(|(_, k)| k.detected).sum();
        assert!(detected > 0, "{name}: no damage was detected at all: {s:?}");
        if s.failures() > 0 {
            format!("{name}: {s:?}")
        } else {
            String::new()
        }
    });
}

/// The same power cuts and damage with the commit layer's write-ahead log
/// on (as on a file; `store::logged`), its bound small enough that every
/// few flushes checkpoint: cuts meet log appends, checkpoints and the
/// release of an old log alike, and damage meets log pages (each of which
/// has a second copy: a damaged one must cost nothing).
#[test]
fn every_index_keeps_the_contract_with_the_write_ahead_log() {
    each_index(|name| {
        let sets = [("atomic", "true"), ("blocks", "64"), ("log_bytes", "8KiB")];
        let c = config(name, "slc-small", &sets, 14);
        assert!(c.device.log_bytes > 0);
        let s = crash_test(&c, 600).unwrap();
        let mut failures = String::new();
        if s.failures() > 0 {
            failures = format!("{name} (FTL, log, crash): {s:?}");
        }
        let mut c = config(name, "slc-small", &sets, 15);
        c.ops = 300;
        let d = damage_test(&c).unwrap();
        if d.failures() > 0 {
            failures.push_str(&format!("{name} (FTL, log, damage): {d:?}"));
        }
        failures
    });
}
