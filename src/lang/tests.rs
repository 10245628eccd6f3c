//! Each language's tags query, end to end: the definitions (kind, name,
//! parent, lines) and references [`symbols`] finds in a small file.

use super::*;

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
