//! What the tags captures mean: definitions and references (their kinds),
//! the symbols of one file, and why a file's symbols were not read.
//!
//! The serde derives are the symbol cache's encoding (`src/cache/symbols.rs`,
//! postcard): a change here changes the build fingerprint (build.rs hashes
//! `src/lang/`), so entries of the old shape are never read.

use serde::{Deserialize, Serialize};

/// What a definition is: the `<kind>` of a `@definition.<kind>` capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DefKind {
    /// `@definition.class` (also structs, enums, traits' types).
    Class,
    /// `@definition.constant`.
    Constant,
    /// `@definition.field`.
    Field,
    /// `@definition.function`.
    Function,
    /// `@definition.impl` (a Rust `impl` block).
    Impl,
    /// `@definition.interface`.
    Interface,
    /// `@definition.macro`.
    Macro,
    /// `@definition.method`.
    Method,
    /// `@definition.module`.
    Module,
}

impl DefKind {
    /// The capture's `<kind>`, as the reasons show it.
    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Class => "class",
            DefKind::Constant => "constant",
            DefKind::Field => "field",
            DefKind::Function => "function",
            DefKind::Impl => "impl",
            DefKind::Interface => "interface",
            DefKind::Macro => "macro",
            DefKind::Method => "method",
            DefKind::Module => "module",
        }
    }

    /// The kind a `@definition.<kind>` capture names; `None` for a kind no
    /// query of this crate uses.
    pub fn from_capture(kind: &str) -> Option<DefKind> {
        Some(match kind {
            "class" => DefKind::Class,
            "constant" => DefKind::Constant,
            "field" => DefKind::Field,
            "function" => DefKind::Function,
            "impl" => DefKind::Impl,
            "interface" => DefKind::Interface,
            "macro" => DefKind::Macro,
            "method" => DefKind::Method,
            "module" => DefKind::Module,
            _ => return None,
        })
    }

    /// A function or a method: what has a body that other definitions can
    /// be local to.
    pub fn is_callable(self) -> bool {
        matches!(self, DefKind::Function | DefKind::Method)
    }
}

impl std::fmt::Display for DefKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a use of a name is: the `<kind>` of a `@reference.<kind>` capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RefKind {
    /// `@reference.call`: a plain call.
    Call,
    /// `@reference.class`.
    Class,
    /// `@reference.constant`: an ALL_CAPS name read.
    Constant,
    /// `@reference.implementation`: a base class or implemented trait.
    Implementation,
    /// `@reference.import`: a module imported.
    Import,
    /// `@reference.import_name`: a name imported from a module.
    ImportName,
    /// `@reference.method`: a call on a receiver.
    Method,
    /// `@reference.type`.
    Type,
}

impl RefKind {
    /// The capture's `<kind>`.
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::Class => "class",
            RefKind::Constant => "constant",
            RefKind::Implementation => "implementation",
            RefKind::Import => "import",
            RefKind::ImportName => "import_name",
            RefKind::Method => "method",
            RefKind::Type => "type",
        }
    }

    /// The kind a `@reference.<kind>` capture names; `None` for a kind no
    /// query of this crate uses.
    pub fn from_capture(kind: &str) -> Option<RefKind> {
        Some(match kind {
            "call" => RefKind::Call,
            "class" => RefKind::Class,
            "constant" => RefKind::Constant,
            "implementation" => RefKind::Implementation,
            "import" => RefKind::Import,
            "import_name" => RefKind::ImportName,
            "method" => RefKind::Method,
            "type" => RefKind::Type,
            _ => return None,
        })
    }
}

impl std::fmt::Display for RefKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A definition: its [`DefKind`], its name, the name of the enclosing
/// definition, and 1-based inclusive lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub kind: DefKind,
    pub name: String,
    pub parent: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    /// First line of the definition (its signature), trimmed.
    pub signature: String,
    /// Defined inside a function or method body (a helper nested in a test,
    /// a closure's named function): visible there only, never what another
    /// file uses.
    pub local: bool,
}

/// A use of a name, of a [`RefKind`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub kind: RefKind,
    pub name: String,
    /// 1-based line.
    pub line: usize,
    /// For a name accessed on another (`click` in `click.echo(...)` or
    /// `click.Context`), that other name when it is a plain identifier
    /// (Python attribute, JavaScript member, Go selector and Rust field
    /// expressions, R's `pkg::f` and `obj$f`).
    pub receiver: Option<String>,
}

/// Definitions and references of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbols {
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
    /// Set when the file's syntax tree was not used (the symbols are then
    /// empty and the file is ranked by its text alone), and why.
    pub capped: Option<Cap>,
}

/// Why a file's symbols were not read from its syntax tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cap {
    /// Parsing and querying the file took longer than its budget
    /// ([`parse_budget`](super::clock::parse_budget)). Kept with the file's
    /// version: it is not parsed again.
    Budget,
    /// The call's deadline passed or it was cancelled while the file was
    /// parsed or queried. Not a property of the file: a later call parses it again.
    Stopped,
}

impl Cap {
    /// The name used in answers (`stats.not_parsed[].reason`).
    pub fn as_str(self) -> &'static str {
        match self {
            Cap::Budget => "parse_budget",
            Cap::Stopped => "stopped",
        }
    }
}

impl Symbols {
    /// Definitions named `name` (exact match).
    pub fn defines<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Definition> + 'a {
        self.definitions.iter().filter(move |d| d.name == name)
    }
}
