//! The `retrieve` tool's parameters (its input schema) and their conversion into the core request.
use crate::config::{BUDGET_TOKENS, DEADLINE_MS, HIGH_THRESHOLD, LIMIT, MAX_CYCLES, MIN_HIGH};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Input of `retrieve`: the whole dispatch → evaluate → refine loop in one call.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetrieveParams {
    /// The coding task in natural language, e.g. "fix the token expiry bug". Paths,
    /// identifiers and stack traces in it are used.
    pub task: String,
    /// Directory to search (absolute, or relative to the server's root). Default:
    /// the server's --root, else its working directory.
    #[serde(default)]
    pub root: Option<String>,
    /// Include globs, gitignore-style, relative to the root (e.g. "src/**/*.py"). Default: all files.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Extra search terms (identifiers, names) to weigh like the task's title.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Exclude globs or paths (e.g. "tests", "*.md").
    #[serde(default)]
    pub excludes: Vec<String>,
    /// Maximum cycles, 1-10 (default 3).
    #[serde(default)]
    #[schemars(range(min = MAX_CYCLES.min, max = MAX_CYCLES.max))]
    pub max_cycles: Option<usize>,
    /// High-tier files needed to stop early, 1-50 (default 3).
    #[serde(default)]
    #[schemars(range(min = MIN_HIGH.min, max = MIN_HIGH.max))]
    pub min_high: Option<usize>,
    /// Relevance at or above which a file is high tier, 0.05-1.0 (default 0.7).
    #[serde(default)]
    #[schemars(range(min = HIGH_THRESHOLD.min, max = HIGH_THRESHOLD.max))]
    pub high_threshold: Option<f64>,
    /// Files returned, 1-100 (default 10).
    #[serde(default)]
    #[schemars(range(min = LIMIT.min, max = LIMIT.max))]
    pub limit: Option<usize>,
    /// Token budget (tokens ~ bytes/4) of the per-file text: header lines, reasons,
    /// snippets and handles, 100-20000 (default 6000).
    /// Snippets past it become `path:start-end` handles listed in `dropped`.
    #[serde(default)]
    #[schemars(range(min = BUDGET_TOKENS.min, max = BUDGET_TOKENS.max))]
    pub budget_tokens: Option<usize>,
    /// Wall-clock deadline of this call in ms, 10-3600000 (default: the server's
    /// --deadline-ms, else 30000). Past it the loop stops and the answer is the
    /// best found so far, marked `truncated`.
    #[serde(default)]
    #[schemars(range(min = DEADLINE_MS.min, max = DEADLINE_MS.max))]
    pub deadline_ms: Option<u64>,
}

impl From<RetrieveParams> for crate::request::RetrieveRequest {
    fn from(p: RetrieveParams) -> Self {
        let RetrieveParams {
            task,
            root,
            patterns,
            keywords,
            excludes,
            max_cycles,
            min_high,
            high_threshold,
            limit,
            budget_tokens,
            deadline_ms,
        } = p;
        crate::request::RetrieveRequest {
            task,
            root,
            patterns,
            keywords,
            excludes,
            max_cycles,
            min_high,
            high_threshold,
            limit,
            budget_tokens,
            deadline_ms,
        }
    }
}
