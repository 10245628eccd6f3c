//! `ctxloop bench`: the file-localization benchmark of DESIGN.md §5.
//!
//! A task is the text of an issue (or a commit message) and the files its fix
//! touched (the *gold* files). For every task the bench materializes the
//! repository at the task's base commit, asks the engine for a ranking (the
//! whole `retrieve` loop) and, on the same tree in the same run, a plain BM25
//! baseline; then it reports Acc@k, Recall@k, MRR, time, tokens and cycles,
//! overall, by repository and by whether the task text names a gold file.
//! The metric definitions are those of `bench/README.md` (LocAgent/SweRank):
//! see [`gold_ranks`], [`all_in_top_k`], [`recall_at_k`], [`reciprocal_rank`].
//!
//! Trees are cached under `--trees` as `owner+name/COMMIT/` and reused across
//! tasks and runs; a tree is extracted into a temporary sibling directory and
//! renamed into place, so an interrupted run never leaves a half tree behind.
//!
//! Output: a table (or `--json`) on stdout, progress and warnings on stderr.

use crate::engine::{Engine, EngineOptions};
use crate::score::Weights;
use crate::tools::retrieve::RetrieveParams;
use anyhow::{bail, Context, Result};
use bm25::{Embedder, EmbedderBuilder, Embedding, Scorer, Tokenizer};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::Instant;

/// Localization benchmark: rank each task's gold files with ctxloop and with a
/// plain BM25 baseline on the same trees; report Acc@k, Recall@k, MRR and time.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Task file in JSON Lines, one task per line with `instance_id`, `repo`
    /// ("owner/name"), `base_commit`, `problem_statement`, `gold_files` and
    /// optionally `mentions_gold_file`. Repeat to run several files together.
    #[arg(long = "tasks", value_name = "FILE.jsonl", required = true)]
    pub tasks: Vec<PathBuf>,

    /// Git directory of one repository, as `owner/name=GITDIR` (bare or a work
    /// tree). Repeatable; takes precedence over `--repos`.
    #[arg(long = "repo", value_name = "OWNER/NAME=GITDIR")]
    pub repo: Vec<RepoSpec>,

    /// Directory holding the repositories' git directories, named
    /// `owner+name/repo`, `owner+name`, `owner+name.git`, `owner/name`,
    /// `name` or `name.git` (tried in that order; see `resolve_git_dir`).
    #[arg(long = "repos", value_name = "DIR")]
    pub repos: Option<PathBuf>,

    /// Cache of materialized trees (`owner+name/COMMIT/`), reused across runs.
    #[arg(
        long = "trees",
        value_name = "DIR",
        default_value = "target/bench-trees"
    )]
    pub trees: PathBuf,

    /// Cut-offs for Acc@k, comma-separated. Files are ranked to depth
    /// max(k, 10), so Recall@5, Recall@10 and MRR are always reported.
    #[arg(
        long = "k",
        value_name = "K,...",
        value_delimiter = ',',
        default_value = "1,3,5,10"
    )]
    pub k: Vec<usize>,

    /// Run only the first N tasks (after `--filter`).
    #[arg(long = "limit-tasks", value_name = "N")]
    pub limit_tasks: Option<usize>,

    /// Run only tasks whose instance id contains this substring.
    #[arg(long = "filter", value_name = "SUBSTRING")]
    pub filter: Option<String>,

    /// `max_cycles` passed to the engine's `retrieve`.
    #[arg(long = "max-cycles", value_name = "N", default_value_t = 3)]
    pub max_cycles: usize,

    /// Also run the engine with `max_cycles = 1` and report both, to show what
    /// the later cycles add.
    #[arg(long = "compare-cycles")]
    pub compare_cycles: bool,

    /// Index only files with these extensions in the BM25 baseline
    /// (comma-separated, e.g. `py` for the SWE-bench-style baseline that ranks
    /// Python files only). Default: every text file, as the engine sees them.
    #[arg(long = "bm25-ext", value_name = "EXT,...", value_delimiter = ',')]
    pub bm25_ext: Vec<String>,

    /// Call the engine once (untimed) on each tree before its tasks, so the
    /// reported engine times are warm-cache (DESIGN.md §6's "tree unchanged
    /// since the previous call"). Without it each tree's first call is cold.
    #[arg(long = "warm")]
    pub warm: bool,

    /// Also run the engine with other scoring weights, as `NAME:key=value,...`
    /// (keys are the fields of `score::Weights`, e.g. `stem=3,definition=4`).
    /// Repeatable; each variant is reported as its own row, on the same trees.
    #[arg(long, value_name = "NAME:K=V,...")]
    pub weights: Vec<String>,

    /// Skip the BM25 baseline (for quick comparisons of engine variants only).
    #[arg(long)]
    pub no_bm25: bool,

    /// Print a JSON document (summaries plus per-task ranks of gold files)
    /// instead of the table.
    #[arg(long = "json")]
    pub json: bool,

    /// Also print each task's wall time per system (and its first gold rank).
    #[arg(long = "timing")]
    pub timing: bool,
}

/// `owner/name=GITDIR`: where one repository's git directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSpec {
    /// `owner/name`, as in the task files.
    pub repo: String,
    /// Bare git directory, or a work tree containing `.git`.
    pub git_dir: PathBuf,
}

impl FromStr for RepoSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (repo, dir) = s
            .split_once('=')
            .ok_or_else(|| format!("expected OWNER/NAME=GITDIR, got {s:?}"))?;
        if !is_owner_name(repo) {
            return Err(format!(
                "repository {repo:?} is not of the form owner/name (e.g. psf/requests=/path/to/requests.git)"
            ));
        }
        if dir.is_empty() {
            return Err(format!("no git directory after '=' in {s:?}"));
        }
        Ok(RepoSpec {
            repo: repo.to_string(),
            git_dir: PathBuf::from(dir),
        })
    }
}

fn is_owner_name(repo: &str) -> bool {
    let mut parts = repo.split('/');
    let ok = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p != "." && p != "..");
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

// ---------------------------------------------------------------------------
// Tasks

/// One line of a task file. Unknown fields (`sets`, `gold_functions`, ...) are ignored.
#[derive(Debug, Clone, Deserialize)]
struct Task {
    instance_id: String,
    repo: String,
    base_commit: String,
    problem_statement: String,
    gold_files: Vec<String>,
    #[serde(default)]
    mentions_gold_file: Option<bool>,
}

fn load_tasks(files: &[PathBuf]) -> Result<Vec<Task>> {
    let mut tasks = Vec::new();
    let mut seen = HashSet::new();
    for file in files {
        let reader = BufReader::new(
            std::fs::File::open(file)
                .with_context(|| format!("cannot open task file {}", file.display()))?,
        );
        for (i, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("cannot read {}", file.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let mut task: Task = serde_json::from_str(&line).with_context(|| {
                format!(
                    "{}:{}: not a task (see bench/README.md for the fields)",
                    file.display(),
                    i + 1
                )
            })?;
            if !is_owner_name(&task.repo) {
                bail!(
                    "{}:{}: repo {:?} is not of the form owner/name",
                    file.display(),
                    i + 1,
                    task.repo
                );
            }
            if !is_commit_id(&task.base_commit) {
                bail!(
                    "{}:{}: base_commit {:?} is not a hex commit id",
                    file.display(),
                    i + 1,
                    task.base_commit
                );
            }
            task.gold_files = dedup_paths(task.gold_files.iter().map(|p| normalize_path(p)));
            // Instance ids name tasks in the report; a second copy would count twice.
            if seen.insert(task.instance_id.clone()) {
                tasks.push(task);
            }
        }
    }
    Ok(tasks)
}

fn select_tasks(tasks: Vec<Task>, filter: Option<&str>, limit: Option<usize>) -> Vec<Task> {
    tasks
        .into_iter()
        .filter(|t| filter.is_none_or(|f| t.instance_id.contains(f)))
        .take(limit.unwrap_or(usize::MAX))
        .collect()
}

/// Commit ids go on a git command line and into a directory name: hex only.
fn is_commit_id(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Paths are compared `/`-separated and relative: `./a\b.py` → `a/b.py`.
fn normalize_path(p: &str) -> String {
    let p = p.replace('\\', "/");
    let mut p = p.as_str();
    loop {
        if let Some(rest) = p.strip_prefix("./") {
            p = rest;
        } else if let Some(rest) = p.strip_prefix('/') {
            p = rest;
        } else {
            break;
        }
    }
    p.to_string()
}

fn dedup_paths(paths: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| !p.is_empty() && seen.insert(p.clone()))
        .collect()
}

// ---------------------------------------------------------------------------
// Repositories and trees

/// Finds the git directory of `repo` (`owner/name`) under `dir`. Tried in
/// order: `owner+name/repo`, `owner+name`, `owner+name.git`, `owner/name`,
/// `owner/name.git`, `name/repo`, `name`, `name.git`; each may be a bare git
/// directory or a work tree (then its `.git` is returned).
pub fn resolve_git_dir(dir: &Path, repo: &str) -> Option<PathBuf> {
    let (owner, name) = repo.split_once('/')?;
    let flat = format!("{owner}+{name}");
    let candidates = [
        dir.join(&flat).join("repo"),
        dir.join(&flat),
        dir.join(format!("{flat}.git")),
        dir.join(owner).join(name),
        dir.join(owner).join(format!("{name}.git")),
        dir.join(name).join("repo"),
        dir.join(name),
        dir.join(format!("{name}.git")),
    ];
    candidates.iter().find_map(|c| as_git_dir(c))
}

/// `path` itself when it is a git directory (has `HEAD` and `objects/`), or
/// its `.git` when it is a work tree.
fn as_git_dir(path: &Path) -> Option<PathBuf> {
    if path.join("HEAD").is_file() && path.join("objects").is_dir() {
        return Some(path.to_path_buf());
    }
    let dot_git = path.join(".git");
    (dot_git.join("HEAD").is_file() && dot_git.join("objects").is_dir()).then_some(dot_git)
}

/// The git directory of every repository the tasks need, or an error naming
/// the ones that could not be found and how to point at them.
fn resolve_repos(args: &BenchArgs, tasks: &[Task]) -> Result<HashMap<String, PathBuf>> {
    let needed: BTreeSet<&str> = tasks.iter().map(|t| t.repo.as_str()).collect();
    let mut found = HashMap::new();
    let mut missing = Vec::new();
    for repo in needed {
        let explicit = args.repo.iter().rev().find(|s| s.repo == repo);
        let git_dir = match explicit {
            Some(spec) => Some(as_git_dir(&spec.git_dir).with_context(|| {
                format!(
                    "--repo {}={}: not a git directory",
                    spec.repo,
                    spec.git_dir.display()
                )
            })?),
            None => args.repos.as_deref().and_then(|d| resolve_git_dir(d, repo)),
        };
        match git_dir {
            Some(g) => {
                found.insert(repo.to_string(), g);
            }
            None => missing.push(repo),
        }
    }
    if !missing.is_empty() {
        bail!(
            "no git directory for {}: pass --repo OWNER/NAME=GITDIR, or --repos DIR holding owner+name/repo, owner+name, name or name.git",
            missing.join(", ")
        );
    }
    Ok(found)
}

/// The cache of materialized trees: `ROOT/owner+name/COMMIT/`.
struct Trees {
    root: PathBuf,
}

impl Trees {
    fn dir(&self, repo: &str, commit: &str) -> PathBuf {
        self.root.join(repo.replace('/', "+")).join(commit)
    }

    /// The tree of `repo` at `commit`, extracted with `git archive | tar -x`
    /// unless it is already cached. Returns the directory and whether it was
    /// extracted now.
    fn materialize(&self, git_dir: &Path, repo: &str, commit: &str) -> Result<(PathBuf, bool)> {
        let dir = self.dir(repo, commit);
        if dir.is_dir() {
            return Ok((dir, false));
        }
        let parent = dir.parent().expect("tree dir has a parent");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        // Extract beside the final place (same file system, so the rename is
        // atomic); the pid keeps two concurrent runs apart.
        let tmp = parent.join(format!(".{commit}.tmp-{}", std::process::id()));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)
                .with_context(|| format!("cannot remove {}", tmp.display()))?;
        }
        std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        if let Err(e) = extract(git_dir, commit, &tmp) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        if let Err(e) = std::fs::rename(&tmp, &dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            // Another run may have put the same tree in place meanwhile.
            if !dir.is_dir() {
                return Err(e)
                    .with_context(|| format!("cannot move the tree into {}", dir.display()));
            }
        }
        Ok((dir, true))
    }
}

fn extract(git_dir: &Path, commit: &str, into: &Path) -> Result<()> {
    let mut git = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run git (is it installed?)")?;
    let tar_out = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(git.stdout.take().expect("git stdout is piped"))
        .stderr(Stdio::piped())
        .output()
        .context("cannot run tar")?;
    let mut git_err = String::new();
    if let Some(mut e) = git.stderr.take() {
        let _ = e.read_to_string(&mut git_err);
    }
    let git_status = git.wait().context("git archive did not finish")?;
    if !git_status.success() {
        bail!(
            "git --git-dir {} archive {commit} failed: {} (is the commit in this repository? fetch it again)",
            git_dir.display(),
            git_err.trim()
        );
    }
    if !tar_out.status.success() {
        bail!(
            "tar -x -C {} failed: {}",
            into.display(),
            String::from_utf8_lossy(&tar_out.stderr).trim()
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// BM25 baseline

/// Tokenizer of the BM25 baseline: lowercased maximal runs of alphanumeric
/// characters and `_` (so `snake_case` identifiers stay whole, as in Lucene's
/// standard tokenizer), no stopwords, no stemming, no identifier splitting.
/// The `bm25` crate's own tokenizer would stem and drop English stopwords; it is
/// compiled out (`default-features = false`) so that the baseline is the plain
/// whole-file BM25 that published numbers use.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlainTokenizer;

impl Tokenizer for PlainTokenizer {
    fn tokenize(&self, text: &str) -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect()
    }
}

/// Files larger than this are not indexed (the engine's limit too).
const MAX_FILE_BYTES: u64 = 1 << 20;
/// A NUL byte in this prefix marks a binary file.
const BINARY_PROBE_BYTES: usize = 8 << 10;
/// BM25 parameters: the usual defaults (Robertson; Lucene, Pyserini, rank_bm25).
const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

/// Whole-file BM25 over one tree, built with the `bm25` crate (`Embedder` for
/// the term weights, `Scorer` for IDF and ranking), k1 = 1.2, b = 0.75,
/// [`PlainTokenizer`], query = the problem statement (repeated query terms count
/// once per occurrence, as in the crate and in Lucene).
struct Bm25Index {
    embedder: Embedder<u64, PlainTokenizer>,
    scorer: Scorer<u32, u64>,
    /// Document id → path, sorted, so ties break by path.
    paths: Vec<String>,
}

impl Bm25Index {
    /// Indexes the files the `ignore` walker yields under `root`: `.gitignore`
    /// and `.ignore` of the tree honoured (without needing a `.git`), hidden
    /// files skipped, binary files and files over 1 MiB skipped.
    /// With `extensions` non-empty, only files with one of them are indexed.
    fn build(root: &Path, extensions: &[String]) -> Self {
        let mut docs: Vec<(String, String)> = Vec::new();
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .ignore(true)
            .require_git(false)
            // The tree's own ignore files only: not those of the directory the
            // cache lives in, nor the user's global excludes.
            .parents(false)
            .git_global(false)
            .git_exclude(false)
            .follow_links(false)
            .build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let ext = entry
                .path()
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("");
            if !extensions.is_empty()
                && !extensions.iter().any(|e| e.trim_start_matches('.') == ext)
            {
                continue;
            }
            if entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            let Ok(bytes) = std::fs::read(entry.path()) else {
                continue;
            };
            if bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = normalize_path(&rel.to_string_lossy());
            docs.push((rel, String::from_utf8_lossy(&bytes).into_owned()));
        }
        docs.sort_by(|a, b| a.0.cmp(&b.0));

        let corpus: Vec<&str> = docs.iter().map(|(_, text)| text.as_str()).collect();
        let embedder = EmbedderBuilder::<u64, PlainTokenizer>::with_tokenizer_and_fit_to_corpus(
            PlainTokenizer,
            &corpus,
        )
        .k1(BM25_K1)
        .b(BM25_B)
        .build();
        let mut scorer = Scorer::<u32, u64>::new();
        for (id, text) in corpus.iter().enumerate() {
            scorer.upsert(&(id as u32), distinct_tokens(embedder.embed(text)));
        }
        let paths = docs.into_iter().map(|(path, _)| path).collect();
        Bm25Index {
            embedder,
            scorer,
            paths,
        }
    }

    fn len(&self) -> usize {
        self.paths.len()
    }

    /// The `depth` best files for `query`, best first; ties by path.
    fn search(&self, query: &str, depth: usize) -> Vec<String> {
        let query = self.embedder.embed(query);
        let mut matches = self.scorer.matches(&query);
        matches.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        matches
            .into_iter()
            .take(depth)
            .map(|m| self.paths[m.id as usize].clone())
            .collect()
    }
}

/// The crate's document embedding holds one entry per token *occurrence*, all
/// with the same weight, and its scorer looks a query term up with a linear
/// scan of that list. Keeping the first entry of each token leaves every score
/// unchanged (same weight found; IDF counts documents) and makes a whole-file
/// index of sympy searchable in well under a second.
fn distinct_tokens(embedding: Embedding<u64>) -> Embedding<u64> {
    let mut seen = HashSet::new();
    Embedding(
        embedding
            .0
            .into_iter()
            .filter(|t| seen.insert(t.index))
            .collect(),
    )
}

// ---------------------------------------------------------------------------
// Metrics

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
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Nearest-rank percentile `p` (0..=100); 0 for no values.
fn percentile(values: &[f64], p: f64) -> f64 {
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
struct Summary {
    tasks: usize,
    /// Tasks whose engine call failed (counted as misses).
    errors: usize,
    /// Acc@k in percent, by k.
    acc_pct: BTreeMap<usize, f64>,
    /// Recall@k in percent, by k.
    recall_pct: BTreeMap<usize, f64>,
    mrr: f64,
    median_ms: f64,
    p95_ms: f64,
    /// Mean tokens returned (engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_tokens: Option<f64>,
    /// Mean cycles run (engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_cycles: Option<f64>,
}

impl Summary {
    fn of(runs: &[&SystemRun], ks: &[usize], recall_ks: &[usize]) -> Summary {
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

// ---------------------------------------------------------------------------
// Running

/// What is being measured.
#[derive(Debug, Clone)]
enum System {
    /// The engine's `retrieve` with this `max_cycles` (and named weights, if not the defaults).
    Engine {
        max_cycles: usize,
        weights: Option<(String, Weights)>,
    },
    /// The plain BM25 baseline.
    Bm25,
}

impl System {
    fn label(&self) -> String {
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
struct SystemRun {
    /// Rank of each gold file (same order as the task's `gold_files`).
    #[serde(skip)]
    ranks: Vec<Option<usize>>,
    /// The ranking, best first (existing files only, at most the ranking depth).
    top: Vec<String>,
    /// Wall time measured around the call (BM25: the query only).
    ms: f64,
    /// The engine's own `stats.elapsed_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    engine_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_reason: Option<String>,
    /// Paths the system returned that are not files of the tree (dropped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_in_tree: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Keeps the normalized, distinct paths that are files of `tree`; the rest is returned apart.
fn existing_files<'a>(
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

fn run_engine(
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
    let result = engine.retrieve_with(
        params,
        &crate::request::CallOptions {
            weights: Some(weights),
            ..Default::default()
        },
    );
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

fn run_bm25(index: &Bm25Index, task: &Task, depth: usize) -> SystemRun {
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

/// A task and every system's answer.
#[derive(Debug, Serialize)]
struct TaskResult {
    instance_id: String,
    repo: String,
    base_commit: String,
    mentions_gold_file: Option<bool>,
    gold_files: Vec<String>,
    /// Gold files that are not files of the tree (they count as misses).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gold_not_in_tree: Vec<String>,
    /// By system: the rank of each gold file (`null` = not in the ranking).
    gold_ranks: BTreeMap<String, BTreeMap<String, Option<usize>>>,
    runs: BTreeMap<String, SystemRun>,
}

/// A tree used in the run.
#[derive(Debug, Serialize)]
struct TreeInfo {
    repo: String,
    commit: String,
    path: String,
    /// False when the tree came from the cache.
    extracted: bool,
    extract_ms: f64,
    bm25_files: usize,
    bm25_build_ms: f64,
    /// With `--timing`: the tree's first task on a fresh engine (empty file
    /// cache: cold in-process), in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    cold_ms: Option<f64>,
    /// With `--timing`: the same task again on that engine (tree unchanged: warm), in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    warm_ms: Option<f64>,
}

#[derive(Debug, Serialize)]
struct Skipped {
    instance_id: String,
    reason: String,
}

/// Ranking depth and the cut-offs, validated.
struct Cutoffs {
    acc: Vec<usize>,
    recall: Vec<usize>,
    depth: usize,
}

impl Cutoffs {
    fn new(ks: &[usize]) -> Result<Self> {
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
    let trees = Trees {
        root: args.trees.clone(),
    };

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

    // One tree at a time (in order of first appearance), so each tree is
    // extracted and indexed once and only one BM25 index is held in memory.
    let mut groups: Vec<((String, String), Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<(String, String), usize> = HashMap::new();
    for (i, t) in tasks.iter().enumerate() {
        let key = (t.repo.clone(), t.base_commit.clone());
        let g = *group_of.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }

    let progress = ProgressBar::new(tasks.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} ({eta} left) {msg}")
            .expect("valid progress template")
            .progress_chars("=> "),
    );
    let warn = |msg: String| progress.suspend(|| eprintln!("warning: {msg}"));

    // One engine for the whole run: its file cache is keyed by (path, size, mtime, ctime, inode).
    let engine = Engine::new(EngineOptions::default());
    let mut results: Vec<(usize, TaskResult)> = Vec::new();
    let mut tree_infos = Vec::new();
    let mut skipped = Vec::new();
    for ((repo, commit), members) in &groups {
        let short = &commit[..commit.len().min(10)];
        progress.set_message(format!("extracting {repo}@{short}"));
        let start = Instant::now();
        let (tree, extracted) = match trees.materialize(&git_dirs[repo], repo, commit) {
            Ok(t) => t,
            Err(e) => {
                warn(format!(
                    "{repo}@{short}: {e:#}; skipping its {} task(s)",
                    members.len()
                ));
                for &i in members {
                    skipped.push(Skipped {
                        instance_id: tasks[i].instance_id.clone(),
                        reason: format!("{e:#}"),
                    });
                    progress.inc(1);
                }
                continue;
            }
        };
        let extract_ms = start.elapsed().as_secs_f64() * 1e3;
        progress.set_message(format!("indexing {repo}@{short} for BM25"));
        let start = Instant::now();
        let index = Bm25Index::build(&tree, &args.bm25_ext);
        tree_infos.push(TreeInfo {
            repo: repo.clone(),
            commit: commit.clone(),
            path: tree.display().to_string(),
            extracted,
            extract_ms,
            bm25_files: index.len(),
            bm25_build_ms: start.elapsed().as_secs_f64() * 1e3,
            cold_ms: None,
            warm_ms: None,
        });
        if args.timing {
            if let (Some(&first), Some(info)) = (members.first(), tree_infos.last_mut()) {
                progress.set_message(format!("cold and warm call on {repo}@{short}"));
                // A fresh engine has an empty file cache: its first call is cold.
                let probe = Engine::new(Default::default());
                let run = |e: &Engine| {
                    run_engine(
                        e,
                        &tasks[first],
                        &tree,
                        args.max_cycles,
                        &Weights::default(),
                        cutoffs.depth,
                    )
                    .ms
                };
                info.cold_ms = Some(run(&probe));
                info.warm_ms = Some(run(&probe));
            }
        }

        if args.warm {
            if let Some(&first) = members.first() {
                progress.set_message(format!("warming the engine on {repo}@{short}"));
                // Only the cache matters here; an error shows again in the timed call.
                let _ = run_engine(
                    &engine,
                    &tasks[first],
                    &tree,
                    1,
                    &Weights::default(),
                    cutoffs.depth,
                );
            }
        }
        for &i in members {
            let task = &tasks[i];
            progress.set_message(task.instance_id.clone());
            let (_, gold_not_in_tree) =
                existing_files(&tree, task.gold_files.iter().map(String::as_str));
            if task.gold_files.is_empty() {
                warn(format!("{}: no gold files; skipped", task.instance_id));
                skipped.push(Skipped {
                    instance_id: task.instance_id.clone(),
                    reason: "no gold files".into(),
                });
                progress.inc(1);
                continue;
            }
            if !gold_not_in_tree.is_empty() {
                warn(format!(
                    "{}: gold file(s) not in the tree at {short}: {} (counted as misses)",
                    task.instance_id,
                    gold_not_in_tree.join(", ")
                ));
            }
            let mut runs = BTreeMap::new();
            for system in &systems {
                let run = match system {
                    System::Engine {
                        max_cycles,
                        weights,
                    } => run_engine(
                        &engine,
                        task,
                        &tree,
                        *max_cycles,
                        weights.as_ref().map_or(&Weights::default(), |(_, w)| w),
                        cutoffs.depth,
                    ),
                    System::Bm25 => run_bm25(&index, task, cutoffs.depth),
                };
                if let Some(e) = &run.error {
                    warn(format!(
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
            results.push((
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
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    results.sort_by_key(|(i, _)| *i);
    let results: Vec<TaskResult> = results.into_iter().map(|(_, r)| r).collect();

    let labels: Vec<String> = systems.iter().map(System::label).collect();
    let report = Report::new(args, &cutoffs, labels, results, tree_infos, skipped);
    let mut stdout = crate::cli::stdout();
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

// ---------------------------------------------------------------------------
// Report

#[derive(Debug, Serialize)]
struct ReportConfig {
    task_files: Vec<String>,
    k: Vec<usize>,
    /// Files ranked per task (and per system); MRR is over this depth.
    depth: usize,
    max_cycles: usize,
    compare_cycles: bool,
    warm: bool,
    filter: Option<String>,
    limit_tasks: Option<usize>,
    bm25: &'static str,
    /// Extensions the BM25 baseline indexes (empty = every text file).
    bm25_ext: Vec<String>,
}

/// Summaries of every system over one slice of the tasks.
type SliceSummary = BTreeMap<String, Summary>;

#[derive(Debug, Serialize)]
struct Summaries {
    overall: SliceSummary,
    by_repo: BTreeMap<String, SliceSummary>,
    /// Keys `true`, `false`, `unknown` (the field is absent, e.g. the Rust set).
    by_mentions_gold_file: BTreeMap<String, SliceSummary>,
}

#[derive(Debug, Serialize)]
struct Report {
    config: ReportConfig,
    systems: Vec<String>,
    summary: Summaries,
    skipped: Vec<Skipped>,
    trees: Vec<TreeInfo>,
    tasks: Vec<TaskResult>,
    /// Peak resident memory of the bench process (VmHWM, Linux), in bytes.
    peak_rss_bytes: Option<u64>,
}

/// The process's peak resident set size (`VmHWM` of /proc/self/status), in bytes.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

const BM25_DESCRIPTION: &str =
    "bm25 crate 2.3 (Embedder + Scorer), k1=1.2 b=0.75, whole files, lowercase alphanumeric/_ tokens, no stemming, no stopwords";

fn mentions_key(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    }
}

impl Report {
    fn new(
        args: &BenchArgs,
        cutoffs: &Cutoffs,
        systems: Vec<String>,
        tasks: Vec<TaskResult>,
        trees: Vec<TreeInfo>,
        skipped: Vec<Skipped>,
    ) -> Report {
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
        let repos: BTreeSet<&str> = tasks.iter().map(|t| t.repo.as_str()).collect();
        let mentions: BTreeSet<&str> = tasks
            .iter()
            .map(|t| mentions_key(t.mentions_gold_file))
            .collect();
        let summary = Summaries {
            overall: slice(&|_| true),
            by_repo: repos
                .iter()
                .map(|&r| (r.to_string(), slice(&|t| t.repo == r)))
                .collect(),
            by_mentions_gold_file: mentions
                .iter()
                .map(|&m| {
                    (
                        m.to_string(),
                        slice(&|t| mentions_key(t.mentions_gold_file) == m),
                    )
                })
                .collect(),
        };
        Report {
            config: ReportConfig {
                task_files: args.tasks.iter().map(|p| p.display().to_string()).collect(),
                k: cutoffs.acc.clone(),
                depth: cutoffs.depth,
                max_cycles: args.max_cycles,
                compare_cycles: args.compare_cycles,
                warm: args.warm,
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
    fn table(&self, cutoffs: &Cutoffs) -> String {
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
        for (m, s) in &self.summary.by_mentions_gold_file {
            add_slice(format!("mentions={m}"), s, &mut rows);
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
        let _ = writeln!(out);
        let _ = writeln!(out, "Acc@k, R@k in %: all gold files in the top k / share of gold files in the top k; MRR over the top {}.", self.config.depth);
        let _ = writeln!(
            out,
            "bm25: {BM25_DESCRIPTION}; files: {}.",
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
            if self.config.warm { "warm: an untimed call read each tree first" } else { "a tree's first call reads it cold" },
            format_ms(median(&builds))
        );
        if self.systems.len() > 2 && !self.config.warm {
            let _ = writeln!(
                out,
                "{} runs after {} on the same tree, so its times are warm-cache.",
                self.systems[1], self.systems[0]
            );
        }
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
        out
    }

    /// `ctxloop/3c vs bm25: Acc@5 80.0 vs 51.0 (x1.57)`, at k=5 when measured.
    fn ratio_line(&self) -> Option<String> {
        let engine = self.summary.overall.get(self.systems.first()?)?;
        let bm25 = self.summary.overall.get("bm25")?;
        let k = if engine.acc_pct.contains_key(&5) {
            5
        } else {
            *engine.acc_pct.keys().last()?
        };
        let (a, b) = (engine.acc_pct[&k], bm25.acc_pct[&k]);
        let ratio = if b > 0.0 {
            format!("x{:.2}", a / b)
        } else {
            "bm25 found none".into()
        };
        Some(format!(
            "{} vs bm25: Acc@{k} {a:.1} vs {b:.1} ({ratio}); MRR {:.3} vs {:.3}",
            self.systems[0], engine.mrr, bm25.mrr
        ))
    }

    /// Per-task wall times (and first gold rank) of every system.
    fn timing_table(&self) -> String {
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

fn format_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// Text columns: the first `left` left-aligned, the rest right-aligned.
fn align(header: &[String], rows: &[Vec<String>], left: usize) -> String {
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

    #[test]
    fn cutoffs_always_rank_deep_enough_for_recall_at_10() {
        let c = Cutoffs::new(&[5, 1, 5]).unwrap();
        assert_eq!(c.acc, vec![1, 5]);
        assert_eq!(c.recall, vec![1, 5, 10]);
        assert_eq!(c.depth, 10);
        assert_eq!(Cutoffs::new(&[20]).unwrap().depth, 20);
        assert!(Cutoffs::new(&[0, 5]).is_err());
    }

    #[test]
    fn paths_are_normalized_to_relative_slash_form() {
        assert_eq!(normalize_path("./src\\lib.rs"), "src/lib.rs");
        assert_eq!(normalize_path("/a/b.py"), "a/b.py");
        assert_eq!(normalize_path("a/b.py"), "a/b.py");
    }

    fn bare_repo(at: &Path) {
        std::fs::create_dir_all(at.join("objects")).unwrap();
        std::fs::write(at.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn repos_dir_resolves_the_mirror_layout_first() {
        let dir = tempfile::tempdir().unwrap();
        bare_repo(&dir.path().join("sympy+sympy/repo"));
        assert_eq!(
            resolve_git_dir(dir.path(), "sympy/sympy"),
            Some(dir.path().join("sympy+sympy/repo"))
        );
        assert_eq!(resolve_git_dir(dir.path(), "psf/requests"), None);
    }

    #[test]
    fn repos_dir_resolves_flat_named_and_dot_git_layouts() {
        let dir = tempfile::tempdir().unwrap();
        bare_repo(&dir.path().join("psf+requests"));
        bare_repo(&dir.path().join("flask.git"));
        bare_repo(&dir.path().join("ripgrep"));
        // A work tree: its .git is the git directory.
        bare_repo(&dir.path().join("mwaskom/seaborn/.git"));
        let r = |repo| resolve_git_dir(dir.path(), repo);
        assert_eq!(r("psf/requests"), Some(dir.path().join("psf+requests")));
        assert_eq!(r("pallets/flask"), Some(dir.path().join("flask.git")));
        assert_eq!(r("BurntSushi/ripgrep"), Some(dir.path().join("ripgrep")));
        assert_eq!(
            r("mwaskom/seaborn"),
            Some(dir.path().join("mwaskom/seaborn/.git"))
        );
        // A directory that is not a git directory is passed over.
        std::fs::create_dir_all(dir.path().join("numpy")).unwrap();
        assert_eq!(r("numpy/numpy"), None);
        assert_eq!(r("not-owner-name"), None);
    }

    #[test]
    fn repo_spec_parses_owner_name_and_git_dir() {
        let spec: RepoSpec = "psf/requests=/m/requests.git".parse().unwrap();
        assert_eq!(
            spec,
            RepoSpec {
                repo: "psf/requests".into(),
                git_dir: PathBuf::from("/m/requests.git")
            }
        );
        assert!("requests=/m".parse::<RepoSpec>().is_err());
        assert!("psf/requests".parse::<RepoSpec>().is_err());
        assert!("psf/requests=".parse::<RepoSpec>().is_err());
        assert!("a/b/c=/m".parse::<RepoSpec>().is_err());
    }

    #[test]
    fn plain_tokenizer_keeps_identifiers_whole_and_lowercases() {
        assert_eq!(
            PlainTokenizer.tokenize("Fix SessionManager.get_token() in auth/session.py!"),
            paths(&[
                "fix",
                "sessionmanager",
                "get_token",
                "in",
                "auth",
                "session",
                "py"
            ])
        );
    }

    #[test]
    fn bm25_ranks_the_matching_file_first_and_skips_binary_and_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/token.py"),
            "def refresh_token(expiry):\n    return expiry_check(expiry)\n",
        )
        .unwrap();
        std::fs::write(root.join("src/other.py"), "def unrelated():\n    pass\n").unwrap();
        std::fs::write(root.join("src/blob.bin"), b"refresh_token\0\0").unwrap();
        std::fs::write(root.join(".hidden.py"), "refresh_token expiry").unwrap();
        std::fs::write(root.join(".gitignore"), "ignored.py\n").unwrap();
        std::fs::write(root.join("ignored.py"), "refresh_token expiry").unwrap();
        let index = Bm25Index::build(root, &[]);
        assert_eq!(Bm25Index::build(root, &["md".to_string()]).len(), 0);
        assert_eq!(index.paths, paths(&["src/other.py", "src/token.py"]));
        assert_eq!(
            index.search("The refresh_token expiry is wrong", 10),
            paths(&["src/token.py"])
        );
    }

    #[test]
    fn distinct_tokens_do_not_change_bm25_scores() {
        let docs = ["a a a b c", "a d d e", "b b f g h i"];
        let embedder = EmbedderBuilder::<u64, PlainTokenizer>::with_tokenizer_and_fit_to_corpus(
            PlainTokenizer,
            &docs,
        )
        .build();
        let mut full = Scorer::<u32, u64>::new();
        let mut distinct = Scorer::<u32, u64>::new();
        for (i, d) in docs.iter().enumerate() {
            full.upsert(&(i as u32), embedder.embed(d));
            distinct.upsert(&(i as u32), distinct_tokens(embedder.embed(d)));
        }
        let q = embedder.embed("a b d d");
        for i in 0..docs.len() as u32 {
            assert_eq!(full.score(&i, &q), distinct.score(&i, &q));
        }
    }

    #[test]
    fn trees_are_materialized_once_and_atomically() {
        let git_ok = Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !git_ok {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("pkg")).unwrap();
        std::fs::write(work.join("pkg/mod.py"), "x = 1\n").unwrap();
        // Not the caller's repository, even when run from a git hook.
        let git = |args: &[&str]| crate::engine::scratch_git(&work, args).unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "init"]);
        let commit = git(&["rev-parse", "HEAD"]);
        let trees = Trees {
            root: dir.path().join("trees"),
        };
        let (tree, extracted) = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(extracted);
        assert_eq!(tree, dir.path().join("trees/o+n").join(&commit));
        assert_eq!(
            std::fs::read_to_string(tree.join("pkg/mod.py")).unwrap(),
            "x = 1\n"
        );
        let (_, extracted) = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(!extracted);
        // A commit the repository lacks fails and leaves nothing behind.
        let missing = "0123456789abcdef0123456789abcdef01234567";
        assert!(trees
            .materialize(&work.join(".git"), "o/n", missing)
            .is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path().join("trees/o+n"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(&commit)]);
    }
}
