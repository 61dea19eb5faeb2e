//! flashix: flash-aware index structures and the baselines their papers
//! compare against, behind one [`index::Index`] trait, over one device layer
//! (a simulated NAND chip with cost and energy models, a page-mapping FTL, an
//! SSD timing model, and real files).
//!
//! # Quick start
//!
//! Build a device, create an index on it by name, use it, flush it and
//! open it again from what is on the device:
//!
//! ```
//! use flashix::device::DeviceSpec;
//! use flashix::index::{registry, Params};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A page-mapping FTL over a simulated SLC chip; "file:/path" is a real file.
//! let storage = DeviceSpec::parse("slc-small", &[])?.build()?;
//! // A B+-tree in 64 KiB of memory; `flashix list` names every index.
//! let mut index = registry::create("btree", storage, 64 << 10, Params::new())?;
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
//! let mut index = registry::open("btree", storage, 64 << 10, Params::new())?;
//! index.get(999, &mut values)?;
//! assert_eq!(values, [9990]);
//! # Ok(())
//! # }
//! ```
//!
//! # Layers
//!
//! Bottom to top (the on-flash formats are in `docs/FORMAT.md`):
//!
//! * [`device`]: raw chips ([`device::Flash`]), logical-page devices
//!   ([`device::BlockDevice`]), cost profiles, fault injection.
//! * [`node`]: the shared on-flash page frame (checksum), the B+-tree node
//!   codec and the node caches that every tree-shaped index reuses.
//! * [`index`]: one module per index, all behind [`index::Index`]; the
//!   [`index::registry`] creates and opens them by name.
//! * [`workload`]: generators, presets and trace files.
//! * [`runner`]: drives operations, checks answers against an oracle and
//!   attributes device cost to the operation that caused it.
//! * [`experiment`]: the papers' experiments (`flashix reproduce`).
//! * [`cli`]: the `flashix` command line.
#![deny(unsafe_code)]

pub mod cli;
pub mod device;
pub mod experiment;
pub mod index;
pub mod node;
pub mod runner;
pub mod workload;
