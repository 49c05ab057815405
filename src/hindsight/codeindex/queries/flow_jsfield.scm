; JavaScript class fields (the TypeScript grammar names them public_field_definition).
(field_definition property: (property_identifier) @fact.lhs value: (_) @fact.rhs) @fact.field
