//! [`Logged`]: every index on a store with a write-ahead log (issue #29):
//! `flush()` appends the operations since the last flush to the commit
//! layer's log and syncs once (a group commit), and only when the log
//! passes its bound does a *checkpoint* flush the index itself, through
//! the commit layer's atomic commit, which empties the log.
//!
//! Why beneath every index rather than inside one: the papers' indexes
//! make a flush durable by writing their dirty structure (the LSM-tree its
//! whole in-memory component, a B+-tree its dirty nodes), and the commit
//! layer then writes its changed map pages and two meta records with three
//! syncs. Measured on this machine's disk with a flush every 1,000 inserts
//! (`docs/PERFORMANCE.md`), that is hundreds of bytes an insert where an
//! engine with a journal (fjall, RocksDB) writes tens. Logging the
//! operations, as those engines do, serves every index at once and leaves
//! each index's own page writes as its paper describes them; the papers'
//! experiments, on simulated devices, run without a log
//! (`DeviceSpec::log_bytes` is 0 there).
//!
//! Records (in log pages, `device::shadow`'s `log`): the operations
//! applied — insert, delete (only of a pair that was present), update,
//! upsert (an index that keeps versions of keys: `Index::upsert`) — in
//! runs of one operation with delta-coded keys (`store::records`, which
//! gives the format). A record never spans pages.
//!
//! Recovery: opening an index reads its last commit, then replays the
//! records of the log's complete batches in order. Replaying the same
//! operations on the same state gives the same set of entries (an index
//! holds a set of pairs: `index` module doc), so the index answers as it
//! did at the last flush. A store opened read-only cannot write what a
//! replay would make the index write, so its replay goes into an overlay
//! in RAM, merged into every answer.
//!
//! Invariants:
//! 1. Between two flushes, the log holds complete batches of every
//!    operation since the last checkpoint, and `pending` the operations
//!    since the last page written; a page written holds only operations
//!    that were applied to the index.
//! 2. After a bulk load (not logged: it may be 10⁸ entries), or on an
//!    index created over a storage that holds an older commit, the next
//!    flush is a checkpoint, and no page goes to the log before it.

use std::collections::BTreeSet;
use std::sync::{Arc, MutexGuard};

use crate::device::fault::SharedDevice;
use crate::device::{BlockDevice, CommitLog, Storage};
use crate::index::{EntryFormat, Index, IndexError, IndexStats, Result};

use super::records::{self, Encoder, Op};

/// An index over a storage with a write-ahead log (module doc).
pub struct Logged {
    inner: Box<dyn Index>,
    /// The commit layer, shared with the index (which holds the other
    /// handle as its storage): the log is written beside its pages.
    device: SharedDevice,
    format: EntryFormat,
    /// Records since the last log page written.
    pending: Vec<u8>,
    /// Lays records out in `pending`.
    encoder: Encoder,
    /// Record bytes a log page holds.
    payload: usize,
    /// Pages written of a batch not yet ended.
    open_batch: bool,
    /// The next flush checkpoints (invariant 2).
    must_checkpoint: bool,
    /// A read-only store's replayed operations.
    overlay: Option<Overlay>,
    checkpoints: u64,
    batches: u64,
    replayed: u64,
}

/// Locks the shared device (a panic elsewhere that poisoned the lock left
/// the device as it was: every change to it is a whole call).
fn lock(device: &SharedDevice) -> MutexGuard<'_, Box<dyn BlockDevice>> {
    device.0.lock().unwrap_or_else(|e| e.into_inner())
}

/// The log of `dev`. Every `Logged` is built over a device that has one
/// (`open` checks), and nothing takes it away.
fn log_of(dev: &mut dyn BlockDevice) -> Result<&mut dyn CommitLog> {
    dev.commit_log().ok_or_else(|| {
        IndexError::Config("the storage beneath a logged index has no commit log".into())
    })
}

/// Builds the index `open` makes on `storage`, under a [`Logged`] if the
/// storage's commit layer has a log in use (else as it is). `fresh`: a new
/// index, which ignores the log an older commit left. `memory` is the
/// index's budget: the log's one page of records in RAM belongs to the
/// commit layer, as its page map does (`device::shadow`: device memory,
/// like an FTL's mapping table), and is not counted in it; a read-only
/// store's overlay holds entries, and is.
pub(super) fn with_log(
    storage: Storage,
    memory: usize,
    fresh: bool,
    read_only: bool,
    open: impl FnOnce(Storage, usize) -> Result<Box<dyn Index>>,
) -> Result<Box<dyn Index>> {
    let mut dev = match storage {
        Storage::Pages(mut dev) => {
            if dev.commit_log().is_none() {
                return open(Storage::Pages(dev), memory);
            }
            dev
        }
        raw => return open(raw, memory),
    };
    let payload = log_of(dev.as_mut())?.payload_bytes();
    let device = SharedDevice::new(dev);
    let inner = open(Storage::Pages(Box::new(device.clone())), memory)?;
    let records = log_of(lock(&device).as_mut())?.take_recovered();
    let format = inner.format();
    let mut logged = Logged {
        format,
        inner,
        device,
        pending: Vec::with_capacity(payload),
        encoder: Encoder::new(format),
        payload,
        open_batch: false,
        must_checkpoint: fresh,
        overlay: read_only.then(Overlay::default),
        checkpoints: 0,
        batches: 0,
        replayed: 0,
    };
    if !fresh {
        logged.replay(&records)?;
    }
    Ok(Box::new(logged))
}

impl Logged {
    /// Adds the record of an operation applied to the index, writing the
    /// page it fills first (invariant 1).
    fn record(&mut self, op: Op) -> Result<()> {
        if !self.encoder.fits(&op, self.pending.len(), self.payload) {
            self.write_page()?;
        }
        self.encoder.push(&op, &mut self.pending);
        Ok(())
    }

    /// Forgets the records not yet written (they went to a page, or the
    /// checkpoint to come holds them).
    fn clear_pending(&mut self) {
        self.pending.clear();
        self.encoder.page_written();
    }

    /// Whether the log can take another page, or the bound (or a missing
    /// log) calls for a checkpoint instead.
    fn log_has_room(&self) -> Result<bool> {
        let mut dev = lock(&self.device);
        let log = log_of(dev.as_mut())?;
        Ok(log.ready() && log.len_bytes() + (self.payload as u64) < log.bound_bytes())
    }

    /// Writes `pending` as a page of the open batch, or checkpoints.
    fn write_page(&mut self) -> Result<()> {
        if self.must_checkpoint {
            // The checkpoint to come holds these operations.
            self.clear_pending();
            return Ok(());
        }
        if !self.log_has_room()? {
            return self.checkpoint();
        }
        log_of(lock(&self.device).as_mut())?.append(&self.pending, false)?;
        self.clear_pending();
        self.open_batch = true;
        Ok(())
    }

    /// Flushes the index through the commit layer, whose commit empties
    /// the log.
    fn checkpoint(&mut self) -> Result<()> {
        self.inner.flush()?;
        self.clear_pending();
        self.open_batch = false;
        self.must_checkpoint = false;
        self.checkpoints += 1;
        Ok(())
    }

    /// Applies the log's records to the index (or, read-only, to the
    /// overlay), without logging them again: they are in the log.
    fn replay(&mut self, records: &[u8]) -> Result<()> {
        let mut ops = Vec::new();
        records::decode(self.format, records, &mut ops)?;
        self.replayed = ops.len() as u64;
        let mut values = Vec::new();
        for op in ops {
            match (&mut self.overlay, op) {
                (None, Op::Insert(k, v)) => self.inner.insert(k, v)?,
                (None, Op::Delete(k, v)) => {
                    self.inner.delete(k, v)?;
                }
                (None, Op::Update(k, old, new)) => {
                    self.inner.update(k, old, new)?;
                }
                (None, Op::Upsert(k, v)) => self.inner.upsert(k, v)?,
                (Some(o), op) => o.apply(op, self.inner.as_mut(), &mut values)?,
            }
        }
        Ok(())
    }

    /// Gives the device back whole: the index's handle goes first, so the
    /// shared one is the last.
    fn device_back(self) -> Storage {
        let Logged { inner, device, .. } = self;
        drop(inner.into_storage());
        match Arc::try_unwrap(device.0) {
            Ok(dev) => Storage::Pages(dev.into_inner().unwrap_or_else(|e| e.into_inner())),
            Err(shared) => Storage::Pages(Box::new(SharedDevice(shared))),
        }
    }
}

/// What a read-only store's log changes: pairs it adds, pairs it removes
/// from what the index holds.
#[derive(Debug, Default)]
struct Overlay {
    added: BTreeSet<(u64, u64)>,
    removed: BTreeSet<(u64, u64)>,
}

impl Overlay {
    fn present(
        &self,
        index: &mut dyn Index,
        key: u64,
        value: u64,
        values: &mut Vec<u64>,
    ) -> Result<bool> {
        if self.added.contains(&(key, value)) {
            return Ok(true);
        }
        if self.removed.contains(&(key, value)) {
            return Ok(false);
        }
        index.get(key, values)?;
        Ok(values.binary_search(&value).is_ok())
    }

    fn insert(&mut self, key: u64, value: u64) {
        self.removed.remove(&(key, value));
        self.added.insert((key, value));
    }

    fn delete(&mut self, key: u64, value: u64) {
        self.added.remove(&(key, value));
        self.removed.insert((key, value));
    }

    fn apply(&mut self, op: Op, index: &mut dyn Index, values: &mut Vec<u64>) -> Result<()> {
        match op {
            Op::Insert(k, v) => self.insert(k, v),
            Op::Delete(k, v) => self.delete(k, v),
            Op::Update(k, old, new) => {
                if self.present(index, k, old, values)? {
                    self.delete(k, old);
                }
                self.insert(k, new);
            }
            Op::Upsert(k, v) => {
                // Every value the key holds now gives way to `v`.
                index.get(k, values)?;
                let mut pairs: Vec<(u64, u64)> = values.iter().map(|&old| (k, old)).collect();
                self.merge(k, k, &mut pairs);
                for (_, old) in pairs {
                    self.delete(k, old);
                }
                self.insert(k, v);
            }
        }
        Ok(())
    }

    /// `found` (the index's entries in `lo..=hi`, in order) with the
    /// overlay's changes.
    fn merge(&self, lo: u64, hi: u64, found: &mut Vec<(u64, u64)>) {
        if (self.added.is_empty() && self.removed.is_empty()) || lo > hi {
            return;
        }
        found.retain(|p| !self.removed.contains(p));
        found.extend(self.added.range((lo, 0)..=(hi, u64::MAX)));
        found.sort_unstable();
        found.dedup();
    }
}

impl Index for Logged {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn format(&self) -> EntryFormat {
        self.format
    }
    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.inner.insert(key, value)?;
        self.record(Op::Insert(key, value))
    }
    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        let found = self.inner.delete(key, value)?;
        if found {
            self.record(Op::Delete(key, value))?;
        }
        Ok(found)
    }
    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        let found = self.inner.update(key, old, new)?;
        self.record(Op::Update(key, old, new))?;
        Ok(found)
    }
    fn versions_by_key(&self) -> bool {
        self.inner.versions_by_key()
    }
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        self.inner.upsert(key, value)?;
        self.record(Op::Upsert(key, value))
    }
    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.inner.get(key, out)?;
        if let Some(o) = &self.overlay {
            let mut pairs: Vec<(u64, u64)> = out.iter().map(|&v| (key, v)).collect();
            o.merge(key, key, &mut pairs);
            out.clear();
            out.extend(pairs.into_iter().map(|p| p.1));
        }
        Ok(())
    }
    fn defers_lookups(&self) -> bool {
        self.inner.defers_lookups() && self.overlay.is_none()
    }
    fn get_later(&mut self, key: u64) -> Result<u64> {
        self.inner.get_later(key)
    }
    fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        self.inner.take_answers(out)
    }
    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        self.inner.range(lo, hi, out)?;
        if let Some(o) = &self.overlay {
            o.merge(lo, hi.min(self.format.max_key()), out);
        }
        Ok(())
    }
    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        // Invariant 2: set first, so that a load that fails half-way is
        // not followed by log pages either.
        self.must_checkpoint = true;
        self.clear_pending();
        self.inner.bulk_load(entries)
    }
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        self.inner.steady_state_inserts(entries)
    }
    fn flush(&mut self) -> Result<()> {
        if self.must_checkpoint {
            return self.checkpoint();
        }
        if self.pending.is_empty() && !self.open_batch {
            return Ok(());
        }
        if !self.log_has_room()? {
            return self.checkpoint();
        }
        log_of(lock(&self.device).as_mut())?.append(&self.pending, true)?;
        self.clear_pending();
        self.open_batch = false;
        self.batches += 1;
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        let overlay = self.overlay.as_ref().map_or(0, |o| {
            (o.added.len() + o.removed.len()) * self.format.entry_bytes()
        });
        self.inner.memory_bytes() + overlay
    }
    fn data_bound_bytes(&self) -> u64 {
        self.inner.data_bound_bytes()
    }
    fn stats(&self) -> IndexStats {
        let mut s = self.inner.stats();
        s.set("log_checkpoints", self.checkpoints as f64);
        s.set("log_batches", self.batches as f64);
        s.set("log_records_replayed", self.replayed as f64);
        s
    }
    fn notes(&self) -> Vec<String> {
        let mut n = self.inner.notes();
        n.push(format!(
            "write-ahead log: {} flushes appended, {} checkpoints, {} records replayed at open",
            self.batches, self.checkpoints, self.replayed
        ));
        n
    }
    fn flash_bytes_used(&self) -> u64 {
        self.inner.flash_bytes_used()
    }
    fn storage(&self) -> &Storage {
        self.inner.storage()
    }
    fn into_storage(self: Box<Self>) -> Storage {
        self.device_back()
    }
}
