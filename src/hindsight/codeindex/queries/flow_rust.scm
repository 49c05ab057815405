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
; `xs.iter().for_each(|x| x.save())`, `.map(|s| …)`, `opt.map(|s| …)`: the closure's one
; untyped parameter is an element of what the adapter is called on (rustvals.each)
(call_expression function: (field_expression value: (_) @fact.rhs field: (field_identifier) @_m)
  arguments: (arguments . (closure_expression parameters: (closure_parameters .
    [(identifier) @fact.lhs (reference_pattern (identifier) @fact.lhs)] .)) @fact.each .)
  (#any-of? @_m "for_each" "map" "filter" "filter_map" "flat_map" "any" "all" "find"
    "find_map" "position" "inspect" "take_while" "skip_while" "map_while" "try_for_each"
    "max_by_key" "min_by_key" "sort_by_key" "sort_by_cached_key" "retain" "and_then"
    "is_some_and" "map_or_else" "partition" "group_by" "for_each_concurrent"))
; `v.push(Worker::new(i))`, `self.items.push(x)`: an element from then on (elements.push)
(call_expression function: (field_expression value: [(identifier) (field_expression value: (self))] @fact.lhs
    field: (field_identifier) @_push (#eq? @_push "push"))
  arguments: (arguments . [(identifier) (call_expression) (struct_expression) (field_expression)] @fact.rhs .)) @fact.push
; `fn f<T: Summary>`, `where T: Summary`: T stands for the trait (assigns.type_param)
(type_parameter name: (type_identifier) @fact.lhs bounds: (trait_bounds (type_identifier) @fact.type)) @fact.tparam
(where_predicate left: (type_identifier) @fact.lhs bounds: (trait_bounds (type_identifier) @fact.type)) @fact.tparam
