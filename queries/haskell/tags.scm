; Haskell tags, written for tree-sitter-haskell 0.24 (tree-sitter/
; tree-sitter-haskell ships highlights, injections and locals queries but no
; tags.scm) from its node-types.json, with tree-sitter's standard captures
; (@definition.*, @reference.*, @name).
;
; Definitions: the module header (@definition.module, by the last part of
; its name: `Analyzer` for `module ShellCheck.Analyzer`); the top-level
; functions and values (@definition.function: a type signature, each
; equation and each plain binding, operators and backticked names included;
; the grammar leaves a signature and the equations of one function as
; sibling nodes, which the row's `equations` joins into one definition);
; `data`, `newtype`, `type` and type and data families (@definition.class);
; type classes (@definition.interface); the methods of a class or an
; instance (@definition.method); an instance (@definition.impl, named by its
; type, `Foo` for `instance ToJSON Foo`, else by its class); data
; constructors (@definition.class, or @definition.constant without fields;
; not one named like its type, the usual record `data Foo = Foo {..}`); and
; record fields (@definition.field).
; Left out: bindings in `where` and `let` (they belong to their function,
; whose snippet they are part of), signatures naming several functions
; (`a, b :: Int`: each has its own binding), pattern bindings, pattern
; synonyms, standalone `deriving`.
;
; References: a name applied to arguments, backticked (`x `elem` xs`,
; `(`elem` xs)`) or on the function side of `$`, `<$>` and `.` is
; @reference.call (a constructor applied too, as `new X` is in Java's
; query); qualified (`M.lookup`, `AST.T_Pipe`) it is @reference.method, as
; Elixir's `Mod.f()` and Lua's `M.setup()` are; `import` is
; @reference.import of the module path (`Data.Map` for `import qualified
; Data.Map as M`), and the names of its import list @reference.import_name
; (not a `hiding` list); an instance's class is @reference.implementation;
; every type name is @reference.type.
; Order matters: for one node, the earliest pattern wins.

; The last part of the module's name, by the number of parts, most first
; (the earliest pattern wins): with this grammar an anchor after the last
; child, `(module (module_id) @name .)`, matches every part.
(header
  module: (module
    . (module_id) . (module_id) . (module_id) . (module_id) . (module_id) @name)) @definition.module
(header
  module: (module
    . (module_id) . (module_id) . (module_id) . (module_id) @name)) @definition.module
(header
  module: (module . (module_id) . (module_id) . (module_id) @name)) @definition.module
(header
  module: (module . (module_id) . (module_id) @name)) @definition.module
(header
  module: (module . (module_id) @name)) @definition.module

; Top-level functions and values.

(declarations
  [
    (signature name: (variable) @name)
    (signature name: (prefix_id (operator) @name))
    (function name: (variable) @name)
    (function (infix operator: (operator) @name))
    (function (infix operator: (infix_id (variable) @name)))
    (bind name: (variable) @name)
    (foreign_import signature: (signature name: (variable) @name))
  ] @definition.function)

; Types and classes.

(data_type name: (name) @name) @definition.class
(newtype name: (name) @name) @definition.class
(type_synonym name: (name) @name) @definition.class
(type_family name: (name) @name) @definition.class
(data_family name: (name) @name) @definition.class

(class name: (name) @name) @definition.interface

(class_declarations
  [
    (signature name: (variable) @name)
    (signature name: (prefix_id (operator) @name))
    (function name: (variable) @name)
    (function (infix operator: (operator) @name))
    (bind name: (variable) @name)
  ] @definition.method)

(instance_declarations
  [
    (signature name: (variable) @name)
    (signature name: (prefix_id (operator) @name))
    (function name: (variable) @name)
    (function (infix operator: (operator) @name))
    (function (infix operator: (infix_id (variable) @name)))
    (bind name: (variable) @name)
  ] @definition.method)

(instance
  patterns: (type_patterns
    .
    [
      (name) @name
      (qualified id: (name) @name)
      (parens
        type: [
          (apply constructor: (name) @name)
          (apply constructor: (qualified id: (name) @name))
          (apply constructor: (apply constructor: (name) @name))
          (apply constructor: (apply constructor: (qualified id: (name) @name)))
        ])
    ])) @definition.impl

(instance name: (name) @name) @definition.impl

; Data constructors and record fields.

((data_type
  name: (name) @_type
  constructors: (data_constructors
    constructor: (data_constructor
      constructor: [
        (prefix name: (constructor) @name field: (_))
        (record name: (constructor) @name)
      ] @definition.class)))
  (#not-eq? @name @_type))

((data_type
  name: (name) @_type
  constructors: (data_constructors
    constructor: (data_constructor
      constructor: (prefix name: (constructor) @name !field) @definition.constant)))
  (#not-eq? @name @_type))

((data_type
  name: (name) @_type
  constructors: (gadt_constructors
    constructor: (gadt_constructor name: (constructor) @name) @definition.class))
  (#not-eq? @name @_type))

(field name: (field_name (variable) @name) @definition.field)

; Calls.

(apply function: [(variable) (constructor)] @name) @reference.call
(apply function: (qualified id: [(variable) (constructor)] @name)) @reference.method

(infix_id (variable) @name) @reference.call
(infix_id (qualified id: (variable) @name)) @reference.method

((infix
  left_operand: (variable) @name
  operator: (operator) @_op) @reference.call
  (#any-of? @_op "$" "$!" "<$>" "."))

((infix
  left_operand: (qualified id: (variable) @name)
  operator: (operator) @_op) @reference.method
  (#any-of? @_op "$" "$!" "<$>" "."))

((infix
  operator: (operator) @_op
  right_operand: (variable) @name) @reference.call
  (#eq? @_op "."))

((infix
  operator: (operator) @_op
  right_operand: (qualified id: (variable) @name)) @reference.method
  (#eq? @_op "."))

; Imports.

(import module: (module) @name) @reference.import

((import
  names: (import_list
    name: (import_name [
      (variable) @name
      (name) @name
    ]))) @reference.import_name
  (#not-match? @reference.import_name "\\shiding\\s*\\("))

; Classes and types.

(instance name: (name) @name) @reference.implementation

(name) @name @reference.type
