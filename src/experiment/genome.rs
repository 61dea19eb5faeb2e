//! The genome of the MB-Tree experiments' real workload (Roh et al. 2009
//! §6), named by its content.
//!
//! A run's parameters go into its CSV row and its seed
//! ([`super::sweep::stable_seed`]), so they must not depend on where the
//! genome lies: the `workload` parameter of a genome run is
//! `dna:NAME`, with NAME the genome's name by content
//! ([`crate::workload::dna::content_name`]: its first record's accession
//! and the CRC-32C of the file), never its path. Shards on machines that
//! keep the file in different places, and one machine that moved it, give
//! byte-identical results (issue #46). Only when a run executes is the
//! name resolved to the file on this machine ([`local_workload`]).
//!
//! Where the file is looked for: `FLASHIX_GENOME` (any FASTA file, plain,
//! .gz or .xz) if set and not empty, else Debian's `kleborate-examples`
//! path where the package is installed, else the copy the README's
//! `dpkg -x` unpacks into the user's cache folder.
//!
//! Invariants:
//! 1. A run names the genome the same way on every machine with the same
//!    file, whatever its path; the name is read from the file itself.
//! 2. On a machine without the file (and without `FLASHIX_GENOME`), the
//!    runs name the genome the experiments were made on ([`NTUH_K2044`]),
//!    so that such a machine plans and merges shards with the same runs as
//!    one that has it; it skips them, saying how to get the file.
//! 3. A run names a file by its path only when `FLASHIX_GENOME` names one
//!    that cannot be read: nothing runs then, and the message names it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::workload::dna;

/// Where Debian's `kleborate-examples` installs the genome.
const DEBIAN_GENOME: &str = "/usr/share/doc/kleborate/examples/data/NTUH-K2044.fna.xz";

/// The name by content ([`dna::content_name`]) of `NTUH-K2044.fna.xz` in
/// Debian's `kleborate-examples` (the Klebsiella pneumoniae NTUH-K2044
/// genome, accession AP006725.1): what the runs are named on a machine
/// without the file (invariant 2).
pub const NTUH_K2044: &str = "dna:AP006725.1#a5fbb07c";

/// The genome this process runs on.
#[derive(Clone, Debug, PartialEq)]
pub struct Genome {
    /// The runs' `workload` parameter: `dna:NAME`.
    pub workload: String,
    /// The file, when it was found and read.
    pub path: Option<PathBuf>,
    /// Why the genome runs cannot run here, and how to get the file.
    pub missing: Option<String>,
}

/// Where Debian's package unpacks below the user's cache folder
/// (`$XDG_CACHE_HOME`, else `$HOME/.cache`, then `flashix/`).
fn cached_genome() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(
        cache
            .join("flashix/kleborate-examples")
            .join(DEBIAN_GENOME.trim_start_matches('/')),
    )
}

/// The file to read for a given value of `FLASHIX_GENOME` (an empty one
/// counts as unset, so `FLASHIX_GENOME=` restores the default), and
/// whether the value chose it.
fn locate(env: Option<&str>) -> (PathBuf, bool) {
    if let Some(path) = env.filter(|p| !p.is_empty()) {
        return (PathBuf::from(path), true);
    }
    if !Path::new(DEBIAN_GENOME).exists() {
        if let Some(cached) = cached_genome().filter(|p| p.exists()) {
            return (cached, false);
        }
    }
    (PathBuf::from(DEBIAN_GENOME), false)
}

/// How to get the genome, for a file that is not there.
fn how_to_get(path: &Path) -> String {
    format!(
        "the DNA workload reads {}, which is not on this machine; the experiments use \
         the complete genome Debian ships in the package kleborate-examples: \
         `apt-get update && apt-get download kleborate-examples && dpkg -x \
         kleborate-examples_*.deb ~/.cache/flashix/kleborate-examples` (one 6 MB package, no \
         root needed for dpkg -x; `apt-get install --no-install-recommends kleborate-examples` \
         also works), or the FASTA file that the environment variable FLASHIX_GENOME names. \
         flashix never substitutes synthetic keys for it.",
        path.display()
    )
}

/// The genome for a given value of `FLASHIX_GENOME`.
fn genome_for(env: Option<&str>) -> Genome {
    let (path, chosen) = locate(env);
    let unnamed = |missing: String| Genome {
        // Invariants 2 and 3.
        workload: if chosen {
            format!("dna:{}", path.display())
        } else {
            NTUH_K2044.to_string()
        },
        path: None,
        missing: Some(missing),
    };
    if !path.exists() {
        return unnamed(how_to_get(&path));
    }
    match dna::identify(&path) {
        Ok(name) => Genome {
            workload: format!("dna:{name}"),
            path: Some(path),
            missing: None,
        },
        Err(e) => unnamed(format!("the DNA workload cannot read its genome: {e}")),
    }
}

/// The genome of this process, read once: the experiment definitions hold
/// `&'static str`s.
pub fn genome() -> &'static Genome {
    static GENOME: OnceLock<Genome> = OnceLock::new();
    GENOME.get_or_init(|| {
        // Lossy rather than `env::var`, which would fall back to the Debian
        // path unnoticed: a path that is not UTF-8 then names no file, and
        // the experiments refuse with that path in the message.
        let env = std::env::var_os("FLASHIX_GENOME").map(|v| v.to_string_lossy().into_owned());
        genome_for(env.as_deref())
    })
}

/// The `workload` parameter of the genome runs.
pub fn genome_workload() -> &'static str {
    &genome().workload
}

/// For a DNA workload that cannot run here: why, and how to get its file.
/// The genome's own name answers from [`genome`]; any other `dna:` value
/// is a path (as `flashix run --workload` takes it).
pub fn missing_dna_input(workload: &str) -> Option<String> {
    let rest = workload.strip_prefix("dna:")?;
    let g = genome();
    if workload == g.workload {
        return g.missing.clone();
    }
    if is_content_name(rest) {
        return Some(format!(
            "this run is on the genome {rest}, and the genome here is {}: {}",
            g.workload.trim_start_matches("dna:"),
            g.missing.as_deref().unwrap_or(
                "set FLASHIX_GENOME to the FASTA file of the run's genome (the name is its \
                 first record's accession and the CRC-32C of the file)"
            )
        ));
    }
    let path = Path::new(rest);
    (!path.exists()).then(|| how_to_get(path))
}

/// Whether `rest` (after `dna:`) is a name by content rather than a path:
/// `ACCESSION#crc` with eight hex digits.
fn is_content_name(rest: &str) -> bool {
    rest.rsplit_once('#').is_some_and(|(acc, crc)| {
        !acc.is_empty()
            && !acc.contains('/')
            && crc.len() == 8
            && crc.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The workload as this machine reads it: the genome's name resolved to
/// its file (`dna:PATH`); anything else unchanged.
pub fn local_workload(workload: &str) -> Result<String, String> {
    if let Some(missing) = missing_dna_input(workload) {
        return Err(missing);
    }
    let g = genome();
    match (&g.path, workload == g.workload) {
        (Some(path), true) => Ok(format!("dna:{}", path.display())),
        _ => Ok(workload.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flashix_genome_overrides_where_the_genome_is_read() {
        // Unset or empty: the installed package, else the unpacked copy in
        // the cache folder, else the Debian path (whichever this machine has).
        let (default, chosen) = locate(None);
        assert!(!chosen);
        assert!(default.ends_with(DEBIAN_GENOME.trim_start_matches('/')));
        assert_eq!(locate(Some("")), (default, false));
        assert_eq!(
            locate(Some("/data/chr19.fa.gz")),
            (PathBuf::from("/data/chr19.fa.gz"), true)
        );
        let missing = genome_for(Some("/nonexistent"));
        assert_eq!(missing.workload, "dna:/nonexistent");
        assert!(missing.missing.unwrap().contains("/nonexistent"));
    }

    #[test]
    fn a_genome_is_named_by_its_content_wherever_it_lies() {
        let dir = tempfile::tempdir().unwrap();
        let fasta = b">AP000001.1 a test genome\nACGTACGTACGTACGTACGT\n";
        let a = dir.path().join("a.fa");
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        let b = dir.path().join("elsewhere/renamed.fasta");
        std::fs::write(&a, fasta).unwrap();
        std::fs::write(&b, fasta).unwrap();
        let ga = genome_for(a.to_str());
        let gb = genome_for(b.to_str());
        assert_eq!(ga.workload, gb.workload);
        assert!(
            ga.workload.starts_with("dna:AP000001.1#"),
            "{}",
            ga.workload
        );
        assert!(!ga.workload.contains("a.fa"));
        assert_eq!(ga.path.as_deref(), Some(a.as_path()));
        // Another content, another name.
        std::fs::write(&b, b">AP000001.1 a test genome\nACGTACGTACGTACGTACGA\n").unwrap();
        assert_ne!(genome_for(b.to_str()).workload, ga.workload);
    }

    #[test]
    fn the_committed_name_is_the_debian_file_where_it_is_here() {
        // Invariant 2 holds only if NTUH_K2044 is the Debian file's name:
        // checked wherever the file is on this machine.
        let (path, _) = locate(None);
        if path.exists() {
            assert_eq!(genome_for(None).workload, NTUH_K2044);
        }
        assert!(is_content_name(NTUH_K2044.trim_start_matches("dna:")));
        assert!(!is_content_name("/data/x#0a1b2c3d"));
        assert!(!is_content_name("/data/x.fa"));
    }
}
