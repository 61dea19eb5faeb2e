//! flashix: flash-aware index structures and the baselines their papers
//! compare against, behind one [`index::Index`] trait, over one device layer
//! (a simulated NAND chip with cost and energy models, a page-mapping FTL, and
//! real files).
//!
//! Layers, bottom to top (see `DESIGN.md` in the shared folder and
//! `docs/FORMAT.md`):
//!
//! * [`device`]: raw chips ([`device::Flash`]), logical-page devices
//!   ([`device::BlockDevice`]), cost profiles, fault injection.
//! * [`node`]: the shared on-flash page frame (checksum), the B+-tree node
//!   codec and the node caches that every tree-shaped index reuses.
//! * [`index`]: one module per index, all behind [`index::Index`].
//! * [`workload`]: generators, presets and trace files.
//! * [`runner`]: drives operations, checks answers against an oracle and
//!   attributes device cost to the operation that caused it.
#![deny(unsafe_code)]

pub mod cli;
pub mod device;
pub mod experiment;
pub mod index;
pub mod node;
pub mod runner;
pub mod workload;
