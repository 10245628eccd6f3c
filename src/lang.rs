//! The language table and the symbols tree-sitter finds in a file.
//!
//! One row per language: id, file extensions, grammar, and a tags query
//! (`queries/<lang>/tags.scm`) with tree-sitter's standard captures —
//! `@definition.<kind>` / `@reference.<kind>` around a node and `@name` on its
//! identifier. Adding a language is one row here and one `.scm` file. Files in
//! languages without a row are still ranked lexically.
//!
//! Extensions to the standard captures: `@definition.impl` (a Rust `impl`
//! block, a container for methods), `@reference.import` (the module an import
//! names) and `@reference.import_name` (a name imported from it).

use std::sync::OnceLock;
use tree_sitter::{Language, Parser, Query, QueryCursor, StreamingIterator};

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

pub static LANGUAGES: &[LanguageSpec] = &[
    LanguageSpec {
        id: "python",
        extensions: &["py", "pyi"],
        grammar: python,
        tags: include_str!("../queries/python/tags.scm"),
    },
    LanguageSpec {
        id: "rust",
        extensions: &["rs"],
        grammar: rust,
        tags: include_str!("../queries/rust/tags.scm"),
    },
];

/// The language of a path, by extension.
pub fn language_of(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.contains(&ext))
}

struct Compiled {
    language: Language,
    query: Query,
    name_idx: u32,
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
        Compiled {
            language,
            query,
            name_idx,
        }
    })
}

/// A definition: `kind` from the capture (`function`, `class`, `method`,
/// `constant`, `module`, `interface`, `macro`, `impl`), its name, the name of the
/// enclosing definition, and 1-based inclusive lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub kind: String,
    pub name: String,
    pub parent: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    /// First line of the definition (its signature), trimmed.
    pub signature: String,
}

/// A use of a name: `call`, `method` (a call on a receiver), `type`, `import`,
/// `import_name`, `implementation`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub kind: String,
    pub name: String,
    /// 1-based line.
    pub line: usize,
}

/// Definitions and references of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
}

impl Symbols {
    /// Definitions named `name` (exact match).
    pub fn defines<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Definition> + 'a {
        self.definitions.iter().filter(move |d| d.name == name)
    }
}

/// Parses `text` as `spec`'s language and runs its tags query. Returns empty
/// symbols when the grammar cannot parse the text at all.
pub fn symbols(spec: &LanguageSpec, text: &str) -> Symbols {
    let c = compiled(spec);
    let mut parser = Parser::new();
    if parser.set_language(&c.language).is_err() {
        return Symbols::default();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Symbols::default();
    };
    let names = c.query.capture_names();
    let mut out = Symbols::default();
    let mut ranges: Vec<(usize, usize, usize)> = Vec::new(); // (start byte, end byte, def index)
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&c.query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut outer = None;
        for cap in m.captures {
            if cap.index == c.name_idx {
                name = Some(cap.node);
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
        if let Some(kind) = label.strip_prefix("definition.") {
            let start_line = node.start_position().row + 1;
            let signature = text
                .lines()
                .nth(start_line - 1)
                .unwrap_or("")
                .trim()
                .to_string();
            // One definition per node: the first pattern that matched wins
            // (e.g. Rust `method` before the generic `function`).
            if ranges
                .iter()
                .any(|&(s, e, _)| s == node.start_byte() && e == node.end_byte())
            {
                continue;
            }
            ranges.push((node.start_byte(), node.end_byte(), out.definitions.len()));
            out.definitions.push(Definition {
                kind: kind.to_string(),
                name: name_text.to_string(),
                parent: None,
                start_line,
                end_line: node.end_position().row + 1,
                signature,
            });
        } else if let Some(kind) = label.strip_prefix("reference.") {
            out.references.push(Reference {
                kind: kind.to_string(),
                name: name_text.to_string(),
                line: name.start_position().row + 1,
            });
        }
    }
    // Parent = the smallest other definition that encloses this one.
    for i in 0..ranges.len() {
        let (s, e, di) = ranges[i];
        let parent = ranges
            .iter()
            .filter(|&&(ps, pe, pi)| pi != di && ps <= s && e <= pe && (ps, pe) != (s, e))
            .min_by_key(|&&(ps, pe, _)| pe - ps)
            .map(|&(_, _, pi)| out.definitions[pi].name.clone());
        out.definitions[di].parent = parent;
    }
    out.definitions.sort_by(|a, b| {
        a.start_line
            .cmp(&b.start_line)
            .then(b.end_line.cmp(&a.end_line))
    });
    out.references.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tags_query_compiles() {
        for spec in LANGUAGES {
            let _ = compiled(spec);
        }
    }

    #[test]
    fn python_definitions_have_parents_and_lines() {
        let src = "import os\nfrom auth.session import Session\n\nMAX = 3\n\nclass Token:\n    TTL = 60\n\n    def expired(self, now):\n        return now > self.TTL + refresh(now)\n";
        let s = symbols(language_of("a.py").unwrap(), src);
        let d = |n: &str| s.definitions.iter().find(|d| d.name == n).unwrap().clone();
        assert_eq!(d("MAX").kind, "constant");
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
    fn rust_methods_belong_to_their_impl() {
        let src = "use crate::store::Store;\nconst LIMIT: u32 = 5;\npub struct Cache;\nimpl Cache {\n    pub fn get(&self) -> u32 { lookup(LIMIT) }\n}\n";
        let s = symbols(language_of("src/cache.rs").unwrap(), src);
        let get = s.definitions.iter().find(|d| d.name == "get").unwrap();
        assert_eq!(get.kind, "method");
        assert_eq!(get.parent.as_deref(), Some("Cache"));
        assert!(s.defines("LIMIT").any(|d| d.kind == "constant"));
        assert!(s
            .references
            .iter()
            .any(|r| r.kind == "call" && r.name == "lookup"));
        assert!(s
            .references
            .iter()
            .any(|r| r.kind == "import" && r.name.contains("Store")));
    }
}
