; Scala tags: tree-sitter-scala's queries/tags.scm (tree-sitter/
; tree-sitter-scala 0.26) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name), mapped to this crate's kinds on the
; model of the Java and Kotlin queries: classes, case classes, objects, enums,
; enum cases with parameters and type aliases as @definition.class, traits as
; @definition.interface, `def`s in a class, object or trait body as
; @definition.method and elsewhere as @definition.function, simple enum
; cases and the `val`s of an object or of the file's top level as
; @definition.constant. Left out: packages (a dotted path, never a name a
; task pins a file by), instance `val`/`var`s and class parameters (fields),
; `given`s. References: plain calls as @reference.call, calls on a receiver
; as @reference.method, `new X` as a call, `extends`/`with` as
; @reference.implementation, type uses as @reference.type, and the names an
; import brings (@reference.import_name).
; Order matters: for one node, the earliest pattern wins.

(trait_definition
  name: (identifier) @name) @definition.interface

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.class

(enum_definition
  name: (identifier) @name) @definition.class

(full_enum_case
  name: (identifier) @name) @definition.class

(simple_enum_case
  name: (identifier) @name) @definition.constant

(type_definition
  name: (type_identifier) @name) @definition.class

(template_body
  [
    (function_definition name: (identifier) @name)
    (function_declaration name: (identifier) @name)
  ] @definition.method)

(function_definition
  name: (identifier) @name) @definition.function

(object_definition
  body: (template_body
    (val_definition pattern: (identifier) @name) @definition.constant))

(compilation_unit
  (val_definition pattern: (identifier) @name) @definition.constant)

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: [
    (field_expression field: (identifier) @name)
    (generic_function function: (field_expression field: (identifier) @name))
  ]) @reference.method

(instance_expression
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ]) @reference.call

(extends_clause
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ]) @reference.implementation

(type_identifier) @name @reference.type

(import_declaration
  (identifier) @name .) @reference.import_name

(import_declaration
  (namespace_selectors (identifier) @name)) @reference.import_name
