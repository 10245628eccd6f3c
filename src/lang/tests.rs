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

#[test]
fn kotlin_classes_objects_functions_and_const_vals() {
    let src = "package coil3.request\n\nimport coil3.util.Logger\nimport kotlinx.coroutines.*\n\n\
               interface Target {\n    fun onStart(placeholder: Image?)\n}\n\n\
               class ImageRequest(val data: Any?) : Base(data), Target {\n    val size: Int = 3\n\n    \
               fun newBuilder(): Builder {\n        val local = 1\n        fun helper() = 2\n        \
               logger.log(\"x\")\n        return Builder(this)\n    }\n\n    \
               companion object {\n        const val MAX_SIZE = 10\n    }\n}\n\n\
               enum class CachePolicy { ENABLED, DISABLED }\n\n\
               fun Context.imageLoader(): ImageLoader = SingletonImageLoader.get(this)\n\n\
               typealias Listener = (Int) -> Unit\n";
    assert_symbols(
        "coil-core/src/commonMain/kotlin/coil3/request/ImageRequest.kt",
        src,
        &[
            ("interface", "Target", None, 6, 8),
            ("method", "onStart", Some("Target"), 7, 7),
            ("class", "ImageRequest", None, 10, 23),
            ("method", "newBuilder", Some("ImageRequest"), 13, 18),
            ("function", "helper", Some("newBuilder"), 15, 15),
            ("constant", "MAX_SIZE", Some("ImageRequest"), 21, 21),
            ("class", "CachePolicy", None, 25, 25),
            ("constant", "ENABLED", Some("CachePolicy"), 25, 25),
            ("constant", "DISABLED", Some("CachePolicy"), 25, 25),
            ("function", "imageLoader", None, 27, 27),
            ("class", "Listener", None, 29, 29),
        ],
        &[
            ("method", "log"),
            ("call", "Builder"),
            ("method", "get"),
            ("implementation", "Base"),
            ("implementation", "Target"),
            ("type", "ImageLoader"),
            ("import", "coil3.util.Logger"),
            ("import_name", "Logger"),
            ("import", "kotlinx.coroutines"),
        ],
    );
    let s = symbols(language_of("a.kt").unwrap(), src);
    // `import kotlinx.coroutines.*` imports no name called `coroutines`.
    assert!(!s
        .references
        .iter()
        .any(|r| r.kind == RefKind::ImportName && r.name == "coroutines"));
    let log = s.references.iter().find(|r| r.name == "log").unwrap();
    assert_eq!(log.receiver.as_deref(), Some("logger"), "{log:?}");
    // A local `val` is no definition; neither is an instance property.
    assert!(s.defines("local").next().is_none() && s.defines("size").next().is_none());
}

#[test]
fn swift_types_methods_and_extensions() {
    let src = "import Foundation\n\n\
               open class Session: RequestDelegate {\n    public static let shared = Session()\n    \
               let rootQueue: DispatchQueue\n\n    \
               open func request(_ url: URLConvertible) -> DataRequest {\n        \
               let r = DataRequest(url: url)\n        return rootQueue.sync { r.validate() }\n    }\n}\n\n\
               public protocol URLConvertible {\n    func asURL() throws -> URL\n}\n\n\
               enum AFError: Error {\n    case invalidURL(url: URLConvertible)\n    case explicitlyCancelled\n}\n\n\
               extension Session: SessionStateProvider {\n    func cancelAll() {}\n}\n\n\
               typealias Parameters = [String: Any]\n";
    assert_symbols(
        "Source/Core/Session.swift",
        src,
        &[
            ("class", "Session", None, 3, 11),
            ("constant", "shared", Some("Session"), 4, 4),
            ("method", "request", Some("Session"), 7, 10),
            ("interface", "URLConvertible", None, 13, 15),
            ("method", "asURL", Some("URLConvertible"), 14, 14),
            ("class", "AFError", None, 17, 20),
            ("constant", "invalidURL", Some("AFError"), 18, 18),
            ("constant", "explicitlyCancelled", Some("AFError"), 19, 19),
            ("impl", "Session", None, 22, 24),
            ("method", "cancelAll", Some("Session"), 23, 23),
            ("class", "Parameters", None, 26, 26),
        ],
        &[
            ("call", "DataRequest"),
            ("method", "sync"),
            ("method", "validate"),
            ("implementation", "RequestDelegate"),
            ("implementation", "SessionStateProvider"),
            ("type", "DispatchQueue"),
            ("import", "Foundation"),
        ],
    );
    let s = symbols(language_of("a.swift").unwrap(), src);
    let sync = s.references.iter().find(|r| r.name == "sync").unwrap();
    assert_eq!(sync.receiver.as_deref(), Some("rootQueue"), "{sync:?}");
}

#[test]
fn elixir_modules_functions_and_remote_calls() {
    let src = "defmodule Phoenix.Router do\n  @moduledoc \"Routes\"\n  alias Phoenix.Router.Scope\n  import Plug.Conn\n\n  \
               defmacro pipe_through(pipes) do\n    quote do\n      Scope.pipe_through(__MODULE__, unquote(pipes))\n    end\n  end\n\n  \
               def match(conn, path) when is_binary(path) do\n    conn |> put_status(404) |> halt()\n    helper(path)\n  end\n\n  \
               def version, do: 1\n\n  defp helper(path), do: String.split(path, \"/\")\nend\n\n\
               defimpl Phoenix.Param, for: Integer do\n  def to_param(int), do: Integer.to_string(int)\nend\n";
    assert_symbols(
        "lib/phoenix/router.ex",
        src,
        &[
            ("module", "Router", None, 1, 20),
            ("function", "pipe_through", Some("Router"), 6, 10),
            ("function", "match", Some("Router"), 12, 15),
            ("function", "version", Some("Router"), 17, 17),
            ("function", "helper", Some("Router"), 19, 19),
            ("impl", "Param", None, 22, 24),
            ("function", "to_param", Some("Param"), 23, 23),
        ],
        &[
            ("method", "pipe_through"),
            ("call", "put_status"),
            ("call", "helper"),
            ("method", "split"),
            ("type", "Scope"),
            ("type", "Conn"),
            ("import", "Phoenix.Router.Scope"),
            ("import", "Plug.Conn"),
        ],
    );
    let s = symbols(language_of("a.ex").unwrap(), src);
    let calls: Vec<&str> = s
        .references
        .iter()
        .filter(|r| r.kind == RefKind::Call)
        .map(|r| r.name.as_str())
        .collect();
    // A definition's head (`match(conn, path)` in `def match(...)`), the
    // definition keywords and `@moduledoc` are no calls.
    for name in ["match", "def", "defp", "defmacro", "moduledoc", "version"] {
        assert!(!calls.contains(&name), "{name} in {calls:?}");
    }
}

#[test]
fn scala_traits_objects_and_methods() {
    let src = "package org.apache.spark.sql\n\nimport org.apache.spark.sql.types.{StructType, DataType}\n\n\
               trait Logging {\n  def log(msg: String): Unit\n}\n\n\
               object SparkSession extends Logging {\n  val DEFAULT_NAME = \"spark\"\n  \
               class Builder extends Serializable with Logging {\n    \
               def getOrCreate(): SparkSession = {\n      val local = 1\n      \
               SparkSession.active.getOrElse(create(local))\n    }\n  }\n}\n\n\
               enum Color:\n  case Red, Green\n\ntype Callback = Int => Unit\n";
    assert_symbols(
        "sql/core/src/main/scala/org/apache/spark/sql/SparkSession.scala",
        src,
        &[
            ("interface", "Logging", None, 5, 7),
            ("method", "log", Some("Logging"), 6, 6),
            ("class", "SparkSession", None, 9, 17),
            ("constant", "DEFAULT_NAME", Some("SparkSession"), 10, 10),
            ("class", "Builder", Some("SparkSession"), 11, 16),
            ("method", "getOrCreate", Some("Builder"), 12, 15),
            ("class", "Color", None, 19, 21),
            ("constant", "Red", Some("Color"), 20, 20),
            ("constant", "Green", Some("Color"), 20, 20),
            ("class", "Callback", None, 22, 22),
        ],
        &[
            ("method", "getOrElse"),
            ("call", "create"),
            ("implementation", "Logging"),
            ("implementation", "Serializable"),
            ("type", "SparkSession"),
            ("import_name", "StructType"),
            ("import_name", "DataType"),
        ],
    );
}

#[test]
fn dart_methods_span_their_bodies() {
    let src = "import 'src/response.dart' show Response;\n\n\
               const int maxRedirects = 5;\n\n\
               abstract class BaseClient implements Client {\n  static const String userAgent = 'dart';\n\n  \
               Future<Response> send(Request request) async {\n    request.headers.addAll(headers);\n    \
               return Response.fromStream(await open(request));\n  }\n\n  \
               void close();\n}\n\n\
               mixin Retry on BaseClient {\n  void retry() {}\n}\n\n\
               enum Method { get, post }\n\n\
               void main() {\n  print('x');\n}\n";
    assert_symbols(
        "lib/src/base_client.dart",
        src,
        &[
            ("constant", "maxRedirects", None, 3, 3),
            ("class", "BaseClient", None, 5, 14),
            ("constant", "userAgent", Some("BaseClient"), 6, 6),
            ("method", "send", Some("BaseClient"), 8, 11),
            ("method", "close", Some("BaseClient"), 13, 13),
            ("class", "Retry", None, 16, 18),
            ("method", "retry", Some("Retry"), 17, 17),
            ("class", "Method", None, 20, 20),
            ("constant", "get", Some("Method"), 20, 20),
            ("constant", "post", Some("Method"), 20, 20),
            ("function", "main", None, 22, 24),
        ],
        &[
            ("method", "addAll"),
            ("method", "fromStream"),
            ("call", "open"),
            ("call", "print"),
            ("implementation", "Client"),
            ("type", "Request"),
            ("import_name", "Response"),
        ],
    );
}

#[test]
fn lua_module_functions_methods_and_requires() {
    let src = "local config = require(\"telescope.config\")\nlocal M = {}\n\n\
               local function helper(x)\n  return x + 1\nend\n\n\
               function M.setup(opts)\n  config.set_defaults(opts)\n  return helper(opts)\nend\n\n\
               function M:close()\n  self.win:close()\nend\n\n\
               M.pick = function(items)\n  print(items)\nend\n\n\
               return {\n  run = function() M.setup({}) end,\n}\n";
    assert_symbols(
        "lua/telescope/init.lua",
        src,
        &[
            ("function", "helper", None, 4, 6),
            ("function", "setup", None, 8, 11),
            ("method", "close", None, 13, 15),
            ("function", "pick", None, 17, 19),
            ("function", "run", None, 22, 22),
        ],
        &[
            ("import", "telescope.config"),
            ("method", "set_defaults"),
            ("call", "helper"),
            ("method", "close"),
            ("call", "print"),
            ("method", "setup"),
        ],
    );
}

#[test]
fn haskell_functions_types_classes_instances_and_imports() {
    let src = "module ShellCheck.Analytics (runChecks, Shape (..)) where\n\n\
               import qualified Data.Map as M\n\
               import Data.List (sortBy, nub)\n\
               import ShellCheck.AST hiding (Token)\n\n\
               -- | Checks of a script, in order.\n\
               runChecks :: Params -> [Token] -> [Comment]\n\
               {-# INLINE runChecks #-}\n\
               runChecks _ [] = []\n\
               runChecks params (t:rest) =\n    concatMap (check params) rest ++ helper t\n  \
               where\n    helper x = M.findWithDefault [] x table\n\n\
               data Shape = Circle Double | Rect { width, height :: Double } | Empty\n  \
               deriving (Show)\n\n\
               newtype Name = Name String\n\n\
               class Monad m => MonadLog m where\n  logMsg :: String -> m ()\n  logMsg _ = return ()\n\n\
               instance MonadLog IO where\n  logMsg s = putStrLn s\n\n\
               x `orElse` y = if x then x else y\n";
    let path = "src/ShellCheck/Analytics.hs";
    assert_symbols(
        path,
        src,
        &[
            ("module", "Analytics", None, 1, 1),
            // The signature, the pragma and both equations, `where`
            // included: `helper` is part of the function, not a definition.
            ("function", "runChecks", None, 8, 14),
            ("class", "Shape", None, 16, 17),
            ("class", "Circle", Some("Shape"), 16, 16),
            ("class", "Rect", Some("Shape"), 16, 16),
            ("field", "width", Some("Rect"), 16, 16),
            ("field", "height", Some("Rect"), 16, 16),
            ("constant", "Empty", Some("Shape"), 16, 16),
            ("class", "Name", None, 19, 19),
            ("interface", "MonadLog", None, 21, 23),
            ("method", "logMsg", Some("MonadLog"), 22, 23),
            ("impl", "IO", None, 25, 26),
            ("method", "logMsg", Some("IO"), 26, 26),
            ("function", "orElse", None, 28, 28),
        ],
        &[
            ("import", "Data.Map"),
            ("import", "Data.List"),
            ("import_name", "sortBy"),
            ("import_name", "nub"),
            ("import", "ShellCheck.AST"),
            ("call", "concatMap"),
            ("call", "check"),
            ("call", "helper"),
            ("method", "findWithDefault"),
            ("call", "return"),
            ("call", "putStrLn"),
            ("implementation", "MonadLog"),
            ("type", "Params"),
        ],
    );
    // A `hiding` list imports nothing by name.
    let s = symbols(language_of(path).unwrap(), src);
    assert!(!s
        .references
        .iter()
        .any(|r| r.name == "Token" && r.kind == RefKind::ImportName));
}

#[test]
fn haskell_equations_of_one_function_are_one_definition() {
    let src = "go :: Int -> Int\n\
               -- the base case\n\
               go 0 = 0\n\
               #if DEBUG\n\
               go n | n < 0 = trace \"go\" 0\n\
               #endif\n\
               go n = go (n - 1)\n\n\
               stop :: Int\n\
               stop = go 3 `div` 2\n\n\
               (<+>) :: Int -> Int -> Int\n\
               a <+> b = a + b\n";
    assert_symbols(
        "src/Loop.hs",
        src,
        &[
            ("function", "go", None, 1, 7),
            ("function", "stop", None, 9, 10),
            ("function", "<+>", None, 12, 13),
        ],
        &[("call", "trace"), ("call", "go"), ("call", "div")],
    );
    // Literate Haskell is not read by this grammar: scored lexically.
    assert!(language_of("src/Main.lhs").is_none() && is_code_path("src/Main.lhs"));
}

#[test]
fn ocaml_top_level_lets_types_and_modules_are_definitions() {
    let src = "open Stdune\nmodule Path = Dune_engine.Path\n\n\
               let limit = 10\n\n\
               let rec loop x =\n  let helper y = y + 1 in\n  if helper x > limit then x else loop (x + 1)\n\
               and start = fun () -> loop 0\n\n\
               type t =\n  | Leaf of int\n  | Node of { left : t; right : t }\n\n\
               exception Bad_name of string\n\n\
               module Name = struct\n  let of_string s = String.lowercase s |> Option.some\n  let x = ref None\nend\n\n\
               module type S = sig\n  val f : t -> int\n  val size : int\nend\n\n\
               class counter = object\n  val mutable n = 0\n  method incr d = n <- n + d\nend\n\n\
               external length : string -> int = \"%string_length\"\n\
               let () = print_endline @@ Path.to_string (Leaf 1)\n";
    assert_symbols(
        "src/dune_rules/name.ml",
        src,
        &[
            ("module", "Path", None, 2, 2),
            ("constant", "limit", None, 4, 4),
            ("function", "loop", None, 6, 8),
            ("function", "start", None, 9, 9),
            ("class", "t", None, 11, 13),
            ("constant", "Leaf", Some("t"), 12, 12),
            ("constant", "Node", Some("t"), 13, 13),
            ("field", "left", Some("Node"), 13, 13),
            ("field", "right", Some("Node"), 13, 13),
            ("constant", "Bad_name", None, 15, 15),
            ("module", "Name", None, 17, 20),
            ("function", "of_string", Some("Name"), 18, 18),
            ("constant", "x", Some("Name"), 19, 19),
            ("interface", "S", None, 22, 25),
            ("function", "f", Some("S"), 23, 23),
            ("constant", "size", Some("S"), 24, 24),
            ("class", "counter", None, 27, 30),
            ("field", "n", Some("counter"), 28, 28),
            ("method", "incr", Some("counter"), 29, 29),
            ("function", "length", None, 32, 32),
        ],
        &[
            ("import", "Stdune"),
            ("import", "Dune_engine.Path"),
            ("call", "helper"),
            ("call", "loop"),
            ("import", "String"),
            ("method", "lowercase"),
            ("method", "some"),
            ("call", "print_endline"),
            ("method", "to_string"),
            ("constant", "Leaf"),
            ("type", "t"),
        ],
    );
    // A local `let ... in` is no definition of the file, whatever its name.
    let s = symbols(language_of("src/name.ml").unwrap(), src);
    assert!(s.defines("helper").next().is_none(), "{:?}", s.definitions);
}

#[test]
fn ocaml_interface_vals_define_functions_and_values() {
    let src = "(** Context names. *)\nopen Import\n\ntype t\n\n\
               val of_string : string -> t\nval default : t\n\n\
               module Map : Map.S with type key = t\n\n\
               module type Builder = sig\n  val build : ?loc:Loc.t -> t -> unit\nend\n\n\
               exception Invalid of string\n";
    assert_symbols(
        "src/dune_engine/context_name.mli",
        src,
        &[
            ("class", "t", None, 4, 4),
            ("function", "of_string", None, 6, 6),
            ("constant", "default", None, 7, 7),
            ("module", "Map", None, 9, 9),
            ("interface", "Builder", None, 11, 13),
            ("function", "build", Some("Builder"), 12, 12),
            ("constant", "Invalid", None, 15, 15),
        ],
        &[
            ("import", "Import"),
            ("implementation", "S"),
            ("import", "Map"),
            ("import", "Loc"),
            ("type", "string"),
        ],
    );
}

#[test]
fn zig_types_methods_constants_and_fields() {
    let src = "const std = @import(\"std\");\n\
               const Allocator = std.mem.Allocator;\n\
               const Parser = @import(\"parser.zig\").Parser;\n\
               const Server = @This();\n\n\
               alloc: Allocator,\n\
               port: u16 = 80,\n\n\
               pub const max_len: usize = 64;\n\
               pub const Mode = enum { plain, tls };\n\
               pub const Error = error{ Closed, Timeout };\n\n\
               pub const Point = struct {\n    x: f32,\n\n\
               \x20   pub fn add(self: Point, other: Point) Point {\n        return .{ .x = self.x + other.x };\n    }\n};\n\n\
               pub fn Pool(comptime T: type) type {\n    return struct {\n        items: []T,\n\n\
               \x20       pub fn acquire(self: *@This()) !T {\n            return self.items[0];\n        }\n    };\n}\n\n\
               pub fn init(alloc: Allocator) Server {\n    const p = Parser.init(alloc);\n    listen(p);\n    return .{ .alloc = alloc };\n}\n\n\
               test \"init binds the port\" {\n    try std.testing.expect(true);\n}\n";
    assert_symbols(
        "src/Server.zig",
        src,
        &[
            // A file is a struct: its own fields.
            ("field", "alloc", None, 6, 6),
            ("field", "port", None, 7, 7),
            // Aliases (`std`, `Allocator`, `Parser`, `Server`) define nothing.
            ("constant", "max_len", None, 9, 9),
            ("class", "Mode", None, 10, 10),
            ("constant", "plain", Some("Mode"), 10, 10),
            ("constant", "tls", Some("Mode"), 10, 10),
            ("class", "Error", None, 11, 11),
            ("class", "Point", None, 13, 19),
            ("field", "x", Some("Point"), 14, 14),
            ("method", "add", Some("Point"), 16, 18),
            // A generic type: its container is the class `Pool`, whose
            // functions are methods, not locals of the function `Pool`.
            ("function", "Pool", None, 21, 29),
            ("class", "Pool", Some("Pool"), 22, 28),
            ("field", "items", Some("Pool"), 23, 23),
            ("method", "acquire", Some("Pool"), 25, 27),
            ("function", "init", None, 31, 35),
            // The `test` block is no definition.
        ],
        &[
            ("import", "std"),
            ("import", "parser.zig"),
            ("method", "init"),
            ("call", "listen"),
            ("method", "expect"),
            ("type", "Allocator"),
            ("type", "Point"),
        ],
    );
    let s = symbols(language_of("src/Server.zig").unwrap(), src);
    let acquire = s.defines("acquire").next().unwrap();
    assert!(!acquire.local, "a generic type's method is not a local");
    let init = s.references.iter().find(|r| r.name == "init").unwrap();
    assert_eq!(init.receiver.as_deref(), Some("Parser"));
}

#[test]
fn r_functions_classes_methods_and_imports() {
    let src = "#' Join two tables\n\
               library(rlang)\n\
               requireNamespace(\"vctrs\", quietly = TRUE)\n\
               source(\"R/utils.R\")\n\n\
               default_by <- c(\"id\")\n\n\
               join_rows <- function(x, y, by = NULL) {\n  \
               helper <- function(z) z + 1\n  \
               by <- by %||% default_by\n  \
               vctrs::vec_rbind(x, helper(y))\n}\n\n\
               print.join_spec = function(x, ...) {\n  cat(\"<join_spec>\\n\")\n  invisible(x)\n}\n\n\
               \"%||%\" <- function(x, y) if (is.null(x)) y else x\n\n\
               JoinPlan <- R6::R6Class(\"JoinPlan\",\n  inherit = Plan,\n  public = list(\n    keys = NULL,\n\
               \x20   initialize = function(keys) {\n      self$keys <- keys\n      private$check()\n    }\n  ),\n\
               \x20 private = list(\n    check = function() stopifnot(length(self$keys) > 0)\n  )\n)\n\n\
               setClass(\"Person\", representation(name = \"character\"), contains = \"Base\")\n\
               setGeneric(\"greet\", function(obj, ...) standardGeneric(\"greet\"))\n\
               setMethod(\"greet\", \"Person\", function(obj, ...) {\n  cat(\"Hello\", obj@name)\n})\n\n\
               Account <- setRefClass(\"Account\",\n  fields = list(balance = \"numeric\"),\n\
               \x20 methods = list(\n    deposit = function(x) balance <<- balance + x\n  )\n)\n\n\
               plan <- JoinPlan$new(keys = \"id\")\n\
               function(x) x * 2 -> double_it\n";
    assert_symbols(
        "R/join.R",
        src,
        &[
            ("constant", "default_by", None, 6, 6),
            ("function", "join_rows", None, 8, 12),
            ("function", "helper", Some("join_rows"), 9, 9),
            // An S3 method keeps its whole name.
            ("function", "print.join_spec", None, 14, 17),
            ("function", "%||%", None, 19, 19),
            ("class", "JoinPlan", None, 21, 33),
            ("field", "keys", Some("JoinPlan"), 24, 24),
            ("method", "initialize", Some("JoinPlan"), 25, 28),
            ("method", "check", Some("JoinPlan"), 31, 31),
            ("class", "Person", None, 35, 35),
            ("function", "greet", None, 36, 36),
            // An S4 method belongs to the class of its signature.
            ("method", "greet", Some("Person"), 37, 39),
            ("class", "Account", None, 41, 46),
            ("field", "balance", Some("Account"), 42, 42),
            ("method", "deposit", Some("Account"), 44, 44),
            ("constant", "plan", None, 48, 48),
            // `function(x) x * 2 -> double_it` assigns in the function's
            // body: no definition.
        ],
        &[
            ("import", "rlang"),
            ("import", "vctrs"),
            ("import", "R/utils.R"),
            ("call", "helper"),
            ("call", "is.null"),
            ("method", "vec_rbind"),
            ("method", "check"),
            ("method", "new"),
            ("class", "JoinPlan"),
            ("implementation", "Plan"),
            ("implementation", "Base"),
        ],
    );
    let s = symbols(language_of("R/join.R").unwrap(), src);
    assert!(
        s.defines("helper").all(|d| d.local),
        "a nested function is local"
    );
    assert!(
        s.defines("initialize").all(|d| !d.local),
        "an R6 method is not"
    );
    let receiver = |n: &str| {
        let r = s.references.iter().find(|r| r.name == n).unwrap();
        (r.kind.as_str(), r.receiver.as_deref())
    };
    assert_eq!(receiver("vec_rbind"), ("method", Some("vctrs")));
    assert_eq!(receiver("check"), ("method", Some("private")));
    // An import is no call.
    assert!(
        !s.references
            .iter()
            .any(|r| r.kind == RefKind::Call && r.name == "library"),
        "{:?}",
        s.references
    );
}

#[test]
fn r_files_are_r_in_either_case() {
    // R packages name their files `.R`; some scripts `.r`. Both are R.
    for path in ["R/join.R", "analysis/plot.r", "tests/testthat/test-join.R"] {
        assert_eq!(language_of(path).map(|l| l.id), Some("r"), "{path}");
        assert!(is_code_path(path), "{path}");
    }
    let s = symbols(
        language_of("tools/fit.r").unwrap(),
        "fit <- function(df) stats::lm(y ~ x, df)\n",
    );
    assert_eq!(s.definitions[0].name, "fit");
    let lm = s.references.iter().find(|r| r.name == "lm").unwrap();
    assert_eq!(
        (lm.kind, lm.receiver.as_deref()),
        (RefKind::Method, Some("stats"))
    );
}

#[test]
fn erlang_functions_records_macros_types_and_remote_calls() {
    let src = "-module(ejabberd_sm).\n\
               -behaviour(gen_server).\n\n\
               -include(\"logger.hrl\").\n\
               -include_lib(\"xmpp/include/xmpp.hrl\").\n\
               -import(lists, [foldl/3]).\n\n\
               -export([start_link/0, route/2, route/3]).\n\n\
               -define(SM_CACHE, sm_cache).\n\
               -define(DEBUG(Fmt, Args), logger:debug(Fmt, Args)).\n\n\
               -record(session, {sid,\n                  \
               usr = {<<>>, <<>>, <<>>} :: {binary(), binary(), binary()},\n                  \
               priority, info = []}).\n\n\
               -type sid() :: {erlang:timestamp(), pid()}.\n\
               -opaque info() :: [{atom(), term()}].\n\n\
               -callback open_session(binary(), sid()) -> ok.\n\n\
               %% Starts the session manager.\n\
               -spec start_link() -> {ok, pid()}.\n\
               start_link() ->\n    gen_server:start_link({local, ?MODULE}, ?MODULE, [], []).\n\n\
               -spec route(jid(), term()) -> ok.\n\
               route(To, Term) ->\n    route(To, Term, ?SM_CACHE).\n\n\
               route(#jid{luser = <<\"\">>}, _Term, _Cache) ->\n    ok;\n\
               %% A user's sessions.\n\
               route(To, Term, Cache) ->\n    \
               ?DEBUG(\"route ~p\", [Term]),\n    \
               Sessions = get_sessions(To, Cache),\n    \
               foldl(fun do_route/2, Term, Sessions),\n    \
               lists:foreach(fun ejabberd_router:route/1, Sessions).\n\n\
               get_sessions(#jid{} = To, Cache) ->\n    ets_cache:lookup(Cache, To, fun() -> [] end).\n\n\
               do_route(#session{sid = Sid}, Term) -> Sid ! Term.\n";
    let path = "src/ejabberd_sm.erl";
    assert_symbols(
        path,
        src,
        &[
            ("module", "ejabberd_sm", None, 1, 1),
            ("macro", "SM_CACHE", None, 10, 10),
            ("macro", "DEBUG", None, 11, 11),
            ("class", "session", None, 13, 15),
            ("field", "sid", Some("session"), 13, 13),
            ("field", "usr", Some("session"), 14, 14),
            ("field", "priority", Some("session"), 15, 15),
            ("field", "info", Some("session"), 15, 15),
            ("class", "sid", None, 17, 17),
            ("class", "info", None, 18, 18),
            ("method", "open_session", None, 20, 20),
            // From the `-spec` to the clause ending in `.`.
            ("function", "start_link", None, 23, 25),
            ("function", "route", None, 27, 29),
            // `route/3`, another function: both clauses, the comment
            // between them included.
            ("function", "route", None, 31, 38),
            ("function", "get_sessions", None, 40, 41),
            ("function", "do_route", None, 43, 43),
        ],
        &[
            ("implementation", "gen_server"),
            ("import", "logger.hrl"),
            ("import", "xmpp/include/xmpp.hrl"),
            ("import", "lists"),
            ("import_name", "foldl"),
            ("type", "gen_server"),
            ("method", "start_link"),
            ("call", "route"),
            ("constant", "SM_CACHE"),
            ("call", "DEBUG"),
            ("call", "get_sessions"),
            ("call", "foldl"),
            ("call", "do_route"),
            ("type", "lists"),
            ("method", "foreach"),
            ("type", "ejabberd_router"),
            ("method", "route"),
            ("method", "lookup"),
            ("type", "jid"),
            ("type", "session"),
        ],
    );
    let s = symbols(language_of(path).unwrap(), src);
    // A remote call is no local call too, and `?MODULE` names no macro of
    // the project.
    for name in ["start_link", "foreach", "lookup", "MODULE"] {
        assert!(
            !s.references
                .iter()
                .any(|r| r.name == name && matches!(r.kind, RefKind::Call | RefKind::Constant)),
            "{name}: {:?}",
            s.references
        );
    }
}

#[test]
fn erlang_headers_are_parsed_and_suites_are_tests() {
    let hrl = "-record(state, {host = <<>> :: binary(), count = 0}).\n\
               -define(TIMEOUT, 5000).\n";
    assert_symbols(
        "include/ejabberd_http.hrl",
        hrl,
        &[
            ("class", "state", None, 1, 1),
            ("field", "host", Some("state"), 1, 1),
            ("field", "count", Some("state"), 1, 1),
            ("macro", "TIMEOUT", None, 2, 2),
        ],
        &[("call", "binary")],
    );
    assert!(is_test_path("src/cowboy_http_SUITE.erl"));
    assert!(is_test_path("src/jid_tests.erl"));
    assert!(!is_test_path("src/cowboy_http.erl"));
    assert!(!is_code_path("src/cowboy.app.src"));
}

#[test]
fn julia_functions_types_methods_and_imports() {
    let src = "module Layers\n\n\
               using LinearAlgebra\n\
               import Statistics: mean, std\n\
               using ..Utils\n\n\
               include(\"activations.jl\")\n\n\
               const DEFAULT_INIT = 0.01\n\n\
               abstract type AbstractLayer end\n\n\
               \"\"\"\n    Dense(in => out, σ)\n\nA fully connected layer.\n\"\"\"\n\
               struct Dense{M<:AbstractMatrix} <: AbstractLayer\n    weight::M\n    σ\n\
               \x20   Dense(w::M) where {M} = new{M}(w, identity)\nend\n\n\
               Base.@kwdef mutable struct Options\n    verbose::Bool = false\nend\n\n\
               (d::Dense)(x::AbstractVecOrMat) = d.σ.(d.weight * x)\n\n\
               function Base.show(io::IO, d::Dense)\n    print(io, \"Dense(\", size(d.weight), \")\")\nend\n\n\
               \"Set every weight to zero.\"\n\
               zero!(d::Dense) = fill!(d.weight, 0)\n\n\
               function train!(loss, d::Dense, data; opts::Options = Options())\n\
               \x20   step(x) = x - DEFAULT_INIT * LinearAlgebra.norm(x)\n\
               \x20   for x in data\n        @assert isfinite(loss(d(x)))\n        d.weight .= step.(d.weight)\n    end\nend\n\n\
               macro layer(T)\n    return :(Functors.@functor $(esc(T)))\nend\n\n\
               end\n";
    assert_symbols(
        "src/layers.jl",
        src,
        &[
            ("module", "Layers", None, 1, 49),
            ("constant", "DEFAULT_INIT", Some("Layers"), 9, 9),
            ("class", "AbstractLayer", Some("Layers"), 11, 11),
            // A definition starts at its docstring.
            ("class", "Dense", Some("Layers"), 13, 22),
            ("field", "weight", Some("Dense"), 19, 19),
            ("field", "σ", Some("Dense"), 20, 20),
            // An inner constructor, defined in its struct.
            ("function", "Dense", Some("Dense"), 21, 21),
            ("class", "Options", Some("Layers"), 24, 26),
            ("field", "verbose", Some("Options"), 25, 25),
            // A callable struct's method: the layer's forward pass.
            ("method", "Dense", Some("Layers"), 28, 28),
            // A method of `Base.show` defines `show`.
            ("function", "show", Some("Layers"), 30, 32),
            // `zero!` is `zero`, as a task's words name it.
            ("function", "zero", Some("Layers"), 34, 35),
            ("function", "train", Some("Layers"), 37, 43),
            ("function", "step", Some("train"), 38, 38),
            ("macro", "layer", Some("Layers"), 45, 47),
        ],
        &[
            ("import", "LinearAlgebra"),
            ("import", "Statistics"),
            ("import_name", "mean"),
            ("import_name", "std"),
            ("import", "..Utils"),
            ("import", "activations.jl"),
            ("implementation", "AbstractLayer"),
            ("type", "IO"),
            ("type", "Dense"),
            ("type", "Options"),
            ("call", "print"),
            ("call", "Options"),
            ("call", "fill"),
            ("call", "step"),
            ("call", "assert"),
            ("call", "functor"),
            ("method", "norm"),
        ],
    );
    let s = symbols(language_of("src/layers.jl").unwrap(), src);
    let step = s.defines("step").next().unwrap();
    assert!(step.local, "a function in a function is its local");
    assert!(!s.defines("train").next().unwrap().local);
    let norm = s.references.iter().find(|r| r.name == "norm").unwrap();
    assert_eq!(norm.receiver.as_deref(), Some("LinearAlgebra"));
    // A definition's head is no use of its name; `new{M}` is no type.
    assert!(
        !s.references
            .iter()
            .any(|r| r.name == "show" || r.name == "new"),
        "{:?}",
        s.references
    );
}

#[test]
fn julia_short_forms_where_clauses_and_qualified_methods() {
    let src = "f(x) = x + 1\n\
               g(x::T) where {T<:Real} = T(x)\n\
               h(x)::Int = round(Int, x)\n\
               k(x::T)::T where {T} = x\n\
               Base.getindex(c::Cache, i::Int) = c.items[i]\n\
               function Base.push!(c::Cache, x)\n    push!(c.items, x)\nend\n\
               function Cache{T}(n::Integer) where {T}\n    new{T}(Vector{T}(undef, n))\nend\n\
               function (c::Cache{T})(x) where {T}\n    c[x]\nend\n\
               function noop end\n\
               cache(x)[1] = 2\n\
               config(x).verbose = true\n";
    assert_symbols(
        "src/cache.jl",
        src,
        &[
            ("function", "f", None, 1, 1),
            ("function", "g", None, 2, 2),
            ("function", "h", None, 3, 3),
            ("function", "k", None, 4, 4),
            ("function", "getindex", None, 5, 5),
            ("function", "push", None, 6, 8),
            ("function", "Cache", None, 9, 11),
            ("method", "Cache", None, 12, 14),
            ("function", "noop", None, 15, 15),
            // Setting an element or a field of a call's result defines
            // nothing.
        ],
        &[
            ("call", "round"),
            ("call", "push"),
            ("call", "cache"),
            ("call", "config"),
            ("type", "Vector"),
        ],
    );
}
