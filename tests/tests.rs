//! The integration tests, as one test binary (ripgrep's `tests/tests.rs`
//! layout): an edit in `src/` relinks one executable, not one per file.
//! Each module is a file beside this one; `common` holds the shared helpers.

mod common;

mod binary;
mod bounded;
mod concurrency;
mod confinement;
mod custom_signal;
mod disk_cache;
mod evidence;
mod expand;
mod fuzz_regressions;
mod gaps;
mod history;
mod languages;
mod links;
mod mcp_tools;
mod odd_files;
mod pinned;
mod prefetch;
mod properties;
mod tools_list;
mod version;
