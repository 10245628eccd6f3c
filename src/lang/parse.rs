//! Parsing a file and reading its symbols, bounded by the call's stop and
//! the file's parse budget.

use super::clock::{parse_budget, ParseClock};
use super::header::grammar_for;
use super::kinds::{Cap, Symbols};
use super::table::{compiled, LanguageSpec};
use super::tags::symbols_of;
use tree_sitter::{ParseOptions, Parser};

/// The parse budget's clock is read at every this many progress checks
/// (each 100 parser or query operations): a thread's CPU clock is a system
/// call, not the vDSO's, and read at every check it was 2.4 % of a cold
/// call's samples on sympy (`perf`, 2026-12-06). 16 checks are well under a
/// millisecond of parsing, against a budget of 250 ms or more.
const CLOCK_EVERY: u32 = 16;

/// Parses `text` as `spec`'s language and runs its tags query. Returns empty
/// symbols when the grammar cannot parse the text at all.
pub fn symbols(spec: &LanguageSpec, text: &str) -> Symbols {
    symbols_until(spec, text, &|| false)
}

/// [`symbols`], bounded: the parse and the tags query stop as soon as `stop`
/// returns true (checked every 100 parser or query operations) or the file's
/// [`parse_budget`] is spent (checked every [`CLOCK_EVERY`] × 100). The symbols then come back empty, with
/// [`Symbols::capped`] saying why: a file is ranked on its full symbols or on
/// its text alone, never on part of them.
pub fn symbols_until(spec: &LanguageSpec, text: &str, stop: &dyn Fn() -> bool) -> Symbols {
    let capped = |cap| Symbols {
        capped: Some(cap),
        ..Symbols::default()
    };
    if stop() {
        return capped(Cap::Stopped);
    }
    let spec = grammar_for(spec, text);
    let c = compiled(spec);
    let mut parser = Parser::new();
    if parser.set_language(&c.language).is_err() {
        return Symbols::default();
    }
    let (started, budget) = (ParseClock::start(), parse_budget(text.len()));
    let cap = std::cell::Cell::new(None);
    let checks = std::cell::Cell::new(0u32);
    let check = || {
        checks.set(checks.get().wrapping_add(1));
        if stop() {
            cap.set(Some(Cap::Stopped));
        } else if checks.get().is_multiple_of(CLOCK_EVERY) && started.elapsed() > budget {
            cap.set(Some(Cap::Budget));
        }
        cap.get().is_some()
    };
    let bytes = text.as_bytes();
    let mut progress = |_: &tree_sitter::ParseState| check();
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    let tree = match (cap.get(), tree) {
        (Some(c), _) => return capped(c),
        (None, None) => return Symbols::default(),
        (None, Some(tree)) => tree,
    };
    // A query that stopped early found only part of the symbols: none are kept.
    symbols_of(c, &tree, text, &check).unwrap_or_else(|| capped(cap.get().unwrap_or(Cap::Stopped)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::language_of;

    #[test]
    fn a_parse_stops_when_the_call_is_stopped_and_says_so() {
        // Error recovery over unclosed brackets: tree-sitter's slow case (D4).
        let mut src = String::from("def zorblax_handler():\n    pass\n");
        while src.len() < 200_000 {
            src.push_str(&"(".repeat(60));
            src.push('\n');
        }
        let spec = language_of("n.py").unwrap();
        // The call is stopped after a few progress checks (its deadline or a cancel).
        let checks = std::cell::Cell::new(0);
        let stop = || {
            checks.set(checks.get() + 1);
            checks.get() > 3
        };
        let s = symbols_until(spec, &src, &stop);
        assert_eq!(s.capped, Some(Cap::Stopped));
        assert!(s.definitions.is_empty() && s.references.is_empty());
        assert_eq!(checks.get(), 4, "no check after the stop");
        // Stopped before it starts: nothing is parsed.
        assert_eq!(
            symbols_until(spec, &src, &|| true).capped,
            Some(Cap::Stopped)
        );
        // Unstopped, an ordinary file is parsed in full and not capped.
        let s = symbols_until(spec, "def zorblax_handler():\n    pass\n", &|| false);
        assert_eq!(s.capped, None);
        assert_eq!(s.definitions.len(), 1);
    }
}
