//! Errors of the engine. Each variant carries the offending value and says how
//! to fix it; at the MCP boundary they become `isError` results, on the CLI a
//! message on stderr and a non-zero exit.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "task is empty: pass a non-empty natural-language task, e.g. \"fix the token expiry bug\""
    )]
    EmptyTask,

    #[error("root {:?} does not exist: pass an existing directory as `root` (or --root)", clip_path(.path))]
    RootNotFound { path: PathBuf },

    #[error("root {:?} is not a directory: pass the repository's directory, not a file", clip_path(.path))]
    RootNotDirectory { path: PathBuf },

    #[error("root {:?} is outside the server's root {allowed:?} once `..` and symbolic links are resolved: pass a directory inside it (relative to it, or absolute), or start the server with a wider --root or an --allow-root naming it", clip_path(.path))]
    RootOutsideAllowed { path: PathBuf, allowed: PathBuf },

    #[error("root {:?} lies in the hidden directory {component:?}: hidden files and directories are never searched, and a root cannot open them. To fix it, {advice}", clip_path(.path))]
    RootHidden {
        path: PathBuf,
        component: String,
        advice: &'static str,
    },

    #[error("root {:?} is excluded by the ignore rule {rule:?} in {file:?}: ignored files and directories are never searched, and a root cannot open them. To fix it, {advice}", clip_path(.path))]
    RootIgnored {
        path: PathBuf,
        rule: String,
        file: PathBuf,
        advice: &'static str,
    },

    #[error("invalid glob {:?} in `{field}`: {reason}. Use gitignore-style globs relative to the root, e.g. \"src/**/*.rs\"", clip(.glob))]
    InvalidGlob {
        field: &'static str,
        glob: String,
        reason: String,
    },

    #[error("`{field}` = {value} is out of range: it must be between {min} and {max}")]
    OutOfRange {
        field: &'static str,
        value: String,
        min: String,
        max: String,
    },

    #[error("unknown session {:?}: it never existed or expired (sessions last {ttl_minutes} minutes, at most {max} are kept). Call `dispatch` without session_id to start a new one", clip(.id))]
    UnknownSession {
        id: String,
        ttl_minutes: u64,
        max: usize,
    },

    #[error("session {:?} was started with {field} {:?}, not {:?}: a session keeps the task, root and settings it started with. Omit `{field}` to continue it, or call `dispatch` without session_id to start a new session", clip(.id), clip(.started), clip(.given))]
    SessionMismatch {
        id: String,
        field: &'static str,
        started: String,
        given: String,
    },

    #[error("session {:?} has nothing to {action} yet: call `{}` with this session_id first", clip(.id), step_before(.action))]
    NothingToEvaluate { id: String, action: &'static str },

    #[error("invalid judgment for {:?}: {reason}", clip(.path))]
    InvalidJudgment { path: String, reason: String },

    #[error("cannot read {path:?}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Longest echo of a caller's value in an error message, in characters.
pub const ECHO_CHARS: usize = 200;

/// `s` cut to [`ECHO_CHARS`] characters, saying how long it was: an error
/// must not hand a megabyte task back to the caller.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(ECHO_CHARS) {
        Some((i, _)) => format!("{}… ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

fn clip_path(p: &std::path::Path) -> String {
    clip(&p.to_string_lossy())
}

/// The step to call before `action`: evaluate builds on a dispatch, refine on an evaluation.
fn step_before(action: &str) -> &'static str {
    if action == "refine" {
        "evaluate"
    } else {
        "dispatch"
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
