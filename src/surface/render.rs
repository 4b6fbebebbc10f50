//! Docs rendering (SPEC 3.6): rewrite the regions between
//! `<!-- sota:matrix -->` … `<!-- /sota:matrix -->` and
//! `<!-- sota:milestones -->` … `<!-- /sota:milestones -->` in a Markdown
//! file with tables rendered from the matrix. Pure: text in, text out; bytes
//! outside the markers (line endings included) are kept exactly.

use crate::matrix::{Matrix, Origin};
use crate::surface::milestones::LadderView;

/// The kinds of region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    Matrix,
    Milestones,
}

impl Region {
    const ALL: [Region; 2] = [Region::Matrix, Region::Milestones];

    pub fn name(self) -> &'static str {
        match self {
            Region::Matrix => "matrix",
            Region::Milestones => "milestones",
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

/// Render every region of `text` from `matrix`.
pub fn render(text: &str, matrix: &Matrix) -> Result<Rendered, MarkerError> {
    // Find marker lines: (region, is_open, byte range of the line incl. EOL, line number).
    if let Some(at) = lone_cr(text) {
        return Err(MarkerError {
            line: Some(text[..at].matches('\n').count() + 1),
            message: "has a carriage return that does not end a CRLF line (classic Mac line endings); convert the file to LF or CRLF line endings, then render again".to_owned(),
        });
    }
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
            offset += line.len();
            continue;
        }
        if fence.is_some() {
            offset += line.len();
            continue;
        }
        for region in Region::ALL {
            if trimmed == region.open() {
                markers.push((region, true, offset, offset + line.len(), i + 1, line));
            } else if trimmed == region.close() {
                markers.push((region, false, offset, offset + line.len(), i + 1, line));
            } else if trimmed.contains(&format!("sota:{}", region.name()))
                && trimmed.starts_with("<!--")
            {
                return Err(MarkerError {
                    line: Some(i + 1),
                    message: format!(
                        "`{trimmed}` is not a marker: write `{}` or `{}` alone on its line",
                        region.open(),
                        region.close()
                    ),
                });
            }
        }
        if trimmed.starts_with("<!--")
            && trimmed.contains("sota:")
            && !Region::ALL.iter().any(|r| {
                trimmed == r.open()
                    || trimmed == r.close()
                    || trimmed.contains(&format!("sota:{}", r.name()))
            })
        {
            let written = trimmed
                .split("sota:")
                .nth(1)
                .unwrap_or("")
                .trim_end_matches("-->")
                .trim();
            let names = Region::ALL.map(Region::name);
            let dym = crate::did_you_mean::did_you_mean(written, names.iter().copied());
            let hint = match dym.first() {
                Some(name) => format!("did you mean `<!-- sota:{name} -->`?"),
                None => format!(
                    "the markers are `{}` and `{}`",
                    Region::Matrix.open(),
                    Region::Milestones.open()
                ),
            };
            return Err(MarkerError {
                line: Some(i + 1),
                message: format!("`{trimmed}` is not a sota marker; {hint}"),
            });
        }
        offset += line.len();
    }
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
    let mut i = 0;
    while i < markers.len() {
        let (region, is_open, _start, end, line, open_line) = markers[i];
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
        let Some(&(close_region, close_is_open, close_start, _, close_line, _)) =
            markers.get(i + 1)
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
        seen.push(region);
        let eol = if open_line.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let body = match region {
            Region::Matrix => matrix_table(matrix),
            Region::Milestones => milestones_table(matrix),
        };
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
        i += 2;
    }
    out.push_str(&text[cursor..]);
    Ok(Rendered { text: out, changes })
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
