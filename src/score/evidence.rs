//! The evidence a file's score was built from, typed: the passes push
//! [`Evidence`], and its text (a file's `reasons` in the answer) is written
//! from it only where the answer is built (`Display`). No decision reads the
//! text.

use super::Named;
use crate::lang::DefKind;
use std::fmt;

/// One piece of evidence for a file, with the data its reason shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// BM25 of the body: the score and the best-matching query terms (at
    /// most 6, best first).
    Bm25 {
        /// The BM25 score (BM25 units).
        score: f64,
        /// The query terms that matched, best first.
        terms: Vec<String>,
    },
    /// Query terms found in the path.
    PathMatch(Vec<String>),
    /// The file defines a task identifier (lines 1-based, inclusive).
    Defines {
        /// What the definition is.
        kind: DefKind,
        /// The identifier.
        name: String,
        /// First line.
        start_line: usize,
        /// Last line.
        end_line: usize,
    },
    /// A prior below 1 scaled the file's score.
    Prior {
        /// Why (`test file`, `package index file`, ...).
        label: &'static str,
        /// The factor applied.
        factor: f64,
    },
    /// Relevance flowed from a top file: the rare names this file uses from
    /// it (empty: this file defines what that one uses).
    Neighbour {
        /// The top file's path.
        from: String,
        /// Names used from it, sorted.
        uses: Vec<String>,
    },
    /// The task names the file or its module.
    Named(Named),
    /// The task names a path or module that fits several files, this one
    /// among them: evidence shared among them, no high tier.
    NamedAmong {
        /// The reference.
        named: Named,
        /// How many files it fits (at least 2).
        fits: usize,
    },
    /// A cycle focuses on the file (a boost or a floor), with the reason the
    /// cycle gave.
    Focus(String),
    /// A later cycle brought the file in through the code graph: what links
    /// it to a high file (see `session::links`).
    Link(String),
    /// A library [`super::Signal`] moved the file by `share` of the best score.
    Signal {
        /// The signal's name.
        name: String,
        /// The share of the best raw score added.
        share: f64,
    },
    /// Past commits whose messages resemble the task changed the file
    /// (the history signal, `score::history`).
    History {
        /// How many such commits changed it.
        commits: usize,
        /// The closest one's short id.
        closest: String,
        /// The share of the best raw score added.
        share: f64,
    },
    /// The agent judged the file's relevance.
    Judged(f64),
}

impl Evidence {
    /// The reasons a file shows for `evidence`, in order.
    pub fn texts(evidence: &[Evidence]) -> Vec<String> {
        evidence.iter().map(ToString::to_string).collect()
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evidence::Bm25 { score, terms } => {
                write!(f, "BM25 {score:.1}: matches {}", terms.join(", "))
            }
            Evidence::PathMatch(terms) => write!(f, "path matches {}", terms.join(", ")),
            Evidence::Defines {
                kind,
                name,
                start_line,
                end_line,
            } => write!(f, "defines {kind} `{name}` (lines {start_line}-{end_line})"),
            Evidence::Prior { label, factor } => write!(f, "{label} (x{factor:.2})"),
            Evidence::Neighbour { from, uses } if uses.is_empty() => {
                write!(f, "defines what {from} uses")
            }
            Evidence::Neighbour { from, uses } => {
                let names: Vec<String> = uses.iter().take(3).map(|u| format!("`{u}`")).collect();
                write!(f, "uses {} from {from}", names.join(", "))
            }
            Evidence::Named(n) => f.write_str(&n.reason()),
            Evidence::History {
                commits,
                closest,
                share,
            } => write!(
                f,
                "changed by {commits} past commit(s) like the task (closest {closest}; +{share:.3} of the best score)"
            ),
            Evidence::NamedAmong { named, fits } => {
                write!(f, "{}, one of {fits} files it fits", named.reason())
            }
            Evidence::Focus(why) | Evidence::Link(why) => f.write_str(why),
            Evidence::Signal { name, share } => {
                write!(f, "{name} ({share:+.2} of the best score)")
            }
            Evidence::Judged(relevance) => write!(f, "agent judged {relevance:.2}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_evidence_reads_as_the_reason_it_always_was() {
        let cases = [
            (
                Evidence::Bm25 {
                    score: 12.345,
                    terms: vec!["token".into(), "expiry".into()],
                },
                "BM25 12.3: matches token, expiry",
            ),
            (
                Evidence::PathMatch(vec!["auth".into()]),
                "path matches auth",
            ),
            (
                Evidence::Defines {
                    kind: DefKind::Function,
                    name: "expiry".into(),
                    start_line: 3,
                    end_line: 9,
                },
                "defines function `expiry` (lines 3-9)",
            ),
            (
                Evidence::Prior {
                    label: "test file",
                    factor: 0.5,
                },
                "test file (x0.50)",
            ),
            (
                Evidence::Neighbour {
                    from: "a.py".into(),
                    uses: vec![],
                },
                "defines what a.py uses",
            ),
            (
                Evidence::Neighbour {
                    from: "a.py".into(),
                    uses: vec!["w".into(), "x".into(), "y".into(), "z".into()],
                },
                "uses `w`, `x`, `y` from a.py",
            ),
            (
                Evidence::Named(Named::Module("a/b".into())),
                "task names the module `a.b`",
            ),
            (
                Evidence::Signal {
                    name: "src-boost".into(),
                    share: 0.5,
                },
                "src-boost (+0.50 of the best score)",
            ),
            (Evidence::Judged(0.8), "agent judged 0.80"),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }
}
