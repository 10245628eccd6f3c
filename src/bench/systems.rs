//! The systems measured (engine variants, BM25) and one system's answer to one task.

use super::args::BenchArgs;
use super::bm25::Bm25Index;
use super::edits::EditLines;
use super::metrics::{covered_lines, gold_ranks, high_tier, SnippetSpans};
use super::tasks::{dedup_paths, normalize_path, Task};
use crate::engine::Engine;
use crate::score::Weights;
use crate::tools::retrieve::RetrieveParams;
use crate::types::{File, Tier};
use anyhow::Result;
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// What is being measured.
#[derive(Debug, Clone)]
pub(super) enum System {
    /// The engine's `retrieve` with this `max_cycles` (and named weights, if not the defaults).
    Engine {
        max_cycles: usize,
        weights: Option<(String, Box<Weights>)>,
    },
    /// The plain BM25 baseline over every text file.
    Bm25,
    /// The same BM25 over non-test source files only.
    Bm25Source,
    /// The step-wise loop with the simulated judge (`--judge`), after this
    /// many cycles (all cycles come from one session, see `judge`).
    Judged { cycle: usize },
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
            System::Bm25Source => "bm25-src".to_string(),
            System::Judged { cycle } => super::judge::label(*cycle),
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
    /// Engine only: what the answer holds (tiers, snippets against the gold edit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) answer: Option<AnswerScore>,
}

impl SystemRun {
    /// The run of a system that answered with an error: no file ranked.
    pub(super) fn failed(gold_files: usize, ms: f64, error: String) -> SystemRun {
        SystemRun {
            error: Some(error),
            ..SystemRun::ranked(vec![None; gold_files], Vec::new(), ms)
        }
    }

    /// The run of a system that only ranks files (a BM25 baseline): its gold
    /// ranks, its top files and its time; no engine figures, no answer.
    pub(super) fn ranked(ranks: Vec<Option<usize>>, top: Vec<String>, ms: f64) -> SystemRun {
        SystemRun {
            ranks,
            top,
            ms,
            engine_ms: None,
            tokens: None,
            cycles: None,
            stop_reason: None,
            not_in_tree: Vec::new(),
            error: None,
            answer: None,
        }
    }
}

/// How an engine answer's tiers and snippets meet the gold (issue 12 item 7,
/// issue 13 item 1).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(super) struct AnswerScore {
    /// Files of the ranking in the `high` tier.
    pub(super) high: Vec<String>,
    /// How many of them are gold.
    pub(super) high_gold: usize,
    /// The best-ranked gold file is `high`.
    pub(super) first_gold_high: bool,
    /// Gold files with at least one snippet whose text is in the answer.
    pub(super) gold_in_answer: usize,
    /// Lines of the gold edit, and those inside a returned snippet with text
    /// (`None` when the task has no gold edit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_covered: Option<usize>,
    /// Lines of the gold edit inside a snippet the budget left as a handle
    /// (chosen, but without text): the share of the loss that is the
    /// budget's, not the snippet choice's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_in_handles: Option<usize>,
    /// Lines of the gold edit in files the answer lists (with text or not):
    /// the rest is lost to ranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edit_in_listed_files: Option<usize>,
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

/// One `retrieve` call of the engine on `task`, scored; `edit` is the task's
/// gold edit (the bench's ground truth; the engine never sees it). `git_dir`
/// is the task's repository: the engine's history signal reads it up to the
/// task's `base_commit` and never past it (the fix is a later commit).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_engine(
    engine: &Engine,
    task: &Task,
    tree: &Path,
    git_dir: &Path,
    max_cycles: usize,
    weights: &Weights,
    depth: usize,
    edit: Option<&EditLines>,
) -> SystemRun {
    let params = RetrieveParams {
        task: task.problem_statement.clone(),
        root: Some(tree.to_string_lossy().into_owned()),
        limit: Some(depth as _),
        max_cycles: Some(max_cycles as _),
        ..Default::default()
    };
    let history = crate::history::HistorySource::At {
        git_dir: git_dir.to_path_buf(),
        commit: task.base_commit.clone(),
    };
    let start = Instant::now();
    let result = engine.retrieve(
        params,
        &crate::request::CallOptions {
            weights: Some(weights),
            history: Some(&history),
            ..Default::default()
        },
    );
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match result {
        Ok(out) => {
            let (mut top, not_in_tree) =
                existing_files(tree, out.files.iter().map(|f| f.path.as_str()));
            top.truncate(depth);
            let answer = score_answer(&out.files, &top, &task.gold_files, edit);
            SystemRun {
                answer: Some(answer),
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
        Err(e) => SystemRun::failed(task.gold_files.len(), ms, e.to_string()),
    }
}

/// Tiers and snippets of an answer against the gold files and gold edit.
pub(super) fn score_answer(
    files: &[File],
    top: &[String],
    gold: &[String],
    edit: Option<&EditLines>,
) -> AnswerScore {
    let high: Vec<String> = files
        .iter()
        .filter(|f| f.tier == Tier::High)
        .map(|f| normalize_path(&f.path))
        .filter(|p| top.contains(p))
        .collect();
    let (high_gold, first_gold_high) = high_tier(top, &high, gold);
    // Returned snippet spans by file: with text, and left as handles.
    let mut shown = SnippetSpans::new();
    let mut handles = SnippetSpans::new();
    for f in files {
        let path = normalize_path(&f.path);
        for s in &f.snippets {
            let spans = if s.text.is_empty() {
                &mut handles
            } else {
                &mut shown
            };
            spans
                .entry(path.clone())
                .or_default()
                .push((s.start_line, s.end_line));
        }
    }
    let listed: HashSet<String> = files.iter().map(|f| normalize_path(&f.path)).collect();
    AnswerScore {
        high,
        high_gold,
        first_gold_high,
        gold_in_answer: gold.iter().filter(|g| shown.contains_key(*g)).count(),
        edit_lines: edit.map(|e| e.values().map(|l| l.len()).sum()),
        edit_covered: edit.map(|e| covered_lines(e, &shown)),
        edit_in_handles: edit.map(|e| covered_lines(e, &handles)),
        edit_in_listed_files: edit.map(|e| {
            e.iter()
                .filter(|(file, _)| listed.contains(*file))
                .map(|(_, lines)| lines.len())
                .sum()
        }),
    }
}

pub(super) fn run_bm25(index: &Bm25Index, task: &Task, depth: usize) -> SystemRun {
    let start = Instant::now();
    let top = index.search(&task.problem_statement, depth);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    SystemRun::ranked(gold_ranks(&top, &task.gold_files), top, ms)
}

/// The systems `args` asks for, in report order: the engine, its 1-cycle
/// variant, weight variants, BM25.
pub(super) fn systems_of(args: &BenchArgs) -> Result<Vec<System>> {
    let mut systems = vec![System::Engine {
        max_cycles: args.max_cycles,
        weights: None,
    }];
    if args.compare_cycles {
        // Every shorter loop, longest first: the per-cycle figures.
        for max_cycles in (1..args.max_cycles).rev() {
            systems.push(System::Engine {
                max_cycles,
                weights: None,
            });
        }
    }
    for spec in &args.weights {
        let (name, kv) = spec
            .split_once(':')
            .unwrap_or((spec.as_str(), spec.as_str()));
        let w = Weights::parse(kv).map_err(|e| anyhow::anyhow!("--weights {spec:?}: {e}"))?;
        systems.push(System::Engine {
            max_cycles: args.max_cycles,
            weights: Some((name.to_string(), Box::new(w))),
        });
    }
    if args.judge {
        for cycle in 1..=args.max_cycles {
            systems.push(System::Judged { cycle });
        }
    }
    if !args.no_bm25 {
        systems.push(System::Bm25);
        systems.push(System::Bm25Source);
    }
    Ok(systems)
}

/// Whether an untimed call reads each tree before its timed calls: with
/// `--warm`, and always when more than one engine row runs, so that
/// every engine row (cycle 1 and the full loop) is timed in the same,
/// warm, cache state.
pub(super) fn warms(args: &BenchArgs, systems: &[System]) -> bool {
    args.warm
        || systems
            .iter()
            .filter(|s| matches!(s, System::Engine { .. } | System::Judged { cycle: 1 }))
            .count()
            > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gold_edit_lines_are_split_into_shown_left_as_handles_unchosen_and_unlisted() {
        use crate::types::Snippet;
        let snippet = |start_line: usize, end_line: usize, text: &str| Snippet {
            start_line,
            end_line,
            text: text.into(),
        };
        let files = vec![File {
            path: "src/a.rs".into(),
            relevance: 0.9,
            tier: Tier::High,
            reasons: Vec::new(),
            // Lines 1-3 shown, 10-12 a handle the budget left without text.
            snippets: vec![snippet(1, 3, "a\nb\nc"), snippet(10, 12, "")],
        }];
        let mut edit = EditLines::new();
        // 2 shown, 11 in the handle, 20 in the file but in no snippet.
        edit.insert("src/a.rs".into(), [2, 11, 20].into_iter().collect());
        // Not listed at all.
        edit.insert("src/b.rs".into(), [5].into_iter().collect());
        let gold = vec!["src/a.rs".to_string(), "src/b.rs".to_string()];
        let top = vec!["src/a.rs".to_string()];
        let a = score_answer(&files, &top, &gold, Some(&edit));
        assert_eq!(a.edit_lines, Some(4));
        assert_eq!(a.edit_covered, Some(1));
        assert_eq!(a.edit_in_handles, Some(1));
        assert_eq!(a.edit_in_listed_files, Some(3));
        assert_eq!(a.gold_in_answer, 1);
    }

    #[test]
    fn both_engine_rows_are_timed_warm_so_their_times_compare() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            bench: BenchArgs,
        }
        let args = |extra: &[&str]| {
            let mut argv = vec!["bench", "--tasks", "t.jsonl"];
            argv.extend_from_slice(extra);
            Cli::parse_from(argv).bench
        };
        let a = args(&["--compare-cycles"]);
        assert!(warms(&a, &systems_of(&a).unwrap()));
        let a = args(&[]);
        assert!(!warms(&a, &systems_of(&a).unwrap()));
        let a = args(&["--warm"]);
        assert!(warms(&a, &systems_of(&a).unwrap()));
        // Both BM25 rows in every run, beside the engine.
        let labels = |flags: &[&str]| -> Vec<String> {
            systems_of(&args(flags))
                .unwrap()
                .iter()
                .map(System::label)
                .collect()
        };
        assert_eq!(
            labels(&["--compare-cycles"]),
            ["ctxloop/3c", "ctxloop/2c", "ctxloop/1c", "bm25", "bm25-src"]
        );
        assert_eq!(
            labels(&["--judge", "--no-bm25"]),
            ["ctxloop/3c", "sim-judge/1c", "sim-judge/2c", "sim-judge/3c"]
        );
    }
}
