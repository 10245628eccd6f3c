//! Tool arguments as an agent could send them: arbitrary bytes parsed as JSON
//! into the tools' parameter types (serde does the MCP boundary's work), then
//! run through the engine on the fixture tree. The first byte picks the route:
//! `retrieve`, or `dispatch` → `evaluate` → `refine` → `dispatch` on one session.

#![no_main]

mod common;

use common::{check_error, check_files, engine, fixture};
use ctxloop::CallOptions;
use ctxloop::tools::dispatch::DispatchParams;
use ctxloop::tools::evaluate::EvaluateParams;
use ctxloop::tools::refine::RefineParams;
use ctxloop::tools::retrieve::RetrieveParams;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some((&route, json)) = data.split_first() else {
        return;
    };
    if route % 2 == 0 {
        let Ok(p) = serde_json::from_slice::<RetrieveParams>(json) else {
            return;
        };
        match engine().retrieve(p, &CallOptions::PLAIN) {
            Ok(out) => check_files(&out.files, Path::new(&out.root.path)),
            Err(e) => check_error(&e),
        }
        return;
    }
    // `{"dispatch": {...}, "judgments": [...], "refine": {...}, "next": {...}}`
    let Ok(v) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let Ok(d) = serde_json::from_value::<DispatchParams>(v["dispatch"].clone()) else {
        return;
    };
    let sid = match engine().dispatch(d, &CallOptions::PLAIN) {
        Ok(out) => {
            check_files(&out.candidates, &fixture());
            out.session_id
        }
        Err(e) => return check_error(&e),
    };
    let with_session = |extra: &Value| {
        let mut obj = extra.as_object().cloned().unwrap_or_default();
        obj.insert("session_id".into(), json!(sid));
        Value::Object(obj)
    };
    let eval = json!({"session_id": sid, "judgments": v["judgments"].clone()});
    if let Ok(p) = serde_json::from_value::<EvaluateParams>(eval) {
        if let Err(e) = engine().evaluate(p, &CallOptions::PLAIN) {
            check_error(&e);
        }
    }
    if let Ok(p) = serde_json::from_value::<RefineParams>(with_session(&v["refine"])) {
        if let Err(e) = engine().refine(p, &CallOptions::PLAIN) {
            check_error(&e);
        }
    }
    if let Ok(p) = serde_json::from_value::<DispatchParams>(with_session(&v["next"])) {
        match engine().dispatch(p, &CallOptions::PLAIN) {
            Ok(out) => check_files(&out.candidates, &fixture()),
            Err(e) => check_error(&e),
        }
    }
});
