//! The four tools over MCP (in process, `tokio::io::duplex`) on the committed
//! fixture repository `tests/fixtures/authsvc`, where the answer is known: the
//! token expiry bug lives in `auth/token.py`, with `auth/session.py` and the
//! settings in `auth/config.py` around it; `users/profile.py` is unrelated.

use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn retrieve_ranks_token_and_session_high_and_profile_low() {
    let c = client(None).await;
    let out = ok(
        &c,
        "retrieve",
        json!({"task": "Fix the token expiry bug", "root": fixture()}),
    )
    .await;
    let files = &out["files"];
    assert_eq!(paths(files)[0], "auth/token.py");
    assert_eq!(tier_of(files, "auth/token.py").as_deref(), Some("high"));
    assert_eq!(tier_of(files, "auth/session.py").as_deref(), Some("high"));
    assert!(
        matches!(
            tier_of(files, "users/profile.py").as_deref(),
            None | Some("low")
        ),
        "the profile page is unrelated: {files}"
    );
    // Every result names its stop reason, a trace, the root and stats.
    assert!(out["stop_reason"].is_string());
    assert!(!out["cycles"].as_array().unwrap().is_empty());
    assert!(out["root"]["path"].as_str().unwrap().ends_with("authsvc"));
    assert!(out["stats"]["files_walked"].as_u64().unwrap() >= 8);
    // Snippets are 1-based line ranges of the matching definitions.
    let token = &files[0];
    let sn = &token["snippets"][0];
    assert!(sn["start_line"].as_u64().unwrap() >= 1);
    assert!(
        sn["text"].as_str().unwrap().contains("def ")
            || sn["text"].as_str().unwrap().contains("class ")
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn retrieve_respects_the_token_budget() {
    let c = client(None).await;
    let r = call(
        &c,
        "retrieve",
        json!({"task": "token expiry session refresh profile avatar", "root": fixture(), "budget_tokens": 600}),
    )
    .await;
    let out = r.structured_content.clone().unwrap();
    // The budget covers the whole per-file text (headers, reasons, handles),
    // and the text rendering adds only its summary lines and gaps to it.
    assert!(out["tokens"].as_u64().unwrap() <= 600, "{}", out["tokens"]);
    let text_tokens = text(&r).len().div_ceil(4);
    assert!(text_tokens <= 600 + 150, "{text_tokens} tokens of text");
    let dropped = out["dropped"].as_array().unwrap();
    assert!(!dropped.is_empty(), "something had to be left out");
    assert!(
        dropped[0].as_str().unwrap().contains(':'),
        "handles are path:start-end"
    );
}

#[tokio::test]
async fn step_wise_loop_dispatch_evaluate_refine() {
    let c = client(None).await;
    let d1 = ok(
        &c,
        "dispatch",
        json!({"task": "Fix the token expiry bug", "root": fixture()}),
    )
    .await;
    let sid = d1["session_id"].as_str().unwrap().to_string();
    assert_eq!(d1["cycle"], 1);
    let cands = paths(&d1["candidates"]);
    assert!(cands.contains(&"auth/token.py".to_string()), "{cands:?}");

    // The agent is the judge: its scores replace the server's.
    let e1 = ok(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [
            {"path": "auth/token.py", "relevance": 0.95, "missing_context": "who calls is_expired"},
            {"path": "auth/config.py", "relevance": 0.2}
        ]}),
    )
    .await;
    let evals = &e1["evaluations"];
    let rel = |p: &str| {
        evals
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap()["relevance"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(rel("auth/token.py"), 0.95);
    assert_eq!(rel("auth/config.py"), 0.2);
    assert!(e1["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["kind"] == "agent_reported" && g["critical"] == true));
    assert_eq!(e1["decision"], "refine", "a critical gap is open");

    let r1 = ok(
        &c,
        "refine",
        json!({"session_id": sid, "keywords": ["is_expired"]}),
    )
    .await;
    assert_eq!(r1["done"], false);
    assert_eq!(r1["cycle"], 2);
    assert!(r1["query"]["keywords"]
        .as_array()
        .unwrap()
        .contains(&json!("is_expired")));

    let d2 = ok(&c, "dispatch", json!({"session_id": sid})).await;
    assert_eq!(d2["cycle"], 2);
    // Files already returned with an unchanged score are not new again.
    assert!(!paths(&d2["candidates"]).contains(&"auth/token.py".to_string()));
    let e2 = ok(&c, "evaluate", json!({"session_id": sid})).await;
    assert!(e2["high_count"].as_u64().unwrap() >= 1);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_note_becomes_a_gap_cut_to_200_characters() {
    // A 1 MB `missing_context` came back whole as the gap's description,
    // in the text and in the structured content, whatever `budget_tokens`.
    let c = client(None).await;
    let d = ok(
        &c,
        "dispatch",
        json!({"task": "Fix the token expiry bug", "root": fixture(), "budget_tokens": 600}),
    )
    .await;
    let sid = d["session_id"].as_str().unwrap();
    let note = "who calls is_expired ".repeat(50_000);
    let r = call(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [
            {"path": "auth/token.py", "relevance": 0.95, "missing_context": note}
        ]}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let out = r.structured_content.clone().unwrap();
    let gap = out["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] == "agent_reported")
        .expect("the note is a gap");
    let description = gap["description"].as_str().unwrap();
    let kept: String = note.chars().take(200).collect();
    assert_eq!(
        description,
        format!("{kept}… ({} bytes in all)", note.len()),
        "cut as echoed values are"
    );
    assert!(
        out.to_string().len() < 20_000,
        "{} bytes",
        out.to_string().len()
    );
    assert!(text(&r).len() < 20_000, "{} bytes of text", text(&r).len());
    assert!(text(&r).contains(&kept), "the text names the gap");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn dispatch_without_task_or_session_id_names_both() {
    // It said only "task is empty", as if a task were the only way.
    let c = client(Some(fixture())).await;
    for args in [json!({}), json!({"task": "  "})] {
        let msg = err(&c, "dispatch", args.clone()).await;
        assert!(
            msg.starts_with(
                "dispatch needs either `task` (to start a new session) or `session_id` (to continue one)"
            ),
            "{args}: {msg}"
        );
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn evaluate_refuses_two_judgments_of_one_file() {
    // 0.9 and 0.1 for one file were taken silently, the last winning.
    let c = client(Some(fixture())).await;
    let d = ok(&c, "dispatch", json!({"task": "token expiry check"})).await;
    let sid = d["session_id"].as_str().unwrap();
    let msg = err(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [
            {"path": "auth/token.py", "relevance": 0.9},
            {"path": "auth/session.py", "relevance": 0.5},
            {"path": "./auth/token.py", "relevance": 0.1},
        ]}),
    )
    .await;
    assert_eq!(
        msg,
        "invalid judgment for \"./auth/token.py\": the file is judged twice in this call \
         (as \"auth/token.py\" and \"./auth/token.py\"), with relevance 0.9 and 0.1: \
         give each file one judgment"
    );
    // Nothing was applied: the session evaluates as if the call had not been made.
    let e = ok(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [{"path": "auth/token.py", "relevance": 0.9}]}),
    )
    .await;
    let token = e["evaluations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "auth/token.py")
        .unwrap();
    assert_eq!(token["relevance"], 0.9);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_an_error_result_that_says_how_to_fix_it() {
    let c = client(None).await;
    let root = fixture();
    let cases = [
        (
            "retrieve",
            json!({"task": "  ", "root": root}),
            "task is empty",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": "/definitely/not/here"}),
            "does not exist",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root.join("auth/token.py")}),
            "not a directory",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "patterns": ["src/["]}),
            "invalid glob \"src/[\"",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "excludes": ["../secrets"]}),
            "leave the root",
        ),
        (
            "retrieve",
            json!({"task": "token expiry", "root": root, "patterns": ["nosuch/**"]}),
            "matches the include glob \"nosuch/**\" (`patterns`, --include): nothing was searched",
        ),
        // It answered 0 files, stop no_candidates, "9 excluded".
        (
            "retrieve",
            json!({"task": "token expiry", "root": root, "excludes": ["**"]}),
            "the exclude glob \"**\" (`excludes`, --exclude) excludes every file under the root",
        ),
        (
            "dispatch",
            json!({"task": "token expiry", "root": root, "patterns": ["auth/**"], "excludes": ["auth/**"]}),
            "excludes every file under the root",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "max_cycles": 0}),
            "`max_cycles` = 0 is out of range",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "limit": 1000}),
            "`limit` = 1000",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "budget_tokens": 50000}),
            "`budget_tokens` = 50000",
        ),
        (
            "retrieve",
            json!({"task": "x", "root": root, "high_threshold": 1.5}),
            "`high_threshold` = 1.5",
        ),
        (
            "dispatch",
            json!({"session_id": "nope"}),
            "unknown session \"nope\"",
        ),
        (
            "dispatch",
            json!({"root": root}),
            "dispatch needs either `task`",
        ),
        ("evaluate", json!({"session_id": "nope"}), "unknown session"),
        ("refine", json!({"session_id": "nope"}), "unknown session"),
        // The list of valid fields holds the tool's own `content` too.
        (
            "retrieve",
            json!({"task": "x", "bogus": 1}),
            "`deadline_ms`, `content`",
        ),
    ];
    for (tool, args, expected) in cases {
        let msg = err(&c, tool, args.clone()).await;
        assert!(msg.contains(expected), "{tool} {args}: {msg}");
    }
    // A wrong type is answered in-band too, never a crash.
    let r = call(&c, "retrieve", json!({"task": 42})).await;
    assert_eq!(r.is_error, Some(true));

    // Judgments are checked.
    let d = ok(
        &c,
        "dispatch",
        json!({"task": "token expiry", "root": fixture()}),
    )
    .await;
    let sid = d["session_id"].as_str().unwrap();
    let msg = err(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [{"path": "auth/token.py", "relevance": 3.0}]}),
    )
    .await;
    assert!(msg.contains("not in [0, 1]"), "{msg}");
    let msg = err(
        &c,
        "evaluate",
        json!({"session_id": sid, "judgments": [{"path": "nope.py", "relevance": 0.5}]}),
    )
    .await;
    assert!(msg.contains("nope.py"), "{msg}");
    // A continued session keeps its task and root: others are refused, the
    // same ones are accepted.
    let msg = err(
        &c,
        "dispatch",
        json!({"session_id": sid, "task": "password reset"}),
    )
    .await;
    assert!(
        msg.contains("was started with task \"token expiry\"") && msg.contains("Omit `task`"),
        "{msg}"
    );
    let msg = err(
        &c,
        "dispatch",
        json!({"session_id": sid, "root": fixture().join("auth")}),
    )
    .await;
    assert!(msg.contains("was started with root"), "{msg}");
    ok(
        &c,
        "dispatch",
        json!({"session_id": sid, "task": " token expiry ", "root": fixture()}),
    )
    .await;
    // The server still answers afterwards.
    ok(&c, "evaluate", json!({"session_id": sid})).await;
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_root_argument_may_only_narrow_the_server_root() {
    let c = client(Some(fixture().join("auth"))).await;
    let msg = err(
        &c,
        "retrieve",
        json!({"task": "profile", "root": fixture()}),
    )
    .await;
    assert!(msg.contains("outside the server's root"), "{msg}");
    let msg = err(&c, "retrieve", json!({"task": "profile", "root": ".."})).await;
    assert!(msg.contains("outside the server's root"), "{msg}");
    // A blank root is refused, not read as the server's root (it was).
    for root in ["", " ", "\t\n"] {
        for tool in ["retrieve", "dispatch"] {
            let args = json!({"task": "token expiry", "root": root});
            let msg = err(&c, tool, args.clone()).await;
            assert!(
                msg.contains(
                    "is blank: omit `root` to search the server's root, or pass a directory"
                ),
                "{tool} {args}: {msg}"
            );
        }
    }
    let d = ok(&c, "dispatch", json!({"task": "token expiry"})).await;
    let sid = d["session_id"].as_str().unwrap();
    let msg = err(&c, "dispatch", json!({"session_id": sid, "root": " "})).await;
    assert!(msg.contains("is blank"), "{msg}");
    // Without `root` the server's root is searched; nothing outside it comes back.
    let out = ok(&c, "retrieve", json!({"task": "token expiry session"})).await;
    for p in paths(&out["files"]) {
        assert!(!p.contains(".."), "{p}");
        assert!(
            fixture().join("auth").join(&p).is_file(),
            "{p} is under the root"
        );
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_are_read_only_with_output_schemas_and_the_prompt_exists() {
    let c = client(None).await;
    let tools = c.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["dispatch", "evaluate", "refine", "retrieve"]);
    for t in &tools {
        assert_eq!(
            t.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true)
        );
        assert!(t.output_schema.is_some(), "{} has an outputSchema", t.name);
        // Every input field is described.
        let props = t
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .unwrap();
        for (name, schema) in props {
            assert!(
                schema.get("description").is_some(),
                "{}.{name} has a description",
                t.name
            );
        }
    }
    let prompts = c.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "gather_context"));
    let p = c
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("gather_context")
                .with_arguments(obj(json!({"task": "fix the token expiry bug"}))),
        )
        .await
        .unwrap();
    let body = serde_json::to_string(&p).unwrap();
    assert!(
        body.contains("fix the token expiry bug") && body.contains("3 cycles"),
        "{body}"
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_wrong_type_names_the_field_its_type_and_range() {
    let c = client(None).await;
    let root = fixture();
    let cases = [
        (json!({"task": "x", "root": root, "limit": "5"}), "`limit` must be a whole number from 1 to 100 (or null for the default), not the string \"5\""),
        (json!({"task": 42, "root": root}), "`task` must be a string, not the number 42"),
        (json!({"task": "x", "root": root, "max_cycles": -1}), "`max_cycles` must be a whole number from 1 to 10"),
        (json!({"task": "x", "root": root, "limit": 2.5}), "not the fraction 2.5"),
    ];
    for (args, expected) in cases {
        let msg = err(&c, "retrieve", args.clone()).await;
        assert!(msg.contains(expected), "{args}: {msg}");
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn step_wise_errors_name_the_missing_step_keep_settings_and_clip_echoes() {
    let c = client(None).await;
    let d = ok(
        &c,
        "dispatch",
        json!({"task": "token expiry", "root": fixture()}),
    )
    .await;
    let sid = d["session_id"].as_str().unwrap();
    // D15: refine before evaluate names `evaluate`, the step actually missing.
    let msg = err(&c, "refine", json!({"session_id": sid})).await;
    assert!(
        msg.contains("call `evaluate` with this session_id first"),
        "{msg}"
    );
    // D16: settings fixed at the start are refused when continuing with other values.
    for (field, value) in [
        ("budget_tokens", json!(5)),
        ("high_threshold", json!(7.0)),
        ("min_high", json!(0)),
        ("max_cycles", json!(9)),
    ] {
        let msg = err(&c, "dispatch", json!({"session_id": sid, field: value})).await;
        assert!(
            msg.contains(&format!("was started with {field}")),
            "{field}: {msg}"
        );
    }
    ok(
        &c,
        "dispatch",
        json!({"session_id": sid, "budget_tokens": 6000, "min_high": 3}),
    )
    .await;
    // D17: a 1 MB task is not echoed back whole.
    let big = "token ".repeat(200_000);
    let msg = err(&c, "dispatch", json!({"session_id": sid, "task": big})).await;
    assert!(
        msg.len() < 1_000 && msg.contains("bytes in all"),
        "{} bytes",
        msg.len()
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_list_argument_holds_at_most_256_items_in_every_tool() {
    // 2,000 keywords pushed the task's own words out of the query ("token
    // expiry" answered 0 files, stop no_candidates), and each include glob
    // costs a compiled matcher before the deadline is checked (4,000: 5.8 s).
    let c = client(Some(fixture())).await;
    let many = |f: &dyn Fn(usize) -> String| (0..257).map(f).collect::<Vec<_>>();
    let globs = many(&|i| format!("src/x{i}*.py"));
    let words = many(&|i| format!("w{i}_tok"));
    for (field, list) in [
        ("patterns", &globs),
        ("excludes", &globs),
        ("keywords", &words),
    ] {
        let msg = err(&c, "retrieve", json!({"task": "token expiry", field: list})).await;
        assert!(
            msg.starts_with(&format!("`{field}` holds 257 items: pass at most 256")),
            "{field}: {msg}"
        );
        let msg = err(&c, "dispatch", json!({"task": "token expiry", field: list})).await;
        assert!(msg.contains("holds 257 items"), "dispatch {field}: {msg}");
    }
    // 256 are fine, and the task's words still rank the file.
    let out = ok(
        &c,
        "retrieve",
        json!({"task": "token expiry", "keywords": &words[..256], "max_cycles": 1}),
    )
    .await;
    assert_eq!(out["files"][0]["path"], "auth/token.py", "{out}");
    // A continued session and refine are checked too.
    let d = ok(&c, "dispatch", json!({"task": "token expiry"})).await;
    let sid = d["session_id"].as_str().unwrap();
    let msg = err(
        &c,
        "dispatch",
        json!({"session_id": sid, "keywords": &words}),
    )
    .await;
    assert!(msg.contains("`keywords` holds 257 items"), "{msg}");
    ok(&c, "evaluate", json!({"session_id": sid})).await;
    let msg = err(&c, "refine", json!({"session_id": sid, "excludes": &globs})).await;
    assert!(msg.contains("`excludes` holds 257 items"), "{msg}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_session_runs_no_cycle_beyond_its_max_cycles() {
    let c = client(None).await;
    let d = ok(
        &c,
        "dispatch",
        json!({"task": "token expiry", "root": fixture(), "max_cycles": 2}),
    )
    .await;
    let sid = d["session_id"].as_str().unwrap();
    for cycle in 1..=2 {
        ok(&c, "evaluate", json!({"session_id": sid})).await;
        let r = ok(&c, "refine", json!({"session_id": sid})).await;
        if cycle == 1 {
            let d = ok(&c, "dispatch", json!({"session_id": sid})).await;
            assert_eq!(d["cycle"], 2, "{d}");
        } else {
            assert_eq!(r["done"], true, "{r}");
        }
    }
    // The probe of 2026-12-06 ran a max_cycles 1 session to cycle 21.
    let msg = err(&c, "dispatch", json!({"session_id": sid})).await;
    assert!(
        msg.contains("has run all of its 2 cycles") && msg.contains("Call `evaluate`"),
        "{msg}"
    );
    // Its last evaluation still answers.
    ok(&c, "evaluate", json!({"session_id": sid})).await;
    c.cancel().await.unwrap();
}

/// A tree where every file matches the task many times, with long paths:
/// answers at the maxima fill every budget.
fn matching_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..150 {
        let sub = dir
            .path()
            .join(format!("src/network/connection_handling/module_{i:03}"));
        std::fs::create_dir_all(&sub).unwrap();
        let mut text = String::new();
        for j in 0..12 {
            text.push_str(&format!(
                "def handle_connection_timeout_error_{j}(conn, timeout):\n    \"\"\"Error handling when the connection times out.\"\"\"\n"
            ));
            for k in 0..25 {
                text.push_str(&format!("    if conn.timed_out({k}): raise ConnectionTimeoutError(\"connection times out {k}\")\n"));
            }
        }
        std::fs::write(sub.join(format!("timeout_errors_{i}.py")), text).unwrap();
    }
    dir
}

#[tokio::test]
async fn at_the_maxima_the_text_fits_the_clients_cap_and_content_chooses_what_is_sent() {
    let tree = matching_tree();
    let c = client(None).await;
    let task = "error handling when the connection times out";
    let mut sizes = Vec::new();
    for (limit, budget) in [(100, 20_000), (100, 100), (10, 20_000), (100, 6_000)] {
        let r = call(
            &c,
            "retrieve",
            json!({"task": task, "root": tree.path(), "limit": limit, "budget_tokens": budget}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let text_tokens = text(&r).len().div_ceil(4);
        let structured = serde_json::to_string(r.structured_content.as_ref().unwrap()).unwrap();
        assert!(
            text_tokens < 25_000,
            "limit {limit} budget {budget}: {text_tokens} tokens of text"
        );
        // README: structuredContent is at most 200 KB (50k tokens).
        assert!(
            structured.len() < 200_000,
            "limit {limit} budget {budget}: {} bytes",
            structured.len()
        );
        sizes.push((limit, budget, text_tokens, structured.len()));
    }
    eprintln!("(limit, budget, text tokens, structured bytes): {sizes:?}");
    let args = |content: &str| json!({"task": task, "root": tree.path(), "limit": 100, "budget_tokens": 20_000, "content": content});
    let both = call(&c, "retrieve", args("both")).await;
    let only_text = call(&c, "retrieve", args("text")).await;
    let only_structured = call(&c, "retrieve", args("structured")).await;
    // The same text (past the summary line, which has the elapsed time).
    let body = |r: &rmcp::model::CallToolResult| text(r).split_once('\n').unwrap().1.to_string();
    assert!(
        body(&only_text) == body(&both),
        "text mode sends the same text rendering"
    );
    let snippet_text = |r: &rmcp::model::CallToolResult| {
        r.structured_content.as_ref().unwrap()["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["snippets"].as_array().unwrap().iter())
            .map(|s| s["text"].as_str().unwrap().len())
            .sum::<usize>()
    };
    assert_eq!(
        snippet_text(&only_text),
        0,
        "text mode: structured content has ranges only"
    );
    assert!(snippet_text(&only_structured) > 0);
    let files =
        |r: &rmcp::model::CallToolResult| r.structured_content.as_ref().unwrap()["files"].clone();
    assert!(
        files(&only_structured) == files(&both),
        "structured mode sends the full files"
    );
    assert!(
        text(&only_structured).lines().count() == 1
            && text(&only_structured).contains("structuredContent")
    );
    let e = err(&c, "retrieve", args("html")).await;
    assert!(e.contains("`content` must be"), "{e}");
    c.cancel().await.unwrap();
}

/// Probe 32, P16: in `patterns` a leading `!` excludes, as ripgrep's `-g`
/// does; in `excludes` it is refused, with where it belongs, in every tool
/// that takes excludes (it silently did nothing, or took back an earlier
/// exclude).
#[tokio::test]
async fn a_leading_bang_excludes_in_patterns_and_is_refused_in_excludes() {
    let c = client(Some(fixture())).await;
    let task = "token expiry session";
    let out = ok(
        &c,
        "retrieve",
        json!({"task": task, "patterns": ["!auth/**"]}),
    )
    .await;
    let found = paths(&out["files"]);
    assert!(
        !found.is_empty() && found.iter().all(|p| !p.starts_with("auth/")),
        "{found:?}"
    );
    let fix = "a leading `!` means exclude, and only in an include list (`patterns`), as in \
               ripgrep's -g '!GLOB'; an exclude glob cannot start with it. To fix it, put \
               \"auth/**\" in `excludes`, or \"!auth/**\" in `patterns`";
    for tool in ["retrieve", "dispatch"] {
        let msg = err(&c, tool, json!({"task": task, "excludes": ["!auth/**"]})).await;
        assert_eq!(msg, format!("\"!auth/**\" in `excludes`: {fix}"), "{tool}");
    }
    let d = ok(&c, "dispatch", json!({"task": task})).await;
    let sid = d["session_id"].as_str().unwrap();
    let args = json!({"session_id": sid, "excludes": ["auth/**", "!auth/token.py"]});
    let msg = err(&c, "refine", args).await;
    assert!(msg.starts_with("\"!auth/token.py\" in `excludes`"), "{msg}");
    // Refused whole: the session goes on with neither glob.
    let next = ok(&c, "dispatch", json!({"session_id": sid})).await;
    assert!(
        next["query"]["excludes"].as_array().unwrap().is_empty(),
        "{next}"
    );
    c.cancel().await.unwrap();
}
