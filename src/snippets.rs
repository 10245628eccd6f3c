//! Snippets and the token budget: the regions of a file that best match the
//! query, and packing them into the budget in rank order.
//!
//! Tokens are estimated as bytes / 4 (the usual rule of thumb for code with
//! BPE tokenizers); the budget covers the per-file part of the text
//! rendering (header lines, snippets, handles), see [`pack`], so packing
//! measures the lines [`crate::render`] writes.

use crate::corpus::Doc;
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
/// stopped: see `Doc::symbols_until`, which `stop` is passed to). A
/// method's class or impl signature is merged into its snippet when it is
/// at most `MAX_SIGNATURE_GAP` lines above. Line numbers are 1-based,
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
        .filter(|d| d.kind != "module" && d.kind != "impl")
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
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    for &(_, s, e) in &regions {
        if chosen.len() == MAX_SNIPPETS {
            break;
        }
        // A long definition is shown cut around its best lines: only that
        // part keeps other snippets out (a class whose methods were not all
        // found still leaves room for the ones that were).
        let (s, e) = cut_range(&lines, s, e, q, &evidence);
        if chosen.iter().any(|&(cs, ce)| s <= ce && cs <= e) {
            continue;
        }
        chosen.push((s, e));
    }
    if chosen.is_empty() {
        chosen.push(densest_window(&lines, q, &evidence));
    }
    // A method alone hides what a reader needs: the signature of the class or
    // impl around it. It joins the snippet when it is close above it.
    for i in 0..chosen.len() {
        let (s, e) = chosen[i];
        let enclosing = syms
            .definitions
            .iter()
            .filter(|d| d.kind != "module" && d.start_line < s && e <= d.end_line)
            .max_by_key(|d| d.start_line);
        if let Some(p) = enclosing {
            let line = p.start_line;
            let free = !chosen
                .iter()
                .any(|&(cs, ce)| (cs, ce) != (s, e) && cs < s && line <= ce);
            if line >= 1 && s - line <= MAX_SIGNATURE_GAP && free {
                chosen[i].0 = line;
            }
        }
    }
    chosen
        .into_iter()
        .map(|(s, e)| cut(&lines, s, e, q, &evidence))
        .collect()
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
/// (`snake_case`, `CamelCase`, with digits), at least 4 bytes long.
fn exact_identifiers(q: &TaskQuery) -> Vec<&str> {
    q.identifiers
        .iter()
        .map(String::as_str)
        .filter(|id| {
            id.len() >= 4
                && (id.contains('_')
                    || id.bytes().any(|b| b.is_ascii_digit())
                    || id[1..].bytes().any(|b| b.is_ascii_uppercase()))
        })
        .take(MAX_EXACT_IDENTIFIERS)
        .collect()
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

/// Cuts a region to `MAX_SNIPPET_LINES`, keeping its first lines (the signature)
/// and the best-matching part (the line with the most evidence, then terms).
fn cut(lines: &[&str], s: usize, e: usize, q: &TaskQuery, evidence: &[f64]) -> Snippet {
    let (s, e) = cut_range(lines, s, e, q, evidence);
    Snippet {
        start_line: s,
        end_line: e,
        text: lines[s - 1..e].join("\n"),
    }
}

/// The lines [`cut`] keeps of a region (1-based, inclusive).
fn cut_range(
    lines: &[&str],
    s: usize,
    e: usize,
    q: &TaskQuery,
    evidence: &[f64],
) -> (usize, usize) {
    if e - s + 1 > MAX_SNIPPET_LINES {
        let score = |a: usize| query_hits(lines[a - 1], q) + evidence[a - 1];
        let best = (s..=e)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            .unwrap_or(s);
        let start = best.saturating_sub(MAX_SNIPPET_LINES / 3).max(s);
        (start, (start + MAX_SNIPPET_LINES - 1).min(e))
    } else {
        (s, e)
    }
}

/// Packs the files (given in rank order, each file's snippets best first,
/// as [`snippets`] returns them) into `budget` tokens. The budget covers the
/// whole per-file part of the text rendering: each file's header line and
/// its snippets with their range lines. Every file keeps its header line and
/// every snippet at least its handle (`path:start-end`, a line the agent can
/// open); those are reserved first. The rest turns handles into snippet text
/// by tier and relevance: first each file in rank order up to its tier's
/// share of the budget (a high file 1/2, a medium one 1/6, a low one 1/12;
/// a high file's best snippet is taken whatever its size, if it fits),
/// then what is left to the high and medium files' other snippets, in rank
/// order — so the top files' evidence comes before any lower-tier file's,
/// and a low file never takes more than its share. So the per-file part
/// costs at most max(`budget`, headers + handles). Snippets left as handles
/// have empty text and are listed in the returned `dropped`; each file's
/// snippets end in line order. Returns (tokens used, dropped).
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
    // What turning each handle into text costs.
    let extra: Vec<Vec<usize>> = files
        .iter()
        .map(|f| {
            f.snippets
                .iter()
                .map(|s| {
                    tokens_of(&snippet_lines(&f.path, s)).saturating_sub(handle_cost(&f.path, s))
                })
                .collect()
        })
        .collect();
    let mut kept: Vec<Vec<bool>> = files
        .iter()
        .map(|f| vec![false; f.snippets.len()])
        .collect();
    let mut spent = vec![0usize; files.len()];
    for (i, f) in files.iter().enumerate() {
        let share = match f.tier {
            Tier::High => budget / 2,
            Tier::Medium => budget / 6,
            Tier::Low => budget / 12,
        };
        for (j, &x) in extra[i].iter().enumerate() {
            // A high file's best snippet is not held to its share.
            let best_of_high = j == 0 && f.tier == Tier::High;
            if (spent[i] + x <= share || best_of_high) && used + x <= budget {
                used += x;
                spent[i] += x;
                kept[i][j] = true;
            }
        }
    }
    for (i, f) in files.iter().enumerate() {
        if f.tier == Tier::Low {
            continue;
        }
        for (j, &x) in extra[i].iter().enumerate() {
            if !kept[i][j] && used + x <= budget {
                used += x;
                kept[i][j] = true;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
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
        let doc = crate::corpus::Doc::for_test("auth/token.py", text);
        let q = TaskQuery::new("token expiry is wrong", &[]);
        let sn = snippets(&doc, &q, &[], &|| false);
        assert_eq!(sn.len(), 1, "{sn:?}");
        assert_eq!((sn[0].start_line, sn[0].end_line), (6, 7));
        assert!(sn[0].text.starts_with("def token_expiry"));
    }
}
