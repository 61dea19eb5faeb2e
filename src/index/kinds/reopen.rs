//! What `open` checks before it trusts its parameters: every parameter the
//! superblock records and the caller also passes must agree with the image
//! ([`IndexError::Mismatch`] names the parameter and both values), and one
//! the caller left out is taken from the image.
//!
//! The superblock is read once through [`probe`], before the index builds
//! anything sized by the parameters; every index whose superblock starts at
//! page 0 (all of them but a raw chip's logs, whose first page is the first
//! superblock of the log and records the same layout) shares it.

use crate::device::Storage;
use crate::node::page::{self, PageKind};
use crate::node::store::META_BYTES;
use crate::node::TreeMeta;

use crate::index::{IndexError, Params, Result};

/// Page 0 of the storage, where every index's superblock starts.
fn page_zero(storage: &mut Storage) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; storage.page_size()];
    match storage {
        Storage::Pages(d) => d.read(0, 0, &mut buf)?,
        Storage::Raw(f) => f.read(0, 0, &mut buf)?,
    }
    Ok(buf)
}

/// The tree metadata of the first superblock at page 0; `None` when the
/// page holds no superblock (the index's own open then says so). The
/// layout never changes after `create`, so the first copy of a log of
/// superblocks records it as well as the newest.
pub(crate) fn probe(storage: &mut Storage) -> Result<Option<TreeMeta>> {
    let buf = page_zero(storage)?;
    let Some(payload) = page::open(&buf, PageKind::Superblock, 0)? else {
        return Ok(None);
    };
    if payload.len() < META_BYTES {
        return Ok(None);
    }
    Ok(Some(TreeMeta::decode(&payload[..META_BYTES])?))
}

/// The registry name of the index whose superblock is at page 0: the tree
/// metadata's, or that of the first of `own_superblocks` (an index with a
/// superblock of its own, by its magic and name) whose magic the payload
/// starts with; `None` when page 0 holds no superblock. The magics come as
/// data from the registry, so this check imports no index.
pub(crate) fn stored_kind(
    storage: &mut Storage,
    own_superblocks: &[(&[u8], &str)],
) -> Result<Option<String>> {
    let buf = page_zero(storage)?;
    let Some(payload) = page::open(&buf, PageKind::Superblock, 0)? else {
        return Ok(None);
    };
    if let Some((_, name)) = own_superblocks
        .iter()
        .find(|(magic, _)| payload.starts_with(magic))
    {
        return Ok(Some(name.to_string()));
    }
    if payload.len() < META_BYTES {
        return Ok(None);
    }
    Ok(Some(TreeMeta::decode(&payload[..META_BYTES])?.index))
}

/// The error for `parameter`, recorded as `image`, given as `given`.
pub(crate) fn mismatch(parameter: &str, image: impl ToString, given: impl ToString) -> IndexError {
    IndexError::Mismatch {
        parameter: parameter.to_string(),
        image: image.to_string(),
        given: given.to_string(),
    }
}

/// Checks a `u64`-like parameter given in `params` against the image's
/// value, and sets it from the image when it was not given.
pub(crate) fn agree(params: &mut Params, parameter: &str, image: u64) -> Result<()> {
    match params.get_opt::<u64>(parameter)? {
        Some(given) if given != image => Err(mismatch(parameter, image, given)),
        Some(_) => Ok(()),
        None => {
            params.set(parameter, &image.to_string());
            Ok(())
        }
    }
}

/// Checks `versions` in `params` against what the image records
/// (`Params::versions_by_key`), and sets it from the image when absent: a
/// file of versions of keys never opens as a set of pairs, nor the reverse.
pub(crate) fn agree_versions(params: &mut Params, image_by_key: bool) -> Result<()> {
    let image = if image_by_key { "key" } else { "pair" };
    match params.raw("versions") {
        Some(given) if given != image => Err(mismatch("versions", image, given)),
        _ => {
            params.set("versions", image);
            Ok(())
        }
    }
}

/// Reconciles `params` with the superblock of a tree index on `storage`:
/// the entry widths, and the node size when the index takes `node_bytes`
/// (`sized`). Nothing happens on storage without a superblock; returns
/// whether it has one.
pub(crate) fn tree_params(storage: &mut Storage, params: &mut Params, sized: bool) -> Result<bool> {
    let Some(meta) = probe(storage)? else {
        return Ok(false);
    };
    agree(params, "key_bytes", meta.format.key_bytes as u64)?;
    agree(params, "value_bytes", meta.format.value_bytes as u64)?;
    let size_given = ["node_bytes", "node_pages", "fanout"]
        .iter()
        .any(|k| params.contains(k));
    if sized && !size_given {
        params.set("node_bytes", &meta.node_bytes.to_string());
    }
    if meta.leaf_entries > 0 {
        agree(params, "leaf_entries", meta.leaf_entries as u64)?;
    } else if let Some(given) = params.get_opt::<u64>("leaf_entries")? {
        // The image's leaves hold what their bytes hold: a cap would
        // misread full leaves as corrupt.
        return Err(mismatch("leaf_entries", "uncapped", given));
    }
    Ok(true)
}

/// Checks that the layout the parameters ask for (`asked`) is the one the
/// image was written with: node size first, then the leaf cap.
pub(crate) fn agree_layout(
    image: &crate::node::NodeLayout,
    asked: &crate::node::NodeLayout,
) -> Result<()> {
    if asked.node_bytes != image.node_bytes {
        return Err(mismatch("node_bytes", image.node_bytes, asked.node_bytes));
    }
    if asked != image {
        return Err(mismatch(
            "leaf_entries",
            image.leaf_capacity,
            asked.leaf_capacity,
        ));
    }
    Ok(())
}
