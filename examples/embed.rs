//! Embedding a flashix store in an application: create it, load it, query
//! it, close it, open it again, and read it from a second process-like
//! handle for queries only.
//!
//! Run: `cargo run --release --example embed`

use flashix::{Options, Store};

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("sensors.flashix");

    // A B+-tree (the default index) in 1 MiB of memory; `flashix list`
    // names the others (`Options::index("lsm")`, ...).
    let options = Options::default().memory(1 << 20);
    let mut store = Store::create(&path, &options)?;
    // Readings keyed by timestamp; full-width u64 keys and values.
    for t in 0..50_000u64 {
        store.put(1_700_000_000_000 + t * 1_000, t * t)?;
    }
    // A durable point: everything up to here survives a crash.
    store.flush()?;
    store.put(1_700_000_000_000, 42)?; // replaces the first reading
    store.delete(1_700_000_000_000 + 1_000)?;
    store.close()?; // flushes, releases the file

    let mut store = Store::open(&path, &options)?;
    assert_eq!(store.get(1_700_000_000_000)?, Some(42));
    assert_eq!(store.get(1_700_000_000_000 + 1_000)?, None);
    let window: Vec<(u64, u64)> = store
        .range(1_700_000_010_000..1_700_000_015_000)?
        .collect::<Result<_, _>>()?;
    assert_eq!(window.len(), 5);
    let stats = store.device_stats();
    println!(
        "{}: {} readings in the window, {} pages read since open",
        path.display(),
        window.len(),
        stats.logical_reads
    );
    store.close()?;

    // Readers share the file; none can write it.
    let mut reader = Store::open_read_only(&path, &options)?;
    assert!(reader.put(1, 1).is_err());
    println!("last reading: {:?}", reader.range(..)?.last().transpose()?);
    Ok(())
}
