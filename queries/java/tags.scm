; Java tags: tree-sitter-java's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name). Extended with: enums, records
; and annotation types as @definition.class, constructors as
; @definition.method, `static final` fields, interface constants and enum
; constants as @definition.constant, calls on a receiver as @reference.method
; (plain calls stay @reference.call), `new X()` as a call, `extends`/
; `implements` as @reference.implementation, type uses as @reference.type, and
; imports (@reference.import for the path, @reference.import_name for the
; imported class).
; Order matters: for one node, the earliest pattern wins.

(class_declaration
  name: (identifier) @name) @definition.class

(enum_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(interface_declaration
  name: (identifier) @name) @definition.interface

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(field_declaration
  (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(enum_constant
  name: (identifier) @name) @definition.constant

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_)
  name: (identifier) @name) @reference.method

(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
  ]) @reference.call

(superclass
  [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
  ]) @reference.implementation

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
    ])) @reference.implementation

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
    ])) @reference.implementation

(type_identifier) @name @reference.type

(import_declaration
  [(scoped_identifier) (identifier)] @name) @reference.import

; `import a.b.C;` names C; `import a.b.*;` names nothing.
(import_declaration
  (scoped_identifier name: (identifier) @name) .) @reference.import_name
