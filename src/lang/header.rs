//! C or C++: a `.h` header shares C's extension but may hold C++.

use super::table::{LanguageSpec, LANGUAGES};

/// The grammar to parse `text` with: a `.h` header shares C's extension but
/// in a C++ project holds classes, templates and namespaces, which the C
/// grammar does not see as definitions; such a header is parsed as C++.
pub(super) fn grammar_for<'a>(spec: &'a LanguageSpec, text: &str) -> &'a LanguageSpec {
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

#[cfg(test)]
mod tests {
    use crate::lang::{language_of, symbols};

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
}
