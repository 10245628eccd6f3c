//! Priors: multipliers for tests, docs, examples, index files and non-code.

use super::{Candidate, Weights};

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
