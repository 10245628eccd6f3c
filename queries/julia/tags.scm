; Julia tags: tree-sitter-julia 0.23 (tree-sitter/tree-sitter-julia) ships
; no tags query; this one is written from its grammar.js with tree-sitter's
; standard captures (@definition.*, @reference.*, @name).
; Definitions: `function f(...) ... end` and the short form `f(x) = ...`
; (with a return type `f(x)::T`, a `where` clause, a macro before it:
; `@inline function f`) as @definition.function, wherever they are (those
; in a function are its locals: lang::tags marks them; a struct's inner
; constructor is defined in its struct); a method added to another
; module's function (`Base.show(io::IO, x::T) = ...`, `function
; Base.getindex(...)`) is named by its last part (`show`, `getindex`: the
; row reads dotted names so), a constructor `Foo{T}(...)` by `Foo`, an
; operator's method by its operator (`(+)(a, b) = ...`: `+`; `Base.:+`:
; `:+`), a zero-method `function f end` by `f`. A callable object's method
; (`(m::Dense)(x)`, `function (m::Dense{T})(x) where T`: a layer's forward
; pass) is a @definition.method named by its type. `struct`, `mutable
; struct`, `abstract type`, `primitive type` are @definition.class named
; without parameters or supertype (`Box{T} <: Shape`: `Box`), a struct's
; fields (`x::T`, `x`, `@kwdef`'s `x::T = 1`) @definition.field;
; `module`/`baremodule` @definition.module, `macro m(...)`
; @definition.macro, `const X = ...` (`const X::T`, `const A, B = ...`)
; @definition.constant. The row (table.rs) starts a definition at the
; docstring before it (`doc_before`) and drops a name's `!` (`name_mark`:
; `push!` is `push`, as a task's words name it).
; Left out: other global assignments (`x = 1`), anonymous functions,
; names made by interpolation (`$f(x) = ...` in `@eval` loops) and other
; metaprogramming, a callable object's short-form method with a return
; type or a `where` clause (`(m::T)(x)::R = ...`, rare; each such shape
; costs the query's compilation about 25 ms in a debug build), `const`
; fields of a mutable struct (Julia 1.8's `const x::T`, which this grammar
; does not parse), `(::Type{T})(x)` methods.
; References: `f(x)`, `f.(x)` and macro calls (`@m`, `Base.@m`) as
; @reference.call, qualified calls `Mod.f(x)`/`Mod.f.(x)` as
; @reference.method (receiver `Mod`), `using X`, `import X.Y`, `import X:
; a, b`, `import X as Y` as @reference.import of the module as written
; (`X.Y`, a relative `..Utils`) and the names a `:` list selects as
; @reference.import_name, `include("file.jl")` as @reference.import of the
; path, a supertype (`struct A <: B`) as @reference.implementation, type
; annotations (`::T`, `::Vector{T}`, `::Mod.T`) and parametrized types
; (`Dict{K,V}`, not `new{T}`) as @reference.type.
; Nested alternatives are costly to compile against this large grammar (a
; first version of this query took 0.8 s, debug build): wildcards stand for
; nodes that only one kind can be (a type head's parent is its definition).
; Order matters: for one node, the earliest pattern wins.

; A callable object's method: `(m::Dense)(x) = ...`, `function (m::Dense)(x)`.
(function_definition
  (signature
    [
      (call_expression
        .
        (parenthesized_expression
          (typed_expression
            (_)
            .
            [
              (identifier) @name
              (parametrized_type_expression . (identifier) @name)
            ] .)))
      (_
        .
        (call_expression
          .
          (parenthesized_expression
            (typed_expression
              (_)
              .
              [
                (identifier) @name
                (parametrized_type_expression . (identifier) @name)
              ] .))))
    ])) @definition.method

(assignment
  .
  (call_expression
    .
    (parenthesized_expression
      (typed_expression
        (_)
        .
        [
          (identifier) @name
          (parametrized_type_expression . (identifier) @name)
        ] .)))) @definition.method

; `function f(...)`, `function Base.f(...)` (a dotted name, read by its
; last part), `function Foo{T}(...)` (a constructor), with a return type
; or a `where` clause; `function f end`. Not a name made by interpolation
; (`function $f(x)` in an `@eval` loop).
(function_definition
  (signature
    [
      (identifier) @name
      (call_expression
        .
        [
          (identifier) @name
          (field_expression) @name
          (parametrized_type_expression . (identifier) @name)
          (parenthesized_expression . (operator) @name .)
        ])
      (_
        .
        (call_expression
          .
          [
            (identifier) @name
            (field_expression) @name
            (parametrized_type_expression . (identifier) @name)
          ]))
      (_
        .
        (_
          .
          (call_expression
            .
            [
            (identifier) @name
            (field_expression) @name
            (parametrized_type_expression . (identifier) @name)
          ])))
    ])
  (#not-match? @name "[$]")) @definition.function

; The short form `f(x) = ...`, `Base.f(x) = ...`, `f(x)::T = ...`,
; `f(x::T) where {T} = ...`, `(+)(a, b) = ...`; not `f(x).a = ...` or
; `f(x)[i] = ...`, which set a field or an element.
(assignment
  .
  [
    (call_expression
      .
      [
        (identifier) @name
        (field_expression) @name
        (parametrized_type_expression . (identifier) @name)
        (parenthesized_expression . (operator) @name .)
      ])
    (typed_expression
      .
      (call_expression
        .
        [
            (identifier) @name
            (field_expression) @name
            (parametrized_type_expression . (identifier) @name)
          ]))
    (where_expression
      .
      [
        (call_expression
          .
          [
            (identifier) @name
            (field_expression) @name
            (parametrized_type_expression . (identifier) @name)
          ])
        (_
          .
          (call_expression
            .
            [
            (identifier) @name
            (field_expression) @name
            (parametrized_type_expression . (identifier) @name)
          ]))
      ])
  ]
  (#not-match? @name "[$]")) @definition.function

(macro_definition
  (signature
    (call_expression
      .
      (identifier) @name))) @definition.macro

; `struct`, `mutable struct`, `abstract type`, `primitive type` (the only
; nodes with a type head), named without parameters or supertype.
(_
  (type_head
    [
      (identifier) @name
      (_ . (identifier) @name)
      (_ . (_ . (identifier) @name))
    ])) @definition.class

; A struct's fields: `x::T`, `x`, `x::T = 1` (`@kwdef`).
(struct_definition
  [
    (identifier) @name
    (typed_expression . (identifier) @name)
    (assignment
      .
      [
        (identifier) @name
        (typed_expression . (identifier) @name)
      ])
  ] @definition.field)

(module_definition
  name: (identifier) @name) @definition.module

(const_statement
  (assignment
    .
    [
      (identifier) @name
      (typed_expression . (identifier) @name)
    ])) @definition.constant

(const_statement
  (assignment
    .
    (open_tuple
      (identifier) @name @definition.constant)))

; Imports.
((call_expression
  .
  (identifier) @_include
  (argument_list
    .
    (string_literal
      .
      (content) @name .) .)) @reference.import
  (#eq? @_include "include"))

[
  (using_statement
    [
      (identifier)
      (scoped_identifier)
      (import_path)
    ] @name)
  (import_statement
    [
      (identifier)
      (scoped_identifier)
      (import_path)
    ] @name)
  (_
    (import_alias
      .
      [
        (identifier)
        (scoped_identifier)
        (import_path)
      ] @name))
  (selected_import
    .
    [
      (identifier)
      (scoped_identifier)
      (import_path)
    ] @name)
] @reference.import

(selected_import
  .
  (_)
  [
    (identifier) @name
    (macro_identifier (identifier) @name)
    (import_alias . (identifier) @name)
  ] @reference.import_name)

; Supertypes: `struct A <: B`, `<: B{T}`, `<: M.B`.
(type_head
  (_
    (operator)
    .
    [
      (identifier) @name
      (field_expression) @name
      (parametrized_type_expression . [(identifier) (field_expression)] @name)
    ] .)) @reference.implementation

; Calls.
(call_expression
  .
  (identifier) @name) @reference.call

(broadcast_call_expression
  .
  (identifier) @name) @reference.call

(call_expression
  .
  (field_expression
    (identifier) @name .)) @reference.method

(broadcast_call_expression
  .
  (field_expression
    (identifier) @name .)) @reference.method

(macro_identifier
  [
    (identifier)
    (scoped_identifier)
  ] @name) @reference.call

; Types.
(typed_expression
  (_)
  .
  [
    (identifier) @name
    (field_expression (identifier) @name .)
    (parametrized_type_expression
      .
      [
        (identifier) @name
        (field_expression (identifier) @name .)
      ])
  ] .) @reference.type

(unary_typed_expression
  [
    (identifier) @name
    (field_expression (identifier) @name .)
    (parametrized_type_expression
      .
      [
        (identifier) @name
        (field_expression (identifier) @name .)
      ])
  ] .) @reference.type

((parametrized_type_expression
  .
  (identifier) @name) @reference.type
  (#not-eq? @name "new"))
