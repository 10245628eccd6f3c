//! The `retrieve` tool: the whole dispatch → evaluate → refine loop in one
//! call, with progress notifications after each cycle and a `content`
//! argument that chooses what the result carries.
use super::loop_params::loop_params;
use super::Tool;
use crate::engine::Engine;
use crate::error::Result;
use crate::render::{self, Render};
use crate::request::{CallOptions, RetrieveRequest};
use crate::server::{self, CtxServer};
use crate::types::RetrieveOutput;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResult, JsonObject, ProgressNotificationParam, RequestMetaObject};
use rmcp::{Peer, RoleServer};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

loop_params! {
    /// Input of `retrieve`: the whole dispatch → evaluate → refine loop in one call.
    pub struct RetrieveParams {
        /// The coding task in natural language, e.g. "fix the token expiry bug". Paths,
        /// identifiers and stack traces in it are used.
        pub task: String,
    }
    shared {
        /// Directory to search (absolute, or relative to the server's root). Default:
        /// the server's --root, else its working directory.
        root,
        /// Include globs, gitignore-style, relative to the root (e.g. "src/**/*.py"). Default: all files. A leading ! excludes, as in ripgrep's -g: ["src/**", "!src/gen/**"]; ! globs alone keep every other file.
        patterns,
        /// Extra search terms (identifiers, names) to weigh like the task's title.
        keywords,
        /// Exclude globs or paths (e.g. "tests", "*.md"). None may start with ! ("!glob" in patterns excludes).
        excludes,
        /// Maximum cycles, 1-10 (default 3).
        max_cycles,
        /// High-tier files needed to stop early, 1-50 (default 3).
        min_high,
        /// Relevance at or above which a file is high tier, 0.05-1.0 (default 0.7).
        high_threshold,
        /// Files returned, 1-100 (default 10).
        limit,
        /// Token budget (tokens ~ bytes/4) of the per-file text: header lines, reasons,
        /// snippets and handles, 100-20000 (default 6000).
        /// Snippets past it become `path:start-end` handles listed in `dropped`.
        budget_tokens,
    }
    /// Wall-clock deadline of this call in ms, 10-3600000 (default: the server's
    /// --deadline-ms, else 30000). Past it the loop stops and the answer is the
    /// best found so far, marked `truncated`.
    #[serde(default)]
    #[schemars(range(min = crate::config::DEADLINE_MS.min, max = crate::config::DEADLINE_MS.max))]
    pub deadline_ms: Option<u64>,
}

impl From<RetrieveParams> for RetrieveRequest {
    fn from(mut p: RetrieveParams) -> Self {
        let task = std::mem::take(&mut p.task);
        let deadline_ms = p.deadline_ms;
        p.into_request(task, deadline_ms)
    }
}

/// The `retrieve` tool.
pub struct Retrieve;

impl Tool for Retrieve {
    const NAME: &'static str = "retrieve";
    const DESCRIPTION: &'static str = "Find the files a coding task needs: runs dispatch → evaluate → refine (up to 3 cycles) and returns ranked files with 0-1 relevance, tiers, reasons, line-ranged snippets and open gaps. Use before grep when you don't know where to look.";
    const GUIDE: &'static str = "`retrieve` runs the whole dispatch → evaluate → refine loop in one call: pass the task text (paste error messages and paths verbatim).";
    type Params = RetrieveParams;
    type Output = RetrieveOutput;

    fn call(engine: &Engine, p: RetrieveParams, opts: &CallOptions) -> Result<RetrieveOutput> {
        engine.retrieve(p, opts)
    }

    fn text(out: &RetrieveOutput) -> String {
        out.text()
    }

    /// Its params plus `content`, and progress after each cycle.
    fn route() -> ToolRoute<CtxServer> {
        ToolRoute::new_dyn(server::tool_attr::<Self>(input_schema()), handle)
    }
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

/// The input schema: the params plus `content`, which only the MCP tool has
/// (it chooses what the result carries, not what is searched).
fn input_schema() -> Arc<JsonObject> {
    let mut schema = (*server::input_schema::<RetrieveParams>()).clone();
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        props.insert(
            "content".into(),
            serde_json::json!({"type": "string", "enum": ["both", "text", "structured"], "default": "both", "description": CONTENT_DOC}),
        );
    }
    Arc::new(schema)
}

fn take_content(args: &mut JsonObject) -> std::result::Result<Content, String> {
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

/// The route's handler: [`call`] with the request's parts.
fn handle(ctx: ToolCallContext<'_, CtxServer>) -> server::Reply<'_> {
    Box::pin(async move {
        let engine = ctx.service.engine().clone();
        let args = ctx.arguments.unwrap_or_default();
        let rc = ctx.request_context;
        Ok(call(engine, args, rc.ct, rc.meta, rc.peer).await.into())
    })
}

/// One progress report: (cycles done, max cycles, message).
type Report = (usize, usize, String);

/// Forwards progress reports to the client as notifications, when it asked
/// for them (a progress token in `_meta`); the engine runs on a blocking
/// thread, so its reports cross a channel to this async task.
fn forward_progress(
    meta: &RequestMetaObject,
    peer: Peer<RoleServer>,
) -> (UnboundedSender<Report>, Option<tokio::task::JoinHandle<()>>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Report>();
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
    (tx, forward)
}

/// One `retrieve` call: parse, run the loop with progress, shape the result.
async fn call(
    engine: Arc<Engine>,
    mut args: JsonObject,
    ct: CancellationToken,
    meta: RequestMetaObject,
    peer: Peer<RoleServer>,
) -> CallToolResult {
    let content = match take_content(&mut args) {
        Ok(c) => c,
        Err(e) => return server::error_result(e),
    };
    let p: RetrieveParams = match server::parse(args) {
        Ok(p) => p,
        // serde's list of the fields lacks `content`, the tool's own: it
        // joins the list after its last field, whichever that is.
        Err(e) if e.contains("unknown field") => {
            return server::error_result(with_content_listed(e));
        }
        Err(e) => return server::error_result(e),
    };
    let max_cycles = p.max_cycles.unwrap_or(crate::config::MAX_CYCLES.default);
    let (tx, forward) = forward_progress(&meta, peer);
    // The closing report's sender: a loop that stops early (sufficient,
    // converged, ...) still ends its progress at `total`.
    let done_tx = tx.clone();
    let cancel = ct.clone();
    let r = server::run(ct, move || {
        let progress = move |done: usize, total: usize, msg: &str| {
            let _ = tx.send((done, total, msg.to_string()));
        };
        let opts = CallOptions {
            cancel: Some(&cancel),
            progress: Some(&progress),
            ..CallOptions::PLAIN
        };
        Retrieve::call(&engine, p, &opts)
    })
    .await;
    if let Ok(out) = &r {
        let stop = out.stop_reason.as_str();
        let message = format!(
            "done after {} of {max_cycles} cycles: {stop}",
            out.cycles.len()
        );
        let _ = done_tx.send((max_cycles, max_cycles, message));
    }
    drop(done_tx);
    if let Some(forward) = forward {
        // Every progress notification goes out before the result.
        let _ = forward.await;
    }
    match r {
        Ok(out) => shaped(out, content),
        Err(e) => e,
    }
}

/// serde's "unknown field `x`, expected one of `task`, …, `deadline_ms`"
/// with `content` after the last field it lists.
fn with_content_listed(mut e: String) -> String {
    if let Some(at) = e
        .find("expected one of")
        .and_then(|from| e[from..].rfind('`').map(|i| from + i + 1))
    {
        e.insert_str(at, ", `content`");
    }
    e
}

/// The result `content` asks for.
fn shaped(mut out: RetrieveOutput, content: Content) -> CallToolResult {
    match content {
        Content::Both => server::result(&out, Retrieve::text(&out)),
        Content::Text => {
            let text = Retrieve::text(&out);
            for f in &mut out.files {
                for sn in &mut f.snippets {
                    sn.text.clear();
                }
            }
            server::result(&out, text)
        }
        Content::Structured => server::result(&out, render::retrieve_summary(&out)),
    }
}
