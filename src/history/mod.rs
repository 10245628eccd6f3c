//! The repository's own history as evidence: past commits whose messages
//! resemble the task point at the files they changed (BugLocator's
//! similar-report score, Zhou, Zhang & Lo, ICSE 2012), and files that changed
//! together are candidates for multi-file fixes ([`RepoHistory::co_changed`]).
//!
//! One `git log` per commit id: history is immutable, so a [`RepoHistory`]
//! keyed by the commit it starts from is never stale (a new `HEAD` is a new
//! key and a new log). [`HistoryCache`] keeps the last few; with the
//! persistent cache (`--cache-dir`) the log's output is also kept on disk
//! per commit, so a later process on the same `HEAD` runs no `git log`
//! (`src/cache/history.rs`).
//!
//! Bounds, and why:
//! - the last [`MAX_COMMITS`] (5,000) non-merge commits: on sympy (25k
//!   commits) reading them takes about 1 s cold and 0.2 s CPU on a loaded
//!   2-core machine, and older reports say less about today's layout
//!   (files moved, renamed, deleted);
//! - commits that touch more than [`MAX_FILES_PER_COMMIT`] (50) files are
//!   skipped: mass reformatting, renames, licence headers and vendoring say
//!   nothing about where a fix goes, and a commit's evidence is shared out
//!   over its files anyway (1/50 each at most);
//! - [`MAX_MESSAGE_BYTES`] of each message and [`MAX_LOG_BYTES`] of log in all.
//!
//! Where the log comes from, how `git` is run for it (hardened) and the
//! cache of histories read ([`HistorySource`], [`HistoryCache`]): `src/history/git.rs`.
//!
//! Trust: paths come back as the history records them, relative to the root;
//! they may name files the walk does not admit (hidden, ignored, deleted).
//! Every function that returns paths takes the walk's admission test, and
//! commit messages are never returned (only short commit ids and counts).

use crate::query::{is_stopword, term_hash, TaskQuery};
use rustc_hash::FxHashMap;

mod git;
pub(crate) use git::run_checked;
pub use git::{HistoryCache, HistorySource, LazyHistory};

/// Non-merge commits read, newest first (see the module doc).
pub const MAX_COMMITS: usize = 5_000;
/// Commits changing more files than this are skipped (see the module doc).
pub const MAX_FILES_PER_COMMIT: usize = 50;
/// Bytes of each commit message indexed.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024;
/// Bytes of `git log` output read at most; the rest is left unread.
pub const MAX_LOG_BYTES: usize = 64 * 1024 * 1024;
/// Commits, most similar first, whose files a query's score counts: the long
/// tail of commits sharing one common word with the task made files that
/// change with every commit (`CHANGELOG.md`, `Cargo.lock`, the main module)
/// the best-scored (dev-rust, ripgrep: a changelog ranked first).
pub const MAX_SIMILAR: usize = 30;
/// Histories a [`HistoryCache`] keeps (one per repository and commit).
pub const CACHED_HISTORIES: usize = 8;

/// One past commit, as evidence.
#[derive(Debug, Clone)]
struct Commit {
    /// The full commit id.
    id: String,
    /// Indices into [`RepoHistory::paths`].
    files: Vec<u32>,
    /// (term hash, 1 + ln tf) of its message, stopwords dropped.
    terms: Vec<(u64, f32)>,
}

/// The bounded history of one repository up to one commit.
#[derive(Debug, Default)]
pub struct RepoHistory {
    /// The commit the log starts from.
    pub head: String,
    /// Paths changed, relative to the root, `/`-separated.
    paths: Vec<String>,
    path_ids: FxHashMap<String, u32>,
    commits: Vec<Commit>,
    /// Commit indices by path id.
    by_path: Vec<Vec<u32>>,
    /// Term hash → (commit index, weight): the messages' inverted index.
    postings: FxHashMap<u64, Vec<(u32, f32)>>,
    /// Per commit, the Euclidean norm of its tf-idf vector.
    norms: Vec<f32>,
    /// Milliseconds the log took to read and index.
    pub load_ms: u64,
}

/// A file's similar-report evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct PastFixes {
    /// The file, relative to the root.
    pub path: String,
    /// Σ over similar commits that changed it of cosine similarity / files changed.
    pub score: f64,
    /// Similar commits that changed it.
    pub commits: usize,
    /// The most similar of them, as a 7-character id.
    pub best: String,
}

impl RepoHistory {
    /// Indexes `git log` output in the format `log_args` asks for; paths
    /// outside `prefix` (the root's place in the work tree, `""` or ending
    /// in `/`) are dropped, the others made relative to the root.
    pub fn parse(head: &str, log: &str, prefix: &str) -> RepoHistory {
        let mut h = RepoHistory {
            head: head.to_string(),
            ..Default::default()
        };
        for record in log.split('\x1e').skip(1) {
            let mut parts = record.splitn(3, '\x1f');
            let (Some(id), Some(msg), Some(names)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let names: Vec<&str> = names.lines().filter(|l| !l.is_empty()).collect();
            if names.is_empty() || names.len() > MAX_FILES_PER_COMMIT {
                continue;
            }
            let mut files: Vec<u32> = names
                .iter()
                // A quoted name holds a byte git would escape: dropped.
                .filter(|n| !n.starts_with('"'))
                .filter_map(|n| n.strip_prefix(prefix))
                .map(|rel| h.intern(rel))
                .collect();
            files.sort_unstable();
            files.dedup();
            if files.is_empty() {
                continue;
            }
            let mut tf: FxHashMap<u64, u32> = FxHashMap::default();
            crate::query::for_each_term(clip(msg, MAX_MESSAGE_BYTES), |t| {
                if t.len() >= 2 && !is_stopword(t) {
                    *tf.entry(term_hash(t)).or_default() += 1;
                }
            });
            let c = h.commits.len() as u32;
            for &f in &files {
                h.by_path[f as usize].push(c);
            }
            let terms: Vec<(u64, f32)> = tf
                .into_iter()
                .map(|(t, n)| (t, 1.0 + (n as f32).ln()))
                .collect();
            for &(t, w) in &terms {
                h.postings.entry(t).or_default().push((c, w));
            }
            h.commits.push(Commit {
                id: id.trim().to_string(),
                files,
                terms,
            });
        }
        let n = h.commits.len() as f32;
        h.norms = h
            .commits
            .iter()
            .map(|c| {
                c.terms
                    .iter()
                    .map(|(t, w)| {
                        let idf = idf(n, h.postings[t].len());
                        (w * idf).powi(2)
                    })
                    .sum::<f32>()
                    .sqrt()
            })
            .collect();
        h
    }

    fn intern(&mut self, rel: &str) -> u32 {
        if let Some(&i) = self.path_ids.get(rel) {
            return i;
        }
        let i = self.paths.len() as u32;
        self.paths.push(rel.to_string());
        self.path_ids.insert(rel.to_string(), i);
        self.by_path.push(Vec::new());
        i
    }

    /// Commits indexed (after the bounds).
    pub fn len(&self) -> usize {
        self.commits.len()
    }

    /// Whether no commit was indexed.
    pub fn is_empty(&self) -> bool {
        self.commits.is_empty()
    }

    /// BugLocator's similar-report score of each file `admitted` lets
    /// through: for each of the [`MAX_SIMILAR`] past commits whose messages
    /// are most similar to the query, its cosine similarity to the query (tf-idf over the commit
    /// messages; the query's term weights as its tf) divided by the number of
    /// files the commit changed, summed per file. Best first; files with no
    /// similar commit are absent. Paths `admitted` refuses (not in the walk's
    /// set) are dropped.
    pub fn past_fixes(&self, q: &TaskQuery, admitted: impl Fn(&str) -> bool) -> Vec<PastFixes> {
        let n = self.commits.len() as f32;
        let mut dot: FxHashMap<u32, f32> = FxHashMap::default();
        let mut qnorm = 0.0f32;
        // Alternative terms (stems, compounds) are not the task's words.
        for term in q.terms.iter().filter(|t| !t.alternative) {
            let Some(post) = self.postings.get(&term.hash) else {
                continue;
            };
            let idf = idf(n, post.len());
            let qw = term.weight as f32 * idf;
            qnorm += qw * qw;
            for &(c, w) in post {
                *dot.entry(c).or_default() += qw * w * idf;
            }
        }
        if qnorm == 0.0 {
            return Vec::new();
        }
        let qnorm = qnorm.sqrt();
        let mut sims: Vec<(u32, f32)> = dot
            .into_iter()
            .filter(|&(c, _)| self.norms[c as usize] > 0.0)
            .map(|(c, d)| (c, d / (qnorm * self.norms[c as usize])))
            .collect();
        sims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        sims.truncate(MAX_SIMILAR);
        let mut by_file: FxHashMap<u32, (f64, usize, u32, f32)> = FxHashMap::default();
        for (c, sim) in sims {
            let files = &self.commits[c as usize].files;
            let share = f64::from(sim) / files.len() as f64;
            for &f in files {
                let e = by_file.entry(f).or_insert((0.0, 0, c, 0.0));
                e.0 += share;
                e.1 += 1;
                if sim > e.3 {
                    e.2 = c;
                    e.3 = sim;
                }
            }
        }
        let mut out: Vec<PastFixes> = by_file
            .into_iter()
            .map(|(f, (score, commits, best, _))| (&self.paths[f as usize], score, commits, best))
            .filter(|(p, ..)| admitted(p))
            .map(|(p, score, commits, best)| PastFixes {
                path: p.clone(),
                score,
                commits,
                best: short(&self.commits[best as usize].id),
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
        out
    }

    /// Commits (within the bounds) that changed `path`; 0 when none did.
    pub fn changes(&self, path: &str) -> usize {
        self.path_ids
            .get(path)
            .map_or(0, |&id| self.by_path[id as usize].len())
    }

    /// Files that changed in the same commits as `path` (within the bounds),
    /// with how many commits they shared, most first (ties by path); only
    /// those `admitted` lets through (the walk's set: never a hidden,
    /// ignored or deleted file). Empty when the history never changed `path`.
    pub fn co_changed(&self, path: &str, admitted: impl Fn(&str) -> bool) -> Vec<(String, usize)> {
        let Some(&id) = self.path_ids.get(path) else {
            return Vec::new();
        };
        let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
        for &c in &self.by_path[id as usize] {
            for &f in &self.commits[c as usize].files {
                if f != id {
                    *counts.entry(f).or_default() += 1;
                }
            }
        }
        let mut out: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(f, n)| (self.paths[f as usize].clone(), n))
            .filter(|(p, _)| admitted(p))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Inverse document frequency over commit messages, ln(1 + N / df).
fn idf(n: f32, df: usize) -> f32 {
    (1.0 + n / df.max(1) as f32).ln()
}

/// The first 7 characters of a commit id.
fn short(id: &str) -> String {
    id.chars().take(7).collect()
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(commits: &[(&str, &str, &[&str])]) -> String {
        commits
            .iter()
            .map(|(id, msg, files)| format!("\x1e{id}\x1f{msg}\x1f\n\n{}\n", files.join("\n")))
            .collect()
    }

    #[test]
    fn similar_commits_score_the_files_they_changed_shared_by_their_size() {
        let h = RepoHistory::parse(
            "h",
            &log(&[
                ("a1", "Fix token refresh after expiry", &["auth/token.py"]),
                (
                    "b2",
                    "token expiry in docs",
                    &["docs/a.md", "docs/b.md", "auth/token.py"],
                ),
                ("c3", "Add colour output", &["cli/colour.py"]),
            ]),
            "",
        );
        let q = TaskQuery::new("token refresh fails after expiry", &[]);
        let all = h.past_fixes(&q, |_| true);
        assert_eq!(all[0].path, "auth/token.py");
        assert_eq!(all[0].commits, 2);
        assert_eq!(all[0].best, "a1");
        assert!(all.iter().all(|f| f.path != "cli/colour.py"));
        let docs = all.iter().find(|f| f.path == "docs/a.md").unwrap();
        assert!(docs.score < all[0].score / 2.0, "{all:?}");
        // Not admitted by the walk: never returned.
        let walked = h.past_fixes(&q, |p| !p.starts_with("auth/"));
        assert!(walked.iter().all(|f| f.path != "auth/token.py"));
    }

    #[test]
    fn co_changed_files_count_shared_commits_and_respect_the_walk() {
        let h = RepoHistory::parse(
            "h",
            &log(&[
                ("a1", "x", &["src/a.rs", "src/b.rs", ".env"]),
                ("b2", "y", &["src/a.rs", "src/b.rs", "src/c.rs"]),
                ("c3", "z", &["src/c.rs"]),
            ]),
            "",
        );
        assert_eq!(
            h.co_changed("src/a.rs", |p| !p.starts_with('.')),
            vec![("src/b.rs".to_string(), 2), ("src/c.rs".to_string(), 1)]
        );
        assert!(h.co_changed("src/none.rs", |_| true).is_empty());
        assert_eq!((h.changes("src/c.rs"), h.changes("src/none.rs")), (2, 0));
    }

    #[test]
    fn large_commits_and_paths_outside_the_root_are_left_out() {
        let many: Vec<String> = (0..=MAX_FILES_PER_COMMIT)
            .map(|i| format!("f{i}.py"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let h = RepoHistory::parse(
            "h",
            &log(&[
                ("a1", "reformat everything", &many),
                ("b2", "fix parser", &["pkg/parse.py", "other/x.py"]),
            ]),
            "pkg/",
        );
        assert_eq!(h.len(), 1);
        assert_eq!(h.paths, vec!["parse.py".to_string()]);
    }
}
