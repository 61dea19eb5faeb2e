//! The engines under test, one module each, behind one shape: an engine
//! opens a transaction (or stands for one), hands it to the harness's
//! `body` as a [`Writer`] or [`Reader`], and commits durably the way that
//! engine commits. The harness (`run.rs`) times every operation and the
//! commit itself, so an engine module holds only what differs between
//! engines: how it is opened, how a key is put and got, and how it
//! commits.

mod fjall;
mod flashix;
mod lmdb;
mod redb;
mod sled;

use std::path::Path;

use crate::error::Res;

/// Memory given by default to every engine that has a cache knob
/// (flashix's budget, redb's, fjall's and sled's cache); LMDB has none (the
/// OS page cache). `--memory` sets it.
pub const DEFAULT_MEMORY: usize = 64 << 20;

/// The peers, in the order the bench runs and lists them; the flashix
/// indexes follow, as `flashix-NAME`.
const PEERS: [&str; 5] = ["redb", "lmdb", "fjall", "fjall-default", "sled"];

/// Reads inside one transaction (or of the engine itself, where it has
/// none).
pub trait Reader {
    fn get(&mut self, key: u64) -> Res<Option<u64>>;
}

/// Reads and writes inside one write transaction.
pub trait Writer: Reader {
    fn put(&mut self, key: u64, value: u64) -> Res<()>;
}

/// One engine under test.
pub trait Engine {
    /// Runs `body` in one write (one write transaction where the engine
    /// has them), then commits it durably, as that engine commits.
    fn write(&mut self, body: &mut dyn FnMut(&mut dyn Writer) -> Res<()>) -> Res<()>;
    /// Runs `body` outside any write (in one read transaction where the
    /// engine has them).
    fn read(&mut self, body: &mut dyn FnMut(&mut dyn Reader) -> Res<()>) -> Res<()>;
}

/// Every engine's name: the peers, then each flashix index.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = PEERS.iter().map(|s| s.to_string()).collect();
    for info in ::flashix::index::kinds::registry::list() {
        v.push(format!("flashix-{}", info.name));
    }
    v
}

/// Creates engine `name`'s files in `dir` (empty) and opens it;
/// `log_bytes` is flashix's write-ahead log bound, `memory` every engine's
/// cache (flashix's budget), `params` every flashix index's parameters.
pub fn open(
    name: &str,
    dir: &Path,
    log_bytes: u64,
    memory: usize,
    params: &[(String, String)],
) -> Res<Box<dyn Engine>> {
    Ok(match name {
        "redb" => Box::new(redb::Redb::create(dir, memory)?),
        "lmdb" => Box::new(lmdb::Lmdb::create(dir)?),
        "fjall" => Box::new(fjall::Fjall::create(dir, memory, false)?),
        "fjall-default" => Box::new(fjall::Fjall::create(dir, memory, true)?),
        "sled" => Box::new(sled::Sled::create(dir, memory)?),
        _ => match name.strip_prefix("flashix-") {
            Some(index) => Box::new(flashix::Flashix::create(
                dir, index, log_bytes, memory, params,
            )?),
            None => return Err(format!("unknown engine {name:?}").into()),
        },
    })
}

/// A value stored as 8 big-endian bytes (the engines that store bytes:
/// fjall and sled).
fn be_u64(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"))
}
