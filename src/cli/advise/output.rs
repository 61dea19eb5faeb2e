//! What `advise` prints and writes: the device and workload lines, the
//! front as a table within 120 columns, who was left out and why, the
//! recommendation with its reason, the `flashix run` command that
//! reproduces it, the comparison with the best B+-tree, the lifetime, the
//! time the advice took; `advise.json` (and `--json FILE`) with every
//! configuration, the front and the `recommendation` object (`index`,
//! `params`, `command`); and the chart (`advise.png`, `advise.svg`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::device::profile::{endurance_source, Target};
use crate::device::{RunWear, Wear};
use crate::experiment::plot::short_number;
use crate::experiment::scatter::{write_scatter, Dot};

use super::super::args::{AdviseArgs, WorkloadArgs};
use super::super::compare::plain;
use super::super::format::{bytes_text, decimal, group, memory_text, per_op, wrap, NO_BREAK};
use super::super::ranking::{factor, factor_text};
use super::super::{lifetime, write_json, CliResult};
use super::exec::{Outcome, Sharing};
use super::front::{Balance, Objective, Point};
use super::{Advice, Row};

/// How long the advice took, and what sharing preloads saved.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timing {
    pub wall_seconds: f64,
    pub jobs: usize,
    /// Runs made (sizing runs included).
    pub runs: usize,
    /// The sizing phase: wall seconds and sharing.
    pub sizing: Option<(f64, Sharing)>,
    /// The measured phase: wall seconds and sharing.
    pub measuring: (f64, Sharing),
    /// Wall seconds of the prefix check's passes (`trace` module doc).
    pub check_seconds: f64,
}

/// A configuration in the JSON.
#[derive(Serialize)]
struct Entry<'a> {
    label: &'a str,
    index: &'a str,
    params: BTreeMap<String, String>,
    /// `ran`, `over budget` or `failed`.
    status: &'static str,
    detail: Option<String>,
    eligible: bool,
    on_front: bool,
    measures: Option<&'a Point>,
    counted_memory_bytes: u64,
    lifetime_years: Option<f64>,
    /// The measured phase's wear per block (histogram inside) and the
    /// chip's at the end.
    wear: Option<&'a RunWear>,
    chip_wear: Option<&'a Wear>,
}

#[derive(Serialize)]
struct Recommendation<'a> {
    index: &'a str,
    params: BTreeMap<String, String>,
    label: &'a str,
    command: String,
    reason: String,
    measures: &'a Point,
    lifetime_years: Option<f64>,
}

#[derive(Serialize)]
struct Json<'a> {
    workload: &'a str,
    device: &'a str,
    memory_budget_bytes: u64,
    objective: Objective,
    ops_per_day: Option<f64>,
    min_years: Option<f64>,
    endurance: Option<u64>,
    endurance_source: Option<String>,
    trace_prefix: Option<&'a super::trace::Prefix>,
    recommendation: Option<Recommendation<'a>>,
    best_btree: Option<Entry<'a>>,
    /// The best configuration of each other index, best first: the first
    /// is the runner-up.
    others: Vec<Other<'a>>,
    front: Vec<Entry<'a>>,
    configurations: Vec<Entry<'a>>,
    timing: &'a Timing,
}

/// The best configuration of another index (`front::others`).
#[derive(Serialize)]
struct Other<'a> {
    label: &'a str,
    index: &'a str,
    /// Its score (the balanced score, or `--optimize`'s measure) over the
    /// recommendation's.
    score_ratio: f64,
    near_tie: bool,
}

fn params(row: &Row) -> BTreeMap<String, String> {
    super::super::describe(&row.cand.cfg).params
}

fn years(row: &Row, rate: Option<f64>) -> Option<f64> {
    match (&row.outcome, rate) {
        (Outcome::Ran(r), Some(rate)) => r.wear.as_ref().and_then(|w| w.lifetime(rate).years()),
        _ => None,
    }
}

fn entry<'a>(adv: &'a Advice, i: usize) -> Entry<'a> {
    let row = &adv.rows[i];
    let (status, detail, wear, chip) = match &row.outcome {
        Outcome::Ran(r) => (
            "ran",
            row.excluded.clone(),
            r.wear.as_ref(),
            r.device_stats.wear.as_ref(),
        ),
        Outcome::OverBudget { bytes, op, tables } => (
            "over budget",
            Some(if *tables > adv.memory {
                format!(
                    "{bytes} B after operation {op}; its data-bound tables alone held {tables} B: \
                     this data needs a budget of at least that"
                )
            } else {
                format!("{bytes} B after operation {op}")
            }),
            None,
            None,
        ),
        Outcome::Failed(e) => ("failed", Some(e.clone()), None, None),
    };
    Entry {
        label: &row.cand.label,
        index: &row.cand.cfg.index,
        params: params(row),
        status,
        detail,
        eligible: row.eligible,
        on_front: adv.front.contains(&i),
        measures: row.point.as_ref(),
        counted_memory_bytes: row.counted_memory,
        lifetime_years: years(row, adv.rate),
        wear,
        chip_wear: chip,
    }
}

/// A word for a shell: quoted where it holds anything but safe characters.
fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_=.,:/@%+".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The `flashix run` command that reproduces `row`'s numbers.
pub fn command(adv: &Advice, a: &AdviseArgs, w: &WorkloadArgs, row: &Row) -> String {
    let mut words: Vec<String> = vec!["flashix".into(), "run".into()];
    // A flag and its value; an empty value is a flag alone.
    let mut add = |k: &str, v: String| {
        words.push(k.to_string());
        if !v.is_empty() {
            words.push(v);
        }
    };
    add("--index", row.cand.cfg.index.clone());
    for s in &row.cand.cfg.set {
        // `--exclude-node-tables` gives it (`cli::tables_outside`).
        if !(a.exclude_node_tables && s == "tables=outside") {
            add("--set", s.clone());
        }
    }
    match &w.trace {
        Some(t) => {
            add("--trace", t.display().to_string());
            if let Some(n) = w.ops {
                add("--ops", n.to_string());
            }
        }
        None => {
            add("--workload", w.workload.clone().unwrap_or_default());
            // advise's own `preload_sorted=true` is `--bulk-load`'s.
            for s in &a.workload.workload_set {
                add("--workload-set", s.clone());
            }
            if let Some(p) = w.preload {
                add("--preload", p.to_string());
            }
            if let Some(n) = w.ops {
                add("--ops", n.to_string());
            }
            add("--seed", w.seed.to_string());
        }
    }
    add("--device", a.device.device.clone());
    for s in &a.device.device_set {
        add("--device-set", s.clone());
    }
    if let Some(s) = &adv.sizing {
        add(
            "--device-set",
            format!("blocks={}", adv.spec.geometry.blocks),
        );
        let cold = s.cold_pages(&row.cand.label);
        if cold > 0 {
            add("--cold-pages", cold.to_string());
        }
    }
    if matches!(adv.spec.target, Target::File(_)) {
        add("--overwrite", String::new());
    }
    add("--memory", adv.memory.to_string());
    if a.exclude_node_tables {
        add("--exclude-node-tables", String::new());
    }
    if a.bulk_load {
        add("--bulk-load", String::new());
    }
    if adv.staged {
        add("--preload-reopen", String::new());
    }
    if let Some(r) = adv.rate {
        add("--ops-per-day", format!("{r}"));
    }
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Per-operation time: `539.2 µs`, `1.234 ms`, `25.3 s`.
fn time_text(us: f64) -> String {
    if us >= 1e6 {
        format!("{} s", decimal(us / 1e6))
    } else if us >= 1e3 {
        format!("{} ms", decimal(us / 1e3))
    } else {
        format!("{} µs", decimal(us))
    }
}

fn energy_text(uj: f64) -> String {
    if uj >= 1e3 {
        format!("{} mJ", decimal(uj / 1e3))
    } else {
        format!("{} µJ", decimal(uj))
    }
}

/// The lifetime cell: years at the rate, else operations until the
/// busiest block wears out; `-` where the device hides its blocks.
fn lifetime_cell(row: &Row, rate: Option<f64>) -> String {
    let Outcome::Ran(r) = &row.outcome else {
        return "-".into();
    };
    match (&r.wear, rate) {
        (None, _) => "-".into(),
        (Some(w), Some(rate)) => lifetime::years_text(w.lifetime(rate).years()),
        (Some(w), None) => match w.ops_to_wear_out() {
            Some(ops) => format!("{} ops", short_number(ops)),
            None => "∞".into(),
        },
    }
}

/// The table of `shown` rows (the front, or every eligible one); energy
/// is `-` on a device without energy figures.
fn table(adv: &Advice, shown: &[usize]) -> String {
    let no_energy = adv
        .rows
        .iter()
        .filter_map(|r| r.point.as_ref())
        .all(|p| p.energy_uj == 0.0);
    let life = if adv.rate.is_some() {
        "lifetime"
    } else {
        "wear-out"
    };
    let mut rows = vec![vec![
        "  configuration".to_string(),
        "time/op".into(),
        "energy/op".into(),
        "writes/op".into(),
        "memory".into(),
        life.into(),
    ]];
    for &i in shown {
        let row = &adv.rows[i];
        let Some(p) = &row.point else { continue };
        let mark = if Some(i) == adv.pick { "→ " } else { "  " };
        rows.push(vec![
            format!("{mark}{}", row.cand.label),
            time_text(p.time_us),
            if no_energy {
                "-".into()
            } else {
                energy_text(p.energy_uj)
            },
            per_op(p.writes),
            memory_text(p.memory),
            lifetime_cell(row, adv.rate),
        ]);
    }
    plain(&rows)
}

/// `2.5× less time`, `1.3× more energy`, `the same page writes`.
fn compared(ours: f64, theirs: f64, less: &str, more: &str, what: &str) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let f = factor(theirs, ours);
    Some(if f > 1.0 {
        format!("{} {less} {what}", factor_text(f))
    } else {
        format!("{} {more} {what}", factor_text(factor(ours, theirs)))
    })
}

/// Why the recommendation (one line).
fn reason(adv: &Advice) -> String {
    let Some(pick) = adv.pick else {
        return String::new();
    };
    let p = adv.rows[pick].point.as_ref();
    let eligible = adv.rows.iter().filter(|r| r.eligible).count();
    let Some(p) = p else {
        return String::new();
    };
    let among = format!("of the {eligible} configurations within the budget");
    match adv.objective {
        Objective::Time => format!(
            "the least time per operation ({}) {among}",
            time_text(p.time_us)
        ),
        Objective::Energy => format!(
            "the least energy per operation ({}) {among}",
            energy_text(p.energy_uj)
        ),
        Objective::Writes => format!(
            "the fewest page writes per operation ({}) {among}",
            per_op(p.writes)
        ),
        Objective::Lifetime => {
            format!("the longest lifetime (the least busiest-block wear per operation) {among}")
        }
        Objective::Balanced => {
            let members: Vec<&Point> = adv
                .front
                .iter()
                .filter_map(|&i| adv.rows[i].point.as_ref())
                .collect();
            let b = Balance::over(&members);
            let parts: Vec<String> = b
                .objectives
                .iter()
                .zip(b.factors(p))
                .map(|(o, f)| format!("{o} {f:.2}×"))
                .collect();
            format!(
                "the balanced member of the Pareto front of {}: its factors over the best are {} \
                 (geometric mean {:.2}, the least)",
                adv.front.len(),
                parts.join(", "),
                b.score(p)
            )
        }
    }
}

/// How the recommendation compares with the best B+-tree.
fn against_btree(adv: &Advice) -> Option<String> {
    let (pick, bt) = (adv.pick?, adv.best_btree?);
    let (ours, theirs) = (adv.rows[pick].point.as_ref()?, adv.rows[bt].point.as_ref()?);
    if pick == bt {
        return Some("The recommendation is itself the best B+-tree.".into());
    }
    let mut parts: Vec<String> = [
        compared(ours.time_us, theirs.time_us, "less", "more", "time"),
        compared(ours.energy_uj, theirs.energy_uj, "less", "more", "energy"),
        compared(ours.writes, theirs.writes, "fewer", "more", "page writes"),
        compared(ours.memory, theirs.memory, "less", "more", "memory"),
    ]
    .into_iter()
    .flatten()
    .collect();
    match (ours.wear, theirs.wear) {
        (Some(a), Some(b)) if a == b => {}
        (Some(0.0), Some(_)) => parts.push("no block erased where the B+-tree erased some".into()),
        (Some(_), Some(0.0)) => {
            parts.push("blocks erased where the B+-tree erased none (see wear-out)".into())
        }
        (Some(a), Some(b)) => {
            let f = factor(b, a);
            parts.push(if f > 1.0 {
                format!("a {} longer lifetime", factor_text(f))
            } else {
                format!("a {} shorter lifetime", factor_text(factor(a, b)))
            });
        }
        _ => {}
    }
    Some(format!(
        "Against the best B+-tree within the budget ({}, by the same choice): {}.",
        adv.rows[bt].cand.label,
        if parts.is_empty() {
            "the same in every measure".to_string()
        } else {
            parts.join(", ")
        }
    ))
}

/// Who was left out, by index: over the budget, failed, short-lived.
fn left_out(adv: &Advice) -> String {
    let mut over: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    let mut other = Vec::new();
    for row in &adv.rows {
        let name = row.cand.cfg.index.as_str();
        match &row.outcome {
            Outcome::OverBudget { .. } => *over.entry(name).or_insert(0) += 1,
            Outcome::Ran(_) if row.counted_memory > adv.memory => {
                *over.entry(name).or_insert(0) += 1
            }
            Outcome::Failed(e) => failed.push(format!("{} ({e})", row.cand.label)),
            Outcome::Ran(_) => {
                if let Some(why) = &row.excluded {
                    other.push(format!("{} ({why})", row.cand.label));
                }
            }
        }
    }
    let mut parts = Vec::new();
    if !over.is_empty() {
        let list: Vec<String> = over
            .iter()
            .map(|(n, c)| format!("{n} ({c})").replace(' ', &NO_BREAK.to_string()))
            .collect();
        parts.push(format!(
            "over the memory budget (each run stopped when its counted memory passed it; \
             configurations of each index): {}",
            list.join(", ")
        ));
    }
    if !other.is_empty() {
        parts.push(format!("short-lived: {}", other.join(", ")));
    }
    if !failed.is_empty() {
        parts.push(format!("failed: {}", failed.join("; ")));
    }
    if parts.is_empty() {
        return String::new();
    }
    wrap(&format!("Left out: {}.", parts.join("; ")))
}

/// Prints the advice, writes `advise.json` (and `--json`) and the chart.
pub fn write(adv: &Advice, a: &AdviseArgs, w: &WorkloadArgs) -> CliResult<()> {
    let pick_row = adv.pick.map(|i| &adv.rows[i]);
    let cmd = pick_row.map(|r| command(adv, a, w, r));
    let entries = |v: &[usize]| v.iter().map(|&i| entry(adv, i)).collect::<Vec<_>>();
    let all: Vec<usize> = (0..adv.rows.len()).collect();
    let json = Json {
        workload: &adv.workload,
        device: &adv.spec.name,
        memory_budget_bytes: adv.memory,
        objective: adv.objective,
        ops_per_day: adv.rate,
        min_years: adv.years,
        endurance: endurance_source(&adv.spec).map(|_| adv.spec.geometry.endurance),
        endurance_source: endurance_source(&adv.spec),
        trace_prefix: adv.prefix.as_ref(),
        recommendation: pick_row.and_then(|r| {
            Some(Recommendation {
                index: &r.cand.cfg.index,
                params: params(r),
                label: &r.cand.label,
                command: cmd.clone().unwrap_or_default(),
                reason: reason(adv),
                measures: r.point.as_ref()?,
                lifetime_years: years(r, adv.rate),
            })
        }),
        best_btree: adv.best_btree.map(|i| entry(adv, i)),
        others: adv
            .others
            .iter()
            .map(|&(i, score_ratio, near_tie)| Other {
                label: &adv.rows[i].cand.label,
                index: &adv.rows[i].cand.cfg.index,
                score_ratio,
                near_tie,
            })
            .collect(),
        front: entries(&adv.front),
        configurations: entries(&all),
        timing: &adv.timing,
    };
    let dir = &a.out;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write_json(&dir.join("advise.json"), &json)?;
    if let Some(path) = &a.json {
        write_json(path, &json)?;
    }
    let dots: Vec<Dot> = adv
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.eligible)
        .filter_map(|(i, r)| {
            let p = r.point.as_ref()?;
            Some(Dot {
                label: if adv.pick == Some(i) {
                    format!("→ {}", r.cand.label)
                } else {
                    r.cand.label.clone()
                },
                x: p.time_us,
                y: p.writes,
                size: p.memory,
                front: adv.front.contains(&i),
            })
        })
        .collect();
    let drawn = write_scatter(
        &dir.join("advise"),
        "flashix advise: the configurations within the budget",
        "simulated time per operation (µs)",
        "page writes per operation",
        &dots,
    );
    print(adv, a, cmd.as_deref());
    match drawn {
        Ok(()) => eprintln!("advise.json and the chart written to {}", dir.display()),
        Err(e) => eprintln!(
            "warning: could not draw {e}; advise.json written to {}",
            dir.display()
        ),
    }
    if adv.pick.is_none() {
        return Err(format!(
            "no configuration of the {} tried stayed within the memory budget of {} B{} \
             (advise.json has what each held); give more --memory{}",
            adv.rows.len(),
            group(adv.memory),
            if adv.years.is_some() {
                " and the --years constraint"
            } else {
                ""
            },
            if a.exclude_node_tables {
                ""
            } else {
                ", or count as Agrawal et al. 2009 §6 does with --exclude-node-tables"
            }
        )
        .into());
    }
    Ok(())
}

fn print(adv: &Advice, a: &AdviseArgs, cmd: Option<&str>) {
    let capacity = adv.spec.geometry.pages();
    println!(
        "{}",
        super::super::sizing::device_line(&adv.spec, capacity, adv.sizing.as_ref())
    );
    if adv.spec.target == Target::Raw && !adv.spec.explicit_size {
        println!(
            "{}",
            wrap(
                "note: the raw chip is the sparse 64 GiB default, which no run fills, so an index that \
                 writes a log never erases it here: wear and lifetime mean little on it \
                 (--device-set blocks=N gives your chip's size)"
            )
        );
    }
    let indexes: std::collections::BTreeSet<&str> =
        adv.rows.iter().map(|r| r.cand.cfg.index.as_str()).collect();
    println!(
        "{}",
        wrap(&format!(
            "memory budget {} ({} B) per configuration{}; workload {}; {} configurations of {} indexes \
             (each over the parameters its paper says matter), every one flushed at the end; measures \
             per measured operation",
            bytes_text(adv.memory),
            group(adv.memory),
            if a.exclude_node_tables {
                ", data-bound tables (node tables and the like) outside it (Agrawal et al. 2009 §6)"
            } else {
                ""
            },
            adv.workload,
            adv.rows.len(),
            indexes.len()
        ))
    );
    if let Some(p) = &adv.prefix {
        println!("{}", wrap(&prefix_text(p)));
    }
    let eligible: Vec<usize> = (0..adv.rows.len())
        .filter(|&i| adv.rows[i].eligible)
        .collect();
    if eligible.is_empty() {
        println!("No configuration stayed within the budget.");
    } else if a.all {
        println!(
            "The {} configurations within the budget (the front marked in advise.json):",
            eligible.len()
        );
        println!("{}", table(adv, &eligible));
    } else {
        println!(
            "{}",
            wrap(&format!(
                "Pareto front over (time, energy, page writes per operation, memory, wear): the {} of {} \
                 configurations within the budget that no other matches or beats in all, fastest first \
                 (--all prints every one):",
                adv.front.len(),
                eligible.len()
            ))
        );
        println!("{}", table(adv, &adv.front));
    }
    let life_legend = match adv.rate {
        Some(r) => format!(
            "lifetime: years at {} operations a day until the busiest block wears out",
            group(r.round() as u64)
        ),
        None => {
            "wear-out: operations until the busiest block wears out (--ops-per-day N gives years)"
                .into()
        }
    };
    println!(
        "{}",
        wrap(&format!(
            "→ the recommendation; writes/op: the chip's page writes (garbage collection's copies and the final \
             flush included); memory: the counted peak{}; {life_legend}; ∞: no block erased in the run (a short \
             run that writes may erase none yet)",
            if a.exclude_node_tables {
                " besides the data-bound tables (what `run --exclude-node-tables` reports)"
            } else {
                ""
            }
        ))
    );
    let out = left_out(adv);
    if !out.is_empty() {
        println!("{out}");
    }
    if let (Some(i), Some(cmd)) = (adv.pick, cmd) {
        println!(
            "{}",
            wrap(&format!(
                "Recommended: {} — {}.",
                adv.rows[i].cand.label,
                reason(adv)
            ))
        );
        if let Some(line) = runner_up_text(adv) {
            println!("{}", wrap(&line));
        }
        println!("Reproduce it:\n  {cmd}");
        if let Some(b) = against_btree(adv) {
            println!("{}", wrap(&b));
        }
        if let (Some(rate), Outcome::Ran(r)) = (adv.rate, &adv.rows[i].outcome) {
            println!("{}", lifetime::projection(r, &adv.spec, rate));
        }
    }
    let t = &adv.timing;
    let (m_secs, m_share) = &t.measuring;
    let mut timing = format!(
        "{} runs in {:.1} s on {} threads (measured runs {:.1} s",
        t.runs, t.wall_seconds, t.jobs, m_secs
    );
    if let Some((s, _)) = &t.sizing {
        timing.push_str(&format!(", sizing runs {s:.1} s"));
    }
    if t.check_seconds > 0.0 {
        timing.push_str(&format!(", the prefix's check {:.1} s", t.check_seconds));
    }
    timing.push(')');
    let shares: Vec<&Sharing> = t
        .sizing
        .as_ref()
        .map(|(_, s)| s)
        .into_iter()
        .chain(std::iter::once(m_share))
        .filter(|s| s.images > 0)
        .collect();
    if !shares.is_empty() {
        let images: usize = shares.iter().map(|s| s.images).sum();
        let served: usize = shares.iter().map(|s| s.served).sum();
        let own: usize = shares.iter().map(|s| s.built_own).sum();
        let saved: f64 = shares.iter().map(|s| s.saved_seconds).sum();
        if served > images {
            timing.push_str(&format!(
                "; {images} preloaded images served {served} runs, saving about {:.1} s of preloading",
                saved.max(0.0)
            ));
        }
        if own > 0 {
            timing.push_str(&format!(
                "; {own} runs built their own preload (this device cannot be copied)"
            ));
        }
    }
    println!("{}", wrap(&timing));
}

/// What the output says of the prefix advised on and of its checks
/// (`trace` module doc).
fn prefix_text(p: &super::trace::Prefix) -> String {
    let doubled = match p.started_at {
        Some(n) => format!(
            ", doubled from {} while advice on a prefix's first half named another index",
            group(n)
        ),
        None => String::new(),
    };
    let taken = if p.whole() {
        format!(
            "advised on the whole trace, {} operations{doubled}",
            group(p.total)
        )
    } else {
        format!(
            "advised on the first {} of the trace's {} operations{doubled}: per-operation figures \
             extrapolate to the whole trace as far as its mix holds and the index's growth leaves them",
            group(p.taken),
            group(p.total)
        )
    };
    let mix = if p.whole() {
        String::new()
    } else if p.representative() {
        format!(
            "; mix: the prefix's share of each kind of operation is within {:.0} points of the whole \
             trace's and of each of its {} windows (largest gap {:.1})",
            100.0 * super::trace::MIX_TOLERANCE,
            p.windows,
            100.0 * p.largest_gap
        )
    } else {
        format!(
            "; mix: DOUBTFUL: the prefix's share of one kind of operation differs from the whole trace's \
             or a window's by {:.1} points (--ops N takes a longer prefix)",
            100.0 * p.largest_gap
        )
    };
    let size = match &p.check {
        None => String::new(),
        Some(c) => {
            let half = c
                .half_label
                .as_deref()
                .unwrap_or("nothing within the budget");
            if c.stable {
                format!(
                    "; size: advice on its first {} names the same index ({half}), stable",
                    group(c.half)
                )
            } else if p.whole() {
                format!(
                    "; size: advice on its first {} named another ({half}), so no prefix stands for it",
                    group(c.half)
                )
            } else {
                format!(
                    "; size: UNSTABLE: advice on its first {} names another index ({half}): the costs \
                     still change with the index's size (--ops N takes a longer prefix, --prefix N one \
                     that doubles until it holds)",
                    group(c.half)
                )
            }
        }
    };
    format!("{taken}{mix}{size}")
}

/// The runner-up line: the best configuration of another index, and the
/// near ties the measurement does not rank.
fn runner_up_text(adv: &Advice) -> Option<String> {
    let &(i, ratio, _) = adv.others.first()?;
    let score = match adv.objective {
        Objective::Balanced => "balanced score",
        Objective::Time => "time",
        Objective::Energy => "energy",
        Objective::Writes => "page writes",
        Objective::Lifetime => "wear",
    };
    let ties: Vec<String> = adv
        .others
        .iter()
        .filter(|o| o.2)
        .map(|&(j, r, _)| format!("{} ({})", adv.rows[j].cand.label, factor_text(r)))
        .collect();
    let pick_io = adv.rows[adv.pick?].point.as_ref()?.page_io;
    let verdict = if ties.is_empty() {
        String::new()
    } else if pick_io < super::front::IN_MEMORY_IO {
        format!(
            "; near ties the measurement does not rank (within {:.0}%, or touching the flash less than \
             once in {:.0} operations, as the recommendation does: their indexes live in memory): {}",
            100.0 * (super::front::NEAR_TIE - 1.0),
            1.0 / super::front::IN_MEMORY_IO,
            ties.join(", ")
        )
    } else {
        format!(
            "; near ties the measurement does not rank (within {:.0}%): {}",
            100.0 * (super::front::NEAR_TIE - 1.0),
            ties.join(", ")
        )
    };
    Some(format!(
        "Runner-up, another index: {}, {} the recommendation's {score}{verdict}.",
        adv.rows[i].cand.label,
        factor_text(ratio)
    ))
}
