; Erlang tags, written for tree-sitter-erlang 0.21 (WhatsApp/tree-sitter-
; erlang ships a highlights query but no tags.scm) from its grammar.js and
; node-types.json, with tree-sitter's standard captures (@definition.*,
; @reference.*, @name). The same query reads `.erl` modules and `.hrl`
; headers.
;
; Definitions: the `-module(name)` attribute (@definition.module); functions
; (@definition.function: a `-spec` and each clause, which the grammar leaves
; as sibling nodes, one per clause; the row's `equations` joins a function's
; `-spec` and clauses into one definition, to the clause ending in `.`);
; `-callback`s (@definition.method: what a behaviour's implementers define,
; as an interface's methods); `-record`s (@definition.class) and their fields
; (@definition.field); `-type`, `-opaque` and `-nominal` types
; (@definition.class); `-define`d macros (@definition.macro).
; Left out: `-export` lists (they name the module's own functions), `fun`s
; bound to variables (they belong to their function), macros that expand to
; whole clauses, `-doc` and other attributes.
;
; References: a local call `foo(X)` or `fun foo/1` is @reference.call; a
; remote one, `mod:foo(X)` or `fun mod:foo/1`, is @reference.method of
; `foo` (as Elixir's `Mod.f()` is), and its module a @reference.type (as
; Elixir's aliases are: the module a file defines); `-include` and
; `-include_lib` are @reference.import of their path (read without its
; quotes), `-import(mod, [f/1])` of `mod`, with @reference.import_name of
; `f`; `-behaviour(gen_server)` is @reference.implementation; a record's
; name where it is built, matched or read (`#state{}`, `S#state.count`) is
; @reference.type; a macro used with arguments (`?LOG("x")`) is
; @reference.call, without (`?TIMEOUT`) @reference.constant, except the
; predefined ones (`?MODULE`, `?LINE`, ...). A type used in a `-spec` is a
; call in this grammar (`binary()`), so @reference.call too.
; Order matters: for one node, the earliest pattern wins.

(module_attribute name: (atom) @name) @definition.module

; Functions: the `-spec` and each clause (joined by the row's `equations`).

(spec fun: (atom) @name) @definition.function
(fun_decl clause: (function_clause name: (atom) @name)) @definition.function

(callback fun: (atom) @name) @definition.method

; Records, types and macros.

(record_decl name: (atom) @name) @definition.class
(record_decl (record_field name: (atom) @name) @definition.field)

(type_alias name: (type_name name: (atom) @name)) @definition.class
(opaque name: (type_name name: (atom) @name)) @definition.class
(nominal name: (type_name name: (atom) @name)) @definition.class

(pp_define lhs: (macro_lhs name: [(var) (atom)] @name)) @definition.macro

; Calls. A remote call's `foo(X)` is also a call node: the name read as a
; method call is not read as a plain call too (see `lang::tags`).

(call expr: (atom) @name) @reference.call
(remote fun: (call expr: (atom) @name)) @reference.method
(remote_module module: (atom) @name) @reference.type

(internal_fun fun: (atom) @name) @reference.call
(external_fun fun: (atom) @name) @reference.method
(external_fun module: (module name: (atom) @name)) @reference.type

((macro_call_expr name: (_) @name args: (macro_call_args)) @reference.call
  (#not-any-of? @name "MODULE" "MODULE_STRING" "FILE" "LINE" "MACHINE" "FUNCTION_NAME" "FUNCTION_ARITY" "OTP_RELEASE"))
((macro_call_expr name: (_) @name !args) @reference.constant
  (#not-any-of? @name "MODULE" "MODULE_STRING" "FILE" "LINE" "MACHINE" "FUNCTION_NAME" "FUNCTION_ARITY" "OTP_RELEASE"))

; Includes, imports and behaviours.

(pp_include file: (string) @name) @reference.import
(pp_include_lib file: (string) @name) @reference.import
(import_attribute module: (atom) @name) @reference.import
(import_attribute funs: (fa fun: (atom) @name)) @reference.import_name

(behaviour_attribute name: (atom) @name) @reference.implementation

; Records.

(record_name name: (atom) @name) @reference.type
(qualified_record_name name: (atom) @name) @reference.type
