//! The root a call searches: resolution of the `root` argument against
//! `--root` (confinement), and the root's git provenance.

use crate::confine::{Allowed, Override};
use crate::error::{Error, Result};
use crate::types::Root;
use crate::walk::WalkOptions;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where roots may be: with `--root`, it and each `--allow-root` (every
/// resolved root must lie inside one of them, with nothing hidden or ignored
/// below it); without, anywhere the CLI's checks let through.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// The directory given with `--root`.
    root: Option<PathBuf>,
    /// With `--root`: it, then each `--allow-root`. Empty: unconfined.
    allowed: Vec<Allowed>,
    /// Let the CLI's `--root` be hidden or ignored (`--allow-hidden-root`).
    allow_hidden_root: bool,
    /// What the walk of any root may return beyond the default rules.
    walk: WalkOptions,
}

impl Roots {
    /// `root` (`--root`), `allow_roots` (`--allow-root`, used only with a
    /// `--root`), whether the CLI's own root may be hidden or ignored, and
    /// whether ignore-file whitelists may re-open hidden files.
    pub fn new(
        root: Option<PathBuf>,
        allow_roots: &[PathBuf],
        allow_hidden_root: bool,
        hidden_whitelisted: bool,
    ) -> Roots {
        // Fail closed: a --root that cannot be resolved still confines (nothing
        // resolves inside an unresolvable path, so every root is refused).
        let allowed = root
            .iter()
            .chain(root.is_some().then_some(allow_roots).into_iter().flatten())
            .map(|r| Allowed::new(r))
            .collect();
        Roots {
            root,
            allowed,
            allow_hidden_root,
            walk: WalkOptions { hidden_whitelisted },
        }
    }

    /// The walk's options for every root.
    pub fn walk_options(&self) -> WalkOptions {
        self.walk
    }

    /// Root resolution: `root` argument → `--root` → the working directory.
    /// A relative `root` is taken relative to `--root` (or the working
    /// directory); a blank one is [`Error::BlankRoot`].
    ///
    /// With `--root`, the result must lie inside it or an `--allow-root`
    /// ([`crate::confine::resolve_inside`]: "outside" is decided before
    /// existence, so a refusal reveals nothing about outside paths), and no
    /// component below that directory may be hidden or ignored. Without it
    /// (the CLI), the root may not be hidden or ignored below the working
    /// directory or its git work tree unless `--allow-hidden-root`. Never,
    /// whatever the overrides, in git's own directory
    /// ([`crate::confine::check_outside_git`]). The error
    /// names the argument as given, never where a link points.
    pub fn resolve_root(&self, root: Option<&str>) -> Result<PathBuf> {
        let base = match &self.root {
            Some(r) => r.clone(),
            None => std::env::current_dir().map_err(|why| Error::Io {
                path: PathBuf::from("."),
                why,
            })?,
        };
        // A blank `root` is a mistake (a client's empty form field, a lost
        // variable), not a request for the default: it was read as one and
        // searched the whole server root.
        let arg = match root {
            Some(r) if r.trim().is_empty() => {
                return Err(Error::BlankRoot {
                    given: r.to_string(),
                })
            }
            r => r.map(str::trim),
        };
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
        let arg = arg.unwrap_or_default();
        if self.allowed.is_empty() {
            let canon = canonical_root(path, arg)?;
            crate::confine::check_outside_git(&canon, arg)?;
            self.check_cli_root(&canon, arg)?;
            return Ok(canon);
        }
        let canon = crate::confine::resolve_inside(&path, &self.allowed, arg)?;
        crate::confine::check_outside_git(&canon, arg)?;
        self.check_root_argument(&canon, arg)?;
        Ok(canon)
    }

    /// A root under a server's `--root`/`--allow-root`: nothing hidden or
    /// ignored below the allowed directory it lies in (the deepest one).
    fn check_root_argument(&self, canon: &Path, arg: &str) -> Result<()> {
        let anchor = self
            .allowed
            .iter()
            .map(|a| &a.canon)
            .filter(|a| canon.starts_with(a))
            .max_by_key(|a| a.components().count());
        match anchor {
            Some(anchor) => crate::confine::check_visible(canon, anchor, arg, Override::AllowRoot),
            None => Ok(()),
        }
    }

    /// The CLI's root: nothing hidden or ignored below the working directory
    /// or enclosing git work tree, unless `--allow-hidden-root`.
    fn check_cli_root(&self, canon: &Path, arg: &str) -> Result<()> {
        if self.allow_hidden_root {
            return Ok(());
        }
        match crate::confine::cli_anchor(canon) {
            Some(anchor) => {
                crate::confine::check_visible(canon, &anchor, arg, Override::AllowHiddenRoot)
            }
            None => Ok(()),
        }
    }
}

/// `path` as a canonical directory, or the error that says what is wrong with it.
pub fn canonical_dir(path: PathBuf) -> Result<PathBuf> {
    canonical_root(path, "")
}

/// [`canonical_dir`] of `path`, where the root argument `arg` led (empty:
/// no argument), with an error that names `arg` as given.
fn canonical_root(path: PathBuf, arg: &str) -> Result<PathBuf> {
    let (given, resolved) = as_given(arg, &path);
    if !path.exists() {
        return Err(Error::RootNotFound {
            path: given,
            resolved,
        });
    }
    if !path.is_dir() {
        return Err(Error::RootNotDirectory {
            path: given,
            resolved,
        });
    }
    path.canonicalize().map_err(|why| Error::Io { path, why })
}

/// A root argument `arg` as an error names it: as given, with `path`, where
/// it led, when that reads otherwise (a relative root joined to the
/// server's root or the working directory); `path` alone when no argument
/// was given. README: "the error names the argument as given".
pub(crate) fn as_given(arg: &str, path: &Path) -> (PathBuf, Option<PathBuf>) {
    if arg.is_empty() {
        return (path.to_path_buf(), None);
    }
    let given = PathBuf::from(arg);
    let resolved = crate::confine::lexical_abs(path);
    let resolved = (given != resolved).then_some(resolved);
    (given, resolved)
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
#[cfg(any(test, feature = "test-support"))]
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

/// `-c` settings that keep provenance from running any program a repository
/// configures (the root may be any nested repository a caller names): no
/// `core.fsmonitor` hook, and every `filter.<driver>.clean`/`.process` the
/// repository's configuration names emptied (`git status` runs a clean filter
/// on a file whose stat data changed). Reading the configuration runs nothing.
pub(crate) fn provenance_config(root: &Path, until: std::time::Instant) -> Vec<String> {
    let mut args = vec!["-c".to_string(), "core.fsmonitor=false".to_string()];
    let mut drivers = git_command();
    drivers
        .arg("-C")
        .arg(root)
        .args([
            "config",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|process|smudge)$",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Some(out) = run_git_bounded(drivers, until) {
        for key in out.lines() {
            args.push("-c".into());
            args.push(format!("{key}="));
        }
    }
    args
}

/// Longest the `git` commands of one provenance (or of one history's
/// resolution) may run together before they are killed and their answers
/// taken as unknown. A repository's configuration can make git wait for
/// ever (an `include.path` naming a FIFO); `git status` on a large, cold
/// repository takes seconds, not tens of them.
pub(crate) const GIT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `cmd` (stdout piped here) until `until` at most: its stdout when it
/// exits with success in time, else `None` (killed once `until` passed).
pub(crate) fn run_git_bounded(cmd: Command, until: std::time::Instant) -> Option<String> {
    // `whole` is success or an output at the history's 64 MiB cap, which
    // these few lines of provenance never reach.
    crate::history::run_checked(cmd, &|| std::time::Instant::now() > until)
        .and_then(|(out, whole)| whole.then_some(out))
}

/// Provenance of a root: the git worktree's top level, `HEAD` and dirtiness
/// when the root is inside one (via `git`, read-only; absent when git is not installed).
pub fn root_info(root: &Path) -> Root {
    let until = std::time::Instant::now() + GIT_TIME_LIMIT;
    let no_programs = provenance_config(root, until);
    let git = |args: &[&str]| -> Option<String> {
        let mut cmd = git_command();
        cmd.arg("-C")
            .arg(root)
            .args(&no_programs)
            // `git status` otherwise refreshes the index on disk and takes
            // `.git/index.lock`, which can fail the user's own concurrent git commands.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        run_git_bounded(cmd, until).map(|out| out.trim().to_string())
    };
    let toplevel = git(&["rev-parse", "--show-toplevel"]);
    let (head, dirty) = if toplevel.is_some() {
        (
            git(&["rev-parse", "HEAD"]),
            // Submodules are not looked into: their configuration is not the
            // one whose filter drivers `no_programs` empties, and `git status`
            // would run a submodule's clean filter on a touched file.
            git(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--ignore-submodules=all",
            ])
            .map(|s| !s.is_empty()),
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
