//! Expanding context (the seeds' "relevant but incomplete → fetch parent /
//! related / config"): in `tests/fixtures/expand`, `Cart.apply_discount` extends
//! `Model` (shop/base.py), reads `MAX_REDUCTION` (shop/limits.py) and names
//! `config/pricing.toml` in a string literal; none of those files shares a word
//! with the task. `refine` must add each, saying which strategy and why, and the
//! next cycle must bring them in as medium-tier context.

use crate::common::*;
use serde_json::json;
use std::path::PathBuf;

fn expand() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/expand")
}

#[tokio::test]
async fn refine_adds_parent_dependency_and_config_with_its_reasons() {
    let c = client(None).await;
    let task = "Cart.apply_discount applies the discount twice";
    let d1 = ok(&c, "dispatch", json!({"task": task, "root": expand()})).await;
    let sid = d1["session_id"].as_str().unwrap().to_string();
    assert_eq!(paths(&d1["candidates"])[0], "shop/cart.py");

    let e1 = ok(&c, "evaluate", json!({"session_id": sid})).await;
    let kinds: Vec<(String, String)> = e1["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["kind"].as_str().unwrap().to_string(),
                g["symbol"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("missing_parent", "Model"),
        ("undefined_symbol", "MAX_REDUCTION"),
        ("config_file", "config/pricing.toml"),
    ] {
        assert!(
            kinds.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} in {kinds:?}"
        );
    }

    let r1 = ok(&c, "refine", json!({"session_id": sid})).await;
    let focus: Vec<String> = r1["added"]["focus_areas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    for (path, strategy) in [
        ("shop/base.py", "parent"),
        ("shop/limits.py", "dependency"),
        ("config/pricing.toml", "config"),
    ] {
        assert!(
            focus
                .iter()
                .any(|f| f.starts_with(&format!("{path}: {strategy} — "))),
            "{path} by {strategy} in {focus:?}"
        );
    }

    let rel = |f: &serde_json::Value| f["relevance"].as_f64().unwrap();
    let first: Vec<(String, f64)> = e1["evaluations"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|f| (f["path"].as_str().unwrap().to_string(), rel(f)))
        .collect();
    let floor = first.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
    ok(&c, "dispatch", json!({"session_id": sid})).await;
    let e2 = ok(&c, "evaluate", json!({"session_id": sid})).await;
    let ranked = paths(&e2["evaluations"]);
    // The gap-closing files are in context, and the first cycle's best five
    // keep their places above them (later cycles add, they do not push down).
    for p in ["shop/base.py", "shop/limits.py", "config/pricing.toml"] {
        assert!(ranked.iter().any(|r| r == p), "{p} in {ranked:?}");
    }
    for f in e2["evaluations"].as_array().unwrap() {
        if !first.iter().any(|(p, _)| f["path"] == p.as_str()) {
            assert!(rel(f) < floor, "{f} above cycle 1's top 5 {first:?}");
        }
    }
    assert!(e2["gaps"].as_array().unwrap().is_empty(), "{}", e2["gaps"]);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_method_snippet_carries_its_class_signature() {
    let c = client(None).await;
    let out = ok(
        &c,
        "retrieve",
        // A budget under which the 160-token file is not shown whole (that
        // takes a budget of twice its tokens or more).
        json!({"task": "Cart.apply_discount applies the discount twice", "root": expand(), "max_cycles": 1, "budget_tokens": 300}),
    )
    .await;
    let cart = &out["files"][0];
    assert_eq!(cart["path"], "shop/cart.py");
    let snippets = cart["snippets"].as_array().unwrap();
    // The class line is a signature above code (merged into the snippet
    // below it, which starts at the blank line above the class), not a
    // one-line snippet of its own.
    assert!(
        snippets.iter().any(|s| s["start_line"] == 7
            && s["text"]
                .as_str()
                .unwrap()
                .starts_with("\nclass Cart(Model):\n    def ")),
        "{snippets:?}"
    );
    assert!(
        !snippets.iter().any(|s| s["start_line"] == s["end_line"]),
        "{snippets:?}"
    );
    // `apply_discount` calls `self.total()`, defined once in the file: the
    // callee is shown too, and the three regions, a blank line apart, are
    // one snippet.
    assert!(
        snippets.iter().any(|s| {
            let t = s["text"].as_str().unwrap();
            t.contains("\n    def total(self):") && t.contains("\n    def apply_discount")
        }),
        "{snippets:?}"
    );
    c.cancel().await.unwrap();
}
