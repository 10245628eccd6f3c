//! File contents and their index statistics, cached by (path, size, mtime,
//! ctime, inode).
//!
//! A [`Doc`] is built once per version of a file: lossily decoded text, its
//! length in bytes (BM25 document length), the terms of its path, and lazily
//! its tree-sitter symbols and full term counts. The cache key includes size,
//! mtime, ctime and (device, inode), so an edited file is re-read on the next
//! call and never served stale, even when it was rewritten to the same size
//! and its mtime set back (`cp -p`, `rsync -t`, `tar -x` do that; the ctime
//! cannot be set back by a user program).
//!
//! No file is tokenized whole to be indexed. The counts of a few terms come
//! from [`TermSet::count`]: a case-folded Aho-Corasick scan for those terms,
//! and the tokenizer run only on identifiers that hold a match, so the counts
//! are exactly what full tokenization would give. The query's terms are
//! counted while a file is read and memoised per file version; later lookups
//! ([`term_counts`], [`holders_many`]) scan the texts kept in memory, many
//! terms in one pass. Tokenizing every file (and a Bloom filter of its terms)
//! was 60% of a cold call on the Linux kernel (78k files, perf, 2026-11-29).
//!
//! BM25's document length is the file's size in bytes rather than its number
//! of terms: only its ratio to the mean enters BM25, and on the development
//! set (190 tasks, cycle 1) the ranking was the same at Acc@1/3/5 (Acc@10
//! 85.8 → 86.3, MRR 0.701 either way) while no file needs tokenizing whole.

use crate::lang::{self, LanguageSpec, Symbols};
use crate::query::{for_each_term_hash, term_hash, TermSet};
use crate::walk::Entry;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Bytes of file text one [`Corpus::load`] keeps in memory at most. When
/// the files to read are larger than this in all, only the texts of files
/// holding a wanted term are kept, in the order read, up to this many bytes;
/// the other files keep their term counts and are read again (the same
/// version only) when a later step needs their text. On the Linux kernel
/// (903 MiB of text; 485 MiB in files holding a term of a typical task) this
/// bounds a cold call's peak memory; a smaller tree keeps every text.
const MAX_KEPT_TEXT_BYTES: usize = 256 * 1024 * 1024;

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

/// Memoised term counts per file version above this many entries are replaced
/// by the file's full term counts (a file asked about that often is hot).
const MAX_MEMO_TERMS: usize = 384;

/// One indexed version of a file.
#[derive(Debug)]
pub struct Doc {
    /// Unique for the life of the process (never reused, unlike an address):
    /// what cached lookups over a set of documents are keyed by.
    id: u64,
    /// The file's text, when kept (see [`Corpus::load`]): else it is read
    /// again from `source` when a step needs it.
    text: OnceLock<String>,
    /// Bytes of the text: BM25's document length.
    len: usize,
    /// Where a text that was not kept is read again from, and the version
    /// (size, mtime, ctime, inode) it must still be.
    source: Option<Box<Source>>,
    /// (term hash, count) of every term, sorted by hash; built on first need.
    terms: OnceLock<Vec<(u64, u32)>>,
    /// (term hash, count) of the terms scanned for so far (zeros included),
    /// sorted by hash (looked up by binary search: a scan per term made
    /// query terms x memo entries work per file, probe D5).
    memo: Mutex<Vec<(u64, u32)>>,
    /// Which terms the body may hold (no false negatives), on a tree too
    /// large to keep every text: a term it rules out has count 0 without
    /// reading the file again ([`TermFilter`]).
    filter: Option<TermFilter>,
    /// Times the text was read again (tests check scans skip files).
    #[cfg(test)]
    rereads: AtomicUsize,
    /// Hashes of the terms of the relative path (directories and file name).
    pub path_terms: Vec<u64>,
    /// Hashes of the terms of the file name's stem only.
    pub stem_terms: Vec<u64>,
    pub language: Option<&'static LanguageSpec>,
    /// The parsed symbols, once a parse finished or hit the file's budget
    /// (a parse the call stopped is not kept). Locked while parsing, so a
    /// file is parsed by one thread at a time.
    symbols: Mutex<Option<Arc<Symbols>>>,
}

impl Doc {
    /// Indexes `text`: its length, with `memo` the counts of some terms
    /// already known. The text is kept unless `source` is given.
    fn new(
        rel: &str,
        text: String,
        mut memo: Vec<(u64, u32)>,
        source: Option<Source>,
        filter: Option<TermFilter>,
    ) -> Doc {
        memo.sort_unstable_by_key(|&(h, _)| h);
        memo.dedup_by_key(|&mut (h, _)| h);
        let mut path_terms = Vec::new();
        for_each_term_hash(rel, |h| path_terms.push(h));
        path_terms.sort_unstable();
        path_terms.dedup();
        let file = rel.rsplit('/').next().unwrap_or(rel);
        let stem = file.split('.').next().unwrap_or(file);
        let mut stem_terms = Vec::new();
        for_each_term_hash(stem, |h| stem_terms.push(h));
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Doc {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            language: lang::language_of(rel),
            len: text.len(),
            text: match source {
                Some(_) => OnceLock::new(),
                None => OnceLock::from(text),
            },
            source: source.map(Box::new),
            terms: OnceLock::new(),
            memo: Mutex::new(memo),
            filter,
            #[cfg(test)]
            rereads: AtomicUsize::new(0),
            path_terms,
            stem_terms,
            symbols: Mutex::new(None),
        }
    }

    /// A document built from text in memory (for tests and benchmarks).
    #[cfg(any(test, feature = "test-support"))]
    pub fn for_test(rel: &str, text: &str) -> Doc {
        Doc::new(rel, text.to_string(), Vec::new(), None, None)
    }

    /// False when the body certainly lacks the term `hash` (its filter rules
    /// it out); true when it may hold it (or has no filter).
    fn may_hold(&self, hash: u64) -> bool {
        self.filter.as_ref().is_none_or(|f| f.may_hold(hash))
    }

    /// Bytes of the text (BM25's document length).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file's text, read again (and kept from then on) if it was not
    /// kept: for the few files a step parses or quotes. Empty when the file
    /// changed since it was indexed (a new version: the next call reads it)
    /// or can no longer be read.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| self.reread())
    }

    /// Runs `f` on the text: the kept one, else the file read again for
    /// this call only (scans over many files do not keep what they read).
    fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self.text.get() {
            Some(t) => f(t),
            None => f(&self.reread()),
        }
    }

    /// The text of a file whose text was not kept, read again through the
    /// same checks as the first read; empty unless the file is still the
    /// version indexed (same size, mtime, ctime and inode).
    fn reread(&self) -> String {
        let Some(src) = &self.source else {
            return String::new();
        };
        #[cfg(test)]
        self.rereads.fetch_add(1, Ordering::Relaxed);
        match read_text(&src.abs, &src.rel, Some(&src.key)) {
            Ok(t) if t.len() == self.len => t,
            _ => {
                tracing::debug!(path = %src.rel, "file changed since it was indexed: not read again");
                String::new()
            }
        }
    }

    /// Every term of the body with its count, sorted by hash (tokenized on first use).
    pub fn terms(&self) -> &[(u64, u32)] {
        self.terms.get_or_init(|| {
            let mut counts: rustc_hash::FxHashMap<u64, u32> = Default::default();
            self.with_text(|t| for_each_term_hash(t, |h| *counts.entry(h).or_insert(0) += 1));
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
            if let Some(n) = memo_get(&memo, hash) {
                return n;
            }
        }
        let terms = self.terms();
        terms
            .binary_search_by_key(&hash, |&(h, _)| h)
            .map_or(0, |i| terms[i].1)
    }

    /// The file's symbols, parsed on first use (empty for languages without a row).
    #[cfg(any(test, feature = "test-support"))]
    pub fn symbols(&self) -> Arc<Symbols> {
        self.symbols_until(&|| false)
    }

    /// [`Doc::symbols`], parsed within the file's budget and stopped when
    /// `stop` returns true ([`lang::symbols_until`]); then empty, with
    /// `capped` set. A stopped parse is not kept: a later call parses again.
    pub fn symbols_until(&self, stop: &dyn Fn() -> bool) -> Arc<Symbols> {
        let mut slot = self.symbols.lock().expect("symbols poisoned");
        if let Some(s) = &*slot {
            return s.clone();
        }
        let s = Arc::new(
            self.language
                .map(|l| lang::symbols_until(l, self.text(), stop))
                .unwrap_or_default(),
        );
        if s.capped != Some(lang::Cap::Stopped) {
            *slot = Some(s.clone());
        }
        s
    }

    /// Parses the file ahead of a call (a server's prefetch): keeps the
    /// symbols only when the parse finished within the file's budget. A
    /// parse over budget on a busy machine is dropped, so the call that needs
    /// the file parses it itself, by its own rules. True when kept (or
    /// already there).
    pub fn parse_ahead(&self, stop: &dyn Fn() -> bool) -> bool {
        let Some(language) = self.language else {
            return false;
        };
        let mut slot = self.symbols.lock().expect("symbols poisoned");
        if slot.is_some() {
            return true;
        }
        let s = lang::symbols_until(language, self.text(), stop);
        let kept = s.capped.is_none();
        if kept {
            *slot = Some(Arc::new(s));
        }
        kept
    }

    /// The kept symbols, without parsing: `None` when the file was not
    /// parsed yet or its last parse was stopped.
    pub fn kept_symbols(&self) -> Option<Arc<Symbols>> {
        self.symbols.lock().expect("symbols poisoned").clone()
    }

    /// Approximate heap bytes held (text and term statistics; symbols not counted).
    pub fn heap_bytes(&self) -> usize {
        self.text.get().map_or(0, String::len)
            + self.source.as_ref().map_or(0, |s| 96 + s.rel.len() * 2)
            + self.memo.lock().map_or(0, |m| m.capacity() * 16)
            + self.terms.get().map_or(0, |t| t.len() * 16)
            + self.filter.as_ref().map_or(0, TermFilter::heap_bytes)
            + (self.path_terms.len() + self.stem_terms.len()) * 8
            + 128
    }
}

/// (size, mtime, ctime, (device, inode)) of a file version.
type Key = (
    u64,
    Option<SystemTime>,
    Option<(i64, i64)>,
    Option<(u64, u64)>,
);

fn key(e: &Entry) -> Key {
    (e.size, e.mtime, e.ctime, e.file_id)
}
type Cached = (Key, Result<Arc<Doc>, Skip>);

/// Process-wide cache of file versions.
pub struct Corpus {
    cache: Mutex<Cache>,
    /// Bytes of text one load keeps ([`MAX_KEPT_TEXT_BYTES`]; less in tests).
    keep_text_bytes: usize,
}

impl Default for Corpus {
    fn default() -> Corpus {
        Corpus {
            cache: Mutex::default(),
            keep_text_bytes: MAX_KEPT_TEXT_BYTES,
        }
    }
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
    /// Loads every entry, reading only files whose (size, mtime, ctime, inode)
    /// changed since the last call. Runs on all cores.
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
        let keep = AtomicUsize::new(self.keep_text_bytes);
        let cached: Vec<Option<Result<Arc<Doc>, Skip>>> = {
            let cache = self.cache.lock().expect("corpus cache poisoned");
            entries
                .iter()
                .map(|e| {
                    cache
                        .map
                        .get(&e.abs)
                        .filter(|(k, _)| *k == key(e))
                        .map(|(_, d)| d.clone())
                })
                .collect()
        };
        let to_read: u64 = entries
            .iter()
            .zip(&cached)
            .filter(|(e, hit)| hit.is_none() && e.size <= MAX_FILE_BYTES)
            .map(|(e, _)| e.size)
            .sum();
        let keep_all = wanted.is_empty() || to_read <= self.keep_text_bytes as u64;
        let loaded: Vec<Loaded> = entries
            .into_par_iter()
            .zip(cached.into_par_iter())
            .map(|(entry, hit)| {
                let doc = match hit {
                    Some(doc) => doc,
                    None if stop() => Err(Skip::NotRead),
                    None => read_doc(&entry, (&set, wanted), keep_all, &keep),
                };
                Loaded { entry, doc }
            })
            .collect();
        let mut cache = self.cache.lock().expect("corpus cache poisoned");
        for l in loaded
            .iter()
            .filter(|l| !matches!(l.doc, Err(Skip::NotRead)))
        {
            let new = (key(&l.entry), l.doc.clone());
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
/// [`TermSet::count`] scan for the terms they miss, memoised. Runs on all cores.
///
/// [`term_hash`]: crate::query::term_hash
pub fn term_counts(docs: &[&Doc], terms: &[(u64, &str)]) -> Vec<Vec<u32>> {
    if terms.is_empty() {
        return vec![Vec::new(); docs.len()];
    }
    // Distinct, non-empty terms are scanned for; `slot` maps each asked term to one.
    let mut uniq: Vec<(u64, &str)> = Vec::new();
    let mut slot_of: HashMap<u64, usize> = HashMap::new();
    let slot: Vec<Option<usize>> = terms
        .iter()
        .map(|&(h, t)| {
            if t.is_empty() {
                return None;
            }
            Some(*slot_of.entry(h).or_insert_with(|| {
                uniq.push((h, t));
                uniq.len() - 1
            }))
        })
        .collect();
    let pick = |c: &[u32]| -> Vec<u32> { slot.iter().map(|s| s.map_or(0, |i| c[i])).collect() };
    let t = std::time::Instant::now();
    // Only the terms some file has no count for are scanned for: a later
    // cycle adds a few terms to ones counted when the files were read.
    let unknown = docs.par_iter().map(|d| d.unknown(&uniq)).reduce(
        || vec![false; uniq.len()],
        |a, b| a.iter().zip(&b).map(|(x, y)| *x || *y).collect(),
    );
    let idx: Vec<usize> = (0..uniq.len()).filter(|&i| unknown[i]).collect();
    let scan = Scan {
        set: TermSet::new(&idx.iter().map(|&i| uniq[i]).collect::<Vec<_>>()),
        idx,
    };
    let out = docs
        .par_iter()
        .map(|doc| pick(&doc.counts(&uniq, &scan)))
        .collect();
    tracing::debug!(
        terms = uniq.len(),
        docs = docs.len(),
        ms = t.elapsed().as_millis() as u64,
        "term counts"
    );
    out
}

/// A scan for some of a list of terms: `set` counts `terms[idx[k]]` in slot `k`.
struct Scan {
    set: TermSet,
    idx: Vec<usize>,
}

impl Doc {
    /// Which of `terms` have no known count in this file (neither full counts
    /// nor memo).
    fn unknown(&self, terms: &[(u64, &str)]) -> Vec<bool> {
        if self.terms.get().is_some() {
            return vec![false; terms.len()];
        }
        let memo = self.memo.lock().expect("term memo poisoned");
        terms
            .iter()
            .map(|&(h, _)| memo_get(&memo, h).is_none())
            .collect()
    }

    /// Exact counts of `terms` (distinct): full counts if the file was
    /// tokenized, else the memo and, for the rest, one scan of the text (with
    /// `scan` when it covers them), memoised.
    fn counts(&self, terms: &[(u64, &str)], scan: &Scan) -> Vec<u32> {
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
            for (i, &(h, _)) in terms.iter().enumerate() {
                match memo_get(&memo, h) {
                    Some(n) => out[i] = n,
                    None => missing.push(i),
                }
            }
        }
        // Terms the filter rules out occur 0 times: no need to read the text.
        let (absent, missing): (Vec<usize>, Vec<usize>) = missing
            .into_iter()
            .partition(|&i| !self.may_hold(terms[i].0));
        if missing.is_empty() {
            if !absent.is_empty() {
                let mut memo = self.memo.lock().expect("term memo poisoned");
                memo.extend(absent.iter().map(|&i| (terms[i].0, 0)));
                memo.sort_unstable_by_key(|&(h, _)| h);
                memo.dedup_by_key(|&mut (h, _)| h);
            }
            return out;
        }
        let in_scan = |i: &usize| scan.idx.binary_search(i).is_ok();
        let scanned: Vec<(usize, u32)> = if missing.iter().all(in_scan) {
            scan.idx
                .iter()
                .copied()
                .zip(self.with_text(|t| scan.set.count(t)))
                .collect()
        } else {
            let sub: Vec<(u64, &str)> = missing.iter().map(|&i| terms[i]).collect();
            missing
                .iter()
                .copied()
                .zip(self.with_text(|t| TermSet::new(&sub).count(t)))
                .collect()
        };
        let mut memo = self.memo.lock().expect("term memo poisoned");
        for (i, n) in scanned {
            out[i] = n;
            memo.push((terms[i].0, n));
        }
        memo.extend(absent.iter().map(|&i| (terms[i].0, 0)));
        // Sorted again, one entry per term (another thread may have added
        // the same terms meanwhile; its counts are the same).
        memo.sort_unstable_by_key(|&(h, _)| h);
        memo.dedup_by_key(|&mut (h, _)| h);
        if memo.len() > MAX_MEMO_TERMS {
            // A file asked about this often is hot: keep its full counts instead.
            memo.clear();
            memo.shrink_to_fit();
            drop(memo);
            self.terms();
        }
        out
    }
}

/// The memoised count of a term, by binary search of the sorted memo.
fn memo_get(memo: &[(u64, u32)], hash: u64) -> Option<u32> {
    memo.binary_search_by_key(&hash, |&(h, _)| h)
        .ok()
        .map(|i| memo[i].1)
}

/// Holder lists already computed, by (fingerprint of a chunk of the
/// documents searched, term hash): the `max` asked for and the holders found
/// in the chunk (indices in it). A list shorter than its `max` is complete.
/// Later cycles of a call, and later calls, ask about mostly the same names;
/// an edited file is a new [`Doc`] with a new id, so its chunk's fingerprint
/// changes and nothing stale is served, while the other chunks' lists still
/// answer: editing one file costs a scan of its chunk, not of the tree.
type HolderCache = HashMap<(u64, u64), (usize, Arc<Vec<u32>>)>;
static HOLDERS: OnceLock<Mutex<HolderCache>> = OnceLock::new();
/// Entries kept in [`HOLDERS`] before it is emptied (each about 100 bytes:
/// some 25 MB at most).
const MAX_CACHED_HOLDER_LISTS: usize = if cfg!(test) { 8192 } else { 1 << 18 };
/// A holder search splits its documents into chunks of about this many
/// (at least), cut where a document's id hashes to a multiple of the chunk
/// size: content-defined, so adding, removing or editing a file changes the
/// one or two chunks around it and leaves the others' fingerprints as they
/// were. Larger lists get larger chunks (a power of two, about 256 chunks),
/// so the cache holds about 256 entries per name on any tree.
const MIN_HOLDER_CHUNK: usize = 128;
/// No chunk is longer than this many times its expected size.
const MAX_CHUNK_FACTOR: usize = 8;

/// The chunks of `docs` a holder search caches by: (range, fingerprint).
fn holder_chunks(docs: &[&Doc]) -> Vec<(std::ops::Range<usize>, u64)> {
    use std::hash::{Hash, Hasher};
    let size = (docs.len() / 256).max(MIN_HOLDER_CHUNK).next_power_of_two() as u64;
    let mut out = Vec::new();
    let mut start = 0;
    let mut h = rustc_hash::FxHasher::default();
    for (i, d) in docs.iter().enumerate() {
        d.id.hash(&mut h);
        // splitmix64's finaliser: ids are sequential, their hashes are not.
        let mut z = d.id.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let end = i + 1;
        if z % size == 0 || end - start >= size as usize * MAX_CHUNK_FACTOR || end == docs.len() {
            (end - start).hash(&mut h);
            out.push((start..end, h.finish()));
            start = end;
            h = rustc_hash::FxHasher::default();
        }
    }
    out
}

/// For each of `names` (index terms: identifiers or their parts, any case),
/// the indices of the first `max` of `docs` (in order) that hold it, exactly.
/// Names not answered before for the same chunk of documents (see
/// [`holder_chunks`]) are looked up in one pass over the texts of the chunks
/// that miss them (a [`TermSet`] scan per file, on all cores), in groups of
/// at most 128 names, the most the SIMD prefilter of the scan takes.
pub fn holders_many(docs: &[&Doc], names: &[&str], max: usize) -> Vec<Vec<usize>> {
    if names.is_empty() || max == 0 {
        return vec![Vec::new(); names.len()];
    }
    let chunks = holder_chunks(docs);
    let (uniq, slot_of) = distinct_names(names);
    let cache = HOLDERS.get_or_init(Default::default);
    let (mut lists, todo) = cached_holders(cache, &chunks, &uniq, max);
    let t0 = std::time::Instant::now();
    let mut fresh: Vec<(usize, usize, Arc<Vec<u32>>)> = Vec::new();
    let mut scanned_docs = 0;
    // Chunks are scanned in order, in waves that double in length; a name
    // with `max` holders in the chunks before a wave is not looked for in
    // it (later chunks cannot change its answer): a common name is settled
    // in the first wave, only rare names are looked for in the whole tree.
    let mut wave = 0..0;
    while wave.end < chunks.len() {
        wave = wave.end..(wave.end + (wave.end - wave.start).max(4) * 2).min(chunks.len());
        let settled: Vec<bool> = lists
            .iter()
            .map(|l| {
                let mut have = 0;
                for list in l[..wave.start].iter() {
                    let Some(list) = list else { return false };
                    have += list.len();
                    if have >= max {
                        return true;
                    }
                }
                false
            })
            .collect();
        // Chunks missing the same names are scanned together.
        let mut by_names: HashMap<Vec<usize>, Vec<usize>> = HashMap::new();
        for c in wave.clone() {
            let names: Vec<usize> = todo[c].iter().copied().filter(|&u| !settled[u]).collect();
            if !names.is_empty() {
                by_names.entry(names).or_default().push(c);
            }
        }
        for (group_names, group_chunks) in &by_names {
            let in_group: Vec<usize> = group_chunks
                .iter()
                .flat_map(|&c| chunks[c].0.clone())
                .collect();
            scanned_docs += in_group.len();
            for part in group_names.chunks(128) {
                let terms: Vec<(u64, &str)> = part.iter().map(|&u| uniq[u]).collect();
                let held = names_held(docs, &in_group, &terms);
                // `in_group` holds the chunks' documents chunk after chunk.
                let mut rows = held.iter();
                for &c in group_chunks {
                    let range = &chunks[c].0;
                    let mut found: Vec<Vec<u32>> = vec![Vec::new(); part.len()];
                    for (local, row) in rows.by_ref().take(range.len()).enumerate() {
                        for &k in row {
                            let list = &mut found[usize::from(k)];
                            if list.len() < max {
                                list.push(local as u32);
                            }
                        }
                    }
                    for (k, list) in found.into_iter().enumerate() {
                        let list = Arc::new(list);
                        lists[part[k]][c] = Some(list.clone());
                        fresh.push((c, part[k], list));
                    }
                }
            }
        }
    }
    if !fresh.is_empty() {
        tracing::debug!(
            names = uniq.len(),
            lists = fresh.len(),
            docs = scanned_docs,
            of = docs.len(),
            ms = t0.elapsed().as_millis() as u64,
            "holders"
        );
        let mut cache = cache.lock().expect("holder cache poisoned");
        if cache.len() + fresh.len() > MAX_CACHED_HOLDER_LISTS {
            cache.clear();
        }
        for (c, u, list) in fresh {
            cache.insert((chunks[c].1, uniq[u].0), (max, list));
        }
    }
    names
        .iter()
        .map(|t| {
            let Some(&u) = slot_of.get(&term_hash(t)).filter(|_| !t.is_empty()) else {
                return Vec::new();
            };
            joined_holders(&chunks, &lists[u], max)
        })
        .collect()
}

/// The distinct non-empty `names`, by hash, and each hash's slot in them.
fn distinct_names<'n>(names: &[&'n str]) -> (Vec<(u64, &'n str)>, HashMap<u64, usize>) {
    let mut uniq: Vec<(u64, &str)> = Vec::new();
    let mut slot_of: HashMap<u64, usize> = HashMap::new();
    for &t in names.iter().filter(|t| !t.is_empty()) {
        let h = term_hash(t);
        slot_of.entry(h).or_insert_with(|| {
            uniq.push((h, t));
            uniq.len() - 1
        });
    }
    (uniq, slot_of)
}

/// What the cache knows: `lists[name][chunk]`, the chunk's holders of each
/// of `uniq` (`None` where unknown), and the names each chunk must be
/// scanned for. A name is looked up chunk after chunk until `max` holders
/// are known: later chunks cannot change its answer.
#[allow(clippy::type_complexity)]
fn cached_holders(
    cache: &Mutex<HolderCache>,
    chunks: &[(std::ops::Range<usize>, u64)],
    uniq: &[(u64, &str)],
    max: usize,
) -> (Vec<Vec<Option<Arc<Vec<u32>>>>>, Vec<Vec<usize>>) {
    let mut lists: Vec<Vec<Option<Arc<Vec<u32>>>>> = vec![vec![None; chunks.len()]; uniq.len()];
    let mut todo: Vec<Vec<usize>> = vec![Vec::new(); chunks.len()];
    let cache = cache.lock().expect("holder cache poisoned");
    for (u, &(h, _)) in uniq.iter().enumerate() {
        let mut have = 0;
        for (c, (_, fp)) in chunks.iter().enumerate() {
            if have >= max {
                break;
            }
            match cache
                .get(&(*fp, h))
                .filter(|(m, list)| *m >= max || list.len() < *m)
            {
                Some((_, list)) => {
                    have += list.len();
                    lists[u][c] = Some(list.clone());
                }
                None => todo[c].push(u),
            }
        }
    }
    (lists, todo)
}

/// A row per document of `in_group` (indices into `docs`): which of `terms`
/// (at most 128) it holds, on all cores. A document tokenized whole
/// (prefetched, or hot) is looked up, not scanned.
fn names_held(docs: &[&Doc], in_group: &[usize], terms: &[(u64, &str)]) -> Vec<Vec<u8>> {
    let set = TermSet::new(terms);
    in_group
        .par_iter()
        .map(|&i| match docs[i].terms.get() {
            Some(full) => terms
                .iter()
                .enumerate()
                .filter(|(_, (h, _))| full.binary_search_by_key(h, |&(t, _)| t).is_ok())
                .map(|(k, _)| k as u8)
                .collect(),
            None if !terms.iter().any(|&(h, _)| docs[i].may_hold(h)) => Vec::new(),
            None => docs[i]
                .with_text(|t| set.count(t))
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(k, _)| k as u8)
                .collect(),
        })
        .collect()
}

/// One name's holders over all chunks, in order, as indices into the
/// documents: the first `max`.
fn joined_holders(
    chunks: &[(std::ops::Range<usize>, u64)],
    lists: &[Option<Arc<Vec<u32>>>],
    max: usize,
) -> Vec<usize> {
    let mut out = Vec::new();
    for (list, (range, _)) in lists.iter().zip(chunks) {
        let Some(list) = list else { break };
        out.extend(list.iter().map(|&i| range.start + i as usize));
        if out.len() >= max {
            break;
        }
    }
    out.truncate(max);
    out
}

/// Where the text of a document that was not kept is read again from.
#[derive(Debug)]
struct Source {
    abs: PathBuf,
    rel: String,
    key: Key,
}

/// Reads, indexes with the counts of `wanted`, and keeps the text when
/// `keep` (bytes of text this load may still keep) allows and, unless
/// `keep_all`, the file holds one of the wanted terms. A file holding none
/// of them can only matter to a later step through other terms; its text is
/// then read again from disk, checked to be the same version.
fn read_doc(
    entry: &Entry,
    (set, wanted): (&TermSet, &[(u64, &str)]),
    keep_all: bool,
    keep: &AtomicUsize,
) -> Result<Arc<Doc>, Skip> {
    if entry.size > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let text = read_text(&entry.abs, &entry.rel, None)?;
    // On a tree too large to keep every text, the file is tokenized once
    // for its filter, and the wanted terms are counted from the same tokens.
    let (counts, filter) = if keep_all {
        (set.count(&text), None)
    } else {
        let (filter, counts) = TermFilter::build(&text, wanted);
        (counts, Some(filter))
    };
    let memo: Vec<(u64, u32)> = wanted
        .iter()
        .map(|(h, _)| *h)
        .zip(counts.iter().copied())
        .collect();
    let holds = keep_all || counts.iter().any(|&n| n > 0);
    let kept = holds
        && keep
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(text.len())
            })
            .is_ok();
    let source = (!kept).then(|| Source {
        abs: entry.abs.clone(),
        rel: entry.rel.clone(),
        key: key(entry),
    });
    Ok(Arc::new(Doc::new(&entry.rel, text, memo, source, filter)))
}

/// A Bloom filter of the distinct index terms of a file (by [`term_hash`]):
/// [`TermFilter::may_hold`] is true for every term the file holds, and for
/// about 2 % of the others (10 bits and 5 probes a term). It lets a scan
/// for terms skip the files that cannot hold them, so a text that was not
/// kept is read again only when it may matter: on the Linux kernel, each
/// later whole-tree scan (gap holders, link holders, a new keyword's counts)
/// re-read some 55,000 files without it.
///
/// [`term_hash`]: crate::query::term_hash
#[derive(Debug)]
struct TermFilter {
    /// A power of two of 64-bit words.
    bits: Box<[u64]>,
}

/// Probes per term of a [`TermFilter`].
const FILTER_PROBES: u64 = 5;
/// Bits per distinct term of a [`TermFilter`] (before rounding up to a power of two words).
const FILTER_BITS_PER_TERM: usize = 10;

impl TermFilter {
    /// The filter of `text`'s terms, and the exact counts of `wanted` in it
    /// (what [`TermSet::count`] gives), from one tokenization.
    fn build(text: &str, wanted: &[(u64, &str)]) -> (TermFilter, Vec<u32>) {
        let mut hashes: Vec<u64> = Vec::with_capacity(text.len() / 8);
        for_each_term_hash(text, |h| hashes.push(h));
        hashes.sort_unstable();
        let counts = wanted
            .iter()
            .map(|&(h, t)| {
                if t.is_empty() {
                    return 0;
                }
                let a = hashes.partition_point(|&x| x < h);
                let b = hashes.partition_point(|&x| x <= h);
                (b - a) as u32
            })
            .collect();
        hashes.dedup();
        let words = (hashes.len() * FILTER_BITS_PER_TERM)
            .div_ceil(64)
            .max(1)
            .next_power_of_two();
        let mut filter = TermFilter {
            bits: vec![0u64; words].into_boxed_slice(),
        };
        for &h in &hashes {
            for (w, b) in TermFilter::probes(h, words) {
                filter.bits[w] |= b;
            }
        }
        (filter, counts)
    }

    /// The (word, bit mask) of each probe of `hash` in a filter of `words`
    /// words (a power of two): double hashing of the mixed hash's halves.
    fn probes(hash: u64, words: usize) -> impl Iterator<Item = (usize, u64)> {
        // splitmix64's finaliser: term hashes of similar terms are close.
        let mut z = hash.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let (h1, h2) = (z & 0xFFFF_FFFF, (z >> 32) | 1);
        let mask = (words * 64 - 1) as u64;
        (0..FILTER_PROBES).map(move |i| {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) & mask;
            ((bit / 64) as usize, 1u64 << (bit % 64))
        })
    }

    /// False when the file certainly lacks the term `hash`.
    fn may_hold(&self, hash: u64) -> bool {
        TermFilter::probes(hash, self.bits.len()).all(|(w, b)| self.bits[w] & b != 0)
    }

    /// Heap bytes of the filter.
    fn heap_bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

/// The text of the walked file `abs` (`rel` below the root), or why it is
/// not indexed. With `expect`, only that version of the file is read (else
/// [`Skip::Unreadable`]).
fn read_text(abs: &std::path::Path, rel: &str, expect: Option<&Key>) -> Result<String, Skip> {
    // Never through a link below the root, even one swapped in after the walk.
    let file = crate::safe_open::open_walked(abs, rel).map_err(|_| Skip::Unreadable)?;
    if let Some(expect) = expect {
        let meta = file.metadata().map_err(|_| Skip::Unreadable)?;
        let now: Key = (
            meta.len(),
            meta.modified().ok(),
            crate::walk::ctime(&meta),
            crate::walk::file_id(&meta),
        );
        if now != *expect {
            return Err(Skip::Unreadable);
        }
    }
    let mut bytes = Vec::with_capacity(expect.map_or(0, |k| k.0 as usize));
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| Skip::Unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let bytes = decode(bytes)?;
    // Minified: mean line length (bytes / lines, lines = newlines + 1) above
    // MINIFIED_MEAN_LINE, i.e. fewer than len / (MINIFIED_MEAN_LINE + 1)
    // newlines. Counting stops once there are that many (SIMD memchr): a
    // second full pass over every file cost 0.2 s on the Linux kernel.
    let enough = bytes.len() / (MINIFIED_MEAN_LINE + 1);
    if bytes.len() > 4096 && memchr::memchr_iter(b'\n', &bytes).take(enough).count() < enough
        || rel.ends_with(".min.js")
        || rel.ends_with(".min.css")
    {
        return Err(Skip::Minified);
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A file's bytes as text to index: UTF-16 with a byte-order mark (FF FE
/// little-endian, FE FF big-endian; Windows editors write `.cs`, `.ps1` and
/// `.rc` files so) is decoded to UTF-8 without its mark (unpaired surrogates
/// and an odd last byte become U+FFFD); anything else is returned as it is,
/// to be decoded as UTF-8, lossily. Binary: a NUL in the first 8 KiB (of the
/// decoded text for UTF-16). Lines stay lines: UTF-16 `\n` and `\r\n` decode
/// to the same bytes as in UTF-8, so snippet line numbers are the file's.
fn decode(bytes: Vec<u8>) -> Result<Vec<u8>, Skip> {
    let big_endian = match bytes.get(..4) {
        // FF FE 00 00 is UTF-32's little-endian mark: not decoded (binary).
        Some([0xFF, 0xFE, 0, 0]) => None,
        _ => match bytes.get(..2) {
            Some([0xFF, 0xFE]) => Some(false),
            Some([0xFE, 0xFF]) => Some(true),
            _ => None,
        },
    };
    let bytes = match big_endian {
        None => bytes,
        Some(be) => {
            let body = &bytes[2..];
            let units = body.chunks_exact(2).map(|u| {
                let u = [u[0], u[1]];
                if be {
                    u16::from_be_bytes(u)
                } else {
                    u16::from_le_bytes(u)
                }
            });
            let mut text: String = char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            if body.len() % 2 == 1 {
                text.push(char::REPLACEMENT_CHARACTER);
            }
            text.into_bytes()
        }
    };
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(Skip::Binary);
    }
    Ok(bytes)
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

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in text.encode_utf16() {
            out.extend(if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        out
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded() {
        let text = "# café\r\ndef frobnicate_widget():\r\n    return '✓'\n";
        for be in [false, true] {
            let got = decode(utf16(text, be)).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), text, "big endian: {be}");
        }
        // An unpaired surrogate and an odd last byte become U+FFFD.
        let mut bytes = vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0, b'c'];
        assert_eq!(
            String::from_utf8(decode(bytes.clone()).unwrap()).unwrap(),
            "a\u{FFFD}b\u{FFFD}"
        );
        // Without a mark, or UTF-16 that decodes to NULs, it is binary.
        bytes[0] = b'x';
        assert_eq!(decode(bytes), Err(Skip::Binary));
        assert_eq!(decode(vec![0xFF, 0xFE, 0, 0, 1, 0]), Err(Skip::Binary));
        assert_eq!(decode(b"plain".to_vec()), Ok(b"plain".to_vec()));
    }

    fn full_counts(text: &str) -> std::collections::HashMap<u64, u32> {
        let mut m = std::collections::HashMap::new();
        for_each_term_hash(text, |h| *m.entry(h).or_insert(0) += 1);
        m
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// The scan-based counts agree exactly with full tokenization, whatever
        /// the text (control bytes included: case folding maps 0x14 onto `4`
        /// and 0x7f onto a folded `_`).
        #[test]
        fn scanned_counts_equal_full_tokenization(
            text in "[a-zA-Z0-9_ .()\\n:é\u{14}\u{7f}-]{0,200}",
            picks in proptest::collection::vec(0usize..64, 1..8),
        ) {
            let full = full_counts(&text);
            let doc = Doc::for_test("x.py", &text);
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
                let held = !holders_many(&[&doc], &[*t], 1)[0].is_empty();
                proptest::prop_assert_eq!(held, expect > 0);
                proptest::prop_assert_eq!(doc.tf(*h), expect);
            }
            // A large tree's filter: no false negatives, the same counts.
            let (filter, built) = TermFilter::build(&text, &terms);
            proptest::prop_assert!(full.keys().all(|&h| filter.may_hold(h)));
            proptest::prop_assert_eq!(&built, &counts[0]);
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
        let got = holders_many(&refs, &["token_expiry", "expiry", "missing", "EXPIRY"], 10);
        assert_eq!(got[0], [0, 1]);
        assert_eq!(
            got[1],
            [0, 1, 2],
            "a part of an identifier is a term of its own"
        );
        assert!(got[2].is_empty());
        assert_eq!(got[3], got[1], "names are matched without regard to case");
        assert_eq!(
            holders_many(&refs, &["expiry"], 1)[0],
            [0],
            "at most `max` holders, in order"
        );
    }

    /// Over many chunks, and as files are edited, added and removed between
    /// calls, the cached holder lists answer exactly what a scan would.
    #[test]
    fn chunked_holder_lists_stay_exact_as_files_change() {
        let text = |i: usize| match i % 7 {
            0 => format!("alpha_{} = kappa\n", i % 3),
            1 => "kappa = 1\n".to_string(),
            _ => format!("other_{i} = 2\n"),
        };
        let mut docs: Vec<Arc<Doc>> = (0..3000)
            .map(|i| Arc::new(Doc::for_test("a.py", &text(i))))
            .collect();
        assert!(holder_chunks(&docs.iter().map(|d| &**d).collect::<Vec<_>>()).len() > 4);
        let names = ["kappa", "alpha_1", "zzz_nowhere", "other_2999"];
        let brute = |docs: &[&Doc], name: &str, max: usize| -> Vec<usize> {
            (0..docs.len())
                .filter(|&i| docs[i].tf(term_hash(name)) > 0)
                .take(max)
                .collect()
        };
        let mut seed = 7u64;
        for round in 0..6 {
            let refs: Vec<&Doc> = docs.iter().map(|d| &**d).collect();
            for max in [1, 5, 10_000] {
                let got = holders_many(&refs, &names, max);
                for (name, got) in names.iter().zip(got) {
                    assert_eq!(
                        got,
                        brute(&refs, name, max),
                        "round {round}, {name}, max {max}"
                    );
                }
            }
            // Edit one file, add one, remove one.
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (seed >> 33) as usize % docs.len();
            docs[i] = Arc::new(Doc::for_test("a.py", "kappa alpha_1 = 3\n"));
            docs.insert(
                (i * 7) % docs.len(),
                Arc::new(Doc::for_test("b.py", "alpha_1\n")),
            );
            docs.remove((i * 13) % docs.len());
        }
    }

    #[test]
    fn a_full_holder_cache_is_emptied_without_losing_answers() {
        let docs = [Doc::for_test("a.py", "alpha = beta\n")];
        let refs: Vec<&Doc> = docs.iter().collect();
        assert_eq!(holders_many(&refs, &["alpha"], 3)[0], [0]);
        // `alpha` is answered from the cache while the many new names make it
        // overflow and be emptied.
        let many: Vec<String> = (0..MAX_CACHED_HOLDER_LISTS)
            .map(|i| format!("n{i}"))
            .collect();
        let mut names: Vec<&str> = vec!["alpha"];
        names.extend(many.iter().map(String::as_str));
        names.push("beta");
        let got = holders_many(&refs, &names, 3);
        assert_eq!(got[0], [0]);
        assert!(got[1].is_empty());
        assert_eq!(got[names.len() - 1], [0]);
    }

    /// A file holding none of the query's terms keeps its counts, not its
    /// text; a later step that needs the text reads it again, exactly, and
    /// only while the file is still the version indexed.
    #[test]
    fn texts_of_files_without_the_wanted_terms_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("a.py"), "alpha = 1\n").unwrap();
        std::fs::write(p.join("b.py"), "beta_two = other\n").unwrap();
        std::fs::write(p.join("c.py"), "gamma = 3\n").unwrap();
        // Texts larger in all than the corpus keeps (as on the Linux kernel).
        let corpus = Corpus {
            keep_text_bytes: 16,
            ..Corpus::default()
        };
        let wanted = [(term_hash("alpha"), "alpha")];
        let loaded = corpus.load(walk(p), &wanted, &|| false);
        let doc = |name: &str| {
            loaded
                .iter()
                .find(|l| l.entry.rel == name)
                .unwrap()
                .doc
                .clone()
                .unwrap()
        };
        let (a, b, c) = (doc("a.py"), doc("b.py"), doc("c.py"));
        assert!(a.text.get().is_some(), "a holder keeps its text");
        assert!(b.text.get().is_none() && c.text.get().is_none());
        assert!(b.heap_bytes() < 128 + b.len() + 200);
        let terms = [(term_hash("beta"), "beta"), (term_hash("gamma"), "gamma")];
        assert_eq!(term_counts(&[&a, &b, &c], &terms), [[0, 0], [1, 0], [0, 1]]);
        assert_eq!(
            holders_many(&[&a, &b, &c], &["two", "gamma"], 5),
            [vec![1], vec![2]]
        );
        assert!(b.text.get().is_none(), "a scan does not keep what it read");
        assert_eq!(b.text(), "beta_two = other\n");
        // Edited after it was indexed: the old version is not read again
        // (its text is empty, never the new file's), the next load reads
        // the new one.
        std::fs::write(p.join("c.py"), "gamma_delta = 33\n").unwrap();
        assert_eq!(c.text(), "");
        let again = corpus.load(walk(p), &wanted, &|| false);
        let c2 = again[2].doc.as_ref().unwrap();
        assert_eq!(c2.tf(term_hash("delta")), 1);
        assert_eq!(c2.text(), "gamma_delta = 33\n");
        // A tree whose texts fit keeps them all: nothing is read twice.
        let small = Corpus::default().load(walk(p), &wanted, &|| false);
        assert!(small
            .iter()
            .all(|l| l.doc.as_ref().unwrap().text.get().is_some()));
    }

    #[test]
    fn scans_read_again_only_files_that_may_hold_the_terms() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let n = 2000;
        for i in 0..n {
            let extra = if i == n - 7 { "rare_name()\n" } else { "" };
            std::fs::write(
                p.join(format!("f{i:04}.py")),
                format!("common = {i}\n{extra}"),
            )
            .unwrap();
        }
        // No text is kept (as for most files on the Linux kernel).
        let corpus = Corpus {
            keep_text_bytes: 16,
            ..Corpus::default()
        };
        let loaded = corpus.load(walk(p), &[(term_hash("zzz"), "zzz")], &|| false);
        let docs: Vec<Arc<Doc>> = loaded.iter().map(|l| l.doc.clone().unwrap()).collect();
        let docs: Vec<&Doc> = docs.iter().map(|d| &**d).collect();
        let rereads = || -> usize { docs.iter().map(|d| d.rereads.load(Ordering::Relaxed)).sum() };
        assert!(docs.iter().all(|d| d.text.get().is_none()));
        // A new term's counts: exact, and only the files its filter lets
        // through are read again (about 2 % by chance), not all 2,000.
        let counts = term_counts(&docs, &[(term_hash("rare"), "rare")]);
        let holders: Vec<usize> = (0..n).filter(|&i| counts[i][0] > 0).collect();
        assert_eq!(holders.len(), 1);
        assert_eq!(docs[holders[0]].text(), "common = 1993\nrare_name()\n");
        assert!(rereads() < n / 10, "{} files read again", rereads());
        // The first holders of a name every file holds are found without
        // reading the whole tree; a rare one's are still exact.
        let before = rereads();
        let held = holders_many(&docs, &["common", "rare_name"], 3);
        assert_eq!(held, [vec![0, 1, 2], holders.clone()]);
        assert!(
            rereads() - before < n * 3 / 4,
            "{} files read again",
            rereads() - before
        );
    }

    #[test]
    fn an_edited_file_is_never_served_stale() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.py");
        std::fs::write(&f, "alpha = 1\n").unwrap();
        let corpus = Corpus::default();
        // Holder lists are cached too (by the documents' ids), so ask twice.
        let holders = |loaded: &[Loaded]| {
            let docs: Vec<&Doc> = loaded.iter().map(|l| &**l.doc.as_ref().unwrap()).collect();
            holders_many(&docs, &["alpha"], 5).remove(0)
        };
        let first = corpus.load(walk(dir.path()), &[], &|| false);
        assert!(first[0].doc.as_ref().unwrap().tf(term_hash("alpha")) > 0);
        assert_eq!(holders(&first), [0]);
        assert_eq!(holders(&first), [0]);
        std::fs::write(&f, "beta_gamma = 22\n").unwrap();
        let second = corpus.load(walk(dir.path()), &[], &|| false);
        let doc = second[0].doc.as_ref().unwrap();
        assert_eq!(doc.tf(term_hash("alpha")), 0);
        assert_eq!(doc.tf(term_hash("beta_gamma")), 1);
        assert!(holders(&second).is_empty(), "a cached holder list is stale");
    }
}
