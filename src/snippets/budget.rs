//! Packing the answer's files into the token budget: headers and handles
//! first, then snippet text by how likely each snippet is the code to
//! change, cut to its first lines when it does not fit.

use super::tokens_of;
use crate::render::{file_line, handles_line, range_line, shown_text, snippet_line_bytes};
use crate::types::{File, Snippet, Tier};

/// Weight of a file's tier in [`pack`]'s order, beside its relevance
/// (which already falls with the tier): a low file's snippets come after
/// the files above it. High and medium weigh the same: at one rank a high
/// file holds the edit about as often as a medium one (rank 2: 24 % and
/// 21 % of 1,029 dev and held-out tasks, 2026-12-05), and with medium at
/// 0.4 a medium second file's best function waited behind most of the top
/// file's places (dev-python edit recall 59.1 % against 60.8 % at 1).
fn tier_weight(t: Tier) -> f64 {
    match t {
        Tier::High | Tier::Medium => 1.0,
        Tier::Low => 0.1,
    }
}

/// A snippet's priority in [`pack`] is divided by the square root of its
/// tokens, counted as at least this many (a one-line snippet of 3 tokens
/// is not worth more than a short one).
const MIN_PRIORITY_TOKENS: f64 = 10.0;

/// Least room (tokens) worth cutting a snippet to its first lines for: about
/// five lines of code with the range line; below it the handle alone is kept.
const MIN_CUT_TOKENS: usize = 48;

/// How a snippet is shown: a handle (its range in the file's
/// [`handles_line`]), whole, or its first lines with the rest a handle.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shown {
    Handle,
    Whole,
    First(usize),
}

/// One file's snippets as the budget sees them: what each costs shown, and
/// how each is shown now.
struct FileCost<'f> {
    file: &'f File,
    /// Per snippet, the bytes of its first k lines with their newlines
    /// (`prefix[j][k]`, k = 0..=lines).
    prefix: Vec<Vec<usize>>,
    shown: Vec<Shown>,
    /// Tokens of the file's snippets as they are shown now.
    tokens: usize,
}

impl<'f> FileCost<'f> {
    fn new(file: &'f File) -> Self {
        let prefix = file
            .snippets
            .iter()
            .map(|s| {
                let mut p = vec![0];
                // The bytes the rendering writes (control characters
                // escaped, each line marked).
                for l in shown_text(&s.text).split('\n') {
                    p.push(p.last().copied().unwrap_or(0) + snippet_line_bytes(l));
                }
                p
            })
            .collect();
        let mut cost = FileCost {
            file,
            prefix,
            shown: vec![Shown::Handle; file.snippets.len()],
            tokens: 0,
        };
        if let Some(&first) = cost.shown.first() {
            cost.tokens = cost.tokens_with(0, first);
        }
        cost
    }

    /// Lines of snippet `j`.
    fn lines(&self, j: usize) -> usize {
        let s = &self.file.snippets[j];
        s.end_line + 1 - s.start_line
    }

    /// Tokens of the file's snippets in the text rendering
    /// ([`crate::render::snippets_block`]) with snippet `j` shown as `as_j`: each shown
    /// part's range line and lines, and the one handles line. Exact: the
    /// bytes are those the rendering writes.
    fn tokens_with(&self, j: usize, as_j: Shown) -> usize {
        let path = &self.file.path;
        // Bytes first, one rounding for the whole block, as the rendering
        // is counted (a rounding per part over-counted up to a token each).
        let mut bytes_shown = 0;
        let mut left_out = Vec::new();
        for (k, (s, &now)) in self.file.snippets.iter().zip(&self.shown).enumerate() {
            let how = if k == j { as_j } else { now };
            let kept = match how {
                Shown::Handle => 0,
                Shown::Whole => self.lines(k),
                Shown::First(n) => n,
            };
            if kept > 0 {
                let head = range_line(path, s.start_line, s.start_line + kept - 1);
                let p = &self.prefix[k];
                let bytes = p.get(kept).or(p.last()).copied().unwrap_or(0);
                bytes_shown += head.len() + bytes;
            }
            if kept < self.lines(k) {
                left_out.push((s.start_line + kept, s.end_line));
            }
        }
        left_out.sort_unstable();
        (bytes_shown + handles_line(path, &left_out).len()).div_ceil(4)
    }

    /// Shows snippet `j` as `how`, which [`FileCost::tokens_with`] priced
    /// at `tokens`.
    fn show(&mut self, j: usize, how: Shown, tokens: usize) {
        self.shown[j] = how;
        self.tokens = tokens;
    }
}

/// Packs the files (given in rank order, each file's snippets best first,
/// as [`snippets`](super::snippets) returns them) into `budget` tokens. The budget covers the
/// whole per-file part of the text rendering: each file's header line, its
/// snippets with their range lines and the one line naming its snippets
/// left out ([`handles_line`]). Every file keeps its header line and every
/// snippet at least its range in that line (`path:start-end`, a place the
/// agent can open); those are reserved first. The rest turns handles into snippet text
/// in order of how likely each snippet is the code to change per token it
/// costs: the file's tier weight (high and medium 1, low 0.1) times its
/// relevance, divided by its rank, by the snippet's place among the file's
/// snippets (1 for the best) and by the square root of its tokens (a
/// knapsack's value per cost, softened: a long function also holds more of
/// an edit). So the top file's best definitions come before a lower file's,
/// a low-tier file gets text only when the files above it have theirs (and
/// at most 1/12 of the budget until every snippet had its turn; what is left
/// then goes on in the same order, uncapped), and a snippet that does not fit what is
/// left is cut to the first lines that fit (at least `MIN_CUT_TOKENS` (48) of
/// room; the rest stays a handle), else stays a handle, while smaller ones
/// after it may still fit. The
/// per-file part costs at most
/// max(`budget`, headers + handles). Snippets left as handles have empty
/// text and are listed in the returned `dropped`; each file's snippets end
/// in line order. Returns (tokens used, dropped).
pub fn pack(files: &mut [File], budget: usize) -> (usize, Vec<String>) {
    let order = text_order(files);
    let (used, shown) = {
        let mut costs: Vec<FileCost> = files.iter().map(FileCost::new).collect();
        let headers: usize = files
            .iter()
            .enumerate()
            .map(|(i, f)| tokens_of(&file_line(i + 1, f)))
            .sum();
        let reserved = headers + costs.iter().map(|c| c.tokens).sum::<usize>();
        let used = spend(&mut costs, &order, budget, reserved);
        (used, costs.into_iter().map(|c| c.shown).collect::<Vec<_>>())
    };
    let mut kept: Vec<Vec<bool>> = shown
        .iter()
        .map(|f| f.iter().map(|&s| s != Shown::Handle).collect())
        .collect();
    let cut = shown
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            f.iter().enumerate().filter_map(move |(j, &s)| match s {
                Shown::First(n) => Some((i, j, n)),
                _ => None,
            })
        })
        .collect();
    apply_cuts(files, &mut kept, cut);
    (used, handles(files, kept))
}

/// Every snippet as (priority, file, snippet), highest priority first.
fn text_order(files: &[File]) -> Vec<(f64, usize, usize)> {
    let mut order: Vec<(f64, usize, usize)> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let file_weight = tier_weight(f.tier) * f.relevance.max(0.01) / (i + 1) as f64;
        for (j, s) in f.snippets.iter().enumerate() {
            let size = (tokens_of(&s.text) as f64).max(MIN_PRIORITY_TOKENS).sqrt();
            order.push((file_weight / (j + 1) as f64 / size, i, j));
        }
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    order
}

/// Spends the budget left after the `used` reserved tokens along `order`,
/// in two passes: the first keeps each low-tier file within 1/12 of the
/// budget, so the files above it have their text first; the second gives
/// what the first left over to the snippets still without text (or cut), in
/// the same order, with no cap. When every file is low tier (a task naming
/// nothing the tree defines), the first pass alone would leave most of the
/// budget unspent while the rank-2 file's snippets stay handles. Returns
/// the tokens used; each file's `shown` says how its snippets are shown.
fn spend(
    costs: &mut [FileCost],
    order: &[(f64, usize, usize)],
    budget: usize,
    mut used: usize,
) -> usize {
    // Per file, the tokens its snippets cost beyond the reserved handles.
    let mut spent = vec![0isize; costs.len()];
    for capped in [true, false] {
        for &(_, i, j) in order {
            let c = &mut costs[i];
            let now = c.shown[j];
            if now == Shown::Whole {
                continue;
            }
            let cap = if capped && c.file.tier == Tier::Low {
                (budget / 12) as isize - spent[i]
            } else {
                isize::MAX
            };
            let room = (budget as isize - used as isize).min(cap);
            let base = c.tokens as isize;
            let delta = |c: &FileCost, how| c.tokens_with(j, how) as isize - base;
            let whole = delta(c, Shown::Whole);
            let next = if whole <= room {
                Some((Shown::Whole, whole))
            } else if room >= MIN_CUT_TOKENS as isize {
                // Too long for what is left: its first lines, and the rest as a
                // handle, rather than a handle alone.
                let had = match now {
                    Shown::First(n) => n,
                    _ => 0,
                };
                let mut best = None;
                for n in (had + 1)..c.lines(j) {
                    let x = delta(c, Shown::First(n));
                    if x > room {
                        break;
                    }
                    best = Some((Shown::First(n), x));
                }
                best
            } else {
                None
            };
            if let Some((how, x)) = next {
                c.show(j, how, (base + x) as usize);
                used = (used as isize + x) as usize;
                spent[i] += x;
            }
        }
    }
    used
}

/// Cuts each snippet of `cut` (file, snippet, lines kept) to its first
/// lines; the rest becomes a new snippet after the file's others, a handle.
fn apply_cuts(files: &mut [File], kept: &mut [Vec<bool>], cut: Vec<(usize, usize, usize)>) {
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
}

/// Clears the text of the snippets not `kept`, puts each file's snippets in
/// line order and returns the handles left (`path:start-end`).
fn handles(files: &mut [File], kept: Vec<Vec<bool>>) -> Vec<String> {
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
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// As [`file`], with each snippet's text as many lines as its range
    /// (about `bytes` in all), so that it can be cut to its first lines.
    fn file_of_lines(path: &str, ranges: &[(usize, usize, usize)]) -> File {
        let mut f = file(path, ranges);
        for s in &mut f.snippets {
            let n = s.end_line + 1 - s.start_line;
            let line = "x".repeat((s.text.len() / n).max(2) - 1);
            s.text = vec![line; n].join("\n");
        }
        f
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
    fn a_files_left_out_snippets_share_one_line_that_names_the_path_once() {
        // Eight snippets too large for the budget: one line names them all,
        // in line order, instead of eight lines repeating the path.
        let path = "src/module/deeply/nested/handler.py";
        let ranges: Vec<(usize, usize, usize)> =
            (0..8).map(|k| (100 * k + 1, 100 * k + 60, 4_000)).collect();
        let mut files = vec![file(path, &ranges)];
        let (used, dropped) = pack(&mut files, 60);
        assert_eq!(dropped.len(), 8, "{dropped:?}");
        let block = crate::render::snippets_block(path, &files[0].snippets);
        assert_eq!(block.lines().count(), 1, "{block}");
        assert_eq!(block.matches(path).count(), 1, "{block}");
        assert!(block.contains(":1-60, 101-160, 201-260"), "{block}");
        assert_eq!(
            used,
            tokens_of(&file_line(1, &files[0])) + tokens_of(&block)
        );
        // A handle line per snippet cost more than twice as much.
        let per_snippet: usize = ranges
            .iter()
            .map(|&(s, e, _)| tokens_of(&format!("   {path}:{s}-{e} (left out: budget)\n")))
            .sum();
        assert!(2 * tokens_of(&block) < per_snippet, "{block}");
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
        let (used, dropped) = pack(&mut files, 1_000);
        assert!(used <= 1_000, "{used}");
        // Both of the high file's snippets keep their text, in line order.
        assert!(files[0].snippets.iter().all(|s| !s.text.is_empty()));
        assert_eq!(files[0].snippets[0].start_line, 1);
        // The low file has only what is left, too little for its snippets.
        assert_eq!(dropped, ["low.py:1-50", "low.py:60-99"]);
    }

    #[test]
    fn when_every_file_is_low_tier_the_budget_is_spent_down_the_ranks() {
        // Five low-tier files (a task naming nothing the tree defines), each
        // with two 1,600-byte snippets: 1/12 of the budget each would leave
        // 6,000 tokens mostly unspent and the second file's second snippet,
        // where the edit may be, a handle.
        let mut files: Vec<File> = (0..5)
            .map(|i| {
                let mut f = file(
                    &format!("src/f{i}.c"),
                    &[(10, 50, 1_600), (100, 140, 1_600)],
                );
                f.tier = Tier::Low;
                f.relevance = 0.4 - 0.01 * i as f64;
                f
            })
            .collect();
        let (used, dropped) = pack(&mut files, 6_000);
        assert!(used <= 6_000, "{used}");
        assert!(used > 3_000, "budget left unspent: {used}");
        assert!(
            files[1].snippets.iter().all(|s| !s.text.is_empty()),
            "{dropped:?}"
        );
    }

    /// `top.py` (high, 0.9) with `top` snippets and `mid.py` (medium, 0.6)
    /// with one, packed into `budget`: (files, dropped).
    fn top_and_medium(
        top: &[(usize, usize, usize)],
        mid: (usize, usize, usize),
        budget: usize,
    ) -> (Vec<File>, Vec<String>) {
        let mut files = vec![file("top.py", top), file("mid.py", &[mid])];
        files[1].tier = Tier::Medium;
        files[1].relevance = 0.6;
        let (used, dropped) = pack(&mut files, budget);
        assert!(used <= budget, "{used}");
        (files, dropped)
    }

    #[test]
    fn the_top_files_next_definition_comes_before_a_lower_files_best() {
        // The top file's two definitions fit the budget only if the medium
        // file's snippet waits: the top file is where the edit most likely is.
        // (Snippets of one size: per token, as by place.)
        let (files, dropped) =
            top_and_medium(&[(100, 140, 5_600), (10, 40, 1_800)], (1, 20, 1_800), 2_000);
        assert!(files[0].snippets.iter().all(|s| !s.text.is_empty()));
        assert_eq!(dropped, ["mid.py:1-20"]);
    }

    #[test]
    fn a_short_best_snippet_of_the_second_file_comes_before_a_long_second_one_of_the_top_file() {
        // The top file's second function is 1,000 tokens, the second file's
        // best one 200: the budget holds one of them, and per token the
        // short one is the better bet.
        let (files, dropped) =
            top_and_medium(&[(1, 10, 400), (20, 200, 4_000)], (1, 5, 800), 1_230);
        assert!(!files[1].snippets[0].text.is_empty(), "{dropped:?}");
        assert_eq!(dropped, ["top.py:20-200"]);
    }

    #[test]
    fn the_budget_bounds_headers_reasons_and_handles_too() {
        // 100 files with long reasons and one big snippet each, as at the maxima.
        for budget in [100, 1_000, 6_000, 20_000] {
            let mut files: Vec<File> = (0..100)
                .map(|i| {
                    let mut f = file_of_lines(
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
                        + tokens_of(&crate::render::snippets_block(&f.path, &f.snippets))
                })
                .sum();
            assert_eq!(used, rendered, "the count is what the text shows");
            // Every file keeps its header line (reasons cut to 300 bytes) and
            // a handle for each snippet left out: only those pass the budget.
            let floor: usize = files
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let ranges: Vec<(usize, usize)> = f
                        .snippets
                        .iter()
                        .map(|sn| (sn.start_line, sn.end_line))
                        .collect();
                    tokens_of(&file_line(i + 1, f)) + tokens_of(&handles_line(&f.path, &ranges))
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
}
