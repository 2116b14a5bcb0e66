//! Telling the sides, the facing bands and hands apart by colour.
//!
//! A colour model names a hue window, a least saturation and a least value per side;
//! everything else on the map (canvas, woods, rivers, lettering) falls outside them. The
//! default knows red and blue blocks under ordinary light; `aide calibrate colors`
//! learns a table's own from a frame.

use serde::{Deserialize, Serialize};

/// The built-in model, `models/colors-default.toml`.
pub const DEFAULT: &str = include_str!("../../models/colors-default.toml");

/// One side's paint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideColour {
    /// The colour's name, which is the side id it is matched to ("red").
    pub name: String,
    /// Hue window centre and half width, degrees.
    pub hue_deg: f64,
    pub hue_tolerance_deg: f64,
    pub min_saturation: f64,
    pub min_value: f64,
}

/// The colours a detector looks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColourModel {
    pub sides: Vec<SideColour>,
    /// The off-white facing band: saturation at most, value at least.
    pub band_max_saturation: f64,
    pub band_min_value: f64,
}

impl ColourModel {
    pub fn builtin() -> Self {
        toml::from_str(DEFAULT).expect("the built-in colour model parses")
    }

    /// Which side's paint a pixel is, by index into `sides`.
    pub fn side_of(&self, hsv: Hsv) -> Option<usize> {
        self.side_of_paler(hsv, 1.0)
    }

    /// Which side's paint a pixel may be, with each side's least saturation scaled by
    /// `saturation_scale`: paint mixed with white paper over a pixel or two (a spent
    /// block's rim around its label) keeps its hue and loses saturation.
    pub fn side_of_paler(&self, hsv: Hsv, saturation_scale: f64) -> Option<usize> {
        self.sides.iter().position(|s| {
            hsv.s >= saturation_scale * s.min_saturation
                && hsv.v >= s.min_value
                && hue_distance(hsv.h, s.hue_deg) <= s.hue_tolerance_deg
        })
    }

    pub fn is_band(&self, hsv: Hsv) -> bool {
        hsv.s <= self.band_max_saturation && hsv.v >= self.band_min_value
    }
}

/// Skin is at least this saturated (see [`is_skin`]).
pub const SKIN_MIN_SATURATION: f64 = 0.22;

/// Skin under table light: orange hues, moderate saturation, bright.
pub fn is_skin(hsv: Hsv) -> bool {
    hsv.v >= 0.55 && (SKIN_MIN_SATURATION..=0.6).contains(&hsv.s) && (6.0..=30.0).contains(&hsv.h)
}

/// Hue (degrees), saturation and value in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hsv {
    pub h: f64,
    pub s: f64,
    pub v: f64,
}

impl Hsv {
    pub fn from_rgb(rgb: [u8; 3]) -> Self {
        let [r, g, b] = rgb.map(|c| f64::from(c) / 255.0);
        let max = r.max(g).max(b);
        let min = r.min(g).min(b);
        let delta = max - min;
        let h = if delta <= 0.0 {
            0.0
        } else if max == r {
            // (g - b) / delta is within [-1, 1]: a wrap by hand, not a libm fmod.
            let sector = (g - b) / delta;
            60.0 * if sector < 0.0 { sector + 6.0 } else { sector }
        } else if max == g {
            60.0 * ((b - r) / delta + 2.0)
        } else {
            60.0 * ((r - g) / delta + 4.0)
        };
        Self {
            h,
            s: if max > 0.0 { delta / max } else { 0.0 },
            v: max,
        }
    }
}

pub fn hue_distance(a: f64, b: f64) -> f64 {
    let d = (a - b).abs();
    // Hues are within [0, 360) but a model file may say -10 or 370: wrap only then.
    let d = if d < 360.0 { d } else { d % 360.0 };
    d.min(360.0 - d)
}
