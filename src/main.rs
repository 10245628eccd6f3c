use clap::Parser;
use ctxloop::cli::{self, Cli, Command};
use ctxloop::engine::EngineOptions;
use std::process::ExitCode;

/// mimalloc: reading the Linux kernel (78k files, 1.1 GB kept in memory) took
/// about 0.6 s less than with the system allocator (2026-11-29, 2 cores).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // stdout is the protocol in `serve` mode: every log line goes to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let result = match cli.command {
        Command::Serve { root, deadline_ms } => tokio::runtime::Runtime::new()
            .map_err(anyhow::Error::from)
            .and_then(|rt| {
                let r = rt.block_on(ctxloop::server::serve_stdio(EngineOptions {
                    root,
                    deadline_ms: Some(deadline_ms),
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
