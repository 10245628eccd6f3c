//! The history signal: past commits whose messages resemble the task lift
//! the files they changed; the bench's history stops at the task's
//! `base_commit`; nothing hidden or ignored comes out of it.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::history::HistorySource;
use ctxloop::request::CallOptions;
use ctxloop::test_support::scratch_git;
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::types::RetrieveOutput;
use std::path::Path;

const TASK: &str = "the widget frobnicator drops the quux flag";

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Files that hold one word of the task each (`flag`), so only history can
/// tell them apart.
fn files(root: &Path) {
    write(
        root,
        "core/alpha.py",
        "def alpha(x):\n    return x + 1  # flag\n",
    );
    write(
        root,
        "core/beta.py",
        "def beta(y):\n    return y * 2  # flag\n",
    );
    write(
        root,
        "core/gamma.py",
        "def gamma(z):\n    return z - 3  # flag\n",
    );
    write(
        root,
        "core/widget.py",
        "def widget():\n    return 0  # flag\n",
    );
}

fn commit(repo: &Path, msg: &str) -> Option<String> {
    scratch_git(repo, &["add", "-A", "-f"])?;
    scratch_git(repo, &["commit", "-q", "--allow-empty", "-m", msg])?;
    scratch_git(repo, &["rev-parse", "HEAD"])
}

fn retrieve(engine: &Engine, root: &Path, history: Option<&HistorySource>) -> RetrieveOutput {
    engine
        .retrieve(
            RetrieveParams {
                task: TASK.into(),
                root: Some(root.to_string_lossy().into()),
                max_cycles: Some(1),
                ..Default::default()
            },
            &CallOptions {
                history,
                // The default weights: the signal is on unless turned off.
                ..Default::default()
            },
        )
        .unwrap()
}

/// Files the history signal gave evidence to.
fn from_history(out: &RetrieveOutput) -> Vec<&str> {
    out.files
        .iter()
        .filter(|f| f.reasons.iter().any(|r| r.contains("past commit")))
        .map(|f| f.path.as_str())
        .collect()
}

#[test]
fn the_bench_sees_history_up_to_base_commit_and_no_later_commit() {
    let repo = tempfile::tempdir().unwrap();
    let repo = repo.path();
    let Some(_) = scratch_git(repo, &["init", "-q"]) else {
        return; // git is not installed
    };
    files(repo);
    commit(repo, "initial layout").unwrap();
    write(
        repo,
        "core/beta.py",
        "def beta(y):\n    return y * 3  # flag\n",
    );
    let base = commit(repo, "widget frobnicator: keep the quux flag").unwrap();
    // The fix, after base: its message is the task itself.
    write(
        repo,
        "core/gamma.py",
        "def gamma(z):\n    return z - 4  # flag\n",
    );
    let fix = commit(repo, TASK).unwrap();

    // The tree at base, without its .git (as `git archive` extracts it).
    let tree = tempfile::tempdir().unwrap();
    files(tree.path());
    write(
        tree.path(),
        "core/beta.py",
        "def beta(y):\n    return y * 3  # flag\n",
    );
    let engine = Engine::new(EngineOptions::default());
    let git_dir = repo.join(".git");
    let at = |commit: &str| HistorySource::At {
        git_dir: git_dir.clone(),
        commit: commit.to_string(),
    };
    let at_base = retrieve(&engine, tree.path(), Some(&at(&base)));
    assert_eq!(
        from_history(&at_base),
        vec!["core/beta.py"],
        "{:#?}",
        at_base.files
    );
    // The same repository read at the fix does see it: the test can tell.
    let at_fix = retrieve(&engine, tree.path(), Some(&at(&fix)));
    assert!(
        from_history(&at_fix).contains(&"core/gamma.py"),
        "{:#?}",
        at_fix.files
    );
    // And base again is still base (the cache is keyed by commit id).
    let again = retrieve(&engine, tree.path(), Some(&at(&base)));
    assert!(!from_history(&again).contains(&"core/gamma.py"));
}

#[test]
fn history_from_head_lifts_past_fixes_but_never_a_hidden_or_ignored_file() {
    let repo = tempfile::tempdir().unwrap();
    let repo = repo.path();
    let Some(_) = scratch_git(repo, &["init", "-q"]) else {
        return;
    };
    files(repo);
    write(repo, ".gitignore", "build/\n");
    write(repo, "build/gen.py", "def gen():\n    return 1\n");
    write(repo, ".hidden/conf.py", "def conf():\n    return 1\n");
    commit(repo, "initial layout").unwrap();
    write(
        repo,
        "core/alpha.py",
        "def alpha(x):\n    return x + 2  # flag\n",
    );
    write(repo, "build/gen.py", "def gen():\n    return 2\n");
    write(repo, ".hidden/conf.py", "def conf():\n    return 2\n");
    commit(repo, "frobnicator: the widget lost its quux flag").unwrap();

    let out = retrieve(&Engine::new(EngineOptions::default()), repo, None);
    assert_eq!(
        from_history(&out),
        vec!["core/alpha.py"],
        "{:#?}",
        out.files
    );
    let paths: Vec<&str> = out.files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths
            .iter()
            .all(|p| !p.starts_with("build/") && !p.starts_with(".hidden/")),
        "{paths:?}"
    );
    // Commit messages are not copied out: only a short id and counts.
    let text = serde_json::to_string(&out).unwrap();
    assert!(!text.contains("lost its"), "{text}");

    let off = retrieve(
        &Engine::new(EngineOptions {
            no_history: true,
            ..Default::default()
        }),
        repo,
        None,
    );
    assert!(from_history(&off).is_empty(), "{:#?}", off.files);
}
