//! Every call is bounded (probe D4, D5): a source file tree-sitter is slow
//! on stops being parsed at the call's deadline or cancellation and is named
//! in `stats.not_parsed`, ranked by its text; a task of thousands of distinct
//! words answers, with its query cut to the documented number of terms.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::request::CallOptions;
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::types::{RetrieveOutput, StopReason};
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// A Python file whose error recovery builds a very deep tree: a definition
/// then lines of unclosed `(` (probe D4: 100 KB took 12.5 s, 900 KB over
/// 300 s, whatever the deadline).
fn nested_python(bytes: usize) -> String {
    let mut s = String::from("def zorblax_handler():\n    pass\n");
    while s.len() < bytes {
        s.push_str(&"(".repeat(60));
        s.push('\n');
    }
    s
}

/// (The deadline and the cancellation come late enough, 1 s and 0.6 s, that
/// on a loaded machine the walk and reads are done and `nested.py` is being
/// parsed, and early enough that its parse budget, 1.15 s of CPU, is not spent.)
fn tree(dir: &Path) {
    std::fs::write(dir.join("nested.py"), nested_python(900_000)).unwrap();
    std::fs::write(
        dir.join("handler.py"),
        "def zorblax_handler(event):\n    return route_zorblax(event)\n",
    )
    .unwrap();
}

fn params(dir: &Path, deadline_ms: u64) -> RetrieveParams {
    RetrieveParams {
        task: "zorblax_handler".into(),
        root: Some(dir.to_string_lossy().into_owned()),
        deadline_ms: Some(deadline_ms),
        ..Default::default()
    }
}

fn not_parsed(out: &RetrieveOutput) -> Vec<(&str, &str)> {
    out.stats
        .not_parsed
        .iter()
        .map(|n| (n.path.as_str(), n.reason.as_str()))
        .collect()
}

#[test]
fn a_deeply_nested_file_stops_at_the_deadline_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let out = Engine::new(EngineOptions::default())
        .retrieve(params(dir.path(), 1_000), &CallOptions::PLAIN)
        .expect("retrieve answers");
    let named = not_parsed(&out);
    assert!(
        named
            .iter()
            .any(|(p, r)| *p == "nested.py" && (*r == "stopped" || *r == "parse_budget")),
        "{named:?}"
    );
    // Both files still rank: the nested one by its text alone.
    let paths: Vec<&str> = out.files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"handler.py") && paths.contains(&"nested.py"),
        "{paths:?}"
    );
    assert_eq!(out.stop_reason, StopReason::Deadline, "{:?}", out.truncated);
}

#[test]
fn a_cancelled_call_stops_parsing_the_file() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let engine = Engine::new(EngineOptions::default());
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(600));
        c.cancel();
    });
    let out = engine
        .retrieve(
            params(dir.path(), 3_600_000),
            &CallOptions {
                cancel: Some(&cancel),
                ..Default::default()
            },
        )
        .expect("retrieve answers");
    canceller.join().unwrap();
    assert_eq!(
        out.stop_reason,
        StopReason::Cancelled,
        "{:?}",
        out.truncated
    );
    assert!(
        not_parsed(&out).contains(&("nested.py", "stopped")),
        "{:?}",
        out.stats.not_parsed
    );
}

#[test]
fn a_task_of_thousands_of_distinct_words_answers_from_the_task_s_code_terms() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("handler.py"),
        "def zorblax_handler(event):\n    return event\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("other.py"), "def unrelated():\n    pass\n").unwrap();
    // 8,000 distinct words after a title naming the function (probe D5: 10 s
    // against a 1 s deadline, 0 files read).
    let mut task = String::from("zorblax_handler drops events\n");
    let mut x: u64 = 1;
    for _ in 0..8000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        task.push_str(&format!("w{:x}tok ", x >> 24));
    }
    let out = Engine::new(EngineOptions::default())
        .retrieve(
            RetrieveParams {
                task,
                root: Some(dir.path().to_string_lossy().into_owned()),
                deadline_ms: Some(60_000),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .expect("retrieve answers");
    assert_eq!(
        out.files.first().map(|f| f.path.as_str()),
        Some("handler.py")
    );
    assert!(out.truncated.is_none(), "{:?}", out.truncated);
}
