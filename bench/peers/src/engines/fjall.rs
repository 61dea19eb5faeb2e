//! fjall: an LSM-tree with a journal; the batch's writes go to one
//! keyspace, and the commit is `persist(PersistMode::SyncAll)`. Reads need
//! no transaction.
//!
//! Memory: fjall's block cache (`cache_size`) does not hold its memtable,
//! whose default bound is 64 MiB a keyspace whatever the cache: left so,
//! fjall would get `--memory` plus 64 MiB (five times the rest at 16 MiB).
//! So `--memory` is split as flashix's LSM-tree splits its budget (C0 at
//! most half): half to the memtable (`max_memtable_size`), half to the
//! block cache; fjall is given what every engine is, not less (a sealed
//! memtable is also held while it is flushed, and the pinned L0 filter
//! blocks are outside the cache).
//!
//! Filter and index blocks are partitioned at every level (fjall's default
//! partitions only from L3): an unpartitioned filter block of a 64 MiB
//! table at 4×10⁶ keys does not fit an 8 MiB cache, so every lookup read
//! and parsed it whole (the first tenth of 4×10⁶ lookups took 330 s);
//! partitioned, a lookup reads one filter partition (docs/PERFORMANCE.md,
//! "Beyond memory").

use std::path::Path;

use super::{be_u64, Engine, Reader, Writer};
use crate::error::Res;

pub struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
}

impl Fjall {
    /// `default_memtable`: the engine `fjall-default`, fjall's own memtable
    /// bound (64 MiB) beside a block cache of all of `memory` — the setting
    /// of the runs before issue #45, kept so that a result is shown against
    /// fjall with more memory than the others as well as with the same.
    pub fn create(dir: &Path, memory: usize, default_memtable: bool) -> Res<Fjall> {
        let memtable = memory as u64 / 2;
        let every_level = fjall::config::PartitioningPolicy::all(true);
        let cache = if default_memtable {
            memory as u64
        } else {
            memory as u64 - memtable
        };
        let db = fjall::Database::builder(dir.join("fjall"))
            .cache_size(cache)
            .open()?;
        let ks = db.keyspace("t", || {
            let o = fjall::KeyspaceCreateOptions::default()
                .filter_block_partitioning_policy(every_level.clone())
                .index_block_partitioning_policy(every_level.clone());
            if default_memtable {
                o
            } else {
                o.max_memtable_size(memtable)
            }
        })?;
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
