//! The MCP server: the rmcp handler over the tools of [`crate::tools::TOOLS`]
//! (its router is built from that list at start). Each tool runs on the
//! engine on a blocking thread (walking and parsing are CPU work) and returns
//! `structuredContent` plus a compact text rendering. Logs go to stderr only.

mod args;
mod call;
mod id_scan;
mod prompt;
mod transport;

pub use transport::LineTransport;

/// Validates `serve`'s roots before the server starts (see the function).
pub use crate::confine::server_roots;
use crate::engine::{Engine, EngineOptions};
use crate::tools::TOOLS;
pub(crate) use call::{error_result, input_schema, parse, result, route, run, tool_attr, Reply};
use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CustomRequest, CustomResult, ErrorData, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use rmcp::{prompt_handler, tool_handler, ServerHandler, ServiceExt};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The instructions' words before and after the tools' own parts
/// ([`crate::tools::Tool::GUIDE`]).
const INSTRUCTIONS_OPEN: &str =
    "ctxloop finds the source files a coding task needs, ranked with evidence, \
without an index or network. Use it before grep when you do not yet know which files matter.";
const INSTRUCTIONS_CLOSE: &str =
    "The prompt `gather_context` spells out that protocol for sub-agents.";

/// Instructions sent at initialization: when to use which tool, one part per
/// tool of [`TOOLS`], in its order.
pub fn instructions() -> String {
    let mut parts = vec![INSTRUCTIONS_OPEN];
    parts.extend(TOOLS.iter().map(|t| t.guide));
    parts.push(INSTRUCTIONS_CLOSE);
    parts.join(" ")
}

/// The MCP server: the tools of [`TOOLS`] and the `gather_context` prompt
/// over one shared [`Engine`]. Cloning shares the engine.
#[derive(Clone)]
pub struct CtxServer {
    engine: Arc<Engine>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl CtxServer {
    /// A server with its own engine.
    pub fn new(options: EngineOptions) -> Self {
        Self::with_engine(Arc::new(Engine::new(options)))
    }

    /// A server over a shared engine (e.g. one a test also calls directly).
    pub fn with_engine(engine: Arc<Engine>) -> Self {
        let mut tool_router = ToolRouter::new();
        for t in TOOLS {
            tool_router.add_route((t.route)());
        }
        Self {
            engine,
            tool_router,
            prompt_router: Self::prompt_router(),
        }
    }

    /// The engine the tools call.
    pub(crate) fn engine(&self) -> &Arc<Engine> {
        &self.engine
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
        .with_instructions(instructions())
    }

    /// `tools/call`, routed by the tool router; an unknown tool's error names
    /// it and the tools there are (rmcp says only "tool not found").
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        if !self.tool_router.has_route(&request.name) {
            let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`: the tools are {}",
                    crate::error::clip_to(&request.name, 100),
                    names.join(", ")
                ),
                None,
            ));
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
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
                let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
                Err(missing("tool", &names.join(", ")))
            }
            "prompts/get" if !has_name => Err(missing("prompt", "gather_context")),
            "tools/call" | "prompts/get" | "tools/list" | "prompts/list" | "initialize"
            | "ping" => Err(ErrorData::invalid_params(
                format!(
                    "invalid params for `{}`: {}",
                    request.method,
                    crate::error::clip_to(&params.to_string(), 200)
                ),
                None,
            )),
            _ => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {}",
                    crate::error::clip_to(&request.method, 100)
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
    let deadline_ms = server.engine.deadline_ms(None)?;
    // Cancelled however this function returns (stdin closed, Ctrl-C, error).
    let _prefetch = start_prefetch(&server.engine, prefetch).drop_guard();
    let transport = LineTransport::stdio().with_deadline_ms(deadline_ms);
    let running = match server.serve(transport).await {
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

#[cfg(test)]
mod tests {
    /// The instructions name every tool of the list, in its order, between
    /// the opening (what ctxloop is for) and the pointer to the prompt.
    #[test]
    fn instructions_name_every_tool_in_the_lists_order() {
        let text = super::instructions();
        assert!(text.starts_with("ctxloop finds the source files"), "{text}");
        assert!(text.ends_with("spells out that protocol for sub-agents."));
        let mut from = 0;
        for t in super::TOOLS {
            let name = format!("`{}`", t.name);
            let at = text[from..]
                .find(&name)
                .unwrap_or_else(|| panic!("{name} missing or out of order"));
            from += at + name.len();
        }
    }
}
