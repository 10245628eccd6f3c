//! Many agents at once, cancellation, progress and deadlines, over an in-process
//! MCP connection (`tokio::io::duplex`) and through the engine.

use crate::common::*;
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::request::CallOptions;
use ctxloop::server::CtxServer;
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::types::StopReason;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestMetaObject, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// A tree of `n` modules, each defining its own handler, plus shared code.
fn modules(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        std::fs::write(
            dir.path().join(format!("mod_{i}.py")),
            format!(
                "from common import log\n\ndef handler_{i}(request):\n    log('handling')\n    return request.payload_{i}\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("common.py"),
        "def log(message):\n    print(message)\n",
    )
    .unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_retrieves_each_get_their_own_answer() {
    let dir = modules(50);
    let client = client(Some(dir.path().to_path_buf())).await;
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..50 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let args = json!({"task": format!("handler_{i} returns the wrong payload_{i}")});
            let serde_json::Value::Object(map) = args else {
                unreachable!()
            };
            let r = peer
                .call_tool(CallToolRequestParams::new("retrieve").with_arguments(map))
                .await
                .expect("tools/call answers");
            (i, r)
        });
    }
    let mut answered = 0;
    while let Some(joined) = calls.join_next().await {
        let (i, r) = joined.unwrap();
        assert_ne!(r.is_error, Some(true), "call {i} failed: {}", text(&r));
        let out = r.structured_content.expect("structuredContent");
        let files = paths(&out["files"]);
        assert_eq!(
            files.first().map(String::as_str),
            Some(format!("mod_{i}.py").as_str()),
            "call {i} got another call's answer: {files:?}"
        );
        answered += 1;
    }
    assert_eq!(answered, 50);
}

#[tokio::test]
async fn a_cancelled_call_leaves_the_server_answering() {
    let dir = modules(200);
    let client = client(Some(dir.path().to_path_buf())).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("retrieve").with_arguments(
            json!({"task": "handler_7 payload"})
                .as_object()
                .unwrap()
                .clone(),
        ),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("request sent");
    handle
        .cancel(Some("the agent moved on".into()))
        .await
        .expect("notifications/cancelled sent");
    // The next call on the same connection is answered normally.
    let out = ok(&client, "retrieve", json!({"task": "handler_9 payload"})).await;
    assert_eq!(paths(&out["files"])[0], "mod_9.py");
}

#[test]
fn the_engine_stops_on_cancellation_and_says_the_answer_is_partial() {
    let dir = modules(20);
    let engine = Engine::new(EngineOptions::default());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let out = engine
        .retrieve(
            RetrieveParams {
                task: "handler_3 payload".into(),
                root: Some(dir.path().to_string_lossy().into_owned()),
                ..Default::default()
            },
            &CallOptions {
                cancel: Some(&cancel),
                ..Default::default()
            },
        )
        .expect("a cancelled call still answers");
    assert_eq!(out.stop_reason, StopReason::Cancelled);
    let truncated = out.truncated.expect("marked truncated");
    assert_eq!(truncated.reason, StopReason::Cancelled);
    assert!(truncated.detail.contains("cycle 1"), "{}", truncated.detail);
    assert_eq!(out.cycles.len(), 1, "no cycle starts after cancellation");
    assert_eq!(
        out.stats.skipped.not_read, out.stats.files_walked,
        "no file is read once cancelled"
    );
}

#[test]
fn deadline_out_of_range_is_refused_with_the_range() {
    let engine = Engine::new(EngineOptions::default());
    let err = engine
        .retrieve(
            RetrieveParams {
                task: "token expiry".into(),
                deadline_ms: Some(0),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("deadline_ms") && err.contains("10"), "{err}");
}

/// A client that records progress notifications.
#[derive(Clone, Default)]
struct Progress(Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params);
    }
}

/// A `retrieve` on a fresh server rooted at `root`, from a client that asks
/// for progress (token 1): the notifications it saw, the client (kept alive
/// while they arrive) and the result.
async fn retrieve_with_progress(
    root: std::path::PathBuf,
    args: serde_json::Value,
) -> (
    Progress,
    RunningService<RoleClient, Progress>,
    rmcp::model::CallToolResult,
) {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = CtxServer::new(EngineOptions {
        root: Some(root),
        ..Default::default()
    });
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let seen = Progress::default();
    let client = seen
        .clone()
        .serve(client_io)
        .await
        .expect("client connects");
    let mut meta = RequestMetaObject::default();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(1)));
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("retrieve")
            .with_arguments(args.as_object().expect("arguments object").clone()),
    ));
    let mut options = PeerRequestOptions::no_options();
    options.meta = Some(meta);
    let handle = client
        .peer()
        .send_request_with_option(request, options)
        .await
        .expect("request sent");
    let ServerResult::CallToolResult(r) = handle.await_response().await.expect("answered") else {
        panic!("not a tools/call result")
    };
    (seen, client, r)
}

#[tokio::test]
async fn progress_is_notified_per_cycle_when_the_client_asks() {
    let dir = modules(30);
    let (seen, _client, r) = retrieve_with_progress(
        dir.path().to_path_buf(),
        json!({"task": "handler_4 payload", "max_cycles": 2, "min_high": 50}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    // Notifications precede the result on the wire; give the client a moment
    // to dispatch them to its handler.
    for _ in 0..100 {
        if !seen.0.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let notes = seen.0.lock().unwrap().clone();
    assert!(!notes.is_empty(), "no progress notification");
    // rmcp's client puts its own progress token on every request.
    assert!(notes
        .iter()
        .all(|n| n.progress_token == notes[0].progress_token));
    assert_eq!(notes[0].progress, 1.0);
    assert_eq!(notes[0].total, Some(2.0));
    assert!(
        notes[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("cycle 1"),
        "{:?}",
        notes[0].message
    );
}

/// A loop that stops before `max_cycles` (here `sufficient` after one cycle)
/// still ends its progress at `total`, so a client's progress bar completes.
#[tokio::test]
async fn progress_reaches_total_when_the_loop_stops_early() {
    let (seen, _client, r) = retrieve_with_progress(
        crate::common::fixture(),
        json!({"task": "fix the token expiry bug", "max_cycles": 3, "min_high": 1}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let out = r.structured_content.expect("structured result");
    assert_eq!(out["stop_reason"], "sufficient", "{out}");
    assert_eq!(out["cycles"].as_array().unwrap().len(), 1, "{out}");
    for _ in 0..100 {
        if seen.0.lock().unwrap().iter().any(|n| n.progress == 3.0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let notes = seen.0.lock().unwrap().clone();
    let progress: Vec<f64> = notes.iter().map(|n| n.progress).collect();
    assert_eq!(progress, [1.0, 3.0], "{notes:?}");
    let last = notes.last().unwrap();
    assert_eq!(last.total, Some(3.0));
    assert!(
        last.message.as_deref().unwrap_or("").contains("sufficient"),
        "{:?}",
        last.message
    );
}
