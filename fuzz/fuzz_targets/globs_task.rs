//! Globs and task text, structured: include/exclude globs are compiled and
//! matched against arbitrary relative paths; the task (and keywords) become a
//! query scored over small in-memory documents (including the task text
//! itself, so tokenizer edge cases reach the scorer) and run through the
//! engine's whole loop on the fixture tree.

#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::{check_error, check_files, engine};
use ctxloop::CallOptions;
use ctxloop::test_support::{normalize_glob, score, Candidate, Doc, Filter, Focus, TaskQuery, Weights};
use ctxloop::tools::retrieve::RetrieveParams;
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Arbitrary)]
struct Input {
    task: String,
    keywords: Vec<String>,
    patterns: Vec<String>,
    excludes: Vec<String>,
    /// Paths to match the globs against, and to score documents under.
    paths: Vec<String>,
    /// Bodies of the in-memory documents.
    bodies: Vec<String>,
    run_engine: bool,
    /// Score as after a passed deadline (no parsing).
    hurry: bool,
}

fuzz_target!(|input: Input| {
    for g in input.patterns.iter().chain(&input.excludes) {
        let _ = normalize_glob(g);
    }
    if let Ok(filter) = Filter::new(&input.patterns, &input.excludes) {
        for p in &input.paths {
            let _ = filter.is_match(p);
        }
    }

    let query = TaskQuery::new(&input.task, &input.keywords);
    let mut docs: Vec<(String, Arc<Doc>)> = input
        .paths
        .iter()
        .zip(input.bodies.iter().chain(std::iter::repeat(&input.task)))
        .take(16)
        .map(|(p, b)| (p.clone(), Arc::new(Doc::for_test(p, b))))
        .collect();
    docs.push((
        "task.py".into(),
        Arc::new(Doc::for_test("task.py", &input.task)),
    ));
    let cands: Vec<Candidate> = docs
        .iter()
        .map(|(rel, doc)| Candidate {
            rel,
            doc,
            allowed: true,
        })
        .collect();
    let scored = score(
        &cands,
        &query,
        &Focus::default(),
        &Weights::default(),
        input.hurry,
        &|| false,
    );
    for s in &scored {
        assert!(
            s.relevance.is_finite() && (0.0..=1.0).contains(&s.relevance),
            "{s:?}"
        );
    }
    for w in scored.windows(2) {
        assert!(w[0].relevance >= w[1].relevance);
    }

    if input.run_engine {
        let p = RetrieveParams {
            task: input.task,
            keywords: input.keywords,
            patterns: input.patterns,
            excludes: input.excludes,
            max_cycles: Some(2),
            ..Default::default()
        };
        match engine().retrieve(p, &CallOptions::PLAIN) {
            Ok(out) => check_files(&out.files, Path::new(&out.root.path)),
            Err(e) => check_error(&e),
        }
    }
});
