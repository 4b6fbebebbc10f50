//! The resources: the matrix file as written, and the op and milestone
//! tables as `sota render` writes them. Each read resolves a fresh context,
//! so an edited matrix is served as it is now.

use std::sync::Arc;

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use rmcp::ErrorData as McpError;

use sota::matrix::cache::Cache;
use sota::output::json;
use sota::surface::render;
use sota::{catalog, Context, Failure, Inputs};

pub const MATRIX: &str = "sota://matrix";
pub const TABLE: &str = "sota://matrix/table";
pub const MILESTONES: &str = "sota://milestones/table";

/// What `resources/list` shows.
pub fn list(inputs: Inputs, cache: &Arc<Cache>) -> Vec<Resource> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let file = match ctx.source.path() {
        Some(p) => ctx.shown(p),
        None => catalog::PSEUDO_PATH.to_owned(),
    };
    vec![
        Resource::new(MATRIX, "matrix")
            .with_title(format!("The prior-art matrix ({file})"))
            .with_description(
                "The matrix file as written (TOML): every kernel op, the files that implement it, its production reference, route and oracle. The built-in catalog when the repository has no sota.toml.",
            )
            .with_mime_type("application/toml"),
        Resource::new(TABLE, "matrix-table")
            .with_title("The op table (Markdown)")
            .with_description("One row per op: slug, title, the prior art, route, files, as `sota render` writes it.")
            .with_mime_type("text/markdown"),
        Resource::new(MILESTONES, "milestones-table")
            .with_title("The milestone ladders (Markdown)")
            .with_description("Every ladder with its reached and next rung, as `sota render` writes it.")
            .with_mime_type("text/markdown"),
    ]
}

/// `resources/read`.
pub fn read(inputs: Inputs, cache: &Arc<Cache>, uri: &str) -> Result<ReadResourceResult, McpError> {
    let ctx = Context::resolve_cached(inputs, cache.clone());
    let (text, mime) = match uri {
        MATRIX => (matrix_text(&ctx)?, "application/toml"),
        TABLE => (render::matrix_table(loaded(&ctx)?), "text/markdown"),
        MILESTONES => (render::milestones_table(loaded(&ctx)?), "text/markdown"),
        other => {
            return Err(McpError::resource_not_found(
                format!("no resource `{other}`; the resources are {MATRIX}, {TABLE}, {MILESTONES}"),
                None,
            ))
        }
    };
    let contents = match ResourceContents::text(text, uri) {
        ResourceContents::TextResourceContents {
            uri, text, meta, ..
        } => ResourceContents::TextResourceContents {
            uri,
            mime_type: Some(mime.to_owned()),
            text,
            meta,
        },
        other => other,
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// The matrix file's text, even when it does not load (so an agent can read
/// what to fix); the catalog's when the catalog answers. Read under the
/// CLI's rules ([`Context::matrix_bytes`]): a discovered `sota.toml` that
/// leads outside the repository, a FIFO or device, or a file over the size
/// cap is refused, never served.
fn matrix_text(ctx: &Context) -> Result<String, McpError> {
    match ctx.matrix_bytes() {
        None => Ok(catalog::TEXT.to_owned()),
        Some(Err(f)) => Err(failure(&f)),
        Some(Ok(bytes)) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
    }
}

fn loaded(ctx: &Context) -> Result<&sota::Matrix, McpError> {
    ctx.matrix().map_err(|f| failure(&f))
}

/// A matrix that did not load, as a protocol error carrying the
/// `sota.error/v1` payload (located diagnostics) in its data.
fn failure(f: &Failure) -> McpError {
    let payload = json::error(f);
    let data = serde_json::to_value(&payload).ok();
    McpError::internal_error(
        format!(
            "{}\n{}",
            payload.message,
            super::tools::problems_text(&payload.problems)
        ),
        data,
    )
}
