; Receiver facts for JavaScript, TypeScript and TSX (codeindex/receivers.py; @fact.*).
(variable_declarator name: (identifier) @fact.lhs
  value: [(new_expression) (call_expression) (identifier) (member_expression) (await_expression)
          (object) (array) (parenthesized_expression) (ternary_expression) (this)
          (subscript_expression)] @fact.rhs) @fact.bind
(assignment_expression left: [(identifier) (member_expression object: (this))] @fact.lhs
  right: [(new_expression) (call_expression) (identifier) (member_expression) (await_expression)
          (object) (array) (ternary_expression)] @fact.rhs) @fact.bind
(return_statement [(new_expression) (call_expression) (identifier) (member_expression)
                   (await_expression) (this)] @fact.rhs) @fact.return
; A call of a call or of a subscript: `make()()`, `handlers["get"]()`.
(call_expression function: [(call_expression) (subscript_expression)] @fact.callee) @fact.xcall
; `pool.push(new Worker(i))`, `this.queue.push(task)`: an element from then on (elements.push)
(call_expression function: (member_expression object: [(identifier) (member_expression object: (this))] @fact.lhs
    property: (property_identifier) @_push (#eq? @_push "push"))
  arguments: (arguments . [(identifier) (new_expression) (call_expression) (member_expression)] @fact.rhs .)) @fact.push
