//! aide-de-camp: a webcam companion for the Pub Battles table.
//!
//! Data flows one way (see `ARCHITECTURE.md` in the shared folder):
//! frame source → calibration → detector → tracker → table state → rules, dice, journal → web.
//! Each stage is a plain value in, plain value out; only the edges (capture, web, journal,
//! CLI) do I/O. Map space is inches, origin at the map's top-left corner, x right, y down;
//! `heading_deg` is the direction a piece's front faces, 0 toward the map's top edge,
//! clockwise, in [0, 360).

pub mod capture;
pub mod dice;
pub mod geom;
pub mod journal;
pub mod live;
pub mod model;
pub mod rules;
pub mod scenario;
pub mod seat;
pub mod sim;
pub mod table;
pub mod track;
pub mod vision;
pub mod web;
