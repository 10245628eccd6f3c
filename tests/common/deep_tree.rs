//! A tree deeper than a path may be long, for the tests of directories the
//! walk cannot read. One file, included by the integration tests' `common`
//! module and by `src/walk.rs`'s unit tests (`#[path]`), so both build the
//! same tree.

use std::path::Path;

/// `depth` nested directories `name/name/…` under `dir`, the last holding
/// `file` with `text`, made one level at a time (`mkdirat`, `openat`): the
/// whole path may be longer than the system lets a path be.
pub fn deep_tree(dir: &Path, name: &str, depth: usize, file: &str, text: &str) {
    use rustix::fs::{mkdirat, openat, Mode, OFlags, CWD};
    let open = OFlags::DIRECTORY | OFlags::RDONLY;
    let mut fd = openat(CWD, dir, open, Mode::empty()).unwrap();
    for _ in 0..depth {
        mkdirat(&fd, name, Mode::from_raw_mode(0o755)).unwrap();
        fd = openat(&fd, name, open, Mode::empty()).unwrap();
    }
    let create = OFlags::CREATE | OFlags::WRONLY;
    let f = openat(&fd, file, create, Mode::from_raw_mode(0o644)).unwrap();
    rustix::io::write(&f, text.as_bytes()).unwrap();
}
