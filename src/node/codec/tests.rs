use super::*;

#[test]
fn even_internal_split_keeps_every_child_once_with_its_separators() {
    let mut node = Node::default();
    node.clear(2);
    node.children = (0..23).collect();
    node.entries = (1..23).map(|i| (i * 10, 0)).collect();
    let parts = node.split_internal_even(5);
    // 23 children, at most 5 a node: 5 nodes of 5, 5, 5, 5, 3.
    assert_eq!(parts.len(), 4);
    assert_eq!(node.children, vec![0, 1, 2, 3, 4]);
    assert_eq!(node.entries, vec![(10, 0), (20, 0), (30, 0), (40, 0)]);
    let (up, second) = &parts[0];
    assert_eq!(*up, (50, 0));
    assert_eq!(second.children, vec![5, 6, 7, 8, 9]);
    assert_eq!(second.entries.len(), 4);
    let total: usize =
        node.children.len() + parts.iter().map(|p| p.1.children.len()).sum::<usize>();
    assert_eq!(total, 23);
    assert!(parts
        .iter()
        .all(|p| p.1.level == 2 && p.1.entries.len() + 1 == p.1.children.len()));
}

#[test]
fn packed_search_agrees_with_partition_point_at_every_length() {
    for n in 0..=80u64 {
        let entries: Vec<(u64, u64)> = (0..n).map(|i| (i * 3 + 1, (i * 7) % 5)).collect();
        let words: Vec<[u8; 8]> = entries
            .iter()
            .map(|&(k, v)| (k | (v << 32)).to_le_bytes())
            .collect();
        for k in 0..n * 3 + 3 {
            for v in [0u64, 2, 4, u32::MAX as u64] {
                let t = (k << 32) | v;
                let want = entries.partition_point(|&e| e < (k, v));
                assert_eq!(
                    packed_count_below(&words, |w| u64::from_le_bytes(*w).rotate_left(32) < t),
                    want,
                    "n {n} target {k},{v}"
                );
                // The key-only search of a (key, 0) target.
                if v == 0 {
                    let key_below =
                        |w: &[u8; 8]| (u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64) < k;
                    assert_eq!(packed_count_below(&words, key_below), want, "n {n} key {k}");
                }
            }
        }
    }
}

#[test]
fn image_searches_agree_with_the_decoded_node() {
    for format in [
        EntryFormat::default(),
        EntryFormat::new(8, 4).unwrap(),
        EntryFormat::new(4, 8).unwrap(),
    ] {
        let l = NodeLayout::with_node_bytes(format, 512).unwrap();
        let max = format.max_key().min(format.max_value());
        let mut buf = vec![0u8; 512];
        for n in 0..l.leaf_capacity.min(20) {
            let leaf = Node {
                level: 0,
                entries: (0..n as u64).map(|i| (i / 2 * 3, i % 2 * 3)).collect(),
                children: vec![],
                next: NO_NODE,
            };
            l.encode(&leaf, &mut buf);
            let inner = Node {
                level: 1,
                entries: leaf.entries.clone(),
                children: (0..n as u32 + 1).collect(),
                next: NO_NODE,
            };
            let mut inner_buf = vec![0u8; 512];
            l.encode(&inner, &mut inner_buf);
            let targets = (0..n as u64 * 3 + 3)
                .flat_map(|k| [(k, 0), (k, 2), (k, 4), (k, max)])
                .chain([(max, max), (0, 0)]);
            for t in targets {
                assert_eq!(
                    l.image_leaf_find(&buf, n, t),
                    leaf.entries.binary_search(&t),
                    "{format:?} n {n} target {t:?}"
                );
                if n > 0 {
                    let slot = inner.child_slot(t);
                    assert_eq!(slot, inner.entries.partition_point(|s| *s <= t));
                    assert_eq!(
                        l.image_child_slot(&inner_buf, n + 1, t),
                        (slot, inner.children[slot]),
                        "{format:?} n {n} target {t:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn layouts_and_round_trip() {
    let f = EntryFormat::default();
    let l = NodeLayout::with_node_bytes(f, 512).unwrap();
    assert_eq!(l.leaf_capacity, (512 - 24) / 8);
    assert_eq!(l.fanout, (512 - 24 + 8) / 12);
    let by_fanout = NodeLayout::with_fanout(f, 8).unwrap();
    assert_eq!(by_fanout.fanout, 8);
    assert!(NodeLayout::with_node_bytes(f, 40).is_err());

    let mut buf = vec![0u8; 512];
    let leaf = Node {
        level: 0,
        entries: vec![(1, 2), (1, 3), (u32::MAX as u64, 9)],
        children: vec![],
        next: 17,
    };
    l.encode(&leaf, &mut buf);
    let mut back = Node::default();
    l.decode(&buf, 5, &mut back).unwrap();
    assert_eq!(back, leaf);
    let inner = Node {
        level: 2,
        entries: vec![(5, 0), (9, 1)],
        children: vec![4, 8, 12],
        next: NO_NODE,
    };
    l.encode(&inner, &mut buf);
    l.decode(&buf, 5, &mut back).unwrap();
    assert_eq!(back, inner);
    buf[40] ^= 1;
    assert!(matches!(
        l.decode(&buf, 5, &mut back),
        Err(NodeError::Corrupt { page: 5, .. })
    ));
    assert!(
        l.decode(&[0u8; 512], 6, &mut back).is_err(),
        "an empty page is no node"
    );
}

/// A leaf image's insert gives the bytes of encoding the decoded leaf with
/// the entry inserted, at every count and position: from an encoded leaf,
/// and from a valid frame with other bytes in its reserved fields (which
/// the insert zeroes, as encoding does), so that the checksum carried over
/// from the old frame is the one sealing computes.
#[test]
fn a_leaf_image_insert_writes_what_encoding_writes() {
    let layout = NodeLayout::with_node_bytes(EntryFormat::default(), 512).unwrap();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for count in 0..layout.leaf_capacity {
        let mut keys: Vec<(u64, u64)> = Vec::new();
        while keys.len() < count + 1 {
            let k = (next() % 5000, next() % 3);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let entry = keys.pop().unwrap();
        keys.sort();
        let mut leaf = Node::default();
        leaf.clear(0);
        leaf.next = next() as u32;
        leaf.entries = keys.clone();
        let pos = keys.partition_point(|e| *e < entry);
        let mut want_node = leaf.clone();
        want_node.entries.insert(pos, entry);
        let mut want = vec![0u8; 512];
        layout.encode(&want_node, &mut want);
        for odd in [false, true] {
            let mut image = vec![0u8; 512];
            layout.encode(&leaf, &mut image);
            if odd {
                image[FRAME_HEADER + 1] = 0x5A;
                image[12..16].copy_from_slice(&[1, 2, 3, 4]);
                let len = u32::from_le_bytes([image[4], image[5], image[6], image[7]]) as usize;
                let crc = crate::node::crc::crc32c_frame(
                    image.first_chunk::<16>().unwrap(),
                    &image[FRAME_HEADER..FRAME_HEADER + len],
                );
                image[8..12].copy_from_slice(&crc.to_le_bytes());
                assert!(page::open(&image, PageKind::TreeNode, 1).is_ok());
            }
            layout.image_leaf_insert(&mut image, count, pos, entry);
            assert_eq!(image, want, "count {count} pos {pos} odd {odd}");
        }
    }
}
