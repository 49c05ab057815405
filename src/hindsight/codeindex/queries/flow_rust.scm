; Receiver facts for Rust (codeindex/receivers.py; @fact.*), and method calls with a
; turbofish (`x.parse::<i32>()`), which rust.scm's call patterns do not see.
(let_declaration pattern: (identifier) @fact.lhs type: (_) @fact.type) @fact.bind
(let_declaration pattern: (identifier) @fact.lhs !type value: (_) @fact.rhs) @fact.bind
(field_declaration name: (field_identifier) @fact.lhs type: (_) @fact.type) @fact.field
; a closure's typed parameters (`|e: &Entry| e.size()`), bound in the function around it
(closure_expression parameters: (closure_parameters (parameter pattern: (identifier) @fact.lhs
  type: (_) @fact.type))) @fact.bind
(return_expression (_) @fact.rhs) @fact.return

(call_expression function: (generic_function function: (field_expression value: (_) @call.receiver
  field: (field_identifier) @call.name))) @reference.call
