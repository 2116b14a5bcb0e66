//! The scenario TOML: its raw form (with source spans for error messages) and the
//! validated types the rest of the program uses.

use std::collections::HashSet;
use std::fmt::Display;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::error::{ScenarioError, line_of, toml_field_at};
use super::{Scenario, Terrain};
use crate::model::PieceModel;
use crate::table::{Quality, Status, UnitKind};

/// Which rule book the table plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum RulesId {
    /// Pub Battles 3.2, the newest rules and the default.
    #[default]
    #[serde(rename = "pub-battles-3.2")]
    PubBattles32,
    #[serde(rename = "pub-battles-3.0")]
    PubBattles30,
    /// The pre-3.0 quick start / house rules.
    #[serde(rename = "pub-battles-qs")]
    PubBattlesQuickStart,
    /// One Hour Wargames, American Civil War, hex variant.
    #[serde(rename = "ohw-hex")]
    OhwHex,
    /// Napoleonic Battlefield Commander v1.1.
    #[serde(rename = "nbc")]
    Nbc,
}

/// How the hexes lie: flat-topped hexes have a side toward the map's top edge (facings
/// 0, 60, ... 300 degrees), pointy-topped ones a corner (facings 30, 90, ... 330).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HexOrientation {
    #[default]
    Flat,
    Pointy,
}

/// The hex grid over the map for `rules = "ohw-hex"`: "Games are played on a hex grid,
/// normally on a tabletop of 6 hexes by 9 hexes" [OHW]. Columns run along x, rows
/// along y; odd columns (flat) or odd rows (pointy) are shifted by half a hex.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexSpec {
    #[serde(default = "default_columns")]
    pub columns: u16,
    #[serde(default = "default_rows")]
    pub rows: u16,
    #[serde(default)]
    pub orientation: HexOrientation,
    /// Centre-to-corner length in map inches. When absent, the largest hexes that fit
    /// the map, with the grid centred on it.
    #[serde(default)]
    pub size_in: Option<f64>,
}

fn default_columns() -> u16 {
    9
}
fn default_rows() -> u16 {
    6
}

impl Default for HexSpec {
    fn default() -> Self {
        Self {
            columns: default_columns(),
            rows: default_rows(),
            orientation: HexOrientation::default(),
            size_in: None,
        }
    }
}

/// Whether Napoleonic Battlefield Commander is played with its Traditional or its
/// Napoleonic army rules; it clamps the command radius ("Traditional 5-20, Napoleonic
/// 10-25" cm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NbcEra {
    #[default]
    Traditional,
    Napoleonic,
}

/// The time of day on the NBC Time cards; with the weather it sets visibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeOfDay {
    EarlyMorning,
    #[default]
    Day,
    Evening,
    Night,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weather {
    Sunny,
    #[default]
    Bright,
    Overcast,
    Rain,
    Snow,
}

/// The battle's conditions for `rules = "nbc"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NbcSpec {
    #[serde(default)]
    pub era: NbcEra,
    #[serde(default)]
    pub time: TimeOfDay,
    #[serde(default)]
    pub weather: Weather,
    #[serde(default)]
    pub fog: bool,
}

/// An NBC battery's weight, which sets its range bands and dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtilleryWeight {
    Heavy,
    Medium,
    Light,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapSpec {
    pub width_in: f64,
    pub height_in: f64,
    /// Map image, relative to the scenario file.
    pub image: Option<String>,
    /// Terrain GeoJSON, relative to the scenario file.
    pub terrain: Option<String>,
}

/// The lengths of the physical move sticks. Pub Battles gives no absolute lengths in its
/// texts: "the range card shows the maximum possible move" [3.2]; these are the
/// published sticks and can be changed per table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    pub foot_move_in: f64,
    pub mounted_move_in: f64,
    pub model: String,
}

/// The map edge a side's army comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HomeEdge {
    Top,
    Bottom,
    Left,
    Right,
}

impl HomeEdge {
    /// The heading that faces away from this edge, toward the enemy.
    pub fn facing_away_deg(self) -> f64 {
        match self {
            HomeEdge::Bottom => 0.0,
            HomeEdge::Left => 90.0,
            HomeEdge::Top => 180.0,
            HomeEdge::Right => 270.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub id: String,
    pub name: String,
    /// CSS colour for the page.
    pub colour: String,
    pub home_edge: HomeEdge,
}

/// A command (corps): its HQ and its Alter rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    pub id: String,
    pub side: String,
    pub name: String,
    /// Unit id of the commanding HQ cube.
    pub hq: Option<String>,
    /// Alter succeeds on a d6 at or under this rating [3.2].
    pub alter: u8,
    /// Whether the command has a chit in the cup.
    pub chit: bool,
    /// NBC: the Formation Commander's Ability rating (A1 to A6), which with the
    /// formation's size sets its command radius.
    pub ability: Option<u8>,
}

/// Where a unit starts the game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSetup {
    pub x_in: f64,
    pub y_in: f64,
    pub heading_deg: f64,
    #[serde(default)]
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub id: String,
    pub name: String,
    pub side: String,
    pub command: Option<String>,
    pub kind: UnitKind,
    pub quality: Quality,
    pub setup: Option<UnitSetup>,
    /// OHW: a commander is attached ("Commanders are always attached to units, and up to
    /// 3 commanders can be used per side").
    pub commander: bool,
    /// NBC: the battery's weight (artillery only).
    pub weight: Option<ArtilleryWeight>,
    /// NBC: the battery is attached to a unit (it then fires only at the nearest unit
    /// directly in front, never at long range).
    pub attached: bool,
    /// NBC: the unit's quality rating Q1 to Q6 (Q5 and Q6 batteries roll one more die).
    pub q: Option<u8>,
}

// ---- raw form, as written, with spans ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    rules: RulesId,
    pub(super) map: RawMap,
    #[serde(default)]
    pub(super) measures: RawMeasures,
    sides: Vec<RawSide>,
    #[serde(default)]
    commands: Vec<RawCommand>,
    #[serde(default)]
    units: Vec<RawUnit>,
    #[serde(default)]
    hex: Option<Spanned<HexSpec>>,
    #[serde(default)]
    nbc: Option<Spanned<NbcSpec>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMap {
    width_in: Spanned<f64>,
    height_in: Spanned<f64>,
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    pub(super) terrain: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMeasures {
    #[serde(default = "default_foot")]
    foot_move_in: Spanned<f64>,
    #[serde(default = "default_mounted")]
    mounted_move_in: Spanned<f64>,
    #[serde(default = "default_model")]
    pub(super) model: Spanned<String>,
}

fn default_foot() -> Spanned<f64> {
    Spanned::new(0..0, 5.25)
}
fn default_mounted() -> Spanned<f64> {
    Spanned::new(0..0, 7.5)
}
fn default_model() -> Spanned<String> {
    Spanned::new(0..0, "pub-battles".to_owned())
}

impl Default for RawMeasures {
    fn default() -> Self {
        Self {
            foot_move_in: default_foot(),
            mounted_move_in: default_mounted(),
            model: default_model(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    id: Spanned<String>,
    name: String,
    colour: Spanned<String>,
    home_edge: HomeEdge,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommand {
    id: Spanned<String>,
    side: Spanned<String>,
    name: String,
    #[serde(default)]
    hq: Option<Spanned<String>>,
    #[serde(default = "default_alter")]
    alter: Spanned<u8>,
    #[serde(default = "default_true")]
    chit: bool,
    #[serde(default)]
    ability: Option<Spanned<u8>>,
}

fn default_alter() -> Spanned<u8> {
    Spanned::new(0..0, 3)
}
fn default_true() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnit {
    id: Spanned<String>,
    name: String,
    side: Spanned<String>,
    #[serde(default)]
    command: Option<Spanned<String>>,
    kind: Spanned<UnitKind>,
    #[serde(default)]
    quality: Quality,
    #[serde(default)]
    setup: Option<Spanned<UnitSetup>>,
    #[serde(default)]
    commander: Option<Spanned<bool>>,
    #[serde(default)]
    weight: Option<Spanned<ArtilleryWeight>>,
    #[serde(default)]
    attached: bool,
    #[serde(default)]
    q: Option<Spanned<u8>>,
}

/// Parse the TOML text; syntax, type and unknown-key errors name line and field.
pub(super) fn parse(path: &Path, text: &str) -> Result<RawScenario, ScenarioError> {
    toml::from_str(text).map_err(|e| {
        let offset = e.span().map(|s| s.start);
        ScenarioError::new(
            path,
            offset.map(|o| line_of(text, o)),
            offset.and_then(|o| toml_field_at(text, o)),
            e.message().trim().to_owned(),
        )
    })
}

impl RawScenario {
    /// An error at a spanned value. Defaulted values (empty span) have no line.
    pub(super) fn error<T>(
        &self,
        path: &Path,
        text: &str,
        at: &Spanned<T>,
        field: &str,
        msg: impl Display,
    ) -> ScenarioError {
        spanned_error(path, text, at.span(), field, msg.to_string())
    }

    /// Check every cross-reference and number, then build the scenario.
    pub(super) fn into_scenario(
        self,
        path: &Path,
        text: &str,
        model: PieceModel,
        terrain: Terrain,
    ) -> Result<Scenario, ScenarioError> {
        let err = |span: std::ops::Range<usize>, field: &str, msg: String| {
            spanned_error(path, text, span, field, msg)
        };
        let positive = |v: &Spanned<f64>, field: &str| {
            if v.get_ref().is_finite() && *v.get_ref() > 0.0 {
                Ok(*v.get_ref())
            } else {
                Err(err(
                    v.span(),
                    field,
                    format!("must be a positive number of inches, got {}", v.get_ref()),
                ))
            }
        };
        let width_in = positive(&self.map.width_in, "map.width_in")?;
        let height_in = positive(&self.map.height_in, "map.height_in")?;
        let foot_move_in = positive(&self.measures.foot_move_in, "measures.foot_move_in")?;
        let mounted_move_in = positive(&self.measures.mounted_move_in, "measures.mounted_move_in")?;

        let mut side_ids = HashSet::new();
        for s in &self.sides {
            if !side_ids.insert(s.id.get_ref().as_str()) {
                return Err(err(
                    s.id.span(),
                    "sides.id",
                    format!("side {:?} is defined twice", s.id.get_ref()),
                ));
            }
        }
        for s in &self.sides {
            if !is_hex_colour(s.colour.get_ref()) {
                return Err(err(
                    s.colour.span(),
                    "sides.colour",
                    format!(
                        "{:?} is not a colour: write it in hex, #rgb or #rrggbb (with alpha #rgba or #rrggbbaa), e.g. \"#27508f\"",
                        s.colour.get_ref()
                    ),
                ));
            }
        }
        if self.sides.len() < 2 {
            return Err(ScenarioError::new(
                path,
                None,
                Some("sides".into()),
                "a scenario needs at least two sides",
            ));
        }
        let known_side = |s: &Spanned<String>, field: &str| {
            if side_ids.contains(s.get_ref().as_str()) {
                Ok(())
            } else {
                Err(err(
                    s.span(),
                    field,
                    format!(
                        "no side has id {:?}; sides are {:?}",
                        s.get_ref(),
                        sorted(&side_ids)
                    ),
                ))
            }
        };

        let mut unit_ids = HashSet::new();
        for u in &self.units {
            if !unit_ids.insert(u.id.get_ref().as_str()) {
                return Err(err(
                    u.id.span(),
                    "units.id",
                    format!("unit {:?} is defined twice", u.id.get_ref()),
                ));
            }
        }
        let mut command_ids = HashSet::new();
        for c in &self.commands {
            if !command_ids.insert(c.id.get_ref().as_str()) {
                return Err(err(
                    c.id.span(),
                    "commands.id",
                    format!("command {:?} is defined twice", c.id.get_ref()),
                ));
            }
            known_side(&c.side, "commands.side")?;
            if !(1..=6).contains(c.alter.get_ref()) {
                return Err(err(
                    c.alter.span(),
                    "commands.alter",
                    format!(
                        "an Alter rating is rolled on a d6: 1 to 6, got {}",
                        c.alter.get_ref()
                    ),
                ));
            }
            if let Some(hq) = &c.hq {
                let unit = self.units.iter().find(|u| u.id.get_ref() == hq.get_ref());
                match unit {
                    None => {
                        return Err(err(
                            hq.span(),
                            "commands.hq",
                            format!("no unit has id {:?}", hq.get_ref()),
                        ));
                    }
                    Some(u) if !u.kind.get_ref().is_hq() => {
                        return Err(err(
                            hq.span(),
                            "commands.hq",
                            format!(
                                "unit {:?} is {:?}, not an HQ",
                                hq.get_ref(),
                                u.kind.get_ref()
                            ),
                        ));
                    }
                    Some(u) if u.side.get_ref() != c.side.get_ref() => {
                        return Err(err(
                            hq.span(),
                            "commands.hq",
                            format!(
                                "HQ {:?} belongs to side {:?}, the command to {:?}",
                                hq.get_ref(),
                                u.side.get_ref(),
                                c.side.get_ref()
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        for u in &self.units {
            known_side(&u.side, "units.side")?;
            if let Some(c) = &u.command {
                match self
                    .commands
                    .iter()
                    .find(|cmd| cmd.id.get_ref() == c.get_ref())
                {
                    None => {
                        return Err(err(
                            c.span(),
                            "units.command",
                            format!(
                                "no command has id {:?}; commands are {:?}",
                                c.get_ref(),
                                sorted(&command_ids)
                            ),
                        ));
                    }
                    Some(cmd) if cmd.side.get_ref() != u.side.get_ref() => {
                        return Err(err(
                            c.span(),
                            "units.command",
                            format!(
                                "command {:?} belongs to side {:?}, the unit to {:?}",
                                c.get_ref(),
                                cmd.side.get_ref(),
                                u.side.get_ref()
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
            if let Some(s) = &u.setup {
                let v = s.get_ref();
                let inside =
                    (0.0..=width_in).contains(&v.x_in) && (0.0..=height_in).contains(&v.y_in);
                if !inside || !v.heading_deg.is_finite() {
                    return Err(err(
                        s.span(),
                        "units.setup",
                        format!(
                            "setup ({}, {}) is off the {width_in} x {height_in} in map",
                            v.x_in, v.y_in
                        ),
                    ));
                }
            }
        }

        let mut commanders: std::collections::HashMap<&str, usize> = Default::default();
        for u in &self.units {
            if let Some(c) = &u.commander
                && *c.get_ref()
            {
                let n = commanders.entry(u.side.get_ref().as_str()).or_default();
                *n += 1;
                if *n > 3 {
                    return Err(err(
                        c.span(),
                        "units.commander",
                        format!(
                            "side {:?} has more than 3 commanders (\"up to 3 commanders can be used per side\")",
                            u.side.get_ref()
                        ),
                    ));
                }
            }
            let kind = *u.kind.get_ref();
            if self.rules == RulesId::OhwHex
                && matches!(
                    kind,
                    UnitKind::Hq | UnitKind::ArmyHq | UnitKind::SupplyTrain
                )
            {
                return Err(err(
                    u.kind.span(),
                    "units.kind",
                    format!(
                        "ohw-hex has only infantry, cavalry and artillery units, not {kind:?}: its commanders are attached (commander = true)"
                    ),
                ));
            }
            if self.rules == RulesId::Nbc && kind.is_artillery() && u.weight.is_none() {
                return Err(err(
                    u.kind.span(),
                    "units.weight",
                    format!(
                        "NBC artillery {:?} needs a weight (\"heavy\", \"medium\" or \"light\"): it sets the range bands and dice",
                        u.id.get_ref()
                    ),
                ));
            }
            if let Some(w) = &u.weight
                && !u.kind.get_ref().is_artillery()
            {
                return Err(err(
                    w.span(),
                    "units.weight",
                    format!("only artillery has a weight, not {:?}", u.kind.get_ref()),
                ));
            }
            if let Some(q) = &u.q
                && !(1..=6).contains(q.get_ref())
            {
                return Err(err(
                    q.span(),
                    "units.q",
                    format!("a quality rating is Q1 to Q6, got {}", q.get_ref()),
                ));
            }
        }
        for c in &self.commands {
            if let Some(a) = &c.ability
                && !(1..=6).contains(a.get_ref())
            {
                return Err(err(
                    a.span(),
                    "commands.ability",
                    format!("an Ability rating is A1 to A6, got {}", a.get_ref()),
                ));
            }
        }
        if let Some(h) = &self.hex {
            if self.rules != RulesId::OhwHex {
                return Err(err(
                    h.span(),
                    "hex",
                    "a hex grid is only used with rules = \"ohw-hex\"".into(),
                ));
            }
            let v = h.get_ref();
            if v.columns == 0 || v.rows == 0 {
                return Err(err(
                    h.span(),
                    "hex",
                    "a hex grid needs at least one column and one row".into(),
                ));
            }
            if let Some(size) = v.size_in
                && !(size.is_finite() && size > 0.0)
            {
                return Err(err(
                    h.span(),
                    "hex.size_in",
                    format!("must be a positive number of inches, got {size}"),
                ));
            }
        }
        if let Some(n) = &self.nbc
            && self.rules != RulesId::Nbc
        {
            return Err(err(
                n.span(),
                "nbc",
                "[nbc] conditions are only used with rules = \"nbc\"".into(),
            ));
        }
        let hex = match (&self.hex, self.rules) {
            (Some(h), _) => Some(*h.get_ref()),
            (None, RulesId::OhwHex) => Some(HexSpec::default()),
            (None, _) => None,
        };
        let nbc = match (&self.nbc, self.rules) {
            (Some(n), _) => Some(*n.get_ref()),
            (None, RulesId::Nbc) => Some(NbcSpec::default()),
            (None, _) => None,
        };

        Ok(Scenario {
            path: path.to_path_buf(),
            name: self.name,
            description: self.description,
            rules: self.rules,
            map: MapSpec {
                width_in,
                height_in,
                image: self.map.image,
                terrain: self.map.terrain.map(Spanned::into_inner),
            },
            measures: Measures {
                foot_move_in,
                mounted_move_in,
                model: self.measures.model.into_inner(),
            },
            sides: self
                .sides
                .into_iter()
                .map(|s| Side {
                    id: s.id.into_inner(),
                    name: s.name,
                    colour: s.colour.into_inner(),
                    home_edge: s.home_edge,
                })
                .collect(),
            commands: self
                .commands
                .into_iter()
                .map(|c| Command {
                    id: c.id.into_inner(),
                    side: c.side.into_inner(),
                    name: c.name,
                    hq: c.hq.map(Spanned::into_inner),
                    alter: c.alter.into_inner(),
                    chit: c.chit,
                    ability: c.ability.map(Spanned::into_inner),
                })
                .collect(),
            units: self
                .units
                .into_iter()
                .map(|u| Unit {
                    id: u.id.into_inner(),
                    name: u.name,
                    side: u.side.into_inner(),
                    command: u.command.map(Spanned::into_inner),
                    kind: u.kind.into_inner(),
                    quality: u.quality,
                    setup: u.setup.map(Spanned::into_inner),
                    commander: u.commander.is_some_and(Spanned::into_inner),
                    weight: u.weight.map(Spanned::into_inner),
                    attached: u.attached,
                    q: u.q.map(Spanned::into_inner),
                })
                .collect(),
            model,
            terrain,
            hex,
            nbc,
        })
    }
}

/// An error at a span of the TOML text. A defaulted value has an empty span and no
/// line; the field then falls back to the dotted name given.
fn spanned_error(
    path: &Path,
    text: &str,
    span: std::ops::Range<usize>,
    field: &str,
    msg: String,
) -> ScenarioError {
    let written = span.end > 0;
    let line = written.then(|| line_of(text, span.start));
    let field = written
        .then(|| toml_field_at(text, span.start))
        .flatten()
        .unwrap_or_else(|| field.to_owned());
    ScenarioError::new(path, line, Some(field), msg)
}

fn sorted(ids: &HashSet<&str>) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A side's colour as the page draws it: `#` and 3, 4, 6 or 8 hex digits. Nothing else
/// gets into the page, where the colour is written into markup: a "colour" such as
/// `#27508f"><img src=y onerror=…>` would run as script when a piece is tapped.
fn is_hex_colour(text: &str) -> bool {
    text.strip_prefix('#').is_some_and(|hex| {
        matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit())
    })
}
