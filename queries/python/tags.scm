; Python tags: tree-sitter's standard captures (@definition.*, @reference.*, @name),
; extended with class-level constants and imports.

(module (expression_statement (assignment left: (identifier) @name) @definition.constant))

(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.constant)))

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(call
  function: (identifier) @name) @reference.call

; A method call `obj.name(...)`: the receiver's type is unknown, so such names
; are weaker evidence than plain calls.
(call
  function: (attribute
    attribute: (identifier) @name)) @reference.method

(attribute
  attribute: (identifier) @name) @reference.type

(import_statement
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name)
  ]) @reference.import

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @name) @reference.import

(import_from_statement
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name)
  ]) @reference.import_name

; Uses of constants (ALL_CAPS names), so a function that reads a constant
; defined elsewhere can report it as missing context.
((identifier) @name
  (#match? @name "^[A-Z][A-Z0-9_]*[A-Z0-9]$")) @reference.constant

; Base classes: the parent a method's behaviour may come from.
(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.implementation
