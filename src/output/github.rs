//! GitHub Actions workflow commands: the escaping rules (message data and
//! property values) and the annotation list with GitHub's per-step cap —
//! at most [`CAP`] annotations of each type are shown, so sota prints that
//! many and then one `notice` saying how many more there are and where to
//! see them all.

use std::fmt::Write as _;

/// GitHub shows at most this many annotations of each type per step.
pub const CAP: usize = 10;

/// Escape a workflow-command message (`%`, CR, LF); any other character a
/// terminal or log viewer would act on is shown C-escaped
/// ([`crate::quote::escape_keeping_lines`]), whoever built the message.
pub fn data(s: &str) -> String {
    crate::quote::escape_keeping_lines(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property value (as [`data`], and `:` `,`).
pub fn prop(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The annotation types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    /// The workflow command's name (`::error`, ...).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// One annotation.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub level: Level,
    /// Repository-relative path.
    pub file: String,
    /// 1-based line and column, when known.
    pub line: Option<usize>,
    pub col: Option<usize>,
    pub title: String,
    pub message: String,
}

impl Annotation {
    /// The workflow command line.
    pub fn line(&self) -> String {
        let mut props = format!("file={}", prop(&self.file));
        if let Some(l) = self.line {
            let _ = write!(props, ",line={l}");
            if let Some(c) = self.col {
                let _ = write!(props, ",col={c}");
            }
        }
        let _ = write!(props, ",title={}", prop(&self.title));
        format!("::{} {props}::{}\n", self.level.name(), data(&self.message))
    }
}

/// The annotations, at most [`CAP`] of each type, then one notice per
/// capped type saying how many were left out and `where_all` (e.g. "run
/// `sota coverage` for the full list").
pub fn render(annotations: &[Annotation], where_all: &str) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut left = [0usize; 3];
    for a in annotations {
        let i = a.level as usize;
        if shown[i] < CAP {
            shown[i] += 1;
            out.push_str(&a.line());
        } else {
            left[i] += 1;
        }
    }
    for level in [Level::Error, Level::Warning, Level::Notice] {
        let n = left[level as usize];
        if n > 0 {
            let _ = writeln!(
                out,
                "::notice title=sota::{}",
                data(&format!(
                    "{n} more {} annotation{} not shown (GitHub shows {CAP} per type per step): {where_all}",
                    level.name(),
                    if n == 1 { "" } else { "s" }
                ))
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(level: Level, i: usize) -> Annotation {
        Annotation {
            level,
            file: format!("k/{i}.cu"),
            line: Some(i + 1),
            col: None,
            title: "t".into(),
            message: "m".into(),
        }
    }

    #[test]
    fn escapes_follow_the_workflow_command_rules() {
        assert_eq!(data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(prop("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        let a = Annotation {
            level: Level::Warning,
            file: "k/a,b:%\n.cu".into(),
            line: Some(3),
            col: Some(7),
            title: "PRIOR_ART x".into(),
            message: "m1\nm2".into(),
        };
        assert_eq!(
            a.line(),
            "::warning file=k/a%2Cb%3A%25%0A.cu,line=3,col=7,title=PRIOR_ART x::m1%0Am2\n"
        );
    }

    #[test]
    fn each_type_is_capped_and_the_rest_counted_in_one_notice() {
        let mut all: Vec<Annotation> = (0..13).map(|i| note(Level::Error, i)).collect();
        all.extend((0..4).map(|i| note(Level::Warning, i)));
        let out = render(&all, "see `sota coverage`");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::error ")).count(),
            CAP
        );
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::warning ")).count(),
            4
        );
        let notices: Vec<&str> = out.lines().filter(|l| l.starts_with("::notice")).collect();
        assert_eq!(
            notices,
            ["::notice title=sota::3 more error annotations not shown (GitHub shows 10 per type per step): see `sota coverage`"]
        );
    }
}
