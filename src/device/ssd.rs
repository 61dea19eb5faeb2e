//! A flash disk (SSD) timing model: a logical-page device whose service
//! time per request depends on its direction, its size, and whether it
//! continues an earlier request of its stream (Li et al. 2009 §I, Table I;
//! Kim et al. 2014 §2.3, Table 1).
//!
//! **What a request costs.** Each direction and pattern — sequential read
//! (SR), sequential write (SW), random read (RR), random write (RW) — has a
//! *curve*: throughputs measured at some request sizes, as the tables give
//! them. A request of `s` bytes costs the time per request the curve implies
//! at `s` (`s / throughput`), interpolated linearly in `s` between the
//! measured sizes; past the largest size the time grows by `s / tail`
//! (the curve's asymptotic bandwidth), and below the smallest it follows
//! the first segment down to no less than that transfer time. So a
//! microbenchmark that issues the tables' requests reproduces the tables
//! exactly (`flashix reproduce ssd-table1`).
//!
//! **Requests.** Every read or write is one request of one page (the
//! device's `page_size`, the I/O size; a partial read or write of a page is
//! charged as the whole page, as under O_DIRECT). Requests do not coalesce:
//! by default a node of several pages costs one request per page, the
//! first usually random and the rest sequential. With `span_request=true`
//! a span the layer above reads or writes in one call
//! ([`BlockDevice::read_span`], [`BlockDevice::write_span`]: a node on
//! consecutive pages) is one request of all its pages, sequential or
//! random by its first page, as one `pread` of a whole node under Direct
//! I/O is (Kim et al. 2014 §4: an 8 KB node, one read or write).
//!
//! **Sequential or random.** The device remembers the next page of up to
//! `streams` recent runs of each direction (default 8, least recently used
//! replaced); a request for the next page of one of them is sequential, any
//! other is random and starts a run. Several interleaved runs (a merge
//! reading two inputs and writing one output) all stay sequential.
//!
//! **Queue depth.** The model charges each request the time per request of
//! the table it was calibrated from, at that table's queue depth: the X25-E
//! table (`x25e`) was measured with 32 outstanding requests, so it is the
//! cost of a request on a device kept busy, which is lower than the latency
//! a single outstanding request sees (our indexes issue one at a time).
//! Li et al. 2009 Table I does not state its queue depth.
//!
//! Profiles (MB = 10⁶ bytes; every point and tail can be overridden with
//! `--device-set`, e.g. `rw_4096=30` or `sr_tail=250`):
//!
//! | profile | SR | SW | RR | RW | source |
//! |---|---|---|---|---|---|
//! | `x25e` | 193/206/206/206 MB/s | 158/188/186/175 | 149/192/227/256 | 21/22/32/40 | Kim et al. 2014 Table 1, at 4/8/16/32 KB, QD32 |
//! | `samsung-ssd32` | 57 MB/s | 32 MB/s | 3,100 IO/s | 25 IO/s | Li et al. 2009 Table I (random, taken at 4 KB); sequential: Samsung's stated 57 / 32 MB/s for its 32 GB SSD (Tom's Hardware, 2007) |
//! | `intel-extreme` | 250 MB/s | 170 MB/s | 35,000 IO/s | 3,300 IO/s | Li et al. 2009 Table I (random, 4 KB, as Intel's X25-E datasheet rates them); sequential: the X25-E datasheet's 250 / 170 MB/s |
//!
//! A random curve given at one size extends with the sequential bandwidth
//! of its direction as its tail (a larger random request adds transfer
//! time). The data lives in a sparse RAM page store; the device has no
//! erase blocks and no energy model (energy 0).

use std::collections::VecDeque;

use super::ram::RamDisk;
use super::{BlockDevice, DeviceError, DeviceInfo, DeviceStats, Result, Wear};

/// One of the four curves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    SequentialRead,
    SequentialWrite,
    RandomRead,
    RandomWrite,
}

impl Pattern {
    pub const ALL: [Pattern; 4] = [
        Pattern::SequentialRead,
        Pattern::SequentialWrite,
        Pattern::RandomRead,
        Pattern::RandomWrite,
    ];

    /// `sr`, `sw`, `rr`, `rw`: the tables' abbreviations and the
    /// `--device-set` prefixes.
    pub fn code(self) -> &'static str {
        match self {
            Pattern::SequentialRead => "sr",
            Pattern::SequentialWrite => "sw",
            Pattern::RandomRead => "rr",
            Pattern::RandomWrite => "rw",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn of(write: bool, sequential: bool) -> Pattern {
        match (write, sequential) {
            (false, true) => Pattern::SequentialRead,
            (true, true) => Pattern::SequentialWrite,
            (false, false) => Pattern::RandomRead,
            (true, false) => Pattern::RandomWrite,
        }
    }
}

/// Throughputs at request sizes, and the bandwidth past the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// (request bytes, MB/s), sorted by size, sizes distinct.
    points: Vec<(u32, f64)>,
    /// MB/s of the bytes past the largest measured size.
    tail_mbps: f64,
}

impl Curve {
    /// A curve through `points` (any order) with `tail_mbps` past them.
    pub fn new(points: &[(u32, f64)], tail_mbps: f64) -> Curve {
        let mut c = Curve {
            points: Vec::new(),
            tail_mbps,
        };
        for &(s, t) in points {
            c.set(s, t);
        }
        c
    }

    /// Sets the throughput at `size` bytes (adding the point).
    pub fn set(&mut self, size: u32, mbps: f64) {
        match self.points.binary_search_by_key(&size, |p| p.0) {
            Ok(i) => self.points[i].1 = mbps,
            Err(i) => self.points.insert(i, (size, mbps)),
        }
    }

    /// Checks that every throughput is positive and there is a point.
    fn check(&self, name: &str) -> Result<()> {
        if self.points.is_empty() {
            return Err(DeviceError::Config(format!(
                "SSD curve {name} has no point"
            )));
        }
        if self.tail_mbps <= 0.0 || self.points.iter().any(|p| p.0 == 0 || p.1 <= 0.0) {
            return Err(DeviceError::Config(format!(
                "SSD curve {name}: sizes and throughputs must be positive"
            )));
        }
        Ok(())
    }

    /// µs one request of `bytes` takes (MB/s = bytes/µs).
    pub fn time_us(&self, bytes: usize) -> f64 {
        let s = bytes as f64;
        let at = |i: usize| {
            let (size, mbps) = self.points[i];
            (size as f64, size as f64 / mbps)
        };
        let n = self.points.len();
        let (first_s, first_t) = at(0);
        let (last_s, last_t) = at(n - 1);
        if s >= last_s {
            return last_t + (s - last_s) / self.tail_mbps;
        }
        if s <= first_s {
            let slope = if n > 1 {
                let (s1, t1) = at(1);
                (t1 - first_t) / (s1 - first_s)
            } else {
                1.0 / self.tail_mbps
            };
            // No less than moving the bytes at the first point's rate.
            return (first_t - (first_s - s) * slope).max(s / self.points[0].1);
        }
        let i = self.points.partition_point(|p| (p.0 as f64) <= s);
        let (s0, t0) = at(i - 1);
        let (s1, t1) = at(i);
        t0 + (t1 - t0) * (s - s0) / (s1 - s0)
    }
}

/// An SSD profile: its four curves.
#[derive(Clone, Debug, PartialEq)]
pub struct SsdTiming {
    pub name: &'static str,
    pub description: &'static str,
    curves: [Curve; 4],
    /// Recent runs remembered per direction.
    pub streams: usize,
    /// Whether a span (consecutive pages read or written in one call) is
    /// one request; otherwise one request per page (the default).
    pub span_request: bool,
    /// Default page (request) size.
    pub page_size: u32,
    /// Default capacity in bytes (storage is sparse).
    pub capacity_bytes: u64,
}

const GIB: u64 = 1 << 30;

/// A random curve given as IO/s at 4 KB, extended by `seq_mbps`.
fn iops_at_4k(iops: f64, seq_mbps: f64) -> Curve {
    Curve::new(&[(4096, iops * 4096.0 / 1e6)], seq_mbps)
}

fn flat(mbps: f64) -> Curve {
    Curve::new(&[(4096, mbps)], mbps)
}

fn table(points: [f64; 4]) -> Curve {
    let sizes = [4096, 8192, 16384, 32768];
    let p: Vec<(u32, f64)> = sizes.into_iter().zip(points).collect();
    // Past 32 KB, the bandwidth of the last segment.
    let (s0, t0) = (16384.0, 16384.0 / points[2]);
    let (s1, t1) = (32768.0, 32768.0 / points[3]);
    Curve::new(&p, (s1 - s0) / (t1 - t0))
}

/// The SSD profiles.
pub fn ssd_profiles() -> Vec<SsdTiming> {
    vec![
        SsdTiming {
            name: "x25e",
            description: "Intel X25-E SSD model: Kim et al. 2014 Table 1 (IOMeter, QD32), SR/SW/RR/RW at 4-32 KB; 4 KiB pages, 32 GiB",
            curves: [
                table([193.0, 206.0, 206.0, 206.0]),
                table([158.0, 188.0, 186.0, 175.0]),
                table([149.0, 192.0, 227.0, 256.0]),
                table([21.0, 22.0, 32.0, 40.0]),
            ],
            streams: 8,
            span_request: false,
            page_size: 4096,
            capacity_bytes: 32 * GIB,
        },
        SsdTiming {
            name: "samsung-ssd32",
            description: "Samsung 32 GB SSD model: Li et al. 2009 Table I (3,100 random reads/s, 25 random writes/s), 57/32 MB/s sequential (Samsung); 4 KiB pages, 32 GiB",
            curves: [
                flat(57.0),
                flat(32.0),
                iops_at_4k(3100.0, 57.0),
                iops_at_4k(25.0, 32.0),
            ],
            streams: 8,
            span_request: false,
            page_size: 4096,
            capacity_bytes: 32 * GIB,
        },
        SsdTiming {
            name: "intel-extreme",
            description: "Intel X25-E (Extreme) SSD model: Li et al. 2009 Table I (35,000 random reads/s, 3,300 random writes/s), 250/170 MB/s sequential (datasheet); 4 KiB pages, 32 GiB",
            curves: [
                flat(250.0),
                flat(170.0),
                iops_at_4k(35000.0, 250.0),
                iops_at_4k(3300.0, 170.0),
            ],
            streams: 8,
            span_request: false,
            page_size: 4096,
            capacity_bytes: 32 * GIB,
        },
    ]
}

/// The SSD profile `name`, if there is one.
pub fn ssd_profile(name: &str) -> Option<SsdTiming> {
    ssd_profiles().into_iter().find(|p| p.name == name)
}

impl SsdTiming {
    pub fn curve(&self, p: Pattern) -> &Curve {
        &self.curves[p.index()]
    }

    /// Applies one `--device-set` key: `PAT_SIZE=MBps` (a point at a
    /// request size in bytes or with a unit of [`super::size`], e.g.
    /// `rw_4096=30`, `rw_4k=30` or `rw_4KiB=30`), `PAT_tail=MBps`,
    /// `streams=N`, or `span_request=true|false`.
    /// `Ok(false)` when the key is not an SSD key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool> {
        let bad = |what: &str| {
            DeviceError::Config(format!("device parameter `{key}`: `{value}` is not {what}"))
        };
        if key == "streams" {
            self.streams = value.parse().map_err(|_| bad("a count"))?;
            return Ok(true);
        }
        if key == "span_request" {
            self.span_request = value.parse().map_err(|_| bad("true or false"))?;
            return Ok(true);
        }
        let Some((code, rest)) = key.split_once('_') else {
            return Ok(false);
        };
        let Some(p) = Pattern::ALL.into_iter().find(|p| p.code() == code) else {
            return Ok(false);
        };
        let mbps: f64 = value.parse().map_err(|_| bad("a throughput in MB/s"))?;
        let curve = &mut self.curves[p.index()];
        if rest == "tail" {
            curve.tail_mbps = mbps;
            return Ok(true);
        }
        let size: u32 = super::size::parse_size_as(rest).map_err(|e| {
            DeviceError::Config(format!(
                "device parameter `{key}`: the request size after `{code}_`: {e}"
            ))
        })?;
        curve.set(size, mbps);
        Ok(true)
    }

    /// Checks every curve.
    pub fn check(&self) -> Result<()> {
        for p in Pattern::ALL {
            self.curve(p).check(p.code())?;
        }
        if self.streams == 0 {
            return Err(DeviceError::Config("streams must be at least 1".into()));
        }
        Ok(())
    }
}

/// The SSD: pages in RAM, time from [`SsdTiming`].
#[derive(Clone)]
pub struct Ssd {
    data: RamDisk,
    timing: SsdTiming,
    /// Next page of each remembered run, reads and writes apart, most
    /// recent first.
    runs: [VecDeque<u64>; 2],
    /// Service time charged, reads and writes apart.
    time_us: [f64; 2],
    /// Requests by pattern (SR, SW, RR, RW).
    requests: [u64; 4],
    capacity_pages: u64,
}

impl Ssd {
    pub fn new(timing: SsdTiming, page_size: usize, capacity_pages: u64) -> Result<Ssd> {
        timing.check()?;
        if page_size == 0 || capacity_pages == 0 {
            return Err(DeviceError::Config(
                "an SSD needs a positive page size and capacity".into(),
            ));
        }
        Ok(Ssd {
            data: RamDisk::new(page_size, capacity_pages),
            timing,
            runs: [VecDeque::new(), VecDeque::new()],
            time_us: [0.0; 2],
            requests: [0; 4],
            capacity_pages,
        })
    }

    /// Requests served so far by pattern.
    pub fn requests(&self, p: Pattern) -> u64 {
        self.requests[p.index()]
    }

    /// Charges one page request at `lba`.
    fn charge(&mut self, lba: u64, write: bool) {
        self.charge_request(lba, 1, write);
    }

    /// Charges one request of `pages` pages from `lba` on: sequential when
    /// `lba` continues a remembered run, which then continues past the
    /// last page.
    fn charge_request(&mut self, lba: u64, pages: u64, write: bool) {
        let runs = &mut self.runs[usize::from(write)];
        let sequential = match runs.iter().position(|&next| next == lba) {
            Some(i) => {
                runs.remove(i);
                true
            }
            None => {
                if runs.len() >= self.timing.streams {
                    runs.pop_back();
                }
                false
            }
        };
        runs.push_front(lba + pages);
        let p = Pattern::of(write, sequential);
        self.requests[p.index()] += 1;
        let bytes = pages as usize * self.data.page_size();
        self.time_us[usize::from(write)] += self.timing.curve(p).time_us(bytes);
    }

    /// Pages a span of `len` bytes covers.
    fn span_pages(&self, len: usize) -> u64 {
        len.div_ceil(self.data.page_size()) as u64
    }
}

impl BlockDevice for Ssd {
    fn try_clone_box(&self) -> Option<Box<dyn BlockDevice>> {
        Some(Box::new(self.clone()))
    }
    fn try_clone_same(&self) -> Option<Self> {
        Some(self.clone())
    }
    fn page_size(&self) -> usize {
        self.data.page_size()
    }
    fn capacity_pages(&self) -> u64 {
        self.capacity_pages
    }
    fn pages_per_block(&self) -> u32 {
        1
    }
    fn read(&mut self, lba: u64, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.data.read(lba, offset, buf)?;
        self.charge(lba, false);
        Ok(())
    }
    fn prefetch(&self, lba: u64) {
        self.data.prefetch(lba);
    }
    fn read_in_place(&mut self, lba: u64) -> Result<Option<&[u8]>> {
        if !self.data.holds(lba) {
            return Ok(None);
        }
        self.data.count_read(lba)?;
        self.charge(lba, false);
        Ok(self.data.page(lba))
    }
    fn write(&mut self, lba: u64, offset: usize, data: &[u8]) -> Result<()> {
        self.data.write(lba, offset, data)?;
        self.charge(lba, true);
        Ok(())
    }
    fn read_span(&mut self, lba: u64, buf: &mut [u8]) -> Result<()> {
        let ps = self.data.page_size();
        if !self.timing.span_request {
            for (i, chunk) in buf.chunks_mut(ps).enumerate() {
                self.read(lba + i as u64, 0, chunk)?;
            }
            return Ok(());
        }
        for (i, chunk) in buf.chunks_mut(ps).enumerate() {
            self.data.read(lba + i as u64, 0, chunk)?;
        }
        let pages = self.span_pages(buf.len());
        if pages > 0 {
            self.charge_request(lba, pages, false);
        }
        Ok(())
    }
    fn write_span(&mut self, lba: u64, data: &[u8]) -> Result<()> {
        let ps = self.data.page_size();
        if !self.timing.span_request {
            for (i, chunk) in data.chunks(ps).enumerate() {
                self.write(lba + i as u64, 0, chunk)?;
            }
            return Ok(());
        }
        for (i, chunk) in data.chunks(ps).enumerate() {
            self.data.write(lba + i as u64, 0, chunk)?;
        }
        let pages = self.span_pages(data.len());
        if pages > 0 {
            self.charge_request(lba, pages, true);
        }
        Ok(())
    }
    fn trim(&mut self, lba: u64) -> Result<()> {
        self.data.trim(lba)
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn stats(&self) -> DeviceStats {
        let mut s = self.data.stats();
        s.physical_reads = s.logical_reads;
        s.physical_writes = s.logical_writes;
        let page = self.data.page_size() as u64;
        s.physical_bytes_read = s.logical_reads * page;
        s.physical_bytes_written = s.logical_writes * page;
        s.read_time_us = self.time_us[0];
        s.write_time_us = self.time_us[1];
        s.time_us = s.read_time_us + s.write_time_us;
        s
    }
    fn wear(&self) -> Option<Wear> {
        None
    }
    fn info(&self) -> DeviceInfo {
        let r = |p| self.requests(p);
        DeviceInfo {
            kind: "ssd".into(),
            name: self.timing.name.into(),
            page_size: self.data.page_size() as u32,
            pages_per_block: 1,
            capacity_pages: self.capacity_pages,
            o_direct: None,
            footprint_pages: None,
            mapped_pages: None,
            notes: vec![format!(
                "SSD timing model ({}): requests SR {} / SW {} / RR {} / RW {}; a request continuing one of {} recent runs per direction is sequential; {}",
                self.timing.description,
                r(Pattern::SequentialRead),
                r(Pattern::SequentialWrite),
                r(Pattern::RandomRead),
                r(Pattern::RandomWrite),
                self.timing.streams,
                if self.timing.span_request {
                    "a span of pages read or written in one call is one request"
                } else {
                    "one request per page"
                }
            )],
            cost: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x25e_curves_go_through_the_table() {
        let t = ssd_profile("x25e").unwrap();
        let sizes = [4096usize, 8192, 16384, 32768];
        let rw = [21.0, 22.0, 32.0, 40.0];
        for (s, mbps) in sizes.into_iter().zip(rw) {
            let got = s as f64 / t.curve(Pattern::RandomWrite).time_us(s);
            assert!((got - mbps).abs() < 1e-9, "{s}: {got}");
        }
        // Between points: linear in time; past the last: its bandwidth.
        let mid = t.curve(Pattern::RandomWrite).time_us(12288);
        let (a, b) = (8192.0 / 22.0, 16384.0 / 32.0);
        assert!((mid - (a + b) / 2.0).abs() < 1e-9);
        let big = t.curve(Pattern::RandomWrite).time_us(65536);
        assert!(big > 32768.0 / 40.0 && big < 65536.0 / 21.0, "{big}");
        // Below the first point, never under the transfer time.
        let small = t.curve(Pattern::RandomRead).time_us(512);
        assert!(small >= 512.0 / 149.0, "{small}");
    }

    #[test]
    fn streams_make_interleaved_runs_sequential() {
        let t = ssd_profile("samsung-ssd32").unwrap();
        let mut d = Ssd::new(t, 4096, 1 << 20).unwrap();
        let page = vec![7u8; 4096];
        // Two runs read alternately and one written: after each run's first
        // page, all sequential.
        for i in 0..10u64 {
            let mut buf = vec![0u8; 4096];
            d.read(1000 + i, 0, &mut buf).unwrap();
            d.read(50_000 + i, 0, &mut buf).unwrap();
            d.write(90_000 + i, 0, &page).unwrap();
        }
        assert_eq!(d.requests(Pattern::RandomRead), 2);
        assert_eq!(d.requests(Pattern::SequentialRead), 18);
        assert_eq!(d.requests(Pattern::RandomWrite), 1);
        assert_eq!(d.requests(Pattern::SequentialWrite), 9);
        // 25 random writes a second: one costs 40 ms.
        let rw = d.timing.curve(Pattern::RandomWrite).time_us(4096);
        assert!((rw - 40_000.0).abs() < 1.0, "{rw}");
        let mut buf = vec![0u8; 4096];
        d.read(90_003, 0, &mut buf).unwrap();
        assert_eq!(buf, page);
        // Reads and writes are timed apart and add up to the total.
        let s = d.stats();
        let c = |p| d.timing.curve(p).time_us(4096);
        let reads = 3.0 * c(Pattern::RandomRead) + 18.0 * c(Pattern::SequentialRead);
        let writes = rw + 9.0 * c(Pattern::SequentialWrite);
        assert!((s.read_time_us - reads).abs() < 1e-6, "{}", s.read_time_us);
        assert!(
            (s.write_time_us - writes).abs() < 1e-6,
            "{}",
            s.write_time_us
        );
        assert!((s.time_us - reads - writes).abs() < 1e-6);
    }

    #[test]
    fn a_span_is_one_request_with_span_request() {
        let page = vec![5u8; 8192];
        let mut buf = vec![0u8; 8192];
        let mut t = ssd_profile("x25e").unwrap();
        let rr8 = t.curve(Pattern::RandomRead).time_us(8192);
        let rw8 = t.curve(Pattern::RandomWrite).time_us(8192);
        let sw8 = t.curve(Pattern::SequentialWrite).time_us(8192);
        // Off (the default): two requests, a random one and a sequential one.
        let mut d = Ssd::new(t.clone(), 4096, 1 << 20).unwrap();
        d.write_span(100, &page).unwrap();
        d.read_span(5_000, &mut buf).unwrap();
        assert_eq!(d.requests(Pattern::RandomWrite), 1);
        assert_eq!(d.requests(Pattern::SequentialWrite), 1);
        assert_eq!(d.requests(Pattern::RandomRead), 1);
        assert_eq!(d.requests(Pattern::SequentialRead), 1);
        let four = |p| t.curve(p).time_us(4096);
        let pages = Pattern::ALL.into_iter().map(four).sum::<f64>();
        assert!(
            (d.stats().time_us - pages).abs() < 1e-9,
            "{}",
            d.stats().time_us
        );
        // On: a node on two contiguous 4 KiB pages is one 8 KiB request.
        assert!(t.set("span_request", "true").unwrap());
        let mut d = Ssd::new(t.clone(), 4096, 1 << 20).unwrap();
        d.write_span(100, &page).unwrap();
        let s = d.stats();
        assert_eq!(d.requests(Pattern::RandomWrite), 1);
        assert_eq!(d.requests(Pattern::SequentialWrite), 0);
        assert!((s.write_time_us - rw8).abs() < 1e-9, "{}", s.write_time_us);
        // Both pages are counted and hold the data.
        assert_eq!(s.logical_writes, 2);
        d.read_span(100, &mut buf).unwrap();
        assert_eq!(buf, page);
        assert_eq!(d.requests(Pattern::RandomRead), 1);
        assert!((d.stats().read_time_us - rr8).abs() < 1e-9);
        assert_eq!(d.stats().logical_reads, 2);
        // The next node on the following pages continues the run.
        d.write_span(102, &page).unwrap();
        assert_eq!(d.requests(Pattern::SequentialWrite), 1);
        assert!((d.stats().write_time_us - rw8 - sw8).abs() < 1e-9);
        // The same as an 8 KiB page device charges a one-page request.
        let mut whole = Ssd::new(ssd_profile("x25e").unwrap(), 8192, 1 << 19).unwrap();
        whole.write(50, 0, &page).unwrap();
        whole.read(50, 0, &mut buf).unwrap();
        let w = whole.stats();
        assert!((w.write_time_us - rw8).abs() < 1e-9 && (w.read_time_us - rr8).abs() < 1e-9);
        // A bad value is refused.
        assert!(t.set("span_request", "often").is_err());
    }

    #[test]
    fn overrides_set_points_and_reject_nonsense() {
        let mut t = ssd_profile("x25e").unwrap();
        assert!(t.set("rw_4k", "30").unwrap());
        assert!((t.curve(Pattern::RandomWrite).time_us(4096) - 4096.0 / 30.0).abs() < 1e-9);
        assert!(t.set("sr_tail", "300").unwrap());
        assert!(t.set("streams", "2").unwrap());
        assert!(!t.set("blocks", "3").unwrap());
        assert!(t.set("rw_4k", "fast").is_err());
        assert!(t.set("rw_x", "3").is_err());
        // A request size takes the units of every size (4KiB = 4k = 4096).
        assert!(t.set("rw_8KiB", "60").unwrap());
        assert!((t.curve(Pattern::RandomWrite).time_us(8192) - 8192.0 / 60.0).abs() < 1e-9);
        let e = t.set("rw_4parsecs", "3").unwrap_err().to_string();
        assert!(e.contains("`rw_4parsecs`") && e.contains("KiB"), "{e}");
        t.set("rr_2048", "0").unwrap();
        assert!(t.check().is_err());
        let mut t = ssd_profile("x25e").unwrap();
        t.set("streams", "0").unwrap();
        assert!(t.check().is_err());
    }
}
