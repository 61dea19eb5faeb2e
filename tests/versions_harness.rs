//! Issue #45: every index that keeps versions of keys
//! (`registry::keeps_versions`), created with `versions=key`, keeps the
//! durability contract of `docs/FORMAT.md` under a map's workload
//! (`runner::versions`: upserts, many of a live key, deletes of a key's
//! current pair, lookups): power cuts on a real file and over an FTL with
//! the write-ahead log reopen to a prefix state that holds every flush,
//! a failed write or sync costs no acknowledged flush (a RAM disk under
//! the commit layer), one damaged log page or commit record after a crash
//! and recovery costs no acknowledged flush, and a damaged page is
//! `Corrupt` or exact, never a wrong answer. Each test checks that its
//! scenarios met what they are about (upserts replacing flushed values,
//! faults that reached the caller, damage detected), so none passes
//! vacuously. Without `versions=key` the harnesses' workloads are op for
//! op what they were (pinned digests).

use std::collections::BTreeSet;

use flashix::device::DeviceSpec;
use flashix::index::kinds::registry;
use flashix::runner::crash::{self, crash_test, CrashConfig, CrashOp};
use flashix::runner::damage::damage_test;
use flashix::runner::double_fault::double_fault_test;
use flashix::runner::fault::{self, run_faults, FaultConfig, FaultOp};

const VERSIONS: &str = "versions=key";

fn keeping_versions() -> Vec<&'static str> {
    let names: Vec<&str> = registry::list()
        .iter()
        .map(|i| i.name)
        .filter(|n| registry::keeps_versions(n))
        .collect();
    assert!(!names.is_empty(), "no index keeps versions of keys");
    names
}

fn crash_config(index: &str, device: &str, sets: &[(&str, &str)], seed: u64) -> CrashConfig {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    CrashConfig {
        index: index.into(),
        params: vec![VERSIONS.into()],
        // A file's 4 KiB pages leave the LSM-tree no room in 16 KiB
        // (`tests/durability.rs`); in 24 KiB its C0 holds 464 entries.
        memory: if device.starts_with("file:") {
            24 << 10
        } else {
            16 << 10
        },
        device: DeviceSpec::parse(device, &sets).unwrap(),
        // A bulk load on the device, whose keys upserts replace, and enough
        // operations that the buffer (C0) overflows and merges meet
        // versions of a key (an LSM-tree merging by pair, not by key,
        // fails every test here).
        ops: 4000,
        keys: 2000,
        flush_every: 40,
        seed,
        bulk_load: 2000,
    }
}

/// Upserts of a key live at the time, in `ops` (the workload reaches
/// replacements at all).
fn live_upserts(ops: &[CrashOp]) -> usize {
    let mut state = BTreeSet::new();
    let mut n = 0;
    for op in ops {
        if let CrashOp::Upsert(k, _) = *op {
            n += usize::from(state.range((k, 0)..=(k, u64::MAX)).next().is_some());
        }
        op.apply(&mut state);
    }
    n
}

/// Each summary that broke the contract, described.
fn failures(what: String, failed: u64) -> Option<String> {
    (failed > 0).then_some(what)
}

#[test]
fn the_versions_workloads_are_a_map_and_reach_live_keys() {
    let c = crash_config("lsm", "slc-small", &[], 5);
    let ops = crash::workload(&c);
    assert!(live_upserts(&ops) > 100, "{}", live_upserts(&ops));
    // A map: never two pairs of a key; deletes and updates name either the
    // key's current pair or (deletes only) one it held before.
    let mut state = BTreeSet::new();
    let (mut current, mut stale) = (0, 0);
    for op in &ops {
        match *op {
            CrashOp::Delete(k, v) | CrashOp::Update(k, v, _) => {
                if state.contains(&(k, v)) {
                    current += 1;
                } else {
                    assert!(matches!(op, CrashOp::Delete(..)), "{op:?}");
                    stale += 1;
                }
            }
            CrashOp::Insert(..) => panic!("an insert in a map's workload: {op:?}"),
            _ => {}
        }
        op.apply(&mut state);
        let keys: BTreeSet<u64> = state.iter().map(|e| e.0).collect();
        assert_eq!(keys.len(), state.len(), "two pairs of a key after {op:?}");
    }
    assert!(
        current > 50 && stale > 10,
        "{current} current, {stale} stale"
    );

    let f = FaultConfig {
        params: vec![VERSIONS.into()],
        preload: 1000,
        ..FaultConfig::new("lsm")
    };
    let ops = fault::workload(&f);
    let mut live: BTreeSet<(u64, u64)> = f.preloaded().collect();
    let (mut replacing, mut gets) = (0, 0);
    for op in &ops {
        match *op {
            FaultOp::Upsert(k, v) => {
                replacing += usize::from(live.range((k, 0)..=(k, u64::MAX)).next().is_some());
                live.retain(|e| e.0 != k);
                live.insert((k, v));
            }
            FaultOp::Delete(k, v) => assert!(live.remove(&(k, v)), "{op:?}"),
            FaultOp::Get(_) => gets += 1,
            FaultOp::Insert(..) => panic!("an insert in a map's workload: {op:?}"),
            FaultOp::Flush => {}
        }
    }
    assert!(
        replacing > 100 && gets > 20,
        "{replacing} replacing, {gets} gets"
    );
}

/// FNV-1a of the workload's debug text.
fn digest(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Without `versions=key` the workloads are those of the commit before
/// versions of keys (50d1004): the digests were taken there.
#[test]
fn the_pair_workloads_are_unchanged() {
    let crash = [
        ((600, 300, 0, 11), 0x481e_be3c_6e4e_fa8b_u64),
        ((1000, 500, 200, 3), 0xc973_c810_853b_70f6),
        ((300, 150, 0, 42), 0x909a_ab41_94f4_550b),
    ];
    for ((ops, keys, bulk_load, seed), want) in crash {
        let c = CrashConfig {
            index: "lsm".into(),
            params: vec![],
            memory: 16384,
            device: DeviceSpec::parse("slc-small", &[]).unwrap(),
            ops,
            keys,
            flush_every: 40,
            seed,
            bulk_load,
        };
        let got = digest(&format!("{:?}", crash::workload(&c)));
        assert_eq!(
            got, want,
            "crash workload {ops} {keys} {bulk_load} {seed}: {got:#x}"
        );
    }
    for ((preload, seed), want) in [
        ((0, 42), 0x86c1_4299_4545_ee7f_u64),
        ((3000, 7), 0xe0a4_4203_639b_4c78),
    ] {
        let c = FaultConfig {
            preload,
            seed,
            ..FaultConfig::new("lsm")
        };
        let got = digest(&format!("{:?}", fault::workload(&c)));
        assert_eq!(got, want, "fault workload {preload} {seed}: {got:#x}");
    }
}

#[test]
fn versions_of_keys_survive_power_cuts_on_a_file_and_over_an_ftl_with_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = Vec::new();
    for name in keeping_versions() {
        let file = format!("file:{}", dir.path().join(format!("{name}.db")).display());
        let ftl = [("atomic", "true"), ("blocks", "64"), ("log_bytes", "8KiB")];
        // A file syncs at every flush: fewer scenarios there.
        for (device, sets, seed, scenarios) in [
            (file.as_str(), &[][..], 21, 30),
            ("slc-small", &ftl[..], 22, 200),
        ] {
            let mut c = crash_config(name, device, sets, seed);
            if device.starts_with("file:") {
                (c.ops, c.keys, c.bulk_load) = (2000, 2000, 1000);
            }
            let s = crash_test(&c, scenarios).unwrap();
            assert_eq!(s.scenarios, scenarios);
            assert!(s.writes > 100, "{name} on {device}: {} writes", s.writes);
            assert!(
                // Every index keeping versions meets replaced flushed values
                // (the LSM-tree in a quarter of the scenarios or more).
                s.replaced > 0 && (name != "lsm" || s.replaced >= scenarios / 4),
                "{name} on {device}: only {} scenarios replaced a flushed value",
                s.replaced
            );
            broken.extend(failures(format!("{name} on {device}: {s:?}"), s.failures()));
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn versions_of_keys_keep_the_last_flush_through_a_failed_write_or_sync() {
    let mut broken = Vec::new();
    for name in keeping_versions() {
        for preload in [0, 2000] {
            let c = FaultConfig {
                params: vec![VERSIONS.into()],
                ops: 1500,
                scenarios: 200,
                preload,
                ..FaultConfig::new(name)
            };
            let s = run_faults(&c).unwrap();
            assert_eq!(s.survived + s.refused + s.failures(), 200, "{s:?}");
            assert!(
                s.errors_seen >= 100 && s.reopened > 0 && s.replaced >= 100,
                "{name}, preload {preload}: {s:?}"
            );
            broken.extend(failures(
                format!("{name}, preload {preload}: {s:?}"),
                s.failures(),
            ));
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn versions_of_keys_lose_no_acknowledged_flush_to_a_crash_then_one_damaged_page() {
    let mut broken = Vec::new();
    for name in keeping_versions() {
        let c = FaultConfig {
            params: vec![VERSIONS.into()],
            ops: 1500,
            scenarios: 100,
            ..FaultConfig::new(name)
        };
        let d = double_fault_test(&c).unwrap();
        let s = &d.counts;
        // Every position the clean run found, up to 100.
        let positions = d.log_positions + d.commit_positions;
        assert!(
            d.log_positions > 0 && d.commit_positions > 0 && s.scenarios == positions.min(100),
            "{name}: {d:?}"
        );
        assert!(s.replaced >= s.scenarios / 2, "{name}: {d:?}");
        broken.extend(failures(format!("{name}: {d:?}"), s.failures()));
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn a_damaged_page_of_versions_of_keys_is_never_a_wrong_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = Vec::new();
    for name in keeping_versions() {
        let file = format!("file:{}", dir.path().join(format!("{name}.db")).display());
        let ftl = [("atomic", "true"), ("blocks", "64"), ("log_bytes", "8KiB")];
        for (device, sets, seed) in [(file.as_str(), &[][..], 23), ("slc-small", &ftl[..], 24)] {
            let mut c = crash_config(name, device, sets, seed);
            (c.ops, c.keys, c.bulk_load) = (2000, 2000, 1000);
            let s = damage_test(&c).unwrap();
            let detected: u64 = s.kinds.iter().map(|(_, k)| k.detected).sum();
            assert!(s.pages > 3 && detected > 0, "{name} on {device}: {s:?}");
            broken.extend(failures(format!("{name} on {device}: {s:?}"), s.failures()));
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}
