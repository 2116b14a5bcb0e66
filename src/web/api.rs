//! REST handlers. All answers are JSON; every refusal is `{"error": reason}` with a 4xx
//! status that says whose fault it was (400 malformed, 404 unknown id, 409 the cup
//! refuses now, 413 too big, 422 the rules refuse, 429 too many).

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use geo::{Coord, Distance, Euclidean, Point};
use serde::{Deserialize, Serialize};

use super::AppState;
use super::feed::{Keep, NotCorrected};
use super::seats::Viewer;
use crate::dice::chits::{AlterKind, Attempt, ChitCup, ChitError};
use crate::dice::combat::{Combat, Edition, Engagement, bombard, daylight};
use crate::dice::{Notation, RollId, Roller};
use crate::geom::edge_distance;
use crate::rules::pub_battles::{combat, fof_polygon, in_field_of_fire};
use crate::scenario::RulesId;
use crate::seat::Seat;
use crate::seat::view::SeatView;
use crate::table::{Piece, TableState};

/// A refusal: its status and the reason, answered as `{"error": reason}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    fn bad(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    fn unknown_piece(id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            format!("unknown piece {id:?}: not on the table"),
        )
    }

    /// A refusal from the chit cup, worded for the seat: "…and that is blue-2" must not
    /// tell red which blue command moves.
    fn cup(e: ChitError, view: &SeatView) -> Self {
        Self::new(StatusCode::CONFLICT, view.scrub_text(&e.to_string()))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        Self::new(r.status(), r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        Self::new(r.status(), r.body_text())
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// Run rules work on the blocking pool: line of sight and combat facts walk terrain.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("worker failed: {e}"),
        )
    })?
}

fn piece<'t>(table: &'t TableState, id: &str) -> Result<&'t Piece, ApiError> {
    table.piece(id).ok_or_else(|| ApiError::unknown_piece(id))
}

/// The piece a seat names: one it knows by id, or an enemy block by its handle. A hidden
/// unit's id is refused as an id that is not on the table is, in the same words.
fn seen_piece<'t>(
    view: &SeatView,
    table: &'t TableState,
    name: &str,
) -> Result<&'t Piece, ApiError> {
    view.resolve(name)
        .and_then(|id| table.piece(id))
        .ok_or_else(|| ApiError::unknown_piece(name))
}

/// A JSON answer with every name the seat may not read replaced.
fn shaped(view: &SeatView, answer: &impl Serialize) -> serde_json::Value {
    let mut value = serde_json::to_value(answer).expect("answers serialise");
    view.scrub(&mut value);
    value
}

pub async fn not_found(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such endpoint: {}", uri.path()),
    )
}

/// GET /api/state: the current table, the rules' report and the feed's status as it is
/// now (the stored message's status dates from when the table arrived).
pub async fn state(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> ApiResult<serde_json::Value> {
    let snap = state.current_for(&viewer.seat);
    let mut message: serde_json::Value =
        serde_json::from_str(snap.messages[viewer.slot.min(snap.messages.len() - 1)].as_str())
            .expect("the hub wrote JSON");
    let view = state.feed.borrow().clone();
    message["status"] = serde_json::to_value(super::hub::status(&view, state.hub.receiver_count()))
        .expect("status serialises");
    Ok(Json(message))
}

/// GET /api/scenario: what the page needs to draw the map and name the pieces. A side
/// receives its own order of battle only (the enemy's is "un OB desconocido" [3.2 Juego
/// Libre], its reserves hidden); a spectator none.
pub async fn scenario(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> Json<serde_json::Value> {
    let s = &state.scenario;
    let mine = |side: &str| match &viewer.seat {
        Seat::Umpire => true,
        Seat::Spectator => false,
        Seat::Side(own) => own == side,
    };
    let units: Vec<_> = s.units.iter().filter(|u| mine(&u.side)).collect();
    let commands: Vec<_> = s.commands.iter().filter(|c| mine(&c.side)).collect();
    Json(serde_json::json!({
        "name": s.name,
        "description": s.description,
        "rules": s.rules,
        "map": {
            "width_in": s.map.width_in,
            "height_in": s.map.height_in,
            "image": state.map_svg.as_ref().map(|_| "/map.svg"),
        },
        "measures": state.current().report.measures,
        "fof_splay_deg": state.pub_battles.options.fof_splay_deg,
        // The kinds whose field of fire the page draws, as the rules read them (a
        // detachment's depends on `detachment_fof`).
        "fof_kinds": crate::table::UnitKind::ALL
            .into_iter()
            .filter(|&k| crate::rules::pub_battles::projects_fof(&state.pub_battles, k))
            .collect::<Vec<_>>(),
        "sides": s.sides,
        "commands": commands,
        "units": units,
        "seat": viewer.seat.name(),
        // Which units a person may name a piece as: the same side and the same shape
        // (the camera tells a block from a cube, not infantry from cavalry).
        "shapes": units.iter()
            .map(|u| (u.id.clone(), crate::track::tracker::shape_of_kind(s, u.kind).into()))
            .collect::<serde_json::Map<_, _>>(),
        "identify": state.identify.is_some(),
        "terrain": state.terrain_geojson,
        "url": state.url,
    }))
}

#[derive(Serialize)]
pub struct CheckAnswer {
    report: crate::rules::PieceReport,
    piece: Piece,
    /// The piece's field of fire, corners in map inches; null for kinds without one.
    fof: Option<Vec<[f64; 2]>>,
    /// The HQ it was measured to, as it stands now.
    commander: Option<Piece>,
    /// Null for rule systems that do not measure in inches.
    command_range_in: Option<f64>,
}

/// GET /api/check/{id}: everything the rules say about one piece, with the shapes the
/// page draws (its field of fire, its HQ).
pub async fn check(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    Path(id): Path<String>,
) -> ApiResult<serde_json::Value> {
    let snap = state.current();
    let view = viewer.view(&snap);
    // An enemy block's verdicts are its side's: asking by handle is refused as an
    // unknown piece, and so is a hidden unit's id.
    if !view.knows(&id) || id.starts_with('?') || viewer.seat == Seat::Spectator {
        return Err(ApiError::unknown_piece(&id));
    }
    let piece = piece(&snap.table, &id)?.clone();
    let report = snap
        .report
        .pieces
        .iter()
        .find(|p| p.id == id)
        .cloned()
        .ok_or_else(|| ApiError::unknown_piece(&id))?;
    let inches = snap.report.measures.inches();
    let fof = inches.filter(|_| piece.kind.has_field_of_fire()).map(|m| {
        fof_polygon(
            &piece.footprint,
            m.fof_depth_in,
            state.pub_battles.options.fof_splay_deg,
        )
        .exterior()
        .coords()
        .map(|c| [c.x, c.y])
        .collect()
    });
    let commander = report
        .commanded_by
        .as_deref()
        .and_then(|hq| snap.table.piece(hq))
        .cloned();
    Ok(Json(shaped(
        view,
        &CheckAnswer {
            report,
            piece,
            fof,
            commander,
            command_range_in: inches.map(|m| m.command_range_in),
        },
    )))
}

#[derive(Deserialize)]
pub struct Between {
    from: String,
    to: String,
}

/// One end of a measurement: a piece id or a point "x,y" in map inches.
enum End<'t> {
    Piece(&'t Piece),
    Point(Coord<f64>),
}

fn end<'t>(view: &SeatView, table: &'t TableState, text: &str) -> Result<End<'t>, ApiError> {
    match text.split_once(',') {
        Some((x, y)) => {
            let parse = |v: &str| {
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        ApiError::bad(format!(
                            "{text:?} is not a point: expected x,y in map inches, e.g. 12.5,8"
                        ))
                    })
            };
            Ok(End::Point(Coord {
                x: parse(x)?,
                y: parse(y)?,
            }))
        }
        None => Ok(End::Piece(seen_piece(view, table, text)?)),
    }
}

#[derive(Serialize)]
pub struct Measurement {
    from: String,
    to: String,
    /// Edge to edge between pieces; to the nearest edge from a point (0 inside); straight
    /// between two points.
    distance_in: f64,
    /// In Pub Battles move sticks; null for rule systems that measure otherwise.
    foot_moves: Option<f64>,
    mounted_moves: Option<f64>,
    /// The same distance as the scenario's rules count it: hexes between the two ends'
    /// hexes (One Hour Wargames, as its shooting lines count), centimetres to the
    /// hundredth (NBC, as its verdicts give them), or inches.
    rules_distance: f64,
    /// "in", "hex" or "cm".
    unit: &'static str,
}

/// GET /api/measure?from=ID|x,y&to=ID|x,y
pub async fn measure(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    query: Result<Query<Between>, QueryRejection>,
) -> ApiResult<Measurement> {
    let Query(q) = query?;
    let snap = state.current_for(&viewer.seat);
    let view = viewer.view(&snap);
    let (a, b) = (
        end(view, &snap.table, &q.from)?,
        end(view, &snap.table, &q.to)?,
    );
    let distance = match (&a, &b) {
        (End::Piece(a), End::Piece(b)) => {
            edge_distance(&a.footprint.polygon(), &b.footprint.polygon())
        }
        (End::Piece(p), End::Point(c)) | (End::Point(c), End::Piece(p)) => {
            Euclidean.distance(&Point::from(*c), &p.footprint.polygon())
        }
        (End::Point(a), End::Point(b)) => Euclidean.distance(Point::from(*a), Point::from(*b)),
    };
    let round = crate::rules::pub_battles::round_in;
    let moves = snap.report.measures.inches();
    let (rules_distance, unit) = match state.scenario.rules {
        RulesId::OhwHex => {
            let grid = crate::rules::ohw_hex::grid_of(&state.scenario);
            let hex = |e: &End| {
                grid.hex_at(match e {
                    End::Piece(p) => Coord {
                        x: p.pose.x_in,
                        y: p.pose.y_in,
                    },
                    End::Point(c) => *c,
                })
            };
            (f64::from(grid.distance(hex(&a), hex(&b))), "hex")
        }
        RulesId::Nbc => (
            (distance * crate::model::CM_PER_IN * 100.0).round() / 100.0,
            "cm",
        ),
        _ => (round(distance), "in"),
    };
    Ok(Json(Measurement {
        from: q.from,
        to: q.to,
        distance_in: round(distance),
        foot_moves: moves.map(|m| round(distance / m.foot_move_in)),
        mounted_moves: moves.map(|m| round(distance / m.mounted_move_in)),
        rules_distance,
        unit,
    }))
}

/// GET /api/sight?from=ID&to=ID: the rules' line-of-sight verdict.
pub async fn sight(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    query: Result<Query<Between>, QueryRejection>,
) -> ApiResult<serde_json::Value> {
    let Query(q) = query?;
    let snap = state.current_for(&viewer.seat);
    let view = viewer.view(&snap);
    seen_piece(view, &snap.table, &q.from)?;
    seen_piece(view, &snap.table, &q.to)?;
    blocking(move || {
        let view = viewer.view(&snap);
        let (a, b) = (
            seen_piece(view, &snap.table, &q.from)?,
            seen_piece(view, &snap.table, &q.to)?,
        );
        let verdict = state.rules.sight(&state.scenario, &snap.table, a, b);
        Ok(Json(shaped(view, &verdict)))
    })
    .await
}

/// POST /api/roll: `{"notation": "3d6 hits 4+ -1"}`, `{"combat": [ATTACKER, DEFENDER]}`,
/// `{"bombard": [GUN, TARGET]}` or, in One Hour Wargames, `{"morale": {"unit": UNIT,
/// "hits": N}}` (with `"commander_lost": true` once a failed test took the commander);
/// `"seed"` replays a roll id. Combats and bombardments are judged as `aide roll`
/// judges them: Pub Battles combats and bombardments (refused, 409, on the chit cup's
/// night turn), One Hour Wargames shots, NBC batteries' fire.
/// `"hidden": true` with a seed replays the dice a chit draw or an Alter roll of that
/// public id really used (umpire only). A spectator may not roll (403); a side rolls
/// combats of its own attacker or gun, naming the enemy by its block's handle.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollRequest {
    notation: Option<String>,
    combat: Option<[String; 2]>,
    bombard: Option<[String; 2]>,
    morale: Option<MoraleRequest>,
    seed: Option<RollId>,
    #[serde(default)]
    hidden: bool,
}

/// One Hour Wargames: "Test morale whenever a unit takes any hits": the unit, the hits on
/// it (the table shows no hit markers) and whether an earlier test took its commander.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleRequest {
    unit: String,
    hits: u32,
    #[serde(default)]
    commander_lost: bool,
}

pub async fn roll(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<RollRequest>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(mut req) = body?;
    if viewer.seat == Seat::Spectator {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "a spectator cannot roll: scan a side's or the umpire's QR code to take a seat",
        ));
    }
    let mut roller = match (req.seed, req.hidden) {
        (Some(id), true) if viewer.seat == Seat::Umpire => state.seats.hidden_roller(id),
        (_, true) => {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "only the umpire replays the hidden dice of a chit draw (with \"seed\": its roll id)",
            ));
        }
        (Some(id), false) => Roller::replay(id),
        (None, false) => os_roller()?,
    };
    // The pieces of a combat as the seat named them, now by their ids (a request naming
    // more than one kind of roll is refused below).
    let snap = state.current();
    let view = viewer.view(&snap);
    let kinds = [
        req.notation.is_some(),
        req.combat.is_some(),
        req.bombard.is_some(),
        req.morale.is_some(),
    ];
    let one = kinds.iter().filter(|&&k| k).count() == 1;
    for pair in [&mut req.combat, &mut req.bombard]
        .into_iter()
        .flatten()
        .filter(|_| one)
    {
        let first = seen_piece(view, &snap.table, &pair[0])?;
        viewer.must_act_for(&first.side, "roll for a piece of another side")?;
        let second = seen_piece(view, &snap.table, &pair[1])?;
        *pair = [first.id.clone(), second.id.clone()];
    }
    if let Some(m) = req.morale.as_mut().filter(|_| one) {
        let unit = seen_piece(view, &snap.table, &m.unit)?;
        viewer.must_act_for(&unit.side, "roll for a piece of another side")?;
        m.unit = unit.id.clone();
    }
    let (kind, answer) = match (req.notation, req.combat, req.bombard, req.morale) {
        (None, None, None, Some(m)) => {
            let state = state.clone();
            let answer = blocking(move || morale_roll(&state, &m, &mut roller)).await?;
            ("morale", answer)
        }
        (Some(text), None, None, None) => {
            let notation: Notation = text
                .parse()
                .map_err(|e: crate::dice::ParseError| ApiError::bad(e.to_string()))?;
            let report = notation.roll(&mut roller);
            let mut answer = serde_json::to_value(&report).expect("serialises");
            answer["text"] = report.to_string().into();
            ("notation", answer)
        }
        // One Hour Wargames and NBC fire one way: a shot (OHW) or a battery's fire (NBC),
        // asked for as a combat or a bombardment alike, as `aide roll` does.
        (None, Some([a, b]), None, None) | (None, None, Some([a, b]), None)
            if !pub_battles(&state) =>
        {
            let state = state.clone();
            blocking(move || table_roll(&state, &a, &b, &mut roller)).await?
        }
        (None, Some([a, b]), None, None) => {
            refuse_at_night(&state)?;
            let state = state.clone();
            let answer = blocking(move || roll_combat(&state, &a, &b, &mut roller)).await?;
            ("combat", answer)
        }
        (None, None, Some([a, b]), None) => {
            refuse_at_night(&state)?;
            let state = state.clone();
            let answer = blocking(move || roll_bombard(&state, &a, &b, &mut roller)).await?;
            ("bombard", answer)
        }
        _ => {
            return Err(ApiError::bad(
                "give exactly one of \"notation\", \"combat\": [attacker, defender], \"bombard\": [gun, target] or \"morale\": {\"unit\": unit, \"hits\": n}",
            ));
        }
    };
    let mut stored = answer.clone();
    stored["seat"] = viewer.seat.name().into();
    journal(&state, move |j, ts| j.record_roll(kind, &stored, ts)).await;
    Ok(Json(shaped(viewer.view(&state.current()), &answer)))
}

fn os_roller() -> Result<Roller, ApiError> {
    Roller::from_os()
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("no entropy: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentifyBody {
    unit: String,
    x_in: f64,
    y_in: f64,
}

/// POST /api/identify `{"unit", "x_in", "y_in"}`: a person says the piece standing at
/// (x, y) is `unit` (the tracker took it for another). The tracker swaps the two names,
/// the journal stores an `identified` event and measures later moves under the new
/// names. 409 when the table is a scripted replay (its names are the script's) or not
/// yet seen, 404 for an unknown unit, 422 when no piece stands there or it cannot be
/// that unit (another side or shape).
pub async fn identify(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<IdentifyBody>, JsonRejection>,
) -> ApiResult<crate::track::Identification> {
    let Json(req) = body?;
    // Only the unit's own seat (or the umpire) names it. A unit of another side and a
    // unit that does not exist get the same answer: which enemy units exist is secret.
    let side = state
        .scenario
        .units
        .iter()
        .find(|u| u.id == req.unit)
        .map(|u| u.side.clone());
    viewer.must_own(side.as_deref(), "units", &req.unit)?;
    if !(req.x_in.is_finite() && req.y_in.is_finite()) {
        return Err(ApiError::bad("x_in and y_in must be numbers of inches"));
    }
    let Some(namer) = state.identify.clone() else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "this table is a scripted replay: its pieces are named by the script",
        ));
    };
    blocking(move || {
        let snap = state.current();
        let view = viewer.view(&snap);
        namer
            .identify(&req.unit, req.x_in, req.y_in, &mut kept_by(&state))
            .map(Json)
            .map_err(|e| not_corrected(e, view))
    })
    .await
}

// ---------- a person's veto, and pieces placed by hand (POST /api/veto, /api/place,
// /api/unplace) ----------

/// Stores a person's correction in the server's journal before it is made (see
/// [`Identify`](super::feed::Identify)): after the table the camera published before it,
/// in one transaction. With no journal there is nothing to store.
fn kept_by(
    state: &AppState,
) -> impl FnMut(&crate::track::Event, &TableState) -> Result<(), crate::journal::JournalError> + '_
{
    move |event, table| {
        let Some(journal) = &state.journal else {
            return Ok(());
        };
        // Cloned out of the channel's lock, not to hold the feed while SQLite writes.
        let view = state.feed.borrow().clone();
        journal
            .lock()
            .expect("journal lock")
            .keep(&view, event, table)
    }
}

/// A correction not made, with the status that says why, worded for the seat. The
/// tracker refused it: 404 an unknown unit; 409 the table is not seen yet or the
/// correction does not fit it now (the unit is on the table already, was not placed by
/// hand); 422 nothing stands where the person tapped, or the wrong thing does. Or the
/// journal did not store it: 500 with the journal's reason; the table is as it was, and
/// the person may try again.
fn not_corrected(e: NotCorrected, view: &SeatView) -> ApiError {
    use crate::track::AssignError;
    let e = match e {
        NotCorrected::Refused(e) => e,
        NotCorrected::NotKept(e) => {
            tracing::warn!(error = %e, "journal: a correction not stored, so not made");
            return ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                view.scrub_text(&format!(
                    "the journal did not store this correction, so it was not made (the table is as it was); try again: {e}"
                )),
            );
        }
    };
    let status = match e {
        AssignError::UnknownUnit(_) => StatusCode::NOT_FOUND,
        AssignError::NoStableTable
        | AssignError::OnTable(_)
        | AssignError::NotPlaced(_)
        | AssignError::PlacedByHand(_) => StatusCode::CONFLICT,
        AssignError::NoPieceNear { .. }
        | AssignError::Incompatible { .. }
        | AssignError::OffMap { .. }
        | AssignError::Occupied { .. } => StatusCode::UNPROCESSABLE_ENTITY,
    };
    ApiError::new(status, view.scrub_text(&e.to_string()))
}

/// Make a correction of the tracker on the blocking pool and answer with its event, as
/// the seat may read it; 409 on a scripted replay (its pieces are the script's, and
/// there is no camera reading to correct). `what` says what was asked, for the refusal.
async fn correct(
    state: Arc<AppState>,
    viewer: Viewer,
    what: &str,
    f: impl FnOnce(&dyn super::feed::Identify, &str, Keep) -> Result<crate::track::Event, NotCorrected>
    + Send
    + 'static,
) -> ApiResult<serde_json::Value> {
    let tracker = state.identify.clone().ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            format!("this table is a scripted replay: its pieces are the script's, there is no camera reading to {what}"),
        )
    })?;
    blocking(move || {
        let snap = state.current();
        let view = viewer.view(&snap);
        let event = f(tracker.as_ref(), viewer.seat.name(), &mut kept_by(&state))
            .map_err(|e| not_corrected(e, view))?;
        Ok(Json(shaped(view, &event)))
    })
    .await
}

fn inches(values: &[f64]) -> Result<(), ApiError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(ApiError::bad(
            "positions and headings must be numbers (inches, degrees)",
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VetoBody {
    x_in: f64,
    y_in: f64,
}

/// POST /api/veto `{"x_in", "y_in"}`: the piece standing there is not a piece (ink,
/// glare, a die). The tracker drops it from the table (a unit it had been given is free
/// again) and ignores a detection like it there until the place changes; the journal
/// stores a `vetoed` event naming the seat. Any playing seat may veto any piece: a
/// phantom belongs to no one, and the side it hurts (a phantom blue block in the river
/// flanking red's line) is often not its colour's; the seat is journaled, and the owner
/// of a real piece vetoed by mistake puts it back by hand. A spectator gets 403, a
/// scripted replay 409.
pub async fn veto(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<VetoBody>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(req) = body?;
    plays(&viewer, "veto a piece")?;
    inches(&[req.x_in, req.y_in])?;
    correct(state, viewer, "veto", move |t, by, keep| {
        t.veto(req.x_in, req.y_in, by, keep)
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceBody {
    unit: String,
    x_in: f64,
    y_in: f64,
    heading_deg: f64,
    #[serde(default)]
    status: crate::table::Status,
}

/// POST /api/place `{"unit", "x_in", "y_in", "heading_deg", "status"?}`: a unit the
/// camera misses stands there. The tracker holds it until the camera sees a piece of its
/// shape and side within [`HANDOVER_IN`](crate::track::tracker::HANDOVER_IN) (then the
/// camera's pose takes over, a `seen` event) or a person takes it back. Only the unit's
/// own seat or the umpire (403, in the same words for an enemy unit and for none); 409 on
/// a scripted replay or for a unit on the table; 422 off the map or onto a piece.
pub async fn place(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<PlaceBody>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(req) = body?;
    plays(&viewer, "place a piece")?;
    let side = state.scenario.unit(&req.unit).map(|u| u.side.clone());
    viewer.must_own(side.as_deref(), "units", &req.unit)?;
    inches(&[req.x_in, req.y_in, req.heading_deg])?;
    let pose = crate::table::Pose::new(req.x_in, req.y_in, req.heading_deg);
    correct(state, viewer, "place a piece into", move |t, by, keep| {
        t.place(&req.unit, pose, req.status, by, keep)
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnplaceBody {
    unit: String,
}

/// POST /api/unplace `{"unit"}`: take back a piece placed by hand that the camera has
/// not seen. The same seats as for placing it.
pub async fn unplace(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<UnplaceBody>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(req) = body?;
    plays(&viewer, "take back a piece")?;
    let side = state.scenario.unit(&req.unit).map(|u| u.side.clone());
    viewer.must_own(side.as_deref(), "units", &req.unit)?;
    correct(
        state,
        viewer,
        "take a piece back from",
        move |t, by, keep| t.unplace(&req.unit, by, keep),
    )
    .await
}

/// A One Hour Wargames shot or an NBC battery's fire, judged as `aide roll` judges it.
fn table_roll(
    state: &AppState,
    a: &str,
    b: &str,
    roller: &mut Roller,
) -> Result<(&'static str, serde_json::Value), ApiError> {
    use crate::rules::{nbc, ohw_hex};
    let snap = state.current();
    let (scenario, table) = (&*state.scenario, &*snap.table);
    let refused = table_refusal;
    let value = |v: Result<serde_json::Value, serde_json::Error>| v.expect("serialises");
    Ok(match scenario.rules {
        RulesId::OhwHex => (
            "shot",
            value(serde_json::to_value(
                ohw_hex::dice::shoot_on_table(scenario, table, a, b, roller).map_err(refused)?,
            )),
        ),
        _ => (
            "battery",
            value(serde_json::to_value(
                nbc::dice::fire_on_table(scenario, table, a, b, roller).map_err(refused)?,
            )),
        ),
    })
}

/// A One Hour Wargames morale test ([`ohw_hex::dice::morale_on_table`]); the other rule
/// books have none the page can roll (422): NBC's Quality Check tables and its Close
/// Combat are missing from the text the project has.
fn morale_roll(
    state: &AppState,
    m: &MoraleRequest,
    roller: &mut Roller,
) -> Result<serde_json::Value, ApiError> {
    use crate::rules::ohw_hex;
    if state.scenario.rules != RulesId::OhwHex {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "a morale test is rolled in One Hour Wargames only",
        ));
    }
    let snap = state.current();
    let test = ohw_hex::dice::morale_on_table(
        &state.scenario,
        &snap.table,
        &m.unit,
        m.hits,
        m.commander_lost,
        roller,
    )
    .map_err(table_refusal)?;
    Ok(serde_json::to_value(test).expect("serialises"))
}

/// A roll the table does not allow: a piece not on it (404), or the rules' reason (422).
fn table_refusal(e: crate::rules::TableRollError) -> ApiError {
    use crate::rules::TableRollError;
    match e {
        TableRollError::NotOnTable(id) => ApiError::unknown_piece(&id),
        TableRollError::Refused(why) => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, why),
    }
}

/// Whether the scenario is played with one of the Pub Battles rule books.
fn pub_battles(state: &AppState) -> bool {
    matches!(
        state.scenario.rules,
        RulesId::PubBattles32 | RulesId::PubBattles30 | RulesId::PubBattlesQuickStart
    )
}

/// "Sin ataques ni bombardeos" [3.2, Night Turn]: the page's chit cup keeps the turn
/// die, so a combat or a bombardment on its night turn is refused (409: the turn refuses
/// now), as `aide roll --night` refuses ([`daylight`]).
fn refuse_at_night(state: &AppState) -> Result<(), ApiError> {
    let turn = state.cup.lock().expect("cup lock").turn;
    daylight(turn.is_night())
        .map_err(|e| ApiError::new(StatusCode::CONFLICT, format!("{turn}: {e}")))
}

/// Round 1 of a combat between two pieces, with every modifier the table earns: the same
/// library calls as `aide roll --combat` (src/cli/roll.rs), support from the Reserve
/// included ([`combat::combatant_on`]). The page gives no start of the attacker's move,
/// as `aide roll` without `--attacker-from`.
fn roll_combat(
    state: &AppState,
    attacker: &str,
    defender: &str,
    roller: &mut Roller,
) -> Result<serde_json::Value, ApiError> {
    let snap = state.current();
    let (rules, scenario, table) = (&state.pub_battles, &*state.scenario, &*snap.table);
    let (a, d) = (piece(table, attacker)?, piece(table, defender)?);
    let refuse = |m: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, m);
    let engagement = if combat::in_contact(rules, a, d) {
        Engagement::Contact
    } else if combat::edition(rules) == Edition::V30
        && in_field_of_fire(rules, scenario, table, a, d).is_some()
    {
        Engagement::FireFight
    } else {
        return Err(refuse(format!(
            "{} and {} are not in contact{}: \"You must be able to move so that the majority of the pieces are in contact\"",
            a.id,
            d.id,
            if combat::edition(rules) == Edition::V30 {
                " nor is the defender in the attacker's field of fire"
            } else {
                ""
            }
        )));
    };
    let attacker_facts = combat::fire_facts(rules, scenario, table, a, d, true);
    let defender_facts = combat::fire_facts(rules, scenario, table, d, a, false);
    let mut fight = Combat::new(
        combat::edition(rules),
        engagement,
        combat::combatant_on(rules, scenario, table, a),
        combat::combatant_on(rules, scenario, table, d),
    )
    .map_err(|e| refuse(e.to_string()))?;
    let plans = fight
        .preview(&attacker_facts, &defender_facts)
        .map_err(|e| refuse(e.to_string()))?;
    let round = fight
        .fire(roller, &attacker_facts, &defender_facts)
        .map_err(|e| refuse(e.to_string()))?;
    Ok(serde_json::json!({
        "attacker": a.id,
        "defender": d.id,
        "attacker_facts": attacker_facts,
        "defender_facts": defender_facts,
        "plans": plans,
        "round": round,
        "text": round.to_string(),
        "combat": fight,
        "roll_id": roller.id(),
    }))
}

/// A bombardment when [`combat::bombardment`] allows it, as `aide roll --bombard`: not in
/// contact, in sight, not through or over a friendly piece, and in the variant's arc (3.0
/// field of fire, quick start 45 degrees). A refusal (422) gives every problem with the
/// verdict's numbers.
fn roll_bombard(
    state: &AppState,
    gun: &str,
    target: &str,
    roller: &mut Roller,
) -> Result<serde_json::Value, ApiError> {
    let snap = state.current();
    let (rules, scenario, table) = (&state.pub_battles, &*state.scenario, &*snap.table);
    let (g, t) = (piece(table, gun)?, piece(table, target)?);
    let refuse = |m: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, m);
    let verdict = combat::bombardment(rules, scenario, table, g, t);
    if !verdict.allowed {
        return Err(refuse(format!(
            "{} may not bombard {} ({:.2} in edge to edge, range {:.2} in{}): {}",
            g.id,
            t.id,
            verdict.distance_in,
            verdict.range_in,
            verdict
                .fraction_in_arc
                .map(|f| format!(", {:.0}% of the target in the arc", f * 100.0))
                .unwrap_or_default(),
            verdict.problems.join("; ")
        )));
    }
    let facts = combat::fire_facts(rules, scenario, table, g, t, true);
    let mut victim = combat::combatant_on(rules, scenario, table, t);
    let volley = bombard(
        roller,
        combat::edition(rules),
        &combat::combatant_on(rules, scenario, table, g),
        &mut victim,
        facts,
    )
    .map_err(|e| refuse(e.to_string()))?;
    Ok(serde_json::json!({
        "gun": g.id,
        "target": t.id,
        "distance_in": verdict.distance_in,
        "verdict": verdict,
        "volley": volley,
        "text": volley.to_string(),
        "roll_id": roller.id(),
    }))
}

/// Write to the journal when the server keeps one; a journal error is logged, never
/// shown to the table as a failed roll (the dice were thrown).
async fn journal(
    state: &Arc<AppState>,
    f: impl FnOnce(&mut crate::journal::Journal, i64) -> Result<i64, crate::journal::JournalError>
    + Send
    + 'static,
) {
    if let Some(journaling) = state.journal.clone() {
        let _ = tokio::task::spawn_blocking(move || {
            let mut journaling = journaling.lock().expect("journal lock");
            if let Err(e) = f(journaling.recorder.journal(), crate::journal::now_ms()) {
                tracing::warn!(error = %e, "journal: not recorded");
            }
        })
        .await;
    }
}

/// The side a chit request speaks for, when it names one. Optional: a seat's view is its
/// own; on an open table (everyone the umpire) `viewer` picks whose view to answer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CupQuery {
    viewer: Option<String>,
}

fn check_side(state: &AppState, side: &str) -> Result<(), ApiError> {
    match state.scenario.side(side) {
        Some(_) => Ok(()),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("unknown side {side:?}"),
        )),
    }
}

/// The cup as the seat may see it: a side its own chits and only the colour of the
/// others' ("a red chit"); a spectator colours only; the umpire everything, or, on an
/// open table, the view of the side `viewer` names.
fn cup_view(
    state: &AppState,
    viewer: &Viewer,
    asked: Option<&str>,
    cup: &ChitCup,
) -> Result<crate::dice::chits::CupView, ApiError> {
    cup_in_the_rules(state)?;
    if let Some(side) = asked {
        check_side(state, side)?;
    }
    Ok(match (&viewer.seat, asked) {
        (Seat::Umpire, Some(side)) => cup.view(side),
        (Seat::Umpire, None) => cup.view_for(|_| true),
        (Seat::Spectator, _) => cup.view_for(|_| false),
        (Seat::Side(own), asked) => {
            if let Some(side) = asked.filter(|s| s != own) {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    format!("the {own} seat sees the cup as {own}, not as {side}"),
                ));
            }
            cup.view(own)
        }
    })
}

/// Change the cup under its lock, store it in the journal (with `record`, in one
/// transaction) before answering, so that a restart after a crash resumes the turn as
/// it was; answer with the seat's view. Runs on the blocking pool (SQLite writes).
async fn change_cup<T: Serialize + Send + 'static>(
    state: &Arc<AppState>,
    viewer: Viewer,
    asked: Option<String>,
    change: impl FnOnce(
        &mut ChitCup,
        &SeatView,
    ) -> Result<(T, Option<(&'static str, serde_json::Value)>), ApiError>
    + Send
    + 'static,
) -> Result<(T, crate::dice::chits::CupView), ApiError> {
    cup_in_the_rules(state)?;
    let state = state.clone();
    blocking(move || {
        let snap = state.current();
        let view = viewer.view(&snap);
        let mut cup = state.cup.lock().expect("cup lock");
        let mut changed = cup.clone();
        let (answer, record) = change(&mut changed, view)?;
        if let Some(recorder) = &state.journal {
            let stored = recorder
                .lock()
                .expect("journal lock")
                .recorder
                .journal()
                .atomically(|j| -> Result<(), crate::journal::JournalError> {
                    let ts = crate::journal::now_ms();
                    if let Some((kind, value)) = &record {
                        match *kind {
                            "alter" => j.record_roll(kind, value, ts)?,
                            _ => j.record_chit_draw(kind, value, ts)?,
                        };
                    }
                    j.store_cup(&changed, ts)
                });
            // Not stored, not done: the cup stays as it was and the seat may try again.
            stored.map_err(|e| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the journal did not take the chit cup: {e}"),
                )
            })?;
        }
        *cup = changed;
        let seen = cup_view(&state, &viewer, asked.as_deref(), &cup)?;
        Ok((answer, seen))
    })
    .await
}

/// GET /api/chits: the cup as the seat may see it.
pub async fn chits(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    query: Result<Query<CupQuery>, QueryRejection>,
) -> ApiResult<crate::dice::chits::CupView> {
    let Query(q) = query?;
    let cup = state.cup.lock().expect("cup lock");
    Ok(Json(cup_view(&state, &viewer, q.viewer.as_deref(), &cup)?))
}

/// The chit cup is Pub Battles' ("Chits in the bag", Delay and Jump, eight day turns and a
/// night turn): other rule books are refused (422) with the reason. One Hour Wargames
/// plays alternate turns with an event card; NBC chooses each Formation with Command
/// Cards, a Bye Card and a Command Pot whose procedure is missing from its text.
fn cup_in_the_rules(state: &AppState) -> Result<(), ApiError> {
    let why = match state.scenario.rules {
        RulesId::PubBattles32 | RulesId::PubBattles30 | RulesId::PubBattlesQuickStart => {
            return Ok(());
        }
        RulesId::OhwHex => {
            "One Hour Wargames has no chit cup: players alternate turns, each opening with an event card"
        }
        RulesId::Nbc => {
            "NBC has no chit cup: a Formation moves when chosen with its Command Card (and the Bye Card), and the Command Pot's procedure is not in the rules text (v1.1 pages 1-24)"
        }
    };
    Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, why))
}

/// Refuse a spectator: the cup is the players'.
fn plays(viewer: &Viewer, what: &str) -> Result<(), ApiError> {
    if viewer.seat == Seat::Spectator {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "a spectator cannot {what}: scan a side's or the umpire's QR code to take a seat"
            ),
        ));
    }
    Ok(())
}

/// POST /api/chits/draw {}: draw the next chit. The answer is the viewer's view: the
/// opponent's draw shows only its colour. The draw's public roll id does not replay it:
/// its dice come from the server's draw key ([`crate::seat::Seats::hidden_roller`]).
pub async fn chit_draw(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<CupQuery>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(q) = body?;
    plays(&viewer, "draw a chit")?;
    let public = os_roller()?.id();
    let mut roller = state.seats.hidden_roller(public);
    let seat = viewer.seat.name().to_owned();
    let (draw, view) = change_cup(&state, viewer, q.viewer, move |cup, view| {
        let before = cup.clone();
        let mut draw = cup.draw(&mut roller).map_err(|e| ApiError::cup(e, view))?;
        let seed = draw.roll_id.map(|_| roller.id());
        draw.roll_id = draw.roll_id.map(|_| public);
        let stored =
            serde_json::json!({"draw": draw, "cup_before": before, "seat": seat, "seed": seed});
        Ok((draw, Some(("draw", stored))))
    })
    .await?;
    Ok(Json(serde_json::json!({
        "roll_id": draw.roll_id,
        "view": view,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlterRequest {
    viewer: Option<String>,
    kind: AlterKind,
    hq: String,
    command: String,
    #[serde(default)]
    in_range: bool,
}

/// POST /api/chits/alter: an HQ rolls to Delay or Jump. Only the HQ's own seat or the
/// umpire may roll it (403); an HQ that is not the seat's, or no HQ at all, is refused
/// in the same words, so a refusal names no enemy command.
pub async fn chit_alter(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<AlterRequest>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(q) = body?;
    plays(&viewer, "roll to Alter")?;
    let side = {
        let cup = state.cup.lock().expect("cup lock");
        cup.hqs
            .iter()
            .find(|h| h.command == q.hq)
            .map(|h| h.side.clone())
    };
    viewer.must_own(side.as_deref(), "HQs", &q.hq)?;
    // A successful Delay draws a chit in place of the delayed one: hidden dice, as a draw.
    let public = os_roller()?.id();
    let mut roller = state.seats.hidden_roller(public);
    let seat = viewer.seat.name().to_owned();
    let (report, view) = change_cup(&state, viewer, q.viewer, move |cup, view| {
        let mut report = cup
            .alter(
                &mut roller,
                Attempt {
                    kind: q.kind,
                    hq: q.hq,
                    command: q.command,
                    in_range: q.in_range,
                },
            )
            .map_err(|e| ApiError::cup(e, view))?;
        report.roll_id = public;
        let mut stored = serde_json::to_value(&report).expect("serialises");
        stored["seat"] = seat.into();
        stored["seed"] = serde_json::to_value(roller.id()).expect("serialises");
        let shown = shaped(view, &report);
        Ok((shown, Some(("alter", stored))))
    })
    .await?;
    Ok(Json(serde_json::json!({"alter": report, "view": view})))
}

/// POST /api/chits/finish {}: the command that moved is done. Its own seat or the
/// umpire says so.
pub async fn chit_finish(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<CupQuery>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(q) = body?;
    plays(&viewer, "end a move")?;
    let seat = viewer.clone();
    let ((), view) = change_cup(&state, viewer, q.viewer, move |cup, view| {
        if let Some(current) = &cup.current {
            seat.must_act_for(&current.chit.side, "end the moving command's move")?;
        }
        cup.finish_move().map_err(|e| ApiError::cup(e, view))?;
        Ok(((), None))
    })
    .await?;
    Ok(Json(serde_json::json!({"view": view})))
}

/// POST /api/chits/end-turn {}: every chit has moved; the turn die advances.
pub async fn chit_end_turn(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    body: Result<Json<CupQuery>, JsonRejection>,
) -> ApiResult<serde_json::Value> {
    let Json(q) = body?;
    plays(&viewer, "end the turn")?;
    let (turn, view) = change_cup(&state, viewer, q.viewer, move |cup, view| {
        Ok((cup.end_turn().map_err(|e| ApiError::cup(e, view))?, None))
    })
    .await?;
    Ok(Json(serde_json::json!({"turn": turn, "view": view})))
}

/// A journal state's number from a path, or a 400 saying what came instead.
pub(super) fn state_number(seq: &str) -> Result<i64, ApiError> {
    seq.parse()
        .map_err(|_| ApiError::bad(format!("{seq:?} is not a state number")))
}

pub(super) fn no_journal() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "this server keeps no journal: start it with --journal FILE",
    )
}

/// Entries of the log the page shows: the newest this many of each kind.
const LOG_TAIL: usize = 200;

/// A stored roll or draw as a seat may read it: a chit draw says its colour, and its
/// command only to its own side; no seat but the umpire reads the cup before a draw or
/// the hidden seed behind a public roll id.
fn shaped_draw(view: &SeatView, draw: &crate::journal::StoredDraw) -> serde_json::Value {
    let mut value = serde_json::to_value(draw).expect("draws serialise");
    if view.sees_all() {
        return value;
    }
    if let Some(stored) = value["value"].as_object_mut() {
        stored.remove("cup_before");
        stored.remove("seed");
        if let Some(chit) = stored.get_mut("draw").and_then(|d| d.get_mut("chit"))
            && chit["side"]
                .as_str()
                .is_none_or(|side| !view.seat.acts_for(side))
        {
            chit["command"] = serde_json::Value::Null;
        }
    }
    view.scrub(&mut value);
    value
}

/// GET /api/log: the journal's stable states (for the replay slider), and the newest
/// events, rolls and draws, as the seat may read them: a side reads the events of its
/// own units (the enemy's blocks it watches move on the map).
pub async fn log(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
) -> ApiResult<serde_json::Value> {
    let recorder = state.journal.clone().ok_or_else(no_journal)?;
    let answer = blocking(move || {
        let snap = state.current();
        let view = viewer.view(&snap);
        let mut r = recorder.lock().expect("journal lock");
        let j = r.recorder.journal();
        let failed = |e: crate::journal::JournalError| {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
        };
        let states: Vec<serde_json::Value> = j
            .states()
            .map_err(failed)?
            .iter()
            .filter(|s| state.shows_log_state(&viewer.seat, s.seq))
            .map(|s| serde_json::json!({"seq": s.seq, "ts_ms": s.ts_ms, "turn": s.turn}))
            .collect();
        let mut events = j.events_after(None).map_err(failed)?;
        // A seat's own vetoes too, of an enemy piece: under that piece's handle.
        events.retain(|e| view.knows(e.event.unit()) || e.event.by() == Some(viewer.seat.name()));
        let draws: Vec<_> = j
            .draws()
            .map_err(failed)?
            .iter()
            .map(|d| shaped_draw(view, d))
            .collect();
        let tail = |n: usize| n.saturating_sub(LOG_TAIL);
        Ok(serde_json::json!({
            "states": states,
            "events": shaped(view, &&events[tail(events.len())..]),
            "draws": draws[tail(draws.len())..],
        }))
    })
    .await?;
    Ok(Json(answer))
}

/// GET /api/log/{seq}: a stable state from the journal, with the rules' report on it.
pub async fn log_state(
    State(state): State<Arc<AppState>>,
    viewer: Viewer,
    Path(seq): Path<String>,
) -> ApiResult<serde_json::Value> {
    let seq = state_number(&seq)?;
    let recorder = state.journal.clone().ok_or_else(no_journal)?;
    let answer = blocking(move || {
        let stored = recorder
            .lock()
            .expect("journal lock")
            .recorder
            .journal()
            .state(seq)
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    format!("no state {seq} in the journal"),
                )
            })?;
        if !state.shows_log_state(&viewer.seat, seq) {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "state {seq} is not shown to spectators yet: they see the table {} s behind",
                    state.spectator_delay.as_secs_f64()
                ),
            ));
        }
        let table = state
            .scenario
            .table(&stored.state.pieces)
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let report = state.rules.check_table(&state.scenario, &table);
        // What the seat knew of that table, as it was told it then.
        let view = SeatView::new(&state.scenario, &table, &report, viewer.seat);
        Ok(serde_json::json!({
            "seq": seq,
            "ts_ms": stored.ts_ms,
            "turn": stored.turn,
            "table": view.table(&state.scenario, &table),
            "report": view.report(&report),
        }))
    })
    .await?;
    Ok(Json(answer))
}
