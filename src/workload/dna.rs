//! The MB-Tree paper's real workload (Roh et al. 2009 §6): every 16-base
//! substring of a DNA sequence, 2 bits a base (A 0, C 1, G 2, T 3), as a
//! 32-bit key, in sequence order, with the substring's position as its
//! pointer.
//!
//! Input: any FASTA file, plain, gzip (`.gz`) or xz (`.xz`) compressed
//! (told by its first bytes, not its name), with one or more records
//! (`>` header lines) and `;` comment lines. Bases may be upper or lower
//! case. `N` and the other IUPAC ambiguity codes (and gaps `-`, `*`) are
//! skipped: a 16-mer spanning one is not a 16-mer of the sequence, so the
//! window restarts after it, as it does at every record. Anything else is
//! an error naming its line.
//!
//! A genome is named by its content, never by where it lies
//! ([`DnaKeys::name`]): the accession of its first record and the CRC-32C
//! of the file's bytes, so the same file at any path (another machine's
//! cache, a cluster node) gives the same name, and with it the same run
//! seeds and CSVs (issue #46).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::WorkloadError;

/// Bases per key.
pub const K: usize = 16;

/// Keys read from a FASTA file.
#[derive(Clone, PartialEq, Eq)]
pub struct DnaKeys {
    /// The file's name, for error messages.
    pub source: String,
    /// The genome's name by content ([`content_name`]), for reports.
    pub name: String,
    /// The header line of the first record (without `>`), which names the
    /// sequence ("AP006725.1 Klebsiella pneumoniae ... complete genome").
    pub first_record: String,
    /// Records the keys were read from.
    pub records: usize,
    pub keys: Arc<Vec<u32>>,
}

impl fmt::Debug for DnaKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DnaKeys({}, {} records, {} keys)",
            self.source,
            self.records,
            self.keys.len()
        )
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> WorkloadError + '_ {
    move |source| WorkloadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The genome's name by content: the accession (the first word of the
/// first record's header, `unnamed` if it has none) and the CRC-32C of the
/// file's bytes as read, compressed or not, e.g. `AP006725.1#0a1b2c3d`.
pub fn content_name(first_record: &str, file_crc: u32) -> String {
    let accession = first_record.split_whitespace().next().unwrap_or("unnamed");
    format!("{accession}#{file_crc:08x}")
}

/// The name by content ([`content_name`]) of the FASTA file at `path`:
/// the whole file for its checksum, but decompressed only as far as its
/// first record's header (the experiment definitions name the genome in
/// every process that lists them). Plain and gzip files stop there; an xz
/// file is decompressed whole, because `lzma_rs` hands its output on only
/// as its window fills (0.13 s for the 1.4 MB NTUH-K2044.fna.xz here).
pub fn identify(path: &Path) -> Result<String, WorkloadError> {
    let raw = std::fs::read(path).map_err(io(path))?;
    let crc = crate::device::crc::crc32c(&raw);
    let mut head = FirstHeader::default();
    let decoded = decompress_into(path, &raw, &mut head);
    let header = head.header().ok_or_else(|| {
        decoded.err().unwrap_or_else(|| WorkloadError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: "not a FASTA file: no `>` record".into(),
        })
    })?;
    Ok(content_name(String::from_utf8_lossy(header).trim(), crc))
}

/// A sink that keeps decompressed bytes until they hold a whole `>` line,
/// then refuses more, which ends the decompression early.
#[derive(Default)]
struct FirstHeader {
    text: Vec<u8>,
    /// Where the first line not yet looked at starts.
    line_start: usize,
    /// The first `>` line once whole (without `>`).
    found: Option<std::ops::Range<usize>>,
}

impl FirstHeader {
    /// The first `>` line (without `>`), once whole or at the end of input.
    fn header(&self) -> Option<&[u8]> {
        match &self.found {
            Some(r) => Some(&self.text[r.clone()]),
            None => self.text[self.line_start..].strip_prefix(b">"),
        }
    }
}

impl std::io::Write for FirstHeader {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.found.is_some() {
            return Err(std::io::Error::other("the first header is read"));
        }
        self.text.extend_from_slice(buf);
        while let Some(n) = self.text[self.line_start..]
            .iter()
            .position(|&b| b == b'\n')
        {
            let line = self.line_start..self.line_start + n;
            self.line_start = line.end + 1;
            if self.text[line.clone()].first() == Some(&b'>') {
                self.found = Some(line.start + 1..line.end);
                break;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The CRC-32C of the file's bytes, and those bytes decompressed when its
/// magic says gzip or xz.
fn read_all(path: &Path) -> Result<(u32, Vec<u8>), WorkloadError> {
    let raw = std::fs::read(path).map_err(io(path))?;
    let crc = crate::device::crc::crc32c(&raw);
    if !is_compressed(&raw) {
        return Ok((crc, raw));
    }
    let mut out = Vec::new();
    decompress_into(path, &raw, &mut out)?;
    Ok((crc, out))
}

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const XZ_MAGIC: &[u8] = &[0xFD, b'7', b'z', b'X', b'Z', 0x00];

fn is_compressed(raw: &[u8]) -> bool {
    raw.starts_with(GZIP_MAGIC) || raw.starts_with(XZ_MAGIC)
}

/// Writes `raw` into `sink`, decompressed when its magic says gzip or xz.
fn decompress_into(
    path: &Path,
    raw: &[u8],
    sink: &mut impl std::io::Write,
) -> Result<(), WorkloadError> {
    if raw.starts_with(GZIP_MAGIC) {
        std::io::copy(&mut flate2::read::MultiGzDecoder::new(raw), sink).map_err(io(path))?;
    } else if raw.starts_with(XZ_MAGIC) {
        lzma_rs::xz_decompress(&mut &raw[..], sink).map_err(|e| WorkloadError::Parse {
            path: path.to_path_buf(),
            line: 0,
            message: format!("not a valid xz stream: {e}"),
        })?;
    } else {
        sink.write_all(raw).map_err(io(path))?;
    }
    Ok(())
}

/// Reads up to `max` keys from the FASTA file at `path`.
pub fn load(path: &Path, max: u64) -> Result<DnaKeys, WorkloadError> {
    let (crc, text) = read_all(path)?;
    let parse = |line: u64, message: String| WorkloadError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut keys = Vec::new();
    let mut records = 0usize;
    let mut first_record = String::new();
    let (mut window, mut filled) = (0u32, 0usize);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if keys.len() as u64 >= max {
            break;
        }
        let n = i as u64 + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) || line.first() == Some(&b';') {
            continue;
        }
        if line[0] == b'>' {
            if records == 0 {
                first_record = String::from_utf8_lossy(&line[1..]).trim().to_string();
            }
            records += 1;
            filled = 0;
            continue;
        }
        if records == 0 {
            return Err(parse(
                n,
                "not a FASTA file: the first line that is not blank or a comment must be a `>` header"
                    .into(),
            ));
        }
        for &b in line {
            let base = match b.to_ascii_uppercase() {
                b'A' => 0,
                b'C' => 1,
                b'G' => 2,
                b'T' | b'U' => 3,
                b'N' | b'R' | b'Y' | b'K' | b'M' | b'S' | b'W' | b'B' | b'D' | b'H' | b'V'
                | b'-' | b'*' => {
                    filled = 0;
                    continue;
                }
                b' ' | b'\t' => continue,
                other => {
                    return Err(parse(
                        n,
                        format!("byte {other:#04x} is not a nucleotide code"),
                    ))
                }
            };
            window = (window << 2) | base;
            filled += 1;
            if filled >= K {
                keys.push(window);
                if keys.len() as u64 >= max {
                    break;
                }
            }
        }
    }
    if records == 0 {
        return Err(parse(1, "not a FASTA file: no `>` record".into()));
    }
    let source = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(DnaKeys {
        source,
        name: content_name(&first_record, crc),
        first_record,
        records,
        keys: Arc::new(keys),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn sixteen_mers_in_order_across_lines_restarting_at_n_and_records() {
        let dir = tempfile::tempdir().unwrap();
        // 17 bases give two 16-mers; the N restarts the window; the second
        // record restarts it too.
        let fasta = b">r1 test\nACGTACGTAC\ngtacgtaC\n>r2\nAAAAAAAAAAAAAAAANAAAAAAAAAAAAAAAA\n";
        let p = write(&dir, "t.fa", fasta);
        let d = load(&p, u64::MAX).unwrap();
        assert_eq!(d.records, 2);
        assert_eq!(d.first_record, "r1 test");
        let first = 0b00_01_10_11_00_01_10_11_00_01_10_11_00_01_10_11u32;
        assert_eq!(d.keys[0], first);
        // ACGT ACGT AC GT ACGT AC: 18 bases, 3 keys in r1, then 2 in r2.
        assert_eq!(d.keys.len(), 3 + 2);
        assert_eq!(d.keys[3], 0);
        assert_eq!(load(&p, 2).unwrap().keys.len(), 2);
    }

    #[test]
    fn identify_reads_the_first_header_of_plain_gzip_and_xz() {
        let dir = tempfile::tempdir().unwrap();
        let fasta = b"; a comment\n\n>AB000001.2 first\nACGT\n>AB000002.1 second\nACGT\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(fasta).unwrap();
        let gz = gz.finish().unwrap();
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &fasta[..], &mut xz).unwrap();
        for (name, bytes) in [("p.fa", &fasta[..]), ("g.fa.gz", &gz), ("x.fa.xz", &xz)] {
            let id = identify(&write(&dir, name, bytes)).unwrap();
            let crc = crate::device::crc::crc32c(bytes);
            assert_eq!(id, format!("AB000001.2#{crc:08x}"), "{name}");
        }
        // A header at the very end, with no newline after it.
        assert!(identify(&write(&dir, "end.fa", b";c\n>Z9"))
            .unwrap()
            .starts_with("Z9#"));
        assert!(identify(&write(&dir, "none.fa", b"ACGT\nACGT\n")).is_err());
    }

    #[test]
    fn gzip_and_xz_read_like_plain_text() {
        let dir = tempfile::tempdir().unwrap();
        let fasta = b">x\nACGTTGCAACGTTGCAACGT\n";
        let plain = load(&write(&dir, "a.fa", fasta), u64::MAX).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(fasta).unwrap();
        let gz = load(&write(&dir, "a.fa.gz", &gz.finish().unwrap()), u64::MAX).unwrap();
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &fasta[..], &mut xz).unwrap();
        let xz = load(&write(&dir, "a.fa.xz", &xz), u64::MAX).unwrap();
        assert_eq!(plain.keys, gz.keys);
        assert_eq!(plain.keys, xz.keys);
        assert_eq!(plain.keys.len(), 5);
    }

    #[test]
    fn what_is_not_fasta_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(&write(&dir, "b.txt", b"I k v\nS 3\n"), 10).unwrap_err();
        assert!(e.to_string().contains("not a FASTA file"), "{e}");
        let e = load(&write(&dir, "c.fa", b">x\nACGT\nAC9T\n"), 10).unwrap_err();
        assert!(e.to_string().contains("c.fa:3:"), "{e}");
        let e = load(&write(&dir, "d.fa", b"\n\n"), 10).unwrap_err();
        assert!(e.to_string().contains("no `>` record"), "{e}");
        assert!(load(Path::new("/nonexistent/x.fa"), 1).is_err());
    }
}
