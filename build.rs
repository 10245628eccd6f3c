//! Names the commit the binary is built from, for `ctxloop --version`.
//!
//! Sets `CTXLOOP_COMMIT` for the crate, from the first of:
//! 1. the `CTXLOOP_BUILD_COMMIT` environment variable (set by packaging that
//!    builds outside a git checkout);
//! 2. `git rev-parse --short HEAD`, when this crate's directory is the top of
//!    a git work tree (not a crate vendored into some other repository);
//! 3. `.cargo_vcs_info.json`, which `cargo package` writes into the crates.io
//!    tarball (so `cargo install ctxloop` names its commit too);
//! 4. `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=CTXLOOP_BUILD_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = from_env()
        .or_else(|| from_git(&manifest_dir))
        .or_else(|| from_vcs_info(&manifest_dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=CTXLOOP_COMMIT={commit}");
}

fn from_env() -> Option<String> {
    let v = std::env::var("CTXLOOP_BUILD_COMMIT").ok()?;
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn from_git(dir: &Path) -> Option<String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), dir) {
        return None;
    }
    // Rebuild when HEAD moves: HEAD itself (a branch switch or a detached
    // checkout), the branch it names (a commit) and packed-refs (after gc).
    // In a linked worktree HEAD lives in the worktree's git dir and the refs in
    // the common one.
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            dir.join(p)
        }
    };
    // A path that does not exist would rerun this script on every build, so
    // only existing ones are named.
    let watch = |p: PathBuf| {
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    };
    if let Some(git_dir) = git(dir, &["rev-parse", "--git-dir"]).map(abs) {
        watch(git_dir.join("HEAD"));
    }
    if let Some(common) = git(dir, &["rev-parse", "--git-common-dir"]).map(abs) {
        watch(common.join("packed-refs"));
        if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
            watch(common.join(branch));
        }
    }
    git(dir, &["rev-parse", "--short", "HEAD"])
}

fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    // {"git": {"sha1": "<40 hex>"}, "path_in_vcs": ""}: no JSON parser in a
    // build script for one field.
    let rest = &text[text.find("\"sha1\"")? + 6..];
    let start = rest.find('"')? + 1;
    let sha: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 7).then(|| sha[..7].to_string())
}
