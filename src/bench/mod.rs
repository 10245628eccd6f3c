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
//!
//! Layout: `args` (command line), `tasks` (task files), `repos` (git
//! directories), `trees` (materialized trees), `bm25` (the baseline),
//! `systems` (what is measured, one answer), `metrics` (definitions and
//! summaries), `run` (the driver), `progress` (its stderr), `report` (table and JSON).

mod args;
mod bm25;
mod edits;
mod judge;
mod metrics;
mod progress;
mod report;
mod repos;
mod results;
mod run;
mod source;
mod systems;
mod tasks;
mod trees;

pub use args::{BenchArgs, RepoSpec};
pub use bm25::PlainTokenizer;
pub use metrics::{all_in_top_k, gold_ranks, recall_at_k, reciprocal_rank};
pub use repos::resolve_git_dir;
pub use run::run;
