//! What the engine is asked: one request type per step, plain data owned by
//! the core. The MCP tools' parameters ([`crate::tools`]) and the CLI convert
//! into these, so the dependency points from the edges inward.

use crate::error::{clip, Error, Result};
use crate::history::HistorySource;
use crate::score::Weights;
use tokio_util::sync::CancellationToken;

/// A whole loop (`retrieve`), or the start of a session (`dispatch`). Each
/// `None` setting takes its [`crate::config::Bound`]'s default.
#[derive(Debug, Clone, Default)]
pub struct RetrieveRequest {
    /// The coding task in natural language (not empty).
    pub task: String,
    /// Directory to search, absolute or relative to the engine's root.
    pub root: Option<String>,
    /// Include globs, gitignore-style, relative to the root; a leading `!`
    /// excludes, as in ripgrep's `-g` (README, What gets walked).
    pub patterns: Vec<String>,
    /// Extra search terms, weighed like the task's title.
    pub keywords: Vec<String>,
    /// Exclude globs or paths; none starts with `!`.
    pub excludes: Vec<String>,
    /// See [`crate::config::MAX_CYCLES`].
    pub max_cycles: Option<usize>,
    /// See [`crate::config::MIN_HIGH`].
    pub min_high: Option<usize>,
    /// See [`crate::config::HIGH_THRESHOLD`].
    pub high_threshold: Option<f64>,
    /// See [`crate::config::LIMIT`].
    pub limit: Option<usize>,
    /// See [`crate::config::BUDGET_TOKENS`].
    pub budget_tokens: Option<usize>,
    /// This call's deadline in ms ([`crate::config::DEADLINE_MS`]); default:
    /// the engine's. Only `retrieve` reads it.
    pub deadline_ms: Option<u64>,
}

/// One `dispatch` call: a new session (no `session_id`; `start` holds its
/// task, root, filters and settings) or the next cycle of one (`start`'s
/// filters are added; its task, root and settings must be omitted or equal
/// the session's, and its `limit` replaces the session's).
#[derive(Debug, Clone, Default)]
pub struct DispatchRequest {
    /// The session to continue, or `None` to start one.
    pub session_id: Option<String>,
    /// The task, root, filters and settings (`deadline_ms` is not read).
    pub start: RetrieveRequest,
}

/// One `evaluate` call.
#[derive(Debug, Clone, Default)]
pub struct EvaluateRequest {
    /// The session from `dispatch`.
    pub session_id: String,
    /// The agent's judgments; files without one keep the engine's score.
    pub judgments: Vec<Judgment>,
}

/// The calling agent's judgment of one file, as given.
#[derive(Debug, Clone, Default)]
pub struct Judgment {
    /// Path as `dispatch` returned it (relative to the root).
    pub path: String,
    /// The agent's relevance in [0, 1]; it replaces the engine's score.
    pub relevance: f64,
    /// What this file needs that is not in context yet; becomes a gap.
    pub missing_context: Option<String>,
}

/// A judgment checked before the session sees it: relevance in [0, 1], path
/// as [`judged_path`] writes it.
#[derive(Debug, Clone)]
pub(crate) struct ValidJudgment {
    /// The normalised path (a key of the session's files).
    pub(crate) path: String,
    /// The path as given, for error messages.
    pub(crate) given: String,
    pub(crate) relevance: f64,
    /// Non-blank `missing_context`.
    pub(crate) missing_context: Option<String>,
}

/// `x` as an error message echoes it: in full up to 24 characters, else in
/// scientific notation (`1e308`, which `{}` writes as 309 digits, past the
/// 200 characters an echo may take).
fn shown_number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 24 {
        plain
    } else {
        format!("{x:e}")
    }
}

impl Judgment {
    /// Checks the relevance and normalises the path. Errors:
    /// [`Error::InvalidJudgment`] for a relevance outside [0, 1] (or NaN).
    pub(crate) fn validate(&self) -> Result<ValidJudgment> {
        if !(0.0..=1.0).contains(&self.relevance) {
            return Err(Error::InvalidJudgment {
                path: self.path.clone(),
                reason: format!(
                    "relevance {} is not in [0, 1]",
                    shown_number(self.relevance)
                ),
            });
        }
        Ok(ValidJudgment {
            path: judged_path(&self.path),
            given: self.path.clone(),
            relevance: self.relevance,
            missing_context: self
                .missing_context
                .clone()
                .filter(|m| !m.trim().is_empty()),
        })
    }
}

/// A judged path as the session's files are keyed (relative to the root,
/// `/`-separated): Windows separators become `/`, and `.` segments and
/// empty ones (a repeated, leading `./` or trailing `/`) go, so `./src/a.py`,
/// `src//a.py` and `src/./a.py` are all `src/a.py` (`./` was dropped, `//`
/// refused as "no such file"). `..` is kept, never resolved: no file's key
/// holds one, so such a path names no file of the session, inside the root
/// or out; nor is a leading `/` dropped (an absolute path is no key either).
fn judged_path(given: &str) -> String {
    let path = given.replace('\\', "/");
    let lead = if path.starts_with('/') { "/" } else { "" };
    let segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    format!("{lead}{}", segments.join("/"))
}

/// Checks that no file is judged twice in one call (after the paths are
/// normalised: `auth/x.py` and `./auth/x.py` are one file). Two judgments of
/// one file (relevance 0.9 and 0.1) were taken silently, the last winning.
/// Errors: [`Error::InvalidJudgment`] naming the second judgment's path.
pub(crate) fn one_judgment_per_file(judgments: &[ValidJudgment]) -> Result<()> {
    let mut seen: std::collections::HashMap<&str, &ValidJudgment> = Default::default();
    for j in judgments {
        if let Some(first) = seen.insert(&j.path, j) {
            let as_given = if first.given == j.given {
                String::new()
            } else {
                format!(" (as {:?} and {:?})", clip(&first.given), clip(&j.given))
            };
            return Err(Error::InvalidJudgment {
                path: j.given.clone(),
                reason: format!(
                    "the file is judged twice in this call{as_given}, with relevance {} and {}: give each file one judgment",
                    first.relevance, j.relevance
                ),
            });
        }
    }
    Ok(())
}

/// One `refine` call: what the agent wants added to the next query.
#[derive(Debug, Clone, Default)]
pub struct RefineRequest {
    /// The session from `dispatch`.
    pub session_id: String,
    /// Search terms to add.
    pub keywords: Vec<String>,
    /// Include globs to add.
    pub patterns: Vec<String>,
    /// Exclude globs or paths to add.
    pub excludes: Vec<String>,
}

/// `progress(cycles done, max cycles, message)`, called after each cycle.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &str) + Sync);

/// How one call runs, beside what it asks: the scoring weights, the client's
/// cancellation, a progress callback and the history's source. Every
/// [`crate::Engine`] step takes one; [`CallOptions::PLAIN`] (equal to
/// `CallOptions::default()`) is the plain call: default weights, not
/// cancellable, no progress, history from the root's repository.
#[derive(Clone, Copy, Default)]
pub struct CallOptions<'a> {
    /// Scoring weights (default: [`Weights::default`]); `ctxloop bench --weights`.
    pub weights: Option<&'a Weights>,
    /// Stops the call early, with `truncated` set, when cancelled.
    pub cancel: Option<&'a CancellationToken>,
    /// Called after each cycle of `retrieve` (`dispatch` does not call it).
    pub progress: Option<Progress<'a>>,
    /// Where the history signal's commits come from (default: the root's
    /// repository at its `HEAD`, [`HistorySource::Discover`]; ignored when
    /// the engine's `no_history` is set). `ctxloop bench` passes the task's
    /// repository and `base_commit`.
    pub history: Option<&'a HistorySource>,
}

impl CallOptions<'static> {
    /// The plain call: every option `None` (the same as `default()`, as a
    /// constant so `&CallOptions::PLAIN` can be passed without a binding).
    pub const PLAIN: CallOptions<'static> = CallOptions {
        weights: None,
        cancel: None,
        progress: None,
        history: None,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(path: &str, relevance: f64) -> Result<ValidJudgment> {
        Judgment {
            path: path.into(),
            relevance,
            missing_context: Some("  ".into()),
        }
        .validate()
    }

    #[test]
    fn a_judgment_is_checked_and_its_path_normalised() {
        let j = judged(".\\src\\a.py", 1.0).unwrap();
        assert_eq!(j.path, "src/a.py");
        assert_eq!(j.given, ".\\src\\a.py");
        assert_eq!(j.missing_context, None, "a blank note is no gap");
        for bad in [-0.1, 1.5, f64::NAN] {
            let e = judged("a.py", bad).unwrap_err().to_string();
            assert!(e.contains("is not in [0, 1]"), "{e}");
        }
        // A huge number is echoed short (it was 309 digits), a plain one as given.
        let e = judged("a.py", 1e308).unwrap_err().to_string();
        assert!(e.contains("relevance 1e308 is not"), "{e}");
        assert!(
            e.len() <= crate::error::ECHO_CHARS,
            "{} characters",
            e.len()
        );
        let e = judged("a.py", -2.5).unwrap_err().to_string();
        assert!(e.contains("relevance -2.5 is not"), "{e}");
    }
}
