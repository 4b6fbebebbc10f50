//! Markdown for GitHub's job summary (`$GITHUB_STEP_SUMMARY`): table cells
//! that untrusted text (file names, commit subjects, matrix values) cannot
//! break out of — no new row or column, no HTML, no link or emphasis.

use std::borrow::Cow;

use crate::quote::quote;

/// `text` as one Markdown table cell: controls made visible first
/// ([`quote`]), then every character Markdown or HTML would interpret
/// escaped (`|` and friends with `\`, `<` `>` `&` as entities).
pub fn cell(text: &str) -> String {
    let shown: Cow<'_, str> = quote(text);
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '~' | '(' | ')' => {
                out.push('\\');
                out.push(c);
            }
            // `quote` leaves nothing else that breaks a row.
            c => out.push(c),
        }
    }
    out
}

/// A table: header and rows of already-escaped cells.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

/// How many rows a summary table lists before it says how many more.
pub const ROW_CAP: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_cannot_open_a_row_a_column_or_html() {
        let nasty = "a|b\n| x |<img src=x onerror=alert(1)>[l](http://e) **b**";
        let c = cell(nasty);
        assert!(!c.contains('\n'));
        assert!(!c.contains('<'));
        assert_eq!(c.matches('|').count(), c.matches("\\|").count());
        assert!(c.contains("\\[l\\]\\(http://e\\)"));
        assert_eq!(cell("k/attn.cu"), "k/attn.cu");
    }
}
