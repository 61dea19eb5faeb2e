//! Paper experiments: declarative definitions ([`Experiment`]), a parallel
//! sweep executor ([`sweep`]), and the outputs a reader checks them by: CSV,
//! JSON, a figure (PNG and SVG) and a Markdown report that puts each
//! published number beside the measured one ([`output`]; the figure,
//! `plot`, with the `cli` feature), and the `RESULTS.md` summary of several
//! ([`summary`]), opened by totals counted from its own text ([`totals`]).
//!
//! An experiment names its sweep axis, its series (the lines or bar groups
//! of the paper's figure), its fixed parameters at full and quick scale, the
//! metrics it plots, and the published figures with the paper section they
//! come from. Published numbers are only ever shown beside measured ones,
//! never used to compute anything.
//!
//! Invariants:
//! 1. Every run of a sweep is independent and deterministically seeded from
//!    the experiment id and its parameters, so `--jobs` changes only the
//!    wall time, never a result.
//! 2. Results come back in sweep order (series-major, then x), whatever the
//!    thread timing.

mod asbtree;
mod asbtree_cache;
mod asbtree_table4;
mod bftl;
pub mod build_id;
pub mod defs;
pub use genome::{genome, missing_dna_input, Genome, NTUH_K2044};
mod durability;
mod fdtree;
mod ftl;
mod genome;
#[cfg(feature = "cli")]
pub mod glyphs;
mod lat;
mod lat_buffered;
mod lat_memory;
mod mbtree;
mod mbtree_fig16_17;
mod mbtree_fig7_14;
pub mod measured_costs;
mod memory_line;
pub mod output;
pub mod papers;
pub mod partial;
#[cfg(feature = "cli")]
pub mod plot;
mod run_params;
#[cfg(feature = "cli")]
pub mod scatter;
pub mod shard;
mod ssd;
pub mod summary;
pub mod sweep;
pub mod totals;

use std::collections::BTreeMap;

pub use defs::{experiments, opt_in_experiments, summary_order};
pub use sweep::{run_sweep, run_sweep_each, RunOutcome, SweepRun};

/// Parameters of one run: `key → value`. Keys an index run understands:
/// `index`, `device`, `memory`, `workload`, `ops`, `preload`, and prefixed
/// `set.K` (index), `device.K` (device) and `workload.K` (workload)
/// overrides; an experiment's own runner may define others.
pub type Params = BTreeMap<String, String>;

/// Metrics of one run, by name.
pub type Metrics = BTreeMap<String, f64>;

/// How a run is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// Build a device and an index, run a workload, report.
    Index,
    /// Uniform random page overwrites straight on the FTL (write
    /// amplification studies).
    FtlOverwrite,
    /// Sequential or random requests straight on a device (`ssd-table1`).
    DeviceBench,
}

/// The parameters an axis value stands for: `(x, quick) → [(key, value)]`.
pub type ExpandAxis = fn(&str, bool) -> Vec<(&'static str, String)>;

/// The swept parameter.
#[derive(Clone, Debug)]
pub struct Axis {
    pub param: &'static str,
    pub label: &'static str,
    pub full: Vec<&'static str>,
    pub quick: Vec<&'static str>,
    /// More parameters an axis value stands for (a scenario such as
    /// "maintenance 50/50, rs = 1"), at full (`false`) or quick scale.
    pub expand: Option<ExpandAxis>,
}

/// A series parameter whose value is this takes the axis value: a
/// parameter only some series accept, tied to the axis (BFTL's reservation
/// buffer of F entries where the axis is the fanout F).
pub const AXIS_VALUE: &str = "{x}";

/// One line (or bar group) of the figure.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: &'static str,
    pub params: Vec<(&'static str, &'static str)>,
}

/// One plotted metric: a panel of the figure.
#[derive(Clone, Debug)]
pub struct Panel {
    pub metric: &'static str,
    pub label: &'static str,
    /// A reference metric (an analytic model) drawn as one more line, from
    /// the first series' runs, named by the second field.
    pub reference: Option<(&'static str, &'static str)>,
}

impl Panel {
    /// A panel of `metric` with no reference line.
    pub const fn of(metric: &'static str, label: &'static str) -> Panel {
        Panel {
            metric,
            label,
            reference: None,
        }
    }
}

/// How to find a measured number in the results.
#[derive(Clone, Debug)]
pub enum Measure {
    /// The metric of the run of `series` at axis value `x`.
    Cell {
        series: &'static str,
        x: &'static str,
        metric: &'static str,
    },
    /// The axis value (as a number) at which `metric` of `series` is lowest.
    ArgMin {
        series: &'static str,
        metric: &'static str,
    },
    /// `metric` of series `a` over the same metric of series `b`, at `x`.
    CellRatio {
        a: &'static str,
        b: &'static str,
        x: &'static str,
        metric: &'static str,
    },
    /// The rank of `series` at `x` by `metric` (1 = the lowest) among the
    /// series named in `among` (every series when empty), for orderings a
    /// paper states without numbers.
    Rank {
        series: &'static str,
        x: &'static str,
        metric: &'static str,
        among: &'static [&'static str],
    },
    /// The mean over the sweep of `metric` of series `a` over the same
    /// metric of series `b` at the same x.
    MeanCellRatio {
        a: &'static str,
        b: &'static str,
        metric: &'static str,
    },
    /// The mean over the sweep of `metric` of `series`.
    Mean {
        series: &'static str,
        metric: &'static str,
    },
    /// The mean over the sweep of `metric` / reference `metric` of `series`.
    MeanRatio {
        series: &'static str,
        metric: &'static str,
        reference: &'static str,
    },
    /// What series `b` saves against series `a` at `x` over what it costs
    /// more, summed over `metrics` (page counts, all weighted alike):
    /// Σ max(a − b, 0) / Σ max(b − a, 0).
    GainOverLoss {
        a: &'static str,
        b: &'static str,
        x: &'static str,
        metrics: &'static [&'static str],
    },
    /// `metric` of `series` at `x_a` over the same at `x_b`: how one system
    /// moves along the axis.
    AcrossX {
        series: &'static str,
        x_a: &'static str,
        x_b: &'static str,
        metric: &'static str,
    },
    /// How much less `metric` of `series` drops from `x1` to `x2` than from
    /// `x0` to `x1`: (m(x1) − m(x2)) / (m(x0) − m(x1)); below 1 when the
    /// curve flattens.
    DropRatio {
        series: &'static str,
        x0: &'static str,
        x1: &'static str,
        x2: &'static str,
        metric: &'static str,
    },
    /// What cumulative `metric` of `series` gains from `x_from` to `x_to`
    /// (a phase's share of a workload run in prefixes).
    Segment {
        series: &'static str,
        x_from: &'static str,
        x_to: &'static str,
        metric: &'static str,
    },
    /// One measure over another (e.g. a ratio at rs = 1 over the same ratio
    /// at rs = 0: "more significant when").
    Quotient(Box<Measure>, Box<Measure>),
    /// A ratio the paper's text says is below 1 without giving its value
    /// (a direction claim only; state an "above" claim with the ratio
    /// inverted).
    Below(Box<Measure>),
    /// One claim checked at several axis points: `inner` with its axis
    /// value replaced by each of `xs` (`Measure::at`). One row: its
    /// direction holds where it holds at every point, it is within where
    /// every point is, and the row lists the points where it misses.
    Each {
        xs: &'static [&'static str],
        inner: Box<Measure>,
    },
}

/// `a`'s `metric` at `x` over `b`'s (a relative claim's measure).
pub(super) fn cell_ratio(
    a: &'static str,
    b: &'static str,
    x: &'static str,
    metric: &'static str,
) -> Measure {
    Measure::CellRatio { a, b, x, metric }
}

/// `m` below 1 (a direction claim with no published number).
pub(super) fn below_one(m: Measure) -> Measure {
    Measure::Below(Box::new(m))
}

/// A direction claim of a paper's text: `m` is below 1.
pub(super) fn below(name: &'static str, source: &'static str, m: Measure) -> Published {
    Published {
        name,
        source,
        value: 1.0,
        unit: "",
        measured: Measure::Below(Box::new(m)),
        kind: RowKind::Claim,
    }
}

/// `metric` of the run of `series` at `x`.
fn cell_of(results: &[RunOutcome], series: &str, x: &str, metric: &str) -> Option<f64> {
    results
        .iter()
        .find(|r| r.run.series == series && r.run.x == x)
        .and_then(|r| r.metrics.get(metric).copied())
}

impl Measure {
    /// The same measure at axis value `x`: every single-point measure reads
    /// `x` instead of its own point; sweep-wide and two-point measures are
    /// unchanged.
    pub fn at(&self, x: &'static str) -> Measure {
        let mut m = self.clone();
        match &mut m {
            Measure::Cell { x: at, .. }
            | Measure::CellRatio { x: at, .. }
            | Measure::Rank { x: at, .. }
            | Measure::GainOverLoss { x: at, .. } => *at = x,
            Measure::Below(inner) => **inner = inner.at(x),
            Measure::Quotient(a, b) => {
                **a = a.at(x);
                **b = b.at(x);
            }
            Measure::Each { inner, .. } => **inner = inner.at(x),
            Measure::ArgMin { .. }
            | Measure::MeanCellRatio { .. }
            | Measure::Mean { .. }
            | Measure::MeanRatio { .. }
            | Measure::AcrossX { .. }
            | Measure::DropRatio { .. }
            | Measure::Segment { .. } => {}
        }
        m
    }

    /// The points a measure is checked at, each as its own measure: one for
    /// every measure but `Each`.
    pub fn points(&self) -> Vec<(Option<&'static str>, Measure)> {
        match self {
            Measure::Each { xs, inner } => xs.iter().map(|x| (Some(*x), inner.at(x))).collect(),
            m => vec![(None, m.clone())],
        }
    }

    /// The series the measure reads.
    pub fn series(&self) -> Vec<&'static str> {
        match self {
            Measure::Cell { series, .. }
            | Measure::ArgMin { series, .. }
            | Measure::Rank { series, .. }
            | Measure::Mean { series, .. }
            | Measure::MeanRatio { series, .. }
            | Measure::AcrossX { series, .. }
            | Measure::Segment { series, .. }
            | Measure::DropRatio { series, .. } => vec![series],
            Measure::CellRatio { a, b, .. }
            | Measure::MeanCellRatio { a, b, .. }
            | Measure::GainOverLoss { a, b, .. } => vec![a, b],
            Measure::Below(inner) | Measure::Each { inner, .. } => inner.series(),
            Measure::Quotient(a, b) => {
                let mut s = a.series();
                s.extend(b.series());
                s
            }
        }
    }
}

/// What a headline row checks: a paper's statement, or a run of ours that
/// changes a parameter the paper states or sets one it leaves open. The
/// totals at the top of RESULTS.md count claims; variants are counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A paper's statement, under the setup the paper states.
    Claim,
    /// A run with a changed or unstated parameter (a variant, or a
    /// sensitivity row over a parameter the paper leaves open).
    Variant,
}

impl RowKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::Claim => "claim",
            RowKind::Variant => "variant",
        }
    }
}

/// A number a paper published, and where our matching number is.
#[derive(Clone, Debug)]
pub struct Published {
    pub name: &'static str,
    pub source: &'static str,
    pub value: f64,
    pub unit: &'static str,
    pub measured: Measure,
    pub kind: RowKind,
}

impl Published {
    /// The same row as a variant (a changed or unstated parameter).
    pub fn variant(self) -> Published {
        Published {
            kind: RowKind::Variant,
            ..self
        }
    }
}

/// Figure style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    Lines,
    Bars,
}

/// A paper experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub id: &'static str,
    pub title: &'static str,
    /// Paper, section and figure/table.
    pub source: &'static str,
    pub paper_ran: &'static str,
    pub we_ran: &'static str,
    pub axis: Axis,
    pub series: Vec<Series>,
    /// Parameters of every run, at full scale.
    pub fixed: Vec<(&'static str, &'static str)>,
    /// Overrides of `fixed` at `--quick` scale.
    pub quick: Vec<(&'static str, &'static str)>,
    pub panels: Vec<Panel>,
    pub chart: Chart,
    pub published: Vec<Published>,
    /// Where and why measured and published differ (for RESULTS.md).
    pub notes: &'static str,
    pub kind: RunKind,
    /// Axis values (full, quick) for named series that sweep their own
    /// range (a scheme whose nodes go larger than the others').
    pub axis_for: Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)>,
}

impl Experiment {
    /// Every run of the sweep, series-major, then in axis order.
    pub fn runs(&self, quick: bool) -> Vec<SweepRun> {
        let xs = if quick {
            &self.axis.quick
        } else {
            &self.axis.full
        };
        let mut runs = Vec::new();
        for s in &self.series {
            let xs = match self.axis_for.iter().find(|a| a.0 == s.name) {
                Some((_, full, small)) => {
                    if quick {
                        small
                    } else {
                        full
                    }
                }
                None => xs,
            };
            for x in xs {
                let mut p = Params::new();
                for (k, v) in &self.fixed {
                    p.insert(k.to_string(), v.to_string());
                }
                if quick {
                    for (k, v) in &self.quick {
                        p.insert(k.to_string(), v.to_string());
                    }
                }
                for (k, v) in &s.params {
                    p.insert(k.to_string(), v.to_string());
                }
                p.insert(self.axis.param.to_string(), x.to_string());
                for (k, v) in &s.params {
                    if *v == AXIS_VALUE {
                        p.insert(k.to_string(), x.to_string());
                    }
                }
                if let Some(expand) = self.axis.expand {
                    for (k, v) in expand(x, quick) {
                        p.insert(k.to_string(), v);
                    }
                }
                // The seed hashes only what shapes the workload, so every
                // series at a point replays the same operations (common
                // random numbers): a ratio of two series compares the
                // indexes, not two draws of the workload. Where the axis is
                // the operation count, its runs are prefixes of one stream
                // (a phase is the difference of two of them), so `ops`
                // stays out of the seed too.
                let mut q = p.clone();
                q.retain(|k, _| shapes_workload(k));
                if self.axis.param == "ops" {
                    q.remove("ops");
                }
                let seed = sweep::stable_seed(seed_scope(self.id), &q);
                runs.push(SweepRun {
                    series: s.name.to_string(),
                    x: x.to_string(),
                    params: p,
                    seed,
                });
            }
        }
        runs
    }

    /// An input file the runs read that is not on this machine (the
    /// genome of the DNA workload), with how to get it.
    pub fn missing_input(&self) -> Option<String> {
        self.runs(true)
            .iter()
            .find_map(|r| missing_dna_input(r.params.get("workload")?))
    }

    /// The measured value a [`Measure`] names, if the results hold it.
    pub fn measure(&self, m: &Measure, results: &[RunOutcome]) -> Option<f64> {
        match m {
            Measure::Below(inner) => self.measure(inner, results),
            // The row's measured number is its first point's; the verdict
            // weighs every point (output::comparisons).
            Measure::Each { xs, inner } => self.measure(&inner.at(xs.first()?), results),
            Measure::Quotient(a, b) => {
                let b = self.measure(b, results)?;
                (b != 0.0)
                    .then(|| self.measure(a, results))
                    .flatten()
                    .map(|a| a / b)
            }
            Measure::AcrossX {
                series,
                x_a,
                x_b,
                metric,
            } => {
                let cell = |x: &str| cell_of(results, series, x, metric);
                let b = cell(x_b)?;
                (b != 0.0).then(|| cell(x_a).map(|a| a / b)).flatten()
            }
            Measure::Segment {
                series,
                x_from,
                x_to,
                metric,
            } => {
                let cell = |x: &str| cell_of(results, series, x, metric);
                Some(cell(x_to)? - cell(x_from)?)
            }
            Measure::DropRatio {
                series,
                x0,
                x1,
                x2,
                metric,
            } => {
                let cell = |x: &str| cell_of(results, series, x, metric);
                let (m0, m1, m2) = (cell(x0)?, cell(x1)?, cell(x2)?);
                (m0 != m1).then(|| (m1 - m2) / (m0 - m1))
            }
            Measure::Cell { series, x, metric } => results
                .iter()
                .find(|r| r.run.series == *series && r.run.x == *x)
                .and_then(|r| r.metrics.get(*metric).copied()),
            Measure::CellRatio { a, b, x, metric } => {
                let cell = |series: &str| {
                    results
                        .iter()
                        .find(|r| r.run.series == series && r.run.x == *x)
                        .and_then(|r| r.metrics.get(*metric).copied())
                };
                let (num, den) = (cell(a)?, cell(b)?);
                (den != 0.0).then(|| num / den)
            }
            Measure::MeanCellRatio { a, b, metric } => {
                let ratios: Vec<f64> = results
                    .iter()
                    .filter(|r| r.run.series == *a)
                    .filter_map(|ra| {
                        let rb = results
                            .iter()
                            .find(|r| r.run.series == *b && r.run.x == ra.run.x)?;
                        let den = *rb.metrics.get(*metric)?;
                        (den != 0.0).then(|| ra.metrics.get(*metric).map(|n| n / den))?
                    })
                    .collect();
                (!ratios.is_empty()).then(|| ratios.iter().sum::<f64>() / ratios.len() as f64)
            }
            Measure::Mean { series, metric } => {
                let v: Vec<f64> = results
                    .iter()
                    .filter(|r| r.run.series == *series)
                    .filter_map(|r| r.metrics.get(*metric).copied())
                    .collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            }
            Measure::Rank {
                series,
                x,
                metric,
                among,
            } => {
                let at_x = |s: &str| {
                    results
                        .iter()
                        .find(|r| r.run.series == s && r.run.x == *x)
                        .and_then(|r| r.metrics.get(*metric).copied())
                };
                let mine = at_x(series)?;
                let below = self
                    .series
                    .iter()
                    .filter(|s| among.is_empty() || among.contains(&s.name))
                    .filter_map(|s| at_x(s.name))
                    .filter(|v| *v < mine)
                    .count();
                Some(1.0 + below as f64)
            }
            Measure::ArgMin { series, metric } => results
                .iter()
                .filter(|r| r.run.series == *series)
                .filter_map(|r| {
                    Some((
                        r.metrics.get(*metric).copied()?,
                        r.run.x.parse::<f64>().ok()?,
                    ))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, x)| x),
            Measure::GainOverLoss { a, b, x, metrics } => {
                let cell = |series: &str| {
                    results
                        .iter()
                        .find(|r| r.run.series == series && r.run.x == *x)
                };
                let (ra, rb) = (cell(a)?, cell(b)?);
                let (mut gain, mut loss) = (0.0, 0.0);
                for metric in metrics.iter() {
                    let d = ra.metrics.get(*metric)? - rb.metrics.get(*metric)?;
                    if d > 0.0 {
                        gain += d;
                    } else {
                        loss -= d;
                    }
                }
                (loss > 0.0).then(|| gain / loss)
            }
            Measure::MeanRatio {
                series,
                metric,
                reference,
            } => {
                let ratios: Vec<f64> = results
                    .iter()
                    .filter(|r| r.run.series == *series)
                    .filter_map(|r| Some(r.metrics.get(*metric)? / r.metrics.get(*reference)?))
                    .collect();
                (!ratios.is_empty()).then(|| ratios.iter().sum::<f64>() / ratios.len() as f64)
            }
        }
    }
}

/// Whether run parameter `key` shapes the operations a run replays (the
/// workload, its size, a replica's draw) rather than the index, memory or
/// device that replays them: only these go into a run's seed.
fn shapes_workload(key: &str) -> bool {
    key == "workload"
        || key.starts_with("workload.")
        || matches!(key, "preload" | "ops" | "replica")
}

/// The id an experiment's seeds derive from: its own, or that of the
/// experiment whose runs it shares, so that a claim two experiments quote
/// is measured by one run (the same parameters give the same seed, and so
/// the same numbers, in both).
pub fn seed_scope(id: &'static str) -> &'static str {
    match id {
        // Table 2's energies are Figs. 10's and 11's runs.
        "bftl-table2" | "bftl-fig10" => "bftl-fig11",
        // Beyond fig3c's sizes, the same runs.
        "fdtree-fig3c-15e7" | "fdtree-fig3c-3e8" | "fdtree-fig3c-1e9" => "fdtree-fig3c",
        other => other,
    }
}

/// Looks an experiment up by id, opt-in ones included; the error lists
/// the known ones.
pub fn find(id: &str) -> Result<Experiment, String> {
    experiments()
        .into_iter()
        .chain(defs::opt_in_experiments())
        .find(|e| e.id == id)
        .ok_or_else(|| {
            let ids: Vec<&str> = defs::summary_order();
            format!("unknown experiment `{id}`; known: {}, all", ids.join(", "))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(series: &str, x: &str, metrics: &[(&str, f64)]) -> RunOutcome {
        RunOutcome {
            run: SweepRun {
                series: series.into(),
                x: x.into(),
                params: Params::new(),
                seed: 0,
            },
            metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            report: serde_json::Value::Null,
            seconds: 0.0,
        }
    }

    /// Common random numbers: the series at one point of a sweep replay
    /// the same operations (one seed), whatever index, memory or device
    /// each runs; a replica, another workload or another point is another
    /// draw.
    #[test]
    fn series_at_one_point_share_their_seed() {
        let e = find("lat-fig10b").unwrap();
        let runs = e.runs(false);
        let seed = |series: &str, x: &str| {
            runs.iter()
                .find(|r| r.series == series && r.x == x)
                .map(|r| r.seed)
                .unwrap_or_else(|| panic!("no run of {series} at {x}"))
        };
        let at = |series: &str| -> Vec<&str> {
            let xs = runs.iter().filter(|r| r.series == series);
            xs.map(|r| r.x.as_str()).collect()
        };
        let smaller = at("B+-tree, 32 KiB");
        assert!(!smaller.is_empty());
        for x in smaller {
            assert_eq!(seed("B+-tree, 32 KiB", x), seed("B+-tree", x));
            assert_eq!(seed("Buffered-B+ tree", x), seed("B+-tree", x));
        }
        let replicated = at("B+-tree, seed 2");
        assert!(!replicated.is_empty());
        for x in replicated {
            assert_ne!(seed("B+-tree, seed 2", x), seed("B+-tree", x));
            assert_eq!(
                seed("B+-tree, seed 2", x),
                seed("Buffered-B+ tree, seed 2", x)
            );
        }
        let xs = at("B+-tree");
        assert_ne!(seed("B+-tree", xs[0]), seed("B+-tree", xs[1]));
    }

    #[test]
    fn gain_over_loss_sums_savings_over_extra_costs() {
        let e = find("mbtree-fig16-17").unwrap();
        const METRICS: &[&str] = &["reads", "writes", "search"];
        let results = vec![
            outcome(
                "a",
                "1",
                &[("reads", 100.0), ("writes", 50.0), ("search", 10.0)],
            ),
            // Saves 40 reads and 20 writes, costs 20 more search reads.
            outcome(
                "b",
                "1",
                &[("reads", 60.0), ("writes", 30.0), ("search", 30.0)],
            ),
            // Saves everything: no loss, no ratio.
            outcome(
                "a",
                "2",
                &[("reads", 1.0), ("writes", 1.0), ("search", 1.0)],
            ),
            outcome(
                "b",
                "2",
                &[("reads", 0.0), ("writes", 0.0), ("search", 0.0)],
            ),
        ];
        let m = |x| Measure::GainOverLoss {
            a: "a",
            b: "b",
            x,
            metrics: METRICS,
        };
        assert_eq!(e.measure(&m("1"), &results), Some(3.0));
        assert_eq!(e.measure(&m("2"), &results), None);
        assert_eq!(e.measure(&m("3"), &results), None);
    }
}
