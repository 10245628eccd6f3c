//! Inputs the fuzz targets in `fuzz/` turned up, replayed through the public
//! engine API so they stay fixed.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::dispatch::DispatchParams;
use ctxloop::CallOptions;
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/authsvc")
}

/// `fuzz/artifacts/tool_args/crash-4e7ae5a8…`: a second `dispatch` listed
/// `tests/test_token.py` (0.516) above `auth/config.py` (0.566). A later
/// cycle finds files in its own score order while each file keeps the best
/// relevance it had, so the list must be sorted by what it shows.
#[test]
fn a_later_cycles_candidates_are_ranked_by_the_relevance_they_show() {
    let engine = Engine::new(EngineOptions {
        root: Some(fixture()),
        ..Default::default()
    });
    let first = engine
        .dispatch(
            DispatchParams {
                task: Some("token expi/y".into()),
                patterns: vec!["auth/**".into()],
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let second = engine
        .dispatch(
            DispatchParams {
                session_id: Some(first.session_id),
                limit: Some(5),
                patterns: vec!["*.py".into()],
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap();
    let shown: Vec<(&str, f64)> = second
        .candidates
        .iter()
        .map(|c| (c.path.as_str(), c.relevance))
        .collect();
    assert!(shown.len() >= 2, "{shown:?}");
    assert!(
        shown.windows(2).all(|w| w[0].1 >= w[1].1),
        "candidates are ranked best first: {shown:?}"
    );
}
