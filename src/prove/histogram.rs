//! A fixed-size histogram of non-negative f64 values (errors), bucketed by
//! the top bits of their IEEE representation: the 11 exponent bits and the
//! top [`MANTISSA_BITS`] mantissa bits. Buckets are therefore logarithmic,
//! each spanning a relative width of 2^-7, and memory is a constant (1 MiB,
//! plus 2 MiB once more than 2^31 values were counted) whatever the tensor
//! size. Counts add, so per-thread histograms merge
//! exactly and the result does not depend on the thread count.
//!
//! The counters the hot loop touches are 32-bit (a 1 MiB table whose
//! busy part stays in the L1/L2 cache); they are flushed into 64-bit
//! totals long before they could overflow.
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

/// Values counted in the 32-bit table before it is flushed (below 2^32).
const FLUSH_EVERY: u64 = 1 << 31;

/// Counts of values per bucket.
#[derive(Clone)]
pub struct Histogram {
    hot: Vec<u32>,
    /// Flushed totals (allocated at the first flush).
    totals: Vec<u64>,
    pending: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            hot: vec![0; BUCKETS],
            totals: Vec::new(),
            pending: 0,
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
    /// Count every value of `xs`.
    #[inline(always)]
    pub fn add_all(&mut self, xs: &[f64]) {
        for &x in xs {
            // `min` keeps a stray NaN (never passed) from indexing out of range.
            self.hot[bucket(x).min(BUCKETS - 1)] += 1;
        }
        self.counted(xs.len());
    }

    /// Count one value.
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        self.hot[bucket(x).min(BUCKETS - 1)] += 1;
        self.counted(1);
    }

    #[inline(always)]
    fn counted(&mut self, n: usize) {
        self.pending += n as u64;
        if self.pending >= FLUSH_EVERY {
            self.flush();
        }
    }

    #[cold]
    fn flush(&mut self) {
        if self.totals.is_empty() {
            self.totals = vec![0; BUCKETS];
        }
        for (t, h) in self.totals.iter_mut().zip(self.hot.iter_mut()) {
            *t += u64::from(std::mem::take(h));
        }
        self.pending = 0;
    }

    pub fn merge(&mut self, mut other: Histogram) {
        self.flush();
        other.flush();
        for (a, b) in self.totals.iter_mut().zip(&other.totals) {
            *a += b;
        }
    }

    /// The count of each bucket.
    fn counts(&self) -> impl Iterator<Item = u64> + '_ {
        let totals = self.totals.iter().copied().chain(std::iter::repeat(0));
        self.hot.iter().zip(totals).map(|(&h, t)| t + u64::from(h))
    }

    /// How many values were added.
    pub fn total(&self) -> u64 {
        self.counts().sum()
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
        for (b, c) in self.counts().enumerate() {
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
        for (b, c) in self.counts().enumerate() {
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
        h.add_all(&values);
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
