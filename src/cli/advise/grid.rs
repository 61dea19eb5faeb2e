//! The configurations `flashix advise` tries: every index that runs on the
//! device, each over a small grid of the parameters its paper says matter.
//! The grid is fixed by the papers and the device, never by a result: no
//! value here was chosen to make an index win.
//!
//! | index | parameters | why (the paper) |
//! |---|---|---|
//! | `btree` | node of one page or two (and fanout 8 on byte-level flash) × cache none, LRU, modified LRU | Roh et al. 2009 §6.1 (one page optimal), §4.7 (the modified LRU); Agrawal et al. 2009 §6.3.6 (fanout 8 optimal where bytes cost) |
//! | `bftl` | reservation buffer 20, 60, 120 records × C 3, 8 | Wu et al. 2003 §5.4 (10 to 120 records, 60 recommended), §3.4 (the compaction bound C) |
//! | `flashdb` | C 3, 8 | Roh et al. 2009 §6 (C = 3 as in its papers) |
//! | `mbtree` | LRU share 0.3, 0.4, 0.5, 0.7 | Roh et al. 2009 §6.5 (30% to 90% tried, 40–50% appropriate) |
//! | `basic-delta`, `consolidation` | fanout 8, 16, 32 | Agrawal et al. 2009 §6.1 (fanout 16 best for the delta schemes) |
//! | `ipl` | a node of one page, fanout 16 | Agrawal et al. 2009 §6.1 (fanout 84, a page, best for IPL) |
//! | `fdtree` | k = k₀/4, k₀/2, k₀ (k₀ = f/2) × head: default, M/4 | Li et al. 2009 §III ("further tuning on k"), §II-A (the head tree) |
//! | `lsm` | ratio r₀/4, r₀/2, r₀ × C0: default, M/4 | Li et al. 2009 §III (the LSM-tree baseline); O'Neil's ratio and C0 |
//! | `buffer-tree` | buffers of M/2, M/4 (immediate lookups) | Agrawal et al. 2009 §3.1, §6.2 |
//! | `latree` | Adapt-Simple, ADAPT × node-cache share 0.25, 0.5 | Agrawal et al. 2009 §4 (ADAPT, Adapt-Simple), §6.3.5 (25% best) |
//! | `asbtree` | write buffer 16, 32, 64 nodes | Kim et al. 2014 §3 (the write buffer) |
//!
//! M is the memory budget. The buffer tree's delayed lookups are left out:
//! they answer a lookup only when its batch reaches the leaves, which no
//! caller of an index that answers at once can take as a replacement.
//! On a raw chip only the indexes that manage erase blocks run (`btree`'s
//! node log, `latree`, `buffer-tree`, `ipl`).

use crate::device::profile::Target;
use crate::device::ram::RamDisk;
use crate::device::{DeviceSpec, Storage};
use crate::index::Params;
use crate::store::create_index;

use super::super::args::IndexArgs;
use super::super::compare::label;

/// One configuration to try.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub cfg: IndexArgs,
    /// `index:K=V;K=V`, as `compare` names a configuration.
    pub label: String,
}

fn candidate(index: &str, set: &[String]) -> Candidate {
    let cfg = IndexArgs {
        index: index.to_string(),
        set: set.to_vec(),
    };
    Candidate {
        label: label(&cfg),
        cfg,
    }
}

/// Every combination of `axes` (each a key and its values), in order.
fn combine(axes: &[(&str, Vec<String>)]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for (key, values) in axes {
        out = out
            .into_iter()
            .flat_map(|set: Vec<String>| {
                values.iter().map(move |v| {
                    let mut s = set.clone();
                    if !v.is_empty() {
                        s.push(if key.is_empty() {
                            v.clone()
                        } else {
                            format!("{key}={v}")
                        });
                    }
                    s
                })
            })
            .collect();
    }
    out
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A default an index derives from the page size (the FD-tree's k, the
/// LSM-tree's ratio: half the entries a page holds), read off an index
/// made on a RAM disk of the device's page size with a budget that any
/// page size fits (nothing is written to the device).
fn derived_default(index: &str, stat: &str, page_size: usize) -> Option<u64> {
    let storage = Storage::Pages(Box::new(RamDisk::new(page_size, 1 << 20)));
    let memory = (64 * page_size).max(1 << 20);
    let made = create_index(index, storage, memory, Params::new()).ok()?;
    made.stats().get(stat).map(|v| v as u64)
}

/// `base` divided by each of `divisors`, at least 2, without repeats.
fn fractions(base: u64, divisors: &[u64]) -> Vec<String> {
    let mut v: Vec<u64> = divisors.iter().map(|d| (base / d).max(2)).collect();
    v.dedup();
    v.iter().map(u64::to_string).collect()
}

/// The configurations for `spec` and a budget of `memory` bytes (module
/// doc), in the order the table lists them.
pub fn candidates(spec: &DeviceSpec, memory: usize) -> Vec<Candidate> {
    let raw = spec.target == Target::Raw;
    let c = &spec.cost;
    let byte_level = c.read_us_per_byte > 0.0
        || c.write_us_per_byte > 0.0
        || c.read_uj_per_byte > 0.0
        || c.write_uj_per_byte > 0.0;
    let page = spec.geometry.page_size as usize;
    let mut out = Vec::new();
    let mut add = |index: &str, axes: &[(&str, Vec<String>)]| {
        for set in combine(axes) {
            out.push(candidate(index, &set));
        }
    };
    let mut nodes = strs(&["node_pages=1", "node_pages=2"]);
    if byte_level {
        nodes.insert(0, "fanout=8".into());
    }
    add(
        "btree",
        &[("", nodes), ("cache", strs(&["none", "lru", "mlru"]))],
    );
    if !raw {
        add(
            "bftl",
            &[
                ("reservation_buffer", strs(&["20", "60", "120"])),
                ("compaction_c", strs(&["3", "8"])),
            ],
        );
        add("flashdb", &[("compaction_c", strs(&["3", "8"]))]);
        add(
            "mbtree",
            &[("lru_share", strs(&["0.3", "0.4", "0.5", "0.7"]))],
        );
        for delta in ["basic-delta", "consolidation"] {
            add(delta, &[("fanout", strs(&["8", "16", "32"]))]);
        }
    }
    add("ipl", &[("", strs(&["", "fanout=16"]))]);
    if !raw {
        let quarter = (memory / 4).to_string();
        if let Some(k) = derived_default("fdtree", "k", page) {
            add(
                "fdtree",
                &[
                    ("k", fractions(k, &[4, 2, 1])),
                    ("head_bytes", vec![String::new(), quarter.clone()]),
                ],
            );
        }
        if let Some(r) = derived_default("lsm", "ratio", page) {
            add(
                "lsm",
                &[
                    ("ratio", fractions(r, &[4, 2, 1])),
                    ("c0_bytes", vec![String::new(), quarter]),
                ],
            );
        }
    }
    add(
        "buffer-tree",
        &[(
            "max_buffer_bytes",
            vec![String::new(), (memory / 4).to_string()],
        )],
    );
    add(
        "latree",
        &[
            ("adapt", strs(&["simple", "adapt"])),
            ("node_cache_share", strs(&["0.25", "0.5"])),
        ],
    );
    if !raw {
        add("asbtree", &[("write_buffer", strs(&["16", "32", "64"]))]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_follows_the_device() {
        let ftl = DeviceSpec::parse("slc-small", &[]).unwrap();
        let all = candidates(&ftl, 64 << 10);
        let names: std::collections::BTreeSet<&str> =
            all.iter().map(|c| c.cfg.index.as_str()).collect();
        assert_eq!(
            names.len(),
            crate::index::kinds::registry::list().len(),
            "{names:?}"
        );
        assert!(all
            .iter()
            .any(|c| c.label == "btree:node_pages=1;cache=mlru"));
        assert!(!all.iter().any(|c| c.label.contains("fanout=8;cache")));
        assert!(all
            .iter()
            .any(|c| c.label == "fdtree:k=13;head_bytes=16384"));
        let labels: std::collections::BTreeSet<&str> =
            all.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels.len(), all.len(), "no configuration twice");
        let raw = DeviceSpec::parse("raw:toshiba-byte", &[]).unwrap();
        let on_raw = candidates(&raw, 64 << 10);
        assert!(on_raw
            .iter()
            .all(|c| ["btree", "latree", "buffer-tree", "ipl"].contains(&c.cfg.index.as_str())));
        assert!(on_raw.iter().any(|c| c.label == "btree:fanout=8;cache=lru"));
    }
}
