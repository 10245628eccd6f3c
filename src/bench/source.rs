//! Which files are *source*: the candidate files of the source-only BM25
//! baseline (the SWE-bench-style baseline, bench/README.md's "candidate source
//! files"): code files by the engine's rule ([`crate::lang::is_code_path`]:
//! the language table's rows and the languages scored lexically, so an
//! Elixir or Scala project has a baseline too) that are not tests by the
//! engine's own rule
//! ([`crate::lang::is_test_path`]: test directories and each language's
//! test-file names), and not under a docs, example, benchmark or vendored
//! directory by the engine's rule too ([`crate::lang::is_aside_path`]).

use crate::lang::{is_aside_path, is_code_path, is_test_path};

/// True when `path` (relative, `/`-separated) is a non-test source file.
pub(super) fn is_source_path(path: &str) -> bool {
    is_code_path(path) && !is_test_path(path) && !is_aside_path(path)
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
            "sympy/external/importtools.py",
            "Source/Core/Session.swift",
            "lib/phoenix/router.ex",
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
            "src/NUnitFramework/tests/Assertions/AssertThatTests.cs",
            "Cargo.toml",
            "scripts/release.py",
            "dist/axios.js",
            "test/phoenix/router_test.exs",
            "Tests/SessionTests.swift",
            "build.gradle.kts",
        ] {
            assert!(!is_source_path(p), "{p} is not source");
        }
    }
}
