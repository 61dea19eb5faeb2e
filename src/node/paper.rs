//! The paper-layout node format, for simulation only (`node_format=paper`).
//!
//! Agrawal et al. 2009 §6.3.6 sizes a node of fanout `f` as
//! `S(f) = 6·f + 4` bytes: 6-byte key-pointer pairs and a 4-byte header.
//! Our own node ([`super::codec`]) carries a 16-byte checksummed frame, an
//! 8-byte header, 4-byte child ids and (key, value) separators, which
//! makes it `12·f + 16` bytes with 4 + 4-byte entries: about twice as many
//! bytes to read and program, half as many nodes in a page. The lat-*
//! experiments compare schemes by exactly those bytes, so they run in this
//! format, which changes only the bytes a node occupies on the simulated
//! flash (what fits a page, what a byte-level read or program is charged)
//! and in a cache.
//!
//! A node of the paper's size cannot hold our node's content (its
//! separators carry a value, so that equal keys route), so a paper-format
//! image is a frame of `S(f)` bytes whose payload is a **handle**
//! (`[TAG, handle u64]`) to the full payload, kept in this thread's
//! simulation registry. That is why the format is simulation-only: the
//! image means nothing without the registry, so an index refuses the format
//! on a file device and cannot be reopened (`index::kinds::registry`), and
//! `docs/FORMAT.md` does not apply to it. Creating a paper-format index
//! drops the images of this thread's earlier ones (the registry would
//! otherwise grow with every run a worker thread makes); handles are unique
//! in the process, so a stale one reads as `Corrupt`, never as another
//! node. The registry's memory is the simulator's, not the index's: it is
//! not counted against any budget.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::NodeError;

/// How a node is laid out on the (simulated) flash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeFormat {
    /// Our checksummed node (`docs/FORMAT.md`).
    #[default]
    Flashix,
    /// The paper's `S(f) = 6·f + 4` bytes, simulation only.
    Paper,
}

impl NodeFormat {
    /// `flashix` or `paper`.
    pub fn parse(s: &str) -> Result<Self, NodeError> {
        match s {
            "flashix" => Ok(NodeFormat::Flashix),
            "paper" => Ok(NodeFormat::Paper),
            _ => Err(NodeError::Config(format!(
                "node_format must be flashix or paper, got `{s}`"
            ))),
        }
    }

    pub fn is_flashix(&self) -> bool {
        *self == NodeFormat::Flashix
    }
}

/// Bytes of a paper-format node of fanout `f` (§6.3.6).
pub const fn paper_node_bytes(f: usize) -> usize {
    6 * f + 4
}

/// The fanout of a paper-format node of `bytes` bytes.
pub const fn paper_fanout(bytes: usize) -> usize {
    bytes.saturating_sub(4) / 6
}

/// First payload byte of a paper-format image.
const TAG: u8 = b'P';
/// Payload bytes of a paper-format image: the tag and the handle.
pub const HANDLE_PAYLOAD: usize = 1 + 8;

static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static IMAGES: RefCell<HashMap<u64, Rc<[u8]>>> = RefCell::new(HashMap::new());
}

/// Keeps `full` (a full node payload) in this thread's registry and writes
/// its handle into `payload`; returns the handle payload's length.
pub(crate) fn register(full: &[u8], payload: &mut [u8]) -> usize {
    let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
    IMAGES.with(|m| m.borrow_mut().insert(handle, Rc::from(full)));
    payload[0] = TAG;
    payload[1..HANDLE_PAYLOAD].copy_from_slice(&handle.to_le_bytes());
    HANDLE_PAYLOAD
}

/// The full payload a paper-format `payload` (read from `page`) names.
pub(crate) fn resolve(payload: &[u8], page: u64) -> Result<Rc<[u8]>, NodeError> {
    let corrupt = |detail: &str| NodeError::Corrupt {
        page,
        detail: detail.into(),
    };
    if payload.len() < HANDLE_PAYLOAD || payload[0] != TAG {
        return Err(corrupt("not a paper-format node image"));
    }
    let mut h = [0u8; 8];
    h.copy_from_slice(&payload[1..HANDLE_PAYLOAD]);
    let handle = u64::from_le_bytes(h);
    IMAGES
        .with(|m| m.borrow().get(&handle).cloned())
        .ok_or_else(|| {
            corrupt(
                "a paper-format node image whose content this thread's simulation no longer holds",
            )
        })
}

/// Drops this thread's paper-format images (a new paper-format index
/// starts).
pub fn clear_thread() {
    IMAGES.with(|m| *m.borrow_mut() = HashMap::new());
}

/// A node payload: borrowed from an image, or a paper-format image's full
/// payload from the registry.
pub(crate) enum Payload<'a> {
    Borrowed(&'a [u8]),
    Shared(Rc<[u8]>),
}

impl Deref for Payload<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Payload::Borrowed(b) => b,
            Payload::Shared(s) => s,
        }
    }
}
