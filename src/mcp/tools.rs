//! The tools: each one's input schema and agent-facing description, and a
//! call that resolves a fresh [`Context`] (so an edited matrix is seen at
//! once), checks every path argument against the root, makes the same
//! library call as the CLI and returns the CLI's `--json` payload as
//! structured content with the CLI's text as the text content.
//!
//! A tool is one argument struct, one entry in [`list`], one arm in
//! [`call`]. `prove` reads two tensor files, each confined to the root like
//! every path argument (a FIFO or device is refused when opened).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::ErrorData as McpError;
use schemars::JsonSchema;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::{json, Value};

use sota::command::gate::{GateArgs, GateMode, GateRun};
use sota::command::lookup::{LookupReport, Milestones};
use sota::context::{CatalogReason, Source};
use sota::matrix::cache::Cache;
use sota::output::json::SchemaId;
use sota::output::{
    coverage as coverage_out, gate as gate_out, init as init_out, json as out, prove as prove_out,
    text, wrap,
};
use sota::repo::confine::confine;
use sota::surface::lookup::{strip_line_col, Lookup};
use sota::{command, Context, Failure, Inputs};

/// `lookup`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LookupArgs {
    /// An op slug (`fused-attention`), a file path relative to the
    /// repository (`kernels/attn/flash.cu`, optionally `:LINE`), or search
    /// words (`marlin int4`).
    pub query: String,
}

/// `ops_for_paths`' arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathsArgs {
    /// The files you are about to create or edit, relative to the
    /// repository root (or absolute inside it).
    pub paths: Vec<String>,
}

/// `milestones`' arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MilestonesArgs {
    /// One axis (`attention`, `quantization`, …); omit for every ladder.
    pub axis: Option<String>,
}

/// `coverage` takes no arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoverageArgs {}

/// `suggest`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestArgs {
    /// Kernel files (tracked or about to be created) to place, relative to
    /// the repository root (or absolute inside it); omit for every kernel
    /// file no op covers.
    pub paths: Option<Vec<String>>,
}

/// `catalog_search`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogArgs {
    /// A slug or search words (`paged attention`); omit to list the whole
    /// catalog.
    pub query: Option<String>,
}

/// `prove`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProveToolArgs {
    /// The reference tensor file (the oracle's output): `.npy`,
    /// `.safetensors`, or raw with `dtype` and `shape`; relative to the
    /// repository root or absolute inside it.
    pub reference: String,
    /// The candidate tensor file (the kernel's output), likewise.
    pub candidate: String,
    /// The op whose `check` list in sota.toml judges the pair.
    pub op: Option<String>,
    /// Checks replacing the op's, in `sota prove --check` syntax:
    /// `cosine>=0.999`, `row-cosine>=0.999`, `bf16: tile-rel-l2<=0.03`.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Only this tensor of `.safetensors` files.
    pub tensor: Option<String>,
    /// The axis rows run along (negative counts from the end; default -1).
    pub axis: Option<i64>,
    /// Tiles over the last two axes, `ROWSxCOLS` (default 16x16 when a
    /// tile check asks).
    pub tile: Option<String>,
    /// Element type of raw files (`f32`, `bf16`, …), with `shape`.
    pub dtype: Option<String>,
    /// Shape of raw files, e.g. `32,4096`, with `dtype`.
    pub shape: Option<String>,
}

const PROVE: &str = "Judge a kernel's output against the oracle's: compares two tensor files inside the repository (.npy, .safetensors, or raw with dtype and shape) and applies the op's `check` list from sota.toml (or `checks`). Reports cosine, abs/rel error with positions, allclose (tolerances by the candidate's dtype), argmax, bit identity, NaN/Inf, and the worst row and tile (a row never written or one tile scaled wrong shows there, not in the whole-tensor cosine). A bf16/f16/fp8 candidate may be compared with an f32 reference. Call it after changing a kernel, before committing. Returns sota.prove/v1 (`verdict`: pass, fail or unjudged). Read-only: paths outside the repository are refused.";

const LOOKUP: &str = "Look up what the repository's prior-art matrix (sota.toml) says: give an op slug for the full entry (the production reference to read first, the route borrow / bind / stay-minimal, the oracle checks), a file path (optionally path:LINE) for the ops that cover it, or words for a ranked search. Call it before writing or changing a kernel, to reuse known art instead of re-deriving it. Returns the op(s) as JSON (schema sota.op/v1, sota.file/v1, sota.search/v1) or sota.not-found/v1 with did-you-mean slugs. Without a sota.toml it answers from sota's built-in catalog.";
const OPS_FOR_PATHS: &str = "Before editing or creating a kernel file, call ops_for_paths with the paths you will touch (they need not exist yet). Returns the kernel ops whose globs cover those paths, each with its prior art (the reference implementation and paper to read first) and a ready-to-paste `Prior-art:` commit trailer (schema sota.gate/v1). When no op covers them (or there is no sota.toml yet), it returns the catalog's best match for each path with the evidence for it (schema sota.suggest/v1, as the `suggest` tool). Put the trailer in your commit message. Paths outside the repository are refused.";
const SUGGEST: &str = "Propose where kernel files belong in the prior-art matrix, read-only: for each path (tracked or about to be created; omit `paths` for every kernel file no op covers) the op that covers it, else the catalog op that fits best with its evidence (content, name and directory signals), and the exact sota.toml edit (a glob that matches no tracked file outside its targets and the op's own). Nothing is written: apply the edit yourself or run `sota suggest --write`. Returns sota.suggest/v1, the payload of `sota suggest --json`.";
const MILESTONES: &str = "The milestone ladders: for each axis (attention, quantization, batching, …) the rungs of the state of the art, which one this repository has reached and which is next. Give `axis` for one ladder rung by rung. Use it to decide what to build next or how far an implementation is from the state of the art. Returns sota.milestones/v1 or sota.ladder/v1 (sota.unknown-axis/v1 with did-you-mean on a miss).";
const COVERAGE: &str = "The repository's prior-art scorecard: kernel files no op maps, ops whose files or anchors are missing, dead globs, stale reviews, with a debt count and a grade. Call it to find where the matrix is incomplete before adding an op, or to check the matrix after editing it. Returns sota.coverage/v1 (the text lists at most 10 items per check; the JSON has them all). Needs the repository's sota.toml.";
const CATALOG_SEARCH: &str = "Search sota's built-in catalog of production prior art (FlashAttention, PagedAttention, Marlin, …) whatever the repository's matrix says: a slug for one entry, words for a ranked search, nothing for the whole list. Use it to find the reference to read before writing a kernel the repository does not map yet. Returns sota.op/v1, sota.search/v1, sota.not-found/v1 or sota.list/v1.";

/// Every tool, as `tools/list` shows it.
pub fn list() -> Vec<Tool> {
    use SchemaId::*;
    vec![
        tool::<LookupArgs>("lookup", LOOKUP, &[Op, File, Search, NotFound]),
        tool::<PathsArgs>(
            "ops_for_paths",
            OPS_FOR_PATHS,
            &[Gate, GateUnchecked, Suggest],
        ),
        tool::<MilestonesArgs>("milestones", MILESTONES, &[Milestones, Ladder, UnknownAxis]),
        tool::<CoverageArgs>("coverage", COVERAGE, &[Coverage]),
        tool::<SuggestArgs>("suggest", SUGGEST, &[Suggest]),
        tool::<CatalogArgs>(
            "catalog_search",
            CATALOG_SEARCH,
            &[Op, Search, NotFound, List],
        ),
        tool::<ProveToolArgs>("prove", PROVE, &[Prove]),
    ]
}

/// A read-only tool whose structured output is one of `payloads` (or a
/// `sota.error/v1` when it could not answer).
fn tool<A: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    payloads: &[SchemaId],
) -> Tool {
    let ids: Vec<&str> = payloads
        .iter()
        .chain([&SchemaId::Error])
        .map(|s| s.id())
        .collect();
    let output = json!({
        "type": "object",
        "required": ["schema"],
        "properties": {"schema": {"type": "string", "enum": ids}},
    });
    let Value::Object(output) = output else {
        unreachable!("a JSON object literal")
    };
    Tool::new(
        name,
        description,
        rmcp::handler::server::common::schema_for_type::<A>(),
    )
    .with_raw_output_schema(std::sync::Arc::new(output))
    .with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

/// Run one tool with fresh inputs.
///
/// `commands` are the CLI's subcommand names (for a lookup's "did you mean
/// the command" hint, as on the command line).
pub fn call(
    inputs: Inputs,
    cache: &Arc<Cache>,
    commands: &[&str],
    name: &str,
    args: Option<JsonObject>,
) -> Result<CallToolResult, McpError> {
    let args = Value::Object(args.unwrap_or_default());
    let result = match name {
        "lookup" => lookup(inputs, cache, commands, parse(name, args)?),
        "ops_for_paths" => ops_for_paths(inputs, cache, parse(name, args)?),
        "milestones" => milestones(inputs, cache, parse(name, args)?),
        "coverage" => coverage(inputs, cache, parse::<CoverageArgs>(name, args)?),
        "suggest" => suggest(inputs, cache, parse(name, args)?),
        "catalog_search" => catalog_search(inputs, cache, commands, parse(name, args)?),
        "prove" => prove(inputs, cache, parse(name, args)?),
        other => {
            let known: Vec<String> = list().iter().map(|t| t.name.to_string()).collect();
            return Err(McpError::invalid_params(
                format!("unknown tool `{other}`; the tools are {}", known.join(", ")),
                None,
            ));
        }
    };
    Ok(result.unwrap_or_else(|failure| error_result(&failure)))
}

/// The arguments, or a protocol error naming what is wrong with them.
fn parse<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, McpError> {
    serde_json::from_value(args)
        .map_err(|e| McpError::invalid_params(format!("{tool}: invalid arguments: {e}"), None))
}

fn lookup(
    inputs: Inputs,
    cache: &Arc<Cache>,
    commands: &[&str],
    args: LookupArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    answer(&ctx, commands, &args.query)
}

fn catalog_search(
    mut inputs: Inputs,
    cache: &Arc<Cache>,
    commands: &[&str],
    args: CatalogArgs,
) -> Result<CallToolResult, Failure> {
    inputs.catalog = true;
    let ctx = Context::resolve_cached(inputs, cache.clone());
    match args.query.as_deref().map(str::trim) {
        None | Some("") => {
            let m = ctx.matrix()?;
            Ok(result(&out::list(m), text::list(m, None), false))
        }
        Some(q) => answer(&ctx, commands, q),
    }
}

/// A lookup in `ctx`, the query checked first when it names a path.
fn answer(ctx: &Context, commands: &[&str], query: &str) -> Result<CallToolResult, Failure> {
    let matrix = ctx.matrix()?;
    if matrix.op(query.trim()).is_none() && names_a_path(query, ctx.cwd()) {
        confine(strip_line_col(query.trim()), ctx.cwd(), &root(ctx)?)
            .map_err(|e| Failure::Usage(e.to_string()))?;
    }
    let report = command::lookup::lookup(ctx, query, commands)?;
    Ok(lookup_result(ctx, &report))
}

fn lookup_result(ctx: &Context, report: &LookupReport<'_>) -> CallToolResult {
    let m = report.matrix;
    let notice = catalog_notice(ctx);
    match &report.lookup {
        Lookup::Op(op) => result(&out::op(m, op), notice + &text::op(m, op), false),
        Lookup::File { path, hits } => result(
            &out::file(m, path, hits),
            notice + &text::file_hits(m, path, hits),
            false,
        ),
        Lookup::Search { query, hits } => result(
            &out::search(m, query, hits),
            notice + &text::search(m, query, hits),
            false,
        ),
        Lookup::NotFound(nf) => {
            let mut t = notice + &text::not_found(nf);
            if let Some(cmd) = &report.command_hint {
                t.push_str(&format!("did you mean the command `sota {cmd}`?\n"));
            }
            result(
                &out::not_found(m, nf, report.command_hint.as_deref()),
                t,
                false,
            )
        }
    }
}

fn ops_for_paths(
    inputs: Inputs,
    cache: &Arc<Cache>,
    args: PathsArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    if args.paths.is_empty() {
        return Err(Failure::Usage(
            "ops_for_paths needs at least one path: the files you are about to edit".into(),
        ));
    }
    let root = root(&ctx)?;
    for p in &args.paths {
        confine(p, ctx.cwd(), &root).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    let gate_args = GateArgs {
        mode: GateMode::Paths(args.paths.clone()),
        strict: false,
    };
    match command::gate::run(&ctx, &gate_args)? {
        GateRun::Change(c) if c.report.touched.is_empty() => {
            let intro = "No op in the matrix covers these paths yet; the catalog's best match for each, with its evidence (nothing is written):\n\n";
            suggest_result(&ctx, args.paths, intro)
        }
        GateRun::Change(c) => {
            let payload = gate_out::json(c.matrix, &c.report, c.mode, c.strict);
            let mut text = gate_out::human(&c.report);
            let covered: std::collections::HashSet<&str> = c
                .report
                .touched
                .iter()
                .flat_map(|a| a.paths.iter().map(String::as_str))
                .collect();
            let uncovered: Vec<String> = args
                .paths
                .into_iter()
                .filter(|p| {
                    !sota::surface::lookup::path_candidates(p, ctx.cwd(), &root)
                        .iter()
                        .any(|rel| covered.contains(rel.as_str()))
                })
                .collect();
            if !uncovered.is_empty() {
                text.push_str(&uncovered_note(&ctx, uncovered)?);
            }
            Ok(result(&payload, text, false))
        }
        GateRun::Unchecked(u) => {
            let payload = gate_out::unchecked_json(&u);
            let mut text = format!("sota could not check these paths: {}\n", u.reason);
            if let Some(fix) = &u.fix {
                text.push_str(&format!("  fix: {fix}\n"));
            }
            text.push_str(&problems_text(&payload.problems));
            Ok(result(&payload, text, true))
        }
        GateRun::NoMatrix => {
            let intro = "No sota.toml here yet (`sota init` drafts one); the catalog's best match for each path, with its evidence:\n\n";
            suggest_result(&ctx, args.paths, intro)
        }
        // Paths mode never judges a range or prepares a message.
        GateRun::Range(_) | GateRun::Prepared { .. } => Err(Failure::Usage(
            "ops_for_paths: the gate answered another mode than paths".into(),
        )),
    }
}

/// The suggest payload for `paths`, its text after `intro`.
fn suggest_result(
    ctx: &Context,
    paths: Vec<String>,
    intro: &str,
) -> Result<CallToolResult, Failure> {
    // The tool writes nothing, and an agent cannot pass a CLI flag to it:
    // name the command that writes the same edits.
    let apply = if matches!(ctx.source, sota::context::Source::Catalog(_)) {
        "this tool writes nothing, and there is no sota.toml yet: `sota init` drafts one"
    } else if paths.is_empty() {
        "this tool writes nothing: edit by hand, or run `sota suggest --uncovered --write`"
    } else {
        "this tool writes nothing: edit by hand, or run `sota suggest --write` with the same paths"
    };
    let r = command::init::suggest_read_only(ctx, paths)?;
    let payload: Value = serde_json::from_str(&init_out::suggest_json(&r.report, &r.matrix, false))
        .expect("the suggest payload is JSON");
    let text = format!(
        "{intro}{}",
        init_out::suggest_human(&r.report, &r.matrix, apply)
    );
    Ok(result(&payload, text, false))
}

/// For the paths no op covers (when others are covered): the catalog's
/// best match, in the text (the payload is the gate's).
fn uncovered_note(ctx: &Context, paths: Vec<String>) -> Result<String, Failure> {
    let r = command::init::suggest_read_only(ctx, paths)?;
    let mut note = String::new();
    for s in r
        .report
        .suggestions
        .iter()
        .filter(|s| s.covered_by.is_empty())
    {
        note.push_str(&format!(
            "\n{} is covered by no op yet",
            sota::quote::quote(&s.file)
        ));
        match &s.proposal {
            Some(p) => note.push_str(&format!(
                "; the catalog's best match is `{}` ({}): call `suggest` for the evidence and the edit\n",
                p.slug, p.title
            )),
            None => note.push_str("; no catalog op has enough evidence for it\n"),
        }
    }
    Ok(note)
}

fn suggest(
    inputs: Inputs,
    cache: &Arc<Cache>,
    args: SuggestArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let paths = args.paths.unwrap_or_default();
    let root = root(&ctx)?;
    for p in &paths {
        confine(p, ctx.cwd(), &root).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    suggest_result(&ctx, paths, "")
}

fn milestones(
    inputs: Inputs,
    cache: &Arc<Cache>,
    args: MilestonesArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let report = command::lookup::milestones(&ctx, args.axis.as_deref())?;
    let m = report.matrix;
    let notice = catalog_notice(&ctx);
    Ok(match &report.milestones {
        Milestones::Overview(views) => result(
            &out::milestones(m, views),
            notice + &text::milestones_overview(m, views),
            false,
        ),
        Milestones::Ladder(view) => result(
            &out::ladder(m, view),
            notice + &text::ladder(m, view),
            false,
        ),
        Milestones::UnknownAxis {
            axis,
            did_you_mean,
            axes,
        } => result(
            &out::unknown_axis(m, axis, did_you_mean, axes),
            text::unknown_axis(axis, did_you_mean, axes),
            false,
        ),
    })
}

fn coverage(
    inputs: Inputs,
    cache: &Arc<Cache>,
    _args: CoverageArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let report = command::coverage::run(&ctx, false)?;
    Ok(result(
        &coverage_out::json(report.matrix, &report.report),
        coverage_out::human(report.matrix, &report.report),
        false,
    ))
}

/// `sota prove` on two files inside the root (no histogram: read-only).
fn prove(
    inputs: Inputs,
    cache: &Arc<Cache>,
    args: ProveToolArgs,
) -> Result<CallToolResult, Failure> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let root = root(&ctx)?;
    for p in [&args.reference, &args.candidate] {
        confine(p, ctx.cwd(), &root).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    let prove_args = command::prove::ProveArgs {
        slug: args.op,
        reference: PathBuf::from(&args.reference),
        candidate: PathBuf::from(&args.candidate),
        tensor: args.tensor,
        checks: args.checks,
        dtype: args.dtype,
        shape: args.shape,
        axis: args.axis.map_or(-1, |a| a as isize),
        tile: args.tile,
        ..Default::default()
    };
    let report = command::prove::run(&ctx, &prove_args)?;
    Ok(result(
        &prove_out::json(&report.report),
        prove_out::human(&report.report),
        false,
    ))
}

/// The directory path arguments must stay in: the matrix root, or the
/// working directory when the catalog answers.
fn root(ctx: &Context) -> Result<PathBuf, Failure> {
    Ok(match ctx.source {
        Source::Catalog(_) => ctx.cwd().to_path_buf(),
        _ => ctx.root(ctx.matrix()?),
    })
}

/// Whether a lookup query names a path (so it must stay inside the root):
/// it has a separator, is absolute or starts with `~`, or names an entry
/// that exists.
fn names_a_path(query: &str, cwd: &Path) -> bool {
    let q = strip_line_col(query.trim());
    q.contains(['/', '\\'])
        || q.starts_with('~')
        || q == ".."
        || Path::new(q).is_absolute()
        || std::fs::symlink_metadata(cwd.join(q)).is_ok()
}

/// "no sota.toml here: the catalog answers", as the CLI says it.
fn catalog_notice(ctx: &Context) -> String {
    if ctx.source == Source::Catalog(CatalogReason::NoMatrix) {
        let team = ctx
            .catalog()
            .ok()
            .and_then(|c| c.team.as_ref().map(|t| t.name.clone()));
        let mut s = text::catalog_notice(ctx.cwd(), team.as_deref());
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    } else {
        String::new()
    }
}

/// A tool result: the payload as structured content, the text (styles
/// dropped) as text content.
fn result<T: Serialize>(payload: &T, text: String, is_error: bool) -> CallToolResult {
    let value = serde_json::to_value(payload).expect("report types serialize");
    let mut r = if is_error {
        CallToolResult::structured_error(value)
    } else {
        CallToolResult::structured(value)
    };
    r.content = vec![ContentBlock::text(wrap::plain(&text))];
    r
}

/// A command that could not answer: `sota.error/v1` with the located
/// diagnostics, as a tool error the agent can read and act on.
pub fn error_result(failure: &Failure) -> CallToolResult {
    let payload = out::error(failure);
    let mut text = format!("{}\n", payload.message);
    if let Some(hint) = &payload.hint {
        text.push_str(&format!("  hint: {hint}\n"));
    }
    text.push_str(&problems_text(&payload.problems));
    result(&payload, text, true)
}

/// One line per located problem, with its fix.
pub fn problems_text(problems: &[out::ProblemJson]) -> String {
    let mut s = String::new();
    for p in problems {
        s.push_str(&format!("{}: {} [{}]\n", p.location, p.message, p.code));
        if let Some(help) = &p.help {
            s.push_str(&format!("  fix: {help}\n"));
        }
    }
    s
}
