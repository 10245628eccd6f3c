//! The definition pass: files that define a task identifier.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Evidence, Scored, Weights};
use crate::lang::{is_test_path, DefKind, Symbols};
use crate::query::{term_hash, TaskQuery};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// BM25 IDF at or above which a prose word's definition counts in full: a
/// word in under about 2% of the matching files is as telling as a code name.
const PROSE_RARE_IDF: f64 = 4.0;

/// Parsed files at most that may define a prose word for its definition to
/// count in full: a word only one or two files define (`walk`, `searcher` in
/// a commit title) names them. Without this, dev-rust tasks with their first
/// gold file high fell from 54 % to 19 % (bench, 2026-12-01).
const PROSE_RARE_DEFINERS: f64 = 2.0;

/// What the definition pass reads of BM25's statistics: `N`, each query
/// term's IDF, and the term-count matrix.
pub(super) struct DefStats<'a> {
    pub n: f64,
    pub idf: &'a [f64],
    pub tf: &'a [Vec<u32>],
}

/// Files that *define* a task identifier outrank files that only mention it.
/// Only the lexically best `parse_cap` files (and files holding a rare task
/// identifier) are parsed, so cost stays bounded on large trees.
pub(super) fn definition_pass(
    cands: &[Candidate],
    q: &TaskQuery,
    w: &Weights,
    scored: &mut [Scored],
    st: DefStats,
    stop: &(dyn Fn() -> bool + Sync),
) -> HashMap<usize, Arc<Symbols>> {
    let DefStats { n, idf, tf } = st;
    let term_of: HashMap<u64, usize> = q
        .terms
        .iter()
        .enumerate()
        .map(|(j, t)| (t.hash, j))
        .collect();
    let idents: Vec<Ident> = q
        .identifiers
        .iter()
        .filter_map(|id| {
            let j = *term_of.get(&term_hash(id))?;
            Some((id.as_str(), j, q.terms[j].weight, q.terms[j].is_code))
        })
        .collect();
    let to_parse = files_to_parse(cands, &idents, w.parse_cap, scored, tf);
    let parsed: HashMap<usize, Arc<Symbols>> = to_parse
        .into_par_iter()
        .map(|i| (i, cands[i].doc.symbols_until(stop)))
        .collect();
    let ndef = definer_counts(&idents, &parsed);
    for s in scored.iter_mut() {
        let Some(syms) = parsed.get(&s.idx) else {
            continue;
        };
        s.capped = syms.capped;
        let mut bonus = 0.0;
        for &(id, j, weight, code) in &idents {
            // A top-level definition says more than a method of the same name.
            if let Some(d) = syms.defines(id).min_by_key(|d| d.parent.is_some()) {
                let count = ndef.get(id).copied().unwrap_or(1) as f64;
                let kind = if d.parent.is_some() && d.kind.is_callable() {
                    w.method_definition
                } else {
                    1.0
                };
                let def =
                    kind * weight * (1.0 + n / count).ln() * w.definition / (1.0 + count.ln());
                // A word the task uses only as prose ("the session",
                // "usage", `git clone`) that a file happens to define is
                // weak evidence, and no "defines" (high tier), unless the
                // word is rare in the collection (its BM25 IDF). Few
                // definers make it telling only when the file defines the
                // word as a function, type or top-level name: a class
                // attribute or field named by an everyday word (`preview:
                // bool`, `type: int`, `path = ...` in a class body) is data
                // the report's prose does not name. In a question, so is a
                // method: "how does it read files", "what bytes does it
                // keep" describe behaviour in the words every reader,
                // writer and buffer names its methods by (`read`, `bytes`),
                // where a commit title's prose word names what it changes
                // ("walk: …"). Measured, 2026-12-07 (bench --no-bm25): for
                // every task, dev-questions Acc@1/5 55.6/88.9 -> 57.1/90.5
                // but dev-rust 59.5/94.6 -> 56.8/91.9 and dev-multilang
                // edit recall 55.3 -> 54.5; for questions only, the
                // dev-questions gain and no other set moved. A top-level
                // constant is data as a field is (flask's module-level
                // `request` and `session` proxies made globals.py high for
                // "which blueprint handles a request"): measured the same
                // day, dev-python Acc@10 86.9 -> 87.6 and edit recall
                // 61.2 -> 61.8, dev-multilang Acc@5 67.4 -> 67.6 and
                // Acc@10 76.2 -> 76.0 (one task each), the other six sets'
                // gold ranks the same but one raised (Swift-Lua).
                let data_or_asked = (d.parent.is_some() && (q.question || !d.kind.is_callable()))
                    || d.kind == DefKind::Constant;
                if !code
                    && idf[j] < PROSE_RARE_IDF
                    && (count > PROSE_RARE_DEFINERS || data_or_asked)
                {
                    bonus += def * w.prose_definition;
                    continue;
                }
                bonus += def;
                s.defines.push(id.to_string());
                s.evidence.push(Evidence::Defines {
                    kind: d.kind,
                    name: id.to_string(),
                    start_line: d.start_line,
                    end_line: d.end_line,
                });
            }
        }
        s.raw += bonus;
    }
    parsed
}

/// A task identifier the definition pass looks for: (identifier, index of
/// its query term, the term's weight, code-like).
type Ident<'a> = (&'a str, usize, f64, bool);

/// The files the definition pass parses: the lexically best `parse_cap`
/// files in a known language, and the holders of rare identifiers (in at
/// most 8 files), rarest first, until `parse_cap` more are taken: the
/// definition of a name the task mentions once can be lexically weak. Test files ([`is_test_path`]) are not parsed: what they
/// define is test functions and fixtures, not the code a task changes, and a
/// test that defines a task name (a helper, a stub class) made the name look
/// common to the definer count of the module it tests. Their symbols are
/// parsed later if the answer shows them, and linked to the best files by
/// the names their text holds (`neighbours::test_mentions`). On sympy's
/// solveset task the pass parsed 57 files before and 36 after (381 -> 225
/// ms; the cold call 19x -> 13x `rg -c -i`). Bench,
/// 2026-12-05: dev-python and dev-rust kept every gold rank, dev-multilang
/// Acc@5 66.4 -> 66.8 (gold rose on 4 tasks, fell on 6), dev-questions lost
/// one task (a prose word two parsed files define, see README).
fn files_to_parse(
    cands: &[Candidate],
    idents: &[Ident],
    parse_cap: usize,
    scored: &[Scored],
    tf: &[Vec<u32>],
) -> HashSet<usize> {
    let parsable = |i: usize| cands[i].doc.language.is_some() && !is_test_path(cands[i].rel);
    let mut to_parse: HashSet<usize> = scored
        .iter()
        .take(parse_cap)
        .filter(|s| parsable(s.idx))
        .map(|s| s.idx)
        .collect();
    let mut rare: Vec<Vec<usize>> = idents
        .iter()
        .map(|&(_, j, _, _)| {
            scored
                .iter()
                .filter(|s| cands[s.idx].doc.language.is_some() && tf[s.idx][j] > 0)
                .map(|s| s.idx)
                .take(9)
                .collect::<Vec<usize>>()
        })
        .filter(|holders| holders.len() <= 8)
        .collect();
    // The rarest names first, and at most `parse_cap` files more: a task
    // pasting a listing of 1,060 paths made each stem a rare identifier, and
    // the pass parsed 352 of sympy's files (2.3 s).
    rare.sort_by_key(Vec::len);
    let lexical = to_parse.len();
    for holders in rare {
        if to_parse.len() >= lexical + parse_cap {
            break;
        }
        to_parse.extend(holders.into_iter().filter(|&i| parsable(i)));
    }
    to_parse
}

/// Definition IDF: for each identifier, how many parsed files define it.
fn definer_counts<'a>(
    idents: &[Ident<'a>],
    parsed: &HashMap<usize, Arc<Symbols>>,
) -> HashMap<&'a str, usize> {
    let ident_set: HashSet<&'a str> = idents.iter().map(|&(id, _, _, _)| id).collect();
    let mut ndef: HashMap<&'a str, usize> = HashMap::new();
    for syms in parsed.values() {
        let mut seen = HashSet::new();
        for d in &syms.definitions {
            if let Some(&id) = ident_set.get(d.name.as_str()) {
                if seen.insert(id) {
                    *ndef.entry(id).or_insert(0) += 1;
                }
            }
        }
    }
    ndef
}

/// The definition pass (skipped when the call is in a hurry): see
/// `definition_pass`. It records the parsed symbols for the passes after it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Definitions;

impl Pass for Definitions {
    fn name(&self) -> &str {
        "definitions"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        if ctx.must_hurry() {
            return;
        }
        let (cands, q, w, st) = (ctx.cands, ctx.query, ctx.weights, &ctx.stats);
        let st = DefStats {
            n: st.n,
            idf: &st.idf,
            tf: &st.tf,
        };
        ctx.parsed = definition_pass(cands, q, w, scored, st, ctx.stop);
    }
}

#[cfg(test)]
mod tests {

    fn defines_of(task: &str) -> Vec<(String, Vec<String>)> {
        let files = [
            ("src/web/store.py", "def session():\n    return Store()\n"),
            (
                "src/web/expiry.py",
                "def expire(token):\n    # the session expires\n    return token\n",
            ),
            (
                "src/web/views.py",
                "def login(session):\n    return session\n",
            ),
            ("src/db/pool.py", "def session():\n    return Pool()\n"),
            ("src/cache/lru.py", "class session:\n    pass\n"),
        ];
        super::super::test_score(&files, task)
            .into_iter()
            .map(|s| (files[s.idx].0.to_string(), s.defines))
            .collect()
    }

    #[test]
    fn a_prose_word_a_file_defines_is_not_a_definition_match() {
        // "session" as a word of the report, and three files define
        // `session`: none of them is a definition match.
        let prose = defines_of("The session expires too early after login");
        assert!(
            prose.iter().all(|(_, d)| !d.iter().any(|n| n == "session")),
            "{prose:?}"
        );
        // A prose word only one file defines (`login`) names it.
        let views = prose.iter().find(|(p, _)| p == "src/web/views.py").unwrap();
        assert_eq!(views.1, ["login"], "{prose:?}");
        // Written as code, the same name is a definition match.
        let code = defines_of("`session()` expires too early after login");
        let store = code.iter().find(|(p, _)| p == "src/web/store.py").unwrap();
        assert_eq!(store.1, ["session"], "{code:?}");
    }

    #[test]
    fn a_questions_prose_word_naming_a_method_is_not_a_definition_match() {
        // ripgrep's "How does ripgrep decide that a file is binary, and what
        // is the difference between converting NUL bytes …" ranked
        // sink.rs first, high, for "defines method `bytes`".
        let files = [
            (
                "src/sink.rs",
                "struct SinkMatch;\nimpl SinkMatch {\n    fn bytes(&self) -> &[u8] { &self.b }\n}\n",
            ),
            (
                "src/line_buffer.rs",
                "enum BinaryDetection { Quit, Convert }\nfn binary_detection(nul: u8) {}\n",
            ),
        ];
        let of = |task: &str| defines_of_file(&files, "src/sink.rs", task);
        assert!(of("how does it convert NUL bytes in a binary file?").is_empty());
        // A change request's prose word still names the one method.
        assert_eq!(of("Return the matched bytes without a copy"), ["bytes"]);
    }

    #[test]
    fn a_prose_word_naming_a_top_level_constant_is_not_a_definition_match() {
        // flask's "how does flask decide which blueprint handles a request"
        // made globals.py high for "defines constant `request`": the
        // module-level proxy is data the prose does not name.
        let files = [
            (
                "src/flask/globals.py",
                "request = LocalProxy(_cv_request)\nsession = LocalProxy(_cv_session)\n",
            ),
            (
                "src/flask/app.py",
                "def dispatch_request(self):\n    return self.handle(request)\n",
            ),
        ];
        let of = |task: &str| defines_of_file(&files, "src/flask/globals.py", task);
        assert!(of("Which blueprint handles a request after a redirect").is_empty());
        // Written as code, the constant is a definition match.
        assert_eq!(
            of("`request` is unbound in a background thread"),
            ["request"]
        );
    }

    /// The definition matches of the file at `path` for `task` over `files`
    /// (none when it is not scored).
    fn defines_of_file(files: &[(&str, &str)], path: &str, task: &str) -> Vec<String> {
        defines_in(files, task)
            .into_iter()
            .find(|(p, _)| p == path)
            .map(|(_, d)| d)
            .unwrap_or_default()
    }

    /// Each file's definition matches for `task` over `files`.
    fn defines_in(files: &[(&str, &str)], task: &str) -> Vec<(String, Vec<String>)> {
        super::super::test_score(files, task)
            .into_iter()
            .map(|s| (files[s.idx].0.to_string(), s.defines))
            .collect()
    }

    /// A task pasting a listing of many names (every file's own) parses the
    /// lexically best `parse_cap` files and at most `parse_cap` more, not
    /// every holder of every rare name.
    #[test]
    fn rare_names_add_at_most_parse_cap_files_to_parse() {
        let cap = super::super::Weights::default().parse_cap;
        let names: Vec<String> = (0..3 * cap).map(|i| format!("handler_{i:03}")).collect();
        let texts: Vec<(String, String)> = names
            .iter()
            .map(|n| (format!("src/{n}.py"), format!("def {n}():\n    pass\n")))
            .collect();
        let files: Vec<(&str, &str)> = texts
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let task = format!("Crash in `{}`", names.join("()`, `"));
        let defining = defines_in(&files, &task)
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .count();
        assert!(
            (cap..=2 * cap + 8).contains(&defining),
            "{defining} files parsed and defining a name"
        );
    }

    #[test]
    fn a_test_file_is_not_parsed_for_definitions_nor_counted_as_a_definer() {
        // The task names `session()`; the module defines it, and so does a
        // test file's stub. The test file is no definition match.
        let files = [
            ("src/web/store.py", "def session():\n    return Store()\n"),
            (
                "tests/test_store.py",
                "def session():\n    return FakeStore()\n\ndef test_session():\n    assert session()\n",
            ),
            ("src/web/views.py", "def login(user):\n    return user\n"),
        ];
        let task = "`session()` returns a closed store";
        let scored = super::super::test_score(&files, task);
        let of = |p: &str| scored.iter().find(|s| files[s.idx].0 == p).unwrap();
        assert!(of("tests/test_store.py").defines.is_empty(), "{scored:?}");
        assert_eq!(of("src/web/store.py").defines, ["session"], "{scored:?}");
    }

    #[test]
    fn a_prose_word_naming_a_class_attribute_is_not_a_definition_match() {
        // "preview" is an everyday word of the report; the only file that
        // defines it does so as a dataclass field (black's `Mode.preview`).
        let files = [
            (
                "src/fmt/mode.py",
                "class Mode:\n    preview: bool = False\n    line_length: int = 88\n",
            ),
            (
                "src/fmt/linegen.py",
                "def wrap_parens(node, mode):\n    # keep parens in preview\n    return node\n",
            ),
            (
                "src/fmt/lines.py",
                "def comprehension(line):\n    return line\n",
            ),
        ];
        let prose = defines_in(&files, "Keep parens around lambda iterables in preview");
        assert!(
            prose.iter().all(|(_, d)| !d.iter().any(|n| n == "preview")),
            "{prose:?}"
        );
        // Written as code, the attribute is a definition match.
        let code = defines_in(
            &files,
            "Keep parens around lambda iterables with `mode.preview`",
        );
        let mode = code.iter().find(|(p, _)| p == "src/fmt/mode.py").unwrap();
        assert_eq!(mode.1, ["preview"], "{code:?}");
        // A function named by a prose word only one file defines still names it.
        let func = defines_in(&files, "Keep the comprehension line");
        let lines = func.iter().find(|(p, _)| p == "src/fmt/lines.py").unwrap();
        assert_eq!(lines.1, ["comprehension"], "{func:?}");
    }
}
