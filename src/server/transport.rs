//! The stdio transport: newline-delimited JSON-RPC, one writer.
//!
//! rmcp's own line transport (`AsyncRwTransport`, 3.11) drops a line it cannot
//! decode, without a reply and logged only at debug. A request whose text holds
//! a lone UTF-16 surrogate escape (`"\ud83c"`, what JavaScript emits for a
//! string cut mid-emoji) or a byte that is not UTF-8 is such a line, so the
//! client waited out its whole timeout. This transport answers every line that
//! carries a request id: a JSON-RPC error that says what was wrong, with the
//! request's id recovered by a lenient second parse. Lines that decode are
//! handed to rmcp unchanged.
//!
//! All output goes through one mutex-guarded writer, a whole line at a time,
//! so replies never interleave.

use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// Longest line read (as rmcp's default): longer lines are dropped and logged.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Longest part of the offending text quoted back in an error.
const QUOTE_CHARS: usize = 40;

/// JSON-RPC "Parse error".
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request".
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Invalid params".
const INVALID_PARAMS: i64 = -32602;

type Writer<W> = Arc<Mutex<Option<W>>>;

/// Newline-delimited JSON-RPC over a reader and a writer (stdin and stdout).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    write: Writer<W>,
    /// Replies the transport itself owes (to lines rmcp cannot decode, to
    /// a malformed `initialize`), oldest first, each with its `\n`. A reply leaves the queue
    /// only once written: rmcp drops a `receive` future whenever it has
    /// something else to do, and a reply written inside it was lost when
    /// that happened while it waited for the writer (98 of 200 replies to
    /// alternating good and bad pings written at once; probe 2026-12-06).
    replies: std::collections::VecDeque<Vec<u8>>,
    /// Whether a request has been handed to rmcp: before it, rmcp's server
    /// ends the session on anything but a request (see `receive`).
    started: bool,
}

impl LineTransport<tokio::io::Stdin, tokio::io::Stdout> {
    /// The process's stdin and stdout: with the CLI's output writer, one of
    /// the two places allowed to write to stdout (clippy.toml).
    #[allow(clippy::disallowed_methods)]
    pub fn stdio() -> Self {
        LineTransport::new(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading requests from `read` and writing replies to `write`.
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(Some(write))),
            replies: std::collections::VecDeque::new(),
            started: false,
        }
    }

    /// Writes the queued replies, oldest first. Cancel-safe: a reply leaves
    /// the queue once its bytes are handed to the writer (`write_all` of a
    /// small line completes in one poll on tokio's stdout, which writes it
    /// on a blocking thread even if the flush is then dropped). False once
    /// the writer is closed or fails.
    async fn write_replies(&mut self) -> bool {
        while !self.replies.is_empty() {
            let mut guard = self.write.lock().await;
            let Some(w) = guard.as_mut() else {
                return false;
            };
            if w.write_all(&self.replies[0]).await.is_err() {
                return false;
            }
            self.replies.pop_front();
            if w.flush().await.is_err() {
                return false;
            }
        }
        true
    }

    /// Queues a reply of the transport's own, as the line it is written as.
    fn reply(&mut self, reply: &Value) {
        let mut line = serde_json::to_vec(reply).unwrap_or_default();
        line.push(b'\n');
        self.replies.push_back(line);
    }

    /// Whether rmcp may have `text` (a line that decoded). Before the first
    /// request, rmcp's server reads a message that is not a request as the
    /// end of the session (a notification or a stray response before
    /// `initialize` made `serve` exit 2 without answering the `initialize`
    /// after it): those are logged and dropped. An `initialize` without the
    /// parameters it needs gets an error saying which, where rmcp took it for
    /// a request of the 2026-07-28 inline lifecycle and asked for `_meta`.
    fn admit(&mut self, text: &[u8]) -> bool {
        let Ok(v) = serde_json::from_slice::<Value>(text) else {
            return true;
        };
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            if !self.started {
                tracing::warn!("dropped a response that came before any request");
            }
            return self.started;
        };
        let Some(id) = request_id(&v) else {
            if !self.started {
                tracing::warn!(
                    "dropped the notification {} that came before `initialize`",
                    quote(method, QUOTE_CHARS)
                );
            }
            return self.started;
        };
        if method == "initialize" {
            let params = v.get("params");
            let missing: Vec<&str> = ["protocolVersion", "capabilities", "clientInfo"]
                .into_iter()
                .filter(|k| params.and_then(|p| p.get(k)).is_none())
                .collect();
            if !missing.is_empty() {
                self.reply(&error_reply(
                    id,
                    INVALID_PARAMS,
                    format!(
                        "`initialize` needs params with {}: e.g. {{\"protocolVersion\": \"2025-06-18\", \"capabilities\": {{}}, \"clientInfo\": {{\"name\": \"my-client\", \"version\": \"1.0\"}}}}",
                        missing.join(", ")
                    ),
                ));
                return false;
            }
        }
        true
    }

    /// Reads up to the next `\n` into `self.line`. Cancel-safe: a read dropped
    /// half-way leaves its bytes in `self.line` and the next call goes on.
    /// `Ok(false)` at end of input; `Ok(true)` with an empty `self.line` for
    /// a line that was too long and dropped.
    async fn read_line(&mut self) -> std::io::Result<bool> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(false);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if !self.discarding {
                if self.line.len() + take > MAX_LINE_BYTES {
                    self.line.clear();
                    self.discarding = true;
                    tracing::error!("a message longer than {MAX_LINE_BYTES} bytes was dropped");
                } else {
                    self.line.extend_from_slice(&available[..take]);
                }
            }
            self.read.consume(take);
            if newline.is_some() {
                if self.discarding {
                    self.discarding = false;
                    self.line.clear();
                }
                return Ok(true);
            }
        }
    }

    async fn write_line(write: &Writer<W>, mut bytes: Vec<u8>) -> std::io::Result<()> {
        bytes.push(b'\n');
        let mut guard = write.lock().await;
        let Some(w) = guard.as_mut() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "transport closed",
            ));
        };
        w.write_all(&bytes).await?;
        w.flush().await
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let item = explain_error(item);
        async move {
            let bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            Self::write_line(&write, bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.write_replies().await {
                return None;
            }
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => {
                    self.write_replies().await;
                    return None;
                }
                Err(e) => {
                    tracing::error!("cannot read stdin: {e}");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let mut text: &[u8] = line.strip_suffix(b"\n").unwrap_or(&line);
            text = text.strip_suffix(b"\r").unwrap_or(text);
            text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(msg) => {
                    let checked = !self.started || names_initialize(text);
                    if checked && !self.admit(text) {
                        continue;
                    }
                    self.started = true;
                    return Some(msg);
                }
                Err(e) => {
                    if let Some(reply) = reply_to_undecodable(text, &e) {
                        self.reply(&reply);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

/// Whether a line holds the string `"initialize"` (a cheap test before
/// [`LineTransport::admit`] parses it).
fn names_initialize(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"\"initialize\"").is_some()
}

/// What rmcp says when a request asks for a method the server lacks (its
/// bare name, `resources/list`), and when a request comes before
/// `initialize` without the per-request `_meta` of the 2026-07-28 inline
/// lifecycle: neither says how to go on (probe 2026-12-06, defect 10).
/// The reply keeps its id and code, with a message that does.
fn explain_error(mut item: TxJsonRpcMessage<RoleServer>) -> TxJsonRpcMessage<RoleServer> {
    use rmcp::model::{ErrorCode, JsonRpcMessage};
    let JsonRpcMessage::Error(reply) = &mut item else {
        return item;
    };
    let e = &mut reply.error;
    let message = e.message.as_ref();
    if e.code == ErrorCode::METHOD_NOT_FOUND {
        // rmcp writes the bare method name, or "method not found: NAME" for
        // a method of no MCP request type.
        let method = message
            .strip_prefix("method not found: ")
            .unwrap_or(message);
        let shown = serde_json::to_string(&quote(method, QUOTE_CHARS)).unwrap_or_default();
        e.message = if method.starts_with("notifications/") {
            format!(
                "{shown} is a notification: send it without an `id` (a request with that method \
                 has no reply to give)"
            )
        } else {
            format!(
                "method not found: {shown}. ctxloop serves tools (`tools/list`, `tools/call`) \
                 and one prompt (`prompts/list`, `prompts/get`); it has no resources, \
                 completions or log levels"
            )
        }
        .into();
    } else if e.code == ErrorCode::INVALID_PARAMS && message.starts_with("request _meta is missing")
    {
        e.message = format!(
            "{message}. Send `initialize` and wait for its reply (then send the \
             `notifications/initialized` notification) before other requests, as every MCP \
             client before protocol 2026-07-28 does; a request sent without that handshake \
             must carry those fields in its `params._meta`"
        )
        .into();
    }
    item
}

/// The error reply to a line rmcp cannot decode, or `None` when there is no
/// one to answer: a notification (no `id`; JSON-RPC forbids replying), or text
/// that is not JSON at all (no id to answer; replying to garbage can start an
/// echo storm with a peer that echoes, so it is only logged, as rmcp does).
fn reply_to_undecodable(text: &[u8], e: &serde_json::Error) -> Option<Value> {
    let (problem, lenient) = match std::str::from_utf8(text) {
        Err(bad) => {
            let at = bad.valid_up_to();
            (
                format!(
                    "the message is not valid UTF-8 (byte 0x{:02x} at byte offset {at}): send JSON text encoded as UTF-8",
                    text[at]
                ),
                String::from_utf8_lossy(text).into_owned(),
            )
        }
        Ok(s) => match lone_surrogate(s) {
            Some((at, escape)) => (
                format!(
                    "the message holds a lone UTF-16 surrogate escape {escape} (at byte offset {at}), which is not a Unicode character: a string was probably cut in the middle of a character (e.g. an emoji); drop or complete the half character"
                ),
                replace_lone_surrogates(s),
            ),
            None => {
                match serde_json::from_str::<Value>(s) {
                    // A batch (JSON-RPC 2.0; MCP 2025-03-26 had them, 2025-06-18
                    // dropped them): each request gets its own error, in one
                    // batch reply, so a client waiting on their ids does not hang.
                    Ok(Value::Array(items)) if !items.is_empty() => {
                        let replies: Vec<Value> = items
                            .iter()
                            .filter_map(request_id)
                            .map(|id| {
                                error_reply(
                                    id,
                                    INVALID_REQUEST,
                                    "Invalid Request: batches are not supported; send each request as a line of its own".to_string(),
                                )
                            })
                            .collect();
                        return (!replies.is_empty()).then_some(Value::Array(replies));
                    }
                    // Well-formed JSON that is not a JSON-RPC message rmcp knows.
                    Ok(v) => {
                        let id = request_id(&v)?;
                        let problem = bad_id(&v)
                            .unwrap_or_else(|| format!("Invalid Request: {}", quote_error(e)));
                        return Some(error_reply(id, INVALID_REQUEST, problem));
                    }
                    Err(_) => {
                        tracing::warn!(
                            "ignoring a line that is not JSON: {}",
                            quote(s, QUOTE_CHARS)
                        );
                        return None;
                    }
                }
            }
        },
    };
    let id = match serde_json::from_str::<Value>(&lenient) {
        Ok(v) => request_id(&v)?,
        // Broken beyond the bad text: answer with a null id, as JSON-RPC asks
        // for a parse error whose id cannot be read.
        Err(_) => Value::Null,
    };
    tracing::warn!("answered an undecodable request: {problem}");
    Some(error_reply(
        id,
        PARSE_ERROR,
        format!("Parse error: {problem}"),
    ))
}

/// The `id` of a request (a number or a string); `None` for a notification.
fn request_id(v: &Value) -> Option<Value> {
    match v.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id.clone()),
        None if v.get("method").is_some() => None,
        _ => Some(Value::Null),
    }
}

/// Why a message's `id` is no MCP request id, if it is not: MCP asks for a
/// string or an integer, never null (JSON-RPC only discourages null); a
/// request with `"id": null` got no reply at all, as if it were a
/// notification (newcomer probe of 2026-12-06).
fn bad_id(v: &Value) -> Option<String> {
    let id = v.get("id")?;
    let whole = id.as_i64().is_some() || id.as_u64().is_some();
    (!(whole || id.is_string())).then(|| {
        format!(
            "Invalid Request: `id` must be a string or an integer (MCP forbids null), not {}",
            quote(&id.to_string(), QUOTE_CHARS)
        )
    })
}

fn error_reply(id: Value, code: i64, message: String) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// serde's message, with any echoed value cut short.
fn quote_error(e: &serde_json::Error) -> String {
    quote(&e.to_string(), 300)
}

/// `s` cut to `max` characters, marked when cut.
pub(crate) fn quote(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

/// The `\uXXXX` escapes of JSON text, as (byte offset, code unit, escape text).
fn unicode_escapes(s: &str) -> impl Iterator<Item = (usize, u16)> + '_ {
    let b = s.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    std::iter::from_fn(move || {
        while i < b.len() {
            match b[i] {
                b'"' => in_string = !in_string,
                b'\\' if in_string => {
                    if b.get(i + 1) == Some(&b'u') {
                        let unit = s
                            .get(i + 2..i + 6)
                            .and_then(|h| u16::from_str_radix(h, 16).ok());
                        let at = i;
                        i += 2;
                        if let Some(unit) = unit {
                            i += 4;
                            return Some((at, unit));
                        }
                        continue;
                    }
                    i += 1; // skip the escaped character (`\"`, `\\`, ...)
                }
                _ => {}
            }
            i += 1;
        }
        None
    })
}

/// The first surrogate escape not part of a high-low pair, as (byte offset, text).
fn lone_surrogate(s: &str) -> Option<(usize, String)> {
    lone_surrogates(s)
        .into_iter()
        .next()
        .map(|at| (at, s[at..at + 6].to_string()))
}

fn lone_surrogates(s: &str) -> Vec<usize> {
    let escapes: Vec<(usize, u16)> = unicode_escapes(s).collect();
    let mut lone = Vec::new();
    let mut k = 0;
    while k < escapes.len() {
        let (at, unit) = escapes[k];
        if (0xD800..0xDC00).contains(&unit) {
            let paired = escapes
                .get(k + 1)
                .is_some_and(|&(next, low)| next == at + 6 && (0xDC00..0xE000).contains(&low));
            if paired {
                k += 2;
                continue;
            }
            lone.push(at);
        } else if (0xDC00..0xE000).contains(&unit) {
            lone.push(at);
        }
        k += 1;
    }
    lone
}

/// `s` with each lone surrogate escape replaced by `\ufffd`, so it parses.
fn replace_lone_surrogates(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for at in lone_surrogates(s) {
        out.push_str(&s[last..at]);
        out.push_str("\\ufffd");
        last = at + 6;
    }
    out.push_str(&s[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_method_or_a_request_before_initialize_is_told_how_to_go_on() {
        use rmcp::model::{
            ErrorData, JsonRpcError, JsonRpcMessage, ListResourcesRequestMethod, NumberOrString,
        };
        let explained = |e: ErrorData| -> Value {
            let item = JsonRpcMessage::Error(JsonRpcError::new(Some(NumberOrString::Number(7)), e));
            serde_json::to_value(explain_error(item)).unwrap()
        };
        let r = explained(ErrorData::method_not_found::<ListResourcesRequestMethod>());
        assert_eq!(r["id"], 7);
        assert_eq!(r["error"]["code"], -32601);
        let m = r["error"]["message"].as_str().unwrap();
        assert!(m.starts_with("method not found: \"resources/list\""), "{m}");
        assert!(
            m.contains("`tools/list`") && m.contains("no resources"),
            "{m}"
        );
        let r = explained(ErrorData::invalid_params(
            "request _meta is missing or has malformed required fields: a, b",
            None,
        ));
        assert_eq!(r["error"]["code"], -32602);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Send `initialize` and wait for its reply"),
            "{r}"
        );
        // Other errors are left as they are.
        let r = explained(ErrorData::invalid_params("`limit` must be 1-200", None));
        assert_eq!(r["error"]["message"], "`limit` must be 1-200");
    }

    fn reply(line: &[u8]) -> Option<Value> {
        let e = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line).unwrap_err();
        reply_to_undecodable(line, &e)
    }

    #[test]
    fn a_lone_surrogate_is_answered_with_the_request_id() {
        let r = reply(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve","arguments":{"task":"fix \ud83c bug"}}}"#).unwrap();
        assert_eq!(r["id"], 7);
        assert_eq!(r["error"]["code"], PARSE_ERROR);
        let m = r["error"]["message"].as_str().unwrap();
        assert!(m.contains("lone UTF-16 surrogate escape \\ud83c"), "{m}");
    }

    #[test]
    fn paired_surrogates_and_escaped_backslashes_are_not_lone() {
        assert_eq!(lone_surrogate(r#"{"a":"\ud83c\udf6a"}"#), None);
        assert_eq!(lone_surrogate(r#"{"a":"\\ud83c"}"#), None);
        assert_eq!(lone_surrogate(r#"{"a":"x\udf6a"}"#).unwrap().0, 7);
        assert_eq!(
            replace_lone_surrogates(r#"{"a":"\ud83c \ud83c\udf6a"}"#),
            r#"{"a":"\ufffd \ud83c\udf6a"}"#
        );
    }

    #[test]
    fn invalid_utf8_is_answered_and_names_the_byte() {
        let r = reply(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"retrieve\",\"arguments\":{\"task\":\"fix \xff bug\"}}}").unwrap();
        assert_eq!(r["id"], "a");
        let m = r["error"]["message"].as_str().unwrap();
        assert!(m.contains("not valid UTF-8 (byte 0xff"), "{m}");
    }

    #[test]
    fn each_request_of_a_batch_gets_its_own_error() {
        let r = reply(br#"[{"jsonrpc":"2.0","id":16,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]"#)
            .expect("a reply");
        let ids: Vec<&Value> = r.as_array().unwrap().iter().map(|e| &e["id"]).collect();
        assert_eq!(ids, [&serde_json::json!(16), &serde_json::json!("b")]);
        assert_eq!(r[0]["error"]["code"], INVALID_REQUEST);
        assert!(r[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches are not supported"));
        // Only notifications: nothing to answer.
        assert!(reply(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#).is_none());
    }

    #[test]
    fn notifications_and_non_json_get_no_reply() {
        assert_eq!(
            reply(br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\ud83c"}}"#),
            None
        );
        assert_eq!(reply(b"hello"), None);
    }

    #[test]
    fn a_request_whose_id_is_null_or_a_fraction_is_told_so() {
        for (line, shown) in [
            (
                &br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#[..],
                "null",
            ),
            (br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, "1.5"),
            (br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, "true"),
        ] {
            let r = reply(line).expect("a reply");
            assert_eq!(r["error"]["code"], -32600, "{r}");
            assert_eq!(
                r["error"]["message"],
                format!("Invalid Request: `id` must be a string or an integer (MCP forbids null), not {shown}"),
                "{r}"
            );
        }
    }
}
