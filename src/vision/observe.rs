//! The detector as the live pipeline runs it: calibrate from the corner tags, then turn
//! every frame into the tracker's [`Observation`].
//!
//! Finding the tags costs more than the rest of a frame, and a camera on a stand does not
//! move between frames, so the calibration is kept and renewed every
//! [`RECALIBRATE_EVERY`] frames, or at once when the camera seems to have been bumped
//! (the tags are looked for again after a frame that could not be read).

use std::collections::HashMap;

use super::{
    Calibration, ColourModel, DetectOptions, Intrinsics, KeptReference, MapPicture, MapReference,
    PlaneSampler, detect_sampled,
};
use crate::capture::Frame;
use crate::geom::Footprint;
use crate::live::Observer;
use crate::model::PieceModel;
use crate::scenario::Scenario;
use crate::table::{Pose, TableState};
use crate::track::{Observation, Sighting};

/// Frames between two tag searches.
pub const RECALIBRATE_EVERY: u32 = 150;

/// Detector state kept between frames.
pub struct TableObserver {
    map_w_in: f64,
    map_h_in: f64,
    intrinsics: Option<Intrinsics>,
    colours: ColourModel,
    model: PieceModel,
    /// The heading facing away from each side's home edge, by side id.
    facing_away: HashMap<String, f64>,
    calibration: Option<Calibration>,
    /// Where the map-plane pixels are read under `calibration`.
    sampler: Option<PlaneSampler>,
    frames_since: u32,
    /// The empty map, when known.
    reference: Option<MapReference>,
    /// Where a reference the feed learns is kept across restarts.
    kept: Option<KeptReference>,
}

impl TableObserver {
    pub fn new(scenario: &Scenario, intrinsics: Option<Intrinsics>, colours: ColourModel) -> Self {
        Self {
            map_w_in: scenario.map.width_in,
            map_h_in: scenario.map.height_in,
            intrinsics,
            colours,
            model: scenario.model.clone(),
            facing_away: scenario
                .sides
                .iter()
                .map(|s| (s.id.clone(), s.home_edge.facing_away_deg()))
                .collect(),
            calibration: None,
            sampler: None,
            frames_since: 0,
            reference: None,
            kept: None,
        }
    }

    /// Read frames knowing what the empty map looks like (see [`MapReference`]).
    pub fn with_reference(mut self, reference: MapReference) -> Self {
        self.reference = Some(reference);
        self
    }

    /// Learn the empty map from the live feed alone, knowing nothing of it at first
    /// (see [`MapReference::unseen`]).
    pub fn learning_the_map(self) -> Self {
        let reference = MapReference::unseen(self.map_w_in, self.map_h_in);
        self.with_reference(reference)
    }

    /// Keep what the feed learns of the empty map in `kept`'s file, and start from what
    /// it kept when that fits this table (see [`KeptReference::resume`]). Only a
    /// reference the feed learns is kept: the map image or none leaves `kept` unused.
    pub fn keeping_the_reference(mut self, kept: KeptReference) -> Self {
        if let Some(reference) = self.reference.take_if(|r| r.learns()) {
            self.reference = Some(kept.resume(reference));
            self.kept = Some(kept);
        }
        self
    }

    /// The empty map as this observer knows it now.
    pub fn reference(&self) -> Option<&MapReference> {
        self.reference.as_ref()
    }
}

impl Observer for TableObserver {
    fn observe(&mut self, frame: &Frame) -> Result<Observation, String> {
        if self.calibration.is_none() || self.frames_since >= RECALIBRATE_EVERY {
            match Calibration::from_image(
                &frame.image,
                self.map_w_in,
                self.map_h_in,
                self.intrinsics,
            ) {
                Ok(c) => {
                    if self.calibration != Some(c) {
                        self.sampler = None;
                    }
                    self.calibration = Some(c);
                    self.frames_since = 0;
                }
                Err(e) => {
                    // Keep the last good calibration while a hand covers a card; the
                    // next frame looks for the tags again.
                    self.frames_since = RECALIBRATE_EVERY;
                    if self.calibration.is_none() {
                        return Err(e.to_string());
                    }
                }
            }
        }
        self.frames_since += 1;
        let calibration = self.calibration.as_ref().expect("set above");
        let image = &frame.image;
        let sampler = match self.sampler.take() {
            Some(s) if s.fits(image) => s,
            _ => PlaneSampler::new(calibration, image.width(), image.height()),
        };
        let sampler = self.sampler.insert(sampler);
        let facing_away = |colour: &str| self.facing_away.get(colour).copied();
        let detection = detect_sampled(
            image,
            calibration,
            sampler,
            &DetectOptions {
                colours: &self.colours,
                model: &self.model,
                facing_away: &facing_away,
                reference: self.reference.as_ref(),
            },
        );
        Ok(Observation {
            ts_ms: frame.ts_ms,
            sightings: detection
                .pieces
                .into_iter()
                .map(|p| Sighting {
                    shape: p.kind,
                    colour: p.color,
                    pose: Pose::new(p.x_in, p.y_in, p.heading_deg),
                    status: p.status,
                })
                .collect(),
            disturbance: detection.disturbance,
        })
    }

    fn picture(&self, frame: &Frame) -> Option<MapPicture> {
        let calibration = self.calibration.as_ref()?;
        MapPicture::of_frame(&frame.image, calibration, frame.ts_ms)
            .inspect_err(|e| tracing::warn!(error = %e, "the map's picture was not encoded"))
            .ok()
    }

    /// The tracker settled on `table` from `frame`: where no piece of it stands, the map
    /// is bare, and a reference made by the camera learns it there.
    fn settled(&mut self, frame: &Frame, table: &TableState) {
        let (Some(reference), Some(calibration), Some(sampler)) = (
            self.reference.as_mut(),
            self.calibration.as_ref(),
            self.sampler.as_ref(),
        ) else {
            return;
        };
        if !reference.learns() || !sampler.fits(&frame.image) {
            return;
        }
        let footprints: Vec<Footprint> = table.pieces.iter().map(|p| p.footprint).collect();
        let learnt = reference.learn(&frame.image, calibration, sampler, &footprints);
        tracing::debug!(
            learnt,
            known = reference.known_share(),
            "the empty map learnt from a settled table"
        );
        if let Some(kept) = self.kept.as_mut()
            && learnt > 0
        {
            kept.learnt(reference);
        }
    }

    /// The feed stops: what was learnt since the reference was last kept is written.
    fn stopped(&mut self) {
        if let (Some(kept), Some(reference)) = (self.kept.as_mut(), self.reference.as_ref()) {
            kept.stop(reference);
        }
    }
}
