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
//! The same holds for lines no parse can take whole: a line over
//! [`MAX_LINE_BYTES`], one nested deeper than serde_json reads, one that
//! holds two messages, and any other text that is not JSON but opens as a
//! request object (a `NaN` or `Infinity`, which Python's `json.dumps` writes
//! for such floats; a trailing comma; a line cut short). Their request ids
//! are found by a scan of the text ([`super::id_scan`]); a line without one
//! is only logged.
//!
//! All output goes through one mutex-guarded writer, a whole line at a time,
//! so replies never interleave.
//!
//! At end of input the transport tells rmcp only once the requests it handed
//! over are answered (or cancelled by the client), or once each has run its
//! deadline plus [`WAIT_MARGIN`]: rmcp 3.11 waits a fixed 5 s for the replies
//! still running after the input ends (`serve_inner`, not configurable) and
//! then drops them, so `echo REQUEST | ctxloop serve` lost the answer of any
//! call slower than that (probe 32, P8).

use super::id_scan::{self, IdScan};
use crate::config::DEADLINE_MS;
use crate::error::clip_to;
use rmcp::model::{ClientNotification, ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Longest line read (as rmcp's default): a longer line is dropped, and
/// answered with an error when its request id can be found.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Deepest nesting of arrays and objects serde_json reads (its recursion
/// limit: the 128th level is refused), so the deepest a message may be.
const MAX_DEPTH: usize = 127;

/// Longest part of the offending text quoted back in an error.
const QUOTE_CHARS: usize = 40;

/// How long past its deadline a call still running at end of input is
/// waited for: room for a call stopped at its deadline to build and send the
/// answer from what it found.
const WAIT_MARGIN: Duration = Duration::from_secs(5);

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
    /// The scan of the line being dropped (over [`MAX_LINE_BYTES`]) for its
    /// request id; `None` while the line fits.
    discarding: Option<IdScan>,
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
    /// The requests handed to rmcp and not yet answered, each with the
    /// instant by which it has run its deadline plus [`WAIT_MARGIN`].
    running: HashMap<RequestId, Instant>,
    /// The deadline of a call that names none (the server's `--deadline-ms`).
    deadline: Duration,
    /// The input has ended.
    ended: bool,
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
            discarding: None,
            write: Arc::new(Mutex::new(Some(write))),
            replies: std::collections::VecDeque::new(),
            started: false,
            running: HashMap::new(),
            deadline: Duration::from_millis(DEADLINE_MS.default),
            ended: false,
        }
    }

    /// The same transport, with `ms` as the deadline of a call that names
    /// none (the server's `--deadline-ms`; default [`DEADLINE_MS`]'s): how
    /// long such a call is waited for at end of input.
    pub fn with_deadline_ms(mut self, ms: u64) -> Self {
        self.deadline = Duration::from_millis(ms);
        self
    }

    /// Notes a request handed to rmcp as running, until the instant its
    /// deadline (a `tools/call`'s `deadline_ms` argument, else the server's)
    /// plus [`WAIT_MARGIN`] has passed; a `notifications/cancelled` ends the
    /// wait for the request it names (rmcp drops its reply).
    fn track(&mut self, msg: &RxJsonRpcMessage<RoleServer>) {
        match msg {
            JsonRpcMessage::Request(r) => {
                let asked = match &r.request {
                    ClientRequest::CallToolRequest(call) => call
                        .params
                        .arguments
                        .as_ref()
                        .and_then(|a| a.get("deadline_ms"))
                        .and_then(Value::as_f64)
                        .filter(|ms| ms.is_finite() && *ms >= 0.0)
                        .map(|ms| Duration::from_millis(ms.min(DEADLINE_MS.max as f64) as u64)),
                    _ => None,
                };
                let until = Instant::now() + asked.unwrap_or(self.deadline) + WAIT_MARGIN;
                self.running.insert(r.id.clone(), until);
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification {
                    if let Some(id) = &c.params.request_id {
                        self.running.remove(id);
                    }
                }
            }
            _ => {}
        }
    }

    /// Waits, once the input has ended, until no request handed to rmcp is
    /// still running, or the last of their deadlines plus [`WAIT_MARGIN`] has
    /// passed. Cancel-safe: rmcp drops this future to send a reply, which
    /// [`Transport::send`] takes off [`Self::running`], and calls `receive`
    /// again.
    async fn wait_for_calls(&mut self) {
        let Some(&until) = self.running.values().max() else {
            return;
        };
        tracing::debug!(
            "input ended: waiting for {} request(s) still running",
            self.running.len()
        );
        tokio::time::sleep_until(until).await;
        tracing::warn!(
            "input ended, and {} request(s) still running past their deadline (plus {} s) are cancelled",
            self.running.len(),
            WAIT_MARGIN.as_secs()
        );
        self.running.clear();
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
        self.replies.push_back(line_of(reply));
    }

    /// Answers a line dropped for its length, if its request id was found:
    /// the client otherwise waited for a reply that never came.
    fn answer_dropped(&mut self, scan: &IdScan) {
        let Some(id) = scan.id() else {
            tracing::error!(
                "a message of {} bytes, longer than {MAX_LINE_BYTES}, was dropped (no request id found to answer)",
                scan.bytes()
            );
            return;
        };
        tracing::warn!(
            "answered a message of {} bytes, longer than {MAX_LINE_BYTES}",
            scan.bytes()
        );
        self.reply(&error_reply(
            id,
            INVALID_REQUEST,
            format!(
                "Invalid Request: the message is {} bytes, over the limit of 16 MiB ({MAX_LINE_BYTES} bytes) for one message, and was not read: shorten it, e.g. a `task` that names the files, identifiers and error text that matter instead of pasting whole files",
                scan.bytes()
            ),
        ));
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
                    clip_to(method, QUOTE_CHARS)
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
    /// half-way leaves its bytes in `self.line` (or its scan in
    /// `self.discarding`) and the next call goes on. `Ok(false)` at end of
    /// input; `Ok(true)` with an empty `self.line` for a line that was too
    /// long and dropped (and answered, see [`Self::answer_dropped`]).
    async fn read_line(&mut self) -> std::io::Result<bool> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(false);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.discarding.is_none() && self.line.len() + take > MAX_LINE_BYTES {
                let mut scan = IdScan::default();
                scan.feed(&self.line);
                self.line.clear();
                self.discarding = Some(scan);
            }
            match &mut self.discarding {
                // The message's own bytes, without its `\n`.
                Some(scan) => scan.feed(&available[..newline.unwrap_or(take)]),
                None => self.line.extend_from_slice(&available[..take]),
            }
            self.read.consume(take);
            if newline.is_some() {
                if let Some(scan) = self.discarding.take() {
                    self.answer_dropped(&scan);
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
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            self.running.remove(id);
        }
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
            if self.ended {
                self.wait_for_calls().await;
                return None;
            }
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => {
                    self.ended = true;
                    continue;
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
                    self.track(&msg);
                    return Some(msg);
                }
                Err(e) => {
                    for reply in replies_to_undecodable(text, &e) {
                        self.replies.push_back(reply);
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
    use rmcp::model::ErrorCode;
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
        let shown = serde_json::to_string(&clip_to(method, QUOTE_CHARS)).unwrap_or_default();
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

/// The error replies (each a line, with its `\n`) to a line rmcp cannot
/// decode; none when there is no one to answer: a notification (no `id`;
/// JSON-RPC forbids replying), or text that is not JSON and from which no
/// request id can be read (replying to garbage can start an echo storm with a
/// peer that echoes, so it is only logged, as rmcp does).
fn replies_to_undecodable(text: &[u8], e: &serde_json::Error) -> Vec<Vec<u8>> {
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
                return match serde_json::from_str::<Value>(s) {
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
                        if replies.is_empty() {
                            Vec::new()
                        } else {
                            vec![line_of(&Value::Array(replies))]
                        }
                    }
                    // Well-formed JSON that is not a JSON-RPC message rmcp knows.
                    Ok(v) => {
                        let Some(id) = request_id(&v) else {
                            return Vec::new();
                        };
                        let id_text = id_scan::scan(text).id_text().map(str::to_string);
                        let problem = what_is_wrong(&v, id_text.as_deref())
                            .unwrap_or_else(|| format!("Invalid Request: {}", quote_error(e)));
                        let reply = error_reply(id, INVALID_REQUEST, problem);
                        vec![match id_text {
                            // An integer id too large for serde_json's
                            // numbers is echoed as it was written, not as
                            // the float it was read as.
                            Some(t) if is_out_of_range_integer(&t) => with_id_text(&reply, &t),
                            _ => line_of(&reply),
                        }]
                    }
                    Err(e) => unparsed(s, &e),
                };
            }
        },
    };
    let id = match serde_json::from_str::<Value>(&lenient) {
        Ok(v) => match request_id(&v) {
            Some(id) => id,
            None => return Vec::new(),
        },
        // Broken beyond the bad text: the id the scan finds; without one,
        // only logged, as other text that is not JSON.
        Err(_) => match id_scan::scan(lenient.as_bytes()).id() {
            Some(id) => id,
            None => {
                tracing::warn!(
                    "ignoring a line that is not JSON (no request id found to answer): {problem}"
                );
                return Vec::new();
            }
        },
    };
    tracing::warn!("answered an undecodable request: {problem}");
    vec![line_of(&error_reply(
        id,
        PARSE_ERROR,
        format!("Parse error: {problem}"),
    ))]
}

/// The replies to UTF-8 text serde_json cannot parse as one value (`e`, its
/// error): each request of a line that holds several messages (JSON-RPC over
/// stdio is one message a line), or a request nested deeper than serde_json
/// reads, holding `NaN` or `Infinity`, or otherwise not JSON, when the scan
/// finds its id. Text without one is only logged.
fn unparsed(s: &str, e: &serde_json::Error) -> Vec<Vec<u8>> {
    let mut values = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    let mut first = Vec::new();
    while let Some(Ok(v)) = values.next() {
        first.push((v, values.byte_offset()));
    }
    if first.len() > 1 || (first.len() == 1 && values.byte_offset() < s.len()) {
        let replies: Vec<Vec<u8>> = first
            .iter()
            .filter_map(|(v, end)| {
                let id = request_id(v)?;
                Some(line_of(&error_reply(
                    id,
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: the line goes on after this message (at byte offset {end}): each message must end with a newline (\\n); send one JSON-RPC message per line"
                    ),
                )))
            })
            .collect();
        tracing::warn!(
            "answered {} request(s) of a line that holds more than one message",
            replies.len()
        );
        return replies;
    }
    let scan = id_scan::scan(s.as_bytes());
    let Some(id) = scan.id() else {
        tracing::warn!(
            "ignoring a line that is not JSON (no request id found to answer): {}",
            clip_to(s, QUOTE_CHARS)
        );
        return Vec::new();
    };
    let problem = if scan.max_depth() > MAX_DEPTH {
        format!(
            "the message nests arrays and objects {} levels deep, deeper than the {MAX_DEPTH} levels the server reads: flatten the deepest value (no tool argument needs more than a few levels)",
            scan.max_depth()
        )
    } else if let Some((at, literal)) = non_finite_literal(s) {
        format!(
            "the message holds {literal} (at byte offset {at}), which is not a JSON number: JSON has no NaN or Infinity; send a finite number, or null to leave the argument out (Python's json.dumps writes NaN and Infinity for such floats unless given allow_nan=False)"
        )
    } else {
        format!(
            "the message is not valid JSON ({}): send each message as one line of JSON text",
            quote_error(e)
        )
    };
    tracing::warn!("answered a request that is not JSON: {problem}");
    vec![line_of(&error_reply(
        id,
        PARSE_ERROR,
        format!("Parse error: {problem}"),
    ))]
}

/// The first `NaN`, `Infinity` or `-Infinity` outside a string of JSON-like
/// text, as (byte offset, literal): what Python's `json` module and others
/// write for non-finite floats, though JSON has no such numbers.
fn non_finite_literal(s: &str) -> Option<(usize, &'static str)> {
    let b = s.as_bytes();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &c) in b.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        let word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        match c {
            b'"' => in_string = true,
            b'N' if word_start && b[i..].starts_with(b"NaN") => return Some((i, "NaN")),
            b'I' if word_start && b[i..].starts_with(b"Infinity") => {
                return Some(if i > 0 && b[i - 1] == b'-' {
                    (i - 1, "-Infinity")
                } else {
                    (i, "Infinity")
                });
            }
            _ => {}
        }
    }
    None
}

/// The `id` of a request (a number or a string); `None` for a notification.
fn request_id(v: &Value) -> Option<Value> {
    match v.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id.clone()),
        None if v.get("method").is_some() => None,
        _ => Some(Value::Null),
    }
}

/// What makes well-formed JSON no JSON-RPC request MCP takes, naming the
/// member and how to fix it; `None` when the fault is deeper (serde's message
/// says it then). `id_text` is the `id` as written.
fn what_is_wrong(v: &Value, id_text: Option<&str>) -> Option<String> {
    if let Some(problem) = bad_id(v, id_text) {
        return Some(problem);
    }
    match v.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        None => {
            return Some(
                "Invalid Request: `jsonrpc` is missing: every JSON-RPC message must carry \"jsonrpc\": \"2.0\"".to_string(),
            )
        }
        Some(other) => {
            return Some(format!(
                "Invalid Request: `jsonrpc` must be \"2.0\", not {}",
                clip_to(&other.to_string(), QUOTE_CHARS)
            ))
        }
    }
    let method = match v.get("method") {
        Some(Value::String(m)) => Some(m.as_str()),
        Some(other) => {
            return Some(format!(
                "Invalid Request: `method` must be a string naming the method, e.g. \"tools/call\", not {}",
                clip_to(&other.to_string(), QUOTE_CHARS)
            ))
        }
        None if v.get("result").is_none() && v.get("error").is_none() => {
            return Some(
                "Invalid Request: `method` is missing: a request names the method it calls, e.g. \"method\": \"tools/call\"".to_string(),
            )
        }
        None => None,
    };
    match v.get("params") {
        None | Some(Value::Object(_)) => None,
        Some(other) => {
            let example = if method == Some("tools/call") {
                r#", e.g. {"name": "retrieve", "arguments": {"task": "fix the token expiry bug"}}"#
            } else {
                " (or leave `params` out)"
            };
            Some(format!(
                "Invalid Request: `params` must be an object (MCP passes parameters by name), not {} {}{example}",
                json_kind(other),
                clip_to(&other.to_string(), QUOTE_CHARS)
            ))
        }
    }
}

/// "a string", "an array", ...: the kind of a JSON value, for messages.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why a message's `id` is no MCP request id, if it is not: MCP asks for a
/// string or an integer, never null (JSON-RPC only discourages null); a
/// request with `"id": null` got no reply at all, as if it were a
/// notification (newcomer probe of 2026-12-06). An integer must fit in 64
/// signed bits, as rmcp reads it; `id_text` (the id as written) names one
/// that does not, which serde_json reads as a float.
fn bad_id(v: &Value, id_text: Option<&str>) -> Option<String> {
    let id = v.get("id")?;
    if let Some(t) = id_text.filter(|t| is_out_of_range_integer(t)) {
        return Some(format!(
            "Invalid Request: `id` {} is out of range: an integer id must lie between {} and {}; send a smaller integer (e.g. a counter from 1) or a string",
            clip_to(t, QUOTE_CHARS),
            i64::MIN,
            i64::MAX
        ));
    }
    // rmcp takes an integer written as a float (`1.0`) below 2^53.
    let whole = id.as_i64().is_some()
        || id.as_u64().is_some()
        || id
            .as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0);
    (!(whole || id.is_string())).then(|| {
        format!(
            "Invalid Request: `id` must be a string or an integer (MCP forbids null), not {}",
            clip_to(&id.to_string(), QUOTE_CHARS)
        )
    })
}

/// Whether `text` is a JSON integer (no fraction, no exponent) outside
/// i64, the range of rmcp's numeric ids.
fn is_out_of_range_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && text.parse::<i64>().is_err()
}

fn error_reply(id: Value, code: i64, message: String) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// `reply` as the line it is written as, with its `\n`.
fn line_of(reply: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(reply).unwrap_or_default();
    line.push(b'\n');
    line
}

/// The line of `reply` with its `id` written as `id_text`, a JSON integer
/// (checked by [`is_out_of_range_integer`]), so it is echoed digit for digit.
fn with_id_text(reply: &Value, id_text: &str) -> Vec<u8> {
    let error = serde_json::to_string(&reply["error"]).unwrap_or_default();
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id_text},\"error\":{error}}}\n").into_bytes()
}

/// serde's message, with any echoed value cut short.
fn quote_error(e: &serde_json::Error) -> String {
    clip_to(&e.to_string(), 300)
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

    /// The transport's replies to a line rmcp cannot decode, parsed.
    fn replies(line: &[u8]) -> Vec<Value> {
        let e = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line).unwrap_err();
        replies_to_undecodable(line, &e)
            .iter()
            .map(|l| {
                assert!(l.ends_with(b"\n") && !l[..l.len() - 1].contains(&b'\n'));
                serde_json::from_slice(l).unwrap()
            })
            .collect()
    }

    fn reply(line: &[u8]) -> Option<Value> {
        let mut all = replies(line);
        assert!(all.len() <= 1, "{all:?}");
        all.pop()
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
    fn a_request_holding_nan_or_infinity_is_answered_with_its_id() {
        for literal in ["NaN", "Infinity", "-Infinity"] {
            // The words in the task's string are no numbers.
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{{"name":"retrieve","arguments":{{"task":"NaN Infinity","high_threshold":{literal}}}}}}}"#
            );
            let at = line.rfind(literal).unwrap();
            let r = reply(line.as_bytes()).expect("a reply");
            assert_eq!(r["id"], 12, "{r}");
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
            let m = r["error"]["message"].as_str().unwrap();
            assert!(
                m.starts_with(&format!(
                    "Parse error: the message holds {literal} (at byte offset {at}), which is not a JSON number"
                )),
                "{m}"
            );
            assert!(m.contains("send a finite number, or null"), "{m}");
        }
        // A string id, written after the params (as the TypeScript SDK does).
        let r = reply(br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"retrieve","arguments":{"task":"x","limit":NaN}},"id":"q"}"#)
            .expect("a reply");
        assert_eq!(r["id"], "q", "{r}");
        // A notification gets no reply.
        assert_eq!(
            reply(br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":NaN}}"#),
            None
        );
    }

    #[test]
    fn any_other_request_that_is_not_json_is_answered_when_its_id_can_be_read() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":13,"method":"ping",}"#[..],
            br#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"retri"#,
            br#"{"jsonrpc":"2.0","id":13,"method":'ping'}"#,
        ] {
            let r = reply(line).expect("a reply");
            assert_eq!(r["id"], 13, "{r}");
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
            let m = r["error"]["message"].as_str().unwrap();
            assert!(
                m.starts_with("Parse error: the message is not valid JSON (")
                    && m.ends_with("): send each message as one line of JSON text"),
                "{m}"
            );
        }
        // Bytes that are not UTF-8 in text that is not JSON either: still its id.
        let r = reply(b"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\",\"x\":\"\xff\",}")
            .expect("a reply");
        assert_eq!(r["id"], 14, "{r}");
        // Nor is text without a request id, UTF-8 or not.
        assert_eq!(reply(b"\xff\xfe garbage"), None);
        // A response (no method) is never answered.
        assert_eq!(reply(br#"{"jsonrpc":"2.0","id":13,"result":{},}"#), None);
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

    #[test]
    fn a_request_nested_past_the_limit_is_answered_with_its_id() {
        // The top-level object, `params`, `arguments`, then `n` arrays.
        let line = |n: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"retrieve","arguments":{{"task":"x","a":{}{}}}}},"id":3}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        // 127 levels are read (and handed to rmcp); 128 are not, and are answered.
        assert!(serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(&line(124)).is_ok());
        for (n, depth) in [(125, 128), (3000, 3003)] {
            let r = reply(line(n).as_bytes()).expect("a reply");
            assert_eq!(r["id"], 3, "{r}");
            assert_eq!(r["error"]["code"], PARSE_ERROR, "{r}");
            let m = r["error"]["message"].as_str().unwrap();
            assert!(
                m.contains(&format!(
                    "nests arrays and objects {depth} levels deep, deeper than the 127 levels"
                )),
                "{m}"
            );
        }
        // Without an id (a notification) or a method, nothing to answer.
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(reply(deep.as_bytes()), None);
    }

    #[test]
    fn each_request_of_a_line_that_holds_two_is_told_to_end_it_with_a_newline() {
        let all = replies(br#"{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","method":"notifications/initialized"} {"jsonrpc":"2.0","id":"five","method":"ping"}"#);
        let ids: Vec<&Value> = all.iter().map(|r| &r["id"]).collect();
        assert_eq!(ids, [&serde_json::json!(4), &serde_json::json!("five")]);
        for r in &all {
            assert_eq!(r["error"]["code"], INVALID_REQUEST, "{r}");
            let m = r["error"]["message"].as_str().unwrap();
            assert!(m.contains("each message must end with a newline"), "{m}");
        }
        assert!(all[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at byte offset 40"));
        // A request followed by text that is no message is told the same.
        let r = reply(br#"{"jsonrpc":"2.0","id":6,"method":"ping"} oops"#).expect("a reply");
        assert_eq!(r["id"], 6);
        // Text that is not JSON from its start is still only logged.
        assert_eq!(
            reply(br#"oops {"jsonrpc":"2.0","id":6,"method":"ping"}"#),
            None
        );
    }

    #[test]
    fn a_request_is_told_which_member_is_wrong_and_how_to_fix_it() {
        let message = |line: &[u8]| {
            let r = reply(line).expect("a reply");
            assert_eq!(r["error"]["code"], INVALID_REQUEST, "{r}");
            r["error"]["message"].as_str().unwrap().to_string()
        };
        assert_eq!(
            message(br#"{"id":6,"method":"ping"}"#),
            "Invalid Request: `jsonrpc` is missing: every JSON-RPC message must carry \"jsonrpc\": \"2.0\""
        );
        assert_eq!(
            message(br#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#),
            "Invalid Request: `jsonrpc` must be \"2.0\", not \"1.0\""
        );
        assert_eq!(
            message(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"retrieve"}"#),
            r#"Invalid Request: `params` must be an object (MCP passes parameters by name), not a string "retrieve", e.g. {"name": "retrieve", "arguments": {"task": "fix the token expiry bug"}}"#
        );
        assert!(
            message(br#"{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}"#)
                .contains("not an array [1] (or leave `params` out)")
        );
        assert!(message(br#"{"jsonrpc":"2.0","id":9,"method":5}"#)
            .starts_with("Invalid Request: `method` must be a string"));
        assert!(message(br#"{"jsonrpc":"2.0","id":10,"params":{}}"#)
            .starts_with("Invalid Request: `method` is missing"));
        // An integer id outside i64 is named as written and echoed digit for digit.
        for id in [
            "18446744073709551616",
            "9223372036854775808",
            "-9223372036854775809",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let e = serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(&line).unwrap_err();
            let out = replies_to_undecodable(line.as_bytes(), &e);
            let text = std::str::from_utf8(&out[0]).unwrap();
            assert!(
                text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"#)),
                "{text}"
            );
            let r: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                r["error"]["message"],
                format!("Invalid Request: `id` {id} is out of range: an integer id must lie between -9223372036854775808 and 9223372036854775807; send a smaller integer (e.g. a counter from 1) or a string")
            );
        }
        // An integer written as a float is an id rmcp takes: the fault is elsewhere.
        assert!(message(br#"{"id":2.0,"method":"ping"}"#).contains("`jsonrpc` is missing"));
    }

    /// A server whose one tool takes `secs` seconds, whatever its deadline.
    struct Slow {
        secs: u64,
    }

    impl rmcp::ServerHandler for Slow {
        fn get_info(&self) -> rmcp::model::ServerConfig {
            rmcp::model::ServerConfig::new(
                rmcp::model::ServerCapabilities::builder()
                    .enable_tools()
                    .build(),
            )
        }

        async fn call_tool(
            &self,
            _: rmcp::model::CallToolRequestParams,
            _: rmcp::service::RequestContext<RoleServer>,
        ) -> Result<rmcp::model::CallToolResponse, rmcp::model::ErrorData> {
            tokio::time::sleep(Duration::from_secs(self.secs)).await;
            let text = rmcp::model::ContentBlock::text("done");
            Ok(rmcp::model::CallToolResult::success(vec![text]).into())
        }
    }

    /// `calls` (JSON-RPC lines after the handshake) sent to `server` over
    /// [`LineTransport`] with the input closed after them, as
    /// `echo REQUEST | ctxloop serve` does; the lines the server wrote, and
    /// the (virtual) seconds it ran.
    async fn served_to_end_of_input(
        server: Slow,
        deadline_ms: u64,
        calls: &[&str],
    ) -> (Vec<Value>, u64) {
        use rmcp::ServiceExt;
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let handshake = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ];
        for line in handshake.iter().chain(calls) {
            client_write.write_all(line.as_bytes()).await.unwrap();
            client_write.write_all(b"\n").await.unwrap();
        }
        client_write.shutdown().await.unwrap();
        let start = Instant::now();
        let transport = LineTransport::new(server_read, server_write).with_deadline_ms(deadline_ms);
        server
            .serve(transport)
            .await
            .unwrap()
            .waiting()
            .await
            .unwrap();
        let secs = start.elapsed().as_secs();
        // The transport is dropped with the service: the output has ended.
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut client_read, &mut out)
            .await
            .unwrap();
        let lines = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        (lines, secs)
    }

    const CALL: &str =
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;

    /// rmcp waits 5 s for the replies still running at end of input, then
    /// drops them: a call of 20 s piped in with `echo` got no answer.
    #[tokio::test(start_paused = true)]
    async fn a_call_still_running_when_input_ends_is_answered_before_the_server_stops() {
        let (lines, secs) = served_to_end_of_input(Slow { secs: 20 }, 30_000, &[CALL]).await;
        let reply = lines.iter().find(|l| l["id"] == 2);
        let reply = reply.unwrap_or_else(|| panic!("no reply to the call: {lines:?}"));
        assert_eq!(reply["result"]["content"][0]["text"], "done", "{reply}");
        assert!((20..25).contains(&secs), "stopped after {secs} s");
    }

    /// The wait ends at the call's deadline plus [`WAIT_MARGIN`] (the
    /// server's deadline, or the call's own `deadline_ms`), not when a call
    /// that overruns it ends.
    #[tokio::test(start_paused = true)]
    async fn the_wait_at_end_of_input_ends_at_the_calls_deadline_plus_a_margin() {
        let hour = Slow { secs: 3600 };
        let (lines, secs) = served_to_end_of_input(hour, 10_000, &[CALL]).await;
        assert!(lines.iter().all(|l| l["id"] != 2), "{lines:?}");
        // 10 s, the margin, then rmcp's own 5 s before it cancels the call.
        assert!((15..=21).contains(&secs), "stopped after {secs} s");
        let own = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"deadline_ms":40000}}}"#;
        let (_, secs) = served_to_end_of_input(Slow { secs: 3600 }, 10_000, &[own]).await;
        assert!((45..=51).contains(&secs), "stopped after {secs} s");
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_when_its_request_id_is_found() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let mut t = LineTransport::new(server_read, server_write);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let task = "a".repeat(MAX_LINE_BYTES);
        // The TypeScript SDK's order: `id` last; then no id at all; then a ping.
        let lines = [
            format!(
                r#"{{"method":"tools/call","params":{{"name":"retrieve","arguments":{{"task":"{task}"}}}},"jsonrpc":"2.0","id":"big"}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"t":"{task}"}}}}"#),
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_string(),
        ];
        let size = lines[0].len();
        let writer = tokio::spawn(async move {
            for line in lines {
                client_write.write_all(line.as_bytes()).await.unwrap();
                client_write.write_all(b"\n").await.unwrap();
            }
            client_write
        });
        let msg = t.receive().await.expect("the ping");
        assert!(serde_json::to_string(&msg).unwrap().contains("\"ping\""));
        let _client_write = writer.await.unwrap();
        let mut got = Vec::new();
        let mut reader = BufReader::new(&mut client_read);
        reader.read_until(b'\n', &mut got).await.unwrap();
        let r: Value = serde_json::from_slice(&got).unwrap();
        assert_eq!(r["id"], "big", "{r}");
        assert_eq!(r["error"]["code"], INVALID_REQUEST);
        let m = r["error"]["message"].as_str().unwrap();
        assert!(
            m.contains(&format!(
                "the message is {size} bytes, over the limit of 16 MiB"
            )),
            "{m}"
        );
        assert!(m.contains("shorten it"), "{m}");
    }
}
