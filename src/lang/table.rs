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
        definition_words: Some(&defines::PYTHON),
    },
    LanguageSpec {
        id: "rust",
        extensions: &["rs"],
        grammar: rust,
        tags: include_str!("../../queries/rust/tags.scm"),
        definition_words: Some(&defines::RUST),
    },
    LanguageSpec {
        id: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        grammar: javascript,
        tags: include_str!("../../queries/javascript/tags.scm"),
        definition_words: None,
    },
    LanguageSpec {
        id: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: typescript,
        tags: include_str!("../../queries/typescript/tags.scm"),
        definition_words: None,
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
    },
    LanguageSpec {
        id: "go",
        extensions: &["go"],
        grammar: go,
        tags: include_str!("../../queries/go/tags.scm"),
        definition_words: Some(&defines::GO),
    },
    LanguageSpec {
        id: "java",
        extensions: &["java"],
        grammar: java,
        tags: include_str!("../../queries/java/tags.scm"),
        definition_words: None,
    },
    LanguageSpec {
        id: "c",
        extensions: &["c", "h"],
        grammar: c,
        tags: include_str!("../../queries/c/tags.scm"),
        definition_words: None,
    },
    LanguageSpec {
        id: "cpp",
        extensions: &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        grammar: cpp,
        tags: include_str!("../../queries/cpp/tags.scm"),
        definition_words: None,
    },
    LanguageSpec {
        id: "csharp",
        extensions: &["cs"],
        grammar: c_sharp,
        tags: include_str!("../../queries/csharp/tags.scm"),
        definition_words: None,
    },
    LanguageSpec {
        id: "ruby",
        extensions: &["rb"],
        grammar: ruby,
        tags: include_str!("../../queries/ruby/tags.scm"),
        definition_words: Some(&defines::RUBY),
    },
    LanguageSpec {
        id: "php",
        extensions: &["php"],
        grammar: php,
        tags: include_str!("../../queries/php/tags.scm"),
        definition_words: Some(&defines::PHP),
    },
];

/// The language of a path, by extension.
pub fn language_of(path: &str) -> Option<&'static LanguageSpec> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.contains(&ext))
}

/// A row's grammar and its tags query, compiled; `name_idx` and `parent_idx`
/// are the query's `@name` and `@parent` capture indices.
pub(super) struct Compiled {
    pub(super) language: Language,
    pub(super) query: Query,
    pub(super) name_idx: u32,
    pub(super) parent_idx: Option<u32>,
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
}
