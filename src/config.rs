//! A loop's validated settings: the defaults, the bounds, and the one place
//! raw parameters are checked against them.

use crate::error::{Error, Result};
use crate::root::Roots;
use crate::tools::retrieve::RetrieveParams;
use crate::walk::{Filter, WalkOptions};
use std::path::PathBuf;

/// Default deadline of a call: the Linux kernel tree (78k files) takes about
/// 2 s cold on a 2-core machine with its files in the page cache (README,
/// Measured) and 6-12 s when they must come from disk (two runs seen after
/// the page cache was evicted, 2026-11-29), so 30 s bounds a call on any tree while
/// leaving slow disks room.
pub const DEFAULT_DEADLINE_MS: u64 = 30_000;
pub const MIN_DEADLINE_MS: u64 = 10;
pub const MAX_DEADLINE_MS: u64 = 3_600_000;

/// A loop's validated settings.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    pub task: String,
    pub root: PathBuf,
    pub patterns: Vec<String>,
    pub keywords: Vec<String>,
    pub excludes: Vec<String>,
    pub max_cycles: usize,
    pub min_high: usize,
    pub high_threshold: f64,
    pub limit: usize,
    pub budget_tokens: usize,
    /// What the walk may return beyond the default rules (the engine's).
    pub walk: WalkOptions,
}

/// Defaults (DESIGN.md §2 and the loop seeds).
pub const DEFAULT_MAX_CYCLES: usize = 3;
pub const DEFAULT_MIN_HIGH: usize = 3;
pub const DEFAULT_HIGH_THRESHOLD: f64 = 0.7;
pub const DEFAULT_LIMIT: usize = 10;
/// Well under the ~25k-token cap agents put on one tool result.
pub const DEFAULT_BUDGET_TOKENS: usize = 6_000;
pub const MAX_BUDGET_TOKENS: usize = 20_000;

pub(crate) fn range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &'static str,
    value: Option<T>,
    default: T,
    min: T,
    max: T,
) -> Result<T> {
    let v = value.unwrap_or(default);
    // `!(a <= b)` also rejects NaN.
    if !(min <= v && v <= max) {
        return Err(Error::OutOfRange {
            field,
            value: v.to_string(),
            min: min.to_string(),
            max: max.to_string(),
        });
    }
    Ok(v)
}

impl LoopConfig {
    /// Validates raw loop settings once; tool bodies only see the result.
    pub fn new(p: &RetrieveParams, roots: &Roots) -> Result<LoopConfig> {
        let RetrieveParams {
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
        let (max_cycles, min_high, high_threshold, limit, budget_tokens) = (
            *max_cycles,
            *min_high,
            *high_threshold,
            *limit,
            *budget_tokens,
        );
        if task.trim().is_empty() {
            return Err(Error::EmptyTask);
        }
        let cfg = LoopConfig {
            task: task.to_string(),
            root: roots.resolve_root(root.as_deref())?,
            patterns: patterns.to_vec(),
            keywords: keywords
                .iter()
                .filter(|k| !k.trim().is_empty())
                .cloned()
                .collect(),
            excludes: excludes.to_vec(),
            max_cycles: range("max_cycles", max_cycles, DEFAULT_MAX_CYCLES, 1, 10)?,
            min_high: range("min_high", min_high, DEFAULT_MIN_HIGH, 1, 50)?,
            high_threshold: range(
                "high_threshold",
                high_threshold,
                DEFAULT_HIGH_THRESHOLD,
                0.05,
                1.0,
            )?,
            limit: range("limit", limit, DEFAULT_LIMIT, 1, 100)?,
            budget_tokens: range(
                "budget_tokens",
                budget_tokens,
                DEFAULT_BUDGET_TOKENS,
                100,
                MAX_BUDGET_TOKENS,
            )?,
            walk: roots.walk_options(),
        };
        // Compile once here so a bad glob is reported before any work.
        Filter::new(&cfg.patterns, &cfg.excludes)?;
        Ok(cfg)
    }
}

/// The deadline of a call in ms: its `deadline_ms` argument, else the
/// engine's default (`default`, else [`DEFAULT_DEADLINE_MS`]).
pub fn deadline_ms(default: Option<u64>, arg: Option<u64>) -> Result<u64> {
    range(
        "deadline_ms",
        arg,
        default.unwrap_or(DEFAULT_DEADLINE_MS),
        MIN_DEADLINE_MS,
        MAX_DEADLINE_MS,
    )
}
