//! Property tests for the map-plane geometry the rules stand on: edge-to-edge distance,
//! fields of fire under moves of the whole table and its mirror image, and command range
//! as a piece walks away from its HQ. Inputs are random footprints at random headings,
//! which hand-written cases (square to the map, round numbers) never reach.

use std::path::Path;

use aide::geom::{Footprint, edge_distance};
use aide::rules::pub_battles::{PubBattles, command_range, fof_fraction, in_field_of_fire};
use aide::scenario::Scenario;
use aide::table::{Placement, Status};
use geo::Coord;
use proptest::prelude::*;

/// The rules tests' small scenario without its terrain: open ground, so only geometry
/// decides. Map 40 x 30 in, foot move 5.25 in (a field of fire 1.75 in deep), mounted
/// move 7.5 in (command range 2.5 in).
fn open_ground() -> Scenario {
    let text =
        include_str!("fixtures/mini/scenario.toml").replace("terrain = \"terrain.geojson\"\n", "");
    Scenario::from_toml(Path::new("mini.toml"), &text).expect("the mini scenario loads")
}

/// A footprint anywhere on a 40 x 30 in table, any heading, the sizes of real pieces
/// and some that are not (a long thin road column, a square).
fn footprint() -> impl Strategy<Value = Footprint> {
    (
        0.0..40.0f64,
        0.0..30.0f64,
        0.0..360.0f64,
        0.2..6.0f64,
        0.2..3.0f64,
    )
        .prop_map(|(x, y, h, w, d)| Footprint::new(x, y, h, w, d))
}

/// The largest gap between the two footprints' shadows on any of their four edge
/// normals (the separating axis theorem): positive exactly when the convex rectangles
/// are apart, and then a lower bound on their distance. Computed from the corners
/// alone, independently of `geo`.
fn separation(a: &Footprint, b: &Footprint) -> f64 {
    let axes = [a.forward(), a.right(), b.forward(), b.right()];
    axes.iter()
        .map(|axis| {
            let shadow = |f: &Footprint| {
                f.corners()
                    .iter()
                    .map(|c| c.x * axis.x + c.y * axis.y)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                        (lo.min(p), hi.max(p))
                    })
            };
            let (a_lo, a_hi) = shadow(a);
            let (b_lo, b_hi) = shadow(b);
            (b_lo - a_hi).max(a_lo - b_hi)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn centre_distance(a: &Footprint, b: &Footprint) -> f64 {
    let d = a.center - b.center;
    d.x.hypot(d.y)
}

fn placement(id: &str, x: f64, y: f64, heading: f64, status: Status) -> Placement {
    Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: heading,
        status,
    }
}

fn status() -> impl Strategy<Value = Status> {
    prop_oneof![Just(Status::Fresh), Just(Status::Spent)]
}

// proptest's default: 256 cases, or PROPTEST_CASES.
proptest! {
    #[test]
    fn edge_distance_is_symmetric_and_at_most_the_centre_distance(
        a in footprint(),
        b in footprint(),
    ) {
        let (pa, pb) = (a.polygon(), b.polygon());
        let ab = edge_distance(&pa, &pb);
        let ba = edge_distance(&pb, &pa);
        prop_assert!(ab >= 0.0, "negative distance {ab}");
        prop_assert!((ab - ba).abs() <= 1e-9, "d(a, b) = {ab} but d(b, a) = {ba}");
        let centres = centre_distance(&a, &b);
        prop_assert!(ab <= centres + 1e-9, "edge distance {ab} > centre distance {centres}");
    }

    #[test]
    fn edge_distance_is_zero_exactly_when_footprints_touch_or_overlap(
        a in footprint(),
        b in footprint(),
    ) {
        let d = edge_distance(&a.polygon(), &b.polygon());
        let gap = separation(&a, &b);
        if gap > 1e-9 {
            // Apart along some axis: at least that far apart, so never zero.
            prop_assert!(d > 0.0 && d >= gap - 1e-9, "separated by {gap} but distance {d}");
        } else if gap < -1e-9 {
            // Overlapping on every axis: the rectangles overlap.
            prop_assert!(d == 0.0, "overlapping (depth {}) but distance {d}", -gap);
        }
    }

    #[test]
    fn footprints_side_by_side_touch(
        a in footprint(),
        frontage in 0.2..6.0f64,
        slide in -0.99..0.99f64,
    ) {
        // A second block of the same depth on A's right, its left edge on A's right edge,
        // slid along it by less than the shorter depth: the two edges share a stretch.
        let shift = a.right() * ((a.frontage_in + frontage) / 2.0)
            + a.forward() * (slide * a.depth_in);
        let c = a.center + shift;
        let b = Footprint::new(c.x, c.y, a.heading_deg, frontage, a.depth_in);
        let d = edge_distance(&a.polygon(), &b.polygon());
        prop_assert!(d < 1e-9, "touching blocks are {d} apart");
    }

    #[test]
    fn field_of_fire_does_not_change_when_the_table_moves_or_is_mirrored(
        (sx, sy, sh) in (12.0..28.0f64, 10.0..20.0f64, 0.0..360.0f64),
        (tx, ty, th) in (-3.0..3.0f64, -3.0..3.0f64, 0.0..360.0f64),
        target_status in status(),
        friend in proptest::option::of((-3.0..3.0f64, -3.0..3.0f64, 0.0..360.0f64)),
        (dx, dy) in (-10.0..10.0f64, -8.0..8.0f64),
    ) {
        // A red brigade (r1) shoots at a blue one (b1) near it; a second red brigade (r2)
        // may stand between them and block the fire.
        let scenario = open_ground();
        let rules = PubBattles::new(scenario.rules);
        let width = scenario.map.width_in;
        let mut pieces = vec![
            placement("r1", sx, sy, sh, Status::Fresh),
            placement("b1", sx + tx, sy + ty, th, target_status),
        ];
        if let Some((fx, fy, fh)) = friend {
            pieces.push(placement("r2", sx + fx, sy + fy, fh, Status::Fresh));
        }
        let verdict = |placements: &[Placement]| {
            let table = scenario.table(placements).unwrap();
            let (shooter, target) = (table.piece("r1").unwrap(), table.piece("b1").unwrap());
            (
                fof_fraction(&rules, &scenario, shooter, target),
                in_field_of_fire(&rules, &scenario, &table, shooter, target).is_some(),
            )
        };
        let (fraction, inside) = verdict(&pieces);
        // A fraction within rounding of the majority line may fall either side of it.
        prop_assume!((fraction - 0.5).abs() > 1e-6);

        let moved: Vec<Placement> = pieces
            .iter()
            .map(|p| placement(&p.id, p.x_in + dx, p.y_in + dy, p.heading_deg, p.status))
            .collect();
        let (moved_fraction, moved_inside) = verdict(&moved);
        prop_assert!((moved_fraction - fraction).abs() < 1e-9,
            "fraction {fraction} became {moved_fraction} after moving by ({dx}, {dy})");
        prop_assert_eq!(moved_inside, inside, "moving the table by ({}, {})", dx, dy);

        // Mirror left to right: x becomes width - x, a heading h becomes 360 - h.
        let mirrored: Vec<Placement> = pieces
            .iter()
            .map(|p| placement(&p.id, width - p.x_in, p.y_in, 360.0 - p.heading_deg, p.status))
            .collect();
        let (mirrored_fraction, mirrored_inside) = verdict(&mirrored);
        prop_assert!((mirrored_fraction - fraction).abs() < 1e-9,
            "fraction {fraction} became {mirrored_fraction} in the mirror");
        prop_assert_eq!(mirrored_inside, inside, "mirroring the table");
    }

    #[test]
    fn command_margin_shrinks_as_a_piece_walks_straight_away_from_its_hq(
        (hx, hy, hh) in (10.0..30.0f64, 10.0..20.0f64, 0.0..360.0f64),
        (px, py, ph) in (-4.0..4.0f64, -4.0..4.0f64, 0.0..360.0f64),
        piece_status in status(),
        steps in proptest::collection::vec(0.0..3.0f64, 1..8),
    ) {
        // r1 of Red I Corps, commanded by the corps HQ rh (the army HQ is off the table).
        prop_assume!(px.hypot(py) > 1e-3);
        let scenario = open_ground();
        let away = Coord { x: px, y: py } / px.hypot(py);
        let mut walked = 0.0;
        let mut last: Option<(f64, f64)> = None;
        for step in std::iter::once(0.0).chain(steps) {
            walked += step;
            let (x, y) = (hx + px + away.x * walked, hy + py + away.y * walked);
            let table = scenario
                .table(&[
                    placement("rh", hx, hy, hh, Status::Fresh),
                    placement("r1", x, y, ph, piece_status),
                ])
                .unwrap();
            let verdict = command_range(&scenario, &table, table.piece("r1").unwrap())
                .expect("r1 has a commanding HQ");
            let (margin, distance) = (verdict.margin_in.unwrap(), verdict.distance_in.unwrap());
            prop_assert_eq!(verdict.hq.as_deref(), Some("rh"));
            prop_assert!((margin - (verdict.range_in - distance)).abs() < 1e-12);
            prop_assert_eq!(verdict.in_command, distance <= verdict.range_in);
            if let Some((last_margin, last_distance)) = last {
                prop_assert!(distance >= last_distance - 1e-9,
                    "{walked} in out the distance fell from {last_distance} to {distance}");
                prop_assert!(margin <= last_margin + 1e-9,
                    "{walked} in out the margin grew from {last_margin} to {margin}");
            }
            last = Some((margin, distance));
        }
    }
}
