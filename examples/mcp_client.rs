//! Drives `ctxloop serve` over stdio exactly as an MCP client (an agent) would:
//! spawn the server, list its tools, run `retrieve`, print the ranked files.
//!
//!     cargo build --release
//!     cargo run --example mcp_client -- "fix the token expiry bug" tests/fixtures/authsvc

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args
        .next()
        .unwrap_or_else(|| "how does the loop decide to stop".into());
    let root = args.next().unwrap_or_else(|| ".".into());
    let bin = std::env::var("CTXLOOP_BIN")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/ctxloop").into());
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.arg("serve").arg("--root").arg(&root);
    let client = ().serve(TokioChildProcess::new(cmd)?).await?;

    let tools = client.list_all_tools().await?;
    eprintln!(
        "tools: {:?}",
        tools.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>()
    );

    let mut arguments = serde_json::Map::new();
    arguments.insert("task".into(), task.into());
    let result = client
        .call_tool(CallToolRequestParams::new("retrieve").with_arguments(arguments))
        .await?;
    let out = result.structured_content.unwrap_or_default();
    for f in out["files"].as_array().into_iter().flatten() {
        eprintln!(
            "{:<40} {} {}",
            f["path"].as_str().unwrap_or(""),
            f["tier"],
            f["relevance"]
        );
    }
    client.cancel().await?;
    Ok(())
}
