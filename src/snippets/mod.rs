//! Snippets and the token budget: the regions of a file that best match the
//! query, and packing them into the budget by rank, tier and relevance.
//!
//! Tokens are estimated as bytes / 4 (the usual rule of thumb for code with
//! BPE tokenizers); the budget covers the per-file part of the text
//! rendering (header lines, snippets, handles), see [`pack`], so packing
//! measures the lines [`crate::render`] writes.
//!
//! The files: `select` (which regions of a file become its snippets),
//! `evidence` (what a line or region holds of the task: terms, verbatim
//! identifiers, quoted literals), `cut` (a region's lines: cut to a length,
//! merged with its neighbours, a window when there are no symbols) and
//! `budget` (packing the answer's files into the token budget).

mod budget;
mod cut;
mod evidence;
mod select;

use crate::corpus::Doc;
use crate::query::TaskQuery;
use crate::types::{File, Snippet};

pub use budget::pack;
pub use select::snippets;

/// Estimated tokens of a text.
pub fn tokens_of(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Estimated tokens of the part of a snippet's text an answer of `budget`
/// tokens could show: its lines before the first that alone holds more
/// than the whole budget. [`pack`] shows a snippet whole or its first
/// lines, so that line and the rest are only ever a handle: a snippet of
/// one 700 KB line counted 175k tokens, and a loop whose answer showed 49
/// stopped as `budget`.
pub fn showable_tokens(text: &str, budget: usize) -> usize {
    let longest = budget.saturating_mul(4);
    let mut at: usize = 0;
    for line in text.split('\n') {
        if line.len() > longest {
            return tokens_of(&text[..at.saturating_sub(1)]);
        }
        at += line.len() + 1;
    }
    tokens_of(text)
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

/// The whole of `doc` as one snippet, when its text is at most
/// `whole_under` tokens (and not empty).
pub fn whole_file(doc: &Doc, whole_under: usize) -> Option<Snippet> {
    let text = doc.text();
    if text.is_empty() || tokens_of(text) > whole_under {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    Some(Snippet {
        start_line: 1,
        end_line: lines.len(),
        text: lines.join("\n"),
    })
}

/// The default post-processing: [`snippets`](PostProcess::snippets) as
/// `select.rs` chooses them, [`pack`](PostProcess::pack) as `budget.rs` packs.
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

    #[test]
    fn a_file_within_the_limit_is_one_snippet_of_all_its_lines() {
        let text = "import os\n\ndef f():\n    return os.sep\n";
        let doc = crate::corpus::Doc::for_test("m.py", text);
        let whole = whole_file(&doc, tokens_of(text)).expect("within the limit");
        assert_eq!((whole.start_line, whole.end_line), (1, 4));
        assert_eq!(whole.text, text.trim_end());
        assert!(whole_file(&doc, tokens_of(text) - 1).is_none());
        assert!(whole_file(&doc, 0).is_none());
        let empty = crate::corpus::Doc::for_test("e.py", "");
        assert!(whole_file(&empty, 1_000).is_none());
    }

    #[test]
    fn showable_tokens_stop_at_the_first_line_longer_than_the_budget() {
        let long = "x".repeat(401);
        assert_eq!(showable_tokens("abcd\nefgh", 100), tokens_of("abcd\nefgh"));
        assert_eq!(showable_tokens(&long, 100), 0);
        assert_eq!(showable_tokens(&format!("abcd\n{long}\nefgh"), 100), 1);
        assert_eq!(showable_tokens(&"x".repeat(400), 100), 100, "it fits");
    }
}
