//! Computes the build id (`FLASHIX_BUILD_ID`, read by
//! `src/experiment/build_id.rs`): an identifier of the code that computes
//! results, so that a sharded `reproduce` restarted, or merged, with
//! another flashix build does not mix runs computed by two simulators
//! (`experiment::partial`, invariant 4).
//!
//! It is the 64-bit FNV-1a hash of every file under `src/`, `Cargo.toml`
//! and `Cargo.lock`: for each, in sorted order of its path relative to the
//! crate root (with `/` separators), the path, a zero byte, the length of
//! the contents (8 bytes, little-endian) and the contents. Relative
//! paths, sorted, make it the same in two clones at different paths and on
//! every machine; the lengths keep two files from reading as one. Only
//! std: a hash crate would be a build dependency for 20 lines.

use std::fs;
use std::path::{Path, PathBuf};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// Every file under `dir`, by its path relative to `root`.
fn files_under(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        // fs::metadata follows a symbolic link: its target's contents count.
        let meta = fs::metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if meta.is_dir() {
            files_under(root, &path, out);
        } else {
            out.push((relative(root, &path), path));
        }
    }
}

/// `path` relative to `root`, with `/` separators on every platform.
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    files_under(&root, &root.join("src"), &mut files);
    // Dependencies' versions change results too: the lock file pins them
    // (committed; a checkout without one hashes what it has).
    for name in ["Cargo.toml", "Cargo.lock"] {
        let path = root.join(name);
        if path.is_file() {
            files.push((name.to_string(), path));
        }
    }
    files.sort();
    let mut h = FNV_OFFSET;
    for (name, path) in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        h = fnv1a(h, name.as_bytes());
        h = fnv1a(h, &[0]);
        h = fnv1a(h, &(bytes.len() as u64).to_le_bytes());
        h = fnv1a(h, &bytes);
    }
    println!("cargo:rustc-env=FLASHIX_BUILD_ID={h:016x}");
    // A folder: cargo checks the times of every file and folder under it,
    // so an added or removed file counts too.
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
}
