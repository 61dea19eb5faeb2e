//! [`Guarded`]: the one meaning an error has (issue #28): after a call
//! fails with anything but a rejected input, the index is *poisoned*.
//!
//! An operation that fails half-way (a page written, the next one not) can
//! leave an index's state in RAM describing pages that are not on the
//! device, or entries that were never stored; a later `flush` that
//! succeeds would make that state durable (deleted entries coming back, a
//! node pointer naming a page never written). No index here can undo half
//! an operation, so none is asked to: as redb and LMDB abort a failed
//! write transaction, the guard refuses every later call with
//! [`IndexError::Poisoned`], naming the first error, until the store is
//! reopened, which lands at its last successful `flush` (the commit layer,
//! `device::shadow`, keeps that commit whole through any failed write, sync
//! or commit: `docs/FORMAT.md`).
//!
//! Not poisoning: a key or value that does not fit the entry format, an
//! unsupported call (`Config`) and a bulk load given entries out of order
//! are rejected before anything changes. Every other error poisons: a
//! device error (I/O, `Full`, power lost, a device that must be
//! reopened), `Corrupt` (a read that meets damage may have been half-way
//! through a write: the delta indexes consolidate, the Buffered-B+ tree
//! empties buffers, on lookups), and a budget found too small
//! mid-operation. `Full` too: some indexes refuse an operation the
//! device cannot hold before changing anything, but not all, and not
//! every flush (a buffered index applies its buffers then), and a store
//! carrying on after a `Full` that left it half-changed flushed a corrupt
//! image (`tests/full_device.rs`, every index on a committed device
//! filled, written on, flushed and reopened).
//!
//! [`create_index`](super::create_index) and
//! [`open_index`](super::open_index) return every index guarded.

use crate::device::Storage;
use crate::index::{EntryFormat, Index, IndexError, IndexStats, InnerLoop, Result};

/// An index that refuses every call after one that failed (module doc).
pub struct Guarded {
    inner: Box<dyn Index>,
    /// The first error that poisoned it, as text.
    poisoned: Option<String>,
    /// Opened for queries only: every call that would change it is refused
    /// (a buffering index would otherwise take an insert into RAM and lose
    /// it silently).
    read_only: bool,
}

impl Guarded {
    pub fn new(inner: Box<dyn Index>) -> Self {
        Guarded {
            inner,
            poisoned: None,
            read_only: false,
        }
    }

    /// `inner` for queries only: inserts, deletes, updates, bulk loads,
    /// flushes and delayed lookups are refused with a `Config` error, which
    /// changes nothing.
    pub fn read_only(inner: Box<dyn Index>) -> Self {
        Guarded {
            read_only: true,
            ..Guarded::new(inner)
        }
    }

    /// Runs `f` on the index unless it is poisoned (or, for a call that
    /// `changes` it, open read-only), and poisons it if `f` fails with an
    /// error that may have left it half-changed.
    ///
    /// In line, one test for both refusals and the success passed on as
    /// a new `Ok` (not the inner call's whole `Result` copied); refusals
    /// and errors are out of line.
    #[inline(always)]
    fn call<T>(&mut self, changes: bool, f: impl FnOnce(&mut dyn Index) -> Result<T>) -> Result<T> {
        if self.poisoned.is_some() || (changes && self.read_only) {
            return Err(self.refusal());
        }
        match f(self.inner.as_mut()) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.poisoned_by(e)),
        }
    }

    /// Why a call is refused: poisoned, else (a call that changes the
    /// index) read-only.
    #[cold]
    #[inline(never)]
    fn refusal(&self) -> IndexError {
        match &self.poisoned {
            Some(first) => IndexError::Poisoned {
                first: first.clone(),
            },
            None => IndexError::ReadOnly(format!("the {} index", self.inner.name())),
        }
    }

    /// `e`, having poisoned the index if it may have left it half-changed.
    #[cold]
    #[inline(never)]
    fn poisoned_by(&mut self, e: IndexError) -> IndexError {
        Guarded::poison(&mut self.poisoned, &e);
        e
    }

    /// Poisons (`poisoned`) by `e` if it may have left the index
    /// half-changed and nothing poisoned it before.
    #[cold]
    #[inline(never)]
    fn poison(poisoned: &mut Option<String>, e: &IndexError) {
        let harmless = matches!(
            e,
            IndexError::KeyOutOfRange { .. }
                | IndexError::ValueOutOfRange { .. }
                | IndexError::Config(_)
                | IndexError::BulkLoad(_)
        );
        if !harmless && poisoned.is_none() {
            *poisoned = Some(e.to_string());
        }
    }
}

impl Index for Guarded {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn format(&self) -> EntryFormat {
        self.inner.format()
    }
    fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.call(true, |i| i.insert(key, value))
    }
    fn delete(&mut self, key: u64, value: u64) -> Result<bool> {
        self.call(true, |i| i.delete(key, value))
    }
    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.call(true, |i| i.update(key, old, new))
    }
    fn versions_by_key(&self) -> bool {
        self.inner.versions_by_key()
    }
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        self.call(true, |i| i.upsert(key, value))
    }
    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()> {
        self.call(false, |i| i.get(key, out))
    }
    /// Read-only, lookups are answered at once: a delayed lookup is
    /// answered when its batch reaches the leaves, which writes.
    fn defers_lookups(&self) -> bool {
        self.inner.defers_lookups() && !self.read_only
    }
    fn get_later(&mut self, key: u64) -> Result<u64> {
        self.call(self.read_only, |i| i.get_later(key))
    }
    fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        self.inner.take_answers(out)
    }
    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()> {
        self.call(false, |i| i.range(lo, hi, out))
    }
    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        self.call(true, |i| i.bulk_load(entries))
    }
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        self.inner.steady_state_inserts(entries)
    }
    fn flush(&mut self) -> Result<()> {
        self.call(true, |i| i.flush())
    }
    /// `f` on the inner index when every call of its loop passes `call`'s
    /// test: neither poisoned nor read-only, no call is refused, and only
    /// an error can poison the index, which ends the loop with that error.
    /// The error `f` is given poisons as the call that gave it would have.
    fn run_inner(&mut self, f: &mut InnerLoop<'_>) {
        if self.read_only || self.poisoned.is_some() {
            return;
        }
        let Guarded {
            inner, poisoned, ..
        } = self;
        f(inner.as_mut(), &mut |e| Guarded::poison(poisoned, e));
    }
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
    fn stats(&self) -> IndexStats {
        self.inner.stats()
    }
    fn data_bound_bytes(&self) -> u64 {
        self.inner.data_bound_bytes()
    }
    fn notes(&self) -> Vec<String> {
        let mut n = self.inner.notes();
        if let Some(first) = &self.poisoned {
            n.push(format!(
                "poisoned by: {first} (reopen to continue from the last flush)"
            ));
        }
        n
    }
    fn flash_bytes_used(&self) -> u64 {
        self.inner.flash_bytes_used()
    }
    fn storage(&self) -> &Storage {
        self.inner.storage()
    }
    fn into_storage(self: Box<Self>) -> Storage {
        self.inner.into_storage()
    }
}
