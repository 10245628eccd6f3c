//! Snippets and the token budget: the regions of a file that best match the
//! query, and packing them into the budget by rank, tier and relevance.
//!
//! Tokens are estimated as bytes / 4 (the usual rule of thumb for code with
//! BPE tokenizers); the budget covers the per-file part of the text
//! rendering (header lines, snippets, handles), see [`pack`], so packing
//! measures the lines [`crate::render`] writes.

use crate::corpus::Doc;
use crate::lang::DefKind;
use crate::query::query_hits;
use crate::query::TaskQuery;
use crate::render::{file_line, snippet_lines};
use crate::types::{File, Snippet};

/// Estimated tokens of a text.
pub fn tokens_of(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Longest snippet, in lines; longer definitions are cut around their best match.
const MAX_SNIPPET_LINES: usize = 60;
/// Longest snippet for a file's best region: the definition the task is
/// most likely about is shown whole where it fits (a function to edit, not
/// its first 60 lines).
const MAX_BEST_SNIPPET_LINES: usize = 150;
/// Chosen regions this many lines or fewer apart are shown as one snippet
/// (one range line, and the lines between them, usually blank or a
/// decorator, come with it), if the whole stays within
/// `MAX_BEST_SNIPPET_LINES`.
const MERGE_GAP: usize = 3;
/// Snippets chosen per file, best first; [`pack`] decides how many keep
/// their text (by the file's tier).
const MAX_SNIPPETS: usize = 5;
/// A class or impl signature this many lines or fewer above a chosen snippet
/// is merged into it (the lines between are the class's docstring and
/// attributes); farther away it is left out, never a snippet of its own.
const MAX_SIGNATURE_GAP: usize = 12;
/// Evidence of one line holding an identifier of the task verbatim
/// (`SESSION_COOKIE_SAMESITE`, `maxWidth`).
const EXACT_IDENTIFIER: f64 = 8.0;
/// Evidence of one line holding a string literal the task quotes (an error
/// message, a flag): the strongest clue a task gives, above a definition
/// the task names.
const QUOTED_LITERAL: f64 = 120.0;
/// Most evidence a definition's own lines count (so a long function that
/// repeats a name does not outweigh one holding the quoted message).
const MAX_EVIDENCE: f64 = 2.0 * QUOTED_LITERAL;
/// Task identifiers looked for verbatim, at most.
const MAX_EXACT_IDENTIFIERS: usize = 32;

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
/// `MERGE_GAP` lines apart become one snippet. Line numbers are 1-based,
/// inclusive; [`pack`] puts each file's snippets back in line order.
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
    let evidence = line_evidence(&lines, q);
    // Prefix sums of the evidence: a region's total in O(1).
    let mut prefix = vec![0.0; lines.len() + 1];
    for (i, e) in evidence.iter().enumerate() {
        prefix[i + 1] = prefix[i] + e;
    }
    let total = |s: usize, e: usize| prefix[e] - prefix[s - 1];
    let syms = doc.symbols_until(stop);
    let defs: Vec<&crate::lang::Definition> = syms
        .definitions
        .iter()
        .filter(|d| d.kind != DefKind::Module && d.kind != DefKind::Impl)
        .filter(|d| d.start_line > 0 && d.start_line <= d.end_line.min(lines.len()))
        .collect();
    // A definition's own evidence leaves out its nested definitions' lines:
    // the quoted message counts for the method holding it, not its class.
    let mut nested = vec![0.0; defs.len()];
    {
        let mut order: Vec<usize> = (0..defs.len()).collect();
        order.sort_by_key(|&i| (defs[i].start_line, std::cmp::Reverse(defs[i].end_line)));
        let mut open: Vec<usize> = Vec::new();
        for i in order {
            let (s, e) = (defs[i].start_line, defs[i].end_line.min(lines.len()));
            while open
                .last()
                .is_some_and(|&p| defs[p].end_line.min(lines.len()) < s)
            {
                open.pop();
            }
            if let Some(&p) = open.last() {
                if e <= defs[p].end_line.min(lines.len()) {
                    nested[p] += total(s, e);
                }
            }
            open.push(i);
        }
    }
    let mut regions: Vec<(f64, usize, usize)> = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        let (s, e) = (d.start_line, d.end_line.min(lines.len()));
        let mut score = region_hits(&lines[s - 1..e], q);
        if defines.contains(&d.name) {
            score += 100.0;
        } else if q.identifiers.contains(&d.name) {
            score += 30.0;
        }
        // Prefer tight regions: a class matching only through one method should
        // yield the method.
        score /= 1.0 + ((e - s + 1) as f64 / 80.0).ln_1p();
        // Evidence is not: the function holding the quoted message is the
        // one to show, however long.
        score += (total(s, e) - nested[i]).clamp(0.0, MAX_EVIDENCE);
        if score > 0.0 {
            regions.push((score, s, e));
        }
    }
    regions.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // (start, end, longest it may be), best first.
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new();
    for &(_, s, e) in &regions {
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
        let (s, e) = cut_range(&lines, s, e, q, &evidence, max);
        if chosen.iter().any(|&(cs, ce, _)| s <= ce && cs <= e) {
            continue;
        }
        chosen.push((s, e, max));
    }
    if chosen.is_empty() {
        let (s, e) = densest_window(&lines, q, &evidence);
        chosen.push((s, e, MAX_SNIPPET_LINES));
    }
    // A method alone hides what a reader needs: the signature of the class or
    // impl around it. It joins the snippet when it is close above it.
    for i in 0..chosen.len() {
        let (s, e, _) = chosen[i];
        let enclosing = syms
            .definitions
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
    let chosen: Vec<(usize, usize)> = chosen
        .into_iter()
        .map(|(s, e, max)| cut_range(&lines, s, e, q, &evidence, max))
        .collect();
    merge_neighbours(chosen)
        .into_iter()
        .map(|(s, e)| Snippet {
            start_line: s,
            end_line: e,
            text: lines[s - 1..e].join("\n"),
        })
        .collect()
}

/// Merges regions (best first) that overlap or lie at most `MERGE_GAP`
/// lines apart into one, at the place of the better one, when the merged
/// region is at most `MAX_BEST_SNIPPET_LINES` long.
fn merge_neighbours(mut regions: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut i = 0;
    while i < regions.len() {
        let mut j = i + 1;
        let mut merged = false;
        while j < regions.len() {
            let (a, b) = (regions[i], regions[j]);
            let (s, e) = (a.0.min(b.0), a.1.max(b.1));
            let near = a.0 <= b.1 + MERGE_GAP + 1 && b.0 <= a.1 + MERGE_GAP + 1;
            if near && e - s < MAX_BEST_SNIPPET_LINES {
                regions[i] = (s, e);
                regions.remove(j);
                merged = true;
            } else {
                j += 1;
            }
        }
        if !merged {
            i += 1;
        }
    }
    regions
}

/// The query terms of a region, each weighted by 1 + ln(its count there):
/// the function that works with a concept (reads the setting, passes it on)
/// mentions it more often than one that only names it.
fn region_hits(lines: &[&str], q: &TaskQuery) -> f64 {
    let mut counts: Vec<(u64, f64, u32)> = Vec::new();
    for l in lines {
        crate::query::for_each_term_hash(l, |h| {
            if let Some(w) = q.weight_of(h) {
                match counts.iter_mut().find(|c| c.0 == h) {
                    Some(c) => c.2 += 1,
                    None => counts.push((h, w, 1)),
                }
            }
        });
    }
    counts
        .iter()
        .map(|&(_, w, n)| w * (1.0 + f64::from(n).ln()))
        .sum()
}

/// The identifiers of the task worth finding verbatim: code-like ones
/// (`snake_case`, `CamelCase`, with digits), at least 4 bytes long, and the
/// task's command-line flags as the code names them (`--retry-all-errors`
/// → `retry_all_errors`; the flag text itself is a string literal, see
/// [`literals_in_task`]).
fn exact_identifiers(q: &TaskQuery) -> Vec<String> {
    let mut ids: Vec<String> = q
        .identifiers
        .iter()
        .filter(|id| {
            id.len() >= 4
                && (id.contains('_')
                    || id.bytes().any(|b| b.is_ascii_digit())
                    || id[1..].bytes().any(|b| b.is_ascii_uppercase()))
        })
        .take(MAX_EXACT_IDENTIFIERS)
        .cloned()
        .collect();
    for word in q
        .text
        .split(|c: char| c.is_whitespace() || "\"'`(),;=".contains(c))
    {
        let Some(flag) = word.strip_prefix("--") else {
            continue;
        };
        let flag = flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-';
        if flag.contains('-')
            && flag.starts_with(|c: char| c.is_ascii_alphabetic())
            && flag.chars().all(plain)
            && ids.len() < 2 * MAX_EXACT_IDENTIFIERS
        {
            let id = flag.replace('-', "_");
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Whether `line` holds `word` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let is_id = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = line.as_bytes();
    line.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(is_id) && !after.is_some_and(is_id)
    })
}

/// String literals of `line` the task quotes: each literal is split at
/// format placeholders (`%d`, `{}`) and escapes, and a piece of at least 8
/// bytes that has a space or starts with `-` (a message, a flag) counts
/// when the task text holds it (case and runs of spaces ignored).
fn literals_in_task(line: &str, q: &TaskQuery) -> usize {
    if q.text.is_empty() || !line.contains(['"', '\'', '`']) {
        return 0;
    }
    let mut n = 0;
    for quote in ['"', '\'', '`'] {
        for lit in line.split(quote).skip(1).step_by(2) {
            let keep = |c: char| c.is_alphanumeric() || c == ' ' || "-_.,:;()=/".contains(c);
            for piece in lit.split(|c: char| !keep(c)) {
                let piece = piece
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase();
                let piece = piece.trim_matches(|c: char| ".,:;(=".contains(c)).trim();
                if piece.len() >= 8
                    && (piece.contains(' ') || piece.starts_with('-'))
                    && q.text.contains(piece)
                {
                    n += 1;
                }
            }
        }
    }
    n
}

/// Evidence per line (0-based): the task's identifiers written verbatim
/// and string literals the task quotes.
fn line_evidence(lines: &[&str], q: &TaskQuery) -> Vec<f64> {
    let ids = exact_identifiers(q);
    lines
        .iter()
        .map(|l| {
            let named = ids.iter().filter(|id| has_word(l, id)).count();
            named as f64 * EXACT_IDENTIFIER + literals_in_task(l, q) as f64 * QUOTED_LITERAL
        })
        .collect()
}

fn densest_window(lines: &[&str], q: &TaskQuery, evidence: &[f64]) -> (usize, usize) {
    const HALF: usize = 12;
    let best = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (query_hits(l, q) + evidence[i], i))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map_or(0, |(_, i)| i);
    let s = best.saturating_sub(HALF);
    (s + 1, (best + HALF + 1).min(lines.len()))
}

/// The lines of a region (1-based, inclusive) cut to `max` lines, keeping
/// its first lines (the signature) when they fit, else the best-matching
/// part (the line with the most evidence, then terms) a third from the top.
fn cut_range(
    lines: &[&str],
    s: usize,
    e: usize,
    q: &TaskQuery,
    evidence: &[f64],
    max: usize,
) -> (usize, usize) {
    if e - s + 1 > max {
        let score = |a: usize| query_hits(lines[a - 1], q) + evidence[a - 1];
        let best = (s..=e)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            .unwrap_or(s);
        let start = best.saturating_sub(max / 3).max(s).min(e + 1 - max);
        (start, (start + max - 1).min(e))
    } else {
        (s, e)
    }
}

/// Weight of a file's tier in [`pack`]'s order: a medium file's best
/// snippet comes after a high file's second at the same rank, a low file's
/// after every high file's.
fn tier_weight(t: crate::types::Tier) -> f64 {
    use crate::types::Tier;
    match t {
        Tier::High => 1.0,
        Tier::Medium => 0.4,
        Tier::Low => 0.1,
    }
}

/// Least room (tokens) worth cutting a snippet to its first lines for: about
/// five lines of code with the range line; below it the handle alone is kept.
const MIN_CUT_TOKENS: usize = 48;

/// The most first lines of `s` (with text) whose rendering, plus a handle for
/// the lines after them, costs at most `room` tokens more than `s`'s handle
/// (`handle`): (lines kept, extra tokens). `None` if not even one line fits
/// or the snippet has a single line.
fn first_lines_within(
    path: &str,
    s: &Snippet,
    room: usize,
    handle: usize,
) -> Option<(usize, usize)> {
    let total = s.end_line + 1 - s.start_line;
    let lines: Vec<&str> = s.text.split('\n').collect();
    let mut best = None;
    let mut bytes = 0usize;
    for (n, line) in lines.iter().enumerate().take(total.saturating_sub(1)) {
        bytes += line.len() + 1;
        let kept = n + 1;
        let head = format!(
            "--- {}:{}-{}\n",
            path,
            s.start_line,
            s.start_line + kept - 1
        );
        let rest = format!(
            "   {}:{}-{} (left out: budget)\n",
            path,
            s.start_line + kept,
            s.end_line
        );
        let x = tokens_of(&head) + bytes.div_ceil(4) + 1 + tokens_of(&rest);
        let x = x.saturating_sub(handle);
        if x > room {
            break;
        }
        best = Some((kept, x));
    }
    best
}

/// Packs the files (given in rank order, each file's snippets best first,
/// as [`snippets`] returns them) into `budget` tokens. The budget covers the
/// whole per-file part of the text rendering: each file's header line and
/// its snippets with their range lines. Every file keeps its header line and
/// every snippet at least its handle (`path:start-end`, a line the agent can
/// open); those are reserved first. The rest turns handles into snippet text
/// in order of how likely each snippet is the code to change: the file's
/// tier weight (high 1, medium 0.4, low 0.1) times its relevance, divided by
/// its rank and by the snippet's place among the file's snippets (1 for the
/// best). So the top file's best definitions come before a lower file's,
/// a low-tier file gets text only when the files above it have theirs (and
/// at most 1/12 of the budget), and a snippet that does not fit what is
/// left is cut to the first lines that fit (at least `MIN_CUT_TOKENS` (48) of
/// room; the rest becomes a handle), else stays a handle, while smaller ones
/// after it may still fit. The
/// per-file part costs at most
/// max(`budget`, headers + handles). Snippets left as handles have empty
/// text and are listed in the returned `dropped`; each file's snippets end
/// in line order. Returns (tokens used, dropped).
pub fn pack(files: &mut [File], budget: usize) -> (usize, Vec<String>) {
    use crate::types::Tier;
    let handle_cost = |path: &str, s: &Snippet| {
        tokens_of(&format!(
            "   {}:{}-{} (left out: budget)\n",
            path, s.start_line, s.end_line
        ))
    };
    let mut used: usize = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            tokens_of(&file_line(i + 1, f))
                + f.snippets
                    .iter()
                    .map(|s| handle_cost(&f.path, s))
                    .sum::<usize>()
        })
        .sum();
    // (priority, file, snippet, what turning the handle into text costs).
    let mut order: Vec<(f64, usize, usize, usize)> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file_weight = tier_weight(f.tier) * f.relevance.max(0.01) / (i + 1) as f64;
        for (j, s) in f.snippets.iter().enumerate() {
            let extra =
                tokens_of(&snippet_lines(&f.path, s)).saturating_sub(handle_cost(&f.path, s));
            order.push((file_weight / (j + 1) as f64, i, j, extra));
        }
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut kept: Vec<Vec<bool>> = files
        .iter()
        .map(|f| vec![false; f.snippets.len()])
        .collect();
    // A low-tier file never takes more than 1/12 of the budget.
    let mut spent = vec![0usize; files.len()];
    // Snippets cut to their first lines (file, snippet, lines kept).
    let mut cut: Vec<(usize, usize, usize)> = Vec::new();
    for &(_, i, j, x) in &order {
        let cap = if files[i].tier == Tier::Low {
            (budget / 12).saturating_sub(spent[i])
        } else {
            usize::MAX
        };
        let room = budget.saturating_sub(used).min(cap);
        if x <= room {
            used += x;
            spent[i] += x;
            kept[i][j] = true;
        } else if room >= MIN_CUT_TOKENS {
            // Too long for what is left: its first lines, and the rest as a
            // handle, rather than a handle alone.
            let (f, s) = (&files[i], &files[i].snippets[j]);
            if let Some((lines, x)) = first_lines_within(&f.path, s, room, handle_cost(&f.path, s))
            {
                used += x;
                spent[i] += x;
                kept[i][j] = true;
                cut.push((i, j, lines));
            }
        }
    }
    for (i, j, lines) in cut {
        let s = &mut files[i].snippets[j];
        let rest = Snippet {
            start_line: s.start_line + lines,
            end_line: s.end_line,
            text: String::new(),
        };
        s.end_line = s.start_line + lines - 1;
        s.text = s
            .text
            .split('\n')
            .take(lines)
            .collect::<Vec<_>>()
            .join("\n");
        files[i].snippets.push(rest);
        kept[i].push(false);
    }
    let mut dropped = Vec::new();
    for (f, kept) in files.iter_mut().zip(kept) {
        for (s, keep) in f.snippets.iter_mut().zip(kept) {
            if !keep {
                s.text.clear();
            }
        }
        f.snippets.sort_by_key(|s| (s.start_line, s.end_line));
        for s in f.snippets.iter().filter(|s| s.text.is_empty()) {
            dropped.push(format!("{}:{}-{}", f.path, s.start_line, s.end_line));
        }
    }
    (used, dropped)
}

/// Post-processing: the snippets of a file in context, and packing the
/// answer's files into the token budget.
pub trait PostProcess: Send + Sync {
    /// A short name, for `Debug`.
    fn name(&self) -> &str;
    /// The snippets of `doc` for the query (lines 1-based, inclusive);
    /// `defines` are the task identifiers the file defines.
    fn snippets(
        &self,
        doc: &Doc,
        q: &TaskQuery,
        defines: &[String],
        stop: &dyn Fn() -> bool,
    ) -> Vec<Snippet>;
    /// Fits `files` (best first) into `budget` tokens (bytes / 4); returns
    /// (tokens used, `path:start-end` of the snippets left out).
    fn pack(&self, files: &mut [File], budget: usize) -> (usize, Vec<String>);
}

/// The default post-processing: [`snippets`] and [`pack`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Snippets;

impl PostProcess for Snippets {
    fn name(&self) -> &str {
        "snippets"
    }

    fn snippets(
        &self,
        doc: &Doc,
        q: &TaskQuery,
        defines: &[String],
        stop: &dyn Fn() -> bool,
    ) -> Vec<Snippet> {
        snippets(doc, q, defines, stop)
    }

    fn pack(&self, files: &mut [File], budget: usize) -> (usize, Vec<String>) {
        pack(files, budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snippets of `text` (as file `rel`) for `task`.
    fn snippets_for(rel: &str, text: &str, task: &str) -> Vec<Snippet> {
        let doc = crate::corpus::Doc::for_test(rel, text);
        snippets(&doc, &TaskQuery::new(task, &[]), &[], &|| false)
    }
    use crate::types::Tier;

    fn file(path: &str, lines: &[(usize, usize, usize)]) -> File {
        File {
            path: path.into(),
            relevance: 0.9,
            tier: Tier::High,
            reasons: vec![],
            snippets: lines
                .iter()
                .map(|&(s, e, bytes)| Snippet {
                    start_line: s,
                    end_line: e,
                    text: "x".repeat(bytes),
                })
                .collect(),
        }
    }

    #[test]
    fn packing_keeps_rank_order_and_degrades_to_handles() {
        let mut files = vec![
            file("a.py", &[(1, 10, 400)]),
            file("b.py", &[(5, 9, 400), (20, 30, 40)]),
        ];
        let (used, dropped) = pack(&mut files, 150);
        // Reserved: the header lines (6 tokens each) and the handles (8, 8,
        // 8). a.py's snippet costs 104 in all (96 past its handle), b.py's
        // first does not fit, its second does (14, 6 past its handle).
        assert_eq!(used, 6 + 104 + 6 + 8 + 14);
        assert_eq!(dropped, ["b.py:5-9"]);
        assert!(files[1].snippets[0].text.is_empty());
        assert!(!files[1].snippets[1].text.is_empty());
        assert_eq!(
            (
                files[1].snippets[0].start_line,
                files[1].snippets[0].end_line
            ),
            (5, 9)
        );
    }

    #[test]
    fn a_snippet_too_long_for_the_room_left_keeps_its_first_lines() {
        let mut files = vec![file("top.py", &[(10, 109, 0)])];
        files[0].snippets[0].text = (10..110)
            .map(|n| format!("    line_{n} = compute_something({n})"))
            .collect::<Vec<_>>()
            .join("\n");
        let (used, dropped) = pack(&mut files, 300);
        assert!(used <= 300, "{used}");
        let first = &files[0].snippets[0];
        assert!(first.text.starts_with("    line_10 ="), "{:?}", first.text);
        assert!(first.end_line > 20 && first.end_line < 109, "{first:?}");
        assert_eq!(first.text.lines().count(), first.end_line - 9);
        // The rest is a handle an agent can open.
        assert_eq!(dropped, [format!("top.py:{}-109", first.end_line + 1)]);
    }

    #[test]
    fn the_budget_goes_to_the_top_files_before_low_tier_ones() {
        // A high file and a low one, each with two large snippets (best first).
        let mut files = vec![
            file("top.py", &[(40, 80, 1_600), (1, 20, 800)]),
            file("low.py", &[(1, 50, 2_000), (60, 99, 1_600)]),
        ];
        files[1].tier = Tier::Low;
        files[1].relevance = 0.2;
        let (used, dropped) = pack(&mut files, 1_200);
        assert!(used <= 1_200, "{used}");
        // Both of the high file's snippets keep their text, in line order.
        assert!(files[0].snippets.iter().all(|s| !s.text.is_empty()));
        assert_eq!(files[0].snippets[0].start_line, 1);
        // The low file may take 1/12 of the budget: its snippets are handles.
        assert_eq!(dropped, ["low.py:1-50", "low.py:60-99"]);
    }

    #[test]
    fn the_top_files_next_definition_comes_before_a_lower_files_best() {
        // The top file's two definitions fit the budget only if the medium
        // file's snippet waits: the top file is where the edit most likely is.
        let mut files = vec![
            file("top.py", &[(100, 140, 5_600), (10, 40, 4_800)]),
            file("mid.py", &[(1, 20, 1_800)]),
        ];
        files[1].tier = Tier::Medium;
        files[1].relevance = 0.6;
        let (used, dropped) = pack(&mut files, 3_000);
        assert!(used <= 3_000, "{used}");
        assert!(files[0].snippets.iter().all(|s| !s.text.is_empty()));
        assert_eq!(dropped, ["mid.py:1-20"]);
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
        assert_eq!((sn[0].start_line, sn[0].end_line), (1, 100), "{:?}", sn[0]);
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
        assert_eq!((sn[0].start_line, sn[0].end_line), (3, 7));
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
    fn the_quoted_message_picks_the_function_to_show() {
        let text = "class Fmt:\n    def width(self, n):\n        return n\n\n    def check(self, n):\n        if n < 4:\n            raise ValueError(\"width must be at least %d\" % 4)\n        return n\n";
        let doc = crate::corpus::Doc::for_test("fmt.py", text);
        let q = TaskQuery::new("Fmt.width raises ValueError: width must be at least 4", &[]);
        let sn = snippets(&doc, &q, &["width".into()], &|| false);
        assert!(sn[0].text.contains("def check"), "{sn:?}");
    }

    #[test]
    fn the_budget_bounds_headers_reasons_and_handles_too() {
        // 100 files with long reasons and one big snippet each, as at the maxima.
        for budget in [100, 1_000, 6_000, 20_000] {
            let mut files: Vec<File> = (0..100)
                .map(|i| {
                    let mut f = file(
                        &format!("src/module_{i:03}/handler.py"),
                        &[(1, 60, 3_000), (70, 80, 500)],
                    );
                    f.reasons = vec![
                        "matches connection timeout error handling; defines what src/x.py uses"
                            .repeat(8),
                    ];
                    f
                })
                .collect();
            let (used, _) = pack(&mut files, budget);
            let rendered: usize = files
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    tokens_of(&file_line(i + 1, f))
                        + f.snippets
                            .iter()
                            .map(|sn| tokens_of(&snippet_lines(&f.path, sn)))
                            .sum::<usize>()
                })
                .sum();
            assert_eq!(used, rendered, "the count is what the text shows");
            // Every file keeps its header line (reasons cut to 300 bytes) and
            // a handle for each snippet left out: only those pass the budget.
            let floor: usize = files
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let handles = f.snippets.iter().map(|sn| {
                        let handle = Snippet {
                            text: String::new(),
                            ..sn.clone()
                        };
                        tokens_of(&snippet_lines(&f.path, &handle))
                    });
                    tokens_of(&file_line(i + 1, f)) + handles.sum::<usize>()
                })
                .sum();
            assert!(
                used <= budget.max(floor),
                "budget {budget}: {used} (floor {floor})"
            );
            assert!(floor < 12_000, "floor {floor}");
            assert!(used < 25_000, "budget {budget}: {used} tokens");
        }
    }

    #[test]
    fn snippets_are_the_matching_definitions_with_one_based_lines() {
        let text = "import os\n\ndef unrelated():\n    return 1\n\ndef token_expiry(t):\n    return t.expiry\n";
        let sn = snippets_for("auth/token.py", text, "token expiry is wrong");
        assert_eq!(sn.len(), 1, "{sn:?}");
        assert_eq!((sn[0].start_line, sn[0].end_line), (6, 7));
        assert!(sn[0].text.starts_with("def token_expiry"));
    }
}
