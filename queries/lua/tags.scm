; Lua tags: tree-sitter-lua's queries/tags.scm (tree-sitter-grammars/
; tree-sitter-lua 0.5) with tree-sitter's standard captures
; (@definition.*, @reference.*, @name). Changed: calls on a table or an
; object (`M.setup()`, `obj:close()`) are @reference.method, plain calls
; @reference.call (upstream: all @reference.call); `require("a.b")` is
; @reference.import of the module `a.b`, not a call; a function in a table
; constructor (`return { run = function() ... end }`) is its field, not the
; whole table.
; Order matters: for one node, the earliest pattern wins.

(function_declaration
  name: (method_index_expression
    method: (identifier) @name)) @definition.method

(function_declaration
  name: [
    (identifier) @name
    (dot_index_expression
      field: (identifier) @name)
  ]) @definition.function

(assignment_statement
  (variable_list
    .
    name: [
      (identifier) @name
      (dot_index_expression
        field: (identifier) @name)
    ])
  (expression_list
    .
    value: (function_definition))) @definition.function

(table_constructor
  (field
    name: (identifier) @name
    value: (function_definition)) @definition.function)

((function_call
  name: (identifier) @_require
  arguments: (arguments . (string content: (string_content) @name))) @reference.import
  (#eq? @_require "require"))

((function_call
  name: (identifier) @name) @reference.call
  (#not-eq? @name "require"))

(function_call
  name: [
    (dot_index_expression
      field: (identifier) @name)
    (method_index_expression
      method: (identifier) @name)
  ]) @reference.method
