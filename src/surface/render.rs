//! Docs rendering (SPEC 3.6): rewrite the regions between
//! `<!-- sota:matrix -->` … `<!-- /sota:matrix -->` and
//! `<!-- sota:milestones -->` … `<!-- /sota:milestones -->` in a Markdown
//! file with tables rendered from the matrix, and the figures prose would
//! otherwise let drift: `<!-- sota:counts -->` (how many ops and ladders)
//! and `<!-- sota:mcp-tools -->` (the MCP server's tools, which the front
//! end supplies as [`Facts`]). Pure: text in, text out; bytes outside the
//! markers (line endings included) are kept exactly.

use crate::matrix::{Matrix, Origin};
use crate::surface::milestones::LadderView;

/// The kinds of region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    Matrix,
    Milestones,
    /// One line: how many ops and ladders the matrix holds.
    Counts,
    /// One line: the MCP server's tools, by name.
    McpTools,
}

impl Region {
    const ALL: [Region; 4] = [
        Region::Matrix,
        Region::Milestones,
        Region::Counts,
        Region::McpTools,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Region::Matrix => "matrix",
            Region::Milestones => "milestones",
            Region::Counts => "counts",
            Region::McpTools => "mcp-tools",
        }
    }

    fn open(self) -> String {
        format!("<!-- sota:{} -->", self.name())
    }

    fn close(self) -> String {
        format!("<!-- /sota:{} -->", self.name())
    }
}

/// A marker problem, with the 1-based line it is on (`None`: the file as a
/// whole, e.g. it has no region at all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerError {
    pub line: Option<usize>,
    pub message: String,
}

/// One region that the render changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub region: Region,
    /// 1-based line of the opening marker.
    pub line: usize,
    pub old: String,
    pub new: String,
}

/// The rendered file and what changed.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub text: String,
    pub changes: Vec<Change>,
}

/// What a region may need that the matrix does not hold, supplied by the
/// front end (the library cannot see the binary's MCP server).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The MCP server's tool names, in its order (`sota:mcp-tools`).
    pub mcp_tools: Vec<String>,
}

/// A marker line: its region, whether it opens, the byte range of the line
/// (end of line included), its 1-based number, and its text.
type Marker<'t> = (Region, bool, usize, usize, usize, &'t str);

/// Render every region of `text` from `matrix` (no [`Facts`]: a
/// `sota:mcp-tools` region is an error).
pub fn render(text: &str, matrix: &Matrix) -> Result<Rendered, MarkerError> {
    render_with(text, matrix, &Facts::default())
}

/// Render every region of `text` from `matrix` and `facts`.
pub fn render_with(text: &str, matrix: &Matrix, facts: &Facts) -> Result<Rendered, MarkerError> {
    if let Some(at) = lone_cr(text) {
        return Err(MarkerError {
            line: Some(text[..at].matches('\n').count() + 1),
            message: "has a carriage return that does not end a CRLF line (classic Mac line endings); convert the file to LF or CRLF line endings, then render again".to_owned(),
        });
    }
    let markers = markers(text)?;
    if markers.is_empty() {
        return Err(MarkerError {
            line: None,
            message: format!(
                "no region to render: put `{}` … `{}` and/or `{}` … `{}` on lines of their own where the tables belong",
                Region::Matrix.open(),
                Region::Matrix.close(),
                Region::Milestones.open(),
                Region::Milestones.close()
            ),
        });
    }
    let mut out = String::with_capacity(text.len());
    let mut changes = Vec::new();
    let mut seen = Vec::new();
    let mut cursor = 0;
    for pair in 0..markers.len().div_ceil(2) {
        let i = pair * 2;
        let (region, _, _, end, line, open_line) = markers[i];
        let close_start = closing(&markers, i, &seen)?;
        seen.push(region);
        let eol = if open_line.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let body = body(region, matrix, facts, line)?;
        let new: String = body.lines().map(|l| format!("{l}{eol}")).collect();
        let old = &text[end..close_start];
        out.push_str(&text[cursor..end]);
        out.push_str(&new);
        if old != new {
            changes.push(Change {
                region,
                line,
                old: old.to_owned(),
                new: new.clone(),
            });
        }
        cursor = close_start;
    }
    out.push_str(&text[cursor..]);
    Ok(Rendered { text: out, changes })
}

/// The rendered content of one region.
fn body(
    region: Region,
    matrix: &Matrix,
    facts: &Facts,
    line: usize,
) -> Result<String, MarkerError> {
    Ok(match region {
        Region::Matrix => matrix_table(matrix),
        Region::Milestones => milestones_table(matrix),
        Region::Counts => counts(matrix),
        Region::McpTools if facts.mcp_tools.is_empty() => {
            return Err(MarkerError {
                line: Some(line),
                message: format!(
                    "`{}` lists the MCP server's tools, which only the sota binary knows: render it with `sota render`",
                    Region::McpTools.open()
                ),
            })
        }
        Region::McpTools => mcp_tools(&facts.mcp_tools),
    })
}

/// The opening marker at `i` is well formed and closed by the next one:
/// the byte offset where the closing marker's line starts.
fn closing(markers: &[Marker<'_>], i: usize, seen: &[Region]) -> Result<usize, MarkerError> {
    let (region, is_open, _, _, line, _) = markers[i];
    if !is_open {
        return Err(MarkerError {
            line: Some(line),
            message: format!("`{}` closes a region that was never opened", region.close()),
        });
    }
    if seen.contains(&region) {
        return Err(MarkerError {
            line: Some(line),
            message: format!(
                "`{}` appears a second time: one region of each kind per file",
                region.open()
            ),
        });
    }
    let Some(&(close_region, close_is_open, close_start, _, close_line, _)) = markers.get(i + 1)
    else {
        return Err(MarkerError {
            line: Some(line),
            message: format!(
                "`{}` is never closed: add `{}` after it",
                region.open(),
                region.close()
            ),
        });
    };
    if close_is_open || close_region != region {
        return Err(MarkerError {
            line: Some(close_line),
            message: format!(
                "expected `{}` (to close line {line}) before another marker",
                region.close()
            ),
        });
    }
    Ok(close_start)
}

/// Every marker line outside code fences, in order; a line that looks
/// like a marker but is not one is an error naming it.
fn markers(text: &str) -> Result<Vec<Marker<'_>>, MarkerError> {
    let mut markers = Vec::new();
    let mut offset = 0;
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        // Inside a fenced code block a marker is an example, not a region.
        if let Some(open) = fence_of(line) {
            match fence {
                None => fence = Some(open),
                Some((c, n)) if open.0 == c && open.1 >= n && trimmed.len() == open.1 => {
                    fence = None
                }
                Some(_) => {}
            }
        } else if fence.is_none() {
            if let Some(marker) = marker(trimmed, i + 1)? {
                markers.push((marker.0, marker.1, offset, offset + line.len(), i + 1, line));
            }
        }
        offset += line.len();
    }
    Ok(markers)
}

/// One trimmed line as a marker (region, opens), `None` for ordinary text.
fn marker(trimmed: &str, line: usize) -> Result<Option<(Region, bool)>, MarkerError> {
    if !trimmed.starts_with("<!--") || !trimmed.contains("sota:") {
        return Ok(None);
    }
    for region in Region::ALL {
        if trimmed == region.open() {
            return Ok(Some((region, true)));
        }
        if trimmed == region.close() {
            return Ok(Some((region, false)));
        }
    }
    let written = trimmed
        .split("sota:")
        .nth(1)
        .unwrap_or("")
        .trim_end_matches("-->")
        .trim();
    if let Some(region) = Region::ALL
        .into_iter()
        .find(|r| trimmed.contains(&format!("sota:{}", r.name())))
    {
        return Err(MarkerError {
            line: Some(line),
            message: format!(
                "`{trimmed}` is not a marker: write `{}` or `{}` alone on its line",
                region.open(),
                region.close()
            ),
        });
    }
    let names = Region::ALL.map(Region::name);
    let dym = crate::did_you_mean::did_you_mean(written, names.iter().copied());
    let hint = match dym.first() {
        Some(name) => format!("did you mean `<!-- sota:{name} -->`?"),
        None => format!(
            "the markers are {}",
            Region::ALL.map(|r| format!("`{}`", r.open())).join(", ")
        ),
    };
    Err(MarkerError {
        line: Some(line),
        message: format!("`{trimmed}` is not a sota marker; {hint}"),
    })
}

/// `sota:counts`: how many ops and ladders, as one line of prose.
pub fn counts(matrix: &Matrix) -> String {
    let (n, l) = (matrix.ops.len(), matrix.ladders.len());
    let who = if matrix.origin == Origin::Catalog {
        "The built-in catalog holds".to_owned()
    } else {
        format!("`{}` maps", matrix.project.name.replace('`', "'"))
    };
    format!(
        "{who} **{n}** ML-kernel operation{} and **{l}** milestone ladder{}.\n",
        if n == 1 { "" } else { "s" },
        if l == 1 { "" } else { "s" }
    )
}

/// `sota:mcp-tools`: the tool names, as one line.
pub fn mcp_tools(tools: &[String]) -> String {
    let names: Vec<String> = tools.iter().map(|t| format!("`{t}`")).collect();
    let list = match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    format!(
        "The MCP server's {} tool{}: {list}.\n",
        names.len(),
        if names.len() == 1 { "" } else { "s" }
    )
}

/// Where a file uses lone `\r` as its line ending (classic Mac), so
/// markers would hide inside one long line: the offset of the first lone
/// `\r` of a file without any `\n`, or of a line holding both a lone
/// `\r` and `sota:`. A stray `\r` inside other text is just text.
fn lone_cr(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let first = memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))?;
    if !text.contains('\n') {
        return Some(first);
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n').trim_end_matches('\r');
        if body.contains('\r') && body.contains("sota:") {
            return Some(offset + body.find('\r').unwrap_or(0));
        }
        offset += line.len();
    }
    None
}

/// A CommonMark code fence line (up to three spaces, then three or more
/// backticks or tildes): its character and length.
fn fence_of(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.len() - rest.trim_start_matches(c).len();
    (n >= 3).then_some((c, n))
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The seed's matrix table: operation, path, SOTA to learn, route, oracle.
pub fn matrix_table(matrix: &Matrix) -> String {
    if matrix.origin == Origin::Catalog {
        return crate::surface::render_catalog::ops_table(matrix);
    }
    let mut s = String::from(
        "| Operation | Path | SOTA to learn | Route | Oracle |\n|---|---|---|---|---|\n",
    );
    for op in &matrix.ops {
        let path = match &op.where_ {
            Some(w) => cell(w),
            None => op
                .at
                .iter()
                .map(|a| format!("`{}`", a.value))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let sota = match &op.link {
            Some(l) => format!("[{}]({})", cell(&op.sota), l.value),
            None => cell(&op.sota),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&op.title),
            path,
            sota,
            op.route.as_ref().map_or("undecided", |r| r.value.name()),
            op.oracle
                .as_deref()
                .map_or_else(|| "none yet".to_owned(), cell),
        ));
    }
    s
}

/// One row per ladder: axis, rung today, next milestone.
pub fn milestones_table(matrix: &Matrix) -> String {
    if matrix.origin == Origin::Catalog {
        return crate::surface::render_catalog::ladders_table(matrix);
    }
    let mut s = String::from("| Axis | Rung today | Next milestone |\n|---|---|---|\n");
    let has_project = matrix.origin == Origin::Project;
    for ladder in &matrix.ladders {
        let view = LadderView::new(ladder, has_project);
        let today = view.reached.as_ref().map_or_else(
            || "not implemented".to_owned(),
            |r| format!("L{} {} ({})", r.level, cell(&r.rung.name), r.rung.year),
        );
        let mut next = view.next.as_ref().map_or_else(
            || "— top of the ladder".to_owned(),
            |r| format!("L{} {} ({})", r.level, cell(&r.rung.name), r.rung.year),
        );
        if let Some(note) = &ladder.next_note {
            next.push_str(&format!(" — {}", cell(note)));
        }
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            ladder.axis.value, today, next
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> Matrix {
        Matrix::from_str(
            "[project]\nname='t'\n[[op]]\nslug='a'\ntitle='A | B'\nsota='S'\nlink='https://x.org'\nroute='bind'\noracle='o'\nwhere='k.cu'\n\
             [[ladder]]\naxis='attention'\n[[ladder.rung]]\nname='FA-1'\nyear=2022\nsummary='s'\n",
            "sota.toml",
        )
        .unwrap()
    }

    #[test]
    fn only_the_marked_regions_change_and_line_endings_are_kept() {
        let text = "# Title\r\n\r\nintro  \r\n<!-- sota:matrix -->\r\nold\r\n<!-- /sota:matrix -->\r\ntail\r\n";
        let r = render(text, &m()).unwrap();
        assert!(r
            .text
            .starts_with("# Title\r\n\r\nintro  \r\n<!-- sota:matrix -->\r\n| Operation |"));
        assert!(r.text.ends_with("<!-- /sota:matrix -->\r\ntail\r\n"));
        assert!(r
            .text
            .contains("| A \\| B | k.cu | [S](https://x.org) | bind | o |\r\n"));
        assert_eq!(r.changes.len(), 1);
        let again = render(&r.text, &m()).unwrap();
        assert_eq!(again.text, r.text);
        assert!(again.changes.is_empty(), "rendering is idempotent");
    }

    #[test]
    fn markers_in_code_fences_are_examples_and_lone_cr_is_refused() {
        let text = "```md\n<!-- sota:matrix -->\nexample\n<!-- /sota:matrix -->\n```\n<!-- sota:matrix -->\nold\n<!-- /sota:matrix -->\n";
        let r = render(text, &m()).unwrap();
        assert!(
            r.text.starts_with("```md\n<!-- sota:matrix -->\nexample\n"),
            "{}",
            r.text
        );
        assert_eq!(r.changes.len(), 1);
        assert_eq!(r.changes[0].line, 6);
        let e = render("a\r<!-- sota:matrix -->\r<!-- /sota:matrix -->\r", &m()).unwrap_err();
        assert!(e.message.contains("carriage return"), "{e:?}");
    }

    #[test]
    fn counts_and_mcp_tools_render_from_the_matrix_and_the_facts() {
        let text = "a\n<!-- sota:counts -->\n13 ops\n<!-- /sota:counts -->\n<!-- sota:mcp-tools -->\n<!-- /sota:mcp-tools -->\n";
        let facts = Facts {
            mcp_tools: vec!["lookup".into(), "coverage".into(), "suggest".into()],
        };
        let r = render_with(text, &m(), &facts).unwrap();
        assert_eq!(
            r.text,
            "a\n<!-- sota:counts -->\n`t` maps **1** ML-kernel operation and **1** milestone ladder.\n<!-- /sota:counts -->\n<!-- sota:mcp-tools -->\nThe MCP server's 3 tools: `lookup`, `coverage` and `suggest`.\n<!-- /sota:mcp-tools -->\n"
        );
        let e = render(text, &m()).unwrap_err();
        assert_eq!(e.line, Some(5), "{e:?}");
        assert!(e.message.contains("only the sota binary knows"), "{e:?}");
    }

    #[test]
    fn marker_errors_name_the_line() {
        let cases = [
            ("<!-- sota:matrix -->\nx\n", 1, "never closed"),
            ("x\n<!-- /sota:matrix -->\n", 2, "never opened"),
            ("<!-- sota:matrix -->\n<!-- /sota:matrix -->\n<!-- sota:matrix -->\n<!-- /sota:matrix -->\n", 3, "second time"),
            ("<!-- sota:matrix -->\n<!-- sota:milestones -->\n", 2, "expected"),
            ("<!-- sota:matrix extra -->\n", 1, "not a marker"),
        ];
        for (text, line, says) in cases {
            let e = render(text, &m()).unwrap_err();
            assert_eq!(e.line, Some(line), "{text:?}: {e:?}");
            assert!(e.message.contains(says), "{text:?}: {e:?}");
        }
    }
}
