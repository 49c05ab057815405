; Receiver facts for Python, read by codeindex/receivers.py (capture names @fact.*), and
; calls the name patterns of python.scm do not see.
; Any right-hand side: receivers.py keeps the kinds that can be access paths (_PY_VALUES);
; an alternation of those node kinds here made the whole query ~6% slower (issue 14).
(assignment left: (_) @fact.lhs !type right: (_) @fact.rhs) @fact.assign
(assignment left: (_) @fact.lhs type: (_) @fact.type) @fact.assign
(named_expression name: (identifier) @fact.lhs value: (_) @fact.rhs) @fact.assign
(with_item value: (as_pattern alias: (as_pattern_target [(identifier) (attribute)] @fact.lhs))) @fact.with
(for_statement left: (identifier) @fact.lhs) @fact.for
(for_in_clause left: (identifier) @fact.lhs right: (_) @fact.rhs) @fact.comp
(except_clause (as_pattern (_) @fact.rhs alias: (as_pattern_target (identifier) @fact.lhs))) @fact.except
(call function: (attribute object: [(identifier) (attribute) (call) (subscript)] @fact.lhs
                           attribute: (identifier) @_append (#any-of? @_append "append" "add" "appendleft" "extend"))
      arguments: (argument_list . [(identifier) (attribute) (call) (subscript) (list) (tuple)] @fact.rhs .)) @fact.append
(augmented_assignment left: [(identifier) (attribute)] @fact.lhs operator: "+=" right: [(list) (tuple)] @fact.rhs) @fact.append
(call function: (attribute object: [(identifier) (attribute)] @fact.lhs
                           attribute: (identifier) @_update (#eq? @_update "update"))
      arguments: (argument_list) @fact.rhs) @fact.update
(return_statement [(call) (identifier) (attribute) (subscript) (await) (binary_operator)
                   (conditional_expression) (boolean_operator) (expression_list)
                   (list) (tuple) (set) (dictionary) (list_comprehension)
                   (set_comprehension) (generator_expression)
                   (dictionary_comprehension)]) @fact.return
; A lambda bound to a name returns its body: `make = lambda dsn: Conn(dsn)`; `make().open()`.
(expression_statement (assignment left: (identifier)
  right: (lambda body: (_) @fact.rhs) @fact.return))
(for_statement left: [(pattern_list) (tuple_pattern)] @fact.lhs right: [(identifier) (attribute) (list) (tuple) (set)] @fact.rhs) @fact.unpack
(for_in_clause left: [(pattern_list) (tuple_pattern)] @fact.lhs right: [(identifier) (attribute) (list) (tuple) (set)] @fact.rhs) @fact.unpack
(for_statement left: (pattern_list . (_) . (identifier) @fact.lhs .)
               right: (call) @fact.rhs) @fact.pairs
(for_in_clause left: (pattern_list . (_) . (identifier) @fact.lhs .)
               right: (call) @fact.rhs) @fact.pairs
; `for a, b in zip(xs, ys)`, `for i, (a, b) in enumerate(zip(xs, ys))` (loops.zipped)
(for_statement left: [(pattern_list) (tuple_pattern)] @fact.lhs
               right: (call function: (identifier) @_f) @fact.rhs
               (#any-of? @_f "zip" "enumerate")) @fact.zipped
(for_in_clause left: [(pattern_list) (tuple_pattern)] @fact.lhs
               right: (call function: (identifier) @_f) @fact.rhs
               (#any-of? @_f "zip" "enumerate")) @fact.zipped
(yield) @fact.yield
(global_statement (identifier) @fact.lhs) @fact.global
(nonlocal_statement (identifier) @fact.lhs) @fact.nonlocal
; `sorted(xs, key=lambda x: …)`, `map(lambda x: …, xs)`: x is an element of xs
(lambda parameters: (lambda_parameters . (identifier) @fact.lhs)) @fact.lambda
(decorated_definition) @fact.decorated
; A call of a call or of a subscript: `make()()`, `handlers["get"]()`.
(call function: [(call) (subscript)] @fact.callee) @fact.xcall

; A decorator is called with the function it decorates.
(decorator (identifier) @call.name) @reference.call
(decorator (attribute object: (_) @call.receiver attribute: (identifier) @call.name)) @reference.call
(if_statement condition: [(call function: (identifier) @_isa
                                arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                          (boolean_operator left: (call function: (identifier) @_isa
                                arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                                operator: "and")]
              consequence: (block) @fact.body (#eq? @_isa "isinstance")) @fact.isa
(elif_clause condition: [(call function: (identifier) @_isa
                                arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                          (boolean_operator left: (call function: (identifier) @_isa
                                arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                                operator: "and")]
             consequence: (block) @fact.body (#eq? @_isa "isinstance")) @fact.isa
; `if isinstance(x, A) or isinstance(x, B):` narrows x to A or B (break-it of session 35)
(if_statement condition: (boolean_operator
                left: (call function: (identifier) @_isa
                        arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                operator: "or"
                right: (call function: (identifier) @_isa2
                        arguments: (argument_list . (identifier) @_lhs2 . (_) @fact.rhs .)))
              consequence: (block) @fact.body
              (#eq? @_isa "isinstance") (#eq? @_isa2 "isinstance") (#eq? @fact.lhs @_lhs2)) @fact.isa
(assert_statement . (call function: (identifier) @_isa
                          arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .))
                  (#eq? @_isa "isinstance")) @fact.isa
(if_statement condition: (not_operator argument: (call function: (identifier) @_isa
                          arguments: (argument_list . (identifier) @fact.lhs . (_) @fact.rhs .)))
              consequence: (block) @fact.exit (#eq? @_isa "isinstance")) @fact.isa
(match_statement subject: (identifier) @fact.lhs
                 body: (block (case_clause . (case_pattern . (class_pattern . (dotted_name) @fact.rhs))
                                           consequence: (block) @fact.body) @fact.isa))
