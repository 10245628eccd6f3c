//! ctxloop: the iterative retrieval loop (dispatch → evaluate → refine) that
//! gathers the source files a coding task needs, as an MCP server and a CLI.
//!
//! As a library: build an [`Engine`] once (it caches file contents by path,
//! size and mtime) and call [`Engine::retrieve`] with a [`RetrieveRequest`]
//! (or the `retrieve` tool's [`RetrieveParams`]); [`Engine::retrieve_with`]
//! takes [`CallOptions`] (weights, cancellation, progress). The step-wise
//! [`Engine::dispatch`], [`Engine::evaluate`] and [`Engine::refine`] keep a
//! session between calls. Errors are [`Error`]s whose text says how to fix
//! the input; numeric settings are bounded by the [`config`] consts.
//!
//! Map: `walk` lists files, `corpus` reads and caches them, `query` turns the
//! task into terms, `lang` finds symbols with tree-sitter, `score` ranks and
//! calibrates, `gaps` names missing context, `session` runs the
//! dispatch/evaluate/refine steps, `output` packs snippets into the token
//! budget, [`engine`] ties them together for [`server`] and [`cli`]. Requests
//! come in through [`request`] (the MCP [`tools`] params convert into them),
//! results go out as [`types`].

#![warn(missing_docs)]

#[doc(hidden)]
pub mod bench;
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
mod lang;
mod limits;
// Being split into a folder in parallel; its docs come with the split.
#[allow(missing_docs)]
mod output;
// Being split into a folder in parallel; its docs come with the split.
#[allow(missing_docs)]
mod query;
pub mod request;
// Reached by the hidden `test_support` module when the feature is on; the
// library's own build (feature off) checks their docs.
#[cfg_attr(feature = "test-support", allow(missing_docs))]
mod root;
mod safe_open;
// Being split into a folder in parallel; its docs come with the split.
#[allow(missing_docs)]
mod score;
pub mod server;
mod session;
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
