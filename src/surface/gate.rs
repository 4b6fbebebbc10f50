//! The PRIOR_ART gate (SPEC 3.3): which ops a change touches, whether the
//! change or its message records the prior art consulted, and the
//! advisories to print. Pure: git output and message text come in, reports
//! go out.

use std::collections::BTreeMap;

use crate::index::OpIndex;
use crate::matrix::{Matrix, Op};
use crate::repo::git::{Commit, GitPath};
use crate::surface::trailer::{self, Stamp, Trailer};

/// One op a change touches, with the files that matched and the trailer to
/// paste.
#[derive(Debug)]
pub struct Advisory<'m> {
    pub op: &'m Op,
    /// Matched paths, root-relative, in the order seen (deduplicated).
    pub paths: Vec<String>,
    pub suggestion: String,
    /// For an op with a `check` list: whether its proof still holds for
    /// the change (`None`: no checks, or not asked, as in `--range`).
    pub proof: Option<crate::surface::proofs::ProofState>,
}

/// Why the gate stayed quiet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Silence {
    /// An added line of the staged diff mentions `Prior-art:`.
    StagedLine,
    /// The commit message carries a valid trailer.
    Trailer(Trailer),
}

/// The gate's verdict on one change.
#[derive(Debug)]
pub struct GateReport<'m> {
    /// Every op the change touches, sorted by slug (even when silenced).
    pub touched: Vec<Advisory<'m>>,
    pub silenced: Option<Silence>,
    /// A placeholder trailer that was present but did not count.
    pub placeholder: Option<Trailer>,
    /// Whether git's own trailer parser sees a `Prior-art` trailer (only
    /// known when a message was checked and git could be asked).
    pub git_sees_trailer: Option<bool>,
    /// Under `--strict`, with a valid trailer in the message: the touched
    /// ops (slugs, sorted) that no trailer names by slug, reference or
    /// link. The advisories are then these ops only.
    pub unnamed: Vec<String>,
}

impl<'m> GateReport<'m> {
    /// The advisories to print: the touched ops, unless silenced; under
    /// `--strict` with a trailer that names only some ops, the others.
    pub fn advisories(&self) -> Vec<&Advisory<'m>> {
        if self.silenced.is_some() {
            Vec::new()
        } else if self.unnamed.is_empty() {
            self.touched.iter().collect()
        } else {
            self.touched
                .iter()
                .filter(|a| self.unnamed.contains(&a.op.slug.value))
                .collect()
        }
    }
}

/// The ops touched by a set of root-relative paths, one advisory per op,
/// sorted by slug.
pub fn touched<'m, I>(matrix: &'m Matrix, index: &mut OpIndex<'_>, paths: I) -> Vec<Advisory<'m>>
where
    I: IntoIterator<Item = GitPath>,
{
    let mut by_op: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    for path in paths {
        for m in index.matches_bytes(path.as_bytes()) {
            let op = &matrix.ops[m.op];
            let entry = by_op
                .entry(op.slug.value.as_str())
                .or_insert((m.op, Vec::new()));
            let shown = path.display();
            if !entry.1.contains(&shown) {
                entry.1.push(shown);
            }
        }
    }
    by_op
        .into_values()
        .map(|(i, paths)| {
            let op = &matrix.ops[i];
            Advisory {
                op,
                paths,
                suggestion: suggest_trailer(op),
                proof: None,
            }
        })
        .collect()
}

/// Each touched op with a `check` list: whether its proof record still
/// holds for the change. `blob_of` gives a touched path's blob id after
/// the change (`None`: the change deletes it); the record is read from
/// the matrix root through `files`.
pub fn attach_proofs(
    touched: &mut [Advisory<'_>],
    files: &crate::repo::confined::Confined,
    blob_of: impl Fn(&str) -> Option<String>,
) {
    use crate::surface::proofs;
    for a in touched.iter_mut().filter(|a| !a.op.check.is_empty()) {
        let record = proofs::read_record(files, &a.op.slug.value);
        let changed: Vec<(String, Option<String>)> =
            a.paths.iter().map(|p| (p.clone(), blob_of(p))).collect();
        a.proof = Some(proofs::staged_state(record, &changed));
    }
}

/// Judge one change: the ops it touches, and whether an added staged line
/// or the commit message (when known) records the prior art. Under
/// `strict`, a message's trailers must name every touched op (SPEC 3.3):
/// one naming only some leaves the others as advisories.
pub fn judge<'m>(
    touched: Vec<Advisory<'m>>,
    staged_line: bool,
    message: Option<&str>,
    comment: &str,
    strict: bool,
) -> GateReport<'m> {
    let stamp = message.map(|m| trailer::stamp(m, comment));
    let placeholder = match &stamp {
        Some(Stamp::Placeholder(t)) => Some(t.clone()),
        _ => None,
    };
    let mut unnamed = Vec::new();
    let silenced = if staged_line {
        Some(Silence::StagedLine)
    } else if let Some(Stamp::Valid(t)) = stamp {
        if strict {
            let ops: Vec<&Op> = touched.iter().map(|a| a.op).collect();
            unnamed = unnamed_ops(&ops, message.unwrap_or(""), comment);
        }
        unnamed.is_empty().then_some(Silence::Trailer(t))
    } else {
        None
    };
    GateReport {
        touched,
        silenced,
        placeholder,
        git_sees_trailer: None,
        unnamed,
    }
}

/// The slugs of `ops` that no real `Prior-art:` trailer of `message`
/// names (by [`names_op`]), in the order given.
pub fn unnamed_ops(ops: &[&Op], message: &str, comment: &str) -> Vec<String> {
    let values: Vec<String> = trailer::find(message, comment)
        .into_iter()
        .filter(|t| !t.placeholder)
        .map(|t| t.value)
        .collect();
    ops.iter()
        .filter(|op| !values.iter().any(|v| names_op(v, op)))
        .map(|op| op.slug.value.clone())
        .collect()
}

/// Whether a trailer value names an op (SPEC 3.3, strict mode), ignoring
/// case: its slug; its link (the URL, `owner/repo`, or the repository
/// name of four or more characters, ignoring `-`, `_`, `.`); or its
/// reference — one of the items of `sota` (split at `;`, `,`, ` / `,
/// ` + `), whole or by its leading name (first word, three or more
/// characters, not a filler word), ignoring punctuation and spaces.
/// `Prior-art: FlashAttention-2 tiling` names an op whose `sota` is
/// "FlashAttention; FlashInfer" or whose link is
/// `github.com/Dao-AILab/flash-attention`.
pub fn names_op(value: &str, op: &Op) -> bool {
    let lower = value.to_lowercase();
    let folded = fold(value);
    if lower.contains(&op.slug.value.to_lowercase()) {
        return true;
    }
    if let Some(link) = &op.link {
        let short = short_link(&link.value).to_lowercase();
        let repo = short.rsplit('/').next().map(fold).unwrap_or_default();
        if lower.contains(&link.value.to_lowercase())
            || lower.contains(&short)
            || (repo.len() >= 4 && folded.contains(&repo))
        {
            return true;
        }
    }
    reference_names(&op.sota)
        .iter()
        .any(|name| folded.contains(name.as_str()))
}

/// The folded names a trailer may use for a `sota` text: each item whole,
/// and its leading word.
fn reference_names(sota: &str) -> Vec<String> {
    let mut names = Vec::new();
    for item in sota
        .split([';', ','])
        .flat_map(|i| i.split(" / "))
        .flat_map(|i| i.split(" + "))
    {
        let whole = fold(item);
        if whole.len() >= 3 {
            names.push(whole);
        }
        let lead = item
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .find(|w| !w.is_empty());
        if let Some(lead) = lead {
            let f = fold(lead);
            let filler = trailer::FILLER_WORDS
                .iter()
                .any(|w| w.eq_ignore_ascii_case(lead));
            if f.len() >= 3 && !filler {
                names.push(f);
            }
        }
    }
    names
}

/// Lowercase letters and digits only.
fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A commit of a range that touches matched files without a valid trailer
/// (or, under `--strict`, with trailers that leave some op unnamed).
#[derive(Debug)]
pub struct Finding<'m> {
    pub commit: Commit,
    pub stamp: Stamp,
    pub touched: Vec<Advisory<'m>>,
    /// Under `--strict` with a valid trailer: the touched ops no trailer
    /// names (slugs); empty otherwise.
    pub unnamed: Vec<String>,
}

/// `--range`: every commit that touches a matched file and lacks a valid
/// `Prior-art:` trailer, newest first; under `strict`, also every commit
/// whose trailers do not name each touched op.
pub fn range_findings<'m>(
    matrix: &'m Matrix,
    index: &mut OpIndex<'_>,
    commits: Vec<Commit>,
    comment: &str,
    strict: bool,
) -> Vec<Finding<'m>> {
    commits
        .into_iter()
        .filter_map(|commit| {
            let touched = touched(matrix, index, commit.paths.iter().cloned());
            if touched.is_empty() {
                return None;
            }
            let stamp = trailer::stamp(&commit.message, comment);
            let unnamed = if stamp.is_valid() && strict {
                let ops: Vec<&Op> = touched.iter().map(|a| a.op).collect();
                unnamed_ops(&ops, &commit.message, comment)
            } else {
                Vec::new()
            };
            (!stamp.is_valid() || !unnamed.is_empty()).then_some(Finding {
                commit,
                stamp,
                touched,
                unnamed,
            })
        })
        .collect()
}

/// The ready-to-paste trailer for an op: the reference, where it lives,
/// and the oracle that holds it.
/// `Prior-art: Marlin (IST-DASLab/marlin); oracle cosine ≥ 0.995`
pub fn suggest_trailer(op: &Op) -> String {
    let items: Vec<&str> = op
        .sota
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let first = items.first().copied().unwrap_or(op.sota.trim());
    let mut s = format!("{}: ", trailer::KEY);
    match op.link.as_ref().map(|l| short_link(&l.value)) {
        // Pair the link only with the reference it belongs to: the one
        // item that names its repository (or owner), or the only item.
        Some(short) => match items.iter().find(|item| names_link(item, &short)) {
            // The item may already carry its repository: never twice.
            Some(item) if item.to_lowercase().contains(&short.to_lowercase()) => s.push_str(item),
            Some(item) => s.push_str(&format!("{item} ({short})")),
            None if items.len() <= 1 => s.push_str(&format!("{first} ({short})")),
            None => s.push_str(first),
        },
        None => s.push_str(first),
    }
    let oracle = if op.check.is_empty() {
        op.oracle.clone()
    } else {
        Some(
            op.check
                .iter()
                .map(|c| c.value.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )
    };
    if let Some(oracle) = oracle {
        s.push_str("; oracle ");
        s.push_str(&oracle);
    }
    s
}

/// Whether a reference text names the repository or owner of a short
/// link (`vllm-project/vllm` is named by "vLLM PagedAttention"), ignoring
/// case and `-`/`_`/`.`/space.
fn names_link(item: &str, short: &str) -> bool {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let text = fold(item);
    short
        .split('/')
        .map(fold)
        .filter(|part| part.len() >= 3)
        .any(|part| text.contains(&part))
}

/// `https://github.com/IST-DASLab/marlin/tree/x` → `IST-DASLab/marlin`;
/// other hosts → host + path.
pub fn short_link(link: &str) -> String {
    let rest = link
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_end_matches('/');
    if let Some(path) = rest.strip_prefix("github.com/") {
        let parts: Vec<&str> = path.split('/').take(2).collect();
        if parts.len() == 2 {
            return parts.join("/");
        }
    }
    rest.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
[project]
name = "t"

[[op]]
slug = "int4-gemm"
title = "INT4 GEMM"
files = ["k/*int4*.cu", "k/common.cuh"]
sota = "Marlin mixed-precision INT4 kernel; AutoAWQ"
link = "https://github.com/IST-DASLab/marlin"
route = "borrow"
oracle = "f32 dequant reference"
check = [{ metric = "cosine", min = 0.995 }]

[[op]]
slug = "attn"
title = "Attention"
files = ["k/attn/", "k/common.cuh"]
sota = "FlashAttention"
oracle = "naive attention, cosine ≥ 0.999"
"#;

    fn paths(ps: &[&str]) -> Vec<GitPath> {
        ps.iter()
            .map(|p| GitPath::from_bytes(p.as_bytes()))
            .collect()
    }

    #[test]
    fn one_advisory_per_op_sorted_with_every_matched_file() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        let t = touched(
            &m,
            &mut idx,
            paths(&[
                "k/common.cuh",
                "k/w4_int4.cu",
                "README.md",
                "k/attn/a.cu",
                "k/common.cuh",
            ]),
        );
        let slugs: Vec<&str> = t.iter().map(|a| a.op.slug.value.as_str()).collect();
        assert_eq!(slugs, ["attn", "int4-gemm"]);
        assert_eq!(t[1].paths, ["k/common.cuh", "k/w4_int4.cu"]);
        assert_eq!(t[0].paths, ["k/common.cuh", "k/attn/a.cu"]);
    }

    #[test]
    fn suggestions_name_reference_repo_and_oracle() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        assert_eq!(
            suggest_trailer(&m.ops[0]),
            "Prior-art: Marlin mixed-precision INT4 kernel (IST-DASLab/marlin); oracle cosine ≥ 0.995"
        );
        assert_eq!(
            suggest_trailer(&m.ops[1]),
            "Prior-art: FlashAttention; oracle naive attention, cosine ≥ 0.999"
        );
    }

    #[test]
    fn a_link_is_paired_only_with_the_reference_it_belongs_to() {
        let m = Matrix::from_str(
            r#"
[project]
name = "t"

[[op]]
slug = "norms"
title = "Fused norms"
sota = "Apex / FasterTransformer fused norms; vLLM layernorm kernels"
link = "https://github.com/vllm-project/vllm"

[[op]]
slug = "moe"
title = "MoE"
sota = "DeepEP; TensorRT-LLM"
link = "https://example.org/moe-survey"
"#,
            "sota.toml",
        )
        .unwrap();
        assert_eq!(
            suggest_trailer(&m.ops[0]),
            "Prior-art: vLLM layernorm kernels (vllm-project/vllm)"
        );
        // No item names the link and there are several: no pairing at all.
        assert_eq!(suggest_trailer(&m.ops[1]), "Prior-art: DeepEP");
    }

    #[test]
    fn silencing_rules() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        let mk = |idx: &mut OpIndex<'_>| touched(&m, idx, paths(&["k/attn/a.cu"]));
        let r = judge(mk(&mut idx), false, None, "#", false);
        assert_eq!(r.advisories().len(), 1);
        let r = judge(mk(&mut idx), true, None, "#", false);
        assert_eq!(r.silenced, Some(Silence::StagedLine));
        assert!(r.advisories().is_empty());
        let r = judge(
            mk(&mut idx),
            false,
            Some("fix\n\nPrior-art: n/a\n"),
            "#",
            false,
        );
        assert!(r.silenced.is_none());
        assert_eq!(r.placeholder.as_ref().unwrap().value, "n/a");
        let r = judge(
            mk(&mut idx),
            false,
            Some("fix\n\nPrior-art: none found - novel X; oracle cpuref cosine ≥ 0.999\n"),
            "#",
            false,
        );
        assert!(matches!(r.silenced, Some(Silence::Trailer(_))));
    }

    #[test]
    fn a_trailer_that_already_carries_the_repository_does_not_repeat_it() {
        let m = Matrix::from_str(
            r#"
[project]
name = "t"

[[op]]
slug = "metal-attn"
title = "Metal attention"
sota = "FlashAttention-2 tiling on Apple GPUs (philipturner/metal-flash-attention); MLX sdpa"
link = "https://github.com/philipturner/metal-flash-attention"
"#,
            "sota.toml",
        )
        .unwrap();
        assert_eq!(
            suggest_trailer(&m.ops[0]),
            "Prior-art: FlashAttention-2 tiling on Apple GPUs (philipturner/metal-flash-attention)"
        );
    }

    #[test]
    fn strict_needs_every_touched_op_named_by_slug_reference_or_link() {
        let m = Matrix::from_str(TOML, "sota.toml").unwrap();
        let (gemm, attn) = (&m.ops[0], &m.ops[1]);
        for v in [
            "int4-gemm",
            "Marlin",
            "marlin mixed-precision int4 kernel",
            "AutoAWQ port",
            "IST-DASLab/marlin",
            "https://github.com/IST-DASLab/marlin",
        ] {
            assert!(names_op(v, gemm), "{v:?} names int4-gemm");
        }
        for v in ["FlashAttention-2", "a naive loop", "ok"] {
            assert!(!names_op(v, gemm), "{v:?} does not name int4-gemm");
        }
        assert!(names_op("FlashAttention-2 tiling", attn));
        let mut idx = OpIndex::new(&m).unwrap();
        let both = |idx: &mut OpIndex<'_>| touched(&m, idx, paths(&["k/attn/a.cu", "k/w_int4.cu"]));
        let msg = "fix\n\nPrior-art: FlashAttention-2 (Dao-AILab/flash-attention)\n";
        let lenient = judge(both(&mut idx), false, Some(msg), "#", false);
        assert!(lenient.silenced.is_some(), "advisory mode stays lenient");
        let strict = judge(both(&mut idx), false, Some(msg), "#", true);
        assert!(strict.silenced.is_none());
        assert_eq!(strict.unnamed, ["int4-gemm"]);
        let left: Vec<&str> = strict
            .advisories()
            .iter()
            .map(|a| a.op.slug.value.as_str())
            .collect();
        assert_eq!(left, ["int4-gemm"]);
        let msg = "fix\n\nPrior-art: FlashAttention-2\nPrior-art: Marlin; oracle cosine\n";
        let strict = judge(both(&mut idx), false, Some(msg), "#", true);
        assert!(strict.silenced.is_some() && strict.unnamed.is_empty());
    }

    #[test]
    fn short_links() {
        assert_eq!(
            short_link("https://github.com/IST-DASLab/marlin"),
            "IST-DASLab/marlin"
        );
        assert_eq!(
            short_link("https://github.com/ggml-org/llama.cpp/tree/master/ggml"),
            "ggml-org/llama.cpp"
        );
        assert_eq!(
            short_link("https://www.usenix.org/conference/osdi22/"),
            "www.usenix.org/conference/osdi22"
        );
    }
}

/// What the prepare-commit-msg hook knows of how git will clean the
/// message once the editor closes: `core.commentChar` (or
/// `core.commentString`) and `commit.cleanup`, as configured (`None`:
/// unset).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cleanup<'a> {
    pub comment: Option<&'a str>,
    pub mode: Option<&'a str>,
}

/// The characters `core.commentChar=auto` picks from, in git's order.
const AUTO_CANDIDATES: &str = "#;@!$%^&|:";

/// git's scissors line, after its comment prefix and a space.
const CUT_LINE: &str = "------------------------ >8 ------------------------";

/// git's `auto` choice for a message: `#` when the message has none,
/// else the first candidate that starts no line (git's
/// `adjust_comment_line_char`).
fn auto_comment_char(message: &str) -> Option<char> {
    if !message.contains('#') {
        return Some('#');
    }
    let starts: Vec<char> = std::iter::once(message)
        .chain(message.split(['\n', '\r']).skip(1))
        .filter_map(|l| l.chars().next())
        .collect();
    AUTO_CANDIDATES.chars().find(|c| !starts.contains(c))
}

/// The comment prefix git used in this template, when the hook can tell.
fn comment_of(template: &str, setting: Option<&str>) -> Option<String> {
    match setting {
        None | Some("") => return Some("#".to_owned()),
        Some("auto") => {}
        Some(c) => return Some(c.to_owned()),
    }
    // auto: git chose from the message before it added its own comments.
    let lines: Vec<&str> = template.lines().collect();
    if let Some(cut) = lines.iter().find_map(|l| {
        let c = l.chars().next()?;
        (AUTO_CANDIDATES.contains(c) && l[c.len_utf8()..].strip_prefix(' ') == Some(CUT_LINE))
            .then_some(c)
    }) {
        return Some(cut.to_string());
    }
    let last = lines.iter().rev().find(|l| !l.trim().is_empty());
    let Some(d) = last
        .and_then(|l| l.chars().next())
        .filter(|c| AUTO_CANDIDATES.contains(*c))
    else {
        // No comment block of git's: the template is the message itself.
        return auto_comment_char(template).map(String::from);
    };
    let keep = lines
        .iter()
        .rposition(|l| !l.trim().is_empty() && !l.starts_with(d))
        .map_or(0, |i| i + 1);
    let message: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
    (auto_comment_char(&message) == Some(d)).then(|| d.to_string())
}

/// The commit message template with the suggested trailers added as
/// comment lines, only where git will strip them: below git's scissors
/// line when there is one (everything after it is cut), otherwise above
/// git's own comment block (or at the end) when the cleanup mode strips
/// comments (`strip`, or the default with an editor). Returns `None` when
/// there is nothing to add or no place where git would remove it.
pub fn with_suggestions(
    message: &str,
    advisories: &[&Advisory<'_>],
    cleanup: Cleanup<'_>,
) -> Option<String> {
    if advisories.is_empty() || message.contains("PRIOR_ART: this commit touches") {
        return None;
    }
    let comment = comment_of(message, cleanup.comment)?;
    let comment = comment.as_str();
    let mut block = String::new();
    block.push_str(&format!(
        "{comment} PRIOR_ART: this commit touches kernel files. Keep a trailer naming what you read\n"
    ));
    block.push_str(&format!(
        "{comment} (uncomment and edit), or `Prior-art: none found - <why>; oracle <how>`:\n"
    ));
    for a in advisories {
        block.push_str(&format!("{comment} {}\n", a.suggestion));
    }
    block.push_str(&format!("{comment}\n"));
    let cut = format!("{comment} {CUT_LINE}");
    let mut offset = 0;
    let mut after_cut = false;
    for line in message.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if after_cut && !bare.starts_with(comment) {
            break;
        }
        if !after_cut && bare == cut {
            after_cut = true;
        }
        offset += line.len();
    }
    if after_cut {
        // Below the cut line and git's comments after it: always cut.
        let mut out = message[..offset].to_owned();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&block);
        out.push_str(&message[offset..]);
        return Some(out);
    }
    match cleanup.mode {
        None | Some("default") | Some("strip") => {}
        // verbatim, whitespace, scissors without a cut line: comments kept.
        Some(_) => return None,
    }
    let block = format!("\n{block}");
    let mut offset = 0;
    for line in message.split_inclusive('\n') {
        if line.starts_with(comment) {
            let mut out = String::with_capacity(message.len() + block.len());
            out.push_str(&message[..offset]);
            out.push_str(&block);
            out.push_str(&message[offset..]);
            return Some(out);
        }
        offset += line.len();
    }
    let mut out = message.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&block);
    Some(out)
}

#[cfg(test)]
mod template_tests {
    use super::*;

    #[test]
    fn suggestions_go_above_gits_comment_block_as_comments() {
        let m = Matrix::from_str(
            "[project]\nname='t'\n[[op]]\nslug='a'\ntitle='A'\nsota='FlashAttention'\nfiles=['k/*']\n",
            "sota.toml",
        )
        .unwrap();
        let mut idx = OpIndex::new(&m).unwrap();
        let owned = touched(&m, &mut idx, [GitPath::from_bytes(b"k/x.cu")]);
        let adv: Vec<&Advisory<'_>> = owned.iter().collect();
        let template = "\n# Please enter the commit message for your changes.\n#\n";
        let out = with_suggestions(template, &adv, Cleanup::default()).unwrap();
        assert_eq!(
            out,
            "\n\n# PRIOR_ART: this commit touches kernel files. Keep a trailer naming what you read\n# (uncomment and edit), or `Prior-art: none found - <why>; oracle <how>`:\n# Prior-art: FlashAttention\n#\n# Please enter the commit message for your changes.\n#\n"
        );
        assert!(
            with_suggestions(&out, &adv, Cleanup::default()).is_none(),
            "never added twice"
        );
        // Stripping comment lines leaves the message as it was: nothing is
        // committed unless the user uncomments it.
        let kept: String = out.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(kept, "");
        assert!(with_suggestions(template, &[], Cleanup::default()).is_none());

        // auto: git chose `;` because the message has a line starting `#`.
        let amend = "fix\n#tag\n\n; Please enter the commit message.\n;\n";
        let auto = Cleanup {
            comment: Some("auto"),
            mode: None,
        };
        let out = with_suggestions(amend, &adv, auto).unwrap();
        assert!(out.contains("\n; Prior-art: FlashAttention\n"), "{out}");
        let kept: Vec<&str> = out.lines().filter(|l| !l.starts_with(';')).collect();
        assert_eq!(kept, ["fix", "#tag", "", ""]);
        // scissors: below the cut line; without one, nothing.
        let scissors = "\n# ------------------------ >8 ------------------------\n# Do not modify.\ndiff --git a/x b/x\n";
        let mode = Cleanup {
            comment: None,
            mode: Some("scissors"),
        };
        let out = with_suggestions(scissors, &adv, mode).unwrap();
        assert!(out.starts_with("\n# ------------------------ >8 ------------------------\n# Do not modify.\n# PRIOR_ART"), "{out}");
        assert!(with_suggestions("\n# no cut line\n", &adv, mode).is_none());
    }
}
