//! `btree` refuses bad input and bad configurations with clear errors and
//! loses nothing; corrupted pages are reported as `Corrupt`.

use flashix::device::fault::{FaultPlan, FaultyDevice};
use flashix::device::ram::RamDisk;
use flashix::device::{DeviceError, DeviceSpec, Storage};
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};

fn ram() -> Storage {
    Storage::Pages(Box::new(RamDisk::new(512, 1 << 16)))
}

fn p(pairs: &[&str]) -> Params {
    Params::parse(pairs.iter().copied()).unwrap()
}

#[test]
fn budget_below_two_nodes_is_refused() {
    let e = create_index("btree", ram(), 1000, p(&[])).err().unwrap();
    assert!(
        matches!(
            e,
            IndexError::BudgetTooSmall {
                needed: 1024,
                given: 1000,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("1024"));
}

#[test]
fn out_of_range_keys_change_nothing() {
    let mut t = create_index("btree", ram(), 4096, p(&[])).unwrap();
    t.insert(5, 5).unwrap();
    assert!(matches!(
        t.insert(1 << 32, 1),
        Err(IndexError::KeyOutOfRange { .. })
    ));
    assert!(matches!(
        t.insert(1, 1 << 32),
        Err(IndexError::ValueOutOfRange { .. })
    ));
    assert!(matches!(
        t.update(5, 5, 1 << 40),
        Err(IndexError::ValueOutOfRange { .. })
    ));
    let mut out = Vec::new();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert_eq!(
        out,
        vec![(5, 5)],
        "the failed update did not delete the old pair"
    );
}

#[test]
fn two_byte_widths_refuse_what_does_not_fit() {
    for index in ["btree", "latree"] {
        let mut t = create_index(index, ram(), 8192, p(&["key_bytes=2", "value_bytes=2"])).unwrap();
        t.insert(65_535, 65_535).unwrap();
        assert!(matches!(
            t.insert(65_536, 1),
            Err(IndexError::KeyOutOfRange { max: 65_535, .. })
        ));
        assert!(matches!(
            t.insert(1, 65_536),
            Err(IndexError::ValueOutOfRange { max: 65_535, .. })
        ));
        t.flush().unwrap();
        let mut out = Vec::new();
        t.range(0, u64::MAX, &mut out).unwrap();
        assert_eq!(out, vec![(65_535, 65_535)], "{index}");
    }
    let e = create_index("btree", ram(), 4096, p(&["key_bytes=3"]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("2, 4 or 8"), "{e}");
}

#[test]
fn unknown_parameters_and_raw_chips_are_refused() {
    let e = create_index("btree", ram(), 4096, p(&["fanot=8"]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("fanot") && e.contains("fanout"), "{e}");
    let e = create_index("btree", ram(), 4096, p(&["cache=fifo"]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("fifo"), "{e}");
    // A raw chip takes the node log, whose record offsets are 16-bit.
    let raw = DeviceSpec::parse("raw:slc-small", &[])
        .unwrap()
        .build()
        .unwrap();
    let e = create_index("btree", raw, 4096, p(&["node_bytes=70000"]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("too large for the node log"), "{e}");
    assert!(create_index("nope", ram(), 4096, p(&[]))
        .err()
        .unwrap()
        .to_string()
        .contains("btree"));
    let e = open_index("btree", ram(), 4096, p(&[])).err().unwrap();
    assert!(matches!(e, IndexError::NoIndex(_)), "{e}");
}

#[test]
fn a_corrupted_node_page_is_reported_not_misread() {
    let mut t = create_index("btree", ram(), 1024, p(&["cache=none"])).unwrap();
    for i in 0..200 {
        t.insert(i, i).unwrap();
    }
    t.flush().unwrap();
    let Storage::Pages(mut dev) = t.into_storage() else {
        unreachable!()
    };
    // Node 0 (the first leaf) lives at logical page 1: flip one byte of it.
    let mut b = [0u8; 1];
    dev.read(1, 40, &mut b).unwrap();
    dev.write(1, 40, &[b[0] ^ 0x04]).unwrap();
    let mut t = open_index("btree", Storage::Pages(dev), 1024, p(&["cache=none"])).unwrap();
    let mut out = Vec::new();
    let e = t.range(0, 1000, &mut out).unwrap_err();
    assert!(matches!(e, IndexError::Corrupt { page: 1, .. }), "{e}");
}

#[test]
fn a_bit_flipped_on_read_is_corrupt() {
    let plan = FaultPlan {
        flip_read: Some((3, 100)),
        ..FaultPlan::default()
    };
    let dev = FaultyDevice::new(RamDisk::new(512, 1 << 16), plan);
    let mut t = create_index(
        "btree",
        Storage::Pages(Box::new(dev)),
        1024,
        p(&["cache=none"]),
    )
    .unwrap();
    let mut out = Vec::new();
    let mut results = Vec::new();
    for i in 0..4 {
        results.push(t.get(i, &mut out));
    }
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(IndexError::Corrupt { .. }))),
        "{results:?}"
    );
}

#[test]
fn a_full_device_is_an_error_and_loses_nothing() {
    // Over the FTL with the commit layer: the B+-tree writes in place, so
    // only a committed device reopens at its last flush.
    let sets = vec![
        ("blocks".to_string(), "8".to_string()),
        ("atomic".to_string(), "true".to_string()),
    ];
    let storage = DeviceSpec::parse("slc-small", &sets)
        .unwrap()
        .build()
        .unwrap();
    let mut t = create_index("btree", storage, 2048, p(&["cache=none"])).unwrap();
    let mut inserted = 0u64;
    let mut flushed = 0u64;
    let err = loop {
        match t.insert(inserted * 13 % 100_003, inserted) {
            Ok(()) => inserted += 1,
            Err(e) => break e,
        }
        if inserted.is_multiple_of(50) {
            t.flush().unwrap();
            flushed = inserted;
        }
        assert!(inserted < 1_000_000, "never filled");
    };
    assert!(
        matches!(err, IndexError::Device(DeviceError::Full { .. })),
        "{err}"
    );
    // Refused from then on, naming the Full; reopened, the last flush.
    let mut out = Vec::new();
    match t.range(0, u64::MAX, &mut out) {
        Err(IndexError::Poisoned { first }) => assert!(first.contains("full"), "{first}"),
        other => panic!("{other:?}"),
    }
    assert!(flushed > 0);
    let storage = t.into_storage();
    let mut t = open_index("btree", storage, 2048, p(&["cache=none"])).unwrap();
    t.range(0, u64::MAX, &mut out).unwrap();
    assert!(out.len() as u64 >= flushed, "{} of {flushed}", out.len());
}

#[test]
fn a_well_sealed_node_with_an_impossible_header_is_corrupt() {
    use flashix::node::page::{self, PageKind, FRAME_HEADER};
    let mut t = create_index("btree", ram(), 1024, p(&["cache=none"])).unwrap();
    for i in 0..500 {
        t.insert(i, i).unwrap();
    }
    t.flush().unwrap();
    let Storage::Pages(mut dev) = t.into_storage() else {
        unreachable!()
    };
    // Give every leaf an impossible entry count and re-seal its frame, so
    // that only the header check can catch it (the checksum is right).
    let mut leaves = 0;
    for lba in 1..64 {
        let mut buf = vec![0u8; 512];
        dev.read(lba, 0, &mut buf).unwrap();
        let Ok(Some(payload)) = page::open(&buf, PageKind::TreeNode, lba) else {
            continue;
        };
        let len = payload.len();
        if payload[0] != 0 {
            continue;
        }
        buf[FRAME_HEADER + 2..FRAME_HEADER + 4].copy_from_slice(&u16::MAX.to_le_bytes());
        page::seal(&mut buf, PageKind::TreeNode, len);
        dev.write(lba, 0, &buf).unwrap();
        leaves += 1;
    }
    assert!(leaves > 2);
    // Opening walks internal nodes only; the searches then meet the leaves,
    // read as undecoded images (cache=none).
    let mut t = open_index("btree", Storage::Pages(dev), 1024, p(&["cache=none"])).unwrap();
    let mut out = Vec::new();
    assert!(matches!(
        t.get(250, &mut out),
        Err(IndexError::Corrupt { .. })
    ));
    // Poisoned from then on (`store::guard`), naming the damage; reopened,
    // a scan meets it again.
    let mut entries = Vec::new();
    match t.range(0, 499, &mut entries) {
        Err(IndexError::Poisoned { first }) => assert!(first.contains("corrupt"), "{first}"),
        other => panic!("{other:?}"),
    }
    let Storage::Pages(dev) = t.into_storage() else {
        unreachable!()
    };
    let mut t = open_index("btree", Storage::Pages(dev), 1024, p(&["cache=none"])).unwrap();
    assert!(matches!(
        t.range(0, 499, &mut entries),
        Err(IndexError::Corrupt { .. })
    ));
}
