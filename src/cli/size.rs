//! Byte sizes on the command line (`--memory 64KiB`): the device layer's
//! parser ([`crate::device::size`]), so that a flag and a `--device-set`
//! size read the same way. `KiB`/`K` are 1,024 bytes, `KB` 1,000.

pub use crate::device::size::{parse_size, parse_size_as, SIZE_FORMS};
