//! Seeded synthetic workloads.
//!
//! Key distributions ([`KeyDist`]):
//! * `uniform`: i.i.d. uniform over `[key_min, key_max]` (Roh et al. 2009 §6:
//!   [0, 3,000,000]; Agrawal et al. 2009 §6: 1 … 10,000).
//! * `ascending`: `key_min, key_min + 1, …` (wrapping back to `key_min` past
//!   `key_max`).
//! * `rs`: BFTL's mix (Wu et al. 2003 §5.2): "when rs equals zero all of the keys
//!   were randomly generated; if rs equals 1 the keys were in an ascending
//!   order; if rs equals 0.5 one-half of the keys were in an ascending
//!   order, while the other keys were randomly generated". Each insert key
//!   is, with probability `rs`, the next key of one ascending sequence, and
//!   otherwise uniform over the key range.
//! * `zipf`: Zipf with exponent `zipf_s` over the key range; rank 1 is
//!   `key_min` (not scrambled, so hot keys are adjacent: say so in reports).
//! * `scrambled`: distinct keys in scattered order: the i-th insert takes
//!   `key_min + (i·m mod M)`, M the size of the key range and m a
//!   multiplier coprime to M near M/φ, a permutation of the range. No key
//!   repeats before M inserts, and keys inserted one after another lie far
//!   apart: YCSB's load phase, which inserts each record once under a
//!   hashed key.
//!
//! Operation mix ([`Mix`]): weights of insert, search, delete, update and
//! range, normalised. Deletes and updates pick a live entry uniformly (the
//! generator keeps the live set, so memory grows with live entries, not
//! with operations); with no live entry they become inserts. With
//! `delete_order=oldest` a delete takes the oldest live entry instead (the
//! keys leave in the order they came: with ascending keys, `rs = 1`, the
//! deletes ascend too), with `delete_order=newest` the newest (the deletes
//! meet the inserts at the same end of the key range); with random keys
//! either is as random as `uniform`. Wu et al. 2003 §5.3 does not say which
//! keys its maintenance runs deleted; `bftl-fig11` runs the three. Searches pick
//! the key of a live entry (or a random key with `search_existing=false`).
//! Ranges start at a live key and span `range_len` keys.
//!
//! Which live entry a search, range, update or delete reads is the
//! *request distribution* ([`RequestDist`], `request=`): uniform over the
//! live entries (the default, above), or YCSB's scrambled Zipfian
//! (`request=zipf`, exponent 0.99, or `request=zipf:S`): a rank r drawn
//! from Zipf(S) over the n live entries picks entry FNV-1a(r) mod n, so the
//! popular entries are few but scattered over the key range, as in YCSB's
//! `ScrambledZipfianGenerator`. An update under it changes the entry in
//! place, so an entry keeps its popularity after an update, as a YCSB
//! record does.
//!
//! Values are unique per generated insert (a counter), so a repeated key is
//! a distinct entry, as the Buffered-B+ paper's §6 workload requires.
//! `search_after` appends, after the measured operations, one search per
//! insert of the same keys in insertion order (Roh et al. 2009 §6.1: "200,000
//! search operations, querying the same key-values of the previous insert
//! operations").
//!
//! Memory: the live entries are kept only when the mix reads them (deletes,
//! updates, or searches and ranges of live keys), packed 8 bytes an entry
//! where the key range and the values fit one word (`workload::live`);
//! otherwise only their number is. `search_after` keeps no list of inserted keys: a *shadow*
//! generator, a copy taken where the measured phase starts that tracks
//! only the number of live entries, replays the measured phase after it
//! and turns its inserts into searches. A generator's choices depend on the
//! live set only through its size, so the shadow's inserts are the
//! originals, key for key. A 10^7-insert `flashix bench` held 240 MB of
//! vectors for these before.

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::live::LiveEntries;
use super::{Op, WorkloadError};

/// A key distribution.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyDist {
    Uniform,
    Ascending,
    Rs(f64),
    Zipf(f64),
    /// Keys taken in order from a sequence (the DNA workload's 16-mers).
    Sequence(super::dna::DnaKeys),
    /// `n` keys in ascending order, one uniform in each of `n` equal
    /// strata of the key range: a sorted uniform sample, for a preload
    /// that builds an index in key order (`preload_sorted=true`).
    Stratified(u64),
    /// Distinct keys in scattered order: a permutation of the key range
    /// (`dist=scrambled`, see the module docs).
    Scrambled,
}

/// Which live entry a search, range, update or delete reads (`request=`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RequestDist {
    /// Any live entry, uniformly.
    Uniform,
    /// YCSB's scrambled Zipfian with this exponent.
    Zipf(f64),
}

/// Operation weights (normalised when used).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    pub insert: f64,
    pub search: f64,
    pub delete: f64,
    pub update: f64,
    pub range: f64,
}

impl Mix {
    pub const INSERTS: Mix = Mix {
        insert: 1.0,
        search: 0.0,
        delete: 0.0,
        update: 0.0,
        range: 0.0,
    };
}

/// Everything that defines a synthetic workload.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub name: String,
    pub key_min: u64,
    pub key_max: u64,
    pub dist: KeyDist,
    pub mix: Mix,
    pub range_len: u64,
    pub search_existing: bool,
    pub search_after: bool,
    pub preload: u64,
    /// Whether the preload inserts its uniform keys in ascending order.
    pub preload_sorted: bool,
    pub ops: u64,
    pub seed: u64,
    /// Search weights for phases of the measured operations, in order
    /// (`phases=0.05/2/0.05`: the mix's search weight is 0.05 in the first
    /// phase, 2 in the second, 0.05 in the last); empty: one phase.
    pub phases: Vec<f64>,
    /// Operations in each phase (the last lasts to the end); 0: the
    /// operations split into equal phases. With a length, a run of fewer
    /// operations is a prefix of a longer one with the same seed.
    pub phase_ops: u64,
    /// Which live entry a delete takes.
    pub delete_order: DeleteOrder,
    /// Which live entry a search, range, update or delete reads.
    pub request: RequestDist,
}

/// Which live entry a delete takes (`delete_order=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteOrder {
    /// Any, uniformly.
    Uniform,
    /// The oldest: entries leave in the order they came.
    Oldest,
    /// The newest: the last entry inserted and still live.
    Newest,
}

/// Keys `--workload-set` accepts.
pub const WORKLOAD_KEYS: [&str; 21] = [
    "key_min",
    "key_max",
    "dist",
    "rs",
    "zipf_s",
    "insert",
    "search",
    "delete",
    "update",
    "range",
    "range_len",
    "search_existing",
    "search_after",
    "preload",
    "ops",
    "delete_share",
    "preload_sorted",
    "phases",
    "phase_ops",
    "delete_order",
    "request",
];

impl WorkloadSpec {
    /// Applies one `K=V` override.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), WorkloadError> {
        let bad = |what: &str| WorkloadError::Config(format!("`{key}`: `{value}` is not {what}"));
        let num = |v: &str| v.parse::<u64>().map_err(|_| bad("an unsigned integer"));
        let frac = |v: &str| match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(bad("a number >= 0")),
        };
        let flag = |v: &str| v.parse::<bool>().map_err(|_| bad("true or false"));
        match key {
            "key_min" => self.key_min = num(value)?,
            "key_max" => self.key_max = num(value)?,
            "dist" => {
                self.dist = match value {
                    "uniform" => KeyDist::Uniform,
                    "ascending" => KeyDist::Ascending,
                    "rs" => KeyDist::Rs(0.5),
                    "zipf" => KeyDist::Zipf(0.99),
                    "scrambled" => KeyDist::Scrambled,
                    _ => {
                        return Err(bad(
                            "a distribution (uniform, ascending, rs, zipf, scrambled)",
                        ))
                    }
                }
            }
            "rs" => {
                let rs = frac(value)?;
                if rs > 1.0 {
                    return Err(bad("a ratio between 0 and 1"));
                }
                self.dist = KeyDist::Rs(rs);
            }
            "zipf_s" => {
                let s = frac(value)?;
                if s <= 0.0 {
                    return Err(bad("a Zipf exponent > 0"));
                }
                self.dist = KeyDist::Zipf(s);
            }
            "insert" => self.mix.insert = frac(value)?,
            "search" => self.mix.search = frac(value)?,
            "phase_ops" => self.phase_ops = num(value)?,
            "phases" => {
                self.phases = value
                    .split('/')
                    .map(&frac)
                    .collect::<Result<Vec<f64>, _>>()?;
                if self.phases.is_empty() {
                    return Err(bad("a list of search weights such as 0.05/2/0.05"));
                }
            }
            "delete" => self.mix.delete = frac(value)?,
            "delete_order" => {
                self.delete_order = match value {
                    "uniform" => DeleteOrder::Uniform,
                    "oldest" => DeleteOrder::Oldest,
                    "newest" => DeleteOrder::Newest,
                    _ => return Err(bad("uniform, oldest or newest")),
                }
            }
            "update" => self.mix.update = frac(value)?,
            "request" => {
                self.request = match value.split_once(':') {
                    None if value == "uniform" => RequestDist::Uniform,
                    None if value == "zipf" => RequestDist::Zipf(0.99),
                    Some(("zipf", s)) => match frac(s)? {
                        s if s > 0.0 => RequestDist::Zipf(s),
                        _ => return Err(bad("uniform, zipf or zipf:S with S > 0")),
                    },
                    _ => return Err(bad("uniform, zipf or zipf:S with S > 0")),
                }
            }
            "range" => self.mix.range = frac(value)?,
            "range_len" => self.range_len = num(value)?,
            "search_existing" => self.search_existing = flag(value)?,
            "search_after" => self.search_after = flag(value)?,
            "preload" => self.preload = num(value)?,
            "preload_sorted" => self.preload_sorted = flag(value)?,
            "ops" => self.ops = num(value)?,
            "delete_share" => {
                // Wu et al. 2003 §5.3's "deletion/insertion ratio": deletes take this
                // share of the operations, inserts the rest.
                let d = frac(value)?;
                if d > 1.0 {
                    return Err(bad("a share between 0 and 1"));
                }
                self.mix.delete = d;
                self.mix.insert = 1.0 - d;
            }
            _ => {
                return Err(WorkloadError::Config(format!(
                    "unknown workload parameter `{key}`; accepted: {}",
                    WORKLOAD_KEYS.join(", ")
                )))
            }
        }
        Ok(())
    }

    /// Checks the spec can generate operations.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.key_min > self.key_max {
            return Err(WorkloadError::Config(format!(
                "key_min {} is above key_max {}",
                self.key_min, self.key_max
            )));
        }
        if let KeyDist::Sequence(d) = &self.dist {
            if d.keys.is_empty() {
                return Err(WorkloadError::Config(format!(
                    "{} holds no 16-base substring of A, C, G and T",
                    d.source
                )));
            }
        }
        let m = self.mix;
        if m.insert + m.search + m.delete + m.update + m.range <= 0.0 {
            return Err(WorkloadError::Config(
                "the operation mix has no positive weight".into(),
            ));
        }
        Ok(())
    }

    /// One line describing the workload, for reports.
    pub fn describe(&self) -> String {
        let dist = match &self.dist {
            KeyDist::Uniform => "uniform".to_string(),
            KeyDist::Ascending => "ascending".to_string(),
            KeyDist::Rs(rs) => format!("rs={rs}"),
            KeyDist::Zipf(s) => format!("zipf s={s}"),
            KeyDist::Stratified(n) => format!("sorted uniform sample of {n}"),
            KeyDist::Scrambled => "distinct, scrambled".to_string(),
            KeyDist::Sequence(d) => format!(
                "16-mers of the DNA {} (\"{}\"; {} keys read from {} record{})",
                d.name,
                d.first_record,
                d.keys.len(),
                d.records,
                if d.records == 1 { "" } else { "s" }
            ),
        };
        let m = self.mix;
        format!(
            "{}: keys {} in [{}, {}]{}; mix insert {} search {} delete {} update {} range {}{}{}; preload {}{}, ops {}{}",
            self.name,
            dist,
            self.key_min,
            self.key_max,
            match self.request {
                RequestDist::Uniform => String::new(),
                RequestDist::Zipf(s) => format!(", requests scrambled zipf s={s}"),
            },
            m.insert,
            m.search,
            m.delete,
            m.update,
            m.range,
            match self.delete_order {
                DeleteOrder::Uniform => "",
                DeleteOrder::Oldest => " (deletes take the oldest live entry)",
                DeleteOrder::Newest => " (deletes take the newest live entry)",
            },
            if self.phases.is_empty() {
                String::new()
            } else {
                let w: Vec<String> = self.phases.iter().map(|x| x.to_string()).collect();
                match self.phase_ops {
                    0 => format!(" (search in equal phases: {})", w.join(", ")),
                    n => format!(" (search in phases of {n} operations: {})", w.join(", ")),
                }
            },
            self.preload,
            if self.preload_sorted { " (in key order)" } else { "" },
            self.ops,
            if self.search_after { ", then a search of every inserted key" } else { "" }
        )
    }

    /// The preload phase: `preload` inserts. It keeps the live set if the
    /// measured phase of this spec will read it.
    pub fn preload_ops(&self) -> Result<Generator, WorkloadError> {
        let mut g = Generator::new(self, self.seed ^ 0x5EED_0F9E_10AD)?;
        g.mix = Mix::INSERTS;
        g.remaining = self.preload;
        if self.preload_sorted {
            g.dist = KeyDist::Stratified(self.preload.max(1));
        }
        g.search_after = false;
        // Room for the measured phase too (it adds at most one entry an
        // operation and continues this set): growing a 10^8-entry set
        // later doubled it, a copy and twice its memory at the peak.
        if let Live::Entries(v) = &mut g.live {
            reserve_live(v, self.preload.saturating_add(self.ops))?;
        }
        Ok(g)
    }

    /// The measured phase. To continue after a preload with the same live
    /// set, use [`Generator::continue_with`].
    pub fn measured_ops(&self) -> Result<Generator, WorkloadError> {
        let mut g = Generator::new(self, self.seed)?;
        g.arm_replay();
        Ok(g)
    }

    /// Whether the mix reads live entries (and so the generator must keep
    /// them, not only their number).
    fn reads_live(&self) -> bool {
        let m = self.mix;
        m.delete > 0.0
            || m.update > 0.0
            || (self.search_existing && (m.search > 0.0 || m.range > 0.0))
    }
}

/// Room for `more` live entries beside those `v` holds, taken at once;
/// a count this process cannot hold is an error naming it, not an abort.
fn reserve_live(v: &mut LiveEntries, more: u64) -> Result<(), WorkloadError> {
    let room = usize::try_from(more)
        .ok()
        .filter(|&n| v.try_reserve_exact(n));
    if room.is_some() {
        return Ok(());
    }
    let bytes = u128::from(more) * v.entry_bytes() as u128;
    Err(WorkloadError::Config(format!(
        "this workload keeps its live entries in memory: room for {more} more ({bytes} bytes) \
         is more than this process can allocate; lower the preload or the operations"
    )))
}

/// The live entries, or only their number where nothing reads them.
#[derive(Clone, Debug)]
enum Live {
    /// In insertion order until a uniform removal moves the last entry
    /// into the gap; a deque, so the oldest leaves in O(1).
    Entries(LiveEntries),
    Count(usize),
}

impl Live {
    fn len(&self) -> usize {
        match self {
            Live::Entries(v) => v.len(),
            Live::Count(n) => *n,
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, e: (u64, u64)) {
        match self {
            Live::Entries(v) => v.push_back(e),
            Live::Count(n) => *n += 1,
        }
    }

    /// The key of entry `i` (0 when only the number is kept: only a shadow
    /// generator, which uses its inserts alone, asks then).
    fn key(&self, i: usize) -> u64 {
        match self {
            Live::Entries(v) => v.get(i).map_or(0, |e| e.0),
            Live::Count(_) => 0,
        }
    }

    /// Gives entry `i < len` the value `new`; its old value.
    fn replace_value(&mut self, i: usize, new: u64) -> (u64, u64) {
        match self {
            // Invariant: callers pass i < len.
            Live::Entries(v) => v.replace_value(i, new).unwrap_or((0, 0)),
            Live::Count(_) => (0, 0),
        }
    }

    /// Removes entry `i < len` the way `Vec::swap_remove` does.
    fn swap_remove(&mut self, i: usize) -> (u64, u64) {
        match self {
            // Invariant: callers pass i < len.
            Live::Entries(v) => v.swap_remove_back(i).unwrap_or((0, 0)),
            Live::Count(n) => {
                *n -= 1;
                (0, 0)
            }
        }
    }

    /// Removes the oldest entry, or the newest (callers check the set is
    /// not empty).
    fn pop_end(&mut self, oldest: bool) -> (u64, u64) {
        match self {
            Live::Entries(v) => v.pop_end(oldest).unwrap_or((0, 0)),
            Live::Count(n) => {
                *n -= 1;
                (0, 0)
            }
        }
    }
}

/// An iterator of operations.
#[derive(Clone, Debug)]
pub struct Generator {
    rng: Xoshiro256PlusPlus,
    key_min: u64,
    key_max: u64,
    dist: KeyDist,
    zipf: Option<Zipf<f64>>,
    /// The scrambled permutation's multiplier (`KeyDist::Scrambled`).
    scramble_multiplier: u64,
    request: RequestDist,
    /// The request distribution's Zipf over the live entries, and the
    /// number of them it was built for.
    request_zipf: Option<(usize, Zipf<f64>)>,
    mix: Mix,
    range_len: u64,
    search_existing: bool,
    search_after: bool,
    delete_order: DeleteOrder,
    /// Search weights of equal phases (`WorkloadSpec::phases`) over `ops`.
    phases: Vec<f64>,
    phase_ops: u64,
    ops: u64,
    remaining: u64,
    next_ascending: u64,
    /// Position in a `Sequence` distribution.
    next_in_sequence: usize,
    next_value: u64,
    max_value: u64,
    live: Live,
    /// With `search_after`: the shadow generator that replays the measured
    /// phase once it is over (see the module docs).
    replay: Option<Box<Generator>>,
}

impl Generator {
    fn new(spec: &WorkloadSpec, seed: u64) -> Result<Self, WorkloadError> {
        spec.validate()?;
        let span = spec.key_max - spec.key_min;
        let zipf = match spec.dist {
            KeyDist::Zipf(s) => Some(
                Zipf::new((span as f64 + 1.0).min(1e15), s)
                    .map_err(|e| WorkloadError::Config(format!("zipf: {e}")))?,
            ),
            _ => None,
        };
        Ok(Generator {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            key_min: spec.key_min,
            key_max: spec.key_max,
            dist: spec.dist.clone(),
            zipf,
            scramble_multiplier: coprime_multiplier(span as u128 + 1),
            request: spec.request,
            request_zipf: None,
            mix: spec.mix,
            range_len: spec.range_len,
            search_existing: spec.search_existing,
            search_after: spec.search_after,
            delete_order: spec.delete_order,
            phases: spec.phases.clone(),
            phase_ops: spec.phase_ops,
            ops: spec.ops,
            remaining: spec.ops,
            next_ascending: spec.key_min,
            next_in_sequence: 0,
            next_value: 0,
            max_value: u32::MAX as u64,
            live: if spec.reads_live() {
                Live::Entries(LiveEntries::new(spec.key_min, spec.key_max))
            } else {
                Live::Count(0)
            },
            replay: None,
        })
    }

    /// Takes the shadow copy that `search_after` replays: this state, its
    /// live set reduced to a count, with no searches after.
    fn arm_replay(&mut self) {
        self.replay = None;
        if self.search_after {
            // Not cloned with the entries: the shadow never reads them.
            let count = Live::Count(self.live.len());
            let live = std::mem::replace(&mut self.live, count);
            let mut shadow = self.clone();
            self.live = live;
            shadow.search_after = false;
            self.replay = Some(Box::new(shadow));
        }
    }

    /// This generator keeping only the number of its live entries: for a
    /// preload whose operations are consumed while a second generator
    /// keeps the entries for the measured phase (`run_workload`), so a
    /// 10^8-entry preload holds its live set once.
    pub fn counting_live(mut self) -> Self {
        self.live = Live::Count(self.live.len());
        self
    }

    /// Values wrap below `max` (the entry format's largest value).
    pub fn with_max_value(mut self, max: u64) -> Self {
        self.max_value = max;
        self
    }

    /// The measured phase of `spec`, continuing from this (preload)
    /// generator: same live set, ascending position and value counter, so
    /// deletes can target preloaded entries and values stay unique.
    pub fn continue_with(self, spec: &WorkloadSpec) -> Result<Generator, WorkloadError> {
        let mut g = Generator::new(spec, spec.seed)?;
        if matches!(g.live, Live::Entries(_)) && matches!(self.live, Live::Count(n) if n > 0) {
            return Err(WorkloadError::Config(
                "this workload reads live entries, but its preload was generated for one that does not".into(),
            ));
        }
        g.live = match (g.live, self.live) {
            (Live::Count(_), live) => Live::Count(live.len()),
            (Live::Entries(_), Live::Entries(mut v)) => {
                // The measured phase adds at most one entry an operation:
                // room the preload reserved already, or exactly that much
                // more (`reserve` would double a 10^8-entry set).
                reserve_live(&mut v, spec.ops)?;
                Live::Entries(v)
            }
            (Live::Entries(_), live) => live,
        };
        g.next_ascending = self.next_ascending;
        g.next_in_sequence = self.next_in_sequence;
        g.next_value = self.next_value;
        g.max_value = self.max_value;
        g.arm_replay();
        Ok(g)
    }

    /// Live entries generated so far.
    pub fn live_entries(&self) -> usize {
        self.live.len()
    }

    fn uniform_key(&mut self) -> u64 {
        self.rng.random_range(self.key_min..=self.key_max)
    }

    fn ascending_key(&mut self) -> u64 {
        let k = self.next_ascending;
        self.next_ascending = if k >= self.key_max {
            self.key_min
        } else {
            k + 1
        };
        k
    }

    fn insert_key(&mut self) -> u64 {
        match self.dist {
            KeyDist::Uniform => self.uniform_key(),
            KeyDist::Ascending => self.ascending_key(),
            KeyDist::Rs(rs) => {
                if self.rng.random::<f64>() < rs {
                    self.ascending_key()
                } else {
                    self.uniform_key()
                }
            }
            KeyDist::Zipf(_) => {
                // Invariant: zipf is Some exactly when dist is Zipf.
                let z = self
                    .zipf
                    .as_ref()
                    .map(|z| z.sample(&mut self.rng))
                    .unwrap_or(1.0);
                (self.key_min + (z as u64).saturating_sub(1)).min(self.key_max)
            }
            KeyDist::Stratified(n) => {
                let span = (self.key_max - self.key_min) as f64 + 1.0;
                let i = self.next_in_sequence as f64;
                self.next_in_sequence += 1;
                let lo = self.key_min + (i * span / n as f64) as u64;
                let hi = self.key_min + ((i + 1.0) * span / n as f64) as u64;
                let hi = hi.saturating_sub(1).clamp(lo, self.key_max);
                self.rng.random_range(lo..=hi)
            }
            KeyDist::Scrambled => {
                let m = (self.key_max - self.key_min) as u128 + 1;
                let i = self.next_in_sequence as u128;
                self.next_in_sequence += 1;
                // Below key_max: the product is reduced mod the range's size.
                self.key_min + ((i * self.scramble_multiplier as u128) % m) as u64
            }
            KeyDist::Sequence(ref d) => {
                // `preset::build` loaded as many keys as the workload
                // inserts at most, so this never wraps within a run.
                let k = d.keys[self.next_in_sequence % d.keys.len()];
                self.next_in_sequence += 1;
                k as u64
            }
        }
    }

    fn next_value(&mut self) -> u64 {
        let v = self.next_value;
        self.next_value = if v >= self.max_value { 0 } else { v + 1 };
        v
    }

    fn make_insert(&mut self) -> Op {
        let key = self.insert_key();
        let value = self.next_value();
        self.live.push((key, value));
        Op::Insert { key, value }
    }

    fn live_key(&mut self) -> u64 {
        if self.search_existing && !self.live.is_empty() {
            let i = self.live_index();
            self.live.key(i)
        } else {
            self.insert_key()
        }
    }

    /// The position of the live entry a request reads (the set is not
    /// empty): uniform, or YCSB's scrambled Zipfian over the entries. Its
    /// draws depend on the live set only through its size, as a shadow
    /// generator's must.
    fn live_index(&mut self) -> usize {
        let n = self.live.len();
        let RequestDist::Zipf(s) = self.request else {
            return self.rng.random_range(0..n);
        };
        if self
            .request_zipf
            .as_ref()
            .is_none_or(|(built, _)| *built != n)
        {
            // Zipf::new fails only for n < 1 or s <= 0: the set is not
            // empty and `set` admits s > 0 only; uniform if it ever did.
            self.request_zipf = Zipf::new(n as f64, s).ok().map(|z| (n, z));
        }
        match &self.request_zipf {
            Some((_, z)) => {
                let rank = z.sample(&mut self.rng) as u64;
                (fnv1a64(rank) % n as u64) as usize
            }
            None => self.rng.random_range(0..n),
        }
    }
}

/// A multiplier coprime to `m` near m/φ, so that i ↦ i·mult mod m
/// permutes 0..m and scatters neighbours (the golden ratio keeps
/// consecutive multiples far apart).
fn coprime_multiplier(m: u128) -> u64 {
    fn gcd(mut a: u128, mut b: u128) -> u128 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    if m <= 2 {
        return 1;
    }
    let mut c = ((m as f64 / 1.618_033_988_749_895) as u128).clamp(1, m - 1);
    while gcd(c, m) != 1 {
        c += 1;
    }
    // Below m, and m ≤ 2^64 (a range of u64 keys).
    c as u64
}

/// FNV-1a over the eight bytes of `x`, as YCSB hashes a Zipfian rank.
fn fnv1a64(x: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in x.to_le_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Iterator for Generator {
    type Item = Result<Op, WorkloadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            if let Some(shadow) = self.replay.as_mut() {
                for op in shadow.by_ref() {
                    if let Ok(Op::Insert { key, .. }) = op {
                        return Some(Ok(Op::Search { key }));
                    }
                }
                self.replay = None;
            }
            return None;
        }
        if !self.phases.is_empty() {
            // Which equal share of the operations this one falls in.
            let done = self.ops - self.remaining;
            let n = self.phases.len() as u64;
            let phase = match done.checked_div(self.phase_ops) {
                Some(p) => p as usize,
                None => (done as u128 * n as u128 / self.ops.max(1) as u128) as usize,
            };
            self.mix.search = self.phases[phase.min(self.phases.len() - 1)];
        }
        self.remaining -= 1;
        let m = self.mix;
        let total = m.insert + m.search + m.delete + m.update + m.range;
        let mut x = self.rng.random::<f64>() * total;
        let op = if x < m.insert {
            self.make_insert()
        } else {
            x -= m.insert;
            if x < m.search {
                Op::Search {
                    key: self.live_key(),
                }
            } else if x < m.search + m.delete
                && self.delete_order != DeleteOrder::Uniform
                && !self.live.is_empty()
            {
                let (key, value) = self.live.pop_end(self.delete_order == DeleteOrder::Oldest);
                Op::Delete { key, value }
            } else if x < m.search + m.delete + m.update && !self.live.is_empty() {
                let i = self.live_index();
                if x >= m.search + m.delete && self.request != RequestDist::Uniform {
                    // In place: the record keeps its rank (module docs).
                    let new = self.next_value();
                    let (key, old) = self.live.replace_value(i, new);
                    return Some(Ok(Op::Update { key, old, new }));
                }
                let (key, value) = self.live.swap_remove(i);
                if x < m.search + m.delete {
                    Op::Delete { key, value }
                } else {
                    let new = self.next_value();
                    self.live.push((key, new));
                    Op::Update {
                        key,
                        old: value,
                        new,
                    }
                }
            } else if x >= m.search + m.delete + m.update {
                let lo = self.live_key();
                let hi = lo
                    .saturating_add(self.range_len.saturating_sub(1))
                    .min(self.key_max.max(lo));
                Op::Range { lo, hi }
            } else {
                // A delete or update with nothing live: insert instead.
                self.make_insert()
            }
        };
        Some(Ok(op))
    }

    /// Exact while no searches follow (a bulk load sizes the index from
    /// it); after a replay's searches are counted only as they come.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        if self.replay.is_some() {
            (n, None)
        } else {
            (n, Some(n))
        }
    }
}

#[cfg(test)]
mod tests;
