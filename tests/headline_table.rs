//! The published-vs-measured table (`output::comparison_table`): each row's
//! kind, one row for a claim checked at several points (the range of its
//! numbers, the points where it misses or has none), and the near ties a
//! direction turns on. `experiment::totals` reads these cells back (its
//! own tests and `summary`'s check the round trip).

use flashix::experiment::output::{comparison_table, comparisons, Claim, Comparison};
use flashix::experiment::{find, Measure, Published, RowKind, RunOutcome, Series, SweepRun};

fn row(published: f64, measured: f64, claim: Claim) -> Comparison {
    Comparison::new("h", "s", published, Some(measured), claim, RowKind::Claim)
}

/// The cells of the one row of `rows`' table, by column name.
fn cells_of(c: &Comparison) -> Vec<(String, String)> {
    let table = comparison_table(std::slice::from_ref(c));
    let split = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split(" | ")
            .map(|s| s.trim().to_string())
            .collect()
    };
    let mut lines = table.lines();
    let header = split(lines.next().unwrap());
    let row = split(lines.nth(1).unwrap());
    assert_eq!(header.len(), row.len(), "{table}");
    header.into_iter().zip(row).collect()
}

fn cell(c: &Comparison, column: &str) -> String {
    let cells = cells_of(c);
    let found = cells.iter().find(|(h, _)| h == column);
    found
        .unwrap_or_else(|| panic!("no {column}: {cells:?}"))
        .1
        .clone()
}

/// Every headline table names each row's kind, right after its name.
#[test]
fn the_table_gives_each_row_its_kind() {
    let claim = row(2.0, 1.5, Claim::Relative);
    let variant = Comparison {
        kind: RowKind::Variant,
        ..row(2.0, 0.5, Claim::Relative)
    };
    let table = comparison_table(&[claim.clone(), variant.clone()]);
    assert!(
        table.starts_with("| headline | kind | source | published | measured |"),
        "{table}"
    );
    let header: Vec<&str> = table.lines().next().unwrap().split(" | ").collect();
    assert_eq!(header.len(), 9, "{table}");
    assert_eq!(cells_of(&claim)[1], ("kind".into(), "claim".into()));
    assert_eq!(cells_of(&variant)[1], ("kind".into(), "variant".into()));
    assert_eq!(cell(&variant, "direction holds"), "**no**");
    // A `|` in a name stays inside its cell.
    let piped = Comparison {
        name: "a | b".into(),
        ..claim
    };
    assert_eq!(cell(&piped, "kind"), "claim");
}

/// One claim at several points: a row `claim` whose points measure
/// `values` (`None`: no number, with a reason).
fn each(published: f64, claim: Claim, values: &[(&str, Option<f64>)]) -> Comparison {
    let points: Vec<(String, Comparison)> = values
        .iter()
        .map(|(x, v)| {
            let mut p = row(published, v.unwrap_or(0.0), claim);
            p.measured = *v;
            p.unmeasured = v.is_none().then(|| format!("no run at {x}"));
            (x.to_string(), p)
        })
        .collect();
    Comparison {
        measured: points[0].1.measured,
        unmeasured: points[0].1.unmeasured.clone(),
        points,
        ..row(published, 0.0, claim)
    }
}

/// A claim checked at several points is one row: the range of its
/// numbers and ratios, and the points where it misses or has none.
#[test]
fn a_claim_at_several_points_shows_its_range_and_names_its_misses() {
    let c = each(
        2.0,
        Claim::Relative,
        &[
            ("10^5", Some(0.91)),
            ("2·10^5", Some(1.3)),
            ("10^6", None),
            ("10^7", Some(2.5)),
        ],
    );
    assert_eq!(cell(&c, "measured"), "0.910–2.500");
    assert_eq!(cell(&c, "measured / published"), "0.46–1.25");
    assert_eq!(
        cell(&c, "direction holds"),
        "**no** (at 10^5 of 4 points; no number at 10^6)"
    );
    assert_eq!(
        cell(&c, "within 1.5×"),
        "**no** (at 10^5, 2·10^5 of 4 points; no number at 10^6)"
    );
    assert_eq!(cell(&c, "durable"), "=");
    let held = each(2.0, Claim::Relative, &[("a", Some(1.5)), ("b", Some(2.5))]);
    assert_eq!(cell(&held, "direction holds"), "yes (2 points)");
    assert_eq!(cell(&held, "within 1.5×"), "yes (2 points)");
    // Ranks: a range of ranks, no ratio, no factor.
    let ranks = each(
        1.0,
        Claim::Rank,
        &[("4", Some(1.0)), ("8", Some(2.0)), ("16", Some(1.0))],
    );
    assert_eq!(cell(&ranks, "measured"), "1–2");
    assert_eq!(cell(&ranks, "measured / published"), "—");
    assert_eq!(cell(&ranks, "direction holds"), "**no** (at 8 of 3 points)");
    assert_eq!(cell(&ranks, "within 1.5×"), "—");
    // No point measured: no verdict, and why.
    let none = each(2.0, Claim::Relative, &[("a", None), ("b", None)]);
    assert_eq!(cell(&none, "measured"), "— (no run at a)");
    assert_eq!(cell(&none, "direction holds"), "—");
}

/// `comparisons` gives a `Measure::Each` row one point per axis value,
/// each measured at its own value.
#[test]
fn comparisons_check_each_point_of_a_claim() {
    let mut exp = find("lat-fig12b").unwrap();
    exp.series = ["a", "b"]
        .map(|name| Series {
            name,
            params: Vec::new(),
        })
        .to_vec();
    exp.published = vec![Published {
        name: "a ranks first",
        source: "s",
        value: 1.0,
        unit: "",
        measured: Measure::Each {
            xs: &["4", "8", "16"],
            inner: Box::new(Measure::Rank {
                series: "a",
                x: "4",
                metric: "m",
                among: &[],
            }),
        },
        kind: RowKind::Claim,
    }];
    let run = |series: &str, x: &str, m: f64| RunOutcome {
        run: SweepRun {
            series: series.into(),
            x: x.into(),
            params: Default::default(),
            seed: 0,
        },
        metrics: [("m".to_string(), m)].into(),
        report: serde_json::Value::Null,
        seconds: 0.0,
    };
    let results = vec![
        run("a", "4", 1.0),
        run("b", "4", 2.0),
        run("a", "8", 3.0),
        run("b", "8", 2.0),
    ];
    let rows = comparisons(&exp, &results);
    assert_eq!(rows.len(), 1);
    let c = &rows[0];
    let at: Vec<(&str, Option<f64>)> = c
        .points
        .iter()
        .map(|(x, p)| (x.as_str(), p.measured))
        .collect();
    assert_eq!(at, [("4", Some(1.0)), ("8", Some(2.0)), ("16", None)]);
    assert_eq!(c.direction_holds(), Some(false));
    assert_eq!(
        cell(c, "direction holds"),
        "**no** (at 8 of 3 points; no number at 16)"
    );
}

/// A direction that turns on a ratio within 0.98–1.02 says so; one
/// farther from 1, or a claim with no direction, does not.
#[test]
fn a_near_tie_that_decides_a_direction_is_flagged() {
    let direction = |c: &Comparison| cell(c, "direction holds");
    assert_eq!(
        direction(&row(0.5, 0.99, Claim::Relative)),
        "yes (near tie: 0.990)"
    );
    assert_eq!(
        direction(&row(1.5, 0.985, Claim::Relative)),
        "**no** (near tie: 0.985)"
    );
    assert_eq!(
        direction(&row(1.0, 1.01, Claim::Below)),
        "**no** (near tie: 1.010)"
    );
    assert_eq!(direction(&row(1.5, 0.97, Claim::Relative)), "**no**");
    assert_eq!(direction(&row(0.5, 1.03, Claim::Relative)), "**no**");
    // No direction, nothing to decide.
    assert_eq!(direction(&row(1.0, 0.99, Claim::Relative)), "—");
    assert_eq!(direction(&row(1.0, 0.99, Claim::Absolute)), "—");
    assert_eq!(row(1.0, 0.99, Claim::Absolute).near_tie(), None);
    let c = each(2.0, Claim::Relative, &[("a", Some(1.5)), ("b", Some(1.02))]);
    assert_eq!(direction(&c), "yes (2 points; near tie: 1.020 at b)");
}
