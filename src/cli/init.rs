//! `sota init` and `sota suggest` on the command line: the printing of
//! their reports (their clap arguments are in `args.rs`).

use sota::command::init::{InitReport, SuggestReport};
use sota::outcome::Failure;
use sota::output::init as render;
use sota::Context;

use super::print;

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
        let n = report.report.edits.len() + report.report.ladders.len();
        print::out(&format!(
            "wrote {n} edit{} to {}\n",
            if n == 1 { "" } else { "s" },
            report.matrix
        ))?;
    }
    Ok(())
}
