//! What `flashix reproduce` writes for an experiment: `ID.csv` (one row per
//! run: every parameter, every metric), `ID.json` (every run's full report),
//! `ID.png` / `ID.svg` (the figure, with the `cli` feature) and `ID.md`
//! (what the paper ran, what we ran, the figure, and published beside
//! measured with their ratio); `summary` puts several of them together in
//! `RESULTS.md`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

#[cfg(feature = "cli")]
use super::plot;
use super::{Experiment, Measure, RowKind, RunOutcome};

/// What a headline compares, for its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// One system against another (a ratio, or gain over loss): the
    /// direction is which side of 1 it falls.
    Relative,
    /// A rank among systems: it holds when the ranks are equal.
    Rank,
    /// An absolute figure or an optimum: no direction, only the ratio.
    Absolute,
    /// A ratio the text says is below 1, with no number: direction only.
    Below,
}

/// How far a measured number may be from the published one and still be
/// "within": a factor of 1.5 either way.
pub const WITHIN: f64 = 1.5;

/// One row of the published-versus-measured table.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub name: String,
    pub source: String,
    pub published: f64,
    pub unit: String,
    /// In the paper's accounting (no final flush), which the verdict
    /// judges.
    pub measured: Option<f64>,
    /// In the durable accounting (every flush charged), where it differs.
    pub durable: Option<f64>,
    pub claim: Claim,
    /// Why nothing was measured, when `measured` is `None`.
    pub unmeasured: Option<String>,
    /// A paper's statement or a variant of ours.
    pub kind: RowKind,
    /// For one claim checked at several axis points (`Measure::Each`):
    /// each point's own row, whose verdicts the claim's verdict gathers.
    pub points: Vec<(String, Comparison)>,
}

impl Comparison {
    /// A row of one number (no unit, no durable number, no points), as a
    /// made-up table or a caller's own row starts.
    pub fn new(
        name: &str,
        source: &str,
        published: f64,
        measured: Option<f64>,
        claim: Claim,
        kind: RowKind,
    ) -> Comparison {
        Comparison {
            name: name.into(),
            source: source.into(),
            published,
            unit: String::new(),
            measured,
            durable: None,
            claim,
            unmeasured: None,
            kind,
            points: Vec::new(),
        }
    }

    pub fn ratio(&self) -> Option<f64> {
        self.measured
            .filter(|_| self.published != 0.0)
            .map(|m| m / self.published)
    }

    /// Whether the measured number goes the published way: the same side
    /// of 1 for a relative claim, the same rank for a rank; `None` where
    /// the claim has no direction (or sits at 1) or nothing was measured.
    pub fn direction_holds(&self) -> Option<bool> {
        if !self.points.is_empty() {
            return all_of(self.points.iter().map(|(_, p)| p.direction_holds()));
        }
        let m = self.measured?;
        match self.claim {
            Claim::Relative if self.published != 1.0 && m != 1.0 => {
                Some((self.published < 1.0) == (m < 1.0))
            }
            Claim::Rank => Some(m == self.published),
            Claim::Below => Some(m < 1.0),
            _ => None,
        }
    }

    /// Whether measured / published lies within [1/1.5, 1.5]; `None` for a
    /// rank (compared as ranks) or when nothing was measured.
    pub fn within(&self) -> Option<bool> {
        if matches!(self.claim, Claim::Rank | Claim::Below) {
            return None;
        }
        if !self.points.is_empty() {
            return all_of(self.points.iter().map(|(_, p)| p.within()));
        }
        self.ratio()
            .map(|r| r > 0.0 && (1.0 / WITHIN..=WITHIN).contains(&r))
    }
}

/// A claim checked at several points holds where every point holds and
/// misses where any misses; points with no verdict are left out, and no
/// point with one leaves the claim with none.
fn all_of(verdicts: impl Iterator<Item = Option<bool>>) -> Option<bool> {
    verdicts.flatten().reduce(|a, b| a && b)
}

/// The kind of claim a measure checks.
fn claim_of(m: &Measure) -> Claim {
    match m {
        Measure::Each { inner, .. } => claim_of(inner),
        Measure::CellRatio { .. }
        | Measure::MeanCellRatio { .. }
        | Measure::MeanRatio { .. }
        | Measure::GainOverLoss { .. }
        | Measure::AcrossX { .. }
        | Measure::DropRatio { .. }
        | Measure::Quotient(..) => Claim::Relative,
        Measure::Rank { .. } => Claim::Rank,
        Measure::Below(_) => Claim::Below,
        Measure::Cell { .. }
        | Measure::ArgMin { .. }
        | Measure::Mean { .. }
        | Measure::Segment { .. } => Claim::Absolute,
    }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "—",
    }
}

/// `results` seen in one accounting: every metric `X` for which a run has
/// `PREFIX.X` takes that value.
fn in_accounting(results: &[RunOutcome], prefix: &str) -> Vec<RunOutcome> {
    results
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let overrides: Vec<(String, f64)> = r
                .metrics
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_string(), *v)))
                .collect();
            r.metrics.extend(overrides);
            r
        })
        .collect()
}

/// Published numbers beside measured ones: measured in the paper's
/// accounting (the `paper.` metrics: no `flush` row), which the verdict
/// judges, with the durable accounting (totals as run, `durable.` metrics
/// for the write operations: every flush charged) beside it where the two
/// differ.
pub fn comparisons(exp: &Experiment, results: &[RunOutcome]) -> Vec<Comparison> {
    let paper = in_accounting(results, "paper.");
    let durable = in_accounting(results, "durable.");
    exp.published
        .iter()
        .map(|p| {
            let row = |m: &Measure| {
                let measured = exp.measure(m, &paper);
                let durable = exp
                    .measure(m, &durable)
                    .filter(|d| measured.is_none_or(|m| (d - m).abs() > 1e-9 * m.abs().max(1e-12)));
                Comparison {
                    name: p.name.to_string(),
                    source: p.source.to_string(),
                    published: p.value,
                    unit: p.unit.to_string(),
                    measured,
                    durable,
                    claim: claim_of(m),
                    unmeasured: measured.is_none().then(|| why_unmeasured(exp, m, &paper)),
                    kind: p.kind,
                    points: Vec::new(),
                }
            };
            let mut c = row(&p.measured);
            if matches!(p.measured, Measure::Each { .. }) {
                c.points = p
                    .measured
                    .points()
                    .into_iter()
                    .map(|(x, m)| (x.unwrap_or_default().to_string(), row(&m)))
                    .collect();
            }
            c
        })
        .collect()
}

/// Why `m` gives no number on `results`: a point it reads that no run
/// filled (one the `--quick` sweep leaves out, most often), a metric no run
/// reports, or a zero to divide by.
pub fn why_unmeasured(exp: &Experiment, m: &Measure, results: &[RunOutcome]) -> String {
    let cell = |series: &str, x: &str, metric: &str| match results
        .iter()
        .find(|r| r.run.series == series && r.run.x == x)
    {
        None => Some(not_run(exp, series, Some(x))),
        Some(r) if !r.metrics.contains_key(metric) => {
            Some(format!("the {series} run at {x} reports no {metric}"))
        }
        Some(_) => None,
    };
    let cells = |series: &[&str], xs: &[&str], metrics: &[&str]| {
        series.iter().find_map(|s| {
            xs.iter()
                .find_map(|x| metrics.iter().find_map(|m| cell(s, x, m)))
        })
    };
    let sweep = |series: &[&str], metric: &str| {
        series.iter().find_map(|s| {
            let runs: Vec<&RunOutcome> = results.iter().filter(|r| r.run.series == *s).collect();
            if runs.is_empty() {
                Some(not_run(exp, s, None))
            } else if !runs.iter().any(|r| r.metrics.contains_key(metric)) {
                Some(format!("no {s} run reports {metric}"))
            } else {
                None
            }
        })
    };
    let zero =
        |series: &str, metric: &str, at: &str| format!("{series} has {metric} 0 {at}: no ratio");
    match m {
        Measure::Below(inner) => why_unmeasured(exp, inner, results),
        Measure::Each { xs, inner } => match xs.first() {
            Some(x) => why_unmeasured(exp, &inner.at(x), results),
            None => "no point to check".into(),
        },
        Measure::Quotient(a, b) => match (exp.measure(a, results), exp.measure(b, results)) {
            (None, _) => why_unmeasured(exp, a, results),
            (_, None) => why_unmeasured(exp, b, results),
            _ => "the measure it is divided by is 0".into(),
        },
        Measure::Cell { series, x, metric }
        | Measure::Rank {
            series, x, metric, ..
        } => cell(series, x, metric).unwrap_or_else(|| "no number".into()),
        Measure::CellRatio { a, b, x, metric } => {
            cells(&[a, b], &[x], &[metric]).unwrap_or_else(|| zero(b, metric, &format!("at {x}")))
        }
        Measure::AcrossX {
            series,
            x_a,
            x_b,
            metric,
        } => cells(&[series], &[x_a, x_b], &[metric])
            .unwrap_or_else(|| zero(series, metric, &format!("at {x_b}"))),
        Measure::Segment {
            series,
            x_from,
            x_to,
            metric,
        } => cells(&[series], &[x_from, x_to], &[metric]).unwrap_or_else(|| "no number".into()),
        Measure::DropRatio {
            series,
            x0,
            x1,
            x2,
            metric,
        } => cells(&[series], &[x0, x1, x2], &[metric]).unwrap_or_else(|| {
            format!("{series}'s {metric} does not drop from {x0} to {x1}: no drop to compare")
        }),
        Measure::GainOverLoss { a, b, x, metrics } => cells(&[a, b], &[x], metrics)
            .unwrap_or_else(|| format!("{b} costs no more than {a} at {x}: no loss to weigh")),
        Measure::Mean { series, metric }
        | Measure::MeanRatio { series, metric, .. }
        | Measure::ArgMin { series, metric } => {
            sweep(&[series], metric).unwrap_or_else(|| "no number".into())
        }
        Measure::MeanCellRatio { a, b, metric } => {
            sweep(&[a, b], metric).unwrap_or_else(|| zero(b, metric, "wherever both ran"))
        }
    }
}

/// Why `series` has no run (at `x`, if given) among the results: the
/// `--quick` sweep leaves it out, or no run was made.
fn not_run(exp: &Experiment, series: &str, x: Option<&str>) -> String {
    let has = |quick: bool| {
        exp.runs(quick)
            .iter()
            .any(|r| r.series == series && x.is_none_or(|x| r.x == x))
    };
    let at = x.map_or_else(String::new, |x| format!(" at {} {x}", exp.axis.label));
    if has(false) && !has(true) {
        format!("not run at --quick scale: no {series} run{at}")
    } else {
        format!("no {series} run{at}")
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.6}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

fn table_num(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// `ID.csv`: series, x, seed, every parameter, every metric.
pub fn csv(results: &[RunOutcome]) -> String {
    let params: BTreeSet<&String> = results.iter().flat_map(|r| r.run.params.keys()).collect();
    let metrics: BTreeSet<&String> = results.iter().flat_map(|r| r.metrics.keys()).collect();
    let mut out = String::from("series,x,seed");
    for k in params.iter().chain(metrics.iter()) {
        out.push(',');
        out.push_str(&csv_field(k));
    }
    out.push('\n');
    for r in results {
        let _ = write!(
            out,
            "{},{},{}",
            csv_field(&r.run.series),
            csv_field(&r.run.x),
            r.run.seed
        );
        for k in &params {
            out.push(',');
            out.push_str(&csv_field(
                r.run.params.get(*k).map(String::as_str).unwrap_or(""),
            ));
        }
        for k in &metrics {
            out.push(',');
            if let Some(v) = r.metrics.get(*k) {
                out.push_str(&fmt_num(*v));
            }
        }
        out.push('\n');
    }
    out
}

/// What a report shows of the measurements: the published-vs-measured
/// table, or, for an experiment that reproduces no published number, the
/// first panel's metric for every series and axis value.
pub(super) fn results_table(exp: &Experiment, results: &[RunOutcome]) -> String {
    if !exp.published.is_empty() {
        return comparison_table(&comparisons(exp, results));
    }
    let Some(panel) = exp.panels.first() else {
        return String::new();
    };
    let mut xs: Vec<&str> = Vec::new();
    for r in results {
        if !xs.contains(&r.run.x.as_str()) {
            xs.push(&r.run.x);
        }
    }
    let mut out = format!("| {} \\ {} |", panel.label, exp.axis.label);
    for x in &xs {
        let _ = write!(out, " {x} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(xs.len()));
    out.push('\n');
    for s in &exp.series {
        let _ = write!(out, "| {} |", s.name);
        for x in &xs {
            let v = results
                .iter()
                .find(|r| r.run.series == s.name && r.run.x == *x)
                .and_then(|r| r.metrics.get(panel.metric));
            let _ = write!(out, " {} |", v.map_or("—".into(), |&v| table_num(v)));
        }
        out.push('\n');
    }
    out
}

/// The published-vs-measured table in Markdown: one row a headline, its
/// kind (`claim` or `variant`) right after its name. A claim checked at
/// several points shows the range of its numbers and names, in its verdict
/// columns, the points where it misses or has no number; a direction that
/// turns on a near tie says so. [`super::totals`] reads these columns back.
pub fn comparison_table(rows: &[Comparison]) -> String {
    let mut out = String::from(
        "| headline | kind | source | published | measured | durable | measured / published | direction holds | within 1.5× |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in rows {
        let published = match c.claim {
            Claim::Below => "< 1".to_string(),
            _ => table_num(c.published),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} {} | {} | {} | {} | {} | {} |",
            table_cell(&c.name),
            c.kind.as_str(),
            table_cell(&c.source),
            published,
            c.unit,
            table_cell(&c.measured_cell()),
            c.durable_cell(),
            c.ratio_cell(),
            c.verdict_cell(Comparison::direction_holds, true),
            c.verdict_cell(Comparison::within, false),
        );
    }
    out
}

/// `s` as the text of one table cell: a `|` in it would end the cell.
fn table_cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The lowest and the highest of `values`.
fn min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| {
        Some(acc.map_or((v, v), |(lo, hi): (f64, f64)| (lo.min(v), hi.max(v))))
    })
}

/// `lo–hi` of `values` as `show` prints them, or one number where the two
/// print alike.
fn range_text(values: impl Iterator<Item = f64>, show: fn(f64) -> String) -> Option<String> {
    let (lo, hi) = min_max(values)?;
    let (lo, hi) = (show(lo), show(hi));
    Some(if lo == hi { lo } else { format!("{lo}–{hi}") })
}

/// How close to 1 a measured ratio must be for a direction verdict to turn
/// on it: a near tie, 0.98–1.02.
pub const NEAR_TIE: f64 = 0.02;

impl Comparison {
    /// The rows the verdicts weigh: each point of a claim checked at
    /// several, or the row itself.
    fn checked(&self) -> Vec<(Option<&str>, &Comparison)> {
        if self.points.is_empty() {
            vec![(None, self)]
        } else {
            self.points
                .iter()
                .map(|(x, p)| (Some(x.as_str()), p))
                .collect()
        }
    }

    /// The lowest and highest measured number over the points checked.
    pub fn measured_range(&self) -> Option<(f64, f64)> {
        min_max(self.checked().iter().filter_map(|(_, p)| p.measured))
    }

    /// Whether the claim's direction is a side of 1 (a relative claim with
    /// a published side, or a "below 1"), so that a number near 1 decides it.
    fn direction_is_a_side_of_one(&self) -> bool {
        match self.claim {
            Claim::Relative => self.published != 1.0,
            Claim::Below => true,
            Claim::Rank | Claim::Absolute => false,
        }
    }

    /// The measured number, if its direction verdict turns on a near tie
    /// (within [`NEAR_TIE`] of 1).
    pub fn near_tie(&self) -> Option<f64> {
        self.measured
            .filter(|m| self.direction_is_a_side_of_one() && (m - 1.0).abs() <= NEAR_TIE + 1e-12)
    }

    /// The measured column: the number (the range over the points of a
    /// claim checked at several), or why there is none.
    fn measured_cell(&self) -> String {
        let unit = |v: String| format!("{v} {}", self.unit).trim_end().to_string();
        let values = self.checked().into_iter().filter_map(|(_, p)| p.measured);
        match range_text(values, table_num) {
            Some(v) => unit(v),
            None => {
                // The first point's reason (the row's own for one point).
                let why = self
                    .checked()
                    .into_iter()
                    .find_map(|(_, p)| p.unmeasured.clone());
                why.map_or_else(|| "—".into(), |why| format!("— ({why})"))
            }
        }
    }

    /// The durable column: "=" where no flush moved a number.
    fn durable_cell(&self) -> String {
        let checked = self.checked();
        if checked.iter().all(|(_, p)| p.durable.is_none()) {
            return "=".into();
        }
        let values = checked.iter().filter_map(|(_, p)| p.durable.or(p.measured));
        range_text(values, table_num).unwrap_or_else(|| "=".into())
    }

    /// The measured / published column: ranks and "below 1" claims have
    /// none (ranks compare as ranks; a direction claim has no number).
    fn ratio_cell(&self) -> String {
        match self.claim {
            Claim::Rank | Claim::Below => "—".into(),
            _ => {
                let ratios = self.checked().into_iter().filter_map(|(_, p)| p.ratio());
                range_text(ratios, |r| format!("{r:.2}")).unwrap_or_else(|| "—".into())
            }
        }
    }

    /// A verdict column (`verdict` is `direction_holds` or `within`): yes,
    /// **no** or —; for a claim checked at several points, the points where
    /// it misses and those with no number, and for a direction the near
    /// ties it turns on.
    fn verdict_cell(&self, verdict: fn(&Comparison) -> Option<bool>, direction: bool) -> String {
        let head = yes_no(verdict(self));
        let mut notes: Vec<String> = Vec::new();
        let checked = self.checked();
        let has_verdict = checked.iter().any(|(_, p)| verdict(p).is_some());
        if !self.points.is_empty() && has_verdict {
            let at = |keep: &dyn Fn(&Comparison) -> bool| -> Vec<&str> {
                checked
                    .iter()
                    .filter(|(_, p)| keep(p))
                    .filter_map(|(x, _)| *x)
                    .collect()
            };
            let n = checked.len();
            let misses = at(&|p| verdict(p) == Some(false));
            let missing = at(&|p| p.measured.is_none());
            let silent = at(&|p| p.measured.is_some() && verdict(p).is_none());
            if !misses.is_empty() {
                notes.push(format!("at {} of {n} points", misses.join(", ")));
            } else {
                let held = at(&|p| verdict(p) == Some(true)).len();
                notes.push(if held == n {
                    format!("{n} points")
                } else {
                    format!("{held} of {n} points")
                });
            }
            if !missing.is_empty() {
                notes.push(format!("no number at {}", missing.join(", ")));
            }
            if !silent.is_empty() {
                notes.push(format!("no verdict at {}", silent.join(", ")));
            }
        }
        if direction {
            for (x, p) in &checked {
                if let Some(m) = p.near_tie() {
                    let at = x.map_or_else(String::new, |x| format!(" at {x}"));
                    notes.push(format!("near tie: {m:.3}{at}"));
                }
            }
        }
        if notes.is_empty() {
            head.to_string()
        } else {
            format!("{head} ({})", notes.join("; "))
        }
    }
}

/// Writes every output of `exp` under `dir/ID/`: CSV, JSON and the report
/// first, then the figure, which if it cannot be drawn is a warning on
/// stderr (`warning: could not draw FILE: REASON`), not an error; returns
/// the folder.
pub fn write_all(
    exp: &Experiment,
    results: &[RunOutcome],
    dir: &Path,
    quick: bool,
) -> Result<PathBuf, String> {
    let folder = dir.join(exp.id);
    fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let write = |name: String, text: String| {
        let p = folder.join(name);
        fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    write(format!("{}.csv", exp.id), csv(results))?;
    let json: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "series": r.run.series,
                "x": r.run.x,
                "seed": r.run.seed,
                "params": r.run.params,
                "metrics": r.metrics,
                "report": r.report,
            })
        })
        .collect();
    write(
        format!("{}.json", exp.id),
        serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?,
    )?;
    let mut md = String::new();
    let _ = writeln!(md, "# {}: {}\n", exp.id, exp.title);
    let _ = writeln!(md, "Source: {}.\n", exp.source);
    let _ = writeln!(md, "**What the paper ran.** {}\n", exp.paper_ran);
    let _ = writeln!(
        md,
        "**What we ran.** {}{}\n",
        exp.we_ran,
        if quick {
            " This is the --quick scale."
        } else {
            " This is the full scale."
        }
    );
    let _ = writeln!(md, "![{}]({}.png)\n", exp.id, exp.id);
    let heading = if exp.published.is_empty() {
        "Measured"
    } else {
        "Published vs measured"
    };
    let _ = writeln!(md, "## {heading}\n\n{}", results_table(exp, results));
    let _ = writeln!(md, "{}\n", exp.notes);
    let _ = writeln!(
        md,
        "Regenerate: `flashix reproduce {}{}`.",
        exp.id,
        if quick { " --quick" } else { "" }
    );
    write(format!("{}.md", exp.id), md)?;
    // Last, and never fatal: the data and the report are written whatever
    // the figure does, and in a build without the figures.
    #[cfg(feature = "cli")]
    {
        let data = plot::panels(exp, results);
        if let Err(e) = plot::write_figure(&folder.join(exp.id), exp.title, exp.axis.label, &data) {
            eprintln!("warning: could not draw {e}");
        }
    }
    #[cfg(not(feature = "cli"))]
    eprintln!(
        "warning: {}.png not drawn: figures need flashix's `cli` feature",
        exp.id
    );
    Ok(folder)
}

/// What `reproduce` did with one experiment.
#[derive(Debug)]
pub struct Ran {
    pub results: Vec<RunOutcome>,
    pub folder: PathBuf,
    /// Wall-clock seconds of its sweep, and the threads it ran on.
    pub seconds: f64,
    pub jobs: usize,
    pub quick: bool,
}

/// What `reproduce all` did with one experiment: its runs, or why it was
/// skipped (a missing input, with how to get it).
pub type Outcome = Result<Ran, String>;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(published: f64, measured: f64, claim: Claim) -> Comparison {
        Comparison::new("h", "s", published, Some(measured), claim, RowKind::Claim)
    }

    /// A headline with no number says why: a point the `--quick` sweep
    /// leaves out says so; one it runs (here: no run at all) is named.
    #[test]
    fn a_headline_not_measured_says_why() {
        let exp = super::super::find("asbtree-table4").unwrap();
        let rows = comparisons(&exp, &[]);
        assert!(rows
            .iter()
            .all(|c| c.measured.is_none() && c.unmeasured.is_some()));
        let why = |at: &str| {
            let row = rows.iter().find(|c| c.name.ends_with(at)).unwrap();
            row.unmeasured.clone().unwrap()
        };
        let left_out = why("BFTL / AS B-tree, time at 30/70");
        assert!(
            left_out.starts_with("not run at --quick scale: no ") && left_out.contains("30/70"),
            "{left_out}"
        );
        let quick_too = why("BFTL / AS B-tree, time at 10/90");
        assert!(
            quick_too.starts_with("no ") && quick_too.contains("10/90"),
            "{quick_too}"
        );
        let table = comparison_table(&rows);
        assert!(table.contains("— (not run at --quick scale: "), "{table}");
    }

    /// A figure that cannot be drawn (its PNG's path is a folder) costs no
    /// result: CSV, JSON and report are written and the call succeeds.
    #[test]
    fn a_figure_that_cannot_be_drawn_leaves_the_data() {
        let exp = super::super::find("ftl-wa").unwrap();
        let results: Vec<RunOutcome> = exp
            .runs(true)
            .into_iter()
            .map(|run| RunOutcome {
                run,
                metrics: exp
                    .panels
                    .iter()
                    .map(|p| (p.metric.to_string(), 1.0))
                    .collect(),
                report: serde_json::json!({}),
                seconds: 0.0,
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join(exp.id).join(format!("{}.png", exp.id));
        fs::create_dir_all(&png).unwrap();
        let folder = write_all(&exp, &results, dir.path(), true).unwrap();
        let read = |ext: &str| fs::read_to_string(folder.join(format!("{}.{ext}", exp.id)));
        assert_eq!(read("csv").unwrap(), csv(&results));
        let json: serde_json::Value = serde_json::from_str(&read("json").unwrap()).unwrap();
        assert_eq!(json.as_array().map(Vec::len), Some(results.len()));
        assert!(read("md")
            .unwrap()
            .contains("Regenerate: `flashix reproduce ftl-wa --quick`"));
        assert!(png.is_dir());
    }

    #[test]
    fn verdicts_read_direction_first_then_the_factor() {
        // BFTL writes a third of FTL's pages; we measure 0.68: the
        // direction holds, the factor (2.04) does not.
        let r = row(1.0 / 3.0, 0.68, Claim::Relative);
        assert_eq!((r.direction_holds(), r.within()), (Some(true), Some(false)));
        // A ratio on the wrong side of 1 misses its direction.
        let r = row(0.9, 1.05, Claim::Relative);
        assert_eq!((r.direction_holds(), r.within()), (Some(false), Some(true)));
        // Ranks compare as ranks, with no factor.
        let r = row(3.0, 4.0, Claim::Rank);
        assert_eq!((r.direction_holds(), r.within()), (Some(false), None));
        // An absolute figure has no direction.
        let r = row(11.65, 16.09, Claim::Absolute);
        assert_eq!((r.direction_holds(), r.within()), (None, Some(true)));
        let r = row(10.0, 15.1, Claim::Absolute);
        assert_eq!(r.within(), Some(false));
    }
}
