//! The command line: `serve`, `retrieve`, `bench`. The only module (with
//! `main.rs`) that writes to stdout.

use crate::cache::DiskCache;
use crate::config::{
    Bound, BUDGET_TOKENS, DEADLINE_MS, HIGH_THRESHOLD, LIMIT, MAX_CYCLES, MIN_HIGH,
};
use crate::engine::{Engine, EngineOptions};
use crate::render;
use crate::request::{CallOptions, RetrieveRequest};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// `ctxloop --version`: the crate version and the commit it was built from
/// (short hash; `unknown` outside git without `CTXLOOP_BUILD_COMMIT`, see build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("CTXLOOP_COMMIT"),
    ")"
);

const EXAMPLES: &str = "\
Examples:
  ctxloop retrieve \"why does token refresh fail after expiry\" --root .
  claude mcp add ctxloop -- ctxloop serve --root .";

/// Hands coding agents the right source files for a task: the iterative
/// retrieval loop (dispatch → evaluate → refine) as an MCP stdio server and a CLI.
#[derive(Debug, Parser)]
#[command(name = "ctxloop", version = VERSION, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// `ctxloop`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP over stdio (what agent configurations launch). Logs go to stderr.
    ///
    /// The server is always confined: a call's `root` may only name the
    /// directory given with --root (default: the working directory), one
    /// below it, or an --allow-root directory; never a hidden or ignored one
    /// below those.
    Serve {
        /// Directory searched when a call gives no `root`; a call's `root` may only
        /// name this directory or one below it (or an --allow-root). Default: the
        /// working directory.
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Another directory a call's `root` may name (it or one below it);
        /// repeatable. Naming a hidden or ignored directory here is the way to
        /// let calls search it.
        #[arg(long = "allow-root", value_name = "DIR")]
        allow_root: Vec<PathBuf>,
        /// Let `!` whitelists in `.ignore`/`.gitignore` files (`!.env`) re-open
        /// the hidden files they name (never `.git`). Default: hidden files
        /// stay skipped.
        #[arg(long)]
        hidden_whitelisted: bool,
        /// Accept a --root that is hidden or excluded by ignore rules (judged
        /// below the working directory or the enclosing git work tree).
        #[arg(long)]
        allow_hidden_root: bool,
        /// Wall-clock deadline of each call in ms; a call's `deadline_ms`
        /// argument overrides it.
        #[arg(long, value_name = "MS", allow_negative_numbers = true, default_value_t = DEADLINE_MS.default,
              value_parser = ranged(&DEADLINE_MS),
              help = help("Wall-clock deadline of each call in ms", &DEADLINE_MS,
                  "; a call's `deadline_ms` argument overrides it. Past it a call returns the best files found so far, marked `truncated`."))]
        deadline_ms: u64,
        /// Do not read and parse --root in the background at start-up. By
        /// default the server walks, reads (at most 384 MiB of text) and parses
        /// (at most 64 MiB, largest files first) the root while it waits for
        /// its first call, pausing while a call runs; answers still reflect
        /// the tree at call time.
        #[arg(long)]
        no_prefetch: bool,
        /// Do not use the repository's history. By default past commits
        /// whose messages resemble the task count as evidence for the files
        /// they changed (BugLocator's similar-report score, Zhou et al. ICSE
        /// 2012): one `git log` of the last 5,000 non-merge commits (commits
        /// changing more than 50 files skipped) per repository and HEAD,
        /// cached, within the call's deadline; only files the walk admits
        /// are scored and no commit message is shown.
        #[arg(long)]
        no_history: bool,
        /// Keep parsed symbols (and the history's `git log`, per commit) in
        /// DIR between runs (created if missing, mode 0700), so a later call
        /// parses only files whose text changed. Entries are named by each
        /// file's text, its language and this build; DIR must lie outside the
        /// roots searched. Without this flag or CTXLOOP_CACHE_DIR nothing is
        /// written to disk.
        #[arg(long, value_name = "DIR", env = "CTXLOOP_CACHE_DIR", value_parser = path_or_empty())]
        cache_dir: Option<PathBuf>,
    },
    /// Run the whole loop for TASK and print the ranked files (the `retrieve` tool's result).
    Retrieve(RetrieveArgs),
    /// Localization benchmark: Acc@k, Recall@k, MRR and time per task on task JSONL, beside plain BM25.
    Bench(crate::bench::BenchArgs),
}

/// `retrieve --format`: how the result is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Ranked files with reasons and snippets, for people and models.
    Text,
    /// The structured result (the MCP tool's `structuredContent`).
    Json,
    /// A Markdown report, for sub-agents that read files.
    Markdown,
}

/// `ctxloop retrieve`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RetrieveArgs {
    /// The coding task in natural language (paths, identifiers and stack traces help).
    /// A task that starts with `-` (a CLI flag) is taken as it is; after `--`,
    /// put every option before the `--`: `retrieve [OPTIONS] -- TASK`.
    #[arg(allow_hyphen_values = true, value_parser = Utf8Text)]
    pub task: String,
    /// Directory to search (default: the working directory). A hidden or
    /// ignored directory (below the working directory or the enclosing git
    /// work tree) is refused unless --allow-hidden-root.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Accept a --root that is hidden or excluded by ignore rules.
    #[arg(long)]
    pub allow_hidden_root: bool,
    /// Let `!` whitelists in `.ignore`/`.gitignore` files (`!.env`) re-open
    /// the hidden files they name (never `.git`). Default: hidden files stay
    /// skipped.
    #[arg(long)]
    pub hidden_whitelisted: bool,
    /// Only search files matching this glob (gitignore-style, relative to the root; repeatable).
    /// A leading `!` excludes, as in ripgrep's -g: `--include 'src/**' --include '!src/gen/**'`;
    /// `!` globs alone keep every other file.
    #[arg(long = "include", value_name = "GLOB", value_parser = Utf8Text)]
    pub include: Vec<String>,
    /// Skip files matching this glob or path (repeatable). No leading `!`: an
    /// exclude glob cannot take a file back (`--include '!GLOB'` excludes).
    #[arg(long = "exclude", value_name = "GLOB", value_parser = Utf8Text)]
    pub exclude: Vec<String>,
    /// Extra search term, weighed like the task's title (repeatable).
    #[arg(long = "keyword", value_name = "TERM", value_parser = Utf8Text)]
    pub keyword: Vec<String>,
    /// Maximum cycles ([`MAX_CYCLES`]).
    #[arg(long, allow_negative_numbers = true, default_value_t = MAX_CYCLES.default, value_parser = ranged(&MAX_CYCLES),
          help = help("Maximum cycles", &MAX_CYCLES, "."))]
    pub max_cycles: usize,
    /// High-tier files needed to stop early ([`MIN_HIGH`]).
    #[arg(long, allow_negative_numbers = true, default_value_t = MIN_HIGH.default, value_parser = ranged(&MIN_HIGH),
          help = help("High-tier files needed to stop early", &MIN_HIGH, "."))]
    pub min_high: usize,
    /// Relevance at or above which a file is high tier ([`HIGH_THRESHOLD`]).
    #[arg(long, allow_negative_numbers = true, default_value_t = HIGH_THRESHOLD.default, value_parser = high_threshold,
          help = help("Relevance at or above which a file is high tier", &HIGH_THRESHOLD, "."))]
    pub high_threshold: f64,
    /// Files returned ([`LIMIT`]).
    #[arg(long, allow_negative_numbers = true, default_value_t = LIMIT.default, value_parser = ranged(&LIMIT),
          help = help("Files returned", &LIMIT, "."))]
    pub limit: usize,
    /// Token budget of the per-file text ([`BUDGET_TOKENS`]).
    #[arg(long, allow_negative_numbers = true, default_value_t = BUDGET_TOKENS.default, value_parser = ranged(&BUDGET_TOKENS),
          help = help("Token budget (tokens ~ bytes/4) of the per-file text (headers, snippets, handles)", &BUDGET_TOKENS, "."))]
    pub budget_tokens: usize,
    /// Wall-clock deadline in ms ([`DEADLINE_MS`]).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, default_value_t = DEADLINE_MS.default,
          value_parser = ranged(&DEADLINE_MS),
          help = help("Wall-clock deadline in ms", &DEADLINE_MS,
              "; past it the best files found so far are returned, marked `truncated`."))]
    pub deadline_ms: u64,
    /// Do not use the repository's history. By default past commits
    /// whose messages resemble the task count as evidence for the files
    /// they changed (BugLocator's similar-report score, Zhou et al. ICSE
    /// 2012): one `git log` of the last 5,000 non-merge commits (commits
    /// changing more than 50 files skipped) per repository and HEAD,
    /// cached, within the call's deadline; only files the walk admits
    /// are scored and no commit message is shown.
    #[arg(long)]
    pub no_history: bool,
    /// Read the history signal's commits from this git directory (a bare
    /// repository or a `.git`, whose top level is --root) instead of the
    /// root's own repository; with --history-commit.
    #[arg(
        long,
        value_name = "GIT_DIR",
        requires = "history_commit",
        conflicts_with = "no_history"
    )]
    pub history_git_dir: Option<PathBuf>,
    /// The commit the history starts from (nothing after it is read), with
    /// --history-git-dir: a tree extracted at an old commit sees the history
    /// of that commit only.
    #[arg(long, value_name = "REV", requires = "history_git_dir")]
    pub history_commit: Option<String>,
    /// Keep parsed symbols (and the history's `git log`, per commit) in
    /// DIR between runs (created if missing, mode 0700), so a later call
    /// parses only files whose text changed. Entries are named by each
    /// file's text, its language and this build; DIR must lie outside the
    /// roots searched. Without this flag or CTXLOOP_CACHE_DIR nothing is
    /// written to disk.
    #[arg(long, value_name = "DIR", env = "CTXLOOP_CACHE_DIR", value_parser = path_or_empty())]
    pub cache_dir: Option<PathBuf>,
    /// Output format. Default: text, or taken from --out's extension (.json, .md).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the result to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// A path flag that may be empty (`CTXLOOP_CACHE_DIR=` means unset, as an
/// empty environment variable usually does).
fn path_or_empty() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

/// A flag's help line: `what`, its range from `bound` (e.g. "1-10"), then `rest`.
fn help<T: std::fmt::Debug>(what: &str, bound: &Bound<T>, rest: &str) -> String {
    format!("{what}, {:?}-{:?}{rest}", bound.min, bound.max)
}

/// A whole-number flag's parser, refusing values outside `bound`.
fn ranged<T>(bound: &Bound<T>) -> clap::builder::RangedI64ValueParser<T>
where
    T: Copy + TryInto<i64> + TryFrom<i64> + Clone + Send + Sync + 'static,
    <T as TryFrom<i64>>::Error: std::fmt::Display + Send + Sync + 'static,
{
    // Signed, so that `-5` is "not in 100..=20000", not "invalid digit".
    let (min, max) = (bound.min.try_into(), bound.max.try_into());
    clap::builder::RangedI64ValueParser::new().range(min.unwrap_or(0)..=max.unwrap_or(i64::MAX))
}

/// The parser of a text argument (the task, a glob, a keyword): clap's own
/// said "invalid UTF-8 was detected in one or more arguments" and named
/// none of them (probe of session 36). This one names the argument and
/// shows the value with its bytes that are not UTF-8 replaced.
#[derive(Clone, Copy, Debug)]
struct Utf8Text;

impl clap::builder::TypedValueParser for Utf8Text {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        value.to_str().map(str::to_owned).ok_or_else(|| {
            let name = arg.map_or_else(|| "an argument".to_string(), |a| a.to_string());
            clap::Error::raw(
                clap::error::ErrorKind::InvalidUtf8,
                format!(
                    "{name} is not UTF-8: {:?} (each byte that is not UTF-8 shown as U+FFFD). \
                     ctxloop reads text arguments as UTF-8: convert the text (e.g. with iconv) \
                     and try again\n",
                    crate::error::clip(&value.to_string_lossy())
                ),
            )
            .with_cmd(cmd)
        })
    }
}

/// `--high-threshold`'s parser: a number in [`HIGH_THRESHOLD`]'s range.
fn high_threshold(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    HIGH_THRESHOLD.check(Some(v)).map_err(|_| {
        format!(
            "{v} is not in {:?}..={:?}",
            HIGH_THRESHOLD.min, HIGH_THRESHOLD.max
        )
    })
}

/// The CLI's output writer: with the server's transport, one of the two
/// places allowed to write to stdout (clippy.toml). `retrieve`'s result and
/// `bench`'s report go through it; everything else goes to stderr.
#[allow(clippy::disallowed_methods)]
pub(crate) fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// The persistent cache `--cache-dir` (or `CTXLOOP_CACHE_DIR`) names,
/// opened (the directory created if missing), after checking that none of
/// `roots` holds it or lies inside it; `None` without either setting.
pub fn open_cache(
    dir: Option<PathBuf>,
    roots: &[PathBuf],
) -> crate::error::Result<Option<Arc<DiskCache>>> {
    let Some(dir) = dir.filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(None);
    };
    Ok(Some(Arc::new(DiskCache::open(dir, roots)?)))
}

/// Runs `retrieve` and writes the result. Errors are for the caller to print.
pub fn retrieve(args: RetrieveArgs) -> anyhow::Result<()> {
    // The root is checked before the cache directory is created (nothing
    // may be made inside the tree), and again once resolved (Engine::config).
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir()?,
    };
    let cache = open_cache(args.cache_dir.clone(), &[root])?;
    let engine = Engine::new(EngineOptions {
        allow_hidden_root: args.allow_hidden_root,
        hidden_whitelisted: args.hidden_whitelisted,
        no_history: args.no_history,
        cache,
        ..Default::default()
    });
    let task = args.task.clone();
    let history = match (args.history_git_dir, args.history_commit) {
        (Some(git_dir), Some(commit)) => {
            Some(crate::history::HistorySource::At { git_dir, commit })
        }
        _ => None,
    };
    if let Some(h) = &history {
        h.check()?;
    }
    // A root whose name is not UTF-8, made lossy, named another directory
    // and was refused as one that "does not exist".
    let root = match args.root {
        Some(r) => Some(r.into_os_string().into_string().map_err(|r| {
            anyhow::anyhow!(
                "root {:?} is not valid UTF-8: a root is passed as UTF-8 text. Rename the directory, or pass a parent directory whose path is UTF-8",
                r.to_string_lossy()
            )
        })?),
        None => None,
    };
    let progress = Progress::start();
    let out = engine
        .retrieve(
            RetrieveRequest {
                task: args.task,
                root,
                patterns: args.include,
                keywords: args.keyword,
                excludes: args.exclude,
                max_cycles: Some(args.max_cycles),
                min_high: Some(args.min_high),
                high_threshold: Some(args.high_threshold),
                limit: Some(args.limit),
                budget_tokens: Some(args.budget_tokens),
                deadline_ms: Some(args.deadline_ms),
            },
            &CallOptions {
                progress: Some(&|done, total, msg| progress.cycle(done, total, msg)),
                history: history.as_ref(),
                ..Default::default()
            },
        )
        .map_err(|e| anyhow::anyhow!(cli_message(&e)));
    progress.finish();
    // The process ends after this call: freeing the file cache piece by piece
    // (a gigabyte in 78k files on the Linux kernel) would only delay the exit.
    std::mem::forget(engine);
    let out = out?;
    let format = args.format.unwrap_or_else(|| {
        match args
            .out
            .as_ref()
            .and_then(|p| p.extension())
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("json") => Format::Json,
            Some("md") | Some("markdown") => Format::Markdown,
            _ => Format::Text,
        }
    });
    let text = match format {
        Format::Text => render::render_text(&out),
        Format::Json => serde_json::to_string_pretty(&out)? + "\n",
        Format::Markdown => render::render_markdown(&out, &task),
    };
    match args.out {
        Some(path) => {
            std::fs::write(&path, text).map_err(|e| cannot_write(&path, &e))?;
            eprintln!(
                "ctxloop: wrote {} files to {}",
                out.files.len(),
                path.display()
            );
        }
        None => match stdout().write_all(text.as_bytes()) {
            // The reader closed the pipe (`| head -c 100`): it took what it
            // wanted, and there is no one left to tell of an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r?,
        },
    }
    Ok(())
}

/// The error for an `--out` file that could not be written, with how to fix it.
fn cannot_write(path: &std::path::Path, e: &std::io::Error) -> anyhow::Error {
    let fix = match (
        e.kind(),
        path.parent().filter(|p| !p.as_os_str().is_empty()),
    ) {
        (std::io::ErrorKind::NotFound, Some(dir)) => format!(
            "create its directory first (mkdir -p {}) or choose another --out path",
            dir.display()
        ),
        (std::io::ErrorKind::IsADirectory, _) => format!(
            "--out names a directory: give a file in it, e.g. {}",
            path.join("ctx.md").display()
        ),
        _ => "choose a path you can write with --out, or leave --out off to print to stdout"
            .to_string(),
    };
    anyhow::anyhow!("cannot write {}: {e}: {fix}", path.display())
}

/// The progress line on stderr: a spinner with the elapsed time and the last
/// finished cycle ("cycle 1: 412 files scored, 2 high, 1 gaps"), drawn only
/// when stderr is a terminal and only once a call has run for 1 s, and
/// cleared before the result is printed.
struct Progress {
    bar: indicatif::ProgressBar,
    shown: Option<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

impl Progress {
    const DELAY: std::time::Duration = std::time::Duration::from_secs(1);

    fn start() -> Self {
        use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
        use std::io::IsTerminal;
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} ctxloop: {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("walking and reading files");
        if !std::io::stderr().is_terminal() {
            return Progress { bar, shown: None };
        }
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let shown = bar.clone();
        let thread = std::thread::spawn(move || {
            // Done within the delay (or the sender dropped): never drawn.
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(Self::DELAY) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(std::time::Duration::from_millis(120));
            }
        });
        Progress {
            bar,
            shown: Some((tx, thread)),
        }
    }

    fn cycle(&self, _done: usize, total: usize, msg: &str) {
        self.bar
            .set_message(format!("{msg} (at most {total} cycles)"));
    }

    fn finish(self) {
        if let Some((tx, thread)) = self.shown {
            let _ = tx.send(());
            let _ = thread.join();
        }
        self.bar.finish_and_clear();
    }
}

/// The CLI flag that sets an engine field.
fn flag_of(field: &str) -> &str {
    match field {
        "patterns" => "--include",
        "excludes" => "--exclude",
        "keywords" => "--keyword",
        "max_cycles" => "--max-cycles",
        "min_high" => "--min-high",
        "high_threshold" => "--high-threshold",
        "limit" => "--limit",
        "budget_tokens" => "--budget-tokens",
        "deadline_ms" => "--deadline-ms",
        other => other,
    }
}

/// An engine error in the CLI's words: flags instead of MCP argument names.
fn cli_message(e: &crate::error::Error) -> String {
    use crate::error::Error;
    match e {
        Error::InvalidGlob { field, glob, reason } => format!(
            "invalid glob {:?} in {}: {reason}. Use gitignore-style globs relative to the root, e.g. \"src/**/*.rs\"",
            crate::error::clip(glob),
            flag_of(field)
        ),
        Error::BangExclude { glob } => format!(
            "--exclude {:?}: a leading `!` means exclude, and only in --include, as in ripgrep's -g '!GLOB'; an exclude glob cannot start with it. To fix it, pass --exclude {:?}, or --include {:?}",
            crate::error::clip(glob),
            crate::error::clip(glob.trim().trim_start_matches('!')),
            crate::error::clip(glob)
        ),
        Error::OutOfRange {
            field,
            value,
            min,
            max,
        } => format!(
            "{} {value} is out of range: it must be between {min} and {max}",
            flag_of(field)
        ),
        Error::TooManyItems { field, count, max } => format!(
            "{} is given {count} times: pass at most {max}, the ones that matter most (a glob such as \"src/**/*.py\" covers many paths; the task's own words are searched without listing them)",
            flag_of(field)
        ),
        Error::BlankRoot { given } => format!(
            "--root {:?} is blank: omit --root to search the working directory, or pass a directory",
            crate::error::clip(given)
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn a_bad_glob_is_echoed_cut_like_every_echo() {
        // A 100 KB glob came back whole on stderr (the MCP message cuts it).
        let glob = format!("{}[", "a".repeat(100_000));
        let msg = cli_message(&crate::error::Error::InvalidGlob {
            field: "patterns",
            glob,
            reason: "unclosed character class; missing ']'".into(),
        });
        assert!(msg.len() < 600, "{} bytes", msg.len());
        assert!(
            msg.contains("(100001 bytes in all)\" in --include"),
            "{msg}"
        );
    }

    #[test]
    fn too_many_items_name_the_flag() {
        let msg = cli_message(&crate::error::Error::TooManyItems {
            field: "keywords",
            count: 300,
            max: 256,
        });
        assert!(
            msg.starts_with("--keyword is given 300 times: pass at most 256"),
            "{msg}"
        );
    }

    #[test]
    fn flags_parse_and_state_the_bounds() {
        let cmd = Cli::command();
        let retrieve = cmd.find_subcommand("retrieve").unwrap();
        for (flag, range) in [
            ("max-cycles", "1-10"),
            ("min-high", "1-50"),
            ("high-threshold", "0.05-1.0"),
            ("limit", "1-100"),
            ("budget-tokens", "100-20000"),
            ("deadline-ms", "10-3600000"),
        ] {
            let arg = retrieve
                .get_arguments()
                .find(|a| a.get_long() == Some(flag))
                .unwrap();
            let help = arg.get_help().unwrap().to_string();
            assert!(help.contains(range), "--{flag}: {help}");
        }
        let parse =
            |args: &[&str]| Cli::try_parse_from([&["ctxloop", "retrieve", "x"], args].concat());
        assert!(parse(&["--max-cycles", "10"]).is_ok());
        assert!(parse(&["--max-cycles", "11"]).is_err());
        assert!(parse(&["--high-threshold", "0.04"]).is_err());
        assert!(parse(&["--high-threshold", "NaN"]).is_err());
        assert!(parse(&["--budget-tokens", "99"]).is_err());
        assert!(parse(&["--deadline-ms", "3600001"]).is_err());
        // A negative number is a value out of range, not a flag: clap's tip
        // "to pass '-5' as a value, use '-- -5'" made it the task.
        for flag in [
            "--budget-tokens",
            "--limit",
            "--max-cycles",
            "--deadline-ms",
        ] {
            let err = parse(&[flag, "-5"]).unwrap_err().to_string();
            assert!(!err.contains("'-- -5'"), "{flag}: {err}");
            assert!(err.contains("-5 is not in"), "{flag}: {err}");
        }
        let err = parse(&["--high-threshold", "-0.5"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not in"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_text_argument_that_is_not_utf8_is_named() {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"fix \xff bug");
        let parse = |args: &[&std::ffi::OsStr]| {
            let head = ["ctxloop", "retrieve"].map(std::ffi::OsStr::new);
            Cli::try_parse_from(head.iter().chain(args))
        };
        let err = parse(&[bad]).unwrap_err().to_string();
        assert!(
            err.contains("<TASK> is not UTF-8: \"fix \u{FFFD} bug\""),
            "{err}"
        );
        let args = ["x", "--include"].map(std::ffi::OsStr::new);
        let err = parse(&[args[0], args[1], bad]).unwrap_err().to_string();
        assert!(err.contains("--include <GLOB> is not UTF-8"), "{err}");
    }
}
