//! How much of `flashix bench` the simulated device alone takes: the page
//! reads and writes of the bench's B+-tree pass, without the tree.
//!
//! `flashix bench` (10^6 random inserts, then a search of each, on `btree`
//! with 512-byte nodes over `Ftl<Nand slc-small>`) asks the device for
//! 3,495,090 page reads and 1,031,954 page writes: about 1.75 reads an
//! operation and a write an insert. This replays that mix on the same
//! device, on the ~24,500 pages the tree's 10^6 entries fill: each of
//! 2 × 10^6 operations reads a random page, a second one three times in
//! four, and each of the first 10^6 writes one (a sealed frame, as the
//! tree's pages are), then snapshots the counters as the runner does.
//! Beside it, the same reads and writes as plain copies within a `Vec` (the
//! memory traffic alone) and `BTreeMap` on the bench's operations, so the
//! three times can be read against each other on one machine.
//!
//! Run with `cargo bench --bench device_floor`. It times; it asserts
//! nothing (a rate depends on the machine).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use flashix::device::{DeviceSpec, Storage};

const OPS: u64 = 1_000_000;
const PAGES: u64 = 24_500;
const PAGE: usize = 512;

/// xorshift64: a fixed, cheap sequence, the same for every pass.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn per_op(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e9 / (2 * OPS) as f64
}

fn device_pass() -> Result<f64, Box<dyn std::error::Error>> {
    let spec = DeviceSpec::parse("slc-small", &[])?;
    let Storage::Pages(mut dev) = spec.build()? else {
        return Err("slc-small did not build a page device".into());
    };
    let mut page = vec![0u8; PAGE];
    for lba in 0..PAGES {
        page[0] = lba as u8;
        dev.write_sealed(lba, &page)?;
    }
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let mut sum = 0u64;
    let start = Instant::now();
    for i in 0..2 * OPS {
        let r = rng.next();
        let lba = r % PAGES;
        dev.read_sealed(lba, &mut page)?;
        sum += page[7] as u64;
        if r >> 62 != 0 {
            dev.read_sealed((r >> 20) % PAGES, &mut page)?;
            sum += page[9] as u64;
        }
        if i < OPS {
            page[3] = r as u8;
            dev.write_sealed(lba, &page)?;
        }
        sum += dev.stats().logical_reads & 1;
    }
    black_box(sum);
    Ok(per_op(start))
}

fn copy_pass() -> f64 {
    // Twice the pages: a write goes to the next slot, as out of place.
    let slots = 2 * PAGES as usize;
    let mut slab = vec![0xFFu8; slots * PAGE];
    let mut page = vec![0u8; PAGE];
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let (mut next, mut sum) = (0usize, 0u64);
    let start = Instant::now();
    for i in 0..2 * OPS {
        let r = rng.next();
        let a = (r % PAGES) as usize * PAGE;
        page.copy_from_slice(&slab[a..a + PAGE]);
        sum += page[7] as u64;
        if r >> 62 != 0 {
            let b = ((r >> 20) % PAGES) as usize * PAGE;
            page.copy_from_slice(&slab[b..b + PAGE]);
            sum += page[9] as u64;
        }
        if i < OPS {
            next = (next + 1) % slots;
            slab[next * PAGE..(next + 1) * PAGE].copy_from_slice(&page);
        }
    }
    black_box(sum);
    per_op(start)
}

fn map_pass() -> f64 {
    let mut rng = Xorshift(0x2545_F491_4F6C_DD1D);
    let keys: Vec<u64> = (0..OPS).map(|_| rng.next() as u32 as u64).collect();
    let start = Instant::now();
    let mut map = BTreeMap::new();
    for &k in &keys {
        map.insert(k, k);
    }
    let mut sum = 0u64;
    for k in &keys {
        sum += map.get(k).copied().unwrap_or(0) & 1;
    }
    black_box(sum);
    per_op(start)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("device_floor: flashix bench's page reads and writes, per operation (2 x 10^6)");
    println!("  Ftl<Nand slc-small> alone   {:>6.0} ns", device_pass()?);
    println!("  the same copies in a Vec    {:>6.0} ns", copy_pass());
    println!("  BTreeMap, the bench's ops   {:>6.0} ns", map_pass());
    Ok(())
}
