//! Masks of the map plane, every frame: connected components (eight-connected) of the
//! crops the detector read in full, and the coarse pass's masks grown and shrunk by a
//! square.
//!
//! imageproc's `connected_components`, `dilate` and `erode` (L-infinity norm) give the
//! same results. But `connected_components` sets up a union-find forest of two machine
//! words per pixel for every image it labels, and reads pixels through a generic
//! interface: on a 1080p frame of 30 pieces it was a fifth of a live frame's detection.
//! Here the forest holds one entry per provisional label, a few per blob. And `dilate`
//! and `erode` run a distance transform where a sliding count of set pixels does.

use image::{GrayImage, ImageBuffer, Luma};

/// Labels of an image: 0 the background, components from 1.
pub type Labels = ImageBuffer<Luma<u32>, Vec<u32>>;

/// The eight-connected components of `image`'s non-zero pixels, a component holding
/// pixels of one value only, numbered from 1 in the order a raster scan (row by row,
/// left to right) meets their first pixel. The same labels as imageproc's
/// `connected_components(image, Connectivity::Eight, Luma([0]))`, which numbers them in
/// that order too.
pub fn label_components(image: &GrayImage) -> Labels {
    components(image).0
}

/// [`label_components`] and how many components there are: the largest label.
pub fn components(image: &GrayImage) -> (Labels, usize) {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let px = image.as_raw();
    let mut labels = vec![0u32; w * h];
    // parent[l] of provisional label l (0 unused); a root is its own parent, and a root
    // is always the smallest label of its set.
    let mut parent: Vec<u32> = vec![0];
    for y in 0..h {
        let row = y * w;
        for x in 0..w {
            let value = px[row + x];
            if value == 0 {
                continue;
            }
            // The neighbours already labelled of the same value, and so in the set:
            // north makes the others (west, north-west, north-east) its neighbours
            // too, already joined to it when they were labelled; west, likewise,
            // north-west (its own north).
            let mut label = 0u32;
            let mut join = |at: usize, label: &mut u32| {
                if px[at] != value {
                    return;
                }
                let other = find(&mut parent, labels[at]);
                if *label == 0 {
                    *label = other;
                } else if other != *label {
                    let (low, high) = (other.min(*label), other.max(*label));
                    parent[high as usize] = low;
                    *label = low;
                }
            };
            let above = row.wrapping_sub(w);
            let (west, north) = (x > 0, y > 0);
            let north_east = north && x + 1 < w;
            if north && px[above + x] == value {
                join(above + x, &mut label);
            } else {
                if west {
                    join(row + x - 1, &mut label);
                }
                if west && north && label == 0 {
                    join(above + x - 1, &mut label);
                }
                if north_east {
                    join(above + x + 1, &mut label);
                }
            }
            if label == 0 {
                label = parent.len() as u32;
                parent.push(label);
            }
            labels[row + x] = label;
        }
    }
    // Number the sets in the order the scan first meets them: a set's root, its
    // smallest label, was made at its first pixel, so the roots in the order they were
    // made are the sets in that order; every other label takes its root's number,
    // given before it.
    let mut number = vec![0u32; parent.len()];
    let mut count = 0;
    for l in 1..parent.len() {
        let root = find(&mut parent, l as u32) as usize;
        number[l] = if root == l {
            count += 1;
            count
        } else {
            number[root]
        };
    }
    for label in &mut labels {
        *label = number[*label as usize];
    }
    (
        Labels::from_raw(w as u32, h as u32, labels).expect("one label per pixel"),
        count as usize,
    )
}

/// imageproc's `dilate(image, Norm::LInf, k)`: 255 where a non-zero pixel lies within
/// `k` pixels each way (in the square of side 2k + 1 about it, as far as the image
/// reaches), 0 elsewhere.
pub fn grow(image: &GrayImage, k: u32) -> GrayImage {
    square_has(image, k, |v| v != 0)
}

/// imageproc's `erode(image, Norm::LInf, k)`: 255 where every pixel within `k` pixels
/// each way (as far as the image reaches) is non-zero, 0 elsewhere.
pub fn shrink(image: &GrayImage, k: u32) -> GrayImage {
    let mut out = square_has(image, k, |v| v == 0);
    for p in out.iter_mut() {
        *p = 255 - *p;
    }
    out
}

/// 255 where a pixel that is `wanted` lies in the square of side 2k + 1 about a pixel,
/// clipped to the image, 0 elsewhere: along the rows, then along the columns of that,
/// each by a running count.
fn square_has(image: &GrayImage, k: u32, wanted: impl Fn(u8) -> bool) -> GrayImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let k = k as usize;
    // Whether any of the 2k + 1 values centred on each of `values` is set, by a prefix
    // count (`counts` is scratch of one more than the line's length).
    let spread = |values: &mut dyn Iterator<Item = bool>, counts: &mut Vec<u32>| {
        counts.clear();
        counts.push(0);
        for v in values {
            let last = *counts.last().expect("starts with 0");
            counts.push(last + u32::from(v));
        }
        let n = counts.len() - 1;
        (0..n)
            .map(|i| counts[(i + k + 1).min(n)] > counts[i.saturating_sub(k)])
            .collect::<Vec<bool>>()
    };
    let mut counts = Vec::new();
    let mut rows = vec![false; w * h];
    for (y, row) in image.as_raw().chunks_exact(w.max(1)).enumerate().take(h) {
        let along = spread(&mut row.iter().map(|&v| wanted(v)), &mut counts);
        rows[y * w..(y + 1) * w].copy_from_slice(&along);
    }
    let mut out = vec![0u8; w * h];
    for x in 0..w {
        let down = spread(&mut (0..h).map(|y| rows[y * w + x]), &mut counts);
        for (y, set) in down.into_iter().enumerate() {
            if set {
                out[y * w + x] = 255;
            }
        }
    }
    GrayImage::from_raw(w as u32, h as u32, out).expect("a byte per pixel")
}

/// The root of provisional label `l`, halving the path to it on the way.
fn find(parent: &mut [u32], mut l: u32) -> u32 {
    while parent[l as usize] != l {
        let grandparent = parent[parent[l as usize] as usize];
        parent[l as usize] = grandparent;
        l = grandparent;
    }
    l
}

#[cfg(test)]
mod tests {
    use image::{GrayImage, Luma};
    use imageproc::distance_transform::Norm;
    use imageproc::morphology::{dilate, erode};
    use imageproc::region_labelling::{Connectivity, connected_components};

    use super::{components, grow, shrink};

    /// Uniform numbers in 0..n, repeatable by seed.
    fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) % n
        }
    }

    /// On random images of one to three values on a background (speckle, where every
    /// diagonal contact counts, and blocky patches whose components merge late in the
    /// scan, U shapes and spirals among them; one pixel to 40 each way, so a square
    /// reaches past the edges) the labels, and the masks grown and shrunk by the
    /// detector's squares, are imageproc's, pixel for pixel.
    #[test]
    fn the_labels_and_squares_are_imageprocs() {
        let mut next = numbers(7);
        let mut images: Vec<GrayImage> = Vec::new();
        for _ in 0..200 {
            let (w, h) = (1 + next(40) as u32, 1 + next(40) as u32);
            let values = 1 + next(3);
            let fill = next(100);
            images.push(GrayImage::from_fn(w, h, |_, _| {
                let v = if next(100) < fill {
                    1 + next(values)
                } else {
                    0
                };
                Luma([v as u8])
            }));
            let cell = 2 + next(5) as u32;
            let cells: Vec<u8> = (0..(w / cell + 1) * (h / cell + 1))
                .map(|_| {
                    if next(2) == 0 {
                        0
                    } else {
                        1 + next(values) as u8
                    }
                })
                .collect();
            images.push(GrayImage::from_fn(w, h, |x, y| {
                Luma([cells[((y / cell) * (w / cell + 1) + x / cell) as usize]])
            }));
        }
        // A spiral: one component whose arms the scan meets as many separate runs.
        let n = 41u32;
        images.push(GrayImage::from_fn(n, n, |x, y| {
            let ring = x.min(y).min(n - 1 - x).min(n - 1 - y);
            let on = ring % 2 == 0 && !(x == ring + 1 && y == ring && ring + 1 < n / 2);
            Luma([if on || (ring % 2 == 1 && x == ring && y == ring) {
                9
            } else {
                0
            }])
        }));
        for (k, image) in images.iter().enumerate() {
            for reach in [1, 3] {
                assert_eq!(
                    grow(image, reach),
                    dilate(image, Norm::LInf, reach as u8),
                    "image {k}"
                );
                assert_eq!(
                    shrink(image, reach),
                    erode(image, Norm::LInf, reach as u8),
                    "image {k}"
                );
            }
            let expected = connected_components(image, Connectivity::Eight, Luma([0u8]));
            let (labels, count) = components(image);
            assert_eq!(
                labels,
                expected,
                "image {k} ({}x{})",
                image.width(),
                image.height()
            );
            let largest = expected.pixels().map(|l| l.0[0] as usize).max();
            assert_eq!(count, largest.unwrap_or(0), "image {k}");
        }
    }
}
