//! Reading the process state — working directory, environment, clock,
//! terminal — into [`Inputs`], once; and the audit's progress bar on stderr.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use sota::context::{Format, Inputs};
use sota::matrix::Date;
use sota::repo::index_file::GIT_ENV_OVERRIDES;
use sota::Failure;

use super::args::{Cli, Command, OutputFormat};

/// Everything the library needs from the process.
pub fn inputs(cli: &Cli) -> Result<Inputs, Failure> {
    let cwd = std::env::current_dir()?;
    let today = match &cli.command {
        Some(Command::Coverage { today: Some(d), .. }) => *d,
        Some(Command::Init(super::args::InitArgs { today: Some(d), .. })) => *d,
        Some(Command::Report { today: Some(d), .. }) => *d,
        _ => clock_today(),
    };
    let format = format(cli)?;
    let stdout = std::io::stdout();
    let width = if stdout.is_terminal() {
        terminal_size::terminal_size_of(&stdout).map(|(w, _)| w.0 as usize)
    } else {
        None
    };
    Ok(Inputs {
        cwd,
        matrix_flag: cli.matrix.clone(),
        matrix_env: std::env::var_os("SOTA_MATRIX")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        catalog: cli.catalog,
        team_catalog_flag: cli.team_catalog.clone(),
        team_catalog_env: std::env::var_os("SOTA_CATALOG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        today,
        format,
        color: anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never,
        width,
        ci: is_ci(),
        git_env_overrides: GIT_ENV_OVERRIDES
            .iter()
            .any(|v| std::env::var_os(v).is_some()),
        allow_outside_repo: cli.allow_outside_repo,
        step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    })
}

/// The output format: `--json` or `--format`, checked against what the
/// command can print.
fn format(cli: &Cli) -> Result<Format, Failure> {
    let format = match (cli.json, cli.format) {
        (true, Some(f)) if f != OutputFormat::Json => {
            return Err(Failure::Usage(format!(
                "--json and --format {} ask for two formats: keep one",
                <&str>::from(f.format())
            )))
        }
        (true, _) => Format::Json,
        (false, Some(f)) => f.format(),
        (false, None) => Format::Human,
    };
    let (name, allowed): (&str, &[Format]) = match &cli.command {
        Some(Command::Gate(_)) => (
            "gate",
            &[
                Format::Human,
                Format::Short,
                Format::Json,
                Format::Github,
                Format::Sarif,
            ],
        ),
        Some(Command::Coverage { .. }) => (
            "coverage",
            &[Format::Human, Format::Json, Format::Github, Format::Sarif],
        ),
        Some(Command::Report { .. }) => ("report", &[Format::Human]),
        _ => ("this command", &[Format::Human, Format::Json]),
    };
    if allowed.contains(&format) {
        return Ok(format);
    }
    let names: Vec<&str> = allowed.iter().map(|f| <&str>::from(*f)).collect();
    let who = match name {
        "this command" => name.to_owned(),
        _ => format!("sota {name}"),
    };
    Err(Failure::Usage(format!(
        "{who} has no --format {}: use one of {}",
        <&str>::from(format),
        names.join(", ")
    )))
}

/// `$CI` (set by GitHub Actions, GitLab, CircleCI, Buildkite, …) or
/// `$GITHUB_ACTIONS`, unless set to `false` or `0`.
fn is_ci() -> bool {
    ["CI", "GITHUB_ACTIONS"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "false" && v != "0"))
}

/// Today's date (UTC) from the system clock.
pub fn clock_today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Date::from_days_since_epoch((secs / 86_400) as i64)
}

/// The audit's one-line progress bar, drawn only on a terminal.
pub struct ProgressBar {
    on: bool,
    total: usize,
}

impl ProgressBar {
    /// A bar that draws when `human` output goes to a terminal stderr.
    pub fn new(human: bool) -> Self {
        ProgressBar {
            on: human && std::io::stderr().is_terminal(),
            total: 0,
        }
    }
}

impl sota::command::audit::Progress for ProgressBar {
    fn wanted(&self) -> bool {
        self.on
    }

    fn total(&mut self, total: usize) {
        self.total = total;
    }

    fn seen(&mut self, seen: usize) {
        if !self.on {
            return;
        }
        const WIDTH: usize = 30;
        let mut e = std::io::stderr().lock();
        if self.total == 0 {
            let _ = write!(e, "\rscanning history… {seen} commits");
        } else {
            let done = (seen * WIDTH / self.total.max(1)).min(WIDTH);
            let _ = write!(
                e,
                "\rscanning history [{}{}] {seen}/{}",
                "#".repeat(done),
                ".".repeat(WIDTH - done),
                self.total
            );
        }
        let _ = e.flush();
    }

    fn done(&mut self) {
        if self.on {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
