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
; `for s in &self.stores` / `.iter()`: s is an element (codeindex/rustvals.py)
(for_expression pattern: (identifier) @fact.lhs value: (_) @fact.rhs) @fact.for
; `if let Some(x) = e`, `while let Ok(x) = e`, `let Some(x) = e else {…}`, a `Some(x) =>`
; arm of `match e`: x is an element of e (rustvals.some)
(if_expression condition: (let_condition
  pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @fact.lhs .)
  value: (_) @fact.rhs) (#any-of? @_some "Some" "Ok")) @fact.some
(while_expression condition: (let_condition
  pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @fact.lhs .)
  value: (_) @fact.rhs) (#any-of? @_some "Some" "Ok")) @fact.some
(let_declaration pattern: (tuple_struct_pattern type: (identifier) @_some . (identifier) @fact.lhs .)
  value: (_) @fact.rhs alternative: (block) (#any-of? @_some "Some" "Ok")) @fact.some
(match_expression value: (_) @fact.rhs
  body: (match_block (match_arm pattern: (match_pattern
    (tuple_struct_pattern type: (identifier) @_some . (identifier) @fact.lhs .))) @fact.some)
  (#any-of? @_some "Some" "Ok"))
