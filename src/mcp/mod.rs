//! `sota mcp`: a Model Context Protocol server on stdio (rmcp, the official
//! Rust SDK) whose tools and resources are sota's read-only surfaces. It is
//! a front end like `cli`: for each call it takes fresh [`Inputs`] from its
//! host, resolves a [`Context`](sota::Context) and makes the same library
//! calls, and renders with the same output functions, as the CLI. The host
//! (`cli::mcp`) owns the process state: the working directory, the clock,
//! stdin and stdout, stderr for `--verbose` logs. Nothing here writes a
//! file, and only the transport writes to the protocol stream.

mod resources;
pub(crate) mod tools;
mod transport;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use tokio::io::{AsyncBufRead, AsyncWrite};

use sota::matrix::cache::Cache;
use sota::Inputs;

/// Where `--verbose` logs go (nowhere without it).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// What the host process gives the server.
pub struct Host {
    /// The inputs for one call, read afresh (today's date moves on in a
    /// long session).
    pub inputs: Box<dyn Fn() -> Inputs + Send + Sync>,
    /// The CLI's subcommand names, for the same "did you mean the command"
    /// hint a lookup gives on the command line.
    pub commands: Vec<String>,
    pub log: Log,
}

const INSTRUCTIONS: &str = "sota answers from this repository's prior-art matrix (sota.toml): which kernel ops exist, the production reference to read before writing one, and the `Prior-art:` trailer a kernel commit needs. Before editing or creating a kernel file, call ops_for_paths with the paths; to learn about an op, file or topic, call lookup; for art the repository does not map yet, catalog_search; to place a file in the matrix, suggest. Everything is read-only.";

/// Serve one MCP session on `read`/`write` until EOF.
pub async fn serve<R, W>(host: Host, read: R, write: W) -> Result<(), std::io::Error>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let log = host.log.clone();
    let server = Server {
        host: Arc::new(host),
        cache: Arc::new(Cache::new()),
    };
    let transport = transport::LineTransport::new(read, write, log.clone());
    match server.serve(transport).await {
        Ok(running) => {
            let reason = running.waiting().await.map_err(std::io::Error::other)?;
            log(&format!("session ended: {reason:?}"));
            Ok(())
        }
        // EOF before `initialize` is a client that left: not an error.
        Err(e) => {
            log(&format!("no session: {e}"));
            Ok(())
        }
    }
}

#[derive(Clone)]
struct Server {
    host: Arc<Host>,
    /// The matrix, reused while its file's bytes are unchanged.
    cache: Arc<Cache>,
}

impl Server {
    fn inputs(&self) -> Inputs {
        (self.host.inputs)()
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("sota", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// Load the matrix into the cache while the client reads the tool
    /// list, so the first call is as fast as the rest (a broken matrix is
    /// reported by the call that meets it, not here).
    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        let started = std::time::Instant::now();
        let ctx = sota::Context::resolve_cached(self.inputs(), self.cache.clone());
        let loaded = ctx.matrix().is_ok();
        (self.host.log)(&format!(
            "matrix {} in {:.2} ms",
            if loaded { "loaded" } else { "did not load" },
            started.elapsed().as_secs_f64() * 1e3
        ));
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let started = std::time::Instant::now();
        let commands: Vec<&str> = self.host.commands.iter().map(String::as_str).collect();
        let result = tools::call(
            self.inputs(),
            &self.cache,
            &commands,
            &request.name,
            request.arguments,
        );
        (self.host.log)(&format!(
            "tools/call {} in {:.2} ms{}",
            request.name,
            started.elapsed().as_secs_f64() * 1e3,
            match &result {
                Ok(r) if r.is_error == Some(true) => " (tool error)",
                Ok(_) => "",
                Err(_) => " (protocol error)",
            }
        ));
        result.map(Into::into)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list(
            self.inputs(),
            &self.cache,
        )))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        resources::read(self.inputs(), &self.cache, &request.uri).map(Into::into)
    }
}
