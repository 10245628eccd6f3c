//! The `gather_context` prompt: the loop's protocol in a few lines, for an
//! agent (or a sub-agent it briefs) that drives the step-wise tools itself.

use super::CtxServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{PromptMessage, Role};
use rmcp::{prompt, prompt_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `gather_context`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GatherContextArgs {
    /// The coding task to gather context for.
    pub task: String,
}

/// The protocol text for a task.
pub fn protocol(task: &str) -> String {
    format!(
        "Gather the code context for this task before changing anything:\n\n{task}\n\n\
Protocol (ctxloop tools):\n\
1. Start broad: `dispatch` with the task (paste error messages, paths and identifiers verbatim).\n\
2. Read the candidates and call `evaluate` with a judgment for every file you looked at: relevance 0-1 \
(>= 0.7 directly implements the target, 0.5-0.7 related types or callers, < 0.5 not needed, \
< 0.3 wrong: its place in the answer goes to a file you have not seen) and \
`missing_context` naming what the file needs that you have not seen.\n\
3. If the decision is `refine`, call `refine` (add keywords or excludes you learned), then `dispatch` \
with the session_id for the next cycle.\n\
4. Stop after 3 cycles, or once 3 or more files are high and no gap is critical.\n\
5. Report the high files with their line ranges (`evaluate` returns them: `evaluations[].snippets`, \
`start_line`-`end_line`; `dropped` lists the ranges left out for the budget) and the gaps still open.\n\
For a one-shot answer, `retrieve` runs the same loop with the server's own judgments."
    )
}

// rmcp's #[prompt] generates an undocumented public attribute fn beside each prompt.
#[allow(missing_docs)]
#[prompt_router(vis = "pub(crate)")]
impl CtxServer {
    /// The retrieval loop's protocol for a task: start broad, evaluate every file 0-1, name what is missing, refine, stop at three cycles or three high files.
    #[prompt(name = "gather_context")]
    async fn gather_context(
        &self,
        Parameters(a): Parameters<GatherContextArgs>,
    ) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(Role::User, protocol(&a.task))]
    }
}
