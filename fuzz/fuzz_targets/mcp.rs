//! The MCP server's stdio transport (`src/mcp/transport.rs`, compiled in
//! here as it is in the binary): every message a client could send, read
//! until EOF, with the replies written to a sink.
#![no_main]

use std::sync::Arc;

pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

#[path = "../../src/mcp/transport.rs"]
#[allow(dead_code)]
mod transport;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use rmcp::transport::Transport;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let log: Log = Arc::new(|_| {});
        let mut t = transport::LineTransport::new(data, tokio::io::sink(), log);
        while t.receive().await.is_some() {}
    });
});
