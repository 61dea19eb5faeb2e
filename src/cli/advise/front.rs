//! The choice `flashix advise` makes, as plain data (no I/O, so it is
//! tested without running an index): the measures of each configuration,
//! the Pareto front, the recommendation and its reason.
//!
//! Measures, all per measured operation and lower is better: simulated
//! time, energy, page writes (the chip's, garbage collection's copies and
//! the final flush included), memory (counted peak), and wear: the busiest
//! block's erases (the projected lifetime is the endurance over it,
//! `device::wear`). A measure that is the same for every configuration
//! (energy on a device without energy figures, wear where nothing was
//! erased or the device hides its blocks) tells none apart and is left out
//! of the front and of the balanced choice.
//!
//! * The **front**: the eligible configurations no other matches or beats
//!   in every measure in use (eligible: within the memory budget, and the
//!   lifetime constraint `--years` where given).
//! * `--optimize M`: the eligible configuration with the least M (ties go
//!   to the balanced score). `lifetime` is least busiest-block wear.
//! * By default, the **balanced** choice: the front member with the least
//!   geometric mean of its factors over the best in each per-operation
//!   cost in use (time, energy, page writes). Not memory, which is the
//!   budget's business, nor wear: a configuration that erased nothing in
//!   the run has an unbounded lifetime, and every other an infinite factor
//!   over it, however many years it lasts; wear is a front dimension,
//!   `--optimize lifetime`'s measure and `--years`' constraint, and page
//!   writes, which wear follows, are in the balance — unless no
//!   configuration writes [`WRITES_WEIGHED_FROM`] pages an operation (a
//!   read-only workload, where the final flush's metadata page would
//!   give one configuration an infinite factor over another that wrote
//!   none).
//! * The **runner-up** and the **near ties**: the best configuration of
//!   each other index, by the same choice, and its score over the
//!   recommendation's (the balanced score, or `--optimize`'s measure).
//!   Within [`NEAR_TIE`] of it, or with both under [`IN_MEMORY_IO`] page
//!   I/Os an operation (their indexes live in memory, and the flash tells
//!   them apart by a few pages), the two are a near tie: the measurement
//!   does not rank them, and advice on a prefix of a trace (`trace`) that
//!   names either agrees with the other.

use serde::Serialize;

/// One configuration's measures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub label: String,
    pub index: String,
    pub time_us: f64,
    pub energy_uj: f64,
    pub writes: f64,
    /// Page reads and writes per operation (the device's, as `writes`).
    pub page_io: f64,
    pub memory: f64,
    /// The busiest block's erases per operation (`None`: the device hides
    /// its blocks).
    pub wear: Option<f64>,
}

/// What to optimise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    Time,
    Energy,
    Writes,
    Lifetime,
    /// The default: the balanced front member (module doc).
    Balanced,
}

impl std::str::FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "time" => Ok(Objective::Time),
            "energy" => Ok(Objective::Energy),
            "writes" => Ok(Objective::Writes),
            "lifetime" => Ok(Objective::Lifetime),
            _ => Err(format!(
                "unknown objective `{s}`: use time, energy, writes or lifetime (without --optimize: the Pareto front and its balanced member)"
            )),
        }
    }
}

/// A measure: its name, what its best is called, and its value.
struct Measure {
    name: &'static str,
    objective: Option<Objective>,
    /// Whether the balanced choice weighs it.
    balanced: bool,
    /// The least value, per operation, at which the balanced choice
    /// weighs it: below it in every configuration the measure is noise
    /// (module doc).
    balance_from: f64,
    value: fn(&Point) -> f64,
}

/// Page writes an operation below which, in every configuration, the
/// balanced choice leaves page writes out: one page in a thousand
/// operations is the final flush's metadata on a read-only workload, and
/// its factor over a configuration that wrote nothing would be infinite.
pub const WRITES_WEIGHED_FROM: f64 = 1e-3;

const MEASURES: [Measure; 5] = [
    Measure {
        name: "time",
        objective: Some(Objective::Time),
        balanced: true,
        balance_from: 0.0,
        value: |p| p.time_us,
    },
    Measure {
        name: "energy",
        objective: Some(Objective::Energy),
        balanced: true,
        balance_from: 0.0,
        value: |p| p.energy_uj,
    },
    Measure {
        name: "page writes",
        objective: Some(Objective::Writes),
        balanced: true,
        balance_from: WRITES_WEIGHED_FROM,
        value: |p| p.writes,
    },
    Measure {
        name: "wear",
        objective: Some(Objective::Lifetime),
        balanced: false,
        balance_from: 0.0,
        value: |p| p.wear.unwrap_or(0.0),
    },
    Measure {
        name: "memory",
        objective: None,
        balanced: false,
        balance_from: 0.0,
        value: |p| p.memory,
    },
];

/// The measures that tell `points` apart (module doc).
fn in_use(points: &[&Point]) -> Vec<&'static Measure> {
    MEASURES
        .iter()
        .filter(|m| {
            let mut values = points.iter().map(|p| (m.value)(p));
            let first = values.next();
            first.is_some_and(|f| values.any(|v| v != f))
        })
        .collect()
}

/// Whether `a` dominates `b` over `measures`.
fn dominates(a: &Point, b: &Point, measures: &[&Measure]) -> bool {
    measures.iter().all(|m| (m.value)(a) <= (m.value)(b))
        && measures.iter().any(|m| (m.value)(a) < (m.value)(b))
}

/// The indices (into `points`) of the Pareto front, fastest first.
pub fn front(points: &[&Point]) -> Vec<usize> {
    let measures = in_use(points);
    let mut f: Vec<usize> = (0..points.len())
        .filter(|&i| !points.iter().any(|o| dominates(o, points[i], &measures)))
        .collect();
    f.sort_by(|&a, &b| points[a].time_us.total_cmp(&points[b].time_us));
    f
}

use super::super::ranking::factor;

/// The balanced scores of `points` over the objectives in use among
/// `among` (module doc), with each objective's factors.
pub struct Balance {
    pub objectives: Vec<&'static str>,
    best: Vec<f64>,
    values: Vec<fn(&Point) -> f64>,
}

impl Balance {
    pub fn over(among: &[&Point]) -> Balance {
        let measures: Vec<&Measure> = in_use(among)
            .into_iter()
            .filter(|m| m.balanced && among.iter().any(|p| (m.value)(p) >= m.balance_from))
            .collect();
        Balance {
            objectives: measures.iter().map(|m| m.name).collect(),
            best: measures
                .iter()
                .map(|m| {
                    among
                        .iter()
                        .map(|p| (m.value)(p))
                        .fold(f64::INFINITY, f64::min)
                })
                .collect(),
            values: measures.iter().map(|m| m.value).collect(),
        }
    }

    /// Each objective's factor over the best for `p`.
    pub fn factors(&self, p: &Point) -> Vec<f64> {
        self.values
            .iter()
            .zip(&self.best)
            .map(|(v, b)| factor(v(p), *b))
            .collect()
    }

    /// The geometric mean of [`Self::factors`] (1 with no objective).
    pub fn score(&self, p: &Point) -> f64 {
        let f = self.factors(p);
        if f.is_empty() {
            return 1.0;
        }
        (f.iter().map(|x| x.ln()).sum::<f64>() / f.len() as f64).exp()
    }
}

/// A runner-up within this factor of the recommendation is a near tie.
pub const NEAR_TIE: f64 = 1.05;

/// Page reads and writes an operation below which a configuration's index
/// lives in memory: one in 20 operations touches the flash.
pub const IN_MEMORY_IO: f64 = 0.05;

/// The best point of each other index than `eligible[pick]`'s, best
/// first, with its score over the pick's and whether the two are a near
/// tie (module doc). The first is the runner-up.
pub fn others(eligible: &[&Point], pick: usize, objective: Objective) -> Vec<(usize, f64, bool)> {
    let Some(chosen) = eligible.get(pick) else {
        return Vec::new();
    };
    // Scored as the recommendation's reason scores it: against the best
    // of the front.
    let members: Vec<&Point> = front(eligible).into_iter().map(|i| eligible[i]).collect();
    let balance = Balance::over(&members);
    let score = |p: &Point| match objective {
        Objective::Balanced => balance.score(p),
        o => objective_value(p, o).unwrap_or(f64::INFINITY),
    };
    let mut best: Vec<(usize, f64)> = Vec::new();
    for (i, p) in eligible.iter().enumerate() {
        if p.index == chosen.index {
            continue;
        }
        let s = score(p);
        match best.iter_mut().find(|(j, _)| eligible[*j].index == p.index) {
            Some(b) if s < b.1 => *b = (i, s),
            Some(_) => {}
            None => best.push((i, s)),
        }
    }
    best.sort_by(|a, b| a.1.total_cmp(&b.1));
    let own = score(chosen);
    best.into_iter()
        .map(|(i, s)| {
            let ratio = factor(s, own);
            let in_memory = chosen.page_io < IN_MEMORY_IO && eligible[i].page_io < IN_MEMORY_IO;
            (i, ratio, ratio <= NEAR_TIE || in_memory)
        })
        .collect()
}

/// The value `objective` ranks by.
pub fn objective_value(p: &Point, objective: Objective) -> Option<f64> {
    MEASURES
        .iter()
        .find(|m| m.objective == Some(objective))
        .map(|m| (m.value)(p))
}

/// The recommended point among `eligible` (indices into it), and the
/// front (indices), for `objective`; `None` when nothing is eligible.
pub fn choose(eligible: &[&Point], objective: Objective) -> Option<(usize, Vec<usize>)> {
    if eligible.is_empty() {
        return None;
    }
    let f = front(eligible);
    let members: Vec<&Point> = f.iter().map(|&i| eligible[i]).collect();
    let balance = Balance::over(&members);
    let pick = match objective {
        Objective::Balanced => f.iter().copied().min_by(|&a, &b| {
            balance
                .score(eligible[a])
                .total_cmp(&balance.score(eligible[b]))
        }),
        o => (0..eligible.len()).min_by(|&a, &b| {
            let (x, y) = (
                objective_value(eligible[a], o).unwrap_or(f64::INFINITY),
                objective_value(eligible[b], o).unwrap_or(f64::INFINITY),
            );
            x.total_cmp(&y).then(
                balance
                    .score(eligible[a])
                    .total_cmp(&balance.score(eligible[b])),
            )
        }),
    }?;
    Some((pick, f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(label: &str, time: f64, energy: f64, writes: f64, memory: f64) -> Point {
        Point {
            label: label.into(),
            index: label.split(':').next().unwrap_or(label).into(),
            time_us: time,
            energy_uj: energy,
            writes,
            page_io: writes,
            memory,
            wear: None,
        }
    }

    #[test]
    fn other_indexes_best_first_and_near_ties_within_five_percent() {
        let a = pt("a:x=1", 1.0, 1.0, 1.0, 10.0);
        let a2 = pt("a:x=2", 1.01, 1.0, 1.0, 10.0);
        let b = pt("b", 1.04, 1.0, 1.0, 10.0);
        let c = pt("c", 2.0, 1.0, 1.0, 10.0);
        let all = [&a, &a2, &b, &c];
        let o = others(&all, 0, Objective::Time);
        assert_eq!(o.len(), 2, "one per other index: {o:?}");
        let (i, ratio, tie) = o[0];
        assert_eq!((i, tie), (2, true));
        assert!((ratio - 1.04).abs() < 1e-12);
        assert_eq!((o[1].0, o[1].2), (3, false));
        // Both touch the flash less than once in 20 operations: a tie.
        let mut c_mem = c.clone();
        c_mem.page_io = 0.01;
        let mut a_mem = a.clone();
        a_mem.page_io = 0.04;
        assert!(others(&[&a_mem, &c_mem], 0, Objective::Time)[0].2);
        assert!(others(&[&a], 0, Objective::Balanced).is_empty());
    }

    #[test]
    fn the_front_drops_the_dominated_and_ignores_constant_measures() {
        let a = pt("a", 1.0, 0.0, 5.0, 100.0);
        let b = pt("b", 2.0, 0.0, 1.0, 100.0);
        let c = pt("c", 3.0, 0.0, 6.0, 100.0); // worse than a in everything
        let d = pt("d", 4.0, 0.0, 7.0, 10.0); // least memory
        let all = [&a, &b, &c, &d];
        assert_eq!(front(&all), vec![0, 1, 3]);
        // Energy is 0 everywhere: not an objective.
        let bal = Balance::over(&all);
        assert_eq!(bal.objectives, vec!["time", "page writes"]);
        // a: time 1×, writes 5×: √5; b: 2×, 1×: √2.
        assert!((bal.score(&a) - 5f64.sqrt()).abs() < 1e-12);
        assert!((bal.score(&b) - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn each_objective_picks_its_best_and_balanced_the_middle() {
        let fast = pt("fast", 1.0, 3.0, 9.0, 10.0);
        let frugal = pt("frugal", 9.0, 3.0, 1.0, 10.0);
        let middle = pt("middle", 2.0, 1.0, 2.0, 10.0);
        let all = [&fast, &frugal, &middle];
        let pick = |o| choose(&all, o).unwrap().0;
        assert_eq!(pick(Objective::Time), 0);
        assert_eq!(pick(Objective::Writes), 1);
        assert_eq!(pick(Objective::Energy), 2);
        assert_eq!(pick(Objective::Balanced), 2);
        assert!(choose(&[], Objective::Time).is_none());
        assert!("speed".parse::<Objective>().is_err());
    }

    #[test]
    fn wear_shapes_the_front_but_not_the_balance() {
        let mut a = pt("a", 1.0, 1.0, 1.0, 1.0);
        let mut b = pt("b", 1.0, 1.0, 1.0, 1.0);
        a.wear = Some(0.001);
        b.wear = Some(0.0001);
        assert_eq!(front(&[&a, &b]), vec![1]);
        assert_eq!(choose(&[&a, &b], Objective::Lifetime).unwrap().0, 1);
        // A configuration that erased nothing does not make every other
        // infinitely worse in the balance.
        let mut fast = pt("fast", 1.0, 1.0, 2.0, 1.0);
        let mut idle = pt("idle", 2.0, 2.0, 3.0, 1.0);
        fast.wear = Some(0.001);
        idle.wear = Some(0.0);
        let both = [&fast, &idle];
        assert_eq!(front(&both), vec![0, 1]);
        assert_eq!(
            Balance::over(&both).objectives,
            vec!["time", "energy", "page writes"]
        );
        assert_eq!(choose(&both, Objective::Balanced).unwrap().0, 0);
    }

    #[test]
    fn a_read_only_final_flush_does_not_decide_the_balance() {
        // The fastest wrote one metadata page in 100,000 operations, the
        // other none: that page is below the resolution, and time decides.
        let fast = pt("fast", 1.0, 1.0, 1e-5, 1.0);
        let slow = pt("slow", 1.4, 1.4, 0.0, 1.0);
        let both = [&fast, &slow];
        assert_eq!(Balance::over(&both).objectives, vec!["time", "energy"]);
        assert_eq!(choose(&both, Objective::Balanced).unwrap().0, 0);
        // Once some configuration writes a page in a thousand, writes count.
        let writer = pt("writer", 1.0, 1.0, 2e-3, 1.0);
        let idle = pt("idle", 1.4, 1.4, 0.0, 1.0);
        assert_eq!(
            Balance::over(&[&writer, &idle]).objectives,
            vec!["time", "energy", "page writes"]
        );
        assert_eq!(choose(&[&writer, &idle], Objective::Balanced).unwrap().0, 1);
    }
}
