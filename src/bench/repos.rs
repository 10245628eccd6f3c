//! Where each repository's git directory is.

use super::args::BenchArgs;
use super::tasks::Task;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Finds the git directory of `repo` (`owner/name`) under `dir`. Tried in
/// order: `owner+name/repo`, `owner+name`, `owner+name.git`, `owner/name`,
/// `owner/name.git`, `name/repo`, `name`, `name.git`; each may be a bare git
/// directory or a work tree (then its `.git` is returned).
pub fn resolve_git_dir(dir: &Path, repo: &str) -> Option<PathBuf> {
    let (owner, name) = repo.split_once('/')?;
    let flat = format!("{owner}+{name}");
    let candidates = [
        dir.join(&flat).join("repo"),
        dir.join(&flat),
        dir.join(format!("{flat}.git")),
        dir.join(owner).join(name),
        dir.join(owner).join(format!("{name}.git")),
        dir.join(name).join("repo"),
        dir.join(name),
        dir.join(format!("{name}.git")),
    ];
    candidates.iter().find_map(|c| as_git_dir(c))
}

/// `path` itself when it is a git directory (has `HEAD` and `objects/`), or
/// its `.git` when it is a work tree.
pub(super) fn as_git_dir(path: &Path) -> Option<PathBuf> {
    if path.join("HEAD").is_file() && path.join("objects").is_dir() {
        return Some(path.to_path_buf());
    }
    let dot_git = path.join(".git");
    (dot_git.join("HEAD").is_file() && dot_git.join("objects").is_dir()).then_some(dot_git)
}

/// The git directory of every repository the tasks need, or an error naming
/// the ones that could not be found and how to point at them.
pub(super) fn resolve_repos(args: &BenchArgs, tasks: &[Task]) -> Result<HashMap<String, PathBuf>> {
    let needed: BTreeSet<&str> = tasks.iter().map(|t| t.repo.as_str()).collect();
    let mut found = HashMap::new();
    let mut missing = Vec::new();
    for repo in needed {
        let explicit = args.repo.iter().rev().find(|s| s.repo == repo);
        let git_dir = match explicit {
            Some(spec) => Some(as_git_dir(&spec.git_dir).with_context(|| {
                format!(
                    "--repo {}={}: not a git directory",
                    spec.repo,
                    spec.git_dir.display()
                )
            })?),
            None => args.repos.as_deref().and_then(|d| resolve_git_dir(d, repo)),
        };
        match git_dir {
            Some(g) => {
                found.insert(repo.to_string(), g);
            }
            None => missing.push(repo),
        }
    }
    if !missing.is_empty() {
        bail!(
            "no git directory for {}: pass --repo OWNER/NAME=GITDIR, or --repos DIR holding owner+name/repo, owner+name, name or name.git",
            missing.join(", ")
        );
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare_repo(at: &Path) {
        std::fs::create_dir_all(at.join("objects")).unwrap();
        std::fs::write(at.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn repos_dir_resolves_the_mirror_layout_first() {
        let dir = tempfile::tempdir().unwrap();
        bare_repo(&dir.path().join("sympy+sympy/repo"));
        assert_eq!(
            resolve_git_dir(dir.path(), "sympy/sympy"),
            Some(dir.path().join("sympy+sympy/repo"))
        );
        assert_eq!(resolve_git_dir(dir.path(), "psf/requests"), None);
    }

    #[test]
    fn repos_dir_resolves_flat_named_and_dot_git_layouts() {
        let dir = tempfile::tempdir().unwrap();
        bare_repo(&dir.path().join("psf+requests"));
        bare_repo(&dir.path().join("flask.git"));
        bare_repo(&dir.path().join("ripgrep"));
        // A work tree: its .git is the git directory.
        bare_repo(&dir.path().join("mwaskom/seaborn/.git"));
        let r = |repo| resolve_git_dir(dir.path(), repo);
        assert_eq!(r("psf/requests"), Some(dir.path().join("psf+requests")));
        assert_eq!(r("pallets/flask"), Some(dir.path().join("flask.git")));
        assert_eq!(r("BurntSushi/ripgrep"), Some(dir.path().join("ripgrep")));
        assert_eq!(
            r("mwaskom/seaborn"),
            Some(dir.path().join("mwaskom/seaborn/.git"))
        );
        // A directory that is not a git directory is passed over.
        std::fs::create_dir_all(dir.path().join("numpy")).unwrap();
        assert_eq!(r("numpy/numpy"), None);
        assert_eq!(r("not-owner-name"), None);
    }
}
