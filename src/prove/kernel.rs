//! The hot loop of `sota prove`: one fused pass over a chunk of decoded
//! values that are all finite, computing every per-element statistic at
//! once (Σab, Σa², Σb², Σ|a−b|, Σ rel, the two maxima, the allclose count,
//! the histogram buckets of both errors). It is written for LLVM's
//! vectorizer: fixed groups of [`W`] f64 lanes, branch-free selects, no
//! early exits; positions (of a maximum, of an allclose violation) are
//! found afterwards by a scan of the chunk that only runs when the chunk
//! holds a new record. The lane order is fixed, so the sums do not depend
//! on which thread runs the chunk. Also here: the argmax of a row segment
//! (a vectorized maximum, then the first position holding it) and the
//! count of elements whose bytes differ.

use super::histogram::SHIFT;

/// f64 lanes per group (one AVX-512 register, two AVX2 ones): fixed for
/// every build, so the sums add in the same order on every CPU.
pub const W: usize = 8;

/// What one all-finite chunk contributes, before positions are known.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChunkStats {
    /// Σab, Σa², Σb², Σ|a−b|, Σ|a−b|/|a| over the chunk, lanes combined.
    pub sums: [f64; 5],
    /// The largest |a−b| and |a−b|/|a| (0 for an empty chunk).
    pub max_abs: f64,
    pub max_rel: f64,
    /// The largest |a| and |b| (only computed when asked: the rescaling of
    /// the cosine sums needs them for f64 data only).
    pub mag_a: f64,
    pub mag_b: f64,
    /// Pairs with |a−b| > atol + rtol·|a| for the tolerance given.
    pub outside: u64,
    /// The largest a and b (for the argmax of a chunk inside one row).
    pub top_a: f64,
    pub top_b: f64,
    /// Pairs whose f64 values differ in their bits (for finite values of
    /// every type but 64-bit integers, exactly the pairs whose bytes do).
    pub bits: u64,
    /// Whether every value was finite (and no square overflowed): only then
    /// are these figures valid; otherwise the chunk takes the slow path.
    pub finite: bool,
}

/// The statistics of one element, as the slow path computes them too:
/// `(|a−b|, |a−b|/|a|)` with 0/0 = 0 and x/0 = ∞.
#[inline(always)]
pub fn errors(a: f64, b: f64) -> (f64, f64) {
    let d = (a - b).abs();
    let q = d / a.abs();
    // q is NaN only for 0/0, which counts as 0; otherwise q >= +0 and this
    // keeps it (one `maxpd` against zero when vectorized).
    let r = if q > 0.0 { q } else { 0.0 };
    (d, r)
}

/// The lanes of a group added pairwise, in a fixed tree: the same order on
/// every build and at every thread count.
#[inline(always)]
fn pairwise(x: &[f64; W]) -> f64 {
    let mut v = *x;
    let mut n = W;
    while n > 1 {
        n /= 2;
        for i in 0..n {
            v[i] = v[2 * i] + v[2 * i + 1];
        }
    }
    v[0]
}

/// Running lane state of the fused loop: one AVX2 register each (`mag`
/// is only tracked for f64 data).
struct Acc {
    sums: [[f64; W]; 5],
    max: [[f64; W]; 2],
    mag: [[f64; W]; 2],
    top: [[f64; W]; 2],
    outside: [u64; W],
    /// Pairs whose bits are equal (counted so: one compare and one
    /// subtract of its mask per group).
    same: [u64; W],
}

#[inline(always)]
fn step<const MAG: bool>(acc: &mut Acc, l: usize, a: f64, b: f64, tol: (f64, f64)) -> (u32, u32) {
    let (d, r) = errors(a, b);
    let s = &mut acc.sums;
    s[0][l] += a * b;
    s[1][l] += a * a;
    s[2][l] += b * b;
    s[3][l] += d;
    s[4][l] += r;
    let m = &mut acc.max;
    m[0][l] = if d > m[0][l] { d } else { m[0][l] };
    m[1][l] = if r > m[1][l] { r } else { m[1][l] };
    if MAG {
        let (ma, mb) = (a.abs(), b.abs());
        let g = &mut acc.mag;
        g[0][l] = if ma > g[0][l] { ma } else { g[0][l] };
        g[1][l] = if mb > g[1][l] { mb } else { g[1][l] };
    }
    acc.outside[l] += u64::from(d > tol.0 + tol.1 * a.abs());
    let t = &mut acc.top;
    t[0][l] = if a > t[0][l] { a } else { t[0][l] };
    t[1][l] = if b > t[1][l] { b } else { t[1][l] };
    acc.same[l] += u64::from(a.to_bits() == b.to_bits());
    ((d.to_bits() >> SHIFT) as u32, (r.to_bits() >> SHIFT) as u32)
}

/// The fused pass over `va`, `vb` (same length). `tol` is `(atol, rtol)`
/// of the allclose test to count (`(∞, 0)` counts nothing). The histogram
/// buckets of |a−b| and of the relative error go to `bd` and `br` (at
/// least as long as `va`). With `MAG`, also the largest magnitudes.
#[inline(always)]
pub fn fused<const MAG: bool>(
    va: &[f64],
    vb: &[f64],
    tol: (f64, f64),
    bd: &mut [u32],
    br: &mut [u32],
) -> ChunkStats {
    let k = va.len();
    let (vb, bd, br) = (&vb[..k], &mut bd[..k], &mut br[..k]);
    let mut acc = Acc {
        sums: [[0.0; W]; 5],
        max: [[0.0; W]; 2],
        mag: [[0.0; W]; 2],
        top: [[f64::NEG_INFINITY; W]; 2],
        outside: [0; W],
        same: [0; W],
    };
    let full = k / W * W;
    for (((ca, cb), od), or) in va[..full]
        .chunks_exact(W)
        .zip(vb[..full].chunks_exact(W))
        .zip(bd[..full].chunks_exact_mut(W))
        .zip(br[..full].chunks_exact_mut(W))
    {
        for l in 0..W {
            (od[l], or[l]) = step::<MAG>(&mut acc, l, ca[l], cb[l], tol);
        }
    }
    for j in full..k {
        (bd[j], br[j]) = step::<MAG>(&mut acc, j - full, va[j], vb[j], tol);
    }
    let most = |m: &[f64; W], init: f64| m.iter().fold(init, |t, &v| if v > t { v } else { t });
    let sums = acc.sums.map(|x| pairwise(&x));
    ChunkStats {
        sums,
        max_abs: most(&acc.max[0], 0.0),
        max_rel: most(&acc.max[1], 0.0),
        mag_a: most(&acc.mag[0], 0.0),
        mag_b: most(&acc.mag[1], 0.0),
        outside: acc.outside.iter().sum(),
        top_a: most(&acc.top[0], f64::NEG_INFINITY),
        top_b: most(&acc.top[1], f64::NEG_INFINITY),
        bits: k as u64 - acc.same.iter().sum::<u64>(),
        // A NaN or infinity in either tensor makes Σa² or Σb² non-finite.
        finite: sums[1].is_finite() && sums[2].is_finite(),
    }
}

/// The first `j` whose `f(va[j], vb[j])` is exactly `target` (which the
/// caller knows occurs).
#[inline(always)]
pub fn first_where(va: &[f64], vb: &[f64], target: f64, f: impl Fn(f64, f64) -> f64) -> usize {
    va.iter()
        .zip(vb)
        .position(|(&a, &b)| f(a, b) == target)
        .unwrap_or(0)
}

/// How many pairs of `va`, `vb` have |a−b| > atol + rtol·|a|.
#[inline(always)]
pub fn count_outside(va: &[f64], vb: &[f64], atol: f64, rtol: f64) -> u64 {
    let mut n = [0.0f64; W];
    let full = va.len() / W * W;
    for (ca, cb) in va[..full].chunks_exact(W).zip(vb[..full].chunks_exact(W)) {
        for l in 0..W {
            let d = (ca[l] - cb[l]).abs();
            n[l] += if d > atol + rtol * ca[l].abs() {
                1.0
            } else {
                0.0
            };
        }
    }
    let mut rest = 0u64;
    for (&a, &b) in va[full..].iter().zip(&vb[full..]) {
        rest += u64::from((a - b).abs() > atol + rtol * a.abs());
    }
    pairwise(&n) as u64 + rest
}

/// How far a pair is outside `atol + rtol·|a|`: |a−b| / (atol + rtol·|a|)
/// when |a−b| exceeds it, else −1.
#[inline(always)]
pub fn outside_ratio(a: f64, b: f64, atol: f64, rtol: f64) -> f64 {
    let d = (a - b).abs();
    let tol = atol + rtol * a.abs();
    // Computed for every lane and discarded inside the tolerance (where
    // 0/0 may give NaN), so the division vectorizes.
    let q = d / tol;
    if d > tol {
        q
    } else {
        -1.0
    }
}

/// The largest [`outside_ratio`] of the pairs of `va`, `vb` (−1 when every
/// pair is inside the tolerance), a group at a time.
#[inline(always)]
pub fn worst_outside(va: &[f64], vb: &[f64], atol: f64, rtol: f64) -> f64 {
    let mut m = [-1.0f64; W];
    let full = va.len() / W * W;
    for (ca, cb) in va[..full].chunks_exact(W).zip(vb[..full].chunks_exact(W)) {
        for l in 0..W {
            let q = outside_ratio(ca[l], cb[l], atol, rtol);
            m[l] = if q > m[l] { q } else { m[l] };
        }
    }
    let mut top = m.iter().fold(-1.0, |t, &x| if x > t { x } else { t });
    for (&a, &b) in va[full..].iter().zip(&vb[full..]) {
        let q = outside_ratio(a, b, atol, rtol);
        top = if q > top { q } else { top };
    }
    top
}

/// The first position of `top` in `v` (which holds it), a group at a time.
#[inline(always)]
pub fn find_first(v: &[f64], top: f64) -> usize {
    let full = v.len() / W * W;
    let mut base = 0;
    for c in v[..full].chunks_exact(W) {
        if c.iter().fold(false, |h, &x| h | (x == top)) {
            break;
        }
        base += W;
    }
    base + v[base..].iter().position(|&x| x == top).unwrap_or(0)
}

/// The argmax of a row segment of finite values: the first position of
/// its maximum (NumPy's rule), and that maximum.
#[inline(always)]
pub fn argmax_finite(v: &[f64]) -> (usize, f64) {
    let mut m = [f64::NEG_INFINITY; W];
    let full = v.len() / W * W;
    for c in v[..full].chunks_exact(W) {
        for l in 0..W {
            m[l] = if c[l] > m[l] { c[l] } else { m[l] };
        }
    }
    for &x in &v[full..] {
        m[0] = if x > m[0] { x } else { m[0] };
    }
    let top = m
        .iter()
        .fold(f64::NEG_INFINITY, |t, &x| if x > t { x } else { t });
    (find_first(v, top), top)
}

/// How many `N`-byte elements of `ra` and `rb` differ.
#[inline(always)]
pub fn count_diff<const N: usize>(ra: &[u8], rb: &[u8]) -> u64 {
    macro_rules! count {
        ($t:ty) => {
            ra.chunks_exact(N)
                .zip(rb.chunks_exact(N))
                .map(|(x, y)| {
                    let x = <$t>::from_ne_bytes(x.try_into().unwrap());
                    let y = <$t>::from_ne_bytes(y.try_into().unwrap());
                    u64::from(x != y)
                })
                .sum()
        };
    }
    match N {
        1 => ra.iter().zip(rb).map(|(x, y)| u64::from(x != y)).sum(),
        2 => count!(u16),
        4 => count!(u32),
        _ => count!(u64),
    }
}

/// The first `N`-byte element where `ra` and `rb` differ.
pub fn first_diff<const N: usize>(ra: &[u8], rb: &[u8]) -> Option<usize> {
    ra.chunks_exact(N)
        .zip(rb.chunks_exact(N))
        .position(|(x, y)| x != y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fused_pass_matches_the_element_rule() {
        let va: Vec<f64> = (0..37).map(|i| (i as f64 - 18.0) * 0.37).collect();
        let vb: Vec<f64> = va
            .iter()
            .enumerate()
            .map(|(i, &a)| if i % 5 == 0 { a } else { a * 1.001 + 0.002 })
            .collect();
        let (mut bd, mut br) = (vec![0; 37], vec![0; 37]);
        let c = fused::<true>(&va, &vb, (1e-3, 1e-3), &mut bd, &mut br);
        assert!(c.finite);
        let mut max_abs = 0.0f64;
        let mut max_rel = 0.0f64;
        let mut outside = 0;
        for j in 0..37 {
            let (d, r) = errors(va[j], vb[j]);
            max_abs = max_abs.max(d);
            max_rel = max_rel.max(r);
            outside += u64::from(d > 1e-3 + 1e-3 * va[j].abs());
            assert_eq!(bd[j] as usize, super::super::histogram::bucket(d));
            assert_eq!(br[j] as usize, super::super::histogram::bucket(r));
        }
        assert_eq!(
            (c.max_abs, c.max_rel, c.outside),
            (max_abs, max_rel, outside)
        );
        assert_eq!(c.mag_a, 18.0 * 0.37);
        assert_eq!(outside, count_outside(&va, &vb, 1e-3, 1e-3));
        // The worst ratio outside the tolerance, as the element rule gives
        // it, and −1 when nothing is outside (here: a zero tolerance only
        // the exact ties meet, then one every pair meets).
        for (atol, rtol) in [(1e-3, 1e-3), (0.0, 0.0), (1.0, 1.0)] {
            let expect = va.iter().zip(&vb).fold(-1.0f64, |m, (&a, &b)| {
                let (d, tol) = ((a - b).abs(), atol + rtol * a.abs());
                if d > tol {
                    m.max(d / tol)
                } else {
                    m
                }
            });
            assert_eq!(worst_outside(&va, &vb, atol, rtol), expect, "{atol} {rtol}");
        }
        assert_eq!(worst_outside(&va, &vb, 1.0, 1.0), -1.0);
        let dot: f64 = va.iter().zip(&vb).map(|(a, b)| a * b).sum();
        assert!((c.sums[0] - dot).abs() <= 1e-12 * dot.abs());
    }

    #[test]
    fn a_non_finite_value_sends_the_chunk_to_the_slow_path() {
        let (mut bd, mut br) = (vec![0; 9], vec![0; 9]);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
            let mut va = vec![1.0; 9];
            va[6] = bad;
            let c = fused::<false>(&va, &[1.0; 9], (f64::INFINITY, 0.0), &mut bd, &mut br);
            assert!(!c.finite, "{bad}");
        }
    }

    #[test]
    fn zero_over_zero_is_zero_and_x_over_zero_infinite() {
        assert_eq!(errors(0.0, 0.0), (0.0, 0.0));
        assert_eq!(errors(0.0, 2.0), (2.0, f64::INFINITY));
    }

    #[test]
    fn argmax_takes_the_first_maximum() {
        let v = [1.0, 3.0, -2.0, 3.0, 0.5, 3.0, 2.0, 1.0, 3.0];
        assert_eq!(argmax_finite(&v), (1, 3.0));
        assert_eq!(argmax_finite(&v[2..]), (1, 3.0));
        assert_eq!(argmax_finite(&[-0.0, 0.0]), (0, 0.0));
        let w: Vec<f64> = (0..50).map(|i| if i == 47 { 9.0 } else { 0.0 }).collect();
        assert_eq!(argmax_finite(&w), (47, 9.0));
    }

    #[test]
    fn byte_differences_are_counted_per_element() {
        let a = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let b = [1u8, 2, 3, 5, 5, 6, 7, 8];
        assert_eq!(count_diff::<4>(&a, &b), 1);
        assert_eq!(count_diff::<2>(&a, &b), 1);
        assert_eq!(count_diff::<1>(&a, &b), 1);
        assert_eq!(first_diff::<2>(&a, &b), Some(1));
        assert_eq!(count_diff::<8>(&a, &a), 0);
    }
}
