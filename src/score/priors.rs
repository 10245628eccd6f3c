//! Priors: multipliers for tests, docs, examples, index files and non-code.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Scored, Weights};

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

pub(super) fn prior(c: &Candidate, w: &Weights) -> (f64, &'static str) {
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

/// The prior pass: scales the evidence so far (raw and BM25) of tests,
/// docs, examples, index files and non-code by their prior.
#[derive(Debug, Clone, Copy, Default)]
pub struct Priors;

impl Pass for Priors {
    fn name(&self) -> &str {
        "priors"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        for s in scored.iter_mut() {
            let prior = prior(&ctx.cands[s.idx], ctx.weights);
            if prior.0 < 1.0 {
                s.raw *= prior.0;
                s.lexical *= prior.0;
                s.prior_applied = true;
            }
        }
    }
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
}
