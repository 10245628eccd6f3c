//! The run driver: one tree at a time, every system on each task.

use super::args::BenchArgs;
use super::bm25::Bm25Index;
use super::report::Report;
use super::repos::resolve_repos;
use super::systems::{existing_files, run_bm25, run_engine, System, SystemRun};
use super::tasks::{load_tasks, select_tasks, Task};
use super::trees::Trees;
use crate::engine::{Engine, EngineOptions};
use crate::score::Weights;
use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

/// A task and every system's answer.
#[derive(Debug, Serialize)]
pub(super) struct TaskResult {
    pub(super) instance_id: String,
    pub(super) repo: String,
    pub(super) base_commit: String,
    pub(super) mentions_gold_file: Option<bool>,
    pub(super) gold_files: Vec<String>,
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
    // extracted and indexed once and only one BM25 index is held in memory.
    for ((repo, commit), members) in &group_by_tree(&tasks) {
        driver.run_tree(&git_dirs[repo], repo, commit, members);
    }
    driver.progress.finish_and_clear();
    let Driver {
        mut results,
        tree_infos,
        skipped,
        ..
    } = driver;
    results.sort_by_key(|(i, _)| *i);
    let results: Vec<TaskResult> = results.into_iter().map(|(_, r)| r).collect();

    let labels: Vec<String> = systems.iter().map(System::label).collect();
    let report = Report::new(args, &cutoffs, labels, results, tree_infos, skipped);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut stdout, &report)?;
        writeln!(stdout)?;
    } else {
        stdout.write_all(report.table(&cutoffs).as_bytes())?;
        if args.timing {
            stdout.write_all(report.timing_table().as_bytes())?;
        }
    }
    stdout.flush()?;
    Ok(())
}

/// The systems `args` asks for, in report order: the engine, its 1-cycle
/// variant, weight variants, BM25.
fn systems_of(args: &BenchArgs) -> Result<Vec<System>> {
    let mut systems = vec![System::Engine {
        max_cycles: args.max_cycles,
        weights: None,
    }];
    if args.compare_cycles && args.max_cycles != 1 {
        systems.push(System::Engine {
            max_cycles: 1,
            weights: None,
        });
    }
    for spec in &args.weights {
        let (name, kv) = spec
            .split_once(':')
            .unwrap_or((spec.as_str(), spec.as_str()));
        let w = Weights::parse(kv).map_err(|e| anyhow::anyhow!("--weights {spec:?}: {e}"))?;
        systems.push(System::Engine {
            max_cycles: args.max_cycles,
            weights: Some((name.to_string(), w)),
        });
    }
    if !args.no_bm25 {
        systems.push(System::Bm25);
    }
    Ok(systems)
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
    progress: ProgressBar,
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
        let progress = ProgressBar::new(tasks.len() as u64);
        progress.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} ({eta} left) {msg}",
            )
            .expect("valid progress template")
            .progress_chars("=> "),
        );
        Driver {
            args,
            cutoffs,
            tasks,
            systems,
            trees: Trees {
                root: args.trees.clone(),
            },
            engine: Engine::new(EngineOptions::default()),
            progress,
            results: Vec::new(),
            tree_infos: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn warn(&self, msg: String) {
        self.progress.suspend(|| eprintln!("warning: {msg}"));
    }

    /// Materializes one tree, indexes it for BM25 and runs its tasks.
    fn run_tree(&mut self, git_dir: &Path, repo: &str, commit: &str, members: &[usize]) {
        let short = &commit[..commit.len().min(10)];
        self.progress
            .set_message(format!("extracting {repo}@{short}"));
        let start = Instant::now();
        let (tree, extracted) = match self.trees.materialize(git_dir, repo, commit) {
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
                    self.progress.inc(1);
                }
                return;
            }
        };
        let extract_ms = start.elapsed().as_secs_f64() * 1e3;
        self.progress
            .set_message(format!("indexing {repo}@{short} for BM25"));
        let start = Instant::now();
        let index = Bm25Index::build(&tree, &self.args.bm25_ext);
        self.tree_infos.push(TreeInfo {
            repo: repo.to_string(),
            commit: commit.to_string(),
            path: tree.display().to_string(),
            extracted,
            extract_ms,
            bm25_files: index.len(),
            bm25_build_ms: start.elapsed().as_secs_f64() * 1e3,
            cold_ms: None,
            warm_ms: None,
        });
        if let Some(&first) = members.first() {
            self.probe_and_warm(&tree, repo, short, first);
        }
        for &i in members {
            self.run_task(i, &tree, short, &index);
        }
    }

    /// With `--timing`, a cold and a warm call on a fresh engine; with
    /// `--warm`, an untimed call on the run's engine.
    fn probe_and_warm(&mut self, tree: &Path, repo: &str, short: &str, first: usize) {
        let (args, depth) = (self.args, self.cutoffs.depth);
        if args.timing {
            self.progress
                .set_message(format!("cold and warm call on {repo}@{short}"));
            // A fresh engine has an empty file cache: its first call is cold.
            let probe = Engine::new(Default::default());
            let task = &self.tasks[first];
            let run = |e: &Engine| {
                run_engine(e, task, tree, args.max_cycles, &Weights::default(), depth).ms
            };
            let cold = run(&probe);
            let warm = run(&probe);
            if let Some(info) = self.tree_infos.last_mut() {
                info.cold_ms = Some(cold);
                info.warm_ms = Some(warm);
            }
        }
        if args.warm {
            self.progress
                .set_message(format!("warming the engine on {repo}@{short}"));
            // Only the cache matters here; an error shows again in the timed call.
            let _ = run_engine(
                &self.engine,
                &self.tasks[first],
                tree,
                1,
                &Weights::default(),
                depth,
            );
        }
    }

    /// Every system on task `i`.
    fn run_task(&mut self, i: usize, tree: &Path, short: &str, index: &Bm25Index) {
        let task = &self.tasks[i];
        self.progress.set_message(task.instance_id.clone());
        let (_, gold_not_in_tree) =
            existing_files(tree, task.gold_files.iter().map(String::as_str));
        if task.gold_files.is_empty() {
            self.warn(format!("{}: no gold files; skipped", task.instance_id));
            self.skipped.push(Skipped {
                instance_id: task.instance_id.clone(),
                reason: "no gold files".into(),
            });
            self.progress.inc(1);
            return;
        }
        if !gold_not_in_tree.is_empty() {
            self.warn(format!(
                "{}: gold file(s) not in the tree at {short}: {} (counted as misses)",
                task.instance_id,
                gold_not_in_tree.join(", ")
            ));
        }
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
                    *max_cycles,
                    weights.as_ref().map_or(&Weights::default(), |(_, w)| w),
                    self.cutoffs.depth,
                ),
                System::Bm25 => run_bm25(index, task, self.cutoffs.depth),
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
        let gold_ranks = runs
            .iter()
            .map(|(label, run)| {
                let by_file = task
                    .gold_files
                    .iter()
                    .cloned()
                    .zip(run.ranks.iter().copied())
                    .collect();
                (label.clone(), by_file)
            })
            .collect();
        self.results.push((
            i,
            TaskResult {
                instance_id: task.instance_id.clone(),
                repo: task.repo.clone(),
                base_commit: task.base_commit.clone(),
                mentions_gold_file: task.mentions_gold_file,
                gold_files: task.gold_files.clone(),
                gold_not_in_tree,
                gold_ranks,
                runs,
            },
        ));
        self.progress.inc(1);
    }
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
