//! Tests of the commit layer and its log.

use super::*;
use crate::device::fault::SharedDevice;
use crate::device::ram::RamDisk;
use proptest::prelude::*;
use std::collections::BTreeMap;

const PAGE: usize = 256;

fn page_of(tag: u64) -> Vec<u8> {
    (0..PAGE).map(|i| (tag as usize * 31 + i) as u8).collect()
}

fn content(s: &mut Shadow, pages: u64) -> Result<BTreeMap<u64, Vec<u8>>> {
    let mut out = BTreeMap::new();
    for lba in 0..pages {
        let mut b = vec![0u8; PAGE];
        s.read(lba, 0, &mut b)?;
        if b.iter().any(|&x| x != 0) {
            out.insert(lba, b);
        }
    }
    Ok(out)
}

proptest! {
    /// Writes, partial writes, trims, commits and crashes (dropping the
    /// layer without a commit) against a model: a remount always holds
    /// exactly the last committed content.
    #[test]
    fn a_remount_holds_exactly_the_last_commit(
        ops in proptest::collection::vec((0u8..10, 0u64..40, 0u64..1000), 1..200)
    ) {
        let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 200)));
        let mut s = Shadow::mount(Box::new(disk.clone())).unwrap();
        let mut live: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
        let mut committed = live.clone();
        for (kind, lba, tag) in ops {
            match kind {
                0..=4 => {
                    let p = page_of(tag);
                    s.write(lba, 0, &p).unwrap();
                    live.insert(lba, p);
                }
                5 => {
                    let mut p = live.get(&lba).cloned().unwrap_or_else(|| vec![0; PAGE]);
                    p[10..20].fill(tag as u8 | 1);
                    s.write(lba, 10, &[tag as u8 | 1; 10]).unwrap();
                    live.insert(lba, p);
                }
                6 => {
                    s.trim(lba).unwrap();
                    live.remove(&lba);
                }
                7 | 8 => {
                    s.sync().unwrap();
                    committed = live.clone();
                }
                _ => {
                    drop(s);
                    s = Shadow::mount(Box::new(disk.clone())).unwrap();
                    live = committed.clone();
                }
            }
            prop_assert_eq!(content(&mut s, 40).unwrap(), live.clone());
        }
        drop(s);
        let mut s = Shadow::mount(Box::new(disk.clone())).unwrap();
        prop_assert_eq!(content(&mut s, 40).unwrap(), committed);
    }
}

/// Every page beneath a committed image, zeroed or replaced by another
/// page or by its own older version: the remount fails or every read
/// is either right or `Corrupt`.
#[test]
fn damage_beneath_is_corrupt_never_data() {
    let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 300)));
    let mut s = Shadow::mount(Box::new(disk.clone())).unwrap();
    let mut want = BTreeMap::new();
    for round in 0..3u64 {
        for lba in 0..60 {
            if (lba + round) % 3 == 0 {
                s.write(lba, 0, &page_of(lba * 7 + round)).unwrap();
                want.insert(lba, page_of(lba * 7 + round));
            }
        }
        s.sync().unwrap();
    }
    drop(s);
    let read_all = |d: &SharedDevice| -> Vec<Vec<u8>> {
        let mut d = d.clone();
        let pages = d.capacity_pages().min(300);
        (0..pages)
            .map(|p| {
                let mut b = vec![0u8; PAGE];
                d.read(p, 0, &mut b).unwrap();
                b
            })
            .collect()
    };
    let image = read_all(&disk);
    let used: Vec<u64> = (0..image.len() as u64)
        .filter(|&p| image[p as usize].iter().any(|&b| b != 0))
        .collect();
    let (mut detected, mut exact) = (0, 0);
    for &victim in &used {
        for damage in [
            vec![0u8; PAGE],
            image[(victim as usize + 1) % image.len()].clone(),
        ] {
            let copy = SharedDevice::new(Box::new(RamDisk::new(PAGE, 300)));
            let mut c = copy.clone();
            for (p, b) in image.iter().enumerate() {
                let b = if p as u64 == victim { &damage } else { b };
                c.write(p as u64, 0, b).unwrap();
            }
            let Ok(mut s) = Shadow::mount(Box::new(copy)) else {
                detected += 1;
                continue;
            };
            let mut all_right = true;
            for lba in 0..60 {
                let mut b = vec![0u8; PAGE];
                match s.read(lba, 0, &mut b) {
                    Err(DeviceError::Corrupt { .. }) => all_right = false,
                    Err(e) => panic!("{e}"),
                    Ok(()) => {
                        let expect = want.get(&lba).cloned().unwrap_or_else(|| vec![0; PAGE]);
                        assert_eq!(b, expect, "page {victim} damaged: wrong data at {lba}");
                    }
                }
            }
            if all_right {
                exact += 1;
            } else {
                detected += 1;
            }
        }
    }
    // Data pages damaged are found; a damaged meta copy falls back to
    // the other (same generation): exact.
    assert!(
        detected > used.len(),
        "{detected} detected of {}",
        used.len()
    );
    assert!(exact >= 2, "{exact}");
}

#[test]
fn a_full_device_is_an_error_and_the_commit_survives() {
    let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 40)));
    let mut s = Shadow::mount(Box::new(disk.clone())).unwrap();
    let cap = s.capacity_pages();
    for lba in 0..cap {
        s.write(lba, 0, &page_of(lba)).unwrap();
    }
    s.sync().unwrap();
    // Rewriting everything needs a shadow of every page.
    let mut failed = false;
    for lba in 0..cap {
        if let Err(e) = s.write(lba, 0, &page_of(lba + 100)) {
            assert!(matches!(e, DeviceError::Full { .. }), "{e}");
            failed = true;
            break;
        }
    }
    assert!(failed);
    drop(s);
    let mut s = Shadow::mount(Box::new(disk)).unwrap();
    for lba in 0..cap {
        let mut b = vec![0u8; PAGE];
        s.read(lba, 0, &mut b).unwrap();
        assert_eq!(b, page_of(lba));
    }
}

/// Records of one batch: `pages` pages of `tag`-derived bytes, the last
/// one short.
fn batch(tag: u64, pages: usize, payload: usize) -> Vec<Vec<u8>> {
    (0..pages)
        .map(|p| {
            let len = if p + 1 == pages {
                payload / 3 + 1
            } else {
                payload
            };
            (0..len)
                .map(|i| (tag as usize * 7 + p * 13 + i) as u8)
                .collect()
        })
        .collect()
}

/// Appends `pages` as one batch.
fn append_batch(s: &mut Shadow, pages: &[Vec<u8>]) -> Result<()> {
    for (i, p) in pages.iter().enumerate() {
        s.append(p, i + 1 == pages.len())?;
    }
    Ok(())
}

#[test]
fn log_batches_survive_a_remount_and_a_commit_empties_the_log() {
    let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 400)));
    let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
    assert!(!s.ready(), "no commit yet: no log");
    s.write(0, 0, &page_of(1)).unwrap();
    s.sync().unwrap();
    assert!(s.ready());
    let payload = s.payload_bytes();
    let (a, b, c) = (
        batch(1, 3, payload),
        batch(2, 1, payload),
        batch(3, 2, payload),
    );
    append_batch(&mut s, &a).unwrap();
    append_batch(&mut s, &b).unwrap();
    // A batch never ended is not part of the log.
    s.append(&c[0], false).unwrap();
    assert_eq!(s.len_bytes(), 5 * PAGE as u64);
    drop(s);
    let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
    assert_eq!(s.take_recovered(), [a.concat(), b.concat()].concat());
    // The next session appends after the last complete batch.
    append_batch(&mut s, &c).unwrap();
    drop(s);
    let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
    assert_eq!(
        s.take_recovered(),
        [a.concat(), b.concat(), c.concat()].concat()
    );
    assert_eq!(content(&mut s, 2).unwrap().get(&0), Some(&page_of(1)));
    // A commit empties the log (its records are in the committed pages)
    // and frees its pages for reuse.
    let free_before = s.free.len();
    s.sync().unwrap();
    assert_eq!(s.len_bytes(), 0);
    assert!(
        s.free.len() >= free_before + 2 * 6,
        "the old epoch's pages are free"
    );
    drop(s);
    let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
    assert!(s.take_recovered().is_empty());
    // Opened without a log, a store's log is still read back, and its
    // next commit starts none.
    append_batch(&mut s, &b).unwrap();
    drop(s);
    let mut s = Shadow::mount(Box::new(disk.clone())).unwrap();
    assert!(s.commit_log().is_some(), "a log to replay");
    assert_eq!(s.take_recovered(), b.concat());
    s.sync().unwrap();
    assert!(s.commit_log().is_none());
}

/// Power cuts at every write of a run of batches, with the device's
/// unsynced writes torn and reordered (`device::fault`, rule 5), then more
/// batches from the next session and another cut: a remount always reads
/// the batches whose append returned, in order, and at most the one in
/// flight besides, whole; a dead batch's pages never chain onto a live
/// one.
#[test]
fn power_cuts_keep_whole_acknowledged_batches() {
    use crate::device::fault::{FaultPlan, FaultyDevice};
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    for scenario in 0..300u64 {
        let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 600)));
        let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
        s.sync().unwrap();
        let payload = s.payload_bytes();
        drop(s);
        let mut acked: Vec<u8> = Vec::new();
        let mut tag = scenario * 100;
        for _session in 0..3 {
            let plan = FaultPlan {
                power_cut_after: Some(rng.random_range(0..40)),
                tear_last: rng.random(),
                reorder_unsynced: true,
                seed: rng.random(),
                ..FaultPlan::default()
            };
            let faulty = FaultyDevice::new(disk.clone(), plan);
            let mut s = Shadow::mount_logged(Box::new(faulty), 1 << 20).unwrap();
            let found = s.take_recovered();
            assert!(
                found.starts_with(&acked),
                "scenario {scenario}: acknowledged batches lost"
            );
            acked = found;
            let in_flight = loop {
                tag += 1;
                let b = batch(tag, 1 + (tag % 3) as usize, payload);
                if append_batch(&mut s, &b).is_err() {
                    break b.concat();
                }
                acked.extend_from_slice(&b.concat());
            };
            drop(s);
            let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
            let found = s.take_recovered();
            let whole = [acked.clone(), in_flight].concat();
            assert!(
                found == acked || found == whole,
                "scenario {scenario}: {} bytes found, {} acknowledged",
                found.len(),
                acked.len()
            );
            acked = found;
        }
    }
}

/// Every log page beneath, damaged in any of several ways: the other copy
/// answers, so the remount reads every batch exactly.
#[test]
fn one_damaged_log_page_costs_nothing() {
    let disk = SharedDevice::new(Box::new(RamDisk::new(PAGE, 200)));
    let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
    s.write(0, 0, &page_of(9)).unwrap();
    s.sync().unwrap();
    let payload = s.payload_bytes();
    let batches: Vec<Vec<Vec<u8>>> = (0..4)
        .map(|t| batch(t, 1 + t as usize % 2, payload))
        .collect();
    for b in &batches {
        append_batch(&mut s, b).unwrap();
    }
    let pages: Vec<u64> = s.log.pages.clone();
    let want: Vec<u8> = batches.iter().flat_map(|b| b.concat()).collect();
    drop(s);
    let mut d = disk.clone();
    let mut neighbour = vec![0u8; PAGE];
    for &victim in &pages {
        let mut original = vec![0u8; PAGE];
        d.read(victim, 0, &mut original).unwrap();
        d.read(
            if victim > 2 { victim - 1 } else { victim + 1 },
            0,
            &mut neighbour,
        )
        .unwrap();
        let mut flipped = original.clone();
        flipped[PAGE / 2] ^= 0x10;
        for damage in [
            vec![0u8; PAGE],
            vec![0xff; PAGE],
            flipped,
            neighbour.clone(),
        ] {
            d.write(victim, 0, &damage).unwrap();
            let mut s = Shadow::mount_logged(Box::new(disk.clone()), 1 << 20).unwrap();
            assert_eq!(s.take_recovered(), want, "page {victim} damaged");
            drop(s);
            d.write(victim, 0, &original).unwrap();
        }
    }
}
