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
    /// unless it is already cached.
    ///
    /// A snapshot may lack a large blob; `git archive` then stops naming the
    /// file. The tree is extracted again without it (`:(exclude)PATH`, up to
    /// [`MAX_ABSENT`] files), and the absent paths are kept beside the tree in
    /// `COMMIT.absent` (one per line) so a cached tree reports them too.
    pub(super) fn materialize(&self, git_dir: &Path, repo: &str, commit: &str) -> Result<Tree> {
        let dir = self.dir(repo, commit);
        let absent_file = dir.with_extension("absent");
        if dir.is_dir() {
            let absent = std::fs::read_to_string(&absent_file)
                .map(|t| t.lines().map(String::from).collect())
                .unwrap_or_default();
            return Ok(Tree {
                dir,
                extracted: false,
                absent,
            });
        }
        let parent = dir.parent().expect("tree dir has a parent");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        // Extract beside the final place (same file system, so the rename is
        // atomic); the pid keeps two concurrent runs apart.
        let tmp = parent.join(format!(".{commit}.tmp-{}", std::process::id()));
        let absent = match extract_without_missing(git_dir, commit, &tmp) {
            Ok(absent) => absent,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        if !absent.is_empty() {
            let mut list = absent.join("\n");
            list.push('\n');
            std::fs::write(&absent_file, list)
                .with_context(|| format!("cannot write {}", absent_file.display()))?;
        }
        if let Err(e) = std::fs::rename(&tmp, &dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            // Another run may have put the same tree in place meanwhile.
            if !dir.is_dir() {
                return Err(e)
                    .with_context(|| format!("cannot move the tree into {}", dir.display()));
            }
        }
        Ok(Tree {
            dir,
            extracted: true,
            absent,
        })
    }
}

/// A materialized tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tree {
    pub(super) dir: PathBuf,
    /// False when the tree came from the cache.
    pub(super) extracted: bool,
    /// Files of the commit that are not in the tree: their blob is missing
    /// from the repository (snapshots lack files of 4 MiB and more).
    pub(super) absent: Vec<String>,
}

/// At most this many missing blobs are excluded before the extraction fails.
pub(super) const MAX_ABSENT: usize = 16;

/// Extracts `commit` into a fresh `into`, excluding each file whose blob git
/// says is missing and retrying; returns the excluded paths.
fn extract_without_missing(git_dir: &Path, commit: &str, into: &Path) -> Result<Vec<String>> {
    let mut absent: Vec<String> = Vec::new();
    loop {
        if into.exists() {
            std::fs::remove_dir_all(into)
                .with_context(|| format!("cannot remove {}", into.display()))?;
        }
        std::fs::create_dir(into).with_context(|| format!("cannot create {}", into.display()))?;
        match extract(git_dir, commit, &absent, into) {
            Ok(()) => return Ok(absent),
            Err(Extract::MissingBlob(paths)) if absent.len() + paths.len() <= MAX_ABSENT => {
                absent.extend(paths)
            }
            Err(Extract::MissingBlob(paths)) => bail!(
                "git --git-dir {} archive {commit}: more than {MAX_ABSENT} files lack their blob ({}, {}); fetch the repository again",
                git_dir.display(),
                absent.join(", "),
                paths.join(", ")
            ),
            Err(Extract::Failed(e)) => return Err(e),
        }
    }
}

/// Why one extraction failed.
enum Extract {
    /// `git archive` named files (not yet excluded) whose blob is not in the repository.
    MissingBlob(Vec<String>),
    Failed(anyhow::Error),
}

/// What git's stderr says is missing: the paths of `invalid object MODE HASH
/// for 'PATH'` lines and the hashes of `cannot read 'HASH'` lines. (git
/// names the first missing blob both ways, but a later one, after an
/// excluded file, only by its hash.)
pub(super) fn missing_objects(git_stderr: &str) -> (Vec<String>, Vec<String>) {
    let (mut paths, mut hashes) = (Vec::new(), Vec::new());
    for line in git_stderr.lines() {
        if let Some(rest) = line.split_once("invalid object ").map(|r| r.1) {
            if let Some(path) = rest
                .split_once(" for '")
                .and_then(|(_, q)| q.strip_suffix('\''))
            {
                paths.push(path.to_string());
            }
        } else if let Some(rest) = line.split_once("cannot read '").map(|r| r.1) {
            if let Some(hash) = rest.strip_suffix('\'') {
                if hash.bytes().all(|b| b.is_ascii_hexdigit()) && !hash.is_empty() {
                    hashes.push(hash.to_string());
                }
            }
        }
    }
    (paths, hashes)
}

/// Paths of `commit` whose blob is one of `hashes` (`git ls-tree -r`).
fn paths_of_blobs(git_dir: &Path, commit: &str, hashes: &[String]) -> Vec<String> {
    let Ok(out) = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "-r", "-z", "--full-tree", commit])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter_map(|entry| {
            // `MODE TYPE HASH\tPATH`
            let (meta, path) = entry.split_once('\t')?;
            let hash = meta.split_whitespace().nth(2)?;
            hashes.iter().any(|h| h == hash).then(|| path.to_string())
        })
        .collect()
}

fn extract(git_dir: &Path, commit: &str, exclude: &[String], into: &Path) -> Result<(), Extract> {
    let mut cmd = Command::new("git");
    cmd.arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", commit]);
    if !exclude.is_empty() {
        cmd.args(["--", "."]);
        cmd.args(exclude.iter().map(|p| format!(":(exclude,literal){p}")));
    }
    let mut git = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run git (is it installed?)")
        .map_err(Extract::Failed)?;
    let tar_out = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(git.stdout.take().expect("git stdout is piped"))
        .stderr(Stdio::piped())
        .output()
        .context("cannot run tar")
        .map_err(Extract::Failed)?;
    let mut git_err = String::new();
    if let Some(mut e) = git.stderr.take() {
        let _ = e.read_to_string(&mut git_err);
    }
    let git_status = git
        .wait()
        .context("git archive did not finish")
        .map_err(Extract::Failed)?;
    if !git_status.success() {
        let (mut paths, hashes) = missing_objects(&git_err);
        paths.extend(paths_of_blobs(git_dir, commit, &hashes));
        paths.retain(|p| !exclude.contains(p));
        paths.dedup();
        if !paths.is_empty() {
            return Err(Extract::MissingBlob(paths));
        }
        return Err(Extract::Failed(anyhow::anyhow!(
            "git --git-dir {} archive {commit} failed: {} (is the commit in this repository? fetch it again)",
            git_dir.display(),
            git_err.trim()
        )));
    }
    if !tar_out.status.success() {
        return Err(Extract::Failed(anyhow::anyhow!(
            "tar -x -C {} failed: {}",
            into.display(),
            String::from_utf8_lossy(&tar_out.stderr).trim()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether git runs here (the tests that need it pass without it).
    fn git_works() -> bool {
        Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// A repository at `work` with all its files committed once; the commit.
    fn commit_all(work: &Path) -> String {
        // Not the caller's repository, even when run from a git hook.
        let git = |args: &[&str]| crate::engine::scratch_git(work, args).unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "init"]);
        git(&["rev-parse", "HEAD"])
    }

    #[test]
    fn trees_are_materialized_once_and_atomically() {
        if !git_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("pkg")).unwrap();
        std::fs::write(work.join("pkg/mod.py"), "x = 1\n").unwrap();
        let commit = commit_all(&work);
        let trees = Trees {
            root: dir.path().join("trees"),
        };
        let t = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(t.extracted);
        assert!(t.absent.is_empty());
        let tree = t.dir;
        assert_eq!(tree, dir.path().join("trees/o+n").join(&commit));
        assert_eq!(
            std::fs::read_to_string(tree.join("pkg/mod.py")).unwrap(),
            "x = 1\n"
        );
        let again = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(!again.extracted);
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

    #[test]
    fn a_missing_blob_is_left_out_and_named_instead_of_failing_the_tree() {
        if !git_works() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("data")).unwrap();
        std::fs::write(work.join("main.py"), "x = 1\n").unwrap();
        std::fs::write(work.join("data/huge one.bin"), "large\n").unwrap();
        std::fs::write(work.join("data/big.json"), "{}\n").unwrap();
        let git = |args: &[&str]| crate::engine::scratch_git(&work, args).unwrap();
        let commit = commit_all(&work);
        // Remove two blobs, as a snapshot without large files lacks them.
        for path in ["data/huge one.bin", "data/big.json"] {
            let blob = git(&["rev-parse", &format!("HEAD:{path}")]);
            std::fs::remove_file(work.join(".git/objects").join(&blob[..2]).join(&blob[2..]))
                .unwrap();
        }
        let trees = Trees {
            root: dir.path().join("trees"),
        };
        let t = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        let mut absent = t.absent.clone();
        absent.sort();
        assert_eq!(absent, vec!["data/big.json", "data/huge one.bin"]);
        assert_eq!(
            std::fs::read_to_string(t.dir.join("main.py")).unwrap(),
            "x = 1\n"
        );
        assert!(!t.dir.join("data/big.json").exists());
        // A cached tree still says what it lacks.
        let again = trees
            .materialize(&work.join(".git"), "o/n", &commit)
            .unwrap();
        assert!(!again.extracted);
        assert_eq!(again.absent, t.absent);
    }

    #[test]
    fn missing_objects_are_read_from_git_stderr() {
        let err = "error: invalid object 100644 96a81368e332a7770d6c05824af898bb861f8fec for 'test/a b/x.map'\nerror: cannot read '61780798228d17af2d34fce4cfbdf35556832472'\nfatal: whatever";
        assert_eq!(
            missing_objects(err),
            (
                vec!["test/a b/x.map".to_string()],
                vec!["61780798228d17af2d34fce4cfbdf35556832472".to_string()]
            )
        );
        assert_eq!(
            missing_objects("fatal: not a valid object name"),
            (vec![], vec![])
        );
    }
}
