//! sled 0.34 (its last stable line): a log-structured tree; the commit is
//! `flush`. Reads need no transaction.

use std::path::Path;

use super::{be_u64, Engine, Reader, Writer};
use crate::error::Res;

pub struct Sled {
    db: sled::Db,
}

impl Sled {
    pub fn create(dir: &Path, memory: usize) -> Res<Sled> {
        let db = sled::Config::new()
            .path(dir.join("sled"))
            .cache_capacity(memory as u64)
            .open()?;
        Ok(Sled { db })
    }
}

impl Reader for sled::Db {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(sled::Tree::get(self, key.to_be_bytes())?.map(|b| be_u64(&b)))
    }
}

impl Writer for sled::Db {
    fn put(&mut self, key: u64, value: u64) -> Res<()> {
        self.insert(key.to_be_bytes(), &value.to_be_bytes())?;
        Ok(())
    }
}

impl Engine for Sled {
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()> {
        body(&mut self.db)?;
        // sync_file_range on Linux, not fsync: not durable on a crash of
        // the machine (the file's metadata is not synced).
        self.db.flush()?;
        Ok(())
    }
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()> {
        body(&mut self.db)
    }
}
