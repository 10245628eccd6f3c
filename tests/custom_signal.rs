//! A library user adds a scoring signal (examples/custom_signal.rs: boost
//! files under `src/`) and the engine ranks with it.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::types::RetrieveOutput;
use ctxloop::CallOptions;

#[path = "../examples/custom_signal.rs"]
#[allow(dead_code)]
mod example;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // Both say as much about token expiry; lib/ also names it in its path.
    write(
        "lib/expiry.py",
        "def token_expiry(token):\n    # token expiry: the token expires at expiry\n    \
         return token.expiry_seconds + token.expiry_grace\n",
    );
    write(
        "src/session.py",
        "def refresh(session):\n    # token expiry: refresh the token before its expiry\n    \
         return session.token\n",
    );
    write("src/other.py", "def unrelated():\n    return 1\n");
    dir
}

fn ranked(engine: &Engine, root: &std::path::Path) -> RetrieveOutput {
    engine
        .retrieve(
            RetrieveParams {
                task: "the token expiry is wrong".into(),
                root: Some(root.to_string_lossy().into()),
                max_cycles: Some(1),
                ..Default::default()
            },
            &CallOptions::PLAIN,
        )
        .unwrap()
}

fn paths(out: &RetrieveOutput) -> Vec<&str> {
    out.files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn a_signal_added_on_the_engine_lifts_files_under_src() {
    let dir = tree();
    let plain = ranked(&Engine::new(EngineOptions::default()), dir.path());
    let show = |o: &RetrieveOutput| {
        o.files
            .iter()
            .map(|f| format!("{} {:.3} {:?}", f.path, f.relevance, f.reasons))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        paths(&plain).first(),
        Some(&"lib/expiry.py"),
        "{:?}",
        show(&plain)
    );

    let boosted = ranked(&example::engine(2.0), dir.path());
    assert_eq!(
        paths(&boosted).first(),
        Some(&"src/session.py"),
        "{:?}",
        show(&boosted)
    );
    let session = &boosted.files[0];
    assert!(
        session
            .reasons
            .iter()
            .any(|r| r == "under src/ (+2.00 of the best score)"),
        "{:?}",
        session.reasons
    );
    assert!(
        !boosted
            .files
            .iter()
            .any(|f| f.path == "lib/expiry.py"
                && f.reasons.iter().any(|r| r.starts_with("under src/"))),
        "the signal touches only files under src/"
    );
}
