; Receiver facts for Java (codeindex/receivers.py; @fact.*).
(local_variable_declaration type: (_) @fact.type
  declarator: (variable_declarator name: (identifier) @fact.lhs value: (_)? @fact.rhs)) @fact.bind
(field_declaration type: (_) @fact.type
  declarator: (variable_declarator name: (identifier) @fact.lhs value: (_)? @fact.rhs)) @fact.field
(assignment_expression left: [(identifier) (field_access object: (this))] @fact.lhs
  right: [(object_creation_expression) (method_invocation) (identifier) (field_access)] @fact.rhs) @fact.bind
(enhanced_for_statement type: (_) @fact.type name: (identifier) @fact.lhs) @fact.bind
(return_statement [(object_creation_expression) (method_invocation) (identifier) (field_access)
                   (this)] @fact.rhs) @fact.return
; `for (var s : stores)`: s is an element (codeindex/elements.py)
(enhanced_for_statement type: (type_identifier) @_var name: (identifier) @fact.lhs value: (_) @fact.rhs
  (#eq? @_var "var")) @fact.for
; `stores.forEach(s -> …)`, `.stream().filter(s -> …)`, `opt.ifPresent(s -> …)`: the lambda's
; one parameter, untyped, is an element (elements.each; a Map's `forEach((k, v) -> …)` is not)
(method_invocation object: (_) @fact.rhs name: (identifier) @_m
  arguments: (argument_list . (lambda_expression
    parameters: [(identifier) @fact.lhs (inferred_parameters . (identifier) @fact.lhs .)]) @fact.each)
  (#any-of? @_m "forEach" "map" "filter" "anyMatch" "allMatch" "noneMatch" "ifPresent" "peek"
    "flatMap" "removeIf" "forEachOrdered" "mapToInt" "mapToLong" "mapToDouble" "ifPresentOrElse"))
; `<T extends Entity>`: T stands for Entity in its class or method (assigns.type_param)
(type_parameter (type_identifier) @fact.lhs (type_bound . (_) @fact.type .)) @fact.tparam
