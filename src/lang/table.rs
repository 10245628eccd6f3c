//! The language table: one row per language (id, extensions, grammar, tags
//! query) and each row's query, compiled once.

use super::defines::{self, DefinitionWords};
use std::sync::OnceLock;
use tree_sitter::{Language, Query};

/// A row of the language table.
#[derive(Debug)]
pub struct LanguageSpec {
    pub id: &'static str,
    pub extensions: &'static [&'static str],
    grammar: fn() -> Language,
    tags: &'static str,
    /// The words that introduce a definition, for the cheap check of
    /// whether a file could define a name ([`super::may_define`]); `None`
    /// where a definition may have no keyword (then the file is parsed).
    pub definition_words: Option<&'static DefinitionWords>,
    /// How the language names a test file outside a test directory
    /// ([`is_test_path`]).
    pub test_names: &'static [TestName],
    /// Whether definitions and uses are named by dotted paths that are read
    /// by their last part (Elixir's `defmodule Phoenix.Router` defines
    /// `Router`, the name a task's `Phoenix.Router` or `Router` gives;
    /// Julia's `Base.show(io::IO, x::T) = ...` defines `show`); imports keep
    /// the whole path.
    pub dotted_names: bool,
    /// Whether a function is written as equations the grammar leaves as
    /// sibling nodes, and how (see [`Equations`]): consecutive definitions
    /// of one name, with only blank lines, comments or pragmas between, are
    /// read as one definition spanning them all (see `lang::tags`).
    pub equations: Option<Equations>,
    /// A mark the language may end a name with that a task's words leave
    /// out (Julia's `!` on a function that mutates its arguments: `push!`,
    /// `deleteat!`): definitions and uses are named without it, as the
    /// task's word `deleteat` and the file's own words name them (`sort`
    /// and `sort!` are then one name). Imports keep it.
    pub name_mark: Option<char>,
    /// The kind of node that documents the definition after it (Julia's
    /// docstring, a string right before a `function` or `struct`): a
    /// definition starts at its docstring, as a Python function holds its
    /// own, so the words of its documentation are its evidence and its
    /// snippet shows them (see `lang::tags`).
    pub doc_before: Option<&'static str>,
}

/// How a language writes a function whose parts its grammar leaves as
/// sibling nodes ([`LanguageSpec::equations`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equations {
    /// Haskell: a type signature, then one equation per pattern, with blank
    /// lines, `--` and `{- -}` comments, `{-# #-}` pragmas and `#`
    /// preprocessor lines between.
    Haskell,
    /// Erlang: a `-spec`, then one clause per pattern, each ending in `;`
    /// but the last, which ends in `.` (the next clause of that name is
    /// another function, of another arity), with blank lines and `%`
    /// comments between.
    Erlang,
}

/// One way a language names its test files, matched against the file's stem:
/// its name before the last `.` (`foo.test` for `foo.test.ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestName {
    /// The stem starts with this, compared without case (`test_` for
    /// `test_api.py`).
    Prefix(&'static str),
    /// The stem ends with this after at least one more byte, compared without
    /// case (`_test` for `server_test.go`, `.spec` for `foo.spec.ts`).
    Suffix(&'static str),
    /// The stem ends with this capitalised word after at least one more byte,
    /// compared with case (`Test` for `FooTest.java`; not `Latest.java`).
    ClassSuffix(&'static str),
    /// The whole stem, compared without case (`conftest`, Rust's `tests.rs`).
    Stem(&'static str),
}

impl TestName {
    fn matches(self, stem: &str) -> bool {
        let lower = stem.to_ascii_lowercase();
        match self {
            TestName::Prefix(p) => lower.len() > p.len() && lower.starts_with(p),
            TestName::Suffix(s) => lower.len() > s.len() && lower.ends_with(s),
            TestName::ClassSuffix(s) => stem.len() > s.len() && stem.ends_with(s),
            TestName::Stem(s) => lower == s,
        }
    }
}

/// Snake-case test names: `test_foo`, `foo_test`, `foo_tests`.
const SNAKE_TESTS: [TestName; 3] = [
    TestName::Prefix("test_"),
    TestName::Suffix("_test"),
    TestName::Suffix("_tests"),
];

/// Python: `test_*.py`, `*_test.py`, `conftest.py`, Django's `tests.py`.
const PYTHON_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Stem("conftest"),
    TestName::Stem("tests"),
];
/// Rust: a `tests.rs` unit-test module, `*_test.rs`, `*_tests.rs`.
const RUST_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Stem("tests"),
];
/// JavaScript and TypeScript (Jest, Vitest, Mocha, Jasmine): `*.test.ts`,
/// `*.spec.js`, `*-test.js`, `*_spec.js`.
const JS_TESTS: &[TestName] = &[
    TestName::Suffix(".test"),
    TestName::Suffix(".spec"),
    TestName::Suffix("-test"),
    TestName::Suffix("-spec"),
    TestName::Suffix("_test"),
    TestName::Suffix("_spec"),
];
/// Go (`*_test.go`, the only name `go test` runs), Elixir (ExUnit's
/// `*_test.exs`, a helper module `*_test.ex`) and Dart (`*_test.dart`, what
/// `dart test` runs).
const SUFFIX_TEST: &[TestName] = &[TestName::Suffix("_test")];
/// Java (JUnit): `FooTest.java`, `FooTests.java`.
const JAVA_TESTS: &[TestName] = &[
    TestName::ClassSuffix("Test"),
    TestName::ClassSuffix("Tests"),
];
/// C and C++: `test_*.c`, `*_test.c`, `*-test.c`, `*_tests.cc`, googletest's
/// `*_unittest.cc`.
const C_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Suffix("-test"),
    TestName::Suffix("_unittest"),
];
/// Ruby (RSpec, Minitest: `*_spec.rb`, `*_test.rb`, `test_*.rb`) and Lua
/// (busted: `foo_spec.lua`, `test_foo.lua`, `foo_test.lua`).
const SPEC_OR_TEST: &[TestName] = &[SNAKE_TESTS[0], SNAKE_TESTS[1], TestName::Suffix("_spec")];
/// Zig: its tests are `test` blocks in the source files, run from a root
/// that imports them (`tests.zig`, `test.zig`); files of tests only are
/// `foo_test.zig`, `test_foo.zig`, `foo_tests.zig`.
const ZIG_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Stem("tests"),
    TestName::Stem("test"),
];
/// R: testthat's tests are `tests/testthat/test-foo.R`, with
/// `helper-*.R` and `setup-*.R` beside them, all under `tests/`; tinytest's
/// are `inst/tinytest/test_foo.R`. Not `test-*.R` outside a test
/// directory: testthat's own sources are `R/test-that.R`, `R/test-files.R`.
const R_TESTS: &[TestName] = &[SNAKE_TESTS[0]];
/// Kotlin (JUnit, kotlin.test, Kotest) and Swift (XCTest, Quick):
/// `FooTest.kt`, `FooTests.swift`, `FooSpec.kt`.
const KOTLIN_SWIFT_TESTS: &[TestName] = &[
    TestName::ClassSuffix("Test"),
    TestName::ClassSuffix("Tests"),
    TestName::ClassSuffix("Spec"),
];
/// Scala (ScalaTest, MUnit, specs2): `FooSpec.scala`, `FooSuite.scala`,
/// `FooTest.scala`, `FooTests.scala`.
const SCALA_TESTS: &[TestName] = &[
    TestName::ClassSuffix("Test"),
    TestName::ClassSuffix("Tests"),
    TestName::ClassSuffix("Spec"),
    TestName::ClassSuffix("Suite"),
];
/// Erlang: Common Test's `foo_SUITE.erl` (its case: CT runs no other),
/// EUnit's `foo_tests.erl` and `foo_test.erl`.
const ERLANG_TESTS: &[TestName] = &[
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::ClassSuffix("_SUITE"),
];
/// Haskell (hspec, tasty, HUnit): `FooSpec.hs`, `FooTest.hs`,
/// `FooTests.hs`, and the suites' entry points `Spec.hs` (hspec-discover's)
/// and `Test.hs`.
const HASKELL_TESTS: &[TestName] = &[
    TestName::ClassSuffix("Spec"),
    TestName::ClassSuffix("Test"),
    TestName::ClassSuffix("Tests"),
    TestName::Stem("spec"),
    TestName::Stem("test"),
];
/// C#, PHP and OCaml name no test file by itself: their tests live in test
/// projects and directories (`Humanizer.Tests/`, `tests/`, the `test/`
/// directory of a dune project, where `test_foo.ml` and `foo_tests.ml`
/// are), and their sources have names like `ITest.cs`, `IApplyToTest.cs`,
/// Laravel's `Testing/Attributes/UnitTest.php`, dune's
/// `dune_rules/test_rules.ml`, `inline_tests.ml` and `cram_test.ml` (the
/// code that runs tests).
const BY_DIRECTORY_ONLY: &[TestName] = &[];
/// Julia: a package's tests are in `test/`, run from `test/runtests.jl`
/// (Pkg's entry point; a sub-suite's too: `test/ext_cuda/runtests.jl`),
/// most named by what they test (`test/layers/basic.jl`), some `test_*.jl`
/// or `*_tests.jl`; outside `test/`, a file of tests has the same names.
/// Not `*Test.jl`: `ReTest.jl`, `src/ChainRulesTestUtils.jl` are packages'
/// sources.
const JULIA_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Stem("runtests"),
];

fn python() -> Language {
    tree_sitter_python::LANGUAGE.into()
}
fn rust() -> Language {
    tree_sitter_rust::LANGUAGE.into()
}
fn javascript() -> Language {
    tree_sitter_javascript::LANGUAGE.into()
}
fn typescript() -> Language {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}
fn tsx() -> Language {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}
fn go() -> Language {
    tree_sitter_go::LANGUAGE.into()
}
fn java() -> Language {
    tree_sitter_java::LANGUAGE.into()
}
fn c() -> Language {
    tree_sitter_c::LANGUAGE.into()
}
fn cpp() -> Language {
    tree_sitter_cpp::LANGUAGE.into()
}
fn c_sharp() -> Language {
    tree_sitter_c_sharp::LANGUAGE.into()
}
fn ruby() -> Language {
    tree_sitter_ruby::LANGUAGE.into()
}
fn php() -> Language {
    tree_sitter_php::LANGUAGE_PHP.into()
}
fn kotlin() -> Language {
    tree_sitter_kotlin_ng::LANGUAGE.into()
}
fn swift() -> Language {
    tree_sitter_swift::LANGUAGE.into()
}
fn elixir() -> Language {
    tree_sitter_elixir::LANGUAGE.into()
}
fn scala() -> Language {
    tree_sitter_scala::LANGUAGE.into()
}
fn dart() -> Language {
    tree_sitter_dart::LANGUAGE.into()
}
fn lua() -> Language {
    tree_sitter_lua::LANGUAGE.into()
}
fn haskell() -> Language {
    tree_sitter_haskell::LANGUAGE.into()
}
fn ocaml() -> Language {
    tree_sitter_ocaml::LANGUAGE_OCAML.into()
}
fn ocaml_interface() -> Language {
    tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE.into()
}
fn zig() -> Language {
    tree_sitter_zig::LANGUAGE.into()
}
fn r() -> Language {
    tree_sitter_r::LANGUAGE.into()
}
fn erlang() -> Language {
    tree_sitter_erlang::LANGUAGE.into()
}

fn julia() -> Language {
    tree_sitter_julia::LANGUAGE.into()
}

/// What a row of [`LANGUAGES`] leaves unsaid: names are not dotted paths
/// (see [`LanguageSpec::dotted_names`]; Elixir's and Julia's rows say
/// otherwise), a function is one node (see [`LanguageSpec::equations`];
/// Haskell's and Erlang's rows say otherwise), names keep their every
/// character (see [`LanguageSpec::name_mark`]) and a definition starts at
/// its own first line (see [`LanguageSpec::doc_before`]; Julia's row says
/// otherwise of both).
const ROW: LanguageSpec = LanguageSpec {
    id: "",
    extensions: &[],
    grammar: python,
    tags: "",
    definition_words: None,
    test_names: &[],
    dotted_names: false,
    equations: None,
    name_mark: None,
    doc_before: None,
};

pub static LANGUAGES: &[LanguageSpec] = &[
    LanguageSpec {
        id: "python",
        extensions: &["py", "pyi"],
        grammar: python,
        tags: include_str!("../../queries/python/tags.scm"),
        definition_words: Some(&defines::PYTHON),
        test_names: PYTHON_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "rust",
        extensions: &["rs"],
        grammar: rust,
        tags: include_str!("../../queries/rust/tags.scm"),
        definition_words: Some(&defines::RUST),
        test_names: RUST_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        grammar: javascript,
        tags: include_str!("../../queries/javascript/tags.scm"),
        definition_words: None,
        test_names: JS_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: typescript,
        tags: include_str!("../../queries/typescript/tags.scm"),
        definition_words: None,
        test_names: JS_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "tsx",
        extensions: &["tsx"],
        grammar: tsx,
        // TSX is TypeScript plus JSX: the TypeScript query and JSX additions.
        tags: concat!(
            include_str!("../../queries/typescript/tags.scm"),
            include_str!("../../queries/tsx/tags.scm")
        ),
        definition_words: None,
        test_names: JS_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "go",
        extensions: &["go"],
        grammar: go,
        tags: include_str!("../../queries/go/tags.scm"),
        definition_words: Some(&defines::GO),
        test_names: SUFFIX_TEST,
        ..ROW
    },
    LanguageSpec {
        id: "java",
        extensions: &["java"],
        grammar: java,
        tags: include_str!("../../queries/java/tags.scm"),
        definition_words: None,
        test_names: JAVA_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "c",
        extensions: &["c", "h"],
        grammar: c,
        tags: include_str!("../../queries/c/tags.scm"),
        definition_words: None,
        test_names: C_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "cpp",
        // `.inl`, `.ipp`, `.tpp`, `.txx`: the implementation files a
        // header includes (inline functions, templates; glm, Boost, asio).
        extensions: &[
            "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "inl", "ipp", "tpp", "txx",
        ],
        grammar: cpp,
        tags: include_str!("../../queries/cpp/tags.scm"),
        definition_words: None,
        test_names: C_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "csharp",
        extensions: &["cs"],
        grammar: c_sharp,
        tags: include_str!("../../queries/csharp/tags.scm"),
        definition_words: None,
        test_names: BY_DIRECTORY_ONLY,
        ..ROW
    },
    LanguageSpec {
        id: "ruby",
        extensions: &["rb"],
        grammar: ruby,
        tags: include_str!("../../queries/ruby/tags.scm"),
        definition_words: Some(&defines::RUBY),
        test_names: SPEC_OR_TEST,
        ..ROW
    },
    LanguageSpec {
        id: "php",
        extensions: &["php"],
        grammar: php,
        tags: include_str!("../../queries/php/tags.scm"),
        definition_words: Some(&defines::PHP),
        test_names: BY_DIRECTORY_ONLY,
        ..ROW
    },
    LanguageSpec {
        id: "kotlin",
        // Not `.kts`: Kotlin scripts are Gradle build scripts
        // (`build.gradle.kts`), which weigh as build configuration.
        extensions: &["kt"],
        grammar: kotlin,
        tags: include_str!("../../queries/kotlin/tags.scm"),
        // Kotlin's methods all start with `fun`, but generic ones put type
        // parameters between (`fun <T> foo`) and enum entries have no
        // keyword: the file is parsed.
        definition_words: None,
        test_names: KOTLIN_SWIFT_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "swift",
        extensions: &["swift"],
        grammar: swift,
        tags: include_str!("../../queries/swift/tags.scm"),
        // `case a, b` defines two enum cases on one line, the second with
        // no keyword before it: the file is parsed.
        definition_words: None,
        test_names: KOTLIN_SWIFT_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "elixir",
        // Not `.exs`: scripts (`mix.exs`, `config/*.exs`) and ExUnit tests,
        // scored lexically ([`LEXICAL_SOURCE_EXTENSIONS`]).
        extensions: &["ex"],
        grammar: elixir,
        tags: include_str!("../../queries/elixir/tags.scm"),
        // `defmodule Phoenix.Router` defines `Router`, a name no keyword
        // stands right before: the file is parsed.
        definition_words: None,
        test_names: SUFFIX_TEST,
        dotted_names: true,
        ..ROW
    },
    LanguageSpec {
        id: "scala",
        // Not `.sc`: worksheets and Ammonite scripts, scored lexically.
        extensions: &["scala"],
        grammar: scala,
        tags: include_str!("../../queries/scala/tags.scm"),
        // A `def` has its keyword, but enum cases (`case A, B`) and
        // pattern `val`s put names after the first: the file is parsed.
        definition_words: None,
        test_names: SCALA_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "dart",
        extensions: &["dart"],
        grammar: dart,
        tags: include_str!("../../queries/dart/tags.scm"),
        // Methods have no keyword (`Future<Response> get(...)`).
        definition_words: None,
        test_names: SUFFIX_TEST,
        ..ROW
    },
    LanguageSpec {
        id: "lua",
        extensions: &["lua"],
        grammar: lua,
        tags: include_str!("../../queries/lua/tags.scm"),
        // `function M.setup` and `M.pick = function` put a table before
        // the name: the file is parsed.
        definition_words: None,
        test_names: SPEC_OR_TEST,
        ..ROW
    },
    LanguageSpec {
        id: "haskell",
        // Not `.lhs`: literate Haskell is prose around code, which this
        // grammar does not read; it is scored lexically.
        extensions: &["hs"],
        grammar: haskell,
        tags: include_str!("../../queries/haskell/tags.scm"),
        // A function is defined by its name first on a line, but a data
        // constructor or a record field follows `=`, `|`, `{` or `,` on a
        // line of its own: the file is parsed.
        definition_words: None,
        test_names: HASKELL_TESTS,
        equations: Some(Equations::Haskell),
        ..ROW
    },
    LanguageSpec {
        id: "ocaml",
        extensions: &["ml"],
        grammar: ocaml,
        // The query of both grammars and the top-level `let`s.
        tags: concat!(
            include_str!("../../queries/ocaml/tags.scm"),
            include_str!("../../queries/ocaml/implementation.scm")
        ),
        // A variant's constructors and a record's fields are defined in the
        // middle of a line (`type t = A | B`, `{ loc : Loc.t; name : string }`):
        // the file is parsed.
        definition_words: None,
        test_names: BY_DIRECTORY_ONLY,
        ..ROW
    },
    LanguageSpec {
        // An interface (`.mli`) has a grammar of its own (`val`
        // specifications, no `let` at its top); the query is the `.ml` one
        // without its `let`s. Another id, as TSX's: each row's query is
        // compiled for its grammar.
        id: "ocaml_interface",
        extensions: &["mli"],
        grammar: ocaml_interface,
        tags: include_str!("../../queries/ocaml/tags.scm"),
        definition_words: None,
        test_names: BY_DIRECTORY_ONLY,
        ..ROW
    },
    LanguageSpec {
        id: "zig",
        extensions: &["zig"],
        grammar: zig,
        tags: include_str!("../../queries/zig/tags.scm"),
        // `fn`, `const` and `var` come right before their names, but enum
        // values and fields listed several to a line (`red, green, blue,`,
        // `x: f32, y: f32`) have no keyword: the file is parsed.
        definition_words: None,
        test_names: ZIG_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "r",
        // Both cases: R packages name their files `.R` (`R/join.R`), some
        // scripts `.r`. `language_of` compares extensions with case (a `.C`
        // file is not C, often C++), so both are listed.
        extensions: &["R", "r"],
        grammar: r,
        tags: include_str!("../../queries/r/tags.scm"),
        // A function is an assignment (`join <- function(x)`), an R6
        // method may follow `list(` (`public = list(initialize =
        // function()`), an S4 class or generic is a string
        // (`setClass("Person"`): no keyword, the file is parsed.
        definition_words: None,
        test_names: R_TESTS,
        ..ROW
    },
    LanguageSpec {
        id: "erlang",
        // Modules and the headers they `-include` (records, macros, types).
        extensions: &["erl", "hrl"],
        grammar: erlang,
        tags: include_str!("../../queries/erlang/tags.scm"),
        // A function is defined by its name first on a line, but a record's
        // fields may be listed several to a line (`{name, count = 0}`) with
        // no keyword: the file is parsed.
        definition_words: None,
        test_names: ERLANG_TESTS,
        equations: Some(Equations::Erlang),
        ..ROW
    },
    LanguageSpec {
        id: "julia",
        extensions: &["jl"],
        grammar: julia,
        tags: include_str!("../../queries/julia/tags.scm"),
        // The short form `f(x) = ...` and a struct's fields have no keyword:
        // the file is parsed.
        definition_words: None,
        test_names: JULIA_TESTS,
        dotted_names: true,
        name_mark: Some('!'),
        doc_before: Some("string_literal"),
        ..ROW
    },
];

/// The language of a path, by extension.
pub fn language_of(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.contains(&ext))
}

/// Source code in languages the table has no row (grammar) for, by
/// extension: Groovy, literate Haskell, F#, Visual Basic, Clojure,
/// Objective-C, Perl, Nim, Crystal, Elm, Gleam, Solidity, CUDA, Cython,
/// Fortran, Verilog, VHDL, single-file components (Vue, Svelte, Astro), and
/// Elixir and Scala scripts. Such files are scored lexically, without
/// definitions, but they are the project's code: without this list a Groovy
/// or Clojure project's sources weighed as "not source code" (data,
/// notebooks, build scripts) and ranked level with its JSON and YAML, as
/// Kotlin's, Swift's, Scala's, Dart's, Lua's, Haskell's, OCaml's, Zig's,
/// R's, Erlang's and Julia's did before they had rows. Shell scripts are
/// left out: in a project of another language they are tooling.
pub const LEXICAL_SOURCE_EXTENSIONS: &[&str] = &[
    "sc", "groovy", "exs", "lhs", "fs", "fsi", "vb", "clj", "cljs", "cljc", "m", "mm", "pl", "pm",
    "nim", "cr", "elm", "gleam", "sol", "cu", "cuh", "pyx", "pxd", "f90", "f95", "v", "sv", "vhd",
    "vue", "svelte", "astro",
];

/// Test-file names of the languages without a row: the conventions of
/// their test runners (`FooSpec.groovy`, `foo_test.exs`, `Foo.spec.vue`).
const LEXICAL_TESTS: &[TestName] = &[
    SNAKE_TESTS[0],
    SNAKE_TESTS[1],
    SNAKE_TESTS[2],
    TestName::Suffix("_spec"),
    TestName::Suffix(".test"),
    TestName::Suffix(".spec"),
    TestName::Suffix("-test"),
    TestName::Suffix("-spec"),
    TestName::ClassSuffix("Test"),
    TestName::ClassSuffix("Tests"),
    TestName::ClassSuffix("Spec"),
    TestName::ClassSuffix("Suite"),
];

/// Whether `path` is source code: of a language of the table, or of one
/// scored lexically ([`LEXICAL_SOURCE_EXTENSIONS`], compared without case).
pub fn is_code_path(path: &str) -> bool {
    language_of(path).is_some() || is_lexical_source(path)
}

/// Whether `path` has an extension of [`LEXICAL_SOURCE_EXTENSIONS`].
fn is_lexical_source(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && is_lexical_extension(ext))
}

fn is_lexical_extension(ext: &str) -> bool {
    LEXICAL_SOURCE_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(ext))
}

/// Whether `ext` (without the dot) is a source-code extension: of a row of
/// [`LANGUAGES`] (compared with case, as [`language_of`] does) or of
/// [`LEXICAL_SOURCE_EXTENSIONS`] (without case).
pub fn is_code_extension(ext: &str) -> bool {
    LANGUAGES.iter().any(|l| l.extensions.contains(&ext)) || is_lexical_extension(ext)
}

/// Whether `rel` (relative, `/`-separated) is a test file: under a test
/// directory (any file there, fixtures and snapshots too), or named like a
/// test by its language's convention (the `test_names` of its row of the table).
///
/// Test directories, by exact name: `test`, `tests` (Rust, PHP, Python, C),
/// `spec`, `specs` (Ruby), `__tests__`, `__mocks__`, `__snapshots__` (Jest),
/// `testing`, `testdata` (Go), `test_data`, `fixtures`; a test tree with a
/// suffix (`test-jdk17`, `tests-integration`), so Java's `src/test/` and
/// `src/test-jdk17/`; and, without case, a tree named for what it tests: a
/// .NET test project (`Humanizer.Tests`, `Foo.UnitTests`,
/// `Foo.IntegrationTests`) or a prefix before `-tests`, `_tests`, `-test`,
/// `_test` (`windows-tests`, `integration_tests`); a Gradle test source set
/// (`commonTest`, `jvmTest`, `androidUnitTest`: lower camel case ending in
/// `Test` or `Tests`), a Swift package's test target (`AlamofireTests`:
/// upper camel case ending in `Tests`) and a top-level `Tests` (Swift
/// packages' `Tests/`). Otherwise the exact names keep their case: a
/// capitalised `Tests` or `Testing` below the top is source (NUnit's
/// `Internal/Tests/TestSuite.cs`, Laravel's `Illuminate/Testing/`).
pub fn is_test_path(rel: &str) -> bool {
    let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    if dirs.split('/').any(is_test_dir) || dirs.split('/').next() == Some("Tests") {
        return true;
    }
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let names = match language_of(file) {
        Some(spec) => spec.test_names,
        None if is_lexical_source(file) => LEXICAL_TESTS,
        None => return false,
    };
    names.iter().any(|n| n.matches(stem))
}

/// Whether `rel` is a test double kept beside the product's code: a fake
/// or a mock by its file name (`FakeProcessResult.php`,
/// `NotificationFake.php`, `MockClock.java`, `mock_store.go`,
/// `store_mock.go`, `fake_clock.py`) or under a `fakes/` or `mocks/`
/// directory (any case). Not "stub": `StubPublishCommand.php` publishes
/// Laravel's code templates and `stubs/` holds them (or Python's type
/// stubs). Such files repeat the API they stand in for, and a task about
/// that API (Laravel's "process fake assertions", whose fix is in
/// `Process/Factory.php`) matches them as well as the real code. Test
/// directories are [`is_test_path`]'s.
pub fn is_test_double_path(rel: &str) -> bool {
    let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    if dirs
        .split('/')
        .any(|d| ["fakes", "mocks"].iter().any(|n| d.eq_ignore_ascii_case(n)))
    {
        return true;
    }
    if language_of(file).is_none() {
        return false;
    }
    let stem = file.split_once('.').map_or(file, |(s, _)| s);
    const WORDS: &[&str] = &["Fake", "Mock"];
    // CamelCase: `FakeX`, `MockX`, `XFake`, `XMock` (a word of its own).
    let camel = WORDS.iter().any(|w| {
        stem.strip_prefix(w)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
            || stem.strip_suffix(w).is_some_and(|head| {
                head.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            })
    });
    // snake_case: `fake_x`, `mock_x`, `x_mock`, `x_mocks`, `x_fake`.
    let plural = stem.strip_suffix('s').unwrap_or(stem);
    let snake = ["fake", "mock"].iter().any(|w| {
        stem.strip_prefix(w)
            .is_some_and(|rest| rest.starts_with('_'))
            || [stem, plural].iter().any(|s| {
                s.strip_suffix(w)
                    .is_some_and(|head| head.len() > 1 && head.ends_with('_'))
            })
    });
    camel || snake
}

/// A directory that holds tests (see [`is_test_path`]).
fn is_test_dir(seg: &str) -> bool {
    if matches!(
        seg,
        "test"
            | "tests"
            | "testing"
            | "spec"
            | "specs"
            | "__tests__"
            | "__mocks__"
            | "__snapshots__"
            | "testdata"
            | "test_data"
            | "fixtures"
    ) {
        return true;
    }
    if seg
        .strip_prefix("test")
        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with("s-"))
    {
        return true;
    }
    if is_camel_test_dir(seg) {
        return true;
    }
    let lower = seg.to_ascii_lowercase();
    [
        ".tests",
        ".unittests",
        ".integrationtests",
        ".test",
        "-tests",
        "_tests",
        "-test",
        "_test",
    ]
    .iter()
    .any(|sfx| lower.len() > sfx.len() && lower.ends_with(sfx))
}

/// A Gradle test source set (`commonTest`, `androidUnitTest`,
/// `jvmTests`: lower camel case ending in `Test` or `Tests`) or a Swift
/// package's test target (`AlamofireTests`: upper camel case ending in
/// `Tests`; not `Test`, as `LoadTest` may name what a directory holds),
/// the last word after a lower-case letter or a digit.
fn is_camel_test_dir(seg: &str) -> bool {
    let lower_start = seg.starts_with(|c: char| c.is_ascii_lowercase());
    let head = match seg.strip_suffix("Tests") {
        Some(h) => h,
        None if lower_start => match seg.strip_suffix("Test") {
            Some(h) => h,
            None => return false,
        },
        None => return false,
    };
    head.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && seg.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Directories of material beside the product's code, compared without
/// case: docs (`doc`, `docs`, `documentation`, `devdocs`, `website`,
/// `changelogs`), examples and demos (`example(s)`, `sample(s)`, `demo(s)`,
/// `playground`), `scripts`, benchmarks (`bench(es)`, `benchmark(s)`, a .NET
/// `Foo.Benchmarks` project), vendored copies of other projects (`vendored`,
/// `_vendor` as in pip's `src/pip/_vendor/`, `thirdparty`, `3rdparty`) and
/// committed build output (`dist`: axios's `dist/axios.js` bundles every
/// module under `lib/`). Not `external`: it is
/// vendored code in seaborn but source in sympy (`sympy/external/`).
const ASIDE_DIRS: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "devdocs",
    "website",
    "changelogs",
    "example",
    "examples",
    "sample",
    "samples",
    "demo",
    "demos",
    "playground",
    "scripts",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "vendored",
    "_vendor",
    "thirdparty",
    "3rdparty",
    "dist",
];

/// Whether `rel` (relative, `/`-separated) lies under a directory of material
/// beside the product's code: docs, examples, demos, playgrounds, scripts,
/// benchmarks, vendored copies, committed build output (`dist/`) or installed
/// dependencies (`node_modules/`, `vendor/`), by directory name without case
/// (`Docs/`, `Samples/`, a .NET `Foo.Benchmarks/`). One rule for the priors,
/// the links of the later cycles and the bench's source-only baseline: a
/// fix lands in the sources, and a copy or an example defines and uses every
/// name the sources do. The file's own name is not looked at (`src/examples.rs`
/// is source).
pub fn is_aside_path(rel: &str) -> bool {
    rel.rsplit_once('/')
        .is_some_and(|(dirs, _)| dirs.split('/').any(is_aside_dir))
}

/// Whether one directory name `seg` holds docs, examples, demos, scripts,
/// benchmarks, vendored code or build output (the list above, without case),
/// or installed dependencies (the walk's [`crate::walk::DEPENDENCY_DIRS`]:
/// `node_modules`, `vendor`, `third_party`, ...; the walk enters them only
/// when an include glob names one).
fn is_aside_dir(seg: &str) -> bool {
    const SUFFIX: &[u8] = b".benchmarks";
    ASIDE_DIRS.iter().any(|d| seg.eq_ignore_ascii_case(d))
        || seg
            .len()
            .checked_sub(SUFFIX.len())
            .is_some_and(|at| at > 0 && seg.as_bytes()[at..].eq_ignore_ascii_case(SUFFIX))
        || is_prefixed_aside_dir(seg)
        || crate::walk::is_dependency_dir(seg)
}

/// A module of docs, examples or benchmarks named after the project or a
/// part of it: `scalafmt-benchmarks`, `scalafmt-docs`, `dio_flutter_example`,
/// `nu_plugin_example`, `versioned_docs` (a word of [`PREFIXED_ASIDE`] after
/// a `-` or `_`, without case). Its sources repeat the project's names (a
/// benchmark corpus of Scala files took 4 of the top 10 of held-out scalafmt
/// tasks).
fn is_prefixed_aside_dir(seg: &str) -> bool {
    const PREFIXED_ASIDE: &[&str] = &[
        "benchmarks",
        "benchmark",
        "bench",
        "docs",
        "examples",
        "example",
        "samples",
        "sample",
        "demos",
        "demo",
        "playground",
    ];
    seg.rsplit_once(['-', '_']).is_some_and(|(head, word)| {
        !head.is_empty() && PREFIXED_ASIDE.iter().any(|w| word.eq_ignore_ascii_case(w))
    })
}

/// A row's grammar and its tags query, compiled; `name_idx` and `parent_idx`
/// are the query's `@name` and `@parent` capture indices.
pub(super) struct Compiled {
    pub(super) language: Language,
    pub(super) query: Query,
    pub(super) name_idx: u32,
    pub(super) parent_idx: Option<u32>,
    /// The row's [`LanguageSpec::dotted_names`].
    pub(super) dotted_names: bool,
    /// The row's [`LanguageSpec::equations`].
    pub(super) equations: Option<Equations>,
    /// The row's [`LanguageSpec::name_mark`].
    pub(super) name_mark: Option<char>,
    /// The row's [`LanguageSpec::doc_before`].
    pub(super) doc_before: Option<&'static str>,
}

/// The compiled query of `spec` (compiled on first use, then cached).
pub(super) fn compiled(spec: &LanguageSpec) -> &'static Compiled {
    static CACHE: OnceLock<Vec<OnceLock<Compiled>>> = OnceLock::new();
    let cells = CACHE.get_or_init(|| LANGUAGES.iter().map(|_| OnceLock::new()).collect());
    let idx = LANGUAGES
        .iter()
        .position(|l| l.id == spec.id)
        .expect("spec comes from LANGUAGES");
    cells[idx].get_or_init(|| {
        let language = (spec.grammar)();
        // The queries are part of the binary; a unit test compiles every one.
        let query = Query::new(&language, spec.tags)
            .unwrap_or_else(|e| panic!("queries/{}/tags.scm does not compile: {e}", spec.id));
        let name_idx = query
            .capture_index_for_name("name")
            .expect("tags.scm captures @name");
        let parent_idx = query.capture_index_for_name("parent");
        Compiled {
            language,
            query,
            name_idx,
            parent_idx,
            dotted_names: spec.dotted_names,
            equations: spec.equations,
            name_mark: spec.name_mark,
            doc_before: spec.doc_before,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{DefKind, RefKind};

    #[test]
    fn every_tags_query_compiles() {
        for spec in LANGUAGES {
            let _ = compiled(spec);
        }
    }

    #[test]
    fn every_capture_of_every_query_is_a_known_kind() {
        // A capture with no kind would be dropped from the symbols silently.
        for spec in LANGUAGES {
            for name in compiled(spec).query.capture_names() {
                let known = match name.split_once('.') {
                    Some(("definition", k)) => DefKind::from_capture(k).is_some(),
                    Some(("reference", k)) => RefKind::from_capture(k).is_some(),
                    _ => matches!(*name, "name" | "parent") || name.starts_with('_'),
                };
                assert!(known, "{}: capture @{name} has no kind", spec.id);
            }
        }
    }

    #[test]
    fn test_paths_follow_each_languages_conventions() {
        let tests = [
            // Python: `test_*.py`, `*_test.py`, `tests/`, `conftest.py`.
            "tests/test_auth.py",
            "pkg/core/tests/test_expr.py",
            "sympy/core/test_basic.py",
            "absl/flags_test.py",
            "conftest.py",
            "app/tests.py",
            // Rust: `tests/` and a `tests.rs` unit-test module.
            "tests/integration.rs",
            "tokio/src/fs/file/tests.rs",
            "crates/core/integration_tests/common.rs",
            // Go: `_test.go`, `testdata/`.
            "pkg/server_test.go",
            "internal/testdata/config.json",
            // JavaScript and TypeScript: `*.test.ts`, `*.spec.js`, `__tests__/`, `__mocks__/`.
            "src/foo.test.ts",
            "packages/core/src/apiWatch.spec.ts",
            "lib/foo.spec.js",
            "src/Button.test.tsx",
            "src/__tests__/foo.ts",
            "src/__mocks__/axios.js",
            "src/__snapshots__/foo.test.ts.snap",
            // Java: `src/test/`, a suffixed test tree, `*Test.java`.
            "src/test/java/com/x/Foo.java",
            "src/test-jdk17/java/com/fasterxml/jackson/databind/records/RecordBasicsTest.java",
            "src/main/java/com/x/FooTest.java",
            // C#: a test project `*.Tests/` (any file in it), `windows-tests/`.
            "src/Humanizer.Tests/Localisation/ResourceKeys.cs",
            "src/Foo.UnitTests/Helpers/FakeClock.cs",
            "src/NUnitFramework/nunit.framework.legacy.tests/StringAssertTests.cs",
            "src/NUnitFramework/windows-tests/Program.cs",
            // Ruby: `spec/`, `*_spec.rb`, `test/`, `*_test.rb`.
            "spec/rubocop/cop/foo_spec.rb",
            "lib/foo_spec.rb",
            "test/models/user_test.rb",
            // PHP: `tests/`.
            "tests/Support/StrTest.php",
            "tests/Fixtures/Foo.php",
            // C and C++: `test/`, `test_*.c`, `*_unittest.cc`.
            "test/test-fs.c",
            "src/test_hooks.c",
            "base/strings_unittest.cc",
            // Kotlin: `FooTest.kt`, `FooSpec.kt`, Gradle test source sets.
            "app/src/main/kotlin/com/acme/SessionStoreTest.kt",
            "app/src/main/kotlin/com/acme/SessionSpec.kt",
            "coil-core/src/commonTest/kotlin/coil3/util/utils.kt",
            "coil-core/src/androidUnitTest/kotlin/coil3/FakeImage.kt",
            "okhttp/src/jvmTest/kotlin/okhttp3/internal/Util.kt",
            // Swift: `FooTests.swift`, a package's `Tests/` and test targets.
            "Sources/Session/SessionTests.swift",
            "Tests/BaseTestCase.swift",
            "Tests/VaporTests/Utilities/TestHelpers.swift",
            "Frameworks/App/AlamofireTests/Helpers.swift",
            // Scala: `FooSpec.scala`, `FooSuite.scala`, `src/test/`.
            "core/src/main/scala/org/x/ParserSuite.scala",
            "core/src/test/scala/org/x/Helpers.scala",
            // Dart: `*_test.dart`, `test/`.
            "lib/src/client_test.dart",
            "test/utils.dart",
            // Elixir: `test/`, `*_test.ex`.
            "lib/phoenix/conn_test.ex",
            // Lua: `*_spec.lua` (busted), `test_*.lua`.
            "lua/telescope/pickers_spec.lua",
            "lua/test_utils.lua",
            // Haskell: hspec's `*Spec.hs` and `Spec.hs`, tasty's and
            // HUnit's `*Test.hs` and `Test.hs`.
            "src/ShellCheck/AnalyzerSpec.hs",
            "Spec.hs",
            "src/PostgREST/ConfigTest.hs",
            "Test.hs",
            // OCaml: a dune project's `test/` (`test_*.ml` there), cram
            // tests' `*.t/` below it, an old `lib_test/`.
            "test/unit/test_conf.ml",
            "test/blackbox-tests/test-cases/watching/errors.t/src/foo.ml",
            "lib_test/parser_tests.mli",
            // Zig: `*_test.zig`, `test_*.zig`, a test root `tests.zig` or
            // `test.zig`, `test/`.
            "src/http_test.zig",
            "src/test_utils.zig",
            "src/tests.zig",
            "pkg/freetype/test.zig",
            "test/fuzz-libghostty/src/mem.zig",
            // R: testthat's `tests/testthat/` (tests, `helper-*.R`,
            // `setup-*.R`), tinytest's `test_*.R`.
            "tests/testthat/test-join.R",
            "tests/testthat/helper-data.R",
            "tests/testthat/setup-db.R",
            "inst/tinytest/test_join.R",
            // Erlang: Common Test's `*_SUITE.erl`, EUnit's `*_tests.erl`
            // and `*_test.erl`, `test/`.
            "apps/cowboy/src/http2_SUITE.erl",
            "src/jid_tests.erl",
            "src/json_test.erl",
            "test/handlers/ws_init_h.erl",
            "test/suite.hrl",
            // Julia: `test/` (Pkg runs `test/runtests.jl`), a suite's
            // `runtests.jl` elsewhere, `test_*.jl`, `*_tests.jl`.
            "test/layers/basic.jl",
            "lib/FluxCUDA/runtests.jl",
            "src/test_utils.jl",
            "src/join_tests.jl",
        ];
        for p in tests {
            assert!(is_test_path(p), "{p} is a test");
        }
        let sources = [
            "src/auth/token.py",
            "src/contest.py",
            "src/latest.py",
            "src/pytest/latest/runner.py",
            "lib/contests/score.rb",
            "src/lib.rs",
            "cmd/gh/main.go",
            "lib/core/Axios.js",
            "src/main/java/com/x/Latest.java",
            // C# and PHP name no test by file alone: framework sources
            // named like tests stay source.
            "src/NUnitFramework/framework/Attributes/TestAttribute.cs",
            "src/NUnitFramework/framework/Interfaces/ITest.cs",
            "src/NUnitFramework/framework/Interfaces/IApplyToTest.cs",
            "src/NUnitFramework/framework/Internal/Tests/TestSuite.cs",
            "src/Illuminate/Testing/TestResponse.php",
            "src/Illuminate/Testing/Fakes/Fake.php",
            "src/Illuminate/Foundation/Testing/Attributes/UnitTest.php",
            // A C++ `_spec` is no test (Catch2's test-spec parser).
            "src/catch2/catch_test_spec.cpp",
            // Kotlin and Swift sources named like tests or in a `Test` package.
            "okhttp/src/main/kotlin/okhttp3/internal/Contest.kt",
            "src/main/kotlin/com/acme/LoadTest/Runner.kt",
            "Sources/Vapor/Testing/Latest.swift",
            "Sources/Vapor/Tests/Harness.swift",
            // Haskell sources ending in a lower-case `test` or `spec`.
            "src/ShellCheck/Contest.hs",
            "src/Data/Aeson/Inspec.hs",
            // OCaml names no test by file alone: dune's sources that run tests.
            "src/dune_rules/test_rules.ml",
            "src/dune_rules/inline_tests.mli",
            "src/source/cram_test.ml",
            "bin/describe/describe_tests.ml",
            // Other languages' conventions do not apply.
            "src/Style_test.cs",
            "src/latest.zig",
            "src/contest.zig",
            // testthat's own sources are named `test-*.R`.
            "R/test-that.R",
            "R/test-files.R",
            "R/latest.R",
            // Erlang: Common Test's own sources name no suite (`ct_suite`
            // is the suites' behaviour), nor does a `_suite` in lower case.
            "src/ct_suite.erl",
            "src/ejabberd_test_options.erl",
            "src/mod_configtest.erl",
            // Julia packages named like tests are sources.
            "src/ReTest.jl",
            "src/ChainRulesTestUtils.jl",
            "src/contest.jl",
            "docs/api.test.md",
        ];
        for p in sources {
            assert!(!is_test_path(p), "{p} is not a test");
        }
    }

    #[test]
    fn aside_paths_are_docs_examples_scripts_benchmarks_vendored_and_build_output() {
        for p in [
            "docs/conf.py",
            "Docs/Overview.cs",
            "website/src/theme.js",
            "crates/grep/examples/simplegrep.rs",
            "Samples/App/Program.cs",
            "scripts/release.py",
            "packages/vue/playground/main.ts",
            "src/Humanizer.Benchmarks/Bench.cs",
            "dist/axios.js",
            "node_modules/lodash/index.js",
            "vendor/lib/x.go",
            "static/third_party/jquery.js",
            "scalafmt-benchmarks/src/resources/Endpoint.scala",
            "scalafmt-docs/src/main/scala/Readme.scala",
            "crates/nu_plugin_example/src/main.rs",
            "website/versioned_docs/version-2/intro.md",
        ] {
            assert!(is_aside_path(p), "{p} is aside");
        }
        for p in [
            "src/examples.rs",
            "scripts.py",
            "sympy/external/importtools.py",
            "src/benchmarking/mod.rs",
            "lib/docsite.rb",
            "src/dist.rs",
            "src/doc_builder/mod.rs",
            "lib/sample_rate/filter.go",
            "crates/nu-cmd-extra/src/lib.rs",
        ] {
            assert!(!is_aside_path(p), "{p} is source");
        }
    }
}
