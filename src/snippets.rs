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
/// Snippets per file.
const MAX_SNIPPETS: usize = 3;

/// The regions of `doc` that best match the query: the definitions (functions,
/// methods, classes, constants) with the most query terms, preferring the
/// smallest definition that matches; files without symbols get a window around
/// their densest lines (as do files whose parse was capped or stopped: see
/// [`Doc::symbols_until`], which `stop` is passed to). Line numbers are
/// 1-based, inclusive.
pub fn snippets(
    doc: &Doc,
    q: &TaskQuery,
    defines: &[String],
    stop: &dyn Fn() -> bool,
) -> Vec<Snippet> {
    let lines: Vec<&str> = doc.text.lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let syms = doc.symbols_until(stop);
    let mut regions: Vec<(f64, usize, usize)> = Vec::new();
    for d in &syms.definitions {
        if d.kind == "module" || d.kind == "impl" {
            continue;
        }
        let (s, e) = (d.start_line, d.end_line.min(lines.len()));
        if s == 0 || s > e {
            continue;
        }
        let body = lines[s - 1..e].join("\n");
        let mut score = query_hits(&body, q);
        if defines.contains(&d.name) {
            score += 100.0;
        }
        // Prefer tight regions: a class matching only through one method should
        // yield the method.
        score /= 1.0 + ((e - s + 1) as f64 / 80.0).ln_1p();
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
        if chosen.iter().any(|&(cs, ce)| s <= ce && cs <= e) {
            continue;
        }
        chosen.push((s, e));
    }
    if chosen.is_empty() {
        chosen.push(densest_window(&lines, q));
    }
    // A method alone hides what a reader needs: the signature of the class or
    // impl around it. Add that one line when it is not shown already.
    let mut parents: Vec<(usize, usize)> = Vec::new();
    for &(s, e) in &chosen {
        let enclosing = syms
            .definitions
            .iter()
            .filter(|d| d.kind != "module" && d.start_line < s && e <= d.end_line)
            .max_by_key(|d| d.start_line);
        if let Some(p) = enclosing {
            let line = p.start_line;
            let shown = chosen
                .iter()
                .chain(&parents)
                .any(|&(cs, ce)| cs <= line && line <= ce);
            if !shown && line <= lines.len() {
                parents.push((line, line));
            }
        }
    }
    chosen.extend(parents);
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|(s, e)| cut(&lines, s, e, q))
        .collect()
}

fn densest_window(lines: &[&str], q: &TaskQuery) -> (usize, usize) {
    const HALF: usize = 12;
    let best = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (query_hits(l, q), i))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map_or(0, |(_, i)| i);
    let s = best.saturating_sub(HALF);
    (s + 1, (best + HALF + 1).min(lines.len()))
}

/// Cuts a region to `MAX_SNIPPET_LINES`, keeping its first lines (the signature)
/// and the best-matching part.
fn cut(lines: &[&str], s: usize, e: usize, q: &TaskQuery) -> Snippet {
    let (s, e) = if e - s + 1 > MAX_SNIPPET_LINES {
        let best = (s..=e)
            .max_by(|&a, &b| {
                query_hits(lines[a - 1], q)
                    .total_cmp(&query_hits(lines[b - 1], q))
                    .then(b.cmp(&a))
            })
            .unwrap_or(s);
        let start = best.saturating_sub(MAX_SNIPPET_LINES / 3).max(s);
        (start, (start + MAX_SNIPPET_LINES - 1).min(e))
    } else {
        (s, e)
    };
    Snippet {
        start_line: s,
        end_line: e,
        text: lines[s - 1..e].join("\n"),
    }
}

/// Packs the files into `budget` tokens in rank order. The budget covers the
/// whole per-file part of the text rendering: each file's header line and
/// its snippets with their range lines. Every file keeps its header line and
/// every snippet at least its handle (`path:start-end`, a line the agent can
/// open); those are reserved first, and the rest of the budget turns handles
/// into snippet text in rank order. So the per-file part costs at most
/// max(`budget`, headers + handles). Snippets left as handles have empty text
/// and are listed in the returned `dropped`. Returns (tokens used, dropped).
pub fn pack(files: &mut [File], budget: usize) -> (usize, Vec<String>) {
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
    let mut dropped = Vec::new();
    for f in files.iter_mut() {
        let path = f.path.clone();
        for s in &mut f.snippets {
            let extra = tokens_of(&snippet_lines(&path, s)).saturating_sub(handle_cost(&path, s));
            if used + extra <= budget {
                used += extra;
            } else {
                dropped.push(format!("{}:{}-{}", path, s.start_line, s.end_line));
                s.text.clear();
            }
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
