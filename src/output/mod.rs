//! The output layer: reports × format → text. Only this layer knows about
//! JSON and colour. Styles are named by role and written as ANSI; the CLI
//! prints through `anstream`, which strips them when stdout is not a
//! terminal or `NO_COLOR` is set — colour is decided once, there.

pub mod audit;
pub mod coverage;
pub mod gate;
pub mod github;
pub mod html;
pub mod init;
pub mod json;
pub mod markdown;
pub mod prove;
pub mod sarif;
pub mod schema_id;
pub mod text;
pub mod wrap;

use anstyle::{AnsiColor, Color, Style};

use crate::quote;

/// Styles by role; never raw colours at call sites.
pub mod role {
    use super::*;
    pub const HEADING: Style = Style::new().bold();
    pub const SLUG: Style = Style::new()
        .bold()
        .fg_color(Some(Color::Ansi(AnsiColor::Cyan)));
    pub const ROUTE: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Magenta)));
    pub const LINK: Style = Style::new()
        .underline()
        .fg_color(Some(Color::Ansi(AnsiColor::Blue)));
    pub const DEBT: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Red)));
    pub const REACHED: Style = Style::new()
        .bold()
        .fg_color(Some(Color::Ansi(AnsiColor::Green)));
    pub const NEXT: Style = Style::new()
        .bold()
        .fg_color(Some(Color::Ansi(AnsiColor::Yellow)));
    pub const DIM: Style = Style::new().dimmed();
    pub const PLAIN: Style = Style::new();
}

/// `text` in `style`.
pub fn paint(style: Style, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    paint_into(&mut out, style, text);
    out
}

/// [`paint`], appended to `out`.
fn paint_into(out: &mut String, style: Style, text: &str) {
    if style == Style::new() {
        out.push_str(text);
    } else {
        use std::fmt::Write;
        let _ = write!(out, "{style}{text}{style:#}");
    }
}

/// Display width of text in terminal columns.
pub fn width(text: &str) -> usize {
    wrap::columns(text)
}

/// `text` in `style`, padded with spaces to `cols` columns.
pub fn cell(style: Style, text: &str, cols: usize) -> String {
    let pad = cols.saturating_sub(width(text));
    let mut out = String::with_capacity(text.len() + pad + 16);
    paint_into(&mut out, style, text);
    out.extend(std::iter::repeat_n(' ', pad));
    out
}

/// What a commit's `Prior-art:` stamp says, in a few words.
pub fn stamp_phrase(stamp: &crate::surface::trailer::Stamp) -> String {
    use crate::surface::trailer::Stamp;
    match stamp {
        Stamp::Valid(t) => format!("stamped: {}", quote::quote(&t.value)),
        Stamp::Placeholder(t) => format!("placeholder `Prior-art: {}`", quote::quote(&t.value)),
        Stamp::Missing => "no Prior-art trailer".to_owned(),
    }
}
