; PHP tags: tree-sitter-php's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name); methods are
; @definition.method (upstream: function) and its @definition.field /
; @reference.class captures are dropped or become @reference.call. Extended
; with: enums as @definition.class, class and namespace `const` and
; `define('X', ...)` as @definition.constant, calls on an object as
; @reference.method (plain and static `Foo::bar()` calls stay @reference.call),
; `new X` as a call, `extends`/`implements`/trait `use` as
; @reference.implementation, type uses as @reference.type, `use` imports
; (@reference.import for the path, @reference.import_name for the name) and
; `require`/`include` paths as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(namespace_definition
  name: (namespace_name) @name) @definition.module

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.interface

(class_declaration
  name: (name) @name) @definition.class

(enum_declaration
  name: (name) @name) @definition.class

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

(const_declaration
  (const_element (name) @name)) @definition.constant

((function_call_expression
  function: (name)
  arguments: (arguments . (argument (string (string_content) @name)))) @definition.constant
  (#match? @definition.constant "^define\\s*\\("))

(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(scoped_call_expression
  name: (name) @name) @reference.call

(member_call_expression
  name: (name) @name) @reference.method

(nullsafe_member_call_expression
  name: (name) @name) @reference.method

(object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(base_clause [(name) @name (qualified_name (name) @name)]) @reference.implementation
(class_interface_clause [(name) @name (qualified_name (name) @name)]) @reference.implementation
(use_declaration [(name) @name (qualified_name (name) @name)]) @reference.implementation

(scoped_call_expression
  scope: [(name) @name (qualified_name (name) @name)]) @reference.type

(named_type [(name) @name (qualified_name (name) @name)]) @reference.type

(namespace_use_clause [(name) (qualified_name)] @name) @reference.import

(namespace_use_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.import_name

[
  (require_expression (string (string_content) @name))
  (require_once_expression (string (string_content) @name))
  (include_expression (string (string_content) @name))
  (include_once_expression (string (string_content) @name))
] @reference.import
