//! Byte sizes as a person writes them: `65536`, `64KiB`, `64k`, `1MiB`,
//! `20KB`, `1.5GiB`.
//!
//! `KiB`/`MiB`/`GiB` and the bare `K`/`M`/`G` are powers of 1024; `KB`/`MB`/`GB`
//! are powers of 1000 (SI), so `20KB` is the 20,000 bytes a paper's
//! "20 kbytes" most likely means, and `64KiB` is 65,536. Units ignore case
//! (`kib`, `Kb`) and may follow a space; `B` or no unit is bytes.
//!
//! One parser serves the command line's size flags (`--memory`) and the
//! device's size parameters (`--device-set capacity=64KiB`, `page_size=4KiB`,
//! an SSD curve point `rw_4KiB=30`), so a size means the same everywhere. It
//! lives here rather than in `cli` because the device layer parses its own
//! parameters and must not depend on the command line.

/// The accepted forms, for error messages and help texts.
pub const SIZE_FORMS: &str =
    "bytes (65536) or a number with a unit: KiB, MiB, GiB or K, M, G (1024-based); KB, MB, GB (1000-based)";

/// Parses a byte size; the error names the text and says what was expected.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return Err(format!("`{text}` is not a size: use {SIZE_FORMS}")),
    };
    if num.is_empty() {
        return Err(format!(
            "`{text}` is not a size: expected a number before the unit"
        ));
    }
    let too_large = || format!("`{text}` is too large a size");
    // Whole numbers are exact in u64 (an f64 holds only 53 bits).
    if let Ok(whole) = num.parse::<u64>() {
        return whole.checked_mul(mult).ok_or_else(too_large);
    }
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size: `{num}` is not a number"))?;
    let bytes = value * mult as f64;
    if bytes >= u64::MAX as f64 {
        return Err(too_large());
    }
    if bytes.fract() != 0.0 {
        return Err(format!("`{text}` is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// [`parse_size`] into a narrower integer (a page size is a `u32`).
pub fn parse_size_as<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let bytes = parse_size(text)?;
    T::try_from(bytes).map_err(|_| format!("`{text}` is too large here ({bytes} bytes)"))
}

#[cfg(test)]
mod tests {
    use super::{parse_size, parse_size_as};

    #[test]
    fn units_are_1024_or_1000_based_as_documented() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("65536B"), Ok(65536));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("64k"), Ok(65536));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("64 kib"), Ok(65536));
        assert_eq!(parse_size("64kb"), Ok(64_000));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("20KB"), Ok(20_000));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert_eq!(parse_size(" 0 "), Ok(0));
        // Exact beyond f64's 53 bits.
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let e = parse_size("12 parsecs").unwrap_err();
        assert!(
            e.contains("`12 parsecs` is not a size") && e.contains("KiB"),
            "{e}"
        );
        let e = parse_size("KiB").unwrap_err();
        assert!(e.contains("expected a number before the unit"), "{e}");
        let e = parse_size("").unwrap_err();
        assert!(e.contains("expected a number"), "{e}");
        let e = parse_size("0.3B").unwrap_err();
        assert!(e.contains("whole number of bytes"), "{e}");
        let e = parse_size("1.2.3KiB").unwrap_err();
        assert!(e.contains("`1.2.3` is not a number"), "{e}");
        assert!(parse_size("-5").is_err());
        let e = parse_size("17179869184GiB").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_size("99999999999999999999").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_size_as::<u32>("4GiB").unwrap_err();
        assert!(e.contains("too large here (4294967296 bytes)"), "{e}");
        assert_eq!(parse_size_as::<u32>("4KiB"), Ok(4096));
    }
}
