//! Seeing the table: the corner tags ([`tags`]) and the camera ([`calib`]), the pieces on the map
//! ([`detect`]), in map inches. Pixels exist only here (and in the synthetic renderer
//! that makes them).

pub mod calib;
pub mod camera;
pub mod camera_check;
pub mod colour;
pub mod detect;
pub mod kept;
pub mod learn;
mod mask;
pub mod observe;
#[cfg(feature = "opencv")]
pub mod opencv;
pub mod plane;
pub mod reference;
mod tags;

pub use calib::Calibration;
pub use camera::Intrinsics;
pub use colour::ColourModel;
pub use detect::{
    DetectOptions, DetectedPiece, Detection, Facing, PlaneSampler, detect, detect_sampled,
};
pub use kept::{KeptReference, ReferenceKey};
pub use observe::TableObserver;
pub use plane::MapPicture;
pub use reference::{MapReference, ReferenceError};

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum VisionError {
    #[error(
        "the four corner tags (tag36h11 ids 0-3) are not all in view: saw {}",
        if seen.is_empty() { "none".to_owned() } else { format!("{seen:?}") }
    )]
    TagsNotFound { seen: Vec<usize> },
    #[error("tag detector: {0}")]
    Tags(String),
    #[error("{0}")]
    Geometry(&'static str),
}
