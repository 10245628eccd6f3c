//! Task → query: the tokenizer shared by queries and documents, stopwords, and
//! the structural references (paths, dotted modules, `Class.method`) a task names.
//!
//! Measured on the development set (DESIGN.md §4): keeping identifiers whole
//! *and* split gave the largest single gain over plain BM25 (51.0 → 73.2 Acc@5);
//! splitting without keeping the whole identifier was worse than not splitting,
//! and stemming cost about 3 points, so there is no stemming here.

use std::collections::{HashMap, HashSet};

/// A query holds at most this many terms. A task with more distinct terms
/// (a pasted log, a whole document) keeps the most informative ones; the rest
/// still count where the text is searched for paths and modules, not as
/// terms. Informative, decided before any file is read (IDF is not known yet):
/// higher weight first (repeated, in the title, or an agent keyword), then
/// code-like terms, then longer ones (a long word is rarer in code: a proxy
/// for IDF), then the earlier mention. The development set's longest task
/// has about 580 distinct terms, so no task there is cut. The cap bounds
/// per-file scoring work and the term-count matrix (files x terms x 4 bytes:
/// 320 MB at the cap on the Linux kernel's 78k files); without it a task of
/// 8,000 random words took 10 s against a 1 s deadline (probe D5).
pub const MAX_QUERY_TERMS: usize = 1024;

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
static CLASS: [u8; 256] = {
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
fn is_multi(id: &[u8]) -> bool {
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
        // a task); `count` then tokenizes the whole text instead.
        let automaton = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(&folded)
            .ok();
        TermSet {
            by_hash,
            mask,
            slots: terms.len(),
            automaton,
        }
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
fn each_long_part<'a>(id: &'a str, mut f: impl FnMut(&'a str)) {
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

/// Calls `f` with every index term of `text`, lowercased: each identifier whole
/// and, when it has several parts, each part of two or more characters.
#[cfg(test)]
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for_each_term_str(text, |t| {
        buf.clear();
        buf.push_str(t);
        buf.make_ascii_lowercase();
        f(&buf);
    });
}

/// English, language-keyword and task-boilerplate words that carry no signal
/// about *where* a change belongs.
pub fn is_stopword(lower: &str) -> bool {
    STOPWORDS.binary_search(&lower).is_ok() || lower.len() < 2
}

// Sorted for binary search (a unit test checks the order).
const STOPWORDS: &[&str] = &[
    "about",
    "above",
    "actual",
    "actually",
    "add",
    "added",
    "after",
    "again",
    "all",
    "also",
    "always",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "behavior",
    "behaviour",
    "being",
    "below",
    "better",
    "between",
    "both",
    "bug",
    "but",
    "by",
    "call",
    "called",
    "can",
    "cannot",
    "case",
    "cases",
    "change",
    "changed",
    "class",
    "code",
    "com",
    "could",
    "currently",
    "def",
    "defined",
    "description",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "eg",
    "elif",
    "else",
    "end",
    "etc",
    "even",
    "example",
    "expected",
    "false",
    "few",
    "file",
    "files",
    "find",
    "fix",
    "fixed",
    "fixes",
    "fn",
    "following",
    "for",
    "found",
    "from",
    "function",
    "get",
    "gets",
    "getting",
    "github",
    "give",
    "gives",
    "going",
    "got",
    "had",
    "happen",
    "happens",
    "has",
    "have",
    "having",
    "he",
    "here",
    "how",
    "however",
    "https",
    "ie",
    "if",
    "impl",
    "implemented",
    "import",
    "in",
    "instead",
    "into",
    "is",
    "issue",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "line",
    "lines",
    "located",
    "look",
    "looks",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "mut",
    "my",
    "need",
    "needs",
    "new",
    "no",
    "none",
    "not",
    "note",
    "now",
    "of",
    "ok",
    "old",
    "on",
    "one",
    "only",
    "or",
    "other",
    "our",
    "out",
    "output",
    "over",
    "please",
    "print",
    "problem",
    "pub",
    "rather",
    "really",
    "reproduce",
    "result",
    "return",
    "returns",
    "run",
    "running",
    "same",
    "see",
    "seems",
    "self",
    "should",
    "since",
    "so",
    "some",
    "something",
    "still",
    "such",
    "sure",
    "than",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "think",
    "this",
    "those",
    "though",
    "through",
    "to",
    "too",
    "traceback",
    "true",
    "try",
    "trying",
    "two",
    "under",
    "unless",
    "until",
    "up",
    "us",
    "use",
    "used",
    "uses",
    "using",
    "very",
    "via",
    "want",
    "was",
    "way",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "without",
    "work",
    "working",
    "works",
    "would",
    "wrong",
    "www",
    "yet",
    "you",
    "your",
];

/// One weighted query term (lowercased).
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub text: String,
    pub hash: u64,
    /// 1 + ln(occurrences), raised for title and agent keywords.
    pub weight: f64,
    /// Looks like code (`snake_case`, `CamelCase`, has digits, or given as a keyword):
    /// such terms count when a file *defines* them.
    pub is_code: bool,
}

/// What a task (plus agent keywords) asks for, ready to score with.
#[derive(Debug, Clone, Default)]
pub struct TaskQuery {
    pub terms: Vec<Term>,
    /// Identifiers in their original case, candidates for "files that define them".
    pub identifiers: Vec<String>,
    /// File paths named in the text (`a/b.py`, traceback frames), `/`-separated.
    pub paths: Vec<String>,
    /// Dotted names (`pkg.mod.Class`), as `/`-joined path stems to match.
    pub modules: Vec<String>,
    /// Term hash → weight, for fast lookups while scanning text.
    weights: rustc_hash::FxHashMap<u64, f64>,
}

/// Extensions that make a token a file path even without a `/`.
const PATH_EXTENSIONS: &[&str] = &[
    "py", "rs", "js", "jsx", "ts", "tsx", "go", "java", "c", "h", "cc", "cpp", "hpp", "cs", "rb",
    "php", "toml", "yaml", "yml", "json", "cfg", "ini", "md", "rst", "txt", "kt", "swift", "scala",
];

impl TaskQuery {
    /// Builds the query from the task text and extra agent keywords.
    pub fn new(task: &str, keywords: &[String]) -> TaskQuery {
        TaskQuery::with_feedback(task, keywords, &[], &|| false)
    }

    /// Like [`TaskQuery::new`], plus pseudo-relevance feedback terms (gap symbols)
    /// that count like a single mention in the body: they may add files, but must
    /// not outweigh what the task says. Linear in the length of the texts; at
    /// most [`MAX_QUERY_TERMS`] terms. Once `stop` returns true (checked every
    /// 1,024 identifiers) the rest of the text is not read: the query holds
    /// the terms found so far.
    pub fn with_feedback(
        task: &str,
        keywords: &[String],
        feedback: &[String],
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        // term → (occurrence weight, code-like, order of first mention)
        let mut counts: HashMap<String, (f64, bool, usize)> = HashMap::new();
        let mut idents: Vec<String> = Vec::new();
        let mut seen_idents: HashSet<String> = HashSet::new();
        let mut read = 0usize;
        let mut stopped = false;
        let title = task.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        // `bonus` < 0 marks feedback: counted once, never a "task identifier".
        let mut add = |text: &str, bonus: f64, counts: &mut HashMap<String, (f64, bool, usize)>| {
            for (_, id) in identifiers(text) {
                read += 1;
                if stopped || (read.is_multiple_of(1024) && stop()) {
                    stopped = true;
                    return;
                }
                let next = counts.len();
                let lower = id.to_ascii_lowercase();
                let parts = split_identifier(id);
                let code_like = parts.len() > 1
                    || id.bytes().any(|b| b.is_ascii_digit())
                    || id[1..].bytes().any(|b| b.is_ascii_uppercase());
                if !is_stopword(&lower) {
                    let e = counts.entry(lower).or_insert((0.0, false, next));
                    e.0 += 1.0 + bonus.max(0.0);
                    e.1 |= code_like || bonus >= 2.0;
                    if bonus >= 0.0 && !seen_idents.contains(id) {
                        seen_idents.insert(id.to_string());
                        idents.push(id.to_string());
                    }
                }
                // A feedback symbol is searched whole: its parts (`error`,
                // `inode` of `__ext4_error_inode`) are common words that
                // locate nothing, and counting them over a large tree cost
                // a full scan per cycle (2 s on the Linux kernel).
                if parts.len() > 1 && bonus >= 0.0 {
                    // Two letters split off by case alone (`La`, `Te` of
                    // `LaTeX`) are fragments, not words: parts of two
                    // letters count only between underscores.
                    let min = if id.contains('_') { 2 } else { 3 };
                    for p in parts {
                        let pl = p.to_ascii_lowercase();
                        if p.len() >= min && !is_stopword(&pl) {
                            let next = counts.len();
                            counts.entry(pl).or_insert((0.0, false, next)).0 += 1.0;
                        }
                    }
                }
            }
        };
        add(task, 0.0, &mut counts);
        // The title states the task; the rest is often logs and discussion.
        add(title, 1.0, &mut counts);
        for k in keywords {
            add(k, 2.0, &mut counts);
        }
        for k in feedback {
            add(k, -1.0, &mut counts);
        }
        let mut terms: Vec<(Term, usize)> = counts
            .into_iter()
            .map(|(text, (n, is_code, first))| {
                let term = Term {
                    hash: term_hash(&text),
                    weight: 1.0 + n.ln(),
                    text,
                    is_code,
                };
                (term, first)
            })
            .collect();
        if terms.len() > MAX_QUERY_TERMS {
            // The most informative (see MAX_QUERY_TERMS); an O(n) selection.
            let key = |(t, first): &(Term, usize)| {
                (
                    std::cmp::Reverse(t.weight.to_bits()),
                    !t.is_code,
                    std::cmp::Reverse(t.text.len()),
                    *first,
                )
            };
            terms.select_nth_unstable_by_key(MAX_QUERY_TERMS - 1, key);
            terms.truncate(MAX_QUERY_TERMS);
        }
        let mut terms: Vec<Term> = terms.into_iter().map(|(t, _)| t).collect();
        terms.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.text.cmp(&b.text)));
        // Identifiers whose term was kept.
        let kept: HashSet<u64> = terms.iter().map(|t| t.hash).collect();
        idents.retain(|id| kept.contains(&term_hash(id)));
        let (paths, modules) = structural_references(task);
        TaskQuery {
            weights: terms.iter().map(|t| (t.hash, t.weight)).collect(),
            terms,
            identifiers: idents,
            paths,
            modules,
        }
    }

    /// Weight of a term by hash, if it is a query term.
    pub fn weight_of(&self, hash: u64) -> Option<f64> {
        self.weights.get(&hash).copied()
    }
}

/// File paths and dotted module names written in the text.
fn structural_references(text: &str) -> (Vec<String>, Vec<String>) {
    let mut paths = Vec::new();
    let mut modules = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_-./\\".contains(c);
    for raw in text.split(|c: char| !is_path_char(c)) {
        let token = raw.trim_matches(|c: char| c == '.' || c == '-');
        if token.len() < 3 {
            continue;
        }
        let token = token.replace('\\', "/");
        let ext = token.rsplit_once('.').map(|(_, e)| e);
        let has_ext = ext.is_some_and(|e| PATH_EXTENSIONS.contains(&e));
        if has_ext && (token.contains('/') || token.matches('.').count() == 1) {
            // Keep the part after the last `site-packages/` or absolute prefix.
            let p = token
                .rsplit_once("site-packages/")
                .map_or(token.as_str(), |(_, p)| p);
            let p = p.trim_start_matches('/').to_string();
            if seen.insert(format!("p{p}")) {
                paths.push(p);
            }
        } else if !token.contains('/') && token.matches('.').count() >= 1 && !has_ext {
            let segs: Vec<&str> = token.split('.').collect();
            let is_ident = |s: &str| {
                !s.is_empty()
                    && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && !s.as_bytes()[0].is_ascii_digit()
            };
            if segs.len() >= 2 && segs.iter().all(|s| is_ident(s)) {
                let m = segs.join("/");
                if seen.insert(format!("m{m}")) {
                    modules.push(m);
                }
            }
        }
    }
    (paths, modules)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// The eight-bytes-at-a-time identifier scan finds exactly what the
        /// byte-by-byte definition ([`identifiers`]) finds, whatever the bytes.
        #[test]
        fn the_fast_scan_finds_the_same_identifiers(text in "[a-zA-Z0-9_ .,()\\[\\]{}@`~\\n\t:é€-]{0,120}") {
            let mut fast = Vec::new();
            each_identifier(&text, |id, _| fast.push(id));
            let slow: Vec<&str> = identifiers(&text).map(|(_, id)| id).collect();
            proptest::prop_assert_eq!(fast, slow);
        }

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
    fn every_byte_is_classified_like_the_table() {
        for b in 0u8..=255 {
            let w = u64::from(b) << 24 | 0x2020_2020_2020_2020 & !(0xff << 24);
            let fast = ident_bytes(w) >> 24 & 0x80 != 0;
            assert_eq!(fast, CLASS[usize::from(b)] != 0, "byte {b:#x}");
        }
    }

    #[test]
    fn filler_words_and_case_split_fragments_are_not_terms() {
        let q = TaskQuery::new("where is the LaTeX printer for Integral implemented", &[]);
        let terms: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        for t in ["latex", "printer", "integral"] {
            assert!(terms.contains(&t), "{t}: {terms:?}");
        }
        for t in ["la", "te", "where", "implemented"] {
            assert!(!terms.contains(&t), "{t}: {terms:?}");
        }
        let q = TaskQuery::new("where is url_for defined or located", &[]);
        let terms: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        assert!(
            terms.contains(&"url_for") && terms.contains(&"url"),
            "{terms:?}"
        );
        assert!(
            !terms.contains(&"defined") && !terms.contains(&"located"),
            "{terms:?}"
        );
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
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

    #[test]
    fn task_query_drops_boilerplate_and_weights_repeats() {
        let q = TaskQuery::new(
            "Fix the token expiry bug\nThe token expires too early.",
            &[],
        );
        let names: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        assert!(
            names.contains(&"token") && names.contains(&"expiry"),
            "{names:?}"
        );
        assert!(!names.contains(&"fix") && !names.contains(&"the") && !names.contains(&"bug"));
        let token = q.terms.iter().find(|t| t.text == "token").unwrap();
        let expires = q.terms.iter().find(|t| t.text == "expires").unwrap();
        assert!(
            token.weight > expires.weight,
            "repeated and title terms weigh more"
        );
    }

    #[test]
    fn a_task_of_thousands_of_words_keeps_the_most_informative_terms() {
        // 8,000 distinct words (a pasted log, probe D5) after a title.
        let mut task = String::from("ZorblaxHandler drops events\n");
        let mut x: u64 = 1;
        for _ in 0..8000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            task.push_str(&format!("w{:x} ", x >> 40));
        }
        task.push_str("\nplain_word_mentioned_last");
        let q = TaskQuery::new(&task, &["keyword_given".into()]);
        assert_eq!(q.terms.len(), MAX_QUERY_TERMS);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        // The title's terms and the agent's keyword weigh most; a code-like
        // term mentioned once outranks the plain words.
        for t in [
            "zorblaxhandler",
            "zorblax",
            "handler",
            "drops",
            "events",
            "keyword_given",
        ] {
            assert!(has(t), "{t} kept");
        }
        assert!(has("plain_word_mentioned_last"), "code-like terms are kept");
        // Task identifiers are those whose term was kept.
        assert!(q.identifiers.contains(&"ZorblaxHandler".to_string()));
        assert!(q.identifiers.len() <= MAX_QUERY_TERMS + 1);
        assert!(q
            .identifiers
            .iter()
            .all(|i| q.weight_of(term_hash(i)).is_some()));
        // A stopped call reads no more of the task than it had read.
        let q = TaskQuery::with_feedback(&task, &[], &[], &|| true);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        assert!(has("zorblax") && !has("plain_word_mentioned_last"));
    }

    #[test]
    fn paths_and_modules_are_pulled_out() {
        let q = TaskQuery::new(
            "Error in sympy.core.expr when calling\n  File \"/usr/lib/python3/site-packages/sympy/printing/latex.py\", line 3, in f\nsee src\\auth\\token.rs",
            &[],
        );
        assert!(
            q.paths.contains(&"sympy/printing/latex.py".to_string()),
            "{:?}",
            q.paths
        );
        assert!(
            q.paths.contains(&"src/auth/token.rs".to_string()),
            "{:?}",
            q.paths
        );
        assert!(
            q.modules.contains(&"sympy/core/expr".to_string()),
            "{:?}",
            q.modules
        );
    }
}
