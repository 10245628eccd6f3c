//! Symbol entries: what parsing one file gave ([`Symbols`]), named by its
//! [`SymbolKey`], encoded with postcard and sealed (magic `CXS` and the
//! layout's version, then a blake3 check over the key and the payload; see
//! `seal` in the parent module).
//!
//! postcard decodes from the slice it is given and allocates ahead no more
//! than serde's cautious size hint (1 MiB a sequence), so a hostile length
//! prefix cannot make it allocate much more than the entry's own size.

use super::{entry_path, DiskCache};
use crate::lang::{LanguageSpec, Symbols};
use std::path::PathBuf;

/// The first bytes of every symbol entry; the last is the layout's version,
/// raised whenever the sealing changes (the payload's shape is covered by
/// the build fingerprint).
const MAGIC: [u8; 4] = *b"CXS\x01";

/// What names a file's symbols in the cache: blake3 over the language row's
/// id (its length, then its bytes) and the file's text. The text is what
/// the parser reads: the file's bytes for a UTF-8 file (UTF-16 decoded and
/// invalid UTF-8 replaced otherwise, deterministically). The third part of
/// the key, the build fingerprint (build.rs: `src/lang/`, `queries/`,
/// `Cargo.lock`, the crate version), is the directory the entry is filed
/// under. The file's path, size and times are no part of it: a file renamed,
/// copied or checked out again keeps its entry, an edited one gets another.
pub(crate) struct SymbolKey(blake3::Hash);

impl SymbolKey {
    /// The key of `text` parsed as `spec`'s language row.
    pub(crate) fn new(spec: &LanguageSpec, text: &str) -> SymbolKey {
        let mut h = blake3::Hasher::new();
        h.update(&(spec.id.len() as u64).to_le_bytes());
        h.update(spec.id.as_bytes());
        h.update(text.as_bytes());
        SymbolKey(h.finalize())
    }
}

impl DiskCache {
    /// Where the entry of `key` lives: `symbols/<fingerprint>/<2 hex>/<64 hex>.bin`.
    fn symbols_path(&self, key: &SymbolKey) -> PathBuf {
        entry_path(&self.symbols_dir, &key.0, "bin")
    }

    /// The symbols stored under `key`, or `None` (a miss) when there is no
    /// usable entry: none, unreadable, truncated, corrupt, or not a complete
    /// parse.
    pub(crate) fn symbols(&self, key: &SymbolKey) -> Option<Symbols> {
        self.lookup(
            &self.symbols_counts,
            &self.symbols_path(key),
            (&MAGIC, &key.0),
            decode,
        )
    }

    /// Stores `symbols` under `key` when they are a complete parse
    /// (`capped` is `None`); a capped parse (over its budget, or stopped)
    /// says nothing about the file and is never stored. Errors are logged
    /// and ignored.
    pub(crate) fn store_symbols(&self, key: &SymbolKey, symbols: &Symbols) {
        if symbols.capped.is_some() {
            return;
        }
        match postcard::to_stdvec(symbols) {
            Ok(payload) => self.store(
                &self.symbols_counts,
                &self.symbols_path(key),
                (&MAGIC, &key.0),
                &payload,
            ),
            Err(e) => tracing::debug!("symbols not encoded for the cache: {e}"),
        }
    }
}

/// The symbols of an unsealed entry's `payload`, if it holds a complete
/// parse and nothing after it.
fn decode(payload: &[u8]) -> Option<Symbols> {
    match postcard::take_from_bytes::<Symbols>(payload) {
        Ok((symbols, [])) if symbols.capped.is_none() => Some(symbols),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::seal;
    use crate::lang::{language_of, symbols, symbols_until, Cap};

    const PYTHON: &str = "\
import os
from .base import Base

class TokenStore(Base):
    LIMIT = 10

    def refresh(self, token):
        def helper():
            return os.path.join('a', 'b')
        return self.client.refresh(token, helper())

def expired(token):
    return TokenStore().refresh(token)
";

    const RUST: &str = "\
use std::collections::HashMap;

pub struct Cache { map: HashMap<String, u32> }

impl Cache {
    pub fn get(&self, key: &str) -> Option<u32> {
        self.map.get(key).copied()
    }
}

pub trait Store { fn put(&mut self, k: String); }

macro_rules! cached { () => {}; }

fn main() { let c = Cache { map: HashMap::new() }; c.get(\"x\"); }
";

    fn cache() -> (tempfile::TempDir, DiskCache) {
        let tmp = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(tmp.path().join("cache"), &[]).unwrap();
        (tmp, cache)
    }

    #[test]
    fn a_hit_gives_exactly_what_a_fresh_parse_gives() {
        let (tmp, cache) = cache();
        for (path, text) in [("a.py", PYTHON), ("lib.rs", RUST)] {
            let spec = language_of(path).unwrap();
            let fresh = symbols(spec, text);
            assert_eq!(fresh.capped, None);
            assert!(!fresh.definitions.is_empty() && !fresh.references.is_empty());
            // Every field is carried: parents, signatures, locals, receivers.
            assert!(fresh.definitions.iter().any(|d| d.parent.is_some()));
            assert!(fresh.definitions.iter().all(|d| !d.signature.is_empty()));
            assert!(fresh.references.iter().any(|r| r.receiver.is_some()));
            if path.ends_with(".py") {
                assert!(fresh.definitions.iter().any(|d| d.local));
            }
            let key = SymbolKey::new(spec, text);
            assert_eq!(cache.symbols(&key), None, "empty cache: a miss");
            cache.store_symbols(&key, &fresh);
            // Another process (another handle on the same directory) reads it.
            let other = DiskCache::open(tmp.path().join("cache"), &[]).unwrap();
            assert_eq!(other.symbols(&key).as_ref(), Some(&fresh), "{path}");
        }
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.invalid, s.writes), (0, 2, 0, 2));
    }

    #[test]
    fn the_key_is_the_text_and_the_language_row() {
        let (py, rs) = (language_of("a.py").unwrap(), language_of("a.rs").unwrap());
        fn hex(spec: &LanguageSpec, text: &str) -> String {
            SymbolKey::new(spec, text).0.to_hex().to_string()
        }
        assert_eq!(hex(py, PYTHON), hex(language_of("b/c.py").unwrap(), PYTHON));
        assert_ne!(hex(py, PYTHON), hex(py, &PYTHON.replace("LIMIT", "LIMTI")));
        assert_ne!(hex(py, RUST), hex(rs, RUST));
    }

    #[test]
    fn a_corrupt_entry_is_a_miss_and_is_rewritten() {
        let (_tmp, cache) = cache();
        let spec = language_of("a.py").unwrap();
        let fresh = symbols(spec, PYTHON);
        let key = SymbolKey::new(spec, PYTHON);
        cache.store_symbols(&key, &fresh);
        let path = cache.symbols_path(&key);
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let mut other_format = good.clone();
        other_format[3] = 0xEE;
        let mut trailing = good.clone();
        trailing.push(0);
        let bad: [&[u8]; 7] = [
            &[],
            &good[..2],
            &good[..MAGIC.len() + super::super::CHECK_BYTES],
            &good[..good.len() - 1],
            &flipped,
            &other_format,
            &trailing,
        ];
        for (i, bytes) in bad.iter().enumerate() {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(cache.symbols(&key), None, "case {i}");
        }
        // Garbage that decodes as postcard but is not this key's entry.
        let mut garbage = MAGIC.to_vec();
        garbage.extend([7u8; super::super::CHECK_BYTES]);
        garbage.extend(postcard::to_stdvec(&Symbols::default()).unwrap());
        std::fs::write(&path, &garbage).unwrap();
        assert_eq!(cache.symbols(&key), None);
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.invalid), (0, 8, 8));
        cache.store_symbols(&key, &fresh);
        assert_eq!(cache.symbols(&key), Some(fresh));
    }

    #[test]
    fn a_capped_parse_is_never_stored() {
        let (_tmp, cache) = cache();
        let spec = language_of("a.py").unwrap();
        let stopped = symbols_until(spec, PYTHON, &|| true);
        assert_eq!(stopped.capped, Some(Cap::Stopped));
        let key = SymbolKey::new(spec, PYTHON);
        cache.store_symbols(&key, &stopped);
        let budget = Symbols {
            capped: Some(Cap::Budget),
            ..Symbols::default()
        };
        cache.store_symbols(&key, &budget);
        assert!(!cache.symbols_path(&key).exists());
        assert_eq!(cache.stats().writes, 0);
        // Nor is a capped entry that found its way in read back.
        let payload = postcard::to_stdvec(&budget).unwrap();
        let bytes = seal(&MAGIC, &key.0, &payload);
        std::fs::create_dir_all(cache.symbols_path(&key).parent().unwrap()).unwrap();
        std::fs::write(cache.symbols_path(&key), bytes).unwrap();
        assert_eq!(cache.symbols(&key), None);
    }

    #[test]
    fn an_unwritable_cache_is_ignored() {
        let (_tmp, cache) = cache();
        let spec = language_of("a.py").unwrap();
        let key = SymbolKey::new(spec, PYTHON);
        // Where the entry's directory should be, a file: the write fails.
        std::fs::create_dir_all(&cache.symbols_dir).unwrap();
        let shard = cache.symbols_path(&key).parent().unwrap().to_path_buf();
        std::fs::write(&shard, "in the way").unwrap();
        cache.store_symbols(&key, &symbols(spec, PYTHON));
        assert_eq!(cache.stats().write_errors, 1);
        assert_eq!(cache.symbols(&key), None);
    }
}
