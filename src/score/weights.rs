//! [`Weights`]: the scoring constants, as data (`ctxloop bench --weights`
//! sets them by name).

/// Scoring constants.
#[derive(Debug, Clone)]
pub struct Weights {
    /// BM25 term-frequency saturation (Robertson & Zaragoza 2009, standard 1.2).
    pub k1: f64,
    /// BM25 length normalisation (standard 0.75).
    pub b: f64,
    /// Per IDF unit of a query term found in the path's directories or file name.
    pub path: f64,
    /// Extra per IDF unit when the term is in the file's stem (`token` in `token.py`).
    pub stem: f64,
    /// Multiplier of the definition weight when the definition is a method
    /// (a name many classes define, such as `doit`, says less than a function).
    pub method_definition: f64,
    /// Per definition-IDF unit of a task identifier the file defines (DESIGN.md §4:
    /// definitions of named identifiers were worth +4.6 Acc@5, +10 Acc@1).
    pub definition: f64,
    /// Multiplier of the definition weight when the task uses the name only
    /// as a prose word (not in backticks or a code block, not called or
    /// dotted, not snake/camel case): "variable", "context", "session".
    pub prose_definition: f64,
    /// Share of the best score added to a file the task names by path or module.
    pub explicit: f64,
    /// Multiplier for test files: gold files of fixes are never tests. Test
    /// doubles beside the code (`lang::is_test_double_path`) get it too,
    /// unless the task names the double.
    pub test_prior: f64,
    /// Multiplier for docs, examples, benchmarks, and vendored or installed
    /// code (a dependency directory the query's globs re-opened, see
    /// `walk::DEPENDENCY_DIRS`). Measured with `bench --weights
    /// a25:aside_prior=0.25` against 0.4 on the same trees (full loop,
    /// 2026-12-04): dev-rust Acc@3/5 83.8/89.2 -> 86.5/91.9 and edit recall
    /// 64.5 -> 67.0 (ripgrep's `pathutil.rs` had a docs page above it); on
    /// the first 6 dev-multilang tasks of each repository (150) Acc@5/10
    /// 66.7/72.7 -> 67.3/73.3 (axios, trpc, libuv, Humanizer and black
    /// gold files up); dev-python's first 50 and dev-questions unchanged at
    /// every k. No task ranked worse; 0.15 gave the same ranks.
    pub aside_prior: f64,
    /// Multiplier for release notes, process documents and man pages
    /// (`CHANGELOG.md`, `CONTRIBUTING.md`, `bat.1`): they mention every
    /// feature and name, and a fix lands in the code, not in them.
    pub notes_prior: f64,
    /// Multiplier for package `__init__` / `mod.rs` re-export files.
    pub init_prior: f64,
    /// 1: rank by tier first, then by evidence-weighted order within a tier;
    /// 0: by order alone, a file's relevance capped by the files above it.
    pub tier_first: f64,
    /// 0: BM25's N and mean document length come from every walked file;
    /// 1: only from files sharing a term with the query (body or path), so a
    /// file unrelated to the task cannot move any score or tier
    /// (`tests/properties.rs`). Measured, cycle 1, against 0: dev-python
    /// unchanged at every k; dev-rust Acc@1 48.6 vs 45.9, Acc@5 86.5 vs 89.2
    /// (one task), MRR 0.716 vs 0.707.
    pub idf_scope: f64,
    /// Multiplier for a query's light stems of prose words (an alternative
    /// term, `query::Term::alternative`; until 2026-12-06 the two-word
    /// compounds too, see `compound`) in the body and path scores; at 0 (the
    /// default) the query builds none
    /// ([`crate::query::TaskQuery::with_alternates`]). They never count in
    /// coverage (tiers) or in `idf_scope`'s file set. Off: measured with
    /// `bench --weights noalt:alternate=0` (full loop, 2026-12-01), 1 against
    /// 0 gave dev-rust Acc@1 54.1 vs 56.8, MRR 0.777 vs 0.792 (plural stems
    /// `paths`, `roots` → `path`, `root` lifted a JSON printer over the
    /// gold file) and, on every 10th dev-multilang task (50), one task up
    /// at Acc@5 (nunit, 8 → 4) and two down at Acc@1 (trpc, tokio, 1 → 2):
    /// no clear gain, so 0 until a narrower rule wins on every set.
    pub alternate: f64,
    /// Multiplier for a query's two-word compounds of prose words ("file
    /// middleware" → `filemiddleware`, `query::Term::compound`) in the path
    /// score: a file whose name the task writes as two words
    /// (`FileMiddleware.swift`) is named by it. 2, so that a compound (whose
    /// occurrence weight is half a mention) weighs as one mention of a task
    /// word. Never in the body or passage scores: there it matched a config
    /// key (pom.xml's `artifactId` for "artifact id") or a type's uses all
    /// over the tree, which BM25 of the two words already counts; with body
    /// matches, dev-multilang Acc@5 was 66.6 and edit recall 52.8 % against
    /// 66.8 and 53.3 without compounds. Nor in coverage or `idf_scope`'s
    /// file set. At 0 the query builds none. Measured against 0 in the
    /// bench/README.md (2026-12-06).
    pub compound: f64,
    /// Multiplier for a query's sub-names (a task identifier of three parts
    /// or more without its first or last part, `query::Term::subname_of`)
    /// in the body and path scores, counted only while no file holds the
    /// identifier itself; 0 builds none. A task that adds a name
    /// (`orWhereKeyNot`) names one no file holds yet, made from the one
    /// defined where it goes (`whereKeyNot`). Measured against 0 in the same
    /// run (`bench --no-bm25 --weights s1:subname=1`, 2026-12-07), then
    /// with held identifiers' sub-names out of the snippets' weights too
    /// (`TaskQuery::forget_held_subnames`) against 8340cd0: on dev-multilang,
    /// laravel's "Add orWhereKey and orWhereKeyNot" found Eloquent's
    /// Builder.php 2nd (was out of the top 10): Acc@5/10 67.6/76.0 →
    /// 67.8/76.2, MRR 0.660 → 0.661, edit recall 55.3 → 55.5 %; dev-python,
    /// dev-rust, dev-questions, the 339 held-out tasks and the Haskell-
    /// OCaml-Zig and Erlang-Julia-R tasks every Acc@k and edit recall the
    /// same. Without that last rule snippets weighed a held identifier's
    /// sub-names (DataFrames.jl: `SubDataFrame`'s `dataframe`, 2 of its 12
    /// edit lines lost; okhttp 1 line gained).
    pub subname: f64,
    /// Multiplier for a query's derived verbs (the verb a prose noun is
    /// made from: `extraction` → `extract`, `query::Term::derived`) in the
    /// body and path scores; 0 builds none. Separate from `alternate` (the
    /// plural and `-ed`/`-ing` stems, off: they lifted `path` for `paths`).
    /// A report names the operation, the code the function: of the 216
    /// dev-multilang tasks with such a noun, 30 have a gold file that holds
    /// the verb but not the noun. Measured against 0 (`bench --no-bm25`,
    /// 2026-12-07, same trees, bfc37f0 + this rule at 0, 1 and 2): at 1,
    /// dev-multilang Acc@1/5/10 39.2/67.8/76.2 → 39.4/68.0/76.4, first gold
    /// file high 58.4 → 58.8 %, edit recall 55.46 → 55.51 %; held-out
    /// (Kotlin … Lua, 339) 32.7/66.7/79.9 → 33.0/67.0/79.6 (one task up at
    /// Acc@1 and @5, one down at @10); Haskell-OCaml-Zig (175) Acc@5/10
    /// 69.7/81.7 → 70.3/82.3; dev-python, dev-rust, dev-questions every
    /// Acc@k and edit recall the same; Erlang-Julia-R (129) the same Acc@k,
    /// edit recall 52.2 → 51.7 (one DataFrames.jl task). At 2: dev-multilang
    /// Acc@10 76.2 and edit recall 55.1 (worse than 1), the others as at 1.
    pub derived: f64,
    /// Multiplier for other text files in no language of the table (notebooks,
    /// data, build scripts): fixes land in source files. Measured with
    /// `bench --weights`, cycle 1: 0.6 against 1.0 gave dev-python Acc@5 80.4
    /// vs 79.7 (a notebook had outranked sympy's latex printer) and dev-rust
    /// 89.2 vs 86.5, with no task ranked worse; 0.4 gave the same.
    pub other_prior: f64,
    /// Files parsed with tree-sitter per scoring pass (the lexically best ones).
    pub parse_cap: usize,
    /// Share of a top file's score given to a file that uses its definitions
    /// (DESIGN.md §4: propagation above a small weight let hub modules take over,
    /// so it flows only from the best few files, through rare names, to files
    /// with lexical evidence of their own).
    pub neighbour: f64,
    /// Files relevance flows from.
    pub neighbour_sources: usize,
    /// Relevance given to a file that closes a gap of a high file (related
    /// context: medium), before the later-cycle discount.
    pub gap_floor: f64,
    /// Discount on relevance found in cycles after the first: later cycles
    /// search with pseudo-relevance feedback, weaker evidence than the task.
    pub later_discount: f64,
    /// BM25 (after priors) below which a file's lexical evidence lifts it
    /// into no tier: it is high or medium only for other evidence (named by
    /// the task, defines a task identifier, a graph edge). The lexical tier
    /// rules compare a file with the best one, and when every matching file
    /// holds every task term (5,000 copies of a package under
    /// `node_modules`), each term's IDF, and so every BM25, is near 0 while
    /// the ratios are near 1. 0.5 is about one task term held by half of the
    /// matching files (IDF ln 2 at tf 1); the pinned fixtures' high files
    /// have 1.5 or more.
    pub min_bm25: f64,
    /// Share of the best raw score given to the file past commits like the
    /// task changed most (the `history` pass, `src/score/history.rs`: the
    /// k-th file by history score gets `history / k`, scaled by its score
    /// relative to the best; 0 turns the signal off and runs no `git`; 0.3,
    /// the default, is the value measured: see the comment in `default`).
    pub history: f64,
    /// Share of the best raw score a file needs to be high tier, whatever
    /// else it has (named by the task, defining a task identifier, lexically
    /// close to the best file; `calibrate`): a file far below the top one is a
    /// lead, not the place of the fix. 0.8 is measured: see `calibrate`.
    pub high_share: f64,
    /// Multiplier of a file's best passage score (`score::passage`: the
    /// best window of `passage_lines` code lines, BM25 term weights without
    /// length normalisation), added to its raw score; 0 turns it off.
    /// Measured with `bench --weights p1:passage=1 --weights p2:passage=2`
    /// against 0 on the same trees, cycle 1 (2026-12-05): dev-multilang
    /// Acc@1/5/10 36.0/64.8/72.8 -> 38.6/66.4/73.6, MRR .630 -> .648 (82
    /// tasks up, 40 down; MRR up in 10 of 11 languages, typescript .542 ->
    /// .529); dev-rust Acc@5 91.9 -> 94.6, MRR .797 -> .812; dev-questions
    /// Acc@1 52.4 -> 57.1, MRR .780 -> .808; dev-python Acc@1 58.2 -> 58.8
    /// but Acc@5 82.4 -> 81.0 (7 up, 8 down: sympy reports paste code whose
    /// names meet in many modules). 2 gained Acc@1 on multilang and
    /// questions but lost dev-python Acc@5 (79.1) and dev-rust Acc@1 (56.8
    /// -> 51.4).
    pub passage: f64,
    /// Lines of a passage window, about one function. Tried in the pass's
    /// first form (before it skipped comments and imports): 20 and 80 gave
    /// dev-rust the ranks 40 gave; 20 gave the first 6 dev-multilang tasks
    /// of each repository Acc@5 66.7 against 68.7 for 40.
    pub passage_lines: usize,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            k1: 1.2,
            b: 0.75,
            path: 2.0,
            stem: 8.0,
            definition: 2.5,
            method_definition: 0.4,
            prose_definition: 0.3,
            explicit: 0.6,
            test_prior: 0.2,
            aside_prior: 0.25,
            notes_prior: 0.2,
            init_prior: 0.85,
            other_prior: 0.6,
            tier_first: 0.0,
            idf_scope: 1.0,
            alternate: 0.0,
            compound: 2.0,
            subname: 1.0,
            derived: 1.0,
            parse_cap: 60,
            neighbour: 0.1,
            neighbour_sources: 3,
            gap_floor: 0.62,
            later_discount: 0.9,
            min_bm25: 0.5,
            // Measured on all four dev sets against a same-run control with
            // 0 (bench `--weights hist:history=0.3`, 2026-12-03): dev-multilang
            // Acc@1/5 33.8/62.6 -> 35.0/63.8, MRR .606 -> .619; dev-python
            // 57.5/81.7 -> 58.2/82.4; dev-questions 44.4/90.5 -> 52.4/90.5,
            // MRR .732 -> .780; dev-rust Acc@k unchanged. Edit recall fell on
            // dev-rust 67.0 -> 64.5 and dev-python 57.8 -> 57.1 (the files it
            // lifts take snippet budget). (Its first version lost
            // dev-python Acc@5 79.1 -> 77.8 and was off by default.) A cold
            // call pays one `git log`: 0.13-0.16 s on sympy's 5,000 last
            // commits (`--no-history` turns it off).
            history: 0.3,
            high_share: 0.8,
            passage: 1.0,
            passage_lines: 40,
        }
    }
}

impl Weights {
    /// The alternative terms a query scored with these weights builds: each
    /// kind only when its multiplier is above 0 (else it would be counted in
    /// every file for nothing).
    pub fn alternates(&self) -> crate::query::Alternates {
        crate::query::Alternates {
            stems: self.alternate > 0.0,
            compounds: self.compound > 0.0,
            subnames: self.subname > 0.0,
            derived: self.derived > 0.0,
        }
    }

    /// Sets one weight by field name (for `ctxloop bench --weights`, which
    /// measures alternatives side by side on the development set).
    pub fn set(&mut self, key: &str, value: f64) -> Result<(), String> {
        let slot = match key {
            "k1" => &mut self.k1,
            "b" => &mut self.b,
            "path" => &mut self.path,
            "stem" => &mut self.stem,
            "definition" => &mut self.definition,
            "method_definition" => &mut self.method_definition,
            "prose_definition" => &mut self.prose_definition,
            "explicit" => &mut self.explicit,
            "test_prior" => &mut self.test_prior,
            "aside_prior" => &mut self.aside_prior,
            "notes_prior" => &mut self.notes_prior,
            "init_prior" => &mut self.init_prior,
            "other_prior" => &mut self.other_prior,
            "tier_first" => &mut self.tier_first,
            "idf_scope" => &mut self.idf_scope,
            "alternate" => &mut self.alternate,
            "compound" => &mut self.compound,
            "subname" => &mut self.subname,
            "derived" => &mut self.derived,
            "neighbour" => &mut self.neighbour,
            "gap_floor" => &mut self.gap_floor,
            "later_discount" => &mut self.later_discount,
            "min_bm25" => &mut self.min_bm25,
            "history" => &mut self.history,
            "high_share" => &mut self.high_share,
            "passage" => &mut self.passage,
            "passage_lines" => {
                self.passage_lines = value as usize;
                return Ok(());
            }
            "parse_cap" => {
                self.parse_cap = value as usize;
                return Ok(());
            }
            "neighbour_sources" => {
                self.neighbour_sources = value as usize;
                return Ok(());
            }
            _ => return Err(format!("unknown weight `{key}`")),
        };
        *slot = value;
        Ok(())
    }

    /// Parses `key=value,key=value` over the defaults.
    pub fn parse(spec: &str) -> Result<Weights, String> {
        let mut w = Weights::default();
        for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("`{kv}` is not key=value"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("`{v}` is not a number"))?;
            w.set(k.trim(), v)?;
        }
        Ok(w)
    }
}
