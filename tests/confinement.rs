//! Confinement: no file outside the chosen root is read or returned, whatever
//! route a caller tries — `..` or absolute paths in globs, in `root`, in
//! judgment paths, in the task text, and symbolic links (to files and to
//! directories, absolute and relative) that point outside.
//!
//! Each scene puts a secret file next to the root with a unique token and a
//! body that matches the task better than anything inside, so if it were ever
//! read it would rank first and its snippet would carry the token. A control
//! (the same file copied inside the root) shows that detection works.

#![cfg(unix)]

use crate::common::*;
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::CallOptions;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::PathBuf;

const TOKEN: &str = "QZXV_SECRET_TOKEN_5e1f";
const TASK: &str = "compute_invoice_total returns the wrong invoice total";

const SECRET: &str = "def compute_invoice_total(invoice):
    \"\"\"QZXV_SECRET_TOKEN_5e1f\"\"\"
    # QZXV_SECRET_TOKEN_5e1f: invoice total, compute_invoice_total
    return invoice.total
";

struct Scene {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    /// Every argument sent so far: a session may echo earlier ones (its query).
    sent: std::sync::Mutex<String>,
}

/// `dir/root` (the tree searched) and `dir/outside` (the secret), with links
/// from the root to the secret of every kind.
fn scene() -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    let outside = base.join("outside");
    for (path, text) in [
        (
            "billing/invoice.py",
            "class Invoice:\n    def total(self):\n        return sum(self.lines)\n",
        ),
        ("billing/__init__.py", ""),
        ("app/views.py", "def show(invoice):\n    return invoice\n"),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("secret.py"), SECRET).unwrap();
    std::fs::write(outside.join("deep/invoice_total.py"), SECRET).unwrap();
    // Links to the outside: absolute and relative, to files and directories,
    // at the top and deeper, to the parent and to `/`.
    symlink(outside.join("secret.py"), root.join("leak_abs.py")).unwrap();
    symlink("../outside/secret.py", root.join("leak_rel.py")).unwrap();
    symlink(&outside, root.join("leakdir")).unwrap();
    symlink("../../outside", root.join("app/up")).unwrap();
    symlink(&base, root.join("parent")).unwrap();
    symlink("/", root.join("slash")).unwrap();
    Scene {
        _dir: dir,
        root,
        outside,
        sent: Default::default(),
    }
}

/// Everything a caller sees of a result: text and structured content.
fn seen(r: &CallToolResult) -> String {
    format!(
        "{}\n{}",
        text(r),
        r.structured_content.clone().unwrap_or_default()
    )
}

/// Every `path` the result names, wherever it is.
fn named_paths(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("path" | "referenced_from", Value::String(p)) => out.push(p.clone()),
                    ("suggested_paths", Value::Array(a)) => {
                        out.extend(a.iter().filter_map(|p| p.as_str()).map(String::from))
                    }
                    _ => named_paths(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| named_paths(x, out)),
        _ => {}
    }
}

/// The token never appears; no returned path leads outside the root; the
/// outside directory is not named unless the caller named it.
fn assert_clean(s: &Scene, route: &str, args: &Value, r: &CallToolResult) {
    let body = seen(r);
    assert!(
        !body.contains(TOKEN),
        "{route} {args}: the secret leaked\n{body}"
    );
    let outside = s.outside.to_string_lossy();
    if !s.sent.lock().unwrap().contains(outside.as_ref()) {
        assert!(
            !body.contains(outside.as_ref()),
            "{route} {args}: names the outside directory\n{body}"
        );
    }
    let Some(v) = &r.structured_content else {
        return;
    };
    // Paths are relative to the result's root (a `retrieve` names it).
    let root = v["root"]["path"]
        .as_str()
        .map_or(s.root.clone(), PathBuf::from);
    assert!(root.starts_with(&s.root), "{route} {args}: root {root:?}");
    let mut paths = Vec::new();
    named_paths(v, &mut paths);
    for p in paths.iter().filter(|p| **p != root.to_string_lossy()) {
        let real = root
            .join(p)
            .canonicalize()
            .unwrap_or_else(|e| panic!("{route} {args}: {p} does not resolve: {e}"));
        assert!(
            real.starts_with(&s.root),
            "{route} {args}: {p} resolves to {real:?}, outside the root"
        );
    }
}

async fn clean_call(c: &Client, s: &Scene, tool: &str, args: Value) -> CallToolResult {
    s.sent.lock().unwrap().push_str(&args.to_string());
    let r = call(c, tool, args.clone()).await;
    assert_clean(s, tool, &args, &r);
    r
}

#[tokio::test]
async fn control_the_secret_is_found_when_it_is_inside_the_root() {
    // Without this, a test that never sees the token would prove nothing.
    let s = scene();
    std::fs::copy(s.outside.join("secret.py"), s.root.join("copied.py")).unwrap();
    let c = client(Some(s.root.clone())).await;
    let out = ok(&c, "retrieve", json!({"task": TASK})).await;
    assert_eq!(out["files"][0]["path"], "copied.py");
    assert!(out.to_string().contains(TOKEN));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn links_that_point_outside_are_never_followed() {
    let s = scene();
    // With --root, and without (any root may be named, links still confine).
    for server_root in [Some(s.root.clone()), None] {
        let c = client(server_root.clone()).await;
        let root = s.root.to_string_lossy().to_string();
        let r = clean_call(&c, &s, "retrieve", json!({"task": TASK, "root": root})).await;
        let out = r.structured_content.unwrap();
        assert_eq!(out["files"][0]["path"], "billing/invoice.py", "{out}");
        // The links are not counted as files walked either, but as links not followed.
        assert_eq!(out["stats"]["files_walked"], 3, "{out}");
        assert_eq!(out["stats"]["skipped"]["links_not_followed"], 6, "{out}");
        // Globs that name the links select nothing from behind them: they
        // match no file, so nothing is searched and the error says so.
        for patterns in [
            json!(["leak_abs.py", "leak_rel.py"]),
            json!(["leakdir/**"]),
            json!(["app/up/**"]),
            json!(["parent/**", "slash/**"]),
            json!(["**/secret.py", "**/invoice_total.py"]),
        ] {
            let args = json!({"task": TASK, "root": root, "patterns": patterns});
            let r = clean_call(&c, &s, "retrieve", args.clone()).await;
            assert_eq!(r.is_error, Some(true), "{args}");
            assert!(text(&r).contains("nothing was searched"), "{}", text(&r));
        }
        // Step-wise tools see the same tree.
        let d = clean_call(&c, &s, "dispatch", json!({"task": TASK, "root": root})).await;
        let sid = d.structured_content.unwrap()["session_id"].clone();
        clean_call(&c, &s, "evaluate", json!({"session_id": sid})).await;
        c.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_root_argument_cannot_leave_the_server_root() {
    let s = scene();
    let c = client(Some(s.root.clone())).await;
    let outside = s.outside.to_string_lossy().to_string();
    for root in [
        "..".to_string(),
        "../outside".to_string(),
        "../outside/deep".to_string(),
        "..\\outside".to_string(),
        "app/../..".to_string(),
        "app\\..\\..\\outside".to_string(),
        "./../outside".to_string(),
        outside.clone(),
        format!("{}/../outside", s.root.display()),
        "/".to_string(),
        // Links inside the root that lead out.
        "leakdir".to_string(),
        "leakdir/deep".to_string(),
        "app/up".to_string(),
        "parent".to_string(),
        "slash".to_string(),
        // A path outside that does not exist is refused the same way, so
        // refusals do not reveal what exists outside.
        "../no_such_dir".to_string(),
        "/no/such/dir".to_string(),
    ] {
        for tool in ["retrieve", "dispatch"] {
            let args = json!({"task": TASK, "root": root});
            let r = clean_call(&c, &s, tool, args.clone()).await;
            assert_eq!(r.is_error, Some(true), "{tool} {args}: {}", seen(&r));
            let msg = text(&r);
            assert!(
                msg.contains("outside the server's root") && msg.contains("pass a directory"),
                "{tool} {args}: {msg}"
            );
            if !root.contains(&outside) {
                assert!(!msg.contains(&outside), "{tool} {args}: {msg}");
            }
        }
    }
    // Narrowing still works, relative, absolute, and with Windows separators.
    for root in [
        "billing".to_string(),
        "./billing".to_string(),
        s.root.join("billing").to_string_lossy().to_string(),
        "app\\..\\billing".to_string(),
    ] {
        let args = json!({"task": TASK, "root": root});
        let r = clean_call(&c, &s, "retrieve", args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{args}: {}", seen(&r));
        let out = r.structured_content.unwrap();
        assert_eq!(out["files"][0]["path"], "invoice.py", "{args}: {out}");
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_root_given_through_a_link_still_confines_and_still_narrows() {
    let s = scene();
    let link = s.root.parent().unwrap().join("root_link");
    symlink(&s.root, &link).unwrap();
    let c = client(Some(link.clone())).await;
    // The canonical path of a subdirectory, and the path through the link: both inside.
    for root in [s.root.join("billing"), link.join("billing")] {
        let args = json!({"task": TASK, "root": root});
        let r = clean_call(&c, &s, "retrieve", args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{args}: {}", seen(&r));
    }
    let args = json!({"task": TASK, "root": s.outside});
    let r = clean_call(&c, &s, "retrieve", args).await;
    assert_eq!(r.is_error, Some(true));
    c.cancel().await.unwrap();
}

#[test]
fn a_server_root_that_cannot_be_resolved_refuses_every_root() {
    // Fail closed: an engine whose --root is gone does not fall back to "anything goes".
    let s = scene();
    let engine = Engine::new(EngineOptions {
        root: Some(s.root.join("vanished")),
        ..Default::default()
    });
    for root in [
        None,
        Some(s.root.to_string_lossy().to_string()),
        Some("/".into()),
    ] {
        let err = engine
            .retrieve(
                RetrieveParams {
                    task: TASK.into(),
                    root: root.clone(),
                    ..Default::default()
                },
                &CallOptions::PLAIN,
            )
            .expect_err("nothing may be searched");
        let msg = err.to_string();
        assert!(
            msg.contains("outside the server's root") || msg.contains("does not exist"),
            "{root:?}: {msg}"
        );
    }
}

#[tokio::test]
async fn globs_with_dot_dot_or_absolute_paths_never_reach_outside() {
    let s = scene();
    let c = client(Some(s.root.clone())).await;
    let outside = s.outside.to_string_lossy().to_string();
    // `..` in a glob is an error that says why.
    for glob in [
        "../outside/*.py",
        "..\\outside\\*.py",
        "billing/../../outside/**",
        "**/../secret.py",
        "..",
    ] {
        for field in ["patterns", "excludes"] {
            let args = json!({"task": TASK, field: [glob]});
            for tool in ["retrieve", "dispatch"] {
                let r = clean_call(&c, &s, tool, args.clone()).await;
                assert_eq!(r.is_error, Some(true), "{tool} {args}");
                assert!(text(&r).contains("leave the root"), "{}", text(&r));
            }
        }
    }
    // An absolute glob is anchored at the root (gitignore style): it can only
    // select files under the root. These match none, so nothing is searched
    // and the error says so.
    for glob in [
        format!("{outside}/*.py"),
        format!("{outside}/**"),
        "/**/secret.py".to_string(),
        "/outside/*.py".to_string(),
    ] {
        let args = json!({"task": TASK, "patterns": [glob]});
        let r = clean_call(&c, &s, "retrieve", args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{args}");
        assert!(text(&r).contains("nothing was searched"), "{}", text(&r));
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn task_text_and_keywords_naming_outside_files_read_nothing_outside() {
    let s = scene();
    let c = client(Some(s.root.clone())).await;
    let secret = s.outside.join("secret.py").to_string_lossy().to_string();
    for args in [
        json!({"task": format!("{TASK} in {secret}")}),
        json!({"task": format!("{TASK} in ../outside/secret.py and outside.secret")}),
        json!({"task": format!("Traceback:\n  File \"{secret}\", line 3, in compute_invoice_total")}),
        json!({"task": TASK, "keywords": [secret, "../outside/secret.py", "leakdir/secret.py"]}),
    ] {
        let r = clean_call(&c, &s, "retrieve", args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{args}: {}", text(&r));
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn judgments_and_refinements_cannot_name_outside_files() {
    let s = scene();
    let c = client(Some(s.root.clone())).await;
    let d = clean_call(&c, &s, "dispatch", json!({"task": TASK})).await;
    let sid = d.structured_content.unwrap()["session_id"].clone();
    let secret = s.outside.join("secret.py").to_string_lossy().to_string();
    for path in [
        secret.clone(),
        "../outside/secret.py".to_string(),
        "..\\outside\\secret.py".to_string(),
        "billing/../../outside/secret.py".to_string(),
        "leak_abs.py".to_string(),
        "leak_rel.py".to_string(),
        "leakdir/secret.py".to_string(),
        "app/up/secret.py".to_string(),
        "parent/outside/secret.py".to_string(),
    ] {
        let args = json!({"session_id": sid, "judgments": [
            {"path": path, "relevance": 0.99, "missing_context": "the secret"}
        ]});
        let r = clean_call(&c, &s, "evaluate", args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{args}: {}", seen(&r));
        assert!(
            text(&r).contains("no such file under the session's root"),
            "{}",
            text(&r)
        );
    }
    // The session still works, and a judgment of a real file is accepted.
    let args = json!({"session_id": sid, "judgments": [{"path": "billing\\invoice.py", "relevance": 0.9}]});
    clean_call(&c, &s, "evaluate", args).await;
    for args in [
        json!({"session_id": sid, "patterns": ["../outside/**"]}),
        json!({"session_id": sid, "excludes": ["..\\outside"]}),
    ] {
        let r = clean_call(&c, &s, "refine", args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{args}");
        assert!(text(&r).contains("leave the root"), "{}", text(&r));
    }
    let args = json!({"session_id": sid, "keywords": [secret], "patterns": [format!("{}/**", s.outside.display())]});
    clean_call(&c, &s, "refine", args).await;
    for args in [
        json!({"session_id": sid, "patterns": ["../outside/*.py"]}),
        json!({"session_id": sid, "root": s.outside}),
    ] {
        // `root` is fixed when a session starts; a continued dispatch ignores it.
        clean_call(&c, &s, "dispatch", args).await;
    }
    let args = json!({"session_id": sid});
    clean_call(&c, &s, "dispatch", args.clone()).await;
    clean_call(&c, &s, "evaluate", args).await;
    c.cancel().await.unwrap();
}

use ctxloop::test_support::scratch_git as git;

#[test]
fn provenance_names_the_roots_repository_even_when_git_dir_points_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, other) = (base.join("root"), base.join("other"));
    for repo in [&root, &other] {
        std::fs::create_dir_all(repo).unwrap();
        if git(repo, &["init", "-q"]).is_none() {
            eprintln!("note: git is not installed; provenance is not checked");
            return;
        }
        std::fs::write(repo.join("lib.py"), "def alphaquux():\n    pass\n").unwrap();
        git(repo, &["add", "."]);
        git(repo, &["commit", "-q", "-m", "init"]);
    }
    let head = git(&root, &["rev-parse", "HEAD"]).unwrap();
    let other_config = std::fs::read(other.join(".git/config")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
        .args(["retrieve", "alphaquux", "--format", "json", "--root"])
        .arg(&root)
        // As under a git hook of another repository.
        .env("GIT_DIR", other.join(".git"))
        .env("GIT_WORK_TREE", &other)
        .output()
        .unwrap();
    assert_succeeded(&out);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["root"]["git_toplevel"], json!(root), "{json}");
    assert_eq!(json["root"]["head"], json!(head), "{json}");
    assert_eq!(
        std::fs::read(other.join(".git/config")).unwrap(),
        other_config
    );
}

// ---- Trust (issue 10): hidden and ignored stay hidden by every route ----

const CANARY: &str = "SECRET_CANARY_7f3a91";

/// A project with secrets the walk must skip: `.env`, `.git/config`,
/// `.secrets/credentials`, and `private/db.cfg` (listed in `.ignore`).
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().canonicalize().unwrap().join("proj");
    for (path, text) in [
        ("src/app.py", "def load_settings():\n    return {}\n"),
        (".env", "API_TOKEN=SECRET_CANARY_7f3a91_env\n"),
        (
            ".git/config",
            "[remote \"origin\"]\n  url = https://probe:ghp_SECRET_CANARY_7f3a91@github.com/x/y.git\n",
        ),
        (".secrets/credentials", "aws_secret_access_key = SECRET_CANARY_7f3a91_aws\n"),
        (".config/creds", "api token SECRET_CANARY_7f3a91_config\n"),
        ("private/db.cfg", "db_password = SECRET_CANARY_7f3a91_ignored\n"),
        (".ignore", "private/\n"),
    ] {
        let f = p.join(path);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    (dir, p)
}

const SECRET_TASK: &str =
    "API_TOKEN api token remote origin url github db_password aws secret access key";

#[tokio::test]
async fn links_to_hidden_or_ignored_files_give_back_nothing_and_are_counted() {
    let (_dir, p) = project();
    symlink(".env", p.join("notes_env.txt")).unwrap();
    symlink(".git/config", p.join("gitcfg.txt")).unwrap();
    symlink("private/db.cfg", p.join("dbcfg_link.txt")).unwrap();
    symlink("../.secrets", p.join("src/creds")).unwrap();
    let c = client(Some(p.clone())).await;
    let r = call(&c, "retrieve", json!({"task": SECRET_TASK, "limit": 20})).await;
    assert!(!seen(&r).contains(CANARY), "{}", seen(&r));
    let out = r.structured_content.unwrap();
    assert_eq!(out["stats"]["skipped"]["links_not_followed"], 4, "{out}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_whitelist_does_not_reopen_hidden_files_unless_the_server_says_so() {
    let (_dir, p) = project();
    std::fs::write(p.join(".ignore"), "private/\n!.env\n!.config/\n").unwrap();
    let c = client(Some(p.clone())).await;
    let r = call(&c, "retrieve", json!({"task": SECRET_TASK, "limit": 20})).await;
    assert!(!seen(&r).contains(CANARY), "{}", seen(&r));
    c.cancel().await.unwrap();
    // Control: the documented flag re-opens exactly what the whitelist names.
    let engine = Engine::new(EngineOptions {
        root: Some(p.clone()),
        hidden_whitelisted: true,
        ..Default::default()
    });
    let out = engine
        .retrieve(
            RetrieveParams {
                task: SECRET_TASK.into(),
                limit: Some(20),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let body = serde_json::to_string(&out).unwrap();
    assert!(body.contains("SECRET_CANARY_7f3a91_env"), "{body}");
    assert!(!body.contains("SECRET_CANARY_7f3a91_aws"), "{body}");
}

const GIT_CANARY: &str = "GIT_CANARY_5a1c";

/// A cloned repository whose own `.ignore` whitelists git's directory
/// every way (probe 32, P6) beside `.env`: a remote URL with a token in
/// `.git/config`, the hooks `git init` writes, and a submodule's `.git`
/// file. `None` without git.
fn repo_whitelisting_git() -> Option<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().canonicalize().unwrap().join("repo");
    std::fs::create_dir_all(p.join("sub")).unwrap();
    git(&p, &["init", "-q"])?;
    let url = format!("https://probe:ghp_{GIT_CANARY}@github.com/x/y.git");
    git(&p, &["remote", "add", "origin", &url]);
    for (path, text) in [
        (
            ".env",
            "TOKEN=ENV_CANARY_5a1c origin github probe\n".to_string(),
        ),
        (
            ".ignore",
            "!.env\n!.git/\n!.git/config\n!/.git/**\n!.git\n".into(),
        ),
        (
            "a.py",
            "def origin():\n    return \"github probe\"\n".into(),
        ),
        (
            "sub/.git",
            format!("gitdir: ../.git/modules/sub {GIT_CANARY} origin github\n"),
        ),
    ] {
        std::fs::write(p.join(path), text).unwrap();
    }
    Some((dir, p))
}

const GIT_TASK: &str = "origin github probe url remote token hooks gitdir";

/// No path the result names lies in a `.git` directory or is a `.git` file.
fn assert_no_git_path(v: &Value) {
    let mut named = Vec::new();
    named_paths(v, &mut named);
    assert!(
        !named.iter().any(|p| p.split('/').any(|c| c == ".git")),
        "{named:?}"
    );
}

#[test]
fn a_repositorys_whitelist_never_reopens_gits_own_directory_on_the_cli() {
    let Some((_dir, p)) = repo_whitelisting_git() else {
        eprintln!("note: git is not installed; not checked");
        return;
    };
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
            .current_dir(&p)
            .args([
                "retrieve",
                GIT_TASK,
                "--hidden-whitelisted",
                "--format",
                "json",
            ])
            .args(["--limit", "50"])
            .args(extra)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains(GIT_CANARY), "{extra:?}: {all}");
        out
    };
    let out = run(&[]);
    assert_succeeded(&out);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Control: the same whitelist re-opens `.env`, as the flag says.
    assert!(json.to_string().contains("ENV_CANARY_5a1c"), "{json}");
    assert_no_git_path(&json);
    // Nor an include glob, nor a root in it with --allow-hidden-root.
    for glob in [".git/**", ".git/config", "**/.git"] {
        run(&["--include", glob]);
    }
    let out = run(&["--root", ".git", "--allow-hidden-root"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("git's own directory"));
}

#[tokio::test]
async fn a_repositorys_whitelist_never_reopens_gits_own_directory_over_mcp() {
    let Some((_dir, p)) = repo_whitelisting_git() else {
        eprintln!("note: git is not installed; not checked");
        return;
    };
    let c = client_with(EngineOptions {
        root: Some(p.clone()),
        hidden_whitelisted: true,
        allow_roots: vec![p.join(".git")],
        ..Default::default()
    })
    .await;
    let clean = |r: &CallToolResult| {
        assert!(!seen(r).contains(GIT_CANARY), "{}", seen(r));
        if let Some(v) = &r.structured_content {
            assert_no_git_path(v);
        }
    };
    for args in [
        json!({"task": GIT_TASK, "limit": 50}),
        json!({"task": GIT_TASK, "patterns": [".git/**"]}),
        json!({"task": GIT_TASK, "patterns": ["**/.git", ".git/config"]}),
        json!({"task": GIT_TASK, "root": ".git"}),
        json!({"task": GIT_TASK, "root": p.join(".git/hooks")}),
    ] {
        clean(&call(&c, "retrieve", args).await);
    }
    let r = call(&c, "retrieve", json!({"task": GIT_TASK, "root": ".git"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("git's own directory"), "{}", text(&r));
    let d = call(&c, "dispatch", json!({"task": GIT_TASK})).await;
    clean(&d);
    let sid = d.structured_content.unwrap()["session_id"].clone();
    for path in [".git/config", "sub/.git"] {
        let args = json!({"session_id": sid, "judgments": [{"path": path, "relevance": 0.9}]});
        let r = call(&c, "evaluate", args).await;
        clean(&r);
        assert_eq!(r.is_error, Some(true), "{path}: {}", seen(&r));
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_hidden_or_ignored_root_argument_is_refused_with_the_way_to_allow_it() {
    let (_dir, p) = project();
    std::fs::create_dir_all(p.join("src/.cache")).unwrap();
    let c = client(Some(p.clone())).await;
    for (root, why) in [
        (".git", "git's own directory"),
        (".secrets", "hidden"),
        ("src/.cache", "hidden"),
        ("private", "ignore rule"),
        ("./private/../.git", "git's own directory"),
    ] {
        for tool in ["retrieve", "dispatch"] {
            let r = call(&c, tool, json!({"task": SECRET_TASK, "root": root})).await;
            assert_eq!(r.is_error, Some(true), "{tool} {root}: {}", seen(&r));
            let msg = text(&r);
            assert!(!msg.contains(CANARY), "{msg}");
            assert!(
                msg.contains(why) && msg.contains("--allow-root"),
                "{tool} {root}: {msg}"
            );
        }
    }
    c.cancel().await.unwrap();
    // The operator's override: a directory named with --allow-root.
    let engine = Engine::new(EngineOptions {
        root: Some(p.clone()),
        allow_roots: vec![p.join(".secrets")],
        ..Default::default()
    });
    let out = engine
        .retrieve(
            RetrieveParams {
                task: SECRET_TASK.into(),
                root: Some(p.join(".secrets").to_string_lossy().into_owned()),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    assert!(serde_json::to_string(&out)
        .unwrap()
        .contains("SECRET_CANARY_7f3a91_aws"));
}

#[test]
fn the_cli_refuses_a_hidden_or_ignored_root_unless_allow_hidden_root() {
    let (_dir, p) = project();
    let run = |root: &str, extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
            .current_dir(&p)
            .args(["retrieve", SECRET_TASK, "--root", root])
            .args(extra)
            .output()
            .unwrap()
    };
    for (root, why) in [(".secrets", "hidden"), ("private", "ignore rule")] {
        let out = run(root, &[]);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(why) && stderr.contains("--allow-hidden-root"),
            "{stderr}"
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains(CANARY));
    }
    let out = run(".secrets", &["--allow-hidden-root"]);
    assert_succeeded(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains(CANARY));
}

/// JSON-RPC lines to a `serve` process; the replies to the requests with an id.
fn serve_lines(cwd: &std::path::Path, args: &[&str], calls: &[Value]) -> Vec<Value> {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ctxloop"))
        .current_dir(cwd)
        .arg("serve")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let send = |stdin: &mut std::process::ChildStdin, v: Value| writeln!(stdin, "{v}").unwrap();
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    send(
        &mut stdin,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
    );
    read();
    send(
        &mut stdin,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    let mut replies = Vec::new();
    for (i, args) in calls.iter().enumerate() {
        send(
            &mut stdin,
            json!({"jsonrpc":"2.0","id":i + 1,"method":"tools/call","params":{"name":"retrieve","arguments":args}}),
        );
        replies.push(read());
    }
    drop(stdin);
    let _ = child.wait();
    replies
}

#[test]
fn serve_without_root_is_confined_to_its_working_directory() {
    let s = scene();
    let outside = s.outside.to_string_lossy().to_string();
    let calls = [
        json!({"task": TASK, "root": outside}),
        json!({"task": TASK, "root": "../outside"}),
        json!({"task": TASK, "root": "billing"}),
    ];
    let replies = serve_lines(&s.root, &[], &calls);
    for r in &replies[..2] {
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert!(r.to_string().contains("outside the server's root"), "{r}");
        assert!(!r.to_string().contains(TOKEN));
    }
    assert_ne!(replies[2]["result"]["isError"], true, "{}", replies[2]);
    // --allow-root widens it on purpose.
    let replies = serve_lines(&s.root, &["--allow-root", &outside], &calls[..1]);
    assert!(replies[0].to_string().contains(TOKEN), "{}", replies[0]);
}

/// A root argument inside the server's root that is a file or missing is
/// named as given, then where it led: the error named only the resolved
/// absolute path (probe 32, P14), which the caller never wrote.
#[tokio::test]
async fn a_root_argument_that_is_a_file_or_missing_is_named_as_given() {
    let s = scene();
    let c = client(Some(s.root.clone())).await;
    let file = s.root.join("billing/invoice.py");
    for (root, expected) in [
        (
            "billing/invoice.py".to_string(),
            format!("root \"billing/invoice.py\" (resolved to {file:?}) is not a directory: pass the repository's directory, not a file"),
        ),
        (
            "./billing/../no_such_dir".to_string(),
            format!(
                "root \"./billing/../no_such_dir\" (resolved to {:?}) does not exist: pass an existing directory as `root` (or --root)",
                s.root.join("no_such_dir")
            ),
        ),
        // Given absolute, there is nothing more to say.
        (
            file.to_string_lossy().into_owned(),
            format!("root {file:?} is not a directory: pass the repository's directory, not a file"),
        ),
    ] {
        let r = clean_call(&c, &s, "retrieve", json!({"task": TASK, "root": root})).await;
        assert_eq!(r.is_error, Some(true), "{root}: {}", seen(&r));
        assert_eq!(text(&r), expected, "{root}");
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_refused_root_says_outside_whether_or_not_the_rest_exists() {
    // D18: `leakdir` leads outside; what lies behind it must not be told apart.
    let s = scene();
    std::fs::write(s.outside.join("deep/file.txt"), "x").unwrap();
    let c = client(Some(s.root.clone())).await;
    for root in [
        "leakdir/deep",
        "leakdir/no_such_dir",
        "leakdir/secret.py",
        "leakdir/deep/file.txt",
        "leakdir/deep/no/such",
    ] {
        let r = clean_call(&c, &s, "retrieve", json!({"task": TASK, "root": root})).await;
        let msg = text(&r);
        assert!(msg.contains("outside the server's root"), "{root}: {msg}");
        assert!(
            !msg.contains("does not exist") && !msg.contains("not a directory"),
            "{root}: {msg}"
        );
    }
    c.cancel().await.unwrap();
}

/// A git repository at `dir` with one committed file, `lib.py`, under a
/// filter driver named `evil` (`.gitattributes`); false when git is missing.
fn filtered_repo(dir: &std::path::Path) -> bool {
    std::fs::create_dir_all(dir).unwrap();
    if git(dir, &["init", "-q"]).is_none() {
        return false;
    }
    std::fs::write(dir.join("lib.py"), "def zorblax():\n    pass\n").unwrap();
    std::fs::write(dir.join(".gitattributes"), "* filter=evil\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "init"]);
    true
}

/// A program (`p/hook.sh`, its path returned) that appends to `p/MARK` when
/// run and passes its input through, as a filter does; and that mark.
fn marking_hook(p: &std::path::Path) -> (PathBuf, String) {
    let mark = p.join("MARK");
    let hook = p.join("hook.sh");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\necho ran >> {}\ncat\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    (mark, hook.to_string_lossy().to_string())
}

/// Stale stat data: `git status` re-reads `file` through its clean filter.
fn make_stat_stale(file: &std::path::Path) {
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000))
        .unwrap();
}

#[tokio::test]
async fn provenance_of_a_nested_repository_runs_none_of_its_configured_programs() {
    // D20: a caller may name any nested repository as root.
    let (_dir, p) = project();
    let nested = p.join("vendor_repo");
    if !filtered_repo(&nested) {
        eprintln!("note: git is not installed; provenance is not checked");
        return;
    }
    let (mark, hook) = marking_hook(&p);
    git(&nested, &["config", "core.fsmonitor", &hook]);
    git(&nested, &["config", "filter.evil.clean", &hook]);
    make_stat_stale(&nested.join("lib.py"));
    let c = client(Some(p.clone())).await;
    let out = ok(
        &c,
        "retrieve",
        json!({"task": "zorblax", "root": "vendor_repo"}),
    )
    .await;
    assert_eq!(out["root"]["git_toplevel"], json!(nested), "{out}");
    assert!(
        !mark.exists(),
        "git ran a program the nested repository configured"
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn provenance_runs_no_program_a_submodule_configures() {
    // Probe 36: `git status` looked into submodules, whose own configuration
    // (`.git/modules/NAME/config`) the top repository's filter overrides
    // do not reach, and ran a submodule's clean filter on a touched file.
    let (_dir, p) = project();
    let inner = p.join("inner_src");
    if !filtered_repo(&inner) {
        eprintln!("note: git is not installed; provenance is not checked");
        return;
    }
    let sup = p.join("sup");
    std::fs::create_dir_all(&sup).unwrap();
    git(&sup, &["init", "-q"]);
    std::fs::write(sup.join("app.py"), "import zorblax\n").unwrap();
    git(&sup, &["add", "."]);
    git(&sup, &["commit", "-q", "-m", "app"]);
    let inner_url = inner.to_string_lossy().to_string();
    git(
        &sup,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &inner_url,
            "sm",
        ],
    );
    git(&sup, &["commit", "-q", "-m", "sm"]);
    let (mark, hook) = marking_hook(&p);
    let module_config = sup.join(".git/modules/sm/config");
    assert!(
        module_config.is_file(),
        "git keeps the submodule's config here"
    );
    git(
        &sup,
        &[
            "config",
            "-f",
            &module_config.to_string_lossy(),
            "filter.evil.clean",
            &hook,
        ],
    );
    make_stat_stale(&sup.join("sm/lib.py"));
    let c = client(Some(p.clone())).await;
    let out = ok(&c, "retrieve", json!({"task": "zorblax", "root": "sup"})).await;
    assert_eq!(out["root"]["git_toplevel"], json!(sup), "{out}");
    assert_eq!(out["root"]["dirty"], json!(false), "{out}");
    assert!(!mark.exists(), "git ran a program the submodule configured");
    c.cancel().await.unwrap();
}

// ---- D3: no read escapes by a race ----

/// Swaps `root/<name>` between a plain file/directory and a link to the
/// outside until `stop`, as a local writer could during a call.
fn swapper(
    root: PathBuf,
    outside: PathBuf,
    name: &'static str,
    plain: fn(&std::path::Path),
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let (target, tmp) = (root.join(name), root.join(".swap"));
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = std::fs::remove_file(&tmp);
            symlink(&outside, &tmp).unwrap();
            if std::fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&target).unwrap();
            }
            std::fs::rename(&tmp, &target).unwrap();
            std::thread::yield_now();
            let _ = std::fs::remove_file(&target);
            plain(&target);
        }
    })
}

fn race(
    name: &'static str,
    plain: fn(&std::path::Path),
    outside_of: fn(&Scene) -> PathBuf,
) -> usize {
    let s = scene();
    plain(&s.root.join(name));
    let engine = Engine::new(EngineOptions {
        root: Some(s.root.clone()),
        ..Default::default()
    });
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handle = swapper(s.root.clone(), outside_of(&s), name, plain, stop.clone());
    let mut leaks = 0;
    for _ in 0..30 {
        let out = engine.retrieve(
            RetrieveParams {
                task: TASK.into(),
                max_cycles: Some(1),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        );
        if let Ok(out) = out {
            leaks += usize::from(serde_json::to_string(&out).unwrap().contains(TOKEN));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    handle.join().unwrap();
    leaks
}

#[test]
fn a_file_swapped_for_a_link_mid_call_is_never_read_through_it() {
    let leaks = race(
        "target.py",
        |p| {
            let tmp = p.with_extension("tmp");
            std::fs::write(
                &tmp,
                "def compute_invoice_total():\n    \"\"\"invoice total\"\"\"\n",
            )
            .unwrap();
            std::fs::rename(tmp, p).unwrap();
        },
        |s| s.outside.join("secret.py"),
    );
    assert_eq!(
        leaks, 0,
        "{leaks}/30 answers carried the outside file's text"
    );
}

#[test]
fn a_directory_swapped_for_a_link_mid_call_is_never_read_through_it() {
    let leaks = race(
        "deep",
        |p| {
            std::fs::create_dir_all(p).unwrap();
            std::fs::write(
                p.join("invoice_total.py"),
                "def compute_invoice_total():\n    pass\n",
            )
            .unwrap();
        },
        |s| s.outside.join("deep"),
    );
    assert_eq!(
        leaks, 0,
        "{leaks}/30 answers carried the outside file's text"
    );
}
