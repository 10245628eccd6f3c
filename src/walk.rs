//! DISPATCH's first half: list the files under a root.
//!
//! Order of the rules, as `ignore::WalkBuilder` applies them: hidden files and
//! directories are skipped; `.gitignore`, `.ignore`, `.git/info/exclude` and the
//! global git excludes are honoured inside a git repository (as ripgrep does:
//! outside one they may belong to a packaging, e.g. Debian's linux-source
//! tarball ships a `.gitignore` ending in `/*`), `.ignore` files always. The
//! query's include/exclude globs are applied afterwards with `globset` (see
//! [`Filter`]), so one walk serves every cycle of a loop. Size, binary and
//! minified checks happen when a file is read (see `corpus`).
//!
//! Dependency directories ([`DEPENDENCY_DIRS`]: `node_modules`, `vendor`,
//! `site-packages`, ...) are not entered, inside a git repository or not,
//! unless an include glob of the query names one (see [`DependencyDirs`]):
//! installed packages hold thousands of files that match a task's words and
//! none that its fix touches.
//!
//! Confinement: nothing outside the root is returned. A symbolic link (to a
//! file or a directory) is followed only when its target, resolved, lies
//! inside the root; a link that leads outside, or that dangles, is skipped
//! before anything behind it is listed or read. Only link entries are
//! resolved, so a tree without links costs what it did before. Each file is
//! returned once, under its real path when the walk reaches it there: a link
//! to a directory that is not hidden is not entered (its files are walked at
//! their real path, under the ignore rules that apply there), so a link to an
//! ancestor cannot loop either; links into hidden directories are entered,
//! with `ignore`'s loop check; duplicates through file links are dropped.
//! (Ignore-rule files of the root's parent directories are parsed for their
//! rules, as git and ripgrep do; their text is never returned.)

use crate::error::{Error, Result};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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

/// Every regular file under `root` that the ignore rules let through, sorted by
/// path, each once. Symbolic links are followed only inside `root`.
/// Dependency directories are not entered.
pub fn walk(root: &Path) -> Vec<Entry> {
    walk_until(root, &|| false)
}

/// [`walk`], stopping early (with the files found so far) once `stop` returns true.
pub fn walk_until(root: &Path, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Entry> {
    walk_counting(root, stop, &DependencyDirs::default()).0
}

/// [`walk_until`], also counting the symbolic links not followed because
/// their target is outside the root or cannot be resolved (dangling, a loop).
/// The dependency directories `deps` re-opens are entered.
pub fn walk_counting(
    root: &Path,
    stop: &(dyn Fn() -> bool + Sync),
    deps: &DependencyDirs,
) -> (Vec<Entry>, usize) {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let refused = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // Root-relative paths of the links followed: only files at or below them
    // can be found twice.
    let links: Arc<Mutex<Vec<String>>> = Default::default();
    let out = Mutex::new(Vec::new());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        .require_git(true)
        .follow_links(true)
        .filter_entry({
            let (root, canon_root, links) = (root.to_path_buf(), canon_root.clone(), links.clone());
            let refused = refused.clone();
            let deps = deps.clone();
            // A plain entry under the root is inside it; only links need resolving.
            move |dent| {
                !deps.skips(dent)
                    && (!dent.path_is_symlink()
                        || follow_link(dent, &root, &canon_root, &links, &refused))
            }
        })
        .threads(
            std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(8),
        )
        .build_parallel();
    walker.run(|| {
        let (out, refused) = (&out, &refused);
        Box::new(move |res| {
            if stop() {
                return ignore::WalkState::Quit;
            }
            match res {
                Ok(dent) => {
                    if dent.file_type().is_some_and(|t| t.is_file()) {
                        if let Some(found) = entry_of(root, dent.path()) {
                            out.lock().expect("walk collector poisoned").push(found);
                        }
                    }
                }
                // A link back to an ancestor of where it lies (the root's
                // parent, `/`), or a dangling one: the walker refuses it
                // before `follow_link` sees it.
                Err(e) if is_refused_link(&e) => {
                    refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Err(_) => {}
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = out.into_inner().expect("walk collector poisoned");
    files.sort_unstable_by(|a, b| a.0.rel.cmp(&b.0.rel));
    let links = std::mem::take(&mut *links.lock().expect("walk links poisoned"));
    if !links.is_empty() {
        dedup_linked(&mut files, links);
    }
    let refused = refused.load(std::sync::atomic::Ordering::Relaxed);
    (files.into_iter().map(|(e, _)| e).collect(), refused)
}

/// Whether the walker's error is a link it refused before `follow_link` saw
/// it: a loop back to an ancestor, or a link whose target is missing.
fn is_refused_link(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { path, err } => {
            is_refused_link(err)
                || (path
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink())
                    && std::fs::metadata(path).is_err())
        }
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            is_refused_link(err)
        }
        ignore::Error::Partial(errs) => errs.iter().any(is_refused_link),
        _ => false,
    }
}

/// Whether to follow the link `dent`: its target must lie inside the root,
/// and a directory must be hidden (else the walk reaches it at its real path).
/// A followed link's root-relative path is added to `links`; a link refused
/// for leaving the root or not resolving is counted in `refused`.
fn follow_link(
    dent: &ignore::DirEntry,
    root: &Path,
    canon_root: &Path,
    links: &Mutex<Vec<String>>,
    refused: &std::sync::atomic::AtomicUsize,
) -> bool {
    let path = dent.path();
    let refuse = || {
        refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        false
    };
    let target = match path.canonicalize() {
        Ok(target) => target,
        Err(e) => {
            tracing::debug!(link = %path.display(), error = %e, "link cannot be resolved: skipped");
            return refuse();
        }
    };
    let Ok(inside) = target.strip_prefix(canon_root) else {
        tracing::debug!(link = %path.display(), target = %target.display(), "link leaves the root: skipped");
        return refuse();
    };
    let hidden = inside
        .components()
        .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."));
    if dent.file_type().is_some_and(|t| t.is_dir()) && !hidden {
        tracing::debug!(link = %path.display(), "link to a directory walked at its real path: skipped");
        return false;
    }
    if let Ok(rel) = path.strip_prefix(root) {
        links
            .lock()
            .expect("walk links poisoned")
            .push(rel_path(rel));
    }
    true
}

/// The identity of a file on disk (device, inode), where the platform has one.
type FileId = Option<(u64, u64)>;

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> FileId {
    None
}

#[cfg(unix)]
fn ctime(meta: &std::fs::Metadata) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn ctime(_: &std::fs::Metadata) -> Option<(i64, i64)> {
    None
}

/// Drops the extra paths of files reached more than once through the
/// followed `links` (`files` is sorted by path). Of each group the paths that
/// go through no link are kept (hard links are paths of their own); when every
/// path goes through a link, the first in path order. Costs a lookup per file
/// and work only for the files under links.
fn dedup_linked(files: &mut Vec<(Entry, FileId)>, links: Vec<String>) {
    let mut linked = vec![false; files.len()];
    for link in &links {
        // Paths at or below `link` are contiguous in sorted order.
        let start = files.partition_point(|(e, _)| e.rel.as_str() < link.as_str());
        for (i, (e, _)) in files.iter().enumerate().skip(start) {
            let below = e.rel.strip_prefix(link.as_str());
            if !below.is_some_and(|b| b.is_empty() || b.starts_with('/')) {
                if e.rel.starts_with(link.as_str()) {
                    continue; // `link.x` sorts between `link` and `link/`
                }
                break;
            }
            linked[i] = true;
        }
    }
    let ids: rustc_hash::FxHashSet<(u64, u64)> = files
        .iter()
        .zip(&linked)
        .filter(|(_, &l)| l)
        .filter_map(|((_, id), _)| *id)
        .collect();
    let mut groups: rustc_hash::FxHashMap<(u64, u64), Vec<usize>> = Default::default();
    for (i, (_, id)) in files.iter().enumerate() {
        if let Some(id) = id.filter(|id| ids.contains(id)) {
            groups.entry(id).or_default().push(i);
        }
    }
    let mut drop = vec![false; files.len()];
    for group in groups.values().filter(|g| g.len() > 1) {
        let any_real = group.iter().any(|&i| !linked[i]);
        for (k, &i) in group.iter().enumerate() {
            drop[i] = if any_real { linked[i] } else { k > 0 };
        }
    }
    let mut i = 0;
    files.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// A relative path, `/`-separated.
fn rel_path(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn entry_of(root: &Path, path: &Path) -> Option<(Entry, FileId)> {
    let rel = rel_path(path.strip_prefix(root).ok()?);
    // The target's size, mtime, ctime and inode (for a link, not the link's
    // own): the cache key.
    let meta = std::fs::metadata(path).ok();
    let id = meta.as_ref().and_then(file_id);
    Some((
        Entry {
            rel,
            abs: path.to_path_buf(),
            size: meta.as_ref().map_or(0, |m| m.len()),
            ctime: meta.as_ref().and_then(ctime),
            file_id: id,
            mtime: meta.and_then(|m| m.modified().ok()),
        },
        id,
    ))
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

/// Include and exclude globs, compiled. Globs use gitignore conventions: a glob
/// without `/` matches a file or directory name at any depth (`*.py`, `tests`);
/// a glob with `/` is anchored at the root (`src/**/*.rs`); a glob matching a
/// directory matches everything below it. A file passes when it matches some
/// include (or there are none) and no exclude.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Filter {
    pub fn new(includes: &[String], excludes: &[String]) -> Result<Filter> {
        Ok(Filter {
            include: compile("patterns", includes)?,
            exclude: compile("excludes", excludes)?,
        })
    }

    /// Whether `rel` (a `/`-separated relative path) passes the filter.
    pub fn is_match(&self, rel: &str) -> bool {
        let matches = |set: &GlobSet| {
            // A directory glob matches everything under it: test every ancestor too.
            set.is_match(rel) || rel.match_indices('/').any(|(i, _)| set.is_match(&rel[..i]))
        };
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }
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

fn compile(field: &'static str, globs: &[String]) -> Result<Option<GlobSet>> {
    let globs: Vec<&String> = globs.iter().filter(|g| !g.trim().is_empty()).collect();
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for raw in globs {
        if raw.split(['/', '\\']).any(|part| part == "..") {
            return Err(Error::InvalidGlob {
                field,
                glob: raw.clone(),
                reason: "`..` would leave the root".into(),
            });
        }
        let glob: Glob = GlobBuilder::new(&normalize_glob(raw))
            .literal_separator(true)
            .backslash_escape(false)
            .build()
            .map_err(|e| Error::InvalidGlob {
                field,
                glob: raw.clone(),
                reason: e.kind().to_string(),
            })?;
        builder.add(glob);
    }
    builder.build().map(Some).map_err(|e| Error::InvalidGlob {
        field,
        glob: e.glob().unwrap_or_default().to_string(),
        reason: e.kind().to_string(),
    })
}

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
    fn links_inside_the_root_are_followed_and_each_file_is_returned_once() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&["a.py", "pkg/mod.py", ".hidden/only.py"]);
        // Same file under two paths: the real path is kept.
        symlink("a.py", root.join("alias.py")).unwrap();
        symlink("pkg", root.join("pkg_link")).unwrap();
        // The only way to a hidden directory's file is through a link: kept.
        symlink(".hidden", root.join("shown")).unwrap();
        // Loops: to an ancestor, to the root itself, and inside a hidden directory.
        symlink("..", root.join("pkg/up")).unwrap();
        symlink(".", root.join("self")).unwrap();
        symlink("../.hidden", root.join(".hidden/again")).unwrap();
        let files = walk(&root);
        assert_eq!(rels(&files), ["a.py", "pkg/mod.py", "shown/only.py"]);
        // The size and mtime are the target's (the cache key must change when it does).
        let shown = files.iter().find(|e| e.rel == "shown/only.py").unwrap();
        assert_eq!(shown.size, 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_does_not_reopen_a_directory_the_ignore_rules_closed() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&["src/a.py", "build/out.py"]);
        std::fs::write(root.join(".ignore"), "build/\n").unwrap();
        symlink("build", root.join("src/gen")).unwrap();
        assert_eq!(rels(&walk(&root)), ["src/a.py"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_reached_only_through_links_is_returned_once() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root_and_outside(&[".store/lib.py"]);
        symlink(".store", root.join("b")).unwrap();
        symlink(".store", root.join("a")).unwrap();
        assert_eq!(rels(&walk(&root)), ["a/lib.py"]);
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

    #[test]
    fn bad_globs_name_the_glob() {
        let err = Filter::new(&["src/[".into()], &[]).unwrap_err().to_string();
        assert!(err.contains("src/["), "{err}");
        let err = Filter::new(&[], &["../etc".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("leave the root"), "{err}");
    }
}
