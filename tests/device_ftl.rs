//! The FTL over the simulated chip: contents survive heavy overwrites at
//! high utilisation, garbage collection happens, a full device is an error,
//! and the mapping can be rebuilt from the spare areas.

use std::collections::HashMap;

use flashix::device::cost::CostModel;
use flashix::device::fault::{FaultPlan, FaultyFlash};
use flashix::device::{BlockDevice, DeviceError, Flash, Ftl, FtlConfig, GcPolicy, Geometry, Nand};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn chip(blocks: u64) -> Nand {
    let g = Geometry {
        page_size: 512,
        pages_per_block: 32,
        blocks,
        spare_size: 16,
        nop: 4,
        endurance: 100_000,
    };
    let mut cost = CostModel::FREE;
    cost.read_us = 348.0;
    cost.write_us = 909.0;
    cost.erase_us = 1881.0;
    cost.write_uj = 237.6;
    Nand::new("test", g, cost).unwrap()
}

fn page(lba: u64, version: u32) -> Vec<u8> {
    let mut p = vec![0u8; 512];
    p[0..8].copy_from_slice(&lba.to_le_bytes());
    p[8..12].copy_from_slice(&version.to_le_bytes());
    p[511] = (lba as u8) ^ (version as u8);
    p
}

fn overwrite_heavily(gc: GcPolicy) {
    let config = FtlConfig {
        overprovision: 0.0,
        gc,
    };
    let mut ftl = Ftl::new(chip(64), config).unwrap();
    let cap = ftl.capacity_pages();
    let live = cap * 95 / 100; // 95% of the logical space in use
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for lba in 0..live {
        ftl.write(lba, 0, &page(lba, 0)).unwrap();
        model.insert(lba, 0);
    }
    for _ in 0..20_000 {
        let lba = rng.random_range(0..live);
        let v = model[&lba] + 1;
        ftl.write(lba, 0, &page(lba, v)).unwrap();
        model.insert(lba, v);
    }
    let mut buf = vec![0u8; 512];
    for (&lba, &v) in &model {
        ftl.read(lba, 0, &mut buf).unwrap();
        assert_eq!(buf, page(lba, v), "lba {lba}");
    }
    let s = ftl.stats();
    assert!(
        s.write_amplification() > 1.0,
        "WA {}",
        s.write_amplification()
    );
    assert!(s.gc_copies > 0 && s.erases > 0);
    assert_eq!(s.physical_writes, s.logical_writes + s.gc_copies);
    let w = ftl.wear().unwrap();
    assert!(w.max >= 1 && w.mean > 0.0);
}

#[test]
fn greedy_gc_keeps_latest_contents_at_95_percent() {
    overwrite_heavily(GcPolicy::Greedy);
}

#[test]
fn cost_benefit_gc_keeps_latest_contents_at_95_percent() {
    overwrite_heavily(GcPolicy::CostBenefit);
}

#[test]
fn exact_costs_of_three_page_writes() {
    let mut ftl = Ftl::new(chip(8), FtlConfig::default()).unwrap();
    for lba in 0..3 {
        ftl.write(lba, 0, &page(lba, 1)).unwrap();
    }
    let s = ftl.stats();
    assert_eq!((s.logical_writes, s.physical_writes, s.erases), (3, 3, 0));
    assert!((s.time_us - 3.0 * 909.0).abs() < 1e-9);
    assert!((s.energy_uj - 3.0 * 237.6).abs() < 1e-9);
}

#[test]
fn a_full_device_is_an_error_not_a_hang() {
    let mut ftl = Ftl::new(
        chip(8),
        FtlConfig {
            overprovision: 0.0,
            gc: GcPolicy::Greedy,
        },
    )
    .unwrap();
    let cap = ftl.capacity_pages();
    for lba in 0..cap {
        ftl.write(lba, 0, &page(lba, 0)).unwrap();
    }
    assert!(matches!(
        ftl.write(cap, 0, &page(cap, 0)),
        Err(DeviceError::OutOfRange { .. })
    ));
    // At 100% logical utilisation overwrites still make progress.
    for i in 0..2_000u64 {
        ftl.write(i % cap, 0, &page(i % cap, 1)).unwrap();
    }
}

#[test]
fn partial_writes_trim_and_unmapped_reads() {
    let mut ftl = Ftl::new(chip(8), FtlConfig::default()).unwrap();
    let mut buf = vec![9u8; 512];
    ftl.read(5, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0));
    assert_eq!(ftl.stats().physical_reads, 0);
    ftl.write(5, 100, &[1, 2, 3]).unwrap();
    ftl.write(5, 0, &[7]).unwrap();
    ftl.read(5, 0, &mut buf).unwrap();
    assert_eq!(buf[0], 7);
    assert_eq!(&buf[100..103], &[1, 2, 3]);
    ftl.trim(5).unwrap();
    ftl.read(5, 0, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0));
    assert_eq!(ftl.mapped_pages(), 0);
}

#[test]
fn mount_rebuilds_the_mapping_from_spare_areas() {
    let mut ftl = Ftl::new(chip(16), FtlConfig::default()).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut model = HashMap::new();
    for i in 0..3_000u32 {
        let lba = rng.random_range(0..200u64);
        ftl.write(lba, 0, &page(lba, i)).unwrap();
        model.insert(lba, i);
    }
    let nand = ftl.into_flash();
    let mut again = Ftl::mount(nand, FtlConfig::default()).unwrap();
    let mut buf = vec![0u8; 512];
    for (&lba, &v) in &model {
        again.read(lba, 0, &mut buf).unwrap();
        assert_eq!(buf, page(lba, v));
    }
    assert_eq!(again.mapped_pages(), model.len() as u64);
    // And it keeps working.
    for i in 0..3_000u32 {
        let lba = rng.random_range(0..200u64);
        again.write(lba, 0, &page(lba, i)).unwrap();
    }
}

#[test]
fn power_cut_keeps_exactly_the_writes_before_it() {
    let plan = FaultPlan {
        power_cut_after: Some(10),
        ..FaultPlan::default()
    };
    let mut ftl = Ftl::new(FaultyFlash::new(chip(8), plan), FtlConfig::default()).unwrap();
    for lba in 0..10 {
        ftl.write(lba, 0, &page(lba, 1)).unwrap();
    }
    assert!(matches!(
        ftl.write(10, 0, &page(10, 1)),
        Err(DeviceError::PowerLost)
    ));
    assert!(matches!(
        ftl.write(11, 0, &page(11, 1)),
        Err(DeviceError::PowerLost)
    ));
    let nand = ftl.into_flash().into_inner();
    let mut again = Ftl::mount(nand, FtlConfig::default()).unwrap();
    let mut buf = vec![0u8; 512];
    for lba in 0..10 {
        again.read(lba, 0, &mut buf).unwrap();
        assert_eq!(buf, page(lba, 1));
    }
    again.read(10, 0, &mut buf).unwrap();
    assert!(
        buf.iter().all(|&b| b == 0),
        "nothing after the cut persists"
    );
}

#[test]
fn torn_write_leaves_half_a_page_and_flips_change_one_bit() {
    let plan = FaultPlan {
        power_cut_after: Some(1),
        tear_last: true,
        flip_read: Some((1, 13)),
        ..FaultPlan::default()
    };
    let mut f = FaultyFlash::new(chip(4), plan);
    f.program(0, 0, &[0xAA; 512]).unwrap();
    let mut buf = [0u8; 512];
    f.read(0, 0, &mut buf).unwrap();
    assert_eq!(buf[1], 0xAA ^ (1 << 5), "bit 13 flipped");
    assert_eq!(buf.iter().filter(|&&b| b != 0xAA).count(), 1);
    assert!(matches!(
        f.program(1, 0, &[0x55; 512]),
        Err(DeviceError::PowerLost)
    ));
    assert!(!f.powered());
    let mut nand = f.into_inner();
    nand.read(1, 0, &mut buf).unwrap();
    assert!(buf[..256].iter().all(|&b| b == 0x55));
    assert!(
        buf[256..].iter().all(|&b| b == 0xFF),
        "torn: second half never programmed"
    );
}
