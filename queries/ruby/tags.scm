; Ruby tags: tree-sitter-ruby's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name), without its @doc comment
; captures and without its bare `(identifier)`/`(constant)` call pattern
; (every local variable would be a reference). Extended with: top-level `def`
; as @definition.function, constant assignments as @definition.constant,
; calls without a receiver as @reference.call and with one as
; @reference.method, constant receivers and scoped constants as
; @reference.type, superclasses and `include`/`extend`/`prepend` as
; @reference.implementation, and `require`/`require_relative`/`load` as
; @reference.import.
; Order matters: for one node, the earliest pattern wins.

(program (method name: (_) @name) @definition.function)

[
  (method name: (_) @name)
  (singleton_method name: (_) @name)
] @definition.method

(alias name: (_) @name) @definition.method

[
  (class
    name: [
      (constant) @name
      (scope_resolution name: (_) @name)
    ])
  (singleton_class
    value: [
      (constant) @name
      (scope_resolution name: (_) @name)
    ])
] @definition.class

(module
  name: [
    (constant) @name
    (scope_resolution name: (_) @name)
  ]) @definition.module

(assignment
  left: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @definition.constant

((call
  !receiver
  method: (identifier)
  arguments: (argument_list . (string (string_content) @name))) @reference.import
  (#match? @reference.import "^(require|require_relative|load)[ (]"))

((call
  !receiver
  method: (identifier)
  arguments: (argument_list [(constant) (scope_resolution)] @name)) @reference.implementation
  (#match? @reference.implementation "^(include|extend|prepend)[ (]"))

((call
  !receiver
  method: (identifier) @name) @reference.call
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public)$"))

(call
  receiver: (_)
  method: (identifier) @name) @reference.method

(call
  receiver: [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @reference.type

(scope_resolution
  name: (constant) @name) @reference.type

(superclass
  [
    (constant) @name
    (scope_resolution name: (constant) @name)
  ]) @reference.implementation
