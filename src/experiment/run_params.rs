//! Reading a run's parameters, and the values several experiments share:
//! the getters every run kind uses, the scratch file a disk run owns, and
//! how the MB-Tree experiments give FlashDB its memory. A leaf of the
//! experiment floor: the registry of experiments ([`super::defs`]) and
//! each paper's file import it, and it imports neither.

use super::Params;

pub(super) fn prefixed(params: &Params, prefix: &str) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(prefix).map(|k| (k.to_string(), v.clone())))
        .collect()
}

pub(super) fn get<'a>(params: &'a Params, key: &str) -> Result<&'a str, String> {
    params
        .get(key)
        .map(String::as_str)
        .ok_or_else(|| format!("missing parameter `{key}`"))
}

pub(super) fn number<T: std::str::FromStr>(params: &Params, key: &str) -> Result<T, String> {
    get(params, key)?
        .parse()
        .map_err(|_| format!("parameter `{key}` is not a number"))
}

/// In a `device` parameter, a fresh file in the temporary folder for each
/// run (removed after it): `file:{scratch}` measures this machine's disk.
pub(super) const SCRATCH: &str = "{scratch}";

/// A file in the temporary folder that a run owns: removed when dropped.
pub(super) struct ScratchFile(std::path::PathBuf);

impl ScratchFile {
    pub(super) fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ScratchFile(
            std::env::temp_dir().join(format!("flashix-experiment-{}-{n}.db", std::process::id())),
        )
    }

    /// `file:PATH` for it.
    pub(super) fn device(&self) -> String {
        format!("file:{}", self.0.display())
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `memory` value that means "what FlashDB occupied on this workload".
pub(super) const MATCH_FLASHDB: &str = "flashdb";
/// FlashDB's budget in the MB-Tree experiments: more than it ever takes
/// (4 MiB), since Roh et al. 2009 §6 gives it the memory it needs ("a
/// pre-requisite") and the others what it occupied. It keeps no node cache
/// besides its top two levels, so what it takes is its node translation
/// table, mode table, reservation buffer, those levels and a commit's node
/// views and units, all counted.
pub(super) const FLASHDB_BUDGET: &str = "4194304";
/// FlashDB as the MB-Tree experiments run it: its defaults (one-page
/// nodes, BFTL's 60-record reservation buffer and C = 3) and the memory it
/// needs.
pub(super) const MBTREE_FLASHDB: [(&str, &str); 2] =
    [("index", "flashdb"), ("memory", FLASHDB_BUDGET)];

/// The index parameter of an experiment that follows a paper keeping its
/// data-bound tables outside the memory budget (Agrawal et al. 2009 §6:
/// "the node table is not counted"): the index gives its caches and
/// buffers the whole budget, and the tables (node tables, the buffer
/// directory, ADAPT's counters) are named lines beside it
/// (`node::budget`); the run's budget then holds the rest
/// (`RunOptions::exclude_named`, set from it).
pub(super) const TABLES_OUTSIDE: (&str, &str) = ("set.tables", "outside");
