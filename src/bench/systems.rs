//! The systems measured (engine variants, BM25) and one system's answer to one task.

use super::bm25::Bm25Index;
use super::metrics::gold_ranks;
use super::tasks::{dedup_paths, normalize_path, Task};
use crate::engine::Engine;
use crate::score::Weights;
use crate::tools::retrieve::RetrieveParams;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// What is being measured.
#[derive(Debug, Clone)]
pub(super) enum System {
    /// The engine's `retrieve` with this `max_cycles` (and named weights, if not the defaults).
    Engine {
        max_cycles: usize,
        weights: Option<(String, Weights)>,
    },
    /// The plain BM25 baseline.
    Bm25,
}

impl System {
    pub(super) fn label(&self) -> String {
        match self {
            System::Engine {
                max_cycles,
                weights: None,
            } => format!("ctxloop/{max_cycles}c"),
            System::Engine {
                max_cycles,
                weights: Some((name, _)),
            } => format!("{name}/{max_cycles}c"),
            System::Bm25 => "bm25".to_string(),
        }
    }
}

/// One system's answer to one task.
#[derive(Debug, Clone, Serialize)]
pub(super) struct SystemRun {
    /// Rank of each gold file (same order as the task's `gold_files`).
    #[serde(skip)]
    pub(super) ranks: Vec<Option<usize>>,
    /// The ranking, best first (existing files only, at most the ranking depth).
    pub(super) top: Vec<String>,
    /// Wall time measured around the call (BM25: the query only).
    pub(super) ms: f64,
    /// The engine's own `stats.elapsed_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) engine_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tokens: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cycles: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stop_reason: Option<String>,
    /// Paths the system returned that are not files of the tree (dropped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) not_in_tree: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<String>,
}

/// Keeps the normalized, distinct paths that are files of `tree`; the rest is returned apart.
pub(super) fn existing_files<'a>(
    tree: &Path,
    paths: impl IntoIterator<Item = &'a str>,
) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for p in dedup_paths(paths.into_iter().map(normalize_path)) {
        if tree.join(&p).is_file() {
            kept.push(p);
        } else {
            dropped.push(p);
        }
    }
    (kept, dropped)
}

pub(super) fn run_engine(
    engine: &Engine,
    task: &Task,
    tree: &Path,
    max_cycles: usize,
    weights: &Weights,
    depth: usize,
) -> SystemRun {
    let params = RetrieveParams {
        task: task.problem_statement.clone(),
        root: Some(tree.to_string_lossy().into_owned()),
        limit: Some(depth as _),
        max_cycles: Some(max_cycles as _),
        ..Default::default()
    };
    let start = Instant::now();
    let result = engine.retrieve_weighted(params, weights);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match result {
        Ok(out) => {
            let (mut top, not_in_tree) =
                existing_files(tree, out.files.iter().map(|f| f.path.as_str()));
            top.truncate(depth);
            SystemRun {
                ranks: gold_ranks(&top, &task.gold_files),
                top,
                ms,
                engine_ms: Some(out.stats.elapsed_ms),
                tokens: Some(out.tokens),
                cycles: Some(out.cycles.len()),
                stop_reason: Some(out.stop_reason.as_str().to_string()),
                not_in_tree,
                error: None,
            }
        }
        Err(e) => SystemRun {
            ranks: vec![None; task.gold_files.len()],
            top: Vec::new(),
            ms,
            engine_ms: None,
            tokens: None,
            cycles: None,
            stop_reason: None,
            not_in_tree: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}

pub(super) fn run_bm25(index: &Bm25Index, task: &Task, depth: usize) -> SystemRun {
    let start = Instant::now();
    let top = index.search(&task.problem_statement, depth);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    SystemRun {
        ranks: gold_ranks(&top, &task.gold_files),
        top,
        ms,
        engine_ms: None,
        tokens: None,
        cycles: None,
        stop_reason: None,
        not_in_tree: Vec::new(),
        error: None,
    }
}
