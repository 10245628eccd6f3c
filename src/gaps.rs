//! Missing context as data.
//!
//! Two kinds come from the code itself:
//! - `undefined_symbol`: a name that a matched definition of a high file calls,
//!   imports or uses as a type, defined in another file of the tree that is not
//!   in context yet (`suggested_paths` lists every defining file);
//! - `uncovered_concept`: an identifier of the task that no high file contains.
//!
//! Not gaps: a definition local to a function body (a helper nested in a
//! test) never stands for what another file uses, and a method called on a
//! module the file imports (`click.echo` after `import click`) is that
//! module's, not the tree's, unless the tree holds a file or directory of
//! the module's name.
//!
//! A third, `agent_reported`, comes from `evaluate` judgments. A gap closes when
//! a file that covers it is in context (among the files the answer returns).

use crate::corpus::{holders_many, Doc};
use crate::lang::{is_aside_path, is_test_path, RefKind, Reference};
use crate::query::TaskQuery;
use crate::types::{Gap, GapKind, Snippet};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// A file in context: path, document, snippets shown for it.
pub struct InContext<'a> {
    pub path: &'a str,
    pub doc: &'a Arc<Doc>,
    pub snippets: &'a [Snippet],
    pub is_high: bool,
}

/// Names this short or this common are never worth a gap.
const MIN_SYMBOL_LEN: usize = 3;
/// A name held by more files than this is too common to chase.
const MAX_HOLDERS: usize = 12;
/// Other files holding a name: (path, document).
type Holders<'a> = Vec<(&'a String, &'a Arc<Doc>)>;

/// Gaps per high file.
const MAX_PER_FILE: usize = 4;
/// Names per high file whose holders are parsed to find their definitions.
const MAX_TRIES_PER_FILE: usize = 12;
/// Names per high file whose holders are looked for at all: the first this
/// many of the names its snippets use, by [`name_rank`]. With 8 snippets of
/// up to 100 lines a file, a large file's snippets use 50 or more names;
/// each is a whole-tree holder scan, and every rare one a parse of its
/// holders (on sympy, `symbol.py`'s 53 names made the gap search 4x slower).
const MAX_NAMES_PER_FILE: usize = 24;

/// Finds the open gaps given the files in context and the whole corpus
/// (`corpus`: path → document). Parses stop once `stop` returns true (the
/// call's deadline or cancellation); a file whose parse stopped or was capped
/// has no symbols here, so it neither asks for nor closes a gap.
pub fn find(
    context: &[InContext],
    corpus: &BTreeMap<String, Arc<Doc>>,
    q: &TaskQuery,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Gap> {
    let in_context: HashSet<&str> = context.iter().map(|c| c.path).collect();
    let t0 = std::time::Instant::now();
    let mut gaps = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    // Code files of the corpus, and which of them hold each name the high files
    // use (one scan of the corpus for all those names).
    let code: Vec<(&String, &Arc<Doc>)> = corpus
        .iter()
        .filter(|(_, d)| d.language.is_some())
        .collect();
    let docs: Vec<&Doc> = code.iter().map(|(_, d)| &***d).collect();
    let highs: Vec<(&InContext, Arc<crate::lang::Symbols>)> = context
        .iter()
        .filter(|c| c.is_high && c.doc.language.is_some())
        .map(|c| (c, c.doc.symbols_until(stop)))
        .collect();
    // The names each high file uses in its snippets (not its own definitions),
    // and, for all of them at once, the code files holding each (one more than
    // the most wanted, so that skipping the asking file cannot hide one).
    let mut in_tree: std::collections::HashMap<&str, bool> = Default::default();
    let candidates: Vec<Vec<&Reference>> = highs
        .iter()
        .map(|(c, syms)| used_names(c, syms, corpus, &mut in_tree))
        .collect();
    let mut names: Vec<&str> = candidates
        .iter()
        .flatten()
        .map(|r| r.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let t_names = t0.elapsed();
    let held: std::collections::HashMap<&str, Vec<usize>> = names
        .iter()
        .copied()
        .zip(holders_many(&docs, &names, MAX_HOLDERS + 2))
        .collect();
    let holders_of = |name: &str, skip: &str| -> Holders {
        held.get(name)
            .into_iter()
            .flatten()
            .map(|&i| code[i])
            .filter(|(p, _)| p.as_str() != skip)
            .take(MAX_HOLDERS + 1)
            .collect()
    };
    let t_held = t0.elapsed();
    for ((c, _), refs) in highs.iter().zip(&candidates) {
        gaps.extend(symbol_gaps(
            c,
            refs,
            &holders_of,
            &in_context,
            &mut seen,
            stop,
        ));
        gaps.extend(config_gaps(c, corpus, &in_context));
    }
    let t_symbols = t0.elapsed();
    // The call's deadline or cancellation ends the search here: the
    // holder scan below is over every code file.
    if !stop() {
        gaps.extend(uncovered_gaps(context, corpus, q));
    }
    tracing::debug!(
        highs = highs.len(),
        names = names.len(),
        per_file = ?candidates.iter().map(|c| c.len()).collect::<Vec<_>>(),
        names_ms = t_names.as_millis() as u64,
        holders_ms = (t_held - t_names).as_millis() as u64,
        symbols_ms = (t_symbols - t_held).as_millis() as u64,
        uncovered_ms = (t0.elapsed() - t_symbols).as_millis() as u64,
        "gap search"
    );
    gaps
}

/// The names a high file uses in its snippets (not its own definitions) that
/// could be a gap: calls, methods, types, imported names, constants and bases,
/// long enough, each once; a name read on an imported module counts only when
/// the module is in the tree (`in_tree` caches that per module). At most
/// [`MAX_NAMES_PER_FILE`], the most specific kinds first, then the earliest
/// in the file (see [`name_rank`]).
fn used_names<'s>(
    c: &InContext,
    syms: &'s crate::lang::Symbols,
    corpus: &BTreeMap<String, Arc<Doc>>,
    in_tree: &mut std::collections::HashMap<&'s str, bool>,
) -> Vec<&'s Reference> {
    let own: HashSet<&str> = syms.definitions.iter().map(|d| d.name.as_str()).collect();
    let modules = imported_modules(syms);
    let mut refs: Vec<&Reference> = Vec::new();
    let mut taken: HashSet<&str> = HashSet::new();
    for r in &syms.references {
        if let Some(recv) = r.receiver.as_deref().filter(|m| modules.contains(m)) {
            let here = *in_tree
                .entry(recv)
                .or_insert_with(|| tree_has_module(corpus, recv));
            if !here {
                continue;
            }
        }
        if !matches!(
            r.kind,
            RefKind::Call
                | RefKind::Method
                | RefKind::Type
                | RefKind::ImportName
                | RefKind::Constant
                | RefKind::Implementation
        ) || r.name.len() < MIN_SYMBOL_LEN
            || own.contains(r.name.as_str())
            || taken.contains(r.name.as_str())
            || !c
                .snippets
                .iter()
                .any(|s| s.start_line <= r.line && r.line <= s.end_line)
        {
            continue;
        }
        taken.insert(r.name.as_str());
        refs.push(r);
    }
    refs.sort_by_key(|r| name_rank(r));
    refs.truncate(MAX_NAMES_PER_FILE);
    refs
}

/// The order in which a high file's used names are kept: bases and types
/// first (what the file's code is built on: a missing parent or type is the
/// gap an agent most needs), then imported names and constants, then calls,
/// then methods (ambiguous without the receiver's type); within a kind, the
/// earliest line first.
fn name_rank(r: &Reference) -> (u8, usize) {
    let kind = match r.kind {
        RefKind::Implementation => 0,
        RefKind::Type => 1,
        RefKind::ImportName => 2,
        RefKind::Constant => 3,
        RefKind::Call => 4,
        _ => 5,
    };
    (kind, r.line)
}

/// The symbol gaps of high file `c`: of the names it uses (`refs`), those held
/// by few other files (`holders_of`), rarest first, whose definers are not in
/// context; at most [`MAX_PER_FILE`]. `seen` (names already a gap) grows.
fn symbol_gaps<'a>(
    c: &InContext,
    refs: &[&Reference],
    holders_of: &dyn Fn(&str, &str) -> Holders<'a>,
    in_context: &HashSet<&str>,
    seen: &mut HashSet<String>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Gap> {
    // Cheap pass first: which used names are held by few other files.
    let mut wanted: Vec<(usize, &Reference, Holders)> = Vec::new();
    for &r in refs {
        if seen.contains(&r.name) {
            continue;
        }
        let holders = holders_of(&r.name, c.path);
        // Method names (`x.len()`) are ambiguous without the receiver's type:
        // only chase rare ones.
        let max = if r.kind == RefKind::Method {
            3
        } else {
            MAX_HOLDERS
        };
        if !holders.is_empty() && holders.len() <= max {
            wanted.push((holders.len(), r, holders));
        }
    }
    // Rarest names first: they are the most specific. Parse their holders
    // only until this file's gaps are found (parsing is the costly part),
    // and of them only those that could define the name: a holder that only
    // uses it (imports it, subclasses it, tests it) is ruled out by a cheap
    // look at its lines ([`Doc::may_define`]) without a parse.
    wanted.sort_by_key(|(n, r, _)| (*n, r.line));
    let mut found: Vec<Gap> = Vec::new();
    wanted.truncate(MAX_TRIES_PER_FILE);
    // A library file's names are defined in library code: a test that
    // defines a helper of the same name, or `docs/conf.py`'s `extensions`
    // list (Sphinx's) for an `self.extensions` of the code, is not where
    // the name comes from, and made a false critical gap (probe of
    // 2026-12-07 on flask). A test's or an example's own names may be
    // defined anywhere.
    let library = !is_test_path(c.path) && !is_aside_path(c.path);
    let may_define_here = |p: &str| !library || !(is_test_path(p) || is_aside_path(p));
    // The holders of each name of the current batch that could define it.
    let mut could: Vec<Holders> = Vec::new();
    for (i, (_, r, _)) in wanted.iter().enumerate() {
        if found.len() == MAX_PER_FILE {
            break;
        }
        if i % MAX_PER_FILE == 0 {
            // The next few names' holders are checked, and those that could
            // define them parsed, on all cores (as many names as gaps are
            // still wanted at most).
            let next = &wanted[i..(i + MAX_PER_FILE).min(wanted.len())];
            could = next
                .par_iter()
                .map(|(_, r, h)| {
                    h.par_iter()
                        .filter(|(p, d)| may_define_here(p) && d.may_define(&r.name))
                        .copied()
                        .collect()
                })
                .collect();
            let parse: Vec<&Arc<Doc>> = could.iter().flatten().map(|(_, d)| *d).collect();
            parse.par_iter().for_each(|d| {
                d.symbols_until(stop);
            });
        }
        let r = *r;
        let definers: Vec<String> = could[i % MAX_PER_FILE]
            .iter()
            .filter(|(_, d)| d.symbols_until(stop).defines(&r.name).any(|d| !d.local))
            .map(|(p, _)| (*p).clone())
            .collect();
        if definers.is_empty() || definers.iter().any(|p| in_context.contains(p.as_str())) {
            continue;
        }
        seen.insert(r.name.clone());
        found.push(symbol_gap(c.path, r, definers));
    }
    found
}

/// The gap for `r`, a name `path` uses that `definers` (not in context) define.
fn symbol_gap(path: &str, r: &Reference, definers: Vec<String>) -> Gap {
    let ambiguous = definers.len() > 1;
    let parent = r.kind == RefKind::Implementation;
    Gap {
        kind: if parent {
            GapKind::MissingParent
        } else {
            GapKind::UndefinedSymbol
        },
        description: format!(
            "`{}` is {} by {} but defined in {}",
            r.name,
            if parent {
                "extended or implemented"
            } else {
                "used"
            },
            path,
            if ambiguous {
                format!("{} files (ambiguous)", definers.len())
            } else {
                definers[0].clone()
            }
        ),
        symbol: Some(r.name.clone()),
        referenced_from: Some(format!("{}:{}", path, r.line)),
        critical: definers.len() <= 3,
        suggested_paths: definers,
    }
}

/// Uncovered-concept gaps an answer holds at most.
const MAX_UNCOVERED: usize = 32;

/// Task identifiers (code-like, stated more than once or in the title) that
/// no high file contains, at most [`MAX_UNCOVERED`], heaviest first, with up
/// to 5 files that hold each; none unless some file is high.
fn uncovered_gaps(
    context: &[InContext],
    corpus: &BTreeMap<String, Arc<Doc>>,
    q: &TaskQuery,
) -> Vec<Gap> {
    let mut gaps = Vec::new();
    if context.iter().any(|c| c.is_high) {
        // The heaviest first (the query's order), at most MAX_UNCOVERED:
        // a pasted log of a thousand names no file holds made a scan of a
        // thousand names and as many gaps (probe of 2026-12-07: 0.5-0.7 s
        // past the deadline on sympy).
        let uncovered: Vec<&crate::query::Term> = q
            .terms
            .iter()
            .filter(|t| t.is_code && t.weight >= 2.0)
            .filter(|t| !context.iter().any(|c| c.doc.tf(t.hash) > 0))
            .take(MAX_UNCOVERED)
            .collect();
        let all: Vec<&Doc> = corpus.values().map(|d| &**d).collect();
        let paths: Vec<&String> = corpus.keys().collect();
        let names: Vec<&str> = uncovered.iter().map(|t| t.text.as_str()).collect();
        for (t, held) in uncovered.into_iter().zip(holders_many(&all, &names, 5)) {
            let holders: Vec<String> = held.into_iter().map(|i| paths[i].clone()).collect();
            gaps.push(Gap {
                kind: GapKind::UncoveredConcept,
                description: format!("no file in context mentions `{}`", t.text),
                symbol: Some(t.text.clone()),
                referenced_from: None,
                critical: false,
                suggested_paths: holders,
            });
        }
    }
    gaps
}

/// The names a file binds by importing a module: the first part of each
/// imported module's dotted name (`click` for `import click`, `os` for
/// `import os.path`).
fn imported_modules(syms: &crate::lang::Symbols) -> HashSet<&str> {
    syms.references
        .iter()
        .filter(|r| r.kind == RefKind::Import)
        .filter_map(|r| r.name.split('.').next())
        .filter(|m| !m.is_empty())
        .collect()
}

/// Whether some path of the tree could be the module `m`: a directory
/// named `m` or a file whose stem is `m` (`click/`, `click.py`).
fn tree_has_module(corpus: &BTreeMap<String, Arc<Doc>>, m: &str) -> bool {
    corpus.keys().any(|p| {
        p.split('/')
            .any(|seg| seg == m || seg.split_once('.').is_some_and(|(stem, _)| stem == m))
    })
}

/// Extensions of configuration files worth fetching when code names them.
const CONFIG_EXTENSIONS: &[&str] = &["toml", "yaml", "yml", "json", "ini", "cfg", "conf", "env"];

/// Configuration files a high file names in a string literal (`"settings.toml"`,
/// `'config/app.yaml'`) that exist in the tree but are not in context.
fn config_gaps(
    c: &InContext,
    corpus: &BTreeMap<String, Arc<Doc>>,
    in_context: &HashSet<&str>,
) -> Vec<Gap> {
    let mut gaps: Vec<Gap> = Vec::new();
    for (i, line) in c.doc.text().lines().enumerate() {
        for quote in ['"', '\'', '`'] {
            for (j, lit) in line.split(quote).enumerate() {
                let lit = lit.trim().trim_start_matches("./");
                if j % 2 == 0 || lit.is_empty() || lit.contains(' ') || lit.len() > 200 {
                    continue;
                }
                let Some((_, ext)) = lit.rsplit_once('.') else {
                    continue;
                };
                if !CONFIG_EXTENSIONS.contains(&ext) {
                    continue;
                }
                let wanted = lit.replace('\\', "/");
                let hits: Vec<String> = corpus
                    .keys()
                    .filter(|p| {
                        p.as_str() == wanted
                            || (p.ends_with(&wanted)
                                && p.as_bytes()[p.len() - wanted.len() - 1] == b'/')
                    })
                    .take(5)
                    .cloned()
                    .collect();
                if hits.is_empty()
                    || hits.iter().any(|h| in_context.contains(h.as_str()))
                    || gaps.iter().any(|g| g.symbol.as_deref() == Some(lit))
                {
                    continue;
                }
                gaps.push(Gap {
                    kind: GapKind::ConfigFile,
                    description: format!("{} reads the configuration file `{lit}`", c.path),
                    symbol: Some(lit.to_string()),
                    referenced_from: Some(format!("{}:{}", c.path, i + 1)),
                    suggested_paths: hits,
                    critical: false,
                });
            }
        }
    }
    gaps.truncate(3);
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One snippet showing all of `text`.
    fn whole(text: &str) -> Vec<Snippet> {
        vec![Snippet {
            start_line: 1,
            end_line: text.lines().count(),
            text: text.to_string(),
        }]
    }

    /// A high file in context, shown by `snippets`.
    fn high_file<'a>(path: &'a str, doc: &'a Arc<Doc>, snippets: &'a [Snippet]) -> InContext<'a> {
        InContext {
            path,
            doc,
            snippets,
            is_high: true,
        }
    }

    /// A corpus of `(path, text)` files.
    fn corpus_of(files: &[(&str, &str)]) -> BTreeMap<String, Arc<Doc>> {
        files
            .iter()
            .map(|&(p, t)| (p.to_string(), Arc::new(Doc::for_test(p, t))))
            .collect()
    }

    /// A file whose one snippet calls hundreds of helpers, then extends a
    /// base class: its gap search looks for at most [`MAX_NAMES_PER_FILE`]
    /// names, the base class first although it comes last.
    #[test]
    fn a_file_using_hundreds_of_names_yields_a_bounded_list_bases_first() {
        let mut text = String::from("def run():\n");
        for i in 0..300 {
            text.push_str(&format!("    helper_number_{i:03}()\n"));
        }
        text.push_str("class Thing(BaseKlass):\n    pass\n");
        let doc = Arc::new(Doc::for_test("a.py", &text));
        let snippets = whole(&text);
        let c = high_file("a.py", &doc, &snippets);
        let syms = doc.symbols_until(&|| false);
        let corpus = BTreeMap::new();
        let mut in_tree = Default::default();
        let names: Vec<&str> = used_names(&c, &syms, &corpus, &mut in_tree)
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(names.len(), MAX_NAMES_PER_FILE, "{names:?}");
        assert_eq!(names[0], "BaseKlass", "{names:?}");
        // Then the calls, earliest first.
        assert_eq!(names[1], "helper_number_000", "{names:?}");
        assert_eq!(names[MAX_NAMES_PER_FILE - 1], "helper_number_022");
    }

    /// A rare name's holders that only use it (import it, subclass it, test
    /// it) are not parsed to learn that they do not define it; the gap still
    /// names its one definer.
    #[test]
    fn holders_that_only_use_a_name_are_not_parsed_to_find_its_definer() {
        let high =
            "from sympy.core.expr import AtomicExpr\n\nclass MatrixExpr(AtomicExpr):\n    pass\n";
        let user = "from sympy.core.expr import AtomicExpr\n\nclass Symbol(AtomicExpr):\n    pass\n\n\
                    def test_sympy__core__expr__AtomicExpr():\n    assert isinstance(x, AtomicExpr)\n";
        let definer = "class AtomicExpr(Atom):\n    is_number = False\n";
        let corpus = corpus_of(&[
            ("matrices/expr.py", high),
            ("core/tests/test_args.py", user),
            ("core/symbol.py", user),
            ("core/expr.py", definer),
        ]);
        let doc = &corpus["matrices/expr.py"];
        let snippets = whole(high);
        let context = [high_file("matrices/expr.py", doc, &snippets)];
        let q = TaskQuery::new("matrix expressions", &[]);
        let gaps = find(&context, &corpus, &q, &|| false);
        let gap = gaps
            .iter()
            .find(|g| g.symbol.as_deref() == Some("AtomicExpr"))
            .expect("a gap for the base class");
        assert_eq!(gap.suggested_paths, ["core/expr.py"]);
        assert!(corpus["core/expr.py"].kept_symbols().is_some());
        for user in ["core/tests/test_args.py", "core/symbol.py"] {
            assert!(
                corpus[user].kept_symbols().is_none(),
                "{user} was parsed although it only uses the name"
            );
        }
    }
    /// A library file's name is not "defined" by a test helper or by the
    /// docs' Sphinx configuration (flask, probe of 2026-12-07: `extensions`
    /// was said to be defined in `docs/conf.py`, `provide_automatic_options`
    /// to be ambiguous because a test defined it too); a test file's may be.
    #[test]
    fn a_library_files_names_are_not_defined_by_tests_or_docs() {
        let high = "class Flask:\n    def run(self):\n        self.extensions = {}\n        make_options(self)\n        return RuleSpec()\n";
        let corpus = corpus_of(&[
            ("src/flask/app.py", high),
            ("docs/conf.py", "extensions = [\"sphinx.ext.autodoc\"]\n"),
            (
                "tests/test_views.py",
                "def make_options(app):\n    return 1\n",
            ),
            (
                "src/flask/views.py",
                "def make_options(app):\n    return 2\n",
            ),
            ("tests/test_rules.py", "class RuleSpec:\n    pass\n"),
        ]);
        let snippets = whole(high);
        let gaps_of = |path: &'static str| {
            let context = [high_file(path, &corpus[path], &snippets)];
            find(
                &context,
                &corpus,
                &TaskQuery::new("flask run", &[]),
                &|| false,
            )
        };
        let gaps = gaps_of("src/flask/app.py");
        let of = |name: &str| gaps.iter().find(|g| g.symbol.as_deref() == Some(name));
        assert!(of("extensions").is_none(), "{gaps:?}");
        assert!(of("RuleSpec").is_none(), "{gaps:?}");
        let options = of("make_options").expect("a gap for the library's definer");
        assert_eq!(options.suggested_paths, ["src/flask/views.py"]);
        assert!(corpus["tests/test_rules.py"].kept_symbols().is_none());
    }
    /// Uncovered-concept gaps are bounded, and none are looked for once the
    /// call must stop: a pasted log of a hundred names no high file holds
    /// made as many holder lookups and gaps.
    #[test]
    fn uncovered_concepts_are_bounded_and_end_with_the_call() {
        let names: Vec<String> = (0..100).map(|i| format!("missing_name_{i:03}")).collect();
        let line = names.join(" ");
        let task = format!("{line}\n{line}\n{line}\n");
        let high = "def run():\n    return 1\n";
        let holder = format!("{line}\n");
        let corpus = corpus_of(&[("src/a.py", high), ("src/b.py", &holder)]);
        let snippets = whole(high);
        let context = [high_file("src/a.py", &corpus["src/a.py"], &snippets)];
        let q = TaskQuery::new(&task, &[]);
        let uncovered = |stop: &(dyn Fn() -> bool + Sync)| {
            find(&context, &corpus, &q, stop)
                .into_iter()
                .filter(|g| g.kind == GapKind::UncoveredConcept)
                .count()
        };
        assert_eq!(uncovered(&|| false), MAX_UNCOVERED);
        assert_eq!(uncovered(&|| true), 0);
    }
}
