//! The `refine` tool: build the next query from the evaluation.
use super::Tool;
use crate::engine::Engine;
use crate::error::Result;
use crate::render::Render;
use crate::request::CallOptions;
use crate::types::RefineOutput;
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
    #[schemars(length(max = crate::config::MAX_LIST_ITEMS))]
    pub keywords: Vec<String>,
    /// Include globs the agent wants added. A leading ! excludes, as in ripgrep's -g.
    #[serde(default)]
    #[schemars(length(max = crate::config::MAX_LIST_ITEMS))]
    pub patterns: Vec<String>,
    /// Exclude globs or paths the agent wants added. None may start with ! ("!glob" in patterns excludes).
    #[serde(default)]
    #[schemars(length(max = crate::config::MAX_LIST_ITEMS))]
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

/// The `refine` tool.
pub struct Refine;

impl Tool for Refine {
    const NAME: &'static str = "refine";
    const DESCRIPTION: &'static str = "Step 3: build the next query from the evaluation (gap symbols, high files' neighbourhood, excludes for low files, plus your additions) and say whether the loop is done. If not done, call `dispatch` with the session_id.";
    const GUIDE: &'static str = "`refine` builds the next query; stop after 3 cycles or once 3+ files are high and no gap is critical.";
    type Params = RefineParams;
    type Output = RefineOutput;

    fn call(engine: &Engine, p: RefineParams, opts: &CallOptions) -> Result<RefineOutput> {
        engine.refine(p, opts)
    }

    fn text(out: &RefineOutput) -> String {
        out.text()
    }
}
