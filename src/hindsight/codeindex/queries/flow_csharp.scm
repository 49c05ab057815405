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
; `foreach (var s in stores)` / `foreach (Store s in stores)`: s is an element (elements.py)
(foreach_statement type: (implicit_type) left: (identifier) @fact.lhs right: (_) @fact.rhs) @fact.for
(foreach_statement type: [(identifier) (qualified_name) (generic_name)] @fact.type
  left: (identifier) @fact.lhs) @fact.bind
; `stores.ForEach(s => …)`, `.Where(s => …)`, `.Select((s) => …)`: the lambda's first
; parameter, untyped, is an element (elements.each)
(invocation_expression function: (member_access_expression expression: (_) @fact.rhs name: (identifier) @_m)
  arguments: (argument_list . (argument (lambda_expression
    parameters: [(implicit_parameter) @fact.lhs (parameter_list . (parameter !type name: (identifier) @fact.lhs))]) @fact.each))
  (#any-of? @_m "ForEach" "Select" "Where" "Any" "All" "First" "FirstOrDefault" "Last" "Count"
    "OrderBy" "OrderByDescending" "SelectMany" "Single" "SingleOrDefault" "Sum" "Max" "Min"
    "TrueForAll" "Exists" "FindAll" "RemoveAll" "Find"))
; `where T : IEntity`: T stands for IEntity in its class or method (assigns.type_param)
(type_parameter_constraints_clause (identifier) @fact.lhs
  (type_parameter_constraint type: (_) @fact.type)) @fact.tparam
