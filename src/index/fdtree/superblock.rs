//! The FD-tree's superblock at page 0: its parameters and where each run
//! lies. A page frame of kind [`PageKind::Superblock`] whose payload is
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `FDT1` |
//! | 4 | key bytes |
//! | 5 | value bytes |
//! | 6 | flags: bit 0 = versions of keys (`versions=key`; 0: pairs) |
//! | 7 | reserved (0) |
//! | 8..12 | run page size, `page_bytes` (`u32`; a multiple of the device's page) |
//! | 12..20 | k (`u64`) |
//! | 20..28 | head capacity in entries (`u64`) |
//! | 28..36 | allocation high-water mark, an LBA (`u64`) |
//! | 36..68 | the head's run: start, pages, entries, pairs (`u64` each) |
//! | 68..72 | levels below the head (`u32`) |
//! | 72.. | each level's run, 32 bytes as the head's |

use crate::device::{BlockDevice, Storage};
use crate::index::kinds::reopen::{agree, agree_versions, mismatch};
use crate::index::{EntryFormat, IndexError, Params};
use crate::node::page::{self, PageKind, FRAME_HEADER};

use super::run::{entry_bytes, RunMeta};

pub(crate) const MAGIC: &[u8; 4] = b"FDT1";
const FIXED: usize = 72;
const RUN: usize = 32;

/// What the superblock records.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Superblock {
    pub format: EntryFormat,
    pub page_size: u32,
    pub k: u64,
    pub head_capacity: u64,
    /// `versions=key` (`FdTree` module doc, "Versions of keys").
    pub versions_by_key: bool,
    pub high_water: u64,
    pub head: RunMeta,
    pub levels: Vec<RunMeta>,
}

fn put_run(out: &mut [u8], r: &RunMeta) {
    for (i, v) in [r.start, r.pages, r.entries, r.pairs]
        .into_iter()
        .enumerate()
    {
        out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
}

fn get_run(b: &[u8]) -> RunMeta {
    let u = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i * 8..i * 8 + 8]);
        u64::from_le_bytes(w)
    };
    RunMeta {
        start: u(0),
        pages: u(1),
        entries: u(2),
        pairs: u(3),
    }
}

/// Writes `sb` at page 0.
pub(super) fn write(
    dev: &mut dyn BlockDevice,
    sb: &Superblock,
    page_size: usize,
) -> Result<(), IndexError> {
    let len = FIXED + RUN * sb.levels.len();
    if FRAME_HEADER + len > page_size {
        return Err(IndexError::Config(format!(
            "{} FD-tree levels do not fit a {page_size}-byte superblock: raise k or head_bytes",
            sb.levels.len() + 1
        )));
    }
    let mut buf = vec![0u8; page_size];
    let p = &mut buf[FRAME_HEADER..];
    p[0..4].copy_from_slice(MAGIC);
    p[4] = sb.format.key_bytes;
    p[5] = sb.format.value_bytes;
    p[6] = u8::from(sb.versions_by_key);
    p[8..12].copy_from_slice(&sb.page_size.to_le_bytes());
    p[12..20].copy_from_slice(&sb.k.to_le_bytes());
    p[20..28].copy_from_slice(&sb.head_capacity.to_le_bytes());
    p[28..36].copy_from_slice(&sb.high_water.to_le_bytes());
    put_run(&mut p[36..68], &sb.head);
    p[68..72].copy_from_slice(&(sb.levels.len() as u32).to_le_bytes());
    for (i, r) in sb.levels.iter().enumerate() {
        put_run(&mut p[FIXED + i * RUN..FIXED + (i + 1) * RUN], r);
    }
    page::seal(&mut buf, PageKind::Superblock, len);
    dev.write(0, 0, &buf)?;
    Ok(())
}

/// Reads the superblock at page 0.
pub(super) fn read(storage: &mut Storage) -> Result<Superblock, IndexError> {
    let Storage::Pages(dev) = storage else {
        return Err(IndexError::Config(
            "the FD-tree writes runs of logical pages, not raw: chips".into(),
        ));
    };
    let mut buf = vec![0u8; dev.page_size()];
    dev.read(0, 0, &mut buf)?;
    let corrupt = |detail: &str| IndexError::Corrupt {
        page: 0,
        detail: format!("FD-tree superblock: {detail}"),
    };
    let p = page::open(&buf, PageKind::Superblock, 0)?
        .ok_or_else(|| IndexError::NoIndex("no FD-tree superblock at page 0".into()))?;
    if p.len() < FIXED || &p[0..4] != MAGIC {
        return Err(IndexError::NoIndex(
            "page 0 holds no FD-tree superblock".into(),
        ));
    }
    let u64_at = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&p[i..i + 8]);
        u64::from_le_bytes(w)
    };
    let n = u32::from_le_bytes([p[68], p[69], p[70], p[71]]) as usize;
    if p.len() < FIXED + n * RUN {
        return Err(corrupt("more levels than its payload holds"));
    }
    let format = EntryFormat::new(p[4], p[5]).map_err(|_| corrupt("bad entry widths"))?;
    if p[6] > 1 {
        return Err(corrupt(&format!("unknown flags {:#04x}", p[6])));
    }
    Ok(Superblock {
        format,
        versions_by_key: p[6] == 1,
        page_size: u32::from_le_bytes([p[8], p[9], p[10], p[11]]),
        k: u64_at(12),
        head_capacity: u64_at(20),
        high_water: u64_at(28),
        head: get_run(&p[36..68]),
        levels: (0..n)
            .map(|i| get_run(&p[FIXED + i * RUN..FIXED + (i + 1) * RUN]))
            .collect(),
    })
}

impl Superblock {
    /// Reconciles `params` with the image: given values must agree, absent
    /// ones are taken from it.
    pub(super) fn agree(&self, params: &mut Params) -> Result<(), IndexError> {
        agree(params, "key_bytes", self.format.key_bytes as u64)?;
        agree(params, "value_bytes", self.format.value_bytes as u64)?;
        agree(params, "k", self.k)?;
        agree(params, "page_bytes", self.page_size as u64)?;
        agree_versions(params, self.versions_by_key)?;
        let head_bytes = self.head_capacity * entry_bytes(self.format) as u64;
        match params.get_opt::<u64>("head_bytes")? {
            Some(given) if given / entry_bytes(self.format) as u64 != self.head_capacity => {
                return Err(mismatch("head_bytes", head_bytes, given))
            }
            Some(_) => {}
            None => params.set("head_bytes", &head_bytes.to_string()),
        }
        Ok(())
    }

    /// Checks that every run (of run pages `span` device pages long) lies
    /// inside a device of `capacity` pages.
    pub(super) fn check(&self, capacity: u64, span: u64) -> Result<(), IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt {
            page: 0,
            detail: format!("FD-tree superblock: {detail}"),
        };
        if self.high_water > capacity {
            return Err(corrupt(format!(
                "high-water mark {} past the device's {capacity} pages",
                self.high_water
            )));
        }
        for r in std::iter::once(&self.head).chain(&self.levels) {
            let end = r
                .pages
                .checked_mul(span)
                .and_then(|n| r.start.checked_add(n));
            if r.pages > 0 && (r.start == 0 || end.is_none_or(|e| e > self.high_water)) {
                return Err(corrupt(format!(
                    "a run of {} pages at page {} outside 1..{}",
                    r.pages, r.start, self.high_water
                )));
            }
            if r.pairs > r.entries {
                return Err(corrupt("a run with more pairs than entries".into()));
            }
        }
        Ok(())
    }
}
