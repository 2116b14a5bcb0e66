//! Terrain: GeoJSON in map inches, validated into polygons the rules can query.
//!
//! Coordinates are `[x_in, y_in]` with the map's origin at its top-left corner (not
//! longitude/latitude). Each feature's `properties.terrain` names its type. Errors give
//! the file, the line and the field: every feature is parsed from its own slice of the
//! source, so serde's line numbers can be shifted to the line the feature starts on.

use std::collections::HashMap;
use std::path::Path;

use geo::{BoundingRect, Buffer, Coord, LineString, MultiPolygon, Polygon, Rect};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::error::{ScenarioError, line_of};

/// Every terrain type a map may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerrainKind {
    Woods,
    Buildings,
    Marsh,
    Hill,
    /// The crest line of a hill: "the central point between slopes" [3.2].
    Crest,
    River,
    Stream,
    Road,
    Bridge,
    Ford,
    Impassable,
    /// Fields (crops, orchards): OHW cover "except against artillery".
    Field,
    /// Difficult and broken ground: OHW "only Infantry can enter".
    Rough,
    /// Entrenched positions: OHW cover, "can only be occupied by infantry and artillery".
    Entrenchment,
}

impl TerrainKind {
    /// "Woods, buildings and hills block line of sight" [3.2].
    pub fn blocks_sight(self) -> bool {
        matches!(
            self,
            TerrainKind::Woods | TerrainKind::Buildings | TerrainKind::Hill
        )
    }

    /// Types a unit "is in" for the majority rule. Roads, bridges and fords are passages
    /// over other terrain, crests are lines, so none of them is a place to be "in".
    pub fn is_occupiable(self) -> bool {
        !matches!(
            self,
            TerrainKind::Crest | TerrainKind::Road | TerrainKind::Bridge | TerrainKind::Ford
        )
    }

    /// Which geometry a feature of this type may have.
    fn accepts(self, geometry: GeometryType) -> bool {
        use GeometryType::*;
        match self {
            TerrainKind::Crest => geometry == LineString,
            TerrainKind::River | TerrainKind::Stream | TerrainKind::Road => true,
            _ => geometry != LineString,
        }
    }
}

/// One validated terrain feature.
#[derive(Debug, Clone)]
pub struct TerrainFeature {
    pub kind: TerrainKind,
    pub id: Option<String>,
    pub name: Option<String>,
    /// Hill level (1 = a hill, 2 = a hill on a hill); 0 for everything else.
    pub level: u8,
    /// The area the feature covers; empty for a crest.
    pub area: MultiPolygon<f64>,
    /// The line a crest, or a river, stream or road given as a line, was drawn along.
    pub line: Option<LineString<f64>>,
    /// For a crest, the id of its hill.
    pub hill: Option<String>,
    pub bbox: Rect<f64>,
}

/// All terrain of one map, plus the GeoJSON it came from (served to the page as is).
#[derive(Debug, Clone, Default)]
pub struct Terrain {
    pub features: Vec<TerrainFeature>,
    source: serde_json::Value,
}

impl Serialize for Terrain {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.source.serialize(s)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCollection<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow)]
    features: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFeature {
    #[serde(rename = "type")]
    kind: String,
    /// GeoJSON's optional feature id; terrain ids live in `properties.id`.
    #[serde(default, rename = "id")]
    _feature_id: Option<serde_json::Value>,
    properties: RawProperties,
    geometry: RawGeometry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProperties {
    terrain: TerrainKind,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    level: Option<u8>,
    #[serde(default)]
    hill: Option<String>,
    #[serde(default)]
    width_in: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
enum GeometryType {
    Polygon,
    MultiPolygon,
    LineString,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGeometry {
    #[serde(rename = "type")]
    kind: GeometryType,
    coordinates: serde_json::Value,
}

impl Terrain {
    /// Parse and validate a terrain GeoJSON file's text.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ScenarioError> {
        let json_err = |e: serde_json::Error, line_offset: usize| {
            ScenarioError::new(path, Some(e.line() + line_offset), None, e.to_string())
        };
        let collection: RawCollection = serde_json::from_str(text).map_err(|e| json_err(e, 0))?;
        if collection.kind != "FeatureCollection" {
            return Err(ScenarioError::new(
                path,
                Some(1),
                Some("type".into()),
                format!("expected \"FeatureCollection\", got {:?}", collection.kind),
            ));
        }
        let mut features = Vec::with_capacity(collection.features.len());
        for (index, raw) in collection.features.iter().enumerate() {
            let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let first_line = line_of(text, start);
            let at = |field: &str, message: String| {
                ScenarioError::new(
                    path,
                    Some(first_line),
                    Some(format!("features[{index}].{field}")),
                    message,
                )
            };
            let f: RawFeature = serde_json::from_str(raw.get()).map_err(|e| {
                ScenarioError::new(
                    path,
                    Some(first_line + e.line() - 1),
                    Some(format!("features[{index}]")),
                    e.to_string(),
                )
            })?;
            if f.kind != "Feature" {
                return Err(at(
                    "type",
                    format!("expected \"Feature\", got {:?}", f.kind),
                ));
            }
            let p = f.properties;
            let kind = p.terrain;
            if !kind.accepts(f.geometry.kind) {
                return Err(at(
                    "geometry.type",
                    format!("{kind:?} cannot be a {:?}", f.geometry.kind),
                ));
            }
            let level = match (kind, p.level) {
                (TerrainKind::Hill, Some(l)) if l >= 1 => l,
                (TerrainKind::Hill, _) => {
                    return Err(at(
                        "properties.level",
                        "a hill needs a level of 1 or more".into(),
                    ));
                }
                (_, Some(_)) => {
                    return Err(at(
                        "properties.level",
                        format!("only hills have a level, not {kind:?}"),
                    ));
                }
                (_, None) => 0,
            };
            if kind == TerrainKind::Hill && p.id.is_none() {
                return Err(at(
                    "properties.id",
                    "a hill needs an id for its crest to name".into(),
                ));
            }
            if (kind == TerrainKind::Crest) != p.hill.is_some() {
                return Err(at(
                    "properties.hill",
                    "a crest names its hill with \"hill\", and only a crest does".into(),
                ));
            }
            let coords = &f.geometry.coordinates;
            let (area, line) = match f.geometry.kind {
                GeometryType::Polygon => (
                    MultiPolygon(vec![
                        polygon(coords).map_err(|m| at("geometry.coordinates", m))?,
                    ]),
                    None,
                ),
                GeometryType::MultiPolygon => {
                    let parts = coords.as_array().ok_or_else(|| {
                        at(
                            "geometry.coordinates",
                            "a MultiPolygon is an array of polygons".into(),
                        )
                    })?;
                    let polys = parts
                        .iter()
                        .map(polygon)
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|m| at("geometry.coordinates", m))?;
                    (MultiPolygon(polys), None)
                }
                GeometryType::LineString => {
                    let ls = line_string(coords).map_err(|m| at("geometry.coordinates", m))?;
                    if ls.0.len() < 2 {
                        return Err(at(
                            "geometry.coordinates",
                            "a line needs at least two points".into(),
                        ));
                    }
                    let area = if kind == TerrainKind::Crest {
                        if p.width_in.is_some() {
                            return Err(at(
                                "properties.width_in",
                                "a crest is a line and has no width".into(),
                            ));
                        }
                        MultiPolygon(vec![])
                    } else {
                        match p.width_in {
                            Some(w) if w.is_finite() && w > 0.0 => ls.buffer(w / 2.0),
                            _ => {
                                return Err(at(
                                    "properties.width_in",
                                    format!("a {kind:?} drawn as a line needs a positive width_in"),
                                ))?;
                            }
                        }
                    };
                    (area, Some(ls))
                }
            };
            let bbox = match (&line, area.bounding_rect()) {
                (_, Some(r)) => r,
                (Some(l), None) => l
                    .bounding_rect()
                    .expect("a line of two or more points has a bounding box"),
                (None, None) => {
                    return Err(at("geometry.coordinates", "the feature has no area".into()));
                }
            };
            features.push(TerrainFeature {
                kind,
                id: p.id,
                name: p.name,
                level,
                area,
                line,
                hill: p.hill,
                bbox,
            });
        }
        let hill_ids: HashMap<&str, usize> = features
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == TerrainKind::Hill)
            .filter_map(|(i, f)| f.id.as_deref().map(|id| (id, i)))
            .collect();
        for (index, f) in features.iter().enumerate() {
            if let Some(h) = &f.hill
                && !hill_ids.contains_key(h.as_str())
            {
                let start =
                    collection.features[index].get().as_ptr() as usize - text.as_ptr() as usize;
                return Err(ScenarioError::new(
                    path,
                    Some(line_of(text, start)),
                    Some(format!("features[{index}].properties.hill")),
                    format!("no hill has id {h:?}"),
                ));
            }
        }
        let source = serde_json::from_str(text).map_err(|e| json_err(e, 0))?;
        Ok(Terrain { features, source })
    }

    /// The crest line of the hill with this id, if it has one.
    pub fn crest_of(&self, hill_id: &str) -> Option<&LineString<f64>> {
        self.features
            .iter()
            .find(|f| f.kind == TerrainKind::Crest && f.hill.as_deref() == Some(hill_id))
            .and_then(|f| f.line.as_ref())
    }
}

fn coord(v: &serde_json::Value) -> Result<Coord<f64>, String> {
    match v.as_array().map(|a| a.as_slice()) {
        Some([x, y]) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) if x.is_finite() && y.is_finite() => Ok(Coord { x, y }),
            _ => Err(format!("{v} is not a pair of numbers [x_in, y_in]")),
        },
        _ => Err(format!("{v} is not a position [x_in, y_in]")),
    }
}

fn line_string(v: &serde_json::Value) -> Result<LineString<f64>, String> {
    let points = v
        .as_array()
        .ok_or_else(|| format!("expected an array of positions, got {v}"))?;
    Ok(LineString(
        points.iter().map(coord).collect::<Result<_, _>>()?,
    ))
}

fn ring(v: &serde_json::Value) -> Result<LineString<f64>, String> {
    let ls = line_string(v)?;
    if ls.0.len() < 4 || ls.0.first() != ls.0.last() {
        return Err(
            "a polygon ring needs at least four positions and must end where it starts".into(),
        );
    }
    Ok(ls)
}

fn polygon(v: &serde_json::Value) -> Result<Polygon<f64>, String> {
    let rings = v
        .as_array()
        .filter(|r| !r.is_empty())
        .ok_or_else(|| "a polygon is a non-empty array of rings".to_string())?;
    let exterior = ring(&rings[0])?;
    let holes = rings[1..].iter().map(ring).collect::<Result<_, _>>()?;
    Ok(Polygon::new(exterior, holes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Terrain, ScenarioError> {
        Terrain::parse(Path::new("t.geojson"), text)
    }

    const WOODS: &str = r#"{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"terrain":"woods","name":"Oak Wood"},
 "geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,3],[0,3],[0,0]]]}},
{"type":"Feature","properties":{"terrain":"road","width_in":0.5},
 "geometry":{"type":"LineString","coordinates":[[0,10],[10,10]]}}
]}"#;

    #[test]
    fn polygons_and_buffered_lines_become_areas() {
        use geo::Area;
        let t = parse(WOODS).unwrap();
        assert_eq!(t.features.len(), 2);
        assert!((t.features[0].area.unsigned_area() - 12.0).abs() < 1e-9);
        // A 10 in road 0.5 in wide with round caps: 5 + pi * 0.25^2.
        let road = t.features[1].area.unsigned_area();
        assert!(
            (road - (5.0 + std::f64::consts::PI * 0.0625)).abs() < 0.01,
            "{road}"
        );
    }

    #[test]
    fn an_unknown_terrain_type_names_the_line_and_feature() {
        let bad = WOODS.replace("\"woods\"", "\"wood\"");
        let e = parse(&bad).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert_eq!(e.field.as_deref(), Some("features[0]"));
        assert!(
            e.message.contains("unknown variant `wood`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_unclosed_ring_and_a_missing_width_are_errors() {
        let bad = WOODS.replace("[0,3],[0,0]]]", "[0,3]]]");
        let e = parse(&bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("features[0].geometry.coordinates"));
        let bad = WOODS.replace(",\"width_in\":0.5", "");
        let e = parse(&bad).unwrap_err();
        assert_eq!(
            (e.line, e.field.as_deref()),
            (Some(4), Some("features[1].properties.width_in"))
        );
    }

    #[test]
    fn a_crest_must_name_an_existing_hill() {
        let text = r#"{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"terrain":"hill","id":"h1","level":1},"geometry":{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]]]}},
{"type":"Feature","properties":{"terrain":"crest","hill":"h2"},"geometry":{"type":"LineString","coordinates":[[0,2],[4,2]]}}
]}"#;
        let e = parse(text).unwrap_err();
        assert_eq!(
            (e.line, e.field.as_deref()),
            (Some(3), Some("features[1].properties.hill"))
        );
        let t = parse(&text.replace("\"h2\"", "\"h1\"")).unwrap();
        assert_eq!(t.crest_of("h1").unwrap().0.len(), 2);
    }
}
