//! BM25 (Robertson & Zaragoza 2009) over the file body, plus path and
//! file-name matches: the lexical pass, and the collection statistics every
//! pass reads. The formula is here and only here.
//!
//! Per query term `t` with weight `w_t`, document frequency `df` among `N`
//! files of mean length `avgdl` (bytes), and `tf` occurrences in a file of
//! length `dl`: `idf = ln(1 + (N - df + 0.5) / (df + 0.5))` and
//! `bm25 = Σ w_t · idf · tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))`.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Evidence, Scored, Weights};
use crate::corpus::{term_counts, Doc};
use crate::query::TaskQuery;
use rayon::prelude::*;

/// The statistics of one scoring call: which collection BM25's `N` and mean
/// length come from ([`Weights::idf_scope`]), each query term's IDF, and the
/// term-count matrix.
#[derive(Debug, Clone)]
pub struct Bm25Stats {
    /// `N`: files in the collection (at least 1).
    pub n: f64,
    /// Mean length of a file of the collection, in bytes.
    pub avgdl: f64,
    /// IDF of each query term, in the query's term order.
    pub idf: Vec<f64>,
    /// `tf[i][j]`: occurrences of query term `j` in candidate `i`.
    pub tf: Vec<Vec<u32>>,
}

impl Bm25Stats {
    /// Counts the query's terms in every candidate and derives the statistics.
    pub fn new(cands: &[Candidate], q: &TaskQuery, w: &Weights) -> Bm25Stats {
        let docs: Vec<&Doc> = cands.iter().map(|c| &**c.doc).collect();
        let wanted: Vec<(u64, &str)> = q.terms.iter().map(|t| (t.hash, t.text.as_str())).collect();
        // tf[i][j]: occurrences of query term j in candidate i.
        let tf = term_counts(&docs, &wanted);
        // The collection BM25's N and mean length come from: every walked file, or
        // (idf_scope 1) only the files that share a term with the query.
        let in_scope = |i: usize| {
            w.idf_scope <= 0.0
                || tf[i]
                    .iter()
                    .zip(&q.terms)
                    .any(|(&n, t)| n > 0 && !t.alternative)
                || q.terms.iter().any(|t| {
                    !t.alternative && cands[i].doc.path_terms.binary_search(&t.hash).is_ok()
                })
        };
        let (count, total_len) = (0..cands.len())
            .filter(|&i| in_scope(i))
            .fold((0usize, 0f64), |(c, l), i| {
                (c + 1, l + cands[i].doc.len() as f64)
            });
        let n = count.max(1) as f64;
        let avgdl = total_len / n;
        let idf: Vec<f64> = doc_freqs(&tf, q.terms.len())
            .into_iter()
            .map(|df| idf(n, f64::from(df)))
            .collect();
        Bm25Stats { n, avgdl, idf, tf }
    }
}

/// IDF of a term held by `df` of `n` files (never negative).
pub fn idf(n: f64, df: f64) -> f64 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The lexical evidence of candidate `idx`: (BM25 of the body, path and
/// file-name match). With `why`, its evidence is written too (for the files
/// shown only).
pub fn lexical(ctx: &ScoreContext, idx: usize, why: Option<&mut Vec<Evidence>>) -> (f64, f64) {
    let (q, w, st) = (ctx.query, ctx.weights, &ctx.stats);
    let doc = ctx.cands[idx].doc;
    let norm = w.k1 * (1.0 - w.b + w.b * doc.len() as f64 / st.avgdl.max(1.0));
    let (mut bm25, mut path) = (0.0, 0.0);
    let mut hits: Vec<(f64, &str)> = Vec::new();
    let mut path_hits: Vec<&str> = Vec::new();
    let mut coverage: Option<f64> = None;
    for ((t, &idf), &tf) in q.terms.iter().zip(&st.idf).zip(&st.tf[idx]) {
        let tf = f64::from(tf);
        let (body, in_path) = (t.weight * body_weight(t, w), t.weight * path_weight(t, w));
        if tf > 0.0 && body > 0.0 {
            let s = body * idf * tf * (w.k1 + 1.0) / (tf + norm);
            bm25 += s;
            hits.push((s, &t.text));
        }
        if in_path > 0.0 && doc.path_terms.binary_search(&t.hash).is_ok() {
            let stem = if doc.stem_terms.contains(&t.hash) {
                *coverage.get_or_insert_with(|| stem_coverage(ctx.cands[idx].rel, q))
            } else {
                0.0
            };
            path += in_path * idf * (w.path + w.stem * stem);
            path_hits.push(&t.text);
        }
    }
    if let Some(why) = why {
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        if !hits.is_empty() {
            why.push(Evidence::Bm25 {
                score: bm25,
                terms: hits.iter().take(6).map(|h| h.1.to_string()).collect(),
            });
        }
        if !path_hits.is_empty() {
            why.push(Evidence::PathMatch(
                path_hits.iter().map(|t| t.to_string()).collect(),
            ));
        }
    }
    (bm25, path)
}

/// The multiplier of term `t`'s weight in a file's body (BM25, passages):
/// 1 for a word of the task, `Weights::alternate` for a stem, 0 for a
/// compound (it counts in paths only, `Term::compound`).
pub(super) fn body_weight(t: &crate::query::Term, w: &Weights) -> f64 {
    match (t.alternative, t.compound) {
        (false, _) => 1.0,
        (true, true) => 0.0,
        (true, false) if t.subname_of.is_some() => w.subname,
        (true, false) if t.derived => w.derived,
        (true, false) => w.alternate,
    }
}

/// The multiplier of term `t`'s weight in a file's path: as in the body,
/// but `Weights::compound` for a compound and 0 for the title's opening
/// change verb (`Term::action`).
fn path_weight(t: &crate::query::Term, w: &Weights) -> f64 {
    if t.action {
        0.0
    } else if t.compound {
        w.compound
    } else {
        body_weight(t, w)
    }
}

/// Share of the words of `rel`'s file stem that `q`'s terms hold (0 to 1):
/// 1 for `Style.cs` or `style.py` against "style", a third for
/// `IndianScaleStyle.cs`, 1 again when the query names the whole identifier
/// (`IndianScaleStyle`). The stem bonus ([`Weights::stem`]) is for a file
/// *named* by the task; in file-per-class code (Java, C#, PHP, Kotlin) every
/// stem is a class name of several words, and one everyday word of the task
/// ("style", "option", "fix", "response") would otherwise give the full bonus
/// to every class whose name merely holds it. A file that is not code of the
/// language table (docs, config, data: `locale-yaml-schema-reference.mdx`,
/// `release_notes.txt`) is scaled the same way whatever its stem's style: a
/// page title holds many words, and one of them does not name the page.
///
/// A code file's snake_case or kebab-case stem is not scaled: a module name
/// (`default_types.rs`, `trigsimp.py`) is chosen to describe the module, and
/// any of its words is a reading of it (measured: scaling those too moved
/// ripgrep's `ignore/types: add Hurl` from `default_types.rs` to `types.rs`).
pub fn stem_coverage(rel: &str, q: &TaskQuery) -> f64 {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    let stem = file.split('.').next().unwrap_or(file);
    let class_like =
        !stem.contains(['_', '-']) && stem.bytes().skip(1).any(|b| b.is_ascii_uppercase());
    if !class_like && crate::lang::language_of(file).is_some() {
        return 1.0;
    }
    // The title's opening change verb (`Term::action`) names no file: it
    // covers no word of one either (`UpdateRecord.php` against "Update the
    // record …" is half covered, as against "the record").
    let held = |h: &u64| {
        q.terms
            .iter()
            .any(|t| !t.alternative && !t.action && t.hash == *h)
    };
    let (mut words, mut matched) = (0usize, 0usize);
    for (whole, parts) in crate::query::tokenize::name_words(stem) {
        let n = parts.len().max(1);
        words += n;
        // A compound of two task words ("file middleware") names the whole
        // word (`FileMiddleware`) as the word itself would.
        let whole_named = q
            .terms
            .iter()
            .any(|t| t.hash == whole && (!t.alternative || t.compound));
        matched += if whole_named {
            n
        } else {
            parts.iter().filter(|p| held(p)).count()
        };
    }
    if words == 0 {
        return 1.0;
    }
    matched as f64 / words as f64
}

/// The lexical pass: every allowed candidate with BM25 or path evidence
/// enters, best raw score first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lexical;

impl Pass for Lexical {
    fn name(&self) -> &str {
        "lexical"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        let ctx = &*ctx;
        let mut found: Vec<Scored> = ctx
            .cands
            .par_iter()
            .enumerate()
            .filter(|(_, c)| c.allowed)
            .filter_map(|(idx, _)| {
                let (bm25, path) = lexical(ctx, idx, None);
                (bm25 + path > 0.0).then(|| Scored {
                    raw: bm25 + path,
                    lexical: bm25,
                    ..Scored::new(idx)
                })
            })
            .collect();
        scored.append(&mut found);
        scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
    }
}

/// Takes out of `q` the sub-names (`query::Term::subname_of`) whose
/// identifier one of `cands` holds: that identifier is no new name and is
/// found by itself, and its parts (`SubDataFrame`'s `dataframe`) would
/// weigh files, reasons and snippet lines the task does not name. Called on
/// each cycle's query before it is scored (`session::dispatch`), so every
/// later step goes without them. An identifier cut from the query's terms
/// counts as not held.
pub fn forget_held_subnames(q: &mut TaskQuery, cands: &[Candidate]) {
    // Each identifier once: it gives up to two sub-names.
    let mut parents: Vec<(u64, &str)> = q
        .terms
        .iter()
        .filter_map(|t| t.subname_of)
        .filter_map(|of| q.terms.iter().find(|t| t.hash == of))
        .map(|t| (t.hash, t.text.as_str()))
        .collect();
    parents.sort_unstable();
    parents.dedup();
    if parents.is_empty() {
        return;
    }
    let docs: Vec<&Doc> = cands.iter().map(|c| &**c.doc).collect();
    let df = doc_freqs(&term_counts(&docs, &parents), parents.len());
    let held: Vec<u64> = parents
        .iter()
        .zip(&df)
        .filter(|(_, &d)| d > 0)
        .map(|(p, _)| p.0)
        .collect();
    q.forget_held_subnames(|h| held.contains(&h));
}

/// Document frequency of each of `terms` terms, from a [`term_counts`] matrix.
fn doc_freqs(tf: &[Vec<u32>], terms: usize) -> Vec<u32> {
    let mut df = vec![0u32; terms];
    for row in tf {
        for (d, &n) in df.iter_mut().zip(row) {
            *d += u32::from(n > 0);
        }
    }
    df
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::without_extension as without_ext;

    /// Files of `files` ranked for `task`, best first.
    fn ranked(files: &[(&str, &str)], task: &str) -> Vec<String> {
        super::super::test_score(files, task)
            .into_iter()
            .map(|s| files[s.idx].0.to_string())
            .collect()
    }

    #[test]
    fn one_word_of_a_class_name_weighs_less_than_a_file_named_by_it() {
        // File-per-class code: every stem is a class name of several words.
        // "style" is one word of three in `IndianScaleStyle.cs` and the whole
        // name of `Style.cs`: with the same body, the file the word names
        // ranks first, whichever comes first in the walk.
        let body = "class C { string style; string locale; }\n";
        let files = [
            ("src/Humanizer/IndianScaleStyle.cs", body),
            ("src/Humanizer/Style.cs", body),
            ("src/Humanizer/Words.cs", "class Words { string locale; }\n"),
        ];
        let r = ranked(&files, "Simplify the locale style");
        assert_eq!(r[0], "src/Humanizer/Style.cs", "{r:?}");
        // A file the task names whole keeps the full file-name bonus.
        let q = TaskQuery::new("Fix IndianScaleStyle", &[]);
        assert_eq!(stem_coverage("src/Humanizer/IndianScaleStyle.cs", &q), 1.0);
        let q = TaskQuery::new("style", &[]);
        assert_eq!(stem_coverage("src/Style.cs", &q), 1.0);
        assert_eq!(stem_coverage("lib/style.py", &q), 1.0);
        let third = stem_coverage("src/Humanizer/IndianScaleStyle.cs", &q);
        assert!((third - 1.0 / 3.0).abs() < 1e-9, "{third}");
        // A snake_case module name keeps the full bonus for any of its words.
        let q = TaskQuery::new("ignore/types: add Hurl", &[]);
        assert_eq!(stem_coverage("crates/ignore/src/default_types.rs", &q), 1.0);
    }

    #[test]
    fn a_file_names_extension_is_no_word_of_its_path() {
        // Probe P11: a task naming `keys.py` gave every Python file "path
        // matches py", with the IDF of the rare body word "py", so in a
        // mixed tree each Python file outranked the same code in another
        // language. The extension is what the file is, not what it is about.
        let body = "def load_keys(store): return store.keys\n";
        let files = [
            ("src/session.py", body),
            ("src/session.rb", body),
            ("docs/setup.md", "Run `python keys.py` to load the keys.\n"),
        ];
        let s = super::super::test_score(&files, "session keys.py store");
        let of = |i: usize| s.iter().find(|s| s.idx == i).map_or(0.0, |s| s.raw);
        assert!((of(0) - of(1)).abs() < 1e-9, "{} {}", of(0), of(1));
        let path_match = |i: usize| {
            s.iter()
                .find(|s| s.idx == i)
                .unwrap()
                .evidence
                .iter()
                .find_map(|e| match e {
                    Evidence::PathMatch(t) => Some(t.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        };
        // The stem still matches; the extension does not.
        assert_eq!(path_match(0), ["session"]);
        assert_eq!(without_ext("src/a.test.ts"), "src/a.test");
        assert_eq!(without_ext(".github/.gitignore"), ".github/.gitignore");
        assert_eq!(without_ext("Makefile"), "Makefile");
        assert_eq!(without_ext("v1.2/README"), "v1.2/README");
    }

    #[test]
    fn a_file_named_after_the_titles_change_verb_gains_nothing_by_its_name() {
        // nushell: "Update some tests …" ranked `filters/update.rs` and
        // `prompt_update.rs` in the top 5; the verb says what the commit
        // does. Same bodies: only the name can tell the files apart.
        let body = "fn run(record: Record) -> Filter { keep(record) }\n";
        let files = [
            ("crates/nu-command/src/filters/insert.rs", body),
            ("crates/nu-command/src/filters/update.rs", body),
            ("crates/nu-command/src/math/max.rs", "fn max() {}\n"),
        ];
        let score = |task: &str| {
            let s = super::super::test_score(&files, task);
            let of = |i: usize| s.iter().find(|s| s.idx == i).map_or(0.0, |s| s.raw);
            (of(0), of(1))
        };
        let (insert, update) = score("Update the record filter");
        assert!((insert - update).abs() < 1e-9, "{insert} {update}");
        // Nor does it cover a word of a class name: `UpdateRecord.php` is
        // half covered by "Update the record filter", as by "the record".
        let q = TaskQuery::new("Update the record filter", &[]);
        assert_eq!(stem_coverage("src/Filters/UpdateRecord.php", &q), 0.5);
        // Named in the task's own words, not as its opening verb, the
        // file's name counts as before.
        let (insert, update) = score("The update filter drops the record");
        assert!(update > insert, "{insert} {update}");
    }

    #[test]
    fn a_file_the_task_names_as_two_words_ranks_first_by_its_name_only() {
        // vapor: "file middleware" is `FileMiddleware.swift`, but "file" is a
        // stopword and "middleware" one word of every middleware's name.
        let files = [
            (
                "Sources/Vapor/Middleware/CORSMiddleware.swift",
                "final class CORSMiddleware: Middleware { let cache: Cache }\n",
            ),
            (
                "Sources/Vapor/Middleware/FileMiddleware.swift",
                "final class FileMiddleware: Middleware { let root: String }\n",
            ),
            (
                "Sources/Vapor/Sessions/SessionsMiddleware.swift",
                "final class SessionsMiddleware: Middleware { let cache: Cache }\n",
            ),
        ];
        let task = "Added a cache policy for file middleware";
        let r = ranked(&files, task);
        assert_eq!(
            r[0], "Sources/Vapor/Middleware/FileMiddleware.swift",
            "{r:?}"
        );
        // Named whole by the compound, the file's stem is covered in full.
        let q =
            TaskQuery::with_alternates(task, &[], &[], Weights::default().alternates(), &|| false);
        assert_eq!(
            stem_coverage("Sources/Vapor/Middleware/FileMiddleware.swift", &q),
            1.0
        );
        // In a body the compound counts for nothing: a file that only uses
        // `FileMiddleware` gains no BM25 from it.
        let uses = [
            (
                "Sources/App/a.swift",
                "let m = FileMiddleware(root)\nlet c = cache\n",
            ),
            (
                "Sources/App/b.swift",
                "let m = CORSMiddleware(root)\nlet c = cache\n",
            ),
        ];
        let scored = super::super::test_score(&uses, task);
        assert_eq!(scored.len(), 2, "{scored:?}");
        assert_eq!(scored[0].lexical, scored[1].lexical, "{scored:?}");
    }

    #[test]
    fn one_word_of_a_docs_page_title_weighs_less_than_a_source_file_named_by_it() {
        // Humanizer: a kebab-case docs page whose title holds one word of the
        // task outranked the source the task is about, by the file-name bonus.
        let q = TaskQuery::new("Add locale overrides to the hooks", &[]);
        let quarter = stem_coverage("docs/locale-yaml-schema-reference.mdx", &q);
        assert!((quarter - 0.25).abs() < 1e-9, "{quarter}");
        assert_eq!(stem_coverage("docs/locale.md", &q), 1.0);
        let files = [
            (
                "docs/locale-yaml-schema-reference.mdx",
                "The locale file schema: keys, values and hooks.\n",
            ),
            (
                "src/Humanizer/Localisation/locale.cs",
                "class LocaleRegistry { void Register(string hooks) {} }\n",
            ),
        ];
        let r = ranked(&files, "Add locale overrides to the registry hooks");
        assert_eq!(r[0], "src/Humanizer/Localisation/locale.cs", "{r:?}");
    }

    #[test]
    fn a_rarer_term_weighs_more_and_no_idf_is_negative() {
        assert!(idf(100.0, 1.0) > idf(100.0, 10.0));
        assert!(idf(100.0, 10.0) > idf(100.0, 90.0));
        assert!(idf(100.0, 100.0) > 0.0);
        assert!((idf(1.0, 1.0) - (1.0f64 + 0.5 / 1.5).ln()).abs() < 1e-12);
    }

    #[test]
    fn a_new_name_finds_the_file_defining_the_name_it_is_made_from() {
        // laravel 7825e446a699, "Add orWhereKey and orWhereKeyNot without
        // changing existing signatures": no file holds either name, and
        // Eloquent's Builder.php, which defines `whereKey` and
        // `whereKeyNot`, was out of the top 10 behind files holding
        // "existing", "signatures" and the names' parts ("where", "key"),
        // words common in the tree.
        let builder = (
            "src/Illuminate/Database/Eloquent/Builder.php",
            "class Builder {\n  function whereKey($id) { return $this->where($id); }\n  function whereKeyNot($id) { return $this; }\n}\n",
        );
        let common = "// existing signatures: where a key or not, without changing them\n";
        let mut files = vec![builder];
        let paths: Vec<String> = (0..8)
            .map(|i| format!("src/Illuminate/Support/Part{i}.php"))
            .collect();
        files.extend(paths.iter().map(|p| (p.as_str(), common)));
        let task = "Add orWhereKey and orWhereKeyNot without changing existing signatures";
        let first = |files: &[(&str, &str)], w: &Weights| {
            let s = super::super::test_score_with(files, task, w);
            files[s[0].idx].0.to_string()
        };
        let without = Weights {
            subname: 0.0,
            ..Weights::default()
        };
        assert_ne!(first(&files, &without), builder.0);
        assert_eq!(first(&files, &Weights::default()), builder.0);
        // Once a file holds the name itself, it is no new name: its
        // sub-names count for nothing (the holder is found by the name).
        let mut held = files.clone();
        held.push((
            "src/Illuminate/Database/Query/Builder.php",
            "class Builder {\n  function orWhereKey($id) {}\n  function orWhereKeyNot($id) {}\n}\n",
        ));
        let lexical = |w: &Weights| {
            super::super::test_score_with(&held, task, w)
                .iter()
                .find(|x| x.idx == 0)
                .map_or(0.0, |x| x.lexical)
        };
        assert_eq!(lexical(&Weights::default()), lexical(&without));
    }
}
