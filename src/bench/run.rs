//! The run driver: one tree at a time, every system on each task.

use super::args::BenchArgs;
use super::bm25::{Bm25Files, Bm25Index};
use super::edits::{gold_edit, EditLines, GoldEdit};
use super::judge::run_judged;
use super::progress::Progress;
use super::report::Report;
use super::repos::resolve_repos;
use super::results::{Cutoffs, Skipped, TaskResult, TreeInfo};
use super::systems::{existing_files, run_bm25, run_engine, systems_of, warms, System, SystemRun};
use super::tasks::{load_tasks, select_tasks, Task};
use super::trees::Trees;
use crate::engine::{Engine, EngineOptions};
use crate::score::Weights;
use anyhow::{bail, Result};
use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// Runs the benchmark described by `args` and prints the report on stdout.
pub fn run(args: &BenchArgs) -> Result<()> {
    if args.max_cycles == 0 {
        bail!("--max-cycles must be at least 1");
    }
    let cutoffs = Cutoffs::new(&args.k)?;
    let tasks = select_tasks(
        load_tasks(&args.tasks)?,
        args.filter.as_deref(),
        args.limit_tasks,
    );
    if tasks.is_empty() {
        bail!("no task selected: check --tasks, --filter and --limit-tasks");
    }
    let git_dirs = resolve_repos(args, &tasks)?;
    let systems = systems_of(args)?;
    let mut driver = Driver::new(args, &cutoffs, &tasks, &systems);
    // One tree at a time (in order of first appearance), so each tree is
    // extracted and indexed once and only its BM25 indexes are held in memory.
    for ((repo, commit), members) in &group_by_tree(&tasks) {
        driver.run_tree(&git_dirs[repo], repo, commit, members);
    }
    driver.progress.finish();
    let Driver {
        mut results,
        tree_infos,
        skipped,
        ..
    } = driver;
    results.sort_by_key(|(i, _)| *i);
    let results: Vec<TaskResult> = results.into_iter().map(|(_, r)| r).collect();
    // A table of `n 0` and `-0.0` with exit status 0 read as a run that
    // measured something (probe of session 37).
    if results.is_empty() {
        let reasons: Vec<String> = skipped
            .iter()
            .take(3)
            .map(|s| format!("{}: {}", s.instance_id, s.reason))
            .collect();
        bail!(
            "no task could be run: all {} selected were skipped ({}{}); fix those tasks \
             (gold_files, base_commit, repo) or select others",
            skipped.len(),
            reasons.join("; "),
            if skipped.len() > 3 { "; …" } else { "" }
        );
    }

    let labels: Vec<String> = systems.iter().map(System::label).collect();
    let report = Report::new(
        args,
        &cutoffs,
        labels,
        warms(args, &systems),
        results,
        tree_infos,
        skipped,
    );
    let mut stdout = crate::cli::stdout();
    if args.json {
        serde_json::to_writer_pretty(&mut stdout, &report)?;
        writeln!(stdout)?;
    } else {
        stdout.write_all(report.table(&cutoffs).as_bytes())?;
        stdout.write_all(report.answer_table().as_bytes())?;
        if args.timing {
            stdout.write_all(report.timing_table().as_bytes())?;
        }
    }
    stdout.flush()?;
    Ok(())
}

/// Task indices grouped by `(repo, base_commit)`, groups in order of first appearance.
type TreeGroups = Vec<((String, String), Vec<usize>)>;

fn group_by_tree(tasks: &[Task]) -> TreeGroups {
    let mut groups: TreeGroups = Vec::new();
    let mut group_of: HashMap<(String, String), usize> = HashMap::new();
    for (i, t) in tasks.iter().enumerate() {
        let key = (t.repo.clone(), t.base_commit.clone());
        let g = *group_of.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    groups
}

/// The state of one run: what it measures and what it has measured so far.
struct Driver<'a> {
    args: &'a BenchArgs,
    cutoffs: &'a Cutoffs,
    tasks: &'a [Task],
    systems: &'a [System],
    trees: Trees,
    /// One engine for the whole run: its file cache is keyed by (path, size, mtime).
    engine: Engine,
    progress: Progress,
    results: Vec<(usize, TaskResult)>,
    tree_infos: Vec<TreeInfo>,
    skipped: Vec<Skipped>,
}

impl<'a> Driver<'a> {
    fn new(
        args: &'a BenchArgs,
        cutoffs: &'a Cutoffs,
        tasks: &'a [Task],
        systems: &'a [System],
    ) -> Self {
        Driver {
            args,
            cutoffs,
            tasks,
            systems,
            trees: Trees {
                root: args.trees.clone(),
            },
            // One engine for the whole run: its file cache is keyed by (path,
            // size, mtime, ctime, inode). The trees sit where the user chose
            // (by default under target/, which git ignores): each is searched
            // as the root it is, like `retrieve --allow-hidden-root`.
            engine: Engine::new(EngineOptions {
                allow_hidden_root: true,
                ..Default::default()
            }),
            progress: Progress::new(tasks.len()),
            results: Vec::new(),
            tree_infos: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn warn(&self, msg: String) {
        self.progress.warn(&msg);
    }

    /// Materializes one tree, indexes it for BM25 and runs its tasks.
    fn run_tree(&mut self, git_dir: &Path, repo: &str, commit: &str, members: &[usize]) {
        let short = &commit[..commit.len().min(10)];
        self.progress.message(format!("extracting {repo}@{short}"));
        let start = Instant::now();
        let tree = match self.trees.materialize(git_dir, repo, commit) {
            Ok(t) => t,
            Err(e) => {
                self.warn(format!(
                    "{repo}@{short}: {e:#}; skipping its {} task(s)",
                    members.len()
                ));
                for &i in members {
                    self.skipped.push(Skipped {
                        instance_id: self.tasks[i].instance_id.clone(),
                        reason: format!("{e:#}"),
                    });
                    self.tick();
                }
                return;
            }
        };
        if !tree.absent.is_empty() && tree.extracted {
            self.warn(format!(
                "{repo}@{short}: extracted without {} file(s) whose blob the repository lacks: {}",
                tree.absent.len(),
                tree.absent.join(", ")
            ));
        }
        let extract_ms = start.elapsed().as_secs_f64() * 1e3;
        self.progress
            .message(format!("indexing {repo}@{short} for BM25"));
        let start = Instant::now();
        let all = Bm25Index::build(
            &tree.dir,
            &Bm25Files::All {
                extensions: self.args.bm25_ext.clone(),
            },
        );
        let bm25_build_ms = start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let source = Bm25Index::build(&tree.dir, &Bm25Files::Source);
        self.tree_infos.push(TreeInfo {
            repo: repo.to_string(),
            commit: commit.to_string(),
            path: tree.dir.display().to_string(),
            extracted: tree.extracted,
            extract_ms,
            bm25_files: all.len(),
            bm25_build_ms,
            bm25_src_files: source.len(),
            bm25_src_build_ms: start.elapsed().as_secs_f64() * 1e3,
            absent_files: tree.absent.clone(),
            cold_ms: None,
            warm_ms: None,
        });
        if let Some(&first) = members.first() {
            self.probe_and_warm(&tree.dir, git_dir, repo, short, first);
        }
        let ctx = TreeRun {
            git_dir,
            tree: &tree.dir,
            short,
            all: &all,
            source: &source,
        };
        for &i in members {
            self.run_task(i, &ctx);
        }
        if self.args.remove_trees && tree.extracted {
            if let Err(e) = std::fs::remove_dir_all(&tree.dir) {
                self.warn(format!("cannot remove {}: {e}", tree.dir.display()));
            }
        }
    }

    /// Whether an untimed call reads each tree before its timed calls: with
    /// `--warm`, and always when more than one engine row runs, so that
    /// every engine row (cycle 1 and the full loop) is timed in the same,
    /// warm, cache state.
    fn warms(&self) -> bool {
        warms(self.args, self.systems)
    }

    /// With `--timing`, a cold and a warm call on a fresh engine; when
    /// [`Driver::warms`], an untimed call on the run's engine.
    fn probe_and_warm(
        &mut self,
        tree: &Path,
        git_dir: &Path,
        repo: &str,
        short: &str,
        first: usize,
    ) {
        let (args, depth) = (self.args, self.cutoffs.depth);
        if args.timing {
            self.progress
                .message(format!("cold and warm call on {repo}@{short}"));
            // A fresh engine has an empty file cache: its first call is cold.
            let probe = Engine::new(Default::default());
            let task = &self.tasks[first];
            let run = |e: &Engine| {
                run_engine(
                    e,
                    task,
                    tree,
                    git_dir,
                    args.max_cycles,
                    &Weights::default(),
                    depth,
                    None,
                )
                .ms
            };
            let cold = run(&probe);
            let warm = run(&probe);
            if let Some(info) = self.tree_infos.last_mut() {
                info.cold_ms = Some(cold);
                info.warm_ms = Some(warm);
            }
        }
        if self.warms() {
            self.progress
                .message(format!("warming the engine on {repo}@{short}"));
            // Only the cache matters here; an error shows again in the timed call.
            let _ = run_engine(
                &self.engine,
                &self.tasks[first],
                tree,
                git_dir,
                1,
                &Weights::default(),
                depth,
                None,
            );
        }
    }

    /// One task done (run or skipped).
    fn tick(&mut self) {
        self.progress.tick();
    }

    /// Every system on task `i`.
    fn run_task(&mut self, i: usize, ctx: &TreeRun) {
        let (tree, short) = (ctx.tree, ctx.short);
        let task = &self.tasks[i];
        self.progress.message(task.instance_id.clone());
        let (_, gold_not_in_tree) =
            existing_files(tree, task.gold_files.iter().map(String::as_str));
        if task.gold_files.is_empty() {
            self.warn(format!("{}: no gold files; skipped", task.instance_id));
            self.skipped.push(Skipped {
                instance_id: task.instance_id.clone(),
                reason: "no gold files".into(),
            });
            self.tick();
            return;
        }
        if !gold_not_in_tree.is_empty() {
            self.warn(format!(
                "{}: gold file(s) not in the tree at {short}: {} (counted as misses)",
                task.instance_id,
                gold_not_in_tree.join(", ")
            ));
        }
        let gold_edit = self.gold_edit_or_warn(task, ctx);
        let runs = self.run_systems(task, ctx, gold_edit.as_ref().map(|e| &e.lines));
        let gold_ranks = gold_ranks(task, &runs);
        self.results.push((
            i,
            TaskResult {
                instance_id: task.instance_id.clone(),
                repo: task.repo.clone(),
                base_commit: task.base_commit.clone(),
                mentions_gold_file: task.mentions_gold_file,
                language: task.language_group(),
                gold_files: task.gold_files.clone(),
                gold_edit,
                gold_not_in_tree,
                gold_ranks,
                runs,
            },
        ));
        self.tick();
    }

    /// Ground truth for edit recall, from the repository (never the engine's
    /// input); `None`, with a warning, when it cannot be had.
    fn gold_edit_or_warn(&self, task: &Task, ctx: &TreeRun) -> Option<GoldEdit> {
        match gold_edit(task, ctx.git_dir, ctx.tree) {
            Ok(e) => e,
            Err(e) => {
                self.warn(format!(
                    "{}: no gold edit for edit recall: {e:#}",
                    task.instance_id
                ));
                None
            }
        }
    }

    /// Each system's run of `task` on the tree, by label.
    fn run_systems(
        &self,
        task: &Task,
        ctx: &TreeRun,
        edit_lines: Option<&EditLines>,
    ) -> BTreeMap<String, SystemRun> {
        let tree = ctx.tree;
        let mut runs = BTreeMap::new();
        for system in self.systems {
            let run = match system {
                System::Engine {
                    max_cycles,
                    weights,
                } => run_engine(
                    &self.engine,
                    task,
                    tree,
                    ctx.git_dir,
                    *max_cycles,
                    weights.as_ref().map_or(&Weights::default(), |(_, w)| w),
                    self.cutoffs.depth,
                    edit_lines,
                ),
                System::Bm25 => run_bm25(ctx.all, task, self.cutoffs.depth),
                System::Bm25Source => run_bm25(ctx.source, task, self.cutoffs.depth),
                // One judged session gives every cycle's row.
                System::Judged { cycle: 1 } => {
                    let per_cycle = run_judged(
                        &self.engine,
                        task,
                        tree,
                        ctx.git_dir,
                        self.args.max_cycles,
                        self.cutoffs.depth,
                        edit_lines,
                    );
                    let mut per_cycle = per_cycle.into_iter().enumerate();
                    let (_, first) = per_cycle.next().expect("one cycle at least");
                    for (i, run) in per_cycle {
                        runs.insert(super::judge::label(i + 1), run);
                    }
                    first
                }
                System::Judged { .. } => continue,
            };
            if let Some(e) = &run.error {
                self.warn(format!(
                    "{} ({}): engine error: {e}",
                    task.instance_id,
                    system.label()
                ));
            }
            runs.insert(system.label(), run);
        }
        runs
    }
}

/// Each system's rank of each gold file (by label, then gold path).
fn gold_ranks(
    task: &Task,
    runs: &BTreeMap<String, SystemRun>,
) -> BTreeMap<String, BTreeMap<String, Option<usize>>> {
    runs.iter()
        .map(|(label, run)| {
            let by_file = task
                .gold_files
                .iter()
                .cloned()
                .zip(run.ranks.iter().copied())
                .collect();
            (label.clone(), by_file)
        })
        .collect()
}

/// One tree's inputs to its tasks.
struct TreeRun<'t> {
    git_dir: &'t Path,
    tree: &'t Path,
    short: &'t str,
    /// BM25 over every text file, and over non-test source files.
    all: &'t Bm25Index,
    source: &'t Bm25Index,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_always_rank_deep_enough_for_recall_at_10() {
        let c = Cutoffs::new(&[5, 1, 5]).unwrap();
        assert_eq!(c.acc, vec![1, 5]);
        assert_eq!(c.recall, vec![1, 5, 10]);
        assert_eq!(c.depth, 10);
        assert_eq!(Cutoffs::new(&[20]).unwrap().depth, 20);
        assert!(Cutoffs::new(&[0, 5]).is_err());
    }
}
