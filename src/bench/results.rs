//! What a run records: per task, per tree, skipped tasks; the cut-offs.

use super::edits::GoldEdit;
use super::systems::SystemRun;
use anyhow::{bail, Result};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A task and every system's answer.
#[derive(Debug, Serialize)]
pub(super) struct TaskResult {
    pub(super) instance_id: String,
    pub(super) repo: String,
    pub(super) base_commit: String,
    pub(super) mentions_gold_file: Option<bool>,
    /// Language group ([`Task::language_group`](super::tasks::Task::language_group)).
    pub(super) language: String,
    pub(super) gold_files: Vec<String>,
    /// The gold edit that edit recall is measured against (bench ground truth).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) gold_edit: Option<GoldEdit>,
    /// Gold files that are not files of the tree (they count as misses).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) gold_not_in_tree: Vec<String>,
    /// By system: the rank of each gold file (`null` = not in the ranking).
    pub(super) gold_ranks: BTreeMap<String, BTreeMap<String, Option<usize>>>,
    pub(super) runs: BTreeMap<String, SystemRun>,
}

/// A tree used in the run.
#[derive(Debug, Serialize)]
pub(super) struct TreeInfo {
    pub(super) repo: String,
    pub(super) commit: String,
    pub(super) path: String,
    /// False when the tree came from the cache.
    pub(super) extracted: bool,
    pub(super) extract_ms: f64,
    pub(super) bm25_files: usize,
    pub(super) bm25_build_ms: f64,
    /// Files of the source-only BM25 index, and its build time.
    pub(super) bm25_src_files: usize,
    pub(super) bm25_src_build_ms: f64,
    /// Files of the commit left out of the tree because their blob is missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) absent_files: Vec<String>,
    /// With `--timing`: the tree's first task on a fresh engine (empty file
    /// cache: cold in-process), in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cold_ms: Option<f64>,
    /// With `--timing`: the same task again on that engine (tree unchanged: warm), in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) warm_ms: Option<f64>,
}

#[derive(Debug, Serialize)]
pub(super) struct Skipped {
    pub(super) instance_id: String,
    pub(super) reason: String,
}

/// Ranking depth and the cut-offs, validated.
pub(super) struct Cutoffs {
    pub(super) acc: Vec<usize>,
    pub(super) recall: Vec<usize>,
    pub(super) depth: usize,
}

impl Cutoffs {
    pub(super) fn new(ks: &[usize]) -> Result<Self> {
        if ks.contains(&0) || ks.is_empty() {
            bail!("--k needs positive cut-offs, e.g. --k 1,3,5,10");
        }
        let acc: Vec<usize> = ks
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let recall: Vec<usize> = acc
            .iter()
            .copied()
            .chain([5, 10])
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let depth = recall.last().copied().unwrap_or(10);
        Ok(Cutoffs { acc, recall, depth })
    }
}
