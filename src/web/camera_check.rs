//! The page's camera step: `aide camera-check` on the frame the live feed read last
//! ([`crate::vision::camera_check`], the same code the terminal command runs), and that
//! frame's picture for the page to draw the found corner tags on.
//!
//! Umpire only on a seated table: the picture shows every block, hidden ones too.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::AppState;
use super::api::ApiError;
use super::guard;
use super::seats::Viewer;
use crate::live::CameraTap;
use crate::seat::Seat;
use crate::vision::camera_check::{Report, check};

/// The camera step's state: the feed's tap, and the picture of the last check.
pub struct CameraCheck {
    tap: Arc<CameraTap>,
    /// The checked frame's number and JPEG.
    picture: Mutex<Option<(u64, Arc<Vec<u8>>)>>,
}

impl CameraCheck {
    pub fn new(tap: Arc<CameraTap>) -> Self {
        Self {
            tap,
            picture: Mutex::default(),
        }
    }
}

#[derive(Serialize)]
struct Answer {
    report: Report,
    /// The checked frame's picture, which the report's tag outlines are drawn on.
    picture: String,
}

fn umpire_only(viewer: &Viewer) -> Result<(), ApiError> {
    if viewer.seat == Seat::Umpire {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        "the camera check is the umpire's: its picture shows every block on the table",
    ))
}

fn camera(state: &AppState) -> Result<&CameraCheck, ApiError> {
    state.camera.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no camera watches this table: start the server with --camera to check one",
        )
    })
}

/// GET /api/camera-check: the check of the newest frame.
pub async fn report(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> Result<Json<serde_json::Value>, ApiError> {
    umpire_only(&viewer)?;
    let camera = camera(&state)?;
    let frame = camera.tap.frame().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no frame from the camera yet: try again in a moment",
        )
    })?;
    let (map_w, map_h) = (state.scenario.map.width_in, state.scenario.map.height_in);
    let intrinsics = camera.tap.intrinsics;
    let index = frame.index;
    // Finding tags and encoding the picture take tens of milliseconds: off the runtime.
    let (mut report, jpeg) = tokio::task::spawn_blocking(move || {
        let report = check(&frame.image, map_w, map_h, intrinsics);
        let mut jpeg = Vec::new();
        let encoded = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 80)
            .encode_image(&frame.image);
        (report, encoded.map(|()| jpeg))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let jpeg = jpeg.map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    report.controls = camera.tap.controls();
    *camera.picture.lock().expect("picture lock") = Some((index, Arc::new(jpeg)));
    let answer = Answer {
        report,
        picture: format!("/api/camera-check.jpg?frame={index}"),
    };
    Ok(Json(serde_json::to_value(answer).expect("plain data")))
}

/// GET /api/camera-check.jpg: the picture of the last check.
pub async fn picture(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    umpire_only(&viewer)?;
    let camera = camera(&state)?;
    let picture = camera.picture.lock().expect("picture lock").clone();
    let (_, jpeg) = picture.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no camera check yet: GET /api/camera-check first",
        )
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/jpeg"),
            (header::CONTENT_SECURITY_POLICY, guard::IMAGE_CSP),
            (header::CACHE_CONTROL, "no-store"),
        ],
        jpeg.as_ref().clone(),
    )
        .into_response())
}
