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
use crate::cache::history::LogKey;
use crate::cache::DiskCache;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
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
fn run(cmd: Command, stop: &dyn Fn() -> bool) -> Option<String> {
    run_checked(cmd, stop).map(|(out, _)| out)
}

/// [`run`], also saying whether the output is whole: the process exited
/// with success, or its output reached [`MAX_LOG_BYTES`] (where every read
/// stops). Only a whole output may be kept in the persistent cache.
pub(crate) fn run_checked(mut cmd: Command, stop: &dyn Fn() -> bool) -> Option<(String, bool)> {
    let mut child = cmd.stdout(Stdio::piped()).spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_LOG_BYTES as u64)
            .read_to_end(&mut buf);
        buf
    });
    let status = loop {
        if stop() {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return None,
        }
        if reader.is_finished() {
            // The output cap was reached (or stdout closed early): done.
            let _ = child.kill();
            break child.wait().ok();
        }
    };
    let buf = reader.join().ok()?;
    let whole = status.is_some_and(|s| s.success()) || buf.len() >= MAX_LOG_BYTES;
    Some((String::from_utf8_lossy(&buf).into_owned(), whole))
}

/// What besides the commit decides which commits `git log` lists in the
/// repository at `git_dir`: a shallow clone's boundary (`shallow`) and
/// old-style grafts (`info/grafts`), in the git directory and in the common
/// directory a linked worktree's `commondir` names (replace refs are off:
/// `GIT_NO_REPLACE_OBJECTS`). Part of the persistent cache's key of a log,
/// so that deepening a clone reads the log again.
fn log_shape(git_dir: &Path) -> Vec<u8> {
    // Regular files only, checked on the opened file: reading a FIFO
    // would wait for ever.
    let read = |p: PathBuf| {
        let mut bytes = Vec::new();
        crate::safe_open::open_regular(&p)
            .and_then(|mut f| std::io::Read::read_to_end(&mut f, &mut bytes))
            .ok()
            .map(|_| bytes)
    };
    let mut dirs = vec![git_dir.to_path_buf()];
    if let Some(common) = read(git_dir.join("commondir")).and_then(|b| String::from_utf8(b).ok()) {
        dirs.push(git_dir.join(common.trim()));
    }
    let mut shape = Vec::new();
    for dir in &dirs {
        for file in ["shallow", "info/grafts"] {
            let bytes = read(dir.join(file)).unwrap_or_default();
            shape.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            shape.extend_from_slice(&bytes);
        }
    }
    shape
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
        // Without a deadline too, a configuration that makes git wait (an
        // `include.path` naming a FIFO) cannot hold the call.
        let t0 = Instant::now();
        let stop = &|| stop() || t0.elapsed() > crate::root::GIT_TIME_LIMIT;
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

    /// Checks that a history the user named can be read: for
    /// [`HistorySource::At`], that its git directory holds its commit
    /// (`git rev-parse --verify`). The other sources pass: without a
    /// repository the default simply has no history.
    ///
    /// Errors: [`crate::error::Error::HistoryUnreadable`].
    pub fn check(&self) -> crate::error::Result<()> {
        let HistorySource::At { git_dir, commit } = self else {
            return Ok(());
        };
        // `At` names its repository: the root (for `Discover`) is not read.
        if self.resolve(Path::new("."), &|| false).is_some() {
            return Ok(());
        }
        Err(crate::error::Error::HistoryUnreadable {
            git_dir: git_dir.clone(),
            commit: commit.clone(),
        })
    }
}

fn is_commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The histories read so far, by (repository, commit id, root prefix): each
/// `git log` runs once per key, also when several callers ask for it at
/// once (a session's history read-ahead beside its score pass, two calls of
/// one server): the first reads, the others wait for it (each until its own
/// `stop`) and take what it cached. With a persistent cache
/// ([`HistoryCache::with_disk_cache`]), a log another process read for the
/// same commit is read from there instead of running `git log`.
#[derive(Default)]
pub struct HistoryCache {
    entries: Mutex<Vec<(Resolved, Arc<RepoHistory>)>>,
    /// The persistent cache (`--cache-dir`): `git log` output by commit.
    disk: Option<Arc<DiskCache>>,
    /// The keys whose `git log` is running, each with what its waiters wait on.
    reading: Mutex<Vec<(Resolved, Arc<Reading>)>>,
    /// How many `git log`s this cache started (diagnostics and tests).
    logs_started: AtomicUsize,
}

/// One `git log` in flight: set done (and waiters woken) when it ends,
/// cached or not.
#[derive(Default)]
struct Reading {
    done: Mutex<bool>,
    ended: Condvar,
}

impl Reading {
    /// Waits until the read ends; `false` when `stop` returned true first.
    fn wait(&self, stop: &dyn Fn() -> bool) -> bool {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            if stop() {
                return false;
            }
            // Polled so that a waiter's own deadline is seen while it waits.
            done = self
                .ended
                .wait_timeout(done, Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// The claim on one key's `git log`: released (and its waiters woken) when
/// dropped, after the log was cached or given up.
struct Claim<'a> {
    cache: &'a HistoryCache,
    key: &'a Resolved,
    reading: Arc<Reading>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        lock(&self.cache.reading).retain(|(k, _)| k != self.key);
        *self.reading.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.reading.ended.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HistoryCache {
    /// An empty cache that looks logs up in `disk` (the persistent cache)
    /// before running `git log`, and stores each whole log it runs there.
    pub fn with_disk_cache(disk: Option<Arc<DiskCache>>) -> HistoryCache {
        HistoryCache {
            disk,
            ..HistoryCache::default()
        }
    }

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
        loop {
            // The claim is taken under `reading`'s lock after a look at the
            // cache, and a reader caches before it releases its claim, so a
            // finished read is never run again.
            let claimed = {
                let mut reading = lock(&self.reading);
                if let Some(h) = self.cached(&key) {
                    return Some(h);
                }
                match reading.iter().find(|(k, _)| *k == key) {
                    Some((_, other)) => Err(other.clone()),
                    None => {
                        let mine = Arc::new(Reading::default());
                        reading.push((key.clone(), mine.clone()));
                        Ok(mine)
                    }
                }
            };
            match claimed {
                // Read by another caller: its result, or (stopped, nothing
                // cached) this caller's turn to read.
                Err(other) => {
                    if !other.wait(stop) {
                        return None;
                    }
                }
                Ok(reading) => {
                    let _claim = Claim {
                        cache: self,
                        key: &key,
                        reading,
                    };
                    return self.read_log(key.clone(), stop);
                }
            }
        }
    }

    fn cached(&self, key: &Resolved) -> Option<Arc<RepoHistory>> {
        lock(&self.entries)
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, h)| h.clone())
    }

    /// Runs `key`'s `git log` (the caller holds its claim), or reads its
    /// output from the persistent cache, and caches the history.
    fn read_log(&self, key: Resolved, stop: &dyn Fn() -> bool) -> Option<Arc<RepoHistory>> {
        let start = Instant::now();
        let args = log_args(&key.commit);
        let disk = self.disk.as_ref().map(|d| {
            let k = LogKey::new(&args, MAX_LOG_BYTES, &log_shape(&key.git_dir));
            (d, k)
        });
        let cached = disk.as_ref().and_then(|(d, k)| d.history_log(k));
        let from_cache = cached.is_some();
        let log = match cached {
            Some(log) => log,
            None => {
                self.logs_started.fetch_add(1, Ordering::Relaxed);
                let mut cmd = git(&key.git_dir);
                // Every filter driver the configuration names, emptied (as for
                // provenance; `git log` reads objects only, this is belt and braces).
                cmd.args(crate::root::provenance_config(
                    &key.git_dir,
                    Instant::now() + crate::root::GIT_TIME_LIMIT,
                ));
                cmd.args(&args);
                let (log, whole) = run_checked(cmd, stop)?;
                if let (Some((d, k)), true) = (&disk, whole) {
                    d.store_history_log(k, &log);
                }
                log
            }
        };
        let mut h = RepoHistory::parse(&key.commit, &log, &key.prefix);
        h.load_ms = start.elapsed().as_millis() as u64;
        tracing::info!(
            commit = %short(&key.commit),
            commits = h.len(),
            files = h.paths.len(),
            ms = h.load_ms,
            from_cache,
            "history: git log read"
        );
        let h = Arc::new(h);
        let mut entries = lock(&self.entries);
        if entries.len() >= CACHED_HISTORIES {
            entries.remove(0);
        }
        entries.push((key, h.clone()));
        Some(h)
    }

    /// How many `git log`s this cache has started (a log read from the
    /// persistent cache starts none).
    pub fn logs_started(&self) -> usize {
        self.logs_started.load(Ordering::Relaxed)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::scratch_git;

    #[test]
    fn callers_asking_at_once_share_one_git_log() {
        let repo = tempfile::tempdir().unwrap();
        let repo = repo.path();
        let Some(_) = scratch_git(repo, &["init", "-q"]) else {
            return; // git is not installed
        };
        std::fs::write(repo.join("a.py"), "def a():\n    return 1\n").unwrap();
        scratch_git(repo, &["add", "-A"]).unwrap();
        scratch_git(repo, &["commit", "-q", "-m", "add a"]).unwrap();
        let root = repo.canonicalize().unwrap();
        let cache = HistoryCache::default();
        let callers = 6;
        let start = std::sync::Barrier::new(callers);
        let read: Vec<Option<Arc<RepoHistory>>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..callers)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        cache.get(&HistorySource::Discover, &root, &|| false)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(read
            .iter()
            .all(|h| h.as_ref().is_some_and(|h| h.len() == 1)));
        assert_eq!(cache.logs_started(), 1, "one git log for one commit");
        // Asked again later: cached, no new log.
        cache
            .get(&HistorySource::Discover, &root, &|| false)
            .unwrap();
        assert_eq!(cache.logs_started(), 1);
    }

    #[test]
    fn a_caller_stopped_while_another_reads_returns_without_waiting_it_out() {
        let repo = tempfile::tempdir().unwrap();
        let repo = repo.path();
        let Some(_) = scratch_git(repo, &["init", "-q"]) else {
            return; // git is not installed
        };
        scratch_git(repo, &["commit", "-q", "--allow-empty", "-m", "empty"]).unwrap();
        let root = repo.canonicalize().unwrap();
        let cache = HistoryCache::default();
        let key = HistorySource::Discover.resolve(&root, &|| false).unwrap();
        // Another caller holds the key's claim and has not finished.
        let other = Arc::new(Reading::default());
        lock(&cache.reading).push((key.clone(), other.clone()));
        let asked = AtomicUsize::new(0);
        // Out of time after a few looks: the wait ends, no log of its own.
        let stop = || asked.fetch_add(1, Ordering::Relaxed) > 20;
        assert!(cache.get(&HistorySource::Discover, &root, &stop).is_none());
        assert_eq!(cache.logs_started(), 0);
        // The other caller gave up (stopped, nothing cached): the next
        // caller reads it itself.
        drop(Claim {
            cache: &cache,
            key: &key,
            reading: other,
        });
        assert!(cache
            .get(&HistorySource::Discover, &root, &|| false)
            .is_some());
        assert_eq!(cache.logs_started(), 1);
    }
}
