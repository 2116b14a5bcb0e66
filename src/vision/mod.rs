//! Seeing the table: the corner tags and the camera, the pieces on the map, in map
//! inches. Pixels exist only here (and in the synthetic renderer that makes them).

pub mod camera;
