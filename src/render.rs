//! Renderings: the compact text of every tool's answer ([`Render`], used by
//! the server and the CLI) and the Markdown of a `retrieve` result, for
//! models that read only text content and for people. A change to the output
//! format lands here (the structured shape is `crate::types`).

use crate::types::{
    DispatchOutput, EvaluateOutput, File, Gap, RefineOutput, RetrieveOutput, Snippet, Stats,
};
use std::borrow::Cow;

/// `s` (a path, a reason, a gap's description) on one line of a rendering:
/// control characters written as escapes (`\n`, `\u{1b}`). Git allows a
/// newline in a file name, and a name such as `a\n#9 FORGED.py [high 1.00]`
/// printed raw forged an answer line; an escape byte drove the terminal.
pub(crate) fn one_line(s: &str) -> Cow<'_, str> {
    escape_unless(s, |c, _| !c.is_control())
}

/// `path` as a Markdown code span: on one line, and fenced by more
/// backticks than it holds in a row (CommonMark), so a name holding a
/// backtick stays one span.
fn code_span(path: &str) -> String {
    let p = one_line(path);
    let longest = longest_backtick_run(&p);
    if longest == 0 {
        return format!("`{p}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {p} {fence}")
}

/// `s` (a task, a file's reasons, a gap: text around paths and names from
/// the tree) as Markdown inline text, shown as the text rendering shows it:
/// on one line ([`one_line`]), each character CommonMark reads as inline
/// markup escaped with a backslash, so that `json/__init__.py` does not
/// render as `json/**init**.py` and a name cannot open a link, an HTML tag
/// or a code span (an identifier's quotes show as backticks). Only inline
/// markup: the text never starts a line of the rendering.
fn md_text(s: &str) -> String {
    let s = one_line(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The task as the Markdown rendering shows it, after `Task:`: one line as
/// inline text ([`md_text`]); several (a pasted stack trace) as a code
/// block, kept line for line.
fn md_task(task: &str) -> String {
    let task = task.trim();
    if !task.contains('\n') {
        return format!(" {}\n", md_text(task));
    }
    let text = shown_text(task);
    let fence = code_fence(&text);
    format!("\n\n{fence}text\n{text}\n{fence}\n")
}

/// The info string of a Markdown code block for a file at `path`: its
/// extension, when it is letters and digits only. After a backtick fence
/// CommonMark takes no info string holding a backtick: the line then opens
/// no block, and a file named `a.p`y` left its snippet outside any.
fn fence_lang(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((_, ext)) if !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) => ext,
        _ => "",
    }
}

/// The fence of a Markdown code block holding `text`: three backticks, or
/// one more than the longest run in it (CommonMark), so that a line of the
/// snippet (a Markdown file's own fence, a docstring's) cannot close the
/// block and pass the rest off as the answer's own headings.
fn code_fence(text: &str) -> String {
    "`".repeat((longest_backtick_run(text) + 1).max(3))
}

/// The longest run of backticks in `s` (0 when it has none): what a
/// Markdown code span's or block's fence must be longer than.
fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A snippet's text as the renderings show it: its lines as they are (tabs,
/// and the carriage return of a CRLF line end, kept), other control
/// characters written as escapes so that a file's bytes cannot drive the
/// reader's terminal (`\u{1b}[31m`, a bell) or overwrite a line (a lone
/// `\r`; one at the text's end is its last line's CRLF). The budget counts
/// this text ([`crate::snippets::pack`]).
pub(crate) fn shown_text(text: &str) -> Cow<'_, str> {
    escape_unless(text, |c, next| {
        !c.is_control()
            || c == '\n'
            || c == '\t'
            || (c == '\r' && matches!(next, Some('\n') | None))
    })
}

/// `text` with every character that `keep` (given it and the character
/// after it) refuses written as its escape ([`char::escape_debug`]);
/// borrowed when there is none.
fn escape_unless(text: &str, keep: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match (&mut out, keep(c, next)) {
            (Some(o), true) => o.push(c),
            (Some(o), false) => o.extend(c.escape_debug()),
            (None, true) => {}
            (None, false) => {
                let mut o = String::with_capacity(text.len() + 8);
                o.push_str(&text[..i]);
                o.extend(c.escape_debug());
                out = Some(o);
            }
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Longest run of a file's reasons in the text rendering, in bytes (the
/// structured result keeps them all).
const MAX_REASON_BYTES: usize = 300;

/// A file's header line in the text rendering (`#rank path [tier relevance] reasons`).
pub(crate) fn file_line(rank: usize, f: &File) -> String {
    let mut reasons = f.reasons.join("; ");
    if reasons.len() > MAX_REASON_BYTES {
        let mut cut = MAX_REASON_BYTES;
        while !reasons.is_char_boundary(cut) {
            cut -= 1;
        }
        reasons.truncate(cut);
        reasons.push('…');
    }
    format!(
        "\n#{} {} {} {}\n",
        rank,
        one_line(&f.path),
        tier_tag(f),
        one_line(&reasons)
    )
}

/// A file's `[tier relevance]` tag, as every text rendering shows it.
fn tier_tag(f: &File) -> String {
    format!("[{} {:.2}]", f.tier.as_str(), f.relevance)
}

/// A gap's `[kind]` or `[kind, critical]` tag, as every text rendering shows it.
fn gap_tag(g: &Gap) -> String {
    format!("[{}{}]", g.kind, if g.critical { ", critical" } else { "" })
}

/// The line above a snippet's text in the text rendering (`--- path:start-end`).
pub(crate) fn range_line(path: &str, start: usize, end: usize) -> String {
    format!("--- {}:{start}-{end}\n", one_line(path))
}

/// What starts a line of a snippet's text in the text rendering that could
/// pass for a line of the answer itself (see [`reads_as_answer_line`]): a
/// docstring line `#2 src/secrets.py [high 0.99] …` read as a second file
/// ranked, and `--- path:1-2`, a handles line or a gap could be forged the
/// same way. Only such lines are marked (two bytes each, counted by the
/// budget: [`snippet_line_bytes`]); every line marked, the `| ` cost 3-4 %
/// of an answer's tokens and edit recall fell on dev-python 61.1 -> 60.6 %
/// and dev-questions 74.8 -> 74.0 (bench, 2026-12-06).
pub(crate) const SNIPPET_MARK: &str = "| ";

/// Whether a line begins the way a line the text rendering writes itself
/// does ([`render_text`]): the header, `stopped early:`, `skipped:`, `not
/// searched:`, `include globs …`, a file's `#N path`, a range line `---
/// path:a-b`, a handles line `   left out`, `Gaps:` and a gap `- [kind]`,
/// the closing `N snippets left out` line, and the mark `|` itself. A
/// snippet line that does is written after [`SNIPPET_MARK`].
pub(crate) fn reads_as_answer_line(line: &str) -> bool {
    const OPENINGS: [&str; 12] = [
        "|",
        "--- ",
        "- [",
        "   left out",
        "Gaps:",
        "ctxloop:",
        "nothing matched:",
        "stopped early:",
        "skipped:",
        "not searched:",
        "include globs",
        "query cut to",
    ];
    let b = line.as_bytes();
    OPENINGS.iter().any(|o| line.starts_with(o))
        || b.first().is_some_and(u8::is_ascii_digit)
        || (b.first() == Some(&b'#') && b.get(1).is_some_and(u8::is_ascii_digit))
}

/// Bytes one line of a snippet's shown text ([`shown_text`], split at
/// `\n`) takes in the text rendering: its mark if it has one, its text and
/// its newline.
pub(crate) fn snippet_line_bytes(line: &str) -> usize {
    let mark = if reads_as_answer_line(line) {
        SNIPPET_MARK.len()
    } else {
        0
    };
    mark + line.len() + 1
}

/// A snippet with text in the text rendering: its range line, then its
/// lines, each that could pass for a line of the answer after
/// [`SNIPPET_MARK`].
pub(crate) fn snippet_lines(path: &str, sn: &Snippet) -> String {
    let mut s = range_line(path, sn.start_line, sn.end_line);
    for line in shown_text(&sn.text).split('\n') {
        if reads_as_answer_line(line) {
            s.push_str(SNIPPET_MARK);
        }
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// The one line naming a file's snippets left out for the budget, as
/// handles an agent can open (`   left out (budget): path:10-40, 88-120`,
/// ranges in the order given), or an empty string when there are none. One
/// line a file, the path written once: a handle line per snippet cost about
/// 15 % of a 6,000-token answer (63 handles on sympy's solveset task).
pub(crate) fn handles_line(path: &str, ranges: &[(usize, usize)]) -> String {
    if ranges.is_empty() {
        return String::new();
    }
    let list: Vec<String> = ranges.iter().map(|(s, e)| format!("{s}-{e}")).collect();
    format!(
        "   left out (budget): {}:{}\n",
        one_line(path),
        list.join(", ")
    )
}

/// A file's snippets in the text rendering: those with text, in the order
/// given (line order, as [`crate::snippets::pack`] leaves them), then the
/// [`handles_line`] of those left out.
pub(crate) fn snippets_block(path: &str, snippets: &[Snippet]) -> String {
    let mut s = String::new();
    let mut left_out = Vec::new();
    for sn in snippets {
        if sn.text.is_empty() {
            left_out.push((sn.start_line, sn.end_line));
        } else {
            s.push_str(&snippet_lines(path, sn));
        }
    }
    s.push_str(&handles_line(path, &left_out));
    s
}

/// One line naming what the walk skipped ("skipped: 3 binary, 1 too large"),
/// or `None` when nothing was.
pub fn skipped_line(out: &RetrieveOutput) -> Option<String> {
    let k = &out.stats.skipped;
    let parts: Vec<String> = [
        (k.binary, "binary"),
        (k.too_large, "too large"),
        (k.minified, "minified"),
        (k.unreadable, "unreadable"),
        (
            k.ignored,
            "excluded by the last cycle's globs (those refine added, and yours if you gave any)",
        ),
        (k.not_read, "not read (stopped early)"),
        (k.links_not_followed, "links not followed"),
        (k.name_not_utf8, "with names not UTF-8"),
        (k.dirs_not_read, "directories not read"),
        (
            k.walk_errors,
            "walk errors (ignore files not parsed in full, entries not read: RUST_LOG=ctxloop=debug names them)",
        ),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    (!parts.is_empty()).then(|| format!("skipped: {}", parts.join(", ")))
}

/// Most skipped files a text rendering names (the rest are counted).
const SKIPPED_FILES_SHOWN: usize = 10;

/// The lines that say what the call did not search although asked to: the
/// include globs that matched no file, and the files and directories it
/// found but could not search (by path, with why). Each line ends in `\n`; empty when neither.
pub(crate) fn unsearched_lines(stats: &Stats) -> String {
    unsearched_lines_as(
        stats,
        |g| format!("{:?}", one_line(g)),
        |p| one_line(p).into_owned(),
        |w| one_line(w).into_owned(),
    )
}

/// [`unsearched_lines`] with each glob, path and reason written by
/// `glob`, `path` and `why` (the Markdown rendering's code spans).
fn unsearched_lines_as(
    stats: &Stats,
    glob: impl Fn(&str) -> String,
    path: impl Fn(&str) -> String,
    why: impl Fn(&str) -> String,
) -> String {
    let mut s = String::new();
    if !stats.unmatched_patterns.is_empty() {
        let globs: Vec<String> = stats.unmatched_patterns.iter().map(|g| glob(g)).collect();
        s.push_str(&format!(
            "include globs that matched no file (each is relative to the root: check its path): {}\n",
            globs.join(", ")
        ));
    }
    if !stats.skipped_files.is_empty() {
        let mut shown: Vec<String> = stats
            .skipped_files
            .iter()
            .take(SKIPPED_FILES_SHOWN)
            .map(|f| format!("{} ({})", path(&f.path), why(&f.reason)))
            .collect();
        let counted = stats.skipped.name_not_utf8 + stats.skipped.dirs_not_read;
        let more = counted.max(stats.skipped_files.len()) - shown.len();
        if more > 0 {
            shown.push(format!("{more} more"));
        }
        s.push_str(&format!("not searched: {}\n", shown.join(", ")));
    }
    if let Some(cut) = &stats.terms_cut {
        let words: Vec<String> = cut.dropped.iter().map(|w| path(w)).collect();
        let more = (cut.total.saturating_sub(cut.kept)).saturating_sub(cut.dropped.len());
        s.push_str(&format!(
            "query cut to {} of the task's {} terms (the rest still name paths and modules): \
             not searched for {}{}; put the words that matter first in the task, or in keywords\n",
            cut.kept,
            cut.total,
            words.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    s
}

/// What an answer with no file says about it: nothing the walk let
/// through holds a word of the task (`no_candidates`), and what to try. An
/// empty list alone read as "nothing here" (probe of 2026-12-07, P13).
fn nothing_matched(out: &RetrieveOutput) -> Option<String> {
    (out.files.is_empty() && out.stop_reason == crate::types::StopReason::NoCandidates).then(|| {
        format!(
            "none of the {} files walked holds a word of the task: name an identifier, file or \
             module of this tree, add keywords (`keywords`, --keyword), or check the root and \
             the include globs",
            out.stats.files_walked
        )
    })
}

/// Compact text for models that read only text content.
pub fn render_text(out: &RetrieveOutput) -> String {
    let mut s = format!(
        "ctxloop: {} files from {} (stop: {}, {} cycle{}, {} files walked, {} ms)\n",
        out.files.len(),
        one_line(&out.root.path),
        out.stop_reason.as_str(),
        out.cycles.len(),
        if out.cycles.len() == 1 { "" } else { "s" },
        out.stats.files_walked,
        out.stats.elapsed_ms
    );
    if let Some(why) = nothing_matched(out) {
        s.push_str(&format!("nothing matched: {why}\n"));
    }
    if let Some(t) = &out.truncated {
        s.push_str(&format!("stopped early: {}\n", t.detail));
    }
    if let Some(line) = skipped_line(out) {
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(&unsearched_lines(&out.stats));
    for (i, f) in out.files.iter().enumerate() {
        s.push_str(&file_line(i + 1, f));
        s.push_str(&snippets_block(&f.path, &f.snippets));
    }
    if !out.gaps.is_empty() {
        s.push_str("\nGaps:\n");
        for g in &out.gaps {
            s.push_str(&format!(
                "- {} {}{}\n",
                gap_tag(g),
                one_line(&g.description),
                if g.suggested_paths.is_empty() {
                    String::new()
                } else {
                    format!(" -> {}", one_line(&g.suggested_paths.join(", ")))
                }
            ));
        }
    }
    if !out.dropped.is_empty() {
        // The handles are under each file already: one line, not the list again.
        s.push_str(&format!(
            "\n{} snippet{} left out to stay within the token budget (ranges under each file)\n",
            out.dropped.len(),
            if out.dropped.len() == 1 { "" } else { "s" }
        ));
    }
    s
}

/// Markdown for people and for sub-agents that read files; `task` is the
/// task the context was gathered for (a sub-agent handed the file sees it).
pub fn render_markdown(out: &RetrieveOutput, task: &str) -> String {
    let mut s = format!(
        "# ctxloop context\n\nTask:{}\nRoot: {} · stop: `{}` · cycles: {} · files walked: {} · {} ms\n\n",
        md_task(task),
        code_span(&out.root.path),
        out.stop_reason.as_str(),
        out.cycles.len(),
        out.stats.files_walked,
        out.stats.elapsed_ms
    );
    if let Some(why) = nothing_matched(out) {
        s.push_str(&format!("**Nothing matched:** {}\n\n", md_text(&why)));
    }
    if let Some(t) = &out.truncated {
        s.push_str(&format!("**Stopped early:** {}\n\n", md_text(&t.detail)));
    }
    if let Some(line) = skipped_line(out) {
        s.push_str(&format!("{line}\n\n"));
    }
    let unsearched = unsearched_lines_as(&out.stats, code_span, code_span, md_text);
    if !unsearched.is_empty() {
        s.push_str(&unsearched.replace('\n', "\n\n"));
    }
    s.push_str("| # | file | tier | relevance | why |\n|---|---|---|---|---|\n");
    for (i, f) in out.files.iter().enumerate() {
        s.push_str(&format!(
            "| {} | {} | {} | {:.2} | {} |\n",
            i + 1,
            code_span(&f.path).replace('|', "\\|"),
            f.tier.as_str(),
            f.relevance,
            md_text(&f.reasons.join("; ")).replace('|', "\\|")
        ));
    }
    for f in &out.files {
        for sn in f.snippets.iter().filter(|sn| !sn.text.is_empty()) {
            let text = shown_text(&sn.text);
            let fence = code_fence(&text);
            s.push_str(&format!(
                "\n## {}:{}-{}\n\n{fence}{}\n{}\n{fence}\n",
                code_span(&f.path),
                sn.start_line,
                sn.end_line,
                fence_lang(&f.path),
                text
            ));
        }
    }
    if !out.gaps.is_empty() {
        s.push_str("\n## Gaps\n\n");
        for g in &out.gaps {
            s.push_str(&format!(
                "- **{}**{}: {} {}\n",
                g.kind,
                if g.critical { " (critical)" } else { "" },
                md_text(&g.description),
                g.suggested_paths
                    .iter()
                    .map(|p| code_span(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !out.dropped.is_empty() {
        let dropped: Vec<String> = out.dropped.iter().map(|d| code_span(d)).collect();
        s.push_str(&format!(
            "\nLeft out for the token budget: {}\n",
            dropped.join(", ")
        ));
    }
    s
}

/// The compact text rendering of a tool's answer: what a model that reads
/// only text content sees beside `structuredContent`. One impl per tool, all
/// in this file.
pub trait Render {
    /// The text rendering, lines ending in `\n`.
    fn text(&self) -> String;
}

impl Render for RetrieveOutput {
    fn text(&self) -> String {
        render_text(self)
    }
}

/// `retrieve` with `content: "structured"`: one summary line, the answer is
/// in `structuredContent`.
pub fn retrieve_summary(out: &RetrieveOutput) -> String {
    format!(
        "ctxloop: {} files from {} (stop: {}); the answer, with snippets, is in structuredContent",
        out.files.len(),
        one_line(&out.root.path),
        out.stop_reason.as_str()
    )
}

impl Render for DispatchOutput {
    fn text(&self) -> String {
        let out = self;
        let mut text = format!(
            "session {} cycle {}: {} candidates ({} files walked)\n",
            out.session_id,
            out.cycle,
            out.candidates.len(),
            out.stats.files_walked
        );
        text.push_str(&unsearched_lines(&out.stats));
        // A later cycle lists only files new or rescored since the last: an
        // empty list said nothing of why (probe of session 37).
        if out.candidates.is_empty() && out.cycle > 1 {
            text.push_str(
                "no new candidates: every file this cycle's query finds was returned in an \
                 earlier cycle with the same score, or is excluded; `evaluate` (judgments) and \
                 `refine` (keywords, globs) change what the next cycle looks for\n",
            );
        }
        for c in &out.candidates {
            text.push_str(&format!(
                "- {} {} {}\n",
                one_line(&c.path),
                tier_tag(c),
                one_line(&c.reasons.join("; "))
            ));
        }
        text
    }
}

impl Render for EvaluateOutput {
    fn text(&self) -> String {
        let out = self;
        let mut text = format!(
            "cycle {}: {} high, decision {}\n",
            out.cycle, out.high_count, out.decision
        );
        for f in &out.evaluations {
            text.push_str(&format!("- {} {}\n", one_line(&f.path), tier_tag(f)));
        }
        for g in &out.gaps {
            text.push_str(&format!(
                "gap {} {} {}\n",
                gap_tag(g),
                one_line(&g.description),
                one_line(&g.suggested_paths.join(", "))
            ));
        }
        text
    }
}

impl Render for RefineOutput {
    /// One line of what the next cycle adds: keywords, include globs, focus
    /// areas, linked candidates and excludes, each list written `none` when
    /// empty. The include globs and linked candidates were left out, and an
    /// empty list printed as nothing (probe of session 37).
    fn text(&self) -> String {
        let out = self;
        let list = |items: &[String]| {
            if items.is_empty() {
                "none".to_string()
            } else {
                items
                    .iter()
                    .map(|i| one_line(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        format!(
            "next cycle {}: done={}{}; added keywords: {}; patterns: {}; focus: {}; linked \
             candidates: {}; excluded: {}",
            out.cycle,
            out.done,
            out.stop_reason
                .map(|r| format!(" ({})", r.as_str()))
                .unwrap_or_default(),
            list(&out.added.keywords),
            list(&out.added.patterns),
            list(&out.added.focus_areas),
            list(&out.added.candidates),
            list(&out.excluded)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_dispatch_with_no_new_candidate_says_why() {
        let out = |cycle| crate::types::DispatchOutput {
            session_id: "s".into(),
            cycle,
            query: Default::default(),
            candidates: Vec::new(),
            dropped: Vec::new(),
            tokens: 0,
            stats: Default::default(),
            truncated: None,
        };
        assert!(out(2).text().contains("\nno new candidates: every file"));
        assert!(!out(1).text().contains("no new candidates"));
    }

    #[test]
    fn refine_text_names_every_kind_it_added_and_none_for_an_empty_list() {
        let out = crate::types::RefineOutput {
            session_id: "s".into(),
            cycle: 2,
            query: Default::default(),
            added: crate::types::Added {
                patterns: vec!["src/**: from the agent".into()],
                candidates: vec!["src/b.py: uses `f` from high file src/a.py".into()],
                ..Default::default()
            },
            excluded: Vec::new(),
            done: false,
            stop_reason: None,
            files: Vec::new(),
        };
        assert_eq!(
            out.text(),
            "next cycle 2: done=false; added keywords: none; patterns: src/**: from the agent; \
             focus: none; linked candidates: src/b.py: uses `f` from high file src/a.py; \
             excluded: none"
        );
    }

    #[test]
    fn snippet_text_keeps_tabs_and_crlf_line_ends_and_escapes_other_controls() {
        let crlf = "def f():\r\n\treturn 1\r";
        assert!(matches!(shown_text(crlf), Cow::Borrowed(t) if t == crlf));
        assert_eq!(shown_text("a\rb\x1b[31m\x07"), "a\\rb\\u{1b}[31m\\u{7}");
        assert_eq!(one_line("a\n#9 b\tc"), "a\\n#9 b\\tc");
    }

    /// `retrieve`'s answer to `task` on the authsvc fixture.
    fn authsvc_answer(task: &str) -> RetrieveOutput {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/authsvc");
        let request = crate::request::RetrieveRequest {
            task: task.into(),
            root: Some(root.into()),
            ..Default::default()
        };
        let engine = crate::engine::Engine::new(Default::default());
        engine
            .retrieve(request, &crate::request::CallOptions::PLAIN)
            .unwrap()
    }

    /// `retrieve`'s answer to the token expiry task on the authsvc fixture.
    fn token_expiry() -> RetrieveOutput {
        authsvc_answer("fix the token expiry bug")
    }

    #[test]
    fn text_and_markdown_say_when_the_call_stopped_early() {
        let mut out = token_expiry();
        assert!(!render_text(&out).contains("stopped early"));
        let detail = "deadline of 10 ms passed in cycle 1 while reading files: 3 of 9 read";
        out.truncated = Some(crate::types::Truncated {
            reason: crate::types::StopReason::Deadline,
            detail: detail.into(),
        });
        assert!(render_text(&out).contains(&format!("stopped early: {detail}")));
        let md = render_markdown(&out, "  fix the token expiry bug ");
        assert!(md.contains("Task: fix the token expiry bug\n"), "{md}");
        assert!(md.contains(&format!("**Stopped early:** {detail}")), "{md}");
    }

    /// An answer with no file says why and what to try, in text and
    /// Markdown; an answer with files does not.
    #[test]
    fn an_empty_answer_says_nothing_matched_and_what_to_try() {
        let out = authsvc_answer("zyxwvut qwertyuiop");
        assert!(out.files.is_empty());
        let text = render_text(&out);
        assert!(text.contains("\nnothing matched: none of the "), "{text}");
        assert!(text.contains("--keyword"), "{text}");
        let md = render_markdown(&out, "zyxwvut qwertyuiop");
        assert!(md.contains("**Nothing matched:** none of the "), "{md}");
        assert!(!render_text(&token_expiry()).contains("nothing matched"));
    }

    /// Every line the text rendering writes itself (not a snippet's)
    /// begins as `reads_as_answer_line` knows, so a snippet line written
    /// the same way is marked: a new kind of line must be added there.
    #[test]
    fn every_line_of_the_answer_reads_as_one_and_code_does_not() {
        let mut out = token_expiry();
        out.truncated = Some(crate::types::Truncated {
            reason: crate::types::StopReason::Deadline,
            detail: "deadline".into(),
        });
        out.stats.skipped.binary = 1;
        out.stats.unmatched_patterns = vec!["nosuch/**".into()];
        out.stats.skipped_files = vec![crate::types::SkippedFile {
            path: "bad".into(),
            reason: "unreadable".into(),
        }];
        out.stats.terms_cut = Some(crate::types::TermsCut {
            kept: 1024,
            total: 1030,
            dropped: vec!["w1".into()],
        });
        out.dropped = vec!["a.py:1-2".into()];
        out.gaps = vec![crate::types::Gap {
            kind: crate::types::GapKind::UndefinedSymbol,
            description: "d".into(),
            symbol: None,
            referenced_from: None,
            suggested_paths: vec![],
            critical: true,
        }];
        for f in &mut out.files {
            for sn in &mut f.snippets {
                sn.text.clear();
            }
            f.snippets.push(Snippet {
                start_line: 1,
                end_line: 1,
                text: "x".into(),
            });
            f.snippets.push(Snippet {
                start_line: 3,
                end_line: 4,
                text: String::new(),
            });
        }
        let text = render_text(&out);
        for line in text.lines().filter(|l| !l.is_empty() && *l != "x") {
            assert!(reads_as_answer_line(line), "{line:?} in\n{text}");
        }
        for code in [
            "def f():",
            "    # 2 cases",
            "#include <a.h>",
            "-x",
            "|x|",
            "",
        ] {
            assert_eq!(reads_as_answer_line(code), code == "|x|", "{code:?}");
        }
    }

    /// A query cut to its 1,024 terms names the words it left out and
    /// how to have them searched (probe P9: it said nothing).
    #[test]
    fn a_cut_query_says_which_words_were_not_searched() {
        let mut out = token_expiry();
        assert!(!render_text(&out).contains("query cut"));
        out.stats.terms_cut = Some(crate::types::TermsCut {
            kept: 1024,
            total: 1100,
            dropped: vec!["session".into(), "__init__".into()],
        });
        let text = render_text(&out);
        assert!(
            text.contains(
                "query cut to 1024 of the task's 1100 terms (the rest still name paths and \
                 modules): not searched for session, __init__ and 74 more; put the words that \
                 matter first in the task, or in keywords\n"
            ),
            "{text}"
        );
        let md = render_markdown(&out, "t");
        assert!(
            md.contains("not searched for `session`, `__init__` and 74 more"),
            "{md}"
        );
    }

    #[test]
    fn text_and_markdown_say_what_was_skipped() {
        let mut out = token_expiry();
        out.stats.skipped = Default::default();
        assert!(!render_text(&out).contains("skipped:"));
        out.stats.skipped.binary = 3;
        out.stats.skipped.too_large = 1;
        let line = "skipped: 3 binary, 1 too large\n";
        assert!(render_text(&out).contains(line), "{}", render_text(&out));
        assert!(render_markdown(&out, "t").contains(line));
        out.stats.skipped.walk_errors = 2;
        let line = "skipped: 3 binary, 1 too large, 2 walk errors (ignore files not parsed in full, entries not read: RUST_LOG=ctxloop=debug names them)\n";
        assert!(render_text(&out).contains(line), "{}", render_text(&out));
    }
}
