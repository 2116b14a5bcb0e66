//! A synthetic table with its ground truth: the frames the detector is tested and
//! measured on, and the demo's camera when there is no camera.
//!
//! Each frame is ray-cast: a perspective camera with lens distortion looks down on a
//! printed map (a scenario's map image, or a busy procedural one: woods, rivers, roads,
//! hill contours, lettering), the four corner cards
//! with their real tag36h11 codes, and the pieces as boxes: a lit top face with its
//! off-white facing band, darker sides, soft shadows on the map. A hand and forearm can
//! reach in over the table. Then the light falls off across the frame, a colour cast
//! tints it, sensor noise is added and the frame goes through JPEG. Everything is
//! deterministic per seed, and the [`Scene`] is the truth: every piece's footprint
//! centre, heading and status in map inches.

mod source;
pub mod tags;
mod texture;

pub use source::{ScriptedCamera, scenario_map, scene_from_table};
pub use texture::{MapImageError, MapTexture};

use image::{Rgb, RgbImage};
use nalgebra::{Point3, Vector3};
use rand::rngs::ChaCha20Rng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

use crate::model::PieceModel;
use crate::table::{Status, UnitKind};
use crate::vision::camera::{Intrinsics, PinholeCamera};

/// What the detector is asked to find, as the truth gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    Block,
    Hq,
}

impl Shape {
    /// The piece model's kind that stands for this shape.
    pub fn kind(self) -> UnitKind {
        match self {
            Shape::Block => UnitKind::Infantry,
            Shape::Hq => UnitKind::Hq,
        }
    }
}

/// One piece on the synthetic table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TruePiece {
    pub kind: Shape,
    pub color: String,
    pub x_in: f64,
    pub y_in: f64,
    pub heading_deg: f64,
    pub status: Status,
    /// Carries the off-white facing band.
    pub marked: bool,
}

/// Where the camera stands and how it is made.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CameraSpec {
    /// Above the map.
    pub height_in: f64,
    /// From above the map's centre.
    pub offset_x_in: f64,
    pub offset_y_in: f64,
    /// Turn of the image about the vertical.
    pub yaw_deg: f64,
    pub focal_px: f64,
    pub k1: f64,
    pub k2: f64,
}

/// A hand and forearm over the table, from a point on a map edge to the hand.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hand {
    pub from: [f64; 2],
    pub to: [f64; 2],
    pub height_in: f64,
}

/// A table to render, and its truth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scene {
    pub map_w_in: f64,
    pub map_h_in: f64,
    pub width: u32,
    pub height: u32,
    pub camera: CameraSpec,
    pub pieces: Vec<TruePiece>,
    /// Light falling off across the frame: the far corner gets this fraction less.
    pub light_falloff: f64,
    /// Multiplies red, green and blue (a warm pub light is more red, less blue).
    pub colour_cast: [f64; 3],
    /// Sensor noise, standard deviation in 8-bit levels.
    pub noise: f64,
    pub jpeg_quality: u8,
    pub seed: u64,
    pub hand: Option<Hand>,
    /// How far every edge of every piece is taken off, inches: a 45-degree chamfer, as
    /// wooden blocks and cubes come sanded round by about a millimetre (0.04 in). Then
    /// the flat top the camera sees is smaller than the footprint all round, and its
    /// edges slope between the top's light and the sides' shade. 0 draws sharp boxes.
    #[serde(default)]
    pub rounded_edge_in: f64,
}

/// Colours of the pieces, as painted wood under white light.
pub fn piece_rgb(color: &str) -> [f64; 3] {
    match color {
        "red" => [178.0, 34.0, 30.0],
        "blue" => [34.0, 66.0, 150.0],
        // A third paint the default colour model does not know: for learning colours.
        "green" => [30.0, 112.0, 58.0],
        _ => [90.0, 90.0, 90.0],
    }
}

const BAND_RGB: [f64; 3] = [232.0, 228.0, 214.0];
const SKIN_RGB: [f64; 3] = [222.0, 172.0, 140.0];
const TABLE_RGB: [f64; 3] = [92.0, 64.0, 44.0];
const CARD_RGB: [f64; 3] = [245.0, 245.0, 240.0];
const TAG_BLACK: [f64; 3] = [25.0, 25.0, 28.0];

impl Scene {
    /// The camera as built from its spec: it looks at the map's centre.
    pub fn pinhole(&self) -> PinholeCamera {
        let c = self.camera;
        let intrinsics = Intrinsics {
            dist: [c.k1, c.k2, 0.0, 0.0, 0.0],
            ..Intrinsics::ideal(c.focal_px, self.width, self.height)
        };
        let centre = Point3::new(self.map_w_in / 2.0, self.map_h_in / 2.0, 0.0);
        let eye = Point3::new(
            centre.x + c.offset_x_in,
            centre.y + c.offset_y_in,
            -c.height_in,
        );
        let yaw = c.yaw_deg.to_radians();
        let down = Vector3::new(-yaw.sin(), yaw.cos(), 0.0);
        PinholeCamera::look_at(intrinsics, eye, centre, down)
    }

    /// The truth as JSON: the camera and every piece.
    pub fn truth_json(&self) -> serde_json::Value {
        serde_json::json!({
            "camera": self.camera,
            "map": [self.map_w_in, self.map_h_in],
            "pieces": self.pieces.iter().map(|p| serde_json::json!({
                "kind": p.kind, "color": p.color, "x_in": p.x_in, "y_in": p.y_in,
                "heading_deg": p.heading_deg, "status": p.status,
                "facing": if p.marked { "marked" } else { "unmarked" },
            })).collect::<Vec<_>>(),
        })
    }
}

/// The focal length that makes the map fill `fill` of the frame's smaller span, seen
/// from `spec` (a webcam zoomed or placed to frame the map).
fn framing_focal(
    map_w_in: f64,
    map_h_in: f64,
    width: u32,
    height: u32,
    spec: CameraSpec,
    fill: f64,
) -> f64 {
    let probe = Scene {
        map_w_in,
        map_h_in,
        width,
        height,
        camera: CameraSpec {
            focal_px: 1000.0,
            k1: 0.0,
            k2: 0.0,
            ..spec
        },
        pieces: Vec::new(),
        light_falloff: 0.0,
        colour_cast: [1.0; 3],
        noise: 0.0,
        jpeg_quality: 100,
        seed: 0,
        hand: None,
        rounded_edge_in: 0.0,
    };
    let camera = probe.pinhole();
    let (cx, cy) = (f64::from(width) / 2.0, f64::from(height) / 2.0);
    let mut need: f64 = 0.0;
    for (x, y) in [
        (0.0, 0.0),
        (map_w_in, 0.0),
        (map_w_in, map_h_in),
        (0.0, map_h_in),
    ] {
        let (u, v) = camera
            .project(Point3::new(x, y, 0.0))
            .expect("the map is in front of the camera");
        need = need
            .max((u - cx).abs() / (cx * fill))
            .max((v - cy).abs() / (cy * fill));
    }
    1000.0 / need
}

/// A random table: about 30 pieces of both sides, most marked, some spent, some HQ
/// cubes, none touching; a camera 24 to 36 in up, off-centre and turned a little.
pub fn random_scene(seed: u64, map_w_in: f64, map_h_in: f64, width: u32, height: u32) -> Scene {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let model = PieceModel::builtin("pub-battles").expect("the built-in model");
    let mut spec = CameraSpec {
        height_in: rng.random_range(24.0..36.0),
        offset_x_in: rng.random_range(-6.0..6.0),
        offset_y_in: rng.random_range(-5.0..5.0),
        yaw_deg: rng.random_range(-12.0..12.0),
        focal_px: 0.0,
        k1: rng.random_range(-0.08..0.02),
        k2: rng.random_range(0.0..0.02),
    };
    spec.focal_px = framing_focal(map_w_in, map_h_in, width, height, spec, 0.95);
    let mut pieces: Vec<TruePiece> = Vec::new();
    let count = rng.random_range(26..34);
    let mut attempts = 0;
    while pieces.len() < count && attempts < 5000 {
        attempts += 1;
        let roll: f64 = rng.random();
        let (kind, status) = if roll < 0.15 {
            (Shape::Hq, Status::Fresh)
        } else if roll < 0.37 {
            (Shape::Block, Status::Spent)
        } else {
            (Shape::Block, Status::Fresh)
        };
        let piece = TruePiece {
            kind,
            color: if rng.random_bool(0.5) { "red" } else { "blue" }.into(),
            x_in: rng.random_range(3.0..map_w_in - 3.0),
            y_in: rng.random_range(3.0..map_h_in - 3.0),
            heading_deg: rng.random_range(0.0..360.0),
            status,
            marked: kind == Shape::Block && rng.random_bool(0.8),
        };
        let clear = pieces
            .iter()
            .all(|other| centre_gap(&model, &piece, other) > 0.3);
        if clear {
            pieces.push(piece);
        }
    }
    Scene {
        map_w_in,
        map_h_in,
        width,
        height,
        camera: spec,
        pieces,
        light_falloff: rng.random_range(0.0..0.35),
        colour_cast: [
            rng.random_range(0.95..1.08),
            rng.random_range(0.95..1.03),
            rng.random_range(0.85..1.0),
        ],
        noise: rng.random_range(2.0..5.0),
        jpeg_quality: 85,
        seed,
        hand: None,
        rounded_edge_in: 0.0,
    }
}

/// A random table like [`random_scene`]'s (same camera, light and number of pieces) where
/// blocks of one side stand in contact, as they do in play: lines of two or three
/// blocks end to end, fronts level (fresh and spent mixed, each turned up to 4 degrees
/// from its neighbour, corners touching), and columns of two fresh blocks, one's back
/// against the other's front. As in a line, each block of a column carries a facing
/// strip four times in five: a column of two unmarked tops is one blob of paint the
/// size of a spent block's top with no label, and the detector must tell it so. The
/// rest stand apart as in [`random_scene`].
pub fn touching_scene(seed: u64, map_w_in: f64, map_h_in: f64, width: u32, height: u32) -> Scene {
    let mut scene = random_scene(seed, map_w_in, map_h_in, width, height);
    let count = scene.pieces.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x70c4_1a6e);
    // The columns' strips are drawn apart from the rest, which stands where it stood
    // when every column was marked.
    let mut strips = ChaCha20Rng::seed_from_u64(seed ^ 0x5791_95c0);
    let model = PieceModel::builtin("pub-battles").expect("the built-in model");
    let block = model.shape(UnitKind::Infantry).expect("a block shape");
    let frontage = block.frontage_in;
    let mut pieces: Vec<TruePiece> = Vec::new();
    let mut formation_of: Vec<usize> = Vec::new();
    let clear = |pieces: &[TruePiece], owners: &[usize], p: &TruePiece, own: usize| {
        (3.0..map_w_in - 3.0).contains(&p.x_in)
            && (3.0..map_h_in - 3.0).contains(&p.y_in)
            && pieces
                .iter()
                .zip(owners)
                .all(|(q, &o)| o == own || centre_gap(&model, p, q) > 0.3)
    };
    let mut attempts = 0;
    let mut formations = 0;
    while formations < 6 && attempts < 2000 {
        attempts += 1;
        let colour = if rng.random_bool(0.5) { "red" } else { "blue" };
        let heading: f64 = rng.random_range(0.0..360.0);
        let (x, y) = (
            rng.random_range(4.0..map_w_in - 4.0),
            rng.random_range(4.0..map_h_in - 4.0),
        );
        let mut members = Vec::new();
        if formations < 4 {
            // A line: each block to the right of the last, its front on the same line.
            let mut front = (x, y);
            let mut last_heading = heading;
            for i in 0..rng.random_range(2..=3) {
                let status = if rng.random_bool(0.3) {
                    Status::Spent
                } else {
                    Status::Fresh
                };
                let h = if i == 0 {
                    heading
                } else {
                    heading + rng.random_range(-4.0..4.0)
                };
                let depth = block.depth_in(status);
                if i > 0 {
                    let turn = (h - last_heading).to_radians();
                    let step =
                        0.5 * frontage * (1.0 + turn.cos()) + 0.5 * depth * turn.sin().abs() + 0.01;
                    let a = last_heading.to_radians();
                    front = (front.0 + step * a.cos(), front.1 + step * a.sin());
                }
                let a = h.to_radians();
                members.push(TruePiece {
                    kind: Shape::Block,
                    color: colour.into(),
                    x_in: front.0 - 0.5 * depth * a.sin(),
                    y_in: front.1 + 0.5 * depth * a.cos(),
                    heading_deg: h.rem_euclid(360.0),
                    status,
                    marked: rng.random_bool(0.8),
                });
                last_heading = h;
            }
        } else {
            // A column of two fresh blocks, the second behind the first.
            let depth = block.depth_in(Status::Fresh);
            for i in 0..2 {
                let back = f64::from(i) * (depth + 0.01);
                let h = heading
                    + if i == 0 {
                        0.0
                    } else {
                        rng.random_range(-2.0..2.0)
                    };
                let a = heading.to_radians();
                members.push(TruePiece {
                    kind: Shape::Block,
                    color: colour.into(),
                    x_in: x - back * a.sin(),
                    y_in: y + back * a.cos(),
                    heading_deg: h.rem_euclid(360.0),
                    status: Status::Fresh,
                    marked: strips.random_bool(0.8),
                });
            }
        }
        if members
            .iter()
            .all(|m| clear(&pieces, &formation_of, m, formations + 1))
        {
            formations += 1;
            for m in members {
                pieces.push(m);
                formation_of.push(formations);
            }
        }
    }
    // The rest apart, as random_scene placed them, wherever they still fit.
    for p in std::mem::take(&mut scene.pieces) {
        if pieces.len() >= count {
            break;
        }
        if clear(&pieces, &formation_of, &p, usize::MAX) {
            pieces.push(p);
            formation_of.push(0);
        }
    }
    scene.pieces = pieces;
    scene
}

/// A conservative gap between two pieces: centre distance less both circumradii.
fn centre_gap(model: &PieceModel, a: &TruePiece, b: &TruePiece) -> f64 {
    let radius = |p: &TruePiece| {
        let (w, d, _) = dimensions(model, p);
        0.5 * w.hypot(d)
    };
    (a.x_in - b.x_in).hypot(a.y_in - b.y_in) - radius(a) - radius(b)
}

/// Frontage, depth and height of a piece from the piece model.
pub fn dimensions(model: &PieceModel, p: &TruePiece) -> (f64, f64, f64) {
    let shape = model.shape(p.kind.kind()).expect("every kind has a shape");
    (
        shape.frontage_in,
        shape.depth_in(p.status),
        shape.height_in(p.status),
    )
}

/// A piece as the renderer sees it: an oriented box.
struct PieceBox {
    cx: f64,
    cy: f64,
    /// Unit vectors along the frontage (right of the facing) and the facing.
    right: (f64, f64),
    forward: (f64, f64),
    half_w: f64,
    half_d: f64,
    h: f64,
    rgb: [f64; 3],
    /// Depth of the facing band from the front edge; 0 when unmarked.
    band: f64,
    /// Where the unit's label is stuck: none on an HQ cube.
    label: Label,
    /// How far its edges are taken off ([`Scene::rounded_edge_in`]).
    bevel: f64,
    /// Pixel bounding box in the frame.
    bbox: (f64, f64, f64, f64),
}

impl PieceBox {
    /// The nearest hit of a ray with the box, its edges chamfered by `self.bevel`:
    /// distance and which face ([`Face`]), with the local point (along the frontage,
    /// along the facing, and its height, negative up).
    ///
    /// The box is the intersection of half-spaces `n . p <= c` (six faces, four top
    /// edges' chamfers, four upright edges'): the ray is inside all of them between the
    /// latest entry and the earliest exit, and the face it enters last is the one hit.
    fn hit(&self, o: Point3<f64>, d: Vector3<f64>) -> Option<(f64, Face, [f64; 3])> {
        let (ox, oy) = (o.x - self.cx, o.y - self.cy);
        let lo = [
            ox * self.right.0 + oy * self.right.1,
            ox * self.forward.0 + oy * self.forward.1,
            o.z,
        ];
        let ld = [
            d.x * self.right.0 + d.y * self.right.1,
            d.x * self.forward.0 + d.y * self.forward.1,
            d.z,
        ];
        let (w, dp, h) = (self.half_w, self.half_d, self.h);
        let b = self.bevel.min(0.5 * w.min(dp).min(h));
        // (normal, bound, face): z grows down, the top is at z = -h. A sharp box has
        // only its six faces; the bottom (z <= 0) is never met first by a ray from above.
        let planes: [([f64; 3], f64, Face); 14] = [
            ([1.0, 0.0, 0.0], w, Face::End),
            ([-1.0, 0.0, 0.0], w, Face::End),
            ([0.0, 1.0, 0.0], dp, Face::Long),
            ([0.0, -1.0, 0.0], dp, Face::Long),
            ([0.0, 0.0, -1.0], h, Face::Top),
            ([0.0, 0.0, 1.0], 0.0, Face::Top),
            ([0.0, 1.0, -1.0], dp + h - b, Face::LongBevel),
            ([0.0, -1.0, -1.0], dp + h - b, Face::LongBevel),
            ([1.0, 0.0, -1.0], w + h - b, Face::EndBevel),
            ([-1.0, 0.0, -1.0], w + h - b, Face::EndBevel),
            ([1.0, 1.0, 0.0], w + dp - b, Face::CornerBevel),
            ([1.0, -1.0, 0.0], w + dp - b, Face::CornerBevel),
            ([-1.0, 1.0, 0.0], w + dp - b, Face::CornerBevel),
            ([-1.0, -1.0, 0.0], w + dp - b, Face::CornerBevel),
        ];
        let (mut t0, mut t1, mut face) = (f64::NEG_INFINITY, f64::INFINITY, Face::Top);
        for &(n, bound, plane_face) in &planes[..if b > 0.0 { 14 } else { 6 }] {
            let towards = n[0] * ld[0] + n[1] * ld[1] + n[2] * ld[2];
            let room = bound - (n[0] * lo[0] + n[1] * lo[1] + n[2] * lo[2]);
            if towards.abs() < 1e-12 {
                if room < 0.0 {
                    return None;
                }
                continue;
            }
            let t = room / towards;
            if towards < 0.0 {
                if t > t0 {
                    t0 = t;
                    face = plane_face;
                }
            } else {
                t1 = t1.min(t);
            }
        }
        if t0 > t1 || t1 < 0.0 {
            return None;
        }
        Some((
            t0,
            face,
            [lo[0] + t0 * ld[0], lo[1] + t0 * ld[1], lo[2] + t0 * ld[2]],
        ))
    }

    /// Signed distance from a map point to the footprint shifted by `shift`: negative
    /// inside. For the soft shadow.
    fn shadow_distance(&self, x: f64, y: f64, shift: (f64, f64)) -> f64 {
        let (dx, dy) = (
            x - self.cx - shift.0 * self.h,
            y - self.cy - shift.1 * self.h,
        );
        let a = (dx * self.right.0 + dy * self.right.1).abs() - self.half_w;
        let b = (dx * self.forward.0 + dy * self.forward.1).abs() - self.half_d;
        a.max(0.0).hypot(b.max(0.0)) + a.max(b).min(0.0)
    }
}

/// Which face of a piece a ray meets.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Face {
    Top,
    /// A long side, along the frontage.
    Long,
    /// An end, along the depth.
    End,
    /// The chamfer between the top and a long side.
    LongBevel,
    /// The chamfer between the top and an end.
    EndBevel,
    /// The chamfer of an upright edge, between a long side and an end.
    CornerBevel,
}

/// Where a block carries its unit's label ("Coloca cuidadosamente las pegatinas"): on
/// the big face toward its owner while it stands, on top once it is laid down spent
/// ("Gíralas con la cara adhesiva hacia arriba"). HQ cubes carry none here.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Label {
    Back,
    Top,
    None,
}

/// The label's size on a block's big face (1 7/8 x 3/4 in): 1.6 x 0.6 in, centred.
const LABEL_IN: (f64, f64) = (1.6, 0.6);
const LABEL_RGB: [f64; 3] = [240.0, 240.0, 236.0];
const INK_RGB: [f64; 3] = [40.0, 40.0, 44.0];

/// The label's colour at (u, v) from its centre (u along the frontage, v across), or
/// `None` off it: white paper with the unit's symbol (a box with a cross) at one end
/// and two lines of print.
fn label_rgb(u: f64, v: f64) -> Option<[f64; 3]> {
    let (half_u, half_v) = (LABEL_IN.0 / 2.0, LABEL_IN.1 / 2.0);
    if u.abs() > half_u || v.abs() > half_v {
        return None;
    }
    // The symbol: a 0.36 x 0.24 in box 0.1 in in from the label's left end.
    let (bu, bv) = (u + half_u - 0.1 - 0.18, v);
    let stroke = 0.02;
    let in_box = bu.abs() <= 0.18 && bv.abs() <= 0.12;
    let on_box = in_box && (0.18 - bu.abs() < stroke || 0.12 - bv.abs() < stroke);
    let on_cross = in_box && ((bu / 0.18).abs() - (bv / 0.12).abs()).abs() < 0.12;
    // Print: two lines 0.06 in high right of the symbol.
    let print = u > -half_u + 0.5 && u < half_u - 0.15 && {
        let row = |centre: f64| (v - centre).abs() < 0.03 && (u * 40.0).sin() > -0.3;
        row(-0.08) || row(0.08)
    };
    Some(if on_box || on_cross || print {
        INK_RGB
    } else {
        LABEL_RGB
    })
}

/// How much of the top's light a long side face and an end face get.
const LONG_SIDE_LIGHT: f64 = 0.62;
const END_LIGHT: f64 = 0.5;

/// Where the light comes from: shadows fall this far per inch of height.
const SHADOW_SHIFT: (f64, f64) = (0.35, 0.45);

/// Render the scene with its piece sizes from the built-in Pub Battles model.
pub fn render(scene: &Scene) -> RgbImage {
    let model = PieceModel::builtin("pub-battles").expect("the built-in model");
    render_with(scene, &model)
}

/// Render the scene with the piece sizes of `model`, on the procedural map of its seed.
pub fn render_with(scene: &Scene, model: &PieceModel) -> RgbImage {
    let map = MapTexture::procedural(scene.map_w_in, scene.map_h_in, scene.seed);
    render_on(scene, model, &map)
}

/// Render the scene with the piece sizes of `model`, on the printed map `map`.
pub fn render_on(scene: &Scene, model: &PieceModel, map: &MapTexture) -> RgbImage {
    let camera = scene.pinhole();
    let boxes: Vec<PieceBox> = scene
        .pieces
        .iter()
        .map(|p| piece_box(model, p, &camera, scene.rounded_edge_in))
        .collect();
    let mut rng = ChaCha20Rng::seed_from_u64(scene.seed ^ 0x5eed);
    let noise = Normal::new(0.0, scene.noise.max(1e-9)).expect("finite");
    let (w, h) = (f64::from(scene.width), f64::from(scene.height));
    let mut img = RgbImage::new(scene.width, scene.height);
    for (px, py, pixel) in img.enumerate_pixels_mut() {
        let (u, v) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
        let (o, d) = camera.ray(u, v);
        let mut rgb = shade(scene, &boxes, map, o, d, u, v);
        // Light falls off toward the far corner; the cast tints every channel.
        let falloff = 1.0 - scene.light_falloff * (0.5 * (u / w + v / h));
        for (c, value) in rgb.iter_mut().enumerate() {
            let lit = *value * falloff * scene.colour_cast[c] + noise.sample(&mut rng);
            *value = lit.clamp(0.0, 255.0);
        }
        *pixel = Rgb([rgb[0] as u8, rgb[1] as u8, rgb[2] as u8]);
    }
    jpeg_round_trip(img, scene.jpeg_quality)
}

fn piece_box(model: &PieceModel, p: &TruePiece, camera: &PinholeCamera, bevel: f64) -> PieceBox {
    let (frontage, depth, height) = dimensions(model, p);
    let a = p.heading_deg.to_radians();
    let forward = (a.sin(), -a.cos());
    let right = (a.cos(), a.sin());
    let band = if p.marked {
        match p.status {
            Status::Fresh => depth / 2.0,
            Status::Spent => depth / 3.0,
        }
    } else {
        0.0
    };
    let r = 0.5 * frontage.hypot(depth) + 0.05;
    let mut bbox = (
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    );
    for (dx, dy) in [(-r, -r), (r, -r), (r, r), (-r, r)] {
        for z in [0.0, -height] {
            if let Some((u, v)) = camera.project(Point3::new(p.x_in + dx, p.y_in + dy, z)) {
                bbox = (bbox.0.min(u), bbox.1.min(v), bbox.2.max(u), bbox.3.max(v));
            }
        }
    }
    PieceBox {
        cx: p.x_in,
        cy: p.y_in,
        right,
        forward,
        half_w: frontage / 2.0,
        half_d: depth / 2.0,
        h: height,
        rgb: piece_rgb(&p.color),
        band,
        label: match (p.kind, p.status) {
            (Shape::Hq, _) => Label::None,
            (Shape::Block, Status::Fresh) => Label::Back,
            (Shape::Block, Status::Spent) => Label::Top,
        },
        bevel,
        bbox,
    }
}

/// The colour a ray sees, before light falloff, cast and noise.
fn shade(
    scene: &Scene,
    boxes: &[PieceBox],
    texture: &MapTexture,
    o: Point3<f64>,
    d: Vector3<f64>,
    u: f64,
    v: f64,
) -> [f64; 3] {
    if let Some(hand) = &scene.hand {
        let s = (-hand.height_in - o.z) / d.z;
        let (x, y) = (o.x + s * d.x, o.y + s * d.y);
        if in_hand(hand, x, y) {
            return SKIN_RGB;
        }
    }
    let mut best: Option<(f64, &PieceBox, Face, [f64; 3])> = None;
    for b in boxes {
        if u < b.bbox.0 || u > b.bbox.2 || v < b.bbox.1 || v > b.bbox.3 {
            continue;
        }
        if let Some((t, face, at)) = b.hit(o, d)
            && best.is_none_or(|(bt, ..)| t < bt)
        {
            best = Some((t, b, face, at));
        }
    }
    if let Some((_, b, face, [lx, ly, lz])) = best {
        // A chamfer faces halfway between the two faces it joins, and is lit halfway.
        return match face {
            // The band runs along the front long edge of the top face, over the label
            // of a spent block; stickers lie on the flat faces, within the chamfers.
            Face::Top if b.band > 0.0 && ly > b.half_d - b.bevel - b.band => BAND_RGB,
            Face::Top if b.label == Label::Top => label_rgb(lx, ly).unwrap_or(b.rgb),
            Face::Top => b.rgb,
            // A standing block's label is on its back face, toward its owner.
            Face::Long if b.label == Label::Back && ly < 0.0 => label_rgb(lx, lz + b.h / 2.0)
                .map_or(b.rgb.map(|c| c * LONG_SIDE_LIGHT), |rgb| {
                    rgb.map(|c| c * 0.8)
                }),
            Face::Long => b.rgb.map(|c| c * LONG_SIDE_LIGHT),
            Face::End => b.rgb.map(|c| c * END_LIGHT),
            Face::LongBevel => b.rgb.map(|c| c * 0.5 * (1.0 + LONG_SIDE_LIGHT)),
            Face::EndBevel => b.rgb.map(|c| c * 0.5 * (1.0 + END_LIGHT)),
            Face::CornerBevel => b.rgb.map(|c| c * 0.5 * (LONG_SIDE_LIGHT + END_LIGHT)),
        };
    }
    let s = -o.z / d.z;
    let (x, y) = (o.x + s * d.x, o.y + s * d.y);
    let mut rgb = map_colour(scene, texture, x, y);
    // Soft shadows: full within the shifted footprint, fading over 0.15 in.
    let mut light: f64 = 1.0;
    for b in boxes {
        let sd = b.shadow_distance(x, y, SHADOW_SHIFT);
        if sd < 0.15 {
            let k = ((0.15 - sd) / 0.3).clamp(0.0, 1.0);
            light = light.min(1.0 - 0.4 * k);
        }
    }
    if let Some(hand) = &scene.hand {
        let shifted = |dx: f64| (x - dx * hand.height_in, y - SHADOW_SHIFT.1 * hand.height_in);
        let (sx, sy) = shifted(SHADOW_SHIFT.0);
        if in_hand(hand, sx, sy) {
            light = light.min(0.7);
        }
    }
    for c in &mut rgb {
        *c *= light;
    }
    rgb
}

/// The forearm is a capsule 1.4 in wide ending in a hand 1.8 in across.
fn in_hand(hand: &Hand, x: f64, y: f64) -> bool {
    let (ax, ay) = (hand.from[0], hand.from[1]);
    let (bx, by) = (hand.to[0], hand.to[1]);
    let (vx, vy) = (bx - ax, by - ay);
    let len2 = (vx * vx + vy * vy).max(1e-9);
    let t = (((x - ax) * vx + (y - ay) * vy) / len2).clamp(0.0, 1.0);
    let (px, py) = (ax + t * vx, ay + t * vy);
    (x - px).hypot(y - py) <= 0.7 || (x - bx).hypot(y - by) <= 1.8
}

/// The map, the corner cards on it, and the table around it.
fn map_colour(scene: &Scene, texture: &MapTexture, x: f64, y: f64) -> [f64; 3] {
    if x < 0.0 || y < 0.0 || x > scene.map_w_in || y > scene.map_h_in {
        return TABLE_RGB;
    }
    // Corner cards: 2 in squares in the corners; the tag's centre is 1 in in.
    let corners = [
        (0.0, 0.0),
        (scene.map_w_in - 2.0, 0.0),
        (scene.map_w_in - 2.0, scene.map_h_in - 2.0),
        (0.0, scene.map_h_in - 2.0),
    ];
    for (id, (cx, cy)) in corners.into_iter().enumerate() {
        if x >= cx && x <= cx + 2.0 && y >= cy && y <= cy + 2.0 {
            let cell = TAG_SIZE_IN / 8.0;
            let (tx, ty) = (
                x - (cx + 1.0 - TAG_SIZE_IN / 2.0),
                y - (cy + 1.0 - TAG_SIZE_IN / 2.0),
            );
            let (i, j) = ((tx / cell).floor() as i32, (ty / cell).floor() as i32);
            return match tags::cell_is_white(id, i, j) {
                Some(false) => TAG_BLACK,
                _ => CARD_RGB,
            };
        }
    }
    texture.sample(x, y)
}

/// The printed tag's size across its black border.
pub const TAG_SIZE_IN: f64 = 1.5;

/// Another exposure of the same still view, as a webcam gives frame after frame: fresh
/// sensor noise (`noise`, standard deviation in 8-bit levels), the light flickering by a
/// gain within ±`flicker` (mains lighting, auto exposure), then JPEG. `clean` is a render
/// of the scene without noise or JPEG; `seed` picks the exposure.
pub fn exposure(
    clean: &RgbImage,
    noise: f64,
    flicker: f64,
    jpeg_quality: u8,
    seed: u64,
) -> RgbImage {
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0xe3b0_c442);
    let normal = Normal::new(0.0, noise.max(1e-9)).expect("finite");
    let gain = 1.0 + rng.random_range(-flicker..=flicker);
    let mut img = clean.clone();
    for value in img.iter_mut() {
        let lit = f64::from(*value) * gain + normal.sample(&mut rng);
        *value = lit.clamp(0.0, 255.0) as u8;
    }
    jpeg_round_trip(img, jpeg_quality)
}

/// The frame as a JPEG of `quality` would bring it back (the `image` crate's encoder,
/// which keeps colour at half the pixels across, 4:2:2, as webcams send MJPEG); 100
/// leaves it as it is.
pub fn jpeg_round_trip(img: RgbImage, quality: u8) -> RgbImage {
    if quality >= 100 {
        return img;
    }
    let mut bytes = Vec::new();
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality);
    if img.write_with_encoder(encoder).is_err() {
        return img;
    }
    image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map(|i| i.into_rgb8())
        .unwrap_or(img)
}

/// The frame as a JPEG of `quality` with colour at a quarter of the pixels (half across
/// and half down, 4:2:0, as a phone app's stream) would bring it back: `jpeg-encoder`
/// writes it, the `image` crate reads it as a frame is read.
pub fn jpeg_420_round_trip(img: &RgbImage, quality: u8) -> RgbImage {
    let mut bytes = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut bytes, quality);
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    let side = |n: u32| u16::try_from(n).expect("a frame under 65,536 pixels a side");
    let (w, h) = img.dimensions();
    encoder
        .encode(img.as_raw(), side(w), side(h), jpeg_encoder::ColorType::Rgb)
        .expect("a frame JPEG-encodes in memory");
    image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .expect("a JPEG just written decodes")
        .into_rgb8()
}

#[cfg(test)]
mod tests {
    use super::{Face, Label, PieceBox};
    use nalgebra::{Point3, Vector3};

    /// A block 1.875 x 0.375 x 0.75 in at the origin, its frontage along x.
    fn block(bevel: f64) -> PieceBox {
        PieceBox {
            cx: 0.0,
            cy: 0.0,
            right: (1.0, 0.0),
            forward: (0.0, 1.0),
            half_w: 0.9375,
            half_d: 0.1875,
            h: 0.75,
            rgb: [200.0, 30.0, 30.0],
            band: 0.0,
            label: Label::None,
            bevel,
            bbox: (0.0, 0.0, 0.0, 0.0),
        }
    }

    /// A ray straight down from 10 in up (z grows down) at (x, y): the face it meets and
    /// the height there, inches up.
    fn down(b: &PieceBox, x: f64, y: f64) -> Option<(Face, f64)> {
        b.hit(Point3::new(x, y, -10.0), Vector3::new(0.0, 0.0, 1.0))
            .map(|(_, face, at)| (face, -at[2]))
    }

    #[test]
    fn a_rounded_edge_takes_a_chamfer_off_the_top_and_a_sharp_box_keeps_it() {
        let sharp = block(0.0);
        let rounded = block(0.04);
        // The middle of the top is the top either way, 0.75 in up.
        assert_eq!(down(&rounded, 0.0, 0.0), Some((Face::Top, 0.75)));
        // 0.01 in in from the end: the sharp box's top; on the rounded one, its end's
        // chamfer, 0.04 - 0.01 = 0.03 in below the top.
        assert_eq!(down(&sharp, 0.9275, 0.0), Some((Face::Top, 0.75)));
        let (face, up) = down(&rounded, 0.9275, 0.0).unwrap();
        assert_eq!(face, Face::EndBevel);
        assert!((up - 0.72).abs() < 1e-9, "{up}");
        // Likewise beside a long edge, and the chamfer ends 0.04 in in.
        let (face, up) = down(&rounded, 0.0, 0.1775).unwrap();
        assert_eq!(face, Face::LongBevel);
        assert!((up - 0.72).abs() < 1e-9, "{up}");
        assert_eq!(down(&rounded, 0.0, 0.1465), Some((Face::Top, 0.75)));
        // An upright corner is cut off: straight down 0.01 in in each way there is
        // nothing, and a level ray aimed at the corner meets its chamfer (x + y =
        // 0.9375 + 0.1875 - 0.04) 0.02 in past where the sharp box's corner stands.
        assert_eq!(down(&rounded, 0.9275, 0.1775), None);
        let toward_corner = |b: &PieceBox| {
            let from = Point3::new(1.9375, 1.1875, -0.375);
            b.hit(from, Vector3::new(-1.0, -1.0, 0.0))
                .map(|(t, face, _)| (t, face))
        };
        assert_eq!(toward_corner(&sharp).map(|(t, _)| t), Some(1.0));
        let (t, face) = toward_corner(&rounded).unwrap();
        assert_eq!(face, Face::CornerBevel);
        assert!((t - 1.02).abs() < 1e-9, "{t}");
        // Off the footprint, nothing either way.
        assert_eq!(down(&rounded, 0.95, 0.0), None);
        assert_eq!(down(&sharp, 0.0, 0.19), None);
    }
}
