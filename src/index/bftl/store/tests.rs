//! A batch committed in parts (`early_commits`): the part committed first
//! must not carry the change whose units wait for the next part.

use super::*;
use crate::device::ram::RamDisk;
use crate::node::Tables;

/// A store whose pool holds one sector's units (Λ, the least it takes:
/// no budget), keeping its one-level tree's leaves as cached top-level
/// nodes.
fn store(flashdb: bool, compaction_c: usize) -> BftlStore {
    let format = EntryFormat::default();
    let layout = if flashdb {
        NodeLayout::with_node_bytes(format, 512 - NODE_PAGE_HEADER).unwrap()
    } else {
        NodeLayout::with_fanout(format, lambda(format, 512) + 1).unwrap()
    };
    let storage = Storage::Pages(Box::new(RamDisk::new(512, 256)));
    let budget = Budget::new(0, Tables::InBudget);
    BftlStore::new(storage, layout, compaction_c, 1, flashdb, budget, 0).unwrap()
}

fn leaf(entries: &[(u64, u64)]) -> Node {
    Node {
        entries: entries.to_vec(),
        next: NO_NODE,
        ..Node::default()
    }
}

/// Inserts `n` entries into leaf `id` (its node `held`), one unit each.
fn insert(s: &mut BftlStore, id: NodeId, held: &mut Node, keys: std::ops::Range<u64>) {
    for k in keys {
        held.entries.push((k, k));
        held.entries.sort_unstable();
        s.write_node(id, held, NodeChange::Insert(k, k)).unwrap();
    }
}

/// Deletes `e` from leaf `a` when the pool is full, so that the delete's
/// unit goes to the batch's second commit; `prepare` runs first in the
/// batch. Returns what leaf `a` reads back from its sectors.
fn delete_at_a_full_pool(
    s: &mut BftlStore,
    prepare: impl FnOnce(&mut BftlStore, NodeId, &mut Node) -> usize,
) -> (Result<Node, NodeError>, Node) {
    let (a, b) = (s.allocate().unwrap(), s.allocate().unwrap());
    let mut na = leaf(&[(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]);
    let mut nb = leaf(&[(100, 100)]);
    s.begin_batch();
    s.write_node(a, &na, NodeChange::Rewrite).unwrap();
    s.write_node(b, &nb, NodeChange::Rewrite).unwrap();
    s.end_batch().unwrap();
    s.begin_batch();
    let pending = prepare(s, a, &mut na);
    // Fill the pool to Λ with leaf b's units.
    let lambda = s.lambda() as u64;
    insert(s, b, &mut nb, 101..101 + lambda - pending as u64);
    assert_eq!(s.pool.len(), s.lambda());
    let early = s.early_commits;
    na.entries.retain(|&e| e != (1, 1));
    s.write_node(a, &na, NodeChange::Delete(1, 1)).unwrap();
    assert_eq!(
        s.early_commits,
        early + 1,
        "the delete's units start a new commit"
    );
    s.end_batch().unwrap();
    let mut read = Node::default();
    (s.read_committed(a, &mut read).map(|()| read), na)
}

#[test]
fn a_compaction_in_an_early_commit_writes_the_node_without_the_change_still_pending() {
    // C = 2: leaf a's list is two sectors before the batch, the early
    // commit's third compacts it, and the delete's sector leaves it at two.
    let mut s = store(false, 2);
    let (read, expected) = delete_at_a_full_pool(&mut s, |s, a, na| {
        s.end_batch().unwrap();
        s.begin_batch();
        insert(s, a, na, 10..11);
        s.end_batch().unwrap();
        s.begin_batch();
        insert(s, a, na, 11..12);
        1
    });
    assert!(s.compactions >= 1, "the early commit compacted leaf a");
    assert_eq!(read.unwrap(), expected);
}

#[test]
fn a_node_page_in_an_early_commit_is_written_without_the_change_still_pending() {
    // FlashDB: leaf a, rewritten whole in the batch, is written as a node
    // page by the early commit; the delete's unit follows it.
    let mut s = store(true, 3);
    let (read, expected) = delete_at_a_full_pool(&mut s, |s, a, na| {
        s.write_node(a, na, NodeChange::Rewrite).unwrap();
        na.entries.len()
    });
    assert!(
        s.node_pages_written >= 1,
        "the early commit wrote leaf a's page"
    );
    assert_eq!(read.unwrap(), expected);
}
