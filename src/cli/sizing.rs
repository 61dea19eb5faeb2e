//! Sizing the simulated device to the work, as the papers size theirs.
//!
//! A profile's default chip is 64 GiB of sparse storage: any workload fits,
//! but no block is ever reused, so no index erases a block or collects
//! garbage and write amplification is 1 everywhere, which hides the effect
//! the whole field is about. The papers put their indexes on chips a small
//! multiple of the index: the BFTL paper fills a 4 MB chip with an 868 KB
//! index and writes 14 MB through it (`bftl.md` §4).
//!
//! So `run` and `compare`, on an FTL device whose size the user did not set
//! (`--device-set blocks=N` or `capacity=BYTES` set it), first run every
//! index configuration once on the sparse chip and read the device's
//! logical footprint (pages up to the highest one written, final flush
//! included), then give the measured runs a chip whose logical capacity is
//! the largest footprint divided by `--fill`, plus 256 pages of headroom
//! for the nodes an index reserves before a split, with over-provisioning
//! on top.
//! Every index of one comparison gets the same device, as a user choosing
//! an index for one chip would have it, so an index that needs more space
//! pays for it in garbage collection.
//!
//! `--fill` is 0.9 by default: a chip in use runs nearly full (SSD
//! benchmarks precondition by filling the device for the same reason).
//! Smaller fills hide garbage collection from all but the largest index: on
//! `compare`'s default run, at 0.5 the B+-tree (a third of BFTL's
//! footprint) copies no page at all and the delta schemes none either; at
//! 0.9 every index but MB-Tree copies some. The sizing runs cost wall time
//! only; their counts are not reported.

use crate::device::profile::Target;
use crate::device::{logical_capacity, DeviceSpec, RESERVE_BLOCKS};
use crate::runner::RunOptions;

use super::args::{IndexArgs, WorkloadArgs};
use super::{build_index, describe, execute, CliResult};

/// Logical pages added to `footprint / fill`. A footprint does not show the
/// room an index reserves before it splits (MB-Tree asks for up to 20 nodes
/// of up to 8 pages): on a small workload `/ fill` alone leaves less than
/// that, and the index stops with `device full`. In pages, not blocks, so
/// that large-block chips (128-page MLC blocks) are not padded with
/// megabytes that hide garbage collection.
const HEADROOM_PAGES: u64 = 256;

/// How a device was sized to the work.
#[derive(Clone, Debug)]
pub struct Sizing {
    /// The share of the logical capacity the largest footprint fills.
    pub fill: f64,
    /// The configuration with the largest footprint.
    pub largest: String,
    /// Its footprint in logical pages.
    pub footprint_pages: u64,
}

/// Checks a `--fill` value.
pub fn check_fill(fill: f64) -> CliResult<f64> {
    if fill.is_finite() && fill > 0.0 && fill <= 1.0 {
        Ok(fill)
    } else {
        Err(format!("--fill must be in (0, 1], got {fill}").into())
    }
}

/// Chip blocks whose FTL offers at least `pages` logical pages.
pub fn blocks_for(spec: &DeviceSpec, pages: u64) -> u64 {
    let per_block = spec.geometry.pages_per_block as f64 * (1.0 - spec.ftl.overprovision);
    let mut g = spec.geometry;
    g.blocks = (pages as f64 / per_block).ceil() as u64 + RESERVE_BLOCKS + 1;
    // Rounding of the over-provisioned share can leave a page short.
    while logical_capacity(&g, &spec.ftl) < pages {
        g.blocks += 1;
    }
    g.blocks
}

/// `spec` sized to the work of `configs` (module doc), or unchanged when it
/// is not an FTL device or its size was chosen.
pub fn size_to_work(
    spec: &DeviceSpec,
    configs: &[(String, IndexArgs)],
    workload: &WorkloadArgs,
    memory: usize,
    fill: f64,
    flush_every: Option<u64>,
) -> CliResult<(DeviceSpec, Option<Sizing>)> {
    if spec.target != Target::Ftl || spec.explicit_size {
        return Ok((spec.clone(), None));
    }
    let mut largest: Option<(u64, &str)> = None;
    for (label, cfg) in configs {
        let mut index = build_index(cfg, spec, memory, false)?;
        let options = RunOptions {
            quiet: true,
            final_flush: true,
            // Flushes move the footprint: over the commit layer each one
            // keeps the shadows of what changed since the previous.
            flush_every,
            index: describe(cfg),
            memory_budget: memory as u64,
            ..RunOptions::default()
        };
        let report = execute(index.as_mut(), workload, options, None)
            .map_err(|e| format!("{label} (sizing the device to the work): {e}"))?;
        let Some(pages) = report.device.footprint_pages else {
            return Ok((spec.clone(), None));
        };
        if largest.is_none_or(|(p, _)| pages > p) {
            largest = Some((pages, label));
        }
    }
    let Some((footprint_pages, label)) = largest else {
        return Ok((spec.clone(), None));
    };
    let footprint_pages = footprint_pages.max(1);
    let mut sized = spec.clone();
    sized.geometry.blocks = blocks_for(
        spec,
        (footprint_pages as f64 / fill).ceil() as u64 + HEADROOM_PAGES,
    );
    sized.explicit_size = true;
    Ok((
        sized,
        Some(Sizing {
            fill,
            largest: label.to_string(),
            footprint_pages,
        }),
    ))
}

/// For an error on a sized device that ran out of room: how to get more.
pub fn full_hint(error: &dyn std::fmt::Display, sizing: Option<&Sizing>) -> String {
    match sizing {
        Some(s) if error.to_string().contains("device full") => format!(
            " (the device was sized to the work with --fill {}: a lower --fill or \
             --device-set blocks=N gives more room)",
            s.fill
        ),
        _ => String::new(),
    }
}

/// Bytes as KiB or MiB, for header lines.
pub fn bytes_text(bytes: u64) -> String {
    if bytes >= 10 << 20 {
        format!("{:.1} MiB", bytes as f64 / 1048576.0)
    } else {
        format!("{} KiB", group(bytes.div_ceil(1024)))
    }
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The device line of `run` and `compare`: capacity, chip, over-provisioning
/// and, when sized, the fill.
pub fn device_line(spec: &DeviceSpec, capacity_pages: u64, sizing: Option<&Sizing>) -> String {
    let page = spec.geometry.page_size as u64;
    let mut line = format!(
        "device {}: {} logical ({} pages of {} B)",
        spec.name,
        bytes_text(capacity_pages * page),
        group(capacity_pages),
        page
    );
    if spec.target == Target::Ftl {
        let block = page * spec.geometry.pages_per_block as u64;
        line.push_str(&format!(
            " on a chip of {} blocks of {} ({}), {:.0}% over-provisioning",
            group(spec.geometry.blocks),
            bytes_text(block),
            bytes_text(block * spec.geometry.blocks),
            spec.ftl.overprovision * 100.0
        ));
    }
    match sizing {
        Some(s) => line.push_str(&format!(
            "; sized to the work: the largest footprint, {}'s {} ({} pages), fills {:.0}% of it \
             (--fill {} and {HEADROOM_PAGES} pages of headroom; --device-set blocks=N chooses \
             the size)",
            s.largest,
            bytes_text(s.footprint_pages * page),
            group(s.footprint_pages),
            100.0 * s.footprint_pages as f64 / capacity_pages.max(1) as f64,
            s.fill
        )),
        None if spec.target == Target::Ftl && !spec.explicit_size => {
            line.push_str(" (sparse: not sized to the work)")
        }
        None => {}
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_for_gives_at_least_the_pages_asked_and_no_block_more() {
        for (profile, op) in [("slc-small", "0.07"), ("mlc", "0.25"), ("slc-large", "0")] {
            let spec = DeviceSpec::parse(profile, &[("overprovision".into(), op.into())]).unwrap();
            for pages in [1u64, 31, 32, 33, 1000, 6_597, 123_457] {
                let blocks = blocks_for(&spec, pages);
                let mut g = spec.geometry;
                g.blocks = blocks;
                assert!(logical_capacity(&g, &spec.ftl) >= pages);
                g.blocks = blocks - 1;
                assert!(
                    logical_capacity(&g, &spec.ftl) < pages,
                    "{profile} {pages}: one block fewer would do"
                );
            }
        }
    }

    #[test]
    fn fill_must_be_a_share() {
        assert!(check_fill(0.5).is_ok() && check_fill(1.0).is_ok());
        for bad in [0.0, -0.5, 1.5, f64::NAN] {
            assert!(check_fill(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(bytes_text(1024), "1 KiB");
        assert_eq!(bytes_text(20 << 20), "20.0 MiB");
    }
}
