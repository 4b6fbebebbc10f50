//! `sota init` and `sota suggest` on the command line: their clap
//! arguments and the printing of their reports.

use sota::command::init::{InitReport, SuggestReport};
use sota::outcome::Failure;
use sota::output::init as render;
use sota::Context;

use super::print;

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
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = super::args::parse_date)]
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
}

pub fn init(ctx: &Context, report: &InitReport) -> Result<(), Failure> {
    if report.refused {
        print::err(&format!(
            "sota init: {} already exists; nothing was changed\n  hint: `sota init --force` replaces it, `sota init --dry-run` prints the draft, `sota suggest --uncovered` adds to it",
            report.shown
        ));
        return Ok(());
    }
    let written = report.written.then_some(report.shown.as_str());
    if ctx.json() {
        print::out(&render::init_json(&report.plan, written))?;
    } else if report.written {
        print::out(&render::init_human(&report.plan, written))?;
    } else {
        print::out(&report.text)?;
        print::err(render::init_human(&report.plan, None).trim_end());
    }
    Ok(())
}

pub fn suggest(ctx: &Context, report: &SuggestReport) -> Result<(), Failure> {
    if ctx.json() {
        print::out(&render::suggest_json(
            &report.report,
            &report.matrix,
            report.written,
        ))?;
        return Ok(());
    }
    print::out(&render::suggest_human(&report.report, &report.matrix))?;
    if report.written {
        let n = report.report.edits.len();
        print::out(&format!(
            "wrote {n} edit{} to {}\n",
            if n == 1 { "" } else { "s" },
            report.matrix
        ))?;
    }
    Ok(())
}
