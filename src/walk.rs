//! DISPATCH's first half: list the files under a root.
//!
//! Order of the rules, as `ignore::WalkBuilder` applies them: hidden files and
//! directories are skipped; `.gitignore`, `.ignore`, `.git/info/exclude` and the
//! global git excludes are honoured inside a git repository (as ripgrep does:
//! outside one they may belong to a packaging, e.g. Debian's linux-source
//! tarball ships a `.gitignore` ending in `/*`), `.ignore` files always. The
//! query's include/exclude globs are applied afterwards, with gitignore
//! semantics (see [`Filter`]), so one walk serves every cycle of a loop. Size, binary and
//! minified checks happen when a file is read (see `corpus`).
//!
//! Dependency directories ([`DEPENDENCY_DIRS`]: `node_modules`, `vendor`,
//! `site-packages`, ...) are not entered, inside a git repository or not,
//! unless an include glob of the query names one (see [`DependencyDirs`]):
//! installed packages hold thousands of files that match a task's words and
//! none that its fix touches.
//!
//! Confinement: nothing outside the root is returned, and nothing hidden or
//! ignored inside it. Symbolic links (to files or directories) are never
//! followed: every file is returned at its real path, where the hidden and
//! ignore rules apply to it. A link whose target is such a file or directory
//! is an alias and is not counted; a link whose target is outside the root,
//! dangles, loops, or is hidden or ignored (a link to `.env`, `.git/config` or
//! an ignored file) is counted as not followed. Only link entries are
//! resolved, so a tree without links costs what it did before. A `!`
//! whitelist in an ignore file cannot re-open a hidden file unless
//! [`WalkOptions::hidden_whitelisted`] says so, and nothing re-opens git's
//! own directory: a `.git` directory or file below the root is never walked
//! ([`is_git_name`]). (Ignore-rule files of the
//! root's parent directories are parsed for their rules, as git and ripgrep
//! do; their text is never returned.)

use crate::error::{Error, Result};
use crate::types::SkippedFile;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::SystemTime;

/// A file found by the walk. `rel` is relative to the root and `/`-separated.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime: Option<SystemTime>,
    /// Status-change time (seconds, nanoseconds), where the platform has
    /// one: unlike the mtime, no user program can set it back.
    pub ctime: Option<(i64, i64)>,
    /// (device, inode), where the platform has them: a file replaced by
    /// another (an editor's save by rename) is a new file.
    pub file_id: Option<(u64, u64)>,
}

/// What a walk may return beyond the default rules.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkOptions {
    /// Let a `!` whitelist in a `.ignore`/`.gitignore` file (`!.env`,
    /// `!.config/`) re-open the hidden files and directories it names. Off by
    /// default: hidden entries are skipped whatever an ignore file says.
    /// Never `.git` ([`is_git_name`]), whatever the whitelist.
    pub hidden_whitelisted: bool,
}

/// Every regular file under `root` that the hidden and ignore rules let
/// through, sorted by path, each once, at its real path.
#[cfg(any(test, feature = "test-support"))]
pub fn walk(root: &Path) -> Vec<Entry> {
    walk_until(root, &|| false)
}

/// [`walk`], stopping early (with the files found so far) once `stop` returns true.
#[cfg(any(test, feature = "test-support"))]
pub fn walk_until(root: &Path, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Entry> {
    walk_counting(root, stop, &DependencyDirs::default()).0
}

/// [`walk_until`], also counting the symbolic links not followed because
/// their target is outside the root, cannot be resolved (dangling, a loop),
/// or is hidden or ignored. The dependency directories `deps` re-opens are
/// entered.
#[cfg(any(test, feature = "test-support"))]
pub fn walk_counting(
    root: &Path,
    stop: &(dyn Fn() -> bool + Sync),
    deps: &DependencyDirs,
) -> (Vec<Entry>, usize) {
    let walked = walk_with(root, WalkOptions::default(), deps, stop);
    (walked.files, walked.links_not_followed)
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// The files admitted, sorted by path, each once, at its real path.
    pub files: Vec<Entry>,
    /// Symbolic links not followed: their target is outside the root,
    /// cannot be resolved (dangling, a loop), or is hidden or ignored. A
    /// walk stopped early counts those judged before it stopped.
    pub links_not_followed: usize,
    /// Files the hidden and ignore rules admit whose path below the root is
    /// not UTF-8, sorted: no answer, glob or judgment can name them, so they
    /// are listed, not read (a lossy name could even name another file).
    pub not_utf8: Vec<SkippedFile>,
    /// Directories the hidden and ignore rules admit that could not be
    /// listed, in full or in part (permission denied, a path longer than the
    /// system allows, an I/O error), sorted, each with why: the files below
    /// them are missing from `files`.
    pub dirs_not_read: Vec<SkippedFile>,
    /// Errors the walk met that name no directory it admitted, so
    /// `dirs_not_read` cannot list them: an ignore file (of an admitted
    /// directory or of the root's parents) or one of its lines that could
    /// not be read or parsed, an entry whose type could not be read.
    /// Counted, never shown: their paths may lie outside the root or be
    /// hidden or ignored. Each is logged (debug level).
    pub walk_errors: usize,
}

/// The files the walk admits under `root` with [`WalkOptions`], entering
/// the dependency directories `deps` re-opens, stopping early once `stop`
/// returns true.
pub fn walk_with(
    root: &Path,
    options: WalkOptions,
    deps: &DependencyDirs,
    stop: &(dyn Fn() -> bool + Sync),
) -> Walked {
    // The links met, by path: judged once the walk knows what it reached.
    let links: Mutex<Vec<PathBuf>> = Default::default();
    // The directories the walk entered, by path (files are in `out`).
    let dirs: Mutex<Vec<PathBuf>> = Default::default();
    // Files whose path below the root is not UTF-8.
    let not_utf8: Mutex<Vec<PathBuf>> = Default::default();
    // What `ignore` could not read: judged once the walk knows which
    // directories it admitted.
    let errors: Mutex<Vec<ignore::Error>> = Default::default();
    // Errors in the ignore files of admitted directories: `ignore` attaches
    // them to the directory's entry, never to the walk's results.
    let rule_errors = std::sync::atomic::AtomicUsize::new(0);
    // Directories not entered because a rule file of theirs is a FIFO,
    // socket or device (see [`special_rule_file`]): (path, that file's name).
    let special: std::sync::Arc<Mutex<Vec<(PathBuf, &'static str)>>> = Default::default();
    if let Some(found) = root_rule_file_special(root) {
        return Walked {
            files: Vec::new(),
            links_not_followed: 0,
            not_utf8: Vec::new(),
            dirs_not_read: vec![found],
            walk_errors: 0,
        };
    }
    let out = Mutex::new(Vec::new());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        .require_git(true)
        .follow_links(false)
        .filter_entry({
            let deps = deps.clone();
            let special = special.clone();
            move |dent| {
                // `ignore` lets a whitelisted hidden entry through: refuse it
                // here unless asked to let it, and git's own directory always.
                let name = dent.file_name();
                let admitted = dent.depth() == 0
                    || (!deps.skips(dent)
                        && !is_git_name(name)
                        && (options.hidden_whitelisted || !is_hidden_name(name)));
                // A directory is entered only when `ignore` can read its rule
                // files without blocking.
                if admitted && dent.depth() > 0 && dent.file_type().is_some_and(|t| t.is_dir()) {
                    if let Some(file) = special_rule_file(dent.path()) {
                        special
                            .lock()
                            .expect("walk special rule files poisoned")
                            .push((dent.path().to_path_buf(), file));
                        return false;
                    }
                }
                admitted
            }
        })
        .threads(
            std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(8),
        )
        .build_parallel();
    walker.run(|| {
        let (out, links, dirs, not_utf8, errors) = (&out, &links, &dirs, &not_utf8, &errors);
        let rule_errors = &rule_errors;
        Box::new(move |res| {
            if stop() {
                return ignore::WalkState::Quit;
            }
            match res {
                Err(err) => errors.lock().expect("walk errors poisoned").push(err),
                Ok(dent) => match dent.file_type() {
                    Some(t) if t.is_symlink() => links
                        .lock()
                        .expect("walk links poisoned")
                        .push(dent.into_path()),
                    Some(t) if t.is_dir() => {
                        if let Some(err) = dent.error() {
                            tracing::debug!(%err, "ignore file not read or parsed in full");
                            rule_errors.fetch_add(error_count(err), Ordering::Relaxed);
                        }
                        dirs.lock()
                            .expect("walk dirs poisoned")
                            .push(dent.into_path())
                    }
                    Some(t) if t.is_file() => {
                        if is_utf8_below(root, dent.path()) {
                            if let Some(found) = entry_of(root, dent.path()) {
                                out.lock().expect("walk collector poisoned").push(found);
                            }
                        } else {
                            not_utf8
                                .lock()
                                .expect("walk names poisoned")
                                .push(dent.into_path());
                        }
                    }
                    _ => {}
                },
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = out.into_inner().expect("walk collector poisoned");
    files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    let links = links.into_inner().expect("walk links poisoned");
    let not_utf8 = not_utf8.into_inner().expect("walk names poisoned");
    let mut dirs = dirs.into_inner().expect("walk dirs poisoned");
    let errors = errors.into_inner().expect("walk errors poisoned");
    let (mut dirs_not_read, unlisted) = dirs_not_read(root, &errors, &dirs);
    let special = std::mem::take(&mut *special.lock().expect("walk special rule files poisoned"));
    if !special.is_empty() {
        for (dir, file) in special {
            if let Ok(rel) = dir.strip_prefix(root) {
                dirs_not_read.push(SkippedFile {
                    path: shown_path(rel),
                    reason: special_reason(file, "this directory's"),
                });
            }
        }
        dirs_not_read
            .sort_unstable_by(|a, b| a.path.cmp(&b.path).then_with(|| a.reason.cmp(&b.reason)));
    }
    let links_not_followed = if links.is_empty() {
        0
    } else {
        // A link to a file listed as not UTF-8 reached it: an alias.
        dirs.extend(not_utf8.iter().cloned());
        count_refused_links(root, &links, &files, &dirs, stop)
    };
    let mut not_utf8: Vec<SkippedFile> = not_utf8
        .iter()
        .filter_map(|abs| {
            let own = abs.file_name().is_some_and(|n| n.to_str().is_some());
            Some(SkippedFile {
                path: shown_path(abs.strip_prefix(root).ok()?),
                reason: if own {
                    "directory name is not UTF-8"
                } else {
                    "file name is not UTF-8"
                }
                .to_string(),
            })
        })
        .collect();
    not_utf8.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Walked {
        files,
        links_not_followed,
        not_utf8,
        dirs_not_read,
        walk_errors: unlisted + rule_errors.into_inner(),
    }
}

/// The rule files `ignore` reads in a directory it enters: `.ignore`,
/// `.gitignore` and a repository's `.git/info/exclude`.
const RULE_FILES: [&str; 3] = [".ignore", ".gitignore", ".git/info/exclude"];

/// The first of `dir`'s [`RULE_FILES`] that exists and is neither a regular
/// file nor a directory (links followed): a FIFO, socket or device. `ignore`
/// opens rule files with a blocking `open`, which waits for ever on a FIFO
/// no one writes to (a tarball or a checkout can hold one), so such a
/// directory is not entered and its files are not read: without its rules,
/// an ignored file would be read. `stat` only: nothing is opened.
fn special_rule_file(dir: &Path) -> Option<&'static str> {
    RULE_FILES
        .into_iter()
        .find(|name| std::fs::metadata(dir.join(name)).is_ok_and(|m| !m.is_file() && !m.is_dir()))
}

/// Why a directory with a [`special_rule_file`] was not read.
fn special_reason(file: &str, whose: &str) -> String {
    format!(
        "not read: {whose} ignore rules file {file} is a FIFO, socket or device, which \
         cannot be read without waiting for ever; replace it with a regular file or remove it"
    )
}

/// A [`special_rule_file`] of the root or of one of its parent directories
/// (whose `.ignore` and `.gitignore` rules `ignore` reads too), as the root's
/// entry of `dirs_not_read`: nothing under the root can be walked.
fn root_rule_file_special(root: &Path) -> Option<SkippedFile> {
    root.ancestors().enumerate().find_map(|(i, dir)| {
        let file = special_rule_file(dir)?;
        let whose = if i == 0 {
            "the root's"
        } else {
            "a parent directory's"
        };
        Some(SkippedFile {
            path: ".".to_string(),
            reason: special_reason(file, whose),
        })
    })
}

/// The directories `errors` name that the walk admitted (`dirs`), each with
/// why, by path below the root, sorted, and how many errors named none.
/// Only those are listed: `ignore` reports an entry it cannot even type
/// before the hidden and ignore rules see it, and the ignore files of the
/// root's parents are outside the root, so an error on any other path (or
/// on none) is logged and counted, never shown. The reason is the system's
/// message alone (`File name too long (os error 36)`): `ignore`'s own
/// message holds the absolute path.
fn dirs_not_read(
    root: &Path,
    errors: &[ignore::Error],
    dirs: &[PathBuf],
) -> (Vec<SkippedFile>, usize) {
    if errors.is_empty() {
        return (Vec::new(), 0);
    }
    let mut unlisted = 0;
    let admitted: std::collections::HashSet<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let mut listed: Vec<SkippedFile> = Vec::new();
    for err in errors {
        let (path, depth, io) = error_parts(err);
        let below = path
            .filter(|p| admitted.contains(p))
            .and_then(|p| p.strip_prefix(root).ok());
        let Some(rel) = below else {
            tracing::debug!(%err, "walk error on no directory the walk admitted: counted");
            unlisted += error_count(err);
            continue;
        };
        let why = io.map_or_else(
            || "an error".to_string(),
            |io| match io.raw_os_error() {
                Some(_) => io.to_string(),
                None => io.kind().to_string(),
            },
        );
        // `ignore` gives a directory's own error its depth, an entry's the next.
        let whole = depth.is_none_or(|d| d == rel.components().count());
        let path = if rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            shown_path(rel)
        };
        let reason = if whole {
            format!("directory could not be read: {why}")
        } else {
            format!("directory could be read only in part: {why}")
        };
        if !listed.iter().any(|f| f.path == path && f.reason == reason) {
            listed.push(SkippedFile { path, reason });
        }
    }
    listed.sort_unstable_by(|a, b| a.path.cmp(&b.path).then_with(|| a.reason.cmp(&b.reason)));
    (listed, unlisted)
}

/// How many errors `err` holds: `ignore` reports the bad lines of the
/// ignore files of one directory as one error of several parts.
fn error_count(err: &ignore::Error) -> usize {
    match err {
        ignore::Error::Partial(errs) => errs.iter().map(error_count).sum(),
        ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithPath { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => error_count(err),
        _ => 1,
    }
}

/// The path, depth and I/O error an `ignore` error carries, where it has them.
fn error_parts(err: &ignore::Error) -> (Option<&Path>, Option<usize>, Option<&std::io::Error>) {
    match err {
        ignore::Error::WithDepth { depth, err } => {
            let (path, _, io) = error_parts(err);
            (path, Some(*depth), io)
        }
        ignore::Error::WithPath { path, err } => {
            let (_, depth, io) = error_parts(err);
            (Some(path), depth, io)
        }
        ignore::Error::Io(io) => (None, None, Some(io)),
        _ => (None, None, None),
    }
}

/// Whether the path of `path` below `root` is UTF-8 (a path not below it is
/// left to [`entry_of`]).
fn is_utf8_below(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root)
        .map_or(true, |rel| rel.to_str().is_some())
}

/// A relative path, shown `/`-separated with each byte that is not UTF-8
/// as `\xNN` (`src/bad\xffname.py`).
fn shown_path(rel: &Path) -> String {
    rel.components()
        .map(|c| {
            let mut shown = String::new();
            for chunk in c.as_os_str().as_encoded_bytes().utf8_chunks() {
                shown.push_str(chunk.valid());
                for b in chunk.invalid() {
                    shown.push_str(&format!("\\x{b:02x}"));
                }
            }
            shown
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a file name is git's own: the repository's `.git` directory, or
/// the `.git` file of a work tree or submodule that points to one. Its
/// objects, hooks and `config` (a remote's URL may hold a token) are never
/// project content, so no walk, read or root opens it, whatever an ignore
/// file whitelists (`!.git/`) or an option allows. Any letter case: a
/// case-insensitive file system (macOS's, Windows') opens `.GIT` as `.git`.
pub fn is_git_name(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().eq_ignore_ascii_case(b".git")
}

/// Whether a file name is hidden (starts with `.`), as `ignore` judges it on Unix.
fn is_hidden_name(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

/// How many of `links` are refused: their target, resolved, is not a file
/// or directory the walk reached at its real path (so it is outside the root,
/// missing, a loop, hidden or ignored). A link to a reached one is an alias of
/// a path already walked. `files` are sorted by `rel`. Once `stop` returns
/// true no further link is judged (nor counted): a walk cut short by the
/// deadline must not go on after it.
fn count_refused_links(
    root: &Path,
    links: &[PathBuf],
    files: &[Entry],
    dirs: &[PathBuf],
    stop: &(dyn Fn() -> bool + Sync),
) -> usize {
    if stop() {
        return 0;
    }
    let Ok(root_canon) = root.canonicalize() else {
        return links.len();
    };
    // Links are never followed, so below the root each walked path is its
    // real path and only the root's own may differ: a target is looked up
    // by its path below the resolved root, with no system call per walked
    // file. Resolving each of them took 3.4 s after a 2 s deadline had
    // stopped the walk of 276k files (one link in the tree, debug build),
    // and made 635,722 `readlink` calls in a cold call on the Linux
    // kernel's 78,197 files (56 links; now 687, `strace -c`, 2026-12-06).
    let dirs: std::collections::HashSet<&Path> = dirs
        .iter()
        .filter_map(|d| d.strip_prefix(root).ok())
        .collect();
    let is_reached = |target: &Path| {
        target.strip_prefix(&root_canon).is_ok_and(|rel| {
            dirs.contains(rel)
                || rel.to_str().is_some_and(|_| {
                    let rel = rel_path(rel);
                    files.binary_search_by(|e| e.rel.cmp(&rel)).is_ok()
                })
        })
    };
    let mut refused = 0;
    for link in links {
        if stop() {
            break;
        }
        if !link.canonicalize().is_ok_and(|t| is_reached(&t)) {
            tracing::debug!(link = %link.display(), "link leads outside the root, nowhere, or to a hidden or ignored path: skipped");
            refused += 1;
        }
    }
    refused
}

/// A relative path, `/`-separated.
fn rel_path(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn entry_of(root: &Path, path: &Path) -> Option<Entry> {
    let rel = rel_path(path.strip_prefix(root).ok()?);
    // The file's own size, mtime, ctime and inode (never a link's target:
    // links are not walked): the cache key.
    let meta = std::fs::symlink_metadata(path).ok();
    Some(Entry {
        rel,
        abs: path.to_path_buf(),
        size: meta.as_ref().map_or(0, |m| m.len()),
        ctime: meta.as_ref().and_then(ctime),
        file_id: meta.as_ref().and_then(file_id),
        mtime: meta.and_then(|m| m.modified().ok()),
    })
}

/// The identity of a file on disk (device, inode), where the platform has one.
pub(crate) type FileId = Option<(u64, u64)>;

#[cfg(unix)]
pub(crate) fn file_id(meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
pub(crate) fn file_id(_: &std::fs::Metadata) -> FileId {
    None
}

#[cfg(unix)]
pub(crate) fn ctime(meta: &std::fs::Metadata) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
pub(crate) fn ctime(_: &std::fs::Metadata) -> Option<(i64, i64)> {
    None
}

/// Directory names the walk does not enter (at any depth, inside a git
/// repository or not): where package managers install dependencies, and the
/// conventional homes of vendored copies. npm/Yarn/pnpm `node_modules`, Bower
/// `bower_components`, jspm `jspm_packages`, Snowpack `web_modules`, Python
/// `site-packages`/`dist-packages` (also inside a virtualenv not named
/// `.venv`) and PEP 582 `__pypackages__`, Go/PHP/Ruby `vendor`, `third_party`,
/// CocoaPods `Pods`, `Carthage`, Elm `elm-stuff`. (Hidden ones, `.venv`,
/// `.yarn`, `.cargo`, are skipped as hidden.)
pub const DEPENDENCY_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "web_modules",
    "site-packages",
    "dist-packages",
    "__pypackages__",
    "vendor",
    "third_party",
    "Pods",
    "Carthage",
    "elm-stuff",
];

/// Which [`DEPENDENCY_DIRS`] the walk enters after all: those an include glob
/// names as a path component (`node_modules/**`, `**/vendor/github.com/x/**`,
/// `third_party`). The include still filters what is returned, so a glob that
/// names one package opens only that package's files to the answer.
#[derive(Debug, Clone, Default)]
pub struct DependencyDirs {
    reopened: Vec<String>,
}

impl DependencyDirs {
    /// The dependency directories the include globs `includes` name.
    pub fn reopened_by(includes: &[String]) -> DependencyDirs {
        let mut reopened: Vec<String> = includes
            .iter()
            .flat_map(|g| {
                normalize_glob(g)
                    .split('/')
                    .filter(|part| DEPENDENCY_DIRS.contains(part))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        reopened.sort_unstable();
        reopened.dedup();
        DependencyDirs { reopened }
    }

    /// Whether the walk skips `dent`: a directory below the root named in
    /// [`DEPENDENCY_DIRS`] and not re-opened. (The root itself is walked
    /// whatever its name.)
    fn skips(&self, dent: &ignore::DirEntry) -> bool {
        dent.depth() > 0
            && dent.file_type().is_some_and(|t| t.is_dir())
            && dent.file_name().to_str().is_some_and(|name| {
                is_dependency_dir(name) && !self.reopened.iter().any(|r| r == name)
            })
    }
}

/// Whether a directory name is one of [`DEPENDENCY_DIRS`].
pub fn is_dependency_dir(name: &str) -> bool {
    DEPENDENCY_DIRS.contains(&name)
}

/// Include and exclude globs, compiled as two gitignore files (with
/// `ignore`'s own matcher), so a glob means what it would in a `.gitignore`:
/// a glob without `/` (other than a trailing one) matches a file or directory
/// name at any depth (`*.py`, `tests`); a glob with `/` is anchored at the
/// root (`src/**/*.rs`, `/setup.py`); a glob ending in `/` matches only
/// directories (`build/` skips the directory `build`, not a file of that
/// name); a glob matching a directory matches everything below it. In the
/// include list `!` before a glob excludes what it matches, as ripgrep's
/// `-g '!GLOB'` does: it takes back what an earlier include matched (`src/**`
/// then `!src/gen/**`), the last matching glob wins, and a list of `!` globs
/// alone starts from every file (`!tests/**` is every file outside `tests`).
/// An exclude glob may not start with `!` ([`Error::BangExclude`]: there it
/// took back an earlier exclude, the opposite of what ripgrep's users mean,
/// or did nothing at all). A file passes when it matches an include (or
/// there are none) and no exclude. `\` is read as a path separator, a
/// leading `./` is dropped, and a glob with a `..` component is refused.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    include: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// The literal leading directories of each include glob (`src/**/*.py`
    /// → `src`), or `None` when an include may match at any depth (see
    /// [`include_dirs`]) or there is none.
    include_dirs: Option<Vec<Vec<String>>>,
}

impl Filter {
    /// Compiles the include and exclude globs. Errors:
    /// [`Error::InvalidGlob`] naming the list (`patterns` or `excludes`), the
    /// glob as given, and why (a `..` component, or the glob's syntax);
    /// [`Error::BangExclude`] for an exclude glob that starts with `!`.
    pub fn new(includes: &[String], excludes: &[String]) -> Result<Filter> {
        Ok(Filter {
            include: compile("patterns", includes)?,
            exclude: compile("excludes", excludes)?,
            include_dirs: include_dirs(includes),
        })
    }

    /// Whether the file `rel` (a `/`-separated path relative to the root)
    /// passes the filter.
    pub fn is_match(&self, rel: &str) -> bool {
        let rel = Path::new(rel.trim_start_matches('/'));
        let matches = |set: &Gitignore| {
            // The file, then each directory above it: a directory glob matches everything under it.
            set.matched_path_or_any_parents(rel, false).is_ignore()
        };
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }

    /// Whether the file `rel` passes the include globs (whatever the excludes say).
    fn is_included(&self, rel: &str) -> bool {
        let rel = Path::new(rel.trim_start_matches('/'));
        self.include
            .as_ref()
            .is_none_or(|set| set.matched_path_or_any_parents(rel, false).is_ignore())
    }

    /// Whether the directory `rel` (relative, `/`-separated, `.` for the
    /// root) may hold a file the include globs match: its path and the
    /// literal leading directories of some include glob agree as far as
    /// both go (`src/**` may match below `src/gen` and below `.`, never
    /// below `build`). Always true without includes or with one that may
    /// match at any depth.
    pub fn may_hold_included(&self, rel: &str) -> bool {
        let Some(globs) = &self.include_dirs else {
            return true;
        };
        let dir: Vec<&str> = rel
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        globs
            .iter()
            .any(|lead| dir.iter().zip(lead).all(|(d, l)| d == l))
    }

    /// Whether the excludes remove the directory `rel` and all below it
    /// (it, or a directory above it, matches an exclude). The includes
    /// cannot say that much: a directory not read may hold a file they match.
    pub fn excludes_dir(&self, rel: &str) -> bool {
        let rel = Path::new(rel.trim_start_matches('/'));
        self.exclude
            .as_ref()
            .is_some_and(|set| set.matched_path_or_any_parents(rel, true).is_ignore())
    }
}

/// The literal leading directories of each include glob, as a gitignore
/// line reads it: the components before the first with glob syntax
/// (`*?[]{}\`, an escape), a literal last component included (it may name a
/// directory). `None` when one may match at any depth (no `/` but a
/// trailing one: `*.py`, `docs/`) or when there are no includes but `!`
/// ones (they start from every file).
fn include_dirs(includes: &[String]) -> Option<Vec<Vec<String>>> {
    let globs: Vec<String> = includes
        .iter()
        .map(|g| gitignore_line(g))
        .filter(|g| !g.is_empty() && !g.starts_with('!'))
        .collect();
    if globs.is_empty() {
        return None;
    }
    globs
        .iter()
        .map(|g| {
            let g = g.trim_end_matches('/');
            let anchored = g.starts_with('/') || g.contains('/');
            anchored.then(|| {
                g.trim_start_matches('/')
                    .split('/')
                    .take_while(|c| !c.contains(['*', '?', '[', ']', '{', '}', '\\']))
                    .map(str::to_string)
                    .collect()
            })
        })
        .collect()
}

/// The include globs of `includes` that match none of `paths` (relative,
/// `/`-separated), as given. Each glob is tried alone, with the meaning it
/// has in [`Filter`]; `!` globs take back and match nothing themselves, so
/// they are never listed. One pass over `paths`, over once every glob has
/// matched a path.
pub fn unmatched_includes<'a>(
    includes: &[String],
    paths: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut open: Vec<(&String, Gitignore)> = includes
        .iter()
        .filter(|g| !g.trim().is_empty() && !g.trim().starts_with('!'))
        .filter_map(|g| Some((g, compile("patterns", std::slice::from_ref(g)).ok()??)))
        .collect();
    for rel in paths {
        if open.is_empty() {
            break;
        }
        let rel = Path::new(rel.trim_start_matches('/'));
        open.retain(|(_, set)| !set.matched_path_or_any_parents(rel, false).is_ignore());
    }
    open.into_iter().map(|(g, _)| g.clone()).collect()
}

/// The exclude globs of `excludes` (those `filter` was built with) that,
/// between them, remove every one of `paths` (relative, `/`-separated) the
/// include globs let through, as given: each is tried alone and listed when
/// it matches one of those paths. Empty when a path passes `filter` (over at
/// the first) or none is included.
pub fn excluding_all<'a>(
    filter: &Filter,
    excludes: &[String],
    paths: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let globs: Vec<(&String, Gitignore)> = excludes
        .iter()
        .filter(|g| !g.trim().is_empty())
        .filter_map(|g| Some((g, compile("excludes", std::slice::from_ref(g)).ok()??)))
        .collect();
    let mut used = vec![false; globs.len()];
    for rel in paths {
        if filter.is_match(rel) {
            return Vec::new();
        }
        if !filter.is_included(rel) {
            continue;
        }
        let path = Path::new(rel.trim_start_matches('/'));
        for ((_, set), used) in globs.iter().zip(used.iter_mut()) {
            *used = *used || set.matched_path_or_any_parents(path, false).is_ignore();
        }
    }
    globs
        .into_iter()
        .zip(used)
        .filter(|(_, used)| *used)
        .map(|((g, _), _)| g.clone())
        .collect()
}

/// Normalise one user glob: Windows separators become `/`, a leading `./` or `/`
/// is dropped, and a glob without `/` matches at any depth.
pub fn normalize_glob(glob: &str) -> String {
    let mut g = glob.trim().replace('\\', "/");
    while let Some(rest) = g.strip_prefix("./") {
        g = rest.to_string();
    }
    let g = g.trim_start_matches('/').trim_end_matches('/').to_string();
    if g.contains('/') || g.starts_with("**") {
        g
    } else {
        format!("**/{g}")
    }
}

/// One list of user globs as a gitignore matcher (see [`Filter`]); `None` when it has none.
fn compile(field: &'static str, globs: &[String]) -> Result<Option<Gitignore>> {
    let globs: Vec<&String> = globs.iter().filter(|g| !g.trim().is_empty()).collect();
    if globs.is_empty() {
        return Ok(None);
    }
    // Relative paths are matched, so the matcher's root is empty.
    let mut builder = GitignoreBuilder::new("");
    // An unclosed `[` is a mistake to report, not a literal (as git reads it).
    builder.allow_unclosed_class(false);
    // Only `!` globs in an include list: start from every file.
    if field == "patterns" && globs.iter().all(|g| g.trim().starts_with('!')) {
        add_line(&mut builder, field, "*", "*")?;
    }
    for raw in &globs {
        let path = raw.trim().trim_start_matches('!');
        if path.split(['/', '\\']).any(|part| part == "..") {
            return Err(Error::InvalidGlob {
                field,
                glob: raw.to_string(),
                reason: "`..` would leave the root".into(),
            });
        }
        if field == "excludes" && raw.trim().starts_with('!') {
            return Err(Error::BangExclude {
                glob: raw.to_string(),
            });
        }
        add_line(&mut builder, field, raw, &gitignore_line(raw))?;
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| invalid(field, globs[0], e))
}

/// A glob that matches the file at `rel` (relative, `/`-separated) and
/// nothing else, or `None` for a path with a `\` (a user glob's `\` is a
/// Windows separator, see [`gitignore_line`]): anchored at the root with a
/// leading `/` (a gitignore line without an inner `/` matches at any depth:
/// `README.md` would exclude every README) and its glob characters escaped
/// by `globset::escape` (`old[1.py` → `/old[[]1.py`: as a glob, an unclosed
/// class). A leading `!` or `#` is literal after the `/`.
pub fn literal_glob(rel: &str) -> Option<String> {
    (!rel.contains('\\')).then(|| format!("/{}", globset::escape(rel)))
}

/// A user glob as a gitignore line: `\` becomes `/`, a leading `./` goes
/// (after a `!` too), and a leading `#` is escaped (it would be a comment).
fn gitignore_line(raw: &str) -> String {
    let g = raw.trim().replace('\\', "/");
    let (bang, mut g) = match g.strip_prefix('!') {
        Some(rest) => ("!", rest.to_string()),
        None => ("", g),
    };
    while let Some(rest) = g.strip_prefix("./") {
        g = rest.to_string();
    }
    let hash = if bang.is_empty() && g.starts_with('#') {
        "\\"
    } else {
        ""
    };
    format!("{bang}{hash}{g}")
}

fn add_line(
    builder: &mut GitignoreBuilder,
    field: &'static str,
    raw: &str,
    line: &str,
) -> Result<()> {
    builder
        .add_line(None, line)
        .map(|_| ())
        .map_err(|e| invalid(field, raw, e))
}

/// `ignore`'s glob error as an [`Error::InvalidGlob`]: the glob as given and
/// the reason alone (the syntax error, e.g. "unclosed character class; missing ']'").
fn invalid(field: &'static str, raw: &str, e: ignore::Error) -> Error {
    let reason = match e {
        ignore::Error::Glob { err, .. } => err,
        other => other.to_string(),
    };
    Error::InvalidGlob {
        field,
        glob: raw.to_string(),
        reason,
    }
}

#[cfg(all(test, target_os = "linux"))]
#[path = "../tests/common/deep_tree.rs"]
mod deep_tree;

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        dir
    }

    /// A walk of `root` with the default options.
    fn walked(root: &Path) -> Walked {
        walk_with(
            root,
            WalkOptions::default(),
            &DependencyDirs::default(),
            &|| false,
        )
    }

    fn rels(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.rel.as_str()).collect()
    }

    #[test]
    fn ignore_files_and_hidden_files_are_skipped() {
        let dir = tree(&[
            "a.py",
            "build/out.py",
            ".hidden/x.py",
            ".env",
            "src/b.rs",
            "gen/c.py",
        ]);
        std::fs::write(dir.path().join(".ignore"), "build/\n").unwrap();
        // Outside a git repository a .gitignore is not ours to apply (ripgrep's rule).
        std::fs::write(dir.path().join(".gitignore"), "/*\n").unwrap();
        assert_eq!(rels(&walk(dir.path())), ["a.py", "gen/c.py", "src/b.rs"]);
        // Inside one, it is.
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "gen/\n").unwrap();
        assert_eq!(rels(&walk(dir.path())), ["a.py", "src/b.rs"]);
    }

    /// A root inside a scratch directory, with a sibling directory `outside`
    /// holding a secret file.
    #[cfg(unix)]
    #[test]
    fn links_leading_out_or_nowhere_are_counted_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("outside.py"), "y = 2\n").unwrap();
        std::os::unix::fs::symlink("../outside.py", root.join("out.py")).unwrap();
        std::os::unix::fs::symlink("missing.py", root.join("dangling.py")).unwrap();
        std::os::unix::fs::symlink("a.py", root.join("inside.py")).unwrap();
        let (files, refused) = walk_counting(&root, &|| false, &DependencyDirs::default());
        // `inside.py` is followed, and its file is returned once, as `a.py`.
        assert_eq!(rels(&files), ["a.py"]);
        assert_eq!(
            refused, 2,
            "the outside and the dangling link, not the inside one"
        );
    }

    #[cfg(unix)]
    fn root_and_outside(files: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("outside/deep")).unwrap();
        std::fs::write(dir.path().join("outside/secret.py"), "secret").unwrap();
        std::fs::write(dir.path().join("outside/deep/more.py"), "secret").unwrap();
        (dir, root)
    }

    #[cfg(unix)]
    #[test]
    fn links_that_leave_the_root_are_not_followed() {
        use std::os::unix::fs::symlink;
        let (dir, root) = root_and_outside(&["a.py", "sub/b.py"]);
        let outside = dir.path().join("outside");
        symlink(outside.join("secret.py"), root.join("abs_file.py")).unwrap();
        symlink("../outside/secret.py", root.join("rel_file.py")).unwrap();
        symlink(&outside, root.join("abs_dir")).unwrap();
        symlink("../../outside", root.join("sub/rel_dir")).unwrap();
        symlink(dir.path(), root.join("parent")).unwrap();
        symlink("/", root.join("slash")).unwrap();
        symlink("does/not/exist.py", root.join("dangling.py")).unwrap();
        let files = walk(&root);
        assert_eq!(rels(&files), ["a.py", "sub/b.py"]);
        for e in &files {
            assert!(e
                .abs
                .canonicalize()
                .unwrap()
                .starts_with(root.canonicalize().unwrap()));
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_root_are_aliases_and_each_file_is_returned_once() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&["a.py", "pkg/mod.py", ".hidden/only.py"]);
        // Same file under two paths: the real path is kept.
        symlink("a.py", root.join("alias.py")).unwrap();
        symlink("pkg", root.join("pkg_link")).unwrap();
        // Loops: to an ancestor, to the root itself, and inside a hidden directory.
        symlink("..", root.join("pkg/up")).unwrap();
        symlink(".", root.join("self")).unwrap();
        symlink("../.hidden", root.join(".hidden/again")).unwrap();
        let (files, refused) = walk_counting(&root, &|| false, &DependencyDirs::default());
        assert_eq!(rels(&files), ["a.py", "pkg/mod.py"]);
        assert_eq!(refused, 0, "every link names a path the walk reached");
    }

    /// A root reached through a link (`--root ~/proj` where `~/proj` links
    /// elsewhere): the links inside it resolve to real paths, which are the
    /// walked paths below the resolved root; and a link leaving it is still
    /// counted.
    #[cfg(unix)]
    #[test]
    fn links_are_judged_by_real_paths_when_the_root_itself_is_a_link() {
        use std::os::unix::fs::symlink;
        let (dir, root) = root_and_outside(&["a.py", "pkg/mod.py"]);
        symlink("a.py", root.join("alias.py")).unwrap();
        symlink("pkg", root.join("pkg_link")).unwrap();
        symlink("../outside", root.join("out")).unwrap();
        let via = dir.path().join("via");
        symlink(&root, &via).unwrap();
        let (files, refused) = walk_counting(&via, &|| false, &DependencyDirs::default());
        assert_eq!(rels(&files), ["a.py", "pkg/mod.py"]);
        assert_eq!(refused, 1, "only the link to outside/ is refused");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_does_not_reopen_a_directory_the_ignore_rules_closed() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&["src/a.py", "build/out.py"]);
        std::fs::write(root.join(".ignore"), "build/\n").unwrap();
        symlink("build", root.join("src/gen")).unwrap();
        let (files, refused) = walk_counting(&root, &|| false, &DependencyDirs::default());
        assert_eq!(rels(&files), ["src/a.py"]);
        assert_eq!(refused, 1, "the link to an ignored directory is counted");
    }

    /// The links are judged after the walk, one resolution each; once the
    /// call's stop fires no more are. A 2 s deadline stopped the walk of
    /// 276k files with one link in them, then every file's path was
    /// resolved: the answer came at 5.6 s.
    #[cfg(unix)]
    #[test]
    fn links_are_not_judged_once_the_stop_fires() {
        use std::os::unix::fs::symlink;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (dir, root) = root_and_outside(&["a.py"]);
        for name in ["l1.py", "l2.py", "l3.py"] {
            symlink(dir.path().join("outside/secret.py"), root.join(name)).unwrap();
        }
        // The walk asks once per entry it visits: the root, `a.py` and
        // the three links. Every later question is the judging's.
        let asked = AtomicUsize::new(0);
        let stop = || asked.fetch_add(1, Ordering::SeqCst) >= 5;
        let walked = walk_with(
            &root,
            WalkOptions::default(),
            &DependencyDirs::default(),
            &stop,
        );
        assert_eq!(rels(&walked.files), ["a.py"]);
        assert_eq!(
            walked.links_not_followed, 0,
            "no link judged after the stop"
        );
        let (_, refused) = walk_counting(&root, &|| false, &DependencyDirs::default());
        assert_eq!(refused, 3);
    }

    /// D1: a link's target passes the rules its own path would.
    #[cfg(unix)]
    #[test]
    fn links_to_hidden_or_ignored_files_and_directories_are_counted_not_followed() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&[
            "src/app.py",
            ".env",
            ".git/config",
            ".store/lib.py",
            "private/db.cfg",
        ]);
        std::fs::write(root.join(".ignore"), "private/\n").unwrap();
        symlink(".env", root.join("notes_env.txt")).unwrap();
        symlink(".git/config", root.join("gitcfg.txt")).unwrap();
        symlink("private/db.cfg", root.join("dbcfg_link.txt")).unwrap();
        symlink("../.env", root.join("src/env.py")).unwrap();
        symlink(".store", root.join("shown")).unwrap();
        let (files, refused) = walk_counting(&root, &|| false, &DependencyDirs::default());
        assert_eq!(rels(&files), ["src/app.py"]);
        assert_eq!(refused, 5);
    }

    /// D1: `!.env` in an ignore file re-opens hidden files only when asked.
    #[test]
    fn a_whitelist_reopens_hidden_files_only_with_the_option() {
        let dir = tree(&["src/app.py", ".env", ".config/creds", ".other"]);
        std::fs::write(dir.path().join(".ignore"), "!.env\n!.config/\n").unwrap();
        let files = walked(dir.path()).files;
        assert_eq!(rels(&files), ["src/app.py"]);
        let opened = WalkOptions {
            hidden_whitelisted: true,
        };
        let files = walk_with(dir.path(), opened, &DependencyDirs::default(), &|| false).files;
        assert_eq!(rels(&files), [".config/creds", ".env", "src/app.py"]);
    }

    /// Probe 32, P6: a repository's own `.ignore` cannot re-open git's
    /// directory (nor a submodule's `.git` file) with the whitelist option on.
    #[test]
    fn gits_own_directory_is_never_walked_whatever_the_whitelist() {
        let dir = tree(&[
            "src/app.py",
            ".env",
            ".git/config",
            ".git/hooks/pre-commit.sample",
            "sub/.git",
            "lib/.GIT/config",
        ]);
        std::fs::write(
            dir.path().join(".ignore"),
            "!.env\n!.git/\n!.git/config\n!/.git/**\n!.git\n!.GIT/\n",
        )
        .unwrap();
        let opened = WalkOptions {
            hidden_whitelisted: true,
        };
        let files = walk_with(dir.path(), opened, &DependencyDirs::default(), &|| false).files;
        assert_eq!(rels(&files), [".env", "src/app.py"]);
    }

    #[test]
    fn dependency_directories_are_not_entered_unless_an_include_names_them() {
        let dir = tree(&[
            "src/app.js",
            "node_modules/left-pad/index.js",
            "web/node_modules/react/index.js",
            "vendor/github.com/x/y.go",
            "third_party/zlib/zlib.c",
            "venv/lib/python3.12/site-packages/requests/api.py",
            "ios/Pods/AFNetworking/AF.m",
            "src/vendors.js",
        ]);
        // Outside git, with no ignore file at all.
        assert_eq!(rels(&walk(dir.path())), ["src/app.js", "src/vendors.js"]);
        // An include glob naming a dependency directory re-opens it (all of
        // them by that name; the include filters the answer afterwards).
        let deps = DependencyDirs::reopened_by(&["node_modules/**".into()]);
        let (files, _) = walk_counting(dir.path(), &|| false, &deps);
        assert_eq!(
            rels(&files),
            [
                "node_modules/left-pad/index.js",
                "src/app.js",
                "src/vendors.js",
                "web/node_modules/react/index.js",
            ]
        );
        let deps = DependencyDirs::reopened_by(&["**/site-packages/requests/*.py".into()]);
        let (files, _) = walk_counting(dir.path(), &|| false, &deps);
        assert!(rels(&files).contains(&"venv/lib/python3.12/site-packages/requests/api.py"));
        // A root that is itself a dependency directory is walked.
        assert_eq!(
            rels(&walk(&dir.path().join("third_party"))),
            ["zlib/zlib.c"]
        );
    }

    #[test]
    fn includes_and_excludes_select_paths() {
        let f = Filter::new(&["src/**/*.rs".into()], &["src/gen".into()]).unwrap();
        assert!(f.is_match("src/a/b.rs"));
        assert!(!f.is_match("src/gen/b.rs"));
        assert!(!f.is_match("tests/b.rs"));
        let f = Filter::new(&["*.py".into()], &["tests".into()]).unwrap();
        assert!(f.is_match("pkg/mod.py"));
        assert!(!f.is_match("pkg/tests/test_mod.py"));
    }

    #[test]
    fn windows_separators_are_normalised() {
        let f = Filter::new(&[r"src\auth\*.py".into()], &[]).unwrap();
        assert!(f.is_match("src/auth/token.py"));
    }

    /// `dir/` matches only a directory, as in a `.gitignore`.
    #[test]
    fn a_trailing_slash_matches_only_directories() {
        let f = Filter::new(&[], &["build/".into()]).unwrap();
        assert!(!f.is_match("build/out.js"));
        assert!(!f.is_match("src/build/gen.rs"));
        assert!(f.is_match("tools/build"), "a file named build is kept");
        let f = Filter::new(&["docs/".into()], &[]).unwrap();
        assert!(f.is_match("docs/guide.md"));
        assert!(!f.is_match("src/docs"));
    }

    /// In the include list `!x` takes back what an earlier glob matched, and
    /// a leading `/` anchors at the root, as in a `.gitignore`.
    #[test]
    fn a_bang_takes_back_an_earlier_glob() {
        let f = Filter::new(&["*.py".into(), "!tests/**".into()], &[]).unwrap();
        assert!(f.is_match("src/a.py"));
        assert!(!f.is_match("tests/b.py"));
        assert!(!f.is_match("src/a.rs"));
        // Only `!` includes: every other file.
        let f = Filter::new(&["!*.md".into()], &[]).unwrap();
        assert!(f.is_match("src/a.rs"));
        assert!(!f.is_match("docs/README.md"));
        let f = Filter::new(&[], &["/setup.py".into()]).unwrap();
        assert!(!f.is_match("setup.py"));
        assert!(f.is_match("pkg/setup.py"));
        let f = Filter::new(&[], &["#notes.txt".into()]).unwrap();
        assert!(!f.is_match("#notes.txt"), "a leading # is not a comment");
    }

    /// Probe 32, P16: `!` means exclude, as in ripgrep's `-g`, so only an
    /// include list takes it; in an exclude list it took back an earlier
    /// exclude or did nothing, and is refused with where it belongs.
    #[test]
    fn a_bang_in_an_exclude_glob_is_refused_with_where_it_belongs() {
        for excludes in [
            &["!src/**"][..],
            &["tests", "!tests/conftest.py"],
            &[" !src/**"],
        ] {
            let excludes: Vec<String> = excludes.iter().map(|g| g.to_string()).collect();
            let bang = excludes.last().unwrap();
            let err = Filter::new(&[], &excludes).unwrap_err().to_string();
            assert_eq!(
                err,
                format!(
                    "{bang:?} in `excludes`: a leading `!` means exclude, and only in an include \
                     list (`patterns`), as in ripgrep's -g '!GLOB'; an exclude glob cannot start \
                     with it. To fix it, put {:?} in `excludes`, or {bang:?} in `patterns`",
                    bang.trim().trim_start_matches('!')
                )
            );
        }
        // Where it belongs it excludes, and a `!` inside a glob is literal.
        let f = Filter::new(&["!src/**".into()], &[]).unwrap();
        assert!(!f.is_match("src/a.py") && f.is_match("tests/t.py"));
        let f = Filter::new(&[], &["**/!old.py".into()]).unwrap();
        assert!(!f.is_match("src/!old.py") && f.is_match("src/old.py"));
        let f = Filter::new(&[], &["/!top.py".into()]).unwrap();
        assert!(!f.is_match("!top.py") && f.is_match("src/!top.py"));
    }

    #[test]
    fn a_directory_off_every_include_glob_may_hold_no_included_file() {
        let may = |includes: &[&str], dir: &str| {
            let includes: Vec<String> = includes.iter().map(|g| g.to_string()).collect();
            Filter::new(&includes, &[]).unwrap().may_hold_included(dir)
        };
        assert!(may(&[], "build"));
        for dir in [".", "src", "src/gen/deep", "src/a.py"] {
            assert!(may(&["src/**/*.py"], dir), "{dir}");
        }
        for dir in ["build", "srcs", "lib/src"] {
            assert!(!may(&["src/**/*.py"], dir), "{dir}");
            assert!(!may(&["/src/a.py", "./src\\b", "!lib/**"], dir), "{dir}");
        }
        assert!(may(&["docs/api/*.md"], "docs"), "above the glob's path");
        assert!(!may(&["docs/api/*.md"], "docs/guide"));
        assert!(may(&["src/**", "lib/*/x"], "lib/a/b"));
        // Globs that may match at any depth, or only `!` ones: every directory.
        for globs in [
            &["*.py"][..],
            &["docs/"],
            &["**/gen"],
            &["*/src/**"],
            &["!*.md"],
        ] {
            assert!(may(globs, "build/out"), "{globs:?}");
        }
    }

    #[test]
    fn include_globs_that_match_no_path_are_listed_as_given() {
        let paths = ["src/auth/token.py", "docs/guide.md"];
        let globs: Vec<String> = [
            "src/**",
            "nosuch/**",
            "/token.py",
            "*.md",
            "!src/x",
            "  ",
            r"src\auth",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            unmatched_includes(&globs, paths),
            ["nosuch/**", "/token.py"],
            "a `!` glob or a blank one is never listed; `\\` is a separator"
        );
        assert_eq!(unmatched_includes(&globs, []).len(), 5);
    }

    #[test]
    fn exclude_globs_that_leave_no_included_path_are_listed_as_given() {
        let paths = ["src/auth/token.py", "src/app.py", "docs/guide.md"];
        let strings =
            |globs: &[&str]| -> Vec<String> { globs.iter().map(|g| g.to_string()).collect() };
        let all = |includes: &[&str], excludes: &[&str]| {
            let (includes, excludes) = (strings(includes), strings(excludes));
            let filter = Filter::new(&includes, &excludes).unwrap();
            excluding_all(&filter, &excludes, paths)
        };
        assert_eq!(all(&[], &["**"]), ["**"]);
        assert_eq!(all(&["**"], &["**"]), ["**"]);
        assert_eq!(
            all(&["src/**"], &["nosuch/**", "*.py", "docs/"]),
            ["*.py"],
            "only the globs that remove an included path"
        );
        assert_eq!(all(&[], &["*.py", "docs"]), ["*.py", "docs"]);
        assert!(all(&[], &["*.py"]).is_empty(), "docs/guide.md is left");
        assert!(all(&["nosuch/**"], &["**"]).is_empty(), "nothing included");
        let filter = Filter::new(&[], &strings(&["**"])).unwrap();
        assert!(excluding_all(&filter, &strings(&["**"]), []).is_empty());
    }

    #[cfg(target_os = "linux")]
    use super::deep_tree::deep_tree;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_that_cannot_be_read_is_listed_never_a_hidden_or_ignored_one() {
        // 1,030 levels of `abc/` pass PATH_MAX (4,096 bytes): the walk cannot
        // list the directory whose path is too long (as root can: permissions
        // would not stop the tests' user everywhere). It vanished unnamed.
        let dir = tree(&["a.py", "gen/keep.txt", ".hid/keep.txt"]);
        std::fs::write(dir.path().join(".ignore"), "gen/\n").unwrap();
        for at in ["", "gen", ".hid"] {
            deep_tree(
                &dir.path().join(at),
                "abc",
                1030,
                "zorblax.py",
                "def zorblax_deep():\n    pass\n",
            );
        }
        let walked = walked(dir.path());
        assert_eq!(rels(&walked.files), ["a.py"]);
        let [only] = walked.dirs_not_read.as_slice() else {
            panic!("{:?}", walked.dirs_not_read);
        };
        assert_eq!(
            only.reason,
            "directory could not be read: File name too long (os error 36)"
        );
        assert!(
            only.path.split('/').all(|c| c == "abc"),
            "relative, and in the tree that is neither hidden nor ignored: {}",
            only.path
        );
        let full = dir.path().join(&only.path).as_os_str().len();
        assert!(full >= 4096 && full - 4 < 4096, "{full}");
    }

    /// Walks `root` on a thread: the walk's answer, or a panic when it has not
    /// answered in a minute (a FIFO rule file held it for ever: probe 36).
    #[cfg(unix)]
    fn walked_or_hung(root: &Path) -> Walked {
        let (tx, rx) = std::sync::mpsc::channel();
        let root = root.to_path_buf();
        std::thread::spawn(move || tx.send(walked(&root)));
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the walk waited on a FIFO rule file")
    }

    #[cfg(unix)]
    fn mkfifo(p: &Path) {
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            p,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
    }

    /// A `.gitignore` or `.ignore` that is a FIFO (a tarball can carry one)
    /// made `ignore`'s blocking open wait for ever: no answer, no deadline.
    /// The directory holding it is listed as not read, with how to fix it;
    /// its files (which its rules might ignore) are not returned.
    #[cfg(unix)]
    #[test]
    fn a_fifo_rule_file_is_a_directory_not_read_never_a_hang() {
        let dir = tree(&["a.py", "sub/b.py", "sub/deep/c.py", "git/d.py"]);
        mkfifo(&dir.path().join("sub/.ignore"));
        std::fs::create_dir_all(dir.path().join("git/.git/info")).unwrap();
        mkfifo(&dir.path().join("git/.git/info/exclude"));
        let found = walked_or_hung(dir.path());
        assert_eq!(rels(&found.files), ["a.py"]);
        let listed: Vec<(&str, &str)> = found
            .dirs_not_read
            .iter()
            .map(|d| (d.path.as_str(), d.reason.as_str()))
            .collect();
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert_eq!(listed[0].0, "git");
        assert!(
            listed[0].1.contains(".git/info/exclude is a FIFO"),
            "{listed:?}"
        );
        assert_eq!(listed[1].0, "sub");
        assert!(listed[1].1.contains(".ignore is a FIFO"), "{listed:?}");
        assert!(listed[1]
            .1
            .contains("replace it with a regular file or remove it"));

        // The root's own rule file: nothing can be walked, and it says why.
        mkfifo(&dir.path().join(".gitignore"));
        let found = walked_or_hung(dir.path());
        assert!(found.files.is_empty());
        let [only] = found.dirs_not_read.as_slice() else {
            panic!("{:?}", found.dirs_not_read);
        };
        assert_eq!(only.path, ".");
        assert!(
            only.reason
                .contains("the root's ignore rules file .gitignore"),
            "{}",
            only.reason
        );
        // And a parent directory's (its rules apply below it too).
        let found = walked_or_hung(&dir.path().join("sub/deep"));
        assert!(found.files.is_empty());
        assert!(found.dirs_not_read[0]
            .reason
            .contains("a parent directory's"));
    }

    /// An ignore file's bad line (here or in a parent of the root) was only
    /// logged: the answer said nothing, though the rule it held was lost.
    #[test]
    fn errors_in_ignore_files_are_counted_here_and_above_the_root() {
        let dir = tree(&["root/a.py", "root/sub/b.py", "root/gen/c.py"]);
        let root = dir.path().join("root");
        std::fs::write(dir.path().join(".ignore"), "{a,b\n").unwrap();
        std::fs::write(root.join(".ignore"), "gen/\n[z-a]\n").unwrap();
        std::fs::write(root.join("sub/.ignore"), "{x\n{y\n").unwrap();
        let found = walked(&root);
        assert_eq!(
            rels(&found.files),
            ["a.py", "sub/b.py"],
            "the good line holds"
        );
        assert!(found.dirs_not_read.is_empty());
        assert_eq!(
            found.walk_errors, 4,
            "one line above, one in the root, two in sub"
        );
        std::fs::write(dir.path().join(".ignore"), "").unwrap();
        std::fs::write(root.join(".ignore"), "gen/\n").unwrap();
        std::fs::remove_file(root.join("sub/.ignore")).unwrap();
        assert_eq!(walked(&root).walk_errors, 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_path_that_is_not_utf8_is_listed_not_walked() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tree(&["a.py"]);
        let bytes = |rel: &[u8]| dir.path().join(std::ffi::OsStr::from_bytes(rel));
        std::fs::write(bytes(b"b\xff.py"), "x").unwrap();
        std::fs::create_dir(bytes(b"d\xe9")).unwrap();
        std::fs::write(bytes(b"d\xe9/c.py"), "x").unwrap();
        std::fs::write(bytes(b".\xff"), "x").unwrap();
        let walked = walked(dir.path());
        assert_eq!(rels(&walked.files), ["a.py"]);
        let listed: Vec<(&str, &str)> = walked
            .not_utf8
            .iter()
            .map(|f| (f.path.as_str(), f.reason.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                (r"b\xff.py", "file name is not UTF-8"),
                (r"d\xe9/c.py", "directory name is not UTF-8"),
            ]
        );
    }

    #[test]
    fn bad_globs_name_the_glob() {
        let err = Filter::new(&["src/[".into()], &[]).unwrap_err().to_string();
        assert!(err.contains("src/["), "{err}");
        let err = Filter::new(&[], &["../etc".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("leave the root"), "{err}");
        let err = Filter::new(&[], &["!../etc".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("leave the root"), "{err}");
    }
}
