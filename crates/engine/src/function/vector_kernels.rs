//! The arithmetic of pgvector's distances over float4 slices: the inner loops of distance
//! functions, exact nearest-neighbour scans and index searches.
//!
//! Each sum runs in `LANES` independent accumulators, so the compiler turns the loop into
//! SIMD adds and multiplies without reassociating floats on its own (Rust never does); the
//! lanes are summed at the end. pgvector's C compiles its loops with reassociation too, so
//! the last bits of a sum may differ from it as they differ between its own builds.

/// Accumulators per sum: two AVX registers of float4, or four SSE ones.
const LANES: usize = 16;

/// Sums `term(a[i], b[i])` over two slices of the same length.
#[inline(always)]
fn sum_pairs(a: &[f32], b: &[f32], term: impl Fn(f32, f32) -> f32) -> f32 {
    let (a_chunks, a_rest) = a.as_chunks::<LANES>();
    let (b_chunks, b_rest) = b.as_chunks::<LANES>();
    let mut lanes = [0.0f32; LANES];
    for (x, y) in a_chunks.iter().zip(b_chunks) {
        for lane in 0..LANES {
            lanes[lane] += term(x[lane], y[lane]);
        }
    }
    let mut total = 0.0;
    for (x, y) in a_rest.iter().zip(b_rest) {
        total += term(*x, *y);
    }
    lanes.iter().sum::<f32>() + total
}

/// The squared Euclidean distance.
pub fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
    sum_pairs(a, b, |x, y| (x - y) * (x - y))
}

pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
    sum_pairs(a, b, |x, y| x * y)
}

/// The taxicab distance.
pub fn l1(a: &[f32], b: &[f32]) -> f32 {
    sum_pairs(a, b, |x, y| (x - y).abs())
}

/// 1 - cos(a, b), the similarity clamped to [-1, 1] as pgvector's cosine_distance; NaN
/// when either vector is zero.
pub fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let dot = f64::from(inner_product(a, b));
    let norms = f64::from(inner_product(a, a)) * f64::from(inner_product(b, b));
    let similarity = dot / norms.sqrt();
    1.0 - similarity.clamp(-1.0, 1.0)
}

/// The Euclidean norm, summed in double precision as pgvector's vector_norm.
pub fn norm(a: &[f32]) -> f64 {
    let (chunks, rest) = a.as_chunks::<LANES>();
    let mut lanes = [0.0f64; LANES];
    for x in chunks {
        for lane in 0..LANES {
            lanes[lane] += f64::from(x[lane]) * f64::from(x[lane]);
        }
    }
    let tail: f64 = rest.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
    (lanes.iter().sum::<f64>() + tail).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain loops the lanes must agree with (to float rounding).
    fn naive(a: &[f32], b: &[f32]) -> (f32, f32, f32) {
        let (mut l2, mut ip, mut l1) = (0.0f32, 0.0f32, 0.0f32);
        for (x, y) in a.iter().zip(b) {
            l2 += (x - y) * (x - y);
            ip += x * y;
            l1 += (x - y).abs();
        }
        (l2, ip, l1)
    }

    #[test]
    fn lanes_agree_with_plain_loops_at_every_length() {
        for len in [1, 3, 15, 16, 17, 31, 128, 131] {
            let a: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..len).map(|i| (i as f32 * 0.11).cos()).collect();
            let (l2, ip, l1_expected) = naive(&a, &b);
            let close = |x: f32, y: f32| (x - y).abs() <= 1e-4 * y.abs().max(1.0);
            assert!(close(l2_squared(&a, &b), l2), "l2 at {len}");
            assert!(close(inner_product(&a, &b), ip), "ip at {len}");
            assert!(close(l1(&a, &b), l1_expected), "l1 at {len}");
        }
    }

    #[test]
    fn cosine_and_norm_as_pgvector() {
        assert_eq!(cosine_distance(&[1.0, 2.0], &[2.0, 4.0]), 0.0);
        assert_eq!(cosine_distance(&[1.0, 1.0], &[-1.0, -1.0]), 2.0);
        assert!(cosine_distance(&[1.0, 2.0], &[0.0, 0.0]).is_nan());
        assert_eq!(norm(&[3.0, 4.0]), 5.0);
    }
}
