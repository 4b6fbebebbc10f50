//! A fixed-size histogram of non-negative f64 values (errors), bucketed by
//! the top bits of their IEEE representation: the 11 exponent bits and the
//! top [`MANTISSA_BITS`] mantissa bits. Buckets are therefore logarithmic,
//! each spanning a relative width of 2^-7, and memory is a constant 2 MiB
//! whatever the tensor size. Counts add, so per-thread histograms merge
//! exactly and the result does not depend on the thread count.
//!
//! Order statistics (median, quantiles) are read off the histogram: the
//! value reported is the midpoint of the bucket holding the requested rank,
//! so it is within a relative 2^-8 (0.39%) of the exact order statistic
//! (values below 2^-1015 are reported as 0).

/// Mantissa bits kept per bucket.
pub const MANTISSA_BITS: u32 = 7;
const SHIFT: u32 = 52 - MANTISSA_BITS;
/// Number of buckets: every non-negative, non-NaN f64 (infinity included).
pub const BUCKETS: usize = (0x7ff << MANTISSA_BITS) + 1;

/// Counts of values per bucket.
#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
        }
    }
}

/// The bucket of a non-negative, non-NaN value.
#[inline(always)]
pub fn bucket(x: f64) -> usize {
    (x.to_bits() >> SHIFT) as usize
}

/// The smallest value in bucket `b`.
pub fn bucket_low(b: usize) -> f64 {
    f64::from_bits((b as u64) << SHIFT)
}

impl Histogram {
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        // `min` keeps a stray NaN (never passed) from indexing out of range.
        let b = bucket(x).min(BUCKETS - 1);
        self.counts[b] += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// How many values were added.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The value of rank `floor(q·(n−1))` (NumPy's `method="lower"`), as the
    /// midpoint of its bucket; `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * (n - 1) as f64).floor() as u64).min(n - 1);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                return Some(midpoint(b));
            }
        }
        None
    }

    /// Counts per power of two: `(exponent, count)` for every non-empty
    /// binade, with zero (and values below 2^-1022) under `None` and
    /// infinity under `Some(1024)`.
    pub fn binades(&self) -> Vec<(Option<i32>, u64)> {
        let mut out: Vec<(Option<i32>, u64)> = Vec::new();
        for (b, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let biased = (b >> MANTISSA_BITS) as i32;
            let key = if biased == 0 {
                None
            } else {
                Some(biased - 1023)
            };
            match out.last_mut() {
                Some((k, n)) if *k == key => *n += c,
                _ => out.push((key, c)),
            }
        }
        out
    }
}

fn midpoint(b: usize) -> f64 {
    if b == 0 {
        return 0.0;
    }
    let lo = bucket_low(b);
    if lo.is_infinite() {
        return lo;
    }
    let hi = bucket_low(b + 1);
    lo + (hi - lo) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_the_stated_precision() {
        let mut h = Histogram::default();
        let values: Vec<f64> = (1..=1001).map(|i| (i as f64) * 0.001).collect();
        for &v in &values {
            h.add(v);
        }
        let median = h.quantile(0.5).unwrap();
        assert!((median - 0.501).abs() <= 0.501 * 2f64.powi(-8), "{median}");
        let p99 = h.quantile(0.99).unwrap();
        assert!((p99 - 0.991).abs() <= 0.991 * 2f64.powi(-8), "{p99}");
        assert_eq!(h.quantile(0.0).unwrap(), midpoint(bucket(0.001)));
    }

    #[test]
    fn zero_and_infinity_are_exact() {
        let mut h = Histogram::default();
        h.add(0.0);
        h.add(0.0);
        h.add(f64::INFINITY);
        assert_eq!(h.quantile(0.5), Some(0.0));
        assert_eq!(h.quantile(1.0), Some(f64::INFINITY));
        assert_eq!(bucket(f64::INFINITY), BUCKETS - 1);
        assert_eq!(h.binades(), vec![(None, 2), (Some(1024), 1)]);
    }
}
