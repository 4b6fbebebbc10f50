//! The detection signals (signals.toml, compiled in) that map a kernel file
//! to a catalog op by its name, its directories and its content, and the
//! scoring that picks the best op with the evidence for it.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, Match};
use serde::{Deserialize, Serialize};

use super::call_args::{self, ArgPattern};
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
/// A computation signature (every group of it found in the content)
/// places a file on its own and outranks names: what the code computes
/// before a word in its name. Each group adds [`COMPUTE_MORE`].
const COMPUTE_POINTS: u32 = 60;
const COMPUTE_MORE: u32 = 10;
/// The least score that places a file in an op.
pub const THRESHOLD: u32 = 30;
/// The rank of a folder's name read for a backend-named file: above any
/// directory signal (the nearest directory, said as an op name).
const FOLDER_RANK: u32 = 1000;

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
    /// Names that say this op only beside one of its `content` patterns
    /// (`activation` is a gated activation where `silu_and_mul` is, an
    /// elementwise one elsewhere).
    #[serde(default)]
    names_with_content: Vec<String>,
    #[serde(default)]
    dirs: Vec<String>,
    /// Directories that say this op only beside one of its `content`
    /// patterns (`sparse/` is sparse attention where attention code is, a
    /// sparse matrix or a sparse tile elsewhere).
    #[serde(default)]
    dirs_with_content: Vec<String>,
    #[serde(default)]
    content: Vec<String>,
    /// Among its names and directories, the words that say only the
    /// op's family (`loss`): they place a file, but another op's
    /// computation signature that covers this op does not confirm it on
    /// them alone (a `*_loss.py` computing a cross-entropy is one).
    #[serde(default)]
    family: Vec<String>,
    #[serde(default)]
    kinds: Vec<String>,
    #[serde(default)]
    fallback: Vec<String>,
    /// A backend op (a language, an ISA, a DSL): it names how a file is
    /// written, not what it computes, so any other op's evidence outranks it.
    #[serde(default)]
    backend: bool,
    /// A family so broad (integer quantization) that any other op's
    /// evidence outranks it, as a backend's does.
    #[serde(default)]
    general: bool,
    /// Its name and directory tokens say this op only on GPU code: on CPU
    /// code the same token names something else (Arm's `mla` instruction,
    /// in every KleidiAI and Compute Library kernel name, is a
    /// multiply-accumulate, not latent attention).
    #[serde(default)]
    gpu_names: bool,
    #[serde(default)]
    computes: Vec<RawCompute>,
    /// The more general op this one narrows (int8-gemm narrows
    /// dense-gemm): with `qualifiers`, see [`Signals::refine`].
    #[serde(default)]
    refines: Option<String>,
    /// File-name tokens that narrow the general op's name to this one
    /// (`a8w8` in `gemm_a8w8`); they count only beside the general op's
    /// own name evidence.
    #[serde(default)]
    qualifiers: Vec<String>,
    /// Refinements of the same general op this one ranks before when the
    /// file's name narrows to both (a grouped GEMM in FP8 is a grouped
    /// GEMM): see [`Signals::refine`].
    #[serde(default)]
    outranks: Vec<String>,
    /// Ops this one is a step of rather than a layer of its own: a file
    /// its name places, in a directory of one of them, is part of that op
    /// (a softmax in `flash_attn/`, im2col's `sgemm` in `conv/`, a GEMM's
    /// packing in `matmul/pack/`). See
    /// [`Signals::whole_before_its_step`].
    #[serde(default)]
    step_of: Vec<String>,
    /// The wholes of `step_of` whose name beside this op's makes a file
    /// part of them (`sgemm_4x4_deconv.S`); for the others only their
    /// directory does. See [`Signals::whole_before_its_step`].
    #[serde(default)]
    step_of_by_name: Vec<String>,
}

/// A computation signature: what the code does, as groups of literal
/// alternatives (`a|b|c`) that must all occur in the content.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompute {
    /// What it recognises, for the draft's comment (`online softmax`).
    what: String,
    all: Vec<String>,
    /// Other ops that compute the same thing more specifically: a file
    /// whose name or directory says one of them keeps that op (a decode
    /// kernel's online softmax is still decode attention).
    #[serde(default)]
    covers: Vec<String>,
    /// A building block of many ops (a scan, a sort, random numbers): it
    /// places a file only when nothing else does, as weak evidence.
    #[serde(default)]
    part: bool,
    /// Identifiers one call of the first group must take in its argument
    /// (`- *max*`: after a minus sign), where the identifiers alone are
    /// shared with other computations: a softmax exponentiates a
    /// difference from the max, a quantizer a rounded log.
    #[serde(default)]
    argument: Vec<String>,
}

/// One compiled computation signature.
#[derive(Clone, Debug)]
struct Compute {
    what: String,
    /// Per group, the content pattern indices of its alternatives.
    groups: Vec<Vec<usize>>,
    /// The op it places a file in, and the ops it confirms.
    owner: usize,
    covers: Vec<usize>,
    part: bool,
    /// The first group's alternatives, the calls whose argument is read.
    callees: Vec<String>,
    argument: Vec<ArgPattern>,
}

impl Compute {
    /// Every group found in the content, and the argument the signature
    /// asks of its first group's calls, if it asks one.
    fn found(&self, seen: &[bool], prefix: &[u8]) -> bool {
        self.groups.iter().all(|g| g.iter().any(|&k| seen[k]))
            && (self.argument.is_empty()
                || call_args::any_call_takes(prefix, &self.callees, &self.argument))
    }
}

/// One token pattern: a run of tokens, the last may be a prefix.
#[derive(Clone, Debug)]
struct Pattern {
    text: String,
    tokens: Vec<(String, bool)>,
    /// The tokens that must be written out (`topk` of `topk_*`): what the
    /// pattern says, for ranking names.
    literal: Vec<String>,
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
            .collect::<Vec<_>>();
        let literal = tokens
            .iter()
            .filter(|(t, _)| !t.is_empty())
            .map(|(t, _)| t.clone())
            .collect();
        Pattern {
            text: text.to_owned(),
            tokens,
            literal,
        }
    }

    /// The index of the first token where the pattern matches.
    fn find(&self, tokens: &[String]) -> Option<usize> {
        self.find_tokens(tokens, false)
    }

    /// As [`Pattern::find`]; with `numbers`, in a file name, where a word
    /// may carry its number (`winograd3`, `conv3x3s2`). Directories do not
    /// read so: `blas1/` is BLAS level 1, not a GEMM.
    fn find_tokens(&self, tokens: &[String], numbers: bool) -> Option<usize> {
        let n = self.tokens.len();
        if n == 0 || tokens.len() < n {
            return None;
        }
        tokens.windows(n).position(|w| {
            w.iter().zip(&self.tokens).all(|(t, (p, prefix))| {
                if *prefix {
                    t.starts_with(p.as_str()) && !is_word_of_its_own(t, p)
                } else {
                    t == p || numbers && numbers_word(t, p)
                }
            })
        })
    }
}

/// The word a token numbers (`winograd` of `winograd3`, `conv` of
/// `conv3x3s2`): at least four letters, then a digit. Shorter words keep
/// their number (`fa3`, `sm90`, `avx2`, `nvfp4` is written out in full).
fn numbered(token: &str) -> Option<&str> {
    let at = token.bytes().position(|b| b.is_ascii_digit())?;
    (at >= NUMBERED_WORD && token.bytes().take(at).all(|b| b.is_ascii_lowercase()))
        .then(|| &token[..at])
}

/// The word a token versions (`flashattention` of `flashattentionv2`,
/// `fmha` of `fmhav3`): a numbered word whose last letter is a `v` and
/// that is still a word without it.
fn versioned(token: &str) -> Option<&str> {
    numbered(token)?
        .strip_suffix('v')
        .filter(|w| w.len() >= NUMBERED_WORD)
}

/// Whether `token` is `word` and then its number (`numbered(token) ==
/// Some(word)`), checked from `word`'s end without scanning the token:
/// the name matcher asks this for every pattern it tries.
fn numbers_word(token: &str, word: &str) -> bool {
    let rest = token.as_bytes().get(word.len()..).unwrap_or_default();
    let number = match rest {
        [b'v', d, ..] if !word.ends_with('v') => d,
        [d, ..] => d,
        [] => return false,
    };
    word.len() >= NUMBERED_WORD
        && number.is_ascii_digit()
        && token.starts_with(word)
        && word.bytes().all(|b| b.is_ascii_lowercase())
}

/// The fewest letters a word needs to be read apart from its number.
const NUMBERED_WORD: usize = 4;

/// Words that begin with an op's prefix pattern but name something else:
/// `gemm*` takes `gemm1`, `gemmk`, `gemms`, not the Gemma model family
/// (`token_embedding_gemma.h`).
const WORDS_OF_THEIR_OWN: &[&str] = &["gemma"];

/// Whether `token` is a word of its own that merely starts with `prefix`.
fn is_word_of_its_own(token: &str, prefix: &str) -> bool {
    token.len() > prefix.len()
        && WORDS_OF_THEIR_OWN.iter().any(|w| {
            token
                .strip_prefix(w)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// One op's compiled signals.
#[derive(Clone, Debug)]
pub struct OpSignals {
    pub slug: String,
    names: Vec<Pattern>,
    names_with_content: Vec<Pattern>,
    dirs: Vec<Pattern>,
    dirs_with_content: Vec<Pattern>,
    /// Name and directory words that say only the op's family.
    family: Vec<String>,
    kinds: Vec<Kind>,
    fallback: Vec<Kind>,
    /// A backend, or a `general` op (int-quant): every rule that yields to
    /// a backend yields to it too — ranking, and reading a CPU file's
    /// folder when only such an op's name matched.
    pub backend: bool,
    /// A `general` op (int-quant): ranked like a backend, but it does say
    /// what a file computes.
    pub general: bool,
    /// The op this one narrows, and the name tokens that narrow it.
    refines: Option<usize>,
    qualifiers: Vec<Pattern>,
    /// The sibling refinements it ranks before (see `outranks` in
    /// signals.toml).
    outranks: Vec<usize>,
    /// Its names, directories and qualifiers do not count on CPU code.
    gpu_names: bool,
    /// The ops this one is a step of (see `step_of` in signals.toml).
    step_of: Vec<usize>,
    /// The wholes whose name beside this op's makes a file theirs (see
    /// `step_of_by_name` in signals.toml).
    step_of_by_name: Vec<usize>,
}

impl OpSignals {
    /// An instruction-set backend op (x86, Arm): the default for CPU SIMD
    /// files only.
    pub fn is_isa_backend(&self) -> bool {
        self.backend
            && !self.general
            && !self.fallback.is_empty()
            && self.fallback.iter().all(|k| k.is_cpu_simd())
    }

    /// Whether this op's name, directory and qualifier tokens count on a
    /// file of this kind (see `gpu_names`).
    fn names_count_on(&self, kind: Option<Kind>) -> bool {
        !(self.gpu_names && kind.is_some_and(|k| !k.is_gpu()))
    }
}

/// Every op's signals, for the ops that exist in a catalog.
pub struct Signals {
    pub ops: Vec<OpSignals>,
    /// First token of an exact name pattern → the ops that have one, so a
    /// file is only tried against ops one of its tokens can start.
    name_first: std::collections::HashMap<String, Vec<usize>>,
    dir_first: std::collections::HashMap<String, Vec<usize>>,
    /// A name / directory pattern's first token when it is a prefix
    /// (`getrf*`), with its op: tried on files with a token that starts so.
    name_any: Vec<(String, usize)>,
    dir_any: Vec<(String, usize)>,
    /// Built when first searched (`init`'s scan searches with
    /// [`super::one_pass`]'s automaton instead).
    content_ac: OnceLock<AhoCorasick>,
    content_text: Vec<String>,
    /// For each content pattern, the ops (indices) that use it.
    content_owners: Vec<Vec<usize>>,
    content_bound: Vec<Bound>,
    computes: Vec<Compute>,
    /// The op whose catalog reference is the repository being initialised
    /// (set by `init`): there every computation signature confirms it
    /// (ThunderKittens' MMA wrappers are the tile DSL; NumKong's AMX
    /// distance kernels are its distances). A backend stays a backend even
    /// there: a file whose name or directory says what it computes goes to
    /// that op (KleidiAI's `conv/` kernels are convolutions, not "Arm
    /// kernels"), the rest to the backend.
    pub own: Option<usize>,
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
    /// A computation signature matched: every part of what the op computes
    /// is in the content (`online softmax: exp, running max, rescaled sum`).
    Computes(String),
    /// Only a building block of many ops was found (a scan, a sort, random
    /// numbers) and nothing else placed the file: weak evidence.
    Part(String),
    /// The op applies to this kernel kind only.
    Kind(String),
    /// No op had evidence; this op is the default for the kind.
    Fallback(String),
    /// The name of a kernel the file defines (`__global__ void
    /// transpose_kernel`) matched, where the file's own name said nothing.
    Entry(String),
    /// The matrix row already covers a file beside this one with the same name stem.
    Neighbour(String),
    /// No signal placed the file; the repository is the catalog's own
    /// reference for this op (a weak default).
    OwnReference(String),
    /// Only weak evidence of its own; most of the files placed on their own
    /// evidence in its directory are in this op (`6 of 7 in quack/epilogue`).
    Neighbours(String),
    /// The name says a more general op (`gemm`) and a token narrows it to
    /// this one (`a8w8`): the general op's slug.
    Narrows(String),
    /// The kernel of the same name in a sibling model's directory is in
    /// this op (`src/cuda/cg.cpp` for `src/omp/cg.cpp`): its path.
    Twin(String),
    /// No op took the file; its name shares this word with other such
    /// files, and no placed file's name carries it: a family of the tree's
    /// own, drafted as a custom op (see `name_groups`).
    SharedName(String),
    /// Only an instruction-set backend op, or none, took the file; its
    /// name leads with this word, as do its ports to the other
    /// instruction sets beside it: one computation, drafted as one custom
    /// op (see `isa_families`).
    PerIsa(String),
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Evidence::Name(s) => write!(f, "name `{s}`"),
            Evidence::Dir(s) => write!(f, "directory `{s}`"),
            Evidence::Content(s) => write!(f, "content `{s}`"),
            Evidence::Computes(s) => write!(f, "computes {s}"),
            Evidence::Part(s) => write!(f, "computes {s} (a building block only)"),
            Evidence::Kind(s) => write!(f, "{s} file"),
            Evidence::Fallback(s) => write!(f, "default op for {s} files"),
            Evidence::Entry(s) => write!(f, "kernel name `{s}`"),
            Evidence::Neighbour(s) => write!(f, "the row already covers {s}"),
            Evidence::OwnReference(s) => {
                write!(f, "this repository is the catalog's reference for {s}")
            }
            Evidence::Neighbours(s) => write!(f, "{s} placed files beside it are in this op"),
            Evidence::Narrows(s) => write!(f, "narrows {s}, which the name also says"),
            Evidence::Twin(s) => write!(f, "its twin {s} is in this op"),
            Evidence::SharedName(s) => write!(f, "a name sharing `{s}` with files no op took"),
            Evidence::PerIsa(s) => {
                write!(f, "`{s}` written per instruction set, split by backend")
            }
        }
    }
}

/// Whether a file's placement rests on weak evidence only: no file-name,
/// content or computation signal (a directory alone, a backend op's
/// default, the file's kind, a building block alone). The draft says so, for the team to check.
pub fn is_weak(evidence: &[Evidence]) -> bool {
    !evidence.iter().any(|e| {
        matches!(
            e,
            Evidence::Name(_) | Evidence::Content(_) | Evidence::Computes(_)
        )
    })
}

/// One candidate op for a file.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Index into [`Signals::ops`].
    pub op: usize,
    pub score: u32,
    /// Groups of the most specific computation signature that places or
    /// confirms this op (0: none); it ranks first.
    pub compute_rank: u32,
    /// Whether the op is a backend (how the file is written); other ops rank
    /// before it.
    pub backend: bool,
    /// The longest run of written-out tokens a name pattern matched
    /// (`flash_decoding`: 2): among names, the most specific ranks first.
    pub name_run: u32,
    /// Whether the op is bound to the file's kind and says what it
    /// computes (metal-attention for a `.metal` file): among equally
    /// specific names, it ranks before the general op.
    pub kind_bound: bool,
    /// The part of the score that file-name signals earned; it ranks next.
    pub name_score: u32,
    /// The token where the file name first says this op (`u32::MAX`: it
    /// does not). Among names equal in every other way, the one said
    /// first names the computation and later ones its variant
    /// (`ck_conv_wmma` is a convolution built on WMMA).
    pub name_at: u32,
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
    /// The folder's tokens, read as names, when the file's own name says
    /// only how it is written (`q8avgpool/up8x9-neon.c`).
    folder: Option<&'a [String]>,
    /// The tokens of the kernels the file defines, read as names, when
    /// nothing else says what it computes (`main.hip` defining
    /// `matrix_transpose_kernel`); see [`entry_tokens`].
    entries: Option<&'a [String]>,
}

/// Whether the op's names match tokens read as names (a folder's, a
/// kernel's), each match recorded as `said` evidence. A kernel's name
/// numbers its word as a file's does (`conv3x3s1` says conv); a folder's
/// keeps its number (`blas1/`).
fn read_as_names(
    op: &OpSignals,
    (tokens, numbers): (Option<&[String]>, bool),
    said: fn(String) -> Evidence,
    evidence: &mut Vec<Evidence>,
) -> bool {
    let Some(tokens) = tokens else { return false };
    let mut found = Vec::new();
    if name_points(&op.names, (tokens, numbers), &mut found).0 == 0 {
        return false;
    }
    evidence.extend(found.into_iter().map(|e| match e {
        Evidence::Name(p) => said(p),
        other => other,
    }));
    true
}

/// The most kernels whose names a file's entries contribute.
const ENTRIES_AT_MOST: usize = 8;

/// The tokens of the kernels a file's prefix defines: CUDA / HIP
/// `__global__ … void NAME(`, Metal and OpenCL `kernel void NAME(`, a
/// Triton `@triton.jit` function's `def NAME(`; in a CPU SIMD source,
/// the functions it exports (see [`super::cpu_entries`]). Each name's
/// tokens are followed by `|`, which no pattern holds, so no run spans
/// two kernels.
fn entry_tokens(path: &str, kind: Option<Kind>, prefix: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(prefix);
    let mut out = Vec::new();
    if kind.is_some_and(Kind::is_cpu_simd) {
        for name in super::cpu_entries::names(path, &text, ENTRIES_AT_MOST) {
            out.extend(tokens(&name));
            out.push("|".to_owned());
        }
        return out;
    }
    let mut names = 0;
    for (marker, head) in [
        ("__global__", "void"),
        ("kernel void", ""),
        ("@triton.jit", "def"),
    ] {
        let mut rest = &text[..];
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let Some(name) = entry_name(rest, head) else {
                continue;
            };
            out.extend(tokens(name));
            out.push("|".to_owned());
            names += 1;
            if names == ENTRIES_AT_MOST {
                return out;
            }
        }
    }
    out
}

/// The identifier a kernel marker introduces: after `head` (a keyword
/// the declaration reaches within a few words, skipping qualifiers and
/// `__launch_bounds__(…)`), or the next identifier when `head` is empty.
fn entry_name<'t>(after: &'t str, head: &str) -> Option<&'t str> {
    let ident = |s: &'t str| -> Option<(&'t str, &'t str)> {
        let s = s.trim_start();
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        (end > 0).then(|| (&s[..end], &s[end..]))
    };
    let mut rest = after;
    if !head.is_empty() {
        let mut words = 0;
        loop {
            let (word, tail) = ident(rest)?;
            rest = tail;
            if word == head {
                break;
            }
            // `__launch_bounds__(256, 2)`: skip its arguments.
            if let Some(args) = rest.trim_start().strip_prefix('(') {
                rest = &args[args.find(')')? + 1..];
            }
            words += 1;
            if words == 4 {
                return None;
            }
        }
    }
    let (name, tail) = ident(rest)?;
    let opens = tail.trim_start().starts_with('(') || tail.trim_start().starts_with('<');
    (opens && !name.chars().next()?.is_ascii_digit()).then_some(name)
}

/// Whether the op's only evidence is its family words (`loss`): then a
/// covering signature does not confirm it, and the signature's owner,
/// the more specific op, wins.
fn only_family(op: &OpSignals, evidence: &[Evidence]) -> bool {
    !op.family.is_empty()
        && evidence.iter().all(|e| match e {
            Evidence::Name(w) | Evidence::Dir(w) => op.family.contains(w),
            _ => false,
        })
}

/// Whether the two best candidates rest on equally specific computations of
/// two ops and nothing else (no name, directory or content of their own).
fn contested(a: &Candidate, b: &Candidate) -> bool {
    let computes_only = |c: &Candidate| {
        c.evidence
            .iter()
            .all(|e| matches!(e, Evidence::Computes(_) | Evidence::Kind(_)))
    };
    b.score >= THRESHOLD
        && a.compute_rank > 0
        && a.compute_rank == b.compute_rank
        && a.backend == b.backend
        && computes_only(a)
        && computes_only(b)
}

/// The computation signatures that matched a file, for one op.
#[derive(Clone, Copy, Debug, Default)]
struct Computed<'a> {
    /// Groups of the most specific signature this op owns (0: none).
    owned: u32,
    owned_what: Option<&'a str>,
    /// Groups of the most specific signature that covers this op.
    covered: u32,
    covered_what: Option<&'a str>,
}

impl<'a> Computed<'a> {
    /// This op confirmed by every signature that matched (the repository's
    /// own op).
    fn confirmed_by(&self, all: &[Computed<'a>]) -> Computed<'a> {
        let mut out = *self;
        for c in all {
            for (rank, what) in [(c.owned, c.owned_what), (c.covered, c.covered_what)] {
                if rank > out.covered {
                    out.covered = rank;
                    out.covered_what = what;
                }
            }
        }
        out
    }

    /// A covering signature counts only for an op the file's own name,
    /// directory or content already points at.
    fn rank_for(&self, other_evidence: bool) -> u32 {
        if other_evidence {
            self.owned.max(self.covered)
        } else {
            self.owned
        }
    }

    fn what_for(&self, other_evidence: bool) -> Option<&str> {
        if other_evidence && self.covered > self.owned {
            self.covered_what
        } else {
            self.owned_what
        }
    }
}

/// Names rank first: the file says what it is. Among names, one that
/// starts the file name, and a longer (more specific) pattern, rank higher
/// (`fattn-mma` is attention, not MMA; `mul_mat_id` is grouped GEMM, not
/// `mul_mat`).
///
/// A wildcard token says nothing specific: `topk_*` is as specific as
/// `topk`, and the two matching one name say it once (`topk_softmax` is
/// MoE routing, not a top-k selection that matched twice).
fn name_points<'p>(
    patterns: impl IntoIterator<Item = &'p Pattern>,
    (name, numbers): (&[String], bool),
    evidence: &mut Vec<Evidence>,
) -> (u32, u32, u32) {
    let mut score = 0;
    let mut first = u32::MAX;
    let mut head = false;
    let mut longest = 0;
    let mut said: Vec<&[String]> = Vec::new();
    for p in patterns {
        if let Some(at) = p.find_tokens(name, numbers) {
            let literal = p.literal.as_slice();
            if !said.contains(&literal) {
                score += if score == 0 { NAME_POINTS } else { NAME_MORE };
                longest = longest.max(literal.len() as u32);
                said.push(literal);
            }
            head |= at == 0;
            first = first.min(at as u32);
            evidence.push(Evidence::Name(p.text.clone()));
        }
    }
    if head {
        score += HEAD_BONUS;
    }
    if longest > 1 {
        score += 3 * (longest - 1);
    }
    (score, longest, first)
}

/// [`qualifier_points`] of a directory's tokens, its evidence said as a
/// directory.
fn dir_qualifier_points(
    qualifiers: &[Pattern],
    dir: &[String],
    evidence: &mut Vec<Evidence>,
) -> u32 {
    let from = evidence.len();
    let narrow = qualifier_points(qualifiers, dir, evidence);
    for e in &mut evidence[from..] {
        if let Evidence::Name(p) = e {
            *e = Evidence::Dir(std::mem::take(p));
        }
    }
    narrow
}

/// Points for the qualifiers that narrow a general op, as names earn them
/// (a longer run is more specific), without the head bonus: the general
/// op's name already has it.
fn qualifier_points(qualifiers: &[Pattern], name: &[String], evidence: &mut Vec<Evidence>) -> u32 {
    let mut score = 0;
    let mut longest = 0;
    for q in qualifiers {
        if q.find(name).is_some() {
            score += if score == 0 { NAME_POINTS } else { NAME_MORE };
            longest = longest.max(q.tokens.len() as u32);
            evidence.push(Evidence::Name(q.text.clone()));
        }
    }
    if longest > 1 {
        score += 3 * (longest - 1);
    }
    score
}

/// Directories: the nearer the file, and the more tokens, the more
/// specific (`mla_decode/` over `attention/`). The score and the rank.
fn dir_points(
    patterns: &[&Pattern],
    dirs: &[Vec<String>],
    evidence: &mut Vec<Evidence>,
) -> (u32, u32) {
    let mut score = 0;
    let mut dir_hit = false;
    let mut dir_rank = 0;
    for p in patterns {
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

/// Whether a CPU kernel's name says at most how it is written: no op but
/// a backend's matched it (`up8x9-neon.c`, `8x8-neonfp16arith.c`). Such a
/// file's folder says what it computes (`q8avgpool/`, `sgemm/`: XNNPACK's
/// layout, one directory an op, one file a tile shape and an ISA). GPU
/// trees do not name files this way (`spec/tma.py` is no speculative
/// decoding).
fn names_only_backend(out: &[Candidate], kind: Option<Kind>) -> bool {
    let named = |backend: bool| out.iter().any(|c| c.backend == backend && c.name_score > 0);
    kind.is_some_and(|k| !k.is_gpu()) && !named(false)
}

/// The content patterns of every op and signature, each once.
#[derive(Default)]
struct Patterns {
    text: Vec<String>,
    /// Per pattern, the ops whose `content` list holds it.
    owners: Vec<Vec<usize>>,
    /// Per pattern, how it must stand in the text (see [`Bound`]).
    bound: Vec<Bound>,
}

/// How a content pattern must stand in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    /// Anywhere (an op's `content` list).
    Free,
    /// As whole identifiers (a signature's `m_i` is not the middle of
    /// `num_items`).
    Whole,
    /// As the start of an identifier (a signature's `nvshmem_*` is every
    /// `nvshmem_putmem`, `__builtin_amdgcn_mfma*` every MFMA builtin).
    Start,
}

impl Bound {
    /// Whether a match of `pattern` at `start..end` of `hay` stands so.
    fn admits(self, hay: &[u8], pattern: &[u8], start: usize, end: usize) -> bool {
        match self {
            Bound::Free => true,
            Bound::Whole => whole(hay, pattern, start, end),
            Bound::Start => !continued_left(hay, pattern, start),
        }
    }
}

impl Patterns {
    fn intern(&mut self, text: &str, bound: Bound) -> usize {
        match (0..self.text.len()).find(|&k| self.text[k] == text && self.bound[k] == bound) {
            Some(k) => k,
            None => {
                self.text.push(text.to_owned());
                self.owners.push(Vec::new());
                self.bound.push(bound);
                self.text.len() - 1
            }
        }
    }

    /// A signature's alternative: whole identifiers, or an identifier's
    /// start when it ends in `*`.
    fn intern_alternative(&mut self, alternative: &str) -> usize {
        match alternative.strip_suffix('*') {
            Some(start) => self.intern(start, Bound::Start),
            None => self.intern(alternative, Bound::Whole),
        }
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a match of `pattern` at `start..end` of `hay` stands as whole
/// identifiers: an end of the pattern that is an identifier character is
/// not continued by one in the text.
fn whole(hay: &[u8], pattern: &[u8], start: usize, end: usize) -> bool {
    let right = pattern.last().is_some_and(|&b| is_ident(b));
    let continued_right = right && end < hay.len() && is_ident(hay[end]);
    !continued_left(hay, pattern, start) && !continued_right
}

/// Whether a match of `pattern` at `start` of `hay` continues an
/// identifier that began before it.
fn continued_left(hay: &[u8], pattern: &[u8], start: usize) -> bool {
    let left = pattern.first().is_some_and(|&b| is_ident(b));
    left && start > 0 && is_ident(hay[start - 1])
}

/// The computation signatures, their alternatives interned as content
/// patterns; a `covers` slug the catalog lacks is skipped.
fn compile_computes(raw: &[RawSignal], ops: &[OpSignals], patterns: &mut Patterns) -> Vec<Compute> {
    let index = |slug: &str| ops.iter().position(|o| o.slug == slug);
    let mut out = Vec::new();
    for (owner, s) in raw.iter().enumerate() {
        for c in &s.computes {
            let groups = c
                .all
                .iter()
                .map(|g| {
                    g.split('|')
                        .filter(|a| !a.is_empty())
                        .map(|a| patterns.intern_alternative(a))
                        .collect()
                })
                .collect();
            out.push(Compute {
                what: c.what.clone(),
                groups,
                owner,
                covers: c.covers.iter().filter_map(|slug| index(slug)).collect(),
                part: c.part,
                // Read only by a signature that asks for an argument.
                callees: match c.argument.is_empty() {
                    true => Vec::new(),
                    false => c.all[0]
                        .split('|')
                        .filter(|a| !a.is_empty())
                        .map(str::to_string)
                        .collect(),
                },
                argument: c.argument.iter().map(|a| ArgPattern::parse(a)).collect(),
            });
        }
    }
    out
}

type FirstTokens = (
    std::collections::HashMap<String, Vec<usize>>,
    std::collections::HashMap<String, Vec<usize>>,
    Vec<(String, usize)>,
    Vec<(String, usize)>,
);

/// First token of each exact name / directory pattern → the ops that have
/// one, and each pattern whose first token is a prefix with its op (tried
/// on a file whose tokens start with it).
fn first_tokens(ops: &[OpSignals]) -> FirstTokens {
    let mut name_first: std::collections::HashMap<String, Vec<usize>> = Default::default();
    let mut dir_first: std::collections::HashMap<String, Vec<usize>> = Default::default();
    let (mut name_any, mut dir_any) = (Vec::new(), Vec::new());
    for (i, op) in ops.iter().enumerate() {
        let names: Vec<&Pattern> = op.names.iter().chain(&op.names_with_content).collect();
        let dirs: Vec<&Pattern> = op.dirs.iter().chain(&op.dirs_with_content).collect();
        for (patterns, first, any) in [
            (names, &mut name_first, &mut name_any),
            (dirs, &mut dir_first, &mut dir_any),
        ] {
            for p in patterns {
                match p.tokens.first() {
                    Some((t, false)) => {
                        let v = first.entry(t.clone()).or_default();
                        if v.last() != Some(&i) {
                            v.push(i);
                        }
                    }
                    Some((t, true)) if !any.contains(&(t.clone(), i)) => {
                        any.push((t.clone(), i));
                    }
                    _ => {}
                }
            }
        }
    }
    (name_first, dir_first, name_any, dir_any)
}

impl Signals {
    /// The signals of the ops that exist in `catalog` (others are skipped,
    /// so a signal never proposes an op the catalog cannot describe).
    pub fn for_catalog(catalog: &Matrix) -> Signals {
        let raw: RawFile =
            toml::from_str(TEXT).expect("signals.toml is held valid by its unit test");
        let raw: Vec<RawSignal> = raw
            .signal
            .into_iter()
            .filter(|s| catalog.op(&s.op).is_some())
            .collect();
        let mut patterns = Patterns::default();
        let mut ops = Vec::new();
        for (i, s) in raw.iter().enumerate() {
            for c in &s.content {
                let k = patterns.intern(c, Bound::Free);
                patterns.owners[k].push(i);
            }
            let kind = |n: &String| Kind::parse(n).expect("kinds are held valid by the unit test");
            ops.push(OpSignals {
                slug: s.op.clone(),
                names: s.names.iter().map(|n| Pattern::new(n)).collect(),
                names_with_content: s
                    .names_with_content
                    .iter()
                    .map(|n| Pattern::new(n))
                    .collect(),
                dirs: s.dirs.iter().map(|n| Pattern::new(n)).collect(),
                dirs_with_content: s
                    .dirs_with_content
                    .iter()
                    .map(|n| Pattern::new(n))
                    .collect(),
                family: s.family.clone(),
                kinds: s.kinds.iter().map(kind).collect(),
                fallback: s.fallback.iter().map(kind).collect(),
                backend: s.backend || s.general,
                general: s.general,
                refines: None,
                qualifiers: s.qualifiers.iter().map(|n| Pattern::new(n)).collect(),
                outranks: Vec::new(),
                gpu_names: s.gpu_names,
                step_of: Vec::new(),
                step_of_by_name: Vec::new(),
            });
        }
        let position = |ops: &[OpSignals], slug: &str| ops.iter().position(|o| o.slug == slug);
        for (i, s) in raw.iter().enumerate() {
            ops[i].refines = s.refines.as_deref().and_then(|p| position(&ops, p));
            ops[i].step_of = s.step_of.iter().filter_map(|p| position(&ops, p)).collect();
            ops[i].step_of_by_name = s
                .step_of_by_name
                .iter()
                .filter_map(|p| position(&ops, p))
                .collect();
            ops[i].outranks = s
                .outranks
                .iter()
                .filter_map(|p| position(&ops, p))
                .collect();
        }
        let computes = compile_computes(&raw, &ops, &mut patterns);
        let (name_first, dir_first, name_any, dir_any) = first_tokens(&ops);
        Signals {
            ops,
            name_first,
            dir_first,
            name_any,
            dir_any,
            content_ac: OnceLock::new(),
            content_text: patterns.text,
            content_owners: patterns.owners,
            content_bound: patterns.bound,
            computes,
            own: None,
        }
    }

    /// The op index with this slug.
    pub fn position(&self, slug: &str) -> Option<usize> {
        self.ops.iter().position(|o| o.slug == slug)
    }

    /// Every op with evidence for this file, best first (ties keep the
    /// order of signals.toml). `kind` is the file's kernel kind, if known.
    ///
    /// Order: enough evidence to place the file; then what the content
    /// computes (the most specific signature); then an op that says what
    /// the file computes before a backend op that says how it is written;
    /// then the file name, the nearest directory, and the total score.
    pub fn rank(&self, path: &str, kind: Option<Kind>, prefix: &[u8]) -> Vec<Candidate> {
        let mut seen = vec![false; self.content_text.len()];
        let found = self
            .content_ac
            .get_or_init(|| super::scan_automaton(&self.content_text))
            .find_overlapping_iter(prefix);
        for m in found {
            self.note(&mut seen, prefix, &m);
        }
        self.rank_seen(path, kind, prefix, &seen)
    }

    /// [`Signals::rank`] given which content patterns occur in `prefix`
    /// (see [`Signals::note`]), found by another search (see
    /// [`super::one_pass`]).
    pub(super) fn rank_seen(
        &self,
        path: &str,
        kind: Option<Kind>,
        prefix: &[u8],
        seen: &[bool],
    ) -> Vec<Candidate> {
        let name_tokens = tokens(stem(path));
        let dir_tokens: Vec<Vec<String>> = path
            .split('/')
            .take(path.matches('/').count())
            .map(tokens)
            .collect();
        let mut file = FileTokens {
            name: &name_tokens,
            dirs: &dir_tokens,
            folder: None,
            entries: None,
        };
        let content_hits = self.content_hits(seen);
        let computed = self.computed(seen, prefix);
        let found = (&content_hits[..], &computed[..]);
        let mut out = self.scored(&file, found, kind);
        let folder = dir_tokens.last().filter(|_| names_only_backend(&out, kind));
        if let Some(folder) = folder {
            file.folder = Some(folder);
            out = self.scored(&file, found, kind);
        }
        let entries = match self.only_a_backend_answers(&out, kind) {
            true if kind.is_some_and(Kind::is_cpu_simd) => {
                self.agreeing(entry_tokens(path, kind, prefix))
            }
            true => entry_tokens(path, kind, prefix),
            false => Vec::new(),
        };
        if !entries.is_empty() {
            file.entries = Some(&entries);
            out = self.scored(&file, found, kind);
        }
        let read_as_name = match folder {
            Some(folder) => [&name_tokens[..], &folder[..]].concat(),
            None => name_tokens,
        };
        let hints = (&read_as_name[..], dir_tokens.last(), &content_hits[..]);
        self.refine(&mut out, hints, &dir_tokens, kind);
        self.building_blocks(&mut out, seen, prefix, kind);
        self.fall_back(&mut out, kind);
        out.sort_by(|a, b| {
            (b.score >= THRESHOLD)
                .cmp(&(a.score >= THRESHOLD))
                .then(b.compute_rank.cmp(&a.compute_rank))
                .then(a.backend.cmp(&b.backend))
                .then(b.name_run.cmp(&a.name_run))
                .then(b.kind_bound.cmp(&a.kind_bound))
                .then(b.name_score.cmp(&a.name_score))
                .then(a.name_at.cmp(&b.name_at))
                .then(b.dir_rank.cmp(&a.dir_rank))
                .then(b.score.cmp(&a.score))
                .then(a.op.cmp(&b.op))
        });
        self.whole_before_its_step(&mut out);
        out
    }

    /// A file its name places in a step of other ops (a softmax, a GEMM,
    /// an FFT, a copy) is part of one of them, the whole, when a directory
    /// of the whole nearer than any of the step's own holds it (flash
    /// attention's `flash_attn/src/softmax.h`, a sparse attention's
    /// `sparse_attention/softmax.py`, FlashFFTConv's `butterfly/…_fft.cu`,
    /// an im2col `sgemm` in `conv/`), or, when no directory says one, when
    /// the name also says a whole the step lists in `step_of_by_name`
    /// (`sgemm_4x4_deconv.S` is a deconvolution's GEMM,
    /// `softmax_focal_loss.cu` a loss) and no computation signature ranks
    /// the step higher. The name rule ignores the step's own directory
    /// (`gemm/sgemm_deconv.S` is the deconvolution's too). A normalization
    /// is a layer beside attention, not a step of it.
    fn whole_before_its_step(&self, out: &mut [Candidate]) {
        let Some(first) = out.first() else { return };
        if first.score < THRESHOLD || first.name_score == 0 || first.backend {
            return;
        }
        let step = &self.ops[first.op];
        let whole_where = |wholes: &[usize], says_whole: &dyn Fn(&Candidate) -> bool| {
            out.iter().position(|c| {
                c.score >= THRESHOLD && !c.backend && wholes.contains(&c.op) && says_whole(c)
            })
        };
        let by_directory = |c: &Candidate| c.name_score == 0 && c.dir_rank > first.dir_rank;
        // Candidates are sorted by computation first: a whole ranked
        // below the step by a signature never equals it here.
        let by_name = |c: &Candidate| c.name_score > 0 && c.compute_rank == first.compute_rank;
        let whole = whole_where(&step.step_of, &by_directory)
            .or_else(|| whole_where(&step.step_of_by_name, &by_name));
        if let Some(at) = whole {
            out[..=at].rotate_right(1);
        }
    }

    /// Every op's candidate for a file, before narrowing and defaults.
    fn scored(
        &self,
        file: &FileTokens<'_>,
        (content_hits, computed): (&[Vec<usize>], &[Computed<'_>]),
        kind: Option<Kind>,
    ) -> Vec<Candidate> {
        let read_as_names = [
            file.name,
            file.folder.unwrap_or(&[]),
            file.entries.unwrap_or(&[]),
        ];
        let (may_name, may_dir) = self.may_match(&read_as_names.concat(), file.dirs);
        let mut out = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            if !op.kinds.is_empty() && !kind.is_some_and(|k| op.kinds.contains(&k)) {
                continue;
            }
            if !may_name[i] && !may_dir[i] && content_hits[i].is_empty() && computed[i].owned == 0 {
                continue;
            }
            let hints = (may_name[i], may_dir[i], content_hits[i].as_slice());
            let computed = match self.own {
                Some(own) if own == i => computed[i].confirmed_by(computed),
                _ => computed[i],
            };
            out.extend(self.score_op(i, op, file, hints, &computed, kind));
        }
        out
    }

    /// The content patterns' texts, in the order of their indices.
    pub(super) fn patterns(&self) -> &[String] {
        &self.content_text
    }

    /// Mark in `seen` (one flag per content pattern, numbered as in
    /// [`Signals::patterns`]) the pattern of match `m` in `prefix`, when
    /// it stands as its pattern must.
    pub(super) fn note(&self, seen: &mut [bool], prefix: &[u8], m: &Match) {
        let k = m.pattern().as_usize();
        if !seen[k]
            && self.content_bound[k].admits(
                prefix,
                self.content_text[k].as_bytes(),
                m.start(),
                m.end(),
            )
        {
            seen[k] = true;
        }
    }

    /// For each op, the content patterns of its own list found in the file.
    fn content_hits(&self, seen: &[bool]) -> Vec<Vec<usize>> {
        let mut hits: Vec<Vec<usize>> = vec![Vec::new(); self.ops.len()];
        for (k, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            for &op in &self.content_owners[k] {
                hits[op].push(k);
            }
        }
        hits
    }

    /// For each op, the most specific computation signature found that
    /// places a file in it (owned) or confirms it (covered).
    fn computed(&self, seen: &[bool], prefix: &[u8]) -> Vec<Computed<'_>> {
        let mut out = vec![Computed::default(); self.ops.len()];
        for c in self.computes.iter().filter(|c| !c.part) {
            if !c.found(seen, prefix) {
                continue;
            }
            let n = c.groups.len() as u32;
            let o = &mut out[c.owner];
            if n > o.owned {
                o.owned = n;
                o.owned_what = Some(&c.what);
            }
            for &i in &c.covers {
                let o = &mut out[i];
                if n > o.covered {
                    o.covered = n;
                    o.covered_what = Some(&c.what);
                }
            }
        }
        out
    }

    /// Whether the op may hold a file of this kind (an op bound to kinds
    /// holds only those: a MIPS file is never the x86 backend's).
    pub fn admits(&self, slug: &str, kind: Kind) -> bool {
        self.holds(slug, Some(kind))
    }

    /// [`Signals::admits`] for a file whose kind may be unknown: an op
    /// bound to kinds holds no file of none (plain C beside SIMD kernels
    /// is not the x86 backend's), as [`Signals::rank`] ranks it.
    pub fn holds(&self, slug: &str, kind: Option<Kind>) -> bool {
        self.position(slug).is_none_or(|i| {
            let kinds = &self.ops[i].kinds;
            kinds.is_empty() || kind.is_some_and(|k| kinds.contains(&k))
        })
    }

    /// Which ops' name and directory patterns may match, by first token.
    fn may_match(&self, name: &[String], dirs: &[Vec<String>]) -> (Vec<bool>, Vec<bool>) {
        let mut may_name = vec![false; self.ops.len()];
        let mut may_dir = vec![false; self.ops.len()];
        for (prefix, i) in &self.name_any {
            may_name[*i] |= name.iter().any(|t| t.starts_with(prefix.as_str()));
        }
        for (prefix, i) in &self.dir_any {
            may_dir[*i] |= dirs
                .iter()
                .flatten()
                .any(|t| t.starts_with(prefix.as_str()));
        }
        for t in name {
            for &i in [Some(t.as_str()), numbered(t), versioned(t)]
                .into_iter()
                .flatten()
                .filter_map(|w| self.name_first.get(w))
                .flatten()
            {
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

    /// One op's score for a file: names, directories, content (only beside
    /// a name or directory, or for a kind-bound op), and a computation
    /// signature that places the file here or confirms the op its name or
    /// directory says.
    fn score_op<'a>(
        &self,
        i: usize,
        op: &'a OpSignals,
        file: &FileTokens<'_>,
        (may_name, may_dir, content): (bool, bool, &[usize]),
        computed: &Computed<'_>,
        kind: Option<Kind>,
    ) -> Option<Candidate> {
        let mut evidence = Vec::new();
        let may_name = may_name && op.names_count_on(kind);
        let may_dir = may_dir && op.names_count_on(kind);
        // Content-bound names and directories count where the op's content is.
        let bound = |patterns: &'a [Pattern]| {
            if content.is_empty() {
                &[][..]
            } else {
                patterns
            }
        };
        let (name_score, name_run, name_at) = if may_name {
            let names = op.names.iter().chain(bound(&op.names_with_content));
            name_points(names, (file.name, true), &mut evidence)
        } else {
            (0, 0, u32::MAX)
        };
        let (mut dir_score, mut dir_rank) = if may_dir {
            let dirs: Vec<&Pattern> = op.dirs.iter().chain(bound(&op.dirs_with_content)).collect();
            dir_points(&dirs, file.dirs, &mut evidence)
        } else {
            (0, 0)
        };
        if may_name && !op.backend {
            if read_as_names(op, (file.folder, false), Evidence::Dir, &mut evidence) {
                dir_score = dir_score.max(DIR_POINTS);
                dir_rank = dir_rank.max(FOLDER_RANK);
            }
            if read_as_names(op, (file.entries, true), Evidence::Entry, &mut evidence) {
                dir_score = dir_score.max(DIR_POINTS);
            }
        }
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
        let confirmable = score > 0 && !only_family(op, &evidence);
        let compute_rank = computed.rank_for(confirmable);
        if let Some(what) = computed.what_for(confirmable) {
            score += COMPUTE_POINTS + COMPUTE_MORE * compute_rank;
            evidence.push(Evidence::Computes(what.to_owned()));
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
            compute_rank,
            backend: op.backend,
            name_run,
            kind_bound: !op.kinds.is_empty() && !op.backend,
            name_score,
            name_at,
            dir_rank,
            evidence,
        })
    }

    /// The points of the qualifiers in a file's name, else in its folder
    /// (`int8/gemm.cu`: the folder narrows a name that does not), and
    /// whether the name itself held them.
    fn narrowed_by_name(
        &self,
        op: &OpSignals,
        (name, folder): (&[String], Option<&Vec<String>>),
        evidence: &mut Vec<Evidence>,
    ) -> (u32, bool) {
        let narrow = qualifier_points(&op.qualifiers, name, evidence);
        if narrow > 0 {
            return (narrow, true);
        }
        let Some(folder) = folder else {
            return (0, false);
        };
        (
            dir_qualifier_points(&op.qualifiers, folder, evidence),
            false,
        )
    }

    /// The general op's candidate when the file's name, its ISA folder or
    /// a directory says it (`gemm/…_s8_s8.hpp`, `attention/decoding.cu`);
    /// by a directory only where no other op's name, nor a nearer
    /// directory, says what the file is
    /// (`attention/…/rotary_mul/rotate_split.h` stays RoPE).
    fn general_said(
        &self,
        out: &[Candidate],
        general: usize,
        narrower: usize,
    ) -> Option<Candidate> {
        let said_otherwise = |dir_rank: u32| {
            out.iter().any(|c| {
                c.op != general
                    && c.op != narrower
                    && !c.backend
                    && c.score >= THRESHOLD
                    && (c.name_score > 0 || c.dir_rank > dir_rank)
            })
        };
        out.iter()
            .find(|c| {
                c.op == general
                    && (c.name_score > 0
                        || c.dir_rank == FOLDER_RANK
                        || c.dir_rank > 0 && !said_otherwise(c.dir_rank))
            })
            .cloned()
    }

    /// Whether the name says the general op (`parent`) and no other word
    /// of it says another op as much: then a directory may narrow it
    /// (`awq/gemv_cuda.cu` is AWQ; `moe/scatter_nd_update_linear.h` says a
    /// scatter as much as a linear layer).
    fn name_says_best(&self, out: &[Candidate], parent: &Candidate, narrower: usize) -> bool {
        fn words(c: &Candidate) -> Vec<&str> {
            c.evidence
                .iter()
                .filter_map(|e| match e {
                    Evidence::Name(p) => Some(p.trim_end_matches('*')),
                    _ => None,
                })
                .collect()
        }
        let parent_words = words(parent);
        parent.name_score > 0
            && !out.iter().any(|c| {
                c.op != parent.op
                    && c.op != narrower
                    && !c.backend
                    && self.ops[c.op].refines != Some(parent.op)
                    && c.name_score >= parent.name_score
                    && words(c).iter().any(|w| !parent_words.contains(w))
            })
    }

    /// The qualifier points of the nearest directory that holds one of
    /// `op`'s qualifiers (its evidence said as a directory).
    fn narrowed_by_dirs(
        &self,
        op: &OpSignals,
        dirs: &[Vec<String>],
        evidence: &mut Vec<Evidence>,
    ) -> u32 {
        dirs.iter()
            .rev()
            .map(|dir| dir_qualifier_points(&op.qualifiers, dir, evidence))
            .find(|&narrow| narrow > 0)
            .unwrap_or(0)
    }

    /// Where only a directory says the general op, a qualifier in that
    /// same directory's name narrows it (`ragged_decode_attention/`,
    /// `page_attention/` hold decode attention); a qualifier further up
    /// the path says nothing of the files below.
    fn narrowed_in_general_dir(
        &self,
        op: &OpSignals,
        general: usize,
        dirs: &[Vec<String>],
        evidence: &mut Vec<Evidence>,
    ) -> u32 {
        let says_general =
            |dir: &Vec<String>| self.ops[general].dirs.iter().any(|p| p.find(dir).is_some());
        dirs.iter()
            .rev()
            .find(|dir| says_general(dir))
            .map_or(0, |dir| dir_qualifier_points(&op.qualifiers, dir, evidence))
    }

    /// A name that says a general op and a token that narrows it says the
    /// narrower op (`gemm_a8w8` is an INT8 GEMM, `moe_op_gemm` a grouped
    /// one, `qk_int8_attn` low-precision attention), whatever order the
    /// tokens come in: the narrower op takes the general op's name
    /// evidence and adds its qualifier's. A family so broad it yields like
    /// a backend (int-quant) is narrowed by content too: `quant_kernels.cu`
    /// holding `__nv_fp8_e4m3` is FP8 quantization. Where the name
    /// narrows to two refinements and one `outranks` the other, it ranks
    /// first (see [`Signals::structure_first`]).
    fn refine(
        &self,
        out: &mut Vec<Candidate>,
        (name, folder, content): (&[String], Option<&Vec<String>>, &[Vec<usize>]),
        dirs: &[Vec<String>],
        kind: Option<Kind>,
    ) {
        let mut by_name = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            let Some(general) = op.refines else { continue };
            if !op.kinds.is_empty() && !kind.is_some_and(|k| op.kinds.contains(&k)) {
                continue;
            }
            if !op.names_count_on(kind) {
                continue;
            }
            let Some(parent) = self.general_said(out, general, i) else {
                continue;
            };
            let mut evidence = Vec::new();
            let (mut narrow, in_name) = self.narrowed_by_name(op, (name, folder), &mut evidence);
            if in_name {
                by_name.push(i);
            }
            if narrow == 0 && self.name_says_best(out, &parent, i) {
                narrow = self.narrowed_by_dirs(op, dirs, &mut evidence);
            }
            if narrow == 0 && parent.name_score == 0 && parent.dir_rank > 0 {
                narrow = self.narrowed_in_general_dir(op, general, dirs, &mut evidence);
            }
            // Narrowed by content alone, the op still yields like the
            // family it narrows: any op a name or computation says ranks first.
            let by_content = narrow == 0 && self.ops[general].backend;
            if by_content {
                if out.iter().any(|c| c.op == i) {
                    continue;
                }
                for &k in content[i].iter().take(CONTENT_CAP) {
                    narrow += CONTENT_POINTS;
                    evidence.push(Evidence::Content(self.content_text[k].clone()));
                }
            }
            if narrow == 0 {
                continue;
            }
            self.narrow_to(out, (i, general), &parent, narrow, evidence, by_content);
        }
        self.structure_first(out, &by_name);
    }

    /// The narrower op `i` takes its general op's candidate (`parent`)
    /// with `narrow` more name points: a new candidate, or its own raised.
    fn narrow_to(
        &self,
        out: &mut Vec<Candidate>,
        (i, general): (usize, usize),
        parent: &Candidate,
        narrow: u32,
        mut evidence: Vec<Evidence>,
        by_content: bool,
    ) {
        let op = &self.ops[i];
        evidence.push(Evidence::Narrows(self.ops[general].slug.clone()));
        evidence.extend(
            parent
                .evidence
                .iter()
                .filter(|e| match e {
                    Evidence::Name(_) => true,
                    Evidence::Dir(_) => parent.dir_rank > 0,
                    _ => false,
                })
                .cloned(),
        );
        let own = out.iter().find(|c| c.op == i).map_or(0, |c| c.name_score);
        // A name that also says the narrower op on its own says it twice.
        let name_score = parent.name_score + narrow + if own > 0 { NAME_MORE } else { 0 };
        match out.iter_mut().find(|c| c.op == i) {
            Some(c) if c.name_score >= name_score => {}
            Some(c) => {
                c.score += name_score - c.name_score;
                c.name_score = name_score;
                c.name_run = c.name_run.max(parent.name_run);
                c.compute_rank = c.compute_rank.max(parent.compute_rank);
                c.evidence.extend(evidence);
            }
            None => out.push(Candidate {
                op: i,
                score: parent.score + narrow,
                compute_rank: parent.compute_rank,
                backend: op.backend || by_content,
                name_run: parent.name_run,
                kind_bound: !op.kinds.is_empty() && !op.backend,
                name_score,
                name_at: parent.name_at,
                dir_rank: parent.dir_rank,
                evidence,
            }),
        }
    }

    /// A name that narrows one general op two ways, by structure and by
    /// precision (`moe_op_gemm_a8w8_blockscale`, `grouped_gemm_fp8_kernel`,
    /// hipBLASLt's `Cijk_…_F8H_…_GG_…`), is filed by the structure: the op that
    /// `outranks` the other takes at least its name run and one more name
    /// point. What a computation signature says still ranks first.
    fn structure_first(&self, out: &mut [Candidate], by_name: &[usize]) {
        for &first in by_name {
            for &other in &self.ops[first].outranks {
                if !by_name.contains(&other) {
                    continue;
                }
                let Some(o) = out.iter().position(|c| c.op == other) else {
                    continue;
                };
                let Some(f) = out.iter().position(|c| c.op == first) else {
                    continue;
                };
                let (run, name_score) = (out[o].name_run, out[o].name_score);
                let c = &mut out[f];
                c.name_run = c.name_run.max(run);
                if c.name_score <= name_score {
                    c.score += name_score + 1 - c.name_score;
                    c.name_score = name_score + 1;
                }
            }
        }
    }

    /// When no op has enough evidence, a building block found in the
    /// content (weak evidence, the draft says so) before the kind's backend.
    fn building_blocks(
        &self,
        out: &mut Vec<Candidate>,
        seen: &[bool],
        prefix: &[u8],
        kind: Option<Kind>,
    ) {
        if out.iter().any(|c| c.score >= THRESHOLD) {
            return;
        }
        let found = self.computes.iter().find(|c| {
            let op = &self.ops[c.owner];
            c.part
                && (op.kinds.is_empty() || kind.is_some_and(|k| op.kinds.contains(&k)))
                && c.found(seen, prefix)
        });
        if let Some(c) = found {
            out.retain(|x| x.op != c.owner);
            out.push(Candidate {
                op: c.owner,
                score: THRESHOLD + COMPUTE_MORE,
                compute_rank: 0,
                backend: false,
                name_run: 0,
                kind_bound: false,
                name_score: 0,
                name_at: u32::MAX,
                dir_rank: 0,
                evidence: vec![Evidence::Part(c.what.clone())],
            });
        }
    }

    /// The op that answers for a kind when nothing else does (`fallback`).
    fn fallback_op(&self, kind: Option<Kind>) -> Option<usize> {
        let k = kind?;
        self.ops.iter().position(|o| o.fallback.contains(&k))
    }

    /// The entries of a CPU source that agree: a SIMD file exports
    /// kernels of one op (`sgeconv_*`), or several things at once (a
    /// library's `ccv_basic.c`), and then its names say nothing. Keeps
    /// the names of the op more than half of the entries name (`|`-ended
    /// runs, see [`entry_tokens`]), or none.
    fn agreeing(&self, tokens: Vec<String>) -> Vec<String> {
        let entries: Vec<&[String]> = tokens
            .split(|t| t == "|")
            .filter(|e| !e.is_empty())
            .collect();
        let names = |i: usize, e: &[String]| {
            name_points(&self.ops[i].names, (e, true), &mut Vec::new()).0 > 0
        };
        let best = (0..self.ops.len())
            .filter(|&i| !self.ops[i].backend)
            .map(|i| (entries.iter().filter(|e| names(i, e)).count(), i))
            .max_by_key(|&(n, i)| (n, std::cmp::Reverse(i)));
        match best {
            Some((n, i)) if n > 0 && 2 * n > entries.len() => entries
                .iter()
                .filter(|e| names(i, e))
                .flat_map(|e| e.iter().cloned().chain(["|".to_owned()]))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether a backend op would answer for the file (by name, or as its
    /// kind's fallback) and no computation op has enough evidence: where a
    /// kernel's own name is read (a file nothing places is left to its
    /// neighbours).
    fn only_a_backend_answers(&self, out: &[Candidate], kind: Option<Kind>) -> bool {
        let enough = |backend: bool| {
            out.iter()
                .any(|c| c.backend == backend && c.score >= THRESHOLD)
        };
        (enough(true) || self.fallback_op(kind).is_some()) && !enough(false)
    }

    /// When no op has enough evidence, the op bound to the file's kind as
    /// a fallback (if one is).
    fn fall_back(&self, out: &mut Vec<Candidate>, kind: Option<Kind>) {
        if out.iter().any(|c| c.score >= THRESHOLD) {
            return;
        }
        if let (Some(k), Some(i)) = (kind, self.fallback_op(kind)) {
            out.retain(|c| c.op != i);
            out.push(Candidate {
                op: i,
                score: FALLBACK_POINTS + THRESHOLD,
                compute_rank: 0,
                backend: self.ops[i].backend,
                name_run: 0,
                kind_bound: false,
                name_score: 0,
                name_at: u32::MAX,
                dir_rank: 0,
                evidence: vec![Evidence::Fallback(k.name().to_owned())],
            });
        }
    }

    /// The best op for a file, when it has enough evidence and the evidence
    /// does not contradict itself: two ops' computations equally specific,
    /// and nothing else about the file to choose between them, leave it for
    /// the team (unclassified) rather than guess.
    pub fn best(&self, path: &str, kind: Option<Kind>, prefix: &[u8]) -> Option<Candidate> {
        uncontested(self.rank(path, kind, prefix))
    }

    /// [`Signals::best`] given which content patterns occur in `prefix`
    /// (see [`Signals::rank_seen`]).
    pub(super) fn best_seen(
        &self,
        path: &str,
        kind: Option<Kind>,
        prefix: &[u8],
        seen: &[bool],
    ) -> Option<Candidate> {
        uncontested(self.rank_seen(path, kind, prefix, seen))
    }
}

/// The first of `ranked` when it has enough evidence and the second does
/// not contest it (see [`Signals::best`]).
fn uncontested(ranked: Vec<Candidate>) -> Option<Candidate> {
    let mut ranked = ranked.into_iter();
    let first = ranked.next().filter(|c| c.score >= THRESHOLD)?;
    match ranked.next() {
        Some(second) if contested(&first, &second) => None,
        _ => Some(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_pattern_does_not_take_a_word_of_its_own() {
        let gemm = Pattern::new("gemm*");
        let at = |name: &str| gemm.find(&crate::surface::init::detect::tokens(name));
        assert_eq!(at("gemm1_kernel"), Some(0));
        assert_eq!(at("q_gemmk"), Some(1));
        assert_eq!(at("gemm"), Some(0));
        assert_eq!(at("token_embedding_gemma"), None);
        assert_eq!(at("gemma3_mlp"), None);
    }

    #[test]
    fn a_version_written_into_a_word_is_its_number() {
        let attention = Pattern::new("flashattention");
        let at =
            |name: &str| attention.find_tokens(&crate::surface::init::detect::tokens(name), true);
        assert_eq!(at("flashattentionv2"), Some(0));
        assert_eq!(at("flashattention2_nopad"), Some(0));
        assert_eq!(at("flashattentionvar"), None);
        // A word that ends in `v` keeps it too: `csrmv2` is SpMV.
        assert!(numbers_word("csrmv2", "csrmv"));
        assert_eq!(versioned("fmhav3"), Some("fmha"));
    }

    fn raw() -> RawFile {
        toml::from_str(TEXT).unwrap()
    }

    #[test]
    fn every_signal_names_a_catalog_op_and_valid_kinds() {
        let catalog = Matrix::catalog();
        let mut seen = std::collections::HashSet::new();
        let refines: std::collections::HashMap<String, Option<String>> = raw()
            .signal
            .into_iter()
            .map(|s| (s.op, s.refines))
            .collect();
        for s in raw().signal {
            assert!(
                catalog.op(&s.op).is_some(),
                "signals.toml: `{}` is not a catalog slug",
                s.op
            );
            assert!(seen.insert(s.op.clone()), "signals.toml: `{}` twice", s.op);
            for c in &s.computes {
                for slug in &c.covers {
                    assert!(
                        catalog.op(slug).is_some(),
                        "signals.toml: {}: `{}` covers unknown op `{slug}`",
                        s.op,
                        c.what
                    );
                }
                assert!(
                    !c.all.is_empty() && c.all.iter().all(|g| !g.is_empty()),
                    "signals.toml: {}: `{}` has an empty group",
                    s.op,
                    c.what
                );
                assert!(
                    !c.part || c.covers.is_empty(),
                    "signals.toml: {}: a building block covers every op already",
                    s.op
                );
            }
            if let Some(general) = &s.refines {
                assert!(
                    catalog.op(general).is_some() && general != &s.op,
                    "signals.toml: {}: refines unknown op `{general}`",
                    s.op
                );
            }
            for whole in &s.step_of {
                assert!(
                    catalog.op(whole).is_some() && whole != &s.op,
                    "signals.toml: {}: step_of unknown op `{whole}`",
                    s.op
                );
            }
            for whole in &s.step_of_by_name {
                assert!(
                    s.step_of.contains(whole),
                    "signals.toml: {}: step_of_by_name `{whole}` is not in its step_of",
                    s.op
                );
            }
            assert_eq!(
                s.refines.is_some(),
                !s.qualifiers.is_empty(),
                "signals.toml: {}: `refines` and `qualifiers` go together",
                s.op
            );
            for sibling in &s.outranks {
                assert!(
                    s.refines.is_some()
                        && sibling != &s.op
                        && refines.get(sibling).is_some_and(|r| r == &s.refines),
                    "signals.toml: {}: outranks `{sibling}`, not a refinement of the same op",
                    s.op
                );
            }
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
        // An acronym before a word ends where the word's capital begins.
        assert_eq!(tokens("MNNGeluFP16"), ["mnn", "gelu", "fp16"]);
        assert_eq!(tokens("CPUBinary"), ["cpu", "binary"]);
        assert_eq!(tokens("RMSNorm"), ["rms", "norm"]);
        assert_eq!(tokens("QKV"), ["qkv"]);
        assert_eq!(tokens("mul_mat_vec_q4_k"), ["mul", "mat", "vec", "q4", "k"]);
        // An element type glued to the word it qualifies is its own token.
        assert_eq!(tokens("q8gemm"), ["q8", "gemm"]);
        assert_eq!(tokens("u8maxpool"), ["u8", "maxpool"]);
        assert_eq!(
            tokens("bli_i8gemm_power10"),
            ["bli", "i8", "gemm", "power10"]
        );
        assert_eq!(tokens("q8k"), ["q8k"]);
        assert_eq!(tokens("f16x2"), ["f16x2"]);
        // A rank stays on its number, as the lower-case spelling reads.
        assert_eq!(tokens("Conv2D"), tokens("conv2d"));
        assert_eq!(tokens("JACOBI_2D"), ["jacobi", "2d"]);
        assert_eq!(tokens("Conv2DTranspose"), ["conv2d", "transpose"]);
        assert_eq!(tokens("MaxPool3DGrad"), ["max", "pool3d", "grad"]);
        assert_eq!(tokens("Tensor2Dev"), ["tensor2", "dev"]);
        assert_eq!(stem("a/b/rms_norm.cu"), "rms_norm");
    }

    #[test]
    fn files_go_to_the_op_their_name_says() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let best = |p: &str, k: Option<Kind>| s.best(p, k, b"").map(|c| s.ops[c.op].slug.clone());
        let cases = [
            ("src/ggml-cuda/fattn-tile.cu", Kind::Cuda, "fused-attention"),
            // Deformable sampling by its own names: the `im2col` of a
            // deformable attention is not a convolution's, its `attn` no
            // softmax attention.
            (
                "models/ops/src/cuda/ms_deform_im2col_cuda.cuh",
                Kind::Cuda,
                "deformable-sampling",
            ),
            (
                "csrc/cuda/ms_deform_attn_cuda.cu",
                Kind::Cuda,
                "deformable-sampling",
            ),
            (
                "ops/csrc/modulated_deform_conv_cuda.cu",
                Kind::Cuda,
                "deformable-sampling",
            ),
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
            // Grid stencils by their words, the upper-case dimension too.
            (
                "src/polybench/POLYBENCH_HEAT_3D-Cuda.cpp",
                Kind::Cuda,
                "stencil",
            ),
            (
                "polybench/jacobi_2d/jacobi_2d_triton.py",
                Kind::Triton,
                "stencil",
            ),
            ("FDTD3d/inc/FDTD3dGPUKernel.cuh", Kind::Cuda, "stencil"),
            (
                "bonus/heat-equation/cuda/core_cuda.cu",
                Kind::Cuda,
                "stencil",
            ),
        ];
        for (path, kind, op) in cases {
            assert_eq!(best(path, Some(kind)).as_deref(), Some(op), "{path}");
        }
        // A codec's `decode` is no attention: the word says decode
        // attention only beside paged / split-KV code.
        assert_ne!(
            best("src/streamvbyte_decode.c", Some(Kind::SimdX86)).as_deref(),
            Some("decode-attention")
        );
        assert_eq!(
            s.best(
                "csrc/decode.cu",
                Some(Kind::Cuda),
                b"const int* block_table, int page_size"
            )
            .map(|c| s.ops[c.op].slug.clone())
            .as_deref(),
            Some("decode-attention")
        );
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
            // Apex's multi-tensor apply launches the fused optimizers and
            // their gradient norms (DeepSpeed, ColossalAI copy it).
            ("csrc/multi_tensor_l2norm_kernel.cu", Some("optimizer-step")),
            ("csrc/multi_tensor_apply.cuh", Some("optimizer-step")),
            ("quack/topk.py", Some("topk-selection")),
            ("dev/cuda/permute.cu", Some("copy-cast-layout")),
            ("ops/jsd.py", Some("fused-losses")),
            // A name that says a step and the op it is a step of names the
            // step inside that op (Tengine's deconvolution GEMMs); a copy
            // named for what it feeds stays a copy (XNNPACK's packing).
            ("kernels/sgemm_4x4_deconv_a72.cu", Some("convolution")),
            ("src/kernels/MIOpenSoftmaxAttn.cu", Some("fused-attention")),
            ("ops/softmax_with_sinks.cu", Some("softmax")),
            (
                "packw/x16-packw-x16-gemm-goi-scalar.cu",
                Some("copy-cast-layout"),
            ),
        ] {
            assert_eq!(best(path, Some(Kind::Cuda)).as_deref(), op, "{path}");
        }
        assert_eq!(best("kernels/radix.cuh", Some(Kind::Cuda)), None);
        // Families named by their modules (round 22): each file, its kind
        // and the op its name says.
        for (path, kind, op) in [
            // Compression codecs (zlib-ng, ISA-L igzip, Blosc), hashes
            // (BLAKE3, multi-buffer SHA), Blosc's bit shuffle.
            ("arch/x86/compare256_avx2.c", Kind::SimdX86, "compression-codec"),
            ("igzip/aarch64/igzip_deflate_body_aarch64.S", Kind::Asm, "compression-codec"),
            ("blosc/blosclz.c", Kind::SimdX86, "compression-codec"),
            // meshoptimizer's vertex / index / meshlet codecs (glTF's
            // EXT_meshopt_compression).
            ("src/vertexcodec.cpp", Kind::SimdX86, "compression-codec"),
            // libdeflate's per-ISA LZ77 match finders beside its CRC kernels.
            ("lib/x86/matchfinder_impl.h", Kind::SimdX86, "compression-codec"),
            ("lib/bt_matchfinder.h", Kind::Scalar, "compression-codec"),
            ("c/blake3_avx512.c", Kind::SimdX86, "cryptographic-hash"),
            ("sha256_mb/sha256_mb_x8_avx2.asm", Kind::Asm, "cryptographic-hash"),
            ("blosc/bitshuffle-avx2.c", Kind::SimdX86, "copy-cast-layout"),
            // torch.special's functions are pointwise (torch-xpu-ops' SYCL
            // kernels, cupyx.scipy.special); ATen spells upsampling
            // `UpSample…`.
            ("src/ATen/native/xpu/sycl/BesselJ0Kernel.cpp", Kind::Sycl, "elementwise"),
            ("src/ATen/native/xpu/sycl/ShiftedChebyshevPolynomialTKernel.cpp", Kind::Sycl, "elementwise"),
            ("src/ATen/native/xpu/sycl/ZetaKernel.cpp", Kind::Sycl, "elementwise"),
            ("src/ATen/native/xpu/sycl/UpSampleNearest2dKernels.cpp", Kind::Sycl, "image-resample"),
            // XNNPACK's vector conversions (`vcvt`), any ISA.
            ("src/f16-f32-vcvt/gen/f16-f32-vcvt-scalar-u4.c", Kind::Scalar, "copy-cast-layout"),
            ("src/f32-f16-vcvt/gen/f32-f16-vcvt-avx512skx-u16.c", Kind::SimdX86, "copy-cast-layout"),
            // Instant-NGP's encodings (tiny-cuda-nn, torch-ngp's ports);
            // Warp's neighbour-search hash grid is not one.
            ("gridencoder/src/gridencoder.cu", Kind::Cuda, "neural-field-encoding"),
            ("include/tiny-cuda-nn/encodings/spherical_harmonics.h", Kind::Cuda, "neural-field-encoding"),
            ("shencoder/src/shencoder.cu", Kind::Cuda, "neural-field-encoding"),
            // CLBlast names its routines x<routine> (and lc0 vendors them).
            ("src/kernels/level3/xgemm_part2.opencl", Kind::Opencl, "dense-gemm"),
            // A Chebyshev distance is not a Chebyshev polynomial.
            ("Source/DistanceFunctions/arm_chebyshev_distance_f32.c", Kind::SimdArm, "vector-similarity"),
            // A tensor contraction is a GEMM over folded modes (hipTensor's
            // and Composable Kernel's contraction instances).
            (
                "library/src/contraction/device/device_contraction_bilinear_m2_n2_k2_xdl_c_shuffle_f32_f32_f32_f32_compute_bf16_mknn_instance.cpp",
                Kind::Hip,
                "dense-gemm",
            ),
            // A type or an int8 instruction in the name narrows the GEMM its
            // directory says (KleidiAI's interleaves, ncnn's i8mm GEMM); so
            // does `decoding` the attention of its directory, unless a
            // nearer directory says the file is something else.
            (
                "ops/gemm/indirect-interleaves/a64_interleave8_block4_s8_s8.hpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            ("src/layer/arm/gemm_arm_i8mm.cpp", Kind::SimdArm, "int8-gemm"),
            ("kernels/attention/kernel/decoding_sm70_128.cu", Kind::Cuda, "decode-attention"),
            (
                "csrc/attention/inplace_partial_rotary_mul/op_kernel/rotate_interleaved_split_bs.h",
                Kind::Cuda,
                "rope",
            ),
            // A directory's qualifier narrows the family the name says,
            // unless another word of the name says another op as much.
            ("ext/awq/quantization/gemv_cuda.cu", Kind::Cuda, "awq-int4-gemm"),
            (
                "csrc/block_sparse_attn/src/flash_fwd_block_hdim128_fp16_sm80.cu",
                Kind::Cuda,
                "sparse-attention",
            ),
            (
                "csrc/moe/scatter_nd_update_v2/op_kernel/scatter_nd_update_linear_index.h",
                Kind::Cuda,
                "gather-scatter",
            ),
            // The catalog's reduction-scan is the device-wide and segmented
            // primitives (CUB's block / warp / device scans); prefix-scan the
            // cumulative tensor ops.
            ("cub/cub/block/block_scan.cuh", Kind::Cuda, "reduction-scan"),
            ("k2/csrc/cudpp/segmented_scan_kernel.h", Kind::Cuda, "reduction-scan"),
            ("src/ops/cumsum_kernel.cu", Kind::Cuda, "prefix-scan"),
            // Blend modes (W3C Compositing and Blending's color-burn, …;
            // Direct2D's and Photoshop's vivid / linear / pin light) are
            // compositing.
            ("Sources/Filter/ColorBurnFilter.metal", Kind::Metal, "image-compositing"),
            ("Sources/Filter/VividLightFilter.metal", Kind::Metal, "image-compositing"),
            ("Sources/Filter/LinearBurnFilter.metal", Kind::Metal, "image-compositing"),
            // Edge detection and adaptive or luminance thresholds are image
            // filters (OpenCV's adaptiveThreshold; GPUImage's filters).
            ("Sources/Operations/PrewittEdgeDetection.metal", Kind::Metal, "image-filter"),
            ("Shaders/ThresholdEdgeDetection_GL.fsh", Kind::Gles, "image-filter"),
            ("src/legacy/adaptive_threshold.cu", Kind::Cuda, "image-filter"),
            ("Sources/Operations/LuminanceThreshold.metal", Kind::Metal, "image-filter"),
            // The Kuwahara filter is an edge-preserving smoothing filter; swirl,
            // bulge and pinch are geometric warps, i.e. resampling.
            ("Sources/Operations/KuwaharaRadius3Filter.metal", Kind::Metal, "image-filter"),
            ("Shaders/Swirl_GLES.fsh", Kind::Gles, "image-resample"),
            ("Sources/Operations/BulgeDistortion.metal", Kind::Metal, "image-resample"),
            ("Shaders/PinchDistortion_GL.fsh", Kind::Gles, "image-resample"),
            // sse_mathfun's vectorised exp / log / sin and its NEON and AVX
            // ports are element-wise math, not the ISA's backend.
            ("src/layer/arm/neon_mathfun_fp16s.h", Kind::SimdArm, "elementwise"),
            ("source/tnn/device/x86/acc/avx_mathfun.h", Kind::SimdX86, "elementwise"),
            // An activation times its gate is a gated activation.
            ("tasks/ampere/silu_mul_linear.cuh", Kind::Cuda, "gated-activation"),
            ("kernels/sigmoid_mul.py", Kind::Triton, "gated-activation"),
            // A routing directory narrows a file named only as MoE code.
            (
                "csrc/moe/moe_init_routing_quant_v2/moe_v2_fullload_quant.h",
                Kind::Cuda,
                "moe-routing",
            ),
            ("src/moe/moe_gemm_kernels.cu", Kind::Cuda, "grouped-gemm"),
            // Tensile names a GEMM by its index assignment (`Cijk_Ailk_Bljk`:
            // C[i,j,k] = A[i,l,k] B[l,j,k]) and a grouped one with `_GG`.
            (
                "Tensile/CustomKernels/Custom_Cijk_Alik_Bljk_HHS_BH_MT128x128x64_MI16x16x1_gfx942.s",
                Kind::Asm,
                "dense-gemm",
            ),
            (
                "Tensile/CustomKernels/Custom_Cijk_Ailk_Bljk_HHS_BH_Bias_GG_UserArgs_shortname0_gfx942.s",
                Kind::Asm,
                "grouped-gemm",
            ),
            // XNNPACK's micro-kernel families (QNNPACK's too): `v*c` binary
            // ops with a constant and `vrnd*` rounding are element-wise, `r*`
            // reductions reduce, `radd*expminusmax` is softmax, `packw`
            // packs (a packing routine named for its GEMM stays with the
            // GEMM: the corpus's hand matrices disagree on it).
            ("src/qs8-vaddc/gen/qs8-vaddc-minmax-avx2-mul32-ld64-u16.c", Kind::SimdX86, "elementwise"),
            ("src/f32-vrnd/gen/f32-vrndne-neon-u4.c", Kind::SimdArm, "elementwise"),
            ("src/f32-rminmax/gen/f32-rmax-avx512f-u64-acc4.c", Kind::SimdX86, "reduction-scan"),
            ("src/f32-raddstoreexpminusmax/gen/f32-raddstoreexpminusmax-avx2-rr1-p5-u64.c", Kind::SimdX86, "softmax"),
            ("src/x32-packw/gen/x32-packw-goi-avx-u4.c", Kind::SimdX86, "copy-cast-layout"),
            ("src/f32-ibilinear/gen/f32-ibilinear-neon-c8.c", Kind::SimdArm, "image-resample"),
            // Quantized activations times 4- or 2-bit weights narrow a GEMM
            // to low-bit-activation-gemm; 8-bit weights to int8-gemm; f32
            // activations with 4-bit weights (weight-only) narrow nothing.
            ("src/qd8-f32-qc4w-gemm/gen/qd8-f32-qc4w-gemm-4x8c8-minmax-avx2.c", Kind::SimdX86, "low-bit-activation-gemm"),
            ("src/qs8-qc2w-gemm/gen/qs8-qc2w-gemm-1x8c8-minmax-neondot.c", Kind::SimdArm, "low-bit-activation-gemm"),
            (
                "kai/ukernels/matmul/matmul_clamp_f32_qai8dxp_qsi4c32p/kai_matmul_clamp_f32_qai8dxp1x8_qsi4c32p4x8_1x4x32_neon_dotprod.c",
                Kind::SimdArm,
                "low-bit-activation-gemm",
            ),
            ("src/qd8-f32-qc8w-gemm/gen/qd8-f32-qc8w-gemm-4x8c8-minmax-avx2.c", Kind::SimdX86, "int8-gemm"),
            ("src/f32-qc4w-gemm/gen/f32-qc4w-gemm-4x8-minmax-avx2.c", Kind::SimdX86, "dense-gemm"),
        ] {
            assert_eq!(best(path, Some(kind)).as_deref(), Some(op), "{path}");
        }
        // Words that say an op only on some code: each file, its kind, the
        // op and whether the file gets it.
        for (path, kind, op, gets) in [
            // PyTorch's pointwise operators by their own names (functorch's
            // table), less those that name something else in kernel trees:
            // `ge` a general matrix, `le` little-endian, `eq` an equaliser,
            // `multiply` a blend mode or a GEMM's epilogue.
            (
                "src/flag_gems/ops/xlogy.py",
                Kind::Triton,
                "elementwise",
                true,
            ),
            (
                "src/flag_gems/ops/logit.py",
                Kind::Triton,
                "elementwise",
                true,
            ),
            ("kernels/hardtanh.cu", Kind::Cuda, "elementwise", true),
            (
                "FreqEQ/FreqEQCudaKernel.cu",
                Kind::Cuda,
                "elementwise",
                false,
            ),
            (
                "src/array/cuda/ge_spmm.cuh",
                Kind::Cuda,
                "elementwise",
                false,
            ),
            (
                "shader/cuzk/extract_word_from_bytes_le.metal",
                Kind::Metal,
                "elementwise",
                false,
            ),
            (
                "Operations/MultiplyBlend.metal",
                Kind::Metal,
                "elementwise",
                false,
            ),
            // Zero-knowledge kernels: MSM, NTT and the big-integer field and
            // curve arithmetic under them; a Jacobian matrix is not one.
            (
                "shader/mont_backend/mont_mul_cios.metal",
                Kind::Metal,
                "zk-msm-ntt",
                true,
            ),
            ("msm/pippenger.cuh", Kind::Cuda, "zk-msm-ntt", true),
            (
                "ntt/kernels/ct_mixed_radix_wide.cu",
                Kind::Cuda,
                "zk-msm-ntt",
                true,
            ),
            (
                "xopes/ops/inverse/jacobian/inverse_jacobian_triton.py",
                Kind::Triton,
                "zk-msm-ntt",
                false,
            ),
            // A video codec's DSP modules (dav1d, FFmpeg, kvazaar), on CPU
            // code only: NCCL's `mc` is multicast, FLA's `chunk_intra`
            // attention.
            ("src/x86/mc16_avx2.asm", Kind::Asm, "video-codec-dsp", true),
            (
                "src/arm/64/looprestoration.S",
                Kind::Asm,
                "video-codec-dsp",
                true,
            ),
            (
                "src/strategies/generic/sao-generic.c",
                Kind::Scalar,
                "video-codec-dsp",
                true,
            ),
            (
                "src/strategies/avx2/reg_sad_pow2_widths-avx2.h",
                Kind::SimdX86,
                "video-codec-dsp",
                true,
            ),
            (
                "src/device/oneshot_mc_allreduce_kernel.cuh",
                Kind::Cuda,
                "video-codec-dsp",
                false,
            ),
            (
                "fla/ops/common/chunk_intra.py",
                Kind::Triton,
                "video-codec-dsp",
                false,
            ),
            // SpGEMM multiplies two sparse matrices (clSPARSE, rocSPARSE):
            // not 2:4 structured sparsity. On CPU code the word names
            // libxsmm's JIT sparse × dense products, so it says nothing.
            (
                "kernels/SpGEMM_ESC_0_1_kernels.cl",
                Kind::Opencl,
                "sparse-spgemm",
                true,
            ),
            (
                "library/src/extra/csrgemm_device.h",
                Kind::Hip,
                "sparse-spgemm",
                true,
            ),
            (
                "src/generator_packed_spgemm.c",
                Kind::SimdX86,
                "sparse-spgemm",
                false,
            ),
        ] {
            let got = best(path, Some(kind));
            assert_eq!(got.as_deref() == Some(op), gets, "{path}: {got:?}");
        }
        // BLAS vocabulary in CPU micro-kernels: a GEMM variant's compound
        // name is still a GEMM, level-1 routines are element-wise, panel
        // packing is layout — before the ISA the file is written for.
        for (path, op) in [
            (
                "kernels/haswell/3/sup/bli_gemmsup_rv_haswell_asm_d6x8m.c",
                "dense-gemm",
            ),
            (
                "kernels/haswell/3/bli_gemmtrsm_l_haswell_asm_d6x8.c",
                "dense-gemm",
            ),
            ("kernels/zen/1/bli_axpyv_zen_int10.c", "elementwise"),
            ("kernels/zen/1/bli_scalv_zen_int.c", "elementwise"),
            (
                "kernels/armv8a/1m/bli_packm_armv8a_int_d6x8.c",
                "copy-cast-layout",
            ),
        ] {
            assert_eq!(
                best(path, Some(Kind::SimdX86)).as_deref(),
                Some(op),
                "{path}"
            );
        }
        // A token that narrows a general op's name narrows the op, in any
        // order: quantized GEMMs, MoE GEMMs, low-precision attention.
        for (path, op) in [
            ("csrc/ck_gemm_a8w8/gemm_a8w8_common.cuh", "int8-gemm"),
            (
                "csrc/ck_gemm_a8w8_blockscale/gemm_a8w8_blockscale.cu",
                "fp8-gemm",
            ),
            ("gemm/basic/gemm_afp4wfp4.py", "fp4-gemm"),
            ("moe/moe_op_gemm_a4w4.py", "grouped-gemm"),
            ("kernels/fused_moe.py", "grouped-gemm"),
            (
                "qattn/sm89_qk_int8_sv_f8_accum_f32_attn.cu",
                "low-precision-attention",
            ),
            ("moe/moe_align_block_size.py", "moe-routing"),
            ("ep/internode_dispatch.cu", "moe-dispatch"),
            // `topk_*` says no more than `topk`: the run that names the
            // whole thing wins (MoE gating, expert sorting).
            ("csrc/kernels/topk_softmax_kernels.cu", "moe-routing"),
            ("csrc/kernels/topk_gating/topk_sigmoid.cu", "moe-routing"),
            ("csrc/include/moe_sorting_opus.h", "moe-routing"),
            ("csrc/kernels/topk_per_row.cu", "topk-selection"),
            ("csrc/kernels/moe_gemm_kernels.cu", "grouped-gemm"),
            // Narrowed two ways, by structure and by precision: the
            // structure files it.
            (
                "_triton_kernels/moe/moe_op_gemm_a8w8_blockscale.py",
                "grouped-gemm",
            ),
            ("gemm/grouped_gemm_fp8_kernel.py", "grouped-gemm"),
            ("gemm/gemm_a8w8_blockscale.py", "fp8-gemm"),
            // The longest written-out run a name matches ranks first: two
            // short names that start it say less than one that says it all.
            (
                "triton_kernel/gqa_flash_decoding_stage1.py",
                "decode-attention",
            ),
            ("fused_moe/moe_silu_and_mul.py", "gated-activation"),
            ("src/cuda/gather_kv_cache_kernel.cu", "kv-cache"),
            // PyTorch's `linear` is a GEMM; `grid_sampler` resamples; a
            // Lightning Attention folder holds linear attention.
            (
                "backends/vulkan/runtime/graph/ops/glsl/linear_vec.glsl",
                "dense-gemm",
            ),
            (
                "kernels/optimized/cpu/op_grid_sampler_2d.cpp",
                "image-resample",
            ),
            (
                "xopes/ops/lightning_attn/scalar_decay/lasd_recurrence_triton.py",
                "linear-attention",
            ),
            ("src/kernels/int_forward_op/maxpooling.c", "pooling"),
            // `grouped` alone is a grouped GEMM (FBGEMM's
            // `f8f8bf16_rowwise_grouped`); a grouped convolution or
            // grouped-query attention says which.
            (
                "gpu/device/impl/device_grouped_conv_fwd_dl_multiple_d_nhwc.hpp",
                "convolution",
            ),
            (
                "gpu/device/impl/device_grouped_query_attention_forward_wmma.hpp",
                "fused-attention",
            ),
            (
                "quantize/f8f8bf16_rowwise_grouped/f8f8bf16_rowwise_grouped_256.cu",
                "grouped-gemm",
            ),
            // Penalties are applied to the logits the sampler draws from;
            // a fused dtype token still says FP8.
            ("triton_kernel/apply_penalty.py", "topk-sampling"),
            // A gate is MoE routing only when the name says gating: a
            // linear-attention or LSTM gate is not.
            ("fla/ops/kda/gate.py", "linear-attention"),
            ("triton_quant/fp8/fp8w8a8_block_gemm_kernel.py", "fp8-gemm"),
            // Split-KV, paged and decode variants of a flash kernel are
            // decode attention, as the catalog's title says.
            ("python/kernels/flash_decode.py", "decode-attention"),
            (
                "csrc/flash_attn/src/flash_fwd_split_hdim128_bf16_sm80.cu",
                "decode-attention",
            ),
            (
                "hip_fmha/ck_tiled_fmha_fwd_splitkv_dispatch.h",
                "decode-attention",
            ),
            (
                "instantiations/flash_fwd_hdim64_bf16_paged_sm90.cu",
                "decode-attention",
            ),
            // `igemm` is implicit (or indirect) GEMM: a convolution
            // (MIOpen's iGEMMgen kernels, XNNPACK's f32-igemm).
            ("dynamic_igemm/igemm_fwd_gtc_nchw_fp32.s", "convolution"),
            // A word in a file name may carry its number.
            ("src/Simd/SimdAvx512bwWinograd2.cpp", "convolution"),
            ("arm/math/conv3x3s2_direct_fp32.cc", "convolution"),
            ("src/Simd/SimdAvx512bwSynetSoftmax32f.cpp", "softmax"),
            // BLAS routine names with their precision letter.
            ("kernel/x86_64/dzasum_atom.S", "reduction-scan"),
            ("kernel/x86_64/dnrm2.S", "reduction-scan"),
            ("kernel/x86/izamax_sse.S", "topk-selection"),
            ("kernel/x86_64/zaxpy_microk_haswell-2.c", "elementwise"),
            // Checksums: a CRC of the normal bit order is not a norm.
            ("crc/crc64_ecma_norm_by8.asm", "checksum"),
            ("arch/x86/adler32_avx2.c", "checksum"),
            ("arch/arm/crc32_armv8.c", "checksum"),
            ("Samples/dct8x8/dct8x8_kernel1.cuh", "dct"),
            // LAPACK's auxiliary routines: scale / set / add, copy and
            // precision casts, norms, Householder reflectors.
            ("magmablas/zlascl_diag.cu", "elementwise"),
            ("magmablas/zgeadd_batched.cu", "elementwise"),
            ("magmablas/zlacpy_sym_in.cu", "copy-cast-layout"),
            ("magmablas/clag2z.cu", "copy-cast-layout"),
            ("magmablas/zlange.cu", "reduction-scan"),
            ("magmablas/zlarfgx-v2.cu", "dense-factorization"),
            ("kernel/x86_64/zgemm_kernel_4x2_haswell.S", "dense-gemm"),
            // One sparse matrix times one vector is SpMV, not SpMM.
            ("library/src/level2/csrmv_device.h", "sparse-spmv"),
            ("src/backend/opencl/kernel/cscmv.hpp", "sparse-spmv"),
            ("library/src/level3/csrmm_device.h", "sparse-spmm"),
            // PyTorch's tensor op names: matrix-vector products and
            // tensor manipulation.
            ("src/flag_gems/ops/addmv.py", "dense-gemm"),
            ("backend/cuda/execution/MatMulExecution.cu", "dense-gemm"),
            ("src/flag_gems/ops/repeat_interleave.py", "copy-cast-layout"),
            ("src/flag_gems/ops/vstack.py", "copy-cast-layout"),
            // A file of an MoE layer is named for its part: gating,
            // sorting and aligning tokens route; scatter / gather dispatch.
            ("kernels/moe_fused_gate.cu", "moe-routing"),
            ("moe_aux/moe_3stage_sort.cuh", "moe-routing"),
            ("src/moe_gate_entropy.metal", "moe-routing"),
            ("csrc/moe_scatter_cuda.cu", "moe-dispatch"),
            // A KV-cache file that quantizes the cache is KV-cache quantization.
            ("triton_kernel/ppl_int4kv_copy_kv.py", "kv-cache-quant"),
            ("csrc/kv_cache_dequantize.cu", "kv-cache-quant"),
            (
                "cuda/acc/cuda_pixel_shuffle_layer_acc.cu",
                "copy-cast-layout",
            ),
            ("src/backend/cuda/kernel/range.cuh", "elementwise"),
            // An AWQ directory narrows its GEMMs to AWQ; a linear-attention
            // directory holds linear attention.
            ("src/kernels/awq/gemm_awq.cu", "awq-int4-gemm"),
            ("src/ops/awq/gemm_gpu.cu", "awq-int4-gemm"),
            (
                "kernels/linear_attn/kernel/pre_sm90/chunked.cu",
                "linear-attention",
            ),
            ("kernels/hedgehog/hedgehog.cu", "linear-attention"),
            // Composable Kernel's name for fused attention.
            ("gpu/jit/ck_gemm_softmax_gemm.cpp", "fused-attention"),
            // C's math library names, float (`f`) forms too: element-wise.
            ("math/aarch64/advsimd/expf.c", "elementwise"),
            ("math/aarch64/sve/atan2pif.c", "elementwise"),
            ("src/layer/x86/log_softmax_x86.cpp", "softmax"),
            (
                "kernel/x86_64/ztrsm_kernel_LN_haswell.c",
                "dense-factorization",
            ),
            ("kernel/x86_64/dtrmm_kernel_4x8_haswell.c", "dense-gemm"),
            ("kernel/x86_64/zamax_sse2.S", "reduction-scan"),
            // LightLLM's token attention is its decode attention.
            (
                "triton_kernel/token_attention_nopad_att1.py",
                "decode-attention",
            ),
            // Signal-processing names: CMSIS's mat_mult, dot_prod and cfft.
            (
                "Source/NNSupportFunctions/arm_nn_mat_mult_nt_t_s8_s32.c",
                "int8-gemm",
            ),
            (
                "Source/BasicMathFunctions/arm_dot_prod_f32.c",
                "vector-similarity",
            ),
            ("Source/TransformFunctions/arm_cfft_f32.c", "fft"),
        ] {
            assert_eq!(best(path, Some(Kind::Cuda)).as_deref(), Some(op), "{path}");
        }
        // Marlin is the GPTQ-format INT4 kernel; AWQ's own kernels say so.
        assert_eq!(
            best("kernels/marlin/marlin_kernel.cuh", Some(Kind::Cuda)).as_deref(),
            Some("gptq-int4")
        );
        assert_eq!(
            best("csrc/awq_gemm_kernels.cu", Some(Kind::Cuda)).as_deref(),
            Some("awq-int4-gemm")
        );
        // The folder narrows a name that does not narrow itself.
        assert_eq!(
            best("csrc/moe/gemm_kernels.cu", Some(Kind::Cuda)).as_deref(),
            Some("grouped-gemm")
        );
        assert_eq!(
            best("csrc/kernels/mla/ds32_decode_fwd.cu", Some(Kind::Cuda)).as_deref(),
            Some("mla-attention")
        );
        // A directory's number is its own: `blas1/` is BLAS level 1.
        assert_ne!(
            best(
                "library/src/blas1/rocblas_swap_kernels.cpp",
                Some(Kind::Hip)
            )
            .as_deref(),
            Some("dense-gemm")
        );
        // A biquad cascade is no cascade attention.
        assert_ne!(
            best(
                "Source/FilteringFunctions/arm_biquad_cascade_df1_f32.c",
                Some(Kind::SimdArm)
            )
            .as_deref(),
            Some("decode-attention")
        );
        // A qualifier alone narrows nothing: an INT8 quantizer is no GEMM,
        // and a type-dispatch header is no MoE dispatch.
        assert_ne!(
            best("quant/int8_quant.cu", Some(Kind::Cuda)).as_deref(),
            Some("low-precision-attention")
        );
        assert_ne!(
            best("csrc/dispatch_utils.h", Some(Kind::Cuda)).as_deref(),
            Some("moe-dispatch")
        );
        // A GEMM overlapped with a collective keeps its run-of-tokens name.
        assert_eq!(
            best("kernels/parallel/gemm_ar/gemm_ar_h100.cu", Some(Kind::Cuda)).as_deref(),
            Some("comm-compute-overlap")
        );
        // Ciphers by their names; a speckle filter is no SPECK cipher.
        for cipher in [
            "crypto_stream/chacha20/dolbeau/chacha20_dolbeau-avx2.c",
            "crypto_aead/aes256gcm/aesni/aead_aes256gcm_aesni.c",
            "sm4_simd.cpp",
        ] {
            assert_eq!(
                best(cipher, Some(Kind::SimdX86)).as_deref(),
                Some("symmetric-cipher"),
                "{cipher}"
            );
        }
        assert_ne!(
            best("filters/speckle_filter.cu", Some(Kind::Cuda)).as_deref(),
            Some("symmetric-cipher")
        );
        assert_eq!(
            best("sha_simd.cpp", Some(Kind::SimdX86)).as_deref(),
            Some("cryptographic-hash")
        );
    }

    fn best_of(s: &Signals, path: &str, kind: Kind, content: &str) -> Option<String> {
        s.best(path, Some(kind), content.as_bytes())
            .map(|c| s.ops[c.op].slug.clone())
    }

    /// Asserts that every path, with the same kind and content, goes to `op`.
    fn assert_all_best(s: &Signals, paths: &[&str], kind: Kind, content: &str, op: &str) {
        for path in paths {
            assert_eq!(
                best_of(s, path, kind, content).as_deref(),
                Some(op),
                "{path}"
            );
        }
    }

    #[test]
    fn a_softmax_exponentiates_a_difference_from_the_max_and_a_norm_roots_eps() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let softmax =
            "@triton.jit\ndef k(x_ptr, y_ptr):\n    x = tl.load(x_ptr)\n    m = tl.max(x, 0)\n    \
                       e = tl.exp(x - m)\n    tl.store(y_ptr, e / tl.sum(e, 0))\n";
        assert_eq!(
            best_of(&s, "ops/k.py", Kind::Triton, softmax).as_deref(),
            Some("softmax")
        );
        // An FP8 block quantizer: the same identifiers, a power-of-two scale.
        let quant = "@triton.jit\ndef k(x_ptr, y_ptr):\n    x = tl.load(x_ptr)\n    amax = tl.max(tl.abs(x), 0)\n    \
                     scale = tl.exp2(tl.ceil(tl.log2(amax / 448.0)))\n    tl.store(y_ptr, tl.sum(x / scale, 0))\n";
        assert_ne!(
            best_of(&s, "ops/k.py", Kind::Triton, quant).as_deref(),
            Some("softmax")
        );
        let norm = "__global__ void k(float* x, float eps) {\n  float var = sum_sq / n;\n  float r = rsqrtf(var + eps);\n}\n";
        assert_eq!(
            best_of(&s, "src/k.cu", Kind::Cuda, norm).as_deref(),
            Some("normalization")
        );
        // A Lennard-Jones pair force: `epsilon` is an energy, the root a distance.
        let pair = "__device__ float f(float r2, float epsilon, float sigma) {\n  float mean = 0.5f * r2;\n  \
                    float rinv = rsqrtf(r2);\n  return 24.0f * epsilon * pow(sigma * rinv, 6);\n}\n";
        assert_ne!(
            best_of(&s, "src/pair.cu", Kind::Cuda, pair).as_deref(),
            Some("normalization")
        );
    }

    #[test]
    fn a_qualifier_in_the_directory_that_says_attention_narrows_it() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // The name says only the backend (`_triton_impl_fwd`); the
        // directory says attention and, in the same word, decode / paged.
        let triton = "@triton.jit\ndef k(q, k_cache, softmax_scale):\n    pass\n";
        assert_all_best(
            &s,
            &[
                "ejkernel/kernels/_triton/ragged_decode_attention/_triton_impl_fwd.py",
                "ejkernel/kernels/_pallas/tpu/ragged_page_attention/_interface.py",
            ],
            Kind::Triton,
            triton,
            "decode-attention",
        );
        assert_eq!(
            best_of(
                &s,
                "ejkernel/kernels/_triton/flash_attention/_triton_impl_fwd.py",
                Kind::Triton,
                triton
            )
            .as_deref(),
            Some("fused-attention")
        );
    }

    #[test]
    fn a_sampling_directory_is_token_sampling_only_beside_its_content() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // Farthest point sampling in the point-cloud operator library.
        let fps = "__global__ void furthestsampling_cuda_kernel(const float* xyz, float* tmp, int* idx) {}\n";
        assert_eq!(
            best_of(
                &s,
                "libs/pointops2/src/sampling/sampling_cuda_kernel.cu",
                Kind::Cuda,
                fps
            )
            .as_deref(),
            Some("point-cloud-ops")
        );
        assert_eq!(
            best_of(
                &s,
                "libs/pointops/src/knnquery/knnquery_cuda_kernel.cu",
                Kind::Cuda,
                ""
            )
            .as_deref(),
            Some("point-cloud-ops")
        );
        let top_p = "__global__ void k(const float* logits, float top_p, float temperature) {}\n";
        assert_eq!(
            best_of(&s, "csrc/sampling/kernels.cu", Kind::Cuda, top_p).as_deref(),
            Some("topk-sampling")
        );
        // Top-k said first names the sampling's parameter, not a selection
        // (ROCmForge's `topk_sampling.hip`, `topk_topp_sampling.hip`).
        assert_all_best(
            &s,
            &[
                "kernels/topk_sampling.hip",
                "kernels/topk_topp_sampling.hip",
            ],
            Kind::Hip,
            top_p,
            "topk-sampling",
        );
        assert_eq!(
            best_of(&s, "kernels/topk_kernel.hip", Kind::Hip, "").as_deref(),
            Some("topk-selection")
        );
        let grid = "__global__ void k(const float* src, float* dst, int h, int w) {}\n";
        assert_ne!(
            best_of(&s, "ops/sampling/grid_kernel.cu", Kind::Cuda, grid).as_deref(),
            Some("topk-sampling")
        );
    }

    #[test]
    fn among_equal_names_the_one_said_first_is_the_computation() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // A convolution built on WMMA, beside its DL twin (Open Image
        // Denoise's Composable Kernel convolutions).
        assert_eq!(
            best_of(&s, "devices/hip/ck_conv_wmma.cpp", Kind::Hip, "").as_deref(),
            Some("convolution")
        );
        assert_eq!(
            best_of(&s, "devices/hip/ck_conv_dl.cpp", Kind::Hip, "").as_deref(),
            Some("convolution")
        );
        // XNNPACK's weight packing for a GEMM is a layout copy.
        assert_eq!(
            best_of(
                &s,
                "src/x32-packw/gen/x32-packw-x8-gemm-goi-avx-u4.c",
                Kind::SimdX86,
                ""
            )
            .as_deref(),
            Some("copy-cast-layout")
        );
    }

    #[test]
    fn a_bare_spec_is_speculative_only_beside_speculative_code() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // svox2's grid specification, not a draft model's.
        assert_ne!(
            best_of(
                &s,
                "svox2/csrc/include/data_spec.hpp",
                Kind::Cuda,
                "struct SparseGridSpec { float* density; };"
            )
            .as_deref(),
            Some("speculative-decoding")
        );
        assert_eq!(
            best_of(
                &s,
                "kernels/spec_kernels.cu",
                Kind::Cuda,
                "__global__ void verify(int* draft_token, int* accept_token) {}"
            )
            .as_deref(),
            Some("speculative-decoding")
        );
        assert_eq!(
            best_of(&s, "csrc/spec_decode/tree_verify.cu", Kind::Cuda, "").as_deref(),
            Some("speculative-decoding")
        );
    }

    #[test]
    fn a_bare_swa_is_attention_only_beside_its_window() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // bwa-mem2's banded Smith-Waterman alignment.
        assert_ne!(
            best_of(
                &s,
                "src/bandedSWA.cpp",
                Kind::SimdX86,
                "__m512i h = _mm512_max_epi16(e, f);\n"
            )
            .as_deref(),
            Some("sliding-window-attention")
        );
        assert_eq!(
            best_of(
                &s,
                "csrc/swa_decode.cu",
                Kind::Cuda,
                "if (k < q - window_size_left) continue;\n"
            )
            .as_deref(),
            Some("sliding-window-attention")
        );
    }

    #[test]
    fn a_bare_norm_is_normalisation_beside_its_content_else_a_reduction() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // A solver's residual norm and a vector norm sum squares.
        let residual = "__global__ void NormKernel(const double* u, double* out, int n) {\n  double s = 0; for (int i = 0; i < n; ++i) s += u[i] * u[i];\n  atomicAdd(out, s);\n}\n";
        assert_eq!(
            best_of(&s, "jacobi/codes/Norm.cpp", Kind::Hip, residual).as_deref(),
            Some("reduction-scan")
        );
        assert_eq!(
            best_of(&s, "src/flag_gems/ops/vector_norm.py", Kind::Triton, "").as_deref(),
            Some("reduction-scan")
        );
        // A norm that scales by an rsqrt of the mean square normalises.
        let rms = "__global__ void norm(const float* x, float* y, float eps) {\n  float v = x[0] * x[0];\n  y[0] = x[0] * rsqrtf(v + eps);\n}\n";
        assert_eq!(
            best_of(&s, "csrc/norm.cu", Kind::Cuda, rms).as_deref(),
            Some("normalization")
        );
        // Layer names that normalise say so outright.
        for path in [
            "fused/weight_norm.py",
            "acc/x86_inst_norm_layer_acc.cc",
            "sycl/WelfordNorm.h",
        ] {
            let kind = if path.ends_with(".py") {
                Kind::Triton
            } else {
                Kind::SimdX86
            };
            assert_eq!(
                best_of(&s, path, kind, "").as_deref(),
                Some("normalization"),
                "{path}"
            );
        }
    }

    #[test]
    fn a_kernels_own_name_says_what_a_generic_file_computes() {
        assert_eq!(
            entry_tokens(
                "k.cu",
                Some(Kind::Cuda),
                b"__global__ __launch_bounds__(256, 2) void histogram256_block(int* h) {}"
            ),
            ["histogram256", "block", "|"]
        );
        assert_eq!(
            entry_tokens(
                "k.metal",
                Some(Kind::Metal),
                b"kernel void add_f32(device float* a [[buffer(0)]]) {}"
            ),
            ["add", "f32", "|"]
        );
        assert_eq!(
            entry_tokens(
                "k.py",
                Some(Kind::Triton),
                b"@triton.jit\ndef _softmax_fwd(x_ptr, n):\n    pass\n"
            ),
            ["softmax", "fwd", "|"]
        );
        // A macro that spells the qualifier declares no kernel.
        assert!(entry_tokens("k.h", Some(Kind::Cuda), b"#define KERNEL __global__\n").is_empty());
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // Where only the HIP backend's default would answer.
        let hist = "__global__ void histogram256_block(int* h, const unsigned char* d) { atomicAdd(&h[d[threadIdx.x]], 1); }";
        assert_eq!(
            best_of(&s, "HIP-Basic/texture_management/main.hip", Kind::Hip, hist).as_deref(),
            Some("histogram")
        );
        // A file whose own name says its op keeps it.
        assert_eq!(
            best_of(&s, "kernels/softmax.hip", Kind::Hip, hist).as_deref(),
            Some("softmax")
        );
    }

    #[test]
    fn a_simd_source_named_for_its_isa_is_placed_by_the_functions_it_exports() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // FeatherCNN's `booster/avx/sgeconv.cpp`-like: the name says the
        // ISA, the exported functions say convolution; the static helper
        // says nothing.
        let conv = "#include <immintrin.h>\n\
            static inline __m256 madd(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }\n\
            void conv3x3s1_avx(const float* in, float* out, int n)\n{\n  _mm256_setzero_ps();\n}\n\
            void conv1x1s1_avx(const float* in, float* out, int n)\n{\n  _mm256_setzero_ps();\n}\n";
        assert_eq!(
            best_of(&s, "src/booster/avx/generic.cpp", Kind::SimdX86, conv).as_deref(),
            Some("convolution")
        );
        // A library file exporting many things at once: its names agree on
        // nothing, so the backend's default stands.
        let mixed = "#include <immintrin.h>\n\
            void ccv_conv3x3(float* a) { _mm256_setzero_ps(); }\n\
            void ccv_sort_keys(int* a) { }\n\
            void ccv_color_transform(float* a) { }\n\
            void ccv_blur_image(float* a) { }\n";
        assert_eq!(
            best_of(&s, "lib/ccv_basic.c", Kind::SimdX86, mixed).as_deref(),
            Some("x86-avx512-amx")
        );
        // Only where the name says nothing: `softmax_avx.c` keeps softmax.
        assert_eq!(
            best_of(&s, "src/softmax_avx.c", Kind::SimdX86, conv).as_deref(),
            Some("softmax")
        );
    }

    const ONLINE_SOFTMAX: &str = "    qk = tl.dot(q, k)\n    m_ij = tl.maximum(m_i, tl.max(qk, 1))\n    p = tl.exp2(qk - m_ij[:, None])\n    alpha = tl.exp2(m_i - m_ij)\n    l_i = l_i * alpha + tl.sum(p, 1)\n";
    const RMS_NORM: &str =
        "  float ms = sum_sq / n;\n  float inv = rsqrtf(ms + eps);\n  y[i] = x[i] * inv * w[i];\n";

    #[test]
    fn what_the_code_computes_outranks_what_its_name_says() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // The name says MoE gating, the code is an attention inner loop.
        assert_eq!(
            best_of(&s, "kernels/gate.py", Kind::Triton, ONLINE_SOFTMAX).as_deref(),
            Some("fused-attention")
        );
        // The name says GELU (element-wise), the code normalises a row.
        assert_eq!(
            best_of(&s, "kernels/gelu_fused.cu", Kind::Cuda, RMS_NORM).as_deref(),
            Some("normalization")
        );
        // The name says a radix-tree KV cache, the code is an FFT.
        let fft = "  float2 w = twiddle[k];\n  float2 t = cmul(w, b);\n  // radix-4 butterfly\n";
        assert_eq!(
            best_of(&s, "ops/radix_cache.cuh", Kind::Cuda, fft).as_deref(),
            Some("fft")
        );
        // The evidence says so, for the draft.
        let c = s
            .best(
                "kernels/gate.py",
                Some(Kind::Triton),
                ONLINE_SOFTMAX.as_bytes(),
            )
            .unwrap();
        assert!(c
            .evidence
            .iter()
            .any(|e| e.to_string().starts_with("computes attention")));
        assert!(!is_weak(&c.evidence));
    }

    #[test]
    fn a_computation_confirms_the_more_specific_op_its_name_says() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // A decode kernel's online softmax is still decode attention; a
        // cross-entropy's softmax is still the loss.
        assert_eq!(
            best_of(&s, "csrc/paged_attention_v2.cu", Kind::Cuda, ONLINE_SOFTMAX).as_deref(),
            Some("decode-attention")
        );
        let ce = "  m = tl.max(x)\n  d = tl.sum(tl.exp(x - m))\n  loss = tl.log(d) + m - x_y\n  if y == ignore_index: pass\n";
        assert_eq!(
            best_of(&s, "ops/cross_entropy.py", Kind::Triton, ce).as_deref(),
            Some("fused-cross-entropy")
        );
        // Identifiers match whole: `num_items` and `col_idx` are no running
        // max and sum, so a GEMM with an exp epilogue is not attention.
        let gemm = "  acc = tl.dot(a, b)\n  n = num_items + col_idx\n  y = tl.exp(acc)\n";
        assert_eq!(
            best_of(&s, "ops/gemm_exp.py", Kind::Triton, gemm).as_deref(),
            Some("dense-gemm")
        );
    }

    #[test]
    fn a_backend_says_how_a_file_is_written_not_what_it_computes() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // `neon` names the ISA; `spatial/` says the file computes distances.
        assert_eq!(
            best_of(&s, "include/spatial/neon.h", Kind::SimdArm, "").as_deref(),
            Some("vector-similarity")
        );
        assert_eq!(
            best_of(&s, "include/reduce/haswell.h", Kind::SimdX86, "").as_deref(),
            Some("reduction-scan")
        );
        // With nothing else, the backend is still the answer.
        assert_eq!(
            best_of(&s, "include/misc/neon.h", Kind::SimdArm, "").as_deref(),
            Some("arm-neon-sve")
        );
    }

    #[test]
    fn an_op_bound_to_kinds_admits_only_those() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        assert!(s.admits("x86-avx512-amx", Kind::SimdX86));
        assert!(!s.admits("x86-avx512-amx", Kind::SimdOther));
        assert!(!s.admits("metal-attention", Kind::Cuda));
        assert!(s.admits("elementwise", Kind::SimdOther));
        // XNNPACK's zip kernels interleave: layout.
        assert_eq!(
            best_of(&s, "src/x8zip/x2-neon.c", Kind::SimdArm, "").as_deref(),
            Some("copy-cast-layout")
        );
    }

    #[test]
    fn an_op_bound_to_the_files_kind_wins_among_equally_specific_names() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // Metal attention is fused attention written for Metal.
        assert_eq!(
            best_of(&s, "kernels/flash_attn.metal", Kind::Metal, ONLINE_SOFTMAX).as_deref(),
            Some("metal-attention")
        );
        assert_eq!(
            best_of(&s, "kernels/flash_attn.cu", Kind::Cuda, ONLINE_SOFTMAX).as_deref(),
            Some("fused-attention")
        );
        // A Metal GEMM's helper header, placed by its directory.
        assert_eq!(
            best_of(
                &s,
                "metal/kernel/matmul/gemm/common/operands.h",
                Kind::Metal,
                ""
            )
            .as_deref(),
            Some("metal-quant-gemm")
        );
    }

    #[test]
    fn an_activation_is_gated_only_where_its_code_gates() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let gated =
            "void silu_and_mul(Tensor& out, Tensor& x) { act_and_mul_kernel<<<g, b>>>(out, x); }";
        let plain = "__global__ void relu_kernel(float* x) { x[i] = fmaxf(x[i], 0.f); }";
        assert_eq!(
            best_of(&s, "csrc/activation_kernels.cu", Kind::Cuda, gated).as_deref(),
            Some("gated-activation")
        );
        assert_eq!(
            best_of(&s, "csrc/activation_kernels.cu", Kind::Cuda, plain).as_deref(),
            Some("elementwise")
        );
        assert_eq!(
            best_of(&s, "kernel/activation/activations.h", Kind::Metal, "").as_deref(),
            Some("elementwise")
        );
    }

    #[test]
    fn quantized_says_a_gguf_gemm_only_beside_gguf_blocks() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // llama.cpp-derived `quantized.cu` (candle): GGUF block types.
        let gguf = "struct block_q4_K { half d; uint8_t qs[QK_K / 2]; };";
        assert_eq!(
            best_of(&s, "candle-kernels/src/quantized.cu", Kind::Cuda, gguf).as_deref(),
            Some("quantized-device-gemm")
        );
        // An int8 operator library: the word is a precision, the rest of
        // the name says the computation (Simd's Synet layers, ExecuTorch's
        // Cortex-M ops).
        let int8 = "void Forward(const uint8_t* src, int32_t zero, uint8_t* dst) {}";
        assert_eq!(
            best_of(
                &s,
                "src/Simd/SimdSynetQuantizedConvolution.cpp",
                Kind::SimdX86,
                int8
            )
            .as_deref(),
            Some("convolution")
        );
        assert_eq!(
            best_of(
                &s,
                "backends/cortex_m/ops/op_quantized_add.cpp",
                Kind::SimdArm,
                int8
            )
            .as_deref(),
            Some("elementwise")
        );
    }

    #[test]
    fn a_position_embedding_is_rope_beside_rotary_code_else_a_lookup() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // ROCmForge's and ScaleLLM's RoPE kernels, MetalLM's Metal one.
        let rotary = "// rotary: x0' = x0 * cos - x1 * sin\n__global__ void k() {}";
        let metal = "// RoPE Kernel Arguments\nstruct MetalRopeArgs { uint dim; };";
        assert_eq!(
            best_of(&s, "kernels/position_embeddings.hip", Kind::Hip, rotary).as_deref(),
            Some("rope")
        );
        assert_eq!(
            best_of(
                &s,
                "Backend/Metal/PositionalEmbeddingsKernels.metal",
                Kind::Metal,
                metal
            )
            .as_deref(),
            Some("rope")
        );
        // A learned position table read by index is an embedding lookup.
        let table = "__global__ void k(const float* wpe, const int* pos) {}";
        assert_eq!(
            best_of(&s, "src/pos_embedding_kernels.cu", Kind::Cuda, table).as_deref(),
            Some("embedding-lookup")
        );
    }

    #[test]
    fn alignment_dp_by_its_algorithms_names_and_gap_penalties_not_memory_alignment() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let simd = "__m128i h = _mm_max_epi16(e, f);";
        // ksw2's extension kernels, GenomeWorks' Myers bit vectors and POA,
        // HMMER's profile-HMM filter, GKL's pair-HMM directory.
        for (path, kind) in [
            ("ksw2_extz2_sse.c", Kind::SimdX86),
            ("cudaaligner/src/myers_gpu.cu", Kind::Cuda),
            ("cudapoa/src/cudapoa_nw_banded.cuh", Kind::Cuda),
            ("src/impl_sse/msvfilter.c", Kind::SimdX86),
            (
                "src/main/native/pairhmm/avx-functions-float.h",
                Kind::SimdX86,
            ),
        ] {
            assert_eq!(
                best_of(&s, path, kind, simd).as_deref(),
                Some("sequence-alignment"),
                "{path}"
            );
        }
        // An `alignment/` directory says the op beside gap penalties only.
        let affine = "int16_t gap_open = 11, gap_ext = 1; // local, Smith-Waterman";
        assert_eq!(
            best_of(&s, "src/alignment/gpu/sw_kernel.cu", Kind::Cuda, affine).as_deref(),
            Some("sequence-alignment")
        );
        let aligned_copy = "__global__ void copy(float4* dst, const float4* src) {}";
        assert_ne!(
            best_of(
                &s,
                "src/alignment/copy_aligned.cu",
                Kind::Cuda,
                aligned_copy
            )
            .as_deref(),
            Some("sequence-alignment")
        );
        // SWIPE as a name is FastMoE's balancing strategy, not an aligner.
        assert_ne!(
            best_of(&s, "cuda/swipe.cu", Kind::Cuda, "__global__ void k() {}").as_deref(),
            Some("sequence-alignment")
        );
    }

    #[test]
    fn a_quantum_simulator_applies_gates_to_a_state_vector() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let gates = "template <typename fp_type> class SimulatorAVX {\n  // Applies a gate to \
                     num_qubits amplitudes of the state vector.\n  void ApplyGate(const \
                     std::vector<unsigned>& qs, const fp_type* matrix, State& state) {}\n};\n";
        for (path, kind) in [
            ("lib/simulator_avx.h", Kind::SimdX86),
            ("lib/statespace_cuda_kernels.h", Kind::Cuda),
            (
                "pennylane_lightning/core/simulators/lightning_qubit/gates/cpu_kernels/avx_common/ApplyHadamard.hpp",
                Kind::SimdX86,
            ),
            (
                "pennylane_lightning/core/simulators/lightning_kokkos/gates/BasicGateFunctors.hpp",
                Kind::Offload,
            ),
        ] {
            assert_eq!(
                best_of(&s, path, kind, gates).as_deref(),
                Some("statevector-simulation"),
                "{path}"
            );
        }
        // QuaRot's online Hadamard of quantized GEMMs stays a rotation; a
        // MoE router's gate is no quantum gate.
        let fwht = "__global__ void fast_hadamard_transform(half* x) { /* butterfly */ }";
        assert_eq!(
            best_of(&s, "quarot/kernels/hadamard.cu", Kind::Cuda, fwht).as_deref(),
            Some("hadamard-rotation")
        );
        let router = "__global__ void topk_gate(const float* logits, int* experts) {}";
        assert_ne!(
            best_of(&s, "csrc/moe/gate.cu", Kind::Cuda, router).as_deref(),
            Some("statevector-simulation")
        );
    }

    #[test]
    fn a_starred_alternative_matches_every_identifier_it_starts() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // An MFMA builtin is always suffixed with its shape and types.
        let attention = "__global__ void k(const half* q) {\n  \
                         acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);\n  \
                         float p = __expf(s - m_i); l_i = l_i * alpha + p;\n}\n";
        assert_eq!(
            best_of(&s, "csrc/kernels/k_bf16.hip", Kind::Hip, attention).as_deref(),
            Some("fused-attention")
        );
        // The start of an identifier, not its middle.
        assert!(Bound::Start.admits(
            b"x = __builtin_amdgcn_mfma_f32(",
            b"__builtin_amdgcn_mfma",
            4,
            25
        ));
        assert!(!Bound::Start.admits(b"my_nvshmem_put(", b"nvshmem_", 3, 11));
        assert!(!Bound::Whole.admits(b"nvshmem_put(", b"nvshmem_", 0, 8));
    }

    #[test]
    fn a_step_named_in_its_ops_directory_is_part_of_that_op() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let online = "template <int N> struct Softmax {\n  // running row max and row sum of \
                      the scores\n  float row_max, row_sum;\n};\n";
        let cases = [
            ("csrc/flash_attn/src/softmax.h", "fused-attention"),
            (
                "deepspeed/ops/sparse_attention/softmax.h",
                "sparse-attention",
            ),
            // Outside an op that takes it as a step, a softmax is a softmax.
            ("csrc/kernels/softmax.h", "softmax"),
        ];
        for (path, op) in cases {
            assert_eq!(
                best_of(&s, path, Kind::Cuda, online).as_deref(),
                Some(op),
                "{path}"
            );
        }
        // A normalization is a layer beside attention, not a step of it.
        let norm = "__global__ void rms_norm(float* x, float eps) { x[0] = rsqrtf(eps); }";
        assert_eq!(
            best_of(&s, "csrc/attention/rms_norm.cu", Kind::Cuda, norm).as_deref(),
            Some("normalization")
        );
    }

    #[test]
    fn a_matrix_multiply_is_a_gemm_and_a_multiply_alone_is_elementwise() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let k =
            "__global__ void k(const float* a, const float* b, float* c) { c[0] = a[0] * b[0]; }";
        for (path, op) in [
            (
                "Samples/0_Introduction/matrixMul/matrixMul_kernel.cu",
                "dense-gemm",
            ),
            ("hip/hip_matrix_mul.cpp", "dense-gemm"),
            (
                "dsppp/Include/dsppp/Scalar/matrix_multiply.hpp",
                "dense-gemm",
            ),
            ("operators/basic/matrix_mult_op.metal", "dense-gemm"),
            ("kernels/vec_mul.cu", "elementwise"),
        ] {
            assert_eq!(
                best_of(&s, path, Kind::Cuda, k).as_deref(),
                Some(op),
                "{path}"
            );
        }
    }

    #[test]
    fn blas_and_framework_layer_names_say_their_op() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let k = "__global__ void k(const float* a, float* b) { b[0] = a[0]; }";
        for (path, op) in [
            // BLAS extensions' out-of-place and in-place matrix copies.
            ("kernel/mips/zomatcopy_cn.c", "copy-cast-layout"),
            ("kernel/generic/imatcopy_rt.c", "copy-cast-layout"),
            // A reorder between memory formats.
            (
                "src/cpu/aarch64/reorder/jit_blk_reorder.cpp",
                "copy-cast-layout",
            ),
            // BLAS's absolute maximum and minimum.
            ("kernel/alpha/amax.S", "reduction-scan"),
            ("kernel/loongarch64/amin_lasx.S", "reduction-scan"),
            // AES key expansion is the cipher's, not a broadcast expand.
            ("aes/src/x86/ni/expand.rs", "symmetric-cipher"),
            // A fully connected layer is a GEMM.
            ("source/device/opencl/cl4/fc.cl", "dense-gemm"),
            // A sequence fill.
            ("src/backend/cuda/kernel/iota.cuh", "elementwise"),
            // A compound name keeps the op of its other words.
            ("kv_cache_reorder.cu", "kv-cache"),
        ] {
            assert_eq!(
                best_of(&s, path, Kind::Cuda, k).as_deref(),
                Some(op),
                "{path}"
            );
        }
    }

    #[test]
    fn a_spatial_name_is_a_layers_extent_and_a_spatial_directory_a_distance_family() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let k = "__global__ void k(const float* a, float* b) { b[0] = a[0]; }";
        assert_eq!(
            best_of(
                &s,
                "lib/THCUNN/SpatialAdaptiveAveragePooling.cu",
                Kind::Cuda,
                k
            )
            .as_deref(),
            Some("pooling")
        );
        assert_eq!(
            best_of(
                &s,
                "assets/shaders/rtdgi/restir_spatial.hlsl",
                Kind::Hlsl,
                k
            ),
            None
        );
        assert_eq!(
            best_of(&s, "include/numkong/spatial/serial.h", Kind::Scalar, "").as_deref(),
            Some("vector-similarity")
        );
        let distances =
            "SIMSIMD_PUBLIC void simsimd_l2sq_f32_neon(float const* a, float const* b) {}";
        assert_eq!(
            best_of(&s, "include/simsimd/spatial.h", Kind::SimdArm, distances).as_deref(),
            Some("vector-similarity")
        );
    }

    #[test]
    fn a_gemm_or_a_copy_named_in_the_directory_of_the_op_it_serves_is_part_of_it() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let asm = "// 4x4 micro-kernel\n\tfmla v16.4s, v0.4s, v4.s[0]\n";
        let cases = [
            // A convolution's im2col and Winograd GEMMs.
            (
                "source/op/conv/cortex-a/armv8/sgemm_4x4_a72.S",
                Kind::SimdArm,
                "convolution",
            ),
            (
                "source/op/conv/cortex-a/armv8/i8gemm_4x16_a72_int8.S",
                Kind::SimdArm,
                "convolution",
            ),
            // A GEMM's packing, in the GEMM's directory.
            (
                "kai/ukernels/matmul/pack/kai_lhs_pack_f32p2vlx1_f32_sme.c",
                Kind::SimdArm,
                "dense-gemm",
            ),
            // An attention's QK and PV GEMMs.
            (
                "csrc/fmha/gemm_kernel_utils.h",
                Kind::Cuda,
                "fused-attention",
            ),
            // Outside an op they serve, each is itself.
            ("src/kernels/sgemm_4x4.S", Kind::SimdArm, "dense-gemm"),
            ("src/layers/pack_nchw.c", Kind::SimdArm, "copy-cast-layout"),
        ];
        for (path, kind, op) in cases {
            assert_eq!(best_of(&s, path, kind, asm).as_deref(), Some(op), "{path}");
        }
        // A directory of the step's own, nearer than the served op's, keeps it.
        assert_eq!(
            best_of(&s, "src/gemm/transpose/transpose_4x4.c", Kind::SimdArm, asm).as_deref(),
            Some("copy-cast-layout")
        );
    }

    #[test]
    fn molecular_dynamics_kernels_by_the_force_field_term_they_compute() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let pair = "__global__ void computePairs(const float4* posq, float4* forces) {\n  \
                    if (r2 < cutoffSquared) { float sig6 = sigma * sigma; float eps = epsilon; \
                    float3 force = dEdR * delta; }\n}\n";
        let list = "__global__ void buildList(const float4* pos, unsigned int* nlist) {\n  \
                    // bin particles, then each cell's neighbors within rlist in the box\n  \
                    float3 d = minimumImage(pos[j] - pos[i], box);\n}\n";
        let bonded = "__global__ void dihedralForces(const int4* atoms, float4* forces) {\n  \
                      float phi = atan2f(y, x); float energy = k * (1 + cosf(n * phi)); \
                      /* torsion */\n}\n";
        let pme = "__global__ void spreadCharges(const float4* posq, real* pmeGrid) {\n  \
                   // B-spline weights of each charge on the Ewald mesh\n  \
                   real bsplineTheta = 0; real ewaldAlpha = 0.3;\n}\n";
        let step = "__global__ void stepLangevin(float4* velm, const long long* force, \
                    float dt, float friction, float kT) {}\n";
        let cases = [
            (
                "platforms/cuda/src/kernels/nonbonded.cu",
                pair,
                "md-nonbonded-forces",
            ),
            ("md/kernels/pair_kernels.cu", pair, "md-nonbonded-forces"),
            ("md/NeighborListGPUBinned.cu", list, "md-neighbor-list"),
            ("md/HarmonicDihedralForceGPU.cu", bonded, "md-bonded-forces"),
            ("src/bonded/bond_kernels.cu", bonded, "md-bonded-forces"),
            ("md/PPPMForceComputeGPU.cu", pme, "particle-mesh-ewald"),
            ("kernels/pme_spread.cu", pme, "particle-mesh-ewald"),
            ("md/TwoStepLangevinGPU.cu", step, "md-integrators"),
        ];
        for (path, content, op) in cases {
            assert_eq!(
                best_of(&s, path, Kind::Cuda, content).as_deref(),
                Some(op),
                "{path}"
            );
        }
        // A rotation by an angle is no bonded term, nor is a bond's price.
        let rotate = "__global__ void rotate(const uchar4* src, uchar4* dst, float angle) {\n  \
                      float theta = atan2f(y, x); float energy = 0;\n}\n";
        for path in ["imgproc/rotate_angle.cu", "pricing/bond.cu"] {
            assert_ne!(
                best_of(&s, path, Kind::Cuda, rotate).as_deref(),
                Some("md-bonded-forces"),
                "{path}"
            );
        }
    }

    #[test]
    fn unicode_and_base64_codecs_by_their_formats_names() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let simd = "__m256i v = _mm256_shuffle_epi8(lut, in);";
        assert_all_best(
            &s,
            &[
                "src/haswell/avx2_convert_utf8_to_utf16.cpp",
                "src/generic/utf8_validation/utf8_lookup4_algorithm.h",
                "src/Simd/SimdAvx2Base64.cpp",
                "hwy/contrib/base64/base64-inl.h",
            ],
            Kind::SimdX86,
            simd,
            "text-codec",
        );
        // A byte-order swap is a layout change, and a Python kernel that
        // decodes its input file as UTF-8 is not a codec.
        assert_ne!(
            best_of(&s, "src/byteswap_avx2.cpp", Kind::SimdX86, simd).as_deref(),
            Some("text-codec")
        );
        let triton = "@triton.jit\ndef k(x):\n    pass\nopen(p, encoding='utf8')";
        assert_ne!(
            best_of(&s, "ops/rmsnorm.py", Kind::Triton, triton).as_deref(),
            Some("text-codec")
        );
    }

    #[test]
    fn bvh_builds_ray_casts_and_ray_tracing_shader_stages_are_ray_tracing() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let device = "__device__ float3 f(float3 a) { return a; }";
        for (path, kind) in [
            ("hiprt/impl/LbvhBuilderKernels.h", Kind::Hip),
            ("Src/CUDA/Raytracing/BVH8.h", Kind::Cuda),
            ("warp/native/bvh.cu", Kind::Cuda),
            ("kaolin/csrc/render/spc/raytrace_cuda.cu", Kind::Cuda),
            ("assets/shaders/rt/gbuffer.rchit.hlsl", Kind::Hlsl),
        ] {
            assert_eq!(
                best_of(&s, path, kind, device).as_deref(),
                Some("ray-tracing"),
                "{path}"
            );
        }
        // An AABB alone is a collision broad phase as much as a BVH node.
        assert_ne!(
            best_of(&s, "src/collision/aabb_overlap.cu", Kind::Cuda, device).as_deref(),
            Some("ray-tracing")
        );
    }

    #[test]
    fn a_dropout_draws_random_numbers_only_beside_a_generator() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // An inference engine's dropout scales by 1 - p and draws nothing.
        let scale = "float32x4_t _s = vdupq_n_f32(scale); _p = vmulq_f32(_p, _s);";
        assert_ne!(
            best_of(&s, "src/layer/arm/dropout_arm.cpp", Kind::SimdArm, scale).as_deref(),
            Some("random-philox")
        );
        let drawn = "__global__ void k(float* x) { curandStatePhilox4_32_10_t st; curand_init(seed, i, 0, &st); }";
        assert_eq!(
            best_of(&s, "csrc/transformer/dropout_kernels.cu", Kind::Cuda, drawn).as_deref(),
            Some("random-philox")
        );
        let xorwow =
            "__global__ void k() { rocrand_state_xorwow st; rocrand_init(seed, id, 0, &st); }";
        assert_eq!(
            best_of(&s, "src/kernels/MIOpenDropoutHIP.cpp", Kind::Hip, xorwow).as_deref(),
            Some("random-philox")
        );
    }

    #[test]
    fn a_jacobi_preconditioner_or_an_image_laplacian_is_no_grid_stencil() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let device = "__global__ void k(const float* v, float* out) {}";
        for path in [
            "common/unified/preconditioner/jacobi_kernels.cpp",
            "src/ppl/cv/cuda/laplacian.cu",
            "src/solvers/gauss_seidel_solver.cu",
        ] {
            assert_ne!(
                best_of(&s, path, Kind::Cuda, device).as_deref(),
                Some("stencil"),
                "{path}"
            );
        }
        // Capitals read as the lower-case names: `JACOBI_1D` is `jacobi_1d`.
        assert_all_best(
            &s,
            &[
                "src/polybench/POLYBENCH_JACOBI_1D-Hip.cpp",
                "src/polybench/POLYBENCH_SEIDEL_2D-Hip.cpp",
            ],
            Kind::Hip,
            device,
            "stencil",
        );
    }

    #[test]
    fn string_functions_and_substring_search_are_string_search_not_copies() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let neon = "uint8x16_t v = vceqq_u8(data, vdupq_n_u8(c));";
        assert_all_best(
            &s,
            &[
                "string/aarch64/strchrnul-mte.S",
                "src/arch/aarch64/neon/memchr.rs",
                "src/arch/x86_64/avx2/packedpair.rs",
                "src/packed/teddy/builder.rs",
            ],
            Kind::SimdArm,
            neon,
            "string-search",
        );
        // A memcpy is a copy, whatever directory it sits in.
        assert_eq!(
            best_of(&s, "string/aarch64/memcpy.S", Kind::SimdArm, neon).as_deref(),
            Some("copy-cast-layout")
        );
    }

    #[test]
    fn distance_transforms_and_isosurfaces_by_their_algorithms_names() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let device = "__global__ void k(const float* v, float* out) {}";
        for (path, op) in [
            ("src/ppl/cv/cuda/distancetransform.cu", "distance-transform"),
            (
                "cupyx/scipy/ndimage/cuda/pba_kernels_2d.h",
                "distance-transform",
            ),
            (
                "nvblox/src/integrators/esdf_integrator.cu",
                "distance-transform",
            ),
            (
                "pytorch3d/csrc/marching_cubes/marching_cubes.cu",
                "marching-cubes",
            ),
            (
                "Samples/marchingCubes/marchingCubes_kernel.cu",
                "marching-cubes",
            ),
            (
                "ops/conversions/unbatched_mcube/unbatched_mcube_cuda.cu",
                "marching-cubes",
            ),
        ] {
            assert_eq!(
                best_of(&s, path, Kind::Cuda, device).as_deref(),
                Some(op),
                "{path}"
            );
        }
        // A signed distance field marched by rays, and a chamfer distance
        // between point sets, are other ops.
        assert_ne!(
            best_of(&s, "src/rays/sdf_sphere_tracer.cu", Kind::Cuda, device).as_deref(),
            Some("distance-transform")
        );
        assert_ne!(
            best_of(&s, "csrc/chamfer_distance.cu", Kind::Cuda, device).as_deref(),
            Some("distance-transform")
        );
    }

    #[test]
    fn loss_names_the_family_and_cross_entropy_needs_its_own_words() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        for (path, kind, op) in [
            (
                "src/kernels/MIOpenMultiMarginLoss.cpp",
                Kind::Hip,
                "fused-losses",
            ),
            (
                "fast_llm/functional/triton/z_loss.py",
                Kind::Triton,
                "fused-losses",
            ),
            (
                "lib/nnc/cmd/loss/gpu/smooth_l1_ref.cu",
                Kind::Cuda,
                "fused-losses",
            ),
            // PyTorch's ATen names: the family first, then which loss.
            (
                "src/ATen/native/xpu/sycl/LossNLLKernel.cpp",
                Kind::Sycl,
                "fused-cross-entropy",
            ),
            (
                "src/ATen/native/xpu/sycl/LossNLL2dKernels.cpp",
                Kind::Sycl,
                "fused-cross-entropy",
            ),
            (
                "attorch/nll_loss_kernels.py",
                Kind::Triton,
                "fused-cross-entropy",
            ),
            (
                "fast_llm/functional/triton/entropy_loss.py",
                Kind::Triton,
                "fused-cross-entropy",
            ),
            (
                "cpp/include/raft/stats/kl_divergence.cuh",
                Kind::Cuda,
                "fused-losses",
            ),
        ] {
            assert_eq!(best_of(&s, path, kind, "").as_deref(), Some(op), "{path}");
        }
        // A velocity field's divergence (a fluid solver's pressure step) is
        // no loss.
        assert_ne!(
            best_of(&s, "Logic/Shader/Divergence.metal", Kind::Metal, "").as_deref(),
            Some("fused-losses")
        );
    }

    #[test]
    fn an_operator_librarys_pointwise_names_say_elementwise() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // PyTorch's operator names, one file an operator (FlagGems, CMSIS-NN).
        for (path, kind, op) in [
            ("src/ops/isnan.py", Kind::Triton, "elementwise"),
            (
                "backend/_vendor/ops/reciprocal.py",
                Kind::Triton,
                "elementwise",
            ),
            ("src/ops/arange.py", Kind::Triton, "elementwise"),
            (
                "Source/BasicMath/arm_maximum_s8.c",
                Kind::SimdArm,
                "elementwise",
            ),
            ("src/ops/mm.py", Kind::Triton, "dense-gemm"),
            ("src/ops/index.py", Kind::Triton, "gather-scatter"),
        ] {
            assert_eq!(best_of(&s, path, kind, "").as_deref(), Some(op), "{path}");
        }
        // Words a pointwise op shares with other math stay with it: a
        // triangular solve, a fused softmax.
        assert_ne!(
            best_of(&s, "fla/ops/utils/solve_tril.py", Kind::Triton, "").as_deref(),
            Some("elementwise")
        );
        assert_eq!(
            best_of(&s, "ops/log_softmax.py", Kind::Triton, "").as_deref(),
            Some("softmax")
        );
    }

    #[test]
    fn a_frameworks_layer_names_say_their_op() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // Caffe's layer names, as ncnn, MNN and TNN write them: one glued
        // word a layer, then the ISA.
        for (path, kind, op) in [
            (
                "src/layer/x86/binaryop_x86.cpp",
                Kind::SimdX86,
                "elementwise",
            ),
            (
                "src/layer/arm/hardswish_arm.cpp",
                Kind::SimdArm,
                "elementwise",
            ),
            (
                "src/layer/arm/innerproduct_arm.cpp",
                Kind::SimdArm,
                "dense-gemm",
            ),
            (
                "src/layer/riscv/convolutiondepthwise_riscv.cpp",
                Kind::SimdOther,
                "convolution",
            ),
            (
                "src/layer/x86/deconvolution_pack8.h",
                Kind::SimdX86,
                "convolution",
            ),
            (
                "src/layer/x86/padding_pack8.h",
                Kind::SimdX86,
                "copy-cast-layout",
            ),
            (
                "src/layer/loongarch/instancenorm_loongarch.cpp",
                Kind::SimdOther,
                "normalization",
            ),
        ] {
            assert_eq!(best_of(&s, path, kind, "").as_deref(), Some(op), "{path}");
        }
    }

    #[test]
    fn a_cpu_kernel_named_by_its_isa_and_tile_takes_its_folders_op() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // XNNPACK's layout: the folder is the op, the file a tile and an ISA.
        for (path, kind, op) in [
            ("src/q8avgpool/up8x9-neon.c", Kind::SimdArm, "pooling"),
            ("src/q8dwconv/mp8x25-sse2.c", Kind::SimdX86, "convolution"),
            ("src/q8vadd/sse2.c", Kind::SimdX86, "elementwise"),
            ("src/sgemm/6x8-neon.c", Kind::SimdArm, "dense-gemm"),
            // The 8-bit integer types as quantized-GEMM libraries spell them
            // (QNNPACK's q8, XNNPACK's qs8 / qu8, Paddle-Lite's s8u8).
            ("src/q8gemm/4x8-neon.c", Kind::SimdArm, "int8-gemm"),
            (
                "src/qs8-qc8w-gemm/gen/qs8-qc8w-gemm-1x8c8-minmax-avx2.c",
                Kind::SimdX86,
                "int8-gemm",
            ),
            (
                "src/qu8-gemm/gen/qu8-gemm-2x4-minmax-neon.c",
                Kind::SimdArm,
                "int8-gemm",
            ),
            (
                "lite/backends/x86/math/gemm_s8u8_kernel.cc",
                Kind::SimdX86,
                "int8-gemm",
            ),
            // INT8 weights by channel: XNNPACK's qc8w beside dynamically
            // quantized activations, KleidiAI's qsi8cxp.
            (
                "src/qd8-f32-qc8w-gemm/gen/qd8-f32-qc8w-gemm-4x16c8-minmax-neoni8mm.c",
                Kind::SimdArm,
                "int8-gemm",
            ),
            (
                "kai/ukernels/matmul/matmul_clamp_qai8_qai8p_qsi8cxp/kai_matmul_clamp_qai8_qai8p2vlx4_qsi8cxpsb2vlx4_2vlx2vl_sme2_mopa.c",
                Kind::SimdArm,
                "int8-gemm",
            ),
            // Compute Library's operand/accumulator pairs (s8s32, s8qa,
            // u8s8s32): a token that opens with s8 names an int8 operand.
            (
                "ops/gemm/kernels/a64_hybrid_s8qa_dot_4x16/generic.cpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            (
                "ops/gemm/kernels/a64_interleaved_u8s8s32_mmla_8x12.hpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            // Their unsigned twins: u8u32 / u8qa / u8q accumulator pairs,
            // `gemm_u8` and a u8 × u8 interleave for the GEMM.
            (
                "ops/gemm/kernels/sve_hybrid_u8u32_dot_6x4VL/generic.cpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            (
                "ops/gemm/kernels/sme2_gemv_u8qa_dot_16VL.hpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            ("ops/gemm/kernels/a64_gemm_u8_8x12.hpp", Kind::SimdArm, "int8-gemm"),
            (
                "ops/gemm/indirect-interleaves/a64_interleave8_block4_u8_u8_summing.hpp",
                Kind::SimdArm,
                "int8-gemm",
            ),
            // A u8 image is pixels, not int8 GEMM operands.
            (
                "src/ppl/cv/x86/fma/resize_linear_u8_fma.cpp",
                Kind::SimdX86,
                "image-resample",
            ),
            // No ISA token the catalog knows: still only a tile and an ISA.
            ("src/hgemm/8x8-neonfp16arith.c", Kind::SimdArm, "dense-gemm"),
        ] {
            assert_eq!(best_of(&s, path, kind, "").as_deref(), Some(op), "{path}");
        }
        // XNNPACK's `u8` is an unroll factor, not a type: no INT8 GEMM.
        assert_ne!(
            best_of(
                &s,
                "src/x16-packw/gen/x16-packw-x8-gemm-goi-neon-ld4lane-u8-prfm.c",
                Kind::SimdArm,
                ""
            )
            .as_deref(),
            Some("int8-gemm")
        );
        // The folder's name narrows as a file name would.
        assert_eq!(
            best_of(&s, "src/gemm_a8w8/4x8-neon.c", Kind::SimdArm, "").as_deref(),
            Some("int8-gemm")
        );
        // A name that says what the file computes keeps its own op.
        assert_eq!(
            best_of(&s, "src/sgemm/softmax-neon.c", Kind::SimdArm, "").as_deref(),
            Some("softmax")
        );
        // A GPU file is not named this way: `spec/` does not make a TMA
        // helper speculative decoding.
        assert_ne!(
            best_of(&s, "quack/spec/tma.py", Kind::CuteDsl, "").as_deref(),
            Some("speculative-decoding")
        );
    }

    #[test]
    fn a_building_block_alone_is_weak_and_a_name_outranks_it() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let scan = "    c = tl.cumsum(x, 0)\n";
        let c = s
            .best("ops/k.py", Some(Kind::Triton), scan.as_bytes())
            .unwrap();
        assert_eq!(s.ops[c.op].slug, "prefix-scan");
        assert!(is_weak(&c.evidence), "{:?}", c.evidence);
        // Top-p sampling computes a cumulative sum; its name decides.
        assert_eq!(
            best_of(&s, "ops/top_p_sampling.py", Kind::Triton, scan).as_deref(),
            Some("topk-sampling")
        );
    }

    #[test]
    fn libjpeg_names_say_the_op_over_the_isa() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        for (path, kind, op) in [
            ("simd/x86_64/jidctint-avx2.asm", Kind::SimdX86, "dct"),
            ("simd/arm/jfdctfst-neon.c", Kind::SimdArm, "dct"),
            ("celt/mdct.c", Kind::Scalar, "dct"),
            (
                "simd/x86_64/jccolor-avx2.asm",
                Kind::SimdX86,
                "color-convert",
            ),
            ("simd/arm/jdmerge-neon.c", Kind::SimdArm, "color-convert"),
            (
                "simd/x86_64/jdsample-sse2.asm",
                Kind::SimdX86,
                "image-resample",
            ),
            ("simd/x86_64/jquanti-avx2.asm", Kind::SimdX86, "int-quant"),
        ] {
            assert_eq!(best_of(&s, path, kind, "").as_deref(), Some(op), "{path}");
        }
        // `dct` is a word, not a prefix: DCTCP is a congestion control.
        assert_ne!(
            best_of(&s, "net/dctcp.cu", Kind::Cuda, "").as_deref(),
            Some("dct")
        );
    }

    #[test]
    fn a_photo_adjustment_is_color_adjust_a_saturating_add_is_not() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let metal = "kernel void C7Exposure(texture2d<half, access::write> outputTexture [[texture(0)]],\n\
            texture2d<half, access::read> inputTexture [[texture(1)]], constant float *exposure [[buffer(0)]]) {\n\
            const half4 outColor = half4(inColor.rgb * pow(2.0h, half(*exposure)), inColor.a);\n}\n";
        let at = "Sources/Compute/ColorProcess/C7Exposure.metal";
        assert_eq!(
            best_of(&s, at, Kind::Metal, metal).as_deref(),
            Some("color-adjust")
        );
        let glsl = "varying highp vec2 textureCoordinate;\nuniform sampler2D inputImageTexture;\n\
            uniform sampler2D inputImageTexture2; // lookup texture\nvoid main() {}\n";
        let at = "framework/Source/Operations/Shaders/Lookup_GL.fsh";
        assert_eq!(
            best_of(&s, at, Kind::Gles, glsl).as_deref(),
            Some("color-adjust")
        );
        // A hue blend composes two images: the blend names the op.
        let blend =
            "kernel void hueBlend(texture2d<half, access::read> overlay [[texture(1)]]) {}\n";
        let at = "framework/Source/Operations/HueBlend.metal";
        assert_eq!(
            best_of(&s, at, Kind::Metal, blend).as_deref(),
            Some("image-compositing")
        );
        // A word of other ops: saturating arithmetic, a sampler's temperature.
        let simd = "template <typename T, size_t N> vec<T, N> satadd(const vec<T, N>& x, const vec<T, N>& y);\n";
        let at = "include/kfr/simd/impl/saturation.hpp";
        assert_ne!(
            best_of(&s, at, Kind::SimdX86, simd).as_deref(),
            Some("color-adjust")
        );
        let cuda =
            "__global__ void apply_temperature(float* logits, const float* t, int vocab) {}\n";
        assert_ne!(
            best_of(&s, "csrc/sampling/temperature.cu", Kind::Cuda, cuda).as_deref(),
            Some("color-adjust")
        );
    }

    #[test]
    fn pixellate_halftone_and_vignette_are_stylization_effects() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let metal =
            "kernel void pixellate(texture2d<half, access::write> outputTexture [[texture(0)]],\n\
            texture2d<half, access::read> inputTexture [[texture(1)]]) {\n\
            const float2 sampleCoord = cellSize * floor(coord / cellSize) + 0.5 * cellSize;\n}\n";
        assert_all_best(
            &s,
            &[
                "Sources/GPUImage/Operations/Pixellate.metal",
                "Sources/GPUImage/Operations/PolkaDot.metal",
                "Sources/Compute/Stylization/C7ShiftGlitch.metal",
            ],
            Kind::Metal,
            metal,
            "image-stylize",
        );
        let glsl = "varying highp vec2 textureCoordinate;\nuniform sampler2D inputImageTexture;\n\
            void main() { gl_FragColor = vec4(mix(vignetteColor, color.rgb, percent), color.a); }\n";
        assert_all_best(
            &s,
            &[
                "framework/Source/Operations/Shaders/Vignette_GLES.fsh",
                "framework/Source/Operations/Shaders/Halftone_GL.fsh",
                "framework/Source/Operations/Shaders/Crosshatch_GL.fsh",
            ],
            Kind::Gles,
            glsl,
            "image-stylize",
        );
        // A Bayer mosaic is colour conversion, not an effect.
        assert_ne!(
            best_of(&s, "src/demosaic/mosaic.metal", Kind::Metal, metal).as_deref(),
            Some("image-stylize")
        );
    }

    #[test]
    fn a_blend_of_images_is_compositing_a_blend_of_registers_is_not() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        let metal = "kernel void C7BlendColorBurn(texture2d<half, access::write> outputTexture [[texture(0)]],\n\
            texture2d<half, access::read> overlayTexture [[texture(2)]]) {\n\
            const half4 outColor = half4(1.0h - (1.0h - inColor.rgb) / overlay.rgb, inColor.a);\n}\n";
        assert_eq!(
            best_of(
                &s,
                "Sources/Compute/Blend Modes/C7BlendColorBurn.metal",
                Kind::Metal,
                metal
            )
            .as_deref(),
            Some("image-compositing")
        );
        let glsl = "varying highp vec2 textureCoordinate;\nuniform sampler2D inputImageTexture;\n\
            void main() { gl_FragColor = mix(base, overlay, overlay.a); }\n";
        assert_eq!(
            best_of(
                &s,
                "framework/Source/Operations/Shaders/ScreenBlend_GL.fsh",
                Kind::Gles,
                glsl
            )
            .as_deref(),
            Some("image-compositing")
        );
        // rocWMMA's blend permutes register elements: no alpha, no texture.
        let hip = "template <typename VecT>\nstruct Blend { __device__ static VecT exec(VecT const& src0, VecT const& src1); };\n";
        assert_ne!(
            best_of(
                &s,
                "library/include/rocwmma/internal/blend.hpp",
                Kind::Hip,
                hip
            )
            .as_deref(),
            Some("image-compositing")
        );
    }

    #[test]
    fn contradicting_computations_leave_the_file_for_the_team() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // A softmax and a norm, equally specific, nothing else to go on.
        let both = "  m = row_max; e = __expf(x - m); d = block_reduce_sum(e);\n  inv = rsqrtf(variance + eps);\n";
        let ranked = s.rank("csrc/k1.cu", Some(Kind::Cuda), both.as_bytes());
        let slugs: Vec<&str> = ranked
            .iter()
            .take(2)
            .map(|c| s.ops[c.op].slug.as_str())
            .collect();
        assert!(
            slugs.contains(&"softmax") && slugs.contains(&"normalization"),
            "{slugs:?}"
        );
        assert_eq!(best_of(&s, "csrc/k1.cu", Kind::Cuda, both), None);
        // A name settles it.
        assert_eq!(
            best_of(&s, "csrc/layernorm.cu", Kind::Cuda, both).as_deref(),
            Some("normalization")
        );
    }

    #[test]
    fn latent_attention_names_count_only_on_gpu_code() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        assert_eq!(
            best_of(&s, "csrc/mla_decode.cu", Kind::Cuda, "").as_deref(),
            Some("mla-attention")
        );
        // On Arm CPU code `mla` is the multiply-accumulate instruction.
        let conv =
            "conv/depthwise/kernels/a64_fp16_nhwc_3x3_s1_output2x2_mla_depthfirst/generic.cpp";
        assert_eq!(
            best_of(&s, conv, Kind::SimdArm, "").as_deref(),
            Some("convolution")
        );
        assert_ne!(
            best_of(
                &s,
                "kernels/sve_hybrid_fp32_mla_6x4VL.hpp",
                Kind::SimdArm,
                ""
            )
            .as_deref(),
            Some("mla-attention")
        );
    }

    #[test]
    fn a_backend_stays_a_backend_in_its_own_repository() {
        let catalog = Matrix::catalog();
        let mut s = Signals::for_catalog(&catalog);
        let tk = format!("namespace kittens {{\n{ONLINE_SOFTMAX}}}\n");
        assert_eq!(
            best_of(&s, "kernels/based/x.cu", Kind::Cuda, &tk).as_deref(),
            Some("fused-attention")
        );
        // In the tile DSL's own repository the DSL is still how a file is
        // written: what it computes ranks first, and the files nothing
        // else claims are the DSL's.
        s.own = s.position("tile-dsl");
        assert_eq!(
            best_of(&s, "kernels/based/x.cu", Kind::Cuda, &tk).as_deref(),
            Some("fused-attention")
        );
        let wrapper = "namespace kittens {\ntemplate<ducks::rt::all T> void zero(T &dst);\n}\n";
        assert_eq!(
            best_of(&s, "include/ops/warp/util.cuh", Kind::Cuda, wrapper).as_deref(),
            Some("tile-dsl")
        );
    }

    #[test]
    fn every_computation_signature_places_a_file_its_name_would_not() {
        let catalog = Matrix::catalog();
        let s = Signals::for_catalog(&catalog);
        // (path whose name says another op, kind, content, op, weak?)
        let cases: [(&str, Kind, &str, &str, bool); 9] = [
            (
                "shaders/fft/fft.h.metal",
                Kind::Metal,
                "// radix-2 DIT butterfly over the field\ntemplate<typename Fp> kernel void radix2_dit_butterfly(device Fp* input, constant Fp* twiddles) { Fp a = input[0]; }\n",
                "zk-msm-ntt",
                false,
            ),
            (
                "ops/pool_out.py",
                Kind::Triton,
                "m = tl.max(x, 0)\ne = tl.exp(x - m)\nd = tl.sum(e, 0)\ny = e / d\n",
                "softmax",
                false,
            ),
            (
                "ops/rope_loss.py",
                Kind::Triton,
                "m = tl.max(x, 0)\nlse = m + tl.log(tl.sum(tl.exp(x - m), 0))\nif y != ignore_index: pass\n",
                "fused-cross-entropy",
                false,
            ),
            (
                "kernels/unary_ops.cu",
                Kind::Cuda,
                "int hamming = __popc(a[i] ^ b[i]);\n",
                "vector-similarity",
                false,
            ),
            (
                "kernels/gemm_fused.cu",
                Kind::Cuda,
                "asm volatile(\"wgmma.mma_async.sync.aligned.m64n128k16\");\nnvshmem_putmem(dst, src, n, pe);\n",
                "comm-compute-overlap",
                false,
            ),
            (
                "kernels/convert.cu",
                Kind::Cuda,
                "float f(float* twiddle) { float2 w = make_float2(cos(a), sin(a)); }\n",
                "fft",
                false,
            ),
            (
                "ops/k3.py",
                Kind::Triton,
                "r = tl.rand(seed, offs)\n",
                "random-philox",
                true,
            ),
            (
                "ops/k4.cu",
                Kind::Cuda,
                "// bitonic merge\nfor (int k = 2; k <= n; k <<= 1) {}\n",
                "radix-sort",
                true,
            ),
            (
                "ops/k5.py",
                Kind::Triton,
                "v, i = tl.topk(x, 8)\n",
                "topk-selection",
                true,
            ),
        ];
        for (path, kind, content, op, weak) in cases {
            let c = s
                .best(path, Some(kind), content.as_bytes())
                .unwrap_or_else(|| panic!("{path}: no op"));
            assert_eq!(s.ops[c.op].slug, op, "{path}: {:?}", c.evidence);
            assert_eq!(is_weak(&c.evidence), weak, "{path}: {:?}", c.evidence);
        }
    }
}
