//! The report: summaries by slice, the table and the JSON document.

use super::args::BenchArgs;
use super::metrics::{median, Summary};
use super::results::{Cutoffs, Skipped, TaskResult, TreeInfo};
use super::systems::SystemRun;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

#[derive(Debug, Serialize)]
pub(super) struct ReportConfig {
    pub(super) task_files: Vec<String>,
    pub(super) k: Vec<usize>,
    /// Files ranked per task (and per system); MRR is over this depth.
    pub(super) depth: usize,
    pub(super) max_cycles: usize,
    pub(super) compare_cycles: bool,
    /// An untimed call read each tree before the timed ones (`--warm`, or
    /// more than one engine row).
    pub(super) warm: bool,
    pub(super) filter: Option<String>,
    pub(super) limit_tasks: Option<usize>,
    pub(super) bm25: &'static str,
    /// Extensions the BM25 baseline indexes (empty = every text file).
    pub(super) bm25_ext: Vec<String>,
}

/// Summaries of every system over one slice of the tasks.
pub(super) type SliceSummary = BTreeMap<String, Summary>;

#[derive(Debug, Serialize)]
pub(super) struct Summaries {
    pub(super) overall: SliceSummary,
    pub(super) by_repo: BTreeMap<String, SliceSummary>,
    /// Language group of each task ([`super::tasks::Task::language_group`]).
    pub(super) by_language: BTreeMap<String, SliceSummary>,
    /// Keys `true`, `false`, `unknown` (the field is absent, e.g. the Rust set).
    pub(super) by_mentions_gold_file: BTreeMap<String, SliceSummary>,
    /// Keys `1` (single-file tasks) and `>=2` (multi-file tasks: the slice
    /// the later cycles are for).
    #[serde(default)]
    pub(super) by_gold_files: BTreeMap<String, SliceSummary>,
}

impl Summaries {
    /// The summaries of `systems` over every slice of `tasks`.
    fn of(systems: &[String], tasks: &[TaskResult], cutoffs: &Cutoffs) -> Summaries {
        let slice = |filter: &dyn Fn(&TaskResult) -> bool| -> SliceSummary {
            systems
                .iter()
                .map(|s| {
                    let runs: Vec<&SystemRun> = tasks
                        .iter()
                        .filter(|t| filter(t))
                        .map(|t| &t.runs[s])
                        .collect();
                    (s.clone(), Summary::of(&runs, &cutoffs.acc, &cutoffs.recall))
                })
                .collect()
        };
        // One slice per value of `key` among the tasks, in key order.
        let by = |key: &dyn Fn(&TaskResult) -> &str| -> BTreeMap<String, SliceSummary> {
            let keys: BTreeSet<&str> = tasks.iter().map(key).collect();
            keys.into_iter()
                .map(|k| (k.to_string(), slice(&|t| key(t) == k)))
                .collect()
        };
        Summaries {
            overall: slice(&|_| true),
            by_repo: by(&|t| t.repo.as_str()),
            by_language: by(&|t| t.language.as_str()),
            by_mentions_gold_file: by(&|t| mentions_key(t.mentions_gold_file)),
            by_gold_files: by(&|t| gold_files_key(t.gold_files.len())),
        }
    }
}

/// The key of a task's slice by its number of gold files.
pub(super) fn gold_files_key(n: usize) -> &'static str {
    if n >= 2 {
        ">=2"
    } else {
        "1"
    }
}

#[derive(Debug, Serialize)]
pub(super) struct Report {
    pub(super) config: ReportConfig,
    pub(super) systems: Vec<String>,
    pub(super) summary: Summaries,
    pub(super) skipped: Vec<Skipped>,
    pub(super) trees: Vec<TreeInfo>,
    pub(super) tasks: Vec<TaskResult>,
    /// Peak resident memory of the bench process (VmHWM, Linux), in bytes.
    pub(super) peak_rss_bytes: Option<u64>,
}

/// The process's peak resident set size (`VmHWM` of /proc/self/status), in bytes.
pub(super) fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

pub(super) const BM25_DESCRIPTION: &str =
    "bm25 crate 2.3 (Embedder + Scorer), k1=1.2 b=0.75, whole files, lowercase alphanumeric/_ tokens, no stemming, no stopwords";

pub(super) fn mentions_key(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    }
}

impl Report {
    pub(super) fn new(
        args: &BenchArgs,
        cutoffs: &Cutoffs,
        systems: Vec<String>,
        warm: bool,
        tasks: Vec<TaskResult>,
        trees: Vec<TreeInfo>,
        skipped: Vec<Skipped>,
    ) -> Report {
        let summary = Summaries::of(&systems, &tasks, cutoffs);
        Report {
            config: ReportConfig {
                task_files: args.tasks.iter().map(|p| p.display().to_string()).collect(),
                k: cutoffs.acc.clone(),
                depth: cutoffs.depth,
                max_cycles: args.max_cycles,
                compare_cycles: args.compare_cycles,
                warm,
                filter: args.filter.clone(),
                limit_tasks: args.limit_tasks,
                bm25: BM25_DESCRIPTION,
                bm25_ext: args.bm25_ext.clone(),
            },
            systems,
            summary,
            skipped,
            trees,
            tasks,
            peak_rss_bytes: peak_rss_bytes(),
        }
    }

    /// The compact side-by-side table.
    pub(super) fn table(&self, cutoffs: &Cutoffs) -> String {
        let mut header: Vec<String> = vec!["slice".into(), "system".into(), "n".into()];
        header.extend(cutoffs.acc.iter().map(|k| format!("Acc@{k}")));
        header.extend(
            ["R@5", "R@10", "MRR", "med ms", "p95 ms", "tokens", "cycles"].map(String::from),
        );

        let mut rows: Vec<Vec<String>> = Vec::new();
        let add_slice = |name: String, summaries: &SliceSummary, rows: &mut Vec<Vec<String>>| {
            for (i, system) in self.systems.iter().enumerate() {
                let s = &summaries[system];
                let mut row = vec![
                    if i == 0 { name.clone() } else { String::new() },
                    system.clone(),
                ];
                row.push(s.tasks.to_string());
                row.extend(cutoffs.acc.iter().map(|k| format!("{:.1}", s.acc_pct[k])));
                row.push(format!("{:.1}", s.recall_pct[&5]));
                row.push(format!("{:.1}", s.recall_pct[&10]));
                row.push(format!("{:.3}", s.mrr));
                row.push(format_ms(s.median_ms));
                row.push(format_ms(s.p95_ms));
                row.push(s.mean_tokens.map_or("-".into(), |t| format!("{t:.0}")));
                row.push(s.mean_cycles.map_or("-".into(), |c| format!("{c:.2}")));
                rows.push(row);
            }
        };
        add_slice("all".into(), &self.summary.overall, &mut rows);
        for (repo, s) in &self.summary.by_repo {
            add_slice(repo.clone(), s, &mut rows);
        }
        for (language, s) in &self.summary.by_language {
            add_slice(format!("lang={language}"), s, &mut rows);
        }
        for (m, s) in &self.summary.by_mentions_gold_file {
            add_slice(format!("mentions={m}"), s, &mut rows);
        }
        for (g, s) in &self.summary.by_gold_files {
            add_slice(
                format!("gold{}", if g == "1" { "=1" } else { g }),
                s,
                &mut rows,
            );
        }

        let n_tasks = self.tasks.len();
        let mut out = String::new();
        let _ =
            writeln!(
            out,
            "ctxloop bench: {n_tasks} tasks on {} trees, ranking depth {}, engine max_cycles {}{}",
            self.trees.len(),
            self.config.depth,
            self.config.max_cycles,
            if self.config.warm { ", warm engine" } else { "" }
        );
        out.push_str(&align(&header, &rows, 2));
        self.table_notes(&mut out);
        out
    }

    /// The lines under the table: definitions, the baseline, times, errors, skips.
    fn table_notes(&self, out: &mut String) {
        let _ = writeln!(out);
        let _ = writeln!(out, "Acc@k, R@k in %: all gold files in the top k / share of gold files in the top k; MRR over the top {}. gold=1, gold>=2: tasks with one gold file, with several.", self.config.depth);
        if self.systems.iter().any(|s| s.starts_with("sim-judge/")) {
            let _ = writeln!(out, "sim-judge/Nc rows are SIMULATED: the bench plays the agent of the step-wise tools (dispatch, evaluate, refine), judging every file a dispatch returned 0.9 if it is a gold file and 0.2 if not (never a file it was not shown), after N cycles; they measure the loop's design with a perfect reader, not autonomous ranking. Its time is the whole session's; its tokens are the last evaluate's.");
        }
        let _ = writeln!(
            out,
            "bm25: {BM25_DESCRIPTION}; files: {}. bm25-src: the same over non-test source files only (the language table's extensions; no test, spec, docs, example, benchmark or vendored paths).",
            if self.config.bm25_ext.is_empty() {
                "every text file".to_string()
            } else {
                format!("*.{{{}}} only", self.config.bm25_ext.join(","))
            }
        );
        let builds: Vec<f64> = self.trees.iter().map(|t| t.bm25_build_ms).collect();
        let _ = writeln!(
            out,
            "Times: ctxloop = wall time of retrieve() ({}); bm25 = query only, its index build took median {} ms per tree.",
            if self.config.warm { "warm: an untimed call read each tree first, so every engine row is timed in the same cache state" } else { "a tree's first call reads it cold" },
            format_ms(median(&builds))
        );
        if let Some(line) = self.ratio_line() {
            let _ = writeln!(out, "{line}");
        }
        let errors: usize = self.summary.overall.values().map(|s| s.errors).sum();
        if errors > 0 {
            let _ = writeln!(
                out,
                "{errors} engine call(s) failed and count as misses (see the warnings on stderr)."
            );
        }
        let absent: Vec<String> = self
            .trees
            .iter()
            .filter(|t| !t.absent_files.is_empty())
            .map(|t| {
                format!(
                    "{}@{}: {}",
                    t.repo,
                    &t.commit[..t.commit.len().min(10)],
                    t.absent_files.join(", ")
                )
            })
            .collect();
        if !absent.is_empty() {
            let _ = writeln!(
                out,
                "{} tree(s) extracted without files whose blob the repository lacks: {}",
                absent.len(),
                absent.join("; ")
            );
        }
        if !self.skipped.is_empty() {
            let _ = writeln!(
                out,
                "{} task(s) skipped: {}",
                self.skipped.len(),
                self.skipped
                    .iter()
                    .map(|s| s.instance_id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    /// `ctxloop/3c vs bm25-src: Acc@5 80.0 vs 51.0 (x1.57)`, at k=5 when
    /// measured, against the stronger BM25 row at that k.
    pub(super) fn ratio_line(&self) -> Option<String> {
        let engine = self.summary.overall.get(self.systems.first()?)?;
        let k = if engine.acc_pct.contains_key(&5) {
            5
        } else {
            *engine.acc_pct.keys().last()?
        };
        let (name, bm25) = ["bm25", "bm25-src"]
            .iter()
            .filter_map(|n| Some((*n, self.summary.overall.get(*n)?)))
            .max_by(|a, b| a.1.acc_pct[&k].total_cmp(&b.1.acc_pct[&k]))?;
        let (a, b) = (engine.acc_pct[&k], bm25.acc_pct[&k]);
        let ratio = if b > 0.0 {
            format!("x{:.2}", a / b)
        } else {
            "bm25 found none".into()
        };
        Some(format!(
            "{} vs {name} (the stronger BM25 at k={k}): Acc@{k} {a:.1} vs {b:.1} ({ratio}); MRR {:.3} vs {:.3}",
            self.systems[0], engine.mrr, bm25.mrr
        ))
    }

    /// Engine rows only: tiers against the gold (high-tier precision, first
    /// gold file high) and the answer against the gold edit (edit recall at
    /// the default budget, file-in-answer, tokens, edit recall per 1k tokens).
    pub(super) fn answer_table(&self) -> String {
        let header: Vec<String> = [
            "slice",
            "system",
            "n",
            "edit n",
            "EditR%",
            "InHandle%",
            "Unchosen%",
            "FileInAns%",
            "tokens",
            "EditR/1k",
            "high/task",
            "HighPrec%",
            "1stGoldHigh%",
        ]
        .map(String::from)
        .to_vec();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut add_slice = |name: String, summaries: &SliceSummary| {
            let mut first = true;
            for system in &self.systems {
                let Some(a) = summaries[system].answer.as_ref() else {
                    continue;
                };
                let opt =
                    |v: Option<f64>, prec: usize| v.map_or("-".into(), |v| format!("{v:.prec$}"));
                rows.push(vec![
                    if first { name.clone() } else { String::new() },
                    system.clone(),
                    a.tasks.to_string(),
                    a.edit_tasks.to_string(),
                    opt(a.edit_recall_pct, 1),
                    opt(a.edit_in_handles_pct, 1),
                    opt(a.edit_unchosen_pct, 1),
                    format!("{:.1}", a.file_in_answer_pct),
                    opt(a.edit_mean_tokens, 0),
                    opt(a.edit_recall_per_1k_tokens, 3),
                    format!("{:.2}", a.high_files as f64 / a.tasks.max(1) as f64),
                    opt(a.high_precision_pct, 1),
                    format!("{:.1}", a.first_gold_high_pct),
                ]);
                first = false;
            }
        };
        add_slice("all".into(), &self.summary.overall);
        for (language, s) in &self.summary.by_language {
            add_slice(format!("lang={language}"), s);
        }
        for (m, s) in &self.summary.by_mentions_gold_file {
            add_slice(format!("mentions={m}"), s);
        }
        for (g, s) in &self.summary.by_gold_files {
            add_slice(format!("gold{}", if g == "1" { "=1" } else { g }), s);
        }
        if rows.is_empty() {
            return String::new();
        }
        let mut out = String::from("\nThe answer (engine rows):\n");
        out.push_str(&align(&header, &rows, 2));
        out.push_str("EditR%: mean share of the gold edit's lines (git-history: old-side lines of base_commit..commit in the gold files; SWE-bench: the gold_functions' spans in the base tree; question sets: the rows' gold_lines ranges, first when present) inside the returned snippets with text, over the `edit n` tasks that have one; InHandle%: inside a snippet the budget left as a handle; Unchosen%: in a listed file but in no snippet (the rest, 100 - EditR - InHandle - Unchosen, is in files not listed); tokens: mean returned on those tasks; EditR/1k: 1000 x mean edit recall (0..1) / mean tokens. FileInAns%: mean share of gold files with a snippet in the answer. HighPrec%: share of `high` files that are gold (pooled); 1stGoldHigh%: tasks whose best-ranked gold file is `high`.\n");
        out
    }

    /// Per-task wall times (and first gold rank) of every system.
    pub(super) fn timing_table(&self) -> String {
        let mut header = vec!["task".to_string()];
        for s in &self.systems {
            header.push(format!("{s} ms"));
            header.push(format!("{s} rank"));
        }
        let rows: Vec<Vec<String>> = self
            .tasks
            .iter()
            .map(|t| {
                let mut row = vec![t.instance_id.clone()];
                for s in &self.systems {
                    let run = &t.runs[s];
                    row.push(format_ms(run.ms));
                    row.push(
                        run.ranks
                            .iter()
                            .flatten()
                            .min()
                            .map_or("-".into(), |r| r.to_string()),
                    );
                }
                row
            })
            .collect();
        let mut out = format!("\n{}", align(&header, &rows, 1));
        let speed: Vec<Vec<String>> = self
            .trees
            .iter()
            .filter_map(|t| {
                Some(vec![
                    format!("{}@{}", t.repo, &t.commit[..t.commit.len().min(8)]),
                    t.bm25_files.to_string(),
                    format_ms(t.cold_ms?),
                    format_ms(t.warm_ms?),
                ])
            })
            .collect();
        if !speed.is_empty() {
            let header = ["tree", "files", "cold ms", "warm ms"].map(String::from);
            out.push_str(&format!(
                "\nFirst task of each tree on a fresh engine: cold (empty file cache) then warm (same call again).\n{}",
                align(&header, &speed, 1)
            ));
        }
        if let Some(b) = self.peak_rss_bytes {
            out.push_str(&format!(
                "\nPeak memory of the bench process: {:.0} MiB\n",
                b as f64 / (1024.0 * 1024.0)
            ));
        }
        out
    }
}

pub(super) fn format_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// Text columns: the first `left` left-aligned, the rest right-aligned.
pub(super) fn align(header: &[String], rows: &[Vec<String>], left: usize) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            if i < left {
                let _ = write!(s, "{cell:<w$}");
            } else {
                let _ = write!(s, "{cell:>w$}");
            }
        }
        s.trim_end().to_string()
    };
    let mut out = line(header);
    out.push('\n');
    for row in rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}
