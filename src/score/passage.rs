//! Passage evidence: the best window of a file's lines, scored with BM25's
//! term weights. Whole-file BM25 sees a 5,000-line module that holds every
//! task word in one function the same as one that scatters them over its
//! length, and its length normalisation pushes both below short files; the
//! place of a fix is one region where the task's terms meet. Scoring the best
//! fixed-size window and adding it to the file's score is passage-level
//! evidence (Callan, SIGIR 1994; the MaxP of Dai & Callan, SIGIR 2019).
//!
//! Per window of [`Weights::passage_lines`] lines, with `c_t` the occurrences
//! of query term `t` in it: `Σ w_t · idf_t · c_t (k1 + 1) / (c_t + k1)` (BM25
//! without length normalisation: every window has the same length). A file
//! gains [`Weights::passage`] times its best window's score. Comment,
//! docstring and import lines hold no hits (see [`Prose`]). The pass runs
//! after the definition pass, so the files parsed are still the lexically
//! best ones, and before the priors, which scale it like the rest.

use super::stage::{Pass, ScoreContext};
use super::Scored;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Files whose passages are scored per call, at most: the lexically best
/// ones (the definition pass parses the best `parse_cap`, 60). About 20 ms
/// a scoring call on sympy.
const PASSAGE_CAP: usize = 100;

/// The passage pass: adds the best window's score of the lexically best
/// files to their raw score.
#[derive(Debug, Clone, Copy, Default)]
pub struct Passages;

impl Pass for Passages {
    fn name(&self) -> &str {
        "passages"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        let w = ctx.weights;
        if w.passage <= 0.0 || scored.is_empty() {
            return;
        }
        let (q, st) = (ctx.query, &ctx.stats);
        // Per query term, its weight times its IDF; and its index by hash.
        let mut mass = vec![0.0; q.terms.len()];
        let mut index: FxHashMap<u64, usize> = FxHashMap::default();
        for (j, (t, &idf)) in q.terms.iter().zip(&st.idf).enumerate() {
            let tw = t.weight * super::bm25::body_weight(t, w);
            if tw > 0.0 && !index.contains_key(&t.hash) {
                index.insert(t.hash, j);
                mass[j] = tw * idf;
            }
        }
        if index.is_empty() {
            return;
        }
        let window = u32::try_from(w.passage_lines.max(1)).unwrap_or(u32::MAX);
        let n = scored.len().min(PASSAGE_CAP);
        let best: Vec<Window> = scored[..n]
            .par_iter()
            .map(|s| {
                let doc = ctx.cands[s.idx].doc;
                if st.tf[s.idx].iter().all(|&c| c == 0) {
                    return Window::default();
                }
                let prose = Prose::for_path(ctx.cands[s.idx].rel);
                best_window(doc.text(), prose, &index, &mass, window, w.k1)
            })
            .collect();
        for (s, b) in scored.iter_mut().zip(best) {
            tracing::debug!(
                path = ctx.cands[s.idx].rel,
                raw = s.raw,
                passage = b.score,
                line = b.line + 1,
                "passage"
            );
            s.raw += w.passage * b.score;
        }
        scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
    }
}

/// A file's best window.
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    /// The best window's score (see the module doc).
    score: f64,
    /// The 0-based first line of the best-scoring window.
    line: u32,
}

/// The best window of `window` lines of `text`: its score (see the module
/// doc; 0 when no code line holds a query term) and its first line.
/// `index` maps a query term's hash to its index, `weight` holds each
/// term's weight times its IDF.
fn best_window(
    text: &str,
    mut prose: Prose,
    index: &FxHashMap<u64, usize>,
    weight: &[f64],
    window: u32,
    k1: f64,
) -> Window {
    // Each code line's query-term occurrences, as (line, term) pairs in order.
    let mut hits: Vec<(u32, u32)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if prose.is_prose(line) {
            continue;
        }
        crate::query::for_each_term_hash(line, |h| {
            if let Some(&j) = index.get(&h) {
                hits.push((i as u32, j as u32));
            }
        });
    }
    if hits.is_empty() {
        return Window::default();
    }
    let sat = |c: u32| {
        let c = f64::from(c);
        c * (k1 + 1.0) / (c + k1)
    };
    let mut counts = vec![0u32; weight.len()];
    let (mut score, mut best) = (0.0f64, 0.0f64);
    let mut first = 0u32;
    // Windows start at a line holding a hit; `lo` is the first hit still in it.
    let mut lo = 0;
    for hi in 0..hits.len() {
        let (line, j) = hits[hi];
        let j = j as usize;
        score += weight[j] * (sat(counts[j] + 1) - sat(counts[j]));
        counts[j] += 1;
        while hits[lo].0.saturating_add(window) <= line {
            let k = hits[lo].1 as usize;
            score -= weight[k] * (sat(counts[k]) - sat(counts[k] - 1));
            counts[k] -= 1;
            lo += 1;
        }
        if score > best {
            best = score;
            first = hits[lo].0;
        }
    }
    Window {
        score: best,
        line: first,
    }
}

/// Tells comment, docstring and import lines from code, line by line:
/// `//`, `#` (not `#[attr]`), `/* ... */` blocks and their `*` lines,
/// triple-quoted blocks (Python docstrings and their `>>>` examples), and
/// imports (`import`, `from … import`, `use`, `using`, `#include`,
/// `require`), with the lines of a bracketed import list. Doc comments and
/// docstrings describe a function's use with the words and calls of its
/// callers, so a window of them echoes a task's pasted example wherever the
/// API is documented (sympy's `nsolve` docstring for a `lambdify` report);
/// an import block lists the names a module uses, each once, densely (the
/// first lines of every sympy sets module for a `ConditionSet` report).
/// The place of a fix is code.
#[derive(Debug, Default)]
struct Prose {
    /// Inside a `/* */` block.
    block: bool,
    /// Inside a triple-quoted block, with its delimiter.
    quoted: Option<&'static str>,
    /// Inside a bracketed import list, with its closing bracket.
    import: Option<char>,
    /// `--` starts a comment (Lua, Haskell, SQL, Elm, Ada, VHDL: see
    /// [`DASH_COMMENT_EXTENSIONS`]); elsewhere a line may begin with a
    /// decrement (`--depth;`).
    dash: bool,
    /// `%` starts a comment (Erlang: [`PERCENT_COMMENT_EXTENSIONS`]);
    /// elsewhere it is an operator or a format.
    percent: bool,
    /// The block comment the file's language opens with other delimiters
    /// than `/* */` ([`block_comment`]: OCaml's and F#'s `(* *)`,
    /// Haskell's and Elm's `{- -}`, Julia's `#= =#`), as (open, close).
    other_block: Option<(&'static str, &'static str)>,
    /// Inside a block comment other than `/* */` (Lua's `--[[ ]]`, or
    /// `other_block`'s), with its closing delimiter.
    block_close: Option<String>,
}

/// Extensions of languages whose line comments start with `--`.
const DASH_COMMENT_EXTENSIONS: &[&str] = &[
    "lua", "hs", "lhs", "sql", "elm", "ada", "adb", "ads", "vhd", "vhdl",
];

/// Extensions of languages whose line comments start with `%` (Erlang).
const PERCENT_COMMENT_EXTENSIONS: &[&str] = &["erl", "hrl"];

/// The block comment delimiters, other than `/* */`, of the language of
/// extension `ext` (compared without case): `(* *)` for OCaml, F# and
/// Standard ML (their doc comments are `(** *)`), `{- -}` for Haskell and
/// Elm, `#= =#` for Julia.
fn block_comment(ext: &str) -> Option<(&'static str, &'static str)> {
    let is = |list: &[&str]| list.iter().any(|e| e.eq_ignore_ascii_case(ext));
    if is(&["ml", "mli", "fs", "fsi", "fsx", "sml"]) {
        Some(("(*", "*)"))
    } else if is(&["hs", "lhs", "elm"]) {
        Some(("{-", "-}"))
    } else if is(&["jl"]) {
        Some(("#=", "=#"))
    } else {
        None
    }
}

/// Whether a trimmed line starts an import, and the bracket it leaves
/// open, if any (`from x import (`, `import {`, Go's `import (`, `use a::{`).
fn import_line(t: &str) -> Option<Option<char>> {
    let is_import = [
        "import ", "import(", "use ", "using ", "#include", "require ",
    ]
    .iter()
    .any(|k| t.starts_with(k))
        || (t.starts_with("from ") && t.contains(" import"))
        || (t.starts_with("pub use ") || t.starts_with("pub(crate) use "));
    if !is_import {
        return None;
    }
    for (open, close) in [('(', ')'), ('{', '}')] {
        if t.matches(open).count() > t.matches(close).count() {
            return Some(Some(close));
        }
    }
    Some(None)
}

impl Prose {
    /// The prose reader of the file at `rel` (its extension says whether
    /// `--` starts a comment).
    fn for_path(rel: &str) -> Prose {
        let ext = rel.rsplit_once('.').map_or("", |(_, e)| e);
        Prose {
            dash: DASH_COMMENT_EXTENSIONS
                .iter()
                .any(|e| e.eq_ignore_ascii_case(ext)),
            percent: PERCENT_COMMENT_EXTENSIONS
                .iter()
                .any(|e| e.eq_ignore_ascii_case(ext)),
            other_block: block_comment(ext),
            ..Prose::default()
        }
    }

    /// Whether `line` (the next line of the text) is a comment or docstring line.
    fn is_prose(&mut self, line: &str) -> bool {
        let t = line.trim_start();
        if let Some(close) = &self.block_close {
            if t.contains(close.as_str()) {
                self.block_close = None;
            }
            return true;
        }
        if let Some((open, close)) = self.other_block {
            if let Some(rest) = t.strip_prefix(open) {
                if !rest.contains(close) {
                    self.block_close = Some(close.to_string());
                }
                return true;
            }
        }
        if self.percent && t.starts_with('%') {
            return true;
        }
        if self.dash {
            if let Some(rest) = t.strip_prefix("--") {
                // `--[[` or `--[==[` opens a block comment that runs to
                // `]]` or `]==]`.
                if let Some(after) = rest.strip_prefix('[') {
                    let eq = after.len() - after.trim_start_matches('=').len();
                    if let Some(body) = after[eq..].strip_prefix('[') {
                        let close = format!("]{}]", "=".repeat(eq));
                        if !body.contains(&close) {
                            self.block_close = Some(close);
                        }
                    }
                }
                return true;
            }
        }
        if let Some(close) = self.import {
            if t.contains(close) {
                self.import = None;
            }
            return true;
        }
        if let Some(open) = import_line(t) {
            self.import = open;
            return true;
        }
        if let Some(q) = self.quoted {
            if t.contains(q) {
                self.quoted = None;
            }
            return true;
        }
        if self.block {
            if t.contains("*/") {
                self.block = false;
            }
            return true;
        }
        for q in ["\"\"\"", "'''"] {
            // A docstring opens a line (`\"\"\"Text` or `r\"\"\"`) and closes on it
            // or a later one.
            let open = t.strip_prefix(['r', 'u', 'b', 'R', 'U', 'B']).unwrap_or(t);
            if let Some(rest) = open.strip_prefix(q) {
                if !rest.contains(q) {
                    self.quoted = Some(q);
                }
                return true;
            }
        }
        if let Some(rest) = t.strip_prefix("/*") {
            if !rest.contains("*/") {
                self.block = true;
            }
            return true;
        }
        t.starts_with("//")
            || t.starts_with("* ")
            || t == "*"
            || t.starts_with("*/")
            || (t.starts_with('#')
                && !t[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '[' || c == '!'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The best window of `text` for query terms (term, weight × IDF).
    fn best(text: &str, terms: &[(&str, f64)]) -> f64 {
        let index = terms
            .iter()
            .enumerate()
            .map(|(j, (t, _))| (crate::query::term_hash(t), j))
            .collect();
        let weight: Vec<f64> = terms.iter().map(|&(_, m)| m).collect();
        best_window(text, Prose::for_path("t.py"), &index, &weight, 40, 1.2).score
    }

    #[test]
    fn terms_that_meet_in_one_window_score_more_than_the_same_terms_apart() {
        let m = [("cookie", 1.0), ("samesite", 2.0)];
        let together = "def save_session(cookie):\n    samesite = cookie.samesite\n";
        let filler = "x = 1\n".repeat(100);
        let apart = format!("cookie = None\n{filler}samesite = None\n");
        let near = best(together, &m);
        let far = best(&apart, &m);
        assert!(near > far, "{near} vs {far}");
        // Apart, the best window holds one of the two terms.
        assert!((far - 2.0).abs() < 1e-9, "{far}");
        assert_eq!(best("nothing here\n", &m), 0.0);
    }

    #[test]
    fn comments_and_docstrings_are_prose_and_code_is_not() {
        let text = "\
from sympy.core import (S, Dummy,
    Lambda)
import os
def nsolve(f, x0):
    \"\"\"Solve numerically.

    >>> f = lambdify(x, expr, 'mpmath')
    \"\"\"
    # a comment naming lambdify
    return lambdify(x0)
/* a block
 * naming lambdify
 */
#include <stdio.h>
#[derive(Debug)]
// lambdify here too
int x = 1;
";
        let mut p = Prose::default();
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !p.is_prose(l))
            .map(str::trim)
            .collect();
        assert_eq!(
            code,
            [
                "def nsolve(f, x0):",
                "return lambdify(x0)",
                "#[derive(Debug)]",
                "int x = 1;"
            ]
        );
    }

    #[test]
    fn lua_dash_comments_are_prose_and_a_c_decrement_is_code() {
        let lua = "\
-- picker for live_grep results
--[==[ a long comment
naming live_grep
]==]
local function live_grep(opts)
  --[[ one line ]] return opts
end
";
        let mut p = Prose::for_path("lua/telescope/builtin/files.lua");
        let code: Vec<&str> = lua
            .lines()
            .filter(|l| !p.is_prose(l))
            .map(str::trim)
            .collect();
        assert_eq!(code, ["local function live_grep(opts)", "end"]);
        // In C, a line may begin with a decrement: code, not a comment.
        let mut p = Prose::for_path("src/walk.c");
        assert!(!p.is_prose("  --depth;"));
    }

    #[test]
    fn ocaml_haskell_julia_block_comments_and_erlang_percent_comments_are_prose() {
        let code_of = |path: &str, text: &str| -> Vec<String> {
            let mut p = Prose::for_path(path);
            text.lines()
                .filter(|l| !p.is_prose(l))
                .map(|l| l.trim().to_string())
                .collect()
        };
        let ml = "(** [digest t] hashes the file\n    with BLAKE3 *)\nlet digest t =\n  (* one line *)\n  Blake3.hash t (* the hash *)\n";
        assert_eq!(
            code_of("src/dune_digest/digest.ml", ml),
            ["let digest t =", "Blake3.hash t (* the hash *)"]
        );
        let hs = "{- | Checks of a script,\n   in order. -}\nrunChecks :: Params -> [Token]\n";
        assert_eq!(
            code_of("src/ShellCheck/Analytics.hs", hs),
            ["runChecks :: Params -> [Token]"]
        );
        let jl = "#= Joins two frames\non their keys =#\nfunction innerjoin(a, b)\n";
        assert_eq!(
            code_of("src/join/composer.jl", jl),
            ["function innerjoin(a, b)"]
        );
        let erl = "%% @doc Starts the listener.\n-spec start() -> ok.\nstart() -> ok.\n";
        assert_eq!(
            code_of("src/cowboy.erl", erl),
            ["-spec start() -> ok.", "start() -> ok."]
        );
        // Elsewhere these openers are code: a C `(*f)(x)` call, a Python
        // modulo on a continued line.
        assert!(!Prose::for_path("src/walk.c").is_prose("  (*visit)(node);"));
        assert!(!Prose::for_path("calc.py").is_prose("    % modulus"));
    }

    #[test]
    fn a_docstring_that_echoes_the_task_is_no_passage_evidence() {
        let m = [("lambdify", 2.0), ("mpmath", 2.0)];
        let doc =
            "def other():\n    \"\"\"\n    >>> lambdify(x, e, 'mpmath')\n    \"\"\"\n    pass\n";
        assert_eq!(best(doc, &m), 0.0);
        let code = "def printer():\n    return lambdify(x, e, 'mpmath')\n";
        assert!(best(code, &m) > 0.0);
    }

    #[test]
    fn of_two_files_with_the_same_words_the_one_where_they_meet_ranks_first() {
        // Same words, same counts, same length: whole-file BM25 ties them
        // (and the walk order would put `apart.py` first); only the second
        // holds them in one function.
        let filler = "    step = step + 1\n".repeat(60);
        let apart = format!("def a():\n    cookie\n{filler}def b():\n    samesite\n");
        let together = format!("def a():\n    cookie.samesite\n{filler}def b():\n    pass\n");
        let files = [
            ("web/apart.py", apart.as_str()),
            ("web/together.py", together.as_str()),
        ];
        let r = super::super::test_score(&files, "the cookie loses its samesite flag");
        assert_eq!(files[r[0].idx].0, "web/together.py");
    }
}
