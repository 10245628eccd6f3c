; OCaml tags of implementations (.ml) only, after queries/ocaml/tags.scm
; (the `.ml` row's query is the two; see there): the interface grammar has
; no `let` at the top of a file, and a query naming one does not compile
; for it.

; Top-level and module-level `let`s: functions, then values.

[
  (compilation_unit
    (value_definition
      (let_binding
        pattern: (value_name) @name
        (parameter)) @definition.function))
  (structure
    (value_definition
      (let_binding
        pattern: (value_name) @name
        (parameter)) @definition.function))
  (compilation_unit
    (value_definition
      (let_binding
        pattern: (value_name) @name
        body: [(fun_expression) (function_expression)]) @definition.function))
  (structure
    (value_definition
      (let_binding
        pattern: (value_name) @name
        body: [(fun_expression) (function_expression)]) @definition.function))
]

[
  (compilation_unit
    (value_definition
      (let_binding
        pattern: (value_name) @name) @definition.constant))
  (structure
    (value_definition
      (let_binding
        pattern: (value_name) @name) @definition.constant))
]

