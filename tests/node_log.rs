//! The node log on a raw chip (Agrawal et al. 2009 §5.2): nodes are
//! packed several to a page, programmed once per page, the log switches
//! halves when one fills, and node reads cost only the node's bytes.

use flashix::device::{DeviceSpec, Storage};
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};

fn raw(blocks: &str) -> Storage {
    let sets = vec![("blocks".to_string(), blocks.to_string())];
    DeviceSpec::parse("raw:toshiba-byte", &sets)
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn the_log_switches_halves_and_keeps_every_entry() {
    let params = Params::parse(["fanout=8", "cache=lru"]).unwrap();
    let mut t = create_index("btree", raw("11"), 1024, params).unwrap();
    for i in 0..3000u64 {
        t.insert(i * 7 % 1000, i).unwrap();
    }
    let stats = t.stats();
    assert!(stats.get("node_log_switches").unwrap() >= 1.0, "{stats:?}");
    assert!(stats.get("node_table_bytes").unwrap() > 0.0);
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 3000);
    t.flush().unwrap();
    let s = t.storage().stats();
    assert!(s.erases >= 4, "a switch erases the old half");
    let params = Params::parse(["fanout=8", "cache=lru"]).unwrap();
    let mut t = open_index("btree", t.into_storage(), 1024, params).unwrap();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 3000);
}

#[test]
fn node_reads_cost_only_the_nodes_bytes() {
    let params = Params::parse(["fanout=8", "cache=none"]).unwrap();
    let mut t = create_index("btree", raw("64"), 1024, params).unwrap();
    for i in 0..200u64 {
        t.insert(i, i).unwrap();
    }
    t.flush().unwrap();
    let before = t.storage().stats();
    let mut out = Vec::new();
    t.get(150, &mut out).unwrap();
    let d = t.storage().stats().delta(&before);
    let node_bytes = t.stats().get("node_bytes").unwrap() as u64;
    assert_eq!(out, vec![150]);
    assert!(d.physical_reads >= 2);
    assert_eq!(
        d.physical_bytes_read,
        d.physical_reads * node_bytes,
        "{d:?}"
    );
    // toshiba-byte: 4.07 µJ + 0.105 µJ per byte read.
    let want = d.physical_reads as f64 * 4.07 + d.physical_bytes_read as f64 * 0.105;
    assert!((d.energy_uj - want).abs() < 1e-6);
}

#[test]
fn a_log_too_small_for_the_tree_is_a_clear_error() {
    let params = Params::parse(["fanout=8", "cache=none"]).unwrap();
    let mut t = create_index("btree", raw("5"), 1024, params).unwrap();
    let mut err = None;
    for i in 0..100_000u64 {
        if let Err(e) = t.insert(i, i) {
            err = Some(e);
            break;
        }
    }
    let e = err.expect("a 1-block half fills up");
    assert!(matches!(e, IndexError::Device(_)), "{e}");
    assert!(e.to_string().contains("no room"), "{e}");
    assert!(t.stats().get("entries").unwrap() > 100.0);
    // From then on every call is refused, naming the error
    // (`store::guard`); the node log reopens at its last flush.
    let mut out = Vec::new();
    match t.range(0, u64::MAX, &mut out) {
        Err(IndexError::Poisoned { first }) => assert!(first.contains("no room"), "{first}"),
        other => panic!("{other:?}"),
    }
}
