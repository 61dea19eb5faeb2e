//! Figures of an experiment: one panel per plotted metric, side by side,
//! one line (with markers) per series over the swept axis, written as PNG
//! and SVG with plotters. Text uses the system's fonts (fontconfig); PNG
//! text goes through [`super::glyphs`] so no glyph is cut.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Experiment, RunOutcome};

const COLOURS: [RGBColor; 10] = [
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
];

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
            let colour = COLOURS[i % COLOURS.len()];
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

/// Something drawable on any plotters backend.
trait Figure {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

/// Renders `figure` as `stem.png` and `stem.svg`, `width` × 480 pixels.
fn write_png_svg(stem: &Path, width: u32, figure: &impl Figure) -> Result<(), String> {
    let png = stem.with_extension("png");
    figure
        .draw_on(
            super::glyphs::WholeGlyphs(BitMapBackend::new(&png, (width, 480))).into_drawing_area(),
        )
        .map_err(|e| format!("{}: {e}", png.display()))?;
    let svg = stem.with_extension("svg");
    figure
        .draw_on(SVGBackend::new(&svg, (width, 480)).into_drawing_area())
        .map_err(|e| format!("{}: {e}", svg.display()))
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

struct Bars<'a> {
    title: &'a str,
    names: &'a [String],
    groups: &'a [(String, Vec<f64>)],
}

impl Figure for Bars<'_> {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        draw_bars(area, self.title, self.names, self.groups)
    }
}

/// Writes the figure as `stem.png` and `stem.svg`.
pub fn write_figure(
    stem: &Path,
    title: &str,
    x_label: &str,
    data: &[PanelData],
) -> Result<(), String> {
    let width = (520 * data.len().max(1) as u32).max(720);
    write_png_svg(
        stem,
        width,
        &Lines {
            title,
            x_label,
            data,
        },
    )
}

fn draw_bars<DB: DrawingBackend>(
    area: DrawingArea<DB, Shift>,
    title: &str,
    names: &[String],
    groups: &[(String, Vec<f64>)],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.fill(&WHITE).map_err(err)?;
    let n_groups = groups.len().max(1);
    let labels: Vec<String> = groups.iter().map(|g| g.0.clone()).collect();
    // The legend gets a column of its own: over the bars it would hide the
    // tallest ones.
    let (w, _) = area.dim_in_pixel();
    let (plot_area, legend_area) = area.split_horizontally(w.saturating_sub(LEGEND_WIDTH));
    for (i, name) in names.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let y = 60 + 22 * i as i32;
        legend_area
            .draw(&Rectangle::new([(4, y - 6), (18, y + 6)], colour.filled()))
            .map_err(err)?;
        legend_area
            .draw(&Text::new(
                name.clone(),
                (24, y - 7),
                ("sans-serif", 13).into_font(),
            ))
            .map_err(err)?;
    }
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..n_groups as f64, 0.0..1.05)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n_groups * 2 + 1)
        .x_label_formatter(&|x| {
            let g = x.floor() as usize;
            if (x - g as f64 - 0.5).abs() < 0.01 {
                labels.get(g).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("relative to the largest in the group")
        .draw()
        .map_err(err)?;
    let width = 0.8 / names.len().max(1) as f64;
    for i in 0..names.len() {
        let colour = COLOURS[i % COLOURS.len()];
        let bars = groups.iter().enumerate().filter_map(|(g, (_, values))| {
            let max = values.iter().copied().fold(0.0f64, f64::max);
            let v = *values.get(i)?;
            let h = if max > 0.0 { v / max } else { 0.0 };
            let x0 = g as f64 + 0.1 + i as f64 * width;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + width * 0.9, h)],
                colour.filled(),
            ))
        });
        chart.draw_series(bars).map_err(err)?;
    }
    area.present().map_err(err)
}

/// Pixels to the right of a bar chart for its legend.
const LEGEND_WIDTH: u32 = 220;

/// A grouped bar chart (one group per metric, one bar per index, each
/// group scaled to its largest value), as `stem.png` and `stem.svg`.
pub fn write_bar_chart(
    stem: &Path,
    title: &str,
    names: &[String],
    groups: &[(String, Vec<f64>)],
) -> Result<(), String> {
    let width = (130 * groups.len() as u32).max(800) + LEGEND_WIDTH;
    write_png_svg(
        stem,
        width,
        &Bars {
            title,
            names,
            groups,
        },
    )
}
