//! `sota gate` and `sota hook`: the command-line side of the PRIOR_ART gate.
//! The gate never stands in the way: every failure of its own (no matrix, a
//! broken matrix, no git, not a repository) is one line on stderr and exit
//! 0; only `--strict` with an advisory exits 1.

use std::path::{Path, PathBuf};

use sota::matrix::{self, Found, LoadError, Matrix};
use sota::output::{gate as render, json};
use sota::repo::git::{Git, GitPath};
use sota::repo::hooks::{self, Action, InstallOptions};
use sota::surface::gate::{self, GateReport};
use sota::OpIndex;

use sota::output::quote::quote;

use super::{absolute, err, out, same_dir, Failure, GateArgs, GateFormat, HookAction, Outcome};

/// Print a one-line warning and let the commit through.
fn skip(why: &str) -> Result<Outcome, Failure> {
    err(&format!("sota gate: {why}; PRIOR_ART gate skipped"));
    Ok(Outcome::Done)
}

pub(super) fn run(
    flag: Option<&Path>,
    json_flag: bool,
    args: &GateArgs,
) -> Result<Outcome, Failure> {
    let format = if json_flag {
        GateFormat::Json
    } else {
        args.format
    };
    let cwd = std::env::current_dir()?;
    let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
    let found = matrix::discover(&cwd, flag, env.as_deref());
    let Some(path) = found.path() else {
        // A globally installed hook must not bother repositories without sota.
        return Ok(Outcome::Done);
    };
    if matches!(found, Found::Nearest(_)) && !inside_same_repo(path, &cwd) {
        return Ok(Outcome::Done);
    }
    // Start git before loading the matrix: reading a large index and loading
    // a large matrix overlap. The root is the matrix's directory unless
    // `[project] root` moves it (then git is asked again, below).
    let wants_staged = args.paths.is_none() && args.range.is_none();
    let guess_root = absolute(path.parent().unwrap_or(Path::new(".")), &cwd);
    let pending = wants_staged.then(|| Git::new(&guess_root).spawn_staged());
    let matrix = match super::load_matrix(&found) {
        Ok(m) => m,
        Err(LoadError::Invalid(invalid)) => {
            let n = invalid.problems.len();
            let first = invalid.one_line_summaries().swap_remove(0);
            return skip(&format!(
                "{} has {n} problem{} (run `sota list` to see them), first {first}",
                quote(&invalid.name),
                if n == 1 { "" } else { "s" }
            ));
        }
        Err(e) => return skip(&e.to_string()),
    };
    let root = absolute(&matrix.root, &cwd);
    let git = Git::new(&root);
    let mut index = match OpIndex::new(&matrix) {
        Ok(i) => i,
        Err(e) => return skip(&format!("cannot compile the matrix globs: {e}")),
    };

    if let Some(range) = &args.range {
        return range_mode(&matrix, &git, &mut index, range, format, args.strict);
    }

    let (touched, staged_line, message, mode) = if let Some(paths) = &args.paths {
        let rel = paths
            .iter()
            .filter_map(|p| root_relative(p, &cwd, &root))
            .map(|p| GitPath::from_bytes(p.as_bytes()));
        (
            gate::touched(&matrix, &mut index, rel),
            false,
            None,
            "paths",
        )
    } else {
        let staged = match pending {
            Some(Ok(p)) if same_dir(p.dir(), &root) => p.finish(),
            Some(Err(e)) => Err(e),
            _ => git.staged(),
        };
        let staged = match staged {
            Ok(s) => s,
            Err(e) => return skip(&e.to_string()),
        };
        let touched = gate::touched(&matrix, &mut index, staged.paths);
        let (message, mode) = match args.commit_msg.as_ref().or(args.prepare_msg.as_ref()) {
            Some(file) => match std::fs::read(file) {
                Ok(bytes) => (
                    Some(String::from_utf8_lossy(&bytes).into_owned()),
                    "commit-msg",
                ),
                Err(e) => return skip(&format!("cannot read {}: {e}", file.display())),
            },
            None => (None, "staged"),
        };
        (touched, staged.adds_prior_art, message, mode)
    };
    if touched.is_empty() {
        if format == GateFormat::Json {
            let report = gate::judge(touched, staged_line, message.as_deref(), "#");
            out(&json::to_string(&render::json(
                &matrix,
                &report,
                mode,
                args.strict,
            )))?;
        }
        return Ok(Outcome::Done);
    }
    let comment = if message.is_some() {
        git.comment_prefix()
    } else {
        "#".to_owned()
    };

    if let Some(file) = &args.prepare_msg {
        let report = gate::judge(touched, staged_line, message.as_deref(), &comment);
        if let Some(text) = gate::with_suggestions(
            message.as_deref().unwrap_or(""),
            report.advisories(),
            &comment,
        ) {
            if let Err(e) = sota::repo::write::atomic(file, text.as_bytes(), None) {
                return skip(&format!("cannot write {}: {e}", file.display()));
            }
        }
        return Ok(Outcome::Done);
    }

    let mut report = gate::judge(touched, staged_line, message.as_deref(), &comment);
    if format == GateFormat::Json {
        if let Some(msg) = &message {
            report.git_sees_trailer = git.parse_trailers(msg).ok().map(|t| !t.is_empty());
        }
    }
    print_report(&matrix, &git, &report, format, mode, args.strict)?;
    Ok(if args.strict && !report.advisories().is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

fn print_report(
    matrix: &Matrix,
    git: &Git,
    report: &GateReport<'_>,
    format: GateFormat,
    mode: &'static str,
    strict: bool,
) -> Result<(), Failure> {
    match format {
        GateFormat::Human => out(&render::human(report))?,
        GateFormat::Short => out(&render::short(report))?,
        GateFormat::Json => out(&json::to_string(&render::json(
            matrix, report, mode, strict,
        )))?,
        GateFormat::Github => out(&render::github(report, &repo_prefix(git)))?,
    }
    Ok(())
}

fn range_mode(
    matrix: &Matrix,
    git: &Git,
    index: &mut OpIndex<'_>,
    range: &str,
    format: GateFormat,
    strict: bool,
) -> Result<Outcome, Failure> {
    // A range git would read as an option is a usage error, even here.
    if let Err(e) = sota::repo::git::check_revision(range) {
        err(&format!("sota gate: {e}"));
        return Ok(Outcome::Refused);
    }
    let commits = match git.commits(range, &[]) {
        Ok(c) => c,
        Err(e) => return skip(&e.to_string()),
    };
    let comment = git.comment_prefix();
    let findings = gate::range_findings(matrix, index, commits, &comment);
    match format {
        GateFormat::Human => out(&render::range_human(range, &findings))?,
        GateFormat::Short => out(&render::range_short(&findings))?,
        GateFormat::Json => out(&json::to_string(&render::range_json(
            matrix, range, strict, &findings,
        )))?,
        GateFormat::Github => out(&render::range_github(&findings, &repo_prefix(git)))?,
    }
    Ok(if strict && !findings.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// The matrix root relative to the repository top, as a path prefix
/// (`""` when they coincide), for repository-relative annotations.
fn repo_prefix(git: &Git) -> String {
    let Ok(top) = git.toplevel() else {
        return String::new();
    };
    let root = std::fs::canonicalize(git.dir()).unwrap_or_else(|_| git.dir().to_path_buf());
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    match root.strip_prefix(&top) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            format!("{}/", rel.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

/// A user-given path, relative to the matrix root (`None` outside it).
fn root_relative(path: &str, cwd: &Path, root: &Path) -> Option<String> {
    let full = absolute(Path::new(&path.replace('\\', "/")), cwd);
    let full = std::fs::canonicalize(&full).unwrap_or(full);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let rel = full.strip_prefix(&root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/")).filter(|p| !p.is_empty())
}

/// Whether a discovered matrix belongs to the repository the cwd is in (a
/// `sota.toml` above the work tree, e.g. in $HOME, does not).
fn inside_same_repo(matrix: &Path, cwd: &Path) -> bool {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return matrix.starts_with(d);
        }
        dir = d.parent();
    }
    true
}

pub(super) fn hook(action: &HookAction) -> Result<Outcome, Failure> {
    let cwd = std::env::current_dir()?;
    let git = Git::new(&cwd);
    let hooks_dir = match git.hooks_dir() {
        Ok(d) => d,
        Err(e) => {
            err(&format!("sota hook: not inside a git repository ({e})"));
            return Ok(Outcome::Refused);
        }
    };
    let results = match action {
        HookAction::Install { strict, no_chain } => hooks::install(
            &hooks_dir,
            InstallOptions {
                strict: *strict,
                no_chain: *no_chain,
            },
        )?,
        HookAction::Uninstall => hooks::uninstall(&hooks_dir)?,
    };
    let mut refused = false;
    let mut text = String::new();
    for r in &results {
        let shown = r.path.display();
        let line = match &r.action {
            Action::Installed => format!("installed  {shown}"),
            Action::Updated => format!("updated    {shown}"),
            Action::Unchanged => format!("unchanged  {shown}"),
            Action::Chained => format!(
                "installed  {shown} (your hook is kept as {}{} and runs first)",
                r.hook,
                hooks::CHAINED
            ),
            Action::Refused(why) => {
                refused = true;
                format!("refused    {shown}: {why}")
            }
            Action::Removed => format!("removed    {shown}"),
            Action::Restored => format!("restored   {shown} (the hook sota had chained)"),
            Action::Foreign => format!("kept       {shown} (not written by sota)"),
            Action::Absent => format!("absent     {shown}"),
        };
        text.push_str(&line);
        text.push('\n');
    }
    out(&text)?;
    Ok(if refused {
        Outcome::Refused
    } else {
        Outcome::Done
    })
}
