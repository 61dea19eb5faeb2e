//! Trace files: one operation per line.
//!
//! ```text
//! # comment
//! I <key> <value>        insert
//! D <key> <value>        delete
//! U <key> <old> <new>    update
//! S <key>                search
//! R <lo> <hi>            range (inclusive)
//! ```
//!
//! Numbers are decimal (or `0x` hexadecimal) unsigned 64-bit integers;
//! tokens are separated by whitespace; blank lines and lines starting with
//! `#` are ignored. A malformed line is an error naming the file and line.
//! [`TraceReader`] streams: it holds one line at a time, so a trace of 10⁸
//! operations runs in constant memory.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::{Op, WorkloadError};

/// Streams operations from a trace.
pub struct TraceReader<R: BufRead> {
    input: R,
    path: PathBuf,
    line_no: u64,
    line: String,
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// Opens a trace file.
    pub fn open(path: &Path) -> Result<Self, WorkloadError> {
        let f = std::fs::File::open(path).map_err(|source| WorkloadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(TraceReader::new(
            std::io::BufReader::with_capacity(1 << 16, f),
            path,
        ))
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Reads from `input`; `path` names it in errors.
    pub fn new(input: R, path: &Path) -> Self {
        TraceReader {
            input,
            path: path.to_path_buf(),
            line_no: 0,
            line: String::new(),
        }
    }

    fn error(&self, message: String) -> WorkloadError {
        WorkloadError::Parse {
            path: self.path.clone(),
            line: self.line_no,
            message,
        }
    }
}

fn number(tok: &str) -> Option<u64> {
    match tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => tok.parse().ok(),
    }
}

/// Parses one non-comment line; the error message has no position.
pub fn parse_line(line: &str) -> Result<Option<Op>, String> {
    let mut toks = line.split_whitespace();
    let Some(code) = toks.next() else {
        return Ok(None);
    };
    if code.starts_with('#') {
        return Ok(None);
    }
    let want = match code {
        "I" | "D" | "R" => 2,
        "U" => 3,
        "S" => 1,
        _ => {
            return Err(format!(
                "unknown operation `{code}` (expected I, D, U, S or R)"
            ))
        }
    };
    let mut nums = [0u64; 3];
    let mut got = 0;
    for tok in toks {
        if tok.starts_with('#') {
            break;
        }
        if got == want {
            return Err(format!("too many numbers after {code}: expected {want}"));
        }
        nums[got] =
            number(tok).ok_or_else(|| format!("`{tok}` is not an unsigned 64-bit integer"))?;
        got += 1;
    }
    if got != want {
        return Err(format!(
            "expected {want} number{} after {code}, got {got}",
            if want > 1 { "s" } else { "" }
        ));
    }
    Ok(Some(match code {
        "I" => Op::Insert {
            key: nums[0],
            value: nums[1],
        },
        "D" => Op::Delete {
            key: nums[0],
            value: nums[1],
        },
        "U" => Op::Update {
            key: nums[0],
            old: nums[1],
            new: nums[2],
        },
        "S" => Op::Search { key: nums[0] },
        _ => {
            if nums[0] > nums[1] {
                return Err(format!("range {} {} has lo > hi", nums[0], nums[1]));
            }
            Op::Range {
                lo: nums[0],
                hi: nums[1],
            }
        }
    }))
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Op, WorkloadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.line.clear();
            match self.input.read_line(&mut self.line) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    return Some(Err(WorkloadError::Io {
                        path: self.path.clone(),
                        source,
                    }))
                }
            }
            self.line_no += 1;
            match parse_line(&self.line) {
                Ok(None) => continue,
                Ok(Some(op)) => return Some(Ok(op)),
                Err(m) => return Some(Err(self.error(m))),
            }
        }
    }
}

/// Writes operations in the trace format.
pub struct TraceWriter<W: Write> {
    out: W,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(out: W) -> Self {
        TraceWriter { out }
    }
    pub fn comment(&mut self, text: &str) -> std::io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, "# {line}")?;
        }
        Ok(())
    }
    pub fn write(&mut self, op: &Op) -> std::io::Result<()> {
        writeln!(self.out, "{op}")
    }
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> Vec<Result<Op, WorkloadError>> {
        TraceReader::new(text.as_bytes(), Path::new("t.trace")).collect()
    }

    #[test]
    fn every_form_comments_and_blank_lines() {
        let ops: Vec<Op> =
            parse_all("# hi\n\nI 1 2\nD 3 4  # trailing\nU 5 6 7\n  S 0x10\nR 1 9\n")
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
        assert_eq!(
            ops,
            vec![
                Op::Insert { key: 1, value: 2 },
                Op::Delete { key: 3, value: 4 },
                Op::Update {
                    key: 5,
                    old: 6,
                    new: 7
                },
                Op::Search { key: 16 },
                Op::Range { lo: 1, hi: 9 },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        for (text, line, needle) in [
            ("I 1 2\nI 1\n", 2, "expected 2 numbers after I, got 1"),
            ("\n\nX 1\n", 3, "unknown operation `X`"),
            ("S 1 2\n", 1, "too many"),
            ("I 1 -2\n", 1, "`-2` is not"),
            ("R 9 1\n", 1, "lo > hi"),
            ("I 1 99999999999999999999\n", 1, "is not"),
        ] {
            let err = parse_all(text).into_iter().find_map(|r| r.err()).unwrap();
            let msg = err.to_string();
            assert!(msg.starts_with(&format!("t.trace:{line}: ")), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn writer_reader_round_trip() {
        let ops = vec![
            Op::Insert {
                key: u64::MAX,
                value: 0,
            },
            Op::Update {
                key: 1,
                old: 2,
                new: 3,
            },
            Op::Range { lo: 4, hi: 4 },
        ];
        let mut w = TraceWriter::new(Vec::new());
        w.comment("generated").unwrap();
        for op in &ops {
            w.write(op).unwrap();
        }
        let bytes = w.finish().unwrap();
        let back: Vec<Op> = TraceReader::new(&bytes[..], Path::new("x"))
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(back, ops);
    }
}
