//! Uses the engine as a library, without MCP: one `Engine` (it caches file
//! contents by path, size and mtime), one `retrieve` call.
//!
//!     cargo run --example library -- "fix the token expiry bug" tests/fixtures/authsvc

use ctxloop::{CallOptions, Engine, EngineOptions, RetrieveRequest};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args
        .next()
        .unwrap_or_else(|| "how does the loop decide to stop".into());
    let root = args.next();
    let engine = Engine::new(EngineOptions::default());
    let out = engine.retrieve(
        RetrieveRequest {
            task,
            root,
            limit: Some(5),
            ..Default::default()
        },
        &CallOptions::PLAIN,
    )?;
    eprintln!(
        "stop: {} after {} cycle(s)",
        out.stop_reason.as_str(),
        out.cycles.len()
    );
    for f in &out.files {
        eprintln!("{:.2} {:<6} {}", f.relevance, f.tier.as_str(), f.path);
        for s in &f.snippets {
            eprintln!("       lines {}-{}", s.start_line, s.end_line);
        }
    }
    for g in &out.gaps {
        eprintln!("gap: {}", g.description);
    }
    Ok(())
}
