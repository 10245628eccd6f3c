//! Missing context as data, end to end through the MCP tools: in
//! `tests/fixtures/constgap`, `Invoice.overdue_penalty` reads the constant
//! `SURCHARGE_RATIO`, defined in `billing/settings.py`, a file that shares no
//! word with the task. Cycle 1 finds the function and reports the constant as a
//! critical gap pointing at its definition; the next cycle brings the
//! definition in and the gap closes.

use crate::common::*;
use serde_json::{json, Value};
use std::path::PathBuf;

fn constgap() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/constgap")
}

fn gap_for<'a>(gaps: &'a Value, symbol: &str) -> Option<&'a Value> {
    gaps.as_array()
        .unwrap()
        .iter()
        .find(|g| g["symbol"] == symbol)
}

#[tokio::test]
async fn a_constant_defined_elsewhere_is_a_gap_until_the_next_cycle_closes_it() {
    let c = client(None).await;
    let task = "overdue invoices are charged the wrong penalty";
    let d1 = ok(&c, "dispatch", json!({"task": task, "root": constgap()})).await;
    let sid = d1["session_id"].as_str().unwrap().to_string();
    assert_eq!(paths(&d1["candidates"])[0], "billing/invoice.py");
    assert!(!paths(&d1["candidates"]).contains(&"billing/settings.py".to_string()));

    let e1 = ok(&c, "evaluate", json!({"session_id": sid})).await;
    let gap = gap_for(&e1["gaps"], "SURCHARGE_RATIO").expect("the constant is a gap");
    assert_eq!(gap["kind"], "undefined_symbol");
    assert_eq!(gap["critical"], true);
    assert_eq!(gap["suggested_paths"], json!(["billing/settings.py"]));
    assert_eq!(gap["referenced_from"], "billing/invoice.py:22");
    assert_eq!(e1["decision"], "refine");

    let r1 = ok(&c, "refine", json!({"session_id": sid})).await;
    assert!(r1["query"]["keywords"]
        .as_array()
        .unwrap()
        .contains(&json!("SURCHARGE_RATIO")));
    assert!(r1["query"]["focus_areas"]
        .as_array()
        .unwrap()
        .contains(&json!("billing/settings.py")));

    let d2 = ok(&c, "dispatch", json!({"session_id": sid})).await;
    assert!(paths(&d2["candidates"]).contains(&"billing/settings.py".to_string()));
    let e2 = ok(&c, "evaluate", json!({"session_id": sid})).await;
    assert!(
        gap_for(&e2["gaps"], "SURCHARGE_RATIO").is_none(),
        "the gap closed: {}",
        e2["gaps"]
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn retrieve_brings_in_the_definition_and_reports_no_open_gap_for_it() {
    let c = client(None).await;
    let out = ok(
        &c,
        "retrieve",
        json!({"task": "overdue invoices are charged the wrong penalty", "root": constgap()}),
    )
    .await;
    let files = paths(&out["files"]);
    assert_eq!(files[0], "billing/invoice.py");
    assert!(
        files.contains(&"billing/settings.py".to_string()),
        "{files:?}"
    );
    assert!(gap_for(&out["gaps"], "SURCHARGE_RATIO").is_none());
    // The first cycle's trace records the gap the loop then closed.
    assert!(gap_for(&out["cycles"][0]["gaps"], "SURCHARGE_RATIO").is_some());
    assert!(
        !files.contains(&"reports/monthly.py".to_string()),
        "unrelated: {files:?}"
    );
    c.cancel().await.unwrap();
}

/// `evaluate` honours its call's cancellation like `dispatch`: a cancelled
/// call looks for no gaps (it scans and parses) and says to finalize; the
/// same evaluation uncancelled finds the constant's gap.
#[test]
fn a_cancelled_evaluate_looks_for_no_gaps() {
    use ctxloop::{CallOptions, DispatchRequest, Engine, EvaluateRequest, RetrieveRequest};
    let evaluate = |cancel: Option<&tokio_util::sync::CancellationToken>| {
        let engine = Engine::new(Default::default());
        let start = RetrieveRequest {
            task: "overdue invoices are charged the wrong penalty".into(),
            root: Some(constgap().display().to_string()),
            ..Default::default()
        };
        let request = DispatchRequest {
            session_id: None,
            start,
        };
        let d = engine.dispatch(request, &CallOptions::PLAIN).unwrap();
        let opts = CallOptions {
            cancel,
            ..CallOptions::PLAIN
        };
        let request = EvaluateRequest {
            session_id: d.session_id,
            judgments: vec![],
        };
        engine.evaluate(request, &opts).unwrap()
    };
    let whole = evaluate(None);
    assert!(whole
        .gaps
        .iter()
        .any(|g| g.symbol.as_deref() == Some("SURCHARGE_RATIO")));
    let cancelled = tokio_util::sync::CancellationToken::new();
    cancelled.cancel();
    let stopped = evaluate(Some(&cancelled));
    assert!(stopped.gaps.is_empty(), "{:?}", stopped.gaps);
    assert_eq!(stopped.decision, ctxloop::types::DecisionKind::Finalize);
}
