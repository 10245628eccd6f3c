//! A cheap check, by lines, of whether a file could define a name: run
//! before parsing a file only to learn whether it defines one name (the gap
//! search parses every rare name's holders; a 1 MB test file that only
//! imports the name costs as much to parse as the one that defines it).
//!
//! Per language row, the words that introduce a definition
//! ([`DefinitionWords`]). The check answers true ("parse it") when some line
//! holds the name, as a whole word and with the same case, right after one of
//! the row's `before` words (`class X`, `def X`, `fn X`, `macro_rules! X`,
//! `def self.X`), anywhere after one of its `anywhere` words (`impl<T> X<T>`,
//! `func (r *T) X`), or first on its line, perhaps qualified (`X = 1`,
//! `Mod::X = 1`, an enum variant, a grouped Go `const` or interface method).
//! That is every form the row's tags query captures as a definition
//! written on one line, so a false answer means the parse would find no
//! definition of the name (a declaration split across lines between its
//! keyword and its name, rare in practice, is the exception). A row without
//! definition words (`None`: languages whose methods have no keyword, as
//! Java's, C#'s or C/C++'s, and JavaScript/TypeScript, whose object-literal
//! pairs and assignments define a function in the middle of a line) always
//! answers true.

use super::LanguageSpec;

/// The words of a language that introduce a definition: see the module doc.
#[derive(Debug)]
pub struct DefinitionWords {
    /// Words right before the name (spaces, `!`, `&` or a `self.` between).
    pub before: &'static [&'static str],
    /// Words anywhere before the name on its line.
    pub anywhere: &'static [&'static str],
}

/// Whether `text` (a file of language `spec`) could define `name`: false
/// only when no line has the name where a definition of the language puts
/// it (see the module doc). Always true for a language without definition
/// words, or an empty name.
pub fn may_define(spec: &LanguageSpec, text: &str, name: &str) -> bool {
    let Some(words) = spec.definition_words else {
        return true;
    };
    if name.is_empty() {
        return true;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    for (at, _) in text.match_indices(name) {
        let before = &text[..at];
        let after = &text[at + name.len()..];
        if before.chars().next_back().is_some_and(is_word)
            || after.chars().next().is_some_and(is_word)
        {
            continue;
        }
        let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        // First on its line, perhaps qualified (`Mod::X`, `self.X`).
        if line
            .trim_start()
            .chars()
            .all(|c| is_word(c) || c == '.' || c == ':')
        {
            return true;
        }
        // Right after a definition word.
        let mut prev = line.trim_end_matches([' ', '\t', '!', '&']);
        if let Some(p) = prev.strip_suffix("self.") {
            prev = p.trim_end();
        }
        let last = &prev[prev
            .char_indices()
            .rev()
            .find(|&(_, c)| !is_word(c))
            .map_or(0, |(i, c)| i + c.len_utf8())..];
        if words.before.contains(&last) {
            return true;
        }
        if line
            .split(|c: char| !is_word(c))
            .any(|w| words.anywhere.contains(&w))
        {
            return true;
        }
    }
    false
}

/// Python: `def`, `class`; assignments are first on their line.
pub(super) const PYTHON: DefinitionWords = DefinitionWords {
    before: &["def", "class"],
    anywhere: &[],
};
/// Rust: items by keyword; enum variants are first on their line; an
/// `impl` block names its type anywhere after `impl` (generics between).
pub(super) const RUST: DefinitionWords = DefinitionWords {
    before: &[
        "fn",
        "struct",
        "enum",
        "union",
        "type",
        "trait",
        "mod",
        "macro_rules",
        "const",
        "static",
        "mut",
    ],
    anywhere: &["impl"],
};
/// Go: `func` (a method's receiver comes between), `type`, `const`;
/// grouped specs and interface methods are first on their line.
pub(super) const GO: DefinitionWords = DefinitionWords {
    before: &["type", "const"],
    anywhere: &["func"],
};
/// Ruby: `def` (`def self.x`), `class`, `module`, `alias`; constants are
/// first on their line.
pub(super) const RUBY: DefinitionWords = DefinitionWords {
    before: &["def", "class", "module", "alias"],
    anywhere: &[],
};

/// PHP: `namespace`, `class`, `interface`, `trait`, `enum`, `function`
/// (methods too: `public static function &x`); a `const` line defines every
/// name after it (`const A = 1, B = 2;`), and `define('X', ...)` names its
/// constant in a string.
pub(super) const PHP: DefinitionWords = DefinitionWords {
    before: &[
        "namespace",
        "class",
        "interface",
        "trait",
        "enum",
        "function",
    ],
    anywhere: &["const", "define"],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{language_of, symbols};

    /// The check against the parse itself: wherever the tags query finds a
    /// non-local definition of the name, the check says it may define it.
    fn agrees(path: &str, text: &str, name: &str) -> bool {
        let spec = language_of(path).unwrap();
        let parsed = symbols(spec, text).defines(name).any(|d| !d.local);
        let cheap = may_define(spec, text, name);
        assert!(cheap || !parsed, "{path}: `{name}` is defined in {text:?}");
        cheap
    }

    #[test]
    fn a_file_that_only_uses_a_name_cannot_define_it() {
        let user = "from sympy.core.expr import AtomicExpr, Expr\n\n\
                    class Symbol(AtomicExpr):\n    pass\n\n\
                    def test_sympy__core__expr__AtomicExpr():\n    assert isinstance(x, AtomicExpr)\n";
        assert!(!agrees("sympy/core/tests/test_args.py", user, "AtomicExpr"));
        let definer =
            "class Expr:\n    pass\n\nclass AtomicExpr(Atom, Expr):\n    is_number = False\n";
        assert!(agrees("sympy/core/expr.py", definer, "AtomicExpr"));
        assert!(agrees("a.py", definer, "is_number"));
        assert!(agrees("a.py", "MAX_LEN: int = 3\n", "MAX_LEN"));
        assert!(agrees("a.py", "async def fetch(url):\n    pass\n", "fetch"));
        assert!(!agrees("a.py", "x = fetch(url)\n", "fetch"));
        // Another case is another name.
        assert!(!agrees(
            "a.py",
            "class atomicexpr:\n    pass\n",
            "AtomicExpr"
        ));
    }

    #[test]
    fn every_one_line_definition_form_passes_the_check() {
        let rust = "pub(crate) fn load() {}\npub struct Cache;\nenum Mode {\n    Fast,\n    Slow(u8),\n}\n\
                    macro_rules! shout { () => {} }\nimpl<T: Clone> Store<T> {}\nstatic mut COUNT: u32 = 0;\n\
                    pub trait Source {}\ntype Id = u64;\nconst MAX: u8 = 1;\nmod inner {}\n";
        for name in [
            "load", "Cache", "Mode", "Fast", "Slow", "shout", "Store", "COUNT", "Source", "Id",
            "MAX", "inner",
        ] {
            assert!(agrees("src/a.rs", rust, name), "{name}");
        }
        assert!(!agrees(
            "src/b.rs",
            "use crate::Cache;\nfn f(c: &Cache) { load(c) }\n",
            "Cache"
        ));
        let go = "package a\n\nfunc (s *Server) Serve() {}\nfunc Open() {}\ntype (\n\tConfig struct{}\n)\n\
                  type Reader interface {\n\tRead() int\n}\nconst (\n\tLimit = 3\n)\n";
        for name in ["Serve", "Open", "Config", "Reader", "Read", "Limit"] {
            assert!(agrees("a.go", go, name), "{name}");
        }
        let ruby = "module Auth\n  TTL = 60\n  class Token < Base\n    def self.issue; end\n    def valid?; end\n    alias check valid?\n  end\nend\n";
        for name in ["Auth", "TTL", "Token", "issue", "check"] {
            assert!(agrees("a.rb", ruby, name), "{name}");
        }
        assert!(!agrees(
            "b.rb",
            "class User < Token\n  issue(1)\nend\n",
            "Token"
        ));
    }

    #[test]
    fn a_php_file_that_only_uses_a_name_is_not_parsed_for_it() {
        let php = "<?php\nnamespace App\\Models;\n\ninterface Shape {}\ntrait Loggable {}\n\
                   final class Order extends Model implements Shape\n{\n    use Loggable;\n\
                   const STATUS = 'new', LIMIT = 3;\n    public static function &total(): int { return 0; }\n\
                   protected function refresh() {}\n}\n\
                   enum Suit: string {}\nfunction helper() {}\ndefine('APP_VERSION', '1.0');\n";
        for name in [
            "App\\Models",
            "Shape",
            "Loggable",
            "Order",
            "STATUS",
            "LIMIT",
            "total",
            "refresh",
            "Suit",
            "helper",
            "APP_VERSION",
        ] {
            assert!(agrees("src/Order.php", php, name), "{name}");
        }
        let user = "<?php\nuse App\\Models\\Order;\n\nclass Checkout extends Base\n{\n\
                    public function run(Order $order)\n    {\n        $t = Order::total();\n\
                    return helper($order->refresh(), APP_VERSION, Order::STATUS);\n    }\n}\n";
        for name in [
            "Order",
            "total",
            "helper",
            "refresh",
            "APP_VERSION",
            "STATUS",
        ] {
            assert!(!agrees("src/Checkout.php", user, name), "{name}");
        }
        assert!(agrees("src/Checkout.php", user, "run"));
    }

    #[test]
    fn a_language_without_definition_words_is_always_parsed() {
        let java = language_of("A.java").unwrap();
        assert!(may_define(java, "class A { void run() {} }", "nothing"));
    }
}
