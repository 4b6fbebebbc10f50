//! `sota audit`: stream history from git into the auditor, with a progress
//! bar on a terminal, and print the summary or the JSON.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use sota::matrix::{self, Matrix};
use sota::output::{audit as render, json};
use sota::repo::git::Git;
use sota::surface::audit::Auditor;

use super::{absolute, err, out, Failure, Outcome};

pub(super) struct AuditArgs<'a> {
    pub range: Option<&'a str>,
    pub since: Option<&'a str>,
    pub max_count: Option<usize>,
    pub first_parent: bool,
}

pub(super) fn run(
    flag: Option<&Path>,
    json_flag: bool,
    args: AuditArgs<'_>,
) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()?;
    let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
    let Some(path) = matrix::discover(&cwd, flag, env.as_deref())
        .path()
        .map(Path::to_path_buf)
    else {
        err(&super::no_matrix_message("sota audit", &cwd));
        return Ok(Outcome::Refused);
    };
    let matrix = Matrix::load(&path).map_err(Failure::Matrix)?;
    let git = Git::new(absolute(&matrix.root, &cwd));
    let range = args.range.unwrap_or("HEAD");
    let mut extra: Vec<String> = Vec::new();
    if let Some(since) = args.since {
        extra.push(format!("--since={since}"));
    }
    if let Some(n) = args.max_count {
        extra.push(format!("--max-count={n}"));
    }
    if args.first_parent {
        extra.push("--first-parent".into());
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();

    let mut auditor = Auditor::new(&matrix, &git.comment_prefix());
    let shallow = git.is_shallow();
    if args.range.is_some() || git.has_commits() {
        let progress = !json_flag && std::io::stderr().is_terminal();
        let total = if progress {
            git.count_commits(range, &extra).unwrap_or(0)
        } else {
            0
        };
        let mut seen = 0usize;
        let result = git.for_each_commit(range, &extra, |c| {
            auditor.add(c);
            seen += 1;
            if progress && (seen % 64 == 0 || seen == total) {
                draw(seen, total);
            }
        });
        if progress {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[2K");
        }
        if let Err(e) = result {
            err(&format!("sota audit: {e}"));
            return Ok(Outcome::Refused);
        }
    }
    let report = auditor.finish();
    if json_flag {
        out(&json::to_string(&render::json(
            &matrix, range, shallow, &report,
        )))?;
    } else {
        out(&render::human(&matrix, range, shallow, &report))?;
    }
    Ok(Outcome::Done)
}

/// A one-line progress bar on stderr.
fn draw(seen: usize, total: usize) {
    const WIDTH: usize = 30;
    let mut e = std::io::stderr().lock();
    if total == 0 {
        let _ = write!(e, "\rscanning history… {seen} commits");
    } else {
        let done = (seen * WIDTH / total.max(1)).min(WIDTH);
        let _ = write!(
            e,
            "\rscanning history [{}{}] {seen}/{total}",
            "#".repeat(done),
            ".".repeat(WIDTH - done)
        );
    }
    let _ = e.flush();
}
