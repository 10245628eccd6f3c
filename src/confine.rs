//! Root confinement: which directories a call may search.
//!
//! Two checks, both made on a root before anything is walked:
//!
//! - [`resolve_inside`]: a root must lie inside one of the allowed
//!   directories (the server's `--root` and each `--allow-root`). `..` is
//!   resolved by its text, then the longest prefix that exists is resolved on
//!   disk; a root whose resolved prefix leaves every allowed directory is
//!   refused as outside *before* anything is said about whether the rest of it
//!   exists or is a directory, so a refusal reveals nothing about outside paths.
//! - [`check_visible`]: a root may not open what the walk would skip: no
//!   component below its anchor (the allowed directory it lies in, or for the
//!   CLI the working directory or enclosing git work tree) may be hidden, or
//!   excluded by the `.ignore`, `.gitignore` or `.git/info/exclude` rules of
//!   the directories between the anchor and the root.
//!
//! And one whatever the overrides: [`check_outside_git`], no root is or lies
//! in git's own directory.

use crate::error::{Error, Result};
use std::path::{Component, Path, PathBuf};

/// An allowed directory, as given (made absolute, `..` resolved by text) and
/// resolved on disk. One that cannot be resolved keeps its given form, so
/// nothing resolves inside it (fail closed).
#[derive(Debug, Clone)]
pub struct Allowed {
    pub lexical: PathBuf,
    pub canon: PathBuf,
}

impl Allowed {
    pub fn new(dir: &Path) -> Allowed {
        let lexical = lexical_abs(dir);
        Allowed {
            canon: dir.canonicalize().unwrap_or_else(|_| lexical.clone()),
            lexical,
        }
    }
}

/// `path` made absolute with `.` and `..` resolved by their text (no file
/// system access, so symbolic links are not resolved).
pub fn lexical_abs(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` resolved to a canonical directory inside one of `allowed` (the
/// first is the server's `--root`, named in the error). `arg` is the `root`
/// argument as given, the only path an error names.
pub fn resolve_inside(path: &Path, allowed: &[Allowed], arg: &str) -> Result<PathBuf> {
    let outside = || Error::RootOutsideAllowed {
        path: PathBuf::from(arg),
        allowed: allowed
            .first()
            .map_or_else(PathBuf::new, |a| a.canon.clone()),
    };
    let lexical = lexical_abs(path);
    if !allowed
        .iter()
        .any(|a| lexical.starts_with(&a.lexical) || lexical.starts_with(&a.canon))
    {
        return Err(outside());
    }
    // The longest prefix that resolves decides "outside"; only then is the
    // rest's existence or kind reported.
    let mut prefix = lexical.as_path();
    let canon_prefix = loop {
        if let Ok(c) = prefix.canonicalize() {
            break c;
        }
        // A link that does not resolve (dangling, a loop) may point anywhere.
        if prefix
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(outside());
        }
        match prefix.parent() {
            Some(p) => prefix = p,
            None => return Err(outside()),
        }
    };
    if !allowed.iter().any(|a| canon_prefix.starts_with(&a.canon)) {
        return Err(outside());
    }
    let (given, resolved) = crate::root::as_given(arg, &lexical);
    if prefix != lexical {
        return Err(Error::RootNotFound {
            path: given,
            resolved,
        });
    }
    if !canon_prefix.is_dir() {
        return Err(Error::RootNotDirectory {
            path: given,
            resolved,
        });
    }
    Ok(canon_prefix)
}

/// Who may override a refused root, for the error's advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Override {
    /// A `root` argument to a server: the operator names the directory with `--allow-root`.
    AllowRoot,
    /// The CLI's or the server's own `--root`: `--allow-hidden-root`.
    AllowHiddenRoot,
}

impl Override {
    fn advice(self) -> &'static str {
        match self {
            Override::AllowRoot => "pass a directory the walk would search, or start the server with `--allow-root DIR` naming this directory to search it anyway",
            Override::AllowHiddenRoot => "pass a directory the walk would search, or add `--allow-hidden-root` to search it anyway",
        }
    }
}

/// For the CLI (no server root): what a root's path is judged from. The
/// working directory when the root lies inside it, else the top of the git
/// work tree holding the root, else nothing (a root given outside any
/// project is the user's own choice).
pub fn cli_anchor(canon: &Path) -> Option<PathBuf> {
    if let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok())
    {
        if canon.starts_with(&cwd) {
            return Some(cwd);
        }
    }
    canon
        .ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Refuses `canon` (a canonical directory below `anchor`) when a component
/// below `anchor` is hidden or excluded by the ignore rules of the
/// directories from `anchor` down. `arg` is the root as given.
pub fn check_visible(canon: &Path, anchor: &Path, arg: &str, how: Override) -> Result<()> {
    let Ok(rel) = canon.strip_prefix(anchor) else {
        return Ok(());
    };
    if let Some(c) = rel
        .components()
        .find(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
    {
        return Err(Error::RootHidden {
            path: PathBuf::from(arg),
            component: c.as_os_str().to_string_lossy().into_owned(),
            advice: how.advice(),
        });
    }
    if let Some((file, rule)) = ignored_by(anchor, rel) {
        return Err(Error::RootIgnored {
            path: PathBuf::from(arg),
            rule,
            file,
            advice: how.advice(),
        });
    }
    Ok(())
}

/// Refuses `canon` (a canonical directory) when it is or lies in a `.git`
/// directory ([`crate::walk::is_git_name`]): git's own directory is never
/// project content, so neither `--allow-hidden-root` nor `--allow-root`
/// opens it. `arg` is the root as given.
pub fn check_outside_git(canon: &Path, arg: &str) -> Result<()> {
    if canon
        .components()
        .any(|c| crate::walk::is_git_name(c.as_os_str()))
    {
        // No argument: the working directory.
        let arg = if arg.is_empty() { "." } else { arg };
        return Err(Error::RootInGitDir {
            path: PathBuf::from(arg),
        });
    }
    Ok(())
}

/// The ignore file and rule that exclude a directory on the way from
/// `anchor` down `rel`, if one does: each directory's `.ignore` (always) and,
/// inside a git work tree, its `.gitignore` and the repository's
/// `.git/info/exclude`; a deeper file's rule wins, as in the walk.
fn ignored_by(anchor: &Path, rel: &Path) -> Option<(PathBuf, String)> {
    use ignore::gitignore::{Gitignore, GitignoreBuilder};
    use ignore::Match;
    let in_git = anchor
        .join(rel)
        .ancestors()
        .any(|a| a.join(".git").exists());
    let rules = |dir: &Path| -> Gitignore {
        let mut b = GitignoreBuilder::new(dir);
        if in_git {
            if dir.join(".git").is_dir() {
                let _ = b.add(dir.join(".git/info/exclude"));
            }
            let _ = b.add(dir.join(".gitignore"));
        }
        let _ = b.add(dir.join(".ignore"));
        b.build().unwrap_or_else(|_| Gitignore::empty())
    };
    let mut dir = anchor.to_path_buf();
    let mut levels: Vec<Gitignore> = Vec::new();
    for c in rel.components() {
        levels.push(rules(&dir));
        dir.push(c);
        for level in levels.iter().rev() {
            match level.matched(&dir, true) {
                Match::Ignore(g) => {
                    let file = g
                        .from()
                        .map_or_else(|| level.path().to_path_buf(), Path::to_path_buf);
                    return Some((file, g.original().to_string()));
                }
                Match::Whitelist(_) => break,
                Match::None => {}
            }
        }
    }
    None
}

/// `serve`'s roots, checked at start: `--root` (default: the working
/// directory, so a server is always confined) must be an existing directory,
/// not in git's own directory, not hidden or ignored below the working
/// directory or its git work tree unless `allow_hidden_root`; each `--allow-root` must be an existing
/// directory. Returns the root to confine to.
pub fn server_roots(
    root: Option<PathBuf>,
    allow_roots: &[PathBuf],
    allow_hidden_root: bool,
) -> anyhow::Result<PathBuf> {
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir().map_err(|e| {
            anyhow::anyhow!("cannot read the working directory: {e}; pass --root DIR")
        })?,
    };
    let canon = crate::engine::canonical_dir(root.clone())?;
    check_outside_git(&canon, &root.to_string_lossy())?;
    if !allow_hidden_root {
        if let Some(anchor) = cli_anchor(&canon) {
            check_visible(
                &canon,
                &anchor,
                &root.to_string_lossy(),
                Override::AllowHiddenRoot,
            )?;
        }
    }
    for dir in allow_roots {
        crate::engine::canonical_dir(dir.clone())
            .map_err(|e| anyhow::anyhow!("--allow-root: {e}"))?;
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_and_ignored_roots_are_refused_below_the_anchor_only() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        for d in [".git", ".secrets/deep", "private/x", "src/gen", "src/ok"] {
            std::fs::create_dir_all(top.join(d)).unwrap();
        }
        std::fs::write(top.join(".ignore"), "private/\n").unwrap();
        std::fs::write(top.join("src/.gitignore"), "gen/\n").unwrap();
        let check = |d: &str| check_visible(&top.join(d), &top, d, Override::AllowRoot);
        let err = check(".git").unwrap_err().to_string();
        assert!(
            err.contains("hidden") && err.contains("--allow-root"),
            "{err}"
        );
        assert!(check(".secrets/deep").is_err());
        let err = check("private/x").unwrap_err().to_string();
        assert!(err.contains("private/") && err.contains(".ignore"), "{err}");
        let err = check("src/gen").unwrap_err().to_string();
        assert!(err.contains("gen/"), "{err}");
        assert!(check("src/ok").is_ok());
        assert!(
            check("").is_ok(),
            "the anchor itself is the operator's choice"
        );
        // The tempdir's own hidden name (`.tmpXXXX`) lies above the anchor.
        assert!(top.file_name().unwrap().to_string_lossy().starts_with('.'));
    }

    #[cfg(unix)]
    #[test]
    fn outside_is_decided_before_existence_or_kind() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(base.join("outside/deep")).unwrap();
        std::fs::write(base.join("outside/secret.py"), "x").unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("file.py"), "x").unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("ext")).unwrap();
        std::os::unix::fs::symlink(base.join("nowhere"), root.join("dangling")).unwrap();
        let allowed = [Allowed::new(&root)];
        for arg in [
            "ext",
            "ext/deep",
            "ext/no_such_dir",
            "ext/secret.py",
            "dangling",
            "dangling/x",
        ] {
            let err = resolve_inside(&root.join(arg), &allowed, arg).unwrap_err();
            assert!(
                matches!(err, Error::RootOutsideAllowed { .. }),
                "{arg}: {err}"
            );
        }
        let err = resolve_inside(&root.join("nope"), &allowed, "nope").unwrap_err();
        assert!(matches!(err, Error::RootNotFound { .. }), "{err}");
        let err = resolve_inside(&root.join("file.py"), &allowed, "file.py").unwrap_err();
        assert!(matches!(err, Error::RootNotDirectory { .. }), "{err}");
        assert_eq!(
            resolve_inside(&root.join("sub"), &allowed, "sub").unwrap(),
            root.join("sub")
        );
    }
}
