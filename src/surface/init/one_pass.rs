//! One pass over each file's prefix in `init`'s scan. The detector's
//! markers and the signals' content patterns are one automaton here, so a
//! kernel file's bytes are searched once, not once for what it is and
//! again for what it computes. The detector reads its matches in the
//! order a search of its own would report them; the signals' are noted
//! as they pass and not kept.

use aho_corasick::Match;

use super::detect::{Detector, Scanned};
use super::lanes::{LaneMatches, Lanes};
use super::signals::Signals;

/// The automaton of both pattern lists: the detector's markers first, then
/// the signals' content patterns.
pub struct OnePass {
    lanes: Lanes,
    markers: usize,
}

/// What one scanning thread reuses from file to file.
#[derive(Default)]
pub struct PassBuffers {
    /// One flag per content pattern: whether it occurs in the last file.
    pub seen: Vec<bool>,
    found: LaneMatches,
}

impl OnePass {
    pub fn new(detector: &Detector, signals: &Signals) -> OnePass {
        let markers: Vec<&str> = detector.patterns().collect();
        let content = signals.patterns().iter().map(String::as_str);
        OnePass {
            markers: markers.len(),
            lanes: Lanes::new(markers.iter().copied().chain(content)),
        }
    }

    /// Search `prefix` once: what the detector reads in it (see
    /// [`Detector::scan`]), and in `buffers.seen` which content patterns
    /// occur (one flag per pattern, for [`Signals::best_seen`]).
    pub fn scan(
        &self,
        (detector, signals): (&Detector, &Signals),
        path: &str,
        prefix: &[u8],
        buffers: &mut PassBuffers,
    ) -> Scanned {
        let PassBuffers { seen, found } = buffers;
        seen.clear();
        seen.resize(signals.patterns().len(), false);
        // The detector's matches are kept; the signals' are noted and dropped.
        let markers = self.markers;
        let kept = self.lanes.find_overlapping(prefix, found, |m| {
            let Some(k) = m.pattern().as_usize().checked_sub(markers) else {
                return true;
            };
            signals.note(seen, prefix, &Match::must(k, m.span()));
            false
        });
        detector.scan_found(path, prefix, kept)
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
        let mut buffers = PassBuffers::default();
        for &(path, text) in samples {
            let prefix = text.as_bytes();
            let one = pass.scan((&detector, &signals), path, prefix, &mut buffers);
            let two = detector.scan(path, prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
            let kind = two.kind.unwrap_or(Kind::Scalar);
            let one = signals.best_seen(path, Some(kind), prefix, &buffers.seen);
            let two = signals.best(path, Some(kind), prefix);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{path}");
        }
        // The samples do reach both sides, so the comparison means something.
        let (path, text) = samples[0];
        let cuda = pass.scan((&detector, &signals), path, text.as_bytes(), &mut buffers);
        assert_eq!(cuda.kind, Some(Kind::Cuda));
        assert!(buffers.seen.iter().any(|&s| s));
        let best = signals.best_seen(path, Some(Kind::Cuda), text.as_bytes(), &buffers.seen);
        assert!(
            best.is_some(),
            "the softmax kernel is placed by what it computes"
        );
    }
}
