//! A shard's run file rewritten as another flashix build would have written
//! it (`experiment::partial`): its `build` changed and its `crc32c`
//! recomputed, so that only the build tells it apart.

use std::path::Path;

use serde_json::Value;

/// The CRC-32C (Castagnoli, reflected, as the `crc32c` crate computes it)
/// of `bytes`, bit by bit: the test's own, so that it checks the format
/// the module doc states, not the code that writes it.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The checksum a run record should carry: of the compact JSON of every
/// field but `crc32c` (serde_json's maps keep keys sorted).
pub fn checksum(record: &Value) -> u64 {
    let mut rest = record.clone();
    rest.as_object_mut()
        .expect("a run record is an object")
        .remove("crc32c");
    u64::from(crc32c(&serde_json::to_vec(&rest).unwrap()))
}

/// The run record in `path`.
pub fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Rewrites run file `path` as written by build `build`, with a checksum
/// that matches: after it checks that the file's own checksum is the one
/// [`checksum`] computes (else the rewrite would be damage, not another
/// build).
pub fn rebuild(path: &Path, build: &str) {
    let mut v = read(path);
    assert_eq!(
        v["crc32c"].as_u64(),
        Some(checksum(&v)),
        "{}: the test's checksum is not the writer's",
        path.display()
    );
    assert_ne!(v["build"], build, "{}", path.display());
    v["build"] = Value::from(build);
    v["crc32c"] = Value::from(checksum(&v));
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}
