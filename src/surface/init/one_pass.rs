//! One pass over each file's prefix in `init`'s scan. The detector's
//! markers and the signals' content patterns are one automaton here, so a
//! kernel file's bytes are searched once, not once for what it is and
//! again for what it computes. The detector reads its matches in the
//! order a search of its own would report them; the signals' are noted
//! as they pass, with no buffer of matches between the two.

use aho_corasick::AhoCorasick;

use super::detect::{Detector, Scanned};
use super::signals::Signals;

/// The automaton of both pattern lists: the detector's markers first, then
/// the signals' content patterns.
pub struct OnePass {
    ac: AhoCorasick,
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

    /// Search `prefix` once: what the detector reads in it (see
    /// [`Detector::scan`]), and in `seen` which content patterns occur
    /// (one flag per pattern, for [`Signals::best_seen`]). The detector
    /// takes its matches as the search reports them, the signals' are
    /// noted on the way.
    pub fn scan(
        &self,
        (detector, signals): (&Detector, &Signals),
        path: &str,
        prefix: &[u8],
        seen: &mut Vec<bool>,
    ) -> Scanned {
        seen.clear();
        seen.resize(signals.patterns().len(), false);
        // The detector's matches pass; the signals' are noted and dropped.
        let mut found = self.ac.find_overlapping_iter(prefix).filter(|m| {
            let Some(k) = m.pattern().as_usize().checked_sub(self.markers) else {
                return true;
            };
            signals.note(seen, prefix, &aho_corasick::Match::must(k, m.span()));
            false
        });
        let scanned = detector.scan_found(path, prefix, found.by_ref());
        // Whatever the detector left unread still says what the file computes.
        found.for_each(drop);
        scanned
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
        let mut seen = Vec::new();
        for &(path, text) in samples {
            let prefix = text.as_bytes();
            let one = pass.scan((&detector, &signals), path, prefix, &mut seen);
            let two = detector.scan(path, prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
            let kind = two.kind.unwrap_or(Kind::Scalar);
            let one = signals.best_seen(path, Some(kind), prefix, &seen);
            let two = signals.best(path, Some(kind), prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
        }
        // The samples do reach both sides, so the comparison means something.
        let (path, text) = samples[0];
        let cuda = pass.scan((&detector, &signals), path, text.as_bytes(), &mut seen);
        assert_eq!(cuda.kind, Some(Kind::Cuda));
        assert!(seen.iter().any(|&s| s));
        let best = signals.best_seen(path, Some(Kind::Cuda), text.as_bytes(), &seen);
        assert!(
            best.is_some(),
            "the softmax kernel is placed by what it computes"
        );
    }
}
