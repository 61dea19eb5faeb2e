//! LMDB through heed: an mmap'd copy-on-write B-tree; one write
//! transaction per batch, committed (LMDB syncs on commit by default), and
//! one read transaction for the lookups. No cache knob: it reads through
//! the OS page cache.

use std::path::Path;

use super::{Engine, Reader, Writer};
use crate::error::Res;

type Key = heed::types::U64<heed::byteorder::BigEndian>;
type Db = heed::Database<'static, Key, Key>;

pub struct Lmdb {
    // Leaked: heed 0.23's databases borrow their environment, and the
    // process ends with the run.
    env: &'static heed::Env,
    db: Db,
}

impl Lmdb {
    pub fn create(dir: &Path) -> Res<Lmdb> {
        let path = dir.join("lmdb");
        std::fs::create_dir_all(&path)?;
        // SAFETY: the environment is opened once, by this process only.
        let env = unsafe { heed::EnvOpenOptions::new().map_size(16 << 30).open(&path)? };
        let env: &'static heed::Env = Box::leak(Box::new(env));
        let w = env.write_txn()?;
        let db = env
            .create_databases_and_commit(w, |wdo, w| -> Res<_> {
                Ok(heed::CommitOrAbort::<_, ()>::Commit(
                    wdo.create_database::<Key, Key>(w, None)?,
                ))
            })?
            .unwrap_commit();
        Ok(Lmdb { env, db })
    }
}

/// The database inside a read transaction.
struct Read<'a, 'e> {
    db: Db,
    txn: &'a heed::RoTxn<'e>,
}

/// The database inside a write transaction.
struct Write<'a, 'e> {
    db: Db,
    txn: &'a mut heed::RwTxn<'e>,
}

impl Reader for Read<'_, '_> {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(self.db.get(self.txn, &key)?)
    }
}

impl Reader for Write<'_, '_> {
    fn get(&mut self, key: u64) -> Res<Option<u64>> {
        Ok(self.db.get(self.txn, &key)?)
    }
}

impl Writer for Write<'_, '_> {
    fn put(&mut self, key: u64, value: u64) -> Res<()> {
        Ok(self.db.put(self.txn, &key, &value)?)
    }
}

impl Engine for Lmdb {
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()> {
        let mut txn = self.env.write_txn()?;
        body(&mut Write {
            db: self.db,
            txn: &mut txn,
        })?;
        txn.commit()?;
        Ok(())
    }
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()> {
        let txn = self.env.read_txn()?;
        body(&mut Read {
            db: self.db,
            txn: &txn,
        })
    }
}
