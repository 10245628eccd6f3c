//! The result shapes of DESIGN.md §2, shared by the MCP tools and the CLI.
//!
//! Paths are relative to the searched root and `/`-separated; line numbers are
//! 1-based and inclusive. Every struct derives `JsonSchema`, so the doc comments
//! here become the `outputSchema` descriptions agents see.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Relevance tier of a file. `high` >= the high threshold (0.7 by default),
/// `medium` >= 0.5, `low` below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Directly implements the target of the task.
    High,
    /// Related types, callers or patterns.
    Medium,
    /// Probably not needed.
    Low,
}

impl Tier {
    /// Tier of a relevance score given the high threshold (medium starts at 0.5,
    /// or at the high threshold when that is lower).
    pub fn of(relevance: f64, high_threshold: f64) -> Tier {
        if relevance >= high_threshold {
            Tier::High
        } else if relevance >= 0.5_f64.min(high_threshold) {
            Tier::Medium
        } else {
            Tier::Low
        }
    }

    /// The name as serialized (snake_case), for text renderings.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::High => "high",
            Tier::Medium => "medium",
            Tier::Low => "low",
        }
    }
}

/// A slice of a file: the definition or region that matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Snippet {
    /// First line, 1-based, inclusive.
    pub start_line: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// The lines' text. Empty when the snippet was degraded to a `path:start-end`
    /// handle to stay inside the token budget.
    pub text: String,
}

/// A ranked file with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct File {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// Calibrated relevance in [0, 1].
    pub relevance: f64,
    /// Tier derived from `relevance`.
    pub tier: Tier,
    /// Human-readable evidence: matched terms, definitions, path matches, graph edges.
    pub reasons: Vec<String>,
    /// Matching regions with 1-based inclusive line ranges, packed into the token budget.
    pub snippets: Vec<Snippet>,
}

/// Missing context, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gap {
    /// `undefined_symbol` (a high file uses an identifier defined in a file not in
    /// context), `missing_parent` (a base class or trait of a high file's
    /// definitions is defined elsewhere), `config_file` (a high file names a
    /// configuration file not in context), `uncovered_concept` (a query concept no
    /// high file covers) or `agent_reported` (from an agent's `missing_context`).
    #[schemars(with = "String")]
    pub kind: GapKind,
    /// One sentence saying what is missing.
    pub description: String,
    /// The identifier concerned, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Where the need was seen, as `path:line` (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referenced_from: Option<String>,
    /// Files that would close the gap (e.g. the files defining `symbol`).
    pub suggested_paths: Vec<String>,
    /// When true the loop cannot be called sufficient while this gap is open.
    pub critical: bool,
}

/// What kind of context a [`Gap`] says is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// A high file uses an identifier defined in a file not in context.
    UndefinedSymbol,
    /// A base class or trait of a high file's definitions is defined elsewhere.
    MissingParent,
    /// A high file names a configuration file not in context.
    ConfigFile,
    /// A query concept no high file covers.
    UncoveredConcept,
    /// From an agent's `missing_context`.
    AgentReported,
}

impl GapKind {
    /// The name as serialized (snake_case), for text renderings.
    pub fn as_str(self) -> &'static str {
        match self {
            GapKind::UndefinedSymbol => "undefined_symbol",
            GapKind::MissingParent => "missing_parent",
            GapKind::ConfigFile => "config_file",
            GapKind::UncoveredConcept => "uncovered_concept",
            GapKind::AgentReported => "agent_reported",
        }
    }
}

impl std::fmt::Display for GapKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one DISPATCH searches with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Query {
    /// Include globs (gitignore syntax, relative to the root). Empty = every file.
    pub patterns: Vec<String>,
    /// Search terms: identifiers are kept whole and split into their parts.
    pub keywords: Vec<String>,
    /// Exclude globs or paths.
    pub excludes: Vec<String>,
    /// Paths, directories or modules to favour (from the task text or from high files).
    pub focus_areas: Vec<String>,
}

/// A file and its score, as kept in the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scored {
    /// Path relative to the root.
    pub path: String,
    /// Calibrated relevance in [0, 1].
    pub relevance: f64,
}

/// One DISPATCH → EVALUATE → REFINE pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cycle {
    /// 1-based cycle number.
    pub cycle: usize,
    /// The query this cycle searched with.
    pub query: Query,
    /// Best files of the cycle (at most 5).
    pub top: Vec<Scored>,
    /// Gaps open after the cycle.
    pub gaps: Vec<Gap>,
    /// `finalize` or `refine`, with the reason after a colon.
    pub decision: String,
}

/// The tree that answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Root {
    /// Absolute, canonical path searched.
    pub path: String,
    /// Top level of the git worktree containing `path`, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_toplevel: Option<String>,
    /// Commit id of `HEAD` of that worktree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Whether the worktree has uncommitted changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
}

/// Files skipped by kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// Files with NUL bytes in their first 8 KiB.
    pub binary: usize,
    /// Files above the size limit (1 MiB).
    pub too_large: usize,
    /// Minified or generated files (very long lines).
    pub minified: usize,
    /// Files that could not be read (permissions, vanished mid-walk).
    pub unreadable: usize,
    /// Files the last cycle's globs excluded: the caller's and those `refine` added for low files, which an earlier cycle may have listed (ignore files and hidden files are not counted).
    pub ignored: usize,
    /// Files walked but not read because the call's deadline passed or it was cancelled.
    pub not_read: usize,
    /// Symbolic links not followed: their target is outside the root or cannot be resolved (dangling). Nothing outside the root is read.
    pub links_not_followed: usize,
    /// Files whose name, or a directory's above them, is not UTF-8: listed in `stats.skipped_files`, not read. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub name_not_utf8: usize,
    /// Directories that could not be read, in full or in part (permission denied, a path longer than the system allows, an I/O error): the files below them are not searched. Listed in `stats.skipped_files`, unless the query's globs leave no file there (an exclude removes it whole, or no include glob can match below it). Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dirs_not_read: usize,
    /// Errors the walk met that name no directory it searched: an ignore file, or a line of one, that could not be read or parsed (the root's parents' ignore files included), or an entry whose type could not be read. An ignore rule lost to one lets through the files it would have skipped. Counted, not listed (their paths may lie outside the root or be hidden); the server's log names each at debug level (RUST_LOG=ctxloop=debug). Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub walk_errors: usize,
}

/// Whether a count is zero (a count added after the others is left out of
/// answers that have none, so they read as before).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Why an answer is partial: the call stopped before the loop finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Truncated {
    /// `deadline` or `cancelled`.
    #[schemars(with = "String")]
    pub reason: StopReason,
    /// Where the work stopped, e.g. "deadline of 100 ms passed in cycle 1 while
    /// reading files: 3,120 of 78,258 read".
    pub detail: String,
}

/// Work done by a call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// Files seen by the walker after the hidden and ignore rules (those
    /// whose names are not UTF-8 among them, never read: `skipped.name_not_utf8`).
    pub files_walked: usize,
    /// Files scored (text files that passed the filters).
    pub files_scored: usize,
    /// Files skipped, by kind.
    pub skipped: Skipped,
    /// Source files the call needed the syntax tree of (to find definitions,
    /// choose snippets or look for gaps) but ranked by their text alone: BM25,
    /// paths and priors, no definition or neighbour evidence, snippets around
    /// the densest lines. Sorted by path; absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_parsed: Vec<NotParsed>,
    /// Files and directories the walk found (past the hidden and ignore
    /// rules, and the query's globs) but did not search, each with why;
    /// sorted by path, at most 100 (`skipped.name_not_utf8` and
    /// `skipped.dirs_not_read` count them all); absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<SkippedFile>,
    /// Include globs (`patterns`, --include) that matched no file the walk
    /// found, as given: check each one's path, which is relative to the
    /// root. Absent when every include glob matched a file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched_patterns: Vec<String>,
    /// Set when the task held more distinct terms than a query searches for
    /// (1,024): the rest still name paths and modules, not words to count.
    /// Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms_cut: Option<TermsCut>,
    /// Wall time of the call in milliseconds.
    pub elapsed_ms: u64,
}

/// How a task's terms were cut to the 1,024 a query searches for (see
/// `Stats::terms_cut`): its first 64 terms by mention, then the heaviest
/// (title and keyword words, repeated ones), code-like and longer first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TermsCut {
    /// Distinct terms searched for.
    pub kept: usize,
    /// Distinct terms of the task and keywords (identifiers whole and their parts).
    pub total: usize,
    /// The first 20 terms left out, by order of mention: put the words that
    /// matter first in the task, or in `keywords`.
    pub dropped: Vec<String>,
}

/// A file or directory the walk found and the call did not search (see `Stats::skipped_files`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    /// Path relative to the root, `/`-separated; a byte of a name that is
    /// not UTF-8 is written `\xNN`. A path over 200 characters is cut to
    /// them and ends `… (N bytes in all)`.
    pub path: String,
    /// Why: `file name is not UTF-8` or `directory name is not UTF-8` (the
    /// file cannot be named in an answer or a glob; rename it to search it),
    /// or `directory could not be read: ` (`could be read only in part: `)
    /// and the system's message, e.g. `Permission denied (os error 13)` (no
    /// file below it is searched).
    pub reason: String,
}

/// A source file ranked without its syntax tree (see `Stats::not_parsed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotParsed {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// `parse_budget`: parsing it took longer than its budget (250 ms plus
    /// 1 ms per KB of text); kept until the file changes. `stopped`: the
    /// call's deadline passed or it was cancelled while the file was parsed
    /// (`truncated` says which); the next call parses it again.
    pub reason: String,
}

/// Why the loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// At least `min_high` high files and no critical gap.
    Sufficient,
    /// `max_cycles` cycles ran.
    MaxCycles,
    /// The best score improved by less than 0.02 over the previous cycle.
    Converged,
    /// The token budget is full.
    Budget,
    /// Nothing matched the query.
    NoCandidates,
    /// The call's deadline passed (`truncated` says where).
    Deadline,
    /// The client cancelled the call.
    Cancelled,
}

impl StopReason {
    /// The name as serialized (snake_case), for text renderings.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Sufficient => "sufficient",
            StopReason::MaxCycles => "max_cycles",
            StopReason::Converged => "converged",
            StopReason::Budget => "budget",
            StopReason::NoCandidates => "no_candidates",
            StopReason::Deadline => "deadline",
            StopReason::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `evaluate` says the agent should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Enough context (or the loop must stop): use the files.
    Finalize,
    /// Call `refine`, then `dispatch`.
    Refine,
}

impl DecisionKind {
    /// The name as serialized (snake_case), for text renderings.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Finalize => "finalize",
            DecisionKind::Refine => "refine",
        }
    }
}

impl std::fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Result of `retrieve`: the whole loop in one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetrieveOutput {
    /// Files ranked by relevance, best first (at most `limit`).
    pub files: Vec<File>,
    /// Gaps still open when the loop stopped.
    pub gaps: Vec<Gap>,
    /// Why the loop stopped.
    pub stop_reason: StopReason,
    /// One entry per cycle.
    pub cycles: Vec<Cycle>,
    /// The tree searched.
    pub root: Root,
    /// Work done.
    pub stats: Stats,
    /// Files or snippets left out to stay inside `budget_tokens`, as `path:start-end` handles.
    pub dropped: Vec<String>,
    /// Estimated tokens of the returned snippets (bytes / 4).
    pub tokens: usize,
    /// Set when the call stopped early (deadline or cancellation): the files are
    /// the best found so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
}

/// Result of `dispatch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DispatchOutput {
    /// Pass this to `evaluate`, `refine` and the next `dispatch`.
    pub session_id: String,
    /// 1-based cycle this dispatch ran.
    pub cycle: usize,
    /// The query used.
    pub query: Query,
    /// Candidates ranked by the server's score, with evidence and snippets
    /// (1-based inclusive line ranges) packed into the session's
    /// `budget_tokens` as in `retrieve`. Files returned by an earlier cycle
    /// are left out unless their score changed.
    pub candidates: Vec<File>,
    /// Snippets of `candidates` left out to stay inside `budget_tokens`, as
    /// `path:start-end` handles (their `text` is empty).
    pub dropped: Vec<String>,
    /// Estimated tokens of the candidates' text rendering (bytes / 4): header
    /// lines, snippets and handles.
    pub tokens: usize,
    /// Work done.
    pub stats: Stats,
    /// Set when the walk or the reading stopped early (deadline or cancellation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
}

/// Result of `evaluate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluateOutput {
    // Undocumented on purpose: a doc comment here would become a description
    // in the tool's output schema (pinned by the tools_list snapshot).
    #[allow(missing_docs)]
    pub session_id: String,
    // Undocumented on purpose: a doc comment here would become a description
    // in the tool's output schema (pinned by the tools_list snapshot).
    #[allow(missing_docs)]
    pub cycle: usize,
    /// Every candidate of the cycle with its final relevance (agent judgments
    /// applied), best first. The files in context (the session's best `limit`)
    /// carry their snippets, packed into `budget_tokens` as in `retrieve`:
    /// on `finalize`, the high files with their line ranges are the answer.
    pub evaluations: Vec<File>,
    /// Snippets of `evaluations` left out to stay inside `budget_tokens`, as
    /// `path:start-end` handles (their `text` is empty).
    pub dropped: Vec<String>,
    /// Estimated tokens of the evaluations' text rendering (bytes / 4).
    pub tokens: usize,
    /// Missing context.
    pub gaps: Vec<Gap>,
    /// Number of files in the session at or above the high threshold.
    pub high_count: usize,
    /// `finalize` (enough context) or `refine` (call `refine`, then `dispatch`).
    #[schemars(with = "String")]
    pub decision: DecisionKind,
}

/// What `refine` added to the query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Added {
    /// New keywords with the reason for each (`term: why`): `dependency` or
    /// `parent` of a high file (a gap's symbol), or `from the agent`.
    pub keywords: Vec<String>,
    /// New include globs with the reason for each (`glob: why`).
    pub patterns: Vec<String>,
    /// New focus areas, each as `path: strategy — why`. Strategies: `dependency`
    /// (defines what a high file uses), `parent` (defines a high file's base
    /// class or trait), `config` (a configuration file a high file names),
    /// `neighbourhood` (the directory of a high file).
    pub focus_areas: Vec<String>,
    /// Files the next `dispatch` brings in as candidates because they are
    /// linked to a high file in the code graph, each as `path: why`
    /// (`uses `x` from high file P`: a caller; `defines `x` used by high
    /// file P`: a callee or an import; `same name as high file P`: `foo.h`
    /// beside `foo.c`). At most 4 a cycle.
    #[serde(default)]
    pub candidates: Vec<String>,
}

/// Result of `refine`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RefineOutput {
    // Undocumented on purpose: a doc comment here would become a description
    // in the tool's output schema (pinned by the tools_list snapshot).
    #[allow(missing_docs)]
    pub session_id: String,
    /// The cycle the next `dispatch` will run.
    pub cycle: usize,
    /// The query for the next cycle.
    pub query: Query,
    /// What was added and why.
    pub added: Added,
    /// Paths excluded from now on, with reasons.
    pub excluded: Vec<String>,
    /// True when the loop should stop.
    pub done: bool,
    /// Why it stopped, when `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Files kept by the session so far, best first.
    pub files: Vec<Scored>,
}
