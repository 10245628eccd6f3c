; TypeScript (and TSX) tags: tree-sitter-typescript's queries/tags.scm plus the
; JavaScript patterns it builds on (tree-sitter-javascript's queries/tags.scm),
; with tree-sitter's standard captures (@definition.*, @reference.*, @name) and
; without @doc comment captures. Extended with: method calls on a receiver as
; @reference.method, `new X()` as a call, classes/enums/type aliases as
; @definition.class, top-level `const` values as @definition.constant,
; `extends`/`implements` as @reference.implementation, and ES module /
; CommonJS imports (@reference.import, @reference.import_name).
; Order matters: for one node, the earliest pattern wins.

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

(function_signature
  name: (identifier) @name) @definition.function

[
  (class name: (_) @name)
  (class_declaration name: (_) @name)
  (abstract_class_declaration name: (_) @name)
  (enum_declaration name: (_) @name)
  (type_alias_declaration name: (_) @name)
] @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

[
  (module name: (_) @name)
  (internal_module name: (_) @name)
] @definition.module

[
  (function_expression name: (identifier) @name)
  (function_declaration name: (identifier) @name)
  (generator_function name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
] @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)

(assignment_expression
  left: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]
  right: [(arrow_function) (function_expression)]) @definition.function

(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; Top-level (or exported) `const` values that are not functions (those matched
; above) nor CommonJS imports (`const fs = require("fs")`).
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name) @definition.constant)
  (#not-match? @definition.constant "^[^=]+=\\s*require\\s*\\("))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant))
  (#not-match? @definition.constant "^[^=]+=\\s*require\\s*\\("))

((call_expression
  function: (identifier) @name) @reference.call
  (#not-eq? @name "require"))

(call_expression
  function: (member_expression
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.method

(new_expression
  constructor: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call

(extends_clause
  value: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.implementation

(implements_clause
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
  ]) @reference.implementation

(extends_type_clause
  type: [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
  ]) @reference.implementation

(type_identifier) @name @reference.type

(import_statement
  source: (string (string_fragment) @name)) @reference.import

(export_statement
  source: (string (string_fragment) @name)) @reference.import

(import_require_clause
  source: (string (string_fragment) @name)) @reference.import

((call_expression
  function: [(identifier) (import)]
  arguments: (arguments . (string (string_fragment) @name))) @reference.import
  (#match? @reference.import "^(require|import)\\s*\\("))

; `const x = require("m")` and `const { a, b } = require("m")` import names too.
((variable_declarator
  name: [
    (identifier) @name
    (object_pattern (shorthand_property_identifier_pattern) @name)
    (object_pattern (pair_pattern value: (identifier) @name))
  ]
  value: (call_expression)) @reference.import_name
  (#match? @reference.import_name "^[^=]+=\\s*require\\s*\\("))

(import_specifier name: (identifier) @name) @reference.import_name
(import_clause (identifier) @name) @reference.import_name
(namespace_import (identifier) @name) @reference.import_name
