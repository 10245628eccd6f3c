//! The persistent cache: opt-in (`--cache-dir DIR` or `CTXLOOP_CACHE_DIR`),
//! shared by every process that names the same directory.
//!
//! Every CLI call is a fresh process, and most of a cold call on a large
//! tree is tree-sitter parsing. The cache keeps what parsing one file gave
//! (the definitions and references of `lang::Symbols`), named by what decides
//! it: the file's text, the language row and the build (`symbols.rs` says how
//! the key is made and what an entry holds); every term of a file's text with
//! its count, named by the text and the build (`terms.rs`), so a fresh
//! process counts terms and finds the files that hold a name by lookups, as
//! a server does after its prefetch; and the output of the history signal's
//! one `git log` per commit (`history.rs`). An entry can only ever
//! be right or missing, never stale, so nothing is invalidated: an edited
//! file has another name, a new `HEAD` another log. Without a [`DiskCache`]
//! (the default) nothing is read from or written to disk.
//!
//! Layout below the directory, all written by this module:
//!
//! ```text
//! DIR/symbols/<build fingerprint>/<first 2 hex digits>/<64 hex digits>.bin
//! DIR/terms/<build fingerprint>/<first 2 hex digits>/<64 hex digits>.idx
//! DIR/history/<first 2 hex digits>/<64 hex digits>.log
//! ```
//!
//! Directories are created with mode 0700 on unix, entries (0600) are written
//! to a temporary file in their final directory and renamed into place, so a
//! concurrent reader sees a whole entry or none. Every entry carries a checksum:
//! a corrupt, truncated or foreign one is a miss (the file is parsed or the log
//! read again and the entry rewritten), never an error. Writing never fails a
//! call: an I/O error is logged (a warning the first time, then at debug
//! level) and the call goes on. Nothing is ever removed: the directory can be
//! deleted at any time, and so can the subdirectories of older builds'
//! fingerprints.

pub(crate) mod history;
pub(crate) mod symbols;
pub(crate) mod terms;

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Largest entry read, in bytes: past it the entry is a miss. The symbols of
/// the largest file the walk reads (1 MiB) take well under this.
const MAX_ENTRY_BYTES: u64 = 32 * 1024 * 1024;

/// A cache directory the user chose, opened: created if missing, resolved
/// to its real path. Cheap to share (`Arc`) between engines and threads.
#[derive(Debug)]
pub struct DiskCache {
    /// The directory, resolved (no `..`, no symbolic links).
    dir: PathBuf,
    /// `dir/symbols/<build fingerprint>`: this build's symbol entries.
    symbols_dir: PathBuf,
    /// `dir/terms/<build fingerprint>`: this build's term index entries.
    terms_dir: PathBuf,
    /// `dir/history`: the logs of [`crate::history`], one per commit.
    history_dir: PathBuf,
    symbols_counts: Counts,
    terms_counts: Counts,
    history_counts: Counts,
    /// Set once a write error was logged as a warning (the next ones go to
    /// the debug level: a read-only disk would otherwise warn per file).
    warned: AtomicBool,
}

/// The counters behind a [`CacheStats`].
#[derive(Debug, Default)]
struct Counts {
    hits: AtomicUsize,
    misses: AtomicUsize,
    invalid: AtomicUsize,
    writes: AtomicUsize,
    write_errors: AtomicUsize,
}

impl Counts {
    /// Counts a lookup: a hit, or a miss (and an invalid entry when one was
    /// found but not usable).
    fn lookup(&self, hit: bool, invalid: bool) {
        let n = if hit { &self.hits } else { &self.misses };
        n.fetch_add(1, Ordering::Relaxed);
        if invalid {
            self.invalid.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn snapshot(&self) -> CacheStats {
        let get = |n: &AtomicUsize| n.load(Ordering::Relaxed);
        CacheStats {
            hits: get(&self.hits),
            misses: get(&self.misses),
            invalid: get(&self.invalid),
            writes: get(&self.writes),
            write_errors: get(&self.write_errors),
        }
    }
}

/// What a [`DiskCache`] did since it was opened, in entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from an entry.
    pub hits: usize,
    /// Lookups with no usable entry (the file was then parsed or
    /// tokenized, the log read with git); includes `invalid`.
    pub misses: usize,
    /// Entries found but not usable: truncated, corrupt, or of another format.
    pub invalid: usize,
    /// Entries written.
    pub writes: usize,
    /// Entries that could not be written (logged, then ignored).
    pub write_errors: usize,
}

impl DiskCache {
    /// Opens the cache in `dir`, creating it (and its parents) if missing,
    /// with mode 0700 on unix; an existing directory keeps its mode. Each of
    /// `roots` (the directories that will be searched, when known) is checked
    /// first, before anything is created: a cache directory made inside a
    /// root would already have changed the tree.
    ///
    /// Errors: [`Error::CacheInsideRoot`] when a root holds `dir` or lies
    /// inside it; [`Error::CacheDir`] when it cannot be created or is not a
    /// directory.
    pub fn open(dir: impl Into<PathBuf>, roots: &[PathBuf]) -> Result<DiskCache> {
        let given = dir.into();
        let fail = |why| Error::CacheDir {
            path: given.clone(),
            why,
        };
        let planned = resolve_planned(&given).map_err(fail)?;
        for root in roots {
            check_apart(&planned, root)?;
        }
        // A file there: creating the directory says only "File exists".
        if given.metadata().is_ok_and(|m| !m.is_dir()) {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "a file is there, not a directory",
            )));
        }
        // A symbolic link to nothing: creating the directory said only "File
        // exists" (probe of session 37).
        if given.symlink_metadata().is_ok_and(|m| m.is_symlink()) && given.metadata().is_err() {
            let target = std::fs::read_link(&given).unwrap_or_default();
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "it is a symbolic link to {:?}, which does not exist: create that directory, \
                     or name another",
                    crate::error::clip(&target.to_string_lossy())
                ),
            )));
        }
        create_private_dir(&given).map_err(fail)?;
        let dir = given.canonicalize().map_err(fail)?;
        if !dir.is_dir() {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        for root in roots {
            check_apart(&dir, root)?;
        }
        let symbols_dir = dir
            .join("symbols")
            .join(env!("CTXLOOP_SYMBOLS_FINGERPRINT"));
        let terms_dir = dir.join("terms").join(env!("CTXLOOP_TERMS_FINGERPRINT"));
        Ok(DiskCache {
            history_dir: dir.join("history"),
            dir,
            symbols_dir,
            terms_dir,
            symbols_counts: Counts::default(),
            terms_counts: Counts::default(),
            history_counts: Counts::default(),
            warned: AtomicBool::new(false),
        })
    }

    /// The cache directory, resolved to its real path.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Refuses a `root` (resolved) that holds the cache directory or lies
    /// inside it: the walk would index the cache's entries, and each call
    /// would change the tree it searches.
    ///
    /// Errors: [`Error::CacheInsideRoot`].
    pub fn check_outside(&self, root: &Path) -> Result<()> {
        check_apart(&self.dir, root)
    }

    /// What the cache did with symbol entries since it was opened.
    pub fn stats(&self) -> CacheStats {
        self.symbols_counts.snapshot()
    }

    /// What the cache did with term index entries since it was opened (a
    /// miss is a file tokenized whole, then stored).
    pub fn terms_stats(&self) -> CacheStats {
        self.terms_counts.snapshot()
    }

    /// What the cache did with history entries (`git log` output) since it
    /// was opened.
    pub fn history_stats(&self) -> CacheStats {
        self.history_counts.snapshot()
    }

    /// The bytes of the entry at `path`: `None` when there is none,
    /// `Some(Err(()))` when it cannot be read whole, is larger than
    /// [`MAX_ENTRY_BYTES`], or is a symbolic link or not a regular file
    /// ([`crate::safe_open::open_regular`]): a FIFO put in an entry's place
    /// by anyone who can write to a shared cache directory held the call
    /// past its deadline (probe of session 37); now it is a miss, and the
    /// entry written after it replaces it.
    fn read_entry(&self, path: &Path) -> Option<Result<Vec<u8>, ()>> {
        let file = match crate::safe_open::open_regular(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(_) => return Some(Err(())),
        };
        let mut bytes = Vec::new();
        let read = file.take(MAX_ENTRY_BYTES + 1).read_to_end(&mut bytes);
        if read.is_err() || bytes.len() as u64 > MAX_ENTRY_BYTES {
            return Some(Err(()));
        }
        Some(Ok(bytes))
    }

    /// The value of the entry at `path`, sealed with `magic` under `key` and
    /// read by `decode` from its payload; `None` (a miss, counted in
    /// `counts`, as invalid when an entry was there but not usable) when
    /// there is no whole, unaltered entry that `decode` accepts. The one
    /// lookup of every kind of entry (symbols, term indexes, logs).
    fn lookup<T>(
        &self,
        counts: &Counts,
        path: &Path,
        (magic, key): (&[u8; 4], &blake3::Hash),
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Option<T> {
        let found = self.read_entry(path);
        let value = match &found {
            Some(Ok(bytes)) => unseal(magic, key, bytes).and_then(decode),
            _ => None,
        };
        counts.lookup(value.is_some(), value.is_none() && found.is_some());
        value
    }

    /// Stores `payload` as the entry at `path`, sealed with `magic` under
    /// `key` ([`seal`]); see [`DiskCache::write_entry`].
    fn store(
        &self,
        counts: &Counts,
        path: &Path,
        (magic, key): (&[u8; 4], &blake3::Hash),
        payload: &[u8],
    ) {
        self.write_entry(counts, path, &seal(magic, key, payload));
    }

    /// Writes `bytes` as the entry at `path` (below this cache's directory):
    /// into a temporary file in the same directory, then renamed over `path`,
    /// so readers never see part of an entry. An error is logged and
    /// ignored: the cache only ever saves work.
    fn write_entry(&self, counts: &Counts, path: &Path, bytes: &[u8]) {
        let write = || -> std::io::Result<()> {
            let parent = path.parent().unwrap_or(&self.dir);
            create_private_dir(parent)?;
            let mut tmp = tempfile::Builder::new()
                .prefix(".tmp-")
                .tempfile_in(parent)?;
            tmp.write_all(bytes)?;
            tmp.persist(path).map_err(|e| e.error)?;
            Ok(())
        };
        match write() {
            Ok(()) => {
                counts.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                counts.write_errors.fetch_add(1, Ordering::Relaxed);
                if self.warned.swap(true, Ordering::Relaxed) {
                    tracing::debug!(path = %path.display(), "cache entry not written: {e}");
                } else {
                    tracing::warn!(
                        path = %path.display(),
                        "cache entry not written (the call goes on without it; later failures are logged at debug level): {e}"
                    );
                }
            }
        }
    }
}

/// Bytes of the check after an entry's magic.
const CHECK_BYTES: usize = 32;

/// An entry's bytes: `magic` (4 bytes: a kind and the layout's version),
/// the check (blake3 over `key`, then `payload`; 32 bytes), then `payload`.
/// The check ties the payload to its key, so a truncated, corrupt or
/// misplaced entry is never read as another's.
fn seal(magic: &[u8; 4], key: &blake3::Hash, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(magic.len() + CHECK_BYTES + payload.len());
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(check(key, payload).as_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The payload of an entry's `bytes` sealed with `magic` under `key`, or
/// `None` when they are not that whole, unaltered entry.
fn unseal<'a>(magic: &[u8; 4], key: &blake3::Hash, bytes: &'a [u8]) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(magic)?;
    if rest.len() < CHECK_BYTES {
        return None;
    }
    let (sum, payload) = rest.split_at(CHECK_BYTES);
    (check(key, payload).as_bytes() == sum).then_some(payload)
}

fn check(key: &blake3::Hash, payload: &[u8]) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    h.update(key.as_bytes());
    h.update(payload);
    h.finalize()
}

/// `dir/<first 2 hex digits>/<64 hex digits>.<ext>`: where the entry of
/// `key` lives (256 subdirectories keep each directory small).
fn entry_path(dir: &Path, key: &blake3::Hash, ext: &str) -> PathBuf {
    let hex = key.to_hex();
    dir.join(&hex[..2]).join(format!("{}.{ext}", hex.as_str()))
}

/// Refuses a cache directory `cache` (resolved) inside `root` or around it.
fn check_apart(cache: &Path, root: &Path) -> Result<()> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let relation = if cache.starts_with(&root) {
        "lies inside the root"
    } else if root.starts_with(cache) {
        "holds the root"
    } else {
        return Ok(());
    };
    Err(Error::CacheInsideRoot {
        cache: cache.to_path_buf(),
        relation,
        root,
    })
}

/// Where `dir` is or will be once created: resolved on disk as far as it
/// exists, then its missing components with `.` and `..` applied by their
/// text (they do not exist yet, so hold no links).
fn resolve_planned(dir: &Path) -> std::io::Result<PathBuf> {
    use std::path::Component;
    let mut base = PathBuf::new();
    let mut on_disk = true;
    for c in std::path::absolute(dir)?.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if !on_disk => {
                base.pop();
            }
            _ => {
                base.push(c);
                if on_disk {
                    match base.canonicalize() {
                        Ok(p) => base = p,
                        Err(_) => on_disk = false,
                    }
                }
            }
        }
    }
    Ok(base)
}

/// Creates `dir` and its missing parents, mode 0700 on unix (directories
/// that exist keep theirs).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_creates_a_private_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/cache");
        let cache = DiskCache::open(&dir, &[]).unwrap();
        assert_eq!(cache.dir(), dir.canonicalize().unwrap());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        // A file is not a cache directory.
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = DiskCache::open(&file, &[]).unwrap_err();
        assert!(matches!(err, Error::CacheDir { .. }), "{err}");
        assert!(err.to_string().contains("--cache-dir"), "{err}");
    }

    #[test]
    fn a_root_holding_the_cache_or_inside_it_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join("src")).unwrap();
        // Refused before anything is created in the tree, whichever way the
        // path is spelled.
        for inside in [
            root.join("cache"),
            root.join("src/../cache/x"),
            tmp.path().join("other/../repo/.cache"),
        ] {
            let err = DiskCache::open(&inside, std::slice::from_ref(&root)).unwrap_err();
            assert!(matches!(err, Error::CacheInsideRoot { .. }), "{err}");
            let msg = err.to_string();
            assert!(msg.contains("lies inside the root"), "{msg}");
            assert!(
                msg.contains("--cache-dir") && msg.contains("outside the root"),
                "{msg}"
            );
        }
        let names = |dir: &Path| {
            let mut n: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(&root), ["src"], "nothing created in the root");
        assert_eq!(names(tmp.path()), ["repo"]);
        // Opened without the roots, a later check refuses them.
        let inside = DiskCache::open(root.join("cache"), &[]).unwrap();
        assert!(inside.check_outside(&root).is_err());
        // The root inside the cache directory is refused too.
        let around = DiskCache::open(tmp.path(), &[]).unwrap();
        let err = around.check_outside(&root).unwrap_err().to_string();
        assert!(err.contains("holds the root"), "{err}");
        // Beside the root: fine, even with a name that starts like it.
        let beside = DiskCache::open(tmp.path().join("repo-cache"), &[]).unwrap();
        beside.check_outside(&root).unwrap();
        beside.check_outside(&root.join("src")).unwrap();
    }
}
