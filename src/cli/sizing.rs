//! Sizing the simulated device to the work, as the papers size theirs, and
//! preconditioning it, as SSD simulators do.
//!
//! A profile's default chip is 64 GiB of sparse storage: any workload fits,
//! but no block is ever reused, so no index erases a block or collects
//! garbage and write amplification is 1 everywhere, which hides the effect
//! the whole field is about. The papers put their indexes on chips a small
//! multiple of the index: the BFTL paper fills a 4 MB chip with an 868 KB
//! index and writes 14 MB through it (Wu et al. 2003 §4).
//!
//! So `run` and `compare`, on an FTL device, first run every index
//! configuration once on the chip as given (the sparse one unless
//! `--device-set blocks=N` or `capacity=BYTES` chose a size) and read the
//! device's logical footprint (pages up to the highest one written, final
//! flush included). Then one of two things:
//!
//! * **Preconditioning** (`--occupancy SHARE`; `compare`'s default, 0.8).
//!   Unless a size was chosen, the chip's logical capacity `C` is the
//!   largest footprint divided by the occupancy, plus [`HEADROOM_PAGES`],
//!   with over-provisioning on top. Before each index runs, cold valid
//!   data fills `occupancy × C` pages less that index's footprint, written
//!   sequentially at the top of the logical space, where the index cannot
//!   address it ([`crate::device::Preconditioned`]); the counts start after
//!   the fill. Every index thus runs on a chip `occupancy` full counting
//!   its own footprint, as MQSim's `Initial_Occupancy_Percentage` or a
//!   preconditioned SSD benchmark has it, and garbage collection has to
//!   copy pages: on `compare`'s default run without it, the B+-tree
//!   without a cache and the delta schemes erase blocks whose every page
//!   they had already rewritten, and copy none (write amplification 1).
//!   The cold data always leaves [`HEADROOM_PAGES`] free beside an index's
//!   footprint (and the commit layer's own pages, with `atomic=true`):
//!   on a small run, where the occupancy's share of the chip is less than
//!   that, an index gets less cold data than the occupancy asks.
//!   The cold data is then aged by random overwrites of itself, as a used
//!   device's data was rewritten at some point: its blocks hold stale
//!   pages among valid ones, the free space is scattered across them, and
//!   garbage collection copies cold pages as well as the index's. Written
//!   sequentially and left, the cold data would sit in blocks of its own,
//!   all valid, that greedy collection never picks, and only take free
//!   space away: write amplification 1.002–1.03 for the four indexes above
//!   on the default run, where the aged device gives them 1.13–1.80.
//! * **Fill** (`--occupancy none`, `run`'s default): the chip's logical
//!   capacity is the largest footprint divided by `--fill` (0.9), plus
//!   [`HEADROOM_PAGES`]; nothing else is on it. Only the index with the
//!   largest footprint runs on a nearly full chip.
//!
//! Every index of one comparison gets the same chip, as a user choosing an
//! index for one chip would have it, so an index that needs more space
//! pays for it in garbage collection. The sizing runs cost wall time only;
//! their counts are not reported.

use crate::device::profile::Target;
use crate::device::{logical_capacity, DeviceSpec, Storage, RESERVE_BLOCKS};
use crate::runner::RunOptions;

use super::args::{IndexArgs, WorkloadArgs};
use super::format::{bytes_text, group, wrap};
use super::job::run_config;
use super::{describe, CliResult};

/// Logical pages added to `footprint / fill` (or `/ occupancy`). A
/// footprint does not show the room an index reserves before it splits
/// (MB-Tree asks for up to 20 nodes of up to 8 pages): on a small workload
/// `/ fill` alone leaves less than that, and the index stops with `device
/// full`. In pages, not blocks, so that large-block chips (128-page MLC
/// blocks) are not padded with megabytes that hide garbage collection.
pub const HEADROOM_PAGES: u64 = 256;

/// The default `--occupancy` of `compare`.
pub const DEFAULT_OCCUPANCY: f64 = 0.8;

/// The default `--fill`.
pub const DEFAULT_FILL: f64 = 0.9;

/// How the chip's size was chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Capacity {
    /// The largest footprint fills this share of the logical capacity.
    Fill(f64),
    /// The largest footprint is the occupancy's share of it.
    AtOccupancy,
    /// The user chose it (`blocks=`, `capacity=`).
    Chosen,
}

/// How a device was sized to the work and preconditioned.
#[derive(Clone, Debug)]
pub struct Sizing {
    pub capacity: Capacity,
    /// The share of the logical space filled before each index runs, cold
    /// data and the index's footprint together; `None`: no cold data.
    pub occupancy: Option<f64>,
    /// Logical pages of the sized chip (what the cold data is a share of).
    pub capacity_pages: u64,
    /// Every configuration's footprint in logical pages, by label, in the
    /// order of the table.
    pub footprints: Vec<(String, u64)>,
    /// Logical pages a layer between the chip's FTL and the index keeps for
    /// itself (the commit layer's map and meta pages, with `atomic=true`):
    /// cold data leaves them free too.
    pub layer_pages: u64,
}

impl Sizing {
    /// The configuration with the largest footprint (the first of them,
    /// as the table lists them) and that footprint.
    pub fn largest(&self) -> (&str, u64) {
        self.footprints
            .iter()
            .rev()
            .max_by_key(|(_, p)| *p)
            .map_or(("", 0), |(l, p)| (l.as_str(), *p))
    }

    /// Pages of cold data written before `label` runs (module doc): none
    /// where its footprint alone reaches the occupancy, and never so many
    /// that fewer than [`HEADROOM_PAGES`] stay free beside the footprint.
    pub fn cold_pages(&self, label: &str) -> u64 {
        let Some(occupancy) = self.occupancy else {
            return 0;
        };
        let footprint = self
            .footprints
            .iter()
            .find(|(l, _)| l == label)
            .map_or(self.largest().1, |f| f.1);
        let at_occupancy = (occupancy * self.capacity_pages as f64).floor() as u64;
        at_occupancy.saturating_sub(footprint).min(
            self.capacity_pages
                .saturating_sub(footprint + HEADROOM_PAGES + self.layer_pages),
        )
    }

    /// Whether the headroom kept some index below the occupancy (a chip
    /// too small for the occupancy to leave [`HEADROOM_PAGES`] free).
    pub fn headroom_binds(&self) -> bool {
        self.occupancy.is_some_and(|o| {
            let at_occupancy = (o * self.capacity_pages as f64).floor() as u64;
            self.footprints
                .iter()
                .any(|(l, f)| *f < at_occupancy && self.cold_pages(l) + f < at_occupancy)
        })
    }

    /// The device `label` runs on: `spec` with its cold pages.
    pub fn spec_for(&self, spec: &DeviceSpec, label: &str) -> DeviceSpec {
        let mut s = spec.clone();
        s.cold_pages = self.cold_pages(label);
        s
    }
}

/// Checks a `--fill` value.
pub fn check_fill(fill: f64) -> CliResult<f64> {
    if fill.is_finite() && fill > 0.0 && fill <= 1.0 {
        Ok(fill)
    } else {
        Err(format!("--fill must be in (0, 1], got {fill}").into())
    }
}

/// Parses `--occupancy`: a share in (0, 1) such as `0.8`, a percentage
/// such as `80%`, or `none` (or 0): no preconditioning.
pub fn parse_occupancy(text: &str) -> CliResult<Option<f64>> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let share = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    }
    .map_err(|_| format!("--occupancy takes a share such as 0.8, 80% or none, got `{text}`"))?;
    if share == 0.0 {
        Ok(None)
    } else if share.is_finite() && share > 0.0 && share < 1.0 {
        Ok(Some(share))
    } else {
        Err(format!("--occupancy must be in (0, 1) (or none), got `{text}`").into())
    }
}

/// `--fill` and `--occupancy` together: both choose the chip's size, so at
/// most one of them may be given where preconditioning is on.
pub fn check_fit(fill: Option<f64>, occupancy: Option<f64>) -> CliResult<f64> {
    match (fill, occupancy) {
        (Some(_), Some(o)) => Err(format!(
            "--fill sizes a chip without cold data; with --occupancy {o} the chip is sized at the occupancy (give --occupancy none --fill F for the chip of --fill alone)"
        )
        .into()),
        (fill, _) => check_fill(fill.unwrap_or(DEFAULT_FILL)),
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

/// Whether `size_to_work` changes `spec`: an FTL device whose size was
/// not chosen, or that is preconditioned.
pub fn sizable(spec: &DeviceSpec, occupancy: Option<f64>) -> bool {
    spec.target == Target::Ftl && !(spec.explicit_size && occupancy.is_none())
}

/// The options of a sizing run of `cfg`.
pub fn sizing_options(cfg: &IndexArgs, memory: usize, flush_every: Option<u64>) -> RunOptions {
    RunOptions {
        quiet: true,
        final_flush: true,
        // Flushes move the footprint: over the commit layer each one
        // keeps the shadows of what changed since the previous.
        flush_every,
        index: describe(cfg),
        memory_budget: memory as u64,
        ..RunOptions::default()
    }
}

/// `spec` sized to the work of `configs` and the preconditioning of each
/// (module doc), or unchanged when [`sizable`] says so. With
/// `preload_reopen`, each sizing run goes in the two stages the run will
/// (`super::job`).
#[allow(clippy::too_many_arguments)]
pub fn size_to_work(
    spec: &DeviceSpec,
    configs: &[(String, IndexArgs)],
    workload: &WorkloadArgs,
    memory: usize,
    fill: f64,
    occupancy: Option<f64>,
    flush_every: Option<u64>,
    preload_reopen: bool,
) -> CliResult<(DeviceSpec, Option<Sizing>)> {
    if !sizable(spec, occupancy) {
        return Ok((spec.clone(), None));
    }
    let mut footprints = Vec::new();
    for (label, cfg) in configs {
        let options = sizing_options(cfg, memory, flush_every);
        let report = run_config(cfg, spec, memory, workload, options, preload_reopen)
            .map_err(|e| format!("{label} (sizing the device to the work): {e}"))?;
        let Some(pages) = report.device.footprint_pages else {
            return Ok((spec.clone(), None));
        };
        footprints.push((label.clone(), pages.max(1)));
    }
    sized_from(spec, footprints, fill, occupancy)
}

/// `spec` sized to the measured `footprints` (label, logical pages) and
/// the preconditioning of each (module doc).
pub fn sized_from(
    spec: &DeviceSpec,
    footprints: Vec<(String, u64)>,
    fill: f64,
    occupancy: Option<f64>,
) -> CliResult<(DeviceSpec, Option<Sizing>)> {
    if footprints.is_empty() {
        return Ok((spec.clone(), None));
    }
    let mut sized = spec.clone();
    let capacity = if spec.explicit_size {
        Capacity::Chosen
    } else {
        let share = occupancy.unwrap_or(fill);
        let footprint_pages = footprints.iter().map(|(_, p)| *p).max().unwrap_or(1);
        sized.geometry.blocks = blocks_for(
            spec,
            (footprint_pages as f64 / share).ceil() as u64 + HEADROOM_PAGES,
        );
        sized.explicit_size = true;
        match occupancy {
            Some(_) => Capacity::AtOccupancy,
            None => Capacity::Fill(fill),
        }
    };
    let capacity_pages = logical_capacity(&sized.geometry, &sized.ftl);
    let layer_pages = match (occupancy, sized.build()?) {
        (Some(_), Storage::Pages(d)) => capacity_pages.saturating_sub(d.capacity_pages()),
        _ => 0,
    };
    Ok((
        sized,
        Some(Sizing {
            capacity,
            occupancy,
            capacity_pages,
            footprints,
            layer_pages,
        }),
    ))
}

/// For an error on a sized device that ran out of room: how to get more.
pub fn full_hint(error: &dyn std::fmt::Display, sizing: Option<&Sizing>) -> String {
    if !error.to_string().contains("device full") {
        return String::new();
    }
    match sizing {
        Some(Sizing {
            occupancy: Some(o), ..
        }) => format!(
            " (the chip was preconditioned to --occupancy {o}: a lower --occupancy or \
             --device-set blocks=N gives more room)"
        ),
        Some(Sizing {
            capacity: Capacity::Fill(f),
            ..
        }) => format!(
            " (the device was sized to the work with --fill {f}: a lower --fill or \
             --device-set blocks=N gives more room)"
        ),
        _ => String::new(),
    }
}

/// The device lines of `run` and `compare`, wrapped to [`WIDTH`](super::format::WIDTH):
/// capacity, chip, over-provisioning, how the size was chosen and, where
/// the chip is preconditioned, the occupancy and how to change it.
pub fn device_line(spec: &DeviceSpec, capacity_pages: u64, sizing: Option<&Sizing>) -> String {
    let page = spec.geometry.page_size as u64;
    let capacity_pages = sizing.map_or(capacity_pages, |s| s.capacity_pages);
    let mut line = match &spec.target {
        Target::File(_) if spec.file_pages == 0 => format!(
            "device {}: a file with no size limit set (it grows as the index writes, to at most \
             {} of logical pages of {} B)",
            spec.name,
            bytes_text(capacity_pages * page),
            group(page)
        ),
        _ => format!(
            "device {}: {} logical ({} pages of {} B)",
            spec.name,
            bytes_text(capacity_pages * page),
            group(capacity_pages),
            group(page)
        ),
    };
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
    let Some(s) = sizing else {
        if spec.target == Target::Ftl && !spec.explicit_size {
            line.push_str(" (sparse: not sized to the work)");
        }
        return wrap(&line);
    };
    let (largest_label, footprint_pages) = s.largest();
    let largest = format!(
        "the largest footprint, {largest_label}'s {} ({} pages),",
        bytes_text(footprint_pages * page),
        group(footprint_pages)
    );
    match s.capacity {
        Capacity::Fill(fill) => line.push_str(&format!(
            "; sized to the work: {largest} fills {:.0}% of it (--fill {fill} and \
             {HEADROOM_PAGES} pages of headroom; --device-set blocks=N chooses the size)",
            100.0 * footprint_pages as f64 / capacity_pages.max(1) as f64,
        )),
        Capacity::AtOccupancy => line.push_str(&format!(
            "; sized to the work: {largest} at the occupancy below, plus {HEADROOM_PAGES} pages \
             of headroom (--device-set blocks=N chooses the size)"
        )),
        Capacity::Chosen => line.push_str(" (size chosen)"),
    }
    if let Some(o) = s.occupancy {
        let pct = 100.0 * o;
        let cold: Vec<u64> = s.footprints.iter().map(|(l, _)| s.cold_pages(l)).collect();
        let (min, max) = (
            cold.iter().min().copied().unwrap_or(0),
            cold.iter().max().copied().unwrap_or(0),
        );
        let range = if min == max {
            group(min)
        } else {
            format!("{} to {}", group(min), group(max))
        };
        line.push_str(&format!(
            "\noccupancy {pct:.0}%: before each index runs, cold data ({range} pages, at logical \
             pages the index does not address, then aged by random overwrites of itself) fills the chip \
             so that it and the index's footprint take {pct:.0}% of the logical space, as on a \
             device in use; counts exclude this preconditioning (--occupancy 0.9 fills more, \
             --occupancy none leaves the chip empty)"
        ));
        if s.headroom_binds() {
            line.push_str(&format!(
                "; on a chip this small each index keeps {} pages free beside its footprint, \
                 which leaves it less cold data",
                group(HEADROOM_PAGES + s.layer_pages)
            ));
        }
        if max > 0 && min == 0 {
            line.push_str(
                "; an index whose footprint alone reaches the occupancy gets no cold data",
            );
        }
    }
    wrap(&line)
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
    fn occupancy_is_a_share_a_percentage_or_none() {
        assert_eq!(parse_occupancy("0.8").unwrap(), Some(0.8));
        assert_eq!(parse_occupancy("80%").unwrap(), Some(0.8));
        assert_eq!(parse_occupancy("none").unwrap(), None);
        assert_eq!(parse_occupancy("0").unwrap(), None);
        for bad in ["1", "1.2", "-0.1", "lots", "NaN", "100%"] {
            assert!(parse_occupancy(bad).is_err(), "{bad}");
        }
        assert_eq!(check_fit(None, Some(0.8)).unwrap(), DEFAULT_FILL);
        assert_eq!(check_fit(Some(0.5), None).unwrap(), 0.5);
        assert!(check_fit(Some(0.5), Some(0.8)).is_err());
    }

    #[test]
    fn each_index_gets_the_cold_data_that_brings_it_to_the_occupancy() {
        let s = Sizing {
            capacity: Capacity::AtOccupancy,
            occupancy: Some(0.8),
            capacity_pages: 10_000,
            footprints: vec![("big".into(), 9_000), ("small".into(), 1_000)],
            layer_pages: 0,
        };
        assert_eq!(s.largest(), ("big", 9_000));
        assert_eq!(s.cold_pages("small"), 7_000);
        assert!(!s.headroom_binds());
        // Its footprint alone passes the occupancy: no cold data.
        assert_eq!(s.cold_pages("big"), 0);
        let spec = DeviceSpec::parse("slc-small", &[]).unwrap();
        assert_eq!(s.spec_for(&spec, "small").cold_pages, 7_000);
        // On a small chip the headroom beside the footprint comes first.
        let small = Sizing {
            capacity_pages: 500,
            footprints: vec![("small".into(), 100)],
            ..s.clone()
        };
        assert_eq!(small.cold_pages("small"), 500 - 100 - HEADROOM_PAGES);
        assert!(small.headroom_binds());
        // And the commit layer's own pages beside it.
        let layered = Sizing {
            layer_pages: 30,
            ..small.clone()
        };
        assert_eq!(layered.cold_pages("small"), 500 - 100 - HEADROOM_PAGES - 30);
        let none = Sizing {
            occupancy: None,
            ..s
        };
        assert_eq!(none.cold_pages("small"), 0);
    }
}
