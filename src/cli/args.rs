//! The clap types: every flag and subcommand of `sota`, and turning the
//! gate's flags into one [`GateMode`].

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use sota::command::gate::GateMode;
use sota::Failure;

const EXAMPLES: &str = "\
Examples:
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
  sota init                         draft sota.toml from the tracked kernel files and the catalog
  sota suggest --uncovered          an op and glob edit for each uncovered file the evidence places
  sota prove OP -r ref.npy -c out.npy   run the op's oracle checks on two tensors
  sota coverage --format sarif      findings for GitHub code scanning (also: github)
  sota report --html sota.html      one self-contained page: matrix, ladders, scorecard
  sota mcp                          the read-only surfaces as an MCP server for coding agents

The matrix is --matrix PATH, else $SOTA_MATRIX, else the nearest sota.toml at or
above the current directory; without one, answers come from the built-in catalog.
A team catalog (--team-catalog PATH, else $SOTA_CATALOG, else `[project] catalog`
in sota.toml) is read beside the built-in one; its rows win on the same slug.";

#[derive(Parser, Debug)]
#[command(
    name = "sota",
    version,
    about = "Check known art before you write a kernel: the prior-art matrix as a tool.",
    subcommand_precedence_over_arg = true,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Read this matrix file instead of discovering sota.toml
    #[arg(long, global = true, value_name = "PATH")]
    pub matrix: Option<PathBuf>,

    /// Answer from the built-in catalog, ignoring any sota.toml (lookups and milestones)
    #[arg(long, global = true, conflicts_with = "matrix")]
    pub catalog: bool,

    /// A team's own catalog (same format as the built-in one), read beside it by
    /// lookups from the catalog, init, suggest and mcp; its rows win over built-in
    /// ones with the same slug. Else $SOTA_CATALOG, else `[project] catalog`
    #[arg(long, global = true, value_name = "PATH")]
    pub team_catalog: Option<PathBuf>,

    /// Print JSON for machines (every payload has a `schema` field); the same as --format json
    #[arg(long, global = true)]
    pub json: bool,

    /// Output format: human (default), json; short for the gate; github
    /// (workflow annotations) and sarif (SARIF 2.1.0) for the gate and coverage
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,

    /// Read a matrix (or a `[project] root`) that resolves outside the repository
    #[arg(long, global = true)]
    pub allow_outside_repo: bool,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// An op slug, a file (path[:LINE[:COL]]; relative, absolute, `\` or `/`), or search words
    #[arg(value_name = "SLUG|FILE|QUERY")]
    pub query: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
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
    /// Advisory: exits 0 whatever it finds, and when it cannot check (a
    /// broken matrix, no git, a bad range), unless --strict: then an
    /// advisory exits 1 and a gate that could not check exits 2 (as it does
    /// in CI, where $CI is set). Silent when the repository has no
    /// sota.toml, when an added staged line mentions `Prior-art:`, or when
    /// the commit message carries a `Prior-art:` trailer that is not a
    /// placeholder (a value must name something read: `yes`, `ok`, `done`,
    /// `see above`, `n/a` name nothing). Under --strict every op the commit
    /// touches must be named by some trailer (its slug, its reference or
    /// its link); the block names the ops that lack one.
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
    ///
    /// By default the history starts at adoption: `[project] adopted` in
    /// sota.toml, else the first commit that added sota.toml (renames
    /// followed), so commits from before the team used sota do not count
    /// as unstamped. The header says where it starts; --all reads
    /// everything, --since DATE or a range reads exactly what they name.
    Audit {
        /// Revision range (default: HEAD, from adoption on)
        range: Option<String>,
        /// Only commits more recent than this date (as git log --since), instead of adoption
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// Read all history, including commits from before adoption
        #[arg(long, conflicts_with = "since")]
        all: bool,
        /// At most this many commits
        #[arg(long, value_name = "N")]
        max_count: Option<usize>,
        /// Follow only the first parent of merges
        #[arg(long)]
        first_parent: bool,
    },
    /// Rewrite the sota:matrix, sota:milestones, sota:counts and sota:mcp-tools regions of a Markdown file from the matrix
    Render {
        /// The Markdown file with `<!-- sota:matrix -->` … `<!-- /sota:matrix -->` and/or `<!-- sota:milestones -->` … `<!-- /sota:milestones -->`
        file: PathBuf,
        /// Change nothing; exit 1 and print the difference when the file is stale (for CI)
        #[arg(long)]
        check: bool,
    },
    /// Draft a sota.toml from the tracked kernel files and the built-in catalog
    ///
    /// The draft holds the kernel population as [kernels] globs, one op per catalog
    /// op that has files (with the catalog's `check` list, so `sota prove OP` runs on
    /// the draft) and the catalog ladders that rank those ops, no rung claimed. Each
    /// op's `route` and `oracle` are left for the team: debt in `sota coverage`.
    Init(InitArgs),
    /// Propose an op and the glob edit for kernel files no op covers
    Suggest(SuggestArgs),
    /// Write a self-contained HTML page: the matrix, the ladders drawn, the scorecard, compliance over time
    Report {
        /// The page to write (no scripts, fonts or network: open it anywhere)
        #[arg(long, value_name = "FILE")]
        html: PathBuf,
        /// Report as of this date (YYYY-MM-DD) instead of today: freshness judged on it, commits after it left out
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        today: Option<sota::matrix::Date>,
    },
    /// Install or remove the git hooks that run the gate
    Hook {
        #[command(subcommand)]
        action: HookAction,
    },
    /// Serve the read-only surfaces to coding agents over the Model Context
    /// Protocol on stdio (`claude mcp add sota -- sota mcp`)
    Mcp {
        /// Log each request and its timing to stderr
        #[arg(long)]
        verbose: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `sota man > /usr/local/share/man/man1/sota.1`
    Man,
    /// Oracle check: compare a candidate tensor with a reference (.npy, .safetensors, raw) and judge an op's `check` list
    #[command(after_help = super::prove::AFTER_HELP)]
    Prove(super::prove::ProveArgs),
}

#[derive(clap::Args, Debug)]
pub struct GateArgs {
    /// Check the staged change (the default)
    #[arg(long, conflicts_with_all = ["commit_msg", "paths", "range", "prepare_msg"])]
    pub staged: bool,
    /// Check the staged change and this commit message (the commit-msg hook); the file may also come last, after other flags
    #[arg(long, value_name = "FILE", num_args = 0..=1, conflicts_with_all = ["paths", "range", "prepare_msg"])]
    pub commit_msg: Option<Option<PathBuf>>,
    /// Check these paths instead of asking git (more may come last, after other flags)
    #[arg(long, value_name = "PATH", num_args = 0.., conflicts_with_all = ["range", "prepare_msg"])]
    pub paths: Option<Vec<String>>,
    /// Check every commit in a range (CI): those touching matched files without a valid trailer
    #[arg(long, value_name = "A..B", conflicts_with = "prepare_msg")]
    pub range: Option<String>,
    /// Add the suggested trailers as comments to a commit message template (prepare-commit-msg hook)
    #[arg(long, value_name = "FILE", hide = true)]
    pub prepare_msg: Option<PathBuf>,
    /// Block instead of advise: exit 1 on an advisory (or a touched op no trailer names by slug, reference or link), 2 when the gate could not check
    #[arg(long)]
    pub strict: bool,
    /// Files to check (as --paths), or with --commit-msg the message file;
    /// so `sota gate --paths --strict a.cu b.cu` works as the pre-commit
    /// framework writes it
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
}

impl GateArgs {
    /// The one mode these flags ask for.
    pub fn mode(&self) -> Result<GateMode, Failure> {
        if let Some(range) = &self.range {
            if !self.files.is_empty() {
                return Err(Failure::Usage(format!(
                    "sota gate --range checks commits, not files: drop `{}`",
                    self.files.join(" ")
                )));
            }
            return Ok(GateMode::Range(range.clone()));
        }
        if let Some(file) = &self.prepare_msg {
            return Ok(GateMode::PrepareMsg(file.clone()));
        }
        if let Some(given) = &self.commit_msg {
            let mut files = self.files.iter();
            let file = match given {
                Some(f) => f.clone(),
                None => files.next().map(PathBuf::from).ok_or_else(|| {
                    Failure::Usage(
                        "sota gate --commit-msg needs the message file (git passes it to the commit-msg hook as $1)".into(),
                    )
                })?,
            };
            if let Some(extra) = files.next() {
                return Err(Failure::Usage(format!(
                    "sota gate --commit-msg takes one message file; `{extra}` is one too many"
                )));
            }
            return Ok(GateMode::CommitMsg(file));
        }
        if self.paths.is_some() || !self.files.is_empty() {
            let mut paths = self.paths.clone().unwrap_or_default();
            paths.extend(self.files.iter().cloned());
            return Ok(GateMode::Paths(paths));
        }
        Ok(GateMode::Staged)
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Text for people
    Human,
    /// One line per op, at most 240 characters (gate)
    Short,
    /// Machine-readable; every payload has a `schema` field
    Json,
    /// GitHub Actions workflow annotations (gate, coverage)
    Github,
    /// SARIF 2.1.0 for code scanning (gate, coverage)
    Sarif,
}

impl OutputFormat {
    pub fn format(self) -> sota::context::Format {
        use sota::context::Format;
        match self {
            OutputFormat::Human => Format::Human,
            OutputFormat::Short => Format::Short,
            OutputFormat::Json => Format::Json,
            OutputFormat::Github => Format::Github,
            OutputFormat::Sarif => Format::Sarif,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum HookAction {
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

pub(crate) fn parse_date(s: &str) -> Result<sota::matrix::Date, String> {
    sota::matrix::Date::parse(s)
        .ok_or_else(|| format!("`{s}` is not a date: write YYYY-MM-DD, e.g. 2026-06-26"))
}

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// Print the drafted sota.toml instead of writing it (its comments name the files
    /// left out and why, weak evidence, and an op whose reference is this repository)
    #[arg(long)]
    pub dry_run: bool,
    /// Replace an existing matrix
    #[arg(long)]
    pub force: bool,
    /// The project name (default: the directory's name)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The `reviewed` date to write (YYYY-MM-DD) instead of today
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub today: Option<sota::matrix::Date>,
}

#[derive(clap::Args, Debug)]
pub struct SuggestArgs {
    /// Kernel files to place (relative to the current directory, or absolute)
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Every kernel file no op covers (the default without FILEs)
    #[arg(long, conflicts_with = "files")]
    pub uncovered: bool,
    /// Apply the edits to sota.toml (comments and layout are kept)
    #[arg(long)]
    pub write: bool,
    /// Place the FILEs in this op instead of the one the signals choose: a
    /// row of the matrix, an op of the catalog (brought in as a new row), or
    /// a custom op (with --title and --sota). A file another row covers
    /// moves: each glob that matched it is replaced by the tightest globs
    /// for the rest of what it matched
    #[arg(long, value_name = "SLUG", requires = "files")]
    pub op: Option<String>,
    /// A custom op's title (with --op)
    #[arg(long, value_name = "TEXT", requires = "op")]
    pub title: Option<String>,
    /// A custom op's reference to read first (with --op)
    #[arg(long, value_name = "TEXT", requires = "op")]
    pub sota: Option<String>,
    /// A custom op's link (with --op)
    #[arg(long, value_name = "URL", requires = "op")]
    pub link: Option<String>,
    /// Bring in the catalog's ladder on AXIS (`sota milestones --catalog`
    /// lists them); no rung is claimed
    #[arg(long, value_name = "AXIS")]
    pub ladder: Option<String>,
}
