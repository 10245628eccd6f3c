//! Calibration: the final order and a relevance in [0, 1] with meaningful tiers.

use super::stage::{Rerank, ScoreContext};
use super::{Scored, Weights};
use crate::query::TaskQuery;

/// Orders the files and maps their evidence to a relevance in [0, 1].
///
/// Order: with `r` the share of the best raw score and `c` the IDF-weighted
/// share of the query's terms the file contains times the file's prior,
/// files are ranked by `0.4 r + 0.45 c sqrt(r) + 0.15 strong sqrt(r)`
/// (`strong`: defines a task identifier or is named by the task). Measured
/// on dev-python: ranking by raw score alone gave Acc@1 52.9, this order
/// 57.5 (same weights, same trees). The prior (tests 0.2, docs 0.25,
/// release notes 0.2, other non-code 0.6, package index files 0.85) scales
/// every other evidence of the file before this stage; `c` was left whole
/// until 2026-12-06, and a changelog or a README that holds most of a
/// task's words (they list every change) outranked the source it
/// describes: Alamofire's "Fix 2020 and 2021 Deprecation Warnings" ranked
/// `CHANGELOG.md` first, high tier.
///
/// Tiers, so that they mean what they say (relevance never rises down the order):
/// - high (>= 0.7): the file has at least `high_share` (0.8) of the best raw
///   score and is named by the task, or defines a task identifier, or is
///   lexically close to the best file (>= 75% of its BM25) while covering
///   at least 75% of the query's IDF-weighted terms; and the first file of
///   the order is high when it is at least medium; never a file whose only
///   evidence is one occurrence of one task word (`one_word`, no path
///   match: a rare word's IDF made such a file cover most of the query);
/// - medium (0.5-0.7): lexically related (>= 50% of the best BM25) or linked by
///   a graph edge to a top file;
/// - low: the rest.
///
/// Why these bounds (measured on 1,029 tasks: dev-multilang, dev-python,
/// dev-rust and the 339 held-out tasks of `bench/README.md`, cycle 1,
/// 2026-12-05): of the files that met the other high rules, those under 60 %
/// of the best raw score were gold 1-4 % of the time, 60-80 % 11 %, 80-99 %
/// 22 % and the best file 71 %; and a best file that met none of them but
/// was medium was gold 41 % of the time, more than any high file below it.
/// Replayed on those cycles, with `high_share` 0.3 and no rule for the
/// first file high files were gold 21-37 % of the time per set and the first
/// gold file was high on 40-77 % of the tasks; with these rules 49-53 % and
/// 57-68 % (the full loop's figures per set are in bench/README.md).
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
    aside: &dyn Fn(usize) -> bool,
    path_match: &dyn Fn(usize) -> bool,
) {
    let best = scored.iter().map(|s| s.raw).fold(0.0, f64::max);
    let best_lex = scored.iter().map(|s| s.lexical).fold(0.0, f64::max);
    if best <= 0.0 {
        return;
    }
    // An alternative term (a stem, a compound) adds score, not coverage.
    let mass: Vec<f64> = q
        .terms
        .iter()
        .zip(idf)
        .map(|(t, i)| if t.alternative { 0.0 } else { t.weight * i })
        .collect();
    let total: f64 = mass.iter().sum::<f64>().max(1e-9);
    let bests = Bests {
        raw: best,
        lexical: best_lex,
        mass: &mass,
        total,
    };
    let mut keyed: Vec<Keyed> = scored
        .drain(..)
        .map(|s| key(s, &bests, tf, w, aside, path_match))
        .collect();
    keyed.sort_by(|a, b| {
        b.class
            .cmp(&a.class)
            .then(b.order.total_cmp(&a.order))
            .then(a.scored.idx.cmp(&b.scored.idx))
    });
    // The first file is the best lead the evidence gives: high when it is
    // related at all (see the measurements above), unless one occurrence
    // of one task word is all it holds (`key`).
    let lone = |k: &Keyed| k.one_word && !path_match(k.scored.idx);
    if let Some(first) = keyed.first_mut().filter(|k| k.tier_rel >= 0.5 && !lone(k)) {
        first.tier_rel = first.tier_rel.max(high_relevance(first.order));
    }
    assign_relevance(keyed, scored);
}

/// The relevance of a high file of order score `order`: 0.7 to 1.
fn high_relevance(order: f64) -> f64 {
    0.7 + 0.3 * order.sqrt().min(1.0)
}

/// What a file's order and tier are measured against.
struct Bests<'a> {
    /// The best raw score (> 0).
    raw: f64,
    /// The best BM25 score.
    lexical: f64,
    /// Each query term's weight times its IDF.
    mass: &'a [f64],
    /// Their sum (at least 1e-9).
    total: f64,
}

/// A file with its sort key and its relevance before the caps.
struct Keyed {
    /// The tier (2 high, 1 medium, 0 low) when `tier_first`, else 0.
    class: u8,
    /// The order score (see `calibrate`).
    order: f64,
    /// The relevance its tier gives, in [0, 1].
    tier_rel: f64,
    /// At most one occurrence of a task word, not named by the task and
    /// defining nothing (see `key`): never high unless its path matches.
    one_word: bool,
    scored: Scored,
}

/// One file's order score and tier relevance (the rules in `calibrate`).
fn key(
    s: Scored,
    bests: &Bests,
    tf: &[Vec<u32>],
    w: &Weights,
    aside: &dyn Fn(usize) -> bool,
    path_match: &dyn Fn(usize) -> bool,
) -> Keyed {
    let r = (s.raw / bests.raw).clamp(0.0, 1.0);
    let rl = if bests.lexical > 0.0 {
        s.lexical / bests.lexical
    } else {
        0.0
    };
    let c: f64 = tf[s.idx]
        .iter()
        .zip(bests.mass)
        .filter(|(&n, _)| n > 0)
        .map(|(_, m)| m)
        .sum::<f64>()
        / bests.total
        * s.prior;
    let named = s.named.is_some();
    // At most one occurrence of one task word is all the file holds: no
    // lead, however rare the word ("decide" in one comment of ripgrep's
    // mmap.rs was first, high 0.96, for "where does ripgrep decide whether
    // a file is binary": probe P3). Measured 2026-12-07 on the eight bench
    // sets: 13 files left the high tier, one of them gold; no rank moved
    // (a few whose path matches came back with the path check, 9c2ee65).
    let occurrences: u32 = tf[s.idx]
        .iter()
        .zip(bests.mass)
        .filter(|(_, m)| **m > 0.0)
        .map(|(&n, _)| n)
        .sum();
    // The path is asked last, for the few files that could be high: the
    // reasons (`Evidence::PathMatch`) are written after this stage.
    let one_word = occurrences <= 1 && !named && s.defines.is_empty();
    let strong = if named || !s.defines.is_empty() {
        1.0
    } else {
        0.0
    };
    let order = 0.4 * r + 0.45 * c * r.sqrt() + 0.15 * strong * r.sqrt();
    let lexical = s.lexical >= w.min_bm25;
    // Tests, docs, notes and vendored files are high only when the
    // task names them: their words and definitions are about the
    // code, not the place of the fix.
    let source = !aside(s.idx);
    let direct = r >= w.high_share
        && (named || (source && (!s.defines.is_empty() || (lexical && rl >= 0.75 && c >= 0.75))))
        && (!one_word || path_match(s.idx));
    let related = (lexical && rl >= 0.5) || s.neighbour;
    let (class, tier_rel) = if direct {
        (2, high_relevance(order))
    } else if related {
        (1, 0.5 + 0.19 * order.sqrt().min(1.0))
    } else {
        (0, 0.49 * order.sqrt().min(1.0))
    };
    Keyed {
        class: if w.tier_first > 0.0 { class } else { 0 },
        order,
        tier_rel,
        one_word,
        scored: s,
    }
}

/// Sets each file's relevance, in the sorted order, and pushes it to `scored`.
///
/// Relevance never rises down the order, and falls by at least
/// [`STEP`] from one file to the next while it stays in its tier's band:
/// files that shared one capped value were ordered by path downstream
/// (`doc/...` before `src/...`), not by their evidence.
fn assign_relevance(keyed: Vec<Keyed>, scored: &mut Vec<Scored>) {
    let mut ceiling: f64 = 1.0;
    let mut prev: Option<f64> = None;
    for Keyed {
        tier_rel: rel,
        scored: mut s,
        ..
    } in keyed
    {
        let mut rel = (rel.min(ceiling).clamp(0.0, 1.0) * 1000.0).round() / 1000.0;
        if let Some(p) = prev {
            let floor = band_floor(p);
            if rel >= p && p - STEP >= floor {
                rel = p - STEP;
            }
            rel = rel.min(p);
        }
        rel = (rel * 1000.0).round() / 1000.0;
        ceiling = rel;
        prev = Some(rel);
        s.relevance = rel;
        scored.push(s);
    }
}

/// Smallest relevance step between consecutive files (answers show three decimals).
const STEP: f64 = 0.001;

/// The lowest relevance of the tier band `rel` is in (high 0.7, medium 0.5,
/// low 0): a tie is broken only without leaving the band.
fn band_floor(rel: f64) -> f64 {
    if rel >= 0.7 {
        0.7
    } else if rel >= 0.5 {
        0.5
    } else {
        STEP
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
        let aside = |idx: usize| super::priors::is_aside(&ctx.cands[idx], ctx.weights, ctx.query);
        calibrate(
            scored,
            ctx.query,
            &ctx.stats.idf,
            &ctx.stats.tf,
            ctx.weights,
            &aside,
            &|idx| super::bm25::lexical(ctx, idx, None).1 > 0.0,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_capped_by_a_file_above_do_not_share_one_relevance() {
        // The best file (high), a lexically strong file that covers half the
        // terms (medium), then two files that define a task name (high on
        // their own, capped by the medium one): they used to share its
        // relevance, and ties were then broken by path downstream.
        let files = [
            (10.0, 10.0, false),
            (9.5, 9.0, false),
            (9.0, 0.0, true),
            (8.5, 0.0, true),
        ];
        let tf = [vec![1, 1], vec![1, 0], vec![0, 0], vec![0, 0]];
        let rel = calibrated_with(&files, &tf, &Weights::default());
        assert_eq!(rel.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(rel[0].1 >= 0.7 && rel[1].1 < 0.7, "{rel:?}");
        assert!(rel[1].1 > rel[2].1 && rel[2].1 > rel[3].1, "{rel:?}");
        // Still in the medium file's tier band.
        assert!(rel[3].1 >= 0.5, "{rel:?}");
    }

    /// Files with the given (raw, lexical, whether it defines a task name)
    /// and term counts `tf` (for the query "alpha beta"), calibrated, as
    /// (idx, relevance) in order.
    fn calibrated_with(
        files: &[(f64, f64, bool)],
        tf: &[Vec<u32>],
        w: &Weights,
    ) -> Vec<(usize, f64)> {
        let q = TaskQuery::new("alpha beta", &[]);
        let idf = vec![1.0; q.terms.len()];
        let mut scored: Vec<Scored> = files
            .iter()
            .enumerate()
            .map(|(i, &(raw, lexical, defines))| Scored {
                raw,
                lexical,
                defines: if defines {
                    vec!["alpha".into()]
                } else {
                    vec![]
                },
                ..Scored::new(i)
            })
            .collect();
        calibrate(&mut scored, &q, &idf, tf, w, &|_| false, &|_| false);
        scored.iter().map(|s| (s.idx, s.relevance)).collect()
    }

    /// [`calibrate`] with the default weights, file 1 aside (docs, tests,
    /// release notes: `aside`) and no path matching the task.
    fn calibrate_aside_file_1(
        scored: &mut Vec<Scored>,
        q: &TaskQuery,
        idf: &[f64],
        tf: &[Vec<u32>],
    ) {
        calibrate(
            scored,
            q,
            idf,
            tf,
            &Weights::default(),
            &|i| i == 1,
            &|_| false,
        );
    }

    /// As [`calibrated_with`], file 0 holding both terms, the others none.
    fn calibrated(files: &[(f64, f64, bool)], w: &Weights) -> Vec<(usize, f64)> {
        let mut tf = vec![vec![0u32; 2]; files.len()];
        tf[0] = vec![1, 1];
        calibrated_with(files, &tf, w)
    }

    #[test]
    fn the_best_file_is_high_when_its_evidence_is_at_least_medium() {
        // The best file holds one of the two terms and defines nothing: the
        // rules for high do not hold, but it is the best lead there is.
        let files = [(10.0, 10.0, false), (9.0, 6.0, false)];
        let rel = calibrated_with(&files, &[vec![2, 0], vec![1, 0]], &Weights::default());
        assert!(rel[0].1 >= 0.7, "{rel:?}");
        assert!((0.5..0.7).contains(&rel[1].1), "{rel:?}");
        // A best file with no lexical evidence and no edge is not promoted.
        let rel = calibrated(&[(1.0, 0.0, false)], &Weights::default());
        assert!(rel[0].1 < 0.5, "{rel:?}");
    }

    #[test]
    fn one_word_of_the_task_once_is_no_high_file() {
        // "where does ripgrep decide whether a file is binary": mmap.rs
        // held "decide" once, in a comment, and nothing else of the task,
        // and was first, high 0.96. First it stays; high it is not, by the
        // share of the query's terms it covers nor as the best lead.
        let w = Weights::default();
        let idf = [4.0, 1.0];
        let q = TaskQuery::new("alpha beta", &[]);
        let one = |tf0: Vec<u32>, path_match: bool| {
            let mut scored: Vec<Scored> = (0..2)
                .map(|i| Scored {
                    raw: 10.0 - i as f64,
                    lexical: 10.0 - i as f64,
                    ..Scored::new(i)
                })
                .collect();
            calibrate(
                &mut scored,
                &q,
                &idf,
                &[tf0, vec![0, 3]],
                &w,
                &|_| false,
                &|i| path_match && i == 0,
            );
            scored
                .iter()
                .map(|s| (s.idx, s.relevance))
                .collect::<Vec<_>>()
        };
        let rel = one(vec![1, 0], false);
        assert_eq!(rel[0].0, 0, "{rel:?}");
        assert!((0.5..0.7).contains(&rel[0].1), "{rel:?}");
        // Twice, with a second word, or with its path matching the task,
        // it is the best lead and high.
        assert!(one(vec![2, 0], false)[0].1 >= 0.7);
        assert!(one(vec![1, 1], false)[0].1 >= 0.7);
        assert!(one(vec![1, 0], true)[0].1 >= 0.7);
    }

    #[test]
    fn a_docs_or_test_file_is_high_only_when_the_task_names_it() {
        let q = TaskQuery::new("alpha beta", &[]);
        let idf = vec![1.0; q.terms.len()];
        let tf = vec![vec![1u32; q.terms.len()]; 2];
        let mut scored: Vec<Scored> = (0..2)
            .map(|i| Scored {
                raw: 10.0 - i as f64,
                lexical: 10.0 - i as f64,
                defines: vec!["alpha".into()],
                ..Scored::new(i)
            })
            .collect();
        // File 0 is source, file 1 a docs page (aside) as strong.
        calibrate_aside_file_1(&mut scored, &q, &idf, &tf);
        let src = scored.iter().find(|s| s.idx == 0).unwrap();
        let docs = scored.iter().find(|s| s.idx == 1).unwrap();
        assert!(src.relevance >= 0.7, "{}", src.relevance);
        assert!((0.5..0.7).contains(&docs.relevance), "{}", docs.relevance);
    }

    #[test]
    fn a_definition_far_below_the_top_file_is_high_only_above_high_share() {
        // The top file holds the task's terms; the others define a task name
        // with 85 % and 40 % of the top raw score and no lexical evidence.
        let w = Weights::default();
        let rel = calibrated(
            &[(10.0, 10.0, false), (8.5, 0.0, true), (4.0, 0.0, true)],
            &w,
        );
        assert_eq!(rel.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1, 2]);
        // Default (0.8): the first definition is high, the far one is not.
        assert!(rel[1].1 >= 0.7, "{rel:?}");
        assert!(rel[2].1 < 0.7, "{rel:?}");
        // A stricter high tier: neither is.
        let strict = Weights {
            high_share: 0.9,
            ..Weights::default()
        };
        let rel = calibrated(
            &[(10.0, 10.0, false), (8.5, 0.0, true), (4.0, 0.0, true)],
            &strict,
        );
        assert!(rel[1].1 < 0.7, "{rel:?}");
    }

    #[test]
    fn a_changelog_holding_every_word_does_not_outrank_the_source() {
        // File 0 is source holding one of the two terms; file 1 release
        // notes (prior 0.2) holding both, with 80 % of its raw score after
        // the prior.
        let q = TaskQuery::new("alpha beta", &[]);
        let idf = vec![1.0; q.terms.len()];
        let tf = [vec![1, 0], vec![1, 1]];
        let mut scored = vec![
            Scored {
                raw: 10.0,
                lexical: 10.0,
                ..Scored::new(0)
            },
            Scored {
                raw: 8.0,
                lexical: 8.0,
                prior: 0.2,
                ..Scored::new(1)
            },
        ];
        calibrate_aside_file_1(&mut scored, &q, &idf, &tf);
        assert_eq!(scored[0].idx, 0, "{scored:?}");
        assert!(scored[1].relevance < 0.7, "{scored:?}");
    }
}
