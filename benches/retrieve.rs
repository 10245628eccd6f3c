//! Criterion benchmark of `retrieve` on a real tree: warm calls (same engine,
//! tree unchanged) and cold calls (a fresh engine each time, so every file is
//! read, indexed and parsed again); and, in group `speed`, a cold engine, the
//! first call after [`Engine::prefetch`] (what `serve` does at start-up), a
//! warm engine, and a warm engine after touching one file (the first answer's
//! file gets a new mtime and ctime, content unchanged, so it is a new version
//! to read, index and parse again).
//!
//! The tree is this repository unless `CTXLOOP_BENCH_ROOT` names another
//! (e.g. a sympy checkout from `ctxloop bench`'s tree cache), and the task is
//! `CTXLOOP_BENCH_TASK` or a fixed one:
//!
//!     CTXLOOP_BENCH_ROOT=target/bench-trees/sympy+sympy/<commit> cargo bench --bench retrieve

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use std::hint::black_box;
use tokio_util::sync::CancellationToken;

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

fn speed(c: &mut Criterion) {
    let mut group = c.benchmark_group("speed");
    group.sample_size(10);
    group.bench_function("cold_engine", |b| {
        b.iter(|| {
            black_box(
                Engine::new(EngineOptions::default())
                    .retrieve(params())
                    .unwrap(),
            )
        })
    });
    group.bench_function("first_call_after_prefetch", |b| {
        b.iter_batched(
            || {
                let engine = Engine::new(EngineOptions {
                    root: params().root.map(Into::into),
                    ..Default::default()
                });
                engine
                    .prefetch(&CancellationToken::new())
                    .expect("prefetch");
                engine
            },
            |engine| black_box(engine.retrieve(params()).unwrap()),
            BatchSize::PerIteration,
        )
    });
    let engine = Engine::new(EngineOptions::default());
    let first = engine.retrieve(params()).expect("warm-up call");
    group.bench_function("warm_engine", |b| {
        b.iter(|| black_box(engine.retrieve(params()).unwrap()))
    });
    let touched = std::path::Path::new(params().root.as_deref().unwrap())
        .join(&first.files.first().expect("an answer").path);
    let file = std::fs::File::options()
        .append(true)
        .open(&touched)
        .expect("the first answer's file is writable");
    group.bench_function("warm_after_touching_one_file", |b| {
        b.iter_batched(
            || {
                file.set_modified(std::time::SystemTime::now())
                    .expect("touch")
            },
            |()| black_box(engine.retrieve(params()).unwrap()),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, retrieve, speed);
criterion_main!(benches);
