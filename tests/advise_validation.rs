//! `flashix advise` against the papers' own conclusions (issue #30, point
//! 3): on each paper's setup, scaled to run in seconds, the recommendation
//! is what the paper concludes. Each test quotes the claim it checks. The
//! grid is `advise`'s own (every index, the parameters its paper says
//! matter); nothing here narrows it. Each case runs at two workload seeds,
//! so that a conclusion holds for the workload and not for one draw of it.

use std::process::Command;

use serde_json::Value;

/// Runs `advise` with `args` at `seed`; its JSON.
fn advise(args: &[&str], seed: u64) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("advise.json");
    let seed = seed.to_string();
    let mut all = vec!["advise", "--quiet", "--seed", &seed];
    all.extend_from_slice(args);
    let out_dir = dir.path().join("out");
    let (json_s, out_s) = (json.to_str().unwrap(), out_dir.to_str().unwrap());
    all.extend(["--json", json_s, "--out", out_s]);
    let out = Command::new(env!("CARGO_BIN_EXE_flashix"))
        .args(&all)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// The recommended index, and the recommendation's and the best
/// B+-tree's value of `measure` (per operation).
fn pick(v: &Value, measure: &str) -> (String, f64, f64) {
    let rec = &v["recommendation"];
    let index = rec["index"].as_str().unwrap_or("none").to_string();
    let ours = rec["measures"][measure].as_f64().unwrap_or(f64::NAN);
    let btree = v["best_btree"]["measures"][measure]
        .as_f64()
        .unwrap_or(f64::NAN);
    (index, ours, btree)
}

/// The front's labels, for failure messages.
fn front(v: &Value) -> Vec<String> {
    v["front"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|e| e["label"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

const SEEDS: [u64; 2] = [42, 7];

/// Agrawal et al. 2009 §6.3.2: "The results demonstrate that in a
/// write-dominated workload, the Buffered-B+ tree out-performs the B+ tree
/// with optimal fanout by 2.5 - 4x across the spectrum of memory
/// constraints" (Fig. 10(a): lookup-to-insert ratio 5%). Its setup (§6):
/// the Toshiba part with byte-level costs (`raw:toshiba-byte`, 1 Gbit =
/// 8,192 blocks), 64 KB of memory "excluding memory given to the Node
/// Table", keys i.i.d. uniform in 1..10,000 over a pre-built tree; energy
/// is its measure. The recommendation is a buffered index over the
/// B+-tree, and it spends less energy per operation than the best
/// B+-tree (fanout 8 among those tried).
#[test]
fn lat_write_intensive_recommends_a_buffered_tree() {
    for seed in SEEDS {
        let v = advise(
            &[
                "--workload",
                "lat",
                "--workload-set",
                "search=0.05",
                "--preload",
                "5000",
                "--ops",
                "25000",
                "--device",
                "raw:toshiba-byte",
                "--device-set",
                "blocks=8192",
                "--memory",
                "64KiB",
                "--exclude-node-tables",
            ],
            seed,
        );
        let (index, ours, btree) = pick(&v, "energy_uj");
        assert!(
            index == "latree" || index == "buffer-tree",
            "seed {seed}: {index}; front {:?}",
            front(&v)
        );
        assert!(ours < btree, "seed {seed}: {ours} µJ against {btree} µJ");
    }
}

/// The FD-tree paper's flash disk (`samsung-ssd32`, Li et al. 2009 Table I),
/// 2 KB pages ("The page size is set to 2KB"), each index built by its
/// bulk loader from a sorted preload as `reproduce fdtree-fig3c` builds
/// it, then the workload; 64 KiB of memory for a 10^5-entry index (the
/// paper gives 8 MB to 10^9 entries: here too the index is many times
/// the memory). Its measure is time ("X faster"), so the advice optimises
/// time: by the balanced default, Basic Delta (which the paper did not
/// run) wins W-Search on its 22× fewer page writes at 2.7× the time.
fn fd_tree_setup(workload: &str) -> Vec<&str> {
    vec![
        "--optimize",
        "time",
        "--workload",
        workload,
        "--preload",
        "100000",
        "--bulk-load",
        "--ops",
        "20000",
        "--device",
        "samsung-ssd32",
        "--device-set",
        "page_size=2KiB",
        "--memory",
        "64KiB",
    ]
}

/// Li et al. 2009 §III: "For W-Update on the flash disk, FD-tree is 61.4X,
/// 1.7X, 4.9X faster than B+-tree, LSM-tree and BFTL, respectively", and
/// "both LSM-tree and FD-tree are orders of magnitude faster than the
/// B+-tree and BFTL, due to their logarithmic structure design". The
/// recommendation is the FD-tree or the LSM-tree, faster than the best
/// B+-tree.
#[test]
fn w_update_recommends_a_logarithmic_structure() {
    for seed in SEEDS {
        let v = advise(&fd_tree_setup("w-update"), seed);
        let (index, ours, btree) = pick(&v, "time_us");
        assert!(
            index == "fdtree" || index == "lsm",
            "seed {seed}: {index}; front {:?}",
            front(&v)
        );
        assert!(ours < btree, "seed {seed}: {ours} µs against {btree} µs");
    }
}

/// Li et al. 2009 §III: "For W-Search on the flash disk, FD-tree is 15.8X,
/// 2.3X, 5.2X faster than B+-tree, LSM-tree and BFTL, respectively"; its
/// conclusion: FD-tree "outperforms these indexes for both search- and
/// update-intensive workloads". The recommendation is the FD-tree.
#[test]
fn w_search_recommends_the_fd_tree() {
    for seed in SEEDS {
        let v = advise(&fd_tree_setup("w-search"), seed);
        let (index, ours, btree) = pick(&v, "time_us");
        assert_eq!(index, "fdtree", "seed {seed}: front {:?}", front(&v));
        assert!(ours < btree, "seed {seed}: {ours} µs against {btree} µs");
    }
}

/// Roh et al. 2009 §6.2: "For both real and synthetic workloads, the total
/// number of page-writes was smallest in the case of the MB-Tree,
/// followed by the flashDB, the BFTL, the B-Tree (LRU), and lastly the
/// B-Tree", and §6.3: "the MB-Tree dominated in the performance the other
/// B-Tree variants for flash memory (the BFTL and flashDB) only with the
/// 60 kbyte main memory space". Its setup: random inserts of keys in
/// 0..3,000,000 on the SLC small-block chip (`slc-small`, Table 1) with
/// 60 KB; page writes are its measure (`--optimize writes`). The
/// recommendation is the MB-Tree.
#[test]
fn insert_heavy_with_60_kib_optimizing_writes_recommends_the_mb_tree() {
    for seed in SEEDS {
        let v = advise(
            &[
                "--workload",
                "insert-uniform",
                "--ops",
                "50000",
                "--device",
                "slc-small",
                "--memory",
                "60KiB",
                "--optimize",
                "writes",
            ],
            seed,
        );
        let (index, ours, btree) = pick(&v, "writes");
        assert_eq!(index, "mbtree", "seed {seed}: front {:?}", front(&v));
        assert!(ours < btree, "seed {seed}: {ours} against {btree}");
    }
}

/// Roh et al. 2009 §6.2: "None of B-Tree variants proposed for reducing
/// page-writes on flash memory showed superior performance to the B-Tree
/// (LRU) with respect to search operations." On a read-only workload
/// (YCSB C, the `ycsb-c` preset as it stands: 100,000 distinct keys
/// loaded, then 100,000 reads by a scrambled Zipfian; the B+-tree takes
/// 1.04 MiB of flash, 17 times the 64 KiB budget) the recommendation is a
/// B+-tree with a node cache.
///
/// The direction depends on how much larger than the memory the index is:
/// at 20,000 + 20,000 operations (an index 3 to 5 times the budget) the
/// FD-tree, whose full run pages and in-memory head hold more entries in
/// the same budget than the B+-tree's ln 2-full leaves, is 1.24× faster
/// (docs/DEVIATIONS.md, advise).
#[test]
fn read_only_recommends_a_cached_b_tree() {
    for seed in SEEDS {
        let v = advise(
            &[
                "--workload",
                "ycsb-c",
                "--device",
                "slc-small",
                "--memory",
                "64KiB",
            ],
            seed,
        );
        let rec = &v["recommendation"];
        assert_eq!(
            rec["index"].as_str(),
            Some("btree"),
            "seed {seed}: front {:?}",
            front(&v)
        );
        let cache = rec["params"]["cache"].as_str().unwrap_or("mlru");
        assert!(cache == "lru" || cache == "mlru", "seed {seed}: {cache}");
    }
}
