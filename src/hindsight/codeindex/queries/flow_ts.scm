; Receiver facts for TypeScript and TSX: declared types (codeindex/receivers.py; @fact.*).
(variable_declarator name: (identifier) @fact.lhs type: (type_annotation (_) @fact.type)) @fact.bind
(public_field_definition name: (property_identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.field
(public_field_definition name: (property_identifier) @fact.lhs !type value: (_) @fact.rhs) @fact.field
; constructor(private repo: Repo): a parameter that is also a field
(required_parameter (accessibility_modifier) pattern: (identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.ctor
(required_parameter "readonly" pattern: (identifier) @fact.lhs
  type: (type_annotation (_) @fact.type)) @fact.ctor
