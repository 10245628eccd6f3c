//! The plain whole-file BM25 baseline.

use super::source::is_source_path;
use super::tasks::normalize_path;
use bm25::{Embedder, EmbedderBuilder, Embedding, Scorer, Tokenizer};
use std::collections::HashSet;
use std::path::Path;

/// Tokenizer of the BM25 baseline: lowercased maximal runs of alphanumeric
/// characters and `_` (so `snake_case` identifiers stay whole, as in Lucene's
/// standard tokenizer), no stopwords, no stemming, no identifier splitting.
/// The `bm25` crate's own tokenizer would stem and drop English stopwords; it is
/// compiled out (`default-features = false`) so that the baseline is the plain
/// whole-file BM25 that published numbers use.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlainTokenizer;

impl Tokenizer for PlainTokenizer {
    fn tokenize(&self, text: &str) -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect()
    }
}

/// Files larger than this are not indexed (the engine's limit too).
pub(super) const MAX_FILE_BYTES: u64 = 1 << 20;
/// A NUL byte in this prefix marks a binary file.
pub(super) const BINARY_PROBE_BYTES: usize = 8 << 10;
/// BM25 parameters: the usual defaults (Robertson; Lucene, Pyserini, rank_bm25).
pub(super) const BM25_K1: f32 = 1.2;
pub(super) const BM25_B: f32 = 0.75;

/// Which files a BM25 index ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Bm25Files {
    /// Every text file (with extensions given, only files with one of them).
    All { extensions: Vec<String> },
    /// Non-test source files only ([`is_source_path`]).
    Source,
}

impl Bm25Files {
    fn keeps(&self, rel: &str) -> bool {
        match self {
            Bm25Files::All { extensions } => {
                let ext = Path::new(rel)
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("");
                extensions.is_empty() || extensions.iter().any(|e| e.trim_start_matches('.') == ext)
            }
            Bm25Files::Source => is_source_path(rel),
        }
    }
}

/// Whole-file BM25 over one tree, built with the `bm25` crate (`Embedder` for
/// the term weights, `Scorer` for IDF and ranking), k1 = 1.2, b = 0.75,
/// [`PlainTokenizer`], query = the problem statement (repeated query terms count
/// once per occurrence, as in the crate and in Lucene).
pub(super) struct Bm25Index {
    pub(super) embedder: Embedder<u64, PlainTokenizer>,
    pub(super) scorer: Scorer<u32, u64>,
    /// Document id → path, sorted, so ties break by path.
    pub(super) paths: Vec<String>,
}

impl Bm25Index {
    /// Indexes the files the `ignore` walker yields under `root`: `.gitignore`
    /// and `.ignore` of the tree honoured (without needing a `.git`), hidden
    /// files skipped, binary files and files over 1 MiB skipped.
    /// Only files `files` keeps are indexed.
    pub(super) fn build(root: &Path, files: &Bm25Files) -> Self {
        let mut docs: Vec<(String, String)> = Vec::new();
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .ignore(true)
            .require_git(false)
            // The tree's own ignore files only: not those of the directory the
            // cache lives in, nor the user's global excludes.
            .parents(false)
            .git_global(false)
            .git_exclude(false)
            .follow_links(false)
            .build();
        for entry in walker.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = normalize_path(&rel.to_string_lossy());
            if !files.keeps(&rel) {
                continue;
            }
            if entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            let Ok(bytes) = std::fs::read(entry.path()) else {
                continue;
            };
            if bytes[..bytes.len().min(BINARY_PROBE_BYTES)].contains(&0) {
                continue;
            }
            docs.push((rel, String::from_utf8_lossy(&bytes).into_owned()));
        }
        docs.sort_by(|a, b| a.0.cmp(&b.0));

        let corpus: Vec<&str> = docs.iter().map(|(_, text)| text.as_str()).collect();
        let embedder = EmbedderBuilder::<u64, PlainTokenizer>::with_tokenizer_and_fit_to_corpus(
            PlainTokenizer,
            &corpus,
        )
        .k1(BM25_K1)
        .b(BM25_B)
        .build();
        let mut scorer = Scorer::<u32, u64>::new();
        for (id, text) in corpus.iter().enumerate() {
            scorer.upsert(&(id as u32), distinct_tokens(embedder.embed(text)));
        }
        let paths = docs.into_iter().map(|(path, _)| path).collect();
        Bm25Index {
            embedder,
            scorer,
            paths,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.paths.len()
    }

    /// The `depth` best files for `query`, best first; ties by path.
    pub(super) fn search(&self, query: &str, depth: usize) -> Vec<String> {
        let query = self.embedder.embed(query);
        let mut matches = self.scorer.matches(&query);
        matches.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        matches
            .into_iter()
            .take(depth)
            .map(|m| self.paths[m.id as usize].clone())
            .collect()
    }
}

/// The crate's document embedding holds one entry per token *occurrence*, all
/// with the same weight, and its scorer looks a query term up with a linear
/// scan of that list. Keeping the first entry of each token leaves every score
/// unchanged (same weight found; IDF counts documents) and makes a whole-file
/// index of sympy searchable in well under a second.
pub(super) fn distinct_tokens(embedding: Embedding<u64>) -> Embedding<u64> {
    let mut seen = HashSet::new();
    Embedding(
        embedding
            .0
            .into_iter()
            .filter(|t| seen.insert(t.index))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plain_tokenizer_keeps_identifiers_whole_and_lowercases() {
        assert_eq!(
            PlainTokenizer.tokenize("Fix SessionManager.get_token() in auth/session.py!"),
            paths(&[
                "fix",
                "sessionmanager",
                "get_token",
                "in",
                "auth",
                "session",
                "py"
            ])
        );
    }

    #[test]
    fn bm25_ranks_the_matching_file_first_and_skips_binary_and_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/token.py"),
            "def refresh_token(expiry):\n    return expiry_check(expiry)\n",
        )
        .unwrap();
        std::fs::write(root.join("src/other.py"), "def unrelated():\n    pass\n").unwrap();
        std::fs::write(root.join("src/blob.bin"), b"refresh_token\0\0").unwrap();
        std::fs::write(root.join(".hidden.py"), "refresh_token expiry").unwrap();
        std::fs::write(root.join(".gitignore"), "ignored.py\n").unwrap();
        std::fs::write(root.join("ignored.py"), "refresh_token expiry").unwrap();
        let all = |extensions: &[&str]| Bm25Files::All {
            extensions: paths(extensions),
        };
        let index = Bm25Index::build(root, &all(&[]));
        assert_eq!(Bm25Index::build(root, &all(&["md"])).len(), 0);
        assert_eq!(index.paths, paths(&["src/other.py", "src/token.py"]));
        assert_eq!(
            index.search("The refresh_token expiry is wrong", 10),
            paths(&["src/token.py"])
        );
    }

    #[test]
    fn source_only_bm25_ranks_no_test_or_doc_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("pkg/token.py", "def refresh_token(expiry): pass"),
            (
                "tests/test_token.py",
                "refresh_token expiry refresh_token expiry",
            ),
            ("docs/token.md", "refresh_token expiry refresh_token expiry"),
            ("pkg/token_test.go", "refresh_token expiry"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        let all = Bm25Index::build(root, &Bm25Files::All { extensions: vec![] });
        assert_eq!(all.len(), 4);
        let src = Bm25Index::build(root, &Bm25Files::Source);
        assert_eq!(src.paths, paths(&["pkg/token.py"]));
        assert_eq!(
            src.search("refresh_token expiry", 10),
            paths(&["pkg/token.py"])
        );
    }

    #[test]
    fn distinct_tokens_do_not_change_bm25_scores() {
        let docs = ["a a a b c", "a d d e", "b b f g h i"];
        let embedder = EmbedderBuilder::<u64, PlainTokenizer>::with_tokenizer_and_fit_to_corpus(
            PlainTokenizer,
            &docs,
        )
        .build();
        let mut full = Scorer::<u32, u64>::new();
        let mut distinct = Scorer::<u32, u64>::new();
        for (i, d) in docs.iter().enumerate() {
            full.upsert(&(i as u32), embedder.embed(d));
            distinct.upsert(&(i as u32), distinct_tokens(embedder.embed(d)));
        }
        let q = embedder.embed("a b d d");
        for i in 0..docs.len() as u32 {
            assert_eq!(full.score(&i, &q), distinct.score(&i, &q));
        }
    }
}
