//! History entries: the output of the one `git log` [`crate::history`]
//! runs per repository and commit, so that a fresh process on an unchanged
//! `HEAD` reads a file instead of running it (about 0.25-0.4 s on sympy's
//! 5,000 commits; about 1 MB of log).
//!
//! A commit's history never changes, so an entry is never stale: its key
//! ([`LogKey`]) is the log's whole argument list (the commit id, the bounds,
//! the format), the output cap, and what else in the repository decides
//! which commits `git log` lists (a shallow clone's boundary, old-style
//! grafts). The payload is the log's text as read, sealed as symbol entries
//! are (magic `CXH` and the layout's version, then a blake3 check); it is
//! parsed again on every read (a few ms), so how the history is indexed can
//! change without touching the entries. Entries live in
//! `DIR/history/<2 hex>/<64 hex>.log`, one per commit a call started from.

use super::{entry_path, DiskCache};
use std::path::PathBuf;

/// The first bytes of every history entry; the last is the layout's version.
const MAGIC: [u8; 4] = *b"CXH\x01";

/// What names a `git log`'s output in the cache: blake3 over each of its
/// arguments, the output cap in bytes, and `shape` (the repository files
/// that change which commits are listed), each with its length first.
pub(crate) struct LogKey(blake3::Hash);

impl LogKey {
    /// The key of the log `args` lists, cut at `max_bytes`, in a repository
    /// whose shallow boundary and grafts are `shape`.
    pub(crate) fn new(args: &[String], max_bytes: usize, shape: &[u8]) -> LogKey {
        let mut h = blake3::Hasher::new();
        let mut field = |b: &[u8]| {
            h.update(&(b.len() as u64).to_le_bytes());
            h.update(b);
        };
        field(b"git log");
        for a in args {
            field(a.as_bytes());
        }
        field(&(max_bytes as u64).to_le_bytes());
        field(shape);
        LogKey(h.finalize())
    }
}

impl DiskCache {
    /// Where the entry of `key` lives: `history/<2 hex>/<64 hex>.log`.
    fn history_path(&self, key: &LogKey) -> PathBuf {
        entry_path(&self.history_dir, &key.0, "log")
    }

    /// The log stored under `key`, or `None` (a miss) when there is no
    /// usable entry.
    pub(crate) fn history_log(&self, key: &LogKey) -> Option<String> {
        self.lookup(
            &self.history_counts,
            &self.history_path(key),
            (&MAGIC, &key.0),
            |payload| String::from_utf8(payload.to_vec()).ok(),
        )
    }

    /// Stores the whole output `log` of the `git log` `key` names (never
    /// part of one: a log that was stopped or failed is not stored). Errors
    /// are logged and ignored.
    pub(crate) fn store_history_log(&self, key: &LogKey, log: &str) {
        self.store(
            &self.history_counts,
            &self.history_path(key),
            (&MAGIC, &key.0),
            log.as_bytes(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_read_back_whole_and_a_damaged_one_is_a_miss() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(tmp.path().join("c"), &[]).unwrap();
        let args = |commit: &str| vec!["log".to_string(), commit.to_string()];
        let key = LogKey::new(&args("abc"), 64, b"");
        let log = "\x1eabc\x1ffix the parser\x1f\n\nsrc/parse.rs\n";
        assert_eq!(cache.history_log(&key), None);
        cache.store_history_log(&key, log);
        assert_eq!(cache.history_log(&key).as_deref(), Some(log));
        // Another commit, cap or shallow boundary is another log.
        assert_eq!(cache.history_log(&LogKey::new(&args("abd"), 64, b"")), None);
        assert_eq!(cache.history_log(&LogKey::new(&args("abc"), 65, b"")), None);
        assert_eq!(
            cache.history_log(&LogKey::new(&args("abc"), 64, b"x")),
            None
        );
        let path = cache.history_path(&key);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(cache.history_log(&key), None);
        let s = cache.history_stats();
        assert_eq!((s.hits, s.misses, s.invalid, s.writes), (1, 5, 1, 1));
        assert_eq!(cache.stats(), Default::default(), "symbol counts apart");
    }
}
