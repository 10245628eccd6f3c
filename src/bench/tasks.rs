//! Task files: loading, validation and selection; path normalization.

use super::args::is_owner_name;
use crate::lang::language_of;
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

/// One line of a task file. Unknown fields (`in_loc274`, `date`, ...) are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Task {
    pub(super) instance_id: String,
    pub(super) repo: String,
    pub(super) base_commit: String,
    pub(super) problem_statement: String,
    pub(super) gold_files: Vec<String>,
    #[serde(default)]
    pub(super) mentions_gold_file: Option<bool>,
    /// Language group (dev-multilang); else taken from the gold files.
    #[serde(default)]
    pub(super) language: Option<String>,
    /// `git-history`, `lite`, `verified`, ...
    #[serde(default)]
    pub(super) sets: Vec<String>,
    /// The change itself (git-history tasks): ground truth for edit recall
    /// only, never shown to the engine.
    #[serde(default)]
    pub(super) commit: Option<String>,
    /// SWE-bench rows: gold file → edited `Class.method` names.
    #[serde(default)]
    pub(super) gold_functions: Option<BTreeMap<String, Vec<String>>>,
    /// Question sets: gold file → the line ranges (1-based, inclusive,
    /// `[start, end]`) a reader must read to answer; when present, edit
    /// recall is measured against these lines instead of a diff or
    /// `gold_functions`.
    #[serde(default)]
    pub(super) gold_lines: Option<BTreeMap<String, Vec<(usize, usize)>>>,
    /// SWE-bench rows that carry it: the gold patch (a unified diff against
    /// `base_commit`); its hunks join the gold functions' lines in the gold
    /// edit. Ground truth only, never shown to the engine.
    #[serde(default)]
    pub(super) patch: Option<String>,
}

impl Task {
    /// The language group the task is reported under: its `language` field,
    /// else the language (by extension) of its first gold file that has one
    /// (dev-python → `python`, dev-rust → `rust`; a `.tsx` file is
    /// TypeScript's, an `.mli` OCaml's), else `unknown`.
    pub(super) fn language_group(&self) -> String {
        self.language.clone().unwrap_or_else(|| {
            self.gold_files
                .iter()
                .find_map(|g| language_of(g))
                .map_or("unknown".to_string(), |l| match l.id {
                    "tsx" => "typescript".to_string(),
                    "ocaml_interface" => "ocaml".to_string(),
                    id => id.to_string(),
                })
        })
    }
}

pub(super) fn load_tasks(files: &[PathBuf]) -> Result<Vec<Task>> {
    let mut tasks = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for file in files {
        let reader = BufReader::new(
            std::fs::File::open(file)
                .with_context(|| format!("cannot open task file {}", file.display()))?,
        );
        for (i, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("cannot read {}", file.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let mut task: Task = serde_json::from_str(&line).with_context(|| {
                format!(
                    "{}:{}: not a task (see bench/README.md for the fields)",
                    file.display(),
                    i + 1
                )
            })?;
            if !is_owner_name(&task.repo) {
                bail!(
                    "{}:{}: repo {:?} is not of the form owner/name",
                    file.display(),
                    i + 1,
                    task.repo
                );
            }
            if !is_commit_id(&task.base_commit) {
                bail!(
                    "{}:{}: base_commit {:?} is not a hex commit id",
                    file.display(),
                    i + 1,
                    task.base_commit
                );
            }
            if let Some(c) = task.commit.as_deref().filter(|c| !is_commit_id(c)) {
                bail!(
                    "{}:{}: commit {c:?} is not a hex commit id",
                    file.display(),
                    i + 1
                );
            }
            if let Some(f) = task.gold_functions.as_mut() {
                *f = std::mem::take(f)
                    .into_iter()
                    .map(|(path, names)| (normalize_path(&path), names))
                    .collect();
            }
            task.gold_files = dedup_paths(task.gold_files.iter().map(|p| normalize_path(p)));
            if let Some(lines) = task.gold_lines.as_mut() {
                *lines = std::mem::take(lines)
                    .into_iter()
                    .map(|(path, ranges)| (normalize_path(&path), ranges))
                    .collect();
                check_gold_lines(lines, &task.gold_files)
                    .with_context(|| format!("{}:{}: bad gold_lines", file.display(), i + 1))?;
            }
            // Instance ids name tasks in the report; a second copy would
            // count twice, and dropping it without a word hid a task the
            // file meant to run (probe of session 37).
            if let Some(first) = seen.get(&task.instance_id) {
                bail!(
                    "{}:{}: instance_id {:?} is already the id of the task at {first}; \
                     give each task its own id (and name each task file once in --tasks)",
                    file.display(),
                    i + 1,
                    task.instance_id
                );
            }
            seen.insert(
                task.instance_id.clone(),
                format!("{}:{}", file.display(), i + 1),
            );
            tasks.push(task);
        }
    }
    Ok(tasks)
}

/// `gold_lines` must name gold files only, with ranges `[start, end]`,
/// 1 ≤ start ≤ end.
fn check_gold_lines(
    lines: &BTreeMap<String, Vec<(usize, usize)>>,
    gold_files: &[String],
) -> Result<()> {
    for (path, ranges) in lines {
        if !gold_files.contains(path) {
            bail!("{path:?} is not one of gold_files; list it there too");
        }
        if let Some((s, e)) = ranges.iter().find(|(s, e)| *s == 0 || s > e) {
            bail!("{path}: range [{s}, {e}] is not 1-based [start, end] with start <= end");
        }
    }
    Ok(())
}

pub(super) fn select_tasks(
    tasks: Vec<Task>,
    filter: Option<&str>,
    limit: Option<usize>,
) -> Vec<Task> {
    tasks
        .into_iter()
        .filter(|t| filter.is_none_or(|f| t.instance_id.contains(f)))
        .take(limit.unwrap_or(usize::MAX))
        .collect()
}

/// Commit ids go on a git command line and into a directory name: hex only.
pub(super) fn is_commit_id(s: &str) -> bool {
    (7..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Paths are compared `/`-separated and relative: `./a\b.py` → `a/b.py`.
pub(super) fn normalize_path(p: &str) -> String {
    let p = p.replace('\\', "/");
    let mut p = p.as_str();
    loop {
        if let Some(rest) = p.strip_prefix("./") {
            p = rest;
        } else if let Some(rest) = p.strip_prefix('/') {
            p = rest;
        } else {
            break;
        }
    }
    p.to_string()
}

pub(super) fn dedup_paths(paths: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| !p.is_empty() && seen.insert(p.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_lines_must_name_gold_files_with_one_based_ordered_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let load = |gold_lines: &str| {
            let file = dir.path().join("q.jsonl");
            std::fs::write(
                &file,
                format!(
                    r#"{{"instance_id":"q1","repo":"o/n","base_commit":"abcdef1","problem_statement":"how?","gold_files":["a.rs"],"gold_lines":{gold_lines}}}"#
                ),
            )
            .unwrap();
            load_tasks(&[file]).map_err(|e| format!("{e:#}"))
        };
        let ok = load(r#"{"./a.rs":[[1,2]]}"#).unwrap();
        assert_eq!(ok[0].gold_lines.as_ref().unwrap()["a.rs"], vec![(1, 2)]);
        let err = load(r#"{"b.rs":[[1,2]]}"#).unwrap_err();
        assert!(
            err.contains("q.jsonl:1: bad gold_lines")
                && err.contains("\"b.rs\" is not one of gold_files"),
            "{err}"
        );
        let err = load(r#"{"a.rs":[[0,2]]}"#).unwrap_err();
        assert!(err.contains("range [0, 2] is not 1-based"), "{err}");
        let err = load(r#"{"a.rs":[[5,2]]}"#).unwrap_err();
        assert!(err.contains("range [5, 2]"), "{err}");
    }

    #[test]
    fn a_repeated_instance_id_is_an_error_naming_both_lines() {
        // It was dropped without a word: the report said 1/1 tasks.
        let dir = tempfile::tempdir().unwrap();
        let line = |id: &str| {
            format!(
                r#"{{"instance_id":"{id}","repo":"o/n","base_commit":"abcdef1","problem_statement":"how?","gold_files":["a.rs"]}}"#
            )
        };
        let file = dir.path().join("t.jsonl");
        std::fs::write(&file, [line("a"), line("b"), line("a")].join("\n")).unwrap();
        let err = format!("{:#}", load_tasks(std::slice::from_ref(&file)).unwrap_err());
        assert!(
            err.contains("t.jsonl:3: instance_id \"a\" is already the id of the task at")
                && err.contains("t.jsonl:1"),
            "{err}"
        );
        // The same file named twice is the same mistake.
        std::fs::write(&file, line("a")).unwrap();
        assert!(load_tasks(&[file.clone(), file.clone()]).is_err());
        assert_eq!(load_tasks(&[file]).unwrap().len(), 1);
    }

    #[test]
    fn paths_are_normalized_to_relative_slash_form() {
        assert_eq!(normalize_path("./src\\lib.rs"), "src/lib.rs");
        assert_eq!(normalize_path("/a/b.py"), "a/b.py");
        assert_eq!(normalize_path("a/b.py"), "a/b.py");
    }

    #[test]
    fn language_group_is_the_field_or_the_gold_files_language() {
        let task = |language: Option<&str>, gold: &[&str]| Task {
            language: language.map(String::from),
            gold_files: gold.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        assert_eq!(task(Some("cpp"), &["a.h"]).language_group(), "cpp");
        assert_eq!(
            task(None, &["README.md", "sympy/core/basic.py"]).language_group(),
            "python"
        );
        assert_eq!(
            task(None, &["crates/core/main.rs"]).language_group(),
            "rust"
        );
        assert_eq!(
            task(None, &["src/dune_rules/rule.mli"]).language_group(),
            "ocaml"
        );
        assert_eq!(task(None, &["Makefile"]).language_group(), "unknown");
    }
}
