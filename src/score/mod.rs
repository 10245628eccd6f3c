//! EVALUATE's server side: BM25 over the walked corpus plus structural
//! evidence, calibrated to a relevance in [0, 1].
//!
//! raw = (BM25(body) + path match + definition match + best passage) times a
//! prior for tests/docs/examples, plus neighbour evidence and explicit
//! references. The weights are in [`Weights`]; where they come from is noted
//! on each field. Each pass is a file and a [`Pass`] (see [`stage`]):
//! [`bm25`] (the formula and the lexical pass), `definitions`, `passage`,
//! `priors`, `neighbours`, `explicit`, then `calibrate` (the [`Rerank`]
//! stage).

pub mod bm25;
mod calibrate;
mod definitions;
mod evidence;
mod explicit;
mod history;
mod neighbours;
mod passage;
mod priors;
pub mod stage;
mod weights;

pub use calibrate::Calibrate;
pub use definitions::Definitions;
pub use evidence::{Evidence, FocusWhy, Link, LinkKind};
pub use explicit::Explicit;
pub use history::{History, HISTORY_TOP};
pub use neighbours::Neighbours;
pub use priors::{is_test_path, Priors};
pub use stage::{Pass, Rerank, ScoreContext, Scorer, Signal};
pub use weights::Weights;

use crate::corpus::Doc;
use crate::lang::Cap;
use crate::query::TaskQuery;
use priors::prior;
use std::sync::Arc;

/// Extra per-path evidence a cycle brings. `boosts`: directory prefixes (ending
/// in `/`) or paths whose raw score gains a share of the best score. `floors`:
/// paths whose relevance is at least the given value (a file that defines what
/// a high file uses is related context: medium tier).
#[derive(Debug, Clone, Default)]
pub struct Focus {
    /// (directory prefix ending in `/` or path, share of the best raw score, why).
    pub boosts: Vec<(String, f64, FocusWhy)>,
    /// (path, lowest relevance in [0, 1], why).
    pub floors: Vec<(String, f64, FocusWhy)>,
}

/// A scored file.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Index into the scored slice.
    pub idx: usize,
    /// The evidence summed by the passes (BM25 units; unbounded).
    pub raw: f64,
    /// Calibrated relevance in [0, 1].
    pub relevance: f64,
    /// Why, in the order the evidence was weighed (the first [`EXPLAINED`]
    /// files only); the answer's reasons are its text.
    pub evidence: Vec<Evidence>,
    /// Task identifiers this file defines.
    pub defines: Vec<String>,
    /// The BM25 part of `raw` (after priors).
    pub lexical: f64,
    /// Whether relevance flowed to this file from a top file (graph edge).
    pub neighbour: bool,
    /// The prior the priors pass scaled this file's evidence by (below 1
    /// for a test file, docs, ...; 1 when none applied): what flows to the
    /// file afterwards (the neighbour pass) is scaled by it too.
    pub prior: f64,
    /// Why the priors pass applied `prior` (`test file`, `package index
    /// file`, ...), when it applied one: the reason is rendered from it.
    pub prior_label: Option<&'static str>,
    /// Set when the task names this file or its module: calibration reads
    /// this, and its reason is rendered from it.
    pub named: Option<Named>,
    /// Set when this file was to be parsed but its symbols were capped (see
    /// `Cap`): it is ranked without definition or neighbour evidence.
    pub capped: Option<Cap>,
}

/// How the task names a file (explicit evidence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// The task names the file by a path it ends with.
    File(String),
    /// The task names the module (`a/b` for `a.b`) the file is.
    Module(String),
}

impl Named {
    /// The reason a file shows for this evidence.
    pub fn reason(&self) -> String {
        match self {
            Named::File(p) => format!("task names the file `{p}`"),
            Named::Module(m) => format!("task names the module `{}`", m.replace('/', ".")),
        }
    }
}

/// A document to score: its path and contents, and whether the cycle's globs let it through.
pub struct Candidate<'a> {
    /// The path relative to the root, `/`-separated.
    pub rel: &'a str,
    /// The file's text and cached statistics.
    pub doc: &'a Arc<Doc>,
    /// Whether the cycle's include/exclude globs let it through (only allowed
    /// files rank; all count in BM25's statistics).
    pub allowed: bool,
}

/// Allowed candidates of `rels` and their `docs`, zipped (unit tests).
#[cfg(test)]
pub(crate) fn test_candidates<'a, R: AsRef<str>>(
    rels: &'a [R],
    docs: &'a [Arc<Doc>],
) -> Vec<Candidate<'a>> {
    rels.iter()
        .zip(docs)
        .map(|(rel, doc)| Candidate {
            rel: rel.as_ref(),
            doc,
            allowed: true,
        })
        .collect()
}

/// `files` (path, text) scored for `task` with the default weights, best
/// first, as (index into `files`, score) (unit tests).
#[cfg(test)]
pub(crate) fn test_score(files: &[(&str, &str)], task: &str) -> Vec<Scored> {
    test_score_with(files, task, &Weights::default())
}

/// [`test_score`] with the weights `w` (unit tests).
#[cfg(test)]
pub(crate) fn test_score_with(files: &[(&str, &str)], task: &str, w: &Weights) -> Vec<Scored> {
    let docs: Vec<Arc<Doc>> = files
        .iter()
        .map(|(r, t)| Arc::new(Doc::for_test(r, t)))
        .collect();
    let rels: Vec<&str> = files.iter().map(|(rel, _)| *rel).collect();
    let cands = test_candidates(&rels, &docs);
    let mut q = crate::query::TaskQuery::with_alternates(task, &[], &[], w.alternates(), &|| false);
    // As the session does before each cycle's scoring.
    bm25::forget_held_subnames(&mut q, &cands);
    score(&cands, &q, &Focus::default(), w, false, &|| false)
}

/// Scores every allowed candidate with the default [`Scorer`]; BM25's
/// statistics come from the files sharing a term with the query (see
/// [`Weights::idf_scope`]). Returns files with any evidence, best first; the first
/// [`EXPLAINED`] carry their reasons.
///
/// With `hurry` (the call's deadline has passed) nothing is parsed: no
/// definition or neighbour evidence, only BM25, paths and priors. `stop`
/// (the call's deadline or cancellation) is checked between the passes and
/// while files are parsed: once it returns true the passes left are skipped
/// and parses in progress stop, as with `hurry`.
pub fn score(
    cands: &[Candidate],
    q: &TaskQuery,
    focus: &Focus,
    w: &Weights,
    hurry: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Scored> {
    Scorer::default().score(cands, q, focus, w, hurry, stop)
}

impl Scored {
    /// A file with no evidence yet.
    pub fn new(idx: usize) -> Scored {
        Scored {
            idx,
            raw: 0.0,
            relevance: 0.0,
            evidence: Vec::new(),
            defines: Vec::new(),
            lexical: 0.0,
            neighbour: false,
            prior: 1.0,
            prior_label: None,
            named: None,
            capped: None,
        }
    }
}

/// Writes the reasons of the first [`EXPLAINED`] files, in the order the
/// evidence was weighed: lexical, definitions (one reason per name defined),
/// prior, then graph, explicit and other signals' evidence.
fn explain(ctx: &ScoreContext, scored: &mut [Scored]) {
    for s in scored.iter_mut().take(EXPLAINED) {
        let mut why = Vec::new();
        bm25::lexical(ctx, s.idx, Some(&mut why));
        let (defines, rest): (Vec<Evidence>, Vec<Evidence>) = std::mem::take(&mut s.evidence)
            .into_iter()
            .partition(|e| matches!(e, Evidence::Defines { .. }));
        why.extend(defines);
        if let Some(label) = s.prior_label {
            why.push(Evidence::Prior {
                label,
                factor: s.prior,
            });
        }
        why.extend(rest);
        s.evidence = why;
    }
}

/// Files of a [`score`] answer that carry their reasons (the best ones; a
/// cycle shows at most 100). Writing reasons for every matching file took
/// 0.05-0.09 s a cycle on the Linux kernel (score time per cycle before and
/// after, RUST_LOG=ctxloop=debug, 2026-11-29).
pub const EXPLAINED: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_the_task_names_carries_that_evidence_and_its_reason() {
        let scored = test_score(
            &[
                (
                    "src/billing/ledger.py",
                    "def post(entry):\n    return entry\n",
                ),
                (
                    "src/auth/token.py",
                    "def expiry(token):\n    return token.exp\n",
                ),
            ],
            "token expiry is wrong in billing/ledger.py",
        );
        let ledger = scored
            .iter()
            .find(|s| s.idx == 0)
            .expect("the named file is scored");
        assert_eq!(ledger.named, Some(Named::File("billing/ledger.py".into())));
        assert!(
            Evidence::texts(&ledger.evidence)
                .contains(&"task names the file `billing/ledger.py`".to_string()),
            "{:?}",
            ledger.evidence
        );
        let token = scored
            .iter()
            .find(|s| s.idx == 1)
            .expect("token.py matches");
        assert_eq!(token.named, None);
        // Named evidence makes a file direct (high tier) whatever its words.
        assert!(ledger.relevance >= 0.7, "{}", ledger.relevance);
    }
}
