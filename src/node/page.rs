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
    frame[0..2].copy_from_slice(&MAGIC);
    frame[2] = kind as u8;
    frame[3] = VERSION;
    frame[4..8].copy_from_slice(&(payload_len as u32).to_le_bytes());
    frame[12..16].fill(0);
    let crc = frame_crc(frame, payload_len);
    frame[8..12].copy_from_slice(&crc.to_le_bytes());
}

/// The checksum covers every header byte but itself, and the payload.
fn frame_crc(frame: &[u8], payload_len: usize) -> u32 {
    let mut head = [0u8; 8];
    head.copy_from_slice(&frame[0..8]);
    let mut reserved = [0u8; 4];
    reserved.copy_from_slice(&frame[12..16]);
    super::crc::crc32c_frame(
        &head,
        &reserved,
        &frame[FRAME_HEADER..FRAME_HEADER + payload_len],
    )
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
/// Every other check of the frame stays.
#[inline]
pub fn open_read(
    frame: &[u8],
    expected: PageKind,
    page: u64,
    verified: bool,
) -> Result<Option<&[u8]>, NodeError> {
    // A frame of the expected kind that passes every check is answered
    // here, inlined; anything else (an empty page, another kind, damage)
    // goes the whole way, which gives the same answer for a good frame and
    // builds the errors. Node reads are most of a simulated run's reads.
    if let Some((kind, payload)) = good_frame(frame, verified) {
        if kind == expected as u8 {
            return Ok(Some(payload));
        }
    }
    open_read_checked(frame, expected, page, verified)
}

/// The kind byte and payload of a frame that passes every check
/// [`open_frame`] makes (the checksum unless `verified`); `None` for any
/// other frame, which [`open_frame`] then judges.
#[inline(always)]
fn good_frame(frame: &[u8], verified: bool) -> Option<(u8, &[u8])> {
    let header: &[u8; FRAME_HEADER] = frame.first_chunk()?;
    if header[0..2] != MAGIC || header[3] != VERSION {
        return None;
    }
    let len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let payload = frame.get(FRAME_HEADER..FRAME_HEADER.checked_add(len)?)?;
    let stored = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if !verified && frame_crc(frame, len) != stored {
        return None;
    }
    PageKind::from_u8(header[2]).map(|_| (header[2], payload))
}

#[cold]
#[inline(never)]
fn open_read_checked(
    frame: &[u8],
    expected: PageKind,
    page: u64,
    verified: bool,
) -> Result<Option<&[u8]>, NodeError> {
    match open_frame(frame, page, verified)? {
        None => Ok(None),
        Some((k, payload)) if k == expected => Ok(Some(payload)),
        Some(_) => Err(NodeError::Corrupt {
            page,
            detail: format!("page kind {} where {:?} was expected", frame[2], expected),
        }),
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
    let corrupt = |detail: String| NodeError::Corrupt { page, detail };
    if frame.len() < FRAME_HEADER {
        return Err(corrupt(format!(
            "frame of {} bytes is shorter than its header",
            frame.len()
        )));
    }
    if frame[0..2] != MAGIC {
        // Neither magic byte is 0x00 or 0xFF, so only a frame without the
        // magic can be empty.
        let header = &frame[..FRAME_HEADER];
        if header.iter().all(|&b| b == 0) || header.iter().all(|&b| b == 0xFF) {
            return Ok(None);
        }
        return Err(corrupt("bad magic".into()));
    }
    if frame[3] != VERSION {
        return Err(corrupt(format!("unknown format version {}", frame[3])));
    }
    let len = u32::from_le_bytes([frame[4], frame[5], frame[6], frame[7]]) as usize;
    if FRAME_HEADER + len > frame.len() {
        return Err(corrupt(format!("payload length {len} exceeds the frame")));
    }
    let stored = u32::from_le_bytes([frame[8], frame[9], frame[10], frame[11]]);
    let crc = if verified {
        stored
    } else {
        frame_crc(frame, len)
    };
    if crc != stored {
        return Err(corrupt(format!(
            "checksum mismatch (stored {stored:#010x}, computed {crc:#010x})"
        )));
    }
    match PageKind::from_u8(frame[2]) {
        Some(k) => Ok(Some((k, &frame[FRAME_HEADER..FRAME_HEADER + len]))),
        None => Err(corrupt(format!("unknown page kind {}", frame[2]))),
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
