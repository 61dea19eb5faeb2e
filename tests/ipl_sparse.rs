//! IPL on a huge logical device keeps state only for the erase units it
//! uses, and takes 8 + 8-byte entries at its default node size.

use flashix::device::ram::RamDisk;
use flashix::device::Storage;
use flashix::index::delta::{IplConfig, IplStore};
use flashix::index::{EntryFormat, Params};
use flashix::node::{Budget, Node, NodeChange, NodeLayout, NodeStore, Tables};
use flashix::store::{create_index, open_index};

/// A RAM disk of 2^32 pages: sparse, so only written pages cost memory.
fn huge() -> Storage {
    Storage::Pages(Box::new(RamDisk::new(512, 1 << 32)))
}

#[test]
fn unit_state_grows_with_the_units_used() {
    let layout = NodeLayout::with_fanout(EntryFormat::default(), 16).unwrap();
    let config = IplConfig {
        node_pages_per_block: None,
        log_pages_per_block: None,
        max_deltas: 4,
        log_buffers: None,
        budget: Budget::new(1 << 16, Tables::InBudget),
    };
    let mut store = IplStore::new(huge(), layout, config).unwrap();
    // 2^32 pages are 2^27 units of 32 pages: a table of them all would be
    // gigabytes.
    assert!(store.unit_table_len() <= 1);
    let mut node = Node::default();
    node.clear(0);
    for i in 0..40u64 {
        let id = store.allocate().unwrap();
        node.entries.clear();
        node.entries.push((i, i));
        store.write_node(id, &node, NodeChange::Rewrite).unwrap();
    }
    let mut back = Node::default();
    store.read_node(39, &mut back).unwrap();
    assert_eq!(back.entries, vec![(39, 39)]);
    // 40 one-page nodes fill three units of 16 slots (and unit 0).
    assert!(store.unit_table_len() <= 4, "{}", store.unit_table_len());
    assert!(store.memory_bytes() < 1 << 16, "{}", store.memory_bytes());
}

#[test]
fn a_few_operations_through_the_registry_on_a_huge_device() {
    let mut t = create_index("ipl", huge(), 1 << 16, Params::new()).unwrap();
    for i in 0..4u64 {
        t.insert(i, i).unwrap();
    }
    t.flush().unwrap();
    assert!(t.memory_bytes() <= 1 << 16, "{}", t.memory_bytes());
    let mut t = open_index("ipl", t.into_storage(), 1 << 16, Params::new()).unwrap();
    let mut out = Vec::new();
    t.range(0, 10, &mut out).unwrap();
    assert_eq!(out, vec![(0, 0), (1, 1), (2, 2), (3, 3)]);
}

#[test]
fn wide_entries_work_at_the_default_node_size() {
    let set = Params::parse(["key_bytes=8", "value_bytes=8"]).unwrap();
    let mut t = create_index("ipl", huge(), 1 << 16, set).unwrap();
    for i in 0..200u64 {
        t.insert(i << 40, i).unwrap();
    }
    t.flush().unwrap();
    let mut t = open_index("ipl", t.into_storage(), 1 << 16, Params::new()).unwrap();
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 200);
}
