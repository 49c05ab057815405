; Receiver facts for Go (codeindex/receivers.py; @fact.*). Of `a, err := f()` only the
; first name is bound, to f's first result.
(short_var_declaration left: (expression_list . (identifier) @fact.lhs)
  right: (expression_list . (_) @fact.rhs)) @fact.bind
(var_spec name: (identifier) @fact.lhs type: (_) @fact.type) @fact.bind
(var_spec name: (identifier) @fact.lhs !type value: (expression_list . (_) @fact.rhs)) @fact.bind
(assignment_statement left: (expression_list . (identifier) @fact.lhs)
  right: (expression_list . (_) @fact.rhs)) @fact.bind
(field_declaration name: (field_identifier) @fact.lhs type: (_) @fact.type) @fact.field
; an embedded field (`File`, `*File`) is named after its type (namespaces.self_typed)
(field_declaration !name type: (type_identifier) @fact.lhs @fact.type) @fact.field
(field_declaration !name type: (pointer_type (type_identifier) @fact.lhs) @fact.type) @fact.field
; a function literal's typed parameters (cobra's `Run: func(cmd *Command, args []string)`),
; bound in the function around it (a literal is no scope of its own)
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @fact.lhs
  type: (_) @fact.type))) @fact.bind
(return_statement (expression_list . (_) @fact.rhs)) @fact.return
; `for _, sub := range c.commands`: sub is an element (a map's value) of c.commands
(for_statement (range_clause left: (expression_list . (_) . (identifier) @fact.lhs)
  right: (_) @fact.rhs)) @fact.for
