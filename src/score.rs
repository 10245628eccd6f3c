//! EVALUATE's server side: BM25 over the walked corpus plus structural
//! evidence, calibrated to a relevance in [0, 1].
//!
//! raw = BM25(body) + path match + definition match + explicit reference,
//! times a prior for tests/docs/examples. The weights are in [`Weights`];
//! where they come from is noted on each field.

use crate::corpus::{holders_many, term_counts, Doc};
use crate::lang::{Cap, Symbols};
use crate::query::{for_each_term_hash, term_hash, TaskQuery};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

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
    /// Share of the best score added to a file the task names by path or module.
    pub explicit: f64,
    /// Multiplier for test files: gold files of fixes are never tests.
    pub test_prior: f64,
    /// Multiplier for docs, examples, benchmarks, and vendored or installed
    /// code (a dependency directory the query's globs re-opened, see
    /// `walk::DEPENDENCY_DIRS`).
    pub aside_prior: f64,
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
            explicit: 0.6,
            test_prior: 0.2,
            aside_prior: 0.4,
            init_prior: 0.85,
            other_prior: 0.6,
            tier_first: 0.0,
            idf_scope: 1.0,
            parse_cap: 60,
            neighbour: 0.1,
            neighbour_sources: 3,
            gap_floor: 0.62,
            later_discount: 0.9,
            min_bm25: 0.5,
        }
    }
}

impl Weights {
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
            "explicit" => &mut self.explicit,
            "test_prior" => &mut self.test_prior,
            "aside_prior" => &mut self.aside_prior,
            "init_prior" => &mut self.init_prior,
            "other_prior" => &mut self.other_prior,
            "tier_first" => &mut self.tier_first,
            "idf_scope" => &mut self.idf_scope,
            "neighbour" => &mut self.neighbour,
            "gap_floor" => &mut self.gap_floor,
            "later_discount" => &mut self.later_discount,
            "min_bm25" => &mut self.min_bm25,
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

/// Extra per-path evidence a cycle brings. `boosts`: directory prefixes (ending
/// in `/`) or paths whose raw score gains a share of the best score. `floors`:
/// paths whose relevance is at least the given value (a file that defines what
/// a high file uses is related context: medium tier).
#[derive(Debug, Clone, Default)]
pub struct Focus {
    pub boosts: Vec<(String, f64, String)>,
    pub floors: Vec<(String, f64, String)>,
}

/// A scored file.
#[derive(Debug, Clone)]
pub struct Scored {
    /// Index into the scored slice.
    pub idx: usize,
    pub raw: f64,
    /// Calibrated relevance in [0, 1].
    pub relevance: f64,
    pub reasons: Vec<String>,
    /// Task identifiers this file defines.
    pub defines: Vec<String>,
    /// The BM25 part of `raw` (after priors).
    pub lexical: f64,
    /// Whether relevance flowed to this file from a top file (graph edge).
    pub neighbour: bool,
    /// Whether a prior below 1 (test file, docs, ...) scaled this file's score.
    pub prior_applied: bool,
    /// Set when the task names this file or its module: calibration reads
    /// this, and its reason is rendered from it.
    pub named: Option<Named>,
    /// Set when this file was to be parsed but its symbols were capped (see
    /// [`Cap`]): it is ranked without definition or neighbour evidence.
    pub capped: Option<Cap>,
}

/// How the task names a file (explicit evidence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// The task names the file by a path it ends with.
    File(String),
    /// The task names the module (`a/b` for `a.b`) the file is.
    Module(String),
}

impl Named {
    /// The reason a file shows for this evidence.
    pub fn reason(&self) -> String {
        match self {
            Named::File(p) => format!("task names the file `{p}`"),
            Named::Module(m) => format!("task names the module `{}`", m.replace('/', ".")),
        }
    }
}

/// A document to score: its path and contents, and whether the cycle's globs let it through.
pub struct Candidate<'a> {
    pub rel: &'a str,
    pub doc: &'a Arc<Doc>,
    pub allowed: bool,
}

/// Scores every allowed candidate; IDF comes from all of them (the whole walked
/// corpus). Returns files with any evidence, best first; the first
/// [`EXPLAINED`] carry their reasons.
///
/// With `hurry` (the call's deadline has passed) nothing is parsed: no
/// definition or neighbour evidence, only BM25, paths and priors. `stop`
/// (the call's deadline or cancellation) is checked between the passes and
/// while files are parsed: once it returns true the passes left are skipped
/// and parses in progress stop, as with `hurry`.
pub fn score(
    cands: &[Candidate],
    q: &TaskQuery,
    focus: &Focus,
    w: &Weights,
    hurry: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Scored> {
    let docs: Vec<&Doc> = cands.iter().map(|c| &**c.doc).collect();
    let wanted: Vec<(u64, &str)> = q.terms.iter().map(|t| (t.hash, t.text.as_str())).collect();
    // tf[i][j]: occurrences of query term j in candidate i.
    let tf = term_counts(&docs, &wanted);
    // The collection BM25's N and mean length come from: every walked file, or
    // (idf_scope 1) only the files that share a term with the query.
    let in_scope = |i: usize| {
        w.idf_scope <= 0.0
            || tf[i].iter().any(|&n| n > 0)
            || q.terms
                .iter()
                .any(|t| cands[i].doc.path_terms.binary_search(&t.hash).is_ok())
    };
    let (count, total_len) = (0..cands.len())
        .filter(|&i| in_scope(i))
        .fold((0usize, 0f64), |(c, l), i| {
            (c + 1, l + cands[i].doc.text.len() as f64)
        });
    let n = count.max(1) as f64;
    let avgdl = total_len / n;
    let idf: Vec<f64> = doc_freqs(&tf, q.terms.len())
        .into_iter()
        .map(|df| {
            let df = f64::from(df);
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();

    // Lexical pass: BM25 over the body, plus path and file-name matches. Its
    // reasons are written at the end, for the files shown only.
    let lexical = |idx: usize, why: Option<&mut Vec<String>>| -> (f64, f64) {
        let doc = cands[idx].doc;
        let norm = w.k1 * (1.0 - w.b + w.b * doc.text.len() as f64 / avgdl.max(1.0));
        let (mut bm25, mut path) = (0.0, 0.0);
        let mut hits: Vec<(f64, &str)> = Vec::new();
        let mut path_hits: Vec<&str> = Vec::new();
        for ((t, &idf), &tf) in q.terms.iter().zip(&idf).zip(&tf[idx]) {
            let tf = f64::from(tf);
            if tf > 0.0 {
                let s = t.weight * idf * tf * (w.k1 + 1.0) / (tf + norm);
                bm25 += s;
                hits.push((s, &t.text));
            }
            if doc.path_terms.binary_search(&t.hash).is_ok() {
                let stem = doc.stem_terms.contains(&t.hash);
                path += t.weight * idf * (w.path + if stem { w.stem } else { 0.0 });
                path_hits.push(&t.text);
            }
        }
        if let Some(why) = why {
            hits.sort_by(|a, b| b.0.total_cmp(&a.0));
            if !hits.is_empty() {
                let top: Vec<&str> = hits.iter().take(6).map(|h| h.1).collect();
                why.push(format!("BM25 {bm25:.1}: matches {}", top.join(", ")));
            }
            if !path_hits.is_empty() {
                why.push(format!("path matches {}", path_hits.join(", ")));
            }
        }
        (bm25, path)
    };
    let mut scored: Vec<Scored> = cands
        .par_iter()
        .enumerate()
        .filter(|(_, c)| c.allowed)
        .filter_map(|(idx, _)| {
            let (bm25, path) = lexical(idx, None);
            (bm25 + path > 0.0).then(|| Scored {
                idx,
                raw: bm25 + path,
                relevance: 0.0,
                reasons: Vec::new(),
                defines: Vec::new(),
                lexical: bm25,
                neighbour: false,
                prior_applied: false,
                named: None,
                capped: None,
            })
        })
        .collect();
    scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));

    let t = std::time::Instant::now();
    let hurry = hurry || stop();
    let parsed = if hurry {
        HashMap::new()
    } else {
        definition_pass(cands, q, w, &mut scored, n, &tf, stop)
    };
    tracing::debug!(
        parsed = parsed.len(),
        ms = t.elapsed().as_millis() as u64,
        "definition pass"
    );
    for s in &mut scored {
        let prior = prior(&cands[s.idx], w);
        if prior.0 < 1.0 {
            s.raw *= prior.0;
            s.lexical *= prior.0;
            s.prior_applied = true;
        }
    }
    if !hurry && !stop() {
        neighbour_pass(cands, w, &mut scored, &parsed, n);
    }
    explicit_pass(cands, q, focus, w, &mut scored);

    scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
    calibrate(&mut scored, q, &idf, &tf, w);
    for s in scored.iter_mut() {
        if let Some((_, floor, _)) = focus.floors.iter().find(|(p, _, _)| p == cands[s.idx].rel) {
            s.relevance = s.relevance.max(*floor);
        }
    }
    scored.sort_by(|a, b| {
        b.relevance
            .total_cmp(&a.relevance)
            .then(b.raw.total_cmp(&a.raw))
            .then(a.idx.cmp(&b.idx))
    });
    // Reasons in the order the evidence was weighed: lexical, definitions
    // (one reason per name defined), prior, then graph and explicit evidence.
    for s in scored.iter_mut().take(EXPLAINED) {
        let mut why = Vec::new();
        lexical(s.idx, Some(&mut why));
        let defs = s.defines.len().min(s.reasons.len());
        why.extend(s.reasons.drain(..defs));
        if s.prior_applied {
            let prior = prior(&cands[s.idx], w);
            why.push(format!("{} (x{:.2})", prior.1, prior.0));
        }
        why.append(&mut s.reasons);
        s.reasons = why;
    }
    scored
}

/// Files of a [`score`] answer that carry their reasons (the best ones; a
/// cycle shows at most 100). Writing reasons for every matching file took
/// 0.05-0.09 s a cycle on the Linux kernel (score time per cycle before and
/// after, RUST_LOG=ctxloop=debug, 2026-11-29).
pub const EXPLAINED: usize = 100;

/// Files that *define* a task identifier outrank files that only mention it.
/// Only the lexically best `parse_cap` files (and files holding a rare task
/// identifier) are parsed, so cost stays bounded on large trees.
fn definition_pass(
    cands: &[Candidate],
    q: &TaskQuery,
    w: &Weights,
    scored: &mut [Scored],
    n: f64,
    tf: &[Vec<u32>],
    stop: &(dyn Fn() -> bool + Sync),
) -> HashMap<usize, Arc<Symbols>> {
    // (identifier, index of its query term, the term's weight)
    let term_of: HashMap<u64, usize> = q
        .terms
        .iter()
        .enumerate()
        .map(|(j, t)| (t.hash, j))
        .collect();
    let idents: Vec<(&str, usize, f64)> = q
        .identifiers
        .iter()
        .filter_map(|id| {
            let j = *term_of.get(&term_hash(id))?;
            Some((id.as_str(), j, q.terms[j].weight))
        })
        .collect();
    let mut to_parse: HashSet<usize> = scored
        .iter()
        .take(w.parse_cap)
        .filter(|s| cands[s.idx].doc.language.is_some())
        .map(|s| s.idx)
        .collect();
    // Files holding a rare identifier (in at most 8 files) are parsed too: the
    // definition of a name the task mentions once can be lexically weak.
    for &(_, j, _) in &idents {
        let holders: Vec<usize> = scored
            .iter()
            .filter(|s| cands[s.idx].doc.language.is_some() && tf[s.idx][j] > 0)
            .map(|s| s.idx)
            .take(9)
            .collect();
        if holders.len() <= 8 {
            to_parse.extend(holders);
        }
    }
    let parsed: HashMap<usize, Arc<Symbols>> = to_parse
        .into_par_iter()
        .map(|i| (i, cands[i].doc.symbols_until(stop)))
        .collect();
    // Definition IDF: how many parsed files define the name.
    let ident_set: HashSet<&str> = idents.iter().map(|&(id, _, _)| id).collect();
    let mut ndef: HashMap<&str, usize> = HashMap::new();
    for syms in parsed.values() {
        let mut seen = HashSet::new();
        for d in &syms.definitions {
            if let Some(&id) = ident_set.get(d.name.as_str()) {
                if seen.insert(id) {
                    *ndef.entry(id).or_insert(0) += 1;
                }
            }
        }
    }
    for s in scored.iter_mut() {
        let Some(syms) = parsed.get(&s.idx) else {
            continue;
        };
        s.capped = syms.capped;
        let mut bonus = 0.0;
        for &(id, _, weight) in &idents {
            // A top-level definition says more than a method of the same name.
            if let Some(d) = syms.defines(id).min_by_key(|d| d.parent.is_some()) {
                let count = ndef.get(id).copied().unwrap_or(1) as f64;
                let kind = if d.parent.is_some() && matches!(d.kind.as_str(), "function" | "method")
                {
                    w.method_definition
                } else {
                    1.0
                };
                bonus += kind * weight * (1.0 + n / count).ln() * w.definition / (1.0 + count.ln());
                s.defines.push(id.to_string());
                s.reasons.push(format!(
                    "defines {} `{}` (lines {}-{})",
                    d.kind, id, d.start_line, d.end_line
                ));
            }
        }
        s.raw += bonus;
    }
    parsed
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

/// Files a name's rarity is counted in, at most (see `neighbour_pass`): on
/// the Linux kernel (78k files) counting in all of them took 0.86 s for 92
/// names, in every 10th 0.09 s (2026-11-29).
const RARITY_SAMPLE: usize = 8192;

/// Relevance flows from the best few files to parsed files that use their
/// definitions or define what they use, through names held by few files.
fn neighbour_pass(
    cands: &[Candidate],
    w: &Weights,
    scored: &mut [Scored],
    parsed: &HashMap<usize, Arc<Symbols>>,
    n: f64,
) {
    scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
    let max_holders = (n as usize / 50).max(3);
    let sources: Vec<(usize, f64, HashSet<&str>, HashSet<&str>)> = scored
        .iter()
        .take(w.neighbour_sources)
        .filter_map(|s| {
            let syms = parsed.get(&s.idx)?;
            let defs = syms
                .definitions
                .iter()
                .filter(|d| d.kind != "impl" && d.name.len() >= 3)
                .map(|d| d.name.as_str())
                .collect();
            let uses = syms
                .references
                .iter()
                .filter(|r| r.kind != "method" && r.name.len() >= 3)
                .map(|r| r.name.as_str())
                .collect();
            Some((s.idx, s.raw, defs, uses))
        })
        .collect();
    // Names that link a parsed file to a source; whether each is rare (held
    // by few files) comes from one scan of the corpus for these names only.
    let mut links: HashSet<&str> = HashSet::new();
    for (idx, syms) in parsed {
        for (src, _, defs, uses) in &sources {
            if src == idx {
                continue;
            }
            links.extend(
                syms.references
                    .iter()
                    .map(|r| r.name.as_str())
                    .filter(|n| defs.contains(n)),
            );
            links.extend(
                syms.definitions
                    .iter()
                    .map(|d| d.name.as_str())
                    .filter(|n| uses.contains(n)),
            );
        }
    }
    let rarity: HashMap<&str, bool> = {
        let docs: Vec<&Doc> = cands.iter().map(|c| &**c.doc).collect();
        let mut links: Vec<&str> = links.into_iter().collect();
        links.sort_unstable();
        // On a large tree the share of files holding a name is estimated from
        // every `stride`-th file (the threshold is a share, n/50, so a sample
        // of RARITY_SAMPLE files decides it well); smaller trees are counted
        // exactly.
        // Sampling is used only when the threshold stays large in the sample
        // (at least 8 holders), else a name held by a few files would pass as
        // rare whenever the sample missed them.
        let stride = docs.len().div_ceil(RARITY_SAMPLE).max(1);
        let stride = if max_holders / stride >= 8 { stride } else { 1 };
        let sample: Vec<&Doc> = docs.iter().step_by(stride).copied().collect();
        let cap = max_holders / stride;
        let held = holders_many(&sample, &links, cap + 1);
        links
            .into_iter()
            .zip(held)
            .map(|(n, h)| (n, h.len() <= cap))
            .collect()
    };
    let rare = |name: &str| rarity.get(name).copied().unwrap_or(false);
    for s in scored.iter_mut() {
        let Some(syms) = parsed.get(&s.idx) else {
            continue;
        };
        let mut best: Option<(f64, String)> = None;
        for (src, raw, defs, uses) in &sources {
            if *src == s.idx {
                continue;
            }
            let mut used: Vec<&str> = syms
                .references
                .iter()
                .filter(|r| defs.contains(r.name.as_str()))
                .map(|r| r.name.as_str())
                .collect();
            used.sort_unstable();
            used.dedup();
            used.retain(|n| rare(n));
            let provides = syms
                .definitions
                .iter()
                .filter(|d| uses.contains(d.name.as_str()) && rare(&d.name))
                .count();
            let strength =
                (used.len() as f64 / 2.0)
                    .min(1.0)
                    .max(if provides > 0 { 0.5 } else { 0.0 });
            let boost = w.neighbour * raw * strength;
            if boost > best.as_ref().map_or(0.0, |b| b.0) {
                let src_path = cands[*src].rel;
                let why = if used.is_empty() {
                    format!("defines what {src_path} uses")
                } else {
                    format!(
                        "uses {} from {src_path}",
                        used.iter()
                            .take(3)
                            .map(|u| format!("`{u}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                best = Some((boost, why));
            }
        }
        if let Some((boost, why)) = best {
            s.raw += boost;
            s.neighbour = true;
            s.reasons.push(why);
        }
    }
}

/// Paths and dotted modules written in the task, and paths a cycle focuses on.
fn explicit_pass(
    cands: &[Candidate],
    q: &TaskQuery,
    focus: &Focus,
    w: &Weights,
    scored: &mut Vec<Scored>,
) {
    let best = scored.first().map_or(1.0, |s| s.raw).max(1.0);
    let mut by_idx: HashMap<usize, usize> =
        scored.iter().enumerate().map(|(i, s)| (s.idx, i)).collect();
    for (idx, c) in cands.iter().enumerate() {
        if !c.allowed {
            continue;
        }
        let mut add = 0.0;
        let mut reasons = Vec::new();
        let mut named = None;
        if let Some(p) = q.paths.iter().find(|p| ends_with_path(c.rel, p)) {
            add += w.explicit * best;
            named = Some(Named::File(p.clone()));
        } else if let Some(m) = q.modules.iter().find(|m| is_module_file(c.rel, m)) {
            add += w.explicit * best * 0.8;
            named = Some(Named::Module(m.clone()));
        }
        if let Some(n) = &named {
            reasons.push(n.reason());
        }
        for (key, boost, why) in &focus.boosts {
            let hit = if key.ends_with('/') {
                c.rel.starts_with(key.as_str())
            } else {
                c.rel == key
            };
            if hit {
                add += boost * best;
                reasons.push(why.clone());
            }
        }
        let floor = focus.floors.iter().find(|(p, _, _)| p == c.rel);
        if let Some((_, _, why)) = floor {
            reasons.push(why.clone());
        }
        if add > 0.0 || floor.is_some() {
            let pos = *by_idx.entry(idx).or_insert_with(|| {
                scored.push(Scored {
                    idx,
                    raw: 0.0,
                    relevance: 0.0,
                    reasons: Vec::new(),
                    defines: Vec::new(),
                    lexical: 0.0,
                    neighbour: false,
                    prior_applied: false,
                    named: None,
                    capped: None,
                });
                scored.len() - 1
            });
            scored[pos].raw += add;
            scored[pos].reasons.extend(reasons);
            if named.is_some() {
                scored[pos].named = named;
            }
        }
    }
}

fn ends_with_path(rel: &str, p: &str) -> bool {
    rel == p || (rel.ends_with(p) && rel.as_bytes()[rel.len() - p.len() - 1] == b'/')
}

/// `pkg/mod` names `pkg/mod.py`, `pkg/mod/__init__.py`, `pkg/mod.rs`, `pkg/mod/mod.rs`;
/// and `pkg/mod/Name` (an attribute) names `pkg/mod.py`.
fn is_module_file(rel: &str, m: &str) -> bool {
    let Some((stem, _ext)) = rel.rsplit_once('.') else {
        return false;
    };
    let stem = stem
        .strip_suffix("/__init__")
        .or_else(|| stem.strip_suffix("/mod"))
        .unwrap_or(stem);
    let parent = m.rsplit_once('/').map(|(p, _)| p);
    // At least two segments must match so `self.assertEqual` does not name `self.py`.
    let matches = |target: &str| target.contains('/') && ends_with_path(stem, target);
    matches(m) || parent.is_some_and(matches)
}

/// Whether a path looks like a test file.
pub fn is_test_path(rel: &str) -> bool {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    rel.split('/').any(|seg| {
        matches!(
            seg,
            "test" | "tests" | "testing" | "__tests__" | "spec" | "testdata" | "fixtures"
        )
    }) || file.starts_with("test_")
        || file.contains("_test.")
        || file.contains(".test.")
        || file.contains("_spec.")
        || file == "conftest.py"
}

fn prior(c: &Candidate, w: &Weights) -> (f64, &'static str) {
    let rel = c.rel;
    let file = rel.rsplit('/').next().unwrap_or(rel);
    if is_test_path(rel) {
        (w.test_prior, "test file")
    } else if rel.split('/').any(|seg| {
        matches!(
            seg,
            "doc" | "docs" | "example" | "examples" | "benchmarks" | "bench" | "benches"
        ) || crate::walk::is_dependency_dir(seg)
    }) || !rel.contains('.')
        || file.ends_with(".md")
        || file.ends_with(".rst")
        || file.ends_with(".txt")
    {
        (w.aside_prior, "docs, examples or non-code")
    } else if file == "__init__.py" || file == "mod.rs" || file == "lib.rs" {
        (w.init_prior, "package index file")
    } else if c.doc.language.is_none() {
        (w.other_prior, "not source code")
    } else {
        (1.0, "")
    }
}

/// Orders the files and maps their evidence to a relevance in [0, 1].
///
/// Order: with `r` the share of the best raw score and `c` the IDF-weighted
/// share of the query's terms the file contains, files are ranked by
/// `0.4 r + 0.45 c sqrt(r) + 0.15 strong sqrt(r)` (`strong`: defines a task
/// identifier or is named by the task). Measured on dev-python: ranking by raw
/// score alone gave Acc@1 52.9, this order 57.5 (same weights, same trees).
///
/// Tiers, so that they mean what they say (relevance never rises down the order):
/// - high (>= 0.7): the file defines a task identifier or is named by the task,
///   or it is lexically close to the best file (>= 75% of its BM25) while
///   covering >= 75% of the query's IDF-weighted terms;
/// - medium (0.5-0.7): lexically related (>= 50% of the best BM25) or linked by
///   a graph edge to a top file;
/// - low: the rest.
///
/// The two lexical rules also need a BM25 of at least `min_bm25`: a share of
/// the best file's score is no evidence when the best has none.
///
/// Only matching files enter, so an unrelated file added to the tree never
/// ranks; and since BM25's statistics come from matching files only
/// (`idf_scope`), it moves no score or tier either. (With statistics over the
/// whole walk it shifted every score a little, and the cap below turned that
/// into tier jumps. Ranking by tier first also removes those jumps but cost
/// Acc@1, 55.6 vs 56.2 on dev-python, so `tier_first` is off.)
fn calibrate(scored: &mut Vec<Scored>, q: &TaskQuery, idf: &[f64], tf: &[Vec<u32>], w: &Weights) {
    let tier_first = w.tier_first > 0.0;
    let best = scored.iter().map(|s| s.raw).fold(0.0, f64::max);
    let best_lex = scored.iter().map(|s| s.lexical).fold(0.0, f64::max);
    if best <= 0.0 {
        return;
    }
    let mass: Vec<f64> = q.terms.iter().zip(idf).map(|(t, i)| t.weight * i).collect();
    let total: f64 = mass.iter().sum::<f64>().max(1e-9);
    let mut keyed: Vec<(u8, f64, f64, Scored)> = scored
        .drain(..)
        .map(|s| {
            let r = (s.raw / best).clamp(0.0, 1.0);
            let rl = if best_lex > 0.0 {
                s.lexical / best_lex
            } else {
                0.0
            };
            let c: f64 = tf[s.idx]
                .iter()
                .zip(&mass)
                .filter(|(&n, _)| n > 0)
                .map(|(_, m)| m)
                .sum::<f64>()
                / total;
            let named = s.named.is_some();
            let strong = if named || !s.defines.is_empty() {
                1.0
            } else {
                0.0
            };
            let order = 0.4 * r + 0.45 * c * r.sqrt() + 0.15 * strong * r.sqrt();
            let lexical = s.lexical >= w.min_bm25;
            let direct = named
                || (!s.defines.is_empty() && r >= 0.3)
                || (lexical && rl >= 0.75 && c >= 0.75);
            let related = (lexical && rl >= 0.5) || s.neighbour;
            let (class, tier_rel) = if direct {
                (2, 0.7 + 0.3 * order.sqrt().min(1.0))
            } else if related {
                (1, 0.5 + 0.19 * order.sqrt().min(1.0))
            } else {
                (0, 0.49 * order.sqrt().min(1.0))
            };
            (if tier_first { class } else { 0 }, order, tier_rel, s)
        })
        .collect();
    keyed.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.3.idx.cmp(&b.3.idx))
    });
    let mut ceiling: f64 = 1.0;
    for (_, _, rel, mut s) in keyed {
        let rel = rel.min(ceiling);
        ceiling = rel;
        s.relevance = (rel.clamp(0.0, 1.0) * 1000.0).round() / 1000.0;
        scored.push(s);
    }
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
    fn test_paths_are_recognised() {
        assert!(is_test_path("tests/test_auth.py"));
        assert!(is_test_path("pkg/core/tests/test_expr.py"));
        assert!(is_test_path("src/token_test.go"));
        assert!(!is_test_path("src/auth/token.py"));
        assert!(!is_test_path("src/contest.py"));
    }

    #[test]
    fn modules_name_their_files() {
        assert!(is_module_file("sympy/core/expr.py", "sympy/core/expr"));
        assert!(is_module_file("sympy/core/expr.py", "core/expr/Expr"));
        assert!(is_module_file("pkg/sub/__init__.py", "pkg/sub"));
        assert!(!is_module_file("self.py", "self/assertEqual"));
        assert!(!is_module_file("a/expr.py", "b/expr"));
    }

    #[test]
    fn a_file_the_task_names_carries_that_evidence_and_its_reason() {
        let docs: Vec<Arc<Doc>> = [
            (
                "src/billing/ledger.py",
                "def post(entry):\n    return entry\n",
            ),
            (
                "src/auth/token.py",
                "def expiry(token):\n    return token.exp\n",
            ),
        ]
        .iter()
        .map(|(rel, text)| Arc::new(Doc::for_test(rel, text)))
        .collect();
        let rels = ["src/billing/ledger.py", "src/auth/token.py"];
        let cands: Vec<Candidate> = rels
            .iter()
            .zip(&docs)
            .map(|(rel, doc)| Candidate {
                rel,
                doc,
                allowed: true,
            })
            .collect();
        let q = TaskQuery::new("token expiry is wrong in billing/ledger.py", &[]);
        let scored = score(
            &cands,
            &q,
            &Focus::default(),
            &Weights::default(),
            false,
            &|| false,
        );
        let ledger = scored
            .iter()
            .find(|s| s.idx == 0)
            .expect("the named file is scored");
        assert_eq!(ledger.named, Some(Named::File("billing/ledger.py".into())));
        assert!(
            ledger
                .reasons
                .contains(&"task names the file `billing/ledger.py`".to_string()),
            "{:?}",
            ledger.reasons
        );
        let token = scored
            .iter()
            .find(|s| s.idx == 1)
            .expect("token.py matches");
        assert_eq!(token.named, None);
        // Named evidence makes a file direct (high tier) whatever its words.
        assert!(ledger.relevance >= 0.7, "{}", ledger.relevance);
    }
}
