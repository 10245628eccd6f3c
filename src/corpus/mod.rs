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
//! With the persistent cache (`--cache-dir`), each file read gets its whole
//! term index from there, named by its text (`cache/terms.rs`), or on a miss
//! is tokenized once and the index stored: a fresh process then holds what a
//! server's prefetch leaves (term counts and holder searches are lookups),
//! paying for reading, hashing (blake3) and one small entry per file
//! instead of the scans. Above the text cap the index only builds the
//! file's filter and the wanted terms' counts (see [`Corpus::load`]).
//!
//! BM25's document length is the file's size in bytes rather than its number
//! of terms: only its ratio to the mean enters BM25, and on the development
//! set (190 tasks, cycle 1) the ranking was the same at Acc@1/3/5 (Acc@10
//! 85.8 → 86.3, MRR 0.701 either way) while no file needs tokenizing whole.

mod counts;
mod doc;
mod filter;
mod holders;
mod read;

pub use counts::term_counts;
#[cfg(test)]
pub(crate) use doc::without_extension;
pub use doc::Doc;
pub use holders::holders_many;

use crate::cache::DiskCache;
use crate::query::TermSet;
use crate::walk::Entry;
use rayon::prelude::*;
use read::read_doc;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Files above this many bytes are skipped as `too_large` (DESIGN.md: 1 MiB).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
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
/// bounds a cold call's peak memory; a smaller tree keeps every text. 192 MiB,
/// measured on that tree with a 9-word task: peak RSS 529 MB and 14.6 s
/// against 612 MB and 15.0 s at 256 MiB (the same answer), since the per-file
/// term filter makes a dropped text's re-read rare.
const MAX_KEPT_TEXT_BYTES: usize = 192 * 1024 * 1024;

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

/// (size, mtime, ctime, (device, inode)) of a file version.
pub(crate) type Key = (
    u64,
    Option<SystemTime>,
    Option<(i64, i64)>,
    Option<(u64, u64)>,
);

pub(crate) fn key(e: &Entry) -> Key {
    (e.size, e.mtime, e.ctime, e.file_id)
}
type Cached = (Key, Result<Arc<Doc>, Skip>);

/// Process-wide cache of file versions.
pub struct Corpus {
    cache: Mutex<Cache>,
    /// Bytes of text one load keeps ([`MAX_KEPT_TEXT_BYTES`]; less in tests).
    keep_text_bytes: usize,
    /// The persistent cache every document looks its symbols up in before
    /// it parses, and its term index before it is tokenized (`--cache-dir`);
    /// `None`: none, nothing on disk.
    disk: Option<Arc<DiskCache>>,
}

impl Default for Corpus {
    fn default() -> Corpus {
        Corpus {
            cache: Mutex::default(),
            keep_text_bytes: MAX_KEPT_TEXT_BYTES,
            disk: None,
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
    /// An empty corpus whose documents look their symbols up in `disk`
    /// before parsing and store complete parses there.
    pub fn with_disk_cache(disk: Option<Arc<DiskCache>>) -> Corpus {
        Corpus {
            disk,
            ..Corpus::default()
        }
    }

    /// Loads every entry, reading only files whose (size, mtime, ctime, inode)
    /// changed since the last call. Runs on all cores.
    /// Files read now are indexed with the counts of `wanted` (the query's
    /// terms, distinct) in the same pass; with the persistent cache, with
    /// every term's count, from the cache when it has the text's index (kept
    /// when every text is; on a tree whose texts are more than this load
    /// keeps, only the filter and the wanted counts made from it are).
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
        // The walk's root, opened once for all its files (see `Beneath`).
        let beneath = entries
            .first()
            .and_then(|e| {
                let depth = e.rel.split('/').count();
                e.abs.ancestors().nth(depth)
            })
            .and_then(|root| crate::safe_open::Beneath::open(root).ok());
        let loaded: Vec<Loaded> = entries
            .into_par_iter()
            .zip(cached.into_par_iter())
            .map(|(entry, hit)| {
                let doc = match hit {
                    Some(doc) => doc,
                    None if stop() => Err(Skip::NotRead),
                    None => read_doc(
                        &entry,
                        beneath.as_ref(),
                        (&set, wanted),
                        keep_all,
                        &keep,
                        &self.disk,
                    ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::query::term_hash;
    use crate::walk::walk;

    #[test]
    fn a_private_module_is_named_by_its_word() {
        // `_border.py` is the module a task about a "border" names; the
        // leading underscore is Python's privacy mark, not part of the word.
        let doc = Doc::for_test("src/textual/_border.py", "def get_box(): pass\n");
        let border = term_hash("border");
        assert!(doc.path_terms.binary_search(&border).is_ok());
        assert!(doc.stem_terms.contains(&border));
        // In a body, `self._print(x)` stays a call of `_print`, not the word.
        let body = Doc::for_test("a.py", "self._print(x)\n");
        assert_eq!(body.tf(term_hash("print")), 0);
    }

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

    /// The documents of a load, by relative path.
    fn docs_of(loaded: &[Loaded]) -> Vec<(String, Arc<Doc>)> {
        loaded
            .iter()
            .map(|l| (l.entry.rel.clone(), l.doc.clone().unwrap()))
            .collect()
    }

    /// Tokenizations and scans for terms of the documents' texts so far.
    fn scans(docs: &[(String, Arc<Doc>)]) -> usize {
        use std::sync::atomic::Ordering;
        docs.iter()
            .map(|(_, d)| d.scans.load(Ordering::Relaxed))
            .sum()
    }

    /// Writes the small tree the term index tests search.
    fn index_tree(p: &std::path::Path) {
        std::fs::write(
            p.join("a.py"),
            "def token_expiry(user):\n    return user.issued_at\n",
        )
        .unwrap();
        std::fs::write(
            p.join("b.py"),
            "from a import token_expiry\nTokenStore = token_expiry\n",
        )
        .unwrap();
        std::fs::write(
            p.join("c.rs"),
            "fn refresh_token() { let issued_at = 3; }\n",
        )
        .unwrap();
        std::fs::write(p.join("d.md"), "Nothing about tokens here.\n").unwrap();
    }

    /// A new handle on the cache in `dir`, as a new process would open.
    fn disk(dir: &std::path::Path) -> Option<Arc<DiskCache>> {
        Some(Arc::new(DiskCache::open(dir, &[]).unwrap()))
    }

    /// What a call asks the corpus: some terms' counts and some names' holders.
    fn answers(docs: &[(String, Arc<Doc>)]) -> (Vec<Vec<u32>>, Vec<Vec<usize>>) {
        let refs: Vec<&Doc> = docs.iter().map(|(_, d)| &**d).collect();
        let terms: Vec<(u64, &str)> = ["token", "expiry", "issued_at", "store", "absent"]
            .iter()
            .map(|t| (term_hash(t), *t))
            .collect();
        let names = [
            "token_expiry",
            "TokenStore",
            "issued",
            "refresh_token",
            "nowhere",
        ];
        (term_counts(&refs, &terms), holders_many(&refs, &names, 10))
    }

    /// The indexed tree, an empty cache directory, a call's wanted terms
    /// and what the corpus answers without a cache.
    #[allow(clippy::type_complexity)]
    fn fixture() -> (
        tempfile::TempDir,
        tempfile::TempDir,
        [(u64, &'static str); 1],
        (Vec<Vec<u32>>, Vec<Vec<usize>>),
    ) {
        let root = tempfile::tempdir().unwrap();
        index_tree(root.path());
        let wanted = [(term_hash("token"), "token")];
        let expected = answers(&docs_of(&Corpus::default().load(
            walk(root.path()),
            &wanted,
            &|| false,
        )));
        (root, tempfile::tempdir().unwrap(), wanted, expected)
    }

    #[test]
    fn a_cached_term_index_leaves_no_text_to_scan() {
        let (root, cache_dir, wanted, expected) = fixture();
        let p = root.path();

        // The first process tokenizes each file once and stores its index.
        let disk1 = disk(cache_dir.path());
        let first =
            docs_of(&Corpus::with_disk_cache(disk1.clone()).load(walk(p), &wanted, &|| false));
        assert_eq!(scans(&first), 4);
        assert!(first.iter().all(|(_, d)| d.terms.get().is_some()));
        assert_eq!(answers(&first), expected);
        assert_eq!(scans(&first), 4, "later counts and holders are lookups");
        let s = disk1.as_ref().unwrap().terms_stats();
        assert_eq!((s.hits, s.misses, s.writes), (0, 4, 4), "{s:?}");

        // A later process reads every index: no text tokenized or scanned,
        // the same counts and holders.
        let disk2 = disk(cache_dir.path());
        let second =
            docs_of(&Corpus::with_disk_cache(disk2.clone()).load(walk(p), &wanted, &|| false));
        assert_eq!(answers(&second), expected);
        assert_eq!(scans(&second), 0);
        for ((_, a), (_, b)) in first.iter().zip(&second) {
            assert_eq!(a.terms(), b.terms());
        }
        let s = disk2.as_ref().unwrap().terms_stats();
        assert_eq!((s.hits, s.misses, s.writes), (4, 0, 0), "{s:?}");

        // An edited file (same size, its old index still on disk) is
        // tokenized again; the others are not.
        let b = p.join("b.py");
        let old = std::fs::read_to_string(&b).unwrap();
        std::fs::write(&b, old.replace("TokenStore", "TokenSpore")).unwrap();
        let disk3 = disk(cache_dir.path());
        let third =
            docs_of(&Corpus::with_disk_cache(disk3.clone()).load(walk(p), &wanted, &|| false));
        let edited = &third.iter().find(|(rel, _)| rel == "b.py").unwrap().1;
        assert_eq!(edited.tf(term_hash("spore")), 1);
        assert_eq!(edited.tf(term_hash("store")), 0);
        assert_eq!(scans(&third), 1, "only the edited file is tokenized");
        let s = disk3.as_ref().unwrap().terms_stats();
        assert_eq!((s.hits, s.misses, s.writes), (3, 1, 1), "{s:?}");
        let plain = answers(&docs_of(
            &Corpus::default().load(walk(p), &wanted, &|| false),
        ));
        assert_eq!(answers(&third), plain);
    }

    #[test]
    fn a_corrupt_term_index_is_a_miss() {
        let (root, cache_dir, wanted, expected) = fixture();
        let p = root.path();
        Corpus::with_disk_cache(disk(cache_dir.path())).load(walk(p), &wanted, &|| false);
        let mut entries = Vec::new();
        let mut stack = vec![cache_dir.path().join("terms")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "idx") {
                    entries.push(path);
                }
            }
        }
        assert_eq!(entries.len(), 4);
        // One cut short, one with a byte flipped, one emptied.
        let bytes = std::fs::read(&entries[0]).unwrap();
        std::fs::write(&entries[0], &bytes[..bytes.len() - 5]).unwrap();
        let mut bytes = std::fs::read(&entries[1]).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        std::fs::write(&entries[1], bytes).unwrap();
        std::fs::write(&entries[2], b"").unwrap();
        let disk2 = disk(cache_dir.path());
        let second =
            docs_of(&Corpus::with_disk_cache(disk2.clone()).load(walk(p), &wanted, &|| false));
        assert_eq!(answers(&second), expected);
        assert_eq!(scans(&second), 3);
        let s = disk2.as_ref().unwrap().terms_stats();
        assert_eq!(
            (s.hits, s.misses, s.invalid, s.writes),
            (1, 3, 3, 3),
            "{s:?}"
        );
        // Rewritten: the next process reads all four.
        let disk3 = disk(cache_dir.path());
        let third =
            docs_of(&Corpus::with_disk_cache(disk3.clone()).load(walk(p), &wanted, &|| false));
        assert_eq!(scans(&third), 0);
        assert_eq!(disk3.as_ref().unwrap().terms_stats().hits, 4);
    }

    #[test]
    fn above_the_text_cap_a_cached_index_gives_filters_not_full_counts() {
        let root = tempfile::tempdir().unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        let p = root.path();
        index_tree(p);
        // Texts larger in all than the corpus keeps (as on the Linux kernel).
        let capped = |disk| Corpus {
            keep_text_bytes: 16,
            ..Corpus::with_disk_cache(disk)
        };
        let wanted = [(term_hash("token"), "token")];
        let expected = answers(&docs_of(&capped(None).load(walk(p), &wanted, &|| false)));
        capped(disk(cache_dir.path())).load(walk(p), &wanted, &|| false);
        let docs = docs_of(&capped(disk(cache_dir.path())).load(walk(p), &wanted, &|| false));
        // Read from the cache, not tokenized; memory as without it: a filter
        // and the wanted terms' counts, no full index, texts not kept.
        assert_eq!(scans(&docs), 0);
        for (rel, d) in &docs {
            assert!(d.terms.get().is_none() && d.filter.is_some(), "{rel}");
            assert!(d.memo.lock().unwrap().len() == 1, "{rel}");
        }
        assert!(docs.iter().filter(|(_, d)| d.text.get().is_none()).count() >= 3);
        assert_eq!(answers(&docs), expected);
    }
}
