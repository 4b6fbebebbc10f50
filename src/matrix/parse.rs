//! From TOML text to a validated [`Matrix`], collecting every problem.
//!
//! The document is parsed once into toml's span-carrying `DeTable` and walked
//! by hand (not through serde), so that one run reports every unknown key,
//! missing field, duplicate and bad value with its exact span, instead of
//! stopping at the first.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::diagnostic::{Code, LoadError, Problem};
use super::keys;
use super::model::*;
use crate::did_you_mean;
use crate::glob::FileGlob;

type Value<'i> = Spanned<DeValue<'i>>;

/// Parse and validate `text`, read from `file`. `root_dir` is the directory
/// holding the file; `check_fs` enables checks that touch the filesystem
/// (`[project] root` must exist).
pub(crate) fn parse(
    text: String,
    file: &Path,
    name: &str,
    root_dir: &Path,
    origin: Origin,
    check_fs: bool,
) -> Result<Matrix, LoadError> {
    // Moved, never copied: the model keeps the text it was read from.
    let shared = Arc::new(text);
    let text = shared.as_str();
    let (doc, syntax_errors) = DeTable::parse_recoverable(text);
    if !syntax_errors.is_empty() {
        let problems = syntax_problems(&syntax_errors);
        return Err(LoadError::invalid(name, text, problems));
    }

    let mut w = Walker {
        origin,
        problems: Vec::new(),
    };
    let top = doc.get_ref();
    if origin == Origin::Project || text != crate::catalog::TEXT {
        // The built-in catalog is ours (checked by a unit test instead); a
        // team catalog is not.
        super::text_safety::check_document(text, top, &mut w.problems);
    }
    w.check_keys(top, keys::TOP, &Ctx::top());

    let (project, root_rel) = w.project(top);
    let kernels = w.kernels(top);
    let ops = w.ops(top);
    let ladders = w.ladders(top);

    let mut root = root_dir.to_path_buf();
    if let Some(rel) = &root_rel {
        root = root_dir.join(&rel.value);
        if check_fs && !root.is_dir() {
            w.problems.push(
                Problem::new(
                    Code::BadRoot,
                    rel.span.clone(),
                    format!("`root = \"{}\"` is not a directory ({})", rel.value, root.display()),
                )
                .label("no such directory")
                .help("`root` is relative to the directory holding sota.toml; point it at the repository root"),
            );
        }
    }

    if !w.problems.is_empty() {
        return Err(LoadError::invalid(name, text, w.problems));
    }
    Ok(Matrix {
        name: name.to_owned(),
        origin,
        file: file.to_path_buf(),
        text: Arc::clone(&shared),
        root: normalize(&root),
        project: project.expect("a missing [project] is reported as a problem"),
        kernels,
        ops,
        ladders,
        team: None,
    })
}

/// toml's syntax errors as located problems.
fn syntax_problems(errors: &[toml::de::Error]) -> Vec<Problem> {
    errors
        .iter()
        .map(|e| {
            let span = e.span().unwrap_or(0..0);
            let message = e.message().trim();
            if message.starts_with("invalid date") || message.starts_with("invalid time") {
                // toml rejects impossible calendar dates while parsing.
                return Problem::new(Code::BadDate, span, message.to_owned())
                    .label("not a calendar date")
                    .help("write a real date as YYYY-MM-DD, e.g. `reviewed = 2026-06-26`");
            }
            Problem::new(Code::TomlSyntax, span, format!("invalid TOML: {message}"))
                .label("cannot parse this")
                .help("fix the TOML syntax; `sota schema` prints the format for editor completion")
        })
        .collect()
}

/// Lexically resolve `.` and `..` so roots print cleanly.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = crate::lexical::lexical(path);
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Where in the document a table sits, for messages.
struct Ctx {
    name: String,
    header: Range<usize>,
}

impl Ctx {
    fn top() -> Ctx {
        Ctx {
            name: "the top level".into(),
            header: 0..0,
        }
    }
}

struct Walker {
    origin: Origin,
    problems: Vec<Problem>,
}

fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

impl Walker {
    fn push(&mut self, p: Problem) {
        self.problems.push(p);
    }

    fn wrong_type(&mut self, key: &str, v: &Value<'_>, want: &str, ctx: &Ctx, example: &str) {
        self.push(
            Problem::new(
                Code::WrongType,
                v.span(),
                format!(
                    "`{key}` in {} must be {want}, found {}",
                    ctx.name,
                    type_name(v.get_ref())
                ),
            )
            .label(format!("expected {want}"))
            .help(format!("write it as `{key} = {example}`")),
        );
    }

    fn check_keys(&mut self, table: &DeTable<'_>, allowed: &[&str], ctx: &Ctx) {
        for (key, _) in table.iter() {
            let name = key.get_ref().as_ref();
            if allowed.contains(&name) {
                continue;
            }
            let help = match did_you_mean::phrase(name, allowed.iter().copied()) {
                Some(dym) => format!("{dym} Keys allowed in {}: {}", ctx.name, allowed.join(", ")),
                None => format!("keys allowed in {}: {}", ctx.name, allowed.join(", ")),
            };
            self.push(
                Problem::new(
                    Code::UnknownKey,
                    key.span(),
                    format!("unknown key `{name}` in {}", ctx.name),
                )
                .label("not part of the sota.toml format")
                .help(help),
            );
        }
    }

    /// Report a project binding present in the catalog.
    fn forbid_in_catalog(&mut self, table: &DeTable<'_>, key: &str, ctx: &Ctx) {
        if self.origin != Origin::Catalog {
            return;
        }
        if let Some((k, _)) = table.get_key_value(key) {
            self.push(
                Problem::new(
                    Code::CatalogBinding,
                    k.span(),
                    format!("the catalog cannot bind `{key}` in {}", ctx.name),
                )
                .help("the built-in catalog describes prior art for any project; bindings belong in a project's sota.toml"),
            );
        }
    }

    fn missing(&mut self, key: &str, ctx: &Ctx, example: &str) {
        self.push(
            Problem::new(
                Code::MissingField,
                ctx.header.clone(),
                format!("missing required field `{key}` in {}", ctx.name),
            )
            .label(format!("this table needs `{key}`"))
            .help(format!("add `{key} = {example}`")),
        );
    }

    fn string(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        ctx: &Ctx,
        required: bool,
        example: &str,
    ) -> Option<Located<String>> {
        let Some(v) = table.get(key) else {
            if required {
                self.missing(key, ctx, example);
            }
            return None;
        };
        match v.get_ref() {
            DeValue::String(s) if s.trim().is_empty() => {
                let help = if required {
                    format!("give it a value, e.g. `{key} = {example}`")
                } else {
                    "give it a value, or leave the key out while the team decides".into()
                };
                self.push(
                    Problem::new(
                        Code::EmptyValue,
                        v.span(),
                        format!("`{key}` in {} is empty", ctx.name),
                    )
                    .label("empty")
                    .help(help),
                );
                None
            }
            DeValue::String(s) => Some(Located::new(s.to_string(), v.span())),
            _ => {
                self.wrong_type(key, v, "a string", ctx, example);
                None
            }
        }
    }

    fn strings(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        ctx: &Ctx,
        example: &str,
    ) -> Vec<Located<String>> {
        let Some(v) = table.get(key) else {
            return Vec::new();
        };
        let DeValue::Array(items) = v.get_ref() else {
            let example = match v.get_ref() {
                DeValue::String(s) => format!("[\"{s}\"]"),
                _ => example.to_owned(),
            };
            self.wrong_type(key, v, "an array of strings", ctx, &example);
            return Vec::new();
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items.iter() {
            match item.get_ref() {
                DeValue::String(s) if s.trim().is_empty() => self.push(
                    Problem::new(
                        Code::EmptyValue,
                        item.span(),
                        format!("empty entry in `{key}` in {}", ctx.name),
                    )
                    .label("empty")
                    .help("remove the empty string"),
                ),
                DeValue::String(s) => out.push(Located::new(s.to_string(), item.span())),
                other => self.push(
                    Problem::new(
                        Code::WrongType,
                        item.span(),
                        format!(
                            "`{key}` in {} must hold strings, found {}",
                            ctx.name,
                            type_name(other)
                        ),
                    )
                    .label("expected a string")
                    .help(format!("write it as `{key} = {example}`")),
                ),
            }
        }
        out
    }

    fn integer(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        ctx: &Ctx,
        example: &str,
    ) -> Option<Located<i64>> {
        let v = table.get(key)?;
        match v.get_ref() {
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Some(Located::new(n, v.span())),
                Err(_) => {
                    self.push(
                        Problem::new(
                            Code::BadNumber,
                            v.span(),
                            format!("`{key}` in {} is out of range", ctx.name),
                        )
                        .help(format!("write it as `{key} = {example}`")),
                    );
                    None
                }
            },
            _ => {
                self.wrong_type(key, v, "an integer", ctx, example);
                None
            }
        }
    }

    fn number(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        ctx: &Ctx,
        example: &str,
    ) -> Option<Located<f64>> {
        let v = table.get(key)?;
        let parsed = match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n as f64),
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            _ => {
                self.wrong_type(key, v, "a number", ctx, example);
                return None;
            }
        };
        match parsed {
            Some(n) if n.is_finite() => Some(Located::new(n, v.span())),
            _ => {
                self.push(
                    Problem::new(
                        Code::BadNumber,
                        v.span(),
                        format!("`{key}` in {} must be a finite number", ctx.name),
                    )
                    .label("not a finite number")
                    .help(format!("write it as `{key} = {example}`")),
                );
                None
            }
        }
    }

    fn link(&mut self, table: &DeTable<'_>, key: &str, ctx: &Ctx) -> Option<Located<String>> {
        let link = self.string(table, key, ctx, false, "\"https://github.com/owner/repo\"")?;
        if is_http_url(&link.value) {
            Some(link)
        } else {
            self.push(
                Problem::new(
                    Code::BadLink,
                    link.span.clone(),
                    format!("`{key}` in {} is not an http(s) URL: `{}`", ctx.name, link.value),
                )
                .label("expected http:// or https://")
                .help(if !link.value.contains("://") && link.value.contains('.') {
                    format!("write the full URL: `{key} = \"https://{}\"`", link.value)
                } else {
                    format!("write the full URL the reader should open, e.g. `{key} = \"https://github.com/IST-DASLab/marlin\"`")
                }),
            );
            None
        }
    }

    fn project(&mut self, top: &DeTable<'_>) -> (Option<Project>, Option<Located<String>>) {
        let Some(v) = top.get("project") else {
            self.push(
                Problem::new(Code::MissingField, 0..0, "missing the `[project]` table")
                    .label("the file needs a [project] table")
                    .help("add at the top:\n[project]\nname = \"my-project\""),
            );
            return (None, None);
        };
        let DeValue::Table(t) = v.get_ref() else {
            self.wrong_type(
                "project",
                v,
                "a table",
                &Ctx::top(),
                "{ name = \"my-project\" }",
            );
            return (None, None);
        };
        let ctx = Ctx {
            name: "[project]".into(),
            header: v.span(),
        };
        self.check_keys(t, keys::PROJECT, &ctx);
        self.forbid_in_catalog(t, "root", &ctx);
        self.forbid_in_catalog(t, "catalog", &ctx);
        let name = self.string(t, "name", &ctx, true, "\"my-project\"");
        let reviewed = self.date(t, "reviewed", &ctx);
        let adopted = self.date(t, "adopted", &ctx);
        let provenance = self.string(t, "provenance", &ctx, false, "\"docs/notes/research.md\"");
        let fresh_days = match self.integer(t, "fresh-days", &ctx, "90") {
            Some(n) if (1..=3650).contains(&n.value) => n.value as u32,
            Some(n) => {
                self.push(
                    Problem::new(
                        Code::BadNumber,
                        n.span.clone(),
                        format!("`fresh-days` must be between 1 and 3650, found {}", n.value),
                    )
                    .label("out of range")
                    .help("the staleness window is a number of days, e.g. `fresh-days = 90`"),
                );
                DEFAULT_FRESH_DAYS
            }
            None => DEFAULT_FRESH_DAYS,
        };
        let root = self.string(t, "root", &ctx, false, "\"../..\"");
        if let Some(r) = &root {
            if Path::new(&r.value).is_absolute() {
                self.push(
                    Problem::new(Code::BadRoot, r.span.clone(), format!("`root = \"{}\"` is absolute", r.value))
                        .label("absolute path")
                        .help("write it relative to the directory holding sota.toml, e.g. `root = \"../..\"`"),
                );
            }
        }
        let catalog = self.team_catalog_key(t, &ctx);
        let project = name.map(|name| Project {
            name: name.value,
            reviewed,
            provenance: provenance.map(|p| p.value),
            fresh_days,
            adopted,
            catalog,
        });
        (project, root)
    }

    /// `[project] catalog`: a relative path with `/` separators.
    fn team_catalog_key(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Option<Located<String>> {
        let c = self.string(t, "catalog", ctx, false, "\"tools/team-catalog.toml\"")?;
        if Path::new(&c.value).is_absolute() || c.value.starts_with('/') || c.value.contains('\\') {
            self.push(
                Problem::new(Code::BadRoot, c.span.clone(), format!("`catalog = \"{}\"` is not a relative path", c.value))
                    .label("expected a path relative to the matrix root")
                    .help("write the team catalog's path relative to the matrix root, with `/` separators, e.g. `catalog = \"tools/team-catalog.toml\"`"),
            );
            return None;
        }
        Some(c)
    }

    fn date(&mut self, table: &DeTable<'_>, key: &str, ctx: &Ctx) -> Option<Located<Date>> {
        let v = table.get(key)?;
        let bad = |msg: String, help: String| {
            Problem::new(Code::BadDate, v.span(), msg)
                .label("expected a date like 2026-06-26")
                .help(help)
        };
        match v.get_ref() {
            DeValue::Datetime(dt) => match (dt.date, dt.time, dt.offset) {
                (Some(d), None, None) => Some(Located::new(
                    Date {
                        year: d.year,
                        month: d.month,
                        day: d.day,
                    },
                    v.span(),
                )),
                (Some(d), _, _) => {
                    let p = bad(
                        format!(
                            "`{key}` in {} has a time; it must be a plain date",
                            ctx.name
                        ),
                        format!("write `{key} = {:04}-{:02}-{:02}`", d.year, d.month, d.day),
                    );
                    self.push(p);
                    None
                }
                _ => {
                    let p = bad(
                        format!("`{key}` in {} is a time, not a date", ctx.name),
                        format!("write `{key} = 2026-06-26`"),
                    );
                    self.push(p);
                    None
                }
            },
            // `sota schema` says string + format date (JSON has no date
            // type, and editors driven by it write quotes): accept an exact
            // ISO date either way.
            DeValue::String(s) => match Date::parse(s) {
                Some(d) => Some(Located::new(d, v.span())),
                None => {
                    let p = bad(
                        format!(
                            "`{key}` in {} must be a date, found the string \"{s}\"",
                            ctx.name
                        ),
                        format!("write a date as YYYY-MM-DD, e.g. `{key} = 2026-06-26`"),
                    );
                    self.push(p);
                    None
                }
            },
            _ => {
                self.wrong_type(key, v, "a date", ctx, "2026-06-26");
                None
            }
        }
    }

    fn globs(&mut self, table: &DeTable<'_>, key: &str, ctx: &Ctx) -> Vec<Located<FileGlob>> {
        let strings = self.strings(table, key, ctx, "[\"src/kernels/*.cu\"]");
        let mut out = Vec::with_capacity(strings.len());
        for Located { value, span } in strings {
            match FileGlob::from_string(value) {
                Ok(glob) => out.push(Located::new(glob, span)),
                Err(e) => self.push(
                    Problem::new(
                        Code::InvalidGlob,
                        span,
                        format!("{} in `{key}` of {}", e.message, ctx.name),
                    )
                    .label("invalid glob")
                    .help(e.help),
                ),
            }
        }
        out
    }

    fn anchors(&mut self, table: &DeTable<'_>, key: &str, ctx: &Ctx) -> Vec<Located<Anchor>> {
        let mut out = Vec::new();
        for a in self.strings(table, key, ctx, "[\"src/gemm.cu:120#gemm_kernel\"]") {
            match parse_anchor(&a.value) {
                Ok(anchor) => out.push(Located::new(anchor, a.span)),
                Err(why) => self.push(
                    Problem::new(Code::BadAt, a.span, format!("`{}` in `{key}` of {}: {why}", a.value, ctx.name))
                        .label("expected path[:LINE][#symbol]")
                        .help("write a root-relative path, optionally with :LINE and #symbol, e.g. \"src/gemm.cu:120#gemm_kernel\""),
                ),
            }
        }
        out
    }

    fn kernels(&mut self, top: &DeTable<'_>) -> Option<Kernels> {
        let v = top.get("kernels")?;
        let ctx = Ctx {
            name: "[kernels]".into(),
            header: v.span(),
        };
        self.forbid_in_catalog(top, "kernels", &Ctx::top());
        let DeValue::Table(t) = v.get_ref() else {
            self.wrong_type(
                "kernels",
                v,
                "a table",
                &Ctx::top(),
                "{ include = [\"**/*.cu\"] }",
            );
            return None;
        };
        self.check_keys(t, keys::KERNELS, &ctx);
        if !t.contains_key("include") {
            self.missing("include", &ctx, "[\"src/**/*.cu\"]");
        }
        let include = self.globs(t, "include", &ctx);
        let exclude = self.globs(t, "exclude", &ctx);
        Some(Kernels { include, exclude })
    }

    /// The tables of an array-of-tables key (`[[op]]`), or a problem.
    fn table_array<'a, 'i>(
        &mut self,
        top: &'a DeTable<'i>,
        key: &str,
        example: &str,
    ) -> Vec<(&'a DeTable<'i>, Range<usize>)> {
        let Some(v) = top.get(key) else {
            return Vec::new();
        };
        let DeValue::Array(items) = v.get_ref() else {
            self.push(
                Problem::new(Code::WrongType, v.span(), format!("`{key}` must be an array of tables"))
                    .label("expected [[...]] tables")
                    .help(format!("write each entry under its own `[[{key}]]` header (double brackets), e.g.\n{example}")),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::Table(t) => out.push((t, item.span())),
                other => self.push(
                    Problem::new(
                        Code::WrongType,
                        item.span(),
                        format!(
                            "each `{key}` entry must be a table, found {}",
                            type_name(other)
                        ),
                    )
                    .label("expected a table")
                    .help(format!("write each entry under its own `[[{key}]]` header")),
                ),
            }
        }
        out
    }

    fn ops(&mut self, top: &DeTable<'_>) -> Vec<Op> {
        let tables = self.table_array(top, "op", "[[op]]\nslug = \"fused-attention\"\ntitle = \"Fused attention\"\nsota = \"FlashAttention\"");
        let mut ops = Vec::with_capacity(tables.len());
        let mut seen: FxHashMap<String, Range<usize>> =
            FxHashMap::with_capacity_and_hasher(tables.len(), Default::default());
        for (n, (t, header)) in tables.into_iter().enumerate() {
            let slug_hint = match t.get("slug").map(|v| v.get_ref()) {
                Some(DeValue::String(s)) => format!("[[op]] `{s}`"),
                _ => format!("[[op]] #{}", n + 1),
            };
            let ctx = Ctx {
                name: slug_hint,
                header,
            };
            self.check_keys(t, keys::OP, &ctx);
            // `route` is allowed: in the catalog it is the suggested route.
            for key in ["files", "at", "witness"] {
                self.forbid_in_catalog(t, key, &ctx);
            }
            let slug = self.string(t, "slug", &ctx, true, "\"awq-int4-gemm\"");
            if let Some(slug) = &slug {
                self.kebab("slug", slug);
                if let Some(first) = seen.get(&slug.value) {
                    self.push(
                        Problem::new(
                            Code::DuplicateSlug,
                            slug.span.clone(),
                            format!("duplicate slug `{}`", slug.value),
                        )
                        .label("second definition")
                        .related(first.clone(), "first defined here")
                        .help("each op needs its own slug: rename one, or merge the two rows"),
                    );
                } else {
                    seen.insert(slug.value.clone(), slug.span.clone());
                }
            }
            if let Some(op) = self.op_fields(t, &ctx, slug) {
                ops.push(op);
            }
        }
        ops
    }

    /// The fields of one `[[op]]` after its slug.
    fn op_fields(
        &mut self,
        t: &DeTable<'_>,
        ctx: &Ctx,
        slug: Option<Located<String>>,
    ) -> Option<Op> {
        let title = self.string(t, "title", ctx, true, "\"AWQ 4-bit GEMV/GEMM\"");
        let sota = self.string(
            t,
            "sota",
            ctx,
            true,
            "\"Marlin mixed-precision INT4 kernel\"",
        );
        let files = self.globs(t, "files", ctx);
        let at = self.anchors(t, "at", ctx);
        let where_ = self.string(t, "where", ctx, false, "\"cuda.go (AWQMatMul)\"");
        let link = self.link(t, "link", ctx);
        let route = self.route(t, ctx);
        let oracle = self.string(t, "oracle", ctx, false, "\"cpuref f32 (cosine ≥ 0.999)\"");
        let check = self.checks(t, ctx);
        let witness = self.anchors(t, "witness", ctx);
        let papers = self.strings(
            t,
            "papers",
            ctx,
            "[\"AWQ (Lin et al., 2023) arXiv:2306.00978\"]",
        );
        let note = self.string(t, "note", ctx, false, "\"…\"");
        let checked = self.checked(t, ctx);
        let superseded = self.superseded(t, ctx);
        let (slug, title, sota) = (slug?, title?, sota?);
        Some(Op {
            slug,
            title: title.value,
            files,
            at,
            where_: where_.map(|w| w.value),
            sota: sota.value,
            link,
            route,
            oracle: oracle.map(|o| o.value),
            check,
            witness,
            papers: papers.into_iter().map(|p| p.value).collect(),
            note: note.map(|n| n.value),
            checked,
            superseded,
            team: None,
        })
    }

    /// `checked`: a date, required in a catalog (every catalog row says
    /// when it was last checked against the field).
    fn checked(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Option<Located<Date>> {
        if self.origin == Origin::Catalog && !t.contains_key("checked") {
            self.push(
                Problem::new(
                    Code::MissingField,
                    ctx.header.clone(),
                    format!("missing `checked` in {}: a catalog entry says when it was last checked against the field", ctx.name),
                )
                .label("this catalog entry needs `checked`")
                .help("add `checked = YYYY-MM-DD`, the day its links, ids and years were last verified"),
            );
        }
        self.date(t, "checked", ctx)
    }

    /// `superseded = [{ link = "…", by = "…" }]`.
    fn superseded(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Vec<Superseded> {
        let Some(v) = t.get("superseded") else {
            return Vec::new();
        };
        let example =
            "[{ link = \"https://github.com/old/repo\", by = \"https://github.com/new/repo\" }]";
        let DeValue::Array(items) = v.get_ref() else {
            self.wrong_type("superseded", v, "an array of tables", ctx, example);
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            let DeValue::Table(st) = item.get_ref() else {
                self.push(
                    Problem::new(
                        Code::WrongType,
                        item.span(),
                        format!("each `superseded` entry in {} must be a table", ctx.name),
                    )
                    .label("expected { link = ..., by = ... }")
                    .help(format!("write it as `superseded = {example}`")),
                );
                continue;
            };
            let sctx = Ctx {
                name: format!("a `superseded` entry of {}", ctx.name),
                header: item.span(),
            };
            self.check_keys(st, keys::SUPERSEDED, &sctx);
            for key in keys::SUPERSEDED {
                if !st.contains_key(*key) {
                    self.missing(key, &sctx, "\"https://github.com/owner/repo\"");
                }
            }
            let link = self.link(st, "link", &sctx);
            let by = self.link(st, "by", &sctx);
            if let (Some(link), Some(by)) = (link, by) {
                out.push(Superseded {
                    link: link.value,
                    by: by.value,
                });
            }
        }
        out
    }

    fn kebab(&mut self, what: &str, name: &Located<String>) {
        if is_kebab(&name.value) {
            return;
        }
        let fixed = to_kebab(&name.value);
        let help = if fixed.is_empty() {
            "use lowercase letters, digits and single hyphens, e.g. `awq-int4-gemm`".to_owned()
        } else {
            format!("use lowercase letters, digits and single hyphens: `{fixed}`")
        };
        self.push(
            Problem::new(
                Code::SlugNotKebab,
                name.span.clone(),
                format!("{what} `{}` is not kebab-case", name.value),
            )
            .label("not kebab-case")
            .help(help),
        );
    }

    fn route(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Option<Located<Route>> {
        let r = self.string(t, "route", ctx, false, "\"borrow\"")?;
        if let Some(route) = Route::parse(&r.value) {
            return Some(Located::new(route, r.span));
        }
        let dym = did_you_mean::phrase(&r.value, Route::ALL.iter().map(|r| r.name()));
        let list = "routes: borrow (adapt the reference after a witness exists), bind (use the production library directly), stay-minimal (keep our own exact implementation)";
        self.push(
            Problem::new(
                Code::UnknownRoute,
                r.span,
                format!("unknown route `{}` in {}", r.value, ctx.name),
            )
            .label("not a route")
            .help(match dym {
                Some(d) => format!("{d} Valid {list}"),
                None => format!("valid {list}; leave `route` out while undecided"),
            }),
        );
        None
    }

    fn checks(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Vec<Located<CheckEntry>> {
        let Some(v) = t.get("check") else {
            return Vec::new();
        };
        let example = "[{ metric = \"cosine\", min = 0.995 }]";
        let DeValue::Array(items) = v.get_ref() else {
            self.wrong_type("check", v, "an array of tables", ctx, example);
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            let DeValue::Table(ct) = item.get_ref() else {
                self.push(
                    Problem::new(
                        Code::WrongType,
                        item.span(),
                        format!("each `check` in {} must be a table", ctx.name),
                    )
                    .label("expected { metric = ..., ... }")
                    .help(format!("write it as `check = {example}`")),
                );
                continue;
            };
            let cctx = Ctx {
                name: format!("a `check` of {}", ctx.name),
                header: item.span(),
            };
            let before = self.problems.len();
            let check = self.check_entry(ct, &cctx, item.span());
            let dtypes = self.check_dtypes(ct, &cctx);
            if let (Some(check), true) = (check, self.problems.len() == before) {
                out.push(Located::new(CheckEntry { check, dtypes }, item.span()));
            }
        }
        out
    }

    /// One `check` table's metric and bound.
    fn check_entry(&mut self, ct: &DeTable<'_>, cctx: &Ctx, span: Range<usize>) -> Option<Check> {
        self.check_keys(ct, keys::CHECK, cctx);
        let metric = self.string(ct, "metric", cctx, true, "\"cosine\"")?;
        let kind = self.check_metric(&metric, cctx)?;
        self.check_parameters_apply(ct, &metric, kind);
        let m = metric.value.as_str();
        let bound = |w: &mut Walker, key: &str, lo: f64, hi: f64| {
            w.check_bound(ct, key, m, (lo, hi), span.clone(), cctx)
        };
        match kind {
            Metric::Cosine => bound(self, "min", -1.0, 1.0).map(|min| Check::Cosine { min }),
            Metric::Argmax => match ct.contains_key("min") {
                true => bound(self, "min", 0.0, 1.0).map(|min| Check::Argmax { min }),
                false => Some(Check::Argmax { min: 1.0 }),
            },
            Metric::MaxAbs => bound(self, "max", 0.0, f64::MAX).map(|max| Check::MaxAbs { max }),
            Metric::MaxRel => bound(self, "max", 0.0, f64::MAX).map(|max| Check::MaxRel { max }),
            Metric::Allclose => {
                // Left out: the default for the candidate's dtype.
                let tol = |w: &mut Walker, key: &str| match ct.contains_key(key) {
                    true => bound(w, key, 0.0, f64::MAX).map(Some),
                    false => Some(None),
                };
                let rtol = tol(self, "rtol");
                let atol = tol(self, "atol");
                rtol.zip(atol)
                    .map(|(rtol, atol)| Check::Allclose { rtol, atol })
            }
            Metric::BitIdentity => Some(Check::BitIdentity),
            local => {
                let (scope, stat) = local.local().expect("the other metrics are localized");
                let b = if stat.is_min() {
                    bound(self, "min", -1.0, 1.0)
                } else {
                    bound(self, "max", 0.0, f64::MAX)
                };
                b.map(|bound| Check::Local { scope, stat, bound })
            }
        }
    }

    fn check_metric(&mut self, metric: &Located<String>, cctx: &Ctx) -> Option<Metric> {
        if let Ok(kind) = metric.value.parse::<Metric>() {
            return Some(kind);
        }
        let other = metric.value.as_str();
        let names = Metric::names();
        let dym = did_you_mean::phrase(other, names.iter().copied());
        self.push(
            Problem::new(
                Code::BadCheck,
                metric.span.clone(),
                format!("unknown metric `{other}` in {}", cctx.name),
            )
            .label("not a metric")
            .help(format!(
                "{}metrics: {}",
                dym.map(|d| format!("{d} ")).unwrap_or_default(),
                names.join(", ")
            )),
        );
        None
    }

    /// Keys of the check format that this metric does not take.
    fn check_parameters_apply(&mut self, ct: &DeTable<'_>, metric: &Located<String>, kind: Metric) {
        let allowed: Vec<&str> = ["metric", "dtype"]
            .into_iter()
            .chain(kind.parameters().iter().copied())
            .collect();
        for (key, _) in ct.iter() {
            let k = key.get_ref().as_ref();
            if keys::CHECK.contains(&k) && !allowed.contains(&k) {
                self.push(
                    Problem::new(
                        Code::BadCheck,
                        key.span(),
                        format!("`{k}` does not apply to metric `{}`", metric.value),
                    )
                    .label("not a parameter of this metric")
                    .help(format!(
                        "`{}` takes: {}",
                        metric.value,
                        allowed[2..].join(", ").if_empty("no parameters")
                    )),
                );
            }
        }
    }

    /// A check's numeric bound `key`, required, within `range`.
    fn check_bound(
        &mut self,
        ct: &DeTable<'_>,
        key: &str,
        metric: &str,
        (lo, hi): (f64, f64),
        span: Range<usize>,
        cctx: &Ctx,
    ) -> Option<f64> {
        match self.number(ct, key, cctx, "0.999") {
            Some(n) if n.value >= lo && n.value <= hi => Some(n.value),
            Some(n) => {
                self.push(
                    Problem::new(
                        Code::BadCheck,
                        n.span,
                        format!("`{key}` of `{metric}` must be within [{lo}, {hi}]"),
                    )
                    .label("out of range")
                    .help(format!("write a bound between {lo} and {hi}")),
                );
                None
            }
            None => {
                if !ct.contains_key(key) {
                    self.push(
                        Problem::new(
                            Code::BadCheck,
                            span,
                            format!("metric `{metric}` needs `{key}`"),
                        )
                        .label(format!("missing `{key}`"))
                        .help(format!("add `{key} = …` inside this check")),
                    );
                }
                None
            }
        }
    }

    /// A check's `dtype`: one candidate dtype name or an array of them
    /// (`dtype = "bf16"`, `dtype = ["f16", "bf16"]`); absent: every dtype.
    fn check_dtypes(&mut self, ct: &DeTable<'_>, cctx: &Ctx) -> Vec<crate::dtype::DType> {
        let Some(v) = ct.get("dtype") else {
            return Vec::new();
        };
        let names: Vec<Located<String>> = match v.get_ref() {
            DeValue::String(s) => vec![Located::new(s.to_string(), v.span())],
            _ => self.strings(ct, "dtype", cctx, "[\"bf16\", \"f16\"]"),
        };
        let mut out = Vec::new();
        for name in names {
            match crate::dtype::DType::parse(&name.value) {
                Some(d) if !out.contains(&d) => out.push(d),
                Some(_) => {}
                None => {
                    let all = crate::dtype::DType::ALL.map(crate::dtype::DType::name);
                    let dym = did_you_mean::phrase(&name.value, all.iter().copied());
                    self.push(
                        Problem::new(
                            Code::BadCheck,
                            name.span.clone(),
                            format!("unknown dtype `{}` in {}", name.value, cctx.name),
                        )
                        .label("not a dtype")
                        .help(format!(
                            "{}dtypes: {}",
                            dym.map(|d| format!("{d} ")).unwrap_or_default(),
                            all.join(", ")
                        )),
                    );
                }
            }
        }
        out
    }

    fn ladders(&mut self, top: &DeTable<'_>) -> Vec<Ladder> {
        let mut ladders = Vec::new();
        let mut seen: FxHashMap<String, Range<usize>> = FxHashMap::default();
        let tables = self.table_array(top, "ladder", "[[ladder]]\naxis = \"attention\"");
        for (n, (t, header)) in tables.into_iter().enumerate() {
            let name = match t.get("axis").map(|v| v.get_ref()) {
                Some(DeValue::String(s)) => format!("[[ladder]] `{s}`"),
                _ => format!("[[ladder]] #{}", n + 1),
            };
            let ctx = Ctx { name, header };
            let allowed = match self.origin {
                Origin::Catalog => keys::CATALOG_LADDER,
                Origin::Project => keys::LADDER,
            };
            self.check_keys(t, allowed, &ctx);
            self.forbid_in_catalog(t, "reached", &ctx);
            self.forbid_in_catalog(t, "witness", &ctx);
            let axis = self.string(t, "axis", &ctx, true, "\"attention\"");
            if let Some(axis) = &axis {
                self.kebab("axis", axis);
                if let Some(first) = seen.get(&axis.value) {
                    self.push(
                        Problem::new(
                            Code::DuplicateAxis,
                            axis.span.clone(),
                            format!("duplicate ladder axis `{}`", axis.value),
                        )
                        .label("second ladder on this axis")
                        .related(first.clone(), "first defined here")
                        .help("one ladder per axis: merge the rungs into the first ladder"),
                    );
                } else {
                    seen.insert(axis.value.clone(), axis.span.clone());
                }
            }
            let rungs = self.rungs(t, &ctx);
            let (reached, reached_span, witness) = self.reached(t, &ctx, &rungs);
            let next_note = self.string(t, "next-note", &ctx, false, "\"…\"");
            let checked = self.checked(t, &ctx);
            let ops = self.strings(t, "ops", &ctx, "[\"fused-attention\"]");
            if let Some(axis) = axis {
                ladders.push(Ladder {
                    axis,
                    reached,
                    reached_span,
                    witness,
                    next_note: next_note.map(|n| n.value),
                    rungs,
                    checked,
                    ops,
                    team: None,
                });
            }
        }
        ladders
    }

    /// `reached` and `witness` of a ladder, checked against its rungs.
    fn reached(
        &mut self,
        t: &DeTable<'_>,
        ctx: &Ctx,
        rungs: &[Rung],
    ) -> (Option<usize>, Option<Range<usize>>, Option<Located<String>>) {
        let reached_name = self.string(t, "reached", ctx, false, "\"FlashAttention-1\"");
        let witness = self.string(t, "witness", ctx, false, "\"fused-attention\"");

        let mut reached = None;
        if let Some(r) = &reached_name {
            reached = rungs.iter().position(|rung| rung.name == r.value);
            if reached.is_none() && !rungs.is_empty() {
                let names: Vec<&str> = rungs.iter().map(|r| r.name.as_str()).collect();
                let dym = did_you_mean::phrase(&r.value, names.iter().copied());
                self.push(
                    Problem::new(
                        Code::UnknownRung,
                        r.span.clone(),
                        format!("`reached = \"{}\"` names no rung of {}", r.value, ctx.name),
                    )
                    .label("no such rung")
                    .help(format!(
                        "{}rungs: {}",
                        dym.map(|d| format!("{d} ")).unwrap_or_default(),
                        names.join(", ")
                    )),
                );
            }
            if witness.is_none() && !t.contains_key("witness") {
                self.push(
                    Problem::new(Code::ReachedWithoutWitness, r.span.clone(), format!("{} claims `reached = \"{}\"` without a witness", ctx.name, r.value))
                        .label("claimed here")
                        .help("add `witness = \"<op-slug>\"` (an op whose `at` paths exist) or a path in the tree that backs the claim"),
                );
            }
        } else if let Some(w) = &witness {
            self.push(
                Problem::new(
                    Code::WitnessWithoutReached,
                    w.span.clone(),
                    format!("{} names a witness but no `reached` rung", ctx.name),
                )
                .label("witness of nothing")
                .help("set `reached = \"<rung name>\"`, or remove `witness`"),
            );
        }
        (reached, reached_name.map(|r| r.span), witness)
    }

    fn rungs(&mut self, t: &DeTable<'_>, ctx: &Ctx) -> Vec<Rung> {
        if !t.contains_key("rung") {
            self.push(
                Problem::new(Code::EmptyLadder, ctx.header.clone(), format!("{} has no rungs", ctx.name))
                    .label("no [[ladder.rung]] follows")
                    .help("add the dated milestones, lowest first:\n[[ladder.rung]]\nname = \"FlashAttention-1\"\nyear = 2022\nsummary = \"IO-aware tiling + online softmax\""),
            );
            return Vec::new();
        }
        let mut rungs = Vec::new();
        let mut seen: FxHashMap<String, Range<usize>> = FxHashMap::default();
        let mut prev_year = None;
        for (n, (rt, header)) in self
            .table_array(t, "rung", "[[ladder.rung]]\nname = \"…\"")
            .into_iter()
            .enumerate()
        {
            let rctx = Ctx {
                name: format!("rung L{} of {}", n + 1, ctx.name),
                header,
            };
            self.check_keys(rt, keys::RUNG, &rctx);
            let name = self.string(rt, "name", &rctx, true, "\"FlashAttention-2\"");
            let year = self.rung_year(rt, &rctx);
            let summary = self.string(rt, "summary", &rctx, true, "\"better warp partitioning\"");
            let cite = self.string(rt, "cite", &rctx, false, "\"arXiv:2307.08691\"");
            let link = self.link(rt, "link", &rctx);
            let order_note = self.string(rt, "order-note", &rctx, false, "\"…\"");
            if let Some(year) = &year {
                self.rung_order(prev_year, year, order_note.as_ref(), &rctx);
                prev_year = Some(year.value);
            }
            if let Some(name) = &name {
                if let Some(first) = seen.get(&name.value) {
                    self.push(
                        Problem::new(
                            Code::DuplicateRung,
                            name.span.clone(),
                            format!("duplicate rung `{}` in {}", name.value, ctx.name),
                        )
                        .label("second rung with this name")
                        .related(first.clone(), "first defined here")
                        .help("rung names identify the rung `reached` points at: make them unique"),
                    );
                } else {
                    seen.insert(name.value.clone(), name.span.clone());
                }
            }
            if let (Some(name), Some(year), Some(summary)) = (name, year, summary) {
                rungs.push(Rung {
                    name: name.value,
                    year: year.value,
                    summary: summary.value,
                    cite: cite.map(|c| c.value),
                    link: link.map(|l| l.value),
                    order_note: order_note.map(|n| n.value),
                });
            }
        }
        rungs
    }
    /// A rung's `year`: required, and plausible.
    fn rung_year(&mut self, rt: &DeTable<'_>, rctx: &Ctx) -> Option<Located<u16>> {
        let year = self.integer(rt, "year", rctx, "2023");
        if year.is_none() && !rt.contains_key("year") {
            self.missing("year", rctx, "2023");
        }
        let year = year?;
        if (1900..=2100).contains(&year.value) {
            return Some(Located::new(year.value as u16, year.span));
        }
        self.push(
            Problem::new(
                Code::BadNumber,
                year.span,
                format!(
                    "`year = {}` in {} is not a plausible year",
                    year.value, rctx.name
                ),
            )
            .label("out of range")
            .help("the year of first public appearance (code, blog or paper), e.g. `year = 2023`"),
        );
        None
    }

    /// In a catalog, rungs go in the order the field moved: a rung older
    /// than the one below it says why in `order-note`, and an `order-note`
    /// on a rung in date order is a stale justification.
    fn rung_order(
        &mut self,
        prev_year: Option<u16>,
        year: &Located<u16>,
        order_note: Option<&Located<String>>,
        rctx: &Ctx,
    ) {
        if self.origin != Origin::Catalog {
            return;
        }
        let older = prev_year.is_some_and(|prev| year.value < prev);
        match (older, order_note) {
            (true, None) => self.push(
                Problem::new(
                    Code::RungOrder,
                    year.span.clone(),
                    format!(
                        "{} ({}) is older than the rung below it ({})",
                        rctx.name,
                        year.value,
                        prev_year.unwrap_or_default()
                    ),
                )
                .label("out of date order")
                .help("a ladder climbs in the order the field moved: move this rung below the newer one, or say why it sits here in `order-note = \"…\"`"),
            ),
            (false, Some(note)) => self.push(
                Problem::new(
                    Code::RungOrder,
                    note.span.clone(),
                    format!("`order-note` on {}, which is not older than the rung below it", rctx.name),
                )
                .label("nothing to justify")
                .help("remove `order-note`: it is only for a rung placed above a newer one"),
            ),
            _ => {}
        }
    }
}

trait IfEmpty {
    fn if_empty(self, fallback: &str) -> String;
}

impl IfEmpty for String {
    fn if_empty(self, fallback: &str) -> String {
        if self.is_empty() {
            fallback.to_owned()
        } else {
            self
        }
    }
}

pub(crate) fn is_http_url(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    match rest {
        Some(rest) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            !host.is_empty() && !text.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

pub(crate) fn is_kebab(text: &str) -> bool {
    !text.is_empty()
        && text.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

fn to_kebab(text: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('-') && !out.is_empty() {
                out.push('-');
            }
            prev_lower = false;
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// `path[:LINE][#symbol]`.
pub(crate) fn parse_anchor(text: &str) -> Result<Anchor, String> {
    let (rest, symbol) = match text.rsplit_once('#') {
        Some((rest, sym)) => {
            if sym.is_empty() || sym.chars().any(char::is_whitespace) {
                return Err("the #symbol must be a non-empty name without spaces".into());
            }
            (rest, Some(sym.to_owned()))
        }
        None => (text, None),
    };
    let (path, line) = match rest.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) => {
            match line.parse::<u32>() {
                Ok(n) if n >= 1 => (path, Some(n)),
                _ => return Err(format!("line `{line}` must be a number from 1")),
            }
        }
        _ => (rest, None),
    };
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.starts_with('/') {
        return Err("paths are relative to the matrix root; drop the leading `/`".into());
    }
    if path.contains('\\') {
        return Err("use `/` as the path separator".into());
    }
    Ok(Anchor {
        path: path.to_owned(),
        line,
        symbol,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_parse_path_line_and_symbol() {
        let a = parse_anchor("internal/compute/cuda.go:1101#AWQMatMul").unwrap();
        assert_eq!(a.path, "internal/compute/cuda.go");
        assert_eq!(a.line, Some(1101));
        assert_eq!(a.symbol.as_deref(), Some("AWQMatMul"));
        let a = parse_anchor("internal/compute/cuda_kernels.cu#k_awq_gemv").unwrap();
        assert_eq!((a.line, a.symbol.as_deref()), (None, Some("k_awq_gemv")));
        assert_eq!(
            parse_anchor("internal/radixkv").unwrap().path,
            "internal/radixkv"
        );
        assert!(parse_anchor("/abs/x.go").is_err());
        assert!(parse_anchor("x.go:0").is_err());
        assert!(parse_anchor("x.go#").is_err());
        assert!(parse_anchor(":12").is_err());
    }

    #[test]
    fn kebab_rules() {
        assert!(is_kebab("awq-int4-gemm"));
        assert!(!is_kebab("AWQ_int4"));
        assert!(!is_kebab("a--b"));
        assert!(!is_kebab("-a"));
        assert_eq!(to_kebab("AWQ_int4 Gemm"), "awq-int4-gemm");
        assert_eq!(to_kebab("fusedAttention"), "fused-attention");
    }

    #[test]
    fn links_must_be_http() {
        assert!(is_http_url("https://github.com/IST-DASLab/marlin"));
        assert!(is_http_url("http://example.org"));
        assert!(!is_http_url("github.com/x"));
        assert!(!is_http_url("https://"));
        assert!(!is_http_url("ftp://x.org"));
        assert!(!is_http_url("https://x.org/a b"));
    }
}
