//! The `dispatch` tool's parameters (its input schema) and their conversion into the core request.
use crate::config::{BUDGET_TOKENS, HIGH_THRESHOLD, LIMIT, MAX_CYCLES, MIN_HIGH};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Input of `dispatch`: start a session (with `task`) or run its next cycle (with `session_id`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DispatchParams {
    /// Session to continue. Omit it (and give `task`) to start a new session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The coding task; required when starting a session. When continuing one, omit it or pass the session's task (another task is an error).
    #[serde(default)]
    pub task: Option<String>,
    /// Directory to search when starting a session (default: the server's root). When continuing one, omit it or pass the same directory.
    #[serde(default)]
    pub root: Option<String>,
    /// Include globs to add, gitignore-style, relative to the root.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Search terms to add.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Exclude globs or paths to add.
    #[serde(default)]
    pub excludes: Vec<String>,
    /// When starting: maximum cycles, 1-10 (default 3). Fixed for the session: when continuing, omit it.
    #[serde(default)]
    #[schemars(range(min = MAX_CYCLES.min, max = MAX_CYCLES.max))]
    pub max_cycles: Option<usize>,
    /// When starting: high-tier files needed to stop, 1-50 (default 3).
    #[serde(default)]
    #[schemars(range(min = MIN_HIGH.min, max = MIN_HIGH.max))]
    pub min_high: Option<usize>,
    /// When starting: relevance at or above which a file is high, 0.05-1.0 (default 0.7).
    #[serde(default)]
    #[schemars(range(min = HIGH_THRESHOLD.min, max = HIGH_THRESHOLD.max))]
    pub high_threshold: Option<f64>,
    /// Candidates returned per cycle, 1-100 (default 10).
    #[serde(default)]
    #[schemars(range(min = LIMIT.min, max = LIMIT.max))]
    pub limit: Option<usize>,
    /// When starting: token budget of the text rendering (headers, snippets, handles), 100-20000 (default 6000). Fixed for the session.
    #[serde(default)]
    #[schemars(range(min = BUDGET_TOKENS.min, max = BUDGET_TOKENS.max))]
    pub budget_tokens: Option<usize>,
}

impl From<DispatchParams> for crate::request::DispatchRequest {
    fn from(p: DispatchParams) -> Self {
        let DispatchParams {
            session_id,
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
        } = p;
        crate::request::DispatchRequest {
            session_id,
            start: crate::request::RetrieveRequest {
                task: task.unwrap_or_default(),
                root,
                patterns,
                keywords,
                excludes,
                max_cycles,
                min_high,
                high_threshold,
                limit,
                budget_tokens,
                deadline_ms: None,
            },
        }
    }
}
