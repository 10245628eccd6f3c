//! A region's lines: cut to a longest length around its best line, merged
//! with its neighbours, or a window around the densest lines of a file
//! without symbols.

use crate::query::{query_hits, TaskQuery};

/// Longest snippet but a file's best, in lines; longer definitions are cut
/// around their best match. 100, not 60: the second function a fix edits
/// is as long as the first one (a function cut at 60 lines lost the rest of
/// its edit on dev-python).
pub(super) const MAX_SNIPPET_LINES: usize = 100;
/// Longest snippet for a file's best region: the definition the task is
/// most likely about is shown whole where it fits (a function to edit, not
/// its first 60 lines).
pub(super) const MAX_BEST_SNIPPET_LINES: usize = 150;
/// Chosen regions this many lines or fewer apart are shown as one snippet
/// (one range line, and the lines between them, usually blank or a
/// decorator, come with it), if the whole stays within
/// `MAX_BEST_SNIPPET_LINES`.
pub(super) const MERGE_GAP: usize = 3;

/// Merges regions (best first) that overlap or lie at most `MERGE_GAP`
/// lines apart into one, at the place of the better one, when the merged
/// region is at most `MAX_BEST_SNIPPET_LINES` long.
pub(super) fn merge_neighbours(mut regions: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
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

/// A window of about 25 lines (1-based, inclusive) around the line with
/// the most query terms and evidence.
pub(super) fn densest_window(lines: &[&str], q: &TaskQuery, evidence: &[f64]) -> (usize, usize) {
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
pub(super) fn cut_range(
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
