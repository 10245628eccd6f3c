//! Calibration: the final order and a relevance in [0, 1] with meaningful tiers.

use super::stage::{Rerank, ScoreContext};
use super::{Scored, Weights};
use crate::query::TaskQuery;

/// Orders the files and maps their evidence to a relevance in [0, 1].
///
/// Order: with `r` the share of the best raw score and `c` the IDF-weighted
/// share of the query's terms the file contains, files are ranked by
/// `0.4 r + 0.45 c sqrt(r) + 0.15 strong sqrt(r)` (`strong`: defines a task
/// identifier or is named by the task). Measured on dev-python: ranking by raw
/// score alone gave Acc@1 52.9, this order 57.5 (same weights, same trees).
///
/// Tiers, so that they mean what they say (relevance never rises down the order):
/// - high (>= 0.7): the file defines a task identifier or is named by the task,
///   or it is lexically close to the best file (>= 75% of its BM25) while
///   covering >= 75% of the query's IDF-weighted terms;
/// - medium (0.5-0.7): lexically related (>= 50% of the best BM25) or linked by
///   a graph edge to a top file;
/// - low: the rest.
///
/// The two lexical rules also need a BM25 of at least `min_bm25`: a share of
/// the best file's score is no evidence when the best has none.
///
/// Only matching files enter, so an unrelated file added to the tree never
/// ranks; and since BM25's statistics come from matching files only
/// (`idf_scope`), it moves no score or tier either. (With statistics over the
/// whole walk it shifted every score a little, and the cap below turned that
/// into tier jumps. Ranking by tier first also removes those jumps but cost
/// Acc@1, 55.6 vs 56.2 on dev-python, so `tier_first` is off.)
pub(super) fn calibrate(
    scored: &mut Vec<Scored>,
    q: &TaskQuery,
    idf: &[f64],
    tf: &[Vec<u32>],
    w: &Weights,
) {
    let tier_first = w.tier_first > 0.0;
    let best = scored.iter().map(|s| s.raw).fold(0.0, f64::max);
    let best_lex = scored.iter().map(|s| s.lexical).fold(0.0, f64::max);
    if best <= 0.0 {
        return;
    }
    let mass: Vec<f64> = q.terms.iter().zip(idf).map(|(t, i)| t.weight * i).collect();
    let total: f64 = mass.iter().sum::<f64>().max(1e-9);
    let mut keyed: Vec<(u8, f64, f64, Scored)> = scored
        .drain(..)
        .map(|s| {
            let r = (s.raw / best).clamp(0.0, 1.0);
            let rl = if best_lex > 0.0 {
                s.lexical / best_lex
            } else {
                0.0
            };
            let c: f64 = tf[s.idx]
                .iter()
                .zip(&mass)
                .filter(|(&n, _)| n > 0)
                .map(|(_, m)| m)
                .sum::<f64>()
                / total;
            let named = s.named.is_some();
            let strong = if named || !s.defines.is_empty() {
                1.0
            } else {
                0.0
            };
            let order = 0.4 * r + 0.45 * c * r.sqrt() + 0.15 * strong * r.sqrt();
            let lexical = s.lexical >= w.min_bm25;
            let direct = named
                || (!s.defines.is_empty() && r >= 0.3)
                || (lexical && rl >= 0.75 && c >= 0.75);
            let related = (lexical && rl >= 0.5) || s.neighbour;
            let (class, tier_rel) = if direct {
                (2, 0.7 + 0.3 * order.sqrt().min(1.0))
            } else if related {
                (1, 0.5 + 0.19 * order.sqrt().min(1.0))
            } else {
                (0, 0.49 * order.sqrt().min(1.0))
            };
            (if tier_first { class } else { 0 }, order, tier_rel, s)
        })
        .collect();
    keyed.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.3.idx.cmp(&b.3.idx))
    });
    let mut ceiling: f64 = 1.0;
    for (_, _, rel, mut s) in keyed {
        let rel = rel.min(ceiling);
        ceiling = rel;
        s.relevance = (rel.clamp(0.0, 1.0) * 1000.0).round() / 1000.0;
        scored.push(s);
    }
}

/// The default re-ranking stage: orders by raw score, calibrates
/// (`calibrate`), lifts files to the cycle's floors, and orders by relevance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Calibrate;

impl Rerank for Calibrate {
    fn name(&self) -> &str {
        "calibrate"
    }

    fn rerank(&self, ctx: &ScoreContext, scored: &mut Vec<Scored>) {
        scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
        calibrate(
            scored,
            ctx.query,
            &ctx.stats.idf,
            &ctx.stats.tf,
            ctx.weights,
        );
        let floors = &ctx.focus.floors;
        for s in scored.iter_mut() {
            if let Some((_, floor, _)) = floors.iter().find(|(p, _, _)| p == ctx.cands[s.idx].rel) {
                s.relevance = s.relevance.max(*floor);
            }
        }
        scored.sort_by(|a, b| {
            b.relevance
                .total_cmp(&a.relevance)
                .then(b.raw.total_cmp(&a.raw))
                .then(a.idx.cmp(&b.idx))
        });
    }
}
