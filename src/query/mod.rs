//! Task → query: the terms a task (plus agent keywords) asks for, weighted,
//! and the structural references (paths, dotted modules, `Class.method`) it
//! names. The tokenizer it shares with documents is in [`tokenize`], term
//! counting in [`termset`], the stopwords in [`stopwords`].

pub mod code;
pub mod stopwords;
pub mod termset;
pub mod tokenize;

pub use stopwords::is_stopword;
pub use termset::TermSet;
pub use tokenize::{
    for_each_name_term_hash, for_each_term, for_each_term_hash, for_each_term_hash_split_once,
    for_each_term_str, identifiers, split_identifier, term_hash,
};

use std::collections::{HashMap, HashSet};

/// A query holds at most this many terms. A task with more distinct terms
/// (a pasted log, a whole document) keeps the most informative ones; the rest
/// still count where the text is searched for paths and modules, not as
/// terms. Informative, decided before any file is read (IDF is not known yet):
/// higher weight first (repeated, in the title, or an agent keyword), then
/// code-like terms, then longer ones (a long word is rarer in code: a proxy
/// for IDF), then the earlier mention. The development set's longest task
/// has about 580 distinct terms, so no task there is cut. The cap bounds
/// per-file scoring work and the term-count matrix (files x terms x 4 bytes:
/// 320 MB at the cap on the Linux kernel's 78k files); without it a task of
/// 8,000 random words took 10 s against a 1 s deadline (probe D5).
///
/// The first [`FIRST_MENTIONED_KEPT`] terms of the task, by order of first
/// mention, are always among those kept, and a cut query says so
/// ([`TaskQuery::cut`], the answer's `stats.terms_cut`).
pub const MAX_QUERY_TERMS: usize = 1024;

/// Terms a cut query keeps for being the task's first words, whatever
/// their weight: where a task states itself. A one-line task of 2,000
/// three-part identifiers after its three prose words ("session cookie
/// samesite …") lost all three to the code-like, longer identifiers, and
/// found no file (probe of 2026-12-07, P9).
pub const FIRST_MENTIONED_KEPT: usize = 64;

/// Terms of a cut query's task named in [`TermsCut::dropped`].
const DROPPED_SHOWN: usize = 20;

/// One weighted query term (lowercased).
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// The term, lowercased (an identifier whole or one of its parts).
    pub text: String,
    /// Its [`term_hash`].
    pub hash: u64,
    /// 1 + ln(occurrences), raised for title and agent keywords.
    pub weight: f64,
    /// Looks like code (`snake_case`, `CamelCase`, has digits, or given as a keyword):
    /// such terms count when a file *defines* them.
    pub is_code: bool,
    /// A weaker alternative of a task word (a light stem or a two-word
    /// compound, see `alternates`, or a task identifier's sub-name, see
    /// `subnames`), not a word of the task: it adds matches (a stem's scaled
    /// by `Weights::alternate`, a compound's by `Weights::compound`, a
    /// sub-name's by `Weights::subname`) but no coverage, and does not widen
    /// the files BM25's statistics come from.
    pub alternative: bool,
    /// An alternative that joins two adjacent words of the task ("file
    /// middleware" → `filemiddleware`): a file's score counts it only where
    /// it matches a word of the file's path (`FileMiddleware.swift`), never
    /// in the body (BM25, passages); snippets weigh the lines that hold it
    /// as they weigh any query term's.
    pub compound: bool,
    /// An alternative that is a task identifier of three parts or more
    /// without its first or last part (`orWhereKey` → `WhereKey`,
    /// `parse_strict_mode` → `strict_mode`, see `subnames`): the name a new
    /// function or option is made from, defined where the new one goes.
    /// Scaled by `Weights::subname` in bodies and paths; the query keeps it
    /// only while no file holds the identifier it is made from (its hash
    /// here): a name the tree already has is found by itself
    /// ([`TaskQuery::forget_held_subnames`]).
    pub subname_of: Option<u64>,
    /// The verb that opens the title and says what kind of change the task
    /// is (`CHANGE_VERBS`: "Update …", "Handle …", "Remove …"), used as
    /// nothing else in the task: it counts in file bodies but not in paths.
    /// A file named after it (`update.rs`, `handle_get.rs`, `remove_dir.rs`)
    /// is no more the code to change than any other.
    pub action: bool,
    /// An alternative that is the verb a noun of the task is made from
    /// (`extraction` → `extract`, see `derived_stems`): scaled by
    /// `Weights::derived` in bodies and paths.
    pub derived: bool,
}

/// Which alternative terms a query builds (see `alternates`): each kind is
/// counted in every file, so it is built only when its weight is above 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Alternates {
    /// Light stems of prose words (`mocked` → `mock`): `Weights::alternate`.
    pub stems: bool,
    /// The verb a prose noun is made from (`extraction` → `extract`,
    /// `normalization` → `normalize`, see `derived_stems`):
    /// `Weights::derived`.
    pub derived: bool,
    /// Two adjacent words joined (`filemiddleware`): `Weights::compound`.
    pub compounds: bool,
    /// Task identifiers without their first or last part (`WhereKey` of
    /// `orWhereKey`): `Weights::subname`.
    pub subnames: bool,
}

/// The kind of an alternative term (see `Term::alternative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AltKind {
    Stem,
    Derived,
    Compound,
    /// Made from the identifier of this hash.
    Subname(u64),
}

/// What a task (plus agent keywords) asks for, ready to score with.
#[derive(Debug, Clone, Default)]
pub struct TaskQuery {
    /// The weighted terms, heaviest first (at most [`MAX_QUERY_TERMS`]).
    pub terms: Vec<Term>,
    /// Identifiers in their original case, candidates for "files that define them".
    pub identifiers: Vec<String>,
    /// Those of [`TaskQuery::identifiers`] the title holds (its first
    /// non-empty line: what the task is about, where the rest is often a
    /// traceback's frames on the way there).
    pub title_identifiers: Vec<String>,
    /// File paths named in the text (`a/b.py`, traceback frames), `/`-separated.
    pub paths: Vec<String>,
    /// Dotted names (`pkg.mod.Class`), as `/`-joined path stems to match.
    pub modules: Vec<String>,
    /// The task text, lowercased with runs of whitespace as one space (at most
    /// [`MAX_TASK_TEXT`] bytes): snippets look for the code's string literals
    /// in it (a quoted error message, a flag).
    pub text: String,
    /// Whether the task is a question about the code ("where is the LaTeX
    /// printer for Integral implemented?", [`is_question`]) rather than a
    /// change to make: snippets then show the definitions its words name.
    pub question: bool,
    /// Set when the task had more distinct terms than [`MAX_QUERY_TERMS`].
    pub cut: Option<crate::types::TermsCut>,
    /// Term hash → weight, for fast lookups while scanning text.
    weights: rustc_hash::FxHashMap<u64, f64>,
}

/// Bytes of the task kept in [`TaskQuery::text`].
pub const MAX_TASK_TEXT: usize = 64 * 1024;

/// Bytes of the longest term: a longer word of the task (a run of one
/// letter, a hyphen chain joined as one name) is no term, and its parts
/// still count. No name in code is this long (a C++ mangled name in a
/// crash log comes closest). Such a word hung the call (a 16,000-letter run
/// 3.75 s, 100,000 letters 142 s, before any deadline check: newcomer
/// probe, 2026-12-06) in the terms' Aho-Corasick DFA, which now searches a
/// term this long with an NFA instead (`termset::TermSet::new`).
pub const MAX_TERM_BYTES: usize = 128;

/// Extensions other than source code's that make a token a file path even
/// without a `/`: configuration and documentation files.
const TEXT_PATH_EXTENSIONS: &[&str] = &[
    "toml", "yaml", "yml", "json", "cfg", "ini", "md", "rst", "txt",
];

/// Whether a token ending in `.ext` is a file path (with one dot and no `/`,
/// or with a `/`): `ext` is an extension of the language table, every
/// language ctxloop parses or scores by its words (`router.ex`, `init.lua`,
/// `parser.dart`, `Button.vue`, `lib/index.mjs`; a fixed list here had
/// named Python's, Rust's, C's, Java's and a few more, and a task's
/// `lib/phoenix/router.ex` was no path), or one of [`TEXT_PATH_EXTENSIONS`].
fn is_path_extension(ext: &str) -> bool {
    TEXT_PATH_EXTENSIONS.contains(&ext) || crate::lang::is_code_extension(ext)
}

impl TaskQuery {
    /// Builds the query from the task text and extra agent keywords.
    pub fn new(task: &str, keywords: &[String]) -> TaskQuery {
        TaskQuery::with_feedback(task, keywords, &[], &|| false)
    }

    /// Like [`TaskQuery::new`], plus pseudo-relevance feedback terms (gap symbols)
    /// that count like a single mention in the body: they may add files, but must
    /// not outweigh what the task says. Linear in the length of the texts; at
    /// most [`MAX_QUERY_TERMS`] terms. Once `stop` returns true (checked every
    /// 1,024 identifiers) the rest of the text is not read: the query holds
    /// the terms found so far.
    pub fn with_feedback(
        task: &str,
        keywords: &[String],
        feedback: &[String],
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        TaskQuery::build(task, keywords, feedback, Alternates::default(), stop)
    }

    /// Like [`TaskQuery::with_feedback`], plus the weaker alternative terms
    /// of the prose words `kinds` asks for (light stems, two-word compounds;
    /// see `Term::alternative`).
    pub fn with_alternates(
        task: &str,
        keywords: &[String],
        feedback: &[String],
        kinds: Alternates,
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        TaskQuery::build(task, keywords, feedback, kinds, stop)
    }

    fn build(
        task: &str,
        keywords: &[String],
        feedback: &[String],
        kinds: Alternates,
        stop: &dyn Fn() -> bool,
    ) -> TaskQuery {
        let mut c = TermCounter::default();
        let title = task.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        c.add(task, 0.0, stop);
        // The title states the task; the rest is often logs and discussion.
        c.add(title, 1.0, stop);
        for k in keywords {
            c.add(k, 2.0, stop);
        }
        for k in feedback {
            c.add(k, -1.0, stop);
        }
        // Hyphenated names (`--retry-all-errors`, `no-color`) are the
        // snake-case identifier in code (`retry_all_errors`).
        for joined in hyphenated(task) {
            let next = c.counts.len();
            let e = c
                .counts
                .entry(joined.to_ascii_lowercase())
                .or_insert((0.0, true, next));
            e.0 += 1.0;
            e.1 = true;
            if c.seen_idents.insert(joined.clone()) {
                c.idents.push(joined);
            }
        }
        // Weaker alternatives of prose words (`mocked` ~ `mock`, "man page"
        // ~ `manpage`), only where the task does not hold the term itself.
        let mut alternative = HashMap::new();
        let found = alternates(task, kinds).into_iter();
        let subs = if kinds.subnames {
            subnames(&c.idents)
        } else {
            Vec::new()
        };
        let subs = subs
            .into_iter()
            .map(|(a, of)| (a, AltKind::Subname(term_hash(&of))));
        for (alt, kind) in found.chain(subs) {
            if !c.counts.contains_key(&alt) {
                let next = c.counts.len();
                c.counts.insert(alt.clone(), (ALTERNATE, false, next));
                alternative.insert(alt, kind);
            }
        }
        c.counts.retain(|t, _| t.len() <= MAX_TERM_BYTES);
        let action = change_verb(title).filter(|v| c.counts.get(v).is_some_and(|e| !e.1));
        let (mut terms, cut) = most_informative(c.counts, &alternative);
        for t in &mut terms {
            t.action = action.as_deref() == Some(t.text.as_str());
        }
        // Identifiers whose term was kept.
        let kept: HashSet<u64> = terms.iter().map(|t| t.hash).collect();
        let mut idents = c.idents;
        idents.retain(|id| kept.contains(&term_hash(id)));
        let (paths, modules) = structural_references(task);
        let in_title: HashSet<&str> = identifiers(title).map(|(_, id)| id).collect();
        let title_identifiers = idents
            .iter()
            .filter(|id| in_title.contains(id.as_str()))
            .cloned()
            .collect();
        TaskQuery {
            title_identifiers,
            text: task_text(task),
            question: is_question(task),
            weights: terms.iter().map(|t| (t.hash, t.weight)).collect(),
            cut,
            terms,
            identifiers: idents,
            paths,
            modules,
        }
    }

    /// Weight of a term by hash, if it is a query term.
    pub fn weight_of(&self, hash: u64) -> Option<f64> {
        self.weights.get(&hash).copied()
    }

    /// Takes out of the terms (and of [`TaskQuery::weight_of`], what
    /// snippets and gaps weigh a line by) the sub-names whose identifier the
    /// tree holds (`held`, by the identifier's term hash): see
    /// `score::bm25::forget_held_subnames`, which asks the tree.
    pub fn forget_held_subnames(&mut self, held: impl Fn(u64) -> bool) {
        let weights = &mut self.weights;
        self.terms.retain(|t| {
            let forget = t.subname_of.is_some_and(&held);
            if forget {
                weights.remove(&t.hash);
            }
            !forget
        });
    }
}

/// Words that make a first sentence ending in `?` a question when one of
/// them is in it: "where", "how", "which" ask for code to be shown.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "when", "where", "which", "who", "whom", "whose", "why",
];
/// Words that make such a sentence a question when they open it ("does
/// requests drop the Authorization header on a redirect?").
const QUESTION_OPENERS: &[&str] = &[
    "are", "can", "could", "did", "do", "does", "has", "have", "is", "should", "was", "were",
    "will", "would",
];

/// Words that make a task a request to be shown code when they open it,
/// with or without a `?` ("where is the LaTeX printer for Integral
/// implemented", "find the code that picks the creator"). No task of
/// dev-python, dev-rust, dev-multilang or the 713 held-out tasks opens with
/// one; 52 of dev-questions' 63 do (2026-12-06). Not "when" ("When using
/// C++11, we could violate the one definition rule" is a commit) nor "show"
/// ("Show which source blocked a package version" is one too).
const QUESTION_STARTS: &[&str] = &["find", "how", "locate", "what", "where", "which", "why"];

/// Whether `task` asks about the code rather than reports a problem or
/// asks for a change: it opens with how, what, where, which, why, find or
/// locate (`QUESTION_STARTS`), or its first sentence (ended by `?`, by `.`
/// or `!` before a space but not the dots of "e.g.", or by a line end,
/// within its first 400 bytes) ends with `?` and holds a question word or
/// opens with an auxiliary verb, words being plain words (`plain_word`). A
/// bug report titled as a question without one ("Symbol instances have
/// __dict__ since 1.7?", "can't simplify sin/cos with Rational?") is not
/// one: measured, the rule holds all 63 of dev-questions' questions and
/// none of the 1,403 tasks of dev-python, dev-rust, dev-multilang and the
/// held-out sets (2026-12-06).
pub fn is_question(task: &str) -> bool {
    let head = task.trim_start();
    let mut cut = head.len().min(400);
    while !head.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &head[..cut];
    let opener = |text: &str| text.split_whitespace().next().and_then(plain_word);
    if opener(head).is_some_and(|w| QUESTION_STARTS.contains(&w.as_str())) {
        return true;
    }
    let bytes = head.as_bytes();
    let end = (0..bytes.len()).find(|&i| match bytes[i] {
        b'?' | b'\n' => true,
        // Not the dots of "e.g." and "i.e.".
        b'.' | b'!' => {
            bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
                && !(i >= 2 && bytes[i - 2] == b'.')
        }
        _ => false,
    });
    let Some(end) = end.filter(|&i| bytes[i] == b'?') else {
        return false;
    };
    let sentence = &head[..end];
    opener(sentence).is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()))
        || sentence
            .split_whitespace()
            .filter_map(plain_word)
            .any(|w| QUESTION_WORDS.contains(&w.as_str()))
}

/// A whitespace-split token as a plain word, lowercased: without the
/// quotes, brackets and punctuation around it, made only of letters and
/// apostrophes, a trailing `'s` dropped ("What's" is "what", "can't" stays
/// "can't"). An identifier (`where_clause`, `x.what_is()`), a flag
/// (`--how`), a path or a word in backticks is none: a question word inside
/// one asks nothing.
fn plain_word(token: &str) -> Option<String> {
    let t = token
        .trim_start_matches(['"', '\'', '(', '['])
        .trim_end_matches(['"', '\'', ')', ']', '.', ',', ';', ':', '!', '?']);
    let t = t
        .strip_suffix("'s")
        .or_else(|| t.strip_suffix("\u{2019}s"))
        .unwrap_or(t);
    (!t.is_empty() && t.chars().all(|c| c.is_ascii_alphabetic() || c == '\''))
        .then(|| t.to_ascii_lowercase())
}

/// Term → (occurrence weight, code-like, order of first mention).
type Counts = HashMap<String, (f64, bool, usize)>;

/// Counts the terms and identifiers of the texts a query is built from.
#[derive(Default)]
struct TermCounter {
    counts: Counts,
    /// Identifiers in their original case, in order of first mention.
    idents: Vec<String>,
    seen_idents: HashSet<String>,
    /// Identifiers read so far (`stop` is checked every 1,024).
    read: usize,
    stopped: bool,
}

impl TermCounter {
    /// Counts `text`'s terms, weighted `1 + bonus` a mention; `bonus` < 0
    /// marks feedback: counted once, never a "task identifier".
    fn add(&mut self, text: &str, bonus: f64, stop: &dyn Fn() -> bool) {
        let spans = code::code_spans(text);
        let listings = code::listing_spans(text);
        let templates = code::template_spans(text, &spans);
        let installed = code::install_prefix_spans(text);
        for (pos, id) in identifiers(text) {
            if code::within(&installed, pos) {
                continue;
            }
            self.read += 1;
            if self.stopped || (self.read.is_multiple_of(1024) && stop()) {
                self.stopped = true;
                return;
            }
            let next = self.counts.len();
            let lower = id.to_ascii_lowercase();
            let parts = split_identifier(id);
            let shaped = parts.len() > 1
                || id.bytes().any(|b| b.is_ascii_digit())
                || id[1..].bytes().any(|b| b.is_ascii_uppercase());
            // Used as code here: in backticks or a code block, called,
            // or part of a dotted name (`np.where(...)`). Such a name
            // survives stopwording: it may be the task's only
            // distinctive term.
            let as_code = code::used_as_code(text, &spans, pos, id.len());
            // A receiver (`os`, `path` of `os.path.abspath()`) stays a term
            // (a module the task reads), but this mention names no
            // definition: it makes the word neither code-like nor a task
            // identifier.
            let receiver = code::is_receiver(text, pos, id.len());
            let code_like =
                !receiver && (shaped || as_code || code::capitalised_mid_sentence(text, pos));
            let kept_as_code = lower.len() >= 3
                && !is_filler(&lower)
                && (code::is_called_or_member(text, pos, id.len())
                    || code::backticked(text, pos, id.len()));
            // A word of a pasted listing (package list, linter output,
            // log) or of a report template's headings and comments counts
            // a little, and names no definition.
            let listed = code::within(&listings, pos) || code::within(&templates, pos);
            if !is_stopword(&lower) || kept_as_code {
                let e = self.counts.entry(lower).or_insert((0.0, false, next));
                e.0 += if listed { LISTED } else { 1.0 + bonus.max(0.0) };
                e.1 |= (code_like && !listed) || bonus >= 2.0;
                if bonus >= 0.0 && !listed && !receiver && !self.seen_idents.contains(id) {
                    self.seen_idents.insert(id.to_string());
                    self.idents.push(id.to_string());
                }
            }
            // A feedback symbol is searched whole: its parts (`error`,
            // `inode` of `__ext4_error_inode`) are common words that
            // locate nothing, and counting them over a large tree cost
            // a full scan per cycle (2 s on the Linux kernel).
            if parts.len() > 1 && bonus >= 0.0 && !listed {
                // Two letters split off by case alone (`La`, `Te` of
                // `LaTeX`) are fragments, not words: parts of two
                // letters count only between underscores.
                let min = if id.contains('_') { 2 } else { 3 };
                for p in parts {
                    let pl = p.to_ascii_lowercase();
                    if p.len() >= min && !is_stopword(&pl) {
                        let next = self.counts.len();
                        self.counts.entry(pl).or_insert((0.0, false, next)).0 += 1.0;
                    }
                }
            }
        }
    }
}

/// The task text lowercased, runs of whitespace as one space, at most
/// [`MAX_TASK_TEXT`] bytes (whole words).
fn task_text(task: &str) -> String {
    let mut text = String::new();
    for word in task.split_whitespace() {
        if text.len() + word.len() >= MAX_TASK_TEXT {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&word.to_lowercase());
    }
    text
}

/// Hyphenated words of the text as snake-case identifiers: `--retry-all-errors`
/// gives `retry_all_errors`. In prose a word needs three or more parts, each
/// starting with a letter and two or more characters long (two-part words
/// are mostly prose: "built-in", "read-only"); a command-line flag
/// (`--no-color`) or a word in code (`` `libfoo-c` ``, a code block) needs
/// two parts, the first starting with a letter, each of letters, digits or
/// `_` (a crate `libfoo-c` is `libfoo_c` in code). At most
/// [`MAX_QUERY_TERMS`] names.
fn hyphenated(text: &str) -> Vec<String> {
    let spans = code::code_spans(text);
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let is_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
    let mut at = 0;
    // Words are ASCII, so every other byte (UTF-8 included) separates them.
    for raw in bytes.split(|b| !is_word(b)) {
        let start = at;
        at += raw.len() + 1;
        let raw = std::str::from_utf8(raw).unwrap_or("");
        let word = raw.trim_matches('-');
        if !word.contains('-') || out.len() >= MAX_QUERY_TERMS {
            continue;
        }
        // A word starts right after a separator, so `a--b` is no flag.
        let flag = raw.starts_with("--");
        let loose = flag || code::within(&spans, start);
        let parts: Vec<&str> = word.split('-').collect();
        let part =
            |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let ok = if loose {
            parts.iter().all(part) && parts[0].as_bytes()[0].is_ascii_alphabetic()
        } else {
            parts.len() >= 3
                && parts
                    .iter()
                    .all(|p| part(p) && p.len() >= 2 && p.as_bytes()[0].is_ascii_alphabetic())
        };
        if ok {
            let joined = parts.join("_");
            if !out.contains(&joined) {
                out.push(joined);
            }
        }
    }
    out
}

/// Occurrence weight of an alternative term (see [`alternates`]): above a
/// listed word, below one mention (1), so the task's exact words weigh more.
const ALTERNATE: f64 = 0.5;

/// Letters of the longest all-capitals word [`alternates`] reads as an
/// acronym (`SYN`, `HTTP`, `JSON`, `ASCII`): longer ones are shouted prose.
const MAX_ACRONYM: usize = 5;

/// At most this many two-word compounds a query adds.
const MAX_COMPOUNDS: usize = 64;

/// At most this many alternative terms a query adds (the first words'
/// first): each is counted in every file like a term of the task, and a
/// long report would otherwise triple the terms to count.
const MAX_ALTERNATES: usize = 128;

/// At most this many task identifiers give [`subnames`] (the first ones).
const MAX_SUBNAMED: usize = 16;

/// The names a task identifier of three parts or more is made from: the
/// identifier without its first part and without its last (`orWhereKey` →
/// `WhereKey`, `orWhere`; `parse_strict_mode` → `strict_mode`,
/// `parse_strict`), lowercased, each of two parts or more and at least
/// five bytes, with the identifier (lowercased) it is made from. A task
/// that adds `orWhereKeyNot` names a name no file holds yet; the file
/// defining `whereKeyNot` is where it goes. At most [`MAX_SUBNAMED`]
/// identifiers, the first ones.
fn subnames(idents: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for id in idents.iter().take(MAX_SUBNAMED) {
        let parts = split_identifier(id);
        if parts.len() < 3 {
            continue;
        }
        // Byte offsets in `id` of a part's start and end.
        let start = |p: &str| p.as_ptr() as usize - id.as_ptr() as usize;
        let end = |p: &str| start(p) + p.len();
        let n = parts.len();
        for (s, e) in [
            (start(parts[1]), end(parts[n - 1])),
            (start(parts[0]), end(parts[n - 2])),
        ] {
            let sub = id[s..e].to_ascii_lowercase();
            if sub.len() >= 5 && !out.iter().any(|(o, _)| *o == sub) {
                out.push((sub, id.to_ascii_lowercase()));
            }
        }
    }
    out
}

/// Weaker alternative terms for the prose words of `text` (plain words of
/// letters, outside code, listings and fillers; an acronym of at most
/// [`MAX_ACRONYM`] capitals joins compounds only), as (term, is a compound),
/// of the kinds `kinds` asks for: a light suffix rule (`mocked`, `mocking`,
/// `mocks` → `mock`; `mapped` → `map`; `parsed` → `parse`; `libraries` →
/// `library`; not of stopwords) and two adjacent words joined ("man page" →
/// `manpage`, "file middleware" → `filemiddleware`, the lowercase whole of
/// `FileMiddleware`; at most [`MAX_COMPOUNDS`]). A compound may hold one
/// stopword ("file", "get", "list"): the words a reporter writes apart are
/// often one name in code, and stopwords are the commonest halves of such
/// names. At most [`MAX_ALTERNATES`] in all.
/// Candidates that exist in no file match nothing; the caller adds only
/// those the task does not already hold, at weight [`ALTERNATE`], not
/// code-like and never task identifiers, so they add matches without a
/// definition and leave each exact term's weight as it was.
fn alternates(text: &str, kinds: Alternates) -> Vec<(String, AltKind)> {
    let mut out: Vec<(String, AltKind)> = Vec::new();
    if kinds == Alternates::default() {
        return out;
    }
    let spans = code::code_spans(text);
    let listings = code::listing_spans(text);
    // An acronym ("SYN", "HTTP", "JSON") joins a compound as a word would
    // ("SYN cookies" is `syncookies.c`, "JSON encoder" `JsonEncoder.java`),
    // but gives no stem.
    let acronym = |id: &str| {
        (2..=MAX_ACRONYM).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_uppercase())
    };
    let prose = |pos: usize, id: &str| {
        let b = id.as_bytes();
        b.len() >= 2
            && b[0].is_ascii_alphabetic()
            && (b[1..].iter().all(u8::is_ascii_lowercase) || acronym(id))
            && !code::within(&spans, pos)
            && !code::within(&listings, pos)
            && !code::is_called_or_member(text, pos, id.len())
            && !is_filler(&id.to_ascii_lowercase())
    };
    let push = |t: String, kind: AltKind, out: &mut Vec<(String, AltKind)>| {
        if t.len() >= 3 && !is_stopword(&t) && !out.iter().any(|(o, _)| *o == t) {
            out.push((t, kind));
        }
    };
    let mut compounds = 0;
    // The previous prose word: where it ends, lowercase, a stopword.
    let mut prev: Option<(usize, String, bool)> = None;
    for (pos, id) in identifiers(text) {
        if out.len() >= MAX_ALTERNATES {
            out.truncate(MAX_ALTERNATES);
            break;
        }
        if !prose(pos, id) {
            prev = None;
            continue;
        }
        let lower = id.to_ascii_lowercase();
        let stop = is_stopword(&lower);
        if kinds.derived && !stop && !acronym(id) {
            for verb in derived_stems(&lower) {
                push(verb, AltKind::Derived, &mut out);
            }
        }
        if kinds.stems && !stop && !acronym(id) {
            for stem in light_stems(&lower) {
                push(stem, AltKind::Stem, &mut out);
            }
        }
        if let Some((end, first, first_stop)) = prev.take() {
            // Two words separated by one space, in one sentence, not both
            // stopwords.
            if kinds.compounds
                && compounds < MAX_COMPOUNDS
                && &text[end..pos] == " "
                && !(stop && first_stop)
            {
                compounds += 1;
                push(format!("{first}{lower}"), AltKind::Compound, &mut out);
            }
        }
        prev = Some((pos + id.len(), lower, stop));
    }
    out
}

/// The verbs a lowercase noun of the task is made from, by the
/// `-ization`, `-ation`, `-ion` and `-ment` rules of Porter's steps 2-4
/// (M. F. Porter, "An algorithm for suffix stripping", 1980), kept to stems
/// of four letters or more and spelled as code spells the verb:
/// `normalization` → `normalize`, `validation` → `validate`, `valid`,
/// `configuration` → `configure`, `extraction` → `extract`, `deletion` →
/// `delete`, `alignment` → `align` (a noun in the plural first loses its
/// `-s`). A report names the operation ("the extraction fails"), the code
/// the function (`extract`).
fn derived_stems(w: &str) -> Vec<String> {
    let mut out = Vec::new();
    let noun = w.strip_suffix('s').unwrap_or(w);
    let verbs = |b: &str, ends: &[&str], out: &mut Vec<String>| {
        for e in ends {
            if b.len() + e.len() >= 4 {
                out.push(format!("{b}{e}"));
            }
        }
    };
    if let Some(b) = noun
        .strip_suffix("ization")
        .or_else(|| noun.strip_suffix("isation"))
    {
        verbs(b, &["ize", "ise"], &mut out);
    } else if let Some(b) = noun.strip_suffix("ation") {
        verbs(b, &["ate", "e", ""], &mut out);
    } else if let Some(b) = noun
        .strip_suffix("tion")
        .or_else(|| noun.strip_suffix("sion"))
    {
        // `-t`/`-s` stays: `extraction` → `extract`, `deletion` → `delete`.
        let b = &noun[..b.len() + 1];
        verbs(b, &["", "e"], &mut out);
    } else if let Some(b) = noun.strip_suffix("ment") {
        verbs(b, &["", "e"], &mut out);
    }
    out
}

/// The stems a light suffix rule gives a lowercase word of five letters or
/// more: `-ies` → `-y`; `-ing`/`-ed` dropped (and a doubled last consonant
/// undoubled, or an `e` restored: `mapped` → `map`, `parsed` → `parse`);
/// `-es` and `-s` dropped (not `-ss`, `-us`, `-is`).
fn light_stems(w: &str) -> Vec<String> {
    let mut out = Vec::new();
    if w.len() < 5 {
        return out;
    }
    let base = |b: &str, out: &mut Vec<String>| {
        let bytes = b.as_bytes();
        let n = bytes.len();
        if n >= 3 && bytes[n - 1] == bytes[n - 2] && !b"aeiouls".contains(&bytes[n - 1]) {
            out.push(b[..n - 1].to_string());
        } else {
            out.push(b.to_string());
        }
        out.push(format!("{b}e"));
    };
    if let Some(b) = w.strip_suffix("ies") {
        out.push(format!("{b}y"));
    } else if let Some(b) = w.strip_suffix("ing") {
        base(b, &mut out);
    } else if let Some(b) = w.strip_suffix("ed") {
        base(b, &mut out);
    } else if let Some(b) = w.strip_suffix("es") {
        out.push(format!("{b}e"));
        out.push(b.to_string());
    } else if !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is")) {
        if let Some(b) = w.strip_suffix('s') {
            out.push(b.to_string());
        }
    }
    out
}

/// Occurrence weight of a word in a pasted listing (a mention counts 1):
/// a term only listed still enters the query, below what the task says.
const LISTED: f64 = 0.25;

/// Stopwords that stay stopwords even in code (`self`, `the`, `return`): the
/// words every snippet of a language holds.
fn is_filler(lower: &str) -> bool {
    matches!(
        lower,
        "self"
            | "this"
            | "the"
            | "and"
            | "for"
            | "not"
            | "return"
            | "none"
            | "null"
            | "true"
            | "false"
            | "def"
            | "class"
            | "import"
            | "from"
            | "let"
            | "var"
            | "const"
            | "new"
            | "int"
            | "str"
            | "print"
            | "with"
    )
}

/// The query's terms from (occurrence weight, code-like, order of first
/// mention) per term: at most [`MAX_QUERY_TERMS`], the most informative
/// (see there), heaviest first; the terms in `alternative` are marked so
/// (and as compounds where it says true). With what was cut, if any.
fn most_informative(
    counts: Counts,
    alternative: &HashMap<String, AltKind>,
) -> (Vec<Term>, Option<crate::types::TermsCut>) {
    let mut terms: Vec<(Term, usize)> = counts
        .into_iter()
        .map(|(text, (n, is_code, first))| {
            let term = Term {
                hash: term_hash(&text),
                // 1 + ln(n) from one mention up; a listed-only term
                // (n < 1) keeps its fraction.
                weight: if n >= 1.0 { 1.0 + n.ln() } else { n },
                alternative: alternative.contains_key(&text),
                compound: alternative.get(&text) == Some(&AltKind::Compound),
                derived: alternative.get(&text) == Some(&AltKind::Derived),
                subname_of: match alternative.get(&text) {
                    Some(&AltKind::Subname(of)) => Some(of),
                    _ => None,
                },
                action: false,
                text,
                is_code,
            };
            (term, first)
        })
        .collect();
    let mut cut = None;
    if terms.len() > MAX_QUERY_TERMS {
        let total = terms.iter().filter(|(t, _)| !t.alternative).count();
        // The task's first words, then the most informative (see
        // MAX_QUERY_TERMS); O(n) selections. An alternative term (a stem, a
        // compound) never takes the place of a word the task holds, even
        // one only listed.
        let by_mention = |(t, first): &(Term, usize)| (t.alternative, *first);
        terms.select_nth_unstable_by_key(FIRST_MENTIONED_KEPT - 1, by_mention);
        let key = |(t, first): &(Term, usize)| {
            (
                t.alternative,
                std::cmp::Reverse(t.weight.to_bits()),
                !t.is_code,
                std::cmp::Reverse(t.text.len()),
                *first,
            )
        };
        let rest = &mut terms[FIRST_MENTIONED_KEPT..];
        rest.select_nth_unstable_by_key(MAX_QUERY_TERMS - FIRST_MENTIONED_KEPT - 1, key);
        let mut dropped: Vec<(Term, usize)> = terms.split_off(MAX_QUERY_TERMS);
        dropped.retain(|(t, _)| !t.alternative);
        dropped.sort_unstable_by_key(|&(_, first)| first);
        let kept = terms.iter().filter(|(t, _)| !t.alternative).count();
        // Only stems or compounds left out: every word of the task is
        // searched for, nothing to report.
        cut = (!dropped.is_empty()).then(|| crate::types::TermsCut {
            kept,
            total,
            dropped: dropped
                .into_iter()
                .take(DROPPED_SHOWN)
                .map(|(t, _)| t.text)
                .collect(),
        });
    }
    let mut terms: Vec<Term> = terms.into_iter().map(|(t, _)| t).collect();
    terms.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.text.cmp(&b.text)));
    (terms, cut)
}

/// An identifier of most languages: ASCII letters, digits and `_`, not
/// starting with a digit.
fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !s.as_bytes()[0].is_ascii_digit()
}

/// Leading segments of a `::` path that name no directory: Rust's
/// `crate::`, `self::`, `super::` (the rest is relative to the crate).
const PATH_KEYWORDS: [&str; 3] = ["crate", "self", "super"];

/// Verbs that open a commit or issue title to say what kind of change it
/// is, not what it changes ("Update the parser tests", "Handle `null`
/// input", "Remove unstable cfgs"): the usual imperative verbs of commit
/// titles. Verbs that name a behaviour of the code itself ("Register
/// devices", "Verify the signature", "Parse …") are not here: a file may
/// be named after those. Sorted (binary search).
const CHANGE_VERBS: &[&str] = &[
    "add",
    "adjust",
    "allow",
    "avoid",
    "bump",
    "change",
    "clean",
    "cleanup",
    "correct",
    "deprecate",
    "disable",
    "document",
    "drop",
    "enable",
    "ensure",
    "expose",
    "extend",
    "fix",
    "handle",
    "implement",
    "improve",
    "introduce",
    "keep",
    "make",
    "move",
    "optimize",
    "prefer",
    "preserve",
    "prevent",
    "reduce",
    "refactor",
    "remove",
    "rename",
    "replace",
    "respect",
    "restore",
    "revert",
    "rework",
    "simplify",
    "skip",
    "support",
    "tidy",
    "tweak",
    "update",
    "upgrade",
    "use",
];

/// The title's first word when it is a plain word among [`CHANGE_VERBS`]
/// (lowercased).
fn change_verb(title: &str) -> Option<String> {
    let first = title.split_whitespace().next()?;
    plain_word(first).filter(|w| CHANGE_VERBS.binary_search(&w.as_str()).is_ok())
}

/// File paths and modules written in the text. A module is a name path of
/// two or more identifiers in its language's syntax, kept with `/` between
/// the parts: dotted (`sympy.core.expr`, Java's `com.example.Foo`,
/// Elixir's `Phoenix.VerifiedRoutes`), `::` (Ruby's
/// `RuboCop::Cop::Style::RedundantSelf`, Rust's `tokio::sync::mpsc`, C++'s
/// `simdjson::dom::parser`) or `\` (PHP's `Illuminate\Support\Str`).
/// `score::explicit` matches a module to a file path case-blind and without
/// `_`/`-`, as these languages name a file after its module.
fn structural_references(text: &str) -> (Vec<String>, Vec<String>) {
    let mut paths = Vec::new();
    let mut modules = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut add_module = |segs: &[&str], seen: &mut HashSet<String>| {
        if segs.len() >= 2 && segs.iter().all(|s| is_identifier(s)) {
            let m = segs.join("/");
            if seen.insert(format!("m{m}")) {
                modules.push(m);
            }
        }
    };
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    for chain in text.split(|c: char| !is_name_char(c)) {
        if !chain.contains("::") {
            continue;
        }
        let segs: Vec<&str> = chain.split("::").filter(|s| !s.is_empty()).collect();
        let start = segs
            .iter()
            .take_while(|s| PATH_KEYWORDS.contains(s))
            .count();
        add_module(&segs[start..], &mut seen);
    }
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_-./\\".contains(c);
    for raw in text.split(|c: char| !is_path_char(c)) {
        let token = raw.trim_matches(|c: char| c == '.' || c == '-');
        if token.len() < 3 {
            continue;
        }
        // A PHP namespace: `\`-separated identifiers, no extension, no `/`.
        if token.contains('\\') && !token.contains(['/', '.']) {
            let segs: Vec<&str> = token.split('\\').filter(|s| !s.is_empty()).collect();
            add_module(&segs, &mut seen);
            continue;
        }
        let token = token.replace('\\', "/");
        let ext = token.rsplit_once('.').map(|(_, e)| e);
        let has_ext = ext.is_some_and(is_path_extension);
        let dots = token.matches('.').count();
        if has_ext && (token.contains('/') || dots == 1) {
            // Keep the part after the last `site-packages/` or absolute prefix.
            let p = token
                .rsplit_once("site-packages/")
                .map_or(token.as_str(), |(_, p)| p);
            let p = p.trim_start_matches('/').to_string();
            if seen.insert(format!("p{p}")) {
                paths.push(p);
            }
        }
        // A dotted name of identifiers is a module, also when its last part
        // is a file extension: `format="ascii.rst"` names the module
        // `ascii/rst` (`io/ascii/rst.py`) as much as a file `ascii.rst`,
        // and `astropy.io.ascii.rst` is a module only. Both readings are
        // kept and the tree decides: a module matches only a file at that
        // path (two segments or more, see `score::explicit`), so a reading
        // that names nothing (`setup/py`) costs nothing.
        if !token.contains('/') && dots >= 1 {
            let segs: Vec<&str> = token.split('.').collect();
            add_module(&segs, &mut seen);
        }
    }
    (paths, modules)
}

/// Terms of `text` that are query terms (for snippets and gaps).
pub fn query_hits(text: &str, q: &TaskQuery) -> f64 {
    let mut seen: Vec<u64> = Vec::new();
    let mut score = 0.0;
    for_each_term_hash(text, |h| {
        if let Some(w) = q.weight_of(h) {
            if !seen.contains(&h) {
                seen.push(h);
                score += w;
            }
        }
    });
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_told_from_a_bug_report_titled_as_one() {
        for q in [
            "Where is the LaTeX printer for Integral implemented?",
            "how does ripgrep decide that a file is binary?",
            "With --smart-case, how does ripgrep decide whether a pattern is case sensitive?",
            "Does requests drop the Authorization header on a redirect?",
            "In what order are Session.mount adapters tried? I saw...",
            "where is the LaTeX printer for Integral implemented",
            "Find the code that picks a class's creator",
            "  Which hostnames get certificates (self-signed) e.g. localhost",
            "What's the LaTeX printer for Integral?",
            "So e.g. where is the printer chosen?",
        ] {
            assert!(is_question(q), "{q}");
        }
        for q in [
            "Symbol instances have __dict__ since 1.7?",
            "can't simplify sin/cos with Rational?\nlatest cloned sympy",
            "Fix changed? for removed one relations",
            "Do not treat zero-length reads as EOF in `Chain`",
            "When using C++11, we could violate the one definition rule",
            "Show which source blocked a package version",
            "Findings: the cache is stale",
            "Query breaks in where_clause?",
            "Crash in x.what_is()?",
            "Crashes with --how flag?",
            "`where` clause is ignored?",
            "Fix the where clause of a join. Why? Nobody knows",
            "solveset raises NotImplementedError",
            "",
            "?",
        ] {
            assert!(!is_question(q), "{q}");
        }
    }

    #[test]
    fn filler_words_and_case_split_fragments_are_not_terms() {
        let q = TaskQuery::new("where is the LaTeX printer for Integral implemented", &[]);
        let terms: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        for t in ["latex", "printer", "integral"] {
            assert!(terms.contains(&t), "{t}: {terms:?}");
        }
        for t in ["la", "te", "where", "implemented"] {
            assert!(!terms.contains(&t), "{t}: {terms:?}");
        }
        let q = TaskQuery::new("where is url_for defined or located", &[]);
        let terms: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        assert!(
            terms.contains(&"url_for") && terms.contains(&"url"),
            "{terms:?}"
        );
        assert!(
            !terms.contains(&"defined") && !terms.contains(&"located"),
            "{terms:?}"
        );
    }

    #[test]
    fn names_used_as_code_survive_stopwording_and_hyphens_join() {
        let q = TaskQuery::new(
            "np.where(mask) returns wrong dtype\nWhere does curl --retry-all-errors retry?",
            &[],
        );
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        assert!(has("where"), "called, `where` is a name");
        assert!(has("retry_all_errors"), "the flag is a snake-case name");
        assert!(q.identifiers.contains(&"retry_all_errors".to_string()));
        // As prose it stays a stopword.
        let q = TaskQuery::new("Where does the mask go wrong", &[]);
        assert!(!q.terms.iter().any(|x| x.text == "where"));
    }

    #[test]
    fn receivers_of_a_dotted_chain_are_terms_but_no_definition_names() {
        let q = TaskQuery::new(
            "Use `os.path.abspath()` instead of `Path.resolve()`\n\nnp.where(m) fails",
            &[],
        );
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        let ident = |t: &str| q.identifiers.iter().any(|i| i == t);
        for r in ["os", "path", "np"] {
            assert!(has(r), "{r} is still a term: {:?}", q.terms);
            assert!(!ident(r), "{r} is a receiver, no definition name");
        }
        for n in ["abspath", "Path", "resolve", "where"] {
            assert!(ident(n), "{n} is a name: {:?}", q.identifiers);
        }
        // Written as a name elsewhere, the word is one again.
        let q = TaskQuery::new("os.path.join breaks `path` handling", &[]);
        assert!(q.identifiers.iter().any(|i| i == "path"));
        let code = q.terms.iter().find(|x| x.text == "path").map(|t| t.is_code);
        assert_eq!(code, Some(true));
    }

    #[test]
    fn a_stopword_alone_in_backticks_is_a_name() {
        let q = TaskQuery::new("Masking with `where` drops the dtype", &[]);
        let w = q.terms.iter().find(|x| x.text == "where");
        assert!(w.is_some_and(|t| t.is_code), "{:?}", q.terms);
        assert!(q.identifiers.contains(&"where".to_string()));
    }

    #[test]
    fn flags_and_hyphenated_names_in_code_join_but_prose_words_do_not() {
        let q = TaskQuery::new(
            "Output ignores --no-color\nBuilding `libfoo-c` fails on read-only disks",
            &[],
        );
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        assert!(has("no_color"), "a flag is a snake-case name");
        assert!(has("libfoo_c"), "a crate `libfoo-c` is `libfoo_c` in code");
        assert!(!has("read_only"), "two-part prose words stay words");
    }

    #[test]
    fn prose_words_get_weaker_stems_and_compounds_without_changing_exact_terms() {
        let task = "Tests fail when requests are mocked\nthe man page of the mapped libraries";
        let q = TaskQuery::with_alternates(task, &[], &[], ALL, &|| false);
        let term = |t: &str| q.terms.iter().find(|x| x.text == t).cloned();
        for (alt, from) in [
            ("mock", "mocked"),
            ("manpage", "man"),
            ("map", "mapped"),
            ("library", "libraries"),
            ("request", "requests"),
        ] {
            let a = term(alt).unwrap_or_else(|| panic!("{alt}: {:?}", q.terms));
            let exact = term(from).expect("the exact word stays");
            assert!(a.weight < exact.weight, "{alt} weighs less than {from}");
            assert!(!a.is_code, "{alt} is not code-like");
            assert!(a.alternative && !exact.alternative, "{alt} is marked");
            assert!(
                !q.identifiers.iter().any(|i| i == alt),
                "{alt} names no definition"
            );
        }
        // An exact term keeps its weight when it is also another word's stem.
        let weight = |task: &str| {
            let q = TaskQuery::with_alternates(task, &[], &[], ALL, &|| false);
            q.terms.iter().find(|x| x.text == "mock").unwrap().weight
        };
        assert_eq!(
            weight("mock the mocked requests"),
            weight("mock the requests")
        );
        // Code is not stemmed.
        let q3 = TaskQuery::with_alternates(
            "call `parsed_args` and ids.values()",
            &[],
            &[],
            ALL,
            &|| false,
        );
        assert!(!q3.terms.iter().any(|x| x.text == "value" || x.text == "id"));
        // The default query (`Weights::alternate` 0) builds none: they
        // would be counted in every file for nothing.
        let plain = TaskQuery::new(task, &[]);
        assert!(
            plain.terms.iter().all(|t| !t.alternative),
            "{:?}",
            plain.terms
        );
        assert!(!plain.terms.iter().any(|t| t.text == "mock"));
    }

    /// Both kinds of alternative terms.
    const ALL: Alternates = Alternates {
        stems: true,
        compounds: true,
        subnames: false,
        derived: false,
    };

    #[test]
    fn a_noun_made_from_a_verb_gives_the_verb() {
        let has = |w: &str, stem: &str| derived_stems(w).iter().any(|s| s == stem);
        for (w, stem) in [
            ("normalization", "normalize"),
            ("validation", "validate"),
            ("validation", "valid"),
            ("configuration", "configure"),
            ("transformations", "transform"),
            ("extraction", "extract"),
            ("compression", "compress"),
            ("deletion", "delete"),
            ("alignment", "align"),
            ("requirements", "require"),
        ] {
            assert!(has(w, stem), "{w} → {stem}: {:?}", derived_stems(w));
        }
        // No stem under four letters; a word of no such suffix has none.
        assert!(derived_stems("option").iter().all(|s| s.len() >= 4));
        assert!(derived_stems("mapped").is_empty());
        // In a task: the verb is an alternative term of its own kind,
        // weaker than the word, built only when asked for.
        let only = Alternates {
            derived: true,
            ..Alternates::default()
        };
        let q = TaskQuery::with_alternates("Fix extraction of archives", &[], &[], only, &|| false);
        let t = |x: &str| q.terms.iter().find(|t| t.text == x).cloned();
        let (verb, word) = (t("extract").expect("a verb"), t("extraction").unwrap());
        assert!(verb.alternative && verb.derived && !verb.compound);
        assert!(verb.weight < word.weight);
        assert!(t("archive").is_none(), "no plural stem: {:?}", q.terms);
        let q =
            TaskQuery::with_alternates("Fix extraction", &[], &[], Alternates::default(), &|| {
                false
            });
        assert!(!q.terms.iter().any(|t| t.text == "extract"));
    }

    #[test]
    fn the_words_of_an_install_location_are_not_task_terms() {
        // Probe P11: a traceback's venv path made `site`, `packages`, `lib`
        // task words, and flask's scaffold.py "matched lib, site,
        // packages" above app.py.
        let task = "Crash on startup\n  File \"/home/me/.venv/lib/python3.11/site-packages/flask/app.py\", line 9, in run\n    raise KeyError(name)\n  File \"web/node_modules/vue/dist/vue.js\", line 3";
        let q = TaskQuery::new(task, &[]);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        for gone in [
            "home", "venv", "lib", "python3", "site", "packages", "node", "modules",
        ] {
            assert!(!has(gone), "{gone}: {:?}", q.terms);
        }
        // What follows the install directory is the package's own path.
        for kept in [
            "flask", "app", "vue", "dist", "crash", "startup", "keyerror",
        ] {
            assert!(has(kept), "{kept}: {:?}", q.terms);
        }
        // Prose naming the words is untouched.
        let q = TaskQuery::new("site packages are listed in lib", &[]);
        assert!(q.terms.iter().any(|t| t.text == "packages"));
    }

    #[test]
    fn an_acronym_joins_a_compound_but_gives_no_stem() {
        // Probe P2: "SYN cookies" is the kernel's `syncookies.c`; "JSON
        // encoder" a `JsonEncoder` class. Compounds were built from
        // lowercase words only.
        let task = "where are TCP SYN cookies validated\nJSON encoder drops NaN; HTTPS checks; READONLY mode";
        let all = Alternates {
            stems: true,
            compounds: true,
            subnames: false,
            derived: false,
        };
        let q = TaskQuery::with_alternates(task, &[], &[], all, &|| false);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t && x.alternative);
        for c in ["syncookies", "tcpsyn", "jsonencoder"] {
            assert!(has(c), "{c}: {:?}", q.terms);
        }
        // No stem of an acronym ("HTTPS" is not "http"s), and a long
        // all-capitals word is not an acronym.
        assert!(!has("http"), "{:?}", q.terms);
        assert!(!has("readonlymode"), "{:?}", q.terms);
    }

    #[test]
    fn two_adjacent_prose_words_make_a_compound_even_with_one_stopword() {
        let task = "Added a cache policy for file middleware\nfix bug: the file is empty for each `list files` call";
        let only = Alternates {
            stems: false,
            compounds: true,
            subnames: false,
            derived: false,
        };
        let q = TaskQuery::with_alternates(task, &[], &[], only, &|| false);
        let term = |t: &str| q.terms.iter().find(|x| x.text == t);
        // "file" is a stopword, but "file middleware" is `FileMiddleware`.
        for c in ["filemiddleware", "cachepolicy", "isempty"] {
            let t = term(c).unwrap_or_else(|| panic!("{c}: {:?}", q.terms));
            assert!(t.compound && t.alternative && !t.is_code, "{t:?}");
            assert!(
                !q.identifiers.iter().any(|i| i == c),
                "{c} names no definition"
            );
        }
        // Not two stopwords ("fix bug"), not with a filler ("for each",
        // "the file"), not inside code, and no stems unless asked for.
        for none in ["fixbug", "foreach", "thefile", "listfiles"] {
            assert!(term(none).is_none(), "{none}: {:?}", q.terms);
        }
        assert!(q.terms.iter().filter(|t| t.alternative).all(|t| t.compound));
        // Past the cap of query terms, the task's own words stay and the
        // compounds go, though a listed word weighs less than a compound.
        // (A package listing: each word weighs `LISTED`.)
        let words: Vec<String> = (0..MAX_QUERY_TERMS)
            .map(|i| format!("pkg{i:04}x 1.0.0"))
            .collect();
        let long = format!("file middleware\n\n{}\n", words.join("\n"));
        let q = TaskQuery::with_alternates(&long, &[], &[], only, &|| false);
        assert_eq!(q.terms.len(), MAX_QUERY_TERMS);
        assert!(
            q.terms.iter().all(|t| !t.alternative),
            "a compound was kept"
        );
        // Stems only: no compound.
        let stems = Alternates {
            stems: true,
            compounds: false,
            subnames: false,
            derived: false,
        };
        let q = TaskQuery::with_alternates(task, &[], &[], stems, &|| false);
        assert!(q.terms.iter().all(|t| !t.compound), "{:?}", q.terms);
    }

    #[test]
    fn a_dotted_name_ending_in_an_extension_is_also_a_module() {
        let q = TaskQuery::new(
            "Table.read(f, format=\"ascii.rst\") fails; astropy.io.ascii.rst too. See setup.py",
            &[],
        );
        for m in ["ascii/rst", "astropy/io/ascii/rst", "Table/read"] {
            assert!(q.modules.contains(&m.to_string()), "{m}: {:?}", q.modules);
        }
        assert!(q.paths.contains(&"ascii.rst".to_string()), "{:?}", q.paths);
        assert!(q.paths.contains(&"setup.py".to_string()), "{:?}", q.paths);
    }

    #[test]
    fn prose_words_are_not_code_but_backticked_called_and_dotted_ones_are() {
        let q = TaskQuery::new(
            "The session context leaks\nCall `Variable` and ctx.usage() after `git clone x`",
            &[],
        );
        let code = |t: &str| q.terms.iter().find(|x| x.text == t).map(|x| x.is_code);
        assert_eq!(code("session"), Some(false));
        assert_eq!(code("context"), Some(false));
        assert_eq!(code("clone"), Some(false));
        assert_eq!(code("variable"), Some(true));
        assert_eq!(code("usage"), Some(true));
    }

    #[test]
    fn a_pasted_package_list_weighs_little_and_names_no_identifier() {
        let q = TaskQuery::new(
            "Plot legend is missing\nthe legend vanishes\n\nnumpy 1.26.4\npandas 2.1.0\nmatplotlib 3.8.2\n",
            &[],
        );
        let w = |t: &str| q.terms.iter().find(|x| x.text == t).map(|x| x.weight);
        let pandas = w("pandas").expect("listed terms stay terms");
        assert!(pandas > 0.0 && pandas < w("vanishes").unwrap(), "{pandas}");
        assert!(!q.identifiers.iter().any(|i| i == "pandas"));
    }

    #[test]
    fn task_query_drops_boilerplate_and_weights_repeats() {
        let q = TaskQuery::new(
            "Fix the token expiry bug\nThe token expires too early.",
            &[],
        );
        let names: Vec<&str> = q.terms.iter().map(|t| t.text.as_str()).collect();
        assert!(
            names.contains(&"token") && names.contains(&"expiry"),
            "{names:?}"
        );
        assert!(!names.contains(&"fix") && !names.contains(&"the") && !names.contains(&"bug"));
        let token = q.terms.iter().find(|t| t.text == "token").unwrap();
        let expires = q.terms.iter().find(|t| t.text == "expires").unwrap();
        assert!(
            token.weight > expires.weight,
            "repeated and title terms weigh more"
        );
    }

    /// Knuth's MMIX linear congruential generator from `seed`: words for
    /// long tasks, the same on every run.
    fn lcg(seed: u64) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(seed), |x| {
            Some(
                x.wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407),
            )
        })
        .skip(1)
    }

    #[test]
    fn a_cut_query_keeps_the_tasks_first_words_and_says_what_it_left_out() {
        // Probe P9: one line, three prose words, then 2,000 three-part
        // identifiers (8,003 terms), all of the same weight: the longer,
        // code-like identifiers took every place and the prose was lost.
        let mut task = String::from("session cookie samesite");
        for (i, x) in lcg(7).take(2000).enumerate() {
            task.push_str(&format!(" q{:x}_r{i}_s{:x}", x >> 44, x >> 20 & 0xfffff));
        }
        let q = TaskQuery::new(&task, &[]);
        assert_eq!(q.terms.len(), MAX_QUERY_TERMS);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        for t in ["session", "cookie", "samesite"] {
            assert!(has(t), "{t} kept");
        }
        let cut = q.cut.expect("the query was cut");
        // Each identifier whole and its parts; some parts repeat.
        assert_eq!(cut.kept, MAX_QUERY_TERMS);
        assert!(cut.total > 7_000, "{}", cut.total);
        assert_eq!(cut.dropped.len(), DROPPED_SHOWN);
        // Named in order of mention, and none of them searched for.
        for w in &cut.dropped {
            assert!(!has(w), "{w} is both kept and dropped");
        }
        let pos = |w: &str| task.to_ascii_lowercase().find(w).unwrap();
        assert!(cut.dropped.windows(2).all(|p| pos(&p[0]) <= pos(&p[1])));
        // A task under the cap is not cut.
        assert!(TaskQuery::new("session cookie samesite", &[]).cut.is_none());
        // Nor one over it by its compounds alone: 1,000 distinct words in
        // pairs give compounds past the cap, all of the task's words stay.
        let letters = |x: u64| -> String {
            (0..7)
                .map(|i| (b'a' + (x >> (20 + 5 * i) & 0xf) as u8) as char)
                .collect()
        };
        let words: String = lcg(3).take(1000).map(|x| letters(x) + " ").collect();
        let compounds = Alternates {
            stems: false,
            compounds: true,
            subnames: false,
            derived: false,
        };
        let q = TaskQuery::with_alternates(&words, &[], &[], compounds, &|| false);
        assert!(q.terms.len() == MAX_QUERY_TERMS && q.terms.iter().any(|t| t.compound));
        assert!(q.cut.is_none(), "{:?}", q.cut);
    }

    #[test]
    fn a_task_of_thousands_of_words_keeps_the_most_informative_terms() {
        // 8,000 distinct words (a pasted log, probe D5) after a title.
        let mut task = String::from("ZorblaxHandler drops events\n");
        for x in lcg(1).take(8000) {
            task.push_str(&format!("w{:x} ", x >> 40));
        }
        task.push_str("\nplain_word_mentioned_last");
        let q = TaskQuery::new(&task, &["keyword_given".into()]);
        assert_eq!(q.terms.len(), MAX_QUERY_TERMS);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        // The title's terms and the agent's keyword weigh most; a code-like
        // term mentioned once outranks the plain words.
        for t in [
            "zorblaxhandler",
            "zorblax",
            "handler",
            "drops",
            "events",
            "keyword_given",
        ] {
            assert!(has(t), "{t} kept");
        }
        assert!(has("plain_word_mentioned_last"), "code-like terms are kept");
        // Task identifiers are those whose term was kept.
        assert!(q.identifiers.contains(&"ZorblaxHandler".to_string()));
        assert!(q.identifiers.len() <= MAX_QUERY_TERMS + 1);
        assert!(q
            .identifiers
            .iter()
            .all(|i| q.weight_of(term_hash(i)).is_some()));
        // A stopped call reads no more of the task than it had read.
        let q = TaskQuery::with_feedback(&task, &[], &[], &|| true);
        let has = |t: &str| q.terms.iter().any(|x| x.text == t);
        assert!(has("zorblax") && !has("plain_word_mentioned_last"));
    }

    #[test]
    fn paths_and_modules_are_pulled_out() {
        let q = TaskQuery::new(
            "Error in sympy.core.expr when calling\n  File \"/usr/lib/python3/site-packages/sympy/printing/latex.py\", line 3, in f\nsee src\\auth\\token.rs",
            &[],
        );
        assert!(
            q.paths.contains(&"sympy/printing/latex.py".to_string()),
            "{:?}",
            q.paths
        );
        assert!(
            q.paths.contains(&"src/auth/token.rs".to_string()),
            "{:?}",
            q.paths
        );
        assert!(
            q.modules.contains(&"sympy/core/expr".to_string()),
            "{:?}",
            q.modules
        );
    }

    #[test]
    fn the_verb_opening_a_title_is_an_action_unless_used_as_code() {
        let action = |task: &str| -> Vec<String> {
            let q = TaskQuery::new(task, &[]);
            q.terms
                .iter()
                .filter(|t| t.action)
                .map(|t| t.text.clone())
                .collect()
        };
        assert_eq!(
            action("Update some tests to use the new harness"),
            ["update"]
        );
        assert_eq!(
            action("Handle null input the same as an empty pipeline"),
            ["handle"]
        );
        // Not the first word, not a change verb, or used as code.
        assert!(action("Tests fail to update the cache").is_empty());
        assert!(action("Register devices with a team id").is_empty());
        assert!(action("Update `update` so it keeps the order").is_empty());
        assert!(action("Remove(x) leaves a dangling pointer").is_empty());
    }

    #[test]
    fn change_verbs_are_sorted() {
        assert!(CHANGE_VERBS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn module_paths_in_ruby_rust_cpp_and_php_syntax_are_modules() {
        let q = TaskQuery::new(
            "RuboCop::Cop::Style::RedundantSelf flags `self.x`; see crate::runtime::task::Id, \
             simdjson::dom::parser, \\Illuminate\\Support\\Str::slug() and std::vec. \
             Windows path C:\\Users\\me\\app.py and a::b",
            &[],
        );
        for m in [
            "RuboCop/Cop/Style/RedundantSelf",
            "runtime/task/Id",
            "simdjson/dom/parser",
            "Illuminate/Support/Str",
            "std/vec",
            "a/b",
        ] {
            assert!(q.modules.contains(&m.to_string()), "{m}: {:?}", q.modules);
        }
        // No `crate` segment, no module from a path with an extension.
        assert!(
            q.modules
                .iter()
                .all(|m| !m.starts_with("crate") && !m.contains("Users")),
            "{:?}",
            q.modules
        );
        assert!(
            q.paths.iter().any(|p| p.ends_with("me/app.py")),
            "{:?}",
            q.paths
        );
    }

    #[test]
    fn a_path_in_any_language_of_the_table_is_a_path() {
        let q = TaskQuery::new(
            "Crash in lib/phoenix/router.ex after editing init.lua, parser.dart, \
             src/Main.hs, R/join.R and components/Button.vue; see e.g. the docs",
            &[],
        );
        for p in [
            "lib/phoenix/router.ex",
            "init.lua",
            "parser.dart",
            "src/Main.hs",
            "R/join.R",
            "components/Button.vue",
        ] {
            assert!(q.paths.contains(&p.to_string()), "{p}: {:?}", q.paths);
        }
        assert!(
            !q.paths.iter().any(|p| p.starts_with("e.g")),
            "{:?}",
            q.paths
        );
    }

    #[test]
    fn a_word_longer_than_any_name_is_no_term() {
        let run = "x".repeat(16_000);
        let chain = vec!["ab"; 4_000].join("-");
        let q = TaskQuery::new(&format!("redirect {run} fails\n`{chain}`"), &[]);
        assert!(q.terms.iter().all(|t| t.text.len() <= MAX_TERM_BYTES));
        assert!(q.identifiers.iter().all(|i| i.len() <= MAX_TERM_BYTES));
        assert!(q.terms.iter().any(|t| t.text == "redirect"));
        // A long name within the bound stays a term.
        let name = "a_really_long_generated_name_".repeat(4);
        let q = TaskQuery::new(&format!("`{name}` fails"), &[]);
        assert!(q.terms.iter().any(|t| t.text == name), "{:?}", q.terms);
    }

    /// `task`'s query with sub-names (`Alternates::subnames`) and no other
    /// alternative terms.
    fn with_subnames(task: &str) -> TaskQuery {
        let subs = Alternates {
            subnames: true,
            ..Alternates::default()
        };
        TaskQuery::with_alternates(task, &[], &[], subs, &|| false)
    }

    #[test]
    fn a_new_name_made_of_an_old_one_finds_the_old_one() {
        // "Add orWhereKey and orWhereKeyNot": names no file holds yet,
        // made from `whereKey` and `whereKeyNot`, which Eloquent's
        // Builder.php defines.
        let task = "Add orWhereKey and orWhereKeyNot without changing existing signatures\nAlso `parse_strict_mode`.";
        let q = with_subnames(task);
        let of = |t: &str| q.terms.iter().find(|x| x.text == t).map(|x| x.hash);
        let sub = |t: &str, id: &str| {
            q.terms
                .iter()
                .any(|x| x.text == t && x.alternative && x.subname_of == of(id))
        };
        for (t, id) in [
            ("wherekey", "orwherekey"),
            ("wherekeynot", "orwherekeynot"),
            ("orwhere", "orwherekey"),
            ("strict_mode", "parse_strict_mode"),
            ("parse_strict", "parse_strict_mode"),
        ] {
            assert!(sub(t, id), "{t}: {:?}", q.terms);
        }
        // Two parts give none (`wherekey` of `whereKey` would be the word
        // itself), and the task's own identifiers stay what they were.
        assert!(q
            .terms
            .iter()
            .any(|x| x.text == "orwherekey" && !x.alternative));
        assert!(!q
            .terms
            .iter()
            .any(|x| x.subname_of.is_some() && x.text.len() < 5));
        // A query built without alternative terms has none.
        let plain = TaskQuery::new(task, &[]);
        assert!(
            plain.terms.iter().all(|t| t.subname_of.is_none()),
            "{:?}",
            plain.terms
        );
    }

    #[test]
    fn a_held_identifiers_sub_names_weigh_no_snippet_line() {
        // DataFrames.jl: `SubDataFrame` is in the tree, so `dataframe`
        // names nothing new, and snippets weighed every line holding it.
        let mut q = with_subnames("Reject transformations on SubDataFrame with orWhereKey");
        for t in ["dataframe", "subdata", "wherekey"] {
            assert!(q.weight_of(term_hash(t)).is_some(), "{t}: {:?}", q.terms);
        }
        let held = term_hash("subdataframe");
        q.forget_held_subnames(|h| h == held);
        assert!(q.weight_of(term_hash("dataframe")).is_none());
        assert!(q.weight_of(term_hash("subdata")).is_none());
        // The identifier itself, and a new name's sub-names, stay.
        assert!(q.weight_of(held).is_some());
        assert!(q.weight_of(term_hash("wherekey")).is_some());
    }
}
