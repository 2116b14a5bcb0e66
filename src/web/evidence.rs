//! GET /api/evidence.jpg: the camera's own picture of the table, for players to see the
//! verdict drawn on the real blocks rather than on the page's drawing of them.
//!
//! The picture is the map plane of the frame the tracker last committed a state on (a
//! still table, no hand over it), undistorted and cropped to the map
//! ([`crate::vision::MapPicture`]): the page lays it under its verdict overlay, both in
//! map inches. It is fetched when a player asks for it, never pushed over the WebSocket:
//! a phone on a pub's Wi-Fi should not receive 50 KB at every move it is not looking at.
//!
//! Every seat may see it: it shows the physical table that every player at it can see.
//! It is the picture of the snapshot every seat's view is built from, never a newer
//! frame, so that a spectator learns nothing from it that its view does not say yet.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::api::{ApiError, blocking, no_journal, state_number};
use super::guard;
use super::seats::Viewer;
use crate::vision::MapPicture;

/// GET /api/evidence.jpg: the picture of the current stable state, as a JPEG of the map
/// plane (`X-Aide-Seq`: the state it shows; `X-Aide-Px-Per-In`: its scale). 404 when no
/// camera watches the table, 409 while the camera has not committed a state yet.
/// A seat token that is not the game's is refused as on every route (the extractor).
pub async fn evidence(State(state): State<Arc<AppState>>, viewer: Viewer) -> Response {
    // The snapshot the seat's view is built from (a spectator's held back by the
    // spectator delay): the picture is never newer than it.
    let snap = state.current_for(&viewer.seat);
    let Some(picture) = snap.picture.clone() else {
        return if state.identify.is_none() {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "no camera watches this table (it is fed from state files): there is no picture of it",
            )
        } else {
            ApiError::new(
                StatusCode::CONFLICT,
                "no stable camera frame yet: the picture comes when the camera has seen the table still, with no hand over it",
            )
        }
        .into_response();
    };
    jpeg(&picture, snap.seq)
}

/// GET /api/log/{seq}/picture.jpg: the camera's picture of the journal's stable state
/// `seq`, for the log's replay of a past state (`X-Aide-Seq`: that state). 404 when the
/// server keeps no journal or the state has no picture (a table fed from state files).
pub async fn log_picture(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    Path(seq): Path<String>,
) -> Response {
    let seq = match state_number(&seq) {
        Ok(seq) => seq,
        Err(e) => return e.into_response(),
    };
    if !state.shows_log_state(&viewer.seat, seq) {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "state {seq} is not shown to spectators yet: they see the table {} s behind",
                state.spectator_delay.as_secs_f64()
            ),
        )
        .into_response();
    }
    let Some(recorder) = state.journal.clone() else {
        return no_journal().into_response();
    };
    let stored = blocking(move || {
        recorder
            .lock()
            .expect("journal lock")
            .recorder
            .journal()
            .picture(seq)
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    })
    .await;
    match stored {
        Ok(Some(picture)) => jpeg(&picture, seq),
        Ok(None) => ApiError::new(
            StatusCode::NOT_FOUND,
            format!("state {seq} has no camera picture in the journal (it was not seen by a camera, or is not a state of it)"),
        )
        .into_response(),
        Err(e) => e.into_response(),
    }
}

/// A picture as the page reads it: the JPEG, the state it shows and its scale.
fn jpeg(picture: &MapPicture, seq: impl ToString) -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/jpeg".to_owned()),
            // A newer state has another picture under the same address.
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::CONTENT_SECURITY_POLICY, guard::IMAGE_CSP.to_owned()),
            (
                header::HeaderName::from_static("x-aide-seq"),
                seq.to_string(),
            ),
            (
                header::HeaderName::from_static("x-aide-px-per-in"),
                picture.px_per_in.to_string(),
            ),
            (
                header::HeaderName::from_static("x-aide-taken-ms"),
                picture.ts_ms.to_string(),
            ),
        ],
        picture.jpeg.clone(),
    )
        .into_response()
}
