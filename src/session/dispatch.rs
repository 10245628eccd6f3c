//! DISPATCH: walk the tree as it is now, score it with the current query, and
//! keep the best candidates not already returned.

use super::{extend, Session};
use crate::corpus::{Corpus, Doc, Loaded, Skip};
use crate::error::{Error, Result};
use crate::score::{self, Candidate, Evidence};
use crate::types::*;
use crate::walk::{excluding_all, unmatched_includes, walk_with, DependencyDirs, Filter};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Candidates a dispatch evaluates (the best ones by server score).
const CANDIDATES_PER_CYCLE: usize = 30;

/// Most files an answer lists in `stats.skipped_files` (a tree of
/// thousands of badly named files must not swell every answer).
const MAX_SKIPPED_LISTED: usize = 100;

impl Session {
    /// DISPATCH: walk the tree as it is now, score it with the current query,
    /// and keep the best candidates not already returned.
    pub fn dispatch(
        &mut self,
        corpus: &Corpus,
        patterns: &[String],
        keywords: &[String],
        excludes: &[String],
    ) -> Result<DispatchOutput> {
        let filter = self.start_cycle(patterns, keywords, excludes)?;
        if self.cycle == 1 {
            self.read_history_ahead();
        }
        let t0 = Instant::now();
        let (loaded, walk_stopped, t_walk) = self.walk_and_read(corpus, t0);
        let t_load = t0.elapsed();
        let (docs, mut stats) = self.sort_out(&loaded, &filter, walk_stopped);
        self.check_includes(&loaded, &filter, walk_stopped, &mut stats)?;
        stats.terms_cut = self.task_query.cut.clone();
        self.check_excludes(&loaded, &filter, walk_stopped, &stats)?;
        self.corpus = docs
            .iter()
            .map(|(p, d, _)| (p.clone(), d.clone()))
            .collect();
        self.forget_gone();
        let cands: Vec<Candidate> = docs
            .iter()
            .map(|(rel, doc, allowed)| Candidate {
                rel,
                doc,
                allowed: *allowed,
            })
            .collect();
        let scored = if self.settled {
            Vec::new()
        } else {
            self.score_cycle(&cands)
        };
        stats.not_parsed = self.not_parsed_list();
        tracing::debug!(
            cycle = self.cycle,
            walk_ms = t_walk.as_millis() as u64,
            load_ms = (t_load - t_walk).as_millis() as u64,
            score_ms = (t0.elapsed() - t_load).as_millis() as u64,
            files = cands.len(),
            "dispatch"
        );
        self.bring_in_lifts(&filter);
        let linked = self.bring_in_links(&filter);
        let mut out_cands = self.merge(&scored, &cands, &linked);
        self.stats = stats.clone();
        // The step-wise answer carries its snippets, packed as `retrieve`'s
        // are. `retrieve`'s own cycles skip them: it packs only its answer.
        let (tokens, dropped) = if self.reuse_walk {
            (0, Vec::new())
        } else {
            let packed = self.pack_snippets(&mut out_cands);
            stats.not_parsed = self.stats.not_parsed.clone();
            packed
        };
        Ok(DispatchOutput {
            session_id: self.id.clone(),
            cycle: self.cycle,
            query: self.query.clone(),
            candidates: out_cands,
            dropped,
            tokens,
            stats,
            truncated: self.truncated.clone(),
        })
    }

    /// Forgets what earlier cycles kept of files this cycle's walk did not
    /// find: deleted, renamed, or now hidden or ignored since the last
    /// `dispatch` of the session. Before, they stayed ranked with no text
    /// behind them, and the next `evaluate` panicked looking it up (probe of
    /// session 37), leaving the session unusable.
    fn forget_gone(&mut self) {
        let corpus = &self.corpus;
        self.files.retain(|p, _| corpus.contains_key(p));
        self.candidates.retain(|p| corpus.contains_key(p));
        self.returned.retain(|p, _| corpus.contains_key(p));
        self.snippets.retain(|p, _| corpus.contains_key(p));
        self.expanded.retain(|p| corpus.contains_key(p));
        self.links.retain(|l| corpus.contains_key(&l.path));
        if let Some(lift) = &mut self.lift {
            lift.files.retain(|l| corpus.contains_key(&l.path));
        }
    }

    /// Between a step-wise `dispatch` and its `evaluate` the agent may edit,
    /// delete, rename or newly ignore files: `evaluate` reads the tree again
    /// (the walk and the corpus loader, which reads again only files whose
    /// size or modification time changed), so its snippets and gaps come from
    /// the text as it is at the call, and the files the walk no longer finds
    /// (deleted, renamed, now hidden or ignored) are forgotten: the
    /// evaluation never names them nor shows their old text (probes of
    /// session 37). An edited file keeps the relevance the dispatch gave it
    /// (the agent's judgment or the next dispatch scores it again). A walk
    /// cut short by the call's deadline or cancellation leaves the session's
    /// files as they were, less those that are no longer a regular file (one
    /// `stat` each).
    pub(super) fn read_again(&mut self, corpus: &Corpus) -> Result<()> {
        let filter = Filter::new(&self.query.patterns, &self.query.excludes)?;
        let (loaded, walk_stopped, _) = self.walk_and_read(corpus, Instant::now());
        if walk_stopped.is_some() || self.limits.hit().is_some() {
            self.forget_deleted();
            return Ok(());
        }
        let (docs, _) = self.sort_out(&loaded, &filter, walk_stopped);
        self.corpus = docs.into_iter().map(|(p, d, _)| (p, d)).collect();
        self.forget_gone();
        Ok(())
    }

    /// Forgets the session's files that are no longer a regular file at
    /// their path (one `stat` each, for the files the session scored).
    fn forget_deleted(&mut self) {
        let root = &self.config.root;
        let gone: Vec<String> = self
            .files
            .keys()
            .filter(|p| !std::fs::metadata(root.join(p)).is_ok_and(|m| m.is_file()))
            .cloned()
            .collect();
        for p in &gone {
            self.corpus.remove(p);
        }
        if !gone.is_empty() {
            self.forget_gone();
        }
    }

    /// Starts reading the root's history (one `git log`, into the engine's
    /// history cache, memory only) on a thread of its own, so that it runs
    /// beside the first cycle's walk, reads and parses instead of after
    /// them: the links of the later cycles are its only reader, and the
    /// first evaluation looks for them unless the loop stops (sympy: a
    /// 0.3 s `git log` on the cold call's path). The same commit's history
    /// is read either way, so the answer does not change. Not with one
    /// cycle (no links), no history, or a call already out of time.
    fn read_history_ahead(&mut self) {
        if self.config.max_cycles < 2 || self.limits.hit().is_some() {
            return;
        }
        let Some(past) = self.past.clone() else {
            return;
        };
        let limits = self.limits.clone();
        let read = move || {
            past.get(&|| limits.hit().is_some());
        };
        self.history_ahead = std::thread::Builder::new()
            .name("ctxloop-history".into())
            .spawn(read)
            .ok();
    }

    /// Scores the cycle's candidates with the current query; past the
    /// deadline without parsing. Notes what a deadline left out and which
    /// files were ranked without their syntax tree.
    fn score_cycle(&mut self, cands: &[Candidate]) -> Vec<score::Scored> {
        let limits = self.limits.clone();
        // Past the deadline, the answer comes from what is cheap: no parsing
        // (definitions, neighbours) and, in `evaluate`, no gap search.
        let hurry = limits.hit();
        if let Some(reason) = hurry {
            let place = format!("in cycle {} after reading the files", self.cycle);
            self.note_skipped(
                reason,
                &place,
                "ranked by BM25 and paths only, without parsing",
            );
        }
        let stop = || limits.hit().is_some();
        score::bm25::forget_held_subnames(&mut self.task_query, cands);
        let scored = self.pipeline.scorer.score(
            cands,
            &self.task_query,
            &self.focus,
            &self.weights,
            hurry.is_some(),
            &stop,
        );
        let mut stopped = 0;
        for s in &scored {
            if let Some(cap) = s.capped {
                stopped += usize::from(cap == crate::lang::Cap::Stopped);
                self.not_parsed.insert(cands[s.idx].rel.to_string(), cap);
            }
        }
        if let Some(reason) = limits.hit().filter(|_| stopped > 0) {
            let place = format!("in cycle {} while parsing", self.cycle);
            self.note_skipped(
                reason,
                &place,
                &format!("{stopped} files ranked by their text alone (stats.not_parsed)"),
            );
        }
        scored
    }

    /// Chooses the snippets of a step-wise dispatch's candidates (on all
    /// cores) and packs them into the token budget. Returns (tokens, dropped).
    fn pack_snippets(&mut self, out_cands: &mut [File]) -> (usize, Vec<String>) {
        use rayon::prelude::*;
        // The session's best file, which need not be a new candidate.
        let best = self.ranked().into_iter().next().map(|(p, _)| p);
        let found: Vec<Vec<Snippet>> = out_cands
            .par_iter()
            .map(|f| {
                self.shown(&f.path, best.as_ref() == Some(&f.path), || {
                    self.chosen(&f.path)
                })
            })
            .collect();
        for (f, sn) in out_cands.iter_mut().zip(found) {
            f.snippets = sn;
        }
        self.note_unparsed(out_cands.iter().map(|f| f.path.as_str()));
        self.pack_files(out_cands)
    }

    /// Adds the call's filters to the query and starts the next cycle.
    fn start_cycle(
        &mut self,
        patterns: &[String],
        keywords: &[String],
        excludes: &[String],
    ) -> Result<Filter> {
        extend(&mut self.query.patterns, patterns);
        extend(&mut self.query.keywords, keywords);
        extend(&mut self.query.excludes, excludes);
        let filter = Filter::new(&self.query.patterns, &self.query.excludes)?;
        self.cycle += 1;
        self.evaluated = false;
        self.done = None;
        self.truncated = None;
        if !self.reuse_walk {
            // A step-wise call of its own; `retrieve` keeps its cycles' files.
            self.not_parsed.clear();
        }
        self.settled = self.is_settled();
        if self.settled {
            // The first cycle's query stays: it chose the answer's snippets.
            return Ok(filter);
        }
        let agent: Vec<String> = self
            .query
            .keywords
            .iter()
            .filter(|k| !self.feedback.contains(k))
            .cloned()
            .collect();
        let limits = self.limits.clone();
        let stop = || limits.hit().is_some();
        let alternates = self.weights.alternates();
        self.task_query = (self.pipeline.query).build(
            &self.config.task,
            &agent,
            &self.feedback,
            alternates,
            &stop,
        );
        Ok(filter)
    }

    /// The tree's files, walked and read (or the first cycle's snapshot of
    /// them), why the walk stopped early if it did, and when the walk ended.
    fn walk_and_read(
        &mut self,
        corpus: &Corpus,
        t0: Instant,
    ) -> (Arc<Vec<Loaded>>, Option<StopReason>, Duration) {
        let limits = self.limits.clone();
        let stop = || limits.hit().is_some();
        // Within one `retrieve` call the tree is walked and read once: later
        // cycles see the same snapshot (walk 0.3 s and cache lookups 0.12 s a
        // cycle saved on the Linux kernel). Step-wise sessions walk again, as
        // each call reads the tree as it is.
        match self.snapshot.take() {
            Some(loaded) if self.reuse_walk => {
                self.snapshot = Some(loaded.clone());
                (loaded, None, t0.elapsed())
            }
            _ => {
                let deps = DependencyDirs::reopened_by(&self.query.patterns);
                let walked = walk_with(&self.config.root, self.config.walk, &deps, &stop);
                self.links_not_followed = walked.links_not_followed;
                self.not_utf8 = walked.not_utf8;
                self.dirs_not_read = walked.dirs_not_read;
                self.walk_errors = walked.walk_errors;
                let entries = walked.files;
                let walk_stopped = limits.hit();
                let t_walk = t0.elapsed();
                let wanted: Vec<(u64, &str)> = self
                    .task_query
                    .terms
                    .iter()
                    .map(|t| (t.hash, t.text.as_str()))
                    .collect();
                let loaded = Arc::new(corpus.load(entries, &wanted, &stop));
                if self.reuse_walk && limits.hit().is_none() {
                    self.snapshot = Some(loaded.clone());
                }
                (loaded, walk_stopped, t_walk)
            }
        }
    }

    /// Lists the include globs that matched no file the walk found
    /// (`stats.unmatched_patterns`): an empty answer said nothing of them. In
    /// a session's first cycle, include globs none of which matched a file
    /// leave nothing to search: [`Error::NothingIncluded`]. (A later cycle's
    /// globs add to the first's, so it lists them.) Not after a walk cut
    /// short or one that could not read a directory an include glob may
    /// match a file in: a glob may match a file it did not reach.
    fn check_includes(
        &self,
        loaded: &[Loaded],
        filter: &Filter,
        walk_stopped: Option<StopReason>,
        stats: &mut Stats,
    ) -> Result<()> {
        if self.query.patterns.is_empty()
            || walk_stopped.is_some()
            || self
                .dirs_not_read
                .iter()
                .any(|d| filter.may_hold_included(&d.path))
        {
            return Ok(());
        }
        let unmatched = unmatched_includes(&self.query.patterns, self.walked_paths(loaded));
        let includes = self
            .query
            .patterns
            .iter()
            .filter(|g| !g.trim().is_empty() && !g.trim().starts_with('!'))
            .count();
        let walked = self.walked_paths(loaded).count();
        if self.cycle == 1 && walked > 0 && includes > 0 {
            // Nothing to search when no include glob matches a file that can
            // be read: those that match only names no answer can hold (not
            // UTF-8, listed under "not searched") are named as such, where
            // "nothing matched: none of the files holds a word of the task"
            // misled (probe of session 36); else the globs match nothing.
            let on_readable = if self.not_utf8.is_empty() {
                unmatched.clone()
            } else {
                unmatched_includes(
                    &self.query.patterns,
                    loaded.iter().map(|l| l.entry.rel.as_str()),
                )
            };
            if on_readable.len() == includes {
                let unreadable_only: Vec<String> = on_readable
                    .into_iter()
                    .filter(|g| !unmatched.contains(g))
                    .collect();
                if unreadable_only.is_empty() {
                    return Err(Error::NothingIncluded {
                        globs: unmatched,
                        root: self.config.root.clone(),
                        walked,
                    });
                }
                let mut files: Vec<String> = self
                    .not_utf8
                    .iter()
                    .filter(|f| filter.is_match(&f.path))
                    .map(|f| crate::error::clip(&f.path))
                    .collect();
                if files.len() > 3 {
                    let more = files.len() - 3;
                    files.truncate(3);
                    files.push(format!("and {more} more"));
                }
                return Err(Error::IncludedNotReadable {
                    globs: unreadable_only,
                    files,
                    root: self.config.root.clone(),
                    walked,
                });
            }
        }
        stats.unmatched_patterns = unmatched;
        Ok(())
    }

    /// In a session's first cycle, exclude globs that remove every file the
    /// walk found that the include globs let through leave nothing to
    /// search: [`Error::EverythingExcluded`], naming the globs that did (as
    /// [`Error::NothingIncluded`] names the includes). It answered 0 files,
    /// stop `no_candidates`. (A later cycle's globs, and those `refine`
    /// adds, exclude files an earlier cycle found.) Not after a walk cut
    /// short, nor while a directory the excludes leave was not read: a file
    /// there may pass.
    fn check_excludes(
        &self,
        loaded: &[Loaded],
        filter: &Filter,
        walk_stopped: Option<StopReason>,
        stats: &Stats,
    ) -> Result<()> {
        if self.cycle != 1
            || self.query.excludes.is_empty()
            || walk_stopped.is_some()
            || stats.skipped.dirs_not_read > 0
        {
            return Ok(());
        }
        let globs = excluding_all(filter, &self.query.excludes, self.walked_paths(loaded));
        if globs.is_empty() {
            return Ok(());
        }
        Err(Error::EverythingExcluded {
            globs,
            root: self.config.root.clone(),
            with_includes: self.query.patterns.iter().any(|g| !g.trim().is_empty()),
            walked: self.walked_paths(loaded).count(),
        })
    }

    /// Every path the walk found that the hidden and ignore rules admit:
    /// the files read and those whose names are not UTF-8 (as listed), what
    /// the include and exclude checks judge.
    fn walked_paths<'a>(&'a self, loaded: &'a [Loaded]) -> impl Iterator<Item = &'a str> {
        let paths = loaded.iter().map(|l| l.entry.rel.as_str());
        paths.chain(self.not_utf8.iter().map(|f| f.path.as_str()))
    }

    /// The read files with whether the query's filter allows each, and the
    /// cycle's counts of skipped files; notes a walk or read cut short.
    fn sort_out(
        &mut self,
        loaded: &[Loaded],
        filter: &Filter,
        walk_stopped: Option<StopReason>,
    ) -> (Vec<(String, Arc<Doc>, bool)>, Stats) {
        let limits = self.limits.clone();
        // Every file the walk found, as the errors count them
        // (`walked_paths`): those whose names are not UTF-8 too.
        let mut stats = Stats {
            files_walked: loaded.len() + self.not_utf8.len(),
            ..Stats::default()
        };
        stats.skipped.links_not_followed = self.links_not_followed;
        stats.skipped.walk_errors = self.walk_errors;
        // Files no answer can name, within the query's globs, and the
        // directories the walk could not read, unless excluded whole or
        // off every include glob's path (no file there could be included).
        let not_utf8: Vec<&SkippedFile> = self
            .not_utf8
            .iter()
            .filter(|f| filter.is_match(&f.path))
            .collect();
        let dirs_not_read: Vec<&SkippedFile> = self
            .dirs_not_read
            .iter()
            .filter(|d| !filter.excludes_dir(&d.path) && filter.may_hold_included(&d.path))
            .collect();
        stats.skipped.name_not_utf8 = not_utf8.len();
        stats.skipped.dirs_not_read = dirs_not_read.len();
        let mut listed: Vec<&SkippedFile> = not_utf8.into_iter().chain(dirs_not_read).collect();
        listed.sort_by(|a, b| a.path.cmp(&b.path));
        // A path is cut as every echo is ([`crate::error::clip`]): one
        // not read for its length (over PATH_MAX, 4,096 bytes on Linux) was
        // shown whole, and a hundred of them would swell the answer by 400 KB.
        stats.skipped_files = listed
            .into_iter()
            .take(MAX_SKIPPED_LISTED)
            .map(|f| SkippedFile {
                path: crate::error::clip(&f.path),
                reason: f.reason.clone(),
            })
            .collect();
        let mut docs: Vec<(String, Arc<Doc>, bool)> = Vec::with_capacity(loaded.len());
        for l in loaded.iter() {
            match &l.doc {
                Ok(doc) => {
                    let allowed = filter.is_match(&l.entry.rel);
                    if !allowed {
                        stats.skipped.ignored += 1;
                    }
                    docs.push((l.entry.rel.clone(), doc.clone(), allowed));
                }
                Err(Skip::Binary) => stats.skipped.binary += 1,
                Err(Skip::TooLarge) => stats.skipped.too_large += 1,
                Err(Skip::Minified) => stats.skipped.minified += 1,
                Err(Skip::Unreadable) => stats.skipped.unreadable += 1,
                Err(Skip::NotRead) => stats.skipped.not_read += 1,
            }
        }
        let read_stopped = stats.skipped.not_read > 0;
        if let Some(reason) = walk_stopped.or(limits.hit().filter(|_| read_stopped)) {
            let place = if walk_stopped.is_some() {
                format!("walking the tree ({} files found)", stats.files_walked)
            } else {
                format!(
                    "reading files: {} of {} read",
                    loaded.len() - stats.skipped.not_read,
                    loaded.len()
                )
            };
            self.truncated =
                Some(limits.truncated(reason, format!("in cycle {} while {place}", self.cycle)));
        }
        stats.files_scored = docs.iter().filter(|d| d.2).count();
        (docs, stats)
    }

    /// Brings in the files the last evaluation linked to its high files
    /// (see `links`): each gets its link's strength, discounted as later
    /// cycles' evidence is, and, unless an agent-judged file is its source,
    /// no more than the first cycle's answer leaves room for (the
    /// `tail_cap`: below its `limit` files, so an unjudged link fills the
    /// slots cycle 1 left empty and never pushes one of its files out; capped
    /// below its 5th file, links pushed cycle 1's ranks 6-10 out: C Acc@10
    /// 85.0 after cycle 1, 77.5 after 3). Files the
    /// query excludes, and files the agent judged, are left as they are.
    /// Returns the paths whose relevance rose.
    fn bring_in_links(&mut self, filter: &Filter) -> Vec<String> {
        let discount = self.weights.later_discount;
        let after_scored = self.per_cycle();
        let mut raised = Vec::new();
        for (j, l) in std::mem::take(&mut self.links).into_iter().enumerate() {
            if !filter.is_match(&l.path) || !self.corpus.contains_key(&l.path) {
                continue;
            }
            let mut relevance = (l.strength * discount * 1000.0).round() / 1000.0;
            if !l.judged {
                if let Some(cap) = self.tail_cap {
                    relevance = relevance.min(cap);
                }
            }
            let kept = self.files.entry(l.path.clone()).or_default();
            if kept.judged || relevance <= kept.relevance {
                continue;
            }
            kept.relevance = relevance;
            kept.place = Some((self.cycle, after_scored + j));
            kept.evidence.insert(0, Evidence::Link(l.link.clone()));
            raised.push(l.path);
        }
        raised
    }

    /// Whether this later cycle of `retrieve`'s own loop can change its
    /// answer only by lifting (see `bring_in_lifts`): no agent takes part
    /// (no file judged), and the first cycle filled the answer's `limit`
    /// files, so whatever this cycle's scores find joins below them
    /// (`tail_cap`) and is not shown. Then the cycle does not score the
    /// tree again nor rebuild its query (sympy, "solveset raises
    /// NotImplementedError instead of returning ConditionSet": the second
    /// cycle's scoring took 72 ms for no change of the answer).
    fn is_settled(&self) -> bool {
        self.cycle > 1
            && self.reuse_walk
            && self.first_full
            && !self.files.values().any(|k| k.judged)
    }

    /// Lifts the files the first evaluation found (`find_lifts`): each
    /// rises to the relevance of the first file below the first cycle's
    /// best five and is placed right below them, in the order found, with
    /// its link first among its reasons (they are all below the best five,
    /// which keep their places); a file the agent judged, or the query now
    /// excludes, stays as it is.
    fn bring_in_lifts(&mut self, filter: &Filter) {
        let Some(super::Lift { files, floor }) = self.lift.take() else {
            return;
        };
        for (n, l) in files.into_iter().enumerate() {
            if !filter.is_match(&l.path) {
                continue;
            }
            let Some(kept) = self.files.get_mut(&l.path) else {
                continue;
            };
            if kept.judged {
                continue;
            }
            kept.relevance = kept.relevance.max(floor);
            kept.lifted = Some(n);
            kept.evidence.insert(0, Evidence::Link(l.link));
        }
    }

    /// Merges the cycle's scores into what the session knows and returns the
    /// candidates that are new or changed, best first (at most `limit`).
    fn merge(
        &mut self,
        scored: &[score::Scored],
        cands: &[Candidate],
        linked: &[String],
    ) -> Vec<File> {
        let discount = if self.cycle > 1 {
            self.weights.later_discount
        } else {
            1.0
        };
        self.candidates.clear();
        let mut out_cands = Vec::new();
        for (place, s) in scored.iter().take(self.per_cycle()).enumerate() {
            let path = cands[s.idx].rel.to_string();
            let mut relevance = (s.relevance * discount * 1000.0).round() / 1000.0;
            if self.cycle > 1 {
                // Any newcomer, a file that closes a gap too, goes after all
                // of the first cycle's answer (or fills its empty slots): a
                // gap's file capped just below cycle 1's 5th file pushed its
                // ranks 6-10 out (libuv-44125af62afa: its gold file, rank 10
                // after cycle 1, left the answer).
                if let Some(cap) = self.tail_cap {
                    relevance = relevance.min(cap);
                }
            }
            let linked_now = linked.contains(&path);
            self.keep_score(&path, (relevance, place), s, linked_now);
            let kept = &self.files[&path];
            // Files returned earlier are not new unless their score changed.
            let changed = self
                .returned
                .get(&path)
                .is_none_or(|&r| (r - kept.relevance).abs() > 0.05);
            if changed {
                self.candidates.push(path.clone());
                out_cands.push(File {
                    path,
                    relevance: kept.relevance,
                    tier: Tier::of(kept.relevance, self.config.high_threshold),
                    reasons: Evidence::texts(&kept.evidence),
                    snippets: Vec::new(),
                });
            }
        }
        // Linked files the scores did not reach are candidates too.
        for path in linked {
            if self.candidates.contains(path) {
                continue;
            }
            let Some(kept) = self.files.get(path) else {
                continue;
            };
            self.candidates.push(path.clone());
            out_cands.push(File {
                path: path.clone(),
                relevance: kept.relevance,
                tier: Tier::of(kept.relevance, self.config.high_threshold),
                reasons: Evidence::texts(&kept.evidence),
                snippets: Vec::new(),
            });
        }
        // Ranked by the relevance shown: a later cycle finds files in its own
        // score order, but a file keeps the best relevance it had (found by fuzzing).
        out_cands.sort_by(|a, b| b.relevance.total_cmp(&a.relevance));
        out_cands.truncate(self.config.limit);
        out_cands
    }

    /// Scored files a cycle keeps: [`CANDIDATES_PER_CYCLE`], or the
    /// answer's `limit` when larger. A link a cycle brings in is placed
    /// after them ([`Kept::place`]).
    fn per_cycle(&self) -> usize {
        CANDIDATES_PER_CYCLE.max(self.config.limit)
    }

    /// Keeps a cycle's score for `path` as the session's relevance when it
    /// may change it (see the comments inside); a file a link brought in this
    /// cycle (`linked_now`) keeps its link's reason and gains the evidence.
    fn keep_score(
        &mut self,
        path: &str,
        (relevance, place): (f64, usize),
        s: &score::Scored,
        linked_now: bool,
    ) {
        let cycle = self.cycle;
        let kept = self.files.entry(path.to_string()).or_default();
        // Later cycles add files; they do not re-rank the ones already known
        // (feedback re-ranking lowered Acc@1, DESIGN.md §4), except files
        // that close a gap.
        let known = kept.relevance > 0.0;
        let floored = self.focus.floors.iter().any(|(p, _, _)| p == path);
        // A linked file brought in this cycle keeps its link's reason
        // first and gains the cycle's evidence for it.
        if !kept.judged && (cycle == 1 || !known || floored) && relevance > kept.relevance {
            let link = kept.evidence.first().filter(|_| linked_now).cloned();
            kept.relevance = relevance;
            kept.place = Some((cycle, place));
            kept.evidence = link.into_iter().chain(s.evidence.iter().cloned()).collect();
            kept.defines = s.defines.clone();
        } else if linked_now && !kept.judged {
            for e in &s.evidence {
                if !kept.evidence.contains(e) {
                    kept.evidence.push(e.clone());
                }
            }
            if kept.defines.is_empty() {
                kept.defines = s.defines.clone();
            }
        }
    }
}
