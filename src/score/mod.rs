//! EVALUATE's server side: BM25 over the walked corpus plus structural
//! evidence, calibrated to a relevance in [0, 1].
//!
//! raw = BM25(body) + path match + definition match + explicit reference,
//! times a prior for tests/docs/examples. The weights are in [`Weights`];
//! where they come from is noted on each field.

mod bm25;
mod calibrate;
mod definitions;
mod explicit;
mod neighbours;
mod priors;
mod weights;

pub use priors::is_test_path;
pub use weights::Weights;

use crate::corpus::{term_counts, Doc};
use crate::lang::Cap;
use crate::query::TaskQuery;
use bm25::doc_freqs;
use calibrate::calibrate;
use definitions::definition_pass;
use explicit::explicit_pass;
use neighbours::neighbour_pass;
use priors::prior;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

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

#[cfg(test)]
mod tests {
    use super::*;

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
