//! A synthetic camera: a scripted game rendered frame by frame, a hand reaching in for
//! every change. It feeds the live pipeline exactly as a webcam would, so the demo runs
//! the whole product (detector, tracker, rules, page) with no camera.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use image::RgbImage;

use super::{Hand, MapImageError, MapTexture, Scene, Shape, TruePiece, render_on};
use crate::capture::{CaptureError, Frame, FrameSource, SourceKind};
use crate::journal::now_ms;
use crate::scenario::Scenario;
use crate::table::TableState;

/// The scene a scenario's table makes: its pieces as blocks and cubes in their sides'
/// colours (the side id is the colour's name), every block marked, under `base`'s camera
/// and light.
pub fn scene_from_table(scenario: &Scenario, table: &TableState, base: &Scene) -> Scene {
    let pieces = table
        .pieces
        .iter()
        .map(|p| {
            let kind = if p.kind.is_hq() {
                Shape::Hq
            } else {
                Shape::Block
            };
            TruePiece {
                kind,
                color: p.side.clone(),
                x_in: p.pose.x_in,
                y_in: p.pose.y_in,
                heading_deg: p.pose.heading_deg,
                status: p.status,
                marked: kind == Shape::Block,
            }
        })
        .collect();
    Scene {
        map_w_in: scenario.map.width_in,
        map_h_in: scenario.map.height_in,
        pieces,
        hand: None,
        ..base.clone()
    }
}

/// The printed map a scenario's table is filmed on: its `[map] image` when it names one,
/// so the camera films the same map the page draws; else the procedural map of `seed`.
pub fn scenario_map(scenario: &Scenario, seed: u64) -> Result<MapTexture, MapImageError> {
    let (w, h) = (scenario.map.width_in, scenario.map.height_in);
    match scenario.map_image_path() {
        Some(path) => MapTexture::from_file(&path, w, h),
        None => Ok(MapTexture::procedural(w, h, seed)),
    }
}

/// Plays `tables` in a loop: each one still for `hold` frames, after a hand that reaches
/// for the first piece that changed, shown for `reach` frames.
pub struct ScriptedCamera {
    scenario: Scenario,
    tables: Vec<TableState>,
    base: Scene,
    map: MapTexture,
    hold: u32,
    reach: u32,
    /// (table, with a hand): frames are rendered once and then replayed.
    cache: HashMap<(usize, bool), RgbImage>,
    table: usize,
    frame_in_table: u32,
    index: u64,
    interval: Duration,
    due: Option<Instant>,
}

impl ScriptedCamera {
    /// Film `tables` of `scenario` on `map` (see [`scenario_map`]) with `base`'s camera
    /// and light, at `fps` frames a second.
    pub fn new(
        scenario: Scenario,
        tables: Vec<TableState>,
        base: Scene,
        map: MapTexture,
        fps: f64,
    ) -> Self {
        Self {
            scenario,
            tables,
            base,
            map,
            hold: (fps * 3.0).round() as u32,
            reach: (fps * 1.0).round().max(1.0) as u32,
            cache: HashMap::new(),
            table: 0,
            frame_in_table: 0,
            index: 0,
            interval: Duration::from_secs_f64(1.0 / fps),
            due: None,
        }
    }

    /// How many frames the hand is in view for each change, and the table then stays
    /// still for (by default one and three seconds' worth).
    pub fn with_timing(mut self, reach: u32, hold: u32) -> Self {
        self.reach = reach.max(1);
        self.hold = hold.max(1);
        self
    }

    fn hand_for(&self, table: usize) -> Option<Hand> {
        let before = &self.tables[(table + self.tables.len() - 1) % self.tables.len()];
        let after = &self.tables[table];
        let changed = after.pieces.iter().find(|p| {
            before
                .piece(&p.id)
                .is_none_or(|b| b.pose != p.pose || b.status != p.status)
        })?;
        let h = self.scenario.map.height_in;
        Some(Hand {
            from: [changed.pose.x_in, h + 8.0],
            to: [changed.pose.x_in, changed.pose.y_in + 1.2],
            height_in: 4.0,
        })
    }

    fn image(&mut self, table: usize, with_hand: bool) -> RgbImage {
        if let Some(img) = self.cache.get(&(table, with_hand)) {
            return img.clone();
        }
        let mut scene = scene_from_table(&self.scenario, &self.tables[table], &self.base);
        if with_hand {
            scene.hand = self.hand_for(table);
        }
        let img = render_on(&scene, &self.scenario.model, &self.map);
        self.cache.insert((table, with_hand), img.clone());
        img
    }
}

impl FrameSource for ScriptedCamera {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        if self.tables.is_empty() {
            return Err(CaptureError::Unavailable("no tables to render".into()));
        }
        if let Some(due) = self.due {
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        self.due = Some(Instant::now() + self.interval);
        let reaching = self.tables.len() > 1 && self.frame_in_table < self.reach;
        let image = self.image(self.table, reaching);
        self.frame_in_table += 1;
        if self.frame_in_table >= self.reach + self.hold {
            self.frame_in_table = 0;
            self.table = (self.table + 1) % self.tables.len();
        }
        let frame = Frame {
            image,
            ts_ms: now_ms(),
            index: self.index,
        };
        self.index += 1;
        Ok(frame)
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Synthetic
    }

    fn describe(&self) -> String {
        format!(
            "synthetic camera over {} ({} scripted tables)",
            self.scenario.name,
            self.tables.len()
        )
    }
}
