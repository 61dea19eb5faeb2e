//! The scaling run's outputs (`--scale N,N,..`): one CSV row per (engine,
//! n, round), written again after every run so that a long run that is
//! stopped keeps what it measured, and a plot of the medians over rounds
//! against n: bytes written per insert and inserts per second, one line
//! per engine, both axes logarithmic (the engines differ by 300× in
//! bytes). An (engine, n) that did not finish has a row with status
//! `over-limit-or-failed` and no figures, and no point in the plot.
//!
//! The plot, `OUT.svg` and `OUT.png`, is drawn with plotters and flashix's
//! embedded font (`flashix::experiment::glyphs`: registered for the layout,
//! and drawing the PNG's glyphs), the path flashix's own figures take: no
//! font need be installed and no C library is built.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use crate::error::Res;
use crate::report::Run;

/// The CSV's columns after `engine,n,memory,round,status`: each a
/// measurement a child reports (`RESULT`), scaled (per insert, MiB).
const COLUMNS: [(&str, &str, Per); 11] = [
    ("inserts_per_s", "inserts_per_s", Per::One),
    ("lookups_per_s", "lookups_per_s", Per::One),
    ("ops_per_s", "ops_per_s", Per::One),
    ("write_bytes_per_insert", "insert_write_bytes", Per::Insert),
    ("space_amp", "space_amp", Per::One),
    ("peak_rss_mib", "peak_rss_kib", Per::Kib),
    ("insert_p99_us", "insert_p99_us", Per::One),
    ("lookup_p99_us", "lookup_p99_us", Per::One),
    ("op_p99_us", "op_p99_us", Per::One),
    ("insert_s", "insert_s", Per::One),
    ("close_s", "close_s", Per::One),
];

#[derive(Clone, Copy)]
enum Per {
    One,
    /// Over the run's n.
    Insert,
    /// KiB to MiB.
    Kib,
}

const FINISHED: &str = "ok";
const NOT_FINISHED: &str = "over-limit-or-failed";

/// One (engine, n, round) of a scaling run, by CSV column.
pub struct Row {
    engine: String,
    n: u64,
    memory: usize,
    round: u32,
    /// Empty where the run did not finish.
    values: BTreeMap<String, f64>,
}

impl Row {
    /// The row of a run (`None`: it did not finish).
    pub fn new(engine: &str, n: u64, memory: usize, round: u32, run: Option<&Run>) -> Row {
        let mut values = BTreeMap::new();
        for (column, key, per) in COLUMNS {
            if let Some(v) = run.and_then(|r| r.get(key)) {
                let v = match per {
                    Per::One => *v,
                    Per::Insert => v / n as f64,
                    Per::Kib => v / 1024.0,
                };
                values.insert(column.to_string(), v);
            }
        }
        Row {
            engine: engine.to_string(),
            n,
            memory,
            round,
            values,
        }
    }
}

fn header() -> String {
    let mut h = String::from("engine,n,memory,round,status");
    for (column, _, _) in COLUMNS {
        h.push(',');
        h.push_str(column);
    }
    h
}

/// Writes `rows` to `path` (replacing it).
pub fn write_csv(path: &Path, rows: &[Row]) -> Res<()> {
    let mut s = header();
    s.push('\n');
    for r in rows {
        let status = if r.values.is_empty() {
            NOT_FINISHED
        } else {
            FINISHED
        };
        s.push_str(&format!(
            "{},{},{},{},{status}",
            r.engine, r.n, r.memory, r.round
        ));
        for (column, _, _) in COLUMNS {
            s.push(',');
            if let Some(v) = r.values.get(column) {
                s.push_str(&v.to_string());
            }
        }
        s.push('\n');
    }
    std::fs::write(path, s)?;
    Ok(())
}

/// Reads the rows of a CSV `write_csv` wrote.
fn read_csv(path: &Path) -> Res<Vec<Row>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let bad = |why: &str| format!("{}: {why}", path.display());
    let names: Vec<&str> = lines
        .next()
        .ok_or_else(|| bad("empty"))?
        .split(',')
        .collect();
    if names.join(",") != header() {
        return Err(bad("not a CSV of a peers scaling run (its header differs)").into());
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let bad_line = || bad(&format!("line {}: {line:?}", i + 2));
        if cells.len() != names.len() {
            return Err(bad_line().into());
        }
        let mut values = BTreeMap::new();
        for (name, cell) in names.iter().zip(&cells).skip(5) {
            if !cell.is_empty() {
                values.insert(name.to_string(), cell.parse().map_err(|_| bad_line())?);
            }
        }
        rows.push(Row {
            engine: cells[0].to_string(),
            n: cells[1].parse().map_err(|_| bad_line())?,
            memory: cells[2].parse().map_err(|_| bad_line())?,
            round: cells[3].parse().map_err(|_| bad_line())?,
            values,
        });
    }
    Ok(rows)
}

/// The median of `v` (the mean of the middle two where even); `None` if
/// empty.
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    match v.len() {
        0 => None,
        l if l % 2 == 1 => Some(v[m]),
        _ => Some((v[m - 1] + v[m]) / 2.0),
    }
}

/// Each engine's line of `column`, in the rows' order of engines: the
/// median over rounds at each n.
fn lines(rows: &[Row], column: &str) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut order: Vec<&str> = Vec::new();
    let mut at: BTreeMap<(&str, u64), Vec<f64>> = BTreeMap::new();
    for r in rows {
        if !order.contains(&r.engine.as_str()) {
            order.push(&r.engine);
        }
        if let Some(&v) = r.values.get(column) {
            at.entry((&r.engine, r.n)).or_default().push(v);
        }
    }
    order
        .into_iter()
        .map(|e| {
            let points = at
                .iter()
                .filter(|((engine, _), _)| *engine == e)
                .filter_map(|(&(_, n), v)| Some((n as f64, median(v.clone())?)))
                .collect();
            (e.to_string(), points)
        })
        .collect()
}

/// 1500000 → "1.5M", 40000 → "40k".
fn short(v: f64) -> String {
    let (div, suffix) = [(1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
        .into_iter()
        .find(|&(d, _)| v.abs() >= d)
        .unwrap_or((1.0, ""));
    let s = format!("{:.1}", v / div);
    format!("{}{suffix}", s.trim_end_matches('0').trim_end_matches('.'))
}

/// The 1, 2, 5 times a power of ten from `lo` to `hi`: a log axis's
/// ticks, labelled in every decade.
fn one_two_five(lo: f64, hi: f64) -> Vec<f64> {
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    (first..=last)
        .flat_map(|d| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(d)))
        .filter(|v| (lo..=hi).contains(v))
        .collect()
}

/// One panel: `lines` of `label` against n, both axes logarithmic.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    label: &str,
    lines: &[(String, Vec<(f64, f64)>)],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let points = || lines.iter().flat_map(|(_, p)| p.iter().copied());
    let (x0, x1) = points().fold((f64::INFINITY, 0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = points().fold((f64::INFINITY, 0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (x0, x1) = if x0.is_finite() {
        (x0, x1)
    } else {
        (1.0, 10.0)
    };
    let (y0, y1) = if y0.is_finite() && y0 > 0.0 {
        (y0, y1)
    } else {
        (1.0, 10.0)
    };
    // Ticks at the measured n only; half a decade around the values, and
    // headroom above them for the legend (upper right).
    let mut ticks: Vec<f64> = points().map(|p| p.0).collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    let mut chart = ChartBuilder::on(area)
        .caption(label, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            ((x0 / 1.5)..(x1 * 1.5)).log_scale().with_key_points(ticks),
            ((y0 / 2.0)..(y1 * 10.0))
                .log_scale()
                .with_key_points(one_two_five(y0 / 2.0, y1 * 10.0)),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("n (keys inserted, log)")
        .y_desc(format!("{label} (log)"))
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in lines.iter().enumerate() {
        let colour =
            flashix::experiment::plot::PALETTE[i % flashix::experiment::plot::PALETTE.len()];
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// Draws `rows` on `root`: two panels, bytes written per insert and
/// inserts per second against n.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    rows: &[Row],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let mut memory: Vec<usize> = rows.iter().map(|r| r.memory).collect();
    memory.dedup();
    let memory = match memory.as_slice() {
        [m] => format!("{} MiB each", *m as f64 / (1 << 20) as f64),
        _ => "memory differs between the runs".to_string(),
    };
    let title = format!("peers, medians over rounds; {memory} (each engine's own cache)");
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let root = root
        .titled(&title, ("sans-serif", 20))
        .map_err(|e| e.to_string())?;
    let (w, _) = root.dim_in_pixel();
    let (left, right) = root.split_horizontally(w / 2);
    panel(
        &left,
        "bytes written / insert",
        &lines(rows, "write_bytes_per_insert"),
    )?;
    panel(&right, "inserts/s", &lines(rows, "inserts_per_s"))?;
    root.present().map_err(|e| e.to_string())
}

/// Draws `rows` as `svg` and the same with `.png` beside it (the PNG's
/// glyphs drawn by flashix's `WholeGlyphs`, as its figures' are).
pub fn plot(rows: &[Row], svg: &Path) -> Res<()> {
    flashix::experiment::glyphs::register()?;
    const SIZE: (u32, u32) = (1200, 520);
    let failed = |p: &Path| {
        let p = p.display().to_string();
        move |e: String| format!("{p}: {e}")
    };
    draw(SVGBackend::new(svg, SIZE).into_drawing_area(), rows).map_err(failed(svg))?;
    let png = svg.with_extension("png");
    let backend = flashix::experiment::glyphs::WholeGlyphs(BitMapBackend::new(&png, SIZE));
    draw(backend.into_drawing_area(), rows).map_err(failed(&png))?;
    Ok(())
}

/// `--plot`: draws the rows of `csvs` (concatenated) at `svg`.
pub fn replot(csvs: &[std::path::PathBuf], svg: &Path) -> Res<()> {
    let mut rows = Vec::new();
    for c in csvs {
        rows.extend(read_csv(c)?);
    }
    plot(&rows, svg)?;
    eprintln!(
        "peers: wrote {} and {}",
        svg.display(),
        svg.with_extension("png").display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_no_rounds() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
    }

    #[test]
    fn log_ticks_are_one_two_five_inside_the_range() {
        assert_eq!(
            one_two_five(15.0, 600.0),
            vec![20.0, 50.0, 100.0, 200.0, 500.0]
        );
    }

    #[test]
    fn a_csv_reads_back_what_it_wrote_and_an_unfinished_run_has_no_point() {
        let run: Run = [("inserts_per_s", 10.0), ("insert_write_bytes", 800.0)]
            .map(|(k, v)| (k.to_string(), v))
            .into_iter()
            .collect();
        let rows = vec![
            Row::new("a", 100, 1 << 20, 1, Some(&run)),
            Row::new("a", 100, 1 << 20, 2, None),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        write_csv(&path, &rows).unwrap();
        let back = read_csv(&path).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].values.get("write_bytes_per_insert"), Some(&8.0));
        assert!(back[1].values.is_empty());
        assert_eq!(
            lines(&back, "inserts_per_s"),
            vec![("a".to_string(), vec![(100.0, 10.0)])]
        );
        std::fs::write(&path, "engine,n\n").unwrap();
        assert!(read_csv(&path).is_err());
    }
}
