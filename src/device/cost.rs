//! Cost model of a flash chip: latency (µs) and energy (µJ) of each
//! operation, as a fixed part per operation plus a per-byte part for the
//! bytes moved (Agrawal et al. 2009 §2.1, Table 1), and a fixed cost per
//! block erase. Page-granular profiles (Wu et al. 2003 Table 1, Roh et al. 2009
//! Table 1) put the whole page cost in the fixed part.

use serde::Serialize;

/// Latency and energy of reads, programs and erases.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CostModel {
    pub read_us: f64,
    pub read_us_per_byte: f64,
    pub write_us: f64,
    pub write_us_per_byte: f64,
    pub erase_us: f64,
    pub read_uj: f64,
    pub read_uj_per_byte: f64,
    pub write_uj: f64,
    pub write_uj_per_byte: f64,
    pub erase_uj: f64,
}

/// One charge: simulated time and energy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Charge {
    pub us: f64,
    pub uj: f64,
}

impl CostModel {
    /// A model that charges nothing (RAM disks, tests).
    pub const FREE: CostModel = CostModel {
        read_us: 0.0,
        read_us_per_byte: 0.0,
        write_us: 0.0,
        write_us_per_byte: 0.0,
        erase_us: 0.0,
        read_uj: 0.0,
        read_uj_per_byte: 0.0,
        write_uj: 0.0,
        write_uj_per_byte: 0.0,
        erase_uj: 0.0,
    };

    /// Charge for reading `bytes` bytes in one operation.
    pub fn read(&self, bytes: usize) -> Charge {
        Charge {
            us: self.read_us + self.read_us_per_byte * bytes as f64,
            uj: self.read_uj + self.read_uj_per_byte * bytes as f64,
        }
    }

    /// Charge for programming `bytes` bytes in one operation.
    pub fn write(&self, bytes: usize) -> Charge {
        Charge {
            us: self.write_us + self.write_us_per_byte * bytes as f64,
            uj: self.write_uj + self.write_uj_per_byte * bytes as f64,
        }
    }

    /// The weights an online algorithm compares: reading `read_bytes` and
    /// programming `write_bytes` in one operation each, in energy (time
    /// when the model has no energy), or `(1, 1)` when there is no model
    /// or it charges nothing (a real file). Returns `(read, write)`.
    pub fn read_write_weights(
        cost: Option<CostModel>,
        read_bytes: usize,
        write_bytes: usize,
    ) -> (f64, f64) {
        let Some(c) = cost else {
            return (1.0, 1.0);
        };
        let (r, w) = (c.read(read_bytes), c.write(write_bytes));
        if w.uj > 0.0 && r.uj > 0.0 {
            (r.uj, w.uj)
        } else if w.us > 0.0 && r.us > 0.0 {
            (r.us, w.us)
        } else {
            (1.0, 1.0)
        }
    }

    /// Charge for one block erase.
    pub fn erase(&self) -> Charge {
        Charge {
            us: self.erase_us,
            uj: self.erase_uj,
        }
    }

    /// Sets one field by its CLI name (`read_us`, `write_uj_per_byte`, ...).
    pub fn set(&mut self, key: &str, value: f64) -> Result<(), String> {
        let slot = match key {
            "read_us" => &mut self.read_us,
            "read_us_per_byte" => &mut self.read_us_per_byte,
            "write_us" => &mut self.write_us,
            "write_us_per_byte" => &mut self.write_us_per_byte,
            "erase_us" => &mut self.erase_us,
            "read_uj" => &mut self.read_uj,
            "read_uj_per_byte" => &mut self.read_uj_per_byte,
            "write_uj" => &mut self.write_uj,
            "write_uj_per_byte" => &mut self.write_uj_per_byte,
            "erase_uj" => &mut self.erase_uj,
            _ => {
                return Err(format!(
                    "unknown cost field `{key}`; accepted: {}",
                    Self::FIELDS.join(", ")
                ))
            }
        };
        if !(value.is_finite() && value >= 0.0) {
            return Err(format!(
                "cost field `{key}` must be a finite number >= 0, got {value}"
            ));
        }
        *slot = value;
        Ok(())
    }

    /// The names [`CostModel::set`] accepts.
    pub const FIELDS: [&'static str; 10] = [
        "read_us",
        "read_us_per_byte",
        "write_us",
        "write_us_per_byte",
        "erase_us",
        "read_uj",
        "read_uj_per_byte",
        "write_uj",
        "write_uj_per_byte",
        "erase_uj",
    ];
}
