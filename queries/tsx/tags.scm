
; TSX tags: appended to queries/typescript/tags.scm (the TSX grammar is
; TypeScript plus JSX). Extended with JSX components (capitalised element
; names) as @reference.call.

((jsx_opening_element
  name: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call
  (#match? @name "^[A-Z]"))
