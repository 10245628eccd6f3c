//! The root a call searches: resolution of the `root` argument against
//! `--root` (confinement), and the root's git provenance.

use crate::error::{Error, Result};
use crate::types::Root;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where roots may be: the `--root` directory (when given) and its canonical
/// form, which every resolved root must lie inside.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// The directory given with `--root`.
    root: Option<PathBuf>,
    allowed: Option<PathBuf>,
}

impl Roots {
    pub fn new(root: Option<PathBuf>) -> Roots {
        // Fail closed: a --root that cannot be resolved still confines (nothing
        // resolves inside an unresolvable path, so every root is refused).
        let allowed = root
            .as_ref()
            .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()));
        Roots { root, allowed }
    }

    /// Root resolution: `root` argument → `--root` → the working directory.
    /// A relative `root` is taken relative to `--root` (or the working directory).
    ///
    /// With `--root`, the result must lie inside it. The check is made twice:
    /// on the path with `..` resolved by its text, before the file system is
    /// asked anything (so a refused root does not reveal whether a path outside
    /// exists), and on the canonical path (so a symbolic link cannot lead out).
    /// The error names the argument as given, never where a link points.
    pub fn resolve_root(&self, root: Option<&str>) -> Result<PathBuf> {
        let base = match &self.root {
            Some(r) => r.clone(),
            None => std::env::current_dir().map_err(|e| Error::Io {
                path: PathBuf::from("."),
                source: e,
            })?,
        };
        let arg = root.map(str::trim).filter(|r| !r.is_empty());
        let path = match arg {
            Some(r) => {
                let r = PathBuf::from(r.replace('\\', "/"));
                if r.is_absolute() {
                    r
                } else {
                    base.join(r)
                }
            }
            None => base.clone(),
        };
        let outside = |allowed: &PathBuf| Error::RootOutsideAllowed {
            path: PathBuf::from(arg.unwrap_or_default()),
            allowed: allowed.clone(),
        };
        if let Some(allowed) = &self.allowed {
            let lexical = lexical_abs(&path);
            if !lexical.starts_with(allowed) && !lexical.starts_with(lexical_abs(&base)) {
                return Err(outside(allowed));
            }
        }
        let canon = canonical_dir(path)?;
        if let Some(allowed) = &self.allowed {
            if !canon.starts_with(allowed) {
                return Err(outside(allowed));
            }
        }
        Ok(canon)
    }
}

/// `path` made absolute with `.` and `..` resolved by their text (no file
/// system access, so symbolic links are not resolved).
fn lexical_abs(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` as a canonical directory, or the error that says what is wrong with it.
pub fn canonical_dir(path: PathBuf) -> Result<PathBuf> {
    if !path.exists() {
        return Err(Error::RootNotFound { path });
    }
    if !path.is_dir() {
        return Err(Error::RootNotDirectory { path });
    }
    path.canonicalize()
        .map_err(|e| Error::Io { path, source: e })
}

/// `git` with the variables that select a repository cleared, so `-C DIR`
/// decides which repository it reads. A git hook or `git rebase --exec` exports
/// `GIT_DIR`; inherited, it would make provenance describe the caller's
/// repository instead of the root's (and a test's `git init` rewrite it).
pub(crate) fn git_command() -> Command {
    let mut cmd = Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs `git -C dir ARGS` for tests that build scratch repositories: a fixed
/// committer, no signing, the caller's repository never touched (see
/// [`git_command`]). Panics with git's stderr when the command fails; `None`
/// when git cannot be started.
#[doc(hidden)]
pub fn scratch_git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = git_command()
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Provenance of a root: the git worktree's top level, `HEAD` and dirtiness
/// when the root is inside one (via `git`, read-only; absent when git is not installed).
pub fn root_info(root: &Path) -> Root {
    let git = |args: &[&str]| -> Option<String> {
        let out = git_command()
            .arg("-C")
            .arg(root)
            // `git status` otherwise refreshes the index on disk and takes
            // `.git/index.lock`, which can fail the user's own concurrent git commands.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let toplevel = git(&["rev-parse", "--show-toplevel"]);
    let (head, dirty) = if toplevel.is_some() {
        (
            git(&["rev-parse", "HEAD"]),
            git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
        )
    } else {
        (None, None)
    };
    Root {
        path: root.to_string_lossy().into_owned(),
        git_toplevel: toplevel,
        head,
        dirty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> Option<String> {
        scratch_git(dir, args)
    }

    #[test]
    fn root_info_names_head_and_dirtiness_without_writing_to_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let plain = root_info(&root);
        assert_eq!(
            (plain.git_toplevel, plain.head, plain.dirty),
            (None, None, None)
        );
        let Some(_) = git(&root, &["init", "-q"]) else {
            return; // git is not installed: nothing more to check
        };
        let file = root.join("a.py");
        std::fs::write(&file, "x = 1\n").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "init"]);
        let head = git(&root, &["rev-parse", "HEAD"]);

        // A touched but unchanged file makes the index's stat data stale; `git status`
        // would refresh the index on disk (and take index.lock) unless told not to.
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000))
            .unwrap();
        let index = std::fs::read(root.join(".git/index")).unwrap();
        let info = root_info(&root);
        assert_eq!(info.git_toplevel.as_deref(), Some(root.to_str().unwrap()));
        assert_eq!(info.head, head);
        assert_eq!(info.dirty, Some(false), "same content is not dirty");
        assert_eq!(
            std::fs::read(root.join(".git/index")).unwrap(),
            index,
            "provenance must not write to the repository"
        );

        std::fs::write(&file, "x = 2\n").unwrap();
        assert_eq!(root_info(&root).dirty, Some(true));
    }
}
