//! The table as one seat may know it: fog of war, built on the server.
//!
//! What a side knows of an enemy piece, as the 3.2 rules give it:
//! - Its block, as anyone at the table sees it: where it stands, which way it faces,
//!   upright or lying (fresh or spent), and its shape (a block or an HQ cube). Not its
//!   unit, command or quality: "sus pegatinas mirando hacia su jugador propietario…
//!   ocultas al enemigo hasta que puedan ser localizadas".
//! - Its type while a friendly piece spots it: "Puedes avistar unidades hasta un alcance
//!   de 1 movimiento a pie completo en tu Línea de Visión con tiempo despejado. Si
//!   puedes ver una pieza, el enemigo debe decirte el tipo de unidad (a pie, montada o
//!   artillería)" [3.2 Avistar]. The rules engine's `can_see` is that verdict (one full
//!   foot move, line of sight with its terrain and hill rules). 3.2 gives no other
//!   spotting range for night or weather: its night turn changes moves and combat only,
//!   so the same range holds at night.
//! - Its quality while in contact with a friendly piece: "No puedes ver la Calidad hasta
//!   el contacto. No puedes ver la Calidad de la pieza enemiga de Apoyo."
//! - Nothing of pieces off the table: "Las Cartas de Reserva permanecen fuera del
//!   tablero y actúan como pantalla para ocultar tus piezas del enemigo" [3.2 Reservas
//!   Ocultas]. A unit not on the table is named to the enemy only as "a red piece".
//!
//! The enemy's verdicts are its own: a side receives the rules' report for its pieces
//! only. Inside that report an enemy is named by its block's handle (`?3`), a number
//! given afresh with every table in order of position, so it follows no unit across
//! tables and says nothing about the order of battle.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::Seat;
use crate::rules::TableReport;
use crate::scenario::Scenario;
use crate::table::{MovementClass, Piece, Pose, Quality, Status, TableState, UnitKind};

/// An enemy piece as the seat sees it.
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    /// The block's handle in this table: `?` and a number. Not the unit's id.
    pub id: String,
    /// Always true: the page tells an anonymous block from a piece of its own by it.
    pub block: bool,
    pub side: String,
    /// The shape the camera tells apart (a block, an HQ cube), as the piece model names it.
    pub shape: String,
    /// "foot", "mounted", "artillery", "hq" or "supply-train", while spotted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// While in contact with a piece of the seat's side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<Quality>,
    pub pose: Pose,
    pub status: Status,
    pub footprint: crate::geom::Footprint,
}

/// One piece of the table as the seat receives it.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Shown<'t> {
    Known(&'t Piece),
    Block(Block),
}

/// The table as the seat receives it.
#[derive(Debug, Clone, Serialize)]
pub struct ShownTable<'t> {
    pub pieces: Vec<Shown<'t>>,
}

/// The type an enemy must tell when its piece is spotted: "a pie, montada o artillería";
/// HQs and supply trains are told as what they are (their shape shows them anyway).
pub fn told_type(kind: UnitKind) -> &'static str {
    match kind {
        k if k.is_hq() => "hq",
        UnitKind::SupplyTrain => "supply-train",
        k if k.is_artillery() => "artillery",
        k => match k.movement_class() {
            MovementClass::Foot => "foot",
            MovementClass::Mounted => "mounted",
        },
    }
}

/// What one seat knows of one table, and how it names what it may not know.
#[derive(Debug, Clone)]
pub struct SeatView {
    pub seat: Seat,
    /// Every name the seat may not read (enemy unit and command ids), and what it reads
    /// instead: a block's handle, "a red piece", "a red command".
    hidden: HashMap<String, String>,
    /// Handle → unit id, for requests that name an enemy block.
    handles: HashMap<String, String>,
    /// Enemy units spotted by a piece of the seat's side.
    spotted: HashSet<String>,
    /// Enemy units in contact with a piece of the seat's side.
    contacted: HashSet<String>,
}

impl SeatView {
    /// The knowledge of `seat` on `table`, with the rules' `report` on it.
    pub fn new(scenario: &Scenario, table: &TableState, report: &TableReport, seat: Seat) -> Self {
        let mut view = SeatView {
            seat,
            hidden: HashMap::new(),
            handles: HashMap::new(),
            spotted: HashSet::new(),
            contacted: HashSet::new(),
        };
        if view.seat == Seat::Umpire {
            return view;
        }
        let own = view.seat.side().map(str::to_owned);
        let side_name = |side: &str| {
            scenario
                .side(side)
                .map_or(side.to_owned(), |s| s.name.clone())
        };
        for r in &report.pieces {
            if Some(&r.side) == own.as_ref() {
                view.spotted.extend(r.can_see.iter().cloned());
                view.contacted.extend(r.in_contact_with.iter().cloned());
            }
        }
        // Hidden blocks on the table, numbered in order of position.
        let mut blocks: Vec<&Piece> = table
            .pieces
            .iter()
            .filter(|p| Some(&p.side) != own.as_ref())
            .collect();
        blocks.sort_by(|a, b| {
            (a.pose.x_in, a.pose.y_in)
                .partial_cmp(&(b.pose.x_in, b.pose.y_in))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for (n, p) in blocks.iter().enumerate() {
            let handle = format!("?{}", n + 1);
            view.hidden.insert(p.id.clone(), handle.clone());
            view.handles.insert(handle, p.id.clone());
        }
        for u in &scenario.units {
            if Some(&u.side) != own.as_ref() && !view.hidden.contains_key(&u.id) {
                view.hidden
                    .insert(u.id.clone(), format!("a {} piece", side_name(&u.side)));
            }
        }
        for c in &scenario.commands {
            if Some(&c.side) != own.as_ref() {
                view.hidden
                    .entry(c.id.clone())
                    .or_insert_with(|| format!("a {} command", side_name(&c.side)));
            }
        }
        view
    }

    /// Whether the seat sees everything (the umpire).
    pub fn sees_all(&self) -> bool {
        self.seat == Seat::Umpire
    }

    /// Whether the seat may read this unit's id.
    pub fn knows(&self, unit: &str) -> bool {
        !self.hidden.contains_key(unit)
    }

    /// The unit a request names: a unit the seat knows, or an enemy block by its handle.
    /// A hidden unit's id gives `None`, as an id that is not on the table does: the
    /// answer must not tell which enemy units exist.
    pub fn resolve<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        match self.handles.get(name) {
            Some(id) => Some(id),
            None if self.knows(name) && !name.starts_with('?') => Some(name),
            None => None,
        }
    }

    /// The table for this seat.
    pub fn table<'t>(&self, scenario: &Scenario, table: &'t TableState) -> ShownTable<'t> {
        let pieces = table
            .pieces
            .iter()
            .map(|p| match self.hidden.get(&p.id) {
                None => Shown::Known(p),
                Some(handle) => {
                    let spotted = self.seat != Seat::Spectator && self.spotted.contains(&p.id);
                    let contact = self.seat != Seat::Spectator && self.contacted.contains(&p.id);
                    Shown::Block(Block {
                        id: handle.clone(),
                        block: true,
                        side: p.side.clone(),
                        shape: crate::track::tracker::shape_of_kind(scenario, p.kind).to_owned(),
                        kind: spotted.then(|| told_type(p.kind)),
                        quality: contact.then_some(p.quality),
                        pose: p.pose,
                        status: p.status,
                        footprint: p.footprint,
                    })
                }
            })
            .collect();
        ShownTable { pieces }
    }

    /// The rules' report for this seat: the verdicts of its own pieces only (none for a
    /// spectator), enemies in them named by their handles. The umpire's is the report.
    pub fn report(&self, report: &TableReport) -> serde_json::Value {
        if self.sees_all() {
            return serde_json::to_value(report).expect("reports serialise");
        }
        let mine = TableReport {
            rules: report.rules,
            measures: report.measures.clone(),
            pieces: report
                .pieces
                .iter()
                .filter(|r| self.knows(&r.id))
                .cloned()
                .collect(),
            hex_grid: report.hex_grid.clone(),
        };
        let mut value = serde_json::to_value(&mine).expect("reports serialise");
        self.scrub(&mut value);
        value
    }

    /// Replace every hidden name in a JSON answer (keys and strings, also inside
    /// sentences) by what the seat reads instead. The last guard of every answer that
    /// carries rule texts: a combat's notes, a sight verdict's reasons, a chit error.
    pub fn scrub(&self, value: &mut serde_json::Value) {
        if self.hidden.is_empty() {
            return;
        }
        match value {
            serde_json::Value::String(s) => {
                if let Some(shown) = self.scrubbed(s) {
                    *s = shown;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.scrub(v)),
            serde_json::Value::Object(map) => {
                map.values_mut().for_each(|v| self.scrub(v));
                // Keys rarely hold a name (a map keyed by unit id): rename only those.
                let renamed: Vec<(String, String)> = map
                    .keys()
                    .filter_map(|k| self.scrubbed(k).map(|shown| (k.clone(), shown)))
                    .collect();
                for (key, shown) in renamed {
                    if let Some(v) = map.remove(&key) {
                        map.insert(shown, v);
                    }
                }
            }
            _ => {}
        }
    }

    /// `text` with hidden names replaced; ids are matched whole (runs of letters,
    /// digits, `-` and `_`), so "b1" is not found inside "b10".
    pub fn scrub_text(&self, text: &str) -> String {
        self.scrubbed(text).unwrap_or_else(|| text.to_owned())
    }

    fn scrubbed(&self, text: &str) -> Option<String> {
        if let Some(shown) = self.hidden.get(text) {
            return Some(shown.clone());
        }
        let is_id = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
        // Most strings name nothing hidden: look before building a new one.
        let words = || text.split(|c: char| !is_id(c)).filter(|w| !w.is_empty());
        if !words().any(|w| self.hidden.contains_key(w)) {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while !rest.is_empty() {
            let start = rest.find(is_id).unwrap_or(rest.len());
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest.find(|c: char| !is_id(c)).unwrap_or(rest.len());
            let word = &rest[..end];
            out.push_str(self.hidden.get(word).map_or(word, String::as_str));
            rest = &rest[end..];
        }
        Some(out)
    }
}
