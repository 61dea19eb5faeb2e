//! Named workloads from the papers. Each is a [`WorkloadSpec`] that
//! `--workload-set K=V`, `--preload` and `--ops` override.
//!
//! | preset | what | source |
//! |---|---|---|
//! | `insert-uniform` | inserts, keys uniform in [0, 3,000,000] | Roh et al. 2009 §6 |
//! | `mbtree` | inserts of uniform keys in [0, 3,000,000], then a search of every inserted key | Roh et al. 2009 §6.1–6.2 |
//! | `bftl` | inserts, keys an `rs` mix (rs = 0.5) | Wu et al. 2003 §5.2 |
//! | `bftl-maintain` | 50% deletes / 50% inserts, rs = 0.5, after a preload | Wu et al. 2003 §5.3 |
//! | `lat` | keys i.i.d. uniform in 1 … 10,000; lookups at 25% of inserts; 50,000-key preload | Agrawal et al. 2009 §6 |
//! | `lat-phases` | `lat` in three equal phases of lookups at 5%, 200% and 5% of inserts | ours, for Agrawal et al. 2009 Fig. 9(c) (its image-sensor trace is not available) |
//! | `w-search` / `w-update` | 80/10/5/5 and 20/40/20/20 search/insert/delete/update, keys uniform in [0, 2³² − 1] | Li et al. 2009 §III |
//! | `tpcc-index` | 72% search, 24% insert, 3% range, 1% delete | Kim et al. 2014 §4.2 |
//! | `ycsb-a` / `ycsb-b` / `ycsb-c` | 50/50, 95/5 read/update; read only; a preload of distinct scrambled keys, requests by YCSB's scrambled Zipfian (0.99) | YCSB core workloads |
//! | `zipf` | inserts, Zipf(0.99) keys | — |

use super::generator::{DeleteOrder, KeyDist, Mix, RequestDist, WorkloadSpec};
use super::WorkloadError;

/// A named workload.
#[derive(Clone, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub spec: WorkloadSpec,
}

fn base(name: &str) -> WorkloadSpec {
    WorkloadSpec {
        name: name.to_string(),
        key_min: 0,
        key_max: 3_000_000,
        dist: KeyDist::Uniform,
        mix: Mix::INSERTS,
        range_len: 100,
        search_existing: true,
        search_after: false,
        preload: 0,
        preload_sorted: false,
        phases: Vec::new(),
        phase_ops: 0,
        delete_order: DeleteOrder::Uniform,
        request: RequestDist::Uniform,
        ops: 100_000,
        seed: 42,
    }
}

fn mix(insert: f64, search: f64, delete: f64, update: f64, range: f64) -> Mix {
    Mix {
        insert,
        search,
        delete,
        update,
        range,
    }
}

/// Every preset.
pub fn presets() -> Vec<Preset> {
    let mut v = Vec::new();
    v.push(Preset {
        name: "insert-uniform",
        description: "inserts, keys uniform in [0, 3,000,000] (Roh et al. 2009 §6)",
        spec: base("insert-uniform"),
    });
    let mut s = base("mbtree");
    s.ops = 200_000;
    s.search_after = true;
    v.push(Preset {
        name: "mbtree",
        description: "200,000 inserts of uniform keys in [0, 3,000,000], then a search of each inserted key (Roh et al. 2009 §6.1)",
        spec: s,
    });
    let mut s = base("bftl");
    s.key_max = u32::MAX as u64;
    s.dist = KeyDist::Rs(0.5);
    s.ops = 24_000;
    v.push(Preset {
        name: "bftl",
        description:
            "24,000 inserts, keys an rs mix of ascending and random, rs=0.5 (Wu et al. 2003 §5.2)",
        spec: s,
    });
    let mut s = base("bftl-maintain");
    s.key_max = u32::MAX as u64;
    s.dist = KeyDist::Rs(0.5);
    s.mix = mix(0.5, 0.0, 0.5, 0.0, 0.0);
    s.preload = 12_000;
    s.ops = 24_000;
    v.push(Preset {
        name: "bftl-maintain",
        description: "24,000 operations, deletion/insertion 50/50, rs=0.5 after 12,000 inserts (Wu et al. 2003 §5.3)",
        spec: s,
    });
    let mut s = base("lat");
    s.key_min = 1;
    s.key_max = 10_000;
    s.mix = mix(1.0, 0.25, 0.0, 0.0, 0.0);
    s.preload = 50_000;
    s.ops = 250_000;
    v.push(Preset {
        name: "lat",
        description: "keys i.i.d. uniform in 1..10,000, lookup-to-insert ratio 25%, 50,000-key preload (Agrawal et al. 2009 §6)",
        spec: s.clone(),
    });
    s.name = "lat-phases".into();
    s.phases = vec![0.05, 2.0, 0.05];
    v.push(Preset {
        name: "lat-phases",
        description: "lat in three equal phases: write-heavy (lookups at 5% of inserts), read-heavy (200%), write-heavy (5%); ours, for Agrawal et al. 2009 Fig. 9(c), whose image-sensor trace is not available",
        spec: s,
    });
    for (name, description, m) in [
        (
            "w-search",
            "W-Search: 80% search, 10% insert, 5% delete, 5% update, keys uniform in [0, 2^32 - 1] (Li et al. 2009 §III)",
            mix(0.10, 0.80, 0.05, 0.05, 0.0),
        ),
        (
            "w-update",
            "W-Update: 20% search, 40% insert, 20% delete, 20% update, keys uniform in [0, 2^32 - 1] (Li et al. 2009 §III)",
            mix(0.40, 0.20, 0.20, 0.20, 0.0),
        ),
    ] {
        let mut s = base(name);
        s.key_max = u32::MAX as u64;
        s.mix = m;
        v.push(Preset {
            name,
            description,
            spec: s,
        });
    }
    let mut s = base("tpcc-index");
    s.mix = mix(0.24, 0.72, 0.01, 0.0, 0.03);
    s.preload = 100_000;
    v.push(Preset {
        name: "tpcc-index",
        description: "72% search, 24% insert, 3% range, 1% delete after a 100,000-entry preload (Kim et al. 2014 §4.2)",
        spec: s,
    });
    for (name, description, m) in [
        (
            "ycsb-a",
            "50% read, 50% update, scrambled Zipf 0.99 requests, 100,000 distinct preloaded keys (YCSB A)",
            mix(0.0, 0.5, 0.0, 0.5, 0.0),
        ),
        (
            "ycsb-b",
            "95% read, 5% update, scrambled Zipf 0.99 requests, 100,000 distinct preloaded keys (YCSB B)",
            mix(0.0, 0.95, 0.0, 0.05, 0.0),
        ),
        (
            "ycsb-c",
            "read only, scrambled Zipf 0.99 requests, 100,000 distinct preloaded keys (YCSB C)",
            mix(0.0, 1.0, 0.0, 0.0, 0.0),
        ),
    ] {
        // YCSB's load phase inserts each record once; its requests pick
        // records by a scrambled Zipfian, not keys by a Zipf over the key
        // range (which would preload one hot key thousands of times).
        let mut s = base(name);
        s.dist = KeyDist::Scrambled;
        s.request = RequestDist::Zipf(0.99);
        s.mix = m;
        s.preload = 100_000;
        v.push(Preset {
            name,
            description,
            spec: s,
        });
    }
    let mut s = base("zipf");
    s.dist = KeyDist::Zipf(0.99);
    v.push(Preset {
        name: "zipf",
        description: "inserts, Zipf(0.99) keys in [0, 3,000,000]",
        spec: s,
    });
    v
}

/// The spec of preset `name` with overrides, preload, ops and seed applied.
pub fn build(
    name: &str,
    sets: &[(String, String)],
    preload: Option<u64>,
    ops: Option<u64>,
    seed: u64,
) -> Result<WorkloadSpec, WorkloadError> {
    let dna = name.strip_prefix("dna:");
    let preset = if dna.is_some() { "mbtree" } else { name };
    let mut spec = presets()
        .into_iter()
        .find(|p| p.name == preset)
        .map(|p| p.spec)
        .ok_or_else(|| {
            let names: Vec<&str> = presets().iter().map(|p| p.name).collect();
            WorkloadError::Config(format!(
                "unknown workload preset `{name}`; known: {}, dna:FILE",
                names.join(", ")
            ))
        })?;
    for (k, v) in sets {
        spec.set(k, v)?;
    }
    if let Some(p) = preload {
        spec.preload = p;
    }
    if let Some(o) = ops {
        spec.ops = o;
    }
    spec.seed = seed;
    if let Some(path) = dna {
        // §6: "the integers were inserted according to the corresponding
        // DNA sequences' order"; read as many as the run can insert.
        let need = spec.preload.saturating_add(spec.ops);
        let keys = super::dna::load(std::path::Path::new(path), need)?;
        if (keys.keys.len() as u64) < need {
            return Err(WorkloadError::Config(format!(
                "{path} holds {} 16-base substrings; the workload inserts up to {need}",
                keys.keys.len()
            )));
        }
        spec.name = format!("dna:{}", keys.name);
        spec.key_min = 0;
        spec.key_max = u32::MAX as u64;
        spec.dist = super::generator::KeyDist::Sequence(keys);
    }
    spec.validate()?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds_and_generates() {
        for p in presets() {
            let spec = build(p.name, &[], Some(10), Some(100), 1).unwrap();
            let pre = spec.preload_ops().unwrap();
            let mut pre = pre;
            assert_eq!(pre.by_ref().count(), 10);
            let n = pre.continue_with(&spec).unwrap().count();
            assert!(n >= 100, "{}: {n}", p.name);
        }
        assert!(build("nope", &[], None, None, 1)
            .unwrap_err()
            .to_string()
            .contains("mbtree"));
    }
}
