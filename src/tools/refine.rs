//! The `refine` tool's parameters (its input schema) and their conversion into the core request.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Input of `refine`: build the next query from the evaluation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefineParams {
    /// Session from `dispatch`.
    pub session_id: String,
    /// Search terms the agent wants added.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Include globs the agent wants added.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Exclude globs or paths the agent wants added.
    #[serde(default)]
    pub excludes: Vec<String>,
}

impl From<RefineParams> for crate::request::RefineRequest {
    fn from(p: RefineParams) -> Self {
        crate::request::RefineRequest {
            session_id: p.session_id,
            keywords: p.keywords,
            patterns: p.patterns,
            excludes: p.excludes,
        }
    }
}
