//! The LSM-tree's superblock at page 0 and the state it points at: its
//! parameters in the superblock, and the trees, components and merge
//! cursors in a *state record* written at each flush to fresh pages (it
//! grows with the trees a long rolling merge leaves behind, so it is not
//! bounded by one page).
//!
//! Superblock payload (page frame of kind `Superblock`):
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `LSM1` |
//! | 4, 5 | key bytes, value bytes |
//! | 6 | flags: bit 0 = versions of keys (`versions=key`; 0: pairs) |
//! | 7 | reserved (0) |
//! | 8..12 | run page size, `page_bytes` (`u32`) |
//! | 12..20 | ratio (`u64`) |
//! | 20..28 | C0 capacity in entries (`u64`) |
//! | 28..36 | allocation high-water mark, an LBA (`u64`) |
//! | 36..44 | first LBA of the state record (`u64`) |
//! | 44..52 | its length in bytes (`u64`) |
//!
//! State record pages: page frames of kind `Superblock` whose payload is
//! `LSMS`, the page's index in the record (`u32`), then up to a page of the
//! record's bytes. The record (all integers little-endian):
//! `u32` trees, each `id u32, leaf_start, leaves, dir_start, dirs u64,
//! root_height u8 (0xFF: none), root u64, entries u64`; the C0 snapshot's
//! tree id (`u32`, `u32::MAX`: none); `u32` components C1.., each
//! `entries u64, pass u8, cursor (flag u8, key u64, value u64), u32
//! segments, each (tree u32, low flag u8, low key, low value, high key,
//! high value)`.

use crate::device::{BlockDevice, Storage};
use crate::index::kinds::reopen::{agree, agree_versions, mismatch};
use crate::index::runs::page::entry_bytes;
use crate::index::{EntryFormat, IndexError, Params, Result};
use crate::node::page::{self, PageKind, FRAME_HEADER};

use super::tree::{Pair, Tree};

pub(crate) const MAGIC: &[u8; 4] = b"LSM1";
const STATE_MAGIC: &[u8; 4] = b"LSMS";
const FIXED: usize = 52;
const STATE_HEADER: usize = 8;

/// What page 0 records.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Superblock {
    pub format: EntryFormat,
    pub page_size: u32,
    pub ratio: u64,
    pub c0_capacity: u64,
    /// `versions=key` (`LsmTree` module doc, "Versions of keys").
    pub versions_by_key: bool,
    pub high_water: u64,
    pub state_start: u64,
    pub state_len: u64,
}

/// A key range of one tree that a component owns: pairs in `(low, high]`
/// (`low = None`: from the first pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub tree: u32,
    pub low: Option<Pair>,
    pub high: Pair,
}

/// A component's persistent state.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct ComponentState {
    pub entries: u64,
    /// A rolling merge into this component is under way, at `cursor`.
    pub pass: bool,
    pub cursor: Option<Pair>,
    pub segments: Vec<Segment>,
}

/// A sealed tree as the state record names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TreeState {
    pub id: u32,
    pub leaf_start: u64,
    pub leaves: u64,
    pub dir_start: u64,
    pub dirs: u64,
    pub root: Option<(u8, u64)>,
    pub entries: u64,
}

impl TreeState {
    pub(super) fn of(id: u32, t: &Tree) -> TreeState {
        TreeState {
            id,
            leaf_start: t.leaf_start,
            leaves: t.leaves,
            dir_start: t.dir_start,
            dirs: t.dirs,
            root: t.root,
            entries: t.entries,
        }
    }

    pub(super) fn tree(&self) -> Tree {
        Tree {
            leaf_start: self.leaf_start,
            leaf_reserved: self.leaves,
            dir_start: self.dir_start,
            dir_reserved: self.dirs,
            leaves: self.leaves,
            dirs: self.dirs,
            root: self.root,
            entries: self.entries,
            building: None,
        }
    }
}

/// The state record.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct State {
    pub trees: Vec<TreeState>,
    pub c0_tree: Option<u32>,
    pub components: Vec<ComponentState>,
}

fn put_pair(out: &mut Vec<u8>, p: Option<Pair>) {
    out.push(p.is_some() as u8);
    let (k, v) = p.unwrap_or((0, 0));
    out.extend_from_slice(&k.to_le_bytes());
    out.extend_from_slice(&v.to_le_bytes());
}

impl State {
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.trees.len() as u32).to_le_bytes());
        for t in &self.trees {
            out.extend_from_slice(&t.id.to_le_bytes());
            for v in [t.leaf_start, t.leaves, t.dir_start, t.dirs] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            let (h, r) = t.root.map_or((0xFF, 0), |(h, r)| (h, r));
            out.push(h);
            out.extend_from_slice(&r.to_le_bytes());
            out.extend_from_slice(&t.entries.to_le_bytes());
        }
        out.extend_from_slice(&self.c0_tree.unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&(self.components.len() as u32).to_le_bytes());
        for c in &self.components {
            out.extend_from_slice(&c.entries.to_le_bytes());
            out.push(c.pass as u8);
            put_pair(&mut out, c.cursor);
            out.extend_from_slice(&(c.segments.len() as u32).to_le_bytes());
            for s in &c.segments {
                out.extend_from_slice(&s.tree.to_le_bytes());
                put_pair(&mut out, s.low);
                put_pair(&mut out, Some(s.high));
            }
        }
        out
    }

    pub(super) fn decode(b: &[u8], at: u64) -> Result<State> {
        let mut r = Reader { b, i: 0, at };
        let mut s = State::default();
        let n = r.u32()?;
        for _ in 0..n {
            let id = r.u32()?;
            let (leaf_start, leaves, dir_start, dirs) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
            let h = r.u8()?;
            let root = r.u64()?;
            s.trees.push(TreeState {
                id,
                leaf_start,
                leaves,
                dir_start,
                dirs,
                root: (h != 0xFF).then_some((h, root)),
                entries: r.u64()?,
            });
        }
        let c0 = r.u32()?;
        s.c0_tree = (c0 != u32::MAX).then_some(c0);
        let n = r.u32()?;
        for _ in 0..n {
            let entries = r.u64()?;
            let pass = r.u8()? != 0;
            let cursor = r.pair()?;
            let m = r.u32()?;
            let mut segments = Vec::new();
            for _ in 0..m {
                let tree = r.u32()?;
                let low = r.pair()?;
                let high = r
                    .pair()?
                    .ok_or_else(|| r.corrupt("a segment without a high end"))?;
                segments.push(Segment { tree, low, high });
            }
            s.components.push(ComponentState {
                entries,
                pass,
                cursor,
                segments,
            });
        }
        if r.i != b.len() {
            return Err(r.corrupt("trailing bytes"));
        }
        Ok(s)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    at: u64,
}

impl Reader<'_> {
    fn corrupt(&self, what: &str) -> IndexError {
        IndexError::Corrupt {
            page: self.at,
            detail: format!("LSM-tree state record: {what}"),
        }
    }
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let s = self
            .b
            .get(self.i..self.i + n)
            .ok_or_else(|| self.corrupt("shorter than its contents"))?;
        self.i += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64> {
        let mut w = [0u8; 8];
        w.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(w))
    }
    fn pair(&mut self) -> Result<Option<Pair>> {
        let flag = self.u8()?;
        let p = (self.u64()?, self.u64()?);
        Ok((flag != 0).then_some(p))
    }
}

/// Bytes of the state record one device page carries.
pub(super) fn state_per_page(device_page: usize) -> usize {
    device_page - FRAME_HEADER - STATE_HEADER
}

/// Writes the state record at `start` (consecutive device pages).
pub(super) fn write_state(dev: &mut dyn BlockDevice, start: u64, bytes: &[u8]) -> Result<()> {
    let dp = dev.page_size();
    let mut buf = vec![0u8; dp];
    for (i, chunk) in bytes.chunks(state_per_page(dp)).enumerate() {
        buf.fill(0);
        let p = &mut buf[FRAME_HEADER..];
        p[0..4].copy_from_slice(STATE_MAGIC);
        p[4..8].copy_from_slice(&(i as u32).to_le_bytes());
        p[STATE_HEADER..STATE_HEADER + chunk.len()].copy_from_slice(chunk);
        page::seal(&mut buf, PageKind::Superblock, STATE_HEADER + chunk.len());
        dev.write(start + i as u64, 0, &buf)?;
    }
    Ok(())
}

/// Reads the state record of `len` bytes at `start`.
pub(super) fn read_state(dev: &mut dyn BlockDevice, start: u64, len: u64) -> Result<State> {
    let dp = dev.page_size();
    let per = state_per_page(dp) as u64;
    let mut bytes = Vec::with_capacity(len as usize);
    let mut buf = vec![0u8; dp];
    let pages = len.div_ceil(per);
    for i in 0..pages {
        let lba = start + i;
        dev.read(lba, 0, &mut buf)?;
        let corrupt = |d: &str| IndexError::Corrupt {
            page: lba,
            detail: format!("LSM-tree state record page: {d}"),
        };
        let p = page::open(&buf, PageKind::Superblock, lba)?.ok_or_else(|| corrupt("empty"))?;
        let want = (len - i * per).min(per) as usize;
        if p.len() != STATE_HEADER + want
            || &p[0..4] != STATE_MAGIC
            || u32::from_le_bytes([p[4], p[5], p[6], p[7]]) as u64 != i
        {
            return Err(corrupt("not the page the superblock names"));
        }
        bytes.extend_from_slice(&p[STATE_HEADER..]);
    }
    State::decode(&bytes, start)
}

/// Writes `sb` at page 0.
pub(super) fn write(dev: &mut dyn BlockDevice, sb: &Superblock) -> Result<()> {
    let mut buf = vec![0u8; dev.page_size()];
    let p = &mut buf[FRAME_HEADER..];
    p[0..4].copy_from_slice(MAGIC);
    p[4] = sb.format.key_bytes;
    p[5] = sb.format.value_bytes;
    p[6] = u8::from(sb.versions_by_key);
    p[8..12].copy_from_slice(&sb.page_size.to_le_bytes());
    for (i, v) in [
        sb.ratio,
        sb.c0_capacity,
        sb.high_water,
        sb.state_start,
        sb.state_len,
    ]
    .into_iter()
    .enumerate()
    {
        p[12 + i * 8..20 + i * 8].copy_from_slice(&v.to_le_bytes());
    }
    page::seal(&mut buf, PageKind::Superblock, FIXED);
    dev.write(0, 0, &buf)?;
    Ok(())
}

/// Reads the superblock at page 0.
pub(super) fn read(storage: &mut Storage) -> Result<Superblock> {
    let Storage::Pages(dev) = storage else {
        return Err(IndexError::Config(
            "the LSM-tree writes components of logical pages, not raw: chips".into(),
        ));
    };
    let mut buf = vec![0u8; dev.page_size()];
    dev.read(0, 0, &mut buf)?;
    let p = page::open(&buf, PageKind::Superblock, 0)?
        .ok_or_else(|| IndexError::NoIndex("no LSM-tree superblock at page 0".into()))?;
    if p.len() < FIXED || &p[0..4] != MAGIC {
        return Err(IndexError::NoIndex(
            "page 0 holds no LSM-tree superblock".into(),
        ));
    }
    let u = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&p[i..i + 8]);
        u64::from_le_bytes(w)
    };
    let format = EntryFormat::new(p[4], p[5]).map_err(|_| IndexError::Corrupt {
        page: 0,
        detail: "LSM-tree superblock: bad entry widths".into(),
    })?;
    if p[6] > 1 {
        return Err(IndexError::Corrupt {
            page: 0,
            detail: format!("LSM-tree superblock: unknown flags {:#04x}", p[6]),
        });
    }
    Ok(Superblock {
        versions_by_key: p[6] == 1,
        format,
        page_size: u32::from_le_bytes([p[8], p[9], p[10], p[11]]),
        ratio: u(12),
        c0_capacity: u(20),
        high_water: u(28),
        state_start: u(36),
        state_len: u(44),
    })
}

impl Superblock {
    /// Reconciles `params` with the image: given values must agree, absent
    /// ones are taken from it.
    pub(super) fn agree(&self, params: &mut Params) -> Result<()> {
        agree(params, "key_bytes", self.format.key_bytes as u64)?;
        agree(params, "value_bytes", self.format.value_bytes as u64)?;
        agree(params, "ratio", self.ratio)?;
        agree(params, "page_bytes", self.page_size as u64)?;
        agree_versions(params, self.versions_by_key)?;
        let eb = entry_bytes(self.format) as u64;
        let c0_bytes = self.c0_capacity * eb;
        match params.get_opt::<u64>("c0_bytes")? {
            Some(given) if given / eb != self.c0_capacity => {
                return Err(mismatch("c0_bytes", c0_bytes, given))
            }
            Some(_) => {}
            None => params.set("c0_bytes", &c0_bytes.to_string()),
        }
        Ok(())
    }
}
