//! `sota init` and `sota suggest` on the command line: the printing of
//! their reports (their clap arguments are in `args.rs`).

use sota::command::init::{InitReport, SuggestReport};
use sota::outcome::Failure;
use sota::output::init as render;
use sota::Context;

use super::args::{InitArgs, SuggestArgs};
use super::print;

/// `sota init`: draft the matrix, print what was drafted.
pub fn run_init(ctx: &Context, args: InitArgs) -> Result<sota::Outcome, Failure> {
    let report = sota::command::init::init(
        ctx,
        &sota::command::init::InitArgs {
            dry_run: args.dry_run,
            force: args.force,
            name: args.name,
        },
    )?;
    init(ctx, &report)?;
    Ok(report.outcome())
}

/// `sota suggest`: propose (and write) the edits, print them.
pub fn run_suggest(ctx: &Context, args: SuggestArgs) -> Result<sota::Outcome, Failure> {
    let report = sota::command::init::suggest(
        ctx,
        &sota::command::init::SuggestArgs {
            files: args.files,
            write: args.write,
            op: args.op,
            title: args.title,
            sota: args.sota,
            link: args.link,
            ladder: args.ladder,
        },
    )?;
    suggest(ctx, &report)?;
    Ok(report.outcome())
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
    print::out(&render::suggest_human(
        &report.report,
        &report.matrix,
        "apply with --write",
    ))?;
    if report.written {
        let n = report.report.edits.len() + report.report.ladders.len();
        print::out(&format!(
            "wrote {n} edit{} to {}\n",
            if n == 1 { "" } else { "s" },
            report.matrix
        ))?;
    }
    Ok(())
}
