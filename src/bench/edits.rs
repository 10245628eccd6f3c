//! The gold edit: the lines of the gold files a task's fix changed, on the
//! base tree's side, for edit recall@budget (issue 13).
//!
//! - Git-history tasks (`commit`, or an instance id ending in the commit's
//!   hex prefix in a `git-history` set): the old-side lines of
//!   `git diff -U0 base_commit commit` in the gold files; a pure insertion
//!   counts as the line it follows (line 1 for an insertion at the top).
//! - Question tasks (`gold_lines`, file → `[start, end]` ranges): those
//!   lines, as written; they take precedence over the two below.
//! - SWE-bench tasks (`gold_functions`, file → `Class.method`): each
//!   function's line span in the base tree, found with the engine's own
//!   tree-sitter definitions.
//!
//! This is the bench's ground truth only: the engine is handed the base tree
//! and the task text, never `commit` nor anything derived from it.

use super::tasks::Task;
use crate::lang::{language_of, symbols};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Lines by gold file (1-based, base-tree side).
pub(super) type EditLines = BTreeMap<String, BTreeSet<usize>>;

/// A task's gold edit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(super) struct GoldEdit {
    /// `gold-lines`, `git-diff` or `gold-functions`.
    pub(super) source: &'static str,
    #[serde(skip)]
    pub(super) lines: EditLines,
    /// Number of lines in `lines`.
    pub(super) line_count: usize,
    /// `gold_functions` entries no definition in the base tree matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) unlocated: Vec<String>,
}

impl GoldEdit {
    fn new(source: &'static str, lines: EditLines, unlocated: Vec<String>) -> Self {
        let line_count = lines.values().map(BTreeSet::len).sum();
        GoldEdit {
            source,
            lines,
            line_count,
            unlocated,
        }
    }
}

/// The gold edit of `task`, or `None` when the task has no `gold_lines`, no
/// change commit and no `gold_functions`.
pub(super) fn gold_edit(task: &Task, git_dir: &Path, tree: &Path) -> Result<Option<GoldEdit>> {
    if let Some(ranges) = &task.gold_lines {
        return Ok(Some(GoldEdit::new(
            "gold-lines",
            range_lines(ranges),
            Vec::new(),
        )));
    }
    if let Some(functions) = &task.gold_functions {
        let mut lines = EditLines::new();
        let mut unlocated = Vec::new();
        for (file, names) in functions {
            let text = std::fs::read_to_string(tree.join(file)).unwrap_or_default();
            let (found, missing) = function_lines(file, &text, names);
            if !found.is_empty() {
                lines.entry(file.clone()).or_default().extend(found);
            }
            unlocated.extend(missing.into_iter().map(|n| format!("{file}:{n}")));
        }
        if let Some(patch) = &task.patch {
            add_patch_lines(&mut lines, patch, &task.gold_files);
        }
        return Ok(Some(GoldEdit::new("gold-functions", lines, unlocated)));
    }
    let Some(commit) = change_commit(task, git_dir)? else {
        return Ok(None);
    };
    let lines = diff_lines(git_dir, &task.base_commit, &commit, &task.gold_files)?;
    Ok(Some(GoldEdit::new("git-diff", lines, Vec::new())))
}

/// The lines of inclusive `[start, end]` ranges by file; a file without
/// ranges is left out.
pub(super) fn range_lines(ranges: &BTreeMap<String, Vec<(usize, usize)>>) -> EditLines {
    ranges
        .iter()
        .filter(|(_, r)| !r.is_empty())
        .map(|(file, r)| (file.clone(), r.iter().flat_map(|&(s, e)| s..=e).collect()))
        .collect()
}

/// The commit of a git-history task: its `commit` field, or the hex suffix of
/// an instance id like `BurntSushi__ripgrep-020687a77d13` (dev-rust), resolved
/// in `git_dir`.
fn change_commit(task: &Task, git_dir: &Path) -> Result<Option<String>> {
    if let Some(c) = &task.commit {
        return Ok(Some(c.clone()));
    }
    if !task.sets.iter().any(|s| s == "git-history") {
        return Ok(None);
    }
    let Some((_, suffix)) = task.instance_id.rsplit_once('-') else {
        return Ok(None);
    };
    if suffix.len() < 7 || !suffix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let out = git(
        git_dir,
        &["rev-parse", "--verify", &format!("{suffix}^{{commit}}")],
    )?;
    Ok(Some(out.trim().to_string()))
}

fn git(git_dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(args)
        .output()
        .context("cannot run git (is it installed?)")?;
    if !out.status.success() {
        bail!(
            "git --git-dir {} {} failed: {}",
            git_dir.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn diff_lines(git_dir: &Path, base: &str, commit: &str, files: &[String]) -> Result<EditLines> {
    let mut args = vec![
        "diff",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--no-renames",
        base,
        commit,
        "--",
    ];
    args.extend(files.iter().map(String::as_str));
    let diff = git(git_dir, &args)?;
    Ok(parse_diff_u0(&diff))
}

/// Old-side changed lines per file of a `git diff -U0`. A hunk `-a,b` with
/// b > 0 changes lines a..a+b-1; a pure insertion (`-a,0`) counts as line a,
/// the line it follows (line 1 when inserting at the top, a = 0).
pub(super) fn parse_diff_u0(diff: &str) -> EditLines {
    let mut out = EditLines::new();
    let mut file: Option<String> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("--- ") {
            file = path
                .strip_prefix("a/")
                .map(|p| p.trim_end_matches('\t').to_string());
        } else if let Some(hunk) = line.strip_prefix("@@ -") {
            let (Some(f), Some(old)) = (&file, hunk.split_whitespace().next()) else {
                continue;
            };
            let (start, count) = match old.split_once(',') {
                Some((s, c)) => (s.parse().unwrap_or(0), c.parse().unwrap_or(1)),
                None => (old.parse().unwrap_or(0), 1),
            };
            let set = out.entry(f.clone()).or_default();
            if count == 0 {
                set.insert(start.max(1));
            } else {
                set.extend(start..start + count);
            }
        }
    }
    out
}

/// Adds the old-side lines of a gold patch's hunks in the gold files
/// (SWE-bench rows with a `patch`) to `lines`: a change outside every gold
/// function (an import, a module constant) is part of the edit too.
fn add_patch_lines(lines: &mut EditLines, patch: &str, gold_files: &[String]) {
    for (file, changed) in parse_diff_u0(patch) {
        if gold_files.contains(&file) {
            lines.entry(file).or_default().extend(changed);
        }
    }
}

/// The lines of the definitions `names` (`func`, `Class.method`,
/// `Outer.Inner.method`) in `text`, found with the language's tree-sitter
/// definitions: the last part is the definition's name, the part before it
/// (when given) its enclosing definition. Returns the lines and the names
/// nothing matched.
pub(super) fn function_lines(
    path: &str,
    text: &str,
    names: &[String],
) -> (BTreeSet<usize>, Vec<String>) {
    let mut lines = BTreeSet::new();
    let mut missing = Vec::new();
    let defs = language_of(path)
        .map(|spec| symbols(spec, text).definitions)
        .unwrap_or_default();
    for full in names {
        let mut parts = full.rsplit('.');
        let name = parts.next().unwrap_or(full);
        let parent = parts.next();
        let mut found = false;
        for d in defs.iter().filter(|d| d.name == name) {
            if parent.is_none() || d.parent.as_deref() == parent {
                lines.extend(d.start_line..=d.end_line);
                found = true;
            }
        }
        if !found {
            missing.push(full.clone());
        }
    }
    (lines, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_tasks_measure_against_their_gold_lines_not_a_diff() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("q.jsonl");
        // A question row that also looks like a git-history task: its
        // gold_lines decide, and no git directory is consulted.
        std::fs::write(
            &file,
            r#"{"instance_id":"o__n-abcdef1234","repo":"o/n","base_commit":"abcdef1","problem_statement":"where is X?","gold_files":["./src/a.rs","b.py"],"gold_lines":{"./src/a.rs":[[3,5],[4,6],[10,10]],"b.py":[]},"sets":["git-history"],"kind":"where"}"#,
        )
        .unwrap();
        let tasks = crate::bench::tasks::load_tasks(&[file]).unwrap();
        let missing = dir.path().join("no-git-dir");
        let edit = gold_edit(&tasks[0], &missing, dir.path())
            .unwrap()
            .expect("a task with gold_lines has a gold edit");
        assert_eq!(edit.source, "gold-lines");
        assert_eq!(
            edit.lines["src/a.rs"].iter().copied().collect::<Vec<_>>(),
            vec![3, 4, 5, 6, 10]
        );
        // A gold file without ranges adds no lines.
        assert!(!edit.lines.contains_key("b.py"));
        assert_eq!(edit.line_count, 5);
    }

    #[test]
    fn diff_u0_gives_old_side_lines_and_insertions_count_as_the_line_they_follow() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n\
index 1..2 100644\n\
--- a/src/a.rs\n\
+++ b/src/a.rs\n\
@@ -3,2 +3,3 @@ fn x() {\n\
-a\n-b\n+a\n+b\n+c\n\
@@ -10,0 +12,4 @@\n\
+new\n\
@@ -20 +25 @@\n\
-x\n+y\n\
diff --git a/top.py b/top.py\n\
--- a/top.py\n\
+++ b/top.py\n\
@@ -0,0 +1,2 @@\n\
+import os\n\
diff --git a/new.py b/new.py\n\
new file mode 100644\n\
--- /dev/null\n\
+++ b/new.py\n\
@@ -0,0 +1 @@\n\
+x\n";
        let lines = parse_diff_u0(diff);
        let of = |f: &str| lines[f].iter().copied().collect::<Vec<_>>();
        assert_eq!(of("src/a.rs"), vec![3, 4, 10, 20]);
        assert_eq!(of("top.py"), vec![1]);
        // A file that did not exist at the base has no old-side lines.
        assert!(!lines.contains_key("new.py"));
    }

    #[test]
    fn a_swe_bench_rows_patch_hunks_join_its_gold_functions() {
        let dir = std::env::temp_dir().join(format!("ctxloop-edits-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        let text = "import os\n\ndef helper(x):\n    return x\n\nLIMIT = 3\n";
        std::fs::write(dir.join("pkg/m.py"), text).unwrap();
        let task = Task {
            gold_files: vec!["pkg/m.py".into()],
            gold_functions: Some(BTreeMap::from([(
                "pkg/m.py".to_string(),
                vec!["helper".to_string()],
            )])),
            patch: Some(
                "diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n\
@@ -1 +1,2 @@\n-import os\n+import os\n+import re\n\
@@ -6 +7 @@\n-LIMIT = 3\n+LIMIT = 4\n\
diff --git a/tests/t.py b/tests/t.py\n--- a/tests/t.py\n+++ b/tests/t.py\n@@ -2 +2 @@\n-a\n+b\n"
                    .into(),
            ),
            ..Task::default()
        };
        let edit = gold_edit(&task, &dir, &dir).unwrap().unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let lines: Vec<usize> = edit.lines["pkg/m.py"].iter().copied().collect();
        // helper (3-4), the import hunk (1) and the constant (6); the test
        // file is no gold file.
        assert_eq!(lines, vec![1, 3, 4, 6]);
        assert_eq!(edit.lines.len(), 1);
        assert_eq!(edit.line_count, 4);
    }

    #[test]
    fn gold_functions_are_located_by_name_and_enclosing_class() {
        let text = concat!(
            "import os\n",
            "\n",
            "def helper(x):\n",
            "    return x\n",
            "\n",
            "class Mapping:\n",
            "    def lookup(self, key):\n",
            "        v = self.table[key]\n",
            "        return v\n",
            "\n",
            "class Other:\n",
            "    def lookup(self):\n",
            "        pass\n",
        );
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (lines, missing) = function_lines(
            "pkg/m.py",
            text,
            &names(&["Mapping.lookup", "helper", "Mapping.absent"]),
        );
        assert_eq!(lines.into_iter().collect::<Vec<_>>(), vec![3, 4, 7, 8, 9]);
        assert_eq!(missing, vec!["Mapping.absent".to_string()]);
        // Without a class, every definition of the name counts.
        let (lines, _) = function_lines("pkg/m.py", text, &names(&["lookup"]));
        assert_eq!(lines.into_iter().collect::<Vec<_>>(), vec![7, 8, 9, 12, 13]);
    }
}
