//! The **Memory** line of an experiment's section (issue #43): what the
//! budget of its index runs covers (`node::budget`), the runs whose
//! budget-bound structures passed what the budget left them and by how
//! much, and apart from those the runs whose count passes the budget by
//! data-bound tables, each named.

use std::fmt::Write as _;

use super::RunOutcome;

/// The worst run of a series by one measure, for the Memory line.
struct Worst {
    series: String,
    /// What the series is ranked by (the excess in bytes, or the peak
    /// over the budget).
    key: f64,
    text: String,
}

/// Keeps the run of `key` as its series' worst where it is the largest.
fn keep_worst(worst: &mut Vec<Worst>, series: &str, key: f64, text: impl FnOnce() -> String) {
    match worst.iter_mut().find(|w| w.series == series) {
        Some(w) if key > w.key => {
            w.key = key;
            w.text = text();
        }
        Some(_) => {}
        None => worst.push(Worst {
            series: series.to_string(),
            key,
            text: text(),
        }),
    }
}

/// What the budget of an experiment's index runs covers (`node::budget`):
/// every run's counted peak (every RAM structure) against its budget, the
/// runs whose budget-bound structures passed what the budget left them,
/// by how much, and apart from those the runs whose count passes the
/// budget by data-bound tables, each such table named (kept outside the
/// budget as a paper does, `tables=outside`, or paid from it and passing
/// it alone: then with the budget the data needs).
pub(super) fn memory_statement(results: &[RunOutcome]) -> Option<String> {
    let runs: Vec<&RunOutcome> = results
        .iter()
        .filter(|r| {
            r.metrics
                .get("memory_budget_bytes")
                .is_some_and(|b| *b > 0.0)
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let metric = |r: &RunOutcome, k: &str| r.metrics.get(k).copied();
    let mut excess_runs = 0;
    let mut tables_runs = 0;
    let mut excess: Vec<Worst> = Vec::new();
    let mut tables: Vec<Worst> = Vec::new();
    for r in &runs {
        let (peak, budget) = (
            r.metrics["memory_peak_bytes"],
            r.metrics["memory_budget_bytes"],
        );
        let counted = metric(r, "memory_peak_besides_tables_bytes").unwrap_or(peak);
        let over = metric(r, "memory_budget_bound_excess_bytes").unwrap_or(0.0);
        let series = r.run.series.as_str();
        if over > 0.0 {
            excess_runs += 1;
            keep_worst(&mut excess, series, over, || {
                format!("{series} {over:.0} B (counted peak {counted:.0} / {budget:.0})")
            });
        }
        if peak <= budget {
            continue;
        }
        let lines: Vec<String> = crate::node::DATA_BOUND_LINES
            .iter()
            .filter_map(|k| {
                let v = metric(r, &format!("index.{k}"))?;
                (v > 0.0).then(|| format!("{k} {v:.0}"))
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        if over == 0.0 {
            tables_runs += 1;
        }
        let need = metric(r, "memory_tables_need_bytes");
        keep_worst(&mut tables, series, peak / budget, || {
            let mut t = format!(
                "{series}: {} (peak {peak:.0} / {budget:.0}",
                lines.join(", ")
            );
            match need {
                Some(n) => {
                    let _ = write!(t, "; the tables alone need {n:.0}, more than the budget)");
                }
                None if counted < peak => t.push_str("; outside the budget)"),
                None => t.push(')'),
            }
            t
        });
    }
    let mut text = String::from(
        "**Memory.** The budget is charged with every RAM structure an index keeps (each index's module \
         documentation lists them). Data-bound tables (one entry per node, sector or buffer: node tables, \
         BFTL's node translation table, FlashDB's mode table, the AS B-tree's address map, the buffer \
         directory, ADAPT's counters) are paid from it, unless the experiment keeps them outside it as its \
         paper does (`tables=outside`): they are then named lines beside it; caches, buffers, scratch and \
         every other structure are budget-bound.",
    );
    if excess.is_empty() && tables.is_empty() {
        let _ = write!(text, " Every run's counted peak is within its budget.");
        return Some(text);
    }
    let list = |w: &[Worst]| {
        w.iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    if excess.is_empty() {
        let _ = write!(
            text,
            " No run's budget-bound structures passed what the budget left them."
        );
    } else {
        let _ = write!(
            text,
            " {excess_runs} of {} runs held more in budget-bound structures than the budget left them; \
             the largest excess per series (bytes; counted peak / budget): {}.",
            runs.len(),
            list(&excess)
        );
    }
    if !tables.is_empty() {
        let _ = write!(
            text,
            " {} counted peak passes the budget by data-bound lines{}; the largest per series (bytes at \
             the end of the run; counted peak with the tables / budget): {}.",
            if tables_runs == 1 {
                "1 run's".to_string()
            } else {
                format!("{tables_runs} runs'")
            },
            if excess.is_empty() {
                ""
            } else {
                " alone (beside those above)"
            },
            list(&tables)
        );
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::super::sweep::SweepRun;
    use super::*;

    /// The Memory line tells budget-bound excess from data-bound lines,
    /// and names every data-bound line of a run that passes its budget.
    #[test]
    fn the_memory_line_tells_budget_bound_excess_from_data_bound_tables() {
        let exp = super::super::find("lat-fig7").unwrap();
        let mut runs: Vec<SweepRun> = Vec::new();
        for run in exp.runs(true) {
            if !runs.iter().any(|r| r.series == run.series) {
                runs.push(run);
            }
        }
        assert!(runs.len() >= 3);
        let outcome = |run: &SweepRun, m: &[(&str, f64)]| RunOutcome {
            run: run.clone(),
            metrics: m.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            report: serde_json::json!({}),
            seconds: 0.0,
        };
        let budget = ("memory_budget_bytes", 65_536.0);
        let results = vec![
            // Caches past what the budget left them.
            outcome(
                &runs[0],
                &[
                    budget,
                    ("memory_peak_bytes", 70_000.0),
                    ("memory_budget_bound_excess_bytes", 4_464.0),
                ],
            ),
            // Within, besides a node table kept outside (§6).
            outcome(
                &runs[1],
                &[
                    budget,
                    ("memory_peak_bytes", 90_000.0),
                    ("memory_peak_besides_tables_bytes", 60_000.0),
                    ("memory_budget_bound_excess_bytes", 0.0),
                    ("index.node_table_bytes", 30_000.0),
                    ("index.scratch_bytes", 9_000.0),
                ],
            ),
            outcome(
                &runs[2],
                &[
                    budget,
                    ("memory_peak_bytes", 60_000.0),
                    ("memory_budget_bound_excess_bytes", 0.0),
                ],
            ),
        ];
        let text = memory_statement(&results).unwrap();
        let (a, b) = (&runs[0].series, &runs[1].series);
        assert!(
            text.contains(&format!(
                "1 of 3 runs held more in budget-bound structures than the budget left them; the \
                 largest excess per series (bytes; counted peak / budget): {a} 4464 B (counted peak \
                 70000 / 65536)."
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "1 run's counted peak passes the budget by data-bound lines alone (beside those \
                 above); the largest per series (bytes at the end of the run; counted peak with the \
                 tables / budget): {b}: node_table_bytes 30000 (peak 90000 / 65536; outside the budget)."
            )),
            "{text}"
        );
        assert!(!text.contains("scratch_bytes"), "budget-bound: {text}");
        let within = memory_statement(&results[2..]).unwrap();
        assert!(within.ends_with("Every run's counted peak is within its budget."));
    }
}
