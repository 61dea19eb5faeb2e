//! The build id: which code computed a result. A shard's run files and
//! manifest carry it ([`super::partial`]), so that a shard restarted, or
//! merged, with another flashix build (a `git pull` and `cargo build`
//! between) computes its runs again, or is refused, instead of mixing runs
//! of two simulators.
//!
//! `build.rs` computes it at build time: 16 hex digits, the 64-bit FNV-1a
//! hash of every file under `src/`, `Cargo.toml` and `Cargo.lock` (the
//! dependencies' versions), by path relative to the crate root in sorted
//! order. So it is the same wherever the same sources are built (another
//! machine, another folder, a debug or a release build) and changes with
//! any change to them, a comment included. It does not cover the Rust
//! toolchain, the target or the build's flags. Here, on the experiment
//! floor: its users are the shard files and the command line (`flashix
//! --version`); no lower floor needs it.

/// This build's id (see the module doc): `flashix --version` shows it.
pub const BUILD_ID: &str = env!("FLASHIX_BUILD_ID");

#[cfg(test)]
mod tests {
    use super::BUILD_ID;

    #[test]
    fn the_build_id_is_16_hex_digits() {
        assert_eq!(BUILD_ID.len(), 16, "{BUILD_ID}");
        assert!(
            BUILD_ID
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "{BUILD_ID}"
        );
    }
}
