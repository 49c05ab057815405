; Receiver facts for C# (codeindex/receivers.py; @fact.*).
(local_declaration_statement (variable_declaration type: (_) @fact.type
  (variable_declarator name: (identifier) @fact.lhs . (_)? @fact.rhs))) @fact.bind
(field_declaration (variable_declaration type: (_) @fact.type
  (variable_declarator name: (identifier) @fact.lhs))) @fact.field
(property_declaration type: (_) @fact.type name: (identifier) @fact.lhs) @fact.field
(assignment_expression left: [(identifier) (member_access_expression)] @fact.lhs
  right: [(object_creation_expression) (invocation_expression) (identifier)
          (member_access_expression)] @fact.rhs) @fact.bind
(return_statement [(object_creation_expression) (invocation_expression) (identifier)
                   (member_access_expression)] @fact.rhs) @fact.return

; A block namespace is the file's package too (as a file-scoped one is in csharp.scm).
(compilation_unit (namespace_declaration name: (_) @package))
