//! The command line: clap types, the resolved context, dispatch, and the one
//! place exit codes are decided (SPEC 4: 0 success, 1 nothing found or a
//! check failed, 2 usage or configuration error). Only this module knows
//! clap, stdout/stderr and exit codes.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use sota::matrix::{self, Found, LoadError, Matrix};
use sota::output::{json, text};
use sota::surface::lookup::{self, Lookup};
use sota::surface::milestones;

const EXAMPLES: &str = "\
Examples:
  sota init                         draft sota.toml from the tracked kernel files and the catalog
  sota                              every op in the matrix
  sota fused-attention              one op in full: reference, route, oracle
  sota src/kernels/attn.cu:120      the op(s) covering the file you are about to edit
  sota marlin int4                  ranked search over slugs, titles, SOTA, papers, notes
  sota milestones attention         the ladder, => reached, -> next
  sota --catalog milestones         the built-in catalog, whatever the repository has
  sota hook install                 the PRIOR_ART advisory on every commit (sota gate)
  sota coverage --check             CI: fail on hard debt in the scorecard
  sota audit --since 2026-01-01     which kernel commits recorded their prior art
  sota render docs/kernels.md       Markdown tables from the matrix, between markers

The matrix is --matrix PATH, else $SOTA_MATRIX, else the nearest sota.toml at or
above the current directory; without one, answers come from the built-in catalog.";

#[derive(Parser, Debug)]
#[command(
    name = "sota",
    version,
    about = "Check known art before you write a kernel: the prior-art matrix as a tool.",
    subcommand_precedence_over_arg = true,
    after_help = EXAMPLES
)]
struct Cli {
    /// Read this matrix file instead of discovering sota.toml
    #[arg(long, global = true, value_name = "PATH")]
    matrix: Option<PathBuf>,

    /// Answer from the built-in catalog, ignoring any sota.toml
    #[arg(long, global = true, conflicts_with = "matrix")]
    catalog: bool,

    /// Print JSON for machines (every payload has a `schema` field)
    #[arg(long, global = true)]
    json: bool,

    #[command(subcommand)]
    command: Option<Command>,

    /// An op slug, a file (path[:LINE[:COL]]; relative, absolute, `\` or `/`), or search words
    #[arg(value_name = "SLUG|FILE|QUERY")]
    query: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The table of every op: slug, title, route, SOTA (the default)
    List,
    /// Milestone ladders: the rung reached on each capability and the next one
    Milestones {
        /// One ladder, rung by rung (=> reached, -> next)
        axis: Option<String>,
    },
    /// Print the JSON Schema of sota.toml, for editor completion
    Schema,
    /// The PRIOR_ART gate: name the reference when a change touches a kernel file
    ///
    /// Advisory: exits 0 whatever it finds, and on its own errors (a broken
    /// matrix, no git), unless --strict. Silent when the repository has no
    /// sota.toml, when an added staged line mentions `Prior-art:`, or when the
    /// commit message carries a `Prior-art:` trailer that is not a placeholder.
    Gate(GateArgs),
    /// The coverage scorecard: every kernel file covered, every row backed by the tree, one debt number
    Coverage {
        /// Exit 1 when there is hard debt (for CI)
        #[arg(long)]
        check: bool,
        /// Judge freshness against this date (YYYY-MM-DD) instead of today
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        today: Option<sota::matrix::Date>,
    },
    /// Trailer audit over history: which kernel commits carried a valid Prior-art trailer
    Audit {
        /// Revision range (default: everything reachable from HEAD)
        range: Option<String>,
        /// Only commits more recent than this date (as git log --since)
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// At most this many commits
        #[arg(long, value_name = "N")]
        max_count: Option<usize>,
        /// Follow only the first parent of merges
        #[arg(long)]
        first_parent: bool,
    },
    /// Rewrite the sota:matrix and sota:milestones regions of a Markdown file from the matrix
    Render {
        /// The Markdown file with `<!-- sota:matrix -->` … `<!-- /sota:matrix -->` and/or `<!-- sota:milestones -->` … `<!-- /sota:milestones -->`
        file: PathBuf,
        /// Change nothing; exit 1 and print the difference when the file is stale (for CI)
        #[arg(long)]
        check: bool,
    },
    /// Draft a sota.toml from the tracked kernel files and the built-in catalog
    Init(init::InitArgs),
    /// Propose an op and the glob edit for kernel files no op covers
    Suggest(init::SuggestArgs),
    /// Install or remove the git hooks that run the gate
    Hook {
        #[command(subcommand)]
        action: HookAction,
    },
}

#[derive(clap::Args, Debug)]
pub(crate) struct GateArgs {
    /// Check the staged change (the default)
    #[arg(long, conflicts_with_all = ["commit_msg", "paths", "range", "prepare_msg"])]
    staged: bool,
    /// Check the staged change and this commit message (the commit-msg hook)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "range", "prepare_msg"])]
    commit_msg: Option<PathBuf>,
    /// Check these paths instead of asking git
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with_all = ["range", "prepare_msg"])]
    paths: Option<Vec<String>>,
    /// Check every commit in a range (CI): those touching matched files without a valid trailer
    #[arg(long, value_name = "A..B", conflicts_with = "prepare_msg")]
    range: Option<String>,
    /// Add the suggested trailers as comments to a commit message template (prepare-commit-msg hook)
    #[arg(long, value_name = "FILE", hide = true)]
    prepare_msg: Option<PathBuf>,
    /// Exit 1 when there is an advisory, to block instead of advise
    #[arg(long)]
    strict: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = GateFormat::Human)]
    format: GateFormat,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GateFormat {
    /// Full advisories for people
    Human,
    /// One line per op, at most 240 characters
    Short,
    /// Machine-readable (schema sota.gate/v1, sota.gate-range/v1)
    Json,
    /// GitHub Actions workflow annotations
    Github,
}

#[derive(Subcommand, Debug)]
pub(crate) enum HookAction {
    /// Write pre-commit, prepare-commit-msg and commit-msg hooks (idempotent; existing hooks are kept and chained)
    Install {
        /// Make the installed gate block commits that lack a valid trailer
        #[arg(long)]
        strict: bool,
        /// Refuse instead of chaining when a hook sota did not write exists
        #[arg(long)]
        no_chain: bool,
    },
    /// Remove sota's hooks and restore any hook they chained, byte for byte
    Uninstall,
}
mod audit;
mod coverage;
mod gate;
mod init;

/// `path` made absolute against `cwd`.
fn absolute(path: &std::path::Path, cwd: &std::path::Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// Whether two paths name the same directory.
fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}

/// The error for a command that needs a project matrix and found none.
pub(crate) fn no_matrix_message(command: &str, cwd: &std::path::Path) -> String {
    format!(
        "{command}: no sota.toml at or above {}\n  hint: run `sota init` to draft one from the tracked kernel files (or pass --matrix PATH)",
        cwd.display()
    )
}

fn parse_date(s: &str) -> Result<sota::matrix::Date, String> {
    sota::matrix::Date::parse(s)
        .ok_or_else(|| format!("`{s}` is not a date: write YYYY-MM-DD, e.g. 2026-06-26"))
}

/// Why a run could not do its job (exit 2).
pub(crate) enum Failure {
    Matrix(LoadError),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// The run's answer: found something, or looked and found nothing (or a
/// check failed).
pub(crate) enum Outcome {
    Done,
    NothingFound,
    /// Exit 2 after the command already said why.
    Refused,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::NothingFound) => ExitCode::from(1),
        Ok(Outcome::Refused) => ExitCode::from(2),
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            eprintln!("sota: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Matrix(e)) => {
            report_load_error(&e);
            ExitCode::from(2)
        }
    }
}

/// What every command receives: the working directory and the matrix.
struct Context {
    cwd: PathBuf,
    json: bool,
    matrix: Matrix,
}

fn run(cli: Cli) -> Result<Outcome, Failure> {
    match &cli.command {
        Some(Command::Schema) => {
            out(matrix::schema::JSON)?;
            return Ok(Outcome::Done);
        }
        Some(Command::Gate(args)) => return gate::run(cli.matrix.as_deref(), cli.json, args),
        Some(Command::Hook { action }) => return gate::hook(action),
        Some(Command::Init(args)) => return init::init(cli.matrix.as_deref(), cli.json, args),
        Some(Command::Suggest(args)) => {
            return init::suggest(cli.matrix.as_deref(), cli.json, args)
        }
        Some(Command::Audit {
            range,
            since,
            max_count,
            first_parent,
        }) => {
            return audit::run(
                cli.matrix.as_deref(),
                cli.json,
                audit::AuditArgs {
                    range: range.as_deref(),
                    since: since.as_deref(),
                    max_count: *max_count,
                    first_parent: *first_parent,
                },
            )
        }
        Some(Command::Coverage { check, today }) => {
            return coverage::run(cli.matrix.as_deref(), cli.json, *check, *today)
        }
        _ => {}
    }
    let cwd = std::env::current_dir()?;
    let matrix = if cli.catalog {
        Matrix::catalog()
    } else {
        let env = std::env::var_os("SOTA_MATRIX").map(PathBuf::from);
        match matrix::discover(&cwd, cli.matrix.as_deref(), env.as_deref()) {
            Found::None => {
                err(&text::catalog_notice(&cwd));
                Matrix::catalog()
            }
            found => Matrix::load(found.path().expect("found a path")).map_err(Failure::Matrix)?,
        }
    };
    let ctx = Context {
        cwd,
        json: cli.json,
        matrix,
    };
    match cli.command {
        Some(
            Command::Schema
            | Command::Gate(_)
            | Command::Hook { .. }
            | Command::Coverage { .. }
            | Command::Init(_)
            | Command::Suggest(_)
            | Command::Audit { .. },
        ) => {
            unreachable!("handled above")
        }
        Some(Command::List) => list(&ctx),
        Some(Command::Milestones { axis }) => milestones(&ctx, axis.as_deref()),
        Some(Command::Render { file, check }) => render(&ctx, &file, check),
        None if cli.query.is_empty() => list(&ctx),
        None => lookup(&ctx, &cli.query.join(" ")),
    }
}

fn list(ctx: &Context) -> Result<Outcome, Failure> {
    if ctx.json {
        out(&json::to_string(&json::list(&ctx.matrix)))?;
    } else {
        out(&text::list(&ctx.matrix))?;
    }
    Ok(Outcome::Done)
}

fn lookup(ctx: &Context, query: &str) -> Result<Outcome, Failure> {
    let m = &ctx.matrix;
    match lookup::lookup(m, query, &ctx.cwd) {
        Lookup::Op(op) if ctx.json => out(&json::to_string(&json::op(m, op)))?,
        Lookup::Op(op) => out(&text::op(m, op))?,
        Lookup::File { path, hits } if ctx.json => {
            out(&json::to_string(&json::file(m, &path, &hits)))?
        }
        Lookup::File { path, hits } => out(&text::file_hits(m, &path, &hits))?,
        Lookup::Search { query, hits } if ctx.json => {
            out(&json::to_string(&json::search(m, &query, &hits)))?
        }
        Lookup::Search { query, hits } => out(&text::search(m, &query, &hits))?,
        Lookup::NotFound(nf) => {
            if ctx.json {
                out(&json::to_string(&json::not_found(m, &nf)))?;
            } else {
                err(text::not_found(&nf).trim_end());
            }
            return Ok(Outcome::NothingFound);
        }
    }
    Ok(Outcome::Done)
}

fn milestones(ctx: &Context, axis: Option<&str>) -> Result<Outcome, Failure> {
    let m = &ctx.matrix;
    let Some(axis) = axis else {
        let views = milestones::overview(m);
        if ctx.json {
            out(&json::to_string(&json::milestones(m, &views)))?;
        } else {
            out(&text::milestones_overview(m, &views))?;
        }
        return Ok(Outcome::Done);
    };
    match milestones::ladder(m, axis) {
        Ok(view) if ctx.json => out(&json::to_string(&json::ladder(m, &view)))?,
        Ok(view) => out(&text::ladder(m, &view))?,
        Err(axes) => {
            let dym = sota_suggest(axis, &axes);
            if ctx.json {
                out(&json::to_string(&json::unknown_axis(m, axis, &dym, &axes)))?;
            } else {
                let mut msg = format!("no ladder on axis `{axis}`");
                if let Some(first) = dym.first() {
                    msg.push_str(&format!("; did you mean `{first}`?"));
                }
                if axes.is_empty() {
                    msg.push_str("\nthe matrix has no ladders yet");
                } else {
                    msg.push_str(&format!("\naxes: {}", axes.join(", ")));
                }
                err(&msg);
            }
            return Ok(Outcome::NothingFound);
        }
    }
    Ok(Outcome::Done)
}

fn render(ctx: &Context, file: &std::path::Path, check: bool) -> Result<Outcome, Failure> {
    let shown = file.display();
    let text = match std::fs::read(file).map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => {
            err(&format!("sota render: {shown} is not UTF-8 text"));
            return Ok(Outcome::Refused);
        }
        Err(e) => {
            err(&format!("sota render: cannot read {shown}: {e}"));
            return Ok(Outcome::Refused);
        }
    };
    let rendered = match sota::surface::render::render(&text, &ctx.matrix) {
        Ok(r) => r,
        Err(e) => {
            err(&format!("sota render: {shown}:{}: {}", e.line, e.message));
            return Ok(Outcome::Refused);
        }
    };
    if rendered.changes.is_empty() {
        if !check {
            out(&format!("{shown} is up to date\n"))?;
        }
        return Ok(Outcome::Done);
    }
    if check {
        let mut diff = String::new();
        for c in &rendered.changes {
            diff.push_str(&format!(
                "--- {shown} (sota:{} region, line {})\n",
                region_name(c.region),
                c.line
            ));
            for l in c.old.lines() {
                diff.push_str(&format!("-{l}\n"));
            }
            for l in c.new.lines() {
                diff.push_str(&format!("+{l}\n"));
            }
        }
        out(&diff)?;
        err(&format!(
            "sota render: {shown} is stale; run `sota render {shown}`"
        ));
        return Ok(Outcome::NothingFound);
    }
    sota::repo::write::atomic(file, rendered.text.as_bytes(), None)?;
    let regions: Vec<String> = rendered
        .changes
        .iter()
        .map(|c| format!("{} (line {})", region_name(c.region), c.line))
        .collect();
    out(&format!("rendered {shown}: {}\n", regions.join(", ")))?;
    Ok(Outcome::Done)
}

fn region_name(r: sota::surface::render::Region) -> &'static str {
    match r {
        sota::surface::render::Region::Matrix => "matrix",
        sota::surface::render::Region::Milestones => "milestones",
    }
}

fn sota_suggest<'a>(input: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    sota::surface::lookup::did_you_mean(input, candidates.iter().copied())
}

/// Write data to stdout; colour is stripped unless stdout is a terminal
/// that wants it (`NO_COLOR`, `CLICOLOR` honoured).
pub(crate) fn out(s: &str) -> io::Result<()> {
    let mut stdout = anstream::stdout().lock();
    stdout.write_all(s.as_bytes())?;
    stdout.flush()
}

/// Write a message line to stderr.
pub(crate) fn err(s: &str) {
    let mut stderr = anstream::stderr().lock();
    let _ = writeln!(stderr, "{s}");
}

fn report_load_error(e: &LoadError) {
    match e {
        LoadError::Io { path, error } => {
            err(&format!(
                "sota: cannot read the matrix {}: {error}\n  hint: pass an existing file with --matrix, fix $SOTA_MATRIX, or run without them to use the nearest sota.toml",
                path.display()
            ));
        }
        LoadError::Invalid(invalid) => {
            let color = anstream::AutoStream::choice(&io::stderr()) != anstream::ColorChoice::Never;
            let theme = if color {
                miette::GraphicalTheme::unicode()
            } else {
                miette::GraphicalTheme::unicode_nocolor()
            };
            let handler = miette::GraphicalReportHandler::new_themed(theme)
                .with_width(100)
                .with_links(false);
            let mut rendered = String::new();
            for diag in invalid.diagnostics() {
                let _ = handler.render_report(&mut rendered, &diag);
                rendered.push('\n');
            }
            let n = invalid.problems.len();
            rendered.push_str(&format!(
                "sota: {} has {n} problem{}; nothing was read from it",
                invalid.name,
                if n == 1 { "" } else { "s" }
            ));
            let mut stderr = io::stderr().lock();
            let _ = writeln!(stderr, "{rendered}");
        }
    }
}
