//! [`TermSet`]: counting a few index terms in many texts with one
//! Aho-Corasick automaton, as full tokenization would count them.

use super::tokenize::{each_long_part, for_each_term_str, is_multi, term_hash, CLASS};

/// A small set of index terms to count in texts, exactly as full tokenization
/// would count them, without tokenizing the whole text.
///
/// A text is case-folded (each byte ORed with 0x20, which lowercases ASCII
/// letters) into a per-thread buffer and searched for the folded terms with
/// one Aho-Corasick automaton, case-sensitively, so that the SIMD ("Teddy")
/// prefilter applies: with `ascii_case_insensitive` the `aho-corasick` crate
/// has no such prefilter and scanned the Linux kernel (1.1 GB) at a third of
/// the speed (2026-11-29). Each identifier holding a match is then run through
/// the tokenizer and its terms looked up by a (first byte, length) bitmap and
/// their hash. Counting this way instead of tokenizing every file (and
/// building a Bloom filter of its terms) cut reading and indexing the Linux
/// kernel from 2.8 s to 0.75-0.8 s (78k files, 1.1 GB, 2 cores, 2026-11-29).
pub struct TermSet {
    /// (hash, slot), sorted by hash.
    by_hash: Vec<(u64, usize)>,
    /// Bit `len` (capped at 63) of row `first byte & 31` is set when a term
    /// of that first byte and length is in the set.
    mask: [u64; 32],
    slots: usize,
    /// The folded terms (`None` if the automaton could not be built).
    automaton: Option<aho_corasick::AhoCorasick>,
}

thread_local! {
    /// The folded copy of the text being scanned (reused: no allocation per file).
    static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl TermSet {
    /// `terms[i]` is counted in slot `i`. Terms must be distinct index terms
    /// (identifiers or their parts; [`term_hash`] ignores case).
    pub fn new(terms: &[(u64, &str)]) -> TermSet {
        let mut mask = [0u64; 32];
        let mut by_hash = Vec::new();
        let mut folded: Vec<Vec<u8>> = Vec::new();
        for (i, &(h, t)) in terms.iter().enumerate() {
            if let Some(&b) = t.as_bytes().first() {
                mask[usize::from(b.to_ascii_lowercase() & 31)] |= 1 << t.len().min(63);
                by_hash.push((h, i));
                folded.push(t.bytes().map(|b| b | 0x20).collect());
            }
        }
        by_hash.sort_unstable();
        // Building fails only past the crate's size limits (not for terms of
        // a task); `count` then tokenizes the whole text instead. A DFA, not
        // the crate's default NFA: past the Teddy prefilter's few dozen
        // patterns (a holder search looks for 50-150 names) the search runs
        // in the automaton, and a DFA's is the fastest (sympy's 144-name
        // holder scan of 1,931 files 53 -> 33 ms; 236 KB for 150 names of
        // 18 bytes). Not for a term longer than any name in code: building
        // the DFA of a run of one letter takes time quadratic in its length
        // (16,000 letters 3.75 s, 100,000 letters 142 s, newcomer probe of
        // 2026-12-06), where the contiguous NFA's build is linear. Task
        // words longer than the same bound (`query::MAX_TERM_BYTES`) are no
        // terms, but the names a holder search looks for come from the files.
        let kind = if folded.iter().any(|t| t.len() > super::MAX_TERM_BYTES) {
            aho_corasick::AhoCorasickKind::ContiguousNFA
        } else {
            aho_corasick::AhoCorasickKind::DFA
        };
        let automaton = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .kind(Some(kind))
            .build(&folded)
            .ok();
        TermSet {
            by_hash,
            mask,
            slots: terms.len(),
            automaton,
        }
    }

    /// Number of slots (terms asked for).
    pub fn len(&self) -> usize {
        self.slots
    }

    /// Whether the set holds no term.
    pub fn is_empty(&self) -> bool {
        self.slots == 0
    }

    /// The slot of index term `s`, if it is in the set (hashes only when the
    /// first byte and length could match).
    #[inline]
    pub fn slot(&self, s: &str) -> Option<usize> {
        let b = s.as_bytes()[0];
        if self.mask[usize::from(b.to_ascii_lowercase() & 31)] >> s.len().min(63) & 1 == 0 {
            return None;
        }
        let h = term_hash(s);
        let i = self.by_hash.partition_point(|&(t, _)| t < h);
        (i < self.by_hash.len() && self.by_hash[i].0 == h).then(|| self.by_hash[i].1)
    }

    /// Occurrences of each term (by slot) among the index terms of `text`:
    /// the counts full tokenization would give.
    pub fn count(&self, text: &str) -> Vec<u32> {
        let mut counts = vec![0u32; self.slots];
        if self.by_hash.is_empty() {
            return counts;
        }
        let Some(ac) = &self.automaton else {
            for_each_term_str(text, |t| {
                if let Some(i) = self.slot(t) {
                    counts[i] += 1;
                }
            });
            return counts;
        };
        let bytes = text.as_bytes();
        let n = bytes.len();
        let is_ident = |b: u8| CLASS[usize::from(b)] != 0;
        FOLDED.with(|f| {
            let mut folded = f.borrow_mut();
            folded.clear();
            folded.extend(bytes.iter().map(|b| b | 0x20));
            let mut pos = 0;
            while let Some(m) = ac.find(aho_corasick::Input::new(&folded[..]).span(pos..n)) {
                let s = m.start();
                // Folding also maps a few non-identifier bytes (0x10-0x19, 0x7f)
                // onto identifier bytes, so a match may run past the end of the
                // identifier it starts in. That identifier is still tokenized
                // whole: a shorter term matching at `s` (hidden behind this
                // match by leftmost-first matching) is counted there.
                let e = match bytes[s..m.end()].iter().position(|&b| !is_ident(b)) {
                    Some(0) => {
                        pos = s + 1;
                        continue;
                    }
                    Some(k) => s + k,
                    None => m.end(),
                };
                // The identifier (maximal run of identifier bytes) holding the match.
                let mut a = s;
                while a > 0 && is_ident(bytes[a - 1]) {
                    a -= 1;
                }
                let mut b = e;
                while b < n && is_ident(bytes[b]) {
                    b += 1;
                }
                pos = b;
                // A run that starts with a digit is a number, not an identifier.
                if CLASS[usize::from(bytes[a])] != 1 {
                    continue;
                }
                let id = &text[a..b];
                if let Some(i) = self.slot(id) {
                    counts[i] += 1;
                }
                if is_multi(id.as_bytes()) {
                    each_long_part(id, |p| {
                        if let Some(i) = self.slot(p) {
                            counts[i] += 1;
                        }
                    });
                }
            }
        });
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// `TermSet::count` gives full tokenization's counts for any list of
        /// distinct terms, in any order, over texts dense in the bytes that
        /// case folding maps onto identifier bytes (0x11, 0x14, 0x7f).
        #[test]
        fn term_set_counts_equal_full_tokenization(
            text in "[fFoO_1b4k\u{11}\u{14}\u{7f} é]{0,40}",
            terms in proptest::collection::vec("[fFoO_1b4k]{1,4}", 1..6),
        ) {
            let mut seen = std::collections::HashSet::new();
            let terms: Vec<(u64, &str)> = terms
                .iter()
                .map(|t| (term_hash(t), t.as_str()))
                .filter(|(h, _)| seen.insert(*h))
                .collect();
            let mut full = vec![0u32; terms.len()];
            for_each_term_str(&text, |t| {
                if let Some(i) = terms.iter().position(|(h, _)| *h == term_hash(t)) {
                    full[i] += 1;
                }
            });
            proptest::prop_assert_eq!(TermSet::new(&terms).count(&text), full);
        }
    }

    #[test]
    fn a_term_hidden_behind_a_false_match_is_counted() {
        // `foo_bar` matches the folded text `foo\x7fbar` (0x7f | 0x20 = 0x7f is
        // `_` folded) and hides the match of `foo` at the same place.
        let terms = [(term_hash("foo_bar"), "foo_bar"), (term_hash("foo"), "foo")];
        assert_eq!(TermSet::new(&terms).count("foo\x7fbar"), [0, 1]);
        let terms = [(term_hash("foo1"), "foo1"), (term_hash("foo"), "foo")];
        assert_eq!(TermSet::new(&terms).count("foo\x11"), [0, 1]);
    }

    #[test]
    fn a_term_of_one_repeated_letter_is_counted() {
        // A name from a hostile file: searched by the NFA, not the DFA.
        let long = "x".repeat(20_000);
        let terms = [(term_hash(&long), long.as_str()), (term_hash("foo"), "foo")];
        let text = format!("foo {long} {long}x foo");
        assert_eq!(TermSet::new(&terms).count(&text), [1, 2]);
    }
}
