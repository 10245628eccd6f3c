//! Shared by the fuzz targets: one engine confined to the committed fixture
//! tree (as a server started with `--root` is), and the checks every answer
//! must pass. A panic anywhere is the finding libFuzzer reports.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::error::Error;
use ctxloop::types::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/authsvc")
        .canonicalize()
        .expect("the fixture tree exists")
}

pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        Engine::new(EngineOptions {
            root: Some(fixture()),
            ..Default::default()
        })
    })
}

/// Files are ranked by relevance in [0, 1], best first, and exist under the root.
pub fn check_files(files: &[File], root: &Path) {
    for f in files {
        assert!(
            f.relevance.is_finite() && (0.0..=1.0).contains(&f.relevance),
            "{f:?}"
        );
        let p = root.join(&f.path);
        assert!(p.starts_with(fixture()) && p.is_file(), "{p:?}");
    }
    for w in files.windows(2) {
        assert!(w[0].relevance >= w[1].relevance, "{w:?}");
    }
}

/// An error is an answer too, if it says what was wrong.
pub fn check_error(e: &Error) {
    let msg = e.to_string();
    assert!(msg.len() > 20, "unhelpful error: {msg:?}");
}
