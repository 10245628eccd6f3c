//! The engine: validated configuration, root resolution, the session store, and
//! the whole loop (`retrieve`). Tool bodies and the CLI call only this.

use crate::corpus::Corpus;
use crate::error::{Error, Result};
use crate::score::Weights;
use crate::session::{Session, Sessions};
use crate::tools::dispatch::DispatchParams;
use crate::tools::evaluate::EvaluateParams;
use crate::tools::refine::RefineParams;
use crate::tools::retrieve::RetrieveParams;
use crate::types::{
    DispatchOutput, EvaluateOutput, RefineOutput, RetrieveOutput, Root, StopReason, Truncated,
};
use crate::walk::Filter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Options fixed for the life of an engine (a server process or a CLI call).
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// The directory given with `--root`. When set, a `root` argument may only
    /// name this directory or one below it.
    pub root: Option<PathBuf>,
    /// Wall-clock deadline of a call in ms (default [`DEFAULT_DEADLINE_MS`]);
    /// a `deadline_ms` argument overrides it per call.
    pub deadline_ms: Option<u64>,
}

/// Default deadline of a call: the Linux kernel tree (78k files) takes about
/// 2 s cold on a 2-core machine with its files in the page cache (README,
/// Measured) and 6-12 s when they must come from disk (two runs seen after
/// the page cache was evicted, 2026-11-29), so 30 s bounds a call on any tree while
/// leaving slow disks room.
pub const DEFAULT_DEADLINE_MS: u64 = 30_000;
pub const MIN_DEADLINE_MS: u64 = 10;
pub const MAX_DEADLINE_MS: u64 = 3_600_000;

/// When a call must stop early: its deadline, or the client's cancellation
/// (`notifications/cancelled`). Checked per file read and between cycles.
#[derive(Clone, Default)]
pub struct Limits {
    deadline: Option<(Instant, u64)>,
    cancel: Option<CancellationToken>,
}

impl Limits {
    pub fn new(deadline_ms: Option<u64>, cancel: Option<CancellationToken>) -> Limits {
        Limits {
            deadline: deadline_ms.map(|ms| (Instant::now() + Duration::from_millis(ms), ms)),
            cancel,
        }
    }

    /// Why the call must stop now, if it must.
    pub fn hit(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            Some(StopReason::Cancelled)
        } else if self.deadline.is_some_and(|(at, _)| Instant::now() >= at) {
            Some(StopReason::Deadline)
        } else {
            None
        }
    }

    /// The `truncated` note for stopping for `reason` at `place`.
    pub fn truncated(&self, reason: StopReason, place: String) -> Truncated {
        let what = match (reason, self.deadline) {
            (StopReason::Deadline, Some((_, ms))) => format!("deadline of {ms} ms passed"),
            _ => "cancelled by the client".to_string(),
        };
        Truncated {
            reason: reason.as_str().to_string(),
            detail: format!("{what} {place}; the files are the best found so far"),
        }
    }
}

/// A loop's validated settings.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    pub task: String,
    pub root: PathBuf,
    pub patterns: Vec<String>,
    pub keywords: Vec<String>,
    pub excludes: Vec<String>,
    pub max_cycles: usize,
    pub min_high: usize,
    pub high_threshold: f64,
    pub limit: usize,
    pub budget_tokens: usize,
}

/// Defaults (DESIGN.md §2 and the loop seeds).
pub const DEFAULT_MAX_CYCLES: usize = 3;
pub const DEFAULT_MIN_HIGH: usize = 3;
pub const DEFAULT_HIGH_THRESHOLD: f64 = 0.7;
pub const DEFAULT_LIMIT: usize = 10;
/// Well under the ~25k-token cap agents put on one tool result.
pub const DEFAULT_BUDGET_TOKENS: usize = 6_000;
pub const MAX_BUDGET_TOKENS: usize = 20_000;

/// Shared state: the file cache and the sessions.
pub struct Engine {
    options: EngineOptions,
    allowed: Option<PathBuf>,
    pub(crate) corpus: Corpus,
    sessions: Sessions,
}

fn range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &'static str,
    value: Option<T>,
    default: T,
    min: T,
    max: T,
) -> Result<T> {
    let v = value.unwrap_or(default);
    // `!(a <= b)` also rejects NaN.
    if !(min <= v && v <= max) {
        return Err(Error::OutOfRange {
            field,
            value: v.to_string(),
            min: min.to_string(),
            max: max.to_string(),
        });
    }
    Ok(v)
}

impl Engine {
    pub fn new(options: EngineOptions) -> Engine {
        // Fail closed: a --root that cannot be resolved still confines (nothing
        // resolves inside an unresolvable path, so every root is refused).
        let allowed = options
            .root
            .as_ref()
            .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()));
        Engine {
            options,
            allowed,
            corpus: Corpus::default(),
            sessions: Sessions::default(),
        }
    }

    /// Root resolution: `root` argument → `--root` → the working directory.
    /// A relative `root` is taken relative to `--root` (or the working directory).
    ///
    /// With `--root`, the result must lie inside it. The check is made twice:
    /// on the path with `..` resolved by its text, before the file system is
    /// asked anything (so a refused root does not reveal whether a path outside
    /// exists), and on the canonical path (so a symbolic link cannot lead out).
    /// The error names the argument as given, never where a link points.
    pub fn resolve_root(&self, root: Option<&str>) -> Result<PathBuf> {
        let base = match &self.options.root {
            Some(r) => r.clone(),
            None => std::env::current_dir().map_err(|e| Error::Io {
                path: PathBuf::from("."),
                source: e,
            })?,
        };
        let arg = root.map(str::trim).filter(|r| !r.is_empty());
        let path = match arg {
            Some(r) => {
                let r = PathBuf::from(r.replace('\\', "/"));
                if r.is_absolute() {
                    r
                } else {
                    base.join(r)
                }
            }
            None => base.clone(),
        };
        let outside = |allowed: &PathBuf| Error::RootOutsideAllowed {
            path: PathBuf::from(arg.unwrap_or_default()),
            allowed: allowed.clone(),
        };
        if let Some(allowed) = &self.allowed {
            let lexical = lexical_abs(&path);
            if !lexical.starts_with(allowed) && !lexical.starts_with(lexical_abs(&base)) {
                return Err(outside(allowed));
            }
        }
        let canon = canonical_dir(path)?;
        if let Some(allowed) = &self.allowed {
            if !canon.starts_with(allowed) {
                return Err(outside(allowed));
            }
        }
        Ok(canon)
    }

    /// Validates raw loop settings once; tool bodies only see the result.
    pub fn config(&self, p: &RetrieveParams) -> Result<LoopConfig> {
        let RetrieveParams {
            task,
            root,
            patterns,
            keywords,
            excludes,
            max_cycles,
            min_high,
            high_threshold,
            limit,
            budget_tokens,
            deadline_ms: _,
        } = p;
        let (max_cycles, min_high, high_threshold, limit, budget_tokens) = (
            *max_cycles,
            *min_high,
            *high_threshold,
            *limit,
            *budget_tokens,
        );
        if task.trim().is_empty() {
            return Err(Error::EmptyTask);
        }
        let cfg = LoopConfig {
            task: task.to_string(),
            root: self.resolve_root(root.as_deref())?,
            patterns: patterns.to_vec(),
            keywords: keywords
                .iter()
                .filter(|k| !k.trim().is_empty())
                .cloned()
                .collect(),
            excludes: excludes.to_vec(),
            max_cycles: range("max_cycles", max_cycles, DEFAULT_MAX_CYCLES, 1, 10)?,
            min_high: range("min_high", min_high, DEFAULT_MIN_HIGH, 1, 50)?,
            high_threshold: range(
                "high_threshold",
                high_threshold,
                DEFAULT_HIGH_THRESHOLD,
                0.05,
                1.0,
            )?,
            limit: range("limit", limit, DEFAULT_LIMIT, 1, 100)?,
            budget_tokens: range(
                "budget_tokens",
                budget_tokens,
                DEFAULT_BUDGET_TOKENS,
                100,
                MAX_BUDGET_TOKENS,
            )?,
        };
        // Compile once here so a bad glob is reported before any work.
        Filter::new(&cfg.patterns, &cfg.excludes)?;
        Ok(cfg)
    }

    /// The whole loop in one call.
    pub fn retrieve(&self, p: RetrieveParams) -> Result<RetrieveOutput> {
        self.retrieve_with(p, &Weights::default(), None, &|_, _, _| {})
    }

    /// The deadline of a call in ms: its `deadline_ms` argument, else the
    /// engine's default.
    pub fn deadline_ms(&self, arg: Option<u64>) -> Result<u64> {
        range(
            "deadline_ms",
            arg,
            self.options.deadline_ms.unwrap_or(DEFAULT_DEADLINE_MS),
            MIN_DEADLINE_MS,
            MAX_DEADLINE_MS,
        )
    }

    /// [`Engine::retrieve`] with other scoring weights (for `ctxloop bench --weights`).
    pub fn retrieve_weighted(
        &self,
        p: RetrieveParams,
        weights: &Weights,
    ) -> Result<RetrieveOutput> {
        self.retrieve_with(p, weights, None, &|_, _, _| {})
    }

    /// [`Engine::retrieve`] with scoring weights, the client's cancellation
    /// token, and `progress(cycles done, max cycles, message)` called after
    /// each cycle. Stops early, with `truncated` set, at the call's deadline or
    /// on cancellation.
    pub fn retrieve_with(
        &self,
        p: RetrieveParams,
        weights: &Weights,
        cancel: Option<CancellationToken>,
        progress: &(dyn Fn(usize, usize, &str) + Sync),
    ) -> Result<RetrieveOutput> {
        let start = Instant::now();
        let cfg = self.config(&p)?;
        let limits = Limits::new(Some(self.deadline_ms(p.deadline_ms)?), cancel);
        let max_cycles = cfg.max_cycles;
        let mut session = Session::new(String::new(), cfg);
        session.weights = weights.clone();
        session.limits = limits.clone();
        session.reuse_walk = true;
        loop {
            let d = session.dispatch(self, &[], &[], &[])?;
            if let Some(reason) = limits.hit() {
                session.evaluate(&[])?;
                session.stop_early(reason);
                break;
            }
            let e = session.evaluate(&[])?;
            progress(
                d.cycle,
                max_cycles,
                &format!(
                    "cycle {}: {} files scored, {} high, {} gaps",
                    d.cycle,
                    d.stats.files_scored,
                    e.high_count,
                    e.gaps.len()
                ),
            );
            if session.is_done() {
                break;
            }
            if let Some(reason) = limits.hit() {
                session.stop_early(reason);
                break;
            }
            session.refine(&[], &[], &[]);
        }
        let mut out = session.result();
        out.stats.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(out)
    }

    /// `dispatch`: start a session or run the next cycle of one.
    pub fn dispatch(&self, p: DispatchParams) -> Result<DispatchOutput> {
        self.dispatch_with(p, None)
    }

    /// [`Engine::dispatch`] watching the client's cancellation token and the
    /// engine's deadline.
    pub fn dispatch_with(
        &self,
        p: DispatchParams,
        cancel: Option<CancellationToken>,
    ) -> Result<DispatchOutput> {
        let start = Instant::now();
        let limits = Limits::new(Some(self.deadline_ms(None)?), cancel);
        let session = match &p.session_id {
            Some(id) => self.sessions.get(id)?,
            None => {
                // A new session takes the filters as its initial query.
                let cfg = self.config(&RetrieveParams {
                    task: p.task.clone().unwrap_or_default(),
                    root: p.root.clone(),
                    patterns: p.patterns.clone(),
                    keywords: p.keywords.clone(),
                    excludes: p.excludes.clone(),
                    max_cycles: p.max_cycles,
                    min_high: p.min_high,
                    high_threshold: p.high_threshold,
                    limit: p.limit,
                    budget_tokens: p.budget_tokens,
                    deadline_ms: None,
                })?;
                let session = self.sessions.create(cfg);
                let mut s = session.lock().expect("session poisoned");
                s.limits = limits;
                let mut out = s.dispatch(self, &[], &[], &[])?;
                out.stats.elapsed_ms = start.elapsed().as_millis() as u64;
                return Ok(out);
            }
        };
        // A continued session adds the filters to its query. It keeps its task
        // and root: giving others is an error, not silently ignored.
        let mut s = session.lock().expect("session poisoned");
        if let Some(task) = p.task.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            if task != s.config.task.trim() {
                return Err(Error::SessionMismatch {
                    id: s.id.clone(),
                    field: "task",
                    started: s.config.task.clone(),
                    given: task.to_string(),
                });
            }
        }
        if let Some(root) = p.root.as_deref() {
            let resolved = self.resolve_root(Some(root))?;
            if resolved != s.config.root {
                return Err(Error::SessionMismatch {
                    id: s.id.clone(),
                    field: "root",
                    started: s.config.root.display().to_string(),
                    given: root.to_string(),
                });
            }
        }
        // The loop's settings are fixed when it starts: another value is
        // refused like another task (not silently ignored); the same one passes.
        let settings = [
            (
                "max_cycles",
                p.max_cycles.map(|v| v as f64),
                s.config.max_cycles as f64,
            ),
            (
                "min_high",
                p.min_high.map(|v| v as f64),
                s.config.min_high as f64,
            ),
            ("high_threshold", p.high_threshold, s.config.high_threshold),
            (
                "budget_tokens",
                p.budget_tokens.map(|v| v as f64),
                s.config.budget_tokens as f64,
            ),
        ];
        for (field, given, started) in settings {
            if let Some(given) = given.filter(|g| *g != started) {
                return Err(Error::SessionMismatch {
                    id: s.id.clone(),
                    field,
                    started: started.to_string(),
                    given: given.to_string(),
                });
            }
        }
        Filter::new(&p.patterns, &p.excludes)?;
        if let Some(limit) = p.limit {
            s.config.limit = range("limit", Some(limit), DEFAULT_LIMIT, 1, 100)?;
        }
        s.limits = limits;
        let mut out = s.dispatch(self, &p.patterns, &p.keywords, &p.excludes)?;
        out.stats.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(out)
    }

    /// `evaluate`: score the session's candidates, blending agent judgments.
    pub fn evaluate(&self, p: EvaluateParams) -> Result<EvaluateOutput> {
        let session = self.sessions.get(&p.session_id)?;
        let mut s = session.lock().expect("session poisoned");
        // This call's own deadline: the limits of the `dispatch` call before
        // it (its deadline, its request's cancellation) are over.
        s.limits = Limits::new(Some(self.deadline_ms(None)?), None);
        s.evaluate(&p.judgments)
    }

    /// `refine`: build the next query and say whether the loop is done.
    pub fn refine(&self, p: RefineParams) -> Result<RefineOutput> {
        Filter::new(&p.patterns, &p.excludes)?;
        let session = self.sessions.get(&p.session_id)?;
        let mut s = session.lock().expect("session poisoned");
        if !s.is_evaluated() {
            return Err(Error::NothingToEvaluate {
                id: p.session_id.clone(),
                action: "refine",
            });
        }
        Ok(s.refine(&p.keywords, &p.patterns, &p.excludes))
    }
}

/// `path` made absolute with `.` and `..` resolved by their text (no file
/// system access, so symbolic links are not resolved).
fn lexical_abs(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` as a canonical directory, or the error that says what is wrong with it.
pub fn canonical_dir(path: PathBuf) -> Result<PathBuf> {
    if !path.exists() {
        return Err(Error::RootNotFound { path });
    }
    if !path.is_dir() {
        return Err(Error::RootNotDirectory { path });
    }
    path.canonicalize()
        .map_err(|e| Error::Io { path, source: e })
}

/// `git` with the variables that select a repository cleared, so `-C DIR`
/// decides which repository it reads. A git hook or `git rebase --exec` exports
/// `GIT_DIR`; inherited, it would make provenance describe the caller's
/// repository instead of the root's (and a test's `git init` rewrite it).
pub(crate) fn git_command() -> Command {
    let mut cmd = Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs `git -C dir ARGS` for tests that build scratch repositories: a fixed
/// committer, no signing, the caller's repository never touched (see
/// [`git_command`]). Panics with git's stderr when the command fails; `None`
/// when git cannot be started.
#[doc(hidden)]
pub fn scratch_git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = git_command()
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Provenance of a root: the git worktree's top level, `HEAD` and dirtiness
/// when the root is inside one (via `git`, read-only; absent when git is not installed).
pub fn root_info(root: &Path) -> Root {
    let git = |args: &[&str]| -> Option<String> {
        let out = git_command()
            .arg("-C")
            .arg(root)
            // `git status` otherwise refreshes the index on disk and takes
            // `.git/index.lock`, which can fail the user's own concurrent git commands.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let toplevel = git(&["rev-parse", "--show-toplevel"]);
    let (head, dirty) = if toplevel.is_some() {
        (
            git(&["rev-parse", "HEAD"]),
            git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
        )
    } else {
        (None, None)
    };
    Root {
        path: root.to_string_lossy().into_owned(),
        git_toplevel: toplevel,
        head,
        dirty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> Option<String> {
        scratch_git(dir, args)
    }

    #[test]
    fn root_info_names_head_and_dirtiness_without_writing_to_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let plain = root_info(&root);
        assert_eq!(
            (plain.git_toplevel, plain.head, plain.dirty),
            (None, None, None)
        );
        let Some(_) = git(&root, &["init", "-q"]) else {
            return; // git is not installed: nothing more to check
        };
        let file = root.join("a.py");
        std::fs::write(&file, "x = 1\n").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "init"]);
        let head = git(&root, &["rev-parse", "HEAD"]);

        // A touched but unchanged file makes the index's stat data stale; `git status`
        // would refresh the index on disk (and take index.lock) unless told not to.
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000))
            .unwrap();
        let index = std::fs::read(root.join(".git/index")).unwrap();
        let info = root_info(&root);
        assert_eq!(info.git_toplevel.as_deref(), Some(root.to_str().unwrap()));
        assert_eq!(info.head, head);
        assert_eq!(info.dirty, Some(false), "same content is not dirty");
        assert_eq!(
            std::fs::read(root.join(".git/index")).unwrap(),
            index,
            "provenance must not write to the repository"
        );

        std::fs::write(&file, "x = 2\n").unwrap();
        assert_eq!(root_info(&root).dirty, Some(true));
    }
}
