; JavaScript tags: tree-sitter-javascript's queries/tags.scm with tree-sitter's
; standard captures (@definition.*, @reference.*, @name), without its @doc
; comment captures, extended with: method calls on a receiver as
; @reference.method, `new X()` as a call, top-level `const` values as
; @definition.constant, `extends` as @reference.implementation, and ES module /
; CommonJS imports (@reference.import, @reference.import_name).
; Order matters: for one node, the earliest pattern wins.

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

[
  (class name: (_) @name)
  (class_declaration name: (_) @name)
] @definition.class

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

(export_statement
  value: (assignment_expression
    left: (identifier) @name
    right: [(number) (string) (identifier) (undefined) (null) (new_expression) (binary_expression) (call_expression)])) @definition.constant

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

(class_heritage
  [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.implementation

(import_statement
  source: (string (string_fragment) @name)) @reference.import

(export_statement
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

; JSX components (capitalised element names) are calls.
((jsx_opening_element
  name: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call
  (#match? @name "^[A-Z]"))
