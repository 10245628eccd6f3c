; Elixir tags: tree-sitter-elixir's queries/tags.scm (elixir-lang/
; tree-sitter-elixir 0.3) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name). Elixir's definitions are calls
; (`defmodule X do`, `def f(x) do`), told apart by the called name, here in
; private `@_kw` captures (the upstream query's `@ignore`). Changed: a module's
; aliases are @reference.type (upstream: @reference.module, a kind this crate
; does not have); remote calls (`Mod.f()`) are @reference.method; `alias`,
; `import`, `require` and `use` are @reference.import of their module;
; `defimpl` is @definition.impl of the protocol it implements; the
; definition keywords, special forms and module attributes (`@doc`,
; `@spec`) are no calls. A dotted name
; (`Phoenix.Router`) is read by its last part (see `lang::tags`).
; Order matters: for one node, the earliest pattern wins.

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#any-of? @_kw "defmodule" "defprotocol")) @definition.module

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defimpl")) @definition.impl

(call
  target: (identifier) @_kw
  (arguments
    [
      ; zero-arity functions with no parentheses
      (identifier) @name
      ; regular function clause
      (call target: (identifier) @name)
      ; function clause with a guard clause
      (binary_operator
        left: (call target: (identifier) @name)
        operator: "when")
    ])
  (#any-of? @_kw "def" "defp" "defdelegate" "defguard" "defguardp" "defmacro" "defmacrop" "defn" "defnp")) @definition.function

(call
  target: (identifier) @_kw
  (arguments . [(alias) (dot)] @name)
  (#any-of? @_kw "alias" "import" "require" "use")) @reference.import

((call
  target: (identifier) @name) @reference.call
  (#not-any-of? @name "def" "defp" "defdelegate" "defguard" "defguardp" "defmacro" "defmacrop" "defn" "defnp" "defmodule" "defprotocol" "defimpl" "defstruct" "defexception" "defoverridable" "alias" "case" "cond" "else" "for" "if" "import" "quote" "raise" "receive" "require" "reraise" "super" "throw" "try" "unless" "unquote" "unquote_splicing" "use" "with"
    "moduledoc" "doc" "typedoc" "spec" "type" "typep" "opaque" "callback" "macrocallback" "impl" "behaviour" "derive" "enforce_keys" "deprecated" "compile" "dialyzer"))

(call
  target: (dot right: (identifier) @name)) @reference.method

(binary_operator
  operator: "|>"
  right: (identifier) @name) @reference.call

(alias) @name @reference.type
