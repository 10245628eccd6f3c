//! Helpers shared by the integration tests: an in-process MCP client connected
//! to the server over `tokio::io::duplex`, and tool-call shortcuts.
#![allow(dead_code)]

#[cfg(target_os = "linux")]
pub mod deep_tree;

use ctxloop::engine::EngineOptions;
use ctxloop::server::CtxServer;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use std::path::PathBuf;

pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/authsvc")
}

pub type Client = RunningService<RoleClient, ()>;

/// A client talking to a fresh server (optionally started with `--root`).
pub async fn client(root: Option<PathBuf>) -> Client {
    client_with(EngineOptions {
        root,
        ..Default::default()
    })
    .await
}

/// A client talking to a fresh server started with `options`.
pub async fn client_with(options: EngineOptions) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = CtxServer::new(options);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("client connects")
}

pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .expect("tools/call answers")
}

/// The structured result of a successful call.
pub async fn ok(client: &Client, tool: &str, args: Value) -> Value {
    let r = call(client, tool, args).await;
    assert_ne!(r.is_error, Some(true), "{tool} failed: {}", text(&r));
    assert!(!text(&r).is_empty(), "{tool} has a text rendering");
    r.structured_content.expect("structuredContent")
}

/// The error text of a failed call.
pub async fn err(client: &Client, tool: &str, args: Value) -> String {
    let r = call(client, tool, args).await;
    assert_eq!(r.is_error, Some(true), "{tool} should fail: {}", text(&r));
    text(&r)
}

pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn paths(files: &Value) -> Vec<String> {
    files
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

pub fn tier_of(files: &Value, path: &str) -> Option<String> {
    files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .map(|f| f["tier"].as_str().unwrap().to_string())
}

pub fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

/// Fails the test with the command's stderr when it did not exit 0.
pub fn assert_succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
