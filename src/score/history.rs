//! The history pass: files that past commits resembling the task changed
//! gain evidence ([`crate::history::RepoHistory::past_fixes`], BugLocator's
//! similar-report score). Fused conservatively, at rank level: the files of
//! the best [`HISTORY_TOP`] history scores gain a share of the best raw score
//! that falls with their history rank (`Weights::history / (1 + rank)`,
//! times their history score relative to the best and the file's prior for
//! tests, docs and non-source files), so the signal reorders
//! close calls and lifts a file the lexical signal missed without swamping
//! it. Only candidates the walk admitted, with evidence of their own from
//! the passes before, are scored.

use super::stage::{Pass, ScoreContext};
use super::Evidence;
use super::{prior, Scored};
use crate::history::{HistoryCache, HistorySource, RepoHistory};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Files, best history score first, that gain evidence.
pub const HISTORY_TOP: usize = 10;

/// The history pass of one call: the history `source` names for `root`,
/// read from `cache` the first time the pass runs (after the passes that
/// parse, so a call that must stop early stops before any `git` runs),
/// within the call's deadline and cancellation.
pub struct History {
    cache: Arc<HistoryCache>,
    source: HistorySource,
    root: PathBuf,
    loaded: OnceLock<Option<Arc<RepoHistory>>>,
}

impl History {
    /// The pass for a call on `root` (canonical), reading `source` through `cache`.
    pub fn new(cache: Arc<HistoryCache>, source: HistorySource, root: PathBuf) -> History {
        History {
            cache,
            source,
            root,
            loaded: OnceLock::new(),
        }
    }
}

impl Pass for History {
    fn name(&self) -> &str {
        "history"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        let w = ctx.weights.history;
        if w <= 0.0 || (ctx.stop)() {
            return;
        }
        let loaded = self
            .loaded
            .get_or_init(|| self.cache.get(&self.source, &self.root, ctx.stop));
        let Some(history) = loaded.as_ref().filter(|h| !h.is_empty()) else {
            return;
        };
        let allowed: HashMap<&str, usize> = ctx
            .cands
            .iter()
            .enumerate()
            .filter(|(_, c)| c.allowed)
            .map(|(i, c)| (c.rel, i))
            .collect();
        let fixes = history.past_fixes(ctx.query, |p| allowed.contains_key(p));
        let Some(top) = fixes.first().map(|f| f.score).filter(|s| *s > 0.0) else {
            return;
        };
        let best = scored.iter().map(|s| s.raw).fold(0.0, f64::max).max(1.0);
        let at: HashMap<usize, usize> = scored
            .iter()
            .enumerate()
            .filter(|(_, s)| s.raw > 0.0)
            .map(|(i, s)| (s.idx, i))
            .collect();
        // Only files with evidence of their own: a commit that added a whole
        // tree ("initial layout") would otherwise lift files the task says
        // nothing about.
        let fixes = fixes
            .iter()
            .filter(|f| at.contains_key(&allowed[f.path.as_str()]));
        for (rank, f) in fixes.take(HISTORY_TOP).enumerate() {
            let idx = allowed[f.path.as_str()];
            // Tests, docs and other non-source files are discounted here as
            // in their lexical score: fixes land in source files.
            let share = w * (f.score / top) / (1.0 + rank as f64)
                * prior(&ctx.cands[idx], ctx.weights, ctx.query).0;
            if share < 1e-3 {
                continue;
            }
            let pos = at[&idx];
            scored[pos].raw += share * best;
            scored[pos].evidence.push(Evidence::History {
                commits: f.commits,
                closest: f.best.clone(),
                share,
            });
        }
        scored.sort_by(|a, b| b.raw.total_cmp(&a.raw));
    }
}
