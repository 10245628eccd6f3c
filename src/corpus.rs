//! File contents and their index statistics, cached by (path, size, mtime).
//!
//! A [`Doc`] is built once per version of a file: lossily decoded text, the
//! term counts used by BM25 (hash → count, sorted), the terms of its path, and
//! lazily its tree-sitter symbols. The cache key includes size and mtime, so an
//! edited file is re-read on the next call and never served stale.

use crate::lang::{self, LanguageSpec, Symbols};
use crate::query::for_each_term_hash;
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
}

/// One indexed version of a file.
#[derive(Debug)]
pub struct Doc {
    pub text: String,
    /// Number of index terms (BM25 document length).
    pub len: u32,
    /// (term hash, count), sorted by hash.
    pub terms: Vec<(u64, u32)>,
    /// Hashes of the terms of the relative path (directories and file name).
    pub path_terms: Vec<u64>,
    /// Hashes of the terms of the file name's stem only.
    pub stem_terms: Vec<u64>,
    pub language: Option<&'static LanguageSpec>,
    symbols: OnceLock<Arc<Symbols>>,
}

impl Doc {
    fn new(rel: &str, text: String) -> Doc {
        let mut counts: rustc_hash::FxHashMap<u64, u32> = Default::default();
        let mut len = 0u32;
        for_each_term_hash(&text, |h| {
            *counts.entry(h).or_insert(0) += 1;
            len += 1;
        });
        let mut terms: Vec<(u64, u32)> = counts.into_iter().collect();
        terms.sort_unstable();
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
            terms,
            path_terms,
            stem_terms,
            symbols: OnceLock::new(),
        }
    }

    /// A document built from text in memory (for tests and benchmarks).
    pub fn for_test(rel: &str, text: &str) -> Doc {
        Doc::new(rel, text.to_string())
    }

    /// Occurrences of a term (by hash) in the body.
    pub fn tf(&self, hash: u64) -> u32 {
        self.terms
            .binary_search_by_key(&hash, |&(h, _)| h)
            .map_or(0, |i| self.terms[i].1)
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
            + self.terms.len() * 16
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
    pub fn load(&self, entries: Vec<Entry>) -> Vec<Loaded> {
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
                let doc = hit.unwrap_or_else(|| read_doc(&entry));
                Loaded { entry, doc }
            })
            .collect();
        let mut cache = self.cache.lock().expect("corpus cache poisoned");
        for l in &loaded {
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

fn read_doc(entry: &Entry) -> Result<Arc<Doc>, Skip> {
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
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(Skip::Binary);
    }
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    if bytes.len() > 4096 && bytes.len() / lines > MINIFIED_MEAN_LINE
        || entry.rel.ends_with(".min.js")
        || entry.rel.ends_with(".min.css")
    {
        return Err(Skip::Minified);
    }
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Arc::new(Doc::new(&entry.rel, text)))
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
        let loaded = Corpus::default().load(walk(p));
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

    #[test]
    fn an_edited_file_is_never_served_stale() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.py");
        std::fs::write(&f, "alpha = 1\n").unwrap();
        let corpus = Corpus::default();
        let first = corpus.load(walk(dir.path()));
        assert!(first[0].doc.as_ref().unwrap().tf(term_hash("alpha")) > 0);
        std::fs::write(&f, "beta_gamma = 22\n").unwrap();
        let second = corpus.load(walk(dir.path()));
        let doc = second[0].doc.as_ref().unwrap();
        assert_eq!(doc.tf(term_hash("alpha")), 0);
        assert_eq!(doc.tf(term_hash("beta_gamma")), 1);
    }
}
