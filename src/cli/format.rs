//! How the command line writes numbers and wraps text: digit grouping,
//! byte and memory sizes, significant digits, writes per operation, and
//! wrapping to the header's width. Shared by `run`, `compare`, the ranking,
//! `advise`, `bench` and `lifetime`, and importing none of them.

use crate::runner::Report;

/// Bytes in the largest binary unit that keeps them at least 1 (KiB, MiB,
/// GiB, TiB), for header lines and tables.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [(&str, u32); 3] = [("TiB", 40), ("GiB", 30), ("MiB", 20)];
    for (unit, shift) in UNITS {
        if bytes >= 1 << shift {
            let v = bytes as f64 / (1u64 << shift) as f64;
            return if v >= 100.0 {
                format!("{} {unit}", group(v.round() as u64))
            } else {
                format!("{v:.1} {unit}")
            };
        }
    }
    format!("{} KiB", group(bytes.div_ceil(1024)))
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The columns every line of `run`'s and `compare`'s header fits in.
pub const WIDTH: usize = 120;

/// `text` wrapped at spaces to lines of at most [`WIDTH`] characters, the
/// continuation lines indented by two spaces (a word longer than a line
/// stays whole).
pub fn wrap(text: &str) -> String {
    wrap_indent(text, "  ")
}

/// [`wrap`] with continuation lines indented by `indent`. The leading
/// spaces of each paragraph stay; a no-break space (U+00A0) keeps the words
/// on either side together and is printed as a space.
pub fn wrap_indent(text: &str, indent: &str) -> String {
    let mut out = String::new();
    for paragraph in text.split('\n') {
        let lead = paragraph.len() - paragraph.trim_start_matches(' ').len();
        let mut line = paragraph[..lead].to_string();
        let mut empty = true;
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            let len = line.chars().count();
            if !empty && len + 1 + word.chars().count() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line = indent.to_string();
            } else if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.pop();
    out.replace(NO_BREAK, " ")
}

/// A space [`wrap`] does not break at.
pub const NO_BREAK: char = '\u{a0}';

pub fn count(v: f64) -> String {
    group(v.max(0.0).round() as u64)
}

/// `v` with four significant digits where it is below 1,000, grouped and
/// whole above: `0.1234`, `90.05`, `361.9`, `2,697`.
pub fn decimal(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() || a >= 999.95 {
        return count(v);
    }
    let places = if a >= 99.995 {
        1
    } else if a >= 9.9995 {
        2
    } else if a >= 0.99995 {
        3
    } else {
        4
    };
    format!("{v:.places$}")
}

/// Bytes of memory: `64 B`, `63.6 KiB`, `1.2 MiB`.
pub fn memory_text(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes:.0} B")
    } else if bytes < 1024.0 * 1024.0 {
        format!("{:.1} KiB", bytes / 1024.0)
    } else {
        format!("{:.1} MiB", bytes / 1048576.0)
    }
}

pub fn writes_per_op(r: &Report) -> f64 {
    r.device_stats.physical_writes as f64 / r.total_ops().max(1) as f64
}

/// Writes per operation: three places, as most indexes write less than a
/// page per operation.
pub fn per_op(v: f64) -> String {
    if v >= 999.95 {
        decimal(v)
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_lines_fit_and_keep_every_word() {
        let text = "word ".repeat(100) + "\nnext paragraph";
        let w = wrap(&text);
        assert!(w.lines().all(|l| l.chars().count() <= WIDTH), "{w}");
        assert!(w.lines().nth(1).unwrap().starts_with("  word"), "{w}");
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert!(w.lines().any(|l| l == "next paragraph"), "{w}");
        let kept = wrap(&format!("{} one{NO_BREAK}two", "x".repeat(WIDTH - 5)));
        assert_eq!(kept.lines().nth(1), Some("  one two"), "{kept}");
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(bytes_text(1024), "1 KiB");
        assert_eq!(bytes_text(5000), "5 KiB");
        assert_eq!(bytes_text(20 << 20), "20.0 MiB");
        assert_eq!(bytes_text(300 << 20), "300 MiB");
        assert_eq!(bytes_text(1536 << 20), "1.5 GiB");
        // A file device without a limit: 2^32 pages of 4 KiB.
        assert_eq!(bytes_text(1 << 44), "16.0 TiB");
    }
}
