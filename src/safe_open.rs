//! Opening a walked file without following a link that appeared after the
//! walk (a file or directory swapped for a symbolic link mid-call).
//!
//! On Linux the file is opened with `openat2` from a descriptor of the root,
//! with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`: no
//! symbolic link below the root is followed and nothing above it is reached.
//! Where `openat2` is missing (kernels before 5.6, or refused by a seccomp
//! filter: `ENOSYS`/`EPERM`) and on other Unix systems, each directory below
//! the root is opened with `openat(O_NOFOLLOW | O_DIRECTORY)` from the one
//! above it and the file with `O_NOFOLLOW`, which refuses a link at every
//! step. Either way the file is opened non-blocking (a FIFO swapped in cannot
//! hang the call) and must be a regular file. Elsewhere the file is opened by
//! path and its canonical path must lie under the root's.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens the walked file `abs` (the root joined with `rel`, a `/`-separated
/// path below it) for reading, refusing a symbolic link anywhere below the
/// root and anything that is not a regular file.
pub fn open_walked(abs: &Path, rel: &str) -> io::Result<File> {
    let parts = plain_parts(rel)?;
    let root = abs
        .ancestors()
        .nth(parts.len())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path shorter than its rel"))?;
    Beneath::open(root)?.open_parts(&parts)
}

/// The parts of `rel`, refused unless it is a plain relative path, and
/// refused in git's own directory ([`crate::walk::is_git_name`]: the walk
/// never lists a file there; this holds whatever route names one).
fn plain_parts(rel: &str) -> io::Result<Vec<&str>> {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a plain relative path: {rel:?}"),
        ));
    }
    if parts
        .iter()
        .any(|p| crate::walk::is_git_name(std::ffi::OsStr::new(p)))
    {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("in git's own directory, never read: {rel:?}"),
        ));
    }
    Ok(parts)
}

/// A walk's root, opened once to open many of its files (as
/// [`open_walked`] does, without opening the root again for each: on the
/// Linux kernel that was 86,000 more `open` and `close` calls in a cold
/// call). Held for one load of one walk, never across calls: a root
/// renamed or replaced later is opened again by its path.
pub struct Beneath {
    root: std::path::PathBuf,
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
}

impl Beneath {
    /// Opens the directory `root`.
    pub fn open(root: &Path) -> io::Result<Beneath> {
        Ok(Beneath {
            root: root.to_path_buf(),
            #[cfg(unix)]
            fd: rustix::fs::open(
                root,
                rustix::fs::OFlags::RDONLY
                    | rustix::fs::OFlags::DIRECTORY
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )?,
        })
    }

    /// The root's path, as given to [`Beneath::open`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Opens the file `rel` below the root, as [`open_walked`] does.
    pub fn open_file(&self, rel: &str) -> io::Result<File> {
        self.open_parts(&plain_parts(rel)?)
    }

    #[cfg(unix)]
    fn open_parts(&self, parts: &[&str]) -> io::Result<File> {
        open_beneath(&self.fd, parts)
    }

    #[cfg(not(unix))]
    fn open_parts(&self, parts: &[&str]) -> io::Result<File> {
        open_beneath(&self.root, parts)
    }
}

/// How every file this module opens is opened on unix: read-only, not
/// through a symbolic link, non-blocking (a FIFO cannot hang the open), not
/// as a controlling terminal, closed on exec.
#[cfg(unix)]
const FILE_FLAGS: rustix::fs::OFlags = rustix::fs::OFlags::RDONLY
    .union(rustix::fs::OFlags::NOFOLLOW)
    .union(rustix::fs::OFlags::NONBLOCK)
    .union(rustix::fs::OFlags::NOCTTY)
    .union(rustix::fs::OFlags::CLOEXEC);

/// `fd` as a [`File`] if it is a regular file, else an error.
#[cfg(unix)]
fn regular(fd: rustix::fd::OwnedFd) -> io::Result<File> {
    use rustix::fs::{fstat, FileType};
    if FileType::from_raw_mode(fstat(&fd)?.st_mode).is_file() {
        Ok(File::from(fd))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ))
    }
}

/// Opens a file the program keeps itself (a cache entry, a file of a git
/// directory) for reading, as walked files are opened: a symbolic link or
/// anything but a regular file (a FIFO someone put there, which a blocking
/// `open` would wait on for ever) is an error, checked on the opened file.
/// `NotFound` when there is nothing at `path`.
pub fn open_regular(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        regular(rustix::fs::open(
            path,
            FILE_FLAGS,
            rustix::fs::Mode::empty(),
        )?)
    }
    #[cfg(not(unix))]
    {
        let file = File::open(path)?;
        if file.metadata()?.is_file() {
            Ok(file)
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ))
        }
    }
}

#[cfg(unix)]
fn open_beneath(root_fd: &rustix::fd::OwnedFd, parts: &[&str]) -> io::Result<File> {
    use rustix::fs::{openat, Mode, OFlags};
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let file_flags = FILE_FLAGS;
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{openat2, ResolveFlags};
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match openat2(root_fd, parts.join("/"), file_flags, Mode::empty(), resolve) {
            Ok(fd) => return regular(fd),
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let (file, dirs) = parts.split_last().expect("rel has a part");
    let mut dir: Option<rustix::fd::OwnedFd> = None;
    for part in dirs {
        let from = dir.as_ref().unwrap_or(root_fd);
        dir = Some(openat(
            from,
            *part,
            dir_flags | OFlags::NOFOLLOW,
            Mode::empty(),
        )?);
    }
    let from = dir.as_ref().unwrap_or(root_fd);
    regular(openat(from, *file, file_flags, Mode::empty())?)
}

#[cfg(not(unix))]
fn open_beneath(root: &Path, parts: &[&str]) -> io::Result<File> {
    let path = parts
        .iter()
        .fold(root.to_path_buf(), |p, part| p.join(part));
    let file = File::open(&path)?;
    if !path.canonicalize()?.starts_with(root.canonicalize()?) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "leaves the root",
        ));
    }
    Ok(file)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn read(abs: &Path, rel: &str) -> io::Result<String> {
        let mut s = String::new();
        open_walked(abs, rel)?.read_to_string(&mut s)?;
        Ok(s)
    }

    /// The text of `rel` opened through the root opened once (`Beneath`),
    /// which must agree with `open_walked` on it.
    fn read_beneath(root: &Path, rel: &str) -> io::Result<String> {
        let mut s = String::new();
        Beneath::open(root)?
            .open_file(rel)?
            .read_to_string(&mut s)?;
        assert_eq!(read(&root.join(rel), rel).ok(), Some(s.clone()), "{rel}");
        Ok(s)
    }

    #[test]
    fn links_below_the_root_are_refused_plain_files_read() {
        let dir = tempfile::tempdir().unwrap();
        let (root, out) = (dir.path().join("root"), dir.path().join("out"));
        std::fs::create_dir_all(root.join("sub/deep")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(root.join("sub/a.py"), "inside").unwrap();
        std::fs::write(root.join("sub/deep/b.py"), "deeper").unwrap();
        std::fs::write(out.join("a.py"), "outside").unwrap();
        assert_eq!(read_beneath(&root, "sub/a.py").unwrap(), "inside");
        assert_eq!(read_beneath(&root, "sub/deep/b.py").unwrap(), "deeper");
        symlink(out.join("a.py"), root.join("f.py")).unwrap();
        symlink(&out, root.join("d")).unwrap();
        symlink(&out, root.join("sub/deep/d")).unwrap();
        symlink("sub/a.py", root.join("inner.py")).unwrap();
        // Refused by path and through the root opened once; paths that are
        // not plain only through the latter (`read` derives the root).
        let beneath = Beneath::open(&root).unwrap();
        let links = [
            "f.py",
            "d/a.py",
            "sub/deep/d/a.py",
            "inner.py",
            "sub/../f.py",
        ];
        for rel in links {
            assert!(read(&root.join(rel), rel).is_err(), "{rel}");
        }
        for rel in links.iter().chain(&["/etc/passwd", ""]) {
            assert!(beneath.open_file(rel).is_err(), "{rel}");
        }
        // The root's own path may go through links (it was resolved on purpose).
        let via = dir.path().join("via");
        symlink(&root, &via).unwrap();
        assert_eq!(read(&via.join("sub/a.py"), "sub/a.py").unwrap(), "inside");
        assert_eq!(read_beneath(&via, "sub/a.py").unwrap(), "inside");
    }

    #[test]
    fn gits_own_directory_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [".git/config", "sub/.git", "lib/.GIT/config", "a.py"] {
            let f = root.join(rel);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "url = https://x:token@github.com/x/y.git").unwrap();
        }
        let beneath = Beneath::open(root).unwrap();
        for rel in [".git/config", "sub/.git", "lib/.GIT/config"] {
            assert!(read(&root.join(rel), rel).is_err(), "{rel}");
            assert!(beneath.open_file(rel).is_err(), "{rel}");
        }
        assert!(read_beneath(root, "a.py").is_ok());
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p.py");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        assert!(read(&fifo, "p.py").is_err());
    }
}
