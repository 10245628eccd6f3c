//! The language table and the symbols tree-sitter finds in a file.
//!
//! One row per language: id, file extensions, grammar, and a tags query
//! (`queries/<lang>/tags.scm`) with tree-sitter's standard captures —
//! `@definition.<kind>` / `@reference.<kind>` around a node and `@name` on its
//! identifier. Adding a language is one row in `table.rs` and one `.scm`
//! file. Files in languages without a row are still ranked lexically.
//!
//! Extensions to the standard captures: `@definition.impl` (a Rust `impl`
//! block, a container for methods), `@reference.method` (a call on a
//! receiver, weaker evidence than a plain `@reference.call`),
//! `@reference.import` (the module an import names),
//! `@reference.import_name` (a name imported from it) and `@parent` (the
//! container of a definition that sits outside it: a Go method's receiver type,
//! a C++ `Foo::bar` defined out of its class, an R `setMethod("bar", "Foo")`).
//!
//! A pattern captures `@name`, one `@definition.*`/`@reference.*` node and
//! optionally `@parent`; private `@_x` captures serve its predicates only
//! (Kotlin's `const`, Elixir's `def`). When several patterns define the same
//! node, the earliest in the file wins. A row with `dotted_names` (Elixir,
//! Julia) reads a dotted name by its last part; a row with `equations`
//! (Haskell, Erlang) reads a function's signature and equations (clauses),
//! sibling nodes, as one definition; a row with a `name_mark` (Julia's `!`)
//! reads names without it; a row with `doc_before` (Julia) starts a
//! definition at the docstring before it; a call whose name is (in) a
//! definition's name is that definition's head, not a use, and one whose
//! name is a method call's is that method call.
//!
//! The files, one concept each: `table` (the rows, and each row's compiled
//! tags query), `header` (a `.h` header that is C++), `kinds` (what the
//! captures mean: definitions, references, a file's symbols), `clock` (the
//! parse budget and the CPU clock it is spent on), `parse` (parsing a file,
//! bounded) and `tags` (running the tags query over a tree: definitions
//! placed in their parents, references with their receivers). `tests.rs`
//! checks each language's query end to end.

mod clock;
mod defines;
mod header;
mod kinds;
mod parse;
mod table;
mod tags;
#[cfg(test)]
mod tests;

pub use defines::may_define;
pub use kinds::{Cap, DefKind, Definition, RefKind, Reference, Symbols};
pub use parse::{symbols, symbols_until};
pub use table::{
    is_aside_path, is_code_extension, is_code_path, is_test_double_path, is_test_path, language_of,
    LanguageSpec,
};
