//! Read-only never writes, and every index reads read-only (issue #41).
//!
//! For every index kind, a store on a real file, large enough that reading
//! it would reorganise it if it could (Consolidation consolidates a chain
//! whose reads cost more than its deltas saved; FlashDB switches a node
//! read through a long sector list to disk mode), is filled, flushed and
//! closed. Opened read-only, every key (three times, in shuffled orders,
//! so that nodes are read again after the cache has dropped them) and keys
//! never stored are looked up against an in-memory oracle, and the whole
//! key range is scanned; the file must stay byte-identical. Before the fix
//! Consolidation failed at open and FlashDB at its first mode switch, with
//! "is open read-only: nothing may be written to it".
//!
//! Two logs: `log_bytes = 0` (every flush commits, so the index itself
//! holds every entry and its reads meet long chains and lists) and a small
//! log (the last batches are replayed into the read-only overlay).

use std::collections::BTreeMap;
use std::path::Path;

use flashix::device::DeviceSpec;
use flashix::index::kinds::registry;
use flashix::index::{Index, Params};
use flashix::store::open_index_read_only;
use flashix::{Options, Store};

/// 512-byte pages: small nodes make trees tall enough that FlashDB's
/// lower levels are read from flash, not from its cached top levels.
const PAGE: usize = 512;
const MEMORY: usize = 64 << 10;
/// Enough for FlashDB to switch a node's mode on a read: before the fix it
/// did with 1,000 of these keys, not with 600.
const KEYS: u64 = 6_000;

/// A small deterministic generator (splitmix64): the test needs varied
/// keys, not a statistical quality.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, (self.next() % (i as u64 + 1)) as usize);
        }
    }
}

/// Keys are odd, so even keys are never stored.
fn key(mix: &mut Mix) -> u64 {
    (mix.next() % 50_000_000) | 1
}

fn options(kind: &str, log_bytes: u64) -> Options {
    let mut o = Options::index(kind).memory(MEMORY);
    o.page_size = PAGE;
    o.log_bytes = log_bytes;
    o
}

/// Fills a new store at `path` with puts, replacements and deletes,
/// flushing every 500 calls; returns what it holds.
fn fill(path: &Path, kind: &str, log_bytes: u64) -> BTreeMap<u64, u64> {
    fill_with(path, kind, log_bytes, &[])
}

/// [`fill`] with index parameters of its own.
fn fill_with(
    path: &Path,
    kind: &str,
    log_bytes: u64,
    params: &[(&str, &str)],
) -> BTreeMap<u64, u64> {
    let mut opts = options(kind, log_bytes);
    for (k, v) in params {
        opts = opts.set(k, v);
    }
    let mut store = Store::create(path, &opts).unwrap_or_else(|e| panic!("{kind}: create: {e}"));
    let mut oracle = BTreeMap::new();
    let mut mix = Mix(7);
    let mut keys = Vec::new();
    for i in 0..KEYS {
        let k = key(&mut mix);
        store
            .put(k, i)
            .unwrap_or_else(|e| panic!("{kind}: put {k}: {e}"));
        oracle.insert(k, i);
        keys.push(k);
        // Replacements and deletes put deltas on nodes already written.
        if i % 5 == 4 {
            let k = keys[(mix.next() % keys.len() as u64) as usize];
            store.put(k, i + 1_000_000).unwrap();
            oracle.insert(k, i + 1_000_000);
        }
        if i % 11 == 10 {
            let k = keys[(mix.next() % keys.len() as u64) as usize];
            assert_eq!(store.delete(k).unwrap(), oracle.remove(&k), "{kind}");
        }
        if i % 500 == 499 {
            store
                .flush()
                .unwrap_or_else(|e| panic!("{kind}: flush: {e}"));
        }
    }
    store
        .close()
        .unwrap_or_else(|e| panic!("{kind}: close: {e}"));
    oracle
}

/// Looks every key up, and keys never stored, and scans the range, on the
/// store at `path` opened read-only.
fn read_back(path: &Path, kind: &str, log_bytes: u64, oracle: &BTreeMap<u64, u64>) {
    let mut store = Store::open_read_only(path, &options(kind, log_bytes))
        .unwrap_or_else(|e| panic!("{kind}, log {log_bytes}: open read-only: {e}"));
    let mut mix = Mix(11);
    let mut keys: Vec<u64> = oracle.keys().copied().collect();
    for pass in 0..3 {
        mix.shuffle(&mut keys);
        for &k in &keys {
            let got = store
                .get(k)
                .unwrap_or_else(|e| panic!("{kind}, log {log_bytes}, pass {pass}: get {k}: {e}"));
            assert_eq!(got, Some(oracle[&k]), "{kind}, log {log_bytes}: key {k}");
        }
    }
    for _ in 0..500 {
        let k = key(&mut mix) & !1;
        assert_eq!(
            store.get(k).unwrap(),
            None,
            "{kind}, log {log_bytes}: absent key {k}"
        );
    }
    let all: Vec<(u64, u64)> = store
        .range(..)
        .unwrap_or_else(|e| panic!("{kind}, log {log_bytes}: range: {e}"))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{kind}, log {log_bytes}: range: {e}"));
    let want: Vec<(u64, u64)> = oracle.iter().map(|(&k, &v)| (k, v)).collect();
    assert!(
        all == want,
        "{kind}, log {log_bytes}: the range scan differs"
    );
}

fn check(kind: &str) {
    for log_bytes in [0, 32 << 10] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.flashix");
        let oracle = fill(&path, kind, log_bytes);
        let before = std::fs::read(&path).unwrap();
        read_back(&path, kind, log_bytes, &oracle);
        assert!(
            std::fs::read(&path).unwrap() == before,
            "{kind}, log {log_bytes}: a read-only open changed the file"
        );
    }
}

/// Every index kind the registry has is checked here.
#[test]
fn the_test_covers_every_index() {
    let mut kinds: Vec<&str> = registry::list().iter().map(|i| i.name).collect();
    kinds.sort_unstable();
    let mut covered = KINDS.to_vec();
    covered.sort_unstable();
    assert_eq!(kinds, covered);
}

const KINDS: [&str; 12] = [
    "btree",
    "bftl",
    "mbtree",
    "basic-delta",
    "flashdb",
    "consolidation",
    "fdtree",
    "lsm",
    "buffer-tree",
    "latree",
    "asbtree",
    "ipl",
];

macro_rules! each_index {
    ($($test:ident => $kind:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($kind);
            }
        )*
    };
}

each_index! {
    btree_reads_read_only => "btree",
    bftl_reads_read_only => "bftl",
    mbtree_reads_read_only => "mbtree",
    basic_delta_reads_read_only => "basic-delta",
    flashdb_reads_read_only => "flashdb",
    consolidation_reads_read_only => "consolidation",
    fdtree_reads_read_only => "fdtree",
    lsm_reads_read_only => "lsm",
    buffer_tree_reads_read_only => "buffer-tree",
    latree_reads_read_only => "latree",
    asbtree_reads_read_only => "asbtree",
    ipl_reads_read_only => "ipl",
}

/// The buffer tree's delayed lookups are answered when their batch
/// reaches the leaves, which writes. Opened read-only through the registry
/// on a store without a log (so no overlay answers them either) and asked
/// as the runner asks (`get_later` while the index defers lookups), it
/// answers every lookup, and writes nothing.
#[test]
fn delayed_lookups_are_answered_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.flashix");
    // A store of pairs: delayed lookups answer pairs, not versions of
    // keys (a map store keeps those, and answers at once).
    let oracle = fill_with(&path, "buffer-tree", 0, &[("versions", "pair")]);
    let before = std::fs::read(&path).unwrap();
    let mut spec = DeviceSpec::file(&path);
    spec.geometry.page_size = PAGE as u32;
    spec.log_bytes = 0;
    let storage = spec.open_read_only().unwrap();
    let params = Params::parse(["lookup=delayed"]).unwrap();
    let mut index: Box<dyn Index> =
        open_index_read_only("buffer-tree", storage, MEMORY, params).unwrap();
    let mut mix = Mix(3);
    let mut keys: Vec<u64> = oracle.keys().copied().collect();
    let mut values = Vec::new();
    let mut asked = BTreeMap::new();
    let mut answers = Vec::new();
    for _ in 0..3 {
        mix.shuffle(&mut keys);
        for &k in &keys {
            if index.defers_lookups() {
                let ticket = index
                    .get_later(k)
                    .unwrap_or_else(|e| panic!("get_later {k}: {e}"));
                asked.insert(ticket, k);
            } else {
                index.get(k, &mut values).unwrap();
                assert_eq!(values, [oracle[&k]], "key {k}");
            }
        }
    }
    index.take_answers(&mut answers);
    for (ticket, values) in answers {
        let k = asked.remove(&ticket).expect("an answer to a lookup asked");
        assert_eq!(values, [oracle[&k]], "key {k}");
    }
    assert!(asked.is_empty(), "{} lookups never answered", asked.len());
    drop(index);
    assert!(
        std::fs::read(&path).unwrap() == before,
        "a read-only open changed the file"
    );
}
