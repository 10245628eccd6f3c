//! The real binary: MCP over its stdin/stdout (as agent configurations launch
//! it), and the CLI's `retrieve` with its formats, `--out` and errors.

use crate::common::{assert_succeeded, fixture};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ctxloop");

#[tokio::test]
async fn serve_speaks_mcp_over_stdio() {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve").arg("--root").arg(fixture());
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "ctxloop");
    assert!(info
        .instructions
        .as_deref()
        .unwrap_or("")
        .contains("retrieve"));
    let r = client
        .call_tool(
            CallToolRequestParams::new("retrieve").with_arguments(crate::common::obj(
                serde_json::json!({"task": "fix the token expiry bug"}),
            )),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true));
    let out = r.structured_content.unwrap();
    assert_eq!(out["files"][0]["path"], "auth/token.py");
    client.cancel().await.unwrap();
}

#[test]
fn serve_exits_cleanly_when_stdin_closes() {
    let out = Command::new(BIN)
        .arg("serve")
        .arg("--root")
        .arg(fixture())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_succeeded(&out);
    assert!(
        out.stdout.is_empty(),
        "nothing but JSON-RPC may reach stdout"
    );
}

#[test]
fn cli_retrieve_prints_json_text_and_markdown() {
    let run = |fmt: &str| {
        let out = Command::new(BIN)
            .args([
                "retrieve",
                "fix the token expiry bug",
                "--format",
                fmt,
                "--root",
            ])
            .arg(fixture())
            .output()
            .unwrap();
        assert_succeeded(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json["files"][0]["path"], "auth/token.py");
    assert!(run("text").contains("#1 auth/token.py [high"));
    assert!(run("markdown").contains("| 1 | `auth/token.py` | high |"));
}

#[test]
fn cli_out_writes_the_format_of_the_extension() {
    // What a parent agent hands a sub-agent that cannot call MCP tools: a file.
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str| {
        let file = dir.path().join(name);
        let out = Command::new(BIN)
            .args(["retrieve", "fix the token expiry bug", "--root"])
            .arg(fixture())
            .arg("--out")
            .arg(&file)
            .output()
            .unwrap();
        assert_succeeded(&out);
        assert!(out.stdout.is_empty(), "--out leaves stdout empty");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains(&format!("wrote 4 files to {}", file.display())),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&file).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&write("context.json")).unwrap();
    assert_eq!(json["files"][0]["path"], "auth/token.py");
    let md = write("context.md");
    assert!(
        md.starts_with("# ctxloop context\n\nTask: fix the token expiry bug\n"),
        "a sub-agent handed the file sees the task: {md}"
    );
    assert!(md.contains("| 1 | `auth/token.py` | high |"), "{md}");
    assert!(
        md.contains("## auth/token.py:17-21\n\n```py\n    def is_expired"),
        "snippets are fenced code under path:start-end headings: {md}"
    );
}

#[test]
fn serve_refuses_a_root_that_is_not_a_directory() {
    let out = Command::new(BIN)
        .args(["serve", "--root", "/definitely/not/here"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    assert!(out.stdout.is_empty());
}

#[test]
fn cli_errors_go_to_stderr_with_a_nonzero_exit() {
    let cases: &[(&[&str], &str)] = &[
        (&["retrieve", "", "--root", "."], "task is empty"),
        (
            &["retrieve", "x", "--root", "/definitely/not/here"],
            "does not exist",
        ),
        (
            &["retrieve", "x", "--include", "a/[", "--root", "."],
            "invalid glob \"a/[\" in --include",
        ),
        (
            &["retrieve", "x", "--max-cycles", "99", "--root", "."],
            "--max-cycles 99 is out of range",
        ),
    ];
    for (args, expected) in cases {
        let out = Command::new(BIN).args(*args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}
