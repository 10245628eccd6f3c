//! The `dispatch` tool: start a session or run its next cycle.
use super::loop_params::loop_params;
use super::Tool;
use crate::engine::Engine;
use crate::error::Result;
use crate::render::Render;
use crate::request::{CallOptions, DispatchRequest};
use crate::types::DispatchOutput;

loop_params! {
    /// Input of `dispatch`: start a session (with `task`) or run its next cycle (with `session_id`).
    pub struct DispatchParams {
        /// Session to continue. Omit it (and give `task`) to start a new session.
        #[serde(default)]
        pub session_id: Option<String>,
        /// The coding task; required when starting a session. When continuing one, omit it or pass the session's task (another task is an error).
        #[serde(default)]
        pub task: Option<String>,
    }
    shared {
        /// Directory to search when starting a session (default: the server's root). When continuing one, omit it or pass the same directory.
        root,
        /// Include globs to add, gitignore-style, relative to the root. A leading ! excludes, as in ripgrep's -g.
        patterns,
        /// Search terms to add.
        keywords,
        /// Exclude globs or paths to add. None may start with ! ("!glob" in patterns excludes).
        excludes,
        /// When starting: maximum cycles, 1-10 (default 3). Fixed for the session: when continuing, omit it.
        max_cycles,
        /// When starting: high-tier files needed to stop, 1-50 (default 3).
        min_high,
        /// When starting: relevance at or above which a file is high, 0.05-1.0 (default 0.7).
        high_threshold,
        /// Candidates returned per cycle, 1-100 (default 10).
        limit,
        /// When starting: token budget of the text rendering (headers, snippets, handles), 100-20000 (default 6000). Fixed for the session.
        budget_tokens,
    }
}

impl From<DispatchParams> for DispatchRequest {
    fn from(mut p: DispatchParams) -> Self {
        let session_id = p.session_id.take();
        let task = p.task.take().unwrap_or_default();
        DispatchRequest {
            session_id,
            start: p.into_request(task, None),
        }
    }
}

/// The `dispatch` tool.
pub struct Dispatch;

impl Tool for Dispatch {
    const NAME: &'static str = "dispatch";
    const DESCRIPTION: &'static str = "Step 1 of the loop: start a session (give `task`) or run its next cycle (give `session_id`). Returns ranked candidate files with evidence. Then call `evaluate`.";
    const GUIDE: &'static str = "For step-wise control, `dispatch` starts a session,";
    type Params = DispatchParams;
    type Output = DispatchOutput;

    fn call(engine: &Engine, p: DispatchParams, opts: &CallOptions) -> Result<DispatchOutput> {
        engine.dispatch(p, opts)
    }

    fn text(out: &DispatchOutput) -> String {
        out.text()
    }
}
