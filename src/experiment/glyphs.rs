//! The figures' font, embedded in the binary, and PNG text with every glyph
//! whole and rotated text turned.
//!
//! Figures must draw on a machine with no font installed and build with no
//! font library, so the font is DejaVu Sans from the `dejavu` crate
//! (`include_bytes!`; licence in LICENSE-DEJAVU), registered with plotters'
//! pure-Rust `ab_glyph` text path by [`register`] for the one family the
//! figures ask for, "sans-serif". plotters uses it to lay text out (and the
//! SVG backend to place its `<text>` elements); the PNG glyphs are drawn
//! here, not by plotters, for two reasons:
//!
//! - plotters' ab_glyph path draws each glyph from the left edge of its
//!   ink, dropping the side bearing (a `j`, whose ink reaches left of its
//!   origin, lands one stem too far right; an `l` sits on its neighbour),
//!   and puts the baseline at half the size, which lifts capitals above
//!   their layout box (a y tick label sits above its tick);
//! - text that plotters asks the backend to rotate (the y-axis title) comes
//!   out unrotated in PNG.
//!
//! [`WholeGlyphs`] wraps the bitmap backend and rasterizes text with
//! ab_glyph at plotters' size convention (`size` is the font's ascent minus
//! descent in pixels, so widths equal plotters' layout box, kerning
//! included), each glyph at its origin with its own bounds (nothing is
//! cut), capitals centred in the layout box, then turned by the style's
//! rotation.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A text drawing failure: the embedded font did not load.
#[derive(Debug)]
pub struct GlyphError(String);

impl std::fmt::Display for GlyphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GlyphError {}

/// The embedded DejaVu Sans, parsed once.
fn font() -> Result<&'static FontRef<'static>, GlyphError> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(dejavu::sans::regular()).ok())
        .as_ref()
        .ok_or_else(|| GlyphError("the embedded DejaVu Sans does not parse".into()))
}

/// Registers the embedded font with plotters as "sans-serif" (every style
/// falls back to it); needed before any figure is laid out. Idempotent.
pub fn register() -> Result<(), GlyphError> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(GlyphError(
            "the embedded DejaVu Sans does not register with plotters".into(),
        ))
    }
}

/// Calls `put(x, y, alpha)` for every pixel of `text` at `size` (plotters'
/// size), the origin at the top left of the text's layout box as plotters
/// places it (module doc). Pixels may fall outside the box (descenders, a
/// `j` left of the first origin): that is the point.
pub fn rasterize(
    text: &str,
    size: f64,
    mut put: impl FnMut(i32, i32, f32),
) -> Result<(), GlyphError> {
    let font = font()?.as_scaled(size as f32);
    // plotters' layout box is size / 1.24 tall; capitals centred in it.
    let cap = -font.glyph_bounds(&font.scaled_glyph('H')).min.y;
    let baseline = (size as f32 / 1.24 + cap) / 2.0;
    let mut x = 0.0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = prev {
            x += font.kern(p, id);
        }
        prev = Some(id);
        let glyph = id.with_scale_and_position(font.scale(), point(x, baseline));
        if let Some(outline) = font.outline_glyph(glyph) {
            let b = outline.px_bounds();
            let (left, top) = (b.min.x as i32, b.min.y as i32);
            outline.draw(|dx, dy, a| {
                if a > 0.0 {
                    put(left + dx as i32, top + dy as i32, a.min(1.0));
                }
            });
        }
        x += font.h_advance(id);
    }
    Ok(())
}

/// The bitmap backend with [`rasterize`] for text (module doc).
pub struct WholeGlyphs<'a>(pub BitMapBackend<'a>);

impl DrawingBackend for WholeGlyphs<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(pos, size, src)
    }

    /// plotters' placement (anchor, layout box, rotation), our glyphs.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        // The anchor is placed in the unrotated box, then the whole is
        // turned about `pos`, as plotters' own backends do.
        let trans = style.transform();
        let mut pixels = Vec::new();
        rasterize(text, style.size(), |x, y, a| {
            let (x, y) = trans.transform(x + dx - min_x, y + dy - min_y);
            pixels.push(((pos.0 + x, pos.1 + y), a));
        })
        .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        for (p, a) in pixels {
            let c = BackendColor {
                alpha: color.alpha * a as f64,
                rgb: color.rgb,
            };
            self.0.draw_pixel(p, c)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ink of `text` drawn at `size`, per square pixel of size (so sizes
    /// compare).
    fn ink(text: &str, size: f64) -> f64 {
        let mut sum = 0.0f64;
        rasterize(text, size, |_, _, a| sum += a as f64).unwrap();
        sum / (size * size)
    }

    /// Every printable ASCII glyph, at every size the figures use, has about
    /// the ink it has when drawn large: nothing of it is cut. (plotters'
    /// font-kit path lost `j`'s stem at 12.)
    #[test]
    fn every_glyph_is_whole_at_label_sizes() {
        for c in ('!'..='~').chain("µ×·−²³⁶".chars()) {
            let s = c.to_string();
            let reference = ink(&s, 96.0);
            assert!(reference > 0.0, "{c:?} has no ink");
            for size in [
                9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 18.0, 20.0, 22.0,
            ] {
                let r = ink(&s, size) / reference;
                assert!(
                    (0.6..1.6).contains(&r),
                    "{c:?} at {size}: {r:.2} of its ink at 96"
                );
            }
        }
    }

    /// The ink's bounding box (x0, y0, x1, y1) of `text` drawn by the backend
    /// at (100, 100) on a 200 × 200 canvas with `style`.
    fn drawn_box(text: &str, style: TextStyle) -> (usize, usize, usize, usize) {
        let mut buf = vec![255u8; 200 * 200 * 3];
        {
            let mut b = WholeGlyphs(BitMapBackend::with_buffer(&mut buf, (200, 200)));
            b.draw_text(text, &style, (100, 100)).unwrap();
            b.present().unwrap();
        }
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for (i, px) in buf.chunks(3).enumerate() {
            if px[0] < 128 {
                let (x, y) = (i % 200, i / 200);
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
        (x0, y0, x1, y1)
    }

    /// A y-axis title is drawn turned (taller than wide, reading upwards:
    /// plotters' Rotate270), and text of the same style unturned is wider
    /// than tall with its top-left anchor at the point given.
    #[test]
    fn rotated_text_is_turned_and_anchored() {
        // A font description looks its font up when made: register first.
        register().unwrap();
        let font = ("sans-serif", 16).into_font();
        let (x0, y0, x1, y1) = drawn_box("energy (joule)", font.clone().color(&BLACK));
        assert!(x1 - x0 > 3 * (y1 - y0), "{:?}", (x0, y0, x1, y1));
        assert!((99..=101).contains(&x0) && (100..=104).contains(&y0));
        let turned = font.transform(FontTransform::Rotate270).color(&BLACK);
        let (x0, y0, x1, y1) = drawn_box("energy (joule)", turned);
        assert!(y1 - y0 > 3 * (x1 - x0), "{:?}", (x0, y0, x1, y1));
        // Rotate270 turns the box about the anchor, upwards from it.
        assert!(y1 <= 101 && x0 >= 100, "{:?}", (x0, y0, x1, y1));
    }

    /// Numbers right-aligned at a tick end at the tick, centred on it.
    #[test]
    fn tick_labels_end_at_and_centre_on_the_anchor() {
        use plotters::style::text_anchor::Pos;
        register().unwrap();
        let style = ("sans-serif", 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let (_, y0, x1, y1) = drawn_box("1000", style);
        assert!((97..=100).contains(&x1), "ends at {x1}");
        let centre = (y0 + y1) as f64 / 2.0;
        assert!((centre - 100.0).abs() <= 1.5, "digits centred at {centre}");
    }
}
