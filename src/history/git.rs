//! Where a call's history comes from ([`HistorySource`]), the one `git log`
//! that reads it, and the histories read so far ([`HistoryCache`]).
//!
//! Hardening (the same as the root's provenance, `src/root.rs`): the
//! variables that select a repository or inject configuration are cleared,
//! `core.fsmonitor` is off, every filter driver the configuration names is
//! emptied, no pager, no external diff, `--no-textconv`, no rename detection
//! (no blob is read: only trees and commit messages), stdin closed. The log
//! runs until the call's deadline or cancellation (`stop`); stopped, it is
//! killed and nothing is cached, so the next call tries again.
//!
//! The log's bounds and the parsing are in the parent module.

use super::{short, RepoHistory, CACHED_HISTORIES, MAX_COMMITS, MAX_LOG_BYTES};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where a call's history comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HistorySource {
    /// The repository the root is in, from its `HEAD` (the default).
    #[default]
    Discover,
    /// No history (`--no-history`).
    Off,
    /// The history that existed at `commit` in the repository at `git_dir`
    /// (a bare repository or a `.git` directory), whose top level is the
    /// root: what `ctxloop bench` passes, the task's `base_commit`, so no
    /// later commit (the fix) is seen.
    At {
        /// The repository's git directory.
        git_dir: PathBuf,
        /// A commit id (or any name `git rev-parse` resolves to a commit).
        commit: String,
    },
}

/// Where the log of one call comes from, resolved: the repository, the
/// commit id, and the root's place in the work tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Resolved {
    git_dir: PathBuf,
    commit: String,
    prefix: String,
}

/// `git` hardened as the module doc says, reading `git_dir`.
fn git(git_dir: &Path) -> Command {
    let mut cmd = crate::root::git_command();
    for var in [
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "PAGER",
        "GIT_GRAFT_FILE",
        "GIT_REPLACE_REF_BASE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .arg("--no-pager")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotePath=true"])
        .args(["-c", "diff.external="])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Runs `cmd` to completion (stdout only), or until `stop` returns true
/// (then the process is killed and `None` returned).
fn run(mut cmd: Command, stop: &dyn Fn() -> bool) -> Option<String> {
    let mut child = cmd.stdout(Stdio::piped()).spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_LOG_BYTES as u64)
            .read_to_end(&mut buf);
        buf
    });
    loop {
        if stop() {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return None,
        }
        if reader.is_finished() {
            // The output cap was reached (or stdout closed early): done.
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
    }
    let buf = reader.join().ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// `git log`'s arguments: the last [`MAX_COMMITS`] non-merge commits from
/// `commit`, each as `\x1e ID \x1f MESSAGE \x1f` then the names it changed.
fn log_args(commit: &str) -> Vec<String> {
    [
        "log",
        "--no-merges",
        "--no-renames",
        "--no-textconv",
        "--no-ext-diff",
        "--no-color",
        "--no-show-signature",
        "--name-only",
        "--format=%x1e%H%x1f%B%x1f",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("--max-count={MAX_COMMITS}"),
        commit.to_string(),
        "--".to_string(),
    ])
    .collect()
}

impl HistorySource {
    /// The repository, commit id and root prefix for `root`; `None` when
    /// there is no history (off, not a repository, no commit, git absent).
    fn resolve(&self, root: &Path, stop: &dyn Fn() -> bool) -> Option<Resolved> {
        match self {
            HistorySource::Off => None,
            HistorySource::Discover => {
                let mut cmd = crate::root::git_command();
                // One process per call: `rev-parse` runs no filter or hook.
                cmd.arg("-C")
                    .arg(root)
                    .args([
                        "-c",
                        "core.fsmonitor=false",
                        "rev-parse",
                        "--absolute-git-dir",
                        "--show-prefix",
                        "HEAD",
                    ])
                    .stdin(Stdio::null())
                    .stderr(Stdio::null());
                let out = run(cmd, stop)?;
                let mut lines = out.lines();
                let (git_dir, prefix, commit) = (lines.next()?, lines.next()?, lines.next()?);
                is_commit_id(commit).then(|| Resolved {
                    git_dir: PathBuf::from(git_dir),
                    commit: commit.to_string(),
                    prefix: prefix.to_string(),
                })
            }
            HistorySource::At { git_dir, commit } => {
                let mut cmd = git(git_dir);
                cmd.args(["rev-parse", "--verify", "--end-of-options"])
                    .arg(format!("{commit}^{{commit}}"));
                let id = run(cmd, stop)?.trim().to_string();
                is_commit_id(&id).then(|| Resolved {
                    git_dir: git_dir.clone(),
                    commit: id,
                    prefix: String::new(),
                })
            }
        }
    }
}

fn is_commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The histories read so far, by (repository, commit id, root prefix): each
/// `git log` runs once per key.
#[derive(Default)]
pub struct HistoryCache {
    entries: Mutex<Vec<(Resolved, Arc<RepoHistory>)>>,
}

impl HistoryCache {
    /// The history `source` names for `root`: cached, or read now (one
    /// `git log`, stopped when `stop` returns true). `None` when there is no
    /// history or it could not be read in time (nothing cached then).
    pub fn get(
        &self,
        source: &HistorySource,
        root: &Path,
        stop: &dyn Fn() -> bool,
    ) -> Option<Arc<RepoHistory>> {
        let key = source.resolve(root, stop)?;
        if let Some((_, h)) = self.lock().iter().find(|(k, _)| *k == key) {
            return Some(h.clone());
        }
        let start = Instant::now();
        let mut cmd = git(&key.git_dir);
        // Every filter driver the configuration names, emptied (as for
        // provenance; `git log` reads objects only, this is belt and braces).
        cmd.args(crate::root::provenance_config(&key.git_dir));
        cmd.args(log_args(&key.commit));
        let log = run(cmd, stop)?;
        let mut h = RepoHistory::parse(&key.commit, &log, &key.prefix);
        h.load_ms = start.elapsed().as_millis() as u64;
        tracing::info!(
            commit = %short(&key.commit),
            commits = h.len(),
            files = h.paths.len(),
            ms = h.load_ms,
            "history: git log read"
        );
        let h = Arc::new(h);
        let mut entries = self.lock();
        if entries.len() >= CACHED_HISTORIES {
            entries.remove(0);
        }
        entries.push((key, h.clone()));
        Some(h)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Resolved, Arc<RepoHistory>)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The history of one session's root, read through a [`HistoryCache`] the
/// first time it is asked for (one `git rev-parse`, then the cached log or
/// one `git log`), and kept for the session: what the links of the later
/// cycles read (files that change together, `src/session/links.rs`).
pub struct LazyHistory {
    cache: Arc<HistoryCache>,
    source: HistorySource,
    root: PathBuf,
    loaded: OnceLock<Option<Arc<RepoHistory>>>,
}

impl LazyHistory {
    /// The history `source` names for `root` (canonical), read through `cache`.
    pub fn new(cache: Arc<HistoryCache>, source: HistorySource, root: PathBuf) -> LazyHistory {
        LazyHistory {
            cache,
            source,
            root,
            loaded: OnceLock::new(),
        }
    }

    /// The history, read now unless read before; `None` when there is none
    /// (off, no repository, no commit, no commit indexed) or it could not be
    /// read before `stop` returned true (then the next call tries again).
    pub fn get(&self, stop: &dyn Fn() -> bool) -> Option<&RepoHistory> {
        if self.loaded.get().is_none() {
            let read = self.cache.get(&self.source, &self.root, stop);
            if read.is_some() || !stop() {
                let _ = self.loaded.set(read);
            }
        }
        self.loaded.get()?.as_deref().filter(|h| !h.is_empty())
    }
}

impl std::fmt::Debug for LazyHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyHistory")
            .field("source", &self.source)
            .field("root", &self.root)
            .finish()
    }
}
