//! The AprilTag tag36h11 markers on the four corner cards, drawn from the family's own
//! codes and bit layout (apriltag's `tag36h11.c` and `apriltag_to_image`).
//!
//! A tag36h11 tag is 10 x 10 cells: a white ring one cell wide, a black ring, and 6 x 6
//! data cells. Its printed size is measured across the black ring (8 cells), as AprilTag
//! measures it, so a 1.5 in tag has 0.1875 in cells.

/// Codes of ids 0 to 3 (`codedata[0..4]` of tag36h11).
const CODES: [u64; 4] = [0xd7e00984b, 0xdda664ca7, 0xdc4a1c821, 0xe17b470e9];

/// (x, y) cell of each of the 36 data bits, most significant bit first, inside the black
/// ring (1..=6), as `tag36h11_create` lays them out.
const BITS: [(u8, u8); 36] = [
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 1),
    (5, 1),
    (2, 2),
    (3, 2),
    (4, 2),
    (3, 3),
    (6, 1),
    (6, 2),
    (6, 3),
    (6, 4),
    (6, 5),
    (5, 2),
    (5, 3),
    (5, 4),
    (4, 3),
    (6, 6),
    (5, 6),
    (4, 6),
    (3, 6),
    (2, 6),
    (5, 5),
    (4, 5),
    (3, 5),
    (4, 4),
    (1, 6),
    (1, 5),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 5),
    (2, 4),
    (2, 3),
    (3, 4),
];

/// Whether cell (cx, cy) of the 8 x 8 black-bordered square of tag `id` is white;
/// `None` outside the square (the card's white margin).
pub fn cell_is_white(id: usize, cx: i32, cy: i32) -> Option<bool> {
    if !(0..8).contains(&cx) || !(0..8).contains(&cy) {
        return None;
    }
    if cx == 0 || cy == 0 || cx == 7 || cy == 7 {
        return Some(false);
    }
    let code = CODES[id];
    let bit = BITS
        .iter()
        .position(|&(x, y)| i32::from(x) == cx && i32::from(y) == cy)
        .expect("every inner cell carries a bit");
    Some(code & (1 << (35 - bit)) != 0)
}
