; Zig tags: tree-sitter-zig 1.1 (tree-sitter-grammars/tree-sitter-zig)
; ships no tags query; this one is written from its grammar.js with
; tree-sitter's standard captures (@definition.*, @reference.*, @name).
; Definitions: `const Foo = struct/enum/union/opaque {...}` and error sets
; (`const E = error{...}`) as @definition.class, wherever declared (a type
; local to a function is a local class), and a generic type's container
; (`fn List(comptime T: type) type { return struct {...}; }`) as a class
; named by its function, so its `fn`s are methods of `List`, not locals of
; a function; a `fn` in a struct, union, enum or opaque as
; @definition.method, at a file's top level as @definition.function (a
; file is a struct, but its functions are called as the module's); the
; `const`/`var`s of a file or container as @definition.constant, except
; aliases (`const Allocator = std.mem.Allocator;`, `const Self = @This();`,
; `@import(...)`), which define nothing; struct and union fields as
; @definition.field (a file's own fields too: a file is a struct), enum
; values as @definition.constant. A file's fields have no parent: naming
; it by the file's `const X = @This();` took a pattern of two siblings of
; the whole file, 70 s of querying on ghostty's 11,000-line Config.zig.
; Left out: `test` blocks (tests, not definitions: named by a string),
; `comptime` blocks, `usingnamespace`, the values of an error set.
; References: plain calls as @reference.call, calls on a receiver
; (`self.flush()`, `std.debug.print()`) as @reference.method,
; `@import("std")`/`@import("foo.zig")` as @reference.import of what it
; names, TitleCase names (Zig's names of types and of functions returning
; types) as @reference.type.
; Order matters: for one node, the earliest pattern wins.

(variable_declaration
  .
  (identifier) @name
  [
    (struct_declaration)
    (enum_declaration)
    (union_declaration)
    (opaque_declaration)
    (error_set_declaration)
  ]) @definition.class

(function_declaration
  name: (identifier) @name
  body: (block
    (expression_statement
      (return_expression
        [
          (struct_declaration)
          (enum_declaration)
          (union_declaration)
          (opaque_declaration)
        ] @definition.class))))

[
  (struct_declaration
    (function_declaration
      name: (identifier) @name) @definition.method)
  (union_declaration
    (function_declaration
      name: (identifier) @name) @definition.method)
  (enum_declaration
    (function_declaration
      name: (identifier) @name) @definition.method)
  (opaque_declaration
    (function_declaration
      name: (identifier) @name) @definition.method)
]

(source_file
  (function_declaration
    name: (identifier) @name) @definition.function)

([
  (source_file
    (variable_declaration
      .
      (identifier) @name
      "="
      (_) @_value) @definition.constant)
  (struct_declaration
    (variable_declaration
      .
      (identifier) @name
      "="
      (_) @_value) @definition.constant)
  (union_declaration
    (variable_declaration
      .
      (identifier) @name
      "="
      (_) @_value) @definition.constant)
  (enum_declaration
    (variable_declaration
      .
      (identifier) @name
      "="
      (_) @_value) @definition.constant)
  (opaque_declaration
    (variable_declaration
      .
      (identifier) @name
      "="
      (_) @_value) @definition.constant)
]
  (#not-match? @_value "^(@(import|This|cImport)[^A-Za-z0-9_]|[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$)"))

[
  (source_file
    (container_field
      name: (identifier) @name) @definition.field)
  (struct_declaration
    (container_field
      name: (identifier) @name) @definition.field)
  (union_declaration
    (container_field
      name: (identifier) @name) @definition.field)
]

(enum_declaration
  (container_field
    name: (identifier) @name) @definition.constant)

((builtin_function
  (builtin_identifier) @_import
  (arguments
    .
    (string
      (string_content) @name))) @reference.import
  (#eq? @_import "@import"))

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    member: (identifier) @name)) @reference.method

((identifier) @name @reference.type
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$"))
