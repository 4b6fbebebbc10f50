//! The matrix's text is untrusted (docs/SECURITY.md): every string value
//! and key is printed to terminals, CI logs and rendered Markdown, so none
//! may hold a character a terminal or log would interpret instead of show
//! (controls, bidi and invisible format characters; a tab is allowed).
//! One walk over the parsed document reports each with its exact span.

use toml::de::{DeTable, DeValue};

use super::diagnostic::{Code, Problem};
use crate::output::quote;

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

fn flag(text: &str, span: std::ops::Range<usize>, what: &str, problems: &mut Vec<Problem>) {
    let Some(c) = text
        .chars()
        .find(|&c| c != '\t' && quote::is_unsafe_char(c))
    else {
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
}
