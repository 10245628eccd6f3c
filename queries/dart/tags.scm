; Dart tags: tree-sitter-dart's queries/tags.scm (UserNobody14/
; tree-sitter-dart 0.3) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name), mapped to this crate's kinds.
; Changed: a method is its whole declaration, signature and body
; (upstream tags the signature alone, so a method's lines were its first
; line); abstract methods are their signature; constructors are left out
; (their name is the class's, or `Class.named`); typedefs, mixins,
; extensions and enums are @definition.class; top-level variables,
; `static const` fields and enum values are @definition.constant. References:
; plain calls as @reference.call, calls on a receiver and cascades as
; @reference.method, `extends`, `with` and `implements` as
; @reference.implementation, type uses as @reference.type, and the names an
; import `show`s as @reference.import_name.
; Order matters: for one node, the earliest pattern wins.

(class_declaration
  name: (identifier) @name) @definition.class

(mixin_declaration
  name: (identifier) @name) @definition.class

(extension_declaration
  name: (identifier) @name) @definition.class

(extension_type_declaration
  name: (extension_type_name (identifier) @name)) @definition.class

(enum_declaration
  name: (identifier) @name) @definition.class

(type_alias
  (type_identifier) @name) @definition.class

(method_declaration
  signature: (method_signature
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
    ])) @definition.method

(member_declaration
  (declaration
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
    ])) @definition.method

(function_declaration
  signature: [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
  ]) @definition.function

(local_function_declaration
  (function_signature name: (identifier) @name)) @definition.function

(top_level_variable_declaration
  [
    (static_final_declaration_list (static_final_declaration name: (identifier) @name))
    (initialized_identifier_list (initialized_identifier name: (identifier) @name))
  ]) @definition.constant

(member_declaration
  (declaration
    (static_final_declaration_list
      (static_final_declaration name: (identifier) @name)))) @definition.constant

(enum_entry
  name: (identifier) @name) @definition.constant

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: [
    (member_expression property: (identifier) @name)
    (null_aware_member_expression property: (identifier) @name)
  ]) @reference.method

(cascade_call_expression
  property: (identifier) @name) @reference.method

(superclass
  type: (type . (type_identifier) @name)) @reference.implementation

(mixins
  (type . (type_identifier) @name)) @reference.implementation

(interfaces
  (type . (type_identifier) @name)) @reference.implementation

(type_identifier) @name @reference.type

(import_specification
  (combinator (identifier) @name)) @reference.import_name
