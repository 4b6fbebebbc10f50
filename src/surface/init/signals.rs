//! The detection signals (signals.toml, compiled in) that map a kernel file
//! to a catalog op by its name, its directories and its content, and the
//! scoring that picks the best op with the evidence for it.

use aho_corasick::AhoCorasick;
use serde::{Deserialize, Serialize};

use super::detect::Kind;
use crate::matrix::Matrix;

/// The signals file's text.
pub const TEXT: &str = include_str!("signals.toml");

const NAME_POINTS: u32 = 40;
const NAME_MORE: u32 = 5;
/// A name signal that matches the name's first token names the op itself.
const HEAD_BONUS: u32 = 10;
const DIR_POINTS: u32 = 30;
const DIR_MORE: u32 = 5;
const CONTENT_POINTS: u32 = 10;
const CONTENT_CAP: usize = 3;
const KIND_BONUS: u32 = 10;
const FALLBACK_POINTS: u32 = 15;
/// The least score that places a file in an op.
pub const THRESHOLD: u32 = 30;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    signal: Vec<RawSignal>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSignal {
    op: String,
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    dirs: Vec<String>,
    #[serde(default)]
    content: Vec<String>,
    #[serde(default)]
    kinds: Vec<String>,
    #[serde(default)]
    fallback: Vec<String>,
}

/// One token pattern: a run of tokens, the last may be a prefix.
#[derive(Clone, Debug)]
struct Pattern {
    text: String,
    tokens: Vec<(String, bool)>,
}

impl Pattern {
    fn new(text: &str) -> Pattern {
        let tokens = text
            .split('_')
            .filter(|t| !t.is_empty())
            .map(|t| match t.strip_suffix('*') {
                Some(p) => (p.to_ascii_lowercase(), true),
                None => (t.to_ascii_lowercase(), false),
            })
            .collect();
        Pattern {
            text: text.to_owned(),
            tokens,
        }
    }

    /// The index of the first token where the pattern matches.
    fn find(&self, tokens: &[String]) -> Option<usize> {
        let n = self.tokens.len();
        if n == 0 || tokens.len() < n {
            return None;
        }
        tokens.windows(n).position(|w| {
            w.iter().zip(&self.tokens).all(|(t, (p, prefix))| {
                if *prefix {
                    t.starts_with(p.as_str())
                } else {
                    t == p
                }
            })
        })
    }
}

/// One op's compiled signals.
#[derive(Clone, Debug)]
pub struct OpSignals {
    pub slug: String,
    names: Vec<Pattern>,
    dirs: Vec<Pattern>,
    kinds: Vec<Kind>,
    fallback: Vec<Kind>,
}

/// Every op's signals, for the ops that exist in a catalog.
pub struct Signals {
    pub ops: Vec<OpSignals>,
    /// First token of an exact name pattern → the ops that have one, so a
    /// file is only tried against ops one of its tokens can start.
    name_first: std::collections::HashMap<String, Vec<usize>>,
    dir_first: std::collections::HashMap<String, Vec<usize>>,
    /// Ops with a name / directory pattern whose first token is a prefix.
    name_any: Vec<usize>,
    dir_any: Vec<usize>,
    content_ac: AhoCorasick,
    content_text: Vec<String>,
    /// For each content pattern, the ops (indices) that use it.
    content_owners: Vec<Vec<usize>>,
}

/// Why a file went to an op.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "signal", content = "matched")]
pub enum Evidence {
    /// A file-name token matched.
    Name(String),
    /// A directory-name token matched.
    Dir(String),
    /// A substring of the content matched.
    Content(String),
    /// The op applies to this kernel kind only.
    Kind(String),
    /// No op had evidence; this op is the default for the kind.
    Fallback(String),
    /// The matrix row already covers a file beside this one with the same name stem.
    Neighbour(String),
    /// No signal placed the file; the repository is the catalog's own
    /// reference for this op (a weak default).
    OwnReference(String),
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Evidence::Name(s) => write!(f, "name `{s}`"),
            Evidence::Dir(s) => write!(f, "directory `{s}`"),
            Evidence::Content(s) => write!(f, "content `{s}`"),
            Evidence::Kind(s) => write!(f, "{s} file"),
            Evidence::Fallback(s) => write!(f, "default op for {s} files"),
            Evidence::Neighbour(s) => write!(f, "the row already covers {s}"),
            Evidence::OwnReference(s) => {
                write!(f, "this repository is the catalog's reference for {s}")
            }
        }
    }
}

/// Whether a file's placement rests on weak evidence only: no file-name
/// and no content signal (a directory alone, a backend op's default, the
/// file's kind). The draft says so, for the team to check.
pub fn is_weak(evidence: &[Evidence]) -> bool {
    !evidence
        .iter()
        .any(|e| matches!(e, Evidence::Name(_) | Evidence::Content(_)))
}

/// One candidate op for a file.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Index into [`Signals::ops`].
    pub op: usize,
    pub score: u32,
    /// The part of the score that file-name signals earned; it ranks first.
    pub name_score: u32,
    /// How near and how specific the best directory match is; ranks second.
    pub dir_rank: u32,
    pub evidence: Vec<Evidence>,
}

/// Name tokens (detect's: it sorts infrastructure by them too).
pub use super::detect::tokens;

/// The file name without its last extension (and without `.tmpl`-like
/// double extensions' first part kept): `fattn-vec.cuh` → `fattn-vec`.
pub fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// A file's name tokens and its directories' tokens.
struct FileTokens<'a> {
    name: &'a [String],
    dirs: &'a [Vec<String>],
}

/// Names rank first: the file says what it is. Among names, one that
/// starts the file name, and a longer (more specific) pattern, rank higher
/// (`fattn-mma` is attention, not MMA; `mul_mat_id` is grouped GEMM, not
/// `mul_mat`).
fn name_points(op: &OpSignals, name: &[String], evidence: &mut Vec<Evidence>) -> u32 {
    let mut score = 0;
    let mut head = false;
    let mut longest = 0;
    for p in &op.names {
        if let Some(at) = p.find(name) {
            score += if score == 0 { NAME_POINTS } else { NAME_MORE };
            head |= at == 0;
            longest = longest.max(p.tokens.len() as u32);
            evidence.push(Evidence::Name(p.text.clone()));
        }
    }
    if head {
        score += HEAD_BONUS;
    }
    if longest > 1 {
        score += 3 * (longest - 1);
    }
    score
}

/// Directories: the nearer the file, and the more tokens, the more
/// specific (`mla_decode/` over `attention/`). The score and the rank.
fn dir_points(op: &OpSignals, dirs: &[Vec<String>], evidence: &mut Vec<Evidence>) -> (u32, u32) {
    let mut score = 0;
    let mut dir_hit = false;
    let mut dir_rank = 0;
    for p in &op.dirs {
        let hit = dirs
            .iter()
            .enumerate()
            .filter_map(|(depth, t)| p.find(t).map(|at| (depth, at)))
            .next_back();
        if let Some((depth, at)) = hit {
            score += if dir_hit { DIR_MORE } else { DIR_POINTS };
            dir_hit = true;
            let rank = 4 * depth as u32 + 2 * u32::from(at == 0) + p.tokens.len() as u32;
            dir_rank = dir_rank.max(rank);
            evidence.push(Evidence::Dir(p.text.clone()));
        }
    }
    (score, dir_rank)
}

impl Signals {
    /// The signals of the ops that exist in `catalog` (others are skipped,
    /// so a signal never proposes an op the catalog cannot describe).
    pub fn for_catalog(catalog: &Matrix) -> Signals {
        let raw: RawFile =
            toml::from_str(TEXT).expect("signals.toml is held valid by its unit test");
        let mut ops = Vec::new();
        let mut content_text: Vec<String> = Vec::new();
        let mut content_owners: Vec<Vec<usize>> = Vec::new();
        for s in raw.signal {
            if catalog.op(&s.op).is_none() {
                continue;
            }
            let i = ops.len();
            for c in &s.content {
                let k = match content_text.iter().position(|t| t == c) {
                    Some(k) => k,
                    None => {
                        content_text.push(c.clone());
                        content_owners.push(Vec::new());
                        content_text.len() - 1
                    }
                };
                content_owners[k].push(i);
            }
            let kind = |n: &String| Kind::parse(n).expect("kinds are held valid by the unit test");
            ops.push(OpSignals {
                slug: s.op,
                names: s.names.iter().map(|n| Pattern::new(n)).collect(),
                dirs: s.dirs.iter().map(|n| Pattern::new(n)).collect(),
                kinds: s.kinds.iter().map(kind).collect(),
                fallback: s.fallback.iter().map(kind).collect(),
            });
        }
        let content_ac = AhoCorasick::new(&content_text).expect("literal patterns");
        let mut name_first: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut dir_first: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let (mut name_any, mut dir_any) = (Vec::new(), Vec::new());
        for (i, op) in ops.iter().enumerate() {
            for (patterns, first, any) in [
                (&op.names, &mut name_first, &mut name_any),
                (&op.dirs, &mut dir_first, &mut dir_any),
            ] {
                for p in patterns {
                    match p.tokens.first() {
                        Some((t, false)) => {
                            let v = first.entry(t.clone()).or_default();
                            if v.last() != Some(&i) {
                                v.push(i);
                            }
                        }
                        Some((_, true)) if any.last() != Some(&i) => any.push(i),
                        _ => {}
                    }
                }
            }
        }
        Signals {
            ops,
            name_first,
            dir_first,
            name_any,
            dir_any,
            content_ac,
            content_text,
            content_owners,
        }
    }

    /// The op index with this slug.
    pub fn position(&self, slug: &str) -> Option<usize> {
        self.ops.iter().position(|o| o.slug == slug)
    }

    /// Every op with evidence for this file, best first (ties keep the
    /// order of signals.toml). `kind` is the file's kernel kind, if known.
    pub fn rank(&self, path: &str, kind: Option<Kind>, prefix: &[u8]) -> Vec<Candidate> {
        let name_tokens = tokens(stem(path));
        let dir_tokens: Vec<Vec<String>> = path
            .split('/')
            .take(path.matches('/').count())
            .map(tokens)
            .collect();
        let content_hits = self.content_hits(prefix);
        let (may_name, may_dir) = self.may_match(&name_tokens, &dir_tokens);
        let file = FileTokens {
            name: &name_tokens,
            dirs: &dir_tokens,
        };
        let mut out = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            if !op.kinds.is_empty() && !kind.is_some_and(|k| op.kinds.contains(&k)) {
                continue;
            }
            if !may_name[i] && !may_dir[i] && content_hits[i].is_empty() {
                continue;
            }
            let hints = (may_name[i], may_dir[i], content_hits[i].as_slice());
            out.extend(self.score_op(i, op, &file, hints, kind));
        }
        self.fall_back(&mut out, kind);
        out.sort_by(|a, b| {
            b.name_score
                .cmp(&a.name_score)
                .then(b.dir_rank.cmp(&a.dir_rank))
                .then(b.score.cmp(&a.score))
                .then(a.op.cmp(&b.op))
        });
        out
    }

    /// For each op, the content patterns found in the file's prefix.
    fn content_hits(&self, prefix: &[u8]) -> Vec<Vec<usize>> {
        let mut hits: Vec<Vec<usize>> = vec![Vec::new(); self.ops.len()];
        if self.content_text.is_empty() {
            return hits;
        }
        let mut seen = vec![false; self.content_text.len()];
        for m in self.content_ac.find_overlapping_iter(prefix) {
            let k = m.pattern().as_usize();
            if !seen[k] {
                seen[k] = true;
                for &op in &self.content_owners[k] {
                    hits[op].push(k);
                }
            }
        }
        hits
    }

    /// Which ops' name and directory patterns may match, by first token.
    fn may_match(&self, name: &[String], dirs: &[Vec<String>]) -> (Vec<bool>, Vec<bool>) {
        let mut may_name = vec![false; self.ops.len()];
        let mut may_dir = vec![false; self.ops.len()];
        for &i in &self.name_any {
            may_name[i] = true;
        }
        for &i in &self.dir_any {
            may_dir[i] = true;
        }
        for t in name {
            for &i in self.name_first.get(t).into_iter().flatten() {
                may_name[i] = true;
            }
        }
        for t in dirs.iter().flatten() {
            for &i in self.dir_first.get(t).into_iter().flatten() {
                may_dir[i] = true;
            }
        }
        (may_name, may_dir)
    }

    /// One op's score for a file: names first, then directories, then
    /// content (only beside a name or directory, or for a kind-bound op).
    fn score_op(
        &self,
        i: usize,
        op: &OpSignals,
        file: &FileTokens<'_>,
        (may_name, may_dir, content): (bool, bool, &[usize]),
        kind: Option<Kind>,
    ) -> Option<Candidate> {
        let mut evidence = Vec::new();
        let name_score = if may_name {
            name_points(op, file.name, &mut evidence)
        } else {
            0
        };
        let (dir_score, dir_rank) = if may_dir {
            dir_points(op, file.dirs, &mut evidence)
        } else {
            (0, 0)
        };
        let mut score = name_score + dir_score;
        // Content alone is too weak for a general op (a dispatcher
        // mentions every op); it counts beside a name or a directory, or
        // for an op bound to the file's kind.
        if score > 0 || !op.kinds.is_empty() {
            let mut hits = content.to_vec();
            hits.sort_unstable();
            for k in hits.into_iter().take(CONTENT_CAP) {
                score += CONTENT_POINTS;
                evidence.push(Evidence::Content(self.content_text[k].clone()));
            }
        }
        if score > 0 && !op.kinds.is_empty() {
            score += KIND_BONUS;
            if let Some(k) = kind {
                evidence.push(Evidence::Kind(k.name().to_owned()));
            }
        }
        (score > 0).then_some(Candidate {
            op: i,
            score,
            name_score,
            dir_rank,
            evidence,
        })
    }

    /// When no op has enough evidence, the op bound to the file's kind as
    /// a fallback (if one is).
    fn fall_back(&self, out: &mut Vec<Candidate>, kind: Option<Kind>) {
        if out.iter().any(|c| c.score >= THRESHOLD) {
            return;
        }
        let Some(k) = kind else { return };
        if let Some(i) = self.ops.iter().position(|o| o.fallback.contains(&k)) {
            out.retain(|c| c.op != i);
            out.push(Candidate {
                op: i,
                score: FALLBACK_POINTS + THRESHOLD,
                name_score: 0,
                dir_rank: 0,
                evidence: vec![Evidence::Fallback(k.name().to_owned())],
            });
        }
    }

    /// The best op for a file, when it has enough evidence.
    pub fn best(&self, path: &str, kind: Option<Kind>, prefix: &[u8]) -> Option<Candidate> {
        self.rank(path, kind, prefix)
            .into_iter()
            .next()
            .filter(|c| c.score >= THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawFile {
        toml::from_str(TEXT).unwrap()
    }

    #[test]
    fn every_signal_names_a_catalog_op_and_valid_kinds() {
        let catalog = Matrix::catalog();
        let mut seen = std::collections::HashSet::new();
        for s in raw().signal {
            assert!(
                catalog.op(&s.op).is_some(),
                "signals.toml: `{}` is not a catalog slug",
                s.op
            );
            assert!(seen.insert(s.op.clone()), "signals.toml: `{}` twice", s.op);
            for k in s.kinds.iter().chain(&s.fallback) {
                assert!(
                    Kind::parse(k).is_some(),
                    "signals.toml: {}: unknown kind `{k}`",
                    s.op
                );
            }
        }
        let signals = Signals::for_catalog(&catalog);
        assert_eq!(signals.ops.len(), seen.len());
    }

    #[test]
    fn tokens_split_names_like_an_engineer_reads_them() {
        assert_eq!(tokens("fattn-mma_f16"), ["fattn", "mma", "f16"]);
        assert_eq!(tokens("FlashAttention"), ["flash", "attention"]);
        assert_eq!(tokens("mul_mat_vec_q4_k"), ["mul", "mat", "vec", "q4", "k"]);
        assert_eq!(stem("a/b/rms_norm.cu"), "rms_norm");
    }

    #[test]
    fn files_go_to_the_op_their_name_says() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let best = |p: &str, k: Option<Kind>| s.best(p, k, b"").map(|c| s.ops[c.op].slug.clone());
        let cases = [
            ("src/ggml-cuda/fattn-tile.cu", Kind::Cuda, "fused-attention"),
            // The vector kernel is ggml's decode path.
            (
                "src/ggml-cuda/fattn-vec.cuh",
                Kind::Cuda,
                "decode-attention",
            ),
            (
                "t/fattn-mma-f16-instance-ncols1_2.cu",
                Kind::Cuda,
                "fused-attention",
            ),
            ("shaders/mul_mat_id_vec.wgsl", Kind::Wgsl, "grouped-gemm"),
            (
                "gemm/fp4_gemm_cutlass_template.h",
                Kind::Cutlass,
                "fp4-gemm",
            ),
            ("deep_gemm/scheduler.cuh", Kind::Cuda, "fp8-gemm"),
            (
                "kernels/mla_decode/tmem_o.py",
                Kind::CuteDsl,
                "mla-attention",
            ),
            (
                "attention/mla_decode/x2/resources.py",
                Kind::CuteDsl,
                "mla-attention",
            ),
            ("trt/deep_gemm/utils.cuh", Kind::Cuda, "fp8-gemm"),
            ("shaders/argsort.comp", Kind::Vulkan, "radix-sort"),
        ];
        for (path, kind, op) in cases {
            assert_eq!(best(path, Some(kind)).as_deref(), Some(op), "{path}");
        }
        assert_eq!(
            best("kernels/rms_norm.cu", Some(Kind::Cuda)).as_deref(),
            Some("normalization")
        );
        assert_eq!(
            best("shaders/mul_mat_vec_q4_k.comp", Some(Kind::Vulkan)).as_deref(),
            Some("quantized-device-gemm")
        );
        // What a shader computes before the API it is written in.
        assert_eq!(
            best("shaders/add.comp", Some(Kind::Vulkan)).as_deref(),
            Some("elementwise")
        );
        assert_eq!(
            best("shaders/coopmat.comp", Some(Kind::Vulkan)).as_deref(),
            Some("vulkan-compute")
        );
        assert_eq!(
            best("metal/mul_mm.metal", Some(Kind::Metal)).as_deref(),
            Some("metal-quant-gemm")
        );
        // The classes most kernel files are have ops of their own.
        assert_eq!(
            best("kernels/unary.cu", Some(Kind::Cuda)).as_deref(),
            Some("elementwise")
        );
        // Name tokens that meant another op: a radix FFT is an FFT, a GELU
        // is element-wise (not gated), a gradient norm is the optimizer's,
        // a top-k kernel selects (it does not sample), a pool of buffers
        // is no pooling.
        for (path, op) in [
            ("fft/radix4_fft.h", Some("fft")),
            ("llmc/gelu.cuh", Some("elementwise")),
            ("llmc/global_norm.cuh", Some("optimizer-step")),
            ("quack/topk.py", Some("topk-selection")),
            ("dev/cuda/permute.cu", Some("copy-cast-layout")),
            ("ops/jsd.py", Some("fused-losses")),
        ] {
            assert_eq!(best(path, Some(Kind::Cuda)).as_deref(), op, "{path}");
        }
        assert_eq!(best("kernels/radix.cuh", Some(Kind::Cuda)), None);
    }
}
