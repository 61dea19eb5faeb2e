//! The peers bench (issue #29): flashix's indexes on `file:` against
//! embedded key-value engines (redb, LMDB through heed, fjall, sled) on the
//! same workloads, each committing durably every `--commit-every`
//! operations.
//!
//! Each (engine, round) runs in a fresh child process (this binary with
//! `--one ENGINE`), so `/proc/self/io` write_bytes and the peak RSS
//! (VmHWM) are that run's alone; the parent interleaves the engines over
//! the rounds and prints a Markdown table of min–max over rounds.
//!
//! Run: `cargo run --release -p peers -- --n 1000000 --rounds 3`

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

type Res<T> = Result<T, Box<dyn Error>>;

/// Memory given to every engine that has a cache knob (flashix's budget,
/// redb's, fjall's and sled's cache); LMDB has none (the OS page cache).
const MEMORY: usize = 64 << 20;

const PEERS: [&str; 4] = ["redb", "lmdb", "fjall", "sled"];

fn usage() -> String {
    format!(
        "usage: peers [--n N] [--rounds R] [--commit-every C] [--engines a,b,..] \
         [--workload insert-lookup|ycsb-a] [--dir DIR] [--timeout SECS per run] \
         [--log-bytes B (flashix's write-ahead log bound; 0: none)]\n\
         engines: {}",
        all_engines().join(",")
    )
}

fn all_engines() -> Vec<String> {
    let mut v: Vec<String> = PEERS.iter().map(|s| s.to_string()).collect();
    for info in flashix::index::registry::list() {
        v.push(format!("flashix-{}", info.name));
    }
    v
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Workload {
    /// n random inserts, then n lookups of them in random order.
    InsertLookup,
    /// n random inserts, then n operations: 50% reads, 50% updates of
    /// inserted keys, uniformly chosen.
    YcsbA,
}

impl Workload {
    fn parse(s: &str) -> Res<Workload> {
        match s {
            "insert-lookup" => Ok(Workload::InsertLookup),
            "ycsb-a" => Ok(Workload::YcsbA),
            _ => Err(format!("unknown workload {s:?}").into()),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Workload::InsertLookup => "insert-lookup",
            Workload::YcsbA => "ycsb-a",
        }
    }
}

struct Args {
    n: u64,
    rounds: u32,
    commit_every: usize,
    engines: Vec<String>,
    workload: Workload,
    dir: Option<PathBuf>,
    one: Option<String>,
    seed: u64,
    timeout: u64,
    /// flashix's write-ahead log bound (`Options::log_bytes`).
    log_bytes: u64,
}

fn parse_args() -> Res<Args> {
    let mut a = Args {
        n: 1_000_000,
        rounds: 3,
        commit_every: 1000,
        engines: all_engines(),
        workload: Workload::InsertLookup,
        dir: None,
        one: None,
        seed: 1,
        timeout: 180,
        log_bytes: flashix::store::DEFAULT_LOG_BYTES,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            println!("{}", usage());
            std::process::exit(0);
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))?;
        match flag.as_str() {
            "--n" => a.n = value.replace('_', "").parse()?,
            "--rounds" => a.rounds = value.parse()?,
            "--commit-every" => a.commit_every = value.parse()?,
            "--engines" => a.engines = value.split(',').map(str::to_string).collect(),
            "--workload" => a.workload = Workload::parse(&value)?,
            "--dir" => a.dir = Some(PathBuf::from(value)),
            "--one" => a.one = Some(value),
            "--seed" => a.seed = value.parse()?,
            "--timeout" => a.timeout = value.parse()?,
            "--log-bytes" => a.log_bytes = value.replace('_', "").parse()?,
            _ => return Err(format!("unknown option {flag}\n{}", usage()).into()),
        }
    }
    if a.commit_every == 0 || a.n == 0 || a.rounds == 0 {
        return Err("--n, --rounds and --commit-every must be positive".into());
    }
    let known = all_engines();
    for e in &a.engines {
        if !known.contains(e) {
            return Err(format!("unknown engine {e:?}\n{}", usage()).into());
        }
    }
    Ok(a)
}

fn main() {
    let result = parse_args().and_then(|a| match a.one.clone() {
        Some(engine) => child(&a, &engine),
        None => parent(&a),
    });
    if let Err(e) = result {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------- keys

/// SplitMix64: the seeded key stream, the same for every engine.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

fn value_of(key: u64, version: u64) -> u64 {
    key.rotate_left(17) ^ version
}

// ------------------------------------------------------------- engines

#[derive(Clone, Copy)]
enum Op {
    Put(u64, u64),
    Get(u64, u64),
}

/// One engine under test. `batch` applies the operations and then commits
/// durably (as that engine commits), recording each operation's latency
/// in nanoseconds with the commit's time added to the last one; it
/// returns how many reads did not find the value expected.
trait Engine {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64>;
    /// Reads outside any write (one read transaction where the engine has
    /// them); returns the misses.
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64>;
}

fn record(lat: &mut Histogram<u64>, d: Duration) {
    lat.saturating_record(d.as_nanos().max(1) as u64);
}

/// Times `f` for each op, recording every latency but the last, which it
/// returns: the caller adds the commit's time to it (`commit_done`).
fn timed_ops<F>(ops: &[Op], lat: &mut Histogram<u64>, mut f: F) -> Res<(u64, Duration)>
where
    F: FnMut(Op) -> Res<bool>,
{
    let mut misses = 0;
    let mut last = Duration::ZERO;
    for (i, &op) in ops.iter().enumerate() {
        let t = Instant::now();
        if !f(op)? {
            misses += 1;
        }
        let d = t.elapsed();
        if i + 1 < ops.len() {
            record(lat, d);
        } else {
            last = d;
        }
    }
    Ok((misses, last))
}

/// Records the last op's latency with the commit (begun at `commit_start`)
/// included.
fn commit_done(lat: &mut Histogram<u64>, last: Duration, commit_start: Instant) {
    record(lat, last + commit_start.elapsed());
}

fn timed_lookups<F>(keys: &[(u64, u64)], lat: &mut Histogram<u64>, mut f: F) -> Res<u64>
where
    F: FnMut(u64) -> Res<Option<u64>>,
{
    let mut misses = 0;
    for &(k, v) in keys {
        let t = Instant::now();
        let got = f(k)?;
        record(lat, t.elapsed());
        if got != Some(v) {
            misses += 1;
        }
    }
    Ok(misses)
}

// redb ------------------------------------------------------------------

const REDB_TABLE: redb::TableDefinition<u64, u64> = redb::TableDefinition::new("t");

struct Redb {
    db: redb::Database,
}

impl Redb {
    fn create(dir: &Path) -> Res<Redb> {
        let db = redb::Builder::new()
            .set_cache_size(MEMORY)
            .create(dir.join("data.redb"))?;
        Ok(Redb { db })
    }
}

impl Engine for Redb {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
        use redb::ReadableTable;
        let mut tx = self.db.begin_write()?;
        tx.set_durability(redb::Durability::Immediate)?;
        let mut table = tx.open_table(REDB_TABLE)?;
        let (misses, last) = timed_ops(ops, lat, |op| {
            Ok(match op {
                Op::Put(k, v) => {
                    table.insert(k, v)?;
                    true
                }
                Op::Get(k, v) => table.get(k)?.map(|g| g.value()) == Some(v),
            })
        })?;
        let t = Instant::now();
        drop(table);
        tx.commit()?;
        commit_done(lat, last, t);
        Ok(misses)
    }
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
        use redb::ReadableDatabase;
        let tx = self.db.begin_read()?;
        let t = tx.open_table(REDB_TABLE)?;
        timed_lookups(keys, lat, |k| Ok(t.get(k)?.map(|g| g.value())))
    }
}

// LMDB (heed) -----------------------------------------------------------

type HeedKey = heed::types::U64<heed::byteorder::BigEndian>;

struct Lmdb {
    // Leaked: heed 0.23's databases borrow their environment, and the
    // process ends with the run.
    env: &'static heed::Env,
    db: heed::Database<'static, HeedKey, HeedKey>,
}

impl Lmdb {
    fn create(dir: &Path) -> Res<Lmdb> {
        let path = dir.join("lmdb");
        std::fs::create_dir_all(&path)?;
        // SAFETY: the environment is opened once, by this process only.
        let env = unsafe { heed::EnvOpenOptions::new().map_size(16 << 30).open(&path)? };
        let env: &'static heed::Env = Box::leak(Box::new(env));
        let w = env.write_txn()?;
        let db = env
            .create_databases_and_commit(w, |wdo, w| -> Res<_> {
                Ok(heed::CommitOrAbort::<_, ()>::Commit(
                    wdo.create_database::<HeedKey, HeedKey>(w, None)?,
                ))
            })?
            .unwrap_commit();
        Ok(Lmdb { env, db })
    }
}

impl Engine for Lmdb {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
        let mut w = self.env.write_txn()?;
        let db = self.db;
        let (misses, last) = timed_ops(ops, lat, |op| {
            Ok(match op {
                Op::Put(k, v) => {
                    db.put(&mut w, &k, &v)?;
                    true
                }
                Op::Get(k, v) => db.get(&w, &k)? == Some(v),
            })
        })?;
        let t = Instant::now();
        w.commit()?;
        commit_done(lat, last, t);
        Ok(misses)
    }
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
        let r = self.env.read_txn()?;
        timed_lookups(keys, lat, |k| Ok(self.db.get(&r, &k)?))
    }
}

// fjall -----------------------------------------------------------------

struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
}

impl Fjall {
    fn create(dir: &Path) -> Res<Fjall> {
        let db = fjall::Database::builder(dir.join("fjall"))
            .cache_size(MEMORY as u64)
            .open()?;
        let ks = db.keyspace("t", fjall::KeyspaceCreateOptions::default)?;
        Ok(Fjall { db, ks })
    }
}

fn be_u64(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"))
}

impl Engine for Fjall {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
        let ks = &self.ks;
        let (misses, last) = timed_ops(ops, lat, |op| {
            Ok(match op {
                Op::Put(k, v) => {
                    ks.insert(k.to_be_bytes(), v.to_be_bytes())?;
                    true
                }
                Op::Get(k, v) => ks.get(k.to_be_bytes())?.map(|b| be_u64(&b)) == Some(v),
            })
        })?;
        let t = Instant::now();
        self.db.persist(fjall::PersistMode::SyncAll)?;
        commit_done(lat, last, t);
        Ok(misses)
    }
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
        let ks = &self.ks;
        timed_lookups(keys, lat, |k| {
            Ok(ks.get(k.to_be_bytes())?.map(|b| be_u64(&b)))
        })
    }
}

// sled ------------------------------------------------------------------

struct Sled {
    db: sled::Db,
}

impl Sled {
    fn create(dir: &Path) -> Res<Sled> {
        let db = sled::Config::new()
            .path(dir.join("sled"))
            .cache_capacity(MEMORY as u64)
            .open()?;
        Ok(Sled { db })
    }
}

impl Engine for Sled {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
        let db = &self.db;
        let (misses, last) = timed_ops(ops, lat, |op| {
            Ok(match op {
                Op::Put(k, v) => {
                    db.insert(k.to_be_bytes(), &v.to_be_bytes())?;
                    true
                }
                Op::Get(k, v) => db.get(k.to_be_bytes())?.map(|b| be_u64(&b)) == Some(v),
            })
        })?;
        let t = Instant::now();
        // sync_file_range on Linux, not fsync: not durable on a crash of
        // the machine (the file's metadata is not synced).
        db.flush()?;
        commit_done(lat, last, t);
        Ok(misses)
    }
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
        let db = &self.db;
        timed_lookups(keys, lat, |k| {
            Ok(db.get(k.to_be_bytes())?.map(|b| be_u64(&b)))
        })
    }
}

// flashix ---------------------------------------------------------------

struct Flashix {
    store: flashix::Store,
}

impl Flashix {
    fn create(dir: &Path, index: &str, log_bytes: u64) -> Res<Flashix> {
        let mut options = flashix::Options::index(index).memory(MEMORY);
        options.log_bytes = log_bytes;
        if index == "buffer-tree" {
            // Its default super-node of M/4 (16 MiB here) is past the node
            // format's 65,535 entries.
            options = options.set("node_bytes", "524288");
        }
        let store = flashix::Store::create(dir.join("store.flashix"), &options)?;
        Ok(Flashix { store })
    }
}

impl Engine for Flashix {
    fn batch(&mut self, ops: &[Op], lat: &mut Histogram<u64>) -> Res<u64> {
        let store = &mut self.store;
        let (misses, last) = timed_ops(ops, lat, |op| {
            Ok(match op {
                Op::Put(k, v) => {
                    store.put(k, v)?;
                    true
                }
                Op::Get(k, v) => store.get(k)? == Some(v),
            })
        })?;
        let t = Instant::now();
        store.flush()?;
        commit_done(lat, last, t);
        Ok(misses)
    }
    fn lookups(&mut self, keys: &[(u64, u64)], lat: &mut Histogram<u64>) -> Res<u64> {
        timed_lookups(keys, lat, |k| Ok(self.store.get(k)?))
    }
}

fn open_engine(name: &str, dir: &Path, log_bytes: u64) -> Res<Box<dyn Engine>> {
    Ok(match name {
        "redb" => Box::new(Redb::create(dir)?),
        "lmdb" => Box::new(Lmdb::create(dir)?),
        "fjall" => Box::new(Fjall::create(dir)?),
        "sled" => Box::new(Sled::create(dir)?),
        _ => match name.strip_prefix("flashix-") {
            Some(index) => Box::new(Flashix::create(dir, index, log_bytes)?),
            None => return Err(format!("unknown engine {name:?}").into()),
        },
    })
}

// --------------------------------------------------------------- child

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

fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000_000, 3).expect("bounds")
}

fn phase_ops(
    engine: &mut dyn Engine,
    ops: &[Op],
    every: usize,
    lat: &mut Histogram<u64>,
) -> Res<(f64, u64, u64)> {
    let w0 = write_bytes()?;
    let t = Instant::now();
    let mut misses = 0;
    for chunk in ops.chunks(every) {
        misses += engine.batch(chunk, lat)?;
    }
    let secs = t.elapsed().as_secs_f64();
    Ok((secs, write_bytes()? - w0, misses))
}

fn child(a: &Args, name: &str) -> Res<()> {
    let dir = a.dir.clone().ok_or("--one needs --dir")?;
    std::fs::create_dir_all(&dir)?;
    let n = a.n as usize;
    let mut rng = SplitMix(a.seed.wrapping_mul(0x1234_5678_9abc_def1));
    let keys: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    let mut out: BTreeMap<&str, f64> = BTreeMap::new();

    let mut engine = open_engine(name, &dir, a.log_bytes)?;
    let inserts: Vec<Op> = keys.iter().map(|&k| Op::Put(k, value_of(k, 0))).collect();
    let mut ins_lat = new_hist();
    let (secs, wb, _) = phase_ops(engine.as_mut(), &inserts, a.commit_every, &mut ins_lat)?;
    drop(inserts);
    out.insert("insert_s", secs);
    out.insert("inserts_per_s", n as f64 / secs);
    out.insert(
        "insert_p99_us",
        ins_lat.value_at_quantile(0.99) as f64 / 1e3,
    );
    out.insert("insert_write_bytes", wb as f64);

    let mut misses = 0;
    match a.workload {
        Workload::InsertLookup => {
            // The inserted keys in a random order (Fisher–Yates).
            let mut order: Vec<(u64, u64)> = keys.iter().map(|&k| (k, value_of(k, 0))).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut lat = new_hist();
            let t = Instant::now();
            misses += engine.lookups(&order, &mut lat)?;
            let secs = t.elapsed().as_secs_f64();
            out.insert("lookups_per_s", n as f64 / secs);
            out.insert("lookup_p99_us", lat.value_at_quantile(0.99) as f64 / 1e3);
        }
        Workload::YcsbA => {
            // The latest value of every key, by index into `keys`.
            let mut version = vec![0u64; n];
            let mut updates = 0u64;
            let ops: Vec<Op> = (0..n)
                .map(|_| {
                    let i = rng.below(n as u64) as usize;
                    let k = keys[i];
                    if rng.next() & 1 == 0 {
                        Op::Get(k, value_of(k, version[i]))
                    } else {
                        version[i] += 1;
                        updates += 1;
                        Op::Put(k, value_of(k, version[i]))
                    }
                })
                .collect();
            drop(version);
            let mut lat = new_hist();
            let (secs, wb, m) = phase_ops(engine.as_mut(), &ops, a.commit_every, &mut lat)?;
            misses += m;
            out.insert("ops_per_s", n as f64 / secs);
            out.insert("op_p99_us", lat.value_at_quantile(0.99) as f64 / 1e3);
            out.insert("update_write_bytes", wb as f64);
            out.insert("updates", updates as f64);
        }
    }
    drop(engine);
    out.insert("file_bytes", dir_bytes(&dir)? as f64);
    out.insert("space_amp", dir_bytes(&dir)? as f64 / (16.0 * n as f64));
    out.insert("peak_rss_kib", peak_rss_kib()? as f64);
    out.insert("misses", misses as f64);
    let line: Vec<String> = out.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!("RESULT {}", line.join(" "));
    Ok(())
}

// -------------------------------------------------------------- parent

fn parent(a: &Args) -> Res<()> {
    let base = match &a.dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            tempfile::Builder::new().prefix("peers-").tempdir_in(d)?
        }
        // /var/tmp: on disk where /tmp is a tmpfs.
        None => tempfile::Builder::new()
            .prefix("peers-")
            .tempdir_in("/var/tmp")?,
    };
    eprintln!(
        "peers: n={} rounds={} commit-every={} workload={} dir={}",
        a.n,
        a.rounds,
        a.commit_every,
        a.workload.name(),
        base.path().display()
    );
    let exe = std::env::current_exe()?;
    let mut results: BTreeMap<String, Vec<BTreeMap<String, f64>>> = BTreeMap::new();
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    for round in 0..a.rounds {
        for engine in &a.engines {
            if failed.contains_key(engine) {
                continue;
            }
            let dir = base.path().join(format!("{engine}-{round}"));
            let t = Instant::now();
            let mut child = Command::new(&exe)
                .args(["--one", engine])
                .args(["--n", &a.n.to_string()])
                .args(["--commit-every", &a.commit_every.to_string()])
                .args(["--workload", a.workload.name()])
                .args(["--seed", &(round as u64 + 1).to_string()])
                .args(["--log-bytes", &a.log_bytes.to_string()])
                .arg("--dir")
                .arg(&dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()?;
            // A run past the time limit is ended, and its engine dropped.
            let mut timed_out = false;
            while child.try_wait()?.is_none() {
                if t.elapsed().as_secs() >= a.timeout {
                    child.kill()?;
                    timed_out = true;
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let output = child.wait_with_output()?;
            if timed_out {
                let why = format!("not run: over the {} s limit at n = {}", a.timeout, a.n);
                eprintln!("round {} {engine}: {why}", round + 1);
                failed.insert(engine.clone(), why);
                let _ = std::fs::remove_dir_all(&dir);
                continue;
            }
            let _ = std::fs::remove_dir_all(&dir);
            let stdout = String::from_utf8_lossy(&output.stdout);
            let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT "));
            match (output.status.success(), line) {
                (true, Some(line)) => {
                    let m: BTreeMap<String, f64> = line
                        .split(' ')
                        .filter_map(|kv| kv.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.parse().unwrap_or(f64::NAN)))
                        .collect();
                    eprintln!(
                        "round {} {engine}: {:.1} s: {line}",
                        round + 1,
                        t.elapsed().as_secs_f64()
                    );
                    results.entry(engine.clone()).or_default().push(m);
                }
                _ => {
                    let err = String::from_utf8_lossy(&output.stderr);
                    let why = format!("failed: {}", err.lines().last().unwrap_or("no output"));
                    eprintln!("round {} {engine}: {why}", round + 1);
                    failed.insert(engine.clone(), why);
                }
            }
        }
    }
    print_table(a, &results, &failed);
    Ok(())
}

fn range(runs: &[BTreeMap<String, f64>], key: &str, scale: f64, decimals: usize) -> String {
    let vals: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.get(key))
        .map(|v| v * scale)
        .collect();
    if vals.is_empty() {
        return "–".into();
    }
    let lo = vals.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let fmt = |v: f64| {
        if decimals == 0 {
            group(v.round() as u64)
        } else {
            format!("{v:.decimals$}")
        }
    };
    if fmt(lo) == fmt(hi) {
        fmt(lo)
    } else {
        format!("{}–{}", fmt(lo), fmt(hi))
    }
}

/// 1234567 → "1,234,567".
fn group(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn per(runs: &[BTreeMap<String, f64>], num: &str, den: &str) -> Vec<BTreeMap<String, f64>> {
    runs.iter()
        .map(|r| {
            let mut m = BTreeMap::new();
            if let (Some(a), Some(b)) = (r.get(num), r.get(den)) {
                m.insert("v".to_string(), a / b);
            }
            m
        })
        .collect()
}

fn print_table(
    a: &Args,
    results: &BTreeMap<String, Vec<BTreeMap<String, f64>>>,
    failed: &BTreeMap<String, String>,
) {
    let n = a.n as f64;
    println!(
        "\nworkload {}, n = {}, a durable commit every {} operations, min–max over {} round(s)\n",
        a.workload.name(),
        group(a.n),
        a.commit_every,
        a.rounds
    );
    match a.workload {
        Workload::InsertLookup => {
            println!("| engine | inserts/s | lookups/s | p99 insert (µs) | p99 lookup (µs) | bytes written / insert | space amp. | peak RSS (MiB) |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        }
        Workload::YcsbA => {
            println!("| engine | load inserts/s | mixed ops/s | p99 op (µs) | bytes written / update | space amp. | peak RSS (MiB) |");
            println!("|---|---:|---:|---:|---:|---:|---:|");
        }
    }
    for engine in &a.engines {
        let Some(runs) = results.get(engine) else {
            continue;
        };
        let mut label = engine.clone();
        if engine == "sled" {
            label.push_str(" ‡");
        }
        if runs
            .iter()
            .any(|r| r.get("misses").copied().unwrap_or(0.0) > 0.0)
        {
            label.push_str(" (MISSES)");
        }
        let rss = range(runs, "peak_rss_kib", 1.0 / 1024.0, 0);
        let amp = range(runs, "space_amp", 1.0, 2);
        match a.workload {
            Workload::InsertLookup => println!(
                "| {label} | {} | {} | {} | {} | {} | {amp} | {rss} |",
                range(runs, "inserts_per_s", 1.0, 0),
                range(runs, "lookups_per_s", 1.0, 0),
                range(runs, "insert_p99_us", 1.0, 0),
                range(runs, "lookup_p99_us", 1.0, 1),
                range(runs, "insert_write_bytes", 1.0 / n, 0),
            ),
            Workload::YcsbA => println!(
                "| {label} | {} | {} | {} | {} | {amp} | {rss} |",
                range(runs, "inserts_per_s", 1.0, 0),
                range(runs, "ops_per_s", 1.0, 0),
                range(runs, "op_p99_us", 1.0, 0),
                range(&per(runs, "update_write_bytes", "updates"), "v", 1.0, 0),
            ),
        }
    }
    if results.contains_key("sled") {
        println!(
            "\n‡ sled's `flush` is sync_file_range, not fsync: not durable on a machine crash."
        );
    }
    for (engine, why) in failed {
        println!("\n{engine}: {why}");
    }
}
