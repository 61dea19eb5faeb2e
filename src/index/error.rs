use std::fmt;

use crate::device::DeviceError;
use crate::node::error::Message;
use crate::node::NodeError;

/// Errors of the index layer.
#[non_exhaustive]
#[derive(Debug)]
pub enum IndexError {
    /// The device failed (I/O, full, power lost, ...).
    Device(DeviceError),
    /// A page read back does not hold what was written: checksum mismatch,
    /// impossible header, dangling pointer.
    Corrupt {
        page: u64,
        detail: String,
    },
    KeyOutOfRange {
        key: u64,
        max: u64,
    },
    ValueOutOfRange {
        value: u64,
        max: u64,
    },
    /// An impossible configuration (unknown parameter, node too small, ...).
    Config(String),
    /// The memory budget cannot hold what the index needs to work.
    BudgetTooSmall {
        needed: usize,
        given: usize,
        what: String,
    },
    /// Opening found no index of this kind on the storage.
    NoIndex(String),
    /// A bulk load was given entries out of order, or an index that is
    /// not empty.
    BulkLoad(String),
    /// Opening was given a parameter that contradicts what the image's
    /// superblock records.
    Mismatch {
        parameter: String,
        image: String,
        given: String,
    },
    /// An earlier call failed and may have left the index half-changed in
    /// RAM: every call is refused until the store is reopened, which lands
    /// at its last successful flush (`store::guard`).
    Poisoned {
        first: String,
    },
    /// A call that would change an index opened read-only (refused before
    /// anything changes; the index stays usable for reading).
    ReadOnly(String),
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Device(e) => Message::Device(e).fmt(f),
            IndexError::Corrupt { page, detail } => Message::Corrupt(*page, detail).fmt(f),
            IndexError::KeyOutOfRange { key, max } => Message::KeyOutOfRange(*key, *max).fmt(f),
            IndexError::ValueOutOfRange { value, max } => {
                Message::ValueOutOfRange(*value, *max).fmt(f)
            }
            IndexError::Config(m) => Message::Config(m).fmt(f),
            IndexError::ReadOnly(what) => {
                write!(f, "{what} is open read-only: nothing may change it")
            }
            IndexError::BudgetTooSmall { needed, given, what } => write!(
                f,
                "memory budget of {given} bytes is too small: at least {needed} bytes are needed ({what})"
            ),
            IndexError::NoIndex(m) => write!(f, "no index found: {m}"),
            IndexError::BulkLoad(m) => write!(f, "bulk load: {m}"),
            IndexError::Mismatch {
                parameter,
                image,
                given,
            } => Message::Mismatch(parameter, image, given).fmt(f),
            IndexError::Poisoned { first } => write!(
                f,
                "the index refuses calls after an earlier one failed ({first}); reopen it: \
                 it opens at its last successful flush"
            ),
        }
    }
}

impl std::error::Error for IndexError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            IndexError::Device(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DeviceError> for IndexError {
    /// Through the node layer's conversion: a page the device layer
    /// cannot vouch for (the shadow map's checksum) is `Corrupt` here too.
    fn from(e: DeviceError) -> Self {
        NodeError::from(e).into()
    }
}

impl From<NodeError> for IndexError {
    /// Variant for variant: the node layer's `Corrupt` is the index's.
    fn from(e: NodeError) -> Self {
        match e {
            NodeError::Device(e) => IndexError::Device(e),
            NodeError::Corrupt { page, detail } => IndexError::Corrupt { page, detail },
            NodeError::KeyOutOfRange { key, max } => IndexError::KeyOutOfRange { key, max },
            NodeError::ValueOutOfRange { value, max } => IndexError::ValueOutOfRange { value, max },
            NodeError::Config(m) => IndexError::Config(m),
            NodeError::Mismatch {
                parameter,
                image,
                given,
            } => IndexError::Mismatch {
                parameter,
                image,
                given,
            },
        }
    }
}
