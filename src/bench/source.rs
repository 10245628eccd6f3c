//! Which files are *source*: the candidate files of the source-only BM25
//! baseline (the SWE-bench-style baseline, bench/README.md's "candidate source
//! files"): code files of the language table (`LANGUAGES` in
//! `src/lang/table.rs`) outside test, spec, docs, example, benchmark and vendored paths, and not
//! named like a test by their language's convention.

use crate::lang::language_of;

/// Directory names that hold tests, docs, examples, benchmarks, fixtures or
/// vendored code, compared case-insensitively with each directory of the path.
const NON_SOURCE_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "testdata",
    "test_data",
    "spec",
    "specs",
    "__tests__",
    "__mocks__",
    "fixtures",
    "doc",
    "docs",
    "documentation",
    "example",
    "examples",
    "sample",
    "samples",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "vendor",
    "vendored",
    "third_party",
    "thirdparty",
    "3rdparty",
    "external",
    "node_modules",
    "playground",
];

/// True when `path` (relative, `/`-separated) is a non-test source file.
pub(super) fn is_source_path(path: &str) -> bool {
    if language_of(path).is_none() {
        return false;
    }
    let mut parts: Vec<&str> = path.split('/').collect();
    let Some(file) = parts.pop() else {
        return false;
    };
    if parts
        .iter()
        .any(|d| NON_SOURCE_DIRS.contains(&d.to_ascii_lowercase().as_str()))
    {
        return false;
    }
    !is_test_file_name(file)
}

/// A file named like a test by its language's convention: `test_*.py`,
/// `*_test.py`, `*_test.go`, `*.test.ts`, `*.spec.js`, `*Test.java`,
/// `*Tests.cs`, `*_spec.rb`, `*Test.php`, `*_test.c`, `tests.rs`, `conftest.py`.
fn is_test_file_name(file: &str) -> bool {
    let (stem, _ext) = file.rsplit_once('.').unwrap_or((file, ""));
    let lower = stem.to_ascii_lowercase();
    if matches!(lower.as_str(), "test" | "tests" | "conftest" | "spec") {
        return true;
    }
    // Snake-case and dotted conventions (Python, Go, Rust, C, Ruby, JS/TS).
    if lower.starts_with("test_")
        || lower.ends_with("_test")
        || lower.ends_with("_tests")
        || lower.ends_with("_spec")
        || lower.ends_with(".test")
        || lower.ends_with(".spec")
        || lower.ends_with("-test")
        || lower.ends_with("-spec")
    {
        return true;
    }
    // CamelCase conventions (Java, C#, PHP): `FooTest`, `FooTests`. Not a
    // `Test` prefix: test frameworks have source files like `TestAttribute.cs`.
    stem.ends_with("Test") || stem.ends_with("Tests")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_files_are_code_outside_test_doc_example_and_vendored_paths() {
        for p in [
            "src/lib.rs",
            "sympy/core/basic.py",
            "packages/runtime-core/src/apiWatch.ts",
            "src/main/java/com/fasterxml/Foo.java",
            "lib/rubocop/cop/style/foo.rb",
            "src/Illuminate/Support/Str.php",
            "src/Humanizer/Inflector.cs",
            "include/simdjson/dom.h",
            "cmd/gh/main.go",
            "latest.py",
            "contest.py",
            "src/NUnitFramework/framework/Attributes/TestAttribute.cs",
        ] {
            assert!(is_source_path(p), "{p} is source");
        }
        for p in [
            "README.md",
            "docs/conf.py",
            "tests/test_api.py",
            "sympy/core/tests/test_basic.py",
            "pkg/server_test.go",
            "src/foo.test.ts",
            "lib/foo.spec.js",
            "src/__tests__/foo.ts",
            "src/test/java/com/x/FooTest.java",
            "src/Humanizer.Tests/InflectorTests.cs",
            "spec/rubocop/cop/foo_spec.rb",
            "lib/foo_spec.rb",
            "tests/Support/StrTest.php",
            "examples/demo.rs",
            "benches/walk.rs",
            "vendor/lib/x.go",
            "third_party/zlib/inflate.c",
            "crates/core/tests.rs",
            "conftest.py",
            "Cargo.toml",
        ] {
            assert!(!is_source_path(p), "{p} is not source");
        }
    }
}
