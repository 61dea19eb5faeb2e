//! fjall: an LSM-tree with a journal; the batch's writes go to one
//! keyspace, and the commit is `persist(PersistMode::SyncAll)`. Reads need
//! no transaction.

use std::path::Path;

use super::{be_u64, Engine, Reader, Writer};
use crate::error::Res;

pub struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
}

impl Fjall {
    pub fn create(dir: &Path, memory: usize) -> Res<Fjall> {
        let db = fjall::Database::builder(dir.join("fjall"))
            .cache_size(memory as u64)
            .open()?;
        let ks = db.keyspace("t", fjall::KeyspaceCreateOptions::default)?;
        Ok(Fjall { db, ks })
    }
}

impl Reader for fjall::Keyspace {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(fjall::Keyspace::get(self, key.to_be_bytes())?.map(|b| be_u64(&b)))
    }
}

impl Writer for fjall::Keyspace {
    fn put(&mut self, key: u64, value: u64) -> Res<()> {
        self.insert(key.to_be_bytes(), value.to_be_bytes())?;
        Ok(())
    }
}

impl Engine for Fjall {
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()> {
        body(&mut self.ks)?;
        self.db.persist(fjall::PersistMode::SyncAll)?;
        Ok(())
    }
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()> {
        body(&mut self.ks)
    }
}
