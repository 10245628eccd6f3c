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

    #[error("root {path:?} does not exist: pass an existing directory as `root` (or --root)")]
    RootNotFound { path: PathBuf },

    #[error("root {path:?} is not a directory: pass the repository's directory, not a file")]
    RootNotDirectory { path: PathBuf },

    #[error("root {path:?} is outside the server's root {allowed:?} once `..` and symbolic links are resolved: pass a directory inside it (relative to it, or absolute), or start the server with a wider --root or an --allow-root naming it")]
    RootOutsideAllowed { path: PathBuf, allowed: PathBuf },

    #[error("root {path:?} lies in the hidden directory {component:?}: hidden files and directories are never searched, and a root cannot open them. To fix it, {advice}")]
    RootHidden {
        path: PathBuf,
        component: String,
        advice: &'static str,
    },

    #[error("root {path:?} is excluded by the ignore rule {rule:?} in {file:?}: ignored files and directories are never searched, and a root cannot open them. To fix it, {advice}")]
    RootIgnored {
        path: PathBuf,
        rule: String,
        file: PathBuf,
        advice: &'static str,
    },

    #[error("invalid glob {glob:?} in `{field}`: {reason}. Use gitignore-style globs relative to the root, e.g. \"src/**/*.rs\"")]
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

    #[error("unknown session {id:?}: it never existed or expired (sessions last {ttl_minutes} minutes, at most {max} are kept). Call `dispatch` without session_id to start a new one")]
    UnknownSession {
        id: String,
        ttl_minutes: u64,
        max: usize,
    },

    #[error("session {id:?} was started with {field} {started:?}, not {given:?}: a session keeps its task and root. Omit `{field}` to continue it, or call `dispatch` without session_id to start a new session")]
    SessionMismatch {
        id: String,
        field: &'static str,
        started: String,
        given: String,
    },

    #[error("session {id:?} has no candidates to {action} yet: call `dispatch` with this session_id first")]
    NothingToEvaluate { id: String, action: &'static str },

    #[error("invalid judgment for {path:?}: {reason}")]
    InvalidJudgment { path: String, reason: String },

    #[error("cannot read {path:?}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
