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
    /// A cycle focuses on the file (a boost or a floor), and why.
    Focus(FocusWhy),
    /// A later cycle brought the file in through the code graph: what links
    /// it to a high file (see `session::links`).
    Link(Link),
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

/// Why a cycle focuses on a file ([`Evidence::Focus`]): `refine` builds it
/// from a high file or a gap.
#[derive(Debug, Clone, PartialEq)]
pub enum FocusWhy {
    /// The file lies in the directory of the high file `high` (a boost).
    NextTo {
        /// The high file's path.
        high: String,
    },
    /// The file defines `symbol`, which `from` uses (an undefined-symbol
    /// gap's floor).
    DefinesUsed {
        /// The symbol.
        symbol: String,
        /// Where it is used (`path:line`, or `a high file`).
        from: String,
    },
    /// The file defines `symbol`, the parent of a definition at `from` (a
    /// missing-parent gap's floor).
    DefinesParent {
        /// The base class or trait.
        symbol: String,
        /// Where the definition is (`path:line`, or `a high file`).
        from: String,
    },
    /// A configuration file named at `from` (a config gap's floor).
    ConfigNamed {
        /// Where it is named (`path:line`, or `a high file`).
        from: String,
    },
}

/// What links a file to a high file in the code graph ([`Evidence::Link`],
/// built by `session::links`).
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// How the two files are linked.
    pub kind: LinkKind,
    /// The high file's path.
    pub high: String,
}

/// How a file is linked to a high file.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkKind {
    /// Same stem in the same directory, another extension (`foo.h`, `foo.c`).
    SameName,
    /// Same file name in a sibling directory (`src/unix/stream.c`,
    /// `src/win/stream.c`): a platform or variant twin.
    Twin,
    /// The high file includes or imports this file by path (`#include
    /// "internal.h"`, `import x from "./x"`); the path as written.
    Imported(String),
    /// The file changed together with the high file in this many past
    /// commits (the repository's history, `src/history/`).
    CoChanged(usize),
    /// The file uses these names the high file defines (a caller; sorted,
    /// the reason shows at most three).
    Uses(Vec<String>),
    /// The file defines these names the high file uses (a callee; sorted,
    /// the reason shows at most three).
    Defines(Vec<String>),
}

impl fmt::Display for FocusWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FocusWhy::NextTo { high } => write!(f, "next to high file {high}"),
            FocusWhy::DefinesUsed { symbol, from } => {
                write!(f, "defines `{symbol}`, used at {from}")
            }
            FocusWhy::DefinesParent { symbol, from } => {
                write!(
                    f,
                    "defines `{symbol}`, the parent of a definition at {from}"
                )
            }
            FocusWhy::ConfigNamed { from } => write!(f, "configuration file named at {from}"),
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let high = &self.high;
        match &self.kind {
            LinkKind::SameName => write!(f, "same name as high file {high}"),
            LinkKind::Twin => write!(f, "twin of high file {high} in a sibling directory"),
            LinkKind::Imported(spec) => write!(f, "imported by high file {high} as `{spec}`"),
            LinkKind::CoChanged(1) => write!(f, "changes with high file {high} in 1 commit"),
            LinkKind::CoChanged(n) => write!(f, "changes with high file {high} in {n} commits"),
            LinkKind::Uses(names) => write!(f, "uses {} from high file {high}", quoted(names)),
            LinkKind::Defines(names) => {
                write!(f, "defines {} used by high file {high}", quoted(names))
            }
        }
    }
}

/// `` `a`, `b`, `c` `` (at most three names).
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .take(3)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
            Evidence::Focus(why) => why.fmt(f),
            Evidence::Link(link) => link.fmt(f),
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

    fn assert_reads<const N: usize>(cases: [(Evidence, &str); N]) {
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }

    #[test]
    fn the_score_passes_evidence_reads_as_the_reason_it_always_was() {
        assert_reads([
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
        ]);
    }

    #[test]
    fn a_cycles_focus_reads_as_the_reason_it_always_was() {
        assert_reads([
            (
                Evidence::Focus(FocusWhy::NextTo {
                    high: "src/a.py".into(),
                }),
                "next to high file src/a.py",
            ),
            (
                Evidence::Focus(FocusWhy::DefinesUsed {
                    symbol: "Token".into(),
                    from: "src/a.py:3".into(),
                }),
                "defines `Token`, used at src/a.py:3",
            ),
            (
                Evidence::Focus(FocusWhy::DefinesParent {
                    symbol: "Base".into(),
                    from: "src/a.py:7".into(),
                }),
                "defines `Base`, the parent of a definition at src/a.py:7",
            ),
            (
                Evidence::Focus(FocusWhy::ConfigNamed {
                    from: "src/a.py:9".into(),
                }),
                "configuration file named at src/a.py:9",
            ),
        ]);
    }

    #[test]
    fn a_code_graph_link_reads_as_the_reason_it_always_was() {
        assert_reads([
            (
                Evidence::Link(Link {
                    kind: LinkKind::SameName,
                    high: "src/a.c".into(),
                }),
                "same name as high file src/a.c",
            ),
            (
                Evidence::Link(Link {
                    kind: LinkKind::Uses(vec!["a".into(), "b".into(), "c".into(), "d".into()]),
                    high: "src/a.c".into(),
                }),
                "uses `a`, `b`, `c` from high file src/a.c",
            ),
            (
                Evidence::Link(Link {
                    kind: LinkKind::Defines(vec!["run".into()]),
                    high: "src/a.c".into(),
                }),
                "defines `run` used by high file src/a.c",
            ),
            (
                Evidence::Link(Link {
                    kind: LinkKind::CoChanged(3),
                    high: "src/a.c".into(),
                }),
                "changes with high file src/a.c in 3 commits",
            ),
        ]);
    }
}
