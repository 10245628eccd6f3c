//! The engine: the file cache, the session store, and the whole loop
//! (`retrieve`). Tool bodies and the CLI call only this. Settings are
//! validated in [`crate::config`], roots resolved in `root`, and a
//! call's deadline kept in `limits`.

use crate::cache::DiskCache;
use crate::config::{BUDGET_TOKENS, HIGH_THRESHOLD, LIMIT, MAX_CYCLES, MIN_HIGH};
use crate::corpus::Corpus;
use crate::corpus::{Doc, Skip, MAX_FILE_BYTES};
use crate::error::{Error, Result};
use crate::history::{HistoryCache, HistorySource};
use crate::pipeline::Pipeline;
use crate::request::{
    CallOptions, DispatchRequest, EvaluateRequest, Judgment, RefineRequest, RetrieveRequest,
};
use crate::root::Roots;
use crate::session::{Session, Sessions};
use crate::types::{DispatchOutput, EvaluateOutput, RefineOutput, RetrieveOutput};
use crate::walk::{walk_with, DependencyDirs, Entry, Filter};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

pub use crate::config::LoopConfig;
pub(crate) use crate::limits::Limits;
pub(crate) use crate::root::canonical_dir;
#[cfg(test)]
pub(crate) use crate::root::scratch_git;

/// Options fixed for the life of an engine (a server process or a CLI call).
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// The directory given with `--root`. When set, a `root` argument may only
    /// name this directory or one below it.
    pub root: Option<PathBuf>,
    /// Wall-clock deadline of a call in ms (default [`crate::config::DEADLINE_MS`]'s);
    /// a `deadline_ms` argument overrides it per call.
    pub deadline_ms: Option<u64>,
    /// More directories a `root` argument may name (`serve --allow-root`,
    /// repeatable), with `root`. Each is trusted as given: the hidden and
    /// ignore checks apply only below it.
    pub allow_roots: Vec<PathBuf>,
    /// Let `!` whitelists in ignore files re-open hidden files, never `.git`
    /// (`--hidden-whitelisted`).
    pub hidden_whitelisted: bool,
    /// Let the CLI's `--root` (or the server's own) be hidden or ignored
    /// (`--allow-hidden-root`). Never applies to a server's `root` arguments.
    pub allow_hidden_root: bool,
    /// The retrieval stages every call runs (query, scoring signals,
    /// re-ranking, snippets and budget): [`Pipeline::default`] unless a
    /// library user adds a signal or replaces a stage.
    pub pipeline: Pipeline,
    /// Read and parse `root` in the background when a server starts
    /// ([`Engine::prefetch`]; `serve --no-prefetch` turns it off). Only
    /// `serve` looks at it.
    pub prefetch: bool,
    /// Turn the history signal off (`--no-history`): no `git log` runs and
    /// past commits add no evidence. Default: on, read from the root's
    /// repository (see [`crate::history`]).
    pub no_history: bool,
    /// The persistent cache (`--cache-dir DIR` or `CTXLOOP_CACHE_DIR`;
    /// [`DiskCache::open`]): each file's symbols are looked up there before
    /// it is parsed and stored after a complete parse, each file's term
    /// index before it is tokenized, and the history's `git log` output
    /// likewise per commit. A root that holds the cache directory (or lies
    /// inside it) is refused. `None`, the default: nothing is read from or
    /// written to disk.
    pub cache: Option<Arc<DiskCache>>,
}

/// Bytes of file text [`Engine::prefetch`] reads at most (files in path
/// order, each at most `MAX_FILE_BYTES` (1 MiB)): below the corpus cache's bound,
/// so prefetching never evicts and memory stays bounded on any tree.
pub const PREFETCH_READ_BYTES: u64 = 384 * 1024 * 1024;
/// Bytes of source [`Engine::prefetch`] parses at most (largest files first).
pub const PREFETCH_PARSE_BYTES: u64 = 64 * 1024 * 1024;
/// Threads [`Engine::prefetch`] parses on at most (one per core up to this).
const PREFETCH_PARSE_THREADS: usize = 4;
/// Files read per batch by [`Engine::prefetch`]; between batches it waits
/// while a call runs.
const PREFETCH_BATCH: usize = 256;

/// What [`Engine::prefetch`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefetched {
    /// Files the walk found.
    pub files: usize,
    /// Files read and indexed (or judged binary, minified, unreadable).
    pub read: usize,
    /// Files whose symbols were parsed and kept (a parse over its budget is
    /// dropped, for the call that needs the file to redo).
    pub parsed: usize,
    /// Stopped by its cancellation token before it was done.
    pub cancelled: bool,
}

/// Shared state: the file cache and the sessions.
pub struct Engine {
    options: EngineOptions,
    roots: Roots,
    pub(crate) corpus: Corpus,
    sessions: Sessions,
    /// Calls running now: [`Engine::prefetch`] pauses while there are any.
    busy: AtomicUsize,
    /// The histories read so far, one `git log` per repository and commit.
    histories: Arc<HistoryCache>,
}

/// Counts a call as running while it lives.
struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    fn new(n: &'a AtomicUsize) -> Busy<'a> {
        n.fetch_add(1, Ordering::SeqCst);
        Busy(n)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Engine {
    /// An engine with an empty file cache and no sessions.
    pub fn new(options: EngineOptions) -> Engine {
        Engine {
            roots: Roots::new(
                options.root.clone(),
                &options.allow_roots,
                options.allow_hidden_root,
                options.hidden_whitelisted,
            ),
            corpus: Corpus::with_disk_cache(options.cache.clone()),
            histories: Arc::new(HistoryCache::with_disk_cache(options.cache.clone())),
            options,
            sessions: Sessions::default(),
            busy: AtomicUsize::new(0),
        }
    }

    /// Warms the file cache for the engine's root (`--root`, else the working
    /// directory): walks it, reads and indexes its files (at most
    /// [`PREFETCH_READ_BYTES`] of text, in batches; every term of each counted,
    /// so later term counts and holder searches are lookups), then parses the largest
    /// source files (at most [`PREFETCH_PARSE_BYTES`], on one thread per core). Between
    /// batches and files it waits while a call runs, so it never slows one
    /// down by more than a batch or one file's parse; it returns once
    /// `cancel` is cancelled.
    ///
    /// Never stale: what it reads goes into the same cache calls use, keyed
    /// by each file's (size, mtime, ctime, inode), and every call walks the
    /// tree again, so a file changed after it was prefetched is read again.
    /// Blocking: a server runs it on a thread of its own.
    pub fn prefetch(&self, cancel: &CancellationToken) -> Result<Prefetched> {
        let root = self.resolve_root(None)?;
        let started = Instant::now();
        let stop = || cancel.is_cancelled();
        let mut done = Prefetched::default();
        let entries = walk_with(
            &root,
            self.roots.walk_options(),
            &DependencyDirs::default(),
            &stop,
        )
        .files;
        done.files = entries.len();
        let mut left = PREFETCH_READ_BYTES;
        let entries: Vec<Entry> = entries
            .into_iter()
            .filter(|e| e.size <= MAX_FILE_BYTES)
            .take_while(|e| {
                let fits = e.size <= left;
                left = left.saturating_sub(e.size);
                fits
            })
            .collect();
        // Weak: a version a call replaced or evicted meanwhile is not parsed.
        let mut sources: Vec<(usize, Weak<Doc>)> = Vec::new();
        for batch in entries.chunks(PREFETCH_BATCH) {
            if !self.idle(cancel) {
                done.cancelled = true;
                return Ok(done);
            }
            let loaded = self.corpus.load(batch.to_vec(), &[], &stop);
            // Every term counted (about 16 bytes per distinct term of a file,
            // a few percent of its text, within the read budget's files): a
            // call's term counts and holder searches then look these files up
            // instead of scanning them.
            loaded.par_iter().for_each(|l| {
                if let Ok(d) = &l.doc {
                    if !stop() {
                        d.terms();
                    }
                }
            });
            for l in &loaded {
                match &l.doc {
                    Err(Skip::NotRead) => {}
                    Ok(d) => {
                        done.read += 1;
                        if d.language.is_some() && d.kept_symbols().is_none() {
                            sources.push((d.len(), Arc::downgrade(d)));
                        }
                    }
                    Err(_) => done.read += 1,
                }
            }
        }
        tracing::info!(
            files = done.files,
            read = done.read,
            ms = started.elapsed().as_millis() as u64,
            "prefetch: files read"
        );
        sources.sort_by_key(|(len, _)| std::cmp::Reverse(*len));
        let mut left = PREFETCH_PARSE_BYTES as usize;
        let sources: Vec<Weak<Doc>> = sources
            .into_iter()
            .filter(|(len, _)| {
                let fits = *len <= left;
                if fits {
                    left -= len;
                }
                fits
            })
            .map(|(_, doc)| doc)
            .collect();
        done.parsed = self.parse_ahead(&sources, cancel);
        done.cancelled = stop();
        Ok(done)
    }

    /// Parses `sources` in order, on threads of its own, one per
    /// core ([`PREFETCH_PARSE_THREADS`] at most), each thread waiting before
    /// each file while a call runs. Not rayon's global pool: a prefetch thread
    /// waiting for a call to end must not hold a worker the call's own
    /// parallel work needs. Returns the files whose symbols were kept.
    fn parse_ahead(&self, sources: &[Weak<Doc>], cancel: &CancellationToken) -> usize {
        let stop = || cancel.is_cancelled();
        let parsed = AtomicUsize::new(0);
        let next = AtomicUsize::new(0);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(doc) = sources.get(i) else { break };
            if !self.idle(cancel) {
                break;
            }
            if let Some(doc) = doc.upgrade() {
                if doc.parse_ahead(&stop) {
                    parsed.fetch_add(1, Ordering::Relaxed);
                }
            }
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, PREFETCH_PARSE_THREADS);
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let spawned = std::thread::Builder::new()
                    .name("ctxloop-prefetch-parse".into())
                    .spawn_scoped(scope, work);
                if let Err(e) = spawned {
                    tracing::warn!("prefetch: parse thread not started: {e}");
                }
            }
            work();
        });
        parsed.into_inner()
    }

    /// The engine's pipeline for a call on `root`, plus the history pass
    /// (`source`, default [`HistorySource::Discover`]) unless the engine's
    /// `no_history` is set. The pass reads the history when it first runs:
    /// one `git log` per repository and commit (cached in the engine),
    /// within the call's deadline and cancellation; stopped by them, the
    /// call goes on without history.
    fn pipeline_for(&self, root: &std::path::Path, source: Option<&HistorySource>) -> Pipeline {
        let mut pipeline = self.options.pipeline.clone();
        let source = source.cloned().unwrap_or_default();
        if self.options.no_history || source == HistorySource::Off {
            return pipeline;
        }
        pipeline.scorer = pipeline.scorer.with_pass(crate::score::History::new(
            self.histories.clone(),
            source,
            root.to_path_buf(),
        ));
        pipeline
    }

    /// Equips `session` for a call with history `source`: the engine's
    /// pipeline ([`Engine::pipeline_for`]) and the history its later
    /// cycles' links read (files that change together), read through the
    /// same cache when first needed; none with `no_history` or
    /// [`HistorySource::Off`].
    fn equip(&self, session: &mut Session, source: Option<&HistorySource>) {
        let root = session.config.root.clone();
        session.pipeline = self.pipeline_for(&root, source);
        let source = source.cloned().unwrap_or_default();
        session.past = (!self.options.no_history && source != HistorySource::Off).then(|| {
            Arc::new(crate::history::LazyHistory::new(
                self.histories.clone(),
                source,
                root,
            ))
        });
    }

    /// Waits while a call runs; false once `cancel` is cancelled.
    fn idle(&self, cancel: &CancellationToken) -> bool {
        while self.busy.load(Ordering::SeqCst) > 0 && !cancel.is_cancelled() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        !cancel.is_cancelled()
    }

    /// `root` (absolute, or relative to the engine's root; `None`: the
    /// engine's root, else the working directory) as a canonical directory
    /// the engine may search. Errors: [`Error::RootNotFound`],
    /// [`Error::RootNotDirectory`], [`Error::RootOutsideAllowed`],
    /// [`Error::RootHidden`], [`Error::RootIgnored`], [`Error::RootInGitDir`], and
    /// [`Error::CacheInsideRoot`] when the engine's cache directory lies
    /// inside it.
    pub fn resolve_root(&self, root: Option<&str>) -> Result<PathBuf> {
        let root = self.roots.resolve_root(root)?;
        if let Some(cache) = &self.options.cache {
            cache.check_outside(&root)?;
        }
        Ok(root)
    }

    /// Validates a request's loop settings once; the loop only sees the result.
    /// Errors: those of [`LoopConfig::new`], and [`Error::CacheInsideRoot`].
    pub fn config(&self, p: &RetrieveRequest) -> Result<LoopConfig> {
        let cfg = LoopConfig::new(p, &self.roots)?;
        if let Some(cache) = &self.options.cache {
            cache.check_outside(&cfg.root)?;
        }
        Ok(cfg)
    }

    /// The deadline of a call in ms: its `deadline_ms` argument, else the
    /// engine's default. Errors: [`Error::OutOfRange`] outside [`crate::config::DEADLINE_MS`].
    pub fn deadline_ms(&self, arg: Option<u64>) -> Result<u64> {
        crate::config::deadline_ms(self.options.deadline_ms, arg)
    }

    /// The whole loop in one call (`retrieve`): dispatch, evaluate and refine
    /// until the stop rule says done. Pass [`CallOptions::PLAIN`] for a plain
    /// call. `opts` sets the weights, the client's
    /// cancellation and a progress callback called after each cycle. Stops
    /// early, with `truncated` set, at the call's deadline or on cancellation.
    ///
    /// Errors: the request's invalid settings, task or root (see [`LoopConfig::new`]).
    pub fn retrieve(
        &self,
        p: impl Into<RetrieveRequest>,
        opts: &CallOptions,
    ) -> Result<RetrieveOutput> {
        let _busy = Busy::new(&self.busy);
        let p = p.into();
        let start = Instant::now();
        let cfg = self.config(&p)?;
        let limits = Limits::new(Some(self.deadline_ms(p.deadline_ms)?), opts.cancel.cloned());
        let max_cycles = cfg.max_cycles;
        let mut session = Session::new(String::new(), cfg);
        session.read_provenance_ahead();
        if let Some(weights) = opts.weights {
            session.weights = weights.clone();
        }
        self.equip(&mut session, opts.history);
        session.limits = limits.clone();
        session.reuse_walk = true;
        loop {
            let d = session.dispatch(&self.corpus, &[], &[], &[])?;
            if let Some(reason) = limits.hit() {
                session.evaluate(&self.corpus, &[])?;
                session.stop_early(reason);
                break;
            }
            let e = session.evaluate(&self.corpus, &[])?;
            if let Some(progress) = opts.progress {
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
            }
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
        if let Some(cache) = &self.options.cache {
            tracing::debug!(
                symbols = ?cache.stats(),
                terms = ?cache.terms_stats(),
                history = ?cache.history_stats(),
                "disk cache (since the engine started)"
            );
        }
        Ok(out)
    }

    /// `dispatch`: start a session or run the next cycle of one, within the
    /// engine's deadline and `opts.cancel` (`opts.weights` and
    /// `opts.progress` are not read: a session scores with the defaults).
    ///
    /// Errors: neither a task nor a session id, an unknown or expired
    /// session, a task, root or setting other than the session's, a session
    /// that has run its `max_cycles` cycles, the settings and globs
    /// [`LoopConfig::new`] refuses.
    pub fn dispatch(
        &self,
        req: impl Into<DispatchRequest>,
        opts: &CallOptions,
    ) -> Result<DispatchOutput> {
        let _busy = Busy::new(&self.busy);
        let DispatchRequest {
            session_id,
            start: p,
        } = req.into();
        let start = Instant::now();
        let limits = Limits::new(Some(self.deadline_ms(None)?), opts.cancel.cloned());
        let Some(id) = &session_id else {
            // Neither half of the tool's either-or was given: "task is empty"
            // did not say that a session_id would have done.
            if p.task.trim().is_empty() {
                return Err(Error::DispatchWithoutTask);
            }
            // A new session takes the filters as its initial query.
            let cfg = self.config(&p)?;
            let session = self.sessions.create(cfg);
            let mut s = self.lock_session(&session)?;
            self.equip(&mut s, opts.history);
            s.limits = limits;
            let mut out = match s.dispatch(&self.corpus, &[], &[], &[]) {
                Ok(out) => out,
                Err(e) => {
                    // Its id was never handed out: it would only take a place.
                    self.sessions.remove(&s.id);
                    return Err(e);
                }
            };
            out.stats.elapsed_ms = start.elapsed().as_millis() as u64;
            return Ok(out);
        };
        // A continued session adds the filters to its query.
        let session = self.sessions.get(id)?;
        let mut s = self.lock_session(&session)?;
        self.same_start(&s, &p)?;
        if s.cycles_run() >= s.config.max_cycles {
            return Err(Error::CyclesSpent {
                id: id.clone(),
                max_cycles: s.config.max_cycles,
            });
        }
        crate::config::check_lists(&p.patterns, &p.excludes, &p.keywords)?;
        Filter::new(&p.patterns, &p.excludes)?;
        if let Some(limit) = p.limit {
            s.config.limit = LIMIT.check(Some(limit))?;
        }
        s.limits = limits;
        let mut out = s.dispatch(&self.corpus, &p.patterns, &p.keywords, &p.excludes)?;
        out.stats.elapsed_ms = start.elapsed().as_millis() as u64;
        Ok(out)
    }

    /// Checks that a continued session's request keeps its task, root and
    /// loop settings: each is fixed when the session starts, so another
    /// value is an [`Error::SessionMismatch`] (not silently ignored); an
    /// omitted one or the same one passes.
    fn same_start(&self, s: &Session, p: &RetrieveRequest) -> Result<()> {
        let mismatch = |field: &'static str, started: String, given: String| {
            Err(Error::SessionMismatch {
                id: s.id.clone(),
                field,
                started,
                given,
            })
        };
        if let Some(task) = Some(p.task.trim()).filter(|t| !t.is_empty()) {
            if task != s.config.task.trim() {
                return mismatch("task", s.config.task.clone(), task.to_string());
            }
        }
        if let Some(root) = p.root.as_deref() {
            if self.resolve_root(Some(root))? != s.config.root {
                let started = s.config.root.display().to_string();
                return mismatch("root", started, root.to_string());
            }
        }
        let as_f64 = |v: Option<usize>| v.map(|v| v as f64);
        let settings = [
            (
                MAX_CYCLES.name,
                as_f64(p.max_cycles),
                s.config.max_cycles as f64,
            ),
            (MIN_HIGH.name, as_f64(p.min_high), s.config.min_high as f64),
            (
                HIGH_THRESHOLD.name,
                p.high_threshold,
                s.config.high_threshold,
            ),
            (
                BUDGET_TOKENS.name,
                as_f64(p.budget_tokens),
                s.config.budget_tokens as f64,
            ),
        ];
        for (field, given, started) in settings {
            if let Some(given) = given.filter(|g| *g != started) {
                return mismatch(field, started.to_string(), given.to_string());
            }
        }
        Ok(())
    }

    /// Locks a session for a call. A call that panicked while it held the
    /// lock (answered as an internal error) poisons it: the session may be
    /// half-updated, so it is closed and the call gets
    /// [`Error::SessionBroken`], where every later call on it answered
    /// "panicked … session poisoned" (probe of session 37).
    fn lock_session<'a>(
        &self,
        session: &'a std::sync::Mutex<crate::session::Session>,
    ) -> Result<std::sync::MutexGuard<'a, crate::session::Session>> {
        session.lock().map_err(|poisoned| {
            let id = poisoned.into_inner().id.clone();
            self.sessions.remove(&id);
            Error::SessionBroken { id }
        })
    }

    /// `evaluate`: score the session's candidates, blending agent judgments,
    /// within the engine's deadline and `opts.cancel` (the other options are
    /// not read).
    ///
    /// Errors: an unknown session, nothing dispatched yet, a judgment with a
    /// relevance outside [0, 1] or a path that is not one of the session's
    /// files, two judgments of one file.
    pub fn evaluate(
        &self,
        req: impl Into<EvaluateRequest>,
        opts: &CallOptions,
    ) -> Result<EvaluateOutput> {
        let p = req.into();
        // Judgments are checked before the session sees them.
        let judgments = p
            .judgments
            .iter()
            .map(Judgment::validate)
            .collect::<Result<Vec<_>>>()?;
        crate::request::one_judgment_per_file(&judgments)?;
        let _busy = Busy::new(&self.busy);
        let session = self.sessions.get(&p.session_id)?;
        let mut s = self.lock_session(&session)?;
        // This call's own deadline and cancellation: the limits of the
        // `dispatch` call before it are over.
        s.limits = Limits::new(Some(self.deadline_ms(None)?), opts.cancel.cloned());
        s.evaluate(&self.corpus, &judgments)
    }

    /// `refine`: build the next query and say whether the loop is done. It
    /// reads no option today (it does no search: nothing to cancel or
    /// weigh); `opts` keeps every step's entry the same shape.
    ///
    /// Errors: a list over [`crate::config::MAX_LIST_ITEMS`], an invalid
    /// glob, an unknown session, nothing evaluated yet.
    pub fn refine(
        &self,
        req: impl Into<RefineRequest>,
        _opts: &CallOptions,
    ) -> Result<RefineOutput> {
        let p = req.into();
        crate::config::check_lists(&p.patterns, &p.excludes, &p.keywords)?;
        Filter::new(&p.patterns, &p.excludes)?;
        let session = self.sessions.get(&p.session_id)?;
        let mut s = self.lock_session(&session)?;
        if !s.is_evaluated() {
            return Err(Error::NothingToEvaluate {
                id: p.session_id.clone(),
                action: "refine",
            });
        }
        Ok(s.refine(&p.keywords, &p.patterns, &p.excludes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DispatchParams, EvaluateParams};

    #[test]
    fn a_session_a_call_panicked_in_is_closed_with_an_error_not_a_panic_per_call() {
        // Probe of session 37: after one panic, every later evaluate and
        // refine on the session answered "panicked … session poisoned".
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def frobnicate():\n    pass\n").unwrap();
        let engine = Engine::new(EngineOptions {
            root: Some(dir.path().to_path_buf()),
            ..Default::default()
        });
        let d = engine
            .dispatch(
                DispatchParams {
                    task: Some("frobnicate fails".into()),
                    ..Default::default()
                },
                &CallOptions::PLAIN,
            )
            .unwrap();
        let session = engine.sessions.get(&d.session_id).unwrap();
        let poison = std::thread::spawn(move || {
            let _held = session.lock().unwrap();
            panic!("a call that panics while it holds the session");
        });
        assert!(poison.join().is_err());
        let evaluate = || {
            engine
                .evaluate(
                    EvaluateParams {
                        session_id: d.session_id.clone(),
                        judgments: Vec::new(),
                    },
                    &CallOptions::PLAIN,
                )
                .unwrap_err()
                .to_string()
        };
        let err = evaluate();
        assert!(
            err.contains("was closed: an earlier call on it stopped"),
            "{err}"
        );
        // Closed: the next call finds no such session, and says how to start one.
        assert!(evaluate().contains("unknown session"));
    }
}
