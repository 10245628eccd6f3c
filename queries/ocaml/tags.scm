; OCaml tags, for implementations (.ml) and interfaces (.mli): tree-sitter-
; ocaml's queries/tags.scm (tree-sitter/tree-sitter-ocaml 0.26) with
; tree-sitter's standard captures (@definition.*, @reference.*, @name),
; mapped to this crate's kinds. The `.ml` row adds the `let`s of
; queries/ocaml/implementation.scm (see there). Changed: a `let` binding is
; a definition only at the top of the file or of a module (`struct ...
; end`), never a `let ... in` inside an expression (upstream: any `let`
; with parameters); one with parameters or a `fun`/`function` body is
; @definition.function, a plain value @definition.constant (upstream: left
; out); `val` specifications (interfaces, module types) are definitions, a
; function by its arrow type, else a constant; types are @definition.class
; (upstream: @definition.type), their variants' and exceptions'
; constructors @definition.constant (upstream: @definition.enum_variant),
; class types and module types @definition.interface; instance variables
; are fields. References: a plain application head is @reference.call, a
; qualified one (`List.map f`, `Path.Build.relative`) @reference.method,
; like a remote call of Elixir or Go; `x |> f` and `f @@ x` call `f`;
; `obj#m` is @reference.method (upstream: a call); `open`, `include`, a
; module alias or functor application (`module P = Stdune.Path`) and the
; module path qualifying a value, a constructor, a type, a module type or a
; local open are @reference.import of that path as written
; (`Dune_engine.Import`; upstream: @reference.module of each module name);
; module types used (`module M : S`, `include S`) are
; @reference.implementation, as upstream; constructors used are
; @reference.constant (upstream: @reference.enum_variant); type uses
; @reference.type. Left out: operators (`let ( >>= )`), polymorphic variant
; tags, record field uses, and the doc comments (this crate reads no @doc).
; Order matters: for one node, the earliest pattern wins.

(external
  (value_name) @name) @definition.function

(value_specification
  (value_name) @name
  type: (function_type)) @definition.function

(value_specification
  (value_name) @name) @definition.constant

; Modules, module types, classes, methods.

(module_binding
  (module_name) @name) @definition.module

(module_type_definition
  (module_type_name) @name) @definition.interface

(class_binding
  (class_name) @name) @definition.class

(class_type_binding
  (class_type_name) @name) @definition.interface

(method_definition
  (method_name) @name) @definition.method

(method_specification
  (method_name) @name) @definition.method

(instance_variable_definition
  (instance_variable_name) @name) @definition.field

; Types, their constructors and record fields.

(type_binding
  name: (type_constructor) @name) @definition.class

(constructor_declaration
  (constructor_name) @name) @definition.constant

(field_declaration
  (field_name) @name) @definition.field

; Calls: plain, then qualified (`M.f`), pipelines, methods.

(application_expression
  function: (value_path
    .
    (value_name) @name)) @reference.call

(application_expression
  function: (value_path
    (module_path)
    (value_name) @name)) @reference.method

((infix_expression
  operator: (rel_operator) @_op
  right: (value_path
    .
    (value_name) @name)) @reference.call
  (#eq? @_op "|>"))

((infix_expression
  left: (value_path
    .
    (value_name) @name)
  operator: (concat_operator) @_op) @reference.call
  (#eq? @_op "@@"))

((infix_expression
  operator: (rel_operator) @_op
  right: (value_path
    (module_path)
    (value_name) @name)) @reference.method
  (#eq? @_op "|>"))

((infix_expression
  left: (value_path
    (module_path)
    (value_name) @name)
  operator: (concat_operator) @_op) @reference.method
  (#eq? @_op "@@"))

(method_invocation
  (method_name) @name) @reference.method

; Modules opened, included, or qualifying a name.

(open_module
  module: (module_path) @name) @reference.import

(open_module_signature
  module: (extended_module_path) @name) @reference.import

(include_module
  module: [
    (module_path) @name
    (module_application
      functor: (module_path) @name)
  ]) @reference.import

(module_binding
  body: [
    (module_path) @name
    (extended_module_path) @name
    (module_application
      functor: (module_path) @name)
  ]) @reference.import

(value_path
  (module_path) @name) @reference.import

(constructor_path
  (module_path) @name) @reference.import

(type_constructor_path
  (extended_module_path) @name) @reference.import

(local_open_expression
  (module_path) @name) @reference.import

(module_type_path
  (extended_module_path) @name) @reference.import

(module_type_of
  (module_path) @name) @reference.import

; Module types a module or a signature is built on (`module M : S`,
; `include S`, a functor's `(X : S)`).

(module_type_path
  (module_type_name) @name) @reference.implementation

; Constructors and types used.

(constructor_path
  (constructor_name) @name) @reference.constant

(type_constructor_path
  (type_constructor) @name) @reference.type
