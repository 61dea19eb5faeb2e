//! Reopening an index with a parameter that contradicts its superblock is
//! an `IndexError::Mismatch` at open, naming the parameter and both values;
//! reopening with none takes them from the image.

mod common;

use flashix::device::Storage;
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};

const MEMORY: usize = 1 << 16;

fn p(pairs: &[&str]) -> Params {
    Params::parse(pairs.iter().copied()).unwrap()
}

/// An image of `name` made with `made`, holding 300 entries.
fn image(name: &str, storage: Storage, made: &[&str]) -> Storage {
    let mut t = create_index(name, storage, MEMORY, p(made)).unwrap();
    for i in 0..300u64 {
        t.insert(i * 7, i).unwrap();
    }
    t.flush().unwrap();
    t.into_storage()
}

/// Opening with `given` fails at open with a mismatch of `parameter`
/// whose message shows `image_value` and `given_value`.
fn refused(
    name: &str,
    storage: Storage,
    given: &[&str],
    parameter: &str,
    image_value: &str,
    given_value: &str,
) {
    let e = open_index(name, storage, MEMORY, p(given))
        .err()
        .unwrap_or_else(|| panic!("{name} opened with {given:?}"));
    match &e {
        IndexError::Mismatch {
            parameter: got,
            image,
            given,
        } => {
            assert_eq!(got, parameter, "{e}");
            assert_eq!(image, image_value, "{e}");
            assert_eq!(given, given_value, "{e}");
        }
        other => panic!("{name}: expected a mismatch of {parameter}, got {other}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains(parameter) && msg.contains(image_value) && msg.contains(given_value),
        "{msg}"
    );
}

/// Opening with no parameters finds all 300 entries.
fn reopens(name: &str, storage: Storage) {
    let mut t = open_index(name, storage, MEMORY, p(&[]))
        .unwrap_or_else(|e| panic!("{name} did not reopen without parameters: {e}"));
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(out.len(), 300, "{name}");
    let mut values = Vec::new();
    t.get(7 * 150, &mut values).unwrap();
    assert_eq!(values, vec![150], "{name}");
}

/// For each (made with, contradicting parameter, name, image, given): a
/// fresh image refuses the contradiction; one more reopens bare.
fn check(name: &str, storage: fn() -> Storage, made: &[&str], cases: &[(&str, &str, &str, &str)]) {
    for &(given, parameter, image_value, given_value) in cases {
        let s = image(name, storage(), made);
        refused(name, s, &[given], parameter, image_value, given_value);
    }
    reopens(name, image(name, storage(), made));
}

#[test]
fn btree() {
    check(
        "btree",
        common::ram,
        &["key_bytes=8", "node_bytes=1024"],
        &[
            ("key_bytes=4", "key_bytes", "8", "4"),
            ("value_bytes=8", "value_bytes", "4", "8"),
            ("node_bytes=512", "node_bytes", "1024", "512"),
        ],
    );
    check(
        "btree",
        common::ram,
        &["fanout=21", "leaf_entries=20"],
        &[("leaf_entries=12", "leaf_entries", "20", "12")],
    );
}

#[test]
fn bftl() {
    check(
        "bftl",
        common::ram,
        &["value_bytes=8", "fanout=12"],
        &[
            ("value_bytes=4", "value_bytes", "8", "4"),
            ("fanout=16", "node_bytes", "204", "268"),
            ("leaf_entries=9", "leaf_entries", "11", "9"),
        ],
    );
}

#[test]
fn flashdb() {
    check(
        "flashdb",
        common::ram,
        &["key_bytes=8", "fanout=10"],
        &[
            ("key_bytes=4", "key_bytes", "8", "4"),
            ("leaf_entries=5", "leaf_entries", "uncapped", "5"),
        ],
    );
}

#[test]
fn fdtree() {
    check(
        "fdtree",
        common::ram,
        &["key_bytes=8", "k=5", "page_bytes=1024", "head_bytes=2048"],
        &[
            ("key_bytes=4", "key_bytes", "8", "4"),
            ("k=6", "k", "5", "6"),
            ("page_bytes=512", "page_bytes", "1024", "512"),
            ("head_bytes=4096", "head_bytes", "2041", "4096"),
        ],
    );
}

#[test]
fn mbtree() {
    check(
        "mbtree",
        common::ram,
        &["key_bytes=8", "leaf_pages=3", "fei=true"],
        &[
            ("key_bytes=4", "key_bytes", "8", "4"),
            ("fei=false", "fei", "true", "false"),
            ("leaf_pages=4", "leaf_pages", "3", "4"),
            ("max_leaf_pages=8", "max_leaf_pages", "16", "8"),
        ],
    );
}

#[test]
fn mbtree_on_another_page_size() {
    use flashix::device::ram::RamDisk;
    let Storage::Pages(mut small) = image("mbtree", common::ram(), &[]) else {
        unreachable!("built on pages")
    };
    // The same bytes on a device of 1024-byte pages.
    let mut big = RamDisk::new(1024, 1 << 20);
    let mut buf = vec![0u8; 512];
    for lba in 0..4096 {
        small.read(lba, 0, &mut buf).unwrap();
        flashix::device::BlockDevice::write(&mut big, lba, 0, &buf).unwrap();
    }
    refused(
        "mbtree",
        Storage::Pages(Box::new(big)),
        &[],
        "page_size",
        "512",
        "1024",
    );
}

#[test]
fn basic_delta_and_consolidation() {
    for name in ["basic-delta", "consolidation"] {
        check(
            name,
            common::ram,
            &["fanout=8", "key_bytes=8"],
            &[
                ("fanout=16", "node_bytes", "140", "268"),
                ("key_bytes=4", "key_bytes", "8", "4"),
            ],
        );
    }
}

#[test]
fn ipl() {
    check(
        "ipl",
        common::ftl,
        &["fanout=20", "value_bytes=8"],
        &[
            ("fanout=16", "node_bytes", "332", "268"),
            ("value_bytes=4", "value_bytes", "8", "4"),
        ],
    );
}

#[test]
fn lsm() {
    check(
        "lsm",
        common::ram,
        &["key_bytes=8", "ratio=5", "page_bytes=1024", "c0_bytes=2048"],
        &[
            ("key_bytes=4", "key_bytes", "8", "4"),
            ("ratio=6", "ratio", "5", "6"),
            ("page_bytes=512", "page_bytes", "1024", "512"),
            ("c0_bytes=4096", "c0_bytes", "2041", "4096"),
        ],
    );
}
