//! DISPATCH's first half: list the files under a root.
//!
//! Order of the rules, as `ignore::WalkBuilder` applies them: hidden files and
//! directories are skipped; `.gitignore`, `.ignore`, `.git/info/exclude` and the
//! global git excludes are honoured inside a git repository (as ripgrep does:
//! outside one they may belong to a packaging, e.g. Debian's linux-source
//! tarball ships a `.gitignore` ending in `/*`), `.ignore` files always; symbolic
//! links are not followed, so nothing outside the root is reached. The query's
//! include/exclude globs are applied afterwards with `globset` (see
//! [`Filter`]), so one walk serves every cycle of a loop. Size, binary and
//! minified checks happen when a file is read (see `corpus`).

use crate::error::{Error, Result};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// A file found by the walk. `rel` is relative to the root and `/`-separated.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime: Option<SystemTime>,
}

/// Every regular file under `root` that the ignore rules let through, sorted by path.
pub fn walk(root: &Path) -> Vec<Entry> {
    walk_until(root, &|| false)
}

/// [`walk`], stopping early (with the files found so far) once `stop` returns true.
pub fn walk_until(root: &Path, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Entry> {
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
        .threads(
            std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(8),
        )
        .build_parallel();
    walker.run(|| {
        let out = &out;
        Box::new(move |res| {
            if stop() {
                return ignore::WalkState::Quit;
            }
            if let Ok(dent) = res {
                if dent.file_type().is_some_and(|t| t.is_file()) {
                    if let Some(entry) = entry_of(root, dent.path()) {
                        out.lock().expect("walk collector poisoned").push(entry);
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = out.into_inner().expect("walk collector poisoned");
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

fn entry_of(root: &Path, path: &Path) -> Option<Entry> {
    let rel = path.strip_prefix(root).ok()?;
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let meta = std::fs::symlink_metadata(path).ok();
    Some(Entry {
        rel,
        abs: path.to_path_buf(),
        size: meta.as_ref().map_or(0, |m| m.len()),
        mtime: meta.and_then(|m| m.modified().ok()),
    })
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
