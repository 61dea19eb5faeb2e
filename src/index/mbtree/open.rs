//! Reopening an MB-Tree: the parameters the superblock records (entry
//! widths, page size, variant flags, leaf sizes) are checked against the
//! image before anything is built from them, and taken from it when the
//! caller left them out; so is `versions` (flag bit 3: a file of versions
//! of keys never opens as pairs, nor the reverse).

use crate::device::Storage;
use crate::index::kinds::reopen::{agree, agree_versions, mismatch};
use crate::index::{IndexError, Params, Result};
use crate::node::store::{unreachable_ids, IdAllocator};
use crate::node::{Node, TreeMeta};

use super::{MbOptions, MbTree, NAME};

/// Bytes of the variant state after the tree metadata: flags, leaf_pages,
/// max_leaf_pages (the leaf-size counts follow).
const STATE_HEAD: usize = 3;

/// Sets every recorded parameter the caller left out from the superblock
/// on `storage`, and refuses one that contradicts it. Storage without a
/// superblock is left to `open` to report.
fn reconcile(storage: &mut Storage, params: &mut Params) -> Result<()> {
    let Storage::Pages(dev) = storage else {
        return Ok(());
    };
    let page_size = dev.page_size();
    let mut buf = vec![0u8; page_size];
    dev.read(0, 0, &mut buf)?;
    let Some((meta, state)) = TreeMeta::open_superblock(&buf, 0, STATE_HEAD)? else {
        return Ok(());
    };
    if meta.index != NAME {
        return Ok(());
    }
    // Leaf pages and internal nodes are one device page each.
    if meta.node_bytes as usize != page_size {
        return Err(mismatch("page_size", meta.node_bytes, page_size));
    }
    agree(params, "key_bytes", meta.format.key_bytes as u64)?;
    agree(params, "value_bytes", meta.format.value_bytes as u64)?;
    let flags = state[0];
    if flags > 0b1111 {
        return Err(IndexError::Corrupt {
            page: 0,
            detail: format!("MB-Tree superblock: unknown flags {flags:#04x}"),
        });
    }
    for (parameter, bit) in [("lnh", 0), ("kiv", 1), ("fei", 2)] {
        let image = flags >> bit & 1 == 1;
        match params.get_opt::<bool>(parameter)? {
            Some(given) if given != image => return Err(mismatch(parameter, image, given)),
            Some(_) => {}
            None => params.set(parameter, &image.to_string()),
        }
    }
    agree_versions(params, flags >> 3 & 1 == 1)?;
    agree(params, "leaf_pages", state[1] as u64)?;
    agree(params, "max_leaf_pages", state[2] as u64)?;
    Ok(())
}

impl MbTree {
    /// Reopens the MB-Tree `flush` left on `storage`.
    pub fn open(mut storage: Storage, memory: usize, mut params: Params) -> Result<Self> {
        reconcile(&mut storage, &mut params)?;
        let opts = MbOptions::from_params(&mut params)?;
        // The metadata comes from the superblock below.
        let mut t = Self::assemble(storage, memory, opts)?;
        let mut buf = std::mem::take(&mut t.page_buf);
        let r = t.dev().read(0, 0, &mut buf);
        t.page_buf = buf;
        r?;
        let sizes = t.leaf_sizes.len();
        let (meta, state) = TreeMeta::open_superblock(&t.page_buf, 0, 3 + 4 * sizes)?
            .ok_or_else(|| IndexError::NoIndex("the device holds no superblock".into()))?;
        if meta.index != NAME {
            return Err(IndexError::NoIndex(format!(
                "the device holds a `{}` index, not `{NAME}`",
                meta.index
            )));
        }
        if state[0] != opts.flags()
            || state[1] != opts.leaf_pages
            || state[2] != opts.max_leaf_pages
        {
            return Err(IndexError::Config(
                "the MB-Tree on the device was made with other lnh/kiv/fei/leaf_pages/\
                 max_leaf_pages settings; reopen it with the same ones"
                    .into(),
            ));
        }
        for (i, c) in state[3..].chunks(4).enumerate() {
            t.leaf_sizes[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64;
        }
        t.meta = meta;
        let free = {
            let layout = t.layout;
            let (next, root, height) = (t.meta.next_id, t.meta.root, t.meta.height);
            let mut node = Node::default();
            let mut page = vec![0u8; t.page_size];
            let region = t.region;
            let dev = t.dev();
            unreachable_ids(next, root, height, |id, level, children| {
                let lba = 1 + id as u64 * region;
                dev.read(lba, 0, &mut page)?;
                layout.decode(&page, lba, &mut node)?;
                if node.level != level {
                    return Err(crate::node::NodeError::Corrupt {
                        page: lba,
                        detail: format!(
                            "node {id} has level {} where {level} was expected",
                            node.level
                        ),
                    });
                }
                children.extend_from_slice(&node.children);
                Ok(())
            })?
        };
        t.ids = IdAllocator {
            next_id: t.meta.next_id,
            free,
        };
        Ok(t)
    }
}
