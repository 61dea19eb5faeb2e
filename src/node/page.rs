//! The shared checksummed page frame. Every page (or sub-page node image)
//! an index writes starts with this 16-byte header, so that a corrupted
//! page read by any index yields [`NodeError::Corrupt`], never a wrong
//! answer.
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | magic `b"FX"` |
//! | 2 | kind ([`PageKind`]) |
//! | 3 | format version (1) |
//! | 4..8 | payload length, little-endian `u32` |
//! | 8..12 | CRC-32C of bytes 0..8, 12..16 and the payload, little-endian |
//! | 12..16 | reserved, zero |
//! | 16.. | payload |
//!
//! Invariants:
//! 1. A frame is valid iff magic, version and length are sane and the CRC
//!    matches; anything else is `Corrupt`.
//! 2. A frame whose header is all 0x00 (a logical page never written, or
//!    trimmed) or all 0xFF (an erased page of a raw chip) is **empty**:
//!    reading it is not corruption in itself; the caller decides whether
//!    empty is allowed (a superblock slot may be empty, a node a pointer
//!    names may not).

use crate::node::NodeError;

use super::crc;

/// Header bytes before the payload.
pub const FRAME_HEADER: usize = 16;
const MAGIC: [u8; 2] = *b"FX";
const VERSION: u8 = 1;

/// What a frame holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PageKind {
    Superblock = 1,
    TreeNode = 2,
    /// A sector of BFTL index units.
    IndexUnits = 3,
    /// A page of node records: base node images and deltas
    /// ([`super::delta`]).
    NodeRecords = 4,
    /// An MB-Tree Leaf Node Header.
    LeafHeader = 5,
    /// An MB-Tree leaf page.
    LeafPage = 6,
    /// A FlashDB node written whole (disk mode, or a compacted log): the
    /// sector sequence number and node id, then a tree-node payload.
    NodePage = 7,
    /// A page of an FD-tree sorted run.
    RunPage = 8,
    /// A page of a Buffered-B+ tree buffer: the owning node's id, then
    /// buffer entries.
    BufferPage = 9,
    /// An AS B-tree node record: the node id and the record's sequence
    /// number, then a tree-node payload.
    SequentialNode = 10,
}

impl PageKind {
    fn from_u8(b: u8) -> Option<PageKind> {
        match b {
            1 => Some(PageKind::Superblock),
            2 => Some(PageKind::TreeNode),
            3 => Some(PageKind::IndexUnits),
            4 => Some(PageKind::NodeRecords),
            5 => Some(PageKind::LeafHeader),
            6 => Some(PageKind::LeafPage),
            7 => Some(PageKind::NodePage),
            8 => Some(PageKind::RunPage),
            9 => Some(PageKind::BufferPage),
            10 => Some(PageKind::SequentialNode),
            _ => None,
        }
    }
}

/// Writes the header for a payload of `payload_len` bytes already placed at
/// `frame[FRAME_HEADER..]`. `frame` must hold header and payload.
pub fn seal(frame: &mut [u8], kind: PageKind, payload_len: usize) {
    debug_assert!(frame.len() >= FRAME_HEADER + payload_len);
    // The header as an array: its fields are written without a bounds
    // check each (a too-short frame panics here, as its indexing did).
    let (header, payload) = frame
        .split_first_chunk_mut::<FRAME_HEADER>()
        .expect("a frame holds its header");
    write_header(header, kind, payload_len);
    let crc = crc::crc32c_frame(header, &payload[..payload_len]);
    header[8..12].copy_from_slice(&crc.to_le_bytes());
}

/// The header fields [`seal`] writes, but the checksum.
#[inline(always)]
fn write_header(header: &mut [u8; FRAME_HEADER], kind: PageKind, payload_len: usize) {
    header[0..2].copy_from_slice(&MAGIC);
    header[2] = kind as u8;
    header[3] = VERSION;
    header[4..8].copy_from_slice(&(payload_len as u32).to_le_bytes());
    header[12..16].fill(0);
}

/// [`seal`] of a frame whose payload was a valid frame's (`old`: its
/// first 24 bytes, header and first payload word, as
/// `crc::frame_words` reads them) with the 8 bytes at
/// `payload[at..at + 8]` inserted since, the rest of the payload moved up
/// by 8: the same header, its checksum carried over from the old one where
/// `crc::crc32c_frame_inserted` can (a leaf insert's reseal read the
/// whole payload). The caller vouches that the old checksum held for the
/// old frame (its reader checked it, or its device vouched the frame
/// sealed): then the value is the one `seal` computes. Inlined into the
/// leaf insert, its one caller.
#[inline(always)]
pub fn reseal_inserted(
    frame: &mut [u8],
    kind: PageKind,
    payload_len: usize,
    old: [u64; 3],
    at: usize,
) {
    let Some(header) = frame.first_chunk_mut::<FRAME_HEADER>() else {
        // Shorter than a header: `seal` panics as it always did.
        return seal(frame, kind, payload_len);
    };
    write_header(header, kind, payload_len);
    match crc::crc32c_frame_inserted(old, frame, payload_len, at) {
        Some(crc) => frame[8..12].copy_from_slice(&crc.to_le_bytes()),
        None => seal(frame, kind, payload_len),
    }
}

/// The checksum covers every header byte but itself, and the payload.
#[inline]
fn frame_crc(frame: &[u8], payload_len: usize) -> u32 {
    let (header, rest) = frame
        .split_first_chunk::<FRAME_HEADER>()
        .expect("a frame holds its header");
    crc::crc32c_frame(header, &rest[..payload_len])
}

/// Checks a frame read back from `page`; `Ok(None)` when it is empty.
pub fn open(frame: &[u8], expected: PageKind, page: u64) -> Result<Option<&[u8]>, NodeError> {
    open_read(frame, expected, page, false)
}

/// [`open`] of a frame read from a device that checked the whole page
/// against the checksum of its last write (`BlockDevice::verifies_reads`,
/// the commit layer on a file): the frame's own checksum, over a part of
/// that page, cannot fail where that one held, so it is not computed
/// again (issue #45: the two checksums were a third of a point lookup).
/// Every other check of the frame stays. Inlined whole into the node
/// image searches, which are most of a simulated run's frame reads.
#[inline(always)]
pub fn open_read(
    frame: &[u8],
    expected: PageKind,
    page: u64,
    verified: bool,
) -> Result<Option<&[u8]>, NodeError> {
    // A good frame is answered here, in line (node reads are most of a
    // simulated run's reads); the errors are built out of line.
    match check_frame(frame, verified) {
        Ok((kind, payload)) if kind == expected => Ok(Some(payload)),
        Ok(_) => Err(wrong_kind(frame, expected, page)),
        Err(fault) => fault.judge(page),
    }
}

/// Checks a frame of any kind read back from `page`: its kind and payload,
/// `Ok(None)` when it is empty.
pub fn open_any(frame: &[u8], page: u64) -> Result<Option<(PageKind, &[u8])>, NodeError> {
    open_frame(frame, page, false)
}

fn open_frame(
    frame: &[u8],
    page: u64,
    verified: bool,
) -> Result<Option<(PageKind, &[u8])>, NodeError> {
    match check_frame(frame, verified) {
        Ok(framed) => Ok(Some(framed)),
        Err(fault) => fault.judge(page),
    }
}

/// What is wrong with a frame, as [`check_frame`] finds it: small, so
/// that the check inlines; [`FrameFault::judge`] builds the error.
#[derive(Clone, Copy)]
enum FrameFault {
    Short(usize),
    /// No magic: an empty page when the header is all 0x00 or all 0xFF.
    NoMagic {
        empty: bool,
    },
    Version(u8),
    Length(usize),
    Checksum {
        stored: u32,
        computed: u32,
    },
    Kind(u8),
}

/// The one sequence of a frame's checks (the checksum unless `verified`).
#[inline(always)]
fn check_frame(frame: &[u8], verified: bool) -> Result<(PageKind, &[u8]), FrameFault> {
    let Some(header) = frame.first_chunk::<FRAME_HEADER>() else {
        return Err(FrameFault::Short(frame.len()));
    };
    if header[0..2] != MAGIC {
        // Neither magic byte is 0x00 or 0xFF, so only a frame without the
        // magic can be empty.
        let empty = header.iter().all(|&b| b == 0) || header.iter().all(|&b| b == 0xFF);
        return Err(FrameFault::NoMagic { empty });
    }
    if header[3] != VERSION {
        return Err(FrameFault::Version(header[3]));
    }
    let len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let Some(payload) = frame.get(FRAME_HEADER..FRAME_HEADER + len) else {
        return Err(FrameFault::Length(len));
    };
    let stored = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if !verified {
        let computed = frame_crc(frame, len);
        if computed != stored {
            return Err(FrameFault::Checksum { stored, computed });
        }
    }
    match PageKind::from_u8(header[2]) {
        Some(kind) => Ok((kind, payload)),
        None => Err(FrameFault::Kind(header[2])),
    }
}

impl FrameFault {
    /// `Ok(None)` for an empty page, else the frame's `Corrupt` error.
    #[cold]
    #[inline(never)]
    fn judge<T>(self, page: u64) -> Result<Option<T>, NodeError> {
        let detail = match self {
            FrameFault::NoMagic { empty: true } => return Ok(None),
            FrameFault::Short(n) => format!("frame of {n} bytes is shorter than its header"),
            FrameFault::NoMagic { empty: false } => "bad magic".into(),
            FrameFault::Version(v) => format!("unknown format version {v}"),
            FrameFault::Length(len) => format!("payload length {len} exceeds the frame"),
            FrameFault::Checksum { stored, computed } => {
                format!("checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")
            }
            FrameFault::Kind(k) => format!("unknown page kind {k}"),
        };
        Err(NodeError::Corrupt { page, detail })
    }
}

#[cold]
#[inline(never)]
fn wrong_kind(frame: &[u8], expected: PageKind, page: u64) -> NodeError {
    NodeError::Corrupt {
        page,
        detail: format!("page kind {} where {:?} was expected", frame[2], expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_empty_and_corrupt() {
        let mut f = vec![0u8; 64];
        assert_eq!(open(&f, PageKind::TreeNode, 3).unwrap(), None);
        f[16..20].copy_from_slice(&[1, 2, 3, 4]);
        seal(&mut f, PageKind::TreeNode, 4);
        assert_eq!(
            open(&f, PageKind::TreeNode, 3).unwrap(),
            Some(&[1u8, 2, 3, 4][..])
        );
        assert!(open(&f, PageKind::Superblock, 3).is_err());
        for i in 0..20 {
            let mut g = f.clone();
            g[i] ^= 0x10;
            assert!(
                matches!(
                    open(&g, PageKind::TreeNode, 3),
                    Err(NodeError::Corrupt { page: 3, .. })
                ),
                "byte {i}"
            );
        }
    }
}
