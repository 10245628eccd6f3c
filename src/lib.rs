//! ctxloop: the iterative retrieval loop (dispatch → evaluate → refine) that
//! gathers the source files a coding task needs, as an MCP server and a CLI.
//! `ARCHITECTURE.md` at the top of the repository says where each kind of
//! change goes.
//!
//! Map, from the edges in to the loop and back out:
//! - entry points: [`server`] (MCP over stdio; params in [`tools`]) and
//!   [`cli`]; both call only [`engine`], the façade: the file cache, the
//!   sessions, and `retrieve` (the whole loop).
//! - settings: [`config`] validates a call's knobs into a `LoopConfig`,
//!   [`root`] resolves and confines the root and reads its git provenance,
//!   [`limits`] holds a call's deadline and cancellation.
//! - the loop: [`session`] — `session/dispatch.rs`, `evaluate.rs`,
//!   `refine.rs`, the stop rule in `stop.rs`, the store in `store.rs`.
//! - the stages it runs, pluggable through [`pipeline`]: [`query`] (task →
//!   weighted terms: `tokenize`, `termset`, `stopwords`), [`score`] (one file
//!   per signal: `bm25`, `definitions`, `priors`, `neighbours`, `explicit`,
//!   then `calibrate`; numbers in `weights`), [`gaps`] (missing context),
//!   [`snippets`] (snippet selection and the token budget).
//! - reading the tree: [`walk`] lists files ([`confine`] keeps the walk
//!   beneath the root, [`safe_open`] opens without following links),
//!   [`corpus`] reads and caches them, [`lang`] finds symbols with
//!   tree-sitter (`queries/<lang>/tags.scm`).
//! - the answer: [`types`] (the structured shapes, DESIGN §2) and [`render`]
//!   (the text of every tool and the Markdown of `retrieve`); [`error`].
//! - [`bench`](mod@bench): `ctxloop bench` on the development sets.

pub mod bench;
pub mod cli;
pub mod config;
pub mod confine;
pub mod corpus;
pub mod engine;
pub mod error;
pub mod gaps;
pub mod lang;
pub mod limits;
pub mod pipeline;
pub mod query;
pub mod render;
pub mod root;
pub mod safe_open;
pub mod score;
pub mod server;
pub mod session;
pub mod snippets;
pub mod tools;
pub mod types;
pub mod walk;
