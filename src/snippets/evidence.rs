//! What a line or a region holds of the task: its query terms, the task's
//! identifiers written verbatim, the string literals the task quotes.

use crate::query::TaskQuery;

/// Evidence of one line holding an identifier of the task verbatim
/// (`SESSION_COOKIE_SAMESITE`, `maxWidth`).
pub(super) const EXACT_IDENTIFIER: f64 = 8.0;
/// Evidence of one line holding a string literal the task quotes (an error
/// message, a flag): the strongest clue a task gives, above a definition
/// the task names.
pub(super) const QUOTED_LITERAL: f64 = 120.0;
/// Most evidence a definition's own lines count (so a long function that
/// repeats a name does not outweigh one holding the quoted message).
pub(super) const MAX_EVIDENCE: f64 = 2.0 * QUOTED_LITERAL;
/// Task identifiers looked for verbatim, at most.
const MAX_EXACT_IDENTIFIERS: usize = 32;
/// Evidence of the line after which the task's new key sorts in a sorted
/// table (see [`table_insertion`]): as strong as naming an identifier.
pub(super) const TABLE_INSERTION: f64 = EXACT_IDENTIFIER;
/// Rows a run of quoted keys needs to count as a sorted table.
const MIN_TABLE_ROWS: usize = 16;

/// The query terms of a region, each weighted by 1 + ln(its count there):
/// the function that works with a concept (reads the setting, passes it on)
/// mentions it more often than one that only names it.
pub(super) fn region_hits(lines: &[&str], q: &TaskQuery) -> f64 {
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

/// What each line (0-based) holds of the task.
pub(super) struct LineEvidence {
    /// Per line, all its evidence: [`EXACT_IDENTIFIER`] for each task
    /// identifier it writes verbatim, plus its `strong` evidence; where to
    /// cut a long region and the densest window go by it.
    pub(super) score: Vec<f64>,
    /// Per line, the string literals the task quotes ([`QUOTED_LITERAL`]
    /// each) and the place a sorted table takes the task's new key
    /// ([`TABLE_INSERTION`]).
    pub(super) strong: Vec<f64>,
    /// Per line, the task identifiers it writes verbatim, as bits of
    /// `id_weights`' indices.
    pub(super) ids: Vec<u64>,
    /// Per task identifier, what holding it is worth to a region:
    /// [`EXACT_IDENTIFIER`], [`TITLE_IDENTIFIER`] for one the title holds.
    pub(super) id_weights: Vec<f64>,
}

/// Evidence of a region holding an identifier the task's title names: the
/// title says what the task is about; a traceback below it names every
/// frame on the way (sympy-21171: "_print_SingularityFunction() got an
/// unexpected keyword argument", below frames of `_print_Mul` and
/// `_print_Add`, whose long bodies repeat `_print`). Three times a body
/// identifier: not tuned; with each identifier counted once a region, the
/// title's weight took the quick set's 68 Python tasks' edit recall from
/// 59.9 (1x) to 61.8 (3x).
pub(super) const TITLE_IDENTIFIER: f64 = 3.0 * EXACT_IDENTIFIER;

/// The task identifiers looked for and the evidence of each line: the
/// task's identifiers written verbatim, string literals the task quotes,
/// and in a sorted table the place where the task's new key goes
/// ([`table_insertion`]). A `snake_case` identifier also counts written as
/// a quoted kebab-case literal: a flag the task names (`--line-range`, read
/// as `line_range`) where a parser declares it (`Arg::new("line-range")`),
/// which the flag's own literal `"--line-range"` misses, and a hyphenated
/// name the task writes (`async-weak`, read as `async_weak`) where the code
/// compares a mode string (`"async-weak"`). Measured: dev-multilang
/// JavaScript edit recall 50.8 -> 51.8 % (webpack 7ae28bf7d2e2, the
/// `async-weak` case), no other group moved. In bat 006d77fa3931 the cut
/// of the 700-line `build_app` moved but still misses the declaration: an
/// earlier line holding `"line-range"` (`.conflicts_with("line-range")`)
/// ties with it and wins.
pub(super) fn line_evidence(lines: &[&str], q: &TaskQuery) -> LineEvidence {
    let ids = exact_identifiers(q);
    let id_weights: Vec<f64> = ids
        .iter()
        .map(|id| {
            if q.title_identifiers.contains(id) {
                TITLE_IDENTIFIER
            } else {
                EXACT_IDENTIFIER
            }
        })
        .collect();
    let quoted_kebab: Vec<Option<[String; 2]>> = ids
        .iter()
        .map(|id| {
            id.contains('_').then(|| {
                let k = id.replace('_', "-");
                [format!("\"{k}\""), format!("'{k}'")]
            })
        })
        .collect();
    let masks: Vec<u64> = lines
        .iter()
        .map(|l| {
            ids.iter()
                .enumerate()
                .filter(|&(k, id)| {
                    has_word(l, id)
                        || quoted_kebab[k]
                            .as_ref()
                            .is_some_and(|f| f.iter().any(|f| l.contains(f.as_str())))
                })
                .fold(0u64, |m, (k, _)| m | (1 << k))
        })
        .collect();
    let mut strong: Vec<f64> = lines
        .iter()
        .map(|l| literals_in_task(l, q) as f64 * QUOTED_LITERAL)
        .collect();
    for i in table_insertion(lines, q) {
        strong[i] += TABLE_INSERTION;
    }
    let score = masks
        .iter()
        .zip(&strong)
        .map(|(m, s)| f64::from(m.count_ones()) * EXACT_IDENTIFIER + s)
        .collect();
    LineEvidence {
        score,
        strong,
        ids: masks,
        id_weights,
    }
}

/// The key of a table row: the first string literal of a line that starts
/// with one (after indentation and `(`, `[`, `{`, `&`), lowercased.
fn row_key(line: &str) -> Option<String> {
    let rest = line
        .trim_start()
        .trim_start_matches(['(', '[', '{', '&', ' ']);
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    (end > 0).then(|| body[..end].to_lowercase())
}

/// Runs of table rows: lines (0-based) with a [`row_key`] at one
/// indentation, with only deeper-indented lines (a row's continuation),
/// lines closing a row (`]),`), blank lines or comments between them.
fn table_runs(lines: &[&str]) -> Vec<Vec<(usize, String)>> {
    let mut runs = Vec::new();
    let mut run: Vec<(usize, String)> = Vec::new();
    let mut indent = 0;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with("//") || t.starts_with('#') {
            continue;
        }
        let depth = l.len() - t.len();
        let closes = t.starts_with([')', ']', '}']);
        if !run.is_empty() && (depth > indent || (depth == indent && closes)) {
            continue;
        }
        let key = row_key(l);
        if run.is_empty() || depth != indent || key.is_none() {
            runs.push(std::mem::take(&mut run));
            indent = depth;
        }
        if let Some(k) = key {
            run.push((i, k));
        }
    }
    runs.push(run);
    // Only a table longer than a snippet is cut away from its insertion
    // point; a short one inside a long function (an `env` map) is shown
    // with whatever the function's own evidence picks.
    runs.retain(|r| {
        r.len() >= MIN_TABLE_ROWS && r[r.len() - 1].0 + 1 - r[0].0 >= super::cut::MAX_SNIPPET_LINES
    });
    runs
}

/// The key a task adds to a table: its heaviest query term (letters and
/// digits, at least 2 bytes) that the file does not hold anywhere and that
/// the task does not only write as part of a path (`ignore/types: add
/// Hurl` adds `hurl`, not `ignore`).
fn new_key(lines: &[&str], q: &TaskQuery) -> Option<String> {
    let text = lines.join("\n").to_lowercase();
    let in_path = |t: &str| {
        let b = q.text.as_bytes();
        q.text.match_indices(t).all(|(i, _)| {
            let before = i.checked_sub(1).map(|j| b[j]);
            let after = b.get(i + t.len()).copied();
            before == Some(b'/') || after == Some(b'/')
        })
    };
    q.terms
        .iter()
        .filter(|t| !t.alternative)
        .map(|t| t.text.as_str())
        .find(|t| {
            t.len() >= 2
                && t.bytes().all(|b| b.is_ascii_alphanumeric())
                && !text.contains(t)
                && !in_path(t)
        })
        .map(str::to_string)
}

/// Where a task's new key goes in each sorted table of the file (a run of at
/// least `MIN_TABLE_ROWS` rows whose keys are in order, nine pairs in ten,
/// spanning at least `MAX_SNIPPET_LINES` lines):
/// the line before the first row whose key sorts after it (the last line of
/// the row it follows), as 0-based lines. A long table is cut around its
/// best line, so without this the snippet shows its first rows, not the
/// place the fix edits (ripgrep's `DEFAULT_TYPES`, a task "add Mojo type").
fn table_insertion(lines: &[&str], q: &TaskQuery) -> Vec<usize> {
    let runs: Vec<Vec<(usize, String)>> = table_runs(lines)
        .into_iter()
        .filter(|r| {
            let ordered = r.windows(2).filter(|w| w[0].1 <= w[1].1).count();
            10 * ordered >= 9 * (r.len() - 1)
        })
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let Some(key) = new_key(lines, q) else {
        return Vec::new();
    };
    runs.iter()
        .map(|r| match r.iter().position(|(_, k)| *k > key) {
            Some(0) => r[0].0,
            Some(p) => r[p].0 - 1,
            None => r[r.len() - 1].0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `rows` one-line rows with sorted keys `k000`, `k001`, ...
    fn table(rows: usize) -> String {
        let mut text = String::from("ENV = {\n");
        for i in 0..rows {
            text.push_str(&format!("    \"k{i:03}\": {i},\n"));
        }
        text.push_str("}\n");
        text
    }

    #[test]
    fn a_flag_of_the_task_is_found_where_its_parser_declares_it() {
        let q = TaskQuery::new("Allow hyphen values to `-r`/`--line-range`", &[]);
        let lines = [
            "        .arg(",
            "            Arg::new(\"line-range\")",
            "                .long('line-range')",
            "                .help(\"Only print the lines from N to M.\"),",
            "            Arg::new(\"line-ranges\")",
        ];
        let ev = line_evidence(&lines, &q);
        assert!(ev.score[1] > 0.0 && ev.score[2] > 0.0, "{:?}", ev.score);
        assert_eq!((ev.score[0], ev.score[3], ev.score[4]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn only_a_sorted_table_longer_than_a_snippet_points_at_the_new_keys_place() {
        let q = TaskQuery::new("add the k050x setting", &[]);
        let long = table(200);
        let lines: Vec<&str> = long.lines().collect();
        // After the row of k050 (line 52, 0-based 51), before k051.
        assert_eq!(table_insertion(&lines, &q), [51]);
        // A 30-row map inside a long function is not cut away from anything.
        let short = table(30);
        let lines: Vec<&str> = short.lines().collect();
        assert!(table_insertion(&lines, &q).is_empty());
    }
}
