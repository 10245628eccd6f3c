; Swift tags: tree-sitter-swift's queries/tags.scm (alex-pinkus/
; tree-sitter-swift 0.7) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name), on the model of the Java query.
; Changed: an `extension` is @definition.impl of the type it extends (as a
; Rust `impl`), not a class; its properties are not captured (every local
; `let` was one), nor are `init`, `deinit` and subscripts (every type has
; them: no name a task could pin a file by). Extended with: type aliases as
; @definition.class, functions in a type's body as @definition.method,
; `static let`/`static var`, top-level `let`s and enum cases as
; @definition.constant; plain calls as @reference.call, calls on a receiver
; as @reference.method, inherited types and conformances as
; @reference.implementation, type uses as @reference.type, and
; `import Module` as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(class_declaration
  declaration_kind: "extension"
  name: (user_type (type_identifier) @name .)) @definition.impl

(class_declaration
  name: (type_identifier) @name) @definition.class

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(typealias_declaration
  name: (type_identifier) @name) @definition.class

(class_body
  (function_declaration
    name: (simple_identifier) @name) @definition.method)

(protocol_body
  (protocol_function_declaration
    name: (simple_identifier) @name) @definition.method)

(function_declaration
  name: (simple_identifier) @name) @definition.function

(class_body
  (property_declaration
    (modifiers (property_modifier) @_static)
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant
  (#eq? @_static "static"))

(source_file
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)

(enum_entry
  name: (simple_identifier) @name) @definition.constant

(call_expression
  . (simple_identifier) @name) @reference.call

(call_expression
  . (navigation_expression
      suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.method

(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name .)) @reference.implementation

(user_type
  (type_identifier) @name @reference.type)

(import_declaration
  (identifier) @name) @reference.import
