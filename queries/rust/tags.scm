; Rust tags: tree-sitter's standard captures (@definition.*, @reference.*, @name),
; extended with constants, statics, impl blocks (as containers), imports and type uses.

(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(type_item name: (type_identifier) @name) @definition.class

(declaration_list
    (function_item name: (identifier) @name) @definition.method)

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method

(trait_item name: (type_identifier) @name) @definition.interface
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(enum_variant name: (identifier) @name) @definition.constant

(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name)]) @definition.impl

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.method
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call

(impl_item trait: (type_identifier) @name) @reference.implementation

(scoped_identifier path: (identifier) @name) @reference.type
(scoped_identifier name: (identifier) @name) @reference.type
(type_identifier) @name @reference.type

(use_declaration argument: (_) @name) @reference.import

; Uses of constants (ALL_CAPS names), so a function that reads a constant
; defined elsewhere can report it as missing context.
((identifier) @name
  (#match? @name "^[A-Z][A-Z0-9_]*[A-Z0-9]$")) @reference.constant
