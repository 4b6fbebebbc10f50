//! Printing reports: each command's report in the context's format, data
//! on stdout, messages on stderr. Colour is decided once, by `anstream`, at
//! the stream; human text is fitted to the terminal width (pipes are never
//! wrapped).

use std::io::{self, Write};

use sota::command::audit::AuditReport;
use sota::command::coverage::CoverageReport;
use sota::command::gate::{GateRun, ModeKind};
use sota::command::hook::{HookCommand, HookReport};
use sota::command::lookup::{LookupReport, Milestones, MilestonesReport};
use sota::command::render::RenderReport;
use sota::context::{CatalogReason, Format, Source};
use sota::matrix::{LoadError, Matrix, MAX_SHOWN_PROBLEMS};
use sota::output::{self, json, text};
use sota::quote::{escape, escape_keeping_lines, quote};
use sota::repo::hooks::Action;
use sota::surface::lookup::Lookup;
use sota::{Context, Failure};

/// Write data to stdout; colour is stripped unless stdout is a terminal
/// that wants it (`NO_COLOR`, `CLICOLOR` honoured).
pub fn out(s: &str) -> io::Result<()> {
    if anstream::AutoStream::choice(&io::stdout()) == anstream::ColorChoice::Never {
        // Stripped first, then written whole: anstream's stripping stream
        // writes each run between control bytes on its own, and stdout is
        // line-buffered, so a 1,000-op `sota list` into a pipe or a file
        // was 1,001 `write` calls.
        let plain = anstream::adapter::strip_str(s).to_string();
        let mut stdout = io::stdout().lock();
        stdout.write_all(plain.as_bytes())?;
        return stdout.flush();
    }
    let mut stdout = anstream::stdout().lock();
    stdout.write_all(s.as_bytes())?;
    stdout.flush()
}

/// Human text, fitted to the terminal.
fn out_fitted(ctx: &Context, s: &str) -> io::Result<()> {
    out(&output::wrap::fit(s, ctx.inputs.width))
}

/// Write a message line to stderr.
pub fn err(s: &str) {
    let mut stderr = anstream::stderr().lock();
    let _ = writeln!(stderr, "{s}");
}

/// A JSON payload on stdout.
fn out_json<T: serde::Serialize>(value: &T) -> io::Result<()> {
    out(&json::to_string(value))
}

/// Say once that the catalog answers because there is no sota.toml.
fn catalog_notice(ctx: &Context) {
    if ctx.source == Source::Catalog(CatalogReason::NoMatrix) {
        let team = ctx
            .catalog()
            .ok()
            .and_then(|c| c.team.as_ref().map(|t| t.name.clone()));
        err(&text::catalog_notice(ctx.cwd(), team.as_deref()));
    }
}

pub fn list(ctx: &Context, matrix: &Matrix) -> io::Result<()> {
    catalog_notice(ctx);
    if ctx.json() {
        out_json(&json::list(matrix))
    } else {
        out(&text::list(matrix, ctx.inputs.width))
    }
}

pub fn lookup(ctx: &Context, report: &LookupReport<'_>) -> io::Result<()> {
    catalog_notice(ctx);
    let m = report.matrix;
    match &report.lookup {
        Lookup::Op(op) if ctx.json() => out_json(&json::op(m, op)),
        Lookup::Op(op) => out_fitted(ctx, &text::op(m, op)),
        Lookup::File { path, hits } if ctx.json() => out_json(&json::file(m, path, hits)),
        Lookup::File { path, hits } => out_fitted(ctx, &text::file_hits(m, path, hits)),
        Lookup::Search { query, hits } if ctx.json() => out_json(&json::search(m, query, hits)),
        Lookup::Search { query, hits } => out_fitted(ctx, &text::search(m, query, hits)),
        Lookup::NotFound(nf) => {
            let hint = report.command_hint.as_deref();
            if ctx.json() {
                out_json(&json::not_found(m, nf, hint))?;
            } else {
                let mut msg = text::not_found(nf).trim_end().to_owned();
                if let Some(cmd) = hint {
                    msg.push_str(&format!("\ndid you mean the command `sota {cmd}`?"));
                }
                err(&msg);
            }
            Ok(())
        }
    }
}

pub fn milestones(ctx: &Context, report: &MilestonesReport<'_>) -> io::Result<()> {
    catalog_notice(ctx);
    let m = report.matrix;
    match &report.milestones {
        Milestones::Overview(views) if ctx.json() => out_json(&json::milestones(m, views)),
        Milestones::Overview(views) => out_fitted(ctx, &text::milestones_overview(m, views)),
        Milestones::Ladder(view) if ctx.json() => out_json(&json::ladder(m, view)),
        Milestones::Ladder(view) => out_fitted(ctx, &text::ladder(m, view)),
        Milestones::UnknownAxis {
            axis,
            did_you_mean,
            axes,
        } => {
            if ctx.json() {
                out_json(&json::unknown_axis(m, axis, did_you_mean, axes))
            } else {
                err(&text::unknown_axis(axis, did_you_mean, axes));
                Ok(())
            }
        }
    }
}

pub fn gate(ctx: &Context, run: &GateRun<'_>) -> io::Result<()> {
    match run {
        GateRun::NoMatrix | GateRun::Prepared { .. } => Ok(()),
        GateRun::Unchecked(u) => gate_unchecked(ctx, u),
        GateRun::Change(c) => gate_change(ctx, c),
        GateRun::Range(r) => gate_range(ctx, r),
    }
}

/// A gate that could not check: said on stderr (and in CI formats).
fn gate_unchecked(ctx: &Context, u: &sota::command::gate::Unchecked) -> io::Result<()> {
    use sota::output::gate as render;
    if ctx.json() {
        out_json(&render::unchecked_json(u))?;
    }
    match ctx.format() {
        Format::Github => out(&render::unchecked_github(u))?,
        Format::Sarif => out_json(&sota::output::sarif::unchecked(u))?,
        _ => {}
    }
    step_summary(ctx, || render::unchecked_summary(u));
    if u.enforced {
        if let Some(e) = &u.load_error {
            load_error(e);
        }
        let mut msg = format!("sota gate: could not check: {}", u.reason);
        if let Some(fix) = &u.fix {
            msg.push_str(&format!("\n  fix: {fix}"));
        }
        msg.push_str(
            "\n  (the gate fails when it cannot check under --strict or in CI; a hook without --strict lets the commit through)",
        );
        err(&msg);
    } else {
        let mut msg = format!("sota gate: {}; PRIOR_ART gate skipped", u.reason);
        if let Some(fix) = &u.fix {
            msg.push_str(&format!(" — {fix}"));
        }
        err(&msg);
    }
    Ok(())
}

/// A judged change, and the block message under --strict.
fn gate_change(ctx: &Context, c: &sota::command::gate::ChangeReport<'_>) -> io::Result<()> {
    use sota::output::gate as render;
    let format = ctx.format();
    if c.report.touched.is_empty() && !matches!(format, Format::Json | Format::Sarif) {
        step_summary(ctx, || render::summary(&c.report));
        return Ok(());
    }
    match format {
        Format::Human => out_fitted(ctx, &render::human(&c.report))?,
        Format::Short => out(&render::short(&c.report))?,
        Format::Json => out_json(&render::json(c.matrix, &c.report, c.mode, c.strict))?,
        Format::Github => out(&render::github(&c.report, &c.repo_prefix, &c.lines))?,
        Format::Sarif => out_json(&sota::output::sarif::gate(
            &c.report,
            &c.repo_prefix,
            &c.lines,
        ))?,
    }
    step_summary(ctx, || render::summary(&c.report));
    let blocked = c.report.advisories().len();
    if c.strict && blocked > 0 {
        let hook = if c.mode == ModeKind::Staged {
            "commit"
        } else {
            "check"
        };
        let why = if c.report.unnamed.is_empty() {
            "without a valid `Prior-art:` trailer".to_owned()
        } else {
            format!(
                "that no `Prior-art:` trailer names ({}; name each op's slug, reference or link)",
                c.report.unnamed.join(", ")
            )
        };
        err(&format!(
            "sota gate --strict: {hook} blocked: {blocked} kernel op{} {why}. Add the suggested trailer to the commit message, or bypass once with `git commit --no-verify`.",
            if blocked == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

/// A judged range, and the block message under --strict.
fn gate_range(ctx: &Context, r: &sota::command::gate::RangeReport<'_>) -> io::Result<()> {
    use sota::output::gate as render;
    match ctx.format() {
        Format::Human => out_fitted(ctx, &render::range_human(&r.range, &r.findings))?,
        Format::Short => out(&render::range_short(&r.findings))?,
        Format::Json => out_json(&render::range_json(
            r.matrix,
            &r.range,
            r.strict,
            &r.findings,
        ))?,
        Format::Github => out(&render::range_github(&r.findings, &r.repo_prefix))?,
        Format::Sarif => out_json(&sota::output::sarif::range(&r.findings, &r.repo_prefix))?,
    }
    step_summary(ctx, || render::range_summary(&r.range, &r.findings));
    if r.strict && !r.findings.is_empty() {
        let n = r.findings.len();
        err(&format!(
            "sota gate --strict: {n} commit{} in {} lack{} a valid `Prior-art:` trailer; amend {} or record the prior art in a follow-up commit",
            if n == 1 { "" } else { "s" },
            r.range,
            if n == 1 { "s" } else { "" },
            if n == 1 { "it" } else { "them" },
        ));
    }
    Ok(())
}

pub fn coverage(ctx: &Context, report: &CoverageReport<'_>) -> io::Result<()> {
    use sota::output::coverage as render;
    match ctx.format() {
        Format::Json => out_json(&render::json(report.matrix, &report.report))?,
        Format::Github => out(&render::github(&report.report, &report.paths))?,
        Format::Sarif => out_json(&sota::output::sarif::coverage(
            &report.report,
            &report.paths,
        ))?,
        Format::Human | Format::Short => {
            out_fitted(ctx, &render::human(report.matrix, &report.report))?
        }
    }
    step_summary(ctx, || render::summary(report.matrix, &report.report));
    Ok(())
}

/// Append a report's Markdown to `$GITHUB_STEP_SUMMARY` when it is set. A
/// summary that cannot be written is said on stderr; the report stands.
fn step_summary(ctx: &Context, markdown: impl FnOnce() -> String) {
    let Some(path) = &ctx.inputs.step_summary else {
        return;
    };
    if let Err(e) = sota::repo::write::append(path, markdown().as_bytes()) {
        err(&format!(
            "sota: cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
            quote(&path.display().to_string())
        ));
    }
}

pub fn audit(ctx: &Context, report: &AuditReport<'_>) -> io::Result<()> {
    use sota::output::audit as render;
    step_summary(ctx, || {
        render::summary(report.matrix, &report.range, report.shallow, &report.report)
    });
    if ctx.json() {
        out_json(&render::json(
            report.matrix,
            &report.range,
            report.shallow,
            &report.report,
        ))
    } else {
        out_fitted(
            ctx,
            &render::human(report.matrix, &report.range, report.shallow, &report.report),
        )
    }
}

pub fn render(ctx: &Context, report: &RenderReport<'_>) -> io::Result<()> {
    catalog_notice(ctx);
    if ctx.json() {
        return out_json(&json::render(report));
    }
    let shown = &report.shown;
    if report.changes.is_empty() {
        if !report.check {
            out(&format!("{shown} is up to date\n"))?;
        }
        return Ok(());
    }
    if report.check {
        let mut diff = String::new();
        for c in &report.changes {
            diff.push_str(&format!(
                "--- {shown} (sota:{} region, line {})\n",
                c.region.name(),
                c.line
            ));
            // The file is the repository's (untrusted): escape its lines.
            for l in c.old.lines() {
                diff.push_str(&format!("-{}\n", escape(l)));
            }
            for l in c.new.lines() {
                diff.push_str(&format!("+{}\n", escape(l)));
            }
        }
        out(&diff)?;
        err(&format!(
            "sota render: {shown} is stale; run `sota render {shown}`"
        ));
        return Ok(());
    }
    let regions: Vec<String> = report
        .changes
        .iter()
        .map(|c| format!("{} (line {})", c.region.name(), c.line))
        .collect();
    out(&format!("rendered {shown}: {}\n", regions.join(", ")))
}

pub fn prove(ctx: &Context, report: &sota::command::prove::ProveReport) -> io::Result<()> {
    if let Some(rec) = &report.record {
        err(&format!(
            "sota prove: recorded {} (commit it)",
            quote(&rec.rel.display().to_string())
        ));
    }
    if ctx.json() {
        out_json(&sota::output::prove::json(&report.report))
    } else {
        out(&sota::output::prove::human(&report.report))
    }
}

pub fn report(page: &sota::command::report::ReportPage<'_>, shown: &str) -> io::Result<()> {
    if let Some(why) = &page.audit_error {
        err(&format!("sota report: no compliance chart: {why}"));
    }
    out(&format!("wrote {}\n", quote(shown)))
}

pub fn hooks(ctx: &Context, report: &HookReport) -> io::Result<()> {
    if ctx.json() {
        return out_json(&json::hooks(report));
    }
    let mut text = String::new();
    for r in &report.results {
        let shown = r.path.display();
        let line = match &r.action {
            Action::Installed => format!("installed  {shown}"),
            Action::Updated => format!("updated    {shown}"),
            Action::Unchanged => format!("unchanged  {shown}"),
            Action::Chained => format!(
                "installed  {shown} (sota's lines added at the top of your hook, which keeps its name and runs as before)"
            ),
            Action::Refused(why) => format!("refused    {shown}: {why}"),
            Action::Removed => format!("removed    {shown}"),
            Action::Restored => format!("restored   {shown} (your hook, as it was before sota)"),
            Action::Withheld => format!("withheld   {shown} (another hook was refused)"),
            Action::Foreign => format!("kept       {shown} (not written by sota)"),
            Action::Absent => format!("absent     {shown}"),
        };
        text.push_str(&line);
        text.push('\n');
    }
    if matches!(report.command, HookCommand::Install(_)) && report.outcome() != sota::Outcome::Done
    {
        text.push_str("nothing was installed; see above\n");
    }
    out(&text)
}

/// A failed run: the reason (and fix) on stderr; with `--json`, also the
/// `sota.error/v1` payload on stdout.
pub fn failure(ctx: &Context, failure: &Failure) {
    if failure.exit_code() == 0 {
        return; // a closed pipe: the reader has what it wanted
    }
    if ctx.json() {
        let _ = out_json(&json::error(failure));
    }
    bare_failure(failure);
}

/// A failure before any context exists (or after one, in human form).
pub fn bare_failure(failure: &Failure) {
    match failure {
        Failure::Matrix(e) => load_error(e),
        Failure::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => {
            // Messages embed untrusted text (tensor names, paths, git's
            // words): shown visibly, whoever built them.
            let mut msg = escape_keeping_lines(&other.to_string()).into_owned();
            if !msg.starts_with("sota") {
                msg = format!("sota: {msg}");
            }
            if let Some(hint) = other.hint() {
                msg.push_str(&format!("\n  hint: {hint}"));
            }
            err(&msg);
        }
    }
}

/// A matrix that did not load: every problem with its snippet and fix.
fn load_error(e: &LoadError) {
    match e {
        LoadError::Io { path, error } => {
            err(&format!(
                "sota: cannot read the matrix {}: {error}\n  hint: pass an existing file with --matrix, fix $SOTA_MATRIX, or run without them to use the nearest sota.toml",
                quote(&path.display().to_string())
            ));
        }
        LoadError::Outside { .. } => err(&format!("sota: {e}")),
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
            for diag in invalid.diagnostics().take(MAX_SHOWN_PROBLEMS) {
                let _ = handler.render_report(&mut rendered, &diag);
                rendered.push('\n');
            }
            let n = invalid.problems.len();
            if n > MAX_SHOWN_PROBLEMS {
                rendered.push_str(&format!(
                    "… and {} more problems (`--json` lists every one)\n",
                    n - MAX_SHOWN_PROBLEMS
                ));
            }
            rendered.push_str(&format!(
                "sota: {} has {n} problem{}; nothing was read from it",
                quote(&invalid.name),
                if n == 1 { "" } else { "s" }
            ));
            let mut stderr = io::stderr().lock();
            let _ = writeln!(stderr, "{rendered}");
        }
    }
}
