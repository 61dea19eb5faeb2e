//! Text for the PNG figures, with every glyph whole.
//!
//! plotters' TrueType path rasterizes each glyph into a canvas whose left
//! edge is the glyph's origin, so a glyph that reaches left of its origin
//! (a negative left side bearing: DejaVu Sans' `j` and, at some sizes, `J`)
//! loses that part, at many sizes its whole stem: "energy (joule)" came out
//! as "energy (.oule)". [`WholeGlyphs`] wraps the bitmap backend and
//! rasterizes text itself, with the same font choice (fontconfig through
//! font-kit), the same size convention and baseline as plotters, and a
//! margin around the origin so nothing is cut. Kerning is not applied: the
//! strings are short labels, and plotters' layout box (kerned) differs from
//! the drawn width by at most a pixel or two. SVG figures carry real text
//! and need none of this.

use std::cell::RefCell;
use std::collections::HashMap;

use font_kit::canvas::{Canvas, Format, RasterizationOptions};
use font_kit::family_name::FamilyName;
use font_kit::font::Font;
use font_kit::hinting::HintingOptions;
use font_kit::properties::{Properties, Style, Weight};
use font_kit::source::SystemSource;
use pathfinder_geometry::transform2d::Transform2F;
use pathfinder_geometry::vector::{Vector2F, Vector2I};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontFamily,
    FontStyle,
};

/// A text drawing failure: no font, or a glyph the font cannot render.
#[derive(Debug)]
pub struct GlyphError(String);

impl std::fmt::Display for GlyphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GlyphError {}

thread_local! {
    static FONTS: RefCell<HashMap<String, Font>> = RefCell::new(HashMap::new());
}

/// The font plotters would pick for `family` and `style`, loaded once per
/// thread (font-kit fonts are not `Send`).
fn font(family: FontFamily, style: FontStyle) -> Result<Font, GlyphError> {
    let key = format!("{}|{}", family.as_str(), style.as_str());
    if let Some(f) = FONTS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(f);
    }
    let mut props = Properties::new();
    match style {
        FontStyle::Normal => props.style(Style::Normal),
        FontStyle::Italic => props.style(Style::Italic),
        FontStyle::Oblique => props.style(Style::Oblique),
        FontStyle::Bold => props.weight(Weight::BOLD),
    };
    let name = match family {
        FontFamily::Serif => FamilyName::Serif,
        FontFamily::SansSerif => FamilyName::SansSerif,
        FontFamily::Monospace => FamilyName::Monospace,
        FontFamily::Name(n) => FamilyName::Title(n.to_string()),
    };
    let font = SystemSource::new()
        .select_best_match(&[name, FamilyName::SansSerif], &props)
        .map_err(|e| GlyphError(format!("no font for {}: {e}", family.as_str())))?
        .load()
        .map_err(|e| GlyphError(format!("loading the {} font: {e}", family.as_str())))?;
    FONTS.with(|c| c.borrow_mut().insert(key, font.clone()));
    Ok(font)
}

/// Calls `put(x, y, alpha)` for every pixel of `text` at `size` (plotters'
/// size: 1.24 em), the origin at the top left of the text's layout box as
/// plotters places it.
pub fn rasterize(
    text: &str,
    family: FontFamily,
    style: FontStyle,
    size: f64,
    mut put: impl FnMut(i32, i32, f32),
) -> Result<(), GlyphError> {
    let font = font(family, style)?;
    let em = (size / 1.24) as f32;
    let units = font.metrics().units_per_em as f32;
    // Room on every side of the origin: no glyph of a label font reaches
    // further than half its size beyond its em box.
    let pad = (size / 2.0).ceil() as i32;
    let side = size as i32 + 2 * pad;
    let base_y = -((0.24 * em) as i32);
    let placeholder = font.glyph_for_char('\u{FFFD}');
    let mut x = 0.0f32;
    let mut canvas = Canvas::new(Vector2I::splat(side), Format::A8);
    for c in text.chars() {
        let Some(glyph) = font.glyph_for_char(c).or(placeholder) else {
            continue;
        };
        canvas.pixels.fill(0);
        font.rasterize_glyph(
            &mut canvas,
            glyph,
            em,
            Transform2F::from_translation(Vector2F::new(pad as f32, pad as f32 + em)),
            HintingOptions::None,
            RasterizationOptions::GrayscaleAa,
        )
        .map_err(|e| GlyphError(format!("glyph of {c:?}: {e}")))?;
        let left = x as i32 - pad;
        for dy in 0..side as usize {
            let row = &canvas.pixels[dy * canvas.stride..dy * canvas.stride + side as usize];
            for (dx, &a) in row.iter().enumerate() {
                if a > 0 {
                    put(left + dx as i32, base_y - pad + dy as i32, a as f32 / 255.0);
                }
            }
        }
        x += font.advance(glyph).map(|v| v.x()).unwrap_or(0.0) * em / units;
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
        let trans = style.transform();
        let mut pixels = Vec::new();
        rasterize(
            text,
            style.family(),
            style.style(),
            style.size(),
            |x, y, a| {
                let (x, y) = trans.transform(x + dx - min_x, y + dy - min_y);
                pixels.push(((pos.0 + x, pos.1 + y), a));
            },
        )
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
        rasterize(
            text,
            FontFamily::SansSerif,
            FontStyle::Normal,
            size,
            |_, _, a| sum += a as f64,
        )
        .unwrap();
        sum / (size * size)
    }

    /// Every printable ASCII glyph, at every size the figures use, has about
    /// the ink it has when drawn large: nothing of it is cut. plotters'
    /// own path fails this for `j` at 12 (its stem is lost).
    #[test]
    fn every_glyph_is_whole_at_label_sizes() {
        for c in ('!'..='~').chain("µ×·−²³⁶".chars()) {
            let s = c.to_string();
            let reference = ink(&s, 96.0);
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
}
