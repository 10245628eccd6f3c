//! File contents and their index statistics, cached by (path, size, mtime).
//!
//! A [`Doc`] is built once per version of a file: lossily decoded text, its
//! length in index terms (BM25 document length), the terms of its path, and
//! lazily its tree-sitter symbols and full term counts. The cache key includes
//! size and mtime, so an edited file is re-read on the next call and never
//! served stale.
//!
//! Term frequencies over a whole corpus come from [`term_counts`]: one pass
//! per file that walks its identifiers and hashes only those whose first
//! byte and length match a wanted term ([`TermSet`]), so the counts are
//! exactly what full tokenization would give without building a term table
//! per file. Tokenizing every file into a table was 60% of a cold call on the
//! Linux kernel (78k files, perf, 2026-11-29). Counts are memoised per file
//! version, so a repeated query does not rescan.

use crate::lang::{self, LanguageSpec, Symbols};
use crate::query::{for_each_term_hash, for_each_term_str, term_hash, TermSet};
use crate::walk::Entry;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Files above this many bytes are skipped as `too_large` (DESIGN.md: 1 MiB).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// A file whose mean line length exceeds this many bytes is treated as minified
/// or generated (hand-written code averages 30–60 bytes a line).
const MINIFIED_MEAN_LINE: usize = 300;
/// The cache holds file versions up to about this many bytes (text plus term
/// statistics). Past it, only the files of the latest call are kept, so memory
/// is bounded by the largest tree searched, not by the number of trees or calls.
const MAX_CACHED_BYTES: usize = 768 * 1024 * 1024;

/// Why a file was not indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Binary,
    TooLarge,
    Minified,
    Unreadable,
    /// Not read: the call's deadline passed or it was cancelled.
    NotRead,
}

/// The 3 bits a term of hash `h` sets in its Bloom word (the word is chosen by
/// the low bits of `h`, the bits by three 6-bit fields of its high bits).
#[inline]
fn bloom_bits(h: u64) -> u64 {
    (1 << (h >> 40 & 63)) | (1 << (h >> 46 & 63)) | (1 << (h >> 52 & 63))
}

/// Memoised term counts per file version above this many entries are replaced
/// by the file's full term counts (a file asked about that often is hot).
const MAX_MEMO_TERMS: usize = 384;

/// One indexed version of a file.
#[derive(Debug)]
pub struct Doc {
    pub text: String,
    /// Number of index terms (BM25 document length).
    pub len: u32,
    /// (term hash, count) of every term, sorted by hash; built on first need.
    terms: OnceLock<Vec<(u64, u32)>>,
    /// (term hash, count) of the terms scanned for so far (zeros included).
    memo: Mutex<Vec<(u64, u32)>>,
    /// Bloom filter of the body's terms, blocked: each term sets 3 bits of one
    /// 64-bit word (one memory access per term), about one bit per byte of
    /// text in all (about 1% false positives at the term densities of source
    /// code). A term it rejects is certainly absent.
    bloom: Box<[u64]>,
    /// Hashes of the terms of the relative path (directories and file name).
    pub path_terms: Vec<u64>,
    /// Hashes of the terms of the file name's stem only.
    pub stem_terms: Vec<u64>,
    pub language: Option<&'static LanguageSpec>,
    symbols: OnceLock<Arc<Symbols>>,
}

impl Doc {
    /// Indexes `text` in one pass over its terms: length, Bloom filter, and
    /// the counts of the terms in `wanted` (memoised).
    fn new(rel: &str, text: String, wanted: Option<(&TermSet, &[(u64, &str)])>) -> Doc {
        let bits = text.len().next_power_of_two().clamp(64, 1 << 21);
        let mut bloom = vec![0u64; bits / 64].into_boxed_slice();
        let words = bloom.len() - 1;
        let mut len = 0u32;
        let mut counts = vec![0u32; wanted.map_or(0, |(set, _)| set.len())];
        for_each_term_str(&text, |t| {
            len += 1;
            let h = term_hash(t);
            bloom[h as usize & words] |= bloom_bits(h);
            if let Some((set, _)) = wanted {
                if let Some(i) = set.slot(t) {
                    counts[i] += 1;
                }
            }
        });
        let memo = wanted.map_or_else(Vec::new, |(_, terms)| {
            terms.iter().map(|(h, _)| *h).zip(counts).collect()
        });
        let mut path_terms = Vec::new();
        for_each_term_hash(rel, |h| path_terms.push(h));
        path_terms.sort_unstable();
        path_terms.dedup();
        let file = rel.rsplit('/').next().unwrap_or(rel);
        let stem = file.split('.').next().unwrap_or(file);
        let mut stem_terms = Vec::new();
        for_each_term_hash(stem, |h| stem_terms.push(h));
        Doc {
            language: lang::language_of(rel),
            text,
            len,
            terms: OnceLock::new(),
            memo: Mutex::new(memo),
            bloom,
            path_terms,
            stem_terms,
            symbols: OnceLock::new(),
        }
    }

    /// Whether the body may hold the term of hash `h` (false: certainly not).
    #[inline]
    pub fn may_hold(&self, h: u64) -> bool {
        let bits = bloom_bits(h);
        self.bloom[h as usize & (self.bloom.len() - 1)] & bits == bits
    }

    /// A document built from text in memory (for tests and benchmarks).
    pub fn for_test(rel: &str, text: &str) -> Doc {
        Doc::new(rel, text.to_string(), None)
    }

    /// Every term of the body with its count, sorted by hash (tokenized on first use).
    pub fn terms(&self) -> &[(u64, u32)] {
        self.terms.get_or_init(|| {
            let mut counts: rustc_hash::FxHashMap<u64, u32> = Default::default();
            for_each_term_hash(&self.text, |h| *counts.entry(h).or_insert(0) += 1);
            let mut terms: Vec<(u64, u32)> = counts.into_iter().collect();
            terms.sort_unstable();
            terms
        })
    }

    /// Occurrences of a term (by hash) in the body: from the full counts or
    /// the memo of earlier scans, else by tokenizing the whole file once. For
    /// one file in context; over many files use [`term_counts`].
    pub fn tf(&self, hash: u64) -> u32 {
        if self.terms.get().is_none() {
            let memo = self.memo.lock().expect("term memo poisoned");
            if let Some(&(_, n)) = memo.iter().find(|(h, _)| *h == hash) {
                return n;
            }
        }
        let terms = self.terms();
        terms
            .binary_search_by_key(&hash, |&(h, _)| h)
            .map_or(0, |i| terms[i].1)
    }

    /// The file's symbols, parsed on first use (empty for languages without a row).
    pub fn symbols(&self) -> Arc<Symbols> {
        self.symbols
            .get_or_init(|| {
                Arc::new(
                    self.language
                        .map(|l| lang::symbols(l, &self.text))
                        .unwrap_or_default(),
                )
            })
            .clone()
    }

    /// Approximate heap bytes held (text and term statistics; symbols not counted).
    pub fn heap_bytes(&self) -> usize {
        self.text.len()
            + self.bloom.len() * 8
            + self.terms.get().map_or(0, |t| t.len() * 16)
            + (self.path_terms.len() + self.stem_terms.len()) * 8
            + 128
    }
}

type Key = (u64, Option<SystemTime>);
type Cached = (Key, Result<Arc<Doc>, Skip>);

/// Process-wide cache of file versions.
#[derive(Default)]
pub struct Corpus {
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    map: HashMap<PathBuf, Cached>,
    bytes: usize,
}

fn cost(doc: &Result<Arc<Doc>, Skip>) -> usize {
    doc.as_ref().map_or(64, |d| d.heap_bytes())
}

/// A walked file with its document (or why it has none).
pub struct Loaded {
    pub entry: Entry,
    pub doc: Result<Arc<Doc>, Skip>,
}

impl Corpus {
    /// Loads every entry, reading only files whose (size, mtime) changed since
    /// the last call. Runs on all cores.
    /// Files read now are indexed with the counts of `wanted` (the query's
    /// terms, distinct) in the same pass.
    /// Once `stop` returns true the remaining files are not read (`NotRead`).
    pub fn load(
        &self,
        entries: Vec<Entry>,
        wanted: &[(u64, &str)],
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Vec<Loaded> {
        let set = TermSet::new(wanted);
        let cached: Vec<Option<Result<Arc<Doc>, Skip>>> = {
            let cache = self.cache.lock().expect("corpus cache poisoned");
            entries
                .iter()
                .map(|e| {
                    cache
                        .map
                        .get(&e.abs)
                        .filter(|(k, _)| *k == (e.size, e.mtime))
                        .map(|(_, d)| d.clone())
                })
                .collect()
        };
        let loaded: Vec<Loaded> = entries
            .into_par_iter()
            .zip(cached.into_par_iter())
            .map(|(entry, hit)| {
                let doc = match hit {
                    Some(doc) => doc,
                    None if stop() => Err(Skip::NotRead),
                    None => read_doc(&entry, (&set, wanted)),
                };
                Loaded { entry, doc }
            })
            .collect();
        let mut cache = self.cache.lock().expect("corpus cache poisoned");
        for l in loaded
            .iter()
            .filter(|l| !matches!(l.doc, Err(Skip::NotRead)))
        {
            let new = ((l.entry.size, l.entry.mtime), l.doc.clone());
            let added = cost(&l.doc);
            if let Some((_, old)) = cache.map.insert(l.entry.abs.clone(), new) {
                cache.bytes = cache.bytes.saturating_sub(cost(&old));
            }
            cache.bytes += added;
        }
        if cache.bytes > MAX_CACHED_BYTES {
            let keep: std::collections::HashSet<&PathBuf> =
                loaded.iter().map(|l| &l.entry.abs).collect();
            cache.map.retain(|p, _| keep.contains(p));
            cache.bytes = cache.map.values().map(|(_, d)| cost(d)).sum();
        }
        loaded
    }
}

/// Counts of `terms` (lowercase index terms, with their [`term_hash`]es) in
/// each of `docs`: row `i` of the result holds doc `i`'s counts, in the order
/// of `terms`. Equal to what tokenizing each file would give. Files whose
/// counts are known (memo or full counts) are not scanned; the others get one
/// case-insensitive Aho-Corasick pass, and each identifier holding a match is
/// run through the tokenizer. Runs on all cores.
///
/// [`term_hash`]: crate::query::term_hash
pub fn term_counts(docs: &[&Doc], terms: &[(u64, &str)]) -> Vec<Vec<u32>> {
    if terms.is_empty() {
        return vec![Vec::new(); docs.len()];
    }
    // Distinct, non-empty terms are scanned for; `slot` maps each asked term to one.
    let mut uniq: Vec<(u64, &str)> = Vec::new();
    let slot: Vec<Option<usize>> = terms
        .iter()
        .map(|&(h, t)| {
            if t.is_empty() {
                return None;
            }
            Some(uniq.iter().position(|u| u.0 == h).unwrap_or_else(|| {
                uniq.push((h, t));
                uniq.len() - 1
            }))
        })
        .collect();
    let pick = |c: &[u32]| -> Vec<u32> { slot.iter().map(|s| s.map_or(0, |i| c[i])).collect() };
    let set = TermSet::new(&uniq);
    let t = std::time::Instant::now();
    let out = docs
        .par_iter()
        .map(|doc| pick(&doc.counts(&uniq, &set)))
        .collect();
    tracing::debug!(
        terms = uniq.len(),
        docs = docs.len(),
        ms = t.elapsed().as_millis() as u64,
        "term counts"
    );
    out
}

impl Doc {
    /// Exact counts of `terms` (distinct; `set` built from them): full counts
    /// if the file was tokenized, else the memo, the Bloom filter (a rejected
    /// term is absent) and, for the rest, one scan of the text.
    fn counts(&self, terms: &[(u64, &str)], set: &TermSet) -> Vec<u32> {
        if let Some(full) = self.terms.get() {
            return terms
                .iter()
                .map(|(h, _)| {
                    full.binary_search_by_key(h, |&(t, _)| t)
                        .map_or(0, |i| full[i].1)
                })
                .collect();
        }
        let mut out = vec![0u32; terms.len()];
        let mut missing = Vec::new();
        {
            let memo = self.memo.lock().expect("term memo poisoned");
            for (i, (h, _)) in terms.iter().enumerate() {
                match memo.iter().find(|(m, _)| m == h) {
                    Some(&(_, n)) => out[i] = n,
                    None if self.may_hold(*h) => missing.push(i),
                    None => {}
                }
            }
        }
        if missing.is_empty() {
            return out;
        }
        let scanned = set.count(&self.text);
        let mut memo = self.memo.lock().expect("term memo poisoned");
        for i in missing {
            out[i] = scanned[i];
            if !memo.iter().any(|(m, _)| *m == terms[i].0) {
                memo.push((terms[i].0, scanned[i]));
            }
        }
        if memo.len() > MAX_MEMO_TERMS {
            // A file asked about this often is hot: keep its full counts instead.
            memo.clear();
            memo.shrink_to_fit();
            drop(memo);
            self.terms();
        }
        out
    }

    /// Whether the body holds the term `t` (hash `h`), exactly.
    pub fn holds(&self, h: u64, t: &str) -> bool {
        self.may_hold(h) && self.counts(&[(h, t)], &TermSet::new(&[(h, t)]))[0] > 0
    }
}

/// Indices of the first `max` of `docs` (in order) that hold term `t`.
pub fn holders(docs: &[&Doc], t: &str, max: usize) -> Vec<usize> {
    let h = term_hash(t);
    let set = TermSet::new(&[(h, t)]);
    docs.iter()
        .enumerate()
        .filter(|(_, d)| d.may_hold(h) && d.counts(&[(h, t)], &set)[0] > 0)
        .map(|(i, _)| i)
        .take(max)
        .collect()
}

/// Whether at most `max` of `docs` hold term `t`. The Bloom filters answer
/// most names at once; files they cannot rule out are scanned only until the
/// answer is known.
pub fn held_by_at_most(docs: &[&Doc], t: &str, max: usize) -> bool {
    let h = term_hash(t);
    let maybe: Vec<&Doc> = docs.par_iter().filter(|d| d.may_hold(h)).copied().collect();
    if maybe.len() <= max {
        return true;
    }
    // The filters' false-positive rate is under 1%: when more than twice
    // `max` files may hold the name, far more than `max` do.
    if maybe.len() > 2 * max + 16 {
        return false;
    }
    let set = TermSet::new(&[(h, t)]);
    let mut held = 0;
    for d in maybe {
        if d.counts(&[(h, t)], &set)[0] > 0 {
            held += 1;
            if held > max {
                return false;
            }
        }
    }
    true
}

fn read_doc(entry: &Entry, wanted: (&TermSet, &[(u64, &str)])) -> Result<Arc<Doc>, Skip> {
    if entry.size > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let mut bytes = Vec::with_capacity(entry.size as usize);
    std::fs::File::open(&entry.abs)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|_| Skip::Unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(Skip::Binary);
    }
    // Minified: mean line length (bytes / lines, lines = newlines + 1) above
    // MINIFIED_MEAN_LINE, i.e. fewer than len / (MINIFIED_MEAN_LINE + 1)
    // newlines. Counting stops once there are that many (SIMD memchr): a
    // second full pass over every file cost 0.2 s on the Linux kernel.
    let enough = bytes.len() / (MINIFIED_MEAN_LINE + 1);
    if bytes.len() > 4096 && memchr::memchr_iter(b'\n', &bytes).take(enough).count() < enough
        || entry.rel.ends_with(".min.js")
        || entry.rel.ends_with(".min.css")
    {
        return Err(Skip::Minified);
    }
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Arc::new(Doc::new(&entry.rel, text, Some(wanted))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::term_hash;
    use crate::walk::walk;

    #[test]
    fn odd_files_are_skipped_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("ok.py"), "def token_expiry():\n    pass\n").unwrap();
        std::fs::write(p.join("blob.bin"), b"ab\0cd").unwrap();
        std::fs::write(p.join("app.min.js"), "var a=1;").unwrap();
        std::fs::write(p.join("bundle.js"), "x".repeat(20_000)).unwrap();
        std::fs::write(p.join("big.txt"), vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        std::fs::write(p.join("latin1.py"), b"caf\xe9 = token_expiry\n").unwrap();
        let loaded = Corpus::default().load(walk(p), &[], &|| false);
        let kind = |name: &str| {
            loaded
                .iter()
                .find(|l| l.entry.rel == name)
                .unwrap()
                .doc
                .as_ref()
                .err()
                .copied()
        };
        assert_eq!(kind("ok.py"), None);
        assert_eq!(kind("blob.bin"), Some(Skip::Binary));
        assert_eq!(kind("app.min.js"), Some(Skip::Minified));
        assert_eq!(kind("bundle.js"), Some(Skip::Minified));
        assert_eq!(kind("big.txt"), Some(Skip::TooLarge));
        assert_eq!(kind("latin1.py"), None, "non-UTF-8 text is decoded lossily");
    }

    fn full_counts(text: &str) -> std::collections::HashMap<u64, u32> {
        let mut m = std::collections::HashMap::new();
        for_each_term_hash(text, |h| *m.entry(h).or_insert(0) += 1);
        m
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// The scan-based counts, the Bloom filter and the document length agree
        /// exactly with full tokenization, whatever the text.
        #[test]
        fn scanned_counts_equal_full_tokenization(
            text in "[a-zA-Z0-9_ .()\\n:é-]{0,200}",
            picks in proptest::collection::vec(0usize..64, 1..8),
        ) {
            let full = full_counts(&text);
            let doc = Doc::for_test("x.py", &text);
            proptest::prop_assert_eq!(doc.len, full.values().sum::<u32>());
            let mut words: Vec<String> = Vec::new();
            crate::query::for_each_term(&text, |t| words.push(t.to_string()));
            words.push("absent_term".into());
            let mut wanted: Vec<String> = picks.iter().map(|&i| words[i % words.len()].clone()).collect();
            wanted.sort();
            wanted.dedup();
            let terms: Vec<(u64, &str)> = wanted.iter().map(|w| (term_hash(w), w.as_str())).collect();
            let counts = term_counts(&[&doc], &terms);
            for ((h, t), n) in terms.iter().zip(&counts[0]) {
                let expect = full.get(h).copied().unwrap_or(0);
                proptest::prop_assert_eq!(*n, expect, "term {}", t);
                proptest::prop_assert!(expect == 0 || doc.may_hold(*h), "Bloom filter lost {}", t);
                proptest::prop_assert_eq!(doc.holds(*h, t), expect > 0);
                proptest::prop_assert_eq!(doc.tf(*h), expect);
            }
        }
    }

    #[test]
    fn holders_and_rarity_are_exact() {
        let texts = [
            "def token_expiry(): pass",
            "x = token_expiry()",
            "TokenExpiry = 1",
            "nothing here",
        ];
        let docs: Vec<Doc> = texts.iter().map(|t| Doc::for_test("a.py", t)).collect();
        let refs: Vec<&Doc> = docs.iter().collect();
        // `TokenExpiry` splits into `token` and `expiry`, not `token_expiry`.
        assert_eq!(holders(&refs, "token_expiry", 10), [0, 1]);
        assert_eq!(holders(&refs, "expiry", 1), [0]);
        assert!(held_by_at_most(&refs, "token_expiry", 2));
        assert!(!held_by_at_most(&refs, "expiry", 2));
        assert!(held_by_at_most(&refs, "missing", 0));
    }

    #[test]
    fn an_edited_file_is_never_served_stale() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.py");
        std::fs::write(&f, "alpha = 1\n").unwrap();
        let corpus = Corpus::default();
        let first = corpus.load(walk(dir.path()), &[], &|| false);
        assert!(first[0].doc.as_ref().unwrap().tf(term_hash("alpha")) > 0);
        std::fs::write(&f, "beta_gamma = 22\n").unwrap();
        let second = corpus.load(walk(dir.path()), &[], &|| false);
        let doc = second[0].doc.as_ref().unwrap();
        assert_eq!(doc.tf(term_hash("alpha")), 0);
        assert_eq!(doc.tf(term_hash("beta_gamma")), 1);
    }
}
