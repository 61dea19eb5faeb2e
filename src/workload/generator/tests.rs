//! The generator's tests: distributions, mixes, phases, the live set.

use super::*;
use std::collections::BTreeSet;

#[test]
fn phases_change_the_search_share_and_a_shorter_run_is_a_prefix() {
    let mut s = spec();
    s.mix = Mix {
        insert: 1.0,
        search: 0.0,
        delete: 0.0,
        update: 0.0,
        range: 0.0,
    };
    s.set("phases", "0/3/0").unwrap();
    s.set("phase_ops", "3000").unwrap();
    s.ops = 9000;
    let ops: Vec<Op> = Generator::new(&s, 5).unwrap().map(|o| o.unwrap()).collect();
    let searches = |r: std::ops::Range<usize>| {
        ops[r]
            .iter()
            .filter(|o| matches!(o, Op::Search { .. }))
            .count()
    };
    assert_eq!(searches(0..3000), 0);
    assert!(
        (2000..2500).contains(&searches(3000..6000)),
        "{}",
        searches(3000..6000)
    );
    assert_eq!(searches(6000..9000), 0);
    s.ops = 6000;
    let prefix: Vec<Op> = Generator::new(&s, 5).unwrap().map(|o| o.unwrap()).collect();
    assert_eq!(prefix[..], ops[..6000]);
    assert!(s.clone().set("phases", "1/x").is_err());
}

#[test]
fn oldest_order_deletes_ascend_with_ascending_keys() {
    // Wu et al. 2003 §5.3 at rs = 1: the deletes take the keys in the order
    // they were inserted, here ascending, so each deletes the smallest
    // live key; the default picks live entries anywhere.
    let mut s = spec();
    s.set("rs", "1").unwrap();
    s.set("key_max", "1000000").unwrap();
    s.set("delete_order", "oldest").unwrap();
    s.mix = Mix::INSERTS;
    s.set("delete_share", "0.5").unwrap();
    s.preload = 500;
    s.ops = 4000;
    let run = |s: &WorkloadSpec| {
        let mut pre = s.preload_ops().unwrap();
        let mut live: BTreeSet<u64> = pre
            .by_ref()
            .map(|o| match o.unwrap() {
                Op::Insert { key, .. } => key,
                o => panic!("{o:?} in a preload"),
            })
            .collect();
        let mut smallest = 0;
        let mut deletes = 0;
        for op in pre.continue_with(s).unwrap() {
            match op.unwrap() {
                Op::Insert { key, .. } => assert!(live.insert(key)),
                Op::Delete { key, .. } => {
                    deletes += 1;
                    if Some(&key) == live.first() {
                        smallest += 1;
                    }
                    assert!(live.remove(&key), "{key} deleted but not live");
                }
                o => panic!("{o:?}"),
            }
        }
        (smallest, deletes)
    };
    let (smallest, deletes) = run(&s);
    assert!(deletes > 1500);
    assert_eq!(smallest, deletes);
    s.set("delete_order", "uniform").unwrap();
    let (smallest, deletes) = run(&s);
    assert!(smallest < deletes / 10, "{smallest} of {deletes}");
    assert!(s.set("delete_order", "last").is_err());
}

fn spec() -> WorkloadSpec {
    WorkloadSpec {
        name: "t".into(),
        key_min: 0,
        key_max: 1000,
        dist: KeyDist::Uniform,
        mix: Mix {
            insert: 0.4,
            search: 0.2,
            delete: 0.2,
            update: 0.1,
            range: 0.1,
        },
        range_len: 10,
        search_existing: true,
        search_after: false,
        preload: 100,
        preload_sorted: false,
        phases: Vec::new(),
        phase_ops: 0,
        delete_order: DeleteOrder::Uniform,
        request: RequestDist::Uniform,
        ops: 10_000,
        seed: 9,
    }
}

fn collect(g: Generator) -> Vec<Op> {
    g.map(|r| r.unwrap()).collect()
}

/// `preload_sorted`: one key in each equal stratum of the range, so
/// the keys ascend and cover the range uniformly.
#[test]
fn a_sorted_preload_takes_one_key_per_stratum() {
    let mut s = spec();
    s.key_min = 1000;
    s.key_max = 1000 + 99_999;
    s.preload = 1000;
    s.set("preload_sorted", "true").unwrap();
    let keys: Vec<u64> = collect(s.preload_ops().unwrap())
        .into_iter()
        .map(|op| match op {
            Op::Insert { key, .. } => key,
            other => panic!("preload is inserts: {other:?}"),
        })
        .collect();
    assert_eq!(keys.len(), 1000);
    for (i, &k) in keys.iter().enumerate() {
        let lo = 1000 + i as u64 * 100;
        assert!((lo..lo + 100).contains(&k), "key {i} = {k}");
    }
    // Not the stratum's first key every time: uniform within it.
    assert!(keys
        .iter()
        .enumerate()
        .any(|(i, &k)| k != 1000 + i as u64 * 100));
}

#[test]
fn same_seed_same_ops_other_seed_other_ops() {
    let a = collect(spec().measured_ops().unwrap());
    let b = collect(spec().measured_ops().unwrap());
    assert_eq!(a, b);
    let mut s = spec();
    s.seed = 10;
    assert_ne!(a, collect(s.measured_ops().unwrap()));
    assert_eq!(a.len(), 10_000);
}

#[test]
fn deletes_and_updates_target_live_entries_and_values_are_unique() {
    let s = spec();
    let pre = s.preload_ops().unwrap();
    let mut live = BTreeSet::new();
    let mut pre_iter = pre;
    for op in pre_iter.by_ref() {
        let Op::Insert { key, value } = op.unwrap() else {
            panic!("preload is inserts")
        };
        assert!(live.insert((key, value)));
    }
    let g = pre_iter.continue_with(&s).unwrap();
    let mut counts = [0u32; 5];
    for op in g {
        let op = op.unwrap();
        counts[op.kind() as usize] += 1;
        match op {
            Op::Insert { key, value } => assert!(live.insert((key, value)), "unique value"),
            Op::Delete { key, value } => assert!(live.remove(&(key, value)), "{op:?} not live"),
            Op::Update { key, old, new } => {
                assert!(live.remove(&(key, old)), "{op:?} not live");
                assert!(live.insert((key, new)));
            }
            Op::Search { key } => {
                assert!(live.range((key, 0)..=(key, u64::MAX)).next().is_some())
            }
            Op::Range { lo, hi } => assert!(hi - lo < 10),
        }
    }
    // Seed 9 gives these exact counts (deterministic, not statistical).
    let total: u32 = counts.iter().sum();
    assert_eq!(total, 10_000);
    assert!(
        counts[0] > 3500 && counts[3] > 1500 && counts[2] > 500,
        "{counts:?}"
    );
}

fn insert_keys(s: &WorkloadSpec) -> Vec<u64> {
    collect(s.measured_ops().unwrap())
        .into_iter()
        .map(|o| {
            if let Op::Insert { key, .. } = o {
                key
            } else {
                0
            }
        })
        .collect()
}

#[test]
fn rs_one_is_ascending_rs_zero_is_not() {
    let mut s = spec();
    s.mix = Mix::INSERTS;
    s.key_max = u32::MAX as u64;
    s.set("rs", "1").unwrap();
    assert!(insert_keys(&s).windows(2).all(|w| w[1] == w[0] + 1));
    s.set("rs", "0").unwrap();
    assert!(
        insert_keys(&s)
            .windows(2)
            .filter(|w| w[1] == w[0] + 1)
            .count()
            < 10
    );
}

#[test]
fn search_after_replays_inserted_keys_in_order() {
    let mut s = spec();
    s.mix = Mix::INSERTS;
    s.ops = 50;
    s.search_after = true;
    let ops = collect(s.measured_ops().unwrap());
    assert_eq!(ops.len(), 100);
    for i in 0..50 {
        let Op::Insert { key, .. } = ops[i] else {
            panic!()
        };
        assert_eq!(ops[50 + i], Op::Search { key });
    }
}

#[test]
fn search_after_replays_the_inserts_of_a_mixed_phase_after_a_preload() {
    // The shadow keeps only the number of live entries while the
    // generator keeps the entries: their inserts must still agree.
    let mut s = spec();
    s.search_after = true;
    let mut pre = s.preload_ops().unwrap();
    pre.by_ref().for_each(drop);
    let ops = collect(pre.continue_with(&s).unwrap());
    let inserted: Vec<u64> = ops[..10_000]
        .iter()
        .filter_map(|o| match o {
            Op::Insert { key, .. } => Some(*key),
            _ => None,
        })
        .collect();
    let searched: Vec<u64> = ops[10_000..]
        .iter()
        .map(|o| match o {
            Op::Search { key } => *key,
            _ => panic!("{o:?} after the measured phase"),
        })
        .collect();
    assert!(inserted.len() > 3500);
    assert_eq!(inserted, searched);
}

#[test]
fn bad_overrides_are_errors() {
    let mut s = spec();
    assert!(s
        .set("colour", "1")
        .unwrap_err()
        .to_string()
        .contains("key_max"));
    assert!(s.set("rs", "2").is_err());
    assert!(s.set("ops", "-1").is_err());
    s.set("key_min", "10").unwrap();
    s.set("key_max", "5").unwrap();
    assert!(s.measured_ops().is_err());
}

/// A spec of `preload` scrambled keys, then `ops` operations of `mix`
/// under the scrambled Zipfian request distribution (the YCSB presets).
fn ycsb(mix: Mix, preload: u64, ops: u64) -> WorkloadSpec {
    let mut s = spec();
    s.set("dist", "scrambled").unwrap();
    s.set("request", "zipf").unwrap();
    s.key_min = 7;
    s.key_max = 7 + 99_999;
    s.mix = mix;
    s.preload = preload;
    s.ops = ops;
    s
}

#[test]
fn scrambled_keys_are_distinct_and_scattered() {
    // A permutation of the range: every key once in 100,000 inserts,
    // and consecutive inserts far apart (YCSB's hashed record keys).
    let s = ycsb(Mix::INSERTS, 0, 100_000);
    let keys: Vec<u64> = s
        .measured_ops()
        .unwrap()
        .map(|o| match o.unwrap() {
            Op::Insert { key, .. } => key,
            o => panic!("{o:?}"),
        })
        .collect();
    let distinct: BTreeSet<u64> = keys.iter().copied().collect();
    assert_eq!(distinct.len(), 100_000);
    assert_eq!(distinct.first(), Some(&7));
    assert_eq!(distinct.last(), Some(&(7 + 99_999)));
    let near = keys
        .windows(2)
        .filter(|w| w[0].abs_diff(w[1]) < 1000)
        .count();
    assert!(near < 100, "{near} consecutive inserts within 1,000 keys");
    // Any size of range, down to one key.
    for max in [0, 1, 2, 9, 1 << 20] {
        let mut s = ycsb(Mix::INSERTS, 0, max + 1);
        s.key_min = 0;
        s.key_max = max;
        let got: BTreeSet<u64> = collect(s.measured_ops().unwrap())
            .into_iter()
            .map(|o| match o {
                Op::Insert { key, .. } => key,
                o => panic!("{o:?}"),
            })
            .collect();
        assert_eq!(got.len() as u64, max + 1, "range [0, {max}]");
    }
}

#[test]
fn zipf_requests_read_few_scattered_live_entries() {
    let read_only = Mix {
        insert: 0.0,
        search: 1.0,
        delete: 0.0,
        update: 0.0,
        range: 0.0,
    };
    let counts = |request: &str| {
        let mut s = ycsb(read_only, 10_000, 100_000);
        s.set("request", request).unwrap();
        let mut pre = s.preload_ops().unwrap();
        let live: BTreeSet<u64> = pre
            .by_ref()
            .map(|o| match o.unwrap() {
                Op::Insert { key, .. } => key,
                o => panic!("{o:?}"),
            })
            .collect();
        let mut reads = std::collections::BTreeMap::new();
        for op in pre.continue_with(&s).unwrap() {
            match op.unwrap() {
                Op::Search { key } => {
                    assert!(live.contains(&key), "{key} is not live");
                    *reads.entry(key).or_insert(0u64) += 1;
                }
                o => panic!("{o:?}"),
            }
        }
        let mut by_count: Vec<(u64, u64)> = reads.into_iter().map(|(k, c)| (c, k)).collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        by_count
    };
    let zipf = counts("zipf");
    let uniform = counts("uniform");
    // Zipf(0.99) over 10^4 ranks gives rank 1 about 1/H = 10% of the
    // requests; uniform gives every entry about 0.01%.
    assert!(zipf[0].0 > 5_000, "hottest entry read {} times", zipf[0].0);
    assert!(
        uniform[0].0 < 100,
        "hottest entry read {} times",
        uniform[0].0
    );
    // The ten hottest are not neighbours in the key range.
    let mut hot: Vec<u64> = zipf[..10].iter().map(|e| e.1).collect();
    hot.sort_unstable();
    let span = hot[9] - hot[0];
    assert!(span > 10_000, "the ten hottest keys span {span}");
}

#[test]
fn request_takes_uniform_zipf_or_an_exponent() {
    let mut s = spec();
    for bad in ["zipf:0", "zipf:x", "latest", "zipf:-1", "uniform:1"] {
        assert!(s.set("request", bad).is_err(), "{bad}");
    }
    s.set("request", "zipf:0.5").unwrap();
    assert_eq!(s.request, RequestDist::Zipf(0.5));
    s.set("request", "uniform").unwrap();
    assert_eq!(s.request, RequestDist::Uniform);
}

#[test]
fn zipf_updates_change_entries_in_place() {
    // YCSB A: half updates. Every update names the live value of its key,
    // no entry is lost or added, and a shadow counting only the live
    // entries draws the same operations (`search_after` relies on it).
    let mix = Mix {
        insert: 0.0,
        search: 0.5,
        delete: 0.0,
        update: 0.5,
        range: 0.0,
    };
    let s = ycsb(mix, 2_000, 20_000);
    let mut pre = s.preload_ops().unwrap();
    let mut live: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    for op in pre.by_ref() {
        if let Op::Insert { key, value } = op.unwrap() {
            assert!(live.insert(key, value).is_none(), "{key} loaded twice");
        }
    }
    let mut updates = 0;
    let ops = collect(pre.continue_with(&s).unwrap());
    for op in &ops {
        match *op {
            Op::Search { key } => assert!(live.contains_key(&key)),
            Op::Update { key, old, new } => {
                updates += 1;
                assert_eq!(live.insert(key, new), Some(old), "update of {key}");
            }
            ref o => panic!("{o:?}"),
        }
    }
    assert_eq!(live.len(), 2_000);
    assert!(updates > 9_000, "{updates} updates");
    let kinds = |ops: &[Op]| -> Vec<u8> {
        ops.iter()
            .map(|o| match o {
                Op::Search { .. } => 0,
                Op::Update { .. } => 1,
                _ => 2,
            })
            .collect()
    };
    let mut g = Generator::new(&s, s.seed).unwrap();
    g.live = Live::Count(2_000);
    let counted: Vec<Op> = collect(g);
    assert_eq!(kinds(&counted), kinds(&ops));
}
