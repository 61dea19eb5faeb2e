//! Shared on-flash formats and in-memory node machinery for tree-shaped
//! indexes: the checksummed page frame ([`page`]), the B+-tree node codec
//! ([`codec`]), node caches ([`cache`]) and node stores ([`store`]: nodes
//! in place over logical pages; [`log_store`]: nodes packed into a log on a
//! raw chip; [`write_buffer`]: the AS B-tree's write buffer in front of
//! any store) and the bounds on walks over pointers read from flash
//! ([`walk`]). Every tree index reuses these; none keeps its own copy.

pub mod budget;
pub mod cache;
pub mod codec;
pub(crate) use crate::device::crc;
pub mod delta;
pub mod entry;
pub(crate) mod error;
pub mod log_store;
pub mod page;
pub mod paper;
pub mod stats;
pub mod store;
pub(crate) mod superblock_log;
pub mod top_levels;
pub mod walk;
pub mod write_buffer;

pub use budget::{Budget, Tables, DATA_BOUND_LINES};
pub use cache::{CachePolicy, Evicted, NodeCache, Pin};
pub use codec::{Node, NodeId, NodeLayout, NO_NODE};
pub use entry::EntryFormat;
pub use error::NodeError;
pub use log_store::LogNodeStore;
pub use paper::NodeFormat;
pub use stats::IndexStats;
pub use store::{NodeChange, NodeStore, PageNodeStore, SealedImage, TreeMeta};
pub use write_buffer::WriteBuffer;
