//! A session is the state of one loop: task, query history, evaluations, gaps
//! and trace. `dispatch`, `evaluate` and `refine` are its three steps; the
//! `retrieve` tool runs them in a loop on a session of its own.
//!
//! Later cycles add what is missing rather than re-rank: a file's relevance is
//! the best it had in any cycle, and scores from cycles after the first (which
//! search with pseudo-relevance feedback) are discounted, because re-ranking
//! the whole list from feedback lowered Acc@1 by up to 2.6 points on the
//! development set (DESIGN.md §4).

use crate::corpus::{Doc, Skip};
use crate::engine::{root_info, Engine, Limits, LoopConfig};
use crate::error::{Error, Result};
use crate::gaps::{self, InContext};
use crate::output;
use crate::query::TaskQuery;
use crate::score::{self, Candidate, Focus, Weights};
use crate::tools::evaluate::Judgment;
use crate::types::*;
use crate::walk::{walk_with, Filter};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The loop has converged when the mean relevance of the best `min_high` files
/// rises by less than this over the previous cycle (the seeds' 0.02).
const CONVERGED_DELTA: f64 = 0.02;
/// Candidates a dispatch evaluates (the best ones by server score).
const CANDIDATES_PER_CYCLE: usize = 30;
/// Files at the top of the first cycle's ranking that later cycles never
/// push down (Acc@5: what an agent reads first).
const FIRST_ANSWER: usize = 5;
/// Share of the best raw score given to files next to a high file.
const DIR_FOCUS_BOOST: f64 = 0.05;

/// What the session knows about one file.
#[derive(Debug, Clone, Default)]
struct Kept {
    relevance: f64,
    reasons: Vec<String>,
    defines: Vec<String>,
    /// Set when the agent judged this file: its value wins.
    judged: bool,
}

pub struct Session {
    pub id: String,
    /// Scoring constants (the defaults unless a benchmark sets others).
    pub weights: Weights,
    pub config: LoopConfig,
    root: Root,
    query: Query,
    /// Gap symbols added by `refine` (weighed as feedback, not as agent keywords).
    feedback: Vec<String>,
    focus: Focus,
    cycle: usize,
    files: BTreeMap<String, Kept>,
    returned: HashMap<String, f64>,
    candidates: Vec<String>,
    evaluated: bool,
    gaps: Vec<Gap>,
    agent_gaps: Vec<Gap>,
    trace: Vec<Cycle>,
    history: Vec<f64>,
    /// Highest relevance a gap-closing file first found after cycle 1 may get.
    later_cap: Option<f64>,
    /// Highest relevance any other file first found after cycle 1 may get.
    tail_cap: Option<f64>,
    stats: Stats,
    done: Option<StopReason>,
    corpus: BTreeMap<String, Arc<Doc>>,
    /// Snippets of the files in context at the last evaluation.
    snippets: HashMap<String, Vec<Snippet>>,
    task_query: TaskQuery,
    /// When this session's current call must stop (deadline, cancellation).
    pub limits: Limits,
    truncated: Option<Truncated>,
    /// Set by `retrieve`: reuse the first cycle's walk and reads in later cycles.
    pub reuse_walk: bool,
    /// The first cycle's walked and read files, when `reuse_walk` is set.
    snapshot: Option<Arc<Vec<crate::corpus::Loaded>>>,
    /// Symbolic links the last walk did not follow (outside the root, dangling).
    links_not_followed: usize,
}

impl Session {
    pub fn new(id: String, config: LoopConfig) -> Session {
        let query = Query {
            patterns: config.patterns.clone(),
            keywords: config.keywords.clone(),
            excludes: config.excludes.clone(),
            focus_areas: Vec::new(),
        };
        Session {
            id,
            weights: Weights::default(),
            root: root_info(&config.root),
            task_query: TaskQuery::new(&config.task, &config.keywords),
            config,
            query,
            feedback: Vec::new(),
            focus: Focus::default(),
            cycle: 0,
            files: BTreeMap::new(),
            returned: HashMap::new(),
            candidates: Vec::new(),
            evaluated: false,
            gaps: Vec::new(),
            agent_gaps: Vec::new(),
            trace: Vec::new(),
            history: Vec::new(),
            later_cap: None,
            tail_cap: None,
            stats: Stats::default(),
            done: None,
            corpus: BTreeMap::new(),
            snippets: HashMap::new(),
            limits: Limits::default(),
            truncated: None,
            reuse_walk: false,
            snapshot: None,
            links_not_followed: 0,
        }
    }

    /// Ends the loop early because the call's deadline passed or it was
    /// cancelled; the answer keeps what the finished steps found.
    pub fn stop_early(&mut self, reason: StopReason) {
        self.done = Some(reason);
        if self.truncated.is_none() {
            self.truncated = Some(self.limits.truncated(
                reason,
                format!("after cycle {} of {}", self.cycle, self.config.max_cycles),
            ));
        }
    }

    /// Records what a call cut short left out: appended to its `truncated`
    /// note, or a new note at `place` when there is none yet.
    fn note_skipped(&mut self, reason: StopReason, place: &str, note: &str) {
        match &mut self.truncated {
            Some(t) => t.detail = format!("{}; {note}", t.detail),
            None => {
                self.truncated = Some(self.limits.truncated(reason, format!("{place}; {note}")));
            }
        }
    }

    pub fn is_done(&self) -> bool {
        self.done.is_some()
    }

    pub fn is_evaluated(&self) -> bool {
        self.evaluated
    }

    /// DISPATCH: walk the tree as it is now, score it with the current query,
    /// and keep the best candidates not already returned.
    pub fn dispatch(
        &mut self,
        engine: &Engine,
        patterns: &[String],
        keywords: &[String],
        excludes: &[String],
    ) -> Result<DispatchOutput> {
        extend(&mut self.query.patterns, patterns);
        extend(&mut self.query.keywords, keywords);
        extend(&mut self.query.excludes, excludes);
        let filter = Filter::new(&self.query.patterns, &self.query.excludes)?;
        self.cycle += 1;
        self.evaluated = false;
        self.done = None;
        self.truncated = None;
        let agent: Vec<String> = self
            .query
            .keywords
            .iter()
            .filter(|k| !self.feedback.contains(k))
            .cloned()
            .collect();
        self.task_query = TaskQuery::with_feedback(&self.config.task, &agent, &self.feedback);

        let t0 = Instant::now();
        let limits = self.limits.clone();
        let stop = || limits.hit().is_some();
        // Within one `retrieve` call the tree is walked and read once: later
        // cycles see the same snapshot (walk 0.3 s and cache lookups 0.12 s a
        // cycle saved on the Linux kernel). Step-wise sessions walk again, as
        // each call reads the tree as it is.
        let (loaded, walk_stopped, t_walk) = match self.snapshot.take() {
            Some(loaded) if self.reuse_walk => {
                self.snapshot = Some(loaded.clone());
                (loaded, None, t0.elapsed())
            }
            _ => {
                let (entries, refused) = walk_with(&self.config.root, engine.walk_options(), &stop);
                self.links_not_followed = refused;
                let walk_stopped = limits.hit();
                let t_walk = t0.elapsed();
                let wanted: Vec<(u64, &str)> = self
                    .task_query
                    .terms
                    .iter()
                    .map(|t| (t.hash, t.text.as_str()))
                    .collect();
                let loaded = Arc::new(engine.corpus.load(entries, &wanted, &stop));
                if self.reuse_walk && limits.hit().is_none() {
                    self.snapshot = Some(loaded.clone());
                }
                (loaded, walk_stopped, t_walk)
            }
        };
        let t_load = t0.elapsed();
        let mut stats = Stats {
            files_walked: loaded.len(),
            ..Stats::default()
        };
        stats.skipped.links_not_followed = self.links_not_followed;
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
                    stats.files_walked - stats.skipped.not_read,
                    stats.files_walked
                )
            };
            self.truncated =
                Some(limits.truncated(reason, format!("in cycle {} while {place}", self.cycle)));
        }
        stats.files_scored = docs.iter().filter(|d| d.2).count();
        let cands: Vec<Candidate> = docs
            .iter()
            .map(|(rel, doc, allowed)| Candidate {
                rel,
                doc,
                allowed: *allowed,
            })
            .collect();
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
        let hurry = hurry.is_some();
        let scored = score::score(&cands, &self.task_query, &self.focus, &self.weights, hurry);
        tracing::debug!(
            cycle = self.cycle,
            walk_ms = t_walk.as_millis() as u64,
            load_ms = (t_load - t_walk).as_millis() as u64,
            score_ms = (t0.elapsed() - t_load).as_millis() as u64,
            files = cands.len(),
            "dispatch"
        );

        let discount = if self.cycle > 1 {
            self.weights.later_discount
        } else {
            1.0
        };
        self.candidates.clear();
        let mut out_cands = Vec::new();
        for s in scored
            .iter()
            .take(CANDIDATES_PER_CYCLE.max(self.config.limit))
        {
            let path = cands[s.idx].rel.to_string();
            let mut relevance = (s.relevance * discount * 1000.0).round() / 1000.0;
            if self.cycle > 1 {
                // A file that closes a gap may join right after the first cycle's
                // best files; any other newcomer goes after all of its answer.
                let closes_gap = self.focus.floors.iter().any(|(p, _, _)| *p == path);
                let cap = if closes_gap {
                    self.later_cap
                } else {
                    self.tail_cap
                };
                if let Some(cap) = cap {
                    relevance = relevance.min(cap);
                }
            }
            let kept = self.files.entry(path.clone()).or_default();
            // Later cycles add files; they do not re-rank the ones already known
            // (feedback re-ranking lowered Acc@1, DESIGN.md §4), except files
            // that close a gap.
            let known = kept.relevance > 0.0;
            let floored = self.focus.floors.iter().any(|(p, _, _)| *p == path);
            if !kept.judged && (self.cycle == 1 || !known || floored) && relevance > kept.relevance
            {
                kept.relevance = relevance;
                kept.reasons = s.reasons.clone();
                kept.defines = s.defines.clone();
            }
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
                    reasons: kept.reasons.clone(),
                    snippets: Vec::new(),
                });
            }
        }
        // Ranked by the relevance shown: a later cycle finds files in its own
        // score order, but a file keeps the best relevance it had (found by fuzzing).
        out_cands.sort_by(|a, b| b.relevance.total_cmp(&a.relevance));
        out_cands.truncate(self.config.limit);
        self.corpus = docs.into_iter().map(|(p, d, _)| (p, d)).collect();
        self.stats = stats.clone();
        Ok(DispatchOutput {
            session_id: self.id.clone(),
            cycle: self.cycle,
            query: self.query.clone(),
            candidates: out_cands,
            stats,
            truncated: self.truncated.clone(),
        })
    }

    /// EVALUATE: apply the agent's judgments, find the gaps, decide.
    pub fn evaluate(&mut self, judgments: &[Judgment]) -> Result<EvaluateOutput> {
        if self.cycle == 0 {
            return Err(Error::NothingToEvaluate {
                id: self.id.clone(),
                action: "evaluate",
            });
        }
        for j in judgments {
            if !(0.0..=1.0).contains(&j.relevance) {
                return Err(Error::InvalidJudgment {
                    path: j.path.clone(),
                    reason: format!("relevance {} is not in [0, 1]", j.relevance),
                });
            }
            let path = j
                .path
                .replace('\\', "/")
                .trim_start_matches("./")
                .to_string();
            if !self.corpus.contains_key(&path) {
                return Err(Error::InvalidJudgment {
                    path: j.path.clone(),
                    reason: "no such file under the session's root; use a path exactly as dispatch returned it".into(),
                });
            }
            let kept = self.files.entry(path.clone()).or_default();
            kept.relevance = j.relevance;
            kept.judged = true;
            kept.reasons
                .push(format!("agent judged {:.2}", j.relevance));
            if !self.candidates.contains(&path) {
                self.candidates.push(path.clone());
            }
            if let Some(m) = j.missing_context.as_ref().filter(|m| !m.trim().is_empty()) {
                self.agent_gaps.push(Gap {
                    kind: "agent_reported".into(),
                    description: m.clone(),
                    symbol: None,
                    referenced_from: Some(path.clone()),
                    suggested_paths: Vec::new(),
                    critical: true,
                });
            }
        }
        let ranked = self.ranked();
        let threshold = self.config.high_threshold;
        let high_count = ranked
            .iter()
            .filter(|(_, k)| k.relevance >= threshold)
            .count();

        // Gaps from the files in context: the best `limit`, the files an answer returns.
        let context_paths: Vec<(String, bool)> = ranked
            .iter()
            .take(self.config.limit)
            .map(|(p, k)| (p.clone(), k.relevance >= threshold))
            .collect();
        let t0 = Instant::now();
        // On all cores: each file is parsed to choose its snippets.
        let snippets: Vec<Vec<Snippet>> = context_paths
            .par_iter()
            .map(|(p, _)| {
                let k = &self.files[p];
                output::snippets(&self.corpus[p], &self.task_query, &k.defines)
            })
            .collect();
        let context: Vec<InContext> = context_paths
            .iter()
            .zip(&snippets)
            .map(|((p, high), sn)| InContext {
                path: p,
                doc: &self.corpus[p],
                snippets: sn,
                is_high: *high,
            })
            .collect();
        let t_snippets = t0.elapsed();
        // Past the deadline no gaps are looked for (it scans and parses), and
        // the loop stops here, saying so.
        let gaps_skipped = self.limits.hit();
        let mut gaps = if gaps_skipped.is_some() {
            Vec::new()
        } else {
            gaps::find(&context, &self.corpus, &self.task_query)
        };
        drop(context);
        tracing::debug!(
            cycle = self.cycle,
            snippets_ms = t_snippets.as_millis() as u64,
            gaps_ms = (t0.elapsed() - t_snippets).as_millis() as u64,
            "evaluate"
        );
        // Agent-reported gaps stay open until the agent's next judgments.
        gaps.append(&mut self.agent_gaps);
        self.gaps = gaps;

        let top_mean = {
            let n = self.config.min_high.max(1);
            ranked.iter().take(n).map(|(_, k)| k.relevance).sum::<f64>() / n as f64
        };
        let critical = self.gaps.iter().any(|g| g.critical);
        let context_tokens: usize = snippets
            .iter()
            .flatten()
            .map(|s| output::tokens_of(&s.text))
            .sum();
        // Kept for `result()`: the answer of the last cycle shows the same files.
        self.snippets = context_paths
            .into_iter()
            .map(|(p, _)| p)
            .zip(snippets)
            .collect();
        let (stop, why) = if ranked.is_empty() {
            (
                Some(StopReason::NoCandidates),
                "nothing matched the query".to_string(),
            )
        } else if let Some(reason) = gaps_skipped {
            let place = format!("in cycle {} before the gap search", self.cycle);
            self.note_skipped(reason, &place, "no gaps were looked for");
            (
                Some(reason),
                format!("the call stopped early ({})", reason.as_str()),
            )
        } else if high_count >= self.config.min_high && !critical {
            (
                Some(StopReason::Sufficient),
                format!("{high_count} high files and no critical gap"),
            )
        } else if self.cycle >= self.config.max_cycles {
            (
                Some(StopReason::MaxCycles),
                format!("{} cycles ran", self.cycle),
            )
        } else if self
            .history
            .last()
            .is_some_and(|&prev| top_mean - prev < CONVERGED_DELTA)
        {
            (
                Some(StopReason::Converged),
                format!("best scores rose by less than {CONVERGED_DELTA}"),
            )
        } else if context_tokens > self.config.budget_tokens && !critical {
            (
                Some(StopReason::Budget),
                format!("context already fills {} tokens", self.config.budget_tokens),
            )
        } else {
            (
                None,
                format!(
                    "{high_count} high files (need {}), {} critical gaps",
                    self.config.min_high,
                    self.gaps.iter().filter(|g| g.critical).count()
                ),
            )
        };
        self.history.push(top_mean);
        if self.cycle == 1 {
            // Later cycles may add files, but not above the first cycle's best
            // `max(min_high, 5)` files: the first answer's top stays as it was.
            // Inserting gap-closing files after the best 3 cost Acc@5 on the
            // development set (sympy-18211: 79.7 after cycle 1, 79.1 after 3).
            // Whatever their tier: a low-tier file at rank 5 was the gold file
            // in that task.
            self.later_cap = ranked
                .iter()
                .take(self.config.min_high.max(FIRST_ANSWER))
                .map(|(_, k)| k.relevance)
                .next_back()
                .map(|r| (r - 0.001).max(0.0));
            self.tail_cap = ranked
                .iter()
                .take(self.config.limit)
                .map(|(_, k)| k.relevance)
                .next_back()
                .map(|r| (r - 0.001).max(0.0));
        }
        self.done = stop;
        self.evaluated = true;
        let decision = format!(
            "{}: {why}",
            if stop.is_some() { "finalize" } else { "refine" }
        );
        let evaluations: Vec<File> = self
            .candidates
            .iter()
            .filter_map(|p| self.files.get(p).map(|k| (p, k)))
            .map(|(p, k)| File {
                path: p.clone(),
                relevance: k.relevance,
                tier: Tier::of(k.relevance, threshold),
                reasons: k.reasons.clone(),
                snippets: Vec::new(),
            })
            .collect();
        for f in &evaluations {
            self.returned.insert(f.path.clone(), f.relevance);
        }
        self.trace.push(Cycle {
            cycle: self.cycle,
            query: self.query.clone(),
            top: ranked
                .iter()
                .take(5)
                .map(|(p, k)| Scored {
                    path: p.clone(),
                    relevance: k.relevance,
                })
                .collect(),
            gaps: self.gaps.clone(),
            decision: decision.clone(),
        });
        Ok(EvaluateOutput {
            session_id: self.id.clone(),
            cycle: self.cycle,
            evaluations,
            gaps: self.gaps.clone(),
            high_count,
            decision: decision.split(':').next().unwrap_or("refine").to_string(),
        })
    }

    /// REFINE: target the gaps, focus on the high files' neighbourhood, exclude
    /// confidently low candidates, plus what the agent adds.
    pub fn refine(
        &mut self,
        keywords: &[String],
        patterns: &[String],
        excludes: &[String],
    ) -> RefineOutput {
        let mut added = Added::default();
        let mut excluded = Vec::new();
        let threshold = self.config.high_threshold;
        for g in &self.gaps {
            let strategy = match g.kind.as_str() {
                "undefined_symbol" => "dependency",
                "missing_parent" => "parent",
                "config_file" => "config",
                _ => continue,
            };
            let Some(sym) = &g.symbol else { continue };
            let from = g.referenced_from.as_deref().unwrap_or("a high file");
            if strategy != "config" && !self.query.keywords.contains(sym) {
                self.query.keywords.push(sym.clone());
                self.feedback.push(sym.clone());
                added
                    .keywords
                    .push(format!("{sym}: {strategy} of a high file ({from})"));
            }
            for p in &g.suggested_paths {
                if !self.query.focus_areas.contains(p) {
                    self.query.focus_areas.push(p.clone());
                    let why = match strategy {
                        "dependency" => format!("defines `{sym}`, used at {from}"),
                        "parent" => {
                            format!("defines `{sym}`, the parent of a definition at {from}")
                        }
                        _ => format!("configuration file named at {from}"),
                    };
                    self.focus
                        .floors
                        .push((p.clone(), self.weights.gap_floor, why.clone()));
                    added.focus_areas.push(format!("{p}: {strategy} — {why}"));
                }
            }
        }
        let highs: Vec<String> = self
            .ranked()
            .into_iter()
            .filter(|(_, k)| k.relevance >= threshold)
            .map(|(p, _)| p)
            .collect();
        for h in &highs {
            if let Some((dir, _)) = h.rsplit_once('/') {
                let dir = format!("{dir}/");
                if !self.query.focus_areas.contains(&dir) {
                    self.query.focus_areas.push(dir.clone());
                    self.focus.boosts.push((
                        dir.clone(),
                        DIR_FOCUS_BOOST,
                        format!("next to high file {h}"),
                    ));
                    added
                        .focus_areas
                        .push(format!("{dir}: neighbourhood — directory of high file {h}"));
                }
            }
        }
        for p in &self.candidates {
            let Some(k) = self.files.get(p) else { continue };
            let wanted = self.query.focus_areas.contains(p);
            if k.relevance < 0.3
                && !wanted
                && excluded.len() < 10
                && !self.query.excludes.contains(p)
            {
                excluded.push(format!("{p}: relevance {:.2}", k.relevance));
                self.query.excludes.push(p.clone());
            }
        }
        for k in keywords {
            if !k.trim().is_empty() && !self.query.keywords.contains(k) {
                self.query.keywords.push(k.clone());
                added.keywords.push(format!("{k}: from the agent"));
            }
        }
        extend(&mut self.query.patterns, patterns);
        for e in excludes {
            if !self.query.excludes.contains(e) {
                self.query.excludes.push(e.clone());
                excluded.push(format!("{e}: from the agent"));
            }
        }
        RefineOutput {
            session_id: self.id.clone(),
            cycle: self.cycle + 1,
            query: self.query.clone(),
            added,
            excluded,
            done: self.done.is_some(),
            stop_reason: self.done,
            files: self
                .ranked()
                .into_iter()
                .take(self.config.limit)
                .map(|(p, k)| Scored {
                    path: p,
                    relevance: k.relevance,
                })
                .collect(),
        }
    }

    /// Files known to the session, best first.
    fn ranked(&self) -> Vec<(String, Kept)> {
        let mut v: Vec<(String, Kept)> = self
            .files
            .iter()
            .filter(|(_, k)| k.relevance > 0.0)
            .map(|(p, k)| (p.clone(), k.clone()))
            .collect();
        v.sort_by(|a, b| b.1.relevance.total_cmp(&a.1.relevance).then(a.0.cmp(&b.0)));
        v
    }

    /// The loop's answer: the best `limit` files with snippets packed into the budget.
    pub fn result(&self) -> RetrieveOutput {
        let threshold = self.config.high_threshold;
        let mut files: Vec<File> = self
            .ranked()
            .into_iter()
            .take(self.config.limit)
            .map(|(p, k)| {
                let snippets = match self.snippets.get(&p) {
                    Some(sn) => sn.clone(),
                    None => self
                        .corpus
                        .get(&p)
                        .map(|d| output::snippets(d, &self.task_query, &k.defines))
                        .unwrap_or_default(),
                };
                File {
                    tier: Tier::of(k.relevance, threshold),
                    relevance: k.relevance,
                    reasons: k.reasons,
                    snippets,
                    path: p,
                }
            })
            .collect();
        let (tokens, dropped) = output::pack(&mut files, self.config.budget_tokens);
        RetrieveOutput {
            files,
            gaps: self.gaps.clone(),
            stop_reason: self.done.unwrap_or(StopReason::MaxCycles),
            cycles: self.trace.clone(),
            root: self.root.clone(),
            stats: self.stats.clone(),
            dropped,
            tokens,
            truncated: self.truncated.clone(),
        }
    }
}

fn extend(v: &mut Vec<String>, add: &[String]) {
    for a in add {
        if !a.trim().is_empty() && !v.contains(a) {
            v.push(a.clone());
        }
    }
}

/// At most this many sessions are kept; the least recently used goes first.
pub const MAX_SESSIONS: usize = 64;
/// A session unused for this long expires.
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 60);

/// The session store: bounded in number and age.
#[derive(Default)]
pub struct Sessions {
    inner: Mutex<SessionMap>,
}

#[derive(Default)]
struct SessionMap {
    map: HashMap<String, (Instant, Arc<Mutex<Session>>)>,
    next: u64,
}

impl Sessions {
    pub fn create(&self, config: LoopConfig) -> Arc<Mutex<Session>> {
        let mut inner = self.inner.lock().expect("sessions poisoned");
        inner.map.retain(|_, (t, _)| t.elapsed() < SESSION_TTL);
        while inner.map.len() >= MAX_SESSIONS {
            let oldest = inner
                .map
                .iter()
                .min_by_key(|(_, (t, _))| *t)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => inner.map.remove(&k),
                None => break,
            };
        }
        inner.next += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let id = format!("s{}-{:08x}", inner.next, nanos ^ (std::process::id() << 8));
        let s = Arc::new(Mutex::new(Session::new(id.clone(), config)));
        inner.map.insert(id, (Instant::now(), s.clone()));
        s
    }

    pub fn get(&self, id: &str) -> Result<Arc<Mutex<Session>>> {
        let mut inner = self.inner.lock().expect("sessions poisoned");
        inner.map.retain(|_, (t, _)| t.elapsed() < SESSION_TTL);
        match inner.map.get_mut(id) {
            Some((t, s)) => {
                *t = Instant::now();
                Ok(s.clone())
            }
            None => Err(Error::UnknownSession {
                id: id.to_string(),
                ttl_minutes: SESSION_TTL.as_secs() / 60,
                max: MAX_SESSIONS,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    fn config(engine: &Engine) -> LoopConfig {
        let root = env!("CARGO_MANIFEST_DIR").to_string() + "/tests/fixtures/authsvc";
        engine
            .config(&crate::tools::retrieve::RetrieveParams {
                task: "token expiry".into(),
                root: Some(root),
                ..Default::default()
            })
            .unwrap()
    }

    #[test]
    fn the_store_keeps_at_most_max_sessions_dropping_the_oldest() {
        let engine = Engine::new(EngineOptions::default());
        let store = Sessions::default();
        let first = store.create(config(&engine)).lock().unwrap().id.clone();
        for _ in 0..MAX_SESSIONS {
            store.create(config(&engine));
        }
        let err = store.get(&first).err().expect("the oldest session is gone");
        assert!(err.to_string().contains("dispatch"), "{err}");
    }

    #[test]
    fn later_cycles_never_lower_a_files_relevance() {
        let engine = Engine::new(EngineOptions::default());
        let mut s = Session::new("t".into(), config(&engine));
        s.dispatch(&engine, &[], &[], &[]).unwrap();
        s.evaluate(&[]).unwrap();
        let first: Vec<(String, f64)> = s
            .ranked()
            .into_iter()
            .map(|(p, k)| (p, k.relevance))
            .collect();
        s.refine(&["session".into()], &[], &[]);
        s.dispatch(&engine, &[], &[], &[]).unwrap();
        s.evaluate(&[]).unwrap();
        for (p, r) in first {
            assert!(s.files[&p].relevance >= r, "{p} fell below {r}");
        }
        assert_eq!(s.trace.len(), 2);
    }

    #[test]
    fn a_deadline_passed_before_the_gap_search_stops_the_loop_and_says_so() {
        let engine = Engine::new(EngineOptions::default());
        let mut s = Session::new("t".into(), config(&engine));
        s.dispatch(&engine, &[], &[], &[]).unwrap();
        // The deadline passes between dispatch and evaluate.
        s.limits = crate::engine::Limits::new(Some(0), None);
        let e = s.evaluate(&[]).unwrap();
        assert_eq!(s.done, Some(StopReason::Deadline));
        assert!(e.gaps.is_empty());
        assert!(e.decision.starts_with("finalize"), "{}", e.decision);
        let detail = &s.truncated.as_ref().expect("a truncated note").detail;
        assert!(detail.contains("no gaps were looked for"), "{detail}");
    }
}
