//! flashix: flash-aware index structures and the baselines their papers
//! compare against, behind one [`index::Index`] trait, over one device layer
//! (a simulated NAND chip with cost and energy models, a page-mapping FTL, an
//! SSD timing model, and real files).
//!
//! # Quick start
//!
//! A [`Store`] is one index in one file: a map of `u64` keys to `u64`
//! values with explicit durability points ([`Store::flush`],
//! [`Store::close`]):
//!
//! ```
//! use flashix::{Options, Store};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("ids.flashix");
//! // A B+-tree in 4 MiB of RAM; Options::index("lsm") (or any name
//! // `flashix list` shows) picks another index.
//! let mut store = Store::create(&path, &Options::default())?;
//! store.put(7, 700)?;
//! store.put(u64::MAX, 1)?;
//! assert_eq!(store.put(7, 701)?, Some(700)); // replaced
//! store.close()?; // flushes: durable from here
//!
//! let mut store = Store::open(&path, &Options::default())?;
//! assert_eq!(store.get(7)?, Some(701));
//! for entry in store.range(0..100)? {
//!     let (key, value) = entry?;
//!     println!("{key} = {value}");
//! }
//! store.delete(7)?;
//! store.flush()?;
//! # Ok(())
//! # }
//! ```
//!
//! `examples/` has a store embedded in an application (`embed`), a
//! workload on a simulated chip with its report (`simulate`) and a device
//! of your own (`custom_device`).
//!
//! # Measuring an index
//!
//! Beneath the store, every index is built by name on a device and
//! reports what the device did:
//!
//! ```
//! use flashix::device::DeviceSpec;
//! use flashix::index::Params;
//! use flashix::store::{create_index, open_index};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A page-mapping FTL over a simulated SLC chip; "file:/path" is a real file.
//! let storage = DeviceSpec::parse("slc-small", &[])?.build()?;
//! // A B+-tree in 64 KiB of memory; `flashix list` names every index.
//! let mut index = create_index("btree", storage, 64 << 10, Params::new())?;
//! for key in 0..1_000 {
//!     index.insert(key, key * 10)?;
//! }
//! let (mut values, mut entries) = (Vec::new(), Vec::new());
//! index.get(42, &mut values)?;
//! assert_eq!(values, [420]);
//! index.range(10, 12, &mut entries)?;
//! assert_eq!(entries, [(10, 100), (11, 110), (12, 120)]);
//! index.flush()?;
//! println!("{} pages written", index.storage().stats().physical_writes);
//!
//! let storage = index.into_storage();
//! let mut index = open_index("btree", storage, 64 << 10, Params::new())?;
//! index.get(999, &mut values)?;
//! assert_eq!(values, [9990]);
//! # Ok(())
//! # }
//! ```
//!
//! # Layers
//!
//! Bottom to top (the on-flash formats are in `docs/FORMAT.md`, the floors
//! and the path of an operation in `docs/ARCHITECTURE.md`); a module
//! imports only from its own floor or below (`tests/architecture.rs`):
//!
//! * [`device`] and [`workload`]: raw chips ([`device::Flash`]),
//!   logical-page devices ([`device::BlockDevice`]), cost profiles, the
//!   commit layer, fault injection; generators, presets and trace files.
//! * [`node`]: the shared on-flash page frame (checksum), the B+-tree node
//!   codec, the entry format and the node caches and stores that every
//!   tree-shaped index reuses.
//! * [`index`]: one module per index, all behind [`index::Index`];
//!   [`index::kinds::registry`] builds and reopens them by name.
//! * [`store`] and [`runner`]: [`Store`], the facade an application
//!   embeds, with the write-ahead log and poison guard every index it opens
//!   is wrapped in ([`store::create_index`]); the runner drives operations,
//!   checks answers against an oracle and attributes device cost to the
//!   operation that caused it.
//! * [`experiment`]: the papers' experiments (`flashix reproduce`).
//! * `cli`: the `flashix` command line, with the default `cli` feature
//!   (also the experiments' figures and progress bars); a library-only
//!   build leaves it out (`default-features = false`).
#![deny(unsafe_code)]

#[cfg(feature = "cli")]
pub mod cli;
pub mod device;
pub mod experiment;
pub mod index;
pub mod node;
pub mod runner;
pub mod store;
pub mod workload;

pub use store::{Options, Semantics, Store, StoreError};

// The README's library section is compiled as a doc-test, so it cannot
// drift from the API (it writes to the working directory: compiled, not
// run; the crate root's copy above runs).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeLibrarySection;
