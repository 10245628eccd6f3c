//! Adds a scoring signal without forking: files under `src/` gain a share of
//! the best file's score, after today's passes (BM25, definitions, priors,
//! neighbours, explicit references). The engine's other stages stay the
//! defaults; a moved file shows the reason `under src/ (+0.50 of the best score)`.
//!
//!     cargo run --example custom_signal -- "fix the token expiry bug" path/to/repo
//!
//! `tests/custom_signal.rs` runs this signal on a small tree.

use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::pipeline::{Candidate, Pipeline, Signal};
use ctxloop::query::TaskQuery;
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::CallOptions;

/// Files under `src/` gain `share` of the best raw score (0.5: half of it).
pub struct UnderSrc {
    /// The share of the best raw score added, about 0-1.
    pub share: f64,
}

impl Signal for UnderSrc {
    fn name(&self) -> &str {
        "under src/"
    }

    fn score(&self, cand: &Candidate, _query: &TaskQuery) -> f64 {
        if cand.rel.starts_with("src/") {
            self.share
        } else {
            0.0
        }
    }
}

/// An engine whose pipeline is the default plus [`UnderSrc`].
pub fn engine(share: f64) -> Engine {
    Engine::new(EngineOptions {
        pipeline: Pipeline::default().with_signal(UnderSrc { share }),
        ..Default::default()
    })
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let task = args
        .next()
        .unwrap_or_else(|| "how does the loop decide to stop".into());
    let root = args.next();
    let out = engine(0.5).retrieve(
        RetrieveParams {
            task,
            root,
            limit: Some(10),
            ..Default::default()
        },
        &CallOptions::PLAIN,
    )?;
    for f in &out.files {
        eprintln!(
            "{:.2} {:<6} {}  ({})",
            f.relevance,
            f.tier.as_str(),
            f.path,
            f.reasons.join("; ")
        );
    }
    Ok(())
}
