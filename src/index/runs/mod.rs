//! The sorted-run machinery shared by the two indexes that write
//! immutable sorted runs: the FD-tree's levels (Li et al. 2009 §II-A) and
//! the LSM-tree's components (O'Neil et al. 1996). [`page`] is the run
//! page's on-flash format, its multi-page I/O and the extent allocator
//! that keeps a run contiguous; [`cache`] is the LRU of decoded run pages
//! both keep in front of the device.

pub(crate) mod cache;
pub(crate) mod page;

pub(crate) use cache::PageCache;
