//! Which seat a request comes from, and the seats' own endpoints.
//!
//! A phone carries its seat's token as `Authorization: Bearer TOKEN` (REST) or
//! `?seat=TOKEN` (the WebSocket, which a browser cannot give headers). A header, not a
//! cookie: another site cannot make a player's browser send it. The page keeps the token
//! in localStorage (web/seat.js) after reading it from the QR code's `#seat=TOKEN`, a
//! fragment, which the browser never sends to a server.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};

use super::api::ApiError;
use super::hub::Snapshot;
use super::{AppState, Seating};
use crate::seat::Seat;
use crate::seat::view::SeatView;

/// The seat of the client that sent a request, and its slot in the hub's messages.
#[derive(Debug, Clone)]
pub struct Viewer {
    pub seat: Seat,
    pub slot: usize,
}

impl Viewer {
    /// What this seat knows of `snap`.
    pub fn view<'s>(&self, snap: &'s Snapshot) -> &'s SeatView {
        &snap.views[self.slot.min(snap.views.len() - 1)]
    }

    /// Refuse unless the seat may act for `side`.
    pub fn must_act_for(&self, side: &str, what: &str) -> Result<(), ApiError> {
        if self.seat.acts_for(side) {
            return Ok(());
        }
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            match &self.seat {
                Seat::Spectator => format!(
                    "a spectator cannot {what}: scan a side's or the umpire's QR code to take a seat"
                ),
                seat => format!(
                    "the {} seat cannot {what}: that is for the {side} seat or the umpire",
                    seat.name()
                ),
            },
        ))
    }
}

impl Viewer {
    /// Refuse unless the seat acts for `side`, the side of the thing a request names
    /// (`None`: no such thing). An unknown name and another side's are refused in the same
    /// words, so a refusal never tells which of the enemy's exist. The umpire owns all.
    pub fn must_own(&self, side: Option<&str>, things: &str, name: &str) -> Result<(), ApiError> {
        if self.seat == Seat::Umpire || side.is_some_and(|side| self.seat.acts_for(side)) {
            return Ok(());
        }
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "the {} seat may act only for its own {things}, and {name:?} is not one of them",
                self.seat.name()
            ),
        ))
    }
}

/// The token a request carries, if any.
fn token(parts: &Parts) -> Option<&str> {
    if let Some(value) = parts.headers.get(header::AUTHORIZATION) {
        return value.to_str().ok()?.strip_prefix("Bearer ").map(str::trim);
    }
    parts
        .uri
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("seat="))
}

impl FromRequestParts<Arc<AppState>> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        if state.seating == Seating::Open {
            return Ok(Viewer {
                seat: Seat::Umpire,
                slot: 0,
            });
        }
        let seat = match token(parts) {
            None | Some("") => Seat::Spectator,
            Some(token) => state.seats.seat(token).ok_or_else(|| {
                ApiError::new(
                    StatusCode::FORBIDDEN,
                    "this seat token is not one of this game's: scan your seat's QR code again",
                )
            })?,
        };
        let slot = state
            .slots
            .iter()
            .position(|s| *s == seat)
            .expect("every seat has a slot");
        Ok(Viewer { seat, slot })
    }
}

/// GET /api/seat: who the server takes this client for.
pub async fn seat(State(state): State<Arc<AppState>>, viewer: Viewer) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "seat": viewer.seat.name(),
        "side": viewer.seat.side(),
        "seated": state.seating == Seating::Seated,
    }))
}

/// GET /api/seats (umpire only): every seat's address and QR code, for the host to show.
pub async fn seats(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> Result<Json<serde_json::Value>, ApiError> {
    if viewer.seat != Seat::Umpire || state.seating == Seating::Open {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            if state.seating == Seating::Open {
                "this is an open table: every phone sees everything, there are no seats"
            } else {
                "only the umpire's page shows the seats' codes"
            },
        ));
    }
    Ok(Json(serde_json::Value::Array(
        seat_urls(&state)
            .into_iter()
            .map(|(seat, label, url)| {
                serde_json::json!({
                    "seat": seat.name(),
                    "label": label,
                    "qr_svg": super::qr::svg(&url),
                    "url": url,
                })
            })
            .collect(),
    )))
}

/// Each seat with a label and the address that claims it: the sides first, then the
/// umpire, then spectators (their own token; the bare address seats a spectator too).
pub fn seat_urls(state: &AppState) -> Vec<(Seat, String, String)> {
    let url = |seat: &Seat| match state.seats.token(seat) {
        Some(token) => format!("{}#seat={token}", state.url),
        None => state.url.clone(),
    };
    let mut seats: Vec<Seat> = state.slots.iter().skip(2).cloned().collect();
    seats.extend([Seat::Umpire, Seat::Spectator]);
    seats
        .into_iter()
        .map(|seat| {
            let label = match &seat {
                Seat::Side(side) => state
                    .scenario
                    .side(side)
                    .map_or(side.clone(), |s| s.name.clone()),
                Seat::Umpire => "Umpire".into(),
                Seat::Spectator => "Spectators".into(),
            };
            let url = url(&seat);
            (seat, label, url)
        })
        .collect()
}
