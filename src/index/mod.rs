//! The index layer: one trait, [`Index`], for every index flashix implements.
//!
//! Semantics (all five papers): an index holds a **set of entries**, each a
//! key and a pointer (here `value`). Keys may repeat; a (key, value) pair is
//! unique. Inserting a pair that is present changes nothing; `update` is
//! `delete(key, old)` followed by `insert(key, new)`.
//!
//! Keys and values are integers stored on flash at the widths of an
//! [`EntryFormat`] (4 + 4 bytes by default, 8 + 8 allowed); a key or value that
//! does not fit is an [`IndexError::KeyOutOfRange`] / `ValueOutOfRange`,
//! rejected before anything changes.
//!
//! Every index is built from a [`Storage`], an [`EntryFormat`], a memory budget
//! in bytes and its own [`Params`]; a budget too small to work with is
//! refused with [`IndexError::BudgetTooSmall`]. `memory_bytes()` counts every
//! byte held in RAM between operations at the width it would have on flash.
//! After `flush()`, dropping the index and opening it again from the same
//! storage finds every entry.

pub mod asbtree;
pub mod bftl;
pub mod btree;
mod bulk;
pub mod delta;
mod error;
pub mod fdtree;
pub mod kinds;
pub mod latree;
pub mod lsm;
pub mod mbtree;
pub(crate) mod runs;

pub use crate::node::{EntryFormat, IndexStats};
pub use error::IndexError;
pub use kinds::Params;

use crate::device::Storage;

/// Result of an index operation.
pub type Result<T> = std::result::Result<T, IndexError>;

/// A loop of calls given to [`Index::run_inner`]: the index to call, and
/// what a wrapper does with the error that stops it.
pub type InnerLoop<'a> = dyn FnMut(&mut dyn Index, &mut dyn FnMut(&IndexError)) + 'a;

/// One index over one storage.
pub trait Index: Send {
    /// The registry name (`btree`, `bftl`, ...).
    fn name(&self) -> &'static str;
    /// The entry widths on flash.
    fn format(&self) -> EntryFormat;
    /// Adds the entry; a pair already present changes nothing.
    fn insert(&mut self, key: u64, value: u64) -> Result<()>;
    /// Removes the entry; `Ok(false)` when it was not present.
    fn delete(&mut self, key: u64, value: u64) -> Result<bool>;
    /// `delete(key, old)` then `insert(key, new)`; returns whether `old` was
    /// present. Both pairs are range-checked before anything changes.
    fn update(&mut self, key: u64, old: u64, new: u64) -> Result<bool> {
        self.format().check(key, new)?;
        let found = self.delete(key, old)?;
        self.insert(key, new)?;
        Ok(found)
    }
    /// Whether this index keeps *versions of keys* (created with
    /// `versions=key`, recorded in its file): the newest entry of a key
    /// shadows every older one, so a key holds at most one value and
    /// [`Index::upsert`] writes without reading. False for the papers'
    /// set of pairs (the default of every index).
    fn versions_by_key(&self) -> bool {
        false
    }
    /// Sets `key` to `value` without reading (a blind upsert): the entry
    /// is the key's newest version, and every lookup and merge lets it
    /// shadow the older ones. Only an index that keeps versions of keys
    /// has it; any other answers [`IndexError::Config`] (a map over a set
    /// of pairs must read first: `Store::put`).
    fn upsert(&mut self, key: u64, value: u64) -> Result<()> {
        let _ = (key, value);
        Err(IndexError::Config(format!(
            "{} does not keep versions of keys: an upsert must read first",
            self.name()
        )))
    }
    /// Replaces `out` with the values stored under `key`, ascending.
    fn get(&mut self, key: u64, out: &mut Vec<u64>) -> Result<()>;
    /// Whether lookups are answered later, in batches (the buffer tree's
    /// delayed lookups, Agrawal et al. 2009 §3.1): a runner then
    /// queues each with [`Index::get_later`] and collects the answers with
    /// [`Index::take_answers`]. `get` still answers at once. The answer
    /// is fixed for the index's life: the runner reads it once a run.
    fn defers_lookups(&self) -> bool {
        false
    }
    /// Queues a lookup of `key`, answered when the batch holding it reaches
    /// the leaves (at the latest by the next `flush`) with the values
    /// `get(key)` would have returned now; returns its ticket.
    fn get_later(&mut self, key: u64) -> Result<u64> {
        let _ = key;
        Err(IndexError::Config(format!(
            "{} answers lookups at once; it has no delayed lookups",
            self.name()
        )))
    }
    /// Moves the delayed lookups answered since the last call into `out`
    /// as (ticket, values ascending).
    fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        let _ = out;
    }
    /// Replaces `out` with the entries whose key is in `lo..=hi`, in
    /// (key, value) order.
    fn range(&mut self, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) -> Result<()>;
    /// Builds the index from `entries`, which must come in strictly
    /// ascending (key, value) order, into an index that holds nothing:
    /// the preload of a large index, written bottom-up in one sequential
    /// pass where the index has a bulk loader (the B+-tree and BFTL, the
    /// FD-tree, the LSM-tree), inserted one by one otherwise. Nothing is
    /// durable until the next `flush`; an input out of order is an
    /// [`IndexError::BulkLoad`] and leaves the index empty (`index::bulk`).
    fn bulk_load(&mut self, entries: &mut dyn Iterator<Item = (u64, u64)>) -> Result<()> {
        let mut input = bulk::BulkInput::new(self.format(), entries);
        for (key, value) in input.by_ref() {
            self.insert(key, value)?;
        }
        input.finish().map(drop)
    }
    /// Of an index of `entries` entries, how many a bulk-loaded preload
    /// inserts one by one after loading the rest, so that the measured work
    /// starts from the state the index's own inserts leave rather than from
    /// a freshly loaded one: the FD-tree's upper levels half full (each
    /// fills and empties), the LSM-tree's upper components at capacity
    /// (rolling merges hold them there), BFTL's nodes spread over sectors
    /// as its commits spread them (C inserts a leaf). 0 for an index whose
    /// loaded state is its steady state (the B+-tree, at ln 2 fill).
    fn steady_state_inserts(&self, entries: u64) -> u64 {
        let _ = entries;
        0
    }
    /// Makes everything buffered durable on the storage and syncs it.
    fn flush(&mut self) -> Result<()>;
    /// Bytes held in RAM between operations (caches, buffers, tables), at
    /// their on-flash widths.
    fn memory_bytes(&self) -> usize;
    /// For a loop of calls whose wrapper checks hold for all of them (a
    /// run's measured operations, through the store's guard, `Guarded`):
    /// calls `f` once with the index the wrapper's calls reach and what
    /// the wrapper does with a call's error (the guard's poisoning), which
    /// `f` must be given the first error any call returns, where the loop
    /// stops. Does nothing where there is no such index (the default) or
    /// the wrapper must check each call: `f` not called, call `self`.
    fn run_inner(&mut self, f: &mut InnerLoop<'_>) {
        let _ = f;
    }
    /// Index-specific counters.
    fn stats(&self) -> IndexStats;
    /// Bytes of the data-bound tables counted in `memory_bytes`
    /// (`node::budget`): the sum of `stats`' data-bound lines. The runner
    /// asks after every operation where the tables stand outside the
    /// budget or the count passes it, so an index whose `stats` walks a
    /// table (BFTL's longest sector list) answers from its own sums.
    fn data_bound_bytes(&self) -> u64 {
        crate::node::budget::data_bound_bytes(&self.stats())
    }
    /// Facts about this run a reader of the report must know (how an index
    /// adapted to the device, what its memory figure leaves out).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Flash space the index occupies (live pages × page size).
    fn flash_bytes_used(&self) -> u64;
    /// The storage the index is on (for device counters).
    fn storage(&self) -> &Storage;
    /// Gives the storage back, without flushing (a crash test drops the
    /// index this way; call `flush` first for a clean close).
    fn into_storage(self: Box<Self>) -> Storage;
}
