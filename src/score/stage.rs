//! The scoring stages as traits, so a library user can add a signal or
//! replace a stage without forking: a [`Scorer`] runs its [`Pass`]es in order
//! over one [`ScoreContext`], then its [`Rerank`] stage, then writes the
//! reasons. [`Scorer::default`] is today's ranking: lexical (BM25 + paths),
//! definitions, passages, priors, neighbours, explicit references, then
//! calibration.
//! The numbers the passes use stay data, in [`Weights`].

use super::bm25::{Bm25Stats, Lexical};
use super::calibrate::Calibrate;
use super::definitions::Definitions;
use super::explicit::Explicit;
use super::neighbours::Neighbours;
use super::passage::Passages;
use super::priors::Priors;
use super::{explain, Candidate, Evidence, Focus, Scored, Weights};
use crate::lang::Symbols;
use crate::query::TaskQuery;
use std::collections::HashMap;
use std::sync::Arc;

/// What every pass of one scoring call reads (and the passes that parse
/// write): the candidates, the query, the cycle's focus, the weights, BM25's
/// statistics, and the syntax trees parsed so far.
pub struct ScoreContext<'a> {
    /// The files to score (all walked files; only `allowed` ones may rank).
    pub cands: &'a [Candidate<'a>],
    /// The cycle's query.
    pub query: &'a TaskQuery,
    /// The cycle's extra per-path evidence.
    pub focus: &'a Focus,
    /// The scoring constants.
    pub weights: &'a Weights,
    /// BM25's collection statistics and the term-count matrix.
    pub stats: Bm25Stats,
    /// Symbols of the candidates parsed so far, by candidate index.
    pub parsed: HashMap<usize, Arc<Symbols>>,
    /// Set when the call's deadline has passed: passes that parse skip.
    pub hurry: bool,
    /// The call's deadline or cancellation: true once the call must stop.
    pub stop: &'a (dyn Fn() -> bool + Sync),
}

impl ScoreContext<'_> {
    /// Whether expensive passes (parsing) must be skipped: the call is in a
    /// hurry or must stop now. Once true it stays true.
    pub fn must_hurry(&mut self) -> bool {
        self.hurry = self.hurry || (self.stop)();
        self.hurry
    }
}

/// One scoring pass: adds evidence to the scored files (raising or lowering
/// `raw`, pushing [`Evidence`]), or adds files. `scored` is best raw score first
/// when a pass starts, except after a pass that only appends.
pub trait Pass: Send + Sync {
    /// A short name, for logs and `Debug`.
    fn name(&self) -> &str;
    /// Runs the pass.
    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>);
}

/// A per-file scoring signal, the simple way to add evidence: called for
/// every allowed candidate, it returns a share of the best raw score to add
/// (0 for no evidence; negative to demote). A file with no other evidence
/// enters the ranking when its share is positive. Register one with
/// [`Scorer::with_signal`] (or `Pipeline::with_signal`).
pub trait Signal: Send + Sync {
    /// A short name; a file the signal moves shows the reason
    /// `NAME (+0.50 of the best score)`.
    fn name(&self) -> &str;
    /// The share of the best raw score to add to this file (about 0-1;
    /// the task naming a file adds 0.6).
    fn score(&self, cand: &Candidate, query: &TaskQuery) -> f64;
}

/// Runs a [`Signal`] as a [`Pass`].
struct SignalPass(Arc<dyn Signal>);

impl Pass for SignalPass {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        let best = scored.iter().map(|s| s.raw).fold(0.0, f64::max).max(1.0);
        let mut at: HashMap<usize, usize> =
            scored.iter().enumerate().map(|(i, s)| (s.idx, i)).collect();
        for (idx, c) in ctx.cands.iter().enumerate().filter(|(_, c)| c.allowed) {
            let share = self.0.score(c, ctx.query);
            if share == 0.0 || !share.is_finite() || (share < 0.0 && !at.contains_key(&idx)) {
                continue;
            }
            let pos = *at.entry(idx).or_insert_with(|| {
                scored.push(Scored::new(idx));
                scored.len() - 1
            });
            scored[pos].raw += share * best;
            scored[pos].evidence.push(Evidence::Signal {
                name: self.0.name().to_string(),
                share,
            });
        }
    }
}

/// The stage after the passes: orders the files and gives each a relevance
/// in [0, 1] (the default, [`Calibrate`], also sets the tiers' meaning).
pub trait Rerank: Send + Sync {
    /// A short name, for logs and `Debug`.
    fn name(&self) -> &str;
    /// Orders `scored` best first and sets each `relevance`.
    fn rerank(&self, ctx: &ScoreContext, scored: &mut Vec<Scored>);
}

/// The scoring pipeline: passes in order, then the re-ranking stage.
#[derive(Clone)]
pub struct Scorer {
    /// The passes, run in order (the default: lexical, definitions,
    /// passages, priors, neighbours, explicit).
    pub passes: Vec<Arc<dyn Pass>>,
    /// Orders the files and calibrates their relevance.
    pub rerank: Arc<dyn Rerank>,
}

impl Default for Scorer {
    fn default() -> Self {
        Scorer {
            passes: vec![
                Arc::new(Lexical),
                Arc::new(Definitions),
                Arc::new(Passages),
                Arc::new(Priors),
                Arc::new(Neighbours),
                Arc::new(Explicit),
            ],
            rerank: Arc::new(Calibrate),
        }
    }
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer")
            .field(
                "passes",
                &self.passes.iter().map(|p| p.name()).collect::<Vec<_>>(),
            )
            .field("rerank", &self.rerank.name())
            .finish()
    }
}

impl Scorer {
    /// Adds a signal after the passes so far (it sees their scores: its
    /// share is of the best raw score at that point).
    pub fn with_signal(mut self, signal: impl Signal + 'static) -> Self {
        self.passes.push(Arc::new(SignalPass(Arc::new(signal))));
        self
    }

    /// Adds a pass after the passes so far.
    pub fn with_pass(mut self, pass: impl Pass + 'static) -> Self {
        self.passes.push(Arc::new(pass));
        self
    }

    /// Scores the candidates: see [`super::score`].
    pub fn score(
        &self,
        cands: &[Candidate],
        q: &TaskQuery,
        focus: &Focus,
        w: &Weights,
        hurry: bool,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Vec<Scored> {
        let mut ctx = ScoreContext {
            stats: Bm25Stats::new(cands, q, w),
            cands,
            query: q,
            focus,
            weights: w,
            parsed: HashMap::new(),
            hurry,
            stop,
        };
        let mut scored = Vec::new();
        for pass in &self.passes {
            let t = std::time::Instant::now();
            pass.run(&mut ctx, &mut scored);
            tracing::debug!(
                pass = pass.name(),
                parsed = ctx.parsed.len(),
                ms = t.elapsed().as_millis() as u64,
                "score pass"
            );
        }
        self.rerank.rerank(&ctx, &mut scored);
        explain(&ctx, &mut scored);
        scored
    }
}
