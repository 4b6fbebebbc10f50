//! Visible quoting of untrusted text — commit messages, file names, matrix
//! text, git's own error lines — for every human and CI format.
//!
//! The rule is git's `core.quotePath` (C-style escapes inside double
//! quotes, as `quote_c_style_counted` in git's quote.c), applied when the text holds a character that a terminal or a
//! CI log would interpret instead of show (C0/C1 controls, DEL, Unicode
//! bidi and invisible format characters), or when it would begin a line
//! the GitHub Actions runner reads as a workflow command (`::` after
//! leading whitespace). Ordinary text, non-ASCII letters included, is
//! returned unchanged. Escapes: `\a \b \t \n \v \f \r \" \\`, and every
//! other offending character as the octal of its UTF-8 bytes (`\033`,
//! `\302\233`, `\342\200\256`). JSON never goes through here: serde_json
//! keeps the exact string and escapes control characters itself.

use std::borrow::Cow;

/// Whether `c` is interpreted rather than shown by a terminal or a log
/// viewer: controls (C0, DEL, C1) and Unicode format characters that
/// reorder or hide text (bidi overrides and isolates, zero-width marks,
/// line/paragraph separators, the BOM).
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}')
}

/// The first unsafe character of `text` that `keep` does not exempt.
pub fn first_unsafe(text: &str, keep: impl Fn(char) -> bool) -> Option<char> {
    first_unsafe_at(text, keep).map(|(_, c)| c)
}

/// [`first_unsafe`] with its byte offset, for writers that escape in their
/// own syntax (JSON). Printable ASCII (the bulk of any path or matrix) is
/// never unsafe, so it is skipped a byte at a time before any character is
/// decoded.
pub fn first_unsafe_at(text: &str, keep: impl Fn(char) -> bool) -> Option<(usize, char)> {
    let i = text.bytes().position(|b| !(b' '..=b'~').contains(&b))?;
    // Every byte before `i` is ASCII, so `i` is a character boundary.
    text[i..]
        .char_indices()
        .find(|&(_, c)| !keep(c) && is_unsafe_char(c))
        .map(|(j, c)| (i + j, c))
}

fn has_unsafe(text: &str, keep: impl Fn(char) -> bool) -> bool {
    first_unsafe(text, keep).is_some()
}

/// Whether [`quote`] changes `text`.
pub fn needs_quoting(text: &str) -> bool {
    has_unsafe(text, |_| false) || text.trim_start().starts_with("::")
}

/// `text` as is when it is safe to print, else quoted and escaped.
pub fn quote(text: &str) -> Cow<'_, str> {
    if !needs_quoting(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => push_escaped(&mut out, c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// `text` with each unsafe character but tab escaped in place (no
/// surrounding quotes; `"` and `\` kept): for sota's own sentences that
/// embed untrusted text (a diagnostic's message) and for lines of a file
/// shown as they are (a diff). A tab neither moves the cursor off the line
/// nor starts a sequence, so it stays.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_unless(text, |c| c == '\t')
}

/// [`escape`], keeping line breaks (LF, CR) for a writer that encodes them
/// itself (a workflow command's `%0A`).
pub fn escape_keeping_lines(text: &str) -> Cow<'_, str> {
    escape_unless(text, |c| matches!(c, '\t' | '\n' | '\r'))
}

/// `text` with each unsafe character that `keep` does not exempt escaped.
fn escape_unless(text: &str, keep: impl Fn(char) -> bool + Copy) -> Cow<'_, str> {
    if !has_unsafe(text, keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !keep(c) && is_unsafe_char(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Push `c`, C-escaped when it is unsafe.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\u{b}' => out.push_str("\\v"),
        '\u{c}' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        c if is_unsafe_char(c) => {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\{b:03o}"));
            }
        }
        c => out.push(c),
    }
}

/// [`quote`] for raw bytes (a path git printed): bytes that are not UTF-8
/// are escaped in octal too, so two different names never print alike.
pub fn quote_bytes(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => quote(text),
        Err(_) => {
            let mut out = String::from("\"");
            for chunk in bytes.utf8_chunks() {
                let q = quote(chunk.valid());
                let inner = q
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .map_or_else(|| escape_plain(chunk.valid()), str::to_owned);
                out.push_str(&inner);
                for b in chunk.invalid() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            out.push('"');
            Cow::Owned(out)
        }
    }
}

/// Escape `"` and `\` of text that needs no other escape (inside quotes).
fn escape_plain(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `text` with every unsafe character (but newline and tab) replaced by
/// `?` repeated to its UTF-8 length — for source snippets, whose byte spans
/// must keep pointing at the same characters. The line stays readable and
/// nothing in it reaches the terminal as a control.
pub fn visible_same_len(text: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t';
    if !has_unsafe(text, keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !keep(c) && is_unsafe_char(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_fast_path_agrees_with_the_character_check() {
        for b in 0u8..=0x7f {
            let c = char::from(b);
            let text = format!("k/a{c}b.cu");
            let slow = text.chars().find(|&c| c != '\t' && is_unsafe_char(c));
            assert_eq!(first_unsafe(&text, |c| c == '\t'), slow, "{b:#04x}");
        }
        assert_eq!(first_unsafe("caf\u{e9}", |_| false), None);
        assert_eq!(
            first_unsafe("x\u{e9}\u{202e}y", |_| false),
            Some('\u{202e}')
        );
        assert_eq!(first_unsafe("a\tb\u{85}", |c| c == '\t'), Some('\u{85}'));
    }

    #[test]
    fn safe_text_is_unchanged() {
        for s in [
            "k/attn.cu",
            "Tune attention",
            "Revert \"x\"",
            "wörk ×2",
            "a:b::c",
        ] {
            assert!(matches!(quote(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn quoting_follows_git_quote_path() {
        assert_eq!(
            quote("k/\u{1b}]0;pwned\u{7}x.cu"),
            "\"k/\\033]0;pwned\\ax.cu\""
        );
        assert_eq!(quote("a\tb\r\n\"\\"), "\"a\\tb\\r\\n\\\"\\\\\"");
        assert_eq!(quote("c1\u{9b}x"), "\"c1\\302\\233x\"");
        assert_eq!(quote("\u{202e}abc"), "\"\\342\\200\\256abc\"");
        assert_eq!(quote("\u{7f}"), "\"\\177\"");
    }

    #[test]
    fn workflow_commands_at_a_line_start_are_quoted() {
        assert_eq!(quote("::warning::x.cu"), "\"::warning::x.cu\"");
        assert_eq!(quote("  ::error::x"), "\"  ::error::x\"");
        assert_eq!(quote("x ::error::y"), "x ::error::y");
    }

    #[test]
    fn invalid_utf8_is_escaped_byte_by_byte() {
        assert_eq!(quote_bytes(b"k/\xffa.cu"), "\"k/\\377a.cu\"");
        assert_eq!(quote_bytes(b"k/a.cu"), "k/a.cu");
        assert_eq!(quote_bytes(b"\x1b\xff\""), "\"\\033\\377\\\"\"");
    }

    #[test]
    fn snippets_keep_their_byte_offsets() {
        let text = "# \u{1b}]0;x\u{7} \u{9b}2J\nkey = 1\n";
        let shown = visible_same_len(text);
        assert_eq!(shown.len(), text.len());
        assert!(!shown.chars().any(|c| is_unsafe_char(c) && c != '\n'));
        for (i, _) in text.char_indices() {
            assert!(shown.is_char_boundary(i));
        }
    }
}
