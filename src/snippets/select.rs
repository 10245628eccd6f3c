//! Which regions of a file become its snippets: the definitions holding
//! what the task names, scored, chosen best first, with their class's
//! signature.

use super::cut::{
    cut_range, densest_window, merge_neighbours, MAX_BEST_SNIPPET_LINES, MAX_SNIPPET_LINES,
    MERGE_GAP,
};
use super::evidence::{line_evidence, region_hits, LineEvidence, MAX_EVIDENCE};
use crate::corpus::Doc;
use crate::lang::{DefKind, Definition, RefKind, Reference, Symbols};
use crate::query::TaskQuery;
use crate::types::Snippet;

/// Snippets chosen per file, best first (and a delegate after a chosen
/// function, see `add_delegates`); [`pack`](super::pack) decides how
/// many keep their text (by the file's tier and the snippet's place, so the
/// later ones cost budget only after the better snippets of the files
/// above). Twelve, not five or eight: a fix in a large file often touches
/// more functions than that (dev-rust EditR 43.7 → 49.3 % with 8, same
/// Acc@k). From 8 to 12 (`bench --no-bm25`, 2026-12-05, same trees, Acc@k
/// unchanged), EditR rose on every set: dev-multilang 52.3 → 53.3 %,
/// dev-python 60.5 → 60.7, dev-rust 66.6 → 70.4, dev-questions 72.2 →
/// 73.2, the 339 held-out tasks 55.7 → 57.5. Of the top file's edit lines
/// outside its snippets, more lay in its scored definitions 9-16 than in
/// 17 and below. With 16, dev-questions fell to 71.3 and dev-python to
/// 60.3: more of each file's ranges stay handles, whose line costs budget.
const MAX_SNIPPETS: usize = 12;
/// A class or impl signature this many lines or fewer above a chosen snippet
/// is merged into it (the lines between are the class's docstring and
/// attributes); farther away it is left out, never a snippet of its own.
const MAX_SIGNATURE_GAP: usize = 12;
/// A chosen region this many lines or fewer (a one-line closure or arrow
/// function) gives way to a matching definition around it: see [`choose`].
const TINY_REGION_LINES: usize = 3;
/// Evidence of a definition whose name is the question's words (see
/// [`named_by_question`]), times the share of its name's words that are.
const NAMED_BY_QUESTION: f64 = 30.0;
/// A name word counts in [`named_by_question`] when at most this many of
/// the file's definition names hold it: "printer" and "Integral" pick
/// `_print_Integral` among the 200 `_print_*` methods of a printer.
const RARE_NAME_WORD: usize = 2;

/// The regions of `doc` that best match the query, best first (at most
/// `MAX_SNIPPETS`): the definitions (functions, methods, classes,
/// constants) holding what the task names — a string literal the task
/// quotes, the task's identifiers written verbatim, the definitions the file
/// is ranked for (`defines`) — then those with the most query terms,
/// preferring the smallest definition that matches (the enclosing function
/// of a line, not its whole class). Files without symbols get a window
/// around their densest lines (as do files whose parse was capped or
/// stopped: see `Doc::symbols_until`, which `stop` is passed to). The best
/// region is shown whole up to `MAX_BEST_SNIPPET_LINES` lines, the others
/// up to `MAX_SNIPPET_LINES`; longer ones are cut around their best line. A
/// method's class or impl signature is merged into its snippet when it is
/// at most `MAX_SIGNATURE_GAP` lines above, and regions at most
/// `MERGE_GAP` lines apart become one snippet; then each snippet takes the
/// blank lines after it and the short comment or decorator block and blank
/// line above it (see `with_context`), and the lines left between two
/// snippets at most `MERGE_GAP` apart join the one above (`close_gaps`).
/// Line numbers are 1-based,
/// inclusive; [`pack`](super::pack) puts each file's snippets back in line order.
pub fn snippets(
    doc: &Doc,
    q: &TaskQuery,
    defines: &[String],
    stop: &dyn Fn() -> bool,
) -> Vec<Snippet> {
    let lines: Vec<&str> = doc.text().lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let found = line_evidence(&lines, q);
    let syms = doc.symbols_until(stop);
    let defs = candidates(&syms.definitions, &lines);
    let own = own_evidence(&defs, lines.len(), &found);
    let named = if q.question {
        named_by_question(&defs, q)
    } else {
        vec![0.0; defs.len()]
    };
    let evidence = found.score;
    let regions = scored_regions(&defs, &own, &named, &lines, q, defines);
    let mut chosen = choose(&regions, &lines, q, &evidence);
    add_delegates(&mut chosen, &syms, &lines, q, &evidence);
    add_callees(&mut chosen, &syms, &lines, q, &evidence);
    join_signatures(&mut chosen, &syms.definitions);
    let chosen: Vec<(usize, usize)> = chosen
        .into_iter()
        .map(|(s, e, max)| cut_range(&lines, s, e, q, &evidence, max))
        .collect();
    close_gaps(with_context(&lines, merge_neighbours(chosen)))
        .into_iter()
        .map(|(s, e)| Snippet {
            start_line: s,
            end_line: e,
            text: lines[s - 1..e].join("\n"),
        })
        .collect()
}

/// Blank lines after a region that join its snippet, at most: a file's
/// last definition before the `}` closing its namespace is often followed
/// by two or three (simdjson, where the new function went after the
/// second).
const MAX_TRAILING_BLANKS: usize = 3;
/// The longest comment, doc-comment, decorator or attribute block directly
/// above a region that joins it (whole, or not at all): a method's doc
/// block (PHP, Java, Go) is reworded with the method and is not part of the
/// parsed definition, while a long Rust doc comment would cost the budget
/// of the next snippet (with 12 lines, cut to its last 12, dev-rust lost
/// ripgrep's pathutil.rs: its snippets grew into one too long to fit).
const MAX_LEAD_LINES: usize = 8;

/// Whether a line (trimmed) is a comment, doc comment, decorator,
/// annotation or attribute line, in any of the table's languages: `//`,
/// `/*`, `*` (inside a block comment), `#` (Python, Ruby, shell comments,
/// Rust attributes, C preprocessor lines), `@` (decorators, annotations),
/// `--` (Lua, SQL, Haskell), `%` (Erlang).
fn is_lead_line(line: &str) -> bool {
    let t = line.trim_start();
    ["//", "/*", "*", "#", "@", "--", "%"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// Gives the lines between two snippets at most `MERGE_GAP` apart (once
/// each has its context) to the one above: shown both, they showed the
/// reader all but those lines (go-task's `var checksumFilenameRegexp = ...`
/// between two functions, the one line its fix changed). Not merged into
/// one: a merged snippet too long for the budget left became a handle,
/// where each alone kept its text (ripgrep, dev-rust: 14 edit lines lost).
fn close_gaps(mut regions: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut by_line: Vec<usize> = (0..regions.len()).collect();
    by_line.sort_by_key(|&i| regions[i].0);
    for w in by_line.windows(2) {
        let (above, below) = (regions[w[0]], regions[w[1]]);
        if below.0 > above.1 + 1 && below.0 <= above.1 + MERGE_GAP + 1 {
            regions[w[0]].1 = below.0 - 1;
        }
    }
    regions
}

/// Lines that only close the blocks around a region, at most, that join
/// its end: a method's snippet ends at its own `}`, and the `}` of its impl
/// or class below it is where a new method or impl is added (tokio's
/// `impl PartialEq for CancellationToken`, inserted after the `}` closing
/// `impl Clone`, the line after the `clone` method's snippet).
const MAX_CLOSING_LINES: usize = 3;

/// Whether a line (trimmed) only closes blocks: brackets, `;` and `,`
/// (`}`, `};`, `})`, `]);`), or the `end` keyword of Ruby, Lua, Julia and
/// Elixir.
fn is_closing_line(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && (t == "end" || t.chars().all(|c| matches!(c, '}' | ')' | ']' | ';' | ',')))
}

/// The regions (after merging) with the lines around them where an edit
/// often lands just outside the definition: the end moves past the lines
/// that only close blocks (at most `MAX_CLOSING_LINES`: the `}` of the
/// method's class) and then the blank lines after it (at most
/// `MAX_TRAILING_BLANKS`; a new definition goes there, and the edit's line
/// is the blank line it follows), the start
/// moves up over the comment or decorator block directly above it (when
/// it is at most `MAX_LEAD_LINES` long) and then one blank line (a new
/// definition inserted before the one shown follows that blank line).
/// Never into another region (`close_gaps` joins what it leaves between).
/// Blank lines cost a byte each.
fn with_context(lines: &[&str], regions: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let n = lines.len();
    let blank = |l: usize| lines[l - 1].trim().is_empty();
    let ends: Vec<usize> = regions
        .iter()
        .map(|&(_, e)| {
            let ceiling = regions
                .iter()
                .map(|r| r.0)
                .filter(|&o| o > e)
                .min()
                .map_or(n, |o| o - 1);
            let mut end = e;
            while end < (e + MAX_CLOSING_LINES).min(ceiling) && is_closing_line(lines[end]) {
                end += 1;
            }
            let closed = end;
            while end < (closed + MAX_TRAILING_BLANKS).min(ceiling) && blank(end + 1) {
                end += 1;
            }
            end
        })
        .collect();
    regions
        .iter()
        .zip(&ends)
        .map(|(&(s, _), &end)| {
            let floor = ends.iter().copied().filter(|&b| b < s).max().unwrap_or(0);
            let mut start = s;
            while start > floor + 1 && is_lead_line(lines[start - 2]) {
                start -= 1;
            }
            if s - start > MAX_LEAD_LINES {
                start = s;
            }
            if start > floor + 1 && blank(start - 1) {
                start -= 1;
            }
            (start, end)
        })
        .collect()
}

/// The definitions that may be a snippet: not modules, impl blocks or
/// include guards, and starting within the file's lines.
fn candidates<'d>(defs: &'d [Definition], lines: &[&str]) -> Vec<&'d Definition> {
    let n = lines.len();
    defs.iter()
        .filter(|d| d.kind != DefKind::Module && d.kind != DefKind::Impl)
        .filter(|d| d.start_line > 0 && d.start_line <= d.end_line.min(n))
        .filter(|d| !is_include_guard(d, lines))
        .collect()
}

/// Whether `d` is a C or C++ header's include guard: `#define NAME` with
/// no value, right after `#ifndef NAME` (or `#if !defined(NAME)`). Its name
/// is the header's path (`ASIO_DETAIL_EPOLL_REACTOR_HPP`), so it held the
/// task's words and was the first snippet of most headers it named (asio,
/// newcomer probe of 2026-12-06).
fn is_include_guard(d: &Definition, lines: &[&str]) -> bool {
    // The C and C++ tags queries call a `#define` without parameters a
    // constant.
    if !matches!(d.kind, DefKind::Constant | DefKind::Macro) {
        return false;
    }
    let directive = |l: &str| {
        l.trim()
            .strip_prefix('#')
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    let i = d.start_line - 1;
    if directive(lines[i]) != Some(format!("define {}", d.name)) {
        return false;
    }
    let Some(above) = lines[..i].iter().rev().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    directive(above).is_some_and(|a| {
        let a = a.replace(' ', "");
        a == format!("ifndef{}", d.name)
            || a == format!("if!defined({})", d.name)
            || a == format!("if!defined{}", d.name)
    })
}

/// Per definition, the evidence of its own lines (not those of the
/// definitions nested in it: the quoted message counts for the method
/// holding it, not its class): its strong evidence (quoted literals, a
/// table's insertion point) line by line, and each task identifier it
/// holds weighted by 1 + ln(lines holding it), as `region_hits` weighs
/// query terms. Before, each line counted in full: a long traceback frame
/// calling `self._print(...)` on forty lines reached the evidence cap and
/// outranked the five-line function the title names (sympy-21171);
/// counting each identifier once instead lost the functions that work
/// with a name over those that mention it (sympy-13480's `coth.eval`;
/// edit recall of the quick set's 68 Python tasks 63.1 -> 61.8).
fn own_evidence(defs: &[&Definition], n: usize, found: &LineEvidence) -> Vec<f64> {
    // Direct children of each definition, by line span.
    let mut children: Vec<Vec<(usize, usize)>> = vec![Vec::new(); defs.len()];
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (defs[i].start_line, std::cmp::Reverse(defs[i].end_line)));
    let mut open: Vec<usize> = Vec::new();
    for i in order {
        let (s, e) = (defs[i].start_line, defs[i].end_line.min(n));
        while open.last().is_some_and(|&p| defs[p].end_line.min(n) < s) {
            open.pop();
        }
        if let Some(&p) = open.last() {
            if e <= defs[p].end_line.min(n) {
                children[p].push((s, e));
            }
        }
        open.push(i);
    }
    defs.iter()
        .zip(&children)
        .map(|(d, kids)| {
            let (s, e) = (d.start_line, d.end_line.min(n));
            let mut counts = vec![0u32; found.id_weights.len()];
            let mut strong = 0.0;
            let mut kids = kids.iter().peekable();
            let mut line = s;
            while line <= e {
                if let Some(&&(ks, ke)) = kids.peek() {
                    if line >= ks {
                        line = line.max(ke + 1);
                        kids.next();
                        continue;
                    }
                }
                let mut mask = found.ids[line - 1];
                while mask != 0 {
                    counts[mask.trailing_zeros() as usize] += 1;
                    mask &= mask - 1;
                }
                strong += found.strong[line - 1];
                line += 1;
            }
            let named: f64 = counts
                .iter()
                .zip(&found.id_weights)
                .filter(|(&c, _)| c > 0)
                .map(|(&c, w)| w * (1.0 + f64::from(c).ln()))
                .sum();
            named + strong
        })
        .collect()
}

/// Per definition, the evidence that a question names it: the share of its
/// name's words (`_print_Integral`: print, integral) that are query terms
/// held by at most [`RARE_NAME_WORD`] of the file's distinct definition
/// names, times [`NAMED_BY_QUESTION`]. For questions only
/// ([`TaskQuery::question`]): "where is the LaTeX printer for Integral
/// implemented" showed the printer's best-scored methods but not
/// `_print_Integral` (probe 2026-12-06, defect 2). In a bug report the
/// words that name a function are as often the symptom's as the fix's:
/// given to every task, the same evidence cost edit recall (dev-python
/// 60.7 -> 57.3 %, 1 task up and 10 down; dev-multilang 54.0 -> 52.6,
/// 2026-12-06), so bug reports do not get it. Functions, methods and macros
/// only: a question about a random variable's density showed sympy's
/// one-line `is_Continuous = False` twice in place of functions.
fn named_by_question(defs: &[&Definition], q: &TaskQuery) -> Vec<f64> {
    let parts: Vec<Vec<u64>> = defs
        .iter()
        .map(|d| {
            let mut hashes = Vec::new();
            crate::query::for_each_term_hash(&d.name, |h| hashes.push(h));
            // The whole name first, then its parts when it has several.
            if hashes.len() > 1 {
                hashes.remove(0);
            }
            hashes.sort_unstable();
            hashes.dedup();
            hashes
        })
        .collect();
    let mut holders: rustc_hash::FxHashMap<u64, usize> = Default::default();
    let mut names = rustc_hash::FxHashSet::default();
    for (d, hashes) in defs.iter().zip(&parts) {
        if names.insert(d.name.as_str()) {
            for &h in hashes {
                *holders.entry(h).or_default() += 1;
            }
        }
    }
    parts
        .iter()
        .zip(defs)
        .map(|(hashes, d)| {
            // Code that does something: not a constant, field or type whose
            // name holds a word of the question (`is_Continuous = False`,
            // `struct Binary;` took places of the functions around them).
            if !matches!(d.kind, DefKind::Function | DefKind::Method | DefKind::Macro) {
                return 0.0;
            }
            let named = hashes
                .iter()
                .filter(|h| q.weight_of(**h).is_some() && holders[*h] <= RARE_NAME_WORD)
                .count();
            if hashes.is_empty() {
                0.0
            } else {
                NAMED_BY_QUESTION * named as f64 / hashes.len() as f64
            }
        })
        .collect()
}

/// The definitions that match, as (score, start, end, whether it is a
/// function or method), best first: the
/// query terms of their lines (more for a definition the file is ranked for
/// or the task names), divided by a slowly growing function of their length,
/// plus their own evidence.
fn scored_regions(
    defs: &[&Definition],
    own: &[f64],
    named: &[f64],
    lines: &[&str],
    q: &TaskQuery,
    defines: &[String],
) -> Vec<(f64, usize, usize, bool)> {
    let mut regions: Vec<(f64, usize, usize, bool)> = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        let (s, e) = (d.start_line, d.end_line.min(lines.len()));
        let mut score = region_hits(&lines[s - 1..e], q);
        if is_constructor(d) {
            // Named by its class: the class is the definition the task
            // names, not each of its constructors.
        } else if defines.contains(&d.name) {
            score += 100.0;
        } else if q.identifiers.contains(&d.name) {
            score += 30.0;
        }
        score += named[i];
        // Prefer tight regions: a class matching only through one method should
        // yield the method.
        score /= 1.0 + ((e - s + 1) as f64 / 80.0).ln_1p();
        // Evidence is not: the function holding the quoted message is the
        // one to show, however long.
        score += own[i].clamp(0.0, MAX_EVIDENCE);
        if score > 0.0 {
            let callable = matches!(d.kind, DefKind::Function | DefKind::Method);
            regions.push((score, s, e, callable));
        }
    }
    regions.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    regions
}

/// Whether `d` is a constructor written with its class's name (Java, C#,
/// C++, Dart: `Foo(...)` in `class Foo`): a task that names the class
/// names every one of them. When each counted as the named definition,
/// commons-io's `FileAlterationObserver` (nine constructors) filled the
/// file's snippets with them, and the methods the fix changed were left out.
fn is_constructor(d: &Definition) -> bool {
    matches!(d.kind, DefKind::Function | DefKind::Method) && d.parent.as_deref() == Some(&d.name)
}

/// Up to `MAX_SNIPPETS` regions that do not overlap once cut, best first,
/// as (start, end, longest it may be); the densest window when none
/// matched.
fn choose(
    regions: &[(f64, usize, usize, bool)],
    lines: &[&str],
    q: &TaskQuery,
    evidence: &[f64],
) -> Vec<(usize, usize, usize)> {
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new();
    for &(_, s, e, callable) in regions {
        if chosen.len() == MAX_SNIPPETS {
            break;
        }
        // A long definition is shown cut around its best lines: only that
        // part keeps other snippets out (a class whose methods were not all
        // found still leaves room for the ones that were). The best one may
        // be longer: it is the function to edit.
        let max = if chosen.is_empty() {
            MAX_BEST_SNIPPET_LINES
        } else {
            MAX_SNIPPET_LINES
        };
        let (cs, ce) = cut_range(lines, s, e, q, evidence, max);
        let overlaps = |&(a, b, _): &(usize, usize, usize)| cs <= b && a <= ce;
        if chosen.iter().any(overlaps) {
            // A tiny region chosen first (an arrow function or a closure of
            // one line, `slot = () => []`) keeps out the function around
            // it, where the edit is: the enclosing function takes its
            // place (cut to that place's length). Not a class: its method
            // of three lines is the better snippet.
            if let Some(k) = absorbed(&chosen, s, e).filter(|_| callable) {
                let max = chosen[k].2;
                let (cs, ce) = cut_range(lines, s, e, q, evidence, max);
                let others = chosen
                    .iter()
                    .enumerate()
                    .any(|(i, &(a, b, _))| i != k && cs <= b && a <= ce);
                if !others && cs <= chosen[k].0 && chosen[k].1 <= ce {
                    chosen[k] = (cs, ce, max);
                }
            }
            continue;
        }
        chosen.push((cs, ce, max));
    }
    if chosen.is_empty() {
        let (s, e) = densest_window(lines, q, evidence);
        chosen.push((s, e, MAX_SNIPPET_LINES));
    }
    chosen
}

/// Fills the free places of `chosen` (up to `MAX_SNIPPETS`) with the
/// functions of the file that a chosen region calls, in the chosen
/// regions' order (best first) and, within one, in the order of the calls.
/// An edit often lands in a helper the task never names (the function the
/// named one calls to parse, check or build its value): it holds no query
/// term, so no score chooses it. A call links only a name that one function
/// or method of the file defines (an overloaded or common name such as two
/// classes' `flush` is no link), never to a region overlapping a chosen one;
/// each is cut to `NEIGHBOUR_LINES` and comes after every scored region, so
/// the budget gives it text last. Measured with the callers of a chosen
/// definition too: they added no edit line on 237 sample tasks (bench,
/// 2026-12-03), so only callees are followed.
fn add_callees(
    chosen: &mut Vec<(usize, usize, usize)>,
    syms: &Symbols,
    lines: &[&str],
    q: &TaskQuery,
    evidence: &[f64],
) {
    for k in 0..chosen.len() {
        let (cs, ce, _) = chosen[k];
        let callees: Vec<(usize, usize)> = calls_in(syms, cs, ce)
            .filter_map(|r| defined_once(syms, &r.name, lines.len()))
            .collect();
        for callee in callees {
            if chosen.len() >= MAX_SNIPPETS {
                return;
            }
            if let Some(free) = free_neighbour(chosen, callee, lines, q, evidence) {
                chosen.push(free);
            }
        }
    }
}

/// The calls (of functions and methods) on lines `s..=e`.
fn calls_in(syms: &Symbols, s: usize, e: usize) -> impl Iterator<Item = &Reference> {
    syms.references
        .iter()
        .filter(move |r| matches!(r.kind, RefKind::Call | RefKind::Method))
        .filter(move |r| s <= r.line && r.line <= e)
}

/// The lines (1-based, inclusive, within the file's `n`) of the one
/// function or method of the file named `name` (not one local to another
/// body), when exactly one defines it: a call links no overloaded name.
fn defined_once(syms: &Symbols, name: &str, n: usize) -> Option<(usize, usize)> {
    let mut it = syms
        .defines(name)
        .filter(|d| d.kind.is_callable() && !d.local);
    let d = it.next()?;
    let lines = (d.start_line, d.end_line.min(n));
    (it.next().is_none() && lines.0 >= 1 && lines.0 <= lines.1).then_some(lines)
}

/// A callee's `lines` as a region to choose: cut to `NEIGHBOUR_LINES`, when
/// it overlaps no chosen region.
fn free_neighbour(
    chosen: &[(usize, usize, usize)],
    (s, e): (usize, usize),
    lines: &[&str],
    q: &TaskQuery,
    evidence: &[f64],
) -> Option<(usize, usize, usize)> {
    let (s, e) = cut_range(lines, s, e, q, evidence, NEIGHBOUR_LINES);
    let free = !chosen.iter().any(|&(a, b, _)| s <= b && a <= e);
    free.then_some((s, e, NEIGHBOUR_LINES))
}

/// Whether `callee` is named as a helper `caller` hands its work to:
/// `reserve` -> `reserve_inner`, `reset` -> `reset_at`, `send` -> `_send`,
/// `parse` -> `parseImpl` / `do_parse`.
fn delegate_name(caller: &str, callee: &str) -> bool {
    if caller.len() < 4 || callee.len() <= caller.len() {
        return false;
    }
    let (c, d) = (caller.to_ascii_lowercase(), callee.to_ascii_lowercase());
    let Some(at) = d.find(&c) else {
        return false;
    };
    let before = d[..at].chars().next_back();
    let after = callee[at + caller.len()..].chars().next();
    let edge_before = before.is_none_or(|b| b == '_');
    let edge_after = after.is_none_or(|a| a == '_' || a.is_ascii_uppercase() || a.is_ascii_digit());
    edge_before && edge_after
}

/// Puts each chosen function's delegate (a function of the file it calls,
/// named after it: see [`delegate_name`]) right after it, before the
/// regions scored lower, as a place beyond `MAX_SNIPPETS` (a delegate is
/// rare, one a chosen function at most, and the budget decides which text
/// is shown; dropping the last scored region instead cost tokio
/// 83e9c57cee80 a third of its edit). The named function often only
/// checks its arguments and hands the work on, so the edit is in the
/// delegate, which holds
/// none of the task's words: tokio's `reserve` and `reserve_inner`,
/// `DelayQueue::reset` and `reset_at`, sympy's `col_insert` and
/// `_eval_col_insert`. `add_callees` places callees only in free places,
/// and a file matching `MAX_SNIPPETS` regions has none. Measured on the
/// dev sets when a file had eight places (full loop, default budget, with
/// the last scored region dropped for
/// the delegate): edit recall dev-multilang 51.3 -> 51.6 % (Rust 39.3 ->
/// 42.0), dev-python 60.7 -> 61.3, dev-questions 72.0 -> 72.5, dev-rust
/// 67.3 -> 67.0 (a refactor touching a whole file); as an extra place,
/// dev-multilang 51.8 and dev-rust 67.5 (with the quoted kebab-case rule
/// of `line_evidence`), the others the same.
fn add_delegates(
    chosen: &mut Vec<(usize, usize, usize)>,
    syms: &Symbols,
    lines: &[&str],
    q: &TaskQuery,
    evidence: &[f64],
) {
    let mut k = 0;
    while k < chosen.len() {
        let (cs, ce, _) = chosen[k];
        // The innermost function the chosen lines belong to.
        let caller = syms
            .definitions
            .iter()
            .filter(|d| d.kind.is_callable() && d.start_line <= cs && ce <= d.end_line)
            .max_by_key(|d| d.start_line);
        let delegate = caller.and_then(|caller| {
            calls_in(syms, cs, ce)
                .filter(|r| delegate_name(&caller.name, &r.name))
                .find_map(|r| defined_once(syms, &r.name, lines.len()))
        });
        let free = delegate.and_then(|d| free_neighbour(chosen, d, lines, q, evidence));
        if let Some(region) = free {
            // After the caller; the loop goes on past it.
            chosen.insert(k + 1, region);
            k += 1;
        }
        k += 1;
    }
}

/// Longest a callee snippet (see `add_callees`) is shown, in lines.
const NEIGHBOUR_LINES: usize = 60;

/// The place in `chosen` of the one tiny region (at most `TINY_REGION_LINES`
/// lines) that the definition `s..=e` holds, when it is the only chosen
/// region the definition overlaps.
fn absorbed(chosen: &[(usize, usize, usize)], s: usize, e: usize) -> Option<usize> {
    let mut hit = chosen
        .iter()
        .enumerate()
        .filter(|&(_, &(a, b, _))| s <= b && a <= e);
    let (k, &(a, b, _)) = hit.next()?;
    let tiny = b + 1 - a <= TINY_REGION_LINES && s <= a && b <= e;
    (tiny && hit.next().is_none()).then_some(k)
}

/// A method alone hides what a reader needs: the signature of the class or
/// impl around it. It joins the snippet (its start moves up to it) when it
/// is at most `MAX_SIGNATURE_GAP` lines above and no other chosen snippet
/// lies between.
fn join_signatures(chosen: &mut [(usize, usize, usize)], defs: &[Definition]) {
    for i in 0..chosen.len() {
        let (s, e, _) = chosen[i];
        let enclosing = defs
            .iter()
            .filter(|d| d.kind != DefKind::Module && d.start_line < s && e <= d.end_line)
            .max_by_key(|d| d.start_line);
        if let Some(p) = enclosing {
            let line = p.start_line;
            let free = !chosen
                .iter()
                .any(|&(cs, ce, _)| (cs, ce) != (s, e) && cs < s && line <= ce);
            if line >= 1 && s - line <= MAX_SIGNATURE_GAP && free {
                chosen[i].0 = line;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1-based number of the first line of `text` holding `needle`.
    fn line_of(text: &str, needle: &str) -> usize {
        text.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line holds {needle:?}"))
            + 1
    }

    /// Whether one of `sn` spans line `at`.
    fn shows(sn: &[Snippet], at: usize) -> bool {
        sn.iter().any(|s| s.start_line <= at && at <= s.end_line)
    }

    /// The snippets of `text` (as file `rel`) for `task`.
    fn snippets_for(rel: &str, text: &str, task: &str) -> Vec<Snippet> {
        let doc = crate::corpus::Doc::for_test(rel, text);
        snippets(&doc, &TaskQuery::new(task, &[]), &[], &|| false)
    }

    #[test]
    fn the_best_function_is_shown_whole_even_past_sixty_lines() {
        // A 100-line function holding the quoted message near its end.
        let mut text = String::from("def render(width):\n");
        for i in 0..97 {
            text.push_str(&format!("    step_{i} = width + {i}\n"));
        }
        text.push_str("    raise ValueError(\"width must be at least four\")\n");
        text.push_str("    return width\n\ndef other():\n    return 1\n");
        let sn = snippets_for(
            "r.py",
            &text,
            "render raises ValueError: width must be at least four",
        );
        // Lines 1-100 and the blank line after, where a new function goes.
        assert_eq!((sn[0].start_line, sn[0].end_line), (1, 101), "{:?}", sn[0]);
    }

    #[test]
    fn constructors_named_by_the_class_leave_room_for_the_method_to_change() {
        // A Java class the task names, with fourteen constructors (each named
        // like the class, a doc comment between) ahead of the one method that
        // notifies the listeners, 200 lines down.
        let mut text = String::from("public class Observer {\n");
        for i in 0..14 {
            text.push_str(&format!(
                "    /**\n     * Constructs an observer, form {i}.\n     */\n    \
                 public Observer(int a{i}) {{\n        this.size = a{i};\n    }}\n\n"
            ));
        }
        while text.lines().count() < 200 {
            text.push_str("    private int pad;\n");
        }
        text.push_str(
            "    public void checkAndNotify() {\n        \
             listeners.forEach(listener -> listener.onStart(this));\n    }\n}\n",
        );
        let doc = crate::corpus::Doc::for_test("src/Observer.java", &text);
        let q = TaskQuery::new("Observer notifies all listeners", &[]);
        let sn = snippets(&doc, &q, &["Observer".to_string()], &|| false);
        let at = line_of(&text, "listeners.forEach");
        assert!(
            shows(&sn, at),
            "line {at} not shown: {:?}",
            sn.iter()
                .map(|s| (s.start_line, s.end_line))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn neighbouring_definitions_are_one_snippet() {
        let text = "import os\n\ndef load_token(p):\n    return open(p).read()\n\ndef save_token(p, t):\n    open(p, 'w').write(t)\n\ndef unrelated():\n    return 1\n";
        let sn = snippets_for(
            "auth/store.py",
            text,
            "load_token and save_token lose the token",
        );
        assert_eq!(sn.len(), 1, "{sn:?}");
        // From the blank line above `load_token` (where a new function goes).
        assert_eq!((sn[0].start_line, sn[0].end_line), (2, 8));
        assert!(
            sn[0].text.contains("\n\ndef save_token"),
            "{:?}",
            sn[0].text
        );
    }

    #[test]
    fn a_flag_of_the_task_finds_the_code_using_its_field() {
        let text = concat!(
            "static void retry_help(void)\n{\n",
            "  puts(\"retry on errors: the server may answer 429 or 503\");\n",
            "  puts(\"retry errors: see the manual\");\n}\n",
            "\nstatic int unrelated(int a)\n{\n  int b = a * 2;\n  b += 1;\n  b -= 3;\n  return b;\n}\n\n",
            "static int may_again(struct cfg *config, long code)\n{\n",
            "  if(config->retry_all_errors)\n    return 1;\n  return code == 503;\n}\n",
        );
        let doc = crate::corpus::Doc::for_test("src/tool_operate.c", text);
        let q = TaskQuery::new(
            "--retry-all-errors does not retry when the server answers 429",
            &[],
        );
        let sn = snippets(&doc, &q, &[], &|| false);
        assert!(sn[0].text.contains("config->retry_all_errors"), "{sn:?}");
        assert!(!sn[0].text.contains("retry_help"), "{sn:?}");
    }

    #[test]
    fn the_function_the_title_names_comes_before_the_frames_that_repeat_their_names() {
        // A traceback's frames (`_print_Mul`) call `self._print(...)` on
        // every line; the title names the five-line function that fails.
        let mut text = String::from("class LatexPrinter:\n    def _print_Mul(self, expr):\n");
        for i in 0..40 {
            text.push_str(&format!("        t{i} = self._print(expr.args[{i}])\n"));
        }
        text.push_str("        return t0\n\n");
        for i in 0..20 {
            text.push_str(&format!(
                "    def _print_Other{i}(self, expr):\n        return str(expr)\n\n"
            ));
        }
        text.push_str("    def _print_SingularityFunction(self, expr):\n");
        text.push_str("        shift = self._print(expr.args[0] - expr.args[1])\n");
        text.push_str("        power = self._print(expr.args[2])\n");
        text.push_str(
            "        return r\"{\\left\\langle %s \\right\\rangle}^{%s}\" % (shift, power)\n",
        );
        let task = concat!(
            "_print_SingularityFunction() got an unexpected keyword argument 'exp'\n",
            "Traceback (most recent call last):\n",
            "  File \"sympy/printing/latex.py\", line 567, in _print_Mul\n",
            "    tex = self._print(expr)\n",
            "  File \"sympy/printing/printer.py\", line 329, in _print\n",
            "    return getattr(self, printmethod)(expr, **kwargs)\n",
            "TypeError: _print_SingularityFunction() got an unexpected keyword argument 'exp'\n",
        );
        let doc = crate::corpus::Doc::for_test("sympy/printing/latex.py", &text);
        let q = TaskQuery::new(task, &[]);
        let defines = [
            "_print_Mul".to_string(),
            "_print_SingularityFunction".to_string(),
        ];
        let sn = snippets(&doc, &q, &defines, &|| false);
        assert!(
            sn[0].text.contains("def _print_SingularityFunction"),
            "{sn:?}"
        );
    }

    #[test]
    fn the_quoted_message_picks_the_function_to_show() {
        let text = "class Fmt:\n    def width(self, n):\n        return n\n\n    def check(self, n):\n        if n < 4:\n            raise ValueError(\"width must be at least %d\" % 4)\n        return n\n";
        let doc = crate::corpus::Doc::for_test("fmt.py", text);
        let q = TaskQuery::new("Fmt.width raises ValueError: width must be at least 4", &[]);
        let sn = snippets(&doc, &q, &["width".into()], &|| false);
        assert!(sn[0].text.contains("def check"), "{sn:?}");
    }

    #[test]
    fn a_question_is_shown_the_method_its_words_name_among_many_alike() {
        // A printer with thirty `_print_*` methods that all work with the
        // question's other words, and `_print_Integral`, which only its name
        // ties to the question (probe 2026-12-06, defect 2).
        let mut text = String::from("class LatexPrinter(Printer):\n");
        for i in 0..30 {
            if i == 15 {
                text.push_str("\n    def _print_Integral(self, expr):\n        tex, symbols = '', []\n        return tex\n");
            }
            text.push_str(&format!(
                "\n    def _print_Op{i}(self, expr):\n        tex = self._latex_printer(expr)\n        tex = latex_printer_wrap(tex, latex=True)\n        tex = latex_printer_pad(tex)\n        return latex_printer_join(tex)\n"
            ));
            text.push_str(&filler(1).replace("\n", "\n    "));
        }
        let shows = |task: &str| {
            snippets_for("latex.py", &text, task)
                .iter()
                .any(|s| s.text.contains("def _print_Integral"))
        };
        assert!(shows(
            "Where is the LaTeX printer for Integral implemented?"
        ));
        // A bug report's words name the symptom as often as the fix: it
        // keeps the methods that work with its words.
        assert!(!shows("LaTeX printer output for Integral is wrong"));
    }

    #[test]
    fn a_header_s_include_guard_is_no_snippet() {
        // The guard's name is the header's path: it holds the task's words.
        let text = "// Copyright\n\n#ifndef ASIO_DETAIL_EPOLL_REACTOR_HPP\n#define ASIO_DETAIL_EPOLL_REACTOR_HPP\n\n#define EPOLL_REACTOR_MAX_EVENTS 128\n\nclass epoll_reactor {\npublic:\n  void register_descriptor(int d);\n};\n\n#endif // ASIO_DETAIL_EPOLL_REACTOR_HPP\n";
        for path in ["epoll_reactor.hpp", "epoll_reactor.h"] {
            let sn = snippets_for(path, text, "epoll reactor register descriptor fails");
            assert!(!sn.is_empty());
            assert!(
                sn.iter().all(|s| !s.text.contains("#define ASIO_DETAIL")),
                "{path}: {sn:?}"
            );
            // A constant the header defines is still one.
            assert!(
                snippets_for(path, text, "raise the epoll reactor max events")
                    .iter()
                    .any(|s| s.text.contains("EPOLL_REACTOR_MAX_EVENTS")),
                "{path}"
            );
        }
    }

    #[test]
    fn every_matching_function_of_a_file_is_a_snippet_up_to_twelve() {
        // Fourteen small functions the task names (an edit touching each),
        // far enough apart not to merge: each is a snippet of its own, up
        // to `MAX_SNIPPETS`.
        let mut text = String::new();
        for i in 0..14 {
            text.push_str(&format!(
                "def set_depth_{i}(walker, depth):\n    walker.depth = depth\n"
            ));
            for j in 0..6 {
                text.push_str(&format!("\ndef unrelated_{i}_{j}():\n    return {j}\n"));
            }
        }
        let sn = snippets_for("walk.py", &text, "the walker loses its depth: set depth");
        let shown: Vec<&Snippet> = sn
            .iter()
            .filter(|s| s.text.contains("set_depth_"))
            .collect();
        assert_eq!(shown.len(), 12, "{sn:?}");
    }

    #[test]
    fn a_second_function_of_ninety_lines_is_shown_whole() {
        // The best function holds the quoted message; the second one is the
        // 90-line function that also works with the width, shown whole.
        let mut text = String::from(
            "def check(width):\n    raise ValueError(\"width must be at least four\")\n\n",
        );
        text.push_str("def render_width(width):\n");
        for i in 0..88 {
            text.push_str(&format!("    step_{i} = width + {i}\n"));
        }
        text.push_str("    return width\n");
        let sn = snippets_for(
            "r.py",
            &text,
            "render width raises ValueError: width must be at least four",
        );
        let second = sn
            .iter()
            .find(|s| s.text.contains("def render_width"))
            .expect("render_width");
        assert!(second.start_line <= 4 && second.end_line == 93, "{sn:?}");
    }

    #[test]
    fn a_long_sorted_table_is_shown_where_the_new_key_sorts() {
        // A 400-line table of two-line rows, sorted by key; the task adds
        // a key that sorts in the middle: the snippet holds that place.
        let mut text = String::from("pub const TYPES: &[(&[&str], &[&str])] = &[\n");
        for c in 'a'..='y' {
            for v in ["a", "e", "i", "o", "u", "x", "y", "z"] {
                text.push_str(&format!(
                    "    (&[\"{c}{v}\"], &[\n        \"*.{c}{v}\",\n    ]),\n"
                ));
            }
        }
        text.push_str("];\n");
        let lines: Vec<&str> = text.lines().collect();
        // "mojo" goes after the rows of "mo" (and before "mu").
        let after = lines
            .iter()
            .position(|l| l.contains("[\"mu\"]"))
            .expect("mu");
        let sn = snippets_for(
            "src/default_types.rs",
            &text,
            "ignore/types: add Mojo type\n\nFor `*.mojo` files.",
        );
        assert!(
            sn.iter()
                .any(|s| s.start_line <= after && after <= s.end_line),
            "line {after}: {sn:?}"
        );
    }

    #[test]
    fn the_blank_line_after_a_shown_definition_is_in_its_snippet() {
        // A new function goes after `token_expiry`: the edit's line is the
        // blank line past its end, which the snippet must hold.
        let mut text = String::from("import os\n\ndef token_expiry(t):\n    return t.expiry\n\n");
        text.push_str("def unrelated():\n");
        for i in 0..40 {
            text.push_str(&format!("    os.step_{i}()\n"));
        }
        let sn = snippets_for("auth/token.py", &text, "token expiry is wrong");
        assert_eq!(sn.len(), 1, "{sn:?}");
        assert_eq!((sn[0].start_line, sn[0].end_line), (2, 5), "{sn:?}");
    }

    #[test]
    fn a_one_line_closure_gives_way_to_the_function_around_it() {
        // `slot = () => []` is the tightest match, but the edit is in the
        // function around it (vuejs `renderSlot`): that function is shown.
        let mut text = String::from(
            "export function renderSlot(slots: Slots, name: string): VNode {\n  let slot = slots[name]\n  if (slot && slot.length > 1) {\n    slot = () => []\n  }\n",
        );
        for i in 0..30 {
            text.push_str(&format!("  const step{i} = compute({i})\n"));
        }
        text.push_str("  const key = props.key || slotKey(slot)\n  return createBlock(key)\n}\n");
        let sn = snippets_for("renderSlot.ts", &text, "Avoid leaking slot branch keys");
        let key_line = text.lines().position(|l| l.contains("slotKey")).unwrap() + 1;
        assert!(
            sn.iter()
                .any(|s| !s.text.is_empty() && s.start_line <= key_line && key_line <= s.end_line),
            "line {key_line}: {sn:?}"
        );
    }

    #[test]
    fn snippets_are_the_matching_definitions_with_one_based_lines() {
        let text = "import os\n\ndef unrelated():\n    return 1\n\ndef token_expiry(t):\n    return t.expiry\n";
        let sn = snippets_for("auth/token.py", text, "token expiry is wrong");
        assert_eq!(sn.len(), 1, "{sn:?}");
        // Line 5 is the blank line above the definition: one byte.
        assert_eq!((sn[0].start_line, sn[0].end_line), (5, 7));
        assert!(sn[0].text.starts_with("\ndef token_expiry"));
    }

    #[test]
    fn the_doc_comment_above_a_shown_method_is_in_its_snippet() {
        // laravel: the fix rewords the doc block of `copy` with the method;
        // the parsed method starts at `public function`.
        let text = concat!(
            "<?php\nclass Adapter\n{\n",
            "    public function move(string $source): void\n    {\n        $this->primary->move($source);\n    }\n\n",
            "    public function size(string $path): int\n    {\n        return 0;\n    }\n\n",
            "    public function visibility(string $path): string\n    {\n        return '';\n    }\n\n",
            "    /**\n     * Copy a file on the primary filesystem.\n     */\n",
            "    public function copy(string $source, string $destination): void\n    {\n",
            "        $this->primary->copy($source, $destination);\n    }\n}\n",
        );
        let sn = snippets_for(
            "src/ReadThroughAdapter.php",
            text,
            "copy should also copy on the read-through filesystem",
        );
        let doc = line_of(text, "Copy a file");
        assert!(shows(&sn, doc), "line {doc}: {sn:?}");
    }

    #[test]
    fn an_erlang_function_is_shown_with_its_comment_spec_and_every_clause() {
        // The grammar leaves each clause a node of its own: the function
        // is read from its `-spec` to the clause ending in `.`, and the
        // `%%` comment above it leads it.
        let mut text = String::from("-module(cowboy_http).\n");
        for i in 0..6 {
            text.push_str(&format!(
                "\nunrelated_{i}(A) ->\n    B = A + {i},\n    C = B * 2,\n    C - 1.\n"
            ));
        }
        text.push_str(concat!(
            "\n%% Splits the Host header into host and port.\n",
            "-spec parse_host(binary()) -> {binary(), integer()}.\n",
            "parse_host(<<>>) ->\n    error(badarg);\n",
            "parse_host(<<$[, Rest/bits>>) ->\n    parse_ipv6(Rest);\n",
            "parse_host(Host) ->\n    split_port(Host, <<>>).\n",
        ));
        let sn = snippets_for(
            "src/cowboy_http.erl",
            &text,
            "parse_host crashes on an empty Host header",
        );
        for at in ["Splits the Host", "parse_ipv6", "split_port"] {
            let line = line_of(&text, at);
            assert!(shows(&sn, line), "line {line} ({at}): {sn:?}");
        }
        assert!(!shows(&sn, line_of(&text, "unrelated_0")), "{sn:?}");
    }

    /// `unrelated_i` filler functions of six lines each, so no two
    /// definitions of a test file are close enough to merge.
    fn filler(n: usize) -> String {
        (0..n)
            .map(|i| format!("\ndef unrelated_{i}(a):\n    b = a + {i}\n    b = b * 2\n    b = b - 1\n    return b\n"))
            .collect()
    }

    #[test]
    fn a_helper_the_shown_function_calls_is_a_snippet_though_the_task_never_names_it() {
        // The task is about `load_settings`; the edit is in `_split_pair`,
        // which it calls and the task does not name.
        let text = format!(
            "def _split_pair(raw):\n    key, _, value = raw.partition(\"=\")\n    return key.strip(), value\n{}\ndef load_settings(path):\n    pairs = [_split_pair(l) for l in open(path)]\n    return dict(pairs)\n",
            filler(6)
        );
        let sn = snippets_for(
            "settings.py",
            &text,
            "load_settings drops values that contain an equals sign",
        );
        assert!(sn[0].text.contains("def load_settings"), "{sn:?}");
        assert!(
            sn.iter().any(|s| s.text.contains("def _split_pair")),
            "{sn:?}"
        );
        assert!(
            !sn.iter().any(|s| s.text.contains("def unrelated_")),
            "{sn:?}"
        );
    }

    #[test]
    fn the_helper_a_named_function_hands_its_work_to_comes_right_after_it() {
        // Nine functions mention the task's words, so every place is taken
        // before callees are looked at; `reserve` only delegates, and the
        // edit is in `reserve_inner`, which mentions none of them.
        let mut text = String::from(
            "impl Sender {\n    pub fn reserve(&self) -> Permit {\n        self.reserve_inner(1)\n    }\n\n    fn reserve_inner(&self, n: usize) -> Permit {\n        let p = self.sem.acquire(n);\n        Permit::new(p)\n    }\n",
        );
        for i in 0..9 {
            text.push_str(&format!(
                "\n    fn waker_{i}(&self) {{\n        self.wake_receiver_permits({i});\n        let x = {i};\n        let y = x + 1;\n        let z = y * 2;\n    }}\n"
            ));
        }
        text.push_str("}\n");
        let sn = snippets_for(
            "bounded.rs",
            &text,
            "Wake receiver when a queued `reserve` returns permits",
        );
        assert!(
            sn.iter().any(|s| s.text.contains("fn reserve_inner")),
            "{sn:?}"
        );
    }

    #[test]
    fn delegates_are_named_after_their_caller() {
        for (caller, callee) in [
            ("reserve", "reserve_inner"),
            ("reset", "reset_at"),
            ("send", "_send"),
            ("parse", "parseImpl"),
            ("parse", "do_parse"),
            ("insert", "insert0"),
        ] {
            assert!(delegate_name(caller, callee), "{caller} {callee}");
        }
        for (caller, callee) in [
            ("reset", "resetting"),
            ("load", "reload"),
            // Three letters name too much to be a delegate's part.
            ("get", "get_inner"),
            ("parse", "parse"),
        ] {
            assert!(!delegate_name(caller, callee), "{caller} {callee}");
        }
    }

    #[test]
    fn a_call_to_a_name_two_classes_define_links_no_snippet() {
        // `load_settings` calls `flush`, which two classes define: which
        // one runs is not known from the file, so neither is shown.
        let text = format!(
            "def load_settings(path):\n    pairs = read_pairs(path)\n    pairs.flush()\n    return dict(pairs)\n{}\nclass Cache:\n    def flush(self):\n        return 1\n{}\nclass Log:\n    def flush(self):\n        return 2\n",
            filler(4),
            filler(4).replace("unrelated_", "other_"),
        );
        let sn = snippets_for(
            "settings.py",
            &text,
            "load_settings drops values that contain an equals sign",
        );
        assert!(sn[0].text.contains("def load_settings"), "{sn:?}");
        assert!(!sn.iter().any(|s| s.text.contains("def flush")), "{sn:?}");
    }

    #[test]
    fn the_blank_lines_before_and_after_a_shown_function_are_in_its_snippet() {
        // A new function goes before `itemsFromFor` (go-task: after the
        // blank line above it) or after the last function before the
        // namespace closes (simdjson: after the second blank line).
        let mut text = String::from("package task\n\nfunc unrelated() int {\n");
        for i in 0..30 {
            text.push_str(&format!("\tstep{i}()\n"));
        }
        text.push_str("\treturn 1\n}\n\nfunc itemsFromFor(f *ast.For) []any {\n\treturn f.Items\n}\n\n\n\n} // namespace\n");
        let sn = snippets_for("variables.go", &text, "items from for loop are lost");
        let lines: Vec<&str> = text.lines().collect();
        let func = lines
            .iter()
            .position(|l| l.starts_with("func itemsFromFor"))
            .unwrap()
            + 1;
        let close = lines
            .iter()
            .position(|l| l.starts_with("} // namespace"))
            .unwrap()
            + 1;
        assert_eq!(sn.len(), 1, "{sn:?}");
        assert_eq!(
            (sn[0].start_line, sn[0].end_line),
            (func - 1, close - 1),
            "{sn:?}"
        );
    }
    #[test]
    fn the_brace_closing_a_shown_method_s_impl_is_in_its_snippet() {
        // tokio: `impl PartialEq for CancellationToken` went after the `}`
        // closing `impl Clone`, one line past the `clone` method's own `}`.
        let mut text = String::from("use std::sync::Arc;\n\n");
        text.push_str("impl Clone for CancellationToken {\n    fn clone(&self) -> Self {\n        CancellationToken { inner: self.inner.clone() }\n    }\n}\n\n");
        text.push_str("fn unrelated() {\n");
        for i in 0..30 {
            text.push_str(&format!("    step{i}();\n"));
        }
        text.push_str("}\n");
        let sn = snippets_for("token.rs", &text, "CancellationToken clone is wrong");
        let lines: Vec<&str> = text.lines().collect();
        let close = lines.iter().position(|l| *l == "}").unwrap() + 1;
        let shown = sn
            .iter()
            .find(|s| s.text.contains("fn clone"))
            .expect("clone shown");
        assert!(shown.end_line > close, "{sn:?}");
        assert!(!shown.text.contains("fn unrelated"), "{sn:?}");
    }

    #[test]
    fn a_line_left_between_two_shown_functions_is_in_the_one_above() {
        // go-task: the fix changed the one line between two shown
        // functions, `var checksumFilenameRegexp = ...`.
        let text = concat!(
            "package fingerprint\n\n",
            "func (c *ChecksumChecker) checksumFilePath(t *Task) string {\n",
            "\treturn filepath.Join(c.tempDir, \"checksum\", normalizeFilename(t.Name()))\n",
            "}\n",
            "\n",
            "var checksumFilenameRegexp = regexp.MustCompile(\"[^A-z0-9]\")\n",
            "\n",
            "// replaces invalid characters on filenames\n",
            "func normalizeFilename(f string) string {\n",
            "\treturn checksumFilenameRegexp.ReplaceAllString(f, \"-\")\n",
            "}\n",
        );
        let sn = snippets_for(
            "sources_checksum.go",
            text,
            "normalizeFilename checksumFilePath",
        );
        let var_line = text.lines().position(|l| l.starts_with("var ")).unwrap() + 1;
        assert!(
            sn.iter()
                .any(|s| s.start_line <= var_line && var_line <= s.end_line),
            "line {var_line}: {sn:?}"
        );
    }

    #[test]
    fn only_lines_that_close_blocks_count_as_closing() {
        for l in ["}", "  };", "})", "]);", "end", "    end"] {
            assert!(is_closing_line(l), "{l}");
        }
        for l in ["", "   ", "} else {", "endif", "return x;", "x)"] {
            assert!(!is_closing_line(l), "{l}");
        }
    }
}
