//! Term index entries: every index term of one file's text with its count
//! (what `Doc::terms` gives: (term hash, count), sorted by hash), named by
//! the text ([`TermsKey`]), so that a fresh process finds a file's terms as
//! a server's prefetch leaves them: a call's term counts and holder searches
//! are then lookups instead of scans of the text.
//!
//! The payload is fixed-width little-endian: the number of terms `n` (u32),
//! the `n` hashes (u64 each, strictly increasing), then the `n` counts (u32
//! each, none zero): 12 bytes a distinct term. Sealed as symbol entries are
//! (magic `CXT` and the layout's version, then a blake3 check over the key
//! and the payload; see `seal` in the parent module). An entry that is not
//! exactly that (its length, order or counts) is a miss, like a corrupt one.
//! Entries live in `DIR/terms/<build fingerprint>/<2 hex>/<64 hex>.idx`; the
//! fingerprint (build.rs: `src/query/`, `src/corpus/`, this file,
//! `Cargo.lock`, the crate version) covers the tokenizer and the term hash,
//! so no build reads counts another tokenizer made.

use super::{entry_path, DiskCache};
use std::path::PathBuf;

/// The first bytes of every term index entry; the last is the layout's version.
const MAGIC: [u8; 4] = *b"CXT\x01";

/// Bytes of one term in a payload: its hash (8) and its count (4).
const TERM_BYTES: usize = 12;

/// What names a file's term index in the cache: blake3 over a domain tag and
/// the text (the decoded text the index is made from, as `SymbolKey`'s is).
/// The path, size and times are no part of it: an edited file has another
/// key, a file copied or checked out again in another tree the same one.
pub(crate) struct TermsKey(blake3::Hash);

impl TermsKey {
    /// The key of the term index of `text`.
    pub(crate) fn new(text: &str) -> TermsKey {
        let mut h = blake3::Hasher::new();
        h.update(b"ctxloop terms\0");
        h.update(text.as_bytes());
        TermsKey(h.finalize())
    }
}

impl DiskCache {
    /// Where the entry of `key` lives: `terms/<fingerprint>/<2 hex>/<64 hex>.idx`.
    fn terms_path(&self, key: &TermsKey) -> PathBuf {
        entry_path(&self.terms_dir, &key.0, "idx")
    }

    /// The term index stored under `key` ((hash, count), sorted by hash), or
    /// `None` (a miss) when there is no usable entry: none, unreadable,
    /// truncated, corrupt, or not a well-formed index.
    pub(crate) fn terms(&self, key: &TermsKey) -> Option<Vec<(u64, u32)>> {
        self.lookup(
            &self.terms_counts,
            &self.terms_path(key),
            (&MAGIC, &key.0),
            decode,
        )
    }

    /// Stores `terms` (sorted by hash, distinct, no zero count: what
    /// `Doc::terms` gives) under `key`. Errors are logged and ignored.
    pub(crate) fn store_terms(&self, key: &TermsKey, terms: &[(u64, u32)]) {
        let Ok(n) = u32::try_from(terms.len()) else {
            return;
        };
        let mut payload = Vec::with_capacity(4 + terms.len() * TERM_BYTES);
        payload.extend_from_slice(&n.to_le_bytes());
        for &(h, _) in terms {
            payload.extend_from_slice(&h.to_le_bytes());
        }
        for &(_, c) in terms {
            payload.extend_from_slice(&c.to_le_bytes());
        }
        self.store(
            &self.terms_counts,
            &self.terms_path(key),
            (&MAGIC, &key.0),
            &payload,
        );
    }
}

/// The index of an unsealed `payload`, if it is exactly one well-formed
/// index: its length matches its count, the hashes strictly increase (the
/// binary searches of its readers rely on it) and no count is zero.
fn decode(payload: &[u8]) -> Option<Vec<(u64, u32)>> {
    let (n, rest) = payload.split_first_chunk::<4>()?;
    let n = u32::from_le_bytes(*n) as usize;
    if rest.len() != n.checked_mul(TERM_BYTES)? {
        return None;
    }
    let (hashes, counts) = rest.split_at(n * 8);
    let hashes = hashes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let counts = counts
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let terms: Vec<(u64, u32)> = hashes.zip(counts).collect();
    let well_formed =
        terms.windows(2).all(|w| w[0].0 < w[1].0) && terms.iter().all(|&(_, c)| c > 0);
    well_formed.then_some(terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::seal;

    fn cache() -> (tempfile::TempDir, DiskCache) {
        let tmp = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(tmp.path().join("cache"), &[]).unwrap();
        (tmp, cache)
    }

    const TERMS: [(u64, u32); 3] = [(3, 1), (17, 4), (u64::MAX, 2)];

    #[test]
    fn a_stored_index_is_read_back_by_another_handle() {
        let (tmp, cache) = cache();
        let key = TermsKey::new("alpha = beta\n");
        assert_eq!(cache.terms(&key), None, "empty cache: a miss");
        cache.store_terms(&key, &TERMS);
        let other = DiskCache::open(tmp.path().join("cache"), &[]).unwrap();
        assert_eq!(other.terms(&key).as_deref(), Some(&TERMS[..]));
        // An empty file's index is empty, and still an entry.
        let empty = TermsKey::new("");
        cache.store_terms(&empty, &[]);
        assert_eq!(other.terms(&empty), Some(Vec::new()));
        let s = cache.terms_stats();
        assert_eq!((s.hits, s.misses, s.writes), (0, 1, 2));
        assert_eq!(cache.stats(), Default::default(), "symbols untouched");
    }

    #[test]
    fn the_key_is_the_text() {
        let hex = |t: &str| TermsKey::new(t).0.to_hex().to_string();
        assert_eq!(hex("alpha = 1\n"), hex("alpha = 1\n"));
        assert_ne!(hex("alpha = 1\n"), hex("alpha = 2\n"));
    }

    #[test]
    fn a_corrupt_or_malformed_entry_is_a_miss_and_is_rewritten() {
        let (_tmp, cache) = cache();
        let key = TermsKey::new("alpha = beta\n");
        cache.store_terms(&key, &TERMS);
        let path = cache.terms_path(&key);
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let mut trailing = good.clone();
        trailing.push(0);
        let damaged: [&[u8]; 5] = [
            &[],
            &good[..3],
            &good[..good.len() - 1],
            &flipped,
            &trailing,
        ];
        for (i, bytes) in damaged.iter().enumerate() {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(cache.terms(&key), None, "case {i}");
        }
        // Sealed right but not an index: unsorted, a zero count, a count of
        // terms the payload does not hold.
        let sealed = |terms: &[(u64, u32)], n: u32| {
            let mut p = n.to_le_bytes().to_vec();
            terms.iter().for_each(|(h, _)| p.extend(h.to_le_bytes()));
            terms.iter().for_each(|(_, c)| p.extend(c.to_le_bytes()));
            seal(&MAGIC, &key.0, &p)
        };
        for bytes in [
            sealed(&[(5, 1), (3, 1)], 2),
            sealed(&[(3, 1), (3, 1)], 2),
            sealed(&[(3, 0)], 1),
            sealed(&[(3, 1)], 2),
            sealed(&[(3, 1)], u32::MAX),
        ] {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(cache.terms(&key), None);
        }
        let s = cache.terms_stats();
        assert_eq!((s.hits, s.misses, s.invalid), (0, 10, 10));
        cache.store_terms(&key, &TERMS);
        assert_eq!(cache.terms(&key).as_deref(), Some(&TERMS[..]));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_in_an_entry_place_is_a_miss_never_a_hang() {
        // Probe of session 37: a FIFO put in place of an entry by anyone who
        // can write to a shared cache directory held every call that looked
        // the entry up (the `open` blocks for a writer that never comes).
        let (tmp, cache) = cache();
        let key = TermsKey::new("alpha = beta\n");
        cache.store_terms(&key, &TERMS);
        let path = cache.terms_path(&key);
        std::fs::remove_file(&path).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(fifo.unwrap().success());
        // On a thread, so that a hang fails the test instead of holding it.
        let (tx, rx) = std::sync::mpsc::channel();
        let looked_up = std::thread::spawn({
            let cache = std::sync::Arc::new(cache);
            let key = TermsKey::new("alpha = beta\n");
            move || {
                let found = cache.terms(&key);
                cache.store_terms(&key, &TERMS);
                tx.send((found, cache.terms(&key), cache.terms_stats()))
                    .unwrap();
            }
        });
        let (found, rewritten, s) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the lookup of a FIFO entry hung");
        looked_up.join().unwrap();
        assert_eq!(found, None);
        assert_eq!(s.invalid, 1, "{s:?}");
        assert_eq!(
            rewritten.as_deref(),
            Some(&TERMS[..]),
            "the entry is written again"
        );
        // A symbolic link in an entry's place is not followed.
        let target = tmp.path().join("elsewhere.idx");
        std::fs::rename(&path, &target).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let cache = DiskCache::open(tmp.path().join("cache"), &[]).unwrap();
        assert_eq!(cache.terms(&key), None);
    }
}
