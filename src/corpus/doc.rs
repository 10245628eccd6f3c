//! One indexed version of a file ([`Doc`]): its text (kept or read again),
//! length, path terms, term counts and symbols.

use super::counts::memo_get;
use super::filter::TermFilter;
use super::read::{read_text, Source};
use crate::cache::symbols::SymbolKey;
use crate::cache::terms::TermsKey;
use crate::cache::DiskCache;
use crate::lang::{self, LanguageSpec, Symbols};
use crate::query::{for_each_name_term_hash, for_each_term_hash};
#[cfg(test)]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Memoised term counts per file version above this many entries are replaced
/// by the file's full term counts (a file asked about that often is hot).
pub(super) const MAX_MEMO_TERMS: usize = 384;

/// One indexed version of a file.
#[derive(Debug)]
pub struct Doc {
    /// Unique for the life of the process (never reused, unlike an address):
    /// what cached lookups over a set of documents are keyed by.
    pub(super) id: u64,
    /// The file's text, when kept (see [`Corpus::load`]): else it is read
    /// again from `source` when a step needs it.
    pub(super) text: OnceLock<String>,
    /// Bytes of the text: BM25's document length.
    len: usize,
    /// Where a text that was not kept is read again from, and the version
    /// (size, mtime, ctime, inode) it must still be.
    pub(super) source: Option<Box<Source>>,
    /// (term hash, count) of every term, sorted by hash; built on first
    /// need, or read from the persistent cache with the text.
    pub(super) terms: OnceLock<Vec<(u64, u32)>>,
    /// (term hash, count) of the terms scanned for so far (zeros included),
    /// sorted by hash (looked up by binary search: a scan per term made
    /// query terms x memo entries work per file, probe D5).
    pub(super) memo: Mutex<Vec<(u64, u32)>>,
    /// Which terms the body may hold (no false negatives), on a tree too
    /// large to keep every text: a term it rules out has count 0 without
    /// reading the file again ([`TermFilter`]).
    pub(super) filter: Option<TermFilter>,
    /// Times the text was read again (tests check scans skip files).
    #[cfg(test)]
    pub(super) rereads: AtomicUsize,
    /// Times the text was tokenized or scanned for terms (tests check that
    /// a term index from the persistent cache leaves nothing to scan).
    #[cfg(test)]
    pub(super) scans: AtomicUsize,
    /// Hashes of the terms of the relative path (directories and file name).
    pub path_terms: Vec<u64>,
    /// Hashes of the terms of the file name's stem only.
    pub stem_terms: Vec<u64>,
    pub language: Option<&'static LanguageSpec>,
    /// Whether the file is a bundler's or compiler's output: its last line
    /// links its source map (`//# sourceMappingURL=…` or the CSS form),
    /// as esbuild, webpack, Rollup, tsc and Sass write it.
    pub source_mapped: bool,
    /// The parsed symbols, once a parse finished or hit the file's budget
    /// (a parse the call stopped is not kept). Locked while parsing, so a
    /// file is parsed by one thread at a time.
    symbols: Mutex<Option<Arc<Symbols>>>,
    /// The persistent cache the symbols are looked up in before a parse
    /// and stored in after a complete one (`--cache-dir`); `None`: none.
    disk: Option<Arc<DiskCache>>,
}

/// The term counts of a file known when it is read.
pub(super) enum Known {
    /// (term hash, count) of some terms (the memo: the wanted terms).
    Some(Vec<(u64, u32)>),
    /// (term hash, count) of every term, sorted by hash, as [`Doc::terms`]
    /// gives them (from the persistent cache).
    Every(Vec<(u64, u32)>),
}

/// Whether the last non-blank line of `text` links a source map (see
/// [`Doc::source_mapped`]): code that merely mentions one (a bundler's own
/// source) has it elsewhere.
fn links_source_map(text: &str) -> bool {
    let last = text
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .trim_start();
    last.starts_with("//# sourceMappingURL=") || last.starts_with("/*# sourceMappingURL=")
}

/// `rel` without its file name's extension (`src/auth.py` → `src/auth`,
/// `foo.test.ts` → `foo.test`; `.gitignore` and `Makefile` are kept).
pub(crate) fn without_extension(rel: &str) -> &str {
    let name_at = rel.rfind('/').map_or(0, |i| i + 1);
    match rel[name_at..].rfind('.') {
        Some(dot) if dot > 0 => &rel[..name_at + dot],
        _ => rel,
    }
}

impl Doc {
    /// Indexes `text`: its length, with the term counts already `known`.
    /// The text is kept unless `source` is given.
    pub(super) fn new(
        rel: &str,
        text: String,
        known: Known,
        source: Option<Source>,
        filter: Option<TermFilter>,
        disk: Option<Arc<DiskCache>>,
    ) -> Doc {
        let (mut memo, terms) = match known {
            Known::Some(memo) => (memo, None),
            Known::Every(terms) => (Vec::new(), Some(terms)),
        };
        memo.sort_unstable_by_key(|&(h, _)| h);
        memo.dedup_by_key(|&mut (h, _)| h);
        let mut path_terms = Vec::new();
        for_each_name_term_hash(without_extension(rel), |h| path_terms.push(h));
        path_terms.sort_unstable();
        path_terms.dedup();
        let file = rel.rsplit('/').next().unwrap_or(rel);
        let stem = file.split('.').next().unwrap_or(file);
        let mut stem_terms = Vec::new();
        for_each_name_term_hash(stem, |h| stem_terms.push(h));
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Doc {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            language: lang::language_of(rel),
            source_mapped: links_source_map(&text),
            len: text.len(),
            text: match source {
                Some(_) => OnceLock::new(),
                None => OnceLock::from(text),
            },
            source: source.map(Box::new),
            terms: terms.map_or_else(OnceLock::new, OnceLock::from),
            memo: Mutex::new(memo),
            filter,
            #[cfg(test)]
            rereads: AtomicUsize::new(0),
            #[cfg(test)]
            scans: AtomicUsize::new(0),
            path_terms,
            stem_terms,
            symbols: Mutex::new(None),
            disk,
        }
    }

    /// A document built from text in memory (for tests and benchmarks).
    #[cfg(any(test, feature = "test-support"))]
    pub fn for_test(rel: &str, text: &str) -> Doc {
        Doc::new(
            rel,
            text.to_string(),
            Known::Some(Vec::new()),
            None,
            None,
            None,
        )
    }

    /// False when the body certainly lacks the term `hash` (its filter rules
    /// it out); true when it may hold it (or has no filter).
    pub(super) fn may_hold(&self, hash: u64) -> bool {
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
    pub(super) fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> R {
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
        match read_text(&src.abs, &src.rel, src.key.0, Some(&src.key), None) {
            Ok(t) if t.len() == self.len => t,
            _ => {
                tracing::debug!(path = %src.rel, "file changed since it was indexed: not read again");
                String::new()
            }
        }
    }

    /// Every term of the body with its count, sorted by hash (tokenized on
    /// first use, unless the persistent cache gave them when it was read).
    pub fn terms(&self) -> &[(u64, u32)] {
        self.terms.get_or_init(|| {
            self.scanned();
            self.with_text(count_terms)
        })
    }

    /// Counts one tokenization or scan of the text for terms (tests only).
    #[inline]
    pub(super) fn scanned(&self) {
        #[cfg(test)]
        self.scans.fetch_add(1, Ordering::Relaxed);
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
    /// With a persistent cache, a complete parse another process stored for
    /// the same text is read instead of parsing.
    pub fn symbols_until(&self, stop: &dyn Fn() -> bool) -> Arc<Symbols> {
        let mut slot = self.symbols.lock().expect("symbols poisoned");
        if let Some(s) = &*slot {
            return s.clone();
        }
        let s = Arc::new(
            self.language
                .map(|l| self.parse(l, stop))
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
    /// already there). Looks in the persistent cache first, as
    /// [`Doc::symbols_until`] does.
    pub fn parse_ahead(&self, stop: &dyn Fn() -> bool) -> bool {
        let Some(language) = self.language else {
            return false;
        };
        let mut slot = self.symbols.lock().expect("symbols poisoned");
        if slot.is_some() {
            return true;
        }
        let s = self.parse(language, stop);
        let kept = s.capped.is_none();
        if kept {
            *slot = Some(Arc::new(s));
        }
        kept
    }

    /// The symbols of the text as `language`: from the persistent cache when
    /// it has them (looked up even when `stop` is already set: reading an
    /// entry costs far less than a parse), else parsed
    /// ([`lang::symbols_until`]) and, when the parse is complete, stored
    /// there. Without a cache, a parse.
    fn parse(&self, language: &'static LanguageSpec, stop: &dyn Fn() -> bool) -> Symbols {
        let text = self.text();
        let Some(disk) = &self.disk else {
            return lang::symbols_until(language, text, stop);
        };
        let key = SymbolKey::new(language, text);
        if let Some(s) = disk.symbols(&key) {
            return s;
        }
        let s = lang::symbols_until(language, text, stop);
        disk.store_symbols(&key, &s);
        s
    }

    /// Whether the file could define `name` (not as a local): the kept
    /// symbols' answer when the file was parsed, else the cheap check of its
    /// lines ([`lang::may_define`]: false only when no line has the name
    /// where a definition of the file's language would). False for a file
    /// of no language; an unreadable or changed file (empty text) cannot.
    pub fn may_define(&self, name: &str) -> bool {
        let Some(language) = self.language else {
            return false;
        };
        if let Some(s) = self.kept_symbols() {
            return s.defines(name).any(|d| !d.local);
        }
        self.with_text(|t| lang::may_define(language, t, name))
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

/// Every index term of `text` with its count, sorted by hash: the full
/// tokenization [`Doc::terms`] does once per file.
pub(super) fn count_terms(text: &str) -> Vec<(u64, u32)> {
    let mut counts: rustc_hash::FxHashMap<u64, u32> = Default::default();
    for_each_term_hash(text, |h| *counts.entry(h).or_insert(0) += 1);
    let mut terms: Vec<(u64, u32)> = counts.into_iter().collect();
    terms.sort_unstable();
    terms
}

/// The term index of `text` from the persistent cache, or, on a miss, the
/// text tokenized whole ([`count_terms`]) and stored there for the next
/// process; the bool says whether it was tokenized.
pub(super) fn cached_terms(disk: &DiskCache, text: &str) -> (Vec<(u64, u32)>, bool) {
    let key = TermsKey::new(text);
    if let Some(terms) = disk.terms(&key) {
        return (terms, false);
    }
    let terms = count_terms(text);
    disk.store_terms(&key, &terms);
    (terms, true)
}
