//! Errors of the engine. Each variant carries the offending value and says how
//! to fix it; at the MCP boundary they become `isError` results, on the CLI a
//! message on stderr and a non-zero exit.

use std::path::PathBuf;

/// An engine error. The `Display` text (the `#[error]` line of each
/// variant) is the message callers see.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The task is empty or blank.
    #[error(
        "task is empty: pass a non-empty natural-language task, e.g. \"fix the token expiry bug\""
    )]
    EmptyTask,

    /// `dispatch` with neither a task nor a session to continue.
    #[error(
        "dispatch needs either `task` (to start a new session) or `session_id` (to continue one): pass a non-empty natural-language task, e.g. \"fix the token expiry bug\", or the session_id an earlier dispatch returned"
    )]
    DispatchWithoutTask,

    /// The task and its keywords hold no word the search can use.
    #[error("task {:?}{} has no searchable words (terms are runs of ASCII letters, digits and `_`; stopwords, single letters and words over {} bytes are dropped): name the code or behaviour, e.g. \"session cookie SameSite\", or pass search terms as `keywords` (--keyword)", clip(.task), if *.keywords > 0 { format!(" with its {} keyword(s)", .keywords) } else { String::new() }, crate::query::MAX_TERM_BYTES)]
    NoSearchableWords {
        /// The task as given.
        task: String,
        /// How many non-blank keywords came with it (none searchable either).
        keywords: usize,
    },

    /// The `root` argument is given but empty or blank.
    #[error("root {:?} is blank: omit `root` to search the server's root, or pass a directory to search, absolute or relative to the server's root", clip(.given))]
    BlankRoot {
        /// The root as given.
        given: String,
    },

    /// The root does not exist.
    #[error("root {:?}{} does not exist: pass an existing directory as `root` (or --root)", clip_path(.path), resolved_to(.resolved))]
    RootNotFound {
        /// The root as given.
        path: PathBuf,
        /// Where it led, when that reads otherwise (a relative root, one
        /// with `.` or `..`).
        resolved: Option<PathBuf>,
    },

    /// The root is a file, not a directory.
    #[error("root {:?}{} is not a directory: pass the repository's directory, not a file", clip_path(.path), resolved_to(.resolved))]
    RootNotDirectory {
        /// The root as given.
        path: PathBuf,
        /// Where it led, when that reads otherwise.
        resolved: Option<PathBuf>,
    },

    /// The root lies outside the server's root and its `--allow-root`s.
    #[error("root {:?} is outside the server's root {allowed:?} once `..` and symbolic links are resolved: pass a directory inside it (relative to it, or absolute), or start the server with a wider --root or an --allow-root naming it", clip_path(.path))]
    RootOutsideAllowed {
        /// The root as given.
        path: PathBuf,
        /// The server's root.
        allowed: PathBuf,
    },

    /// The root lies in a hidden directory.
    #[error("root {:?} lies in the hidden directory {component:?}: hidden files and directories are never searched, and a root cannot open them. To fix it, {advice}", clip_path(.path))]
    RootHidden {
        /// The root as given.
        path: PathBuf,
        /// The hidden path component (`.git`, `.venv`, ...).
        component: String,
        /// How to search it anyway (CLI flag or server option).
        advice: &'static str,
    },

    /// The root is excluded by an ignore rule.
    #[error("root {:?} is excluded by the ignore rule {rule:?} in {file:?}: ignored files and directories are never searched, and a root cannot open them. To fix it, {advice}", clip_path(.path))]
    RootIgnored {
        /// The root as given.
        path: PathBuf,
        /// The ignore rule that excludes it.
        rule: String,
        /// The ignore file holding the rule.
        file: PathBuf,
        /// How to search it anyway (CLI flag or server option).
        advice: &'static str,
    },

    /// The root is or lies in git's own directory.
    #[error("root {:?} lies in git's own directory `.git`: its objects, hooks and config (a remote's URL may hold a token) are never project content, and no root, include glob or ignore-file whitelist opens them (not --allow-hidden-root nor --allow-root either). To fix it, pass the work tree that holds it", clip_path(.path))]
    RootInGitDir {
        /// The root as given.
        path: PathBuf,
    },

    /// An exclude glob starts with `!`: that means exclude, and only in an
    /// include list (as ripgrep's `-g '!GLOB'` does); in an exclude list it
    /// took back an earlier exclude, or did nothing at all (probe 32, P16).
    #[error("{:?} in `excludes`: a leading `!` means exclude, and only in an include list (`patterns`), as in ripgrep's -g '!GLOB'; an exclude glob cannot start with it. To fix it, put {:?} in `excludes`, or {:?} in `patterns`", clip(.glob), clip(.glob.trim().trim_start_matches('!')), clip(.glob))]
    BangExclude {
        /// The exclude glob as given.
        glob: String,
    },

    /// An include or exclude glob is invalid.
    #[error("invalid glob {:?} in `{field}`: {reason}. Use gitignore-style globs relative to the root, e.g. \"src/**/*.rs\"", clip(.glob))]
    InvalidGlob {
        /// The argument holding it: `patterns` or `excludes`.
        field: &'static str,
        /// The glob as given.
        glob: String,
        /// Why it is refused (its syntax error, or a `..` component).
        reason: String,
    },

    /// No file the walk found matches any include glob: nothing to search.
    #[error("no file under the root {:?} matches the include glob{} {} (`patterns`, --include): nothing was searched ({walked} files walked). To fix it, check each glob's path: it is relative to the root (e.g. \"src/**/*.py\" for the .py files under {:?}), or leave the globs out to search every file", clip_path(.root), if .globs.len() == 1 { "" } else { "s" }, quoted(.globs), clip_path(&.root.join("src")))]
    NothingIncluded {
        /// The include globs, as given.
        globs: Vec<String>,
        /// The root searched.
        root: PathBuf,
        /// How many files the walk found (none of them included).
        walked: usize,
    },

    /// The include globs match only files whose names are not UTF-8, which
    /// no answer, glob or judgment can name: nothing to search.
    #[error("the include glob{} {} (`patterns`, --include) {} only files whose names are not UTF-8, which ctxloop does not read ({}): nothing was searched ({walked} files walked). To fix it, rename those files to UTF-8 names, or change the globs to match files of this tree that can be read", if .globs.len() == 1 { "" } else { "s" }, quoted(.globs), if .globs.len() == 1 { "matches" } else { "match" }, .files.join(", "))]
    IncludedNotReadable {
        /// The include globs, as given.
        globs: Vec<String>,
        /// The files they match, names not UTF-8 written `\xNN` (at most
        /// three, then how many more).
        files: Vec<String>,
        /// The root searched.
        root: PathBuf,
        /// How many files the walk found (those included among them).
        walked: usize,
    },

    /// The exclude globs remove every file the walk found that the include
    /// globs (if any) let through: nothing to search.
    #[error("the exclude glob{} {} (`excludes`, --exclude) {} every file under the root {:?}{}: nothing was searched ({walked} files walked). To fix it, narrow the globs (each is relative to the root; one without `/`, like \"tests\" or \"*.md\", matches at any depth, and \"**\" matches every file), or leave them out", if .globs.len() == 1 { "" } else { "s" }, quoted(.globs), if .globs.len() == 1 { "excludes" } else { "exclude" }, clip_path(.root), if *.with_includes { " that the include globs match" } else { "" })]
    EverythingExcluded {
        /// The exclude globs that match an included file, as given.
        globs: Vec<String>,
        /// The root searched.
        root: PathBuf,
        /// Whether include globs were given (the excludes removed what they let through).
        with_includes: bool,
        /// How many files the walk found (none of them left to search).
        walked: usize,
    },

    /// A numeric setting lies outside its bound.
    #[error("`{field}` = {value} is out of range: it must be between {min} and {max}")]
    OutOfRange {
        /// The setting's name ([`crate::config::Bound::name`]).
        field: &'static str,
        /// The value given.
        value: String,
        /// Smallest accepted value.
        min: String,
        /// Largest accepted value.
        max: String,
    },

    /// A list argument (`patterns`, `excludes`, `keywords`) holds more items
    /// than [`crate::config::MAX_LIST_ITEMS`].
    #[error("`{field}` holds {count} items: pass at most {max}, the ones that matter most (a glob such as \"src/**/*.py\" covers many paths; the task's own words are searched without listing them)")]
    TooManyItems {
        /// The argument: `patterns`, `excludes` or `keywords`.
        field: &'static str,
        /// How many items it holds.
        count: usize,
        /// The most it may hold.
        max: usize,
    },

    /// No session has this id (never started, or expired).
    #[error("unknown session {:?}: it never existed or expired (sessions last {ttl_minutes} minutes, at most {max} are kept). Call `dispatch` without session_id to start a new one", clip(.id))]
    UnknownSession {
        /// The session id given.
        id: String,
        /// How long an unused session lives, in minutes.
        ttl_minutes: u64,
        /// How many sessions are kept at most.
        max: usize,
    },

    /// An earlier call on this session stopped on an internal error (a
    /// panic, caught and answered as an error) and may have left the
    /// session half-updated: it is closed.
    #[error("session {:?} was closed: an earlier call on it stopped on an internal error, which may have left it half-updated. Call `dispatch` without session_id to start a new session (and report the earlier error, please)", clip(.id))]
    SessionBroken {
        /// The session id given.
        id: String,
    },

    /// A continued session was given another task, root or setting.
    #[error("session {:?} was started with {field} {:?}, not {:?}: a session keeps the task, root and settings it started with. Omit `{field}` to continue it, or call `dispatch` without session_id to start a new session", clip(.id), clip(.started), clip(.given))]
    SessionMismatch {
        /// The session id.
        id: String,
        /// The argument that differs (`task`, `root`, a setting).
        field: &'static str,
        /// The session's value.
        started: String,
        /// The value given.
        given: String,
    },

    /// `evaluate` before `dispatch`, or `refine` before `evaluate`.
    #[error("session {:?} has nothing to {action} yet: call `{}` with this session_id first", clip(.id), step_before(.action))]
    NothingToEvaluate {
        /// The session id.
        id: String,
        /// The step called too early: `evaluate` or `refine`.
        action: &'static str,
    },

    /// `dispatch` of a session that has run all of its `max_cycles` cycles.
    #[error("session {:?} has run all of its {max_cycles} cycles (max_cycles): its last `evaluate` holds the answer. Call `evaluate` with this session_id to read it again, or `dispatch` without session_id to start a new session (max_cycles up to 10)", clip(.id))]
    CyclesSpent {
        /// The session id.
        id: String,
        /// The session's `max_cycles`.
        max_cycles: usize,
    },

    /// `--history-git-dir` and `--history-commit` name no readable commit.
    #[error("cannot read the history at {:?} in {:?}: it is not a git directory, or it holds no such commit, or git is not installed. Pass the repository's git directory (a bare repository or its .git) and a commit it holds, or drop --history-git-dir to use the root's own repository", clip(.commit), clip_path(.git_dir))]
    HistoryUnreadable {
        /// The git directory given.
        git_dir: std::path::PathBuf,
        /// The commit given.
        commit: String,
    },

    /// A judgment's relevance is outside [0, 1] or its path is not a session file.
    #[error("invalid judgment for {:?}: {reason}", clip(.path))]
    InvalidJudgment {
        /// The judged path as given.
        path: String,
        /// Why it is refused.
        reason: String,
    },

    /// The cache directory (`--cache-dir`, `CTXLOOP_CACHE_DIR`) cannot be
    /// created or used.
    #[error("cannot use the cache directory {path:?}: {why}. Name a directory you can create and write with --cache-dir (or CTXLOOP_CACHE_DIR), or set neither to run without a cache")]
    CacheDir {
        /// The directory as given.
        path: PathBuf,
        /// The operating system's error. Not the error's `source`: the
        /// message says it already, and the CLI prints an error's sources
        /// after it (it was said twice).
        why: std::io::Error,
    },

    /// The cache directory lies inside the root searched, or the root inside
    /// the cache directory: the walk would index the cache's entries, and
    /// every call would change the tree it searches.
    #[error("the cache directory {cache:?} {relation} {root:?}: the walk would index the cache, and each call would change the tree it searches. Pass a --cache-dir (or CTXLOOP_CACHE_DIR) outside the root and not above it, e.g. ~/.cache/ctxloop for a project's root")]
    CacheInsideRoot {
        /// The cache directory, resolved.
        cache: PathBuf,
        /// `lies inside the root` or `holds the root`.
        relation: &'static str,
        /// The root, resolved.
        root: PathBuf,
    },

    /// A file could not be read.
    #[error("cannot read {path:?}: {why}")]
    Io {
        /// The path that could not be read.
        path: PathBuf,
        /// The operating system's error (not the `source`, as in
        /// [`Error::CacheDir`]).
        why: std::io::Error,
    },
}

/// Longest echo of a caller's value in an error message, in characters.
pub const ECHO_CHARS: usize = 200;

/// `s` cut to [`ECHO_CHARS`] characters, saying how long it was: an error
/// must not hand a megabyte task back to the caller.
pub fn clip(s: &str) -> String {
    clip_to(s, ECHO_CHARS)
}

/// `s` cut to `max` characters, marked when cut with its length in bytes
/// (what [`clip`] does at [`ECHO_CHARS`]; the JSON-RPC transport quotes
/// methods and malformed requests at its own lengths).
pub fn clip_to(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

fn clip_path(p: &std::path::Path) -> String {
    clip(&p.to_string_lossy())
}

/// ` (resolved to "/abs/path")` after a root named as given, when it led
/// somewhere that reads otherwise; nothing when not.
fn resolved_to(resolved: &Option<PathBuf>) -> String {
    resolved
        .as_deref()
        .map(|p| format!(" (resolved to {:?})", clip_path(p)))
        .unwrap_or_default()
}

/// Globs as a list of quoted, clipped strings: `"a/**", "b"`.
fn quoted(globs: &[String]) -> String {
    globs
        .iter()
        .map(|g| format!("{:?}", clip(g)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The step to call before `action`: evaluate builds on a dispatch, refine on an evaluation.
fn step_before(action: &str) -> &'static str {
    if action == "refine" {
        "evaluate"
    } else {
        "dispatch"
    }
}

/// A result whose error is an engine [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
