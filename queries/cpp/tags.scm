; C++ tags: tree-sitter-cpp's queries/tags.scm with tree-sitter's standard
; captures (@definition.*, @reference.*, @name). Extended with: function
; definitions (not prototypes) spanning the whole body, member functions
; defined in their class as @definition.method, `Foo::bar` defined out of its
; class as @definition.method with @parent Foo, namespaces as
; @definition.module, enums and aliases as @definition.class, object-like
; `#define`s, namespace-scope `const`/`constexpr` objects and enumerators as
; @definition.constant, function-like `#define`s as @definition.macro, calls
; (on an object as @reference.method), `new X` as a call, base classes as
; @reference.implementation, type uses as @reference.type and `#include` paths
; as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(field_declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
      (reference_declarator (function_declarator declarator: (field_identifier) @name))
    ]) @definition.method)

(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @parent (template_type name: (type_identifier) @parent)]
        name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @parent (template_type name: (type_identifier) @parent)]
          name: (identifier) @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @parent (template_type name: (type_identifier) @parent)]
          name: (identifier) @name)))
  ]) @definition.method

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition declarator: (type_identifier) @name) @definition.class
(alias_declaration name: (type_identifier) @name) @definition.class

(namespace_definition name: (namespace_identifier) @name) @definition.module

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit
  (declaration
    (type_qualifier)
    declarator: (init_declarator declarator: (identifier) @name)) @definition.constant)

(namespace_definition
  body: (declaration_list
    (declaration
      (type_qualifier)
      declarator: (init_declarator declarator: (identifier) @name)) @definition.constant))

(enumerator name: (identifier) @name) @definition.constant

(call_expression
  function: [
    (identifier) @name
    (qualified_identifier name: (identifier) @name)
    (template_function name: (identifier) @name)
    (qualified_identifier name: (template_function name: (identifier) @name))
  ]) @reference.call

(call_expression
  function: (field_expression
    field: [
      (field_identifier) @name
      (template_method name: (field_identifier) @name)
    ])) @reference.method

(new_expression
  type: [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
    (template_type name: (type_identifier) @name)
  ]) @reference.call

(base_class_clause
  [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier) @name)
    (template_type name: (type_identifier) @name)
  ]) @reference.implementation

(type_identifier) @name @reference.type

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import
