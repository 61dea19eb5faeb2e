use serde::Serialize;

use super::paper::NodeFormat;
use super::NodeError;

/// Widths of an entry's key and value on flash, in bytes (each 2, 4 or 8).
///
/// Two-byte keys are the Buffered-B+ tree paper's entries (a 6-byte
/// key-pointer pair, Agrawal et al. 2009 §6.3.6) and sensor-sized keys.
///
/// It also carries the format of the nodes that hold the entries
/// ([`NodeFormat`]): every index reads both from its parameters
/// (`key_bytes`, `value_bytes`, `node_format`) in one place and passes
/// them to [`super::NodeLayout`], which sizes nodes by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EntryFormat {
    pub key_bytes: u8,
    pub value_bytes: u8,
    #[serde(skip_serializing_if = "NodeFormat::is_flashix")]
    pub node_format: NodeFormat,
}

impl Default for EntryFormat {
    /// 4-byte key + 4-byte pointer, as in all five papers.
    fn default() -> Self {
        EntryFormat {
            key_bytes: 4,
            value_bytes: 4,
            node_format: NodeFormat::Flashix,
        }
    }
}

impl EntryFormat {
    /// A format with the given widths; each must be 2, 4 or 8.
    pub fn new(key_bytes: u8, value_bytes: u8) -> Result<Self, NodeError> {
        for (name, w) in [("key_bytes", key_bytes), ("value_bytes", value_bytes)] {
            if w != 2 && w != 4 && w != 8 {
                return Err(NodeError::Config(format!(
                    "{name} must be 2, 4 or 8, got {w}"
                )));
            }
        }
        Ok(EntryFormat {
            key_bytes,
            value_bytes,
            node_format: NodeFormat::Flashix,
        })
    }

    /// This format with nodes laid out in `node_format`.
    pub fn with_node_format(mut self, node_format: NodeFormat) -> Self {
        self.node_format = node_format;
        self
    }

    /// Bytes of one (key, value) entry on flash.
    pub fn entry_bytes(&self) -> usize {
        self.key_bytes as usize + self.value_bytes as usize
    }

    pub fn max_key(&self) -> u64 {
        max_for(self.key_bytes)
    }

    pub fn max_value(&self) -> u64 {
        max_for(self.value_bytes)
    }

    /// Checks that both fit their widths.
    pub fn check(&self, key: u64, value: u64) -> Result<(), NodeError> {
        self.check_key(key)?;
        if value > self.max_value() {
            return Err(NodeError::ValueOutOfRange {
                value,
                max: self.max_value(),
            });
        }
        Ok(())
    }

    pub fn check_key(&self, key: u64) -> Result<(), NodeError> {
        if key > self.max_key() {
            return Err(NodeError::KeyOutOfRange {
                key,
                max: self.max_key(),
            });
        }
        Ok(())
    }

    /// Writes `key` little-endian at its width into `out[..key_bytes]`.
    pub fn put_key(&self, out: &mut [u8], key: u64) {
        put_uint(out, key, self.key_bytes);
    }

    pub fn put_value(&self, out: &mut [u8], value: u64) {
        put_uint(out, value, self.value_bytes);
    }

    pub fn read_key(&self, bytes: &[u8]) -> u64 {
        get_uint(bytes, self.key_bytes)
    }

    pub fn read_value(&self, bytes: &[u8]) -> u64 {
        get_uint(bytes, self.value_bytes)
    }

    /// For 4 + 4-byte entries: a map from an entry's 8 bytes to one integer
    /// ordered as the (key, value) pairs are (the key in the high half).
    pub fn packed(&self) -> Option<fn(&[u8]) -> u64> {
        (self.key_bytes == 4 && self.value_bytes == 4).then_some(pack_4_4 as fn(&[u8]) -> u64)
    }
}

fn pack_4_4(b: &[u8]) -> u64 {
    let w = get_uint(&b[..8], 8);
    w.rotate_left(32)
}

fn max_for(width: u8) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width as u32)) - 1
    }
}

// Fixed-size copies per width: a variable-length copy becomes a `memcpy`
// call, which dominated node decoding in callgrind.
fn put_uint(out: &mut [u8], v: u64, width: u8) {
    match width {
        4 => out[..4].copy_from_slice(&(v as u32).to_le_bytes()),
        2 => out[..2].copy_from_slice(&(v as u16).to_le_bytes()),
        _ => out[..8].copy_from_slice(&v.to_le_bytes()),
    }
}

fn get_uint(bytes: &[u8], width: u8) -> u64 {
    if width == 4 {
        let mut b = [0u8; 4];
        b.copy_from_slice(&bytes[..4]);
        u32::from_le_bytes(b) as u64
    } else if width == 2 {
        u16::from_le_bytes([bytes[0], bytes[1]]) as u64
    } else {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[..8]);
        u64::from_le_bytes(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_round_trip_and_limits() {
        let f = EntryFormat::default();
        assert_eq!(f.entry_bytes(), 8);
        assert!(f.check(u32::MAX as u64, 7).is_ok());
        assert!(matches!(
            f.check(u32::MAX as u64 + 1, 7),
            Err(NodeError::KeyOutOfRange { .. })
        ));
        assert!(matches!(
            f.check(1, 1 << 32),
            Err(NodeError::ValueOutOfRange { .. })
        ));
        let mut b = [0u8; 8];
        f.put_key(&mut b, 0xDEAD_BEEF);
        assert_eq!(f.read_key(&b), 0xDEAD_BEEF);
        let w = EntryFormat::new(8, 8).unwrap();
        w.put_key(&mut b, u64::MAX - 3);
        assert_eq!(w.read_key(&b), u64::MAX - 3);
        assert!(EntryFormat::new(5, 4).is_err());
    }
}
