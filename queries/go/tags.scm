; Go tags: tree-sitter-go's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name), without its @doc comment
; captures and uncaptured patterns. Extended with: a method's receiver type as
; its @parent, struct and other named types as @definition.class, interfaces as
; @definition.interface, top-level `const` as @definition.constant, calls
; through a selector (`x.F()`, a method or a package-qualified function) as
; @reference.method, and import paths as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
      ]))
  name: (field_identifier) @name) @definition.method

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name) @definition.class

(type_alias
  name: (type_identifier) @name) @definition.class

(method_elem
  name: (field_identifier) @name) @definition.method

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
  ]) @reference.call

(call_expression
  function: [
    (selector_expression field: (field_identifier) @name)
    (parenthesized_expression (selector_expression field: (field_identifier) @name))
  ]) @reference.method

(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
  ]) @reference.call

((type_identifier) @name @reference.type
  (#not-match? @name "^(any|bool|byte|comparable|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr)$"))

(import_spec
  path: [
    (interpreted_string_literal (interpreted_string_literal_content) @name)
    (raw_string_literal (raw_string_literal_content) @name)
  ]) @reference.import
