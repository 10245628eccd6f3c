//! ctxloop: the iterative retrieval loop (dispatch → evaluate → refine) that
//! gathers the source files a coding task needs, as an MCP server and a CLI.
//! `ARCHITECTURE.md` at the top of the repository says where each kind of
//! change goes.
//!
//! As a library: build an [`Engine`] once (it caches file contents by path,
//! size and mtime) and call [`Engine::retrieve`] with a [`RetrieveRequest`]
//! (or the `retrieve` tool's [`RetrieveParams`]) and [`CallOptions`]
//! (weights, cancellation, progress, history; [`CallOptions::PLAIN`] for
//! none). The step-wise [`Engine::dispatch`], [`Engine::evaluate`] and
//! [`Engine::refine`] take the same pair and keep a session between calls.
//! Errors are [`Error`]s whose text says how to fix the input; numeric
//! settings are bounded by the [`config`] consts.
//!
//! Map, from the edges in to the loop and back out:
//! - entry points: [`server`] (MCP over stdio; its router is built from
//!   [`tools::TOOLS`], one [`tools::Tool`] per file: params, the call, the
//!   text) and [`cli`]; both call only [`engine`], the façade: the file
//!   cache, the sessions, and `retrieve` (the whole loop), each step taking
//!   a [`request`] and [`CallOptions`].
//! - settings: [`config`] validates a call's [`request`] into a `LoopConfig`,
//!   `root` resolves and confines the root and reads its git provenance,
//!   `limits` holds a call's deadline and cancellation.
//! - the loop: `session` — `session/dispatch.rs`, `evaluate.rs`,
//!   `refine.rs`, the stop rule in `stop.rs`, code-graph links in
//!   `links.rs`, the store in `store.rs`.
//! - the stages it runs, pluggable through [`pipeline`]: [`query`] (task →
//!   weighted terms: `tokenize`, `termset`, `stopwords`), [`score`] (one file
//!   per signal: `bm25`, `definitions`, `passage`, `priors`, `neighbours`,
//!   `explicit`, `history` (over [`history`]: past commits), then
//!   `calibrate`; numbers in `weights`), `gaps` (missing context),
//!   `snippets` (snippet selection in `select`, `evidence`, `cut`; the
//!   token budget in `budget`).
//! - reading the tree: `walk` lists files (`confine` keeps the walk
//!   beneath the root, `safe_open` opens without following links),
//!   `corpus` reads and caches them (`corpus/read.rs` the text,
//!   `doc.rs` one file version, `counts.rs` term counts, `holders.rs`
//!   which files hold a name, `filter.rs` a large tree's per-file term
//!   filter), `lang` finds symbols with tree-sitter
//!   (`queries/<lang>/tags.scm`): the language table in `lang/table.rs`,
//!   bounded parsing in `parse.rs` and `clock.rs`, the query's matches in
//!   `tags.rs`, and `defines.rs` the line check of whether a file could
//!   define a name (so the gap search parses only those holders).
//!   [`cache`] is the opt-in persistent cache (`--cache-dir`) of parsed
//!   symbols and term indexes, keyed by each file's text and the build, and
//!   of the history's `git log` per commit.
//! - the answer: [`types`] (the structured shapes, DESIGN §2) and [`render`]
//!   (the text of every tool and the Markdown of `retrieve`); [`error`].
//! - [`bench`](mod@bench): `ctxloop bench` on the development sets.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod bench;
pub mod cache;
pub mod cli;
pub mod config;
// Reached by the hidden `test_support` module when the feature is on; the
// library's own build (feature off) checks their docs.
#[cfg_attr(feature = "test-support", allow(missing_docs))]
mod confine;
// Reached by the hidden `test_support` module when the feature is on; the
// library's own build (feature off) checks their docs.
#[cfg_attr(feature = "test-support", allow(missing_docs))]
mod corpus;
pub mod engine;
pub mod error;
mod gaps;
pub mod history;
mod lang;
mod limits;
pub mod pipeline;
pub mod query;
pub mod render;
pub mod request;
// Reached by the hidden `test_support` module when the feature is on; the
// library's own build (feature off) checks their docs.
#[cfg_attr(feature = "test-support", allow(missing_docs))]
mod root;
mod safe_open;
pub mod score;
pub mod server;
mod session;
pub(crate) mod snippets;
pub mod tools;
pub mod types;
// Reached by the hidden `test_support` module when the feature is on; the
// library's own build (feature off) checks their docs.
#[cfg_attr(feature = "test-support", allow(missing_docs))]
mod walk;

pub use engine::{Engine, EngineOptions};
pub use error::{Error, Result};
pub use request::{
    CallOptions, DispatchRequest, EvaluateRequest, Judgment, RefineRequest, RetrieveRequest,
};
pub use score::Weights;
pub use tools::dispatch::DispatchParams;
pub use tools::evaluate::EvaluateParams;
pub use tools::refine::RefineParams;
pub use tools::retrieve::RetrieveParams;
pub use types::{DispatchOutput, EvaluateOutput, RefineOutput, RetrieveOutput};

/// The internals the integration tests, fuzz targets and benchmarks reach
/// (feature `test-support`, on for every test build). Not API: these move.
#[cfg(feature = "test-support")]
#[doc(hidden)]
pub mod test_support {
    pub use crate::confine::server_roots;
    pub use crate::corpus::{Corpus, Doc, Skip, MAX_FILE_BYTES};
    pub use crate::query::TaskQuery;
    pub use crate::root::scratch_git;
    pub use crate::score::{score, Candidate, Focus, Scored, Weights};
    pub use crate::walk::{normalize_glob, walk, Filter};
}
