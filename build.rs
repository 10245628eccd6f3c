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
//!
//! Sets `CTXLOOP_SYMBOLS_FINGERPRINT`, the build part of the symbol cache's
//! key (src/cache/): 16 hex digits of a 64-bit FNV-1a hash over everything
//! that decides what a parse returns: the files under `src/lang/` and
//! `queries/` (the language table, the tags queries, the kinds the cache
//! stores), `Cargo.lock` (the tree-sitter and grammar versions, postcard's
//! format) and the crate version. A change to any of them files the cache's
//! entries under a new directory, so no entry from another build is read.
//!
//! Sets `CTXLOOP_TERMS_FINGERPRINT`, the build part of the term index
//! cache's key (src/cache/terms.rs), the same way over what decides a file's
//! term counts: `src/query/` (the tokenizer and the term hash), `src/corpus/`
//! (how a text is decoded and indexed), `src/cache/terms.rs` (the entry's
//! encoding), `Cargo.lock` and the crate version. It covers more than the
//! tokenizer (the query's stopwords, say): an edit there only costs one
//! refill of the cache, a missed one would serve another build's counts.

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
    let symbols = fingerprint(&manifest_dir, &["src/lang", "queries"]);
    println!("cargo:rustc-env=CTXLOOP_SYMBOLS_FINGERPRINT={symbols:016x}");
    let terms = fingerprint(
        &manifest_dir,
        &["src/query", "src/corpus", "src/cache/terms.rs"],
    );
    println!("cargo:rustc-env=CTXLOOP_TERMS_FINGERPRINT={terms:016x}");
}

/// FNV-1a, 64 bits: a fingerprint of the inputs, not a defence against
/// forgery (the cache directory is the user's own), so no build-dependency.
struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// `bytes` with its length first, so that two fields cannot run together.
    fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }
}

/// A cache's build fingerprint (see the module doc): every file under the
/// directories (or the files) `subs` (relative path and contents, in path
/// order), `Cargo.lock` and `CARGO_PKG_VERSION`.
fn fingerprint(dir: &Path, subs: &[&str]) -> u64 {
    let mut files = Vec::new();
    for sub in subs {
        let top = dir.join(sub);
        // A directory is scanned whole by cargo: any file added, removed or
        // edited below it reruns this script.
        println!("cargo:rerun-if-changed={}", top.display());
        if top.is_file() {
            files.push(top);
        } else {
            collect_files(&top, &mut files);
        }
    }
    let lock = dir.join("Cargo.lock");
    if lock.exists() {
        println!("cargo:rerun-if-changed={}", lock.display());
        files.push(lock);
    }
    files.sort();
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.field(
        std::env::var("CARGO_PKG_VERSION")
            .unwrap_or_default()
            .as_bytes(),
    );
    for f in &files {
        let rel = f.strip_prefix(dir).unwrap_or(f);
        h.field(rel.to_string_lossy().replace('\\', "/").as_bytes());
        h.field(&std::fs::read(f).unwrap_or_default());
    }
    h.0
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => collect_files(&path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
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
