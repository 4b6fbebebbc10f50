//! The matrix's text is untrusted (docs/SECURITY.md): every string value
//! and key is printed to terminals, CI logs and rendered Markdown, so none
//! may hold a character a terminal or log would interpret instead of show
//! (controls, bidi and invisible format characters; a tab is allowed).
//! One walk over the parsed document reports each with its exact span;
//! a document whose bytes cannot produce one skips the walk.

use toml::de::{DeTable, DeValue};

use super::diagnostic::{Code, Problem};
use crate::quote;

/// Every key and string value of the parsed document `table` (parsed
/// from `text` without syntax errors) holding an unsafe character.
pub(crate) fn check_document(text: &str, table: &DeTable<'_>, problems: &mut Vec<Problem>) {
    if !plain_document(text) {
        check(table, problems);
    }
}

/// Whether no key or string of this syntactically valid TOML text can hold
/// an unsafe character, judged from its bytes alone: all are printable
/// ASCII, tab or line endings (so no raw control, bidi or format
/// character), there is no `\` (so no escape can produce one), and no
/// multi-line string (the only strings a raw line ending can be inside).
/// Most matrices are such text, and one scan of it costs less than walking
/// the document.
pub(super) fn plain_document(text: &str) -> bool {
    let bytes = text.as_bytes();
    let printable = bytes.chunks(64).all(|chunk| {
        // No early exit inside a chunk, so the compiler can vectorise it.
        chunk.iter().fold(true, |ok, &b| {
            ok & matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r')
        })
    });
    printable
        && memchr::memchr(b'\\', bytes).is_none()
        && memchr::memmem::find(bytes, b"\"\"\"").is_none()
        && memchr::memmem::find(bytes, b"'''").is_none()
}

/// Every key and string value holding an unsafe character, as problems.
pub(crate) fn check(table: &DeTable<'_>, problems: &mut Vec<Problem>) {
    for (key, value) in table.iter() {
        flag(key.get_ref().as_ref(), key.span(), "key", problems);
        check_value(value.get_ref(), value.span(), problems);
    }
}

fn check_value(value: &DeValue<'_>, span: std::ops::Range<usize>, problems: &mut Vec<Problem>) {
    match value {
        DeValue::String(s) => flag(s, span, "string", problems),
        DeValue::Array(items) => {
            for item in items.iter() {
                check_value(item.get_ref(), item.span(), problems);
            }
        }
        DeValue::Table(t) => check(t, problems),
        _ => {}
    }
}

/// The first character of `text` a terminal would interpret (a tab is
/// shown as it is).
fn first_unsafe(text: &str) -> Option<char> {
    quote::first_unsafe(text, |c| c == '\t')
}

/// Whether `text` holds no character [`check`] would report.
pub(crate) fn is_safe(text: &str) -> bool {
    first_unsafe(text).is_none()
}

fn flag(text: &str, span: std::ops::Range<usize>, what: &str, problems: &mut Vec<Problem>) {
    let Some(c) = first_unsafe(text) else {
        return;
    };
    problems.push(
        Problem::new(
            Code::ControlChar,
            span,
            format!(
                "this {what} holds the control character U+{:04X}: {}",
                c as u32,
                quote::quote(text)
            ),
        )
        .label("control character")
        .help("remove it: matrix text is printed to terminals, CI logs and Markdown, where control characters act instead of showing (write one line; no escape sequences)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<Problem> {
        let doc = DeTable::parse(text).unwrap();
        let mut out = Vec::new();
        check(doc.get_ref(), &mut out);
        out
    }

    #[test]
    fn the_built_in_catalog_holds_no_control_characters() {
        assert!(problems(crate::catalog::TEXT).is_empty());
    }

    #[test]
    fn keys_strings_and_nested_values_are_all_checked() {
        let text =
            "a = \"x\\u001by\"\n[t]\n\"k\\u202e\" = 1\nl = [[\"\\r\"]]\nok = \"tab\\there\"\n";
        let found = problems(text);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found.iter().all(|p| p.code == Code::ControlChar));
        assert!(found[0].message.contains("U+001B"), "{}", found[0].message);
    }

    #[test]
    fn a_plain_document_skips_the_walk_only_when_the_walk_finds_nothing() {
        let plain = [
            "a = \"x\"\r\n[t]\n'k' = 'lit'\nl = [[\"tab\there\"]] # note\n",
            crate::catalog::TEXT,
        ];
        for text in plain {
            assert!(plain_document(text) || !text.is_ascii(), "{text:?}");
            assert!(problems(text).is_empty());
        }
        // Each can carry an unsafe character past a byte check of the
        // printable range, so each takes the walk.
        let walked = [
            ("a = \"x\\u001by\"\n", 1),
            ("\"k\\u202e\" = 1\n", 1),
            ("a = \"\"\"\nline\nnext\"\"\"\n", 1),
            ("a = '''\nline\nnext'''\n", 1),
            ("a = \"\u{202e}\"\n", 1),
            ("a = \"caf\u{e9}\"\n", 0),
            ("a = 'back\\slash'\n", 0),
        ];
        for (text, found) in walked {
            assert!(!plain_document(text), "{text:?}");
            let mut out = Vec::new();
            check_document(text, DeTable::parse(text).unwrap().get_ref(), &mut out);
            assert_eq!(out.len(), found, "{text:?}");
        }
    }

    #[test]
    fn controls_and_bidi_marks_in_values_are_each_reported() {
        let raw = "a = \"\u{202e}x\"\nb = \"del\\u007f\"\n";
        assert_eq!(problems(raw).len(), 2);
    }
}
