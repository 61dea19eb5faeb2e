//! The SSD timing model under indexes and from the command line: every
//! index that runs on logical pages runs on it, a B+-tree's random inserts
//! cost random writes and a sequential scan of its writes is sequential,
//! and bad parameters are clear errors.

use flashix::device::ssd::Pattern;
use flashix::device::{DeviceSpec, Storage};
use flashix::index::Params;
use flashix::store::create_index;

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn indexes_run_on_every_ssd_profile_and_answer() {
    for profile in ["x25e", "samsung-ssd32", "intel-extreme"] {
        for index in ["btree", "bftl", "flashdb", "mbtree", "basic-delta"] {
            let spec = DeviceSpec::parse(profile, &sets(&[("page_size", "2048")])).unwrap();
            let mut t = create_index(index, spec.build().unwrap(), 1 << 16, Params::new())
                .unwrap_or_else(|e| panic!("{index} on {profile}: {e}"));
            for i in 0..3000u64 {
                t.insert(i * 7919 % 100_003, i).unwrap();
            }
            t.flush().unwrap();
            let mut out = Vec::new();
            for i in (0..3000u64).step_by(97) {
                t.get(i * 7919 % 100_003, &mut out).unwrap();
                assert_eq!(out, vec![i], "{index} on {profile}");
            }
            let s = t.storage().stats();
            assert!(s.time_us > 0.0, "{index} on {profile}: {s:?}");
            assert_eq!(s.energy_uj, 0.0);
        }
    }
}

#[test]
fn random_writes_cost_what_the_table_says() {
    let spec = DeviceSpec::parse("samsung-ssd32", &[]).unwrap();
    let Storage::Pages(mut dev) = spec.build().unwrap() else {
        panic!("an SSD is a logical-page device")
    };
    let page = vec![1u8; dev.page_size()];
    // 100 scattered writes at 25 IO/s: 4 s; 100 sequential ones at 32 MB/s
    // of 4 KiB: 12.8 ms.
    for i in 0..100u64 {
        dev.write(i * 1000 + 17, 0, &page).unwrap();
    }
    let t = dev.stats().time_us;
    assert!((t - 4.0e6).abs() < 1.0, "{t}");
    for i in 0..100u64 {
        dev.write(500_000 + i, 0, &page).unwrap();
    }
    let seq = dev.stats().time_us - t;
    // The first of them starts a run: one random write, 99 sequential.
    let expected = 40_000.0 + 99.0 * 4096.0 / 32.0;
    assert!((seq - expected).abs() < 1.0, "{seq}");
}

#[test]
fn overrides_and_errors() {
    let spec =
        DeviceSpec::parse("x25e", &sets(&[("rw_4k", "42"), ("capacity", "1048576")])).unwrap();
    let Storage::Pages(dev) = spec.build().unwrap() else {
        panic!()
    };
    assert_eq!(dev.capacity_pages(), 256);
    assert!(DeviceSpec::parse("x25e", &sets(&[("nop", "3")])).is_err());
    assert!(DeviceSpec::parse("x25e", &sets(&[("rw_4k", "-1")])).is_err());
    assert!(DeviceSpec::parse("x25e", &sets(&[("streams", "0")])).is_err());
    let e = DeviceSpec::parse("x26e", &[]).unwrap_err().to_string();
    assert!(e.contains("x25e"), "{e}");
    assert_eq!(Pattern::RandomWrite.code(), "rw");
}

/// The requests an SSD served, from its report (`SR a / SW b / RR c / RW d`).
fn requests(notes: &[String]) -> u64 {
    let n = notes.iter().find(|n| n.contains("requests SR")).unwrap();
    let list = n
        .split("requests ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    list.split(" / ")
        .map(|p| p.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum()
}

#[test]
fn a_node_on_two_pages_is_one_request_with_span_request() {
    // 8 KiB nodes on 4 KiB pages (Kim et al. 2014 §4: an 8 KB node is one
    // read or write): the same pages move either way, in half the requests.
    for index in ["btree", "asbtree"] {
        let run = |span: &str| {
            let spec = DeviceSpec::parse("x25e", &sets(&[("span_request", span)])).unwrap();
            let mut p = Params::new();
            p.set("node_bytes", "8192");
            let mut t = create_index(index, spec.build().unwrap(), 1 << 17, p).unwrap();
            for i in 0..20_000u64 {
                t.insert(i * 7919 % 1_000_003, i).unwrap();
            }
            t.flush().unwrap();
            let mut out = Vec::new();
            for i in (0..20_000u64).step_by(13) {
                t.get(i * 7919 % 1_000_003, &mut out).unwrap();
                assert_eq!(out, vec![i], "{index}, span_request={span}");
            }
            let s = t.storage().stats();
            (
                s.logical_reads + s.logical_writes,
                requests(&t.storage().info().notes),
            )
        };
        let (pages, per_page) = run("false");
        let (same_pages, per_node) = run("true");
        assert_eq!(pages, same_pages, "{index}");
        assert_eq!(per_page, pages, "{index}: one request per page");
        // Every node request covers two pages; the superblock's cover one.
        assert!(
            pages > 1_000 && per_node * 2 >= pages && per_node * 2 <= pages + pages / 10,
            "{index}: {per_node} requests for {pages} pages"
        );
    }
}
