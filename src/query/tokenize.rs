//! The tokenizer shared by queries and documents: identifiers (a SWAR scan,
//! eight bytes at a time), their parts, and the 64-bit term hash.
//!
//! Measured on the development set (DESIGN.md §4): keeping identifiers whole
//! *and* split gave the largest single gain over plain BM25 (51.0 → 73.2 Acc@5);
//! splitting without keeping the whole identifier was worse than not splitting,
//! and stemming cost about 3 points, so there is no stemming here.

/// 64-bit hash of a term, case-folded: the term's identity in document
/// statistics (collisions are negligible at corpus sizes of 10^6 terms).
/// Eight bytes at a time, each byte ORed with 0x20 (which lowercases ASCII
/// letters and leaves digits unchanged), then a multiply-rotate step per word
/// and the murmur3 finaliser. Hashing byte by byte (FNV-1a) was the largest
/// single cost of indexing the Linux kernel when every term was hashed.
#[inline]
pub fn term_hash(term: &str) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    const FOLD: u64 = 0x2020_2020_2020_2020;
    let b = term.as_bytes();
    let mut h = (b.len() as u64).wrapping_mul(K);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8-byte chunk")) | FOLD;
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // The last (partial) word, assembled without a memcpy call: this is
        // the whole term for most identifiers.
        let mut w = 0u64;
        for (i, &c) in rest.iter().enumerate() {
            w |= u64::from(c | 0x20) << (8 * i);
        }
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    // murmur3 fmix64
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Byte classes for the tokenizer: 1 = letter or `_` (may start an
/// identifier), 2 = digit.
pub(super) static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_alphabetic() || b == b'_' {
            1
        } else if b.is_ascii_digit() {
            2
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Calls `f(identifier, multi)` for each identifier of `text` (as
/// [`identifiers`] finds them), `multi` telling whether it may split into
/// parts (has `_` or a case change). One pass over the bytes, no allocation.
#[inline]
fn each_identifier<'a>(text: &'a str, mut f: impl FnMut(&'a str, bool)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let mut i = 0;
    while i < n {
        // Skip to the next identifier byte, eight bytes at a time.
        if i + 8 <= n {
            let m = ident_bytes(word(i));
            if m == 0 {
                i += 8;
                continue;
            }
            i += (m.trailing_zeros() / 8) as usize;
        } else if CLASS[usize::from(bytes[i])] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        // The end of the run of identifier bytes.
        loop {
            if i + 8 <= n {
                let m = !ident_bytes(word(i)) & HIGH;
                if m == 0 {
                    i += 8;
                    continue;
                }
                i += (m.trailing_zeros() / 8) as usize;
                break;
            }
            while i < n && CLASS[usize::from(bytes[i])] != 0 {
                i += 1;
            }
            break;
        }
        // A run that starts with a digit is a number, not an identifier.
        if CLASS[usize::from(bytes[start])] == 1 {
            let id = &bytes[start..i];
            f(&text[start..i], is_multi(id));
        }
    }
}

const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

#[inline]
const fn splat(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

/// The high bit of each byte of `w` (little-endian) that is `[A-Za-z0-9_]`,
/// computed for all eight bytes at once (SWAR): each byte's comparison sums
/// stay below 0x100, so no carry crosses into the next byte.
#[inline]
fn ident_bytes(w: u64) -> u64 {
    let ascii = !w & HIGH;
    let x = w & LOW7;
    // x >= lo  <=>  high bit of x + (0x80 - lo);  x > hi  <=>  high bit of x + (0x7f - hi).
    let at_least = |v: u64, lo: u8| (v + splat(0x80 - lo)) & HIGH;
    let above = |v: u64, hi: u8| (v + splat(0x7f - hi)) & HIGH;
    let lower = x | splat(0x20);
    let letter = at_least(lower, b'a') & !above(lower, b'z');
    let digit = at_least(x, b'0') & !above(x, b'9');
    let y = x ^ splat(b'_');
    let underscore = !(((y & LOW7) + LOW7) | y) & HIGH;
    (letter | digit | underscore) & ascii
}

/// Whether an identifier may split into parts: it has `_`, a lower/digit →
/// upper change, or an acronym followed by a word (`HTTPServer`).
#[inline]
pub(super) fn is_multi(id: &[u8]) -> bool {
    let mut prev = 0u8;
    let mut prev2 = 0u8;
    for &c in id {
        if c == b'_'
            || (c.is_ascii_uppercase() && !prev.is_ascii_uppercase() && prev != b'_' && prev != 0)
            || (c.is_ascii_lowercase() && prev.is_ascii_uppercase() && prev2.is_ascii_uppercase())
        {
            return true;
        }
        prev2 = prev;
        prev = c;
    }
    false
}

/// Identifiers in `text`: maximal runs of ASCII letters, digits and `_` that do
/// not start with a digit.
pub fn identifiers(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphabetic() || b == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                return Some((start, &text[start..i]));
            } else if b.is_ascii_digit() {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// The parts of an identifier: split at `_`, at lower→upper case changes and
/// before the last capital of an acronym (`HTTPServer` → `HTTP`, `Server`).
/// Digits stay with the letters before them. Returns the parts in original case.
pub fn split_identifier(id: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    each_part(id, |p| parts.push(p));
    parts
}

/// Calls `f` with every index term of `text` as a slice in its original case
/// (what [`for_each_term_hash`] hashes), without allocating.
#[inline]
pub fn for_each_term_str<'a>(text: &'a str, mut f: impl FnMut(&'a str)) {
    each_identifier(text, |id, multi| {
        f(id);
        if multi {
            each_long_part(id, &mut f);
        }
    });
}

/// Calls `f` with each part of `id` (see [`split_identifier`]), without allocating.
#[inline]
fn each_part<'a>(id: &'a str, mut f: impl FnMut(&'a str)) {
    let b = id.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // One `_`-separated chunk: [i, end).
        if b[i] == b'_' {
            i += 1;
            continue;
        }
        let chunk = i;
        let mut end = i;
        while end < b.len() && b[end] != b'_' {
            end += 1;
        }
        let mut start = chunk;
        for j in chunk + 1..end {
            let (prev, cur) = (b[j - 1], b[j]);
            let boundary = cur.is_ascii_uppercase()
                && (prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && j + 1 < end && b[j + 1].is_ascii_lowercase()));
            if boundary {
                f(&id[start..j]);
                start = j;
            }
        }
        f(&id[start..end]);
        i = end;
    }
}

/// Calls `f` with each part of two or more bytes that [`for_each_term_hash`]
/// yields for a multi-part identifier (none when it has a single part).
#[inline]
pub(super) fn each_long_part<'a>(id: &'a str, mut f: impl FnMut(&'a str)) {
    // One pass: the first part is held back until a second one shows the
    // identifier really splits.
    let mut first: Option<&'a str> = None;
    let mut n = 0;
    each_part(id, |p| {
        n += 1;
        if n == 1 {
            first = Some(p);
            return;
        }
        if n == 2 {
            if let Some(p0) = first.filter(|p0| p0.len() >= 2) {
                f(p0);
            }
        }
        if p.len() >= 2 {
            f(p);
        }
    });
}

/// Hashes of every index term of `text` (as [`for_each_term`] yields them,
/// hashed with [`term_hash`]) without building the strings: the hot loop of
/// indexing a file.
pub fn for_each_term_hash(text: &str, mut f: impl FnMut(u64)) {
    each_identifier(text, |id, multi| {
        f(term_hash(id));
        if multi {
            each_long_part(id, |p| f(term_hash(p)));
        }
    });
}

/// Slots of the table of recently split identifiers in
/// [`for_each_term_hash_split_once`].
const SPLIT_SEEN: usize = 512;

/// [`for_each_term_hash`] for a filter of a text's distinct terms: every
/// identifier's hash goes to `f`, but the parts of an identifier split
/// shortly before (a direct-mapped table of 512 whole-identifier hashes per
/// text) are not split and hashed again, unless `f` returned true for one
/// of its parts' hashes (a term whose every occurrence is counted). So each
/// part of the text reaches `f` at least once, and each occurrence of a
/// counted part exactly as [`for_each_term_hash`] gives it. Tokenizing for
/// the filters was a quarter of a cold call's CPU on the Linux kernel
/// (`perf`: `for_each_term_hash` 26 %); splitting each repeat once cut that
/// call from 4.12 to 3.77 s.
pub fn for_each_term_hash_split_once(text: &str, mut f: impl FnMut(u64) -> bool) {
    let mut split = [0u64; SPLIT_SEEN];
    each_identifier(text, |id, multi| {
        let h = term_hash(id);
        f(h);
        if !multi {
            return;
        }
        let slot = &mut split[(h >> 55) as usize % SPLIT_SEEN];
        if *slot == h && h != 0 {
            return;
        }
        let mut counted = false;
        each_long_part(id, |p| counted |= f(term_hash(p)));
        *slot = if counted { 0 } else { h };
    });
}

/// The parts of a file-name identifier: [`each_long_part`]'s, or, for an
/// identifier of one part that underscores around it made longer
/// (`_border`, `__init__`, `border_`), that one word. So `_border.py` (a
/// Python private module, a Sass or Rails partial `_form.html.erb`) is
/// named by "border" as `_help_panel.py` is by "panel". File names only:
/// in a body, `self._print(...)` is a call, not the word "print" (measured:
/// reading bodies this way too moved sympy-11400's snippets off its edit).
fn each_name_part<'a>(id: &'a str, mut f: impl FnMut(&'a str)) {
    each_long_part(id, &mut f);
    let word = id.trim_matches('_');
    if word.len() >= 2 && word.len() < id.len() && !is_multi(word.as_bytes()) {
        f(word);
    }
}

/// [`for_each_term_hash`] for a path or file name, with `each_name_part`'s
/// parts.
pub fn for_each_name_term_hash(name: &str, mut f: impl FnMut(u64)) {
    each_identifier(name, |id, multi| {
        f(term_hash(id));
        if multi {
            each_name_part(id, |p| f(term_hash(p)));
        }
    });
}

/// The words of a file name, as term hashes: for each identifier of `name`
/// (a file stem such as `IndianScaleStyle` or `line_gen`), its own hash and
/// the hashes of its parts (`each_name_part`: `_border` has `border`).
/// [`crate::score`] compares them with a query's terms to tell a file named
/// by a query word (`Style.cs`) from one whose name only holds it among
/// others (`IndianScaleStyle.cs`).
pub fn name_words(name: &str) -> Vec<(u64, Vec<u64>)> {
    let mut out = Vec::new();
    each_identifier(name, |id, multi| {
        let mut parts = Vec::new();
        if multi {
            each_name_part(id, |p| parts.push(term_hash(p)));
        }
        out.push((term_hash(id), parts));
    });
    out
}

/// Calls `f` with every index term of `text`, lowercased: each identifier whole
/// and, when it has several parts, each part of two or more characters.
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for_each_term_str(text, |t| {
        buf.clear();
        buf.push_str(t);
        buf.make_ascii_lowercase();
        f(&buf);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// The eight-bytes-at-a-time identifier scan finds exactly what the
        /// byte-by-byte definition ([`identifiers`]) finds, whatever the bytes.
        /// Splitting a repeated identifier once gives the same distinct
        /// terms as splitting every occurrence, and every occurrence of the
        /// kept terms.
        #[test]
        fn splitting_repeats_once_keeps_every_term_and_every_kept_count(
            text in "(fooBar|foo_bar|Foo|bar_baz|bazQux|x1|_ab_cd| |\\.|\n){0,60}",
        ) {
            use std::collections::{BTreeMap, BTreeSet};
            let mut all: BTreeMap<u64, usize> = BTreeMap::new();
            for_each_term_hash(&text, |h| *all.entry(h).or_default() += 1);
            let kept = term_hash("bar");
            let mut once: BTreeMap<u64, usize> = BTreeMap::new();
            for_each_term_hash_split_once(&text, |h| {
                *once.entry(h).or_default() += 1;
                h == kept
            });
            let distinct = |m: &BTreeMap<u64, usize>| m.keys().copied().collect::<BTreeSet<u64>>();
            proptest::prop_assert_eq!(distinct(&all), distinct(&once));
            proptest::prop_assert_eq!(all.get(&kept), once.get(&kept));
        }

        #[test]
        fn the_fast_scan_finds_the_same_identifiers(text in "[a-zA-Z0-9_ .,()\\[\\]{}@`~\\n\t:é€-]{0,120}") {
            let mut fast = Vec::new();
            each_identifier(&text, |id, _| fast.push(id));
            let slow: Vec<&str> = identifiers(&text).map(|(_, id)| id).collect();
            proptest::prop_assert_eq!(fast, slow);
        }

    }

    #[test]
    fn every_byte_is_classified_like_the_table() {
        for b in 0u8..=255 {
            let w = u64::from(b) << 24 | 0x2020_2020_2020_2020 & !(0xff << 24);
            let fast = ident_bytes(w) >> 24 & 0x80 != 0;
            assert_eq!(fast, CLASS[usize::from(b)] != 0, "byte {b:#x}");
        }
    }

    #[test]
    fn identifiers_are_split_at_case_and_underscores() {
        assert_eq!(split_identifier("SessionManager"), ["Session", "Manager"]);
        assert_eq!(split_identifier("session_manager"), ["session", "manager"]);
        assert_eq!(split_identifier("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(
            split_identifier("parse_utf8Bytes"),
            ["parse", "utf8", "Bytes"]
        );
        assert_eq!(split_identifier("x"), ["x"]);
    }

    #[test]
    fn terms_keep_identifiers_whole_and_split() {
        let mut terms = Vec::new();
        for_each_term("let m = SessionManager::new(); 42", |t| {
            terms.push(t.to_string())
        });
        assert_eq!(
            terms,
            ["let", "m", "sessionmanager", "session", "manager", "new"]
        );
    }

    #[test]
    fn underscores_around_one_word_of_a_file_name_do_not_hide_it() {
        let mut names = Vec::new();
        for_each_name_term_hash("src/_border.py __init__ _x _help_panel", |h| names.push(h));
        for word in ["border", "init", "help", "panel"] {
            assert!(names.contains(&term_hash(word)), "{word}");
        }
        assert!(!names.contains(&term_hash("x")));
        // Bodies keep reading `_border` as one term.
        let mut body = Vec::new();
        for_each_term_hash("_border", |h| body.push(h));
        assert_eq!(body, [term_hash("_border")]);
    }

    #[test]
    fn term_hashes_match_the_terms() {
        for text in [
            "let m = SessionManager::new(); 42 HTTPServer a_b_c x2Y",
            "plain words only",
            "__init__ _x",
        ] {
            let mut a = Vec::new();
            for_each_term(text, |t| a.push(term_hash(t)));
            let mut b = Vec::new();
            for_each_term_hash(text, |h| b.push(h));
            assert_eq!(a, b, "{text}");
        }
    }
}
