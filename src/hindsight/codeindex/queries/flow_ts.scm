; Receiver facts for TypeScript and TSX: declared types (codeindex/receivers.py; @fact.*).
(variable_declarator name: (identifier) @fact.lhs type: (type_annotation (_) @fact.type)) @fact.bind
(public_field_definition name: (property_identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.field
(public_field_definition name: (property_identifier) @fact.lhs !type value: (_) @fact.rhs) @fact.field
; constructor(private repo: Repo): a parameter that is also a field
(required_parameter (accessibility_modifier) pattern: (identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.ctor
(required_parameter "readonly" pattern: (identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.ctor
; `for (const s of this.stores)`: s is an element (codeindex/elements.py)
(for_in_statement left: (identifier) @fact.lhs operator: "of" right: (_) @fact.rhs) @fact.for
; `xs.forEach((s) => …)`, `.map(s => …)`, `.filter(function (s) {…})`: the callback's first
; parameter, untyped, is an element (elements.each)
(call_expression function: (member_expression object: (_) @fact.rhs property: (property_identifier) @_m)
  arguments: (arguments . [(arrow_function parameter: (identifier) @fact.lhs)
    (arrow_function parameters: (formal_parameters . (required_parameter pattern: (identifier) @fact.lhs !type)))
    (function_expression parameters: (formal_parameters . (required_parameter pattern: (identifier) @fact.lhs !type)))] @fact.each)
  (#any-of? @_m "forEach" "map" "filter" "find" "findIndex" "findLast" "some" "every" "flatMap"))
; `<T extends Entity>`: T stands for Entity in its class or function (assigns.type_param)
(type_parameter name: (type_identifier) @fact.lhs constraint: (constraint . (_) @fact.type .)) @fact.tparam
