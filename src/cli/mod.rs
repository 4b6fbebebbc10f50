//! The command line: clap types, reading the process state into
//! [`sota::Inputs`] once, calling the library's commands, printing their
//! reports, and exiting with the code [`sota::outcome::exit_code`] decides.
//! Only this module knows clap, stdout/stderr, the environment and the
//! clock.

mod args;
mod init;
mod mcp;
mod print;
mod process;
mod prove;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use sota::command::{self, audit::AuditArgs, gate::GateArgs, hook::HookCommand};
use sota::context::Format;
use sota::outcome::{self, Failure, Outcome};
use sota::repo::git::LogLimits;
use sota::repo::hooks::InstallOptions;
use sota::Context;

use args::{Cli, Command, HookAction};

/// Run the command line; the process's exit code.
pub fn main() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match process::inputs(&cli) {
        Ok(inputs) => {
            let ctx = Context::resolve(inputs);
            let result = run(&ctx, cli);
            if let Err(failure) = &result {
                print::failure(&ctx, failure);
            }
            result
        }
        Err(failure) => {
            print::bare_failure(&failure);
            Err(failure)
        }
    };
    outcome::exit_code(&result)
}

/// The process's exit code, once everything printed is flushed.
pub fn exit(code: u8) -> ExitCode {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    ExitCode::from(code)
}

/// Dispatch one parsed command line.
fn run(ctx: &Context, cli: Cli) -> Result<Outcome, Failure> {
    match cli.command {
        None if cli.query.is_empty() => list(ctx),
        Some(Command::List) => list(ctx),
        None => {
            let commands = subcommand_names();
            let names: Vec<&str> = commands.iter().map(String::as_str).collect();
            let report = command::lookup::lookup(ctx, &cli.query.join(" "), &names)?;
            print::lookup(ctx, &report)?;
            Ok(report.outcome())
        }
        Some(Command::Milestones { axis }) => {
            let report = command::lookup::milestones(ctx, axis.as_deref())?;
            print::milestones(ctx, &report)?;
            Ok(report.outcome())
        }
        Some(Command::Schema) => {
            print::out(sota::matrix::schema::JSON)?;
            Ok(Outcome::Done)
        }
        Some(Command::Gate(args)) => gate(ctx, &args),
        Some(Command::Coverage { check, .. }) => {
            let report = command::coverage::run(ctx, check)?;
            print::coverage(ctx, &report)?;
            Ok(report.outcome())
        }
        Some(Command::Audit {
            range,
            since,
            all,
            max_count,
            first_parent,
        }) => {
            let args = AuditArgs {
                range,
                all,
                until: None,
                limits: LogLimits {
                    since,
                    max_count,
                    first_parent,
                },
            };
            audit(ctx, &args)
        }
        Some(Command::Render { file, check }) => render(ctx, &file, check),
        Some(Command::Init(args)) => draft(ctx, args),
        Some(Command::Suggest(args)) => suggest(ctx, args),
        Some(Command::Report { html, .. }) => {
            let page = command::report::write(ctx, &html)?;
            print::report(&page)?;
            Ok(page.outcome())
        }
        Some(Command::Hook { action }) => hook(ctx, action),
        Some(Command::Mcp { verbose }) => mcp::run(ctx.inputs.clone(), verbose),
        Some(Command::Completions { shell }) => completions(shell),
        Some(Command::Prove(args)) => {
            let report = command::prove::run(ctx, &args.to_command())?;
            print::prove(ctx, &report)?;
            Ok(report.outcome())
        }
        Some(Command::Man) => man(),
    }
}

/// `sota gate`: an advisory gate exits 0 always (SPEC 4), even when its
/// advice cannot be written (a full disk, a closed pipe): it says so on
/// stderr, as far as it can, and lets the commit through. Only `--strict`
/// fails for it.
fn gate(ctx: &Context, args: &args::GateArgs) -> Result<Outcome, Failure> {
    let gate_args = GateArgs {
        mode: args.mode()?,
        strict: args.strict,
    };
    let run = command::gate::run(ctx, &gate_args)?;
    if let Err(e) = print::gate(ctx, &run) {
        if gate_args.strict {
            return Err(e.into());
        }
        print::bare_failure(&Failure::Io(e));
    }
    Ok(run.outcome())
}

/// `sota audit`, with a progress bar on a terminal.
fn audit(ctx: &Context, args: &AuditArgs) -> Result<Outcome, Failure> {
    let mut bar = process::ProgressBar::new(ctx.format() == Format::Human);
    let report = command::audit::run(ctx, args, &mut bar)?;
    print::audit(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota render`. The MCP server's tools live in the binary: a README
/// region lists them from the server's own list, never from memory.
fn render(ctx: &Context, file: &std::path::Path, check: bool) -> Result<Outcome, Failure> {
    let facts = sota::surface::render::Facts {
        mcp_tools: crate::mcp::tools::list()
            .iter()
            .map(|t| t.name.to_string())
            .collect(),
    };
    let report = command::render::run(ctx, file, check, &facts)?;
    print::render(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota hook install|uninstall`.
fn hook(ctx: &Context, action: HookAction) -> Result<Outcome, Failure> {
    let command = match action {
        HookAction::Install { strict, no_chain } => {
            HookCommand::Install(InstallOptions { strict, no_chain })
        }
        HookAction::Uninstall => HookCommand::Uninstall,
    };
    let report = command::hook::run(ctx, command)?;
    print::hooks(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota init`: draft the matrix.
fn draft(ctx: &Context, args: init::InitArgs) -> Result<Outcome, Failure> {
    let report = command::init::init(
        ctx,
        &command::init::InitArgs {
            dry_run: args.dry_run,
            force: args.force,
            name: args.name,
        },
    )?;
    init::init(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota suggest`: place uncovered files.
fn suggest(ctx: &Context, args: init::SuggestArgs) -> Result<Outcome, Failure> {
    let report = command::init::suggest(
        ctx,
        &command::init::SuggestArgs {
            files: args.files,
            write: args.write,
        },
    )?;
    init::suggest(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota man`.
fn man() -> Result<Outcome, Failure> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut buf)?;
    print::out(&String::from_utf8_lossy(&buf))?;
    Ok(Outcome::Done)
}

/// `sota completions SHELL`.
fn completions(shell: clap_complete::Shell) -> Result<Outcome, Failure> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "sota", &mut buf);
    print::out(&String::from_utf8_lossy(&buf))?;
    Ok(Outcome::Done)
}

fn list(ctx: &Context) -> Result<Outcome, Failure> {
    let matrix = ctx.matrix()?;
    print::list(ctx, matrix)?;
    Ok(Outcome::Done)
}

/// The names of the visible subcommands, for "did you mean".
fn subcommand_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_owned())
        .collect()
}
