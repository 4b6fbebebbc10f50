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
