//! Metric definitions (Acc@k, Recall@k, MRR) and their aggregation.

use super::systems::SystemRun;
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
}
