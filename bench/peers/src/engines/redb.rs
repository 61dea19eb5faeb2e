//! redb: a copy-on-write B-tree; one write transaction per batch,
//! committed with `Durability::Immediate` (fsync), and one read
//! transaction for the lookups.

use std::path::Path;

use redb::{ReadableDatabase, ReadableTable};

use super::{Engine, Reader, Writer};
use crate::error::Res;

const TABLE: redb::TableDefinition<u64, u64> = redb::TableDefinition::new("t");

pub struct Redb {
    db: redb::Database,
}

impl Redb {
    pub fn create(dir: &Path, memory: usize) -> Res<Redb> {
        let db = redb::Builder::new()
            .set_cache_size(memory)
            .create(dir.join("data.redb"))?;
        Ok(Redb { db })
    }
}

/// A table open in a write transaction (`Table`) or a read one
/// (`ReadOnlyTable`): both read through `ReadableTable`.
struct Open<T>(T);

impl<T: ReadableTable<u64, u64>> Reader for Open<T> {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(self.0.get(key)?.map(|g| g.value()))
    }
}

impl Writer for Open<redb::Table<'_, u64, u64>> {
    fn put(&mut self, key: u64, value: u64) -> Res<()> {
        self.0.insert(key, value)?;
        Ok(())
    }
}

impl Engine for Redb {
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()> {
        let mut tx = self.db.begin_write()?;
        tx.set_durability(redb::Durability::Immediate)?;
        body(&mut Open(tx.open_table(TABLE)?))?;
        tx.commit()?;
        Ok(())
    }
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()> {
        let tx = self.db.begin_read()?;
        body(&mut Open(tx.open_table(TABLE)?))
    }
}
