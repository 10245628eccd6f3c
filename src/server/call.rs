//! How the server runs a [`Tool`]: its `tools/list` entry, its route (parse
//! the arguments, run the call on a blocking thread, answer its JSON and
//! text) and the pieces a tool with its own route reuses.

use super::CtxServer;
use crate::error::Error;
use crate::request::CallOptions;
use crate::tools::Tool;
use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject, ToolAnnotations,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A tool's input schema, from its params type (the tools take raw arguments
/// and check them with [`parse`], for errors that name the field).
pub(crate) fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|e| panic!("invalid input schema: {e}"))
}

/// `args` as the tool's params, or the error text saying which field is
/// wrong and how.
pub(crate) fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    args: JsonObject,
) -> Result<T, String> {
    super::args::parse(args)
}

/// Tool `T`'s `tools/list` entry with `input_schema`: read-only, closed-world.
pub(crate) fn tool_attr<T: Tool>(input_schema: Arc<JsonObject>) -> rmcp::model::Tool {
    let annotations = ToolAnnotations::new().read_only(true).open_world(false);
    rmcp::model::Tool::new_with_raw(T::NAME, Some(T::DESCRIPTION.into()), input_schema)
        .with_raw_output_schema(schema_for_output::<T::Output>())
        .with_annotations(annotations)
}

/// The default route of tool `T` ([`Tool::route`]): its params' schema, and
/// [`call`] as its handler.
pub(crate) fn route<T: Tool>() -> ToolRoute<CtxServer> {
    ToolRoute::new_dyn(tool_attr::<T>(input_schema::<T::Params>()), call::<T>)
}

/// What a route's handler returns: rmcp's boxed future of the response.
pub(crate) type Reply<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a>>;

/// The default call of tool `T`: parse the arguments, run [`Tool::call`]
/// with the request's cancellation, answer its JSON and [`Tool::text`].
fn call<T: Tool>(ctx: ToolCallContext<'_, CtxServer>) -> Reply<'_> {
    Box::pin(async move {
        let engine = ctx.service.engine().clone();
        let ct = ctx.request_context.ct;
        let p: T::Params = match parse(ctx.arguments.unwrap_or_default()) {
            Ok(p) => p,
            Err(e) => return Ok(error_result(e).into()),
        };
        let cancel = ct.clone();
        let r = run(ct, move || {
            let opts = CallOptions {
                cancel: Some(&cancel),
                ..CallOptions::PLAIN
            };
            T::call(&engine, p, &opts)
        })
        .await;
        Ok(r.map_or_else(|e| e, |out| result(&out, T::text(&out)))
            .into())
    })
}

/// A successful result: `value` as `structuredContent`, `text` as its content.
pub(crate) fn result<T: Serialize>(value: &T, text: String) -> CallToolResult {
    let json = serde_json::to_value(value).unwrap_or_default();
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(json);
    r
}

/// An error result whose text is `text`.
pub(crate) fn error_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// Runs engine work off the async executor; a cancelled request stops waiting.
pub(crate) async fn run<T: Send + 'static>(
    ct: CancellationToken,
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, CallToolResult> {
    let handle = tokio::task::spawn_blocking(f);
    tokio::select! {
        r = handle => match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(error_result(e.to_string())),
            Err(e) => Err(error_result(format!("internal error: {e}"))),
        },
        _ = ct.cancelled() => Err(error_result("cancelled by the client")),
    }
}
