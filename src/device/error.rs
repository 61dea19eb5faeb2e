use std::fmt;

/// Errors of the device layer.
#[non_exhaustive]
#[derive(Debug)]
pub enum DeviceError {
    /// The operating system reported an I/O error (real files).
    Io(std::io::Error),
    /// An address or length outside the device or page.
    OutOfRange {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    /// Programming a page that has been programmed since its block was last
    /// erased, over bytes already programmed.
    NotErased { page: u64 },
    /// More partial programs of one page than the chip allows per erase.
    NopExceeded { page: u64, nop: u8 },
    /// The block has worn out (or was bad from the start).
    BadBlock { block: u64 },
    /// No free space is left (every logical page that can be mapped is, or
    /// garbage collection cannot reclaim a block).
    Full { detail: String },
    /// The (injected) power supply is cut: nothing is written any more.
    PowerLost,
    /// Device metadata (for example an FTL's spare-area records) is unreadable.
    Corrupt { page: u64, detail: String },
    /// A configuration that cannot describe a device.
    Config(String),
    /// A previous failure of `sync` (or of a commit of the commit layer)
    /// left the device in an unknown state; it must be reopened.
    Poisoned,
    /// Another open device (another process, or another handle in this one)
    /// holds the file: one writer per device.
    Busy { path: String, waited_ms: u64 },
    /// A write to a device opened read-only.
    ReadOnly { path: String },
    /// The medium holds data but no commit record of the commit layer
    /// ([`super::Shadow`]): not a flashix store (another program's file,
    /// or pages written without the commit layer).
    NotAStore { detail: String },
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Io(e) => write!(f, "I/O error: {e}"),
            DeviceError::OutOfRange { what, value, limit } => {
                write!(f, "{what} {value} is out of range (limit {limit})")
            }
            DeviceError::NotErased { page } => {
                write!(f, "page {page} is programmed and must be erased first")
            }
            DeviceError::NopExceeded { page, nop } => write!(
                f,
                "page {page} was programmed more than {nop} times since its last erase"
            ),
            DeviceError::BadBlock { block } => write!(f, "block {block} is bad (worn out)"),
            DeviceError::Busy { path, waited_ms } => write!(
                f,
                "{path} is in use: another flashix device holds its lock (one writer per device; waited {waited_ms} ms for it)"
            ),
            DeviceError::ReadOnly { path } => {
                write!(f, "{path} is open read-only: nothing may be written to it")
            }
            DeviceError::Full { detail } => write!(f, "device full: {detail}"),
            DeviceError::PowerLost => write!(f, "power lost: the device accepts no more writes"),
            DeviceError::Corrupt { page, detail } => {
                write!(f, "corrupt device metadata at page {page}: {detail}")
            }
            DeviceError::Config(m) => write!(f, "invalid device configuration: {m}"),
            DeviceError::NotAStore { detail } => write!(f, "not a flashix store: {detail}"),
            DeviceError::Poisoned => {
                write!(
                    f,
                    "an earlier sync or commit failed; the device must be reopened (it opens at its last commit)"
                )
            }
        }
    }
}

impl std::error::Error for DeviceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DeviceError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for DeviceError {
    fn from(e: std::io::Error) -> Self {
        DeviceError::Io(e)
    }
}
