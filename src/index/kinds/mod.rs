//! Every index kind and its parameters: the [`registry`] that builds and
//! reopens each kind by name, the typed parameter bag [`Params`], which
//! parameters are runtime knobs ([`runtime`]), and the check that a reopen's
//! parameters agree with what the image records (`reopen`).
//!
//! The registry imports every index; no index imports the registry. The
//! parameter types and the reopen check are imported by the indexes and
//! import none of them (the FD-tree's and LSM-tree's superblock magics
//! reach the reopen check as data, from the registry).

mod params;
pub mod registry;
pub(crate) mod reopen;
pub mod runtime;

pub use params::Params;
