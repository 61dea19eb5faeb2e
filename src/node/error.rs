//! Errors of the node layer: what reading, writing and decoding nodes,
//! pages and entries can go wrong with. The index layer converts each
//! variant into its own [`crate::index::IndexError`] variant of the same
//! name (one error enum per layer, converted upward), so a caller of an
//! index sees `Corrupt` as `Corrupt` whichever layer found it.

use std::fmt;

use crate::device::DeviceError;

/// Errors of the node layer.
#[non_exhaustive]
#[derive(Debug)]
pub enum NodeError {
    /// The device failed (I/O, full, power lost, ...).
    Device(DeviceError),
    /// A page read back does not hold what was written: checksum mismatch,
    /// impossible header, dangling pointer.
    Corrupt { page: u64, detail: String },
    /// A key wider than its [`crate::node::EntryFormat`] allows.
    KeyOutOfRange { key: u64, max: u64 },
    /// A value wider than its [`crate::node::EntryFormat`] allows.
    ValueOutOfRange { value: u64, max: u64 },
    /// An impossible configuration (node too small, bad entry width, ...).
    Config(String),
    /// Opening was given a parameter that contradicts what the image
    /// records.
    Mismatch {
        parameter: String,
        image: String,
        given: String,
    },
}

impl NodeError {
    /// The error for `parameter`, recorded as `image`, given as `given`.
    pub fn mismatch(parameter: &str, image: impl ToString, given: impl ToString) -> Self {
        NodeError::Mismatch {
            parameter: parameter.to_string(),
            image: image.to_string(),
            given: given.to_string(),
        }
    }
}

/// The messages of the errors every floor above shares with this one,
/// written once: `NodeError` and `IndexError` both display through it.
pub(crate) enum Message<'a> {
    Device(&'a DeviceError),
    Corrupt(u64, &'a str),
    KeyOutOfRange(u64, u64),
    ValueOutOfRange(u64, u64),
    Config(&'a str),
    Mismatch(&'a str, &'a str, &'a str),
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Device(e) => write!(f, "{e}"),
            Message::Corrupt(page, detail) => write!(f, "corrupt page {page}: {detail}"),
            Message::KeyOutOfRange(key, max) => {
                write!(f, "key {key} does not fit the entry format (max {max})")
            }
            Message::ValueOutOfRange(value, max) => {
                write!(f, "value {value} does not fit the entry format (max {max})")
            }
            Message::Config(m) => write!(f, "invalid index configuration: {m}"),
            Message::Mismatch(parameter, image, given) => write!(
                f,
                "the index on the device has {parameter} = {image} but {given} was given; \
                 reopen with the same {parameter} or leave it out"
            ),
        }
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeError::Device(e) => Message::Device(e),
            NodeError::Corrupt { page, detail } => Message::Corrupt(*page, detail),
            NodeError::KeyOutOfRange { key, max } => Message::KeyOutOfRange(*key, *max),
            NodeError::ValueOutOfRange { value, max } => Message::ValueOutOfRange(*value, *max),
            NodeError::Config(m) => Message::Config(m),
            NodeError::Mismatch {
                parameter,
                image,
                given,
            } => Message::Mismatch(parameter, image, given),
        }
        .fmt(f)
    }
}

impl std::error::Error for NodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NodeError::Device(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DeviceError> for NodeError {
    fn from(e: DeviceError) -> Self {
        match e {
            // A page the device layer cannot vouch for (the shadow map's
            // checksum) is the node layer's corruption too.
            DeviceError::Corrupt { page, detail } => NodeError::Corrupt { page, detail },
            e => NodeError::Device(e),
        }
    }
}
