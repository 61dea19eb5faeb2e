//! `advise`'s chart: one marker per configuration at (time per operation,
//! page writes per operation), its area proportional to the memory it
//! counted, the Pareto front filled in colour and named in the legend, the
//! others hollow and grey. Each axis is logarithmic where its largest value
//! is ten times its smallest (all positive), as `compare`'s bars are
//! ([`super::plot`]); drawn with the same embedded font, as PNG and SVG.

use std::path::Path;

use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::plot::{
    colour, scale_of, short_number, white_with_legend, write_png_svg, ChartError, Figure, Scale,
};

/// One configuration on the chart.
#[derive(Clone, Debug)]
pub struct Dot {
    pub label: String,
    pub x: f64,
    pub y: f64,
    /// Memory (any unit): the marker's area is proportional to it.
    pub size: f64,
    /// On the front: filled, coloured and named.
    pub front: bool,
}

struct Scatter<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    dots: &'a [Dot],
}

const LEGEND_WIDTH: u32 = 330;
const SIZE: (u32, u32) = (1000, 620);
const GREY: RGBColor = RGBColor(150, 150, 150);

/// The axis range of `values`: logarithmic (`true`) where the spread is
/// tenfold and every value positive, else linear from 0.
fn axis(values: &[f64]) -> (f64, f64, bool) {
    match scale_of(values) {
        Scale::Log { lo, hi } if values.iter().all(|&v| v > 0.0) => (lo, hi, true),
        Scale::Linear { hi, .. } | Scale::Log { hi, .. } => (0.0, hi, false),
        Scale::Constant(v) => {
            let v = v.unwrap_or(1.0).abs().max(1e-9);
            (0.0, v * 2.0, false)
        }
    }
}

/// The marker radius of `size` when the largest is `max`.
fn radius(size: f64, max: f64) -> i32 {
    let share = if max > 0.0 {
        (size / max).max(0.0)
    } else {
        0.0
    };
    3 + (10.0 * share.sqrt()).round() as i32
}

fn panel<DB, X, Y>(area: &DrawingArea<DB, Shift>, s: &Scatter, x: X, y: Y) -> Result<(), String>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mut chart = ChartBuilder::on(area)
        .caption(s.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(s.x_label)
        .y_desc(s.y_label)
        .x_label_formatter(&|v| short_number(*v))
        .y_label_formatter(&|v| short_number(*v))
        .draw()
        .map_err(err)?;
    let max = s.dots.iter().map(|d| d.size).fold(0.0, f64::max);
    // The others first, so the front is drawn over them.
    for d in s.dots.iter().filter(|d| !d.front) {
        chart
            .draw_series(std::iter::once(Circle::new(
                (d.x, d.y),
                radius(d.size, max),
                GREY.stroke_width(1),
            )))
            .map_err(err)?;
    }
    for (i, d) in s.dots.iter().filter(|d| d.front).enumerate() {
        chart
            .draw_series(std::iter::once(Circle::new(
                (d.x, d.y),
                radius(d.size, max),
                colour(i).mix(0.8).filled(),
            )))
            .map_err(err)?;
    }
    Ok(())
}

impl Figure for Scatter<'_> {
    fn draw_on<DB: DrawingBackend>(&self, area: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let (plot, legend) = white_with_legend(&area, LEGEND_WIDTH)?;
        let font = ("sans-serif", 13).into_font();
        let mut y = 40;
        for (i, d) in self.dots.iter().filter(|d| d.front).enumerate() {
            legend
                .draw(&Circle::new((12, y), 6, colour(i).filled()))
                .map_err(err)?;
            legend
                .draw(&Text::new(d.label.clone(), (24, y - 7), font.clone()))
                .map_err(err)?;
            y += 22;
        }
        let notes = [
            "hollow grey: within the budget, not on the front",
            "marker area: memory counted",
        ];
        for note in notes {
            y += 8;
            legend
                .draw(&Text::new(note, (4, y - 7), font.clone()))
                .map_err(err)?;
            y += 14;
        }
        let xs: Vec<f64> = self.dots.iter().map(|d| d.x).collect();
        let ys: Vec<f64> = self.dots.iter().map(|d| d.y).collect();
        let ((x0, x1, xlog), (y0, y1, ylog)) = (axis(&xs), axis(&ys));
        match (xlog, ylog) {
            (true, true) => panel(&plot, self, (x0..x1).log_scale(), (y0..y1).log_scale()),
            (true, false) => panel(&plot, self, (x0..x1).log_scale(), y0..y1),
            (false, true) => panel(&plot, self, x0..x1, (y0..y1).log_scale()),
            (false, false) => panel(&plot, self, x0..x1, y0..y1),
        }?;
        area.present().map_err(err)
    }
}

/// Writes the chart of `dots` as `stem.png` and `stem.svg`.
pub fn write_scatter(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    dots: &[Dot],
) -> Result<(), ChartError> {
    let s = Scatter {
        title,
        x_label,
        y_label,
        dots,
    };
    let height = SIZE
        .1
        .max(60 + 22 * dots.iter().filter(|d| d.front).count() as u32);
    write_png_svg(stem, (SIZE.0, height), &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scatter_draws_a_front_over_a_tenfold_spread_and_a_zero() {
        let dir = tempfile::tempdir().unwrap();
        let dots: Vec<Dot> = (0..12)
            .map(|i| Dot {
                label: format!("index-{i}"),
                x: 10f64.powi(i % 4) * 100.0,
                // A read-only configuration writes nothing: a linear axis.
                y: if i == 0 { 0.0 } else { i as f64 * 0.1 },
                size: (i * 1000) as f64,
                front: i % 3 == 0,
            })
            .collect();
        let stem = dir.path().join("advise");
        write_scatter(&stem, "t", "time", "writes", &dots).unwrap();
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        assert!(
            svg.contains("index-3") && !svg.contains("index-1<"),
            "front named only"
        );
        assert_eq!(
            &std::fs::read(stem.with_extension("png")).unwrap()[..4],
            b"\x89PNG"
        );
        assert_eq!(radius(0.0, 100.0), 3);
        assert_eq!(radius(100.0, 100.0), 13);
    }
}
