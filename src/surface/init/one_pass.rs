//! One pass over each file's prefix in `init`'s scan. The detector's
//! markers and the signals' content patterns are one automaton here, so a
//! kernel file's bytes are searched once, not once for what it is and
//! again for what it computes; each side then reads its own matches, in
//! the order a search of its own would report them.

use aho_corasick::{AhoCorasick, Match};

use super::detect::Detector;
use super::signals::Signals;

/// The automaton of both pattern lists: the detector's markers first, then
/// the signals' content patterns.
pub struct OnePass {
    ac: AhoCorasick,
    markers: usize,
}

/// Every match of one file's prefix, overlaps too, in search order.
#[derive(Default)]
pub struct Matches {
    all: Vec<Match>,
    markers: usize,
}

impl OnePass {
    pub fn new(detector: &Detector, signals: &Signals) -> OnePass {
        let markers: Vec<&str> = detector.patterns().collect();
        let content = signals.patterns().iter().map(String::as_str);
        OnePass {
            markers: markers.len(),
            ac: super::scan_automaton(markers.iter().copied().chain(content)),
        }
    }

    /// Search `prefix` once, into `found` (its buffer reused file to file).
    pub fn run(&self, prefix: &[u8], found: &mut Matches) {
        found.all.clear();
        found.all.extend(self.ac.find_overlapping_iter(prefix));
        found.markers = self.markers;
    }
}

impl Matches {
    /// The detector's matches, numbered as its own markers.
    pub fn markers(&self) -> impl Iterator<Item = Match> + '_ {
        self.all
            .iter()
            .copied()
            .filter(|m| m.pattern().as_usize() < self.markers)
    }

    /// The signals' matches, numbered as their own content patterns.
    pub fn content(&self) -> impl Iterator<Item = Match> + '_ {
        self.all.iter().filter_map(|m| {
            let k = m.pattern().as_usize().checked_sub(self.markers)?;
            Some(Match::must(k, m.span()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::Matrix;
    use crate::surface::init::detect::Kind;

    /// The one pass must read every file exactly as the two searches it
    /// replaces: the same kernel kind, includes and entries, the same op
    /// with the same evidence.
    #[test]
    fn one_search_reads_a_file_as_two_searches_did() {
        let catalog = Matrix::catalog();
        let signals = Signals::for_catalog(&catalog);
        let detector = Detector::new();
        let pass = OnePass::new(&detector, &signals);
        let samples: &[(&str, &str)] = &[
            (
                "csrc/softmax.cu",
                "#include \"utils.cuh\"\n__global__ void softmax(float* x) {\n  \
                 float m = __shfl_xor_sync(0xffffffff, x[threadIdx.x], 16);\n  \
                 x[threadIdx.x] = __expf(x[threadIdx.x] - m);\n}\n",
            ),
            (
                "src/x86/gemm_avx2.c",
                "#include <immintrin.h>\nvoid gemm(const float* a, float* c) {\n  \
                 __m256 acc = _mm256_fmadd_ps(_mm256_loadu_ps(a), _mm256_set1_ps(2.f), \
                 _mm256_setzero_ps());\n  _mm256_storeu_ps(c, acc);\n}\n",
            ),
            (
                "ops/rms_norm.py",
                "import triton\nimport triton.language as tl\n@triton.jit\n\
                 def rms_norm(x_ptr, BLOCK: tl.constexpr):\n    \
                 x = tl.load(x_ptr + tl.arange(0, BLOCK))\n    \
                 r = tl.rsqrt(tl.sum(x * x) / BLOCK)\n",
            ),
            (
                "tools/markers.py",
                "MARKERS = [\"__global__\", \"@triton.jit\", \"_mm256_add_ps\"]\n",
            ),
            ("README.md", "__global__ void k() {} softmax rsqrt"),
        ];
        let mut found = Matches::default();
        for &(path, text) in samples {
            let prefix = text.as_bytes();
            pass.run(prefix, &mut found);
            let one = detector.scan_found(path, prefix, found.markers());
            let two = detector.scan(path, prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
            let kind = two.kind.unwrap_or(Kind::Scalar);
            let one = signals.best_found(path, Some(kind), prefix, found.content());
            let two = signals.best(path, Some(kind), prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
        }
        // The samples do reach both sides, so the comparison means something.
        pass.run(samples[0].1.as_bytes(), &mut found);
        assert!(found.markers().count() > 0 && found.content().count() > 0);
        let cuda = detector.scan_found(samples[0].0, samples[0].1.as_bytes(), found.markers());
        assert_eq!(cuda.kind, Some(Kind::Cuda));
    }
}
