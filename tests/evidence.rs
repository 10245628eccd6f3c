//! Snippets follow the evidence, in every tool (issue 13, items 2 and 5).
//! `tests/fixtures/evidence` holds two small equivalents of the probe's
//! cases: `web/cookies.py`, where the SameSite setting is read by a short
//! getter and used by `store` (which sets the cookie) in a subclass far below
//! its class line; and `text/TextUtils.java`, whose one-line `abbreviate`
//! overloads delegate to the four-argument one holding the message the task
//! quotes ("Minimum abbreviation width is %d").

use crate::common::*;
use serde_json::{json, Value};
use std::path::PathBuf;

fn evidence() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/evidence")
}

const SAMESITE: &str = "session cookie is not set when SESSION_COOKIE_SAMESITE is None";
const ABBREVIATE: &str = "TextUtils.abbreviate throws IllegalArgumentException: \
Minimum abbreviation width is 4 when maxWidth is 3";

/// The snippets of `path` in `files` that kept their text.
fn shown<'a>(files: &'a Value, path: &str) -> Vec<&'a Value> {
    files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in {files}"))["snippets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["text"].as_str().unwrap().is_empty())
        .collect()
}

fn covers(snippets: &[&Value], needle: &str) -> bool {
    snippets
        .iter()
        .any(|s| s["text"].as_str().unwrap().contains(needle))
}

#[tokio::test]
async fn the_top_file_shows_the_function_holding_the_quoted_message() {
    let c = client(None).await;
    let out = ok(
        &c,
        "retrieve",
        json!({"task": ABBREVIATE, "root": evidence()}),
    )
    .await;
    assert_eq!(out["files"][0]["path"], "text/TextUtils.java");
    let sn = shown(&out["files"], "text/TextUtils.java");
    assert!(
        covers(&sn, "\"Minimum abbreviation width is %d\""),
        "the overload throwing the task's message is shown: {sn:?}"
    );
    assert!(
        covers(
            &sn,
            "public static String abbreviate(final String str, final String marker, int offset"
        ),
        "with its signature: {sn:?}"
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn the_top_file_shows_where_the_setting_is_read_and_used() {
    let c = client(None).await;
    let out = ok(
        &c,
        "retrieve",
        json!({"task": SAMESITE, "root": evidence()}),
    )
    .await;
    assert_eq!(out["files"][0]["path"], "web/cookies.py");
    let sn = shown(&out["files"], "web/cookies.py");
    assert!(
        covers(&sn, "return app.config[\"SESSION_COOKIE_SAMESITE\"]"),
        "{sn:?}"
    );
    assert!(covers(&sn, "response.set_cookie("), "{sn:?}");
    // A class line is a signature above code, never a snippet of its own.
    for s in &sn {
        let text = s["text"].as_str().unwrap();
        assert!(
            text.contains('\n') || !text.trim_start().starts_with("class "),
            "one-line class snippet: {s}"
        );
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn dispatch_and_evaluate_return_snippets_within_the_budget() {
    let c = client(None).await;
    let budget = 600;
    let d = ok(
        &c,
        "dispatch",
        json!({"task": ABBREVIATE, "root": evidence(), "budget_tokens": budget}),
    )
    .await;
    assert_eq!(d["candidates"][0]["path"], "text/TextUtils.java");
    let sn = shown(&d["candidates"], "text/TextUtils.java");
    assert!(covers(&sn, "Minimum abbreviation width is %d"), "{d}");
    assert!(d["tokens"].as_u64().unwrap() <= budget, "{}", d["tokens"]);
    // What the budget left out is named as handles the agent can open.
    for h in d["dropped"].as_array().unwrap() {
        let h = h.as_str().unwrap();
        assert!(h.contains(".java:") && h.contains('-'), "{h}");
    }
    let sid = d["session_id"].as_str().unwrap();
    let e = ok(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [{"path": "text/TextUtils.java", "relevance": 0.95}]}),
    )
    .await;
    let top = &e["evaluations"][0];
    assert_eq!(top["path"], "text/TextUtils.java");
    let sn = shown(&e["evaluations"], "text/TextUtils.java");
    assert!(covers(&sn, "Minimum abbreviation width is %d"), "{e}");
    assert!(sn.iter().all(|s| s["start_line"].as_u64().unwrap() >= 1
        && s["start_line"].as_u64() <= s["end_line"].as_u64()));
    assert!(e["tokens"].as_u64().unwrap() <= budget, "{}", e["tokens"]);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn refine_says_what_it_added_and_why() {
    let c = client(None).await;
    let d = ok(
        &c,
        "dispatch",
        json!({"task": SAMESITE, "root": evidence()}),
    )
    .await;
    let sid = d["session_id"].as_str().unwrap();
    ok(&c, "evaluate", json!({"session_id": sid})).await;
    let r = ok(
        &c,
        "refine",
        json!({"session_id": sid, "patterns": ["web/**"], "keywords": ["samesite"], "excludes": ["docs"]}),
    )
    .await;
    let added = &r["added"];
    assert_eq!(added["patterns"], json!(["web/**: from the agent"]), "{r}");
    assert_eq!(
        added["keywords"],
        json!(["samesite: from the agent"]),
        "{r}"
    );
    assert!(
        r["excluded"]
            .as_array()
            .unwrap()
            .contains(&json!("docs: from the agent")),
        "{r}"
    );
    c.cancel().await.unwrap();
}
