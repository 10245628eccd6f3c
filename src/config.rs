//! A loop's validated settings: the bounds of every numeric setting (each
//! declared once, in [`Bound`] consts that also feed the tools' schemas and
//! the CLI's parsers), and the one place a request is checked against them.

use crate::error::{Error, Result};
use crate::request::RetrieveRequest;
use crate::root::Roots;
use crate::walk::{Filter, WalkOptions};
use std::path::PathBuf;

/// A numeric setting's range and default: the one declaration the validator
/// ([`Bound::check`]), the tools' `#[schemars(range)]` attributes, the raw
/// argument checker (which reads the schema) and the CLI's value parsers use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound<T> {
    /// The setting's name as a tool argument (and, with `-`, as a CLI flag).
    pub name: &'static str,
    /// Smallest accepted value (inclusive).
    pub min: T,
    /// Largest accepted value (inclusive).
    pub max: T,
    /// The value when none is given.
    pub default: T,
}

impl<T: PartialOrd + std::fmt::Display + Copy> Bound<T> {
    /// `value` (else the default) if it lies in `min..=max`, else
    /// [`Error::OutOfRange`] naming the setting and its range. NaN is refused.
    pub fn check(&self, value: Option<T>) -> Result<T> {
        self.check_or(value, self.default)
    }

    /// [`Bound::check`] with another default (the engine's `--deadline-ms`).
    pub fn check_or(&self, value: Option<T>, default: T) -> Result<T> {
        let v = value.unwrap_or(default);
        // `!(a <= b)` also rejects NaN.
        if !(self.min <= v && v <= self.max) {
            return Err(Error::OutOfRange {
                field: self.name,
                // `1e308` prints as 309 digits: cut like every echo.
                value: crate::error::clip(&v.to_string()),
                min: self.min.to_string(),
                max: self.max.to_string(),
            });
        }
        Ok(v)
    }
}

/// Maximum cycles of a loop.
pub const MAX_CYCLES: Bound<usize> = Bound {
    name: "max_cycles",
    min: 1,
    max: 10,
    default: 3,
};
/// High-tier files needed to stop early.
pub const MIN_HIGH: Bound<usize> = Bound {
    name: "min_high",
    min: 1,
    max: 50,
    default: 3,
};
/// Relevance (0-1) at or above which a file is high tier.
pub const HIGH_THRESHOLD: Bound<f64> = Bound {
    name: "high_threshold",
    min: 0.05,
    max: 1.0,
    default: 0.7,
};
/// Files returned (candidates per cycle, for `dispatch`).
pub const LIMIT: Bound<usize> = Bound {
    name: "limit",
    min: 1,
    max: 100,
    default: 10,
};
/// Token budget (tokens ~ bytes/4) of the per-file text. The default is well
/// under the ~25k-token cap agents put on one tool result.
pub const BUDGET_TOKENS: Bound<usize> = Bound {
    name: "budget_tokens",
    min: 100,
    max: 20_000,
    default: 6_000,
};
/// Wall-clock deadline of a call, in ms. Default: the Linux kernel tree (78k
/// files) takes about 2 s cold on a 2-core machine with its files in the page
/// cache (README, Measured) and 6-12 s when they must come from disk (two runs
/// seen after the page cache was evicted, 2026-11-29), so 30 s bounds a call
/// on any tree while leaving slow disks room.
pub const DEADLINE_MS: Bound<u64> = Bound {
    name: "deadline_ms",
    min: 10,
    max: 3_600_000,
    default: 30_000,
};

/// Most items of one list argument (`patterns`, `excludes`, `keywords`) in
/// one request. Each glob costs its own compiled matcher (about 1.3 ms and
/// 40 KB: 4,000 include globs took 5.8 s and 180 MB on flask, and a 16 MiB
/// request could hold 800,000), all before the deadline is first checked;
/// and keywords weigh more than the task's words, so past the query's
/// [`crate::query::MAX_QUERY_TERMS`] they pushed every word of the task out
/// ("session cookie" with 2,000 keywords answered 0 files). An agent names a
/// few dozen at most.
pub const MAX_LIST_ITEMS: usize = 256;

/// Checks that no list argument of one request holds more than
/// [`MAX_LIST_ITEMS`] items. Errors: [`Error::TooManyItems`] naming the list.
pub fn check_lists(patterns: &[String], excludes: &[String], keywords: &[String]) -> Result<()> {
    for (field, list) in [
        ("patterns", patterns),
        ("excludes", excludes),
        ("keywords", keywords),
    ] {
        if list.len() > MAX_LIST_ITEMS {
            return Err(Error::TooManyItems {
                field,
                count: list.len(),
                max: MAX_LIST_ITEMS,
            });
        }
    }
    Ok(())
}

/// A loop's validated settings.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    /// The coding task (not empty).
    pub task: String,
    /// The resolved, canonical root directory.
    pub root: PathBuf,
    /// Include globs (gitignore-style, relative to the root).
    pub patterns: Vec<String>,
    /// Extra search terms (blank ones dropped).
    pub keywords: Vec<String>,
    /// Exclude globs or paths.
    pub excludes: Vec<String>,
    /// See [`MAX_CYCLES`].
    pub max_cycles: usize,
    /// See [`MIN_HIGH`].
    pub min_high: usize,
    /// See [`HIGH_THRESHOLD`].
    pub high_threshold: f64,
    /// See [`LIMIT`].
    pub limit: usize,
    /// See [`BUDGET_TOKENS`].
    pub budget_tokens: usize,
    /// What the walk may return beyond the default rules (the engine's).
    pub walk: WalkOptions,
}

/// Longest task (bytes) checked for having no searchable word.
const NO_WORDS_CHECK_BYTES: usize = 4096;

impl LoopConfig {
    /// Validates a request's loop settings once; the loop only sees the result.
    ///
    /// Errors: an empty task, a task without searchable words and no
    /// keywords, a root that cannot be searched, a setting out of its
    /// [`Bound`], a list over [`MAX_LIST_ITEMS`], an invalid glob.
    pub fn new(p: &RetrieveRequest, roots: &Roots) -> Result<LoopConfig> {
        let RetrieveRequest {
            task,
            root,
            patterns,
            keywords,
            excludes,
            max_cycles,
            min_high,
            high_threshold,
            limit,
            budget_tokens,
            deadline_ms: _,
        } = p;
        if task.trim().is_empty() {
            return Err(Error::EmptyTask);
        }
        check_lists(patterns, excludes, keywords)?;
        let keywords: Vec<String> = keywords
            .iter()
            .filter(|k| !k.trim().is_empty())
            .cloned()
            .collect();
        let cfg = LoopConfig {
            task: task.to_string(),
            root: roots.resolve_root(root.as_deref())?,
            patterns: patterns.to_vec(),
            keywords,
            excludes: excludes.to_vec(),
            max_cycles: MAX_CYCLES.check(*max_cycles)?,
            min_high: MIN_HIGH.check(*min_high)?,
            high_threshold: HIGH_THRESHOLD.check(*high_threshold)?,
            limit: LIMIT.check(*limit)?,
            budget_tokens: BUDGET_TOKENS.check(*budget_tokens)?,
            walk: roots.walk_options(),
        };
        // Compile once here so a bad glob is reported before any work.
        Filter::new(&cfg.patterns, &cfg.excludes)?;
        // A task of stopwords alone (with keywords of stopwords alone, or
        // of no ASCII word: `授权`, `the`) ranked nothing and said only
        // `no_candidates`, as if the tree held nothing related. Checked on
        // tasks of up to 4 KB: building the query a second time cost 6.7 ms
        // on a 126 KB task (43.2 → 49.9 ms, hyperfine, 2026-12-06), and a
        // task that long holds words.
        if task.len() <= NO_WORDS_CHECK_BYTES
            && crate::query::TaskQuery::new(task, &cfg.keywords)
                .terms
                .is_empty()
        {
            return Err(Error::NoSearchableWords {
                task: task.to_string(),
                keywords: cfg.keywords.len(),
            });
        }
        Ok(cfg)
    }
}

/// The deadline of a call in ms: its `deadline_ms` argument, else the
/// engine's default (`default`, else [`DEADLINE_MS`]'s).
pub fn deadline_ms(default: Option<u64>, arg: Option<u64>) -> Result<u64> {
    DEADLINE_MS.check_or(arg, default.unwrap_or(DEADLINE_MS.default))
}
