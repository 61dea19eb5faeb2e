//! Issue #41: recovery that tells a crash from damage, and a store that
//! never surprises its user.
//!
//! * A log cut short (the file truncated inside it), or a log page missing
//!   in both copies with a complete batch after it, is an error, never an
//!   older state: only damage to the newest batch may still read as a
//!   crash's torn end.
//! * `Store::create` leaves a flushed store: a crash after it returns
//!   opens, and `open_or_create` takes a store a crash left before its
//!   first flush.
//! * An index kind asked for that the file does not hold is an error
//!   naming both; `Options::default()` opens any store.
//! * After a failed sync that left pages clean in the page cache but not
//!   on the medium (Linux), a reopen reads the medium, so flushes
//!   acknowledged after it survive a power cut.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use flashix::device::fault::{FaultPlan, FaultyDevice, SharedDevice};
use flashix::device::ram::RamDisk;
use flashix::device::{BlockDevice, Shadow, Storage};
use flashix::index::{IndexError, Params};
use flashix::store::{create_index, open_index};
use flashix::{Options, Store, StoreError};

const PAGE: usize = 512;

fn options() -> Options {
    Options {
        page_size: PAGE,
        ..Options::index("btree")
    }
}

/// 500 puts (key k, value k + 1), a flush after every 50: ten batches of
/// two log pages each (850 bytes of records a batch, 432 a page).
fn logged_store(path: &Path) {
    let mut s = Store::create(path, &options()).unwrap();
    for k in 0..500u64 {
        s.put(k, k + 1).unwrap();
        if (k + 1) % 50 == 0 {
            s.flush().unwrap();
        }
    }
    drop(s);
}

/// The store's entries after flush `n` (of 50 puts each).
fn after_flush(n: u64) -> BTreeMap<u64, u64> {
    (0..50 * n).map(|k| (k, k + 1)).collect()
}

/// Every entry, or the first error (opening read-only: nothing changes).
fn read_all(path: &Path) -> Result<BTreeMap<u64, u64>, StoreError> {
    let mut s = Store::open_read_only(path, &Options::default())?;
    let entries = s.range(..)?.collect::<Result<BTreeMap<_, _>, _>>()?;
    Ok(entries)
}

/// A log page as the file holds it: (physical page, sequence, flags).
fn log_pages(bytes: &[u8]) -> Vec<(usize, u64, u8)> {
    bytes
        .chunks(PAGE)
        .enumerate()
        .filter(|(_, p)| p.starts_with(b"FXLG") && p[4] == 2)
        .map(|(i, p)| (i, u64::from_le_bytes(p[16..24].try_into().unwrap()), p[5]))
        .collect()
}

#[test]
fn a_log_cut_short_is_an_error_never_an_older_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.flashix");
    logged_store(&path);
    let bytes = std::fs::read(&path).unwrap();
    let full = after_flush(10);
    assert_eq!(read_all(&path).unwrap(), full);
    let last_log_page = log_pages(&bytes).iter().map(|p| p.0).max().unwrap();
    let cut_path = dir.path().join("cut-copy.flashix");
    let (mut refused, mut whole) = (0, 0);
    // Every length from past the last log page down to the first pages,
    // whole pages and halves of one.
    let mut len = (last_log_page + 1) * PAGE;
    while len > 2 * PAGE {
        for cut in [len, len - PAGE / 2] {
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            match read_all(&cut_path) {
                Ok(found) => {
                    assert_eq!(
                        found.len(),
                        full.len(),
                        "cut to {cut} bytes: an older state"
                    );
                    assert_eq!(found, full, "cut to {cut} bytes");
                    whole += 1;
                }
                Err(_) => refused += 1,
            }
        }
        len -= PAGE;
    }
    // Cut inside the log, the store is refused: the test would pass
    // vacuously if nothing were.
    assert!(refused > 0, "{refused} refused, {whole} whole");
    // A read-write open refuses the same way and leaves the file as it was.
    std::fs::write(&cut_path, &bytes[..last_log_page * PAGE]).unwrap();
    let e = Store::open(&cut_path, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("cut short"), "{e}");
    assert_eq!(
        std::fs::read(&cut_path).unwrap(),
        &bytes[..last_log_page * PAGE]
    );
}

#[test]
fn a_log_page_lost_in_both_copies_before_a_later_batch_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lost.flashix");
    logged_store(&path);
    let bytes = std::fs::read(&path).unwrap();
    let pages = log_pages(&bytes);
    let newest_start = pages
        .iter()
        .filter(|p| p.2 & 2 != 0)
        .map(|p| p.1)
        .max()
        .unwrap();
    let sequences: BTreeSet<u64> = pages.iter().map(|p| p.1).collect();
    assert!(sequences.len() >= 20, "{sequences:?}");
    let copy = dir.path().join("lost-copy.flashix");
    let mut refused = 0;
    for &seq in &sequences {
        let mut damaged = bytes.clone();
        let copies: Vec<usize> = pages.iter().filter(|p| p.1 == seq).map(|p| p.0).collect();
        assert_eq!(copies.len(), 2, "log page {seq}: {copies:?}");
        for &p in &copies {
            damaged[p * PAGE..(p + 1) * PAGE].fill(0);
        }
        std::fs::write(&copy, &damaged).unwrap();
        match read_all(&copy) {
            Err(_) => refused += 1,
            Ok(found) if found == after_flush(10) => {}
            // Only the newest batch may read as a crash's torn end.
            Ok(found) => {
                assert!(
                    seq >= newest_start,
                    "log page {seq}: {} entries",
                    found.len()
                );
                assert_eq!(found, after_flush(9), "log page {seq}");
            }
        }
    }
    assert!(
        refused as u64 >= newest_start,
        "{refused} of {}",
        sequences.len()
    );
}

#[test]
fn a_store_created_then_dropped_without_a_flush_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.flashix");
    let mut s = Store::create(&path, &options()).unwrap();
    for k in 0..10 {
        s.put(k, k).unwrap();
    }
    drop(s);
    let mut s = Store::open_or_create(&path, &Options::default()).unwrap();
    assert_eq!(s.get(3).unwrap(), None);
    s.put(3, 4).unwrap();
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.get(3).unwrap(), Some(4));
    drop(s);
    // `create` refuses a store (and leaves it as it is).
    let before = std::fs::read(&path).unwrap();
    assert!(matches!(
        Store::create(&path, &Options::default()),
        Err(StoreError::Exists(_))
    ));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_store_a_crash_left_before_its_first_commit_is_taken_by_create() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torn.flashix");
    // What a crash in the middle of the first commit leaves: pages, and
    // no commit record.
    {
        let dev = flashix::device::file::FileDevice::create(&path, 4096, 0).unwrap();
        let mut s = Shadow::mount(Box::new(dev)).unwrap();
        s.write(0, 0, &[7u8; 4096]).unwrap();
        s.write(1, 0, &[8u8; 4096]).unwrap();
    }
    assert!(std::fs::metadata(&path).unwrap().len() > 0);
    let e = Store::open(&path, &Options::default()).unwrap_err();
    assert!(
        matches!(e, StoreError::Index(IndexError::NoIndex(_))),
        "{e}"
    );
    let mut s = Store::open_or_create(&path, &Options::default()).unwrap();
    s.put(1, 2).unwrap();
    s.close().unwrap();
    let mut s = Store::open(&path, &Options::default()).unwrap();
    assert_eq!(s.get(1).unwrap(), Some(2));
    drop(s);
    // Another program's file is refused, byte for byte as it was.
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, b"a user's text\n").unwrap();
    assert!(matches!(
        Store::create(&foreign, &Options::default()),
        Err(StoreError::Exists(_))
    ));
    assert!(Store::open_or_create(&foreign, &Options::default()).is_err());
    assert_eq!(std::fs::read(&foreign).unwrap(), b"a user's text\n");
}

#[test]
fn the_file_says_which_index_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kind.flashix");
    let mut s = Store::create(&path, &Options::index("lsm")).unwrap();
    s.put(1, 1).unwrap();
    s.close().unwrap();
    for wrong in ["btree", "fdtree"] {
        let e = Store::open(&path, &Options::index(wrong)).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("lsm") && m.contains(wrong), "{m}");
        let e = Store::open_read_only(&path, &Options::index(wrong)).unwrap_err();
        assert!(
            matches!(e, StoreError::Index(IndexError::Mismatch { .. })),
            "{e}"
        );
    }
    for right in [Options::default(), Options::index("lsm")] {
        let mut s = Store::open(&path, &right).unwrap();
        assert_eq!(s.index().name(), "lsm");
        assert_eq!(s.get(1).unwrap(), Some(1));
    }
}

/// A power cut of a device whose volatile cache (`FaultyDevice`, rules 5
/// and 6) is lost: the RAM disk beneath keeps what reached it.
fn remount(ram: &SharedDevice, log_bytes: u64) -> Storage {
    Storage::Pages(Box::new(
        Shadow::mount_logged(Box::new(ram.clone()), log_bytes).unwrap(),
    ))
}

#[test]
fn after_a_failed_sync_the_reopen_reads_the_medium_not_the_cache() {
    const LOG: u64 = 64 * PAGE as u64;
    let params = || Params::parse(["key_bytes=8", "value_bytes=8"]).unwrap();
    let mut scenarios = 0;
    // The sync that fails: every one of the first flushes (log appends,
    // and the first flush's commit).
    for failing in 1..=12u64 {
        let ram = SharedDevice::new(Box::new(RamDisk::new(PAGE, 1 << 14)));
        let plan = FaultPlan {
            reorder_unsynced: true,
            failed_sync_cleans: true,
            fail_sync: Some(failing),
            ..FaultPlan::default()
        };
        let dev = FaultyDevice::new(ram.clone(), plan);
        let storage = Storage::Pages(Box::new(Shadow::mount_logged(Box::new(dev), LOG).unwrap()));
        let mut index = create_index("btree", storage, 1 << 16, params()).unwrap();
        let mut live = BTreeSet::new();
        let mut key = 0u64;
        let mut failed = false;
        for _ in 0..20 {
            for _ in 0..10 {
                index.insert(key, key).unwrap();
                live.insert((key, key));
                key += 1;
            }
            if index.flush().is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed, "sync {failing} never came");
        // Reopened in place, in the same "OS session": the cache that the
        // failed sync left clean is still there.
        let storage = index.into_storage();
        let mut index = match open_index("btree", storage, 1 << 16, params()) {
            Ok(index) => index,
            // The failed sync was the first commit's: there is no index
            // yet, and it is made anew (as `Store::open_or_create` does).
            Err(IndexError::NoIndex(_)) => {
                create_index("btree", remount(&ram, LOG), 1 << 16, params()).unwrap()
            }
            Err(e) => panic!("sync {failing}: reopen: {e}"),
        };
        let mut entries = Vec::new();
        index.range(0, u64::MAX, &mut entries).unwrap();
        let mut oracle: BTreeSet<(u64, u64)> = entries.into_iter().collect();
        // Three acknowledged flushes on what the reopen found.
        for _ in 0..3 {
            for _ in 0..10 {
                index.insert(key, key).unwrap();
                oracle.insert((key, key));
                key += 1;
            }
            index.flush().unwrap();
        }
        // The power goes: the cache is lost, the medium stays.
        drop(index);
        let mut index = open_index("btree", remount(&ram, LOG), 1 << 16, params()).unwrap();
        let mut entries = Vec::new();
        index.range(0, u64::MAX, &mut entries).unwrap();
        let found: BTreeSet<(u64, u64)> = entries.into_iter().collect();
        assert_eq!(
            found.len(),
            oracle.len(),
            "sync {failing}: acknowledged flushes lost after a failed sync"
        );
        assert_eq!(found, oracle, "sync {failing}");
        scenarios += 1;
    }
    assert_eq!(scenarios, 12);
}

/// What a crash between a log page's two writes leaves (one copy), read
/// read-only: nothing written, the repair reported; read-write: the copy
/// rewritten, so the store is whole in two copies again.
#[test]
fn a_single_copy_is_reported_read_only_and_rewritten_read_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("single.flashix");
    logged_store(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    let pages = log_pages(&bytes);
    // The mirror (the second copy) of the first log page, lost.
    let first = pages
        .iter()
        .filter(|p| p.1 == 0)
        .map(|p| p.0)
        .max()
        .unwrap();
    let whole = bytes[first * PAGE..(first + 1) * PAGE].to_vec();
    bytes[first * PAGE..(first + 1) * PAGE].fill(0);
    std::fs::write(&path, &bytes).unwrap();
    let notes = |s: &Store| s.index().storage().info().notes.join("\n");
    let s = Store::open_read_only(&path, &Options::default()).unwrap();
    assert!(notes(&s).contains("1 log page copies"), "{}", notes(&s));
    assert!(notes(&s).contains("left as they are"), "{}", notes(&s));
    drop(s);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(read_all(&path).unwrap(), after_flush(10));
    let s = Store::open(&path, &Options::default()).unwrap();
    assert!(notes(&s).contains("rewritten"), "{}", notes(&s));
    drop(s);
    let repaired = std::fs::read(&path).unwrap();
    assert_eq!(&repaired[first * PAGE..(first + 1) * PAGE], &whole[..]);
}
