//! The MCP server: the rmcp handler. Each tool delegates to the engine on a
//! blocking thread (walking and parsing are CPU work) and returns
//! `structuredContent` plus a compact text rendering. Logs go to stderr only.

mod args;
mod prompt;
mod transport;

pub use transport::LineTransport;

/// Validates `serve`'s roots before the server starts (see the function).
pub use crate::confine::server_roots;
use crate::engine::{Engine, EngineOptions};
use crate::error::Error;
use crate::render::{self, Render};
use crate::request::CallOptions;
use crate::tools::dispatch::DispatchParams;
use crate::tools::evaluate::EvaluateParams;
use crate::tools::refine::RefineParams;
use crate::tools::retrieve::RetrieveParams;
use crate::types::{DispatchOutput, EvaluateOutput, RefineOutput, RetrieveOutput};
use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorData, Implementation,
    JsonObject, ProgressNotificationParam, RequestMetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{prompt_handler, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use rmcp::{Peer, RoleServer};
use serde::Serialize;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Instructions sent at initialization: when to use which tool.
pub const INSTRUCTIONS: &str = "ctxloop finds the source files a coding task needs, ranked with evidence, \
without an index or network. Use it before grep when you do not yet know which files matter. \
`retrieve` runs the whole dispatch → evaluate → refine loop in one call: pass the task text (paste \
error messages and paths verbatim). For step-wise control, `dispatch` starts a session, `evaluate` \
takes your own 0-1 judgments of the candidates and names missing context (gaps), `refine` builds the \
next query; stop after 3 cycles or once 3+ files are high and no gap is critical. The prompt \
`gather_context` spells out that protocol for sub-agents.";

/// A tool's input schema, from its params type (the tools take raw arguments
/// and check them with [`args::parse`], for errors that name the field).
fn input_schema<T: schemars::JsonSchema + 'static>() -> std::sync::Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|e| panic!("invalid input schema: {e}"))
}

/// What a `retrieve` result carries (its `content` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// The text rendering and the full structured content (the default).
    Both,
    /// The text rendering; structured content without snippet text.
    Text,
    /// The full structured content; the text is one summary line.
    Structured,
}

const CONTENT_DOC: &str = "What the result carries: \"both\" (default) the text rendering and the full structuredContent; \"text\" the text rendering, and structuredContent without snippet text (ranges only), for clients that show the model both; \"structured\" the full structuredContent and a one-line text.";

/// `retrieve`'s input schema: its params plus `content`, which only the MCP
/// tool has (it chooses what the result carries, not what is searched).
fn retrieve_input_schema() -> std::sync::Arc<JsonObject> {
    let mut schema = (*input_schema::<RetrieveParams>()).clone();
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        props.insert(
            "content".into(),
            serde_json::json!({"type": "string", "enum": ["both", "text", "structured"], "default": "both", "description": CONTENT_DOC}),
        );
    }
    std::sync::Arc::new(schema)
}

fn take_content(args: &mut JsonObject) -> Result<Content, String> {
    match args.remove("content") {
        None | Some(serde_json::Value::Null) => Ok(Content::Both),
        Some(v) => match v.as_str() {
            Some("both") => Ok(Content::Both),
            Some("text") => Ok(Content::Text),
            Some("structured") => Ok(Content::Structured),
            _ => Err(format!(
                "`content` must be \"both\", \"text\" or \"structured\", not {}",
                crate::error::clip(&v.to_string())
            )),
        },
    }
}

/// The MCP server: the four tools and the `gather_context` prompt over one
/// shared [`Engine`]. Cloning shares the engine.
#[derive(Clone)]
pub struct CtxServer {
    engine: Arc<Engine>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

fn result<T: Serialize>(value: &T, text: String) -> CallToolResult {
    let json = serde_json::to_value(value).unwrap_or_default();
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(json);
    r
}

fn tool_error(e: Error) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// Runs engine work off the async executor; a cancelled request stops waiting.
async fn run<T: Send + 'static>(
    ct: CancellationToken,
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, CallToolResult> {
    let handle = tokio::task::spawn_blocking(f);
    tokio::select! {
        r = handle => match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(tool_error(e)),
            Err(e) => Err(CallToolResult::error(vec![ContentBlock::text(format!("internal error: {e}"))])),
        },
        _ = ct.cancelled() => Err(CallToolResult::error(vec![ContentBlock::text("cancelled by the client")])),
    }
}

#[tool_router(router = tool_router)]
impl CtxServer {
    /// A server with its own engine.
    pub fn new(options: EngineOptions) -> Self {
        Self::with_engine(Arc::new(Engine::new(options)))
    }

    /// A server over a shared engine (e.g. one a test also calls directly).
    pub fn with_engine(engine: Arc<Engine>) -> Self {
        Self {
            engine,
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    #[tool(
        description = "Find the files a coding task needs: runs dispatch → evaluate → refine (up to 3 cycles) and returns ranked files with 0-1 relevance, tiers, reasons, line-ranged snippets and open gaps. Use before grep when you don't know where to look.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = retrieve_input_schema(),
        output_schema = schema_for_output::<RetrieveOutput>()
    )]
    async fn retrieve(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ct: CancellationToken,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> CallToolResult {
        let mut args = args;
        let content = match take_content(&mut args) {
            Ok(c) => c,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        let p: RetrieveParams = match args::parse(args) {
            Ok(p) => p,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        let engine = self.engine.clone();
        // Progress after each cycle, when the client asked for it (a progress
        // token in `_meta`); the engine runs on a blocking thread, so its
        // reports cross a channel to an async task that notifies the client.
        let max_cycles = p.max_cycles.unwrap_or(crate::config::MAX_CYCLES.default);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, usize, String)>();
        // The closing notification's sender: a loop that stops early
        // (sufficient, converged, ...) still ends its progress at `total`.
        let done_tx = tx.clone();
        let forward = meta.get_progress_token().map(|token| {
            tokio::spawn(async move {
                // Progress must increase from one notification to the next.
                let mut last = 0;
                while let Some((done, total, message)) = rx.recv().await {
                    if done <= last {
                        continue;
                    }
                    last = done;
                    let note = ProgressNotificationParam::new(token.clone(), done as f64)
                        .with_total(total as f64)
                        .with_message(message);
                    if peer.notify_progress(note).await.is_err() {
                        break;
                    }
                }
            })
        });
        let cancel = ct.clone();
        let r = run(ct, move || {
            let progress = move |done: usize, total: usize, msg: &str| {
                let _ = tx.send((done, total, msg.to_string()));
            };
            engine.retrieve_with(
                p,
                &CallOptions {
                    cancel: Some(&cancel),
                    progress: Some(&progress),
                    ..Default::default()
                },
            )
        })
        .await;
        if let Ok(out) = &r {
            let _ = done_tx.send((
                max_cycles,
                max_cycles,
                format!(
                    "done after {} of {max_cycles} cycles: {}",
                    out.cycles.len(),
                    out.stop_reason.as_str()
                ),
            ));
        }
        drop(done_tx);
        if let Some(forward) = forward {
            // Every progress notification goes out before the result.
            let _ = forward.await;
        }
        match r {
            Ok(mut out) => match content {
                Content::Both => result(&out, out.text()),
                Content::Text => {
                    let text = out.text();
                    for f in &mut out.files {
                        for sn in &mut f.snippets {
                            sn.text.clear();
                        }
                    }
                    result(&out, text)
                }
                Content::Structured => result(&out, render::retrieve_summary(&out)),
            },
            Err(e) => e,
        }
    }

    #[tool(
        description = "Step 1 of the loop: start a session (give `task`) or run its next cycle (give `session_id`). Returns ranked candidate files with evidence. Then call `evaluate`.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = input_schema::<DispatchParams>(),
        output_schema = schema_for_output::<DispatchOutput>()
    )]
    async fn dispatch(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ct: CancellationToken,
    ) -> CallToolResult {
        let p: DispatchParams = match args::parse(args) {
            Ok(p) => p,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        let engine = self.engine.clone();
        let cancel = ct.clone();
        match run(ct, move || {
            engine.dispatch_with(
                p,
                &CallOptions {
                    cancel: Some(&cancel),
                    ..Default::default()
                },
            )
        })
        .await
        {
            Ok(out) => result(&out, out.text()),
            Err(e) => e,
        }
    }

    #[tool(
        description = "Step 2: score the session's candidates 0-1 (your `judgments` override the server's), tier them, and name missing context as gaps. Returns `decision`: finalize or refine.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = input_schema::<EvaluateParams>(),
        output_schema = schema_for_output::<EvaluateOutput>()
    )]
    async fn evaluate(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ct: CancellationToken,
    ) -> CallToolResult {
        let p: EvaluateParams = match args::parse(args) {
            Ok(p) => p,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        let engine = self.engine.clone();
        match run(ct, move || engine.evaluate(p)).await {
            Ok(out) => result(&out, out.text()),
            Err(e) => e,
        }
    }

    #[tool(
        description = "Step 3: build the next query from the evaluation (gap symbols, high files' neighbourhood, excludes for low files, plus your additions) and say whether the loop is done. If not done, call `dispatch` with the session_id.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = input_schema::<RefineParams>(),
        output_schema = schema_for_output::<RefineOutput>()
    )]
    async fn refine(
        &self,
        Parameters(args): Parameters<JsonObject>,
        ct: CancellationToken,
    ) -> CallToolResult {
        let p: RefineParams = match args::parse(args) {
            Ok(p) => p,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        let engine = self.engine.clone();
        match run(ct, move || engine.refine(p)).await {
            Ok(out) => result(&out, out.text()),
            Err(e) => e,
        }
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for CtxServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("ctxloop", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// rmcp routes a standard method whose params it cannot decode (e.g.
    /// `tools/call` without `name`) here, as if the method were unknown
    /// (-32601). Such a request names a method that exists: answer -32602 with
    /// what is wrong with its params.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.unwrap_or(serde_json::Value::Null);
        let missing = |what: &str, names: &str| {
            ErrorData::invalid_params(
                format!(
                    "missing {what} name: `{}` needs `params.name`, one of {names}",
                    request.method
                ),
                None,
            )
        };
        let has_name = params.get("name").is_some_and(|n| n.is_string());
        match request.method.as_str() {
            "tools/call" if !has_name => {
                Err(missing("tool", "retrieve, dispatch, evaluate, refine"))
            }
            "prompts/get" if !has_name => Err(missing("prompt", "gather_context")),
            "tools/call" | "prompts/get" | "tools/list" | "prompts/list" | "initialize"
            | "ping" => Err(ErrorData::invalid_params(
                format!(
                    "invalid params for `{}`: {}",
                    request.method,
                    transport::quote(&params.to_string(), 200)
                ),
                None,
            )),
            _ => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {}",
                    transport::quote(&request.method, 100)
                ),
                None,
            )),
        }
    }
}

/// Starts [`Engine::prefetch`] of the server's root on a thread of its own
/// (when `on`), so the first call finds the files read; returns the token
/// that stops it. Start-up and `initialize` never wait for it.
pub fn start_prefetch(engine: &Arc<Engine>, on: bool) -> CancellationToken {
    let cancel = CancellationToken::new();
    if on {
        let (engine, token) = (engine.clone(), cancel.clone());
        let spawned = std::thread::Builder::new()
            .name("ctxloop-prefetch".into())
            .spawn(move || {
                let t = std::time::Instant::now();
                match engine.prefetch(&token) {
                    Ok(done) => tracing::info!(
                        files = done.files,
                        read = done.read,
                        parsed = done.parsed,
                        cancelled = done.cancelled,
                        ms = t.elapsed().as_millis() as u64,
                        "prefetch"
                    ),
                    Err(e) => tracing::warn!("prefetch: {e}"),
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("prefetch not started: {e}");
        }
    }
    cancel
}

/// Serves MCP over stdin/stdout until stdin closes or Ctrl-C.
pub async fn serve_stdio(options: EngineOptions) -> anyhow::Result<()> {
    // A mistyped --root in a client configuration should fail at start, not at
    // the first tool call.
    if let Some(root) = &options.root {
        crate::engine::canonical_dir(root.clone())?;
    }
    let prefetch = options.prefetch;
    let server = CtxServer::new(options);
    server.engine.deadline_ms(None)?;
    // Cancelled however this function returns (stdin closed, Ctrl-C, error).
    let _prefetch = start_prefetch(&server.engine, prefetch).drop_guard();
    let running = match server.serve(LineTransport::stdio()).await {
        Ok(running) => running,
        // The client went away before initializing (e.g. stdin at EOF): nothing to serve.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(why)) => {
            tracing::info!("client closed the connection before initializing: {why}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    tokio::select! {
        r = running.waiting() => { r?; }
        _ = tokio::signal::ctrl_c() => { tracing::info!("interrupted"); }
    }
    Ok(())
}
