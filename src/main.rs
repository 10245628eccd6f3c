use clap::Parser;
use ctxloop::cli::{self, Cli, Command};
use ctxloop::engine::EngineOptions;
use std::process::ExitCode;

/// mimalloc: a cold call on the Linux kernel tree (78k files, 1.1 GB kept in
/// memory) took 2.01 s mean against 2.59 s with the system allocator
/// (hyperfine, 8-10 runs each, 2 cores, 2026-11-29).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // No transparent huge pages: mimalloc asks for them, and faulting them in
    // (with the kernel compacting memory to find them) made a cold call on the
    // Linux kernel tree bimodal, 1.6 s or 2.9 s (mean 2.37 s over 10 runs);
    // without them it took 1.98 ± 0.06 s (8 runs, 2026-11-29).
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    let cli = Cli::parse();
    // stdout is the protocol in `serve` mode: every log line goes to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(log_filter())
        .init();
    let result = match cli.command {
        Command::Serve {
            root,
            allow_root,
            hidden_whitelisted,
            allow_hidden_root,
            deadline_ms,
            no_prefetch,
            no_history,
            cache_dir,
        } => ctxloop::server::server_roots(root, &allow_root, allow_hidden_root)
            .and_then(|root| {
                // Every call's root lies inside --root or an --allow-root, so
                // a cache outside those is outside every root.
                let roots = [std::slice::from_ref(&root), &allow_root].concat();
                Ok((root, cli::open_cache(cache_dir, &roots)?))
            })
            .and_then(|(root, cache)| Ok((root, cache, tokio::runtime::Runtime::new()?)))
            .and_then(|(root, cache, rt)| {
                let r = rt.block_on(ctxloop::server::serve_stdio(EngineOptions {
                    root: Some(root),
                    deadline_ms: Some(deadline_ms),
                    allow_roots: allow_root,
                    hidden_whitelisted,
                    allow_hidden_root,
                    prefetch: !no_prefetch,
                    no_history,
                    cache,
                    ..Default::default()
                }));
                // The blocking stdin reader would keep the runtime alive: end now.
                rt.shutdown_background();
                r
            }),
        Command::Retrieve(args) => cli::retrieve(args),
        Command::Bench(args) => ctxloop::bench::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ctxloop: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The log filter: `RUST_LOG`, default `warn`. The `ignore` crate's own
/// debug and trace lines name every hidden and ignored file the walk skips
/// (`ignoring /root/.env: Ignore(IgnoreMatch(Hidden))`, with the rule), so
/// they stay off under `RUST_LOG=debug` or `trace` unless `RUST_LOG` names
/// the crate (`ignore=debug`): a log asked for to see ctxloop's phases
/// should not list the files the walk keeps out (probe of session 37).
fn log_filter() -> tracing_subscriber::EnvFilter {
    let asked = std::env::var("RUST_LOG").unwrap_or_default();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let names_ignore = asked
        .split(',')
        .any(|d| d.trim().split(['=', '[', ':']).next() == Some("ignore"));
    if names_ignore {
        return filter;
    }
    match "ignore=info".parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    }
}
