; Kotlin tags, written for tree-sitter-kotlin-ng (tree-sitter-grammars/
; tree-sitter-kotlin ships no tags query) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name), on the model of the Java query:
; classes, objects, enum classes and type aliases as @definition.class,
; interfaces as @definition.interface, functions in a class, object or
; companion body as @definition.method and elsewhere (top level, extension
; functions, local helpers) as @definition.function, `const val`, top-level
; `val`s and enum entries as @definition.constant; plain calls as
; @reference.call, calls on a receiver as @reference.method, supertypes as
; @reference.implementation, type uses as @reference.type, and imports
; (@reference.import for the path, @reference.import_name for the imported
; name; `import a.b.*` names nothing).
; Order matters: for one node, the earliest pattern wins.

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.class

(companion_object
  name: (identifier) @name) @definition.class

(type_alias
  type: (identifier) @name) @definition.class

(class_body
  (function_declaration
    name: (identifier) @name) @definition.method)

(function_declaration
  name: (identifier) @name) @definition.function

(property_declaration
  (modifiers (property_modifier) @_const)
  (variable_declaration (identifier) @name)
  (#eq? @_const "const")) @definition.constant

(source_file
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.constant)

(enum_entry
  (identifier) @name) @definition.constant

(call_expression
  . (identifier) @name) @reference.call

(call_expression
  . (navigation_expression
      (identifier) @name .)) @reference.method

(delegation_specifier
  [
    (user_type (identifier) @name .)
    (constructor_invocation (user_type (identifier) @name .))
  ]) @reference.implementation

(user_type
  (identifier) @name @reference.type)

(import
  [(qualified_identifier) (identifier)] @name) @reference.import

((import
  (qualified_identifier (identifier) @name .)) @reference.import_name
  (#not-match? @reference.import_name "\\*\\s*$"))
