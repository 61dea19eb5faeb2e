//! One measured run: a single engine on a single workload, in this
//! process (the child the harness spawns with `--one ENGINE`), so the
//! bytes written from `/proc/self/io` and the peak RSS are this run's
//! alone. It times every operation, with a batch's durable commit added
//! to its last operation, and prints what it measured as one `RESULT`
//! line (see `report::result_line`).

use std::path::Path;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::args::Args;
use crate::engines::{self, Engine};
use crate::error::Res;
use crate::report::{self, Run};
use crate::workload::{self, Op, SplitMix, Workload};

fn record(lat: &mut Histogram<u64>, d: Duration) {
    lat.saturating_record(d.as_nanos().max(1) as u64);
}

fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000_000, 3).expect("bounds")
}

fn p99_us(lat: &Histogram<u64>) -> f64 {
    lat.value_at_quantile(0.99) as f64 / 1e3
}

/// The prefix of the progress lines a child writes to stderr; the parent
/// echoes them and, if it ends the child past `--timeout`, names the last
/// one (which phase it was in, and how far).
pub const PROGRESS: &str = "progress: ";

/// A phase's progress on stderr at every tenth of its operations, with the
/// seconds since the phase began: a long run shows where its time goes.
struct Progress {
    phase: &'static str,
    total: usize,
    done: usize,
    next_tenth: usize,
    start: Instant,
}

impl Progress {
    fn new(phase: &'static str, total: usize) -> Progress {
        Progress {
            phase,
            total,
            done: 0,
            next_tenth: 1,
            start: Instant::now(),
        }
    }

    /// Counts `ops` more operations done, and reports each tenth passed.
    fn advance(&mut self, ops: usize) {
        self.done += ops;
        while self.next_tenth <= 10 && self.done * 10 >= self.total * self.next_tenth {
            eprintln!(
                "{PROGRESS}{} {}% ({} of {}) at {:.1} s",
                self.phase,
                self.next_tenth * 10,
                self.done,
                self.total,
                self.start.elapsed().as_secs_f64()
            );
            self.next_tenth += 1;
        }
    }
}

/// Applies `ops` in one write and commits it, recording each operation's
/// latency in nanoseconds with the commit's time added to the last one;
/// returns how many reads did not find the value expected.
fn batch(engine: &mut dyn Engine, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
    let mut misses = 0;
    let mut last = Duration::ZERO;
    let mut commit_start = Instant::now();
    engine.write(&mut |w| {
        for (i, &op) in ops.iter().enumerate() {
            let t = Instant::now();
            let hit = match op {
                Op::Put(k, v) => {
                    w.put(k, v)?;
                    true
                }
                Op::Get(k, v) => w.get(k)? == Some(v),
            };
            if !hit {
                misses += 1;
            }
            let d = t.elapsed();
            if i + 1 < ops.len() {
                record(lat, d);
            } else {
                last = d;
            }
        }
        commit_start = Instant::now();
        Ok(())
    })?;
    record(lat, last + commit_start.elapsed());
    Ok(misses)
}

/// Reads `keys` outside any write, recording each read's latency; returns
/// how many did not find the value expected.
fn lookups(engine: &mut dyn Engine, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
    let mut misses = 0;
    let mut progress = Progress::new("lookup", keys.len());
    engine.read(&mut |r| {
        for &(k, v) in keys {
            progress.advance(1);
            let t = Instant::now();
            let got = r.get(k)?;
            record(lat, t.elapsed());
            if got != Some(v) {
                misses += 1;
            }
        }
        Ok(())
    })?;
    Ok(misses)
}

/// `write_bytes` of /proc/self/io: bytes this process caused to be sent
/// to the block layer (counted when a page is dirtied or written direct).
fn write_bytes() -> Res<u64> {
    let io = std::fs::read_to_string("/proc/self/io")?;
    for line in io.lines() {
        if let Some(v) = line.strip_prefix("write_bytes:") {
            return Ok(v.trim().parse()?);
        }
    }
    Err("no write_bytes in /proc/self/io".into())
}

/// Peak resident set (VmHWM) in KiB.
fn peak_rss_kib() -> Res<u64> {
    let st = std::fs::read_to_string("/proc/self/status")?;
    for line in st.lines() {
        if let Some(v) = line.strip_prefix("VmHWM:") {
            return Ok(v.trim().trim_end_matches("kB").trim().parse()?);
        }
    }
    Err("no VmHWM in /proc/self/status".into())
}

fn dir_bytes(p: &Path) -> Res<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(p)? {
        let e = e?;
        let m = e.metadata()?;
        total += if m.is_dir() {
            dir_bytes(&e.path())?
        } else {
            m.len()
        };
    }
    Ok(total)
}

/// Runs `ops` in batches of `every`, each committed; returns the seconds
/// taken, the bytes written meanwhile, and the misses.
fn phase_ops(
    engine: &mut dyn Engine,
    phase: &'static str,
    ops: &[Op],
    every: usize,
    lat: &mut Histogram<u64>,
) -> Res<(f64, u64, u64)> {
    let w0 = write_bytes()?;
    let t = Instant::now();
    let mut misses = 0;
    let mut progress = Progress::new(phase, ops.len());
    for chunk in ops.chunks(every) {
        misses += batch(engine, chunk, lat)?;
        progress.advance(chunk.len());
    }
    let secs = t.elapsed().as_secs_f64();
    Ok((secs, write_bytes()? - w0, misses))
}

/// The child: runs engine `name` in `a.dir` and prints its `RESULT` line.
pub fn child(a: &Args, name: &str) -> Res<()> {
    let dir = a.dir.clone().ok_or("--one needs --dir")?;
    std::fs::create_dir_all(&dir)?;
    let n = a.n as usize;
    let mut rng = SplitMix::new(a.seed);
    let keys: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    let mut out = Run::new();
    let mut put = |k: &str, v: f64| {
        out.insert(k.to_string(), v);
    };

    let mut engine = engines::open(name, &dir, a.log_bytes, a.memory, &a.params)?;
    let inserts = workload::inserts(&keys);
    let mut ins_lat = new_hist();
    let (secs, wb, _) = phase_ops(
        engine.as_mut(),
        "insert",
        &inserts,
        a.commit_every,
        &mut ins_lat,
    )?;
    drop(inserts);
    put("insert_s", secs);
    put("inserts_per_s", n as f64 / secs);
    put("insert_p99_us", p99_us(&ins_lat));
    // A checkpoint's stall shows past the 99th percentile: one commit in
    // a thousand operations at most is a checkpoint.
    put(
        "insert_p999_us",
        ins_lat.value_at_quantile(0.999) as f64 / 1e3,
    );
    put("insert_max_us", ins_lat.max() as f64 / 1e3);
    put("insert_write_bytes", wb as f64);

    let mut misses = 0;
    match a.workload {
        Workload::InsertLookup => {
            let order = workload::lookup_order(&keys, &mut rng);
            let mut lat = new_hist();
            let t = Instant::now();
            misses += lookups(engine.as_mut(), &order, &mut lat)?;
            let secs = t.elapsed().as_secs_f64();
            put("lookups_per_s", n as f64 / secs);
            put("lookup_p99_us", p99_us(&lat));
        }
        Workload::YcsbA => {
            let (ops, updates) = workload::ycsb_a(&keys, &mut rng);
            let mut lat = new_hist();
            let (secs, wb, m) =
                phase_ops(engine.as_mut(), "mixed", &ops, a.commit_every, &mut lat)?;
            misses += m;
            put("ops_per_s", n as f64 / secs);
            put("op_p99_us", p99_us(&lat));
            put("update_write_bytes", wb as f64);
            put("updates", updates as f64);
        }
    }
    // Closing may flush or wait for background work (fjall's compactions):
    // its time is outside the phases', so it is reported beside them.
    let t = Instant::now();
    drop(engine);
    eprintln!("{PROGRESS}closed in {:.1} s", t.elapsed().as_secs_f64());
    put("close_s", t.elapsed().as_secs_f64());
    put("file_bytes", dir_bytes(&dir)? as f64);
    put("space_amp", dir_bytes(&dir)? as f64 / (16.0 * n as f64));
    put("peak_rss_kib", peak_rss_kib()? as f64);
    put("misses", misses as f64);
    println!("{}", report::result_line(&out));
    Ok(())
}
