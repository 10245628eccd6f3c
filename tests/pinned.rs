//! The whole `retrieve` answer on each committed fixture, pinned as an insta
//! snapshot: what the tools return must not change when code moves. Only what
//! depends on the machine or the clock is redacted (`root.path`, the git
//! provenance of the checkout the fixtures sit in, `stats.elapsed_ms`). The
//! checkout's history is not the fixtures' own: it is off (`--no-history`).
//!
//! A snapshot that changes is either a bug in a move or a deliberate change of
//! behaviour; the latter is accepted (`cargo insta review`) in a commit that
//! says why.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ctxloop");

/// `ctxloop retrieve TASK --no-history --root tests/fixtures/NAME --format json`, redacted.
fn retrieve_json(fixture: &str, task: &str) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let out = Command::new(BIN)
        .args([
            "retrieve",
            task,
            "--no-history",
            "--format",
            "json",
            "--root",
        ])
        .arg(&root)
        .output()
        .expect("the binary runs");
    crate::common::assert_succeeded(&out);
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let r = &mut v["root"];
    r["path"] = Value::from("[root]");
    for key in ["git_toplevel", "head", "dirty"] {
        if r.get(key).is_some() {
            r[key] = Value::from(format!("[{key}]"));
        }
    }
    v["stats"]["elapsed_ms"] = Value::from("[ms]");
    v
}

#[test]
fn authsvc_token_expiry() {
    insta::assert_json_snapshot!(retrieve_json("authsvc", "Fix the token expiry bug"));
}

#[test]
fn authsvc_several_topics() {
    insta::assert_json_snapshot!(retrieve_json(
        "authsvc",
        "token expiry session refresh profile avatar"
    ));
}

#[test]
fn constgap_overdue_penalty() {
    insta::assert_json_snapshot!(retrieve_json(
        "constgap",
        "overdue invoices are charged the wrong penalty"
    ));
}

#[test]
fn expand_apply_discount() {
    insta::assert_json_snapshot!(retrieve_json(
        "expand",
        "Cart.apply_discount applies the discount twice"
    ));
}
