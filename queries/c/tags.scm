; C tags: tree-sitter-c's queries/tags.scm with tree-sitter's standard captures
; (@definition.*, @reference.*, @name). Extended with: function definitions
; (not prototypes, so the `.c` file rather than its header defines a function)
; spanning the whole body, enums and typedefs as @definition.class,
; object-like `#define`s, top-level `const` objects and enumerators as
; @definition.constant, function-like `#define`s as @definition.macro, calls
; (through a struct field as @reference.method), type uses as @reference.type
; and `#include` paths as @reference.import.
; Order matters: for one node, the earliest pattern wins.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition declarator: (type_identifier) @name) @definition.class

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit
  (declaration
    (type_qualifier "const")
    declarator: (init_declarator declarator: (identifier) @name)) @definition.constant)

(enumerator name: (identifier) @name) @definition.constant

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.method

(type_identifier) @name @reference.type

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import
