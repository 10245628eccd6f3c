//! `serve` reads and parses its root in the background at start-up
//! ([`Engine::prefetch`]): it still answers `initialize` and calls at once,
//! the answers reflect the tree at call time, and the prefetch stops when
//! cancelled or when the server exits.

use crate::common::*;
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::CallOptions;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// A tree of `n` Python modules, each defining a function of its own.
fn tree(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        let sub = dir.path().join(format!("pkg{}", i % 20));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("mod{i}.py")),
            format!("def handler_{i}(request):\n    return request.value + {i}\n"),
        )
        .unwrap();
    }
    dir
}

fn engine(root: &Path) -> Engine {
    Engine::new(EngineOptions {
        root: Some(root.to_path_buf()),
        ..Default::default()
    })
}

fn top_paths(engine: &Engine, task: &str) -> Vec<String> {
    engine
        .retrieve(
            RetrieveParams {
                task: task.into(),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap()
        .files
        .into_iter()
        .map(|f| f.path)
        .collect()
}

#[test]
fn prefetch_reads_and_parses_the_root_and_edits_after_it_are_served_fresh() {
    let dir = tree(40);
    let engine = engine(dir.path());
    let done = engine.prefetch(&CancellationToken::new()).unwrap();
    assert_eq!(done.files, 40);
    assert_eq!(done.read, 40, "every file is read: {done:?}");
    assert_eq!(done.parsed, 40, "every source file is parsed: {done:?}");
    assert!(!done.cancelled);
    // Edited after the prefetch, to the same size: the new name is found in it.
    let edited = dir.path().join("pkg7/mod7.py");
    let old = std::fs::read_to_string(&edited).unwrap();
    let new = old.replace("handler_7", "zqxvbnm_7");
    assert_eq!(old.len(), new.len());
    std::fs::write(&edited, new).unwrap();
    assert_eq!(
        top_paths(&engine, "fix zqxvbnm_7")
            .first()
            .map(String::as_str),
        Some("pkg7/mod7.py")
    );
    // A file added after it is found too.
    std::fs::write(
        dir.path().join("pkg3/late.py"),
        "def wqplmk_late():\n    pass\n",
    )
    .unwrap();
    assert_eq!(
        top_paths(&engine, "fix wqplmk_late")
            .first()
            .map(String::as_str),
        Some("pkg3/late.py")
    );
}

#[test]
fn a_cancelled_prefetch_reads_nothing() {
    let dir = tree(10);
    let engine = engine(dir.path());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let done = engine.prefetch(&cancel).unwrap();
    assert!(done.cancelled, "{done:?}");
    assert_eq!((done.read, done.parsed), (0, 0), "{done:?}");
    // The engine works as before.
    assert_eq!(
        top_paths(&engine, "handler_3").first().map(String::as_str),
        Some("pkg3/mod3.py")
    );
}

#[test]
fn prefetch_stops_at_its_cancellation_from_another_thread() {
    let dir = tree(1000);
    let engine = std::sync::Arc::new(engine(dir.path()));
    let cancel = CancellationToken::new();
    let run = {
        let (engine, cancel) = (engine.clone(), cancel.clone());
        std::thread::spawn(move || engine.prefetch(&cancel).unwrap())
    };
    cancel.cancel();
    // Returns (a prefetch that ignored its token would finish the tree: the
    // test cannot tell that apart, but it must not hang or panic).
    let done = run.join().unwrap();
    assert!(done.read <= done.files);
}

/// Over stdio, with the prefetch running on a tree of thousands of files:
/// `initialize` and a call are answered, and the process exits when stdin closes.
#[test]
fn serve_answers_while_prefetching_and_exits_when_stdin_closes() {
    use std::io::{BufRead, Write};
    let dir = tree(1000);
    std::fs::write(
        dir.path().join("pkg0/target.py"),
        "def ykrnpw_target():\n    pass\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
        .arg("serve")
        .arg("--root")
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retrieve","arguments":{"task":"where is ykrnpw_target"}}}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut replies = std::collections::HashMap::new();
    let mut line = String::new();
    while replies.len() < 2 && out.read_line(&mut line).unwrap() > 0 {
        let v: serde_json::Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
        if let Some(id) = v["id"].as_i64() {
            replies.insert(id, v);
        }
        line.clear();
    }
    assert_eq!(replies[&1]["result"]["serverInfo"]["name"], "ctxloop");
    let files = &replies[&2]["result"]["structuredContent"]["files"];
    assert_eq!(
        paths(files).first().map(String::as_str),
        Some("pkg0/target.py")
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn serve_takes_no_prefetch() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
        .args(["serve", "--no-prefetch", "--root"])
        .arg(fixture())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}
