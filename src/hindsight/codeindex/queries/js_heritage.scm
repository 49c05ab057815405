; JavaScript-only heritage patterns (TypeScript wraps them in extends_clause).
(class_heritage (identifier) @inherit.name)
(class_heritage (member_expression object: (_) @inherit.receiver
  property: (property_identifier) @inherit.name))

