//! Any index by name, as an application gets it: on the commit layer's
//! write-ahead log ([`super::logged`]) and behind the poison guard
//! ([`super::guard`]). [`Store`](super::Store) opens its index through
//! these, and so do the crash, fault and damage harnesses (`runner`),
//! which test exactly what an application runs.
//!
//! The index floor's registry ([`registry`]) knows every index kind and
//! builds it bare; the wrapping lives here, on the store's floor, so the
//! index floor needs nothing of the store's.

use crate::device::Storage;
use crate::index::kinds::registry;
use crate::index::{Index, IndexError, Params, Result};

/// A new, empty index `name` on `storage`, guarded (`store::guard`: after a
/// call that fails, every call is refused until the store is reopened).
pub fn create_index(
    name: &str,
    storage: Storage,
    memory: usize,
    params: Params,
) -> Result<Box<dyn Index>> {
    super::logged::with_log(storage, memory, true, false, |s, m| {
        registry::create_bare(name, s, m, params)
    })
    .map(guard)
}

/// Reopens the index `name` that `flush` left on `storage`, guarded: its
/// last successful flush, whatever was written since (a storage under the
/// commit layer forgets it; `BlockDevice::discard_uncommitted`).
pub fn open_index(
    name: &str,
    storage: Storage,
    memory: usize,
    params: Params,
) -> Result<Box<dyn Index>> {
    last_flush(name, storage, memory, params, false).map(guard)
}

/// Opens the index `name` on `storage` for queries only (`store::guard`):
/// calls that would change it are refused, and it writes nothing.
pub fn open_index_read_only(
    name: &str,
    storage: Storage,
    memory: usize,
    params: Params,
) -> Result<Box<dyn Index>> {
    let index = last_flush(name, storage, memory, params, true)?;
    Ok(Box::new(super::guard::Guarded::read_only(index)))
}

/// The index's last flush: what was not committed is dropped first, then
/// what the write-ahead log holds since is replayed (`store::logged`).
fn last_flush(
    name: &str,
    mut storage: Storage,
    memory: usize,
    params: Params,
    read_only: bool,
) -> Result<Box<dyn Index>> {
    storage.discard_uncommitted()?;
    let head = bare_file_head(&mut storage)?;
    let opened = super::logged::with_log(storage, memory, false, read_only, |s, m| {
        registry::open_bare(name, s, m, params, read_only)
    });
    match opened {
        Err(_) if head.as_ref() == Some(crate::device::shadow::META_MAGIC) => { Err(IndexError::Config(
            "page 0 holds the commit layer's record: this is a flashix store opened without its commit layer; open it with Store::open or a `file:` DeviceSpec".into(),
        ))
        }
        r => r,
    }
}

/// The first bytes of page 0 of a bare file (a `FileDevice` without the
/// commit layer): a store file read so shows the commit record there, and
/// a failed open then says so rather than "unknown format". Nothing is
/// read on any other storage, so no simulated run is charged for it.
fn bare_file_head(storage: &mut Storage) -> Result<Option<[u8; 8]>> {
    let Storage::Pages(dev) = storage else {
        return Ok(None);
    };
    let info = dev.info();
    let bare = info.kind == "file" && !info.notes.iter().any(|n| n.starts_with("shadow paging"));
    if !bare || dev.page_size() < 8 || dev.capacity_pages() == 0 {
        return Ok(None);
    }
    let mut head = [0u8; 8];
    dev.read(0, 0, &mut head)?;
    Ok(Some(head))
}

fn guard(index: Box<dyn Index>) -> Box<dyn Index> {
    Box::new(super::guard::Guarded::new(index))
}
