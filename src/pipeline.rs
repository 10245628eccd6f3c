//! The retrieval pipeline's stages, pluggable: query preprocessing
//! ([`QueryStage`]), scoring ([`Scorer`]: one [`Pass`] per signal, then a
//! [`Rerank`] stage) and post-processing ([`PostProcess`]: snippets and the
//! token budget). [`Pipeline::default`] is the behaviour the tools document;
//! set another on [`crate::engine::EngineOptions::pipeline`] to add a signal
//! or replace a stage without forking (`examples/custom_signal.rs`).

use crate::corpus::Doc;
use crate::query::TaskQuery;
use crate::types::{File, Snippet};
use std::sync::Arc;

pub use crate::score::{Candidate, Pass, Rerank, ScoreContext, Scored, Scorer, Signal};

/// Query preprocessing: the task text (plus agent keywords and gap symbols
/// fed back by `refine`) becomes the weighted query every later stage reads.
pub trait QueryStage: Send + Sync {
    /// A short name, for `Debug`.
    fn name(&self) -> &str;
    /// Builds the cycle's query. `feedback` terms must weigh like a single
    /// mention; once `stop` returns true, the rest of the text may be skipped.
    fn build(
        &self,
        task: &str,
        keywords: &[String],
        feedback: &[String],
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery;
}

/// The default query stage: [`TaskQuery::with_feedback`] (tokenizer,
/// stopwords, structural references, at most `MAX_QUERY_TERMS` terms).
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
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        TaskQuery::with_feedback(task, keywords, feedback, stop)
    }
}

/// Post-processing: the snippets of a file in context, and packing the
/// answer's files into the token budget.
pub trait PostProcess: Send + Sync {
    /// A short name, for `Debug`.
    fn name(&self) -> &str;
    /// The snippets of `doc` for the query (lines 1-based, inclusive);
    /// `defines` are the task identifiers the file defines.
    fn snippets(
        &self,
        doc: &Doc,
        q: &TaskQuery,
        defines: &[String],
        stop: &dyn Fn() -> bool,
    ) -> Vec<Snippet>;
    /// Fits `files` (best first) into `budget` tokens (bytes / 4); returns
    /// (tokens used, `path:start-end` of the snippets left out).
    fn pack(&self, files: &mut [File], budget: usize) -> (usize, Vec<String>);
}

/// The default post-processing: [`crate::snippets::snippets`] and
/// [`crate::snippets::pack`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Snippets;

impl PostProcess for Snippets {
    fn name(&self) -> &str {
        "snippets"
    }

    fn snippets(
        &self,
        doc: &Doc,
        q: &TaskQuery,
        defines: &[String],
        stop: &dyn Fn() -> bool,
    ) -> Vec<Snippet> {
        crate::snippets::snippets(doc, q, defines, stop)
    }

    fn pack(&self, files: &mut [File], budget: usize) -> (usize, Vec<String>) {
        crate::snippets::pack(files, budget)
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
