//! [`Store`]: one index in one file (or on one device), as an application
//! embeds it: a key-value map of `u64` to `u64` with explicit durability
//! points.
//!
//! Every index of the five papers and their baselines can hold a store
//! ([`Options::index`]; `flashix list` names them, the B+-tree is the
//! default). The store is the facade a Rust program uses; the layers
//! beneath (`device`, `index`) stay public for the experiments, and this
//! module adds no algorithm of its own, only the semantics an application
//! expects from a store:
//!
//! * **Map semantics by default.** The papers' indexes hold a *set of
//!   (key, value) pairs* (a key may repeat: an index of a relation's
//!   secondary key). [`Store::put`] replaces a key's value, so a store
//!   holds at most one value per key; this costs a lookup before each
//!   write (an index over a set of pairs cannot replace blind).
//!   [`Store::set`] writes without returning the old value: on an index
//!   that orders versions (`registry::keeps_versions`: the LSM-tree, …) a
//!   new map store is created with `versions=key`, recorded in its file,
//!   and `set` is a blind upsert (`Index::upsert`: the newest version of
//!   a key wins at every lookup, and merges drop the older ones), so an
//!   insert reads nothing; on any other index `set` is `put`.
//!   [`Semantics::Multiset`] keeps the papers' set of pairs
//!   ([`Store::insert`], [`Store::remove`], [`Store::get_all`]). A file of
//!   versions of keys is a map: opening it as a multiset is refused
//!   ([`StoreError::Semantics`]). A file of pairs opens either way, and a
//!   multiset file opened as a map answers a key with two values by an
//!   error, never by one of them.
//! * **Full-width keys and values.** A store's entries are 8 + 8 bytes
//!   unless the options set `key_bytes`/`value_bytes` (the paper
//!   experiments keep their 4 + 4 formats): every `u64` fits.
//! * **One on-disk format.** A file store is always the index over the
//!   commit layer (`device::shadow`), the format `flashix run --device
//!   file:PATH` makes and opens: a store made here opens through the
//!   command line and the reverse. A file that is not a flashix store is
//!   refused with [`crate::device::DeviceError::NotAStore`]; opening reads
//!   the index kind and its parameters from the file, so [`Store::open`]
//!   needs no options but memory.
//! * **Durability at `flush`.** [`Store::flush`] (and [`Store::close`])
//!   makes every change so far durable, as one batch: it appends the
//!   operations since the last flush to the write-ahead log and syncs
//!   once, and when the log holds [`Options::log_bytes`] it checkpoints
//!   instead, writing the index's changes through an atomic commit
//!   (`store::logged`). After it returns, a crash or a failed run opens
//!   at it. After any error but a rejected input the store is poisoned
//!   (`store::guard`): every call returns [`crate::index::IndexError::Poisoned`]
//!   naming the first error, and opening it again lands at the last flush
//!   (`docs/FORMAT.md`, rule 7).
//! * **Drop.** Dropping a store without `close` neither flushes nor panics:
//!   everything since the last flush is lost, as a crash would lose it,
//!   and a `log` warning says how many changes. Drop does not flush
//!   because a store dropped while unwinding from a panic may be
//!   half-way through an operation; committing that would break the
//!   contract.
//!
//! A store is `Send` (it can move to a worker thread), not `Sync`: one
//! thread at a time, as one writer per file (`device::file` holds the
//! file's lock; [`Store::open_read_only`] shares it with other readers).
//!
//! Invariants: `unflushed` counts the calls that changed the store since
//! the last successful flush; a read-only store never writes a byte.

pub mod guard;
mod logged;
mod open;
mod records;

use std::fmt;
use std::ops::{Bound, RangeBounds};
use std::path::{Path, PathBuf};

pub use crate::device::shadow::DEFAULT_LOG_BYTES;
use crate::device::{BlockDevice, DeviceError, DeviceSpec, DeviceStats, Shadow, Storage};
use crate::index::kinds::registry;
use crate::index::{Index, IndexError, Params};
use crate::node::NodeError;
pub use open::{create_index, open_index, open_index_read_only};

/// What a key may hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    /// One value per key: `put` replaces (the default).
    #[default]
    Map,
    /// The papers' set of (key, value) pairs: a key may hold several values.
    Multiset,
}

/// The index a new store holds when [`Options::index`] names none.
pub const DEFAULT_INDEX: &str = "btree";

/// How a store is made or opened. `Options::default()` is a B+-tree in
/// 4 MiB of memory with map semantics and 8-byte keys and values, and
/// opens a store of any kind.
#[derive(Clone, Debug)]
pub struct Options {
    /// The index kind (`flashix list`). Empty (the default): a new store
    /// is a [`DEFAULT_INDEX`], and an existing one opens as whatever index
    /// its file holds. A kind named here is a demand: opening a file that
    /// holds another is an [`IndexError::Mismatch`] naming both.
    pub index: String,
    /// Memory budget of the index in bytes (caches, buffers, tables), as
    /// the index counts it.
    pub memory: usize,
    /// Index parameters (`key=value`, as `flashix run --set` takes them);
    /// on open, ones the file records must agree with it.
    pub params: Vec<(String, String)>,
    pub semantics: Semantics,
    /// Page size of a new file (4 KiB); an existing store's is read from
    /// its commit record.
    pub page_size: usize,
    /// The write-ahead log's bound in bytes: a flush appends to the log
    /// and syncs once, and a flush that finds this much log checkpoints
    /// (writes the index's changes through an atomic commit). 0: no log,
    /// every flush commits. Default [`DEFAULT_LOG_BYTES`].
    pub log_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            index: String::new(),
            memory: 4 << 20,
            params: Vec::new(),
            semantics: Semantics::Map,
            page_size: 4096,
            log_bytes: DEFAULT_LOG_BYTES,
        }
    }
}

impl Options {
    /// The default options with index kind `index`: a new store holds
    /// it, and an existing store must.
    pub fn index(index: &str) -> Self {
        Options {
            index: index.into(),
            ..Options::default()
        }
    }
    /// Sets the memory budget in bytes.
    pub fn memory(mut self, bytes: usize) -> Self {
        self.memory = bytes;
        self
    }
    /// Adds an index parameter (`flashix list` shows each index's).
    pub fn set(mut self, key: &str, value: &str) -> Self {
        self.params.push((key.into(), value.into()));
        self
    }
    /// Sets the semantics.
    pub fn semantics(mut self, semantics: Semantics) -> Self {
        self.semantics = semantics;
        self
    }

    /// The index parameters of a store of index `kind`: the options',
    /// then the store's defaults for the kind (`registry::store_defaults`);
    /// a new store has full-width entries unless set otherwise, and a new
    /// map store of an index that orders versions keeps versions of keys
    /// (`versions=key`) unless the parameters say otherwise.
    fn index_params(&self, kind: &str, new: bool) -> Params {
        let mut p = Params::new();
        for (k, v) in &self.params {
            p.set(k, v);
        }
        for (k, v) in registry::store_defaults(kind, self.memory, self.page_size, new) {
            if !p.contains(k) {
                p.set(k, &v);
            }
        }
        if new {
            for k in ["key_bytes", "value_bytes"] {
                if !p.contains(k) {
                    p.set(k, "8");
                }
            }
            if self.semantics == Semantics::Map
                && registry::keeps_versions(kind)
                && !p.contains("versions")
            {
                p.set("versions", "key");
            }
        }
        p
    }

    fn file_spec(&self, path: &Path) -> DeviceSpec {
        let mut spec = DeviceSpec::file(path);
        spec.geometry.page_size = self.page_size as u32;
        spec.log_bytes = self.log_bytes;
        spec
    }

    /// The spec of an existing file: its page size is the file's.
    fn existing_spec(&self, path: &Path) -> DeviceSpec {
        let mut spec = self.file_spec(path);
        spec.adopt_stored_page_size();
        spec
    }
}

/// Errors of a store: the index's and the device's, and the store's own.
#[non_exhaustive]
#[derive(Debug)]
pub enum StoreError {
    Index(IndexError),
    Device(DeviceError),
    /// `create` found a file that already holds data.
    Exists(PathBuf),
    /// `open` found no file there.
    Missing(PathBuf),
    /// A call the store's [`Semantics`] does not have, or a map key found
    /// holding several values (a multiset store opened as a map).
    Semantics(String),
    /// A change (or a flush) asked of a store opened read-only.
    ReadOnly(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Index(e) => write!(f, "{e}"),
            StoreError::Device(e) => write!(f, "{e}"),
            StoreError::Exists(p) => write!(
                f,
                "{} already holds data: open it, or remove it to create a new store",
                p.display()
            ),
            StoreError::Missing(p) => write!(f, "{} does not exist", p.display()),
            StoreError::Semantics(m) => write!(f, "{m}"),
            StoreError::ReadOnly(what) => write!(
                f,
                "{what} is open read-only: nothing may change it (open it with `Store::open` to write)"
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Index(e) => Some(e),
            StoreError::Device(e) => Some(e),
            _ => None,
        }
    }
}

impl From<IndexError> for StoreError {
    fn from(e: IndexError) -> Self {
        StoreError::Index(e)
    }
}

impl From<NodeError> for StoreError {
    fn from(e: NodeError) -> Self {
        StoreError::Index(e.into())
    }
}

impl From<DeviceError> for StoreError {
    fn from(e: DeviceError) -> Self {
        StoreError::Device(e)
    }
}

/// Result of a store call.
pub type Result<T> = std::result::Result<T, StoreError>;

/// One index over one file or device, with map semantics by default
/// (module doc).
///
/// ```
/// use flashix::{Options, Store};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ids.flashix");
/// let mut store = Store::create(&path, &Options::default())?;
/// store.put(7, 700)?;
/// store.put(u64::MAX, 1)?;
/// assert_eq!(store.put(7, 701)?, Some(700)); // replaced
/// store.close()?; // flushes: durable from here
///
/// let mut store = Store::open(&path, &Options::default())?;
/// assert_eq!(store.get(7)?, Some(701));
/// let all: Vec<(u64, u64)> = store.range(..)?.collect::<Result<_, _>>()?;
/// assert_eq!(all, [(7, 701), (u64::MAX, 1)]);
/// # Ok(())
/// # }
/// ```
pub struct Store {
    index: Box<dyn Index>,
    semantics: Semantics,
    /// Where the store lives, for messages (`None`: a device).
    path: Option<PathBuf>,
    read_only: bool,
    /// Calls that changed the store since the last successful flush.
    unflushed: u64,
    values: Vec<u64>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("index", &self.index.name())
            .field("path", &self.path)
            .field("semantics", &self.semantics)
            .field("read_only", &self.read_only)
            .field("unflushed", &self.unflushed)
            .finish()
    }
}

/// Whether the file at `path` holds any byte.
fn holds_data(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

impl Store {
    /// A new, empty store in a new file at `path`, flushed: from the
    /// moment this returns, a crash leaves a store that opens (empty, or
    /// at its last flush). An empty file is taken, and so is a store file
    /// that a crash left before its first flush completed (nothing in it
    /// was durable). A file that holds data, a store or another program's,
    /// is refused and left as it is: open it, or remove it.
    pub fn create(path: impl AsRef<Path>, options: &Options) -> Result<Store> {
        let path = path.as_ref();
        let storage = if holds_data(path) {
            // Opened (and locked) as it is: only a store that never
            // committed is taken, with nothing truncated.
            let mut storage = options
                .existing_spec(path)
                .open_existing()
                .map_err(|e| match e {
                    DeviceError::NotAStore { .. } => StoreError::Exists(path.to_path_buf()),
                    e => StoreError::Device(e),
                })?;
            if registry::stored_kind(&mut storage)?.is_some() {
                return Err(StoreError::Exists(path.to_path_buf()));
            }
            storage
        } else {
            options.file_spec(path).build()?
        };
        Self::create_on(storage, options, Some(path))
    }

    /// The store in the file at `path`, at its last flush. The index kind
    /// and its parameters are read from the file; `options` gives the
    /// memory and the semantics.
    pub fn open(path: impl AsRef<Path>, options: &Options) -> Result<Store> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        let storage = options.existing_spec(path).open_existing()?;
        Self::open_on(storage, options, Some(path), false)
    }

    /// `open` if the file holds a store, else `create` (an empty file, or
    /// one a crash left before its first flush, which held nothing
    /// durable).
    pub fn open_or_create(path: impl AsRef<Path>, options: &Options) -> Result<Store> {
        let path = path.as_ref();
        if !holds_data(path) {
            return Self::create(path, options);
        }
        match Self::open(path, options) {
            Err(StoreError::Index(IndexError::NoIndex(_))) => Self::create(path, options),
            opened => opened,
        }
    }

    /// The store at `path` for reading only: the file is opened read-only
    /// under a shared lock (other readers may open it, a writer may not),
    /// every call that would change the store is refused, and nothing is
    /// ever written (a file of mode 444 opens).
    pub fn open_read_only(path: impl AsRef<Path>, options: &Options) -> Result<Store> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        let storage = options.existing_spec(path).open_read_only()?;
        Self::open_on(storage, options, Some(path), true)
    }

    /// A new store on a device of the caller's (a custom [`BlockDevice`]),
    /// under the commit layer as a file is: the same format and contract.
    pub fn create_on_device(device: Box<dyn BlockDevice>, options: &Options) -> Result<Store> {
        let storage = Storage::Pages(Box::new(Shadow::mount_logged(device, options.log_bytes)?));
        Self::create_on(storage, options, None)
    }

    /// The store a `flush` left on `device` (under the commit layer).
    pub fn open_on_device(device: Box<dyn BlockDevice>, options: &Options) -> Result<Store> {
        let storage = Storage::Pages(Box::new(Shadow::mount_logged(device, options.log_bytes)?));
        Self::open_on(storage, options, None, false)
    }

    fn create_on(storage: Storage, options: &Options, path: Option<&Path>) -> Result<Store> {
        let kind = if options.index.is_empty() {
            DEFAULT_INDEX
        } else {
            &options.index
        };
        let params = options.index_params(kind, true);
        let mut index = create_index(kind, storage, options.memory, params)?;
        // Flushed at once, so that a crash at any point after `create`
        // returns leaves a store that opens (issue #41).
        index.flush()?;
        Self::wrap(index, options, path, false)
    }

    fn open_on(
        mut storage: Storage,
        options: &Options,
        path: Option<&Path>,
        read_only: bool,
    ) -> Result<Store> {
        let kind = registry::stored_kind(&mut storage)?.ok_or_else(|| {
            IndexError::NoIndex(match path {
                Some(p) => format!(
                    "{} holds no flushed index (a crash before its first commit left nothing durable): `Store::open_or_create` or `Store::create` starts it anew",
                    p.display()
                ),
                None => "the device holds no flushed index".into(),
            })
        })?;
        if !options.index.is_empty() && options.index != kind {
            return Err(IndexError::Mismatch {
                parameter: "index".into(),
                image: kind,
                given: options.index.clone(),
            }
            .into());
        }
        let params = options.index_params(&kind, false);
        let index = if read_only {
            open_index_read_only(&kind, storage, options.memory, params)?
        } else {
            open_index(&kind, storage, options.memory, params)?
        };
        Self::wrap(index, options, path, read_only)
    }

    /// The store over `index`; a file of versions of keys is a map, never
    /// read as a multiset.
    fn wrap(
        index: Box<dyn Index>,
        options: &Options,
        path: Option<&Path>,
        ro: bool,
    ) -> Result<Store> {
        if index.versions_by_key() && options.semantics == Semantics::Multiset {
            return Err(StoreError::Semantics(format!(
                "{} holds versions of keys (a map store, `versions=key`): open it with map semantics",
                path.map_or("the store".into(), |p| p.display().to_string())
            )));
        }
        Ok(Store {
            index,
            semantics: options.semantics,
            path: path.map(Path::to_path_buf),
            read_only: ro,
            unflushed: 0,
            values: Vec::new(),
        })
    }

    /// Refuses a call that changes the store when it is open read-only.
    fn writable(&self, call: &str) -> Result<()> {
        if !self.read_only {
            return Ok(());
        }
        Err(StoreError::ReadOnly(match &self.path {
            Some(p) => format!("`{call}`: {}", p.display()),
            None => format!("`{call}`: the store"),
        }))
    }

    fn need(&self, semantics: Semantics, call: &str) -> Result<()> {
        if self.semantics == semantics {
            Ok(())
        } else {
            Err(StoreError::Semantics(format!(
                "`{call}` is a {semantics:?} call; this store was opened with {:?} semantics",
                self.semantics
            )))
        }
    }

    /// The one value of `key` in a map store (into `self.values` first).
    fn map_value(&mut self, key: u64) -> Result<Option<u64>> {
        self.index.get(key, &mut self.values)?;
        match self.values.as_slice() {
            [] => Ok(None),
            [v] => Ok(Some(*v)),
            more => Err(StoreError::Semantics(format!(
                "key {key} holds {} values: a multiset store opened as a map",
                more.len()
            ))),
        }
    }

    /// Sets `key` to `value`; returns the value it replaced.
    pub fn put(&mut self, key: u64, value: u64) -> Result<Option<u64>> {
        self.need(Semantics::Map, "put")?;
        self.writable("put")?;
        self.index.format().check(key, value)?;
        let old = self.map_value(key)?;
        match old {
            Some(o) if o == value => {}
            Some(o) => {
                self.index.update(key, o, value)?;
                self.unflushed += 1;
            }
            None => {
                self.index.insert(key, value)?;
                self.unflushed += 1;
            }
        }
        Ok(old)
    }

    /// Sets `key` to `value`, as `put` does, without returning the value
    /// it replaced: on a store of versions of keys it reads nothing (a
    /// blind upsert, module doc); on any other it is `put`.
    pub fn set(&mut self, key: u64, value: u64) -> Result<()> {
        self.need(Semantics::Map, "set")?;
        self.writable("set")?;
        if !self.index.versions_by_key() {
            return self.put(key, value).map(drop);
        }
        self.index.format().check(key, value)?;
        self.index.upsert(key, value)?;
        self.unflushed += 1;
        Ok(())
    }

    /// The value of `key`.
    pub fn get(&mut self, key: u64) -> Result<Option<u64>> {
        self.need(Semantics::Map, "get")?;
        self.map_value(key)
    }

    /// Removes `key`; returns the value it held.
    pub fn delete(&mut self, key: u64) -> Result<Option<u64>> {
        self.need(Semantics::Map, "delete")?;
        self.writable("delete")?;
        let old = self.map_value(key)?;
        if let Some(o) = old {
            self.index.delete(key, o)?;
            self.unflushed += 1;
        }
        Ok(old)
    }

    /// Adds the pair (multiset stores); a pair already present changes
    /// nothing.
    pub fn insert(&mut self, key: u64, value: u64) -> Result<()> {
        self.need(Semantics::Multiset, "insert")?;
        self.writable("insert")?;
        self.index.insert(key, value)?;
        self.unflushed += 1;
        Ok(())
    }

    /// Removes the pair (multiset stores); whether it was present.
    pub fn remove(&mut self, key: u64, value: u64) -> Result<bool> {
        self.need(Semantics::Multiset, "remove")?;
        self.writable("remove")?;
        let found = self.index.delete(key, value)?;
        self.unflushed += u64::from(found);
        Ok(found)
    }

    /// Every value of `key`, ascending (either semantics).
    pub fn get_all(&mut self, key: u64) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        self.index.get(key, &mut out)?;
        Ok(out)
    }

    /// The entries with keys in `keys`, in (key, value) order, read lazily
    /// in chunks of the key space (a chunk's width adapts so that each
    /// holds some thousands of entries): memory stays bounded however
    /// large the range. The iterator borrows the store, so nothing
    /// changes it while it runs.
    pub fn range(&mut self, keys: impl RangeBounds<u64>) -> Result<Range<'_>> {
        let lo = match keys.start_bound() {
            Bound::Included(&k) => Some(k),
            Bound::Excluded(&k) => k.checked_add(1),
            Bound::Unbounded => Some(0),
        };
        let hi = match keys.end_bound() {
            Bound::Included(&k) => Some(k),
            Bound::Excluded(&k) => k.checked_sub(1),
            Bound::Unbounded => Some(u64::MAX),
        };
        let next = match (lo, hi) {
            (Some(lo), Some(hi)) if lo <= hi => Some(lo),
            _ => None,
        };
        Ok(Range {
            store: self,
            next,
            hi: hi.unwrap_or(0),
            width: Range::FIRST_WIDTH,
            chunk: Vec::new(),
            at: 0,
        })
    }

    /// Makes every change so far durable (module doc). A read-only store
    /// has nothing to make durable and refuses (`StoreError::ReadOnly`),
    /// so a flush that returns `Ok` always means the changes are durable.
    pub fn flush(&mut self) -> Result<()> {
        self.writable("flush")?;
        self.index.flush()?;
        self.unflushed = 0;
        Ok(())
    }

    /// Flushes and closes the store; the file's lock is released. A
    /// read-only store just closes.
    pub fn close(mut self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        self.flush()
    }

    /// Calls that changed the store since the last flush (what a drop
    /// without `close` loses).
    pub fn unflushed(&self) -> u64 {
        self.unflushed
    }

    /// The index beneath (its name, stats, memory, device counters).
    pub fn index(&self) -> &dyn Index {
        self.index.as_ref()
    }

    /// The device's counters since the store was opened.
    pub fn device_stats(&self) -> DeviceStats {
        self.index.storage().stats()
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if self.unflushed > 0 {
            log::warn!(
                "flashix store {} dropped without flush or close: its last {} changes are lost (it opens at its last flush)",
                self.path
                    .as_ref()
                    .map_or_else(|| "on a device".to_string(), |p| p.display().to_string()),
                self.unflushed
            );
        }
    }
}

/// The entries of [`Store::range`], in (key, value) order.
pub struct Range<'a> {
    store: &'a mut Store,
    /// First key of the next chunk; `None` when the range is done.
    next: Option<u64>,
    hi: u64,
    width: u64,
    chunk: Vec<(u64, u64)>,
    at: usize,
}

impl Range<'_> {
    const FIRST_WIDTH: u64 = 1 << 12;
    /// Entries a chunk aims at: enough that the index's per-call cost
    /// (a descent, a search of every component) is spread thin.
    const TARGET: usize = 4096;

    fn fill(&mut self) -> Result<bool> {
        while self.at == self.chunk.len() {
            let Some(lo) = self.next else {
                return Ok(false);
            };
            let end = lo.saturating_add(self.width - 1).min(self.hi);
            self.store.index.range(lo, end, &mut self.chunk)?;
            self.at = 0;
            self.next = if end == self.hi { None } else { Some(end + 1) };
            let n = self.chunk.len();
            if n < Self::TARGET / 4 {
                // Sparse here: widen fast (16x on an empty chunk).
                let factor = if n == 0 { 16 } else { 2 };
                self.width = self.width.saturating_mul(factor);
            } else if n > Self::TARGET * 4 {
                self.width = (self.width / 2).max(1);
            }
        }
        Ok(true)
    }
}

impl Iterator for Range<'_> {
    type Item = Result<(u64, u64)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.fill() {
            Ok(true) => {
                let e = self.chunk[self.at];
                self.at += 1;
                Some(Ok(e))
            }
            Ok(false) => None,
            Err(e) => {
                // One error ends the iteration (the store is poisoned).
                self.next = None;
                self.chunk.clear();
                self.at = 0;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn a_store_is_send() {
        assert_send::<Store>();
    }
}
