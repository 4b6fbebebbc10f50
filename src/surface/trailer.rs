//! `Prior-art:` trailers: finding them in a commit message and telling a
//! real one from a placeholder (SPEC 3.10). Pure; shared by the gate and
//! the history audit.
//!
//! Deliberately more lenient than git's trailer block: a body line (not the
//! subject) that begins with `Prior-art:` in any case, after optional
//! leading spaces, counts wherever it stands; its value is the rest of the
//! line plus following indented continuation lines. Comment lines (starting
//! with the comment character, `#` by default) are ignored, as git strips
//! them from the final message.

/// The trailer key, as written in suggestions.
pub const KEY: &str = "Prior-art";

/// Values that say nothing and so do not count as consulting prior art.
/// Compared ignoring case, surrounding quotes and one trailing period.
pub const PLACEHOLDERS: &[&str] = &["n/a", "na", "none", "-", "todo", "tbd", "?", ""];

/// Words that name nothing read. A trailer value counts only when it has
/// at least one *name-like token* outside this list (SPEC 3.3: "a trailer
/// must name something that was read"): `Prior-art: yes`, `ok, done`,
/// `see above`, `true`, `checked` are placeholders; `Marlin`,
/// `IST-DASLab/marlin`, a link, a slug or `none found - novel X; oracle
/// cpuref` are not. Tokens are the value split on whitespace and
/// `,;:()[]{}<>"'`!?` with leading/trailing punctuation trimmed; a token
/// with no letter or digit (`-`, `—`, `✓`) names nothing either.
pub const FILLER_WORDS: &[&str] = &[
    "n/a",
    "n.a",
    "na",
    "none",
    "nothing",
    "nil",
    "null",
    "no",
    "not",
    "applicable",
    "todo",
    "tbd",
    "tba",
    "fixme",
    "wip",
    "yes",
    "y",
    "yep",
    "yup",
    "yeah",
    "sure",
    "ok",
    "okay",
    "k",
    "fine",
    "good",
    "done",
    "true",
    "false",
    "checked",
    "check",
    "read",
    "reviewed",
    "looked",
    "considered",
    "consulted",
    "see",
    "above",
    "below",
    "same",
    "as",
    "per",
    "ditto",
    "here",
    "there",
    "the",
    "a",
    "an",
    "it",
    "this",
    "that",
    "is",
    "was",
    "and",
    "or",
    "lgtm",
    "ack",
    "acked",
    "+1",
    "x",
    "found",
    "prior",
    "art",
    "previous",
    "earlier",
    "commit",
    "pr",
    "etc",
    "misc",
    "various",
    "later",
    "skip",
    "skipped",
];

/// One `Prior-art:` line found in a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trailer {
    /// The value, continuation lines joined with single spaces.
    pub value: String,
    /// 1-based line number in the message.
    pub line: usize,
    /// Whether the value is a placeholder.
    pub placeholder: bool,
}

/// What a message says about prior art.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// At least one trailer with a real value (the first such).
    Valid(Trailer),
    /// Only placeholder trailers (the first one).
    Placeholder(Trailer),
    /// No trailer at all.
    Missing,
}

impl Stamp {
    pub fn is_valid(&self) -> bool {
        matches!(self, Stamp::Valid(_))
    }

    /// Stable name for JSON: "valid", "placeholder", "missing".
    pub fn kind(&self) -> &'static str {
        match self {
            Stamp::Valid(_) => "valid",
            Stamp::Placeholder(_) => "placeholder",
            Stamp::Missing => "missing",
        }
    }

    pub fn trailer(&self) -> Option<&Trailer> {
        match self {
            Stamp::Valid(t) | Stamp::Placeholder(t) => Some(t),
            Stamp::Missing => None,
        }
    }
}

/// Every `Prior-art:` trailer in a commit message body, in order.
/// `comment` is the comment prefix to ignore (`"#"` unless
/// `core.commentChar` says otherwise).
pub fn find(message: &str, comment: &str) -> Vec<Trailer> {
    let lines: Vec<&str> = message.lines().collect();
    let is_comment = |l: &str| !comment.is_empty() && l.starts_with(comment);
    // The subject is the first non-blank, non-comment line.
    let subject = lines
        .iter()
        .position(|l| !l.trim().is_empty() && !is_comment(l));
    let mut out = Vec::new();
    let mut i = subject.map_or(lines.len(), |s| s + 1);
    while i < lines.len() {
        let line = lines[i];
        if is_comment(line) {
            i += 1;
            continue;
        }
        if let Some(rest) = strip_key(line.trim_start()) {
            let mut value = rest.trim().to_owned();
            let start = i;
            i += 1;
            // Continuation: following lines indented with whitespace.
            while i < lines.len() {
                let next = lines[i];
                if is_comment(next) || next.trim().is_empty() || !next.starts_with([' ', '\t']) {
                    break;
                }
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(next.trim());
                i += 1;
            }
            let placeholder = is_placeholder(&value);
            out.push(Trailer {
                value,
                line: start + 1,
                placeholder,
            });
            continue;
        }
        i += 1;
    }
    out
}

/// The stamp of a message: valid if any trailer is real.
pub fn stamp(message: &str, comment: &str) -> Stamp {
    let trailers = find(message, comment);
    if let Some(t) = trailers.iter().find(|t| !t.placeholder) {
        return Stamp::Valid(t.clone());
    }
    match trailers.into_iter().next() {
        Some(t) => Stamp::Placeholder(t),
        None => Stamp::Missing,
    }
}

/// What an added line must contain, in any ASCII case, to silence the
/// gate (SPEC 3.3). Lowercase.
pub const MENTION: &[u8] = b"prior-art:";

/// Whether a line of *added diff text* mentions `Prior-art:` in any case
/// (the staged-diff silencer, SPEC 3.3).
pub fn mentions(line: &[u8]) -> bool {
    contains_ignore_ascii_case(line, MENTION)
}

pub use crate::repo::objects::contains_ignore_ascii_case;

fn strip_key(line: &str) -> Option<&str> {
    let head = line.get(..KEY.len() + 1)?;
    head.eq_ignore_ascii_case("prior-art:")
        .then(|| &line[KEY.len() + 1..])
}

/// Placeholder test: ignores case, surrounding quotes and one trailing period.
pub fn is_placeholder(value: &str) -> bool {
    let mut v = value.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('`', '`'), ('“', '”')] {
        if v.len() >= 2 && v.starts_with(open) && v.ends_with(close) {
            v = v[open.len_utf8()..v.len() - close.len_utf8()].trim();
            break;
        }
    }
    let v = v.strip_suffix('.').unwrap_or(v).trim();
    PLACEHOLDERS.iter().any(|p| v.eq_ignore_ascii_case(p)) || !names_something(v)
}

/// Whether a value has a name-like token: one with a letter or digit that
/// is not in [`FILLER_WORDS`].
fn names_something(value: &str) -> bool {
    value
        .split(|c: char| c.is_whitespace() || ",;:()[]{}<>\"'`!?".contains(c))
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '+'))
        .filter(|t| t.chars().any(char::is_alphanumeric))
        .any(|t| !FILLER_WORDS.iter().any(|f| t.eq_ignore_ascii_case(f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_line_in_any_case_counts_but_the_subject_does_not() {
        let msg = "Prior-art: in the subject\n\nbody\nprior-ART: Marlin (IST-DASLab/marlin)\n";
        let t = find(msg, "#");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].value, "Marlin (IST-DASLab/marlin)");
        assert_eq!(t[0].line, 4);
        assert!(stamp(msg, "#").is_valid());
    }

    #[test]
    fn continuation_lines_join_and_comments_are_ignored() {
        let msg = "subj\n\nPrior-art: FlashAttention-2 work partitioning\n  (Dao-AILab/flash-attention);\n\toracle cosine ≥ 0.999\nnext\n# Prior-art: commented out\n";
        let t = find(msg, "#");
        assert_eq!(t.len(), 1);
        assert_eq!(
            t[0].value,
            "FlashAttention-2 work partitioning (Dao-AILab/flash-attention); oracle cosine ≥ 0.999"
        );
        assert!(find("subj\n\n# Prior-art: x\n", "#").is_empty());
        assert_eq!(find("subj\n\n; Prior-art: x\n", ";").len(), 0);
    }

    #[test]
    fn lenient_placement_below_signoff_and_unindented() {
        let msg = "subj\n\nSigned-off-by: A <a@b>\n  Prior-art: vLLM PagedAttention\n\nmore text\n";
        assert!(stamp(msg, "#").is_valid());
    }

    #[test]
    fn placeholders_do_not_count() {
        for v in [
            "n/a", "NA", "none", "-", "TODO", "tbd", "?", "", "\"n/a\"", "None.", "'tbd'",
        ] {
            assert!(is_placeholder(v), "{v:?} is a placeholder");
            let msg = format!("subj\n\nPrior-art: {v}\n");
            assert_eq!(stamp(&msg, "#").kind(), "placeholder", "{msg:?}");
        }
        for v in [
            "none found - novel X; oracle cpuref cosine ≥ 0.999",
            "Marlin",
            "n/a.x",
            "fused-attention",
            "IST-DASLab/marlin",
            "https://github.com/IST-DASLab/marlin",
            "see FlashInfer",
            "read the FA-2 paper",
        ] {
            assert!(!is_placeholder(v), "{v:?} is real");
        }
        let mixed = "subj\n\nPrior-art: n/a\nPrior-art: FlashInfer\n";
        assert_eq!(stamp(mixed, "#").trailer().unwrap().value, "FlashInfer");
        assert_eq!(stamp("subj\n\nbody only\n", "#"), Stamp::Missing);
    }

    #[test]
    fn a_value_that_names_nothing_read_is_a_placeholder() {
        for v in [
            "yes",
            "ok",
            "OK.",
            "done",
            "true",
            "-",
            "—",
            "see above",
            "See above.",
            "ok, done",
            "yes - see above",
            "✓",
            "\"yes\"",
            "nothing found",
            "checked",
            "n/a (see above)",
            "LGTM",
            "+1",
        ] {
            assert!(is_placeholder(v), "{v:?} names nothing read");
            let msg = format!("subj\n\nPrior-art: {v}\n");
            assert_eq!(stamp(&msg, "#").kind(), "placeholder", "{msg:?}");
        }
    }

    #[test]
    fn the_search_ignores_ascii_case_only() {
        assert!(contains_ignore_ascii_case(b"xx PRIOR-ART: y", MENTION));
        assert!(contains_ignore_ascii_case(b"prior-art:", MENTION));
        assert!(!contains_ignore_ascii_case(b"prior-art", MENTION));
        assert!(!contains_ignore_ascii_case(b"prior_art:", MENTION));
        assert!(!contains_ignore_ascii_case(b"", MENTION));
    }

    #[test]
    fn added_diff_lines_are_searched_case_insensitively() {
        assert!(mentions(b"// PRIOR-ART: Marlin"));
        assert!(mentions(b"# prior-art: none found - novel"));
        assert!(!mentions(b"prior art: x"));
        assert!(!mentions(b"prior-art"));
    }
}
