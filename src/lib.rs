//! ctxloop: the iterative retrieval loop (dispatch → evaluate → refine) that
//! gathers the source files a coding task needs, as an MCP server and a CLI.
//!
//! Map: [`walk`] lists files, [`corpus`] reads and caches them, [`query`] turns
//! the task into terms, [`lang`] finds symbols with tree-sitter, [`score`] ranks
//! and calibrates, [`gaps`] names missing context, [`session`] runs the
//! dispatch/evaluate/refine steps, [`output`] packs snippets into the token
//! budget, [`engine`] ties them together for [`server`] and the CLI.

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
pub mod output;
pub mod query;
pub mod request;
pub mod root;
pub mod safe_open;
pub mod score;
pub mod server;
pub mod session;
pub mod tools;
pub mod types;
pub mod walk;
