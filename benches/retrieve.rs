//! Criterion benchmark of `retrieve` on a real tree: warm calls (same engine,
//! tree unchanged) and cold calls (a fresh engine each time, so every file is
//! read, indexed and parsed again).
//!
//! The tree is this repository unless `CTXLOOP_BENCH_ROOT` names another
//! (e.g. a sympy checkout from `ctxloop bench`'s tree cache), and the task is
//! `CTXLOOP_BENCH_TASK` or a fixed one:
//!
//!     CTXLOOP_BENCH_ROOT=target/bench-trees/sympy+sympy/<commit> cargo bench --bench retrieve

use criterion::{criterion_group, criterion_main, Criterion};
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use std::hint::black_box;

fn params() -> RetrieveParams {
    let root = std::env::var("CTXLOOP_BENCH_ROOT")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let task = std::env::var("CTXLOOP_BENCH_TASK")
        .unwrap_or_else(|_| "where is the token budget enforced when packing snippets".into());
    RetrieveParams {
        task,
        root: Some(root),
        ..Default::default()
    }
}

fn retrieve(c: &mut Criterion) {
    let mut group = c.benchmark_group("retrieve");
    group.sample_size(10);
    let engine = Engine::new(EngineOptions::default());
    engine.retrieve(params()).expect("warm-up call");
    group.bench_function("warm_3_cycles", |b| {
        b.iter(|| black_box(engine.retrieve(params()).unwrap()))
    });
    group.bench_function("cold_3_cycles", |b| {
        b.iter(|| {
            let engine = Engine::new(EngineOptions::default());
            black_box(engine.retrieve(params()).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, retrieve);
criterion_main!(benches);
