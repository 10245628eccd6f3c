//! Metric definitions (Acc@k, Recall@k, MRR) and their aggregation.

use super::edits::EditLines;
use super::systems::{AnswerScore, SystemRun};
use serde::Serialize;
use std::collections::BTreeMap;

/// 1-based rank of each gold file in `ranked` (best first), `None` when absent.
pub fn gold_ranks(ranked: &[String], gold: &[String]) -> Vec<Option<usize>> {
    gold.iter()
        .map(|g| ranked.iter().position(|p| p == g).map(|i| i + 1))
        .collect()
}

/// Acc@k for one task: every gold file is within the top `k`. A task without
/// gold files never counts as found.
pub fn all_in_top_k(ranks: &[Option<usize>], k: usize) -> bool {
    !ranks.is_empty() && ranks.iter().all(|r| r.is_some_and(|r| r <= k))
}

/// Recall@k for one task: the share of its gold files within the top `k`.
pub fn recall_at_k(ranks: &[Option<usize>], k: usize) -> f64 {
    if ranks.is_empty() {
        return 0.0;
    }
    ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / ranks.len() as f64
}

/// Reciprocal rank of the first gold file (0 when none is ranked).
pub fn reciprocal_rank(ranks: &[Option<usize>]) -> f64 {
    ranks
        .iter()
        .flatten()
        .min()
        .map_or(0.0, |&r| 1.0 / r as f64)
}

/// Returned snippet line ranges (1-based, inclusive) by file.
pub(super) type SnippetSpans = BTreeMap<String, Vec<(usize, usize)>>;

/// How many lines of the gold edit lie inside a returned snippet of the same file.
pub(super) fn covered_lines(edit: &EditLines, spans: &SnippetSpans) -> usize {
    edit.iter()
        .map(|(file, lines)| {
            let Some(ranges) = spans.get(file) else {
                return 0;
            };
            lines
                .iter()
                .filter(|&&l| ranges.iter().any(|&(a, b)| a <= l && l <= b))
                .count()
        })
        .sum()
}

/// Of the `high` files, how many are gold; and whether the best-ranked gold
/// file of `top` is `high` (false when no gold file is ranked).
pub(super) fn high_tier(top: &[String], high: &[String], gold: &[String]) -> (usize, bool) {
    let high_gold = high.iter().filter(|h| gold.contains(h)).count();
    let first_gold = top.iter().find(|p| gold.contains(p));
    (high_gold, first_gold.is_some_and(|g| high.contains(g)))
}

/// Median (mean of the two middle values for an even count); 0 for no values.
pub(super) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Nearest-rank percentile `p` (0..=100); 0 for no values.
pub(super) fn percentile(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

/// Aggregates of one system over a set of tasks. Shares are percentages.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Summary {
    pub(super) tasks: usize,
    /// Tasks whose engine call failed (counted as misses).
    pub(super) errors: usize,
    /// Acc@k in percent, by k.
    pub(super) acc_pct: BTreeMap<usize, f64>,
    /// Recall@k in percent, by k.
    pub(super) recall_pct: BTreeMap<usize, f64>,
    pub(super) mrr: f64,
    pub(super) median_ms: f64,
    pub(super) p95_ms: f64,
    /// Mean tokens returned (engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) mean_tokens: Option<f64>,
    /// Mean cycles run (engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) mean_cycles: Option<f64>,
    /// Tiers and snippets against the gold (engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) answer: Option<AnswerSummary>,
}

/// Aggregates of engine answers: tiers and snippets against the gold. Over
/// the tasks whose engine call answered (failed calls are in `errors`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct AnswerSummary {
    /// Tasks with an answer.
    pub(super) tasks: usize,
    /// `high` files over all answers, and the share of them that are gold
    /// (pooled over tasks; `None` without any high file), in percent.
    pub(super) high_files: usize,
    pub(super) high_precision_pct: Option<f64>,
    /// Share of tasks whose best-ranked gold file is `high`, in percent.
    pub(super) first_gold_high_pct: f64,
    /// Mean share of a task's gold files with a snippet in the answer, in percent.
    pub(super) file_in_answer_pct: f64,
    /// Tasks with a gold edit of at least one line.
    pub(super) edit_tasks: usize,
    /// Mean share of the gold edit's lines inside the returned snippets, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_recall_pct: Option<f64>,
    /// Where the rest went, as mean shares of the gold edit's lines in
    /// percent: inside a chosen snippet the budget left as a handle, and in
    /// a listed file but outside every snippet (text or handle). What is in
    /// neither is in files the answer does not list (lost to ranking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_in_handles_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_unchosen_pct: Option<f64>,
    /// Mean tokens returned on those tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_mean_tokens: Option<f64>,
    /// Edit recall (a share, 0..1) per 1,000 tokens returned:
    /// 1000 × mean edit recall / mean tokens, over the same tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_recall_per_1k_tokens: Option<f64>,
}

impl AnswerSummary {
    /// `None` when no run has an answer (BM25, or every call failed).
    pub(super) fn of(runs: &[&SystemRun]) -> Option<AnswerSummary> {
        let answered: Vec<(&SystemRun, &AnswerScore)> = runs
            .iter()
            .filter_map(|r| r.answer.as_ref().map(|a| (*r, a)))
            .collect();
        if answered.is_empty() {
            return None;
        }
        let n = answered.len() as f64;
        let high_files: usize = answered.iter().map(|(_, a)| a.high.len()).sum();
        let high_gold: usize = answered.iter().map(|(_, a)| a.high_gold).sum();
        let share = |num: usize, den: usize| num as f64 / den.max(1) as f64;
        // Per task with a gold edit: (recall, tokens, share in handles,
        // share in listed files outside every snippet).
        let edits: Vec<(f64, f64, f64, f64)> = answered
            .iter()
            .filter_map(|(r, a)| match (a.edit_lines, a.edit_covered) {
                (Some(lines), Some(covered)) if lines > 0 => {
                    let handles = a.edit_in_handles.unwrap_or(0);
                    let listed = a.edit_in_listed_files.unwrap_or(0);
                    Some((
                        share(covered, lines),
                        r.tokens.unwrap_or(0) as f64,
                        share(handles, lines),
                        share(listed.saturating_sub(covered + handles), lines),
                    ))
                }
                _ => None,
            })
            .collect();
        let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let recall = mean(edits.iter().map(|e| e.0).collect());
        let tokens = mean(edits.iter().map(|e| e.1).collect());
        let in_handles = mean(edits.iter().map(|e| e.2).collect());
        let unchosen = mean(edits.iter().map(|e| e.3).collect());
        Some(AnswerSummary {
            tasks: answered.len(),
            high_files,
            high_precision_pct: (high_files > 0).then(|| 100.0 * share(high_gold, high_files)),
            first_gold_high_pct: 100.0
                * answered.iter().filter(|(_, a)| a.first_gold_high).count() as f64
                / n,
            file_in_answer_pct: 100.0
                * answered
                    .iter()
                    .map(|(r, a)| share(a.gold_in_answer, r.ranks.len()))
                    .sum::<f64>()
                / n,
            edit_tasks: edits.len(),
            edit_recall_pct: recall.map(|r| 100.0 * r),
            edit_in_handles_pct: in_handles.map(|r| 100.0 * r),
            edit_unchosen_pct: unchosen.map(|r| 100.0 * r),
            edit_mean_tokens: tokens,
            edit_recall_per_1k_tokens: match (recall, tokens) {
                (Some(r), Some(t)) if t > 0.0 => Some(1000.0 * r / t),
                _ => None,
            },
        })
    }
}

impl Summary {
    pub(super) fn of(runs: &[&SystemRun], ks: &[usize], recall_ks: &[usize]) -> Summary {
        let n = runs.len().max(1) as f64;
        let pct = |count: f64| 100.0 * count / n;
        let acc_pct = ks
            .iter()
            .map(|&k| {
                (
                    k,
                    pct(runs.iter().filter(|r| all_in_top_k(&r.ranks, k)).count() as f64),
                )
            })
            .collect();
        let recall_pct = recall_ks
            .iter()
            .map(|&k| (k, pct(runs.iter().map(|r| recall_at_k(&r.ranks, k)).sum())))
            .collect();
        let ms: Vec<f64> = runs.iter().map(|r| r.ms).collect();
        let mean_of = |values: Vec<f64>| {
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        Summary {
            tasks: runs.len(),
            errors: runs.iter().filter(|r| r.error.is_some()).count(),
            acc_pct,
            recall_pct,
            mrr: runs.iter().map(|r| reciprocal_rank(&r.ranks)).sum::<f64>() / n,
            median_ms: median(&ms),
            p95_ms: percentile(&ms, 95.0),
            mean_tokens: mean_of(
                runs.iter()
                    .filter_map(|r| r.tokens)
                    .map(|t| t as f64)
                    .collect(),
            ),
            mean_cycles: mean_of(
                runs.iter()
                    .filter_map(|r| r.cycles)
                    .map(|c| c as f64)
                    .collect(),
            ),
            answer: AnswerSummary::of(runs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn gold_ranks_are_one_based_and_none_when_absent() {
        let ranked = paths(&["a.py", "b.py", "c.py"]);
        assert_eq!(
            gold_ranks(&ranked, &paths(&["c.py", "z.py", "a.py"])),
            vec![Some(3), None, Some(1)]
        );
    }

    #[test]
    fn acc_at_k_needs_every_gold_file_in_the_top_k() {
        let ranked = paths(&["a", "b", "c", "d", "e"]);
        let ranks = gold_ranks(&ranked, &paths(&["b", "d"]));
        assert!(!all_in_top_k(&ranks, 1));
        assert!(!all_in_top_k(&ranks, 3));
        assert!(all_in_top_k(&ranks, 4));
        assert!(all_in_top_k(&ranks, 10));
        // One gold file missing from the list: never found.
        let ranks = gold_ranks(&ranked, &paths(&["a", "x"]));
        assert!(!all_in_top_k(&ranks, 10));
        // No gold files: never counts as found.
        assert!(!all_in_top_k(&[], 10));
    }

    #[test]
    fn recall_at_k_is_the_share_of_gold_files_found() {
        let ranked = paths(&["a", "b", "c", "d", "e", "f"]);
        let ranks = gold_ranks(&ranked, &paths(&["a", "e", "x", "f"]));
        assert_eq!(recall_at_k(&ranks, 1), 0.25);
        assert_eq!(recall_at_k(&ranks, 5), 0.5);
        assert_eq!(recall_at_k(&ranks, 10), 0.75);
        assert_eq!(recall_at_k(&[], 5), 0.0);
    }

    #[test]
    fn reciprocal_rank_uses_the_best_ranked_gold_file() {
        let ranked = paths(&["a", "b", "c", "d"]);
        assert_eq!(
            reciprocal_rank(&gold_ranks(&ranked, &paths(&["d", "b"]))),
            0.5
        );
        assert_eq!(reciprocal_rank(&gold_ranks(&ranked, &paths(&["a"]))), 1.0);
        assert_eq!(reciprocal_rank(&gold_ranks(&ranked, &paths(&["x"]))), 0.0);
    }

    #[test]
    fn summary_averages_over_tasks() {
        let run = |ranks: Vec<Option<usize>>, ms: f64| SystemRun {
            ranks,
            top: Vec::new(),
            ms,
            engine_ms: None,
            tokens: Some(100),
            cycles: Some(2),
            stop_reason: None,
            not_in_tree: Vec::new(),
            error: None,
            answer: None,
        };
        let runs = [
            run(vec![Some(1)], 10.0),
            run(vec![Some(4), None], 20.0),
            run(vec![None], 30.0),
            run(vec![Some(2), Some(3)], 40.0),
        ];
        let refs: Vec<&SystemRun> = runs.iter().collect();
        let s = Summary::of(&refs, &[1, 3, 5], &[5, 10]);
        assert_eq!(s.tasks, 4);
        assert_eq!(s.acc_pct[&1], 25.0);
        assert_eq!(s.acc_pct[&3], 50.0);
        assert_eq!(s.acc_pct[&5], 50.0);
        assert_eq!(s.recall_pct[&5], 100.0 * (1.0 + 0.5 + 0.0 + 1.0) / 4.0);
        assert!((s.mrr - (1.0 + 0.25 + 0.0 + 0.5) / 4.0).abs() < 1e-12);
        assert_eq!(s.median_ms, 25.0);
        assert_eq!(s.p95_ms, 40.0);
        assert_eq!(s.mean_tokens, Some(100.0));
        assert_eq!(s.mean_cycles, Some(2.0));
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 95.0), 19.0);
        assert_eq!(percentile(&v, 100.0), 20.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[]), 0.0);
    }

    fn edit(v: &[(&str, &[usize])]) -> EditLines {
        v.iter()
            .map(|(f, l)| (f.to_string(), l.iter().copied().collect()))
            .collect()
    }

    #[test]
    fn edit_lines_count_only_inside_a_snippet_of_their_own_file() {
        let gold = edit(&[("a.py", &[3, 10, 11, 30]), ("b.py", &[5])]);
        let mut spans = SnippetSpans::new();
        spans.insert("a.py".into(), vec![(1, 4), (9, 10)]);
        spans.insert("c.py".into(), vec![(1, 100)]);
        assert_eq!(covered_lines(&gold, &spans), 2);
        spans.insert("b.py".into(), vec![(5, 5)]);
        assert_eq!(covered_lines(&gold, &spans), 3);
        assert_eq!(covered_lines(&gold, &SnippetSpans::new()), 0);
    }

    #[test]
    fn high_tier_counts_gold_high_files_and_checks_the_first_gold_file() {
        let top = paths(&["readme.md", "src/a.py", "src/b.py"]);
        let gold = paths(&["src/b.py", "src/a.py"]);
        assert_eq!(
            high_tier(&top, &paths(&["readme.md", "src/b.py"]), &gold),
            (1, false)
        );
        assert_eq!(high_tier(&top, &paths(&["src/a.py"]), &gold), (1, true));
        assert_eq!(high_tier(&top, &[], &gold), (0, false));
        assert_eq!(high_tier(&paths(&["x"]), &paths(&["x"]), &gold), (0, false));
    }

    #[test]
    fn answer_summary_pools_high_precision_and_averages_edit_recall() {
        let run = |gold: usize, answer: AnswerScore, tokens: usize| SystemRun {
            ranks: vec![None; gold],
            top: Vec::new(),
            ms: 1.0,
            engine_ms: None,
            tokens: Some(tokens),
            cycles: Some(1),
            stop_reason: None,
            not_in_tree: Vec::new(),
            error: None,
            answer: Some(answer),
        };
        let runs = [
            run(
                2,
                AnswerScore {
                    high: paths(&["a", "b", "c"]),
                    high_gold: 1,
                    first_gold_high: true,
                    gold_in_answer: 1,
                    edit_lines: Some(4),
                    edit_covered: Some(1),
                    // 1 line in a handle, 2 in the listed file outside every snippet.
                    edit_in_handles: Some(1),
                    edit_in_listed_files: Some(4),
                },
                2000,
            ),
            run(
                1,
                AnswerScore {
                    high: paths(&["d"]),
                    high_gold: 1,
                    first_gold_high: false,
                    gold_in_answer: 1,
                    edit_lines: Some(2),
                    edit_covered: Some(2),
                    edit_in_handles: Some(0),
                    edit_in_listed_files: Some(2),
                },
                4000,
            ),
            // No gold edit: out of the edit figures, in the others.
            run(1, AnswerScore::default(), 9000),
        ];
        let refs: Vec<&SystemRun> = runs.iter().collect();
        let a = AnswerSummary::of(&refs).unwrap();
        assert_eq!(a.tasks, 3);
        assert_eq!(a.high_files, 4);
        assert_eq!(a.high_precision_pct, Some(50.0));
        assert!((a.first_gold_high_pct - 100.0 / 3.0).abs() < 1e-9);
        assert!((a.file_in_answer_pct - 100.0 * (0.5 + 1.0 + 0.0) / 3.0).abs() < 1e-9);
        assert_eq!(a.edit_tasks, 2);
        assert_eq!(a.edit_recall_pct, Some(100.0 * (0.25 + 1.0) / 2.0));
        assert_eq!(a.edit_in_handles_pct, Some(100.0 * (0.25 + 0.0) / 2.0));
        assert_eq!(a.edit_unchosen_pct, Some(100.0 * (0.5 + 0.0) / 2.0));
        assert_eq!(a.edit_mean_tokens, Some(3000.0));
        assert!((a.edit_recall_per_1k_tokens.unwrap() - 1000.0 * 0.625 / 3000.0).abs() < 1e-12);
        // BM25 rows have no answer.
        let mut bm25 = runs[0].clone();
        bm25.answer = None;
        assert_eq!(AnswerSummary::of(&[&bm25]), None);
    }
}
