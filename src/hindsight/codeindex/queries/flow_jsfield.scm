; JavaScript only (TypeScript's forms are in flow_ts.scm). Class fields (the TypeScript
; grammar names them public_field_definition).
(field_definition property: (property_identifier) @fact.lhs value: (_) @fact.rhs) @fact.field
; `for (const w of pool)`: w is an element (codeindex/elements.py), as in TypeScript
(for_in_statement left: (identifier) @fact.lhs operator: "of" right: (_) @fact.rhs) @fact.for
; `pool.forEach((w) => …)`, `.map(w => …)`, `.filter(function (w) {…})`: the callback's first
; parameter is an element (elements.each)
(call_expression function: (member_expression object: (_) @fact.rhs property: (property_identifier) @_m)
  arguments: (arguments . [(arrow_function parameter: (identifier) @fact.lhs)
    (arrow_function parameters: (formal_parameters . (identifier) @fact.lhs))
    (function_expression parameters: (formal_parameters . (identifier) @fact.lhs))] @fact.each)
  (#any-of? @_m "forEach" "map" "filter" "find" "findIndex" "findLast" "some" "every" "flatMap"))
