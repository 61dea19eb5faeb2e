//! Figures: an experiment's panels (one per plotted metric, side by side,
//! one line with markers per series over the swept axis) and `compare`'s
//! bar chart (one small panel per measure, one bar per index), written as
//! PNG and SVG with plotters. Text is the embedded DejaVu Sans
//! ([`super::glyphs`]): no font need be installed. A figure that cannot be
//! drawn is a [`ChartError`] naming the file, for the caller to report as a
//! warning beside results already written.

use std::path::{Path, PathBuf};

use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Experiment, RunOutcome};

/// One colour per series, none repeated up to 24 series: tab10 first (the
/// colours the figures always had), then 14 picked greedily, each the
/// sRGB colour (channels in steps of 34) farthest by CIEDE2000 from all
/// before it, among those of lightness 20-78 (visible on white, not
/// black). The closest pair (tab10's red and brown) is 16 apart; 10 is
/// already an obvious difference side by side.
pub const PALETTE: [RGBColor; 32] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(0, 68, 34),
    RGBColor(34, 0, 170),
    RGBColor(102, 102, 0),
    RGBColor(102, 0, 68),
    RGBColor(68, 68, 68),
    RGBColor(136, 170, 255),
    RGBColor(255, 136, 136),
    RGBColor(170, 136, 68),
    RGBColor(204, 0, 102),
    RGBColor(34, 102, 102),
    RGBColor(0, 68, 136),
    RGBColor(34, 204, 170),
    RGBColor(102, 34, 0),
    RGBColor(68, 68, 255),
    // Eight more by the same rule (channels in steps of 17), for
    // fdtree-fig3c's sensitivity series.
    RGBColor(255, 0, 238),
    RGBColor(0, 221, 0),
    RGBColor(0, 119, 255),
    RGBColor(153, 0, 153),
    RGBColor(153, 187, 119),
    RGBColor(187, 102, 255),
    RGBColor(255, 51, 187),
    RGBColor(221, 170, 204),
];

/// The colour of series `i`.
pub(super) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A figure file that could not be drawn, and why.
#[derive(Debug)]
pub struct ChartError {
    pub file: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.reason)
    }
}

impl std::error::Error for ChartError {}

/// One plotted line.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A panel: a y label and its lines.
pub struct PanelData {
    pub title: String,
    pub lines: Vec<Line>,
}

/// The panels of `exp` from its results. The x of a run is its axis value
/// when numeric, else its position.
pub fn panels(exp: &Experiment, results: &[RunOutcome]) -> Vec<PanelData> {
    let points = |series: &str, metric: &str| -> Vec<(f64, f64)> {
        results
            .iter()
            .filter(|r| r.run.series == series)
            .enumerate()
            .filter_map(|(i, r)| {
                let x = r.run.x.parse::<f64>().unwrap_or(i as f64);
                Some((x, *r.metrics.get(metric)?))
            })
            .collect()
    };
    exp.panels
        .iter()
        .map(|p| {
            let mut lines: Vec<Line> = exp
                .series
                .iter()
                .map(|s| Line {
                    name: s.name.to_string(),
                    points: points(s.name, p.metric),
                })
                .collect();
            if let (Some((metric, name)), Some(first)) = (p.reference, exp.series.first()) {
                lines.push(Line {
                    name: name.to_string(),
                    points: points(first.name, metric),
                });
            }
            PanelData {
                title: p.label.to_string(),
                lines,
            }
        })
        .collect()
}

fn draw<DB: DrawingBackend>(
    area: DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    data: &[PanelData],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.fill(&WHITE).map_err(err)?;
    let area = area.titled(title, ("sans-serif", 22)).map_err(err)?;
    let cells = area.split_evenly((1, data.len().max(1)));
    for (cell, panel) in cells.into_iter().zip(data) {
        let xs = panel
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0));
        let ys = panel
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1));
        let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let y1 = ys.filter(|y| y.is_finite()).fold(0.0f64, f64::max);
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        let pad = ((x1 - x0) * 0.05).max(1e-9);
        // Headroom above the data keeps the legend (upper right) off the lines.
        let y_top = if y1 > 0.0 { y1 * 1.35 } else { 1.0 };
        let mut chart = ChartBuilder::on(&cell)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..y_top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(&panel.title)
            // Few, short x labels: sweeps such as 100,000 .. 1,000,000
            // entries would run into each other.
            .x_labels(6)
            .x_label_formatter(&|v| {
                if (v - v.round()).abs() < 1e-9 {
                    format!("{}", v.round() as i64)
                } else {
                    format!("{v:.3}")
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string()
                }
            })
            // Plain numbers up to six digits, so one axis never mixes
            // "9000" with "1.0e4".
            .y_label_formatter(&|v| {
                if v.abs() >= 1e6 {
                    format!("{v:.1e}")
                } else {
                    format!("{v:.4}")
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string()
                }
            })
            .draw()
            .map_err(err)?;
        for (i, line) in panel.lines.iter().enumerate() {
            let colour = colour(i);
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .copied()
                .filter(|p| p.1.is_finite())
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                .map_err(err)?
                .label(line.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                .map_err(err)?;
        }
        draw_legend(&mut chart).map_err(err)?;
    }
    area.present().map_err(err)
}

/// The legend every figure uses: upper right, on a light box (the plots
/// leave headroom above the data for it).
fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

/// A plot area and a legend area.
pub(super) type Split<DB> = (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>);

/// `area` filled white and split into the plot and, at its right,
/// `legend` pixels for a legend.
pub(super) fn white_with_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: u32,
) -> Result<Split<DB>, String>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let (w, _) = area.dim_in_pixel();
    Ok(area.split_horizontally(w.saturating_sub(legend)))
}

/// Something drawable on any plotters backend.
pub(super) trait Figure {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

/// Renders `figure` as `stem.png` and `stem.svg` of `size` pixels; the
/// first file that cannot be drawn ends it.
pub(super) fn write_png_svg(
    stem: &Path,
    size: (u32, u32),
    figure: &impl Figure,
) -> Result<(), ChartError> {
    let png = stem.with_extension("png");
    let failed = |file: &Path| {
        let file = file.to_path_buf();
        move |reason: String| ChartError { file, reason }
    };
    // Layout needs the font even for SVG, whose text the viewer renders.
    super::glyphs::register().map_err(|e| failed(&png)(e.to_string()))?;
    figure
        .draw_on(super::glyphs::WholeGlyphs(BitMapBackend::new(&png, size)).into_drawing_area())
        .map_err(failed(&png))?;
    let svg = stem.with_extension("svg");
    figure
        .draw_on(SVGBackend::new(&svg, size).into_drawing_area())
        .map_err(failed(&svg))
}

struct Lines<'a> {
    title: &'a str,
    x_label: &'a str,
    data: &'a [PanelData],
}

impl Figure for Lines<'_> {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        draw(area, self.title, self.x_label, self.data)
    }
}

/// Writes the figure as `stem.png` and `stem.svg`.
pub fn write_figure(
    stem: &Path,
    title: &str,
    x_label: &str,
    data: &[PanelData],
) -> Result<(), ChartError> {
    let width = (520 * data.len().max(1) as u32).max(720);
    write_png_svg(
        stem,
        (width, 480),
        &Lines {
            title,
            x_label,
            data,
        },
    )
}

/// How a group of bars is drawn, from its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Scale {
    /// Every value the same (all zero included) or none: nothing to
    /// compare, so not drawn; the legend says so.
    Constant(Option<f64>),
    /// Linear from `lo` (0 unless a value is negative) to `hi`.
    Linear { lo: f64, hi: f64 },
    /// Logarithmic, `lo` to `hi`: the largest value is at least
    /// [`LOG_FROM`] times the smallest non-zero one, which a linear axis
    /// would flatten.
    Log { lo: f64, hi: f64 },
}

/// The spread (largest over smallest non-zero) from which a group's axis
/// is logarithmic.
const LOG_FROM: f64 = 10.0;

pub(super) fn scale_of(values: &[f64]) -> Scale {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    let (min, max) = finite().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if min.partial_cmp(&max) != Some(std::cmp::Ordering::Less) {
        return Scale::Constant(min.is_finite().then_some(min));
    }
    let smallest_positive = finite().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
    if min >= 0.0 && smallest_positive.is_finite() && max >= LOG_FROM * smallest_positive {
        // Half a decade beyond either end: the smallest bar stays visible
        // and the largest clear of the panel's top.
        let margin = 10f64.sqrt();
        Scale::Log {
            lo: smallest_positive / margin,
            hi: max * margin,
        }
    } else {
        let lo = min.min(0.0);
        Scale::Linear {
            lo,
            hi: max + (max - lo) * 0.1,
        }
    }
}

/// A number for an axis in at most about six characters, thousands as
/// k, M, G, T so a log axis reads 100, 1k, 10k, 100k, 1M.
pub(crate) fn short_number(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if a < 1e-3 {
        return format!("{v:.1e}");
    }
    if a < 1e3 {
        return trim(format!("{v:.3}"));
    }
    let (div, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|&(d, _)| a >= d)
        .unwrap_or((1.0, ""));
    let digits = if a / div >= 100.0 { 0 } else { 2 };
    format!("{}{suffix}", trim(format!("{:.digits$}", v / div)))
}

/// What a bar chart marks beside its bars (`compare`'s memory budget): a
/// limit drawn as a line across one group's panel, and the names that
/// passed it, whose bars are drawn grey (outlined in their colour) in
/// every panel and named so in the legend: they are out of the comparison.
#[derive(Clone, Debug, Default)]
pub struct BarMarks {
    /// The group, the limit on its axis, and the line's label.
    pub limit: Option<(String, f64, String)>,
    /// Per name: whether it passed the limit.
    pub greyed: Vec<bool>,
}

impl BarMarks {
    fn greyed(&self, i: usize) -> bool {
        self.greyed.get(i).copied().unwrap_or(false)
    }

    /// The limit, where it is drawn on group `name`'s panel.
    fn limit_on(&self, name: &str) -> Option<(f64, &str)> {
        self.limit
            .as_ref()
            .filter(|(g, v, _)| g == name && v.is_finite())
            .map(|(_, v, label)| (*v, label.as_str()))
    }
}

/// The fill of a bar out of the comparison (`BarMarks::greyed`).
const GREYED: RGBColor = RGBColor(215, 215, 215);

/// A bar or legend swatch of series `i` in `rect`: its colour, or grey
/// outlined in it where `greyed`.
fn swatch(i: usize, greyed: bool) -> [ShapeStyle; 2] {
    if greyed {
        [GREYED.filled(), colour(i).stroke_width(2)]
    } else {
        [colour(i).filled(), colour(i).filled()]
    }
}

struct Bars<'a> {
    title: &'a str,
    names: &'a [String],
    groups: &'a [(String, Vec<f64>)],
    marks: &'a BarMarks,
}

/// Panel grid of the bar chart: columns, rows, and one panel's size.
const BAR_COLUMNS: usize = 3;
const BAR_PANEL: (u32, u32) = (330, 250);
/// Pixels to the right of the bar chart for its legend and notes.
const LEGEND_WIDTH: u32 = 260;
/// Pixels above the panels for the title.
const TITLE_HEIGHT: u32 = 40;

impl Bars<'_> {
    /// The groups drawn, each with its scale: a limit drawn on a panel is
    /// within its axis.
    fn drawn(&self) -> Vec<(&str, &[f64], Scale)> {
        self.groups
            .iter()
            .map(|(n, v)| {
                let scale = match self.marks.limit_on(n) {
                    Some((limit, _)) => {
                        let mut with: Vec<f64> = v.clone();
                        with.push(limit);
                        scale_of(&with)
                    }
                    None => scale_of(v),
                };
                (n.as_str(), v.as_slice(), scale)
            })
            .filter(|g| !matches!(g.2, Scale::Constant(_)))
            .collect()
    }

    fn size(&self) -> (u32, u32) {
        let panels = self.drawn().len().max(1);
        let rows = panels.div_ceil(BAR_COLUMNS) as u32;
        let cols = panels.min(BAR_COLUMNS) as u32;
        let legend = 60 + 22 * (self.names.len() + self.groups.len() + 2) as u32;
        (
            cols * BAR_PANEL.0 + LEGEND_WIDTH,
            (TITLE_HEIGHT + rows * BAR_PANEL.1).max(legend),
        )
    }
}

impl Figure for Bars<'_> {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let (plot_area, legend_area) = white_with_legend(&area, LEGEND_WIDTH)?;
        let label = ("sans-serif", 13).into_font();
        for (i, name) in self.names.iter().enumerate() {
            let y = 60 + 22 * i as i32;
            let greyed = self.marks.greyed(i);
            for style in swatch(i, greyed) {
                legend_area
                    .draw(&Rectangle::new([(4, y - 6), (18, y + 6)], style))
                    .map_err(err)?;
            }
            let text = if greyed {
                format!("{name} (over)")
            } else {
                name.clone()
            };
            legend_area
                .draw(&Text::new(text, (24, y - 7), label.clone()))
                .map_err(err)?;
        }
        // Groups with nothing to compare are named, not drawn.
        let mut y = 60 + 22 * self.names.len() as i32 + 10;
        for (name, values) in self.groups {
            let Scale::Constant(v) = scale_of(values) else {
                continue;
            };
            let note = match v {
                Some(v) => format!("{name}: {} for all", short_number(v)),
                None => format!("{name}: no value"),
            };
            legend_area
                .draw(&Text::new(note, (4, y - 7), label.clone()))
                .map_err(err)?;
            y += 22;
        }
        let plot_area = plot_area
            .titled(self.title, ("sans-serif", 20))
            .map_err(err)?;
        let drawn = self.drawn();
        let rows = drawn.len().div_ceil(BAR_COLUMNS).max(1);
        let cells = plot_area.split_evenly((rows, drawn.len().clamp(1, BAR_COLUMNS)));
        for (cell, (name, values, scale)) in cells.iter().zip(drawn) {
            let panel = BarPanel {
                values,
                marks: self.marks,
                limit: self.marks.limit_on(name),
            };
            match scale {
                Scale::Log { lo, hi } => {
                    panel.draw(cell, &format!("{name} (log)"), (lo..hi).log_scale(), lo)
                }
                Scale::Linear { lo, hi } => panel.draw(cell, name, lo..hi, 0.0),
                Scale::Constant(_) => Ok(()),
            }?;
        }
        area.present().map_err(err)
    }
}

/// One group's bars, with the marks of the chart.
struct BarPanel<'a> {
    values: &'a [f64],
    marks: &'a BarMarks,
    /// The limit drawn across this panel, and its label.
    limit: Option<(f64, &'a str)>,
}

impl BarPanel<'_> {
    /// The bars in `cell`: bar `i` in series `i`'s colour (grey where it
    /// passed the limit), from `base` to its value on the axis `y`
    /// (absolute values, labelled), and the limit as a dashed line. On a
    /// log axis a zero has no bar; a "0" marks it.
    fn draw<DB, Y>(
        &self,
        cell: &DrawingArea<DB, Shift>,
        caption: &str,
        y: Y,
        base: f64,
    ) -> Result<(), String>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let n = self.values.len().max(1);
        let log = base > 0.0;
        let mut chart = ChartBuilder::on(cell)
            .caption(caption, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(6)
            .y_label_area_size(58)
            .build_cartesian_2d(0.0..n as f64, y)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(6)
            .y_label_formatter(&|v| short_number(*v))
            .draw()
            .map_err(err)?;
        for (i, &v) in self.values.iter().enumerate() {
            if !v.is_finite() {
                continue;
            }
            let x0 = i as f64 + 0.1;
            if log && v <= 0.0 {
                chart
                    .draw_series(std::iter::once(Text::new(
                        "0",
                        (i as f64 + 0.3, base * 1.5),
                        ("sans-serif", 11).into_font().color(&BLACK),
                    )))
                    .map_err(err)?;
                continue;
            }
            for style in swatch(i, self.marks.greyed(i)) {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, base), (x0 + 0.8, v)],
                        style,
                    )))
                    .map_err(err)?;
            }
        }
        if let Some((limit, label)) = self.limit {
            let dashes = (0..2 * n).map(|k| {
                let x = k as f64 / 2.0;
                PathElement::new(vec![(x, limit), (x + 0.3, limit)], BLACK.stroke_width(2))
            });
            chart.draw_series(dashes).map_err(err)?;
            // Above the line, where only bars past it (grey) are.
            let above = Pos::new(HPos::Left, VPos::Bottom);
            chart
                .draw_series(std::iter::once(Text::new(
                    label.to_string(),
                    (0.05, limit),
                    ("sans-serif", 12).into_font().color(&BLACK).pos(above),
                )))
                .map_err(err)?;
        }
        Ok(())
    }
}

/// A bar chart of `groups` (a measure's name and one value per name in
/// `names`), as `stem.png` and `stem.svg`: one panel per group, each with
/// its own labelled axis, logarithmic where the largest bar is 10× the
/// smallest non-zero one; a group whose values are all equal (all zero
/// included) or missing is listed under the legend instead of drawn.
/// `marks`: a limit line and the names that passed it ([`BarMarks`]).
pub fn write_bar_chart(
    stem: &Path,
    title: &str,
    names: &[String],
    groups: &[(String, Vec<f64>)],
    marks: &BarMarks,
) -> Result<(), ChartError> {
    let bars = Bars {
        title,
        names,
        groups,
        marks,
    };
    write_png_svg(stem, bars.size(), &bars)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CIELAB of an sRGB colour (D65).
    fn lab(c: RGBColor) -> [f64; 3] {
        let lin = |v: u8| {
            let v = v as f64 / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (lin(c.0), lin(c.1), lin(c.2));
        let f = |t: f64| {
            if t > 0.008856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        let x = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
        let y = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
        let z = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
        [116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)]
    }

    /// At least 20 series get colours no two alike (CIE76 distance over 20
    /// for every pair; 2.3 is the least a viewer notices) and each shows on
    /// white (lightness under 80).
    #[test]
    fn the_palette_tells_twenty_series_apart() {
        assert!(PALETTE.len() >= 20);
        let labs: Vec<[f64; 3]> = PALETTE.iter().map(|&c| lab(c)).collect();
        for (i, a) in labs.iter().enumerate() {
            assert!(a[0] < 80.0, "{:?} is too light", PALETTE[i]);
            for (j, b) in labs.iter().enumerate().skip(i + 1) {
                let d = a.iter().zip(b).map(|(p, q)| (p - q).powi(2)).sum::<f64>();
                assert!(
                    d.sqrt() > 20.0,
                    "{:?} and {:?}: {:.1}",
                    PALETTE[i],
                    PALETTE[j],
                    d.sqrt()
                );
            }
        }
    }

    /// No experiment panel has more lines than the palette has colours.
    #[test]
    fn no_experiment_repeats_a_colour_in_a_panel() {
        for exp in super::super::experiments() {
            let reference = exp.panels.iter().any(|p| p.reference.is_some()) as usize;
            assert!(
                exp.series.len() + reference <= PALETTE.len(),
                "{}: {} series",
                exp.id,
                exp.series.len()
            );
        }
    }

    #[test]
    fn axis_numbers_are_short() {
        let cases = [
            (0.0, "0"),
            (0.5, "0.5"),
            (0.0001, "1.0e-4"),
            (999.0, "999"),
            (1000.0, "1k"),
            (1500.0, "1.5k"),
            (15000.0, "15k"),
            (100000.0, "100k"),
            (1e6, "1M"),
            (7.7e6, "7.7M"),
            (2.5e9, "2.5G"),
            (-2000.0, "-2k"),
        ];
        for (v, text) in cases {
            assert_eq!(short_number(v), text, "{v}");
        }
    }

    #[test]
    fn a_group_is_log_from_a_tenfold_spread_and_skipped_when_constant() {
        assert_eq!(scale_of(&[0.0, 0.0, 0.0]), Scale::Constant(Some(0.0)));
        assert_eq!(scale_of(&[3.0, 3.0]), Scale::Constant(Some(3.0)));
        assert_eq!(scale_of(&[]), Scale::Constant(None));
        assert_eq!(scale_of(&[f64::NAN]), Scale::Constant(None));
        assert!(matches!(
            scale_of(&[1.0, 9.0]),
            Scale::Linear { lo: 0.0, .. }
        ));
        // Zeros do not count towards the spread; 10× does.
        assert!(matches!(scale_of(&[0.0, 1.0, 9.9]), Scale::Linear { .. }));
        let Scale::Log { lo, hi } = scale_of(&[0.0, 2.0, 20.0, 7.7e6]) else {
            panic!("not log");
        };
        assert!(lo < 2.0 && lo > 0.2 && hi > 7.7e6, "{lo} {hi}");
        // A negative value keeps the axis linear, from below it.
        assert!(matches!(
            scale_of(&[-1.0, 50.0]),
            Scale::Linear { lo: -1.0, .. }
        ));
    }

    /// The bar chart draws, with a constant group and a 10^6 spread among
    /// 20 series, as a PNG and an SVG; a PNG that cannot be written is an
    /// error naming it.
    #[test]
    fn bar_chart_draws_and_names_the_file_it_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..20).map(|i| format!("index-{i}")).collect();
        let groups = vec![
            (
                "page writes".to_string(),
                (0..20).map(|i| (i * i) as f64).collect(),
            ),
            (
                "reads".to_string(),
                (0..20).map(|i| 10f64.powi(i % 7)).collect(),
            ),
            ("erases".to_string(), vec![0.0; 20]),
        ];
        let stem = dir.path().join("compare");
        // A limit above every bar (the axis reaches it) and two names
        // past it.
        let marks = BarMarks {
            limit: Some(("page writes".into(), 1000.0, "budget 1 KiB".into())),
            greyed: (0..20).map(|i| i == 3 || i == 19).collect(),
        };
        write_bar_chart(&stem, "t", &names, &groups, &marks).unwrap();
        assert_eq!(
            &std::fs::read(stem.with_extension("png")).unwrap()[..4],
            b"\x89PNG"
        );
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        assert!(svg.contains("reads (log)") && svg.contains("erases: 0 for all"));
        assert!(svg.contains("budget 1 KiB"), "the limit is drawn and named");
        assert_eq!(svg.matches("(over)").count(), 2, "the names past it");
        // Their bars: grey, outlined in their colour.
        assert!(svg.contains("#D7D7D7"), "a grey bar");
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.with_extension("png")).unwrap();
        let e = write_bar_chart(&blocked, "t", &names, &groups, &BarMarks::default()).unwrap_err();
        assert_eq!(e.file, blocked.with_extension("png"));
    }
}
