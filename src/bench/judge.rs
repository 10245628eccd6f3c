//! The judged mode (`bench --judge`): the bench plays the calling agent of
//! the step-wise tools, with a simple judge standing in for an agent that
//! reads the files it is shown (issue 13 item 4).
//!
//! Per task, one session through the engine's step-wise API: `dispatch` the
//! task; then, each cycle, judge every file the agent was shown and has not
//! judged yet — the last `dispatch`'s candidates and the files of the last
//! `evaluate` answer (its best `depth`) — ([`JUDGE_GOLD`] if it is a gold
//! file, [`JUDGE_OTHER`] if not),
//! `evaluate` with those judgments, and, unless the decision is `finalize` or
//! the last cycle ran, `refine` and `dispatch` the next cycle. The judge only
//! judges files the engine returned: it never names a gold file it was not
//! shown, so a gold file reaches the answer only through the engine (its
//! scores, the gaps, the files linked to the files the judge confirmed).
//!
//! The session reads the task's repository's history up to its
//! `base_commit` (as the engine's rows do), so the files that change with
//! the ones the judge confirmed are linked too.
//!
//! The ranking of a cycle is the `evaluate` answer's files by relevance (the
//! session's best `limit`, with the snippets packed into the budget). These
//! rows are simulated (labelled `sim-judge/Nc`): they measure the loop's
//! design with a perfect reader, not autonomous ranking.

use super::edits::EditLines;
use super::metrics::gold_ranks;
use super::systems::{existing_files, score_answer, SystemRun};
use super::tasks::{normalize_path, Task};
use crate::engine::Engine;
use crate::request::{
    CallOptions, DispatchRequest, EvaluateRequest, Judgment, RefineRequest, RetrieveRequest,
};
use crate::types::{DecisionKind, File};
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// The judge's relevance for a gold file it was shown.
pub(super) const JUDGE_GOLD: f64 = 0.9;
/// The judge's relevance for any other file it was shown.
pub(super) const JUDGE_OTHER: f64 = 0.2;

/// The label of the judged row after `cycle` cycles.
pub(super) fn label(cycle: usize) -> String {
    format!("sim-judge/{cycle}c")
}

/// One judged session on `task`: one [`SystemRun`] per cycle `1..=max_cycles`
/// (after a `finalize`, the later cycles repeat the last answer); the
/// history is `git_dir`'s up to the task's `base_commit`. On an engine
/// error every cycle's run carries it.
pub(super) fn run_judged(
    engine: &Engine,
    task: &Task,
    tree: &Path,
    git_dir: &Path,
    max_cycles: usize,
    depth: usize,
    edit: Option<&EditLines>,
) -> Vec<SystemRun> {
    let start = Instant::now();
    match judged_cycles(engine, task, tree, git_dir, max_cycles, depth) {
        Ok(cycles) => {
            let mut runs: Vec<SystemRun> = Vec::new();
            for (i, (files, tokens, ms)) in cycles.iter().enumerate() {
                let (mut top, not_in_tree) =
                    existing_files(tree, files.iter().map(|f| f.path.as_str()));
                top.truncate(depth);
                runs.push(SystemRun {
                    answer: Some(score_answer(files, &top, &task.gold_files, edit)),
                    ranks: gold_ranks(&top, &task.gold_files),
                    top,
                    ms: *ms,
                    engine_ms: None,
                    tokens: Some(*tokens),
                    cycles: Some(i + 1),
                    stop_reason: None,
                    not_in_tree,
                    error: None,
                });
            }
            while runs.len() < max_cycles {
                let last = runs.last().cloned().expect("one cycle at least");
                runs.push(last);
            }
            runs
        }
        Err(e) => {
            let failed = SystemRun::failed(
                task.gold_files.len(),
                start.elapsed().as_secs_f64() * 1e3,
                e.to_string(),
            );
            vec![failed; max_cycles]
        }
    }
}

/// The judged cycles: each cycle's answer (files best first, at most
/// `depth`), its tokens and the wall time so far in ms.
fn judged_cycles(
    engine: &Engine,
    task: &Task,
    tree: &Path,
    git_dir: &Path,
    max_cycles: usize,
    depth: usize,
) -> crate::error::Result<Vec<(Vec<File>, usize, f64)>> {
    let start = Instant::now();
    let history = crate::history::HistorySource::At {
        git_dir: git_dir.to_path_buf(),
        commit: task.base_commit.clone(),
    };
    let mut d = engine.dispatch(
        DispatchRequest {
            session_id: None,
            start: RetrieveRequest {
                task: task.problem_statement.clone(),
                root: Some(tree.to_string_lossy().into_owned()),
                limit: Some(depth),
                max_cycles: Some(max_cycles),
                ..Default::default()
            },
        },
        &CallOptions {
            history: Some(&history),
            ..CallOptions::PLAIN
        },
    )?;
    let id = d.session_id.clone();
    let mut cycles: Vec<(Vec<File>, usize, f64)> = Vec::new();
    let mut judged: HashSet<String> = HashSet::new();
    loop {
        let last_answer = cycles.last().map(|c| c.0.as_slice()).unwrap_or_default();
        let judgments = judgments(&d.candidates, last_answer, &mut judged, &task.gold_files);
        let e = engine.evaluate(
            EvaluateRequest {
                session_id: id.clone(),
                judgments,
            },
            &CallOptions::PLAIN,
        )?;
        let mut files = e.evaluations;
        files.truncate(depth);
        cycles.push((files, e.tokens, start.elapsed().as_secs_f64() * 1e3));
        if e.decision == DecisionKind::Finalize || cycles.len() >= max_cycles {
            break;
        }
        let r = engine.refine(
            RefineRequest {
                session_id: id.clone(),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )?;
        if r.done {
            break;
        }
        d = engine.dispatch(
            DispatchRequest {
                session_id: Some(id.clone()),
                start: RetrieveRequest::default(),
            },
            &CallOptions::PLAIN,
        )?;
    }
    Ok(cycles)
}

/// The judgments of one cycle: every file the agent was shown and has not
/// judged yet (`judged`, which this extends), this dispatch's `candidates`
/// first, then the files of the last `evaluate` answer (it read both), each
/// once, by [`judge`].
fn judgments(
    candidates: &[File],
    last_answer: &[File],
    judged: &mut HashSet<String>,
    gold: &[String],
) -> Vec<Judgment> {
    candidates
        .iter()
        .chain(last_answer)
        .filter(|f| judged.insert(f.path.clone()))
        .map(|f| Judgment {
            path: f.path.clone(),
            relevance: judge(&f.path, gold),
            missing_context: None,
        })
        .collect()
}

/// The judge: [`JUDGE_GOLD`] for a gold file, [`JUDGE_OTHER`] for any other.
fn judge(path: &str, gold: &[String]) -> f64 {
    let p = normalize_path(path);
    if gold.contains(&p) {
        JUDGE_GOLD
    } else {
        JUDGE_OTHER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge_marks_gold_files_high_and_the_rest_low() {
        let gold = vec!["src/a.rs".to_string()];
        assert_eq!(judge("src/a.rs", &gold), JUDGE_GOLD);
        assert_eq!(judge("./src/a.rs", &gold), JUDGE_GOLD);
        assert_eq!(judge("src/b.rs", &gold), JUDGE_OTHER);
    }

    fn file(path: &str) -> File {
        File {
            path: path.into(),
            relevance: 0.5,
            tier: crate::types::Tier::Medium,
            reasons: Vec::new(),
            snippets: Vec::new(),
        }
    }

    #[test]
    fn the_judge_reads_the_answer_too_and_judges_each_file_once() {
        let gold = vec!["src/gold.rs".to_string(), "src/second.rs".to_string()];
        let mut judged = HashSet::new();
        // Cycle 1: only the dispatch's candidates were shown.
        let first = judgments(
            &[file("src/gold.rs"), file("src/other.rs")],
            &[],
            &mut judged,
            &gold,
        );
        let paths = |js: &[Judgment]| js.iter().map(|j| j.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&first), ["src/gold.rs", "src/other.rs"]);
        assert_eq!(first[0].relevance, JUDGE_GOLD);
        assert_eq!(first[1].relevance, JUDGE_OTHER);
        // Cycle 2: a gold file that reached the answer without being a
        // candidate is judged (the agent read the answer); files judged
        // before, in either list, are not judged again.
        let second = judgments(
            &[file("src/other.rs"), file("src/new.rs")],
            &[file("src/gold.rs"), file("src/second.rs")],
            &mut judged,
            &gold,
        );
        assert_eq!(paths(&second), ["src/new.rs", "src/second.rs"]);
        assert_eq!(second[1].relevance, JUDGE_GOLD);
    }
}
