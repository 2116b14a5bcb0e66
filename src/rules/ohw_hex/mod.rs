//! One Hour Wargames, American Civil War, hex variant [OHW]: every check on a hex grid.
//!
//! "Games are played on a hex grid, normally on a tabletop of 6 hexes by 9 hexes." A
//! piece stands in the hex its centre lies in and faces the hex side nearest its
//! heading ("must finish their movement facing a hex side"). Distances are counted in
//! hexes; the inch figures in the report are only there to draw with.
//!
//! Where the text is silent the choices are written here and in the report:
//! - a hex "has" a terrain feature when the feature covers the hex centre;
//! - a move is "along a road" when a road crosses the hex side the step goes through;
//! - a river or stream lies between two hexes when it crosses the line joining their
//!   centres; a bridge or ford on that line carries the step over it;
//! - the artillery ruler runs centre to centre, and a hex the ruler only grazes (a
//!   corner, or along a side) counts as crossed;
//! - woods and towns block the ruler; hills do not (the text names only "blocking
//!   terrain such as woods");
//! - turning in place counts as moving for the shooting rule ("move in any direction
//!   and must finish their movement facing a hex side").
//! - The exception to the exit-adjacent rule ("infantry with an officer involved in a
//!   successful attack") is an advance after combat, not a move, and is not judged here.

pub mod dice;
mod grid;

#[cfg(test)]
mod tests;

use geo::{Contains, Coord, Intersects, Line, Point};
use serde::Serialize;

pub use grid::{GridGeometry, Hex, HexCell, HexGrid};

use super::{Blocker, Measures, MoveVerdict, PieceReport, RuleSet, SightVerdict, TableReport};
use crate::scenario::{RulesId, Scenario, TerrainFeature, TerrainKind};
use crate::table::{Piece, Pose, Status, TableState, UnitKind};

/// The three arms of [OHW]: "The game has the following units: Infantry, Cavalry,
/// Artillery". Other kinds of piece are not part of this game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arm {
    Infantry,
    Cavalry,
    Artillery,
}

impl Arm {
    pub fn of(kind: UnitKind) -> Option<Arm> {
        match kind {
            UnitKind::Infantry | UnitKind::Detachment => Some(Arm::Infantry),
            UnitKind::Cavalry | UnitKind::Dragoons => Some(Arm::Cavalry),
            UnitKind::Artillery | UnitKind::HorseArtillery => Some(Arm::Artillery),
            UnitKind::Hq | UnitKind::ArmyHq | UnitKind::SupplyTrain => None,
        }
    }

    /// "Artillery and Infantry: 1 hex; Cavalry: 2 hex".
    pub fn move_hexes(self) -> u32 {
        match self {
            Arm::Cavalry => 2,
            Arm::Infantry | Arm::Artillery => 1,
        }
    }

    /// "Infantry and cavalry units with a range of 1 hex"; "Artillery units have a
    /// range of 4 hex".
    pub fn range_hexes(self) -> u32 {
        match self {
            Arm::Artillery => 4,
            Arm::Infantry | Arm::Cavalry => 1,
        }
    }
}

/// The hex rules engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct OhwHex;

/// The measures a hex report used.
#[derive(Debug, Clone, Serialize)]
pub struct HexMeasures {
    /// Always "hex".
    pub unit: &'static str,
    pub hex_size_in: f64,
    /// Centre-to-centre distance of neighbouring hexes, inches.
    pub hex_step_in: f64,
    pub infantry_move_hex: u32,
    pub cavalry_move_hex: u32,
    pub artillery_move_hex: u32,
    pub small_arms_range_hex: u32,
    pub artillery_range_hex: u32,
}

/// What the hex rules say about one piece.
#[derive(Debug, Clone, Serialize)]
pub struct HexPieceReport {
    pub hex: Hex,
    pub on_grid: bool,
    pub arm: Option<Arm>,
    /// The side faced (0..5 clockwise from the top side) and its heading.
    pub facing_side: u8,
    pub facing_deg: f64,
    /// How far the piece's heading is off that side, degrees.
    pub facing_off_deg: f64,
    /// The hex in front of the faced side.
    pub faces: Hex,
    /// Terrain features covering the hex centre.
    pub terrain: Vec<String>,
    /// Cover the hex gives: "woods", "town", "entrenchment", or "field" (not against
    /// artillery).
    pub cover: Option<String>,
    pub commander: bool,
    /// Enemies in neighbouring hexes (a river between does not stop them counting as
    /// adjacent for shooting, only for the stop rule).
    pub adjacent_enemies: Vec<String>,
    /// "Unless already facing an adjacent enemy unit, a unit will immediately turn to
    /// face an enemy unit when they move into adjacent hex": the enemy it must turn to.
    pub must_turn_to_face: Option<String>,
    /// Whether the piece moved since the previous state; null without one.
    pub moved: Option<bool>,
    /// "Shooting is only undertaken by units that have not moved".
    pub may_shoot: bool,
    /// Every enemy the piece could shoot at by range, allowed or not and why.
    pub shots: Vec<ShotOption>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShotOption {
    pub target: String,
    pub range_hex: u32,
    pub allowed: bool,
    pub reason: String,
    /// The target's cover against this shooter, if any.
    pub target_cover: Option<String>,
}

/// Occupied hexes of a table, by piece index.
struct Board<'a> {
    grid: HexGrid,
    scenario: &'a Scenario,
    table: &'a TableState,
    hexes: Vec<Hex>,
}

impl<'a> Board<'a> {
    fn new(scenario: &'a Scenario, table: &'a TableState) -> Self {
        let grid = grid_of(scenario);
        let hexes = table
            .pieces
            .iter()
            .map(|p| grid.hex_at(centre(&p.pose)))
            .collect();
        Self {
            grid,
            scenario,
            table,
            hexes,
        }
    }

    fn hex_of(&self, piece: &Piece) -> Hex {
        self.grid.hex_at(centre(&piece.pose))
    }

    /// The piece in a hex, other than `except`.
    fn occupant(&self, hex: Hex, except: &str) -> Option<&'a Piece> {
        self.table
            .pieces
            .iter()
            .zip(&self.hexes)
            .find(|(p, h)| **h == hex && p.id != except)
            .map(|(p, _)| p)
    }

    /// Enemies of `side` in hexes next to `hex`, with whether a river lies between.
    fn adjacent_enemies(&self, hex: Hex, side: &str, except: &str) -> Vec<(&'a Piece, bool)> {
        self.grid
            .neighbours(hex)
            .into_iter()
            .filter_map(|n| self.occupant(n, except).map(|p| (n, p)))
            .filter(|(_, p)| p.side != side)
            .map(|(n, p)| (p, self.crossing(hex, n).river.is_some()))
            .collect()
    }

    /// Terrain features that cover a hex's centre.
    fn terrain(&self, hex: Hex) -> Vec<&'a TerrainFeature> {
        let c = Point::from(self.grid.centre(hex));
        self.scenario
            .terrain
            .features
            .iter()
            .filter(|f| f.kind.is_occupiable() && f.area.contains(&c))
            .collect()
    }

    fn has(&self, hex: Hex, kind: TerrainKind) -> bool {
        self.terrain(hex).iter().any(|f| f.kind == kind)
    }

    /// What lies on the line between two neighbouring hexes' centres.
    fn crossing(&self, a: Hex, b: Hex) -> Crossing {
        let line = Line::new(self.grid.centre(a), self.grid.centre(b));
        let on_line = |kinds: &[TerrainKind]| {
            self.scenario
                .terrain
                .features
                .iter()
                .filter(|f| kinds.contains(&f.kind) && f.area.intersects(&line))
                .map(name_of)
                .next()
        };
        let passage = on_line(&[TerrainKind::Bridge, TerrainKind::Ford]);
        let road = self.grid.side_toward(a, b).is_some_and(|side| {
            let shared = self.grid.side_line(a, side);
            self.scenario
                .terrain
                .features
                .iter()
                .any(|f| f.kind == TerrainKind::Road && f.area.intersects(&shared))
        });
        Crossing {
            river: on_line(&[TerrainKind::River]).filter(|_| passage.is_none()),
            stream: on_line(&[TerrainKind::Stream]),
            road,
        }
    }

    /// Cover a target's hex gives against a shooter of `arm`. "Woods - provide cover",
    /// "Towns - provide cover", "Fields - provide cover except against artillery",
    /// "Entrenched Positions - provide cover".
    fn cover(&self, hex: Hex, against: Arm) -> Option<String> {
        self.terrain(hex).iter().find_map(|f| match f.kind {
            TerrainKind::Woods => Some("woods".to_owned()),
            TerrainKind::Buildings => Some("town".to_owned()),
            TerrainKind::Entrenchment => Some("entrenchment".to_owned()),
            TerrainKind::Field if against != Arm::Artillery => Some("field".to_owned()),
            _ => None,
        })
    }

    /// Whether the artillery ruler from `from` to `to` is clear: "checking the ruler
    /// does not cross a hex occupied by a unit or blocking terrain such as woods";
    /// "Artillery units positioned on hills are allowed to shoot over other units".
    fn ruler(&self, from: Hex, to: Hex, shooter: &str) -> Result<(), String> {
        let on_hill = self.has(from, TerrainKind::Hill);
        for h in self.grid.hexes_touched(from, to) {
            if let Some(f) = self
                .terrain(h)
                .into_iter()
                .find(|f| matches!(f.kind, TerrainKind::Woods | TerrainKind::Buildings))
            {
                return Err(format!("the ruler crosses {} at hex {h}", name_of(f)));
            }
            if !on_hill && let Some(p) = self.occupant(h, shooter) {
                return Err(format!(
                    "the ruler crosses hex {h}, occupied by {} (not firing from a hill)",
                    p.id
                ));
            }
        }
        Ok(())
    }
}

struct Crossing {
    /// An unbridged river between the hexes.
    river: Option<String>,
    stream: Option<String>,
    /// A road crosses the shared side.
    road: bool,
}

fn centre(pose: &Pose) -> Coord<f64> {
    Coord {
        x: pose.x_in,
        y: pose.y_in,
    }
}

fn name_of(f: &TerrainFeature) -> String {
    f.name.clone().unwrap_or_else(|| kind_name(f.kind))
}

/// A terrain kind as the scenario files spell it ("woods", "entrenchment").
fn kind_name(kind: TerrainKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The scenario's grid laid on its map (the default 9 x 6 when it names none).
pub fn grid_of(scenario: &Scenario) -> HexGrid {
    HexGrid::new(&scenario.hex.unwrap_or_default(), &scenario.map)
}

fn commander(scenario: &Scenario, id: &str) -> bool {
    scenario.unit(id).is_some_and(|u| u.commander)
}

impl OhwHex {
    pub fn measures(&self, grid: &HexGrid) -> HexMeasures {
        HexMeasures {
            unit: "hex",
            hex_size_in: super::pub_battles::round_in(grid.size_in),
            hex_step_in: super::pub_battles::round_in(grid.step_in()),
            infantry_move_hex: Arm::Infantry.move_hexes(),
            cavalry_move_hex: Arm::Cavalry.move_hexes(),
            artillery_move_hex: Arm::Artillery.move_hexes(),
            small_arms_range_hex: Arm::Infantry.range_hexes(),
            artillery_range_hex: Arm::Artillery.range_hexes(),
        }
    }

    /// The shots `piece` has at every enemy in range.
    fn shots(&self, board: &Board, piece: &Piece, may_shoot: bool) -> Vec<ShotOption> {
        let Some(arm) = Arm::of(piece.kind) else {
            return Vec::new();
        };
        let grid = &board.grid;
        let from = board.hex_of(piece);
        let (side, _) = grid.nearest_side(piece.pose.heading_deg);
        let faced = grid.neighbour(from, side);
        let in_town = board.has(from, TerrainKind::Buildings);
        let mut out = Vec::new();
        for (target, &to) in board.table.pieces.iter().zip(&board.hexes) {
            if target.side == piece.side || Arm::of(target.kind).is_none() {
                continue;
            }
            let range = grid.distance(from, to);
            if range == 0 || range > arm.range_hexes() {
                continue;
            }
            let verdict = match arm {
                Arm::Infantry | Arm::Cavalry if to == faced => Ok("in the faced hex".to_owned()),
                Arm::Infantry | Arm::Cavalry if in_town => {
                    Ok("adjacent, and units in buildings may shoot at any adjacent hex".into())
                }
                Arm::Infantry | Arm::Cavalry => Err(format!(
                    "not in the faced hex {faced}: infantry and cavalry \"can only shoot at a single unit in the hex they are facing\""
                )),
                Arm::Artillery if range == 1 => Ok("adjacent".to_owned()),
                Arm::Artillery => board.ruler(from, to, &piece.id).and_then(|()| {
                    let screened = board
                        .adjacent_enemies(to, &target.side, &target.id)
                        .into_iter()
                        .find(|(p, _)| p.side == piece.side && p.id != piece.id);
                    match screened {
                        Some((friend, _)) => Err(format!(
                            "next to friendly {}: artillery \"cannot shoot at enemy units adjacent to friendly units\"",
                            friend.id
                        )),
                        None => Ok(format!("clear line over {range} hexes")),
                    }
                }),
            };
            let (allowed, reason) = match verdict {
                Ok(r) if may_shoot => (true, r),
                Ok(r) => (false, format!("moved this turn ({r})")),
                Err(r) => (false, r),
            };
            out.push(ShotOption {
                target: target.id.clone(),
                range_hex: range,
                allowed,
                reason,
                target_cover: board.cover(to, arm),
            });
        }
        out.sort_by(|a, b| a.range_hex.cmp(&b.range_hex).then(a.target.cmp(&b.target)));
        out
    }

    fn report(
        &self,
        scenario: &Scenario,
        previous: Option<&TableState>,
        table: &TableState,
    ) -> TableReport {
        let board = Board::new(scenario, table);
        let grid = board.grid;
        let prev_board = previous.map(|p| Board::new(scenario, p));
        let mut hex_reports: Vec<HexPieceReport> = Vec::new();
        for (piece, &hex) in table.pieces.iter().zip(&board.hexes) {
            let (side, off) = grid.nearest_side(piece.pose.heading_deg);
            let faces = grid.neighbour(hex, side);
            let adjacent = board.adjacent_enemies(hex, &piece.side, &piece.id);
            let facing_enemy = adjacent.iter().any(|(p, _)| board.hex_of(p) == faces);
            let must_turn_to_face = (!facing_enemy)
                .then(|| adjacent.first().map(|(p, _)| p.id.clone()))
                .flatten();
            let moved = prev_board.as_ref().map(|pb| {
                pb.table.piece(&piece.id).is_none_or(|before| {
                    pb.hex_of(before) != hex || grid.nearest_side(before.pose.heading_deg).0 != side
                })
            });
            let may_shoot = moved != Some(true);
            let arm = Arm::of(piece.kind);
            hex_reports.push(HexPieceReport {
                hex,
                on_grid: grid.contains(hex),
                arm,
                facing_side: side,
                facing_deg: grid.side_heading(side),
                facing_off_deg: super::pub_battles::round_in(off),
                faces,
                terrain: board.terrain(hex).into_iter().map(name_of).collect(),
                cover: arm.and_then(|_| board.cover(hex, Arm::Infantry)),
                commander: commander(scenario, &piece.id),
                adjacent_enemies: adjacent.iter().map(|(p, _)| p.id.clone()).collect(),
                must_turn_to_face,
                moved,
                may_shoot,
                shots: self.shots(&board, piece, may_shoot),
            });
        }
        let pieces = table
            .pieces
            .iter()
            .zip(&hex_reports)
            .map(|(piece, h)| {
                let can_see: Vec<String> = h
                    .shots
                    .iter()
                    .filter(|s| s.allowed)
                    .map(|s| s.target.clone())
                    .collect();
                let in_fof_of: Vec<String> = table
                    .pieces
                    .iter()
                    .zip(&hex_reports)
                    .filter(|(_, o)| o.shots.iter().any(|s| s.allowed && s.target == piece.id))
                    .map(|(p, _)| p.id.clone())
                    .collect();
                PieceReport {
                    id: piece.id.clone(),
                    side: piece.side.clone(),
                    kind: piece.kind,
                    status: piece.status,
                    terrain: h.terrain.first().cloned().unwrap_or_else(|| "clear".into()),
                    hill_level: board
                        .terrain(h.hex)
                        .iter()
                        .map(|f| f.level)
                        .max()
                        .unwrap_or(0),
                    cover: h.cover.clone(),
                    in_command: None,
                    command_margin_in: None,
                    commanded_by: None,
                    in_fof_of,
                    fof_detail: Vec::new(),
                    can_see,
                    flanked_by: Vec::new(),
                    in_contact_with: h.adjacent_enemies.clone(),
                    supported_by: None,
                    in_road_column: false,
                    enemies_within_third_foot: Vec::new(),
                    rally: None,
                    hex: Some(h.clone()),
                    nbc: None,
                }
            })
            .collect();
        TableReport {
            rules: RulesId::OhwHex,
            measures: Measures::Hex(self.measures(&grid)),
            pieces,
            hex_grid: Some(grid.geometry()),
        }
    }

    /// Judge one step of a move, from `a` into the neighbouring hex `b`.
    #[allow(clippy::too_many_arguments)]
    fn step_problems(
        &self,
        board: &Board,
        piece: &Piece,
        arm: Arm,
        a: Hex,
        b: Hex,
        last: bool,
        problems: &mut Vec<String>,
    ) {
        let grid = &board.grid;
        if !grid.contains(b) {
            problems.push(format!("hex {b} is off the grid"));
            return;
        }
        if let Some(other) = board.occupant(b, &piece.id) {
            problems.push(format!(
                "hex {b} holds {}: \"Units may not pass through other units, friendly or enemy, and may never finish their moves in the same hex as another unit\"",
                other.id
            ));
        }
        let crossing = board.crossing(a, b);
        if let Some(river) = &crossing.river {
            problems.push(format!(
                "{river} between {a} and {b}: \"Rivers - can be only crossed via bridges & fords\""
            ));
        }
        if let (Some(stream), Arm::Artillery) = (&crossing.stream, arm) {
            problems.push(format!(
                "{stream} between {a} and {b}: \"Streams - cannot be crossed by artillery\""
            ));
        }
        let terrain = board.terrain(b);
        for f in &terrain {
            let name = name_of(f);
            let barred = match f.kind {
                TerrainKind::Marsh | TerrainKind::Impassable => {
                    Some("\"Marsh/Lakes - are impassable to all units\"")
                }
                TerrainKind::Woods if arm != Arm::Infantry => {
                    Some("\"Woods - ... only infantry can enter\"")
                }
                TerrainKind::Rough if arm != Arm::Infantry => {
                    Some("\"Difficult and broken terrain - only Infantry can enter\"")
                }
                TerrainKind::Buildings if last && arm == Arm::Artillery => {
                    Some("\"only Infantry & cavalry may end a move in a town\"")
                }
                TerrainKind::Entrenchment if last && arm == Arm::Cavalry => {
                    Some("entrenchments \"can only be occupied by infantry and artillery\"")
                }
                _ => None,
            };
            if let Some(rule) = barred {
                problems.push(format!("{name} at {b}: {rule}"));
            }
        }
        let before = board.adjacent_enemies(a, &piece.side, &piece.id);
        let after = board.adjacent_enemies(b, &piece.side, &piece.id);
        if !before.is_empty()
            && let Some((other, _)) = after
                .iter()
                .find(|(p, _)| !before.iter().any(|(q, _)| q.id == p.id))
        {
            problems.push(format!(
                "leaves {a}, next to {}, for {b}, next to {}: \"Units may not exit a hex adjacent to an enemy unit and move into a hex adjacent to an another enemy unit\"",
                before[0].0.id, other.id
            ));
        }
        if !last {
            if let Some((enemy, _)) = after.iter().find(|(_, across_river)| !across_river) {
                problems.push(format!(
                    "must stop at {b}, next to {}: \"Units must stop their movement when moving into a hex adjacent to any enemy unit\"",
                    enemy.id
                ));
            }
            if let Some(f) = terrain.first()
                && !crossing.road
            {
                problems.push(format!(
                    "must stop at {b} in {}: \"Units must end their movement when entering any hex with a terrain feature. The exception is when moving along a road\"",
                    name_of(f)
                ));
            }
        }
    }

    /// Every path of at most `steps` hexes from `from` to `to`.
    fn paths(grid: &HexGrid, from: Hex, to: Hex, steps: u32) -> Vec<Vec<Hex>> {
        let mut out = Vec::new();
        let mut stack = vec![vec![from]];
        while let Some(path) = stack.pop() {
            let last = *path.last().expect("paths start with one hex");
            if last == to && path.len() > 1 {
                out.push(path);
                continue;
            }
            if path.len() as u32 > steps {
                continue;
            }
            for n in grid.neighbours(last) {
                if !path.contains(&n) && grid.distance(n, to) + path.len() as u32 <= steps {
                    let mut next = path.clone();
                    next.push(n);
                    stack.push(next);
                }
            }
        }
        out.sort();
        out
    }
}

impl RuleSet for OhwHex {
    fn id(&self) -> RulesId {
        RulesId::OhwHex
    }

    fn check_table(&self, scenario: &Scenario, table: &TableState) -> TableReport {
        self.report(scenario, None, table)
    }

    fn check_turn(
        &self,
        scenario: &Scenario,
        previous: &TableState,
        table: &TableState,
    ) -> TableReport {
        self.report(scenario, Some(previous), table)
    }

    /// "Units may move up to the distances listed below during their turn. Artillery
    /// and Infantry: 1 hex; Cavalry: 2 hex. When moving units they can move in any
    /// direction and must finish their movement facing a hex side." The move is legal
    /// when some path of at most that many hexes breaks no rule; otherwise the problems
    /// of the path with the fewest are given.
    fn check_move(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
        to: Pose,
        _to_status: Status,
        _night: bool,
    ) -> MoveVerdict {
        let board = Board::new(scenario, table);
        let grid = &board.grid;
        let from = board.hex_of(piece);
        let dest = grid.hex_at(centre(&to));
        let step = grid.step_in();
        let distance_in = {
            let d = grid.centre(dest) - grid.centre(from);
            super::pub_battles::round_in(d.x.hypot(d.y))
        };
        let Some(arm) = Arm::of(piece.kind) else {
            return MoveVerdict {
                legal: false,
                distance_in,
                allowance_in: 0.0,
                margin_in: -distance_in,
                costs: Vec::new(),
                problems: vec![format!(
                    "{} is not an infantry, cavalry or artillery unit",
                    piece.id
                )],
                warnings: Vec::new(),
            };
        };
        let allowance = arm.move_hexes();
        let hexes = grid.distance(from, dest);
        let mut costs = vec![format!(
            "{hexes} hex{} of {allowance} ({arm:?}), {from} to {dest}",
            if hexes == 1 { "" } else { "es" }
        )];
        let mut problems = Vec::new();
        if hexes > allowance {
            problems.push(format!(
                "{hexes} hexes is more than the {allowance} a {} unit moves",
                format!("{arm:?}").to_lowercase()
            ));
        } else if hexes > 0 {
            let mut best: Option<(Vec<Hex>, Vec<String>)> = None;
            for path in Self::paths(grid, from, dest, allowance) {
                let mut found = Vec::new();
                for (i, pair) in path.windows(2).enumerate() {
                    let last = i + 2 == path.len();
                    self.step_problems(&board, piece, arm, pair[0], pair[1], last, &mut found);
                }
                if best.as_ref().is_none_or(|(_, b)| found.len() < b.len()) {
                    best = Some((path, found));
                }
            }
            if let Some((path, found)) = best {
                let route: Vec<String> = path.iter().map(Hex::to_string).collect();
                costs.push(format!("by {}", route.join(" -> ")));
                problems.extend(found);
            }
        }
        let mut warnings = Vec::new();
        let (side, off) = grid.nearest_side(to.heading_deg);
        if off > 15.0 {
            warnings.push(format!(
                "heading {:.0} deg is {off:.0} deg off hex side {side} ({:.0} deg): units \"must finish their movement facing a hex side\"",
                to.heading_deg,
                grid.side_heading(side)
            ));
        }
        let adjacent = board.adjacent_enemies(dest, &piece.side, &piece.id);
        let faces = grid.neighbour(dest, side);
        if !adjacent.is_empty() && !adjacent.iter().any(|(p, _)| board.hex_of(p) == faces) {
            let (enemy, _) = adjacent[0];
            let turn = grid
                .side_toward(dest, board.hex_of(enemy))
                .expect("adjacent hexes share a side");
            warnings.push(format!(
                "turns to face {} (side {turn}, {:.0} deg): \"a unit will immediately turn to face an enemy unit when they move into adjacent hex\"",
                enemy.id,
                grid.side_heading(turn)
            ));
        }
        let allowance_in = super::pub_battles::round_in(f64::from(allowance) * step);
        MoveVerdict {
            legal: problems.is_empty(),
            distance_in,
            allowance_in,
            margin_in: super::pub_battles::round_in(allowance_in - distance_in),
            costs,
            problems,
            warnings,
        }
    }

    /// The artillery ruler between two pieces' hexes: clear unless it crosses a hex
    /// with a unit (not from a hill) or woods or a town. Range is 4 hexes.
    fn sight(
        &self,
        scenario: &Scenario,
        table: &TableState,
        viewer: &Piece,
        target: &Piece,
    ) -> SightVerdict {
        let board = Board::new(scenario, table);
        let (a, b) = (board.hex_of(viewer), board.hex_of(target));
        let hexes = board.grid.distance(a, b);
        let step = board.grid.step_in();
        let range = Arm::Artillery.range_hexes();
        let blocked_by = if hexes > range {
            Some(Blocker {
                kind: "out-of-range".into(),
                name: None,
                at: None,
                reason: format!("{hexes} hexes, more than the artillery range of {range}"),
            })
        } else {
            board.ruler(a, b, &viewer.id).err().map(|reason| Blocker {
                kind: "ruler".into(),
                name: None,
                at: None,
                reason,
            })
        };
        SightVerdict {
            can_see: blocked_by.is_none(),
            distance_in: super::pub_battles::round_in(f64::from(hexes) * step),
            range_in: super::pub_battles::round_in(f64::from(range) * step),
            blocked_by,
            seen_over: Vec::new(),
        }
    }
}
