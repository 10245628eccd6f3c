//! LINKS: the files next to the high files in the code graph, brought in as
//! candidates by the cycles after the first (issue 13 item 3).
//!
//! From each high file not expanded yet, a file is linked when it
//! - defines what the high file calls, imports or uses as a type (a callee:
//!   its parsed definitions hold the name),
//! - uses what the high file defines (a caller: it holds a name the high
//!   file defines, a name held by few files),
//! - or has the high file's name in the same directory (`foo.c` and `foo.h`,
//!   `x.go` and `x_unix.go`'s base name: same stem, another extension).
//!
//! Only rare names link (held by at most [`MAX_HOLDERS`] code files): a hub
//! module every file imports says nothing about this task. Python's
//! `__dunder__` methods never link (every class defines `__init__`). Test files are
//! never linked, nor files under examples, docs, benchmarks or vendored
//! code (fixes land in source files; the priors rank them low for the same
//! reason). Files that change together in the history would be a
//! fourth kind (see [`co_changed`]); it is not built here.

use crate::corpus::{holders_many, Doc};
use crate::lang::{DefKind, RefKind};
use crate::score::{is_test_path, Link, LinkKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// A name held by more code files than this links nothing (too common).
const MAX_HOLDERS: usize = 6;
/// Names of one high file looked up, at most, per direction.
const MAX_NAMES: usize = 80;
/// Files checked, per high file, for defining a used name.
const MAX_PARSED: usize = 16;
/// Files parsed afresh, per call, to check that they define a used name:
/// a file parsed already (by the first cycle's scoring, snippets or gaps)
/// is checked from its kept symbols at no cost; the others are parsed on the
/// later cycles' hot path, so only the best few of them (most names first).
const MAX_FRESH_PARSES: usize = 8;
/// Shortest name that links.
const MIN_NAME_LEN: usize = 4;

/// A file linked to one or more high files.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Linked {
    /// Path relative to the root.
    pub path: String,
    /// Evidence in [0, 1]: the best high file's relevance times how strongly
    /// this file is linked to it (two or more names, or the same stem: 1).
    pub strength: f64,
    /// What links it to that high file (its reason's data).
    pub link: Link,
    /// The strongest link comes from a file the agent judged high.
    pub judged: bool,
}

/// The files linked to `highs` ((path, relevance, judged by the agent) of high files), best
/// first, leaving out `skip` (files already in context) and test files.
/// Parses stop once `stop` returns true.
pub(super) fn linked(
    highs: &[(String, f64, bool)],
    corpus: &BTreeMap<String, Arc<Doc>>,
    skip: &HashSet<&str>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Linked> {
    let code: Vec<(&String, &Arc<Doc>)> = corpus
        .iter()
        .filter(|(_, d)| d.language.is_some())
        .collect();
    let docs: Vec<&Doc> = code.iter().map(|(_, d)| &***d).collect();
    let wanted = |p: &str| !skip.contains(p) && !is_test_path(p) && !is_aside(p);
    // path → (strength, link, judged), the strongest link kept.
    let mut best: HashMap<String, (f64, Link, bool)> = HashMap::new();
    let mut fresh_left = MAX_FRESH_PARSES;
    for (high, rel, judged) in highs {
        let judged = *judged;
        let mut offer = |path: &str, strength: f64, kind: LinkKind| {
            let link = Link {
                kind,
                high: high.clone(),
            };
            match best.get_mut(path) {
                Some(e) if strength <= e.0 => {}
                Some(e) => *e = (strength, link, judged),
                None => {
                    best.insert(path.to_string(), (strength, link, judged));
                }
            }
        };
        if stop() {
            break;
        }
        let Some(doc) = corpus.get(high).filter(|d| d.language.is_some()) else {
            continue;
        };
        for sib in siblings(high, corpus) {
            if wanted(&sib) {
                offer(&sib, *rel, LinkKind::SameName);
            }
        }
        let syms = doc.symbols_until(stop);
        let mut defs: Vec<&str> = syms
            .definitions
            .iter()
            .filter(|d| {
                !d.local
                    && d.kind != DefKind::Impl
                    && d.name.len() >= MIN_NAME_LEN
                    && !(d.name.starts_with("__") && d.name.ends_with("__"))
            })
            .map(|d| d.name.as_str())
            .collect();
        defs.sort_unstable();
        defs.dedup();
        defs.truncate(MAX_NAMES);
        let own: HashSet<&str> = defs.iter().copied().collect();
        let mut uses: Vec<&str> = syms
            .references
            .iter()
            .filter(|r| {
                matches!(
                    r.kind,
                    RefKind::Call
                        | RefKind::Type
                        | RefKind::ImportName
                        | RefKind::Constant
                        | RefKind::Implementation
                ) && r.name.len() >= MIN_NAME_LEN
                    && !own.contains(r.name.as_str())
            })
            .map(|r| r.name.as_str())
            .collect();
        uses.sort_unstable();
        uses.dedup();
        uses.truncate(MAX_NAMES);
        let names: Vec<&str> = defs.iter().chain(&uses).copied().collect();
        let held = holders_many(&docs, &names, MAX_HOLDERS + 2);
        let rare = |h: &Vec<usize>| h.len() <= MAX_HOLDERS + 1;
        // Callers: files holding a rare name this file defines.
        let mut callers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, h) in defs.iter().zip(&held) {
            if !rare(h) {
                continue;
            }
            for &i in h {
                let p = code[i].0.as_str();
                if p != high && wanted(p) {
                    callers.entry(p).or_default().push(name);
                }
            }
        }
        for (p, names) in callers {
            offer(
                p,
                rel * link_strength(names.len()),
                LinkKind::Uses(owned(&names)),
            );
        }
        // Callees: files defining a rare name this file uses (parsed to check).
        let mut holding: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, h) in uses.iter().zip(&held[defs.len()..]) {
            if !rare(h) {
                continue;
            }
            for &i in h {
                let p = code[i].0.as_str();
                if p != high && wanted(p) {
                    holding.entry(p).or_default().push(name);
                }
            }
        }
        let mut holding: Vec<(&str, Vec<&str>)> = holding.into_iter().collect();
        holding.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        holding.truncate(MAX_PARSED);
        // Parsed already, or among the few parsed afresh.
        holding.retain(|(p, _)| {
            let parsed = corpus[*p].kept_symbols().is_some();
            if !parsed && fresh_left == 0 {
                return false;
            }
            fresh_left -= usize::from(!parsed);
            true
        });
        let defined: Vec<(&str, Vec<&str>)> = {
            use rayon::prelude::*;
            holding
                .par_iter()
                .map(|(p, names)| {
                    let syms = corpus[*p].symbols_until(stop);
                    let hit: Vec<&str> = names
                        .iter()
                        .copied()
                        .filter(|n| syms.defines(n).any(|d| !d.local))
                        .collect();
                    (*p, hit)
                })
                .collect()
        };
        for (p, names) in defined {
            if !names.is_empty() {
                offer(
                    p,
                    rel * link_strength(names.len()),
                    LinkKind::Defines(owned(&names)),
                );
            }
        }
        for (p, strength, kind) in co_changed(high, *rel) {
            if wanted(&p) {
                offer(&p, strength, kind);
            }
        }
    }
    let mut out: Vec<Linked> = best
        .into_iter()
        .map(|(path, (strength, link, judged))| Linked {
            path,
            strength,
            link,
            judged,
        })
        .collect();
    out.sort_by(|a, b| {
        b.strength
            .total_cmp(&a.strength)
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// Directories of code beside the product (examples, docs, benchmarks,
/// vendored copies): they use the high files' names without being what a
/// fix changes.
const ASIDE_DIRS: &[&str] = &[
    "examples",
    "example",
    "docs",
    "doc",
    "benches",
    "bench",
    "benchmarks",
    "vendor",
    "third_party",
];

/// Whether `path` lies under one of [`ASIDE_DIRS`].
fn is_aside(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|seg| ASIDE_DIRS.contains(&seg))
}

/// How strongly `names` linking names tie two files: one name half, two or more fully.
fn link_strength(names: usize) -> f64 {
    (names as f64 / 2.0).min(1.0)
}

/// Files that change together with `high` in the history, as (path,
/// strength, link): the place a co-change signal (`src/history.rs`, built
/// on another branch) plugs in. None yet.
fn co_changed(_high: &str, _relevance: f64) -> Vec<(String, f64, LinkKind)> {
    Vec::new()
}

/// Code files in `path`'s directory with its stem and another extension
/// (`foo.h` for `foo.c`).
fn siblings(path: &str, corpus: &BTreeMap<String, Arc<Doc>>) -> Vec<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let Some((stem, _)) = name.split_once('.') else {
        return Vec::new();
    };
    if matches!(stem, "mod" | "index" | "__init__" | "lib" | "main") {
        return Vec::new();
    }
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let start = format!("{prefix}{stem}.");
    corpus
        .range(start.clone()..)
        .take_while(|(p, _)| p.starts_with(&start))
        .filter(|(p, d)| {
            p.as_str() != path && !p[prefix.len()..].contains('/') && d.language.is_some()
        })
        .map(|(p, _)| p.clone())
        .collect()
}

/// The names, owned, in their (sorted) order.
fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callees_are_checked_from_kept_symbols_and_few_files_are_parsed_afresh() {
        // A high file calling twelve functions, each defined in a file of
        // its own; the first cycle parsed two of those files already.
        let names: Vec<String> = (0..12).map(|i| format!("compute_part_{i}")).collect();
        let calls: String = names.iter().map(|n| format!("    {n}(x)\n")).collect();
        let mut corpus: BTreeMap<String, Arc<Doc>> = BTreeMap::new();
        corpus.insert(
            "src/high.py".into(),
            Arc::new(Doc::for_test(
                "src/high.py",
                &format!("def run(x):\n{calls}"),
            )),
        );
        let file_of = |i: usize| {
            if i >= 10 {
                format!("src/zz_part_{i}.py")
            } else {
                format!("src/part_{i}.py")
            }
        };
        for (i, n) in names.iter().enumerate() {
            let p = file_of(i);
            let doc = Doc::for_test(&p, &format!("def {n}(x):\n    return x\n"));
            corpus.insert(p, Arc::new(doc));
        }
        for i in [10, 11] {
            corpus[&file_of(i)].symbols();
        }
        let highs = [("src/high.py".to_string(), 0.9, false)];
        let found = linked(&highs, &corpus, &HashSet::new(), &|| false);
        let fresh = (0..10)
            .filter(|&i| corpus[&file_of(i)].kept_symbols().is_some())
            .count();
        assert_eq!(fresh, MAX_FRESH_PARSES, "files parsed afresh");
        let callees: Vec<&str> = found.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(callees.len(), MAX_FRESH_PARSES + 2, "{callees:?}");
        for i in [10, 11] {
            assert!(callees.contains(&file_of(i).as_str()), "{callees:?}");
        }
        let l = found.iter().find(|l| l.path == file_of(10)).unwrap();
        assert_eq!(
            l.link.to_string(),
            "defines `compute_part_10` used by high file src/high.py"
        );
    }

    #[test]
    fn examples_docs_and_benchmarks_are_aside_and_source_is_not() {
        assert!(is_aside("crates/grep/examples/simplegrep.rs"));
        assert!(is_aside("docs/conf.py"));
        assert!(!is_aside("src/examples.rs"));
        assert!(!is_aside("crates/ignore/src/types.rs"));
    }
}
