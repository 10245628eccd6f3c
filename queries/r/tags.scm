; R tags: tree-sitter-r 1.3 (r-lib/tree-sitter-r) with tree-sitter's
; standard captures (@definition.*, @reference.*, @name), from its upstream
; queries/tags.scm (functions assigned with `<-` or `=`, calls), extended.
; Definitions: a function assigned to a name (`join <- function(x)`,
; `join = function(x)`, `"%||%" <- function(x, y)`) as
; @definition.function, wherever assigned (one assigned in a function is
; local to it); an S3 method keeps its whole name (`print.join_spec`, R's
; name of the function, the one NAMESPACE's `S3method()` and a search
; use; a task's `print.join_spec()` is read as the words `print` and
; `join_spec`); R6 and Reference classes (`Plan <- R6::R6Class("Plan",
; public = list(...))`, `setRefClass`) and S4 classes (`setClass("Person",
; ...)`, assigned or not) as @definition.class; the functions of an R6
; class's `public`, `private` and `active` lists and of a Reference
; class's `methods` as @definition.method, their other elements and a
; Reference class's `fields` as @definition.field; an S4 generic
; (`setGeneric("greet", ...)`) as @definition.function and an S4 method
; (`setMethod("greet", "Person", ...)`) as @definition.method of its class
; (@parent); other assignments at a file's top level (`default_by <-
; c("id")`) as @definition.constant.
; Left out: `function(x) x -> f` (R reads the assignment as the function's
; body), `<<-` (it assigns in an enclosing environment), assignments to
; an element or a replacement call (`env$f <- function`, `names(x) <-`),
; `assign("f", ...)`, S4 classes, generics and methods not at a file's top
; level or not named by a string literal.
; References: plain calls as @reference.call; namespaced calls
; (`rlang::abort()`) and calls on an object (`self$check()`, `Plan$new()`)
; as @reference.method, as Elixir's `Mod.f()`, their receiver the package
; or object; `library(pkg)`, `require(pkg)`, `requireNamespace("pkg")` and
; `loadNamespace("pkg")` as @reference.import of the package,
; `source("R/utils.R")` of the file (not calls); an R6 class's `inherit =
; Plan` and an S4 class's `contains = "Base"` as
; @reference.implementation; `Plan$new()` and `new("Person")` as
; @reference.class.
; Order matters: for one node, the earliest pattern wins.

(binary_operator
  lhs: [
    (identifier) @name
    (string
      (string_content) @name)
  ]
  operator: [
    "<-"
    "="
  ]
  rhs: (function_definition)) @definition.function

((binary_operator
  lhs: (identifier) @name
  operator: [
    "<-"
    "="
  ]
  rhs: (call
    function: [
      (identifier) @_class
      (namespace_operator
        rhs: (identifier) @_class)
    ])) @definition.class
  (#any-of? @_class "R6Class" "setRefClass" "setClass"))

((program
  (call
    function: [
      (identifier) @_class
      (namespace_operator
        rhs: (identifier) @_class)
    ]
    arguments: (arguments
      .
      (argument
        value: (string
          (string_content) @name)))) @definition.class)
  (#any-of? @_class "setClass" "setRefClass" "R6Class"))

((program
  (call
    function: [
      (identifier) @_generic
      (namespace_operator
        rhs: (identifier) @_generic)
    ]
    arguments: (arguments
      .
      (argument
        value: (string
          (string_content) @name)))) @definition.function)
  (#eq? @_generic "setGeneric"))

((program
  (call
    function: [
      (identifier) @_method
      (namespace_operator
        rhs: (identifier) @_method)
    ]
    arguments: (arguments
      .
      (argument
        value: (string
          (string_content) @name))
      .
      (comma)
      .
      (argument
        value: (string
          (string_content) @parent)))) @definition.method)
  (#eq? @_method "setMethod"))

((program
  (call
    function: [
      (identifier) @_method
      (namespace_operator
        rhs: (identifier) @_method)
    ]
    arguments: (arguments
      .
      (argument
        value: (string
          (string_content) @name)))) @definition.method)
  (#eq? @_method "setMethod"))

((call
  function: [
    (identifier) @_class
    (namespace_operator
      rhs: (identifier) @_class)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_members
      value: (call
        function: (identifier) @_list
        arguments: (arguments
          (argument
            name: (identifier) @name
            value: (function_definition)) @definition.method)))))
  (#any-of? @_class "R6Class" "setRefClass")
  (#any-of? @_members "public" "private" "active" "methods")
  (#eq? @_list "list"))

((call
  function: [
    (identifier) @_class
    (namespace_operator
      rhs: (identifier) @_class)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_members
      value: (call
        function: (identifier) @_list
        arguments: (arguments
          (argument
            name: (identifier) @name) @definition.field)))))
  (#any-of? @_class "R6Class" "setRefClass")
  (#any-of? @_members "public" "private" "active" "fields")
  (#eq? @_list "list"))

(program
  (binary_operator
    lhs: (identifier) @name
    operator: [
      "<-"
      "="
    ]) @definition.constant)

((call
  function: [
    (identifier) @_import
    (namespace_operator
      rhs: (identifier) @_import)
  ]
  arguments: (arguments
    .
    (argument
      value: [
        (identifier) @name
        (string
          (string_content) @name)
      ]))) @reference.import
  (#any-of? @_import "library" "require" "requireNamespace" "loadNamespace" "source"))

((call
  function: (identifier) @name) @reference.call
  (#not-any-of? @name "library" "require" "requireNamespace" "loadNamespace" "source"))

(call
  function: [
    (namespace_operator
      rhs: (identifier) @name)
    (extract_operator
      rhs: (identifier) @name)
  ]) @reference.method

((argument
  name: (identifier) @_inherit
  value: (identifier) @name) @reference.implementation
  (#eq? @_inherit "inherit"))

((argument
  name: (identifier) @_contains
  value: (string
    (string_content) @name)) @reference.implementation
  (#eq? @_contains "contains"))

((call
  function: (extract_operator
    lhs: (identifier) @name
    rhs: (identifier) @_new) @reference.class)
  (#eq? @_new "new"))

((call
  function: [
    (identifier) @_new
    (namespace_operator
      rhs: (identifier) @_new)
  ]
  arguments: (arguments
    .
    (argument
      value: (string
        (string_content) @name)))) @reference.class
  (#eq? @_new "new"))
