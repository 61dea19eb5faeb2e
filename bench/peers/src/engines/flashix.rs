//! flashix: any of its indexes through the public `Store` API, on a
//! `file:` device with the write-ahead log; the commit is `Store::flush`.
//! Reads need no transaction.

use std::path::Path;

use flashix::Store;

use super::{Engine, Reader, Writer};
use crate::error::Res;

pub struct Flashix {
    store: Store,
}

impl Flashix {
    /// `index` is a registry name; `log_bytes` is `Options::log_bytes`.
    pub fn create(
        dir: &Path,
        index: &str,
        log_bytes: u64,
        memory: usize,
        params: &[(String, String)],
    ) -> Res<Flashix> {
        let mut options = flashix::Options::index(index).memory(memory);
        for (k, v) in params {
            options = options.set(k, v);
        }
        options.log_bytes = log_bytes;
        if index == "buffer-tree" {
            // Its default super-node of M/4 (16 MiB here) is past the node
            // format's 65,535 entries.
            options = options.set("node_bytes", "524288");
        }
        let store = Store::create(dir.join("store.flashix"), &options)?;
        Ok(Flashix { store })
    }
}

impl Reader for Store {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(Store::get(self, key)?)
    }
}

impl Writer for Store {
    fn put(&mut self, key: u64, value: u64) -> Res<()> {
        // The write that needs no read: a blind upsert on an index that
        // keeps versions of keys, `put` on any other.
        Store::set(self, key, value)?;
        Ok(())
    }
}

impl Engine for Flashix {
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()> {
        body(&mut self.store)?;
        self.store.flush()?;
        Ok(())
    }
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()> {
        body(&mut self.store)
    }
}
