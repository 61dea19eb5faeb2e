//! `node_format=paper` (the Buffered-B+ tree paper's 6f + 4-byte node,
//! `node::paper`): the indexes the lat-* experiments run in it answer as
//! the oracle does; the format is refused on a real file and on reopen.

mod common;

use common::{check, ftl, ops, raw, ModelOp};
use flashix::device::file::FileDevice;
use flashix::device::Storage;
use flashix::index::{Index, Params};
use flashix::node::codec::{Node, NodeLayout, NO_NODE};
use flashix::node::{paper, EntryFormat, NodeError, NodeFormat};
use flashix::store::{create_index, open_index};
use proptest::prelude::*;

/// The sequence without reopens: a paper-format index cannot be reopened.
fn no_reopen(ops: Vec<ModelOp>) -> Vec<ModelOp> {
    ops.into_iter()
        .filter(|o| !matches!(o, ModelOp::Reopen))
        .collect()
}

const PAPER: &str = "node_format=paper";

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn btree_in_the_node_log(ops in ops(400, 80)) {
        let ops = no_reopen(ops);
        check("btree", &[PAPER, "fanout=4", "cache=lru"], 512 + 28 * 6, || raw(7), &ops)?;
        check("btree", &[PAPER, "fanout=8", "key_bytes=2", "cache=none"], 1024, || raw(41), &ops)?;
    }

    #[test]
    fn latree_on_a_raw_chip(ops in ops(400, 200)) {
        let ops = no_reopen(ops);
        check("latree", &[PAPER, "fanout=6", "max_buffer_bytes=400", "log_blocks=8", "partition_blocks=1"], 8192, || raw(64), &ops)?;
    }

    #[test]
    fn delta_schemes_over_the_ftl(ops in ops(300, 200)) {
        let ops = no_reopen(ops);
        for name in ["basic-delta", "consolidation"] {
            check(name, &[PAPER, "fanout=8", "key_bytes=2"], 4096, ftl, &ops)?;
        }
    }

    #[test]
    fn buffer_tree_and_bftl(ops in ops(300, 200)) {
        let ops = no_reopen(ops);
        check("bftl", &[PAPER, "fanout=8"], 8192, ftl, &ops)?;
        check("buffer-tree", &[PAPER], 16384, ftl, &ops)?;
    }
}

fn params(set: &[&str]) -> Params {
    Params::parse(set.iter().copied()).unwrap()
}

#[test]
fn a_file_device_refuses_the_paper_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("paper.db");
    let storage = Storage::Pages(Box::new(FileDevice::create(&path, 4096, 0).unwrap()));
    let err = create_index("btree", storage, 65536, params(&[PAPER]))
        .err()
        .expect("a paper-format index on a file")
        .to_string();
    assert!(err.contains("simulation-only"), "{err}");
}

#[test]
fn a_paper_format_index_cannot_be_reopened() {
    let mut index: Box<dyn Index> =
        create_index("btree", raw(41), 65536, params(&[PAPER, "fanout=8"])).unwrap();
    index.insert(3, 4).unwrap();
    index.flush().unwrap();
    let storage = index.into_storage();
    let err = open_index("btree", storage, 65536, params(&[PAPER, "fanout=8"]))
        .err()
        .expect("reopening a paper-format index")
        .to_string();
    assert!(err.contains("cannot be reopened"), "{err}");
}

#[test]
fn an_index_without_nodes_reports_the_parameter_unknown() {
    let err = create_index("lsm", ftl(), 65536, params(&[PAPER]))
        .err()
        .map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("node_format")));
}

fn paper_format(k: u8) -> EntryFormat {
    EntryFormat::new(k, 4)
        .unwrap()
        .with_node_format(NodeFormat::Paper)
}

#[test]
fn a_node_of_fanout_f_takes_6f_plus_4_bytes_and_round_trips() {
    for f in [4usize, 8, 16, 24, 64, 84] {
        for format in [paper_format(2), paper_format(4)] {
            let l = NodeLayout::with_fanout(format, f).unwrap();
            assert_eq!(l.node_bytes, 6 * f + 4, "fanout {f}");
            assert_eq!((l.fanout, l.leaf_capacity), (f, f));
            assert_eq!(NodeLayout::with_node_bytes(format, 6 * f + 4).unwrap(), l);
            // A full leaf and a full internal node, encoded into exactly
            // S(f) bytes, decode back.
            let leaf = Node {
                level: 0,
                entries: (0..f as u64).map(|i| (i / 3, i * 7)).collect(),
                children: vec![],
                next: 9,
            };
            let inner = Node {
                level: 1,
                entries: (1..f as u64).map(|i| (i, 0)).collect(),
                children: (0..f as u32).collect(),
                next: NO_NODE,
            };
            for node in [leaf, inner] {
                let mut image = vec![0u8; l.node_bytes];
                l.encode(&node, &mut image);
                let mut back = Node::default();
                l.decode(&image, 3, &mut back).unwrap();
                assert_eq!(back, node);
                let (level, count) = l.image_header(&image, 3, false).unwrap();
                assert_eq!(level, node.level);
                assert!(l.image_sorted(&image, level, count));
            }
        }
    }
    // Our own format keeps 12f + 16 with 4 + 4-byte entries.
    let ours = NodeLayout::with_fanout(EntryFormat::default(), 8).unwrap();
    assert_eq!(ours.node_bytes, 12 * 8 + 16);
    assert!(NodeLayout::with_fanout(paper_format(4), 3).is_err());
}

#[test]
fn an_image_whose_content_is_gone_is_corrupt_not_another_node() {
    let l = NodeLayout::with_fanout(paper_format(4), 8).unwrap();
    let node = Node {
        level: 0,
        entries: vec![(1, 2)],
        children: vec![],
        next: NO_NODE,
    };
    let mut image = vec![0u8; l.node_bytes];
    l.encode(&node, &mut image);
    paper::clear_thread();
    let mut back = Node::default();
    assert!(matches!(
        l.decode(&image, 5, &mut back),
        Err(NodeError::Corrupt { page: 5, .. })
    ));
    // A new node after the clear gets a new handle, never the old one's.
    l.encode(&node, &mut image);
    assert!(l.decode(&image, 5, &mut back).is_ok());
}

#[test]
fn node_format_parses_and_names_its_values() {
    assert_eq!(NodeFormat::parse("paper").unwrap(), NodeFormat::Paper);
    assert_eq!(NodeFormat::parse("flashix").unwrap(), NodeFormat::Flashix);
    let e = NodeFormat::parse("6f+4").unwrap_err().to_string();
    assert!(e.contains("flashix or paper"), "{e}");
}
