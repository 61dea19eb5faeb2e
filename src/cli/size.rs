//! Byte sizes on the command line: `65536`, `64KiB`, `1MiB`, `20KB`.
//!
//! `KiB`/`MiB`/`GiB` and the bare `K`/`M`/`G` are powers of 1024; `KB`/`MB`/`GB`
//! are powers of 1000 (SI), so `20KB` is the 20,000 bytes a paper's
//! "20 kbytes" most likely means, and `64KiB` is 65,536.

/// Parses a byte size; the error says what was expected.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => {
            return Err(format!(
                "`{text}` is not a size: use bytes (65536) or a unit: KiB, MiB, GiB, KB, MB, GB"
            ))
        }
    };
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size: expected a number before the unit"))?;
    let bytes = value * mult as f64;
    if !(bytes.is_finite() && bytes >= 0.0 && bytes <= u64::MAX as f64) || bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("20KB"), Ok(20_000));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("KiB").is_err());
        assert!(parse_size("0.3B").is_err());
    }
}
