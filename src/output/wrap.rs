//! Fitting human output to the terminal: display width measured with
//! `unicode-width` (ANSI styles count as zero columns), long lines wrapped
//! at spaces with a hanging indent, table cells truncated with `…`. Pipes
//! get `None` and are never touched.

use unicode_width::UnicodeWidthChar;

/// Display columns of `text`, skipping ANSI escape sequences.
pub fn columns(text: &str) -> usize {
    // Printable ASCII (most slugs, titles and paths): one column a byte.
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return text.len();
    }
    let mut cols = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            skip_escape(&mut chars);
            continue;
        }
        cols += c.width().unwrap_or(0);
    }
    cols
}

/// `text` without its ANSI styles, for readers that are not terminals (the
/// MCP server's text content).
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            skip_escape(&mut chars);
        } else {
            out.push(c);
        }
    }
    out
}

/// Skip the rest of an ANSI escape sequence (CSI `ESC [ … final`).
fn skip_escape(chars: &mut std::str::Chars<'_>) {
    if chars.clone().next() == Some('[') {
        chars.next();
        for c in chars.by_ref() {
            if ('@'..='~').contains(&c) {
                break;
            }
        }
    }
}

/// `text` cut to at most `max` columns, ending in `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if columns(text) <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut cols = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if cols + w + 1 > max {
            break;
        }
        out.push(c);
        cols += w;
    }
    out.push('…');
    out
}

/// Every line of `text` wrapped to `width` columns (none: unchanged).
/// Continuation lines are indented two columns past the line's own
/// indentation; a word longer than the width stays whole.
pub fn fit(text: &str, width: Option<usize>) -> String {
    let Some(width) = width.filter(|w| *w >= 20) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, eol) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if columns(body) <= width {
            out.push_str(line);
            continue;
        }
        let indent_len = body.len() - body.trim_start_matches(' ').len();
        let hanging = " ".repeat(hanging_indent(body, indent_len).min(width / 2));
        let mut current = body[..indent_len].to_owned();
        let mut current_cols = indent_len;
        let mut first_word = true;
        for word in body[indent_len..].split(' ') {
            let w = columns(word);
            if !first_word && current_cols + 1 + w > width {
                out.push_str(current.trim_end());
                out.push('\n');
                current = hanging.clone();
                current_cols = hanging.len();
                first_word = true;
            }
            if !first_word {
                current.push(' ');
                current_cols += 1;
            }
            current.push_str(word);
            current_cols += w;
            first_word = false;
        }
        out.push_str(&current);
        out.push_str(eol);
    }
    out
}

/// Where continuation lines start: under the value of a `label   value`
/// line (the text after the first gap of two or more spaces), else two
/// columns past the line's own indentation.
fn hanging_indent(body: &str, indent_len: usize) -> usize {
    let rest = &body[indent_len..];
    if let Some(gap) = rest.find("  ") {
        let label = &rest[..gap];
        let after = rest[gap..].trim_start_matches(' ');
        if !label.is_empty() && !after.is_empty() {
            return indent_len + columns(label) + (rest.len() - gap - after.len());
        }
    }
    indent_len + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_drops_styles_and_keeps_the_text() {
        let styled = crate::output::paint(crate::output::role::SLUG, "flash-attn");
        assert_ne!(styled, "flash-attn");
        assert_eq!(plain(&format!("op {styled} — ok")), "op flash-attn — ok");
    }

    #[test]
    fn wide_and_styled_text_is_measured_in_columns() {
        assert_eq!(columns("abc"), 3);
        assert_eq!(columns("≥ 0.999"), 7);
        assert_eq!(columns("全角"), 4);
        assert_eq!(columns("\x1b[1;36mslug\x1b[0m"), 4);
    }

    #[test]
    fn long_lines_wrap_with_a_hanging_indent_and_pipes_are_untouched() {
        let text = "  read: one two three four five six seven eight nine ten\nshort\n";
        let fitted = fit(text, Some(24));
        for line in fitted.lines() {
            assert!(columns(line) <= 24, "{line:?}");
        }
        assert!(fitted.lines().nth(1).unwrap().starts_with("    "));
        let labelled = fit("  sota     one two three four five six seven\n", Some(24));
        let second = labelled.lines().nth(1).unwrap();
        assert_eq!(second.len() - second.trim_start().len(), 11, "{labelled:?}");
        assert_eq!(
            fitted.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(fit(text, None), text);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
