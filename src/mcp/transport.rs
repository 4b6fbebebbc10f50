//! The stdio transport: newline-delimited JSON-RPC, one message a line, the
//! only writer of the server's stdout. Unlike rmcp's own line transport it
//! answers what it cannot deliver, as JSON-RPC 2.0 asks: a line that is not
//! JSON gets a parse error (-32700), JSON that is not a message and a line
//! over the size cap get an invalid-request error (-32600), each with
//! `id: null` (or the request's id when it can be read), and reading goes on.
//! A notification or response before `initialize` is dropped instead of
//! ending the session. EOF ends it.
//!
//! `receive` is cancellation-safe: rmcp's service loop selects over it and
//! drops the future when another event wins, so every byte read and every
//! error reply not yet written lives in the transport, never in the future,
//! and the next `receive` picks up where the dropped one stopped.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use super::Log;

/// The largest request line accepted (1 MiB: thousands of paths fit).
pub const MAX_LINE: usize = 1 << 20;

/// An error reply on its way out.
type Reply = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Newline-delimited JSON-RPC over a reader and a writer.
pub struct LineTransport<R, W> {
    read: R,
    /// The line being read; kept across a dropped `receive`.
    line: Vec<u8>,
    /// The line being read is over the cap: its bytes are skipped.
    oversized: bool,
    /// `line` holds a whole line already handed on: clear it first.
    line_done: bool,
    /// An error reply a dropped `receive` had not finished writing.
    pending: Option<Reply>,
    write: Arc<Mutex<W>>,
    initialized: bool,
    log: Log,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W, log: Log) -> Self {
        LineTransport {
            read,
            line: Vec::new(),
            oversized: false,
            line_done: false,
            pending: None,
            write: Arc::new(Mutex::new(write)),
            initialized: false,
            log,
        }
    }

    /// Read one line into `self.line`, never holding more than `MAX_LINE`
    /// bytes of it. `None` at EOF (or a read error). Cancellation-safe:
    /// the only await is `fill_buf`, and what was consumed before it is in
    /// `self.line`, where the next call goes on.
    async fn read_line(&mut self) -> Option<Line> {
        if self.line_done {
            self.line.clear();
            self.oversized = false;
            self.line_done = false;
        }
        loop {
            let available = match self.read.fill_buf().await {
                Ok(b) => b,
                Err(e) => {
                    (self.log)(&format!("stdin: {e}"));
                    return None;
                }
            };
            if available.is_empty() {
                // EOF; an unterminated last line is still a line.
                let line = match (self.oversized, self.line.is_empty()) {
                    (true, _) => Line::Oversized,
                    (false, true) => return None,
                    (false, false) => Line::Text,
                };
                self.line_done = true;
                return Some(line);
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            if !self.oversized {
                if self.line.len() + take > MAX_LINE + 1 {
                    self.oversized = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(&available[..take]);
                }
            }
            self.read.consume(take);
            if newline.is_some() {
                self.line_done = true;
                return Some(if self.oversized {
                    Line::Oversized
                } else {
                    Line::Text
                });
            }
        }
    }

    /// Queue an error reply; the next `receive` writes it before reading on.
    fn queue_reply(&mut self, value: Value) {
        self.pending = Some(Box::pin(self.reply(value)));
    }

    /// Write one JSON value as a line.
    fn reply(&self, value: Value) -> impl std::future::Future<Output = ()> + Send + 'static {
        let write = self.write.clone();
        let log = self.log.clone();
        async move {
            let mut bytes = value.to_string().into_bytes();
            bytes.push(b'\n');
            let mut w = write.lock().await;
            if w.write_all(&bytes).await.is_err() || w.flush().await.is_err() {
                log("stdout closed");
            }
        }
    }
}

enum Line {
    Text,
    Oversized,
}

/// A JSON-RPC error line.
fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The id of a JSON value that looks like a request, else null.
fn id_of(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut w = write.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(reply) = self.pending.as_mut() {
                reply.await;
                self.pending = None;
            }
            match self.read_line().await? {
                Line::Oversized => {
                    (self.log)("dropped a request over the size cap");
                    self.queue_reply(error(
                        Value::Null,
                        -32600,
                        format!("request too large: the limit is {MAX_LINE} bytes a message"),
                    ));
                    continue;
                }
                Line::Text => {}
            }
            let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed: Result<ClientJsonRpcMessage, _> = serde_json::from_slice(text);
            match parsed {
                Ok(msg) => {
                    if !self.initialized {
                        match &msg {
                            JsonRpcMessage::Request(r)
                                if matches!(r.request, ClientRequest::InitializeRequest(_)) =>
                            {
                                self.initialized = true;
                            }
                            JsonRpcMessage::Request(_) => {}
                            _ => {
                                (self.log)("dropped a notification sent before initialize");
                                continue;
                            }
                        }
                    }
                    (self.log)(&format!("<- {}", summary(text)));
                    return Some(msg);
                }
                Err(e) => match serde_json::from_slice::<Value>(text) {
                    Err(_) => {
                        (self.log)(&format!("parse error: {e}"));
                        self.queue_reply(error(
                            Value::Null,
                            -32700,
                            format!("parse error: not JSON ({e})"),
                        ));
                    }
                    // A notification gets no answer, even a malformed one.
                    Ok(v) if v.get("method").is_some() && v.get("id").is_none() => {
                        (self.log)(&format!("dropped a malformed notification: {e}"));
                    }
                    Ok(v) => {
                        (self.log)(&format!("invalid request: {e}"));
                        self.queue_reply(error(
                            id_of(&v),
                            -32600,
                            format!("invalid request: not a JSON-RPC 2.0 MCP message ({e})"),
                        ));
                    }
                },
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

/// The first bytes of a message, for `--verbose`.
fn summary(text: &[u8]) -> String {
    let s = String::from_utf8_lossy(&text[..text.len().min(160)]);
    s.into_owned()
}
