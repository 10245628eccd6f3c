//! The retrieval pipeline's stages, pluggable: query preprocessing
//! ([`QueryStage`]), scoring ([`Scorer`]: one [`Pass`] per signal, then a
//! [`Rerank`] stage) and post-processing ([`PostProcess`]: snippets and the
//! token budget). [`Pipeline::default`] is the behaviour the tools document;
//! set another on [`crate::engine::EngineOptions::pipeline`] to add a signal
//! or replace a stage without forking (`examples/custom_signal.rs`).

use crate::query::{Alternates, TaskQuery};
use std::sync::Arc;

pub use crate::score::{Candidate, Pass, Rerank, ScoreContext, Scored, Scorer, Signal};
pub use crate::snippets::{PostProcess, Snippets};

/// Query preprocessing: the task text (plus agent keywords and gap symbols
/// fed back by `refine`) becomes the weighted query every later stage reads.
pub trait QueryStage: Send + Sync {
    /// A short name, for `Debug`.
    fn name(&self) -> &str;
    /// Builds the cycle's query. `feedback` terms must weigh like a single
    /// mention; `alternates` says which weaker alternative terms to build
    /// (stems when `Weights::alternate` is above 0, compounds when
    /// `Weights::compound` is); once `stop` returns true, the rest of the
    /// text may be skipped.
    fn build(
        &self,
        task: &str,
        keywords: &[String],
        feedback: &[String],
        alternates: Alternates,
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery;
}

/// The default query stage: [`TaskQuery::with_alternates`] (tokenizer,
/// stopwords, structural references, the alternative terms the weights ask
/// for, at most `MAX_QUERY_TERMS` terms).
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskTerms;

impl QueryStage for TaskTerms {
    fn name(&self) -> &str {
        "task-terms"
    }

    fn build(
        &self,
        task: &str,
        keywords: &[String],
        feedback: &[String],
        alternates: Alternates,
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        TaskQuery::with_alternates(task, keywords, feedback, alternates, stop)
    }
}

/// Every stage of the loop's retrieval, cheap to clone (stages are shared).
#[derive(Clone)]
pub struct Pipeline {
    /// Query preprocessing.
    pub query: Arc<dyn QueryStage>,
    /// Scoring passes and re-ranking.
    pub scorer: Scorer,
    /// Snippets and the token budget.
    pub post: Arc<dyn PostProcess>,
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            query: Arc::new(TaskTerms),
            scorer: Scorer::default(),
            post: Arc::new(Snippets),
        }
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("query", &self.query.name())
            .field("scorer", &self.scorer)
            .field("post", &self.post.name())
            .finish()
    }
}

impl Pipeline {
    /// The default pipeline plus `signal`, run after the built-in passes
    /// (see [`Signal`]).
    pub fn with_signal(mut self, signal: impl Signal + 'static) -> Self {
        self.scorer = self.scorer.with_signal(signal);
        self
    }
}
