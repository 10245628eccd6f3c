//! The persistent cache (`--cache-dir`, `CTXLOOP_CACHE_DIR`): a later engine
//! (a later process) reads the symbols an earlier one parsed and the term
//! index it made of each file, gives the same answer, parses and tokenizes
//! only files whose text changed, shrugs off corrupt entries; without the
//! setting nothing is written anywhere; a cache inside the searched root is
//! refused.

use crate::common::{assert_succeeded, fixture};
use ctxloop::cache::{CacheStats, DiskCache};
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::test_support::scratch_git;
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::{CallOptions, RetrieveOutput};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

const BIN: &str = env!("CARGO_BIN_EXE_ctxloop");
const TASK: &str = "fix the token expiry bug: is_expired compares against the issue time";

/// A copy of the `authsvc` fixture in a temporary directory (to edit).
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// An engine confined to `root` with the cache in `cache_dir` (a new handle,
/// as a new process would open), and that handle; no history.
fn engine(root: &Path, cache_dir: &Path) -> (Engine, Arc<DiskCache>) {
    engine_with(root, cache_dir, false)
}

fn engine_with(root: &Path, cache_dir: &Path, history: bool) -> (Engine, Arc<DiskCache>) {
    let cache = Arc::new(DiskCache::open(cache_dir, &[root.to_path_buf()]).unwrap());
    let engine = Engine::new(EngineOptions {
        root: Some(root.to_path_buf()),
        no_history: !history,
        cache: Some(cache.clone()),
        ..Default::default()
    });
    (engine, cache)
}

fn retrieve(engine: &Engine, task: &str) -> RetrieveOutput {
    let mut out = engine
        .retrieve(
            RetrieveParams {
                task: task.into(),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    out.stats.elapsed_ms = 0;
    out
}

fn json(out: &RetrieveOutput) -> String {
    serde_json::to_string_pretty(out).unwrap()
}

/// Every file below `dir` (relative path, size, mtime), sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            }
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            out.push((rel, meta.len(), meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

/// The symbol entry files below the cache directory.
fn entries(cache_dir: &Path) -> Vec<PathBuf> {
    entries_of(cache_dir, "bin")
}

/// The term index entry files below the cache directory.
fn term_entries(cache_dir: &Path) -> Vec<PathBuf> {
    entries_of(cache_dir, "idx")
}

fn entries_of(cache_dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = listing(cache_dir)
        .into_iter()
        .map(|(p, _, _)| cache_dir.join(p))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

#[test]
fn a_later_engine_reads_the_symbols_and_gives_the_same_answer() {
    let root = tree();
    let cache_dir = tempfile::tempdir().unwrap();
    // Without a cache: the answer to match.
    let plain = Engine::new(EngineOptions {
        root: Some(root.path().to_path_buf()),
        no_history: true,
        ..Default::default()
    });
    let expected = json(&retrieve(&plain, TASK));

    let (first, cache) = engine(root.path(), cache_dir.path());
    assert_eq!(json(&retrieve(&first, TASK)), expected);
    let filled = cache.stats();
    assert!(
        filled.misses > 0 && filled.writes == filled.misses,
        "{filled:?}"
    );
    assert_eq!(filled.hits, 0);
    assert_eq!(entries(cache_dir.path()).len(), filled.writes);
    // Every file read was tokenized once, its term index stored.
    let indexed = cache.terms_stats();
    assert!(indexed.misses > 3, "{indexed:?}");
    assert_eq!((indexed.hits, indexed.writes), (0, indexed.misses));
    assert_eq!(term_entries(cache_dir.path()).len(), indexed.writes);

    let (second, cache) = engine(root.path(), cache_dir.path());
    assert_eq!(json(&retrieve(&second, TASK)), expected);
    let s = cache.stats();
    assert_eq!(s.misses, 0, "no file parsed again: {s:?}");
    assert_eq!(s.hits, filled.writes, "{s:?}");
    assert_eq!(s.writes, 0);
    let t = cache.terms_stats();
    assert_eq!(
        (t.hits, t.misses, t.writes),
        (indexed.misses, 0, 0),
        "no file tokenized again: {t:?}"
    );
}

#[test]
fn an_edited_file_is_parsed_anew_and_the_answer_has_the_edit() {
    let root = tree();
    let cache_dir = tempfile::tempdir().unwrap();
    // A prefetch parses every source file: all of them are in the cache.
    let (first, cache) = engine(root.path(), cache_dir.path());
    let done = first.prefetch(&CancellationToken::new()).unwrap();
    assert!(done.parsed > 3, "{done:?}");
    assert_eq!(cache.stats().writes, done.parsed);

    let edited = root.path().join("users/profile.py");
    let mut text = std::fs::read_to_string(&edited).unwrap();
    text.push_str("\n\ndef qzvexpire_rotation(user):\n    return user\n");
    std::fs::write(&edited, text).unwrap();

    let indexed = cache.terms_stats().writes;
    assert_eq!(indexed, done.read);

    let (second, cache) = engine(root.path(), cache_dir.path());
    let again = second.prefetch(&CancellationToken::new()).unwrap();
    assert_eq!(again.parsed, done.parsed);
    assert_eq!(
        cache.terms_stats(),
        CacheStats {
            hits: indexed - 1,
            misses: 1,
            writes: 1,
            ..CacheStats::default()
        },
        "only the edited file is tokenized"
    );
    assert_eq!(
        cache.stats(),
        CacheStats {
            hits: done.parsed - 1,
            misses: 1,
            writes: 1,
            ..CacheStats::default()
        },
        "only the edited file is parsed"
    );
    let out = retrieve(&second, "qzvexpire_rotation raises for a new user");
    let top = &out.files[0];
    assert_eq!(top.path, "users/profile.py");
    assert!(
        top.reasons
            .iter()
            .any(|r| r.contains("defines function `qzvexpire_rotation`")),
        "{:?}",
        top.reasons
    );
}

#[test]
fn corrupt_entries_are_misses_and_the_answer_is_still_right() {
    let root = tree();
    let cache_dir = tempfile::tempdir().unwrap();
    let (first, _) = engine(root.path(), cache_dir.path());
    let expected = json(&retrieve(&first, TASK));
    let stored = entries(cache_dir.path());
    assert!(stored.len() > 1);
    let indexed = term_entries(cache_dir.path());
    assert!(indexed.len() > 3);
    // Half cut short, half overwritten with garbage.
    for (i, path) in stored.iter().chain(&indexed).enumerate() {
        let bytes = std::fs::read(path).unwrap();
        if i % 2 == 0 {
            std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
        } else {
            std::fs::write(path, vec![0xA5; bytes.len()]).unwrap();
        }
    }
    let (second, cache) = engine(root.path(), cache_dir.path());
    assert_eq!(json(&retrieve(&second, TASK)), expected);
    let s = cache.stats();
    assert_eq!((s.hits, s.invalid), (0, stored.len()), "{s:?}");
    assert_eq!(s.writes, stored.len(), "each entry is rewritten: {s:?}");
    let t = cache.terms_stats();
    assert_eq!((t.hits, t.invalid), (0, indexed.len()), "{t:?}");
    assert_eq!(t.writes, indexed.len(), "{t:?}");
    // Rewritten whole: the next engine reads them all.
    let (third, cache) = engine(root.path(), cache_dir.path());
    assert_eq!(json(&retrieve(&third, TASK)), expected);
    assert_eq!(cache.stats().hits, stored.len());
    assert_eq!(cache.terms_stats().hits, indexed.len());
}

#[test]
fn the_history_log_is_read_from_the_cache_until_head_moves() {
    let root = tree();
    let repo = root.path();
    let git = |args: &[&str]| scratch_git(repo, args);
    let Some(_) = git(&["init", "-q"]) else {
        return; // git is not installed
    };
    let commit = |msg: &str| {
        git(&["add", "-A"]).unwrap();
        git(&["commit", "-q", "--allow-empty", "-m", msg]).unwrap();
    };
    commit("initial layout");
    let token = repo.join("auth/token.py");
    let text = std::fs::read_to_string(&token).unwrap();
    std::fs::write(&token, text.replace("issued_at + ", "issued_at  + ")).unwrap();
    commit("token expiry: is_expired compares the issue time");
    let cache_dir = tempfile::tempdir().unwrap();

    let (first, cache) = engine_with(repo, cache_dir.path(), true);
    let expected = json(&retrieve(&first, TASK));
    assert!(
        expected.contains("past commit"),
        "the history is evidence: {expected}"
    );
    let s = cache.history_stats();
    assert_eq!((s.hits, s.misses, s.writes), (0, 1, 1), "{s:?}");

    let (second, cache) = engine_with(repo, cache_dir.path(), true);
    assert_eq!(json(&retrieve(&second, TASK)), expected);
    let s = cache.history_stats();
    assert_eq!((s.hits, s.misses, s.writes), (1, 0, 0), "no git log: {s:?}");

    // A new HEAD is another history: read with git, stored beside the first.
    commit("docs");
    let (third, cache) = engine_with(repo, cache_dir.path(), true);
    retrieve(&third, TASK);
    let s = cache.history_stats();
    assert_eq!((s.hits, s.misses, s.writes), (0, 1, 1), "{s:?}");
    let logs = listing(&cache_dir.path().join("history"))
        .into_iter()
        .filter(|(p, _, _)| p.extension().is_some_and(|e| e == "log"))
        .count();
    assert_eq!(logs, 2);
}

/// The CLI with a clean environment: `HOME`, the XDG directories and
/// `TMPDIR` all in `home`, and no `CTXLOOP_CACHE_DIR` unless given.
fn cli<S: AsRef<OsStr>>(home: &Path, args: &[S]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("CTXLOOP_CACHE_DIR")
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("TMPDIR", home.join("tmp"))
        .stdin(std::process::Stdio::null());
    cmd
}

/// `retrieve TASK --root ROOT --format json`, then `extra`.
fn retrieve_args(root: &Path, extra: &[&OsStr]) -> Vec<OsString> {
    let mut v: Vec<OsString> = ["retrieve", TASK, "--format", "json", "--root"]
        .iter()
        .map(OsString::from)
        .collect();
    v.push(root.into());
    v.extend(extra.iter().map(OsString::from));
    v
}

/// The JSON a successful command printed, its time zeroed.
fn answer(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.output().unwrap();
    assert_succeeded(&out);
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["stats"]["elapsed_ms"] = 0.into();
    v
}

#[test]
fn without_the_setting_nothing_is_written_anywhere() {
    let root = tree();
    let home = tempfile::tempdir().unwrap();
    let before = listing(root.path());
    let args = retrieve_args(root.path(), &[]);
    let plain = answer(&mut cli(home.path(), &args));
    // An empty CTXLOOP_CACHE_DIR is no setting either.
    let empty = answer(cli(home.path(), &args).env("CTXLOOP_CACHE_DIR", ""));
    assert_eq!(empty, plain);
    assert_eq!(listing(home.path()), [], "nothing in HOME, XDG or TMPDIR");
    assert_eq!(listing(root.path()), before, "the tree is untouched");

    // With CTXLOOP_CACHE_DIR: entries there, the same answer.
    let from_env = home.path().join("env-cache");
    let cached = answer(cli(home.path(), &args).env("CTXLOOP_CACHE_DIR", &from_env));
    assert_eq!(cached, plain);
    assert!(!entries(&from_env).is_empty());
    // --cache-dir wins over the environment.
    let from_flag = home.path().join("flag-cache");
    let flag_args = retrieve_args(root.path(), &["--cache-dir".as_ref(), from_flag.as_ref()]);
    let not_this = home.path().join("not-this-one");
    let flagged = answer(cli(home.path(), &flag_args).env("CTXLOOP_CACHE_DIR", &not_this));
    assert_eq!(flagged, plain);
    assert!(!entries(&from_flag).is_empty());
    assert!(!not_this.exists());
    assert_eq!(listing(root.path()), before, "the tree is untouched");
}

#[test]
fn a_cache_inside_the_root_is_refused_before_anything_is_written() {
    let root = tree();
    let home = tempfile::tempdir().unwrap();
    let before = listing(root.path());
    let inside = root.path().join(".cache/ctxloop");
    let serve: Vec<&OsStr> = vec!["serve".as_ref(), "--root".as_ref(), root.path().as_ref()];
    for (cmd, args) in [
        ("retrieve", retrieve_args(root.path(), &[])),
        ("serve", serve.iter().map(OsString::from).collect()),
    ] {
        let out = cli(home.path(), &args)
            .env("CTXLOOP_CACHE_DIR", &inside)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("lies inside the root")
                && err.contains("--cache-dir (or CTXLOOP_CACHE_DIR) outside the root"),
            "{cmd}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    assert_eq!(listing(root.path()), before, "nothing created in the tree");

    // A library user's engine refuses a call whose root holds its cache.
    let cache = Arc::new(DiskCache::open(root.path().join("cache"), &[]).unwrap());
    let engine = Engine::new(EngineOptions {
        cache: Some(cache),
        ..Default::default()
    });
    let err = engine
        .retrieve(
            RetrieveParams {
                task: TASK.into(),
                root: Some(root.path().to_string_lossy().into_owned()),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap_err();
    assert!(
        matches!(err, ctxloop::Error::CacheInsideRoot { .. }),
        "{err}"
    );
}
