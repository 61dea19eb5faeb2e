//! Damage testing: damage one page of a flushed index image at a time and
//! check rule 3 of the durability contract (`docs/FORMAT.md`): a damaged,
//! zeroed, truncated, misplaced or stale page is `Corrupt` whenever it is
//! read, never a wrong answer.
//!
//! The image: a seeded workload (as [`super::crash::workload`], a map's
//! with `versions=key`: `runner::versions`) is run and
//! flushed twice, once half-way (the *earlier* image, kept page by page for
//! the stale-page damage) and once at the end. Then, for every page the
//! index ever wrote (the device's logical footprint) and every kind of
//! damage, on a copy of the final image:
//!
//! | kind | the page becomes |
//! |---|---|
//! | `zero` | all zeros |
//! | `ff` | all 0xFF (erased flash) |
//! | `trim` | trimmed: unmapped, so it reads as never written |
//! | `swap` | the content of the next page of the footprint (a misplaced write) |
//! | `stale` | its content at the earlier flush (a lost write), if it differed |
//! | `random` | seeded random bytes |
//!
//! On a file, the image is built at its path and every damaged copy is
//! written to a scratch file beside it ([`scratch_path`], removed after):
//! the image itself is never damaged.
//!
//! The index is reopened and asked for everything: a full range scan and a
//! lookup of every key the oracle holds. Verdicts: `exact` (every answer
//! right), `detected` (the reopen or some answer is `Corrupt`, or another
//! error), `wrong` (an answer differs and nothing said so), `panicked`.
//! Only `wrong` and `panicked` break the contract.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::crash::{atomic, panic_message, params, workload, CrashConfig, CrashOp};
use crate::device::fault::SharedDevice;
use crate::device::profile::Target;
use crate::device::{BlockDevice, DeviceSpec, Storage};
use crate::index::Index;
use crate::store::{create_index, open_index};

/// The kinds of damage, in report order.
pub const KINDS: [&str; 6] = ["zero", "ff", "trim", "swap", "stale", "random"];

/// What one damaged image answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Exact,
    Detected,
    Wrong(String),
    Panicked(String),
}

/// Counts per damage kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindCounts {
    pub exact: u64,
    pub detected: u64,
    pub wrong: u64,
    pub panics: u64,
}

/// A damage test's findings.
#[derive(Clone, Debug, Default)]
pub struct DamageSummary {
    /// Pages of the footprint damaged.
    pub pages: u64,
    /// Per kind, in [`KINDS`] order.
    pub kinds: Vec<(String, KindCounts)>,
    pub examples: Vec<String>,
}

impl DamageSummary {
    pub fn failures(&self) -> u64 {
        self.kinds.iter().map(|(_, k)| k.wrong + k.panics).sum()
    }
}

/// Where the damaged copies of an image at `path` are written.
pub fn scratch_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".damaged");
    p.into()
}

/// The device each damaged copy is written to: the test's own, or for a
/// file the scratch file beside it, removed when this is dropped.
struct Copies(DeviceSpec);

impl Copies {
    fn of(device: &DeviceSpec) -> Copies {
        let mut spec = device.clone();
        if let Target::File(path) = &device.target {
            spec.target = Target::File(scratch_path(path));
        }
        Copies(spec)
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        if let Target::File(path) = &self.0.target {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Every page below `footprint`, read whole.
fn pages_of(dev: &mut dyn BlockDevice, footprint: u64) -> Result<Vec<Vec<u8>>, String> {
    (0..footprint)
        .map(|p| {
            let mut buf = vec![0u8; dev.page_size()];
            dev.read(p, 0, &mut buf).map_err(|e| e.to_string())?;
            Ok(buf)
        })
        .collect()
}

/// Flushes `index` and reads back every page of the device's footprint
/// (beneath the commit layer, through `beneath`).
fn flushed_image(
    mut index: Box<dyn Index>,
    beneath: &SharedDevice,
) -> Result<(Storage, Vec<Vec<u8>>), String> {
    index.flush().map_err(|e| e.to_string())?;
    let storage = index.into_storage();
    let mut dev = beneath.clone();
    let footprint = dev
        .info()
        .footprint_pages
        .ok_or("the device does not report its footprint (use an FTL profile)")?;
    let image = pages_of(&mut dev, footprint)?;
    Ok((storage, image))
}

/// Asks the reopened index for everything the oracle holds.
fn ask(index: &mut dyn Index, oracle: &BTreeSet<(u64, u64)>) -> Answer {
    let mut entries = Vec::new();
    if index.range(0, u64::MAX, &mut entries).is_err() {
        return Answer::Detected;
    }
    let want: Vec<(u64, u64)> = oracle.iter().copied().collect();
    if entries != want {
        return Answer::Wrong(format!(
            "full scan: {} entries, {} expected",
            entries.len(),
            want.len()
        ));
    }
    let keys: BTreeSet<u64> = oracle.iter().map(|e| e.0).collect();
    let mut values = Vec::new();
    for k in keys {
        if index.get(k, &mut values).is_err() {
            return Answer::Detected;
        }
        let want: Vec<u64> = oracle.range((k, 0)..=(k, u64::MAX)).map(|e| e.1).collect();
        if values != want {
            return Answer::Wrong(format!("key {k}: {values:?}, expected {want:?}"));
        }
    }
    Answer::Exact
}

/// Runs the damage test (module doc) on `c`'s index and device. The device
/// must be a logical-page one (an FTL or a file).
pub fn damage_test(c: &CrashConfig) -> Result<DamageSummary, String> {
    c.check()?;
    let Storage::Pages(dev) = c.device.make_plain(false).map_err(|e| e.to_string())? else {
        return Err("damage tests work on logical pages: use an FTL profile or file:PATH".into());
    };
    let beneath = SharedDevice::new(dev);
    let storage = atomic(c, Storage::Pages(Box::new(beneath.clone())))?;
    let mut index =
        create_index(&c.index, storage, c.memory, params(c)?).map_err(|e| e.to_string())?;
    let ops: Vec<CrashOp> = workload(c)
        .into_iter()
        .filter(|o| *o != CrashOp::Flush)
        .collect();
    let mut oracle = BTreeSet::new();
    let half = ops.len() / 2;
    for op in &ops[..half] {
        op.run_on(index.as_mut()).map_err(|e| e.to_string())?;
        op.apply(&mut oracle);
    }
    let (storage, earlier) = flushed_image(index, &beneath)?;
    let mut index =
        open_index(&c.index, storage, c.memory, params(c)?).map_err(|e| e.to_string())?;
    for op in &ops[half..] {
        op.run_on(index.as_mut()).map_err(|e| e.to_string())?;
        op.apply(&mut oracle);
    }
    let (storage, image) = flushed_image(index, &beneath)?;
    // A file is locked while any handle is open.
    drop(storage);
    drop(beneath);
    let footprint = image.len() as u64;
    let mut summary = DamageSummary {
        pages: footprint,
        kinds: KINDS
            .iter()
            .map(|k| (k.to_string(), KindCounts::default()))
            .collect(),
        examples: Vec::new(),
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.seed ^ 0x5eed);
    let copies = Copies::of(&c.device);
    for page in 0..footprint {
        for (kind_at, kind) in KINDS.iter().enumerate() {
            let size = image[page as usize].len();
            let damage: Option<Vec<u8>> = match *kind {
                "zero" => Some(vec![0u8; size]),
                "ff" => Some(vec![0xFFu8; size]),
                "trim" => None,
                "swap" => Some(image[((page + 1) % footprint) as usize].clone()),
                "stale" => match earlier.get(page as usize) {
                    Some(old) if *old != image[page as usize] => Some(old.clone()),
                    _ => continue,
                },
                _ => Some((0..size).map(|_| rng.random::<u8>()).collect()),
            };
            if damage.as_deref() == Some(&image[page as usize][..]) {
                continue;
            }
            let answer = damaged(c, &copies.0, &image, page, damage.as_deref(), &oracle)?;
            let counts = &mut summary.kinds[kind_at].1;
            let detail = match answer {
                Answer::Exact => {
                    counts.exact += 1;
                    continue;
                }
                Answer::Detected => {
                    counts.detected += 1;
                    continue;
                }
                Answer::Wrong(d) => {
                    counts.wrong += 1;
                    format!("wrong: {d}")
                }
                Answer::Panicked(d) => {
                    counts.panics += 1;
                    format!("panic: {d}")
                }
            };
            if summary.examples.len() < 3 {
                summary
                    .examples
                    .push(format!("page {page} {kind}: {detail}"));
            }
        }
    }
    Ok(summary)
}

/// A fresh device of `copy` holding `image` with page `page` damaged
/// (`None`: trimmed), reopened and asked for everything.
fn damaged(
    c: &CrashConfig,
    copy: &DeviceSpec,
    image: &[Vec<u8>],
    page: u64,
    damage: Option<&[u8]>,
    oracle: &BTreeSet<(u64, u64)>,
) -> Result<Answer, String> {
    let run = || -> Result<Answer, String> {
        let Storage::Pages(mut dev) = copy.make_plain(false).map_err(|e| e.to_string())? else {
            return Err("not a logical-page device".into());
        };
        for (p, bytes) in image.iter().enumerate() {
            let p = p as u64;
            match (p == page, damage) {
                (true, None) => {}
                (true, Some(d)) => dev.write(p, 0, d).map_err(|e| e.to_string())?,
                // Pages never written stay unwritten, as in the image, but
                // the last is written (zeros), so that the copy has the
                // image's length: a file shorter than its log names is a
                // cut file (`device::shadow`'s log), which is damage.
                (false, _) if bytes.iter().all(|&b| b == 0) && p + 1 < image.len() as u64 => {}
                (false, _) => dev.write(p, 0, bytes).map_err(|e| e.to_string())?,
            }
        }
        let storage = match atomic(c, Storage::Pages(dev)) {
            Ok(s) => s,
            Err(_) => return Ok(Answer::Detected),
        };
        let mut index = match open_index(&c.index, storage, c.memory, params(c)?) {
            Ok(i) => i,
            Err(_) => return Ok(Answer::Detected),
        };
        Ok(ask(index.as_mut(), oracle))
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(r) => r,
        Err(p) => Ok(Answer::Panicked(panic_message(p.as_ref()))),
    }
}
