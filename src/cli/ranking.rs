//! The ranking of `flashix compare`: what a user choosing an index reads
//! off the table, among the indexes whose peak memory stayed within the
//! budget (those over it are named and left out).
//!
//! * By simulated time and by energy, each with its factor over the best:
//!   both charge every page read and write (and erase), so an index that
//!   saves writes by reading much more does not win them.
//! * The Pareto set over simulated time, energy, page writes (the chip's)
//!   and memory: the indexes no other matches or beats in all four, one
//!   line each, fastest first, with what it is best at, its price beside
//!   the best time and energy, its page writes per operation and erases.
//!   An index that needs 10× or more of the best time, energy or page
//!   writes is flagged in its line ("fewest page writes (9,362) but 30× the
//!   time of the fastest"); not for memory, which the budget already
//!   bounds.

use std::fmt::Write as _;

use crate::runner::Report;

use super::format::{
    bytes_text, count, decimal, group, memory_text, per_op, wrap, wrap_indent, writes_per_op,
    NO_BREAK,
};

/// A measure the ranking weighs: lower is better.
struct Measure {
    /// As the Pareto line names it.
    name: &'static str,
    /// What the best index is.
    best: &'static str,
    /// What a factor over the best is of: `30× the time of the fastest`.
    factor_of: &'static str,
    value: fn(&Report) -> f64,
    text: fn(f64) -> String,
    /// Whether needing 10× the best of it is flagged. Not memory: every
    /// index ranked stayed within the budget the user chose, so 10× the
    /// smallest (a B+-tree without a cache uses 64 B) costs nothing.
    flagged: bool,
}

const TIME: Measure = Measure {
    name: "sim. time",
    best: "fastest",
    factor_of: "the time of the fastest",
    value: |r| r.device_stats.time_us / 1e6,
    text: |v| format!("{} s", decimal(v)),
    flagged: true,
};

const ENERGY: Measure = Measure {
    name: "energy",
    best: "least energy",
    factor_of: "the energy of the least",
    value: |r| r.device_stats.energy_uj / 1e6,
    text: |v| format!("{} J", decimal(v)),
    flagged: true,
};

const WRITES: Measure = Measure {
    name: "page writes",
    best: "fewest page writes",
    factor_of: "the page writes of the fewest",
    value: |r| r.device_stats.physical_writes as f64,
    text: count,
    flagged: true,
};

const MEMORY: Measure = Measure {
    name: "memory",
    best: "least memory",
    factor_of: "the memory of the least",
    value: |r| r.memory_counted_bytes() as f64,
    text: memory_text,
    flagged: false,
};

/// The Pareto set's measures.
const MEASURES: [&Measure; 4] = [&TIME, &ENERGY, &WRITES, &MEMORY];

/// A factor that is flagged: needing this many times the best.
const FLAG_FACTOR: f64 = 10.0;

/// `v` over `best` (1 when both are 0; infinite over a best of 0).
pub(super) fn factor(v: f64, best: f64) -> f64 {
    if best > 0.0 {
        v / best
    } else if v > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

/// `1.15×`, `30×`: two places below 10, where they tell indexes apart.
pub(super) fn factor_text(f: f64) -> String {
    if !f.is_finite() {
        "∞×".into()
    } else if f >= 9.995 {
        format!("{}×", count(f))
    } else {
        format!("{f:.2}×")
    }
}

/// Whether `a` dominates `b`: no worse in every measure, better in one.
fn dominates(a: &Report, b: &Report) -> bool {
    MEASURES.iter().all(|m| (m.value)(a) <= (m.value)(b))
        && MEASURES.iter().any(|m| (m.value)(a) < (m.value)(b))
}

/// Whether `r`'s counted peak stayed within `budget` (0: no budget): only
/// such a run is compared at that budget (ranked, marked best in a column,
/// drawn in colour).
pub(super) fn within_budget(r: &Report, budget: u64) -> bool {
    budget == 0 || r.memory_counted_bytes() <= budget
}

/// How a configuration over the budget is listed: its counted peak, and
/// where its data-bound tables alone passed the budget, the budget this
/// data needs.
pub(super) fn over_budget_text(name: &str, r: &Report) -> String {
    let peak = memory_text(r.memory_counted_bytes() as f64);
    match r.memory_tables_need_bytes {
        Some(need) => format!(
            "{name} ({peak}; its data-bound tables alone need {}, the smallest budget for this data)",
            memory_text(need as f64)
        ),
        None => format!("{name} ({peak})"),
    }
}

/// The ranking (module doc), from the measured reports.
pub fn ranking(reports: &[(String, Report)], budget: u64) -> String {
    let within: Vec<&(String, Report)> = reports
        .iter()
        .filter(|(_, r)| within_budget(r, budget))
        .collect();
    let over: Vec<String> = reports
        .iter()
        .filter(|(_, r)| !within_budget(r, budget))
        .map(|(n, r)| over_budget_text(n, r))
        .collect();
    let mut head = format!(
        "Ranking of the {} of {} indexes within the memory budget ({})",
        within.len(),
        reports.len(),
        bytes_text(budget)
    );
    if !over.is_empty() {
        let _ = write!(
            head,
            "; left out for peak memory over it: {}",
            over.join(", ")
        );
    }
    head.push(':');
    let mut out = wrap(&head);
    if within.is_empty() {
        out.push_str("\n  no index stayed within the budget");
        return out;
    }
    let best = |m: &Measure| {
        within
            .iter()
            .map(|(_, r)| (m.value)(r))
            .fold(f64::INFINITY, f64::min)
    };
    for m in [&TIME, &ENERGY] {
        let b = best(m);
        let mut order: Vec<&&(String, Report)> = within.iter().collect();
        order.sort_by(|x, y| (m.value)(&x.1).total_cmp(&(m.value)(&y.1)));
        let items: Vec<String> = order
            .iter()
            .enumerate()
            .map(|(i, (n, r))| {
                let v = (m.value)(r);
                let item = if i == 0 {
                    format!("1. {n} {}", (m.text)(v))
                } else {
                    format!(
                        "{}. {n} {} ({})",
                        i + 1,
                        (m.text)(v),
                        factor_text(factor(v, b))
                    )
                };
                // One entry is never cut between two lines.
                item.replace(' ', &NO_BREAK.to_string())
            })
            .collect();
        out.push('\n');
        out.push_str(&wrap_indent(
            &format!("  by {}: {}", m.name, items.join(", ")),
            "      ",
        ));
    }
    // Fastest first, as the choice usually starts there.
    let mut pareto: Vec<&&(String, Report)> = within
        .iter()
        .filter(|(_, r)| !within.iter().any(|(_, o)| dominates(o, r)))
        .collect();
    pareto.sort_by(|x, y| (TIME.value)(&x.1).total_cmp(&(TIME.value)(&y.1)));
    out.push('\n');
    out.push_str(&wrap(&format!(
        "  Pareto set over (sim. time, energy, page writes, memory): the {} of {} indexes that no \
         other matches or beats in all four, fastest first:",
        pareto.len(),
        within.len()
    )));
    // Who is best at each measure: the first in the Pareto set with the
    // lowest value (a dominated index is never alone in the lowest).
    let winners: Vec<(&Measure, &str)> = MEASURES
        .iter()
        .filter_map(|m| {
            let b = best(m);
            pareto
                .iter()
                .find(|(_, r)| (m.value)(r) <= b)
                .map(|(n, _)| (*m, n.as_str()))
        })
        .collect();
    for (name, r) in &pareto {
        out.push('\n');
        out.push_str(&wrap_indent(
            &pareto_line(name, r, &winners, &best),
            "      ",
        ));
    }
    out
}

/// One index of the Pareto set: what it is best at, what it costs beside
/// the best (flagged where 10× or more), its writes per operation and
/// erases.
fn pareto_line(
    name: &str,
    r: &Report,
    winners: &[(&Measure, &str)],
    best: &dyn Fn(&Measure) -> f64,
) -> String {
    let wins: Vec<String> = winners
        .iter()
        .filter(|(_, w)| *w == name)
        .map(|(m, _)| format!("{} ({})", m.best, (m.text)((m.value)(r))))
        .collect();
    let mut costs = Vec::new();
    let mut flagged = Vec::new();
    for (m, winner) in winners {
        if *winner == name {
            continue;
        }
        let f = factor((m.value)(r), best(m));
        let text = format!("{} {} ({winner})", factor_text(f), m.factor_of);
        if m.flagged && f >= FLAG_FACTOR {
            flagged.push(text);
        } else if m.name == TIME.name || m.name == ENERGY.name {
            costs.push(text);
        }
    }
    let mut parts = Vec::new();
    if !wins.is_empty() {
        let mut w = wins.join(", ");
        if !flagged.is_empty() {
            let _ = write!(w, " but {}", flagged.join(" and "));
        }
        parts.push(w);
    } else if !flagged.is_empty() {
        parts.push(format!("{} (10× or more)", flagged.join(" and ")));
    }
    if !costs.is_empty() {
        parts.push(costs.join(", "));
    }
    parts.push(format!(
        "{} page writes/op, {} erases",
        per_op(writes_per_op(r)),
        group(r.device_stats.erases)
    ));
    format!("    {name}: {}", parts.join("; "))
}

#[cfg(test)]
pub(in crate::cli) mod tests {
    use super::*;
    use crate::runner::DeviceReport;

    /// A report with the measures the ranking and the tables read (also
    /// `compare`'s table tests).
    pub(in crate::cli) fn report(writes: u64, time_s: f64, energy_j: f64, memory: u64) -> Report {
        Report {
            device_stats: DeviceReport {
                physical_writes: writes,
                time_us: time_s * 1e6,
                energy_uj: energy_j * 1e6,
                ..DeviceReport::default()
            },
            memory_peak_bytes: memory,
            ops: [("insert".to_string(), 250)].into_iter().collect(),
            ..Report::default()
        }
    }

    pub(in crate::cli) fn named(rows: &[(&str, Report)]) -> Vec<(String, Report)> {
        rows.iter()
            .map(|(n, r)| (n.to_string(), r.clone()))
            .collect()
    }

    #[test]
    fn the_ranking_orders_by_time_and_energy_within_the_budget() {
        let reports = named(&[
            ("btree:cache=none", report(1000, 10.0, 4.0, 64)),
            ("btree:cache=lru", report(800, 8.0, 2.0, 900)),
            ("mbtree", report(100, 9.0, 3.0, 1000)),
            // The fewest writes and the least time of all, but over the
            // budget.
            ("flashdb", report(50, 1.0, 1.0, 5000)),
        ]);
        // Wrapped lines joined: the assertions read whole entries.
        let text = ranking(&reports, 1024).replace("\n      ", " ");
        assert!(
            text.contains(
                "3 of 4 indexes within the memory budget (1 KiB); left out for peak memory over \
                 it: flashdb (4.9 KiB)"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "by sim. time: 1. btree:cache=lru 8.000 s, 2. mbtree 9.000 s (1.12×), \
                 3. btree:cache=none 10.00 s (1.25×)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "by energy: 1. btree:cache=lru 2.000 J, 2. mbtree 3.000 J (1.50×), \
                 3. btree:cache=none 4.000 J (2.00×)\n"
            ),
            "{text}"
        );
        // Each is best at something: all three are in the Pareto set.
        assert!(text.contains("the 3 of 3 indexes"), "{text}");
        assert!(
            text.contains(
                "    btree:cache=lru: fastest (8.000 s), least energy (2.000 J); 3.200 page \
                 writes/op, 0 erases"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "    mbtree: fewest page writes (100); 1.12× the time of the fastest \
                 (btree:cache=lru), 1.50× the energy of the least (btree:cache=lru)"
            ),
            "{text}"
        );
        assert!(!text.contains("flashdb:"), "over the budget: {text}");
        let none = ranking(&reports, 10);
        assert!(none.contains("no index stayed within the budget"), "{none}");
    }

    #[test]
    fn the_pareto_set_leaves_out_the_dominated_and_flags_a_tenfold_price() {
        let reports = named(&[
            ("fast", report(900, 1.0, 1.0, 500)),
            // Worse than `fast` in every measure.
            ("dominated", report(2000, 2.0, 2.0, 600)),
            // The fewest writes at 30 times the time and energy.
            ("frugal", report(100, 30.0, 30.0, 500)),
            // The least memory at 12 times the page writes of the fewest.
            ("small", report(1200, 1.5, 1.2, 64)),
        ]);
        let text = ranking(&reports, 1024).replace("\n      ", " ");
        assert!(text.contains("the 3 of 4 indexes"), "{text}");
        assert!(!text.contains("    dominated:"), "{text}");
        let line = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("    {name}: ")))
                .unwrap_or_else(|| panic!("no line for {name}: {text}"))
                .to_string()
        };
        assert!(
            line("frugal").contains(
                "fewest page writes (100) but 30× the time of the fastest (fast) and 30× the \
                 energy of the least (fast)"
            ),
            "{text}"
        );
        assert!(
            line("small")
                .contains("least memory (64 B) but 12× the page writes of the fewest (frugal)"),
            "{text}"
        );
        // One and a half times the best is a price, not a flag.
        assert!(
            line("small").contains("; 1.50× the time of the fastest (fast)"),
            "{text}"
        );
        assert!(
            line("fast").starts_with("    fast: fastest (1.000 s), least energy (1.000 J);"),
            "{text}"
        );
        // Fastest first.
        let order: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .filter_map(|l| l.split(':').next())
            .collect();
        assert_eq!(order, ["fast", "small", "frugal"], "{text}");
    }

    /// A configuration whose data-bound tables alone pass the budget is
    /// listed with the budget its data needs.
    #[test]
    fn tables_that_alone_pass_the_budget_name_the_budget_they_need() {
        let mut bftl = report(100, 1.0, 1.0, 132_240);
        bftl.memory_tables_need_bytes = Some(81_920);
        let reports = named(&[("bftl", bftl), ("btree", report(900, 5.0, 2.0, 64))]);
        let text = ranking(&reports, 65_536);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains(
                "left out for peak memory over it: bftl (129.1 KiB; its data-bound tables alone \
                 need 80.0 KiB, the smallest budget for this data)"
            ),
            "{text}"
        );
    }

    /// At 10^7 operations of the default workload, numbers a hundred times
    /// those of the default run (the widest cells a default label meets).
    #[test]
    fn factors_keep_two_places_below_ten() {
        assert_eq!(factor_text(29.95), "30×");
        assert_eq!(factor_text(1.149), "1.15×");
        assert_eq!(factor_text(f64::INFINITY), "∞×");
        assert_eq!(factor(0.0, 0.0), 1.0);
        assert_eq!(factor(3.0, 0.0), f64::INFINITY);
    }
}
