//! The `evaluate` tool: score the session's candidates, with the agent's judgments.
use super::Tool;
use crate::engine::Engine;
use crate::error::Result;
use crate::render::Render;
use crate::request::CallOptions;
use crate::types::EvaluateOutput;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The calling agent's judgment of one file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Judgment {
    /// Path as returned by `dispatch` (relative to the root).
    pub path: String,
    /// The agent's relevance in [0, 1]; it replaces the server's score. Below 0.3 the file is rejected: it is listed after every file not rejected, and its place in the answer goes to the next file you have not seen.
    pub relevance: f64,
    /// What this file needs that is not in context yet (e.g. "where TOKEN_TTL is set"); becomes a gap, its description cut to 200 characters.
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

/// The `evaluate` tool.
pub struct Evaluate;

impl Tool for Evaluate {
    const NAME: &'static str = "evaluate";
    const DESCRIPTION: &'static str = "Step 2: score the session's candidates 0-1 (your `judgments` override the server's), tier them, and name missing context as gaps. Returns `decision`: finalize or refine.";
    const GUIDE: &'static str = "`evaluate` takes your own 0-1 judgments of the candidates and names missing context (gaps),";
    type Params = EvaluateParams;
    type Output = EvaluateOutput;

    fn call(engine: &Engine, p: EvaluateParams, opts: &CallOptions) -> Result<EvaluateOutput> {
        engine.evaluate(p, opts)
    }

    fn text(out: &EvaluateOutput) -> String {
        out.text()
    }
}
