//! The cache of materialized trees (`git archive | tar -x`).

use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cache of materialized trees: `ROOT/owner+name/COMMIT/`.
pub(super) struct Trees {
    pub(super) root: PathBuf,
}

impl Trees {
    pub(super) fn dir(&self, repo: &str, commit: &str) -> PathBuf {
        self.root.join(repo.replace('/', "+")).join(commit)
    }

    /// The tree of `repo` at `commit`, extracted with `git archive | tar -x`
    /// unless it is already cached. Returns the directory and whether it was
    /// extracted now.
    pub(super) fn materialize(
        &self,
        git_dir: &Path,
        repo: &str,
        commit: &str,
    ) -> Result<(PathBuf, bool)> {
        let dir = self.dir(repo, commit);
        if dir.is_dir() {
            return Ok((dir, false));
        }
        let parent = dir.parent().expect("tree dir has a parent");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        // Extract beside the final place (same file system, so the rename is
        // atomic); the pid keeps two concurrent runs apart.
        let tmp = parent.join(format!(".{commit}.tmp-{}", std::process::id()));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)
                .with_context(|| format!("cannot remove {}", tmp.display()))?;
        }
        std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        if let Err(e) = extract(git_dir, commit, &tmp) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        if let Err(e) = std::fs::rename(&tmp, &dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            // Another run may have put the same tree in place meanwhile.
            if !dir.is_dir() {
                return Err(e)
                    .with_context(|| format!("cannot move the tree into {}", dir.display()));
            }
        }
        Ok((dir, true))
    }
}

pub(super) fn extract(git_dir: &Path, commit: &str, into: &Path) -> Result<()> {
    let mut git = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run git (is it installed?)")?;
    let tar_out = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(git.stdout.take().expect("git stdout is piped"))
        .stderr(Stdio::piped())
        .output()
        .context("cannot run tar")?;
    let mut git_err = String::new();
    if let Some(mut e) = git.stderr.take() {
        let _ = e.read_to_string(&mut git_err);
    }
    let git_status = git.wait().context("git archive did not finish")?;
    if !git_status.success() {
        bail!(
            "git --git-dir {} archive {commit} failed: {} (is the commit in this repository? fetch it again)",
            git_dir.display(),
            git_err.trim()
        );
    }
    if !tar_out.status.success() {
        bail!(
            "tar -x -C {} failed: {}",
            into.display(),
            String::from_utf8_lossy(&tar_out.stderr).trim()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_materialized_once_and_atomically() {
        let git_ok = Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !git_ok {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("pkg")).unwrap();
        std::fs::write(work.join("pkg/mod.py"), "x = 1\n").unwrap();
        // Not the caller's repository, even when run from a git hook.
        let git = |args: &[&str]| crate::engine::scratch_git(&work, args).unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "init"]);
        let commit = git(&["rev-parse", "HEAD"]);
        let trees = Trees {
            root: dir.path().join("trees"),
        };
        let (tree, extracted) = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(extracted);
        assert_eq!(tree, dir.path().join("trees/o+n").join(&commit));
        assert_eq!(
            std::fs::read_to_string(tree.join("pkg/mod.py")).unwrap(),
            "x = 1\n"
        );
        let (_, extracted) = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(!extracted);
        // A commit the repository lacks fails and leaves nothing behind.
        let missing = "0123456789abcdef0123456789abcdef01234567";
        assert!(trees
            .materialize(&work.join(".git"), "o/n", missing)
            .is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path().join("trees/o+n"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(&commit)]);
    }
}
