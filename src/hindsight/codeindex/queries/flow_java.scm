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
