//! The `evaluate` tool's parameters (its input schema) and their conversion into the core request.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The calling agent's judgment of one file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Judgment {
    /// Path as returned by `dispatch` (relative to the root).
    pub path: String,
    /// The agent's relevance in [0, 1]; it replaces the server's score.
    pub relevance: f64,
    /// What this file needs that is not in context yet (e.g. "where TOKEN_TTL is set"); becomes a gap.
    #[serde(default)]
    pub missing_context: Option<String>,
}

/// Input of `evaluate`: score the session's current candidates.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluateParams {
    /// Session from `dispatch`.
    pub session_id: String,
    /// Optional judgments from the agent; files without one keep the server's score.
    #[serde(default)]
    pub judgments: Vec<Judgment>,
}

impl From<EvaluateParams> for crate::request::EvaluateRequest {
    fn from(p: EvaluateParams) -> Self {
        crate::request::EvaluateRequest {
            session_id: p.session_id,
            judgments: p
                .judgments
                .into_iter()
                .map(|j| crate::request::Judgment {
                    path: j.path,
                    relevance: j.relevance,
                    missing_context: j.missing_context,
                })
                .collect(),
        }
    }
}
