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
//!
//! Group `speed_table` (run alone with `cargo bench --bench retrieve -- speed_table`)
//! prints one table to stderr: cold (fresh engine), first call after
//! prefetch, warm, and `rg -c -i -e w1 -e w2 ...` with the task's query terms
//! on the same tree, each the median of `CTXLOOP_BENCH_RUNS` (default 5) runs
//! in wall ms and in CPU ms (user + system: the process's own for ctxloop,
//! the child's for rg; Linux), each with its ratio to `rg -c` from the same
//! run, and the process's peak RSS. On a loaded machine compare the CPU
//! columns: wall times then measure the other processes too.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ctxloop::engine::{Engine, EngineOptions};
use ctxloop::tools::retrieve::RetrieveParams;
use ctxloop::CallOptions;
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
    engine
        .retrieve(params(), &CallOptions::PLAIN)
        .expect("warm-up call");
    group.bench_function("warm_3_cycles", |b| {
        b.iter(|| black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap()))
    });
    group.bench_function("cold_3_cycles", |b| {
        b.iter(|| {
            let engine = Engine::new(EngineOptions::default());
            black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap())
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
                    .retrieve(params(), &CallOptions::PLAIN)
                    .unwrap(),
            )
        })
    });
    group.bench_function("first_call_after_prefetch", |b| {
        b.iter_batched(
            prefetched_engine,
            |engine| black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap()),
            BatchSize::PerIteration,
        )
    });
    let engine = Engine::new(EngineOptions::default());
    let first = engine
        .retrieve(params(), &CallOptions::PLAIN)
        .expect("warm-up call");
    group.bench_function("warm_engine", |b| {
        b.iter(|| black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap()))
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
            |()| black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap()),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// CPU seconds of this process and of its waited-for children, from
/// /proc/self/stat (USER_HZ ticks, 100 a second on Linux); `None` elsewhere.
fn cpu() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let f: Vec<f64> = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime, stime, cutime, cstime are fields 14-17 (1-based), 12-15 here.
    Some(((f[11] + f[12]) / 100.0, (f[13] + f[14]) / 100.0))
}

/// Peak resident memory of this process in MiB (VmHWM; Linux).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Median wall ms and CPU ms of `runs` runs of `f` (`setup` untimed before each).
fn measure<S>(
    runs: usize,
    mut setup: impl FnMut() -> S,
    mut f: impl FnMut(S),
    child: bool,
) -> (f64, Option<f64>) {
    let mut wall = Vec::new();
    let mut cpu_ms = Vec::new();
    for _ in 0..runs {
        let s = setup();
        let c0 = cpu();
        let t = std::time::Instant::now();
        f(s);
        wall.push(t.elapsed().as_secs_f64() * 1000.0);
        if let (Some(a), Some(b)) = (c0, cpu()) {
            cpu_ms.push(if child { b.1 - a.1 } else { b.0 - a.0 } * 1000.0);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cpu = (cpu_ms.len() == runs).then(|| median(&mut cpu_ms));
    (median(&mut wall), cpu)
}

fn speed_table(_: &mut Criterion) {
    // `cargo test --all-targets` runs this binary without `--bench`: no table then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let p = params();
    let root = p.root.clone().expect("a root");
    let runs: usize = std::env::var("CTXLOOP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
        .max(1);
    let words: Vec<String> = ctxloop::query::TaskQuery::new(&p.task, &[])
        .terms
        .iter()
        .map(|t| t.text.clone())
        .collect();
    let rg = || {
        let mut cmd = std::process::Command::new("rg");
        cmd.args(["-c", "-i"]).current_dir(&root);
        for w in &words {
            cmd.args(["-e", w]);
        }
        cmd.stdout(std::process::Stdio::null());
        cmd
    };
    let rg_row = rg().status().is_ok().then(|| {
        measure(
            runs,
            || (),
            |()| {
                rg().status().expect("rg runs");
            },
            true,
        )
    });
    let cold = measure(
        runs,
        || (),
        |()| {
            black_box(
                Engine::new(EngineOptions::default())
                    .retrieve(params(), &CallOptions::PLAIN)
                    .unwrap(),
            );
        },
        false,
    );
    let after_prefetch = measure(
        runs,
        prefetched_engine,
        |engine| {
            black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap());
        },
        false,
    );
    let engine = Engine::new(EngineOptions::default());
    engine
        .retrieve(params(), &CallOptions::PLAIN)
        .expect("warm-up call");
    let warm = measure(
        runs,
        || (),
        |()| {
            black_box(engine.retrieve(params(), &CallOptions::PLAIN).unwrap());
        },
        false,
    );
    let ratio = |x: Option<f64>, base: Option<f64>| match (x, base) {
        (Some(x), Some(b)) if b > 0.0 => format!("{:.2}x", x / b),
        _ => "-".into(),
    };
    let ms = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
    let (rg_wall, rg_cpu) = rg_row.map_or((None, None), |(w, c)| (Some(w), c));
    eprintln!(
        "\nspeed table: {root}, task {:?}, median of {runs} runs; rg -c -i with the query's {} terms: {}",
        p.task,
        words.len(),
        words.join(" ")
    );
    eprintln!(
        "{:<28} {:>9} {:>9} {:>9} {:>9}",
        "call", "wall ms", "x rg -c", "CPU ms", "x rg -c"
    );
    for (name, (w, c)) in [
        ("rg -c -i (same words)", rg_row.unwrap_or((f64::NAN, None))),
        ("cold (fresh engine)", cold),
        ("first call after prefetch", after_prefetch),
        ("warm (same engine)", warm),
    ] {
        eprintln!(
            "{:<28} {:>9} {:>9} {:>9} {:>9}",
            name,
            ms(Some(w).filter(|w| w.is_finite())),
            ratio(Some(w), rg_wall),
            ms(c),
            ratio(c, rg_cpu)
        );
    }
    eprintln!(
        "peak RSS of this process: {} MiB (all runs above, one process)\n",
        ms(peak_rss_mib())
    );
}

criterion_group!(benches, retrieve, speed, speed_table);
criterion_main!(benches);

/// An engine on the bench root whose background prefetch has run to the end
/// (what a server's first call finds a few seconds after start-up).
fn prefetched_engine() -> Engine {
    let engine = Engine::new(EngineOptions {
        root: params().root.map(Into::into),
        ..Default::default()
    });
    engine
        .prefetch(&CancellationToken::new())
        .expect("prefetch");
    engine
}
