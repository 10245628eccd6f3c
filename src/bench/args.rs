//! The command line of `ctxloop bench`.

use std::path::PathBuf;
use std::str::FromStr;

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

    /// Also run the step-wise loop (dispatch, evaluate, refine) with a
    /// simulated judge playing the agent: every file a `dispatch` returned
    /// is judged 0.9 if it is a gold file, 0.2 if not (the judge never names
    /// a file it was not shown). Reported per cycle as `sim-judge/Nc` rows:
    /// simulated, they measure the loop's design, not autonomous ranking.
    #[arg(long = "judge")]
    pub judge: bool,

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

    /// Delete each tree this run extracted once its tasks are done (trees
    /// already in the cache are kept), to bound the disk a large set needs.
    #[arg(long = "remove-trees")]
    pub remove_trees: bool,

    /// Skip the BM25 baselines (both rows; for quick comparisons of engine variants only).
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

pub(super) fn is_owner_name(repo: &str) -> bool {
    let mut parts = repo.split('/');
    let ok = |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p != "." && p != "..");
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
