//! The language table and the symbols tree-sitter finds in a file.
//!
//! One row per language: id, file extensions, grammar, and a tags query
//! (`queries/<lang>/tags.scm`) with tree-sitter's standard captures —
//! `@definition.<kind>` / `@reference.<kind>` around a node and `@name` on its
//! identifier. Adding a language is one row here and one `.scm` file. Files in
//! languages without a row are still ranked lexically.
//!
//! Extensions to the standard captures: `@definition.impl` (a Rust `impl`
//! block, a container for methods), `@reference.method` (a call on a
//! receiver, weaker evidence than a plain `@reference.call`),
//! `@reference.import` (the module an import names),
//! `@reference.import_name` (a name imported from it) and `@parent` (the
//! container of a definition that sits outside it: a Go method's receiver type,
//! a C++ `Foo::bar` defined out of its class).
//!
//! A pattern captures `@name`, one `@definition.*`/`@reference.*` node and
//! optionally `@parent`, nothing else (predicates test those captures). When
//! several patterns define the same node, the earliest in the file wins.

use std::collections::HashMap;
use std::sync::OnceLock;
use tree_sitter::{
    Language, ParseOptions, Parser, Query, QueryCursor, QueryCursorOptions, StreamingIterator, Tree,
};

/// A row of the language table.
#[derive(Debug)]
pub struct LanguageSpec {
    pub id: &'static str,
    pub extensions: &'static [&'static str],
    grammar: fn() -> Language,
    tags: &'static str,
}

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

pub static LANGUAGES: &[LanguageSpec] = &[
    LanguageSpec {
        id: "python",
        extensions: &["py", "pyi"],
        grammar: python,
        tags: include_str!("../../queries/python/tags.scm"),
    },
    LanguageSpec {
        id: "rust",
        extensions: &["rs"],
        grammar: rust,
        tags: include_str!("../../queries/rust/tags.scm"),
    },
    LanguageSpec {
        id: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        grammar: javascript,
        tags: include_str!("../../queries/javascript/tags.scm"),
    },
    LanguageSpec {
        id: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: typescript,
        tags: include_str!("../../queries/typescript/tags.scm"),
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
    },
    LanguageSpec {
        id: "go",
        extensions: &["go"],
        grammar: go,
        tags: include_str!("../../queries/go/tags.scm"),
    },
    LanguageSpec {
        id: "java",
        extensions: &["java"],
        grammar: java,
        tags: include_str!("../../queries/java/tags.scm"),
    },
    LanguageSpec {
        id: "c",
        extensions: &["c", "h"],
        grammar: c,
        tags: include_str!("../../queries/c/tags.scm"),
    },
    LanguageSpec {
        id: "cpp",
        extensions: &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        grammar: cpp,
        tags: include_str!("../../queries/cpp/tags.scm"),
    },
    LanguageSpec {
        id: "csharp",
        extensions: &["cs"],
        grammar: c_sharp,
        tags: include_str!("../../queries/csharp/tags.scm"),
    },
    LanguageSpec {
        id: "ruby",
        extensions: &["rb"],
        grammar: ruby,
        tags: include_str!("../../queries/ruby/tags.scm"),
    },
    LanguageSpec {
        id: "php",
        extensions: &["php"],
        grammar: php,
        tags: include_str!("../../queries/php/tags.scm"),
    },
];

/// The language of a path, by extension.
pub fn language_of(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.contains(&ext))
}

/// The grammar to parse `text` with: a `.h` header shares C's extension but
/// in a C++ project holds classes, templates and namespaces, which the C
/// grammar does not see as definitions; such a header is parsed as C++.
fn grammar_for<'a>(spec: &'a LanguageSpec, text: &str) -> &'a LanguageSpec {
    if spec.id != "c" || !looks_like_cpp(text) {
        return spec;
    }
    LANGUAGES.iter().find(|l| l.id == "cpp").unwrap_or(spec)
}

/// Whether C-family text is C++: a line opens a namespace, template or
/// class, declares an access section, or the text uses `std::`.
fn looks_like_cpp(text: &str) -> bool {
    text.contains("std::")
        || text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("namespace ")
                || l.starts_with("template<")
                || l.starts_with("template <")
                || (l.starts_with("class ") && !l.ends_with(';'))
                || l.starts_with("public:")
                || l.starts_with("private:")
                || l.starts_with("protected:")
        })
}

struct Compiled {
    language: Language,
    query: Query,
    name_idx: u32,
    parent_idx: Option<u32>,
}

fn compiled(spec: &LanguageSpec) -> &'static Compiled {
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
        }
    })
}

/// What a definition is: the `<kind>` of a `@definition.<kind>` capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub kind: RefKind,
    pub name: String,
    /// 1-based line.
    pub line: usize,
    /// For a name accessed on another (`click` in `click.echo(...)` or
    /// `click.Context`), that other name when it is a plain identifier
    /// (Python attribute, JavaScript member, Go selector and Rust field
    /// expressions).
    pub receiver: Option<String>,
}

/// Definitions and references of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
    /// Set when the file's syntax tree was not used (the symbols are then
    /// empty and the file is ranked by its text alone), and why.
    pub capped: Option<Cap>,
}

/// Why a file's symbols were not read from its syntax tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// Parsing and querying the file took longer than its budget
    /// ([`parse_budget`]). Kept with the file's version: it is not parsed again.
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

/// The CPU time one file may take to parse and run its tags query: 250 ms
/// plus 1 ms per KB (1.25 s for the largest file read, 1 MiB), counted on the
/// parsing thread's own CPU clock ([`ParseClock`]), so a loaded machine does
/// not cap files it would parse when idle (with a wall clock, a bench at load
/// 20 on 2 cores left `sympy/core/expr.py` unparsed and moved ranks).
///
/// Ordinary code is far inside it: across 8,058 files (this crate, the cargo
/// registry's crates, the Python standard library) the slowest took 0.7 s in
/// a debug build (a 631 KB generated Unicode table; parse and query). Some
/// texts make tree-sitter's work superlinear: error recovery over unbalanced
/// brackets builds long chains of hidden nodes, and the query cursor walks
/// such a chain at every step. A 100 KB Python file of 60 `(` a line took
/// 12.5 s and a 900 KB one over 300 s before this budget (probe D4,
/// 2026-12-01). Time rather than a structural limit, because the costly
/// chains are made of hidden nodes the tree's public API does not show, and
/// parser operations do not track the cost (that file takes fewer of them
/// per byte than ordinary code).
pub fn parse_budget(bytes: usize) -> std::time::Duration {
    std::time::Duration::from_millis(250 + bytes as u64 / 1000)
}

/// The clock [`parse_budget`] is spent on: the calling thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`) where the platform has one, else wall time.
/// Time the thread waits for a core does not count; the call's deadline
/// (wall time, [`crate::limits`]) still bounds the whole call.
pub struct ParseClock {
    start: std::time::Duration,
}

impl ParseClock {
    /// Starts counting now.
    pub fn start() -> ParseClock {
        ParseClock { start: now() }
    }

    /// Time spent since [`ParseClock::start`].
    pub fn elapsed(&self) -> std::time::Duration {
        now().saturating_sub(self.start)
    }
}

#[cfg(unix)]
fn now() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(not(unix))]
fn now() -> std::time::Duration {
    use std::sync::OnceLock;
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

impl Symbols {
    /// Definitions named `name` (exact match).
    pub fn defines<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Definition> + 'a {
        self.definitions.iter().filter(move |d| d.name == name)
    }
}

/// The 1-based last line of `node`. A node that ends with its line's newline
/// (a C `#define`, a Ruby or PHP statement) ends on that line, not the next.
fn end_line(node: tree_sitter::Node) -> usize {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row
    } else {
        end.row + 1
    }
}

/// The object `name` is accessed on (`a` in `a.b`), when it is a plain
/// identifier.
fn receiver_of(name: tree_sitter::Node, text: &str) -> Option<String> {
    let access = name.parent()?;
    if !matches!(
        access.kind(),
        "attribute" | "member_expression" | "selector_expression" | "field_expression"
    ) {
        return None;
    }
    let recv = name.prev_named_sibling()?;
    (recv.kind() == "identifier")
        .then(|| recv.utf8_text(text.as_bytes()).ok().map(str::to_string))
        .flatten()
}

/// Parses `text` as `spec`'s language and runs its tags query. Returns empty
/// symbols when the grammar cannot parse the text at all.
pub fn symbols(spec: &LanguageSpec, text: &str) -> Symbols {
    symbols_until(spec, text, &|| false)
}

/// [`symbols`], bounded: the parse and the tags query stop as soon as `stop`
/// returns true or the file's [`parse_budget`] is spent (both checked every
/// 100 parser or query operations). The symbols then come back empty, with
/// [`Symbols::capped`] saying why: a file is ranked on its full symbols or on
/// its text alone, never on part of them.
pub fn symbols_until(spec: &LanguageSpec, text: &str, stop: &dyn Fn() -> bool) -> Symbols {
    let capped = |cap| Symbols {
        capped: Some(cap),
        ..Symbols::default()
    };
    if stop() {
        return capped(Cap::Stopped);
    }
    let spec = grammar_for(spec, text);
    let c = compiled(spec);
    let mut parser = Parser::new();
    if parser.set_language(&c.language).is_err() {
        return Symbols::default();
    }
    let (started, budget) = (ParseClock::start(), parse_budget(text.len()));
    let cap = std::cell::Cell::new(None);
    let check = || {
        if stop() {
            cap.set(Some(Cap::Stopped));
        } else if started.elapsed() > budget {
            cap.set(Some(Cap::Budget));
        }
        cap.get().is_some()
    };
    let bytes = text.as_bytes();
    let mut progress = |_: &tree_sitter::ParseState| check();
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    let tree = match (cap.get(), tree) {
        (Some(c), _) => return capped(c),
        (None, None) => return Symbols::default(),
        (None, Some(tree)) => tree,
    };
    // A query that stopped early found only part of the symbols: none are kept.
    symbols_of(c, &tree, text, &check).unwrap_or_else(|| capped(cap.get().unwrap_or(Cap::Stopped)))
}

/// Runs the tags query over a parsed tree; `None` when `halt` (called every
/// 100 query operations) returned true.
fn symbols_of(c: &Compiled, tree: &Tree, text: &str, halt: &dyn Fn() -> bool) -> Option<Symbols> {
    let names = c.query.capture_names();
    let mut out = Symbols::default();
    // (start byte, end byte, def index, pattern index, explicit parent)
    let mut ranges: Vec<(usize, usize, usize, usize, bool)> = Vec::new();
    let mut by_range: HashMap<(usize, usize), usize> = HashMap::new(); // → index in `ranges`
    let mut cursor = QueryCursor::new();
    let halted = std::cell::Cell::new(false);
    let mut progress = |_: &tree_sitter::QueryCursorState| {
        halted.set(halt());
        halted.get()
    };
    let mut matches = cursor.matches_with_options(
        &c.query,
        tree.root_node(),
        text.as_bytes(),
        QueryCursorOptions::new().progress_callback(&mut progress),
    );
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut outer = None;
        let mut parent = None;
        for cap in m.captures {
            if cap.index == c.name_idx {
                name = Some(cap.node);
            } else if Some(cap.index) == c.parent_idx {
                parent = cap.node.utf8_text(text.as_bytes()).ok();
            } else {
                outer = Some((names[cap.index as usize], cap.node));
            }
        }
        let (Some(name), Some((label, node))) = (name, outer) else {
            continue;
        };
        let Ok(name_text) = name.utf8_text(text.as_bytes()) else {
            continue;
        };
        if let Some(kind) = label
            .strip_prefix("definition.")
            .and_then(DefKind::from_capture)
        {
            let def = definition(kind, name_text, parent, node, text);
            // One definition per node: the earliest pattern in the file wins
            // (e.g. Rust `method` before the generic `function`, a JavaScript
            // arrow-function `const` before the generic constant), whatever
            // order the cursor reports the matches in.
            let (start, end) = (node.start_byte(), node.end_byte());
            if let Some(r) = by_range.get(&(start, end)).map(|&i| &mut ranges[i]) {
                if m.pattern_index < r.3 {
                    r.3 = m.pattern_index;
                    r.4 = def.parent.is_some();
                    out.definitions[r.2] = def;
                }
                continue;
            }
            by_range.insert((start, end), ranges.len());
            ranges.push((
                start,
                end,
                out.definitions.len(),
                m.pattern_index,
                def.parent.is_some(),
            ));
            out.definitions.push(def);
        } else if let Some(kind) = label
            .strip_prefix("reference.")
            .and_then(RefKind::from_capture)
        {
            out.references.push(Reference {
                receiver: receiver_of(name, text),
                kind,
                name: name_text.to_string(),
                line: name.start_position().row + 1,
            });
        }
    }
    nest(&mut out.definitions, &mut ranges);
    out.references.dedup();
    drop(matches);
    (!halted.get()).then_some(out)
}

/// A definition of `kind` named `name` at `node` (not yet placed in its
/// parent: see [`nest`]).
fn definition(
    kind: DefKind,
    name: &str,
    parent: Option<&str>,
    node: tree_sitter::Node,
    text: &str,
) -> Definition {
    let start_line = node.start_position().row + 1;
    // The node's first line, found from its byte offset (not by
    // counting lines from the top: that is quadratic on large files).
    let line_start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let signature = text[line_start..line_end].trim().to_string();
    Definition {
        kind,
        name: name.to_string(),
        parent: parent.map(str::to_string),
        start_line,
        end_line: end_line(node),
        signature,
        local: false,
    }
}

/// Sets each definition's parent and `local`, then sorts them by line.
/// `ranges`: (start byte, end byte, def index, pattern index, explicit parent).
fn nest(defs: &mut [Definition], ranges: &mut [(usize, usize, usize, usize, bool)]) {
    // Parent = the one the query named (`@parent`), else the smallest other
    // definition that encloses this one. Definition nodes are syntax-tree
    // nodes, so two ranges nest or are disjoint: sorted by start (outer first),
    // a stack of the open ranges has the innermost encloser on top.
    ranges.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut open: Vec<(usize, usize)> = Vec::new(); // (end byte, def index)
    for &(s, e, di, _, named) in ranges.iter() {
        while open.last().is_some_and(|&(pe, _)| pe < e || pe <= s) {
            open.pop();
        }
        if !named {
            let parent = open.last().map(|&(_, pi)| defs[pi].name.clone());
            defs[di].parent = parent;
        }
        defs[di].local = open
            .last()
            .is_some_and(|&(_, pi)| defs[pi].kind.is_callable());
        open.push((e, di));
    }
    defs.sort_by(|a, b| {
        a.start_line
            .cmp(&b.start_line)
            .then(b.end_line.cmp(&a.end_line))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_parse_budget_does_not_count_time_spent_waiting() {
        // A thread that waits (for a core, here for a sleep) spends no CPU:
        // on a loaded machine a file is not capped for time it did not run.
        let clock = ParseClock::start();
        std::thread::sleep(parse_budget(0) * 2);
        assert!(clock.elapsed() < parse_budget(0));
        // Work does count: 100 ms of spinning is far more than 5 ms of CPU
        // even on a loaded machine.
        let clock = ParseClock::start();
        let wall = std::time::Instant::now();
        let mut x = 0u64;
        while wall.elapsed() < std::time::Duration::from_millis(100) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(x > 0);
        assert!(clock.elapsed() >= std::time::Duration::from_millis(5));
    }

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
    fn a_parse_stops_when_the_call_is_stopped_and_says_so() {
        // Error recovery over unclosed brackets: tree-sitter's slow case (D4).
        let mut src = String::from("def zorblax_handler():\n    pass\n");
        while src.len() < 200_000 {
            src.push_str(&"(".repeat(60));
            src.push('\n');
        }
        let spec = language_of("n.py").unwrap();
        // The call is stopped after a few progress checks (its deadline or a cancel).
        let checks = std::cell::Cell::new(0);
        let stop = || {
            checks.set(checks.get() + 1);
            checks.get() > 3
        };
        let s = symbols_until(spec, &src, &stop);
        assert_eq!(s.capped, Some(Cap::Stopped));
        assert!(s.definitions.is_empty() && s.references.is_empty());
        assert_eq!(checks.get(), 4, "no check after the stop");
        // Stopped before it starts: nothing is parsed.
        assert_eq!(
            symbols_until(spec, &src, &|| true).capped,
            Some(Cap::Stopped)
        );
        // Unstopped, an ordinary file is parsed in full and not capped.
        let s = symbols_until(spec, "def zorblax_handler():\n    pass\n", &|| false);
        assert_eq!(s.capped, None);
        assert_eq!(s.definitions.len(), 1);
    }

    #[test]
    fn python_definitions_have_parents_and_lines() {
        let src = "import os\nfrom auth.session import Session\n\nMAX = 3\n\nclass Token:\n    TTL = 60\n\n    def expired(self, now):\n        return now > self.TTL + refresh(now)\n";
        let s = symbols(language_of("a.py").unwrap(), src);
        let d = |n: &str| s.definitions.iter().find(|d| d.name == n).unwrap().clone();
        assert_eq!(d("MAX").kind, DefKind::Constant);
        assert_eq!((d("Token").start_line, d("Token").end_line), (6, 10));
        assert_eq!(d("expired").parent.as_deref(), Some("Token"));
        assert_eq!(d("TTL").parent.as_deref(), Some("Token"));
        let r: Vec<(&str, &str)> = s
            .references
            .iter()
            .map(|r| (r.kind.as_str(), r.name.as_str()))
            .collect();
        assert!(r.contains(&("call", "refresh")), "{r:?}");
        assert!(r.contains(&("import", "auth.session")), "{r:?}");
        assert!(r.contains(&("import_name", "Session")), "{r:?}");
    }

    #[test]
    fn nested_definitions_are_local_and_method_calls_name_their_receiver() {
        let src = "import click\n\nclass App:\n    def run(self):\n        click.echo(self.name)\n\n\
                   def test_echo():\n    def echo(x):\n        return x\n    class Local:\n        pass\n";
        let s = symbols(language_of("a.py").unwrap(), src);
        let local = |n: &str| s.defines(n).next().unwrap().local;
        assert!(!local("App") && !local("run") && !local("test_echo"));
        assert!(local("echo") && local("Local"));
        let echo = s.references.iter().find(|r| r.name == "echo").unwrap();
        assert_eq!(
            (echo.kind.as_str(), echo.receiver.as_deref()),
            ("method", Some("click"))
        );
        let name = s.references.iter().find(|r| r.name == "name").unwrap();
        assert_eq!(name.receiver.as_deref(), Some("self"), "{name:?}");
        let x = symbols(language_of("b.py").unwrap(), "x = MAX\nrun(MAX)\n");
        assert!(x.references.iter().all(|r| r.receiver.is_none()), "{x:?}");
        let js = symbols(
            language_of("a.js").unwrap(),
            "const fs = require('fs');\nfunction load(p) { return fs.readFileSync(p); }\n",
        );
        let read = js
            .references
            .iter()
            .find(|r| r.name == "readFileSync")
            .unwrap();
        assert_eq!(read.receiver.as_deref(), Some("fs"), "{read:?}");
    }

    #[test]
    fn rust_methods_belong_to_their_impl() {
        let src = "use crate::store::Store;\nconst LIMIT: u32 = 5;\npub struct Cache;\nimpl Cache {\n    pub fn get(&self) -> u32 { lookup(LIMIT) }\n}\n";
        let s = symbols(language_of("src/cache.rs").unwrap(), src);
        let get = s.definitions.iter().find(|d| d.name == "get").unwrap();
        assert_eq!(get.kind, DefKind::Method);
        assert_eq!(get.parent.as_deref(), Some("Cache"));
        assert!(s.defines("LIMIT").any(|d| d.kind == DefKind::Constant));
        assert!(s
            .references
            .iter()
            .any(|r| r.kind == RefKind::Call && r.name == "lookup"));
        assert!(s
            .references
            .iter()
            .any(|r| r.kind == RefKind::Import && r.name.contains("Store")));
    }

    type Def<'a> = (&'a str, &'a str, Option<&'a str>, usize, usize);

    /// Parses `src` as `path`'s language and checks the definitions exactly
    /// (kind, name, parent, lines, in order) and that each reference is found.
    fn assert_symbols(path: &str, src: &str, defs: &[Def], refs: &[(&str, &str)]) {
        let s = symbols(language_of(path).unwrap(), src);
        let got: Vec<Def> = s
            .definitions
            .iter()
            .map(|d| {
                let parent = d.parent.as_deref();
                (
                    d.kind.as_str(),
                    d.name.as_str(),
                    parent,
                    d.start_line,
                    d.end_line,
                )
            })
            .collect();
        assert_eq!(got, defs, "{path}");
        let got: Vec<(&str, &str)> = s
            .references
            .iter()
            .map(|r| (r.kind.as_str(), r.name.as_str()))
            .collect();
        for r in refs {
            assert!(got.contains(r), "{path}: {r:?} not in {got:?}");
        }
    }

    #[test]
    fn javascript_classes_methods_functions_and_imports() {
        let src = "import { readFile } from \"fs\";\nconst LIMIT = 5;\nclass Cache {\n  get(key) {\n    return this.store.lookup(key);\n  }\n}\nfunction build() {\n  return makeCache(LIMIT);\n}\nconst helper = () => require(\"./util\");\nconst { join } = require(\"path\");\nconst fs = require(\"fs\");\n";
        assert_symbols(
            "web/cache.mjs",
            src,
            &[
                ("constant", "LIMIT", None, 2, 2),
                ("class", "Cache", None, 3, 7),
                ("method", "get", Some("Cache"), 4, 6),
                ("function", "build", None, 8, 10),
                ("function", "helper", None, 11, 11),
            ],
            &[
                ("method", "lookup"),
                ("call", "makeCache"),
                ("import", "fs"),
                ("import_name", "readFile"),
                ("import", "./util"),
                ("import", "path"),
                ("import_name", "join"),
                ("import_name", "fs"),
            ],
        );
    }

    #[test]
    fn typescript_interfaces_classes_and_imports() {
        let src = "import { Store } from \"./store\";\nexport const LIMIT: number = 5;\nexport interface Keyed {\n  key(): string;\n}\nexport class Cache implements Keyed {\n  key(): string {\n    return this.store.lookup(LIMIT);\n  }\n}\nexport function build(): Cache {\n  return makeCache(LIMIT);\n}\n";
        assert_symbols(
            "src/cache.ts",
            src,
            &[
                ("constant", "LIMIT", None, 2, 2),
                ("interface", "Keyed", None, 3, 5),
                ("method", "key", Some("Keyed"), 4, 4),
                ("class", "Cache", None, 6, 10),
                ("method", "key", Some("Cache"), 7, 9),
                ("function", "build", None, 11, 13),
            ],
            &[
                ("method", "lookup"),
                ("call", "makeCache"),
                ("implementation", "Keyed"),
                ("type", "Cache"),
                ("import", "./store"),
                ("import_name", "Store"),
            ],
        );
    }

    #[test]
    fn tsx_components_are_calls() {
        let src = "import React from \"react\";\nconst TITLE = \"cache\";\nclass Panel extends React.Component {\n  render() {\n    return <div>{this.props.format(TITLE)}</div>;\n  }\n}\nexport function View() {\n  return <Panel title={formatTitle(TITLE)} />;\n}\n";
        assert_symbols(
            "ui/view.tsx",
            src,
            &[
                ("constant", "TITLE", None, 2, 2),
                ("class", "Panel", None, 3, 7),
                ("method", "render", Some("Panel"), 4, 6),
                ("function", "View", None, 8, 10),
            ],
            &[
                ("method", "format"),
                ("call", "formatTitle"),
                ("call", "Panel"),
                ("implementation", "Component"),
                ("import", "react"),
                ("import_name", "React"),
            ],
        );
    }

    #[test]
    fn go_methods_belong_to_their_receiver_type() {
        let src = "package cache\n\nimport \"example.com/store\"\n\nconst Limit = 5\n\ntype Cache struct {\n\titems map[string]int\n}\n\nfunc (c *Cache) Get(key string) int {\n\treturn c.store.Lookup(key)\n}\n\nfunc Build() *Cache {\n\treturn newCache(Limit)\n}\n";
        assert_symbols(
            "cache/cache.go",
            src,
            &[
                ("constant", "Limit", None, 5, 5),
                ("class", "Cache", None, 7, 9),
                ("method", "Get", Some("Cache"), 11, 13),
                ("function", "Build", None, 15, 17),
            ],
            &[
                ("method", "Lookup"),
                ("call", "newCache"),
                ("type", "Cache"),
                ("import", "example.com/store"),
            ],
        );
    }

    #[test]
    fn java_static_finals_are_constants() {
        let src = "package app;\n\nimport java.util.List;\n\npublic class Cache {\n    static final int LIMIT = 5;\n\n    public int get(String key) {\n        return store.lookup(key) + compute(LIMIT);\n    }\n}\n";
        assert_symbols(
            "src/main/java/app/Cache.java",
            src,
            &[
                ("class", "Cache", None, 5, 11),
                ("constant", "LIMIT", Some("Cache"), 6, 6),
                ("method", "get", Some("Cache"), 8, 10),
            ],
            &[
                ("method", "lookup"),
                ("call", "compute"),
                ("import", "java.util.List"),
                ("import_name", "List"),
            ],
        );
    }

    #[test]
    fn c_functions_structs_and_defines() {
        let src = "#include \"store.h\"\n#define LIMIT 5\n\nstruct cache {\n    int size;\n};\n\nint cache_get(struct cache *c) {\n    return lookup(c->size, LIMIT);\n}\n\nint cache_put(struct cache *c);\n";
        // The prototype on line 12 is a declaration, not a definition.
        assert_symbols(
            "src/cache.c",
            src,
            &[
                ("constant", "LIMIT", None, 2, 2),
                ("class", "cache", None, 4, 6),
                ("function", "cache_get", None, 8, 10),
            ],
            &[("call", "lookup"), ("type", "cache"), ("import", "store.h")],
        );
    }

    #[test]
    fn a_cpp_header_with_the_c_extension_yields_its_classes_and_templates() {
        let src = "#pragma once\n#include <vector>\n\nnamespace fmt {\n\ntemplate <typename T>\nclass Buffer {\n public:\n  void push(T v);\n};\n\nstruct Span {\n  int len;\n};\n\n}  // namespace fmt\n";
        let s = symbols(language_of("include/fmt/core.h").unwrap(), src);
        let names: Vec<&str> = s.definitions.iter().map(|d| d.name.as_str()).collect();
        assert!(names.contains(&"Buffer"), "{names:?}");
        assert!(names.contains(&"Span"), "{names:?}");
        // A C header is still C.
        let c = symbols(
            language_of("src/cache.h").unwrap(),
            "struct cache {\n    int size;\n};\nint cache_get(struct cache *c);\n",
        );
        assert!(c.definitions.iter().any(|d| d.name == "cache"));
    }

    #[test]
    fn cpp_out_of_class_methods_name_their_class() {
        let src = "#include <vector>\n#include \"store.h\"\n\nconst int kLimit = 5;\n\nclass Cache {\n public:\n  int get(int key) { return store_.lookup(key); }\n  void put(int key);\n};\n\nvoid Cache::put(int key) { insert(key, kLimit); }\n\nint build() { return make_cache(kLimit); }\n";
        assert_symbols(
            "src/cache.cpp",
            src,
            &[
                ("constant", "kLimit", None, 4, 4),
                ("class", "Cache", None, 6, 10),
                ("method", "get", Some("Cache"), 8, 8),
                ("method", "put", Some("Cache"), 12, 12),
                ("function", "build", None, 14, 14),
            ],
            &[
                ("method", "lookup"),
                ("call", "insert"),
                ("call", "make_cache"),
                ("import", "<vector>"),
                ("import", "store.h"),
            ],
        );
    }

    #[test]
    fn csharp_namespaces_classes_and_usings() {
        let src = "using System.Collections.Generic;\n\nnamespace App\n{\n    public class Cache\n    {\n        public const int Limit = 5;\n\n        public int Get(string key)\n        {\n            return store.Lookup(key) + Compute(Limit);\n        }\n    }\n}\n";
        assert_symbols(
            "App/Cache.cs",
            src,
            &[
                ("module", "App", None, 3, 14),
                ("class", "Cache", Some("App"), 5, 13),
                ("constant", "Limit", Some("Cache"), 7, 7),
                ("method", "Get", Some("Cache"), 9, 12),
            ],
            &[
                ("method", "Lookup"),
                ("call", "Compute"),
                ("import", "System.Collections.Generic"),
            ],
        );
    }

    #[test]
    fn ruby_top_level_defs_are_functions() {
        let src = "require 'store'\n\nLIMIT = 5\n\nclass Cache < Base\n  def get(key)\n    @store.lookup(key)\n  end\nend\n\ndef build\n  make_cache(LIMIT)\nend\n";
        assert_symbols(
            "lib/cache.rb",
            src,
            &[
                ("constant", "LIMIT", None, 3, 3),
                ("class", "Cache", None, 5, 9),
                ("method", "get", Some("Cache"), 6, 8),
                ("function", "build", None, 11, 13),
            ],
            &[
                ("method", "lookup"),
                ("call", "make_cache"),
                ("implementation", "Base"),
                ("import", "store"),
            ],
        );
    }

    #[test]
    fn php_methods_constants_and_uses() {
        let src = "<?php\nnamespace App;\n\nuse App\\Store\\Repository;\n\nconst LIMIT = 5;\n\nclass Cache\n{\n    public function get($key)\n    {\n        return $this->store->lookup($key);\n    }\n}\n\nfunction build()\n{\n    return make_cache(LIMIT);\n}\ndefine('DEBUG', false);\n";
        assert_symbols(
            "src/Cache.php",
            src,
            &[
                ("module", "App", None, 2, 2),
                ("constant", "LIMIT", None, 6, 6),
                ("class", "Cache", None, 8, 14),
                ("method", "get", Some("Cache"), 10, 13),
                ("function", "build", None, 16, 19),
                ("constant", "DEBUG", None, 20, 20),
            ],
            &[
                ("method", "lookup"),
                ("call", "make_cache"),
                ("import", "App\\Store\\Repository"),
                ("import_name", "Repository"),
            ],
        );
    }
}
