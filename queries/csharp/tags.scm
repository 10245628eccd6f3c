; C# tags: tree-sitter-c-sharp's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name); its non-standard
; @reference.class/interface/send captures become @reference.type,
; @reference.implementation and @reference.method. Extended with: structs,
; records and enums as @definition.class, constructors as @definition.method,
; file-scoped namespaces as @definition.module, `const` and `static readonly`
; fields and enum members as @definition.constant, plain calls as
; @reference.call (calls on a receiver as @reference.method), `new X()` as a
; call, and `using` directives as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

(field_declaration
  (modifier "const")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant

((field_declaration
  (modifier "static")
  (modifier "readonly")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant)

(enum_member_declaration name: (identifier) @name) @definition.constant

(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
  ]) @reference.implementation

(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
  ]) @reference.call

(invocation_expression
  function: (member_access_expression
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ])) @reference.method

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
  ]) @reference.call

(variable_declaration type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(parameter type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(method_declaration returns: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(property_declaration type: [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(type_argument_list [(identifier) @name (generic_name (identifier) @name)]) @reference.type
(type_parameter_constraint (type type: (identifier) @name)) @reference.type

(using_directive [(identifier) (qualified_name)] @name) @reference.import
